# tests/suite_hostile.sh - hostile inputs, tried as a new user would (issue
# 28).  Part 1: cases of every class of the issue's table, on the real
# binaries and scripts.  Part 2: a generated sweep: every option of every
# binary and run script (read from its --help or its RA_OPTSPEC) x {missing,
# empty, -1, 0, 2^63, 2^64, 1e400, nan, inf, a non-ASCII letter, a blank}
# must give exit 2, exactly one line on stderr, nothing on stdout and leave
# the folder it ran in as it was; where a value is valid for an option (the
# table VALID below says which, by hand: an independent statement of each
# option's range) the binary's --dry-run must exit 0 and print nothing, and
# a script, which would launch, is skipped by name.  Every output option and
# stdout itself pointed at /dev/full (and stdout closed) gives exit 3.
# The sweep's refusals go through --dry-run (no MPI start, no run even if a
# value were wrongly taken): the option spec reads them the same way with
# and without it; part 1 runs the real thing.  Sourced by run_tests.sh.

H=$TMP/hostile
W=$H/w # the empty folder every command of this suite runs in
mkdir -p "$W" "$H/fake"
ROOT=$PWD
# a launcher that launches nothing: a script refused before its launch
# never calls it (its --version is what ra_launcher asks)
cat >"$H/fake/mpirun" <<'EOS'
#!/bin/sh
[ "$1" = --version ] && { echo "fake launcher"; exit 0; }
touch "$HOSTILE_LAUNCHED"
exit 97
EOS
chmod +x "$H/fake/mpirun"
export HOSTILE_LAUNCHED=$H/launched

# hrun CMD...: CMD in $W (no stdin, a hang guard), its stdout and stderr in
# $H/out and $H/err; HRC its exit code, HERR its stderr lines.
hrun() {
    (cd "$W" && timeout -k 5 120 "$@" </dev/null >"$H/out" 2>"$H/err")
    HRC=$?
    mapfile -t HERR <"$H/err"
}
# w_empty: the folder as it was (empty), hidden files too
w_empty() {
    local f
    for f in "$W"/* "$W"/.[!.]* "$W"/..?*; do [ -e "$f" ] || [ -L "$f" ] && return 1; done
    return 0
}
w_clean() { rm -rf "${W:?}" && mkdir -p "$W"; }
# refused WANT: the last hrun gave exit WANT, one line on stderr, nothing
# on stdout, nothing left in $W, nothing launched
refused() {
    local r=0
    [ "$HRC" = "$1" ] && [ ${#HERR[@]} = 1 ] && [ ! -s "$H/out" ] && w_empty && [ ! -e "$HOSTILE_LAUNCHED" ] || r=1
    w_clean
    rm -f "$HOSTILE_LAUNCHED"
    return $r
}
# expect WANT DESC CMD...: the command refused with WANT, as refused says
expect() {
    local want=$1 desc=$2
    shift 2
    hrun "$@"
    local line=${HERR[0]:-}
    if refused "$want"; then ok "$desc -> exit $want: $line"; else bad "$desc: exit $HRC (want $want), ${#HERR[@]} stderr lines: $(head -c 300 "$H/err"), stdout: $(head -c 100 "$H/out")"; fi
}

B=$ROOT/bin
R=$ROOT/run_scripts

# ---- part 1: the classes of issue 28 ------------------------------------

# 1. data becomes code: CSV fields holding backquotes, or a quote and
#    gnuplot syntax, are data for plot.sh and plot_coll.sh; a CSV path with
#    a quote, blanks and $(...) plots (issue 24 item 7)
if command -v gnuplot >/dev/null 2>&1; then
    D="$H/o'ut s \$(touch PWNED)"
    mkdir -p "$D"
    "$R/sweep.sh" --no-calibrate -o "$D/s w.csv" -p "1 2" -k 10 -a "ra_opt ra_base" >"$H/sw.log" 2>&1
    awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
        { $3 = "h`touch PWNED1`\"; system \"touch PWNED2\"; #"; $8 = (NR % 2 ? "ra_opt'"'"'; system '"'"'touch PWNED3'"'"'; x='"'"'" : "ra_base`touch PWNED4`"); print }' \
        "$D/s w.csv" >"$H/evil.csv"
    "$B/collbench" --simulate 4x4 --op barrier,bcast --sizes 8:64 --csv "$H/c.csv" >/dev/null 2>&1
    awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
        { if ($3 != "auto" && $3 != "mpi") $3 = "x\"`touch PWNED5`\""; $8 = "h`touch PWNED6`"; $6 = "s\"; system \"touch PWNED7\"; #"; print }' \
        "$H/c.csv" >"$H/evilc.csv"
    (cd "$W" && "$R/plot.sh" "$D/s w.csv" >"$H/p1" 2>&1 && "$R/plot.sh" "$H/evil.csv" -o "$H/ep" >"$H/p2" 2>&1 &&
        "$R/plot_coll.sh" "$H/evilc.csv" "$H/ec" >"$H/p3" 2>&1)
    prc=$?
    pwned=$(find "$H" "$ROOT" /tmp -maxdepth 2 -name 'PWNED*' 2>/dev/null | head -3)
    npng=$(find "$D" "$H/ep" "$H/ec" -name '*.png' -size +10k 2>/dev/null | wc -l)
    if [ $prc = 0 ] && [ -z "$pwned" ] && [ "$npng" = 7 ] && w_empty; then
        ok "plot.sh, plot_coll.sh: host, variant, algorithm and shape fields with backquotes and quote-plus-gnuplot ran nothing; a CSV under o'ut s \$(...) plots; 7 PNGs"
    else
        bad "CSV fields as code: rc=$prc ran: ${pwned:-nothing} PNGs $npng/7 $(tail -2 "$H/p1" "$H/p2" "$H/p3" 2>/dev/null)"
    fi
    rm -f "$H"/PWNED* "$ROOT"/PWNED* /tmp/PWNED*
    w_clean
else
    echo "# skip - CSV fields as code: gnuplot not installed (apt-get install gnuplot-nox)"
fi

# 2. extreme numbers: finite figures or one line and exit 2
printf '0 1 1.7e308\n1 2 1.7e308\n2 0 1.7e308\n2 3 1.7e308\n3 0 1.7e308\n' >"$H/big.txt"
expect 2 "sparsest_cut capacities near the largest double (was alpha -1, inf, invalid JSON)" "$B/sparsest_cut" --file "$H/big.txt" --json
awk 'BEGIN { for (i = 0; i < 40; i++) { print i, (i + 1) % 40, 1.7e308; print i, (i + 7) % 40, 1.7e308 } }' >"$H/r40.txt"
expect 2 "sparsest_cut 40-node ring with chords of huge capacity (was a segfault)" "$B/sparsest_cut" --file "$H/r40.txt"
expect 2 "sparsest_cut 4x4 --link-bw 1e308 --bytes-per-update 1e-300 (was gups_bound: inf)" \
    "$B/sparsest_cut" 4x4 --link-bw 1e308 --bytes-per-update 1e-300
awk 'BEGIN { for (i = 0; i < 40; i++) { print i, (i + 1) % 40, 1e30; print i, (i + 7) % 40, 1e-30 } }' >"$H/r40b.txt"
hrun "$B/sparsest_cut" --file "$H/r40b.txt" --json --link-bw 1e30 --bytes-per-update 1e-30
if [ $HRC = 0 ] && ! grep -qiE 'inf|nan|-1[,}]' "$H/out" && grep -q '"gups_bound": [0-9]' "$H/out"; then
    ok "sparsest_cut at the ends of every range (capacities 1e30 and 1e-30, C 1e30, b 1e-30): finite JSON: $(grep -o '"gups_bound": [^,]*' "$H/out")"
else
    bad "sparsest_cut at the ends of the ranges: rc=$HRC $(head -c 300 "$H/out" "$H/err")"
fi
w_clean

# 3. results lost on a full or closed stdout: exit 3, one line
for c in "torusmodel --preset bgl-mpi" "torusmodel --preset bgl-routed --shape 4x4" "sparsest_cut 8x8" \
    "ra_opt --log2-table 10 --quiet" "ra_base --log2-table 10 --quiet" \
    "collbench --op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1"; do
    read -r -a cmd <<<"$c"
    for to in /dev/full closed; do
        if [ $to = closed ]; then
            (cd "$W" && "$B/${cmd[0]}" "${cmd[@]:1}" </dev/null >&- 2>"$H/err")
        else
            (cd "$W" && "$B/${cmd[0]}" "${cmd[@]:1}" </dev/null >/dev/full 2>"$H/err")
        fi
        HRC=$?
        mapfile -t HERR <"$H/err"
        if [ $HRC = 3 ] && [ ${#HERR[@]} = 1 ] && [[ ${HERR[0]} == "${cmd[0]}: cannot write standard output: "* ]] && w_empty; then
            ok "$c, stdout $to -> exit 3: ${HERR[0]}"
        else
            bad "$c, stdout $to: exit $HRC (want 3): $(head -c 300 "$H/err")"
        fi
        w_clean
    done
done
(cd "$W" && "$B/ra_calibrate" --quick --log2-table 10 --output "$H/c.params" </dev/null >/dev/full 2>"$H/err")
HRC=$?
if [ $HRC = 3 ] && [ "$(cat "$H/err")" = "ra_calibrate: cannot write standard output: No space left on device" ] && grep -qE '^t_local +=' "$H/c.params"; then
    ok "ra_calibrate --quick, stdout /dev/full -> exit 3, one line, the params file written all the same"
else
    bad "ra_calibrate stdout /dev/full: exit $HRC: $(head -c 300 "$H/err")"
fi
w_clean
if command -v gnuplot >/dev/null 2>&1 && [ -s "$D/s w.csv" ]; then
    expect 3 "plot.sh with stdout /dev/full (its 'wrote' lines lost)" sh -c 'exec "$0" "$1" -o "$2" >/dev/full' "$R/plot.sh" "$D/s w.csv" "$H/pf"
fi

# 4 and 5. refused runs write, print and launch nothing
expect 2 "torusmodel --shape 4x4 --write-params p.params (was written before the refusal)" \
    "$B/torusmodel" --shape 4x4 --write-params p.params
expect 2 "torusmodel --write-params p.params with no shape" "$B/torusmodel" --t-local 5 --write-params p.params
expect 2 "torusmodel --simulate without --algorithm routed, --write-params p.params" \
    "$B/torusmodel" --preset bgl-mpi --shape 8x8 --simulate --write-params p.params
expect 2 "torusmodel --shapes 4x4,128x128x64 --simulate (was a simulated first row)" \
    "$B/torusmodel" --preset bgl-routed --shapes 4x4,128x128x64 --simulate
expect 2 "torusmodel ... --simulate --json (was an unterminated JSON)" \
    "$B/torusmodel" --preset bgl-routed --shapes 4x4,128x128x64 --simulate --json
expect 2 "torusmodel --shape 1024x1024x1024 --simulate (was a header first)" \
    "$B/torusmodel" --preset bgl-routed --shape 1024x1024x1024 --simulate
expect 2 "ra_opt --outstanding 0 --log2-table 40 (was a memory error, exit 3)" "$B/ra_opt" --outstanding 0 --log2-table 40
for a in "-- --bogus" "-m garbage" "-t ." "-k 99" "-n 18446744073709551616" "-o ''"; do
    eval "set -- $a"
    MPIRUN=$H/fake/mpirun expect 2 "hpcc_submission.sh $a (was a header and launches)" "$R/hpcc_submission.sh" -n 2 -k 12 -o sub "$@"
done
for a in "-- --bogus" "-- --dims 3x3" "-k 99" "-n"; do
    eval "set -- $a"
    MPIRUN=$H/fake/mpirun expect 2 "compare.sh -n 2 -k 12 $a" "$R/compare.sh" -n 2 -k 12 --no-hpcc --no-model "$@"
done
MPIRUN=$H/fake/mpirun expect 2 "hpcc_submission.sh -O '--dims 3x3' at 2 ranks (its --dry-run=2 sees the shape)" \
    "$R/hpcc_submission.sh" -n 2 -k 12 -o sub -O "--dims 3x3"
MPIRUN=$H/fake/mpirun expect 2 "sweep.sh with a bad option passed through (was a failed row, 'see log:' and nothing)" \
    "$R/sweep.sh" --no-calibrate -o s.csv -p 2 -k 12 -a ra_opt -- --bogus
MPIRUN=$H/fake/mpirun expect 2 "sweep.sh -a ra_opt:--dims=3t (its -logs/ and -params/ were left)" "$R/sweep.sh" -o s.csv -p 2 -k 12 -a ra_opt:--dims=3t

# 6. two outputs on one path
expect 2 "ra_opt --output F --json F" "$B/ra_opt" --log2-table 10 --output F --json F
expect 2 "ra_base --output F --json ./F" "$B/ra_base" --log2-table 10 --output F --json ./F
expect 2 "collbench --csv F --json F" "$B/collbench" --csv F --json F

# 7. empty or missing values in the scripts
for c in "compare.sh -n" "plot.sh x.csv -o" "plot.sh --preset" "sweep.sh -p" "hpcc_submission.sh -n"; do
    read -r -a cmd <<<"$c"
    MPIRUN=$H/fake/mpirun expect 2 "$c (no value)" "$R/${cmd[0]}" "${cmd[@]:1}"
done
if [ -s "$D/s w.csv" ]; then
    expect 2 "plot.sh --preset bogus (was exit 0)" "$R/plot.sh" --preset bogus "$D/s w.csv" -o plots
    expect 2 "plot.sh --params /nonexistent (was exit 0)" "$R/plot.sh" --params /nonexistent "$D/s w.csv" -o plots
fi

# 8. memory: exit 3 at once, naming what is available
expect 3 "ra_calibrate --log2-table 40 (ran until the OOM killer)" "$B/ra_calibrate" --log2-table 40
avail=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
if [ "${avail:-0}" -lt 30 ]; then
    run_mpi 8 "$B/collbench" --op alltoall --sizes 255M --iters 1 --warmup 0 --rounds 1
    rc=$?
    if [ $rc = 3 ] && [ "$(grep -c '^collbench: ' "$TMP/err")" = 1 ] && grep -q "GiB is available: allowed smaller --sizes" "$TMP/err" && [ ! -s "$TMP/out" ]; then
        ok "collbench --op alltoall --sizes 255M at 8 ranks (asked for 32 GiB) -> exit 3 before any buffer: $(grep '^collbench: ' "$TMP/err" | cut -c1-150)"
    else
        bad "collbench 255M alltoall at 8 ranks: rc=$rc $(head -c 300 "$TMP/err")"
    fi
else
    echo "# skip - collbench --sizes 255M at 8 ranks: this machine has ${avail} GiB available, the 32 GiB would fit"
fi

# 10. the smaller ones
hrun "$B/ra_opt" --log2-table 12 --time-bound 1e-9 --quiet --output h.txt
if [ $HRC = 1 ] && [ "$(grep -c '^status: failed' "$H/out")" = 1 ] && grep -q '^updates: 0$' "$H/out" &&
    grep -q '^Success=0$' "$W/h.txt" && [ ${#HERR[@]} = 1 ]; then
    ok "ra_opt --time-bound 1e-9: 0 updates is status failed, Success=0, exit 1: ${HERR[0]}"
else
    bad "--time-bound 1e-9: rc=$HRC $(grep -E 'status|updates:' "$H/out" | tr '\n' ' ') $(grep Success= "$W/h.txt" 2>/dev/null)"
fi
w_clean
ln -s real.params "$W/link.params"
hrun "$B/torusmodel" --preset bgl-mpi --shape 8x8 --write-params link.params
if [ $HRC = 0 ] && [ -L "$W/link.params" ] && grep -qE '^clock_hz +=' "$W/real.params"; then
    ok "torusmodel --write-params on a dangling link: its target written, the link kept (was replaced)"
else
    bad "--write-params on a dangling link: rc=$HRC $(ls -l "$W")"
fi
w_clean
printf '0 0\n0 100000000000000000000\n1 0\n1 1\n' >"$H/big.map"
hrun "$B/ra_opt" --dry-run=4 --log2-table 10 --dims 2x2 --map "$H/big.map"
if refused 2 && grep -q "coordinate 100000000000000000000 of dimension 1 out of range: allowed 0..1" "$H/err"; then
    ok "a mapping coordinate of 10^20: out of range as written (was 'expected 2 coordinates, found 1')"
else
    bad "mapping coordinate 10^20: rc=$HRC $(cat "$H/err")"
fi
printf '2 1\n2 2\n\n' >"$H/asym.graph"
expect 2 "sparsest_cut METIS lists that do not match (was accepted, alpha doubled)" "$B/sparsest_cut" --file "$H/asym.graph"
expect 2 "sparsest_cut 4x4 --format metis (was ignored)" "$B/sparsest_cut" 4x4 --format metis
expect 2 "ra_opt --dims 3t (was accepted)" "$B/ra_opt" --log2-table 10 --dims 3t
OMP_NUM_THREADS=100000 expect 2 "OMP_NUM_THREADS=100000 ra_base --suite star (was a segfault in libgomp)" \
    "$B/ra_base" --log2-table 12 --suite star --quiet
for s in "hpcc_submission.sh -k" "sweep.sh -p" "compare.sh -n"; do
    read -r -a cmd <<<"$s"
    MPIRUN=$H/fake/mpirun expect 2 "$s 18446744073709551616 (was a bash error first)" "$R/${cmd[0]}" "${cmd[1]}" 18446744073709551616
done

# ---- part 2: the generated sweep ----------------------------------------

# the values, by key
vlit() {
    case $1 in
    empty) V="" ;; m1) V=-1 ;; zero) V=0 ;; p63) V=9223372036854775808 ;; p64) V=18446744073709551616 ;;
    e400) V=1e400 ;; nan) V=nan ;; inf) V=inf ;; utf) V=$'\xc3\xa9' ;; blank) V=" " ;;
    esac
}
KEYS="missing empty m1 zero p63 p64 e400 nan inf utf blank"
NAMES="m1 zero p63 p64 e400 nan inf utf" # file names: every value but missing, empty and a blank
NUM0="zero p63 p64"                      # 0..1e30
POS="p63 p64"                            # 1e-30..1e30
# Which values each option takes, by hand from its documented range
# (bin:option; "ra:" for both ra_base and ra_opt); every other value must
# be refused.  Flags take only "missing" (they are given, --flag=V is
# refused).
declare -A VALID=(
    [ra:mem]="p63" [ra:updates]="p63" [ra:time-bound]="zero" [ra:output]="$NAMES" [ra:json]="$NAMES"
    [ra:papi]="missing m1 zero p63 p64 e400 nan inf" [ra_opt:lookahead]="zero"
    [torusmodel:write-params]="$NAMES" [torusmodel:sim-latency]="zero" [torusmodel:sim-lookahead]="zero"
    [torusmodel:header-bytes]="zero" [torusmodel:clock-hz]="$POS" [torusmodel:bytes-per-update]="$POS"
    [torusmodel:link-bw]="$POS" [torusmodel:updates-per-message]="$POS" [torusmodel:node-gups]="$POS"
    [torusmodel:node-gups-plain]="$POS" [torusmodel:cores-per-node]="$NUM0" [torusmodel:threads-per-core]="$NUM0"
    [collbench:warmup]="zero" [collbench:seed]="zero p63" [collbench:latency]="zero" [collbench:csv]="$NAMES"
    [collbench:json]="$NAMES" [collbench:tune]="$NAMES" [ra_calibrate:output]="$NAMES" [ra_calibrate:link-bw]="$POS"
    [ra_opt:hop-cost]="zero" [ra_opt:packet-cost]="zero" [torusmodel:hop-cost]="zero" [torusmodel:packet-cost]="zero"
    [torusmodel:poll-cost]="zero" [torusmodel:peer-cost]="zero"
    [sparsest_cut:link-bw]="$POS" [sparsest_cut:bytes-per-update]="$POS"
    [hpcc_submission.sh:-t]="zero" [hpcc_submission.sh:-o]="$NAMES" [sweep.sh:-o]="$NAMES" [sweep.sh:--timeout]="zero"
    [sweep.sh:--params-dir]="$NAMES"
    [compare.sh:--keep]="$NAMES" [plot.sh:-o]="$NAMES"
)
for o in t-local t-send t-recv t-overhead t-hop t-local-plain t-test t-exposed t-wait-routed t-wait-direct \
    packet-header-bytes chunk-bytes packet-max-bytes link-overhead-bytes; do VALID[torusmodel:$o]=$NUM0; done
# the node model's keys (torusmodel/node.c): numbers 0..1e30, 0 = not given
for o in mem-latency-ns mlp mem-bw line-bytes instr-local instr-hop instr-test mpi-latency-ns inj-bw msg-rate \
    ipc-scale raw-msg-ns; do VALID[torusmodel:$o]=$NUM0; done
# The command each option is tried in, valid but for the option itself
declare -A BASE=(
    [ra_opt]="--log2-table 10 --quiet" [ra_base]="--log2-table 10 --quiet"
    [torusmodel]="--preset bgl-routed --shape 4x4" [torusmodel:records]="" [torusmodel:bucketed]="--preset bgl-mpi --shape 4x4"
    [sparsest_cut]="8x8 --link-bw 1e9 --bytes-per-update 8"
    [ra_calibrate]="--quick --log2-table 10" [collbench]="--op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1"
    [collbench:latency]="--simulate 4x4 --op barrier --sizes 8" [collbench:link-bw]="--simulate 4x4 --op barrier --sizes 8"
    [ra_opt:mem]="--quiet" [ra_base:mem]="--quiet" [sparsest_cut:shape]="--link-bw 1e9 --bytes-per-update 8"
    [sparsest_cut:file]="--link-bw 1e9 --bytes-per-update 8"
    [hpcc_submission.sh]="-n 2 -k 12 -t 0.01 -o sub" [hpcc_submission.sh:-m]="-n 2 -t 0.01 -o sub" [sweep.sh]="-o s.csv -p 2 -k 12 -a ra_opt"
    [compare.sh]="-n 2 -k 12 --no-hpcc --no-model" [plot.sh]="$D/s w.csv -o plots" [plot_coll.sh]=""
)
valid() { case " ${VALID[$1]:-} " in *" $2 "*) return 0 ;; esac; return 1; }

n_ref=0 n_ok=0 n_skip=0 fails=""
note() { [ ${#fails} -lt 3000 ] && fails="$fails"$'\n'"    $*"; }

# the base words of PROG for OPT, OPT itself (and its value, when TAKES
# is 1) left out
base_of() {
    local prog=$1 opt=$2 takes=$3 b w skip=0 k=${2#--}
    b=${BASE[$prog:$k]-${BASE[$prog]}}
    read -r -a BW <<<"$b"
    [ "$prog" = plot.sh ] && BW=("$D/s w.csv" -o plots)
    local out=()
    for w in "${BW[@]}"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        if [ "$w" = "$opt" ]; then skip=$takes; continue; fi
        out+=("$w")
    done
    BW=(${out[@]+"${out[@]}"})
}

# one binary: every option of its --help x every value
sweep_binary() {
    local prog=$1 line opt form key cls
    while IFS=' ' read -r opt form; do
        cls=$prog:$opt
        case $prog in ra_opt | ra_base) [ -n "${VALID[ra:$opt]+x}" ] && cls=ra:$opt ;; esac
        base_of "$prog" "--$opt" "$([ "$form" = value ] && echo 1 || echo 0)"
        for key in $KEYS; do
            vlit "$key"
            local args=()
            if [ "$opt" = help ] || [ "$opt" = version ]; then
                if [ $key = missing ]; then
                    hrun "$B/$prog" "--$opt"
                    if [ $HRC = 0 ] && [ -s "$H/out" ] && [ ${#HERR[@]} = 0 ] && w_empty; then n_ok=$((n_ok + 1)); else note "$prog --$opt: exit $HRC"; fi
                    w_clean
                    continue
                fi
                args=("--$opt=$V")
            elif [ "$form" = flag ]; then
                [ $key = missing ] && args=("--$opt") || args=("--$opt=$V")
            elif [ $key = missing ]; then
                args=("--$opt")
            else
                args=("--$opt" "$V")
            fi
            local dry=(--dry-run)
            [ "$opt" = dry-run ] && dry=()
            if { [ "$form" = flag ] || [ "$form" = optional ]; } && [ $key = missing ] || valid "$cls" "$key"; then
                # valid: checked alone by --dry-run, nothing printed, run or left
                hrun "$B/$prog" "${BW[@]}" "${args[@]}" "${dry[@]}"
                if [ $HRC = 0 ] && [ ! -s "$H/out" ] && [ ${#HERR[@]} = 0 ] && w_empty; then n_ok=$((n_ok + 1)); else note "$prog ${args[*]} (valid): exit $HRC $(head -c 160 "$H/err")"; fi
                w_clean
            else
                # the option last but for --dry-run: "missing" is a value missing
                if [ $key = missing ]; then hrun "$B/$prog" "${dry[@]}" "${BW[@]}" "${args[@]}"; else hrun "$B/$prog" "${BW[@]}" "${dry[@]}" "${args[@]}"; fi
                if refused 2; then n_ref=$((n_ref + 1)); else note "$prog ${args[*]}: exit $HRC, ${#HERR[@]} lines: $(head -c 160 "$H/err")"; fi
            fi
        done
    done < <("$B/$prog" --help | sed -nE 's/^  (-[a-zA-Z], )?--([a-z0-9-]+)( \[[A-Z_:]+\]| [A-Z_:]+)?.*/\2 \3/p' |
        awk '{ print $1, ($2 == "" ? "flag" : $2 ~ /^\[/ ? "optional" : "value") }')
}

# one script: every option of its RA_OPTSPEC x every value
sweep_script() {
    local s=$1 opt kind var key args
    while read -r opt kind var; do
        base_of "$s" "$opt" "$(case $kind in flag | help) echo 0 ;; *) echo 1 ;; esac)"
        for key in $KEYS; do
            vlit "$key"
            if [ "$kind" = help ]; then
                if [ $key = missing ]; then
                    hrun "$R/$s" "$opt"
                    if [ $HRC = 0 ] && [ -s "$H/out" ] && [ ${#HERR[@]} = 0 ] && w_empty; then n_ok=$((n_ok + 1)); else note "$s $opt: exit $HRC"; fi
                    w_clean
                    continue
                fi
                args=("$opt=$V")
            elif [ "$kind" = flag ]; then
                [ $key = missing ] && args=("$opt") || args=("$opt=$V")
            elif [ $key = missing ]; then
                args=("$opt")
            else
                args=("$opt" "$V")
            fi
            if { [ "$kind" = flag ] && [ $key = missing ]; } || valid "$s:$opt" "$key"; then
                n_skip=$((n_skip + 1)) # valid: the script would run (suite_scripts.sh runs them)
                continue
            fi
            HOSTILE_LAUNCHED=$HOSTILE_LAUNCHED MPIRUN=$H/fake/mpirun GNUPLOT=true hrun "$R/$s" "${BW[@]}" "${args[@]}"
            if refused 2; then n_ref=$((n_ref + 1)); else note "$s ${args[*]}: exit $HRC, ${#HERR[@]} lines: $(head -c 160 "$H/err")"; fi
        done
    done < <(sed -n "/^RA_OPTSPEC='/,/'\$/p" "$R/$s" | sed -e "s/^RA_OPTSPEC='//" -e "s/'\$//")
}

for b in ra_opt ra_base torusmodel sparsest_cut ra_calibrate collbench; do sweep_binary "$b"; done
# plot.sh needs the sweep's CSV of part 1 (made with gnuplot there)
[ -s "$D/s w.csv" ] || { mkdir -p "$D"; "$R/sweep.sh" --no-calibrate -o "$D/s w.csv" -p 1 -k 10 -a ra_opt >/dev/null 2>&1; }
for s in hpcc_submission.sh sweep.sh compare.sh plot.sh plot_coll.sh; do sweep_script "$s"; done
if [ -z "$fails" ]; then
    ok "generated sweep: every option of the 6 binaries and 5 scripts x 11 values: $n_ref refused (exit 2, one line, no stdout, nothing left), $n_ok valid (--dry-run exit 0, silent), $n_skip valid for a script (it would run: skipped)"
else
    bad "generated sweep: $n_ref refused, $n_ok valid as expected; these were not:$fails"
fi

# every output option and stdout pointed at /dev/full: exit 3
full=""
nfull=0
for c in "torusmodel --write-params" "ra_opt --log2-table 10 --quiet --output" "ra_opt --log2-table 10 --quiet --json" \
    "ra_base --log2-table 10 --quiet --output" "ra_base --log2-table 10 --quiet --json" \
    "collbench --op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1 --csv" \
    "collbench --op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1 --json"; do
    read -r -a cmd <<<"$c"
    [ "${cmd[0]}" = torusmodel ] && cmd=(torusmodel --preset bgl-mpi --shape 8x8 --write-params)
    hrun "$B/${cmd[0]}" "${cmd[@]:1}" /dev/full
    if [ $HRC = 3 ] && [ ${#HERR[@]} = 1 ] && grep -q 'No space left on device' "$H/err" && w_empty; then nfull=$((nfull + 1)); else full="$full [${cmd[*]} /dev/full: exit $HRC $(head -c 120 "$H/err")]"; fi
    w_clean
done
for p in ra_opt ra_base torusmodel sparsest_cut ra_calibrate collbench "$R/hpcc_submission.sh" "$R/sweep.sh" \
    "$R/compare.sh" "$R/plot.sh" "$R/plot_coll.sh"; do
    case $p in /*) cmd=("$p" -h) ;; *) cmd=("$B/$p" --help) ;; esac
    for to in full closed; do
        if [ $to = full ]; then (cd "$W" && "${cmd[@]}" >/dev/full 2>"$H/err"); else (cd "$W" && "${cmd[@]}" >&- 2>"$H/err"); fi
        HRC=$?
        mapfile -t HERR <"$H/err"
        if [ $HRC = 3 ] && [ ${#HERR[@]} = 1 ] && [[ ${HERR[0]} == *"cannot write standard output: "* ]] && w_empty; then nfull=$((nfull + 1)); else full="$full [$(basename "$p") help, stdout $to: exit $HRC $(head -c 120 "$H/err")]"; fi
        w_clean
    done
done
if [ -z "$full" ]; then
    ok "every output option at /dev/full and every binary's and script's stdout at /dev/full or closed: exit 3, one line ($nfull cases)"
else
    bad "outputs at /dev/full:$full"
fi
