/*
 * fold.c - a large fabric's hosts folded into their switches, so that
 * alpha of a 10,000-host fabric is the alpha of its few hundred switches.
 *
 * Algorithm (undirected graphs): an endpoint v with one neighbour u (a
 * host on its leaf, by one cable or parallel ones) is folded into u: the
 * reduced graph H has the other nodes, w_H(u) = w(u) + the w of the hosts
 * folded into it, and the links between them.  With rho = min over the
 * folded hosts of c(v,u) / w(v):
 *   upper: {v} alone is a cut of ratio c/w (w(v) <= W/2), and every cut of
 *          H is a cut of G with the same capacity and weight (hosts follow
 *          their switch): alpha(G) <= min(rho, alpha(H)).
 *   lower: for a cut S of G, let T be its switches and x + y the weight of
 *          hosts on the other side from their switch.  Then C(S) >=
 *          C_H(T) + rho (x + y) and min(w(S), W - w(S)) <= min(w_H(T),
 *          W - w_H(T)) + x + y, so alpha(G) >= min(rho, alpha(H)).
 *   So alpha(G) = min(rho, alpha(H)): exact when H's alpha is, bounded by
 *   H's bounds when not.  The bisection of H is a cut of G, an upper
 *   bound; alpha_lower * floor(W / 2) bounds it below.
 *   Cost: O(n + m) to fold, then H's method on |H| nodes.
 */
#include "sparsest_cut.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v's one neighbour in g, or -1 when v has none or several. */
static int only_neighbour(const sc_graph *g, int v)
{
    int u = -1;
    for (int p = g->off[v]; p < g->off[v + 1]; p++) {
        if (u >= 0 && g->adj[p] != u)
            return -1;
        u = g->adj[p];
    }
    return u;
}

int sc_fold_pendants(const sc_graph *g, sc_graph *h, sc_fold *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    memset(h, 0, sizeof *h);
    f->rho = INFINITY;
    if (g->directed)
        return 0;
    int n = g->n;
    f->map = malloc((size_t)n * sizeof *f->map);
    int *into = malloc((size_t)n * sizeof *into);
    if (!f->map || !into) {
        free(into);
        sc_fold_free(f);
        snprintf(err, errlen, "out of memory folding a %d-node graph", n);
        return -3;
    }
    int kept = 0, weighted = 0;
    for (int v = 0; v < n; v++) {
        int u = g->w[v] > 0 && 2 * g->w[v] <= g->wtotal ? only_neighbour(g, v) : -1;
        /* the neighbour must stay: a lone pair of pendants is no fabric */
        into[v] = u >= 0 && only_neighbour(g, u) < 0 ? u : -1;
    }
    for (int v = 0; v < n; v++)
        f->map[v] = into[v] < 0 ? kept++ : -1;
    sc_edges e;
    if (kept == n || kept < 2 || sc_edges_init(&e, kept, 0)) {
        free(into);
        int oom = kept < n && kept >= 2;
        sc_fold_free(f);
        if (oom)
            snprintf(err, errlen, "out of memory folding a %d-node graph", n);
        return oom ? -3 : 0; /* nothing to fold: the caller works on g */
    }
    for (int v = 0; v < n; v++)
        if (into[v] < 0)
            e.w[f->map[v]] = g->w[v];
    for (int v = 0; v < n; v++) {
        if (into[v] < 0)
            continue;
        double c = 0;
        for (int p = g->off[v]; p < g->off[v + 1]; p++)
            c += g->cap[p];
        e.w[f->map[into[v]]] += g->w[v];
        if (c / g->w[v] < f->rho) {
            f->rho = c / g->w[v];
            f->rho_node = v;
        }
        f->folded++;
        f->map[v] = f->map[into[v]];
    }
    int rc = 0;
    for (int v = 0; v < n && !rc; v++)
        for (int p = g->off[v]; p < g->off[v + 1] && !rc; p++)
            if (into[v] < 0 && into[g->adj[p]] < 0 && v < g->adj[p])
                rc = sc_edges_add(&e, f->map[v], f->map[g->adj[p]], g->cap[p]);
    for (int u = 0; u < kept; u++)
        weighted += e.w[u] > 0;
    free(into);
    if (rc || weighted < 2) {
        sc_edges_free(&e);
        sc_fold_free(f);
        if (rc)
            snprintf(err, errlen, "out of memory folding a %d-node graph", n);
        return rc ? -3 : 0;
    }
    rc = sc_graph_build(h, &e, err, errlen);
    sc_edges_free(&e);
    if (rc)
        sc_fold_free(f);
    return rc;
}

void sc_fold_lift(const sc_graph *g, const sc_fold *f, const sc_result *rh, sc_result *r)
{
    *r = *rh;
    r->n = g->n;
    r->set = calloc((size_t)g->n, 1);
    if (r->set && rh->set)
        for (int v = 0; v < g->n; v++)
            r->set[v] = f->rho < rh->alpha_upper ? v == f->rho_node : rh->set[f->map[v]];
    free(rh->set);
    r->alpha_lower = fmin(f->rho, rh->alpha_lower);
    r->alpha_upper = fmin(f->rho, rh->alpha_upper);
    r->alpha = r->alpha_upper;
    if (r->bisection >= 0) {
        r->bisection_lower = g->weights_integral ? r->alpha_lower * floor(g->wtotal / 2) : 0;
        r->bisection_method = "upper-bound";
    }
}

void sc_fold_free(sc_fold *f)
{
    free(f->map);
    f->map = NULL;
    f->folded = 0;
}

int sc_alpha_folded(const sc_graph *g, sc_result *r, sc_fold *f, int *hn, char *err, size_t errlen)
{
    *hn = 0;
    sc_graph h;
    int rc = sc_fold_pendants(g, &h, f, err, errlen);
    if (rc || !f->folded)
        return rc ? rc : sc_bounds(g, r, err, errlen);
    sc_result rh;
    *hn = h.n;
    rc = h.n <= SC_AUTO_EXACT_MAX ? sc_exact(&h, &rh, err, errlen) : sc_bounds(&h, &rh, err, errlen);
    sc_graph_free(&h);
    if (!rc)
        sc_fold_lift(g, f, &rh, r);
    return rc;
}

int sc_alpha_auto(const sc_graph *g, sc_result *r, sc_fold *f, int *hn, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    *hn = 0;
    return g->n <= SC_AUTO_EXACT_MAX ? sc_exact(g, r, err, errlen) : sc_alpha_folded(g, r, f, hn, err, errlen);
}
