/*
 * ropt_node.c - one hop or two for a node's ranks (see ropt_node.h).
 *
 * Algorithm: the routed per-update cost of paper 002 sec. 6.2 (the form
 * ropt_auto_shape weighs, torus.h's auto), restricted to the node's own
 * dimensions and priced in the node's units.
 *   1. One hop: the node is one dimension of R; H = 1 - 1/R, and its R + S
 *      buffers leave small packets.
 *   2. Two hops: the balanced a x b; H = 2 - 1/a - 1/b, a + b + 2S
 *      buffers, larger packets.
 *   3. Price each as H * (h + s / cap), cap the bucket capacity the full
 *      shape (network dimensions included) leaves of the 1024 budget, and
 *      take the cheaper; one hop on a tie (today's --node-dim).
 * Cost: two capacity evaluations, or with the network shape chosen again
 * per part, two ropt_auto_shape searches (O(d log n) each).
 */
#include "ropt_node.h"

#include <string.h>

int ropt_node_part(int R, int hops, torus_shape *out)
{
    if (R < 1 || hops < 1 || hops > 2)
        return -1;
    memset(out, 0, sizeof *out);
    if (hops == 1 || R < 4)
        return hops == 1 ? torus_shape_balanced(R, 1, out) : -1;
    return torus_shape_balanced(R, 2, out);
}

/* full = net (may be NULL) with part's dimensions appended: 0, or -1 when
 * they do not fit TORUS_MAX_DIMS. */
static int join(const torus_shape *net, const torus_shape *part, torus_shape *full)
{
    if (net && net->ndims > 0)
        *full = *net;
    else
        memset(full, 0, sizeof *full), full->n = 1;
    return torus_shape_append_shape(full, part);
}

double ropt_node_cost(const torus_shape *full, const torus_shape *part, const ropt_params *p, double hop,
                      double packet)
{
    int cap = ropt_capacity(full, p);
    if (cap < 1)
        return 1e300;
    return torus_expected_hops(part) * (hop + packet / cap);
}

void ropt_node_choose(int R, const torus_shape *net, int net_auto, const ropt_params *p, int hops, double hop,
                      double packet, ropt_node_choice *out, torus_shape *net_out)
{
    memset(out, 0, sizeof *out);
    torus_shape nets[3], parts[3];
    for (int h = 1; h <= 2; h++) {
        if (ropt_node_part(R, h, &parts[h]))
            continue;
        if (net && net_auto) /* net: only its size (torus_shape_parse_spec) */
            ropt_auto_shape_part(net->n, p, &parts[h], &nets[h]);
        else if (net && net->ndims > 0)
            nets[h] = *net;
        else
            memset(&nets[h], 0, sizeof nets[h]);
        torus_shape full;
        out->cost[h] = join(&nets[h], &parts[h], &full) ? 1e300 : ropt_node_cost(&full, &parts[h], p, hop, packet);
    }
    int pick = hops == 2 && out->cost[2] > 0 ? 2 : 1;
    if (hops == 0) {
        out->by_model = 1;
        pick = out->cost[2] > 0 && out->cost[2] < out->cost[1] ? 2 : 1;
    }
    out->part = parts[pick];
    for (int d = 0; d < out->part.ndims; d++)
        out->hops += out->part.k[d] >= 2;
    if (net_out)
        *net_out = nets[pick];
}
