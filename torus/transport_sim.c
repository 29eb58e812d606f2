/*
 * transport_sim.c - simulated transport: the whole machine in one process.
 *
 * Each (rank, dimension) has an inbound queue of packets.  A send takes a
 * slot of the sender's dimension; the slot is freed either at once ("eager",
 * with probability eager_prob while the destination queue is short) or only
 * when the receiver takes the packet ("rendezvous", the adversarial case
 * that exposes buffer-dependency deadlocks).  poll() picks a random sender
 * among the queue's packets while keeping each sender's packets in order
 * (MPI's non-overtaking rule), and with probability delay_prob pretends
 * nothing has arrived yet.
 */
#include "torus_sim.h"
#include "msgq.h"
#include "pktq.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

typedef struct sim_ep {
    torus_sim *sim;
    int rank;
} sim_ep;

struct torus_sim {
    torus_map map;
    torus_sim_params p;
    int n, ndims;
    torus__pktq *in; /* n * ndims */
    int *slots_used; /* n * ndims */
    int *slot_words; /* n * ndims: words of the packets holding those slots */
    sim_ep *ep;
    torus__pool pool;
    torus__msgs *msgs; /* the message interface */
    uint64_t rng;
    int strict;
};

uint64_t torus_sim_rand(torus_sim *s)
{
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double urand(torus_sim *s)
{
    return (double)(torus_sim_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int sim_can_send(void *impl, int d)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    return s->slots_used[e->rank * s->ndims + d] < s->p.outstanding;
}

static int sim_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    const int *mc = &s->map.coords[e->rank * s->ndims];
    int c[TORUS_MAX_DIMS];
    memcpy(c, mc, (size_t)s->ndims * sizeof(int));
    c[d] = to;
    int dest = s->map.rank_of[torus_map_linear(&s->map.shape, c)];
    torus__pktq *q = &s->in[dest * s->ndims + d];
    torus__pkt *pk = torus__pktq_send(q, &s->pool, buf, n, last, e->rank);
    if (!pk)
        return -1;
    pk->holds_slot = !(q->len <= s->p.eager_queue && urand(s) < s->p.eager_prob);
    if (pk->holds_slot) {
        s->slots_used[e->rank * s->ndims + d]++;
        s->slot_words[e->rank * s->ndims + d] += n;
    }
    return 0;
}

/* A rendezvous send holds its words until the receiver takes the packet. */
static int sim_sending(void *impl, int d)
{
    sim_ep *e = impl;
    return e->sim->slot_words[e->rank * e->sim->ndims + d];
}

static int sim_poll(void *impl, int d, torus_packet *pkt)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    torus__pktq *q = &s->in[e->rank * s->ndims + d];
    if (q->held < 0) {
        if (q->len == 0 || (!s->strict && urand(s) < s->p.delay_prob))
            return 0;
        /* Candidates: the first queued packet of each sender. */
        int cand[64], nc = 0;
        for (int i = 0; i < q->len && nc < 64; i++) {
            int first = 1;
            for (int j = 0; j < i; j++)
                if (q->q[j].src_rank == q->q[i].src_rank) {
                    first = 0;
                    break;
                }
            if (first)
                cand[nc++] = i;
        }
        int pick = cand[torus_sim_rand(s) % (uint64_t)nc];
        /* The held packet moves to the front: the others keep their order. */
        torus__pkt chosen = q->q[pick];
        memmove(&q->q[1], &q->q[0], (size_t)pick * sizeof *q->q);
        q->q[0] = chosen;
        q->held = 0;
        if (chosen.holds_slot) {
            s->slots_used[chosen.src_rank * s->ndims + d]--;
            s->slot_words[chosen.src_rank * s->ndims + d] -= chosen.n;
            q->q[0].holds_slot = 0;
        }
    }
    const torus__pkt *h = &q->q[0];
    pkt->data = h->data;
    pkt->n = h->n;
    pkt->last = h->last;
    return 1;
}

static void sim_release(void *impl, int d)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    torus__pktq *q = &s->in[e->rank * s->ndims + d];
    if (q->held < 0)
        return;
    torus__pool_put(&s->pool, q->q[0].data);
    torus__pktq_remove_ordered(q, 0);
    q->held = -1;
}

/* Messages: a send is buffered (done at once) with probability
 * eager_prob, else a rendezvous that completes only at its match; a test
 * that could succeed pretends not to with probability delay_prob. */
static int sim_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    double ready = urand(s) < s->p.eager_prob ? 0 : INFINITY;
    return torus__msgs_isend(s->msgs, e->rank, dest, buf, bytes, tag, 0, ready, &r->id);
}

/* The deposit bit's multicast to my line along d, functionally: one
 * message per rank of the line under one request (eager or rendezvous
 * as a send is). */
static int sim_line_send(void *impl, int d, const void *buf, size_t bytes, int tag, torus_req *r)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    const torus_shape *sh = &s->map.shape;
    int k = sh->k[d], c[TORUS_MAX_DIMS], nd = 0;
    int *dst = malloc((size_t)k * sizeof *dst);
    double *arrive = calloc((size_t)k, sizeof *arrive);
    if (!dst || !arrive) {
        free(dst), free(arrive);
        return -1;
    }
    memcpy(c, &s->map.coords[(size_t)e->rank * (size_t)s->ndims], (size_t)s->ndims * sizeof *c);
    int me = c[d];
    for (int i = 1; i < k; i++) {
        c[d] = (me + i) % k;
        dst[nd++] = s->map.rank_of[torus_map_linear(sh, c)];
    }
    double ready = urand(s) < s->p.eager_prob ? 0 : INFINITY;
    int rc = torus__msgs_isend_multi(s->msgs, e->rank, dst, arrive, nd, buf, bytes, tag, ready, 0, &r->id);
    free(dst), free(arrive);
    return rc;
}

static int sim_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r)
{
    sim_ep *e = impl;
    return torus__msgs_irecv(e->sim->msgs, e->rank, src, buf, bytes, tag, &r->id);
}

static int sim_test(void *impl, torus_req *r)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    if (r->id >= 0 && !s->strict && urand(s) < s->p.delay_prob)
        return 0;
    int rc = torus__msgs_test(s->msgs, r->id, 0, NULL);
    if (rc)
        r->id = -1;
    return rc;
}

static int sim_quiescent(void *impl)
{
    sim_ep *e = impl;
    torus_sim *s = e->sim;
    for (int d = 0; d < s->ndims; d++)
        if (s->slots_used[e->rank * s->ndims + d])
            return 0;
    return 1;
}

/* Open message requests of rank r (0 at a clean end of a collective). */
int torus_sim_open_requests(const torus_sim *s, int r)
{
    return torus__msgs_open(s->msgs, r);
}

torus_sim *torus_sim_create(const torus_map *m, const torus_sim_params *p)
{
    torus_sim *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->map = *m; /* borrowed arrays: the caller keeps m alive */
    s->p = *p;
    s->n = m->shape.n;
    s->ndims = m->shape.ndims;
    s->rng = p->seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
    if (!s->rng)
        s->rng = 1;
    size_t nq = (size_t)s->n * (size_t)(s->ndims ? s->ndims : 1);
    s->in = calloc(nq, sizeof *s->in);
    s->slots_used = calloc(nq, sizeof *s->slots_used);
    s->slot_words = calloc(nq, sizeof *s->slot_words);
    s->ep = calloc((size_t)s->n, sizeof *s->ep);
    s->msgs = torus__msgs_create(s->n);
    if (!s->in || !s->slots_used || !s->slot_words || !s->ep || !s->msgs) {
        torus_sim_destroy(s);
        return NULL;
    }
    torus__pktq_init_all(s->in, nq);
    s->pool.words = (size_t)p->cap;
    return s;
}

void torus_sim_destroy(torus_sim *s)
{
    if (!s)
        return;
    torus__pktq_free_all(s->in, (size_t)s->n * (size_t)s->ndims);
    torus__pool_free(&s->pool);
    torus__msgs_destroy(s->msgs);
    free(s->in);
    free(s->slots_used);
    free(s->slot_words);
    free(s->ep);
    free(s);
}

void torus_sim_bind(torus_sim *s, int r, torus_transport *t)
{
    s->ep[r].sim = s;
    s->ep[r].rank = r;
    *t = (torus_transport){.impl = &s->ep[r],
                           .can_send = sim_can_send,
                           .send = sim_send,
                           .poll = sim_poll,
                           .release = sim_release,
                           .quiescent = sim_quiescent,
                           .sending = sim_sending,
                           .isend = sim_isend,
                           .irecv = sim_irecv,
                           .test = sim_test,
                           .reduced = NULL,
                           .line_send = sim_line_send};
}

void torus_sim_set_strict(torus_sim *s, int strict)
{
    s->strict = strict;
}
