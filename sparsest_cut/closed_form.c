/*
 * closed_form.c - smallest edge expansion of tori and meshes.
 *
 * Algorithm: paper 002 sec. 4.3 ("examining the face with smallest area").
 *   A slab S = {x : x_i < floor(k_i/2)} crosses c_i * N/k_i links, c_i = 2
 *   in a torus dimension (the slab has two faces; a 2-ring's two links are
 *   parallel), 1 in a mesh dimension, and holds floor(k_i/2) * N/k_i nodes:
 *     alpha = min_i c_i / floor(k_i/2)   over dimensions with k_i >= 2.
 *   Bisection (|S| = floor(N/2)): a staircase.  Cutting along dimension i
 *   takes a = floor(T/L) whole layers (L = N/k_i nodes each; c_i * L links
 *   once a >= 1, the partial layer's links along i replacing those it
 *   covers) and t = T - a*L nodes of the next layer, placed by the same rule
 *   inside that layer's (d-1)-dimensional shape:
 *     f(shape, T) = min_i [a >= 1 ? c_i L : c_i' t] + f(shape - i, t)
 *   with c_i' = 2 (torus) or 1 (mesh, the layer at the boundary).  Memoised
 *   on (dimensions left, T); shapes needing over 10^6 states (many odd
 *   dimensions) report the bisection as unknown.
 *   The edge-isoperimetric results for grids and tori (Bollobas-Leader)
 *   make slabs optimal; tests/unit/test_sparsest_cut.c checks both formulas
 *   against exact enumeration on every shape of at most 28 nodes, odd radices,
 *   1s, 2s and mixed torus/mesh dimensions included.
 *   Cost: O(d).
 */
#include "sparsest_cut.h"
#include "kit_mix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Memo of f(mask of dimensions left, T). */

typedef struct memo {
    size_t cap, used;
    uint64_t *key;
    double *val;
} memo;

static double *memo_slot(memo *m, uint32_t mask, long t, int *found)
{
    uint64_t key = ((uint64_t)mask << 32 | (uint64_t)t) + 1;
    if (m->used >= 1000000)
        return NULL; /* pathological shapes (many odd dimensions): give up */
    if (2 * (m->used + 1) > m->cap) {
        size_t ncap = m->cap ? 2 * m->cap : 1024;
        uint64_t *nk = calloc(ncap, sizeof *nk);
        double *nv = malloc(ncap * sizeof *nv);
        if (!nk || !nv) {
            free(nk), free(nv);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t h = (size_t)kit_mix64_fin(m->key[i]) & (ncap - 1);
                while (nk[h])
                    h = (h + 1) & (ncap - 1);
                nk[h] = m->key[i];
                nv[h] = m->val[i];
            }
        free(m->key), free(m->val);
        m->key = nk, m->val = nv, m->cap = ncap;
    }
    size_t h = (size_t)kit_mix64_fin(key) & (m->cap - 1);
    while (m->key[h] && m->key[h] != key)
        h = (h + 1) & (m->cap - 1);
    *found = m->key[h] == key;
    if (!*found) {
        m->key[h] = key;
        m->used++;
    }
    return &m->val[h];
}

/* Fewest links around T nodes of the sub-shape made of the dimensions in
 * mask (nodes = product of their sizes); -1 when out of memory. */
static double staircase(const torus_shape *s, uint32_t mask, long nodes, long t, memo *m)
{
    if (t <= 0 || t >= nodes)
        return 0;
    int found;
    double *slot = memo_slot(m, mask, t, &found);
    if (!slot)
        return -1;
    if (found)
        return *slot;
    double best = -1;
    for (int i = 0; i < s->ndims; i++) {
        if (!((mask >> i) & 1) || s->k[i] < 2)
            continue;
        long L = nodes / s->k[i], a = t / L, rest = t - a * L;
        double c = s->mesh[i] ? 1.0 : 2.0;
        double here = a >= 1 ? c * (double)L : c * (double)rest;
        double sub = staircase(s, mask & ~(1u << i), L, rest, m);
        if (sub < 0)
            return -1;
        if (best < 0 || here + sub < best)
            best = here + sub;
    }
    /* the slot may have moved if the table grew during the recursion */
    slot = memo_slot(m, mask, t, &found);
    if (!slot)
        return -1;
    *slot = best < 0 ? 0 : best;
    return *slot;
}

int sc_closed_form(const torus_shape *s, sc_result *r, int want_set, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (s->n < 2) {
        snprintf(err, errlen, "shape has %d node: a cut needs at least 2", s->n);
        return -2;
    }
    int best = -1;
    double alpha = 0;
    for (int i = 0; i < s->ndims; i++) {
        if (s->k[i] < 2)
            continue;
        double a = (s->mesh[i] ? 1.0 : 2.0) / (s->k[i] / 2);
        if (best < 0 || a < alpha) {
            alpha = a;
            best = i;
        }
    }
    r->method = "closed-form";
    r->alpha = r->alpha_lower = r->alpha_upper = alpha;
    r->n = s->n;
    r->wtotal = s->n;
    memo mm = {0, 0, NULL, NULL};
    r->bisection = staircase(s, s->ndims >= 32 ? 0xffffffffu : (1u << s->ndims) - 1, s->n, s->n / 2, &mm);
    free(mm.key), free(mm.val);
    if (r->bisection < 0) {
        r->bisection_method = "none"; /* memo limit reached: left unknown */
    } else {
        r->bisection_method = "closed-form";
        r->bisection_lower = r->bisection;
    }
    if (want_set) {
        r->set = calloc((size_t)s->n, 1);
        if (!r->set) {
            snprintf(err, errlen, "out of memory for a %d-node set", s->n);
            return -3;
        }
        long stride = 1;
        for (int i = 0; i < best; i++)
            stride *= s->k[i];
        int half = s->k[best] / 2;
        for (int v = 0; v < s->n; v++)
            r->set[v] = (v / stride) % s->k[best] < half;
    }
    return 0;
}
