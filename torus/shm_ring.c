/*
 * shm_ring.c - the shared-memory ring protocol (torus_shm.h), no MPI.
 *
 * Layout of one rank's incoming area, per shared-memory dimension d in
 * order: a doorbell line (the count of packets published to this rank
 * along d), the inbox (Q = (k-1) S announcements, whole lines), then one
 * ring per other coordinate c along d, in order of c.
 *
 * The inbox (issue 44): a sender that publishes a packet takes the next
 * ticket t from the doorbell (an atomic add) and writes its coordinate,
 * tagged with t + 1, into announcement t mod Q.  The receiver reads the
 * doorbell (one line: nothing new costs this load whatever k is) and then
 * announcement `seen mod Q`, which names the one ring to take from, so a
 * packet costs the same few lines at 2 ranks and at 128 instead of a scan
 * of up to k-1 ring heads.  Q suffices: a ticket is taken after its
 * packet is published and given back when the packet is taken, and at
 * most S packets of each of the k-1 senders are published and untaken.
 * An announcement whose tag is not yet seen + 1 is a sender between its
 * add and its store: the receiver looks again at its next poll.  Tickets
 * are taken in the order of the rings' packets, so the packet announced
 * is the oldest untaken one of its ring.  The scan of the ring heads stays
 * as a mode (torus_shm_set_scan) so that ra_calibrate --hop can price both
 * in one run.
 * A ring: a header of two lines -- head (the sender's), then taken and
 * tail (the receiver's), so that neither side writes the other's line --
 * and S+1 slots, each a line of {n, last} and cap words rounded up to whole
 * lines.  Indices only grow (2^64 packets never wrap).
 *
 * Ordering: the sender fills a slot, then stores head with release and
 * adds to the doorbell with release; the receiver loads the doorbell and
 * head with acquire before it reads the slot, stores taken (release) when
 * it takes the packet and tail (release) when it has finished with it.
 * The sender reads taken with acquire to know a send has completed; the
 * slot it writes next is free because at most S of its packets along d
 * are untaken and the receiver holds at most one taken packet per
 * dimension (S+1 slots).
 * Cost per packet: one copy of n words into the peer's slot, three release
 * stores and one atomic add on the sender; two acquire loads (the doorbell
 * and the announcement), the slot's lines (prefetched as the packet is
 * taken) and two release stores on the receiver, at any k.  No system
 * call, no MPI call.
 *
 * Sleeping (torus_shm_sleep): a node with more ranks than cores cannot
 * afford ranks that spin or merely yield while their peer waits for a
 * core, so an idle rank may sleep on the first word of its area (a futex
 * in shared memory).  It sets the word, fences, looks once more for a
 * packet or a taken send, and only then sleeps; whoever publishes a packet
 * to it or takes one of its packets fences after doing so and, finding the
 * word set, clears it and wakes it.  Either the sleeper's second look sees
 * the event or the waker sees the word: no wake-up is lost.  A timeout
 * bounds the sleep for what the rings cannot signal (MPI dimensions).
 */
#define _GNU_SOURCE /* syscall() for the futex */
#include "torus_shm.h"
#include "torus_prefetch.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define LINE 64
/* With lazy wake-ups (torus_shm_set_lazy_wake) a sleep lasts this long at
 * most: what a wake-up the waker missed may cost. */
#define TORUS_SHM_NAP_NS 20000L

typedef struct shm_fly {
    int to;       /* coordinate of the receiver */
    uint64_t seq; /* the packet's index in that ring */
    int words;
} shm_fly;

typedef struct shm_dimc {
    int on, k, mc;
    char **out, **in;            /* k: the rings me -> c and c -> me (NULL at mc) */
    _Atomic uint32_t **sleep_of; /* k: the sleep word of the rank at c */
    uint64_t *out_head, *in_taken; /* k: my copies of the indices I write */
    _Atomic uint64_t *bell;      /* my doorbell along d */
    _Atomic uint64_t **bell_to;  /* k: the receivers' doorbells */
    _Atomic uint64_t *ann;       /* my inbox: Q announcements */
    _Atomic uint64_t **ann_to;   /* k: the receivers' inboxes */
    uint64_t q;                  /* Q = (k - 1) S */
    uint64_t bell_seen;          /* packets taken along d */
    int rr;                      /* the sender to look at first */
    shm_fly *fly;                /* published, not yet known taken */
    int nfly, sending;
    int held, held_c;            /* the taken packet and its sender */
    torus_packet pkt;
} shm_dimc;

struct torus_shm_core {
    int ndims, cap, slots, nslots;
    int scan;   /* 1: find packets by scanning the ring heads, not the inbox */
    int lazy;   /* wake-ups without a fence, sleeps bounded (torus_shm_set_lazy_wake) */
    size_t slot_b, ring_b;
    _Atomic uint32_t *sleep; /* this rank's sleep word */
    shm_dimc dim[TORUS_MAX_DIMS];
};

static size_t round_line(size_t b)
{
    return (b + LINE - 1) / LINE * LINE;
}

static size_t slot_bytes(int cap)
{
    return LINE + round_line((size_t)cap * sizeof(uint64_t));
}

static size_t ring_bytes(int cap, int slots)
{
    return 2 * LINE + (size_t)(slots + 1) * slot_bytes(cap);
}

/* The inbox's announcements along a dimension of k. */
static size_t inbox_bytes(int k, int slots)
{
    return round_line((size_t)(k - 1) * (size_t)slots * sizeof(uint64_t));
}

static size_t dim_bytes(int k, int cap, int slots)
{
    return LINE + inbox_bytes(k, slots) + (size_t)(k - 1) * ring_bytes(cap, slots);
}

/* An area: the sleep line, then the dimensions'. */
size_t torus_shm_area_bytes(const torus_shape *s, const int *on, int cap, int slots)
{
    size_t b = LINE;
    for (int d = 0; d < s->ndims; d++)
        if (on[d] && s->k[d] >= 2)
            b += dim_bytes(s->k[d], cap, slots);
    return b;
}

void torus_shm_area_init(void *area, size_t bytes)
{
    memset(area, 0, bytes);
}

/* The ring's fields: head in the first line, taken and tail in the second. */
static _Atomic uint64_t *ring_head(char *r)
{
    return (_Atomic uint64_t *)(void *)r;
}

static _Atomic uint64_t *ring_taken(char *r)
{
    return (_Atomic uint64_t *)(void *)(r + LINE);
}

static _Atomic uint64_t *ring_tail(char *r)
{
    return (_Atomic uint64_t *)(void *)(r + LINE + sizeof(uint64_t));
}

static char *ring_slot(const torus_shm_core *c, char *r, uint64_t i)
{
    return r + 2 * LINE + (size_t)(i % (uint64_t)c->nslots) * c->slot_b;
}

/* Offset of dimension d's part in an incoming area laid out for the
 * dimensions in mask (bit e: dimension e through shared memory).  Ranks of
 * one line along d agree on d but not always on the other dimensions (their
 * lines along those differ), so a sender uses its receiver's mask. */
static size_t dim_offset(const torus_shape *s, unsigned mask, int d, int cap, int slots)
{
    size_t off = LINE; /* the sleep line */
    for (int e = 0; e < d; e++)
        if ((mask >> e & 1) && s->k[e] >= 2)
            off += dim_bytes(s->k[e], cap, slots);
    return off;
}

/* The ring from sender coordinate sc to receiver coordinate rc along d,
 * in the receiver's area. */
static char *ring_at(const torus_shm_core *c, char *area, size_t doff, int k, int sc, int rc)
{
    int idx = sc < rc ? sc : sc - 1;
    return area + doff + LINE + inbox_bytes(k, c->slots) + (size_t)idx * c->ring_b;
}

/* An announcement: the ticket + 1 (its low ANN_TAG_BITS bits) above the
 * sender's coordinate (ANN_C_BITS: any k of the grammar). */
#define ANN_C_BITS 20
#define ANN_TAG_MASK ((1ULL << (64 - ANN_C_BITS)) - 1)
static uint64_t ann_word(uint64_t ticket, int c)
{
    return ((ticket + 1) & ANN_TAG_MASK) << ANN_C_BITS | (uint64_t)c;
}

void torus_shm_core_destroy(torus_shm_core *c)
{
    if (!c)
        return;
    for (int d = 0; d < c->ndims; d++) {
        shm_dimc *dc = &c->dim[d];
        free(dc->out);
        free(dc->in);
        free(dc->out_head);
        free(dc->in_taken);
        free(dc->bell_to);
        free(dc->ann_to);
        free(dc->sleep_of);
        free(dc->fly);
    }
    free(c);
}

torus_shm_core *torus_shm_core_create(const torus_map *m, int me, const int *on, int cap, int slots,
                                      void *(*area_of)(void *ctx, int rank, unsigned *mask), void *ctx)
{
    const torus_shape *s = &m->shape;
    if (cap < 1 || slots < 1 || me < 0 || me >= s->n)
        return NULL;
    for (int d = 0; d < s->ndims; d++)
        if (on[d] && s->k[d] > (1 << ANN_C_BITS))
            return NULL;
    torus_shm_core *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ndims = s->ndims;
    c->cap = cap;
    c->slots = slots;
    c->nslots = slots + 1;
    c->slot_b = slot_bytes(cap);
    c->ring_b = ring_bytes(cap, slots);
    const int *my = &m->coords[(size_t)me * (size_t)s->ndims];
    unsigned my_mask = 0, peer_mask = 0;
    char *mine = area_of(ctx, me, &my_mask);
    if (!mine) {
        free(c);
        return NULL;
    }
    c->sleep = (_Atomic uint32_t *)(void *)mine;
    for (int d = 0; d < s->ndims; d++) {
        shm_dimc *dc = &c->dim[d];
        int k = s->k[d];
        dc->on = on[d] && k >= 2;
        dc->k = k;
        dc->mc = my[d];
        dc->held_c = -1;
        if (!dc->on)
            continue;
        dc->out = calloc((size_t)k, sizeof *dc->out);
        dc->in = calloc((size_t)k, sizeof *dc->in);
        dc->out_head = calloc((size_t)k, sizeof *dc->out_head);
        dc->in_taken = calloc((size_t)k, sizeof *dc->in_taken);
        dc->bell_to = calloc((size_t)k, sizeof *dc->bell_to);
        dc->ann_to = calloc((size_t)k, sizeof *dc->ann_to);
        dc->sleep_of = calloc((size_t)k, sizeof *dc->sleep_of);
        dc->fly = calloc((size_t)slots, sizeof *dc->fly);
        if (!dc->out || !dc->in || !dc->out_head || !dc->in_taken || !dc->bell_to || !dc->ann_to || !dc->sleep_of ||
            !dc->fly) {
            torus_shm_core_destroy(c);
            return NULL;
        }
        size_t doff = dim_offset(s, my_mask, d, cap, slots);
        dc->bell = (_Atomic uint64_t *)(void *)(mine + doff);
        dc->ann = (_Atomic uint64_t *)(void *)(mine + doff + LINE);
        dc->q = (uint64_t)(k - 1) * (uint64_t)slots;
        int cc[TORUS_MAX_DIMS];
        memcpy(cc, my, (size_t)s->ndims * sizeof(int));
        for (int x = 0; x < k; x++) {
            if (x == dc->mc)
                continue;
            cc[d] = x;
            int peer = m->rank_of[torus_map_linear(s, cc)];
            char *parea = area_of(ctx, peer, &peer_mask);
            if (!parea || !(peer_mask >> d & 1)) {
                torus_shm_core_destroy(c);
                return NULL;
            }
            size_t poff = dim_offset(s, peer_mask, d, cap, slots);
            dc->out[x] = ring_at(c, parea, poff, k, dc->mc, x);
            dc->bell_to[x] = (_Atomic uint64_t *)(void *)(parea + poff);
            dc->ann_to[x] = (_Atomic uint64_t *)(void *)(parea + poff + LINE);
            dc->sleep_of[x] = (_Atomic uint32_t *)(void *)parea;
            dc->in[x] = ring_at(c, mine, doff, k, x, dc->mc);
        }
    }
    return c;
}

int torus_shm_on(const torus_shm_core *c, int d)
{
    return d >= 0 && d < c->ndims && c->dim[d].on;
}

/* After an event another rank may sleep on: wakes it if it does.  The
 * fence orders the event's stores before the look at the word (see the
 * file header). */
static void wake(const torus_shm_core *c, _Atomic uint32_t *w)
{
    /* lazy: no fence, so the look may pass the event's stores and miss a
     * sleeper that is just lying down; its sleep is then bounded by
     * TORUS_SHM_NAP_NS instead of the caller's timeout */
    if (!c->lazy)
        atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(w, memory_order_relaxed) && atomic_exchange_explicit(w, 0, memory_order_relaxed)) {
#if defined(__linux__)
        syscall(SYS_futex, (uint32_t *)(uintptr_t)w, FUTEX_WAKE, 1, NULL, NULL, 0);
#endif
    }
}

/* Drops the sends the receivers have taken from the in-flight list. */
static void refresh(const torus_shm_core *c, shm_dimc *dc)
{
    (void)c;
    for (int i = 0; i < dc->nfly;) {
        shm_fly *f = &dc->fly[i];
        if (atomic_load_explicit(ring_taken(dc->out[f->to]), memory_order_acquire) > f->seq) {
            dc->sending -= f->words;
            *f = dc->fly[--dc->nfly];
        } else {
            i++;
        }
    }
}

int torus_shm_can_send(torus_shm_core *c, int d)
{
    shm_dimc *dc = &c->dim[d];
    if (dc->nfly < c->slots)
        return 1;
    refresh(c, dc);
    return dc->nfly < c->slots;
}

/* What this rank knows, without a look at the receivers' lines: a packet
 * counts against its sender until the sender has seen it taken (at its
 * next can_send or quiescent), never less than the truth, and the slots
 * bound it as before.  Looking here cost a line that bounces between the
 * two cores on every chunk, since the budget's accounting asks after each
 * (ra_calibrate --hop). */
int torus_shm_sending(torus_shm_core *c, int d)
{
    return c->dim[d].sending;
}

int torus_shm_send(torus_shm_core *c, int d, int to, const uint64_t *buf, int n, int last)
{
    shm_dimc *dc = &c->dim[d];
    if (!dc->on || to < 0 || to >= dc->k || to == dc->mc || n < 0 || n > c->cap)
        return -1;
    if (dc->nfly >= c->slots) {
        refresh(c, dc);
        if (dc->nfly >= c->slots)
            return -1; /* caller skipped can_send() */
    }
    char *r = dc->out[to];
    uint64_t h = dc->out_head[to];
    /* the slot is free by the slot count (see the file header); a ring
     * that says otherwise was written by someone else */
    if (h - atomic_load_explicit(ring_tail(r), memory_order_acquire) >= (uint64_t)c->nslots)
        return -1;
    char *slot = ring_slot(c, r, h);
    memcpy(slot + LINE, buf, (size_t)n * sizeof(uint64_t));
    uint32_t meta[2] = {(uint32_t)n, (uint32_t)(last != 0)};
    memcpy(slot, meta, sizeof meta);
    atomic_store_explicit(ring_head(r), h + 1, memory_order_release);
    dc->out_head[to] = h + 1;
    dc->fly[dc->nfly++] = (shm_fly){.to = to, .seq = h, .words = n};
    dc->sending += n;
    if (dc->k == 2) {
        /* one sender to this doorbell: a plain store, no locked add (which
         * would wait for the packet's stores to reach the other core), and
         * no announcement: the receiver looks at the one ring's head */
        uint64_t t = atomic_load_explicit(dc->bell_to[to], memory_order_relaxed);
        atomic_store_explicit(dc->bell_to[to], t + 1, memory_order_release);
    } else {
        uint64_t t = atomic_fetch_add_explicit(dc->bell_to[to], 1, memory_order_acq_rel);
        atomic_store_explicit(&dc->ann_to[to][t % dc->q], ann_word(t, dc->mc), memory_order_release);
    }
    wake(c, dc->sleep_of[to]);
    return 0;
}

/* Takes the packet at slot t of the ring from coordinate x. */
static void take(torus_shm_core *c, shm_dimc *dc, int x, uint64_t t)
{
    char *slot = ring_slot(c, dc->in[x], t);
    uint32_t meta[2];
    memcpy(meta, slot, sizeof meta);
    dc->pkt.data = (uint64_t *)(void *)(slot + LINE);
    dc->pkt.n = (int)meta[0];
    dc->pkt.last = (int)meta[1];
    /* the packet's lines come from the sender's cache: ask for all of
     * them at once instead of one miss at a time as they are read */
    for (size_t b = 0; b < (size_t)dc->pkt.n * sizeof(uint64_t); b += LINE)
        torus_prefetch_read(slot + LINE + b);
    dc->in_taken[x] = t + 1;
    atomic_store_explicit(ring_taken(dc->in[x]), t + 1, memory_order_release);
    wake(c, dc->sleep_of[x]); /* its sender may sleep until a slot frees */
    dc->bell_seen++;
    dc->held = 1;
    dc->held_c = x;
    dc->rr = x + 1 == dc->k ? 0 : x + 1;
}

/* The inbox: the announcement of the next ticket names the ring.  0 when
 * its sender has taken the ticket but not yet written it. */
static int take_announced(torus_shm_core *c, shm_dimc *dc)
{
    uint64_t a = atomic_load_explicit(&dc->ann[dc->bell_seen % dc->q], memory_order_acquire);
    if (a >> ANN_C_BITS != ((dc->bell_seen + 1) & ANN_TAG_MASK))
        return 0;
    int x = (int)(a & ((1ULL << ANN_C_BITS) - 1));
    take(c, dc, x, dc->in_taken[x]);
    return 1;
}

void torus_shm_set_scan(torus_shm_core *c, int scan)
{
    c->scan = scan != 0;
}

void torus_shm_set_lazy_wake(torus_shm_core *c, int lazy)
{
    c->lazy = lazy != 0;
}

int torus_shm_poll(torus_shm_core *c, int d, torus_packet *pkt)
{
    shm_dimc *dc = &c->dim[d];
    if (!dc->held) {
        if (dc->k == 2) {
            /* one peer: its ring's head says it all, one line (the slot's
             * address is known before the head comes, so its lines are
             * asked for at once) */
            int x = 1 - dc->mc;
            uint64_t t = dc->in_taken[x];
            if (atomic_load_explicit(ring_head(dc->in[x]), memory_order_acquire) <= t)
                return 0;
            take(c, dc, x, t);
            *pkt = dc->pkt;
            return 1;
        }
        if (atomic_load_explicit(dc->bell, memory_order_acquire) == dc->bell_seen)
            return 0;
        if (!c->scan) {
            if (!take_announced(c, dc))
                return 0;
            *pkt = dc->pkt;
            return 1;
        }
        for (int i = 0; i < dc->k && !dc->held; i++) {
            int x = dc->rr + i < dc->k ? dc->rr + i : dc->rr + i - dc->k;
            if (x == dc->mc)
                continue;
            uint64_t t = dc->in_taken[x];
            if (atomic_load_explicit(ring_head(dc->in[x]), memory_order_acquire) > t)
                take(c, dc, x, t);
        }
        if (!dc->held)
            return 0;
    }
    *pkt = dc->pkt;
    return 1;
}

void torus_shm_release(torus_shm_core *c, int d)
{
    shm_dimc *dc = &c->dim[d];
    if (!dc->held)
        return;
    int x = dc->held_c;
    atomic_store_explicit(ring_tail(dc->in[x]), dc->in_taken[x], memory_order_release);
    dc->held = 0;
    dc->held_c = -1;
}

int torus_shm_quiescent(torus_shm_core *c)
{
    for (int d = 0; d < c->ndims; d++) {
        shm_dimc *dc = &c->dim[d];
        if (!dc->on || !dc->nfly)
            continue;
        refresh(c, dc);
        if (dc->nfly)
            return 0;
    }
    return 1;
}

/* 1 when a packet waits to be taken or one of this rank's sends has been
 * taken since it last looked: work the caller has not seen. */
static int news(torus_shm_core *c)
{
    for (int d = 0; d < c->ndims; d++) {
        shm_dimc *dc = &c->dim[d];
        if (!dc->on)
            continue;
        if (!dc->held && atomic_load_explicit(dc->bell, memory_order_acquire) != dc->bell_seen)
            return 1;
        for (int i = 0; i < dc->nfly; i++)
            if (atomic_load_explicit(ring_taken(dc->out[dc->fly[i].to]), memory_order_acquire) > dc->fly[i].seq)
                return 1;
    }
    return 0;
}

int torus_shm_sleep(torus_shm_core *c, long timeout_ns)
{
    if (c->lazy && timeout_ns > TORUS_SHM_NAP_NS)
        timeout_ns = TORUS_SHM_NAP_NS;
    atomic_store_explicit(c->sleep, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (news(c)) {
        atomic_store_explicit(c->sleep, 0, memory_order_relaxed);
        return 0;
    }
#if defined(__linux__)
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)(uintptr_t)c->sleep, FUTEX_WAIT, 1, &ts, NULL, 0);
#else
    struct timespec ts = {0, timeout_ns < 50000 ? timeout_ns : 50000};
    nanosleep(&ts, NULL);
#endif
    atomic_store_explicit(c->sleep, 0, memory_order_relaxed);
    return 1;
}

/* ---- every dimension through the core (the functional simulator) ------ */

static int core_can_send(void *impl, int d)
{
    return torus_shm_can_send(impl, d);
}

static int core_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    return torus_shm_send(impl, d, to, *buf, n, last);
}

static int core_poll(void *impl, int d, torus_packet *pkt)
{
    return torus_shm_poll(impl, d, pkt);
}

static void core_release(void *impl, int d)
{
    torus_shm_release(impl, d);
}

static int core_quiescent(void *impl)
{
    return torus_shm_quiescent(impl);
}

static int core_sending(void *impl, int d)
{
    return torus_shm_sending(impl, d);
}

void torus_shm_core_bind(torus_shm_core *c, torus_transport *t)
{
    *t = (torus_transport){.impl = c,
                           .can_send = core_can_send,
                           .send = core_send,
                           .poll = core_poll,
                           .release = core_release,
                           .quiescent = core_quiescent,
                           .sending = core_sending};
}
