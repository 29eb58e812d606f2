#!/bin/bash
# tests/fuzz/run.sh DIR NAME... - runs each libFuzzer harness DIR/fuzz_NAME
# for $FUZZ_SECONDS seconds (one at a time, under nice: the machine is
# shared) from its kept corpus tests/fuzz/corpus/NAME.  New inputs go to
# build/fuzz-corpus/NAME, a crash to build/fuzz-artifacts/ (copy it into
# tests/fuzz/corpus/NAME to keep it as a regression case).  Prints the
# executions per harness and in total; exit 1 on any finding.
set -u
dir=$1
shift
secs=${FUZZ_SECONDS:-60}
total=0
failed=0
mkdir -p build/fuzz-artifacts
for name in "$@"; do
    mkdir -p "build/fuzz-corpus/$name"
    log="build/fuzz-artifacts/$name.log"
    # -close_fd_mask=1: the tools' stdout is noise here; -rss_limit_mb: a
    # declared 'nodes 67108864' legitimately takes 0.5 GiB under ASan
    nice -n 19 "$dir/fuzz_$name" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 \
        -close_fd_mask=1 -artifact_prefix="build/fuzz-artifacts/$name-" \
        "build/fuzz-corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
    rc=$?
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    execs=${execs:-0}
    total=$((total + execs))
    if [ "$rc" = 0 ]; then
        printf 'fuzz %-20s %10d executions in %ss: no finding\n' "$name" "$execs" "$secs"
    else
        failed=1
        printf 'fuzz %-20s %10d executions: FINDING (exit %d), see %s\n' "$name" "$execs" "$rc" "$log"
        grep -m3 -E 'ERROR|runtime error|SUMMARY|fuzz:' "$log" | sed 's/^/    /'
    fi
done
echo "fuzz total: $total executions over $# harnesses, $([ $failed = 0 ] && echo 'no finding' || echo 'FINDINGS')"
exit $failed
