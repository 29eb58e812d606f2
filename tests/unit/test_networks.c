/*
 * test_networks.c - fat-trees and dragonflies (sparsest_cut/networks.c):
 * the closed-form alpha and bisection against exact enumeration of every
 * cut on every small instance (up to SC_EXACT_MAX nodes, switches
 * included), the graphs' degrees, and the parser's refusals.
 */
#include "../test.h"
#include "sparsest_cut.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* closed form == exact enumeration on one network; returns 1 if compared */
static int against_exact(const char *txt)
{
    sc_network net;
    char err[512];
    ASSERT_EQ_INT(sc_network_parse(txt, &net, err, sizeof err), 0);
    if (net.hosts + net.switches > SC_EXACT_MAX)
        return 0;
    sc_result cf, ex;
    sc_graph g;
    ASSERT_EQ_INT(sc_network_closed_form(&net, &cf, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_from_network(&g, &net, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_exact(&g, &ex, err, sizeof err), 0);
    int before = t_fail;
    ASSERT_NEAR(cf.alpha, ex.alpha, 1e-9);
    ASSERT_NEAR(ex.wtotal, (double)net.hosts, 0);
    if (!strcmp(cf.bisection_method, "closed-form"))
        ASSERT_NEAR(cf.bisection, ex.bisection, 1e-9);
    else /* no closed form: the bound alpha * floor(H/2) still holds */
        ASSERT_TRUE(ex.bisection >= cf.alpha * floor((double)net.hosts / 2) - 1e-9);
    if (t_fail > before)
        fprintf(stderr, "  %s: closed alpha %g bisection %g, exact alpha %g bisection %g\n", txt, cf.alpha,
                cf.bisection, ex.alpha, ex.bisection);
    sc_result_free(&cf), sc_result_free(&ex), sc_graph_free(&g);
    return 1;
}

static void t_fattree_closed_form_equals_exact(void)
{
    int compared = 0;
    static const char *const nets[] = {"fattree:2,1",   "fattree:3,1",   "fattree:2,2",     "fattree:3,2",
                                       "fattree:4,2",   "fattree:2,3",   "fattree:2,2,2",   "fattree:2,3,2",
                                       "fattree:4,2,2", "fattree:3,2,3", "fattree:4,2,1.5", "fattree:2,3,4"};
    for (size_t i = 0; i < sizeof nets / sizeof *nets; i++)
        compared += against_exact(nets[i]);
    ASSERT_EQ_INT(compared, (int)(sizeof nets / sizeof *nets));
}

/* 20-ary 3-tree (HDR 40-port switches): 8000 hosts, 3 x 400 switches,
 * full bisection 4000 links; tapered 2:1 half of it */
static void t_fattree_20_ary_3_tree(void)
{
    sc_network net;
    sc_result r;
    char err[512];
    ASSERT_EQ_INT(sc_network_parse("fattree:20,3", &net, err, sizeof err), 0);
    ASSERT_EQ_INT((int)net.hosts, 8000);
    ASSERT_EQ_INT((int)net.switches, 1200);
    ASSERT_EQ_INT(sc_network_closed_form(&net, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.alpha, 1, 0);
    ASSERT_NEAR(r.bisection, 4000, 0);
    sc_result_free(&r);
    ASSERT_EQ_INT(sc_network_parse("fattree:20,3,2", &net, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_network_closed_form(&net, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.alpha, 0.5, 0);
    ASSERT_NEAR(r.bisection, 2000, 0);
    sc_result_free(&r);
}

/* every switch of a 4-ary 3-tree but the top has 2K links */
static void t_fattree_switch_degrees(void)
{
    sc_network net;
    char err[512];
    sc_graph g;
    ASSERT_EQ_INT(sc_network_parse("fattree:4,3", &net, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_graph_from_network(&g, &net, err, sizeof err), 0);
    for (int v = 64; v < g.n; v++)
        ASSERT_EQ_INT(g.off[v + 1] - g.off[v], v < 64 + 32 ? 8 : 4);
    sc_graph_free(&g);
}

static void t_dragonfly_closed_form_equals_exact(void)
{
    int compared = 0;
    /* a, p, h, g: maximal (g = a h + 1) and smaller group counts, p up to 3 */
    static const char *const nets[] = {"dragonfly:2,1,1",   "dragonfly:2,2,1",   "dragonfly:2,3,1",
                                       "dragonfly:1,1,1",   "dragonfly:1,2,2",   "dragonfly:2,1,2",
                                       "dragonfly:3,1,1",   "dragonfly:2,1,2,3", "dragonfly:2,2,2,3",
                                       "dragonfly:4,1,1,3", "dragonfly:3,2,1,2", "dragonfly:2,1,3,7",
                                       "dragonfly:2,1,4,5", "dragonfly:2,2,1,2", "dragonfly:1,3,4,5"};
    for (size_t i = 0; i < sizeof nets / sizeof *nets; i++)
        compared += against_exact(nets[i]);
    ASSERT_EQ_INT(compared, (int)(sizeof nets / sizeof *nets));
}

/* every router has a-1 local, h global and p host links */
static void t_dragonfly_router_degrees(void)
{
    sc_network net;
    sc_graph g;
    char err[512];
    ASSERT_EQ_INT(sc_network_parse("dragonfly:4,2,2", &net, err, sizeof err), 0);
    ASSERT_EQ_INT((int)net.g, 9);
    ASSERT_EQ_INT(sc_graph_from_network(&g, &net, err, sizeof err), 0);
    for (int v = (int)net.hosts; v < g.n; v++)
        ASSERT_EQ_INT(g.off[v + 1] - g.off[v], 3 + 2 + 2);
    sc_graph_free(&g);
}

/* the parser's refusals: one line each, saying what is allowed */
static void t_bad_networks_refused(void)
{
    static const char *const bad[] = {"fattree:1,2",     "fattree:2",        "fattree:2,2,0.5", "fattree:2,9",
                                      "fattree:2,2,x",   "fattree:",         "dragonfly:2,1",   "dragonfly:2,1,2,4",
                                      "dragonfly:2,1,1,5", "dragonfly:0,1,1", "dragonfly:2,1,1,1", "fattree:64,8",
                                      "fattree:2,2,1,1", "dragonfly:2,1,1,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sc_network net;
        char err[512] = "";
        ASSERT_EQ_INT(sc_network_parse(bad[i], &net, err, sizeof err), -2);
        ASSERT_TRUE(strchr(err, '\n') == NULL && strstr(err, "allowed") != NULL);
    }
}

static const test_case cases[] = {
    {"fattree_closed_form_equals_exact", t_fattree_closed_form_equals_exact},
    {"fattree_20_ary_3_tree", t_fattree_20_ary_3_tree},
    {"fattree_switch_degrees", t_fattree_switch_degrees},
    {"dragonfly_closed_form_equals_exact", t_dragonfly_closed_form_equals_exact},
    {"dragonfly_router_degrees", t_dragonfly_router_degrees},
    {"bad_networks_refused", t_bad_networks_refused},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_networks", cases);
}
