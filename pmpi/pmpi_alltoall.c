/*
 * pmpi_alltoall.c - MPI_Alltoall and MPI_Alltoallv through the torus
 * alltoall(v).
 *
 * MPI_Alltoall: every rank's block is the same number of bytes (sender's
 * and receiver's signatures match, and one count and type serve every
 * peer), so the block size is a fact all ranks share: it picks the
 * algorithm, and a zero-byte block returns at once everywhere (MPI
 * requires no synchronisation).  MPI_Alltoallv: counts differ per rank
 * and no rank knows another's, so nothing is decided from them: every
 * call runs the torus alltoallv, whose algorithm depends on the rank count
 * only, with empty blocks skipped (torus_coll_skip_empty: MPI requires the
 * counts to match pairwise, so both ends of an empty block skip it) - a
 * call whose counts are all 0 costs no message, without an agreement
 * collective.  On both, each side's blocks are read and written in place
 * when its datatype is contiguous (any displacements, negative ones too),
 * else packed (pmpi_layout.c); MPI_IN_PLACE sends from a copy of the
 * receive blocks.
 */
#include "pmpi_impl.h"
#include "torus_flat.h"

#include <string.h>

/* An alltoall of `block` bytes per peer (> 0) on pc, usable, by its
 * route: the library's call, the shared area or the torus alltoall (st
 * NULL under MPI_IN_PLACE). */
static int alltoall_run(pm_comm *pc, const pm_type *st, const pm_type *rt, size_t block, const void *sbuf,
                        int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    const torus_coll_route *r = pm__route(pc, PM_ALLTOALL, block);
    struct torus_flat *f = pm__flat_routed(pc, PM_ALLTOALL, block, &r);
    if (r->kind == TORUS_ROUTE_LIBRARY) {
        pm__fell(PM_ALLTOALL, pm__why_library(r));
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    int in_place = sbuf == MPI_IN_PLACE;
    pm_mark m = pm__start(pc);
    size_t total = block * (size_t)pc->n;
    MPI_Count rn = (MPI_Count)pc->n * rcount, sn = (MPI_Count)pc->n * scount;
    unsigned char *d = pm__direct(rbuf, rn, rt), *rpacked = NULL;
    const unsigned char *s = in_place ? NULL : pm__direct(sbuf, sn, st);
    if (!d)
        d = rpacked = pm__scratch(pc, PM_SCRATCH_RECV, total, "MPI_Alltoall");
    if (!s) {
        /* packed, or MPI_IN_PLACE: the torus exchange reads and writes
         * different buffers, so the blocks leave from a copy */
        unsigned char *copy = pm__scratch(pc, PM_SCRATCH_SEND, total, "MPI_Alltoall");
        if (!in_place)
            pm__pack(pc, sbuf, sn, stype, st, copy);
        else if (rpacked)
            pm__pack(pc, rbuf, rn, rtype, rt, copy);
        else
            memcpy(copy, d, total);
        s = copy;
    }
    int rc = f ? torus_flat_alltoall(f, s, d, block) : torus_coll_alltoall_on(pc->c, r, s, d, block);
    if (!rc && rpacked)
        pm__unpack(pc, rpacked, rbuf, rn, rtype, rt);
    pm__ran(PM_ALLTOALL, total, f ? pm__flat_name : torus_coll_last(pc->c, TORUS_COLL_ALLTOALLV), m, pc);
    return pm__result(pc, "MPI_Alltoall", rc);
}

/* Every check, for what the fast path below does not take (pmpi_calls.c
 * says why there are two paths). */
static __attribute__((noinline)) int alltoall_full(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                                    int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    pm_comm *pc = NULL;
    const pm_type *st = NULL, *rt = NULL;
    int in_place = sbuf == MPI_IN_PLACE;
    size_t block = 0;
    pm_why why = pm__ready();
    if (!why && (comm == MPI_COMM_NULL || rcount < 0 || !(rt = pm__type(rtype))))
        why = PM_WHY_ARGS;
    if (!why && !in_place && (scount < 0 || !(st = pm__type(stype))))
        why = PM_WHY_ARGS;
    if (!why) {
        block = (size_t)rcount * (size_t)rt->size;
        /* a correct program's send block is its receive block (MPI's
         * signature rule); anything else is the library's to report */
        if (!in_place && (size_t)scount * (size_t)st->size != block)
            why = PM_WHY_ARGS;
    }
    if (!why && !block) {
        pm__empty(PM_ALLTOALL);
        return MPI_SUCCESS;
    }
    if (!why)
        why = pm__comm(comm, &pc);
    if (why) {
        pm__fell(PM_ALLTOALL, why);
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    return alltoall_run(pc, st, rt, block, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* The fast path for predefined types (MPI_Alltoall's second test); pc is
 * comm's cached state or NULL (pm__comm_cached, looked up once). */
static inline __attribute__((always_inline)) int alltoall_named(pm_comm *pc, const void *sbuf, int scount,
                                                               MPI_Datatype stype, void *rbuf, int rcount,
                                                               MPI_Datatype rtype, MPI_Comm comm)
{
    const pm_named *st, *rt;
    /* predefined types on both sides, not in place: the checks of
     * alltoall_full in the same order */
    if (PM_LIKELY(pm__is_on()) && comm != MPI_COMM_NULL && rcount >= 0 && (rt = pm__named_fast(rtype)) &&
        sbuf != MPI_IN_PLACE && scount >= 0 && (st = stype == rtype ? rt : pm__named_fast(stype))) {
        size_t block = (size_t)rcount * (size_t)rt->t.size;
        if ((size_t)scount * (size_t)st->t.size == block) {
            if (!block)
                return PM_UNLIKELY(pm__timing) ? pm__counted_empty(PM_ALLTOALL) : MPI_SUCCESS;
            if (pc && pc->why == PM_OK)
                return alltoall_run(pc, &st->t, &rt->t, block, sbuf, scount, stype, rbuf, rcount, rtype, comm);
        }
    }
    return alltoall_full(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* A call the library takes whole first (see MPI_Bcast). */
PM_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    pm_comm *pc = PM_LIKELY(pm__is_on()) ? pm__comm_cached(comm) : NULL;
    if (pc && rcount > 0 && (pc->lib_all >> PM_ALLTOALL & 1))
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return alltoall_named(pc, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

PM_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                            void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    /* a communicator whose every alltoallv is the library's: handed over
     * before a count is read (see MPI_Bcast) */
    if (PM_LIKELY(pm__is_on()) && pm__library_all(comm, PM_ALLTOALLV))
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    pm_comm *pc = NULL;
    const pm_type *st = NULL, *rt = NULL;
    int in_place = sbuf == MPI_IN_PLACE;
    pm_why why = pm__ready();
    if (!why && (comm == MPI_COMM_NULL || !(rt = pm__type(rtype)) || (!in_place && !(st = pm__type(stype)))))
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    pm_side ss = {0}, rs = {0};
    if (!why) {
        int n = pc->n;
        rs.cnt = pc->v, rs.off = pc->v + n, ss.cnt = pc->v + 2 * n, ss.off = pc->v + 3 * n;
        /* a negative count is MPI's error to report */
        if (pm__side(pc, &rs, PM_SCRATCH_RECV, rbuf, n, rcounts, rdispls, rt) ||
            (!in_place && pm__side(pc, &ss, PM_SCRATCH_SEND, sbuf, n, scounts, sdispls, st)))
            why = PM_WHY_ARGS;
    }
    /* counts are never looked at (no rank knows another's): bytes 0 */
    const torus_coll_route *r = why ? NULL : pm__route(pc, PM_ALLTOALLV, 0);
    if (r && r->kind == TORUS_ROUTE_LIBRARY)
        why = pm__why_library(r);
    if (why) {
        pm__fell(PM_ALLTOALLV, why);
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
    pm_mark m = pm__start(pc);
    int n = pc->n;
    if (in_place) {
        /* send what the receive blocks hold now, from a copy */
        size_t span = 0;
        for (int j = 0; j < n; j++)
            if (rs.cnt[j] && rs.off[j] + rs.cnt[j] > span)
                span = rs.off[j] + rs.cnt[j];
        ss = rs;
        ss.base = pm__scratch(pc, PM_SCRATCH_SEND, span, "MPI_Alltoallv");
        if (rs.packed)
            pm__side_pack(pc, &ss, rbuf, n, rcounts, rdispls, rtype, rt);
        else if (span)
            memcpy(ss.base, rs.base, span);
    } else if (ss.packed) {
        pm__side_pack(pc, &ss, sbuf, n, scounts, sdispls, stype, st);
    }
    int rc = torus_coll_alltoallv_on(pc->c, r, ss.base, ss.cnt, ss.off, rs.base, rs.cnt, rs.off);
    if (!rc && rs.packed)
        pm__side_unpack(pc, &rs, rbuf, n, rcounts, rdispls, rtype, rt);
    pm__ran(PM_ALLTOALLV, ss.total, torus_coll_last(pc->c, TORUS_COLL_ALLTOALLV), m, pc);
    return pm__result(pc, "MPI_Alltoallv", rc);
}
