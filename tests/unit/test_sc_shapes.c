/*
 * test_sc_shapes.c - the closed forms of sparsest_cut/closed_form.c against
 * exact enumeration on every torus/mesh shape of 2..28 nodes: every
 * factorisation (dimension order does not change the graph) with every
 * torus/mesh choice per dimension, plus orders and size-1 dimensions that
 * exercise the parser and the node numbering.  Several seconds: run once
 * per `make test` (SC_EXHAUSTIVE=0 skips it, saying so).  Always run: the
 * links of dimensions of 2 (a torus ring of 2 is two parallel links, a mesh
 * of 2 and the grammar's hypercube:D one), with exact alphas and bisections.
 */
#include "sparsest_cut.h"
#include "../test.h"

#include <stdlib.h>

static int checked;

static void check_shape(const torus_shape *s)
{
    char name[128], err[256];
    torus_shape_format(s, name, sizeof name);
    sc_result cf, ex;
    sc_graph g;
    ASSERT_EQ_INT(sc_closed_form(s, &cf, 1, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_from_shape(&g, s, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_exact(&g, &ex, err, sizeof err), 0);
    int fails = t_fail;
    ASSERT_NEAR(cf.alpha, ex.alpha, 1e-12);
    /* the closed form's set really achieves alpha */
    ASSERT_NEAR(sc_ratio(&g, cf.set), cf.alpha, 1e-12);
    if (cf.bisection >= 0)
        ASSERT_NEAR(cf.bisection, ex.bisection, 1e-12);
    if (t_fail > fails)
        fprintf(stderr, "  shape %s: closed alpha %g bis %g, exact alpha %g bis %g\n", name, cf.alpha, cf.bisection,
                ex.alpha, ex.bisection);
    checked++;
    sc_result_free(&cf);
    sc_result_free(&ex);
    sc_graph_free(&g);
}

/* Capacity between u and v: the graph merges parallel links into one edge
 * carrying their count. */
static double link_cap(const sc_graph *g, int u, int v)
{
    for (int p = g->off[u]; p < g->off[u + 1]; p++)
        if (g->adj[p] == v)
            return g->cap[p];
    return 0;
}

/* Dimensions of 2: each spelling's graph, links and cut values. */
static void t_dimensions_of_two(void)
{
    static const struct {
        const char *shape, *name; /* as written, as torus_shape_format prints it */
        double links;             /* between partners along each dimension */
        double alpha, bisection;  /* half of one dimension: n/2 pairs cut */
    } t[] = {
        {"hypercube:3", "2mx2mx2m", 1, 1, 4}, {"2mx2mx2m", "2mx2mx2m", 1, 1, 4}, {"2x2x2", "2x2x2", 2, 2, 8},
        {"hypercube:1", "2m", 1, 1, 1},       {"2", "2", 2, 2, 2},
    };
    char err[256], name[64];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        torus_shape s;
        sc_graph g;
        sc_result cf, ex;
        ASSERT_EQ_INT(torus_shape_parse(t[i].shape, 0, &s, err, sizeof err), 0);
        torus_shape_format(&s, name, sizeof name);
        ASSERT_EQ_INT(strcmp(name, t[i].name), 0);
        ASSERT_EQ_INT(sc_graph_from_shape(&g, &s, err, sizeof err), 0);
        for (int v = 0; v < s.n; v++) {
            ASSERT_EQ_INT(g.off[v + 1] - g.off[v], s.ndims); /* one neighbour per dimension */
            for (int d = 0; d < s.ndims; d++)
                ASSERT_NEAR(link_cap(&g, v, v ^ (1 << d)), t[i].links, 0);
        }
        ASSERT_EQ_INT(sc_closed_form(&s, &cf, 1, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_exact(&g, &ex, err, sizeof err), 0);
        ASSERT_NEAR(cf.alpha, t[i].alpha, 0);
        ASSERT_NEAR(ex.alpha, t[i].alpha, 0);
        ASSERT_NEAR(cf.bisection, t[i].bisection, 0);
        ASSERT_NEAR(ex.bisection, t[i].bisection, 0);
        ASSERT_NEAR(sc_ratio(&g, cf.set), t[i].alpha, 0);
        sc_result_free(&cf);
        sc_result_free(&ex);
        sc_graph_free(&g);
    }
}

/* A dimension of 2 beside a longer one: nodes 0 and 4 are partners
 * along y (stride 4), two links as a ring, one as a line. */
static void t_dimension_of_two_beside_longer(void)
{
    char err[256];
    const char *mixed[] = {"4x2", "4x2m"};
    for (int m = 0; m < 2; m++) {
        torus_shape s;
        sc_graph g;
        ASSERT_EQ_INT(torus_shape_parse(mixed[m], 0, &s, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_graph_from_shape(&g, &s, err, sizeof err), 0);
        ASSERT_NEAR(link_cap(&g, 0, 4), m ? 1 : 2, 0);
        ASSERT_NEAR(link_cap(&g, 3, 0), 1, 0); /* the x ring's wrap link */
        sc_graph_free(&g);
        check_shape(&s);
    }
}

/* every non-increasing factorisation of n into factors >= 2 */
static void factorisations(int n, int maxf, torus_shape *s)
{
    if (n == 1) {
        if (s->ndims == 0)
            return;
        s->n = 1;
        for (int i = 0; i < s->ndims; i++)
            s->n *= s->k[i];
        for (int m = 0; m < 1 << s->ndims; m++) {
            for (int i = 0; i < s->ndims; i++)
                s->mesh[i] = (m >> i) & 1;
            check_shape(s);
        }
        return;
    }
    for (int f = maxf < n ? maxf : n; f >= 2; f--)
        if (n % f == 0) {
            s->k[s->ndims++] = f;
            factorisations(n / f, f, s);
            s->ndims--;
        }
}

/* every shape of 2..28 nodes, then orders and size-1 dimensions through
 * the parser */
static void t_every_shape_to_28_nodes(void)
{
    const char *e = getenv("SC_EXHAUSTIVE");
    if (e && !strcmp(e, "0")) {
        printf("# every shape of 2..28 nodes skipped (SC_EXHAUSTIVE=0; serial code, checked in the other pass)\n");
        return;
    }
    torus_shape s;
    memset(&s, 0, sizeof s);
    for (int n = 2; n <= 28; n++)
        factorisations(n, n, &s);
    /* orders and size-1 dimensions through the parser */
    const char *more[] = {"2x7x2", "3x1x4m", "1x1x6", "2mx3x4m", "5x1x5m", "2x2m", "1x13"};
    char err[256];
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
        ASSERT_EQ_INT(torus_shape_parse(more[i], 0, &s, err, sizeof err), 0);
        check_shape(&s);
    }
    printf("# %d shapes of 2..28 nodes: closed form == exact enumeration\n", checked);
}

static const test_case cases[] = {
    {"dimensions_of_two", t_dimensions_of_two},
    {"dimension_of_two_beside_longer", t_dimension_of_two_beside_longer},
    {"every_shape_to_28_nodes", t_every_shape_to_28_nodes},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_sc_shapes", cases);
}

