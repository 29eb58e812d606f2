#!/bin/bash
# run_scripts/sweep.sh - a grid of runs into one CSV, resumable.
#
# Grid: process counts x table sizes x variants (an algorithm and its options,
# e.g. ra_opt:--dims=flat).  Each run appends one CSV row: every field of the
# MPI test's key block, plus run_id, date, host, MPI library and version, the
# build, launcher, variant and exit code.  A run whose run_id is already in
# the CSV (and did not fail) is skipped, so an interrupted sweep continues
# where it stopped; failed runs are retried.  Before the first run at each
# process count and table size it calibrates torusmodel's parameters there
# (ra_calibrate --quick at that rank count and table: node rate, t_local,
# t_hop, message costs with the ranks sharing the node), and each row carries
# torusmodel's prediction and bounds for its run: predicted_gups,
# measured_over_predicted, the CPU, network and memory bounds and which binds
# (routed model for ra_opt on the shape it chose, direct for ra_base), and
# bound_exceeded: 1 when the run measured more than that bound, an
# inconsistency (issue 48, class 4) also said on stderr, never silent.
# The prediction comes from the calibration before the runs.  The bounds are
# measured rates (the best a kernel reached), and this machine's rate drifts
# a few percent between minutes, so after a point's runs it calibrates once
# more and each bound is the better of the two: a run of minutes then sits
# between two measurements of its bound, not above one taken in a slow
# minute.  The point's rows are written at once and their model columns
# rewritten after that second calibration.
set -u
RA_SCRIPT=sweep.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
ra_guard_stdout

KEY_COLS="test,algorithm,ranks,generator,table_log2,table_words,updates,time_s,gups,errors,verify_time_s,cpu_time_s,fingerprint,time_bound_s,max_pending,sbf,mean_fill,hops_per_update,bytes_per_update,shape,huge_pages,status,papi_events,papi_tot_cyc,papi_tot_cyc_per_update,papi_tot_ins,papi_tot_ins_per_update,papi_l1_dcm,papi_l1_dcm_per_update,papi_l2_dcm,papi_l2_dcm_per_update,papi_tlb_dm,papi_tlb_dm_per_update"
RUN_COLS="run_id,date,host,mpi_library,mpi_version,build,launcher,variant,np,requested_log2,rc"
MODEL_COLS="predicted_gups,measured_over_predicted,cpu_bound_gups,network_bound_gups,memory_bound_gups,bound_gups,binding,bound_exceeded"
CSV_HEADER="$RUN_COLS,$KEY_COLS,$MODEL_COLS"

default_nps() {
    local n=1 max
    max=$(nproc)
    [ "$max" -lt 2 ] && max=2
    local out=""
    while [ $n -le "$max" ]; do out="$out $n"; n=$((n * 2)); done
    echo "${out# }"
}

usage() {
    cat <<EOF
usage: $0 [options] [-- extra options for every run]
  -o FILE      CSV to write or resume [default: sweep.csv]
  -p LIST      process counts, e.g. "1 2 4 8" [default: powers of two to nproc: $(default_nps)]
  -k LIST      table sizes as log2 words, e.g. "20 22 24" [default: "20 22"]
  -a LIST      variants: ra_base, ra_opt, or ra_opt:OPT:OPT... with options like
               --dims=flat, --dims=hypercube, --outstanding=8 [default: "ra_base ra_opt"]
  -g GEN       lfsr or lcg [default: lfsr]
  -h           this help
  --papi       add --papi to every run (the CSV's papi_ columns)
  --timeout S  stop a run after S seconds, 0 = never [default: 0]
  --no-calibrate  skip the ra_calibrate runs and leave the model columns empty
  --params-dir DIR  the calibrations, one params file per process count and
               size [default: CSV name with -params/]
environment (docs/settings.md): LAUNCHER=mpirun|srun [mpirun], MPIRUN
  [matches the build], LAUNCHER_ARGS [none], RA_BIN [bin/]
Logs of each run: CSV name with -logs/, one file per run named by its
run_id (the CSV's first column): a slug of it, '-', the first 12 hex digits
of its SHA-256, ".txt".  Every option and variant is
checked (the binaries' own options by their --dry-run) before anything is
made or run; a run the ranks refuse (e.g. --dims=4x4 at 2) is a failed row.
exit: 0 all rows done, 1 some run failed (its row has status error and is
retried next time), 2 usage (nothing written), 3 a file could not be written
EOF
}

# every value from its option alone (sweep.sbatch turns its sbatch --export
# variables NPS, SIZES, VARIANTS, CSV, TIMEOUT, PAPI, CALIBRATE into these
# options)
CSV=sweep.csv
NPS=$(default_nps)
SIZES="20 22"
VARIANTS="ra_base ra_opt"
GEN=lfsr
PAPI=0 TIMEOUT=0 NO_CALIBRATE=0 PARAMS_DIR=""
RA_OPTSPEC='-o name CSV
-p uints:1:1048576 NPS
-k uints:1:62 SIZES
-a text VARIANTS
-g choice:lfsr,lcg GEN
--papi flag PAPI
--timeout uint:0:100000000 TIMEOUT
--no-calibrate flag NO_CALIBRATE
--params-dir name PARAMS_DIR
-h help -'
ra_parse_opts "$@"
[ ${#RA_ARGS[@]} = 0 ] || ra_die "unexpected argument '$(ra_show "${RA_ARGS[0]}")': allowed options, then -- and options for every run"
EXTRA=(${RA_REST[@]+"${RA_REST[@]}"})

# the values, before anything is made or run
ra_check "-o" name "$CSV"
ra_check "-p" uints:1:1048576 "$NPS"
ra_check "-k" uints:1:62 "$SIZES"
ra_check "-a" text "$VARIANTS"
ra_check "-g" choice:lfsr,lcg "$GEN"
ra_check "--timeout" uint:0:100000000 "$TIMEOUT"
read -r -a NP_LIST <<<"$NPS"
read -r -a K_LIST <<<"$SIZES"
read -r -a V_LIST <<<"$VARIANTS"
for v in "${V_LIST[@]}"; do
    case "${v%%:*}" in ra_base | ra_opt) ;; *) ra_die "-a variant '$(ra_show "$v")' is not valid: allowed ra_base or ra_opt, then :OPTION... (e.g. ra_opt:--dims=flat)" ;; esac
    case "$v" in *,*) ra_die "-a variant '$(ra_show "$v")' is not valid: no commas or blanks; join options with ':' and use --opt=value" ;; esac
done

ra_find_bin
# every variant's options and the options for every run, checked by the
# binary itself (what depends on the ranks, e.g. --dims=4x4 at 2, is a
# failed row of that point, not a refused sweep)
for v in "${V_LIST[@]}"; do
    vargs=()
    [ "$v" != "${v%%:*}" ] && IFS=: read -r -a vargs <<<"${v#*:}"
    [ "$PAPI" = 1 ] && vargs+=(--papi)
    ra_dry_run "${v%%:*}" "" --log2-table "${K_LIST[0]}" --gen "$GEN" --no-progress ${vargs[@]+"${vargs[@]}"} \
        ${EXTRA[@]+"${EXTRA[@]}"}
done
base=${CSV%.csv}
LOGS=$base-logs
[ -n "$PARAMS_DIR" ] || PARAMS_DIR=$base-params
ra_check "--params-dir" name "$PARAMS_DIR"
if [ -s "$CSV" ]; then
    [ "$(head -1 "$CSV")" = "$CSV_HEADER" ] ||
        ra_die "$(ra_show "$CSV") has other columns than this sweep.sh writes: allowed a CSV from this version (choose a new -o FILE)"
fi
ra_out_dir "-o" "$(dirname -- "$CSV")"
ra_out_dir "the logs folder" "$LOGS"
[ "$NO_CALIBRATE" = 0 ] && ra_out_dir "--params-dir" "$PARAMS_DIR"
[ -e "$CSV" ] && [ ! -f "$CSV" ] && [ ! -c "$CSV" ] && ra_bad "-o" "$CSV" "a CSV file (it is a folder)"

mkdir -p "$LOGS" || { echo "$RA_SCRIPT: error: cannot create $LOGS" >&2; exit 3; }
if [ "$NO_CALIBRATE" = 0 ]; then
    mkdir -p "$PARAMS_DIR" || { echo "$RA_SCRIPT: error: cannot create $PARAMS_DIR" >&2; exit 3; }
fi
if [ -s "$CSV" ]; then
    nerr=$(awk -F, 'NR > 1 && $11 != 0' "$CSV" | wc -l)
    if [ "$nerr" -gt 0 ]; then
        echo "# $nerr failed run(s) in $CSV will be retried"
        awk -F, 'NR == 1 || $11 == 0' "$CSV" | ra_atomic_write "$CSV" ||
            { echo "$RA_SCRIPT: error: cannot write $CSV" >&2; exit 3; }
    fi
else
    echo "$CSV_HEADER" | ra_atomic_write "$CSV" || { echo "$RA_SCRIPT: error: cannot write $CSV" >&2; exit 3; }
fi

# log_name RUN_ID: the log file of that run: a readable slug of the run id
# (every byte but letters, digits and ._=- made '_', at most 80) and the
# first 12 hex digits of the SHA-256 of the exact run id, so two variants
# whose slugs agree (ra_opt:--map=a/b, ra_opt:--map=a_b) never share a log
log_name() {
    local slug h
    slug=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._=-' '_' | cut -c1-80)
    h=$(printf '%s' "$1" | sha256sum | cut -c1-12)
    printf '%s-%s.txt' "$slug" "$h"
}

# calibrate NP K [after]: the params file of that point (made once, at NP
# ranks and table 2^K, so the model sees the run's ranks per node and table
# share; with "after", made anew after the point's runs); prints its path,
# or nothing when calibration is off or failed.
calibrate() {
    local np=$1 k=$2 sfx=${3:+.$3}
    local f="$PARAMS_DIR/np$1_k$2$sfx.params" log="$LOGS/calibrate_np${np}_k$k$sfx.txt"
    [ "$NO_CALIBRATE" = 0 ] || return 0
    if [ ! -s "$f" ] || [ -n "$sfx" ]; then
        ra_launcher "$np"
        # written beside, renamed over the earlier file only when it
        # succeeded: a failed calibration leaves the earlier one whole
        local new="$PARAMS_DIR/.np$1_k$2$sfx.params.new"
        if ! "${RA_LAUNCH[@]}" "$RA_BIN/ra_calibrate" --quick --log2-table "$k" --output "$new" >"$log" 2>&1 ||
            [ ! -s "$new" ] || ! mv -f -- "$new" "$f"; then
            rm -f -- "$new"
            if [ -s "$f" ]; then
                echo "# calibration at np=$np 2^$k${3:+ ($3 the runs)} failed (see $log): the earlier $f kept" >&2
            else
                echo "# calibration at np=$np 2^$k${3:+ ($3 the runs)} failed (see $log): ${3:+bounds from the first only}${3:-no prediction}" >&2
                return 0
            fi
        fi
    fi
    echo "$f"
}

# predict PARAMS PARAMS2 ALGORITHM SHAPE GUPS: the model columns of one
# row.  The prediction is PARAMS's; each bound is the larger of the two
# files' (PARAMS2 may be empty), the binding one the smallest of those;
# bound_exceeded 1 when GUPS is above it (bound_check says so).
predict() {
    local empty=",,,,,,,"
    if [ -z "$1" ] || [ -z "$4" ] || [ "$4" = - ]; then
        echo "$empty"
        return
    fi
    local r r2=""
    r=$("$RA_BIN/torusmodel" --params "$1" --algorithm "$3" --shape "$4" 2>/dev/null) || { echo "$empty"; return; }
    if [ -n "$2" ]; then
        r2=$("$RA_BIN/torusmodel" --params "$2" --algorithm "$3" --shape "$4" 2>/dev/null | sed 's/^/2:/') || r2=""
    fi
    printf '%s\n%s\n' "$r" "$r2" | awk -v g="$5" -F': ' '
        function big(x) { return x == "unbounded" ? 1e300 : x + 0 }
        function better(k) {
            if (!(("2:" k) in v) || big(v["2:" k]) <= big(v[k])) return v[k]
            return v["2:" k]
        }
        { v[$1] = $2 }
        END {
            p = v["predicted_gups"]
            ratio = (p + 0 > 0 && g != "") ? sprintf("%.4f", g / p) : ""
            c = better("cpu_bound_gups"); n = better("network_bound_gups"); m = better("memory_bound_gups")
            b = c; bind = "cpu"
            if (big(n) < big(b)) { b = n; bind = "network" }
            if (big(m) < big(b)) { b = m; bind = "memory" }
            over = (g != "" && b != "" && b != "unbounded" && b + 0 > 0 && g + 0 > b + 0)
            printf "%s,%s,%s,%s,%s,%s,%s,%d\n", p, ratio, c, n, m, b, bind, over
        }'
}

# bound_check TAG GUPS MODEL: a row whose measurement is above its bound
# (its model columns MODEL) is said on stderr (ra_over_bound)
bound_check() {
    local b bind over
    IFS=, read -r _ _ _ _ _ b bind over <<<"$3"
    [ "$over" = 1 ] && ra_over_bound "$1" "$2" "$b" "$bind"
    return 0
}

# row_model PARAMS PARAMS2 PROG NP SHAPE GUPS: predict's columns for a run
# of PROG: the routed model on ra_opt's shape, the direct one (NP ranks,
# flat) for ra_base
row_model() {
    if [ "$3" = ra_opt ]; then
        predict "$1" "$2" routed "$5" "$6"
    else
        predict "$1" "$2" direct "$4" "$6"
    fi
}

# rebound NP K: the model columns (the row's last 8) of the point's rows
# anew, from its calibrations before and after its runs
rebound() {
    local np=$1 k=$2 before="$PARAMS_DIR/np$1_k$2.params" after="$PARAMS_DIR/np$1_k$2.after.params"
    [ -s "$before" ] || return 0
    [ -s "$after" ] || after=""
    local vi si gi ni ki ci out="" line f m
    vi=$(ra_csv_col "$CSV" variant) si=$(ra_csv_col "$CSV" shape) gi=$(ra_csv_col "$CSV" gups)
    ni=$(ra_csv_col "$CSV" np) ki=$(ra_csv_col "$CSV" requested_log2) ci=$(ra_csv_col "$CSV" rc)
    while IFS= read -r line; do
        IFS=, read -r -a f <<<"$line"
        if [ "${f[ni - 1]}" = "$np" ] && [ "${f[ki - 1]}" = "$k" ] && [ "${f[ci - 1]}" = 0 ]; then
            m=$(row_model "$before" "$after" "${f[vi - 1]%%:*}" "$np" "${f[si - 1]}" "${f[gi - 1]}")
            bound_check "${f[vi - 1]} np=$np 2^$k (bounds before and after)" "${f[gi - 1]}" "$m"
            line="${line%,*,*,*,*,*,*,*,*},$m"
        fi
        out+="$line"$'\n'
    done < <(tail -n +2 "$CSV")
    printf '%s\n%s' "$(head -1 "$CSV")" "$out" | ra_atomic_write "$CSV" ||
        { echo "$RA_SCRIPT: error: cannot write $CSV" >&2; exit 3; }
}

total=$((${#NP_LIST[@]} * ${#K_LIST[@]} * ${#V_LIST[@]}))
i=0
failed=0
host=$(hostname)
for k in "${K_LIST[@]}"; do
    for np in "${NP_LIST[@]}"; do
        ran=0
        for v in "${V_LIST[@]}"; do
            i=$((i + 1))
            id="$v|$np|$k|$GEN"
            tag="[$i/$total] $v np=$np 2^$k $GEN"
            if awk -F, -v id="$id" 'NR > 1 && $1 == id { f = 1 } END { exit !f }' "$CSV"; then
                echo "$tag: in the CSV already, skipped"
                continue
            fi
            prog=${v%%:*}
            vargs=()
            [ "$v" != "$prog" ] && IFS=: read -r -a vargs <<<"${v#*:}"
            [ "$PAPI" = 1 ] && vargs+=(--papi)
            ra_launcher "$np"
            pre=()
            [ "$TIMEOUT" -gt 0 ] && pre=(timeout "$TIMEOUT")
            log=$LOGS/$(log_name "$id")
            params=$(calibrate "$np" "$k")
            ran=1
            t0=$(date +%s.%N)
            "${pre[@]}" "${RA_LAUNCH[@]}" "$RA_BIN/$prog" --log2-table "$k" --gen "$GEN" --no-progress \
                "${vargs[@]}" "${EXTRA[@]}" >"$log" 2>&1
            rc=$?
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            ra_mpi_info "$log"
            build=$(sed -n 's/^# build: //p' "$log" | head -1)
            build=${build//,/;} # e.g. -fsanitize=address,undefined
            [ "$rc" = 0 ] || failed=$((failed + 1))
            # the model, from the calibration before the run (rebound adds
            # the one after the point's runs, and says then of a row above
            # its bound: its bound may still rise)
            model=",,,,,,,"
            [ "$rc" = 0 ] && model=$(row_model "$params" "" "$prog" "$np" "$(ra_key "$log" shape)" "$(ra_key "$log" gups)")
            # One row: run columns, then the key block in KEY_COLS order;
            # commas inside values become ';' so the CSV stays plain.
            awk -v cols="$KEY_COLS" -v run="$id,$(date -Iseconds),$host,$RA_MPI_NAME,$RA_MPI_VERSION,${build:-unknown},${LAUNCHER:-mpirun},$v,$np,$k,$rc" '
                /^[a-z0-9_]+: / { key = $0; sub(/: .*/, "", key); if (!(key in v)) { val = $0; sub(/^[^:]*: /, "", val); gsub(/,/, ";", val); v[key] = val } }
                END {
                    n = split(cols, c, ",")
                    if (run_rc != 0 && !("status" in v)) v["status"] = "error"
                    line = run
                    for (j = 1; j <= n; j++) line = line "," ((c[j] in v) ? v[c[j]] : "")
                    print line "," model
                }' run_rc="$rc" model="$model" "$log" | ra_atomic_append "$CSV" ||
                { echo "$RA_SCRIPT: error: cannot write $CSV (the row of $id is in $log)" >&2; exit 3; }
            if [ "$rc" = 0 ]; then
                echo "$tag: $(ra_key "$log" gups) GUPS, $(ra_key "$log" status), shape $(ra_key "$log" shape), predicted ${model%%,*} ($secs s)"
            else
                # the binary's own line (every one starts "PROG: "), else the log's last
                why=$(grep -m1 "^$prog: " "$log" || tail -n 1 "$log")
                echo "$tag: FAILED with exit $rc ($secs s), see $log: ${why:-(the log is empty)}"
            fi
        done
        # the point's second calibration (again when it ran anything now,
        # else once if an interrupted sweep left it undone), then its rows
        # take the better bounds of the two
        if [ "$NO_CALIBRATE" = 0 ] && [ -s "$PARAMS_DIR/np${np}_k$k.params" ] &&
            { [ "$ran" = 1 ] || [ ! -s "$PARAMS_DIR/np${np}_k$k.after.params" ]; }; then
            calibrate "$np" "$k" after >/dev/null
            rebound "$np" "$k"
        fi
    done
done
echo "# $CSV: $(($(wc -l <"$CSV") - 1)) rows; $failed run(s) failed"
[ "$failed" = 0 ]
