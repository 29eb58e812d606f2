/*
 * sparsest_cut.c - bin/sparsest_cut: from a topology (shape string or graph
 * file) to its smallest edge expansion alpha and the GUPS bound of paper
 * 002 eq. 2, GUPS <= (2N/b) alpha C <= 4B/b.  A serial tool.
 */
#include "sparsest_cut.h"
#include "kit_cli.h"
#include "kit_io.h"
#include "kit_opt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

/* --method auto enumerates every cut of a graph up to this many nodes
 * (about a second), and bounds it beyond. */
#define AUTO_EXACT_MAX SC_AUTO_EXACT_MAX

/* getopt_long's codes (the option spec's ids). */
enum {
    OPT_HELP = 256,
    OPT_VERSION,
    OPT_SHAPE,
    OPT_MESH,
    OPT_FILE,
    OPT_FORMAT,
    OPT_METHOD,
    OPT_LINK_BW,
    OPT_BYTES_PER_UPDATE,
    OPT_SHOW_CUT,
    OPT_JSON,
    OPT_DRY_RUN
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const kit_opt spec[] = {
    {.name = "shape", .type = KIT_OPT_TEXT, .id = OPT_SHAPE, .meta = "SHAPE",
     .defval = "none; SHAPE or --file is required", .help = "the same as the positional SHAPE"},
    {.name = "mesh", .type = KIT_OPT_FLAG, .id = OPT_MESH, .defval = "torus",
     .help = "every dimension of SHAPE is a mesh"},
    {.name = "file", .type = KIT_OPT_FILE_IN, .id = OPT_FILE, .meta = "FILE", .defval = "none",
     .help = "a general graph (docs/model.md, \"Graph files\")"},
    {.name = "format", .type = KIT_OPT_CHOICE, .id = OPT_FORMAT, .meta = "F",
     .defval = "from the content: ibnetdiscover output, Slurm topology.conf or topology.yaml; else .graph/.metis "
               "files metis, others edgelist",
     .help = "edgelist | metis | ibnetdiscover | slurm | slurm-yaml: the format of --file",
     .choices = "edgelist|metis|ibnetdiscover|slurm|slurm-yaml",
     .allowed = "edgelist, metis, ibnetdiscover, slurm or slurm-yaml"},
    {.name = "method", .type = KIT_OPT_CHOICE, .id = OPT_METHOD, .meta = "M",
     .defval = "auto: closed-form for shapes, exact up to " STR(AUTO_EXACT_MAX) " nodes, else bounds",
     .help = "auto | closed-form | exact | bounds", .choices = "auto|closed-form|exact|bounds",
     .allowed = "auto, closed-form, exact or bounds"},
    {.name = "link-bw", .type = KIT_OPT_DOUBLE, .id = OPT_LINK_BW, .meta = "BYTES_PER_S", .defval = "none",
     .help = "capacity C of one link per direction", .lo = SC_NUM_MIN, .hi = SC_NUM_MAX,
     .allowed = "a number > 0, in 1e-30..1e30"},
    {.name = "bytes-per-update", .type = KIT_OPT_DOUBLE, .id = OPT_BYTES_PER_UPDATE, .meta = "B", .defval = "none",
     .help = "bytes on the wire per update, b; both given: gups_bound and bisection_gups_bound are printed",
     .lo = SC_NUM_MIN, .hi = SC_NUM_MAX, .allowed = "a number > 0, in 1e-30..1e30"},
    {.name = "show-cut", .type = KIT_OPT_FLAG, .id = OPT_SHOW_CUT, .defval = "off",
     .help = "print the node set S achieving alpha, as ranges of node ids"},
    {.name = "json", .type = KIT_OPT_FLAG, .id = OPT_JSON, .defval = "off",
     .help = "one JSON object instead of the key block"},
    {.name = "dry-run", .type = KIT_OPT_FLAG, .id = OPT_DRY_RUN, .defval = "off",
     .help = "check the options, the SHAPE or the graph file, then exit 0 without computing or printing"},
    {.name = "help", .type = KIT_OPT_FLAG, .id = OPT_HELP, .short_name = 'h', .help = "this help"},
    {.name = "version", .type = KIT_OPT_FLAG, .id = OPT_VERSION, .help = "the version"},
    {0},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sparsest_cut [options] SHAPE | --file FILE\n"
            "Smallest edge expansion alpha(G) = min C(S,S')/|S| over |S| <= N/2 (paper 002 sec. 4.2)\n"
            "and the RandomAccess network bound GUPS <= (2N/b) alpha C.\n"
            "  SHAPE                 the shape grammar of ra_opt --dims and torusmodel --shape:\n"
            "                        torus sizes like 64x32x32, 'm' after a size = mesh dimension (8x4x2m);\n"
            "                        hypercube:D = D dimensions of 2 joined by ONE link each (hypercube:3\n"
            "                        prints as 2mx2mx2m), while a torus 2x2x2 has TWO links between partners;\n"
            "                        flat:N = one ring of N; auto:N = the shape ra_opt --dims auto picks for\n"
            "                        N ranks at its default look-ahead\n"
            "                        (bare auto, flat, hypercube need a process count: write the :N form);\n"
            "                        fattree:K,N[,T] = K-ary N-tree, K^N hosts, leaf uplinks at 1/T (taper T:1);\n"
            "                        dragonfly:A,P,H[,G] = G groups of A routers, P hosts and H global links\n"
            "                        each (G defaults to A*H+1); switches carry no endpoint (docs/machines.md)\n");
    kit_opt_help(f, spec);
    fprintf(f, "Options take their value as --opt VALUE or --opt=VALUE, may be shortened to a unique prefix,\n"
               "and '--' ends them.\n"
               "exit: 0 ok, 2 bad input, 3 out of memory or an output that cannot be written\n");
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

/* Everything the command line sets. */
typedef struct sc_cli {
    const char *shape, *file, *format, *method;
    int mesh_all, json, show, dry_run;
    double link_bw, bpu;
} sc_cli;

enum { CLI_GO = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_BAD = -2 };

/* One option into c (kit_opt_fn). */
static int take(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sc_cli *c = ctx;
    switch (o->id) {
    case OPT_HELP:
        return CLI_HELP;
    case OPT_VERSION:
        return CLI_VERSION;
    case OPT_SHAPE:
        c->shape = v->s;
        break;
    case OPT_MESH:
        c->mesh_all = 1;
        break;
    case OPT_FILE:
        c->file = v->s;
        break;
    case OPT_FORMAT:
        c->format = v->s;
        break;
    case OPT_METHOD:
        c->method = v->s;
        break;
    case OPT_LINK_BW:
        c->link_bw = v->d;
        break;
    case OPT_BYTES_PER_UPDATE:
        c->bpu = v->d;
        break;
    case OPT_SHOW_CUT:
        c->show = 1;
        break;
    case OPT_JSON:
        c->json = 1;
        break;
    case OPT_DRY_RUN:
        c->dry_run = 1;
        break;
    }
    return 0;
}

/* Parses argv into c without printing or exiting (the option fuzzer calls
 * it over and over): CLI_GO, CLI_HELP, CLI_VERSION or CLI_BAD with one
 * line in err.  Resets getopt's state itself.  Also the combinations:
 * exactly one of SHAPE and --file, the bound's two figures together,
 * --mesh for a SHAPE and --format for a file only. */
static int parse_cli(int argc, char **argv, sc_cli *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->method = "auto";
    int first = argc;
    int rc = kit_opt_parse(spec, argc, argv, KIT_OPT_OPERANDS, take, c, &first, err, errlen);
    if (rc)
        return rc < 0 ? CLI_BAD : rc;
    /* What getopt_long left (it moves operands behind the options): SHAPE. */
    for (int i = first; i < argc; i++) {
        if (c->shape) {
            char esc[300];
            kit_cli_escape(argv[i], esc, sizeof esc);
            snprintf(err, errlen, "unexpected argument '%s': one SHAPE only", esc);
            return CLI_BAD;
        }
        c->shape = argv[i];
    }
    if (!c->shape == !c->file)
        snprintf(err, errlen, "give exactly one of SHAPE or --file FILE (see --help)");
    else if ((c->link_bw > 0) != (c->bpu > 0))
        snprintf(err, errlen, "--link-bw and --bytes-per-update go together: the bound needs both");
    else if (c->file && c->mesh_all)
        snprintf(err, errlen, "--mesh applies to a SHAPE, not to --file");
    else if (c->shape && c->format)
        snprintf(err, errlen, "--format applies to --file, not to a SHAPE");
    return err[0] ? CLI_BAD : CLI_GO;
}

/* Every figure the output shows must be a number (JSON has no inf or
 * NaN; a key block saying inf names no bound): 0, or -2 with one line. */
static int check_finite(const sc_result *r, double N, double gb, double bgb, char *err, size_t errlen)
{
    const double v[] = {N, r->alpha, r->alpha_lower, r->alpha_upper, r->bisection, r->bisection_lower, r->lambda2,
                        gb, bgb};
    static const char *const name[] = {"endpoints", "alpha", "alpha_lower", "alpha_upper", "bisection_links",
                                       "bisection_links_lower", "lambda2", "gups_bound", "bisection_gups_bound"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!isfinite(v[i])) {
            snprintf(err, errlen, "%s is not a finite number for this input: allowed capacities, weights, --link-bw "
                                  "and --bytes-per-update whose bound a double holds",
                     name[i]);
            return -2;
        }
    return 0;
}

/* What the run works on: the shape or the graph, and the method chosen. */
typedef struct sc_input {
    torus_shape s;
    sc_network net;     /* a fat-tree or dragonfly SHAPE (is_net) */
    int is_net;
    sc_graph g;
    int have_graph;
    const char *method; /* closed-form, exact or bounds */
    const char *format; /* a file's format, as read */
    char **names;       /* a fabric's node names, or NULL */
    sc_tree tree;       /* a file's graph as a tree */
    sc_fold fold;       /* a file's hosts folded into their switches */
    int folded_nodes;   /* nodes of the folded graph */
} sc_input;

/* The SHAPE or the graph file, read and checked, and the method for it
 * (the graph of a shape built when exact or bounds needs it): 0, or -2
 * / -3 with one line in err.  Nothing is computed here (--dry-run stops
 * after it). */
static int load_input(const sc_cli *c, sc_input *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    if (c->shape && (!strncmp(c->shape, "fattree:", 8) || !strncmp(c->shape, "dragonfly:", 10))) {
        if (sc_network_parse(c->shape, &in->net, err, errlen))
            return -2;
        if (c->mesh_all) {
            snprintf(err, errlen, "--mesh applies to torus shapes: allowed without fattree: or dragonfly:");
            return -2;
        }
        in->is_net = 1;
        in->s.n = (int)(in->net.hosts + in->net.switches); /* nodes of the graph */
    } else if (c->shape) {
        if (torus_shape_parse(c->shape, 0, &in->s, err, errlen))
            return -2;
        /* --mesh: every dimension becomes a line, whatever the string says */
        if (c->mesh_all)
            for (int i = 0; i < in->s.ndims; i++)
                in->s.mesh[i] = 1;
        if (in->s.n < 2) {
            char esc[300];
            kit_cli_escape(c->shape, esc, sizeof esc);
            snprintf(err, errlen, "shape '%s' has 1 node: a cut needs at least 2", esc);
            return -2;
        }
    } else {
        sc_file_graph fg;
        int rc = sc_file_graph_read(&fg, c->file, c->format, err, errlen);
        if (rc)
            return rc;
        in->g = fg.g, in->names = fg.names, in->format = fg.format;
        in->have_graph = 1;
    }
    const char *m = c->method;
    if (!strcmp(m, "auto"))
        m = c->shape ? "closed-form" : (in->g.n <= AUTO_EXACT_MAX ? "exact" : "bounds");
    in->method = m;
    if (!strcmp(m, "closed-form")) {
        if (!c->shape) {
            snprintf(err, errlen, "--method closed-form needs a SHAPE: a general graph has no closed form");
            return -2;
        }
        return 0;
    }
    if (c->shape) {
        int max = m[0] == 'e' ? SC_EXACT_MAX : SC_BOUNDS_MAX;
        if (in->s.n > max) {
            snprintf(err, errlen, "--method %s on %d nodes refused: allowed at most %d (use closed-form)", m, in->s.n,
                     max);
            return -2;
        }
        int rc = in->is_net ? sc_graph_from_network(&in->g, &in->net, err, errlen)
                            : sc_graph_from_shape(&in->g, &in->s, err, errlen);
        if (rc)
            return rc;
        in->have_graph = 1;
    }
    return 0;
}

static void input_free(sc_input *in)
{
    sc_fold_free(&in->fold);
    for (int i = 0; in->names && i < in->g.n; i++)
        free(in->names[i]);
    free(in->names);
    if (in->have_graph)
        sc_graph_free(&in->g);
}

/* The result as a key block or one JSON object. */
static void print_result(const sc_cli *c, const sc_input *in, const sc_result *r, const char *cut)
{
    char shape_txt[256] = "-";
    if (in->is_net)
        sc_network_format(&in->net, shape_txt, sizeof shape_txt);
    else if (c->shape)
        torus_shape_format(&in->s, shape_txt, sizeof shape_txt);
    int nodes = c->shape ? in->s.n : in->g.n;
    double N = r->wtotal, bpu = c->bpu, link_bw = c->link_bw;
    double gb = link_bw > 0 ? 2.0 * N / bpu * r->alpha * link_bw / 1e9 : -1;
    double bgb = link_bw > 0 && r->bisection >= 0 ? 4.0 * r->bisection * link_bw / bpu / 1e9 : -1;
    double blow = r->bisection >= 0 ? r->bisection_lower : -1.0;
    if (c->json) {
        printf("{\"source\": \"%s\", \"shape\": \"%s\", \"nodes\": %d, \"endpoints\": %.17g, \"alpha\": %.17g, "
               "\"alpha_lower\": %.17g, \"alpha_upper\": %.17g, \"method\": \"%s\", \"bisection_links\": %.17g, "
               "\"bisection_links_lower\": %.17g, \"bisection_method\": \"%s\"",
               c->shape ? "shape" : "file", shape_txt, nodes, N, r->alpha, r->alpha_lower, r->alpha_upper, r->method,
               r->bisection, blow, r->bisection_method);
        if (!strcmp(r->method, "bounds"))
            printf(", \"lambda2\": %.17g, \"upper_from\": \"%s\"", r->lambda2, r->upper_from);
        if (link_bw > 0)
            printf(", \"link_bw\": %.17g, \"bytes_per_update\": %.17g, \"gups_bound\": %.17g, "
                   "\"bisection_gups_bound\": %.17g",
                   link_bw, bpu, gb, bgb);
        if (in->fold.folded)
            printf(", \"folded_hosts\": %ld, \"folded_nodes\": %d, \"host_link_min\": %.17g", in->fold.folded,
                   in->folded_nodes, in->fold.rho);
        if (in->format)
            printf(", \"format\": \"%s\", \"capacity_unit\": \"%s\", \"tree\": %s, \"tree_levels\": %d, "
                   "\"tree_irregular_switches\": %ld, \"tree_slow_host_links\": %ld",
                   in->format, sc_capacity_unit(in->format), in->tree.is_tree ? "true" : "false", in->tree.levels,
                   in->tree.irregular, in->tree.slow_hosts);
        if (cut)
            printf(", \"cut_set\": \"%s\"", cut);
        printf("}\n");
        return;
    }
    char src[300];
    kit_cli_escape(c->shape ? "shape" : c->file, src, sizeof src); /* one line, whatever the file is called */
    printf("source: %s\nshape: %s\nnodes: %d\nendpoints: %.17g\n", src, shape_txt, nodes, N);
    if (in->format)
        printf("format: %s\ncapacity_unit: %s\n", in->format, sc_capacity_unit(in->format));
    printf("alpha: %.10g\nalpha_lower: %.10g\nalpha_upper: %.10g\nmethod: %s\n", r->alpha, r->alpha_lower,
           r->alpha_upper, r->method);
    if (!strcmp(r->method, "bounds"))
        printf("lambda2: %.10g\nupper_from: %s\n", r->lambda2, r->upper_from);
    if (in->fold.folded)
        printf("folded_hosts: %ld\nfolded_nodes: %d\nhost_link_min: %.10g\n", in->fold.folded, in->folded_nodes,
               in->fold.rho);
    printf("bisection_links: %.10g\nbisection_links_lower: %.10g\nbisection_method: %s\n", r->bisection, blow,
           r->bisection_method);
    if (link_bw > 0)
        printf("link_bw: %.10g\nbytes_per_update: %.10g\ngups_bound: %.6g\nbisection_gups_bound: %.6g\n", link_bw, bpu,
               gb, bgb);
    if (cut)
        printf("cut_set: %s\n", cut);
    if (c->file)
        sc_tree_print(stdout, &in->tree, in->names);
}

int main(int argc, char **argv)
{
    kit_stdout_begin(argv[0]);
    sc_cli cli;
    char err[512] = "";
    int pr = parse_cli(argc, argv, &cli, err, sizeof err);
    if (pr == CLI_HELP) {
        usage(stdout);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    if (pr == CLI_VERSION) {
        printf("sparsest_cut (hpcc-ra) %s\n", HPCC_RA_VERSION);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    if (pr == CLI_BAD) {
        fprintf(stderr, "sparsest_cut: %s\n", err);
        return KIT_EXIT_USAGE;
    }
    sc_input in;
    sc_result r;
    memset(&r, 0, sizeof r);
    char *cut = NULL;
    int rc = load_input(&cli, &in, err, sizeof err);
    if (!rc && cli.dry_run) {
        input_free(&in);
        return kit_stdout_end(KIT_EXIT_OK);
    }
    if (!rc)
        rc = !strcmp(in.method, "closed-form")
                 ? (in.is_net ? sc_network_closed_form(&in.net, &r, err, sizeof err)
                              : sc_closed_form(&in.s, &r, cli.show, err, sizeof err))
             : in.method[0] == 'e'             ? sc_exact(&in.g, &r, err, sizeof err)
             : cli.file                        ? sc_alpha_folded(&in.g, &r, &in.fold, &in.folded_nodes, err, sizeof err)
                                               : sc_bounds(&in.g, &r, err, sizeof err);
    if (!rc) {
        double N = r.wtotal;
        double gb = cli.link_bw > 0 ? 2.0 * N / cli.bpu * r.alpha * cli.link_bw / 1e9 : -1;
        double bgb = cli.link_bw > 0 && r.bisection >= 0 ? 4.0 * r.bisection * cli.link_bw / cli.bpu / 1e9 : -1;
        rc = check_finite(&r, N, gb, bgb, err, sizeof err);
    }
    if (!rc && cli.file && sc_tree_recognise(&in.g, &in.tree)) {
        snprintf(err, sizeof err, "out of memory for the tree of '%s'", cli.file);
        rc = -3;
    }
    if (!rc && cli.show && r.set && !(cut = ranges(r.set, cli.shape ? in.s.n : in.g.n))) {
        snprintf(err, sizeof err, "out of memory for the cut set");
        rc = -3;
    }
    if (!rc)
        print_result(&cli, &in, &r, cut);
    free(cut);
    sc_result_free(&r);
    input_free(&in);
    if (rc) {
        fprintf(stderr, "sparsest_cut: %s\n", err);
        return rc == -3 ? KIT_EXIT_RESOURCE : KIT_EXIT_USAGE;
    }
    return kit_stdout_end(KIT_EXIT_OK);
}
