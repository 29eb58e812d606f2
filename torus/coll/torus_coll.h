/*
 * torus_coll.h - topology-aware collectives over the torus library's
 * transport interface (papers 000 and 004): barrier, bcast, allreduce and
 * alltoallv, each with several algorithms (one file each, headed by its
 * source, preconditions and alpha-beta cost), chosen from a table that
 * keys on arguments every rank shares, so every rank picks the same one.
 *
 * A context is one rank's view: the map (shape + placement, identical on
 * every rank) and this rank's transport, which must offer the message
 * interface (torus.h).  The same code runs over MPI (torus_mpi.h), the
 * functional simulator and the timed simulator (torus_coll_vrun below).
 * Every call is collective over the map's ranks and returns 0, or a
 * negative TORUS_COLL_E* code with one line in torus_coll_error().
 */
#ifndef TORUS_COLL_H
#define TORUS_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "torus.h"
#include "torus_sim.h"
#include "torus_timed.h"

/* Element types of allreduce, each combined in its own arithmetic by the
 * kernels of reduce_arith.c, reduce_logic.c and reduce_loc.c.  The pair
 * types of MAXLOC/MINLOC are packed, as MPI_Pack lays them out: the value,
 * then the index, no padding (MPI_DOUBLE_INT is 12 bytes, not 16), so an
 * element may sit at any byte offset; the kernels read them with memcpy.
 * The first three keep their numbers (the library's original types). */
typedef enum {
    TORUS_UINT64 = 0, TORUS_INT64, TORUS_DOUBLE,
    TORUS_INT8, TORUS_INT16, TORUS_INT32, TORUS_UINT8, TORUS_UINT16, TORUS_UINT32,
    TORUS_FLOAT, TORUS_LONG_DOUBLE,
    TORUS_FLOAT_COMPLEX, TORUS_DOUBLE_COMPLEX, TORUS_LONG_DOUBLE_COMPLEX,
    TORUS_BOOL,  /* C _Bool, one byte, 0 or 1 (logical ops) */
    TORUS_BYTE,  /* MPI_BYTE: bitwise ops only */
    TORUS_FLOAT_INT, TORUS_DOUBLE_INT, TORUS_LONG_INT, TORUS_2INT, TORUS_SHORT_INT, TORUS_LONG_DOUBLE_INT,
    TORUS_2FLOAT, TORUS_2DOUBLE, /* Fortran's MPI_2REAL, MPI_2DOUBLE_PRECISION: the index has the value's type */
    TORUS_NDTYPES
} torus_dtype;
/* The operations; which types each is defined on follows MPI (sum and prod
 * on integers, floating and complex types; min/max on integers and
 * floating; land/lor/lxor on integers and bool; band/bor/bxor on integers
 * and bytes; maxloc/minloc on the pairs): torus_coll_reduce_defined(). */
typedef enum {
    TORUS_OP_SUM = 0, TORUS_OP_MIN, TORUS_OP_MAX, TORUS_OP_BXOR,
    TORUS_OP_PROD, TORUS_OP_LAND, TORUS_OP_LOR, TORUS_OP_LXOR, TORUS_OP_BAND, TORUS_OP_BOR,
    TORUS_OP_MAXLOC, TORUS_OP_MINLOC,
    TORUS_NOPS
} torus_op;
typedef enum { TORUS_COLL_BARRIER = 0, TORUS_COLL_BCAST, TORUS_COLL_ALLREDUCE, TORUS_COLL_ALLTOALLV, TORUS_COLL_NCOLL } torus_coll_op;

enum {
    TORUS_COLL_EARG = -2,  /* bad argument (unknown name, bxor on doubles, root out of range) */
    TORUS_COLL_ENOMEM = -3,
    TORUS_COLL_ETRUNC = -4, /* a message longer than expected: counts differ between ranks */
};

typedef struct torus_coll torus_coll;

/* The MPI library under a caller, as a table row's `library` column names it. */
enum { TORUS_COLL_LIB_NONE = 0, TORUS_COLL_LIB_MPICH, TORUS_COLL_LIB_OPENMPI };

typedef struct torus_coll_config {
    const torus_map *map;   /* outlives the context; the same on every rank */
    int me;                 /* this rank */
    torus_transport *tp;    /* this rank's transport, with the message interface */
    const int *node_of;     /* node number of every rank (node-aware algorithms), or NULL: one rank per node */
    /* The MPI library under the caller (a table row's `library` column):
     * TORUS_COLL_LIB_NONE (0, the simulators) fits only rows for any. */
    int library;
    /* Called when a wait finds nothing to do: in a simulator, switch to
     * another virtual rank.  NULL (over MPI): the library spins 1000 idle
     * polls, then yields the core on every idle poll until something
     * completes (oversubscribed runs: let the peer we wait for run). */
    void (*idle)(void *ctx);
    void *idle_ctx;
} torus_coll_config;

int torus_coll_create(torus_coll **out, const torus_coll_config *cfg, char *err, size_t errlen);
void torus_coll_destroy(torus_coll *c);
const char *torus_coll_error(const torus_coll *c);

int torus_coll_barrier(torus_coll *c);
/* buf: bytes on every rank; root's bytes end up everywhere. */
int torus_coll_bcast(torus_coll *c, void *buf, size_t bytes, int root);
/* count elements of type t combined with op (a pair torus_coll_reduce_defined
 * accepts, else TORUS_COLL_EARG); sbuf may equal rbuf.  Every rank gets
 * bit-identical results: each element is combined in one order that the
 * algorithm fixes (the same on every rank and in every run), in the
 * element type's own arithmetic (a float sum rounds to float at each step). */
int torus_coll_allreduce(torus_coll *c, const void *sbuf, void *rbuf, size_t count, torus_dtype t, torus_op op);
/* 1 when op is defined on t (MPI's table of predefined operations). */
int torus_coll_reduce_defined(torus_dtype t, torus_op op);
/* Byte counts and displacements per rank, as MPI_Alltoallv with MPI_BYTE:
 * scounts[j] bytes at sbuf + sdispls[j] go to rank j, which receives them
 * at rbuf + its rdispls[me]; rcounts[i] must equal rank i's scounts[me]. */
int torus_coll_alltoallv(torus_coll *c, const void *sbuf, const size_t *scounts, const size_t *sdispls, void *rbuf,
                         const size_t *rcounts, const size_t *rdispls);

/* Uniform alltoall: `bytes` to every rank (a size every rank shares, so the
 * table may pick by it, e.g. Bruck for small blocks). */
int torus_coll_alltoall(torus_coll *c, const void *sbuf, void *rbuf, size_t bytes);

/* Empty alltoallv blocks: by default (0) the pairwise exchange sends them
 * as 0-byte messages, so that counts which disagree between ranks end in
 * TORUS_COLL_ETRUNC instead of a hang.  1: empty blocks are not exchanged
 * (MPI_Alltoallv's own rule, counts matching pairwise, is assumed): a rank
 * with nothing to send or receive sends no message, so a call whose
 * counts are all 0 costs nothing.  Set on every rank alike (the MPI
 * adapter sets it). */
void torus_coll_skip_empty(torus_coll *c, int on);

/* ---- algorithms and their choice ------------------------------------- */

/* Names of op's algorithms, NULL-terminated (static). */
const char *const *torus_coll_algorithms(torus_coll_op op);
const char *torus_coll_op_name(torus_coll_op op);
/* The setting that forces op's algorithm ("TORUS_COLL_BCAST"), NULL for
 * no op. */
const char *torus_coll_op_setting(torus_coll_op op);
/* Forces op's algorithm (name; NULL or "auto" = the table again).  The
 * environment variable TORUS_COLL_<OP>=name (read by torus_coll_create)
 * does the same.  An unknown name: TORUS_COLL_EARG. */
int torus_coll_force(torus_coll *c, torus_coll_op op, const char *name);
/* The algorithm the table picks for op on this map at `bytes` (per rank:
 * the message for bcast, the vector for allreduce, the largest block for
 * alltoallv), with its preconditions checked (fallbacks applied). */
const char *torus_coll_choice(const torus_coll *c, torus_coll_op op, size_t bytes);
/* The algorithm the last call of op ran. */
const char *torus_coll_last(const torus_coll *c, torus_coll_op op);

/* ---- a selection table from a file (docs/collectives.md, "Tuning") ----- */

/* The selection table's rows: the compiled ones (torus/coll/select.table,
 * put into the library at build time) and a file's (TORUS_COLL_TABLE=FILE,
 * tried first; written by `collbench --tune`) have one format, parsed by
 * torus_coll_table_read and matched by one function (route.c). */
typedef struct torus_coll_table_row {
    torus_coll_op op;
    int min_ranks, max_ranks;      /* -1: no bound */
    int min_dims;                  /* dimensions of size > 1 at least */
    int pow2, shared_nodes, uniform, deposit; /* 0, 1, or -1: any */
    int library;                   /* TORUS_COLL_LIB_MPICH, _OPENMPI, or -1: any */
    uint64_t min_bytes, max_bytes; /* max UINT64_MAX: no bound */
    char algorithm[32];
} torus_coll_table_row;
typedef struct torus_coll_table torus_coll_table;

torus_coll_table *torus_coll_table_new(void);
void torus_coll_table_free(torus_coll_table *t);
/* Reads a table file (a stream: name is what messages call it).  0, or
 * -1 with one line in err naming "FILE:LINE", the bad word and what is
 * allowed. */
int torus_coll_table_read(torus_coll_table **t, const char *path, char *err, size_t errlen);
int torus_coll_table_stream(torus_coll_table **t, FILE *f, const char *name, char *err, size_t errlen);
int torus_coll_table_rows(const torus_coll_table *t);
const torus_coll_table_row *torus_coll_table_row_at(const torus_coll_table *t, int i);
/* Appends a row (its algorithm checked against the registry): 0, or -1
 * with the reason in err. */
int torus_coll_table_add(torus_coll_table *t, const torus_coll_table_row *r, char *err, size_t errlen);
/* Row i's note: the comment after it in the file (why the row: command,
 * CPU, date, ratio), kept through a read and a write; "" when none.  Set
 * by the parser and collbench --tune; at most TORUS_COLL_NOTE_MAX bytes of
 * one line (control bytes become blanks).  Not part of the table's id. */
#define TORUS_COLL_NOTE_MAX 200
void torus_coll_table_set_note(torus_coll_table *t, int i, const char *text);
const char *torus_coll_table_note(const torus_coll_table *t, int i);
/* Drops op's rows for exactly `ranks` ranks (a re-tune replaces them). */
void torus_coll_table_drop(torus_coll_table *t, torus_coll_op op, int ranks);
/* The file format; the caller checks the stream (kit_outfile). */
void torus_coll_table_write(const torus_coll_table *t, FILE *f);
/* A hash of the rows' values, never 0. */
uint64_t torus_coll_table_hash(const torus_coll_table *t);
/* The process's table: TORUS_COLL_TABLE read once (the first call, or the
 * first collective).  Returns its id (torus_coll_table_hash; 0: the
 * compiled table).  A bad file: the compiled table, and its one line goes
 * to msg ("" if none; msg NULL: to stderr as "torus_coll: ...").  Ranks
 * must agree: a caller over MPI compares the ids once (one allreduce) and
 * calls torus_coll_table_off on every rank if they differ. */
uint64_t torus_coll_table_use(char *msg, size_t len);
/* The compiled table (torus/coll/select.table, put in at build time). */
const torus_coll_table *torus_coll_table_compiled(void);
/* Every context of this process uses the compiled table from now on. */
void torus_coll_table_off(void);
/* Two row algorithms name no torus algorithm, only calls a caller over MPI
 * can make (the MPI adapter, collbench): `mpi`, the MPI library's own
 * call, and `flat`, the node's shared area (torus/coll/flat.c: every rank
 * of the communicator on one node).  The torus library itself makes
 * neither: to its own selection a file's fitting `mpi` or `flat` row means
 * "the compiled table decides", and the compiled table's are skipped. */
#define TORUS_COLL_TABLE_LIBRARY "mpi"
#define TORUS_COLL_TABLE_FLAT "flat"

/* ---- a call's route, decided once (route.c) ----------------------------- */

/* Where a call runs. */
typedef enum { TORUS_ROUTE_TORUS = 0, TORUS_ROUTE_LIBRARY, TORUS_ROUTE_FLAT } torus_route_kind;
/* What the caller can do beside the torus algorithms (bits). */
enum {
    TORUS_ROUTE_FILE_CALLS = 1,     /* a file's mpi and flat rows apply */
    TORUS_ROUTE_COMPILED_CALLS = 2, /* the compiled table's mpi and flat rows apply */
    TORUS_ROUTE_FLAT_OK = 4,        /* the shared area can run this context's calls */
};
typedef struct torus_coll_route {
    torus_route_kind kind;
    int from_file;        /* the deciding row is the file's (TORUS_COLL_TABLE) */
    const char *name;     /* the torus algorithm's name, or "mpi", "flat" */
    /* the torus algorithm: the route's own, or where the route is not
     * TORUS_ROUTE_TORUS, the one that runs when the caller cannot take it
     * (a reduction the library would get wrong) */
    const void *alg;
    uint64_t hi;          /* the same route for every byte figure from the one asked to hi */
} torus_coll_route;
/* The route of op at byte figure `bytes` (bcast: the message, allreduce:
 * the vector, alltoallv: the uniform block, 0 for any counts; barrier 0)
 * on c, for a caller that can do `calls` (bits above): a forced algorithm
 * (TORUS_COLL_<OP>) first, then the first fitting row of the file, then of
 * the compiled table.  Reads only facts every rank shares. */
void torus_coll_route_of(const torus_coll *c, torus_coll_op op, uint64_t bytes, int uniform, int calls,
                         torus_coll_route *out);
/* Run a call on a route's torus algorithm (r NULL: the route decided
 * now, the same as the plain entry points). */
int torus_coll_barrier_on(torus_coll *c, const torus_coll_route *r);
int torus_coll_bcast_on(torus_coll *c, const torus_coll_route *r, void *buf, size_t bytes, int root);
int torus_coll_allreduce_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, void *rbuf, size_t count,
                            torus_dtype t, torus_op op);
int torus_coll_alltoall_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, void *rbuf, size_t bytes);
int torus_coll_alltoallv_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, const size_t *scounts,
                            const size_t *sdispls, void *rbuf, const size_t *rcounts, const size_t *rdispls);

/* 1 when op at `bytes` on c goes to the MPI library's own call by a
 * file's row (torus_coll_route_of with the file's calls): collbench's
 * auto rows. */
int torus_coll_table_wants_library(const torus_coll *c, torus_coll_op op, size_t bytes, int uniform);

/* Messages and bytes this rank has sent and received through the context. */
typedef struct torus_coll_counts {
    uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
} torus_coll_counts;
void torus_coll_get_counts(const torus_coll *c, torus_coll_counts *out);
void torus_coll_reset_counts(torus_coll *c);

/* Alpha-beta-gamma prediction of one call (seconds) for an algorithm on
 * this map: alpha per message on the critical path, beta per byte sent
 * on it, gamma per byte reduced; -1 when the algorithm cannot run here.
 * Each algorithm file's header states the same formula. */
double torus_coll_predict(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, double alpha,
                          double beta, double gamma);

/* The exact messages and bytes `rank` sends in one call of an algorithm
 * at `bytes` (uniform blocks for alltoallv), from the file's cost formula:
 * what the tests hold the simulator's counts to.  -1 if it cannot run. */
int torus__coll_cost_of(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, int rank,
                        uint64_t *msgs, uint64_t *sent);

/* ---- virtual ranks: the whole machine in one process -------------------- */

/* What one rank does: called on every rank of the map, each a coroutine
 * with its own context c over its endpoint of the simulated transport.
 * Returns 0 or an error code. */
typedef int (*torus_coll_body)(torus_coll *c, int rank, void *arg);

typedef struct torus_coll_vrun_result {
    int deadlock;     /* ranks left waiting that nothing could wake */
    int unfinished;   /* how many */
    int failed_rank;  /* the first rank whose body returned non-zero, -1 none */
    int rc;           /* its code */
    char err[256];    /* its error line */
    int open_requests; /* requests left open at the end (a leak in an algorithm) */
    uint64_t steps;
    torus_timed_stats timed; /* the timed run's figures (makespan, link use) */
} torus_coll_vrun_result;

/* Functional simulator: ranks stepped in a seeded random order, sends
 * eager or rendezvous, deliveries delayed at random (torus_sim_params);
 * a round where nothing moves is retried with every message visible, and
 * if nothing moves then either, it is a deadlock.  Returns 0, or -1 on out
 * of memory. */
int torus_coll_vrun_sim(const torus_map *m, const torus_sim_params *p, const int *node_of, torus_coll_body body,
                        void *arg, torus_coll_vrun_result *res);
/* Timed simulator: link bandwidth and latency, per-packet and per-message
 * CPU costs, gamma per byte reduced (torus_timed_params); res->timed gets
 * the makespan.  Returns 0 or -1 on out of memory. */
int torus_coll_vrun_timed(const torus_map *m, const torus_timed_params *p, const int *node_of, torus_coll_body body,
                          void *arg, torus_coll_vrun_result *res);
/* The simulated time of virtual rank `rank` inside a timed run (for
 * timing one collective from within a body); 0 elsewhere. */
double torus_coll_vtime(const torus_coll *c);

/* Sizes of the element types (packed: the pairs without padding); 0 for
 * a value that is not a type. */
size_t torus_dtype_size(torus_dtype t);

/* ---- multisend: persistent sparse many-to-many exchange (paper 001) ---- */

/* A plan: one pattern of blocks between ranks, set up once and replayed
 * by start/wait as often as the pattern repeats (MPI_Neighbor_alltoallv
 * on a distributed graph, made persistent as MPI-4's _init form). */
typedef struct torus_multisend torus_multisend;

/* Byte counts/displacements, like MPI_Neighbor_alltoallv with MPI_BYTE:
 * scounts[i] bytes at sbuf+sdispls[i] go to dests[i]; rcounts[j] bytes from
 * srcs[j] land at rbuf+rdispls[j].  Only destinations that get data need be
 * listed (zero counts allowed, self allowed, a peer may repeat: the k-th
 * block from s to d pairs with the k-th listing of s in d's srcs). */
typedef struct torus_multisend_spec {
    int ndest;
    const int *dests;
    const size_t *scounts;
    const size_t *sdispls;
    int nsrc;
    const int *srcs;
    const size_t *rcounts;
    const size_t *rdispls;
} torus_multisend_spec;

/* Collective over the map's ranks (every rank calls it, maybe with empty
 * lists).  algorithm: "direct" (one message per non-empty block),
 * "routed" (blocks aggregated dimension by dimension), or NULL/"auto"
 * (multisend.c states the rule; the same choice on every rank).  Copies
 * the spec.  The pattern is checked across ranks here, once: a rank that
 * lists a different number of blocks from a source than the source sends
 * it gives TORUS_COLL_EARG, a block whose size differs TORUS_COLL_ETRUNC,
 * on every rank (never a hang), with the first difference in
 * torus_coll_error() of the ranks that saw it.  *out is NULL on error. */
int torus_multisend_init(torus_coll *c, const torus_multisend_spec *s, const char *algorithm,
                         torus_multisend **out);
/* Starts one exchange (non-blocking): sbuf must stay unchanged and rbuf
 * untouched until the wait.  Starting a started plan or a NULL plan (one
 * used after torus_multisend_free): TORUS_COLL_EARG (for NULL the line is
 * torus_coll_error(NULL)).  Every rank starts its plans in the same order
 * (each start takes the context's next call tag, as a collective does). */
int torus_multisend_start(torus_multisend *p, const void *sbuf, void *rbuf);
/* Completes the started exchange (0 at once when none is started). */
int torus_multisend_wait(torus_multisend *p);
/* Progress without blocking: *done = 1 once the exchange has completed. */
int torus_multisend_test(torus_multisend *p, int *done);
/* Waits for a started exchange, frees the plan, sets *p = NULL. */
void torus_multisend_free(torus_multisend **p);
/* "direct" or "routed": what the plan runs ("" for NULL). */
const char *torus_multisend_algorithm(const torus_multisend *p);
/* 0 if spec is the pattern p was built for, else TORUS_COLL_EARG with the
 * first difference in torus_coll_error() (for caches, e.g. the adapter). */
int torus_multisend_check(torus_multisend *p, const torus_multisend_spec *s);
/* Names of the multisend algorithms, NULL-terminated (static). */
const char *const *torus_multisend_algorithms(void);

#endif
