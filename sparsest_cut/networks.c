/*
 * networks.c - networks that are not tori: the k-ary n-tree (folded-Clos
 * fat-tree, full or tapered at the leaves) and the dragonfly, as graphs
 * (switches carry no endpoint) and with their edge expansion in closed form.
 *
 * Sources: k-ary n-tree, Petrini and Vanneschi, "k-ary n-trees: high
 * performance networks for massively parallel architectures", IPPS 1997;
 * dragonfly, Kim, Dally, Scott and Abts, "Technology-driven, highly-scalable
 * dragonfly topology", ISCA 2008 (a routers per group, p hosts per router,
 * h global links per router, g groups; g = a h + 1 is the largest).
 *
 * fattree:K,N[,T]  K^N hosts; N levels of K^(N-1) switches; level-0
 *   switch w (digits w_0..w_{N-2}, base K) links to level-(l+1) switch w'
 *   when w and w' differ at most in digit l (K up, K down links); host h
 *   hangs from leaf h / K.  Links above the leaves carry 1 / T of a host
 *   link (T >= 1: a taper of T:1 at the leaves; T = 1 is the full tree).
 *   alpha = 1 / T (N >= 2; a leaf and its hosts: K/T links over K hosts; a
 *   full fat-tree has full bisection so no set does better, and the taper
 *   cuts every set's uplinks in the same proportion); N = 1 is one switch:
 *   alpha 1.  Bisection: floor(H/2) / T links for even K (whole leaves);
 *   odd K leaves it to the enumeration.
 * dragonfly:A,P,H[,G]  routers fully connected inside a group (one local
 *   link per pair), A H global ports per group spread evenly over the G - 1
 *   other groups (L = A H / (G - 1) links per pair of groups, G defaults to
 *   A H + 1), port q of a group on router q / H.  Candidate cuts: one host
 *   (1), a router with its hosts ((A - 1 + H) / P), s whole groups
 *   ((G - s) L / (A P), least at s = floor(G/2)), and s whole groups with
 *   the routers of one more group whose global links reach them most
 *   (groups_and_routers: with odd G, half the hosts leave room for half a
 *   group).  alpha = their minimum, a real cut's ratio: on every instance
 *   tests/unit/test_networks.c enumerates (up to 30 nodes) it equals the
 *   exact figure.  Bisection: (G/2)^2 L for even G.
 *   Cost: O(G A (H + log A)) for the last family.
 * Cost: the fat-tree O(1); graphs O(links).
 */
#include "sparsest_cut.h"
#include "kit_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the largest network built as a graph (switches included) */
#define SC_NET_MAX_NODES (1 << 24)

static int bad(const char *txt, char *err, size_t errlen)
{
    char shown[160];
    kit_cli_escape(txt, shown, sizeof shown); /* one printable line, whatever the text holds */
    snprintf(err, errlen,
             "bad network '%s': allowed a torus shape, fattree:K,N[,T] (K 2..64, N 1..8, taper T 1..1000, at "
             "most 2^24 hosts) or dragonfly:A,P,H[,G] (A 1..256 routers per group, P 1..256 hosts per router, H "
             "1..256 global links per router, G 2..A*H+1 groups, at most 1024, with (G-1) dividing A*H)",
             shown);
    return -2;
}

/* Comma-separated numbers after the colon: whole ones except the last of a
 * fat-tree (the taper). */
static int numbers(const char *s, double *v, int max)
{
    int n = 0;
    while (*s) {
        if (n == max)
            return -1;
        char *end;
        v[n] = strtod(s, &end);
        if (end == s || !isfinite(v[n]))
            return -1;
        n++;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return n;
}

static int whole(double x, double lo, double hi)
{
    return x == floor(x) && x >= lo && x <= hi;
}

int sc_network_parse(const char *txt, sc_network *net, char *err, size_t errlen)
{
    memset(net, 0, sizeof *net);
    double v[5];
    if (!strncmp(txt, "fattree:", 8)) {
        int n = numbers(txt + 8, v, 3);
        if (n < 2 || !whole(v[0], 2, 64) || !whole(v[1], 1, 8) || (n == 3 && !(v[2] >= 1 && v[2] <= 1000)))
            return bad(txt, err, errlen);
        double hosts = pow(v[0], v[1]);
        if (hosts > (1 << 24))
            return bad(txt, err, errlen);
        net->kind = SC_NET_FATTREE;
        net->k = (int)v[0], net->levels = (int)v[1], net->taper = n == 3 ? v[2] : 1;
        net->hosts = (long)hosts;
        net->switches = (long)v[1] * (long)pow(v[0], v[1] - 1);
    } else if (!strncmp(txt, "dragonfly:", 10)) {
        int n = numbers(txt + 10, v, 4);
        if (n < 3 || !whole(v[0], 1, 256) || !whole(v[1], 1, 256) || !whole(v[2], 1, 256))
            return bad(txt, err, errlen);
        double gmax = v[0] * v[2] + 1, g = n == 4 ? v[3] : gmax;
        if (!whole(g, 2, gmax) || g > 1024 || fmod(v[0] * v[2], g - 1) != 0 || v[0] * v[1] * g > (1 << 24))
            return bad(txt, err, errlen);
        net->kind = SC_NET_DRAGONFLY;
        net->a = (int)v[0], net->p = (int)v[1], net->h = (int)v[2], net->g = (int)g;
        net->hosts = (long)(v[0] * v[1] * g);
        net->switches = (long)(v[0] * g);
    } else {
        if (torus_shape_parse(txt, 0, &net->torus, err, errlen))
            return -2;
        net->kind = SC_NET_TORUS;
        net->hosts = net->torus.n;
    }
    if (net->hosts < 2) {
        char shown[160];
        kit_cli_escape(txt, shown, sizeof shown);
        snprintf(err, errlen, "network '%s' has %ld endpoint: allowed at least 2 (a cut needs two)", shown, net->hosts);
        return -2;
    }
    return 0;
}

void sc_network_format(const sc_network *net, char *buf, size_t len)
{
    if (net->kind == SC_NET_FATTREE)
        snprintf(buf, len, "fattree:%d,%d,%g", net->k, net->levels, net->taper);
    else if (net->kind == SC_NET_DRAGONFLY)
        snprintf(buf, len, "dragonfly:%d,%d,%d,%d", net->a, net->p, net->h, net->g);
    else
        torus_shape_format(&net->torus, buf, len);
}

static int by_count_desc(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a < b) - (a > b);
}

/* Dragonfly: s whole groups (0..s-1, s = floor(G/2) or one fewer) and the r
 * routers of one more group y whose global links reach them most, as many
 * as half the hosts allow.  With u of the routers' links into the s groups
 * the cut is s (G - s) L - 2u + r H + r (A - r) (the group's other links
 * leave S, and r (A - r) local links are cut).  Port q of group y goes to
 * group q / L, or q / L + 1 from y on (dragonfly_edges' order).  Returns
 * the least ratio, 2 when no such set fits, -1 out of memory. */
static double groups_and_routers(const sc_network *net)
{
    long A = net->a, P = net->p, H = net->h, G = net->g, L = A * H / (G - 1);
    long *u = malloc((size_t)A * sizeof *u);
    if (!u)
        return -1;
    double best = 2, half = (double)net->hosts / 2;
    for (long s = G / 2; s >= 1 && s >= G / 2 - 1; s--)
        for (long y = s; y < G; y++) {
            for (long rt = 0; rt < A; rt++) {
                u[rt] = 0;
                for (long q = rt * H; q < rt * H + H; q++) {
                    long to = q / L < y ? q / L : q / L + 1;
                    u[rt] += to < s;
                }
            }
            qsort(u, (size_t)A, sizeof *u, by_count_desc);
            long U = 0;
            for (long r = 1; r < A && (double)(s * A * P + r * P) <= half; r++) {
                U += u[r - 1];
                double cut = (double)(s * (G - s) * L - 2 * U + r * H + r * (A - r));
                double ratio = cut / (double)(P * (s * A + r));
                if (ratio < best)
                    best = ratio;
            }
        }
    free(u);
    return best;
}

int sc_network_closed_form(const sc_network *net, sc_result *r, char *err, size_t errlen)
{
    if (net->kind == SC_NET_TORUS)
        return sc_closed_form(&net->torus, r, 0, err, errlen);
    memset(r, 0, sizeof *r);
    r->method = "closed-form";
    r->wtotal = (double)net->hosts;
    r->n = (int)(net->hosts + net->switches);
    r->bisection = -1, r->bisection_method = "none";
    if (net->kind == SC_NET_FATTREE) {
        r->alpha = net->levels == 1 ? 1 : 1 / net->taper;
        if (net->k % 2 == 0) {
            r->bisection = (double)(net->hosts / 2) * (net->levels == 1 ? 1 : 1 / net->taper);
            r->bisection_method = "closed-form";
        }
    } else {
        double a = net->a, p = net->p, h = net->h, g = net->g, L = a * h / (g - 1);
        double groups = (g - floor(g / 2)) * L / (a * p);
        double router = (a - 1 + h) / p;
        r->alpha = 1;
        if (router < r->alpha)
            r->alpha = router;
        if (groups < r->alpha)
            r->alpha = groups;
        double part = groups_and_routers(net);
        if (part < 0) {
            snprintf(err, errlen, "out of memory for a dragonfly's cuts");
            return -3;
        }
        if (part < r->alpha)
            r->alpha = part;
        if (net->g % 2 == 0) {
            r->bisection = (g / 2) * (g / 2) * L;
            r->bisection_method = "closed-form";
        }
    }
    r->alpha_lower = r->alpha_upper = r->alpha;
    if (r->bisection >= 0)
        r->bisection_lower = r->bisection;
    return 0;
}

/* Node ids: hosts 0..hosts-1 first, then the switches. */
static int fattree_edges(const sc_network *net, sc_edges *e)
{
    long K = net->k, per = net->switches / net->levels, H = net->hosts;
    for (long h = 0; h < H; h++)
        if (sc_edges_add(e, (int)h, (int)(H + h / K), 1))
            return -3;
    long stride = 1;
    for (int l = 0; l + 1 < net->levels; l++, stride *= K) {
        double c = l == 0 ? 1 / net->taper : 1;
        for (long w = 0; w < per; w++) {
            long digit = (w / stride) % K;
            for (long d = 0; d < K; d++) {
                long up = w + (d - digit) * stride;
                if (sc_edges_add(e, (int)(H + l * per + w), (int)(H + (l + 1) * per + up), c))
                    return -3;
            }
        }
    }
    return 0;
}

static int dragonfly_edges(const sc_network *net, sc_edges *e)
{
    long A = net->a, P = net->p, G = net->g, H = net->hosts;
    long L = A * net->h / (G - 1);
    for (long h = 0; h < H; h++)
        if (sc_edges_add(e, (int)h, (int)(H + h / P), 1))
            return -3;
    for (long grp = 0; grp < G; grp++)
        for (long i = 0; i < A; i++)
            for (long j = i + 1; j < A; j++)
                if (sc_edges_add(e, (int)(H + grp * A + i), (int)(H + grp * A + j), 1))
                    return -3;
    /* global ports: group x's links to y (x < y) take x's next ports */
    if (G < 2 || G > 1024)
        return -3; /* sc_network_parse allows 2..1024 */
    long *port = calloc((size_t)G, sizeof *port);
    if (!port)
        return -3;
    for (long x = 0; x < G; x++)
        for (long y = x + 1; y < G; y++)
            for (long l = 0; l < L; l++) {
                long rx = port[x]++ / net->h, ry = port[y]++ / net->h;
                if (sc_edges_add(e, (int)(H + x * A + rx), (int)(H + y * A + ry), 1)) {
                    free(port);
                    return -3;
                }
            }
    free(port);
    return 0;
}

int sc_graph_from_network(sc_graph *g, const sc_network *net, char *err, size_t errlen)
{
    if (net->kind == SC_NET_TORUS)
        return sc_graph_from_shape(g, &net->torus, err, errlen);
    long n = net->hosts + net->switches;
    if (n > SC_NET_MAX_NODES) {
        snprintf(err, errlen, "network of %ld nodes: allowed at most %d as a graph", n, SC_NET_MAX_NODES);
        return -2;
    }
    sc_edges e;
    if (sc_edges_init(&e, (int)n, 0)) {
        snprintf(err, errlen, "out of memory for a %ld-node network", n);
        return -3;
    }
    for (long v = net->hosts; v < n; v++)
        e.w[v] = 0; /* switches carry no endpoint */
    int rc = net->kind == SC_NET_FATTREE ? fattree_edges(net, &e) : dragonfly_edges(net, &e);
    if (rc) {
        sc_edges_free(&e);
        snprintf(err, errlen, "out of memory for a %ld-node network", n);
        return -3;
    }
    rc = sc_graph_build(g, &e, err, errlen);
    sc_edges_free(&e);
    return rc;
}
