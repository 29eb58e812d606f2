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
# (routed model for ra_opt on the shape it chose, direct for ra_base).
set -u
RA_SCRIPT=sweep.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"

KEY_COLS="test,algorithm,ranks,generator,table_log2,table_words,updates,time_s,gups,errors,verify_time_s,cpu_time_s,fingerprint,time_bound_s,max_pending,sbf,mean_fill,hops_per_update,bytes_per_update,shape,huge_pages,status,papi_events,papi_tot_cyc,papi_tot_cyc_per_update,papi_tot_ins,papi_tot_ins_per_update,papi_l1_dcm,papi_l1_dcm_per_update,papi_l2_dcm,papi_l2_dcm_per_update,papi_tlb_dm,papi_tlb_dm_per_update"
RUN_COLS="run_id,date,host,mpi_library,mpi_version,build,launcher,variant,np,requested_log2,rc"
MODEL_COLS="predicted_gups,measured_over_predicted,cpu_bound_gups,network_bound_gups,memory_bound_gups,bound_gups,binding"
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
  -o FILE      CSV to write or resume [default: \$CSV, else sweep.csv]
  -p LIST      process counts, e.g. "1 2 4 8" [default: \$NPS, else powers of two to nproc: $(default_nps)]
  -k LIST      table sizes as log2 words, e.g. "20 22 24" [default: \$SIZES, else "20 22"]
  -a LIST      variants: ra_base, ra_opt, or ra_opt:OPT:OPT... with options like
               --dims=flat, --dims=hypercube, --outstanding=8 [default: \$VARIANTS, else "ra_base ra_opt"]
  -g GEN       lfsr or lcg [default: \$GEN, else lfsr]
  -h           this help
environment: LAUNCHER=mpirun|srun [mpirun], MPIRUN [matches the build],
  LAUNCHER_ARGS [none], PAPI=1 adds --papi to every run [0], TIMEOUT seconds
  per run, 0 = none [0], CALIBRATE=0 skips the ra_calibrate runs and the
  model columns [1], PARAMS_DIR for the calibrations, one params file per
  process count and size [CSV name with -params/], RA_BIN [bin/]
Logs of each run: CSV name with -logs/.  exit: 0 all rows done, 1 some run
failed (its row has status error and is retried next time), 2 usage
EOF
}

CSV=${CSV:-sweep.csv}
NPS=${NPS:-$(default_nps)}
SIZES=${SIZES:-20 22}
VARIANTS=${VARIANTS:-ra_base ra_opt}
GEN=${GEN:-lfsr}
while getopts "o:p:k:a:g:h" opt; do
    case $opt in
    o) CSV=$OPTARG ;;
    p) NPS=$OPTARG ;;
    k) SIZES=$OPTARG ;;
    a) VARIANTS=$OPTARG ;;
    g) GEN=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
EXTRA=("$@")

read -r -a NP_LIST <<<"$NPS"
read -r -a K_LIST <<<"$SIZES"
read -r -a V_LIST <<<"$VARIANTS"
[ ${#NP_LIST[@]} -gt 0 ] || ra_die "-p is empty: allowed a list of process counts like \"1 2 4\""
[ ${#K_LIST[@]} -gt 0 ] || ra_die "-k is empty: allowed a list of log2 table sizes like \"20 22\""
[ ${#V_LIST[@]} -gt 0 ] || ra_die "-a is empty: allowed variants like \"ra_base ra_opt\""
for n in "${NP_LIST[@]}"; do
    ra_need_uint "-p entry" "$n"
    [ "$n" -ge 1 ] || ra_die "-p entry '$n' is not valid: allowed process counts >= 1"
done
for k in "${K_LIST[@]}"; do
    ra_need_uint "-k entry" "$k"
    { [ "$k" -ge 1 ] && [ "$k" -le 62 ]; } || ra_die "-k entry '$k' is not valid: allowed 1..62 (table of 2^K words)"
done
for v in "${V_LIST[@]}"; do
    case "${v%%:*}" in ra_base | ra_opt) ;; *) ra_die "-a variant '$v' is not valid: allowed ra_base or ra_opt, then :OPTION... (e.g. ra_opt:--dims=flat)" ;; esac
    case "$v" in *,* | *' '*) ra_die "-a variant '$v' is not valid: no commas or blanks; join options with ':' and use --opt=value" ;; esac
done
case "$GEN" in lfsr | lcg) ;; *) ra_die "-g '$GEN' is not valid: allowed lfsr or lcg" ;; esac
case "${PAPI:-0}" in 0 | 1) ;; *) ra_die "PAPI='$PAPI' is not valid: allowed 0 or 1" ;; esac
ra_need_uint TIMEOUT "${TIMEOUT:-0}"

ra_find_bin
base=${CSV%.csv}
LOGS=$base-logs
PARAMS_DIR=${PARAMS_DIR:-$base-params}
mkdir -p "$LOGS" || { echo "$RA_SCRIPT: error: cannot create $LOGS" >&2; exit 3; }
if [ "${CALIBRATE:-1}" = 1 ]; then
    mkdir -p "$PARAMS_DIR" || { echo "$RA_SCRIPT: error: cannot create $PARAMS_DIR" >&2; exit 3; }
fi
if [ -s "$CSV" ]; then
    [ "$(head -1 "$CSV")" = "$CSV_HEADER" ] ||
        ra_die "$CSV has other columns than this sweep.sh writes: allowed a CSV from this version (choose a new -o FILE)"
    nerr=$(awk -F, 'NR > 1 && $11 != 0' "$CSV" | wc -l)
    if [ "$nerr" -gt 0 ]; then
        echo "# $nerr failed run(s) in $CSV will be retried"
        awk -F, 'NR == 1 || $11 == 0' "$CSV" | ra_atomic_write "$CSV" ||
            { echo "$RA_SCRIPT: error: cannot write $CSV" >&2; exit 3; }
    fi
else
    echo "$CSV_HEADER" | ra_atomic_write "$CSV" || { echo "$RA_SCRIPT: error: cannot write $CSV" >&2; exit 3; }
fi

# calibrate NP K: the params file of that point (made once, at NP ranks
# and table 2^K, so the model sees the run's ranks per node and table
# share); prints its path, or nothing when calibration is off or failed.
calibrate() {
    local np=$1 k=$2 f="$PARAMS_DIR/np$1_k$2.params"
    [ "${CALIBRATE:-1}" = 1 ] || return 0
    if [ ! -s "$f" ]; then
        ra_launcher "$np"
        if ! "${RA_LAUNCH[@]}" "$RA_BIN/ra_calibrate" --quick --log2-table "$k" --output "$f" \
            >"$LOGS/calibrate_np${np}_k$k.txt" 2>&1; then
            echo "# calibration at np=$np 2^$k failed (see $LOGS/calibrate_np${np}_k$k.txt): no prediction" >&2
            rm -f "$f"
            return 0
        fi
    fi
    echo "$f"
}

# predict PARAMS ALGORITHM SHAPE GUPS: the model columns of one row
predict() {
    local empty=",,,,,,"
    if [ -z "$1" ] || [ -z "$3" ] || [ "$3" = - ]; then
        echo "$empty"
        return
    fi
    local r
    r=$("$RA_BIN/torusmodel" --params "$1" --algorithm "$2" --shape "$3" 2>/dev/null) || { echo "$empty"; return; }
    printf '%s\n' "$r" | awk -v g="$4" -F': ' '
        { v[$1] = $2 }
        END {
            p = v["predicted_gups"]
            ratio = (p + 0 > 0 && g != "") ? sprintf("%.4f", g / p) : ""
            printf "%s,%s,%s,%s,%s,%s,%s\n", p, ratio, v["cpu_bound_gups"], v["network_bound_gups"],
                v["memory_bound_gups"], v["bound_gups"], v["binding"]
        }'
}

total=$((${#NP_LIST[@]} * ${#K_LIST[@]} * ${#V_LIST[@]}))
i=0
failed=0
host=$(hostname)
for k in "${K_LIST[@]}"; do
    for np in "${NP_LIST[@]}"; do
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
            [ "${PAPI:-0}" = 1 ] && vargs+=(--papi)
            ra_launcher "$np"
            pre=()
            [ "${TIMEOUT:-0}" -gt 0 ] && pre=(timeout "$TIMEOUT")
            log="$LOGS/$(echo "$id" | tr '|:/=' '____').txt"
            params=$(calibrate "$np" "$k")
            t0=$(date +%s.%N)
            "${pre[@]}" "${RA_LAUNCH[@]}" "$RA_BIN/$prog" --log2-table "$k" --gen "$GEN" --no-progress \
                "${vargs[@]}" "${EXTRA[@]}" >"$log" 2>&1
            rc=$?
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            ra_mpi_info "$log"
            build=$(sed -n 's/^# build: //p' "$log" | head -1)
            build=${build//,/;} # e.g. -fsanitize=address,undefined
            [ "$rc" = 0 ] || failed=$((failed + 1))
            # the model: routed on ra_opt's shape, direct (flat, np ranks) for ra_base
            model=",,,,,,"
            if [ "$rc" = 0 ]; then
                if [ "$prog" = ra_opt ]; then
                    model=$(predict "$params" routed "$(ra_key "$log" shape)" "$(ra_key "$log" gups)")
                else
                    model=$(predict "$params" direct "$np" "$(ra_key "$log" gups)")
                fi
            fi
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
                echo "$tag: FAILED with exit $rc ($secs s), see $log: $(grep -m1 -E 'error|notice' "$log")"
            fi
        done
    done
done
echo "# $CSV: $(($(wc -l <"$CSV") - 1)) rows; $failed run(s) failed"
[ "$failed" = 0 ]
