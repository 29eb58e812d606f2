/* test_gen.c - generator stepping agrees with jump-ahead; known elements. */
#include "../test.h"
#include "ra_gen.h"

static uint64_t step_n(ra_gen_kind g, uint64_t r, uint64_t n)
{
    while (n--)
        r = ra_gen_next(g, r);
    return r;
}

/* Hand-derived elements: x^63 is the top bit, x^64 = x^2 + x + 1 = 7,
     * x^65 = 14; LCG element 1 = a + 1. */
static void t_known_elements(void)
{
    ASSERT_EQ_U64(ra_lfsr_jump(0), 1);
    ASSERT_EQ_U64(ra_lfsr_jump(1), 2);
    ASSERT_EQ_U64(ra_lfsr_jump(63), 1ULL << 63);
    ASSERT_EQ_U64(ra_lfsr_jump(64), 7);
    ASSERT_EQ_U64(ra_lfsr_jump(65), 14);
    ASSERT_EQ_U64(ra_lfsr_jump(100), 0x7000000000ULL); /* x^100 = x^36 (x^2+x+1) */
    ASSERT_EQ_U64(ra_lcg_jump(0), 1);
    ASSERT_EQ_U64(ra_lcg_jump(1), RA_LCG_MUL + 1);
    ASSERT_EQ_U64(ra_lcg_jump(100), 0x482fa51b36d373bdULL); /* computed independently */

}

/* Every n up to 200000 by stepping. */
static void t_jump_ahead_matches_stepping(void)
{
    for (int g = 0; g < 2; g++) {
        uint64_t r = 1;
        int bad = 0;
        for (uint64_t n = 0; n <= 200000; n++) {
            if ((n < 2000 || n % 997 == 0) && ra_gen_jump((ra_gen_kind)g, n) != r)
                bad++;
            r = ra_gen_next((ra_gen_kind)g, r);
        }
        ASSERT_EQ_INT(bad, 0);
    }

}

/* Far elements: jump(n + k) equals k steps from jump(n). */
static void t_far_jumps_match_stepping(void)
{
    const uint64_t far[] = {1ULL << 40, (1ULL << 40) + 12345, 1ULL << 62, RA_LFSR_PERIOD - 3,
                            RA_LFSR_PERIOD, RA_LFSR_PERIOD + 17, 3 * RA_LFSR_PERIOD + 5,
                            UINT64_MAX - 600};
    for (size_t i = 0; i < sizeof far / sizeof *far; i++)
        for (int g = 0; g < 2; g++) {
            uint64_t base = ra_gen_jump((ra_gen_kind)g, far[i]);
            ASSERT_EQ_U64(step_n((ra_gen_kind)g, base, 1), ra_gen_jump((ra_gen_kind)g, far[i] + 1));
            ASSERT_EQ_U64(step_n((ra_gen_kind)g, base, 64), ra_gen_jump((ra_gen_kind)g, far[i] + 64));
            ASSERT_EQ_U64(step_n((ra_gen_kind)g, base, 500), ra_gen_jump((ra_gen_kind)g, far[i] + 500));
        }

}

/* The LFSR period: x^PERIOD = 1, so the stream repeats beyond it. */
static void t_lfsr_period(void)
{
    ASSERT_EQ_U64(ra_lfsr_jump(RA_LFSR_PERIOD), 1);
    ASSERT_EQ_U64(ra_lfsr_jump(RA_LFSR_PERIOD + 64), 7);
    ASSERT_EQ_U64(ra_lfsr_jump(2 * RA_LFSR_PERIOD + 12345), ra_lfsr_jump(12345));
    ASSERT_TRUE(ra_lfsr_jump(RA_LFSR_PERIOD / 3) != 1); /* not a smaller period */

}

/* Exponent law: x^(a+b) = x^a * x^b. */
static void t_lfsr_exponent_law(void)
{
    const uint64_t a[] = {0, 1, 63, 64, 999, 1ULL << 40, 1ULL << 61};
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        for (size_t j = 0; j < sizeof a / sizeof *a; j++)
            ASSERT_EQ_U64(ra_lfsr_mul(ra_lfsr_jump(a[i]), ra_lfsr_jump(a[j])), ra_lfsr_jump(a[i] + a[j]));

}

/* Index: low bits for LFSR, top bits for LCG. */
static void t_index_bits(void)
{
    ASSERT_EQ_U64(ra_gen_index(RA_GEN_LFSR, 0xABCDEF0123456789ULL, 8), 0x89);
    ASSERT_EQ_U64(ra_gen_index(RA_GEN_LCG, 0xABCDEF0123456789ULL, 8), 0xAB);
    ASSERT_EQ_U64(ra_gen_index(RA_GEN_LCG, 0xABCDEF0123456789ULL, 1), 1);
}

static const test_case cases[] = {
    {"known_elements", t_known_elements},
    {"jump_ahead_matches_stepping", t_jump_ahead_matches_stepping},
    {"far_jumps_match_stepping", t_far_jumps_match_stepping},
    {"lfsr_period_repeats", t_lfsr_period},
    {"lfsr_exponent_law", t_lfsr_exponent_law},
    {"index_low_bits_lfsr_top_bits_lcg", t_index_bits},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_gen", cases);
}
