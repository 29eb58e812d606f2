/*
 * torusmodel.c - bin/torusmodel: paper 002's CPU and network bottlenecks
 * for one shape or a list (Tables 3, 5 and 7), the baseline's mean bucket
 * size (Table 6), and --simulate: the real routed algorithm run over the
 * timed transport with link and CPU costs (through optimized/'s one narrow
 * entry, ropt_timed.h).
 */
#include "torusmodel.h"
#include "ropt_timed.h"
#include "torus_cli.h"
#include "torus_io.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    ropt_timed_config d;
    ropt_timed_defaults(&d);
    fprintf(f,
            "usage: torusmodel [options]\n"
            "CPU, network and node-memory bounds on RandomAccess GUPS (paper 002 eq. 1, eq. 2,\n"
            "sec. 6.2) and a predicted GUPS; the smallest bound is the binding one.\n"
            "Parameters, applied left to right (later ones win):\n"
            "  --preset NAME          bgl-mpi (Tables 1, 3), bgl-raw (Tables 4, 5), bgl-routed (Table 7)\n"
            "                         (default: none)\n"
            "  --params FILE          'key = value' lines, '#' comments (bin/ra_calibrate writes one)\n"
            "                         (default: none)\n"
            "  --clock-hz F           cycles per second of the cycle figures (default 1e9)\n"
            "  --t-local C            cycles per update: generate + update + loop (default 0)\n"
            "  --t-send C, --t-recv C cycles per message call (default 0)\n"
            "  --t-overhead C         cycles per remote update beyond send/recv, t_o^p (default 0)\n"
            "  --t-hop C              cycles per software-routing hop (default 0)\n"
            "  --bytes-per-update B   bytes on the wire per update, b (required; default: none)\n"
            "  --link-bw BYTES_PER_S  link capacity per direction, C (required; default: none)\n"
            "  --updates-per-message M  direct: updates per send/recv (default 1 = eq. 1)\n"
            "  --t-local-plain C      direct: cycles per update of the baseline's one-at-a-time loop\n"
            "                         (default 0 = t_local)\n"
            "  --t-test C             direct: cycles of the MPI_Test made every update (default 0)\n"
            "  --ranks-per-node R     ranks sharing one node (default 1)\n"
            "  --cores-per-node C     cores of a node; CPU bound counts min(R, C) per node\n"
            "                         (default 0 = R)\n"
            "  --node-gups G          node random-update rate in GUPS (the ceiling kernel's aggregate,\n"
            "                         ra_opt --suite ceiling gups_sum), or R:G pairs\n"
            "                         like 1:0.1,2:0.12,8:0.11 (default: none = memory unbounded)\n"
            "  --node-gups-plain G    direct: node rate of the baseline's local path (loop + MPI_Test),\n"
            "                         G or R:G pairs; the direct prediction's local term (default: none)\n"
            "  --algorithm A          direct | routed (default direct)\n"
            "  --shape S              one shape: 8x8x16, m suffix = mesh dimension, hypercube:D\n"
            "                         (default: none; --shape or --shapes is required)\n"
            "  --shapes LIST          comma-separated shapes, or bgl (Table 2's twelve partitions)\n"
            "                         (default: none)\n"
            "Models:\n"
            "  --bucketed             direct: m = the simulated mean bucket size at each N (default: off)\n"
            "  --bucket-sim P         the baseline's mean bucket size at P processes, Table 6 (default: off)\n"
            "  --simulate             run the routed algorithm over the simulated transport with\n"
            "                         link and CPU costs, shapes up to 64x32x32 (default: off)\n"
            "  --sim-updates U        updates per virtual rank in --simulate (default: 2^22 / N, at\n"
            "                         least 4096: every machine runs long enough to reach its steady\n"
            "                         rate, each rank's pipeline of 1024 pending updates filled and\n"
            "                         drained several times over; 64x32x32 takes ~10 min)\n"
            "  --sim-latency S        per-link latency in seconds (default 1e-7)\n"
            "  --sim-outstanding S    send slots per dimension in --simulate (default %d: BlueGene/L's model; ra_opt over MPI uses 1)\n"
            "  --sim-lookahead L      apply pipeline depth in --simulate, 0 or a power of two 2..512\n"
            "                         (default %d: no memory\n"
            "                         model, so no pipeline; ra_opt's --lookahead; a generation batch\n"
            "                         of 64 is counted beside it)\n"
            "  --sim-links M          free-at: a packet starts when its whole path is free after every\n"
            "                         earlier booking; gaps: in the earliest window its whole path is\n"
            "                         idle, gaps before earlier bookings included (default free-at)\n"
            "  --header-bytes H       bytes per packet on the wire beyond 8 per update (default: the\n"
            "                         packet_header_bytes parameter when set, else 32)\n"
            "Output:\n"
            "  --json                 one JSON object (default: off, a table or key block)\n"
            "  --write-params FILE    write the effective parameters as a params file (default: none)\n"
            "  --help, --version\n"
            "exit: 0 ok, 2 bad input, 3 out of memory\n",
            d.outstanding, d.lookahead);
}

/* --simulate's least updates per rank (see --sim-updates) */
#define SIM_MIN_PER_RANK 4096L

enum { OPT_PRESET = 256, OPT_PARAMS, OPT_JSON, OPT_BUCKETED, OPT_SIMULATE, OPT_BUCKET_SIM, OPT_SIM_UPDATES,
       OPT_SIM_LATENCY, OPT_SIM_OUTSTANDING, OPT_SIM_LOOKAHEAD, OPT_SIM_LINKS, OPT_HEADER_BYTES, OPT_WRITE_PARAMS, OPT_HELP, OPT_VERSION, OPT_PARAM };

/* The option table: the fixed options, then every model parameter as
 * --key with dashes (and with underscores, as older scripts wrote it). */
static struct option *build_options(void)
{
    static const struct option fixed[] = {
        {"preset", required_argument, NULL, OPT_PRESET},
        {"params", required_argument, NULL, OPT_PARAMS},
        {"json", no_argument, NULL, OPT_JSON},
        {"bucketed", no_argument, NULL, OPT_BUCKETED},
        {"simulate", no_argument, NULL, OPT_SIMULATE},
        {"bucket-sim", required_argument, NULL, OPT_BUCKET_SIM},
        {"sim-updates", required_argument, NULL, OPT_SIM_UPDATES},
        {"sim-latency", required_argument, NULL, OPT_SIM_LATENCY},
        {"sim-outstanding", required_argument, NULL, OPT_SIM_OUTSTANDING},
        {"sim-lookahead", required_argument, NULL, OPT_SIM_LOOKAHEAD},
        {"sim-links", required_argument, NULL, OPT_SIM_LINKS},
        {"header-bytes", required_argument, NULL, OPT_HEADER_BYTES},
        {"write-params", required_argument, NULL, OPT_WRITE_PARAMS},
        {"help", no_argument, NULL, OPT_HELP},
        {"version", no_argument, NULL, OPT_VERSION},
    };
    enum { NFIXED = sizeof fixed / sizeof *fixed };
    static char names[64][32];
    static struct option all[NFIXED + 64 + 1];
    int n = 0, m = 0;
    for (; n < NFIXED; n++)
        all[n] = fixed[n];
    for (int i = 0; tm_param_name(i) && m + 2 <= 64; i++) {
        const char *k = tm_param_name(i);
        snprintf(names[m], sizeof names[m], "%s", k);
        for (char *c = names[m]; *c; c++)
            if (*c == '_')
                *c = '-';
        /* a code of its own per parameter: getopt_long would take a
         * prefix shared by entries of one code (--t) as unambiguous */
        all[n++] = (struct option){names[m++], required_argument, NULL, OPT_PARAM + i};
        if (strchr(k, '_'))
            all[n++] = (struct option){k, required_argument, NULL, OPT_PARAM + i};
    }
    all[n] = (struct option){NULL, 0, NULL, 0};
    return all;
}

/* A number in [lo, hi] for option opt, or one error line in err. */
static int num_opt(const char *opt, const char *v, double lo, double hi, const char *allowed, double *out, char *err,
                   size_t errlen)
{
    if (torus_cli_double(v, lo, hi, out)) {
        torus_cli_bad_value(err, errlen, opt, v, allowed);
        return -1;
    }
    return 0;
}

/* A figure for the output: "%.6g", or `none` when it is not finite (a
 * CPU bound with no CPU cost given is unbounded: JSON null, text
 * "unbounded"), so no output ever says inf or nan. */
static const char *fig(char *buf, size_t len, const char *fmt, double v, const char *none)
{
    if (!isfinite(v))
        return none;
    if (!strcmp(fmt, "%.4f"))
        snprintf(buf, len, "%.4f", v);
    else
        snprintf(buf, len, "%.6g", v);
    return buf;
}

/* Everything the command line sets. */
typedef struct tm_cli {
    tm_params p;
    int json, bucketed, simulate;
    long bucket_p;
    double sim_updates, sim_latency, header_bytes;
    ropt_timed_config sim_defaults; /* the simulator's send slots (BlueGene/L: 4) and ra_opt's look-ahead */
    long sim_outstanding, sim_lookahead;
    int sim_link_gaps;
    const char *write_params;
} tm_cli;

enum { CLI_GO = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_BAD = -2 };

/* Parses argv into c without printing or exiting (the option fuzzer calls
 * it over and over): CLI_GO, CLI_HELP, CLI_VERSION or CLI_BAD with one
 * line in err.  Resets getopt's state itself. */
static int parse_cli(int argc, char **argv, tm_cli *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    tm_params_defaults(&c->p);
    c->sim_updates = 0, c->sim_latency = 1e-7, c->header_bytes = -1; /* -1: see --help */
    ropt_timed_defaults(&c->sim_defaults);
    c->sim_outstanding = c->sim_defaults.outstanding, c->sim_lookahead = c->sim_defaults.lookahead;
    tm_params *pp = &c->p;
    const struct option *opts = build_options();
    opterr = 0;
    optind = 0; /* glibc: a full restart of getopt's scan */
    for (;;) {
        int idx = -1, prev = optind ? optind : 1;
        /* "+": no reordering, so argv[prev] is the word getopt looked at */
        int o = getopt_long(argc, argv, "+:h", opts, &idx);
        if (o == -1)
            break;
        const char *word = argv[prev < argc ? prev : argc - 1];
        if (o >= OPT_PARAM) {
            char name[64];
            snprintf(name, sizeof name, "--%s", opts[idx].name);
            if (tm_param_set(pp, name, optarg, err, errlen))
                return CLI_BAD;
            continue;
        }
        double v;
        switch (o) {
        case 'h':
        case OPT_HELP:
            return CLI_HELP;
        case OPT_VERSION:
            return CLI_VERSION;
        case OPT_PRESET:
            if (tm_preset(pp, optarg, err, errlen))
                return CLI_BAD;
            break;
        case OPT_PARAMS:
            if (tm_params_file(pp, optarg, err, errlen))
                return CLI_BAD;
            break;
        case OPT_JSON:
            c->json = 1;
            break;
        case OPT_BUCKETED:
            c->bucketed = 1;
            break;
        case OPT_SIMULATE:
            c->simulate = 1;
            break;
        case OPT_BUCKET_SIM:
            if (num_opt("bucket-sim", optarg, 2, 1 << 24, "a whole number in 2..16777216", &v, err, errlen))
                return CLI_BAD;
            if (v != floor(v)) {
                torus_cli_bad_value(err, errlen, "bucket-sim", optarg, "a whole number in 2..16777216");
                return CLI_BAD;
            }
            c->bucket_p = (long)v;
            break;
        case OPT_SIM_UPDATES:
            if (num_opt("sim-updates", optarg, 1, 1e12, "a number of updates per rank in 1..1e12", &c->sim_updates, err,
                        errlen))
                return CLI_BAD;
            break;
        case OPT_SIM_LATENCY:
            if (num_opt("sim-latency", optarg, 0, 1e3, "seconds in 0..1000", &c->sim_latency, err, errlen))
                return CLI_BAD;
            break;
        case OPT_SIM_OUTSTANDING:
            if (torus_cli_long(optarg, 1, ROPT_TIMED_MAX_OUTSTANDING, &c->sim_outstanding)) {
                torus_cli_bad_value(err, errlen, "sim-outstanding", optarg, "an integer 1..64");
                return CLI_BAD;
            }
            break;
        case OPT_SIM_LOOKAHEAD:
            if (torus_cli_long(optarg, 0, ROPT_TIMED_MAX_LOOKAHEAD, &c->sim_lookahead) ||
                (c->sim_lookahead && (c->sim_lookahead < 2 || (c->sim_lookahead & (c->sim_lookahead - 1))))) {
                torus_cli_bad_value(err, errlen, "sim-lookahead", optarg, "0 or a power of two 2..512");
                return CLI_BAD;
            }
            break;
        case OPT_SIM_LINKS:
            if (!strcmp(optarg, "free-at") || !strcmp(optarg, "gaps")) {
                c->sim_link_gaps = !strcmp(optarg, "gaps");
            } else {
                torus_cli_bad_value(err, errlen, "sim-links", optarg, "free-at or gaps");
                return CLI_BAD;
            }
            break;
        case OPT_HEADER_BYTES:
            if (num_opt("header-bytes", optarg, 0, 1e9, "a number of bytes >= 0", &c->header_bytes, err, errlen))
                return CLI_BAD;
            break;
        case OPT_WRITE_PARAMS:
            if (!*optarg) {
                torus_cli_bad_value(err, errlen, "write-params", optarg, "a file name");
                return CLI_BAD;
            }
            c->write_params = optarg;
            break;
        case ':': {
            char w[300];
            torus_cli_escape(word, w, sizeof w);
            snprintf(err, errlen, "option '%s' needs a value (see --help)", w);
            return CLI_BAD;
        }
        default:
            torus_cli_refused(opts, word, err, errlen);
            return CLI_BAD;
        }
    }
    if (optind < argc) {
        char w[300];
        torus_cli_escape(argv[optind], w, sizeof w);
        snprintf(err, errlen, "unexpected argument '%s' (see --help)", w);
        return CLI_BAD;
    }
    return CLI_GO;
}

/* --write-params: the effective parameters, replaced atomically; 0 or the
 * exit code (2: the path cannot take a file, 3: the write failed). */
static int write_params_file(const tm_params *p, const char *path)
{
    char err[400];
    torus_outfile o;
    if (torus_outfile_probe(path, err, sizeof err)) {
        fprintf(stderr, "torusmodel: --write-params: %s\n", err);
        return 2;
    }
    if (torus_outfile_open(&o, path, 0, err, sizeof err)) {
        fprintf(stderr, "torusmodel: --write-params: %s\n", err);
        return 3;
    }
    tm_params_write(p, o.f);
    if (torus_outfile_commit(&o, err, sizeof err)) {
        fprintf(stderr, "torusmodel: --write-params: %s\n", err);
        return 3;
    }
    return 0;
}

/* "(x,y,z) dim y -" for the busiest link of a simulation. */
static void hot_link(const ropt_timed_result *r, char *buf, size_t len)
{
    if (r->hot_dim < 0) {
        snprintf(buf, len, "none");
        return;
    }
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int d = 0; d < r->ndims && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", d ? "," : "", r->hot_coords[d]);
    if (o < len)
        snprintf(buf + o, len - o, ") dim %c %c", r->hot_dim < 3 ? "xyz"[r->hot_dim] : '0' + r->hot_dim,
                 r->hot_dir ? '-' : '+');
}

/* One line of the where-the-time-goes table. */
static void time_row(const torus_shape *sh, const ropt_timed_result *r)
{
    char name[128], use[160] = "", hot[160];
    torus_shape_format(sh, name, sizeof name);
    size_t o = 0;
    for (int d = 0; d < r->ndims && o < sizeof use; d++)
        o += (size_t)snprintf(use + o, sizeof use - o, "%s%.2f/%.2f", d ? " " : "", r->dim_util_mean[d],
                              r->dim_util_max[d]);
    hot_link(r, hot, sizeof hot);
    char hot2[200];
    snprintf(hot2, sizeof hot2, "%s %.2f", hot, r->hot_util);
    printf("  %8d  %-16s %-32s %-26s %7.4f %7.4f %5d %5.2f  %.3f %.3f %.3f %.3f %10.3f\n", sh->n, name, use, hot2,
           r->blocked_frac, r->waiting_frac, r->cap, r->mean_fill, r->fill_frac[0], r->fill_frac[1], r->fill_frac[2],
           r->fill_frac[3], r->window_frac);
}

int main(int argc, char **argv)
{
    tm_cli cli;
    char err[512] = "";
    int pr = parse_cli(argc, argv, &cli, err, sizeof err);
    if (pr == CLI_BAD)
        goto bad;
    if (pr == CLI_HELP) {
        usage(stdout);
        return 0;
    }
    if (pr == CLI_VERSION) {
        printf("torusmodel (hpcc-ra) %s\n", HPCC_RA_VERSION);
        return 0;
    }
    tm_params p = cli.p;
    int json = cli.json, bucketed = cli.bucketed, simulate = cli.simulate;
    long bucket_p = cli.bucket_p;
    double sim_updates = cli.sim_updates, sim_latency = cli.sim_latency, header_bytes = cli.header_bytes;
    ropt_timed_config sim_defaults = cli.sim_defaults;
    long sim_outstanding = cli.sim_outstanding, sim_lookahead = cli.sim_lookahead;
    if (cli.write_params) {
        int wrc = write_params_file(&p, cli.write_params);
        if (wrc)
            return wrc;
    }
    if (!p.nshapes) {
        if (!bucket_p) {
            fprintf(stderr, "torusmodel: no shape: give --shape, --shapes, a --preset or --bucket-sim P\n");
            return 2;
        }
        double m = tm_bucket_sim((int)bucket_p, 1024, 200000, 1);
        if (m < 0) {
            fprintf(stderr, "torusmodel: out of memory for %ld buckets\n", bucket_p);
            return 3;
        }
        if (json)
            printf("{\"bucket_sim_p\": %ld, \"pending\": 1024, \"mean_bucket_size\": %.4f}\n", bucket_p, m);
        else
            printf("bucket_sim_p: %ld\npending: 1024\nmean_bucket_size: %.4f\n", bucket_p, m);
        return 0;
    }
    if (!(p.bytes_per_update > 0) || !(p.link_bw > 0)) {
        fprintf(stderr, "torusmodel: the network bound needs --bytes-per-update and --link-bw (or a preset/params)\n");
        return 2;
    }
    if (simulate && p.algorithm != TM_ROUTED) {
        fprintf(stderr, "torusmodel: --simulate runs the routed algorithm: add --algorithm routed\n");
        return 2;
    }
    if (!json) {
        printf("# torusmodel (hpcc-ra %s): algorithm %s, preset %s%s\n", HPCC_RA_VERSION,
               p.algorithm == TM_ROUTED ? "routed" : "direct", p.preset, bucketed ? ", bucketed" : "");
        printf("# clock_hz %g  t_local %g  t_send %g  t_recv %g  t_overhead %g  t_hop %g  b %g B  link_bw %g B/s"
               "  updates/message %g\n",
               p.clock_hz, p.t_local, p.t_send, p.t_recv, p.t_overhead, p.t_hop, p.bytes_per_update, p.link_bw,
               p.updates_per_message);
        printf("# t_exposed %g  t_wait_routed %g  t_wait_direct %g\n", p.t_exposed, p.t_wait_routed, p.t_wait_direct);
        printf("# ranks_per_node %g  cores_per_node %g  t_local_plain %g  t_test %g  node_gups ", p.ranks_per_node,
               p.cores_per_node, p.t_local_plain, p.t_test);
        if (!p.nnode)
            printf("none");
        for (int j = 0; j < p.nnode; j++) {
            if (p.node_ranks[j] > 0)
                printf("%s%.0f:%g", j ? "," : "", p.node_ranks[j], p.node_rate[j]);
            else
                printf("%g", p.node_rate[j]);
        }
        printf("  node_gups_plain ");
        if (!p.nplain)
            printf("none");
        for (int j = 0; j < p.nplain; j++) {
            if (p.plain_ranks[j] > 0)
                printf("%s%.0f:%g", j ? "," : "", p.plain_ranks[j], p.plain_rate[j]);
            else
                printf("%g", p.plain_rate[j]);
        }
        printf("\n");
        printf("# %8s  %-16s %8s %7s %11s %12s %12s %12s %12s  %-7s %12s", "N", "shape", "alpha/C", "hops",
               "cycles/upd", "cpu_gups", "net_gups", "mem_gups", "bound_gups", "binding", "pred_gups");
        if (bucketed)
            printf(" %9s", "bucket");
        if (simulate)
            printf(" %12s %8s %8s", "sim_gups", "sim_sbf", "link_use");
        printf("\n");
    } else {
        printf("{\"algorithm\": \"%s\", \"preset\": \"%s\", \"rows\": [", p.algorithm == TM_ROUTED ? "routed" : "direct",
               p.preset);
    }
    tm_row row;
    double bucket = -1;
    ropt_timed_result sr;
    memset(&sr, 0, sizeof sr);
    static ropt_timed_result sims[TM_MAX_SHAPES];
    for (int k = 0; k < p.nshapes; k++) {
        tm_params q = p;
        if (bucketed && p.algorithm == TM_DIRECT) {
            bucket = p.shapes[k].n > 1 ? tm_bucket_sim(p.shapes[k].n, 1024, 100000, 1) : 1;
            if (bucket < 0) {
                fprintf(stderr, "torusmodel: out of memory for the bucket simulation\n");
                return 3;
            }
            q.updates_per_message = bucket;
        }
        if (tm_evaluate(&q, &p.shapes[k], &row, err, sizeof err))
            goto bad;
        if (simulate) {
            /* the model's cycle figures in seconds; send slots and look-ahead
             * are ra_opt's defaults unless --sim-outstanding/--sim-lookahead */
            ropt_timed_config sc = sim_defaults;
            sc.outstanding = (int)sim_outstanding;
            sc.lookahead = (int)sim_lookahead;
            sc.link_gaps = cli.sim_link_gaps;
            sc.shape = p.shapes[k];
            /* auto: 2^22 updates in all, at least 4096 per rank: with
             * 1024 per rank (the pipeline's own size) the run is all
             * start and drain, its 10%-90% window no steady state */
            sc.updates_per_rank = sim_updates > 0 ? (long)sim_updates
                                  : (4194304L / p.shapes[k].n > SIM_MIN_PER_RANK ? 4194304L / p.shapes[k].n
                                                                                  : SIM_MIN_PER_RANK);
            sc.t_update_s = q.t_local / q.clock_hz;
            sc.t_hop_s = q.t_hop / q.clock_hz;
            sc.link_bw = q.link_bw;
            sc.latency_s = sim_latency;
            sc.header_bytes = header_bytes >= 0 ? header_bytes : q.packet_header_bytes > 0 ? q.packet_header_bytes : 32;
            sc.chunk_bytes = q.chunk_bytes;
            sc.packet_max_bytes = q.packet_max_bytes;
            sc.link_overhead_bytes = q.link_overhead_bytes;
            int rc = ropt_timed_run(&sc, &sr, err, sizeof err);
            if (rc == -2)
                goto bad;
            if (rc)
                goto bad_rc;
            sims[k] = sr;
        }
        char name[128];
        torus_shape_format(&p.shapes[k], name, sizeof name);
        if (json) {
            char f1[32], f2[32], f3[32];
            char f4[32], f5[32];
            printf("%s{\"nodes\": %d, \"shape\": \"%s\", \"alpha\": %.10g, \"hops\": %.6g, \"cycles_per_update\": %.6g, "
                   "\"cpu_bound_gups\": %s, \"network_bound_gups\": %s, \"memory_bound_gups\": %s, "
                   "\"bound_gups\": %s, \"binding\": \"%s\", \"predicted_gups\": %s, \"machine_nodes\": %.0f, "
                   "\"ranks_per_node\": %.6g, \"cores_used_per_node\": %.6g",
                   k ? ", " : "", row.n, name, row.alpha, row.hops, row.cycles_per_update,
                   fig(f1, sizeof f1, "%.6g", row.cpu_gups, "null"), fig(f2, sizeof f2, "%.6g", row.net_gups, "null"),
                   fig(f4, sizeof f4, "%.6g", row.mem_gups, "null"), fig(f3, sizeof f3, "%.6g", row.bound_gups, "null"),
                   row.binding, fig(f5, sizeof f5, "%.6g", row.predicted_gups, "null"), row.nodes, row.ranks_node,
                   row.cores_used);
            if (bucketed)
                printf(", \"mean_bucket_size\": %.4f", bucket);
            if (simulate)
                printf(", \"sim_gups\": %.6g, \"sim_gups_total\": %.6g, \"sim_window_frac\": %.6g, \"sim_sbf\": %.6g, "
                       "\"sim_link_utilisation\": %.6g, \"sim_bytes_per_update\": %.6g, \"sim_bytes_per_update_total\": %.6g, "
                       "\"sim_fingerprint\": \"%016llx\", \"sim_exact\": %s",
                       sr.gups, sr.gups_total, sr.window_frac, sr.sbf, sr.link_util, sr.bytes_per_update,
                       sr.bytes_per_update_total,
                       (unsigned long long)sr.fingerprint,
                       sr.exact ? "true" : "false");
            if (simulate) {
                printf(", \"sim_dim_util_mean\": [");
                for (int d = 0; d < sr.ndims; d++)
                    printf("%s%.4f", d ? ", " : "", sr.dim_util_mean[d]);
                printf("], \"sim_dim_util_max\": [");
                for (int d = 0; d < sr.ndims; d++)
                    printf("%s%.4f", d ? ", " : "", sr.dim_util_max[d]);
                char hot[160];
                hot_link(&sr, hot, sizeof hot);
                printf("], \"sim_hottest_link\": \"%s\", \"sim_hottest_util\": %.4f, \"sim_blocked_frac\": %.4f, "
                       "\"sim_waiting_frac\": %.4f, \"sim_mean_fill\": %.4f, \"sim_fill_quartiles\": [%.4f, %.4f, %.4f, %.4f]",
                       hot, sr.hot_util, sr.blocked_frac, sr.waiting_frac, sr.mean_fill, sr.fill_frac[0], sr.fill_frac[1],
                       sr.fill_frac[2], sr.fill_frac[3]);
            }
            printf("}");
        } else {
            char f1[32], f2[32], f3[32], f4[32], f5[32];
            printf("  %8d  %-16s %8.4f %7.4f %11.1f %12s %12s %12s %12s  %-7s %12s", row.n, name, row.alpha, row.hops,
                   row.cycles_per_update, fig(f1, sizeof f1, "%.4f", row.cpu_gups, "unbounded"),
                   fig(f2, sizeof f2, "%.4f", row.net_gups, "unbounded"),
                   fig(f4, sizeof f4, "%.4f", row.mem_gups, "unbounded"),
                   fig(f3, sizeof f3, "%.4f", row.bound_gups, "unbounded"), row.binding,
                   fig(f5, sizeof f5, "%.4f", row.predicted_gups, "unbounded"));
            if (bucketed)
                printf(" %9.3f", bucket);
            if (simulate)
                printf(" %12.4f %8.4f %8.4f", sr.gups, sr.sbf, sr.link_util);
            printf("\n");
        }
    }
    if (!json && simulate && p.nshapes > 1) {
        printf("# where the time goes (--simulate), over the steady window sim_gups is measured on (10%%-90%% of\n"
               "# the CPU work; sim_sbf and link_use too): link use = busy / window per dimension, mean/max over\n"
               "# its links; the busiest link (from coordinates, dimension, way); rank time idle with a send slot\n"
               "# refused (blocked) or with nothing to do (waiting); packets by fill, words / cap; window = its\n"
               "# share of the makespan\n");
        printf("# %8s  %-16s %-32s %-26s %7s %7s %5s %5s  %-27s %6s\n", "N", "shape", "link use x,y,z: mean/max",
               "busiest link", "blocked", "waiting", "cap", "fill", "fill <=1/4 <=1/2 <=3/4 <=1", "window");
        for (int k = 0; k < p.nshapes; k++)
            time_row(&p.shapes[k], &sims[k]);
    }
    if (json) {
        printf("]");
        if (bucket_p)
            printf(", \"bucket_sim_p\": %ld, \"mean_bucket_size\": %.4f", bucket_p,
                   tm_bucket_sim((int)bucket_p, 1024, 200000, 1));
        printf("}\n");
    } else {
        if (p.nshapes == 1) {
            char name[128];
            torus_shape_format(&p.shapes[0], name, sizeof name);
            char f1[32], f2[32], f3[32], f4[32], f5[32], f6[32];
            printf("nodes: %d\nshape: %s\nalpha: %.10g\nhops_per_update: %.6g\ncycles_per_update: %.6g\n"
                   "machine_nodes: %.0f\nranks_per_node: %.6g\ncores_used_per_node: %.6g\nnode_gups: %s\n"
                   "cpu_bound_gups: %s\nnetwork_bound_gups: %s\nmemory_bound_gups: %s\nbound_gups: %s\nbinding: %s\n"
                   "predicted_gups: %s\n",
                   row.n, name, row.alpha, row.hops, row.cycles_per_update, row.nodes, row.ranks_node,
                   row.cores_used, row.node_gups > 0 ? fig(f5, sizeof f5, "%.6g", row.node_gups, "none") : "none",
                   fig(f1, sizeof f1, "%.6g", row.cpu_gups, "unbounded"),
                   fig(f2, sizeof f2, "%.6g", row.net_gups, "unbounded"),
                   fig(f4, sizeof f4, "%.6g", row.mem_gups, "unbounded"),
                   fig(f3, sizeof f3, "%.6g", row.bound_gups, "unbounded"), row.binding,
                   fig(f6, sizeof f6, "%.6g", row.predicted_gups, "unbounded"));
            if (bucketed)
                printf("mean_bucket_size: %.4f\n", bucket);
            if (simulate)
                printf("sim_gups: %.6g\nsim_gups_total: %.6g\nsim_time_s: %.6g\nsim_window_frac: %.6g\nsim_sbf: %.6g\n"
                       "sim_link_utilisation: %.6g\nsim_bytes_per_update: %.6g\nsim_bytes_per_update_total: %.6g\n"
                       "sim_updates: %llu\nsim_fingerprint: %016llx\nsim_exact: %s\n",
                       sr.gups, sr.gups_total, sr.time_s, sr.window_frac, sr.sbf, sr.link_util, sr.bytes_per_update,
                       sr.bytes_per_update_total,
                       (unsigned long long)sr.updates,
                       (unsigned long long)sr.fingerprint, sr.exact ? "yes" : "no");
            if (simulate) {
                printf("sim_dim_util_mean:");
                for (int d = 0; d < sr.ndims; d++)
                    printf("%s%.4f", d ? "," : " ", sr.dim_util_mean[d]);
                printf("\nsim_dim_util_max:");
                for (int d = 0; d < sr.ndims; d++)
                    printf("%s%.4f", d ? "," : " ", sr.dim_util_max[d]);
                char hot[160];
                hot_link(&sr, hot, sizeof hot);
                printf("\nsim_hottest_link: %s\nsim_hottest_util: %.4f\nsim_blocked_frac: %.4f\nsim_waiting_frac: %.4f\n"
                       "sim_cap: %d\nsim_mean_fill: %.4f\nsim_fill_quartiles: %.4f,%.4f,%.4f,%.4f\n",
                       hot, sr.hot_util, sr.blocked_frac, sr.waiting_frac, sr.cap, sr.mean_fill, sr.fill_frac[0],
                       sr.fill_frac[1], sr.fill_frac[2], sr.fill_frac[3]);
            }
        }
        if (bucket_p) {
            printf("bucket_sim_p: %ld\n", bucket_p);
            printf("mean_bucket_size: %.4f\n", tm_bucket_sim((int)bucket_p, 1024, 200000, 1));
        }
    }
    return 0;
bad:
    fprintf(stderr, "torusmodel: %s\n", err);
    return 2;
bad_rc:
    fprintf(stderr, "torusmodel: %s\n", err);
    return 3;
}
