/*
 * node.c - which ranks share a node, found once with
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or emulated by TORUS_NODES /
 * TORUS_HOSTFILE (node_layout.c): used by the harness (memory per node,
 * default sizing), the routed algorithm's node-local last dimension
 * (paper 002 sec. 6.2, the virtual-node hop) and shared-memory rings, the
 * node-aware barrier and the MPI adapter.  The kit's only node detection.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "torus_mpi.h"
#include "kit_agree.h"
#include "kit_settings.h"
#include "kit_io.h"
#include "kit_mem.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int torus_mem_fits(MPI_Comm comm, const torus_node_info *ni, double need, torus_mem_verdict *v)
{
    int rank, size;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
    /* in doubles: a need of 2^64 bytes or more must not wrap to a small
     * one that "fits" */
    double node_need;
    uint64_t avail = kit_mem_available();
    KIT_MPI_CHECK(KMPI_Allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, ni->comm));
    int bad = avail && !(node_need <= (double)(avail / 10 * 9));
    int cand = bad ? rank : size, first;
    KIT_MPI_CHECK(KMPI_Allreduce(&cand, &first, 1, MPI_INT, MPI_MIN, comm));
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
    KIT_MPI_CHECK(KMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
    return all;
}

int torus_comm_made(MPI_Comm parent, int rc, MPI_Comm *made, const char *call, char *err, size_t errlen)
{
    char msg[MPI_MAX_ERROR_STRING] = "another rank's";
    if (rc != MPI_SUCCESS) {
        int len = 0;
        *made = MPI_COMM_NULL;
        MPI_Error_string(rc, msg, &len);
        msg[strcspn(msg, "\n")] = 0; /* MPICH's stack follows on lines of its own */
        char *comma = strstr(msg, ", error stack");
        if (comma)
            *comma = 0;
    }
    if (torus_all_ok(parent, rc == MPI_SUCCESS))
        return 0;
    if (*made != MPI_COMM_NULL)
        MPI_Comm_free(made);
    snprintf(err, errlen, "MPI could not make a communicator (%s: %s; the library may be out of communicators)", call,
             msg);
    return -1;
}

/* The kit's digest over n ints (little-endian bytes) after a tag: what
 * the ranks compare. */
static uint64_t layout_hash(int tag, const int *v, int n, const char *err)
{
    uint64_t h = KIT_DIGEST_SEED ^ (uint64_t)tag;
    for (int i = 0; i < n; i++) {
        unsigned u = (unsigned)v[i];
        unsigned char b[4] = {u & 0xff, (u >> 8) & 0xff, (u >> 16) & 0xff, u >> 24};
        h = kit_digest(h, b, sizeof b);
    }
    return err ? kit_digest(h, err, strlen(err)) : h;
}

/* The emulated layout of every rank of MPI_COMM_WORLD into *node_of (NULL
 * when none is set), agreed by every rank of comm with one allreduce of
 * {hash, ~hash, worst verdict}: equal hashes leave max(hash) = ~max(~hash).
 * 0, -1 out of memory, -2 bad or differing settings (err on every rank). */
static int agreed_override(MPI_Comm comm, int **node_of, int *kind, char *err, size_t errlen)
{
    int wn;
    KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &wn));
    int rc = torus_node_override(wn, node_of, err, errlen);
    const char *k = kit_setting("TORUS_NODES");
    *kind = rc != 1 ? 0 : k && *k ? 1 : 2;
    uint64_t h = rc == 1 ? layout_hash(*kind, *node_of, wn, NULL) : layout_hash(10 + rc, NULL, 0, rc ? err : NULL);
    uint64_t mine[3] = {h, ~h, rc == -3 ? 2 : rc == -2 ? 1 : 0}, all[3];
    KIT_MPI_CHECK(KMPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_MAX, comm));
    if (all[2] == 2 || (all[0] == ~all[1] && !all[2]))
        return all[2] ? -1 : 0;
    if (all[0] != ~all[1])
        snprintf(err, errlen, "TORUS_NODES / TORUS_HOSTFILE give different node layouts on different ranks: allowed "
                              "the same setting and file on every rank (mpirun -x, or env on the command line)");
    free(*node_of);
    *node_of = NULL;
    return -2;
}

/* ni->comm from the emulated layout: the ranks of comm on one emulated
 * node, which must lie within one machine (the shared-memory transport
 * maps its peers' memory).  0, -1 a communicator MPI could not make or -2,
 * with err on every rank. */
static int split_emulated(MPI_Comm comm, int rank, const int *node_of, torus_node_info *ni, char *err, size_t errlen)
{
    int wr;
    MPI_Comm real;
    KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    if (torus_comm_made(comm, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &real), &real,
                        "MPI_Comm_split_type", err, errlen))
        return -1;
    int machine = wr;
    KIT_MPI_CHECK(KMPI_Allreduce(MPI_IN_PLACE, &machine, 1, MPI_INT, MPI_MIN, real));
    KIT_MPI_CHECK(MPI_Comm_free(&real));
    if (torus_comm_made(comm, MPI_Comm_split(comm, node_of[wr], rank, &ni->comm), &ni->comm, "MPI_Comm_split", err,
                        errlen))
        return -1;
    int mm[2] = {machine, -machine};
    KIT_MPI_CHECK(KMPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MAX, ni->comm));
    if (torus_all_ok(comm, mm[0] == -mm[1]))
        return 0;
    snprintf(err, errlen, "%s: an emulated node holds ranks of different machines: allowed nodes that each lie "
                          "within one machine",
             ni->emulated == 1 ? "TORUS_NODES" : "TORUS_HOSTFILE");
    KIT_MPI_CHECK(MPI_Comm_free(&ni->comm));
    return -2;
}

int torus_node_discover(MPI_Comm comm, torus_node_info *ni, char *err, size_t errlen)
{
    int rank, size;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
    int *node_of = NULL;
    ni->comm = MPI_COMM_NULL;
    int orc = agreed_override(comm, &node_of, &ni->emulated, err, errlen);
    if (orc == -1)
        snprintf(err, errlen, "out of memory while reading the node layout");
    if (orc)
        return orc;
    if (node_of) {
        orc = split_emulated(comm, rank, node_of, ni, err, errlen);
        free(node_of);
        if (orc)
            return orc;
    } else if (torus_comm_made(comm, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &ni->comm),
                               &ni->comm, "MPI_Comm_split_type", err, errlen)) {
        return -1;
    }
    KIT_MPI_CHECK(MPI_Comm_rank(ni->comm, &ni->local));
    KIT_MPI_CHECK(MPI_Comm_size(ni->comm, &ni->local_size));
    int leader = rank;
    KIT_MPI_CHECK(KMPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, ni->comm));
    /* Node number = how many node leaders have a smaller rank. */
    int is_leader = leader == rank;
    int *flags = malloc((size_t)size * sizeof(int));
    if (!torus_all_ok(comm, flags != NULL)) {
        free(flags);
        KIT_MPI_CHECK(MPI_Comm_free(&ni->comm));
        snprintf(err, errlen, "out of memory while finding the node layout");
        return -1;
    }
    KIT_MPI_CHECK(MPI_Allgather(&is_leader, 1, MPI_INT, flags, 1, MPI_INT, comm));
    int nn = 0, mine = 0;
    for (int r = 0; r < size; r++) {
        if (r == leader)
            mine = nn;
        nn += flags[r];
    }
    free(flags);
    int mn = ni->local_size, mx = ni->local_size;
    KIT_MPI_CHECK(KMPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_INT, MPI_MIN, comm));
    KIT_MPI_CHECK(KMPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, comm));
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
    KIT_MPI_CHECK(KMPI_Allreduce(mine, all, W, MPI_UINT64_T, MPI_BOR, ni->comm));
    int n = 0;
    for (int i = 0; i < W; i++)
        n += __builtin_popcountll(all[i]);
    return n > 0 ? n : 1;
}

const char *torus_node_source(const torus_node_info *ni)
{
    return ni->emulated == 1 ? "TORUS_NODES" : ni->emulated == 2 ? "TORUS_HOSTFILE" : "MPI_COMM_TYPE_SHARED";
}

const char *torus_node_note(const torus_node_info *ni)
{
    return ni->emulated == 1 ? " (emulated: TORUS_NODES)" : ni->emulated == 2 ? " (emulated: TORUS_HOSTFILE)" : "";
}
