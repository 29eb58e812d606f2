/* main.c - bin/ra_calibrate's main: the options before MPI starts, the
 * run's shares, every measure in turn (measure.c), the fit (fit.c), the
 * report on stdout and the params file, written atomically.
 * ra_calibrate.h says what is measured and how. */
#include "ra_calibrate.h"

/* MPI up, the output checked (written at the end through a temporary,
 * kit_io.h), the nodes found, each rank's share of the run's table and
 * the memory it needs.  Returns -1 to go on, else the exit code (MPI
 * finalized). */
static int cal_setup(cal *c, int *argc, char ***argv, int stop)
{
    /* what the ranks must agree on, from argv as given */
    static char canon[1 << 14];
    cal_agree_text(*argc, *argv, canon, sizeof canon);
    MPI_Init(argc, argv);
    KIT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int lrc = kit_mpi_launch_check(kit_prog()); /* another MPI's launcher: N jobs of one rank */
    if (lrc) {
        MPI_Finalize();
        return lrc;
    }
    KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &c->rank));
    KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &c->P));
    int rank = c->rank, P = c->P;
    /* every rank runs the same configuration or none runs (kit_agree.h) */
    char aerr[600];
    if (kit_agree(MPI_COMM_WORLD, canon, aerr, sizeof aerr)) {
        /* not after rank 0's own error (an option it alone was given): one line */
        if (!rank && !(stop > 0 && kit_launch_first()))
            fprintf(stderr, "ra_calibrate: error: %s\n", aerr);
        MPI_Finalize();
        return KIT_EXIT_USAGE;
    }
    if (stop >= 0) {
        /* an option that ends the run, the same on every rank */
        MPI_Finalize();
        return stop;
    }
    char ferr[400] = "";
    int out_ok = rank || !kit_outfile_probe(c->op.out, ferr, sizeof ferr);
    KIT_MPI_CHECK(MPI_Bcast(&out_ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!out_ok) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
        MPI_Finalize();
        return KIT_EXIT_USAGE;
    }
    char nerr[600];
    int nrc = torus_node_discover(MPI_COMM_WORLD, &c->ni, nerr, sizeof nerr);
    if (nrc) {
        if (!rank)
            fprintf(stderr, "ra_calibrate: %s\n", nerr);
        MPI_Finalize();
        return nrc == -2 ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
    }
    int cores = cal_cores_online(), cmin;
    KIT_MPI_CHECK(MPI_Allreduce(&cores, &cmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    c->cores = cmin;
    c->rpn = (double)P / c->ni.nnodes;
    c->used = c->rpn < c->cores ? c->rpn : c->cores;
    c->share = c->used / c->rpn;
    /* each rank's share of the run's table, a power of two */
    int lk = c->op.log2;
    while (lk > 10 && (1ULL << lk) * (uint64_t)1 > (1ULL << c->op.log2) / (uint64_t)P)
        lk--;
    c->lk = lk;
    c->LS = 1ULL << lk;
    /* the one memory check, before any table: a rank holds its share of
     * the run's table (at least 2^10 words) at a time */
    uint64_t share_words = ((1ULL << c->op.log2) + (uint64_t)P - 1) / (uint64_t)P;
    torus_mem_verdict v;
    if (!torus_mem_fits(MPI_COMM_WORLD, &c->ni, 8.0 * (double)(share_words > c->LS ? share_words : c->LS), &v)) {
        if (v.speaker)
            fprintf(stderr,
                    "ra_calibrate: error: table of 2^%d words needs %.2f GiB on this node (%d ranks) but only "
                    "%.2f GiB is available: allowed a smaller --log2-table\n",
                    c->op.log2, v.node_need / (double)(1ULL << 30), v.ranks, (double)v.avail / (double)(1ULL << 30));
        torus_node_free(&c->ni);
        MPI_Finalize();
        return KIT_EXIT_RESOURCE;
    }
    c->per_rank = c->op.quick ? 1ULL << 21 : 1ULL << 23;
    if (c->per_rank > 4 * c->LS)
        c->per_rank = 4 * c->LS;
    c->reps = c->op.quick ? 30 : 120, c->warm = c->op.quick ? 5 : 20;
    /* the kernels behind the bounds run longer than a phase: their rate
     * still creeps up over the first tenths of a second */
    c->kern = c->per_rank < (1ULL << 24) ? 1ULL << 24 : c->per_rank;
    return -1;
}

/* Every measure in turn, each figure lowered where a later one shows it
 * was measured under other load. */
static void measure_all(cal *c, cal_figs *f)
{
#ifdef _OPENMP
    omp_set_num_threads(1); /* one thread per rank, as the runs */
#endif
    c->tab = cal_alloc_table(MPI_COMM_WORLD, c->LS);
    ra_table_init(c->tab, c->LS, 0);
    /* the ceiling kernel's kind and depth: every setting tried on every
     * rank at once, as the run will share the memory */
    double trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS];
    ra_ceiling_pick(MPI_COMM_WORLD, c->tab, c->lk, RA_GEN_LFSR, c->kern, trials, &cal_ceil_kind, &cal_ceil_depth);
    f->t_local = cal_measure_t_local(c);
    f->node_gups = cal_measure_node_gups(c);
    f->star_gups = cal_measure_star_gups(c);
    cal_measure_local_path(c, &f->t_test, &f->local_path, &f->nrecv);
    ra_table_free(c->tab, c->LS);
    c->tab = NULL;

    /* a core alone is never slower than its share of the node at work: when
     * it measured slower, other load on the machine took its core while it
     * ran alone; the share is then the better figure for the CPU bound */
    if (f->t_local > c->used / f->node_gups)
        f->t_local = c->used / f->node_gups;

    /* message costs per payload, and the link, with two ranks or more */
    f->link_bw = c->op.link_bw;
    if (c->P >= 2) {
        cal_measure_message_costs(c, f->ts, f->tr);
        if (f->link_bw <= 0)
            f->link_bw = cal_measure_link_bw(c);
    }
    if (f->link_bw <= 0)
        f->link_bw = 1e12; /* one rank: nothing crosses a link; a figure the file can hold */

    f->routed_gups = cal_measure_routed_gups(c, &f->cap, &f->shape);
    f->H = torus_expected_hops(&f->shape);
    /* what the node's memory did in that run bounds it too: the memory
     * bound is the best rate seen, and on one rank (no hop) the run is the
     * local kernel itself, whose rate varies by some percent run to run */
    int nn = c->ni.nnodes;
    if (f->routed_gups / nn > f->node_gups)
        f->node_gups = f->routed_gups / nn;
    if (f->H == 0 && c->used * nn / f->routed_gups < f->t_local)
        f->t_local = c->used * nn / f->routed_gups;
    if (f->t_local > c->used / f->node_gups)
        f->t_local = c->used / f->node_gups;

    f->t_hop = cal_measure_t_hop(c, &f->shape, f->H);
    f->base_gups = cal_measure_base_gups(c);
}

static void print_report(const cal *c, const cal_figs *f, const tm_params *prm, const char *shown)
{
    int P = c->P;
    printf("nodes %d, %g ranks per node, %d cores per node (%g at work), each rank 2^%d words, %llu updates "
           "per rank per phase\n",
           c->ni.nnodes, c->rpn, c->cores, c->used, c->lk, (unsigned long long)c->per_rank);
    printf("node_gups: %.6g (the better of the ceiling kernel, %s at depth %d, and ra_opt's loop on all %g ranks "
           "of a node at once: the memory bound)\n",
           f->node_gups, ra_ceil_kind_name((ra_ceil_kind)cal_ceil_kind), cal_ceil_depth, c->rpn);
    printf("node_gups_star: %.6g (HPCC's Star kernel on all %g ranks of a node at once: reported, not a bound)\n",
           f->star_gups, c->rpn);
    printf("t_local: %.2f ns per update (the best of the three, rank 0 alone)\n", f->t_local);
    printf("t_test: %.1f ns per MPI_Testany over %d receive(s) between updates (rank 0 alone)\n", f->t_test,
           f->nrecv);
    printf("t_exposed: %.1f ns a local update adds with a test between updates (rank 0 alone)\n", f->t_exposed);
    if (P >= 2) {
        printf("t_send/t_recv (ns per core, least of %d) per payload, %d pair(s) at once:", c->reps - c->warm, P / 2);
        for (int k = 0; k < NS; k++)
            printf(" %d:%.0f/%.0f", cal_msg_sizes[k], f->ts[k], f->tr[k]);
        printf("\nbaseline mean bucket %.2f updates (%.0f bytes): t_send %.0f, t_recv %.0f ns\n", f->bucket,
               8 * f->bucket, prm->t_send, prm->t_recv);
    }
    printf("link_bw: %.4g bytes/s\n", f->link_bw);
    printf("t_hop: %.1f ns per hop (ra_opt's state machine in the in-process simulator, shape %s, tables in "
           "cache)\n", f->t_hop, shown);
    printf("routed run: %d ranks, shape %s, table 2^%d, %.4f GUPS, H = %.3f: %.1f ns per update on a core, "
           "%.1f of it the bound's work -> t_wait_routed %.1f\n",
           P, shown, c->op.log2, f->routed_gups, f->H, f->spent_routed, f->cyc_routed, prm->t_wait_routed);
    printf("baseline run: %d ranks, table 2^%d, %.5f GUPS: %.1f ns per update on a core, %.1f of it the "
           "bound's work -> t_wait_direct %.1f\n",
           P, c->op.log2, f->base_gups, f->spent_direct, f->cyc_direct, prm->t_wait_direct);
    /* the two runs' rates as keys (the params file says them in a comment) */
    printf("routed_run_gups: %.6f\nbaseline_run_gups: %.6f\n", f->routed_gups, f->base_gups);
}

/* The params file, through a temporary: 0, or the reason in ferr. */
static int write_params(const cal *c, const cal_figs *f, const tm_params *prm, const char *shown, char *ferr,
                        size_t errlen)
{
    kit_outfile o;
    ferr[0] = 0;
    if (kit_outfile_open(&o, c->op.out, 0, ferr, errlen) == 0) {
        FILE *fp = o.f;
        fprintf(fp, "# hpcc-ra %s ra_calibrate%s: %d ranks on %d node(s), %d cores per node, table 2^%d, "
                    "every figure in ns (clock_hz = 1e9)\n",
                RA_VERSION, c->op.quick ? " --quick" : "", c->P, c->ni.nnodes, c->cores, c->op.log2);
        fprintf(fp, "# node_gups is the ceiling kernel's (%s, depth %d); node_gups_star: %.6g (HPCC's Star "
                    "kernel, reported, not a bound)\n",
                ra_ceil_kind_name((ra_ceil_kind)cal_ceil_kind), cal_ceil_depth, f->star_gups);
        if (c->P >= 2) {
            fprintf(fp, "# t_send/t_recv per payload (bytes: send/recv ns per core), Table 1's method:\n#");
            for (int k = 0; k < NS; k++)
                fprintf(fp, " %d:%.0f/%.0f", cal_msg_sizes[k], f->ts[k], f->tr[k]);
            fprintf(fp, "\n");
        }
        fprintf(fp, "# routed run: ra_opt's shape %s, %.6f GUPS measured; baseline run %.6f GUPS measured\n",
                shown, f->routed_gups, f->base_gups);
        tm_params_write(prm, fp);
        if (kit_outfile_commit(&o, ferr, errlen) == 0)
            ferr[0] = 0;
    }
    return ferr[0] != 0;
}

/* --probe: the hardware figures, the report, the params file */
static int probe_main(cal *c)
{
    static probe_figs pf;
    cal_probe_all(c, &pf);
    tm_params prm;
    cal_probe_params(c, &pf, &prm);
    int rc = 0;
    if (!c->rank) {
        char cpu[256], ferr[400] = "";
        cal_probe_cpu_name(cpu, sizeof cpu);
        printf("cpu: %s, clock %.4g GHz, %d cores, %g ranks per node\n", cpu, pf.clock_hz / 1e9, c->cores, c->rpn);
        printf("mem_latency_ns: %.1f (pointer chase over 2^%d words, rank 0 alone)\n", pf.mem_latency_ns, c->lk);
        printf("mlp: %.1f misses in flight (concurrent chases, updates per ns at 2..64:", pf.mlp);
        for (int i = 0; i < 9; i++)
            printf(" %.3f", pf.mlp_rate[i]);
        printf(")\nmem_bw: %.4g bytes/s (every rank of the node at once, read + write)\n", pf.mem_bw);
        printf("bw_threads: %d (threads per rank in that pass: the cores each rank really has)\n", pf.bw_threads);
        printf("line_bytes: %g (%s)\n", prm.node.v[TM_N_LINE], prm.node.src[TM_N_LINE]);
        if (prm.hw.cores > 0)
            tm_hw_print(stdout, &prm.hw, 1);
        printf("threads_per_core: %g (cpu0's thread siblings in sysfs; %g cores)\n", prm.threads_per_core,
               prm.cores_per_node);
        printf("instr_local: %.1f cycles (ra_opt's loop, table of 2^12 words in cache)\n", pf.instr_local);
        printf("instr_hop: %.1f cycles per software hop (%s%s, tables in cache)\n", pf.instr_hop,
               pf.hop_shape[0] ? "ra_opt at these ranks, shape " : "4x4 in the in-process simulator",
               pf.hop_shape);
        printf("instr_test: %.1f cycles (MPI_Testany between updates)\n", pf.instr_test);
        if (pf.mpi_latency_ns > 0)
            printf("mpi_latency_ns: %.0f (8-byte ping-pong, half the least round trip)\n", pf.mpi_latency_ns);
        printf("link_bw: %.4g bytes/s (%s)\n", prm.link_bw,
               c->op.link_bw > 0 ? "--link-bw"
               : pf.link_bw > 0  ? "64 KiB ping-pong, rank 0 and 1"
                                 : "one node: no link crossed, a figure the file can hold");
        kit_stdout_flush();
        kit_outfile o;
        if (kit_outfile_open(&o, c->op.out, 0, ferr, sizeof ferr) == 0) {
            fprintf(o.f, "# hpcc-ra %s ra_calibrate --probe: %d ranks on %d node(s), %s; no GUPS run in "
                         "these figures\n",
                    RA_VERSION, c->P, c->ni.nnodes, cpu);
            if (prm.hw.cores > 0)
                tm_hw_print(o.f, &prm.hw, 0); /* a comment: the facts beside the terms */
            tm_params_write(&prm, o.f);
            if (kit_outfile_commit(&o, ferr, sizeof ferr) == 0)
                ferr[0] = 0;
        }
        if (ferr[0]) {
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
            rc = KIT_EXIT_RESOURCE;
        } else {
            char oshown[300];
            kit_cli_escape(c->op.out, oshown, sizeof oshown);
            printf("wrote %s\n", oshown);
        }
    }
    torus_node_free(&c->ni);
    MPI_Finalize();
    return c->rank ? 0 : (rc ? rc : kit_stdout_end(0));
}

int main(int argc, char **argv)
{
    kit_stdout_begin(argv[0]);
    static cal c;
    c.op = (cal_opts){.log2 = 25, .reps = 5, .out = "calibration.params"};
    int prc = cal_parse_options(argc, argv, kit_launch_first(), &c.op);
    /* alone, an option that ends the run ends it before MPI starts;
     * launched with others, the process joins the ranks' agreement all the
     * same, so that none is left waiting in MPI_Init */
    if (prc >= 0 && kit_launch_size() == 1)
        return prc;
    prc = cal_setup(&c, &argc, &argv, prc);
    if (prc >= 0)
        return prc;
    if (c.op.probe)
        return probe_main(&c);
    if (c.op.hop)
        return cal_hop_main(&c);
    static cal_figs f;
    measure_all(&c, &f);
    tm_params prm;
    cal_fit_params(&c, &f, &prm);

    if (!c.rank) {
        char shown[128], ferr[400];
        torus_shape_format(&f.shape, shown, sizeof shown);
        print_report(&c, &f, &prm, shown);
        kit_stdout_flush(); /* the report is complete: a failure's reason is kept */
        if (write_params(&c, &f, &prm, shown, ferr, sizeof ferr)) {
            /* the last step: every other rank is finishing, no abort needed */
            fprintf(stderr, "ra_calibrate: --output: %s\n", ferr);
            torus_node_free(&c.ni);
            MPI_Finalize();
            return KIT_EXIT_RESOURCE;
        }
        char oshown[300];
        kit_cli_escape(c.op.out, oshown, sizeof oshown);
        printf("wrote %s\n", oshown);
    }
    torus_node_free(&c.ni);
    MPI_Finalize();
    /* the report went to stdout: a full or closed stdout lost it (the
     * params file is written all the same) */
    return c.rank ? 0 : kit_stdout_end(0);
}
