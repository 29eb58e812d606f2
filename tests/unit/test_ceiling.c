/* test_ceiling.c - the ceiling kernel (ra_ceiling.c) is exact: every kind
 * at every depth, both generators, update counts below, at and beyond the
 * depth, leaves the table the one-at-a-time replay leaves, and the replay
 * then undoes it to T[i] = i. */
#include "../test.h"
#include "ra_ceiling.h"
#include "ra_local.h"
#include "ra_table.h"

#include <stdlib.h>

/* every kind at every depth, both generators, counts below, at and beyond
 * the depth: the kernel's table is the replay's, and the replay undoes it */
static void t_kernel_equals_replay(void)
{
    static const int depths[] = {1, 2, 7, 64, 128, 256, 512, 1024};
    int checked = 0;
    for (int g = 0; g < 2; g++)
        for (int log2 = 3; log2 <= 13; log2 += 5) {
            uint64_t n = 1ULL << log2;
            uint64_t counts[] = {0, 1, 5, 1000, 4 * n, 4 * n + 77};
            uint64_t *want = malloc(n * 8), *got = malloc(n * 8);
            ASSERT_TRUE(want && got);
            for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
                ra_table_init(want, n, 0);
                ra_local_replay(want, log2, (ra_gen_kind)g, counts[c]);
                for (int k = 0; k < RA_CEIL_NKINDS; k++)
                    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
                        ra_table_init(got, n, 0);
                        ra_ceiling_run(got, log2, (ra_gen_kind)g, counts[c], (ra_ceil_kind)k, depths[d]);
                        ASSERT_EQ_U64(ra_table_fingerprint(got, n, 0), ra_table_fingerprint(want, n, 0));
                        ra_local_replay(got, log2, (ra_gen_kind)g, counts[c]);
                        ASSERT_EQ_U64(ra_table_errors(got, n, 0), 0);
                        checked++;
                    }
            }
            free(want);
            free(got);
        }
    printf("ceiling kernel: %d (generator, table, count, kind, depth) runs equal the replay\n", checked);
}

/* the depths the harness tries stay within HPCC's look-ahead */
static void t_depths_within_hpcc_lookahead(void)
{
    for (int i = 0; i < RA_CEIL_NDEPTHS; i++)
        ASSERT_TRUE(ra_ceil_depths[i] >= 1 && ra_ceil_depths[i] <= 1024);
}

static const test_case cases[] = {
    {"kernel_equals_replay", t_kernel_equals_replay},
    {"depths_within_hpcc_lookahead", t_depths_within_hpcc_lookahead},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_ceiling", cases);
}

