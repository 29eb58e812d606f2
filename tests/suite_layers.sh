# tests/suite_layers.sh - the layers of layers.mk (docs/architecture.md
# draws them) hold: every include points down, every call runs down the
# link chain, nothing under the adapter calls what it intercepts; and
# `make check-layers` fails on a file that breaks any of the three
# (sourced by run_tests.sh).

if out=$(make --no-print-directory check-layers 2>&1); then
    ok "make check-layers: $out"
else
    bad "make check-layers on the tree: $out"
fi

# A copy of the tree with one deliberately wrong include per rule.
lay=$TMP/layers
mkdir -p "$lay/tests"
cp -r Makefile layers.mk kit torus pmpi hpcc_ra baseline optimized sparsest_cut torusmodel tools "$lay/"
mkdir -p "$lay/torus/coll"
cp tests/check_layers.sh "$lay/tests/"
check_wrong() {
    local desc=$1 file=$2 inc=$3 out rc
    printf '#include "%s"\n' "$inc" >"$lay/$file"
    out=$(bash "$lay/tests/check_layers.sh" "$lay" 2>&1)
    rc=$?
    rm -f "$lay/$file"
    if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q "check-layers: $file:1: includes \"$inc\""; then
        ok "make check-layers fails on $desc: $(printf '%s\n' "$out" | grep -m1 "$file")"
    else
        bad "make check-layers did not catch $desc (exit $rc): $out"
    fi
}
check_wrong "torus/ including the harness (ra.h)" torus/wrong_layer.c ra.h
check_wrong "kit/ including the torus library (torus.h)" kit/wrong_layer.c torus.h
check_wrong "torus/ including the adapter's header" torus/wrong_layer.c pmpi_impl.h
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
out=$(bash "$lay/tests/check_layers.sh" "$lay" 2>&1)
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
vars=$(make --no-print-directory -C "$lay" -p -n MPI="$MPI" FORCE 2>/dev/null)
inc_torus=$(sed -n 's/^INC_torus := //p' <<<"$vars")
inc_ra=$(sed -n 's/^INC_hpcc_ra := //p' <<<"$vars")
printf '#include "ra.h"\n' >"$lay/torus/wrong_layer.c"
# shellcheck disable=SC2086 # the include paths are words
if [ -n "$inc_torus" ] && ! (cd "$lay" && "mpicc.$MPI" $inc_torus -fsyntax-only torus/wrong_layer.c) >/dev/null 2>&1 &&
    (cd "$lay" && "mpicc.$MPI" $inc_ra -fsyntax-only torus/wrong_layer.c) >/dev/null 2>&1; then
    ok "torus/ compiles with its own include path only ($inc_torus): #include \"ra.h\" does not build there"
else
    bad "torus/wrong_layer.c: the include path of torus/ did not refuse ra.h (or hpcc_ra's did not accept it)"
fi
rm -f "$lay/torus/wrong_layer.c"

# The call checks, on objects made for them: a torus/ object that calls a
# harness function, and a kit/ object that calls MPI_Bcast, which the
# adapter's objects define.  Plain cc, no MPI: only the symbols matter.
fake=$TMP/layers-build
mkdir -p "$fake/torus" "$fake/kit" "$fake/hpcc_ra" "$fake/pic/pmpi"
printf 'int ra_upward(void);\nint torus_down(void);\nint torus_down(void) { return ra_upward(); }\n' >"$fake/u.c"
printf 'int ra_upward(void);\nint ra_upward(void) { return 1; }\n' >"$fake/d.c"
printf 'int MPI_Bcast(void);\nint MPI_Bcast(void) { return 0; }\n' >"$fake/a.c"
printf 'int MPI_Bcast(void);\nint kit_reenters(void);\nint kit_reenters(void) { return MPI_Bcast(); }\n' >"$fake/k.c"
if cc -c "$fake/u.c" -o "$fake/torus/u.o" && cc -c "$fake/d.c" -o "$fake/hpcc_ra/d.o" &&
    cc -c "$fake/a.c" -o "$fake/pic/pmpi/a.o" && cc -c "$fake/k.c" -o "$fake/kit/k.o"; then
    out=$(bash "$lay/tests/check_layers.sh" "$lay" "$fake" 2>&1)
    rc=$?
    if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q 'check-layers: torus/u.o: calls ra_upward, defined in hpcc_ra/, which torus/ does not link' &&
        printf '%s\n' "$out" | grep -q 'check-layers: kit/k.o: calls MPI_Bcast, which libtorus_pmpi.so defines'; then
        ok "make check-layers fails on a call up (torus/ calling hpcc_ra/) and on the kit calling an MPI_ name the adapter defines: $(printf '%s\n' "$out" | grep -m1 'u.o')"
    else
        bad "make check-layers missed a call up or a call into the adapter (exit $rc): $out"
    fi
else
    bad "could not compile the call-check objects"
fi
