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
 * Each call has two paths to one decision.  The exported function holds
 * the fast one, inline and without a call before the decision: the
 * adapter on (pm__on), a predefined type (pm__named_fast), a communicator
 * whose state is built and at hand (pm__comm_ok: MPI_COMM_WORLD, or the
 * one this thread last used); there a call the library is faster
 * at jumps straight to PMPI_ (a tail call: no frame of ours around the
 * library's) and a zero-byte call returns.  Anything else (derived types,
 * a communicator not at hand, the first call, bad arguments,
 * TORUS_COLL=off, and the torus runs of allreduce and alltoall)
 * takes the full path (*_full), which makes every check as before; both
 * paths reach the same verdict, counted alike, and a call that runs on the
 * torus library goes on in *_run.  On x86 the fast path is a few loads
 * and compares (docs/mpi-adapter.md has the measured cost).
 */

/* Barrier on pc, whose state is usable: the agreed table, then the torus
 * barrier. */
static int barrier_run(pm_comm *pc, MPI_Comm comm)
{
    pm_why why = pm__table(pc, TORUS_COLL_BARRIER, 0, 0);
    if (why) {
        pm__fell(PM_BARRIER, why);
        return PMPI_Barrier(comm);
    }
    pm_mark m = pm__start(pc);
    struct torus_flat *f = pm__flat(pc, PM_BARRIER, 0);
    int rc = f ? torus_flat_barrier(f) : torus_coll_barrier(pc->c);
    pm__ran(PM_BARRIER, 0, f ? pm__flat_name : torus_coll_last(pc->c, TORUS_COLL_BARRIER), m, pc);
    return pm__result(pc, "MPI_Barrier", rc);
}

static __attribute__((noinline)) int barrier_full(MPI_Comm comm)
{
    pm_comm *pc = NULL;
    pm_why why = pm__ready();
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why && pm__library(pc, PM_BARRIER, 0))
        why = PM_WHY_FASTER;
    if (why) {
        pm__fell(PM_BARRIER, why);
        return PMPI_Barrier(comm);
    }
    return barrier_run(pc, comm);
}

/* The fast path's fall-through under TORUS_COLL_STATS=1 (see bcast_counted). */
static __attribute__((noinline)) int barrier_counted(MPI_Comm comm)
{
    pm__count_fell(PM_BARRIER, PM_WHY_FASTER);
    return PMPI_Barrier(comm);
}

PM_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    pm_comm *pc;
    /* one lookup: lib_all (set only on a usable state) first, then why */
    if (PM_LIKELY(pm__is_on()) && (pc = pm__comm_cached(comm))) {
        if (pc->lib_all >> PM_BARRIER & 1)
            return PMPI_Barrier(comm);
        if (pc->why == PM_OK) {
            if (pm__library(pc, PM_BARRIER, 0))
                return PM_UNLIKELY(pm__timing) ? barrier_counted(comm) : PMPI_Barrier(comm);
            return barrier_run(pc, comm);
        }
    }
    return barrier_full(comm);
}

/* A bcast of bytes (> 0) on pc, usable, root in range: the agreed table,
 * then the torus bcast on the rank's bytes in place or packed. */
static int bcast_run(pm_comm *pc, const pm_type *t, void *buf, int count, MPI_Datatype dt, int root)
{
    size_t bytes = (size_t)count * (size_t)t->size;
    pm_why why = pm__table(pc, TORUS_COLL_BCAST, bytes, 0);
    if (why) {
        pm__fell(PM_BCAST, why);
        return PMPI_Bcast(buf, count, dt, root, pc->comm);
    }
    pm_mark m = pm__start(pc);
    unsigned char *d = pm__direct(buf, count, t), *packed = NULL;
    if (!d) {
        d = packed = pm__scratch(pc, PM_SCRATCH_SEND, bytes, "MPI_Bcast");
        if (pc->me == root)
            pm__pack(pc, buf, count, dt, t, packed);
    }
    struct torus_flat *f = pm__flat(pc, PM_BCAST, bytes);
    int rc = f ? torus_flat_bcast(f, d, bytes, root) : torus_coll_bcast(pc->c, d, bytes, root);
    if (!rc && packed && pc->me != root)
        pm__unpack(pc, packed, buf, count, dt, t);
    pm__ran(PM_BCAST, bytes, f ? pm__flat_name : pc->n > 1 ? torus_coll_last(pc->c, TORUS_COLL_BCAST) : NULL, m, pc);
    return pm__result(pc, "MPI_Bcast", rc);
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
    size_t bytes = why ? 0 : (size_t)count * (size_t)t->size;
    if (!why && pm__library(pc, PM_BCAST, bytes))
        why = PM_WHY_FASTER;
    if (why) {
        pm__fell(PM_BCAST, why);
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    return bcast_run(pc, t, buf, count, dt, root);
}

/* The fast path's fall-through under TORUS_COLL_STATS=1: counted, then
 * the library (a function of its own, so that the fast path keeps no
 * frame for the count and jumps to the library). */
static __attribute__((noinline)) int bcast_counted(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    pm__count_fell(PM_BCAST, PM_WHY_FASTER);
    return PMPI_Bcast(buf, count, dt, root, comm);
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
        if (pc && pc->why == PM_OK && root >= 0 && root < pc->n) {
            if (pm__library(pc, PM_BCAST, (size_t)count * (size_t)s->t.size))
                return PM_UNLIKELY(pm__timing) ? bcast_counted(buf, count, dt, root, comm)
                                               : PMPI_Bcast(buf, count, dt, root, comm);
            return bcast_run(pc, &s->t, buf, count, dt, root);
        }
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
    /* the vector's bytes: torus_coll_allreduce's count * element size */
    size_t vbytes = why ? 0 : (size_t)count * (size_t)t->size, elems = why ? 0 : vbytes / torus_dtype_size(et);
    MPI_Datatype lib_et = MPI_DATATYPE_NULL;
    if (!why && pm__library(pc, PM_ALLREDUCE, vbytes) && elems <= INT_MAX &&
        (lib_et = pm__library_type(et, top)) != MPI_DATATYPE_NULL) {
        /* the library's, told the signature's predefined element type */
        pm__fell(PM_ALLREDUCE, PM_WHY_FASTER);
        return pm__allreduce_library(pc, sbuf, rbuf, count, dt, t, lib_et, (int)elems, op);
    }
    if (!why)
        why = pm__table(pc, TORUS_COLL_ALLREDUCE, vbytes, 0);
    if (why) {
        pm__fell(PM_ALLREDUCE, why);
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    pm_mark m = pm__start(pc);
    size_t bytes = (size_t)count * (size_t)t->size, n = bytes / torus_dtype_size(et);
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
    struct torus_flat *f = pm__flat(pc, PM_ALLREDUCE, vbytes);
    int rc = f ? torus_flat_allreduce(f, s, d, n, et, top) : torus_coll_allreduce(pc->c, s, d, n, et, top);
    if (!rc && packed)
        pm__unpack(pc, d, rbuf, count, dt, t);
    pm__ran(PM_ALLREDUCE, bytes,
            f ? pm__flat_name : pc->n > 1 ? torus_coll_last(pc->c, TORUS_COLL_ALLREDUCE) : NULL, m, pc);
    return pm__result(pc, "MPI_Allreduce", rc);
}

static __attribute__((noinline)) int allreduce_counted(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                                        MPI_Op op, MPI_Comm comm)
{
    pm__count_fell(PM_ALLREDUCE, PM_WHY_FASTER);
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
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
        /* what pm__allreduce_library does for a predefined type of one
         * element read in place (a null buffer goes the full way, as
         * pm__direct sends it to packing) */
        if ((pc = pm__comm_ok(comm)) && !pm__repro_library && sbuf && rbuf && (top = pm__op_of(op)) >= 0 &&
            (s->lib_ops >> top & 1) && pm__library(pc, PM_ALLREDUCE, (size_t)count * (size_t)s->t.size)) {
            ar_last = (struct ar_sig){dt, op, s->lib_dt};
            return PM_UNLIKELY(pm__timing) ? allreduce_counted(sbuf, rbuf, count, s->lib_dt, op, comm)
                                           : PMPI_Allreduce(sbuf, rbuf, count, s->lib_dt, op, comm);
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
