# suite_fuzz.sh - the kept fuzz corpus (seeds and every input that once
# crashed or misbehaved) replayed through each harness built with the
# kit's own compiler: a finding aborts the replay.  `make fuzz` runs the
# same harnesses under libFuzzer (clang).
for r in "$BUILD"/tests/fuzz_replay_*; do
    name=${r##*/fuzz_replay_}
    want=$(find "tests/fuzz/corpus/$name" -type f | wc -l)
    # the tools' own stdout (help texts) goes to a file; the last line is the count
    if "$r" "tests/fuzz/corpus/$name" >"$TMP/out" 2>"$TMP/err" &&
        [ "$(tail -1 "$TMP/out")" = "replayed $want inputs" ] && [ "$want" -gt 0 ]; then
        ok "fuzz corpus $name: $want inputs, no finding"
    else
        bad "fuzz corpus $name: $(tail -3 "$TMP/err")"
    fi
done
