/*
 * test_sparsest_cut.c - sparsest_cut's pieces: Table 2 of paper 002, the
 * graph readers and their errors, and the certified bounds bracketing the
 * exact value on random small graphs (directed, weighted, with switches).
 */
#include "../test.h"
#include "sparsest_cut.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/sc_test_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Table 2: the twelve BlueGene/L partitions (M = mesh in every dimension). */
static void t_table2_bluegene_partitions(void)
{
    static const struct {
        const char *shape;
        int mesh;
        double alpha;
    } t[] = {{"4x4x2", 1, 1.0 / 2},    {"8x4x2", 1, 1.0 / 4},    {"8x4x4", 1, 1.0 / 4},
             {"8x4x8", 1, 1.0 / 4},    {"8x8x8", 0, 1.0 / 2},    {"8x8x16", 0, 1.0 / 4},
             {"16x8x16", 0, 1.0 / 4},  {"8x32x16", 0, 1.0 / 8},  {"16x32x16", 0, 1.0 / 8},
             {"32x32x16", 0, 1.0 / 8}, {"32x32x32", 0, 1.0 / 8}, {"64x32x32", 0, 1.0 / 16}};
    char err[256];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        torus_shape s;
        sc_result r;
        ASSERT_EQ_INT(torus_shape_parse(t[i].shape, 0, &s, err, sizeof err), 0);
        for (int d = 0; t[i].mesh && d < s.ndims; d++) /* what sparsest_cut --mesh does */
            s.mesh[d] = 1;
        ASSERT_EQ_INT(sc_closed_form(&s, &r, 0, err, sizeof err), 0);
        ASSERT_NEAR(r.alpha, t[i].alpha, 1e-15);
        /* paper 002: alpha <= 2B/N */
        ASSERT_TRUE(r.alpha <= 2 * r.bisection / s.n + 1e-12);
        sc_result_free(&r);
    }
}

/* the hypercube's edge expansion and bisection */
static void t_hypercube(void)
{
    torus_shape s;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("hypercube:5", 0, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(s.n, 32);
    sc_result r;
    ASSERT_EQ_INT(sc_closed_form(&s, &r, 0, err, sizeof err), 0);
    ASSERT_NEAR(r.alpha, 1.0, 0); /* the hypercube's edge expansion is 1 */
    ASSERT_NEAR(r.bisection, 16.0, 0);
    sc_result_free(&r);
}

/* the same five dimensions as a torus: rings of 2 double every link */
static void t_torus_of_twos_doubles_links(void)
{
    torus_shape s;
    char err[256];
    sc_result r;
    ASSERT_EQ_INT(torus_shape_parse("2x2x2x2x2", 0, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_closed_form(&s, &r, 0, err, sizeof err), 0);
    ASSERT_NEAR(r.alpha, 2.0, 0);
    ASSERT_NEAR(r.bisection, 32.0, 0);
    sc_result_free(&r);
}

/* malformed shapes, one line each saying what is allowed */
static void t_shape_errors(void)
{
    torus_shape s;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("hypercube:0", 0, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "allowed hypercube:D");
    ASSERT_EQ_INT(torus_shape_parse("4x4y2", 0, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "malformed shape");
    ASSERT_EQ_INT(torus_shape_parse("2048x2048x2048", 0, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "2^30");
    /* a serial tool has no process count: the bare words say what to write */
    ASSERT_EQ_INT(torus_shape_parse("flat", 0, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "write flat:N");
}

/* a 4-ring with a switch hanging two endpoints off node 0 */
static void t_edge_list_ring_with_switch(void)
{
    char err[512];
    sc_edges e;
    sc_graph g;
    sc_result r;
    const char *p = write_file("ring.txt", "# ring of four plus a switch\n"
                                           "nodes 6\n"
                                           "0 1\n1 2 # trailing comment\n2 3\n3 0\n"
                                           "weight 4 0\n0 4 2.0\n4 5 0.5\n");
    ASSERT_EQ_INT(sc_read_edgelist(p, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
    ASSERT_NEAR(g.wtotal, 5.0, 0);
    ASSERT_EQ_INT(sc_exact(&g, &r, err, sizeof err), 0);
    /* node 5 alone behind the 0.5 link: 0.5 / 1 */
    ASSERT_NEAR(r.alpha, 0.5, 1e-15);
    ASSERT_TRUE(r.set[5] != r.set[4]);
    sc_result_free(&r);
    sc_graph_free(&g);
    sc_edges_free(&e);
}

/* the same ring in METIS format with edge weights: 4 vertices */
static void t_metis_weighted_ring(void)
{
    char err[512];
    sc_edges e;
    sc_graph g;
    sc_result r;
    const char *p = write_file("ring.graph", "% METIS ring\n4 4 1\n2 1 4 3\n1 1 3 1\n2 1 4 1\n3 1 1 3\n");
    ASSERT_EQ_INT(sc_read_metis(p, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_exact(&g, &r, err, sizeof err), 0);
    /* S = {2,3} (ids 1,2): links 1-2 (1) and 3-4 (1) cross -> 2/2 */
    ASSERT_NEAR(r.alpha, 1.0, 1e-15);
    sc_result_free(&r);
    sc_graph_free(&g);
    sc_edges_free(&e);
}

/* directed ring: one way round, every arc cut once each way */
static void t_directed_ring(void)
{
    char err[512];
    sc_edges e;
    sc_graph g;
    sc_result r;
    const char *p = write_file("dring.txt", "directed\n0 1\n1 2\n2 3\n3 0\n");
    ASSERT_EQ_INT(sc_read_edgelist(p, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_exact(&g, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.alpha, 0.5, 1e-15);
    sc_result_free(&r);
    sc_graph_free(&g);
    sc_edges_free(&e);
}

/* errors: one line naming the file, the line and what is allowed */
static void t_edge_list_errors(void)
{
    char err[512];
    sc_edges e;
    const char *p;
    static const struct {
        const char *text, *want;
    } bad[] = {{"0 1\n1 2 -3\n", ":2: capacity -3"},
               {"0 1\n1 x\n", ":2: malformed link"},
               {"0 1\n2 2\n", ":2: self-loop"},
               {"nodes 3\n0 5\n", ":2: node id 5 out of range"},
               {"0 1\nweight 1 -1\n", ":2: negative node weight"},
               {"0 1\n0 99999999999\n", "out of range"},
               {"0 1\ndirected\n", ":2: 'directed' must come before"},
               {"# nothing\n", "no links found"},
               {"0 1 2 3\n", ":1: too many fields"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = write_file("bad.txt", bad[i].text);
        ASSERT_EQ_INT(sc_read_edgelist(p, &e, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
    }
}

/* METIS errors alike */
static void t_metis_errors(void)
{
    char err[512];
    sc_edges e;
    const char *p;
    static const struct {
        const char *text, *want;
    } badm[] = {{"3 2\n2\n1 3\n2 1\n", "header declares 2 edges but the lists hold 5"},
                {"3 2 1\n2 1\n1 1 3\n", ":3: vertex 2: neighbour without an edge weight"},
                {"2 1\n2\n5\n", ":3: vertex 2: neighbour 5 out of range"},
                {"2 1 7\n2\n1\n", ":1: METIS fmt '7' invalid"},
                {"x y\n", ":1: malformed METIS header"},
                {"3 1\n2\n1\n", "2 vertex lines, the header declares 3"}};
    for (size_t i = 0; i < sizeof badm / sizeof *badm; i++) {
        p = write_file("bad.graph", badm[i].text);
        ASSERT_EQ_INT(sc_read_metis(p, &e, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, badm[i].want);
    }
}

/* disconnected and not strongly connected graphs; a file not there */
static void t_unconnected_graphs_and_missing_file(void)
{
    char err[512];
    sc_edges e;
    sc_graph g;
    const char *p;
    p = write_file("two.txt", "0 1\n2 3\n");
    ASSERT_EQ_INT(sc_read_edgelist(p, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "not connected: node 2");
    sc_edges_free(&e);
    p = write_file("oneway.txt", "directed\n0 1\n1 2\n0 2\n");
    ASSERT_EQ_INT(sc_read_edgelist(p, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "not strongly connected");
    sc_edges_free(&e);
    ASSERT_EQ_INT(sc_read_edgelist("/nonexistent/g.txt", &e, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "cannot open graph file");
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random connected graphs: lower <= exact <= upper, and the upper set is real. */
static void t_random_graphs_bracketed(void)
{
    char err[256];
    int tight = 0, total = 0;
    for (int trial = 0; trial < 60; trial++) {
        int n = 8 + (int)(next_rand() % 11), directed = trial % 3 == 2;
        sc_edges e;
        sc_edges_init(&e, n, directed);
        for (int v = 1; v < n; v++) { /* a random tree keeps it connected */
            int u = (int)(next_rand() % (uint64_t)v);
            double c = 0.5 + (double)(next_rand() % 4);
            sc_edges_add(&e, u, v, c);
            if (directed)
                sc_edges_add(&e, v, u, 1.0 + (double)(next_rand() % 3));
        }
        for (int k = 0; k < n; k++) {
            int u = (int)(next_rand() % (uint64_t)n), v = (int)(next_rand() % (uint64_t)n);
            if (u != v)
                sc_edges_add(&e, u, v, 1.0 + (double)(next_rand() % 3));
        }
        if (trial % 4 == 1) /* a switch and a heavier node */
            e.w[0] = 0, e.w[n - 1] = 3;
        sc_graph g;
        sc_result ex, bd;
        ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_exact(&g, &ex, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_bounds(&g, &bd, err, sizeof err), 0);
        ASSERT_TRUE(bd.alpha_lower <= ex.alpha + 1e-9);
        ASSERT_TRUE(bd.alpha_upper >= ex.alpha - 1e-9);
        ASSERT_NEAR(sc_ratio(&g, bd.set), bd.alpha_upper, 1e-9);
        ASSERT_TRUE(bd.alpha_lower > 0);
        tight += fabs(bd.alpha_upper - ex.alpha) < 1e-9;
        total++;
        sc_result_free(&ex);
        sc_result_free(&bd);
        sc_graph_free(&g);
        sc_edges_free(&e);
    }
    printf("# bounds: upper bound exact on %d of %d random graphs\n", tight, total);
    ASSERT_TRUE(tight * 10 >= total * 8); /* the searches find the optimum on most */
}

/* The bounds path on tori finds the slab (METIS) and brackets the closed form. */
static void t_bounds_on_tori(void)
{
    const char *shapes[] = {"8x8x8", "16x8", "6x6x6m", "12x10"};
    char err[256];
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        torus_shape s;
        sc_graph g;
        sc_result cf, bd;
        ASSERT_EQ_INT(torus_shape_parse(shapes[i], 0, &s, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_closed_form(&s, &cf, 0, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_graph_from_shape(&g, &s, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_bounds(&g, &bd, err, sizeof err), 0);
        ASSERT_TRUE(bd.alpha_lower <= cf.alpha + 1e-12);
        ASSERT_NEAR(bd.alpha_upper, cf.alpha, 1e-12);
        /* Cheeger on a torus: lambda2 = 2 - 2cos(2 pi / k_max) per link pair */
        sc_result_free(&cf);
        sc_result_free(&bd);
        sc_graph_free(&g);
    }
}

static const test_case cases[] = {
    {"table2_bluegene_partitions", t_table2_bluegene_partitions},
    {"hypercube", t_hypercube},
    {"torus_of_twos_doubles_links", t_torus_of_twos_doubles_links},
    {"shape_errors", t_shape_errors},
    {"edge_list_ring_with_switch", t_edge_list_ring_with_switch},
    {"metis_weighted_ring", t_metis_weighted_ring},
    {"directed_ring", t_directed_ring},
    {"edge_list_errors", t_edge_list_errors},
    {"metis_errors", t_metis_errors},
    {"unconnected_graphs_and_missing_file", t_unconnected_graphs_and_missing_file},
    {"random_graphs_bracketed", t_random_graphs_bracketed},
    {"bounds_on_tori", t_bounds_on_tori},
};

/* the graph files go to one temporary folder, removed at the end */
int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 2;
    int rc = TEST_RUN(argc, argv, "test_sparsest_cut", cases);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
    return rc;
}
