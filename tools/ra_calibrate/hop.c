/*
 * hop.c - ra_calibrate --hop: the node hop's price measured directly
 * (issue 44, item 1), not as a difference of two GUPS figures that each
 * move +-40% from run to run on a shared machine.
 *
 * Steps:
 *   1. Fills.  ra_opt itself (ropt_mpi: the run's ranks and ra_opt's
 *      shape, the node transport as ra_opt picks it) on tables that never
 *      leave the cache (2^12 words a rank), its packets holding F = 4, 8,
 *      ..., 1024 updates: the budget is lifted to what F needs (a probe,
 *      not an HPCC run).  Beside each, in the same round, every rank alone
 *      at once on its own table of the same size (the local loop).  The
 *      price of a crossing at fill F, in ns: (routed - local) per
 *      generated update, over the crossings per update H of the shape.
 *      No memory miss is in either figure, so the difference is the
 *      routing decision, the scatter, the copy into the ring, the take and
 *      the receiver's split: the hop.
 *   2. The fit.  ns(F) = h + s / F by least squares over the medians: h
 *      the price of an update crossing, s the price of a packet.
 *   3. The unit.  One update at the node's ceiling (the ceiling kernel on
 *      every rank at once on the --log2-table run's table, the best of
 *      four tries): ranks per node / node_gups ns, the unit in which
 *      ra_opt --hop-cost/--packet-cost and torusmodel --ra-opt-node take
 *      their prices.
 *   4. Polls.  Rank 0 alone, two threads over the shared-memory protocol
 *      (torus_shm.h) in its own memory: a receiver with R = 1..127 peer
 *      rings, one sender thread playing the R peers.  The ns of a poll
 *      that finds nothing, and of a poll that takes a packet the sender
 *      has just published into a ring picked at random (its lines in the
 *      other core's cache, as between two ranks), through the inbox and by
 *      the scan of ring heads the inbox replaced.  The slope of a take
 *      over R is what a peer costs the receiver.
 *   5. The span.  The node's rate with every rank updating 2^K words of its
 *      own, K from 2^5 below its share of the --log2-table run up to it:
 *      a table shared by R ranks makes each core span R shares, which is
 *      why each rank owns its slice (docs/ra_opt.md).
 * Every figure: the median of --reps interleaved rounds, with min and max.
 * Cost: about 2 s per round at 2 ranks, plus the ceiling's 4 tries.
 */
#include "ra_calibrate.h"
#include "torus_shm.h"
#include "torus_ticks.h"

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The cycle counter with the loads before it done and none after it
 * started: an unfenced RDTSC may be read before the poll's misses have
 * come, which timed a take at less than one cache miss. */
static inline uint64_t fenced_ticks(void)
{
#if defined(__x86_64__)
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    return torus_ticks();
#endif
}

static const int hop_fills[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024};
enum { NFILL = sizeof hop_fills / sizeof *hop_fills };
static const int poll_peers[] = {1, 2, 4, 8, 16, 32, 64, 127};
enum { NPEER = sizeof poll_peers / sizeof *poll_peers, POLL_ROUNDS = 400, POLL_WORDS = 16, MAX_REPS = 99 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median, min, max of n values (sorted in place) */
static void stat3(double *v, int n, double out[3])
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    out[1] = v[0];
    out[2] = v[n - 1];
}

/* ---- 1-2: fills --------------------------------------------------------- */

typedef struct hop_fill_figs {
    /* [0] work: each rank's time less its steps that moved nothing (the
     * CPU's price, what the timed simulator charges; it makes the waiting
     * itself), [1] wall: with the waiting (in cache a ping-pong between
     * the ranks, so the wall's s is the latency of a packet's round trip) */
    double ns[2][NFILL][3]; /* per crossing: median, min, max */
    double routed[NFILL], local; /* wall ns per generated update, medians */
    double h_ns[2], s_ns[2], H;
    torus_shape shape;
    int node_shm;
} hop_fill_figs;

/* Least squares of y = h + s x over n points, each weighted w[i] (NULL:
 * all 1). */
static void fit_line(const double *x, const double *y, const double *w, int n, double *h, double *s)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double wi = w ? w[i] : 1;
        sw += wi, sx += wi * x[i], sy += wi * y[i], sxx += wi * x[i] * x[i], sxy += wi * x[i] * y[i];
    }
    double den = sw * sxx - sx * sx;
    *s = den != 0 ? (sw * sxy - sx * sy) / den : 0;
    *h = sw > 0 ? (sy - *s * sx) / sw : 0;
}

/* One round at fill F: work and wall ns per crossing, wall ns per update
 * routed and alone. */
static void fill_round(const ropt_mpi_options *o, int buffers, int F, int lg, uint64_t per, int P, double H,
                       double out[4])
{
    ropt_mpi_options of = *o, ol;
    of.prm.budget = F * buffers + of.prm.lookahead + 2 * of.prm.batch;
    of.profile = 1;
    ropt_mpi_options_defaults(&ol);
    ol.dims = "1";
    ol.profile = 1;
    torus_shape sh;
    int cap;
    double wait = 0, dl, mine[2], most[2];
    double dr = cal_routed_run_with(MPI_COMM_WORLD, MPI_COMM_WORLD, &of, lg, per * (uint64_t)P, &cap, &sh, NULL,
                                    NULL, &wait);
    /* every rank's own loop at once, on its own table of the same size */
    dl = cal_routed_run_with(MPI_COMM_SELF, MPI_COMM_WORLD, &ol, 12, per, &cap, &sh, NULL, NULL, NULL);
    mine[0] = dr - wait, mine[1] = dl;
    KIT_MPI_CHECK(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    double ns = 1e9 / (double)per;
    out[0] = (most[0] - most[1]) * ns / H;
    out[1] = (dr - most[1]) * ns / H;
    out[2] = dr * ns;
    out[3] = most[1] * ns;
}

static void hop_fills_measure(cal *c, hop_fill_figs *hf)
{
    int lg = 12, cap;
    while ((1 << (lg - 12)) < c->P)
        lg++;
    uint64_t per = c->op.quick ? 1ULL << 20 : 1ULL << 21;
    /* the shape ra_opt picks here, then kept whatever the budget: a lifted
     * budget would change auto's choice */
    ropt_mpi_options o;
    ropt_mpi_options_defaults(&o);
    cal_routed_run_with(MPI_COMM_WORLD, MPI_COMM_WORLD, &o, lg, per * (uint64_t)c->P / 8, &cap, &hf->shape, NULL,
                        &hf->node_shm, NULL);
    char dims[128];
    torus_shape_format(&hf->shape, dims, sizeof dims);
    o.dims = dims;
    hf->H = torus_expected_hops(&hf->shape);
    int buffers = ropt_buffers(&hf->shape, &o.prm), reps = c->op.reps;
    static double ns[2][NFILL][MAX_REPS], ro[NFILL][MAX_REPS], lo[NFILL * MAX_REPS];
    for (int r = 0; r < reps; r++)
        for (int f = 0; f < NFILL; f++) {
            double v[4];
            fill_round(&o, buffers, hop_fills[f], lg, per, c->P, hf->H, v);
            ns[0][f][r] = v[0], ns[1][f][r] = v[1], ro[f][r] = v[2], lo[r * NFILL + f] = v[3];
        }
    double s3[3];
    stat3(lo, reps * NFILL, s3);
    hf->local = s3[0];
    for (int f = 0; f < NFILL; f++) {
        stat3(ro[f], reps, s3);
        hf->routed[f] = s3[0];
    }
    /* relative errors: the small fills' ns are tens of times the large
     * ones', and an unweighted fit would let them alone set h */
    for (int m = 0; m < 2; m++) {
        double x[NFILL], y[NFILL], w[NFILL];
        for (int f = 0; f < NFILL; f++) {
            stat3(ns[m][f], reps, hf->ns[m][f]);
            x[f] = 1.0 / hop_fills[f];
            y[f] = hf->ns[m][f][0];
            w[f] = y[f] > 0 ? 1 / (y[f] * y[f]) : 0;
        }
        fit_line(x, y, w, NFILL, &hf->h_ns[m], &hf->s_ns[m]);
    }
}

/* ---- 4: polls ----------------------------------------------------------- */

typedef struct poll_bench {
    torus_map map;
    char **area;
    unsigned mask;
    torus_shm_core **core; /* R + 1: the receiver at 0, the peers 1..R */
    int R;
    uint64_t seed;
    /* each flag on a line of its own: one written by each side */
    alignas(64) _Atomic int go;
    alignas(64) _Atomic int sent;
    alignas(64) _Atomic int stop;
} poll_bench;

static void *pb_area(void *ctx, int rank, unsigned *mask)
{
    poll_bench *b = ctx;
    *mask = b->mask;
    return b->area[rank];
}

static int pb_init(poll_bench *b, int R)
{
    memset(b, 0, sizeof *b);
    torus_shape s = {0};
    s.n = 1;
    if (torus_shape_append(&s, R + 1) || torus_map_xyzt(&b->map, &s))
        return -1;
    int on[TORUS_MAX_DIMS] = {1};
    b->mask = 1;
    b->R = R;
    size_t bytes = (torus_shm_area_bytes(&s, on, POLL_WORDS, 1) + 63) / 64 * 64;
    b->area = calloc((size_t)R + 1, sizeof *b->area);
    b->core = calloc((size_t)R + 1, sizeof *b->core);
    if (!b->area || !b->core)
        return -1;
    for (int r = 0; r <= R; r++) {
        if (!(b->area[r] = aligned_alloc(64, bytes)))
            return -1;
        torus_shm_area_init(b->area[r], bytes);
    }
    for (int r = 0; r <= R; r++)
        if (!(b->core[r] = torus_shm_core_create(&b->map, r, on, POLL_WORDS, 1, pb_area, b)))
            return -1;
    b->seed = 0x9E3779B97F4A7C15ULL;
    return 0;
}

static void pb_free(poll_bench *b)
{
    for (int r = 0; b->core && r <= b->R; r++)
        torus_shm_core_destroy(b->core[r]);
    for (int r = 0; b->area && r <= b->R; r++)
        free(b->area[r]);
    free(b->core);
    free(b->area);
    torus_map_free(&b->map);
}

/* The sender: for each round asked for, one packet from a peer picked at
 * random. */
static void *pb_sender(void *arg)
{
    poll_bench *b = arg;
    uint64_t words[POLL_WORDS] = {0};
    int done = 0;
    while (!atomic_load_explicit(&b->stop, memory_order_acquire)) {
        int g = atomic_load_explicit(&b->go, memory_order_acquire);
        if (g == done)
            continue;
        b->seed ^= b->seed << 13, b->seed ^= b->seed >> 7, b->seed ^= b->seed << 17;
        int x = 1 + (int)(b->seed % (uint64_t)b->R);
        while (!torus_shm_can_send(b->core[x], 0))
            ;
        words[0] = (uint64_t)g;
        if (torus_shm_send(b->core[x], 0, 0, words, POLL_WORDS, 0))
            abort(); /* the protocol refused a free slot: a bug, not a figure */
        done = g;
        atomic_store_explicit(&b->sent, g, memory_order_release);
    }
    return NULL;
}

/* One round set with the receiver in `scan` mode: the median ns of an
 * empty poll and of a take. */
static int pb_run(poll_bench *b, int scan, double ns_per_tick, double *empty_ns, double *take_ns)
{
    static double te[POLL_ROUNDS], tt[POLL_ROUNDS];
    torus_shm_core *rc = b->core[0];
    torus_shm_set_scan(rc, scan);
    atomic_store(&b->go, 0), atomic_store(&b->sent, 0), atomic_store(&b->stop, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, pb_sender, b))
        return -1;
    torus_packet p;
    int bad = 0;
    for (int i = 1; i <= POLL_ROUNDS; i++) {
        uint64_t t0 = fenced_ticks();
        for (int j = 0; j < 8; j++)
            bad += torus_shm_poll(rc, 0, &p);
        te[i - 1] = (double)(fenced_ticks() - t0) / 8 * ns_per_tick;
        atomic_store_explicit(&b->go, i, memory_order_release);
        while (atomic_load_explicit(&b->sent, memory_order_acquire) != i)
            ;
        t0 = fenced_ticks();
        int got = torus_shm_poll(rc, 0, &p);
        /* the packet's first word read inside the window: the take is done
         * when its data can be used */
        uint64_t first = got == 1 ? p.data[0] : 0;
        tt[i - 1] = (double)(fenced_ticks() - t0) * ns_per_tick;
        if (got != 1 || first != (uint64_t)i)
            bad++;
        torus_shm_release(rc, 0);
    }
    atomic_store_explicit(&b->stop, 1, memory_order_release);
    pthread_join(th, NULL);
    double s[3];
    stat3(te, POLL_ROUNDS, s);
    *empty_ns = s[0];
    stat3(tt, POLL_ROUNDS, s);
    *take_ns = s[0];
    return bad ? -1 : 0;
}

typedef struct hop_poll_figs {
    double empty[2][NPEER][3], take[2][NPEER][3]; /* [inbox, scan][R]: median, min, max */
    double peer_ns[2];                              /* slope of a take over R */
    int ok;
} hop_poll_figs;

static void hop_polls_measure(cal *c, hop_poll_figs *hp)
{
    hp->ok = 1;
    if (c->rank)
        return;
    double npt = 1e9 / torus_ticks_per_second();
    int reps = c->op.reps;
    static double e[2][NPEER][MAX_REPS], t[2][NPEER][MAX_REPS];
    for (int r = 0; r < reps && hp->ok; r++)
        for (int i = 0; i < NPEER && hp->ok; i++) {
            poll_bench b;
            if (pb_init(&b, poll_peers[i])) {
                hp->ok = 0;
            } else {
                for (int m = 0; m < 2 && hp->ok; m++)
                    if (pb_run(&b, m, npt, &e[m][i][r], &t[m][i][r]))
                        hp->ok = 0;
            }
            pb_free(&b);
        }
    if (!hp->ok)
        return;
    for (int m = 0; m < 2; m++) {
        double x[NPEER], y[NPEER], h;
        for (int i = 0; i < NPEER; i++) {
            stat3(e[m][i], reps, hp->empty[m][i]);
            stat3(t[m][i], reps, hp->take[m][i]);
            x[i] = poll_peers[i];
            y[i] = hp->take[m][i][0];
        }
        fit_line(x, y, NULL, NPEER, &h, &hp->peer_ns[m]);
    }
}

/* ---- the report --------------------------------------------------------- */

static void hop_report(const cal *c, const hop_fill_figs *hf, const hop_poll_figs *hp, double unit_ns,
                       double node_gups)
{
    char cpu[256], shown[128];
    cal_probe_cpu_name(cpu, sizeof cpu);
    torus_shape_format(&hf->shape, shown, sizeof shown);
    printf("# ra_calibrate --hop: %d ranks on one node (%d cores), cpu %s; median (min max) of %d interleaved "
           "rounds\n", c->P, c->cores, cpu, c->op.reps);
    printf("hop_shape: %s\nhop_transport: %s\nhop_crossings_per_update: %.4f\n", shown,
           hf->node_shm ? "shm" : "mpi", hf->H);
    printf("# ns per crossing at a packet fill of F updates (ra_opt, tables of 2^12 words a rank in cache, less "
           "every rank's local loop in the same round): work (steps that moved nothing left out), then wall\n");
    for (int f = 0; f < NFILL; f++)
        printf("hop_fill_%d_ns: %.3f %.3f %.3f  wall %.3f %.3f %.3f\n", hop_fills[f], hf->ns[0][f][0],
               hf->ns[0][f][1], hf->ns[0][f][2], hf->ns[1][f][0], hf->ns[1][f][1], hf->ns[1][f][2]);
    printf("hop_local_ns: %.3f  (every rank's local loop alone, ns per update)\n", hf->local);
    printf("# wall ns per generated update, routed:");
    for (int f = 0; f < NFILL; f++)
        printf(" %d:%.2f", hop_fills[f], hf->routed[f]);
    printf("\n# fitted ns(F) = h + s / F, weighted by relative error\n");
    printf("hop_h_ns: %.3f\nhop_s_ns: %.2f\nhop_wall_h_ns: %.3f\nhop_wall_s_ns: %.2f\n", hf->h_ns[0], hf->s_ns[0],
           hf->h_ns[1], hf->s_ns[1]);
    printf("# the unit: one update at the node's ceiling, %g ranks / %.4f GUPS (the ceiling kernel, table 2^%d)\n",
           c->rpn, node_gups, c->op.log2);
    printf("ceiling_ns_per_update: %.3f\nhop_h_updates: %.4f\nhop_s_updates: %.3f\nhop_wall_h_updates: %.4f\n"
           "hop_wall_s_updates: %.3f\n",
           unit_ns, hf->h_ns[0] / unit_ns, hf->s_ns[0] / unit_ns, hf->h_ns[1] / unit_ns, hf->s_ns[1] / unit_ns);
    if (!hp->ok) {
        printf("# polls: not measured (no memory or no thread for the probe)\n");
        return;
    }
    printf("# ns of a poll with R peer rings, rank 0's two threads: empty (nothing published) and take (a packet "
           "just published into a ring picked at random), through the inbox and by scanning ring heads\n");
    for (int i = 0; i < NPEER; i++)
        printf("poll_%d_ns: empty %.2f %.2f take %.2f %.2f  (inbox, scan; take min-max %.1f-%.1f, %.1f-%.1f)\n",
               poll_peers[i], hp->empty[0][i][0], hp->empty[1][i][0], hp->take[0][i][0], hp->take[1][i][0],
               hp->take[0][i][1], hp->take[0][i][2], hp->take[1][i][1], hp->take[1][i][2]);
    printf("poll_peer_ns: %.3f %.3f  (a take's slope over R: inbox, scan)\n", hp->peer_ns[0], hp->peer_ns[1]);
    printf("poll_peer_updates: %.4f %.4f\n", hp->peer_ns[0] / unit_ns, hp->peer_ns[1] / unit_ns);
    printf("poll_empty_updates: %.4f  (an empty poll through the inbox, 127 peers)\n",
           hp->empty[0][NPEER - 1][0] / unit_ns);
}

/* The node's rate with every rank at once running the ceiling kernel over
 * the first 2^k words of its table, n updates: the best of `tries`. */
static double ceiling_rate(cal *c, int k, uint64_t n, int tries)
{
    double best = 0;
    for (int t = 0; t < tries; t++) {
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double secs = cal_ceiling_ns(c->tab, k, n) * (double)n / 1e9;
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double g = cal_node_rate(&c->ni, (double)n, secs);
        best = g > best ? g : best;
    }
    return best;
}

int cal_hop_main(cal *c)
{
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    int rc = 0;
    if (c->ni.nnodes != 1) {
        if (!c->rank)
            fprintf(stderr, "ra_calibrate: --hop prices the node hop: launch it on one node (found %d nodes)\n",
                    c->ni.nnodes);
        rc = KIT_EXIT_USAGE;
    } else if (c->P < 2) {
        if (!c->rank)
            fprintf(stderr, "ra_calibrate: --hop needs 2 or more ranks on the node (found 1): allowed mpirun -n P, "
                            "P >= 2\n");
        rc = KIT_EXIT_USAGE;
    }
    if (rc) {
        torus_node_free(&c->ni);
        MPI_Finalize();
        return rc;
    }
    /* the unit: the ceiling on the run's table, every rank at once */
    c->tab = cal_alloc_table(MPI_COMM_WORLD, c->LS);
    ra_table_init(c->tab, c->LS, 0);
    double trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS];
    ra_ceiling_pick(MPI_COMM_WORLD, c->tab, c->lk, RA_GEN_LFSR, c->kern, trials, &cal_ceil_kind, &cal_ceil_depth);
    double node_gups = ceiling_rate(c, c->lk, c->kern, 4);
    /* why each rank owns its slice: the node's rate with every rank
     * spanning 2^K words of its own, K up to its share; a table shared by
     * R ranks makes each span R shares */
    int nspan = 0;
    double span[6];
    for (int k = c->lk - 5 < 12 ? 12 : c->lk - 5; k <= c->lk; k++)
        span[nspan++] = ceiling_rate(c, k, c->kern / 2, 2);
    ra_table_free(c->tab, c->LS);
    c->tab = NULL;
    static hop_fill_figs hf;
    static hop_poll_figs hp;
    hop_fills_measure(c, &hf);
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    hop_polls_measure(c, &hp);
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    if (!c->rank) {
        hop_report(c, &hf, &hp, c->rpn / node_gups, node_gups);
        printf("# the node's rate with every rank updating 2^K words of its own (the ceiling kernel, the best of "
               "two): what a core loses to the memory it spans\n");
        for (int i = 0; i < nspan; i++)
            printf("span_%d_gups: %.4f  (%.3f of 2^%d's)\n", c->lk - nspan + 1 + i, span[i], span[i] / span[0],
                   c->lk - nspan + 1);
    }
    torus_node_free(&c->ni);
    MPI_Finalize();
    return c->rank ? 0 : kit_stdout_end(0);
}
