/*
 * test_machines.c - the logical shape on a physical network
 * (torusmodel/model.c) and the machine presets (torusmodel/machines.c): the
 * model reduces to paper 002's when the network is the shape's own torus
 * (given as a network, or as the nodes' torus under one rank per node);
 * ranks inside a node do not load the links; a fat-tree under a flat shape
 * carries each update once; every preset loads, names its sources and
 * evaluates every one of its shapes.
 */
#include "../test.h"
#include "torusmodel.h"

#include <math.h>
#include <string.h>

static void same_row(const tm_row *a, const tm_row *b)
{
    ASSERT_NEAR(a->alpha, b->alpha, 0);
    ASSERT_NEAR(a->cpu_gups, b->cpu_gups, 0);
    ASSERT_NEAR(a->net_gups, b->net_gups, 1e-12 * a->net_gups);
    ASSERT_NEAR(a->mem_gups, b->mem_gups, 0);
    ASSERT_NEAR(a->predicted_gups, b->predicted_gups, 1e-12 * a->predicted_gups);
    ASSERT_NEAR(a->nodes, b->nodes, 0);
    ASSERT_STR_EQ(a->binding, b->binding);
}

static void reduction(void)
{
    static const char *const presets[] = {"bgl-mpi", "bgl-raw", "bgl-routed"};
    static const char *const shapes[] = {"8x8x8", "4mx4mx2m", "16x8", "6x5x3", "64x32x32", "8x4x2m", "2x2"};
    int checked = 0;
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            tm_params p, given, nodes;
            char err[512];
            tm_params_defaults(&p);
            ASSERT_EQ_INT(tm_preset(&p, presets[i], err, sizeof err), 0);
            given = p, nodes = p;
            ASSERT_EQ_INT(tm_param_set(&given, "network", shapes[k], err, sizeof err), 0);
            ASSERT_EQ_INT(tm_param_set(&nodes, "network", "nodes", err, sizeof err), 0);
            torus_shape s;
            ASSERT_EQ_INT(torus_shape_parse(shapes[k], 0, &s, err, sizeof err), 0);
            tm_row a, b, c;
            ASSERT_EQ_INT(tm_evaluate(&p, &s, &a, err, sizeof err), 0);
            ASSERT_EQ_INT(tm_evaluate(&given, &s, &b, err, sizeof err), 0);
            ASSERT_EQ_INT(tm_evaluate(&nodes, &s, &c, err, sizeof err), 0);
            same_row(&a, &b);
            same_row(&a, &c);
            ASSERT_NEAR(b.net_transfers, 1, 0);
            checked++;
        }
    ASSERT_EQ_INT(checked, 21);
}

static void inside_nodes(void)
{
    /* 4 ranks per node over an 8x8x8 torus of nodes: the links see the
     * 8x8x8 network bound, the CPU the 4 ranks' hops */
    tm_params p, q;
    char err[512];
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_preset(&p, "bgl-routed", err, sizeof err), 0);
    q = p;
    ASSERT_EQ_INT(tm_param_set(&q, "ranks_per_node", "4", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&q, "cores_per_node", "4", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&q, "network", "nodes", err, sizeof err), 0);
    torus_shape s8, s48;
    ASSERT_EQ_INT(torus_shape_parse("8x8x8", 0, &s8, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("4x8x8x8", 0, &s48, err, sizeof err), 0);
    tm_row a, b;
    ASSERT_EQ_INT(tm_evaluate(&p, &s8, &a, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&q, &s48, &b, err, sizeof err), 0);
    ASSERT_NEAR(b.net_gups, a.net_gups, 1e-12 * a.net_gups);
    ASSERT_NEAR(b.nodes, 512, 0);
    ASSERT_NEAR(b.hops, a.hops + 0.75, 1e-12);
    /* leading dimensions that do not make up a node's ranks are refused */
    torus_shape s88;
    ASSERT_EQ_INT(torus_shape_parse("8x8x8x8", 0, &s88, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&q, &s88, &b, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "allowed");
}

static void not_a_torus(void)
{
    /* 8 ranks on the 8 hosts of a 2-ary 3-tree (alpha 1): a flat shape sends
     * each update once (7/8 of them leave the host), a 2x2x2 logical torus
     * three hops of 1/2, each across the tree as random traffic */
    tm_params p;
    char err[512];
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_preset(&p, "bgl-routed", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "network", "fattree:2,3", err, sizeof err), 0);
    torus_shape flat, cube, bad;
    ASSERT_EQ_INT(torus_shape_parse("8", 0, &flat, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("2x2x2", 0, &cube, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("4x3", 0, &bad, err, sizeof err), 0);
    tm_row a, b;
    ASSERT_EQ_INT(tm_evaluate(&p, &flat, &a, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &cube, &b, err, sizeof err), 0);
    double once = 2.0 * 8 / p.bytes_per_update * 1 * p.link_bw / 1e9;
    ASSERT_NEAR(a.net_transfers, 7.0 / 8, 1e-12);
    ASSERT_NEAR(a.net_gups, once / (7.0 / 8), 1e-9);
    ASSERT_NEAR(b.net_transfers, 1.5, 1e-12);
    ASSERT_NEAR(b.net_gups, once / 1.5, 1e-9);
    ASSERT_EQ_INT(tm_evaluate(&p, &bad, &a, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "whole number of ranks per host");
    ASSERT_EQ_INT(tm_param_set(&p, "network", "fattree:1,1", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "allowed");
}

/* Every machine preset tm_machine_names() lists ("bgq, tofu (K computer),
 * ..."): loads, names its sources, evaluates each of its shapes.  A preset
 * with a node model (node.c) names a source for each figure it gives and
 * predicts its smallest bound; one without names its assumptions in
 * `sources`.  Structure only: the figures are machines.c's to change. */
static void presets(void)
{
    static const char *const always[] = {"bgq", "tofu", "tofu-d", "perlmutter-cpu", "hdr-fattree"};
    char names[1024];
    snprintf(names, sizeof names, "%s", tm_machine_names());
    int seen[sizeof always / sizeof *always] = {0}, count = 0;
    char *save = NULL;
    for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char name[64];
        if (sscanf(t, " %63[^ (]", name) != 1)
            continue;
        count++;
        for (size_t i = 0; i < sizeof always / sizeof *always; i++)
            if (!strcmp(name, always[i]))
                seen[i] = 1;
        tm_params p;
        char err[512];
        tm_params_defaults(&p);
        int rc = tm_preset(&p, name, err, sizeof err);
        ASSERT_EQ_INT(rc, 0);
        if (rc) {
            fprintf(stderr, "  preset %s: %s\n", name, err);
            continue;
        }
        ASSERT_STR_EQ(p.preset, name);
        ASSERT_TRUE(p.sources != NULL && p.sources[0]);
        if (tm_node_given(&p)) {
            for (int i = 0; i < TM_N_KEYS; i++)
                if (p.node.v[i] > 0 && !p.node.src[i][0]) {
                    ASSERT_TRUE(p.node.src[i][0]);
                    fprintf(stderr, "  preset %s: %s without a source\n", name, tm_node_key(i));
                }
        } else {
            ASSERT_TRUE(p.sources != NULL && strstr(p.sources, "Assumed") != NULL);
        }
        ASSERT_TRUE(p.nshapes >= 1);
        for (int k = 0; k < p.nshapes; k++) {
            tm_row r;
            ASSERT_EQ_INT(tm_evaluate(&p, &p.shapes[k], &r, err, sizeof err), 0);
            ASSERT_TRUE(r.predicted_gups > 0 && r.predicted_gups <= r.bound_gups);
            ASSERT_TRUE(isfinite(r.net_gups) && isfinite(r.cpu_gups) && isfinite(r.mem_gups));
            double lo = fmin(fmin(r.cpu_gups, r.net_gups), fmin(r.mem_gups, r.inj_gups));
            ASSERT_NEAR(r.bound_gups, lo, 0);
            if (tm_node_given(&p))
                ASSERT_NEAR(r.predicted_gups, r.bound_gups, 0);
        }
    }
    ASSERT_TRUE(count >= 5);
    for (size_t i = 0; i < sizeof always / sizeof *always; i++) {
        ASSERT_TRUE(seen[i]);
        if (!seen[i])
            fprintf(stderr, "  tm_machine_names() lacks %s\n", always[i]);
    }
}

/* Issue 47: every network term of every node-model preset says what it
 * is, published (with its citation), measured, assumed (with the reason)
 * or not modelled (why there is no figure), whole: a source cut at
 * TM_SRC_LEN would lose its citation. */
static void network_terms_say_their_kind(void)
{
    static const int net[] = {TM_N_MPI_LATENCY, TM_N_INJ_BW, TM_N_MSG_RATE};
    static const char *const kinds[] = {"published: ", "measured", "assumed: ", "not modelled: "};
    char names[512];
    snprintf(names, sizeof names, "%s", tm_machine_names());
    int checked = 0;
    char *save = NULL;
    for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char name[64];
        tm_params p;
        char err[512];
        if (sscanf(t, " %63[^ (]", name) != 1)
            continue;
        tm_params_defaults(&p);
        ASSERT_EQ_INT(tm_preset(&p, name, err, sizeof err), 0);
        if (!tm_node_given(&p))
            continue;
        for (size_t k = 0; k < sizeof net / sizeof *net; k++) {
            const char *src = p.node.src[net[k]];
            int kind = -1;
            for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
                if (!strncmp(src, kinds[j], strlen(kinds[j])))
                    kind = (int)j;
            /* a figure is never "not modelled"; no figure is never published */
            int ok = kind >= 0 && (kind == 3) == !(p.node.v[net[k]] > 0) &&
                     strlen(src) > strlen(kinds[kind]) + 10 && strlen(src) < TM_SRC_LEN - 1;
            ASSERT_TRUE(ok);
            if (!ok)
                fprintf(stderr, "  preset %s: %s = %g: '%s'\n", name, tm_node_key(net[k]), p.node.v[net[k]], src);
            checked++;
        }
    }
    ASSERT_TRUE(checked >= 24); /* 8 node-model presets x 3 terms */
}

static const test_case cases[] = {
    {"reduces_to_paper_model_on_own_torus", reduction},
    {"ranks_inside_nodes_spare_the_links", inside_nodes},
    {"fattree_under_flat_and_torus_shapes", not_a_torus},
    {"every_preset_loads_and_evaluates", presets},
    {"every_network_term_says_its_kind", network_terms_say_their_kind},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_machines", cases);
}

