/*
 * pktq.c - packet buffer pool and inbound queues of the in-process
 * transports (see pktq.h).
 */
#include "pktq.h"
#include "torus.h"

#include <stdlib.h>
#include <string.h>

uint64_t *torus__pool_get(torus__pool *p)
{
    if (p->len)
        return p->buf[--p->len];
    /* one spare word: algorithms may write one past a full bucket's end */
    return malloc((p->words + TORUS_BUF_SLACK_WORDS) * sizeof(uint64_t));
}

void torus__pool_put(torus__pool *p, uint64_t *b)
{
    if (p->len == p->cap) {
        int nc = p->cap ? 2 * p->cap : 64;
        uint64_t **nb = realloc(p->buf, (size_t)nc * sizeof *nb);
        if (!nb) {
            free(b);
            return;
        }
        p->buf = nb;
        p->cap = nc;
    }
    p->buf[p->len++] = b;
}

void torus__pool_free(torus__pool *p)
{
    for (int i = 0; i < p->len; i++)
        free(p->buf[i]);
    free(p->buf);
    p->buf = NULL;
    p->len = p->cap = 0;
}

torus__pkt *torus__pktq_push(torus__pktq *q)
{
    if (q->len == q->cap) {
        int nc = q->cap ? 2 * q->cap : 8;
        torus__pkt *nq = realloc(q->q, (size_t)nc * sizeof *nq);
        if (!nq)
            return NULL;
        q->q = nq;
        q->cap = nc;
    }
    torus__pkt *pk = &q->q[q->len++];
    memset(pk, 0, sizeof *pk);
    return pk;
}

torus__pkt *torus__pktq_send(torus__pktq *q, torus__pool *pool, uint64_t **buf, int n, int last, int src)
{
    uint64_t *fresh = torus__pool_get(pool);
    if (!fresh)
        return NULL;
    torus__pkt *pk = torus__pktq_push(q);
    if (!pk) {
        torus__pool_put(pool, fresh);
        return NULL;
    }
    pk->data = *buf;
    pk->n = n;
    pk->last = last;
    pk->src_rank = src;
    *buf = fresh;
    return pk;
}

void torus__pktq_remove_ordered(torus__pktq *q, int i)
{
    memmove(&q->q[i], &q->q[i + 1], (size_t)(q->len - i - 1) * sizeof *q->q);
    q->len--;
}

void torus__pktq_remove_swap(torus__pktq *q, int i)
{
    q->q[i] = q->q[--q->len];
}

void torus__pktq_free(torus__pktq *q)
{
    for (int j = 0; j < q->len; j++)
        free(q->q[j].data);
    free(q->q);
    q->q = NULL;
    q->len = q->cap = 0;
}

void torus__pktq_init_all(torus__pktq *q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        q[i].held = -1;
}

void torus__pktq_free_all(torus__pktq *q, size_t n)
{
    for (size_t i = 0; q && i < n; i++)
        torus__pktq_free(&q[i]);
}
