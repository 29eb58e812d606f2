/*
 * graph.c - capacitated graphs for the sparsest-cut tools: edge collection,
 * compressed rows with parallel links merged, connectivity checks, the
 * torus/mesh graph of a shape, and cut evaluation.
 */
#include "sparsest_cut.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_edges_init(sc_edges *e, int n, int directed)
{
    memset(e, 0, sizeof *e);
    e->n = n;
    e->directed = directed;
    e->w = malloc((size_t)(n > 0 ? n : 1) * sizeof *e->w);
    if (!e->w)
        return -1;
    for (int i = 0; i < n; i++)
        e->w[i] = 1.0;
    return 0;
}

int sc_edges_add(sc_edges *e, int u, int v, double c)
{
    if (e->count == e->room) {
        size_t room = e->room ? 2 * e->room : 1024;
        int *nu = realloc(e->u, room * sizeof *nu);
        if (nu)
            e->u = nu;
        int *nv = realloc(e->v, room * sizeof *nv);
        if (nv)
            e->v = nv;
        double *nc = realloc(e->c, room * sizeof *nc);
        if (nc)
            e->c = nc;
        if (!nu || !nv || !nc)
            return -1;
        e->room = room;
    }
    e->u[e->count] = u;
    e->v[e->count] = v;
    e->c[e->count] = c;
    e->count++;
    return 0;
}

void sc_edges_free(sc_edges *e)
{
    for (int i = 0; e->names && i < e->n; i++)
        free(e->names[i]);
    free(e->names);
    free(e->u);
    free(e->v);
    free(e->c);
    free(e->w);
    memset(e, 0, sizeof *e);
}

/* Rows of (target, capacity) from arcs src->dst, duplicates merged. */
static int build_rows(int n, size_t m, const int *src, const int *dst, const double *c, int **off_out,
                      int **adj_out, double **cap_out)
{
    int *off = calloc((size_t)n + 1, sizeof *off);
    int *adj = malloc((m ? m : 1) * sizeof *adj);
    double *cap = malloc((m ? m : 1) * sizeof *cap);
    int *fill = calloc((size_t)n, sizeof *fill);
    int *last = malloc((size_t)n * sizeof *last);
    if (!off || !adj || !cap || !fill || !last) {
        free(off), free(adj), free(cap), free(fill), free(last);
        return -1;
    }
    for (size_t i = 0; i < m; i++)
        off[src[i] + 1]++;
    for (int i = 0; i < n; i++)
        off[i + 1] += off[i];
    for (size_t i = 0; i < m; i++) {
        int p = off[src[i]] + fill[src[i]]++;
        adj[p] = dst[i];
        cap[p] = c[i];
    }
    /* Merge parallel arcs row by row, compacting in place. */
    for (int i = 0; i < n; i++)
        last[i] = -1;
    int o = 0;
    for (int u = 0; u < n; u++) {
        int start = o;
        for (int p = off[u]; p < off[u + 1]; p++) {
            int v = adj[p];
            if (last[v] >= start) {
                cap[last[v]] += cap[p];
            } else {
                last[v] = o;
                adj[o] = v;
                cap[o] = cap[p];
                o++;
            }
        }
        off[u] = start;
    }
    off[n] = o;
    free(fill);
    free(last);
    *off_out = off;
    *adj_out = adj;
    *cap_out = cap;
    return 0;
}

/* The first node not reached from node 0 along out-rows, -1 when every
 * node is reached, -2 when out of memory. */
static int reach_all(int n, const int *off, const int *adj, const double *cap)
{
    unsigned char *seen = calloc((size_t)n, 1);
    int *stack = malloc((size_t)n * sizeof *stack);
    if (!seen || !stack) {
        free(seen), free(stack);
        return -2;
    }
    int top = 0;
    stack[top++] = 0;
    seen[0] = 1;
    while (top) {
        int u = stack[--top];
        for (int p = off[u]; p < off[u + 1]; p++)
            if (cap[p] > 0 && !seen[adj[p]]) {
                seen[adj[p]] = 1;
                stack[top++] = adj[p];
            }
    }
    int first_missing = -1;
    for (int v = 0; v < n && first_missing < 0; v++)
        if (!seen[v])
            first_missing = v;
    free(seen);
    free(stack);
    return first_missing;
}

int sc_graph_build(sc_graph *g, const sc_edges *e, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    int n = e->n;
    if (n < 2) {
        snprintf(err, errlen, "the graph has %d node%s: a cut needs at least 2", n, n == 1 ? "" : "s");
        return -2;
    }
    size_t m = e->directed ? e->count : 2 * e->count;
    int *src = malloc((m ? m : 1) * sizeof *src), *dst = malloc((m ? m : 1) * sizeof *dst);
    double *c = malloc((m ? m : 1) * sizeof *c);
    if (!src || !dst || !c) {
        free(src), free(dst), free(c);
        snprintf(err, errlen, "out of memory for %zu edges", m);
        return -3;
    }
    size_t j = 0;
    for (size_t i = 0; i < e->count; i++) {
        src[j] = e->u[i], dst[j] = e->v[i], c[j++] = e->c[i];
        if (!e->directed)
            src[j] = e->v[i], dst[j] = e->u[i], c[j++] = e->c[i];
    }
    g->n = n;
    g->directed = e->directed;
    int rc = build_rows(n, m, src, dst, c, &g->off, &g->adj, &g->cap);
    if (!rc && e->directed)
        rc = build_rows(n, m, dst, src, c, &g->ioff, &g->iadj, &g->icap);
    free(src), free(dst), free(c);
    g->w = malloc((size_t)n * sizeof *g->w);
    if (rc || !g->w) {
        sc_graph_free(g);
        snprintf(err, errlen, "out of memory for a %d-node graph", n);
        return -3;
    }
    if (!e->directed) {
        g->ioff = g->off;
        g->iadj = g->adj;
        g->icap = g->cap;
    }
    memcpy(g->w, e->w, (size_t)n * sizeof *g->w);
    int endpoints = 0;
    g->weights_integral = 1;
    for (int v = 0; v < n; v++) {
        g->wtotal += g->w[v];
        endpoints += g->w[v] > 0;
        if (g->w[v] != floor(g->w[v]))
            g->weights_integral = 0;
    }
    if (endpoints < 2) {
        snprintf(err, errlen, "the graph has %d node%s with endpoints (weight > 0): a cut needs at least 2", endpoints,
                 endpoints == 1 ? "" : "s");
        sc_graph_free(g);
        return -2;
    }
    int miss = reach_all(n, g->off, g->adj, g->cap);
    if (miss < 0 && e->directed)
        miss = reach_all(n, g->ioff, g->iadj, g->icap);
    if (miss == -2) {
        snprintf(err, errlen, "out of memory checking the connectivity of a %d-node graph", n);
        sc_graph_free(g);
        return -3;
    }
    if (miss >= 0) {
        snprintf(err, errlen, "the graph is not %sconnected: node %d cannot be reached from node 0 (alpha would be 0)",
                 e->directed ? "strongly " : "", miss);
        sc_graph_free(g);
        return -2;
    }
    return 0;
}

void sc_graph_free(sc_graph *g)
{
    if (g->ioff != g->off) {
        free(g->ioff);
        free(g->iadj);
        free(g->icap);
    }
    free(g->off);
    free(g->adj);
    free(g->cap);
    free(g->w);
    memset(g, 0, sizeof *g);
}

int sc_graph_from_shape(sc_graph *g, const torus_shape *s, char *err, size_t errlen)
{
    sc_edges e;
    if (sc_edges_init(&e, s->n, 0)) {
        snprintf(err, errlen, "out of memory for %d nodes", s->n);
        return -3;
    }
    long stride = 1;
    for (int d = 0; d < s->ndims; d++) {
        int k = s->k[d];
        for (int v = 0; v < s->n; v++) {
            int c = (int)((v / stride) % k);
            int up = v + (int)stride;
            if (c + 1 < k) {
                if (sc_edges_add(&e, v, up, 1.0))
                    goto oom;
            } else if (!s->mesh[d] && k >= 2) {
                /* wrap link: k - 1 back to 0 (for k = 2 the second link
                 * between the same pair) */
                if (sc_edges_add(&e, v, v - (int)stride * (k - 1), 1.0))
                    goto oom;
            }
        }
        stride *= k;
    }
    int rc = sc_graph_build(g, &e, err, errlen);
    sc_edges_free(&e);
    return rc;
oom:
    sc_edges_free(&e);
    snprintf(err, errlen, "out of memory for the links of a %d-node shape", s->n);
    return -3;
}

void sc_cut(const sc_graph *g, const unsigned char *in, double *out, double *inward, double *wS)
{
    double o = 0, i = 0, w = 0;
    for (int u = 0; u < g->n; u++) {
        if (!in[u])
            continue;
        w += g->w[u];
        for (int p = g->off[u]; p < g->off[u + 1]; p++)
            if (!in[g->adj[p]])
                o += g->cap[p];
        for (int p = g->ioff[u]; p < g->ioff[u + 1]; p++)
            if (!in[g->iadj[p]])
                i += g->icap[p];
    }
    *out = o;
    *inward = i;
    *wS = w;
}

double sc_ratio(const sc_graph *g, const unsigned char *in)
{
    double o, i, w;
    sc_cut(g, in, &o, &i, &w);
    double den = fmin(w, g->wtotal - w);
    if (den <= 0)
        return -1;
    return fmin(o, i) / den;
}

void sc_result_free(sc_result *r)
{
    free(r->set);
    r->set = NULL;
}
