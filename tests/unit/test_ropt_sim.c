/*
 * test_ropt_sim.c - the optimized algorithm on the simulated transport:
 * every factorisation of every N <= 64 (with size-1 dimensions and mesh
 * flags), 16x16x16 and the 2^12 hypercube, under many scheduler seeds; the
 * final table must equal the sequential run, max_pending must stay within
 * 1024, and the run must terminate.  Also: a single shared receive bucket
 * deadlocks under the scheduler (paper 002 Figure 3a), per-dimension
 * buckets never do.
 */
#include "../test.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt_sim.h"

#include <stdlib.h>

static uint64_t seq_fp(int log2, ra_gen_kind g, uint64_t upd)
{
    uint64_t n = 1ULL << log2;
    uint64_t *t = malloc(n * 8);
    ra_table_init(t, n, 0);
    ra_local_replay(t, log2, g, upd);
    uint64_t fp = ra_table_fingerprint(t, n, 0);
    free(t);
    return fp;
}

static int bad_runs;

static void check(const torus_shape *s, int log2, ra_gen_kind g, uint64_t seed, int outstanding,
                  double eager, uint64_t want)
{
    ropt_sim_config c = {.shape = *s, .log2_table = log2, .gen = g,
                         .prm = {.budget = 1024, .lookahead = 16, .shared_recv = 0},
                         .tp = {.outstanding = outstanding, .eager_prob = eager, .eager_queue = 4,
                                .delay_prob = 0.3, .seed = seed}};
    ropt_sim_result r;
    int rc = ropt_sim_run(&c, &r);
    char name[128];
    torus_shape_format(s, name, sizeof name);
    if (rc || r.deadlock || r.fingerprint != want || r.stats.max_pending > 1024) {
        bad_runs++;
        fprintf(stderr, "shape %s seed %llu S=%d eager=%.1f: rc=%d deadlock=%d fp=%016llx want=%016llx max_pending=%llu\n",
                name, (unsigned long long)seed, outstanding, eager, rc, r.deadlock,
                (unsigned long long)r.fingerprint, (unsigned long long)want, (unsigned long long)r.stats.max_pending);
    }
}

/* Every ordered factorisation of n into factors >= 1 with at most maxd dims
 * (size-1 dimensions only where they do not repeat endlessly: at most one). */
static int nshapes;
static void factorisations(int n, int left, torus_shape *cur, int ones, int log2, ra_gen_kind g,
                           uint64_t want, int seeds)
{
    if (left == 1 && cur->ndims > 0) {
        torus_shape s = *cur;
        s.n = n;
        for (int i = 0; i < s.ndims; i++)
            s.mesh[i] = (int)((n + i + (unsigned)s.ndims) % 3 == 0); /* a spread of mesh flags */
        for (int seed = 1; seed <= seeds; seed++)
            check(&s, log2, g, (uint64_t)(seed * 7919 + n), 1 + seed % 3, seed % 2 ? 0.0 : 0.7, want);
        nshapes++;
        if (ones == 0 && cur->ndims < 5) {
            /* the same shape with a size-1 dimension inserted in front */
            torus_shape t = s;
            for (int i = t.ndims; i > 0; i--) {
                t.k[i] = t.k[i - 1];
                t.mesh[i] = t.mesh[i - 1];
            }
            t.k[0] = 1;
            t.mesh[0] = 0;
            t.ndims++;
            check(&t, log2, g, 99 + (uint64_t)n, 1, 0.0, want);
            nshapes++;
        }
        return;
    }
    if (cur->ndims >= 5)
        return;
    for (int f = 2; f <= left; f++)
        if (left % f == 0) {
            cur->k[cur->ndims++] = f;
            factorisations(n, left / f, cur, ones, log2, g, want, seeds);
            cur->ndims--;
        }
}

int main(void)
{
    /* All shapes with up to 64 ranks, both generators. */
    for (int g = 0; g < 2; g++) {
        uint64_t want = seq_fp(10, (ra_gen_kind)g, 4ULL << 10);
        for (int n = 1; n <= 64; n++) {
            torus_shape cur = {0};
            if (n == 1) {
                torus_shape one = {.ndims = 1, .k = {1}, .n = 1};
                check(&one, 10, (ra_gen_kind)g, 1, 1, 0.0, want);
                nshapes++;
                continue;
            }
            factorisations(n, n, &cur, 0, 10, (ra_gen_kind)g, want, g == 0 ? 4 : 2);
        }
    }
    printf("simulated %d shapes\n", nshapes);
    ASSERT_EQ_INT(bad_runs, 0);

    /* Thousands of virtual ranks. */
    torus_shape big;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("16x16x16", 4096, &big, err, sizeof err), 0);
    uint64_t want16 = seq_fp(16, RA_GEN_LFSR, 4ULL << 16);
    for (uint64_t seed = 1; seed <= 2; seed++)
        check(&big, 16, RA_GEN_LFSR, seed, 2, 0.5, want16);
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 4096, &big, err, sizeof err), 0);
    ASSERT_EQ_INT(big.ndims, 12);
    check(&big, 16, RA_GEN_LFSR, 3, 1, 0.0, want16);
    ASSERT_EQ_INT(bad_runs, 0);

    /* Figure 3a: one shared receive bucket can deadlock; per-dimension
     * receive buckets on the same shapes and seeds never do. */
    int shared_dead = 0, perdim_dead = 0, runs = 0;
    const char *shapes[] = {"4x4", "8x8", "4x4x4", "3x5"};
    int ns[] = {16, 64, 64, 15};
    for (int i = 0; i < 4; i++) {
        torus_shape s;
        torus_shape_parse(shapes[i], ns[i], &s, err, sizeof err);
        uint64_t want = seq_fp(12, RA_GEN_LFSR, 4ULL << 12);
        for (uint64_t seed = 1; seed <= 6; seed++) {
            ropt_sim_config c = {.shape = s, .log2_table = 12, .gen = RA_GEN_LFSR,
                                 .prm = {.budget = 1024, .lookahead = 0, .shared_recv = 1},
                                 .tp = {.outstanding = 1, .eager_prob = 0.0, .eager_queue = 0,
                                        .delay_prob = 0.2, .seed = seed}};
            ropt_sim_result r;
            ropt_sim_run(&c, &r);
            shared_dead += r.deadlock;
            c.prm.shared_recv = 0;
            ropt_sim_run(&c, &r);
            perdim_dead += r.deadlock;
            if (!r.deadlock && r.fingerprint != want)
                perdim_dead += 1000;
            runs++;
        }
    }
    printf("shared receive bucket: %d of %d runs deadlocked; per-dimension: %d\n", shared_dead, runs, perdim_dead);
    ASSERT_TRUE(shared_dead > 0);
    ASSERT_EQ_INT(perdim_dead, 0);
    TEST_MAIN_END("test_ropt_sim");
}
