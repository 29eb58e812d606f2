#!/bin/bash
# run_scripts/plot_coll.sh - PNG plots of a collbench CSV (bin/collbench --csv), gnuplot.
#
#   OUTDIR/coll_<op>_latency.png     mean time per call (avg_us over ranks) against
#                                    size, log-log, one line per algorithm: where a
#                                    torus algorithm beats the MPI library's own;
#                                    dotted: the alpha-beta prediction for auto
#   OUTDIR/coll_<op>_bandwidth.png   MB/s (bytes per rank / avg_us) against size,
#                                    log-log, one line per algorithm
#   OUTDIR/coll_barrier.png          barrier (no size): avg_us per algorithm, with
#                                    the min..max over ranks as an error bar
# "mpi" (the MPI library's collective) is drawn thick and black, "auto" (the
# selection table's choice) dashed, so the two a reader compares stand out.
# The CSV is data: its names reach gnuplot only through ra_gp_text (letters,
# digits, ._:=- and blanks), its numbers only when they are numbers.
set -u
RA_SCRIPT=plot_coll.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
ra_guard_stdout

usage() {
    cat <<EOF2
usage: $0 CSV [OUTDIR]
  CSV      a file written by bin/collbench --csv
  OUTDIR   where the PNGs go [default: the CSV's directory]
  -h       this help
environment: GNUPLOT (the gnuplot to run) [gnuplot]
exit: 0 plots written, 2 usage or nothing to plot (nothing written), 3 gnuplot missing or failed
EOF2
}

RA_OPTSPEC='-h help -
--help help -'
ra_parse_opts "$@"
set -- ${RA_ARGS[@]+"${RA_ARGS[@]}"} ${RA_REST[@]+"${RA_REST[@]}"}
[ $# -gt 0 ] || ra_die "no CSV given: allowed a file written by collbench --csv (see -h)"
[ $# -le 2 ] || ra_die "unexpected argument '$(ra_show "$3")': allowed CSV [OUTDIR]"
CSV=$1
OUT=${2-}
[ $# -lt 2 ] || ra_check OUTDIR name "$OUT"
{ [ -f "$CSV" ] && [ -r "$CSV" ]; } || ra_die "cannot read '$(ra_show "$CSV")': allowed a CSV written by collbench --csv"
head -1 -- "$CSV" | grep -q '^op,size,algorithm,chosen,ranks,shape,mode,.*avg_us,.*mb_s' ||
    ra_die "'$(ra_show "$CSV")' is not a collbench CSV (header lacks op,size,algorithm,...,avg_us,mb_s): allowed a file written by collbench --csv"

# Columns by name, so the plot survives new columns.
C_OP=$(ra_csv_col "$CSV" op); C_SIZE=$(ra_csv_col "$CSV" size); C_ALG=$(ra_csv_col "$CSV" algorithm); C_RANKS=$(ra_csv_col "$CSV" ranks); C_SHAPE=$(ra_csv_col "$CSV" shape)
C_MODE=$(ra_csv_col "$CSV" mode); C_MIN=$(ra_csv_col "$CSV" min_us); C_AVG=$(ra_csv_col "$CSV" avg_us); C_MAX=$(ra_csv_col "$CSV" max_us); C_MBS=$(ra_csv_col "$CSV" mb_s)
C_PRED=$(ra_csv_col "$CSV" pred_us); C_CHOSEN=$(ra_csv_col "$CSV" chosen); C_HOST=$(ra_csv_col "$CSV" host)
# the rows to plot: a size that is a whole number (above 0 but for the
# barrier: the size axis is logarithmic), times that are numbers,
# names made inert (ra_gp_text's set); anything else is left out
ROWS=$(awk -F, -v o="$C_OP" -v s="$C_SIZE" -v a="$C_ALG" -v ch="$C_CHOSEN" -v mn="$C_MIN" -v av="$C_AVG" -v mx="$C_MAX" '
    function word(x) { gsub(/[^A-Za-z0-9._:=-]/, "_", x); return x == "" ? "-" : x }
    function num(x) { return x ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
    NR > 1 && $s ~ /^[0-9]+$/ && ($s > 0 || $o == "barrier") && num($mn) && num($av) && num($mx) {
        $o = word($o); $a = word($a); $ch = word($ch); print }' OFS=, "$CSV")
[ -n "$ROWS" ] || ra_die "'$(ra_show "$CSV")' has no rows to plot"

GP=${GNUPLOT:-gnuplot}
if ! command -v "$GP" >/dev/null 2>&1; then
    echo "$RA_SCRIPT: error: gnuplot is not installed: install it with: apt-get install -y gnuplot-nox" >&2
    exit 3
fi
GP=$(command -v "$GP")
[ -n "$OUT" ] || OUT=$(dirname -- "$CSV")
case "$OUT" in -*) OUT=./$OUT ;; esac
ra_out_dir OUTDIR "$OUT"
mkdir -p -- "$OUT" || { echo "$RA_SCRIPT: error: cannot create '$(ra_show "$OUT")'" >&2; exit 3; }

# gnuplot works in a folder of its own beside the PNGs, on names of its
# own (no path of the user's in its script); PNGs are renamed into place
# once all succeeded
work=$(mktemp -d "$OUT/.plot.XXXXXX") || { echo "$RA_SCRIPT: error: cannot write in '$(ra_show "$OUT")'" >&2; exit 3; }
# shellcheck disable=SC2016 # expanded when the script ends
ra_on_exit 'rm -rf -- "$work"'
printf '%s\n' "$ROWS" >"$work/all"

first() { awk -F, -v c="$1" 'NR == 2 { print $c }' "$CSV"; }
ranks=$(ra_gp_text "$(first "$C_RANKS")")
shape=$(ra_gp_text "$(first "$C_SHAPE")")
mode=$(ra_gp_text "$(first "$C_MODE")")
case "$mode" in
simulate*) where="simulated ${mode#simulate:} torus" ;;
*) where="MPI${C_HOST:+ on $(ra_gp_text "$(first "$C_HOST")")}" ;;
esac

# A readable size: 8, 512, 4K, 1M.
human() { awk -v s="$1" 'BEGIN { if (s >= 1048576 && s % 1048576 == 0) printf "%dM", s / 1048576; else if (s >= 1024 && s % 1024 == 0) printf "%dK", s / 1024; else printf "%d", s }'; }

# Line style of algorithm $1 (the i-th, $2): mpi black and thick, auto dashed.
style() {
    local colors=("#1f77b4" "#d62728" "#2ca02c" "#ff7f0e" "#9467bd" "#8c564b" "#e377c2" "#17becf" "#bcbd22" "#7f7f7f")
    case "$1" in
    mpi) echo "lw 3.5 lc rgb 'black' pt 7 ps 1.3" ;;
    auto) echo "lw 2.5 dt 2 lc rgb '#555555' pt 4 ps 1.4" ;;
    *) echo "lw 2 lc rgb '${colors[$(($2 % ${#colors[@]}))]}' pt $(($2 % 10 + 5)) ps 1.2" ;;
    esac
}

# gnuplot on plot.gp in the work folder; 3 with its first line on failure
run_gp() {
    if ! (cd "$work" && "$GP" plot.gp) 2>"$work/gp.err"; then
        echo "$RA_SCRIPT: error: gnuplot failed: $(grep -m1 '[^[:space:]]' "$work/gp.err")" >&2
        exit 3
    fi
}

mapfile -t OPS < <(awk -F, -v c="$C_OP" '!seen[$c]++ { print $c }' "$work/all")
written=()
np=0
for op in "${OPS[@]}"; do
    OP=$op awk -F, -v c="$C_OP" '$c == ENVIRON["OP"]' "$work/all" >"$work/rows"
    # the algorithms first, then auto and mpi drawn over them (the two a
    # reader compares)
    mapfile -t ALGS < <(awk -F, -v c="$C_ALG" '!seen[$c]++ && $c != "auto" && $c != "mpi" { print $c }
        END { if (seen["auto"]) print "auto"; if (seen["mpi"]) print "mpi" }' "$work/rows")
    if [ "$op" = barrier ]; then
        # one bar per algorithm: name avg min max colour (mpi dark, auto grey)
        awk -F, -v a="$C_ALG" -v ch="$C_CHOSEN" -v mn="$C_MIN" -v av="$C_AVG" -v mx="$C_MAX" '{
            c = $a == "mpi" ? "0x333333" : $a == "auto" ? "0xaaaaaa" : "0x1f77b4"
            name = $a == "auto" ? "auto:" $ch : $a
            print name, $av, $mn, $mx, c }' "$work/rows" >"$work/barrier.dat"
        np=$((np + 1))
        {
            echo "set terminal pngcairo size 1000,650 enhanced font 'Sans,12'"
            echo "set output 'p$np.png'"
            echo "set title \"collbench: barrier, $ranks ranks, shape $shape ($where)\" noenhanced"
            echo "set ylabel 'time per call, microseconds (avg over ranks; bar: min..max)'"
            echo "set yrange [0:*]"
            echo "set grid ytics lc rgb '#dddddd'"
            echo "set style fill solid 0.5 border -1"
            echo "set boxwidth 0.6"
            echo "set xtics rotate by -20 noenhanced"
            echo "unset key"
            echo "plot 'barrier.dat' using 0:2:5:xtic(1) with boxes lc rgb variable, '' using 0:2:3:4 with yerrorbars lc rgb '#d62728' pt 0 lw 2"
        } >"$work/plot.gp"
        run_gp
        written+=("p$np.png:coll_barrier.png")
        continue
    fi
    # one data file per algorithm: size avg_us mb_s, by size
    i=0
    for a in "${ALGS[@]}"; do
        i=$((i + 1))
        A=$a awk -F, -v c="$C_ALG" -v s="$C_SIZE" -v av="$C_AVG" -v b="$C_MBS" \
            '$c == ENVIRON["A"] { print $s, $av, ($b ~ /^[0-9.eE+-]+$/ ? $b : "NaN") }' "$work/rows" | sort -n >"$work/a$i.dat"
    done
    awk -F, -v c="$C_ALG" -v s="$C_SIZE" -v p="$C_PRED" '$c == "auto" && $p ~ /^[0-9.eE+-]+$/ { print $s, $p }' "$work/rows" |
        sort -n >"$work/pred.dat"
    # x tics at the sizes measured (every other one when there are many)
    mapfile -t SIZES < <(awk -F, -v s="$C_SIZE" '{ print $s }' "$work/rows" | sort -n | uniq)
    step=1
    [ ${#SIZES[@]} -gt 12 ] && step=2
    tics=""
    for k in $(seq 0 $step $((${#SIZES[@]} - 1))); do
        tics="$tics${tics:+, }\"$(human "${SIZES[$k]}")\" ${SIZES[$k]}"
    done
    for what in latency bandwidth; do
        if [ $what = latency ]; then
            c=2; yl="time per call, microseconds (avg over ranks)"
        else
            c=3; yl="MB/s per rank (bytes / avg time)"
        fi
        np=$((np + 1))
        {
            echo "set terminal pngcairo size 1250,700 enhanced font 'Sans,12'"
            echo "set output 'p$np.png'"
            echo "set title \"collbench: $op $what, $ranks ranks, shape $shape ($where)\" noenhanced"
            if [ "${op#alltoall}" != "$op" ]; then
                echo "set xlabel 'bytes per pair'"
            else
                echo "set xlabel 'message bytes'"
            fi
            echo "set ylabel '$yl'"
            echo "set logscale x 2"
            echo "set logscale y 10"
            echo "set format y '%g'"
            echo "set xtics ($tics)"
            echo "set grid xtics ytics mytics lc rgb '#dddddd'"
            # beside the plot: with a dozen algorithms a key inside hides data,
            # and one below runs into the axis label
            echo "set key outside right top vertical box noenhanced spacing 1.3 samplen 3"
            echo "set offsets graph 0.03, graph 0.03, 0, 0"
            printf 'plot '
            sep=""
            i=0
            for a in "${ALGS[@]}"; do
                i=$((i + 1))
                title=$a
                [ "$a" = auto ] && title="auto (the table's choice)"
                [ "$a" = mpi ] && title="mpi (the MPI library's own)"
                printf "%s'a%d.dat' using 1:%d with linespoints %s title \"%s\"" "$sep" "$i" "$c" "$(style "$a" "$i")" "$title"
                sep=", "
            done
            if [ $what = latency ] && [ -s "$work/pred.dat" ]; then
                printf ", 'pred.dat' using 1:2 with lines lw 2 dt 3 lc rgb '#555555' title \"auto, alpha-beta-gamma prediction\""
            fi
            echo
        } >"$work/plot.gp"
        run_gp
        written+=("p$np.png:coll_${op}_$what.png")
    done
done
# renamed into place only now, each in one step in the PNGs' own folder,
# so a failed run never leaves half a PNG where an old plot was
for w in "${written[@]}"; do
    if [ ! -s "$work/${w%%:*}" ] || ! mv -f -- "$work/${w%%:*}" "$OUT/${w#*:}"; then
        echo "$RA_SCRIPT: error: $(ra_show "$OUT/${w#*:}") was not written" >&2
        exit 3
    fi
    echo "wrote $OUT/${w#*:}"
done
