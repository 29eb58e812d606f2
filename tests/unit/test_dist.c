/* test_dist.c - HPCC block distribution for many (N, P). */
#include "../test.h"
#include "ra_dist.h"

/* every (N, P): starts contiguous, the first N mod P processes one extra,
 * every index owned by the process whose block holds it */
static void t_block_split_many_n_p(void)
{
    const uint64_t Ns[] = {1, 2, 3, 7, 8, 16, 17, 100, 1024, 1025, 4096, 65536, 99991};
    const int Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 31, 64, 100, 1000};
    for (size_t a = 0; a < sizeof Ns / sizeof *Ns; a++)
        for (size_t b = 0; b < sizeof Ps / sizeof *Ps; b++) {
            uint64_t N = Ns[a];
            int P = Ps[b];
            ra_dist d;
            ra_dist_init(&d, N, P);
            uint64_t next = 0;
            int bad = 0;
            for (int p = 0; p < P; p++) {
                if (ra_dist_start(&d, p) != next)
                    bad++;
                uint64_t c = ra_dist_count(&d, p);
                /* first N mod P processes get one extra */
                if (c != N / (uint64_t)P + ((uint64_t)p < N % (uint64_t)P))
                    bad++;
                if (N >= (uint64_t)P)
                    for (uint64_t i = next; i < next + c; i++)
                        if (ra_dist_owner(&d, i) != p)
                            bad++;
                next += c;
            }
            if (next != N)
                bad++;
            if (bad)
                fprintf(stderr, "N=%llu P=%d: %d mismatches\n", (unsigned long long)N, P, bad);
            ASSERT_EQ_INT(bad, 0);
        }
}

/* Power-of-two split takes the shift path and agrees with division. */
static void t_owner_shift_path_and_division(void)
{
    ra_dist d;
    ra_dist_init(&d, 1ULL << 30, 8);
    ASSERT_EQ_INT(d.shift, 27);
    ASSERT_EQ_INT(ra_dist_owner(&d, (1ULL << 30) - 1), 7);
    ASSERT_EQ_INT(ra_dist_owner(&d, 3ULL << 27), 3);
    ra_dist_init(&d, (1ULL << 40) + 4, 3);
    ASSERT_EQ_INT(d.shift, -1);
    ASSERT_EQ_INT(ra_dist_owner(&d, ra_dist_start(&d, 2)), 2);
    ASSERT_EQ_INT(ra_dist_owner(&d, ra_dist_start(&d, 2) - 1), 1);
    ASSERT_EQ_U64(ra_dist_count(&d, 0), ((1ULL << 40) + 4) / 3 + 1);
}

static const test_case cases[] = {
    {"block_split_many_n_p", t_block_split_many_n_p},
    {"owner_shift_path_and_division", t_owner_shift_path_and_division},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_dist", cases);
}

