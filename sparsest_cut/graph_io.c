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
#include "sparsest_cut.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_FILE_MAX_NODES (1 << 26)

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
    return end != t && !*end && !errno && isfinite(*v);
}

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

/* One error line, "FILE:LINE: ...", then out (both parsers keep path,
 * lineno, err, errlen and rc in scope). */
#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        int o_ = snprintf(err, errlen, "%s:%ld: ", path, lineno);                                                      \
        if (o_ > 0 && (size_t)o_ < errlen)                                                                             \
            snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__);                                                      \
        rc = -2;                                                                                                       \
        goto out;                                                                                                      \
    } while (0)

typedef struct pending_edge {
    long u, v;
    double c;
} pending_edge;

int sc_read_edgelist(const char *path, sc_edges *e, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open graph file '%s': %s", path, strerror(errno));
        return -2;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, nodes = -1, maxid = -1;
    int directed = 0, rc = 0;
    size_t ne = 0, room = 0, nw = 0, wroom = 0;
    pending_edge *edges = NULL, *weights = NULL;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
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
            if (nt != 2 || !parse_id(tok[1], &n) || n < 2 || n > SC_FILE_MAX_NODES)
                FAIL("'nodes' needs a count in 2..%d", SC_FILE_MAX_NODES);
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
                FAIL("negative node weight %s: allowed >= 0 (0 = a switch with no endpoint)", tok[2]);
            v = u;
        } else {
            if (nt < 2 || !parse_id(tok[0], &u) || !parse_id(tok[1], &v))
                FAIL("malformed link '%s%s%s': allowed 'U V [CAP]' with node ids >= 0", tok[0], nt > 1 ? " " : "",
                     nt > 1 ? tok[1] : "");
            if (nt == 3 && !parse_num(tok[2], &c))
                FAIL("malformed capacity '%s': allowed a number > 0", tok[2]);
            if (c <= 0)
                FAIL("capacity %s of link %ld-%ld is not positive: allowed a number > 0", tok[2], u, v);
            if (u == v)
                FAIL("self-loop %ld-%ld carries nothing across a cut: remove it", u, v);
        }
        if (u < 0 || v < 0 || u >= SC_FILE_MAX_NODES || v >= SC_FILE_MAX_NODES)
            FAIL("node id %ld out of range: allowed 0..%d", u < 0 || u >= SC_FILE_MAX_NODES ? u : v,
                 SC_FILE_MAX_NODES - 1);
        if (nodes >= 0 && (u >= nodes || v >= nodes))
            FAIL("node id %ld out of range: 'nodes %ld' allows 0..%ld", u >= nodes ? u : v, nodes, nodes - 1);
        if (u > maxid)
            maxid = u;
        if (v > maxid)
            maxid = v;
        pending_edge **arr = is_weight ? &weights : &edges;
        size_t *cnt = is_weight ? &nw : &ne, *rm = is_weight ? &wroom : &room;
        if (*cnt == *rm) {
            size_t r2 = *rm ? 2 * *rm : 256;
            pending_edge *na = realloc(*arr, r2 * sizeof *na);
            if (!na) {
                snprintf(err, errlen, "out of memory reading '%s'", path);
                rc = -3;
                goto out;
            }
            *arr = na;
            *rm = r2;
        }
        (*arr)[(*cnt)++] = (pending_edge){u, v, c};
    }
    if (ne == 0) {
        snprintf(err, errlen, "%s: no links found: allowed lines 'U V [CAP]'", path);
        rc = -2;
        goto out;
    }
    long n = nodes >= 0 ? nodes : maxid + 1;
    if (sc_edges_init(e, (int)n, directed)) {
        snprintf(err, errlen, "out of memory reading '%s'", path);
        rc = -3;
        goto out;
    }
    for (size_t i = 0; i < nw; i++)
        e->w[weights[i].u] = weights[i].c;
    for (size_t i = 0; i < ne; i++)
        if (sc_edges_add(e, (int)edges[i].u, (int)edges[i].v, edges[i].c)) {
            sc_edges_free(e);
            snprintf(err, errlen, "out of memory reading '%s'", path);
            rc = -3;
            goto out;
        }
out:
    free(line);
    free(edges);
    free(weights);
    fclose(f);
    return rc;
}

/* METIS: "%" comments; header "n m [fmt [ncon]]"; line i lists vertex i's
 * [size] [weight] then neighbours (1-based) each with [edge weight].  fmt's
 * digits: vertex sizes, vertex weights, edge weights.  Every edge appears
 * in both endpoints' lists. */
int sc_read_metis(const char *path, sc_edges *e, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open graph file '%s': %s", path, strerror(errno));
        return -2;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, n = -1, m = 0, vtx = 0, entries = 0;
    int has_size = 0, has_vw = 0, has_ew = 0, rc = 0, have_e = 0;
    double *nums = NULL;
    size_t nums_room = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] == '%')
            continue;
        char *p = line, *end;
        if (n < 0) {
            char *tok[5];
            int nt = tokens(line, tok, 4);
            if (nt == 0)
                continue;
            long fmt = 0, ncon = 1;
            if (nt < 2 || nt > 4 || !parse_id(tok[0], &n) || !parse_id(tok[1], &m) ||
                (nt > 2 && !parse_id(tok[2], &fmt)) || (nt > 3 && !parse_id(tok[3], &ncon)))
                FAIL("malformed METIS header: allowed 'n m [fmt [ncon]]'");
            if (n < 2 || n > SC_FILE_MAX_NODES)
                FAIL("METIS header: %ld vertices, allowed 2..%d", n, SC_FILE_MAX_NODES);
            if (m < 1)
                FAIL("METIS header: %ld edges, allowed >= 1", m);
            if (fmt < 0 || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1 || fmt / 100 > 1)
                FAIL("METIS fmt '%s' invalid: allowed 0, 1, 10, 11, 100, 101, 110, 111", tok[2]);
            if (ncon != 1)
                FAIL("METIS ncon %ld unsupported: allowed 1 (one weight = endpoints per vertex)", ncon);
            has_size = fmt / 100 == 1;
            has_vw = fmt / 10 % 10 == 1;
            has_ew = fmt % 10 == 1;
            if (sc_edges_init(e, (int)n, 0)) {
                snprintf(err, errlen, "out of memory reading '%s'", path);
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
            if (end == p)
                FAIL("vertex %ld: malformed number near '%.12s'", u + 1, p);
            p = end;
            if (cnt == nums_room) {
                nums_room = nums_room ? 2 * nums_room : 64;
                double *nn = realloc(nums, nums_room * sizeof *nn);
                if (!nn) {
                    snprintf(err, errlen, "out of memory reading '%s'", path);
                    rc = -3;
                    goto out;
                }
                nums = nn;
            }
            nums[cnt++] = val;
        }
        size_t at = (size_t)has_size;
        if (has_vw) {
            if (at >= cnt)
                FAIL("vertex %ld: no vertex weight (fmt says vertex weights)", u + 1);
            if (nums[at] < 0)
                FAIL("vertex %ld: negative weight %g, allowed >= 0", u + 1, nums[at]);
            e->w[u] = nums[at++];
        }
        size_t step = has_ew ? 2 : 1;
        if ((cnt - at) % step)
            FAIL("vertex %ld: neighbour without an edge weight (fmt says edge weights)", u + 1);
        for (; at < cnt; at += step) {
            double val = nums[at];
            long v = (long)val;
            if (val != (double)v || v < 1 || v > n)
                FAIL("vertex %ld: neighbour %g out of range: allowed 1..%ld", u + 1, val, n);
            double c = has_ew ? nums[at + 1] : 1.0;
            if (c <= 0)
                FAIL("vertex %ld: edge weight %g to %ld is not positive: allowed > 0", u + 1, c, v);
            if (v - 1 == u)
                FAIL("vertex %ld lists itself: self-loops are not allowed", u + 1);
            entries++;
            if (u < v - 1 && sc_edges_add(e, (int)u, (int)(v - 1), c)) {
                snprintf(err, errlen, "out of memory reading '%s'", path);
                rc = -3;
                goto out;
            }
        }
    }
    if (n < 0) {
        snprintf(err, errlen, "%s: empty METIS file: allowed a header 'n m [fmt [ncon]]' and n vertex lines", path);
        rc = -2;
        goto out;
    }
    if (vtx < n) {
        snprintf(err, errlen, "%s:%ld: %ld vertex lines, the header declares %ld", path, lineno, vtx, n);
        rc = -2;
        goto out;
    }
    if (entries != 2 * m) {
        snprintf(err, errlen, "%s: header declares %ld edges but the lists hold %ld entries: each edge must appear in both vertices' lists (%ld)",
                 path, m, entries, 2 * m);
        rc = -2;
        goto out;
    }
out:
    if (rc && have_e)
        sc_edges_free(e);
    free(nums);
    free(line);
    fclose(f);
    return rc;
}
