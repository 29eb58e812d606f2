/*
 * timed_impl.h - the timed transport's state, shared by its files (the
 * model and the loop are described in transport_timed.c):
 * transport_timed.c (the packet interface, creation, binding a rank),
 * timed_links.c (the message interface's link books), timed_route.c
 * (messages routed over the books) and timed_loop.c (the event heap and
 * the run loop).  Not a public header: torus_timed.h is.
 */
#ifndef TIMED_IMPL_H
#define TIMED_IMPL_H

#include "torus_timed.h"
#include "msgq.h"
#include "pktq.h"

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
static inline size_t torus__timed_link_at(const torus_timed *s, const int *c, int d, int dir)
{
    return ((size_t)torus_map_linear(&s->map->shape, c) * s->nd + d) * 2 + dir;
}

/* c one router further along dimension d of a k-ring, the dir way */
static inline void torus__timed_step_along(int *c, int d, int dir, int k)
{
    c[d] = dir == 0 ? (c[d] + 1) % k : (c[d] - 1 + k) % k;
}

/* Wakes rank r if it sleeps, no earlier than time t. */
static inline void torus__timed_wake_at(torus_timed *s, int r, double t)
{
    if (s->asleep[r]) {
        s->asleep[r] = 0;
        if (s->clock[r] < t)
            s->clock[r] = t;
        s->wake[s->nwake++] = r;
    }
}

/* ---- link books (timed_links.c) ---------------------------------------- */
/* Drops the intervals that end by horizon (nothing books earlier). */
void torus__timed_book_prune(link_book *b, double horizon);
/* The earliest start >= t of a free window of length ser on b; *pos gets
 * the index of the first interval after that window. */
double torus__timed_book_find(const link_book *b, double t, double ser, int *pos);
/* The earliest start >= t of a free window of length ser on b, booked;
 * -1 on out of memory. */
double torus__timed_book_take(link_book *b, double t, double ser);

/* ---- the message interface (timed_route.c), bound by torus_timed_bind --- */
int torus__timed_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r);
int torus__timed_line_send(void *impl, int d, const void *buf, size_t bytes, int tag, torus_req *r);
int torus__timed_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r);
int torus__timed_test(void *impl, torus_req *r);
void torus__timed_reduced(void *impl, size_t bytes);

#endif
