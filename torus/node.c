/*
 * node.c - which ranks share a node, found once with
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): used by the harness (memory
 * per node, default sizing) and by the routed algorithm's node-local last
 * dimension (paper 002 sec. 6.2, the virtual-node hop).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "torus_mpi.h"
#include "torus_io.h"
#include "torus_mem.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void torus_mpi_fail(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, rank = -1;
    MPI_Error_string(rc, msg, &len);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: MPI error on rank %d at %s:%d in %s: %s\n", torus_prog(), rank, file, line, call, msg);
    fflush(stderr);
    /* the launcher forwards stderr through a pipe it stops reading once
     * the abort kills the job: give it a moment to pass the line on (an
     * empty stderr was seen once in CI under MPICH's hydra) */
    struct timespec pause = {0, 200000000};
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

int torus_mem_fits(MPI_Comm comm, const torus_node_info *ni, double need, torus_mem_verdict *v)
{
    int rank, size;
    TORUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    TORUS_MPI_CHECK(MPI_Comm_size(comm, &size));
    /* in doubles: a need of 2^64 bytes or more must not wrap to a small
     * one that "fits" */
    double node_need;
    uint64_t avail = torus_mem_available();
    TORUS_MPI_CHECK(MPI_Allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, ni->comm));
    int bad = avail && !(node_need <= (double)(avail / 10 * 9));
    int cand = bad ? rank : size, first;
    TORUS_MPI_CHECK(MPI_Allreduce(&cand, &first, 1, MPI_INT, MPI_MIN, comm));
    v->speaker = first == rank;
    v->node_need = node_need;
    v->avail = avail;
    v->ranks = ni->local_size;
    return first == size;
}

int torus_all_ok(MPI_Comm comm, int ok)
{
    int all;
    ok = ok != 0;
    TORUS_MPI_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
    return all;
}

int torus_node_discover(MPI_Comm comm, torus_node_info *ni)
{
    int rank, size;
    TORUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    TORUS_MPI_CHECK(MPI_Comm_size(comm, &size));
    TORUS_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &ni->comm));
    TORUS_MPI_CHECK(MPI_Comm_rank(ni->comm, &ni->local));
    TORUS_MPI_CHECK(MPI_Comm_size(ni->comm, &ni->local_size));
    int leader = rank;
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, ni->comm));
    /* Node number = how many node leaders have a smaller rank. */
    int is_leader = leader == rank;
    int *flags = malloc((size_t)size * sizeof(int));
    if (!torus_all_ok(comm, flags != NULL)) {
        free(flags);
        TORUS_MPI_CHECK(MPI_Comm_free(&ni->comm));
        return -1;
    }
    TORUS_MPI_CHECK(MPI_Allgather(&is_leader, 1, MPI_INT, flags, 1, MPI_INT, comm));
    int nn = 0, mine = 0;
    for (int r = 0; r < size; r++) {
        if (r == leader)
            mine = nn;
        nn += flags[r];
    }
    free(flags);
    int mn = ni->local_size, mx = ni->local_size;
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_INT, MPI_MIN, comm));
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, comm));
    ni->node = mine;
    ni->nnodes = nn;
    ni->per_node = mn == mx ? mx : -1;
    ni->max_per_node = mx;
    return 0;
}

void torus_node_free(torus_node_info *ni)
{
    if (ni->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ni->comm);
    ni->comm = MPI_COMM_NULL;
}

int torus_node_cores(const torus_node_info *ni)
{
    /* the union of the node's ranks' affinity masks: ranks bound one per
     * core count each core once, unbound ranks count the whole machine */
    enum { W = CPU_SETSIZE / 64 };
    uint64_t mine[W] = {0}, all[W];
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                mine[c / 64] |= 1ULL << (c % 64);
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++)
            mine[c / 64] |= 1ULL << (c % 64);
    }
    TORUS_MPI_CHECK(MPI_Allreduce(mine, all, W, MPI_UINT64_T, MPI_BOR, ni->comm));
    int n = 0;
    for (int i = 0; i < W; i++)
        n += __builtin_popcountll(all[i]);
    return n > 0 ? n : 1;
}
