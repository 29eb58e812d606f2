#!/bin/bash
# run_scripts/plot.sh - PNG plots of a sweep CSV (run_scripts/sweep.sh), gnuplot.
#
#   DIR/gups_vs_procs.png    GUPS against processes, log-log: each variant's
#                            measured points and torusmodel's predicted line
#                            (the CSV's predicted_gups, from the calibration
#                            sweep.sh made at each process count), its CPU
#                            bound, and the network and node-memory bounds:
#                            the picture of paper 002's Figure 4.
#   DIR/traffic_per_update.png  bytes on the wire and software-routing hops
#                            per update against processes, each point labelled
#                            with its routing shape, beside the model's hops.
# The prediction and bounds are the CSV's own columns; with --params FILE or
# --preset NAME (or a CSV without them) torusmodel computes the bounds from
# those parameters instead.  Only verified rows are plotted.
set -u
RA_SCRIPT=plot.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
ra_guard_stdout

usage() {
    cat <<EOF
usage: $0 [options] SWEEP.csv
  -o DIR          where the PNGs go [default: the CSV's directory]
  -k K            table size (log2 words) to plot [default: the largest in the CSV]
  -g GEN          lfsr or lcg [default: the generator of the first verified row]
  --params FILE   torusmodel parameters for the bounds instead of the CSV's columns
                  [default: the CSV's columns, else the CSV name with .params]
  --preset NAME   torusmodel preset instead (bgl-mpi, bgl-raw, bgl-routed) [default: none]
  -h              this help
environment: GNUPLOT (the gnuplot to run) [gnuplot], RA_BIN [bin/]
exit: 0 plots written, 2 usage or no plottable rows, 3 gnuplot missing or failed
EOF
}

OUT=""
K=""
GEN=""
PARAMS=""
PRESET=""
RA_OPTSPEC='-o name OUT
-k uint:1:62 K
-g choice:lfsr,lcg GEN
--params file PARAMS
--preset text PRESET
-h help -
--help help -'
ra_parse_opts "$@"
[ ${#RA_ARGS[@]} -gt 0 ] || ra_die "no CSV given: allowed the file sweep.sh wrote (see -h)"
[ ${#RA_ARGS[@]} = 1 ] || ra_die "two CSV files given ('$(ra_show "${RA_ARGS[0]}")', '$(ra_show "${RA_ARGS[1]}")'): allowed one"
[ ${#RA_REST[@]} = 0 ] || ra_die "unexpected argument '$(ra_show "${RA_REST[0]}")' after --: allowed one CSV and options"
CSV=${RA_ARGS[0]}
{ [ -f "$CSV" ] && [ -r "$CSV" ]; } || ra_die "cannot read '$(ra_show "$CSV")': allowed a CSV written by sweep.sh"
head -1 "$CSV" | grep -q '^run_id,.*,gups,.*,hops_per_update,bytes_per_update,shape,' ||
    ra_die "'$(ra_show "$CSV")' is not a sweep CSV (header lacks run_id/gups/shape): allowed a CSV written by sweep.sh"

GP=${GNUPLOT:-gnuplot}
if ! command -v "$GP" >/dev/null 2>&1; then
    echo "$RA_SCRIPT: error: gnuplot is not installed: install it with: apt-get install -y gnuplot-nox" >&2
    exit 3
fi
GP=$(command -v "$GP")
ra_find_bin
# --params and --preset as torusmodel reads them (a preset name, a params
# file's lines), checked by it before anything is made
MODEL=()
[ -n "$PRESET" ] && MODEL+=(--preset "$PRESET")
[ -n "$PARAMS" ] && MODEL+=(--params "$PARAMS")
[ ${#MODEL[@]} -gt 0 ] && ra_dry_run torusmodel "" "${MODEL[@]}" --shape 2 --link-bw 1 --bytes-per-update 1
[ -n "$OUT" ] || OUT=$(dirname -- "$CSV")
case "$OUT" in -*) OUT=./$OUT ;; esac
ra_out_dir "-o" "$OUT"
USER_MODEL=0
[ ${#MODEL[@]} -gt 0 ] && USER_MODEL=1
if [ $USER_MODEL = 0 ] && [ -r "${CSV%.csv}.params" ]; then
    PARAMS=${CSV%.csv}.params
    MODEL=(--params "$PARAMS")
fi

# Column numbers by name, so the plot survives new columns.
C_VAR=$(ra_csv_col "$CSV" variant); C_NP=$(ra_csv_col "$CSV" np); C_GEN=$(ra_csv_col "$CSV" generator); C_K=$(ra_csv_col "$CSV" table_log2)
C_GUPS=$(ra_csv_col "$CSV" gups); C_STATUS=$(ra_csv_col "$CSV" status); C_SHAPE=$(ra_csv_col "$CSV" shape)
C_HOPS=$(ra_csv_col "$CSV" hops_per_update); C_BYTES=$(ra_csv_col "$CSV" bytes_per_update)
C_PRED=$(ra_csv_col "$CSV" predicted_gups); C_CPU=$(ra_csv_col "$CSV" cpu_bound_gups); C_NET=$(ra_csv_col "$CSV" network_bound_gups); C_MEM=$(ra_csv_col "$CSV" memory_bound_gups)

# verified rows with whole numbers where numbers belong: a CSV is data
ok_rows() { awk -F, -v s="$C_STATUS" -v np="$C_NP" -v k="$C_K" 'NR > 1 && $s == "passed" && $np ~ /^[0-9]+$/ && $k ~ /^[0-9]+$/' "$CSV"; }
[ -n "$GEN" ] || GEN=$(ok_rows | awk -F, -v g="$C_GEN" 'NR == 1 { print $g }')
[ -n "$GEN" ] || ra_die "'$(ra_show "$CSV")' has no verified (status passed) rows to plot"
ra_check "-g (the CSV's generator)" choice:lfsr,lcg "$GEN"
[ -n "$K" ] || K=$(ok_rows | awk -F, -v g="$C_GEN" -v k="$C_K" -v gen="$GEN" '$g == gen && $k > m { m = $k } END { print m + 0 }')
ra_check "-k" uint:1:62 "$K"
ROWS=$(ok_rows | awk -F, -v g="$C_GEN" -v k="$C_K" -v gen="$GEN" -v kk="$K" '$g == gen && $k == kk')
[ -n "$ROWS" ] || ra_die "no verified $GEN rows with table 2^$K in '$(ra_show "$CSV")': allowed -k of a size the sweep ran"

mkdir -p -- "$OUT" || { echo "$RA_SCRIPT: error: cannot create '$(ra_show "$OUT")'" >&2; exit 3; }

# gnuplot works in a folder of its own beside the PNGs, on names of its
# own: no path of the user's (quotes, spaces, $(...)) is ever written into
# its script, and its output is renamed into place only once it succeeded
work=$(mktemp -d "$OUT/.plot.XXXXXX") || { echo "$RA_SCRIPT: error: cannot write in '$(ra_show "$OUT")'" >&2; exit 3; }
# shellcheck disable=SC2016 # expanded when the script ends
ra_on_exit 'rm -rf -- "$work"'
printf '%s\n' "$ROWS" >"$work/rows"

# One data file per variant: np gups bytes hops shape predicted cpu net mem,
# sorted by np; '?' where the CSV has no figure (older CSVs, "unbounded").
mapfile -t VARIANTS < <(awk -F, -v c="$C_VAR" '!seen[$c]++ { print $c }' "$work/rows")
n=0
for v in "${VARIANTS[@]}"; do
    n=$((n + 1))
    V=$v awk -F, -v c="$C_VAR" -v np="$C_NP" -v gu="$C_GUPS" -v b="$C_BYTES" -v h="$C_HOPS" -v s="$C_SHAPE" \
        -v cp="${C_PRED:-0}" -v cc="${C_CPU:-0}" -v cn="${C_NET:-0}" -v cm="${C_MEM:-0}" '
        function num(i) { return (i > 0 && $i ~ /^[0-9.eE+-]+$/) ? $i : "?" }
        function word(x) { gsub(/[^A-Za-z0-9._:=-]/, "_", x); return x == "" ? "-" : x }
        $c == ENVIRON["V"] { print $np, num(gu), num(b), num(h), word($s), num(cp), num(cc), num(cn), num(cm) }' \
        "$work/rows" | sort -n >"$work/v$n.dat"
done
# the CSV's own model columns are used unless --params/--preset was given
have_pred=0
[ $USER_MODEL = 0 ] && awk '$6 != "?" { f = 1 } END { exit !f }' "$work"/v*.dat && have_pred=1

# Bounds at every process count >= 2: the routed CPU bound on ra_opt's shape
# (flat when ra_opt did not run there), the direct CPU bound with the
# baseline's simulated bucket sizes (what ra_base does), the network bound of
# that shape, and the model's hops/update.
have_bounds=0
val() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; } # key from torusmodel's key block
if [ ${#MODEL[@]} -gt 0 ] && [ $have_pred = 0 ]; then
    for np in $(awk '{ print $1 }' "$work"/v*.dat | sort -n | uniq); do
        [ "$np" -ge 2 ] || continue
        shape=$(awk -F, -v np="$C_NP" -v c="$C_VAR" -v s="$C_SHAPE" -v n="$np" '$np == n && $c ~ /^ra_opt/ && $s != "-" { print $s; exit }' "$work/rows")
        [ -n "$shape" ] || shape=$np
        r=$("$RA_BIN/torusmodel" "${MODEL[@]}" --shape "$shape" --algorithm routed 2>"$work/err") || continue
        d=$("$RA_BIN/torusmodel" "${MODEL[@]}" --shape "$shape" --algorithm direct --bucketed 2>>"$work/err") || continue
        echo "$np $(val "$r" cpu_bound_gups) $(val "$d" cpu_bound_gups) $(val "$r" network_bound_gups) $(val "$r" hops_per_update)" >>"$work/bounds.dat"
        have_bounds=1
    done
    [ $have_bounds = 1 ] || echo "# $RA_SCRIPT: torusmodel gave no bounds ($(head -1 "$work/err")); plotting measurements only"
elif [ $have_pred = 0 ]; then
    echo "# $RA_SCRIPT: no parameters for bounds (run sweep.sh without --no-calibrate, or give --params/--preset); plotting measurements only"
fi

# Variants that measure the same thing draw on top of each other: shrinking
# marks keep every one visible as nested symbols.
psize() { awk -v i="$1" 'BEGIN { s = 2.6 - 0.5 * (i - 1); printf "%.1f", s < 0.8 ? 0.8 : s }'; }

# The measured curves, one per variant: data column $1, titles ending in $2,
# each point labelled with its routing shape when $3 is 1.
variant_curves() {
    local i sep=""
    for i in $(seq 1 ${#VARIANTS[@]}); do
        printf "%s'v%d.dat' using 1:%d with linespoints lw 2 pt %d ps %s title '%s%s' noenhanced" "$sep" "$i" "$1" $((i + 4)) "$(psize "$i")" "$(ra_gp_text "${VARIANTS[$((i - 1))]}")" "$2"
        [ "$3" = 1 ] && printf ", 'v%d.dat' using 1:%d:5 with labels offset 0,1 font ',9' notitle" "$i" "$1"
        sep=", "
    done
}

host=$(ra_gp_text "$(awk -F, 'NR == 2 { print $3 }' "$CSV")")
mpi=$(ra_gp_text "$(awk -F, 'NR == 2 { print $4 " " $5 }' "$CSV")")
src=$(ra_gp_text "${PRESET:+preset $PRESET}${PARAMS:+$(basename -- "$PARAMS")}")
title="HPCC RandomAccess ($GEN), table 2^{$K} words, $host, $mpi"

{
    echo "set terminal pngcairo size 1100,750 enhanced font 'Sans,12'"
    echo "set output 'gups.png'"
    echo "set title \"$title\""
    echo "set xlabel 'MPI processes'"
    echo "set ylabel 'GUPS (10^9 updates per second)'"
    echo "set logscale x 2"
    echo "set logscale y 10"
    echo "set format y '%g'"
    echo "set grid xtics ytics mytics lc rgb '#dddddd'"
    echo "set bmargin 9"
    # four rows of two columns hold the measured/predicted/CPU-bound entries
    # of two variants and the two shared bounds without overlapping
    if [ $have_pred = 1 ]; then
        echo "set key at screen 0.5, screen 0.015 center bottom box maxrows 4 width -2 samplen 4 spacing 1.1"
    else
        echo "set key at screen 0.5, screen 0.015 center bottom box maxrows 3 width -6 samplen 4 spacing 1.2"
    fi
    echo "set offsets graph 0.05, graph 0.05, 0, 0"
    echo "set datafile missing '?'"
    printf 'plot '
    if [ $have_pred = 1 ]; then
        # measured points on each variant's predicted line, in one colour
        # per variant; its CPU bound dashed; network and memory bounds once
        sep=""
        for i in $(seq 1 ${#VARIANTS[@]}); do
            v=$(ra_gp_text "${VARIANTS[$((i - 1))]}")
            printf "%s'v%d.dat' using 1:2 with points pt %d ps 2 lc %d title '%s measured' noenhanced" "$sep" "$i" $((i + 4)) "$i" "$v"
            printf ", 'v%d.dat' using 1:6 with lines lw 2 lc %d title '%s predicted (torusmodel)' noenhanced" "$i" "$i" "$v"
            printf ", 'v%d.dat' using 1:7 with lines dt 2 lw 1 lc %d title '%s CPU bound (%s model)' noenhanced" "$i" "$i" "$v" "$(case $v in ra_opt*) echo routed ;; *) echo direct ;; esac)"
            sep=", "
        done
        printf ", 'v1.dat' using 1:8 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'network bound of the shape'"
        printf ", 'v1.dat' using 1:9 with lines dt 4 lw 2 lc rgb '#9467bd' title 'node memory bound (Star rate x nodes)'"
    else
        variant_curves 2 " (measured)" 0
    fi
    if [ $have_bounds = 1 ]; then
        printf ", 'bounds.dat' using 1:2 with lines dt 2 lw 2 lc rgb '#1f77b4' title 'CPU bound, routed: ra_opt (torusmodel, %s)' noenhanced" "$src"
        printf ", 'bounds.dat' using 1:3 with lines dt 2 lw 2 lc rgb '#d62728' title 'CPU bound, direct with buckets: ra_base (torusmodel)' noenhanced"
        printf ", 'bounds.dat' using 1:4 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'network bound of the shape (torusmodel)' noenhanced"
    fi
    echo

    echo "set output 'traffic.png'"
    echo "set terminal pngcairo size 1300,600 enhanced font 'Sans,12'"
    echo "unset logscale y"
    echo "set bmargin"
    echo "set key default"
    echo "set key inside left top box opaque"
    echo "set multiplot layout 1,2 title \"Traffic per update, $GEN, table 2^{$K} words (labels: routing shape)\""
    for what in bytes hops; do
        if [ $what = bytes ]; then c=3; yl="bytes on the wire per update"; else c=4; yl="software-routing hops per update"; fi
        echo "set title '$yl'"
        echo "set ylabel '$yl'"
        echo "set yrange [0:*]"
        # Headroom above the data for the key and the shape labels.
        echo "set offsets graph 0.05, graph 0.05, graph 0.35, 0"
        printf 'plot '
        variant_curves $c "" 1
        if [ $what = hops ] && [ $have_bounds = 1 ]; then
            printf ", 'bounds.dat' using 1:5 with lines dt 2 lw 2 lc rgb 'black' title 'model: sum of (1 - 1/k) over the shape' noenhanced"
        fi
        echo
    done
    echo "unset multiplot"
} >"$work/plot.gp"

if ! (cd "$work" && "$GP" plot.gp) 2>"$work/gp.err"; then
    echo "$RA_SCRIPT: error: gnuplot failed: $(grep -m1 '[^[:space:]]' "$work/gp.err")" >&2
    exit 3
fi
# one rename each, in the PNGs' own folder: an old plot is never replaced
# by half a PNG
for f in gups:gups_vs_procs traffic:traffic_per_update; do
    if [ ! -s "$work/${f%%:*}.png" ] || ! mv -f -- "$work/${f%%:*}.png" "$OUT/${f#*:}.png"; then
        echo "$RA_SCRIPT: error: $(ra_show "$OUT/${f#*:}.png") was not written" >&2
        exit 3
    fi
    echo "wrote $OUT/${f#*:}.png"
done
