#!/bin/bash
# tests/bench_node.sh - the node benchmark behind docs/ra_opt.md's "Speed on
# a node": ra_opt against this node's ceiling (--suite ceiling), HPCC's
# Star kernel (one thread per rank) and ra_base (HPCC's own binary beside
# them: run_scripts/compare.sh), every figure taken in the same batch, ROUNDS rounds
# of each, interleaved so that a slow minute hits every row alike.  Prints
# each row's median with its min and max, then the ratios the targets
# name.  A benchmark, not a test: nothing here passes or fails.
#
# usage: tests/bench_node.sh [ROUNDS]   (default 3; MPI=openmpi for Open MPI)
#   rows: -n 2 at 2^27 (ceiling, Star, ra_opt, ra_base), -n 1 at 2^26
#   (ceiling, ra_opt), -n 8 and -n 2 at 2^25 (ra_opt), ra_opt --profile at
#   -n 1, 2 and 8.  About 3 minutes a round on the 2-core development VM.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
case "$ROUNDS" in '' | *[!0-9]*) echo "bench_node.sh: ROUNDS '$ROUNDS' is not a whole number" >&2; exit 2 ;; esac
MPI=${MPI:-mpich}
RUN=(mpirun.$MPI)
[ "$MPI" = openmpi ] && RUN+=(--oversubscribe $([ "$(id -u)" = 0 ] && echo --allow-run-as-root))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
key() { grep -m1 "^$1: " "$2" | cut -d' ' -f2-; }

# name|ranks|key|command...
rows=(
    "ceiling n=2 2^27|2|gups_sum|bin/ra_opt --log2-table 27 --suite ceiling --no-verify"
    "star n=2 2^27|2|gups_sum|env OMP_NUM_THREADS=1 bin/ra_base --log2-table 27 --suite star --no-verify"
    "ra_opt n=2 2^27|2|gups|bin/ra_opt --log2-table 27"
    "ra_base n=2 2^27|2|gups|bin/ra_base --log2-table 27"
    "ceiling n=1 2^26|1|gups_sum|bin/ra_opt --log2-table 26 --suite ceiling --no-verify"
    "ra_opt n=1 2^26|1|gups|bin/ra_opt --log2-table 26"
    "ra_opt n=2 2^25|2|gups|bin/ra_opt --log2-table 25"
    "ra_opt n=8 2^25|8|gups|bin/ra_opt --log2-table 25"
)
for ((r = 1; r <= ROUNDS; r++)); do
    i=0
    for row in "${rows[@]}"; do
        IFS='|' read -r name n k cmd <<<"$row"
        # shellcheck disable=SC2086
        "${RUN[@]}" -n "$n" $cmd --quiet --no-progress >"$out/r" 2>"$out/e" || echo "# $name: exit $? ($(head -c 200 "$out/e"))"
        echo "$(key "$k" "$out/r")" >>"$out/$i"
        # the hops an update of this row made: what the crossing cost is per
        [ "$name" = "ra_opt n=2 2^27" ] && key hops_per_update "$out/r" >>"$out/hops"
        i=$((i + 1))
    done
    echo "# round $r of $ROUNDS done"
done

stat() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.4f %.4f %.4f", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
printf '%-20s %8s %8s %8s\n' "# row" median min max
i=0
declare -A med
for row in "${rows[@]}"; do
    IFS='|' read -r name _ <<<"$row"
    read -r m lo hi <<<"$(stat "$out/$i")"
    med[$name]=$m
    printf '%-20s %8s %8s %8s\n' "$name" "$m" "$lo" "$hi"
    i=$((i + 1))
done
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
echo "ratio ra_opt/ceiling n=2 2^27: $(r "${med[ra_opt n=2 2^27]}" "${med[ceiling n=2 2^27]}")  (target >= 0.85)"
echo "ratio ra_opt/star n=2 2^27: $(r "${med[ra_opt n=2 2^27]}" "${med[star n=2 2^27]}")  (target >= 1.8)"
echo "ratio ra_opt/ra_base n=2 2^27: $(r "${med[ra_opt n=2 2^27]}" "${med[ra_base n=2 2^27]}")  (target >= 15)"
echo "ratio star/ceiling n=2 2^27: $(r "${med[star n=2 2^27]}" "${med[ceiling n=2 2^27]}")"
echo "ratio ra_opt/ceiling n=1 2^26: $(r "${med[ra_opt n=1 2^26]}" "${med[ceiling n=1 2^26]}")  (target >= 0.9)"
echo "ratio ra_opt n=8 / n=2 2^25: $(r "${med[ra_opt n=8 2^25]}" "${med[ra_opt n=2 2^25]}")  (target >= 0.8)"
# The node hop's price (issue 35): extra time per crossing, in updates at
# the node's ceiling.  ra_opt alone runs at opt1/ceil1 of its ceiling, so
# an update costs ceil1/opt1 updates' time at -n 1 and ceil2/opt2 at -n 2,
# where hops_per_update of them cross: h = (ceil2/opt2 - ceil1/opt1) / hops.
hops=$(sort -g "$out/hops" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "crossing cost h n=2 2^27: $(awk -v o2="${med[ra_opt n=2 2^27]}" -v c2="${med[ceiling n=2 2^27]}" -v o1="${med[ra_opt n=1 2^26]}" \
    -v c1="${med[ceiling n=1 2^26]}" -v x="$hops" 'BEGIN { if (o2 > 0 && o1 > 0 && x > 0) printf "%.3f", (c2 / o2 - c1 / o1) / x; else print "-" }') of an update at the ceiling, $hops hops per update  (target <= 0.1)"
echo "# where the time goes (--profile: min max of each rank's share of the timed run)"
for spec in "1 26" "2 27" "8 25"; do
    set -- $spec
    "${RUN[@]}" -n "$1" bin/ra_opt --log2-table "$2" --profile --quiet --no-progress >"$out/p" 2>/dev/null
    echo "n=$1 2^$2: gups $(key gups "$out/p")  $(grep '^profile_' "$out/p" | sed 's/^profile_//' | tr '\n' ' ')"
done
echo "# $(lscpu | grep -m1 'Model name' | tr -s ' '), L3 $(lscpu | grep -m1 'L3' | awk '{print $3, $4}'), $("${RUN[0]}" --version 2>&1 | head -1)"
