/*
 * ranks.c - where ranks are: coordinates, the rank at a position along a
 * dimension, how many dimensions are longer than 1 (what a selection row's
 * dims column compares), and the rank arithmetic several algorithms share.
 */
#include "coll_impl.h"

#include <string.h>

int torus__coll_runs_anywhere(const torus_coll *c, const torus__coll_args *a)
{
    (void)c, (void)a;
    return 1;
}

int torus__floor_pow2(int n)
{
    int p = 1;
    while (2 * p <= n)
        p *= 2;
    return p;
}

int torus__fold_rank(int j, int rem)
{
    return j < rem ? 2 * j : j + rem;
}

const int *torus__coords(const torus_coll *c, int rank)
{
    return &c->map->coords[(size_t)rank * (size_t)c->ndims];
}

int torus__line_rank(const torus_coll *c, int rank, int d, int pos)
{
    int cc[TORUS_MAX_DIMS];
    memcpy(cc, torus__coords(c, rank), (size_t)c->ndims * sizeof(int));
    cc[d] = pos;
    return c->map->rank_of[torus_map_linear(&c->map->shape, cc)];
}

int torus__coll_dims_over_one(const torus_shape *s)
{
    int d = 0;
    for (int i = 0; i < s->ndims; i++)
        d += s->k[i] > 1;
    return d;
}
