/*
 * test_model_rules.c - the rules docs/machines.md states for the calculator,
 * each asserted over generated inputs rather than one example (issue 48,
 * class 5):
 *   - the sensitivity line: every input 10% larger moves the prediction by
 *     at most the bound's own exponent, with the sign physics gives (every
 *     bound is f / (a + b f) in the clock, and a power of at most one in
 *     each other input): +0..+10% for the clock, misses in flight, memory,
 *     injection and link bandwidth and the message rate; -9.1..0% for the
 *     memory latency, the instruction costs and the MPI latency;
 *   - the reduced torus of the scale term: the first longest dimension
 *     kept, the largest other halved until at most N nodes, refused when
 *     that dimension alone is longer than N;
 *   - one node needs no link: its network bound is unbounded without one.
 * The generator is a fixed LCG, so a failure names a case that repeats.
 */
#include "../test.h"
#include "torusmodel.h"

#include <math.h>
#include <stdlib.h>

static unsigned long long lcg = 0x2545F4914F6CDD1DULL;

static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* log-uniform in [lo, hi] */
static double logu(double lo, double hi)
{
    return lo * pow(hi / lo, uniform());
}

static int pick(int lo, int hi)
{
    return lo + (int)(uniform() * (hi - lo + 1)) % (hi - lo + 1);
}

/* A node machine from the generator, as --node would give it, and a shape
 * whose leading dimension is one node's ranks: R x (a torus of nodes). */
static void machine(tm_params *p, torus_shape *s, char *desc, size_t len)
{
    char spec[600], err[512];
    int cores = 1 << pick(0, 6);
    snprintf(spec, sizeof spec,
             "clock_ghz=%.3g,cores=%d,mem_latency_ns=%.3g,mlp=%.3g,mem_bw_gbs=%.3g,issue_width=%d,in_order=%d,"
             "mpi_latency_us=%.3g,inj_gbs=%.3g,msg_rate_m=%.3g,link_gbs=%.3g",
             logu(0.5, 5), cores, logu(40, 400), logu(1, 64), logu(1, 2000), pick(1, 8), pick(0, 1),
             logu(0.1, 10), logu(0.5, 100), logu(1, 500), logu(0.2, 50));
    tm_params_defaults(p);
    ASSERT_EQ_INT(tm_node_spec(p, spec, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(p, "network", "nodes", err, sizeof err), 0);
    p->algorithm = uniform() < 0.5 ? TM_ROUTED : TM_DIRECT;
    /* the baseline's mean bucket (--bucketed), or one update a message */
    p->updates_per_message = p->algorithm == TM_DIRECT && uniform() < 0.5 ? logu(1, 64) : 1;
    char sh[128];
    int nd = pick(1, 3);
    size_t o = (size_t)snprintf(sh, sizeof sh, "%d", cores);
    for (int d = 0; d < nd; d++)
        o += (size_t)snprintf(sh + o, sizeof sh - o, "x%d", pick(2, 12));
    memset(s, 0, sizeof *s);
    ASSERT_EQ_INT(torus_shape_parse(sh, 0, s, err, sizeof err), 0);
    snprintf(desc, len, "--node %s --shape %s --algorithm %s (m %.3g)", spec, sh,
             p->algorithm == TM_ROUTED ? "routed" : "direct", p->updates_per_message);
}

/* The sign each input's +10% may move a prediction by: +1 up, -1 down. */
static int sign_of(const char *name)
{
    static const char *const down[] = {"mem_latency", "instr", "mpi_latency"};
    for (size_t i = 0; i < sizeof down / sizeof *down; i++)
        if (!strcmp(name, down[i]))
            return -1;
    return 1;
}

static void sensitivity_bounded(void)
{
    int checked = 0;
    for (int c = 0; c < 400; c++) {
        tm_params p;
        torus_shape s;
        char desc[900], err[512], line[400];
        machine(&p, &s, desc, sizeof desc);
        tm_row r;
        if (tm_evaluate(&p, &s, &r, err, sizeof err)) {
            fprintf(stderr, "  %s: %s\n", desc, err);
            ASSERT_TRUE(0);
            continue;
        }
        r.first_order_gups = r.predicted_gups; /* tm_scale's "held" term, none here */
        ASSERT_EQ_INT(tm_sensitivity(&p, &s, &r, line, sizeof line), 0);
        /* "name +x.x%, name -y.y%, ...": printed to 0.1 */
        char *save = NULL;
        int items = 0;
        for (char *t = strtok_r(line, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char name[32];
            double d;
            if (sscanf(t, " %31s %lf%%", name, &d) != 2) {
                ASSERT_TRUE(0);
                continue;
            }
            items++;
            int ok = sign_of(name) > 0 ? d >= -0.05 && d <= 10.05 : d >= -9.15 && d <= 0.05;
            if (!ok)
                fprintf(stderr, "  %s: %s %+.1f%% outside its exponent's range\n", desc, name, d);
            ASSERT_TRUE(ok);
            checked++;
        }
        ASSERT_TRUE(items >= 6); /* clock, latency, mlp, bandwidth, instr, MPI latency at least */
    }
    ASSERT_TRUE(checked > 2400);
}

/* The rule restated: keep the first longest dimension, halve the largest
 * other (the first of equals) until at most max nodes. */
static void reference_reduce(const torus_shape *t, int max, torus_shape *r)
{
    *r = *t;
    int keep = 0;
    for (int i = 1; i < t->ndims; i++)
        if (t->k[i] > t->k[keep])
            keep = i;
    for (;;) {
        long n = 1;
        int big = -1;
        for (int i = 0; i < r->ndims; i++) {
            n *= r->k[i];
            if (i != keep && r->k[i] > 1 && (big < 0 || r->k[i] > r->k[big]))
                big = i;
        }
        r->n = (int)n;
        if (n <= max)
            return;
        r->k[big] /= 2;
    }
}

static void reduced_torus_rule(void)
{
    int reduced = 0, refused = 0;
    for (int c = 0; c < 3000; c++) {
        torus_shape t, r, want;
        char sh[128], err[256];
        int nd = pick(1, 5);
        size_t o = 0;
        for (int d = 0; d < nd; d++)
            o += (size_t)snprintf(sh + o, sizeof sh - o, "%s%d", d ? "x" : "", pick(1, 64));
        memset(&t, 0, sizeof t);
        ASSERT_EQ_INT(torus_shape_parse(sh, 0, &t, err, sizeof err), 0);
        int max = pick(16, 8192), keep = 0;
        for (int i = 1; i < t.ndims; i++)
            if (t.k[i] > t.k[keep])
                keep = i;
        int rc = tm_scale_reduce(&t, max, &r);
        if (t.n > max && t.k[keep] > max) {
            ASSERT_EQ_INT(rc, -1); /* the rule cannot keep that dimension */
            refused++;
            continue;
        }
        ASSERT_EQ_INT(rc, 0);
        reference_reduce(&t, max, &want);
        ASSERT_EQ_INT(r.ndims, t.ndims);
        ASSERT_EQ_INT(r.k[keep], t.k[keep]); /* the long ring, the cause of the loss, stays */
        ASSERT_TRUE(r.n <= max);
        long n = 1;
        int same = 1;
        for (int i = 0; i < r.ndims; i++) {
            n *= r.k[i];
            same &= r.k[i] == want.k[i] && r.k[i] >= 1 && r.k[i] <= t.k[i] && r.mesh[i] == t.mesh[i];
        }
        ASSERT_EQ_INT(n, r.n);
        if (!same)
            fprintf(stderr, "  %s at %d nodes: not the rule's reduced torus\n", sh, max);
        ASSERT_TRUE(same);
        reduced += t.n > max;
    }
    ASSERT_TRUE(reduced > 100 && refused > 10);
}

/* tm_scale under a --scale-nodes below the longest dimension: refused with
 * one line naming both, never a torus without its long ring. */
static void scale_nodes_refused(void)
{
    tm_params p;
    char err[512];
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_preset(&p, "bgl-routed", err, sizeof err), 0);
    torus_shape s;
    memset(&s, 0, sizeof s);
    ASSERT_EQ_INT(torus_shape_parse("64x32x32", 0, &s, err, sizeof err), 0);
    for (int n = 16; n < 64; n += 7) {
        tm_row r;
        p.scale_nodes = n;
        ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
        err[0] = 0;
        ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, "--scale-nodes");
        ASSERT_STR_CONTAINS(err, "(64)");
        ASSERT_TRUE(strchr(err, '\n') == NULL);
    }
}

/* One node crosses no link: without a link bandwidth its network bound is
 * unbounded and the prediction the node's; two nodes need one. */
static void one_node_no_link(void)
{
    for (int c = 0; c < 50; c++) {
        tm_params p;
        torus_shape s;
        char desc[900], err[512];
        machine(&p, &s, desc, sizeof desc);
        p.link_bw = 0;
        int cores = (int)p.cores_per_node;
        char sh[32];
        snprintf(sh, sizeof sh, "%d", cores);
        memset(&s, 0, sizeof s);
        ASSERT_EQ_INT(torus_shape_parse(sh, 0, &s, err, sizeof err), 0);
        ASSERT_EQ_INT(tm_param_set(&p, "network", "shape", err, sizeof err), 0);
        tm_row r;
        ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
        ASSERT_NEAR(r.nodes, 1, 0);
        ASSERT_TRUE(isinf(r.net_gups));
        ASSERT_TRUE(isfinite(r.predicted_gups) && r.predicted_gups > 0);
    }
}

/* Hardware threads (node.c): t ranks on a core share its issue slots and
 * its m misses in flight, so the core's cycles per update are
 * max(W, W / t + miss / m), W = the local update's instructions plus H
 * hops; t = 1 is the model without threads. */
static void threads_closed_form(void)
{
    static const struct { double cores, ranks, threads, mlp; } c[] = {
        {4, 4, 1, 2}, {4, 4, 4, 2}, {4, 8, 4, 2}, {4, 16, 4, 2}, {4, 32, 4, 2}, {16, 64, 4, 8}, {2, 4, 2, 64}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tm_params p;
        char err[512], sh[32];
        tm_params_defaults(&p);
        ASSERT_EQ_INT(tm_param_set(&p, "clock_hz", "2e9", err, sizeof err), 0);
        ASSERT_EQ_INT(tm_param_set(&p, "mem_latency_ns", "100", err, sizeof err), 0); /* 200 cycles */
        ASSERT_EQ_INT(tm_param_set(&p, "instr_local", "5", err, sizeof err), 0);
        ASSERT_EQ_INT(tm_param_set(&p, "instr_hop", "30", err, sizeof err), 0);
        ASSERT_EQ_INT(tm_param_set(&p, "instr_test", "60", err, sizeof err), 0);
        p.node.v[TM_N_MLP] = c[i].mlp;
        p.cores_per_node = c[i].cores, p.ranks_per_node = c[i].ranks, p.threads_per_core = c[i].threads;
        p.link_bw = 1e15, p.bytes_per_update = 10, p.algorithm = TM_ROUTED;
        snprintf(sh, sizeof sh, "%.0f", c[i].ranks);
        torus_shape s;
        memset(&s, 0, sizeof s);
        ASSERT_EQ_INT(torus_shape_parse(sh, 0, &s, err, sizeof err), 0);
        tm_row r;
        ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
        double t = c[i].ranks / c[i].cores < c[i].threads ? c[i].ranks / c[i].cores : c[i].threads;
        double H = 1 - 1 / c[i].ranks, w = 5 + H * 30, want = fmax(w, w / t + 200 / c[i].mlp);
        ASSERT_NEAR(r.cycles_per_update / want, 1, 1e-12);
        ASSERT_NEAR(r.cpu_gups / (c[i].cores * 2.0 / want), 1, 1e-12);
    }
}

/* Over generated machines: threads never slow a node, never beat the
 * issue slots (one thread's instructions per update), and change nothing
 * where each core runs one rank. */
static void threads_generated(void)
{
    for (int c = 0; c < 300; c++) {
        tm_params p;
        torus_shape s;
        char desc[900], err[512];
        machine(&p, &s, desc, sizeof desc);
        p.algorithm = TM_ROUTED;
        tm_row one, same, smt;
        ASSERT_EQ_INT(tm_evaluate(&p, &s, &one, err, sizeof err), 0);
        tm_params q = p;
        q.threads_per_core = 1 << pick(1, 3);
        ASSERT_EQ_INT(tm_evaluate(&q, &s, &same, err, sizeof err), 0);
        ASSERT_NEAR(same.cpu_gups, one.cpu_gups, 0); /* one rank a core: no thread shares it */
        /* the same node with t ranks a core, with and without the threads */
        torus_shape s2 = s;
        double t = q.threads_per_core;
        s2.k[0] *= (int)t, s2.n *= (int)t;
        tm_params p1 = p, pt = q;
        p1.ranks_per_node = pt.ranks_per_node = p.ranks_per_node * t;
        tm_row r1;
        ASSERT_EQ_INT(tm_evaluate(&p1, &s2, &r1, err, sizeof err), 0);
        ASSERT_EQ_INT(tm_evaluate(&pt, &s2, &smt, err, sizeof err), 0);
        int ok = smt.cpu_gups >= r1.cpu_gups * (1 - 1e-12);
        /* the issue slots: W = instructions alone, at most the core's rate */
        double s_ipc = p.node.v[TM_N_IPC_SCALE] > 0 ? p.node.v[TM_N_IPC_SCALE] : 1;
        double w = s_ipc * p.node.v[TM_N_INSTR_LOCAL] + smt.hops * smt.cycles_hop;
        ok &= smt.cycles_per_update >= w * (1 - 1e-12);
        if (!ok)
            fprintf(stderr, "  %s x %g threads: %g GUPS against %g without, %g cycles against W %g\n", desc, t,
                    smt.cpu_gups, r1.cpu_gups, smt.cycles_per_update, w);
        ASSERT_TRUE(ok);
    }
}

static const test_case cases[] = {
    {"sensitivity_within_exponent_and_sign", sensitivity_bounded},
    {"reduced_torus_keeps_longest_dimension", reduced_torus_rule},
    {"scale_nodes_below_longest_refused", scale_nodes_refused},
    {"one_node_needs_no_link", one_node_no_link},
    {"threads_closed_form", threads_closed_form},
    {"threads_never_slow_never_beat_issue", threads_generated},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_model_rules", cases);
}
