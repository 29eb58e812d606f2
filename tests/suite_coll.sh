# suite_coll.sh - bin/collbench (issue 11): every operation x every registered
# algorithm checked against the MPI library's own collectives at 1, 2, 3, 4, 5
# and 8 ranks; every row accounted for; bad input; --simulate; result files;
# run_scripts/plot_coll.sh.  Sourced by run_tests.sh (helpers: tests/lib.sh).
#
# Algorithms are never named here: the registry's list comes from
# `collbench --help`, so algorithms added to torus/coll/<op>.def are tested
# without a change.  Sizes straddle the selection table's thresholds (bruck
# <= 256, allreduce 2048, bcast 12287) with one that is no power of two; at
# 5 and 8 ranks (oversubscribed: MPICH's own collectives cost milliseconds
# each there) one size on each side of them.

# Registered algorithms of collective $1 (barrier, bcast, allreduce, alltoallv),
# from --help's "algorithms registered: barrier: a b; bcast: c; ..." read once
# (starting processes is slow on a loaded machine: bash builtins from here).
CB_HELP=$(bin/collbench --help 2>&1)
CB_REG=$(printf '%s\n' "$CB_HELP" | sed -n 's/^algorithms registered: //p')
cb_algs() {
    local x=${CB_REG#*"$1": }
    x=${x%%;*}
    [ "$x" = "(none yet)" ] && x=""
    echo "$x"
}

# The rows a run must print, one "op algorithm size" line each: every size
# of $CB_EXP_BYTES (barrier: 0) for auto (when the op has algorithms), every
# registered algorithm and mpi ($2 = 1: no mpi, the simulator), less exactly
# the sizes that a notice on stderr ($1) says were left out: "cannot run on
# this shape at S1, S2 bytes", or "fell back ... at S bytes" (S and above).
cb_expected() {
    awk -v ops="$CB_OPS" -v sizes="$CB_EXP_BYTES" -v nompi="${2:-0}" -v barrier="$(cb_algs barrier)" \
        -v bcast="$(cb_algs bcast)" -v allreduce="$(cb_algs allreduce)" -v alltoallv="$(cb_algs alltoallv)" '
        /^collbench: notice: [a-z]+ algorithm \047[a-z_0-9]+\047 cannot run on this shape at [0-9, ]+ bytes: those rows are left out$/ {
            a = $5; gsub(/\047/, "", a)
            list = $0; sub(/.* at /, "", list); sub(/ bytes:.*/, "", list)
            n = split(list, l, /, /)
            for (i = 1; i <= n; i++) skip[$3 " " a " " l[i]] = 1
        }
        /^collbench: notice: [a-z]+ algorithm \047[a-z_0-9]+\047 fell back to \047[a-z_0-9]+\047 at [0-9]+ bytes \(its precondition fails for this call\): its rows from [0-9]+ bytes on are left out$/ {
            a = $5; gsub(/\047/, "", a)
            from[$3 " " a] = $11 + 0
        }
        END {
            reg["barrier"] = barrier; reg["bcast"] = bcast; reg["allreduce"] = allreduce
            reg["alltoall"] = alltoallv; reg["alltoallv"] = alltoallv
            nops = split(ops, o, " ")
            for (k = 1; k <= nops; k++) {
                op = o[k]
                labels = (reg[op] ~ /[a-z]/ ? "auto " reg[op] : "") (nompi ? "" : " mpi")
                na = split(labels, al, " ")
                ns = op == "barrier" ? split("0", sz, " ") : split(sizes, sz, " ")
                for (j = 1; j <= na; j++)
                    for (i = 1; i <= ns; i++) {
                        key = op " " al[j]
                        if ((key " " sz[i]) in skip || (key in from && sz[i] + 0 >= from[key])) continue
                        print key, sz[i]
                    }
            }
        }' "$1" | sort
}

# The rows a run printed: "op algorithm size", auto(x) read as auto.
cb_printed() {
    awk '/^# op: / { op = $3; next } /^#/ { next } NF { a = $2; sub(/\(.*/, "", a); print op, a, $1 }' "$1" | sort
}

# The checks --validate must count: per row of a torus algorithm (auto
# included), bcast 2 roots (1 on one rank), allreduce 11 type/operation
# cases, alltoall 1, alltoallv 2 (even and uneven counts), barrier 1.
cb_checks_expected() {
    awk -v n="$2" '/^# op: / { op = $3; next } /^#/ { next }
        NF && $2 != "mpi" { c += op == "bcast" ? (n > 1 ? 2 : 1) : op == "allreduce" ? 11 : op == "alltoallv" ? 2 : 1 }
        END { print c + 0 }' "$1"
}

# Every stderr line of a good run is a notice (of collbench or the library).
cb_noise() { grep -v '^collbench: notice: \|^torus_coll: notice: ' "$1" | head -3; }

# The run's facts come from its --json (jkey, tests/lib.sh), not from the
# table's # preamble: CB_JSON is removed before each run that writes it.
CB_JSON=$TMP/cb.json
# "CHECKS FAILED" of --validate, from the JSON's "validation"
cb_validation() { echo "$(jkey checks "$CB_JSON") $(jkey failures "$CB_JSON")"; }

CB_OPS="barrier bcast allreduce alltoall alltoallv"
for n in 1 2 3 4 5 8; do
    if [ $n -le 4 ]; then
        CB_SIZES="8,24,4K,16K" CB_EXP_BYTES="8 24 4096 16384"
    else
        CB_SIZES="24,16K" CB_EXP_BYTES="24 16384"
    fi
    rm -f "$CB_JSON"
    run_mpi $n bin/collbench --validate --sizes $CB_SIZES --iters 1 --warmup 0 --json "$CB_JSON"
    rc=$?
    diffs=$(diff <(cb_expected "$TMP/err") <(cb_printed "$TMP/out") | grep '^[<>]' | head -4 | tr '\n' ' ')
    want=$(cb_checks_expected "$TMP/out" $n)
    got=$(cb_validation)
    noise=$(cb_noise "$TMP/err")
    rows=$(cb_printed "$TMP/out" | wc -l)
    if [ $rc = 0 ] && [ -z "$diffs" ] && [ "$got" = "$want 0" ] && [ -z "$noise" ] && ! grep -q FAILED "$TMP/err"; then
        ok "collbench --validate n=$n: $rows rows (every op x auto, every algorithm, mpi x sizes $CB_SIZES, each left-out row noticed), $want checks against the MPI library, 0 failed"
    else
        bad "collbench --validate n=$n: rc=$rc checks '$got' want '$want 0' rows: ${diffs:-as expected} stderr: ${noise:-notices only}"
        grep FAILED "$TMP/err" | head -3 | sed 's/^/    /'
    fi
done

# --dims: the collectives on another torus of the same ranks.
rm -f "$CB_JSON"
run_mpi 8 bin/collbench --validate --dims 2x2x2m --op allreduce,bcast --sizes 24 --iters 1 --warmup 0 --json "$CB_JSON"
rc=$?
got=$(jkey failures "$CB_JSON")
if [ $rc = 0 ] && [ "$got" = 0 ] && [ "$(jkey shape "$CB_JSON")" = 2x2x2m ] && [ "$(jkey shape_source "$CB_JSON")" = "--dims 2x2x2m" ]; then
    ok "collbench --dims 2x2x2m at 8 ranks: shape 2x2x2m from --dims 2x2x2m (JSON), allreduce and bcast validated"
else
    bad "collbench --dims 2x2x2m: rc=$rc failed=$got shape '$(jkey shape "$CB_JSON")' from '$(jkey shape_source "$CB_JSON")' $(head -2 "$TMP/err")"
fi

# --choose: the table's picks over MPI / with the deposit bit, from the
# shared facts alone (select.table's rows).
choose() { bin/collbench --choose "$@" | awk '$1 !~ /^#/ { printf "%s:%s=%s/%s ", $1, $2, $3, $4 }'; }
got="$(choose 2 --op barrier,bcast --sizes 8,1M)|$(choose 2x2 --per-node 4 --op barrier,bcast --sizes 8,1M)|$(choose 8x8x8 --op barrier,bcast,allreduce,alltoall --sizes 8,16K,1M)|$(TORUS_COLL_BCAST=scatter_allgather choose 2 --op bcast --sizes 8)"
want="barrier:0=dissemination/dissemination bcast:8=binomial/binomial bcast:1048576=binomial/binomial |"
want="${want}barrier:0=node_aware/dimwise bcast:8=binomial/binomial bcast:1048576=binomial/binomial |"
want="${want}barrier:0=dissemination/dimwise bcast:8=binomial/multistream bcast:16384=multistream/multistream bcast:1048576=multistream/multistream "
want="${want}allreduce:8=recursive_doubling/dimwise allreduce:16384=swing/swing allreduce:1048576=swing/swing "
want="${want}alltoallv:8=routed/routed alltoallv:16384=random_permutation/random_permutation alltoallv:1048576=random_permutation/random_permutation |"
want="${want}bcast:8=scatter_allgather/scatter_allgather "
if [ "$got" = "$want" ]; then
    ok "collbench --choose: 2 ranks, 4 on one node, 8x8x8 (MPI and deposit bit) and TORUS_COLL_BCAST pick what select.table's rows say"
else
    bad "collbench --choose: got '$got', want '$want'"
fi

# Bad input: one line (Open MPI may add its own banner: count ours), exit 2.
# n = 0: started without a launcher, as one process (mpirun's exit path for a
# failing job costs seconds under Open MPI; the parsing is the same).
cb_fail() {
    local desc=$1 code=$2 text=$3 n=$4
    shift 4
    if [ "$n" = 0 ]; then
        timeout -k 10 300 "$@" >"$TMP/out" 2>"$TMP/err"
    else
        run_mpi "$n" "$@"
    fi
    local rc=$? lines
    lines=$(grep -c '^collbench: ' "$TMP/err")
    if [ "$rc" = "$code" ] && [ "$lines" = 1 ] && grep -qF -- "$text" "$TMP/err" && ! grep -q '^# op:' "$TMP/out"; then
        ok "$desc -> exit $rc: $(grep -m1 '^collbench: ' "$TMP/err" | cut -c1-150)"
    else
        bad "$desc: exit $rc (want $code), $lines lines: $(head -c 300 "$TMP/err")"
    fi
}
allowed="allowed all, or a comma list of auto, mpi"
for a in $(cb_algs barrier) $(cb_algs bcast) $(cb_algs allreduce) $(cb_algs alltoallv); do
    case " $allowed " in *", $a,"* | *", $a "*) ;; *) allowed="$allowed, $a" ;; esac
done
cb_fail "--algorithms with an unknown name" 2 "bad value 'auto,nosuch' for --algorithms: $allowed (algorithms of the chosen --op)" 2 bin/collbench --algorithms auto,nosuch
cb_fail "--op unknown" 2 "bad value 'gather' for --op: allowed barrier, bcast, allreduce, alltoall, alltoallv or all" 0 bin/collbench --op gather
cb_fail "--sizes malformed" 2 "bad value '8:x' for --sizes: allowed A:B" 0 bin/collbench --sizes 8:x
cb_fail "--iters 0" 2 "bad value '0' for --iters: allowed an integer 1..10000000" 0 bin/collbench --iters 0
cb_fail "--choose with --simulate" 2 "--choose prints the table's choices and runs nothing: drop --simulate" 0 bin/collbench --choose 4x4 --simulate 4x4
cb_fail "--per-node not dividing --choose's ranks" 2 "bad value '2' for --per-node: allowed a divisor of the shape's 9 ranks" 0 bin/collbench --choose 3x3 --per-node 2
cb_fail "--per-node without --choose" 2 "--per-node describes the nodes of --choose's shape" 0 bin/collbench --per-node 2
cb_fail "--rounds 65" 2 "bad value '65' for --rounds: allowed an integer 1..64" 0 bin/collbench --rounds 65
cb_fail "--dims not covering the ranks" 2 "--dims: shape '3x3' has 9 positions but there are 2 processes" 2 bin/collbench --dims 3x3
cb_fail "unknown option" 2 "unknown option '--bogus' (see --help)" 0 bin/collbench --bogus
cb_fail "--simulate under mpirun -n 2" 2 "--simulate runs every simulated rank in one process" 2 bin/collbench --simulate 4x4
cb_fail "--validate with --simulate" 2 "--validate compares with the MPI library's collectives" 0 bin/collbench --simulate 4x4 --validate
cb_fail "--link-bw without --simulate" 2 "--link-bw sets the simulated link model: add --simulate SHAPE" 0 bin/collbench --link-bw 1e9
TORUS_COLL_BCAST=nosuch cb_fail "TORUS_COLL_BCAST naming no algorithm" 2 "TORUS_COLL_BCAST=nosuch: unknown bcast algorithm 'nosuch': allowed auto" 2 bin/collbench --op bcast
# a result file that cannot be written: the tables are printed, then one line
run_mpi 2 bin/collbench --op barrier --iters 1 --warmup 0 --csv /dev/full
rc=$?
if [ $rc = 3 ] && [ "$(grep -c '^collbench: ' "$TMP/err")" = 1 ] &&
    grep -q "^collbench: cannot write --csv '/dev/full': No space left on device$" "$TMP/err" && grep -q '^# op: barrier' "$TMP/out"; then
    ok "--csv /dev/full -> exit 3 after the tables: $(grep '^collbench: ' "$TMP/err")"
else
    bad "--csv /dev/full: exit $rc (want 3): $(head -c 300 "$TMP/err")"
fi
cb_fail "--json into a missing folder" 3 "cannot write --json '$TMP/no/such/r.json': No such file or directory" 0 bin/collbench --op barrier --json "$TMP/no/such/r.json"

# A forced algorithm whose precondition fails falls back with one notice:
# bruck takes uniform blocks only, and the v call never says its blocks are.
if cb_algs alltoallv | grep -qw bruck; then
    rm -f "$CB_JSON"
    TORUS_COLL_ALLTOALLV=bruck run_mpi 4 bin/collbench --validate --op alltoallv --algorithms auto,mpi --sizes 8,64 --iters 1 --warmup 0 \
        --json "$CB_JSON"
    rc=$?
    notices=$(grep -c "^torus_coll: notice: alltoallv algorithm 'bruck' cannot run" "$TMP/err")
    autos=$(grep -c '^ *[0-9]*  auto(' "$TMP/out")
    if [ $rc = 0 ] && [ "$notices" = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && [ "$autos" = 2 ] && ! grep -q '  auto(bruck)' "$TMP/out" &&
        [[ "$(cb_validation)" =~ ^[0-9]+\ 0$ ]]; then
        ok "TORUS_COLL_ALLTOALLV=bruck on the v call: one notice, auto falls back to $(grep -m1 -o 'auto([a-z_]*)' "$TMP/out"), validated"
    else
        bad "TORUS_COLL_ALLTOALLV=bruck: rc=$rc notices=$notices auto rows=$autos $(head -3 "$TMP/err")"
    fi
else
    echo "# bruck not registered yet: the forced-fallback check (TORUS_COLL_ALLTOALLV=bruck) is skipped"
fi

# CSV and JSON: one row per table row, replaced atomically (no temporary left).
mkdir -p "$TMP/res"
echo stale >"$TMP/res/r.csv"
run_mpi 2 bin/collbench --op barrier,bcast --sizes 8,64 --iters 3 --warmup 1 --rounds 2 --csv "$TMP/res/r.csv" --json "$TMP/res/r.json"
rc=$?
trows=$(cb_printed "$TMP/out" | wc -l)
crows=$(($(wc -l <"$TMP/res/r.csv") - 1))
hdr=$(head -1 "$TMP/res/r.csv")
left=$(find "$TMP/res" -name '.r.*' | wc -l)
jrows=""
if command -v python3 >/dev/null 2>&1; then
    jrows=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rows"]), d["ranks"], d["mode"], d["rounds"])' "$TMP/res/r.json" 2>&1)
else
    jrows="$trows 2 mpi 2" # no JSON parser here: the CSV checks stand
fi
if [ $rc = 0 ] && [ "$hdr" = "op,size,algorithm,chosen,ranks,shape,mode,host,iters,warmup,min_us,avg_us,max_us,mb_s,pred_us,ratio_vs_mpi" ] &&
    [ "$crows" = "$trows" ] && [ "$jrows" = "$trows 2 mpi 2" ] && [ "$left" = 0 ] &&
    [ "$(awk -F, 'NR > 1 && $9 != 4' "$TMP/res/r.csv" | wc -l)" = 0 ] &&
    [ "$(jkey iters_per_size "$TMP/res/r.json")" = 3 ] && [ "$(jkey rounds "$TMP/res/r.json")" = 2 ] &&
    [ "$(awk -F, 'NR > 1 && $3 == "mpi" && $16 != ""' "$TMP/res/r.csv" | wc -l)" = 0 ] &&
    [ "$(awk -F, 'NR > 1 && $3 != "mpi" && $16 == ""' "$TMP/res/r.csv" | wc -l)" = 0 ] &&
    [ "$(awk -F, 'NR > 1 && $8 != h' h="$(hostname)" "$TMP/res/r.csv" | wc -l)" = 0 ]; then
    ok "--csv/--json: $crows rows as in the table, 3 calls in 2 rounds = 4 timed, ratio_vs_mpi on every row but mpi's, the host, the old file replaced, no temporary left"
else
    bad "--csv/--json: rc=$rc header '$hdr' csv rows $crows table rows $trows json '$jrows' temporaries $left"
fi

# The plots: latency and bandwidth per op, barrier bars.
if command -v gnuplot >/dev/null 2>&1; then
    run_scripts/plot_coll.sh "$TMP/res/r.csv" "$TMP/plots" >"$TMP/pl" 2>&1
    rc=$?
    pngs=0
    for p in coll_barrier coll_bcast_latency coll_bcast_bandwidth; do
        [ -s "$TMP/plots/$p.png" ] && [ "$(head -c 4 "$TMP/plots/$p.png" | tail -c 3)" = PNG ] && pngs=$((pngs + 1))
    done
    if [ $rc = 0 ] && [ $pngs = 3 ] && [ "$(grep -c '^wrote ' "$TMP/pl")" = 3 ]; then
        ok "plot_coll.sh: coll_barrier.png, coll_bcast_latency.png, coll_bcast_bandwidth.png"
    else
        bad "plot_coll.sh: rc=$rc pngs=$pngs $(cat "$TMP/pl")"
    fi
else
    echo "# gnuplot not installed: PNG check skipped (apt-get install gnuplot-nox)"
fi
GNUPLOT=no-such-gnuplot run_scripts/plot_coll.sh "$TMP/res/r.csv" "$TMP/plots2" >"$TMP/o" 2>&1
rc=$?
if [ $rc = 3 ] && [ "$(wc -l <"$TMP/o")" = 1 ] && grep -q "apt-get install -y gnuplot-nox" "$TMP/o"; then
    ok "plot_coll.sh without gnuplot: one line naming apt-get install -y gnuplot-nox, exit 3"
else
    bad "plot_coll.sh without gnuplot: rc=$rc $(cat "$TMP/o")"
fi
run_scripts/plot_coll.sh "$TMP/res/r.json" >"$TMP/o" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$TMP/o")" = 1 ] && grep -q "is not a collbench CSV" "$TMP/o"; then
    ok "plot_coll.sh on a non-CSV: one line, exit 2"
else
    bad "plot_coll.sh on a non-CSV: rc=$rc $(cat "$TMP/o")"
fi

# --simulate: the same algorithms on the timed simulator, no MPI row;
# deterministic; calibrated by a simulated ping-pong that the link model
# predicts: 8 bytes one hop = 1000 + 75 cycles to send, 1000 + 204 to
# receive at 700 MHz, 24 bytes at 154e6 bytes/s, 100 ns for the link.
CB_OPS="allreduce"
CB_EXP_BYTES="8 16 32 64"
rm -f "$CB_JSON"
bin/collbench --simulate 4x4x4 --op allreduce --sizes 8:64 --json "$CB_JSON" >"$TMP/out" 2>"$TMP/err"
rc=$?
diffs=$(diff <(cb_expected "$TMP/err" 1) <(cb_printed "$TMP/out") | grep '^[<>]' | head -4 | tr '\n' ' ')
nalg=$(cb_algs allreduce | wc -w)
if [ $rc = 0 ] && [ -z "$diffs" ] && [ -z "$(cb_noise "$TMP/err")" ] && { [ "$nalg" -gt 0 ] || [ "$(jkey allreduce "$CB_JSON")" = "[]" ]; }; then
    ok "--simulate 4x4x4 --op allreduce --sizes 8:64: $(cb_printed "$TMP/out" | wc -l) rows (auto and $nalg algorithms x 4 sizes, no mpi)"
else
    bad "--simulate 4x4x4 allreduce: rc=$rc rows: ${diffs:-as expected} $(head -2 "$TMP/err")"
fi
CB_OPS="barrier bcast"
rm -f "$CB_JSON"
bin/collbench --simulate 4x4x4 --op barrier,bcast --sizes 8:64 --json "$CB_JSON" >"$TMP/out" 2>"$TMP/err"
rc=$?
bin/collbench --simulate 4x4x4 --op barrier,bcast --sizes 8:64 >"$TMP/out2" 2>&1
diffs=$(diff <(cb_expected "$TMP/err" 1) <(cb_printed "$TMP/out") | grep '^[<>]' | head -4 | tr '\n' ' ')
alpha=$(jkey alpha_s "$CB_JSON")
same=$(diff <(grep -v '^# date' "$TMP/out") <(grep -v '^# date' "$TMP/out2") | wc -l)
if [ $rc = 0 ] && [ -z "$diffs" ] && [ "$same" = 0 ] && [ "$(jkey ranks "$CB_JSON")" = 64 ] && [ "$(jkey mode "$CB_JSON")" = simulate:bgl ] &&
    awk -v a="$alpha" 'BEGIN { want = 2279 / 700e6 + 24 / 154e6 + 100e-9; exit !(a > 0.99 * want && a < 1.01 * want) }'; then
    ok "--simulate 4x4x4 barrier, bcast: $(cb_printed "$TMP/out" | wc -l) rows, the same twice, alpha $alpha s as the link model says"
else
    bad "--simulate 4x4x4 barrier,bcast: rc=$rc rows: ${diffs:-as expected} differing lines $same alpha $alpha"
fi
# a 64x32x32 alltoall cannot fit: sizes cut with one notice, nothing run
bin/collbench --simulate 64x32x32 --op alltoall --sizes 8 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q '^collbench: notice: sizes cut to fit 65536 simulated ranks in [0-9.]* GiB (half the free memory): alltoall none$' "$TMP/err" &&
    [ "$(cb_printed "$TMP/out" | wc -l)" = 0 ]; then
    ok "--simulate 64x32x32 alltoall: one notice (sizes cut to fit memory), no rows, exit 0"
else
    bad "--simulate 64x32x32 alltoall: rc=$rc $(head -2 "$TMP/err")"
fi

# --help lists every option with its default; --version; install ships both.
VERSION=$(sed -n 's/^VERSION := //p' Makefile)
missing=$(printf '%s\n' "$CB_HELP" | awk '
    function check() { if (e != "" && e !~ /default/ && e !~ /^  (-h, )?--(help|version)/) print e }
    /^  (-[a-zA-Z], )?--/ { check(); e = $0; next }
    /^      / && e != "" { e = e " " $0; next }
    { check(); e = "" }
    END { check() }')
nopt=$(printf '%s\n' "$CB_HELP" | grep -cE '^  (-[a-zA-Z], )?--')
if [ -z "$missing" ] && [ "$nopt" = 21 ] && [ "$(bin/collbench --version)" = "collbench (hpcc-ra) $VERSION" ]; then
    ok "collbench --help: $nopt options, each with its default; --version $VERSION"
else
    bad "collbench --help/--version: options without a default: ${missing:-none} ($nopt options); $(bin/collbench --version)"
fi
inst=$(make --no-print-directory -n install MPI="$MPI" PREFIX="$TMP/inst" 2>/dev/null)
if printf '%s\n' "$inst" | grep -q 'install -m 755 .*bin/collbench' && printf '%s\n' "$inst" | grep -q 'install -m 755 .*run_scripts/plot_coll.sh'; then
    ok "make install ships bin/collbench and run_scripts/plot_coll.sh"
else
    bad "make install does not name bin/collbench and run_scripts/plot_coll.sh"
fi

# ---- multisend (issue 12): collbench's halo4d, transpose and sparse -------
# Every multisend algorithm (auto, direct, routed) and the MPI library's
# MPI_Neighbor_alltoallv (and its MPI-4 _init form where the library has
# it) on the same data, three replays with changing data, each receive
# buffer (gaps included) against MPI_Alltoallv; sparse also on an
# irregular pattern (ranks with no block, 0-byte blocks, self blocks,
# repeated peers).  One row per algorithm, op and size; one check per row,
# sparse's two.  Then --simulate: every time at or above the link-model
# bound (a bound no algorithm can beat), and the same output twice.
for n in 1 2 3 4 5 8; do
    rm -f "$CB_JSON"
    run_mpi $n bin/collbench --op halo4d,transpose,sparse --validate --sizes 1,3K --iters 1 --warmup 0 --rounds 1 --json "$CB_JSON"
    rc=$?
    rows=$(awk '/^# op: / { op = $3; next } /^#/ { next } NF { r++; if (op == "sparse") s++ } END { print r + 0, s + 0 }' "$TMP/out")
    got=$(cb_validation)
    want=$(echo "$rows" | awk '{ print $1 + $2, 0 }')
    names=$(awk '/^#/ { next } NF { a = $2; sub(/\(.*/, "", a); print a }' "$TMP/out" | sort -u | tr '\n' ' ')
    if [ $rc = 0 ] && [ "$got" = "$want" ] && [ "${rows%% *}" -ge 24 ] && [ -z "$(cb_noise "$TMP/err")" ] &&
        case "$names" in *auto*direct*mpi*routed*) true ;; *) false ;; esac; then
        ok "collbench multisend patterns n=$n: ${rows%% *} rows ($names), $want checks against MPI_Alltoallv"
    else
        bad "collbench multisend patterns n=$n: rc=$rc checks '$got' want '$want' algorithms '$names' $(head -2 "$TMP/err")"
        grep FAILED "$TMP/err" | head -3 | sed 's/^/    /'
    fi
done
bin/collbench --simulate 4x4x2 --op halo4d,transpose,sparse --sizes 8,2K >"$TMP/out" 2>"$TMP/err"
rc=$?
bin/collbench --simulate 4x4x2 --op halo4d,transpose,sparse --sizes 8,2K >"$TMP/out2" 2>&1
same=$(diff <(grep -v '^# date' "$TMP/out") <(grep -v '^# date' "$TMP/out2") | wc -l)
below=$(awk '/^#/ { next } NF && ($8 <= 0 || $9 < 1) { print $1 "/" $2 }' "$TMP/out" | head -3)
nrows=$(grep -vc '^#' "$TMP/out")
if [ $rc = 0 ] && [ "$nrows" = 18 ] && [ -z "$below" ] && [ "$same" = 0 ] && [ ! -s "$TMP/err" ]; then
    ok "collbench --simulate 4x4x2 multisend patterns: $nrows rows, every time >= its link-model bound, deterministic"
else
    bad "collbench --simulate 4x4x2 multisend patterns: rc=$rc rows $nrows below the bound: '${below}' differing lines $same $(head -2 "$TMP/err")"
fi
cb_fail "--k 0" 2 "bad value '0' for --k: allowed an integer 1..100000" 0 bin/collbench --op sparse --k 0
cb_fail "--algorithms naming a multisend algorithm without a pattern op" 2 "bad value 'routed' for --algorithms" 0 bin/collbench --op barrier --algorithms routed
