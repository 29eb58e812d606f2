# tests/suite_docs.sh - the front door holds (issue 24): README.md and
# docs/*.md point only at what the repository has (tests/check_docs.sh),
# and the checker catches each kind of broken reference; the README stays
# one screen of essentials (at most 200 lines) and maps every docs page;
# nothing refers outside the repository; every paper cited by number is in
# docs/papers.md; and the README's commands run as written: every command
# of its fenced sh blocks is listed below as run here (cheap) or not run
# (heavy, or needing a cluster), and the cheap ones must exit 0.
# Sourced by run_tests.sh (helpers: tests/lib.sh).
# shellcheck disable=SC2016 # backticks in strings here are markdown, not expansions

if out=$(bash tests/check_docs.sh . 2>&1); then
    ok "$out"
else
    bad "README/docs references that do not resolve:"
    printf '%s\n' "$out" | sed 's/^/    /'
fi

# The checker itself: a copy of the pages with one broken reference of each kind.
dd=$TMP/docs_check
mkdir -p "$dd"
cp -r README.md LICENSE Makefile layers.mk docs kit pmpi baseline hpcc_ra optimized hpcc torus sparsest_cut torusmodel tools tests run_scripts "$dd/"
for d in bin lib build; do [ -e "$d" ] && ln -s "$PWD/$d" "$dd/$d"; done
# All six kinds in one page, one run of the checker; each must be named.
cat >>"$dd/docs/running.md" <<'BROKEN'

[x](nowhere.md) [y](model.md#no-such-heading) `run_scripts/no_such.sh`
`no_such_file.c` `../shared/design/HPCC_RULES.md` `bin/no_such_binary --help`
BROKEN
if dout=$(bash tests/check_docs.sh "$dd" 2>&1); then drc=0; else drc=$?; fi
check_broken() {
    local desc=$1 want=$2
    if [ "$drc" != 0 ] && printf '%s\n' "$dout" | grep -q -- "$want"; then
        ok "check_docs.sh catches $desc: $(printf '%s\n' "$dout" | grep -m1 -- "$want")"
    else
        bad "check_docs.sh missed $desc (exit $drc): $dout"
    fi
}
check_broken "a link to a missing page" "link 'nowhere.md': no docs/nowhere.md"
check_broken "a link to a missing heading" "no heading '#no-such-heading' in docs/model.md"
check_broken "a missing repository path" "'run_scripts/no_such.sh' is not in the repository"
check_broken "a missing file name" "no file named 'no_such_file.c'"
check_broken "a path outside the repository" "'../shared/design/HPCC_RULES.md' points outside the repository"
check_broken "a binary make does not build" "'bin/no_such_binary' is not built"
n=$(printf '%s\n' "$dout" | grep -c '^check-docs: ')
if [ "$n" = 6 ]; then ok "check_docs.sh names those six and nothing else"; else bad "check_docs.sh reported $n problems on the copy, want 6: $dout"; fi

n=$(wc -l <README.md)
if [ "$n" -le 200 ]; then ok "README.md is $n lines (at most 200)"; else bad "README.md is $n lines: at most 200"; fi

missing=""
npages=0
for p in docs/*.md; do
    npages=$((npages + 1))
    grep -q "](${p})" README.md || missing="$missing $p"
done
if [ -z "$missing" ]; then ok "the README's map links every docs page ($npages pages)"; else bad "docs pages the README does not link:$missing"; fi

# No reference to folders outside the repository (the design notes and
# papers now live in docs/).
outside=$(grep -rlE '\.\./shared/|/work/shared' --include='*.[ch]' --include='*.sh' --include='*.md' \
    --include='*.sbatch' --include=Makefile --exclude-dir=build --exclude-dir=.git . 2>/dev/null | grep -v '^./tests/suite_docs.sh$')
if [ -z "$outside" ]; then ok "no file refers to ../shared or /work/shared"; else bad "files referring outside the repository: $outside"; fi

# Every "paper 00N" the code and the pages cite has its row in docs/papers.md.
cited=$(grep -rhoiE 'papers? 00[0-9]( and 00[0-9])?' --include='*.[ch]' --include='*.sh' --include='*.md' \
    --exclude-dir=build --exclude-dir=.git . | grep -oE '00[0-9]' | sort -u | tr '\n' ' ')
nocite=""
for p in $cited; do grep -q "^| $p |" docs/papers.md || nocite="$nocite $p"; done
if [ -n "$cited" ] && [ -z "$nocite" ]; then ok "docs/papers.md names every paper cited: $cited"; else bad "papers cited but not in docs/papers.md:${nocite:- (none cited?)}"; fi

# The README's commands.  Commands are the lines of its ```sh blocks, with
# continuation lines joined and comments cut.  Run as written, from the
# checkout, except that `mpirun.mpich` is this suite's launcher ($MPIRUN with
# its flags) and lib/mpich/ the adapter of the MPI under test.
DOC_RUN=(
    "mpirun.mpich -n 4 bin/ra_opt --log2-table 20"
    "mpirun.mpich -n 4 bin/ra_base --log2-table 20"
    "bin/sparsest_cut 64x32x32 --link-bw 175e6 --bytes-per-update 78"
    "bin/torusmodel --preset bgl-routed --shape 8x8x8"
    "mpirun.mpich -n 2 bin/collbench --op allreduce --sizes 8:64K"
    "mpirun.mpich -n 4 env LD_PRELOAD=\$PWD/lib/mpich/libtorus_pmpi.so TORUS_COLL_STATS=1 bin/ra_opt --log2-table 16"
)
DOC_NOT_RUN=(
    "make run"                                     # a 1 GiB table: minutes
    "make test"                                    # this suite is part of it
    "printf 'node01 slots=32\\nnode02 slots=32\\n' > hosts"  # a hostfile for the cluster line
    "mpirun.openmpi -n 64 --hostfile hosts --map-by core --bind-to core bin/ra_opt --node-dim --mem 2G"
    "srun -n 64 --cpu-bind=cores --distribution=block:block bin/ra_opt --node-dim --mem 2G"
    "sbatch --nodes=4 --ntasks-per-node=32 run_scripts/slurm/ra_opt.sbatch"
    "sbatch --nodes=8 --ntasks-per-node=32 --export=ALL,MEM=2G run_scripts/slurm/hpcc_submission.sbatch"
    "run_scripts/hpcc_submission.sh -n 2 -m 1G -o sub"  # minutes; a tiny one is in suite_scripts.sh
    "make hpcc"                                    # HPCC's source and build: suite_hpcc.sh
    "run_scripts/sweep.sh -o sweep/sweep.csv -p \"1 2 4 8\" -k \"22 24\""  # minutes; suite_scripts.sh
    "run_scripts/plot.sh sweep/sweep.csv"          # needs the sweep's CSV; suite_scripts.sh
)
readme_cmds=$(awk '
    /^```sh/ { sh = 1; next }
    /^```/ { sh = 0; next }
    sh {
        line = cont $0
        if (line ~ /\\$/) { sub(/\\$/, "", line); cont = line; next }
        cont = ""
        sub(/[ \t]+#.*$/, "", line); sub(/[ \t]+$/, "", line)
        if (line != "") print line
    }' README.md)
listed() {
    local c
    for c in "${DOC_RUN[@]}" "${DOC_NOT_RUN[@]}"; do [ "$c" = "$1" ] && return 0; done
    return 1
}
unlisted=""
while IFS= read -r c; do listed "$c" || unlisted="$unlisted
    $c"; done <<<"$readme_cmds"
stale=""
for c in "${DOC_RUN[@]}" "${DOC_NOT_RUN[@]}"; do
    grep -qxF -- "$c" <<<"$readme_cmds" || stale="$stale
    $c"
done
if [ -z "$unlisted$stale" ]; then
    ok "every README command is classified: ${#DOC_RUN[@]} run here, ${#DOC_NOT_RUN[@]} not (heavy or cluster-only)"
else
    bad "README commands and suite_docs.sh's lists differ; in the README only:${unlisted:- none}; in the lists only:${stale:- none}"
fi

for c in "${DOC_RUN[@]}"; do
    run=$c
    [[ $run == "mpirun.mpich "* ]] && run="$MPIRUN $MPIRUN_FLAGS ${run#mpirun.mpich }"
    run=${run//lib\/mpich\//lib\/$MPI\/}
    timeout -k 10 120 bash -c "$run" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc = 0 ]; then
        ok "README command runs: $c"
    else
        bad "README command '$c' (run as '$run'): exit $rc; $(head -c 300 "$TMP/err")"
    fi
    case $c in
    *"bin/ra_opt --log2-table 20") fp_opt=$(key fingerprint) ;;
    *"bin/ra_base --log2-table 20") fp_base=$(key fingerprint) ;;
    *TORUS_COLL_STATS=1*)
        # its stats lines (a header, one per operation, a summary), and
        # their figures read as keys from the same command under
        # TORUS_COLL_STATS=kv (tests/lib.sh's pm_stat)
        doc_lines=$(grep -c '^torus_pmpi: ' "$TMP/err")
        timeout -k 10 120 bash -c "${run/TORUS_COLL_STATS=1/TORUS_COLL_STATS=kv}" >"$TMP/out" 2>"$TMP/err"
        if [ "$doc_lines" -ge 8 ] && [ "$(pm_stat summary ranks)" = 4 ] && [ "$(pm_stat summary calls)" -gt 0 ] 2>/dev/null; then
            ok "the README's adapter line prints the adapter's stats ($doc_lines lines; as keys: $(pm_kv_line summary))"
        else
            bad "the README's adapter line: $doc_lines stats lines; as keys: $(pm_kv_line summary || echo none)"
        fi
        ;;
    esac
done
if [ -n "${fp_opt:-}" ] && [ "$fp_opt" = "${fp_base:-}" ]; then
    ok "the README's ra_opt and ra_base runs print the same fingerprint, as it says ($fp_opt)"
else
    bad "the README's ra_opt and ra_base runs differ: '${fp_opt:-}' and '${fp_base:-}'"
fi

# Launch lines name the build's own launcher (issue 48, class 3): Debian's
# plain `mpirun` is Open MPI's once both libraries are installed, and an
# MPICH build it starts refuses; so no page shows `mpirun -n ...`.
plain_mpirun=$(grep -nE '(^|[^.[:alnum:]_/=])mpirun -[a-z-]' README.md docs/*.md | grep -v 'mpirun -x`' | head -3)
if [ -z "$plain_mpirun" ]; then
    ok "README and docs: every launch line names mpirun.mpich or mpirun.openmpi, none a plain mpirun"
else
    bad "a plain mpirun in a launch line (mpirun.mpich / mpirun.openmpi, issue 48): $plain_mpirun"
fi

# Every program of the README's table answers --help (binaries) or -h (scripts).
hpcc_progs=$(sed -n 's/^HPCC_PROGS := //p' Makefile)
while read -r prog; do
    # make hpcc's binaries (the Makefile's HPCC_PROGS) are built later by
    # suite_hpcc.sh, which checks hpcc-opt --help (bin/hpcc is HPCC 1.5
    # unchanged: it takes no options)
    [[ " $hpcc_progs " == *" $prog "* ]] && continue
    case $prog in
    bin/*) timeout 30 "$prog" --help >"$TMP/out" 2>&1 ;;
    run_scripts/*.sh) timeout 30 "$prog" -h >"$TMP/out" 2>&1 ;;
    lib/*) [ -f "${prog//<mpi>/$MPI}" ] ;;
    *) continue ;;
    esac
    rc=$?
    if [ $rc = 0 ] && { [[ $prog == lib/* ]] || grep -q 'usage' "$TMP/out"; }; then
        ok "README table: $prog $([[ $prog == lib/* ]] && echo "is built for $MPI" || echo "prints its usage")"
    else
        bad "README table: $prog: exit $rc, $(head -c 200 "$TMP/out")"
    fi
done < <(grep -oE '^\| `(bin|run_scripts|lib)/[^`]*`(, `[^`]*`)*' README.md | grep -oE '`[^`]*`' | tr -d '`' | grep -v '\*')

# Settings: docs/settings.md's table is the declarations printed
# (kit/settings.c, build/<mpi>/tests/settings_table), and every setting a
# page writes as NAME=value is declared there.
if [ -x "$BUILD/tests/settings_table" ]; then
    "$BUILD/tests/settings_table" >"$TMP/settings.tbl"
    sed -n '/^<!-- settings table: begin/,/^<!-- settings table: end/p' docs/settings.md | sed '1d;$d' >"$TMP/settings.doc"
    if [ -s "$TMP/settings.tbl" ] && cmp -s "$TMP/settings.tbl" "$TMP/settings.doc"; then
        ok "docs/settings.md's table is kit/settings.c's declarations ($(($(wc -l <"$TMP/settings.tbl") - 2)) settings)"
    else
        bad "docs/settings.md's table differs from kit/settings.c (make settings-doc rewrites it): $(diff "$TMP/settings.doc" "$TMP/settings.tbl" | head -5)"
    fi
    declared=" $(sed -n 's/^| `\([A-Z_0-9]*\)` |.*/\1/p' "$TMP/settings.tbl" | tr '\n' ' ') "
    undeclared=""
    for w in $(grep -ohE '\b(TORUS_[A-Z0-9_]*[A-Z0-9]|OMP_NUM_THREADS)=' README.md docs/*.md | sed 's/=$//' | sort -u); do
        [[ $declared == *" $w "* ]] || undeclared="$undeclared $w"
    done
    if [ -z "$undeclared" ]; then ok "every setting the docs write as NAME=value is declared in kit/settings.c"; else bad "settings the docs use but kit/settings.c does not declare:$undeclared"; fi
    # the scripts' and templates' variables: every one a script reads from
    # the environment (${NAME:-...}, ${NAME-...}, ${NAME:+...} of a name
    # the file does not set itself, or sets only from its own default) is
    # declared with the scripts or the templates as reader, and every such
    # declaration names a variable a script reads
    script_inputs() {
        for f in "$1"/*.sh "$1"/slurm/*.sbatch; do
            grep -oE '\$\{[A-Z][A-Z0-9_]*:?[-+]' "$f" | sed -E 's/^\$\{//; s/:?[-+]$//' | sort -u | while read -r n; do
                case $n in SLURM_* | RA__*) continue ;; esac
                if grep -qE "(^|[[:space:];(])$n=" "$f" && ! grep -qE "(^|[[:space:];(])$n=\\\$\\{$n:?-" "$f"; then continue; fi
                echo "$n"
            done
        done | sort -u
    }
    script_declared=" $(grep -E '^\| `[A-Z_0-9]*` \|.*\| [^|]*the (run scripts|Slurm templates)[^|]*\| (yes|no) \|' "$TMP/settings.tbl" |
        sed -n 's/^| `\([A-Z_0-9]*\)` |.*/\1/p' | tr '\n' ' ') "
    script_check() {
        local miss="" stale="" n
        for n in $(script_inputs "$1"); do [[ $script_declared == *" $n "* ]] || miss="$miss $n"; done
        for n in $script_declared; do grep -qE "\\\$\\{$n\b" "$1"/*.sh "$1"/slurm/*.sbatch || stale="$stale $n"; done
        echo "${miss:+read but not declared:$miss}${stale:+${miss:+; }declared but read by no script:$stale}"
    }
    why=$(script_check run_scripts)
    if [ -z "$why" ]; then
        ok "every variable the run scripts and Slurm templates read is declared in kit/settings.c ($(echo $script_declared | wc -w) of them)"
    else
        bad "run_scripts/ and kit/settings.c disagree: $why"
    fi
    mkdir -p "$TMP/rs/slurm" && cp run_scripts/*.sh "$TMP/rs/" && cp run_scripts/slurm/*.sbatch "$TMP/rs/slurm/"
    echo 'echo "${RA_PLANTED:-x}"' >>"$TMP/rs/compare.sh"
    why=$(script_check "$TMP/rs")
    case "$why" in *"read but not declared: RA_PLANTED"*) ok "the check finds a planted undeclared script variable: $why" ;;
    *) bad "a planted \${RA_PLANTED:-x} in compare.sh went unnoticed: '$why'" ;; esac
else
    bad "$BUILD/tests/settings_table not built"
fi

# Option defaults: the docs' options tables say what --help prints from
# each binary's option spec (tests/check_defaults.sh), and the check fails
# on a page that calls an old value the default (ra_opt.md once gave the
# look-ahead's default as 64 where the code has 128).
if out=$(bash tests/check_defaults.sh . 2>&1); then ok "$out"; else bad "docs' option defaults differ from --help: $out"; fi
dd2=$TMP/defaults
mkdir -p "$dd2/docs"
cp docs/ra_opt.md docs/running.md "$dd2/docs/"
ln -s "$PWD/bin" "$dd2/bin"
sed -i 's/^\(| `--lookahead L` |.*| \)128 |$/\164 |/' "$dd2/docs/ra_opt.md"
if out=$(bash tests/check_defaults.sh "$dd2" 2>&1); then
    bad "check_defaults.sh passed a page giving --lookahead's default as 64"
elif printf '%s\n' "$out" | grep -q "docs/ra_opt.md:[0-9]*: --lookahead: the page says '64', bin/ra_opt --help says '128'"; then
    ok "check_defaults.sh fails on a page giving --lookahead's default as 64: $out"
else
    bad "check_defaults.sh on a page giving --lookahead's default as 64: $out"
fi

# docs/architecture.md names every C file of every layer (layers.mk), but
# the collectives' one-file-per-algorithm <op>_<name>.c that it names as a
# pattern: a file added, moved or said to be missing shows here.
layers=$(make -s --no-print-directory layers-table | cut -d'|' -f1)
unnamed=""
nfiles=0
for l in $layers; do
    for f in "$l"/*.c; do
        [ -f "$f" ] || continue
        nfiles=$((nfiles + 1))
        b=${f##*/}
        [ "$l" = torus/coll ] && [[ $b =~ ^(barrier|bcast|allreduce|alltoallv)_[a-z_]+\.c$ ]] && continue
        grep -qF "\`$b\`" docs/architecture.md || unnamed="$unnamed $f"
    done
done
if [ -z "$unnamed" ]; then ok "docs/architecture.md names every one of the $nfiles C files of the layers (the algorithms by their pattern)"; else bad "C files docs/architecture.md does not name:$unnamed"; fi

# docs/mpi-adapter.md's table of the shared area's rows says what
# torus/coll/select.table's `flat` rows say: for each row, a line of the
# table with its ranks and op that names its top size (1024 B as 1 KiB),
# or says "any size" for a row without one.
fa_bad=""
fa_n=0
while read -r op ranks bytes; do
    fa_n=$((fa_n + 1))
    case $op in
    barrier) name=MPI_Barrier ;;
    bcast) name=MPI_Bcast ;;
    allreduce) name=MPI_Allreduce ;;
    *) name=MPI_Alltoall ;;
    esac
    line=$(grep -E "^\| $ranks \| .*\`$name\`" docs/mpi-adapter.md | head -1)
    hi=${bytes##*-}
    size=""
    if [ "$hi" != any ]; then
        if [ $((hi % 1024)) = 0 ]; then size="$((hi / 1024)) KiB"; else size="$hi B"; fi
    fi
    # a row to `any` must say so (a barrier's has no figure at all)
    if [ -z "$line" ] || { [ -n "$size" ] && ! printf '%s\n' "$line" | grep -qE "(^|[ -])$size([ ,|(]|$)"; } ||
        { [ -z "$size" ] && [ "$bytes" != any ] && ! printf '%s\n' "$line" | grep -q "any size"; }; then
        fa_bad="$fa_bad $op/$ranks/$bytes"
    fi
done < <(awk '!/^#/ && $NF == "flat" {print $1, $2, $9}' torus/coll/select.table)
if [ "$fa_n" -gt 0 ] && [ -z "$fa_bad" ]; then
    ok "docs/mpi-adapter.md's shared-area table matches select.table's $fa_n flat rows"
else
    bad "docs/mpi-adapter.md's shared-area table lacks select.table's flat rows (op/ranks/bytes):${fa_bad:- none found}"
fi
