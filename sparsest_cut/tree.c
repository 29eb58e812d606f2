/*
 * tree.c - is a fabric a tree of switches, and how regular is it?  The
 * question a centre asks of its real machine before trusting a
 * fattree:K,N,T figure: how many levels, what taper at each, and which
 * leaves have fewer or slower uplinks, which hosts a slower cable.
 *
 * Algorithm: hosts (w > 0) are level 0; a breadth-first search from all
 * of them gives each switch its distance to the nearest host, its level.
 * Switches and routers on a single port (w = 0, one neighbour) are set
 * aside first as attached: a gateway hanging off a spine is no level.
 * The fabric is a tree when every other link joins adjacent levels (no
 * cable between two leaves, none from a host to a spine).  Per level L:
 * capacity down (to L - 1) and up (to L + 1), taper = down / up (the
 * fattree:K,N,T grammar's T); a switch is irregular when its up capacity
 * is below its level's largest, a host when its link is below the
 * largest host link.  Cost: O(n + m).
 */
#include "sparsest_cut.h"

#include <stdlib.h>
#include <string.h>

/* Distinct neighbours of v, up to 2 (enough to tell a pendant). */
static int neighbours(const sc_graph *g, int v)
{
    int first = -1;
    for (int p = g->off[v]; p < g->off[v + 1]; p++) {
        if (first >= 0 && g->adj[p] != first)
            return 2;
        first = g->adj[p];
    }
    return first >= 0;
}

/* Levels by breadth-first search from the hosts; attached nodes -2. */
static void levels(const sc_graph *g, int *level, int *queue)
{
    int head = 0, tail = 0;
    for (int v = 0; v < g->n; v++) {
        level[v] = g->w[v] > 0 ? 0 : neighbours(g, v) <= 1 ? -2 : -1;
        if (!level[v])
            queue[tail++] = v;
    }
    while (head < tail) {
        int v = queue[head++];
        for (int p = g->off[v]; p < g->off[v + 1]; p++)
            if (level[g->adj[p]] == -1) {
                level[g->adj[p]] = level[v] + 1;
                queue[tail++] = g->adj[p];
            }
    }
}

/* Per switch: its capacity up; then who falls short of the level's most. */
static void irregular(const sc_graph *g, const int *level, sc_tree *t)
{
    double up_max[SC_TREE_MAX_LEVELS + 1] = {0}, host_max = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int v = 0; v < g->n; v++) {
            int L = level[v];
            if (L < 0 || (L >= t->levels && L > 0))
                continue;
            double up = 0;
            for (int p = g->off[v]; p < g->off[v + 1]; p++)
                up += level[g->adj[p]] == L + 1 ? g->cap[p] : 0;
            double *max = L ? &up_max[L] : &host_max;
            if (!pass) {
                *max = up > *max ? up : *max;
                continue;
            }
            if (up >= *max * (1 - 1e-12))
                continue;
            long *count = L ? &t->irregular : &t->slow_hosts;
            int *shown = L ? &t->nirr : &t->nslow;
            if (*shown < SC_TREE_MAX_SHOWN) {
                (L ? t->irr : t->slow)[*shown].node = v;
                (L ? t->irr : t->slow)[*shown].level = L;
                (L ? t->irr : t->slow)[*shown].cap = up;
                (L ? t->irr : t->slow)[*shown].cap_max = *max;
                (*shown)++;
            }
            (*count)++;
        }
}

int sc_tree_recognise(const sc_graph *g, sc_tree *t)
{
    memset(t, 0, sizeof *t);
    int *level = malloc((size_t)g->n * sizeof *level), *queue = malloc((size_t)g->n * sizeof *queue);
    if (!level || !queue) {
        free(level), free(queue);
        return -3;
    }
    levels(g, level, queue);
    t->is_tree = !g->directed;
    if (g->directed)
        snprintf(t->why_not, sizeof t->why_not, "directed links");
    for (int v = 0; v < g->n; v++) {
        int L = level[v];
        t->hosts += L == 0;
        t->attached += L == -2;
        if (L > t->levels)
            t->levels = L;
        if (L > SC_TREE_MAX_LEVELS && t->is_tree) {
            t->is_tree = 0;
            snprintf(t->why_not, sizeof t->why_not, "more than %d switch levels", SC_TREE_MAX_LEVELS);
        }
        for (int p = g->off[v]; p < g->off[v + 1] && t->is_tree; p++) {
            int M = level[g->adj[p]];
            if (L < 0 || M < 0 || L - M == 1 || M - L == 1)
                continue;
            t->is_tree = 0;
            snprintf(t->why_not, sizeof t->why_not, "a link joins nodes %d and %d, both at level %d", v, g->adj[p],
                     L);
        }
    }
    if (t->is_tree) {
        for (int v = 0; v < g->n; v++) {
            int L = level[v];
            if (L <= 0)
                continue;
            t->switches[L]++;
            for (int p = g->off[v]; p < g->off[v + 1]; p++) {
                int M = level[g->adj[p]];
                t->down[L] += M == L - 1 ? g->cap[p] : 0;
                t->up[L] += M == L + 1 ? g->cap[p] : 0;
            }
        }
        irregular(g, level, t);
    } else {
        t->levels = 0;
    }
    free(level), free(queue);
    return 0;
}

void sc_tree_print(FILE *f, const sc_tree *t, char *const *names)
{
    fprintf(f, "tree: %s\n", t->is_tree ? "yes" : "no");
    if (!t->is_tree) {
        fprintf(f, "tree_why_not: %s\n", t->why_not);
        return;
    }
    fprintf(f, "tree_levels: %d\ntree_hosts: %ld\ntree_attached: %ld\ntree_switches:", t->levels, t->hosts,
            t->attached);
    for (int L = 1; L <= t->levels; L++)
        fprintf(f, "%s%ld", L > 1 ? "," : " ", t->switches[L]);
    /* taper per level below the top: capacity down / up, as fattree:K,N,T's T */
    fprintf(f, "\ntree_taper:");
    for (int L = 1; L < t->levels; L++)
        fprintf(f, "%s%.6g", L > 1 ? "," : " ", t->up[L] > 0 ? t->down[L] / t->up[L] : 0);
    fprintf(f, "%s\ntree_irregular_switches: %ld\n", t->levels > 1 ? "" : " none", t->irregular);
    char id[32];
    for (int i = 0; i < t->nirr; i++) {
        snprintf(id, sizeof id, "%d", t->irr[i].node);
        fprintf(f, "tree_irregular_%d: %s level %d up %.6g of %.6g\n", i + 1, names ? names[t->irr[i].node] : id,
                t->irr[i].level, t->irr[i].cap, t->irr[i].cap_max);
    }
    fprintf(f, "tree_slow_host_links: %ld\n", t->slow_hosts);
    for (int i = 0; i < t->nslow; i++) {
        snprintf(id, sizeof id, "%d", t->slow[i].node);
        fprintf(f, "tree_slow_host_%d: %s %.6g of %.6g\n", i + 1, names ? names[t->slow[i].node] : id,
                t->slow[i].cap, t->slow[i].cap_max);
    }
}
