/* options.c - ra_calibrate's options: the table of kit/opt_spec.c, parsed
 * before MPI starts, the same on every process. */
#include "ra_calibrate.h"
#include "kit_settings.h"

enum { CAL_LOG2 = 1, CAL_QUICK, CAL_PROBE, CAL_NODE_FROM, CAL_HOP, CAL_REPS, CAL_OUTPUT, CAL_LINK_BW, CAL_DRY_RUN,
       CAL_HELP, CAL_VERSION };

static const kit_opt cal_spec[] = {
    {.name = "log2-table", .type = KIT_OPT_LONG, .id = CAL_LOG2, .meta = "K", .defval = "25",
     .help = "the run's global table of 2^K words, K in 10..40; each rank holds 2^K / P words", .lo = 10, .hi = 40},
    {.name = "quick", .type = KIT_OPT_FLAG, .id = CAL_QUICK, .defval = "off",
     .help = "2^21 updates per rank per phase, fewer repetitions: 7-20 s"},
    {.name = "probe", .type = KIT_OPT_FLAG, .id = CAL_PROBE, .defval = "off",
     .help = "the hardware alone, no GUPS run: memory latency (pointer chase), misses in flight (concurrent "
             "chases), the node's bandwidth, the kit's instruction costs in cache, MPI latency; writes "
             "torusmodel's node model keys (docs/machines.md)"},
    {.name = "node-from", .type = KIT_OPT_FILE_IN, .id = CAL_NODE_FROM, .meta = "XML", .defval = "none",
     .help = "--probe: the node's facts from hwloc (lstopo --of xml > node.xml): the cache line from it, and its "
             "packages, cores, NUMA nodes, memory and caches in the report and the params file, each from the file"},
    {.name = "hop", .type = KIT_OPT_FLAG, .id = CAL_HOP, .defval = "off",
     .help = "the node hop's price measured directly, ranks on one node, tables in cache: ns per crossing at "
             "packet fills 4..1024 (h and s fitted, also in updates at the ceiling of the --log2-table run), "
             "and the price of a poll with 1..127 peer rings, through the inbox and by a scan (docs/ra_opt.md); "
             "prints, writes no file"},
    {.name = "reps", .type = KIT_OPT_LONG, .id = CAL_REPS, .meta = "N", .defval = "5",
     .help = "--hop: interleaved rounds of every figure (median, min and max reported)", .lo = 1, .hi = 99},
    {.name = "output", .type = KIT_OPT_FILE_OUT, .id = CAL_OUTPUT, .meta = "FILE", .defval = "calibration.params",
     .help = "params file to write"},
    {.name = "link-bw", .type = KIT_OPT_DOUBLE, .id = CAL_LINK_BW, .meta = "B",
     .defval = "measured 64 KiB ping-pong; 1e12 on one rank (--probe: on one node)", .help = "link bandwidth to record, bytes/s",
     .lo = TM_PARAM_MIN, .hi = TM_PARAM_MAX, .allowed = "a number > 0, in 1e-30..1e30"},
    {.name = "dry-run", .type = KIT_OPT_FLAG, .id = CAL_DRY_RUN, .defval = "off",
     .help = "check the options and the output's folder, then exit 0 without measuring or writing"},
    {.name = "help", .type = KIT_OPT_FLAG, .id = CAL_HELP, .help = "this help"},
    {.name = "version", .type = KIT_OPT_FLAG, .id = CAL_VERSION, .help = "the version"},
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
    kit_opt_help(stdout, cal_spec);
    kit_settings_help(stdout, KIT_READ_LIBRARY | KIT_READ_HARNESS);
    printf("options are checked before MPI starts; a bad one is one line and exit 2\n"
           "exit: 0 ok, 2 bad input, 3 resource error (memory, files, MPI)\n");
}

/* One option into the cal_opts ctx (kit_opt_fn): 1 --help, 2 --version. */
static int take(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
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
    case CAL_PROBE:
        c->probe = 1;
        break;
    case CAL_NODE_FROM:
        return tm_hwloc_read(v->s, &c->hw, err, errlen) ? -1 : 0;
    case CAL_HOP:
        c->hop = 1;
        break;
    case CAL_REPS:
        c->reps = (int)v->l;
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

void cal_agree_text(int argc, char **argv, char *buf, size_t len)
{
    kit_agree_text(cal_spec, argc, argv, buf, len);
}

/* Options, before MPI starts, the same on every process; the first of the
 * launch (kit_launch_first) prints --help, --version or the one error
 * line.  Returns -1 to go on, else the exit code. */
int cal_parse_options(int argc, char **argv, int first, cal_opts *o)
{
    char err[400] = "";
    int rc = kit_opt_parse(cal_spec, argc, argv, 0, take, o, NULL, err, sizeof err);
    if (rc == 1 || rc == 2) {
        if (first && rc == 1)
            usage();
        else if (first)
            printf("ra_calibrate (hpcc-ra) %s\n", RA_VERSION);
        return first ? kit_stdout_end(KIT_EXIT_OK) : KIT_EXIT_OK;
    }
    if (rc) {
        if (first)
            fprintf(stderr, "ra_calibrate: %s\n", err);
        return KIT_EXIT_USAGE;
    }
    if (o->hw.cores > 0 && !o->probe) {
        if (first)
            fprintf(stderr, "ra_calibrate: --node-from goes with --probe: add --probe\n");
        return KIT_EXIT_USAGE;
    }
    if (o->probe && o->hop) {
        if (first)
            fprintf(stderr, "ra_calibrate: --probe and --hop: allowed one of them at a time\n");
        return KIT_EXIT_USAGE;
    }
    /* --dry-run: the output's folder, as rank 0 checks it before measuring */
    if (o->dry_run) {
        if (first && kit_outfile_probe(o->out, err, sizeof err)) {
            fprintf(stderr, "ra_calibrate: --output: %s\n", err);
            return KIT_EXIT_USAGE;
        }
        return first ? kit_stdout_end(KIT_EXIT_OK) : KIT_EXIT_OK;
    }
    return -1;
}

/* The table as the kit's runs allocate it (huge pages where the kernel
 * allows: a table on 4 KiB pages would time the TLB, not the run). */
