/* ra_local.h - the sequential RandomAccess kernel of the Star and Single tests. */
#ifndef RA_LOCAL_H
#define RA_LOCAL_H

#include <stdint.h>
#include "ra_gen.h"

/* Number of interleaved update streams: HPCC's sequential look-ahead. */
#define RA_LOCAL_LANES 128

/* Applies elements 1..nupdates of stream gen to table t of 2^log2 words.
 * The stream is cut into RA_LOCAL_LANES contiguous slices run interleaved, so
 * 128 independent memory accesses are in flight (within the 1024 look-ahead);
 * OpenMP threads (OMP_NUM_THREADS) take whole lanes and update atomically, so
 * the result is exact with any thread count. */
void ra_local_run(uint64_t *t, int log2, ra_gen_kind gen, uint64_t nupdates);

/* Replays the same updates one at a time (the verification pass). */
void ra_local_replay(uint64_t *t, int log2, ra_gen_kind gen, uint64_t nupdates);

/* OpenMP threads the kernel will use. */
int ra_local_threads(void);

#endif
