/*
 * ra_calibrate.c - bin/ra_calibrate: measures this machine's model
 * parameters at the rank count of the run to be predicted (mpirun -n P,
 * the run's --log2-table) and writes a torusmodel params file.  It sits in
 * tools/, above both the routed algorithm (optimized/, which it runs) and
 * the calculator (torusmodel/, whose params file it writes).
 *
 * Algorithm: paper 002 sec. 4.1, 4.3.1 (Table 1's method) and 6.1-6.2,
 * with every rank of every node working at once where the run would.
 * Each rank holds its share of the run's table, 2^K / P words.  The bounds
 * take costs measured alone (the least a step can cost); the predictions
 * add what short runs of the two algorithms themselves lose beyond them.
 *   t_local: the best of the ceiling kernel (hpcc_ra/ra_ceiling.c, the
 *     kind and depth its trials on every rank at once chose), the Star
 *     kernel (hpcc_ra/ra_local.c, one thread) and ra_opt's own loop on
 *     rank 0 alone, the others asleep: the sequential benchmark's t_g +
 *     t_u + t_o^s.
 *   node_gups: the ceiling kernel and ra_opt's loop on every rank at once,
 *     the best of four tries each (two when ranks outnumber cores): a
 *     node's ranks' updates over its slowest rank's time, the node memory
 *     system's random-update rate with its ranks sharing it (and never
 *     below the rate ra_opt's run below reached on the node).  HPCC's Star
 *     kernel on every rank at once is measured too and reported
 *     (node_gups_star in the params file's comments), not used: without
 *     prefetches it is not what the memory gives.
 *   A lone figure above the node's share (cores / node rate) is lowered to
 *     it: other load took the lone rank's core.
 *   t_test, t_exposed: the baseline's local path (sec. 6.1) on rank 0 alone
 *     with the receives it keeps posted (ra_base_receives): one
 *     MPI_Testany per update costs t_test (loop with and without tests on a
 *     table in cache); on the run's table a local update then costs
 *     t_local + t_test + t_exposed, as the test between two updates keeps
 *     their misses from overlapping.  Four tries each (the least): on one
 *     rank that path is the whole baseline run the bound is for.
 *   t_send, t_recv: pairs of ranks (0-1, 2-3, ...) at once, Table 1's
 *     method per payload 8..8192 bytes, the least of the repetitions; the
 *     direct model takes the payload of the baseline's mean bucket
 *     (tm_bucket_sim, Table 6).
 *   Figures measured with ranks at once are wall time per rank times
 *     min(1, cores / ranks on the node): cycles of a core, which the model
 *     multiplies back by min(ranks, cores).
 *   t_hop: ra_opt's state machine over the in-process transport on ra_opt's
 *     shape with every block in cache (rank 0 alone): ns per update less
 *     the same on one rank, over H.  The routing work with no memory miss
 *     and no MPI: below what a hop costs in a run, so the CPU bound holds.
 *   t_wait_routed, t_wait_direct: ra_opt (its defaults, its shape, the
 *     run's own 4 x 2^K updates, at most 2^29) and the baseline (baseline/base_algo.c) on all ranks, table 2^K, the better of
 *     two tries each (four of the baseline on one rank): a node's cores
 *     spend used * nodes / GUPS ns per update; what exceeds the CPU bound's
 *     cycles (tm_evaluate) is the wait the prediction adds.  Paper 002 fits t_o^p (sec. 4.3) and t_hop (sec.
 *     6.2) to measured runs the same way.
 *   link_bw: 64 KiB ping-pong between ranks 0 and 1, the others asleep.
 *   Cost: 7-20 s with --quick (2^21 updates per rank per phase, 2^24 for
 *   the kernels), longer otherwise.
 * Figures are written in nanoseconds with clock_hz = 1e9.
 */
#include "base_algo.h"
#include "ra.h"
#include "ra_dist.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ra_tests_local.h"
#include "ropt_mpi.h"
#include "ropt_sim.h"
#include "torus_cli.h"
#include "torus_io.h"
#include "torus_mem.h"
#include "torus_opt.h"
#include "torusmodel.h"

#include <math.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define WAIT_S 200e-6

static void spin(double s)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < s) {
    }
}

/* A barrier the waiting ranks sleep in, so a rank measured alone has its
 * core (MPI_Barrier polls, which on an oversubscribed node steals it). */
static void sleepy_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    TORUS_MPI_CHECK(MPI_Ibarrier(comm, &rq));
    for (;;) {
        TORUS_MPI_CHECK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        if (done)
            break;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

enum { CAL_LOG2 = 1, CAL_QUICK, CAL_OUTPUT, CAL_LINK_BW, CAL_DRY_RUN, CAL_HELP, CAL_VERSION };

static const torus_opt cal_spec[] = {
    {.name = "log2-table", .type = TORUS_OPT_LONG, .id = CAL_LOG2, .meta = "K", .defval = "25",
     .help = "the run's global table of 2^K words, K in 10..40; each rank holds 2^K / P words", .lo = 10, .hi = 40},
    {.name = "quick", .type = TORUS_OPT_FLAG, .id = CAL_QUICK, .defval = "off",
     .help = "2^21 updates per rank per phase, fewer repetitions: 7-20 s"},
    {.name = "output", .type = TORUS_OPT_FILE_OUT, .id = CAL_OUTPUT, .meta = "FILE", .defval = "calibration.params",
     .help = "params file to write"},
    {.name = "link-bw", .type = TORUS_OPT_DOUBLE, .id = CAL_LINK_BW, .meta = "B",
     .defval = "measured 64 KiB ping-pong, 1e12 on one rank", .help = "link bandwidth to record, bytes/s",
     .lo = TM_PARAM_MIN, .hi = TM_PARAM_MAX, .allowed = "a number > 0, in 1e-30..1e30"},
    {.name = "dry-run", .type = TORUS_OPT_FLAG, .id = CAL_DRY_RUN, .defval = "off",
     .help = "check the options and the output's folder, then exit 0 without measuring or writing"},
    {.name = "help", .type = TORUS_OPT_FLAG, .id = CAL_HELP, .help = "this help"},
    {.name = "version", .type = TORUS_OPT_FLAG, .id = CAL_VERSION, .help = "the version"},
    {0},
};

static void usage(void)
{
    printf("usage: mpirun -n P bin/ra_calibrate [options]   (P = the run's ranks, >= 1)\n"
           "Measures, at P ranks on the nodes the run will use: the node random-update rate (the\n"
           "ceiling kernel on all ranks at once: the memory bound; Star beside it), t_local, the\n"
           "baseline's MPI_Testany and exposed-miss costs, t_send/t_recv per payload (paper 002\n"
           "Table 1's method, ranks in pairs at once), t_hop (the routing work alone), and the waits\n"
           "runs of ra_opt (at the run's own update count) and the baseline show beyond those;\n"
           "writes a params file for bin/torusmodel --params.\n");
    torus_opt_help(stdout, cal_spec);
    printf("options are checked before MPI starts; a bad one is one line and exit 2\n"
           "exit: 0 ok, 2 bad input, 3 resource error (memory, files, MPI)\n");
}

typedef struct cal_opts {
    int log2, quick, dry_run;
    const char *out;
    double link_bw;
} cal_opts;

/* One option into the cal_opts ctx (torus_opt_fn): 1 --help, 2 --version. */
static int take(void *ctx, const torus_opt *o, const torus_opt_val *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cal_opts *c = ctx;
    switch (o->id) {
    case CAL_HELP:
        return 1;
    case CAL_VERSION:
        return 2;
    case CAL_LOG2:
        c->log2 = (int)v->l;
        break;
    case CAL_QUICK:
        c->quick = 1;
        break;
    case CAL_OUTPUT:
        c->out = v->s;
        break;
    case CAL_LINK_BW:
        c->link_bw = v->d;
        break;
    case CAL_DRY_RUN:
        c->dry_run = 1;
        break;
    }
    return 0;
}

/* Options, before MPI starts, the same on every process; the first of the
 * launch (torus_launch_first) prints --help, --version or the one error
 * line.  Returns -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, int first, cal_opts *o)
{
    char err[400] = "";
    int rc = torus_opt_parse(cal_spec, argc, argv, 0, take, o, NULL, err, sizeof err);
    if (rc == 1 || rc == 2) {
        if (first && rc == 1)
            usage();
        else if (first)
            printf("ra_calibrate (hpcc-ra) %s\n", RA_VERSION);
        return first ? torus_stdout_end(TORUS_EXIT_OK) : TORUS_EXIT_OK;
    }
    if (rc) {
        if (first)
            fprintf(stderr, "ra_calibrate: %s\n", err);
        return TORUS_EXIT_USAGE;
    }
    /* --dry-run: the output's folder, as rank 0 checks it before measuring */
    if (o->dry_run) {
        if (first && torus_outfile_probe(o->out, err, sizeof err)) {
            fprintf(stderr, "ra_calibrate: --output: %s\n", err);
            return TORUS_EXIT_USAGE;
        }
        return first ? torus_stdout_end(TORUS_EXIT_OK) : TORUS_EXIT_OK;
    }
    return -1;
}

/* The table as the kit's runs allocate it (huge pages where the kernel
 * allows: a table on 4 KiB pages would time the TLB, not the run). */
static uint64_t *alloc_table(MPI_Comm comm, uint64_t words)
{
    int huge;
    uint64_t *t = ra_table_alloc(words ? words : 1, &huge);
    if (!torus_all_ok(comm, t != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate %llu words\n", (unsigned long long)words);
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
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
static double routed_run(MPI_Comm comm, MPI_Comm sync, const char *dims, int log2, uint64_t updates, int *cap,
                         torus_shape *shape, uint64_t *given)
{
    int rank, P;
    TORUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    TORUS_MPI_CHECK(MPI_Comm_size(comm, &P));
    uint64_t TS = 1ULL << log2;
    ra_dist td, ud;
    ra_dist_init(&td, TS, P);
    ra_dist_init(&ud, updates, P);
    uint64_t *tab = given ? given : alloc_table(comm, ra_dist_count(&td, rank));
    ra_table_init(tab, ra_dist_count(&td, rank), ra_dist_start(&td, rank));
    ropt_mpi_options o;
    ropt_mpi_options_defaults(&o);
    o.dims = dims;
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
    /* sleeping barriers: a rank done early must not poll away the core of
     * one still working (oversubscribed nodes) */
    sleepy_barrier(sync);
    double t0 = MPI_Wtime();
    ropt_mpi_run(&s, RA_GEN_LFSR, ra_dist_start(&ud, rank), ra_dist_count(&ud, rank), NULL, NULL);
    double mine = MPI_Wtime() - t0, dt;
    sleepy_barrier(sync);
    TORUS_MPI_CHECK(MPI_Allreduce(&mine, &dt, 1, MPI_DOUBLE, MPI_MAX, comm));
    ropt_mpi_free(&s);
    if (!given)
        ra_table_free(tab, ra_dist_count(&td, rank) ? ra_dist_count(&td, rank) : 1);
    return dt;
}

/* A node's rate from each rank's own count and time: its ranks' updates
 * over its slowest rank's time; the mean over nodes, in updates per ns. */
static double node_rate(const torus_node_info *ni, double updates, double secs)
{
    double sum = 0, tmax = 0, rate, total;
    TORUS_MPI_CHECK(MPI_Allreduce(&updates, &sum, 1, MPI_DOUBLE, MPI_SUM, ni->comm));
    TORUS_MPI_CHECK(MPI_Allreduce(&secs, &tmax, 1, MPI_DOUBLE, MPI_MAX, ni->comm));
    rate = ni->local == 0 ? sum / tmax / 1e9 : 0;
    TORUS_MPI_CHECK(MPI_Allreduce(&rate, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return total / ni->nnodes;
}

/* The baseline's local path (base_algo.c): generate, update, and (tests)
 * one MPI_Testany over its posted receives per update. */
static void base_local_path(uint64_t *t, int lk, uint64_t n, int nrecv, MPI_Request *req, int tests)
{
    uint64_t ran = 1;
    int flag = 0, idx;
    for (uint64_t i = 0; i < n; i++) {
        ran = ra_gen_next(RA_GEN_LFSR, ran);
        t[ra_gen_index(RA_GEN_LFSR, ran, lk)] ^= ran;
        if (tests)
            TORUS_MPI_CHECK(MPI_Testany(nrecv, req, &idx, &flag, MPI_STATUS_IGNORE));
    }
}

/* ns per update of the Star kernel (hpcc_ra/ra_local.c, one thread) on a
 * table of 2^lk words: the sequential benchmark's t_g + t_u + t_o^s. */
static double star_ns(uint64_t *t, int lk, uint64_t n)
{
    double t0 = MPI_Wtime();
    ra_local_run(t, lk, RA_GEN_LFSR, n);
    return (MPI_Wtime() - t0) / (double)n * 1e9;
}

/* The same for the ceiling kernel (hpcc_ra/ra_ceiling.c) at the kind and
 * depth its trials chose. */
static int ceil_kind, ceil_depth;
static double ceiling_ns(uint64_t *t, int lk, uint64_t n)
{
    double t0 = MPI_Wtime();
    ra_ceiling_run(t, lk, RA_GEN_LFSR, n, (ra_ceil_kind)ceil_kind, ceil_depth);
    return (MPI_Wtime() - t0) / (double)n * 1e9;
}

/* t_hop's lower figure: ra_opt's state machine (optimized/ropt.c, its
 * defaults) over the in-process transport on `shape`, every rank's block
 * 2^10 words so that no table access leaves the cache and no network
 * waits: ns per update there less the same on one rank, over H.  This is
 * the CPU work of routing alone (what MPI adds is measured, not bounded). */
static double sim_ns_per_update(const torus_shape *shape, uint64_t updates)
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

static const int sizes[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
enum { NS = sizeof sizes / sizeof *sizes };

/* Table 1's method, ranks in pairs (2i, 2i+1) at once: the even rank
 * times MPI_Send into a posted receive, the odd one MPI_Recv of a message
 * already there.  The least over the repetitions (a bound's figure: other
 * load only adds), the mean over the pairs, wall ns per call. */
static void message_costs(int rank, int P, int reps, int warm, double *ts, double *tr)
{
    char *buf = calloc(8192, 1);
    if (!torus_all_ok(MPI_COMM_WORLD, buf != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate 8 KiB\n");
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
    int pairs = P / 2, peer = rank ^ 1, in_pair = rank < 2 * pairs, even = !(rank & 1);
    for (int k = 0; k < NS; k++) {
        double sum_s = 1e30, sum_r = 1e30; /* the least: load only adds */
        for (int rep = 0; rep < reps; rep++) {
            sleepy_barrier(MPI_COMM_WORLD);
            if (in_pair && !even) {
                TORUS_MPI_CHECK(MPI_Recv(buf, sizes[k], MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (in_pair) {
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                TORUS_MPI_CHECK(MPI_Send(buf, sizes[k], MPI_BYTE, peer, 1, MPI_COMM_WORLD));
                if (rep >= warm && MPI_Wtime() - t0 < sum_s)
                    sum_s = MPI_Wtime() - t0;
            }
            if (in_pair && even)
                TORUS_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            else if (in_pair)
                TORUS_MPI_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            sleepy_barrier(MPI_COMM_WORLD);
            if (in_pair && even) {
                TORUS_MPI_CHECK(MPI_Send(buf, sizes[k], MPI_BYTE, peer, 2, MPI_COMM_WORLD));
            } else if (in_pair) {
                /* until the message is here (the sender may wake late
                 * from the barrier), then a while for it to land */
                int here = 0;
                while (!here)
                    TORUS_MPI_CHECK(MPI_Iprobe(peer, 2, MPI_COMM_WORLD, &here, MPI_STATUS_IGNORE));
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                TORUS_MPI_CHECK(MPI_Recv(buf, sizes[k], MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (rep >= warm && MPI_Wtime() - t0 < sum_r)
                    sum_r = MPI_Wtime() - t0;
            }
            /* the sender stays in MPI until its receiver is done: asleep in
             * the barrier it could not progress a large message */
            if (in_pair && !even)
                TORUS_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            else if (in_pair)
                TORUS_MPI_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        double s = in_pair && even ? sum_s * 1e9 : 0;
        double r = in_pair && !even ? sum_r * 1e9 : 0;
        TORUS_MPI_CHECK(MPI_Allreduce(&s, &ts[k], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        TORUS_MPI_CHECK(MPI_Allreduce(&r, &tr[k], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        ts[k] /= pairs, tr[k] /= pairs;
    }
    free(buf);
}

/* A cost per payload of `bytes`, linear in log(bytes) between the sizes. */
static double at_payload(const double *c, double bytes)
{
    if (bytes <= sizes[0])
        return c[0];
    for (int k = 1; k < NS; k++)
        if (bytes <= sizes[k]) {
            double w = log(bytes / sizes[k - 1]) / log((double)sizes[k] / sizes[k - 1]);
            return c[k - 1] + w * (c[k] - c[k - 1]);
        }
    return c[NS - 1];
}

static int cores_online(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 ? (int)c : 1;
}

int main(int argc, char **argv)
{
    torus_stdout_begin(argv[0]);
    cal_opts op = {25, 0, 0, "calibration.params", 0};
    int prc = parse_options(argc, argv, torus_launch_first(), &op);
    if (prc >= 0)
        return prc;
    MPI_Init(&argc, &argv);
    TORUS_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rank, P;
    TORUS_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TORUS_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &P));
    /* the output is checked before the measuring, written at the end
     * through a temporary (torus_io.h) */
    char ferr[400] = "";
    int out_ok = rank || !torus_outfile_probe(op.out, ferr, sizeof ferr);
    TORUS_MPI_CHECK(MPI_Bcast(&out_ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!out_ok) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
        MPI_Finalize();
        return TORUS_EXIT_USAGE;
    }
    torus_node_info ni;
    char nerr[600];
    int nrc = torus_node_discover(MPI_COMM_WORLD, &ni, nerr, sizeof nerr);
    if (nrc) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: %s\n", nerr);
        MPI_Finalize();
        return nrc == -2 ? TORUS_EXIT_USAGE : TORUS_EXIT_RESOURCE;
    }
    int cores = cores_online(), cmin;
    TORUS_MPI_CHECK(MPI_Allreduce(&cores, &cmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    cores = cmin;
    double rpn = (double)P / ni.nnodes;              /* ranks per node */
    double used = rpn < cores ? rpn : cores;         /* cores at work per node */
    double share = used / rpn;                       /* wall ns -> core ns */
    /* each rank's share of the run's table, a power of two */
    int lk = op.log2;
    while (lk > 10 && (1ULL << lk) * (uint64_t)1 > (1ULL << op.log2) / (uint64_t)P)
        lk--;
    uint64_t LS = 1ULL << lk;
    /* the one memory check, before any table: a rank holds its share of
     * the run's table (at least 2^10 words) at a time */
    {
        uint64_t share_words = ((1ULL << op.log2) + (uint64_t)P - 1) / (uint64_t)P;
        torus_mem_verdict v;
        if (!torus_mem_fits(MPI_COMM_WORLD, &ni, 8.0 * (double)(share_words > LS ? share_words : LS), &v)) {
            if (v.speaker)
                fprintf(stderr,
                        "ra_calibrate: error: table of 2^%d words needs %.2f GiB on this node (%d ranks) but only "
                        "%.2f GiB is available: allowed a smaller --log2-table\n",
                        op.log2, v.node_need / (double)(1ULL << 30), v.ranks, (double)v.avail / (double)(1ULL << 30));
            torus_node_free(&ni);
            MPI_Finalize();
            return TORUS_EXIT_RESOURCE;
        }
    }
    uint64_t per_rank = op.quick ? 1ULL << 21 : 1ULL << 23;
    if (per_rank > 4 * LS)
        per_rank = 4 * LS;
    int reps = op.quick ? 30 : 120, warm = op.quick ? 5 : 20;
    int cap1;
    torus_shape sh1;
    /* the kernels behind the bounds run longer than a phase: their rate
     * still creeps up over the first tenths of a second */
    uint64_t kern = per_rank < (1ULL << 24) ? 1ULL << 24 : per_rank;
#ifdef _OPENMP
    omp_set_num_threads(1); /* one thread per rank, as the runs */
#endif
    uint64_t *tab = alloc_table(MPI_COMM_WORLD, LS);
    ra_table_init(tab, LS, 0);

    /* the ceiling kernel's kind and depth: every setting tried on every
     * rank at once, as the run will share the memory */
    double trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS];
    ra_ceiling_pick(MPI_COMM_WORLD, tab, lk, RA_GEN_LFSR, kern, trials, &ceil_kind, &ceil_depth);

    /* t_local: the best of the ceiling kernel, the Star kernel (128
     * interleaved streams) and ra_opt's own loop (a prefetching pipeline)
     * on rank 0 alone, the others asleep: the sequential benchmark's t_g +
     * t_u + t_o^s, as low as this kit gets it */
    double t_local = 0;
    if (!rank) {
        star_ns(tab, lk, kern / 4); /* warm: the table's pages and TLB */
        t_local = star_ns(tab, lk, kern);
        double lo = routed_run(MPI_COMM_SELF, MPI_COMM_SELF, "1", lk, kern, &cap1, &sh1, tab) / (double)kern * 1e9;
        if (lo < t_local)
            t_local = lo;
        lo = ceiling_ns(tab, lk, kern);
        if (lo < t_local)
            t_local = lo;
    }
    sleepy_barrier(MPI_COMM_WORLD);
    TORUS_MPI_CHECK(MPI_Bcast(&t_local, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));

    /* node_gups: the same two kernels on every rank at once (Star), the
     * best try: other load on the machine only ever slows a try down, and
     * the memory bound is the best rate this node reaches.  A try's rate
     * varies by +-2% from try to try (not with its length: 2^24 to 2^28
     * updates on one rank of 2^27 words all gave 0.070-0.073 GUPS), so
     * where the ranks have a core each four tries of each kernel seek the
     * top of that spread (two found it short of a 7 s run by 1.1%);
     * oversubscribed, a try is ranks / cores times longer and two do */
    double node_gups = 0, star_gups = 0;
    int ntries = rpn <= cores ? 8 : 4;
    for (int tries = 0; tries < ntries; tries++) {
        double secs;
        if (tries & 1) {
            secs = routed_run(MPI_COMM_SELF, MPI_COMM_WORLD, "1", lk, kern, &cap1, &sh1, tab);
        } else {
            sleepy_barrier(MPI_COMM_WORLD);
            secs = ceiling_ns(tab, lk, kern) * (double)kern / 1e9;
            sleepy_barrier(MPI_COMM_WORLD);
        }
        double g = node_rate(&ni, (double)kern, secs);
        if (g > node_gups)
            node_gups = g;
    }
    /* HPCC's Star kernel the same way, once: reported beside the ceiling */
    {
        sleepy_barrier(MPI_COMM_WORLD);
        double secs = star_ns(tab, lk, kern) * (double)kern / 1e9;
        sleepy_barrier(MPI_COMM_WORLD);
        star_gups = node_rate(&ni, (double)kern, secs);
    }

    /* the baseline's local path (paper 002 sec. 6.1), rank 0 alone with the
     * receives the run keeps posted: the loop without tests and with one
     * MPI_Testany per update on a table in cache (t_test: the tests), then
     * with tests on the run's table (t_exposed: a test between two updates
     * keeps their misses from overlapping, which a local update pays beyond
     * the Star kernel's t_local) */
    double t_test = 0, local_path = 0; /* t_exposed = local_path - t_local - t_test, once t_local is final */
    int nrecv = ra_base_receives(P);
    {
        uint64_t small[1024];
        ra_table_init(small, 1024, 0);
        MPI_Comm bc;
        TORUS_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &bc));
        MPI_Request req[8];
        uint64_t rbuf[8];
        for (int i = 0; i < nrecv; i++)
            TORUS_MPI_CHECK(MPI_Irecv(&rbuf[i], 1, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, bc, &req[i]));
        if (!rank) {
            uint64_t n = per_rank / 2;
            double best_c = 1e30, best_a = 1e30, best_b = 1e30;
            /* four tries: on one rank this path is the baseline's whole run,
             * whose bound it is, and a try's rate spreads +-2% */
            for (int rep = 0; rep < 4; rep++) {
                double t0 = MPI_Wtime();
                base_local_path(small, 10, n, nrecv, req, 0);
                double c0 = (MPI_Wtime() - t0) / (double)n * 1e9;
                t0 = MPI_Wtime();
                base_local_path(small, 10, n, nrecv, req, 1);
                double a0 = (MPI_Wtime() - t0) / (double)n * 1e9;
                t0 = MPI_Wtime();
                base_local_path(tab, lk, n, nrecv, req, 1);
                double b0 = (MPI_Wtime() - t0) / (double)n * 1e9;
                best_c = c0 < best_c ? c0 : best_c;
                best_a = a0 < best_a ? a0 : best_a;
                best_b = b0 < best_b ? b0 : best_b;
            }
            t_test = best_a > best_c ? best_a - best_c : 0;
            local_path = best_b;
        }
        sleepy_barrier(MPI_COMM_WORLD);
        for (int i = 0; i < nrecv; i++) {
            TORUS_MPI_CHECK(MPI_Cancel(&req[i]));
            TORUS_MPI_CHECK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        }
        TORUS_MPI_CHECK(MPI_Comm_free(&bc));
        TORUS_MPI_CHECK(MPI_Bcast(&t_test, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        TORUS_MPI_CHECK(MPI_Bcast(&local_path, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }
    ra_table_free(tab, LS);

    /* a core alone is never slower than its share of the node at work: when
     * it measured slower, other load on the machine took its core while it
     * ran alone; the share is then the better figure for the CPU bound */
    if (t_local > used / node_gups)
        t_local = used / node_gups;

    /* message costs per payload, and the link, with two ranks or more */
    double ts[NS] = {0}, tr[NS] = {0}, link_bw = op.link_bw;
    if (P >= 2) {
        message_costs(rank, P, reps, warm, ts, tr);
        for (int k = 0; k < NS; k++)
            ts[k] *= share, tr[k] *= share;
        if (link_bw <= 0) {
            int n = 1 << 16;
            char *big = calloc((size_t)n, 1);
            if (!torus_all_ok(MPI_COMM_WORLD, big != NULL)) {
                fprintf(stderr, "ra_calibrate: cannot allocate 64 KiB\n");
                MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
            }
            double best = 1e30;
            for (int rep = 0; rep < 20; rep++) {
                sleepy_barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (rank == 0) {
                    TORUS_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
                    TORUS_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                } else if (rank == 1) {
                    TORUS_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    TORUS_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
                }
                double dt = (MPI_Wtime() - t0) / 2;
                if (dt < best)
                    best = dt;
            }
            link_bw = n / best;
            TORUS_MPI_CHECK(MPI_Bcast(&link_bw, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
            free(big);
        }
    }
    if (link_bw <= 0)
        link_bw = 1e12; /* one rank: nothing crosses a link; a figure the file can hold */

    /* ra_opt itself on every rank, the run's table: its shape, and the
     * rate t_wait_routed is fitted to */
    int cap;
    torus_shape shape;
    /* the run's own count (HPCC's 4 x table), so that its start and drain
     * weigh what they weigh in the run predicted: on oversubscribed nodes
     * they are a fixed cost of a few tenths of a second (8 ranks on 2
     * cores, 2^25 words: a 2^25-update fit ran at 0.069 GUPS, the 2^27
     * updates of the run itself at 0.118).  At most 2^29 (about a second
     * a try on this VM's two ranks), at least 2^24 */
    uint64_t U = 4ULL << op.log2;
    if (U > (1ULL << 29))
        U = 1ULL << 29;
    if (U < (1ULL << 24))
        U = 1ULL << 24; /* at least a few tenths of a second on few ranks: shorter fits are noise */
    double routed = 1e300;
    for (int tries = 0; tries < 2; tries++) {
        double dt = routed_run(MPI_COMM_WORLD, MPI_COMM_WORLD, NULL, op.log2, U, &cap, &shape, NULL);
        if (dt < routed)
            routed = dt;
    }
    double H = torus_expected_hops(&shape);
    double routed_gups = (double)U / routed / 1e9;
    /* what the node's memory did in that run bounds it too: the memory
     * bound is the best rate seen, and on one rank (no hop) the run is the
     * local kernel itself, whose rate varies by some percent run to run */
    if (routed_gups / ni.nnodes > node_gups)
        node_gups = routed_gups / ni.nnodes;
    if (H == 0 && used * ni.nnodes / routed_gups < t_local)
        t_local = used * ni.nnodes / routed_gups;
    if (t_local > used / node_gups)
        t_local = used / node_gups;

    /* t_hop: the routing work alone, in the in-process simulator (rank 0,
     * the others asleep); the least of two tries */
    double t_hop = 0;
    if (H > 0) {
        if (!rank) {
            torus_shape one;
            char e[128];
            torus_shape_parse("1", 1, &one, e, sizeof e);
            uint64_t su = (op.quick ? 1ULL << 20 : 1ULL << 22);
            double best = 1e30;
            for (int tries = 0; tries < 2; tries++) {
                double a = sim_ns_per_update(&shape, su), b = sim_ns_per_update(&one, su);
                if (a >= 0 && b >= 0 && (a - b) / H < best)
                    best = (a - b) / H;
            }
            t_hop = best < 1e30 && best > 0 ? best : 0;
        }
        sleepy_barrier(MPI_COMM_WORLD);
        TORUS_MPI_CHECK(MPI_Bcast(&t_hop, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }

    /* the baseline itself (baseline/base_algo.c) on every rank, the run's
     * table: the rate t_wait_direct is fitted to */
    double base_gups = 0;
    {
        ra_run run;
        memset(&run, 0, sizeof run);
        run.comm = MPI_COMM_WORLD;
        run.rank = rank, run.nprocs = P;
        run.gen = RA_GEN_LFSR;
        run.log2_table = op.log2;
        run.table_size = 1ULL << op.log2;
        ra_dist_init(&run.table_dist, run.table_size, P);
        run.local_start = ra_dist_start(&run.table_dist, rank);
        run.local_size = ra_dist_count(&run.table_dist, rank);
        run.table = alloc_table(MPI_COMM_WORLD, run.local_size);
        ra_table_init(run.table, run.local_size, run.local_start);
        run.node = &ni;
        char err[256] = "";
        if (ra_base_algorithm.setup(&run, err, sizeof err)) {
            if (!rank)
                fprintf(stderr, "ra_calibrate: %s\n", err);
            MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
        }
        ra_dist ud;
        uint64_t BU = per_rank / 2 * (uint64_t)P;
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
            sleepy_barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            ra_base_algorithm.update(&run);
            double mine = MPI_Wtime() - t0, dt;
            sleepy_barrier(MPI_COMM_WORLD);
            TORUS_MPI_CHECK(MPI_Allreduce(&mine, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            if (dt < best)
                best = dt;
        }
        ra_base_algorithm.teardown(&run);
        ra_table_free(run.table, run.local_size ? run.local_size : 1);
        base_gups = (double)BU / best / 1e9;
    }

    /* the baseline's mean bucket: its message's payload */
    double bucket = P >= 2 ? tm_bucket_sim(P, 1024, 100000, 1) : 1;
    if (bucket < 1)
        bucket = 1;

    /* the local path's cost less the final t_local (lowered above by the
     * node's share or the routed run on one rank) and the test */
    /* (on one rank the baseline's run is that local path itself, whose
     * rate varies by some percent run to run: the faster figure) */
    if (P == 1 && used * ni.nnodes / base_gups < local_path)
        local_path = used * ni.nnodes / base_gups;
    double t_exposed = local_path - t_local - t_test > 0 ? local_path - t_local - t_test : 0;

    tm_params prm;
    tm_params_defaults(&prm);
    prm.clock_hz = 1e9;
    prm.t_local = t_local;
    prm.t_local_plain = 0;
    prm.t_test = t_test;
    prm.t_exposed = t_exposed;
    prm.t_send = at_payload(ts, 8 * bucket);
    prm.t_recv = at_payload(tr, 8 * bucket);
    prm.updates_per_message = bucket;
    prm.t_overhead = 0;
    prm.t_hop = t_hop;
    prm.bytes_per_update = 8.0 + 32.0 / cap; /* 8 bytes + a 32-byte envelope shared by a full bucket */
    prm.link_bw = link_bw;
    prm.ranks_per_node = ceil(rpn);
    prm.cores_per_node = cores;
    prm.nnode = 1;
    prm.node_ranks[0] = ceil(rpn);
    prm.node_rate[0] = node_gups;
    prm.nshapes = 1;
    prm.shapes[0] = shape;
    /* the waits: cycles a node's cores spent per update in the two runs,
     * less the CPU bound's cycles (tm_evaluate on the run's own shape) */
    double cyc_routed = 0, cyc_direct = 0;
    {
        tm_row row;
        char e[256];
        prm.algorithm = TM_ROUTED;
        if (tm_evaluate(&prm, &shape, &row, e, sizeof e) == 0)
            cyc_routed = row.cycles_per_update;
        torus_shape flat;
        char fs[32];
        snprintf(fs, sizeof fs, "%d", P);
        prm.algorithm = TM_DIRECT;
        if (torus_shape_parse(fs, P, &flat, e, sizeof e) == 0 && tm_evaluate(&prm, &flat, &row, e, sizeof e) == 0)
            cyc_direct = row.cycles_per_update;
        prm.algorithm = TM_ROUTED;
    }
    double spent_routed = ni.nnodes / routed_gups * used, spent_direct = ni.nnodes / base_gups * used;
    /* a bound its own algorithm's run beat was measured high (the lone
     * figures, e.g. a test's cost with the other ranks asleep, are not
     * always the least): its algorithm's costs beyond t_local are lowered
     * in proportion until the bound's work is what that run spent */
    if (cyc_direct > spent_direct && cyc_direct > t_local) {
        double k = spent_direct > t_local ? (spent_direct - t_local) / (cyc_direct - t_local) : 0;
        prm.t_test *= k, prm.t_exposed *= k, prm.t_send *= k, prm.t_recv *= k;
        cyc_direct = spent_direct > t_local ? spent_direct : t_local;
    }
    if (cyc_routed > spent_routed && H > 0 && cyc_routed > t_local) {
        double k = spent_routed > t_local ? (spent_routed - t_local) / (cyc_routed - t_local) : 0;
        prm.t_hop *= k;
        cyc_routed = spent_routed > t_local ? spent_routed : t_local;
    }
    /* a run no slower than its bound's work waits nothing; written as a
     * hundredth of a ns, not 0, which torusmodel reads as "no wait fitted"
     * (and then predicts from node rates instead) */
    prm.t_wait_routed = spent_routed - cyc_routed > 0.01 ? spent_routed - cyc_routed : 0.01;
    prm.t_wait_direct = spent_direct - cyc_direct > 0.01 ? spent_direct - cyc_direct : 0.01;

    if (!rank) {
        char shown[128];
        torus_shape_format(&shape, shown, sizeof shown);
        printf("nodes %d, %g ranks per node, %d cores per node (%g at work), each rank 2^%d words, %llu updates "
               "per rank per phase\n",
               ni.nnodes, rpn, cores, used, lk, (unsigned long long)per_rank);
        printf("node_gups: %.6g (the better of the ceiling kernel, %s at depth %d, and ra_opt's loop on all %g ranks "
               "of a node at once: the memory bound)\n",
               node_gups, ra_ceil_kind_name((ra_ceil_kind)ceil_kind), ceil_depth, rpn);
        printf("node_gups_star: %.6g (HPCC's Star kernel on all %g ranks of a node at once: reported, not a bound)\n",
               star_gups, rpn);
        printf("t_local: %.2f ns per update (the best of the three, rank 0 alone)\n", t_local);
        printf("t_test: %.1f ns per MPI_Testany over %d receive(s) between updates (rank 0 alone)\n", t_test, nrecv);
        printf("t_exposed: %.1f ns a local update adds with a test between updates (rank 0 alone)\n", t_exposed);
        if (P >= 2) {
            printf("t_send/t_recv (ns per core, least of %d) per payload, %d pair(s) at once:", reps - warm, P / 2);
            for (int k = 0; k < NS; k++)
                printf(" %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
            printf("\nbaseline mean bucket %.2f updates (%.0f bytes): t_send %.0f, t_recv %.0f ns\n", bucket,
                   8 * bucket, prm.t_send, prm.t_recv);
        }
        printf("link_bw: %.4g bytes/s\n", link_bw);
        printf("t_hop: %.1f ns per hop (ra_opt's state machine in the in-process simulator, shape %s, tables in "
               "cache)\n", t_hop, shown);
        printf("routed run: %d ranks, shape %s, table 2^%d, %.4f GUPS, H = %.3f: %.1f ns per update on a core, "
               "%.1f of it the bound's work -> t_wait_routed %.1f\n",
               P, shown, op.log2, routed_gups, H, spent_routed, cyc_routed, prm.t_wait_routed);
        printf("baseline run: %d ranks, table 2^%d, %.5f GUPS: %.1f ns per update on a core, %.1f of it the "
               "bound's work -> t_wait_direct %.1f\n",
               P, op.log2, base_gups, spent_direct, cyc_direct, prm.t_wait_direct);
        torus_stdout_flush(); /* the report is complete: a failure's reason is kept */
        torus_outfile o;
        if (torus_outfile_open(&o, op.out, 0, ferr, sizeof ferr) == 0) {
            FILE *f = o.f;
            fprintf(f, "# hpcc-ra %s ra_calibrate%s: %d ranks on %d node(s), %d cores per node, table 2^%d, "
                       "every figure in ns (clock_hz = 1e9)\n",
                    RA_VERSION, op.quick ? " --quick" : "", P, ni.nnodes, cores, op.log2);
            fprintf(f, "# node_gups is the ceiling kernel's (%s, depth %d); node_gups_star: %.6g (HPCC's Star "
                       "kernel, reported, not a bound)\n",
                    ra_ceil_kind_name((ra_ceil_kind)ceil_kind), ceil_depth, star_gups);
            if (P >= 2) {
                fprintf(f, "# t_send/t_recv per payload (bytes: send/recv ns per core), Table 1's method:\n#");
                for (int k = 0; k < NS; k++)
                    fprintf(f, " %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
                fprintf(f, "\n");
            }
            fprintf(f, "# routed run: ra_opt's shape %s, %.6f GUPS measured; baseline run %.6f GUPS measured\n",
                    shown, routed_gups, base_gups);
            tm_params_write(&prm, f);
            if (torus_outfile_commit(&o, ferr, sizeof ferr) == 0)
                ferr[0] = 0;
        }
        if (ferr[0]) {
            /* the last step: every other rank is finishing, no abort needed */
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
            torus_node_free(&ni);
            MPI_Finalize();
            return TORUS_EXIT_RESOURCE;
        }
        char oshown[300];
        torus_cli_escape(op.out, oshown, sizeof oshown);
        printf("wrote %s\n", oshown);
    }
    torus_node_free(&ni);
    MPI_Finalize();
    /* the report went to stdout: a full or closed stdout lost it (the
     * params file is written all the same) */
    return rank ? 0 : torus_stdout_end(0);
}
