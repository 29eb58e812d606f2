#!/bin/bash
# tests/run_tests.sh - the whole suite behind `make test`: unit tests, then
# MPI integration runs of every binary over 1..8 processes and both
# generators, bad-input checks, and the report formats.  Ends with the line
# "N passed, N failed"; exit 0 only when nothing failed.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
echo "# hpcc-ra test suite, MPI=$MPI ($($MPIRUN --version 2>&1 | head -1))"

echo "# unit tests"
# test_sc_shapes enumerates every cut of every shape up to 28 nodes (~20 s):
# serial code, identical under both MPIs, so the Open MPI pass skips it.
[ "$MPI" = openmpi ] && export SC_EXHAUSTIVE="${SC_EXHAUSTIVE:-0}"
# test_coll runs every collective on ~230 shapes and at 4096 virtual ranks
# (a few minutes, serial code): the Open MPI pass runs shapes up to 8 ranks.
[ "$MPI" = openmpi ] && export COLL_EXHAUSTIVE="${COLL_EXHAUSTIVE:-0}"
# SUITES="opt coll" runs only those suites (no unit tests unless "unit" is named):
# for a quick check of one part; make test runs everything.
want() { [ -z "${SUITES:-}" ] || [[ " $SUITES " == *" $1 "* ]]; }
# A unit test prints "ok - CASE" per case and ends with its count of cases
# and checks (tests/test.h), the line shown here; a failing one shows its
# output without the cases that passed: "not ok - CASE" and the checks'
# file:line messages.  One case alone: build/<mpi>/tests/test_NAME CASE.
# The unit tests run two at a time (each is one process; test_coll's
# simulated 4096 ranks take half the time of them all) and are reported
# in name order afterwards.
if want unit; then
    rt_t0=$SECONDS
    mkdir -p "$TMP/unit"
    # test_coll first: the longest one has a lane to itself
    { ls "$BUILD"/tests/test_coll; ls "$BUILD"/tests/test_* | grep -vx "$BUILD/tests/test_coll"; } |
        xargs -P 2 -I{} sh -c '"$1" >"$2/$(basename "$1").out" 2>&1; echo $? >"$2/$(basename "$1").rc"' _ {} "$TMP/unit"
    for t in "$BUILD"/tests/test_*; do
        u="$TMP/unit/$(basename "$t")"
        if [ "$(cat "$u.rc" 2>/dev/null)" = 0 ]; then ok "$(tail -1 "$u.out")"; else bad "$(basename "$t")"; grep -v '^ok - ' "$u.out" | sed 's/^/    /'; fi
    done
    echo "# unit tests: $((SECONDS - rt_t0)) s"
fi


for suite in tests/suite_*.sh; do
    name=$(basename "$suite" .sh); want "${name#suite_}" || continue
    echo "# $(basename "$suite")"
    rt_t0=$SECONDS
    # a suite that does not parse is a failure, never a quiet 0 passed (a
    # sourced file's syntax error only stops that file)
    if ! bash -n "$suite" 2>"$TMP/parse.err"; then
        bad "$(basename "$suite") does not parse: $(head -c 300 "$TMP/parse.err")"
        continue
    fi
    . "$suite"
    # each suite's share of make test's time (its budget: 10 minutes per MPI)
    echo "# $(basename "$suite"): $((SECONDS - rt_t0)) s"
done
finish
