/*
 * ropt.c - software-routed, dimension-ordered RandomAccess.
 *
 * Algorithm: paper 002 sec. 5.2-5.5 (Figures 1 and 2, FinishLogic,
 * per-dimension receive buckets), generalised to d dimensions.
 *   1. Send: for each dimension whose (single) full bucket can go, send it.
 *   2. Receive: for each dimension d, take a packet only into an empty
 *      receive bucket d; route its updates (this rank's -> the apply
 *      pipeline, the rest into the bucket of the next router along a
 *      higher dimension); stop at the first update whose dimension
 *      already has a full bucket.
 *   3. Form: only when no bucket is full and the generator's last updates
 *      are all routed, generate a chunk of updates and route it the same way.
 *   4. Finish: when generation is over, dimension d closes once dimensions
 *      < d are closed, have delivered all their finish marks and hold no
 *      packet: every router along d gets its last bucket with the mark.
 *      A rank is done once everything is closed, delivered and applied.
 * Routing a chunk takes two passes (ropt.h, ROPT_DEFAULT_BATCH): a split
 * into this rank's updates (local list) and the rest (the source's remote
 * list), with no branch on where an update goes and the previous local
 * list entering the pipeline meanwhile; then a scatter of the remote list
 * into the buckets, in order, stopping at the first blocked one.  The
 * pipeline prefetches an update's word when it enters and XORs it D
 * entries later (ropt.h, ROPT_DEFAULT_LOOKAHEAD).
 * Held updates <= lookahead + 2 batch + sum_i (k_i + S) * cap <= 1024 by
 * the capacity: per dimension k_i - 1 send buckets, 1 receive bucket (its
 * packet's unsplit rest plus its remote list) and S send slots (a send
 * holds its packet until it completes), each at most cap; one local list
 * and the generator's remote list, each at most a batch.
 * Deadlock freedom: an update in receive bucket d needs only buckets of
 * dimensions > d, and receive bucket d-1 (the last) needs none; local
 * updates never wait.
 * Cost per update (torusmodel's routed model): t_local + H * (t_hop +
 * (t_s + t_r) / fill), H = sum(1 - 1/k_i), fill <= cap.
 */
#include "ropt.h"
#include "ropt_pipe.h"
#include "torus_prefetch.h"
#include "torus_ticks.h"

#include <stdlib.h>
#include <string.h>

const char *const ropt_time_names[ROPT_T_N] = {"generate", "route", "apply_recv", "send", "poll", "wait"};

void ropt_params_defaults(ropt_params *p)
{
    p->budget = ROPT_BUDGET;
    p->lookahead = ROPT_DEFAULT_LOOKAHEAD;
    p->batch = ROPT_DEFAULT_BATCH;
    p->outstanding = ROPT_DEFAULT_OUTSTANDING;
    p->shared_recv = 0;
    p->portable_split = 0;
}

int ropt_lookahead_ok(int d)
{
    return d == 0 || (d >= 2 && d <= ROPT_MAX_LOOKAHEAD && (d & (d - 1)) == 0);
}

int ropt_params_ok(const ropt_params *p)
{
    return p->outstanding >= 1 && p->outstanding <= ROPT_MAX_OUTSTANDING && ropt_lookahead_ok(p->lookahead) &&
           p->batch >= 1 && p->batch <= ROPT_MAX_BATCH;
}

int ropt_buffers(const torus_shape *s, const ropt_params *p)
{
    int sum = 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->k[d] >= 2)
            sum += s->k[d] + p->outstanding;
    return sum;
}

int ropt_capacity(const torus_shape *s, const ropt_params *p)
{
    int sum = ropt_buffers(s, p);
    if (p->outstanding < 1 || p->lookahead < 0 || p->batch < 1 || p->lookahead + 2 * p->batch > p->budget)
        return 0;
    /* one rank alone holds nothing but its pipeline and local list */
    return sum > 0 ? (p->budget - p->lookahead - 2 * p->batch) / sum : 1;
}

typedef struct {
    const ropt_params *p;
    const torus_shape *part; /* the node's own dimensions, appended; NULL: none */
} auto_ctx;

/* What an update costs on shape s (the node's dimensions appended): the
 * library's model with the fill this algorithm's buffers give. */
static double auto_cost(const torus_shape *s, void *ctx)
{
    const auto_ctx *a = ctx;
    torus_shape full = *s;
    if (a->part && torus_shape_append_shape(&full, a->part))
        return 1e300;
    int cap = ropt_capacity(&full, a->p);
    if (cap < 1)
        return 1e300;
    return torus_expected_hops(&full) * (TORUS_AUTO_T_HOP + TORUS_AUTO_T_MSG / cap);
}

void ropt_auto_shape_part(int n, const ropt_params *p, const torus_shape *part, torus_shape *out)
{
    auto_ctx a = {p, part};
    torus_shape_search(n, auto_cost, &a, out);
}

void ropt_auto_shape(int n, const ropt_params *p, int per_node, torus_shape *out)
{
    torus_shape node = {.n = 1};
    int has = per_node > 0 && torus_shape_append(&node, per_node) == 0;
    ropt_auto_shape_part(n, p, has ? &node : NULL, out);
}

int ropt_init(ropt *o, const torus_route *route, const torus_shape *shape, torus_transport *tp,
              const ropt_params *p, int cap, uint64_t *table, uint64_t local_start, uint64_t local_size,
              int log2, const ra_dist *td)
{
    memset(o, 0, sizeof *o);
    o->route = route;
    o->tp = tp;
    o->prm = *p;
    o->ndims = shape->ndims;
    memcpy(o->k, shape->k, sizeof o->k);
    o->cap = cap;
    if (cap < 1)
        return -2;
    o->nb = route->nbuckets;
    size_t nbx = o->nb ? (size_t)o->nb : 1, chunk = (size_t)(p->batch + ROPT_SPLIT_SLACK) * sizeof(uint64_t);
    size_t bucket_b = (size_t)(o->cap + ROPT_SPLIT_SLACK) * sizeof(uint64_t);
    int depth = p->lookahead > 0 ? p->lookahead : 1;
    o->bucket = calloc(nbx, sizeof *o->bucket);
    o->fill = calloc(nbx, sizeof *o->fill);
    o->lim = calloc(nbx, sizeof *o->lim);
    o->bdim = calloc(nbx, sizeof *o->bdim);
    o->lbuf[0] = malloc(chunk);
    o->lbuf[1] = malloc(chunk);
    o->gr.v = malloc(chunk);
    o->pval = malloc((size_t)depth * sizeof *o->pval);
    if (!o->bucket || !o->fill || !o->lim || !o->bdim || !o->lbuf[0] || !o->lbuf[1] || !o->gr.v || !o->pval)
        return -1;
    for (int b = 0; b < o->nb; b++) {
        o->bdim[b] = route->bucket_dim[b];
        if (route->peer[b] >= 0 && !(o->bucket[b] = malloc(bucket_b)))
            return -1;
    }
    for (int d = 0; d < o->ndims; d++)
        if (o->k[d] >= 2 && !(o->dr[d].v = malloc(bucket_b)))
            return -1;
    o->table = table;
    o->local_start = local_start;
    o->local_size = local_size;
    o->log2 = log2;
    o->gen = RA_GEN_LFSR; /* set per phase by ropt_start */
    o->td = td;
    /* an update that arrives along the last dimension with more than one
     * position has no hop left: it is this rank's */
    o->lastd = -1;
    for (int d = 0; d < o->ndims; d++)
        if (o->k[d] >= 2)
            o->lastd = d;
    o->alone = o->lastd < 0;
    /* a rank with one bucket in all (one dimension of 2, the rest 1)
     * splits what it generates straight into it */
    o->solo = -1;
    for (int b = 0; b < o->nb; b++)
        if (route->peer[b] >= 0)
            o->solo = o->solo == -1 ? b : -2;
    if (o->solo < 0)
        o->solo = -1;
    torus_prefetch_init();
    return 0;
}

void ropt_free(ropt *o)
{
    if (o->bucket)
        for (int b = 0; b < o->nb; b++)
            free(o->bucket[b]);
    for (int d = 0; d < TORUS_MAX_DIMS; d++) {
        free(o->dr[d].v);
        o->dr[d].v = NULL;
    }
    free(o->bucket);
    free(o->fill);
    free(o->lim);
    free(o->bdim);
    free(o->lbuf[0]);
    free(o->lbuf[1]);
    free(o->gr.v);
    free(o->pval);
    o->bucket = NULL;
    o->fill = o->lim = NULL;
    o->bdim = NULL;
    o->lbuf[0] = o->lbuf[1] = o->gr.v = o->pval = NULL;
}

/* ---- routing ----------------------------------------------------------- */

/* A dimension with a full bucket blocks every update whose next hop lies
 * along it.  The blocking is kept in lim[]: a bucket's limit is cap while
 * its dimension is open and 0 while it is blocked, so that placing an
 * update costs one comparison (fill < lim) whatever blocked it. */
static void block_dim(ropt *o, int *lim, int b)
{
    int d = o->bdim[b];
    o->full[d] = b;
    o->nfull++;
    for (int e = o->route->offset[d]; e < o->route->offset[d + 1]; e++)
        lim[e] = 0;
}

static void open_dim(ropt *o, int d)
{
    for (int e = o->route->offset[d]; e < o->route->offset[d + 1]; e++)
        o->lim[e] = o->route->peer[e] >= 0 ? o->cap : 0;
}

static void unblock_dim(ropt *o, int d)
{
    o->full[d] = -1;
    o->nfull--;
    open_dim(o, d);
}

/* Scatters rl's waiting updates into the buckets of their next hops, in
 * order, up to the first whose dimension is blocked.  Returns how many
 * moved.  The bucket's count stays in a register while consecutive
 * updates go to the same bucket: a count kept in memory would make every
 * update wait for the previous one's store (a rank with one or two
 * buckets sends nearly every update to the same one; with many, the
 * changes of bucket are what the loop pays for instead). */
static int scatter(ropt *o, ropt_rlist *rl)
{
    uint64_t **const restrict bucket = o->bucket;
    int *const restrict fill = o->fill;
    int *const restrict lim = o->lim;
    const int32_t *const next = o->route->next;
    const int shift = o->td->shift, fast = next && shift >= 0, n = rl->n;
    const idx_fn f = idx_of(o->log2);
    const ra_gen_kind gen = o->gen;
    const uint64_t *const v = rl->v;
    int i = rl->pos, cur = -1, fl = 0, l = 0;
    uint64_t *bk = NULL;
    for (; i < n; i++) {
        uint64_t x = v[i], gi = idx(f, gen, x);
        int b = fast ? next[gi >> shift] : torus_route_next(o->route, (int)ra_dist_owner(o->td, gi));
        if (b != cur) {
            if (cur >= 0)
                fill[cur] = fl;
            cur = b;
            fl = fill[b];
            l = lim[b];
            bk = bucket[b];
        }
        if (fl >= l)
            break;
        bk[fl++] = x;
        if (__builtin_expect(fl == l, 0)) {
            fill[cur] = fl;
            block_dim(o, lim, cur);
            l = 0;
        }
    }
    if (cur >= 0)
        fill[cur] = fl;
    int moved = i - rl->pos;
    o->in_buckets += (uint64_t)moved;
    if (i == n)
        rl->pos = rl->n = 0;
    else
        rl->pos = i;
    return moved;
}

/* ---- one step ---------------------------------------------------------- */

void ropt_start(ropt *o, ra_gen_kind gen, uint64_t start, uint64_t count)
{
    o->gen = gen;
    for (int b = 0; b < o->nb; b++)
        o->fill[b] = 0;
    for (int d = 0; d < o->ndims; d++) {
        o->full[d] = -1;
        open_dim(o, d);
        o->have[d] = o->held[d] = 0;
        o->dr[d].pos = o->dr[d].n = 0;
        o->closed[d] = 0;
        o->close_next[d] = 0;
        o->fin_recv[d] = 0;
    }
    o->nfull = 0;
    o->nheld = 0;
    o->in_buckets = 0;
    o->ran = ra_gen_jump(o->gen, start);
    o->remaining = count;
    o->generated = 0;
    o->gr.pos = o->gr.n = 0;
    o->lcur = o->lnum = 0;
    ropt_pipe_reset(o);
    o->pushed = 0;
    o->done = 0;
    memset(&o->st, 0, sizeof o->st);
    memset(o->ticks, 0, sizeof o->ticks);
}

uint64_t ropt_held(const ropt *o)
{
    uint64_t h = (uint64_t)(o->gr.n - o->gr.pos) + (uint64_t)o->lnum + (uint64_t)o->pn + o->in_buckets;
    for (int d = 0; d < o->ndims; d++) {
        if (o->k[d] < 2)
            continue;
        h += (uint64_t)(o->dr[d].n - o->dr[d].pos);
        if (o->held[d])
            h += (uint64_t)(o->pkt[d].n - o->pos[d]);
        if (o->tp->sending)
            h += (uint64_t)o->tp->sending(o->tp->impl, d);
    }
    return h;
}

/* Called after everything that can raise the count (forming, taking a
 * packet); sending only moves updates from a bucket to a send slot. */
static inline void note_pending(ropt *o)
{
    uint64_t p = ropt_held(o);
    if (p > o->st.max_pending)
        o->st.max_pending = p;
}

/* --profile: charges the ticks since the last lap to activity a. */
static inline void lap(ropt *o, uint64_t *last, int a)
{
    if (o->profile) {
        uint64_t t = torus_ticks();
        o->ticks[a] += t - *last;
        *last = t;
    }
}

/* Sends bucket b (n updates) along dimension d; the caller checked can_send. */
static void send_bucket(ropt *o, int d, int b, int last)
{
    int n = o->fill[b];
    int to = b - o->route->offset[d];
    o->tp->send(o->tp->impl, d, to, &o->bucket[b], n, last);
    if (n) {
        o->st.packets_sent++;
        o->st.updates_sent += (uint64_t)n;
        o->st.hops += (uint64_t)n;
        o->st.bytes_sent += 8 * (uint64_t)n;
    }
    o->in_buckets -= (uint64_t)n;
    o->fill[b] = 0;
    if (o->full[d] == b)
        unblock_dim(o, d);
}

static int can_send(ropt *o, int d)
{
    o->st.send_tests++;
    if (o->tp->can_send(o->tp->impl, d))
        return 1;
    o->st.send_blocked++;
    return 0;
}

/* Routes what receive bucket d holds: its remote list first, then the
 * packet's unsplit rest a chunk at a time; the packet goes back to the
 * transport once split, the bucket is free once its remote list is empty
 * too.  Returns 1 if anything moved. */
static int drain_recv(ropt *o, int d)
{
    torus_packet *pk = &o->pkt[d];
    ropt_rlist *rl = &o->dr[d];
    int moved = 0;
    for (;;) {
        if (rl->n) {
            moved |= scatter(o, rl) > 0;
            if (rl->n)
                break; /* blocked: the rest waits for its bucket */
        }
        if (!o->held[d])
            break;
        if (o->pos[d] < pk->n) {
            int m = pk->n - o->pos[d] < o->prm.batch ? pk->n - o->pos[d] : o->prm.batch;
            ropt_split_chunk(o, pk->data + o->pos[d], m, rl, d == o->lastd);
            o->pos[d] += m;
            moved = 1;
        }
        if (o->pos[d] == pk->n) {
            o->tp->release(o->tp->impl, d);
            o->held[d] = 0;
            moved = 1;
        }
    }
    if (!o->held[d] && !rl->n) {
        o->have[d] = 0;
        o->nheld--;
    }
    return moved;
}

static int take_packet(ropt *o, int d)
{
    if (!o->tp->poll(o->tp->impl, d, &o->pkt[d])) {
        o->st.polls_empty++;
        return 0;
    }
    o->st.recv_peers += (uint64_t)(o->k[d] - 1);
    o->have[d] = o->held[d] = 1;
    o->nheld++;
    o->pos[d] = 0;
    if (o->pkt[d].last)
        o->fin_recv[d]++;
    note_pending(o);
    return 1;
}

/* Step 2 under per-dimension receive buckets: poll and drain each one. */
static int receive_step(ropt *o, uint64_t *last)
{
    int progress = 0;
    for (int d = 0; d < o->ndims; d++) {
        if (o->k[d] < 2)
            continue;
        for (;;) {
            if (!o->have[d]) {
                int got = take_packet(o, d);
                lap(o, last, ROPT_T_POLL);
                if (!got)
                    break;
            }
            progress |= drain_recv(o, d);
            lap(o, last, ROPT_T_APPLY_RECV);
            if (o->have[d])
                break;
        }
    }
    return progress;
}

/* Step 2 with one receive bucket shared by all dimensions (Figure 3a). */
static int receive_shared(ropt *o, uint64_t *last)
{
    int progress = 0;
    for (int i = 0; i < o->ndims && !o->nheld; i++) {
        int d = (o->rr + i) % o->ndims;
        if (o->k[d] >= 2 && take_packet(o, d)) {
            o->rr = d + 1;
            progress = 1;
        }
    }
    lap(o, last, ROPT_T_POLL);
    for (int d = 0; d < o->ndims; d++)
        if (o->have[d])
            progress |= drain_recv(o, d);
    lap(o, last, ROPT_T_APPLY_RECV);
    return progress;
}

/* Chunks the generator makes in one step while no bucket fills: a step's
 * own cost (the send, poll and finish checks) spread over about 256
 * updates, as the look-ahead loop this replaced did. */
#define FORM_UPDATES 256

/* Step 3: the generator's waiting updates, then new chunks. */
static int form_step(ropt *o, uint64_t *last)
{
    int moved = 0;
    if (o->gr.n) {
        moved = scatter(o, &o->gr) > 0;
        lap(o, last, ROPT_T_ROUTE);
        if (o->gr.n)
            return moved;
    }
    for (int made = 0; made < FORM_UPDATES && o->remaining && !o->nfull && !o->gr.n;) {
        int n = o->remaining < (uint64_t)o->prm.batch ? (int)o->remaining : o->prm.batch;
        if (o->solo >= 0) {
            /* one bucket for everything that leaves: split straight into
             * it, no remote list and no scatter (at most its room) */
            int b = o->solo, room = o->cap - o->fill[b];
            ropt_rlist direct = {.v = o->bucket[b], .pos = 0, .n = o->fill[b]};
            n = n < room ? n : room;
            ropt_split_chunk(o, NULL, n, &direct, 0);
            o->in_buckets += (uint64_t)(direct.n - o->fill[b]);
            o->fill[b] = direct.n;
            if (direct.n == o->cap)
                block_dim(o, o->lim, b);
            note_pending(o);
            lap(o, last, ROPT_T_GENERATE);
            made += n;
            moved = 1;
            continue;
        }
        ropt_split_chunk(o, NULL, n, &o->gr, o->alone);
        note_pending(o); /* the chunk's updates are all held, none sent yet */
        lap(o, last, ROPT_T_GENERATE);
        scatter(o, &o->gr);
        lap(o, last, ROPT_T_ROUTE);
        made += n;
        moved = 1;
    }
    return moved;
}

/* Step 4: FinishLogic, then the pipeline once everything has arrived. */
static int finish_step(ropt *o)
{
    int progress = 0, D = o->ndims;
    for (int d = 0; d < D; d++) {
        if (o->closed[d])
            continue;
        int ready = 1;
        for (int e = 0; e < d; e++)
            if (o->fin_recv[e] < o->k[e] - 1 || o->have[e])
                ready = 0;
        if (!ready)
            break;
        int me = o->route->my_coord[d];
        while (o->close_next[d] < o->k[d]) {
            int c = o->close_next[d];
            if (c == me) {
                o->close_next[d]++;
                continue;
            }
            if (!can_send(o, d))
                break;
            send_bucket(o, d, o->route->offset[d] + c, 1);
            o->close_next[d]++;
            progress = 1;
        }
        if (o->close_next[d] < o->k[d])
            break;
        o->closed[d] = 1;
        progress = 1;
    }
    for (int d = 0; d < D; d++)
        if (!o->closed[d] || o->fin_recv[d] < o->k[d] - 1 || o->have[d])
            return progress;
    if (o->tp->quiescent(o->tp->impl)) {
        ropt_apply_all(o);
        o->done = 1;
        progress = 1;
    }
    return progress;
}

int ropt_step(ropt *o)
{
    int progress = 0;
    uint64_t t0 = o->profile ? torus_ticks() : 0, last = t0, before[ROPT_T_N];
    if (o->profile)
        memcpy(before, o->ticks, sizeof before);

    /* 1. Send logic: at most one full bucket per dimension. */
    for (int d = 0; d < o->ndims; d++)
        if (o->full[d] >= 0 && can_send(o, d)) {
            send_bucket(o, d, o->full[d], 0);
            progress = 1;
        }
    lap(o, &last, ROPT_T_SEND);

    /* 2. Receive logic. */
    progress |= o->prm.shared_recv ? receive_shared(o, &last) : receive_step(o, &last);

    /* 3. Form new updates only when no bucket is full. */
    if ((o->remaining || o->gr.n) && !o->nfull)
        progress |= form_step(o, &last);

    /* 4. FinishLogic. */
    if (!o->remaining && !o->gr.n && !o->done) {
        progress |= finish_step(o);
        lap(o, &last, ROPT_T_SEND);
    }

    /* a step that moved nothing was waiting, whatever it asked */
    if (o->profile && !progress) {
        memcpy(o->ticks, before, sizeof before);
        o->ticks[ROPT_T_WAIT] += last - t0;
    }
    return progress;
}
