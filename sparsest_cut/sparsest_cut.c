/*
 * sparsest_cut.c - bin/sparsest_cut: from a topology (shape string or graph
 * file) to its smallest edge expansion alpha and the GUPS bound of paper
 * 002 eq. 2, GUPS <= (2N/b) alpha C <= 4B/b.  A serial tool.
 */
#include "sparsest_cut.h"
#include "torus_cli.h"

#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

/* --method auto enumerates every cut of a graph up to this many nodes
 * (about a second), and bounds it beyond. */
#define AUTO_EXACT_MAX 28

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sparsest_cut [options] SHAPE | --file FILE\n"
            "Smallest edge expansion alpha(G) = min C(S,S')/|S| over |S| <= N/2 (paper 002 sec. 4.2)\n"
            "and the RandomAccess network bound GUPS <= (2N/b) alpha C.\n"
            "  SHAPE                  the shape grammar of ra_opt --dims and torusmodel --shape:\n"
            "                         torus sizes like 64x32x32, 'm' after a size = mesh dimension (8x4x2m);\n"
            "                         hypercube:D = D dimensions of 2 joined by ONE link each (hypercube:3\n"
            "                         prints as 2mx2mx2m), while a torus 2x2x2 has TWO links between partners;\n"
            "                         flat:N = one ring of N; auto:N = the shape ra_opt --dims auto picks for\n"
            "                         N ranks at its default look-ahead\n"
            "                         (bare auto, flat, hypercube need a process count: write the :N form)\n"
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
            "  --help, -h, --version\n"
            "Options take their value as --opt VALUE or --opt=VALUE, may be shortened to a unique prefix,\n"
            "and '--' ends them.\n"
            "exit: 0 ok, 2 bad input, 3 out of memory\n",
            AUTO_EXACT_MAX);
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

/* getopt_long's codes for the options without a short letter. */
enum {
    OPT_VERSION = 256,
    OPT_SHAPE,
    OPT_MESH,
    OPT_FILE,
    OPT_FORMAT,
    OPT_METHOD,
    OPT_LINK_BW,
    OPT_BYTES_PER_UPDATE,
    OPT_SHOW_CUT,
    OPT_JSON
};

static const struct option long_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"mesh", no_argument, NULL, OPT_MESH},
    {"file", required_argument, NULL, OPT_FILE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"method", required_argument, NULL, OPT_METHOD},
    {"link-bw", required_argument, NULL, OPT_LINK_BW},
    {"bytes-per-update", required_argument, NULL, OPT_BYTES_PER_UPDATE},
    {"show-cut", no_argument, NULL, OPT_SHOW_CUT},
    {"json", no_argument, NULL, OPT_JSON},
    {NULL, 0, NULL, 0},
};

static const char *long_name(int val)
{
    for (const struct option *o = long_opts; o->name; o++)
        if (o->val == val)
            return o->name;
    return NULL;
}

/* getopt_long returned ':' (a value is missing) or '?' (an unknown,
 * ambiguous or value-refusing option): one line in err in the kit's format,
 * naming the option as the user wrote it.  With opterr = 0 getopt_long
 * prints nothing itself and has just stepped past the offending word, so
 * it is argv[optind - 1]; optopt holds the option's code when it knows it. */
static void option_error(int c, char *const *argv, char *err, size_t errlen)
{
    char word[300], esc[272]; /* an escaped word is at most 64 x 4 + 3 bytes */
    snprintf(word, sizeof word, "%s", argv[optind - 1]);
    word[strcspn(word, "=")] = 0;
    const char *name = long_name(optopt);
    if (c == ':' && name) {
        snprintf(err, errlen, "option '--%s' needs a value (see --help)", name);
        return;
    }
    if (name && !strncmp(word, "--", 2)) {
        snprintf(err, errlen, "option '--%s' takes no value (see --help)", name);
        return;
    }
    if (optopt) { /* an unknown short option, e.g. -x (inside a cluster: -hx is -h -x) */
        char s[2] = {(char)optopt, 0};
        torus_cli_escape(s, esc, sizeof esc);
        snprintf(err, errlen, "unknown option '-%s' (see --help)", esc);
        return;
    }
    /* unknown, or a prefix of several names (--m: --mesh, --method) */
    torus_cli_refused(long_opts, argv[optind - 1], err, errlen);
}

/* A capacity or a size: a finite number > 0, else the kit's bad-value line. */
static int positive(const char *opt, const char *v, double *out, char *err, size_t errlen)
{
    if (torus_cli_double(v, 0, DBL_MAX, out) || !(*out > 0)) {
        torus_cli_bad_value(err, errlen, opt, v, "a number > 0");
        return -1;
    }
    return 0;
}

/* Everything the command line sets. */
typedef struct sc_cli {
    const char *shape, *file, *format, *method;
    int mesh_all, json, show;
    double link_bw, bpu;
} sc_cli;

enum { CLI_GO = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_BAD = -2 };

/* Parses argv into c without printing or exiting (the option fuzzer calls
 * it over and over): CLI_GO, CLI_HELP, CLI_VERSION or CLI_BAD with one
 * line in err.  Resets getopt's state itself. */
static int parse_cli(int argc, char **argv, sc_cli *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->method = "auto";
    err[0] = 0;
    int o;
    opterr = 0;
    optind = 0; /* glibc: a full restart of getopt's scan */
    /* ':' first: a missing value comes back as ':', told apart from '?' */
    while ((o = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        switch (o) {
        case 'h':
            return CLI_HELP;
        case OPT_VERSION:
            return CLI_VERSION;
        case OPT_SHAPE:
            c->shape = optarg;
            break;
        case OPT_MESH:
            c->mesh_all = 1;
            break;
        case OPT_FILE:
            c->file = optarg;
            break;
        case OPT_FORMAT:
            c->format = optarg;
            if (strcmp(c->format, "edgelist") && strcmp(c->format, "metis"))
                torus_cli_bad_value(err, errlen, "format", c->format, "edgelist or metis");
            break;
        case OPT_METHOD:
            c->method = optarg;
            if (strcmp(c->method, "auto") && strcmp(c->method, "closed-form") && strcmp(c->method, "exact") &&
                strcmp(c->method, "bounds"))
                torus_cli_bad_value(err, errlen, "method", c->method, "auto, closed-form, exact or bounds");
            break;
        case OPT_LINK_BW:
            positive("link-bw", optarg, &c->link_bw, err, errlen);
            break;
        case OPT_BYTES_PER_UPDATE:
            positive("bytes-per-update", optarg, &c->bpu, err, errlen);
            break;
        case OPT_SHOW_CUT:
            c->show = 1;
            break;
        case OPT_JSON:
            c->json = 1;
            break;
        default: /* ':' or '?' */
            option_error(o, argv, err, errlen);
        }
        if (err[0])
            return CLI_BAD;
    }
    /* What getopt_long left (it moves operands behind the options): SHAPE. */
    for (int i = optind; i < argc; i++) {
        if (c->shape) {
            char esc[300];
            torus_cli_escape(argv[i], esc, sizeof esc);
            snprintf(err, errlen, "unexpected argument '%s': one SHAPE only", esc);
            return CLI_BAD;
        }
        c->shape = argv[i];
    }
    return CLI_GO;
}

int main(int argc, char **argv)
{
    sc_cli cli;
    char err[512] = "";
    int pr = parse_cli(argc, argv, &cli, err, sizeof err);
    if (pr == CLI_HELP) {
        usage(stdout);
        return TORUS_EXIT_OK;
    }
    if (pr == CLI_VERSION) {
        printf("sparsest_cut (hpcc-ra) %s\n", HPCC_RA_VERSION);
        return TORUS_EXIT_OK;
    }
    if (pr == CLI_BAD) {
        fprintf(stderr, "sparsest_cut: %s\n", err);
        return TORUS_EXIT_USAGE;
    }
    const char *shape = cli.shape, *file = cli.file, *format = cli.format, *method = cli.method;
    int mesh_all = cli.mesh_all, json = cli.json, show = cli.show;
    double link_bw = cli.link_bw, bpu = cli.bpu;
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
    torus_shape s;
    sc_graph g;
    int have_graph = 0, rc = 0;
    sc_result r;
    memset(&r, 0, sizeof r);
    if (shape) {
        if (torus_shape_parse(shape, 0, &s, err, sizeof err)) {
            rc = -2;
            goto fail;
        }
        /* --mesh: every dimension becomes a line, whatever the string says */
        if (mesh_all)
            for (int i = 0; i < s.ndims; i++)
                s.mesh[i] = 1;
        if (s.n < 2) {
            char esc[300];
            torus_cli_escape(shape, esc, sizeof esc);
            snprintf(err, sizeof err, "shape '%s' has 1 node: a cut needs at least 2", esc);
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
        m = shape ? "closed-form" : (g.n <= AUTO_EXACT_MAX ? "exact" : "bounds");
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
        char src[300];
        torus_cli_escape(shape ? "shape" : file, src, sizeof src); /* one line, whatever the file is called */
        printf("source: %s\n", src);
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
