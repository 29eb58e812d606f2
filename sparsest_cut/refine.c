/*
 * refine.c - moving single nodes across a cut while its ratio drops.
 *
 * Algorithm: greedy local search (a Kernighan-Lin/Fiduccia-Mattheyses pass
 *   without the uphill moves).  For every node, the cut after moving it is
 *   computed from its own links; a move is kept when the ratio
 *   C(S)/min(w(S), W - w(S)) strictly drops.  Passes repeat until none
 *   helps.  Cost: O(passes * links).  Only ever improves an upper bound.
 */
#include "sparsest_cut.h"

#include <math.h>

/* The cut after moving v to the other side (both directions, w(S)). */
static void moved(const sc_graph *g, const unsigned char *in, int v, double *out, double *inw, double *wS)
{
    double s = in[v] ? -1.0 : 1.0; /* +1: v joins S */
    for (int p = g->off[v]; p < g->off[v + 1]; p++) {
        if (in[g->adj[p]])
            *inw -= s * g->cap[p];
        else
            *out += s * g->cap[p];
    }
    for (int p = g->ioff[v]; p < g->ioff[v + 1]; p++) {
        if (in[g->iadj[p]])
            *out -= s * g->icap[p];
        else
            *inw += s * g->icap[p];
    }
    *wS += s * g->w[v];
}

double sc_refine(const sc_graph *g, unsigned char *in, int max_passes)
{
    double out, inw, wS;
    sc_cut(g, in, &out, &inw, &wS);
    double den = fmin(wS, g->wtotal - wS);
    double best = den > 0 ? fmin(out, inw) / den : INFINITY;
    for (int pass = 0; pass < max_passes; pass++) {
        int improved = 0;
        for (int v = 0; v < g->n; v++) {
            double o = out, i = inw, w = wS;
            moved(g, in, v, &o, &i, &w);
            double d = fmin(w, g->wtotal - w);
            if (d <= 0)
                continue;
            double r = fmin(o, i) / d;
            if (r < best * (1 - 1e-12)) {
                in[v] = !in[v];
                out = o, inw = i, wS = w, best = r;
                improved = 1;
            }
        }
        if (!improved)
            break;
    }
    return sc_ratio(g, in);
}
