/*
 * pmpi_prefer.c - where the MPI library's own call is faster than any torus
 * algorithm, the adapter hands the call to it (issue 37: never slower than
 * the library it replaces).
 *
 * The rows below are per MPI library (the adapter is built for one), from
 * IMB-MPI1's method (run_scripts/bench_adapter.sh: interleaved rounds,
 * medians of t_avg, docs/mpi-adapter.md has the table) on 2 ranks, where a
 * 2-core node is not oversubscribed.  Why these: at 2 ranks a bcast is one
 * message and an allreduce or alltoall one exchange, in the library and in
 * every torus algorithm alike, so nothing of ours can win and the
 * adapter's own work (requests, polling) is what a small call costs more;
 * Open MPI's barrier at 2 ranks is one zero-byte exchange on its fastest
 * path, and its allreduce beats our polling to 64 KiB and ties our
 * reduce-scatter and allgather above (1.00-1.07x in three runs of
 * bench_adapter.sh -r 7 --ab from 64 KiB to 1 MiB).  MPICH's
 * long-message bcast (scatter and allgather from 512 KiB) and its
 * allreduce and barrier lose to the torus library at 2 ranks, so they
 * stay; its alltoall from 64 KiB blocks ties the torus pairwise exchange
 * (0.97-1.07x in four runs of bench_adapter.sh -r 9 --ab), and a tie goes
 * to the library.  Below all of these, the node's shared area (flat_rows).
 *
 * An allreduce handed over keeps what the adapter adds: the call the
 * library gets names the predefined element type of the signature (the
 * reduction class every rank computed alike) and the element count, on
 * the rank's bytes in place or packed, so a predefined op on a derived
 * type, which both libraries refuse, still works.  Only classes and ops
 * the libraries get right go (pm__library_type: 32- and 64-bit integers,
 * float and double; not Open MPI's unsigned min/max, its saturating 8- and
 * 16-bit sums, nor the pairs, packed here without MPI's padding); at 2
 * ranks a + b is b + a, so the result is the torus library's bit for bit.
 *
 * Every rank decides alike: a row reads the op, the communicator's size
 * and the call's byte figure (the one the selection reads: bcast the
 * message, allreduce the vector, alltoall the block, barrier 0), which MPI
 * requires to match; whether rows apply at all depends on the agreed
 * settings (TORUS_COLL_LIBRARY, a forced algorithm, a TORUS_COLL_TABLE
 * file).  The decision is cached in the communicator's state when it is
 * built (pm__prefer): a call tests two bounds, no message.  Zero-byte calls
 * never reach it (they return at once, which also keeps the libraries'
 * zero-size hangs away, docs/mpi-adapter.md).
 */
#include "pmpi_impl.h"
#include "kit_settings.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct lib_row {
    pm_op op;
    int min_n, max_n;   /* the communicator's size */
    size_t lo, hi;      /* the call's byte figure, inclusive */
} lib_row;

/* Where the MPI library's own call is faster than the torus library's
 * algorithms (below the flat rows, these decide only where the shared
 * area cannot be set up: ranks on several nodes, TORUS_COLL_FLAT=off). */
static const lib_row rows[] = {
#if defined(OPEN_MPI)
    {PM_BCAST, 2, 2, 1, SIZE_MAX},
    {PM_ALLREDUCE, 2, 2, 1, SIZE_MAX},
    {PM_ALLTOALL, 2, 2, 1, SIZE_MAX},
    {PM_BARRIER, 2, 2, 0, 0},
#elif defined(MPICH)
    {PM_BCAST, 2, 2, 1, 524287},
    {PM_ALLTOALL, 2, 2, 65536, SIZE_MAX},
#endif
    {PM_NOPS, 0, 0, 0, 0},
};

/* Where the node's shared area (pmpi_flat.c, torus/coll/flat.c) is faster
 * than the library and every torus algorithm: calls of a communicator
 * whose ranks share one node (the byte figure as above; alltoall: the
 * block, n blocks per slot).  At 2 ranks from bench_adapter.sh --ab under
 * both libraries (docs/mpi-adapter.md: 0.15-0.7x of the library's time up
 * to these sizes, ties above: a copy in and a copy out cost what the
 * library's own shared memory costs).  3-8 ranks share no core only on a
 * bigger node than the one these rows were measured on: there only the
 * small calls, where the flat path's parallel reads of one line per rank
 * must beat log2(n) message rounds one after the other. */
static const lib_row flat_rows[] = {
    {PM_BARRIER, 2, 8, 0, 0},
    {PM_BCAST, 2, 2, 1, 65536},
    {PM_ALLREDUCE, 2, 2, 1, 16384},
    {PM_ALLTOALL, 2, 2, 1, 16384},
    {PM_BCAST, 3, 8, 1, 8192},
    {PM_ALLREDUCE, 3, 8, 1, 1024},
    {PM_ALLTOALL, 3, 8, 1, 1024},
    {PM_NOPS, 0, 0, 0, 0},
};

static int rows_on[PM_NOPS], flat_on;

void pm__prefer_init(int never, int flat)
{
    /* a TORUS_COLL_TABLE file was tuned on this machine: its rows decide
     * (they may say mpi themselves); a forced algorithm is the user's */
    int table = torus_coll_table_use(NULL, 0) != 0;
    for (int op = 0; op < PM_NOPS; op++) {
        /* the setting that forces this op's torus collective (none for multisend) */
        const char *f = op == PM_NEIGHBOR_ALLTOALLV ? NULL : kit_setting(torus_coll_op_setting(pm__coll_op((pm_op)op)));
        rows_on[op] = !never && !table && !(f && *f && strcmp(f, "auto"));
    }
    flat_on = flat;
}

/* The first row of `table` for op at pc's size into lo/hi (none: lo
 * SIZE_MAX, hi 0). */
static void row_of(const lib_row *table, const pm_comm *pc, int op, size_t *lo, size_t *hi)
{
    *lo = SIZE_MAX, *hi = 0;
    for (const lib_row *r = table; rows_on[op] && r->op != PM_NOPS; r++)
        if (r->op == (pm_op)op && pc->n >= r->min_n && pc->n <= r->max_n) {
            *lo = r->lo, *hi = r->hi;
            return;
        }
}

void pm__prefer(pm_comm *pc)
{
    /* one node as the kit sees it too: under an emulated layout
     * (TORUS_NODES, TORUS_HOSTFILE) the user's nodes decide, as for the
     * node-aware algorithms (node_of is the same on every rank) */
    int flat = flat_on && pc->flat_state >= 0 && pc->why == PM_OK && pc->node_of;
    for (int r = 1; flat && r < pc->n; r++)
        flat = pc->node_of[r] == pc->node_of[0];
    for (int op = 0; op < PM_NOPS; op++) {
        row_of(rows, pc, op, &pc->lib_lo[op], &pc->lib_hi[op]);
        pc->flat_lo[op] = SIZE_MAX, pc->flat_hi[op] = 0;
        if (flat)
            row_of(flat_rows, pc, op, &pc->flat_lo[op], &pc->flat_hi[op]);
        /* the flat row goes first: the library's starts above it */
        if (pc->flat_lo[op] <= pc->flat_hi[op] && pc->lib_lo[op] <= pc->flat_hi[op])
            pc->lib_lo[op] = pc->flat_hi[op] == SIZE_MAX ? SIZE_MAX : pc->flat_hi[op] + 1;
    }
    /* every non-empty call of the op goes to the library as it came: the
     * fast path hands it over before reading its arguments (the library
     * checks them, as it would without the adapter).  Not while calls are
     * counted, and an allreduce only of a signature whose bytes the
     * library reduces right (MPI_Allreduce keeps the last one it checked
     * per thread) and not under TORUS_COLL_REPRO=library. */
    pc->lib_all = 0;
    for (int op = 0; pc->why == PM_OK && !pm__timing && op < PM_NOPS; op++) {
        size_t lo = op == PM_BARRIER ? 0 : 1;
        if (pc->lib_lo[op] <= lo && pc->lib_hi[op] == (op == PM_BARRIER ? 0 : SIZE_MAX) &&
            !(op == PM_ALLREDUCE && pm__repro_library))
            pc->lib_all |= 1u << op;
    }
}

MPI_Datatype pm__library_type(torus_dtype et, torus_op op)
{
    int minmax = op == TORUS_OP_MIN || op == TORUS_OP_MAX;
    switch (et) {
    case TORUS_INT32: return MPI_INT32_T;
    case TORUS_INT64: return MPI_INT64_T;
    case TORUS_UINT32: return minmax ? MPI_DATATYPE_NULL : MPI_UINT32_T;
    case TORUS_UINT64: return minmax ? MPI_DATATYPE_NULL : MPI_UINT64_T;
    case TORUS_FLOAT: return MPI_FLOAT;
    case TORUS_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

int pm__allreduce_library(pm_comm *pc, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, const pm_type *t,
                          MPI_Datatype et, int n, MPI_Op op)
{
    int in_place = sbuf == MPI_IN_PLACE;
    unsigned char *d = pm__direct(rbuf, count, t);
    const void *s = in_place ? MPI_IN_PLACE : pm__direct(sbuf, count, t);
    if (d && s)
        return PMPI_Allreduce(s, d, n, et, op, pc->comm);
    /* a layout of holes on this rank: its elements packed, reduced in place there */
    size_t bytes = (size_t)count * (size_t)t->size;
    unsigned char *p = pm__scratch(pc, PM_SCRATCH_SEND, bytes, "MPI_Allreduce");
    pm__pack(pc, in_place ? rbuf : sbuf, count, dt, t, p);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, p, n, et, op, pc->comm);
    if (rc == MPI_SUCCESS)
        pm__unpack(pc, p, rbuf, count, dt, t);
    return rc;
}
