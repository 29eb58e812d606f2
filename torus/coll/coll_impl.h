/*
 * coll_impl.h - internal to torus/coll/: what every algorithm file uses.
 *
 * An algorithm is a torus__coll_alg: a name, its collective, a
 * precondition check, the run function, and its cost formula (exact
 * messages and bytes this rank sends, and the critical path in alpha-beta-
 * gamma terms).  Files register themselves in registry.c.  Algorithms
 * talk to peers only through the helpers below (blocking send/recv built
 * on the transport's message interface), so they run unchanged over MPI,
 * the functional simulator and the timed simulator.
 */
#ifndef TORUS_COLL_IMPL_H
#define TORUS_COLL_IMPL_H

#include "torus_coll.h"

/* The arguments of one call, as every algorithm of the op sees them. */
typedef struct torus__coll_args {
    torus_coll_op op;
    /* bcast */
    void *buf;
    size_t bytes; /* bcast: message; allreduce: count * size; alltoall: per pair (uniform) */
    int root;
    /* allreduce */
    const void *sbuf;
    void *rbuf;
    size_t count;
    size_t esize; /* bytes of one element of dt (bytes = count * esize) */
    torus_dtype dt;
    torus_op rop;
    /* alltoallv (uniform alltoall fills them too) */
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
    int uniform; /* every block has `bytes` bytes (a shared fact) */
} torus__coll_args;

/* The cost of one call at one rank: exact counts of what it sends, and the
 * critical path of the algorithm: rounds of messages (alpha), bytes sent in
 * sequence (beta), bytes combined in sequence (gamma). */
typedef struct torus__coll_cost {
    uint64_t msgs, bytes;
    double rounds, path_bytes, reduce_bytes;
} torus__coll_cost;

typedef struct torus__coll_alg {
    const char *name;
    torus_coll_op op;
    const char *summary;
    /* 1 when it can run here (map, shared arguments); the same on every rank */
    int (*ok)(const torus_coll *c, const torus__coll_args *a);
    int (*run)(torus_coll *c, const torus__coll_args *a);
    void (*cost)(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *out);
} torus__coll_alg;

struct torus_coll {
    const torus_map *map;
    int me, n, ndims;
    torus_transport *tp;
    const int *node_of;
    int shared_nodes; /* some node holds several ranks (found once at creation) */
    int library;      /* the MPI library under the caller (TORUS_COLL_LIB_*) */
    void (*idle)(void *ctx);
    void *idle_ctx;
    torus_idle idle_wait; /* torus__idle's state (torus/idle.c) */
    int seq;          /* calls so far: the tag of the current call */
    int skip_empty;   /* alltoallv: empty blocks are not exchanged (torus_coll_skip_empty) */
    uint64_t progress; /* operations completed: the virtual-rank runner watches it */
    torus_coll_counts counts;
    const torus__coll_alg *forced[TORUS_COLL_NCOLL];
    const torus__coll_alg *last[TORUS_COLL_NCOLL];
    int noticed[TORUS_COLL_NCOLL];
    struct torus__scratch_block *scratch; /* freed at the end of each call */
    char err[256];
};

/* registry.c: every algorithm (the <op>.def lists), and the lookup by name */
extern const torus__coll_alg *const torus__coll_listed[];
extern const int torus__coll_nlisted;
const torus__coll_alg *torus__coll_find(torus_coll_op op, const char *name);
/* select.c: the torus library's own choice from the tables for these
 * arguments (no mpi or flat row; preconditions checked) */
const torus__coll_alg *torus__coll_select(const torus_coll *c, const torus__coll_args *a);
/* How many of the shape's dimensions are longer than 1: what a selection
 * row's dims column compares (select.c and the file's rows, select_table.c;
 * defined in ranks.c, below both). */
int torus__coll_dims_over_one(const torus_shape *s);

/* ---- messaging (p2p.c) ------------------------------------------------- */
/* Non-blocking: start, then torus__wait on the requests.  A peer equal to
 * me is a local copy handled by the caller, never a message. */
int torus__isend(torus_coll *c, int peer, const void *buf, size_t bytes, torus_req *r);
int torus__irecv(torus_coll *c, int peer, void *buf, size_t bytes, torus_req *r);
int torus__wait(torus_coll *c, torus_req *r, int n);
/* A wait that found nothing to do: the context's idle hook (a simulator
 * switches virtual rank), else torus_idle: spin a while, then yield the
 * core.  A completed request resets it. */
void torus__idle(torus_coll *c);
int torus__send(torus_coll *c, int peer, const void *buf, size_t bytes);
int torus__recv(torus_coll *c, int peer, void *buf, size_t bytes);
int torus__sendrecv(torus_coll *c, int dst, const void *sbuf, size_t sbytes, int src, void *rbuf, size_t rbytes);
/* For algorithms that keep requests in flight and start more as others
 * complete: 1 once r has completed (r->id becomes -1; an id of -1 is
 * complete), 0 while not, TORUS_COLL_ETRUNC (also completed) for a
 * receive that was too short.  A pass that completed nothing calls
 * torus__idle, as a wait does. */
int torus__test(torus_coll *c, torus_req *r);
/* The same bytes to every other rank of my line along d (paper 000's
 * deposit bit where the transport has line_send, else one isend each):
 * starts 1 or k_d - 1 requests at r[*nr], *nr grows by as many (room for
 * k_d - 1 needed).  Counted as k_d - 1 messages either way: each rank of
 * the line receives it as a message from me (torus__irecv). */
int torus__line_send(torus_coll *c, int d, const void *buf, size_t bytes, torus_req *r, int *nr);

/* A reduction kernel: dst[i] = a[i] op b[i] for n elements, a first (the
 * order the algorithm fixes); dst may be a or b, never a partial overlap.
 * One per (type, op) MPI defines, in one file per family of ops:
 * reduce_arith.c (sum, prod, min, max), reduce_logic.c (land, lor, lxor,
 * band, bor, bxor), reduce_loc.c (maxloc, minloc).  Each returns NULL for
 * a pair it does not hold. */
typedef void (*torus__reduce_fn)(void *dst, const void *a, const void *b, size_t n);
/* Defines kernel `name`: d[i] = EXPR over u = a[i], v = b[i], elements
 * of C type T (reduce_arith.c and reduce_logic.c; gcc -O3 vectorises it
 * with a run-time overlap check). */
#define TORUS__REDUCE_KERNEL(name, T, EXPR)                                                                    \
    static void name(void *dst, const void *a, const void *b, size_t n)                                        \
    {                                                                                                          \
        T *d_ = dst;                                                                                           \
        const T *x_ = a, *y_ = b;                                                                              \
        for (size_t i_ = 0; i_ < n; i_++) {                                                                    \
            T u = x_[i_], v = y_[i_];                                                                          \
            d_[i_] = (EXPR);                                                                                   \
        }                                                                                                      \
    }
torus__reduce_fn torus__reduce_arith(torus_dtype t, torus_op op);
torus__reduce_fn torus__reduce_logic(torus_dtype t, torus_op op);
torus__reduce_fn torus__reduce_loc(torus_dtype t, torus_op op);
/* The kernel of (t, op) from whichever family holds it; NULL: undefined. */
torus__reduce_fn torus__reduce_kernel(torus_dtype t, torus_op op);

/* dst[i] = dst[i] op src[i] for count elements (charges the timed model). */
void torus__reduce(torus_coll *c, void *dst, const void *src, size_t count, torus_dtype t, torus_op op);
/* dst[i] = a[i] op b[i], a written first: the order of the operands is
 * the algorithm's fixed order. */
void torus__reduce3(torus_coll *c, void *dst, const void *a, const void *b, size_t count, torus_dtype t, torus_op op);

/* ok() of an algorithm without preconditions (any N, shape, size). */
int torus__coll_runs_anywhere(const torus_coll *c, const torus__coll_args *a);
/* The largest power of two <= n (n >= 1). */
int torus__floor_pow2(int n);
/* MPICH's fold for N = p + rem ranks: the first 2 rem ranks pair up and
 * the even one of each pair stays; the real rank of folded rank j. */
int torus__fold_rank(int j, int rem);

/* Scratch memory owned by the call (scratch.c; the dispatcher, coll.c,
 * frees it all with torus__scratch_free when the call ends). */
void *torus__scratch(torus_coll *c, size_t bytes);
void torus__scratch_free(torus_coll *c);

/* Coordinates and ranks along dimensions (ranks.c). */
const int *torus__coords(const torus_coll *c, int rank);
/* The rank at my coordinates except coordinate `pos` along dimension d. */
int torus__line_rank(const torus_coll *c, int rank, int d, int pos);
/* An error line; returns code (coll_error.c). */
int torus__fail(torus_coll *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
