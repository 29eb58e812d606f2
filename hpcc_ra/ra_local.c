/*
 * ra_local.c - Star/Single kernel.
 *
 * Algorithm: HPCC sequential RandomAccess with look-ahead.  The updates
 * 1..n are split into 128 contiguous lanes, each started by jump-ahead; the
 * kernel steps all lanes once per round, so the 128 table accesses of a round
 * are independent and the memory system overlaps their misses.
 * Cost: n * (t_gen + t_miss / overlap); bound by memory latency and MLP.
 */
#include "ra_local.h"
#include "ra_dist.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int ra_local_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Runs lanes [lo, hi) of the stream split; atomic selects the XOR kind. */
static void run_lanes(uint64_t *t, int log2, ra_gen_kind gen, const ra_dist *lanes,
                      int lo, int hi, int atomic)
{
    uint64_t ran[RA_LOCAL_LANES];
    int nl = hi - lo;
    if (nl <= 0)
        return;
    for (int j = 0; j < nl; j++)
        ran[j] = ra_gen_jump(gen, ra_dist_start(lanes, lo + j));
    uint64_t rounds = lanes->base;
    uint64_t mask = (1ULL << log2) - 1;
    int sh = 64 - log2;
    /* Separate loops per generator and per XOR kind keep the inner loop tight. */
    if (gen == RA_GEN_LFSR && !atomic) {
        for (uint64_t r = 0; r < rounds; r++)
            for (int j = 0; j < nl; j++) {
                uint64_t v = ra_lfsr_next(ran[j]);
                ran[j] = v;
                t[v & mask] ^= v;
            }
    } else if (gen == RA_GEN_LCG && !atomic) {
        for (uint64_t r = 0; r < rounds; r++)
            for (int j = 0; j < nl; j++) {
                uint64_t v = ra_lcg_next(ran[j]);
                ran[j] = v;
                t[v >> sh] ^= v;
            }
    } else {
        for (uint64_t r = 0; r < rounds; r++)
            for (int j = 0; j < nl; j++) {
                uint64_t v = ra_gen_next(gen, ran[j]);
                ran[j] = v;
                __atomic_fetch_xor(&t[ra_gen_index(gen, v, log2)], v, __ATOMIC_RELAXED);
            }
    }
    /* Lanes below lanes->rem carry one more update. */
    for (int j = 0; j < nl; j++)
        if ((uint64_t)(lo + j) < lanes->rem) {
            uint64_t v = ra_gen_next(gen, ran[j]);
            if (atomic)
                __atomic_fetch_xor(&t[ra_gen_index(gen, v, log2)], v, __ATOMIC_RELAXED);
            else
                t[ra_gen_index(gen, v, log2)] ^= v;
        }
}

void ra_local_run(uint64_t *t, int log2, ra_gen_kind gen, uint64_t nupdates)
{
    int threads = ra_local_threads();
    /* Lanes = 128 per thread, so each thread keeps HPCC's look-ahead. */
    int nlanes = RA_LOCAL_LANES * threads;
    if (nlanes > RA_LOCAL_LANES * 8)
        nlanes = RA_LOCAL_LANES * 8;
    ra_dist lanes;
    ra_dist_init(&lanes, nupdates, nlanes);
    if (threads <= 1) {
        for (int lo = 0; lo < nlanes; lo += RA_LOCAL_LANES)
            run_lanes(t, log2, gen, &lanes, lo, lo + RA_LOCAL_LANES, 0);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int lo = 0; lo < nlanes; lo += RA_LOCAL_LANES)
        run_lanes(t, log2, gen, &lanes, lo, lo + RA_LOCAL_LANES, 1);
}

void ra_local_replay(uint64_t *t, int log2, ra_gen_kind gen, uint64_t nupdates)
{
    uint64_t ran = 1;
    for (uint64_t i = 0; i < nupdates; i++) {
        ran = ra_gen_next(gen, ran);
        t[ra_gen_index(gen, ran, log2)] ^= ran;
    }
}
