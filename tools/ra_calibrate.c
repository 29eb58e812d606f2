/*
 * ra_calibrate.c - bin/ra_calibrate: measures this machine's model
 * parameters and writes a torusmodel params file.  It sits in tools/, above
 * both the routed algorithm (optimized/, which it runs) and the calculator
 * (torusmodel/, whose params file it writes).
 *
 * Algorithm: paper 002 sec. 4.1 and 4.3.1 (Table 1's method).
 *   t_local: the routed algorithm itself (optimized/ropt_mpi.c with ra_opt's
 *     defaults) on rank 0 alone over MPI_COMM_SELF, so every update is
 *     local: generated ROPT_DEFAULT_LOOKAHEAD ahead, its word prefetched,
 *     applied -- exactly ra_opt's local path.  Time per update.
 *   t_send: rank 0 and 1 barrier; 1 posts MPI_Recv; 0 waits long enough for
 *     the receive to be posted, then times MPI_Send.  t_recv: 0 sends; 1
 *     waits long enough for the message to arrive, then times MPI_Recv.
 *     Each payload 8..8192 bytes, REPS repetitions, the first WARM dropped.
 *   t_overhead: one MPI_Test on a pending receive (the baseline tests once
 *     per update).
 *   t_hop: the routed algorithm (the same setup as ra_opt) on all ranks,
 *     flat shape, H = 1 - 1/P hops per update:
 *     t_hop = (P * time / updates - t_local) / H.
 *   Cost: about 10 s at the default sizes.
 * Figures are written in nanoseconds with clock_hz = 1e9.
 */
#include "ra.h"
#include "ra_dist.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt_mpi.h"
#include "torus_cli.h"
#include "torus_io.h"
#include "torusmodel.h"

#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
           "  --log2-table K   table of 2^K words for t_local and the routed run, K in 16..34 (default 25)\n"
           "  --output FILE    params file to write (default calibration.params)\n"
           "  --link-bw B      link bandwidth to record, bytes/s (default: measured 64 KiB ping-pong)\n"
           "  --help, --version\n"
           "exit: 0 ok, 2 bad input, 3 resource error\n");
}

/* Options, parsed the same way on every rank; rank 0 prints the one error
 * line.  Returns -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, int rank, int *log2, const char **out, double *link_bw)
{
    static const struct option longopts[] = {
        {"log2-table", required_argument, NULL, 'k'}, {"output", required_argument, NULL, 'o'},
        {"link-bw", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},          {NULL, 0, NULL, 0},
    };
    char err[400] = "";
    long v;
    opterr = 0;
    for (;;) {
        int prev = optind ? optind : 1;
        /* "+": no reordering, so argv[prev] is the word getopt looked at */
        int c = getopt_long(argc, argv, "+:", longopts, NULL);
        if (c == -1)
            break;
        const char *word = argv[prev < argc ? prev : argc - 1];
        switch (c) {
        case 'h':
            if (!rank)
                usage();
            return 0;
        case 'V':
            if (!rank)
                printf("ra_calibrate (hpcc-ra) %s\n", RA_VERSION);
            return 0;
        case 'k':
            if (torus_cli_long(optarg, 16, 34, &v))
                torus_cli_bad_value(err, sizeof err, "log2-table", optarg, "an integer 16..34");
            else
                *log2 = (int)v;
            break;
        case 'o':
            if (!*optarg)
                torus_cli_bad_value(err, sizeof err, "output", optarg, "a file name");
            *out = optarg;
            break;
        case 'b':
            if (torus_cli_double(optarg, 1e-300, 1e300, link_bw))
                torus_cli_bad_value(err, sizeof err, "link-bw", optarg, "a number > 0");
            break;
        case ':': {
            char w[300];
            torus_cli_escape(word, w, sizeof w);
            snprintf(err, sizeof err, "option '%s' needs a value (see --help)", w);
            break;
        }
        default:
            torus_cli_refused(longopts, word, err, sizeof err);
            break;
        }
        if (err[0])
            break;
    }
    if (!err[0] && optind < argc) {
        char w[300];
        torus_cli_escape(argv[optind], w, sizeof w);
        snprintf(err, sizeof err, "unexpected argument '%s' (see --help)", w);
    }
    if (err[0]) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: %s\n", err);
        return TORUS_EXIT_USAGE;
    }
    return -1;
}

/* The routed algorithm with ra_opt's defaults on shape `dims` over comm,
 * table 2^log2 words distributed over comm, 2 * 2^log2 updates in all.
 * Returns the seconds from barrier to barrier; fills *cap. */
static double routed_run(MPI_Comm comm, const char *dims, int log2, int *cap)
{
    int rank, P;
    RA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    RA_MPI_CHECK(MPI_Comm_size(comm, &P));
    uint64_t TS = 1ULL << log2, U = 2 * TS;
    ra_dist td, ud;
    ra_dist_init(&td, TS, P);
    ra_dist_init(&ud, U, P);
    uint64_t *tab = malloc(ra_dist_count(&td, rank) * sizeof *tab + 8);
    if (!torus_all_ok(comm, tab != NULL)) {
        fprintf(stderr, "ra_calibrate: cannot allocate 2^%d words\n", log2);
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
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
    RA_MPI_CHECK(MPI_Barrier(comm));
    double t0 = MPI_Wtime();
    ropt_mpi_run(&s, RA_GEN_LFSR, ra_dist_start(&ud, rank), ra_dist_count(&ud, rank), NULL, NULL);
    RA_MPI_CHECK(MPI_Barrier(comm));
    double dt = MPI_Wtime() - t0;
    ropt_mpi_free(&s);
    free(tab);
    return dt;
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
    int prc = parse_options(argc, argv, rank, &log2, &out, &link_bw);
    if (prc >= 0) {
        MPI_Finalize();
        return prc;
    }
    if (P < 2) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: needs at least 2 processes (mpirun -n 2), got %d\n", P);
        MPI_Finalize();
        return 2;
    }
    /* the output is checked before the minutes of measuring, written at
     * the end through a temporary (torus_io.h) */
    char ferr[400] = "";
    int out_ok = rank || !torus_outfile_probe(out, ferr, sizeof ferr);
    RA_MPI_CHECK(MPI_Bcast(&out_ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!out_ok) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
        MPI_Finalize();
        return TORUS_EXIT_USAGE;
    }
    uint64_t TS = 1ULL << log2;

    /* t_local: ra_opt's own loop on rank 0 alone, every update local */
    double t_local = 0;
    if (!rank) {
        int cap1;
        uint64_t U = 2 * TS;
        t_local = routed_run(MPI_COMM_SELF, "1", log2, &cap1) / (double)U * 1e9;
        /* the plain one-at-a-time loop, printed for comparison */
        uint64_t *t = malloc(TS * sizeof *t);
        if (!t) {
            fprintf(stderr, "ra_calibrate: cannot allocate 2^%d words\n", log2);
            MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
        }
        ra_table_init(t, TS, 0);
        double t0 = MPI_Wtime();
        ra_local_replay(t, log2, RA_GEN_LFSR, U);
        double t_one = (MPI_Wtime() - t0) / (double)U * 1e9;
        free(t);
        printf("t_local: %.2f ns per update (ra_opt's loop, look-ahead %d, table 2^%d; one at a time: %.2f ns)\n",
               t_local, ROPT_DEFAULT_LOOKAHEAD, log2, t_one);
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
    int cap;
    uint64_t U = 2 * TS;
    double routed = routed_run(MPI_COMM_WORLD, "flat", log2, &cap);
    double H = torus_expected_hops(&shape);
    double per_update = routed * P / (double)U * 1e9;
    double t_hop = (per_update - t_local) / H;
    if (t_hop < 0)
        t_hop = 0;
    double routed_gups = (double)U / routed / 1e9;

    if (!rank) {
        printf("t_send/t_recv (ns) per payload:");
        for (int k = 0; k < NS; k++)
            printf(" %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
        printf("\nMPI_Test: %.1f ns per call (t_overhead)\nlink_bw: %.4g bytes/s (64 KiB ping-pong between ranks 0 and 1)\n", t_test, link_bw);
        printf("routed run: %d ranks, %.4f GUPS, %.1f ns per update per rank, H = %.3f -> t_hop %.1f ns\n", P,
               routed_gups, per_update, H, t_hop);
        tm_params prm;
        tm_params_defaults(&prm);
        prm.clock_hz = 1e9;
        prm.t_local = t_local;
        prm.t_send = ts[0]; /* 8-byte payload: one update per message (eq. 1) */
        prm.t_recv = tr[0];
        prm.t_overhead = t_test; /* one MPI_Test per update, as the baseline does */
        prm.t_hop = t_hop;
        prm.bytes_per_update = 8.0 + 32.0 / cap; /* 8 bytes + a 32-byte envelope shared by a full bucket */
        prm.link_bw = link_bw;
        prm.nshapes = 1;
        prm.shapes[0] = shape;
        torus_outfile o;
        if (torus_outfile_open(&o, out, 0, ferr, sizeof ferr) == 0) {
            FILE *f = o.f;
            fprintf(f, "# hpcc-ra %s ra_calibrate: %d ranks, table 2^%d, every figure in ns (clock_hz = 1e9)\n",
                    RA_VERSION, P, log2);
            fprintf(f, "# t_send/t_recv per payload (bytes: send/recv ns), Table 1's method:\n#");
            for (int k = 0; k < NS; k++)
                fprintf(f, " %d:%.0f/%.0f", sizes[k], ts[k], tr[k]);
            fprintf(f, "\n# routed run: flat %d, %.6f GUPS measured\n", P, routed_gups);
            tm_params_write(&prm, f);
            if (torus_outfile_commit(&o, ferr, sizeof ferr) == 0)
                ferr[0] = 0;
        }
        if (ferr[0]) {
            /* the last step: every other rank is finishing, no abort needed */
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
            MPI_Finalize();
            return TORUS_EXIT_RESOURCE;
        }
        char shown[300];
        torus_cli_escape(out, shown, sizeof shown);
        printf("wrote %s\n", shown);
    }
    MPI_Finalize();
    return 0;
}
