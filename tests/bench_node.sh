#!/bin/bash
# tests/bench_node.sh - the node benchmark behind docs/ra_opt.md's "Speed on
# a node": ra_opt against this node's ceiling (--suite ceiling), HPCC's
# Star kernel (one thread per rank) and ra_base (HPCC's own binary beside
# them: run_scripts/compare.sh), every figure taken in the same batch, ROUNDS rounds
# of each, interleaved so that a slow minute hits every row alike.  Prints
# each row's median with its min and max, then the ratios the targets
# name.  A benchmark, not a test: nothing here passes or fails.
#
# usage: tests/bench_node.sh [ROUNDS]   (default 3)
#   MPI=mpich|openmpi (default: the flavour bin/ was built for, bin/.flavour):
#   the launcher mpirun.$MPI, and bin/ must hold that flavour's build (bin/
#   is shared: `make MPI=openmpi PAPI=0` relinks it for Open MPI, `make`
#   back for MPICH); a mismatch is refused before anything runs.
#   SMALL=1 shrinks every table 2^7 times: a check of the script's
#   plumbing in seconds, not a measurement.
#   rows: -n 2 at 2^27 (ceiling, Star, ra_opt, ra_base), -n 1 at 2^26
#   (ceiling, ra_opt), -n 8 and -n 2 at 2^25 (ra_opt), ra_opt --profile at
#   -n 1, 2 and 8; then the hop's price measured directly (ra_calibrate
#   --hop, ROUNDS interleaved rounds) and the timed simulator's projection
#   from it for 16, 64 and 128 ranks per node (bin/torusmodel
#   --ra-opt-node).  About 3 minutes a round on the 2-core development VM.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
case "$ROUNDS" in '' | *[!0-9]*) echo "bench_node.sh: ROUNDS '$ROUNDS' is not a whole number" >&2; exit 2 ;; esac
built=$(awk '{print $1; exit}' bin/.flavour 2>/dev/null)
MPI=${MPI:-${built:-mpich}}
case "$MPI" in mpich | openmpi) ;; *) echo "bench_node.sh: bad value '$MPI' for MPI: allowed mpich or openmpi" >&2; exit 2 ;; esac
# the build line of ra_opt --version names the MPI it was linked with
if ! bin/ra_opt --version 2>/dev/null | grep -q "^build: .* MPI=$MPI "; then
    echo "bench_node.sh: bin/ holds the ${built:-unknown} build, not MPI=$MPI: run 'make -j2 MPI=$MPI$([ "$MPI" = openmpi ] && echo ' PAPI=0')' first" >&2
    exit 2
fi
command -v "mpirun.$MPI" >/dev/null || { echo "bench_node.sh: no mpirun.$MPI on PATH" >&2; exit 2; }
SMALL=${SMALL:-0}
case "$SMALL" in 0 | 1) ;; *) echo "bench_node.sh: bad value '$SMALL' for SMALL: allowed 0 or 1" >&2; exit 2 ;; esac
RUN=(mpirun.$MPI)
[ "$MPI" = openmpi ] && RUN+=(--oversubscribe $([ "$(id -u)" = 0 ] && echo --allow-run-as-root))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
key() { grep -m1 "^$1: " "$2" | cut -d' ' -f2-; }
# SMALL=1: every --log2-table 7 smaller (the rows keep their names)
small() { if [ "$SMALL" = 1 ]; then awk '{ for (i = 1; i < NF; i++) if ($i == "--log2-table") $(i + 1) -= 7; print }' <<<"$*"; else echo "$*"; fi; }

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
        "${RUN[@]}" -n "$n" $(small "$cmd") --quiet --no-progress >"$out/r" 2>"$out/e" || echo "# $name: exit $? ($(head -c 200 "$out/e"))"
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
echo "crossing cost h from GUPS n=2 2^27 (a cross-check): $(awk -v o2="${med[ra_opt n=2 2^27]}" -v c2="${med[ceiling n=2 2^27]}" -v o1="${med[ra_opt n=1 2^26]}" \
    -v c1="${med[ceiling n=1 2^26]}" -v x="$hops" 'BEGIN { if (o2 > 0 && o1 > 0 && x > 0) printf "%.3f", (c2 / o2 - c1 / o1) / x; else print "-" }') of an update at the ceiling, $hops hops per update"
echo "# where the time goes (--profile: min max of each rank's share of the timed run)"
for spec in "1 26" "2 27" "8 25"; do
    set -- $spec
    # shellcheck disable=SC2046
    "${RUN[@]}" -n "$1" $(small bin/ra_opt --log2-table "$2") --profile --quiet --no-progress >"$out/p$1" 2>/dev/null
    echo "n=$1 2^$2: gups $(key gups "$out/p$1")  $(grep '^profile_' "$out/p$1" | sed 's/^profile_//' | tr '\n' ' ')"
done

# The node hop's price measured directly (issue 44): ra_calibrate --hop
# times ra_opt with tables in cache at packet fills 4..1024 (h the price of
# a crossing, s of a packet, fitted) and the polls with 1..127 peer rings,
# in updates at the -n 2 ceiling of the same table, each figure the median
# of ROUNDS interleaved rounds.  These feed the projection, not the GUPS
# difference above (kept as a cross-check: it moves with the day's noise).
# shellcheck disable=SC2046
"${RUN[@]}" -n 2 bin/ra_calibrate --hop --reps "$ROUNDS" $(small --log2-table 27) >"$out/hop" 2>"$out/he" ||
    echo "# ra_calibrate --hop: exit $? ($(head -c 200 "$out/he"))"
grep -E '^(hop_fill_|hop_local|hop_h|hop_s|hop_wall|ceiling_ns|poll_)' "$out/hop"

# The projection: the timed simulator runs a node of R ranks as ra_opt
# routes it (bin/torusmodel --ra-opt-node: the shape --dims auto picks
# there, one hop or two by ra_opt's model at these prices), every rank
# charged per update (c1/o1 updates at the ceiling: ra_opt alone), per
# update routed (h), per packet (s), per empty poll and, for a receiver
# that scans one ring per peer, per peer ring looked through; the inbox's
# peer price is its own measured slope.  The unit is one update at -n 2's
# ceiling per rank, so a rate over R ranks divided by R and by that
# ceiling is the share of it one rank keeps.
h=$(key hop_h_updates "$out/hop") s=$(key hop_s_updates "$out/hop") pe=$(key poll_empty_updates "$out/hop" | cut -d' ' -f1)
read -r qin qscan <<<"$(key poll_peer_updates "$out/hop")"
u=$(awk -v o1="${med[ra_opt n=1 2^26]}" -v c1="${med[ceiling n=1 2^26]}" 'BEGIN { if (o1 > 0) printf "%.6g", c1 / o1 }')
cr=$(awk -v c2="${med[ceiling n=2 2^27]}" 'BEGIN { printf "%.6g", c2 / 2 }')
if [ -z "$h" ] || [ -z "$s" ] || [ -z "$u" ] || [ -z "$qin" ]; then
    echo "# projection: - (a median or ra_calibrate --hop's figures are missing)"
else
    qin=$(awk -v q="$qin" 'BEGIN { print (q > 0 ? q : 0) }')
    echo "# projection: the timed simulator (bin/torusmodel --ra-opt-node) at h $h and s $s updates (ra_calibrate --hop),"
    echo "#   an empty poll $pe, a peer ring $qin through the inbox ($qscan by a scan), an update itself $u, at the ceiling $cr GUPS per rank"
    unit() { awk -v a="$1" -v b="$u" 'BEGIN { v = a / b; printf "%.6g", (v > 0 ? v : 0) }'; }
    for hopsel in auto 1 2 scan; do
        q=$qin sel=$hopsel
        [ "$hopsel" = scan ] && q=$qscan sel=auto
        bin/torusmodel --ra-opt-node 16,64,128 --node-hops "$sel" --hop-cost "$(unit "$h")" --packet-cost "$(unit "$s")" \
            --poll-cost "$(unit "$pe")" --peer-cost "$(unit "$q")" --clock-hz 1e9 \
            --t-local "$(awk -v a="$u" -v b="$cr" 'BEGIN { printf "%.6g", a / b }')" --link-bw 1e15 --bytes-per-update 8 \
            >"$out/t.$hopsel" 2>"$out/te" || echo "# torusmodel --node-hops $sel: exit $? ($(head -c 200 "$out/te"))"
    done
    # the first table's rows: N shape ... sim_gups (the 12th column)
    awk -v cr="$cr" 'FNR == 1 { f++; rest = 0 } /^# where the time goes/ { rest = 1 } !rest && /^ +[0-9]+ / && $12 != "" { n = $1; g[f, n] = $12; sh[f, n] = $2; if (f == 1) order[++k] = n }
        END { for (i = 1; i <= k; i++) { n = order[i]
            printf "projection %d ranks/node: %.4g GUPS per rank, %.3f of the ceiling (shape %s; one hop %s %.3f, two hops %s %.3f; rings scanned %.3f)\n",
                n, g[1, n] / n, g[1, n] / n / cr, sh[1, n], sh[2, n], g[2, n] / n / cr, sh[3, n], (g[3, n] ? g[3, n] / n / cr : 0), g[4, n] / n / cr } }' \
        "$out/t.auto" "$out/t.1" "$out/t.2" "$out/t.scan"
fi
echo "# $(lscpu | grep -m1 'Model name' | tr -s ' '), L3 $(lscpu | grep -m1 'L3' | awk '{print $3, $4}'), $("${RUN[0]}" --version 2>&1 | head -1)"
