/*
 * transport_timed.c - the timed transport and its discrete-event loop.
 *
 * Model: a packet of 8n + header bytes (or, with a wire format, the
 *   chunked packets of torus_timed_wire_bytes) crosses the physical links of its
 *   dimension on the shorter way round a ring (straight along a mesh line;
 *   at exactly half a ring + from even coordinates, - from odd ones),
 *   cut-through as on BlueGene/L: it starts when every link of its path is
 *   free, holds them all for bytes/link_bw, and arrives one latency per
 *   link later.  A send slot is free again once its packet has left the
 *   first link (an eager send: the receiver queues what it cannot take).
 *   poll() hands out the earliest packet that has arrived by the rank's
 *   clock.  CPU time is charged by the caller's step function.
 *   Messages (the collectives' interface) are cut into packets that book
 *   the links of the dimension-ordered route hop by hop in per-link lists
 *   of busy intervals, so they fill the idle gaps that earlier bookings
 *   left (see route_message); packets at exactly half a ring alternate
 *   between the two ways.  The packet interface keeps its own one
 *   free-at time per link (what ra_opt's figures were made with), or with
 *   link_gaps takes the earliest window in the same lists of busy
 *   intervals in which its whole path is idle; a run uses one interface
 *   or the other.
 * Loop: conservative discrete-event simulation, ranks in a min-heap by
 *   clock.  Cost O(steps * log N); memory O(N * ndims * (slots + queue)).
 */
#include "torus_timed.h"
#include "msgq.h"
#include "pktq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One directed link's bookings (message interface, see route_message). */
typedef struct link_book {
    double *s, *e; /* busy intervals [s[i], e[i]), i in [head, len) */
    int head, len, cap;
} link_book;

/* Intervals closer than this (seconds) are one: it absorbs rounding in
 * sums of serialisation times, far below any cost of the model. */
#define BOOK_EPS 1e-13

typedef struct timed_ep {
    torus_timed *t;
    int rank;
} timed_ep;

/* The usage counters at one time (see torus_timed_mark). */
typedef struct timed_mark {
    int set;
    double t, busy, blocked, waiting, wire_bytes;
    uint64_t packets, words, fill_hist[TORUS_TIMED_FILL_BINS];
    double *link_busy; /* copy of the per-link seconds */
} timed_mark;

struct torus_timed {
    const torus_map *map;
    torus_timed_params p;
    int n, nd;
    double *clock;     /* per rank */
    double *slot_free; /* n * nd * outstanding: when each send slot frees */
    int *slot_words;   /* n * nd * outstanding: words of the packet in each slot */
    torus__pktq *in;   /* n * nd */
    double *link_free; /* n * nd * 2 directions (packet interface) */
    double *link_busy; /* n * nd * 2: seconds each directed link carried packets */
    unsigned char *refused; /* per rank: a send slot was refused in this step */
    double blocked, waiting; /* rank-seconds idle (see torus_timed_stats) */
    uint64_t fill_hist[TORUS_TIMED_FILL_BINS];
    link_book *book;   /* n * nd * 2 directions (message interface) */
    unsigned *ties;    /* per rank: packets sent at half a ring (way = parity) */
    double horizon;    /* clock of the rank being stepped: nothing books earlier */
    double busy;       /* link-seconds */
    double wire_bytes; /* packet interface: bytes of every send, framing included */
    uint64_t packets, words, recvs;
    torus__pool pool;
    torus__msgs *msgs;  /* message interface */
    double *cpu_due;    /* per rank: CPU seconds charged, not yet taken */
    timed_ep *ep;
    /* ranks asleep with nothing to do, woken by a send */
    unsigned char *asleep;
    int *wake;
    int nwake;
    timed_mark mark[2]; /* the window's start and end, when marked */
};

/* The directed link leaving node c along dimension d (dir 0 = +), as an
 * index into link_free, link_busy and book. */
static size_t link_at(const torus_timed *s, const int *c, int d, int dir)
{
    return ((size_t)torus_map_linear(&s->map->shape, c) * s->nd + d) * 2 + dir;
}

/* c one router further along dimension d of a k-ring, the dir way */
static void step_along(int *c, int d, int dir, int k)
{
    c[d] = dir == 0 ? (c[d] + 1) % k : (c[d] - 1 + k) % k;
}

static void book_prune(link_book *b, double horizon);
static double book_find(const link_book *b, double t, double ser, int *pos);
static double book_take(link_book *b, double t, double ser);

static int timed_can_send(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[((size_t)e->rank * s->nd + d) * s->p.outstanding];
    for (int i = 0; i < s->p.outstanding; i++)
        if (f[i] <= now)
            return 1;
    s->refused[e->rank] = 1;
    return 0;
}

/* Words of this rank's packets along d not yet off its first link. */
static int timed_sending(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    size_t base = ((size_t)e->rank * s->nd + d) * s->p.outstanding;
    int w = 0;
    for (int i = 0; i < s->p.outstanding; i++)
        if (s->slot_free[base + i] > now)
            w += s->slot_words[base + i];
    return w;
}

static int timed_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int r = e->rank;
    double now = s->clock[r];
    double *f = &s->slot_free[((size_t)r * s->nd + d) * s->p.outstanding];
    int slot = 0;
    while (slot < s->p.outstanding && f[slot] > now)
        slot++;
    if (slot == s->p.outstanding) {
        s->refused[r] = 1;
        return -1;
    }
    const torus_shape *sh = &s->map->shape;
    const int *mine = &s->map->coords[(size_t)r * s->nd];
    int from = mine[d], k = sh->k[d];
    /* physical path along d: the shorter way round a ring, straight in a mesh */
    int fwd = (to - from + k) % k, steps, dir;
    if (sh->mesh[d]) {
        dir = to > from ? 0 : 1;
        steps = abs(to - from);
    } else if (fwd < k - fwd) {
        dir = 0, steps = fwd;
    } else if (fwd > k - fwd) {
        dir = 1, steps = k - fwd;
    } else {
        /* half a ring: even coordinates go +, odd ones -.  Always one
         * way would load the + links of a k-ring (k / 2 + 1) / (k / 2 - 1)
         * times as much as the - links; a fixed way per sender keeps its
         * packets to one router in order (FinishLogic's last packet must
         * not overtake the updates before it) */
        dir = from & 1, steps = fwd;
    }
    double bytes = torus_timed_wire_bytes(&s->p, n, NULL), ser = bytes / s->p.link_bw;
    int c[TORUS_MAX_DIMS];
    memcpy(c, mine, (size_t)s->nd * sizeof *c);
    /* cut-through: the packet holds every link of its path for the same
     * window [start, start + ser], start = when the whole path is free */
    double start = now;
    int c0 = c[d];
    if (s->p.link_gaps) {
        /* the earliest window at which every link of the path is idle,
         * in the gaps earlier bookings left: scan until no link pushes
         * the start further, then book it on all of them */
        for (int moved = 1, first = 1; moved; first = 0) {
            moved = 0;
            c[d] = c0;
            for (int h = 0; h < steps; h++) {
                link_book *b = &s->book[link_at(s, c, d, dir)];
                if (first)
                    book_prune(b, s->horizon);
                int pos;
                double at = book_find(b, start, ser, &pos);
                if (at > start + BOOK_EPS)
                    start = at, moved = 1;
                step_along(c, d, dir, k);
            }
        }
        c[d] = c0;
        for (int h = 0; h < steps; h++) {
            size_t li = link_at(s, c, d, dir);
            if (book_take(&s->book[li], start, ser) < 0)
                return -1;
            s->link_busy[li] += ser;
            step_along(c, d, dir, k);
        }
    } else {
        for (int pass = 0; pass < 2; pass++) {
            c[d] = c0;
            for (int h = 0; h < steps; h++) {
                size_t li = link_at(s, c, d, dir);
                if (pass == 0 && s->link_free[li] > start)
                    start = s->link_free[li];
                if (pass == 1) {
                    s->link_free[li] = start + ser;
                    s->link_busy[li] += ser;
                }
                step_along(c, d, dir, k);
            }
        }
    }
    s->busy += ser * steps;
    double injected = start + ser, arrive = start + ser + s->p.latency_s * steps;
    c[d] = to;
    int dest = s->map->rank_of[torus_map_linear(sh, c)];
    torus__pktq *q = &s->in[(size_t)dest * s->nd + d];
    torus__pkt *pk = torus__pktq_send(q, &s->pool, buf, n, last, r);
    if (!pk)
        return -1;
    pk->arrive = arrive;
    f[slot] = injected;
    s->slot_words[((size_t)r * s->nd + d) * s->p.outstanding + slot] = n;
    s->packets++;
    s->words += (uint64_t)n;
    s->wire_bytes += bytes;
    int bin = (int)((double)n * TORUS_TIMED_FILL_BINS / s->p.cap - 1e-9);
    s->fill_hist[bin < 0 ? 0 : bin >= TORUS_TIMED_FILL_BINS ? TORUS_TIMED_FILL_BINS - 1 : bin]++;
    if (s->asleep[dest]) {
        s->asleep[dest] = 0;
        if (s->clock[dest] < arrive) {
            s->waiting += arrive - s->clock[dest];
            s->clock[dest] = arrive;
        }
        s->wake[s->nwake++] = dest;
    }
    return 0;
}

double torus_timed_wire_bytes(const torus_timed_params *p, int n, int *npk)
{
    double h = p->header_bytes, c = p->chunk_bytes;
    /* words per packet: what the largest packet holds beside its header */
    int per = p->packet_max_bytes > 0 ? (int)((p->packet_max_bytes - h) / 8) : n;
    if (per < 1)
        per = 1;
    double bytes = 0;
    int k = 0, left = n;
    do {
        int m = left < per ? left : per;
        double b = 8.0 * m + h;
        if (c > 0)
            b = c * ceil(b / c);
        bytes += b + p->link_overhead_bytes;
        left -= m;
        k++;
    } while (left > 0);
    if (npk)
        *npk = k;
    return bytes;
}

static int timed_poll(void *impl, int d, torus_packet *pkt)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    torus__pktq *q = &s->in[(size_t)e->rank * s->nd + d];
    if (q->held >= 0)
        return 0;
    double now = s->clock[e->rank];
    int best = -1;
    for (int i = 0; i < q->len; i++)
        if (q->q[i].arrive <= now && (best < 0 || q->q[i].arrive < q->q[best].arrive))
            best = i;
    if (best < 0)
        return 0;
    q->held = best;
    pkt->data = q->q[best].data;
    pkt->n = q->q[best].n;
    pkt->last = q->q[best].last;
    s->recvs++;
    return 1;
}

static void timed_release(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    torus__pktq *q = &s->in[(size_t)e->rank * s->nd + d];
    if (q->held < 0)
        return;
    torus__pool_put(&s->pool, q->q[q->held].data);
    torus__pktq_remove_swap(q, q->held);
    q->held = -1;
}

static int timed_quiescent(void *impl)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[(size_t)e->rank * s->nd * s->p.outstanding];
    for (int i = 0; i < s->nd * s->p.outstanding; i++)
        if (f[i] > now)
            return 0;
    return 1;
}

torus_timed *torus_timed_create(const torus_map *m, const torus_timed_params *p)
{
    if (p->cap < 1 || p->outstanding < 1 || !(p->link_bw > 0) || p->packet_bytes < 0 || !(p->chunk_bytes >= 0) ||
        !(p->link_overhead_bytes >= 0) || !(p->packet_max_bytes >= 0) ||
        (p->packet_max_bytes > 0 && p->packet_max_bytes < p->header_bytes + 8))
        return NULL;
    torus_timed *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->map = m;
    s->p = *p;
    s->n = m->shape.n;
    s->nd = m->shape.ndims;
    size_t nq = (size_t)s->n * (size_t)(s->nd ? s->nd : 1);
    s->clock = calloc((size_t)s->n, sizeof *s->clock);
    s->slot_free = calloc(nq * (size_t)p->outstanding, sizeof *s->slot_free);
    s->slot_words = calloc(nq * (size_t)p->outstanding, sizeof *s->slot_words);
    s->in = calloc(nq, sizeof *s->in);
    s->link_free = calloc(nq * 2, sizeof *s->link_free);
    s->link_busy = calloc(nq * 2, sizeof *s->link_busy);
    s->refused = calloc((size_t)s->n, 1);
    s->book = calloc(nq * 2, sizeof *s->book);
    s->ties = calloc((size_t)s->n, sizeof *s->ties);
    s->ep = calloc((size_t)s->n, sizeof *s->ep);
    s->asleep = calloc((size_t)s->n, 1);
    s->wake = malloc((size_t)s->n * sizeof *s->wake);
    s->msgs = torus__msgs_create(s->n);
    s->cpu_due = calloc((size_t)s->n, sizeof *s->cpu_due);
    if (!s->clock || !s->slot_free || !s->slot_words || !s->in || !s->link_free || !s->link_busy || !s->refused || !s->book || !s->ties ||
        !s->ep || !s->asleep || !s->wake || !s->msgs ||
        !s->cpu_due) {
        torus_timed_destroy(s);
        return NULL;
    }
    torus__pktq_init_all(s->in, nq);
    s->pool.words = (size_t)p->cap;
    if (!(s->p.packet_bytes > 0))
        s->p.packet_bytes = 240;
    return s;
}

void torus_timed_destroy(torus_timed *s)
{
    if (!s)
        return;
    torus__pktq_free_all(s->in, (size_t)s->n * (size_t)s->nd);
    torus__pool_free(&s->pool);
    torus__msgs_destroy(s->msgs);
    if (s->book)
        for (size_t i = 0; i < (size_t)s->n * (size_t)(s->nd ? s->nd : 1) * 2; i++)
            free(s->book[i].s), free(s->book[i].e);
    free(s->book), free(s->ties);
    free(s->cpu_due);
    free(s->clock), free(s->slot_free), free(s->slot_words), free(s->in), free(s->link_free), free(s->ep), free(s->asleep), free(s->wake);
    free(s->link_busy), free(s->refused);
    free(s->mark[0].link_busy), free(s->mark[1].link_busy);
    free(s);
}

/* Wakes rank r if it sleeps, no earlier than time t. */
static void wake_at(torus_timed *s, int r, double t)
{
    if (s->asleep[r]) {
        s->asleep[r] = 0;
        if (s->clock[r] < t)
            s->clock[r] = t;
        s->wake[s->nwake++] = r;
    }
}

/* ---- the message interface's link books --------------------------------
 *
 * Every directed link keeps the busy intervals [s, e) that packets of
 * messages have booked on it, sorted and disjoint.  A packet takes, hop by
 * hop, the first gap long enough for it that starts no earlier than its
 * head can be there (virtual cut-through: one latency behind the previous
 * hop, and not before the previous hop started; a packet that finds the
 * next link busy waits in the router's buffer, whose space is not
 * modelled).  So a packet booked later in the simulation can still use an
 * idle gap before packets booked earlier, as on the real network, where
 * links are arbitrated packet by packet.  Intervals that end before the
 * clock of the rank being stepped are dropped: the loop steps ranks in
 * clock order, so nothing can be booked before that clock any more.
 */

static void book_prune(link_book *b, double horizon)
{
    while (b->head < b->len && b->e[b->head] <= horizon)
        b->head++;
    if (b->head == b->len) {
        b->head = b->len = 0;
    } else if (b->head > 32 && b->head * 2 > b->len) {
        int m = b->len - b->head;
        memmove(b->s, b->s + b->head, (size_t)m * sizeof *b->s);
        memmove(b->e, b->e + b->head, (size_t)m * sizeof *b->e);
        b->head = 0;
        b->len = m;
    }
}

/* The earliest start >= t of a free window of length ser on b; *pos gets
 * the index of the first interval after that window. */
static double book_find(const link_book *b, double t, double ser, int *pos)
{
    /* the first interval that ends after t: binary search */
    int lo = b->head, hi = b->len;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (b->e[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int i = lo;
    double start = t;
    while (i < b->len && b->s[i] < start + ser - BOOK_EPS) {
        if (b->e[i] > start)
            start = b->e[i];
        i++;
    }
    *pos = i;
    return start;
}

/* The earliest start >= t of a free window of length ser on b, booked;
 * -1 on out of memory. */
static double book_take(link_book *b, double t, double ser)
{
    int i;
    double start = book_find(b, t, ser, &i);
    /* [start, start + ser) lies between interval i - 1 and interval i */
    double end = start + ser;
    int join_prev = i > b->head && b->e[i - 1] >= start - BOOK_EPS;
    int join_next = i < b->len && b->s[i] <= end + BOOK_EPS;
    if (join_prev && join_next) {
        b->e[i - 1] = b->e[i];
        memmove(b->s + i, b->s + i + 1, (size_t)(b->len - i - 1) * sizeof *b->s);
        memmove(b->e + i, b->e + i + 1, (size_t)(b->len - i - 1) * sizeof *b->e);
        b->len--;
    } else if (join_prev) {
        b->e[i - 1] = end;
    } else if (join_next) {
        b->s[i] = start;
    } else {
        if (b->len == b->cap) {
            int nc = b->cap ? 2 * b->cap : 8;
            double *ns = realloc(b->s, (size_t)nc * sizeof *ns);
            if (!ns)
                return -1;
            b->s = ns;
            double *ne = realloc(b->e, (size_t)nc * sizeof *ne);
            if (!ne)
                return -1;
            b->e = ne;
            b->cap = nc;
        }
        memmove(b->s + i + 1, b->s + i, (size_t)(b->len - i) * sizeof *b->s);
        memmove(b->e + i + 1, b->e + i, (size_t)(b->len - i) * sizeof *b->e);
        b->s[i] = start;
        b->e[i] = end;
        b->len++;
    }
    return start;
}

/* A message of `bytes` from rank r to dest: packets injected one after
 * another (each no earlier than the CPU has written it), each crossing
 * the links of the dimension-ordered route as the link books allow.  On a
 * ring, a packet at exactly half the ring away (both ways are shortest)
 * takes the two ways in turn, packet by packet at each source: BlueGene/L
 * routes adaptively among shortest paths (paper 000 sec. 2), and a fixed
 * choice would load one direction of every even ring with k/2 + 1 of k
 * shares.  Returns the arrival of the last packet to arrive (-1 on out
 * of memory); *left the time the last packet left the first link (the
 * send buffer is free again). */
static double route_message(torus_timed *s, int r, int dest, size_t bytes, double now, double *left)
{
    const torus_shape *sh = &s->map->shape;
    const int *from = &s->map->coords[(size_t)r * s->nd], *to = &s->map->coords[(size_t)dest * s->nd];
    /* the route: per dimension a direction and a number of steps */
    int dir[TORUS_MAX_DIMS], steps[TORUS_MAX_DIMS], tie[TORUS_MAX_DIMS], hops = 0, ties = 0;
    for (int d = 0; d < s->nd; d++) {
        int k = sh->k[d], fwd = (to[d] - from[d] + k) % k;
        tie[d] = 0;
        if (sh->mesh[d]) {
            dir[d] = to[d] > from[d] ? 0 : 1;
            steps[d] = abs(to[d] - from[d]);
        } else if (fwd < k - fwd) {
            dir[d] = 0, steps[d] = fwd;
        } else if (fwd > k - fwd) {
            dir[d] = 1, steps[d] = k - fwd;
        } else {
            dir[d] = 0, steps[d] = fwd;
            tie[d] = fwd > 0 && k > 2; /* a ring of 2: its two links are one each way */
            ties |= tie[d];
        }
        hops += steps[d];
    }
    size_t npk = bytes ? (bytes + (size_t)s->p.packet_bytes - 1) / (size_t)s->p.packet_bytes : 1;
    double arrive = now, out = now, written = now;
    size_t rest = bytes;
    for (size_t k = 0; k < npk; k++) {
        double pay = rest < (size_t)s->p.packet_bytes ? (double)rest : s->p.packet_bytes;
        rest -= (size_t)pay;
        double ser = (pay + s->p.header_bytes) / s->p.link_bw;
        written += s->p.cpu_send_pkt_s;
        if (ties) {
            int way = (int)(s->ties[r]++ & 1u);
            for (int d = 0; d < s->nd; d++)
                if (tie[d])
                    dir[d] = way;
        }
        if (!hops) {
            out = written;
            arrive = arrive > written ? arrive : written;
            continue;
        }
        int c[TORUS_MAX_DIMS];
        memcpy(c, from, (size_t)s->nd * sizeof *c);
        double head = written, first = -1;
        for (int d = 0; d < s->nd; d++)
            for (int h = 0; h < steps[d]; h++) {
                link_book *b = &s->book[link_at(s, c, d, dir[d])];
                book_prune(b, s->horizon);
                double st = book_take(b, head, ser);
                if (st < 0)
                    return -1;
                if (first < 0)
                    first = st;
                head = st + s->p.latency_s; /* the head reaches the next router */
                step_along(c, d, dir[d], sh->k[d]);
            }
        s->busy += ser * hops;
        out = first + ser > out ? first + ser : out;
        /* head: the last link's start plus one latency; the tail follows ser later */
        arrive = head + ser > arrive ? head + ser : arrive;
    }
    *left = out;
    s->packets += npk;
    s->words += (bytes + 7) / 8;
    return arrive;
}

static double npackets(const torus_timed *s, size_t bytes)
{
    return bytes ? (double)((bytes + (size_t)s->p.packet_bytes - 1) / (size_t)s->p.packet_bytes) : 1.0;
}

/* A send starts when this step's CPU work so far is done; the CPU then
 * spends cpu_msg_s on the message and cpu_send_pkt_s on every packet. */
static int timed_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    double now = s->clock[me] + s->cpu_due[me] + s->p.cpu_msg_s, left;
    double arrive = route_message(s, me, dest, bytes, now, &left);
    if (arrive < 0)
        return -1;
    s->cpu_due[me] += s->p.cpu_msg_s + npackets(s, bytes) * s->p.cpu_send_pkt_s;
    if (torus__msgs_isend(s->msgs, me, dest, buf, bytes, tag, arrive, left, &r->id))
        return -1;
    wake_at(s, dest, arrive);
    return 0;
}

/* The flag of a message deposited by a line send (see timed_test). */
#define DEPOSITED 1

/* Paper 000's deposit bit (sec. 3, 3.2): a line send writes each packet
 * once per direction of the line (both ways round a ring, floor(k/2)
 * nodes the + way and the rest the - way; towards both ends of a mesh
 * line) and the packet is deposited at every node it passes, booking
 * each link of its way as a message's packet does.  The sender pays
 * cpu_msg_s once and cpu_send_pkt_s per packet and direction; a
 * receiver pays only cpu_recv_pkt_s per packet it reads (timed_test): no
 * message of its own was matched, "receivers pay only a per-packet read"
 * (the paper's phase latency S + (n-1) max(|P|/BW, T_pkt)). */
static int timed_line_send(void *impl, int d, const void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    const torus_shape *sh = &s->map->shape;
    const int *mine = &s->map->coords[(size_t)me * s->nd];
    int k = sh->k[d], p = mine[d];
    int way[2]; /* nodes the + way and the - way */
    if (sh->mesh[d])
        way[0] = k - 1 - p, way[1] = p;
    else
        way[0] = k / 2, way[1] = k - 1 - k / 2;
    int nw = (way[0] > 0) + (way[1] > 0);
    int *dst = malloc((size_t)k * sizeof *dst);
    double *arrive = calloc((size_t)k, sizeof *arrive);
    if (!dst || !arrive) {
        free(dst), free(arrive);
        return -1;
    }
    int c[TORUS_MAX_DIMS];
    memcpy(c, mine, (size_t)s->nd * sizeof *c);
    for (int w = 0, i = 0; w < 2; w++)
        for (int h = 1; h <= way[w]; h++) {
            c[d] = w == 0 ? (p + h) % k : (p - h + k) % k;
            dst[i++] = s->map->rank_of[torus_map_linear(sh, c)];
        }
    double now = s->clock[me] + s->cpu_due[me] + s->p.cpu_msg_s, written = now, left = now;
    size_t npk = (size_t)npackets(s, bytes), rest = bytes;
    for (size_t q = 0; q < npk; q++) {
        double pay = rest < (size_t)s->p.packet_bytes ? (double)rest : s->p.packet_bytes;
        rest -= (size_t)pay;
        double ser = (pay + s->p.header_bytes) / s->p.link_bw;
        for (int w = 0, base = 0; w < 2; base += way[w], w++) {
            if (!way[w])
                continue;
            written += s->p.cpu_send_pkt_s;
            double head = written;
            memcpy(c, mine, (size_t)s->nd * sizeof *c);
            for (int h = 0; h < way[w]; h++) {
                link_book *b = &s->book[link_at(s, c, d, w)];
                book_prune(b, s->horizon);
                double st = book_take(b, head, ser);
                if (st < 0) {
                    free(dst), free(arrive);
                    return -1;
                }
                if (h == 0 && st + ser > left)
                    left = st + ser;
                head = st + s->p.latency_s;
                if (head + ser > arrive[base + h])
                    arrive[base + h] = head + ser;
                step_along(c, d, w, k);
            }
            s->busy += ser * way[w];
        }
    }
    s->packets += npk * (size_t)nw;
    s->words += (uint64_t)nw * ((bytes + 7) / 8);
    s->cpu_due[me] += s->p.cpu_msg_s + (double)npk * nw * s->p.cpu_send_pkt_s;
    int rc = torus__msgs_isend_multi(s->msgs, me, dst, arrive, k - 1, buf, bytes, tag, left, DEPOSITED, &r->id);
    for (int i = 0; !rc && i < k - 1; i++)
        wake_at(s, dst[i], arrive[i]);
    free(dst), free(arrive);
    return rc;
}

static int timed_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    return torus__msgs_irecv(e->t->msgs, e->rank, src, buf, bytes, tag, &r->id);
}

static int timed_test(void *impl, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    if (r->id < 0)
        return 1;
    size_t bytes = 0;
    int is_recv = torus__msgs_is_recv(s->msgs, r->id);
    int deposited = is_recv && (torus__msgs_flags(s->msgs, r->id) & DEPOSITED);
    int rc = torus__msgs_test(s->msgs, r->id, s->clock[me] + s->cpu_due[me], &bytes);
    if (rc) {
        r->id = -1;
        if (is_recv) {
            /* the CPU reads every packet of the message; a deposited one
             * was matched by no message call of its own */
            s->cpu_due[me] += (deposited ? 0 : s->p.cpu_msg_s) + npackets(s, bytes) * s->p.cpu_recv_pkt_s;
            s->recvs++;
        }
    }
    return rc;
}

static void timed_reduced(void *impl, size_t bytes)
{
    timed_ep *e = impl;
    e->t->cpu_due[e->rank] += (double)bytes * e->t->p.cpu_reduce_byte_s;
}

double torus_timed_take_cpu(torus_timed *s, int r)
{
    double c = s->cpu_due[r];
    s->cpu_due[r] = 0;
    return c;
}

double torus_timed_clock(const torus_timed *s, int r)
{
    return s->clock[r] + s->cpu_due[r];
}

int torus_timed_open_requests(const torus_timed *s, int r)
{
    return torus__msgs_open(s->msgs, r);
}

void torus_timed_bind(torus_timed *s, int r, torus_transport *tp)
{
    s->ep[r].t = s;
    s->ep[r].rank = r;
    *tp = (torus_transport){.impl = &s->ep[r],
                            .can_send = timed_can_send,
                            .send = timed_send,
                            .poll = timed_poll,
                            .release = timed_release,
                            .quiescent = timed_quiescent,
                            .sending = timed_sending,
                            .isend = timed_isend,
                            .irecv = timed_irecv,
                            .test = timed_test,
                            .reduced = timed_reduced,
                            .line_send = timed_line_send};
}

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
