/*
 * pmpi_impl.h - internal to pmpi/, the MPI profiling-interface adapter
 * (libtorus_pmpi.so, paper 004's lesson: a collectives library is used when
 * it plugs into the MPI people already run).  LD_PRELOADed, it defines
 * MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Alltoallv and
 * MPI_Neighbor_alltoallv (pmpi_calls.c, pmpi_alltoall.c, pmpi_neighbor.c),
 * plus MPI_Init, MPI_Init_thread and MPI_Finalize for its settings and its
 * stats; each collective either runs the torus collective (torus/coll/) on
 * a communicator state cached on the user's communicator, or passes the
 * call straight to the MPI library's PMPI_ entry, counting why.
 *
 * One path for all ranks, by construction: every decision (intercept or
 * fall through, the algorithm, a zero-byte return, in-place handling)
 * rests only on what MPI requires to match on every rank: the type
 * signature reduced to its byte count and, for reductions, to (predefined
 * element type, element count) (pmpi_types.c), the op, the root, the
 * communicator, MPI_IN_PLACE (which MPI requires on all ranks or none),
 * and the environment (checked equal on every rank at MPI_Init).  The
 * datatype handle a rank passed decides only how that rank lays its own
 * bytes out: read in place when they are one contiguous run, packed and
 * unpacked around the torus call when not (pmpi_layout.c).  docs/mpi-adapter.md
 * has the whole contract.
 */
#ifndef TORUS_PMPI_IMPL_H
#define TORUS_PMPI_IMPL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torus_coll.h"
#include "torus_mpi.h"
#include "kit_cli.h"

/* Every entry point the version script exports (pmpi/exports.map). */
#define PM_EXPORT __attribute__((visibility("default")))
/* The per-thread flag every call reads first: in the static TLS block, one
 * load from the thread pointer, not a __tls_get_addr call (the adapter is
 * preloaded, so it is there when the program starts). */
#define PM_TLS __attribute__((tls_model("initial-exec")))
/* The fast paths' tests: the common case falls straight through. */
#define PM_LIKELY(x) __builtin_expect(!!(x), 1)
#define PM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The intercepted operations, in the order the stats lines print them. */
typedef enum {
    PM_BARRIER = 0,
    PM_BCAST,
    PM_ALLREDUCE,
    PM_ALLTOALL,
    PM_ALLTOALLV,
    PM_NEIGHBOR_ALLTOALLV,
    PM_NOPS
} pm_op;

/* The torus collective that runs op (alltoall: alltoallv's), for every op
 * but PM_NEIGHBOR_ALLTOALLV (multisend's). */
static inline torus_coll_op pm__coll_op(pm_op op)
{
    static const torus_coll_op coll_of[PM_NEIGHBOR_ALLTOALLV] = {TORUS_COLL_BARRIER, TORUS_COLL_BCAST,
                                                                 TORUS_COLL_ALLREDUCE, TORUS_COLL_ALLTOALLV,
                                                                 TORUS_COLL_ALLTOALLV};
    return coll_of[op];
}

/* Why a call went to the MPI library (stats: "fell_through N (reason n, ...)"). */
typedef enum {
    PM_OK = 0,
    PM_WHY_OFF,       /* TORUS_COLL=off */
    PM_WHY_INTERCOMM, /* an intercommunicator */
    PM_WHY_DATATYPE,  /* a reduction whose signature is not one predefined element type (mixed, MPI_CHAR, ...) */
    PM_WHY_USER_OP,   /* a user-defined reduction */
    PM_WHY_TYPE_OP,   /* a predefined op MPI does not define on this type (MPI_REPLACE, MPI_SUM on bytes) */
    PM_WHY_REPRO,     /* TORUS_COLL_REPRO=library: a floating sum or product, whose last bits follow the order */
    PM_WHY_ARGS,      /* arguments MPI will reject (null handles, negative count, bad root) */
    PM_WHY_SETUP,     /* the communicator's torus state could not be built */
    PM_WHY_TOPOLOGY,  /* a neighbourhood call on a communicator without a distributed graph */
    PM_WHY_PERSISTENT, /* a persistent init while TORUS_COLL_PERSISTENT=library (the default) */
    PM_WHY_TABLE,     /* the agreed TORUS_COLL_TABLE's first fitting row says mpi (the library's own call) */
    PM_WHY_FASTER,    /* a compiled row says mpi: the MPI library's own call is faster here (select.table) */
    PM_NWHY
} pm_why;

/* Scratch buffers a call may hold at once (packed send and receive sides,
 * an MPI_IN_PLACE copy). */
enum { PM_SCRATCH_SEND = 0, PM_SCRATCH_RECV, PM_NSCRATCH };

/* Byte ranges of one op's route a communicator keeps (pmpi_route.c), and
 * the most bytes a rank's slot of the shared area holds for one call. */
enum { PM_NSEG = 16 };
#define PM_FLAT_MAX ((uint64_t)1 << 20)
/* One range: calls of the op whose byte figure is at most hi (and above
 * the previous range's) take route r; ask: decide each call anew (a file
 * with more ranges than kept). */
typedef struct pm_seg {
    uint64_t hi;
    int ask;
    torus_coll_route r;
} pm_seg;

/* What pmpi_neighbor.c keeps for a communicator's neighbourhood calls and
 * what pmpi_flat.c keeps for its shared area: each defined in its file
 * alone, reached through that file's functions. */
typedef struct pm_neighbor pm_neighbor;
typedef struct pm_flat pm_flat;

/* One communicator's torus state, cached as an attribute of the user's
 * communicator and destroyed when that is freed (or at MPI_Finalize).
 * Every pmpi file reads it; each field has one owner, the only file that
 * writes it: [state] pmpi_state.c (built by the first call, then read
 * only), [route] pmpi_route.c (pm__route_build, pm__route_ask),
 * [neighbor] pmpi_neighbor.c, [flat] pmpi_flat.c.  The order keeps what
 * the fast paths read (why, lib_all, the first ranges) together. */
typedef struct pm_comm {
    MPI_Comm comm;     /* [state] the user's communicator (key of the attribute) */
    pm_why why;        /* [state] PM_OK: usable; else why every call falls through */
    /* [route] bit op: every call of op with bytes goes to the library as
     * it came (a compiled mpi row covers every size) and no call is
     * counted: the fast paths' first test, before any decoding */
    unsigned lib_all;
    /* [route] each op's route by byte range (pm__route; not neighbour calls) */
    pm_seg seg[PM_NEIGHBOR_ALLTOALLV][PM_NSEG];
    int nseg[PM_NEIGHBOR_ALLTOALLV];
    int calls;         /* [route] what the rows may send a call to (torus_coll_route_of's calls) */
    torus_coll_route asked; /* [route] an ask range's route of the current call */
    /* [state] */
    int n, me;
    torus_map map;
    int *node_of;
    torus_mpi *tm;     /* the transport, on its own private duplicate of comm */
    torus_transport tp;
    torus_coll *c;
    size_t *v;         /* 4n: alltoallv byte counts and displacements (the calls fill them) */
    void *tmp[PM_NSCRATCH]; /* scratch kept between calls (pm__scratch) */
    size_t tmp_cap[PM_NSCRATCH];
    /* [neighbor] MPI_Neighbor_alltoallv's graph and plan, made at the
     * first neighbourhood call (pm__graph), freed by pm__neighbor_free */
    pm_neighbor *nb;
    /* [flat] the node's shared area, set up at the first call routed
     * there (pm__flat_routed), freed by pm__flat_free */
    pm_flat *area;
    struct pm_comm *prev, *next; /* [state] the list of live states */
} pm_comm;

/* ---- pmpi_state.c ------------------------------------------------------- */

/* The adapter's settings, read once at MPI_Init (pmpi_state.c, their one
 * writer).  Written before the program can start threads that call MPI
 * (or under the first call's lock), read-only after. */
typedef struct pm_settings {
    /* MPI_THREAD_MULTIPLE was provided to this rank: the state shared
     * between communicators (the registry of live states, the datatype
     * table, the kept persistent requests, the stats) is guarded; under
     * the other levels one thread at a time is in MPI and the guards cost
     * nothing.  Rank-local: it never steers a decision, so ranks may
     * differ in it. */
    int threaded;
    /* MPI_COMM_WORLD's node layout once its state is built (stats print
     * it): nodes, most ranks on one, and where it came from
     * (torus_node_source); nodes 0 until then. */
    int nodes, per_node;
    const char *node_src;
    /* TORUS_COLL_REPRO=library: floating sums and products go to the library. */
    int repro_library;
    /* TORUS_COLL_PERSISTENT=start: persistent inits are intercepted and
     * run at MPI_Start (pmpi_persist.c); otherwise they are the library's. */
    int persist_start;
    /* TORUS_COLL_MULTISEND (NULL: multisend's own choice). */
    const char *ms_algorithm;
} pm_settings;
/* The settings' storage: named by pmpi_state.c alone, which writes it;
 * every other file reads through pm__settings().  Inline, one load of the
 * field and no call: MPI_Allreduce's fast path reads repro_library. */
extern pm_settings pm__settings_store;
static inline const pm_settings *pm__settings(void)
{
    return &pm__settings_store;
}
/* The adapter's one (recursive) lock around that shared state, taken only
 * when threaded; pm__lock says whether it took it, for pm__unlock. */
int pm__lock(void);
void pm__unlock(int locked);

/* PM_OK when the adapter is on; else the reason every call falls through.
 * Reads the environment and creates the attribute keys on first use. */
pm_why pm__ready(void);
/* 1 while pm__ready() would say PM_OK without doing anything: set
 * (release) once the settings are read and the adapter is on, cleared
 * first thing in MPI_Finalize.  The fast path of every call tests it
 * alone (a plain load on x86) and leaves everything else (the first-call
 * set-up, TORUS_COLL=off, after MPI_Finalize) to the full path. */
/* A global, not behind a function: every exported call reads it inline first. */
extern atomic_int pm__on;
static inline int pm__is_on(void)
{
    return atomic_load_explicit(&pm__on, memory_order_acquire);
}
/* The same, called by MPI_Init/MPI_Init_thread on every rank: the settings
 * are checked, agreed between the ranks (one small allreduce), and a bad
 * or differing setting stops the job there with one line. */
void pm__init_collective(void);
/* The mode without initialising (MPI_Finalize). */
pm_why pm__mode(void);

/* The communicator's state, built on first use (collective over comm: every
 * rank reaches it in the same call).  PM_OK with *out set, or why not.
 * MPI_COMM_WORLD's, once built, without a call (pm__world); the others
 * through their attribute (pm__comm_lookup). */
/* A global: every call on MPI_COMM_WORLD reads it inline (pm__comm_cached). */
extern pm_comm *_Atomic pm__world;
pm_why pm__comm_lookup(MPI_Comm comm, pm_comm **out);
/* The adapter's set-up on a program's communicator makes communicators of
 * its own from it (a node split, a duplicate); a library out of them
 * says so through comm's error handler, which the program may have left
 * fatal.  For the set-up alone, errors return (pm__errors_return gives
 * the program's handler, pm__errors_restore puts it back), so that such
 * a failure sends this communicator to the library, agreed on every rank
 * (torus_comm_made), instead of ending the job. */
MPI_Errhandler pm__errors_return(MPI_Comm comm);
void pm__errors_restore(MPI_Comm comm, MPI_Errhandler old);
/* The communicator this thread's last attribute lookup found, and its
 * state: the next call on it (IMB-MPI1 and most programs call on one
 * communicator of their own again and again) skips the attribute lookup.
 * Valid while pm__gen, bumped (release) whenever a state is destroyed, is
 * what it was before that lookup: a freed communicator whose handle MPI
 * gives to a new one never finds the old state.  A thread that uses a
 * communicator another thread created or freed learned of it through the
 * program's own synchronisation, so its acquire load sees the bump.  Per
 * thread, so no lock: under MPI_THREAD_MULTIPLE each thread keeps its own. */
typedef struct pm_last {
    MPI_Comm comm;
    pm_comm *pc;
    unsigned gen;
} pm_last;
/* Globals: every call on another communicator reads both inline
 * (pm__comm_cached). */
extern _Thread_local pm_last pm__last PM_TLS;
extern atomic_uint pm__gen;
/* comm's state when it is already built: MPI_COMM_WORLD's (published
 * under pm__lock with a release store once built) or this thread's last
 * one; NULL otherwise (not built yet, or not cached: the full path). */
static inline pm_comm *pm__comm_cached(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return atomic_load_explicit(&pm__world, memory_order_acquire);
    if (comm == pm__last.comm && pm__last.gen == atomic_load_explicit(&pm__gen, memory_order_acquire))
        return pm__last.pc;
    return NULL;
}
/* comm's state when it is cached and usable, else NULL: the fast paths'
 * one communicator test. */
static inline pm_comm *pm__comm_ok(MPI_Comm comm)
{
    pm_comm *pc = pm__comm_cached(comm);
    return pc && pc->why == PM_OK ? pc : NULL;
}
static inline pm_why pm__comm(MPI_Comm comm, pm_comm **out)
{
    pm_comm *pc = pm__comm_cached(comm);
    if (pc) {
        *out = pc;
        return pc->why;
    }
    return pm__comm_lookup(comm, out);
}

/* Scratch slot `slot` of at least bytes in pc (kept between calls); a rank
 * that cannot get it stops the job (exit 3): the other ranks are already
 * inside the collective, so it cannot fall through alone. */
void *pm__scratch(pm_comm *pc, int slot, size_t bytes, const char *what);
/* Stops the job (exit 3) with one line: this rank is out of memory for
 * bytes of what, inside a call the other ranks are already in. */
_Noreturn void pm__no_memory(const pm_comm *pc, size_t bytes, const char *what);

/* After a torus call: 0 -> MPI_SUCCESS; an error -> one line on stderr and
 * the communicator's error handler (fatal by default). */
int pm__result(pm_comm *pc, const char *opname, int rc);

/* ---- pmpi_route.c ------------------------------------------------------- */

/* At MPI_Init, after the agreement: whether the compiled mpi and flat rows
 * apply (not under TORUS_COLL_LIBRARY=never or a TORUS_COLL_TABLE file)
 * and whether the shared area may be used (TORUS_COLL_FLAT). */
void pm__route_init(int never, int flat);
/* Fills pc's ranges, calls and lib_all (pc->why, n, c and node_of set;
 * again after a failed flat set-up, pm__flat_failed). */
void pm__route_build(pm_comm *pc);
/* The route of an ask range's call (kept in pc->asked). */
const torus_coll_route *pm__route_ask(pm_comm *pc, pm_op op, size_t bytes);
/* Bytes a rank's slot of the shared area needs for pc's flat ranges. */
size_t pm__route_flat_bytes(const pm_comm *pc);
/* The route of op at byte figure `bytes` on pc (usable: pc->why PM_OK):
 * the same on every rank.  One scan of a few ranges; the last's hi is
 * the sentinel. */
static inline const torus_coll_route *pm__route(pm_comm *pc, pm_op op, size_t bytes)
{
    const pm_seg *s = pc->seg[op];
    while (bytes > s->hi)
        s++;
    return PM_LIKELY(!s->ask) ? &s->r : pm__route_ask(pc, op, bytes);
}
/* Why a call routed to the library went there (stats). */
static inline pm_why pm__why_library(const torus_coll_route *r)
{
    return r->from_file ? PM_WHY_TABLE : PM_WHY_FASTER;
}
/* comm's cached state when every call of op with bytes goes to the
 * library as it came (pc->lib_all), else NULL: one test before any of the
 * call's arguments is read, so a call the library takes whole costs the
 * adapter a handful of instructions. */
static inline const pm_comm *pm__library_all(MPI_Comm comm, pm_op op)
{
    const pm_comm *pc = pm__comm_cached(comm);
    return pc && (pc->lib_all >> op & 1) ? pc : NULL;
}

/* ---- pmpi_flat.c -------------------------------------------------------- */

/* The algorithm name the stats print for a call run on the shared area.
 * A global: a constant every call run there names inline (pm__ran). */
extern const char pm__flat_name[];
/* ... and for a bcast there that went process to process (torus_flat.h's
 * TORUS_FLAT_DIRECT: the stats show whether the kernel let it). */
extern const char pm__flat_direct_name[];
/* pc's shared area when *r (the route of op at `bytes`) sends the call
 * there, set up at the first such call (collective over pc->comm: every
 * rank takes the same route and reaches it in the same call); else NULL.
 * When the set-up failed on some rank, which every rank then knows, pc's
 * ranges are built again without the area and *r becomes the call's
 * route from them. */
struct torus_flat *pm__flat_routed(pm_comm *pc, pm_op op, size_t bytes, const torus_coll_route **r);
/* 1 when pc's area could not be set up (on some rank, so on all): the
 * route must not send a call there. */
int pm__flat_failed(const pm_comm *pc);
/* Unmaps pc's area and frees what pmpi_flat.c keeps in pc (pc dies; no
 * message). */
void pm__flat_free(pm_comm *pc);

/* Frees what pmpi_neighbor.c keeps in pc, pc->nb (called when pc dies). */
void pm__neighbor_free(pm_comm *pc);
/* Reads pc's distributed graph once: PM_OK, or PM_WHY_TOPOLOGY. */
pm_why pm__graph(pm_comm *pc);
/* pmpi_persist.c: forgets every kept persistent request (MPI_Finalize). */
void pm__persist_free_all(void);
/* The blocking calls' bodies behind their exported names: the adapter's
 * own callers (the persistent collectives) use these, never the exported
 * MPI_ names. */
int pm__bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int pm__allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int pm__neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                           const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm);

/* Frees every cached state; called by MPI_Finalize before the library ends. */
void pm__free_all(void);

/* ---- pmpi_types.c ------------------------------------------------------- */

/* Reduction classes besides the torus_dtype values. */
enum {
    PM_NOKERNEL = -1, /* no single predefined element type the torus library combines (mixed, MPI_CHAR, ...) */
    PM_EMPTY = -2,    /* no elements (a zero-size type) */
};

/* What the adapter knows of one datatype, decoded once per handle. */
typedef struct pm_type {
    MPI_Count size;    /* bytes of its type signature (MPI_Type_size) */
    MPI_Aint extent;   /* the stride of consecutive instances */
    MPI_Aint tlb;      /* where its data starts (the true lower bound) */
    int one_run;       /* one instance's data is one run of `size` bytes from tlb, in type-map order */
    int elem;          /* the class for every op but MAXLOC/MINLOC: a torus_dtype, PM_NOKERNEL or PM_EMPTY
                        * (MPI_2INT is int32 x 2, so it matches MPI_INT with twice the count) */
    int loc;           /* the class for MAXLOC/MINLOC: the pairs kept whole */
} pm_type;

/* dt's description (a named type from a table, a derived one decoded once
 * and cached as an attribute of the type); NULL for MPI_DATATYPE_NULL. */
const pm_type *pm__type(MPI_Datatype dt);

/* The table of predefined (named) types, open addressing on the handle's
 * bits (pmpi_types.c fills it at MPI_Init).  A slot's fields are written
 * before `used` is set (release) and never change after, so a lookup
 * takes no lock. */
enum { PM_NSLOTS = 256 }; /* about 70 predefined types */
typedef struct pm_named {
    MPI_Datatype dt;
    atomic_int used;
    /* An allreduce of count instances with op goes to the library as
     * count elements of lib_dt (pm__library_type of the type's class)
     * when bit op (a torus_op) is set: the type is one element of a
     * class the library reduces right with op (pmpi_handover.c), checked
     * once here instead of on every call. */
    unsigned lib_ops;
    MPI_Datatype lib_dt;
    pm_type t;
} pm_named;
/* A global: every call with a predefined type reads it inline (pm__named_fast). */
extern pm_named pm__slots[PM_NSLOTS];

static inline unsigned pm__slot_of(MPI_Datatype dt)
{
    /* MPICH's handles are ints, Open MPI's addresses: hash the bits */
    uint64_t h = 0;
    memcpy(&h, &dt, sizeof dt < sizeof h ? sizeof dt : sizeof h);
    h *= 0x9E3779B97F4A7C15ULL;
    return (unsigned)(h >> 56) % PM_NSLOTS;
}

/* dt's slot when dt is a predefined type in the table, else NULL (a
 * derived type, MPI_DATATYPE_NULL, a bad handle, or before MPI_Init):
 * the fast paths' type test, inline, no call.  NULL sends a call to the
 * full path (pm__type), which handles everything else as before. */
static inline const pm_named *pm__named_fast(MPI_Datatype dt)
{
    /* no bound: the table always keeps an empty slot (pmpi_types.c) */
    for (unsigned i = pm__slot_of(dt);; i = (i + 1) % PM_NSLOTS) {
        const pm_named *s = &pm__slots[i];
        if (!atomic_load_explicit(&s->used, memory_order_acquire))
            return NULL;
        if (s->dt == dt)
            return s;
    }
}

/* A predefined reduction op as its torus op, else -1 (user-defined,
 * MPI_OP_NULL, MPI_REPLACE, MPI_NO_OP).  The handles are built per call:
 * Open MPI's predefined ops are addresses, not constant expressions;
 * MPI_SUM, the commonest, is tested first. */
static inline int pm__op_of(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_SUM,  MPI_MAX, MPI_MIN, MPI_PROD, MPI_BXOR, MPI_BAND,   MPI_BOR,
                          MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
    static const signed char tops[] = {TORUS_OP_SUM,  TORUS_OP_MAX, TORUS_OP_MIN,  TORUS_OP_PROD,
                                       TORUS_OP_BXOR, TORUS_OP_BAND, TORUS_OP_BOR, TORUS_OP_LAND,
                                       TORUS_OP_LOR,  TORUS_OP_LXOR, TORUS_OP_MAXLOC, TORUS_OP_MINLOC};
    for (unsigned i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i])
            return tops[i];
    return -1;
}

/* A predefined op as the torus op: PM_OK, PM_WHY_USER_OP (user-defined)
 * or PM_WHY_TYPE_OP (MPI_REPLACE, MPI_NO_OP). */
pm_why pm__op(MPI_Op op, torus_op *top);
/* The element type a reduction of t with op runs on: PM_OK with *dt, or
 * PM_WHY_DATATYPE (no single predefined element type), PM_WHY_TYPE_OP
 * (op not defined on it) or PM_WHY_REPRO (TORUS_COLL_REPRO=library). */
pm_why pm__reduction(const pm_type *t, torus_op op, torus_dtype *dt);
/* A predefined type's description (NULL: dt is not a predefined type). */
const pm_type *pm__named(MPI_Datatype dt);
/* size, extent, tlb of dt (and its true extent): 0, or -1 if MPI rejects it. */
int pm__measure(MPI_Datatype dt, pm_type *t, MPI_Aint *true_extent);
/* pmpi_decode.c: a derived type's description from its constructor. */
void pm__decode(MPI_Datatype dt, pm_type *out);
/* Creates the datatype attribute key (MPI_Init) and frees it and every
 * decoded description (MPI_Finalize). */
int pm__types_init(void);
void pm__types_free(void);

/* ---- pmpi_layout.c ------------------------------------------------------ */

/* The bytes of count instances of t at buf when they are one contiguous
 * run in type-map order (MPI_BOTTOM with absolute displacements too),
 * else NULL: they must be packed. */
void *pm__direct(const void *buf, MPI_Count count, const pm_type *t);
/* count instances of dt at buf to/from their packed bytes (count * size,
 * type-map order: MPI_Pack's layout, the type signature's bytes). */
void pm__pack(pm_comm *pc, const void *buf, MPI_Count count, MPI_Datatype dt, const pm_type *t, void *out);
void pm__unpack(pm_comm *pc, const void *in, void *buf, MPI_Count count, MPI_Datatype dt, const pm_type *t);

/* One side of a v-collective: k blocks, block i counts[i] instances of dt
 * at displs[i] extents from buf, as the byte counts and offsets the torus
 * call takes (cnt, off: k each), from `base`.  Contiguous types: base is
 * the user's buffer at its lowest block (negative displacements allowed);
 * else the blocks are packed one after another in scratch `slot`. */
typedef struct pm_side {
    unsigned char *base;
    size_t *cnt, *off;
    size_t total;      /* bytes of all blocks */
    int packed;        /* base is scratch: fill it with pm__side_pack, read it with pm__side_unpack */
} pm_side;
/* Lays the side out; 0, or -1 when a count is negative (MPI's error). */
int pm__side(pm_comm *pc, pm_side *s, int slot, const void *buf, int k, const int *counts, const int *displs,
             const pm_type *t);
void pm__side_pack(pm_comm *pc, const pm_side *s, const void *buf, int k, const int *counts, const int *displs,
                   MPI_Datatype dt, const pm_type *t);
void pm__side_unpack(pm_comm *pc, const pm_side *s, void *buf, int k, const int *counts, const int *displs,
                     MPI_Datatype dt, const pm_type *t);

/* ---- pmpi_handover.c (needs pm_type) ------------------------------------ */

/* The predefined type an allreduce of class et with op goes to the library
 * as (MPI_DATATYPE_NULL: it stays with the torus library). */
MPI_Datatype pm__library_type(torus_dtype et, torus_op op);
/* The library's allreduce of n elements of et over the rank's bytes of
 * count instances of dt (in place, or packed and unpacked). */
int pm__allreduce_library(pm_comm *pc, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, const pm_type *t,
                          MPI_Datatype et, int n, MPI_Op op);

/* ---- pmpi_stats.c ------------------------------------------------------- */

/* Collecting per-call time and messages costs two clock reads: only with
 * TORUS_COLL_STATS set (1 or on: PM_STATS_HUMAN; kv: PM_STATS_KV, the
 * same figures as key=value lines).  A global: every call tests it inline
 * (pm__fell, pm__empty) on its way to the library or back. */
enum { PM_STATS_OFF = 0, PM_STATS_HUMAN, PM_STATS_KV };
extern int pm__timing;

/* A started intercepted call (stats only). */
typedef struct pm_mark {
    double t0;
    uint64_t msgs;
} pm_mark;

/* The counters behind pm__fell and pm__empty; pm__counted_empty counts
 * and returns MPI_SUCCESS (a fast path's zero-byte return, a tail call). */
void pm__count_fell(pm_op op, pm_why why);
void pm__count_empty(pm_op op);
int pm__counted_empty(pm_op op);
/* A call went to the library for why: counted under TORUS_COLL_STATS set,
 * else one test of a flag and no call on the way to the library. */
static inline void pm__fell(pm_op op, pm_why why)
{
    if (PM_UNLIKELY(pm__timing))
        pm__count_fell(op, why);
}
pm_mark pm__start(const pm_comm *pc);
/* Records an intercepted call: its payload bytes (this rank), the torus
 * algorithm (NULL: nothing to do, "trivial"), the time and messages since
 * the mark. */
void pm__ran(pm_op op, size_t bytes, const char *algorithm, pm_mark m, const pm_comm *pc);
/* A zero-byte call that returned at once ("empty"): no message, no wait. */
static inline void pm__empty(pm_op op)
{
    if (PM_UNLIKELY(pm__timing))
        pm__count_empty(op);
}
/* A multisend plan was (re)built for MPI_Neighbor_alltoallv; an agreement
 * collective ran. */
void pm__planned(void);
void pm__agreed(pm_op op);
/* At MPI_Finalize with TORUS_COLL_STATS set: rank 0 of MPI_COMM_WORLD
 * prints one line per operation and a summary, in the form pm__timing says
 * (collective over MPI_COMM_WORLD). */
void pm__print_stats(pm_why mode);

#endif
