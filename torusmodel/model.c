/*
 * model.c - the bottleneck model of paper 002.
 *
 * Algorithm: paper 002 eq. 1, eq. 2 and sec. 6.2, with ranks on nodes.
 *   direct (one message per remote update, or per m updates; the baseline
 *   tests once per update, sec. 6.1):
 *     CPU  GUPS <= W f / (t_l + t_test + t_exposed/N + (N-1)/N ((t_send + t_recv)/m + t_overhead))
 *   routed (software routing along dimensions, H = sum(1 - 1/k_i) hops):
 *     CPU  GUPS <= W f / (t_local + t_hop H)
 *   both:
 *     NET  GUPS <= (2N/b) alpha(G) C          (alpha from sparsest_cut)
 *     MEM  GUPS <= nodes * node_gups(ranks per node)
 *   f = clock_hz, C = link_bw, b = bytes_per_update, N ranks on
 *   nodes = ceil(N / ranks_per_node), W = nodes * min(ranks per node,
 *   cores_per_node): ranks beyond the cores time-share them.  Paper 002
 *   folds memory into t_local, which holds for one rank per node; ranks
 *   sharing a node share its memory system, whose rate the ceiling kernel
 *   measures (hpcc_ra/ra_ceiling.c: HPCC's stream on every rank at once,
 *   prefetched within the 1024-update look-ahead; HPCC's Star kernel,
 *   without prefetches, gives less than the memory does and is no bound).
 *   Prediction (see torusmodel.h): the CPU bound's work per update plus
 *   t_wait (what a calibration run of the algorithm lost beyond it), else
 *   the local update at the node's rate plus the routing or message work on
 *   the cores; capped by the smallest bound.
 * Bucket simulator (Table 6): P-1 buckets kept in per-size lists so the
 * largest is found in O(1); cost O(sends * mean bucket size).
 */
#include "torusmodel.h"
#include "sparsest_cut.h"
#include "ropt_timed.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A rate of R:G pairs sorted by R at r: the pair, else linear between
 * neighbours, else the nearest end; 0 when there are none. */
static double pairs_at(int n, const double *ranks, const double *rate, double r)
{
    if (n == 0)
        return 0;
    if (r <= ranks[0] || n == 1)
        return rate[0];
    for (int i = 1; i < n; i++) {
        if (r <= ranks[i]) {
            double a = ranks[i - 1], b = ranks[i];
            return rate[i - 1] + (rate[i] - rate[i - 1]) * (r - a) / (b - a);
        }
    }
    /* past the largest count measured the memory system stays saturated */
    return rate[n - 1];
}

double tm_node_gups(const tm_params *p, double r)
{
    return pairs_at(p->nnode, p->node_ranks, p->node_rate, r);
}

double tm_node_gups_plain(const tm_params *p, double r)
{
    return pairs_at(p->nplain, p->plain_ranks, p->plain_rate, r);
}

/* Dimensions 0..j-1 of the logical shape lie inside a node when their
 * sizes multiply to a divisor of the ranks per node (ranks are numbered
 * dimension 0 fastest and a node holds consecutive ranks); returns j. */
int tm_node_dims(const torus_shape *s, double rpn)
{
    long prod = 1;
    int j = 0;
    while (j < s->ndims && fmod(rpn, (double)(prod * s->k[j])) == 0)
        prod *= s->k[j++];
    return j;
}

/* The logical shape s on the physical network of p (docs/machines.md):
 * ranks per node, the network's endpoints, its alpha, and how often an
 * update crosses it as random traffic.  The software hops are charged on s
 * (H, in the CPU bound); the links on the physical network:
 *   - the dimensions of s past a node's (node_dims) equal the physical
 *     torus: a hop goes to a neighbour, a route crosses a cut at most once
 *     as its shortest path does: once (paper 002's eq. 2);
 *   - otherwise ranks sit on the network without regard to its links: each
 *     hop that leaves the node is a transfer between random endpoints,
 *     sum over those dimensions of (1 - 1/k_i) per update;
 *   - the direct algorithm (the baseline) sends each update to its owner:
 *     once. */
static int physical(const tm_params *p, const torus_shape *s, double *rpn, double *hosts, double *alpha,
                    double *transfers, char *err, size_t errlen)
{
    char name[128];
    torus_shape_format(s, name, sizeof name);
    sc_network net;
    int j;
    if (p->net_mode == TM_NET_NODES) {
        /* the leading dimensions making up the ranks per node, the rest the nodes' torus */
        j = tm_node_dims(s, *rpn);
        long prod = 1;
        for (int i = 0; i < j; i++)
            prod *= s->k[i];
        if (prod != (long)*rpn || j == s->ndims) {
            snprintf(err, errlen, "shape %s with network nodes: allowed leading dimensions that multiply to "
                                  "ranks_per_node %g, then the nodes' torus", name, *rpn);
            return -2;
        }
        memset(&net, 0, sizeof net);
        net.kind = SC_NET_TORUS;
        net.torus.ndims = s->ndims - j;
        net.torus.n = 1;
        for (int i = j; i < s->ndims; i++) {
            net.torus.k[i - j] = s->k[i], net.torus.mesh[i - j] = s->mesh[i];
            net.torus.n *= s->k[i];
        }
        net.hosts = net.torus.n;
        if (net.hosts < 2) {
            snprintf(err, errlen, "shape %s with network nodes: one node, allowed at least 2", name);
            return -2;
        }
    } else if (p->net_mode == TM_NET_FILE) {
        long h = (long)p->file_hosts;
        if (s->n % h) {
            snprintf(err, errlen, "shape %s has %d ranks on the --file fabric of %ld hosts: allowed a whole number "
                                  "of ranks per host", name, s->n, h);
            return -2;
        }
        *rpn = (double)(s->n / h);
        j = tm_node_dims(s, *rpn);
        /* the fabric's capacities in link_bw's units: alpha C is what a host's cut carries */
        *alpha = p->file_unit_bps > 0 ? p->file_alpha * p->file_unit_bps / p->link_bw : p->file_alpha;
        *hosts = p->file_hosts;
        double x = 0;
        for (int i = j; i < s->ndims; i++)
            x += 1.0 - 1.0 / s->k[i];
        *transfers = p->algorithm == TM_DIRECT ? 1 : x; /* ranks lie on the fabric as random traffic */
        return 0;
    } else {
        net = p->network;
        if (s->n % net.hosts) {
            char nn[128];
            sc_network_format(&net, nn, sizeof nn);
            snprintf(err, errlen, "shape %s has %d ranks on network %s of %ld hosts: allowed a whole number of "
                                  "ranks per host", name, s->n, nn, net.hosts);
            return -2;
        }
        *rpn = (double)(s->n / net.hosts);
        j = tm_node_dims(s, *rpn);
    }
    sc_result r;
    int rc = sc_network_closed_form(&net, &r, err, errlen);
    if (rc)
        return rc;
    *alpha = r.alpha;
    sc_result_free(&r);
    *hosts = (double)net.hosts;
    int same = net.kind == SC_NET_TORUS && net.torus.ndims == s->ndims - j;
    for (int i = j; same && i < s->ndims; i++)
        same = net.torus.k[i - j] == s->k[i] && net.torus.mesh[i - j] == s->mesh[i];
    double x = 0;
    for (int i = j; i < s->ndims; i++)
        x += 1.0 - 1.0 / s->k[i];
    /* the baseline sends each update straight to its owner: once, as eq. 2 */
    *transfers = same || p->algorithm == TM_DIRECT ? 1 : x;
    return 0;
}

int tm_evaluate(const tm_params *p, const torus_shape *s, tm_row *row, char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    double N = s->n;
    row->n = s->n;
    row->hops = torus_expected_hops(s);
    row->net_transfers = 1;
    /* ranks share nodes: a node runs min(ranks on it, cores) at once */
    double rpn = p->ranks_per_node >= 1 ? p->ranks_per_node : 1;
    double hosts = 0; /* endpoints of the physical network (0: the shape's ranks) */
    if (p->net_mode != TM_NET_SHAPE) {
        int rc = physical(p, s, &rpn, &hosts, &row->alpha, &row->net_transfers, err, errlen);
        if (rc)
            return rc;
    } else if (s->n >= 2) {
        sc_result r;
        int rc = sc_closed_form(s, &r, 0, err, errlen);
        if (rc)
            return rc;
        row->alpha = r.alpha;
        sc_result_free(&r);
    }
    row->nodes = ceil(N / rpn);
    row->ranks_node = N / row->nodes;
    /* a node given by its parameters: its costs on this shape (node.c) */
    tm_params dq;
    if (tm_node_given(p)) {
        int j = rpn > 1 ? tm_node_dims(s, rpn) : 0;
        double out = 0;
        for (int i = j; i < s->ndims; i++)
            out += 1.0 - 1.0 / s->k[i];
        if (p->algorithm == TM_DIRECT)
            out = row->nodes > 1 ? (N - row->ranks_node) / N : 0;
        double fill = p->algorithm == TM_ROUTED ? ropt_timed_ra_opt_capacity(s) : p->updates_per_message;
        /* the ranks this shape puts on a node (a given network sets them) */
        tm_params pr = *p;
        pr.ranks_per_node = row->ranks_node;
        tm_node_derive(&pr, row->hops, out, fill, &dq);
        p = &dq;
        row->hops_out = out, row->fill = fill;
        row->inj_gups = tm_node_injection(p, row->nodes, out, fill);
    } else {
        row->inj_gups = INFINITY;
    }
    double cores = p->cores_per_node > 0 ? p->cores_per_node : row->ranks_node;
    row->cores_used = row->ranks_node < cores ? row->ranks_node : cores;
    if (p->algorithm == TM_ROUTED) {
        row->cycles_per_update = p->t_local + p->t_hop * row->hops;
    } else {
        double m = p->updates_per_message > 0 ? p->updates_per_message : 1;
        double tl = p->t_local_plain > 0 ? p->t_local_plain : p->t_local;
        row->cycles_per_update = tl + p->t_test + p->t_exposed / N +
                                 (N - 1) / N * ((p->t_send + p->t_recv) / m + p->t_overhead);
    }
    double f_node = row->cores_used * p->clock_hz; /* cycles per second of one node */
    row->cpu_gups = row->nodes * f_node / row->cycles_per_update / 1e9;
    /* one rank sends nothing: no network bound */
    if (row->nodes <= 1 && !(p->link_bw > 0))
        row->net_gups = INFINITY; /* one node, no link given: nothing crosses one */
    else if (hosts > 0)
        /* the physical network's endpoints; each update crosses it
         * net_transfers times as random traffic (none: no bound) */
        row->net_gups = row->net_transfers > 0
                            ? 2.0 * hosts / p->bytes_per_update * row->alpha * p->link_bw / 1e9 / row->net_transfers
                            : INFINITY;
    else
        row->net_gups = s->n >= 2 ? 2.0 * N / p->bytes_per_update * row->alpha * p->link_bw / 1e9 : INFINITY;
    row->node_gups = tm_node_gups(p, row->ranks_node);
    row->mem_gups = row->node_gups > 0 ? row->nodes * row->node_gups : INFINITY;
    row->binding = "cpu";
    row->bound_gups = row->cpu_gups;
    if (row->net_gups < row->bound_gups)
        row->binding = "network", row->bound_gups = row->net_gups;
    if (row->mem_gups < row->bound_gups)
        row->binding = "memory", row->bound_gups = row->mem_gups;
    if (row->inj_gups < row->bound_gups)
        row->binding = "injection", row->bound_gups = row->inj_gups;
    /* the prediction: seconds one node spends per update */
    double pred = row->cpu_gups;
    double wait = p->algorithm == TM_ROUTED ? p->t_wait_routed : p->t_wait_direct;
    double plain = tm_node_gups_plain(p, row->ranks_node);
    if (tm_node_given(p)) {
        /* every cost is in the bounds: the smallest one (node.c) */
        pred = row->bound_gups;
    } else if (wait > 0) {
        /* the bound's work plus what a run of the algorithm was seen to lose */
        pred = row->nodes * f_node / (row->cycles_per_update + wait) / 1e9;
    } else if (p->algorithm == TM_ROUTED && row->node_gups > 0) {
        double s_node = 1.0 / (row->node_gups * 1e9) + p->t_hop * row->hops / f_node;
        pred = row->nodes / s_node / 1e9;
    } else if (p->algorithm == TM_DIRECT && plain > 0) {
        /* files without a fitted wait: the baseline's local path at its
         * node rate plus its messages on the cores */
        double m = p->updates_per_message > 0 ? p->updates_per_message : 1;
        double s_node = 1.0 / (plain * 1e9) + (N - 1) / N * ((p->t_send + p->t_recv) / m + p->t_overhead) / f_node;
        pred = row->nodes / s_node / 1e9;
    }
    /* an unbounded CPU (no cost given) predicts the other bounds */
    if (!(pred <= row->bound_gups))
        pred = row->bound_gups;
    row->predicted_gups = pred;
    row->first_order_gups = pred;
    row->scale_eta = 1;
    row->cycles_local = p->t_local, row->cycles_hop = p->t_hop;
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
