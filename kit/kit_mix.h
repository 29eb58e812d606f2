#ifndef KIT_MIX_H
#define KIT_MIX_H
/*
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014), written once for the whole kit: the table
 * fingerprint, the closed forms' memo hash, multisend's plan hash, the
 * random-permutation alltoallv's shared permutation and collbench's test
 * data all draw from it, and their results (fingerprints, permutations,
 * validated bytes) depend on these exact constants.
 */
#include <stdint.h>

/* SplitMix64's finaliser: a strong 64-bit mix of z, without the step. */
static inline uint64_t kit_mix64_fin(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* SplitMix64's golden-ratio increment, the generator's step. */
#define KIT_MIX64_GAMMA 0x9E3779B97F4A7C15ULL

/* One SplitMix64 output for state x: the step, then the finaliser.  A
 * stateless hash of x where the caller supplies its own counter. */
static inline uint64_t kit_mix64(uint64_t x)
{
    return kit_mix64_fin(x + KIT_MIX64_GAMMA);
}

/* The generator: advances *state by one step and returns its output. */
static inline uint64_t kit_splitmix64_next(uint64_t *state)
{
    *state += KIT_MIX64_GAMMA;
    return kit_mix64_fin(*state);
}

#endif
