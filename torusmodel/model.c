/*
 * model.c - the bottleneck model of paper 002.
 *
 * Algorithm: paper 002 eq. 1, eq. 2 and sec. 6.2.
 *   direct (one message per remote update, or per m updates):
 *     CPU  GUPS <= N f / (t_local + (N-1)/N ((t_send + t_recv)/m + t_overhead))
 *   routed (software routing along dimensions, H = sum(1 - 1/k_i) hops):
 *     CPU  GUPS <= N f / (t_local + t_hop H)
 *   both:
 *     NET  GUPS <= (2N/b) alpha(G) C          (alpha from sparsest_cut)
 *   f = clock_hz, C = link_bw, b = bytes_per_update.
 * Bucket simulator (Table 6): P-1 buckets kept in per-size lists so the
 * largest is found in O(1); cost O(sends * mean bucket size).
 */
#include "torusmodel.h"
#include "sparsest_cut.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tm_evaluate(const tm_params *p, const torus_shape *s, tm_row *row, char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    sc_result r;
    int rc = sc_closed_form(s, &r, 0, err, errlen);
    if (rc)
        return rc;
    double N = s->n;
    row->n = s->n;
    row->alpha = r.alpha;
    row->hops = torus_expected_hops(s);
    sc_result_free(&r);
    if (p->algorithm == TM_ROUTED) {
        row->cycles_per_update = p->t_local + p->t_hop * row->hops;
    } else {
        double m = p->updates_per_message > 0 ? p->updates_per_message : 1;
        row->cycles_per_update = p->t_local + (N - 1) / N * ((p->t_send + p->t_recv) / m + p->t_overhead);
    }
    row->cpu_gups = N * p->clock_hz / row->cycles_per_update / 1e9;
    row->net_gups = 2.0 * N / p->bytes_per_update * row->alpha * p->link_bw / 1e9;
    row->binding = row->cpu_gups <= row->net_gups ? "cpu" : "network";
    row->bound_gups = row->cpu_gups <= row->net_gups ? row->cpu_gups : row->net_gups;
    return 0;
}

static uint64_t xs(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ULL;
}

double tm_bucket_sim(int P, int pending, long sends, unsigned long long seed)
{
    if (P < 2 || pending < 1 || sends < 1)
        return 0;
    int nb = P - 1;
    int *size = calloc((size_t)nb, sizeof *size), *next = malloc((size_t)nb * sizeof *next);
    int *prev = malloc((size_t)nb * sizeof *prev), *head = malloc(((size_t)pending + 1) * sizeof *head);
    if (!size || !next || !prev || !head) {
        free(size), free(next), free(prev), free(head);
        return -1;
    }
    for (int i = 0; i <= pending; i++)
        head[i] = -1;
    /* every bucket starts in the size-0 list */
    for (int b = 0; b < nb; b++) {
        prev[b] = b ? b - 1 : -1;
        next[b] = b + 1 < nb ? b + 1 : -1;
    }
    head[0] = 0;
    uint64_t st = seed ? seed : 1;
    int total = 0, max = 0;
    long warm = sends / 10 + 1000, done = 0;
    double sent = 0;
#define UNLINK(b)                                                                                                      \
    do {                                                                                                               \
        if (prev[b] >= 0)                                                                                              \
            next[prev[b]] = next[b];                                                                                   \
        else                                                                                                           \
            head[size[b]] = next[b];                                                                                   \
        if (next[b] >= 0)                                                                                              \
            prev[next[b]] = prev[b];                                                                                   \
    } while (0)
#define LINK(b)                                                                                                        \
    do {                                                                                                               \
        prev[b] = -1;                                                                                                  \
        next[b] = head[size[b]];                                                                                       \
        if (next[b] >= 0)                                                                                              \
            prev[next[b]] = b;                                                                                         \
        head[size[b]] = b;                                                                                             \
    } while (0)
    while (done < warm + sends) {
        int b = (int)(xs(&st) % (uint64_t)nb);
        UNLINK(b);
        size[b]++;
        LINK(b);
        if (size[b] > max)
            max = size[b];
        if (++total < pending)
            continue;
        /* the limit is reached: the largest bucket goes out */
        int big = head[max];
        if (done >= warm)
            sent += size[big];
        done++;
        total -= size[big];
        UNLINK(big);
        size[big] = 0;
        LINK(big);
        while (max > 0 && head[max] < 0)
            max--;
    }
#undef UNLINK
#undef LINK
    free(size), free(next), free(prev), free(head);
    return sent / (double)sends;
}
