/*
 * torusmodel.h - the calculator: the CPU and network bottleneck model of paper 002 (sec. 4-6)
 * plus a third bottleneck, the node's memory system (the Star rate of the
 * ranks sharing a node): from machine parameters and a topology to GUPS
 * bounds and a predicted GUPS, plus the baseline's bucket-size simulator
 * (sec. 5.1, Table 6).
 */
#ifndef TORUSMODEL_H
#define TORUSMODEL_H

#include <stdio.h>

#include "sparsest_cut.h"
#include "torus.h"

#define TM_MAX_SHAPES 64
#define TM_MAX_NODE_RATES 16

typedef enum { TM_DIRECT = 0, TM_ROUTED = 1 } tm_algorithm;

/* A node described by its own parameters (torusmodel/node.c derives the
 * per-update costs from them): what a spec sheet or `ra_calibrate --probe`
 * gives.  0 = not given.  Instruction costs are cycles on the core they
 * were measured on, carried to this one by ipc_scale (node.c's IPC rule). */
enum {
    TM_N_MEM_LATENCY, /* ns, a dependent load that misses every cache */
    TM_N_MLP,         /* misses a core keeps in flight */
    TM_N_MEM_BW,      /* bytes/s per node, read + write */
    TM_N_LINE,        /* cache line, bytes */
    TM_N_INSTR_LOCAL, /* cycles: one local update's instructions (table in cache) */
    TM_N_INSTR_HOP,   /* cycles: one software hop's routing work (in cache) */
    TM_N_INSTR_TEST,  /* cycles: the baseline's MPI_Testany between updates */
    TM_N_MPI_LATENCY, /* ns, one-way MPI latency of a small message between nodes */
    TM_N_INJ_BW,      /* bytes/s a node injects into the network */
    TM_N_MSG_RATE,    /* messages/s a node sends */
    TM_N_IPC_SCALE,   /* cycles here per cycle of the core instr_* were measured on */
    TM_N_RAW_MSG,     /* ns: a packet's CPU cost where the routed code drives the network
                         directly (the Blue Genes); 0 = the MPI latency */
    TM_N_KEYS
};
#define TM_SRC_LEN 200
typedef struct tm_node {
    double v[TM_N_KEYS];
    char src[TM_N_KEYS][TM_SRC_LEN]; /* where each figure comes from ("" = not said) */
} tm_node;
/* A node's facts from hwloc's XML (torusmodel/hwloc.c); cores 0: none read. */
typedef struct tm_hw {
    char src[TM_SRC_LEN]; /* "hwloc FILE" */
    long packages, cores, pus, numa;
    double memory;   /* bytes: the NUMA nodes' local memory */
    double cache[4]; /* bytes of an L1 data, L2, L3 cache (index = level; 0: none) */
    double line;     /* the L1 data cache's line, bytes */
} tm_hw;

enum { TM_NET_SHAPE = 0, TM_NET_NODES = 1, TM_NET_GIVEN = 2, TM_NET_FILE = 3 };
enum { TM_SCALE_AUTO = 0, TM_SCALE_NONE = 1, TM_SCALE_FULL = 2, TM_SCALE_REDUCED = 3 };

/* Cycle figures are in cycles of clock_hz; a calibrated machine writes
 * clock_hz = 1e9 so that every cycle is a nanosecond. */
typedef struct tm_params {
    double clock_hz;
    double t_local;    /* t_g + t_u + t_o^s: generate, update, loop */
    double t_send;     /* per message call */
    double t_recv;
    double t_overhead; /* t_o^p: per remote update beyond send/recv */
    double t_hop;      /* per software-routing hop (routed) */
    double bytes_per_update; /* b, on the wire, headers shared */
    double link_bw;    /* bytes/s per link and direction */
    double updates_per_message; /* direct: updates sharing one send/recv */
    double t_local_plain; /* direct: the baseline's one-at-a-time loop (0: t_local) */
    double t_test;     /* direct: one MPI_Test per update, every update (sec. 6.1) */
    double t_exposed;  /* direct: what a local update adds to t_local in the
                          baseline's loop: a test between two updates keeps
                          their misses from overlapping (the 1/N local ones;
                          a remote update is applied in its packet's batch) */
    /* What a run of the algorithm itself (ra_calibrate: at the run's ranks
     * and table) spends per update beyond the CPU bound's costs: waiting for
     * peers, send slots and the network, MPI progress, the memory system
     * shared by the node's ranks.  Fitted, so it enters the prediction only,
     * never a bound; 0 for the presets (prediction = smallest bound). */
    double t_wait_routed, t_wait_direct;
    double ranks_per_node; /* ranks sharing one node (1: BlueGene/L coprocessor mode) */
    double cores_per_node; /* cores of a node (0: as many as ranks_per_node) */
    double threads_per_core; /* hardware threads a core runs (SMT width; 0: 1): node.c's sharing rule */
    /* node random-update rate in GUPS (ranks_per_node ranks updating their
     * own tables at once, ra_opt's loop: the Star aggregate), as pairs
     * (ranks on the node, GUPS); one pair with ranks 0 = at any count;
     * none = not given (the memory bound is then unbounded) */
    int nnode;
    double node_ranks[TM_MAX_NODE_RATES], node_rate[TM_MAX_NODE_RATES];
    /* direct: the node rate of the baseline's local path (one-at-a-time
     * loop, one MPI_Test per update) with its ranks at once, pairs as above;
     * none = the prediction is the CPU bound */
    int nplain;
    double plain_ranks[TM_MAX_NODE_RATES], plain_rate[TM_MAX_NODE_RATES];
    /* --simulate's wire format (torus_timed_params; 0 = the plain model:
     * one packet of 8n + --header-bytes per bucket sent) */
    double packet_header_bytes, chunk_bytes, packet_max_bytes, link_overhead_bytes;
    /* The physical network under the logical shape (docs/machines.md):
     * TM_NET_SHAPE (the shape itself, paper 002's model), TM_NET_NODES (the
     * shape's leading dimensions whose sizes multiply to ranks_per_node are
     * inside a node, the rest is the nodes' torus), TM_NET_GIVEN (network:
     * a torus, fat-tree or dragonfly of hosts; ranks per node = ranks /
     * hosts). */
    int net_mode;
    sc_network network;
    /* TM_NET_FILE: a real fabric read by --file (torusmodel/fabric.c): its
     * hosts and alpha_upper in its own capacity unit, and what that unit is
     * in bytes/s (0: one link of link_bw) */
    double file_hosts, file_alpha, file_unit_bps;
    tm_hw hw; /* --node-from: the node's hwloc facts (cores 0: none) */
    tm_node node;        /* the node's own parameters (node.c), when mem_latency_ns is given */
    int scale_term;      /* TM_SCALE_*: what the timed simulator adds at scale (scale.c) */
    int scale_nodes;     /* the largest machine simulated in full, the reduced machine's size */
    int scale_progress;  /* 1: a line on stderr before each scale simulation (a terminal) */
    const char *sources; /* a preset's published figures, where each comes from (NULL: none) */
    tm_algorithm algorithm;
    int nshapes;
    torus_shape shapes[TM_MAX_SHAPES];
    char preset[32];
} tm_params;

/* Applies one `key = value` (keys as in the params file; dashes and
 * underscores are the same).  Returns 0, or -2 with a line in err. */
int tm_param_set(tm_params *p, const char *key, const char *value, char *err, size_t errlen);
/* Reads a params file: `key = value` lines, '#' comments. */
int tm_params_file(tm_params *p, const char *path, char *err, size_t errlen);
/* The same over a stream the caller owns; name is what messages call it.
 * Limits: lines of TM_PARAMS_LINE_MAX bytes, TM_PARAMS_MAX_BYTES in all;
 * numbers in 0..TM_PARAM_MAX (> 0 keys from TM_PARAM_MIN). */
#define TM_PARAMS_LINE_MAX 4096
#define TM_PARAMS_MAX_BYTES (1 << 20)
#define TM_PARAM_MIN 1e-30
#define TM_PARAM_MAX 1e30
int tm_params_stream(tm_params *p, FILE *f, const char *name, char *err, size_t errlen);
/* Named presets: bgl-mpi, bgl-raw, bgl-routed (torusmodel/params.c) and
 * the machines of torusmodel/machines.c.  -2 for an unknown name. */
int tm_preset(tm_params *p, const char *name, char *err, size_t errlen);
/* A machine preset of torusmodel/machines.c into p: 0, 1 when name is not
 * one, -2 with a line in err. */
int tm_machine_preset(tm_params *p, const char *name, char *err, size_t errlen);
/* The machine presets' names, comma-separated. */
const char *tm_machine_names(void);
/* Writes every parameter (and the shapes, when any) as a params file. */
void tm_params_write(const tm_params *p, FILE *f);
void tm_params_defaults(tm_params *p);
/* The i-th parameter key (underscores), NULL past the last. */
const char *tm_param_name(int i);
/* The i-th parameter's one-line help (NULL past the last), its default
 * as text into def. */
const char *tm_param_help(int i, char *def, size_t len);

/* hwloc's XML of a node (lstopo --of xml): 0, or -2 / -3 with one line
 * naming the file, the line and what was expected.  The stream form is
 * the fuzzer's. */
int tm_hwloc_read(const char *path, tm_hw *hw, char *err, size_t errlen);
int tm_hwloc_stream(FILE *f, const char *name, tm_hw *hw, char *err, size_t errlen);
/* hw into p: cores (and one rank a core) and the line, each with its source. */
void tm_hw_apply(tm_params *p, const tm_hw *hw);
/* The facts as one '#' line (keys 0) or as hwloc_* key lines (keys 1). */
void tm_hw_print(FILE *f, const tm_hw *hw, int keys);

/* A fabric read by --file, and what was found in it (torusmodel/fabric.c). */
typedef struct tm_fabric {
    sc_file_graph fg;
    sc_result r;
    sc_fold fold;
    sc_tree tree;
    int folded_nodes;
} tm_fabric;
/* Reads FILE (format NULL: detected), computes its alpha (exact, or
 * bounded past enumeration) and tree, and sets p's network to it and,
 * unless shape_given, the shape to ra_opt's auto shape for ranks_per_node
 * ranks a host: 0, or -2 / -3 with one line in err.  f is freed with
 * tm_fabric_free. */
int tm_fabric_load(tm_params *p, tm_fabric *f, const char *path, const char *format, int shape_given, char *err,
                   size_t errlen);
void tm_fabric_print(FILE *out, const tm_fabric *f);
void tm_fabric_free(tm_fabric *f);

typedef struct tm_row {
    int n;               /* ranks */
    double nodes;        /* ceil(n / ranks_per_node) */
    double ranks_node;   /* ranks on one node: n / nodes */
    double cores_used;   /* per node: min(ranks on it, cores_per_node) */
    double alpha;        /* links per node */
    double hops;         /* expected software hops per update (routed) */
    double net_transfers; /* times an update crosses the physical network as random traffic (1: once) */
    double cycles_per_update;
    double cpu_gups, net_gups, mem_gups, bound_gups;
    double node_gups;    /* the node rate used (0: none given) */
    double predicted_gups;
    double inj_gups;     /* node model: what a node's injection bandwidth and message rate allow (inf: none) */
    double hops_out;     /* node model: hops per update that leave a node */
    double fill;         /* node model: updates per packet (routed) or message (direct) */
    double cycles_local, cycles_hop; /* the t_local and t_hop used (derived by node.c when a node is given) */
    double first_order_gups; /* the prediction before the scale term */
    double scale_eta;    /* simulated / first-order rate of the machine simulated (1: none) */
    char scale_how[96];  /* "none: ...", "full SHAPE" or "reduced SHAPE (budget B, cap C)" */
    const char *binding; /* "cpu", "network", "memory" or "injection": the smallest bound */
} tm_row;

/* The bounds of eq. 1 / eq. 2 (direct) or of the routed algorithm (sec.
 * 6.2), the memory bound, and the prediction:
 *   CPU     nodes * min(ranks per node, cores) * f / cycles_per_update
 *   memory  nodes * node_gups(ranks per node)
 *   predicted, with a fitted wait (t_wait_routed / t_wait_direct > 0):
 *       nodes * min(ranks per node, cores) * f / (cycles_per_update + t_wait)
 *     otherwise, routed: per node and update, the local update at the node
 *     rate plus the routing work on the cores,
 *       1 / (1 / node_gups + H t_hop / (cores f))
 *     (t_local / (cores f) for the first term when no node rate is given);
 *     direct: likewise, the baseline's local path at its node rate
 *     (node_gups_plain) plus its messages on the cores,
 *       1 / (1 / node_gups_plain + (N-1)/N ((t_send + t_recv)/m + t_overhead) / (cores f))
 *     (the CPU bound when no such rate is given);
 *   both never above the smallest bound. */
int tm_evaluate(const tm_params *p, const torus_shape *s, tm_row *row, char *err, size_t errlen);
/* Dimensions 0..j-1 of the logical shape s lie inside a node of rpn ranks
 * when their sizes multiply to a divisor of rpn (ranks are numbered
 * dimension 0 fastest, a node holds consecutive ranks): returns j. */
int tm_node_dims(const torus_shape *s, double rpn);
/* node_gups at r ranks on a node: the pair with r ranks, else linear
 * between the neighbouring pairs, else the nearest end; 0 when none. */
double tm_node_gups(const tm_params *p, double r);
/* The same for node_gups_plain. */
double tm_node_gups_plain(const tm_params *p, double r);

/* node.c: the node model (the keys, sources, the IPC rule's references,
 * the costs on a shape, the injection bound, the printed terms) */
const char *tm_node_key(int i);
int tm_node_given(const tm_params *p);
void tm_node_set(tm_params *p, int i, double v, const char *src);
int tm_node_source(tm_params *p, const char *value, char *err, size_t errlen);
void tm_node_reference(tm_params *p, int in_order, double issue_width, const char *width_src);
void tm_node_derive(const tm_params *p, double hops, double hops_out, double fill, tm_params *q);
double tm_node_injection(const tm_params *p, double nodes, double hops_out, double fill);
void tm_node_print(FILE *f, const tm_params *p, const tm_params *q);
/* The same terms as "node_model": {...}, one member of the JSON object
 * (followed by ", "): each term's value (null: not given), unit, source
 * (null: none) and whether it is the reference's default; "assumed": the
 * terms whose source is an assumption. */
void tm_node_print_json(FILE *f, const tm_params *p);
/* --node KEY=VALUE,...: a machine from its spec sheet (spec.c) */
int tm_node_spec(tm_params *p, const char *spec, char *err, size_t errlen);
/* spec.c: "clock +8.1%, ..." the first-order prediction's change in percent
 * with each input of the node model 10% larger */
int tm_sensitivity(const tm_params *p, const torus_shape *s, const tm_row *row, char *out, size_t len);
/* scale.c: the timed simulator's efficiency at this machine's size, the
 * prediction multiplied by it (row->scale_eta, row->scale_how); 0, -2 bad
 * input, -3 out of memory */
int tm_scale(const tm_params *p, const torus_shape *s, tm_row *row, char *err, size_t errlen);
/* scale.c's reduced torus: t with the first of its longest dimensions kept
 * and the largest other one halved until at most max nodes are left; -1
 * (r unset) when that dimension alone is longer than max. */
int tm_scale_reduce(const torus_shape *t, int max, torus_shape *r);

/* records.c: --records, the published records at their runs' sizes as
 * docs/machines.md's markdown table (scale term on reduced machines of at
 * most scale_nodes nodes): 0, -2 or -3 with a line in err. */
#define TM_RECORDS_SCALE_NODES 1024
int tm_records_print(FILE *f, int scale_nodes, char *err, size_t errlen);

/* project.c: --ra-opt-node's list of ranks per node ("16,64,128") as
 * p's shapes, each the one ra_opt --dims auto routes such a node on (its
 * --node-hops model: node_hops 0 = the model at prices hop and packet,
 * hop < 0 for ra_opt's default prices; 1 or 2 forced); hops_out[k] gets
 * the node hops of shape k.  0, or -1 with one line in err. */
int tm_ra_opt_nodes(tm_params *p, const char *list, int node_hops, double hop, double packet, int hops_out[],
                    char *err, size_t errlen);

/* Mean number of updates per message of the baseline when `pending`
 * updates are spread over P-1 destinations and the largest bucket is sent
 * each time the limit is reached (paper 002 sec. 5.1).  Deterministic for a
 * given seed. */
double tm_bucket_sim(int P, int pending, long sends, unsigned long long seed);

#endif
