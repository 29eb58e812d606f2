/*
 * test_multisend.c - multisend plans on the functional simulator: random
 * sparse patterns (empty lists, self blocks, 0-byte blocks, a peer listed
 * several times, send blocks that share bytes, receive layouts with gaps
 * and shuffled source lists) over many shapes, every algorithm, replayed
 * several times with changing data and other collectives in between;
 * every received byte must equal the reference computed directly from
 * the pattern, the gaps of the receive buffer must stay untouched, no
 * request may stay open, and the direct algorithm must send exactly one
 * message per non-empty remote block.  One case at 2048 virtual ranks.
 * Then the errors: a plan used after free, a changed pattern
 * (torus_multisend_check), ranks whose patterns disagree on the number or
 * the sizes of blocks (an error at set-up on every rank, no hang), a plan
 * started twice, an unknown algorithm.
 */
#include "kit_mix.h"
#include "../test.h"
#include "coll_impl.h"

#include <stdlib.h>
#include <string.h>


/* ---- a random pattern of the whole machine ---------------------------------- */

typedef struct rank_pat {
    int ndest, nsrc;
    int *dests, *srcs;
    size_t *scounts, *sdispls, *rcounts, *rdispls;
    int *rk;       /* receive j is block rk[j] from srcs[j] (k-th from that source) */
    size_t slen, rlen; /* buffer sizes */
} rank_pat;

typedef struct world {
    int n;
    rank_pat *r;
    /* case parameters */
    const char *alg;
    int iters;
    int mismatch; /* 1: rank 0 lists one source too many; 2: one size differs */
    size_t max_block;
    char why[256];
    int fail_rank;
    uint64_t salt;
} world;

static uint64_t rnd(uint64_t *s)
{
    *s = kit_mix64(*s);
    return *s;
}

static void world_free(world *w)
{
    for (int i = 0; w->r && i < w->n; i++) {
        rank_pat *p = &w->r[i];
        free(p->dests), free(p->srcs), free(p->scounts), free(p->rcounts), free(p->rk);
    }
    free(w->r);
    w->r = NULL;
}

/* Every rank sends 0..maxd blocks (some ranks none) to random ranks
 * (itself included, repeats likely when maxd is close to n), sizes
 * 0..max_block with zeros frequent; receivers list their sources in a
 * shuffled order with gaps between receive blocks. */
static int world_make(world *w, int n, int maxd, size_t max_block, uint64_t seed)
{
    w->n = n;
    w->max_block = max_block;
    w->r = calloc((size_t)n, sizeof *w->r);
    int *nin = calloc((size_t)n, sizeof *nin);
    if (!w->r || !nin)
        return -1;
    uint64_t s = seed * 0x2545F4914F6CDD1DULL + 1;
    for (int i = 0; i < n; i++) {
        rank_pat *p = &w->r[i];
        p->ndest = rnd(&s) % 5 == 0 ? 0 : (int)(rnd(&s) % (uint64_t)(maxd + 1));
        p->dests = malloc(((size_t)p->ndest + 1) * sizeof *p->dests);
        p->scounts = malloc(2 * ((size_t)p->ndest + 1) * sizeof *p->scounts);
        if (!p->dests || !p->scounts)
            return -1;
        p->sdispls = p->scounts + p->ndest + 1;
        size_t off = 0;
        for (int k = 0; k < p->ndest; k++) {
            uint64_t x = rnd(&s);
            p->dests[k] = x % 7 == 0 ? i : x % 11 == 0 && k ? p->dests[k - 1] : (int)(rnd(&s) % (uint64_t)n);
            p->scounts[k] = rnd(&s) % 4 == 0 ? 0 : (size_t)(rnd(&s) % (max_block + 1));
            if (k && rnd(&s) % 9 == 0 && p->scounts[k] <= p->scounts[k - 1]) {
                p->sdispls[k] = p->sdispls[k - 1]; /* shares its bytes with the block before */
            } else {
                p->sdispls[k] = off;
                off += p->scounts[k] + rnd(&s) % 3;
            }
            nin[p->dests[k]]++;
        }
        p->slen = off + 1;
    }
    for (int d = 0; d < n; d++) {
        rank_pat *p = &w->r[d];
        p->nsrc = nin[d];
        p->srcs = malloc(((size_t)p->nsrc + 1) * sizeof *p->srcs);
        p->rk = malloc(((size_t)p->nsrc + 1) * sizeof *p->rk);
        p->rcounts = malloc(2 * ((size_t)p->nsrc + 1) * sizeof *p->rcounts);
        if (!p->srcs || !p->rk || !p->rcounts)
            return -1;
        p->rdispls = p->rcounts + p->nsrc + 1;
        p->nsrc = 0;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < w->r[i].ndest; k++) {
            rank_pat *q = &w->r[w->r[i].dests[k]];
            q->srcs[q->nsrc++] = i;
        }
    for (int d = 0; d < n; d++) {
        rank_pat *p = &w->r[d];
        for (int j = p->nsrc - 1; j > 0; j--) { /* shuffle the listing order */
            int x = (int)(rnd(&s) % (uint64_t)(j + 1)), t = p->srcs[j];
            p->srcs[j] = p->srcs[x];
            p->srcs[x] = t;
        }
        /* the k-th listing of s takes s's k-th block to d */
        int *seen = calloc((size_t)n, sizeof *seen);
        if (!seen)
            return -1;
        size_t off = 0;
        for (int j = 0; j < p->nsrc; j++) {
            int src = p->srcs[j], k = seen[src]++;
            rank_pat *q = &w->r[src];
            int found = 0;
            for (int i = 0; i < q->ndest; i++)
                if (q->dests[i] == d && found++ == k) {
                    p->rcounts[j] = q->scounts[i];
                    break;
                }
            p->rk[j] = k;
            p->rdispls[j] = off;
            off += p->rcounts[j] + 1 + rnd(&s) % 3; /* a gap after every block */
        }
        p->rlen = off + 1;
        free(seen);
    }
    free(nin);
    return 0;
}

/* byte i of the k-th block from s to d in replay `it` */
static unsigned char data_byte(int s, int d, int k, size_t i, int it, uint64_t salt)
{
    return (unsigned char)(kit_mix64(salt ^ ((uint64_t)s << 40) ^ ((uint64_t)d << 20) ^ ((uint64_t)k << 12) ^ (uint64_t)it) + i);
}

#define GAP 0xA5

/* Rank s's send buffer in replay `it` (kth: n ints of scratch). */
static void fill_send(const world *w, int s, int it, unsigned char *sb, int *kth)
{
    const rank_pat *p = &w->r[s];
    memset(kth, 0, (size_t)w->n * sizeof *kth);
    memset(sb, 0, p->slen);
    for (int i = 0; i < p->ndest; i++) {
        int d = p->dests[i], k = kth[d]++;
        for (size_t b = 0; b < p->scounts[i]; b++)
            sb[p->sdispls[i] + b] = data_byte(s, d, k, b, it, w->salt);
    }
}

static int body(torus_coll *c, int r, void *arg)
{
    world *w = arg;
    rank_pat *p = &w->r[r];
    unsigned char *sb = malloc(p->slen), *rb = malloc(p->rlen);
    if (!sb || !rb) {
        free(sb), free(rb);
        return TORUS_COLL_ENOMEM;
    }
    torus_multisend_spec spec = {p->ndest, p->dests, p->scounts, p->sdispls, p->nsrc, p->srcs, p->rcounts, p->rdispls};
    size_t saved = 0;
    if (w->mismatch == 1 && r == 0) {
        spec.nsrc = p->nsrc + 1; /* one listing nobody sends: rank 0 expects a block from itself */
        p->srcs[p->nsrc] = 0;
        p->rcounts[p->nsrc] = 0;
        p->rdispls[p->nsrc] = 0;
        spec.rdispls = p->rdispls;
    }
    if (w->mismatch == 2 && p->nsrc) {
        saved = p->rcounts[0];
        p->rcounts[0] += 1;
    }
    torus_multisend *plan = NULL;
    int rc = torus_multisend_init(c, &spec, w->alg, &plan);
    if (w->mismatch == 2 && p->nsrc)
        p->rcounts[0] = saved;
    if (rc) {
        free(sb), free(rb);
        return rc;
    }
    if (w->alg && strcmp(w->alg, "auto") && strcmp(torus_multisend_algorithm(plan), w->alg)) {
        snprintf(w->why, sizeof w->why, "rank %d runs '%s', asked for '%s'", r, torus_multisend_algorithm(plan), w->alg);
        w->fail_rank = r;
    }
    uint64_t remote = 0;
    for (int i = 0; i < p->ndest; i++)
        remote += p->dests[i] != r && p->scounts[i];
    int *kth = calloc((size_t)w->n, sizeof *kth);
    if (!kth) {
        torus_multisend_free(&plan);
        free(sb), free(rb);
        return TORUS_COLL_ENOMEM;
    }
    for (int it = 0; it < w->iters && !rc; it++) {
        fill_send(w, r, it, sb, kth);
        memset(rb, GAP, p->rlen);
        torus_coll_counts before, after;
        torus_coll_get_counts(c, &before);
        rc = torus_multisend_start(plan, sb, rb);
        /* another collective between start and wait: its messages must not mix */
        if (!rc && it % 2)
            rc = torus_coll_barrier(c);
        if (!rc && it % 3 == 2) {
            int done = 0;
            for (int t = 0; t < 3 && !rc && !done; t++)
                rc = torus_multisend_test(plan, &done);
        }
        rc = rc ? rc : torus_multisend_wait(plan);
        torus_coll_get_counts(c, &after);
        if (rc)
            break;
        if (!strcmp(torus_multisend_algorithm(plan), "direct") && it % 2 == 0 &&
            after.msgs_sent - before.msgs_sent != remote && w->fail_rank < 0) {
            snprintf(w->why, sizeof w->why, "rank %d sent %llu messages for %llu remote blocks", r,
                     (unsigned long long)(after.msgs_sent - before.msgs_sent), (unsigned long long)remote);
            w->fail_rank = r;
        }
        /* the reference: block rk[j] of srcs[j], read from that sender's
         * buffer as it fills it (blocks sharing bytes included) */
        size_t pos = 0;
        for (int j = 0; j < p->nsrc && !rc; j++) {
            int s = p->srcs[j];
            rank_pat *q = &w->r[s];
            int found = 0, src_i = -1;
            for (int i = 0; i < q->ndest; i++)
                if (q->dests[i] == r && found++ == p->rk[j]) {
                    src_i = i;
                    break;
                }
            unsigned char *qb = malloc(q->slen);
            if (!qb) {
                rc = TORUS_COLL_ENOMEM;
                break;
            }
            fill_send(w, s, it, qb, kth);
            for (size_t b = 0; b < p->rcounts[j]; b++) {
                unsigned char want = qb[q->sdispls[src_i] + b];
                if (rb[p->rdispls[j] + b] != want && w->fail_rank < 0) {
                    snprintf(w->why, sizeof w->why,
                             "replay %d: rank %d, receive %d (block %d from rank %d), byte %zu: %u, expected %u", it, r,
                             j, p->rk[j], s, b, rb[p->rdispls[j] + b], want);
                    w->fail_rank = r;
                }
            }
            free(qb);
            /* untouched between blocks */
            for (; pos < p->rdispls[j]; pos++)
                if (rb[pos] != GAP && w->fail_rank < 0) {
                    snprintf(w->why, sizeof w->why, "replay %d: rank %d: byte %zu of a gap was written", it, r, pos);
                    w->fail_rank = r;
                }
            pos = p->rdispls[j] + p->rcounts[j];
        }
    }
    free(kth);
    free(sb), free(rb);
    if (rc) {
        torus_multisend_free(&plan);
        return rc;
    }
    torus_multisend_free(&plan);
    if (plan || torus_multisend_start(plan, NULL, NULL) != TORUS_COLL_EARG) {
        snprintf(w->why, sizeof w->why, "rank %d: a freed plan was not refused", r);
        w->fail_rank = r;
    }
    return 0;
}

static int bad_runs, runs;

static void run_world(const torus_map *m, world *w, uint64_t seed, double eager, const char *name)
{
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = eager, .eager_queue = 4, .delay_prob = 0.3,
                           .seed = seed};
    torus_coll_vrun_result res;
    w->why[0] = 0;
    w->fail_rank = -1;
    int rc = torus_coll_vrun_sim(m, &sp, NULL, body, w, &res);
    runs++;
    if (rc || res.deadlock || res.failed_rank >= 0 || res.unfinished || res.open_requests || w->fail_rank >= 0) {
        bad_runs++;
        char shape[64];
        torus_shape_format(&m->shape, shape, sizeof shape);
        fprintf(stderr, "FAIL multisend %s on %s (%s, seed %llu): rc %d deadlock %d unfinished %d open %d: %s%s\n",
                w->alg ? w->alg : "auto", shape, name, (unsigned long long)seed, rc, res.deadlock, res.unfinished,
                res.open_requests, res.failed_rank >= 0 ? res.err : "", w->why);
    }
}

static void patterns_on(const char *shape_str, int seeds, int iters)
{
    torus_shape s;
    char err[256];
    torus_map m;
    if (torus_shape_parse(shape_str, 0, &s, err, sizeof err) || torus_map_xyzt(&m, &s)) {
        fprintf(stderr, "bad test shape %s\n", shape_str);
        bad_runs++;
        return;
    }
    static const char *const algs[] = {"direct", "routed", "auto"};
    for (int seed = 1; seed <= seeds; seed++)
        for (int a = 0; a < 3; a++) {
            world w;
            memset(&w, 0, sizeof w);
            int n = s.n;
            /* sparse, dense (repeats certain), and few large blocks */
            int maxd = seed % 3 == 0 ? 2 * n + 2 : seed % 3 == 1 ? 4 : 3;
            size_t maxb = seed % 3 == 2 ? 3000 : 40;
            if (world_make(&w, n, maxd, maxb, (uint64_t)seed * 977 + (uint64_t)n)) {
                fprintf(stderr, "out of memory\n");
                bad_runs++;
                world_free(&w);
                continue;
            }
            w.alg = algs[a];
            w.iters = iters;
            w.salt = (uint64_t)seed;
            run_world(&m, &w, (uint64_t)seed * 31 + (uint64_t)a, seed % 2 ? 0.0 : 0.7, "random pattern");
            world_free(&w);
        }
    torus_map_free(&m);
}

/* ---- error cases ------------------------------------------------------------ */

static void mismatch_case(int kind, const char *alg)
{
    torus_shape s;
    char err[256];
    torus_map m;
    torus_shape_parse("3x2", 0, &s, err, sizeof err);
    torus_map_xyzt(&m, &s);
    world w;
    memset(&w, 0, sizeof w);
    /* every rank sends something to everybody, so that sizes can differ */
    world_make(&w, s.n, 12, 20, 5);
    w.alg = alg;
    w.iters = 1;
    w.mismatch = kind;
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = 0, .seed = 9};
    torus_coll_vrun_result res;
    w.fail_rank = -1;
    ASSERT_EQ_INT(torus_coll_vrun_sim(&m, &sp, NULL, body, &w, &res), 0);
    ASSERT_EQ_INT(res.deadlock, 0);
    ASSERT_EQ_INT(res.unfinished, 0);
    ASSERT_EQ_INT(res.open_requests, 0);
    ASSERT_EQ_INT(res.failed_rank, 0); /* every rank fails; rank 0 is the first */
    ASSERT_EQ_INT(res.rc, kind == 1 ? TORUS_COLL_EARG : TORUS_COLL_ETRUNC);
    ASSERT_STR_CONTAINS(res.err, kind == 1 ? "block(s) from rank 0, which sends it" : "sizes");
    world_free(&w);
    torus_map_free(&m);
}

/* A plan checked against changed specs, started twice, freed and used. */
static int api_body(torus_coll *c, int r, void *arg)
{
    int *failures = arg;
    int n = c->n, peer = (r + 1) % n, from = (r + n - 1) % n;
    size_t cnt = 8, dis = 0;
    unsigned char sb[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rb[8];
    torus_multisend_spec s = {1, &peer, &cnt, &dis, 1, &from, &cnt, &dis};
    torus_multisend *p;
    if (torus_multisend_init(c, &s, "nonesuch", &p) != TORUS_COLL_EARG || p ||
        !strstr(torus_coll_error(c), "allowed auto, direct, routed"))
        ++*failures;
    int rc = torus_multisend_init(c, &s, NULL, &p);
    if (rc)
        return rc;
    if (torus_multisend_check(p, &s))
        ++*failures;
    size_t cnt2 = 9;
    torus_multisend_spec s2 = s;
    s2.scounts = &cnt2;
    if (torus_multisend_check(p, &s2) != TORUS_COLL_EARG || !strstr(torus_coll_error(c), "block 0 is (dest"))
        ++*failures;
    s2 = s;
    s2.nsrc = 0;
    if (torus_multisend_check(p, &s2) != TORUS_COLL_EARG || !strstr(torus_coll_error(c), "nsrc 0"))
        ++*failures;
    if ((rc = torus_multisend_start(p, sb, rb)))
        return rc;
    if (torus_multisend_start(p, sb, rb) != TORUS_COLL_EARG || !strstr(torus_coll_error(c), "started again"))
        ++*failures;
    if ((rc = torus_multisend_wait(p)))
        return rc;
    if (memcmp(rb, sb, 8) || torus_multisend_wait(p)) /* a second wait: nothing started, 0 */
        ++*failures;
    torus_multisend_free(&p);
    if (p || torus_multisend_start(p, sb, rb) != TORUS_COLL_EARG || torus_multisend_wait(p) != TORUS_COLL_EARG ||
        !strstr(torus_coll_error(NULL), "used after torus_multisend_free"))
        ++*failures;
    torus_multisend_free(&p); /* freeing NULL again is harmless */
    return 0;
}

static void api_cases(void)
{
    torus_shape s;
    char err[256];
    torus_map m;
    torus_shape_parse("4", 0, &s, err, sizeof err);
    torus_map_xyzt(&m, &s);
    int failures = 0;
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = 0.5, .seed = 4};
    torus_coll_vrun_result res;
    ASSERT_EQ_INT(torus_coll_vrun_sim(&m, &sp, NULL, api_body, &failures, &res), 0);
    ASSERT_EQ_INT(res.deadlock, 0);
    ASSERT_EQ_INT(res.failed_rank, -1);
    ASSERT_EQ_INT(res.open_requests, 0);
    ASSERT_EQ_INT(failures, 0);
    torus_map_free(&m);
}

/* random patterns (sparse, dense, few large blocks) on shapes of 1-27
 * ranks and thousands of virtual ranks, every algorithm */
static void t_random_patterns(void)
{
    static const char *const shapes[] = {"1", "2", "3", "5", "2x2", "4x3", "3x2m", "2x3x2", "2x2x2x2", "1x4x1x3",
                                         "7x2", "4x4", "3x3x3"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        patterns_on(shapes[i], 3, 4);
    /* thousands of virtual ranks, one seed, two replays */
    patterns_on("16x16x8", 1, 2);
    ASSERT_EQ_INT(bad_runs, 0);
    ASSERT_TRUE(runs > 40);
}

/* rank 0 lists one source too many, a block nobody sends: refused */
static void t_extra_source_refused(void)
{
    mismatch_case(1, "direct");
    mismatch_case(1, "routed");
}

/* one block's size differs between sender and receiver: refused */
static void t_size_mismatch_refused(void)
{
    mismatch_case(2, "direct");
    mismatch_case(2, "routed");
}

static const test_case cases[] = {
    {"random_patterns", t_random_patterns},
    {"extra_source_refused", t_extra_source_refused},
    {"size_mismatch_refused", t_size_mismatch_refused},
    {"plan_checked_restarted_freed", api_cases},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_multisend", cases);
}

