/*
 * test_torusmodel.c - the bottleneck model against paper 002: Table 3 (MPI)
 * and Table 5 (raw device) both columns, Table 6's mean bucket sizes,
 * Table 7's CPU column; params files and their errors; the node memory
 * bound, ranks sharing cores, and the prediction.  (The timed
 * simulation behind --simulate is tested in test_ropt_timed.c.)
 */
#include "../test.h"
#include "torusmodel.h"

#include <math.h>
#include <stdlib.h>

static void rel(double got, double want, double tol, const char *what, int n)
{
    int before = t_fail;
    ASSERT_NEAR(got / want, 1.0, tol);
    if (t_fail > before)
        fprintf(stderr, "  %s at N=%d: %g vs paper %g\n", what, n, got, want);
}

/* Writes q to path and reads it into r (from the defaults), as a user's
 * params file would go round. */
static void write_read_back(const tm_params *q, tm_params *r, const char *path)
{
    char err[256];
    FILE *f = fopen(path, "w");
    ASSERT_TRUE(f != NULL);
    if (!f)
        return;
    tm_params_write(q, f);
    ASSERT_EQ_INT(fclose(f), 0);
    tm_params_defaults(r);
    ASSERT_EQ_INT(tm_params_file(r, path, err, sizeof err), 0);
}

static void tables_3_5_7(void)
{
    static const double t3_cpu[] = {0.0077, 0.0152, 0.0302, 0.0602, 0.1202, 0.2402,
                                    0.4802, 0.9601, 1.9200, 3.8398, 7.6793, 15.3585};
    static const double t3_net[] = {0.0718, 0.0718, 0.1436, 0.2872, 1.1487, 1.1487,
                                    2.2974, 2.2974, 4.5949, 9.1897, 18.3795, 18.3795};
    static const double t5_cpu[] = {0.1303, 0.2590, 0.5163, 1.0310, 2.0604, 4.1193,
                                    8.2369, 16.4722, 32.9428, 65.8840, 131.7663, 263.531};
    static const double t5_net[] = {0.1217, 0.1217, 0.2435, 0.4870, 1.9478, 1.9478,
                                    3.8957, 3.8957, 7.7913, 15.5826, 31.1652, 31.1652};
    /* Table 7's projection (t_local 104 + 128 per hop); the N=128 row
     * (0.211) is not the paper's own formula on 8x4x4 (0.2196) and N=64,
     * 256 and 32768 are not in the table */
    static const double t7_cpu[] = {0.062, -1, -1, -1, 0.815, 1.600, 3.14, 6.23, 12.25, 24.30, -1, 95.97};
    char err[256];
    tm_params mpi, raw, routed;
    tm_params_defaults(&mpi);
    tm_params_defaults(&raw);
    tm_params_defaults(&routed);
    ASSERT_EQ_INT(tm_preset(&mpi, "bgl-mpi", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_preset(&raw, "bgl-raw", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_preset(&routed, "bgl-routed", err, sizeof err), 0);
    ASSERT_EQ_INT(mpi.nshapes, 12);
    for (int i = 0; i < 12; i++) {
        tm_row a, b, c;
        ASSERT_EQ_INT(tm_evaluate(&mpi, &mpi.shapes[i], &a, err, sizeof err), 0);
        ASSERT_EQ_INT(tm_evaluate(&raw, &raw.shapes[i], &b, err, sizeof err), 0);
        ASSERT_EQ_INT(tm_evaluate(&routed, &routed.shapes[i], &c, err, sizeof err), 0);
        /* the paper prints 4-5 digits */
        rel(a.cpu_gups, t3_cpu[i], 0.005, "Table 3 CPU", a.n);
        rel(a.net_gups, t3_net[i], 0.0005, "Table 3 network", a.n);
        rel(b.cpu_gups, t5_cpu[i], 0.001, "Table 5 CPU", b.n);
        rel(b.net_gups, t5_net[i], 0.0005, "Table 5 network", b.n);
        ASSERT_TRUE(!strcmp(a.binding, "cpu"));     /* sec. 4.3.1: MPI latency binds */
        ASSERT_TRUE(!strcmp(b.binding, "network")); /* sec. 4.3.2: bandwidth binds */
        if (t7_cpu[i] > 0)
            rel(c.cpu_gups, t7_cpu[i], 0.005, "Table 7 CPU", c.n);
    }
}

static void table_6(void)
{
    static const int P[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536};
    static const double mean[] = {62.88, 32.42, 16.83, 8.93, 4.97, 2.97, 1.98, 1.33, 1.14, 1.07, 1.02};
    for (int i = 0; i < 11; i++)
        rel(tm_bucket_sim(P[i], 1024, 100000, 1), mean[i], 0.05, "Table 6 mean bucket size", P[i]);
    /* deterministic for a seed */
    ASSERT_TRUE(tm_bucket_sim(100, 1024, 5000, 7) == tm_bucket_sim(100, 1024, 5000, 7));
}

static void params(void)
{
    char err[512];
    tm_params p;
    tm_params_defaults(&p);
    char path[] = "/tmp/tm_params_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# calibrated\nclock_hz = 2e9\nt-local = 50  # dashes are fine\nshapes = 4x4,8x8x8\nalgorithm = routed\n");
    fclose(f);
    ASSERT_EQ_INT(tm_params_file(&p, path, err, sizeof err), 0);
    ASSERT_NEAR(p.clock_hz, 2e9, 0);
    ASSERT_NEAR(p.t_local, 50, 0);
    ASSERT_EQ_INT(p.nshapes, 2);
    ASSERT_EQ_INT(p.algorithm, TM_ROUTED);
    /* later wins: a preset after the file replaces clock and t_local */
    ASSERT_EQ_INT(tm_preset(&p, "bgl-mpi", err, sizeof err), 0);
    ASSERT_NEAR(p.clock_hz, 700e6, 0);
    ASSERT_EQ_INT(p.nshapes, 2); /* shapes already given are kept */
    ASSERT_EQ_INT(tm_param_set(&p, "t-send", "10", err, sizeof err), 0);
    ASSERT_NEAR(p.t_send, 10, 0);
    /* errors name the line and what is allowed */
    f = fopen(path, "w");
    fprintf(f, "t_local = 5\nt_hop = -3\n");
    fclose(f);
    ASSERT_EQ_INT(tm_params_file(&p, path, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, ":2: bad value '-3' for t_hop: allowed a number >= 0");
    f = fopen(path, "w");
    fprintf(f, "speed = 5\n");
    fclose(f);
    ASSERT_EQ_INT(tm_params_file(&p, path, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, ":1: unknown parameter 'speed'");
    f = fopen(path, "w");
    fprintf(f, "just words\n");
    fclose(f);
    ASSERT_EQ_INT(tm_params_file(&p, path, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, ":1: expected 'key = value'");
    ASSERT_EQ_INT(tm_param_set(&p, "shape", "4x4,2", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "shape", "4xx4", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "link_bw", "0", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "algorithm", "magic", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_preset(&p, "no-such-machine", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "allowed bgl-mpi, bgl-raw, bgl-routed");
    /* write and read back */
    tm_params q;
    tm_params_defaults(&q);
    tm_preset(&q, "bgl-raw", err, sizeof err);
    tm_params r;
    write_read_back(&q, &r, path);
    ASSERT_NEAR(r.t_overhead, q.t_overhead, 1e-12);
    ASSERT_NEAR(r.bytes_per_update, 46, 0);
    remove(path);
}

/* A machine of our own: 1 GHz, flat shape of n ranks. */
static void machine(tm_params *p, tm_algorithm a)
{
    tm_params_defaults(p);
    p->clock_hz = 1e9;
    p->t_local = 10;
    p->t_hop = 20;
    p->bytes_per_update = 8;
    p->link_bw = 1e9;
    p->algorithm = a;
}

static void three_bounds(void)
{
    char err[256];
    tm_params p;
    torus_shape s;
    tm_row r;
    ASSERT_EQ_INT(torus_shape_parse("8", 0, &s, err, sizeof err), 0);
    /* CPU binds: 8 ranks, one per node, H = 7/8: 8 / (10 + 20 * 0.875) ns */
    machine(&p, TM_ROUTED);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "1", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.cpu_gups, 8.0 / 27.5, 1e-12);
    ASSERT_NEAR(r.mem_gups, 8.0, 1e-12);
    ASSERT_STR_EQ(r.binding, "cpu");
    ASSERT_NEAR(r.bound_gups, r.cpu_gups, 0);
    /* network binds: a slow link; 8-ring alpha = 2 / 4 */
    p.link_bw = 1e7;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.net_gups, 2.0 * 8 / 8 * 0.5 * 1e7 / 1e9, 1e-12);
    ASSERT_STR_EQ(r.binding, "network");
    /* memory binds: all 8 ranks on one node, 8 cores, node rate 0.05 */
    p.link_bw = 1e9;
    ASSERT_EQ_INT(tm_param_set(&p, "ranks_per_node", "8", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "cores_per_node", "8", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "0.05", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.nodes, 1, 0);
    ASSERT_NEAR(r.mem_gups, 0.05, 1e-12);
    ASSERT_NEAR(r.cpu_gups, 8.0 / 27.5, 1e-12);
    ASSERT_STR_EQ(r.binding, "memory");
    /* the prediction: 1 / (1/0.05 + 20 * 0.875 / 8) ns, below every bound */
    ASSERT_NEAR(r.predicted_gups, 1.0 / (20.0 + 17.5 / 8), 1e-12);
    ASSERT_TRUE(r.predicted_gups <= r.bound_gups);
    /* direct: the baseline's local path at its node rate, messages on the
     * cores: 1 / (1/0.02 + 7/8 * (300 + 200) / 64 / 8) ns */
    machine(&p, TM_DIRECT);
    p.t_send = 300, p.t_recv = 200, p.updates_per_message = 64, p.t_local_plain = 40, p.t_test = 20;
    ASSERT_EQ_INT(tm_param_set(&p, "ranks_per_node", "8", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups_plain", "8:0.02", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.cpu_gups, 8.0 / (40 + 20 + 0.875 * 500.0 / 64), 1e-12);
    ASSERT_NEAR(r.predicted_gups, 1.0 / (50.0 + 0.875 * 500.0 / 64 / 8), 1e-12);
    ASSERT_TRUE(r.predicted_gups <= r.bound_gups);
    /* t_exposed: only the local 1/N of the updates pay it in the bound */
    p.t_exposed = 80;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.cycles_per_update, 40 + 20 + 80.0 / 8 + 0.875 * 500.0 / 64, 1e-12);
    /* a fitted wait: the prediction is the bound's work plus it on the
     * cores (here 2 per node for 8 ranks: 1 node, 2 cores), never a bound */
    ASSERT_EQ_INT(tm_param_set(&p, "cores_per_node", "2", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "t_wait_direct", "100", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "t_wait_routed", "7", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    double cyc = 40 + 20 + 80.0 / 8 + 0.875 * 500.0 / 64;
    ASSERT_NEAR(r.cpu_gups, 2.0 / cyc, 1e-12);
    ASSERT_NEAR(r.predicted_gups, 2.0 / (cyc + 100), 1e-12);
    /* the routed algorithm takes its own wait */
    p.algorithm = TM_ROUTED;
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_NEAR(r.cycles_per_update, 10 + 20 * 0.875, 1e-12);
    ASSERT_NEAR(r.predicted_gups, fmin(2.0 / (27.5 + 7), r.bound_gups), 1e-12);
    /* no node rate: memory unbounded, the old two-bound model */
    machine(&p, TM_DIRECT);
    ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
    ASSERT_TRUE(isinf(r.mem_gups));
    ASSERT_STR_EQ(r.binding, "cpu");
}

static void oversubscription(void)
{
    char err[256];
    tm_params p;
    torus_shape s8, s16;
    tm_row a, b, c;
    ASSERT_EQ_INT(torus_shape_parse("8", 0, &s8, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("4x4", 0, &s16, err, sizeof err), 0);
    machine(&p, TM_DIRECT);
    p.t_local = 10;
    /* 8 ranks on one 2-core node: 2 cores work, not 8 */
    ASSERT_EQ_INT(tm_param_set(&p, "ranks-per-node", "8", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_param_set(&p, "cores-per-node", "2", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s8, &a, err, sizeof err), 0);
    ASSERT_NEAR(a.cores_used, 2, 0);
    ASSERT_NEAR(a.cpu_gups, 2 * 1e9 / 10 / 1e9, 1e-12);
    /* 2 ranks on it: the same two cores, the same bound */
    tm_params q = p;
    ASSERT_EQ_INT(tm_param_set(&q, "ranks-per-node", "2", err, sizeof err), 0);
    torus_shape s2;
    ASSERT_EQ_INT(torus_shape_parse("2", 0, &s2, err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&q, &s2, &b, err, sizeof err), 0);
    ASSERT_NEAR(b.cpu_gups, a.cpu_gups, 1e-12);
    /* 16 ranks, 8 per node: 2 nodes of 2 cores */
    ASSERT_EQ_INT(tm_evaluate(&p, &s16, &c, err, sizeof err), 0);
    ASSERT_NEAR(c.nodes, 2, 0);
    ASSERT_NEAR(c.cpu_gups, 2 * a.cpu_gups, 1e-12);
    /* cores 0: one core per rank (paper 002's model) */
    ASSERT_EQ_INT(tm_param_set(&p, "cores_per_node", "0", err, sizeof err), 0);
    ASSERT_EQ_INT(tm_evaluate(&p, &s8, &a, err, sizeof err), 0);
    ASSERT_NEAR(a.cpu_gups, 8 * 1e9 / 10 / 1e9, 1e-12);
    ASSERT_EQ_INT(tm_param_set(&p, "ranks_per_node", "0", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "allowed a whole number of ranks");
    ASSERT_EQ_INT(tm_param_set(&p, "ranks_per_node", "2.5", err, sizeof err), -2);
}

static void node_rates(void)
{
    char err[512];
    tm_params p;
    machine(&p, TM_ROUTED);
    /* pairs sorted, interpolated, held at the ends */
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "4:0.2,1:0.1,2:0.16", err, sizeof err), 0);
    ASSERT_EQ_INT(p.nnode, 3);
    ASSERT_NEAR(tm_node_gups(&p, 1), 0.1, 1e-15);
    ASSERT_NEAR(tm_node_gups(&p, 3), 0.18, 1e-12);
    ASSERT_NEAR(tm_node_gups(&p, 8), 0.2, 1e-15);
    ASSERT_NEAR(tm_node_gups(&p, 0.5), 0.1, 1e-15);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "1:0.1,1:0.2", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "0.1,2:0.2", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "2:0", err, sizeof err), -2);
    ASSERT_EQ_INT(tm_param_set(&p, "node_gups", "x", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "bad value 'x' for node_gups: allowed a rate in GUPS > 0");
    ASSERT_EQ_INT(p.nnode, 3); /* a refused value leaves the old one */
    /* new keys in a file, written back and read again */
    char path[] = "/tmp/tm_params_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "t_local = 9\nranks_per_node = 8\ncores_per_node = 2\nnode_gups = 1:0.1,8:0.12\nnode_gups_plain = 0.03\n"
               "t_local_plain = 30\nt_test = 15\nt_exposed = 70\nt_wait_routed = 3.5\nt_wait_direct = 44\n");
    fclose(f);
    tm_params q;
    tm_params_defaults(&q);
    ASSERT_EQ_INT(tm_params_file(&q, path, err, sizeof err), 0);
    ASSERT_NEAR(q.ranks_per_node, 8, 0);
    ASSERT_NEAR(q.cores_per_node, 2, 0);
    ASSERT_EQ_INT(q.nnode, 2);
    ASSERT_NEAR(q.t_local_plain, 30, 0);
    ASSERT_NEAR(q.t_test, 15, 0);
    ASSERT_NEAR(q.t_exposed, 70, 0);
    ASSERT_NEAR(q.t_wait_routed, 3.5, 0);
    ASSERT_NEAR(q.t_wait_direct, 44, 0);
    q.bytes_per_update = 8, q.link_bw = 1e9; /* > 0 keys: 0 would not read back */
    tm_params r;
    write_read_back(&q, &r, path);
    ASSERT_EQ_INT(r.nnode, 2);
    ASSERT_NEAR(r.node_ranks[1], 8, 0);
    ASSERT_NEAR(r.node_rate[1], 0.12, 1e-15);
    ASSERT_NEAR(r.ranks_per_node, 8, 0);
    ASSERT_EQ_INT(r.nplain, 1);
    ASSERT_NEAR(tm_node_gups_plain(&r, 8), 0.03, 1e-15);
    ASSERT_NEAR(r.t_exposed, 70, 0);
    ASSERT_NEAR(r.t_wait_routed, 3.5, 0);
    ASSERT_NEAR(r.t_wait_direct, 44, 0);
    /* an old file (no new keys) loads: one rank per node, memory unbounded */
    f = fopen(path, "w");
    fprintf(f, "clock_hz = 1e9\nt_local = 10\nt_send = 100\nt_recv = 100\nt_overhead = 5\nt_hop = 20\n"
               "bytes_per_update = 9\nlink_bw = 1e9\nupdates_per_message = 1\nalgorithm = direct\nshapes = 4\n");
    fclose(f);
    tm_params_defaults(&r);
    ASSERT_EQ_INT(tm_params_file(&r, path, err, sizeof err), 0);
    ASSERT_NEAR(r.ranks_per_node, 1, 0);
    ASSERT_EQ_INT(r.nnode, 0);
    tm_row row;
    ASSERT_EQ_INT(tm_evaluate(&r, &r.shapes[0], &row, err, sizeof err), 0);
    ASSERT_NEAR(row.cpu_gups, 4 / (10 + 0.75 * 205.0), 1e-12);
    ASSERT_TRUE(isinf(row.mem_gups));
    remove(path);
}

/* Over a grid of machines, algorithms and shapes the prediction is never
 * above the smallest bound, and is positive. */
static void prediction_capped(void)
{
    char err[256];
    static const char *shapes[] = {"1", "2", "8", "4x4", "8x8x8", "4mx4mx2m"};
    static const double rates[] = {0, 0.001, 0.05, 10};
    static const double cores[] = {0, 1, 2, 64};
    static const double rpn[] = {1, 2, 8};
    static const double waits[] = {0, 50};
    int checked = 0;
    for (int a = 0; a < 2; a++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
            for (size_t ri = 0; ri < 4; ri++)
                for (size_t ci = 0; ci < 4; ci++)
                    for (size_t ni = 0; ni < 3; ni++)
                        for (size_t wi = 0; wi < 2; wi++) {
                        tm_params p;
                        machine(&p, a ? TM_ROUTED : TM_DIRECT);
                        p.t_send = 300, p.t_recv = 200, p.t_test = 20, p.t_local_plain = 40;
                        p.updates_per_message = 16;
                        p.t_exposed = 60;
                        p.t_wait_routed = p.t_wait_direct = waits[wi];
                        p.cores_per_node = cores[ci];
                        p.ranks_per_node = rpn[ni];
                        if (rates[ri] > 0) {
                            p.nnode = 1, p.node_ranks[0] = 0, p.node_rate[0] = rates[ri];
                            p.nplain = 1, p.plain_ranks[0] = 0, p.plain_rate[0] = rates[ri] / 3;
                        }
                        torus_shape s;
                        ASSERT_EQ_INT(torus_shape_parse(shapes[si], 0, &s, err, sizeof err), 0);
                        tm_row r;
                        ASSERT_EQ_INT(tm_evaluate(&p, &s, &r, err, sizeof err), 0);
                        double lo = fmin(r.cpu_gups, fmin(r.net_gups, r.mem_gups));
                        ASSERT_TRUE(r.predicted_gups <= lo * (1 + 1e-12));
                        ASSERT_TRUE(r.predicted_gups > 0);
                        ASSERT_NEAR(r.bound_gups, lo, 0);
                        checked++;
                    }
    ASSERT_EQ_INT(checked, 1152);
}

static const test_case cases[] = {
    {"tables_3_5_7", tables_3_5_7},
    {"table_6", table_6},
    {"params_files", params},
    {"three_bounds", three_bounds},
    {"oversubscribed_cores", oversubscription},
    {"node_rates", node_rates},
    {"prediction_capped_by_bounds", prediction_capped},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_torusmodel", cases);
}
