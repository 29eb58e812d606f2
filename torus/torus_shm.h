/*
 * torus_shm.h - the packet interface through shared memory: single-writer
 * rings between the ranks of one node, no MPI call per packet.
 *
 * Design anchor: bale's conveyor (a buffer copied into the peer's slot
 * through shared memory, then one signal word; the owner applies).  Per
 * (receiver, dimension, sender) one ring of S+1 slots of cap words, S the
 * send slots per dimension; the sender writes slots and `head`, the
 * receiver writes `taken` (when it takes a packet: from then on the packet
 * is the receiver's to count) and `tail` (when it releases it: the slot is
 * free again).  A per-(receiver, dimension) doorbell counts the packets
 * published to it, so an idle receiver reads one word instead of k-1
 * rings, and an inbox of announcements behind it names the ring of each
 * packet in order, so a packet is found in one more line whatever k is
 * (shm_ring.c).  A sender never has more than S packets published and not yet
 * taken along a dimension, and a receiver holds at most one taken packet
 * per dimension, so S+1 slots always have room (the send-slot count and
 * the budget arithmetic are the MPI transport's, unchanged).
 *
 * Two layers: the core (shm_ring.c, no MPI) works on memory it is given,
 * so the functional simulator runs the same protocol at thousands of
 * virtual ranks; the MPI transport (transport_shm.c) lays the rings out in
 * an MPI-3 shared window over the node's ranks and sends the dimensions
 * that leave the node through the MPI transport.
 */
#ifndef TORUS_SHM_H
#define TORUS_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "torus.h"

/* ---- the core: layout and protocol ------------------------------------ */

/* Bytes of one rank's incoming area for the dimensions flagged in on[]
 * (1: through shared memory): a line whose first word it sleeps on, then
 * per such dimension a doorbell line, an inbox of (k_d - 1) S words and
 * k_d - 1 rings of S+1 slots of cap words.  Every rank of a line computes
 * the same layout from (shape, on, cap, slots). */
size_t torus_shm_area_bytes(const torus_shape *s, const int *on, int cap, int slots);

/* Zeroes an incoming area (before any rank uses it). */
void torus_shm_area_init(void *area, size_t bytes);

typedef struct torus_shm_core torus_shm_core;

/* One rank's end of the rings: rank me of map m, the dimensions on[]
 * through shared memory, cap words per packet, `slots` send slots per
 * dimension.  area_of(ctx, r, &mask) returns rank r's incoming area (the
 * caller's mapping: a shared window or plain memory) and the dimensions it
 * was laid out for (bit d: on[d] at rank r; the ranks of a line along d
 * agree on d).  Returns NULL on out of memory or a bad argument. */
torus_shm_core *torus_shm_core_create(const torus_map *m, int me, const int *on, int cap, int slots,
                                      void *(*area_of)(void *ctx, int rank, unsigned *mask), void *ctx);
void torus_shm_core_destroy(torus_shm_core *c);

/* The packet interface for dimension d (on[d] must be set); the same
 * contracts as torus_transport's (torus.h).  send copies the n words of
 * *buf into the peer's ring and leaves *buf to the caller. */
int torus_shm_can_send(torus_shm_core *c, int d);
int torus_shm_send(torus_shm_core *c, int d, int to, const uint64_t *buf, int n, int last);
int torus_shm_poll(torus_shm_core *c, int d, torus_packet *pkt);
void torus_shm_release(torus_shm_core *c, int d);
/* Every packet this rank sent along a shared-memory dimension is taken. */
int torus_shm_quiescent(torus_shm_core *c);
/* Words published along d and not yet seen taken by this rank (it looks at
 * can_send and quiescent): never fewer than the untaken ones. */
int torus_shm_sending(torus_shm_core *c, int d);
/* scan 1: find packets by scanning the ring heads after the doorbell (the
 * design before the inbox), 0 (the default): through the inbox.  For
 * ra_calibrate --hop, which prices both; set before the first poll, on
 * the receiving side only (senders announce in both). */
void torus_shm_set_scan(torus_shm_core *c, int scan);
/* lazy 1: wake-ups without a fence.  A packet published or taken looks
 * at the peer's sleep word with a plain load (a line nobody writes while
 * nobody sleeps) instead of after a full fence, which drained the store
 * buffer twice per packet: with the locked doorbell add, the largest part
 * of a packet's price (ra_calibrate --hop).  The look may then miss a peer
 * that is just lying down, so every sleep is bounded to 20 us.  For ranks
 * that each have a core (rarely asleep); every rank of a node alike. */
void torus_shm_set_lazy_wake(torus_shm_core *c, int lazy);
/* 1 if dimension d goes through shared memory. */
int torus_shm_on(const torus_shm_core *c, int d);

/* Sleeps until a packet is published to this rank or one of its packets
 * is taken (or timeout_ns pass), unless one already was: for an idle rank
 * on a node with more ranks than cores.  Returns 1 if it slept. */
int torus_shm_sleep(torus_shm_core *c, long timeout_ns);

/* Binds a transport that runs every dimension through the core: the
 * functional simulator's use (every virtual rank "on one node").  No
 * message interface. */
void torus_shm_core_bind(torus_shm_core *c, torus_transport *t);

#endif
