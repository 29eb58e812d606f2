#!/bin/bash
# compare.sh - ra_base vs ra_opt on the same table and process count, in one
# go, beside the Star aggregate (every rank alone on its own block: what the
# memory system allows).  Prints each GUPS and the ratios.  A benchmark, not
# a test: read the ratios, not absolute times.
#
# usage: run_scripts/compare.sh [-n RANKS] [-k LOG2_TABLE] [--lcg] [-- extra ra_opt options]
#   MPI=mpich|openmpi selects the launcher (mpirun.$MPI); default mpich.
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${NP:-2}
K=${K:-27}
GEN=lfsr
while [ $# -gt 0 ]; do
    case "$1" in
    -n) NP=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    --lcg) GEN=lcg; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
MPI=${MPI:-mpich}
MPIRUN=${MPIRUN:-mpirun.$MPI}
FLAGS=()
if [ "$MPI" = openmpi ]; then
    FLAGS=(--oversubscribe)
    [ "$(id -u)" = 0 ] && FLAGS+=(--allow-run-as-root)
fi
for b in bin/ra_base bin/ra_opt; do
    [ -x "$b" ] || { echo "compare.sh: $b missing: run 'make' first" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
key() { grep -m1 "^$1: " "$2" | cut -d' ' -f2; }

echo "# compare: $NP ranks, table 2^$K words, generator $GEN, $($MPIRUN --version 2>&1 | grep -m1 -iE 'version|open' | tr -s ' ')"
# Star with one thread per rank: the same cores the MPI runs use.
OMP_NUM_THREADS=1 $MPIRUN "${FLAGS[@]}" -n "$NP" bin/ra_base --log2-table "$K" --gen $GEN --suite star --quiet --no-progress >"$out/star"
$MPIRUN "${FLAGS[@]}" -n "$NP" bin/ra_base --log2-table "$K" --gen $GEN --quiet --no-progress >"$out/base"
$MPIRUN "${FLAGS[@]}" -n "$NP" bin/ra_opt --log2-table "$K" --gen $GEN --quiet --no-progress "$@" >"$out/opt"
star=$(key gups_sum "$out/star")
base=$(key gups "$out/base")
opt=$(key gups "$out/opt")
for f in base opt; do
    [ "$(key errors "$out/$f")" = 0 ] || { echo "compare.sh: $f run failed verification" >&2; exit 1; }
done
[ "$(key fingerprint "$out/base")" = "$(key fingerprint "$out/opt")" ] || { echo "compare.sh: fingerprints differ" >&2; exit 1; }
printf '%-28s %12s %10s %10s %10s\n' "# run" "GUPS" "time_s" "sbf" "mean_fill"
printf '%-28s %12.6f %10s %10s %10s\n' "star (sum over ranks)" "$star" "$(key time_s "$out/star")" - -
printf '%-28s %12.6f %10s %10s %10s\n' "ra_base" "$base" "$(key time_s "$out/base")" "$(key sbf "$out/base")" "$(key mean_fill "$out/base")"
printf '%-28s %12.6f %10s %10s %10s\n' "ra_opt ($(key shape "$out/opt"))" "$opt" "$(key time_s "$out/opt")" "$(key sbf "$out/opt")" "$(key mean_fill "$out/opt")"
awk -v o="$opt" -v b="$base" -v s="$star" 'BEGIN { printf "ratio ra_opt/ra_base: %.2f\nratio ra_opt/star: %.3f\n", o / b, o / s }'
echo "fingerprint (both): $(key fingerprint "$out/opt"), errors 0"
