/*
 * graph_io.c - reading networks for sparsest_cut: our plain-text edge list
 * and the METIS graph format (so users can cross-check with gpmetis).
 * Every parse error names the file, the line and what is allowed.
 *
 * Edge list (one item per line, '#' starts a comment):
 *   nodes N          node count (optional: else the largest id + 1)
 *   directed         links are one-way (default: undirected)
 *   weight V W       node V carries W endpoints (default 1; 0 = a switch)
 *   U V [CAP]        a link of capacity CAP (default 1, in link units);
 *                    repeated links add up
 */
#include "fabric.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_id(const char *t, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(t, &end, 10);
    return end != t && !*end && !errno;
}

static int parse_num(const char *t, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(t, &end);
    /* underflow (ERANGE, tiny) is a usable number; overflow is inf */
    return end != t && !*end && isfinite(*v);
}

#define ESC(t) sc__esc((t), esc_, sizeof esc_)

/* Splits a line into at most `max` whitespace-separated tokens. */
static int tokens(char *line, char **tok, int max)
{
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
        if (n == max)
            return max + 1;
        tok[n++] = p;
    }
    return n;
}

#define FAIL SC_FAIL

typedef struct pending_edge {
    long u, v;
    double c;
    long line; /* for the message when an id is checked at the end */
} pending_edge;

/* Appends to a growing array of pending items; -1 when out of memory. */
static int push(pending_edge **arr, size_t *cnt, size_t *room, pending_edge it)
{
    if (*cnt == *room) {
        size_t r2 = *room ? 2 * *room : 256;
        pending_edge *na = realloc(*arr, r2 * sizeof *na);
        if (!na)
            return -1;
        *arr = na;
        *room = r2;
    }
    (*arr)[(*cnt)++] = it;
    return 0;
}

static int read_edgelist(kit_lines *Lp, long max_nodes, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L = *Lp; /* FAIL reads L by name */
    char esc_[300], esc2[300];
    char *line;
    long nodes = -1, maxid = -1;
    int directed = 0, rc = 0, got;
    size_t ne = 0, room = 0, nw = 0, wroom = 0;
    pending_edge *edges = NULL, *weights = NULL;
    while ((got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *tok[4];
        int nt = tokens(line, tok, 3);
        if (nt == 0)
            continue;
        if (nt > 3)
            FAIL("too many fields: allowed 'U V [CAP]', 'nodes N', 'weight V W' or 'directed'");
        if (!strcmp(tok[0], "directed")) {
            if (nt != 1)
                FAIL("'directed' takes no value");
            if (ne)
                FAIL("'directed' must come before the first link");
            directed = 1;
            continue;
        }
        if (!strcmp(tok[0], "nodes")) {
            long n;
            if (nt != 2 || !parse_id(tok[1], &n) || n < 2 || n > max_nodes)
                FAIL("'nodes' needs a count in 2..%ld", max_nodes);
            if (nodes >= 0)
                FAIL("'nodes' given twice");
            nodes = n;
            continue;
        }
        long u, v;
        double c = 1.0;
        int is_weight = !strcmp(tok[0], "weight");
        if (is_weight) {
            if (nt != 3 || !parse_id(tok[1], &u) || !parse_num(tok[2], &c))
                FAIL("malformed weight: allowed 'weight V W' with a node id and a number >= 0");
            if (c < 0)
                FAIL("negative node weight %s: allowed >= 0 (0 = a switch with no endpoint)", ESC(tok[2]));
            if (c > 0 && !(c >= SC_NUM_MIN && c <= SC_NUM_MAX))
                FAIL("node weight %s out of range: allowed 0 or 1e-30..1e30", ESC(tok[2]));
            v = u;
        } else {
            if (nt < 2 || !parse_id(tok[0], &u) || !parse_id(tok[1], &v)) {
                kit_cli_escape(nt > 1 ? tok[1] : "", esc2, sizeof esc2);
                FAIL("malformed link '%s%s%s': allowed 'U V [CAP]' with node ids >= 0", ESC(tok[0]), nt > 1 ? " " : "",
                     esc2);
            }
            if (nt == 3 && !parse_num(tok[2], &c))
                FAIL("malformed capacity '%s': allowed a number > 0", ESC(tok[2]));
            if (c <= 0)
                FAIL("capacity %s of link %ld-%ld is not positive: allowed a number > 0", ESC(tok[2]), u, v);
            if (!(c >= SC_NUM_MIN && c <= SC_NUM_MAX))
                FAIL("capacity %s of link %ld-%ld out of range: allowed 1e-30..1e30", ESC(tok[2]), u, v);
            if (u == v)
                FAIL("self-loop %ld-%ld carries nothing across a cut: remove it", u, v);
        }
        if (u < 0 || v < 0 || u >= max_nodes || v >= max_nodes)
            FAIL("node id %ld out of range: allowed 0..%ld", u < 0 || u >= max_nodes ? u : v, max_nodes - 1);
        if (nodes >= 0 && (u >= nodes || v >= nodes))
            FAIL("node id %ld out of range: 'nodes %ld' allows 0..%ld", u >= nodes ? u : v, nodes, nodes - 1);
        if (!is_weight && ne >= (size_t)SC_FILE_MAX_LINKS)
            FAIL("more than %ld links: allowed at most %ld", SC_FILE_MAX_LINKS, SC_FILE_MAX_LINKS);
        if (u > maxid)
            maxid = u;
        if (v > maxid)
            maxid = v;
        if (is_weight ? push(&weights, &nw, &wroom, (pending_edge){u, v, c, L.lineno})
                      : push(&edges, &ne, &room, (pending_edge){u, v, c, L.lineno})) {
            snprintf(err, errlen, "%s:%ld: out of memory", L.name, L.lineno);
            rc = -3;
            goto out;
        }
    }
    if (got < 0) {
        rc = got;
        goto out;
    }
    if (ne == 0) {
        snprintf(err, errlen, "%s: no links found: allowed lines 'U V [CAP]'", L.name);
        rc = -2;
        goto out;
    }
    long n = nodes >= 0 ? nodes : maxid + 1;
    /* A 'nodes N' line may come after links and weights: every id read
     * before it is checked against it here, before it indexes anything. */
    for (int pass = 0; pass < 2; pass++) {
        const pending_edge *a = pass ? weights : edges;
        size_t cnt = pass ? nw : ne;
        for (size_t i = 0; i < cnt; i++)
            if (a[i].u >= n || a[i].v >= n) {
                snprintf(err, errlen, "%s:%ld: node id %ld out of range: 'nodes %ld' allows 0..%ld", L.name, a[i].line,
                         a[i].u >= n ? a[i].u : a[i].v, n, n - 1);
                rc = -2;
                goto out;
            }
    }
    if (sc_edges_init(e, (int)n, directed)) {
        snprintf(err, errlen, "out of memory reading '%s'", L.name);
        rc = -3;
        goto out;
    }
    for (size_t i = 0; i < nw; i++)
        e->w[weights[i].u] = weights[i].c;
    for (size_t i = 0; i < ne; i++)
        if (sc_edges_add(e, (int)edges[i].u, (int)edges[i].v, edges[i].c)) {
            sc_edges_free(e);
            snprintf(err, errlen, "out of memory reading '%s'", L.name);
            rc = -3;
            goto out;
        }
out:
    free(edges);
    free(weights);
    *Lp = L;
    return rc;
}


/* A reader over a stream the caller owns (the fuzzers' buffers). */
int sc__read_stream(sc__reader read, size_t line_max, FILE *f, const char *name, long max_nodes, sc_edges *e,
                    char *err, size_t errlen)
{
    kit_lines L;
    kit_lines_stream(&L, f, name, line_max, SC_FILE_MAX_BYTES);
    int rc = read(&L, max_nodes, e, err, errlen);
    kit_lines_close(&L);
    return rc;
}

/* A reader over a file, with the kit's node limit. */
int sc__read_path(sc__reader read, size_t line_max, const char *path, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L;
    char e2[400];
    if (kit_lines_open(&L, path, line_max, SC_FILE_MAX_BYTES, e2, sizeof e2)) {
        snprintf(err, errlen, "cannot open graph file '%s': %s", L.name, L.why);
        return -2;
    }
    int rc = read(&L, SC_FILE_MAX_NODES, e, err, errlen);
    kit_lines_close(&L);
    return rc;
}

SC_READER_ENTRIES(edgelist, read_edgelist, SC_LINE_MAX)

/* A METIS number: a whole number in [lo, hi], or -1 (no cast of an
 * unchecked double: NaN, inf and 1e300 are refused before). */
static int whole_in(double v, long lo, long hi, long *out)
{
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return -1;
    *out = (long)v;
    return 0;
}

static int cmp_pending(const void *a, const void *b)
{
    const pending_edge *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

/* METIS lists every edge at both ends with one weight: the entries made at
 * the lower id must be those made at the higher, as multisets (a file
 * listing 1-2 twice at vertex 1 and never at 2 has the right count but
 * one edge of double weight).  0, or -2 with the first unmatched entry. */
static int metis_symmetric(const char *name, pending_edge *fwd, size_t nfwd, pending_edge *bwd, size_t nbwd,
                           char *err, size_t errlen)
{
    /* an empty list may be a null pointer, which qsort must not be given */
    if (nfwd)
        qsort(fwd, nfwd, sizeof *fwd, cmp_pending);
    if (nbwd)
        qsort(bwd, nbwd, sizeof *bwd, cmp_pending);
    for (size_t i = 0; i < nfwd || i < nbwd; i++) {
        if (i < nfwd && i < nbwd && !cmp_pending(&fwd[i], &bwd[i]))
            continue;
        /* the smaller of the two is the entry its other end lacks */
        int f = i < nfwd && (i >= nbwd || cmp_pending(&fwd[i], &bwd[i]) < 0);
        const pending_edge *x = f ? &fwd[i] : &bwd[i];
        snprintf(err, errlen,
                 "%s:%ld: vertex %ld lists %ld (edge weight %g) but vertex %ld does not list %ld back with that "
                 "weight: each edge must appear in both vertices' lists",
                 name, x->line, (f ? x->u : x->v) + 1, (f ? x->v : x->u) + 1, x->c, (f ? x->v : x->u) + 1,
                 (f ? x->u : x->v) + 1);
        return -2;
    }
    return 0;
}

/* The METIS header line "n m [fmt [ncon]]": 1 with the counts and fmt's
 * three flags set, 0 for a blank line (no header yet), -2 with one line. */
static int metis_header(const kit_lines *Lp, char *line, long max_nodes, long *np, long *mp, int *has_size,
                        int *has_vw, int *has_ew, char *err, size_t errlen)
{
    const kit_lines L = *Lp; /* FAIL names L */
    char esc_[300];
    char *tok[5];
    int nt = tokens(line, tok, 4), rc = 1;
    long n, m, fmt = 0, ncon = 1;
    if (nt == 0)
        return 0;
    if (nt < 2 || nt > 4 || !parse_id(tok[0], &n) || !parse_id(tok[1], &m) || (nt > 2 && !parse_id(tok[2], &fmt)) ||
        (nt > 3 && !parse_id(tok[3], &ncon)))
        FAIL("malformed METIS header: allowed 'n m [fmt [ncon]]'");
    if (n < 2 || n > max_nodes)
        FAIL("METIS header: %ld vertices, allowed 2..%ld", n, max_nodes);
    if (m < 1 || m > SC_FILE_MAX_LINKS)
        FAIL("METIS header: %ld edges, allowed 1..%ld", m, SC_FILE_MAX_LINKS);
    if (fmt < 0 || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1 || fmt / 100 > 1)
        FAIL("METIS fmt '%s' invalid: allowed 0, 1, 10, 11, 100, 101, 110, 111", ESC(tok[2]));
    if (ncon != 1)
        FAIL("METIS ncon %ld unsupported: allowed 1 (one weight = endpoints per vertex)", ncon);
    *np = n, *mp = m;
    *has_size = fmt / 100 == 1;
    *has_vw = fmt / 10 % 10 == 1;
    *has_ew = fmt % 10 == 1;
out:
    return rc;
}

/* METIS: "%" comments; header "n m [fmt [ncon]]"; line i lists vertex i's
 * [size] [weight] then neighbours (1-based) each with [edge weight].  fmt's
 * digits: vertex sizes, vertex weights, edge weights.  Every edge appears
 * in both endpoints' lists. */
static int read_metis(kit_lines *Lp, long max_nodes, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L = *Lp;
    char esc_[300];
    char *line;
    long n = -1, m = 0, vtx = 0, entries = 0;
    int has_size = 0, has_vw = 0, has_ew = 0, rc = 0, have_e = 0, got;
    double *nums = NULL;
    size_t nums_room = 0;
    /* the entries listed at the lower id (fwd) and at the higher (bwd) */
    pending_edge *fwd = NULL, *bwd = NULL;
    size_t nfwd = 0, rfwd = 0, nbwd = 0, rbwd = 0;
    while ((got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        if (line[0] == '%')
            continue;
        char *p = line, *end;
        if (n < 0) {
            int h = metis_header(&L, line, max_nodes, &n, &m, &has_size, &has_vw, &has_ew, err, errlen);
            if (h < 0) {
                rc = h;
                goto out;
            }
            if (h == 0)
                continue; /* a blank line before the header */
            if (sc_edges_init(e, (int)n, 0)) {
                snprintf(err, errlen, "out of memory reading '%s'", L.name);
                rc = -3;
                goto out;
            }
            have_e = 1;
            continue;
        }
        if (vtx >= n) {
            char *q = line;
            while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
                q++;
            if (!*q)
                continue;
            FAIL("more vertex lines than the %ld the header declares", n);
        }
        long u = vtx++;
        /* All numbers of the line first, then read them by position. */
        size_t cnt = 0;
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++;
            if (!*p)
                break;
            double val = strtod(p, &end);
            if (end == p) {
                char near[16];
                snprintf(near, sizeof near, "%.12s", p);
                FAIL("vertex %ld: malformed number near '%s'", u + 1, ESC(near));
            }
            if (!isfinite(val))
                FAIL("vertex %ld: number out of range: allowed finite numbers", u + 1);
            p = end;
            if (cnt == nums_room) {
                nums_room = nums_room ? 2 * nums_room : 64;
                double *nn = realloc(nums, nums_room * sizeof *nn);
                if (!nn) {
                    snprintf(err, errlen, "out of memory reading '%s'", L.name);
                    rc = -3;
                    goto out;
                }
                nums = nn;
            }
            nums[cnt++] = val;
        }
        size_t at = (size_t)has_size;
        if (at > cnt)
            FAIL("vertex %ld: no vertex size (fmt says vertex sizes)", u + 1);
        if (has_vw) {
            if (at >= cnt)
                FAIL("vertex %ld: no vertex weight (fmt says vertex weights)", u + 1);
            if (nums[at] < 0)
                FAIL("vertex %ld: negative weight %g, allowed >= 0", u + 1, nums[at]);
            if (nums[at] > 0 && !(nums[at] >= SC_NUM_MIN && nums[at] <= SC_NUM_MAX))
                FAIL("vertex %ld: weight %g out of range: allowed 0 or 1e-30..1e30", u + 1, nums[at]);
            e->w[u] = nums[at++];
        }
        size_t step = has_ew ? 2 : 1;
        if ((cnt - at) % step)
            FAIL("vertex %ld: neighbour without an edge weight (fmt says edge weights)", u + 1);
        for (; at < cnt; at += step) {
            double val = nums[at];
            long v;
            if (whole_in(val, 1, n, &v))
                FAIL("vertex %ld: neighbour %g out of range: allowed 1..%ld", u + 1, val, n);
            double c = has_ew ? nums[at + 1] : 1.0;
            if (!(c > 0))
                FAIL("vertex %ld: edge weight %g to %ld is not positive: allowed > 0", u + 1, c, v);
            if (!(c >= SC_NUM_MIN && c <= SC_NUM_MAX))
                FAIL("vertex %ld: edge weight %g to %ld out of range: allowed 1e-30..1e30", u + 1, c, v);
            if (v - 1 == u)
                FAIL("vertex %ld lists itself: self-loops are not allowed", u + 1);
            entries++; /* at most the file's size: no overflow (m is bounded too) */
            /* each side of an edge kept, lower id first, to match them up */
            pending_edge it = {u < v - 1 ? u : v - 1, u < v - 1 ? v - 1 : u, c, L.lineno};
            if (u < v - 1 ? push(&fwd, &nfwd, &rfwd, it) : push(&bwd, &nbwd, &rbwd, it)) {
                snprintf(err, errlen, "out of memory reading '%s'", L.name);
                rc = -3;
                goto out;
            }
        }
    }
    if (got < 0) {
        rc = got;
        goto out;
    }
    if (n < 0) {
        snprintf(err, errlen, "%s: empty METIS file: allowed a header 'n m [fmt [ncon]]' and n vertex lines", L.name);
        rc = -2;
        goto out;
    }
    if (vtx < n) {
        snprintf(err, errlen, "%s:%ld: %ld vertex lines, the header declares %ld", L.name, L.lineno, vtx, n);
        rc = -2;
        goto out;
    }
    if (entries != 2 * m) {
        snprintf(err, errlen,
                 "%s: header declares %ld edges but the lists hold %ld entries: each edge must appear in both "
                 "vertices' lists (%ld)",
                 L.name, m, entries, 2 * m);
        rc = -2;
        goto out;
    }
    if ((rc = metis_symmetric(L.name, fwd, nfwd, bwd, nbwd, err, errlen)))
        goto out;
    for (size_t i = 0; i < nfwd; i++)
        if (sc_edges_add(e, (int)fwd[i].u, (int)fwd[i].v, fwd[i].c)) {
            snprintf(err, errlen, "out of memory reading '%s'", L.name);
            rc = -3;
            goto out;
        }
out:
    if (rc && have_e)
        sc_edges_free(e);
    free(nums);
    free(fwd);
    free(bwd);
    *Lp = L;
    return rc;
}

SC_READER_ENTRIES(metis, read_metis, SC_METIS_LINE_MAX)
