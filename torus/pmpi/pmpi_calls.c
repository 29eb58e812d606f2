/*
 * pmpi_calls.c - the MPI entry points libtorus_pmpi.so replaces.
 *
 * Each one: inside the adapter (pm__busy: the torus library's own MPI
 * calls) go straight to PMPI_; otherwise check what the torus library can
 * do exactly (pmpi_types.c) on a communicator it can map (pmpi_state.c),
 * run it, record the algorithm, bytes and time (pmpi_stats.c), or count the
 * reason and hand the call to PMPI_ unchanged.  The checks are a few
 * comparisons and one table scan: a call that falls through costs well
 * under a microsecond more than calling the library directly (docs/mpi-adapter.md has
 * the measurement).
 */
#include "pmpi_impl.h"

#include <stdio.h>
#include <string.h>

/* Every entry point the version script exports (torus/pmpi/exports.map). */
#define PM_EXPORT __attribute__((visibility("default")))

/* A per-rank out-of-memory in the middle of a collective the other ranks
 * have started cannot fall through (they would wait in the torus call):
 * stop the job as the library's own resource errors do (exit code 3). */
static void *scratch_or_abort(pm_comm *pc, size_t bytes, const char *what)
{
    void *p = bytes ? pm__scratch(pc, bytes) : pc->tmp;
    if (bytes && !p) {
        fprintf(stderr, "torus_pmpi: %s on rank %d: out of memory for %zu bytes of scratch\n", what, pc->me, bytes);
        PMPI_Abort(pc->comm, 3);
    }
    return p;
}

/* MPI_IN_PLACE for the exchanges: the torus algorithms read and write
 * different buffers, so the first `bytes` of rbuf are copied to scratch
 * and sent from there. */
static const void *in_place_source(pm_comm *pc, const void *rbuf, size_t bytes, const char *what)
{
    void *copy = scratch_or_abort(pc, bytes, what);
    if (bytes)
        memcpy(copy, rbuf, bytes);
    return copy;
}

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
    return PMPI_Finalize();
}

PM_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Barrier(comm);
    pm_comm *pc = NULL;
    pm_why why = pm__ready();
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_BARRIER, why);
        return PMPI_Barrier(comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    pm__busy = 1;
    int rc = torus_coll_barrier(pc->c);
    pm__busy = 0;
    pm__ran(PM_BARRIER, 0, torus_coll_last(pc->c, TORUS_COLL_BARRIER), t0);
    return pm__result(pc, "MPI_Barrier", rc);
}

PM_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Bcast(buf, count, dt, root, comm);
    pm_comm *pc = NULL;
    size_t size = 0;
    pm_kind kind;
    pm_why why = pm__ready();
    if (!why)
        why = pm__datatype(dt, &size, &kind);
    if (!why && count < 0)
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why && (root < 0 || root >= pc->n))
        why = PM_WHY_ARGS;
    if (why) {
        pm__fell(PM_BCAST, why);
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    size_t bytes = (size_t)count * size;
    pm__busy = 1;
    int rc = torus_coll_bcast(pc->c, buf, bytes, root);
    pm__busy = 0;
    pm__ran(PM_BCAST, bytes, bytes && pc->n > 1 ? torus_coll_last(pc->c, TORUS_COLL_BCAST) : NULL, t0);
    return pm__result(pc, "MPI_Bcast", rc);
}

/* Widening to 64-bit words and back: sign- or zero-extension, then
 * truncation, which is the MPI library's wrap-around arithmetic on the
 * narrow type; floats go through double (exact for min and max). */
#define WIDEN(T, W)                                                                                            \
    do {                                                                                                       \
        const T *s_ = src;                                                                                     \
        W *d_ = dst;                                                                                           \
        for (size_t i = 0; i < n; i++)                                                                         \
            d_[i] = (W)s_[i];                                                                                  \
    } while (0)
#define NARROW(T, W)                                                                                           \
    do {                                                                                                       \
        const W *s_ = src;                                                                                     \
        T *d_ = dst;                                                                                           \
        for (size_t i = 0; i < n; i++)                                                                         \
            d_[i] = (T)s_[i];                                                                                  \
    } while (0)

static void widen(const void *src, void *dst, size_t n, pm_kind kind, size_t size)
{
    if (kind == PM_K_FLOAT)
        WIDEN(float, double);
    else if (kind == PM_K_SINT && size == 1)
        WIDEN(int8_t, int64_t);
    else if (kind == PM_K_SINT && size == 2)
        WIDEN(int16_t, int64_t);
    else if (kind == PM_K_SINT)
        WIDEN(int32_t, int64_t);
    else if (size == 1)
        WIDEN(uint8_t, uint64_t);
    else if (size == 2)
        WIDEN(uint16_t, uint64_t);
    else
        WIDEN(uint32_t, uint64_t);
}

static void narrow(const void *src, void *dst, size_t n, pm_kind kind, size_t size)
{
    /* signed: through the unsigned type of the same width, a modular
     * conversion in C (int64 -> int32 directly is implementation-defined) */
    if (kind == PM_K_FLOAT)
        NARROW(float, double);
    else if (size == 1)
        NARROW(uint8_t, uint64_t);
    else if (size == 2)
        NARROW(uint16_t, uint64_t);
    else
        NARROW(uint32_t, uint64_t);
}

PM_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    pm_comm *pc = NULL;
    size_t size = 0;
    pm_kind kind = PM_K_BYTES;
    torus_op top = TORUS_OP_SUM;
    pm_why why = pm__ready();
    if (!why)
        why = pm__datatype(dt, &size, &kind);
    if (!why)
        why = pm__reduction(op, kind, &top);
    if (!why && count < 0)
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_ALLREDUCE, why);
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t n = (size_t)count;
    torus_dtype t = kind == PM_K_DOUBLE || kind == PM_K_FLOAT ? TORUS_DOUBLE
                    : kind == PM_K_SINT                       ? TORUS_INT64
                                                              : TORUS_UINT64;
    int rc;
    if (size == 8) {
        pm__busy = 1;
        rc = torus_coll_allreduce(pc->c, src, rbuf, n, t, top);
        pm__busy = 0;
    } else {
        void *w = scratch_or_abort(pc, n * 8, "MPI_Allreduce");
        widen(src, w, n, kind, size);
        pm__busy = 1;
        rc = torus_coll_allreduce(pc->c, w, w, n, t, top);
        pm__busy = 0;
        if (!rc)
            narrow(w, rbuf, n, kind, size);
    }
    pm__ran(PM_ALLREDUCE, n * size, n && pc->n > 1 ? torus_coll_last(pc->c, TORUS_COLL_ALLREDUCE) : NULL, t0);
    return pm__result(pc, "MPI_Allreduce", rc);
}

PM_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    pm_comm *pc = NULL;
    size_t ssize = 0, rsize = 0;
    pm_kind kind;
    int in_place = sbuf == MPI_IN_PLACE;
    pm_why why = pm__ready();
    if (!why)
        why = pm__datatype(rtype, &rsize, &kind);
    if (!why && !in_place)
        why = pm__datatype(stype, &ssize, &kind);
    /* the send and receive blocks must be the same bytes (MPI's type
     * signature rule); anything else is an error for the library to report */
    if (!why && (rcount < 0 || (!in_place && (scount < 0 || (size_t)scount * ssize != (size_t)rcount * rsize))))
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_ALLTOALL, why);
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    size_t block = (size_t)rcount * rsize, total = block * (size_t)pc->n;
    const void *src = in_place ? in_place_source(pc, rbuf, total, "MPI_Alltoall") : sbuf;
    pm__busy = 1;
    int rc = torus_coll_alltoall(pc->c, src, rbuf, block);
    pm__busy = 0;
    pm__ran(PM_ALLTOALL, total, torus_coll_last(pc->c, TORUS_COLL_ALLTOALLV), t0);
    return pm__result(pc, "MPI_Alltoall", rc);
}

PM_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                            void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    pm_comm *pc = NULL;
    size_t ssize = 0, rsize = 0;
    pm_kind kind;
    int in_place = sbuf == MPI_IN_PLACE;
    const int *user_sc = scounts, *user_sd = sdispls;
    pm_why why = pm__ready();
    if (!why)
        why = pm__datatype(rtype, &rsize, &kind);
    if (!why && !in_place)
        why = pm__datatype(stype, &ssize, &kind);
    if (!why)
        why = pm__comm(comm, &pc);
    if (in_place) {
        scounts = rcounts;
        sdispls = rdispls;
        ssize = rsize;
    }
    /* byte counts and displacements (a predefined type's extent is its size) */
    size_t *sc = NULL, *sd = NULL, *rc_ = NULL, *rd = NULL, sent = 0, span = 0;
    if (!why) {
        sc = pc->v;
        sd = sc + pc->n;
        rc_ = sd + pc->n;
        rd = rc_ + pc->n;
        for (int j = 0; j < pc->n && !why; j++) {
            if (scounts[j] < 0 || sdispls[j] < 0 || rcounts[j] < 0 || rdispls[j] < 0) {
                why = PM_WHY_ARGS;
                break;
            }
            sc[j] = (size_t)scounts[j] * ssize;
            sd[j] = (size_t)sdispls[j] * ssize;
            rc_[j] = (size_t)rcounts[j] * rsize;
            rd[j] = (size_t)rdispls[j] * rsize;
            sent += sc[j];
            if (rc_[j] && rd[j] + rc_[j] > span)
                span = rd[j] + rc_[j];
        }
    }
    if (why) {
        pm__fell(PM_ALLTOALLV, why);
        return PMPI_Alltoallv(sbuf, user_sc, user_sd, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    const void *src = in_place ? in_place_source(pc, rbuf, span, "MPI_Alltoallv") : sbuf;
    pm__busy = 1;
    int rc = torus_coll_alltoallv(pc->c, src, sc, sd, rbuf, rc_, rd);
    pm__busy = 0;
    pm__ran(PM_ALLTOALLV, sent, torus_coll_last(pc->c, TORUS_COLL_ALLTOALLV), t0);
    return pm__result(pc, "MPI_Alltoallv", rc);
}
