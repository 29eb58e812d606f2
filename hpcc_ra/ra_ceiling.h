/* ra_ceiling.h - the node's random-update ceiling: what this memory system
 * gives to HPCC's update stream when nothing is sent at all. */
#ifndef RA_CEILING_H
#define RA_CEILING_H

#include <stdint.h>
#include "ra_gen.h"

typedef enum {
    RA_CEIL_BATCH = 0, /* generate `depth` updates prefetching each, then XOR them */
    RA_CEIL_ROLL,      /* a rolling pipeline: prefetch an update, XOR the one `depth` back */
    RA_CEIL_NKINDS
} ra_ceil_kind;

/* The depths tried, each within HPCC's 1024 updates of look-ahead. */
#define RA_CEIL_NDEPTHS 5
extern const int ra_ceil_depths[RA_CEIL_NDEPTHS];

const char *ra_ceil_kind_name(ra_ceil_kind k);

/* Applies elements 1..n of gen's stream to t (2^log2 words), `kind` with
 * `depth` updates in flight (1..1024).  The table it leaves is the one
 * ra_local_replay leaves: the same updates, each applied once. */
void ra_ceiling_run(uint64_t *t, int log2, ra_gen_kind gen, uint64_t n, ra_ceil_kind kind, int depth);

#endif
