/*
 * routing.c - dimension-ordered next hop as a lookup table (paper 002 sec.
 * 5.2-5.3): an update for dest goes first along the lowest dimension in which
 * the coordinates differ, to the router that shares every other coordinate
 * with this rank and has dest's coordinate in that dimension.
 */
#include "torus.h"

#include <stdlib.h>
#include <string.h>

void torus_route_free(torus_route *r)
{
    free(r->bucket_dim);
    free(r->peer);
    free(r->next);
    r->bucket_dim = NULL;
    r->peer = NULL;
    r->next = NULL;
}

static int build(torus_route *r, const torus_map *m, int me, int compact)
{
    const torus_shape *s = &m->shape;
    memset(r, 0, sizeof *r);
    r->me = me;
    r->n = s->n;
    r->ndims = s->ndims;
    for (int d = 0; d < s->ndims; d++)
        r->offset[d + 1] = r->offset[d] + s->k[d];
    r->nbuckets = r->offset[s->ndims];
    r->bucket_dim = malloc((size_t)(r->nbuckets ? r->nbuckets : 1) * sizeof *r->bucket_dim);
    r->peer = malloc((size_t)(r->nbuckets ? r->nbuckets : 1) * sizeof *r->peer);
    r->next = compact ? NULL : malloc((size_t)s->n * sizeof *r->next);
    r->coords = m->coords;
    if (!r->bucket_dim || !r->peer || (!compact && !r->next)) {
        torus_route_free(r);
        return -1;
    }
    const int *mine = &m->coords[me * s->ndims];
    memcpy(r->my_coord, mine, (size_t)s->ndims * sizeof(int));
    int c[TORUS_MAX_DIMS];
    for (int d = 0; d < s->ndims; d++)
        for (int v = 0; v < s->k[d]; v++) {
            int b = r->offset[d] + v;
            r->bucket_dim[b] = (int16_t)d;
            memcpy(c, mine, (size_t)s->ndims * sizeof(int));
            c[d] = v;
            r->peer[b] = v == mine[d] ? -1 : m->rank_of[torus_map_linear(s, c)];
        }
    for (int dest = 0; !compact && dest < s->n; dest++) {
        const int *dc = &m->coords[dest * s->ndims];
        r->next[dest] = -1;
        for (int d = 0; d < s->ndims; d++)
            if (dc[d] != mine[d]) {
                r->next[dest] = r->offset[d] + dc[d];
                break;
            }
    }
    return 0;
}

int torus_route_build(torus_route *r, const torus_map *m, int me)
{
    return build(r, m, me, 0);
}

int torus_route_build_compact(torus_route *r, const torus_map *m, int me)
{
    return build(r, m, me, 1);
}
