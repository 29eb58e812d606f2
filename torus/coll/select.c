/*
 * select.c - which algorithm runs: a table as data, first match wins.
 *
 * Every column is a fact all ranks share (paper 000 sec. 2.3, "global
 * algorithm decisions"): the rank count, the shape, whether the count is a
 * power of two, the message size of bcast/allreduce and the block size of
 * a uniform alltoall (alltoallv counts differ per rank and are never
 * looked at).  A row whose algorithm's preconditions fail is skipped.
 * The last row of each collective takes anything.  The dimension-wise
 * barrier and short allreduce are not chosen: without the deposit bit
 * (one packet delivered to a whole line, paper 000 sec. 3.2) they pay
 * k_d - 1 sends per phase, and on the simulated 8x8x8 torus (bin/collbench
 * --simulate 8x8x8) they lose to dissemination (54 vs 68 us) and to
 * recursive doubling (39 vs 69 us at 8 bytes).  Multistream wins the long
 * bcast there (4.2 ms at 1 MiB against 18 ms for scatter+allgather), swing
 * the long allreduce (1.23 ms at 64 KiB against 2.13 ms for Rabenseifner).
 */
#include "coll_impl.h"

#include <stdint.h>

#define ANY (-1)
#define NOLIMIT SIZE_MAX

typedef struct rule {
    torus_coll_op op;
    int min_ranks, max_ranks; /* ANY: no bound */
    int min_dims;             /* dimensions of size > 1 at least */
    int pow2;                 /* 1: rank count a power of two, 0: not, ANY */
    int shared_nodes;         /* 1: some node holds several ranks (node_of given), ANY */
    int uniform;              /* alltoall: 1 uniform blocks only, ANY */
    size_t min_bytes, max_bytes;
    const char *algorithm;
} rule;

static const rule table[] = {
    /* op                   ranks      dims pow2 nodes unif  bytes              algorithm */
    {TORUS_COLL_BARRIER,    ANY, 3,     0, ANY, ANY, ANY, 0, NOLIMIT,          "dissemination"},
    {TORUS_COLL_BARRIER,    4, ANY,     0, ANY, 1,   ANY, 0, NOLIMIT,          "node_aware"},
    {TORUS_COLL_BARRIER,    ANY, ANY,   0, ANY, ANY, ANY, 0, NOLIMIT,          "dissemination"},

    {TORUS_COLL_BCAST,      ANY, ANY,   0, ANY, ANY, ANY, 0, 12287,            "binomial"},
    {TORUS_COLL_BCAST,      ANY, 7,     0, ANY, ANY, ANY, 0, NOLIMIT,          "binomial"},
    {TORUS_COLL_BCAST,      8, ANY,     2, ANY, ANY, ANY, 16384, NOLIMIT,      "multistream"},
    {TORUS_COLL_BCAST,      ANY, ANY,   0, ANY, ANY, ANY, 0, NOLIMIT,          "scatter_allgather"},

    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, ANY, ANY, ANY, 0, 2048,             "recursive_doubling"},
    {TORUS_COLL_ALLREDUCE,  ANY, 4,     0, ANY, ANY, ANY, 0, 8192,             "recursive_doubling"},
    {TORUS_COLL_ALLREDUCE,  ANY, 4,     0, ANY, ANY, ANY, 0, NOLIMIT,          "rabenseifner"},
    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, 1,   ANY, ANY, 0, NOLIMIT,          "swing"},
    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, ANY, ANY, ANY, 0, NOLIMIT,          "rabenseifner"},

    {TORUS_COLL_ALLTOALLV,  ANY, ANY,   0, ANY, ANY, 1,   0, 256,              "bruck"},
    {TORUS_COLL_ALLTOALLV,  64, ANY,    2, ANY, ANY, 1,   0, 4096,             "routed"},
    {TORUS_COLL_ALLTOALLV,  ANY, 8,     0, ANY, ANY, ANY, 0, NOLIMIT,          "pairwise"},
    {TORUS_COLL_ALLTOALLV,  ANY, ANY,   0, ANY, ANY, ANY, 0, NOLIMIT,          "random_permutation"},
};

static int dims_over_one(const torus_shape *s)
{
    int d = 0;
    for (int i = 0; i < s->ndims; i++)
        d += s->k[i] > 1;
    return d;
}

const torus__coll_alg *torus__coll_select(const torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, pow2 = n > 0 && (n & (n - 1)) == 0, dims = dims_over_one(&c->map->shape);
    /* the rows' algorithms looked up by name once (every thread finds the
     * same pointers), not on every call: a small collective costs well
     * under a microsecond */
    enum { NROWS = sizeof table / sizeof *table };
    static const torus__coll_alg *row_alg[NROWS];
    static int resolved;
    if (!resolved) {
        for (size_t i = 0; i < NROWS; i++)
            row_alg[i] = torus__coll_find(table[i].op, table[i].algorithm);
        resolved = 1;
    }
    const torus__coll_alg *last = NULL;
    for (size_t i = 0; i < NROWS; i++) {
        const rule *r = &table[i];
        if (r->op != a->op)
            continue;
        const torus__coll_alg *alg = row_alg[i];
        if (!alg)
            continue;
        last = alg;
        if ((r->min_ranks != ANY && n < r->min_ranks) || (r->max_ranks != ANY && n > r->max_ranks) ||
            dims < r->min_dims || (r->pow2 != ANY && r->pow2 != pow2) ||
            (r->shared_nodes != ANY && r->shared_nodes != c->shared_nodes) || (r->uniform != ANY && r->uniform != a->uniform) ||
            a->bytes < r->min_bytes || a->bytes > r->max_bytes)
            continue;
        if (alg->ok(c, a))
            return alg;
    }
    /* no row fits (a table row names an algorithm whose preconditions fail
     * here): the first registered algorithm of the op that can run */
    for (int i = 0; i < torus__coll_nlisted; i++) {
        const torus__coll_alg *alg = torus__coll_listed[i];
        if (alg->op == a->op && alg->ok(c, a))
            return alg;
    }
    return last;
}
