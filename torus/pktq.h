/*
 * pktq.h - internal to torus/: the packet buffer pool and the per-endpoint
 * inbound queue shared by the in-process transports (transport_sim.c and
 * transport_timed.c).  A send swaps the caller's full buffer for an empty
 * one from the pool (no copy, as the MPI transport does); a release puts
 * the received buffer back.
 */
#ifndef TORUS_PKTQ_H
#define TORUS_PKTQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct torus__pkt {
    uint64_t *data;
    int n, last;
    int src_rank;   /* sender (sim: whose slot a rendezvous packet holds) */
    int holds_slot; /* sim: the sender's slot is freed on receipt */
    double arrive;  /* timed: when the packet is at the receiver */
} torus__pkt;

typedef struct torus__pktq {
    torus__pkt *q;
    int len, cap;
    int held; /* index of the packet the receiver holds, -1 none */
} torus__pktq;

typedef struct torus__pool {
    uint64_t **buf;
    int len, cap;
    size_t words; /* capacity of every buffer */
} torus__pool;

/* An empty buffer of pool->words words (+1 spare), NULL on out of memory. */
uint64_t *torus__pool_get(torus__pool *p);
/* Gives b back; on out of memory b is freed instead. */
void torus__pool_put(torus__pool *p, uint64_t *b);
void torus__pool_free(torus__pool *p);

/* Room for one more packet at the end of q, NULL on out of memory. */
torus__pkt *torus__pktq_push(torus__pktq *q);
/* A send: appends a packet holding the caller's full buffer *buf (n words,
 * finish mark `last`, sender src) to q and hands back an empty buffer from
 * the pool through *buf, so nothing is copied.  NULL on out of memory
 * (then nothing changed). */
torus__pkt *torus__pktq_send(torus__pktq *q, torus__pool *pool, uint64_t **buf, int n, int last, int src);
/* Removes packet i keeping the others in order (sim: MPI's non-overtaking). */
void torus__pktq_remove_ordered(torus__pktq *q, int i);
/* Removes packet i by moving the last one into its place (timed: order is
 * kept by arrival times, not by position). */
void torus__pktq_remove_swap(torus__pktq *q, int i);
/* Frees the queue and the buffers still in it. */
void torus__pktq_free(torus__pktq *q);
/* n queues: mark each empty-handed (held = -1) / free each (q may be NULL). */
void torus__pktq_init_all(torus__pktq *q, size_t n);
void torus__pktq_free_all(torus__pktq *q, size_t n);

#endif
