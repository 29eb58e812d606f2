/*
 * ra_gen.c - jump-ahead for the HPCC update streams, written from the algebra.
 *
 * LFSR: the stream is 1, x, x^2, ... in GF(2)[x]/(x^64 + x^2 + x + 1), so
 * element n is x^n, computed by binary exponentiation with a carry-less
 * shift-and-add multiply (64 steps per product, ~128 products per jump).
 * LCG: one step is the affine map f(v) = a*v + c; f^n is again affine and
 * (a1,c1) o (a2,c2) = (a1*a2, a1*c2 + c1), so f^n follows from squaring.
 */
#include "ra_gen.h"

uint64_t ra_lfsr_mul(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    /* Horner over the bits of b, most significant first: r = r*x + b_i*a. */
    for (int i = 63; i >= 0; i--) {
        r = ra_lfsr_next(r);
        if ((b >> i) & 1)
            r ^= a;
    }
    return r;
}

uint64_t ra_lfsr_jump(uint64_t n)
{
    uint64_t result = 1, base = 2; /* base = x */
    while (n) {
        if (n & 1)
            result = ra_lfsr_mul(result, base);
        base = ra_lfsr_mul(base, base);
        n >>= 1;
    }
    return result;
}

uint64_t ra_lcg_jump(uint64_t n)
{
    uint64_t acc_a = 1, acc_c = 0;               /* identity map */
    uint64_t sq_a = RA_LCG_MUL, sq_c = RA_LCG_ADD; /* f^(2^i) */
    while (n) {
        if (n & 1) {
            acc_c = sq_a * acc_c + sq_c;
            acc_a = sq_a * acc_a;
        }
        sq_c = sq_a * sq_c + sq_c;
        sq_a = sq_a * sq_a;
        n >>= 1;
    }
    return acc_a * 1 + acc_c; /* f^n applied to element 0, which is 1 */
}

uint64_t ra_gen_jump(ra_gen_kind g, uint64_t n)
{
    return g == RA_GEN_LFSR ? ra_lfsr_jump(n) : ra_lcg_jump(n);
}

const char *ra_gen_name(ra_gen_kind g)
{
    return g == RA_GEN_LFSR ? "lfsr" : "lcg";
}
