/*
 * collbench.c - bin/collbench: the collectives of torus/coll raced against
 * the MPI library's own, OSU/IMB style, with an alpha-beta-gamma
 * prediction beside every measurement.
 *
 * Protocol (OSU micro-benchmarks): per operation, size and algorithm,
 *   MPI_Barrier; warm-up calls; then per iteration MPI_Barrier (not timed),
 *   MPI_Wtime around one call.  Each rank's mean time per call is reduced
 *   to min/avg/max over ranks.  "mpi" is the library's own collective,
 *   "auto" what torus/coll's selection table picks, every other name an
 *   algorithm of torus_coll_algorithms(op) forced by torus_coll_force.
 * Calibration, in the same run: alpha = half the round trip of an 8-byte
 *   ping-pong between ranks 0 and 1, beta from a 1 MiB ping-pong, gamma
 *   from rank 0 summing two 1 MiB vectors of doubles the way the library's
 *   reductions do; pred_us = torus_coll_predict(alpha, beta, gamma).
 * --validate: every algorithm's result against the MPI library's own
 *   collective on the same data; one line per failure, exit 1.
 * --simulate SHAPE: no MPI collective; the same algorithms on the timed
 *   simulator (torus_coll_vrun_timed) with a BlueGene/L link model, timed
 *   with the simulated clock, calibrated with a simulated ping-pong.
 *
 * Collbench knows no algorithm by name: it lists what the registry holds,
 * so an algorithm registered in torus/coll/<op>.def is benchmarked,
 * validated and plotted without a change here.
 */
#include "torus.h"
#include "torus_cli.h"
#include "torus_coll.h"
#include "torus_io.h"
#include "torus_mem.h"
#include "torus_mpi.h"
#include "torus_opt.h"
#include "torus_timed.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

/* ---- operations ----------------------------------------------------------- */

/* What --op names: alltoall and alltoallv are one collective of the
 * library (TORUS_COLL_ALLTOALLV) called two ways. */
enum { K_BARRIER, K_BCAST, K_ALLREDUCE, K_ALLTOALL, K_ALLTOALLV, NKINDS };
static const char *const kind_name[NKINDS] = {"barrier", "bcast", "allreduce", "alltoall", "alltoallv"};
static const torus_coll_op kind_op[NKINDS] = {TORUS_COLL_BARRIER, TORUS_COLL_BCAST, TORUS_COLL_ALLREDUCE,
                                              TORUS_COLL_ALLTOALLV, TORUS_COLL_ALLTOALLV};

/* The multisend patterns of paper 001 (--op halo4d, transpose, sparse):
 * not collectives of the registry but plans of torus_multisend; their rows
 * carry kind NKINDS + index. */
enum { NPATS = 3 };
static const char *const pat_name[NPATS] = {"halo4d", "transpose", "sparse"};

static const char *op_label(int kind)
{
    return kind < NKINDS ? kind_name[kind] : pat_name[kind - NKINDS];
}

static int is_a2a(int k)
{
    return k == K_ALLTOALL || k == K_ALLTOALLV;
}

/* ---- the bgl link model of --simulate --------------------------------------- */

/* BlueGene/L (paper 000 sec. 2): a 700 MHz core writes a torus packet in 75
 * cycles and reads one in 204; packets carry 240 bytes of payload (256 on
 * the wire); a link moves 154 MB/s of payload per direction.  The
 * per-message software overhead and gamma are not in the paper: 1000
 * cycles per message at each end and 1 cycle per byte combined are this
 * tool's assumptions (with them an 8-byte message to a neighbour takes
 * 3.5 us, the few microseconds of BlueGene/L's MPI latency).  The per-link
 * latency is torusmodel --simulate's default. */
#define BGL_HZ 700e6
#define BGL_LINK_BW 154e6
#define BGL_PACKET_BYTES 240.0
#define BGL_HEADER_BYTES 16.0
#define BGL_SEND_PKT_CYCLES 75.0
#define BGL_RECV_PKT_CYCLES 204.0
#define BGL_MSG_CYCLES 1000.0
#define BGL_GAMMA_CYCLES 1.0
#define BGL_LATENCY_S 100e-9

/* ---- options ---------------------------------------------------------------- */

#define MAX_SIZES 256
#define MAX_ROUNDS 64
#define MAX_SIZE_BYTES (1ULL << 30)
#define BIG_SIZE (64u * 1024u) /* above this, fewer iterations (as OSU does) */

typedef struct opts {
    int kinds[NKINDS];
    size_t sizes[MAX_SIZES];
    int nsizes;
    const char *alg_list; /* NULL: all */
    long iters, warmup, rounds;
    int iters_set, warmup_set, rounds_set;
    const char *dims;
    int validate;
    const char *csv, *json;
    const char *simulate;
    const char *choose; /* --choose SHAPE: print the table's choices, run nothing */
    long per_node;      /* --per-node K with --choose */
    int per_node_set;
    double link_bw, latency;
    int link_bw_set, latency_set;
    int pats[NPATS];    /* multisend patterns to run */
    long k;             /* --k: destinations per rank of sparse */
    uint64_t seed;      /* --seed: sparse's destinations */
    int dry_run;        /* --dry-run: check, run nothing */
} opts;

/* One size: digits with an optional K, M or G (binary).  0 or -1. */
static int parse_one_size(const char *s, size_t len, uint64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    uint64_t mult = 1;
    char last = buf[len - 1];
    if (last == 'K' || last == 'k')
        mult = 1ULL << 10;
    else if (last == 'M' || last == 'm')
        mult = 1ULL << 20;
    else if (last == 'G' || last == 'g')
        mult = 1ULL << 30;
    if (mult > 1)
        buf[--len] = 0;
    uint64_t v;
    if (torus_cli_u64(buf, 1, MAX_SIZE_BYTES, &v) || v > MAX_SIZE_BYTES / mult)
        return -1;
    *out = v * mult;
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* "A:B" and comma lists of sizes and ranges, sorted, duplicates dropped. */
static int parse_sizes(const char *arg, opts *o)
{
    int n = 0;
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        uint64_t a, b;
        if (colon) {
            if (parse_one_size(p, (size_t)(colon - p), &a) ||
                parse_one_size(colon + 1, len - (size_t)(colon - p) - 1, &b) || a > b)
                return -1;
        } else if (parse_one_size(p, len, &a)) {
            return -1;
        } else {
            b = a;
        }
        for (uint64_t s = a; s <= b; s *= 2) {
            if (n == MAX_SIZES)
                return -1;
            o->sizes[n++] = (size_t)s;
        }
        if (!end)
            break;
        p = end + 1;
    }
    qsort(o->sizes, (size_t)n, sizeof *o->sizes, cmp_size);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!u || o->sizes[u - 1] != o->sizes[i])
            o->sizes[u++] = o->sizes[i];
    o->nsizes = u;
    return 0;
}

static int parse_ops(const char *arg, opts *o)
{
    memset(o->kinds, 0, sizeof o->kinds);
    memset(o->pats, 0, sizeof o->pats);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = 0;
        for (int k = 0; k < NPATS; k++)
            if (strlen(pat_name[k]) == len && !strncmp(p, pat_name[k], len))
                o->pats[k] = found = 1;
        if (!found && len == 3 && !strncmp(p, "all", 3)) {
            for (int k = 0; k < NKINDS; k++)
                o->kinds[k] = 1;
            found = 1;
        }
        for (int k = 0; k < NKINDS && !found; k++)
            if (strlen(kind_name[k]) == len && !strncmp(p, kind_name[k], len))
                o->kinds[k] = found = 1;
        if (!found)
            return -1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* Whether name is in the comma list. */
static int in_list(const char *list, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = list;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == nl && !strncmp(p, name, nl))
            return 1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* Whether name is an algorithm of op in the registry. */
static int registered(torus_coll_op op, const char *name)
{
    for (const char *const *a = torus_coll_algorithms(op); *a; a++)
        if (!strcmp(*a, name))
            return 1;
    return 0;
}

/* Every word of --algorithms must name something one of the chosen ops
 * can run (auto, mpi unless simulating, or a registered algorithm).
 * 0, or -1 with the one error line in err. */
static int check_algorithms(const opts *o, char *err, size_t errlen)
{
    if (!o->alg_list)
        return 0;
    char allowed[2048];
    size_t a = (size_t)snprintf(allowed, sizeof allowed, "all, or a comma list of auto%s", o->simulate ? "" : ", mpi");
    int seen_op[TORUS_COLL_NCOLL] = {0};
    for (int k = 0; k < NKINDS; k++) {
        if (!o->kinds[k] || seen_op[kind_op[k]]++)
            continue;
        for (const char *const *n = torus_coll_algorithms(kind_op[k]); *n && a < sizeof allowed; n++) {
            /* a name shared by two ops (dimwise) is listed once */
            int dup = 0;
            for (int j = 0; j < k; j++)
                if (o->kinds[j] && kind_op[j] != kind_op[k] && registered(kind_op[j], *n))
                    dup = 1;
            if (!dup)
                a += (size_t)snprintf(allowed + a, sizeof allowed - a, ", %s", *n);
        }
    }
    if ((o->pats[0] || o->pats[1] || o->pats[2]) && a < sizeof allowed)
        a += (size_t)snprintf(allowed + a, sizeof allowed - a, ", direct, routed%s", o->simulate ? "" : ", mpi_init");
    if (a < sizeof allowed)
        snprintf(allowed + a, sizeof allowed - a, " (algorithms of the chosen --op)");
    const char *p = o->alg_list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[128];
        snprintf(word, sizeof word, "%.*s", (int)(len < 127 ? len : 127), p);
        int ok = len > 0 && len < 127 && (!strcmp(word, "auto") || (!strcmp(word, "mpi") && !o->simulate));
        int any_pat = o->pats[0] || o->pats[1] || o->pats[2];
        for (const char *const *m = torus_multisend_algorithms(); any_pat && *m && !ok; m++)
            ok = !strcmp(word, *m);
        ok = ok || (any_pat && !o->simulate && !strcmp(word, "mpi_init"));
        for (int k = 0; k < NKINDS && !ok && len > 0 && len < 127; k++)
            ok = o->kinds[k] && registered(kind_op[k], word);
        if (!ok) {
            torus_cli_bad_value(err, errlen, "algorithms", o->alg_list, allowed);
            return -1;
        }
        if (!end)
            return 0;
        p = end + 1;
    }
}

enum {
    OPT_OP = 256, OPT_SIZES, OPT_ALGORITHMS, OPT_ITERS, OPT_WARMUP, OPT_ROUNDS, OPT_DIMS, OPT_VALIDATE, OPT_CSV, OPT_JSON,
    OPT_SIMULATE, OPT_CHOOSE, OPT_PER_NODE, OPT_LINK_BW, OPT_LATENCY, OPT_K, OPT_SEED, OPT_DRY_RUN, OPT_HELP,
    OPT_VERSION
};

/* The option spec; --simulate's help names the link model's figures, so
 * the table is completed once at run time. */
static const torus_opt *cb_spec(void)
{
    static char sim_help[1400];
    static torus_opt spec[] = {
        {.name = "op", .type = TORUS_OPT_TEXT, .id = OPT_OP, .meta = "OP", .defval = "all = the collectives",
         .help = "barrier, bcast, allreduce, alltoall, alltoallv or all (comma list allowed; alltoall: uniform "
                 "blocks through torus_coll_alltoall, alltoallv: the v call with the same counts); or the multisend "
                 "patterns of paper 001 (torus_multisend plans: auto, direct, routed; mpi = MPI_Neighbor_alltoallv "
                 "on an MPI_Dist_graph_create_adjacent communicator, mpi_init = its MPI-4 persistent form where the "
                 "library has it; columns: setup_us = plan or graph set-up, the per-call times, and breakeven = "
                 "calls after which set-up plus calls cost less than mpi with its own set-up): halo4d (8 blocks to "
                 "the - and + neighbours along each dimension of a balanced 4-D grid; on small grids neighbours "
                 "repeat or are the rank itself), transpose (3-D FFT transpose: alltoall in the rows, then in the "
                 "columns of a balanced 2-D grid), sparse (--k random destinations per rank, seeded); size = bytes "
                 "per block",
         .allowed = "barrier, bcast, allreduce, alltoall, alltoallv or all (comma list allowed), or the multisend "
                    "patterns halo4d, transpose, sparse"},
        {.name = "sizes", .type = TORUS_OPT_TEXT, .id = OPT_SIZES, .meta = "A:B", .defval = "8:1M",
         .help = "bytes A, 2A, 4A, ... up to B (K/M/G suffixes, binary), or a comma list of sizes and ranges, each "
                 "1..1G; bcast: the message, allreduce: the vector (whole 8-byte doubles), alltoall(v): the block "
                 "per pair",
         .allowed = "A:B (A, 2A, ... up to B bytes, K/M/G suffixes, e.g. 8:1M) or a comma list of sizes and "
                    "ranges, each 1..1G, at most 256 sizes"},
        {.name = "algorithms", .type = TORUS_OPT_TEXT, .id = OPT_ALGORITHMS, .meta = "LIST",
         .defval = "all = auto, every registered algorithm, mpi",
         .help = "all, or a comma list of algorithm names, auto (the table's choice) and mpi (the MPI library's own)",
         .allowed = "all, or a comma list of names"},
        {.name = "iters", .type = TORUS_OPT_LONG, .id = OPT_ITERS, .meta = "N", .defval = "100; with --simulate 1",
         .help = "timed calls per size; sizes above 64 KiB run N/5 (at least 1)", .lo = 1, .hi = 10000000},
        {.name = "warmup", .type = TORUS_OPT_LONG, .id = OPT_WARMUP, .meta = "N", .defval = "10; with --simulate 0",
         .help = "untimed calls first; above 64 KiB N/5", .lo = 0, .hi = 1000000},
        {.name = "rounds", .type = TORUS_OPT_LONG, .id = OPT_ROUNDS, .meta = "R", .defval = "5; with --simulate 1",
         .help = "the timed calls of a size are split into R rounds of ceil(N/R) calls that visit every algorithm "
                 "in turn (a warm-up call each, when --warmup is not 0; R is cut to N when N is smaller); a rank's "
                 "time per call is the median of its R round means, so a burst of load on a shared machine hits all "
                 "algorithms alike and one slow round decides nothing",
         .lo = 1, .hi = MAX_ROUNDS},
        {.name = "dims", .type = TORUS_OPT_TEXT, .id = OPT_DIMS, .meta = "SHAPE", .defval = "auto",
         .help = "the collectives' torus over the ranks: auto, flat, hypercube, hypercube:D or sizes like 4x2 (m "
                 "suffix = mesh)"},
        {.name = "validate", .type = TORUS_OPT_FLAG, .id = OPT_VALIDATE, .defval = "off",
         .help = "check every algorithm against the MPI library: bcast vs MPI_Bcast (roots 0 and P-1), allreduce "
                 "uint64/int64 sum, min, max, bxor vs MPI_Allreduce, doubles (whole numbers) sum, min, max vs a "
                 "rank-order reference from MPI_Allgather, alltoall(v) vs MPI_Alltoallv (alltoallv also with uneven "
                 "counts and gaps); one line per failure, exit 1"},
        {.name = "csv", .type = TORUS_OPT_FILE_OUT, .id = OPT_CSV, .meta = "FILE", .defval = "none",
         .help = "write the rows as CSV (replaced atomically)"},
        {.name = "json", .type = TORUS_OPT_FILE_OUT, .id = OPT_JSON, .meta = "FILE", .defval = "none",
         .help = "write the run as JSON (replaced atomically)"},
        {.name = "simulate", .type = TORUS_OPT_TEXT, .id = OPT_SIMULATE, .meta = "SHAPE", .defval = "off"},
        {.name = "choose", .type = TORUS_OPT_TEXT, .id = OPT_CHOOSE, .meta = "SHAPE", .defval = "off",
         .help = "run nothing: print what the selection table (torus/coll/select.c) picks for every --op and "
                 "--sizes on SHAPE, with TORUS_COLL_<OP> applied and preconditions checked"},
        {.name = "per-node", .type = TORUS_OPT_LONG, .id = OPT_PER_NODE, .meta = "K", .defval = "1",
         .help = "--choose: K consecutive ranks share a node", .lo = 1, .hi = 1 << 20},
        {.name = "k", .type = TORUS_OPT_LONG, .id = OPT_K, .meta = "K", .defval = "6",
         .help = "sparse: destinations per rank, 1..100000", .lo = 1, .hi = 100000},
        {.name = "seed", .type = TORUS_OPT_U64, .id = OPT_SEED, .meta = "S", .defval = "1",
         .help = "sparse: the seed of the destinations", .lo = 0,
         .allowed = "an integer 0..18446744073709551615"},
        {.name = "link-bw", .type = TORUS_OPT_DOUBLE, .id = OPT_LINK_BW, .meta = "B", .defval = "154e6",
         .help = "--simulate: link bandwidth, bytes/s per direction", .lo = 1, .hi = 1e15,
         .allowed = "bytes per second in 1..1e15"},
        {.name = "latency", .type = TORUS_OPT_DOUBLE, .id = OPT_LATENCY, .meta = "S", .defval = "1e-07",
         .help = "--simulate: seconds per link crossed", .lo = 0, .hi = 1, .allowed = "seconds in 0..1"},
        {.name = "dry-run", .type = TORUS_OPT_FLAG, .id = OPT_DRY_RUN, .defval = "off",
         .help = "check every option and the result files' folders, then exit 0 without running, printing or "
                 "writing (the ranks and their memory are checked when a run starts)"},
        {.name = "help", .type = TORUS_OPT_FLAG, .id = OPT_HELP, .help = "this help"},
        {.name = "version", .type = TORUS_OPT_FLAG, .id = OPT_VERSION, .help = "the version"},
        {0},
    };
    if (!sim_help[0]) {
        snprintf(sim_help, sizeof sim_help,
                 "no MPI collective: run the algorithms on the timed simulator at SHAPE (e.g. 8x8x8, up to "
                 "64x32x32), one process, bgl link model: %.0f bytes/s payload per link direction, %.0f-byte packets "
                 "(+%.0f header), at %.0f MHz %.0f cycles to write and %.0f to read a packet (paper 000 sec. 2), "
                 "%.0f cycles per message at each end and %.0f cycle per byte reduced (assumed); packets take the "
                 "links of their route hop by hop in the idle gaps each link has left (router buffers unbounded: "
                 "assumed), at exactly half a ring alternately either way (BG/L routes adaptively); the deposit bit "
                 "(paper 000 sec. 3.2, line sends of dimwise and multistream): one injection per direction of a "
                 "line, its receivers pay the packet reads only, no per-message cost; sizes that would not fit in "
                 "half the free memory are left out (one notice); halo4d and transpose on the torus itself (grid = "
                 "SHAPE, rows along dimension 0), each row with bound_us, the link model's bound: per exchange "
                 "max(busiest link: the wire bytes of the blocks whose model routes cross it / link bandwidth; "
                 "busiest CPU: its packet writes and reads and one message cost at each end) + the longest route's "
                 "latency; ratio_vs_bnd = max_us / bound_us",
                 BGL_LINK_BW, BGL_PACKET_BYTES, BGL_HEADER_BYTES, BGL_HZ / 1e6, BGL_SEND_PKT_CYCLES,
                 BGL_RECV_PKT_CYCLES, BGL_MSG_CYCLES, BGL_GAMMA_CYCLES);
        for (torus_opt *o = spec; o->name; o++)
            if (o->id == OPT_SIMULATE)
                o->help = sim_help;
    }
    return spec;
}

/* head, then every registered algorithm by op and multisend's (--help and
 * the preamble; suite_coll.sh reads the registry from --help). */
static void print_registry(const char *head)
{
    printf("%s", head);
    for (int op = 0; op < TORUS_COLL_NCOLL; op++) {
        const char *const *a = torus_coll_algorithms((torus_coll_op)op);
        printf("%s %s:", op ? ";" : "", torus_coll_op_name((torus_coll_op)op));
        if (!*a)
            printf(" (none yet)");
        for (; *a; a++)
            printf(" %s", *a);
    }
    printf("; multisend:");
    for (const char *const *a = torus_multisend_algorithms(); *a; a++)
        printf(" %s", *a);
}

static void usage(void)
{
    printf("usage: mpirun -n P bin/collbench [options]\n"
           "       bin/collbench --simulate SHAPE [options]\n"
           "Times the collectives of torus/coll (every registered algorithm, the table's choice)\n"
           "against the MPI library's own, OSU-style: per size and algorithm min/avg/max over ranks\n"
           "of each rank's mean time per call, MB/s, the alpha-beta-gamma prediction (calibrated in\n"
           "the same run) and the ratio to the MPI library's time.\n");
    torus_opt_help(stdout, cb_spec());
    print_registry("algorithms registered:");
    printf("\nenvironment: TORUS_COLL_<OP>=name forces what auto runs (library)\n"
           "options are checked before MPI starts; a bad one is one line and exit 2\n"
           "exit: 0 ok, 1 validation failed, 2 usage, 3 resource (memory, files)\n");
}

/* One option into the opts ctx (torus_opt_fn); 1 --help, 2 --version. */
static int take(void *ctx, const torus_opt *opt, const torus_opt_val *v, char *err, size_t errlen)
{
    opts *o = ctx;
    const char *optarg_ = v->s;
    switch (opt->id) {
    case OPT_HELP:
        return 1;
    case OPT_VERSION:
        return 2;
    case OPT_OP:
        if (parse_ops(optarg_, o))
            torus_cli_bad_value(err, errlen, "op", optarg_, opt->allowed);
        break;
    case OPT_SIZES:
        if (parse_sizes(optarg_, o))
            torus_cli_bad_value(err, errlen, "sizes", optarg_, opt->allowed);
        break;
    case OPT_ALGORITHMS:
        if (!*optarg_)
            torus_cli_bad_value(err, errlen, "algorithms", optarg_, opt->allowed);
        o->alg_list = strcmp(optarg_, "all") ? optarg_ : NULL;
        break;
    case OPT_ITERS:
        o->iters = v->l;
        o->iters_set = 1;
        break;
    case OPT_WARMUP:
        o->warmup = v->l;
        o->warmup_set = 1;
        break;
    case OPT_ROUNDS:
        o->rounds = v->l;
        o->rounds_set = 1;
        break;
    case OPT_DIMS:
        o->dims = optarg_; /* parsed against the world size later */
        break;
    case OPT_VALIDATE:
        o->validate = 1;
        break;
    case OPT_CSV:
        o->csv = optarg_;
        break;
    case OPT_JSON:
        o->json = optarg_;
        break;
    case OPT_SIMULATE:
        o->simulate = optarg_;
        break;
    case OPT_CHOOSE:
        o->choose = optarg_;
        break;
    case OPT_PER_NODE:
        o->per_node = v->l;
        o->per_node_set = 1;
        break;
    case OPT_LINK_BW:
        o->link_bw = v->d;
        o->link_bw_set = 1;
        break;
    case OPT_LATENCY:
        o->latency = v->d;
        o->latency_set = 1;
        break;
    case OPT_K:
        o->k = v->l;
        break;
    case OPT_SEED:
        o->seed = v->u;
        break;
    case OPT_DRY_RUN:
        o->dry_run = 1;
        break;
    }
    return err[0] ? -1 : 0;
}

/* Parses argv the same way on every rank.  Returns -1 to go on, else the
 * exit code (-2 --help, -3 --version); err holds the one error line. */
static int parse_options(int argc, char **argv, opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < NKINDS; k++)
        o->kinds[k] = 1;
    parse_sizes("8:1M", o);
    o->iters = 100;
    o->warmup = 10;
    o->rounds = 5;
    o->per_node = 1;
    o->dims = "auto";
    o->link_bw = BGL_LINK_BW;
    o->latency = BGL_LATENCY_S;
    o->k = 6;
    o->seed = 1;
    int rc = torus_opt_parse(cb_spec(), argc, argv, 0, take, o, NULL, err, errlen);
    if (rc == 1 || rc == 2)
        return -1 - rc;
    if (rc)
        return TORUS_EXIT_USAGE;
    if (o->choose && (o->simulate || o->validate || o->csv || o->json)) {
        snprintf(err, errlen, "--choose prints the table's choices and runs nothing: drop --%s",
                 o->simulate ? "simulate" : o->validate ? "validate" : o->csv ? "csv" : "json");
        return TORUS_EXIT_USAGE;
    }
    if (o->per_node_set && !o->choose) {
        snprintf(err, errlen, "--per-node describes the nodes of --choose's shape (over MPI the nodes are found): add "
                              "--choose SHAPE");
        return TORUS_EXIT_USAGE;
    }
    if (o->simulate) {
        if (o->validate) {
            snprintf(err, errlen, "--validate compares with the MPI library's collectives, which --simulate does not "
                                  "run: use one of them (tests/unit/test_coll checks the simulated results)");
            return TORUS_EXIT_USAGE;
        }
        if (strcmp(o->dims, "auto")) {
            snprintf(err, errlen, "--dims shapes the MPI ranks; with --simulate the shape is --simulate's: use one of them");
            return TORUS_EXIT_USAGE;
        }
        /* the simulator is deterministic: one call tells what many would */
        if (!o->iters_set)
            o->iters = 1;
        if (!o->warmup_set)
            o->warmup = 0;
        if (!o->rounds_set)
            o->rounds = 1;
    } else if (o->link_bw_set || o->latency_set) {
        snprintf(err, errlen, "--%s sets the simulated link model: add --simulate SHAPE",
                 o->link_bw_set ? "link-bw" : "latency");
        return TORUS_EXIT_USAGE;
    }
    if (check_algorithms(o, err, errlen))
        return TORUS_EXIT_USAGE;
    /* the shapes' grammar now, before MPI starts (--dims against the ranks
     * when the run starts; bare auto, flat and hypercube take the count
     * from them) */
    const char *shapes[3] = {o->dims, o->simulate, o->choose}, *names[3] = {"dims", "simulate", "choose"};
    for (int i = 0; i < 3; i++) {
        torus_shape sh;
        char e2[300];
        if (shapes[i] && strcmp(shapes[i], "auto") && strcmp(shapes[i], "flat") && strcmp(shapes[i], "hypercube") &&
            torus_shape_parse(shapes[i], 0, &sh, e2, sizeof e2)) {
            snprintf(err, errlen, "--%s: %s", names[i], e2);
            return TORUS_EXIT_USAGE;
        }
    }
    return -1;
}

/* Whether algorithm `name` (auto, mpi or registered) is to be run. */
static int wanted(const opts *o, const char *name)
{
    if (!strcmp(name, "mpi") && o->simulate)
        return 0;
    return !o->alg_list || in_list(o->alg_list, name);
}

static int iters_for(const opts *o, size_t bytes)
{
    return (int)(bytes > BIG_SIZE ? (o->iters + 4) / 5 : o->iters);
}

static int warmup_for(const opts *o, size_t bytes)
{
    return (int)(bytes > BIG_SIZE ? (o->warmup + 4) / 5 : o->warmup);
}

/* ---- results ----------------------------------------------------------------- */

typedef struct row {
    int kind;
    size_t size;
    char alg[64];    /* auto, mpi or an algorithm */
    char chosen[64]; /* what ran (auto: the table's choice) */
    int iters, warmup;
    double min_us, avg_us, max_us;
    double mbs, pred_us, ratio; /* < 0: none */
    /* multisend patterns: set-up, the simulator's link-model bound and the
     * ratio to it, and the calls after which set-up is paid (< 0: none) */
    double setup_us, bound_us, ratio_bound, breakeven;
} row;

typedef struct run_info {
    int ranks, nodes, per_node;
    const char *node_src; /* NULL, or the emulated layout's setting (TORUS_NODES, TORUS_HOSTFILE) */
    char shape[128], shape_src[160];
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    char date[64];
    char host[128]; /* rank 0's host name, commas and quotes replaced (a CSV field) */
    const char *mode; /* "mpi" or "simulate:bgl" */
    int rounds;       /* --rounds: a rank's time is the median of its round means */
    double alpha, beta, gamma;
    char calib[320];
    row *rows;
    int nrows, caprows;
    int checks, failures;
    const char *validation_note; /* about the MPI library's references, or NULL */
} run_info;

static int add_row(run_info *ri, const row *r)
{
    if (ri->nrows == ri->caprows) {
        int n = ri->caprows ? 2 * ri->caprows : 64;
        row *nr = realloc(ri->rows, (size_t)n * sizeof *nr);
        if (!nr)
            return -1;
        ri->rows = nr;
        ri->caprows = n;
    }
    ri->rows[ri->nrows++] = *r;
    return 0;
}

/* Bytes a rank moves per call, for MB/s: the message or vector, and for
 * alltoall(v) its blocks to the other ranks. */
static double payload(int kind, size_t bytes, int n)
{
    if (kind == K_BARRIER)
        return 0;
    return is_a2a(kind) ? (double)bytes * (n - 1) : (double)bytes;
}

/* v with `prec` decimals, "-" for none (negative) */
static void fmt_num(char *buf, size_t len, double v, int prec)
{
    if (v < 0 || !isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, v);
}

static void print_header(int kind)
{
    printf("# op: %s\n", kind_name[kind]);
    printf("#%9s  %-28s %10s %10s %10s %10s %10s %12s\n", "size", "algorithm", "min_us", "avg_us", "max_us", "MB/s",
           "pred_us", "ratio_vs_mpi");
}

/* A row's algorithm column: "auto(what it ran)" for auto rows. */
static void row_label(const row *r, char *label, size_t len)
{
    if (!strcmp(r->alg, "auto") && r->chosen[0])
        snprintf(label, len, "auto(%s)", r->chosen);
    else
        snprintf(label, len, "%s", r->alg);
}

static void print_row(const row *r)
{
    char label[100], mbs[32], pred[32], ratio[32];
    row_label(r, label, sizeof label);
    fmt_num(mbs, sizeof mbs, r->mbs, 2);
    fmt_num(pred, sizeof pred, r->pred_us, 2);
    fmt_num(ratio, sizeof ratio, r->ratio, 3);
    printf("%10zu  %-28s %10.2f %10.2f %10.2f %10s %10s %12s\n", r->size, label, r->min_us, r->avg_us, r->max_us, mbs,
           pred, ratio);
}

/* ---- result files: replaced atomically, every write checked ----------------- */

/* A stream whose every write is checked: the first failure is kept. */
typedef struct writer {
    FILE *f;
    int err; /* errno of the first failed write, 0 none */
} writer;

static void wput(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wput(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int rc = vfprintf(w->f, fmt, ap);
    va_end(ap);
    if (rc < 0 && !w->err)
        w->err = errno ? errno : EIO;
}

/* The file a write to path lands in: a symbolic link's target (so the
 * rename replaces the file and keeps the link), else path. */
/* torus_outfile's error line ("cannot write 'PATH': REASON") with the
 * option named: "cannot write --csv 'PATH': REASON". */
static int file_fail(char *err, size_t errlen, const char *opt, const char *line)
{
    static const char head[] = "cannot write ";
    if (!strncmp(line, head, sizeof head - 1))
        snprintf(err, errlen, "%s--%s %s", head, opt, line + sizeof head - 1);
    else
        snprintf(err, errlen, "--%s: %s", opt, line);
    return -1;
}

/* Before the run: will writing path work (torus_outfile_probe)? */
static int probe_file(const char *opt, const char *path, char *err, size_t errlen)
{
    char e2[512];
    return torus_outfile_probe(path, e2, sizeof e2) ? file_fail(err, errlen, opt, e2) : 0;
}

/* Writes path through emit with torus_outfile: a temporary in the same
 * folder, every write checked, fsync, close, rename over path (a device
 * or pipe such as /dev/stdout is written in place with the same checks),
 * so a full disk or a crash never leaves half a file.  0, or -1 with one
 * line in err (the old file intact). */
static int write_file(const char *opt, const char *path, void (*emit)(writer *, const run_info *),
                      const run_info *ri, char *err, size_t errlen)
{
    torus_outfile of;
    char e2[512];
    if (torus_outfile_open(&of, path, 0, e2, sizeof e2))
        return file_fail(err, errlen, opt, e2);
    writer w = {of.f, 0};
    emit(&w, ri);
    if (w.err) {
        torus_outfile_discard(&of);
        char esc[300];
        torus_cli_escape(path, esc, sizeof esc);
        snprintf(e2, sizeof e2, "cannot write '%s': %s", esc, strerror(w.err));
        return file_fail(err, errlen, opt, e2);
    }
    if (torus_outfile_commit(&of, e2, sizeof e2))
        return file_fail(err, errlen, opt, e2);
    return 0;
}

/* ",v", or "," alone for none (negative) */
static void csv_num(writer *w, double v)
{
    if (v < 0 || !isfinite(v))
        wput(w, ",");
    else
        wput(w, ",%.4f", v);
}

static void emit_csv(writer *w, const run_info *ri)
{
    /* the multisend patterns' columns only when they ran: a collectives
     * CSV keeps the columns plot_coll.sh and older files have */
    int pats = 0;
    for (int i = 0; i < ri->nrows; i++)
        pats |= ri->rows[i].kind >= NKINDS;
    wput(w, "op,size,algorithm,chosen,ranks,shape,mode,host,iters,warmup,min_us,avg_us,max_us,mb_s,pred_us,"
            "ratio_vs_mpi%s\n", pats ? ",setup_us,bound_us,ratio_vs_bound,breakeven_calls" : "");
    for (int i = 0; i < ri->nrows; i++) {
        const row *r = &ri->rows[i];
        wput(w, "%s,%zu,%s,%s,%d,%s,%s,%s,%d,%d,%.4f,%.4f,%.4f", op_label(r->kind), r->size, r->alg, r->chosen,
             ri->ranks, ri->shape, ri->mode, ri->host, r->iters, r->warmup, r->min_us, r->avg_us, r->max_us);
        csv_num(w, r->mbs);
        csv_num(w, r->pred_us);
        csv_num(w, r->ratio);
        if (pats) {
            int pat = r->kind >= NKINDS;
            csv_num(w, pat ? r->setup_us : -1);
            csv_num(w, pat ? r->bound_us : -1);
            csv_num(w, pat ? r->ratio_bound : -1);
            csv_num(w, pat ? r->breakeven : -1);
        }
        wput(w, "\n");
    }
}

static void json_str(writer *w, const char *s)
{
    wput(w, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            wput(w, "\\%c", c);
        else if (c < 0x20)
            wput(w, "\\u%04x", c);
        else
            wput(w, "%c", c);
    }
    wput(w, "\"");
}

static void json_num(writer *w, const char *key, double v)
{
    if (v < 0 || !isfinite(v))
        wput(w, ", \"%s\": null", key);
    else
        wput(w, ", \"%s\": %.6g", key, v);
}

static void emit_json(writer *w, const run_info *ri)
{
    wput(w, "{\"tool\": \"collbench\", \"version\": \"%s\", \"mode\": ", HPCC_RA_VERSION);
    json_str(w, ri->mode);
    wput(w, ", \"ranks\": %d, \"nodes\": %d, \"rounds\": %d, \"shape\": ", ri->ranks, ri->nodes, ri->rounds);
    json_str(w, ri->shape);
    wput(w, ", \"host\": ");
    json_str(w, ri->host);
    wput(w, ", \"mpi_library\": ");
    json_str(w, ri->mpi);
    wput(w, ", \"date\": ");
    json_str(w, ri->date);
    wput(w, ",\n \"calibration\": {\"alpha_s\": %.6g, \"beta_s_per_byte\": %.6g, \"gamma_s_per_byte\": %.6g, \"how\": ",
         ri->alpha, ri->beta, ri->gamma);
    json_str(w, ri->calib);
    wput(w, "},\n \"validation\": {\"checks\": %d, \"failures\": %d},\n \"rows\": [", ri->checks, ri->failures);
    for (int i = 0; i < ri->nrows; i++) {
        const row *r = &ri->rows[i];
        wput(w, "%s\n  {\"op\": \"%s\", \"size\": %zu, \"algorithm\": ", i ? "," : "", op_label(r->kind), r->size);
        json_str(w, r->alg);
        wput(w, ", \"chosen\": ");
        json_str(w, r->chosen);
        wput(w, ", \"iters\": %d, \"warmup\": %d, \"min_us\": %.6g, \"avg_us\": %.6g, \"max_us\": %.6g", r->iters,
             r->warmup, r->min_us, r->avg_us, r->max_us);
        json_num(w, "mb_s", r->mbs);
        json_num(w, "pred_us", r->pred_us);
        json_num(w, "ratio_vs_mpi", r->ratio);
        if (r->kind >= NKINDS) {
            json_num(w, "setup_us", r->setup_us);
            json_num(w, "bound_us", r->bound_us);
            json_num(w, "ratio_vs_bound", r->ratio_bound);
            json_num(w, "breakeven_calls", r->breakeven);
        }
        wput(w, "}");
    }
    wput(w, "\n ]}\n");
}

/* Writes --csv and --json (rank 0).  0, or the exit code with err set. */
static int write_results(const opts *o, const run_info *ri, char *err, size_t errlen)
{
    if (o->csv && write_file("csv", o->csv, emit_csv, ri, err, errlen))
        return TORUS_EXIT_RESOURCE;
    if (o->json && write_file("json", o->json, emit_json, ri, err, errlen))
        return TORUS_EXIT_RESOURCE;
    return 0;
}

/* ---- the preamble ----------------------------------------------------------- */

static void mpi_library(char *lib)
{
    int len = 0;
    lib[0] = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    for (char *c = lib; *c; c++)
        if (*c == '\t')
            *c = ' ';
}

static void now_string(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tmv;
    if (!localtime_r(&t, &tmv) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tmv))
        snprintf(buf, len, "unknown");
}

static void print_preamble(const opts *o, const run_info *ri, const char *timer)
{
    printf("# collbench (hpcc-ra) %s: torus/coll collectives against the MPI library's own, OSU-style\n",
           HPCC_RA_VERSION);
    if (o->simulate)
        printf("# ranks: %d simulated (one process), bgl link model\n", ri->ranks);
    else
        printf("# ranks: %d on %d node(s), %d per node%s%s%s\n", ri->ranks, ri->nodes, ri->per_node,
               ri->node_src ? " (emulated: " : "", ri->node_src ? ri->node_src : "", ri->node_src ? ")" : "");
    printf("# shape: %s (%s), XYZT placement\n", ri->shape, ri->shape_src);
    printf("# MPI: %s%s\n", ri->mpi, o->simulate ? " (no MPI collective runs in --simulate)" : "");
    printf("# date: %s\n", ri->date);
    printf("# iters: %ld per size (%ld above 64 KiB), warmup: %ld (%ld above 64 KiB), rounds: %ld\n", o->iters,
           (o->iters + 4) / 5, o->warmup, (o->warmup + 4) / 5, o->rounds);
    printf("# timer: %s; min/avg/max over ranks of each rank's time per call (%s)\n", timer,
           o->rounds > 1 ? "the median of its round means; the rounds visit the algorithms in turn" : "its mean");
    printf("# calibration: alpha %.4g s, beta %.4g s/byte, gamma %.4g s/byte (%s)\n", ri->alpha, ri->beta, ri->gamma,
           ri->calib);
    printf("# data: bcast from root 0; allreduce: doubles, sum; alltoall(v): size = bytes per pair; MB/s = bytes "
           "per rank / avg_us (alltoall(v): size x (ranks - 1)); auto(X): the table chose X; pred_us: "
           "torus_coll_predict of the algorithm that ran\n");
    print_registry("# algorithms:");
    if (o->pats[0] || o->pats[1] || o->pats[2])
        printf("\n# multisend patterns: mpi = MPI_Neighbor_alltoallv; %s; time per call = all steps "
               "(transpose: rows then columns); setup_us: avg over ranks of one set-up (plans, or the graph "
               "communicators%s)",
               MPI_VERSION >= 4 ? "mpi_init = MPI_Neighbor_alltoallv_init + MPI_Start/MPI_Wait (MPI-4)"
                                : "mpi_init not run: this MPI library is MPI-3 (no MPI_Neighbor_alltoallv_init)",
               MPI_VERSION >= 4 ? " and persistent requests" : "");
    printf("\n# validation: %s%s%s\n", o->validate ? "on (every result against the MPI library's own)" : "off",
           ri->validation_note ? "; " : "", ri->validation_note ? ri->validation_note : "");
    torus_stdout_flush();
}

/* What is left out of an op, so that every missing row is accounted for
 * by one notice line per algorithm: sizes at which its preconditions fail
 * on this shape (torus_coll_predict says it cannot run: timing it would
 * time the table's choice under its name), or the size from which it fell
 * back at run time (a precondition on the call's data, e.g. uniform
 * blocks). */
#define MAX_ALGS 64
typedef struct skips {
    size_t fell_back[MAX_ALGS]; /* per algorithm index: the size it fell back at, 0 none */
    char cannot[MAX_ALGS][256]; /* sizes at which it cannot run here: "1024, 4096" */
} skips;

static void skip_cannot(skips *sk, int a, size_t bytes)
{
    char *l = sk->cannot[a];
    size_t len = strlen(l);
    if (len + 24 < sizeof sk->cannot[a])
        snprintf(l + len, sizeof sk->cannot[a] - len, "%s%zu", len ? ", " : "", bytes);
    else if (!strstr(l, "..."))
        snprintf(l + len, sizeof sk->cannot[a] - len, ", ...");
}

static void skip_fell_back(skips *sk, int a, int print, int kind, const char *name, const char *ran, size_t bytes)
{
    sk->fell_back[a] = bytes ? bytes : 1;
    if (print)
        fprintf(stderr, "collbench: notice: %s algorithm '%s' fell back to '%s' at %zu bytes (its precondition fails "
                        "for this call): its rows from %zu bytes on are left out\n",
                kind_name[kind], name, ran, bytes, bytes);
}

static void print_skips(int kind, const char *const *algs, int nalg, const skips *sk)
{
    for (int a = 0; a < nalg && a < MAX_ALGS; a++)
        if (sk->cannot[a][0])
            fprintf(stderr, "collbench: notice: %s algorithm '%s' cannot run on this shape at %s bytes: those rows "
                            "are left out\n",
                    kind_name[kind], algs[a], sk->cannot[a]);
}

/* ---- data patterns --------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* ---- MPI mode ------------------------------------------------------------- */

typedef struct bench {
    const opts *o;
    int me, n;
    torus_map map;
    int *node_of;
    torus_mpi *tm[2];
    torus_transport tp[2];
    torus_coll *c_auto;  /* never forced: what an application gets (TORUS_COLL_<OP> applies) */
    torus_coll *c_named; /* forced to each algorithm in turn */
    /* per op: buffers of the largest size */
    unsigned char *sbuf, *rbuf;
    size_t *cnt, *dis;   /* uniform counts for the v call */
    int *icnt, *idis;    /* the same for MPI */
    int u64_minmax_broken; /* the library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare signed */
    MPI_Win win;         /* barrier check: a counter at rank 0 */
    uint64_t *win_base;
    run_info *ri;
} bench;

/* A torus call that failed is a broken algorithm or out of memory: the
 * other ranks may be waiting inside it, so the job ends here. */
static void call_failed(const bench *b, torus_coll *c, int kind, size_t bytes, int rc)
{
    fprintf(stderr, "collbench: %s '%s' failed at %zu bytes on rank %d: %s\n", kind_name[kind],
            torus_coll_last(c, kind_op[kind]), bytes, b->me, torus_coll_error(c));
    MPI_Abort(MPI_COMM_WORLD, rc == TORUS_COLL_ENOMEM ? TORUS_EXIT_RESOURCE : TORUS_EXIT_VERIFY);
}

/* One call of kind at bytes: through context c, or the MPI library's own
 * collective when c is NULL.  Timing data: root 0, doubles summed. */
static void one_call(bench *b, int kind, torus_coll *c, size_t bytes)
{
    int rc = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (kind) {
    case K_BARRIER:
        if (c)
            rc = torus_coll_barrier(c);
        else
            TORUS_MPI_CHECK(MPI_Barrier(w));
        break;
    case K_BCAST:
        if (c)
            rc = torus_coll_bcast(c, b->sbuf, bytes, 0);
        else
            TORUS_MPI_CHECK(MPI_Bcast(b->sbuf, (int)bytes, MPI_BYTE, 0, w));
        break;
    case K_ALLREDUCE:
        if (c)
            rc = torus_coll_allreduce(c, b->sbuf, b->rbuf, bytes / 8, TORUS_DOUBLE, TORUS_OP_SUM);
        else
            TORUS_MPI_CHECK(MPI_Allreduce(b->sbuf, b->rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, w));
        break;
    case K_ALLTOALL:
        if (c)
            rc = torus_coll_alltoall(c, b->sbuf, b->rbuf, bytes);
        else
            TORUS_MPI_CHECK(MPI_Alltoall(b->sbuf, (int)bytes, MPI_BYTE, b->rbuf, (int)bytes, MPI_BYTE, w));
        break;
    default:
        if (c)
            rc = torus_coll_alltoallv(c, b->sbuf, b->cnt, b->dis, b->rbuf, b->cnt, b->dis);
        else
            TORUS_MPI_CHECK(MPI_Alltoallv(b->sbuf, b->icnt, b->idis, MPI_BYTE, b->rbuf, b->icnt, b->idis, MPI_BYTE, w));
        break;
    }
    if (rc)
        call_failed(b, c, kind, bytes, rc);
}

/* The OSU loop; returns this rank's mean seconds per call.  (Without
 * warm-up calls the first iteration's barrier is the opening one.) */
static double measure(bench *b, int kind, torus_coll *c, size_t bytes, int iters, int warmup)
{
    if (warmup)
        TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < warmup; i++)
        one_call(b, kind, c, bytes);
    double t = 0;
    for (int i = 0; i < iters; i++) {
        TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        one_call(b, kind, c, bytes);
        t += MPI_Wtime() - t0;
    }
    return t / iters;
}

/* Buffers for the largest size of kind (uniform counts filled per size).
 * Agreed on every rank; on failure rank 0 says so and all exit 3. */
static int alloc_buffers(bench *b, int kind, size_t maxbytes)
{
    size_t per = is_a2a(kind) ? maxbytes * (size_t)b->n : maxbytes;
    /* validation of alltoallv adds gaps of up to 2 bytes between blocks */
    per += 4 * (size_t)b->n + 16;
    b->sbuf = malloc(per);
    b->rbuf = malloc(per);
    b->cnt = malloc(2 * (size_t)b->n * sizeof *b->cnt);
    b->icnt = malloc(2 * (size_t)b->n * sizeof *b->icnt);
    int ok = b->sbuf && b->rbuf && b->cnt && b->icnt;
    if (!torus_all_ok(MPI_COMM_WORLD, ok)) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory for %s buffers of 2 x %zu bytes per rank\n", kind_name[kind], per);
        return -1;
    }
    b->dis = b->cnt + b->n;
    b->idis = b->icnt + b->n;
    /* doubles that stay ordinary numbers under summation (no NaN, no
     * denormals that would slow one side down) */
    for (size_t i = 0; i + 8 <= per; i += 8) {
        double one = 1.0;
        memcpy(b->sbuf + i, &one, 8);
    }
    memset(b->rbuf, 0, per);
    return 0;
}

static void free_buffers(bench *b)
{
    free(b->sbuf), free(b->rbuf), free(b->cnt), free(b->icnt);
    b->sbuf = b->rbuf = NULL;
    b->cnt = NULL;
    b->icnt = NULL;
}

static void uniform_counts(bench *b, size_t bytes)
{
    for (int j = 0; j < b->n; j++) {
        b->cnt[j] = bytes;
        b->dis[j] = (size_t)j * bytes;
        b->icnt[j] = (int)bytes;
        b->idis[j] = (int)((size_t)j * bytes);
    }
}

/* ---- validation (MPI mode) ------------------------------------------------ */

/* Checks per algorithm and size at most (allreduce: 3 types x their
 * operations), and so per size. */
#define MAX_CHECKS 12
#define SIZE_CHECKS ((MAX_ALGS + 2) * MAX_CHECKS)

/* The checks of every algorithm at one size, decided together in one
 * collective (collectives of the MPI library are slow on an oversubscribed
 * machine): what[k] names check k, why[k] is this rank's first difference
 * ("" when right), skip[k] marks a check whose call fell back to another
 * algorithm (the same on every rank), which is not counted. */
typedef struct checks {
    int n;
    char what[SIZE_CHECKS][160];
    char why[SIZE_CHECKS][256];
    int skip[SIZE_CHECKS], bad[SIZE_CHECKS], nbad[SIZE_CHECKS];
} checks;

static int check_add(checks *ck, const char *what)
{
    int k = ck->n < SIZE_CHECKS - 1 ? ck->n++ : ck->n - 1;
    snprintf(ck->what[k], sizeof ck->what[k], "%s", what);
    ck->why[k][0] = 0;
    ck->skip[k] = 0;
    return k;
}

/* Rank 0 prints one line per failed check, naming the first wrong rank
 * and how many ranks were wrong.  Empties ck. */
static void decide(bench *b, checks *ck)
{
    if (!ck->n)
        return;
    int *bad = ck->bad, *nbad = ck->nbad;
    for (int k = 0; k < ck->n; k++)
        bad[k] = !ck->skip[k] && ck->why[k][0];
    TORUS_MPI_CHECK(MPI_Allreduce(bad, nbad, ck->n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < ck->n; k++) {
        if (ck->skip[k])
            continue;
        b->ri->checks++;
        if (!nbad[k])
            continue;
        b->ri->failures++;
        int first = bad[k] ? b->me : b->n;
        TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        char line[256];
        snprintf(line, sizeof line, "%s", ck->why[k]);
        if (first != 0) {
            if (b->me == first)
                TORUS_MPI_CHECK(MPI_Send(line, (int)sizeof line, MPI_CHAR, 0, 77, MPI_COMM_WORLD));
            else if (!b->me)
                TORUS_MPI_CHECK(MPI_Recv(line, (int)sizeof line, MPI_CHAR, first, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (!b->me)
            fprintf(stderr, "collbench: FAILED %s: %s (%d of %d ranks wrong)\n", ck->what[k], line, nbad[k], b->n);
    }
    ck->n = 0;
}

/* Whether the forced algorithm really ran ("" = nothing ran: one rank or
 * nothing to move, which is right for any algorithm). */
static int ran_as_asked(torus_coll *c, int kind, const char *alg)
{
    const char *last = torus_coll_last(c, kind_op[kind]);
    return !alg || !*last || !strcmp(last, alg);
}

/* A reference made with the MPI library must fit: on failure every rank
 * leaves with exit 3, rank 0 saying what did not fit. */
static void need_memory(bench *b, int ok, const char *what, size_t bytes)
{
    if (!torus_all_ok(MPI_COMM_WORLD, ok)) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory for the %s reference at %zu bytes\n", what, bytes);
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
}

/* Barrier: nobody leaves before everybody has entered.  Each rank adds 1
 * to a counter at rank 0 (completed at the target by the flush) before
 * entering; after leaving it reads the counter atomically: a correct
 * barrier shows every rank's increment of this round.  A late rank (the
 * last, the first, a middle one) makes a barrier that lets ranks out early
 * fail visibly. */
static void validate_barrier(bench *b, checks *ck, torus_coll *c, const char *alg, const char *label)
{
    int n = b->n;
    uint64_t one = 1, zero = 0, old = 0, got = 0;
    char what[160];
    snprintf(what, sizeof what, "barrier '%s'", label);
    int k = check_add(ck, what);
    TORUS_MPI_CHECK(MPI_Win_lock_all(0, b->win));
    if (!b->me) {
        TORUS_MPI_CHECK(MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, 0, 0, MPI_REPLACE, b->win));
        TORUS_MPI_CHECK(MPI_Win_flush(0, b->win));
    }
    TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const int late[3] = {n - 1, 0, n / 2};
    for (int round = 1; round <= 3; round++) {
        if (b->me == late[round - 1]) {
            struct timespec ts = {0, 2000000}; /* 2 ms */
            nanosleep(&ts, NULL);
        }
        TORUS_MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 0, 0, MPI_SUM, b->win));
        TORUS_MPI_CHECK(MPI_Win_flush(0, b->win));
        int rc = torus_coll_barrier(c);
        if (rc)
            call_failed(b, c, K_BARRIER, 0, rc);
        TORUS_MPI_CHECK(MPI_Fetch_and_op(&one, &got, MPI_UINT64_T, 0, 0, MPI_NO_OP, b->win)); /* an atomic read */
        TORUS_MPI_CHECK(MPI_Win_flush(0, b->win));
        if (got < (uint64_t)round * (uint64_t)n && !ck->why[k][0])
            snprintf(ck->why[k], sizeof ck->why[k],
                     "rank %d left barrier %d when %llu of %d ranks had entered (rank %d late)", b->me, round,
                     (unsigned long long)(got - (uint64_t)(round - 1) * (uint64_t)n), n, late[round - 1]);
        ck->skip[k] |= !ran_as_asked(c, K_BARRIER, alg);
        TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* everyone has read before the next round adds */
    }
    TORUS_MPI_CHECK(MPI_Win_unlock_all(b->win));
}

/* The MPI library's results at one size, made once and compared with
 * every algorithm (and freed when the size changes). */
enum { AR_CASES = 11 };
typedef struct vref {
    int kind;
    size_t bytes;       /* (size_t)-1: none made yet */
    unsigned char *bc[2];   /* bcast: what MPI_Bcast gave from roots 0 and P-1 */
    uint64_t *ar[AR_CASES]; /* allreduce: per (type, operation) */
    unsigned char *a2a[2];  /* alltoall(v): MPI_Alltoallv's receive buffer, even and uneven counts */
} vref;

static void vref_free(vref *v)
{
    free(v->bc[0]), free(v->bc[1]), free(v->a2a[0]), free(v->a2a[1]);
    for (int i = 0; i < AR_CASES; i++)
        free(v->ar[i]);
    memset(v, 0, sizeof *v);
    v->bytes = (size_t)-1;
}

static unsigned char bcast_byte(size_t bytes, int root, size_t i)
{
    return (unsigned char)mix64(((uint64_t)bytes << 20) ^ ((uint64_t)root << 8) ^ mix64(i));
}

static void validate_bcast(bench *b, vref *v, checks *ck, torus_coll *c, const char *alg, const char *label,
                           size_t bytes)
{
    int roots[2] = {0, b->n - 1}, nroots = b->n > 1 ? 2 : 1;
    if (v->bytes != bytes) {
        vref_free(v);
        v->bytes = bytes;
        for (int r = 0; r < nroots; r++) {
            v->bc[r] = malloc(bytes);
            need_memory(b, v->bc[r] != NULL, "bcast", bytes);
            for (size_t i = 0; i < bytes; i++)
                v->bc[r][i] = b->me == roots[r] ? bcast_byte(bytes, roots[r], i) : 0;
            TORUS_MPI_CHECK(MPI_Bcast(v->bc[r], (int)bytes, MPI_BYTE, roots[r], MPI_COMM_WORLD));
        }
    }
    unsigned char *got = b->rbuf;
    for (int r = 0; r < nroots; r++) {
        char what[160];
        snprintf(what, sizeof what, "bcast '%s' %zu bytes root %d", label, bytes, roots[r]);
        int k = check_add(ck, what);
        for (size_t i = 0; i < bytes; i++)
            got[i] = b->me == roots[r] ? bcast_byte(bytes, roots[r], i) : 0xEE;
        int rc = torus_coll_bcast(c, got, bytes, roots[r]);
        if (rc)
            call_failed(b, c, K_BCAST, bytes, rc);
        ck->skip[k] = !ran_as_asked(c, K_BCAST, alg);
        for (size_t i = 0; i < bytes; i++)
            if (got[i] != v->bc[r][i]) {
                snprintf(ck->why[k], sizeof ck->why[k], "rank %d byte %zu: 0x%02x, MPI_Bcast gave 0x%02x", b->me, i,
                         got[i], v->bc[r][i]);
                break;
            }
    }
}

/* Element i of rank r's allreduce input for case c: integers over their
 * whole range for uint64 (sums wrap, as unsigned arithmetic does), within
 * +-2^52 for int64 (no signed overflow, which MPI leaves undefined), whole
 * numbers within +-1e6 for doubles so that any order of summation is
 * exact. */
static uint64_t ar_elem(int r, size_t i, torus_dtype t, int c)
{
    uint64_t x = mix64(((uint64_t)c << 48) ^ ((uint64_t)r << 32) ^ i);
    if (t == TORUS_INT64) {
        int64_t s = (int64_t)(x % (1ULL << 53)) - (int64_t)(1ULL << 52);
        memcpy(&x, &s, 8);
    } else if (t == TORUS_DOUBLE) {
        double d = (double)(int64_t)(x % 2000001) - 1000000.0;
        memcpy(&x, &d, 8);
    }
    return x;
}

/* acc = acc op x, the rank-order reference: doubles (held as bits) with
 * sum, min, max; uint64 with min, max */
static void fold(uint64_t *acc, uint64_t x, torus_dtype t, torus_op op)
{
    if (t == TORUS_UINT64) {
        *acc = op == TORUS_OP_MIN ? (x < *acc ? x : *acc) : (x > *acc ? x : *acc);
        return;
    }
    double a, y;
    memcpy(&a, acc, 8);
    memcpy(&y, &x, 8);
    a = op == TORUS_OP_SUM ? a + y : op == TORUS_OP_MIN ? (y < a ? y : a) : (y > a ? y : a);
    memcpy(acc, &a, 8);
}

/* Whether the MPI library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare as
 * signed numbers (MPICH 4.0.2: pmodels/mpich#6083): then those references
 * come from MPI_Allgather instead, so that collbench does not blame the
 * algorithms for the library's error.  Collective. */
static int u64_minmax_broken(void)
{
    int me;
    TORUS_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    uint64_t v[2] = {me ? UINT64_MAX : 0, me ? 0 : UINT64_MAX}, mn[2], mx[2];
    TORUS_MPI_CHECK(MPI_Allreduce(v, mn, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
    TORUS_MPI_CHECK(MPI_Allreduce(v, mx, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
    int n;
    TORUS_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    return n > 1 && (mn[0] != 0 || mn[1] != 0 || mx[0] != UINT64_MAX || mx[1] != UINT64_MAX);
}

/* Whether case (t, op) is checked against a rank-order fold of
 * everyone's inputs (MPI_Allgather) rather than MPI_Allreduce: doubles
 * always (the library's fixed order), uint64 min/max when the library
 * gets them wrong. */
static int gathered_ref(const bench *b, torus_dtype t, torus_op op)
{
    return t == TORUS_DOUBLE || (t == TORUS_UINT64 && (op == TORUS_OP_MIN || op == TORUS_OP_MAX) &&
                                 b->u64_minmax_broken);
}

/* Case c of the 11: uint64 and int64 with sum, min, max, bxor; doubles
 * with sum, min, max. */
static void ar_case(int c, torus_dtype *t, torus_op *op)
{
    *t = (torus_dtype)(c / 4);
    *op = (torus_op)(c % 4);
}

static void validate_allreduce(bench *b, vref *v, checks *ck, torus_coll *c, const char *alg, const char *label,
                               size_t bytes)
{
    static const char *const tname[] = {"uint64", "int64", "double"};
    static const char *const oname[] = {"sum", "min", "max", "bxor"};
    static const MPI_Op mop[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_BXOR};
    size_t count = bytes / 8;
    uint64_t *in = (uint64_t *)(void *)b->sbuf, *got = (uint64_t *)(void *)b->rbuf;
    if (v->bytes != bytes) {
        vref_free(v);
        v->bytes = bytes;
        /* the rank-order cases: every rank's inputs of all of them in one
         * MPI_Allgather, rank r's at all + r * ng * count */
        int ng = 0, gi[AR_CASES];
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            gi[cs] = gathered_ref(b, t, op) ? ng++ : -1;
        }
        size_t per = (size_t)ng * count;
        uint64_t *mine = malloc(per * 8 + 8), *all = malloc(per * 8 * (size_t)b->n + 8);
        need_memory(b, mine && all, "allreduce", bytes);
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            for (size_t i = 0; gi[cs] >= 0 && i < count; i++)
                mine[(size_t)gi[cs] * count + i] = ar_elem(b->me, i, t, cs);
        }
        TORUS_MPI_CHECK(MPI_Allgather(mine, (int)per, MPI_UINT64_T, all, (int)per, MPI_UINT64_T, MPI_COMM_WORLD));
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            v->ar[cs] = malloc(count * 8 + 8);
            need_memory(b, v->ar[cs] != NULL, "allreduce", bytes);
            if (gi[cs] >= 0) {
                /* the fixed order: ranks 0, 1, ..., P-1 */
                const uint64_t *x = all + (size_t)gi[cs] * count;
                for (size_t i = 0; i < count; i++) {
                    v->ar[cs][i] = x[i];
                    for (int r = 1; r < b->n; r++)
                        fold(&v->ar[cs][i], x[(size_t)r * per + i], t, op);
                }
            } else {
                for (size_t i = 0; i < count; i++)
                    in[i] = ar_elem(b->me, i, t, cs);
                TORUS_MPI_CHECK(MPI_Allreduce(in, v->ar[cs], (int)count, t == TORUS_UINT64 ? MPI_UINT64_T : MPI_INT64_T,
                                     mop[op], MPI_COMM_WORLD));
            }
        }
        free(mine);
        free(all);
    }
    for (int cs = 0; cs < AR_CASES; cs++) {
        torus_dtype t;
        torus_op op;
        ar_case(cs, &t, &op);
        char what[160];
        snprintf(what, sizeof what, "allreduce '%s' %zu bytes %s %s", label, bytes, tname[t], oname[op]);
        int k = check_add(ck, what);
        for (size_t i = 0; i < count; i++)
            in[i] = ar_elem(b->me, i, t, cs);
        /* bxor in place, as applications call it too */
        int in_place = op == TORUS_OP_BXOR;
        if (in_place)
            memcpy(got, in, count * 8);
        else
            memset(got, 0xA5, count * 8);
        int rc = torus_coll_allreduce(c, in_place ? got : in, got, count, t, op);
        if (rc)
            call_failed(b, c, K_ALLREDUCE, bytes, rc);
        ck->skip[k] = !ran_as_asked(c, K_ALLREDUCE, alg);
        for (size_t i = 0; i < count; i++)
            if (got[i] != v->ar[cs][i]) {
                snprintf(ck->why[k], sizeof ck->why[k], "rank %d element %zu of %zu: 0x%016llx, %s gave 0x%016llx",
                         b->me, i, count, (unsigned long long)got[i],
                         gathered_ref(b, t, op) ? "the rank-order reference" : "MPI_Allreduce",
                         (unsigned long long)v->ar[cs][i]);
                break;
            }
    }
    /* the timing data again: ones */
    for (size_t i = 0; i < count; i++) {
        double one = 1.0;
        memcpy(&in[i], &one, 8);
    }
}

static unsigned char a2a_byte(int from, int to, size_t i, size_t bytes)
{
    return (unsigned char)mix64(((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ (bytes << 4) ^ mix64(i));
}

/* Uneven counts for the v call: 0 .. bytes, some zero. */
static size_t uneven(int from, int to, size_t bytes)
{
    uint64_t h = mix64((uint64_t)from * 131u + (uint64_t)to);
    return h % 5 == 0 ? 0 : (size_t)(h % (bytes + 1));
}

/* Counts and displacements of the check: every block `bytes` long and
 * packed, or (uneven) every pair its own count with gaps between blocks,
 * which must stay untouched.  Returns the receive buffer's length. */
static size_t a2a_layout(int me, int n, size_t bytes, int uneven_counts, size_t *sc, size_t *sd, size_t *rc,
                         size_t *rd, int *isc)
{
    size_t stot = 0, rtot = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = uneven_counts ? uneven(me, j, bytes) : bytes;
        rc[j] = uneven_counts ? uneven(j, me, bytes) : bytes;
        sd[j] = stot;
        rd[j] = rtot;
        stot += sc[j] + (uneven_counts ? (size_t)(j % 3) : 0);
        rtot += rc[j] + (uneven_counts ? (size_t)(j % 2) : 0);
        isc[j] = (int)sc[j], isc[n + j] = (int)sd[j], isc[2 * n + j] = (int)rc[j], isc[3 * n + j] = (int)rd[j];
    }
    return rtot;
}

static void a2a_fill(bench *b, const size_t *sc, const size_t *sd, size_t bytes)
{
    size_t end = sd[b->n - 1] + sc[b->n - 1] + 2;
    memset(b->sbuf, 0xAB, end);
    for (int j = 0; j < b->n; j++)
        for (size_t i = 0; i < sc[j]; i++)
            b->sbuf[sd[j] + i] = a2a_byte(b->me, j, i, bytes);
}

/* alltoall, and alltoallv with even and uneven counts, against
 * MPI_Alltoallv on the same counts. */
static void validate_a2a(bench *b, vref *v, checks *ck, int kind, torus_coll *c, const char *alg, const char *label,
                         size_t bytes)
{
    int n = b->n, variants = kind == K_ALLTOALLV ? 2 : 1;
    size_t *sc = malloc(4 * (size_t)n * sizeof *sc);
    int *isc = malloc(4 * (size_t)n * sizeof *isc);
    need_memory(b, sc && isc, "alltoall counts", bytes);
    size_t *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
    if (v->bytes != bytes || v->kind != kind) {
        vref_free(v);
        v->bytes = bytes;
        v->kind = kind;
        for (int u = 0; u < variants; u++) {
            size_t rtot = a2a_layout(b->me, n, bytes, u, sc, sd, rc, rd, isc);
            v->a2a[u] = malloc(rtot + 1);
            need_memory(b, v->a2a[u] != NULL, kind_name[kind], bytes);
            memset(v->a2a[u], 0xCD, rtot + 1);
            a2a_fill(b, sc, sd, bytes);
            TORUS_MPI_CHECK(MPI_Alltoallv(b->sbuf, isc, isc + n, MPI_BYTE, v->a2a[u], isc + 2 * n, isc + 3 * n, MPI_BYTE,
                                 MPI_COMM_WORLD));
        }
    }
    for (int u = 0; u < variants; u++) {
        size_t rtot = a2a_layout(b->me, n, bytes, u, sc, sd, rc, rd, isc);
        char what[160];
        snprintf(what, sizeof what, "%s '%s' %zu bytes%s", kind_name[kind], label, bytes, u ? " uneven counts" : "");
        int k = check_add(ck, what);
        a2a_fill(b, sc, sd, bytes);
        unsigned char *got = b->rbuf;
        memset(got, 0xCD, rtot + 1);
        int rcode = kind == K_ALLTOALL ? torus_coll_alltoall(c, b->sbuf, got, bytes)
                                       : torus_coll_alltoallv(c, b->sbuf, sc, sd, got, rc, rd);
        if (rcode)
            call_failed(b, c, kind, bytes, rcode);
        ck->skip[k] = !ran_as_asked(c, kind, alg);
        for (size_t i = 0; i < rtot; i++)
            if (got[i] != v->a2a[u][i]) {
                int from = 0;
                while (from + 1 < n && rd[from + 1] <= i)
                    from++;
                snprintf(ck->why[k], sizeof ck->why[k],
                         "rank %d byte %zu (%s from rank %d): 0x%02x, MPI_Alltoallv gave 0x%02x", b->me, i,
                         i < rd[from] + rc[from] ? "block" : "gap after the block", from, got[i], v->a2a[u][i]);
                break;
            }
    }
    free(sc);
    free(isc);
}

/* Checks algorithm `label` (context c; alg = the forced name, NULL for
 * auto) at one size against the MPI library's references in v; the
 * verdicts are added to ck (decided once per size). */
static void validate(bench *b, vref *v, checks *ck, int kind, torus_coll *c, const char *alg, const char *label,
                     size_t bytes)
{
    switch (kind) {
    case K_BARRIER:
        validate_barrier(b, ck, c, alg, label);
        break;
    case K_BCAST:
        validate_bcast(b, v, ck, c, alg, label, bytes);
        break;
    case K_ALLREDUCE:
        validate_allreduce(b, v, ck, c, alg, label, bytes);
        break;
    default:
        validate_a2a(b, v, ck, kind, c, alg, label, bytes);
        break;
    }
}

/* ---- calibration (MPI mode) -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Half round trips (or, alone, one message to itself) of `bytes` between
 * ranks 0 and 1: the median of reps after a few untimed. */
static double pingpong(int me, int n, char *buf, int bytes, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t), res; /* rank 1 times nothing */
    if (!t) {
        fprintf(stderr, "collbench: out of memory for the calibration\n");
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
    for (int rep = -5; rep < reps; rep++) {
        double t0 = MPI_Wtime();
        if (n == 1) {
            MPI_Request rq;
            TORUS_MPI_CHECK(MPI_Irecv(buf + bytes, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq));
            TORUS_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
            TORUS_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (me == 0) {
            TORUS_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
            TORUS_MPI_CHECK(MPI_Recv(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            TORUS_MPI_CHECK(MPI_Recv(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            TORUS_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
        }
        if (rep >= 0)
            t[rep] = (MPI_Wtime() - t0) / (n == 1 ? 1 : 2);
    }
    res = median(t, reps);
    free(t);
    return res;
}

/* gamma: seconds per byte of the library's double sum (dst = a + b), on
 * two 1 MiB vectors, median of 20. */
static double time_reduction(void)
{
    enum { N = (1 << 20) / 8, REPS = 20 };
    double *a = malloc(N * sizeof *a), *bb = malloc(N * sizeof *bb), t[REPS], sink = 0;
    if (!a || !bb) {
        fprintf(stderr, "collbench: out of memory for the calibration\n");
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
    for (int i = 0; i < N; i++)
        a[i] = i, bb[i] = 1.0;
    for (int rep = -2; rep < REPS; rep++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < N; i++)
            a[i] = a[i] + bb[i];
        double dt = MPI_Wtime() - t0;
        sink += a[rep + 2];
        if (rep >= 0)
            t[rep] = dt;
    }
    volatile double keep = sink; /* the loop's result is used */
    (void)keep;
    free(a), free(bb);
    return median(t, REPS) / (double)(N * 8);
}

/* alpha, beta, gamma on every rank.  Ranks 0 and 1 ping-pong while the
 * others sleep (so that on an oversubscribed machine they do not steal
 * the cores the ping-pong needs); rank 0 then times the reduction. */
static void calibrate(bench *b)
{
    run_info *ri = b->ri;
    double cal[3] = {0, 0, 0};
    int active = b->me < 2;
    MPI_Request rq;
    if (!active) {
        TORUS_MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        for (int done = 0; !done;) {
            TORUS_MPI_CHECK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
            if (!done) {
                struct timespec ts = {0, 200000};
                nanosleep(&ts, NULL);
            }
        }
    } else {
        enum { BIG = 1 << 20 };
        char *buf = calloc(2 * BIG, 1);
        if (!buf) {
            fprintf(stderr, "collbench: out of memory for the calibration\n");
            MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
        }
        double t8 = pingpong(b->me, b->n, buf, 8, 200);
        double tb = pingpong(b->me, b->n, buf, BIG, 20);
        free(buf);
        cal[0] = t8;
        cal[1] = tb > t8 ? (tb - t8) / (BIG - 8) : 0;
        if (!b->me)
            cal[2] = time_reduction();
        TORUS_MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        TORUS_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    TORUS_MPI_CHECK(MPI_Bcast(cal, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    ri->alpha = cal[0];
    ri->beta = cal[1];
    ri->gamma = cal[2];
    snprintf(ri->calib, sizeof ri->calib,
             "%s; gamma: rank 0 summing two 1 MiB vectors of doubles",
             b->n > 1 ? "alpha: half round trip of 8 bytes between ranks 0 and 1, beta: from a 1 MiB ping-pong, "
                        "medians"
                      : "one rank: alpha and beta from messages to itself (no network), medians");
}

/* ---- one op over every size and algorithm (MPI mode) ----------------------- */

typedef struct entry {
    const char *name;  /* auto, mpi or an algorithm */
    torus_coll *c;     /* NULL: the MPI library */
    int idx;           /* index among the op's algorithms, -1 for auto/mpi */
} entry;

static double ratio_of(double avg, double mpi_avg)
{
    return mpi_avg > 0 ? avg / mpi_avg : -1;
}

/* Rank 0: one row from every rank's mean seconds per call (all[n]). */
static void fill_row(const bench *b, row *r, const entry *e, const double *all, size_t bytes)
{
    double mn = all[0], mx = all[0], sum = 0;
    for (int k = 0; k < b->n; k++) {
        mn = all[k] < mn ? all[k] : mn;
        mx = all[k] > mx ? all[k] : mx;
        sum += all[k];
    }
    r->min_us = mn * 1e6;
    r->max_us = mx * 1e6;
    r->avg_us = sum / b->n * 1e6;
    double pay = payload(r->kind, bytes, b->n);
    r->mbs = pay > 0 && r->avg_us > 0 ? pay / r->avg_us : -1;
    double pr = e->c ? torus_coll_predict(b->c_auto, kind_op[r->kind], r->chosen, bytes, b->ri->alpha, b->ri->beta,
                                          b->ri->gamma)
                     : -1;
    r->pred_us = pr >= 0 ? pr * 1e6 : -1;
}

static void run_op_mpi(bench *b, int kind)
{
    const opts *o = b->o;
    torus_coll_op op = kind_op[kind];
    const char *const *algs = torus_coll_algorithms(op);
    int nalg = 0;
    while (algs[nalg])
        nalg++;
    /* Order of measurement: mpi first, so every row can carry its ratio. */
    entry e[MAX_ALGS + 2];
    int ne = 0;
    if (wanted(o, "mpi"))
        e[ne++] = (entry){"mpi", NULL, -1};
    /* an op with no algorithm registered yet has nothing for auto to run */
    if (nalg && wanted(o, "auto"))
        e[ne++] = (entry){"auto", b->c_auto, -1};
    for (int a = 0; a < nalg && a < MAX_ALGS; a++)
        if (wanted(o, algs[a]))
            e[ne++] = (entry){algs[a], b->c_named, a};
    if (!b->me) {
        print_header(kind);
        if (!nalg)
            printf("# (no %s algorithm registered yet: only the MPI library's is timed)\n", torus_coll_op_name(op));
        if (!ne)
            printf("# (no algorithm of --algorithms applies to %s)\n", kind_name[kind]);
    }
    if (!ne)
        return;
    size_t sizes1[1] = {0};
    const size_t *sizes = kind == K_BARRIER ? sizes1 : o->sizes;
    int nsizes = kind == K_BARRIER ? 1 : o->nsizes;
    size_t maxb = sizes[nsizes - 1];
    if (kind == K_ALLREDUCE && maxb < 8)
        maxb = 8;
    if (alloc_buffers(b, kind, maxb)) {
        MPI_Finalize();
        exit(TORUS_EXIT_RESOURCE);
    }
    skips *sk = calloc(1, sizeof *sk);
    checks *ck = o->validate ? calloc(1, sizeof *ck) : NULL;
    double *all = !b->me ? malloc((size_t)b->n * (size_t)ne * sizeof *all) : NULL;
    if (!torus_all_ok(MPI_COMM_WORLD, sk && (ck || !o->validate) && (all || b->me))) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
    vref vr;
    memset(&vr, 0, sizeof vr);
    vref_free(&vr);
    size_t prev_bytes = (size_t)-1;
    for (int si = 0; si < nsizes; si++) {
        size_t bytes = sizes[si];
        /* allreduce moves whole doubles: the size is rounded down to them */
        if (kind == K_ALLREDUCE)
            bytes = bytes < 8 ? 8 : bytes / 8 * 8;
        if (bytes == prev_bytes)
            continue;
        prev_bytes = bytes;
        if (is_a2a(kind))
            uniform_counts(b, bytes);
        int it = iters_for(o, bytes), wu = warmup_for(o, bytes);
        /* rounds: each visits every algorithm with a share of the calls */
        int nr = (int)o->rounds < it ? (int)o->rounds : it;
        int it_r = (it + nr - 1) / nr;
        row rows[MAX_ALGS + 2];
        int have[MAX_ALGS + 2] = {0};
        double mean[MAX_ALGS + 2] = {0};
        static double rmean[MAX_ALGS + 2][MAX_ROUNDS];
        for (int i = 0; i < ne; i++) {
            row *r = &rows[i];
            memset(r, 0, sizeof *r);
            r->kind = kind;
            r->size = bytes;
            r->iters = it_r * nr;
            r->warmup = wu;
            snprintf(r->alg, sizeof r->alg, "%s", e[i].name);
        }
        for (int round = 0; round < nr; round++)
            for (int i = 0; i < ne; i++) {
                row *r = &rows[i];
                if (round > 0 && !have[i])
                    continue;
                if (e[i].idx >= 0) {
                    if (round == 0 && sk->fell_back[e[i].idx])
                        continue;
                    if (round == 0 && torus_coll_predict(b->c_auto, op, e[i].name, bytes, 1, 1, 1) < 0) {
                        skip_cannot(sk, e[i].idx, bytes);
                        continue;
                    }
                    if (torus_coll_force(b->c_named, op, e[i].name)) {
                        if (!b->me)
                            fprintf(stderr, "collbench: %s\n", torus_coll_error(b->c_named));
                        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_USAGE);
                    }
                }
                /* the first round warms up fully, later ones with one call
                 * (the other algorithms ran in between) */
                rmean[i][round] = measure(b, kind, e[i].c, bytes, it_r, round == 0 ? wu : wu > 0);
                if (round > 0)
                    continue;
                if (e[i].c) {
                    const char *last = torus_coll_last(e[i].c, op);
                    if (e[i].idx >= 0 && *last && strcmp(last, e[i].name)) {
                        skip_fell_back(sk, e[i].idx, !b->me, kind, e[i].name, last, bytes);
                        continue;
                    }
                    snprintf(r->chosen, sizeof r->chosen, "%s", *last ? last : torus_coll_choice(e[i].c, op, bytes));
                    if (o->validate)
                        validate(b, &vr, ck, kind, e[i].c, e[i].idx >= 0 ? e[i].name : NULL, e[i].name, bytes);
                } else {
                    snprintf(r->chosen, sizeof r->chosen, "mpi");
                }
                have[i] = 1;
            }
        for (int i = 0; i < ne; i++)
            if (have[i])
                mean[i] = median(rmean[i], nr);
        /* one gather and one verdict for the whole size */
        TORUS_MPI_CHECK(MPI_Gather(mean, ne, MPI_DOUBLE, all, ne, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        if (o->validate)
            decide(b, ck);
        if (b->me)
            continue;
        double mpi_avg = -1, *one = malloc((size_t)b->n * sizeof *one);
        if (!one) {
            fprintf(stderr, "collbench: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
        }
        for (int i = 0; i < ne; i++) {
            if (!have[i])
                continue;
            for (int k = 0; k < b->n; k++)
                one[k] = all[(size_t)k * (size_t)ne + (size_t)i];
            fill_row(b, &rows[i], &e[i], one, bytes);
            if (!e[i].c)
                mpi_avg = rows[i].avg_us;
        }
        free(one);
        /* printed: auto, the algorithms, mpi last */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < ne; i++) {
                if (!have[i] || (pass == 0) != (e[i].c != NULL))
                    continue;
                rows[i].ratio = e[i].c ? ratio_of(rows[i].avg_us, mpi_avg) : -1;
                print_row(&rows[i]);
                if (add_row(b->ri, &rows[i])) {
                    fprintf(stderr, "collbench: out of memory for the results\n");
                    MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
                }
            }
        torus_stdout_flush();
    }
    if (!b->me)
        print_skips(kind, algs, nalg, sk);
    free(sk);
    free(ck);
    free(all);
    vref_free(&vr);
    free_buffers(b);
}

/* Bytes a rank holds at once for the largest size: the send and receive
 * buffers (alloc_buffers: alltoall(v) a block per rank, the multisend
 * patterns a block per destination, at most max(8, P, --k)) and, with
 * --validate, the references made with the MPI library, about as much
 * again.  In doubles: no product wraps. */
static double buffer_need(const opts *o, int n)
{
    double maxs = (double)o->sizes[o->nsizes - 1], need = 0;
    for (int k = 0; k < NKINDS; k++)
        if (o->kinds[k]) {
            double per = (is_a2a(k) ? maxs * n : maxs) + 4.0 * n + 16;
            need = 2 * per > need ? 2 * per : need;
        }
    if (o->pats[0] || o->pats[1] || o->pats[2]) {
        double blocks = n > 8 ? n : 8;
        blocks = (double)o->k > blocks ? (double)o->k : blocks;
        need = 2 * maxs * blocks > need ? 2 * maxs * blocks : need;
    }
    return o->validate ? 2 * need : need;
}

/* The collective contexts over MPI_COMM_WORLD: the map from --dims, the
 * node of every rank, two message-only transports (one per context, so the
 * two never share tags).  Returns -1 to go on, else an exit code. */
static int setup_mpi(bench *b, char *err, size_t errlen)
{
    const opts *o = b->o;
    torus_shape s;
    char e2[300];
    if (torus_shape_parse(o->dims, b->n, &s, e2, sizeof e2)) {
        snprintf(err, errlen, "--dims: %s", e2);
        return TORUS_EXIT_USAGE;
    }
    if (torus_map_xyzt(&b->map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d ranks", b->n);
        return TORUS_EXIT_RESOURCE;
    }
    torus_shape_format(&s, b->ri->shape, sizeof b->ri->shape);
    char esc[100];
    torus_cli_escape(o->dims, esc, sizeof esc);
    snprintf(b->ri->shape_src, sizeof b->ri->shape_src, "--dims %s", esc);
    torus_node_info ni;
    int nrc = torus_node_discover(MPI_COMM_WORLD, &ni, err, errlen);
    if (nrc)
        return nrc == -2 ? TORUS_EXIT_USAGE : TORUS_EXIT_RESOURCE;
    /* the one memory check, before any buffer is touched */
    torus_mem_verdict v;
    double need = buffer_need(o, b->n);
    if (!torus_mem_fits(MPI_COMM_WORLD, &ni, need, &v)) {
        if (v.speaker)
            fprintf(stderr,
                    "collbench: error: --sizes up to %zu bytes at %d ranks need %.2f GiB per rank, %.2f GiB on this "
                    "node (%d ranks), but only %.2f GiB is available: allowed smaller --sizes\n",
                    o->sizes[o->nsizes - 1], b->n, need / (double)(1ULL << 30), v.node_need / (double)(1ULL << 30),
                    v.ranks, (double)v.avail / (double)(1ULL << 30));
        torus_node_free(&ni);
        err[0] = 0;
        return TORUS_EXIT_RESOURCE;
    }
    b->ri->nodes = ni.nnodes;
    b->ri->per_node = ni.max_per_node;
    b->ri->node_src = ni.emulated ? torus_node_source(&ni) : NULL;
    b->node_of = malloc((size_t)b->n * sizeof *b->node_of);
    if (!torus_all_ok(MPI_COMM_WORLD, b->node_of != NULL)) {
        snprintf(err, errlen, "out of memory for the node table");
        return TORUS_EXIT_RESOURCE;
    }
    TORUS_MPI_CHECK(MPI_Allgather(&ni.node, 1, MPI_INT, b->node_of, 1, MPI_INT, MPI_COMM_WORLD));
    torus_node_free(&ni);
    for (int i = 0; i < 2; i++) {
        if (torus_mpi_create(&b->tm[i], MPI_COMM_WORLD, &b->map, b->me, 1, 0, e2, sizeof e2)) {
            snprintf(err, errlen, "%s", e2);
            return TORUS_EXIT_RESOURCE;
        }
        torus_mpi_bind(b->tm[i], &b->tp[i]);
        torus_coll_config cfg = {.map = &b->map, .me = b->me, .tp = &b->tp[i], .node_of = b->node_of,
                                 .idle = NULL, .idle_ctx = NULL};
        int rc = torus_coll_create(i ? &b->c_named : &b->c_auto, &cfg, e2, sizeof e2);
        /* TORUS_COLL_<OP> naming no algorithm fails the same on every rank */
        if (!torus_all_ok(MPI_COMM_WORLD, rc == 0)) {
            snprintf(err, errlen, "%s", e2);
            return rc == TORUS_COLL_ENOMEM ? TORUS_EXIT_RESOURCE : TORUS_EXIT_USAGE;
        }
    }
    return -1;
}

static void teardown_mpi(bench *b)
{
    torus_coll_destroy(b->c_auto);
    torus_coll_destroy(b->c_named);
    for (int i = 0; i < 2; i++)
        if (b->tm[i])
            torus_mpi_destroy(b->tm[i]);
    torus_map_free(&b->map);
    free(b->node_of);
}

/* ---- multisend patterns: halo4d, transpose, sparse (paper 001) ------------- */

/* The patterns' process grids: halo4d's 4-D grid (dimension 0 fastest in
 * rank order) and transpose's R x C grid (rank = a + R b: a row is the R
 * ranks of one b, a column the C ranks of one a). */
typedef struct pgrid {
    int g4[4];
    int R, C;
} pgrid;

/* n as 4 factors as equal as the primes allow, largest first (1s pad). */
static void grid4_of(int n, int *g)
{
    int f[32], nf = 0, x = n;
    for (int p = 2; (long)p * p <= x && nf < 31; p++)
        while (x % p == 0 && nf < 31)
            f[nf++] = p, x /= p;
    if (x > 1)
        f[nf++] = x;
    for (int i = 0; i < 4; i++)
        g[i] = 1;
    for (int i = nf - 1; i >= 0; i--) { /* largest prime first, onto the smallest factor */
        int s = 0;
        for (int j = 1; j < 4; j++)
            s = g[j] < g[s] ? j : s;
        g[s] *= f[i];
    }
    for (int i = 0; i < 4; i++) /* largest first */
        for (int j = i + 1; j < 4; j++)
            if (g[j] > g[i]) {
                int t = g[i];
                g[i] = g[j], g[j] = t;
            }
}

/* Over MPI: the balanced grids of n.  Simulated: the torus itself, so
 * that grid neighbours are torus neighbours (halo4d: the shape's
 * dimensions, a fifth and later merged into the fourth, missing ones 1;
 * transpose: rows along dimension 0, columns the rest). */
static void pgrid_of(pgrid *pg, int n, const torus_shape *sim)
{
    if (sim) {
        for (int i = 0; i < 4; i++)
            pg->g4[i] = 1;
        for (int d = 0; d < sim->ndims; d++)
            pg->g4[d < 4 ? d : 3] *= sim->k[d];
        pg->R = sim->k[0];
    } else {
        grid4_of(n, pg->g4);
        torus_shape s2;
        pg->R = torus_shape_balanced(n, 2, &s2) ? n : s2.k[0];
    }
    pg->C = n / pg->R;
}

/* One exchange: a multisend spec with its MPI int copies. */
typedef struct pstep {
    int ndest, nsrc;
    int *dests, *srcs;
    size_t *sc, *sd, *rc, *rd;
    int *isc, *isd, *irc, *ird;
    size_t slen, rlen;
} pstep;

typedef struct pattern {
    int nsteps; /* transpose: rows, then columns */
    pstep st[2];
} pattern;

static void pattern_free(pattern *p)
{
    for (int i = 0; i < 2; i++) {
        free(p->st[i].dests), free(p->st[i].sc), free(p->st[i].isc);
        memset(&p->st[i], 0, sizeof p->st[i]);
    }
    p->nsteps = 0;
}

/* Room for nd blocks out and ns in. */
static int pstep_alloc(pstep *s, int nd, int ns)
{
    size_t t = (size_t)nd + (size_t)ns + 1;
    s->dests = malloc(t * sizeof *s->dests);
    s->sc = malloc(2 * t * sizeof *s->sc);
    s->isc = malloc(2 * t * sizeof *s->isc);
    if (!s->dests || !s->sc || !s->isc)
        return -1;
    s->srcs = s->dests + nd;
    s->sd = s->sc + nd;
    s->rc = s->sc + 2 * (size_t)nd;
    s->rd = s->rc + ns;
    s->isd = s->isc + nd;
    s->irc = s->isc + 2 * (size_t)nd;
    s->ird = s->irc + ns;
    s->ndest = nd;
    s->nsrc = ns;
    return 0;
}

/* Displacements: blocks in listing order, `gap` bytes between them (the
 * validation checks that gaps stay untouched); the int copies for MPI. */
static void pstep_layout(pstep *s, size_t gap)
{
    size_t o = 0;
    for (int i = 0; i < s->ndest; i++) {
        s->sd[i] = o;
        o += s->sc[i] + gap;
        s->isc[i] = (int)s->sc[i], s->isd[i] = (int)s->sd[i];
    }
    s->slen = o + 1;
    o = 0;
    for (int j = 0; j < s->nsrc; j++) {
        s->rd[j] = o;
        o += s->rc[j] + gap;
        s->irc[j] = (int)s->rc[j], s->ird[j] = (int)s->rd[j];
    }
    s->rlen = o + 1;
}

/* sparse: rank r's i-th destination and block size (irregular: 0..2K
 * blocks, a fifth of the ranks none, sizes 0..size). */
static int sparse_ndest(const opts *o, int r, int irregular)
{
    if (!irregular)
        return (int)o->k;
    uint64_t h = mix64(o->seed * 7919u + (uint64_t)r);
    return h % 5 == 0 ? 0 : (int)(h / 5 % (uint64_t)(2 * o->k + 1));
}

static int sparse_dest(const opts *o, int r, int i, int n)
{
    return (int)(mix64(o->seed * 0x100000001B3ULL + (uint64_t)r * 65537u + (uint64_t)i) % (uint64_t)n);
}

static size_t sparse_size(const opts *o, int r, int i, size_t size, int irregular)
{
    return irregular ? (size_t)(mix64(o->seed + (uint64_t)r * 31u + (uint64_t)i * 7u + 3) % (size + 1)) : size;
}

/* The pattern of op pi (0 halo4d, 1 transpose, 2 sparse) at rank me of
 * n, blocks of `size` bytes.  0 or -1 (out of memory). */
static int pattern_make(pattern *p, int pi, const opts *o, const pgrid *pg, int me, int n, size_t size,
                        int irregular, size_t gap)
{
    memset(p, 0, sizeof *p);
    if (pi == 0) {
        /* 8 neighbours, - and + along each grid dimension; a neighbour
         * may be me (size 1) or repeat (size 2): still 8 blocks */
        pstep *s = &p->st[0];
        p->nsteps = 1;
        if (pstep_alloc(s, 8, 8))
            return -1;
        int c[4], x = me;
        for (int d = 0; d < 4; d++)
            c[d] = x % pg->g4[d], x /= pg->g4[d];
        for (int d = 0, i = 0; d < 4; d++)
            for (int dir = -1; dir <= 1; dir += 2, i++) {
                int cc[4] = {c[0], c[1], c[2], c[3]};
                cc[d] = (cc[d] + dir + pg->g4[d]) % pg->g4[d];
                int r = cc[0] + pg->g4[0] * (cc[1] + pg->g4[1] * (cc[2] + pg->g4[2] * cc[3]));
                s->dests[i] = s->srcs[i] = r;
                s->sc[i] = s->rc[i] = size;
            }
    } else if (pi == 1) {
        /* alltoall in my row (R ranks), then in my column (C ranks), me included */
        int a = me % pg->R, b = me / pg->R;
        p->nsteps = 2;
        for (int step = 0; step < 2; step++) {
            pstep *s = &p->st[step];
            int m = step ? pg->C : pg->R;
            if (pstep_alloc(s, m, m))
                return -1;
            for (int i = 0; i < m; i++) {
                int r = step ? a + pg->R * i : i + pg->R * b;
                s->dests[i] = s->srcs[i] = r;
                s->sc[i] = s->rc[i] = size;
            }
        }
    } else {
        /* K random destinations per rank (repeats and self possible);
         * sources: every rank's list replayed, in rank order */
        pstep *s = &p->st[0];
        p->nsteps = 1;
        int nd = sparse_ndest(o, me, irregular), ns = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0, m = sparse_ndest(o, r, irregular); i < m; i++)
                ns += sparse_dest(o, r, i, n) == me;
        if (pstep_alloc(s, nd, ns))
            return -1;
        for (int i = 0; i < nd; i++) {
            s->dests[i] = sparse_dest(o, me, i, n);
            s->sc[i] = sparse_size(o, me, i, size, irregular);
        }
        int j = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0, m = sparse_ndest(o, r, irregular); i < m; i++)
                if (sparse_dest(o, r, i, n) == me) {
                    s->srcs[j] = r;
                    s->rc[j++] = sparse_size(o, r, i, size, irregular);
                }
    }
    for (int i = 0; i < p->nsteps; i++)
        pstep_layout(&p->st[i], gap);
    return 0;
}

/* What plans ran: "direct", or "direct+routed" when the steps differ. */
static void plans_ran(torus_multisend *const *plan, int nsteps, char *buf, size_t len)
{
    const char *a = torus_multisend_algorithm(plan[0]), *b = nsteps > 1 ? torus_multisend_algorithm(plan[1]) : a;
    if (strcmp(a, b))
        snprintf(buf, len, "%s+%s", a, b);
    else
        snprintf(buf, len, "%s", a);
}

static torus_multisend_spec spec_of(const pstep *s)
{
    torus_multisend_spec x = {s->ndest, s->dests, s->sc, s->sd, s->nsrc, s->srcs, s->rc, s->rd};
    return x;
}

/* Remote bytes a rank sends per call (MB/s), summed over steps. */
static double pattern_payload(const pattern *p, int me)
{
    double t = 0;
    for (int k = 0; k < p->nsteps; k++)
        for (int i = 0; i < p->st[k].ndest; i++)
            t += p->st[k].dests[i] != me ? (double)p->st[k].sc[i] : 0;
    return t;
}

static void pattern_desc(int pi, const opts *o, const pgrid *pg, char *buf, size_t len)
{
    if (pi == 0)
        snprintf(buf, len, "4-D nearest neighbour on a %dx%dx%dx%d grid: 8 blocks of size bytes per rank", pg->g4[0],
                 pg->g4[1], pg->g4[2], pg->g4[3]);
    else if (pi == 1)
        snprintf(buf, len, "3-D FFT transpose on a %d x %d grid: alltoall in the row (%d ranks), then in the column "
                           "(%d ranks), size bytes per pair",
                 pg->R, pg->C, pg->R, pg->C);
    else
        snprintf(buf, len, "%ld random destinations per rank (seed %llu, repeats and self possible), size bytes each",
                 o->k, (unsigned long long)o->seed);
}

static void print_pattern_header(int pi, const opts *o, const pgrid *pg, int sim)
{
    char d[256];
    pattern_desc(pi, o, pg, d, sizeof d);
    printf("# op: %s (%s)\n", pat_name[pi], d);
    if (sim)
        printf("#%9s  %-20s %10s %10s %10s %10s %10s %10s %12s\n", "size", "algorithm", "setup_us", "min_us", "avg_us",
               "max_us", "MB/s", "bound_us", "ratio_vs_bnd");
    else
        printf("#%9s  %-20s %10s %10s %10s %10s %10s %12s %10s\n", "size", "algorithm", "setup_us", "min_us", "avg_us",
               "max_us", "MB/s", "ratio_vs_mpi", "breakeven");
}

static void print_pattern_row(const row *r, int sim)
{
    char label[100], mbs[32], x[32], y[32];
    row_label(r, label, sizeof label);
    fmt_num(mbs, sizeof mbs, r->mbs, 2);
    fmt_num(x, sizeof x, sim ? r->bound_us : r->ratio, sim ? 2 : 3);
    fmt_num(y, sizeof y, sim ? r->ratio_bound : r->breakeven, sim ? 3 : 1);
    printf("%10zu  %-20s %10.2f %10.2f %10.2f %10.2f %10s %10s %12s\n", r->size, label, r->setup_us, r->min_us,
           r->avg_us, r->max_us, mbs, x, y);
}

/* ---- patterns over MPI -------------------------------------------------------- */

/* What a row of a pattern op runs: ours (algorithm for
 * torus_multisend_init), or the MPI library's MPI_Neighbor_alltoallv on
 * a distributed-graph communicator per step, plain or (MPI-4) persistent. */
enum { PE_OURS, PE_MPI, PE_MPI_INIT };
typedef struct pentry {
    const char *name;
    int how;
    const char *alg;
    torus_multisend *plan[2];
    MPI_Comm g[2];
    MPI_Request rq[2];
} pentry;

static void pentry_setup(bench *b, pentry *e, const pattern *p, size_t half)
{
    (void)half; /* the persistent form's buffers (MPI-4 only) */
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        if (e->how == PE_OURS) {
            torus_multisend_spec sp = spec_of(s);
            int rc = torus_multisend_init(b->c_auto, &sp, e->alg, &e->plan[k]);
            if (rc) {
                fprintf(stderr, "collbench: multisend_init '%s' failed on rank %d: %s\n", e->name, b->me,
                        torus_coll_error(b->c_auto));
                MPI_Abort(MPI_COMM_WORLD, rc == TORUS_COLL_ENOMEM ? TORUS_EXIT_RESOURCE : TORUS_EXIT_VERIFY);
            }
            continue;
        }
/* Open MPI's MPI_UNWEIGHTED is the address 2 cast to int *, which gcc 11+
 * takes for an array of size 0 passed where ints are read */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
        TORUS_MPI_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, s->nsrc, s->srcs, MPI_UNWEIGHTED, s->ndest, s->dests,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &e->g[k]));
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
#if MPI_VERSION >= 4
        if (e->how == PE_MPI_INIT)
            TORUS_MPI_CHECK(MPI_Neighbor_alltoallv_init(b->sbuf + (size_t)k * half, s->isc, s->isd, MPI_BYTE, b->rbuf + (size_t)k * half, s->irc, s->ird, MPI_BYTE,
                                               e->g[k], MPI_INFO_NULL, &e->rq[k]));
#endif
    }
}

/* One call: every step in turn (buffers: step k at sbuf/rbuf + k * half). */
static void pentry_call(bench *b, pentry *e, const pattern *p, size_t half)
{
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        unsigned char *sb = b->sbuf + (size_t)k * half, *rb = b->rbuf + (size_t)k * half;
        if (e->how == PE_OURS) {
            int rc = torus_multisend_start(e->plan[k], sb, rb);
            rc = rc ? rc : torus_multisend_wait(e->plan[k]);
            if (rc) {
                fprintf(stderr, "collbench: multisend '%s' failed on rank %d: %s\n", e->name, b->me,
                        torus_coll_error(b->c_auto));
                MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_VERIFY);
            }
        } else if (e->how == PE_MPI) {
            TORUS_MPI_CHECK(MPI_Neighbor_alltoallv(sb, s->isc, s->isd, MPI_BYTE, rb, s->irc, s->ird, MPI_BYTE, e->g[k]));
        } else {
            TORUS_MPI_CHECK(MPI_Start(&e->rq[k]));
            TORUS_MPI_CHECK(MPI_Wait(&e->rq[k], MPI_STATUS_IGNORE));
        }
    }
}

static void pentry_free(pentry *e, const pattern *p)
{
    for (int k = 0; k < p->nsteps; k++) {
        if (e->how == PE_OURS) {
            torus_multisend_free(&e->plan[k]);
            continue;
        }
        if (e->how == PE_MPI_INIT)
            TORUS_MPI_CHECK(MPI_Request_free(&e->rq[k]));
        TORUS_MPI_CHECK(MPI_Comm_free(&e->g[k]));
    }
}

/* Sender's byte i of its k-th listing in step `step`, replay `it`. */
static unsigned char pat_byte(int from, int step, int k, size_t i, int it)
{
    return (unsigned char)mix64(((uint64_t)from << 36) ^ ((uint64_t)step << 32) ^ ((uint64_t)k << 20) ^
                                ((uint64_t)it << 8) ^ mix64(i));
}

#define PAT_GAP 0x5A

/* The reference result of step k through MPI_Alltoallv: a pair's blocks
 * travel as one alltoallv block in the sender's listing order, and the
 * receiver cuts it in its own listing order of that sender (the k-th
 * block from s is the k-th listing of s).  ref: rlen bytes, gaps PAT_GAP. */
static void pattern_reference(bench *b, const pstep *s, const unsigned char *sb, unsigned char *ref)
{
    int n = b->n;
    int *ic = calloc(4 * (size_t)n, sizeof *ic);
    size_t stot = 0, rtot = 0;
    for (int i = 0; i < s->ndest; i++)
        stot += s->sc[i];
    for (int j = 0; j < s->nsrc; j++)
        rtot += s->rc[j];
    unsigned char *a = malloc(stot + 1), *r = malloc(rtot + 1);
    size_t *cur = calloc((size_t)n, sizeof *cur);
    need_memory(b, ic && a && r && cur, "alltoallv", stot + rtot);
    int *scnt = ic, *sdis = ic + n, *rcnt = ic + 2 * n, *rdis = ic + 3 * n;
    for (int i = 0; i < s->ndest; i++)
        scnt[s->dests[i]] += (int)s->sc[i];
    for (int j = 0; j < s->nsrc; j++)
        rcnt[s->srcs[j]] += (int)s->rc[j];
    for (int d = 0, so = 0, ro = 0; d < n; d++) {
        sdis[d] = so, rdis[d] = ro;
        so += scnt[d], ro += rcnt[d];
    }
    for (int i = 0; i < s->ndest; i++) {
        int d = s->dests[i];
        memcpy(a + sdis[d] + cur[d], sb + s->sd[i], s->sc[i]);
        cur[d] += s->sc[i];
    }
    TORUS_MPI_CHECK(MPI_Alltoallv(a, scnt, sdis, MPI_BYTE, r, rcnt, rdis, MPI_BYTE, MPI_COMM_WORLD));
    memset(cur, 0, (size_t)n * sizeof *cur);
    memset(ref, PAT_GAP, s->rlen);
    for (int j = 0; j < s->nsrc; j++) {
        int f = s->srcs[j];
        memcpy(ref + s->rd[j], r + rdis[f] + cur[f], s->rc[j]);
        cur[f] += s->rc[j];
    }
    free(ic), free(a), free(r), free(cur);
}

/* Fills the send buffers of every step for replay `it`. */
static void pattern_fill(bench *b, const pattern *p, size_t half, int it)
{
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        unsigned char *sb = b->sbuf + (size_t)k * half;
        memset(sb, 0xC3, s->slen);
        for (int i = 0; i < s->ndest; i++)
            for (size_t x = 0; x < s->sc[i]; x++)
                sb[s->sd[i] + x] = pat_byte(b->me, k, i, x, it);
        memset(b->rbuf + (size_t)k * half, PAT_GAP, s->rlen);
    }
}

/* The references of --validate's replays: MPI_Alltoallv's result of every
 * step for replays 0, 1, 2 (made once per pattern, compared with every
 * entry). */
enum { PAT_REPLAYS = 3 };
typedef struct patref {
    unsigned char *r[PAT_REPLAYS][2];
} patref;

static void patref_make(bench *b, patref *pr, const pattern *p, size_t half)
{
    memset(pr, 0, sizeof *pr);
    for (int it = 0; it < PAT_REPLAYS; it++) {
        pattern_fill(b, p, half, it);
        for (int st = 0; st < p->nsteps; st++) {
            pr->r[it][st] = malloc(p->st[st].rlen);
            need_memory(b, pr->r[it][st] != NULL, "multisend", p->st[st].rlen);
            pattern_reference(b, &p->st[st], b->sbuf + (size_t)st * half, pr->r[it][st]);
        }
    }
}

static void patref_free(patref *pr)
{
    for (int it = 0; it < PAT_REPLAYS; it++)
        free(pr->r[it][0]), free(pr->r[it][1]);
    memset(pr, 0, sizeof *pr);
}

/* --validate: three replays with changing data; every step's receive
 * buffer (gaps included) against the MPI_Alltoallv reference. */
static void pattern_validate(bench *b, checks *ck, pentry *e, const pattern *p, size_t half, const patref *pr,
                             const char *what)
{
    int k = check_add(ck, what);
    for (int it = 0; it < PAT_REPLAYS; it++) {
        pattern_fill(b, p, half, it);
        pentry_call(b, e, p, half);
        for (int st = 0; st < p->nsteps; st++) {
            const pstep *s = &p->st[st];
            const unsigned char *ref = pr->r[it][st];
            const unsigned char *got = b->rbuf + (size_t)st * half;
            for (size_t x = 0; x < s->rlen && !ck->why[k][0]; x++)
                if (got[x] != ref[x])
                    snprintf(ck->why[k], sizeof ck->why[k],
                             "rank %d, replay %d, step %d: byte %zu of the receive buffer is %u, MPI_Alltoallv gave %u",
                             b->me, it, st, x, got[x], ref[x]);
        }
    }
}

static void run_pattern_mpi(bench *b, int pi, const pgrid *pg)
{
    const opts *o = b->o;
    pentry e[6];
    int ne = 0;
    if (wanted(o, "mpi"))
        e[ne++] = (pentry){.name = "mpi", .how = PE_MPI};
#if MPI_VERSION >= 4
    if (wanted(o, "mpi_init"))
        e[ne++] = (pentry){.name = "mpi_init", .how = PE_MPI_INIT};
#endif
    static const char *const ours[] = {"auto", "direct", "routed"};
    for (int i = 0; i < 3; i++)
        if (wanted(o, ours[i]))
            e[ne++] = (pentry){.name = ours[i], .how = PE_OURS, .alg = ours[i]};
    if (!b->me)
        print_pattern_header(pi, o, pg, 0);
    if (!ne)
        return;
    checks *ck = o->validate ? calloc(1, sizeof *ck) : NULL;
    double *all = !b->me ? malloc(2 * (size_t)b->n * (size_t)ne * sizeof *all) : NULL;
    if (!torus_all_ok(MPI_COMM_WORLD, (ck || !o->validate) && (all || b->me))) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
    }
    /* validation adds an irregular sparse pattern (0..2K blocks, sizes 0..size) */
    int variants = o->validate && pi == 2 ? 2 : 1;
    for (int si = 0; si < o->nsizes; si++) {
        size_t bytes = o->sizes[si];
        for (int var = 0; var < variants; var++) {
            pattern p;
            int ok = !pattern_make(&p, pi, o, pg, b->me, b->n, bytes, var, o->validate ? 3 : 0);
            size_t half = ok ? (p.st[0].slen > p.st[0].rlen ? p.st[0].slen : p.st[0].rlen) : 0;
            if (ok && p.nsteps > 1) {
                size_t h2 = p.st[1].slen > p.st[1].rlen ? p.st[1].slen : p.st[1].rlen;
                half = h2 > half ? h2 : half;
            }
            half = (half + 63) / 64 * 64;
            b->sbuf = ok ? malloc((size_t)p.nsteps * half) : NULL;
            b->rbuf = ok ? malloc((size_t)p.nsteps * half) : NULL;
            int too_big = ok && (p.st[0].slen > INT_MAX || p.st[0].rlen > INT_MAX || half > INT_MAX);
            if (!torus_all_ok(MPI_COMM_WORLD, ok && b->sbuf && b->rbuf && !too_big)) {
                if (!b->me)
                    fprintf(stderr, "collbench: out of memory (or beyond MPI's int counts) for %s at %zu bytes\n",
                            pat_name[pi], bytes);
                MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
            }
            patref pr;
            memset(&pr, 0, sizeof pr);
            if (o->validate)
                patref_make(b, &pr, &p, half);
            pattern_fill(b, &p, half, 0);
            if (var == 1) {
                /* the irregular pattern is only validated */
                for (int i = 0; i < ne; i++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s (irregular) '%s' at %zu bytes", pat_name[pi], e[i].name, bytes);
                    pentry_setup(b, &e[i], &p, half);
                    pattern_validate(b, ck, &e[i], &p, half, &pr, what);
                    pentry_free(&e[i], &p);
                }
            } else {
                int it = iters_for(o, bytes), wu = warmup_for(o, bytes);
                int nr = (int)o->rounds < it ? (int)o->rounds : it, it_r = (it + nr - 1) / nr;
                static double rmean[8][MAX_ROUNDS], rsetup[8][MAX_ROUNDS];
                double mine[16];
                char chosen[8][64];
                for (int round = 0; round < nr; round++)
                    for (int i = 0; i < ne; i++) {
                        TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
                        double t0 = MPI_Wtime();
                        pentry_setup(b, &e[i], &p, half);
                        rsetup[i][round] = MPI_Wtime() - t0;
                        for (int w = 0; w < (round ? wu > 0 : wu); w++)
                            pentry_call(b, &e[i], &p, half);
                        double t = 0;
                        for (int c = 0; c < it_r; c++) {
                            TORUS_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
                            double t1 = MPI_Wtime();
                            pentry_call(b, &e[i], &p, half);
                            t += MPI_Wtime() - t1;
                        }
                        rmean[i][round] = t / it_r;
                        if (e[i].how == PE_OURS)
                            plans_ran(e[i].plan, p.nsteps, chosen[i], sizeof chosen[i]);
                        else
                            snprintf(chosen[i], sizeof chosen[i], "%s", e[i].name);
                        if (round == 0 && o->validate) {
                            char what[160];
                            snprintf(what, sizeof what, "%s '%s' at %zu bytes", pat_name[pi], e[i].name, bytes);
                            pattern_validate(b, ck, &e[i], &p, half, &pr, what);
                        }
                        pentry_free(&e[i], &p);
                    }
                for (int i = 0; i < ne; i++) {
                    mine[2 * i] = median(rmean[i], nr);
                    mine[2 * i + 1] = median(rsetup[i], nr);
                }
                TORUS_MPI_CHECK(MPI_Gather(mine, 2 * ne, MPI_DOUBLE, all, 2 * ne, MPI_DOUBLE, 0, MPI_COMM_WORLD));
                double pay = pattern_payload(&p, b->me), paysum = 0;
                TORUS_MPI_CHECK(MPI_Reduce(&pay, &paysum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
                if (!b->me) {
                    row rows[8];
                    double mpi_avg = -1, mpi_setup = 0;
                    for (int i = 0; i < ne; i++) {
                        row *r = &rows[i];
                        memset(r, 0, sizeof *r);
                        r->kind = NKINDS + pi;
                        r->size = bytes;
                        r->iters = it_r * nr;
                        r->warmup = wu;
                        snprintf(r->alg, sizeof r->alg, "%s", e[i].name);
                        snprintf(r->chosen, sizeof r->chosen, "%s", chosen[i]);
                        double mn = 1e300, mx = 0, sum = 0, ssum = 0;
                        for (int k = 0; k < b->n; k++) {
                            double v = all[(size_t)k * 2 * (size_t)ne + 2 * (size_t)i];
                            mn = v < mn ? v : mn, mx = v > mx ? v : mx, sum += v;
                            ssum += all[(size_t)k * 2 * (size_t)ne + 2 * (size_t)i + 1];
                        }
                        r->min_us = mn * 1e6, r->max_us = mx * 1e6, r->avg_us = sum / b->n * 1e6;
                        r->setup_us = ssum / b->n * 1e6;
                        r->mbs = paysum > 0 && r->avg_us > 0 ? paysum / b->n / r->avg_us : -1;
                        r->pred_us = -1, r->bound_us = -1, r->ratio_bound = -1, r->breakeven = -1;
                        if (e[i].how == PE_MPI)
                            mpi_avg = r->avg_us, mpi_setup = r->setup_us;
                    }
                    /* ours first, the library's last; breakeven: calls after
                     * which set-up plus calls cost less than the library's
                     * MPI_Neighbor_alltoallv with its own set-up */
                    for (int pass = 0; pass < 2; pass++)
                        for (int i = 0; i < ne; i++) {
                            if ((pass == 0) != (e[i].how == PE_OURS))
                                continue;
                            row *r = &rows[i];
                            r->ratio = e[i].how != PE_MPI ? ratio_of(r->avg_us, mpi_avg) : -1;
                            if (e[i].how != PE_MPI && mpi_avg > 0) {
                                double extra = r->setup_us - mpi_setup, gain = mpi_avg - r->avg_us;
                                r->breakeven = extra <= 0 && gain >= 0 ? 0 : gain > 0 ? ceil(extra / gain) : -1;
                            }
                            print_pattern_row(r, 0);
                            if (add_row(b->ri, r)) {
                                fprintf(stderr, "collbench: out of memory for the results\n");
                                MPI_Abort(MPI_COMM_WORLD, TORUS_EXIT_RESOURCE);
                            }
                        }
                    torus_stdout_flush();
                }
            }
            if (o->validate)
                decide(b, ck);
            patref_free(&pr);
            free(b->sbuf), free(b->rbuf);
            b->sbuf = b->rbuf = NULL;
            pattern_free(&p);
        }
    }
    free(ck);
    free(all);
}

/* ---- patterns on the timed simulator ------------------------------------------ */

/* The link-model bound of one call: each step takes at least
 *   max(busiest link, busiest CPU) + latency,
 * where the busiest link carries the wire bytes of every remote block
 * whose route (dimension by dimension, the shorter way round, half each
 * way at exactly half a ring: the model's own routes) crosses it, at
 * payload x (packet + header) / packet (no packetisation carries less),
 * over the link bandwidth; the busiest CPU writes the packets of all it
 * sends and reads the packets of all it receives, aggregated into as few
 * packets as the bytes allow, plus one message cost at each end when it
 * sends or receives anything; the latency is that of the longest route.
 * No algorithm can beat it under the model (an algorithm that forwards
 * blocks only adds link bytes and CPU); how close one comes is the
 * ratio time / bound. */
static double pattern_bound(const opts *o, int pi, const pgrid *pg, const torus_map *m, const torus_timed_params *prm,
                            size_t size)
{
    const torus_shape *sh = &m->shape;
    int n = sh->n, nd = sh->ndims;
    double *load = calloc((size_t)n * (size_t)nd * 2, sizeof *load);
    double *out = calloc(2 * (size_t)n, sizeof *out), *in = out ? out + n : NULL;
    if (!load || !out) {
        free(load), free(out);
        return -1;
    }
    double wire = (prm->packet_bytes + prm->header_bytes) / prm->packet_bytes, total = 0;
    int nsteps = pi == 1 ? 2 : 1;
    for (int step = 0; step < nsteps; step++) {
        memset(load, 0, (size_t)n * (size_t)nd * 2 * sizeof *load);
        memset(out, 0, 2 * (size_t)n * sizeof *out);
        int maxhops = 0;
        for (int r = 0; r < n; r++) {
            pattern p;
            if (pattern_make(&p, pi, o, pg, r, n, size, 0, 0)) {
                free(load), free(out);
                return -1;
            }
            const pstep *s = &p.st[step];
            for (int i = 0; i < s->ndest; i++) {
                int d = s->dests[i];
                if (d == r || !s->sc[i])
                    continue;
                double bytes = (double)s->sc[i];
                out[r] += bytes, in[d] += bytes;
                int c[TORUS_MAX_DIMS], hops = 0;
                memcpy(c, &m->coords[(size_t)r * (size_t)nd], (size_t)nd * sizeof *c);
                const int *t = &m->coords[(size_t)d * (size_t)nd];
                for (int dim = 0; dim < nd; dim++) {
                    int k = sh->k[dim], fw = (t[dim] - c[dim] + k) % k, bw = (c[dim] - t[dim] + k) % k;
                    if (sh->mesh[dim]) /* a line: the only way */
                        fw = t[dim] > c[dim] ? fw : 0, bw = t[dim] < c[dim] ? bw : 0;
                    /* the shares each way: the shorter, or half each at a tie */
                    double sf = fw && (!bw || fw < bw) ? 1 : fw && fw == bw ? 0.5 : 0, sb = fw || bw ? 1 - sf : 0;
                    for (int dir = 0; dir < 2; dir++) {
                        double share = dir ? sb : sf;
                        int steps = dir ? bw : fw, x = c[dim];
                        for (int h = 0; share > 0 && h < steps; h++) {
                            c[dim] = x;
                            int lin = torus_map_linear(sh, c);
                            load[((size_t)lin * (size_t)nd + (size_t)dim) * 2 + (size_t)dir] += share * bytes * wire;
                            x = dir ? (x - 1 + k) % k : (x + 1) % k;
                        }
                    }
                    hops += fw && (!bw || fw <= bw) ? fw : bw;
                    c[dim] = t[dim];
                }
                maxhops = hops > maxhops ? hops : maxhops;
            }
            pattern_free(&p);
        }
        double link = 0, cpu = 0;
        for (size_t i = 0; i < (size_t)n * (size_t)nd * 2; i++)
            link = load[i] > link ? load[i] : link;
        for (int r = 0; r < n; r++) {
            double t = ceil(out[r] / prm->packet_bytes) * prm->cpu_send_pkt_s +
                       ceil(in[r] / prm->packet_bytes) * prm->cpu_recv_pkt_s + (out[r] > 0) * prm->cpu_msg_s +
                       (in[r] > 0) * prm->cpu_msg_s;
            cpu = t > cpu ? t : cpu;
        }
        link /= prm->link_bw;
        total += (link > cpu ? link : cpu) + maxhops * prm->latency_s;
    }
    free(load), free(out);
    return total;
}

typedef struct patsim {
    const opts *o;
    int pi;
    const pgrid *pg;
    size_t bytes;
    const char *alg;
    int n, iters, warmup;
    double *mean, *setup;
    char ran[64];
    int oom;
} patsim;

static int patsim_body(torus_coll *c, int r, void *arg)
{
    patsim *s = arg;
    pattern p;
    if (pattern_make(&p, s->pi, s->o, s->pg, r, s->n, s->bytes, 0, 0)) {
        s->oom = 1;
        return TORUS_COLL_ENOMEM;
    }
    size_t half = 1;
    for (int k = 0; k < p.nsteps; k++) {
        half = p.st[k].slen > half ? p.st[k].slen : half;
        half = p.st[k].rlen > half ? p.st[k].rlen : half;
    }
    unsigned char *sb = calloc((size_t)p.nsteps, half), *rb = calloc((size_t)p.nsteps, half);
    torus_multisend *plan[2] = {NULL, NULL};
    int rc = sb && rb ? torus_coll_barrier(c) : TORUS_COLL_ENOMEM;
    s->oom |= rc == TORUS_COLL_ENOMEM;
    double t0 = torus_coll_vtime(c);
    for (int k = 0; k < p.nsteps && !rc; k++) {
        torus_multisend_spec sp = spec_of(&p.st[k]);
        rc = torus_multisend_init(c, &sp, s->alg, &plan[k]);
    }
    s->setup[r] = torus_coll_vtime(c) - t0;
    for (int i = -s->warmup; i < s->iters && !rc; i++) {
        rc = torus_coll_barrier(c);
        double t1 = torus_coll_vtime(c);
        for (int k = 0; k < p.nsteps && !rc; k++) {
            rc = torus_multisend_start(plan[k], sb + (size_t)k * half, rb + (size_t)k * half);
            rc = rc ? rc : torus_multisend_wait(plan[k]);
        }
        if (i == 0)
            s->mean[r] = 0;
        if (i >= 0)
            s->mean[r] += (torus_coll_vtime(c) - t1) / s->iters;
    }
    if (r == 0)
        plans_ran(plan, p.nsteps, s->ran, sizeof s->ran);
    torus_multisend_free(&plan[0]);
    torus_multisend_free(&plan[1]);
    free(sb), free(rb);
    pattern_free(&p);
    return rc;
}

/* --simulate for the pattern ops: auto, direct and routed on the timed
 * simulator, each row with the link-model bound and the ratio to it. */
static int simulate_patterns(const opts *o, run_info *ri, const torus_map *map, const torus_timed_params *prm,
                             char *err, size_t errlen)
{
    int n = map->shape.n;
    pgrid pg;
    pgrid_of(&pg, n, &map->shape);
    double *mean = malloc(2 * (size_t)n * sizeof *mean);
    if (!mean) {
        snprintf(err, errlen, "out of memory for %d simulated ranks", n);
        return TORUS_EXIT_RESOURCE;
    }
    static const char *const names[] = {"auto", "direct", "routed"};
    int rc = 0;
    for (int pi = 0; pi < 3 && !rc; pi++) {
        if (!o->pats[pi])
            continue;
        print_pattern_header(pi, o, &pg, 1);
        for (int si = 0; si < o->nsizes && !rc; si++) {
            size_t bytes = o->sizes[si];
            double bound = pattern_bound(o, pi, &pg, map, prm, bytes);
            for (int a = 0; a < 3 && !rc; a++) {
                if (!wanted(o, names[a]))
                    continue;
                patsim s = {.o = o, .pi = pi, .pg = &pg, .bytes = bytes, .alg = names[a], .n = n,
                            .iters = iters_for(o, bytes), .warmup = warmup_for(o, bytes), .mean = mean,
                            .setup = mean + n};
                torus_coll_vrun_result res;
                if (torus_coll_vrun_timed(map, prm, NULL, patsim_body, &s, &res) || s.oom || bound < 0) {
                    snprintf(err, errlen, "out of memory simulating %s '%s' at %zu bytes on %d ranks", pat_name[pi],
                             names[a], bytes, n);
                    rc = TORUS_EXIT_RESOURCE;
                    break;
                }
                if (res.deadlock || res.failed_rank >= 0) {
                    fprintf(stderr, "collbench: FAILED simulated %s '%s' at %zu bytes: %s\n", pat_name[pi], names[a],
                            bytes, res.failed_rank >= 0 ? res.err : "deadlock: ranks left waiting that nothing could wake");
                    ri->failures++;
                    continue;
                }
                row r;
                memset(&r, 0, sizeof r);
                r.kind = NKINDS + pi;
                r.size = bytes;
                r.iters = s.iters;
                r.warmup = s.warmup;
                snprintf(r.alg, sizeof r.alg, "%s", names[a]);
                snprintf(r.chosen, sizeof r.chosen, "%s", s.ran);
                double mn = mean[0], mx = mean[0], sum = 0, ssum = 0;
                for (int j = 0; j < n; j++) {
                    mn = mean[j] < mn ? mean[j] : mn, mx = mean[j] > mx ? mean[j] : mx, sum += mean[j];
                    ssum += mean[n + j];
                }
                r.min_us = mn * 1e6, r.max_us = mx * 1e6, r.avg_us = sum / n * 1e6;
                r.setup_us = ssum / n * 1e6;
                pattern p;
                double pay = 0;
                if (!pattern_make(&p, pi, o, &pg, 0, n, bytes, 0, 0)) {
                    pay = pattern_payload(&p, 0);
                    pattern_free(&p);
                }
                r.mbs = pay > 0 && r.avg_us > 0 ? pay / r.avg_us : -1;
                r.pred_us = -1, r.ratio = -1, r.breakeven = -1;
                r.bound_us = bound * 1e6;
                r.ratio_bound = bound > 0 ? r.max_us / r.bound_us : -1;
                print_pattern_row(&r, 1);
                torus_stdout_flush();
                if (add_row(ri, &r)) {
                    snprintf(err, errlen, "out of memory for the results");
                    rc = TORUS_EXIT_RESOURCE;
                }
            }
        }
    }
    free(mean);
    return rc;
}

/* ---- --simulate -------------------------------------------------------------- */

/* Ping-pong between virtual ranks 0 and 1 straight on the timed
 * transport's message interface: the simulated counterpart of the MPI
 * calibration. */
typedef struct pingpong_sim {
    torus_timed *tt;
    torus_transport tp[2];
    size_t bytes;
    int reps, state[2], done[2], failed;
    torus_req rq[2][2];
    unsigned char *buf[3]; /* rank 0 sends from 0 and receives into 2; rank 1 uses 1 */
} pingpong_sim;

/* 1 when request r has completed (or was none), 0 while pending. */
static int req_done(pingpong_sim *p, torus_transport *t, torus_req *r)
{
    if (r->id < 0)
        return 1;
    int rc = t->test(t->impl, r);
    if (rc < 0)
        p->failed = 1;
    if (rc != 0)
        r->id = -1;
    return rc != 0;
}

static int pp_step(void *ctx, int r, double now, double *cpu_s)
{
    pingpong_sim *p = ctx;
    (void)now;
    *cpu_s = 0;
    if (r > 1)
        return TORUS_TIMED_DONE;
    torus_transport *t = &p->tp[r];
    int peer = 1 - r, moved = 0, *st = &p->state[r];
    if (r == 0) {
        /* 0: start a round (receive posted first), 1: wait for both */
        if (*st == 0) {
            p->failed |= t->irecv(t->impl, peer, p->buf[2], p->bytes, 0, &p->rq[0][0]) != 0;
            p->failed |= t->isend(t->impl, peer, p->buf[0], p->bytes, 0, &p->rq[0][1]) != 0;
            *st = 1, moved = 1;
        } else if (*st == 1 && (req_done(p, t, &p->rq[0][0]) & req_done(p, t, &p->rq[0][1]))) {
            /* '&', not '&&': both requests are tested (and freed) every step */
            *st = ++p->done[0] == p->reps ? 2 : 0, moved = 1;
        }
    } else {
        /* 0: post the receive, 1: wait for it and answer, 2: wait for the answer to leave */
        if (*st == 0) {
            p->failed |= t->irecv(t->impl, peer, p->buf[1], p->bytes, 0, &p->rq[1][0]) != 0;
            *st = 1, moved = 1;
        } else if (*st == 1 && req_done(p, t, &p->rq[1][0])) {
            p->failed |= t->isend(t->impl, peer, p->buf[1], p->bytes, 0, &p->rq[1][1]) != 0;
            *st = 2, moved = 1;
        } else if (*st == 2 && req_done(p, t, &p->rq[1][1])) {
            *st = ++p->done[1] == p->reps ? 3 : 0, moved = 1;
        }
    }
    *cpu_s = torus_timed_take_cpu(p->tt, r);
    if ((r == 0 && *st == 2) || (r == 1 && *st == 3))
        return TORUS_TIMED_DONE;
    return moved ? TORUS_TIMED_MOVED : TORUS_TIMED_IDLE;
}

/* Half a round trip of `bytes` between virtual ranks 0 and 1; -1 on error. */
static double sim_pingpong(const torus_map *m, const torus_timed_params *prm, size_t bytes)
{
    enum { REPS = 4 };
    pingpong_sim p;
    memset(&p, 0, sizeof p);
    p.bytes = bytes;
    p.reps = REPS;
    for (int i = 0; i < 3; i++)
        p.buf[i] = calloc(bytes, 1);
    p.tt = torus_timed_create(m, prm);
    double res = -1;
    if (p.tt && p.buf[0] && p.buf[1] && p.buf[2]) {
        torus_timed_bind(p.tt, 0, &p.tp[0]);
        torus_timed_bind(p.tt, 1, &p.tp[1]);
        torus_timed_stats st;
        if (torus_timed_run(p.tt, pp_step, &p, &st) == 0 && !p.failed)
            res = st.makespan / (2.0 * REPS);
    }
    torus_timed_destroy(p.tt);
    free(p.buf[0]), free(p.buf[1]), free(p.buf[2]);
    return res;
}

/* One (op, algorithm, size) on every virtual rank. */
typedef struct simcase {
    int kind;
    const char *alg; /* NULL: auto */
    size_t bytes;
    int n, iters, warmup;
    const size_t *cnt, *dis; /* uniform counts, shared read-only by all ranks */
    double *mean;            /* per rank: simulated seconds per call */
    char ran[64];            /* what rank 0 ran */
    int oom;
} simcase;

static int sim_call(torus_coll *c, const simcase *s, unsigned char *sb, unsigned char *rb)
{
    switch (s->kind) {
    case K_BARRIER:
        return torus_coll_barrier(c);
    case K_BCAST:
        return torus_coll_bcast(c, sb, s->bytes, 0);
    case K_ALLREDUCE:
        return torus_coll_allreduce(c, sb, rb, s->bytes / 8, TORUS_DOUBLE, TORUS_OP_SUM);
    case K_ALLTOALL:
        return torus_coll_alltoall(c, sb, rb, s->bytes);
    default:
        return torus_coll_alltoallv(c, sb, s->cnt, s->dis, rb, s->cnt, s->dis);
    }
}

/* The OSU loop on the simulated clock: a (not timed) barrier before each
 * timed call, as over MPI. */
static int sim_body(torus_coll *c, int r, void *arg)
{
    simcase *s = arg;
    int rc = s->alg ? torus_coll_force(c, kind_op[s->kind], s->alg) : 0;
    if (rc)
        return rc;
    size_t nb = is_a2a(s->kind) ? s->bytes * (size_t)s->n : s->bytes;
    unsigned char *sb = calloc(nb ? nb : 1, 1);
    unsigned char *rb = s->kind == K_BCAST || s->kind == K_BARRIER ? NULL : calloc(nb ? nb : 1, 1);
    if (!sb || (!rb && s->kind != K_BCAST && s->kind != K_BARRIER)) {
        free(sb), free(rb);
        s->oom = 1;
        return TORUS_COLL_ENOMEM;
    }
    for (int i = 0; i < s->warmup && !rc; i++)
        rc = sim_call(c, s, sb, rb);
    double t = 0;
    for (int i = 0; i < s->iters && !rc; i++) {
        rc = torus_coll_barrier(c);
        double t0 = torus_coll_vtime(c);
        rc = rc ? rc : sim_call(c, s, sb, rb);
        t += torus_coll_vtime(c) - t0;
    }
    s->mean[r] = t / s->iters;
    if (r == 0)
        snprintf(s->ran, sizeof s->ran, "%s", torus_coll_last(c, kind_op[s->kind]));
    free(sb), free(rb);
    return rc;
}

/* Bytes the simulation of one call holds, all ranks together: buffers,
 * the algorithm's scratch and the transport's copies of messages in
 * flight (about as much again), a coroutine stack's touched pages each. */
static double sim_need(int kind, size_t bytes, int n)
{
    double per;
    switch (kind) {
    case K_BARRIER:
        per = 0;
        break;
    case K_BCAST:
        per = 3.0 * (double)bytes;
        break;
    case K_ALLREDUCE:
        per = 4.0 * (double)bytes;
        break;
    default:
        per = 4.0 * (double)bytes * n + 32.0 * n; /* + the counts torus_coll_alltoall makes */
        break;
    }
    return (double)n * (per + 64 * 1024);
}

static double free_memory(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    return pages > 0 && psize > 0 ? (double)pages * (double)psize : 1e9;
}

static int simulate_main(const opts *o, run_info *ri, char *err, size_t errlen)
{
    torus_shape s;
    char e2[300];
    if (torus_shape_parse(o->simulate, 0, &s, e2, sizeof e2)) {
        snprintf(err, errlen, "--simulate: %s", e2);
        return TORUS_EXIT_USAGE;
    }
    if (s.n > 64 * 32 * 32) {
        snprintf(err, errlen, "--simulate: shape '%s' has %d positions: allowed at most 65536 (64x32x32)",
                 o->simulate, s.n);
        return TORUS_EXIT_USAGE;
    }
    torus_map map;
    if (torus_map_xyzt(&map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d simulated ranks", s.n);
        return TORUS_EXIT_RESOURCE;
    }
    int n = s.n;
    ri->ranks = n;
    ri->nodes = n;
    ri->per_node = 1;
    ri->mode = "simulate:bgl";
    ri->rounds = 1;
    torus_shape_format(&s, ri->shape, sizeof ri->shape);
    snprintf(ri->shape_src, sizeof ri->shape_src, "--simulate");
    torus_timed_params prm = {.cap = 1, .outstanding = 1, .link_bw = o->link_bw, .latency_s = o->latency,
                              .header_bytes = BGL_HEADER_BYTES, .packet_bytes = BGL_PACKET_BYTES,
                              .cpu_msg_s = BGL_MSG_CYCLES / BGL_HZ, .cpu_send_pkt_s = BGL_SEND_PKT_CYCLES / BGL_HZ,
                              .cpu_recv_pkt_s = BGL_RECV_PKT_CYCLES / BGL_HZ,
                              .cpu_reduce_byte_s = BGL_GAMMA_CYCLES / BGL_HZ};
    /* calibration: the same ping-pong as over MPI, on the simulated links */
    enum { BIG = 1 << 20 };
    if (n > 1) {
        double t8 = sim_pingpong(&map, &prm, 8), tb = sim_pingpong(&map, &prm, BIG);
        if (t8 < 0 || tb < 0) {
            torus_map_free(&map);
            snprintf(err, errlen, "the simulated ping-pong failed (out of memory?)");
            return TORUS_EXIT_RESOURCE;
        }
        ri->alpha = t8;
        ri->beta = tb > t8 ? (tb - t8) / (BIG - 8) : 0;
        snprintf(ri->calib, sizeof ri->calib,
                 "simulated ping-pong between virtual ranks 0 and 1 (8 bytes, 1 MiB); gamma: the model's %g cycle "
                 "per byte at %g MHz; link %.4g bytes/s, %.3g s per link",
                 BGL_GAMMA_CYCLES, BGL_HZ / 1e6, o->link_bw, o->latency);
    } else {
        snprintf(ri->calib, sizeof ri->calib, "one simulated rank: no messages, alpha and beta 0");
    }
    ri->gamma = prm.cpu_reduce_byte_s;
    print_preamble(o, ri, "the timed simulator's clock (torus_coll_vtime), barrier between calls");

    /* a context on the map for choices and predictions (never sends) */
    torus_timed *probe_tt = torus_timed_create(&map, &prm);
    torus_transport probe_tp;
    torus_coll *probe = NULL;
    if (probe_tt) {
        torus_timed_bind(probe_tt, 0, &probe_tp);
        torus_coll_config cfg = {.map = &map, .me = 0, .tp = &probe_tp};
        if (torus_coll_create(&probe, &cfg, e2, sizeof e2)) {
            torus_timed_destroy(probe_tt);
            torus_map_free(&map);
            snprintf(err, errlen, "%s", e2);
            return TORUS_EXIT_USAGE;
        }
    }
    double *mean = malloc((size_t)n * sizeof *mean);
    size_t *cnt = malloc(2 * (size_t)n * sizeof *cnt);
    if (!probe || !mean || !cnt) {
        torus_coll_destroy(probe);
        torus_timed_destroy(probe_tt);
        free(mean), free(cnt);
        torus_map_free(&map);
        snprintf(err, errlen, "out of memory for %d simulated ranks", n);
        return TORUS_EXIT_RESOURCE;
    }

    /* sizes cut to what fits: one notice line for the whole run */
    double budget = free_memory() / 2;
    char cut[1024] = "";
    size_t co = 0;
    size_t maxsize[NKINDS];
    for (int k = 0; k < NKINDS; k++) {
        maxsize[k] = 0;
        if (!o->kinds[k] || k == K_BARRIER)
            continue;
        for (int i = 0; i < o->nsizes; i++)
            if (sim_need(k, o->sizes[i], n) <= budget)
                maxsize[k] = o->sizes[i];
        if (maxsize[k] == o->sizes[o->nsizes - 1] || co >= sizeof cut)
            continue;
        if (maxsize[k])
            co += (size_t)snprintf(cut + co, sizeof cut - co, "%s %s up to %zu bytes", co ? "," : "", kind_name[k],
                                   maxsize[k]);
        else
            co += (size_t)snprintf(cut + co, sizeof cut - co, "%s %s none", co ? "," : "", kind_name[k]);
    }
    if (cut[0])
        fprintf(stderr, "collbench: notice: sizes cut to fit %d simulated ranks in %.1f GiB (half the free memory):%s\n",
                n, budget / (1 << 30), cut);

    int rc = 0;
    for (int kind = 0; kind < NKINDS && !rc; kind++) {
        if (!o->kinds[kind])
            continue;
        torus_coll_op op = kind_op[kind];
        const char *const *algs = torus_coll_algorithms(op);
        int nalg = 0;
        while (algs[nalg])
            nalg++;
        print_header(kind);
        if (!nalg) {
            printf("# (no %s algorithm registered yet)\n", torus_coll_op_name(op));
            continue;
        }
        size_t sizes1[1] = {0};
        const size_t *sizes = kind == K_BARRIER ? sizes1 : o->sizes;
        int nsizes = kind == K_BARRIER ? 1 : o->nsizes;
        skips *sk = calloc(1, sizeof *sk);
        if (!sk) {
            snprintf(err, errlen, "out of memory");
            rc = TORUS_EXIT_RESOURCE;
            break;
        }
        size_t prev_bytes = (size_t)-1;
        for (int si = 0; si < nsizes && !rc; si++) {
            size_t bytes = sizes[si];
            if (kind != K_BARRIER && bytes > maxsize[kind])
                break;
            if (kind == K_ALLREDUCE)
                bytes = bytes < 8 ? 8 : bytes / 8 * 8;
            if (bytes == prev_bytes)
                continue;
            prev_bytes = bytes;
            for (int j = 0; j < n; j++)
                cnt[j] = bytes, cnt[n + j] = (size_t)j * bytes;
            for (int a = -1; a < nalg && a < MAX_ALGS && !rc; a++) {
                const char *name = a < 0 ? "auto" : algs[a];
                if (!wanted(o, name) || (a >= 0 && sk->fell_back[a]))
                    continue;
                if (a >= 0 && torus_coll_predict(probe, op, name, bytes, 1, 1, 1) < 0) {
                    skip_cannot(sk, a, bytes);
                    continue;
                }
                simcase sc = {.kind = kind, .alg = a < 0 ? NULL : name, .bytes = bytes, .n = n,
                              .iters = iters_for(o, bytes), .warmup = warmup_for(o, bytes), .cnt = cnt,
                              .dis = cnt + n, .mean = mean};
                torus_coll_vrun_result res;
                if (torus_coll_vrun_timed(&map, &prm, NULL, sim_body, &sc, &res) || sc.oom) {
                    snprintf(err, errlen, "out of memory simulating %s '%s' at %zu bytes on %d ranks",
                             kind_name[kind], name, bytes, n);
                    rc = TORUS_EXIT_RESOURCE;
                    break;
                }
                if (res.deadlock || res.failed_rank >= 0) {
                    fprintf(stderr, "collbench: FAILED simulated %s '%s' at %zu bytes: %s\n", kind_name[kind], name,
                            bytes,
                            res.failed_rank >= 0 ? res.err : "deadlock: ranks left waiting that nothing could wake");
                    ri->failures++;
                    continue;
                }
                if (a >= 0 && sc.ran[0] && strcmp(sc.ran, name)) {
                    skip_fell_back(sk, a, 1, kind, name, sc.ran, bytes);
                    continue;
                }
                row r;
                memset(&r, 0, sizeof r);
                r.kind = kind;
                r.size = bytes;
                r.iters = sc.iters;
                r.warmup = sc.warmup;
                snprintf(r.alg, sizeof r.alg, "%s", name);
                snprintf(r.chosen, sizeof r.chosen, "%s", sc.ran[0] ? sc.ran : torus_coll_choice(probe, op, bytes));
                double mn = mean[0], mx = mean[0], sum = 0;
                for (int j = 0; j < n; j++) {
                    mn = mean[j] < mn ? mean[j] : mn;
                    mx = mean[j] > mx ? mean[j] : mx;
                    sum += mean[j];
                }
                r.min_us = mn * 1e6;
                r.max_us = mx * 1e6;
                r.avg_us = sum / n * 1e6;
                double pay = payload(kind, bytes, n);
                r.mbs = pay > 0 && r.avg_us > 0 ? pay / r.avg_us : -1;
                double pr = torus_coll_predict(probe, op, r.chosen, bytes, ri->alpha, ri->beta, ri->gamma);
                r.pred_us = pr >= 0 ? pr * 1e6 : -1;
                r.ratio = -1; /* no MPI library in the simulator */
                print_row(&r);
                torus_stdout_flush();
                if (add_row(ri, &r)) {
                    snprintf(err, errlen, "out of memory for the results");
                    rc = TORUS_EXIT_RESOURCE;
                }
            }
        }
        print_skips(kind, algs, nalg, sk);
        free(sk);
    }
    if (!rc)
        rc = simulate_patterns(o, ri, &map, &prm, err, errlen);
    torus_coll_destroy(probe);
    torus_timed_destroy(probe_tt);
    free(mean), free(cnt);
    torus_map_free(&map);
    return rc;
}

/* ---- main ------------------------------------------------------------------ */

/* Ends the run the same way on every rank: rank 0 prints err (if any). */
/* --choose: the table's pick for every op and size on a shape, from the
 * facts all ranks share (rank count, shape, ranks per node, size); the
 * alltoall rows are for uniform blocks (a v call with uneven counts never
 * takes the uniform-only rows). */
static int choose_main(const opts *o, char *err, size_t errlen)
{
    torus_shape s;
    char e2[300];
    if (torus_shape_parse(o->choose, 0, &s, e2, sizeof e2)) {
        snprintf(err, errlen, "--choose: %s", e2);
        return TORUS_EXIT_USAGE;
    }
    if (o->per_node > s.n || s.n % o->per_node) {
        snprintf(err, errlen, "bad value '%ld' for --per-node: allowed a divisor of the shape's %d ranks", o->per_node,
                 s.n);
        return TORUS_EXIT_USAGE;
    }
    torus_map map;
    if (torus_map_xyzt(&map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d ranks", s.n);
        return TORUS_EXIT_RESOURCE;
    }
    int *node_of = malloc((size_t)s.n * sizeof *node_of);
    torus_timed_params prm = {.cap = 1, .outstanding = 1, .link_bw = BGL_LINK_BW};
    torus_timed *tt = node_of ? torus_timed_create(&map, &prm) : NULL;
    /* two views of the same shape: over MPI (no deposit bit) and on the
     * timed simulator (line_send: the deposit bit) */
    torus_coll *c = NULL, *cd = NULL;
    torus_transport tp, tpd;
    int rc = 0;
    if (!tt) {
        snprintf(err, errlen, "out of memory for %d ranks", s.n);
        rc = TORUS_EXIT_RESOURCE;
    } else {
        for (int r = 0; r < s.n; r++)
            node_of[r] = r / (int)o->per_node;
        torus_timed_bind(tt, 0, &tpd);
        tp = tpd;
        tp.line_send = NULL;
        torus_coll_config cfg = {.map = &map, .me = 0, .tp = &tp, .node_of = o->per_node > 1 ? node_of : NULL};
        torus_coll_config cfgd = cfg;
        cfgd.tp = &tpd;
        if (torus_coll_create(&c, &cfg, e2, sizeof e2) || torus_coll_create(&cd, &cfgd, e2, sizeof e2)) {
            snprintf(err, errlen, "%s", e2);
            rc = TORUS_EXIT_USAGE;
        }
    }
    if (!rc) {
        char shape[128];
        torus_shape_format(&s, shape, sizeof shape);
        printf("# collbench --choose %s: %d ranks, %ld per node; what torus/coll/select.c picks (first row that "
               "fits and whose algorithm can run; TORUS_COLL_<OP> applied); alltoall(v): uniform blocks of size "
               "bytes; mpi: over MPI (no deposit bit), deposit: on a transport with line_send (the timed "
               "simulator's BlueGene/L deposit bit)\n",
               shape, s.n, o->per_node);
        printf("# %-9s %10s  %-20s %s\n", "op", "size", "mpi", "deposit");
        for (int kind = 0; kind < NKINDS; kind++) {
            if (!o->kinds[kind] || kind == K_ALLTOALLV)
                continue;
            int nsz = kind == K_BARRIER ? 1 : o->nsizes;
            for (int i = 0; i < nsz; i++) {
                size_t bytes = kind == K_BARRIER ? 0 : o->sizes[i];
                if (kind == K_ALLREDUCE)
                    bytes = bytes < 8 ? 8 : bytes / 8 * 8;
                printf("  %-9s %10zu  %-20s %s\n", kind == K_ALLTOALL ? "alltoallv" : kind_name[kind], bytes,
                       torus_coll_choice(c, kind_op[kind], bytes), torus_coll_choice(cd, kind_op[kind], bytes));
            }
        }
        if (o->kinds[K_ALLTOALLV] && !o->kinds[K_ALLTOALL])
            for (int i = 0; i < o->nsizes; i++)
                printf("  %-9s %10zu  %-20s %s\n", "alltoallv", o->sizes[i],
                       torus_coll_choice(c, TORUS_COLL_ALLTOALLV, o->sizes[i]),
                       torus_coll_choice(cd, TORUS_COLL_ALLTOALLV, o->sizes[i]));
    }
    torus_coll_destroy(c);
    torus_coll_destroy(cd);
    torus_timed_destroy(tt);
    free(node_of);
    torus_map_free(&map);
    return rc;
}

static int finish(int me, int code, const char *err)
{
    if (!me && err && err[0])
        fprintf(stderr, "collbench: %s\n", err);
    if (!me)
        code = torus_stdout_end(code);
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    torus_stdout_begin(argv[0]);
    static opts o;
    char err[2600] = "";
    /* the options before MPI starts: a typo costs no start-up, and every
     * process agrees without communicating; the first of the launch
     * prints */
    int first = torus_launch_first();
    int prc = parse_options(argc, argv, &o, err, sizeof err);
    if (prc == -2 || prc == -3) {
        if (!first)
            return 0;
        if (prc == -2)
            usage();
        else
            printf("collbench (hpcc-ra) %s\n", HPCC_RA_VERSION);
        return torus_stdout_end(0);
    }
    if (prc >= 0) {
        if (first)
            fprintf(stderr, "collbench: %s\n", err);
        return prc;
    }
    if (o.dry_run) {
        if (first && ((o.csv && probe_file("csv", o.csv, err, sizeof err)) ||
                      (o.json && probe_file("json", o.json, err, sizeof err)))) {
            fprintf(stderr, "collbench: %s\n", err);
            return TORUS_EXIT_RESOURCE;
        }
        return first ? torus_stdout_end(0) : 0;
    }
    MPI_Init(&argc, &argv);
    TORUS_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int me, n;
    TORUS_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    TORUS_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));

    static run_info ri;
    ri.ranks = n;
    ri.mode = "mpi";
    ri.rounds = (int)o.rounds;
    mpi_library(ri.mpi);
    now_string(ri.date, sizeof ri.date);
    if (gethostname(ri.host, sizeof ri.host - 1))
        snprintf(ri.host, sizeof ri.host, "unknown");
    for (char *c = ri.host; *c; c++)
        if (*c == ',' || *c == '"' || (unsigned char)*c < 0x20)
            *c = '_';

    /* result files must be writable before a long run starts */
    int probe_rc = 0;
    if (!me && ((o.csv && probe_file("csv", o.csv, err, sizeof err)) ||
                (o.json && probe_file("json", o.json, err, sizeof err))))
        probe_rc = TORUS_EXIT_RESOURCE;
    TORUS_MPI_CHECK(MPI_Bcast(&probe_rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (probe_rc)
        return finish(me, probe_rc, err);

    int code = 0;
    if (o.choose) {
        if (n > 1) {
            snprintf(err, sizeof err, "--choose runs nothing: start it without mpirun or with -n 1 (got %d processes)",
                     n);
            return finish(me, TORUS_EXIT_USAGE, err);
        }
        return finish(me, choose_main(&o, err, sizeof err), err);
    }
    if (o.simulate) {
        if (n > 1) {
            snprintf(err, sizeof err, "--simulate runs every simulated rank in one process: start it without mpirun "
                                      "or with -n 1 (got %d processes)", n);
            return finish(me, TORUS_EXIT_USAGE, err);
        }
        code = simulate_main(&o, &ri, err, sizeof err);
        if (code)
            return finish(me, code, err);
    } else {
        static bench b;
        b.o = &o;
        b.me = me;
        b.n = n;
        b.ri = &ri;
        /* MPI counts are ints: an alltoall rank's P blocks must fit in one */
        size_t maxs = o.sizes[o.nsizes - 1];
        if ((o.kinds[K_ALLTOALL] || o.kinds[K_ALLTOALLV]) && maxs > (size_t)INT_MAX / (size_t)n) {
            snprintf(err, sizeof err, "--sizes up to %zu bytes: alltoall at %d ranks would move %zu bytes per rank, "
                     "more than MPI's int counts hold: allowed blocks up to %zu bytes at %d ranks",
                     maxs, n, maxs * (size_t)n, (size_t)INT_MAX / (size_t)n, n);
            return finish(me, TORUS_EXIT_USAGE, err);
        }
        int src = setup_mpi(&b, err, sizeof err);
        if (src >= 0) {
            teardown_mpi(&b);
            return finish(me, src, err);
        }
        calibrate(&b);
        if (o.validate && (b.u64_minmax_broken = u64_minmax_broken()))
            ri.validation_note = "this MPI library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare signed (a known bug "
                                 "of MPICH 4.0.2, pmodels/mpich#6083): uint64 min/max checked against MPI_Allgather "
                                 "in rank order instead";
        if (!me)
            print_preamble(&o, &ri, "MPI_Wtime per call, MPI_Barrier between calls");
        if (o.validate && o.kinds[K_BARRIER]) {
            TORUS_MPI_CHECK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &b.win_base, &b.win));
            *b.win_base = 0;
        }
        for (int k = 0; k < NKINDS; k++)
            if (o.kinds[k])
                run_op_mpi(&b, k);
        pgrid pg;
        pgrid_of(&pg, n, NULL);
        for (int pi = 0; pi < NPATS; pi++)
            if (o.pats[pi])
                run_pattern_mpi(&b, pi, &pg);
        if (o.validate && o.kinds[K_BARRIER])
            TORUS_MPI_CHECK(MPI_Win_free(&b.win));
        teardown_mpi(&b);
    }
    if (!me) {
        if (o.validate)
            printf("# validation: %d checks, %d failed\n", ri.checks, ri.failures);
        torus_stdout_flush(); /* the tables are complete: a failure's reason is kept */
        code = write_results(&o, &ri, err, sizeof err);
        if (!code && ri.failures)
            code = TORUS_EXIT_VERIFY;
        if (code == TORUS_EXIT_RESOURCE)
            fprintf(stderr, "collbench: %s\n", err);
        /* the tables went to stdout: a full or closed stdout lost them */
        code = torus_stdout_end(code);
    }
    TORUS_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD));
    free(ri.rows);
    MPI_Finalize();
    return code;
}
