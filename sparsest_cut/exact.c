/*
 * exact.c - the sparsest cut by enumerating every cut.
 *
 * Algorithm: Gray-code enumeration.
 *   Fix the last node outside S (C(S) and min(w(S), W - w(S)) are symmetric
 *   in S and its complement), walk the 2^(n-1) subsets of the others in
 *   Gray order so that each step moves one node v across, and update both
 *   cut directions and w(S) from v's links alone.  The best ratio and, with
 *   whole-number weights, the best balanced cut are kept.
 *   The walk is cut into 64 chunks (top bits fixed, cut computed afresh)
 *   shared among OpenMP threads.
 *   Cost: 2^(n-1) * (average degree) operations; 28 nodes of a 3-D torus
 *   take about a second.
 */
#include "sparsest_cut.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nb {
    int u;
    double out, in; /* capacity v->u and u->v */
} nb;

int sc_exact(const sc_graph *g, sc_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int n = g->n;
    if (n > SC_EXACT_MAX) {
        snprintf(err, errlen, "exact enumeration of %d nodes refused: allowed at most %d (2^%d cuts)", n, SC_EXACT_MAX,
                 SC_EXACT_MAX - 1);
        return -2;
    }
    double *m = calloc((size_t)n * (size_t)n, sizeof *m);
    nb *list = malloc((size_t)n * (size_t)n * sizeof *list);
    int *deg = calloc((size_t)n, sizeof *deg);
    r->set = calloc((size_t)n, 1);
    if (!m || !list || !deg || !r->set) {
        free(m), free(list), free(deg);
        sc_result_free(r);
        snprintf(err, errlen, "out of memory");
        return -3;
    }
    for (int v = 0; v < n; v++)
        for (int p = g->off[v]; p < g->off[v + 1]; p++)
            m[(size_t)v * n + g->adj[p]] += g->cap[p];
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            double o = m[(size_t)v * n + u], i = m[(size_t)u * n + v];
            if (o > 0 || i > 0)
                list[(size_t)v * n + deg[v]++] = (nb){u, o, i};
        }
    const double W = g->wtotal;
    const double half = floor(W / 2);
    const int integral = g->weights_integral;
    /* Chunks: the top `hi` free bits fixed per chunk (its cut computed from
     * scratch), the low bits walked in Gray order; chunks run in parallel. */
    int free_bits = n - 1;
    int hi = free_bits > 12 ? 6 : 0;
    int lo = free_bits - hi;
    double best_cap = 1, best_den = 0; /* ratio +inf */
    uint64_t best_mask = 0;
    double bis = -1;
#pragma omp parallel
    {
        double t_cap = 1, t_den = 0, t_bis = -1;
        uint64_t t_mask = 0;
#pragma omp for schedule(dynamic, 1)
        for (long chunk = 0; chunk < (1L << hi); chunk++) {
            uint64_t mask = (uint64_t)chunk << lo;
            double out = 0, in = 0, wS = 0;
            for (int v = 0; v < n; v++) {
                if (!((mask >> v) & 1))
                    continue;
                wS += g->w[v];
                const nb *l = list + (size_t)v * n;
                for (int j = 0; j < deg[v]; j++)
                    if (!((mask >> l[j].u) & 1)) {
                        out += l[j].out;
                        in += l[j].in;
                    }
            }
            uint64_t steps = 1ULL << lo;
            for (uint64_t i = 0; i < steps; i++) {
                if (i) {
                    int v = __builtin_ctzll(i);
                    mask ^= 1ULL << v;
                    double sgn = (mask >> v) & 1 ? 1.0 : -1.0;
                    const nb *l = list + (size_t)v * n;
                    if (g->directed) {
                        for (int j = 0; j < deg[v]; j++) {
                            double b = (double)((mask >> l[j].u) & 1);
                            out += sgn * (l[j].out - b * (l[j].out + l[j].in));
                            in += sgn * (l[j].in - b * (l[j].in + l[j].out));
                        }
                    } else {
                        double d = 0;
                        for (int j = 0; j < deg[v]; j++)
                            d += l[j].out * (1.0 - 2.0 * (double)((mask >> l[j].u) & 1));
                        out += sgn * d;
                        in = out;
                    }
                    wS += sgn * g->w[v];
                }
                double den = fmin(wS, W - wS);
                if (den <= 0)
                    continue;
                double c = fmin(out, in);
                /* c / den < t_cap / t_den, without dividing */
                if (c * t_den < t_cap * den) {
                    t_cap = c;
                    t_den = den;
                    t_mask = mask;
                }
                if (integral && den == half && (t_bis < 0 || c < t_bis))
                    t_bis = c;
            }
        }
#pragma omp critical
        {
            if (t_den > 0 && (best_den == 0 || t_cap * best_den < best_cap * t_den ||
                              (t_cap * best_den == best_cap * t_den && t_mask < best_mask))) {
                best_cap = t_cap;
                best_den = t_den;
                best_mask = t_mask;
            }
            if (t_bis >= 0 && (bis < 0 || t_bis < bis))
                bis = t_bis;
        }
    }
    for (int v = 0; v < n; v++)
        r->set[v] = (best_mask >> v) & 1;
    r->method = "exact";
    r->n = n;
    r->wtotal = W;
    /* recomputed from scratch: no drift from the running sums */
    r->alpha = r->alpha_lower = r->alpha_upper = sc_ratio(g, r->set);
    r->bisection = bis;
    r->bisection_lower = bis;
    r->bisection_method = bis >= 0 ? "exact" : "none";
    r->upper_from = "enumeration";
    free(m), free(list), free(deg);
    return 0;
}
