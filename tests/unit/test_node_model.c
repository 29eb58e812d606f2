/*
 * test_node_model.c - torusmodel's node cost model (torusmodel/node.c)
 * through tm_evaluate, against the closed forms its limits give: one core,
 * one rank and no network (cpu = f / (instr_local + f L / mlp)); mlp without
 * bound (f / instr_local); the memory bound nodes B / (2 l); the message
 * term of a hop (none without an MPI latency, X/H of it shared by a packet
 * of fill updates otherwise); the IPC rule; the injection bound; the
 * baseline's costs (no overlap of misses, a test per update, a message per
 * bucket).  Also the --node spec (spec.c), the sensitivity line, the node
 * keys in a params file, and the scale term's none/full/reduced choices
 * (scale.c; the timed simulation itself is tested in test_ropt_timed.c).
 */
#include "../test.h"
#include "ropt_timed.h"
#include "torusmodel.h"

#include <math.h>
#include <stdlib.h>

#define F 2e9 /* the clock of the machines below */

/* relative comparison: |got / want - 1| <= tol */
#define ASSERT_REL(got, want, tol) ASSERT_NEAR((got) / (want), 1.0, (tol))

static torus_shape shape(const char *s)
{
    torus_shape t;
    char err[256];
    memset(&t, 0, sizeof t);
    ASSERT_EQ_INT(torus_shape_parse(s, 0, &t, err, sizeof err), 0);
    return t;
}

static void set(tm_params *p, const char *key, const char *value)
{
    char err[512];
    int rc = tm_param_set(p, key, value, err, sizeof err);
    ASSERT_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "  %s = %s: %s\n", key, value, err);
}

static tm_row eval(const tm_params *p, const char *s)
{
    tm_row r;
    char err[512];
    torus_shape t = shape(s);
    int rc = tm_evaluate(p, &t, &r, err, sizeof err);
    ASSERT_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "  tm_evaluate on %s: %s\n", s, err);
    return r;
}

/* A node of our own, given as a params file would give it (the node keys
 * through tm_param_set, so that each key lands in its own field): 2 GHz,
 * L = 100 ns (200 cycles), 10 misses in flight, instructions 5 / 30 / 60
 * cycles, no memory bandwidth, no MPI latency, no injection limits; a link
 * so fast the network never binds. */
static void node(tm_params *p, tm_algorithm a)
{
    tm_params_defaults(p);
    set(p, "clock_hz", "2e9");
    set(p, "bytes_per_update", "10");
    set(p, "link_bw", "1e15");
    set(p, "mem_latency_ns", "100");
    set(p, "mlp", "10");
    set(p, "instr_local", "5");
    set(p, "instr_hop", "30");
    set(p, "instr-test", "60"); /* dashes as the command line writes them */
    p->algorithm = a;
}

static void keys_land(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    set(&p, "mem_bw", "7e10");
    set(&p, "line_bytes", "128");
    set(&p, "mpi_latency_ns", "1500");
    set(&p, "inj_bw", "2.5e10");
    set(&p, "msg_rate", "1e8");
    set(&p, "ipc_scale", "1.5");
    ASSERT_TRUE(tm_node_given(&p));
    ASSERT_NEAR(p.node.v[TM_N_MEM_LATENCY], 100, 0);
    ASSERT_NEAR(p.node.v[TM_N_MLP], 10, 0);
    ASSERT_NEAR(p.node.v[TM_N_MEM_BW], 7e10, 0);
    ASSERT_NEAR(p.node.v[TM_N_LINE], 128, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_LOCAL], 5, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_HOP], 30, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_TEST], 60, 0);
    ASSERT_NEAR(p.node.v[TM_N_MPI_LATENCY], 1500, 0);
    ASSERT_NEAR(p.node.v[TM_N_INJ_BW], 2.5e10, 0);
    ASSERT_NEAR(p.node.v[TM_N_MSG_RATE], 1e8, 0);
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 1.5, 0);
    ASSERT_STR_EQ(tm_node_key(TM_N_MEM_LATENCY), "mem_latency_ns");
    ASSERT_STR_EQ(tm_node_key(TM_N_IPC_SCALE), "ipc_scale");
    ASSERT_TRUE(tm_node_key(TM_N_KEYS) == NULL && tm_node_key(-1) == NULL);
    /* without mem_latency_ns the node model is off: the old model's costs */
    tm_params q;
    tm_params_defaults(&q);
    set(&q, "mlp", "10");
    ASSERT_TRUE(!tm_node_given(&q));
    char err[512];
    ASSERT_EQ_INT(tm_param_set(&q, "mem_latency_ns", "-1", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "mem_latency_ns");
}

/* One core, one rank, no network: the CPU bound is the closed form */
static void one_core(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    tm_row r = eval(&p, "1");
    double want = F / (5 + F * 100e-9 / 10) / 1e9; /* 2 / 25 = 0.08 */
    ASSERT_REL(r.cpu_gups, want, 1e-12);
    ASSERT_REL(r.cpu_gups, 0.08, 1e-12);
    ASSERT_REL(r.cycles_local, 25, 1e-12);
    ASSERT_REL(r.cycles_per_update, 25, 1e-12);
    ASSERT_NEAR(r.hops, 0, 0);
    ASSERT_NEAR(r.hops_out, 0, 0);
    ASSERT_NEAR(r.nodes, 1, 0);
    ASSERT_TRUE(isinf(r.net_gups) && isinf(r.mem_gups) && isinf(r.inj_gups));
    ASSERT_STR_EQ(r.binding, "cpu");
    ASSERT_NEAR(r.predicted_gups, r.cpu_gups, 0);
    ASSERT_NEAR(r.first_order_gups, r.predicted_gups, 0);
    ASSERT_NEAR(r.scale_eta, 1, 0);
    /* the miss shares: 1, 2, 4 ... misses in flight */
    for (int m = 1; m <= 64; m *= 2) {
        char v[16];
        snprintf(v, sizeof v, "%d", m);
        set(&p, "mlp", v);
        r = eval(&p, "1");
        ASSERT_REL(r.cpu_gups, F / (5 + 200.0 / m) / 1e9, 1e-12);
    }
    /* mlp not given (0) counts as 1: every miss alone */
    p.node.v[TM_N_MLP] = 0;
    r = eval(&p, "1");
    ASSERT_REL(r.cpu_gups, F / 205 / 1e9, 1e-12);
    /* mlp without bound: the instructions alone, f / instr_local */
    set(&p, "mlp", "1e15");
    r = eval(&p, "1");
    ASSERT_REL(r.cpu_gups, F / 5 / 1e9, 1e-9);
    ASSERT_REL(r.cpu_gups, 0.4, 1e-9);
    /* the clock scales the instructions' rate, not the miss's: at 4 GHz
     * the miss is 400 cycles */
    node(&p, TM_ROUTED);
    set(&p, "clock_hz", "4e9");
    r = eval(&p, "1");
    ASSERT_REL(r.cycles_local, 5 + 400.0 / 10, 1e-12);
    ASSERT_REL(r.cpu_gups, 4e9 / 45 / 1e9, 1e-12);
    /* the instruction costs not given: the out-of-order reference's,
     * 3.5 cycles a local update (node.c) */
    node(&p, TM_ROUTED);
    p.node.v[TM_N_INSTR_LOCAL] = 0;
    r = eval(&p, "1");
    ASSERT_REL(r.cycles_local, 3.5 + 20, 1e-12);
    /* several cores of one node, one rank each, no hop leaves the node
     * (4 ranks on a node of 4): cores x the one-core rate over H hops */
    node(&p, TM_ROUTED);
    set(&p, "ranks_per_node", "4");
    set(&p, "cores_per_node", "4");
    r = eval(&p, "4");
    ASSERT_NEAR(r.nodes, 1, 0);
    ASSERT_NEAR(r.hops_out, 0, 0);
    ASSERT_REL(r.cycles_hop, 30, 1e-12);
    ASSERT_REL(r.cpu_gups, 4 * F / (25 + 30 * 0.75) / 1e9, 1e-12);
    /* ... and 8 ranks time-sharing those 4 cores: the same rate */
    set(&p, "ranks_per_node", "8");
    tm_row r8 = eval(&p, "8");
    ASSERT_NEAR(r8.cores_used, 4, 0);
    ASSERT_REL(r8.cpu_gups, 4 * F / (25 + 30 * 0.875) / 1e9, 1e-12);
}

/* The memory bound: nodes B / (2 l), or unbounded without B */
static void memory(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    set(&p, "ranks_per_node", "4");
    set(&p, "cores_per_node", "4");
    tm_row r = eval(&p, "8");
    ASSERT_NEAR(r.nodes, 2, 0);
    ASSERT_TRUE(isinf(r.mem_gups));
    ASSERT_NEAR(r.node_gups, 0, 0);
    set(&p, "mem_bw", "100e9");
    set(&p, "line_bytes", "128");
    r = eval(&p, "8");
    ASSERT_REL(r.node_gups, 100e9 / 256 / 1e9, 1e-12);
    ASSERT_REL(r.mem_gups, 2 * 100e9 / 256 / 1e9, 1e-12); /* 0.78125 */
    /* the line not given: 64 bytes */
    p.node.v[TM_N_LINE] = 0;
    r = eval(&p, "8");
    ASSERT_REL(r.mem_gups, 2 * 100e9 / 128 / 1e9, 1e-12);
    /* a slow memory binds, and the prediction is that bound */
    set(&p, "mem_bw", "1e9");
    r = eval(&p, "8");
    ASSERT_REL(r.mem_gups, 2 * 1e9 / 128 / 1e9, 1e-12); /* 0.015625 */
    ASSERT_STR_EQ(r.binding, "memory");
    ASSERT_NEAR(r.predicted_gups, r.mem_gups, 0);
    ASSERT_TRUE(r.cpu_gups > r.mem_gups);
    /* B replaces a node_gups given beside it ... */
    set(&p, "node_gups", "5");
    r = eval(&p, "8");
    ASSERT_REL(r.mem_gups, 0.015625, 1e-12);
    /* ... which, without B, is the memory bound as before */
    p.node.v[TM_N_MEM_BW] = 0;
    r = eval(&p, "8");
    ASSERT_REL(r.mem_gups, 2 * 5.0, 1e-12);
}

/* The hop: routing work alone without an MPI latency; with one, the X of
 * the H hops that leave a node carry f t_mpi shared by a packet's fill */
static void hops(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    tm_row r = eval(&p, "4x4");
    ASSERT_NEAR(r.hops, 1.5, 1e-12);
    ASSERT_REL(r.cycles_hop, 30, 1e-12);
    ASSERT_REL(r.cycles_per_update, 25 + 30 * 1.5, 1e-12);
    ASSERT_REL(r.cpu_gups, 16 * F / 70 / 1e9, 1e-12);
    /* ipc_scale 2: every instruction cycle doubles, the miss does not */
    set(&p, "ipc_scale", "2");
    r = eval(&p, "4x4");
    ASSERT_REL(r.cycles_local, 2 * 5 + 20, 1e-12);
    ASSERT_REL(r.cycles_hop, 2 * 30, 1e-12);
    ASSERT_REL(r.cycles_per_update, 30 + 60 * 1.5, 1e-12);
    /* a one-way MPI latency of 1 us = 2000 cycles, one rank per node:
     * every hop leaves the node */
    node(&p, TM_ROUTED);
    set(&p, "mpi_latency_ns", "1000");
    torus_shape s16 = shape("4x4");
    double cap = ropt_timed_ra_opt_capacity(&s16);
    ASSERT_TRUE(cap >= 1);
    r = eval(&p, "4x4");
    ASSERT_NEAR(r.fill, cap, 0);
    ASSERT_NEAR(r.hops_out, 1.5, 1e-12);
    ASSERT_REL(r.cycles_hop, 30 + 2000 / cap, 1e-12);
    ASSERT_REL(r.cycles_per_update, 25 + 1.5 * (30 + 2000 / cap), 1e-12);
    /* 4 ranks per node on 4x4x4: the first dimension is inside a node,
     * X = 1.5 of H = 2.25 hops leave it */
    set(&p, "ranks_per_node", "4");
    set(&p, "cores_per_node", "4");
    torus_shape s64 = shape("4x4x4");
    cap = ropt_timed_ra_opt_capacity(&s64);
    r = eval(&p, "4x4x4");
    ASSERT_NEAR(r.nodes, 16, 0);
    ASSERT_NEAR(r.hops, 2.25, 1e-12);
    ASSERT_NEAR(r.hops_out, 1.5, 1e-12);
    ASSERT_REL(r.cycles_hop, 30 + 1.5 / 2.25 * 2000 / cap, 1e-12);
    ASSERT_REL(r.cpu_gups, 16 * 4 * F / (25 + 2.25 * r.cycles_hop) / 1e9, 1e-12);
    /* all of a shape's ranks on one node: no message leaves it */
    r = eval(&p, "4");
    ASSERT_NEAR(r.hops_out, 0, 0);
    ASSERT_REL(r.cycles_hop, 30, 1e-12);
    ASSERT_TRUE(isinf(r.inj_gups));
}

/* The injection bound: nodes min(I / (b X), R fill / X) */
static void injection(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    /* a cheap CPU (1 + 2 cycles a local update, 1 a hop) so the network
     * interface binds */
    set(&p, "mem_latency_ns", "1");
    set(&p, "mlp", "1");
    set(&p, "instr_local", "1");
    set(&p, "instr_hop", "1");
    tm_row r = eval(&p, "2");
    ASSERT_NEAR(r.hops_out, 0.5, 0);
    ASSERT_TRUE(isinf(r.inj_gups));
    ASSERT_REL(r.cpu_gups, 2 * F / 3.5 / 1e9, 1e-12);
    set(&p, "inj_bw", "1e9");
    r = eval(&p, "2");
    ASSERT_REL(r.inj_gups, 2 * 1e9 / (10 * 0.5) / 1e9, 1e-12); /* 0.4 */
    ASSERT_STR_EQ(r.binding, "injection");
    ASSERT_NEAR(r.predicted_gups, r.inj_gups, 0);
    ASSERT_NEAR(r.bound_gups, r.inj_gups, 0);
    /* the message rate alone: R fill / X per node */
    torus_shape s2 = shape("2");
    double cap = ropt_timed_ra_opt_capacity(&s2);
    p.node.v[TM_N_INJ_BW] = 0;
    set(&p, "msg_rate", "1e6");
    r = eval(&p, "2");
    ASSERT_NEAR(r.fill, cap, 0);
    ASSERT_REL(r.inj_gups, 2 * 1e6 * cap / 0.5 / 1e9, 1e-12);
    /* both: the smaller */
    set(&p, "inj_bw", "1e9");
    r = eval(&p, "2");
    ASSERT_REL(r.inj_gups, fmin(0.4, 2 * 1e6 * cap / 0.5 / 1e9), 1e-12);
    /* the direct algorithm's X is the share of updates owned off the node
     * (3/4 on 4 nodes), its fill the updates per message */
    node(&p, TM_DIRECT);
    set(&p, "inj_bw", "1e9");
    set(&p, "updates_per_message", "8");
    r = eval(&p, "4");
    ASSERT_NEAR(r.hops_out, 0.75, 1e-12);
    ASSERT_NEAR(r.fill, 8, 0);
    ASSERT_REL(r.inj_gups, 4 * 1e9 / (10 * 0.75) / 1e9, 1e-12);
}

/* The baseline (direct): the local update's miss alone (a test between two
 * updates), a test per update, a message per m updates, bucketing */
static void direct(void)
{
    tm_params p;
    node(&p, TM_DIRECT);
    tm_row r = eval(&p, "1");
    ASSERT_REL(r.cycles_per_update, 5 + 200 + 60, 1e-12);
    ASSERT_REL(r.cpu_gups, F / 265 / 1e9, 1e-12);
    /* 4 ranks on 4 nodes, 1 us one way, 8 updates a message:
     * t_local_plain 205, t_test 60, (3/4) (2000 / 8 + 30) */
    set(&p, "mpi_latency_ns", "1000");
    set(&p, "updates_per_message", "8");
    r = eval(&p, "4");
    double cyc = 205 + 60 + 0.75 * (2000.0 / 8 + 30);
    ASSERT_REL(r.cycles_per_update, cyc, 1e-12);
    ASSERT_REL(r.cpu_gups, 4 * F / cyc / 1e9, 1e-12);
    ASSERT_NEAR(r.predicted_gups, r.bound_gups, 0);
    /* the misses never overlap: mlp changes nothing */
    set(&p, "mlp", "1e6");
    tm_row r2 = eval(&p, "4");
    ASSERT_NEAR(r2.cycles_per_update, r.cycles_per_update, 0);
    /* ... and ipc_scale scales the instructions (5 + 60 + 30 cycles) */
    set(&p, "ipc_scale", "2");
    r2 = eval(&p, "4");
    ASSERT_REL(r2.cycles_per_update, 10 + 200 + 120 + 0.75 * (250 + 60), 1e-12);
    /* the model's own costs replace what a preset or file set, and a
     * fitted wait does not enter: the prediction is the smallest bound */
    node(&p, TM_DIRECT);
    set(&p, "t_local", "1000");
    set(&p, "t_test", "1000");
    set(&p, "t_exposed", "1000");
    set(&p, "t_wait_direct", "1000");
    set(&p, "node_gups_plain", "0.001");
    r = eval(&p, "1");
    ASSERT_REL(r.cycles_per_update, 265, 1e-12);
    ASSERT_NEAR(r.predicted_gups, r.bound_gups, 0);
    node(&p, TM_ROUTED);
    set(&p, "t_local", "1000");
    set(&p, "t_hop", "1000");
    set(&p, "t_wait_routed", "1000");
    r = eval(&p, "1");
    ASSERT_REL(r.cycles_per_update, 25, 1e-12);
    ASSERT_NEAR(r.predicted_gups, r.bound_gups, 0);
}

/* The IPC rule's two references (node.c) */
static void ipc_rule(void)
{
    tm_params p;
    tm_params_defaults(&p);
    tm_node_reference(&p, 1, 1, "width given");
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 2, 0); /* the PPC440's 2-issue over 1 */
    ASSERT_NEAR(p.node.v[TM_N_INSTR_LOCAL], 18, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_HOP], 119, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_TEST], 583, 0);
    ASSERT_STR_CONTAINS(p.node.src[TM_N_INSTR_LOCAL], "PPC440");
    ASSERT_STR_CONTAINS(p.node.src[TM_N_IPC_SCALE], "width given");
    tm_node_reference(&p, 0, 3, "w");
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 2, 0); /* Zen 4's 6-wide over 3 */
    ASSERT_NEAR(p.node.v[TM_N_INSTR_LOCAL], 3.5, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_HOP], 20.1, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_TEST], 67.5, 0);
    tm_node_reference(&p, 0, 0, "none");
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 1, 0);
    /* carried into the costs: an in-order core of width 1 at 1 GHz, L 100
     * ns, 4 misses in flight: t_local = 2 x 18 + 100 / 4 */
    p.clock_hz = 1e9;
    p.bytes_per_update = 10, p.link_bw = 1e15;
    p.algorithm = TM_ROUTED;
    tm_node_reference(&p, 1, 1, "w");
    tm_node_set(&p, TM_N_MEM_LATENCY, 100, "test");
    tm_node_set(&p, TM_N_MLP, 4, "test");
    tm_row r = eval(&p, "4x4");
    ASSERT_REL(r.cycles_local, 36 + 25, 1e-12);
    ASSERT_REL(r.cycles_hop, 238, 1e-12);
}

/* --node KEY=VALUE,...: the figures it gives the model */
static void spec(void)
{
    tm_params p;
    char err[512];
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=2,cores=1,mem_latency_ns=100,mlp=10,instr_local=5", err, sizeof err), 0);
    ASSERT_NEAR(p.clock_hz, 2e9, 0);
    ASSERT_NEAR(p.cores_per_node, 1, 0);
    ASSERT_NEAR(p.ranks_per_node, 1, 0);
    ASSERT_NEAR(p.node.v[TM_N_LINE], 64, 0);
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 1, 0);
    ASSERT_NEAR(p.bytes_per_update, 10, 0);
    ASSERT_STR_EQ(p.preset, "--node");
    ASSERT_STR_CONTAINS(p.node.src[TM_N_MEM_LATENCY], "given (--node)");
    ASSERT_STR_CONTAINS(p.node.src[TM_N_LINE], "assumed");
    p.algorithm = TM_ROUTED;
    tm_row r = eval(&p, "1");
    ASSERT_REL(r.cpu_gups, 0.08, 1e-12); /* the closed form above */
    /* units: GB/s, us, M msg/s; ranks default to cores */
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=2.4,cores=128,mem_latency_ns=110,channels=12,channel_gbs=38.4,"
                                   "mpi_latency_us=2,inj_gbs=25,msg_rate_m=100,link_gbs=25,line=128",
                               err, sizeof err), 0);
    ASSERT_REL(p.node.v[TM_N_MEM_BW], 12 * 38.4e9, 1e-12);
    ASSERT_REL(p.node.v[TM_N_MPI_LATENCY], 2000, 1e-12);
    ASSERT_REL(p.node.v[TM_N_INJ_BW], 25e9, 1e-12);
    ASSERT_REL(p.node.v[TM_N_MSG_RATE], 1e8, 1e-12);
    ASSERT_REL(p.link_bw, 25e9, 1e-12);
    ASSERT_NEAR(p.node.v[TM_N_LINE], 128, 0);
    ASSERT_NEAR(p.node.v[TM_N_MLP], 1, 0); /* not given: every miss alone */
    ASSERT_NEAR(p.ranks_per_node, 128, 0);
    ASSERT_NEAR(p.cores_per_node, 128, 0);
    ASSERT_STR_CONTAINS(p.node.src[TM_N_MEM_BW], "12 channels x 38.4 GB/s");
    /* issue width: the IPC rule; an in-order core takes BlueGene/L's costs */
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=1,cores=2,ranks=1,mem_latency_ns=80,issue_width=3", err, sizeof err), 0);
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 2, 0);
    ASSERT_NEAR(p.ranks_per_node, 1, 0);
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=1,cores=2,mem_latency_ns=80,issue_width=2,in_order=1", err, sizeof err),
                  0);
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 1, 0);
    ASSERT_NEAR(p.node.v[TM_N_INSTR_LOCAL], 18, 0);
    ASSERT_NEAR(p.node.v[TM_N_MEM_BW], 0, 0); /* not given: no memory bound */
    /* instruction costs given in this core's cycles: the given one comes
     * out as given, the others keep the IPC rule (a 3-wide core: 2 x the
     * reference's 20.1 cycles a hop) */
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=1,cores=1,mem_latency_ns=100,issue_width=3,instr_local=5", err,
                               sizeof err), 0);
    p.algorithm = TM_ROUTED, p.link_bw = 1e15;
    r = eval(&p, "4x4");
    ASSERT_REL(r.cycles_local, 5 + 100, 1e-12);
    ASSERT_REL(r.cycles_hop, 2 * 20.1, 1e-12);
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 2, 0);
    ASSERT_STR_CONTAINS(p.node.src[TM_N_INSTR_LOCAL], "5 cycles of this core");
    /* all three given: ipc_scale 1, each as given */
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=1,cores=1,mem_latency_ns=100,issue_width=3,instr_local=5,instr_hop=7,"
                                   "instr_test=9", err, sizeof err), 0);
    p.algorithm = TM_ROUTED, p.link_bw = 1e15;
    r = eval(&p, "4x4");
    ASSERT_NEAR(p.node.v[TM_N_IPC_SCALE], 1, 0);
    ASSERT_REL(r.cycles_local, 5 + 100, 1e-12);
    ASSERT_REL(r.cycles_hop, 7, 1e-12);
    /* refusals: one line naming the key and what is allowed */
    tm_params_defaults(&p);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=2,cores=4", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "mem_latency_ns missing");
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=2,cores=4,mem_latency_ns=90,line=96", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "bad value '96' for line: allowed a power of two");
    ASSERT_TRUE(strchr(err, '\n') == NULL);
}

/* The sensitivity line: the first-order prediction with each given input
 * 10% larger.  A latency-bound core (0.01 cycles of instructions, one miss
 * of 100 ns alone): the clock buys nothing, the latency costs 1/1.1, more
 * misses in flight pay in full; inputs not given are left out. */
static void sensitivity(void)
{
    tm_params p;
    node(&p, TM_ROUTED);
    set(&p, "clock_hz", "1e9");
    set(&p, "instr_local", "0.01");
    set(&p, "mlp", "1");
    torus_shape s = shape("1");
    tm_row r = eval(&p, "1");
    char line[400];
    ASSERT_EQ_INT(tm_sensitivity(&p, &s, &r, line, sizeof line), 0);
    ASSERT_STR_CONTAINS(line, "clock +0.0%");
    ASSERT_STR_CONTAINS(line, "mem_latency -9.1%");
    ASSERT_STR_CONTAINS(line, "mlp +10.0%");
    ASSERT_TRUE(strstr(line, "mem_bw") == NULL && strstr(line, "mpi_latency") == NULL &&
                strstr(line, "inj_bw") == NULL && strstr(line, "msg_rate") == NULL);
    /* an instruction-bound core: the clock pays in full, the instructions
     * cost 1/1.1 */
    set(&p, "instr_local", "5");
    set(&p, "mlp", "1e15");
    r = eval(&p, "1");
    ASSERT_EQ_INT(tm_sensitivity(&p, &s, &r, line, sizeof line), 0);
    ASSERT_STR_CONTAINS(line, "clock +10.0%");
    ASSERT_STR_CONTAINS(line, "instr -9.1%");
    /* a memory-bandwidth-bound node: only mem_bw pays */
    node(&p, TM_ROUTED);
    set(&p, "mem_bw", "1e8");
    r = eval(&p, "1");
    ASSERT_STR_EQ(r.binding, "memory");
    ASSERT_EQ_INT(tm_sensitivity(&p, &s, &r, line, sizeof line), 0);
    ASSERT_STR_CONTAINS(line, "mem_bw +10.0%");
    ASSERT_STR_CONTAINS(line, "clock +0.0%");
}

/* The node keys and their sources in a params file, written and read back */
static void params_round_trip(void)
{
    tm_params p, r;
    char err[512];
    node(&p, TM_ROUTED);
    set(&p, "mem_bw", "7e10");
    set(&p, "mpi_latency_ns", "171");
    set(&p, "term_source", "mem_latency_ns measured here (ra_calibrate --probe)");
    set(&p, "term_source", "mlp\tassumed: ten");
    ASSERT_STR_EQ(p.node.src[TM_N_MEM_LATENCY], "measured here (ra_calibrate --probe)");
    ASSERT_STR_EQ(p.node.src[TM_N_MLP], "assumed: ten");
    ASSERT_EQ_INT(tm_param_set(&p, "term_source", "speed fast", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "bad value 'speed fast' for term_source: allowed 'KEY text'");
    char path[] = "/tmp/tm_node_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_TRUE(fd >= 0);
    FILE *f = fdopen(fd, "w");
    ASSERT_TRUE(f != NULL);
    if (!f)
        return;
    tm_params_write(&p, f);
    fclose(f);
    tm_params_defaults(&r);
    ASSERT_EQ_INT(tm_params_file(&r, path, err, sizeof err), 0);
    for (int i = 0; i < TM_N_KEYS; i++) {
        ASSERT_REL(r.node.v[i] + 1, p.node.v[i] + 1, 1e-9);
        ASSERT_STR_EQ(r.node.src[i], p.node.src[i]);
    }
    tm_row a = eval(&p, "4x4"), b = eval(&r, "4x4");
    ASSERT_REL(b.predicted_gups, a.predicted_gups, 1e-9);
    remove(path);
    /* the printed terms: each figure with its source, then the derived costs */
    FILE *t = tmpfile();
    ASSERT_TRUE(t != NULL);
    if (!t)
        return;
    tm_params q;
    tm_node_derive(&p, 0, 0, 1, &q);
    tm_node_print(t, &p, &q);
    char text[4096];
    rewind(t);
    size_t n = fread(text, 1, sizeof text - 1, t);
    text[n] = 0;
    fclose(t);
    ASSERT_STR_CONTAINS(text, "# node model (torusmodel/node.c)");
    ASSERT_STR_CONTAINS(text, "measured here (ra_calibrate --probe)");
    ASSERT_STR_CONTAINS(text, "derived: t_local 25, t_hop 30, baseline local 205 + test 60, message 342 cycles");
}

/* The scale term's choices (scale.c) on cheap shapes */
static void scale_choices(void)
{
    tm_params p;
    char err[512];
    node(&p, TM_ROUTED);
    set(&p, "link_bw", "1e9");
    torus_shape s = shape("8x8");
    tm_row r;
    /* none: first order as it is */
    p.scale_term = TM_SCALE_NONE;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    double first = r.predicted_gups;
    ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.scale_eta, 1, 0);
    ASSERT_NEAR(r.predicted_gups, first, 0);
    ASSERT_STR_EQ(r.scale_how, "none (--scale-term none)");
    /* auto: none up to 512 nodes */
    p.scale_term = TM_SCALE_AUTO;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), 0);
    ASSERT_STR_EQ(r.scale_how, "none: at most 512 nodes (auto)");
    ASSERT_NEAR(r.predicted_gups, first, 0);
    /* the direct algorithm is never simulated */
    p.algorithm = TM_DIRECT, p.scale_term = TM_SCALE_FULL;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), 0);
    ASSERT_STR_CONTAINS(r.scale_how, "none: the timed simulator runs the routed algorithm");
    /* ranks sharing a node with no torus of nodes under them */
    p.algorithm = TM_ROUTED;
    set(&p, "ranks_per_node", "2");
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), 0);
    ASSERT_STR_CONTAINS(r.scale_how, "none: ranks share a node");
    ASSERT_NEAR(r.scale_eta, 1, 0);
    /* full: the machine itself, eta in (0, 1], prediction = first x eta */
    set(&p, "ranks_per_node", "1");
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    first = r.predicted_gups;
    ASSERT_EQ_INT(tm_scale(&p, &s, &r, err, sizeof err), 0);
    ASSERT_STR_EQ(r.scale_how, "full 8x8");
    ASSERT_TRUE(r.scale_eta > 0 && r.scale_eta <= 1);
    ASSERT_NEAR(r.first_order_gups, first, 0);
    ASSERT_REL(r.predicted_gups, first * r.scale_eta, 1e-12);
    /* reduced: the first longest dimension kept, the largest other halved
     * until at most scale_nodes: 8x8x4 -> 8x4x4 -> 8x2x4 -> 8x2x2 -> 8x1x2 */
    torus_shape s3 = shape("8x8x4");
    p.scale_term = TM_SCALE_REDUCED, p.scale_nodes = 16;
    ASSERT_EQ_INT(tm_evaluate(&p, &s3, &r, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_scale(&p, &s3, &r, err, sizeof err), 0);
    ASSERT_STR_CONTAINS(r.scale_how, "reduced 8x1x2 (budget ");
    ASSERT_TRUE(r.scale_eta > 0 && r.scale_eta <= 1);
    ASSERT_REL(r.predicted_gups, r.first_order_gups * r.scale_eta, 1e-12);
}

static const test_case cases[] = {
    {"node_keys_land_in_fields", keys_land},
    {"one_core_cpu_bound", one_core},
    {"memory_bound", memory},
    {"hop_costs", hops},
    {"injection_bound", injection},
    {"direct_algorithm_costs", direct},
    {"ipc_rule_references", ipc_rule},
    {"node_spec_figures", spec},
    {"sensitivity_line", sensitivity},
    {"params_round_trip", params_round_trip},
    {"scale_choices", scale_choices},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_node_model", cases);
}
