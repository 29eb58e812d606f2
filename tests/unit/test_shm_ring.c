/*
 * test_shm_ring.c - the shared-memory ring protocol (torus_shm.h) on its
 * own: the send-slot limit, who counts a packet when (sender until taken,
 * then receiver), the layout every rank agrees on, bad arguments refused;
 * then real concurrency: one thread per rank of a 4-rank line and of a
 * 2x2x2 shape, 20000 packets each way with every word checked, in order
 * per sender, finish marks last, every send taken at the end; and the same
 * with idle threads asleep on the rings (torus_shm_sleep), every wake-up
 * arriving.  (The same
 * code under the functional simulator's adversarial schedules at 4096
 * virtual ranks is in test_ropt_sim.)
 */
#include "../test.h"
#include "torus_shm.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

typedef struct world {
    torus_map map;
    char **area;
    unsigned mask;
    int cap, slots;
} world;

static void *area_of(void *ctx, int rank, unsigned *mask)
{
    world *w = ctx;
    *mask = w->mask;
    return w->area[rank];
}

static int world_init(world *w, const char *shape, int n, int cap, int slots)
{
    char err[128];
    torus_shape s;
    if (torus_shape_parse(shape, n, &s, err, sizeof err) || torus_map_xyzt(&w->map, &s))
        return -1;
    int on[TORUS_MAX_DIMS];
    w->mask = 0;
    for (int d = 0; d < s.ndims; d++) {
        on[d] = 1;
        w->mask |= 1u << d;
    }
    w->cap = cap;
    w->slots = slots;
    size_t bytes = torus_shm_area_bytes(&s, on, cap, slots);
    w->area = calloc((size_t)n, sizeof *w->area);
    for (int r = 0; r < n; r++) {
        w->area[r] = aligned_alloc(64, (bytes + 63) / 64 * 64);
        torus_shm_area_init(w->area[r], bytes);
    }
    return 0;
}

static void world_free(world *w)
{
    for (int r = 0; r < w->map.shape.n; r++)
        free(w->area[r]);
    free(w->area);
    torus_map_free(&w->map);
}

static torus_shm_core *core_of(world *w, int r)
{
    int on[TORUS_MAX_DIMS];
    for (int d = 0; d < TORUS_MAX_DIMS; d++)
        on[d] = 1;
    return torus_shm_core_create(&w->map, r, on, w->cap, w->slots, area_of, w);
}

/* One thread, two ranks of "2": the protocol step by step. */
static void t_protocol_step_by_step(void)
{
    world w;
    ASSERT_EQ_INT(world_init(&w, "2", 2, 8, 2), 0);
    torus_shm_core *a = core_of(&w, 0), *b = core_of(&w, 1);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(torus_shm_on(a, 0));
    uint64_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    torus_packet p;
    ASSERT_EQ_INT(torus_shm_poll(b, 0, &p), 0);
    /* two send slots: two packets out, the third must wait */
    ASSERT_TRUE(torus_shm_can_send(a, 0));
    ASSERT_EQ_INT(torus_shm_send(a, 0, 1, buf, 8, 0), 0);
    ASSERT_TRUE(torus_shm_can_send(a, 0));
    ASSERT_EQ_INT(torus_shm_send(a, 0, 1, buf + 3, 5, 1), 0);
    ASSERT_TRUE(!torus_shm_can_send(a, 0));
    ASSERT_EQ_INT(torus_shm_send(a, 0, 1, buf, 1, 0), -1);
    ASSERT_EQ_INT(torus_shm_sending(a, 0), 13);
    ASSERT_TRUE(!torus_shm_quiescent(a));
    /* taking a packet moves its count to the receiver: a slot frees */
    ASSERT_EQ_INT(torus_shm_poll(b, 0, &p), 1);
    ASSERT_EQ_INT(p.n, 8);
    ASSERT_EQ_INT(p.last, 0);
    ASSERT_EQ_U64(p.data[7], 8);
    /* the sender learns it when it next asks for a slot */
    ASSERT_EQ_INT(torus_shm_sending(a, 0), 13);
    ASSERT_TRUE(torus_shm_can_send(a, 0));
    ASSERT_EQ_INT(torus_shm_sending(a, 0), 5);
    /* a held packet is returned again until it is released */
    torus_packet q;
    ASSERT_EQ_INT(torus_shm_poll(b, 0, &q), 1);
    ASSERT_TRUE(q.data == p.data);
    torus_shm_release(b, 0);
    ASSERT_EQ_INT(torus_shm_poll(b, 0, &p), 1);
    ASSERT_EQ_INT(p.n, 5);
    ASSERT_EQ_INT(p.last, 1);
    ASSERT_EQ_U64(p.data[0], 4);
    torus_shm_release(b, 0);
    ASSERT_TRUE(torus_shm_quiescent(a));
    ASSERT_EQ_INT(torus_shm_sending(a, 0), 0);
    /* bad arguments: to itself, out of range, too long */
    ASSERT_EQ_INT(torus_shm_send(a, 0, 0, buf, 1, 0), -1);
    ASSERT_EQ_INT(torus_shm_send(a, 0, 2, buf, 1, 0), -1);
    ASSERT_EQ_INT(torus_shm_send(a, 0, 1, buf, 9, 0), -1);
    /* many more packets than slots: the ring wraps */
    for (int i = 0; i < 1000; i++) {
        buf[0] = (uint64_t)i;
        ASSERT_EQ_INT(torus_shm_send(a, 0, 1, buf, 1 + i % 8, 0), 0);
        ASSERT_EQ_INT(torus_shm_poll(b, 0, &p), 1);
        if (p.data[0] != (uint64_t)i || p.n != 1 + i % 8)
            ASSERT_TRUE(0);
        torus_shm_release(b, 0);
    }
    torus_shm_core_destroy(a);
    torus_shm_core_destroy(b);
    world_free(&w);
}

/* The inbox: packets of several senders come out in the order they were
 * published (the tickets' order), also once the announcements and the
 * rings have wrapped many times, and in the scan mode every packet still
 * arrives (in an order of its own). */
static void t_inbox_order(void)
{
    world w;
    ASSERT_EQ_INT(world_init(&w, "8", 8, 4, 2), 0);
    torus_shm_core *c[8];
    for (int r = 0; r < 8; r++)
        c[r] = core_of(&w, r);
    uint64_t buf[4] = {0};
    torus_packet p;
    static const int order[] = {3, 1, 6, 1, 5, 7, 2, 4, 3, 6};
    long bad = 0;
    for (int round = 0; round < 500; round++) {
        for (int i = 0; i < 10; i++) {
            buf[0] = (uint64_t)(round * 10 + i);
            ASSERT_TRUE(torus_shm_can_send(c[order[i]], 0));
            ASSERT_EQ_INT(torus_shm_send(c[order[i]], 0, 0, buf, 1 + i % 4, 0), 0);
        }
        for (int i = 0; i < 10; i++) {
            if (torus_shm_poll(c[0], 0, &p) != 1 || p.data[0] != (uint64_t)(round * 10 + i) || p.n != 1 + i % 4)
                bad++;
            torus_shm_release(c[0], 0);
        }
        ASSERT_EQ_INT(torus_shm_poll(c[0], 0, &p), 0);
    }
    ASSERT_EQ_INT(bad, 0);
    /* the scan mode: every packet once */
    torus_shm_set_scan(c[0], 1);
    for (int i = 0; i < 10; i++) {
        buf[0] = (uint64_t)i;
        ASSERT_EQ_INT(torus_shm_send(c[order[i]], 0, 0, buf, 1, 0), 0);
    }
    unsigned seen = 0;
    for (int i = 0; i < 10; i++) {
        ASSERT_EQ_INT(torus_shm_poll(c[0], 0, &p), 1);
        seen |= 1u << p.data[0];
        torus_shm_release(c[0], 0);
    }
    ASSERT_EQ_INT((int)seen, 0x3ff);
    ASSERT_EQ_INT(torus_shm_poll(c[0], 0, &p), 0);
    for (int r = 0; r < 8; r++) {
        ASSERT_TRUE(torus_shm_quiescent(c[r]));
        torus_shm_core_destroy(c[r]);
    }
    world_free(&w);
}

/* ---- threads ---------------------------------------------------------- */

#define PACKETS 20000
#define SLEEPY_PACKETS 1000

typedef struct rank_job {
    world *w;
    int r;
    torus_shm_core *c;
    long bad;
    int sleepy;      /* idle: sleep on the rings (1 s at most) instead of yielding */
    int scan;        /* find packets by the ring heads' scan, not the inbox */
    int packets;     /* each way, plus the last */
    long slept, timeouts;
} rank_job;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *rank_main(void *arg)
{
    rank_job *j = arg;
    const torus_shape *s = &j->w->map.shape;
    const int *my = &j->w->map.coords[(size_t)j->r * (size_t)s->ndims];
    int D = s->ndims, cap = j->w->cap;
    /* per dimension: packets sent to each coordinate, expected next from each */
    int sent[TORUS_MAX_DIMS][8] = {{0}}, next[TORUS_MAX_DIMS][8] = {{0}}, fin[TORUS_MAX_DIMS] = {0};
    int nextdest[TORUS_MAX_DIMS] = {0};
    uint64_t buf[256];
    for (;;) {
        int moved = 0, all = 1;
        for (int d = 0; d < D; d++) {
            int k = s->k[d];
            /* send: round robin over the other coordinates */
            for (int tries = 0; tries < k; tries++) {
                int x = nextdest[d];
                nextdest[d] = (x + 1) % k;
                if (x == my[d] || sent[d][x] > j->packets)
                    continue;
                if (!torus_shm_can_send(j->c, d))
                    break;
                int n = 1 + (j->r * 7 + sent[d][x]) % cap, last = sent[d][x] == j->packets;
                for (int i = 0; i < n; i++)
                    buf[i] = ((uint64_t)j->r << 48) | ((uint64_t)sent[d][x] << 16) | (uint64_t)i;
                if (torus_shm_send(j->c, d, x, buf, n, last)) {
                    j->bad++;
                    fprintf(stderr, "rank %d: send %d to %d refused\n", j->r, sent[d][x], x);
                    return NULL;
                }
                sent[d][x]++;
                moved = 1;
                break;
            }
            /* receive: check every word and the order per sender */
            torus_packet p;
            if (torus_shm_poll(j->c, d, &p)) {
                int from = (int)(p.data[0] >> 48), fc = j->w->map.coords[(size_t)from * (size_t)D + (size_t)d];
                for (int i = 0; i < p.n; i++)
                    if (p.data[i] != (((uint64_t)from << 48) | ((uint64_t)next[d][fc] << 16) | (uint64_t)i)) {
                        j->bad++;
                        fprintf(stderr, "rank %d: packet %d from %d word %d: %016llx\n", j->r, next[d][fc], from, i,
                                (unsigned long long)p.data[i]);
                        return NULL;
                    }
                if (p.n != 1 + (from * 7 + next[d][fc]) % cap || p.last != (next[d][fc] == j->packets))
                    j->bad++;
                next[d][fc]++;
                fin[d] += p.last;
                torus_shm_release(j->c, d);
                moved = 1;
            }
            for (int x = 0; x < k; x++)
                if (x != my[d] && (sent[d][x] <= j->packets || next[d][x] <= j->packets))
                    all = 0;
        }
        if (all && torus_shm_quiescent(j->c))
            break;
        if (!moved && j->sleepy) {
            /* a wake-up the protocol lost would show as a sleep that ran
             * its whole second while the other threads still had work */
            double t0 = now_s();
            j->slept += torus_shm_sleep(j->c, 1000000000L);
            j->timeouts += now_s() - t0 > 0.9;
        } else if (!moved) {
            sched_yield();
        }
    }
    for (int d = 0; d < D; d++)
        if (fin[d] != s->k[d] - 1)
            j->bad++;
    return NULL;
}

static int g_lazy; /* the threads' rings wake lazily (torus_shm_set_lazy_wake) */

static void threads_mode(const char *shape, int n, int cap, int slots, int sleepy, int scan, int packets)
{
    world w;
    ASSERT_EQ_INT(world_init(&w, shape, n, cap, slots), 0);
    rank_job jobs[8];
    pthread_t th[8];
    for (int r = 0; r < n; r++) {
        jobs[r] = (rank_job){.w = &w, .r = r, .c = core_of(&w, r), .sleepy = sleepy, .scan = scan,
                             .packets = packets};
        ASSERT_TRUE(jobs[r].c != NULL);
        torus_shm_set_scan(jobs[r].c, scan);
        torus_shm_set_lazy_wake(jobs[r].c, g_lazy);
    }
    for (int r = 0; r < n; r++)
        ASSERT_EQ_INT(pthread_create(&th[r], NULL, rank_main, &jobs[r]), 0);
    long bad = 0, slept = 0, timeouts = 0;
    for (int r = 0; r < n; r++) {
        pthread_join(th[r], NULL);
        bad += jobs[r].bad;
        slept += jobs[r].slept;
        timeouts += jobs[r].timeouts;
        torus_shm_core_destroy(jobs[r].c);
    }
    printf("threads on %s, cap %d, %d slot(s)%s%s: %d packets each way, %ld bad, %ld sleeps, %ld ran out\n", shape,
           cap, slots, sleepy ? ", idle ones asleep" : "", scan ? ", ring heads scanned" : "", jobs[0].packets + 1,
           bad, slept, timeouts);
    ASSERT_EQ_INT(bad, 0);
    ASSERT_EQ_INT(timeouts, 0);
    world_free(&w);
}

static void threads(const char *shape, int n, int cap, int slots, int sleepy)
{
    threads_mode(shape, n, cap, slots, sleepy, 0, sleepy ? SLEEPY_PACKETS : PACKETS);
}

/* eight senders into every inbox at once, two slots each */
static void t_threads_line_8(void)
{
    threads_mode("8", 8, 9, 2, 0, 0, 5000);
}

/* the scan mode ra_calibrate --hop prices beside the inbox */
static void t_threads_line_4_scan(void)
{
    threads_mode("4", 4, 13, 1, 0, 1, PACKETS);
}

static void t_threads_line_4(void)
{
    threads("4", 4, 13, 1, 0);
}

static void t_threads_2x2x2(void)
{
    threads("2x2x2", 8, 64, 3, 0);
}

/* idle ranks asleep: every wake-up arrives (none waits out its second) */
static void t_asleep_line_2(void)
{
    threads("2", 2, 200, 1, 1);
}

static void t_asleep_line_4(void)
{
    threads("4", 4, 13, 1, 1);
}

static void t_asleep_2x2x2(void)
{
    threads("2x2x2", 8, 64, 3, 1);
}

/* lazy wake-ups: a wake-up a waker misses costs a bounded sleep, never a
 * lost packet (every word checked, every sleep under its 1 s) */
static void t_asleep_lazy(void)
{
    g_lazy = 1;
    threads("2", 2, 200, 1, 1);
    threads("8", 8, 9, 2, 1);
    threads("2x2x2", 8, 64, 3, 1);
    g_lazy = 0;
}

static const test_case cases[] = {
    {"protocol_step_by_step", t_protocol_step_by_step},
    {"inbox_order", t_inbox_order},
    {"threads_line_8", t_threads_line_8},
    {"threads_line_4_scan", t_threads_line_4_scan},
    {"threads_line_4", t_threads_line_4},
    {"threads_2x2x2", t_threads_2x2x2},
    {"asleep_line_2", t_asleep_line_2},
    {"asleep_line_4", t_asleep_line_4},
    {"asleep_2x2x2", t_asleep_2x2x2},
    {"asleep_lazy", t_asleep_lazy},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_shm_ring", cases);
}
