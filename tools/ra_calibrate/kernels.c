/* kernels.c - the timed loops and exchanges ra_calibrate's measures share:
 * the kernels on a rank's table, ra_opt's run, the baseline's local path,
 * Table 1's message costs, and a barrier the waiting ranks sleep in. */
#include "ra_calibrate.h"
#include "torus_ticks.h"

#define WAIT_S 200e-6

static void spin(double s)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < s) {
    }
}

uint64_t *cal_alloc_table(MPI_Comm comm, uint64_t words)
{
    int huge;
    uint64_t *t = ra_table_alloc(words ? words : 1, &huge);
    if (!torus_all_ok(comm, t != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate %llu words\n", (unsigned long long)words);
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    return t;
}

/* The routed algorithm with ra_opt's defaults (dims NULL: ra_opt's own
 * shape choice) over comm, table 2^log2 words distributed over comm,
 * `updates` updates in all, started and ended by barriers over sync (every
 * rank's own loop at once: comm MPI_COMM_SELF, sync MPI_COMM_WORLD).
 * `given`: the caller's table of this rank's block (re-initialised here),
 * so that a node never holds two copies of its share; NULL: one of its own.
 * Returns this rank's seconds (the slowest of comm's); fills *cap, *shape. */
double cal_routed_run(MPI_Comm comm, MPI_Comm sync, const char *dims, int log2, uint64_t updates, int *cap,
                  torus_shape *shape, uint64_t *given)
{
    ropt_mpi_options o;
    ropt_mpi_options_defaults(&o);
    o.dims = dims;
    return cal_routed_run_with(comm, sync, &o, log2, updates, cap, shape, given, NULL, NULL);
}

double cal_routed_run_with(MPI_Comm comm, MPI_Comm sync, const ropt_mpi_options *opts, int log2, uint64_t updates,
                           int *cap, torus_shape *shape, uint64_t *given, int *node_shm, double *wait_s)
{
    int rank, P;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &P));
    uint64_t TS = 1ULL << log2;
    ra_dist td, ud;
    ra_dist_init(&td, TS, P);
    ra_dist_init(&ud, updates, P);
    uint64_t *tab = given ? given : cal_alloc_table(comm, ra_dist_count(&td, rank));
    ra_table_init(tab, ra_dist_count(&td, rank), ra_dist_start(&td, rank));
    ropt_mpi_options o = *opts;
    ropt_mpi s;
    char err[256];
    int rc = ropt_mpi_setup(&s, comm, &o, tab, ra_dist_start(&td, rank), ra_dist_count(&td, rank), log2, &td, err,
                            sizeof err);
    if (rc) {
        fprintf(stderr, "ra_calibrate: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    *cap = s.cap;
    *shape = s.shape;
    if (node_shm)
        *node_shm = s.node_shm;
    /* sleeping barriers: a rank done early must not poll away the core of
     * one still working (oversubscribed nodes) */
    kit_mpi_sleepy_barrier(sync);
    double t0 = MPI_Wtime();
    ropt_mpi_run(&s, RA_GEN_LFSR, ra_dist_start(&ud, rank), ra_dist_count(&ud, rank), NULL, NULL);
    double mine = MPI_Wtime() - t0, dt;
    if (wait_s)
        *wait_s = o.profile ? (double)s.core.ticks[ROPT_T_WAIT] / torus_ticks_per_second() : 0;
    kit_mpi_sleepy_barrier(sync);
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &dt, 1, MPI_DOUBLE, MPI_MAX, comm));
    ropt_mpi_free(&s);
    if (!given)
        ra_table_free(tab, ra_dist_count(&td, rank) ? ra_dist_count(&td, rank) : 1);
    return dt;
}

/* A node's rate from each rank's own count and time: its ranks' updates
 * over its slowest rank's time; the mean over nodes, in updates per ns. */
double cal_node_rate(const torus_node_info *ni, double updates, double secs)
{
    double sum = 0, tmax = 0, rate, total;
    KIT_MPI_CHECK(MPI_Allreduce(&updates, &sum, 1, MPI_DOUBLE, MPI_SUM, ni->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&secs, &tmax, 1, MPI_DOUBLE, MPI_MAX, ni->comm));
    rate = ni->local == 0 ? sum / tmax / 1e9 : 0;
    KIT_MPI_CHECK(MPI_Allreduce(&rate, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return total / ni->nnodes;
}

/* The baseline's local path (base_algo.c): generate, update, and (tests)
 * one MPI_Testany over its posted receives per update. */
void cal_base_local_path(uint64_t *t, int lk, uint64_t n, int nrecv, MPI_Request *req, int tests)
{
    uint64_t ran = 1;
    int flag = 0, idx;
    for (uint64_t i = 0; i < n; i++) {
        ran = ra_gen_next(RA_GEN_LFSR, ran);
        t[ra_gen_index(RA_GEN_LFSR, ran, lk)] ^= ran;
        if (tests)
            KIT_MPI_CHECK(MPI_Testany(nrecv, req, &idx, &flag, MPI_STATUS_IGNORE));
    }
}

/* ns per update of the Star kernel (hpcc_ra/ra_local.c, one thread) on a
 * table of 2^lk words: the sequential benchmark's t_g + t_u + t_o^s. */
double cal_star_ns(uint64_t *t, int lk, uint64_t n)
{
    double t0 = MPI_Wtime();
    ra_local_run(t, lk, RA_GEN_LFSR, n);
    return (MPI_Wtime() - t0) / (double)n * 1e9;
}

/* The same for the ceiling kernel (hpcc_ra/ra_ceiling.c) at the kind and
 * depth its trials chose. */
int cal_ceil_kind, cal_ceil_depth;
double cal_ceiling_ns(uint64_t *t, int lk, uint64_t n)
{
    double t0 = MPI_Wtime();
    ra_ceiling_run(t, lk, RA_GEN_LFSR, n, (ra_ceil_kind)cal_ceil_kind, cal_ceil_depth);
    return (MPI_Wtime() - t0) / (double)n * 1e9;
}

/* t_hop's lower figure: ra_opt's state machine (optimized/ropt.c, its
 * defaults) over the in-process transport on `shape`, every rank's block
 * 2^10 words so that no table access leaves the cache and no network
 * waits: ns per update there less the same on one rank, over H.  This is
 * the CPU work of routing alone (what MPI adds is measured, not bounded). */
double cal_sim_ns_per_update(const torus_shape *shape, uint64_t updates)
{
    int lg = 10;
    while ((1 << (lg - 10)) < shape->n)
        lg++;
    ropt_sim_config c;
    memset(&c, 0, sizeof c);
    c.shape = *shape;
    c.log2_table = lg;
    c.gen = RA_GEN_LFSR;
    c.updates = updates;
    ropt_params_defaults(&c.prm);
    c.tp.outstanding = ROPT_DEFAULT_OUTSTANDING;
    c.tp.eager_prob = 1.0;
    c.tp.eager_queue = 1 << 20;
    c.tp.seed = 1;
    ropt_sim_result r;
    double t0 = MPI_Wtime();
    int rc = ropt_sim_run(&c, &r);
    double dt = MPI_Wtime() - t0;
    return rc || r.deadlock ? -1 : dt / (double)updates * 1e9;
}

const int cal_msg_sizes[NS] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

/* Table 1's method, ranks in pairs (2i, 2i+1) at once: the even rank
 * times MPI_Send into a posted receive, the odd one MPI_Recv of a message
 * already there.  The least over the repetitions (a bound's figure: other
 * load only adds), the mean over the pairs, wall ns per call. */
void cal_message_costs(int rank, int P, int reps, int warm, double *ts, double *tr)
{
    char *buf = calloc(8192, 1);
    if (!torus_all_ok(MPI_COMM_WORLD, buf != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate 8 KiB\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    int pairs = P / 2, peer = rank ^ 1, in_pair = rank < 2 * pairs, even = !(rank & 1);
    for (int k = 0; k < NS; k++) {
        double sum_s = 1e30, sum_r = 1e30; /* the least: load only adds */
        for (int rep = 0; rep < reps; rep++) {
            kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
            if (in_pair && !even) {
                KIT_MPI_CHECK(MPI_Recv(buf, cal_msg_sizes[k], MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (in_pair) {
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                KIT_MPI_CHECK(MPI_Send(buf, cal_msg_sizes[k], MPI_BYTE, peer, 1, MPI_COMM_WORLD));
                if (rep >= warm && MPI_Wtime() - t0 < sum_s)
                    sum_s = MPI_Wtime() - t0;
            }
            if (in_pair && even)
                KIT_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            else if (in_pair)
                KIT_MPI_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
            if (in_pair && even) {
                KIT_MPI_CHECK(MPI_Send(buf, cal_msg_sizes[k], MPI_BYTE, peer, 2, MPI_COMM_WORLD));
            } else if (in_pair) {
                /* until the message is here (the sender may wake late
                 * from the barrier), then a while for it to land */
                int here = 0;
                while (!here)
                    KIT_MPI_CHECK(MPI_Iprobe(peer, 2, MPI_COMM_WORLD, &here, MPI_STATUS_IGNORE));
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                KIT_MPI_CHECK(MPI_Recv(buf, cal_msg_sizes[k], MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (rep >= warm && MPI_Wtime() - t0 < sum_r)
                    sum_r = MPI_Wtime() - t0;
            }
            /* the sender stays in MPI until its receiver is done: asleep in
             * the barrier it could not progress a large message */
            if (in_pair && !even)
                KIT_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            else if (in_pair)
                KIT_MPI_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        double s = in_pair && even ? sum_s * 1e9 : 0;
        double r = in_pair && !even ? sum_r * 1e9 : 0;
        KIT_MPI_CHECK(MPI_Allreduce(&s, &ts[k], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        KIT_MPI_CHECK(MPI_Allreduce(&r, &tr[k], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        ts[k] /= pairs, tr[k] /= pairs;
    }
    free(buf);
}

/* A cost per payload of `bytes`, linear in log(bytes) between the sizes. */
double cal_at_payload(const double *c, double bytes)
{
    if (bytes <= cal_msg_sizes[0])
        return c[0];
    for (int k = 1; k < NS; k++)
        if (bytes <= cal_msg_sizes[k]) {
            double w = log(bytes / cal_msg_sizes[k - 1]) / log((double)cal_msg_sizes[k] / cal_msg_sizes[k - 1]);
            return c[k - 1] + w * (c[k] - c[k - 1]);
        }
    return c[NS - 1];
}

int cal_cores_online(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 ? (int)c : 1;
}

