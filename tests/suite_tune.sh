# suite_tune.sh - the tuning file (issue 26 item 3): collbench --tune at 2
# ranks writes a selection table, a run at 1 rank merges into it, and the
# library runs the file's choices (collbench's auto rows and the MPI
# adapter's TORUS_COLL_STATS name them); a row saying mpi sends the
# adapter's calls (and collbench's auto) to the library's own; a bad
# TORUS_COLL_TABLE is one line and the compiled table, with results
# unchanged.
# Sourced by run_tests.sh (helpers: tests/lib.sh).
TT=$TMP/tune
mkdir -p "$TT"
TB=$TT/coll.table
PM_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
PM_CHECK="$BUILD/tests/pmpi_check"

# the file's algorithm for OP at RANKS ranks and BYTES (the first row that
# fits; bytes and algorithm are the last two columns in either version)
file_alg() {
    awk -v op="$1" -v n="$2" -v b="$3" '
        function lo(r) { return r == "any" ? 0 : (split(r, p, "-") ? p[1] : r) }
        function hi(r) { if (r == "any") return 1e30; split(r, p, "-"); return p[2] == "" ? p[1] : p[2] == "any" ? 1e30 : p[2] }
        { sub(/[ \t]*#.*/, "") }   # drop the notes
        $1 == op && lo($2) <= n && n <= hi($2) && lo($(NF-1)) <= b && b <= hi($(NF-1)) { print $NF; exit }' "$4"
}

run_mpi 2 bin/collbench --tune "$TB" --op barrier,allreduce,alltoall --sizes 8,4096 --iters 3 --warmup 1 --rounds 1
rc=$?
if [ $rc = 0 ] && [ "$(grep -v '^#' "$TB" | grep -m1 .)" = "torus-coll-table 2" ] &&
    [ -n "$(file_alg allreduce 2 8 "$TB")" ] && [ -n "$(file_alg barrier 2 0 "$TB")" ] &&
    [ -n "$(file_alg alltoallv 2 4096 "$TB")" ] && grep -q '^# tune: [0-9]* rows for 2 ranks written to' "$TMP/out"; then
    ok "collbench --tune at 2 ranks: $(grep -c '^  ' "$TB") rows ($(grep '^# tune' "$TMP/out"))"
else
    bad "collbench --tune at 2 ranks: rc $rc, stderr $(head -c 300 "$TMP/err"), file: $(head -c 400 "$TB" 2>&1)"
fi

# a second rank count merges: 1 rank's rows added, 2 ranks' kept
rows_at() { awk -v n="$1" '/^  / && $2 == n' "$TB" | wc -l; }
before=$(rows_at 2)
run_mpi 1 bin/collbench --tune "$TB" --op allreduce --sizes 8 --iters 2 --warmup 0 --rounds 1
rc=$?
if [ $rc = 0 ] && [ "$(rows_at 2)" = "$before" ] && [ -n "$(file_alg allreduce 1 8 "$TB")" ] &&
    [ -n "$(file_alg allreduce 2 8 "$TB")" ]; then
    ok "collbench --tune at 1 rank merges into the 2-rank table: $(grep -c '^  ' "$TB") rows"
else
    bad "collbench --tune merge: rc $rc, stderr $(head -c 300 "$TMP/err"), file: $(cat "$TB")"
fi

# the round trip: collbench's auto rows run what the file says
run_mpi 2 env TORUS_COLL_TABLE="$TB" bin/collbench --op allreduce --sizes 8,4096 --algorithms auto --iters 2 \
    --warmup 0 --rounds 1 --csv "$TT/auto.csv"
rc=$?
want8=$(file_alg allreduce 2 8 "$TB")
want4k=$(file_alg allreduce 2 4096 "$TB")
got8=$(awk -F, '$1 == "allreduce" && $2 == 8 && $3 == "auto" { print $4 }' "$TT/auto.csv" 2>/dev/null)
got4k=$(awk -F, '$1 == "allreduce" && $2 == 4096 && $3 == "auto" { print $4 }' "$TT/auto.csv" 2>/dev/null)
if [ $rc = 0 ] && [ -n "$want8" ] && [ "$got8" = "$want8" ] && [ "$got4k" = "$want4k" ] && [ ! -s "$TMP/err" ]; then
    ok "TORUS_COLL_TABLE round trip in collbench: auto ran $got8 at 8 B and $got4k at 4 KiB, as the file says"
else
    bad "TORUS_COLL_TABLE round trip: rc $rc, file says $want8/$want4k, auto ran $got8/$got4k; $(head -c 300 "$TMP/err")"
fi

# a table that names swing (the compiled table picks recursive doubling
# at 2 ranks up to 8 KiB): collbench's auto rows run it ...
printf 'torus-coll-table 1\nallreduce 2 0 any any any any any swing\n' >"$TT/swing.table"
run_mpi 2 env TORUS_COLL_TABLE="$TT/swing.table" bin/collbench --op allreduce --sizes 8 --algorithms auto --iters 2 \
    --warmup 0 --rounds 1 --csv "$TT/swing.csv"
rc=$?
got=$(awk -F, '$1 == "allreduce" && $3 == "auto" { print $4 }' "$TT/swing.csv" 2>/dev/null)
if [ $rc = 0 ] && [ "$got" = swing ]; then
    ok "TORUS_COLL_TABLE naming swing: collbench's auto row ran $got (the compiled table: recursive_doubling)"
else
    bad "TORUS_COLL_TABLE naming swing: rc $rc, auto ran '${got}'; $(head -c 300 "$TMP/err")"
fi
# ... and so does the adapter, in TORUS_COLL_STATS
if [ -f "$PM_LIB" ] && [ -x "$PM_CHECK" ]; then
    run_mpi 2 "$PM_CHECK" 8
    cp "$TMP/out" "$TT/plain"
    run_mpi 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv TORUS_COLL_TABLE="$TT/swing.table" "$PM_CHECK" 8
    rc=$?
    # (tests/lib.sh's pm_stat: the TORUS_COLL_STATS=kv line's keys)
    line=$(pm_kv_line allreduce)
    if [ $rc = 0 ] && cmp -s "$TT/plain" "$TMP/out" && [ "$(pm_stat allreduce alg.swing)" -gt 0 ] 2>/dev/null &&
        [ "$(pm_stat allreduce alg.recursive_doubling)" = 0 ]; then
        ok "TORUS_COLL_TABLE under the adapter: the same digests, stats: $line"
        swung=$(pm_stat allreduce alg.swing)
    else
        bad "TORUS_COLL_TABLE under the adapter: rc $rc, stats: ${line:-none}; $(head -c 300 "$TMP/err")"
    fi
    # a bad file: one line naming file, line and what is allowed; the
    # compiled table; the same results
    # (TORUS_COLL_LIBRARY=never: at 2 ranks the compiled rows of select.table
    # would hand small allreduces to the library, out of this check's sight)
    printf 'torus-coll-table 1\nallreduce 2 0 any any any any any nosuch\n' >"$TT/bad.table"
    run_mpi 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv TORUS_COLL_LIBRARY=never TORUS_COLL_TABLE="$TT/bad.table" "$PM_CHECK" 8
    rc=$?
    n=$(grep -c 'TORUS_COLL_TABLE' "$TMP/err")
    line=$(pm_kv_line allreduce)
    if [ $rc = 0 ] && cmp -s "$TT/plain" "$TMP/out" && [ "$n" = 1 ] &&
        names_in "torus_pmpi|TORUS_COLL_TABLE|bad.table:2|'nosuch'|swing" "$(grep -m1 TORUS_COLL_TABLE "$TMP/err")" &&
        [ "$(pm_stat allreduce alg.recursive_doubling)" -gt 0 ] 2>/dev/null; then
        ok "a bad TORUS_COLL_TABLE under the adapter: one line, the compiled table, the same digests"
    else
        bad "a bad TORUS_COLL_TABLE under the adapter: rc $rc, $n lines: $(grep TORUS_COLL_TABLE "$TMP/err" | head -3); stats ${line:-none}"
    fi
else
    bad "suite_tune: $PM_LIB or $PM_CHECK not built"
fi

# a row that says mpi (the MPI library's own call) for allreduce at 2
# ranks: collbench's auto row runs the library's call, labelled auto(mpi) ...
printf 'torus-coll-table 1\nallreduce 2 0 any any any any any mpi\n' >"$TT/mpi.table"
run_mpi 2 env TORUS_COLL_TABLE="$TT/mpi.table" bin/collbench --op allreduce,bcast --sizes 8,4096 --algorithms auto \
    --iters 2 --warmup 0 --rounds 1 --csv "$TT/mpi.csv"
rc=$?
got=$(awk -F, '$1 == "allreduce" && $3 == "auto" { print $4 }' "$TT/mpi.csv" 2>/dev/null | sort -u)
bc=$(awk -F, '$1 == "bcast" && $3 == "auto" { print $4 }' "$TT/mpi.csv" 2>/dev/null | sort -u)
if [ $rc = 0 ] && [ "$got" = mpi ] && [ -n "$bc" ] && [ "$bc" != mpi ] && grep -q 'auto(mpi)' "$TMP/out" &&
    [ ! -s "$TMP/err" ]; then
    ok "TORUS_COLL_TABLE row saying mpi: collbench's auto row ran the library's allreduce (auto(mpi)), bcast ran $bc"
else
    bad "TORUS_COLL_TABLE row saying mpi: rc $rc, allreduce auto chose '$got', bcast '$bc'; $(head -c 300 "$TMP/err")"
fi
# ... and the adapter hands the library every allreduce the swing table
# ran as swing (reason table; those of 1-rank communicators, which the
# row's ranks 2 does not fit, stay the torus library's), with the same
# results
if [ -f "$PM_LIB" ] && [ -x "$PM_CHECK" ]; then
    run_mpi 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv TORUS_COLL_TABLE="$TT/mpi.table" "$PM_CHECK" 8
    rc=$?
    line=$(pm_kv_line allreduce)
    n=$(pm_stat allreduce why.table)
    bline=$(pm_kv_line bcast)
    # (no allreduce ran a torus algorithm: only nonzero alg. keys are printed)
    if [ $rc = 0 ] && cmp -s "$TT/plain" "$TMP/out" && [ -n "$n" ] && [ "$n" -gt 0 ] &&
        [ "$n" = "${swung:-none}" ] && ! grep -Eq ' alg\.[a-z_]*(doubling|rabenseifner|swing|ring)=' <<<"$line" &&
        [ "$(pm_stat bcast why.table)" = 0 ]; then
        ok "TORUS_COLL_TABLE row saying mpi under the adapter: the same digests, stats: $line"
    else
        bad "TORUS_COLL_TABLE row saying mpi under the adapter: rc $rc, stats: ${line:-none}; bcast ${bline:-none}; $(head -c 300 "$TMP/err")"
    fi
fi

# --tune counts the library's own call as a candidate: timed alone, it
# is every row's winner
run_mpi 2 bin/collbench --tune "$TT/lib.table" --op barrier,allreduce --sizes 8,4096 --algorithms mpi --iters 2 \
    --warmup 0 --rounds 1
rc=$?
if [ $rc = 0 ] && [ "$(file_alg allreduce 2 8 "$TT/lib.table")" = mpi ] &&
    [ "$(file_alg barrier 2 0 "$TT/lib.table")" = mpi ]; then
    ok "collbench --tune writes mpi rows where the library's call wins: $(grep -c '^  ' "$TT/lib.table") rows"
else
    bad "collbench --tune with mpi: rc $rc, stderr $(head -c 300 "$TMP/err"), file: $(cat "$TT/lib.table" 2>&1)"
fi

# collbench with a missing table: one line, the run goes on
run_mpi 2 env TORUS_COLL_TABLE="$TT/none.table" bin/collbench --op allreduce --sizes 8 --algorithms auto --iters 1 \
    --warmup 0 --rounds 1
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] &&
    grep -q "^collbench: TORUS_COLL_TABLE: cannot read '.*none.table': No such file or directory; the compiled table is used$" "$TMP/err"; then
    ok "a missing TORUS_COLL_TABLE in collbench: one line, the run goes on"
else
    bad "a missing TORUS_COLL_TABLE in collbench: rc $rc, stderr: $(head -c 300 "$TMP/err")"
fi

# --tune never overwrites a file that is not a table
printf 'precious\n' >"$TT/precious"
run_mpi 2 bin/collbench --tune "$TT/precious" --op barrier --iters 1 --warmup 0 --rounds 1
rc=$?
if [ $rc = 2 ] && [ "$(cat "$TT/precious")" = precious ] &&
    grep -q "^collbench: --tune: .*precious:1: not a selection table" "$TMP/err"; then
    ok "collbench --tune into a file that is no table: exit 2, one line, the file untouched"
else
    bad "collbench --tune into a non-table: rc $rc, stderr: $(head -c 300 "$TMP/err")"
fi

# Tuned rows take precedence (issue 33, class 5): --tune puts the rows it
# writes before every row the file had, so a catch-all row of the file
# (one that fits any rank count and size) can no longer shadow them; the
# file's other rows follow in their order (this rank count's rows of the
# ops tuned are replaced, as ever).  Generated over tables holding a
# catch-all in every position (first, each middle, last, several), each
# tuned with one algorithm per op (--algorithms: the winner is known),
# then checked in the file, in collbench's auto column and in the
# adapter's TORUS_COLL_STATS, whose count of the tuned algorithm must
# equal that of a table holding the tuned row alone.
# a file's lines as the writer spells them (version 2: a version 1 row
# gets library any; bytes 0-any is any), without their notes
prec_rows() {
    awk '{ sub(/[ \t]*#.*/, "") } /^[ \t]*[a-z]/ { if (NF == 9) { $10 = $9; $9 = $8; $8 = "any" } if ($9 == "0-any") $9 = "any"; $1 = $1; print }' "$1"
}
# prec_ref N OP ALG [OP ALG]: the adapter's run with only the tuned rows (once per N)
prec_ref() {
    local n=$1 f=$TT/prec-ref-$1
    shift
    [ -s "$f.err" ] && return 0
    { echo 'torus-coll-table 1'; while [ $# -gt 0 ]; do echo "$1 $n 0 any any any any any $2"; shift 2; done; } \
        >"$f.table"
    run_mpi "$n" env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv TORUS_COLL_TABLE="$f.table" "$PM_CHECK" 8
    cp "$TMP/out" "$f.out"
    cp "$TMP/err" "$f.err"
}
# prec_case LABEL N "OP ALG [OP ALG]" ROW... : ROWs (| between words) form
# the table; --tune at N ranks for the ops, each timed with its ALG only
prec_case() {
    local label=$1 n=$2 pairs=$3 f rc why="" op alg ops="" algs="" k
    shift 3
    f=$TT/prec-$label.table
    { echo 'torus-coll-table 1'; for r in "$@"; do echo "${r//|/ }"; done; } >"$f"
    set -- $pairs
    while [ $# -gt 0 ]; do ops="$ops${ops:+,}$1" algs="$algs${algs:+,}$2"; shift 2; done
    # what must stay: every row but this rank count's rows of the ops tuned
    prec_rows "$f" | awk -v n="$n" -v ops=",$ops," 'NR > 1 && !(index(ops, "," $1 ",") && $2 == n)' >"$f.keep"
    run_mpi "$n" bin/collbench --tune "$f" --op "$ops" --sizes 8,4096 --algorithms "$algs" --iters 2 --warmup 0 \
        --rounds 1
    rc=$?
    k=$(sed -n 's/^# tune: \([0-9]*\) rows for .*/\1/p' "$TMP/out")
    prec_rows "$f" | sed 1d >"$f.rows"
    [ $rc = 0 ] && [ -n "$k" ] || why="tune rc $rc, $(head -c 200 "$TMP/err")"
    set -- $pairs
    while [ -z "$why" ] && [ $# -gt 0 ]; do
        op=$1 alg=$2
        shift 2
        # in the file: the first row that fits is the tuned one ...
        [ "$(file_alg "$op" "$n" 8 "$f")" = "$alg" ] && [ "$(file_alg "$op" "$n" 4096 "$f")" = "$alg" ] ||
            why="file's first fit for $op at $n ranks: $(file_alg "$op" "$n" 8 "$f"), want $alg"
    done
    # ... the tuned rows are the first k, the file's others follow in order
    [ -n "$why" ] || [ "$(head -n "$k" "$f.rows" | awk -v n="$n" '$2 != n' | wc -l)" = 0 ] &&
        [ "$(tail -n +"$((k + 1))" "$f.rows")" = "$(cat "$f.keep")" ] || why=${why:-"rows out of order: $(cat "$f.rows")"}
    # collbench's auto runs the tuned algorithm
    if [ -z "$why" ]; then
        run_mpi "$n" env TORUS_COLL_TABLE="$f" bin/collbench --op "$ops" --sizes 8,4096 --algorithms auto --iters 1 \
            --warmup 0 --rounds 1 --csv "$f.csv"
        rc=$?
        set -- $pairs
        while [ -z "$why" ] && [ $# -gt 0 ]; do
            op=$1 alg=$2
            shift 2
            got=$(awk -F, -v op="$op" '$1 == op && $3 == "auto" { print $4 }' "$f.csv" 2>/dev/null | sort -u)
            [ $rc = 0 ] && [ "$got" = "$alg" ] || why="collbench auto ran '$got' for $op, want $alg (rc $rc)"
        done
    fi
    # the adapter: as many calls run the tuned algorithm as with its row alone
    if [ -z "$why" ] && [ -f "$PM_LIB" ] && [ -x "$PM_CHECK" ]; then
        prec_ref "$n" $pairs
        run_mpi "$n" env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv TORUS_COLL_TABLE="$f" "$PM_CHECK" 8
        rc=$?
        cmp -s "$TMP/out" "$TT/prec-ref-$n.out" || why="adapter rc $rc, results differ from the tuned row's alone"
        set -- $pairs
        while [ -z "$why" ] && [ $# -gt 0 ]; do
            op=$1 alg=$2
            shift 2
            # the calls of op the adapter ran as alg (tests/lib.sh's pm_stat)
            got=$(pm_stat "$op" "alg.$alg")
            want=$(pm_stat "$op" "alg.$alg" "$TT/prec-ref-$n.err")
            [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] ||
                why="adapter ran $op as $alg ${got:-0} times, want ${want:-?}: $(pm_kv_line "$op")"
        done
    fi
    if [ -z "$why" ]; then
        ok "--tune over a catch-all ($label, $n ranks): $k tuned rows first, collbench auto and the adapter ran $algs"
    else
        bad "--tune over a catch-all ($label, $n ranks): $why"
    fi
}
CA='allreduce|any|0|any|any|any|any|any|swing'
others=('bcast|any|0|any|any|any|any|any|binomial' 'allreduce|8|0|any|any|any|any|any|rabenseifner'
    'allreduce|2|0|any|any|any|any|0-64|recursive_doubling')
# one catch-all at each position among the other rows (0 = first, 3 = last)
for pos in 0 1 2 3; do
    rows=("${others[@]:0:pos}" "$CA" "${others[@]:pos}")
    case $pos in 0) where=first ;; 3) where=last ;; *) where="middle $pos" ;; esac
    prec_case "$where" 2 "allreduce ring" "${rows[@]}"
done
# several catch-alls, spelled differently, first, middle and last
prec_case several 2 "allreduce ring" "$CA" "${others[0]}" 'allreduce|1-any|0|any|any|any|any|any|rabenseifner' \
    "${others[@]:1}" 'allreduce|2-any|0|any|any|any|any|0-any|recursive_doubling'
# at 4 ranks, two ops tuned, each behind catch-alls of its own (the
# adapter's 2-rank sub-communicators still fit the catch-alls)
prec_case "several, two ops" 4 "barrier hsb allreduce ring" 'barrier|any|0|any|any|any|any|any|nary_exchange' \
    "${others[@]}" "$CA" 'barrier|1-any|0|any|any|any|any|any|dissemination' 'allreduce|4|0|any|any|any|any|any|swing'
