# suite_scripts.sh - the user's workflow: run_scripts (submission, sweep,
# plot, Slurm templates), --papi, --help/--version of every binary, install.
export MPIRUN # the scripts launch with the same mpirun as the tests
SHELL_FILES="run_scripts/*.sh run_scripts/slurm/*.sbatch hpcc/*.sh"

# Syntax, and shellcheck where installed.
bad_syntax=""
for f in $SHELL_FILES; do bash -n "$f" 2>/dev/null || bad_syntax="$bad_syntax $f"; done
[ -z "$bad_syntax" ] && ok "bash -n: every run script and sbatch template" || bad "bash -n failed:$bad_syntax"
if command -v shellcheck >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    if shellcheck -x $SHELL_FILES >"$TMP/sc" 2>&1; then ok "shellcheck -x: run scripts and sbatch templates clean"; else bad "shellcheck"; head -20 "$TMP/sc" | sed 's/^/    /'; fi
else
    echo "# shellcheck not installed: skipped (apt-get install shellcheck)"
fi

# --help lists every option with its default (entries may wrap onto
# indented lines); --version names the version on every binary.
VERSION=$(sed -n 's/^VERSION := //p' Makefile)
for b in ra_base ra_opt sparsest_cut torusmodel ra_calibrate; do
    missing=$(bin/$b --help 2>&1 | awk '
        function check() { if (e != "" && e !~ /default/ && e !~ /same as --/ && e !~ /^  (-h, )?--(help|version)/) print e }
        /^  (-[a-zA-Z], )?--/ { check(); e = $0; next }
        /^      / && e != "" { e = e " " $0; next }
        { check(); e = "" }
        END { check() }')
    nopt=$(bin/$b --help 2>&1 | grep -cE '^  (-[a-zA-Z], )?--')
    if [ -z "$missing" ] && [ "$nopt" -ge 3 ] && bin/$b --version 2>&1 | grep -q "^$b (hpcc-ra) $VERSION$"; then
        ok "$b --help: $nopt options, each with its default; --version $VERSION"
    else
        bad "$b --help/--version: options without a default: ${missing:-none}; version: $(bin/$b --version 2>&1 | head -1)"
    fi
done

# A tiny submission: both runs, six tests each, every HPCC Summary key.
rm -rf "$TMP/sub"
timeout -k 10 600 run_scripts/hpcc_submission.sh -n 2 -k 16 -t 0.05 -o "$TMP/sub" >"$TMP/subout" 2>&1
rc=$?
probs=""
for run in baseline optimized; do
    f=$TMP/sub/$run/hpccoutf.txt
    [ -s "$f" ] || { probs="$probs $run:no-file"; continue; }
    sum=$(sed -n '/^Begin of Summary section\./,/^End of Summary section\./p' "$f")
    nkeys=$(printf '%s\n' "$sum" | grep -c '=')
    [ "$nkeys" = 148 ] || probs="$probs $run:$nkeys-keys"
    v() { printf '%s\n' "$sum" | sed -n "s/^$1=//p"; }
    for g in "" _LCG; do
        [ "$(v MPIRandomAccess${g}_N)" = 65536 ] || probs="$probs $run:N$g"
        [ "$(v MPIRandomAccess${g}_Errors)" = 0 ] || probs="$probs $run:Errors$g"
        [ "$(v MPIRandomAccess${g}_ErrorsFraction)" = 0 ] || probs="$probs $run:ErrorsFraction$g"
        [ "$(v MPIRandomAccess${g}_TimeBound)" = 0.05 ] || probs="$probs $run:TimeBound$g"
        [ "$(v RandomAccess${g}_N)" = 32768 ] || probs="$probs $run:RandomAccess${g}_N"
        exe=$(v MPIRandomAccess${g}_ExeUpdates)
        { [ -n "$exe" ] && [ "$exe" -gt 0 ] && [ "$exe" -le 262144 ]; } || probs="$probs $run:ExeUpdates$g=$exe"
        for k in MPIRandomAccess${g}_GUPs MPIRandomAccess${g}_time MPIRandomAccess${g}_CheckTime StarRandomAccess${g}_GUPs SingleRandomAccess${g}_GUPs; do
            awk -v x="$(v "$k")" 'BEGIN { exit !(x + 0 > 0 && x + 0 < 1e6) }' || probs="$probs $run:$k=$(v "$k")"
        done
    done
    # HPCC's meaning: 0 = not one of its Sandia variants, which neither binary is
    [ "$(v MPIRandomAccess_Algorithm)" = 0 ] && [ "$(v MPIRandomAccess_LCG_Algorithm)" = 0 ] || probs="$probs $run:Algorithm"
    [ "$(v CommWorldProcs)" = 2 ] && [ "$(v Success)" = 1 ] && [ "$(v VersionMajor)" = 1 ] || probs="$probs $run:header-keys"
    for s in MPIRandomAccess StarRandomAccess SingleRandomAccess MPIRandomAccess_LCG StarRandomAccess_LCG SingleRandomAccess_LCG; do
        grep -q "^Begin of $s section\.$" "$f" && grep -q "^End of $s section\.$" "$f" || probs="$probs $run:section-$s"
    done
    grep -q '^End of HPC Challenge tests\.$' "$f" || probs="$probs $run:footer"
    grep -q '^Found 0 errors in 65536 locations (passed)\.$' "$f" || probs="$probs $run:found-line"
done
grep -q '^MPIRandomAccess_GUPs  *[0-9.e-]*  *[0-9.e-]*  *[0-9.]*$' "$TMP/sub/summary.txt" 2>/dev/null || probs="$probs summary.txt"
if [ $rc = 0 ] && [ -z "$probs" ]; then
    ok "hpcc_submission.sh -n 2 -k 16 -t 0.05: two hpccoutf.txt with 148 Summary keys, sane values, summary.txt side by side"
else
    bad "hpcc_submission.sh: rc=$rc problems:$probs"
    sed 's/^/    /' "$TMP/subout" | tail -15
fi
# (refused inputs: tests/lib.sh's expect_error, the tokens, not the sentence)
expect_error "hpcc_submission.sh -n 0" 2 "hpcc_submission.sh|-n|'0'|1..1048576" 0 run_scripts/hpcc_submission.sh -n 0
expect_error "LAUNCHER=qsub rejected naming mpirun|srun" 2 "hpcc_submission.sh|LAUNCHER|'qsub'|mpirun|srun" 0 \
    env LAUNCHER=qsub run_scripts/hpcc_submission.sh -n 2 -k 12 -o "$TMP/sub2"

# compare.sh on a tiny table: its rows and ratios; with HPCC installed (the
# Debian hpcc, Open MPI) also HPCC's own row, and our hpccoutf.txt against
# the one that real HPCC wrote: the same 148 Summary keys in the same order,
# the same RandomAccess sections in the same order, and each section's lines
# the same once numbers and times are set aside.
timeout -k 10 300 run_scripts/compare.sh -n 2 -k 14 --keep "$TMP/cmp" >"$TMP/cmpout" 2>&1
rc=$?
want="ceiling \(sum over ranks\) |star \(sum over ranks\) |ra_base |ra_opt \(2\) |ratio ra_opt/ceiling: [0-9.]+$|ratio ra_opt/ra_base: [0-9.]+$|ratio ra_opt/star: [0-9.]+$|ratio ra_base/star: [0-9.]+$|ratio star/ceiling: [0-9.]+$|ceiling_kernel: [a-z]+$|ceiling_depth: [0-9]+$|fingerprint: [0-9a-f]{16}$|errors: 0$|# model: |ra_base +[0-9.]+ +[0-9.]+ +[0-9.]+ +[a-z]+$|ra_opt \(2\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[a-z]+$"
have_hpcc=0
if command -v hpcc >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1; then
    have_hpcc=1
    want="$want|hpcc \(standard\) +[0-9.]+ +[0-9.]+ +- +-$|ratio ra_opt/hpcc \(standard\): [0-9.]+$|ratio hpcc \(standard\)/star: [0-9.]+$|ratio hpcc \(standard\)/ceiling: [0-9.]+$"
fi
missing=""
IFS='|' read -r -a pats <<<"$want"
for p in "${pats[@]}"; do grep -qE "^$p" "$TMP/cmpout" || missing="$missing [$p]"; done
# the model rows: a prediction above zero and never above its bound
above=$(sed -n '/^# model: ra_calibrate/,$p' "$TMP/cmpout" | awk '$NF ~ /^(cpu|network|memory)$/ && !($(NF-3) > 0 && $(NF-3) <= $(NF-1)) { print }')
[ -n "$above" ] && missing="$missing [prediction above bound: $above]"
if [ $rc = 0 ] && [ -z "$missing" ]; then
    ok "compare.sh -n 2 -k 14: ceiling, star, ra_base, ra_opt$([ $have_hpcc = 1 ] && echo ", HPCC's own MPIRandomAccess") rows and ratios, the model's prediction <= bound for both"
else
    bad "compare.sh -n 2 -k 14: rc=$rc missing:$missing"
    sed 's/^/    /' "$TMP/cmpout" | tail -12
fi
if [ $have_hpcc = 1 ] && [ -s "$TMP/cmp/hpcc1/hpccoutf.txt" ]; then
    real=$TMP/cmp/hpcc1/hpccoutf.txt
    rm -f "$TMP/ours.txt"
    # HPCC runs its standard algorithm under its 60 s time bound: the same here
    run_mpi 2 bin/ra_base --log2-table 14 --suite all --gen both --time-bound 60 --output "$TMP/ours.txt" --quiet
    rc=$?
    summary_keys() { sed -n '/^Begin of Summary section\./,/^End of Summary section\./p' "$1" | grep = | cut -d= -f1; }
    ra_sections() { grep -E '^Begin of [A-Za-z]*RandomAccess[A-Za-z_]* section\.$' "$1"; }
    # a section's lines without numbers and times: what HPCC says, in order
    shape_of() {
        sed -n "/^Begin of $2 section\./,/^End of $2 section\./p" "$1" | grep -v '^Current time' |
            sed -E 's/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/#/g'
    }
    probs=""
    diff <(summary_keys "$real") <(summary_keys "$TMP/ours.txt") >"$TMP/keydiff" || probs="$probs summary-keys($(grep -c '^[<>]' "$TMP/keydiff") lines differ)"
    [ "$(summary_keys "$real" | grep -c .)" = 148 ] || probs="$probs real-summary-not-148-keys"
    diff <(ra_sections "$real") <(ra_sections "$TMP/ours.txt") >/dev/null || probs="$probs section-order"
    for sec in MPIRandomAccess StarRandomAccess SingleRandomAccess MPIRandomAccess_LCG StarRandomAccess_LCG SingleRandomAccess_LCG; do
        diff <(shape_of "$real" $sec) <(shape_of "$TMP/ours.txt" $sec) >"$TMP/secdiff" || { probs="$probs $sec-lines"; sed 's/^/    /' "$TMP/secdiff" | head -6; }
    done
    # the values HPCC and we must agree on for this table and rank count
    for k in MPIRandomAccess_N MPIRandomAccess_LCG_N RandomAccess_N RandomAccess_LCG_N MPIRandomAccess_Errors \
        MPIRandomAccess_ExeUpdates MPIRandomAccess_TimeBound MPIRandomAccess_Algorithm CommWorldProcs Success \
        CPS_RA_SANDIA_NOPT CPS_RA_SANDIA_OPT2 MemSpec; do
        a=$(sed -n "s/^$k=//p" "$real")
        b=$(sed -n "s/^$k=//p" "$TMP/ours.txt")
        [ "$a" = "$b" ] || probs="$probs $k:hpcc=$a,ours=$b"
    done
    if [ $rc = 0 ] && [ -z "$probs" ]; then
        ok "hpccoutf.txt vs the Debian hpcc's (2 ranks, 2^14): same $(summary_keys "$real" | grep -c .) Summary keys in order, same 6 RandomAccess sections line for line, same N/ExeUpdates/TimeBound/Algorithm/Success"
    else
        bad "hpccoutf.txt vs the Debian hpcc's: rc=$rc problems:$probs"
        head -10 "$TMP/keydiff" | sed 's/^/    /'
    fi
else
    echo "# skip - hpccoutf.txt cross-check against HPCC: the Debian hpcc (and mpirun.openmpi) not installed (apt-get install hpcc)"
fi

# A 2x2 sweep: documented columns, one row per run, exact everywhere, resumable.
CSV_COLS="run_id,date,host,mpi_library,mpi_version,build,launcher,variant,np,requested_log2,rc,test,algorithm,ranks,generator,table_log2,table_words,updates,time_s,gups,errors,verify_time_s,cpu_time_s,fingerprint,time_bound_s,max_pending,sbf,mean_fill,hops_per_update,bytes_per_update,shape,huge_pages,status,papi_events,papi_tot_cyc,papi_tot_cyc_per_update,papi_tot_ins,papi_tot_ins_per_update,papi_l1_dcm,papi_l1_dcm_per_update,papi_l2_dcm,papi_l2_dcm_per_update,papi_tlb_dm,papi_tlb_dm_per_update,predicted_gups,measured_over_predicted,cpu_bound_gups,network_bound_gups,memory_bound_gups,bound_gups,binding,bound_exceeded"
csv=$TMP/sweep/s.csv
mkdir -p "$TMP/sweep"
timeout -k 10 600 run_scripts/sweep.sh -o "$csv" -p "1 2" -k "12 13" -a ra_opt >"$TMP/sw1" 2>&1
rc=$?
rows=$(($(wc -l <"$csv") - 1))
npass=$(awk -F, 'NR > 1 && $33 == "passed" && $21 == 0' "$csv" | wc -l)
nfp=$(awk -F, 'NR > 1 { print $16, $24 }' "$csv" | sort -u | wc -l) # one fingerprint per table size
lib_ok=$(awk -F, 'NR > 1 && ($4 == "unknown" || $5 == "unknown" || $6 == "unknown" || $3 == "")' "$csv" | wc -l)
if [ $rc = 0 ] && [ "$(head -1 "$csv")" = "$CSV_COLS" ] && [ $rows = 4 ] && [ "$npass" = 4 ] && [ "$nfp" = 2 ] && [ "$lib_ok" = 0 ] && [ -s "$TMP/sweep/s-params/np2_k13.params" ] &&
    [ "$(awk -F, 'NR > 1 && $45 + 0 > 0 && $46 + 0 > 0' "$csv" | wc -l)" = 4 ] &&
    [ "$(grep -c '^\[[1-4]/4\] ra_opt np=' "$TMP/sw1")" = 4 ]; then
    ok "sweep.sh 2x2: $rows rows with the documented $(head -1 "$csv" | tr ',' '\n' | wc -l) columns, verified, same fingerprint at 1 and 2 ranks, progress lines, a calibration and a prediction per point"
else
    bad "sweep.sh 2x2: rc=$rc rows=$rows passed=$npass fingerprints=$nfp unknown-fields=$lib_ok"
    tail -5 "$TMP/sw1" | sed 's/^/    /'
fi
# Each point is calibrated again after its runs, and a row's bounds are the
# larger of the two calibrations' (the binding one the smallest of those);
# its prediction is the first calibration's.
bounds_ok=0
while IFS=, read -r np k alg shape pred cpu net mem bnd bind; do
    pa=$TMP/sweep/s-params/np${np}_k$k.params pb=$TMP/sweep/s-params/np${np}_k$k.after.params
    [ -s "$pa" ] && [ -s "$pb" ] || continue
    ra=$(bin/torusmodel --params "$pa" --algorithm "$alg" --shape "$shape" 2>/dev/null)
    rb=$(bin/torusmodel --params "$pb" --algorithm "$alg" --shape "$shape" 2>/dev/null)
    awk -F': ' -v pred="$pred" -v cpu="$cpu" -v net="$net" -v mem="$mem" -v bnd="$bnd" -v bind="$bind" '
        function big(x) { return x == "unbounded" ? 1e300 : x + 0 }
        FNR == NR { a[$1] = $2; next }
        { b[$1] = $2 }
        END {
            c = big(a["cpu_bound_gups"]) > big(b["cpu_bound_gups"]) ? a["cpu_bound_gups"] : b["cpu_bound_gups"]
            n = big(a["network_bound_gups"]) > big(b["network_bound_gups"]) ? a["network_bound_gups"] : b["network_bound_gups"]
            m = big(a["memory_bound_gups"]) > big(b["memory_bound_gups"]) ? a["memory_bound_gups"] : b["memory_bound_gups"]
            lo = big(c) <= big(n) ? c : n; lo = big(lo) <= big(m) ? lo : m
            exit !(pred == a["predicted_gups"] && cpu == c && net == n && mem == m && bnd == lo &&
                   ((bind == "cpu" && bnd == c) || (bind == "network" && bnd == n) || (bind == "memory" && bnd == m)) &&
                   big(pred) <= big(bnd))
        }' <(printf '%s\n' "$ra") <(printf '%s\n' "$rb") && bounds_ok=$((bounds_ok + 1))
done < <(awk -F, 'NR > 1 { print $9 "," $10 ",routed," $31 "," $45 "," $47 "," $48 "," $49 "," $50 "," $51 }' "$csv")
[ "$bounds_ok" = 4 ] &&
    ok "sweep.sh: every point calibrated before and after its runs; each row's bounds the larger of the two, the prediction the first's and not above the bound" ||
    bad "sweep.sh before/after bounds: $bounds_ok of 4 rows agree with the two calibrations ($(ls "$TMP/sweep/s-params" | tr '\n' ' '))"
# Resume: nothing to do (the CSV stays byte for byte); then drop a row and
# only that run is made again (the other rows stay byte for byte).
cp "$csv" "$TMP/full"
run_scripts/sweep.sh -o "$csv" -p "1 2" -k "12 13" -a ra_opt >"$TMP/sw2" 2>&1
rc2=$?
cmp -s "$TMP/full" "$csv"
same2=$?
head -n -1 "$csv" >"$TMP/cut" && cp "$TMP/cut" "$csv"
run_scripts/sweep.sh -o "$csv" -p "1 2" -k "12 13" -a ra_opt >"$TMP/sw3" 2>&1
rc3=$?
if [ $rc2 = 0 ] && [ $same2 = 0 ] && [ $rc3 = 0 ] && cmp -s "$TMP/cut" <(head -n -1 "$csv") &&
    [ "$(($(wc -l <"$csv") - 1))" = 4 ] && [ "$(cut -d, -f1 "$csv" | sort | uniq -d | wc -l)" = 0 ]; then
    ok "sweep.sh resumes: a finished grid runs nothing (CSV unchanged); with one row removed it runs just that one"
else
    bad "sweep.sh resume: rc=$rc2/$rc3 unchanged=$same2 rows=$(($(wc -l <"$csv") - 1))"
fi
# issue 48, class 4: a measurement above its bound is flagged, never
# silent.  Every row of the sweep above: bound_exceeded is 1 exactly when
# gups > bound_gups.  Then sweep.sh and compare.sh against a torusmodel
# whose bounds are a millionth of its own (a stand-in RA_BIN): every model
# row flagged, in the CSV / as "inconsistent:" lines and on stderr.
bx_ok=$(awk -F, 'NR > 1 { over = ($50 != "" && $50 != "unbounded" && $20 + 0 > $50 + 0); if ($52 != over "") bad++; n++ }
                 END { print (n == 4 && !bad) }' "$csv")
[ "$bx_ok" = 1 ] && ok "sweep.sh: bound_exceeded is 1 exactly on the rows whose gups exceed bound_gups ($(awk -F, 'NR > 1 { printf "%s ", $52 }' "$csv"))" ||
    bad "sweep.sh bound_exceeded: $(awk -F, 'NR > 1 { print $20, $50, $52 }' "$csv" | tr '\n' ';')"
SB=$TMP/lowbound
mkdir -p "$SB"
for b in bin/* bin/.flavour; do ln -sf "$PWD/$b" "$SB/"; done
rm -f "$SB/torusmodel"
printf '#!/bin/sh\n"%s/bin/torusmodel" "$@" | awk '"'"'/^[a-z_]*bound_gups: [0-9]/ { sub(/: .*/, ": " ($2 + 0) * 1e-6 ""); } { print }'"'"' FS=": "\n' "$PWD" >"$SB/torusmodel"
chmod +x "$SB/torusmodel"
RA_BIN=$SB run_scripts/sweep.sh -o "$TMP/sweep/low.csv" -p 2 -k 12 -a ra_opt >"$TMP/lo1" 2>"$TMP/lo1e"
rc=$?
bcol=$(head -1 "$TMP/sweep/low.csv" | tr ',' '\n' | grep -nx bound_exceeded | cut -d: -f1)
if [ $rc = 0 ] && [ "$(awk -F, -v c="$bcol" 'NR > 1 && $c == 1' "$TMP/sweep/low.csv" | wc -l)" = 1 ] &&
    [ "$(grep -c '^sweep.sh: warning: ' "$TMP/lo1e")" = 1 ]; then
    ok "sweep.sh under bounds below the measurement: bound_exceeded 1 and one warning: $(grep -m1 warning "$TMP/lo1e" | cut -c1-120)"
else
    bad "sweep.sh under low bounds: rc $rc, column $bcol, $(tail -2 "$TMP/sweep/low.csv"); $(head -3 "$TMP/lo1e")"
fi
RA_BIN=$SB timeout -k 10 600 run_scripts/compare.sh -n 2 -k 12 --no-hpcc >"$TMP/cmplow" 2>"$TMP/cmplowe"
rc=$?
rows=$(awk '/^# run +predicted/ { m = 1; next } m && /^ra_/ { n++ } END { print n + 0 }' "$TMP/cmplow")
if [ $rc = 0 ] && [ "$rows" -ge 2 ] && [ "$(grep -c '^inconsistent: ' "$TMP/cmplow")" = "$rows" ] &&
    [ "$(grep -c '^compare.sh: warning: ' "$TMP/cmplowe")" = "$rows" ] &&
    [ "$(sed -n 's/^bound_exceeded: //p' "$TMP/cmplow")" = "$rows" ]; then
    ok "compare.sh under bounds below the measurement: all $rows model rows flagged (inconsistent: lines, warnings, bound_exceeded: $rows)"
else
    bad "compare.sh under low bounds: rc $rc, $rows rows, $(grep -c '^inconsistent: ' "$TMP/cmplow") flagged, $(grep bound_exceeded "$TMP/cmplow"); $(head -3 "$TMP/cmplowe")"
fi

# A failing run is recorded (status error) and retried next time, not duplicated.
run_scripts/sweep.sh --no-calibrate -o "$TMP/sweep/f.csv" -p 2 -k 12 -a ra_opt:--dims=3x3 >"$TMP/sw4" 2>&1
rc4=$?
cp "$TMP/sweep/f.csv" "$TMP/f4.csv"
run_scripts/sweep.sh --no-calibrate -o "$TMP/sweep/f.csv" -p 2 -k 12 -a ra_opt:--dims=3x3 >"$TMP/sw5" 2>&1
rc5=$?
# retried: the second sweep runs it again and fails again (exit 1; a row
# it skipped would leave nothing failed), with still one error row
if [ $rc4 = 1 ] && [ $rc5 = 1 ] &&
    [ "$(awk -F, 'NR > 1 && $33 == "error"' "$TMP/f4.csv" | wc -l)" = 1 ] &&
    [ "$(awk -F, 'NR > 1 && $33 == "error"' "$TMP/sweep/f.csv" | wc -l)" = 1 ]; then
    ok "sweep.sh: a failing run (--dims 3x3 on 2 ranks) gets one error row and is retried"
else
    bad "sweep.sh failing run: rc=$rc4/$rc5 $(tail -2 "$TMP/sw5")"
fi
expect_error "sweep.sh -k 99: one line naming 1..62" 2 "sweep.sh|-k|'99'|1..62" 0 run_scripts/sweep.sh -o "$TMP/sweep/x.csv" -k "12 99"

# Plots: PNGs when gnuplot is here; the install line when it is not.
if command -v gnuplot >/dev/null 2>&1; then
    run_scripts/plot.sh "$csv" -o "$TMP/plots" >"$TMP/pl" 2>&1
    rc=$?
    pngs=0
    for p in gups_vs_procs traffic_per_update; do
        [ -s "$TMP/plots/$p.png" ] && [ "$(head -c 4 "$TMP/plots/$p.png" | tail -c 3)" = PNG ] &&
            [ "$(stat -c %s "$TMP/plots/$p.png")" -gt 10000 ] && pngs=$((pngs + 1))
    done
    # (without bounds plot.sh says so on a "# plot.sh: " notice line)
    [ $rc = 0 ] && [ $pngs = 2 ] && ! grep -q '^# plot.sh: ' "$TMP/pl" &&
        ok "plot.sh: gups_vs_procs.png and traffic_per_update.png, with torusmodel bounds from the sweep's calibration" ||
        bad "plot.sh: rc=$rc pngs=$pngs $(cat "$TMP/pl")"
else
    echo "# gnuplot not installed: PNG check skipped (apt-get install gnuplot-nox)"
fi
expect_error "plot.sh without gnuplot: names apt-get install -y gnuplot-nox, exit 3" 3 "plot.sh|gnuplot|apt-get install -y gnuplot-nox" 0 \
    env GNUPLOT=no-such-gnuplot run_scripts/plot.sh "$csv" -o "$TMP/plots2"
expect_error "plot.sh on a non-CSV" 2 "plot.sh|'$TMP/sub/summary.txt'|sweep.sh" 0 run_scripts/plot.sh "$TMP/sub/summary.txt"

# --papi: counters where the machine has them, else one notice and exit 0.
built=$(bin/ra_opt --version | sed -n 's/^papi: //p')
for b in ra_base ra_opt; do
    run_mpi 2 bin/$b --log2-table 14 --papi --quiet
    rc=$?
    notices=$(grep -c "^$b: notice: --papi" "$TMP/err")
    if [ "$(key papi_events)" = none ]; then
        # No counters (this VM; or a build without PAPI): exactly one notice.
        [ $rc = 0 ] && [ "$notices" = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && [ "$(key errors)" = 0 ] &&
            ok "$b --papi without counters ($built): one notice line, run verified, exit 0: $(cut -c1-90 "$TMP/err")" ||
            bad "$b --papi: rc=$rc notices=$notices $(head -3 "$TMP/err")"
    else
        cyc=$(key papi_tot_cyc_per_update)
        [ $rc = 0 ] && awk -v c="${cyc:-0}" 'BEGIN { exit !(c > 0) }' &&
            ok "$b --papi counted: $(key papi_events), $cyc cycles/update" || bad "$b --papi counted: rc=$rc cycles/update=$cyc"
    fi
done
run_mpi 2 bin/ra_opt --log2-table 14 --papi PAPI_TOT_CYC,NO_SUCH_EVENT --quiet
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^ra_opt: notice: ' "$TMP/err")" = 1 ] && ok "--papi with an unknown event: one notice, exit 0" || bad "--papi unknown event: rc=$rc $(cat "$TMP/err")"
# (Open MPI adds its own abort banner to stderr: expect_error counts our line only.)
expect_error "--papi 'PAPI TOT': one line" 2 "ra_opt|'PAPI TOT'|--papi|PAPI_TOT_CYC" 2 bin/ra_opt --log2-table 14 --papi 'PAPI TOT' --quiet

# make install: binaries, libtorus.a, headers, scripts that find the binaries.
inst=$TMP/inst
if make --no-print-directory install MPI="$MPI" PAPI="${PAPI:-}" PREFIX="$inst" >"$TMP/inst.log" 2>&1; then
    miss=""
    for f in bin/ra_base bin/ra_opt bin/sparsest_cut bin/torusmodel bin/ra_calibrate lib/libtorus.a include/torus.h \
        include/torus_mpi.h share/hpcc-ra/run_scripts/sweep.sh share/hpcc-ra/run_scripts/common.sh \
        share/hpcc-ra/run_scripts/slurm/ra_opt.sbatch share/hpcc-ra/run_scripts/slurm/hpcc_submission.sbatch \
        bin/hpcc-ra-submission bin/hpcc-ra-sweep bin/hpcc-ra-plot; do
        [ -e "$inst/$f" ] || miss="$miss $f"
    done
    # The installed sweep must run the installed binaries, from anywhere.
    (cd "$TMP" && MPIRUN= "$inst/bin/hpcc-ra-sweep" --no-calibrate -o "$TMP/isw.csv" -p 2 -k 12 -a ra_base) >"$TMP/isw" 2>&1
    irc=$?
    if [ -z "$miss" ] && [ $irc = 0 ] && grep -q ',passed,' "$TMP/isw.csv" && "$inst/bin/ra_opt" --version | grep -q "^papi: $built$"; then
        ok "make install PREFIX=...: binaries, libtorus.a, torus headers, scripts; installed hpcc-ra-sweep runs the installed ra_base"
    else
        bad "make install: missing:${miss:-none} installed sweep rc=$irc $(tail -2 "$TMP/isw")"
    fi
else
    bad "make install failed: $(tail -3 "$TMP/inst.log")"
fi

# LAUNCHER=srun: the command line the scripts give srun (a stand-in srun that
# records its arguments and starts the ranks with this machine's mpirun).
mkdir -p "$TMP/fakebin"
cat >"$TMP/fakebin/srun" <<'EOF'
#!/bin/bash
echo "srun $*" >>"$FAKE_SRUN_LOG"
n=1
while [ $# -gt 0 ]; do
    case "$1" in -n) n=$2; shift 2 ;; -*) shift ;; *) break ;; esac
done
# shellcheck disable=SC2086
exec $MPIRUN $MPIRUN_FLAGS -n "$n" "$@"
EOF
chmod +x "$TMP/fakebin/srun"
FAKE_SRUN_LOG=$TMP/srun.log MPIRUN_FLAGS=$MPIRUN_FLAGS PATH="$TMP/fakebin:$PATH" LAUNCHER=srun \
    run_scripts/sweep.sh --no-calibrate -o "$TMP/srun.csv" -p 2 -k 12 -a ra_opt >"$TMP/o" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^srun -n 2 --cpu-bind=cores --distribution=block:block .*/ra_opt --log2-table 12" "$TMP/srun.log" &&
    grep -q ',srun,ra_opt,2,12,0,' "$TMP/srun.csv"; then
    ok "LAUNCHER=srun: srun -n 2 --cpu-bind=cores --distribution=block:block, recorded in the CSV"
else
    bad "LAUNCHER=srun: rc=$rc $(cat "$TMP/srun.log" 2>/dev/null) $(tail -2 "$TMP/o")"
fi

# ---- issue 33, class 3: scripts that keep earlier results ----------------
# Every script writes into an output folder (or a CSV) whose path holds a
# blank and a quote; a re-run into it that is refused (by the dry-run, or
# at launch: -k 40 passes --dry-run=2, the memory check at the start
# refuses it) leaves every earlier file byte-identical; a failed run keeps
# its files beside them; sweep.sh's logs are one per variant.
Q="$TMP/out dir 'q'"
mkdir -p "$Q"
# tree_sums DIR: every file under DIR (hidden ones too) with its checksum
tree_sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); }
# same_tree DIR SUMS: DIR holds exactly the files of SUMS, byte-identical
same_tree() { [ "$(tree_sums "$1")" = "$2" ]; }
# a bin folder (a blank and a quote in its path too) whose programs run the
# real ones, then exit 1 when named in FAKE_FAIL (a run that failed after
# writing its files); --dry-run answers as the real one does
FB="$TMP/fake bin 'q'"
mkdir -p "$FB"
cat >"$FB/fake" <<'EOS'
#!/bin/bash
p=$(basename "$0")
"$REAL_BIN/$p" "$@"
rc=$?
case " $* " in *" --dry-run"*) exit $rc ;; esac
case " ${FAKE_FAIL:-} " in *" $p "*) exit 1 ;; esac
exit $rc
EOS
chmod +x "$FB/fake"
for b in ra_base ra_opt ra_calibrate torusmodel collbench; do ln -sf fake "$FB/$b"; done
cp bin/.flavour "$FB/.flavour"
export REAL_BIN=$PWD/bin

# hpcc_submission.sh: a run, then refused re-runs, a failed one, a new one
sub="$Q/sub"
run_scripts/hpcc_submission.sh -n 2 -k 12 -t 0.05 -o "$sub" >"$TMP/k1" 2>&1
rc1=$?
S=$(tree_sums "$sub")
run_scripts/hpcc_submission.sh -n 2 -k 40 -t 0.05 -o "$sub" >"$TMP/k2" 2>&1
rc2=$?
same_tree "$sub" "$S" && k2=same || k2=changed
run_scripts/hpcc_submission.sh -n 2 -k 12 -t 0.05 -o "$sub" -O "--dims 3x3" >"$TMP/k3" 2>&1
rc3=$?
same_tree "$sub" "$S" && k3=same || k3=changed
run_scripts/hpcc_submission.sh -n 2 -k 40 -t 0.05 -o "$Q/sub new" >"$TMP/k4" 2>&1
rc4=$?
RA_BIN=$FB FAKE_FAIL=ra_opt run_scripts/hpcc_submission.sh -n 2 -k 13 -t 0.05 -o "$sub" >"$TMP/k5" 2>&1
rc5=$?
failed=$(find "$sub" -maxdepth 1 -name 'failed-*' | head -1)
# (the notice names it, its random tail maybe cut short: ra_show)
k5=changed
[ "$(tree_sums "$sub" | grep -v ' \./failed-')" = "$S" ] && k5=same
run_scripts/hpcc_submission.sh -n 2 -k 13 -t 0.05 -o "$sub" >"$TMP/k6" 2>&1
rc6=$?
if [ $rc1 = 0 ] && [ $rc2 = 3 ] && [ $k2 = same ] && [ $rc3 = 2 ] && [ $k3 = same ] && [ $rc4 = 3 ] && [ ! -e "$Q/sub new" ] &&
    [ $rc5 = 1 ] && [ $k5 = same ] && [ -n "$failed" ] && grep -q '^MPIRandomAccess_N=8192$' "$failed/optimized/hpccoutf.txt" &&
    grep "^hpcc_submission.sh: " "$TMP/k5" | grep -qF -- "$(basename "${failed%.*}")" && [ $rc6 = 0 ] && grep -q '^MPIRandomAccess_N=8192$' "$sub/optimized/hpccoutf.txt" &&
    grep -q '^MPIRandomAccess_N=8192$' "$sub/baseline/hpccoutf.txt" && [ -z "$(find "$sub" -name '.ra-*')" ]; then
    ok "hpcc_submission.sh -o \"out dir 'q'/sub\": a re-run refused at launch (-k 40) or by --dry-run=2 (-O '--dims 3x3') keeps all $(printf '%s\n' "$S" | wc -l) files byte-identical (sha256), a new folder is not made; a failed run (exit 1) goes to failed-*/, a verified one replaces them"
else
    bad "hpcc_submission.sh keeping results: rc=$rc1/$rc2/$rc3/$rc4/$rc5/$rc6 refused:$k2/$k3 failed:$k5 ${failed:-no failed-*} $(tail -2 "$TMP/k5")"
fi

# sweep.sh: log names unique per variant; a failing variant's log survives
mkdir -p "$TMP/maps"
printf '0\n1\n' >"$TMP/maps_m2"
printf '0 0\n0 1\n1 0\n1 1\n' >"$TMP/maps/m2" # 2-D coordinates: refused at 2 ranks by the launch
v_fail="ra_opt:--map=$TMP/maps/m2" v_pass="ra_opt:--map=$TMP/maps_m2"
old_name() { echo "$1|2|12|lfsr" | tr '|:/=' '____'; } # the names before issue 33
scsv="$Q/sw/s.csv"
mkdir -p "$Q/sw"
run_scripts/sweep.sh --no-calibrate -o "$scsv" -p 2 -k 12 -a "$v_fail $v_pass ra_opt:--dims=2x1 ra_opt:--dims:2x1" >"$TMP/w1" 2>&1
rc1=$?
logs="$Q/sw/s-logs"
nlogs=$(find "$logs" -name '*.txt' | wc -l)
logof() { grep -l -- "$1" "$logs"/*.txt 2>/dev/null | head -1; }
# the failing run's log: the one log holding a line of ra_opt's (its
# error), which the sweep's FAILED line names
flog=$(grep -l '^ra_opt: ' "$logs"/*.txt 2>/dev/null)
[ "$(printf '%s\n' "$flog" | grep -c .)" = 1 ] && grep -qF -- "$flog" "$TMP/w1" || flog=""
# map_refused LOG: the error row's exit code and the log's one line of
# ra_opt's, naming the mapping file and its line
map_refused() { error_ok 2 "ra_opt|'$TMP/maps/m2'|line 1" "$(awk -F, 'NR > 1 && $33 == "error" { print $11 }' "$scsv")" "$1"; }
S=$(tree_sums "$Q/sw")
run_scripts/sweep.sh --no-calibrate -o "$scsv" -p 2 -k 99 -a ra_opt >"$TMP/w2" 2>&1
rc2=$?
same_tree "$Q/sw" "$S" && w2=same || w2=changed
run_scripts/sweep.sh --no-calibrate -o "$scsv" -p 2 -k 12 -a ra_opt -- --bogus >"$TMP/w3" 2>&1
rc3=$?
same_tree "$Q/sw" "$S" && w3=same || w3=changed
if [ "$(old_name "$v_fail")" = "$(old_name "$v_pass")" ] && [ "$(old_name ra_opt:--dims=2x1)" = "$(old_name ra_opt:--dims:2x1)" ] &&
    [ $rc1 = 1 ] && [ "$nlogs" = 4 ] && [ -s "$flog" ] && map_refused "$flog" &&
    [ "$(awk -F, 'NR > 1 && $33 == "passed"' "$scsv" | wc -l)" = 3 ] && [ "$(awk -F, 'NR > 1 && $33 == "error"' "$scsv" | wc -l)" = 1 ] &&
    [ $rc2 = 2 ] && [ $w2 = same ] && [ $rc3 = 2 ] && [ $w3 = same ]; then
    ok "sweep.sh: variants the old log names merged (--map=.../maps/m2 vs .../maps_m2, --dims=2x1 vs --dims:2x1) get 4 logs (slug + SHA-256 of the run id); the failing one's log ($(basename "$flog" | cut -c1-40)...) keeps its error; refused re-runs (-k 99, -- --bogus) leave CSV and logs byte-identical"
else
    bad "sweep.sh log names: rc=$rc1/$rc2/$rc3 logs=$nlogs failing log=${flog:-none} refused:$w2/$w3 $(tail -3 "$TMP/w1")"
fi
# a retried failing run leaves the passing rows and their logs as they were;
# a calibration that fails leaves the earlier params file whole
passing=$(awk -F, 'NR > 1 && $11 == 0' "$scsv")
plogs=$(tree_sums "$logs" | grep -v -F "$(basename "$flog")")
run_scripts/sweep.sh --no-calibrate -o "$scsv" -p 2 -k 12 -a "$v_fail $v_pass ra_opt:--dims=2x1 ra_opt:--dims:2x1" >"$TMP/w4" 2>&1
rc4=$?
ccsv="$Q/cal/c.csv"
mkdir -p "$Q/cal"
run_scripts/sweep.sh -o "$ccsv" -p 1 -k 12 -a ra_base >"$TMP/w5" 2>&1
rc5=$?
P=$(tree_sums "$Q/cal/c-params")
RA_BIN=$FB FAKE_FAIL=ra_calibrate run_scripts/sweep.sh -o "$ccsv" -p 1 -k 12 -a "ra_base ra_opt" >"$TMP/w6" 2>&1
rc6=$?
if [ $rc4 = 1 ] && [ "$(awk -F, 'NR > 1 && $11 == 0' "$scsv")" = "$passing" ] &&
    [ "$(tree_sums "$logs" | grep -v -F "$(basename "$flog")")" = "$plogs" ] && map_refused "$flog" &&
    [ $rc5 = 0 ] && [ -n "$P" ] && [ $rc6 = 0 ] && [ "$(tree_sums "$Q/cal/c-params")" = "$P" ] && grep -q '^# calibration at ' "$TMP/w6" &&
    [ "$(awk -F, 'NR > 1 && $11 == 0 && $45 + 0 > 0' "$ccsv" | wc -l)" = 2 ]; then
    ok "sweep.sh: a retried failing run leaves the passing rows and logs byte-identical; a failed calibration under \"out dir 'q'\" keeps the earlier params files (both rows predicted)"
else
    bad "sweep.sh retry/calibration: rc=$rc4/$rc5/$rc6 $(tail -2 "$TMP/w6")"
fi

# compare.sh --keep: refused at launch (-k 40) or by --dry-run, failed, new
cmp="$Q/cmp"
run_scripts/compare.sh -n 2 -k 12 --no-hpcc --no-model --keep "$cmp" >"$TMP/c1" 2>&1
rc1=$?
S=$(tree_sums "$cmp")
run_scripts/compare.sh -n 2 -k 40 --no-hpcc --no-model --keep "$cmp" >"$TMP/c2" 2>&1
rc2=$?
same_tree "$cmp" "$S" && c2=same || c2=changed
run_scripts/compare.sh -n 2 -k 12 --no-hpcc --no-model --keep "$cmp" -- --dims 3x3 >"$TMP/c3" 2>&1
rc3=$?
same_tree "$cmp" "$S" && c3=same || c3=changed
RA_BIN=$FB FAKE_FAIL=ra_base run_scripts/compare.sh -n 2 -k 13 --no-hpcc --no-model --keep "$cmp" >"$TMP/c4" 2>&1
rc4=$?
c4=changed
[ "$(tree_sums "$cmp" | grep -v ' \./failed-')" = "$S" ] && c4=same
run_scripts/compare.sh -n 2 -k 13 --no-hpcc --no-model --keep "$cmp" >"$TMP/c5" 2>&1
rc5=$?
if [ $rc1 = 0 ] && [ -n "$S" ] && [ $rc2 = 3 ] && [ $c2 = same ] && [ $rc3 = 2 ] && [ $c3 = same ] && [ $rc4 != 0 ] && [ $c4 = same ] &&
    [ $rc5 = 0 ] && grep -q '^table_log2: 13$' "$cmp/opt" && [ -z "$(find "$cmp" -name '.ra-*')" ]; then
    ok "compare.sh --keep \"out dir 'q'/cmp\": refused re-runs (-k 40 at launch, -- --dims 3x3) and a failed one keep the earlier outputs byte-identical; a run that ends well replaces them"
else
    bad "compare.sh --keep: rc=$rc1/$rc2/$rc3/$rc4/$rc5 $c2/$c3/$c4 $(tail -2 "$TMP/c4")"
fi

# plot.sh and plot_coll.sh: PNGs under "out dir 'q'", kept on refusal or a failed gnuplot
if command -v gnuplot >/dev/null 2>&1; then
    pl="$Q/plots"
    run_scripts/plot.sh "$scsv" -o "$pl" >"$TMP/p1" 2>&1
    rc1=$?
    S=$(tree_sums "$pl")
    run_scripts/plot.sh "$scsv" -o "$pl" -k 13 >"$TMP/p2" 2>&1
    rc2=$?
    same_tree "$pl" "$S" && p2=same || p2=changed
    GNUPLOT=false run_scripts/plot.sh "$scsv" -o "$pl" >"$TMP/p3" 2>&1
    rc3=$?
    same_tree "$pl" "$S" && p3=same || p3=changed
    bin/collbench --simulate 2x2 --op barrier,bcast --sizes 8:64 --csv "$Q/c.csv" >/dev/null 2>&1
    pc="$Q/coll plots"
    run_scripts/plot_coll.sh "$Q/c.csv" "$pc" >"$TMP/p4" 2>&1
    rc4=$?
    C=$(tree_sums "$pc")
    GNUPLOT=false run_scripts/plot_coll.sh "$Q/c.csv" "$pc" >"$TMP/p5" 2>&1
    rc5=$?
    same_tree "$pc" "$C" && p5=same || p5=changed
    run_scripts/plot_coll.sh "$scsv" "$pc" >"$TMP/p6" 2>&1
    rc6=$?
    same_tree "$pc" "$C" && p6=same || p6=changed
    if [ $rc1 = 0 ] && [ "$(printf '%s\n' "$S" | grep -c '\.png$')" = 2 ] && [ $rc2 = 2 ] && [ $p2 = same ] && [ $rc3 = 3 ] && [ $p3 = same ] &&
        [ $rc4 = 0 ] && [ "$(printf '%s\n' "$C" | grep -c '\.png$')" = 3 ] && [ $rc5 = 3 ] && [ $p5 = same ] && [ $rc6 = 2 ] && [ $p6 = same ]; then
        ok "plot.sh and plot_coll.sh under \"out dir 'q'\": 2 and 3 PNGs; a refused re-run (-k 13, a sweep CSV for plot_coll) or a failed gnuplot keeps them byte-identical"
    else
        bad "plot scripts keeping results: rc=$rc1/$rc2/$rc3/$rc4/$rc5/$rc6 $p2/$p3/$p5/$p6 $(tail -1 "$TMP/p1" "$TMP/p4")"
    fi
else
    echo "# skip - plot scripts keeping results: gnuplot not installed (apt-get install gnuplot-nox)"
fi

# the Slurm templates: RA_HOME, OUTDIR and CSV with a blank and a quote;
# the submission refused at launch (MEM=1T passes --dry-run=2) keeps the
# earlier files, ra_opt.sbatch refused keeps its earlier output file
home="$TMP/home dir 'q'"
ln -sfn "$PWD" "$home"
S=$(tree_sums "$sub")
(cd "$Q" && SLURM_SUBMIT_DIR=$home SLURM_NTASKS=2 SLURM_JOB_ID=7 OUTDIR=$sub MEM=1T FAKE_SRUN_LOG=$TMP/srun2.log \
    MPIRUN_FLAGS=$MPIRUN_FLAGS PATH="$TMP/fakebin:$PATH" bash "$home/run_scripts/slurm/hpcc_submission.sbatch") >"$TMP/b1" 2>&1
rc1=$?
same_tree "$sub" "$S" && b1=same || b1=changed
(cd "$Q" && SLURM_SUBMIT_DIR=$home SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=8 NPS=2 SIZES=12 VARIANTS=ra_base CALIBRATE=0 CSV="$Q/slurm/s.csv" \
    FAKE_SRUN_LOG=$TMP/srun2.log MPIRUN_FLAGS=$MPIRUN_FLAGS PATH="$TMP/fakebin:$PATH" bash "$home/run_scripts/slurm/sweep.sbatch") >"$TMP/b2" 2>&1
rc2=$?
mkdir -p "$Q/slurm"
echo "an earlier run" >"$Q/slurm/ra_opt-9.hpccoutf.txt"
(cd "$Q/slurm" && SLURM_SUBMIT_DIR=$home SLURM_NTASKS=2 SLURM_JOB_ID=9 SLURM_JOB_NUM_NODES=1 SLURM_JOB_NODELIST=x RA_ARGS="--log2-table 40" \
    FAKE_SRUN_LOG=$TMP/srun2.log MPIRUN_FLAGS=$MPIRUN_FLAGS PATH="$TMP/fakebin:$PATH" bash "$home/run_scripts/slurm/ra_opt.sbatch") >"$TMP/b3" 2>&1
rc3=$?
if [ $rc1 = 3 ] && [ $b1 = same ] && [ $rc2 = 0 ] && grep -q ',passed,' "$Q/slurm/s.csv" &&
    { ! command -v gnuplot >/dev/null 2>&1 || [ -s "$Q/slurm/gups_vs_procs.png" ]; } &&
    [ $rc3 = 3 ] && [ "$(cat "$Q/slurm/ra_opt-9.hpccoutf.txt")" = "an earlier run" ]; then
    ok "slurm templates from RA_HOME \"home dir 'q'\" into \"out dir 'q'\": hpcc_submission.sbatch refused at launch (MEM=1T) keeps the earlier files, sweep.sbatch sweeps and plots, ra_opt.sbatch refused keeps its earlier output"
else
    bad "slurm templates with blanks and quotes: rc=$rc1/$rc2/$rc3 $b1 $(tail -2 "$TMP/b1" "$TMP/b2" "$TMP/b3")"
fi
