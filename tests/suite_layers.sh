# tests/suite_layers.sh - the layers of docs/architecture.md hold: every include
# points down, and `make check-layers` fails on a file that includes a
# header of a layer above it (sourced by run_tests.sh).

if out=$(make --no-print-directory check-layers 2>&1); then
    ok "make check-layers: $out"
else
    bad "make check-layers on the tree: $out"
fi

# A copy of the tree with one deliberately wrong include per rule.
lay=$TMP/layers
mkdir -p "$lay/tests"
cp -r Makefile torus hpcc_ra baseline optimized sparsest_cut torusmodel tools "$lay/"
mkdir -p "$lay/torus/coll"
cp tests/check_layers.sh "$lay/tests/"
check_wrong() {
    local desc=$1 file=$2 inc=$3 out rc
    printf '#include "%s"\n' "$inc" >"$lay/$file"
    out=$(make --no-print-directory -C "$lay" check-layers MPI="$MPI" 2>&1)
    rc=$?
    rm -f "$lay/$file"
    if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q "check-layers: $file:1: includes \"$inc\""; then
        ok "make check-layers fails on $desc: $(printf '%s\n' "$out" | grep -m1 "$file")"
    else
        bad "make check-layers did not catch $desc (exit $rc): $out"
    fi
}
check_wrong "torus/ including the harness (ra.h)" torus/wrong_layer.c ra.h
check_wrong "hpcc_ra/ including optimized/ (ropt.h)" hpcc_ra/wrong_layer.c ropt.h
check_wrong "optimized/ including torusmodel/" optimized/wrong_layer.c torusmodel.h
check_wrong "sparsest_cut/ including torusmodel/" sparsest_cut/wrong_layer.c torusmodel.h
check_wrong "torusmodel/ including optimized/ beyond ropt_timed.h" torusmodel/wrong_layer.c ropt_sim.h
check_wrong "a relative path up (../hpcc_ra/ra.h) from torus/" torus/wrong_layer.h ../hpcc_ra/ra.h
check_wrong "torus/coll/ including the routed algorithm" torus/coll/wrong_layer.c ropt.h
check_wrong "tools/collbench/ including the harness (it drives torus/coll only)" tools/collbench/wrong_layer.c ra.h
check_wrong "tools/ra_calibrate/ including collbench's header" tools/ra_calibrate/wrong_layer.c collbench.h
# the same with angle brackets: -I paths resolve <ra.h> too
printf '#include <ra.h>\n' >"$lay/torus/wrong_layer.c"
out=$(make --no-print-directory -C "$lay" check-layers MPI="$MPI" 2>&1)
rc=$?
rm -f "$lay/torus/wrong_layer.c"

# A program's folder under tools/ compiles with its own narrower path
# (the Makefile's INC_tools_collbench), not the whole of tools/'s.
inc=$(make --no-print-directory -C "$lay" -p -n MPI="$MPI" FORCE 2>/dev/null | sed -n 's/^INC_tools_collbench := //p')
printf '#include "ra.h"\n' >"$lay/tools/collbench/wrong_layer.c"
# shellcheck disable=SC2086 # the include path is words
if [ -n "$inc" ] && ! (cd "$lay" && "mpicc.$MPI" $inc -fsyntax-only tools/collbench/wrong_layer.c) >/dev/null 2>&1; then
    ok "tools/collbench/ compiles with its own include path ($inc): #include \"ra.h\" does not build there"
else
    bad "tools/collbench/: the Makefile's INC_tools_collbench ('$inc') did not refuse ra.h"
fi
rm -f "$lay/tools/collbench/wrong_layer.c"
if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q 'torus/wrong_layer.c:1: includes "ra.h"'; then
    ok "make check-layers fails on #include <ra.h> in torus/ too"
else
    bad "make check-layers missed #include <ra.h> in torus/ (exit $rc): $out"
fi

# The per-folder include path refuses the same include at compile time,
# while the harness's own path (a layer above) accepts it.
printf '#include "ra.h"\n' >"$lay/torus/wrong_layer.c"
if ! (cd "$lay" && "mpicc.$MPI" -Itorus -fsyntax-only torus/wrong_layer.c) >/dev/null 2>&1 &&
    (cd "$lay" && "mpicc.$MPI" -Ihpcc_ra -Itorus -fsyntax-only torus/wrong_layer.c) >/dev/null 2>&1; then
    ok "torus/ compiles with its own include path only: #include \"ra.h\" does not build there"
else
    bad "torus/wrong_layer.c: the include path of torus/ did not refuse ra.h (or hpcc_ra's did not accept it)"
fi
rm -f "$lay/torus/wrong_layer.c"
