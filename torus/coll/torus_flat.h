/*
 * torus_flat.h - small collectives of ranks that share one node, through
 * one shared area instead of messages (flat.c has the protocol and its
 * cost).
 *
 * The area holds one slot per rank: a line with its done count (and, for
 * the bcasts that go process to process, its process, its probe word
 * and the verdict of its copies), then TORUS_FLAT_GENERATIONS buffers,
 * each a publication count and `cap` bytes (rounded up to lines): call k
 * uses buffer k mod G, so a
 * rank that writes in consecutive calls waits for the readers of call
 * k-G only (flat.c).  The
 * caller maps it (MPI: a POSIX shared-memory segment every rank of the
 * communicator maps, pmpi/pmpi_flat.c; the unit test: plain memory and
 * threads) and zeroes it before any rank uses it.  No MPI here.
 *
 * Every rank calls the same collectives in the same order with the same
 * sizes (MPI's rule for a communicator): each call is one step of a
 * counter every rank keeps alike.  One call at a time per torus_flat.
 */
#ifndef TORUS_FLAT_H
#define TORUS_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "torus_coll.h"

/* Data buffers per slot: how many calls a writer may run ahead of its
 * slowest reader (4: a root broadcasting back to back at 2 ranks never
 * waits, docs/mpi-adapter.md; the area grows by that factor, 512 KiB at
 * 2 ranks for the bcast's 64 KiB pieces). */
#define TORUS_FLAT_GENERATIONS 4

/* A bcast of more bytes goes through the area in pieces of this many (or
 * of the slot's cap, when smaller), each a call of its own: the root
 * copies piece i+1 into the next buffer while its readers copy piece i
 * out, and the area stays the size of the small calls'.  64 KiB: at 2
 * ranks 0.36-0.61x the library's time at 1 MiB where 32 KiB pieces took
 * the same or more (docs/mpi-adapter.md, "A large bcast in pieces"). */
#define TORUS_FLAT_PIECE ((size_t)64 << 10)

/* A bcast of this many bytes or more goes process to process when every
 * rank agreed it can (torus_flat_probe, torus_flat_direct): the root
 * writes one share into each reader's buffer while the readers read the
 * rest from the root's (process_vm_writev/readv, one copy each, both
 * halves at once at 2 ranks), instead of two copies through the area.
 * 256 KiB: at 2 ranks 0.57-0.64x MPICH's time at 256-512 KiB where the
 * pieces read 1.09-1.10x in the same batch, and at 128 KiB the pieces are
 * faster (docs/mpi-adapter.md, "A large bcast process to process"). */
#define TORUS_FLAT_DIRECT ((size_t)256 << 10)

typedef struct torus_flat torus_flat;

/* Bytes of one rank's slot for `cap` data bytes (the area is n of them). */
size_t torus_flat_slot_bytes(size_t cap);

/* Rank me's end over the zeroed area of n slots of cap data bytes.  poke,
 * when not NULL, is called from every idle poll after the spin (the MPI
 * caller lets its library progress there, as a library's own wait would:
 * a peer may be finishing a send to this rank before it can come).
 * NULL on a bad argument or out of memory. */
torus_flat *torus_flat_create(int n, int me, size_t cap, void *area, void (*poke)(void *ctx), void *ctx);
void torus_flat_destroy(torus_flat *f);
/* The data bytes of one slot: the largest bcast and allreduce, n blocks of
 * an alltoall. */
size_t torus_flat_cap(const torus_flat *f);

/* 1 when this process can read and write every peer's memory directly
 * (a word each peer published at create, read and written back with
 * process_vm_readv/writev; a kernel or container may forbid it); every
 * rank must have created its end before any rank probes. */
int torus_flat_probe(torus_flat *f);
/* Large bcasts directly (on != 0) or through the area in pieces (0, the
 * default): the same on every rank, set from the probe of all of them. */
void torus_flat_direct(torus_flat *f, int on);
/* The bcasts that went process to process so far (a failed copy on any
 * rank sends the whole bcast again in pieces, and it does not count). */
uint64_t torus_flat_direct_count(const torus_flat *f);

/* The collectives; 0, or TORUS_COLL_EARG when the data does not fit a slot
 * (a bcast: when the slot holds no data at all, cap 0; a larger one goes
 * in pieces) or (allreduce) MPI defines no (t, op). */
int torus_flat_barrier(torus_flat *f);
int torus_flat_bcast(torus_flat *f, void *buf, size_t bytes, int root);
/* d = s of rank 0 op s of rank 1 op ... in rank order on every rank (the
 * same bits everywhere); s may be d. */
int torus_flat_allreduce(torus_flat *f, const void *s, void *d, size_t count, torus_dtype t, torus_op op);
/* block j of s to rank j, block i of d from rank i (n * block <= cap). */
int torus_flat_alltoall(torus_flat *f, const void *s, void *d, size_t block);

#endif
