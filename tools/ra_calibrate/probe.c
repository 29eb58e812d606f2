/*
 * probe.c - ra_calibrate --probe: the hardware figures of this machine
 * alone, with no GUPS run of ra_opt or of the baseline on the run's table,
 * for torusmodel's node cost model (torusmodel/node.c).  What a spec sheet
 * would give, measured:
 *   mem_latency_ns  a pointer chase over the rank's table (a random cycle
 *                   through its cache lines, Sattolo's algorithm; huge pages
 *                   as the runs): ns per dependent load, rank 0 alone.
 *   mlp             k chases at once over the same cycle, k = 2..64, each
 *                   line visited also written (an update reads and dirties
 *                   its line): the misses in flight at the best rate, best
 *                   rate x latency.
 *   mem_bw          every rank of the node at once, each with a thread per
 *                   core it really has (its affinity's cores over the ranks
 *                   of its real machine sharing them, whatever node layout
 *                   is emulated), reading and writing its table (16 bytes
 *                   a word): the node's bytes per second, the best of three.
 *   line_bytes      the L1 data cache line (hwloc's XML with --node-from, else
 *                   sysconf, else 64).
 *   instr_local     ra_opt's own loop (one rank, no hop) on a table of 2^12
 *                   words, which never leaves the cache: the update's
 *                   instructions alone, cycles at clock_hz.
 *   instr_hop       ra_opt itself at the run's ranks and shape on tables that
 *                   never leave the cache (2^12 words a rank): a core's
 *                   cycles per update less instr_local, over the hops (the
 *                   routing, the transport's packets, and on an oversubscribed
 *                   node the hand-offs between ranks sharing a core); on one
 *                   rank the state machine on 4x4 in the in-process simulator
 *                   (calibrate's t_hop method).
 *   instr_test      one MPI_Testany over the baseline's posted receives
 *                   between two updates of a table in cache.
 *   mpi_latency_ns  8-byte ping-pong between ranks 0 and 1, half the least
 *                   round trip (two ranks or more; else not written).
 *   clock_hz        /proc/cpuinfo's first "cpu MHz" (1e9 when absent: the
 *                   cycles are then ns).
 * Cost: a few seconds at 2^25 words per rank.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ra_calibrate.h"
#include "kit_host.h"

#include <errno.h>
#include <math.h>
#include <sched.h>

/* the cycle of lines through t: t[l*lw] holds the next line's index */
static void make_chase(uint64_t *t, uint64_t lines, uint64_t lw)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    for (uint64_t l = 0; l < lines; l++)
        t[l * lw] = l;
    /* Sattolo: one cycle through every line */
    for (uint64_t i = lines - 1; i > 0; i--) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint64_t j = s % i;
        uint64_t x = t[i * lw];
        t[i * lw] = t[j * lw];
        t[j * lw] = x;
    }
}

/* ns per step of k chases at once, `steps` steps each; rmw: each line
 * visited is also written (its second word), so that it goes back to memory
 * dirty, as an update's line does */
static double chase_ns(uint64_t *t, uint64_t lines, uint64_t lw, int k, uint64_t steps, int rmw)
{
    uint64_t p[64];
    for (int j = 0; j < k; j++)
        p[j] = (lines / (uint64_t)k) * (uint64_t)j;
    double t0 = MPI_Wtime();
    if (rmw)
        for (uint64_t s = 0; s < steps; s++)
            for (int j = 0; j < k; j++) {
                uint64_t *l = &t[p[j] * lw];
                p[j] = l[0];
                l[1] += s;
            }
    else
        for (uint64_t s = 0; s < steps; s++)
            for (int j = 0; j < k; j++)
                p[j] = t[p[j] * lw];
    double dt = MPI_Wtime() - t0;
    uint64_t sink = 0;
    for (int j = 0; j < k; j++)
        sink += p[j];
    if (sink == 0xFFFFFFFFFFFFFFFFULL)
        fprintf(stderr, " ");
    return dt / (double)steps * 1e9;
}

static double cpu_clock_hz(void)
{
    char v[64];
    double mhz = kit_cpuinfo("cpu MHz", v, sizeof v) ? 0 : strtod(v, NULL);
    return mhz > 0 ? mhz * 1e6 : 1e9;
}

void cal_probe_cpu_name(char *buf, size_t len)
{
    if (kit_cpuinfo("model name", buf, len) || !buf[0])
        snprintf(buf, len, "unknown CPU");
}

/* latency and memory-level parallelism, rank 0 alone on its table */
static void probe_memory(cal *c, probe_figs *pf)
{
    if (!c->rank) {
        uint64_t lw = (uint64_t)pf->line_bytes / 8, lines = c->LS / lw;
        make_chase(c->tab, lines, lw);
        uint64_t steps = c->op.quick ? 1ULL << 20 : 1ULL << 22;
        chase_ns(c->tab, lines, lw, 1, steps / 8, 0); /* warm the pages and the TLB */
        double lat = 1e30;
        for (int r = 0; r < 3; r++) {
            double ns = chase_ns(c->tab, lines, lw, 1, steps, 0);
            lat = ns < lat ? ns : lat;
        }
        pf->mem_latency_ns = lat;
        static const int ks[] = {2, 4, 8, 12, 16, 24, 32, 48, 64};
        double best = 1.0 / lat; /* updates per ns */
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            double ns = chase_ns(c->tab, lines, lw, ks[i], steps / (uint64_t)ks[i] * 2, 1);
            double rate = ks[i] / ns;
            best = rate > best ? rate : best;
            pf->mlp_rate[i] = rate;
        }
        pf->mlp = best * lat;
    }
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    KIT_MPI_CHECK(MPI_Bcast(&pf->mem_latency_ns, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Bcast(&pf->mlp, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
}

/* The cores this rank really has for the bandwidth pass (issue 48, class
 * 4): the cores of its real machine's ranks' affinity masks
 * (MPI_COMM_TYPE_SHARED, whatever TORUS_NODES / TORUS_HOSTFILE emulate)
 * over those ranks, at most its own mask's; at least 1.  The emulated layout's cores / ranks
 * counted the whole machine for every emulated node, so the threads of
 * all the machine's ranks oversubscribed its cores and the bandwidth came
 * out hundreds of times too low.  Collective over MPI_COMM_WORLD. */
static int probe_threads(void)
{
    cpu_set_t set;
    int own = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    int wr, n;
    KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    torus_node_info real = {.comm = MPI_COMM_NULL};
    KIT_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, &real.comm));
    KIT_MPI_CHECK(MPI_Comm_size(real.comm, &n));
    /* the union of the machine's ranks' masks (torus_node_cores on the real
     * machine): ranks bound one per core get one each, unbound ones the
     * machine's cores over its ranks */
    int cores = torus_node_cores(&real);
    torus_node_free(&real);
    int t = cores / n < own ? cores / n : own;
    return t >= 1 ? t : 1;
}

/* the node's bandwidth: every rank at once, each with the threads of the
 * cores it really has (probe_threads) */
static void probe_bandwidth(cal *c, probe_figs *pf)
{
    int threads = probe_threads();
    pf->bw_threads = threads;
    uint64_t n = c->LS, *t = c->tab;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (uint64_t i = 0; i < n; i++)
            t[i] += i;
        double dt = MPI_Wtime() - t0, tmax;
        KIT_MPI_CHECK(MPI_Allreduce(&dt, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        double bw = 16.0 * (double)n * c->rpn / tmax;
        best = bw > best ? bw : best;
    }
    pf->mem_bw = best;
}

/* instruction costs, every table in cache, rank 0 alone */
static void probe_instructions(cal *c, probe_figs *pf)
{
    double f = pf->clock_hz;
    if (!c->rank) {
        static uint64_t small[1 << 12];
        uint64_t n = c->op.quick ? 1ULL << 21 : 1ULL << 23;
        int cap1;
        torus_shape sh1, sh;
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double s = cal_routed_run(MPI_COMM_SELF, MPI_COMM_SELF, "1", 12, n, &cap1, &sh1, small);
            best = s < best ? s : best;
        }
        pf->instr_local = best / (double)n * f;
        if (c->P == 1) {
            /* one rank: no hop of its own; the routing work in the
             * in-process simulator on 4x4 (calibrate's t_hop method) */
            char e[128];
            torus_shape_parse("4x4", 1, &sh, e, sizeof e);
            uint64_t su = c->op.quick ? 1ULL << 20 : 1ULL << 22;
            double b4 = 1e30, b1 = 1e30;
            for (int r = 0; r < 2; r++) {
                double a = cal_sim_ns_per_update(&sh, su), b = cal_sim_ns_per_update(&sh1, su);
                b4 = a > 0 && a < b4 ? a : b4;
                b1 = b > 0 && b < b1 ? b : b1;
            }
            pf->instr_hop = b4 > b1 ? (b4 - b1) / torus_expected_hops(&sh) * f / 1e9 : 0;
            pf->hop_shape[0] = 0;
        }
    }
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD); /* the others asleep while rank 0 measured alone */
    if (c->P > 1) {
        /* the run's own ranks and shape on tables that never leave the
         * cache (2^12 words a rank): the routing, the node's transport, its
         * packets and the hand-offs between ranks sharing a core, with no
         * memory miss: core cycles per update less the local update's, over
         * the hops */
        int lg = 12, capP;
        while ((1 << (lg - 12)) < c->P)
            lg++;
        uint64_t U = (c->op.quick ? 1ULL << 20 : 1ULL << 22) * (uint64_t)c->P;
        torus_shape shP;
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double dt = cal_routed_run(MPI_COMM_WORLD, MPI_COMM_WORLD, NULL, lg, U, &capP, &shP, NULL);
            best = dt < best ? dt : best;
        }
        double core_cycles = best * c->used * c->ni.nnodes / (double)U * f;
        double H = torus_expected_hops(&shP);
        if (!c->rank) {
            pf->instr_hop = H > 0 && core_cycles > pf->instr_local ? (core_cycles - pf->instr_local) / H : 0;
            torus_shape_format(&shP, pf->hop_shape, sizeof pf->hop_shape);
        }
    }
    /* MPI_Testany between updates, in cache, over the receives the
     * baseline keeps posted (measure.c's t_test, without its run-table loop) */
    double t_test;
    int nrecv;
    cal_measure_local_path(c, &t_test, NULL, &nrecv);
    pf->instr_test = t_test * f / 1e9;
    kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    KIT_MPI_CHECK(MPI_Bcast(&pf->instr_local, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Bcast(&pf->instr_hop, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
}

/* half the least 8-byte round trip between ranks 0 and 1 */
static void probe_latency(cal *c, probe_figs *pf)
{
    pf->mpi_latency_ns = 0;
    if (c->P < 2)
        return;
    uint64_t x = 0;
    double best = 1e30;
    for (int r = 0; r < 1000; r++) {
        if (r % 100 == 0)
            kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (c->rank == 0) {
            KIT_MPI_CHECK(MPI_Send(&x, 1, MPI_UINT64_T, 1, 9, MPI_COMM_WORLD));
            KIT_MPI_CHECK(MPI_Recv(&x, 1, MPI_UINT64_T, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (c->rank == 1) {
            KIT_MPI_CHECK(MPI_Recv(&x, 1, MPI_UINT64_T, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            KIT_MPI_CHECK(MPI_Send(&x, 1, MPI_UINT64_T, 0, 9, MPI_COMM_WORLD));
        }
        double dt = (MPI_Wtime() - t0) / 2 * 1e9;
        best = dt < best ? dt : best;
    }
    KIT_MPI_CHECK(MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    pf->mpi_latency_ns = best;
}

void cal_probe_all(cal *c, probe_figs *pf)
{
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    memset(pf, 0, sizeof *pf);
    double hz = cpu_clock_hz();
    KIT_MPI_CHECK(MPI_Bcast(&hz, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    pf->clock_hz = hz;
    long lb = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    pf->line_bytes = lb >= 8 && lb <= 4096 ? (double)lb : 64;
    c->tab = cal_alloc_table(MPI_COMM_WORLD, c->LS);
    ra_table_init(c->tab, c->LS, 0);
    probe_bandwidth(c, pf);
    probe_memory(c, pf);
    ra_table_free(c->tab, c->LS);
    c->tab = NULL;
    probe_instructions(c, pf);
    probe_latency(c, pf);
    /* a collective: every rank reads the same ni.nnodes and option */
    if (c->op.link_bw <= 0 && c->ni.nnodes > 1)
        pf->link_bw = cal_measure_link_bw(c);
}

/* Hardware threads per core: the siblings of cpu0 in sysfs ("0,64" or
 * "0-1"), 1 when the kernel does not say. */
static double threads_per_core(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "r");
    if (!f)
        return 1;
    char buf[256];
    int n = 0;
    if (fgets(buf, sizeof buf, f)) {
        for (char *t = strtok(buf, ",\n"); t; t = strtok(NULL, ",\n")) {
            int a, b;
            if (sscanf(t, "%d-%d", &a, &b) == 2 && b >= a)
                n += b - a + 1;
            else if (sscanf(t, "%d", &a) == 1)
                n++;
        }
    }
    fclose(f);
    return n >= 1 && n <= 64 ? n : 1;
}

/* The figures as torusmodel node parameters (node.c's keys), each with
 * where it came from. */
void cal_probe_params(const cal *c, const probe_figs *pf, tm_params *prm)
{
    tm_params_defaults(prm);
    prm->clock_hz = pf->clock_hz;
    prm->ranks_per_node = c->rpn;
    /* the cores counted online are hardware threads: the node model wants
     * cores and the threads each runs */
    prm->threads_per_core = threads_per_core();
    prm->cores_per_node = c->cores / prm->threads_per_core >= 1 ? floor(c->cores / prm->threads_per_core) : 1;
    prm->algorithm = TM_ROUTED;
    /* --link-bw B is what the user knows of the links: written as given.
     * Without it, ranks on several nodes measure it (a 64 KiB ping-pong,
     * rank 0 with rank 1); one node has no link an update crosses, and
     * the file needs a figure: 1e12 (torusmodel needs none for one node). */
    prm->link_bw = c->op.link_bw > 0 ? c->op.link_bw : pf->link_bw > 0 ? pf->link_bw : 1e12;
    prm->bytes_per_update = 8;
    tm_node *n = &prm->node;
    n->v[TM_N_MEM_LATENCY] = pf->mem_latency_ns;
    n->v[TM_N_MLP] = pf->mlp;
    n->v[TM_N_MEM_BW] = pf->mem_bw;
    n->v[TM_N_LINE] = pf->line_bytes;
    n->v[TM_N_INSTR_LOCAL] = pf->instr_local;
    n->v[TM_N_INSTR_HOP] = pf->instr_hop;
    n->v[TM_N_INSTR_TEST] = pf->instr_test;
    n->v[TM_N_MPI_LATENCY] = pf->mpi_latency_ns;
    n->v[TM_N_IPC_SCALE] = 1;
    for (int i = 0; i < TM_N_KEYS; i++)
        if (n->v[i] > 0)
            snprintf(n->src[i], sizeof n->src[i], "%s", i == TM_N_IPC_SCALE ? "the core measured: 1"
                                                                              : "measured here (ra_calibrate --probe)");    /* hwloc's view of the node, where given: its line, said so */
    if (c->op.hw.cores > 0) {
        prm->hw = c->op.hw;
        if (c->op.hw.line > 0) {
            n->v[TM_N_LINE] = c->op.hw.line;
            snprintf(n->src[TM_N_LINE], sizeof n->src[TM_N_LINE], "%.160s: the L1 data cache's line", c->op.hw.src);
        }
    }
}
