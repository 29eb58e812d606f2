/*
 * ra_gen.h - the two HPCC RandomAccess update streams and their jump-ahead.
 *
 * LFSR ("GUPS"): element n is x^n modulo x^64 + x^2 + x + 1 over GF(2),
 * element 0 is 1; stepping multiplies by x.  LCG: element n+1 is
 * 6364136223846793005 * e_n + 1 (mod 2^64), element 0 is 1.  Both streams are
 * consumed "step, then use": the first update of a slice that starts at
 * element s uses element s+1.
 */
#ifndef RA_GEN_H
#define RA_GEN_H

#include <stdint.h>

#define RA_LFSR_POLY 0x7ULL
/* Multiplicative order of x modulo the LFSR polynomial (HPCC's PERIOD). */
#define RA_LFSR_PERIOD 1317624576693539401ULL
#define RA_LCG_MUL 6364136223846793005ULL
#define RA_LCG_ADD 1ULL

typedef enum { RA_GEN_LFSR = 0, RA_GEN_LCG = 1 } ra_gen_kind;

/* One LFSR step, branch-free: shift left, fold x^64 back as x^2 + x + 1. */
static inline uint64_t ra_lfsr_next(uint64_t r)
{
    return (r << 1) ^ ((uint64_t)((int64_t)r >> 63) & RA_LFSR_POLY);
}

static inline uint64_t ra_lcg_next(uint64_t r)
{
    return RA_LCG_MUL * r + RA_LCG_ADD;
}

static inline uint64_t ra_gen_next(ra_gen_kind g, uint64_t r)
{
    return g == RA_GEN_LFSR ? ra_lfsr_next(r) : ra_lcg_next(r);
}

/* Global table index of an update value: low bits for the LFSR, top bits for
 * the LCG (the LCG's low bits are poor).  log2_table is 1..62. */
static inline uint64_t ra_gen_index(ra_gen_kind g, uint64_t r, int log2_table)
{
    return g == RA_GEN_LFSR ? (r & ((1ULL << log2_table) - 1)) : (r >> (64 - log2_table));
}

/* Product of a and b in GF(2)[x] modulo x^64 + x^2 + x + 1. */
uint64_t ra_lfsr_mul(uint64_t a, uint64_t b);

/* Element n of each stream in O(log n): square-and-multiply in GF(2)[x] for
 * the LFSR, squaring of the affine map x -> a*x + c for the LCG. */
uint64_t ra_lfsr_jump(uint64_t n);
uint64_t ra_lcg_jump(uint64_t n);
uint64_t ra_gen_jump(ra_gen_kind g, uint64_t n);

const char *ra_gen_name(ra_gen_kind g);

#endif
