/*
 * ra_ceiling.c - the ceiling kernel (--suite ceiling).
 *
 * Algorithm: HPCC's stream applied to a rank's own table with the update
 * stream's misses overlapped as far as the 1024-update look-ahead allows:
 *   batch: generate `depth` updates, prefetching each word for writing,
 *          then XOR them (each batch ends with one memory latency of
 *          stall);
 *   roll:  a pipeline of `depth` updates: prefetch the newest, XOR the
 *          oldest (no stall between batches).
 * The harness runs both at several depths on every rank at once and
 * reports the best: the rate this node's memory gives RandomAccess when no
 * update leaves its rank, the bound ra_opt is measured against.  HPCC's
 * Star kernel (ra_local.c: 128 interleaved lanes, no prefetch) measures
 * the same memory without the prefetches and comes out lower where the
 * memory is latency-bound.
 * Cost: n * t_miss / overlap, overlap = the misses the core keeps in
 * flight (its miss buffers, or depth when that is smaller).
 */
#include "ra_ceiling.h"
#include "torus_prefetch.h"

const int ra_ceil_depths[RA_CEIL_NDEPTHS] = {64, 128, 256, 512, 1024};

const char *ra_ceil_kind_name(ra_ceil_kind k)
{
    return k == RA_CEIL_BATCH ? "batch" : "roll";
}

/* gen is a constant where this is inlined: one loop per generator. */
static inline __attribute__((always_inline)) void run(uint64_t *t, int log2, ra_gen_kind gen, uint64_t n,
                                                       ra_ceil_kind kind, int depth)
{
    uint64_t v[1024];
    uint64_t ran = 1, done = 0;
    if (kind == RA_CEIL_BATCH) {
        while (done < n) {
            int b = n - done < (uint64_t)depth ? (int)(n - done) : depth;
            for (int i = 0; i < b; i++) {
                ran = ra_gen_next(gen, ran);
                v[i] = ran;
                torus_prefetch_write(&t[ra_gen_index(gen, ran, log2)]);
            }
            for (int i = 0; i < b; i++)
                t[ra_gen_index(gen, v[i], log2)] ^= v[i];
            done += (uint64_t)b;
        }
        return;
    }
    int fill = n < (uint64_t)depth ? (int)n : depth;
    for (int i = 0; i < fill; i++) {
        ran = ra_gen_next(gen, ran);
        v[i] = ran;
        torus_prefetch_write(&t[ra_gen_index(gen, ran, log2)]);
    }
    int h = 0;
    for (done = (uint64_t)fill; done < n; done++) {
        uint64_t x = v[h];
        t[ra_gen_index(gen, x, log2)] ^= x;
        ran = ra_gen_next(gen, ran);
        v[h] = ran;
        torus_prefetch_write(&t[ra_gen_index(gen, ran, log2)]);
        h = h + 1 == fill ? 0 : h + 1;
    }
    for (int i = 0; i < fill; i++) {
        uint64_t x = v[h];
        t[ra_gen_index(gen, x, log2)] ^= x;
        h = h + 1 == fill ? 0 : h + 1;
    }
}

void ra_ceiling_run(uint64_t *t, int log2, ra_gen_kind gen, uint64_t n, ra_ceil_kind kind, int depth)
{
    torus_prefetch_init();
    if (depth < 1)
        depth = 1;
    if (depth > 1024)
        depth = 1024;
    if (gen == RA_GEN_LFSR)
        run(t, log2, RA_GEN_LFSR, n, kind, depth);
    else
        run(t, log2, RA_GEN_LCG, n, kind, depth);
}
