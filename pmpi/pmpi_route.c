/*
 * pmpi_route.c - the route of each call, decided once per communicator
 * and byte range: the one place the adapter decides who runs a call.
 *
 * Source: the selection table (torus/coll/select.table, compiled in, and
 * an agreed TORUS_COLL_TABLE file), whose rows say a torus algorithm, the
 * MPI library's own call (`mpi`) or the node's shared area (`flat`),
 * matched by torus_coll_route_of (torus/coll/route.c), the same function
 * and rows the torus library and collbench read.
 *
 * Steps, when a communicator's state is built (and again, alike on every
 * rank, when its shared area could not be set up):
 *  1. what this communicator can do beside the torus algorithms: the
 *     compiled mpi and flat rows (not under a TORUS_COLL_TABLE file, which
 *     was tuned on this machine and says mpi or flat itself, nor under
 *     TORUS_COLL_LIBRARY=never), the shared area (every rank on one node
 *     as the kit sees it, TORUS_COLL_FLAT not off, no failed set-up);
 *  2. per op, the byte figures from 0 up cut into ranges over which the
 *     route cannot change (torus_coll_route's hi: the next row bound),
 *     adjacent equal routes merged, at most PM_NSEG ranges (a larger
 *     file: the last range decides per call);
 *  3. lib_all: the ops whose every non-empty call goes to the library by
 *     a compiled row (the fast paths hand those over before reading an
 *     argument).
 * A call then costs one scan of a few ranges (pm__route, inline) and one
 * switch on the kind.
 *
 * Every input is equal on every rank (the agreed settings and table, the
 * communicator's size, shape and node layout, an agreed set-up outcome),
 * and a call's byte figure is one MPI requires to match, so every rank
 * takes the same route.
 */
#include "pmpi_impl.h"
#include "torus_flat.h"

#include <stdint.h>
#include <string.h>

static int compiled_calls, flat_setting;

void pm__route_init(int never, int flat)
{
    /* an agreed TORUS_COLL_TABLE file: its rows decide (they may say mpi
     * or flat themselves), the compiled table only for the torus choice */
    compiled_calls = !never && torus_coll_table_use(NULL, 0) == 0;
    flat_setting = flat;
}

/* Step 1 (kept in pc->calls: an ask range's call reads it). */
static int calls_of(const pm_comm *pc)
{
    int flat = flat_setting && !pm__flat_failed(pc) && pc->node_of;
    for (int r = 1; flat && r < pc->n; r++)
        flat = pc->node_of[r] == pc->node_of[0];
    return TORUS_ROUTE_FILE_CALLS | (compiled_calls ? TORUS_ROUTE_COMPILED_CALLS : 0) |
           (flat ? TORUS_ROUTE_FLAT_OK : 0);
}

static int same(const torus_coll_route *a, const torus_coll_route *b)
{
    return a->kind == b->kind && a->alg == b->alg && a->from_file == b->from_file;
}

/* Step 2 for one op: its torus op, uniform, and the byte figures it can have. */
static void ranges_of(pm_comm *pc, pm_op op, int calls)
{
    torus_coll_op top = pm__coll_op(op);
    int uniform = op == PM_ALLTOALL;
    /* barrier and alltoallv with any counts: the figure is always 0 */
    uint64_t last = op == PM_BARRIER || op == PM_ALLTOALLV ? 0 : UINT64_MAX;
    pm_seg *s = pc->seg[op];
    int n = 0;
    /* the area holds at most PM_FLAT_MAX bytes a slot: above, the torus
     * algorithm; a bcast goes through it in pieces, at any size */
    uint64_t flat_max = op == PM_BCAST ? UINT64_MAX : op == PM_ALLTOALL ? PM_FLAT_MAX / (uint64_t)pc->n : PM_FLAT_MAX;
    for (uint64_t b = 0;;) {
        torus_coll_route r;
        torus_coll_route_of(pc->c, top, b, uniform, calls, &r);
        if (r.kind == TORUS_ROUTE_FLAT && b > flat_max)
            r.kind = TORUS_ROUTE_TORUS; /* r.alg is the torus choice */
        if (r.kind == TORUS_ROUTE_FLAT && r.hi > flat_max)
            r.hi = flat_max;
        if (r.hi > last)
            r.hi = last;
        if (n && same(&s[n - 1].r, &r)) {
            s[n - 1].r.hi = r.hi;
        } else if (n < PM_NSEG) {
            s[n].r = r;
            s[n].ask = 0;
            n++;
        } else {
            /* more ranges than kept: the last one decides per call */
            s[n - 1].ask = 1;
            s[n - 1].r.hi = last;
            break;
        }
        s[n - 1].hi = s[n - 1].r.hi;
        if (r.hi >= last)
            break;
        b = r.hi + 1;
    }
    s[n - 1].hi = UINT64_MAX; /* the scan's sentinel */
    pc->nseg[op] = n;
}

void pm__route_build(pm_comm *pc)
{
    pc->lib_all = 0;
    memset(pc->nseg, 0, sizeof pc->nseg);
    if (pc->why != PM_OK || !pc->c)
        return;
    int calls = pc->calls = calls_of(pc);
    for (int op = 0; op < PM_NEIGHBOR_ALLTOALLV; op++)
        ranges_of(pc, (pm_op)op, calls);
    /* Step 3: not while calls are counted (the fast path counts nothing),
     * an allreduce not under TORUS_COLL_REPRO=library (per-call check) */
    for (int op = 0; !pm__timing && op < PM_NEIGHBOR_ALLTOALLV; op++) {
        int all = 1;
        for (int i = 0; i < pc->nseg[op]; i++) {
            const pm_seg *s = &pc->seg[op][i];
            /* bcast, allreduce, alltoall: figure 0 never gets here (an empty call returns) */
            int empty_only = op != PM_BARRIER && op != PM_ALLTOALLV && i == 0 && s->r.hi == 0;
            if (!empty_only && (s->r.kind != TORUS_ROUTE_LIBRARY || s->r.from_file || s->ask))
                all = 0;
        }
        if (all && !(op == PM_ALLREDUCE && pm__settings()->repro_library))
            pc->lib_all |= 1u << op;
    }
}

const torus_coll_route *pm__route_ask(pm_comm *pc, pm_op op, size_t bytes)
{
    torus_coll_route_of(pc->c, pm__coll_op(op), bytes, op == PM_ALLTOALL, pc->calls, &pc->asked);
    return &pc->asked;
}

size_t pm__route_flat_bytes(const pm_comm *pc)
{
    size_t cap = 0;
    for (int op = 0; op < PM_NEIGHBOR_ALLTOALLV; op++)
        for (int i = 0; i < pc->nseg[op]; i++) {
            const torus_coll_route *r = &pc->seg[op][i].r;
            if (r->kind != TORUS_ROUTE_FLAT)
                continue;
            size_t need = op == PM_ALLTOALL ? (size_t)r->hi * (size_t)pc->n
                          : op == PM_BCAST && r->hi > TORUS_FLAT_PIECE ? TORUS_FLAT_PIECE
                                                                       : (size_t)r->hi;
            cap = need > cap ? need : cap;
        }
    return cap;
}
