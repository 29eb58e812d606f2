/*
 * test_ropt_sim.c - the optimized algorithm on the simulated transport:
 * every factorisation of every N <= 64 (with size-1 dimensions and mesh
 * flags), 16x16x16 and the 2^12 hypercube, under many scheduler seeds; the
 * final table must equal the sequential run, max_pending must stay within
 * 1024, and the run must terminate.  max_pending counts every update a
 * rank holds (generation batch, apply pipeline, send and receive buckets,
 * sends not yet completed): the bound holds at every option value the
 * budget admits,
 * and the rest are refused.  Also: a single shared receive bucket
 * deadlocks under the scheduler (paper 002 Figure 3a), per-dimension
 * buckets never do.
 */
#include "../test.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt_sim.h"

#include <stdlib.h>
#include <string.h>

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
static int g_batch = 16; /* generation batch of the runs below */
static int g_rings;      /* 1: the shared-memory ring protocol instead of the simulated MPI transport */

/* One run; returns its max_pending (0 after a failure, counted). */
static uint64_t check_la(const torus_shape *s, int log2, ra_gen_kind g, uint64_t seed, int outstanding,
                         int lookahead, double eager, uint64_t want)
{
    ropt_sim_config c = {.shape = *s, .log2_table = log2, .gen = g,
                         .prm = {.budget = 1024, .lookahead = lookahead, .batch = g_batch, .shared_recv = 0},
                         .tp = {.outstanding = outstanding, .eager_prob = eager, .eager_queue = 4,
                                .delay_prob = 0.3, .seed = seed},
                         .rings = g_rings};
    ropt_sim_result r;
    int rc = ropt_sim_run(&c, &r);
    char name[128];
    torus_shape_format(s, name, sizeof name);
    if (rc || r.deadlock || r.fingerprint != want || r.stats.max_pending > 1024) {
        bad_runs++;
        fprintf(stderr, "%sshape %s seed %llu S=%d L=%d G=%d eager=%.1f: rc=%d deadlock=%d fp=%016llx want=%016llx max_pending=%llu\n",
                g_rings ? "rings: " : "", name, (unsigned long long)seed, outstanding, lookahead, g_batch, eager, rc,
                r.deadlock,
                (unsigned long long)r.fingerprint, (unsigned long long)want, (unsigned long long)r.stats.max_pending);
        return 0;
    }
    return r.stats.max_pending;
}

static void check(const torus_shape *s, int log2, ra_gen_kind g, uint64_t seed, int outstanding,
                  double eager, uint64_t want)
{
    check_la(s, log2, g, seed, outstanding, 16, eager, want);
}

/* Every send-slot count and look-ahead on a few shapes: refused exactly
 * when the budget cannot hold the buffers (ropt_capacity < 1), else exact
 * within 1024.  On 2 ranks with rendezvous sends the unfinished sends are
 * what lifts max_pending above look-ahead + buckets: proof they count. */
static void option_grid(void)
{
    char err[256];
    const char *shapes[] = {"2", "8", "4x2", "2x2x2", "3x5"};
    int ns[] = {2, 8, 8, 8, 15};
    const int slots[] = {1, 2, 3, 4, 8, 16, 64};
    const int las[] = {0, 64, 256, 512};
    const int batches[] = {1, 64, 256};
    uint64_t want = seq_fp(10, RA_GEN_LFSR, 4ULL << 10);
    int runs = 0, over_buckets = 0, refused = 0;
    for (int i = 0; i < 5; i++) {
        torus_shape s;
        ASSERT_EQ_INT(torus_shape_parse(shapes[i], ns[i], &s, err, sizeof err), 0);
        for (int a = 0; a < 7; a++)
            for (int b = 0; b < 4; b++) {
                g_batch = batches[(a + b + i) % 3];
                ropt_params p = {.budget = 1024, .lookahead = las[b], .batch = g_batch, .outstanding = slots[a]};
                int cap = ropt_capacity(&s, &p);
                ASSERT_TRUE(cap >= 1 ? las[b] + 2 * g_batch + (uint64_t)ropt_buffers(&s, &p) * (uint64_t)cap <= 1024
                                     : 1);
                if (cap < 1) {
                    /* more than the budget holds: refused, not run */
                    ropt_sim_config c = {.shape = s, .log2_table = 10, .gen = RA_GEN_LFSR, .prm = p,
                                         .tp = {.outstanding = slots[a], .seed = 1}};
                    ropt_sim_result r;
                    ASSERT_EQ_INT(ropt_sim_run(&c, &r), -2);
                    refused++;
                    continue;
                }
                uint64_t mp = check_la(&s, 10, RA_GEN_LFSR, (uint64_t)(a * 4 + b + 1), slots[a], las[b], 0.0, want);
                runs++;
                /* 2 ranks: one send bucket and one receive bucket of cap */
                if (i == 0 && mp > (uint64_t)las[b] + 2 * (uint64_t)g_batch + 2 * (uint64_t)cap)
                    over_buckets++;
            }
    }
    g_batch = 16;
    printf("option grid: %d runs, %d refused by the budget, %d on 2 ranks held more than pipeline + lists + buckets "
           "(sends counted)\n",
           runs, refused, over_buckets);
    ASSERT_TRUE(refused > 0);
    ASSERT_TRUE(over_buckets > 0);
    /* options the budget cannot hold are refused, not run */
    torus_shape flat;
    ASSERT_EQ_INT(torus_shape_parse("flat", 1000, &flat, err, sizeof err), 0);
    ropt_params p = {.budget = 1024, .lookahead = 64, .batch = 64, .outstanding = 1};
    ASSERT_EQ_INT(ropt_buffers(&flat, &p), 1001);
    ASSERT_EQ_INT(ropt_capacity(&flat, &p), 0);
    ropt_sim_config c = {.shape = flat, .log2_table = 12, .gen = RA_GEN_LFSR, .prm = p,
                         .tp = {.outstanding = 1, .seed = 1}};
    ropt_sim_result r;
    ASSERT_EQ_INT(ropt_sim_run(&c, &r), -2);
    torus_shape two;
    ASSERT_EQ_INT(torus_shape_parse("2", 2, &two, err, sizeof err), 0);
    p.lookahead = 0;
    p.batch = 1;
    p.outstanding = 64;
    ASSERT_EQ_INT(ropt_capacity(&two, &p), 1023 / 66);
    p.outstanding = 0;
    ASSERT_EQ_INT(ropt_capacity(&two, &p), 0);
    p.outstanding = 1;
    p.batch = 0;
    ASSERT_EQ_INT(ropt_capacity(&two, &p), 0);
    p.batch = 512;
    p.lookahead = 513;
    ASSERT_EQ_INT(ropt_capacity(&two, &p), 0);
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

/* ra_opt's auto: the grammar's cost model with the honest fill; pinned at
 * one and four send slots (look-ahead 64), and never a shape the budget
 * cannot hold. */
static void auto_shapes(void)
{
    static const struct {
        int n, slots;
        const char *want;
    } pin[] = {{2, 1, "2"},        {8, 1, "8"},          {32, 1, "32"},          {64, 1, "8x8"},
               {256, 1, "16x16"},  {512, 1, "8x8x8"},    {4096, 1, "8x8x8x8"},   {65536, 1, "16x8x8x8x8"},
               {512, 4, "32x16"},  {4096, 4, "16x16x16"}, {65536, 4, "16x16x16x16"}};
    for (size_t i = 0; i < sizeof pin / sizeof *pin; i++) {
        /* the pins were made with 64 updates of look-ahead in all: a
         * pipeline of 62 and a batch of 1, counted twice */
        ropt_params p = {.budget = 1024, .lookahead = 62, .batch = 1, .outstanding = pin[i].slots};
        torus_shape s;
        char name[64];
        ropt_auto_shape(pin[i].n, &p, 0, &s);
        torus_shape_format(&s, name, sizeof name);
        if (strcmp(name, pin[i].want))
            fprintf(stderr, "auto over %d ranks, %d slots: %s, want %s\n", pin[i].n, pin[i].slots, name, pin[i].want);
        ASSERT_TRUE(!strcmp(name, pin[i].want));
        ASSERT_EQ_INT(s.n, pin[i].n);
    }
    for (int n = 2; n <= 70000; n = n * 3 / 2 + 1)
        for (int slots = 1; slots <= 64; slots *= 4) {
            ropt_params p = {.budget = 1024, .lookahead = 32, .batch = 32, .outstanding = slots};
            torus_shape s;
            ropt_auto_shape(n, &p, 0, &s);
            ASSERT_EQ_INT(s.n, n);
            if (n < 500)
                ASSERT_TRUE(ropt_capacity(&s, &p) >= 1);
        }
    /* with a node-local dimension of 2 ranks per node its buffers count too */
    ropt_params p = {.budget = 1024, .lookahead = 32, .batch = 32, .outstanding = 1};
    torus_shape s;
    ropt_auto_shape(4, &p, 2, &s);
    ASSERT_EQ_INT(s.n, 4);
}

/* Every case starts from the same state: no failed runs, the default
 * generation batch, the simulated MPI transport, no shapes counted. */
static void sim_reset(void)
{
    bad_runs = 0;
    g_batch = 16;
    g_rings = 0;
    nshapes = 0;
}

static void t_auto_shapes(void)
{
    sim_reset();
    auto_shapes();
}

/* All shapes with up to 64 ranks, both generators. */
static void t_every_shape_to_64_ranks(void)
{
    sim_reset();
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
}

/* The shared-memory ring protocol (torus_shm.h), the same code the node
 * hop runs, under the random scheduler with waiting packets hidden and
 * free send slots refused at random: every shape up to 32 ranks, both
 * generators. */
static void t_rings_every_shape_to_32_ranks(void)
{
    sim_reset();
    g_rings = 1;
    for (int g = 0; g < 2; g++) {
        uint64_t want = seq_fp(10, (ra_gen_kind)g, 4ULL << 10);
        for (int n = 2; n <= 32; n++) {
            torus_shape cur = {0};
            factorisations(n, n, &cur, 0, 10, (ra_gen_kind)g, want, 2);
        }
    }
    printf("rings: simulated %d shapes\n", nshapes);
    ASSERT_EQ_INT(bad_runs, 0);
    g_rings = 0;
}

static void t_option_grid(void)
{
    sim_reset();
    option_grid();
    ASSERT_EQ_INT(bad_runs, 0);
}

/* Thousands of virtual ranks. */
static void t_thousands_of_virtual_ranks(void)
{
    sim_reset();
    torus_shape big;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("16x16x16", 4096, &big, err, sizeof err), 0);
    uint64_t want16 = seq_fp(16, RA_GEN_LFSR, 4ULL << 16);
    for (uint64_t seed = 1; seed <= 2; seed++)
        check(&big, 16, RA_GEN_LFSR, seed, 2, 0.5, want16);
    /* ra_opt's defaults, rendezvous sends: every unfinished send counted */
    uint64_t mp = check_la(&big, 16, RA_GEN_LFSR, 5, ROPT_DEFAULT_OUTSTANDING, ROPT_DEFAULT_LOOKAHEAD, 0.0, want16);
    printf("16x16x16, S=%d, L=%d, rendezvous: max_pending %llu\n", ROPT_DEFAULT_OUTSTANDING, ROPT_DEFAULT_LOOKAHEAD,
           (unsigned long long)mp);
    /* the ring protocol at 4096 virtual ranks, ra_opt's defaults */
    g_rings = 1;
    g_batch = ROPT_DEFAULT_BATCH;
    for (uint64_t seed = 11; seed <= 12; seed++) {
        mp = check_la(&big, 16, RA_GEN_LFSR, seed, ROPT_DEFAULT_OUTSTANDING,
                      ROPT_DEFAULT_LOOKAHEAD, seed == 11 ? 0.0 : 0.5, want16);
        printf("rings 16x16x16, seed %llu: max_pending %llu\n", (unsigned long long)seed, (unsigned long long)mp);
        ASSERT_TRUE(mp > 0 && mp <= 1024);
    }
    g_rings = 0;
    g_batch = 16;
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 4096, &big, err, sizeof err), 0);
    ASSERT_EQ_INT(big.ndims, 12);
    check(&big, 16, RA_GEN_LFSR, 3, 1, 0.0, want16);
    check_la(&big, 16, RA_GEN_LFSR, 4, 4, 64, 0.0, want16);
    g_rings = 1;
    check_la(&big, 16, RA_GEN_LFSR, 5, 2, 64, 0.3, want16);
    g_rings = 0;
    ASSERT_EQ_INT(bad_runs, 0);
}

/* Figure 3a: one shared receive bucket can deadlock; per-dimension
 * receive buckets on the same shapes and seeds never do. */
static void t_shared_receive_bucket_deadlocks(void)
{
    sim_reset();
    char err[256];
    int shared_dead = 0, perdim_dead = 0, runs = 0;
    const char *shapes[] = {"4x4", "8x8", "4x4x4", "3x5"};
    int ns[] = {16, 64, 64, 15};
    for (int i = 0; i < 4; i++) {
        torus_shape s;
        torus_shape_parse(shapes[i], ns[i], &s, err, sizeof err);
        uint64_t want = seq_fp(12, RA_GEN_LFSR, 4ULL << 12);
        for (uint64_t seed = 1; seed <= 6; seed++) {
            ropt_sim_config c = {.shape = s, .log2_table = 12, .gen = RA_GEN_LFSR,
                                 .prm = {.budget = 1024, .lookahead = 0, .batch = 16, .shared_recv = 1},
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
}

static const test_case cases[] = {
    {"auto_shapes", t_auto_shapes},
    {"every_shape_to_64_ranks", t_every_shape_to_64_ranks},
    {"rings_every_shape_to_32_ranks", t_rings_every_shape_to_32_ranks},
    {"option_grid", t_option_grid},
    {"thousands_of_virtual_ranks", t_thousands_of_virtual_ranks},
    {"shared_receive_bucket_deadlocks", t_shared_receive_bucket_deadlocks},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_ropt_sim", cases);
}
