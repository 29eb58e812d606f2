/*
 * sparsest_cut.c - bin/sparsest_cut: from a topology (shape string or graph
 * file) to its smallest edge expansion alpha and the GUPS bound of paper
 * 002 eq. 2, GUPS <= (2N/b) alpha C <= 4B/b.  A serial tool.
 */
#include "sc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sparsest_cut [options] SHAPE | --file FILE\n"
            "Smallest edge expansion alpha(G) = min C(S,S')/|S| over |S| <= N/2 (paper 002 sec. 4.2)\n"
            "and the RandomAccess network bound GUPS <= (2N/b) alpha C.\n"
            "  SHAPE                  torus sizes like 64x32x32, 'm' after a size = mesh dimension\n"
            "                         (8x4x2m), or hypercube:D (D dimensions of 2, one link each)\n"
            "  --shape SHAPE          the same as the positional SHAPE (default: none; SHAPE or --file is required)\n"
            "  --mesh                 every dimension of SHAPE is a mesh (default: torus)\n"
            "  --file FILE            a general graph (README \"Graph files\") (default: none)\n"
            "  --format F             edgelist | metis (default edgelist; .graph/.metis files: metis)\n"
            "  --method M             auto | closed-form | exact | bounds (default auto: closed-form\n"
            "                         for shapes, exact up to %d nodes, else bounds)\n"
            "  --link-bw BYTES_PER_S  capacity C of one link per direction (default: none)\n"
            "  --bytes-per-update B   bytes on the wire per update, b (default: none)\n"
            "                         both given: gups_bound and bisection_gups_bound are printed\n"
            "  --show-cut             print the node set S achieving alpha, as ranges of node ids (default: off)\n"
            "  --json                 one JSON object instead of the key block (default: off)\n"
            "  --help, --version\n"
            "exit: 0 ok, 2 bad input, 3 out of memory\n",
            28);
}

static int parse_pos(const char *opt, const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0) || !isfinite(d)) {
        fprintf(stderr, "sparsest_cut: %s '%s' invalid: allowed a number > 0\n", opt, v);
        return -1;
    }
    *out = d;
    return 0;
}

/* "0-3,8-11" for a set's node ids; caller frees. */
static char *ranges(const unsigned char *set, int n)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int v = 0; v < n;) {
        if (!set[v]) {
            v++;
            continue;
        }
        int e = v;
        while (e + 1 < n && set[e + 1])
            e++;
        char item[32];
        int k = e > v ? snprintf(item, sizeof item, "%s%d-%d", len ? "," : "", v, e)
                      : snprintf(item, sizeof item, "%s%d", len ? "," : "", v);
        if (len + (size_t)k + 1 > cap) {
            while (len + (size_t)k + 1 > cap)
                cap *= 2;
            char *ns = realloc(s, cap);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        memcpy(s + len, item, (size_t)k + 1);
        len += (size_t)k;
        v = e + 1;
    }
    return s;
}

int main(int argc, char **argv)
{
    const char *shape = NULL, *file = NULL, *format = NULL, *method = "auto";
    int mesh_all = 0, json = 0, show = 0;
    double link_bw = 0, bpu = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
#define NEXT()                                                                                                         \
    (has ? argv[++i]                                                                                                   \
         : (fprintf(stderr, "sparsest_cut: %s needs a value (see --help)\n", a), exit(2), (char *)NULL))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("sparsest_cut (hpcc-ra) %s\n", HPCC_RA_VERSION);
            return 0;
        } else if (!strcmp(a, "--shape")) {
            shape = NEXT();
        } else if (!strcmp(a, "--mesh")) {
            mesh_all = 1;
        } else if (!strcmp(a, "--file")) {
            file = NEXT();
        } else if (!strcmp(a, "--format")) {
            format = NEXT();
            if (strcmp(format, "edgelist") && strcmp(format, "metis")) {
                fprintf(stderr, "sparsest_cut: --format '%s' invalid: allowed edgelist or metis\n", format);
                return 2;
            }
        } else if (!strcmp(a, "--method")) {
            method = NEXT();
            if (strcmp(method, "auto") && strcmp(method, "closed-form") && strcmp(method, "exact") &&
                strcmp(method, "bounds")) {
                fprintf(stderr, "sparsest_cut: --method '%s' invalid: allowed auto, closed-form, exact or bounds\n",
                        method);
                return 2;
            }
        } else if (!strcmp(a, "--link-bw")) {
            if (parse_pos(a, NEXT(), &link_bw))
                return 2;
        } else if (!strcmp(a, "--bytes-per-update")) {
            if (parse_pos(a, NEXT(), &bpu))
                return 2;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--show-cut")) {
            show = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "sparsest_cut: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (!shape) {
            shape = a;
        } else {
            fprintf(stderr, "sparsest_cut: unexpected argument '%s': one SHAPE only\n", a);
            return 2;
        }
#undef NEXT
    }
    if (!shape == !file) {
        fprintf(stderr, "sparsest_cut: give exactly one of SHAPE or --file FILE (see --help)\n");
        return 2;
    }
    if ((link_bw > 0) != (bpu > 0)) {
        fprintf(stderr, "sparsest_cut: --link-bw and --bytes-per-update go together: the bound needs both\n");
        return 2;
    }
    if (file && mesh_all) {
        fprintf(stderr, "sparsest_cut: --mesh applies to a SHAPE, not to --file\n");
        return 2;
    }
    char err[512] = "";
    torus_shape s;
    sc_graph g;
    int have_graph = 0, rc = 0;
    sc_result r;
    memset(&r, 0, sizeof r);
    if (shape) {
        if ((rc = sc_shape_parse(shape, mesh_all, &s, err, sizeof err)))
            goto fail;
        if (s.n < 2) {
            snprintf(err, sizeof err, "shape '%s' has 1 node: a cut needs at least 2", shape);
            rc = -2;
            goto fail;
        }
    } else {
        sc_edges e;
        int metis = format ? !strcmp(format, "metis") : 0;
        size_t fl = strlen(file);
        if (!format && ((fl > 6 && !strcmp(file + fl - 6, ".graph")) || (fl > 6 && !strcmp(file + fl - 6, ".metis"))))
            metis = 1;
        rc = metis ? sc_read_metis(file, &e, err, sizeof err) : sc_read_edgelist(file, &e, err, sizeof err);
        if (rc)
            goto fail;
        rc = sc_graph_build(&g, &e, err, sizeof err);
        sc_edges_free(&e);
        if (rc)
            goto fail;
        have_graph = 1;
    }
    const char *m = method;
    if (!strcmp(m, "auto"))
        m = shape ? "closed-form" : (g.n <= 28 ? "exact" : "bounds");
    if (!strcmp(m, "closed-form")) {
        if (!shape) {
            snprintf(err, sizeof err, "--method closed-form needs a SHAPE: a general graph has no closed form");
            rc = -2;
            goto fail;
        }
        rc = sc_closed_form(&s, &r, show, err, sizeof err);
    } else {
        if (shape) {
            if (s.n > (m[0] == 'e' ? SC_EXACT_MAX : SC_BOUNDS_MAX)) {
                snprintf(err, sizeof err, "--method %s on %d nodes refused: allowed at most %d (use closed-form)", m,
                         s.n, m[0] == 'e' ? SC_EXACT_MAX : SC_BOUNDS_MAX);
                rc = -2;
                goto fail;
            }
            if ((rc = sc_graph_from_shape(&g, &s, err, sizeof err)))
                goto fail;
            have_graph = 1;
        }
        rc = m[0] == 'e' ? sc_exact(&g, &r, err, sizeof err) : sc_bounds(&g, &r, err, sizeof err);
    }
    if (rc)
        goto fail;
    char shape_txt[256] = "-";
    if (shape)
        torus_shape_format(&s, shape_txt, sizeof shape_txt);
    int nodes = shape ? s.n : g.n;
    double N = r.wtotal;
    double gb = link_bw > 0 ? 2.0 * N / bpu * r.alpha * link_bw / 1e9 : -1;
    double bgb = link_bw > 0 && r.bisection >= 0 ? 4.0 * r.bisection * link_bw / bpu / 1e9 : -1;
    char *cut = show && r.set ? ranges(r.set, nodes) : NULL;
    if (json) {
        printf("{\"source\": \"%s\", \"shape\": \"%s\", \"nodes\": %d, \"endpoints\": %.17g, \"alpha\": %.17g, "
               "\"alpha_lower\": %.17g, \"alpha_upper\": %.17g, \"method\": \"%s\", \"bisection_links\": %.17g, "
               "\"bisection_links_lower\": %.17g, \"bisection_method\": \"%s\"",
               shape ? "shape" : "file", shape_txt, nodes, N, r.alpha, r.alpha_lower, r.alpha_upper, r.method,
               r.bisection, r.bisection >= 0 ? r.bisection_lower : -1.0, r.bisection_method);
        if (!strcmp(r.method, "bounds"))
            printf(", \"lambda2\": %.17g, \"upper_from\": \"%s\"", r.lambda2, r.upper_from);
        if (link_bw > 0)
            printf(", \"link_bw\": %.17g, \"bytes_per_update\": %.17g, \"gups_bound\": %.17g, "
                   "\"bisection_gups_bound\": %.17g",
                   link_bw, bpu, gb, bgb);
        if (cut)
            printf(", \"cut_set\": \"%s\"", cut);
        printf("}\n");
    } else {
        printf("source: %s\n", shape ? "shape" : file);
        printf("shape: %s\n", shape_txt);
        printf("nodes: %d\n", nodes);
        printf("endpoints: %.17g\n", N);
        printf("alpha: %.10g\n", r.alpha);
        printf("alpha_lower: %.10g\n", r.alpha_lower);
        printf("alpha_upper: %.10g\n", r.alpha_upper);
        printf("method: %s\n", r.method);
        if (!strcmp(r.method, "bounds")) {
            printf("lambda2: %.10g\n", r.lambda2);
            printf("upper_from: %s\n", r.upper_from);
        }
        printf("bisection_links: %.10g\n", r.bisection);
        printf("bisection_links_lower: %.10g\n", r.bisection >= 0 ? r.bisection_lower : -1.0);
        printf("bisection_method: %s\n", r.bisection_method);
        if (link_bw > 0) {
            printf("link_bw: %.10g\n", link_bw);
            printf("bytes_per_update: %.10g\n", bpu);
            printf("gups_bound: %.6g\n", gb);
            printf("bisection_gups_bound: %.6g\n", bgb);
        }
        if (cut)
            printf("cut_set: %s\n", cut);
    }
    free(cut);
    sc_result_free(&r);
    if (have_graph)
        sc_graph_free(&g);
    return 0;
fail:
    fprintf(stderr, "sparsest_cut: %s\n", err);
    if (have_graph)
        sc_graph_free(&g);
    return rc == -3 ? 3 : 2;
}
