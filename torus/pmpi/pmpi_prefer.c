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
 * path.  MPICH's long-message bcast (scatter and allgather from 512 KiB)
 * and its allreduce, alltoall and barrier lose to the torus library at 2
 * ranks, so they stay.
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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct lib_row {
    pm_op op;
    int min_n, max_n;   /* the communicator's size */
    size_t lo, hi;      /* the call's byte figure, inclusive */
} lib_row;

static const lib_row rows[] = {
#if defined(OPEN_MPI)
    {PM_BCAST, 2, 2, 1, SIZE_MAX},
    {PM_ALLTOALL, 2, 2, 1, SIZE_MAX},
    {PM_BARRIER, 2, 2, 0, 0},
#elif defined(MPICH)
    {PM_BCAST, 2, 2, 1, 524287},
#endif
    {PM_NOPS, 0, 0, 0, 0},
};

/* The torus collective each op's TORUS_COLL_<OP> forces. */
static const char *const force_env[PM_NOPS] = {"TORUS_COLL_BARRIER", "TORUS_COLL_BCAST", "TORUS_COLL_ALLREDUCE",
                                                "TORUS_COLL_ALLTOALLV", "TORUS_COLL_ALLTOALLV", NULL};
static int rows_on[PM_NOPS];

void pm__prefer_init(int never)
{
    /* a TORUS_COLL_TABLE file was tuned on this machine: its rows decide
     * (they may say mpi themselves); a forced algorithm is the user's */
    int table = torus_coll_table_use(NULL, 0) != 0;
    for (int op = 0; op < PM_NOPS; op++) {
        const char *f = force_env[op] ? getenv(force_env[op]) : NULL;
        rows_on[op] = !never && !table && !(f && *f && strcmp(f, "auto"));
    }
}

void pm__prefer(pm_comm *pc)
{
    for (int op = 0; op < PM_NOPS; op++) {
        pc->lib_lo[op] = SIZE_MAX, pc->lib_hi[op] = 0;
        for (const lib_row *r = rows; rows_on[op] && r->op != PM_NOPS; r++)
            if (r->op == (pm_op)op && pc->n >= r->min_n && pc->n <= r->max_n) {
                pc->lib_lo[op] = r->lo, pc->lib_hi[op] = r->hi;
                break;
            }
    }
}
