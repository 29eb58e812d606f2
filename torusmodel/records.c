/*
 * records.c - `torusmodel --records`: every published HPCC Global
 * RandomAccess record the project's sources reached, predicted from the
 * presets at the run's own size, as the markdown table docs/machines.md
 * holds (make test compares the two).
 *
 * The run's size, by one rule for every record:
 *   - a size the source states (BlueGene/L's 65,536 nodes, Red Storm's
 *     8,192 processors, Intrepid's 32 racks) is used as stated;
 *   - otherwise the record's own HPL and EP-STREAM figures (the HPCC award
 *     tables, www/hpcchallenge.org/Home.html in the icl-utk-edu/hpcc
 *     repository's history) give a least node count: HPL cannot exceed
 *     the nodes' peak, STREAM their memory bandwidth, so
 *       nodes >= max(HPL / node peak, STREAM / node memory bandwidth),
 *     and the run is the smallest of the machine's partitions listed
 *     below holding that many;
 *   - with neither, the machine's full size, said so in the row.
 * Each row is predicted for ra_opt (the preset, routed, with the scale
 * term) and for HPCC's baseline (direct, the simulated mean bucket: what
 * `--algorithm direct --bucketed` prints).  No figure here was set from a
 * published GUPS.
 * Cost: one scale simulation per row (reduced machines of at most
 * --scale-nodes nodes, 1024 unless given: seconds each).
 */
#include "torusmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define REC_MAX_PARTS 4

/* one partition a run may have used: the logical shape and, when the
 * preset's network is not it, the physical network */
typedef struct partition {
    const char *shape, *network;
} partition;

typedef struct record {
    const char *machine, *preset, *baseline_preset; /* baseline NULL: the preset, direct */
    double gups;
    const char *gups_src;
    double hpl_tf, stream_tbs; /* the record's own figures (0: none) */
    double node_peak_gf;       /* HPL's ceiling per node (0: no HPL figure) */
    const char *size_src;      /* the stated size, or where HPL/STREAM come from */
    double clock_hz, ranks_per_node; /* overrides of the preset for this run (0: the preset's) */
    partition parts[REC_MAX_PARTS];  /* the first is the stated size when no figure is given */
    const char *note;                /* the algorithm, and why the row differs */
} record;

#define AWARDS "HPCC award table"
/* the K computer's partitions: an eighth, a quarter (Z in 4s) and all of it */
#define TOFU_PARTS {{"8x12x9x8x2mx3x2m", NULL}, {"8x24x18x4x2mx3x2m", NULL}, {"8x24x18x16x2mx3x2m", NULL}}
static const record records[] = {
    {"BlueGene/L, LLNL", "bgl-routed", "bgl-mpi", 35.47, "paper 002 Table 7; SC06 award", 0, 0, 0,
     "stated: 65,536 nodes, 1 rank each (paper 002)", 0, 0, {{"64x32x32", NULL}},
     "the same algorithm (paper 002's routed code)"},
    {"BlueGene/P, ANL Intrepid", "bgp", NULL, 103, AWARDS " 2011, record 318", 0, 0, 0,
     "stated: 32 racks, 32,768 nodes x 4 (hpcchallenge.org news, 2008)", 0, 0, {{"4x32x32x32", NULL}},
     "routed, cores specialised for routing or updating (Aggarwal et al., IPDPS 2009)"},
    {"BlueGene/P, LLNL", "bgp", NULL, 117, AWARDS " 2011, record 387", 0, 267, 0,
     "record 387 has none: EP-STREAM 267 TB/s of record 386 (same site, submitter and table)", 0, 0,
     {{"4x8x8x16", NULL}, {"4x20x32x32", NULL}, {"4x32x32x32", NULL}},
     "not stated (IBM's BlueGene/P code, as Intrepid's, assumed)"},
    {"BlueGene/Q, ANL Mira", "bgq", NULL, 418, AWARDS " 2014, record 545", 5709, 1426, 204.8,
     "record 545: HPL 5,709 TF/s, EP-STREAM 1,426 TB/s; 204.8 GF a node (16 cores x 1.6 GHz x 8)", 0, 0,
     {{"16x8x8x16x16x2", NULL}, {"16x8x12x16x16x2", NULL}},
     "not stated: the award table names system, site and submitter only, and a search for a paper on BG/Q "
     "RandomAccess or Mira's HPCC run found none; outside 1.5x: BG/Q's memory latency and misses in flight are "
     "assumed, the ranks per core not stated (16 a node here; 64, as hardware threads, predict 871: "
     "docs/machines.md)"},
    {"K computer, RIKEN", "tofu", NULL, 472, AWARDS " 2012-2014, record 492", 9796, 3857, 128,
     "record 492: HPL 9,796 TF/s, EP-STREAM 3,857 TB/s; 128 GF a node (8 cores x 2 GHz x 8)", 0, 0,
     TOFU_PARTS,
     "not stated: the award table (RIKEN AICS) and RIKEN, Tsukuba and Fujitsu's award releases (2013, 2014) "
     "name no code, ranks or algorithm, and no paper on K's RandomAccess was found; outside 1.5x: Tofu's MPI "
     "latency (no K figure reached) and the node's memory latency are assumed"},
    {"K computer, RIKEN (2011)", "tofu", NULL, 121, AWARDS " 2011, record 459", 2118, 812, 128,
     "record 459: HPL 2,118 TF/s, EP-STREAM 812 TB/s; 128 GF a node", 0, 0,
     TOFU_PARTS,
     "not stated, as the 2012 run (the 2011 award table; the same search); outside 1.5x as it"},
    {"IBM Power 775", "p775", NULL, 2021, AWARDS " 2012-2014, record 495", 1344, 0, 983.04,
     "record 495: HPL 1,344 TF/s; 983 GF an octant (32 cores x 3.84 GHz x 8)", 0, 0,
     {{"32x32x33", NULL}, {"32x32x65", "dragonfly:32,1,16,65"}},
     "IBM's HPCC Class 1 optimized run (Tardieu et al., X10 and APGAS at petascale, PPoPP 2014, abstract), its "
     "code not published; the hub gives a system-wide global address space and hardware random routing "
     "(Arimilli et al., The PERCS High-Performance Interconnect, HOTI 2010, abstract), so an update need not "
     "be an MPI message: ra_opt over MPI at an assumed 1.5 us is not that run"},
    {"Cray XT3 Red Storm, Sandia", "xt3", NULL, 34, "GCN, SC08 awards", 0, 0, 0,
     "not in the sources found: the full machine, 12,960 nodes x 2", 0, 0, {{"2x27x20x24", NULL}},
     "not stated; HPCC ships Sandia's routed variant (RA_SANDIA_NOPT)"},
    {"Cray XT3 Red Storm, Sandia (2006)", "xt3", NULL, 19.98, "Plimpton et al., Cluster 2006", 0, 0, 0,
     "stated: 8,192 processors, 1 a node, 2.0 GHz before the dual-core upgrade (Plimpton et al.; Brightwell, "
     "Underwood, Vaughan)",
     2.0e9, 1, {{"2x2x2x2x2x2x2x2x2x2x2x2x2", "16x16x32"}},
     "hypercube routing with aggregation, ra_opt's kind (Plimpton et al.), but synchronous: each stage sends "
     "all it holds for its one partner in one message, where ra_opt's 1024 updates are spread over 13 "
     "dimensions' buckets (the row's fill in --json): fewer, fuller messages at 2 us each; placement on the "
     "mesh assumed"},
};
#define NREC (sizeof records / sizeof *records)

/* p: the record's preset with its overrides, on partition k */
static int load(const record *r, const char *preset, int k, tm_params *p, char *err, size_t errlen)
{
    tm_params_defaults(p);
    if (tm_preset(p, preset, err, errlen))
        return -2;
    if (r->clock_hz > 0)
        p->clock_hz = r->clock_hz;
    if (r->ranks_per_node > 0)
        p->ranks_per_node = r->ranks_per_node;
    if (r->parts[k].network && tm_param_set(p, "network", r->parts[k].network, err, errlen))
        return -2;
    return tm_param_set(p, "shape", r->parts[k].shape, err, errlen) ? -2 : 0;
}

/* the least nodes the record's HPL and STREAM figures imply (0: none) */
static double least_nodes(const record *r, const tm_params *p)
{
    double n = 0, bw = p->node.v[TM_N_MEM_BW];
    if (r->hpl_tf > 0 && r->node_peak_gf > 0)
        n = r->hpl_tf * 1e3 / r->node_peak_gf;
    if (r->stream_tbs > 0 && bw > 0 && r->stream_tbs * 1e12 / bw > n)
        n = r->stream_tbs * 1e12 / bw;
    return ceil(n);
}

static double nodes_of(const tm_params *p, const torus_shape *s)
{
    return p->net_mode == TM_NET_GIVEN ? (double)p->network.hosts : ceil(s->n / p->ranks_per_node);
}

/* ra_opt's row with its scale term, and the baseline's (its mean bucket) */
static int predict(const record *r, int k, int scale_nodes, tm_row *ro, tm_row *rb, char *err, size_t errlen)
{
    tm_params p;
    if (load(r, r->preset, k, &p, err, errlen))
        return -2;
    p.scale_nodes = scale_nodes;
    if (tm_evaluate(&p, &p.shapes[0], ro, err, errlen))
        return -2;
    int rc = tm_scale(&p, &p.shapes[0], ro, err, errlen);
    if (rc)
        return rc;
    if (load(r, r->baseline_preset ? r->baseline_preset : r->preset, k, &p, err, errlen))
        return -2;
    p.algorithm = TM_DIRECT;
    int n = p.shapes[0].n;
    double b = n > 1 ? tm_bucket_sim(n, 1024, 100000, 1) : 1;
    if (b < 0) {
        snprintf(err, errlen, "out of memory for the bucket simulation at %d ranks", n);
        return -3;
    }
    p.updates_per_message = b;
    return tm_evaluate(&p, &p.shapes[0], rb, err, errlen) ? -2 : 0;
}

/* GUPS as the table prints it: three figures */
static void gups(char *buf, size_t len, double g)
{
    snprintf(buf, len, g >= 100 ? "%.0f" : g >= 10 ? "%.1f" : "%.2f", g);
}

int tm_records_print(FILE *f, int scale_nodes, char *err, size_t errlen)
{
    fprintf(f, "| machine | published GUPS (source) | run size (rule) | shape predicted | ra_opt | baseline | "
               "published / ra_opt | binds | algorithm, and why they differ |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < NREC; i++) {
        const record *r = &records[i];
        tm_params p;
        if (load(r, r->preset, 0, &p, err, errlen))
            return -2;
        /* the rule: the smallest listed partition holding the least count */
        double least = least_nodes(r, &p);
        int k = 0, nparts = 0;
        while (nparts < REC_MAX_PARTS && r->parts[nparts].shape)
            nparts++;
        if (least > 0) {
            k = nparts - 1;
            for (int j = nparts - 1; j >= 0; j--) {
                tm_params q;
                if (load(r, r->preset, j, &q, err, errlen))
                    return -2;
                if (nodes_of(&q, &q.shapes[0]) >= least)
                    k = j;
            }
        }
        tm_row ro, rb;
        int rc = predict(r, k, scale_nodes, &ro, &rb, err, errlen);
        if (rc)
            return rc;
        char size[400], g1[32], g2[32], g3[32], bind[64];
        if (least > 0)
            snprintf(size, sizeof size, "%s: at least %.0f nodes, so %.0f", r->size_src, least, ro.nodes);
        else
            snprintf(size, sizeof size, "%s", r->size_src);
        snprintf(g1, sizeof g1, "%g", r->gups); /* as published */
        gups(g2, sizeof g2, ro.predicted_gups), gups(g3, sizeof g3, rb.predicted_gups);
        if (ro.scale_eta < 1)
            snprintf(bind, sizeof bind, "%s x scale %.3f", ro.binding, ro.scale_eta);
        else
            snprintf(bind, sizeof bind, "%s", ro.binding);
        fprintf(f, "| %s | %s (%s) | %s | %s%s%s | %s | %s | %.2f | %s | %s |\n", r->machine, g1, r->gups_src, size,
                r->parts[k].shape, r->parts[k].network ? " on " : "", r->parts[k].network ? r->parts[k].network : "",
                g2, g3, r->gups / ro.predicted_gups, bind, r->note);
    }
    return 0;
}
