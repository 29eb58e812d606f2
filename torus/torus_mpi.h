/* torus_mpi.h - the MPI parts of the torus library: the MPI transport
 * (transport_mpi.c) and the node layout (node.c). */
#ifndef TORUS_MPI_H
#define TORUS_MPI_H

#include <mpi.h>
#include <stdint.h>
#include "torus.h"
#include "kit_mpi.h"

typedef struct torus_mpi torus_mpi;

/* Builds one communicator per dimension (rank in it = coordinate along the
 * dimension), `outstanding` send slots per dimension and one posted receive
 * per dimension, every buffer of cap words: the packet interface.  The
 * message interface runs on a duplicate of comm (a map rank is its rank in
 * comm).  outstanding 0 builds the message interface only (collectives).
 * Collective over comm.
 * Returns 0, or -1 with err set on every rank: out of memory, or a
 * communicator MPI could not make (torus_comm_made: comm's error handler
 * must return); other MPI failures abort through KIT_MPI_CHECK. */
int torus_mpi_create(torus_mpi **out, MPI_Comm comm, const torus_map *m, int me, int cap,
                     int outstanding, char *err, size_t errlen);
/* Fills t with the functions of this transport. */
void torus_mpi_bind(torus_mpi *tm, torus_transport *t);
/* End of a phase: waits for every send, cancels the posted receives and
 * posts fresh ones.  Call only when no message can still arrive. */
int torus_mpi_reset(torus_mpi *tm);
void torus_mpi_destroy(torus_mpi *tm);
/* sync 1: packets go by MPI_Issend, so a send completes only once the
 * receiver has matched it into its posted receive (no packet waits in the
 * receiver's MPI queue uncounted); 0 (the default): MPI_Isend. */
void torus_mpi_set_sync(torus_mpi *tm, int sync);

/* ---- the node hop through shared memory (transport_shm.c) ------------ */

typedef struct torus_shm torus_shm;

/* Collective over comm (and node, the node's communicator from
 * torus_node_discover).  The packet interface of a map whose dimensions
 * take two roads: a dimension whose every line through this rank stays on
 * its node goes through single-writer rings in an MPI-3 shared window
 * (torus_shm.h; no MPI call per packet), the others through net, an MPI
 * transport over the same map and cap (torus_mpi_create with `slots` send
 * slots), which must outlive this one.  The message interface is net's.
 * Returns 0, or -1 with err set (on every rank). */
int torus_shm_create(torus_shm **out, MPI_Comm comm, MPI_Comm node, const torus_map *m, int me, int cap,
                     int slots, const torus_transport *net, char *err, size_t errlen);
/* Fills t with the functions of this transport.  Its sleep(): an idle
 * rank sleeps until a packet arrives through shared memory or one of its
 * own is taken (torus_shm_sleep), at most timeout_ns, less when a
 * dimension leaves the node (MPI cannot wake it). */
void torus_shm_bind(torus_shm *s, torus_transport *t);
/* How many of this rank's dimensions go through shared memory. */
int torus_shm_count(const torus_shm *s);
/* Collective over the node (the window is freed). */
void torus_shm_destroy(torus_shm *s);
/* Lazy wake-ups on the rings (torus_shm_set_lazy_wake): call on every
 * rank of the node alike, or on none. */
void torus_shm_lazy_wake(torus_shm *s);

/* ---- node layout (node.c) -------------------------------------------- */

/* The ranks sharing this rank's node (MPI_COMM_TYPE_SHARED), or an
 * emulated layout (TORUS_NODES / TORUS_HOSTFILE, torus.h's
 * torus_node_override): several nodes on one machine. */
typedef struct torus_node_info {
    MPI_Comm comm;    /* the node's communicator; torus_node_free releases it */
    int node;         /* node number, nodes ordered by their lowest rank */
    int local;        /* this rank's index on its node */
    int local_size;   /* ranks on this node */
    int nnodes;
    int per_node;     /* ranks per node, -1 when nodes differ */
    int max_per_node;
    int emulated;     /* 0: MPI_COMM_TYPE_SHARED, 1: TORUS_NODES, 2: TORUS_HOSTFILE */
} torus_node_info;

/* Collective over comm.  Returns 0, -1 out of memory or a communicator
 * MPI could not make (torus_comm_made; comm's error handler must return)
 * or -2 a bad or differing TORUS_NODES / TORUS_HOSTFILE (exit 2), with one
 * line in err, on every rank.  An emulated node is the ranks of comm whose
 * MPI_COMM_WORLD ranks the layout puts together; each must lie within one
 * machine. */
int torus_node_discover(MPI_Comm comm, torus_node_info *ni, char *err, size_t errlen);
/* Where the layout came from: "MPI_COMM_TYPE_SHARED", "TORUS_NODES" or
 * "TORUS_HOSTFILE" (for the preamble). */
const char *torus_node_source(const torus_node_info *ni);
/* For a "# ranks: ... per node" line: " (emulated: TORUS_NODES)",
 * " (emulated: TORUS_HOSTFILE)", or "" for the machine's own layout. */
const char *torus_node_note(const torus_node_info *ni);
/* Collective over the node: the cores its ranks may run on (the union of
 * their affinity masks).  local_size above it: the node is oversubscribed. */
int torus_node_cores(const torus_node_info *ni);
void torus_node_free(torus_node_info *ni);

/* The kit's one memory check, before allocating from a size the user
 * chose: every rank will hold `need` bytes; the ranks of each node must
 * fit into 90% of what its kernel reports available (kit_mem.h).
 * Collective over comm (ni: torus_node_discover's).  Returns 1 when every
 * node fits; else 0 on every rank, with v filled for the one line the
 * caller says (v->speaker on the lowest rank of a node that does not). */
typedef struct torus_mem_verdict {
    int speaker;      /* this rank says why */
    double node_need; /* bytes this rank's node needs */
    uint64_t avail;   /* bytes available on this rank's node */
    int ranks;        /* ranks on this rank's node */
} torus_mem_verdict;
int torus_mem_fits(MPI_Comm comm, const torus_node_info *ni, double need, torus_mem_verdict *v);

/* 1 when ok is non-zero on every rank of comm, else 0 (collective): how
 * ranks agree that a setup step worked everywhere before going on. */
int torus_all_ok(MPI_Comm comm, int ok);
/* After rc = MPI_Comm_dup / _split / _split_type(parent, ..., made): 0
 * when every rank of parent got its communicator, else -1 on every rank
 * with *made freed (MPI_COMM_NULL) and one line in err.  Why: a library
 * out of communicators (MPICH has 2048 context ids per process) fails
 * such a call; an adapter that spends communicators of its own must turn
 * that into "this communicator goes to the library", never end the job.
 * Needs parent's error handler to return (MPI_ERRORS_RETURN). */
int torus_comm_made(MPI_Comm parent, int rc, MPI_Comm *made, const char *call, char *err, size_t errlen);

#endif
