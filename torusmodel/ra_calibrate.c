/*
 * ra_calibrate.c - bin/ra_calibrate: measures this machine's model
 * parameters and writes a torusmodel params file.
 *
 * Algorithm: paper 002 sec. 4.1 and 4.3.1 (Table 1's method).
 *   t_local: sequential RandomAccess (rank 0 alone, the others waiting) on
 *     a table of 2^K words, each update generated LOOKAHEAD ahead and its
 *     word prefetched, as ra_opt does with local updates: time per update.
 *   t_send: rank 0 and 1 barrier; 1 posts MPI_Recv; 0 waits long enough for
 *     the receive to be posted, then times MPI_Send.  t_recv: 0 sends; 1
 *     waits long enough for the message to arrive, then times MPI_Recv.
 *     Each payload 8..8192 bytes, REPS repetitions, the first WARM dropped.
 *   t_overhead: one MPI_Test on a pending receive (the baseline tests once
 *     per update).
 *   t_hop: the routed algorithm (optimized/ropt.c over the MPI transport)
 *     on all ranks, flat shape, H = 1 - 1/P hops per update:
 *     t_hop = (P * time / updates - t_local) / H.
 *   Cost: about 10 s at the default sizes.
 * Figures are written in nanoseconds with clock_hz = 1e9.
 */
#include "ra.h"
#include "ra_dist.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt.h"
#include "torus_mpi.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 120
#define WARM 20
#define WAIT_S 200e-6

static void spin(double s)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < s) {
    }
}

static void usage(void)
{
    printf("usage: mpirun -n P bin/ra_calibrate [options]   (P >= 2)\n"
           "Measures t_local, t_send/t_recv per payload (paper 002 Table 1's method) and t_hop,\n"
           "and writes a params file for bin/torusmodel --params.\n"
           "  --log2-table K   table of 2^K words for t_local and the routed run (default 25)\n"
           "  --output FILE    params file to write (default calibration.params)\n"
           "  --link-bw B      link bandwidth to record, bytes/s (default: measured 64 KiB ping-pong)\n"
           "  --help, --version\n");
}

/* ra_opt's default look-ahead (--lookahead). */
#define LOOKAHEAD 64

/* Updates 1..n of the LFSR stream on a table of 2^log2 words, each value
 * generated LOOKAHEAD updates before it is applied and its word prefetched
 * then, so the misses of LOOKAHEAD updates overlap. */
static void local_prefetched(uint64_t *t, int log2, uint64_t n)
{
    uint64_t ring[LOOKAHEAD], ran = 1;
    uint64_t ahead = n < LOOKAHEAD ? n : LOOKAHEAD;
    for (uint64_t i = 0; i < ahead; i++) {
        ran = ra_gen_next(RA_GEN_LFSR, ran);
        ring[i] = ran;
        __builtin_prefetch(&t[ra_gen_index(RA_GEN_LFSR, ran, log2)], 1, 0);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = ring[i % LOOKAHEAD];
        if (i + ahead < n) {
            ran = ra_gen_next(RA_GEN_LFSR, ran);
            ring[i % LOOKAHEAD] = ran;
            __builtin_prefetch(&t[ra_gen_index(RA_GEN_LFSR, ran, log2)], 1, 0);
        }
        t[ra_gen_index(RA_GEN_LFSR, v, log2)] ^= v;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    RA_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    RA_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &P));
    int log2 = 25;
    const char *out = "calibration.params";
    double link_bw = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            if (!rank)
                usage();
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--version")) {
            if (!rank)
                printf("ra_calibrate (hpcc-ra) %s\n", RA_VERSION);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--log2-table") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 16 || v > 34) {
                if (!rank)
                    fprintf(stderr, "ra_calibrate: --log2-table '%s' invalid: allowed 16..34\n", argv[i]);
                MPI_Finalize();
                return 2;
            }
            log2 = (int)v;
        } else if (!strcmp(a, "--output") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--link-bw") && i + 1 < argc) {
            char *end;
            link_bw = strtod(argv[++i], &end);
            if (*end || !(link_bw > 0)) {
                if (!rank)
                    fprintf(stderr, "ra_calibrate: --link-bw '%s' invalid: allowed a number > 0\n", argv[i]);
                MPI_Finalize();
                return 2;
            }
        } else {
            if (!rank)
                fprintf(stderr, "ra_calibrate: unknown argument '%s' (see --help)\n", a);
            MPI_Finalize();
            return 2;
        }
    }
    if (P < 2) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: needs at least 2 processes (mpirun -n 2), got %d\n", P);
        MPI_Finalize();
        return 2;
    }
    FILE *f = NULL;
    if (!rank && !(f = fopen(out, "w"))) {
        fprintf(stderr, "ra_calibrate: cannot write '%s'\n", out);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t TS = 1ULL << log2;

    /* t_local: sequential RandomAccess on rank 0 */
    double t_local = 0;
    if (!rank) {
        uint64_t *t = malloc(TS * sizeof *t);
        if (!t) {
            fprintf(stderr, "ra_calibrate: cannot allocate 2^%d words\n", log2);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        ra_table_init(t, TS, 0);
        uint64_t U = 2 * TS;
        /* t_local is an update as ra_opt makes a local one: generated
         * LOOKAHEAD ahead, its table word prefetched, applied later.  The
         * plain one-at-a-time loop is printed for comparison. */
        double t0 = MPI_Wtime();
        local_prefetched(t, log2, U);
        t_local = (MPI_Wtime() - t0) / (double)U * 1e9;
        t0 = MPI_Wtime();
        ra_local_replay(t, log2, RA_GEN_LFSR, U);
        double t_one = (MPI_Wtime() - t0) / (double)U * 1e9;
        free(t);
        printf("t_local: %.2f ns per update (prefetched %d ahead like ra_opt, table 2^%d; one at a time: %.2f ns)\n",
               t_local, LOOKAHEAD, log2, t_one);
    }
    RA_MPI_CHECK(MPI_Bcast(&t_local, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));

    /* t_send / t_recv per payload, Table 1's method */
    static const int sizes[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
    enum { NS = sizeof sizes / sizeof *sizes };
    double ts[NS], tr[NS];
    char *buf = calloc(8192, 1);
    for (int k = 0; k < NS; k++) {
        double sum_s = 0, sum_r = 0;
        for (int rep = 0; rep < REPS; rep++) {
            RA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 1) {
                RA_MPI_CHECK(MPI_Recv(buf, sizes[k], MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (rank == 0) {
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                RA_MPI_CHECK(MPI_Send(buf, sizes[k], MPI_BYTE, 1, 1, MPI_COMM_WORLD));
                if (rep >= WARM)
                    sum_s += MPI_Wtime() - t0;
            }
            RA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 0) {
                RA_MPI_CHECK(MPI_Send(buf, sizes[k], MPI_BYTE, 1, 2, MPI_COMM_WORLD));
            } else if (rank == 1) {
                spin(WAIT_S);
                double t0 = MPI_Wtime();
                RA_MPI_CHECK(MPI_Recv(buf, sizes[k], MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (rep >= WARM)
                    sum_r += MPI_Wtime() - t0;
            }
        }
        ts[k] = sum_s / (REPS - WARM) * 1e9;
        tr[k] = sum_r / (REPS - WARM) * 1e9;
        RA_MPI_CHECK(MPI_Bcast(&ts[k], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        RA_MPI_CHECK(MPI_Bcast(&tr[k], 1, MPI_DOUBLE, 1, MPI_COMM_WORLD));
    }
    /* t_overhead: the baseline calls MPI_Test once per update (paper 002
     * sec. 6.1); one call's cost on a receive that is still pending */
    double t_test;
    {
        MPI_Request req;
        char dummy[8];
        RA_MPI_CHECK(MPI_Irecv(dummy, 8, MPI_BYTE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req));
        int flag = 0, calls = 200000;
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            RA_MPI_CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        t_test = (MPI_Wtime() - t0) / calls * 1e9;
        RA_MPI_CHECK(MPI_Cancel(&req));
        RA_MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        RA_MPI_CHECK(MPI_Bcast(&t_test, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }
    /* link bandwidth between rank 0 and 1: 64 KiB ping-pong, one way */
    if (link_bw <= 0) {
        int n = 1 << 16;
        char *big = calloc((size_t)n, 1);
        double best = 1e30;
        for (int rep = 0; rep < 20; rep++) {
            RA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            double t0 = MPI_Wtime();
            if (rank == 0) {
                RA_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
                RA_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (rank == 1) {
                RA_MPI_CHECK(MPI_Recv(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                RA_MPI_CHECK(MPI_Send(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
            }
            double dt = (MPI_Wtime() - t0) / 2;
            if (dt < best)
                best = dt;
        }
        link_bw = n / best;
        RA_MPI_CHECK(MPI_Bcast(&link_bw, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        free(big);
    }
    free(buf);

    /* t_hop: the routed algorithm over MPI, flat shape */
    torus_shape shape;
    torus_shape_balanced(P, 1, &shape);
    torus_map map;
    torus_route route;
    torus_mpi *tm = NULL;
    torus_transport tp;
    ropt o;
    ropt_params prm = {RA_MAX_PENDING, 64, 0};
    char err[256];
    ra_dist td, ud;
    ra_dist_init(&td, TS, P);
    uint64_t U = 2 * TS;
    ra_dist_init(&ud, U, P);
    uint64_t *tab = malloc(ra_dist_count(&td, rank) * sizeof *tab + 8);
    if (!tab || torus_map_xyzt(&map, &shape) || torus_route_build(&route, &map, rank)) {
        fprintf(stderr, "ra_calibrate: out of memory for the routed run\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int cap = ropt_capacity(&shape, &prm);
    if (torus_mpi_create(&tm, MPI_COMM_WORLD, &map, rank, cap, 4, err, sizeof err)) {
        fprintf(stderr, "ra_calibrate: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    torus_mpi_bind(tm, &tp);
    ra_table_init(tab, ra_dist_count(&td, rank), ra_dist_start(&td, rank));
    if (ropt_init(&o, &route, &shape, &tp, &prm, tab, ra_dist_start(&td, rank), ra_dist_count(&td, rank), log2,
                  RA_GEN_LFSR, &td)) {
        fprintf(stderr, "ra_calibrate: out of memory for the routed run\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    ropt_start(&o, ra_dist_start(&ud, rank), ra_dist_count(&ud, rank));
    RA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    int idle = 0;
    while (!o.done) {
        if (ropt_step(&o))
            idle = 0;
        else if (++idle > 16)
            sched_yield();
    }
    RA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double routed = MPI_Wtime() - t0;
    torus_mpi_reset(tm);
    double H = torus_expected_hops(&shape);
    double per_update = routed * P / (double)U * 1e9;
    double t_hop = (per_update - t_local) / H;
    if (t_hop < 0)
        t_hop = 0;
    double routed_gups = (double)U / routed / 1e9;
    ropt_free(&o);
    torus_mpi_destroy(tm);
    torus_route_free(&route);
    torus_map_free(&map);
    free(tab);

    if (!rank) {
        printf("t_send/t_recv (ns) per payload:");
        for (int k = 0; k < NS; k++)
            printf(" %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
        printf("\nMPI_Test: %.1f ns per call (t_overhead)\nlink_bw: %.4g bytes/s (64 KiB ping-pong between ranks 0 and 1)\n", t_test, link_bw);
        printf("routed run: %d ranks, %.4f GUPS, %.1f ns per update per rank, H = %.3f -> t_hop %.1f ns\n", P,
               routed_gups, per_update, H, t_hop);
        fprintf(f, "# hpcc-ra %s ra_calibrate: %d ranks, table 2^%d, every figure in ns (clock_hz = 1e9)\n",
                RA_VERSION, P, log2);
        fprintf(f, "# t_send/t_recv per payload (bytes: send/recv ns), Table 1's method:\n#");
        for (int k = 0; k < NS; k++)
            fprintf(f, " %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
        fprintf(f, "\n# routed run: flat %d, %.6f GUPS measured\n", P, routed_gups);
        fprintf(f, "clock_hz = 1e9\n");
        fprintf(f, "t_local = %.3f\n", t_local);
        fprintf(f, "t_send = %.3f   # 8-byte payload: one update per message (eq. 1)\n", ts[0]);
        fprintf(f, "t_recv = %.3f\n", tr[0]);
        fprintf(f, "t_overhead = %.3f   # one MPI_Test per update, as the baseline does\n", t_test);
        fprintf(f, "t_hop = %.3f\n", t_hop);
        fprintf(f, "bytes_per_update = %.3f   # 8 bytes + a 32-byte MPI envelope shared by a full bucket\n",
                8.0 + 32.0 / cap);
        fprintf(f, "link_bw = %.6g\n", link_bw);
        fprintf(f, "shape = %d\n", P);
        fclose(f);
        printf("wrote %s\n", out);
    }
    MPI_Finalize();
    return 0;
}
