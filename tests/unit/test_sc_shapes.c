/*
 * test_sc_shapes.c - the closed forms of sparsest_cut/closed_form.c against
 * exact enumeration on every torus/mesh shape of 2..28 nodes: every
 * factorisation (dimension order does not change the graph) with every
 * torus/mesh choice per dimension, plus orders and size-1 dimensions that
 * exercise the parser and the node numbering.  Several seconds: run once
 * per `make test` (SC_EXHAUSTIVE=0 skips it, saying so).
 */
#include "sc.h"
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

int main(void)
{
    const char *e = getenv("SC_EXHAUSTIVE");
    if (e && !strcmp(e, "0")) {
        printf("test_sc_shapes: skipped (SC_EXHAUSTIVE=0; serial code, checked in the other pass): 0 passed, 0 failed\n");
        return 0;
    }
    torus_shape s;
    memset(&s, 0, sizeof s);
    for (int n = 2; n <= 28; n++)
        factorisations(n, n, &s);
    /* orders and size-1 dimensions through the parser */
    const char *more[] = {"2x7x2", "3x1x4m", "1x1x6", "2mx3x4m", "5x1x5m", "2x2m", "1x13"};
    char err[256];
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
        ASSERT_EQ_INT(sc_shape_parse(more[i], 0, &s, err, sizeof err), 0);
        check_shape(&s);
    }
    printf("# %d shapes of 2..28 nodes: closed form == exact enumeration\n", checked);
    TEST_MAIN_END("test_sc_shapes");
}
