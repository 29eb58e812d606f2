/* test_table.c - fingerprint against hand-computed values; init, errors, local kernel. */
#include "../test.h"
#include "ra_local.h"
#include "ra_table.h"
#include "kit_mem.h"

#include <stdlib.h>

/* Values computed independently (Python, from the definition). */
static void t_fingerprint_hand_computed(void)
{
    uint64_t t4[4] = {0, 1, 2, 3};
    ASSERT_EQ_U64(ra_table_fingerprint(t4, 4, 0), 0x9e09f4c4c4b009a6ULL);
    /* Split across "ranks": shares add up to the whole. */
    ASSERT_EQ_U64(ra_table_fingerprint(t4, 2, 0) + ra_table_fingerprint(t4 + 2, 2, 2), 0x9e09f4c4c4b009a6ULL);
}

/* 32 updates of an 8-word table by each generator: known words and fingerprints */
static void t_replay_known_tables(void)
{
    uint64_t t8[8];
    ra_table_init(t8, 8, 0);
    ra_local_replay(t8, 3, RA_GEN_LFSR, 32);
    ASSERT_EQ_U64(t8[0], 0x1fffffff8ULL);
    ASSERT_EQ_U64(ra_table_fingerprint(t8, 8, 0), 0x913757dc347baaf5ULL);
    ASSERT_EQ_U64(ra_table_errors(t8, 8, 0), 3); /* entries 0, 2, 4 changed */
    ra_table_init(t8, 8, 0);
    ra_local_replay(t8, 3, RA_GEN_LCG, 32);
    ASSERT_EQ_U64(ra_table_fingerprint(t8, 8, 0), 0x9ab3aec0c6587642ULL);
}

/* Lane-interleaved kernel == one-at-a-time replay, and replay undoes it. */
static void t_lane_kernel_equals_replay(void)
{
    for (int g = 0; g < 2; g++)
        for (int log2 = 4; log2 <= 14; log2 += 5) {
            uint64_t n = 1ULL << log2, nupd = 4 * n + 77;
            uint64_t *a = malloc(n * 8), *b = malloc(n * 8);
            ra_table_init(a, n, 0);
            ra_table_init(b, n, 0);
            ra_local_run(a, log2, (ra_gen_kind)g, nupd);
            ra_local_replay(b, log2, (ra_gen_kind)g, nupd);
            ASSERT_EQ_U64(ra_table_fingerprint(a, n, 0), ra_table_fingerprint(b, n, 0));
            ra_local_replay(a, log2, (ra_gen_kind)g, nupd);
            ASSERT_EQ_U64(ra_table_errors(a, n, 0), 0);
            free(a);
            free(b);
        }
}

/* the table allocation: 2 MiB aligned, initialised, counted */
static void t_alloc_aligned_and_counted(void)
{
    int huge;
    uint64_t *big = ra_table_alloc(1 << 20, &huge);
    ASSERT_TRUE(big != NULL);
    ASSERT_TRUE(((uintptr_t)big & ((2u << 20) - 1)) == 0);
    ra_table_init(big, 1 << 20, 5);
    ASSERT_EQ_U64(big[(1 << 20) - 1], 5 + (1 << 20) - 1);
    ra_table_free(big, 1 << 20);
    ASSERT_TRUE(kit_mem_total() > 0);
}

static const test_case cases[] = {
    {"fingerprint_hand_computed", t_fingerprint_hand_computed},
    {"replay_known_tables", t_replay_known_tables},
    {"lane_kernel_equals_replay", t_lane_kernel_equals_replay},
    {"alloc_aligned_and_counted", t_alloc_aligned_and_counted},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_table", cases);
}

