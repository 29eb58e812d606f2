/*
 * torusmodel.c - bin/torusmodel: paper 002's CPU and network bottlenecks
 * for one shape or a list (Tables 3, 5 and 7), the baseline's mean bucket
 * size (Table 6), and --simulate: the real routed algorithm run over the
 * timed transport with link and CPU costs (through optimized/'s one narrow
 * entry, ropt_timed.h).
 *
 * Order of a run: options (the kit's option spec, kit_opt.h) -> every
 * input checked (a shape, the network parameters, --simulate's shapes,
 * every row evaluated, --write-params' folder) -> the simulations -> the
 * params file -> the output.  A refused run prints and writes nothing.
 */
#include "torusmodel.h"
#include "ropt_timed.h"
#include "kit_cli.h"
#include "kit_io.h"
#include "kit_opt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

/* --simulate's least updates per rank (see --sim-updates) */
#define SIM_MIN_PER_RANK 4096L

enum { OPT_PRESET = 256, OPT_PARAMS, OPT_JSON, OPT_BUCKETED, OPT_SIMULATE, OPT_BUCKET_SIM, OPT_SIM_UPDATES,
       OPT_SIM_LATENCY, OPT_SIM_OUTSTANDING, OPT_SIM_BUDGET, OPT_SIM_LOOKAHEAD, OPT_SIM_LINKS, OPT_HEADER_BYTES, OPT_WRITE_PARAMS,
       OPT_DRY_RUN, OPT_HELP, OPT_VERSION, OPT_NODE, OPT_SCALE_TERM, OPT_SCALE_NODES, OPT_HOP_COST, OPT_PACKET_COST, OPT_POLL_COST, OPT_PEER_COST,
       OPT_RA_OPT_NODE, OPT_NODE_HOPS, OPT_FILE, OPT_FORMAT, OPT_NODE_FROM, OPT_RECORDS, OPT_PARAM };

#define STR_(x) #x
#define STR(x) STR_(x)

static const kit_opt fixed_head[] = {
    {.type = KIT_OPT_HEADING, .help = "Parameters, applied left to right (later ones win):"},
    {.name = "preset", .type = KIT_OPT_TEXT, .id = OPT_PRESET, .meta = "NAME", .defval = "none",
     .help = "bgl-mpi (Tables 1, 3), bgl-raw (Tables 4, 5), bgl-routed (Table 7); bgp, bgq, tofu (K computer), "
             "tofu-d (Fugaku), p775 (IBM Power 775), xt3 (Cray XT3 Red Storm), perlmutter-cpu (dragonfly), "
             "hdr-fattree (docs/machines.md; each prints its sources)"},
    {.name = "params", .type = KIT_OPT_FILE_IN, .id = OPT_PARAMS, .meta = "FILE", .defval = "none",
     .help = "'key = value' lines, '#' comments (bin/ra_calibrate writes one; --probe: the node model's keys)"},
    {.name = "node-from", .type = KIT_OPT_FILE_IN, .id = OPT_NODE_FROM, .meta = "XML", .defval = "none",
     .help = "a node's facts from hwloc (lstopo --of xml > node.xml): cores (one rank a core) and the cache line "
             "for the node model, packages, NUMA nodes, memory and caches printed, each from the file; before "
             "--node, it need not repeat cores"},
    {.name = "node", .type = KIT_OPT_TEXT, .id = OPT_NODE, .meta = "K=V,...", .defval = "none",
     .help = "a node from its spec sheet (procurement): clock_ghz, cores, mem_latency_ns required; ranks, mlp, "
             "mem_bw_gbs or channels+channel_gbs, line, issue_width, in_order, instr_local, instr_hop, instr_test, "
             "mpi_latency_us, inj_gbs, msg_rate_m, link_gbs (required for several nodes), bytes_per_update, "
             "threads (docs/machines.md); prints both algorithms and a sensitivity line"},
    {.name = "file", .type = KIT_OPT_FILE_IN, .id = OPT_FILE, .meta = "FILE", .defval = "none",
     .help = "the physical network from a real fabric's file: an ibnetdiscover dump, Slurm's topology.conf or "
             "topology.yaml, or a graph file (sparsest_cut --file's formats; docs/model.md); its hosts carry the "
             "ranks, its alpha (exact, or bounded past enumeration) the network bound; shape auto:ranks_per_node x "
             "hosts unless --shape gives one"},
    {.name = "format", .type = KIT_OPT_CHOICE, .id = OPT_FORMAT, .meta = "F", .defval = "from the content",
     .help = "edgelist | metis | ibnetdiscover | slurm | slurm-yaml: the format of --file",
     .choices = "edgelist|metis|ibnetdiscover|slurm|slurm-yaml",
     .allowed = "edgelist, metis, ibnetdiscover, slurm or slurm-yaml"},
};
static const kit_opt fixed_tail[] = {
    {.type = KIT_OPT_HEADING, .help = "Models:"},
    {.name = "bucketed", .type = KIT_OPT_FLAG, .id = OPT_BUCKETED, .defval = "off",
     .help = "direct: m = the simulated mean bucket size at each N"},
    {.name = "bucket-sim", .type = KIT_OPT_DOUBLE, .id = OPT_BUCKET_SIM, .meta = "P", .defval = "off",
     .help = "the baseline's mean bucket size at P processes, Table 6", .lo = 2, .hi = 1 << 24,
     .allowed = "a whole number in 2..16777216"},
    {.name = "simulate", .type = KIT_OPT_FLAG, .id = OPT_SIMULATE, .defval = "off",
     .help = "run the routed algorithm over the simulated transport with link and CPU costs, shapes up to "
             "64x32x32 (--algorithm routed)"},
    {.name = "sim-updates", .type = KIT_OPT_DOUBLE, .id = OPT_SIM_UPDATES, .meta = "U",
     .defval = "2^22 / N, at least 4096",
     .help = "updates per virtual rank in --simulate: every machine runs long enough to reach its steady rate, "
             "each rank's pipeline of 1024 pending updates filled and drained several times over; 64x32x32 takes "
             "~10 min",
     .lo = 1, .hi = 1e12, .allowed = "a number of updates per rank in 1..1e12"},
    {.name = "sim-latency", .type = KIT_OPT_DOUBLE, .id = OPT_SIM_LATENCY, .meta = "S", .defval = "1e-7",
     .help = "per-link latency in seconds", .lo = 0, .hi = 1e3, .allowed = "seconds in 0..1000"},
    {.name = "sim-outstanding", .type = KIT_OPT_LONG, .id = OPT_SIM_OUTSTANDING, .meta = "S",
     .defval = "4: BlueGene/L's model; ra_opt over MPI uses 1", .help = "send slots per dimension in --simulate",
     .lo = 1, .hi = ROPT_TIMED_MAX_OUTSTANDING},
    {.name = "sim-budget", .type = KIT_OPT_LONG, .id = OPT_SIM_BUDGET, .meta = "B", .defval = "1024 (HPCC's rule)",
     .help = "updates a virtual rank may hold in --simulate: a smaller machine with the packets of a larger one "
             "(--scale-term reduced sets it itself)",
     .lo = 2, .hi = 1024},
    {.name = "sim-lookahead", .type = KIT_OPT_CHOICE, .id = OPT_SIM_LOOKAHEAD, .meta = "L",
     .defval = "0: no memory model, so no pipeline",
     .help = "apply pipeline depth in --simulate, 0 or a power of two 2.." STR(ROPT_TIMED_MAX_LOOKAHEAD) " (ra_opt's "
             "--lookahead; a batch of 32, counted twice, beside it)",
     .choices = "0|2|4|8|16|32|64|128|256|512", .allowed = "0 or a power of two 2..512"},
    {.name = "sim-links", .type = KIT_OPT_CHOICE, .id = OPT_SIM_LINKS, .meta = "M", .defval = "free-at",
     .help = "free-at: a packet starts when its whole path is free after every earlier booking; gaps: in the "
             "earliest window its whole path is idle, gaps before earlier bookings included",
     .choices = "free-at|gaps", .allowed = "free-at or gaps"},
    {.name = "hop-cost", .type = KIT_OPT_DOUBLE, .id = OPT_HOP_COST, .meta = "H", .defval = "t_hop / t_local",
     .help = "CPU time per update routed at a hop in --simulate, in units of t_local (tests/bench_node.sh's "
             "measured crossing cost h)",
     .lo = 0, .hi = 1e6, .allowed = "a multiple of t_local in 0..1e6"},
    {.name = "packet-cost", .type = KIT_OPT_DOUBLE, .id = OPT_PACKET_COST, .meta = "S", .defval = "0",
     .help = "CPU time per packet sent in --simulate (sender and receiver together, charged to the sender), in "
             "units of t_local",
     .lo = 0, .hi = 1e9, .allowed = "a multiple of t_local in 0..1e9"},
    {.name = "poll-cost", .type = KIT_OPT_DOUBLE, .id = OPT_POLL_COST, .meta = "P", .defval = "0",
     .help = "CPU time per ask for a packet that finds none, on a step that moved something, in --simulate, in "
             "units of t_local (ra_calibrate --hop's poll_empty_updates)",
     .lo = 0, .hi = 1e6, .allowed = "a multiple of t_local in 0..1e6"},
    {.name = "peer-cost", .type = KIT_OPT_DOUBLE, .id = OPT_PEER_COST, .meta = "Q", .defval = "0",
     .help = "CPU time per peer ring a receiver looks through per packet taken ((k - 1) / 2 rings along a "
             "dimension of k: a scan of one ring per peer), in --simulate, in units of t_local; 0: the inbox "
             "(ra_calibrate --hop's poll_peer_updates, scan and inbox)",
     .lo = 0, .hi = 1e6, .allowed = "a multiple of t_local in 0..1e6"},
    {.name = "ra-opt-node", .type = KIT_OPT_TEXT, .id = OPT_RA_OPT_NODE, .meta = "R,...", .defval = "none",
     .help = "--simulate one node of each R ranks as ra_opt runs it: the shape its --dims auto picks there (one "
             "hop or two by its model at --hop-cost and --packet-cost, else at ra_opt's default prices) and its "
             ROPT_TIMED_RA_OPT_SETTINGS "; replaces --shape(s), implies --simulate --algorithm routed",
     .allowed = "comma-separated ranks per node, each 1..65536"},
    {.name = "node-hops", .type = KIT_OPT_CHOICE, .id = OPT_NODE_HOPS, .meta = "H", .defval = "auto",
     .help = "--ra-opt-node: route the node in 1 hop, 2, or as ra_opt's model picks (auto)",
     .choices = "auto|1|2", .allowed = "auto, 1 or 2"},
    {.name = "header-bytes", .type = KIT_OPT_DOUBLE, .id = OPT_HEADER_BYTES, .meta = "H",
     .defval = "the packet_header_bytes parameter when set, else 32",
     .help = "bytes per packet on the wire beyond 8 per update", .lo = 0, .hi = 1e9,
     .allowed = "a number of bytes >= 0"},
    {.name = "scale-term", .type = KIT_OPT_CHOICE, .id = OPT_SCALE_TERM, .meta = "M", .defval = "auto",
     .help = "the timed simulator's efficiency in the prediction (routed, tori): auto (none up to 512 nodes, "
             "else full or reduced), full, reduced, none (torusmodel/scale.c)",
     .choices = "auto|none|full|reduced", .allowed = "auto, none, full or reduced"},
    {.name = "scale-nodes", .type = KIT_OPT_LONG, .id = OPT_SCALE_NODES, .meta = "N", .defval = "4096",
     .help = "the largest machine the scale term simulates in full; above it a reduced one of at most N nodes",
     .lo = 16, .hi = 65536},
    {.name = "records", .type = KIT_OPT_FLAG, .id = OPT_RECORDS, .defval = "off",
     .help = "the published HPCC RandomAccess records at their runs' sizes, ra_opt and the baseline predicted "
             "from the presets: docs/machines.md's table (alone, or with --scale-nodes, default " STR(
                 TM_RECORDS_SCALE_NODES) " here)"},
    {.type = KIT_OPT_HEADING, .help = "Output:"},
    {.name = "json", .type = KIT_OPT_FLAG, .id = OPT_JSON, .defval = "off, a table or key block",
     .help = "one JSON object"},
    {.name = "write-params", .type = KIT_OPT_FILE_OUT, .id = OPT_WRITE_PARAMS, .meta = "FILE", .defval = "none",
     .help = "write the effective parameters as a params file (after every input is checked)"},
    {.name = "dry-run", .type = KIT_OPT_FLAG, .id = OPT_DRY_RUN, .defval = "off",
     .help = "check every option, input file and shape, then exit 0 without computing, printing or writing"},
    {.name = "help", .type = KIT_OPT_FLAG, .id = OPT_HELP, .short_name = 'h', .help = "this help"},
    {.name = "version", .type = KIT_OPT_FLAG, .id = OPT_VERSION, .help = "the version"},
};

/* The option spec: the fixed options around every model parameter as
 * --key with dashes (and, hidden, with underscores, as older scripts
 * wrote it); built once. */
static const kit_opt *spec(void)
{
    enum { NH = sizeof fixed_head / sizeof *fixed_head, NT = sizeof fixed_tail / sizeof *fixed_tail, NP = 64 };
    static kit_opt all[NH + 2 * NP + NT + 1];
    static char names[NP][32], defs[NP][96];
    static int built;
    if (built)
        return all;
    int n = 0;
    for (int i = 0; i < NH; i++)
        all[n++] = fixed_head[i];
    for (int i = 0, m = 0; tm_param_name(i) && m < NP; i++, m++) {
        const char *k = tm_param_name(i);
        const char *help = tm_param_help(i, defs[m], sizeof defs[m]);
        snprintf(names[m], sizeof names[m], "%s", k);
        for (char *c = names[m]; *c; c++)
            if (*c == '_')
                *c = '-';
        /* an id of its own per parameter: getopt_long would take a prefix
         * shared by entries of one code (--t) as unambiguous */
        all[n++] = (kit_opt){.name = names[m], .type = KIT_OPT_TEXT, .id = OPT_PARAM + i, .meta = "X",
                               .defval = defs[m], .help = help};
        if (strchr(k, '_'))
            all[n++] = (kit_opt){.name = k, .type = KIT_OPT_TEXT, .id = OPT_PARAM + i, .hidden = 1};
    }
    for (int i = 0; i < NT; i++)
        all[n++] = fixed_tail[i];
    all[n] = (kit_opt){0};
    built = 1;
    return all;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: torusmodel [options]\n"
               "CPU, network and node-memory bounds on RandomAccess GUPS (paper 002 eq. 1, eq. 2,\n"
               "sec. 6.2) and a predicted GUPS; the smallest bound is the binding one.\n"
               "Options take their value as --opt VALUE or --opt=VALUE, may be shortened to a unique prefix,\n"
               "and '--' ends them.\n");
    kit_opt_help(f, spec());
    fprintf(f, "exit: 0 ok, 2 bad input, 3 out of memory or an output that cannot be written\n");
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
    int json, bucketed, simulate, dry_run, node;
    int records, others; /* --records; options other than --records and --scale-nodes */
    long bucket_p;
    double sim_updates, sim_latency, header_bytes;
    ropt_timed_config sim_defaults; /* the simulator's send slots (BlueGene/L: 4) and ra_opt's look-ahead */
    long sim_outstanding, sim_lookahead, sim_budget;
    int sim_link_gaps;
    int sim_outstanding_set, sim_lookahead_set;
    double hop_cost, packet_cost; /* in t_local; hop_cost < 0: t_hop */
    double poll_cost, peer_cost;  /* in t_local */
    const char *ra_opt_node;      /* --ra-opt-node's list, or NULL */
    int node_hops;                /* 0 = the model, 1 or 2 */
    int node_hops_of[TM_MAX_SHAPES];
    const char *write_params;
    const char *file, *format; /* --file and its --format */
    int shape_given;           /* --shape or --shapes on the command line */
} tm_cli;

enum { CLI_GO = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_BAD = -2 };

/* One option into c (kit_opt_fn). */
static int take(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
    tm_cli *c = ctx;
    if (o->id != OPT_RECORDS && o->id != OPT_SCALE_NODES && o->id != OPT_DRY_RUN)
        c->others++;
    if (o->id >= OPT_PARAM) {
        c->shape_given |= !strncmp(o->name, "shape", 5);
        char name[64];
        snprintf(name, sizeof name, "--%s", o->name);
        return tm_param_set(&c->p, name, v->s, err, errlen) ? -1 : 0;
    }
    switch (o->id) {
    case OPT_HELP:
        return CLI_HELP;
    case OPT_VERSION:
        return CLI_VERSION;
    case OPT_PRESET:
        return tm_preset(&c->p, v->s, err, errlen) ? -1 : 0;
    case OPT_PARAMS:
        return tm_params_file(&c->p, v->s, err, errlen) ? -1 : 0;
    case OPT_NODE:
        c->node = 1;
        return tm_node_spec(&c->p, v->s, err, errlen) ? -1 : 0;
    case OPT_SCALE_TERM:
        c->p.scale_term = (int)v->l; /* the choices' order is TM_SCALE_* */
        break;
    case OPT_SCALE_NODES:
        c->p.scale_nodes = (int)v->l;
        break;
    case OPT_RECORDS:
        c->records = 1;
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
    case OPT_DRY_RUN:
        c->dry_run = 1;
        break;
    case OPT_BUCKET_SIM:
        if (v->d != floor(v->d)) {
            kit_cli_bad_value(err, errlen, o->name, v->s, o->allowed);
            return -1;
        }
        c->bucket_p = (long)v->d;
        break;
    case OPT_SIM_UPDATES:
        c->sim_updates = v->d;
        break;
    case OPT_SIM_LATENCY:
        c->sim_latency = v->d;
        break;
    case OPT_SIM_OUTSTANDING:
        c->sim_outstanding = v->l, c->sim_outstanding_set = 1;
        break;
    case OPT_HOP_COST:
        c->hop_cost = v->d;
        break;
    case OPT_PACKET_COST:
        c->packet_cost = v->d;
        break;
    case OPT_POLL_COST:
        c->poll_cost = v->d;
        break;
    case OPT_PEER_COST:
        c->peer_cost = v->d;
        break;
    case OPT_RA_OPT_NODE:
        c->ra_opt_node = v->s;
        break;
    case OPT_FILE:
        c->file = v->s;
        break;
    case OPT_NODE_FROM: {
        tm_hw hw;
        if (tm_hwloc_read(v->s, &hw, err, errlen))
            return -1;
        tm_hw_apply(&c->p, &hw);
        break;
    }
    case OPT_FORMAT:
        c->format = v->s;
        break;
    case OPT_NODE_HOPS:
        c->node_hops = (int)v->l; /* the choices' order: auto, 1, 2 */
        break;
    case OPT_SIM_BUDGET:
        c->sim_budget = v->l;
        break;
    case OPT_SIM_LOOKAHEAD:
        c->sim_lookahead = strtol(v->s, NULL, 10), c->sim_lookahead_set = 1; /* the choice's word is the depth */
        break;
    case OPT_SIM_LINKS:
        c->sim_link_gaps = v->l == 1;
        break;
    case OPT_HEADER_BYTES:
        c->header_bytes = v->d;
        break;
    case OPT_WRITE_PARAMS:
        c->write_params = v->s;
        break;
    }
    return 0;
}

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
    c->hop_cost = -1;
    int rc = kit_opt_parse(spec(), argc, argv, 0, take, c, NULL, err, errlen);
    if (rc == CLI_GO && c->ra_opt_node) {
        /* the node's shapes at the prices given (any order on the line) */
        if (tm_ra_opt_nodes(&c->p, c->ra_opt_node, c->node_hops, c->hop_cost, c->packet_cost, c->node_hops_of, err,
                            errlen))
            return CLI_BAD;
        c->simulate = 1;
        c->p.algorithm = TM_ROUTED;
        ropt_timed_ra_opt_defaults(&c->sim_defaults);
        if (!c->sim_outstanding_set)
            c->sim_outstanding = c->sim_defaults.outstanding;
        if (!c->sim_lookahead_set)
            c->sim_lookahead = c->sim_defaults.lookahead;
    } else if (rc == CLI_GO && c->records && c->others) {
        /* its machines are the presets': no other option would be used */
        snprintf(err, errlen, "--records: allowed alone or with --scale-nodes and --dry-run");
        return CLI_BAD;
    } else if (rc == CLI_GO && c->node_hops) {
        snprintf(err, errlen, "--node-hops: allowed with --ra-opt-node only");
        return CLI_BAD;
    }
    return rc < 0 ? CLI_BAD : rc;
}

/* What a run computes before it prints: a row per shape, and per shape
 * the mean bucket (--bucketed) and the simulation (--simulate). */
typedef struct tm_run {
    tm_row rows[TM_MAX_SHAPES];
    tm_row base[TM_MAX_SHAPES];    /* --node: the baseline (direct, its mean bucket) beside ra_opt */
    char sens[TM_MAX_SHAPES][400]; /* node model: the sensitivity line */
    double bucket[TM_MAX_SHAPES];
    ropt_timed_config sim[TM_MAX_SHAPES];
    ropt_timed_result sims[TM_MAX_SHAPES];
    double bucket_sim; /* --bucket-sim's mean bucket, -1 none */
    tm_fabric fabric;  /* --file's fabric */
} tm_run;

/* Every input checked, every row evaluated, every simulation's input
 * accepted: 0, or the exit code with one line in err.  Nothing is printed
 * or written here. */
static int check_all(const tm_cli *c, tm_run *run, char *err, size_t errlen)
{
    const tm_params *p = &c->p;
    if (!p->nshapes) {
        if (!c->bucket_p) {
            snprintf(err, errlen, "no shape: give --shape, --shapes, a --preset or --bucket-sim P");
            return KIT_EXIT_USAGE;
        }
        return KIT_EXIT_OK;
    }
    if (c->bucketed && p->algorithm != TM_DIRECT) {
        /* the baseline's mean bucket: a routed row has none to print */
        snprintf(err, errlen, "--bucketed: the direct algorithm's mean bucket: add --algorithm direct (or a direct "
                              "preset such as bgl-mpi)");
        return KIT_EXIT_USAGE;
    }
    if (c->simulate && p->algorithm != TM_ROUTED) {
        snprintf(err, errlen, "--simulate runs the routed algorithm: add --algorithm routed");
        return KIT_EXIT_USAGE;
    }
    for (int k = 0; k < p->nshapes; k++) {
        tm_params q = *p;
        run->bucket[k] = -1;
        if (tm_evaluate(&q, &p->shapes[k], &run->rows[k], err, errlen))
            return KIT_EXIT_USAGE;
        const tm_row *r = &run->rows[k];
        /* the links matter only where a shape spans nodes (--help: link_gbs) */
        if ((!(p->bytes_per_update > 0) || !(p->link_bw > 0)) && r->nodes > 1) {
            char name[128];
            torus_shape_format(&p->shapes[k], name, sizeof name);
            snprintf(err, errlen, "shape %s spans %.0f nodes: the network bound needs --bytes-per-update and "
                                  "--link-bw (or a preset, params or --node link_gbs)", name, r->nodes);
            return KIT_EXIT_USAGE;
        }
        /* +inf is a bound that nothing limits (no cost given: printed
         * "unbounded"); NaN is a figure the inputs leave undefined */
        if (isnan(r->cpu_gups) || isnan(r->net_gups) || isnan(r->mem_gups) || isnan(r->bound_gups) ||
            isnan(r->predicted_gups) || !isfinite(r->cycles_per_update) || !isfinite(r->alpha)) {
            char name[128];
            torus_shape_format(&p->shapes[k], name, sizeof name);
            snprintf(err, errlen, "shape %s: these parameters leave a bound undefined (not a number): allowed "
                                  "finite costs and rates", name);
            return KIT_EXIT_USAGE;
        }
        if (!c->simulate)
            continue;
        /* the model's cycle figures in seconds; send slots and look-ahead
         * are ra_opt's defaults unless --sim-outstanding/--sim-lookahead */
        ropt_timed_config *sc = &run->sim[k];
        *sc = c->sim_defaults;
        sc->outstanding = (int)c->sim_outstanding;
        sc->lookahead = (int)c->sim_lookahead;
        sc->link_gaps = c->sim_link_gaps;
        sc->budget = (int)c->sim_budget;
        sc->shape = p->shapes[k];
        /* auto: 2^22 updates in all, at least 4096 per rank: with 1024 per
         * rank (the pipeline's own size) the run is all start and drain,
         * its 10%-90% window no steady state */
        int n = p->shapes[k].n;
        sc->updates_per_rank = c->sim_updates > 0 ? (long)c->sim_updates
                                                  : (4194304L / n > SIM_MIN_PER_RANK ? 4194304L / n : SIM_MIN_PER_RANK);
        sc->t_update_s = q.t_local / q.clock_hz;
        sc->t_hop_s = c->hop_cost >= 0 ? c->hop_cost * sc->t_update_s : q.t_hop / q.clock_hz;
        sc->t_packet_s = c->packet_cost * sc->t_update_s;
        sc->t_poll_s = c->poll_cost * sc->t_update_s;
        sc->t_peer_s = c->peer_cost * sc->t_update_s;
        sc->link_bw = q.link_bw;
        sc->latency_s = c->sim_latency;
        sc->header_bytes = c->header_bytes >= 0 ? c->header_bytes : q.packet_header_bytes > 0 ? q.packet_header_bytes : 32;
        sc->chunk_bytes = q.chunk_bytes;
        sc->packet_max_bytes = q.packet_max_bytes;
        sc->link_overhead_bytes = q.link_overhead_bytes;
        if (ropt_timed_check(sc, err, errlen))
            return KIT_EXIT_USAGE;
    }
    return KIT_EXIT_OK;
}

/* Shape k's scale term (scale.c), its sensitivity line, and under --node
 * HPCC's baseline on the same machine: 0, or -2 (bad input) or -3 (out of
 * memory) with a line in err. */
static int compute_node(const tm_cli *c, const tm_params *p, tm_run *run, int k, char *err, size_t errlen)
{
    int rc = tm_scale(p, &p->shapes[k], &run->rows[k], err, errlen);
    if (rc)
        return rc;
    if (tm_node_given(p))
        tm_sensitivity(p, &p->shapes[k], &run->rows[k], run->sens[k], sizeof run->sens[k]);
    if ((c->node || c->file) && p->algorithm == TM_ROUTED) {
        tm_params q = *p;
        q.algorithm = TM_DIRECT;
        int n = p->shapes[k].n;
        q.updates_per_message = n > 1 ? tm_bucket_sim(n < 65536 ? n : 65536, 1024, 20000, 1) : 1;
        if (tm_evaluate(&q, &p->shapes[k], &run->base[k], err, errlen))
            return -2;
        run->base[k].first_order_gups = run->base[k].predicted_gups;
    }
    return 0;
}

/* The work: bucket simulations and --simulate.  0, or the exit code. */
static int compute(const tm_cli *c, tm_run *run, char *err, size_t errlen)
{
    const tm_params *p = &c->p;
    run->bucket_sim = -1;
    if (c->bucket_p) {
        run->bucket_sim = tm_bucket_sim((int)c->bucket_p, 1024, 200000, 1);
        if (run->bucket_sim < 0) {
            snprintf(err, errlen, "out of memory for %ld buckets", c->bucket_p);
            return KIT_EXIT_RESOURCE;
        }
    }
    for (int k = 0; k < p->nshapes; k++) {
        /* the parameters row k is computed with: its sensitivity varies these */
        tm_params q = *p;
        if (c->bucketed && p->algorithm == TM_DIRECT) {
            double b = p->shapes[k].n > 1 ? tm_bucket_sim(p->shapes[k].n, 1024, 100000, 1) : 1;
            if (b < 0) {
                snprintf(err, errlen, "out of memory for the bucket simulation");
                return KIT_EXIT_RESOURCE;
            }
            /* the row again with m = the mean bucket */
            q.updates_per_message = b;
            run->bucket[k] = b;
            if (tm_evaluate(&q, &p->shapes[k], &run->rows[k], err, errlen))
                return KIT_EXIT_USAGE;
        }
        if (c->simulate) {
            int rc = ropt_timed_run(&run->sim[k], &run->sims[k], err, errlen);
            if (rc)
                return rc == -2 ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
        }
        int rc = compute_node(c, &q, run, k, err, errlen);
        if (rc)
            return rc == -3 ? KIT_EXIT_RESOURCE : KIT_EXIT_USAGE;
    }
    return KIT_EXIT_OK;
}

/* --write-params: the effective parameters, replaced atomically; 0 or 3. */
static int write_params_file(const tm_params *p, const char *path, char *err, size_t errlen)
{
    char e2[400];
    kit_outfile o;
    if (kit_outfile_open(&o, path, 0, e2, sizeof e2)) {
        snprintf(err, errlen, "--write-params: %s", e2);
        return KIT_EXIT_RESOURCE;
    }
    tm_params_write(p, o.f);
    if (kit_outfile_commit(&o, e2, sizeof e2)) {
        snprintf(err, errlen, "--write-params: %s", e2);
        return KIT_EXIT_RESOURCE;
    }
    return KIT_EXIT_OK;
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

/* The table's preamble: the parameters every row is computed from. */
static void print_header(const tm_cli *c)
{
    const tm_params *p = &c->p;
    printf("# torusmodel (hpcc-ra %s): algorithm %s, preset %s%s\n", HPCC_RA_VERSION,
           p->algorithm == TM_ROUTED ? "routed" : "direct", p->preset, c->bucketed ? ", bucketed" : "");
    printf("# clock_hz %g  t_local %g  t_send %g  t_recv %g  t_overhead %g  t_hop %g  b %g B  link_bw %g B/s"
           "  updates/message %g\n",
           p->clock_hz, p->t_local, p->t_send, p->t_recv, p->t_overhead, p->t_hop, p->bytes_per_update, p->link_bw,
           p->updates_per_message);
    printf("# t_exposed %g  t_wait_routed %g  t_wait_direct %g\n", p->t_exposed, p->t_wait_routed, p->t_wait_direct);
    printf("# ranks_per_node %g  cores_per_node %g  t_local_plain %g  t_test %g  node_gups ", p->ranks_per_node,
           p->cores_per_node, p->t_local_plain, p->t_test);
    if (!p->nnode)
        printf("none");
    for (int j = 0; j < p->nnode; j++) {
        if (p->node_ranks[j] > 0)
            printf("%s%.0f:%g", j ? "," : "", p->node_ranks[j], p->node_rate[j]);
        else
            printf("%g", p->node_rate[j]);
    }
    printf("  node_gups_plain ");
    if (!p->nplain)
        printf("none");
    for (int j = 0; j < p->nplain; j++) {
        if (p->plain_ranks[j] > 0)
            printf("%s%.0f:%g", j ? "," : "", p->plain_ranks[j], p->plain_rate[j]);
        else
            printf("%g", p->plain_rate[j]);
    }
    printf("\n");
    char net[400] = "shape (each shape is its own torus network)";
    if (p->net_mode == TM_NET_FILE) {
        char esc[300];
        kit_cli_escape(c->file, esc, sizeof esc);
        snprintf(net, sizeof net, "file %s: %.0f hosts, alpha %.6g x link_bw per host", esc, p->file_hosts,
                 p->file_unit_bps > 0 ? p->file_alpha * p->file_unit_bps / p->link_bw : p->file_alpha);
    } else if (p->net_mode == TM_NET_GIVEN)
        sc_network_format(&p->network, net, sizeof net);
    else if (p->net_mode == TM_NET_NODES)
        snprintf(net, sizeof net, "nodes (leading dimensions = a node's ranks, the rest the nodes' torus)");
    printf("# network %s\n", net);
    if (p->hw.cores > 0)
        tm_hw_print(stdout, &p->hw, 0);
    if (p->sources)
        printf("# sources: %s\n", p->sources);
    if (tm_node_given(p)) {
        tm_params q;
        tm_node_derive(p, 0, 0, 1, &q);
        tm_node_print(stdout, p, &q);
    }
    printf("# %8s  %-16s %8s %7s %11s %12s %12s %12s %12s  %-7s %12s", "N", "shape", "alpha/C", "hops", "cycles/upd",
           "cpu_gups", "net_gups", "mem_gups", "bound_gups", "binding", "pred_gups");
    if (c->bucketed)
        printf(" %9s", "bucket");
    if (c->simulate)
        printf(" %12s %8s %8s", "sim_gups", "sim_sbf", "link_use");
    printf("\n");
}

/* Shape k as one JSON object of the "rows" array. */
static void print_json_row(const tm_cli *c, const tm_run *run, int k)
{
    const tm_row *row = &run->rows[k];
    const ropt_timed_result *sr = &run->sims[k];
    char name[128], f1[32], f2[32], f3[32], f4[32], f5[32];
    torus_shape_format(&c->p.shapes[k], name, sizeof name);
    printf("%s{\"nodes\": %d, \"shape\": \"%s\", \"alpha\": %.10g, \"hops\": %.6g, \"net_transfers\": %.6g, "
           "\"cycles_per_update\": %.6g, "
           "\"cpu_bound_gups\": %s, \"network_bound_gups\": %s, \"memory_bound_gups\": %s, "
           "\"bound_gups\": %s, \"binding\": \"%s\", \"predicted_gups\": %s, \"machine_nodes\": %.0f, "
           "\"ranks_per_node\": %.6g, \"cores_used_per_node\": %.6g",
           k ? ", " : "", row->n, name, row->alpha, row->hops, row->net_transfers, row->cycles_per_update,
           fig(f1, sizeof f1, "%.6g", row->cpu_gups, "null"), fig(f2, sizeof f2, "%.6g", row->net_gups, "null"),
           fig(f4, sizeof f4, "%.6g", row->mem_gups, "null"), fig(f3, sizeof f3, "%.6g", row->bound_gups, "null"),
           row->binding, fig(f5, sizeof f5, "%.6g", row->predicted_gups, "null"), row->nodes, row->ranks_node,
           row->cores_used);
    printf(", \"first_order_gups\": %s, \"scale_term\": \"%s\", \"scale_eta\": %.6g",
           fig(f1, sizeof f1, "%.6g", row->first_order_gups, "null"), row->scale_how, row->scale_eta);
    if (tm_node_given(&c->p))
        printf(", \"injection_bound_gups\": %s, \"sensitivity_per_10pct\": \"%s\"",
               fig(f2, sizeof f2, "%.6g", row->inj_gups, "null"), run->sens[k]);
    if ((c->node || c->file) && c->p.algorithm == TM_ROUTED)
        printf(", \"baseline_predicted_gups\": %s, \"baseline_binding\": \"%s\"",
               fig(f3, sizeof f3, "%.6g", run->base[k].predicted_gups, "null"), run->base[k].binding);
    if (c->bucketed)
        printf(", \"mean_bucket_size\": %.4f", run->bucket[k]);
    if (c->simulate) {
        printf(", \"sim_gups\": %.6g, \"sim_gups_total\": %.6g, \"sim_window_frac\": %.6g, \"sim_sbf\": %.6g, "
               "\"sim_link_utilisation\": %.6g, \"sim_bytes_per_update\": %.6g, \"sim_bytes_per_update_total\": %.6g, "
               "\"sim_fingerprint\": \"%016llx\", \"sim_exact\": %s",
               sr->gups, sr->gups_total, sr->window_frac, sr->sbf, sr->link_util, sr->bytes_per_update,
               sr->bytes_per_update_total, (unsigned long long)sr->fingerprint, sr->exact ? "true" : "false");
        printf(", \"sim_dim_util_mean\": [");
        for (int d = 0; d < sr->ndims; d++)
            printf("%s%.4f", d ? ", " : "", sr->dim_util_mean[d]);
        printf("], \"sim_dim_util_max\": [");
        for (int d = 0; d < sr->ndims; d++)
            printf("%s%.4f", d ? ", " : "", sr->dim_util_max[d]);
        char hot[160];
        hot_link(sr, hot, sizeof hot);
        printf("], \"sim_hottest_link\": \"%s\", \"sim_hottest_util\": %.4f, \"sim_blocked_frac\": %.4f, "
               "\"sim_waiting_frac\": %.4f, \"sim_mean_fill\": %.4f, \"sim_fill_quartiles\": [%.4f, %.4f, %.4f, %.4f]",
               hot, sr->hot_util, sr->blocked_frac, sr->waiting_frac, sr->mean_fill, sr->fill_frac[0],
               sr->fill_frac[1], sr->fill_frac[2], sr->fill_frac[3]);
    }
    printf("}");
}

/* Shape k as one line of the table. */
static void print_text_row(const tm_cli *c, const tm_run *run, int k)
{
    const tm_row *row = &run->rows[k];
    const ropt_timed_result *sr = &run->sims[k];
    char name[128], f1[32], f2[32], f3[32], f4[32], f5[32];
    torus_shape_format(&c->p.shapes[k], name, sizeof name);
    printf("  %8d  %-16s %8.4f %7.4f %11.1f %12s %12s %12s %12s  %-7s %12s", row->n, name, row->alpha, row->hops,
           row->cycles_per_update, fig(f1, sizeof f1, "%.4f", row->cpu_gups, "unbounded"),
           fig(f2, sizeof f2, "%.4f", row->net_gups, "unbounded"),
           fig(f4, sizeof f4, "%.4f", row->mem_gups, "unbounded"),
           fig(f3, sizeof f3, "%.4f", row->bound_gups, "unbounded"), row->binding,
           fig(f5, sizeof f5, "%.4f", row->predicted_gups, "unbounded"));
    if (c->bucketed)
        printf(" %9.3f", run->bucket[k]);
    if (c->simulate)
        printf(" %12.4f %8.4f %8.4f", sr->gups, sr->sbf, sr->link_util);
    printf("\n");
    if (row->scale_eta < 1)
        printf("#   scale term: %s, eta %.4g: first-order %.6g -> predicted %.6g\n", row->scale_how, row->scale_eta,
               row->first_order_gups, row->predicted_gups);
    if (tm_node_given(&c->p) && c->p.nshapes > 1)
        printf("#   sensitivity (GUPS per +10%% of each input): %s\n", run->sens[k]);
    if ((c->node || c->file) && c->p.algorithm == TM_ROUTED && c->p.nshapes > 1)
        printf("#   HPCC's baseline on it: %s GUPS, binds %s\n",
               fig(f1, sizeof f1, "%.4f", run->base[k].predicted_gups, "unbounded"), run->base[k].binding);
}

/* --simulate's keys of one shape */
static void print_sim_keys(const ropt_timed_result *sr)
{
    printf("sim_gups: %.6g\nsim_gups_total: %.6g\nsim_time_s: %.6g\nsim_window_frac: %.6g\nsim_sbf: %.6g\n"
           "sim_link_utilisation: %.6g\nsim_bytes_per_update: %.6g\nsim_bytes_per_update_total: %.6g\n"
           "sim_updates: %llu\nsim_fingerprint: %016llx\nsim_exact: %s\n",
           sr->gups, sr->gups_total, sr->time_s, sr->window_frac, sr->sbf, sr->link_util, sr->bytes_per_update,
           sr->bytes_per_update_total, (unsigned long long)sr->updates, (unsigned long long)sr->fingerprint,
           sr->exact ? "yes" : "no");
    printf("sim_dim_util_mean:");
    for (int d = 0; d < sr->ndims; d++)
        printf("%s%.4f", d ? "," : " ", sr->dim_util_mean[d]);
    printf("\nsim_dim_util_max:");
    for (int d = 0; d < sr->ndims; d++)
        printf("%s%.4f", d ? "," : " ", sr->dim_util_max[d]);
    char hot[160];
    hot_link(sr, hot, sizeof hot);
    printf("\nsim_hottest_link: %s\nsim_hottest_util: %.4f\nsim_blocked_frac: %.4f\nsim_waiting_frac: %.4f\n"
           "sim_cap: %d\nsim_mean_fill: %.4f\nsim_fill_quartiles: %.4f,%.4f,%.4f,%.4f\n",
           hot, sr->hot_util, sr->blocked_frac, sr->waiting_frac, sr->cap, sr->mean_fill, sr->fill_frac[0],
           sr->fill_frac[1], sr->fill_frac[2], sr->fill_frac[3]);
}

/* One shape: its key block under the table. */
static void print_keys(const tm_cli *c, const tm_run *run)
{
    const tm_row *row = &run->rows[0];
    char name[128];
    torus_shape_format(&c->p.shapes[0], name, sizeof name);
    char f1[32], f2[32], f3[32], f4[32], f5[32], f6[32];
    printf("net_transfers_per_update: %.6g\n", row->net_transfers);
    printf("nodes: %d\nshape: %s\nalpha: %.10g\nhops_per_update: %.6g\ncycles_per_update: %.6g\n"
           "machine_nodes: %.0f\nranks_per_node: %.6g\ncores_used_per_node: %.6g\nnode_gups: %s\n"
           "cpu_bound_gups: %s\nnetwork_bound_gups: %s\nmemory_bound_gups: %s\nbound_gups: %s\nbinding: %s\n"
           "predicted_gups: %s\n",
           row->n, name, row->alpha, row->hops, row->cycles_per_update, row->nodes, row->ranks_node, row->cores_used,
           row->node_gups > 0 ? fig(f5, sizeof f5, "%.6g", row->node_gups, "none") : "none",
           fig(f1, sizeof f1, "%.6g", row->cpu_gups, "unbounded"), fig(f2, sizeof f2, "%.6g", row->net_gups, "unbounded"),
           fig(f4, sizeof f4, "%.6g", row->mem_gups, "unbounded"),
           fig(f3, sizeof f3, "%.6g", row->bound_gups, "unbounded"), row->binding,
           fig(f6, sizeof f6, "%.6g", row->predicted_gups, "unbounded"));
    printf("first_order_gups: %s\nscale_term: %s\nscale_eta: %.4g\n",
           fig(f6, sizeof f6, "%.6g", row->first_order_gups, "unbounded"), row->scale_how, row->scale_eta);
    if (tm_node_given(&c->p))
        printf("injection_bound_gups: %s\nsensitivity_per_10pct: %s\n",
               fig(f1, sizeof f1, "%.6g", row->inj_gups, "unbounded"), run->sens[0]);
    /* HPCC's baseline on the same machine: beside a node model or a fabric */
    if ((c->node || c->file) && c->p.algorithm == TM_ROUTED)
        printf("baseline_bound_gups: %s\nbaseline_predicted_gups: %s\nbaseline_binding: %s\n",
               fig(f1, sizeof f1, "%.6g", run->base[0].bound_gups, "unbounded"),
               fig(f2, sizeof f2, "%.6g", run->base[0].predicted_gups, "unbounded"), run->base[0].binding);
    if (c->bucketed)
        printf("mean_bucket_size: %.4f\n", run->bucket[0]);
    if (c->simulate)
        print_sim_keys(&run->sims[0]);
    /* the network bound's inputs, as the header's "b" and "link_bw" */
    printf("bytes_per_update: %g\nlink_bw: %g\n", c->p.bytes_per_update, c->p.link_bw);
    if (c->file)
        tm_fabric_print(stdout, &run->fabric);
    if (c->p.hw.cores > 0)
        tm_hw_print(stdout, &c->p.hw, 1);
}

/* Everything computed, as the table (or key block) or one JSON object. */
static void print_results(const tm_cli *c, const tm_run *run)
{
    const tm_params *p = &c->p;
    if (!p->nshapes) {
        /* --bucket-sim alone */
        if (c->json)
            printf("{\"bucket_sim_p\": %ld, \"pending\": 1024, \"mean_bucket_size\": %.4f}\n", c->bucket_p,
                   run->bucket_sim);
        else
            printf("bucket_sim_p: %ld\npending: 1024\nmean_bucket_size: %.4f\n", c->bucket_p, run->bucket_sim);
        return;
    }
    if (c->json) {
        char net[128] = "shape";
        if (p->net_mode == TM_NET_FILE)
            snprintf(net, sizeof net, "file");
        else if (p->net_mode == TM_NET_GIVEN)
            sc_network_format(&p->network, net, sizeof net);
        else if (p->net_mode == TM_NET_NODES)
            snprintf(net, sizeof net, "nodes");
        printf("{\"algorithm\": \"%s\", \"preset\": \"%s\", \"network\": \"%s\", ",
               p->algorithm == TM_ROUTED ? "routed" : "direct", p->preset, net);
        if (p->sources)
            printf("\"sources\": \"%s\", ", p->sources); /* the table's own text: no quotes or backslashes */
        printf("\"bytes_per_update\": %g, \"link_bw\": %g, ", p->bytes_per_update, p->link_bw);
        if (tm_node_given(p))
            tm_node_print_json(stdout, p);
        printf("\"rows\": [");
        for (int k = 0; k < p->nshapes; k++)
            print_json_row(c, run, k);
        printf("]");
        if (c->bucket_p)
            printf(", \"bucket_sim_p\": %ld, \"mean_bucket_size\": %.4f", c->bucket_p, run->bucket_sim);
        printf("}\n");
        return;
    }
    print_header(c);
    for (int k = 0; k < p->nshapes; k++)
        print_text_row(c, run, k);
    if (c->simulate && p->nshapes > 1) {
        printf("# where the time goes (--simulate), over the steady window sim_gups is measured on (10%%-90%% of\n"
               "# the CPU work; sim_sbf and link_use too): link use = busy / window per dimension, mean/max over\n"
               "# its links; the busiest link (from coordinates, dimension, way); rank time idle with a send slot\n"
               "# refused (blocked) or with nothing to do (waiting); packets by fill, words / cap; window = its\n"
               "# share of the makespan\n");
        printf("# %8s  %-16s %-32s %-26s %7s %7s %5s %5s  %-27s %6s\n", "N", "shape", "link use x,y,z: mean/max",
               "busiest link", "blocked", "waiting", "cap", "fill", "fill <=1/4 <=1/2 <=3/4 <=1", "window");
        for (int k = 0; k < p->nshapes; k++)
            time_row(&p->shapes[k], &run->sims[k]);
    }
    if (p->nshapes == 1)
        print_keys(c, run);
    if (c->bucket_p) {
        printf("bucket_sim_p: %ld\n", c->bucket_p);
        printf("mean_bucket_size: %.4f\n", run->bucket_sim);
    }
}

int main(int argc, char **argv)
{
    kit_stdout_begin(argv[0]);
    static tm_cli cli;
    static tm_run run;
    char err[512] = "";
    int code = KIT_EXIT_OK;
    int pr = parse_cli(argc, argv, &cli, err, sizeof err);
    if (pr == CLI_HELP) {
        usage(stdout);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    if (pr == CLI_VERSION) {
        printf("torusmodel (hpcc-ra) %s\n", HPCC_RA_VERSION);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    if (pr == CLI_GO && cli.records) {
        if (cli.dry_run)
            return kit_stdout_end(KIT_EXIT_OK);
        int rc = tm_records_print(stdout, cli.p.scale_nodes ? cli.p.scale_nodes : TM_RECORDS_SCALE_NODES, err,
                                  sizeof err);
        if (rc) {
            fprintf(stderr, "torusmodel: --records: %s\n", err);
            return rc == -3 ? KIT_EXIT_RESOURCE : KIT_EXIT_USAGE;
        }
        return kit_stdout_end(KIT_EXIT_OK);
    }
    code = pr == CLI_BAD ? KIT_EXIT_USAGE : 0;
    if (!code && !cli.file && cli.format) {
        snprintf(err, sizeof err, "--format applies to --file: give --file FILE");
        code = KIT_EXIT_USAGE;
    } else if (!code && cli.file) {
        int rc = tm_fabric_load(&cli.p, &run.fabric, cli.file, cli.format, cli.shape_given, err, sizeof err);
        code = rc == -3 ? KIT_EXIT_RESOURCE : rc ? KIT_EXIT_USAGE : 0;
    }
    if (!code)
        code = check_all(&cli, &run, err, sizeof err);
    if (!code && cli.write_params && kit_outfile_probe(cli.write_params, err, sizeof err)) {
        /* bounded by the precision: what fits of the probe's message */
        char e2[sizeof err];
        snprintf(e2, sizeof e2, "--write-params: %.*s", (int)sizeof e2 - 17, err);
        memcpy(err, e2, sizeof err);
        code = KIT_EXIT_USAGE;
    }
    if (!code && cli.dry_run) {
        tm_fabric_free(&run.fabric);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    cli.p.scale_progress = isatty(2); /* a scale simulation takes seconds: say so where someone waits */
    if (!code)
        code = compute(&cli, &run, err, sizeof err);
    if (!code && cli.write_params)
        code = write_params_file(&cli.p, cli.write_params, err, sizeof err);
    if (code) {
        tm_fabric_free(&run.fabric);
        fprintf(stderr, "torusmodel: %s\n", err);
        return code;
    }
    print_results(&cli, &run);
    tm_fabric_free(&run.fabric);
    return kit_stdout_end(KIT_EXIT_OK);
}
