/*
 * sparsest_cut.h - smallest edge expansion (the sparsest cut of paper 002 sec. 4.2)
 * of a network, from a torus/mesh shape or a general capacitated graph.
 *
 *   alpha(G) = min over S with 0 < w(S) <= W/2 of C(S, S-bar) / w(S)
 *
 * w(v) is a node's number of endpoints (1 by default, 0 for a switch that
 * carries none), W the total.  For a directed graph a cut's capacity is the
 * smaller of its two directions, C(S->S-bar) and C(S-bar->S): traffic is
 * uniform, so the weaker direction binds.  Capacities are in units of one
 * link.  Functions return 0 on success and a negative value on error, with
 * one line in `err`.
 */
#ifndef SPARSEST_CUT_H
#define SPARSEST_CUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "torus.h"

/* A graph in compressed rows.  Out-edges (off/adj/cap) and in-edges
 * (ioff/iadj/icap; the same arrays when undirected), parallel links merged
 * into one edge carrying their summed capacity, no self-loops. */
typedef struct sc_graph {
    int n;
    int directed;
    int weights_integral; /* every w(v) is a whole number */
    double wtotal;
    double *w;
    int *off, *adj;
    double *cap;
    int *ioff, *iadj;
    double *icap;
} sc_graph;

/* Edge collection before sc_graph_build. */
typedef struct sc_edges {
    int n, directed;
    size_t count, room;
    int *u, *v;
    double *c;
    double *w; /* n node weights, default 1 */
    char **names; /* n names from a fabric's file (freed with e), or NULL */
} sc_edges;

int sc_edges_init(sc_edges *e, int n, int directed);
int sc_edges_add(sc_edges *e, int u, int v, double c);
void sc_edges_free(sc_edges *e);
/* Builds g from e (e stays owned by the caller).  Checks the graph is
 * connected (strongly, when directed) and has two endpoints. */
int sc_graph_build(sc_graph *g, const sc_edges *e, char *err, size_t errlen);
void sc_graph_free(sc_graph *g);

/* The torus/mesh graph of a shape (torus_shape_parse is the grammar):
 * ring links in each torus dimension (a ring of 2 has its two links in
 * parallel, as a 2-node torus is cabled, so "2x2x2" has two links between
 * partners), line links in a mesh dimension (so "2mx2mx2m", the grammar's
 * "hypercube:3", has one), one endpoint per node.  Node id is the linear
 * position c0 + k0*(c1 + k1*(...)). */
int sc_graph_from_shape(sc_graph *g, const torus_shape *s, char *err, size_t errlen);

/* Plain-text edge list (see docs/model.md, "Graph files") or METIS graph format.
 * 0, or -2 bad input / -3 out of memory with one line in err.  Limits
 * (docs/reliability.md): node ids below SC_FILE_MAX_NODES, at most
 * SC_FILE_MAX_LINKS links (METIS: edges), lines of SC_LINE_MAX bytes
 * (METIS vertex lines SC_METIS_LINE_MAX), files of SC_FILE_MAX_BYTES. */
#define SC_FILE_MAX_NODES (1 << 26)
#define SC_FILE_MAX_LINKS (1L << 27)
#define SC_LINE_MAX 4096
#define SC_METIS_LINE_MAX (64 << 20)
#define SC_FILE_MAX_BYTES (1ULL << 32)
/* Capacities and node weights (> 0) in files lie in SC_NUM_MIN..SC_NUM_MAX:
 * with at most SC_FILE_MAX_LINKS links every sum, ratio and bound derived
 * from them stays finite (a capacity near the largest double made
 * alpha -1 and bisection inf, and the eigen solver crash). */
#define SC_NUM_MIN 1e-30
#define SC_NUM_MAX 1e30
int sc_read_edgelist(const char *path, sc_edges *e, char *err, size_t errlen);
int sc_read_metis(const char *path, sc_edges *e, char *err, size_t errlen);
/* The same over a stream the caller owns (the fuzzers' buffers); name is
 * what messages call it; node ids below max_nodes (<= SC_FILE_MAX_NODES:
 * the fuzzers pass less, so that inputs naming a huge graph do not spend
 * each execution allocating it). */
int sc_read_edgelist_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen);
int sc_read_metis_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen);

/* A real machine's files, read as their tools write them (docs/model.md,
 * "Files a cluster already has"): `ibnetdiscover` output (CAs are
 * endpoints, switches and routers carry none, capacities in Gb/s from
 * width x lane rate), Slurm's topology.conf and topology.yaml (nodes are
 * endpoints, each switch-child pair one link of capacity LinkSpeed, else
 * 1).  Same contract and limits as the readers above. */
int sc_read_ibnet(const char *path, sc_edges *e, char *err, size_t errlen);
int sc_read_slurm(const char *path, sc_edges *e, char *err, size_t errlen);
int sc_read_slurm_yaml(const char *path, sc_edges *e, char *err, size_t errlen);
int sc_read_ibnet_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen);
int sc_read_slurm_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen);
int sc_read_slurm_yaml_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen);
/* The format of a graph file, from its content (the first lines) and, for
 * METIS, its name: "ibnetdiscover", "slurm", "slurm-yaml", "metis" or
 * "edgelist".  A file that cannot be opened is "edgelist": its reader
 * says why. */
const char *sc_detect_format(const char *path);
/* A graph file read and built, in the format given (NULL: detected). */
typedef struct sc_file_graph {
    sc_graph g;
    const char *format; /* the format read */
    char **names;       /* g.n node names (ibnetdiscover, Slurm), or NULL */
} sc_file_graph;
int sc_file_graph_read(sc_file_graph *fg, const char *path, const char *format, char *err, size_t errlen);
void sc_file_graph_free(sc_file_graph *fg);
/* What a capacity of 1 is in a file of this format: "Gb/s"
 * (ibnetdiscover), "LinkSpeed" (topology.conf) or "link". */
const char *sc_capacity_unit(const char *format);


/* Cut of a set (in[v] != 0 means v in S): both directions. */
void sc_cut(const sc_graph *g, const unsigned char *in, double *out, double *inward, double *wS);
/* C(S)/min(w(S), W - w(S)), or -1 when one side has no endpoint. */
double sc_ratio(const sc_graph *g, const unsigned char *in);

typedef struct sc_result {
    const char *method;    /* closed-form, exact, bounds */
    double alpha, alpha_lower, alpha_upper;
    double bisection, bisection_lower; /* links across the best balanced cut */
    const char *bisection_method;      /* closed-form, exact, upper-bound, none */
    double lambda2;        /* bounds: second eigenvalue behind alpha_lower */
    const char *upper_from; /* bounds: which search found alpha_upper */
    unsigned char *set;    /* n: the set achieving alpha_upper (caller frees) */
    int n;
    double wtotal;
} sc_result;

/* Closed form for a torus/mesh shape: the best slab (half of one
 * dimension).  Needs s->n >= 2. */
int sc_closed_form(const torus_shape *s, sc_result *r, int want_set, char *err, size_t errlen);
/* Every cut, by Gray code; n <= SC_EXACT_MAX. */
#define SC_EXACT_MAX 30
int sc_exact(const sc_graph *g, sc_result *r, char *err, size_t errlen);
/* Certified bounds: upper from spectral sweeps, METIS bisections and local
 * refinement; lower from Cheeger (lambda2 / 2).  n <= SC_BOUNDS_MAX. */
#define SC_BOUNDS_MAX 8192
int sc_bounds(const sc_graph *g, sc_result *r, char *err, size_t errlen);

/* Local refinement of a set: single-node moves while the ratio drops.
 * Returns the final ratio. */
double sc_refine(const sc_graph *g, unsigned char *in, int max_passes);

void sc_result_free(sc_result *r);

/* Endpoints with one neighbour (hosts on their leaf) folded into it
 * (fold.c, with the proof): alpha(G) = min(rho, alpha(H)), H the folded
 * graph.  map[v] is v's node in H (a folded host: its switch's). */
typedef struct sc_fold {
    int *map;
    long folded;  /* endpoints folded; 0: nothing to fold, h untouched */
    double rho;   /* min over folded hosts of link capacity / weight */
    int rho_node; /* a host achieving rho */
} sc_fold;
/* 0 with h built when f->folded > 0, or -2 / -3 with one line in err. */
int sc_fold_pendants(const sc_graph *g, sc_graph *h, sc_fold *f, char *err, size_t errlen);
/* H's result rh as G's: the bounds min'd with rho, the set lifted (rh's set
 * is freed; r owns its own). */
void sc_fold_lift(const sc_graph *g, const sc_fold *f, const sc_result *rh, sc_result *r);
void sc_fold_free(sc_fold *f);
/* alpha of a general graph as --method auto finds it: enumeration up to
 * SC_AUTO_EXACT_MAX nodes (about a second), else hosts folded first and
 * the folded graph enumerated or bounded (f says what was folded; *hn the
 * folded graph's nodes).  0, or -2 / -3 with one line in err. */
#define SC_AUTO_EXACT_MAX 28
int sc_alpha_auto(const sc_graph *g, sc_result *r, sc_fold *f, int *hn, char *err, size_t errlen);
/* The same past enumeration: folded, then enumerated or bounded. */
int sc_alpha_folded(const sc_graph *g, sc_result *r, sc_fold *f, int *hn, char *err, size_t errlen);

/* A fabric as a tree (tree.c): hosts at level 0, each switch one above its
 * nearest host; a tree when every link joins adjacent levels (switches
 * and routers hanging off one port alone are set aside as attached).
 * Per level: switches, capacity down and up (taper = down / up), and the
 * irregular ones: switches with less up capacity than their level's most
 * (fewer uplinks or slower cables), hosts on a slower link than the most. */
#define SC_TREE_MAX_LEVELS 8
#define SC_TREE_MAX_SHOWN 8
typedef struct sc_tree {
    int is_tree, levels;
    char why_not[160];
    long hosts, attached, irregular, slow_hosts;
    long switches[SC_TREE_MAX_LEVELS + 1];
    double down[SC_TREE_MAX_LEVELS + 1], up[SC_TREE_MAX_LEVELS + 1];
    int nirr, nslow;
    struct {
        int node, level;
        double cap, cap_max;
    } irr[SC_TREE_MAX_SHOWN], slow[SC_TREE_MAX_SHOWN];
} sc_tree;
/* 0, or -3 out of memory. */
int sc_tree_recognise(const sc_graph *g, sc_tree *t);
/* The tree_* key lines (names: node names or NULL for ids). */
void sc_tree_print(FILE *f, const sc_tree *t, char *const *names);

/* A physical network: a torus/mesh shape, a k-ary n-tree fat-tree or a
 * dragonfly (sparsest_cut/networks.c, grammar in docs/machines.md):
 *   SHAPE | fattree:K,N[,T] | dragonfly:A,P,H[,G]
 * Hosts are the endpoints (w = 1), switches carry none (w = 0). */
typedef enum { SC_NET_TORUS = 0, SC_NET_FATTREE = 1, SC_NET_DRAGONFLY = 2 } sc_net_kind;
typedef struct sc_network {
    sc_net_kind kind;
    torus_shape torus;   /* SC_NET_TORUS */
    int k, levels;       /* fat-tree: K-ary, N levels */
    double taper;        /* fat-tree: leaf uplinks carry 1/T of a host link */
    int a, p, h, g;      /* dragonfly */
    long hosts, switches;
} sc_network;
/* 0, or -2 with one line naming the bad text and what is allowed. */
int sc_network_parse(const char *txt, sc_network *net, char *err, size_t errlen);
void sc_network_format(const sc_network *net, char *buf, size_t len);
/* alpha (links per host) and bisection in closed form (a torus: as
 * sc_closed_form); bisection_method "none" where no closed form is given. */
int sc_network_closed_form(const sc_network *net, sc_result *r, char *err, size_t errlen);
/* The graph: hosts 0..hosts-1, then switches (weight 0). */
int sc_graph_from_network(sc_graph *g, const sc_network *net, char *err, size_t errlen);

#endif
