/* main.c - bin/collbench's main: the options before MPI starts, then
 * --choose, --simulate or MPI mode, then the result files
 * (collbench.h lists the files and the protocol). */
#include "collbench.h"

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
        return KIT_EXIT_USAGE;
    }
    if (o->per_node > s.n || s.n % o->per_node) {
        snprintf(err, errlen, "bad value '%ld' for --per-node: allowed a divisor of the shape's %d ranks", o->per_node,
                 s.n);
        return KIT_EXIT_USAGE;
    }
    torus_map map;
    if (torus_map_xyzt(&map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d ranks", s.n);
        return KIT_EXIT_RESOURCE;
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
        rc = KIT_EXIT_RESOURCE;
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
            rc = KIT_EXIT_USAGE;
        }
    }
    if (!rc) {
        char shape[128];
        torus_shape_format(&s, shape, sizeof shape);
        printf("# collbench --choose %s: %d ranks, %ld per node; what the selection table (torus/coll/select.table) picks (first row that "
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
                printf("  %-9s %10zu  %-20s %s\n", kind == K_ALLTOALL ? "alltoallv" : cb_kind_name[kind], bytes,
                       torus_coll_choice(c, cb_kind_op[kind], bytes), torus_coll_choice(cd, cb_kind_op[kind], bytes));
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
        code = kit_stdout_end(code);
    MPI_Finalize();
    return code;
}

/* What the run's files say about it before any measurement. */
static void run_info_init(run_info *ri, const opts *o, int n)
{
    ri->ranks = n;
    ri->mode = "mpi";
    ri->rounds = (int)o->rounds;
    ri->iters = cb_iters_for(o, 0);
    ri->iters_big = cb_iters_for(o, BIG_SIZE + 1);
    ri->warmup = cb_warmup_for(o, 0);
    ri->warmup_big = cb_warmup_for(o, BIG_SIZE + 1);
    cb_mpi_library(ri->mpi);
    cb_now_string(ri->date, sizeof ri->date);
    if (gethostname(ri->host, sizeof ri->host - 1))
        snprintf(ri->host, sizeof ri->host, "unknown");
    for (char *c = ri->host; *c; c++)
        if (*c == ',' || *c == '"' || (unsigned char)*c < 0x20)
            *c = '_';
}

/* MPI mode: every op and pattern over MPI_COMM_WORLD.  -1 when done,
 * else the exit code (err says why). */
static int mpi_main(const opts *o, run_info *ri, int me, int n, char *err, size_t errlen)
{
    static bench b;
    b.o = o;
    b.me = me;
    b.n = n;
    b.ri = ri;
    /* MPI counts are ints: an alltoall rank's P blocks must fit in one */
    size_t maxs = o->sizes[o->nsizes - 1];
    if ((o->kinds[K_ALLTOALL] || o->kinds[K_ALLTOALLV]) && maxs > (size_t)INT_MAX / (size_t)n) {
        snprintf(err, errlen, "--sizes up to %zu bytes: alltoall at %d ranks would move %zu bytes per rank, "
                 "more than MPI's int counts hold: allowed blocks up to %zu bytes at %d ranks",
                 maxs, n, maxs * (size_t)n, (size_t)INT_MAX / (size_t)n, n);
        return KIT_EXIT_USAGE;
    }
    int src = cb_setup_mpi(&b, err, errlen);
    if (src >= 0) {
        cb_teardown_mpi(&b);
        return src;
    }
    cb_calibrate(&b);
    if (o->validate && (b.u64_minmax_broken = cb_u64_minmax_broken()))
        ri->validation_note = "this MPI library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare signed (a known bug "
                             "of MPICH 4.0.2, pmodels/mpich#6083): uint64 min/max checked against MPI_Allgather "
                             "in rank order instead";
    if (!me)
        cb_print_preamble(o, ri, "MPI_Wtime per call, MPI_Barrier between calls");
    if (o->validate && o->kinds[K_BARRIER]) {
        KIT_MPI_CHECK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &b.win_base, &b.win));
        *b.win_base = 0;
    }
    for (int k = 0; k < NKINDS; k++)
        if (o->kinds[k])
            cb_run_op_mpi(&b, k);
    pgrid pg;
    cb_pgrid_of(&pg, n, NULL);
    for (int pi = 0; pi < NPATS; pi++)
        if (o->pats[pi])
            cb_run_pattern_mpi(&b, pi, &pg);
    if (o->validate && o->kinds[K_BARRIER])
        KIT_MPI_CHECK(MPI_Win_free(&b.win));
    cb_teardown_mpi(&b);
    return -1;
}

int main(int argc, char **argv)
{
    kit_stdout_begin(argv[0]);
    static opts o;
    char err[2600] = "";
    /* the options before MPI starts: a typo costs no start-up, and every
     * process agrees without communicating; the first of the launch
     * prints */
    int first = kit_launch_first();
    int prc = cb_parse_options(argc, argv, &o, err, sizeof err);
    /* stop: the exit code of an option that ends the run before it starts
     * (-1: none).  Alone, it ends it before MPI starts; launched with others,
     * the process joins MPI all the same, so that ranks given different
     * options meet in the agreement instead of waiting in MPI_Init */
    int stop = -1;
    if (prc == -2 || prc == -3) {
        if (first && prc == -2)
            cb_usage();
        else if (first)
            printf("collbench (hpcc-ra) %s\n", HPCC_RA_VERSION);
        stop = 0;
    } else if (prc >= 0) {
        if (first)
            fprintf(stderr, "collbench: %s\n", err);
        stop = prc;
    } else if (o.dry_run) {
        int drc = 0;
        if (first && ((o.csv && cb_probe_file("csv", o.csv, err, sizeof err)) ||
                      (o.json && cb_probe_file("json", o.json, err, sizeof err))))
            drc = KIT_EXIT_RESOURCE;
        if (first && !drc && o.tune)
            drc = cb_tune_begin(&o, err, sizeof err);
        if (drc)
            fprintf(stderr, "collbench: %s\n", err);
        stop = drc;
    }
    int alone = kit_launch_size() == 1;
    if (stop >= 0 && alone)
        return stop == 0 && first ? kit_stdout_end(0) : stop;
    /* what the ranks must agree on, from argv as given */
    static char canon[1 << 15];
    cb_agree_text(argc, argv, canon, sizeof canon);
    MPI_Init(&argc, &argv);
    KIT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int lrc = kit_mpi_launch_check(kit_prog()); /* another MPI's launcher: N jobs of one rank */
    if (lrc) {
        MPI_Finalize();
        return lrc;
    }
    int me, n;
    KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    /* every rank runs the same configuration or none runs (kit_agree.h) */
    if (kit_agree(MPI_COMM_WORLD, canon, err, sizeof err))
        /* a rank 0 that printed its own error already (an option it alone
         * was given, MPMD) says nothing more: one line */
        return finish(me, KIT_EXIT_USAGE, first && stop > 0 ? "" : err);
    if (stop >= 0) {
        MPI_Finalize();
        return stop == 0 && first ? kit_stdout_end(0) : stop;
    }

    static run_info ri;
    run_info_init(&ri, &o, n);

    /* result files must be writable before a long run starts (--tune's
     * table read, to be merged into) */
    int probe_rc = 0;
    if (!me && ((o.csv && cb_probe_file("csv", o.csv, err, sizeof err)) ||
                (o.json && cb_probe_file("json", o.json, err, sizeof err))))
        probe_rc = KIT_EXIT_RESOURCE;
    if (!me && !probe_rc && o.tune)
        probe_rc = cb_tune_begin(&o, err, sizeof err);
    KIT_MPI_CHECK(MPI_Bcast(&probe_rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (probe_rc)
        return finish(me, probe_rc, err);

    int code = 0;
    if (o.choose || o.simulate) {
        /* one process: TORUS_COLL_TABLE needs no agreement; a bad file is
         * one line */
        char tm[700];
        torus_coll_table_use(tm, sizeof tm);
        if (tm[0])
            fprintf(stderr, "collbench: %s\n", tm);
    }
    if (o.choose) {
        if (n > 1) {
            snprintf(err, sizeof err, "--choose runs nothing: start it without mpirun or with -n 1 (got %d processes)",
                     n);
            return finish(me, KIT_EXIT_USAGE, err);
        }
        return finish(me, choose_main(&o, err, sizeof err), err);
    }
    if (o.simulate) {
        if (n > 1) {
            snprintf(err, sizeof err, "--simulate runs every simulated rank in one process: start it without mpirun "
                                      "or with -n 1 (got %d processes)", n);
            return finish(me, KIT_EXIT_USAGE, err);
        }
        code = cb_simulate_main(&o, &ri, err, sizeof err);
        if (code)
            return finish(me, code, err);
    } else {
        code = mpi_main(&o, &ri, me, n, err, sizeof err);
        if (code >= 0)
            return finish(me, code, err);
        code = 0;
    }
    if (!me) {
        if (o.validate)
            printf("# validation: %d checks, %d failed\n", ri.checks, ri.failures);
        kit_stdout_flush(); /* the tables are complete: a failure's reason is kept */
        code = cb_write_results(&o, &ri, err, sizeof err);
        if (!code && o.tune)
            code = cb_tune_end(&o, &ri, err, sizeof err);
        if (!code && ri.failures)
            code = KIT_EXIT_VERIFY;
        if (code == KIT_EXIT_RESOURCE)
            fprintf(stderr, "collbench: %s\n", err);
        /* the tables went to stdout: a full or closed stdout lost them */
        code = kit_stdout_end(code);
    }
    KIT_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD));
    free(ri.rows);
    MPI_Finalize();
    return code;
}
