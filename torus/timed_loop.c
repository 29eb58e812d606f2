/*
 * timed_loop.c - the timed transport's discrete-event loop: ranks in a
 * min-heap by clock, each stepped in turn; an idle rank jumps to its next
 * event or sleeps until a send wakes it; the usage counters of the run
 * and of a marked window.
 */
#include "timed_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The next time something changes for rank r by itself: an arrival or a
 * slot release after now; INFINITY if only another rank can wake it. */
static double next_event(const torus_timed *s, int r)
{
    double now = s->clock[r], t = INFINITY;
    for (int d = 0; d < s->nd; d++) {
        const torus__pktq *q = &s->in[(size_t)r * s->nd + d];
        for (int i = 0; i < q->len; i++)
            if (q->q[i].arrive > now && q->q[i].arrive < t)
                t = q->q[i].arrive;
    }
    const double *f = &s->slot_free[(size_t)r * s->nd * s->p.outstanding];
    for (int i = 0; i < s->nd * s->p.outstanding; i++)
        if (f[i] > now && f[i] < t)
            t = f[i];
    double m = torus__msgs_next_event(s->msgs, r, now);
    return m < t ? m : t;
}

/* Binary min-heap of ranks by clock. */
typedef struct heap {
    int *r;
    int len;
} heap;

static void heap_push(heap *h, const double *key, int r)
{
    int i = h->len++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (key[h->r[p]] <= key[r])
            break;
        h->r[i] = h->r[p];
        i = p;
    }
    h->r[i] = r;
}

static int heap_pop(heap *h, const double *key)
{
    int top = h->r[0], last = h->r[--h->len], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && key[h->r[c + 1]] < key[h->r[c]])
            c++;
        if (key[last] <= key[h->r[c]])
            break;
        h->r[i] = h->r[c];
        i = c;
    }
    if (h->len)
        h->r[i] = last;
    return top;
}

/* Usage counters from a to b (NULL: the run's start, its end) over the
 * interval [t0, t1]: the links' busy seconds are booked when a packet is
 * sent, so a mark taken at time t counts what was sent by t. */
static void usage_between(const torus_timed *s, const timed_mark *a, const timed_mark *b, double t0, double t1,
                          torus_timed_usage *u)
{
    memset(u, 0, sizeof *u);
    u->t0 = t0, u->t1 = t1;
    double span = t1 - t0;
#define DIFF(f) ((b ? b->f : s->f) - (a ? a->f : 0))
    u->link_busy_s = DIFF(busy);
    u->wire_bytes = DIFF(wire_bytes);
    u->packets = DIFF(packets);
    u->words = DIFF(words);
    u->blocked_s = DIFF(blocked);
    u->waiting_s = DIFF(waiting);
    for (int i = 0; i < TORUS_TIMED_FILL_BINS; i++)
        u->fill_hist[i] = DIFF(fill_hist[i]);
#undef DIFF
    const torus_shape *sh = &s->map->shape;
    int N = s->n;
    long nlinks = 0;
    for (int d = 0; d < s->nd; d++)
        if (sh->k[d] > 1)
            nlinks += sh->mesh[d] ? 2L * (N / sh->k[d]) * (sh->k[d] - 1) : 2L * N;
    u->link_util = nlinks && span > 0 ? u->link_busy_s / ((double)nlinks * span) : 0;
    /* per dimension: the directed links that exist (a mesh line has no
     * wrap-around link at its ends) */
    u->hot_rank = u->hot_dim = u->hot_dir = -1;
    const double *lb = b ? b->link_busy : s->link_busy, *la = a ? a->link_busy : NULL;
    for (int d = 0; d < s->nd && span > 0; d++) {
        if (sh->k[d] < 2)
            continue;
        double sum = 0, max = 0;
        long cnt = 0;
        for (int r = 0; r < N; r++) {
            const int *c = &s->map->coords[(size_t)r * s->nd];
            int node = torus_map_linear(sh, c);
            for (int dir = 0; dir < 2; dir++) {
                if (sh->mesh[d] && (dir == 0 ? c[d] == sh->k[d] - 1 : c[d] == 0))
                    continue;
                size_t i = ((size_t)node * s->nd + d) * 2 + dir;
                double v = (lb[i] - (la ? la[i] : 0)) / span;
                sum += v, cnt++;
                if (v > max)
                    max = v;
                if (v > u->hot_util)
                    u->hot_util = v, u->hot_rank = r, u->hot_dim = d, u->hot_dir = dir;
            }
        }
        u->dim_util_mean[d] = cnt ? sum / cnt : 0;
        u->dim_util_max[d] = max;
    }
}

int torus_timed_mark(torus_timed *s, int which, double t)
{
    if (which < 0 || which > 1)
        return -1;
    timed_mark *m = &s->mark[which];
    size_t nl = (size_t)s->n * (size_t)s->nd * 2;
    if (!m->link_busy && !(m->link_busy = malloc(nl * sizeof *m->link_busy)))
        return -1;
    memcpy(m->link_busy, s->link_busy, nl * sizeof *m->link_busy);
    m->t = t;
    m->busy = s->busy, m->blocked = s->blocked, m->waiting = s->waiting, m->wire_bytes = s->wire_bytes;
    m->packets = s->packets, m->words = s->words;
    memcpy(m->fill_hist, s->fill_hist, sizeof m->fill_hist);
    m->set = 1;
    return 0;
}

int torus_timed_run(torus_timed *s, torus_timed_step_fn step, void *ctx, torus_timed_stats *st)
{
    memset(st, 0, sizeof *st);
    int N = s->n;
    heap h = {malloc((size_t)N * sizeof(int)), 0};
    if (!h.r) {
        st->unfinished = N;
        return -1;
    }
    for (int r = 0; r < N; r++)
        heap_push(&h, s->clock, r);
    int left = N;
    double makespan = 0;
    while (h.len) {
        int r = heap_pop(&h, s->clock);
        s->horizon = s->clock[r];
        s->nwake = 0;
        s->refused[r] = 0;
        double cost = 0;
        int rc = step(ctx, r, s->clock[r], &cost);
        st->steps++;
        s->clock[r] += cost;
        for (int i = 0; i < s->nwake; i++)
            heap_push(&h, s->clock, s->wake[i]);
        if (rc == TORUS_TIMED_DONE) {
            left--;
            if (s->clock[r] > makespan)
                makespan = s->clock[r];
            continue;
        }
        if (rc == TORUS_TIMED_IDLE) {
            double t = next_event(s, r);
            if (t == INFINITY) {
                s->asleep[r] = 1; /* until someone sends to it */
                continue;
            }
            if (s->refused[r])
                s->blocked += t - s->clock[r];
            else
                s->waiting += t - s->clock[r];
            s->clock[r] = t;
        }
        heap_push(&h, s->clock, r);
    }
    free(h.r);
    st->makespan = makespan;
    st->recvs = s->recvs;
    st->unfinished = left;
    usage_between(s, NULL, NULL, 0, makespan, &st->run);
    if (s->mark[0].set && s->mark[1].set && s->mark[1].t > s->mark[0].t)
        usage_between(s, &s->mark[0], &s->mark[1], s->mark[0].t, s->mark[1].t, &st->window);
    else
        st->window = st->run;
    return left ? -1 : 0;
}
