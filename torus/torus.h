/*
 * torus.h - the torus/collective library: shapes of any number of
 * dimensions, rank <-> coordinate mapping, dimension-ordered software
 * routing, and a transport interface with an MPI and a simulated
 * implementation.  Knows nothing of RandomAccess.  Functions return 0 on
 * success and a negative value on error, with one line in `err`.
 */
#ifndef TORUS_H
#define TORUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TORUS_MAX_DIMS 24

/* A shape: ndims dimensions of k[i] positions, each a torus ring or a mesh
 * line (mesh[i]); n = product.  Dimension 0 is routed first ("x"). */
typedef struct torus_shape {
    int ndims;
    int k[TORUS_MAX_DIMS];
    int mesh[TORUS_MAX_DIMS];
    int n;
} torus_shape;

/* The one shape grammar of the kit (ra_opt --dims, sparsest_cut SHAPE,
 * torusmodel --shape); n > 0 is the process count the shape must cover,
 * n == 0 means the caller has none (a serial tool) and the shape itself
 * says how many positions it has.
 *
 *   8x4x2, 4x4x2m    sizes, dimension 0 first; 'm' after a size makes that
 *                    dimension a mesh line, else it is a torus ring; the
 *                    product must equal n when n > 0
 *   hypercube        log2(n) dimensions of 2 (n a power of two >= 2)
 *   hypercube:D      D dimensions of 2, D in 1..TORUS_MAX_DIMS, 2^D == n
 *                    when n > 0
 *   flat, flat:N     one torus dimension of n (or N, == n when n > 0)
 *   auto, auto:N     torus_shape_auto(n or N, TORUS_AUTO_BUDGET,
 *                    TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG)
 *
 * A hypercube joins each pair of partners by ONE link, so its dimensions
 * are meshes of 2 (mesh = 1, formatted "2mx2mx2m"), while a torus ring of 2
 * ("2x2x2") keeps its two parallel links, as BlueGene/L cables a 2-node
 * torus: the same word always names the same network.  Bare auto, flat and
 * hypercube need n > 0 (the error says to write the :N form).  Returns 0,
 * or -1 with one line in err that quotes the user's text escaped. */
int torus_shape_parse(const char *s, int n, torus_shape *out, char *err, size_t errlen);
/* The same checks, for a caller with its own "auto" (ra_opt's model):
 * auto and auto:N set *is_auto = 1 and only out->n (ndims 0), computing
 * no shape, so the one auto shape is the caller's, computed once; any
 * other form sets *is_auto = 0 and parses as torus_shape_parse. */
int torus_shape_parse_spec(const char *s, int n, torus_shape *out, int *is_auto, char *err, size_t errlen);
/* 1 when s is a bare auto, flat or hypercube: a shape whose size comes
 * from the process count (torus_shape_parse needs n > 0 for it). */
int torus_shape_needs_count(const char *s);

/* What "auto" costs a shape with when the caller has no figures of its own
 * (ra_opt's own "auto", ropt_auto_shape, uses the same t_hop and t_msg but
 * the fill its budget really gives once its send slots are counted too):
 * the budget is the routed algorithm's 1024 updates held per rank less 64
 * updates of look-ahead (its default when these figures were set; today's
 * default is ROPT_DEFAULT_LOOKAHEAD, 128, which ropt_auto_shape counts, and
 * this budget is kept so that the shapes torus_shape_auto picks stay as
 * they were);
 * t_hop and t_msg are seconds per routing hop and per message send+receive,
 * measured on the development machine (2-core VM, MPICH shared memory).
 * Only their ratio matters for the choice. */
#define TORUS_AUTO_BUDGET 960
#define TORUS_AUTO_T_HOP 25e-9
#define TORUS_AUTO_T_MSG 1.5e-6

/* Balanced factorisation of n into exactly d factors >= 2 (largest first);
 * -1 when n has fewer than d prime factors. */
int torus_shape_balanced(int n, int d, torus_shape *out);

/* Per-update software-routing cost model used by "auto": an update makes
 * H = sum(1 - 1/k_i) hops; each hop costs t_hop plus its share of a message,
 * t_msg / fill, where fill = floor(budget / sum k_i).  Returns H*(t_hop +
 * t_msg/fill), or a huge value when fill < 1. */
double torus_shape_cost(const torus_shape *s, int budget, double t_hop, double t_msg);

/* The one "auto" search: the balanced shapes of n in 1..TORUS_MAX_DIMS
 * dimensions, the one cost() rates lowest (ties: fewer dims; a shape that
 * cannot run costs 1e300; none runs: the 1-D shape).  The caller who knows
 * what a shape costs supplies it: torus_shape_auto the model above,
 * ra_opt (ropt_auto_shape) the fill its buffers really give. */
void torus_shape_search(int n, double (*cost)(const torus_shape *s, void *ctx), void *ctx, torus_shape *out);

/* torus_shape_search with torus_shape_cost: the balanced shape of n
 * minimising it (ties: fewer dims). */
void torus_shape_auto(int n, int budget, double t_hop, double t_msg, torus_shape *out);

/* Appends one extra dimension of size m (the node-local hop); mesh = 0. */
int torus_shape_append(torus_shape *s, int m);
/* Appends every dimension of part the same way (a node's one or two
 * dimensions after the nodes' shape); -1 when they do not fit, s then
 * partly extended. */
int torus_shape_append_shape(torus_shape *s, const torus_shape *part);

void torus_shape_format(const torus_shape *s, char *buf, size_t len);
double torus_expected_hops(const torus_shape *s); /* sum(1 - 1/k_i) */
int torus_shape_sum_k(const torus_shape *s);       /* sum k_i */

/* Mapping: coords[r*ndims + i] is rank r's coordinate i; rank_of[lin] the
 * rank at linear position lin = c0 + k0*(c1 + k1*(c2 ...)). */
typedef struct torus_map {
    torus_shape shape;
    int *coords;
    int *rank_of;
} torus_map;

/* XYZT order: rank r sits at linear position r (dimension 0 fastest). */
int torus_map_xyzt(torus_map *m, const torus_shape *s);
/* Node-local last dimension: s is (node shape) x (ranks per node), the
 * product of the node shape is nnodes, and node_local[2r], node_local[2r+1]
 * are rank r's node number and index on its node.  Nodes take XYZT
 * positions in the node shape; the last coordinate is the index on the
 * node, so the last hop stays inside a node. */
int torus_map_nodes(torus_map *m, const torus_shape *s, int nnodes, const int *node_local);
/* One line per rank, in rank order, of ndims whitespace-separated
 * coordinates; '#' starts a comment; blank lines ignored.  Every coordinate
 * in range and every position used exactly once. */
int torus_map_file(torus_map *m, const torus_shape *s, const char *path, char *err, size_t errlen);
/* The same over a stream the caller owns (the fuzzer's buffer); name is
 * what messages call it.  Limits: lines of TORUS_MAP_LINE_MAX bytes,
 * TORUS_MAP_MAX_BYTES in all; longer is an error, never a split line. */
#define TORUS_MAP_LINE_MAX 4096
#define TORUS_MAP_MAX_BYTES (1ULL << 32)
int torus_map_stream(torus_map *m, const torus_shape *s, FILE *f, const char *name, char *err, size_t errlen);
void torus_map_free(torus_map *m);

/* An emulated node layout (node_layout.c, docs/running.md "Several nodes
 * on one machine"): TORUS_NODES=k, k nodes of consecutive ranks (k must
 * divide nranks), or TORUS_HOSTFILE=FILE, one host name per rank, ranks
 * with the same name on one node.  Returns 0 when neither is set, 1 with
 * *node_of (malloc'ed, nranks entries: every rank's node, nodes numbered
 * by their lowest rank), -2 bad input or -3 out of memory with one line
 * in err.  Reads the environment and the file only: the same on every
 * rank given the same environment (node.c checks that it is). */
int torus_node_override(int nranks, int **node_of, char *err, size_t errlen);
/* The host file's reader (over a path, or a stream the caller owns, named
 * name in messages): blank lines and '#' comments skipped, blanks around
 * a name ignored, names of letters, digits, '.', '-', '_' up to
 * TORUS_HOST_NAME_MAX; exactly nranks names.  node_of as above; 0, -2 or
 * -3 with one line in err. */
#define TORUS_HOST_NAME_MAX 255
#define TORUS_HOSTS_LINE_MAX 1024
#define TORUS_HOSTS_MAX_BYTES (16ULL << 20)
int torus_hosts_file(int *node_of, int nranks, const char *path, char *err, size_t errlen);
int torus_hosts_stream(int *node_of, int nranks, FILE *f, const char *name, char *err, size_t errlen);
int torus_map_linear(const torus_shape *s, const int *c);

/* Dimension-ordered routing for one rank.  Buckets are numbered per
 * dimension: bucket offset[d] + c is "the router at coordinate c along d"
 * (c == own coordinate is the dimension's receive slot, never a target).
 * next[dest] is the bucket of the next hop towards dest, or -1 if dest is
 * this rank.  peer[b] is the rank of bucket b's router. */
typedef struct torus_route {
    int me, n, ndims, nbuckets;
    int offset[TORUS_MAX_DIMS + 1];
    int my_coord[TORUS_MAX_DIMS];
    int16_t *bucket_dim; /* nbuckets */
    int *peer;           /* nbuckets: rank, -1 for own slots */
    int32_t *next;       /* n, or NULL: computed from coords (compact) */
    const int *coords;   /* compact routes: the map's coordinates, shared */
} torus_route;

int torus_route_build(torus_route *r, const torus_map *m, int me);
/* The same without the n-entry table (for simulating 64K ranks in one
 * process): next hops are computed from the map, which must outlive r. */
int torus_route_build_compact(torus_route *r, const torus_map *m, int me);

/* Bucket of the next hop towards dest, -1 when dest is this rank. */
static inline int torus_route_next(const torus_route *r, int dest)
{
    if (r->next)
        return r->next[dest];
    const int *dc = r->coords + (size_t)dest * (size_t)r->ndims;
    for (int d = 0; d < r->ndims; d++)
        if (dc[d] != r->my_coord[d])
            return r->offset[d] + dc[d];
    return -1;
}
void torus_route_free(torus_route *r);

/* ---- transport: what the routing algorithm talks to ------------------- */

typedef struct torus_packet {
    uint64_t *data; /* owned by the transport until release() */
    int n;          /* words */
    int last;       /* the sender's finish mark on this dimension */
} torus_packet;

/* A polling loop that found nothing to do this many times in a row
 * yields its core (sched_yield): MPICH's shared-memory transport busy-waits,
 * and oversubscribed runs (more ranks than cores) would otherwise starve
 * the peer they wait for.  The default spin of torus_idle (below). */
#define TORUS_IDLE_POLLS 16

/* A message request of the message interface (below): an index into the
 * transport's own request table, so that this header needs no MPI. */
typedef struct torus_req {
    int id; /* -1: none */
} torus_req;

/* Per dimension d: may I send (a send slot is free)?  send a buffer of n
 * words to the router at coordinate `to` (the transport takes the buffer
 * and hands back an empty one of the same capacity through *buf, so no
 * copy is made); is a packet waiting (fills pkt, holds it); release it.
 * quiescent(): every send has completed.  sending() (optional, NULL where
 * a transport cannot tell): the words handed to send() along d whose send
 * has not completed as far as the transport knows (MPI: not yet tested
 * complete), so that the algorithm can count them as held.  This packet
 * interface is what the routed RandomAccess runs on; it stays as lean as
 * it was.
 *
 * The message interface serves the collectives (torus/coll/): messages of
 * any size to any rank of the map (a whole-world dimension, not only
 * along lines), matched at the receiver by (source rank, tag) in the
 * order they were sent.  isend/irecv start an operation and fill *r;
 * test() returns 1 once it has completed (a receive: the data is in buf),
 * 0 while not, negative on an error (a receive whose message is longer
 * than its buffer).  A completed request is freed by test().  reduced()
 * tells the transport that the caller combined `bytes` bytes of data: the
 * timed transport charges its per-byte reduction cost (NULL elsewhere).
 * Transports that do not offer messages leave these NULL.
 *
 * line_send() (optional, NULL where a transport has none) is paper 000's
 * deposit bit (sec. 3, 3.2): the same `bytes` to every other rank of my
 * line along dimension d (my coordinates except along d), injected once
 * per direction of the line and deposited at every node it passes.  Each
 * rank of the line receives it as an ordinary message from me with this
 * tag, in order with my other messages to it; the one request completes
 * as isends to all of them would.  torus/coll falls back to one isend per
 * rank of the line where it is NULL (the MPI transport). */
/* A packet buffer a transport hands back through send()'s *buf (a swap)
 * has room for this many words beyond the capacity it was made for, as the
 * caller's own buffers do: ra_opt's split stores whole vectors of eight
 * past a list's last word (optimized/ropt_pipe.c). */
#define TORUS_BUF_SLACK_WORDS 8

typedef struct torus_transport {
    void *impl;
    int (*can_send)(void *impl, int d);
    int (*send)(void *impl, int d, int to, uint64_t **buf, int n, int last);
    int (*poll)(void *impl, int d, torus_packet *pkt);
    void (*release)(void *impl, int d);
    int (*quiescent)(void *impl);
    int (*sending)(void *impl, int d);
    /* message interface */
    int (*isend)(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r);
    int (*irecv)(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r);
    int (*test)(void *impl, torus_req *r);
    void (*reduced)(void *impl, size_t bytes);
    int (*line_send)(void *impl, int d, const void *buf, size_t bytes, int tag, torus_req *r);
    /* how this transport waits long (optional, NULL: a timed nanosleep):
     * block until work may have arrived or timeout_ns passed; 1 if it slept */
    int (*sleep)(void *impl, long timeout_ns);
} torus_transport;

/* ---- idle: the one back-off policy of every polling loop (idle.c) ----- */

/* The longest one sleep of torus_idle_wait lasts (a transport wakes early
 * when work arrives). */
#define TORUS_IDLE_SLEEP_NS 1000000L

/* A loop's idle state.  spin: idle polls that return at once; then each
 * idle poll yields the core until sleep_at (0: yield for ever), from
 * where it sleeps through tp->sleep (tp NULL or without one: 1 us doubling
 * to 64 us).  The algorithm decides when it is idle, the transport how a
 * long wait sleeps. */
typedef struct torus_idle {
    int polls, spin, sleep_at;
    const torus_transport *tp;
} torus_idle;

void torus_idle_init(torus_idle *w, int spin, int sleep_at, const torus_transport *tp);
/* After a poll that found nothing to do. */
void torus_idle_wait(torus_idle *w);
/* After a poll that found work. */
static inline void torus_idle_reset(torus_idle *w)
{
    w->polls = 0;
}

#endif
