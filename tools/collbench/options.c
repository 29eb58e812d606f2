/* options.c - collbench's options: the table of kit/opt_spec.c, the
 * --sizes and --op lists, --algorithms checked against the registry. */
#include "collbench.h"
#include "kit_settings.h"

const char *const cb_kind_name[NKINDS] = {"barrier", "bcast", "allreduce", "alltoall", "alltoallv"};
const torus_coll_op cb_kind_op[NKINDS] = {TORUS_COLL_BARRIER, TORUS_COLL_BCAST, TORUS_COLL_ALLREDUCE,
                                              TORUS_COLL_ALLTOALLV, TORUS_COLL_ALLTOALLV};
const char *const cb_pat_name[NPATS] = {"halo4d", "transpose", "sparse"};

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
    if (kit_cli_u64(buf, 1, MAX_SIZE_BYTES, &v) || v > MAX_SIZE_BYTES / mult)
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
            if (strlen(cb_pat_name[k]) == len && !strncmp(p, cb_pat_name[k], len))
                o->pats[k] = found = 1;
        if (!found && len == 3 && !strncmp(p, "all", 3)) {
            for (int k = 0; k < NKINDS; k++)
                o->kinds[k] = 1;
            found = 1;
        }
        for (int k = 0; k < NKINDS && !found; k++)
            if (strlen(cb_kind_name[k]) == len && !strncmp(p, cb_kind_name[k], len))
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
int cb_registered(torus_coll_op op, const char *name)
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
        if (!o->kinds[k] || seen_op[cb_kind_op[k]]++)
            continue;
        for (const char *const *n = torus_coll_algorithms(cb_kind_op[k]); *n && a < sizeof allowed; n++) {
            /* a name shared by two ops (dimwise) is listed once */
            int dup = 0;
            for (int j = 0; j < k; j++)
                if (o->kinds[j] && cb_kind_op[j] != cb_kind_op[k] && cb_registered(cb_kind_op[j], *n))
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
            ok = o->kinds[k] && cb_registered(cb_kind_op[k], word);
        if (!ok) {
            kit_cli_bad_value(err, errlen, "algorithms", o->alg_list, allowed);
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
    OPT_VERSION, OPT_TUNE
};

/* The option spec; --simulate's help names the link model's figures, so
 * the table is completed once at run time. */
static const kit_opt *cb_spec(void)
{
    static char sim_help[1400];
    static kit_opt spec[] = {
        {.name = "op", .type = KIT_OPT_TEXT, .id = OPT_OP, .meta = "OP", .defval = "all = the collectives",
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
        {.name = "sizes", .type = KIT_OPT_TEXT, .id = OPT_SIZES, .meta = "A:B", .defval = "8:1M",
         .help = "bytes A, 2A, 4A, ... up to B (K/M/G suffixes, binary), or a comma list of sizes and ranges, each "
                 "1..1G; bcast: the message, allreduce: the vector (whole 8-byte doubles), alltoall(v): the block "
                 "per pair",
         .allowed = "A:B (A, 2A, ... up to B bytes, K/M/G suffixes, e.g. 8:1M) or a comma list of sizes and "
                    "ranges, each 1..1G, at most 256 sizes"},
        {.name = "algorithms", .type = KIT_OPT_TEXT, .id = OPT_ALGORITHMS, .meta = "LIST",
         .defval = "all = auto, every registered algorithm, mpi",
         .help = "all, or a comma list of algorithm names, auto (the table's choice) and mpi (the MPI library's own)",
         .allowed = "all, or a comma list of names"},
        {.name = "iters", .type = KIT_OPT_LONG, .id = OPT_ITERS, .meta = "N", .defval = "100; with --simulate 1",
         .help = "timed calls per size; sizes above 64 KiB run N/5 (at least 1)", .lo = 1, .hi = 10000000},
        {.name = "warmup", .type = KIT_OPT_LONG, .id = OPT_WARMUP, .meta = "N", .defval = "10; with --simulate 0",
         .help = "untimed calls first; above 64 KiB N/5", .lo = 0, .hi = 1000000},
        {.name = "rounds", .type = KIT_OPT_LONG, .id = OPT_ROUNDS, .meta = "R", .defval = "5; with --simulate 1",
         .help = "the timed calls of a size are split into R rounds of ceil(N/R) calls that visit every algorithm "
                 "in turn (a warm-up call each, when --warmup is not 0; R is cut to N when N is smaller); a rank's "
                 "time per call is the median of its R round means, so a burst of load on a shared machine hits all "
                 "algorithms alike and one slow round decides nothing",
         .lo = 1, .hi = MAX_ROUNDS},
        {.name = "dims", .type = KIT_OPT_TEXT, .id = OPT_DIMS, .meta = "SHAPE", .defval = "auto",
         .help = "the collectives' torus over the ranks: auto, flat, hypercube, hypercube:D or sizes like 4x2 (m "
                 "suffix = mesh)"},
        {.name = "validate", .type = KIT_OPT_FLAG, .id = OPT_VALIDATE, .defval = "off",
         .help = "check every algorithm against the MPI library: bcast vs MPI_Bcast (roots 0 and P-1), allreduce "
                 "uint64/int64 sum, min, max, bxor vs MPI_Allreduce, doubles (whole numbers) sum, min, max vs a "
                 "rank-order reference from MPI_Allgather, alltoall(v) vs MPI_Alltoallv (alltoallv also with uneven "
                 "counts and gaps); one line per failure, exit 1"},
        {.name = "csv", .type = KIT_OPT_FILE_OUT, .id = OPT_CSV, .meta = "FILE", .defval = "none",
         .help = "write the rows as CSV (replaced atomically)"},
        {.name = "json", .type = KIT_OPT_FILE_OUT, .id = OPT_JSON, .meta = "FILE", .defval = "none",
         .help = "write the run as JSON (replaced atomically)"},
        {.name = "tune", .type = KIT_OPT_FILE_OUT, .id = OPT_TUNE, .meta = "FILE", .defval = "none",
         .help = "time every algorithm of the collectives (--op, --sizes) at this run's rank count and write the "
                 "fastest per op and size (the MPI library's own call, mpi, among them) as a selection table "
                 "for TORUS_COLL_TABLE=FILE (docs/collectives.md, Tuning); a FILE that holds a table keeps its "
                 "rows for other rank counts (this rank count's rows of the ops timed are replaced), so runs at "
                 "2, 4 and 8 ranks build one table; replaced atomically"},
        {.name = "simulate", .type = KIT_OPT_TEXT, .id = OPT_SIMULATE, .meta = "SHAPE", .defval = "off"},
        {.name = "choose", .type = KIT_OPT_TEXT, .id = OPT_CHOOSE, .meta = "SHAPE", .defval = "off",
         .help = "run nothing: print what the selection table (torus/coll/select.table) picks for every --op and "
                 "--sizes on SHAPE, with TORUS_COLL_<OP> applied and preconditions checked"},
        {.name = "per-node", .type = KIT_OPT_LONG, .id = OPT_PER_NODE, .meta = "K", .defval = "1",
         .help = "--choose: K consecutive ranks share a node", .lo = 1, .hi = 1 << 20},
        {.name = "k", .type = KIT_OPT_LONG, .id = OPT_K, .meta = "K", .defval = "6",
         .help = "sparse: destinations per rank, 1..100000", .lo = 1, .hi = 100000},
        {.name = "seed", .type = KIT_OPT_U64, .id = OPT_SEED, .meta = "S", .defval = "1",
         .help = "sparse: the seed of the destinations", .lo = 0,
         .allowed = "an integer 0..18446744073709551615"},
        {.name = "link-bw", .type = KIT_OPT_DOUBLE, .id = OPT_LINK_BW, .meta = "B", .defval = "154e6",
         .help = "--simulate: link bandwidth, bytes/s per direction", .lo = 1, .hi = 1e15,
         .allowed = "bytes per second in 1..1e15"},
        {.name = "latency", .type = KIT_OPT_DOUBLE, .id = OPT_LATENCY, .meta = "S", .defval = "1e-07",
         .help = "--simulate: seconds per link crossed", .lo = 0, .hi = 1, .allowed = "seconds in 0..1"},
        {.name = "dry-run", .type = KIT_OPT_FLAG, .id = OPT_DRY_RUN, .defval = "off",
         .help = "check every option and the result files' folders, then exit 0 without running, printing or "
                 "writing (the ranks and their memory are checked when a run starts)"},
        {.name = "help", .type = KIT_OPT_FLAG, .id = OPT_HELP, .help = "this help"},
        {.name = "version", .type = KIT_OPT_FLAG, .id = OPT_VERSION, .help = "the version"},
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
        for (kit_opt *o = spec; o->name; o++)
            if (o->id == OPT_SIMULATE)
                o->help = sim_help;
    }
    return spec;
}

/* head, then every registered algorithm by op and multisend's (--help and
 * the preamble; suite_coll.sh reads the registry from --help). */
void cb_print_registry(const char *head)
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

void cb_usage(void)
{
    printf("usage: mpirun -n P bin/collbench [options]\n"
           "       bin/collbench --simulate SHAPE [options]\n"
           "Times the collectives of torus/coll (every registered algorithm, the table's choice)\n"
           "against the MPI library's own, OSU-style: per size and algorithm min/avg/max over ranks\n"
           "of each rank's mean time per call, MB/s, the alpha-beta-gamma prediction (calibrated in\n"
           "the same run) and the ratio to the MPI library's time.\n");
    kit_opt_help(stdout, cb_spec());
    cb_print_registry("algorithms registered:");
    printf("\n");
    kit_settings_help(stdout, KIT_READ_LIBRARY);
    printf("options are checked before MPI starts; a bad one is one line and exit 2\n"
           "exit: 0 ok, 1 validation failed, 2 usage, 3 resource (memory, files)\n");
}

/* One option into the opts ctx (kit_opt_fn); 1 --help, 2 --version. */
static int take(void *ctx, const kit_opt *opt, const kit_opt_val *v, char *err, size_t errlen)
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
            kit_cli_bad_value(err, errlen, "op", optarg_, opt->allowed);
        break;
    case OPT_SIZES:
        if (parse_sizes(optarg_, o))
            kit_cli_bad_value(err, errlen, "sizes", optarg_, opt->allowed);
        break;
    case OPT_ALGORITHMS:
        if (!*optarg_)
            kit_cli_bad_value(err, errlen, "algorithms", optarg_, opt->allowed);
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
    case OPT_TUNE:
        o->tune = optarg_;
        break;
    }
    return err[0] ? -1 : 0;
}

/* Parses argv the same way on every rank.  Returns -1 to go on, else the
 * exit code (-2 --help, -3 --version); err holds the one error line. */
void cb_agree_text(int argc, char **argv, char *buf, size_t len)
{
    kit_agree_text(cb_spec(), argc, argv, buf, len);
}

int cb_parse_options(int argc, char **argv, opts *o, char *err, size_t errlen)
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
    int rc = kit_opt_parse(cb_spec(), argc, argv, 0, take, o, NULL, err, errlen);
    if (rc == 1 || rc == 2)
        return -1 - rc;
    if (rc)
        return KIT_EXIT_USAGE;
    if (o->choose && (o->simulate || o->validate || o->csv || o->json)) {
        snprintf(err, errlen, "--choose prints the table's choices and runs nothing: drop --%s",
                 o->simulate ? "simulate" : o->validate ? "validate" : o->csv ? "csv" : "json");
        return KIT_EXIT_USAGE;
    }
    if (o->tune && (o->simulate || o->choose)) {
        snprintf(err, errlen, "--tune times the algorithms over MPI at this run's ranks: drop --%s",
                 o->simulate ? "simulate" : "choose");
        return KIT_EXIT_USAGE;
    }
    if (o->tune && !o->kinds[K_BARRIER] && !o->kinds[K_BCAST] && !o->kinds[K_ALLREDUCE] && !o->kinds[K_ALLTOALL] &&
        !o->kinds[K_ALLTOALLV]) {
        snprintf(err, errlen, "--tune makes rows for the collectives: --op must name barrier, bcast, allreduce, "
                              "alltoall or alltoallv");
        return KIT_EXIT_USAGE;
    }
    if (o->per_node_set && !o->choose) {
        snprintf(err, errlen, "--per-node describes the nodes of --choose's shape (over MPI the nodes are found): add "
                              "--choose SHAPE");
        return KIT_EXIT_USAGE;
    }
    if (o->simulate) {
        if (o->validate) {
            snprintf(err, errlen, "--validate compares with the MPI library's collectives, which --simulate does not "
                                  "run: use one of them (tests/unit/test_coll checks the simulated results)");
            return KIT_EXIT_USAGE;
        }
        if (strcmp(o->dims, "auto")) {
            snprintf(err, errlen, "--dims shapes the MPI ranks; with --simulate the shape is --simulate's: use one of them");
            return KIT_EXIT_USAGE;
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
        return KIT_EXIT_USAGE;
    }
    if (check_algorithms(o, err, errlen))
        return KIT_EXIT_USAGE;
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
            return KIT_EXIT_USAGE;
        }
    }
    return -1;
}

/* Whether algorithm `name` (auto, mpi or registered) is to be run. */
int cb_wanted(const opts *o, const char *name)
{
    if (!strcmp(name, "mpi") && o->simulate)
        return 0;
    return !o->alg_list || in_list(o->alg_list, name);
}

int cb_iters_for(const opts *o, size_t bytes)
{
    return (int)(bytes > BIG_SIZE ? (o->iters + 4) / 5 : o->iters);
}

int cb_warmup_for(const opts *o, size_t bytes)
{
    return (int)(bytes > BIG_SIZE ? (o->warmup + 4) / 5 : o->warmup);
}
