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
enum { TM_NET_SHAPE = 0, TM_NET_NODES = 1, TM_NET_GIVEN = 2 };

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
    const char *binding; /* "cpu", "network" or "memory": the smallest bound */
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
/* node_gups at r ranks on a node: the pair with r ranks, else linear
 * between the neighbouring pairs, else the nearest end; 0 when none. */
double tm_node_gups(const tm_params *p, double r);
/* The same for node_gups_plain. */
double tm_node_gups_plain(const tm_params *p, double r);

/* Mean number of updates per message of the baseline when `pending`
 * updates are spread over P-1 destinations and the largest bucket is sent
 * each time the limit is reached (paper 002 sec. 5.1).  Deterministic for a
 * given seed. */
double tm_bucket_sim(int P, int pending, long sends, unsigned long long seed);

#endif
