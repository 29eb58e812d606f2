# suite_base.sh - bin/ra_base: exactness over process counts, harness features.
K=16
for gen in lfsr lcg; do
    exact_at_ranks bin/ra_base $K $gen "2^$K equals sequential run"
    # A non-default update count: the first N stream elements, any P.
    refn=$("$BUILD/tests/ra_seq" $K $gen 100003)
    for n in 3 8; do
        run_mpi $n bin/ra_base --log2-table $K --gen $gen --updates 100003 --quiet
        expect_exact "ra_base n=$n $gen --updates 100003" "$refn" $?
    done
done

# Time bound: a 1% sample sizes the run; fewer updates than the default, exact.
run_mpi 2 bin/ra_base --log2-table 20 --time-bound 0.02 --quiet
rc=$?
upd=$(key updates)
if [ $rc = 0 ] && [ "$(key errors)" = 0 ] && [ "$upd" -lt $((4 << 20)) ] && [ "$upd" -gt 0 ] && [ "$(key time_bound_s)" = 0.02 ]; then
    ok "time bound 0.02 s ran $upd of $((4 << 20)) updates, 0 errors"
else
    bad "time bound: rc=$rc updates=$upd errors=$(key errors)"
fi

# Star and Single tables are 2^(K - log2 P) per process: compare with the reference.
ref14=$("$BUILD/tests/ra_seq" 14 lcg)
run_mpi 4 bin/ra_base --log2-table 16 --suite star,single --lcg --quiet
rc=$?
nfp=$(grep -c "^fingerprint: $ref14" "$TMP/out")
nerr=$(grep -c '^errors: 0' "$TMP/out")
if [ $rc = 0 ] && [ "$nfp" = 2 ] && [ "$nerr" = 2 ] && grep -q '^gups_sum: ' "$TMP/out"; then
    ok "star and single (4 ranks, lcg, 2^14 per rank) exact, fingerprint $ref14"
else
    bad "star/single: rc=$rc fingerprints=$nfp zero-error blocks=$nerr"
fi

# Full suite, both generators: HPCC sections, Summary with every key set, JSON.
rm -f "$TMP/hpccoutf.txt"
run_mpi 2 bin/ra_base --log2-table 16 --suite all --gen both --output "$TMP/hpccoutf.txt" --json "$TMP/r.json" --quiet
rc=$?
missing=""
for s in MPIRandomAccess MPIRandomAccess_LCG StarRandomAccess StarRandomAccess_LCG SingleRandomAccess SingleRandomAccess_LCG; do
    grep -q "^Begin of $s section.$" "$TMP/hpccoutf.txt" || missing="$missing section:$s"
done
for k in MPIRandomAccess_N MPIRandomAccess_time MPIRandomAccess_CheckTime MPIRandomAccess_Errors \
    MPIRandomAccess_ErrorsFraction MPIRandomAccess_ExeUpdates MPIRandomAccess_GUPs MPIRandomAccess_TimeBound \
    MPIRandomAccess_Algorithm MPIRandomAccess_LCG_N MPIRandomAccess_LCG_time MPIRandomAccess_LCG_CheckTime \
    MPIRandomAccess_LCG_Errors MPIRandomAccess_LCG_ErrorsFraction MPIRandomAccess_LCG_ExeUpdates \
    MPIRandomAccess_LCG_GUPs MPIRandomAccess_LCG_Algorithm RandomAccess_N RandomAccess_LCG_N \
    StarRandomAccess_GUPs SingleRandomAccess_GUPs StarRandomAccess_LCG_GUPs SingleRandomAccess_LCG_GUPs \
    CommWorldProcs Success; do
    v=$(sed -n '/^Begin of Summary section/,/^End of Summary section/p' "$TMP/hpccoutf.txt" | grep "^$k=" | cut -d= -f2)
    case "$k" in *TimeBound) ;; *) [ -n "$v" ] && [ "$v" != -1 ] || missing="$missing $k=$v" ;; esac
done
grep -q '^MPIRandomAccess_Errors=0$' "$TMP/hpccoutf.txt" || missing="$missing errors!=0"
grep -q '^Success=1$' "$TMP/hpccoutf.txt" || missing="$missing Success"
json_ok=1
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["results"])==6 and all(r["errors"]==0 for r in d["results"])' "$TMP/r.json" || json_ok=0
else
    [ "$(grep -c '"errors": 0' "$TMP/r.json")" = 6 ] || json_ok=0
fi
if [ $rc = 0 ] && [ -z "$missing" ] && [ $json_ok = 1 ] && [ "$(grep -c '^test: ' "$TMP/out")" = 6 ]; then
    ok "suite all, both generators: 6 key blocks, 6 HPCC sections, Summary keys set, JSON valid"
else
    bad "suite all: rc=$rc missing:$missing json_ok=$json_ok"
fi

# HPCC's rules for the Summary: --no-verify never reports Success=1 (HPCC
# always verifies) and exits 0; Single runs on a random rank, never rank 0
# when P > 1, named in its section and key block.
rm -f "$TMP/nv.txt"
run_mpi 4 bin/ra_base --log2-table 14 --suite all --no-verify --output "$TMP/nv.txt" --quiet
rc=$?
sel=$(key node_selected)
sel_sec=$(sed -n 's/^Node selected //p' "$TMP/nv.txt")
if [ $rc = 0 ] && grep -q '^Success=0$' "$TMP/nv.txt" && [ -n "$sel" ] && [ "$sel" -ge 1 ] && [ "$sel" -le 3 ] &&
    [ "$sel_sec" = "$sel" ] && grep -q '^Verification skipped\.$' "$TMP/nv.txt" && ! grep -q 'EXECUTED' "$TMP/nv.txt"; then
    ok "--no-verify: exit 0, Success=0; Single ran on rank $sel of 4 (random, not 0); no EXECUTED line without a time bound"
else
    bad "--no-verify / Single: rc=$rc Success=$(sed -n 's/^Success=//p' "$TMP/nv.txt") node_selected=$sel section=$sel_sec"
fi

# Progress line on request.
RA_PROGRESS_DELAY_S=0 run_mpi 2 "$BUILD/tests/ra_base_hooks" --log2-table 20 --progress --quiet
if [ $? = 0 ] && grep -q 'ETA' "$TMP/err"; then ok "--progress prints a progress line with ETA"; else bad "--progress printed: $(head -c 200 "$TMP/err")"; fi

# Help and version list every option with defaults.
run_mpi 1 bin/ra_base --help
if [ $? = 0 ] && grep -q -- '--log2-table' "$TMP/out" && grep -q 'default' "$TMP/out"; then ok "--help lists options"; else bad "--help"; fi

# Bad input: one clear line, the right exit code, no hang.
expect_fail "unknown option" 2 "unknown option '--bogus'" 2 bin/ra_base --bogus
expect_fail "non-numeric --log2-table" 2 "allowed an integer 1..62" 2 bin/ra_base --log2-table ten
expect_fail "--log2-table 63" 2 "allowed an integer 1..62" 2 bin/ra_base --log2-table 63
expect_fail "--log2-table 0" 2 "allowed an integer 1..62" 2 bin/ra_base --log2-table 0
expect_fail "--updates 0" 2 "allowed a whole number >= 1" 2 bin/ra_base --updates 0
expect_fail "--updates -5" 2 "allowed a whole number >= 1" 2 bin/ra_base --updates -5
expect_fail "--mem 0" 2 "bad value '0' for --mem: allowed a positive byte count" 2 bin/ra_base --mem 0
expect_fail "--mem -1G" 2 "bad value '-1G' for --mem: allowed a positive byte count" 2 bin/ra_base --mem -1G
expect_fail "--time-bound -1" 2 "allowed seconds" 2 bin/ra_base --time-bound -1
expect_fail "--suite bogus" 2 "allowed mpi, star, single, ceiling, all" 2 bin/ra_base --suite bogus
expect_fail "missing value" 2 "needs a value" 2 bin/ra_base --log2-table
expect_fail "ambiguous prefix (--no-verify, --no-progress)" 2 "option '--no' is ambiguous: could be --no-verify, --no-progress (see --help)" 2 bin/ra_base --no
expect_fail "a word after --" 2 "unexpected argument 'x' (see --help)" 2 bin/ra_base --log2-table 10 -- x
# The kit's one option-error format, exactly, on one line (no "error:").
run_mpi 2 bin/ra_base --log2-table ten
rc=$?
line="ra_base: bad value 'ten' for --log2-table: allowed an integer 1..62 (table of 2^K words)"
[ $rc = 2 ] && [ "$(grep -cxF "$line" "$TMP/err")" = 1 ] && [ "$(grep -c '^ra_base:' "$TMP/err")" = 1 ] &&
    ok "option error format: '$line', exit 2" || bad "option error format: rc=$rc $(head -c 300 "$TMP/err")"
# GNU forms: --opt=value and unique prefixes run like the full spelling.
run_mpi 2 bin/ra_base --log2=12 --up 4096 --qu --suite=mpi
rc=$?
[ $rc = 0 ] && [ "$(key table_log2)" = 12 ] && [ "$(key updates)" = 4096 ] && [ "$(key errors)" = 0 ] &&
    [ "$(grep -c '^#' "$TMP/out")" = 0 ] && ok "--log2=12 --up 4096 --qu --suite=mpi: prefixes and = accepted" ||
    bad "GNU option forms: rc=$rc table_log2=$(key table_log2) updates=$(key updates) $(head -c 200 "$TMP/err")"
expect_fail "table smaller than ranks" 2 "smaller than the 8 processes" 8 bin/ra_base --log2-table 2
expect_fail "table beyond memory (2^40 words)" 3 "GiB is available" 2 bin/ra_base --log2-table 40
expect_fail "table beyond memory (--mem 1T)" 3 "GiB is available" 2 bin/ra_base --mem 1T
expect_fail "unwritable --output" 2 "cannot be opened" 2 bin/ra_base --log2-table 10 --output /nonexistent/dir/out.txt
RA_INJECT_MPI_ERROR=1 expect_fail "MPI error names its place and aborts" 3 "MPI error on rank 0 at hpcc_ra/ra_main.c" 2 "$BUILD/tests/ra_base_hooks" --log2-table 10
# the release binary has no test hooks: the same setting changes nothing
RA_INJECT_MPI_ERROR=1 run_mpi 2 bin/ra_base --log2-table 10 --quiet
rc=$?
if [ $rc = 0 ] && [ "$(key errors)" = 0 ]; then ok "bin/ra_base has no test hooks: RA_INJECT_MPI_ERROR=1 runs exact (exit 0)"; else bad "bin/ra_base under RA_INJECT_MPI_ERROR=1: exit $rc $(head -c 200 "$TMP/err")"; fi
