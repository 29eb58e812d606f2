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
want unit && for t in "$BUILD"/tests/test_*; do
    if "$t" >"$TMP/u" 2>&1; then ok "$(tail -1 "$TMP/u")"; else bad "$(basename "$t")"; grep -v '^ok - ' "$TMP/u" | sed 's/^/    /'; fi
done


for suite in tests/suite_*.sh; do
    name=$(basename "$suite" .sh); want "${name#suite_}" || continue
    echo "# $(basename "$suite")"
    rt_t0=$SECONDS
    . "$suite"
    # each suite's share of make test's time (its budget: 10 minutes per MPI)
    echo "# $(basename "$suite"): $((SECONDS - rt_t0)) s"
done
finish
