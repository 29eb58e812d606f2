/*
 * pmpi_calls.c - MPI_Init, MPI_Finalize and the rooted and reducing
 * collectives libtorus_pmpi.so replaces: MPI_Barrier, MPI_Bcast,
 * MPI_Allreduce (the all-to-all ones are in pmpi_alltoall.c).
 *
 * Each one decides from what MPI requires to match on every rank (the
 * byte count of the type signature, for a reduction its element type and the op; the root; the communicator) and
 * either run the torus collective, on the rank's bytes in place or packed
 * (pmpi_layout.c), or count the reason and hand the call to PMPI_
 * unchanged.  A zero-byte call (count 0 or a zero-size type: the
 * signature's bytes, so every rank agrees whatever handle it passed)
 * returns at once: MPI requires no synchronisation of a bcast or an
 * allreduce, and a barrier is never zero-byte.  The checks before a
 * fall-through are a few comparisons and table lookups (docs/mpi-adapter.md
 * has the measured cost).
 */
#include "pmpi_impl.h"
#include "torus_flat.h"

#include <limits.h>
#include <string.h>

PM_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        pm__init_collective();
    return rc;
}

PM_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        pm__init_collective();
    return rc;
}

PM_EXPORT int MPI_Finalize(void)
{
    pm__print_stats(pm__mode());
    pm__free_all();
    pm__persist_free_all();
    return PMPI_Finalize();
}

/* The checks every data call shares: the adapter is on, and the handles and
 * count are ones MPI accepts (else the library reports the error). */
static pm_why common(MPI_Comm comm, int count, MPI_Datatype dt, const pm_type **t)
{
    pm_why why = pm__ready();
    if (why)
        return why;
    if (comm == MPI_COMM_NULL || count < 0 || !(*t = pm__type(dt)))
        return PM_WHY_ARGS;
    return PM_OK;
}

/*
 * Each call has two paths to one route.  The exported function holds the
 * fast one, inline and without a call before the route: the adapter on
 * (pm__on), a predefined type (pm__named_fast), a communicator whose
 * state is built and at hand (pm__comm_ok: MPI_COMM_WORLD, or the one
 * this thread last used); there the call's route is one lookup
 * (pm__route: the communicator's byte ranges, pmpi_route.c) and one
 * switch: the library's call (a tail call to PMPI_), the node's shared
 * area, or a torus algorithm (*_run); a zero-byte call returns.  Anything
 * else (derived types, a communicator not at hand, the first call, bad
 * arguments, TORUS_COLL=off) takes the full path (*_full), which makes
 * every check and reaches the same route, counted alike.  On x86 the fast
 * path is a few loads and compares (docs/mpi-adapter.md has the measured
 * cost).
 */

/* Barrier on pc, usable, by route r. */
static int barrier_run(pm_comm *pc, const torus_coll_route *r, MPI_Comm comm)
{
    struct torus_flat *f = pm__flat_routed(pc, PM_BARRIER, 0, &r);
    if (r->kind == TORUS_ROUTE_LIBRARY) {
        pm__fell(PM_BARRIER, pm__why_library(r));
        return PMPI_Barrier(comm);
    }
    pm_mark m = pm__start(pc);
    int rc = f ? torus_flat_barrier(f) : torus_coll_barrier_on(pc->c, r);
    pm__ran(PM_BARRIER, 0, f ? pm__flat_name : torus_coll_last(pc->c, TORUS_COLL_BARRIER), m, pc);
    return pm__result(pc, "MPI_Barrier", rc);
}

static __attribute__((noinline)) int barrier_full(MPI_Comm comm)
{
    pm_comm *pc = NULL;
    pm_why why = pm__ready();
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_BARRIER, why);
        return PMPI_Barrier(comm);
    }
    return barrier_run(pc, pm__route(pc, PM_BARRIER, 0), comm);
}

PM_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    pm_comm *pc;
    /* one lookup: lib_all (set only on a usable state) first, then why */
    if (PM_LIKELY(pm__is_on()) && (pc = pm__comm_cached(comm))) {
        if (pc->lib_all >> PM_BARRIER & 1)
            return PMPI_Barrier(comm);
        if (pc->why == PM_OK)
            return barrier_run(pc, pm__route(pc, PM_BARRIER, 0), comm);
    }
    return barrier_full(comm);
}

/* A bcast of bytes (> 0) on pc, usable, root in range, by route r (not
 * the library's): on the rank's bytes in place or packed. */
static int bcast_run(pm_comm *pc, const torus_coll_route *r, const pm_type *t, void *buf, int count,
                     MPI_Datatype dt, int root)
{
    size_t bytes = (size_t)count * (size_t)t->size;
    struct torus_flat *f = pm__flat_routed(pc, PM_BCAST, bytes, &r);
    if (r->kind == TORUS_ROUTE_LIBRARY) { /* no area after all: the library's range */
        pm__fell(PM_BCAST, pm__why_library(r));
        return PMPI_Bcast(buf, count, dt, root, pc->comm);
    }
    pm_mark m = pm__start(pc);
    unsigned char *d = pm__direct(buf, count, t), *packed = NULL;
    if (!d) {
        d = packed = pm__scratch(pc, PM_SCRATCH_SEND, bytes, "MPI_Bcast");
        if (pc->me == root)
            pm__pack(pc, buf, count, dt, t, packed);
    }
    uint64_t direct = f ? torus_flat_direct_count(f) : 0;
    int rc = f ? torus_flat_bcast(f, d, bytes, root) : torus_coll_bcast_on(pc->c, r, d, bytes, root);
    if (!rc && packed && pc->me != root)
        pm__unpack(pc, packed, buf, count, dt, t);
    const char *alg = NULL;
    if (f)
        alg = torus_flat_direct_count(f) != direct ? pm__flat_direct_name : pm__flat_name;
    else if (pc->n > 1)
        alg = torus_coll_last(pc->c, TORUS_COLL_BCAST);
    pm__ran(PM_BCAST, bytes, alg, m, pc);
    return pm__result(pc, "MPI_Bcast", rc);
}

/* The route's one switch: the library's call, or bcast_run. */
static inline __attribute__((always_inline)) int bcast_routed(pm_comm *pc, const pm_type *t, void *buf, int count,
                                                             MPI_Datatype dt, int root, MPI_Comm comm)
{
    const torus_coll_route *r = pm__route(pc, PM_BCAST, (size_t)count * (size_t)t->size);
    if (r->kind == TORUS_ROUTE_LIBRARY) {
        pm__fell(PM_BCAST, pm__why_library(r));
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    return bcast_run(pc, r, t, buf, count, dt, root);
}

static __attribute__((noinline)) int bcast_full(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    pm_comm *pc = NULL;
    const pm_type *t = NULL;
    pm_why why = common(comm, count, dt, &t);
    if (!why && (!count || !t->size)) {
        pm__empty(PM_BCAST);
        return MPI_SUCCESS;
    }
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why && (root < 0 || root >= pc->n))
        why = PM_WHY_ARGS;
    if (why) {
        pm__fell(PM_BCAST, why);
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    return bcast_routed(pc, t, buf, count, dt, root, comm);
}

/* The fast path for a predefined type (MPI_Bcast's second test); pc is
 * comm's cached state or NULL (pm__comm_cached, looked up once). */
static inline __attribute__((always_inline)) int bcast_named(pm_comm *pc, void *buf, int count, MPI_Datatype dt,
                                                            int root, MPI_Comm comm)
{
    const pm_named *s;
    if (PM_LIKELY(pm__is_on()) && count >= 0 && (s = pm__named_fast(dt)) && comm != MPI_COMM_NULL) {
        if (!count || !s->t.size)
            return PM_UNLIKELY(pm__timing) ? pm__counted_empty(PM_BCAST) : MPI_SUCCESS;
        if (pc && pc->why == PM_OK && root >= 0 && root < pc->n)
            return bcast_routed(pc, &s->t, buf, count, dt, root, comm);
    }
    return bcast_full(buf, count, dt, root, comm);
}

/* A call the library takes whole goes before anything is decoded (pc->lib_all:
 * ranks on several nodes, or TORUS_COLL_FLAT=off, under Open MPI at 2
 * ranks); then the predefined type's path, inline. */
int pm__bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    pm_comm *pc = PM_LIKELY(pm__is_on()) ? pm__comm_cached(comm) : NULL;
    if (pc && count > 0 && (pc->lib_all >> PM_BCAST & 1))
        return PMPI_Bcast(buf, count, dt, root, comm);
    return bcast_named(pc, buf, count, dt, root, comm);
}

/* the exported name is the same code (an alias: no extra jump) */
PM_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
    __attribute__((alias("pm__bcast")));

/* An allreduce of count instances of t (> 0 bytes) reduced as et with
 * top on pc, usable, by route r (not the library's). */
static int allreduce_run(pm_comm *pc, const torus_coll_route *r, const pm_type *t, const void *sbuf, void *rbuf,
                         int count, MPI_Datatype dt, torus_dtype et, torus_op top)
{
    size_t bytes = (size_t)count * (size_t)t->size, n = bytes / torus_dtype_size(et);
    struct torus_flat *f = pm__flat_routed(pc, PM_ALLREDUCE, bytes, &r);
    torus_coll_route torus_only;
    if (!f && r->kind != TORUS_ROUTE_TORUS) {
        /* no area after all, and the rebuilt ranges say library (the
         * rows for ranks on several nodes): this call, decided on every
         * rank to stay with the adapter, runs the route's torus algorithm */
        torus_only = *r;
        torus_only.kind = TORUS_ROUTE_TORUS;
        r = &torus_only;
    }
    pm_mark m = pm__start(pc);
    int in_place = sbuf == MPI_IN_PLACE;
    /* the same type and count on both sides: both in place or both packed */
    unsigned char *d = pm__direct(rbuf, count, t);
    const void *s = in_place ? d : pm__direct(sbuf, count, t);
    int packed = !d;
    if (packed) {
        d = pm__scratch(pc, PM_SCRATCH_SEND, bytes, "MPI_Allreduce");
        pm__pack(pc, in_place ? rbuf : sbuf, count, dt, t, d);
        s = d;
    }
    int rc = f ? torus_flat_allreduce(f, s, d, n, et, top) : torus_coll_allreduce_on(pc->c, r, s, d, n, et, top);
    if (!rc && packed)
        pm__unpack(pc, d, rbuf, count, dt, t);
    pm__ran(PM_ALLREDUCE, bytes,
            f ? pm__flat_name : pc->n > 1 ? torus_coll_last(pc->c, TORUS_COLL_ALLREDUCE) : NULL, m, pc);
    return pm__result(pc, "MPI_Allreduce", rc);
}

static __attribute__((noinline)) int allreduce_full(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                                     MPI_Op op, MPI_Comm comm)
{
    pm_comm *pc = NULL;
    const pm_type *t = NULL;
    torus_op top = TORUS_OP_SUM;
    torus_dtype et = TORUS_UINT64;
    pm_why why = common(comm, count, dt, &t);
    if (!why && op == MPI_OP_NULL)
        why = PM_WHY_ARGS;
    if (!why && (!count || !t->size)) {
        pm__empty(PM_ALLREDUCE);
        return MPI_SUCCESS;
    }
    if (!why)
        why = pm__op(op, &top);
    if (!why)
        why = pm__reduction(t, top, &et);
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_ALLREDUCE, why);
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    /* the vector's bytes: torus_coll_allreduce's count * element size */
    size_t vbytes = (size_t)count * (size_t)t->size, elems = vbytes / torus_dtype_size(et);
    const torus_coll_route *r = pm__route(pc, PM_ALLREDUCE, vbytes);
    if (r->kind != TORUS_ROUTE_LIBRARY)
        return allreduce_run(pc, r, t, sbuf, rbuf, count, dt, et, top);
    if (r->from_file) {
        /* the tuned table's mpi row: the call as it came */
        pm__fell(PM_ALLREDUCE, PM_WHY_TABLE);
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    MPI_Datatype lib_et = elems <= INT_MAX ? pm__library_type(et, top) : MPI_DATATYPE_NULL;
    if (lib_et != MPI_DATATYPE_NULL) {
        /* the library's, told the signature's predefined element type */
        pm__fell(PM_ALLREDUCE, PM_WHY_FASTER);
        return pm__allreduce_library(pc, sbuf, rbuf, count, dt, t, lib_et, (int)elems, op);
    }
    /* a class the library would reduce wrong: the route's torus algorithm */
    torus_coll_route torus_only = *r;
    torus_only.kind = TORUS_ROUTE_TORUS;
    return allreduce_run(pc, &torus_only, t, sbuf, rbuf, count, dt, et, top);
}

/* The last predefined type and op this thread's MPI_Allreduce handed to
 * the library as lib_dt (one element of a class the library reduces right
 * with op, pm_named's lib_ops): the next call with the same pair on a
 * communicator whose every allreduce goes to the library skips the type
 * and op lookups.  The pair decides alone (what it hands over does not
 * depend on the count), and a predefined handle never changes meaning. */
static _Thread_local struct ar_sig {
    MPI_Datatype dt;
    MPI_Op op;
    MPI_Datatype lib_dt;
} ar_last PM_TLS;

/* The fast path for a predefined type (MPI_Allreduce's second test). */
static inline __attribute__((always_inline)) int allreduce_named(const void *sbuf, void *rbuf, int count,
                                                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    const pm_named *s;
    pm_comm *pc;
    int top;
    if (PM_LIKELY(pm__is_on()) && count >= 0 && (s = pm__named_fast(dt)) && comm != MPI_COMM_NULL &&
        op != MPI_OP_NULL) {
        if (!count || !s->t.size)
            return PM_UNLIKELY(pm__timing) ? pm__counted_empty(PM_ALLREDUCE) : MPI_SUCCESS;
        /* what allreduce_full does for a compiled mpi route and a
         * predefined type of one element read in place (a null buffer
         * goes the full way, as pm__direct sends it to packing) */
        const torus_coll_route *r;
        if ((pc = pm__comm_ok(comm)) && !pm__settings()->repro_library && sbuf && rbuf && (top = pm__op_of(op)) >= 0 &&
            (s->lib_ops >> top & 1) &&
            (r = pm__route(pc, PM_ALLREDUCE, (size_t)count * (size_t)s->t.size))->kind == TORUS_ROUTE_LIBRARY &&
            !r->from_file) {
            ar_last = (struct ar_sig){dt, op, s->lib_dt};
            pm__fell(PM_ALLREDUCE, PM_WHY_FASTER);
            return PMPI_Allreduce(sbuf, rbuf, count, s->lib_dt, op, comm);
        }
    }
    return allreduce_full(sbuf, rbuf, count, dt, op, comm);
}

/* First the signature this thread last handed over, on a communicator
 * whose every allreduce goes to the library (see MPI_Bcast). */
int pm__allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (PM_LIKELY(pm__is_on()) && dt == ar_last.dt && op == ar_last.op && count > 0 && sbuf && rbuf &&
        pm__library_all(comm, PM_ALLREDUCE))
        return PMPI_Allreduce(sbuf, rbuf, count, ar_last.lib_dt, op, comm);
    return allreduce_named(sbuf, rbuf, count, dt, op, comm);
}

PM_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
    __attribute__((alias("pm__allreduce")));
