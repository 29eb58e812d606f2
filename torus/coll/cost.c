/*
 * cost.c - what a call would do, without running it: the algorithm the
 * table would choose for a size, and an algorithm's cost (the messages,
 * bytes and critical path its file's Cost formula gives), which collbench
 * and torusmodel turn into predictions and test_coll holds the files to.
 */
#include "coll_impl.h"

#include <string.h>

/* Arguments for choice and prediction: the shared facts of a call of
 * op at `bytes`, with no data. */
static torus__coll_args shape_args(torus_coll_op op, size_t bytes)
{
    torus__coll_args a = {.op = op, .bytes = bytes, .count = bytes / 8, .esize = 8, .dt = TORUS_UINT64,
                          .rop = TORUS_OP_SUM, .uniform = op == TORUS_COLL_ALLTOALLV};
    return a;
}

const char *torus_coll_choice(const torus_coll *c, torus_coll_op op, size_t bytes)
{
    if (op < 0 || op >= TORUS_COLL_NCOLL)
        return "";
    torus__coll_args a = shape_args(op, bytes);
    const torus__coll_alg *alg = c->forced[op];
    if (!alg || !alg->ok(c, &a))
        alg = torus__coll_select(c, &a);
    return alg->name;
}

/* The cost of a uniform call of an algorithm at `rank`; -1 if it cannot run. */
static int uniform_cost(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, int rank,
                        torus__coll_cost *k)
{
    const torus__coll_alg *alg = torus__coll_find(op, algorithm);
    torus__coll_args a = shape_args(op, bytes);
    if (!alg || !alg->ok(c, &a))
        return -1;
    memset(k, 0, sizeof *k);
    alg->cost(c, &a, rank, k);
    return 0;
}

double torus_coll_predict(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, double alpha,
                          double beta, double gamma)
{
    torus__coll_cost k;
    if (uniform_cost(c, op, algorithm, bytes, c->me, &k))
        return -1;
    return alpha * k.rounds + beta * k.path_bytes + gamma * k.reduce_bytes;
}

int torus__coll_cost_of(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, int rank,
                        uint64_t *msgs, uint64_t *sent)
{
    torus__coll_cost k;
    if (uniform_cost(c, op, algorithm, bytes, rank, &k))
        return -1;
    *msgs = k.msgs;
    *sent = k.bytes;
    return 0;
}
