/*
 * bounds.c - certified bounds on the smallest edge expansion of a general
 * graph (too large to enumerate).
 *
 * Algorithm: spectral sandwich plus combinatorial search.
 *   1. Laplacian L of the symmetric capacities (directed: min of the two
 *      directions, which never exceeds either).  Switch nodes (w = 0) are
 *      eliminated by a Schur complement (Kron reduction): for any cut, the
 *      switches' 0/1 values cost at least the harmonic minimum.
 *   2. mu_2, the second eigenvalue of W^-1/2 L_red W^-1/2 (LAPACK dsyevr,
 *      12 smallest pairs).  For S with w(S) <= W/2, x = 1_S - w(S)/W gives
 *      C(S) >= mu_2 w(S) w(S-bar) / W >= mu_2 w(S) / 2, so
 *      alpha >= mu_2 / 2 (Cheeger's easy side) - the lower bound.
 *   3. Upper bound: the best actual cut among sweeps of every computed
 *      eigenvector (each vector of a repeated eigenvalue swept separately;
 *      switches placed at their harmonic values), METIS bisections at ten
 *      balance ratios, each refined by single-node moves (refine.c).
 *   Cost: O(n^3) for the eigen-solver (4096 nodes: ~20 s with reference
 *   LAPACK), O(m log n) per sweep, METIS near-linear.
 */
#include "sparsest_cut.h"

#include <float.h>
#include <math.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK/BLAS (Fortran), with gfortran's hidden character lengths. */
extern void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a, const int *lda,
                    const double *vl, const double *vu, const int *il, const int *iu, const double *abstol, int *m,
                    double *w, double *z, const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, size_t, size_t, size_t);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info, size_t);

#define NEIG 12
#define SEEDS 8 /* METIS runs per balance ratio, each with its own seed */

/* Sweep: nodes in order of x; the best prefix set goes to best_set. */
static double sweep(const sc_graph *g, const double *x, int *order, unsigned char *tmp, unsigned char *best_set,
                    double best)
{
    int n = g->n;
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* order by x: qsort would need the keys in a file-scope pointer (not
     * reentrant), so a bottom-up merge sort of the indices */
    int *buf = malloc((size_t)n * sizeof *buf);
    if (!buf)
        return best;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                buf[o++] = x[order[b]] < x[order[a]] ? order[b++] : order[a++];
            while (a < mid)
                buf[o++] = order[a++];
            while (b < hi)
                buf[o++] = order[b++];
        }
        memcpy(order, buf, (size_t)n * sizeof *order);
    }
    free(buf);
    memset(tmp, 0, (size_t)n);
    double out = 0, in = 0, wS = 0;
    int best_len = -1;
    for (int k = 0; k < n - 1; k++) {
        int v = order[k];
        for (int p = g->off[v]; p < g->off[v + 1]; p++) {
            if (tmp[g->adj[p]])
                in -= g->cap[p];
            else
                out += g->cap[p];
        }
        for (int p = g->ioff[v]; p < g->ioff[v + 1]; p++) {
            if (tmp[g->iadj[p]])
                out -= g->icap[p];
            else
                in += g->icap[p];
        }
        tmp[v] = 1;
        wS += g->w[v];
        double den = fmin(wS, g->wtotal - wS);
        if (den <= 0)
            continue;
        double r = fmin(out, in) / den;
        if (r < best) {
            best = r;
            best_len = k + 1;
        }
    }
    if (best_len > 0) {
        memset(best_set, 0, (size_t)n);
        for (int k = 0; k < best_len; k++)
            best_set[order[k]] = 1;
    }
    return best;
}

/* Keeps cand when its (refined) ratio beats the best so far. */
static void consider(const sc_graph *g, unsigned char *cand, sc_result *r, const char *from)
{
    double q = sc_refine(g, cand, 200);
    if (q >= 0 && q < r->alpha_upper) {
        r->alpha_upper = q;
        memcpy(r->set, cand, (size_t)g->n);
        r->upper_from = from;
    }
}

/* METIS two-way partitions at several balance ratios. */
static void metis_cuts(const sc_graph *g, sc_result *r, unsigned char *cand)
{
    int n = g->n;
    idx_t *xadj = malloc(((size_t)n + 1) * sizeof *xadj);
    size_t room = (size_t)g->off[n] + (size_t)g->ioff[n];
    idx_t *adjncy = malloc((room ? room : 1) * sizeof *adjncy), *adjwgt = malloc((room ? room : 1) * sizeof *adjwgt);
    idx_t *vwgt = malloc((size_t)n * sizeof *vwgt), *part = malloc((size_t)n * sizeof *part);
    double *acc = calloc(room ? room : 1, sizeof *acc);
    int *slot = malloc((size_t)n * sizeof *slot);
    if (!xadj || !adjncy || !adjwgt || !vwgt || !part || !acc || !slot)
        goto out;
    double cmin = INFINITY, wmin = INFINITY;
    for (int p = 0; p < g->off[n]; p++)
        cmin = fmin(cmin, g->cap[p]);
    for (int v = 0; v < n; v++)
        if (g->w[v] > 0)
            wmin = fmin(wmin, g->w[v]);
    /* symmetric structure: union of out- and in-neighbours, capacity summed */
    for (int v = 0; v < n; v++)
        slot[v] = -1;
    idx_t e = 0;
    for (int v = 0; v < n; v++) {
        xadj[v] = e;
        idx_t start = e;
        for (int pass = 0; pass < (g->directed ? 2 : 1); pass++) {
            const int *o = pass ? g->ioff : g->off, *a = pass ? g->iadj : g->adj;
            const double *c = pass ? g->icap : g->cap;
            for (int p = o[v]; p < o[v + 1]; p++) {
                int u = a[p];
                if (slot[u] < start) {
                    slot[u] = (int)e;
                    adjncy[e] = u;
                    acc[e] = 0;
                    e++;
                }
                acc[slot[u]] += c[p];
            }
        }
        for (idx_t q = start; q < e; q++) {
            double s = llround(acc[q] / cmin * 100.0);
            adjwgt[q] = (idx_t)(s < 1 ? 1 : s > 1e6 ? 1e6 : s);
        }
    }
    xadj[n] = e;
    for (int v = 0; v < n; v++) {
        double s = g->w[v] > 0 ? llround(g->w[v] / wmin * 10.0) : 0;
        vwgt[v] = (idx_t)(s > 1e6 ? 1e6 : s);
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 7;
    options[METIS_OPTION_NUMBERING] = 0;
    static const double ratios[] = {0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05};
    const int nr = (int)(sizeof ratios / sizeof *ratios);
    for (int run = 0; run < nr * SEEDS; run++) {
        int k = run % nr;
        options[METIS_OPTION_SEED] = 7 + run / nr;
        idx_t nv = n, ncon = 1, nparts = 2, objval;
        real_t tp[2] = {(real_t)ratios[k], (real_t)(1 - ratios[k])};
        if (METIS_PartGraphRecursive(&nv, &ncon, xadj, adjncy, vwgt, NULL, adjwgt, &nparts, tp, NULL, options, &objval,
                                     part) != METIS_OK)
            continue;
        for (int v = 0; v < n; v++)
            cand[v] = part[v] == 0;
        if (k == 0 && g->weights_integral) {
            double o, i, w;
            sc_cut(g, cand, &o, &i, &w);
            if (fmin(w, g->wtotal - w) == floor(g->wtotal / 2) && (r->bisection < 0 || fmin(o, i) < r->bisection))
                r->bisection = fmin(o, i);
        }
        consider(g, cand, r, "metis");
    }
out:
    free(xadj), free(adjncy), free(adjwgt), free(vwgt), free(part), free(acc), free(slot);
}

/* The spectral step's matrices, filled in turn by the steps below. */
typedef struct spectral {
    int n, ne, nz;    /* nodes, endpoints (w > 0), switches (w = 0) */
    int *eidx, *zidx; /* the endpoints' and the switches' node numbers */
    double *A;        /* n x n: the symmetric capacities, then -L */
    double *M;        /* ne x ne, column-major: the reduced, normalised Laplacian */
    double *X;        /* nz x ne: L_ZZ^-1 L_ZE (the switches' harmonic values) */
    double norm;      /* M's 1-norm, the scale of the eigenvalues' error */
    int got;          /* eigenpairs computed */
    double *evals;    /* ne: dsyevr's W is n long (its workspace too), not got */
    double *z;        /* ne x got: their vectors */
} spectral;

static void spectral_free(spectral *sp)
{
    free(sp->eidx), free(sp->zidx), free(sp->A), free(sp->M), free(sp->X), free(sp->evals), free(sp->z);
}

/* Step 1: endpoints and switches apart, and A = -L of the symmetric
 * capacities (directed: the min of the two directions).  -1: out of memory. */
static int laplacian(const sc_graph *g, spectral *sp)
{
    int n = g->n;
    sp->n = n;
    sp->eidx = malloc((size_t)n * sizeof *sp->eidx);
    sp->zidx = malloc((size_t)n * sizeof *sp->zidx);
    if (!sp->eidx || !sp->zidx)
        return -1;
    for (int v = 0; v < n; v++) {
        if (g->w[v] > 0)
            sp->eidx[sp->ne++] = v;
        else
            sp->zidx[sp->nz++] = v;
    }
    double *A = sp->A = calloc((size_t)n * (size_t)n, sizeof *A);
    if (!A)
        return -1;
    for (int v = 0; v < n; v++)
        for (int p = g->off[v]; p < g->off[v + 1]; p++)
            A[(size_t)v * n + g->adj[p]] += g->cap[p];
    if (g->directed)
        for (int v = 0; v < n; v++)
            for (int u = v + 1; u < n; u++) {
                double c = fmin(A[(size_t)v * n + u], A[(size_t)u * n + v]);
                A[(size_t)v * n + u] = A[(size_t)u * n + v] = c;
            }
    for (int v = 0; v < n; v++) {
        double deg = 0;
        for (int u = 0; u < n; u++)
            deg += A[(size_t)v * n + u];
        A[(size_t)v * n + v] = -deg; /* A becomes -L */
    }
    return 0;
}

/* Step 2: M = L_EE - L_EZ L_ZZ^-1 L_ZE (Kron reduction: the switches
 * eliminated), X = L_ZZ^-1 L_ZE.  *ok = 0 when L_ZZ is singular (a switch
 * group with no symmetric path to an endpoint): no spectral bound then.
 * -1: out of memory. */
static int reduce_switches(spectral *sp, int *ok)
{
    int n = sp->n, ne = sp->ne, nz = sp->nz;
    const int *eidx = sp->eidx, *zidx = sp->zidx;
    const double *A = sp->A;
    double *M = sp->M = calloc((size_t)ne * (size_t)ne, sizeof *M);
    if (!M)
        return -1;
    for (int j = 0; j < ne; j++)
        for (int i = 0; i < ne; i++)
            M[(size_t)j * ne + i] = -A[(size_t)eidx[i] * n + eidx[j]];
    *ok = 1;
    if (nz == 0)
        return 0;
    double *Lzz = malloc((size_t)nz * (size_t)nz * sizeof *Lzz);
    double *X = sp->X = malloc((size_t)nz * (size_t)ne * sizeof *X);
    if (!Lzz || !X) {
        free(Lzz);
        return -1;
    }
    for (int j = 0; j < nz; j++)
        for (int i = 0; i < nz; i++)
            Lzz[(size_t)j * nz + i] = -A[(size_t)zidx[i] * n + zidx[j]];
    for (int j = 0; j < ne; j++)
        for (int i = 0; i < nz; i++)
            X[(size_t)j * nz + i] = -A[(size_t)zidx[i] * n + eidx[j]]; /* L_ZE */
    int info;
    dpotrf_("L", &nz, Lzz, &nz, &info, 1);
    if (!info)
        dpotrs_("L", &nz, &ne, Lzz, &nz, X, &nz, &info, 1); /* X = L_ZZ^-1 L_ZE */
    free(Lzz);
    if (info) {
        *ok = 0;
        return 0;
    }
    /* M -= L_EZ X, with L_EZ = L_ZE^T */
    for (int j = 0; j < ne; j++)
        for (int i = 0; i < ne; i++) {
            double s = 0;
            const double *col = X + (size_t)j * nz;
            for (int k = 0; k < nz; k++)
                s += -A[(size_t)eidx[i] * n + zidx[k]] * col[k];
            M[(size_t)j * ne + i] -= s;
        }
    return 0;
}

/* Step 3: M = W^-1/2 M W^-1/2, and its 1-norm. */
static void normalise(const sc_graph *g, spectral *sp)
{
    int ne = sp->ne;
    double norm = 0;
    for (int j = 0; j < ne; j++) {
        double s = 0;
        for (int i = 0; i < ne; i++) {
            sp->M[(size_t)j * ne + i] /= sqrt(g->w[sp->eidx[i]] * g->w[sp->eidx[j]]);
            s += fabs(sp->M[(size_t)j * ne + i]);
        }
        norm = fmax(norm, s);
    }
    sp->norm = norm;
}

/* Step 4: M's NEIG smallest eigenpairs (LAPACK dsyevr, which overwrites
 * M); sp->got = 0 when it fails.  -1: out of memory. */
static int eigenpairs(spectral *sp)
{
    int ne = sp->ne, neig = ne < NEIG ? ne : NEIG;
    sp->z = malloc((size_t)ne * (size_t)neig * sizeof *sp->z);
    sp->evals = malloc(((size_t)ne + 1) * sizeof *sp->evals);
    int *isuppz = malloc(2 * (size_t)neig * sizeof *isuppz);
    double *work = NULL;
    int *iwork = NULL, rc = -1;
    if (!sp->z || !sp->evals || !isuppz)
        goto out;
    int il = 1, iu = neig, info, lwork = -1, liwork = -1, iw;
    double vl = 0, vu = 0, abstol = 0, wq;
    dsyevr_("V", "I", "L", &ne, sp->M, &ne, &vl, &vu, &il, &iu, &abstol, &sp->got, sp->evals, sp->z, &ne, isuppz,
            &wq, &lwork, &iw, &liwork, &info, 1, 1, 1);
    lwork = (int)wq;
    liwork = iw;
    work = malloc((size_t)lwork * sizeof *work);
    iwork = malloc((size_t)liwork * sizeof *iwork);
    if (!work || !iwork)
        goto out;
    dsyevr_("V", "I", "L", &ne, sp->M, &ne, &vl, &vu, &il, &iu, &abstol, &sp->got, sp->evals, sp->z, &ne, isuppz,
            work, &lwork, iwork, &liwork, &info, 1, 1, 1);
    if (info)
        sp->got = 0;
    rc = 0;
out:
    free(isuppz), free(work), free(iwork);
    return rc;
}

/* Step 5: the lower bound mu_2 / 2, and a sweep of every eigenvector
 * after the first (switches at their harmonic values) for the upper
 * bound.  -1: out of memory. */
static int spectral_cuts(const sc_graph *g, const spectral *sp, sc_result *r, unsigned char *cand)
{
    if (sp->got < 2)
        return 0;
    int n = g->n, ne = sp->ne, nz = sp->nz;
    double *x = malloc((size_t)n * sizeof *x);
    int *order = malloc((size_t)n * sizeof *order);
    unsigned char *tmp = malloc((size_t)n);
    int rc = -1;
    if (!x || !order || !tmp)
        goto out;
    /* eigenvalues carry an error of a few ulps of the norm */
    double tol = 1e-12 * (sp->norm > 1 ? sp->norm : 1) * ne;
    r->lambda2 = sp->evals[1];
    r->alpha_lower = fmax(0.0, sp->evals[1] - tol) / 2;
    for (int k = 1; k < sp->got; k++) {
        for (int i = 0; i < ne; i++)
            x[sp->eidx[i]] = sp->z[(size_t)k * ne + i] / sqrt(g->w[sp->eidx[i]]);
        for (int i = 0; i < nz; i++) {
            double s = 0;
            for (int j = 0; j < ne; j++)
                s += sp->X[(size_t)j * nz + i] * x[sp->eidx[j]];
            x[sp->zidx[i]] = -s;
        }
        double q = sweep(g, x, order, tmp, cand, INFINITY);
        if (q < INFINITY)
            consider(g, cand, r, "spectral-sweep");
    }
    rc = 0;
out:
    free(x), free(order), free(tmp);
    return rc;
}

int sc_bounds(const sc_graph *g, sc_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int n = g->n;
    if (n > SC_BOUNDS_MAX) {
        snprintf(err, errlen, "bounds for %d nodes refused: the dense eigen-solver handles at most %d", n,
                 SC_BOUNDS_MAX);
        return -2;
    }
    r->method = "bounds";
    r->n = n;
    r->wtotal = g->wtotal;
    r->alpha_upper = INFINITY;
    r->bisection = -1;
    r->bisection_method = "none";
    spectral sp = {0};
    unsigned char *cand = malloc((size_t)n);
    r->set = calloc((size_t)n, 1);
    int rc = 0, ok = 0;
    if (!cand || !r->set || laplacian(g, &sp) || reduce_switches(&sp, &ok))
        goto oom;
    free(sp.A);
    sp.A = NULL;
    normalise(g, &sp);
    if (ok && eigenpairs(&sp))
        goto oom;
    free(sp.M);
    sp.M = NULL;
    if (spectral_cuts(g, &sp, r, cand))
        goto oom;
    metis_cuts(g, r, cand);
    if (r->alpha_upper == INFINITY) {
        snprintf(err, errlen, "no cut found (neither the eigen-solver nor METIS produced one)");
        rc = -3;
        goto out;
    }
    if (r->alpha_lower > r->alpha_upper)
        r->alpha_lower = r->alpha_upper;
    r->alpha = r->alpha_upper;
    if (g->weights_integral) {
        r->bisection_lower = r->alpha_lower * floor(g->wtotal / 2);
        if (r->bisection >= 0)
            r->bisection_method = "upper-bound";
    }
    goto out;
oom:
    snprintf(err, errlen, "out of memory for the bounds of a %d-node graph (dense %d x %d matrices)", n, n, n);
    rc = -3;
out:
    free(cand);
    spectral_free(&sp);
    if (rc)
        sc_result_free(r);
    return rc;
}
