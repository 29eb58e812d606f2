/* measure.c - ra_calibrate's measures, one function per parameter, in the
 * order main runs them (the order matters: every rank takes part in the
 * same collectives in the same order, and the kernels warm the table for
 * the figures after them).  Each returns the same figure on every rank.
 * ra_calibrate.h says what each one measures and why that way. */
#include "ra_calibrate.h"

/* t_local: the best of the ceiling kernel, the Star kernel (128
 * interleaved streams) and ra_opt's own loop (a prefetching pipeline)
 * on rank 0 alone, the others asleep: the sequential benchmark's t_g +
 * t_u + t_o^s, as low as this kit gets it */
double cal_measure_t_local(cal *c)
{
    double t_local = 0;
    int cap1;
    torus_shape sh1;
    if (!c->rank) {
        cal_star_ns(c->tab, c->lk, c->kern / 4); /* warm: the table's pages and TLB */
        t_local = cal_star_ns(c->tab, c->lk, c->kern);
        double lo = cal_routed_run(MPI_COMM_SELF, MPI_COMM_SELF, "1", c->lk, c->kern, &cap1, &sh1, c->tab) /
                    (double)c->kern * 1e9;
        if (lo < t_local)
            t_local = lo;
        lo = cal_ceiling_ns(c->tab, c->lk, c->kern);
        if (lo < t_local)
            t_local = lo;
    }
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    KIT_MPI_CHECK(MPI_Bcast(&t_local, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    return t_local;
}

/* node_gups: the same two kernels on every rank at once (Star), the
 * best try: other load on the machine only ever slows a try down, and
 * the memory bound is the best rate this node reaches.  A try's rate
 * varies by +-2% from try to try (not with its length: 2^24 to 2^28
 * updates on one rank of 2^27 words all gave 0.070-0.073 GUPS), so
 * where the ranks have a core each four tries of each kernel seek the
 * top of that spread (two found it short of a 7 s run by 1.1%);
 * oversubscribed, a try is ranks / cores times longer and two do */
double cal_measure_node_gups(cal *c)
{
    double node_gups = 0;
    int ntries = c->rpn <= c->cores ? 8 : 4, cap1;
    torus_shape sh1;
    for (int tries = 0; tries < ntries; tries++) {
        double secs;
        if (tries & 1) {
            secs = cal_routed_run(MPI_COMM_SELF, MPI_COMM_WORLD, "1", c->lk, c->kern, &cap1, &sh1, c->tab);
        } else {
            kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
            secs = cal_ceiling_ns(c->tab, c->lk, c->kern) * (double)c->kern / 1e9;
            kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        }
        double g = cal_node_rate(&c->ni, (double)c->kern, secs);
        if (g > node_gups)
            node_gups = g;
    }
    return node_gups;
}

/* HPCC's Star kernel the same way, once: reported beside the ceiling */
double cal_measure_star_gups(cal *c)
{
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    double secs = cal_star_ns(c->tab, c->lk, c->kern) * (double)c->kern / 1e9;
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    return cal_node_rate(&c->ni, (double)c->kern, secs);
}

/* The baseline's local path (paper 002 sec. 6.1), rank 0 alone with the
 * receives the run keeps posted: the loop without tests and with one
 * MPI_Testany per update on a table in cache (t_test: the tests), then
 * with tests on the run's table (local_path; t_exposed = local_path -
 * t_local - t_test once t_local is final: a test between two updates
 * keeps their misses from overlapping, which a local update pays beyond
 * the Star kernel's t_local) */
void cal_measure_local_path(cal *c, double *t_test, double *local_path, int *nrecv_out)
{
    /* local_path NULL: the test alone, in cache (--probe: no run-table loop) */
    double unused;
    int cache_only = local_path == NULL;
    if (cache_only)
        local_path = &unused;
    int nrecv = ra_base_receives(c->P);
    uint64_t small[1024];
    ra_table_init(small, 1024, 0);
    MPI_Comm bc;
    KIT_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &bc));
    MPI_Request req[8];
    uint64_t rbuf[8];
    *t_test = 0, *local_path = 0;
    for (int i = 0; i < nrecv; i++)
        KIT_MPI_CHECK(MPI_Irecv(&rbuf[i], 1, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, bc, &req[i]));
    if (!c->rank) {
        uint64_t n = c->per_rank / 2;
        double best_c = 1e30, best_a = 1e30, best_b = 1e30;
        /* four tries: on one rank this path is the baseline's whole run,
         * whose bound it is, and a try's rate spreads +-2% */
        for (int rep = 0; rep < 4; rep++) {
            double t0 = MPI_Wtime();
            cal_base_local_path(small, 10, n, nrecv, req, 0);
            double c0 = (MPI_Wtime() - t0) / (double)n * 1e9;
            t0 = MPI_Wtime();
            cal_base_local_path(small, 10, n, nrecv, req, 1);
            double a0 = (MPI_Wtime() - t0) / (double)n * 1e9;
            double b0 = 0;
            if (!cache_only) {
                t0 = MPI_Wtime();
                cal_base_local_path(c->tab, c->lk, n, nrecv, req, 1);
                b0 = (MPI_Wtime() - t0) / (double)n * 1e9;
            }
            best_c = c0 < best_c ? c0 : best_c;
            best_a = a0 < best_a ? a0 : best_a;
            best_b = b0 < best_b ? b0 : best_b;
        }
        *t_test = best_a > best_c ? best_a - best_c : 0;
        *local_path = best_b;
    }
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    for (int i = 0; i < nrecv; i++) {
        KIT_MPI_CHECK(MPI_Cancel(&req[i]));
        KIT_MPI_CHECK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    }
    KIT_MPI_CHECK(MPI_Comm_free(&bc));
    KIT_MPI_CHECK(MPI_Bcast(t_test, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Bcast(local_path, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    *nrecv_out = nrecv;
}

/* t_send, t_recv per payload (two ranks or more), in ns of a core */
void cal_measure_message_costs(cal *c, double *ts, double *tr)
{
    cal_message_costs(c->rank, c->P, c->reps, c->warm, ts, tr);
    for (int k = 0; k < NS; k++)
        ts[k] *= c->share, tr[k] *= c->share;
}

/* link_bw: 64 KiB ping-pong between ranks 0 and 1, the others asleep;
 * the least of 20 half round trips (two ranks or more) */
double cal_measure_link_bw(cal *c)
{
    int n = 1 << 16;
    char *big = calloc((size_t)n, 1);
    if (!torus_all_ok(MPI_COMM_WORLD, big != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate 64 KiB\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    double best = 1e30, link_bw;
    for (int rep = 0; rep < 20; rep++) {
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (c->rank == 0) {
            KIT_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
            KIT_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (c->rank == 1) {
            KIT_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            KIT_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
        }
        double dt = (MPI_Wtime() - t0) / 2;
        if (dt < best)
            best = dt;
    }
    link_bw = n / best;
    KIT_MPI_CHECK(MPI_Bcast(&link_bw, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    free(big);
    return link_bw;
}

/* ra_opt itself on every rank, the run's table: its shape (*cap, *shape),
 * and the rate t_wait_routed is fitted to, in GUPS.  The run's own count
 * (HPCC's 4 x table), so that its start and drain weigh what they weigh
 * in the run predicted: on oversubscribed nodes they are a fixed cost of
 * a few tenths of a second (8 ranks on 2 cores, 2^25 words: a
 * 2^25-update fit ran at 0.069 GUPS, the 2^27 updates of the run itself
 * at 0.118).  At most 2^29 (about a second a try on this VM's two
 * ranks), at least 2^24 */
double cal_measure_routed_gups(cal *c, int *cap, torus_shape *shape)
{
    uint64_t U = 4ULL << c->op.log2;
    if (U > (1ULL << 29))
        U = 1ULL << 29;
    if (U < (1ULL << 24))
        U = 1ULL << 24; /* at least a few tenths of a second on few ranks: shorter fits are noise */
    double routed = 1e300;
    for (int tries = 0; tries < 2; tries++) {
        double dt = cal_routed_run(MPI_COMM_WORLD, MPI_COMM_WORLD, NULL, c->op.log2, U, cap, shape, NULL);
        if (dt < routed)
            routed = dt;
    }
    return (double)U / routed / 1e9;
}

/* t_hop: the routing work alone, in the in-process simulator (rank 0,
 * the others asleep); the least of two tries.  0 when no update hops
 * (H = 0). */
double cal_measure_t_hop(cal *c, const torus_shape *shape, double H)
{
    double t_hop = 0;
    if (H <= 0)
        return 0;
    if (!c->rank) {
        torus_shape one;
        char e[128];
        torus_shape_parse("1", 1, &one, e, sizeof e);
        uint64_t su = (c->op.quick ? 1ULL << 20 : 1ULL << 22);
        double best = 1e30;
        for (int tries = 0; tries < 2; tries++) {
            double a = cal_sim_ns_per_update(shape, su), b = cal_sim_ns_per_update(&one, su);
            if (a >= 0 && b >= 0 && (a - b) / H < best)
                best = (a - b) / H;
        }
        t_hop = best < 1e30 && best > 0 ? best : 0;
    }
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    KIT_MPI_CHECK(MPI_Bcast(&t_hop, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    return t_hop;
}

/* The baseline itself (baseline/base_algo.c) on every rank, the run's
 * table: the rate t_wait_direct is fitted to, in GUPS */
double cal_measure_base_gups(cal *c)
{
    int rank = c->rank, P = c->P;
    ra_run run;
    memset(&run, 0, sizeof run);
    run.comm = MPI_COMM_WORLD;
    run.rank = rank, run.nprocs = P;
    run.gen = RA_GEN_LFSR;
    run.log2_table = c->op.log2;
    run.table_size = 1ULL << c->op.log2;
    ra_dist_init(&run.table_dist, run.table_size, P);
    run.local_start = ra_dist_start(&run.table_dist, rank);
    run.local_size = ra_dist_count(&run.table_dist, rank);
    run.table = cal_alloc_table(MPI_COMM_WORLD, run.local_size);
    ra_table_init(run.table, run.local_size, run.local_start);
    run.node = &c->ni;
    char err[256] = "";
    if (ra_base_algorithm.setup(&run, err, sizeof err)) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    ra_dist ud;
    uint64_t BU = c->per_rank / 2 * (uint64_t)P;
    if (BU < (1ULL << 22))
        BU = 1ULL << 22;
    ra_dist_init(&ud, BU, P);
    double best = 1e300;
    /* on one rank this run is the bound's own loop (below): four tries
     * seek the top of its spread, elsewhere it only fits a wait */
    int btries = P == 1 ? 4 : 2;
    for (int tries = 0; tries < btries; tries++) {
        run.upd_start = ra_dist_start(&ud, rank);
        run.upd_count = ra_dist_count(&ud, rank);
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        ra_base_algorithm.update(&run);
        double mine = MPI_Wtime() - t0, dt;
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        KIT_MPI_CHECK(MPI_Allreduce(&mine, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        if (dt < best)
            best = dt;
    }
    ra_base_algorithm.teardown(&run);
    ra_table_free(run.table, run.local_size ? run.local_size : 1);
    return (double)BU / best / 1e9;
}
