# suite_opt.sh - bin/ra_opt over MPI: exact at every process count and shape,
# under both node transports (shared-memory rings and MPI), same fingerprint
# as ra_base and the sequential run; bad shapes and maps.  Every run's
# max_pending (every update a rank holds: pipeline, lists, buckets,
# unfinished sends and packets in rings not yet taken) must be <= 1024
# (expect_exact checks it).
K=16
for nt in shm mpi; do
    for gen in lfsr lcg; do
        exact_at_ranks bin/ra_opt $K $gen "--dims auto --node-transport $nt" --node-transport $nt
        ref=$("$BUILD/tests/ra_seq" $K $gen)
        for spec in "8 flat" "8 hypercube" "8 4x2" "8 2x2x2m" "8 2x4m" "6 3x2" "6 1x6" "4 2x2" "5 5x1" "7 7"; do
            set -- $spec
            run_mpi "$1" bin/ra_opt --log2-table $K --gen $gen --dims "$2" --node-transport $nt --quiet
            expect_exact "ra_opt n=$1 $gen --dims $2 --node-transport $nt" "$ref" $?
        done
    done
done
# both splits of generated updates (issue 44): eight at a time with
# AVX-512 where the CPU has it (auto), one at a time (portable); the same
# updates, so the same fingerprint, at every process count and odd update
# counts (the eight lanes' head and tail)
for gen in lfsr lcg; do
    exact_at_ranks bin/ra_opt $K $gen "--split portable" --split portable
done
refn=$("$BUILD/tests/ra_seq" $K lfsr 100003)
for sp in auto portable; do
    run_mpi 3 bin/ra_opt --log2-table $K --updates 100003 --split $sp --batch 13 --quiet
    expect_exact "ra_opt n=3 --updates 100003 --batch 13 --split $sp (kernel $(key split_kernel))" "$refn" $?
done
want_kernel=portable
grep -qw avx512f /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo && want_kernel=avx512
run_mpi 2 bin/ra_opt --log2-table 12 --quiet
[ "$(key split_kernel)" = $want_kernel ] && ok "ra_opt --split auto runs $want_kernel on this CPU" ||
    bad "ra_opt --split auto: split_kernel '$(key split_kernel)', want $want_kernel"
run_mpi 2 bin/ra_opt --log2-table 12 --split portable --quiet
[ "$(key split_kernel)" = portable ] && ok "ra_opt --split portable runs portable" ||
    bad "ra_opt --split portable: split_kernel '$(key split_kernel)'"
expect_fail "bad --split" 2 "bad value 'avx2' for --split: allowed auto or portable" 2 bin/ra_opt --log2-table 10 --split avx2
# the key block says which road the node hop took, and why auto chose it
# (the ranks against the cores their affinity masks give the node); the
# preamble's "# node transport:" line says the same in words
cores=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' | awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')
nt_keys() { echo "$(key node_transport) by $(key node_transport_chosen_by), shm_dims $(key shm_dims), node $(key node_ranks) ranks on $(key node_cores) cores"; }
run_mpi 4 bin/ra_opt --log2-table 12 --dims 2x2 --node-transport shm
if [ "$(key node_transport)" = shm ] && [ "$(key node_transport_chosen_by)" = option ] && [ "$(key shm_dims)" = 2 ] &&
    [ "$(key node_ranks)" = 4 ] && [ "$(key node_cores)" -ge 1 ] 2>/dev/null; then
    ok "ra_opt n=4 --dims 2x2 --node-transport shm: both dimensions through shared memory ($(nt_keys))"
else
    bad "ra_opt n=4 node transport keys: $(nt_keys)"
fi
run_mpi 4 bin/ra_opt --log2-table 12 --dims 2x2 --node-transport mpi
if [ "$(key node_transport)" = mpi ] && [ "$(key shm_dims)" = 0 ]; then
    ok "ra_opt n=4 --node-transport mpi: no dimension through shared memory ($(nt_keys))"
else
    bad "ra_opt n=4 --node-transport mpi keys: $(nt_keys)"
fi
# the cores are those of the ranks' affinity masks, at most the shell's
# (Open MPI binds a rank to one core when the node has a slot per rank)
for n in 1 2 4; do
    run_mpi $n bin/ra_opt --log2-table 12
    rc_cores=$(key node_cores)
    want=shm
    [ -n "$rc_cores" ] && [ "$n" -gt "$rc_cores" ] && want=mpi
    if [ -n "$rc_cores" ] && [ "$rc_cores" -le "${cores:-0}" ] && [ "$(key node_ranks)" = "$n" ] &&
        [ "$(key node_transport)" = $want ] && [ "$(key node_transport_chosen_by)" = auto ]; then
        ok "ra_opt n=$n on $rc_cores of $cores cores: auto takes $want ($(nt_keys))"
    else
        bad "ra_opt n=$n on ${rc_cores:-?} of $cores cores: want auto -> $want, got: $(nt_keys)"
    fi
done
expect_fail "bad --node-transport" 2 "bad value 'tcp' for --node-transport: allowed auto, shm or mpi" 2 bin/ra_opt --log2-table 10 --node-transport tcp
ref=$("$BUILD/tests/ra_seq" $K lfsr)
run_mpi 4 bin/ra_opt --log2-table $K --node-dim --quiet
expect_exact "ra_opt n=4 --node-dim (shape $(key shape))" "$ref" $?
run_mpi 8 bin/ra_opt --log2-table $K --outstanding 1 --lookahead 0 --dims 2x2x2 --quiet
expect_exact "ra_opt n=8 one send slot, no look-ahead" "$ref" $?
# The budget holds at the largest option values too, and with synchronous sends.
for spec in "2 2 64 256 64" "8 hypercube 64 256 32" "8 flat 16 64 256" "6 3x2 8 0 1" "3 3 64 0 128" "2 2 1 512 128"; do
    set -- $spec
    run_mpi "$1" bin/ra_opt --log2-table $K --dims "$2" --outstanding "$3" --lookahead "$4" --batch "$5" --quiet
    expect_exact "ra_opt n=$1 --dims $2 --outstanding $3 --lookahead $4 --batch $5" "$ref" $?
done
run_mpi 4 bin/ra_opt --log2-table $K --sync-sends --quiet
expect_exact "ra_opt n=4 --sync-sends" "$ref" $?
refn=$("$BUILD/tests/ra_seq" $K lfsr 100003)
run_mpi 5 bin/ra_opt --log2-table $K --updates 100003 --quiet
expect_exact "ra_opt n=5 --updates 100003" "$refn" $?

# Mapping files: a reversed placement is exact; broken files are one clear line.
printf '# reversed XYZT placement of 2x4\n' >"$TMP/map"
for r in 7 6 5 4 3 2 1 0; do echo "$((r % 2)) $((r / 2))" >>"$TMP/map"; done
run_mpi 8 bin/ra_opt --log2-table $K --dims 2x4 --map "$TMP/map" --quiet
expect_exact "ra_opt n=8 --dims 2x4 --map (reversed placement)" "$ref" $?
printf '0 0\n1 0\n0 1\n1 1\n0 2\n1 2\n0 3\n0 3\n' >"$TMP/dup"
printf '0 0\n1 0\n0 1\n1 1\n0 2\n1 2\n0 3\n' >"$TMP/short"
printf '0 0\n1 0\n0 1\n1 1\n0 2\n1 2\n0 3\n2 3\n' >"$TMP/range"
expect_fail "mapping file with a duplicate" 2 "already used by rank 6" 8 bin/ra_opt --log2-table 10 --dims 2x4 --map "$TMP/dup"
expect_fail "mapping file missing a rank" 2 "has 7 coordinate lines but there are 8 ranks" 8 bin/ra_opt --log2-table 10 --dims 2x4 --map "$TMP/short"
expect_fail "mapping file out of range" 2 "out of range: allowed 0..1" 8 bin/ra_opt --log2-table 10 --dims 2x4 --map "$TMP/range"
expect_fail "missing mapping file" 2 "cannot be read" 2 bin/ra_opt --log2-table 10 --dims 2 --map "$TMP/nope"
expect_fail "shape/process-count mismatch" 2 "product must equal the process count" 8 bin/ra_opt --log2-table 10 --dims 4x4
expect_fail "malformed shape" 2 "malformed shape" 4 bin/ra_opt --log2-table 10 --dims 2xx2
expect_fail "hypercube on 6 ranks" 2 "power-of-two" 6 bin/ra_opt --log2-table 10 --dims hypercube
expect_fail "bad --outstanding" 2 "allowed an integer 1..64" 2 bin/ra_opt --log2-table 10 --outstanding 0
expect_fail "--map with --node-dim" 2 "use one of them" 2 bin/ra_opt --log2-table 10 --map "$TMP/map" --node-dim

# Same table, both algorithms, one fingerprint (5 ranks, non-power-of-two split).
run_mpi 5 bin/ra_base --log2-table 17 --lcg --quiet
fb=$(key fingerprint)
run_mpi 5 bin/ra_opt --log2-table 17 --lcg --quiet
fo=$(key fingerprint)
po=$(key max_pending)
if [ -n "$fb" ] && [ "$fb" = "$fo" ] && [ "$fb" = "$("$BUILD/tests/ra_seq" 17 lcg)" ] && [ "$po" -le 1024 ]; then
    ok "ra_base, ra_opt and the sequential run agree on 2^17 lcg at 5 ranks ($fb)"
else
    bad "ra_base $fb vs ra_opt $fo (ra_opt max_pending $po)"
fi

# One hop or two on a node (--node-hops, issue 35): on one node --dims auto
# follows the model (at its default prices the shapes auto always picked),
# a forced routing is kept and said so, exact either way; forcing one where
# the shape is given is refused before anything runs.
ref=$("$BUILD/tests/ra_seq" 14 lfsr)
run_mpi 2 bin/ra_opt --log2-table 14
if [ "$(key shape)" = 2 ] && [ "$(key node_hops)" = 1 ] && [ "$(key node_hops_chosen_by)" = model ] &&
    [ "$(key node_hops_model)" = "1 hop 0.182, 2 hops none (h 0.13, s 60)" ]; then
    ok "ra_opt n=2: node_hops $(key node_hops) by $(key node_hops_chosen_by) ($(key node_hops_model))"
else
    bad "ra_opt n=2 node_hops keys: $(grep '^node_hops' "$TMP/out" | tr '\n' ' ')"
fi
run_mpi 4 bin/ra_opt --log2-table 14 --node-hops 2 --quiet
rc=$?
if [ "$(key shape)" = 2x2 ] && [ "$(key node_hops)" = 2 ] && [ "$(key node_hops_chosen_by)" = option ]; then
    expect_exact "ra_opt n=4 --node-hops 2: shape 2x2, node_hops 2 by option" "$ref" $rc
else
    bad "ra_opt n=4 --node-hops 2: shape $(key shape), $(grep '^node_hops' "$TMP/out" | tr '\n' ' ')"
fi
run_mpi 4 bin/ra_opt --log2-table 14 --hop-cost 0.1 --packet-cost 999 --quiet
rc=$?
# 4: H 3/4, 768 / 5 = 153 per packet; 2x2: H 1, 768 / 6 = 128: one hop at any price
if [ "$(key shape)" = 4 ] && [ "$(key node_hops_chosen_by)" = model ] &&
    [ "$(key node_hops_model)" = "1 hop 4.972, 2 hops 7.905 (h 0.1, s 999)" ]; then
    expect_exact "ra_opt n=4 with a dear packet: still one hop, 2x2 costs more ($(key node_hops_model))" "$ref" $rc
else
    bad "ra_opt n=4 --packet-cost 999: shape $(key shape), $(grep '^node_hops' "$TMP/out" | tr '\n' ' ')"
fi
run_mpi 4 bin/ra_opt --log2-table 14 --dims 4 --quiet
if [ "$(key node_hops)" = none ] && [ "$(key node_hops_chosen_by)" = dims ]; then
    ok "ra_opt n=4 --dims 4: node_hops none, chosen by dims"
else
    bad "ra_opt n=4 --dims 4: $(grep '^node_hops' "$TMP/out" | tr '\n' ' ')"
fi
expect_fail "--node-hops 2 with a given shape" 2 "node-hops 2: a node's routing is set with --node-dim, or with --dims auto on one node" \
    4 bin/ra_opt --log2-table 12 --dims 4 --node-hops 2
expect_fail "bad --node-hops" 2 "bad value '3' for --node-hops: allowed auto, 1 or 2" 2 bin/ra_opt --node-hops 3
expect_fail "negative --packet-cost" 2 "for --packet-cost" 2 bin/ra_opt --packet-cost -1
