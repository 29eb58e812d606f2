/*
 * test_ropt_timed.c - the routed algorithm on the timed transport (the
 * engine of torusmodel --simulate): exact tables, never faster than the
 * CPU bound of paper 002 sec. 6.2, a slow network binds, the simulator
 * runs ra_opt's defaults, and the transport's counters add up.
 */
#include "../test.h"
#include "ropt_timed.h"
#include "ropt.h"
#include "torus_timed.h"

#include <stdlib.h>
#include <string.h>

/* BlueGene/L as paper 002 sec. 6.2 gives it: 700 MHz, 104 cycles per
 * local update, 128 per software hop, 175 MB/s links. */
#define HZ 700e6
#define T_LOCAL (104 / HZ)
#define T_HOP (128 / HZ)

/* One shape of paper 002's machine: the table exact, every update counted,
 * never faster than the CPU bound, and 1 MB/s links bind. */
static void simulate(const char *shape, int n)
{
    char err[256];
    ropt_timed_config c;
    ropt_timed_defaults(&c);
    ASSERT_EQ_INT(c.outstanding, ROPT_TIMED_DEFAULT_OUTSTANDING);
    ASSERT_EQ_INT(c.lookahead, ROPT_TIMED_DEFAULT_LOOKAHEAD);
    ASSERT_EQ_INT(torus_shape_parse(shape, n, &c.shape, err, sizeof err), 0);
    c.updates_per_rank = 2048;
    c.t_update_s = T_LOCAL;
    c.t_hop_s = T_HOP;
    c.link_bw = 175e6;
    c.latency_s = 1e-7;
    c.header_bytes = 32;
    ropt_timed_result r;
    ASSERT_EQ_INT(ropt_timed_run(&c, &r, err, sizeof err), 0);
    double H = torus_expected_hops(&c.shape);
    double cpu_gups = n / (T_LOCAL + H * T_HOP) / 1e9;
    ASSERT_TRUE(r.exact);
    ASSERT_EQ_INT(r.updates, 2048 * (uint64_t)n);
    ASSERT_TRUE(r.max_pending <= ROPT_BUDGET);
    /* never faster than the CPU bound (5% for the steady window) */
    ASSERT_TRUE(r.gups <= cpu_gups * 1.05);
    ASSERT_TRUE(r.gups_total <= cpu_gups);
    ASSERT_TRUE(r.gups > 0.3 * cpu_gups);
    ASSERT_TRUE(r.link_util > 0 && r.link_util < 1);
    /* where the time goes is measured over the steady window: 80% of
     * the work in at most the whole run, at least 80% of it at the
     * CPU bound's pace; its packets are nearly all full */
    ASSERT_TRUE(r.window_frac > 0 && r.window_frac <= 1);
    ASSERT_TRUE(r.window_frac * r.time_s >= 0.8 * (double)r.updates / (cpu_gups * 1e9) * 0.95);
    ASSERT_TRUE(r.blocked_frac >= 0 && r.waiting_frac >= 0 && r.blocked_frac + r.waiting_frac <= 1);
    ASSERT_TRUE(r.mean_fill > 0.8 && r.mean_fill <= 1);
    ASSERT_TRUE(r.bytes_per_update > 0 && r.bytes_per_update <= r.bytes_per_update_total * 1.001);
    /* HPCC's consecutive LFSR values are correlated: a few thousand
     * updates per rank land within ~5% of the expected hop count */
    ASSERT_NEAR(r.hops_per_update, H, 0.15);
    /* a slow network binds: 1 MB/s links */
    c.link_bw = 1e6;
    ropt_timed_result slow;
    ASSERT_EQ_INT(ropt_timed_run(&c, &slow, err, sizeof err), 0);
    ASSERT_TRUE(slow.exact);
    ASSERT_TRUE(slow.gups < 0.5 * r.gups);
}

static void t_simulate_4mx4mx2m(void)
{
    simulate("4mx4mx2m", 32);
}

static void t_simulate_4x4x2m(void)
{
    simulate("4x4x2m", 32);
}

static void t_simulate_8x8(void)
{
    simulate("8x8", 64);
}

static void t_simulate_3x5x2(void)
{
    simulate("3x5x2", 30);
}

/* bad input is refused with a line, not simulated */
static void t_simulate_refuses_no_cpu_costs(void)
{
    char err[256];
    ropt_timed_config c;
    ropt_timed_defaults(&c);
    ASSERT_EQ_INT(torus_shape_parse("8x8", 64, &c.shape, err, sizeof err), 0);
    c.updates_per_rank = 16;
    c.link_bw = 1e9;
    ropt_timed_result r;
    ASSERT_EQ_INT(ropt_timed_run(&c, &r, err, sizeof err), -2); /* no CPU costs */
    ASSERT_TRUE(strstr(err, "CPU costs") != NULL);
}

/* A timed transport over 4 ranks of `shape`, each bound to tp[r]. */
static torus_timed *four_ranks(const char *shape, const torus_timed_params *p, torus_map *m, torus_transport *tp)
{
    char err[128];
    torus_shape s;
    ASSERT_EQ_INT(torus_shape_parse(shape, 4, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_map_xyzt(m, &s), 0);
    torus_timed *tt = torus_timed_create(m, p);
    ASSERT_TRUE(tt != NULL);
    for (int r = 0; r < 4; r++)
        torus_timed_bind(tt, r, &tp[r]);
    return tt;
}

/* The transport alone: rank 0 of a 4-ring sends one 10-word packet to
 * coordinate 2 (two links away) and one to coordinate 1; the loop delivers
 * them at the modelled times and counts them. */
typedef struct ring_ctx {
    torus_transport tp[4];
    int sent, got[4];
    double arrive[4];
    torus_timed *mark; /* when set: the window is rank 0's second send */
} ring_ctx;

static int ring_step(void *ctx, int r, double now, double *cpu_s)
{
    ring_ctx *x = ctx;
    torus_transport *t = &x->tp[r];
    *cpu_s = 0;
    if (r == 0) {
        if (x->sent < 2 && t->can_send(t->impl, 0)) {
            uint64_t *buf = calloc(11, sizeof *buf);
            if (x->mark && x->sent == 1)
                ASSERT_EQ_INT(torus_timed_mark(x->mark, 0, now), 0);
            t->send(t->impl, 0, x->sent == 0 ? 2 : 1, &buf, 10, 1);
            free(buf);
            x->sent++;
            if (x->mark && x->sent == 2)
                ASSERT_EQ_INT(torus_timed_mark(x->mark, 1, now + 100e-6), 0);
            return TORUS_TIMED_MOVED;
        }
        return x->sent == 2 && t->quiescent(t->impl) ? TORUS_TIMED_DONE : TORUS_TIMED_IDLE;
    }
    torus_packet pk;
    if (t->poll(t->impl, 0, &pk)) {
        x->got[r] += pk.n;
        x->arrive[r] = now;
        t->release(t->impl, 0);
    }
    return (r == 3 || x->got[r]) ? TORUS_TIMED_DONE : TORUS_TIMED_IDLE;
}

/* the 4-ring of ring_step: 1 MB/s links, 1 us per link, one send slot */
static const torus_timed_params ring_params = {.cap = 16, .outstanding = 1, .link_bw = 1e6, .latency_s = 1e-6,
                                               .header_bytes = 20};

static void t_transport_times_and_counts(void)
{
    torus_map m;
    ring_ctx x;
    memset(&x, 0, sizeof x);
    torus_timed *tt = four_ranks("4", &ring_params, &m, x.tp);
    torus_timed_stats st;
    ASSERT_EQ_INT(torus_timed_run(tt, ring_step, &x, &st), 0);
    ASSERT_EQ_INT(st.run.packets, 2);
    ASSERT_EQ_INT(st.run.words, 20);
    ASSERT_EQ_INT(x.got[2], 10);
    ASSERT_EQ_INT(x.got[1], 10);
    /* 100 bytes at 1 MB/s = 100 us on the wire; 2 links of latency to
     * coordinate 2; the second packet waits for the one slot to free */
    ASSERT_NEAR(x.arrive[2], 100e-6 + 2e-6, 1e-12);
    ASSERT_NEAR(x.arrive[1], 200e-6 + 1e-6, 1e-12);
    ASSERT_NEAR(st.run.link_busy_s, 3 * 100e-6, 1e-12);
    /* no marks: the window is the whole run */
    ASSERT_EQ_INT(st.window.packets, 2);
    ASSERT_NEAR(st.window.link_busy_s, st.run.link_busy_s, 1e-15);
    ASSERT_NEAR(st.window.t1, st.makespan, 1e-15);
    torus_timed_destroy(tt);
    torus_map_free(&m);
}

/* marked around the second send (100 us to 200 us): the window holds
 * that packet alone, its one link (0 -> 1, +) busy all of it */
static void t_transport_marked_window(void)
{
    torus_map m;
    ring_ctx x;
    memset(&x, 0, sizeof x);
    torus_timed *tt = four_ranks("4", &ring_params, &m, x.tp);
    torus_timed_stats st;
    x.mark = tt;
    ASSERT_EQ_INT(torus_timed_run(tt, ring_step, &x, &st), 0);
    ASSERT_EQ_INT(st.run.packets, 2);
    ASSERT_NEAR(st.window.t0, 100e-6, 1e-12);
    ASSERT_NEAR(st.window.t1, 200e-6, 1e-12);
    ASSERT_EQ_INT(st.window.packets, 1);
    ASSERT_EQ_INT(st.window.words, 10);
    ASSERT_NEAR(st.window.link_busy_s, 100e-6, 1e-12);
    ASSERT_NEAR(st.window.hot_util, 1.0, 1e-9);
    ASSERT_EQ_INT(st.window.hot_rank, 0);
    ASSERT_EQ_INT(st.window.hot_dir, 0);
    ASSERT_NEAR(st.window.dim_util_max[0], 1.0, 1e-9);
    ASSERT_NEAR(st.window.dim_util_mean[0], 1.0 / 8, 1e-9); /* 8 directed links of a 4-ring */
    ASSERT_NEAR(st.window.link_util, 1.0 / 8, 1e-9);
    ASSERT_EQ_INT(torus_timed_mark(tt, 2, 0), -1);
    torus_timed_destroy(tt);
    torus_map_free(&m);
}

/* Idle gaps (link_gaps): on the line 0-1-2-3, rank 2 sends to 3 and rank
 * 1 to 3 (which waits for link 2->3 until 100 us), then rank 1 to 2.  With
 * one free-at time per link that last packet waits until 200 us, behind
 * the booking on 1->2; in the gaps it leaves 1->2 idle from 0 to 100 us. */
typedef struct gap_ctx {
    torus_transport tp[4];
    int got[4];
    double arrive[4];
} gap_ctx;

static int gap_step(void *ctx, int r, double now, double *cpu_s)
{
    gap_ctx *x = ctx;
    torus_transport *t = &x->tp[r];
    *cpu_s = 0;
    torus_packet pk;
    while (t->poll(t->impl, 0, &pk)) {
        x->got[r]++;
        x->arrive[r] = now;
        t->release(t->impl, 0);
    }
    int want = r == 3 ? 2 : r == 2 ? 1 : 0;
    return x->got[r] >= want && t->quiescent(t->impl) ? TORUS_TIMED_DONE : TORUS_TIMED_IDLE;
}

static double gap_run(int gaps, double *to3)
{
    torus_map m;
    torus_timed_params p = {.cap = 16, .outstanding = 2, .link_bw = 1e6, .latency_s = 1e-6, .header_bytes = 20,
                            .link_gaps = gaps};
    gap_ctx x;
    memset(&x, 0, sizeof x);
    torus_timed *tt = four_ranks("4m", &p, &m, x.tp);
    const int from[3] = {2, 1, 1}, to[3] = {3, 3, 2};
    for (int i = 0; i < 3; i++) {
        uint64_t *buf = calloc(16, sizeof *buf);
        ASSERT_EQ_INT(x.tp[from[i]].send(x.tp[from[i]].impl, 0, to[i], &buf, 10, 0), 0);
        free(buf);
    }
    torus_timed_stats st;
    ASSERT_EQ_INT(torus_timed_run(tt, gap_step, &x, &st), 0);
    ASSERT_EQ_INT(st.run.packets, 3);
    ASSERT_NEAR(st.run.link_busy_s, 4 * 100e-6, 1e-12);
    torus_timed_destroy(tt);
    torus_map_free(&m);
    *to3 = x.arrive[3];
    return x.arrive[2];
}

static void t_link_gaps(void)
{
    double to3;
    /* 100 us on the wire, one latency per link */
    ASSERT_NEAR(gap_run(0, &to3), 200e-6 + 100e-6 + 1e-6, 1e-12);
    ASSERT_NEAR(to3, 100e-6 + 100e-6 + 2e-6, 1e-12);
    ASSERT_NEAR(gap_run(1, &to3), 100e-6 + 1e-6, 1e-12);
    ASSERT_NEAR(to3, 100e-6 + 100e-6 + 2e-6, 1e-12); /* the path 1->2->3 still waits for 2->3 */
}

/* BlueGene/L's wire format (paper 002 sec. 2, 4.3.1, Table 7): 32-byte
 * chunks, at most 256 bytes, 24 bytes of header inside, 14 per link. */
static void t_wire_format(void)
{
    torus_timed_params p = {.header_bytes = 24, .chunk_bytes = 32, .packet_max_bytes = 256, .link_overhead_bytes = 14};
    int k = 0;
    /* 29 updates fill one 256-byte packet: Table 7's 9.31 bytes per update */
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 29, &k), 270, 1e-12);
    ASSERT_EQ_INT(k, 1);
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 29, NULL) / 29, 9.31, 0.005);
    /* 25 updates: 224 bytes, 7 chunks, Table 7's 9.52 at 2048 nodes */
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 25, NULL) / 25, 9.52, 0.005);
    /* 1 update: one chunk; 10 updates: 104 bytes -> 4 chunks */
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 1, NULL), 32 + 14, 1e-12);
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 10, NULL), 128 + 14, 1e-12);
    /* 43 updates: 29 + 14, two packets (256 and 136 -> 160) */
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 43, &k), 270 + 174, 1e-12);
    ASSERT_EQ_INT(k, 2);
    /* a finish mark without updates is still one packet */
    ASSERT_NEAR(torus_timed_wire_bytes(&p, 0, &k), 32 + 14, 1e-12);
    ASSERT_EQ_INT(k, 1);
    /* the plain model: 8n + header */
    torus_timed_params q = {.header_bytes = 32};
    ASSERT_NEAR(torus_timed_wire_bytes(&q, 43, &k), 8 * 43 + 32, 1e-12);
    ASSERT_EQ_INT(k, 1);
}

static const test_case cases[] = {
    {"simulate_4mx4mx2m", t_simulate_4mx4mx2m},
    {"simulate_4x4x2m", t_simulate_4x4x2m},
    {"simulate_8x8", t_simulate_8x8},
    {"simulate_3x5x2", t_simulate_3x5x2},
    {"simulate_refuses_no_cpu_costs", t_simulate_refuses_no_cpu_costs},
    {"transport_times_and_counts", t_transport_times_and_counts},
    {"transport_marked_window", t_transport_marked_window},
    {"link_gaps", t_link_gaps},
    {"wire_format", t_wire_format},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_ropt_timed", cases);
}
