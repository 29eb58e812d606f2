/*
 * test_coll_node.c - the node-aware barrier with a node layout (test_coll
 * runs every algorithm with node_of NULL only): ranks in nodes of equal
 * and unequal sizes, nodes spread round-robin over the ranks with node
 * numbers that are neither small nor sorted, every rank its own node, and
 * no layout at all.  Each run must terminate with no request open, nobody
 * may leave a barrier before everybody has entered it, and every rank
 * must send and receive exactly the messages of the file's cost formula,
 * which must equal the closed form worked out here from the layout.
 */
#include "../test.h"
#include "coll_impl.h"

#include <stdlib.h>
#include <string.h>

#define CALLS 6 /* barriers per run: 3 rounds of enter + check */

typedef struct ncase {
    int n;
    const int *node_of;
    unsigned char arrived[64];
    char why[256];
} ncase;

static int log2_ceil(int n)
{
    int r = 0;
    while ((1 << r) < n)
        r++;
    return r;
}

/* The closed form: a node's lowest rank sends (and receives) ceil(log2
 * nodes) + (ranks on its node - 1) messages, every other rank 1; the
 * critical path is ceil(log2 nodes) rounds, + 2 when some node holds more
 * than one rank. */
static void expected(const ncase *t, int r, uint64_t *msgs, double *rounds)
{
    int n = t->n, nodes = 0, size = 0, lead = r;
    for (int q = 0; q < n; q++) {
        int first = 1;
        for (int p = 0; p < q && t->node_of && first; p++)
            first = t->node_of[p] != t->node_of[q];
        nodes += first;
        if (t->node_of ? t->node_of[q] == t->node_of[r] : q == r) {
            size++;
            if (q < lead)
                lead = q;
        }
    }
    *msgs = lead == r ? (uint64_t)(log2_ceil(nodes) + size - 1) : 1;
    *rounds = log2_ceil(nodes) + (nodes < n ? 2 : 0);
}

static int body(torus_coll *c, int r, void *arg)
{
    ncase *t = arg;
    int rc = torus_coll_force(c, TORUS_COLL_BARRIER, "node_aware");
    for (int round = 0; round < 3 && !rc; round++) {
        t->arrived[r] = (unsigned char)(round + 1);
        rc = torus_coll_barrier(c);
        /* nobody leaves a barrier before everybody has entered it */
        for (int j = 0; j < t->n && !rc; j++)
            if (t->arrived[j] < round + 1) {
                snprintf(t->why, sizeof t->why, "rank %d left barrier %d before rank %d entered", r, round, j);
                rc = -11;
            }
        rc = rc ? rc : torus_coll_barrier(c); /* everyone has checked before the next round writes */
    }
    if (!rc && strcmp(torus_coll_last(c, TORUS_COLL_BARRIER), "node_aware")) {
        snprintf(t->why, sizeof t->why, "rank %d ran '%s', not node_aware", r, torus_coll_last(c, TORUS_COLL_BARRIER));
        rc = -16;
    }
    if (rc)
        return rc;
    uint64_t m = 0, b = 0, want;
    double rounds;
    expected(t, r, &want, &rounds);
    torus_coll_counts k;
    torus_coll_get_counts(c, &k);
    if (torus__coll_cost_of(c, TORUS_COLL_BARRIER, "node_aware", 0, r, &m, &b) || m != want || b != 0) {
        snprintf(t->why, sizeof t->why, "rank %d: formula %llu messages / %llu bytes, closed form %llu / 0", r,
                 (unsigned long long)m, (unsigned long long)b, (unsigned long long)want);
        return -17;
    }
    if (k.msgs_sent != CALLS * want || k.bytes_sent != 0 || k.msgs_recv != CALLS * want || k.bytes_recv != 0) {
        snprintf(t->why, sizeof t->why, "rank %d sent %llu / received %llu messages (%llu / %llu bytes), want %llu", r,
                 (unsigned long long)k.msgs_sent, (unsigned long long)k.msgs_recv, (unsigned long long)k.bytes_sent,
                 (unsigned long long)k.bytes_recv, (unsigned long long)(CALLS * want));
        return -18;
    }
    /* alpha = 1, beta = gamma = 0: the prediction is the rounds */
    double pred = torus_coll_predict(c, TORUS_COLL_BARRIER, "node_aware", 0, 1.0, 0.0, 0.0);
    if (pred != rounds) {
        snprintf(t->why, sizeof t->why, "rank %d: predicted %g rounds, closed form %g", r, pred, rounds);
        return -19;
    }
    return 0;
}

static void run(const char *shape, int n, const int *node_of, const char *what)
{
    torus_shape s;
    char err[128];
    ASSERT_EQ_INT(torus_shape_parse(shape, n, &s, err, sizeof err), 0);
    torus_map m;
    ASSERT_EQ_INT(torus_map_xyzt(&m, &s), 0);
    for (int seed = 1; seed <= 6; seed++) {
        ncase t = {.n = n, .node_of = node_of};
        /* rendezvous and buffered sends, deliveries delayed at random */
        torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = seed % 2 ? 0.0 : 0.7, .eager_queue = 4,
                               .delay_prob = 0.3, .seed = (uint64_t)seed};
        torus_coll_vrun_result res;
        ASSERT_EQ_INT(torus_coll_vrun_sim(&m, &sp, node_of, body, &t, &res), 0);
        if (res.deadlock || res.unfinished || res.failed_rank >= 0 || res.open_requests)
            fprintf(stderr, "node_aware %s on %s (N=%d) seed %d: deadlock=%d unfinished=%d open=%d "
                            "failed rank %d (%d): %s %s\n",
                    what, shape, n, seed, res.deadlock, res.unfinished, res.open_requests, res.failed_rank, res.rc,
                    t.why, res.err);
        ASSERT_EQ_INT(res.deadlock, 0);
        ASSERT_EQ_INT(res.unfinished, 0);
        ASSERT_EQ_INT(res.failed_rank, -1);
        ASSERT_EQ_INT(res.open_requests, 0);
    }
    torus_map_free(&m);
}

static void t_three_nodes_of_four(void)
{
    static const int three_of_four[12] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
    run("12", 12, three_of_four, "3 nodes of 4");
    run("3x4", 12, three_of_four, "3 nodes of 4");
}

static void t_uneven_nodes(void)
{
    static const int uneven[10] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2};
    run("10", 10, uneven, "nodes of 4+4+2");
    run("2x5", 10, uneven, "nodes of 4+4+2");
}

static void t_every_rank_its_own_node(void)
{
    static const int alone[7] = {0, 1, 2, 3, 4, 5, 6};
    run("7", 7, alone, "every rank its own node");
}

static void t_no_layout(void)
{
    run("7", 7, NULL, "no layout");
}

/* round-robin placement, node numbers large, negative and unsorted */
static void t_round_robin_unsorted_node_numbers(void)
{
    static const int spread[9] = {40, -3, 7, 40, -3, 7, 40, -3, 7};
    run("3x3", 9, spread, "3 nodes round-robin");
}

static void t_two_nodes_of_eight(void)
{
    static const int two_nodes[16] = {5, 5, 5, 5, 5, 5, 5, 5, 9, 9, 9, 9, 9, 9, 9, 9};
    run("4x4", 16, two_nodes, "2 nodes of 8");
}

static void t_one_node(void)
{
    static const int one_node[5] = {3, 3, 3, 3, 3};
    run("5", 5, one_node, "one node");
}

static void t_one_rank(void)
{
    static const int single[1] = {0};
    run("1", 1, single, "one rank");
    run("1", 1, NULL, "one rank, no layout");
}

static const test_case cases[] = {
    {"three_nodes_of_four", t_three_nodes_of_four},
    {"uneven_nodes", t_uneven_nodes},
    {"every_rank_its_own_node", t_every_rank_its_own_node},
    {"no_layout", t_no_layout},
    {"round_robin_unsorted_node_numbers", t_round_robin_unsorted_node_numbers},
    {"two_nodes_of_eight", t_two_nodes_of_eight},
    {"one_node", t_one_node},
    {"one_rank", t_one_rank},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_coll_node", cases);
}
