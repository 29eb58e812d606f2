/*
 * scale.c - what the timed simulator knows and the first-order bounds miss:
 * at scale ra_opt's packets shrink under the 1024-update rule, a packet on
 * a long ring holds every link of its path, sends block (paper 002 sec.
 * 6.2: an SBF of 0.9 at 65536 nodes), and BlueGene/L's 65536 nodes ran at
 * 0.37 of their CPU bound.  The prediction is the first-order one times the
 * efficiency eta the simulator shows on this machine:
 *   eta = simulated GUPS / min(node-side rate, network bound), both of the
 *         machine simulated, never above 1.
 * Which machine is simulated (--scale-term, --scale-nodes):
 *   full     the network's own torus, every node a virtual rank, when it has
 *            at most --scale-nodes nodes (default 4096: about 10 s);
 *   reduced  above that, a smaller torus by one stated rule: keep the
 *            longest dimension (the first of the longest: its rings carry
 *            the longest paths, whose links a packet holds at once) and
 *            halve the largest other dimension until at most --scale-nodes
 *            nodes are left; its per-rank budget is set so that its
 *            buckets hold as many updates as the full machine's (the packet
 *            size, the cause of the loss, is kept).  Checked against full
 *            simulations in docs/machines.md (BlueGene/L 64x32x32: reduced
 *            64x8x8 gives eta 0.362, the full machine 0.363).
 *   none     machines of at most 512 nodes under auto (Table 7's rows up to
 *            8192 nodes simulate within 1% of their first-order rate), the
 *            direct algorithm, networks that are not tori, and a shape whose
 *            ranks share one node with no network under them.
 * A node of c cores is one virtual rank whose CPU runs c times as fast: per
 * update generated it spends the node-side time of an update less its
 * network hops, t_hop / (f c) per network hop.
 * Cost: one simulation per shape, 0.5-15 s up to 4096 nodes.
 */
#include "torusmodel.h"
#include "ropt_timed.h"
#include "sparsest_cut.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the nodes' torus under shape s, or 0 (why in how) */
static int network_torus(const tm_params *p, const torus_shape *s, torus_shape *t, char *how, size_t len)
{
    if (p->net_mode == TM_NET_SHAPE) {
        if (p->ranks_per_node > 1) {
            snprintf(how, len, "none: ranks share a node, no torus of nodes under the shape");
            return 0;
        }
        *t = *s;
        return 1;
    }
    if (p->net_mode == TM_NET_FILE) {
        snprintf(how, len, "none: the timed simulator models tori only");
        return 0;
    }
    if (p->net_mode == TM_NET_GIVEN) {
        if (p->network.kind != SC_NET_TORUS) {
            snprintf(how, len, "none: the timed simulator models tori only");
            return 0;
        }
        *t = p->network.torus;
        return 1;
    }
    /* nodes: the dimensions past those that make up a node (tm_evaluate
     * has refused a shape whose leading ones are not a node's) */
    int j = tm_node_dims(s, p->ranks_per_node);
    memset(t, 0, sizeof *t);
    t->n = 1;
    for (int i = j; i < s->ndims; i++) {
        t->k[t->ndims] = s->k[i], t->mesh[t->ndims] = s->mesh[i];
        t->n *= s->k[i];
        t->ndims++;
    }
    return t->ndims > 0;
}

int tm_scale_reduce(const torus_shape *t, int max, torus_shape *r)
{
    *r = *t;
    int keep = 0;
    for (int i = 1; i < r->ndims; i++)
        if (r->k[i] > r->k[keep])
            keep = i;
    if (r->n > max && r->k[keep] > max)
        return -1; /* the rule keeps the longest dimension: it alone is more than max */
    while (r->n > max) {
        int big = -1;
        for (int i = 0; i < r->ndims; i++)
            if (i != keep && r->k[i] > 1 && (big < 0 || r->k[i] > r->k[big]))
                big = i;
        r->n /= r->k[big]; /* big exists: the others are not all 1 while n > max >= k[keep] */
        r->k[big] /= 2;
        r->n *= r->k[big];
    }
    return 0;
}

static double net_bound(const tm_params *p, const torus_shape *t)
{
    sc_result r;
    char e[300];
    if (t->n < 2 || sc_closed_form(t, &r, 0, e, sizeof e))
        return INFINITY;
    double g = 2.0 * t->n / p->bytes_per_update * r.alpha * p->link_bw / 1e9;
    sc_result_free(&r);
    return g;
}

int tm_scale(const tm_params *p, const torus_shape *s, tm_row *row, char *err, size_t errlen)
{
    row->scale_eta = 1;
    row->first_order_gups = row->predicted_gups;
    torus_shape t, r;
    if (p->scale_term == TM_SCALE_NONE) {
        snprintf(row->scale_how, sizeof row->scale_how, "none (--scale-term none)");
        return 0;
    }
    if (p->algorithm != TM_ROUTED) {
        snprintf(row->scale_how, sizeof row->scale_how, "none: the timed simulator runs the routed algorithm");
        return 0;
    }
    if (!network_torus(p, s, &t, row->scale_how, sizeof row->scale_how))
        return 0;
    int maxn = p->scale_nodes > 0 ? p->scale_nodes : 4096;
    if (t.n < 2 || (p->scale_term == TM_SCALE_AUTO && t.n <= 512)) {
        snprintf(row->scale_how, sizeof row->scale_how, "none: at most 512 nodes (auto)");
        return 0;
    }
    int full = p->scale_term == TM_SCALE_FULL || t.n <= maxn;
    if (full && t.n > 65536) {
        snprintf(err, errlen, "--scale-term full on %d nodes refused: allowed at most 65536 (reduced above)", t.n);
        return -2;
    }
    if (full) {
        r = t;
    } else if (tm_scale_reduce(&t, maxn, &r)) {
        char name[48];
        torus_shape_format(&t, name, sizeof name);
        int longest = 0;
        for (int i = 0; i < t.ndims; i++)
            longest = t.k[i] > longest ? t.k[i] : longest;
        snprintf(err, errlen, "--scale-nodes %d below the longest dimension (%d) of the nodes' torus %s: allowed at "
                              "least %d (the reduced torus keeps that dimension), or --scale-term full or none",
                 maxn, longest, name, longest);
        return -2;
    }
    ropt_timed_config c;
    ropt_timed_defaults(&c);
    c.shape = t;
    int cap = ropt_timed_capacity(&c);
    if (cap < 1) {
        snprintf(row->scale_how, sizeof row->scale_how, "none: the nodes' torus leaves no bucket capacity");
        return 0;
    }
    c.shape = r;
    if (!full)
        c.budget = ropt_timed_budget_for(&c, cap);
    /* the node-side rate: the smallest bound but the network's */
    double side = row->cpu_gups;
    side = row->mem_gups < side ? row->mem_gups : side;
    side = row->inj_gups < side ? row->inj_gups : side;
    double f = p->clock_hz, cores = row->cores_used > 0 ? row->cores_used : 1;
    double s_node = row->nodes / (side * 1e9);
    c.t_hop_s = row->cycles_hop / (f * cores);
    c.t_update_s = s_node - torus_expected_hops(&r) * c.t_hop_s;
    if (c.t_update_s < 0.1 * s_node)
        c.t_update_s = 0.1 * s_node;
    c.link_bw = p->link_bw;
    c.latency_s = 1e-7;
    c.header_bytes = p->packet_header_bytes > 0 ? p->packet_header_bytes : 32;
    c.chunk_bytes = p->chunk_bytes, c.packet_max_bytes = p->packet_max_bytes;
    c.link_overhead_bytes = p->link_overhead_bytes;
    c.updates_per_rank = 4194304L / r.n > 4096 ? 4194304L / r.n : 4096;
    char name[48];
    torus_shape_format(&r, name, sizeof name);
    if (p->scale_progress) {
        fprintf(stderr, "torusmodel: scale term: simulating %s%s (--scale-term none skips it)\n", full ? "" : "the reduced ",
                name);
        fflush(stderr);
    }
    ropt_timed_result res;
    int rc = ropt_timed_run(&c, &res, err, errlen);
    if (rc)
        return rc;
    double sim_side = r.n / s_node / 1e9, nb = net_bound(p, &r);
    double first = sim_side < nb ? sim_side : nb;
    double eta = res.gups / first;
    row->scale_eta = eta < 1 ? eta : 1;
    row->predicted_gups = row->first_order_gups * row->scale_eta;
    if (full)
        snprintf(row->scale_how, sizeof row->scale_how, "full %s", name);
    else
        snprintf(row->scale_how, sizeof row->scale_how, "reduced %s (budget %d, cap %d)", name, c.budget, cap);
    return 0;
}
