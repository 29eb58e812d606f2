#!/bin/bash
# compare.sh - ra_base vs ra_opt on the same table and process count, in one
# go, beside the Star aggregate (every rank alone on its own block: what the
# memory system allows).  Prints each GUPS and the ratios.  A benchmark, not
# a test: read the ratios, not absolute times.
#
# usage: run_scripts/compare.sh [-n RANKS] [-k LOG2_TABLE] [--lcg] [-- extra ra_opt options]
#   Launches like the other run scripts (common.sh): the mpirun matching the
#   build, MPI=mpich|openmpi or MPIRUN= to choose, LAUNCHER=srun in Slurm.
set -euo pipefail
RA_SCRIPT=compare.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
NP=${NP:-2}
K=${K:-27}
GEN=lfsr
while [ $# -gt 0 ]; do
    case "$1" in
    -n) NP=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    --lcg) GEN=lcg; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "${MPI:-}" ] && MPIRUN=${MPIRUN:-mpirun.$MPI}
ra_find_bin
ra_launcher "$NP"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# compare: $NP ranks, table 2^$K words, generator $GEN, $("${RA_LAUNCH[0]}" --version 2>&1 | grep -m1 -iE 'version|open' | tr -s ' ')"
# Star with one thread per rank: the same cores the MPI runs use.
OMP_NUM_THREADS=1 "${RA_LAUNCH[@]}" "$RA_BIN/ra_base" --log2-table "$K" --gen $GEN --suite star --quiet --no-progress >"$out/star"
"${RA_LAUNCH[@]}" "$RA_BIN/ra_base" --log2-table "$K" --gen $GEN --quiet --no-progress >"$out/base"
"${RA_LAUNCH[@]}" "$RA_BIN/ra_opt" --log2-table "$K" --gen $GEN --quiet --no-progress "$@" >"$out/opt"
star=$(ra_key "$out/star" gups_sum)
base=$(ra_key "$out/base" gups)
opt=$(ra_key "$out/opt" gups)
for f in base opt; do
    [ "$(ra_key "$out/$f" errors)" = 0 ] || { echo "compare.sh: $f run failed verification" >&2; exit 1; }
done
[ "$(ra_key "$out/base" fingerprint)" = "$(ra_key "$out/opt" fingerprint)" ] || { echo "compare.sh: fingerprints differ" >&2; exit 1; }
printf '%-28s %12s %10s %10s %10s\n' "# run" "GUPS" "time_s" "sbf" "mean_fill"
printf '%-28s %12.6f %10s %10s %10s\n' "star (sum over ranks)" "$star" "$(ra_key "$out/star" time_s)" - -
printf '%-28s %12.6f %10s %10s %10s\n' "ra_base" "$base" "$(ra_key "$out/base" time_s)" "$(ra_key "$out/base" sbf)" "$(ra_key "$out/base" mean_fill)"
printf '%-28s %12.6f %10s %10s %10s\n' "ra_opt ($(ra_key "$out/opt" shape))" "$opt" "$(ra_key "$out/opt" time_s)" "$(ra_key "$out/opt" sbf)" "$(ra_key "$out/opt" mean_fill)"
awk -v o="$opt" -v b="$base" -v s="$star" 'BEGIN { printf "ratio ra_opt/ra_base: %.2f\nratio ra_opt/star: %.3f\n", o / b, o / s }'
echo "fingerprint (both): $(ra_key "$out/opt" fingerprint), errors 0"
