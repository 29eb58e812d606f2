# tests/suite_launch.sh - a launch that does not match the build is
# refused (issue 48, class 3; kit_mpi_launch_check in kit/mpi.c).  Debian
# installs MPICH and Open MPI side by side and its plain `mpirun` is one of
# them: the other library's launcher starts N processes that each find
# themselves alone in MPI_COMM_WORLD, N jobs of one rank that all "pass".
# Every MPI binary of the kit, launched by the other library's mpirun (when
# it is installed) or by a stand-in that sets only a launcher's variables
# (PMI_SIZE, OMPI_COMM_WORLD_SIZE), must stop with exit 2 and one line
# naming this build's launcher (mpirun.$MPI), nothing on stdout; a process
# started alone, or by a launcher of one, still runs; the MPI adapter,
# preloaded into a program under the same wrong launch, refuses nothing
# (it never changes what a program does).  Sourced by tests/run_tests.sh.

# BIN|options of a short run
launch_bins="ra_opt|--log2-table 12 --quiet
ra_base|--log2-table 12 --quiet
collbench|--op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1
ra_calibrate|--quick --log2-table 12 --output @/cal.params"
# hpcc-opt is one of them when `make hpcc` built it for this MPI (suite_hpcc)
if [ -x bin/hpcc-opt ] && ldd bin/hpcc-opt 2>/dev/null | grep -q "$([ "$MPI" = mpich ] && echo libmpich || echo libmpi\\.so)"; then
    launch_bins="$launch_bins
hpcc-opt|--version"
fi

if [ "$MPI" = mpich ]; then
    launch_other=openmpi
    launch_flags="--oversubscribe"
    [ "$(id -u)" = 0 ] && launch_flags="$launch_flags --allow-run-as-root"
else
    launch_other=mpich
    launch_flags=""
fi

# launch_expect_refused WHAT PRINTS BIN CMD... : exit 2, no stdout, and
# (PRINTS 1) exactly one line of BIN's, naming mpirun.$MPI; PRINTS 0: none
launch_expect_refused() {
    local what=$1 prints=$2 bin=$3 rc
    shift 3
    # two Open MPI singletons started at once by another launcher can race
    # creating their session folder and fail inside MPI_Init, before the
    # check can speak (seen once in a full run): that start is retried
    for attempt in 1 2 3; do
        (cd "$TMP/launch" && timeout -k 10 120 "$@" </dev/null >"$TMP/out" 2>"$TMP/err")
        rc=$?
        [ "$rc" != 2 ] && grep -qiE "unable to create the desired directory|orte_init failed|ompi_rte_init failed" "$TMP/err" ||
            break
        echo "# launch $bin, $what: Open MPI's own start-up failed (attempt $attempt), once more"
    done
    local mine
    mine=$(grep -c "^$bin: " "$TMP/err")
    if [ "$rc" = 2 ] && [ ! -s "$TMP/out" ] && [ "$mine" = "$prints" ] &&
        { [ "$prints" = 0 ] || grep -q "^$bin: error: .* but MPI sees 1 rank: launch this .* build with mpirun\.$MPI$" "$TMP/err"; }; then
        ok "launch $bin, $what: exit 2, $prints line(s) $(grep -m1 "^$bin: " "$TMP/err" | cut -c1-150)"
    else
        bad "launch $bin, $what: exit $rc, $mine line(s) of $bin, stdout $(wc -c <"$TMP/out") bytes: $(head -3 "$TMP/err")"
    fi
}

mkdir -p "$TMP/launch"
launch_home=$PWD
while IFS='|' read -r lbin lopts; do
    lopts=${lopts//@/$TMP/launch}
    # shellcheck disable=SC2086
    if command -v "mpirun.$launch_other" >/dev/null 2>&1; then
        launch_expect_refused "by mpirun.$launch_other -n 2 (this build is $MPI)" 1 "$lbin" \
            "mpirun.$launch_other" $launch_flags -n 2 "$launch_home/bin/$lbin" $lopts
    else
        echo "# skip - launch $lbin by mpirun.$launch_other: not installed (apt-get install $([ "$launch_other" = mpich ] && echo mpich || echo openmpi-bin))"
    fi
    # a stand-in launcher that sets only the variables: the first process
    # of the launch says it, the others stop silently
    # shellcheck disable=SC2086
    launch_expect_refused "alone under env PMI_SIZE=2 PMI_RANK=0" 1 "$lbin" env PMI_SIZE=2 PMI_RANK=0 "$launch_home/bin/$lbin" $lopts
    # shellcheck disable=SC2086
    launch_expect_refused "alone under env PMI_SIZE=2 PMI_RANK=1" 0 "$lbin" env PMI_SIZE=2 PMI_RANK=1 "$launch_home/bin/$lbin" $lopts
    # shellcheck disable=SC2086
    launch_expect_refused "alone under env OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=0" 1 "$lbin" \
        env OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=0 "$launch_home/bin/$lbin" $lopts
    # alone, and under a launcher of one, the binary runs
    for lenv in "" "PMI_SIZE=1 PMI_RANK=0"; do
        # shellcheck disable=SC2086
        (cd "$TMP/launch" && timeout -k 10 120 env $lenv "$launch_home/bin/$lbin" $lopts </dev/null >"$TMP/out" 2>"$TMP/err")
        rc=$?
        if [ "$rc" = 0 ] && ! grep -q 'but MPI sees 1' "$TMP/err"; then
            ok "launch $lbin alone${lenv:+ under env $lenv}: runs, exit 0"
        else
            bad "launch $lbin alone${lenv:+ under env $lenv}: exit $rc: $(head -3 "$TMP/err")"
        fi
    done
done <<<"$launch_bins"

# the same binary under its own launcher at 2 ranks runs
run_mpi 2 bin/ra_opt --log2-table 12 --quiet
if [ $? = 0 ] && grep -q "^ranks: 2" "$TMP/out" && grep -q "^status: passed" "$TMP/out"; then
    ok "launch ra_opt by $MPIRUN -n 2: one job of 2 ranks, passed"
else
    bad "launch ra_opt by $MPIRUN -n 2: $(head -3 "$TMP/err")"
fi

# the adapter changes nothing for a program preloaded under a wrong launch:
# pmpi_check prints the same digests with and without it, exit 0 both
for lpre in "" "LD_PRELOAD=$PWD/lib/$MPI/libtorus_pmpi.so"; do
    # shellcheck disable=SC2086
    timeout -k 10 120 env $lpre PMI_SIZE=2 PMI_RANK=0 OMPI_COMM_WORLD_SIZE=2 "$BUILD/tests/pmpi_check" 7 \
        </dev/null >"$TMP/launch/check${lpre:+.pre}" 2>"$TMP/err"
    echo "rc $?" >>"$TMP/launch/check${lpre:+.pre}"
done
if cmp -s "$TMP/launch/check" "$TMP/launch/check.pre" && grep -q '^rc 0$' "$TMP/launch/check" && grep -q '^cases ' "$TMP/launch/check"; then
    ok "launch: the adapter preloaded into pmpi_check under env PMI_SIZE=2 OMPI_COMM_WORLD_SIZE=2 refuses nothing: the same $(grep -c . "$TMP/launch/check") lines and exit 0 as without it"
else
    bad "launch: pmpi_check with and without the adapter under a wrong launch differ: $(diff "$TMP/launch/check" "$TMP/launch/check.pre" | head -3)"
fi
