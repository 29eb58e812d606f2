/*
 * topology.c - shapes: parsing, balanced factorisation and the cost-model
 * choice of dimensionality used by "auto".
 */
#include "torus.h"
#include "kit_cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void torus_shape_format(const torus_shape *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < s->ndims && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d%s", i ? "x" : "", s->k[i], s->mesh[i] ? "m" : "");
}

double torus_expected_hops(const torus_shape *s)
{
    double h = 0;
    for (int i = 0; i < s->ndims; i++)
        h += 1.0 - 1.0 / s->k[i];
    return h;
}

int torus_shape_sum_k(const torus_shape *s)
{
    int t = 0;
    for (int i = 0; i < s->ndims; i++)
        t += s->k[i];
    return t;
}

static int cmp_desc(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

int torus_shape_balanced(int n, int d, torus_shape *out)
{
    if (n < 1 || d < 1 || d > TORUS_MAX_DIMS)
        return -1;
    int primes[64], np = 0, m = n;
    for (int p = 2; (long)p * p <= m; p++)
        while (m % p == 0) {
            primes[np++] = p;
            m /= p;
        }
    if (m > 1)
        primes[np++] = m;
    if (d > 1 && np < d)
        return -1;
    memset(out, 0, sizeof *out);
    out->ndims = d;
    out->n = n;
    for (int i = 0; i < d; i++)
        out->k[i] = 1;
    /* Largest primes first, each onto the currently smallest factor. */
    qsort(primes, (size_t)np, sizeof *primes, cmp_desc);
    for (int j = 0; j < np; j++) {
        int s = 0;
        for (int i = 1; i < d; i++)
            if (out->k[i] < out->k[s])
                s = i;
        out->k[s] *= primes[j];
    }
    qsort(out->k, (size_t)d, sizeof(int), cmp_desc);
    return 0;
}

double torus_shape_cost(const torus_shape *s, int budget, double t_hop, double t_msg)
{
    int fill = budget / torus_shape_sum_k(s);
    if (fill < 1)
        return 1e300;
    return torus_expected_hops(s) * (t_hop + t_msg / fill);
}

void torus_shape_search(int n, double (*cost)(const torus_shape *s, void *ctx), void *ctx, torus_shape *out)
{
    torus_shape best, cand;
    torus_shape_balanced(n, 1, &best);
    double bc = cost(&best, ctx);
    for (int d = 2; d <= TORUS_MAX_DIMS; d++) {
        if (torus_shape_balanced(n, d, &cand))
            break;
        double c = cost(&cand, ctx);
        if (c < bc) {
            bc = c;
            best = cand;
        }
    }
    *out = best;
}

typedef struct {
    int budget;
    double t_hop, t_msg;
} auto_costs;

static double auto_cost(const torus_shape *s, void *ctx)
{
    const auto_costs *a = ctx;
    return torus_shape_cost(s, a->budget, a->t_hop, a->t_msg);
}

void torus_shape_auto(int n, int budget, double t_hop, double t_msg, torus_shape *out)
{
    auto_costs a = {budget, t_hop, t_msg};
    torus_shape_search(n, auto_cost, &a, out);
}

int torus_shape_append(torus_shape *s, int m)
{
    if (s->ndims >= TORUS_MAX_DIMS || m < 1)
        return -1;
    s->k[s->ndims] = m;
    s->mesh[s->ndims] = 0;
    s->ndims++;
    s->n *= m;
    return 0;
}

int torus_shape_append_shape(torus_shape *s, const torus_shape *part)
{
    for (int d = 0; d < part->ndims; d++)
        if (torus_shape_append(s, part->k[d]))
            return -1;
    return 0;
}

/* What a shape may be, for the errors that list it. */
#define SHAPE_ALLOWED \
    "allowed auto, flat, hypercube, auto:N, flat:N, hypercube:D or sizes like 4x4x2 (m suffix = mesh)"
/* At most 2^30 positions: rank numbers and linear positions stay ints. */
#define MAX_POSITIONS (1L << 30)

/* Every form ends here, so a shape that does not cover the processes is
 * reported the same way whatever its spelling. */
static int check_count(const char *esc, long positions, int n, char *err, size_t errlen)
{
    if (n > 0 && positions != n) {
        snprintf(err, errlen,
                 "shape '%s' has %ld positions but there are %d processes: the product must equal the process count",
                 esc, positions, n);
        return -1;
    }
    return 0;
}

enum { NAMED_AUTO, NAMED_FLAT, NAMED_HYPERCUBE };
static const char *const named_shapes[] = {"auto", "flat", "hypercube"};

/* auto, flat, hypercube, each bare (count from n) or with ":N" (":D" for
 * the hypercube: its dimension count, not its size). */
static int parse_named(int which, const char *arg, const char *esc, int n, torus_shape *out, int *is_auto, char *err,
                       size_t errlen)
{
    const char *word = named_shapes[which];
    const char *letter = which == NAMED_HYPERCUBE ? "D" : "N";
    long count;
    if (!arg) {
        if (n <= 0) {
            snprintf(err, errlen, "shape '%s' needs a process count here: write %s:%s", word, word, letter);
            return -1;
        }
        count = n;
        if (which == NAMED_HYPERCUBE) {
            if (n < 2 || (n & (n - 1))) {
                snprintf(err, errlen, "shape 'hypercube' needs a power-of-two process count of at least 2, got %d", n);
                return -1;
            }
            for (count = 0; (1L << count) < n; count++)
                ;
            if (count > TORUS_MAX_DIMS) {
                snprintf(err, errlen, "shape 'hypercube' over %d processes needs %ld dimensions: allowed at most %d", n,
                         count, TORUS_MAX_DIMS);
                return -1;
            }
        }
    } else {
        long hi = which == NAMED_HYPERCUBE ? TORUS_MAX_DIMS : MAX_POSITIONS;
        if (kit_cli_long(arg, 1, hi, &count)) {
            snprintf(err, errlen, "bad %s in shape '%s': allowed %s:%s with %s in 1..%ld",
                     which == NAMED_HYPERCUBE ? "dimension count" : "size", esc, word, letter, letter, hi);
            return -1;
        }
        if (check_count(esc, which == NAMED_HYPERCUBE ? 1L << count : count, n, err, errlen))
            return -1;
    }
    switch (which) {
    case NAMED_AUTO:
        /* the caller with a model of its own computes the shape itself */
        if (is_auto) {
            *is_auto = 1;
            out->n = (int)count;
            break;
        }
        torus_shape_auto((int)count, TORUS_AUTO_BUDGET, TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG, out);
        break;
    case NAMED_FLAT:
        out->ndims = 1;
        out->k[0] = (int)count;
        out->n = (int)count;
        break;
    default:
        /* mesh = 1: one link between partners, not a ring of 2 */
        out->ndims = (int)count;
        out->n = 1 << count;
        for (int i = 0; i < out->ndims; i++) {
            out->k[i] = 2;
            out->mesh[i] = 1;
        }
    }
    return 0;
}

/* The named word str starts with (NAMED_AUTO ...), its ":" argument in
 * *arg (NULL: bare); -1: not a named shape. */
static int named_word(const char *str, const char **arg)
{
    const char *colon = strchr(str, ':');
    size_t wl = colon ? (size_t)(colon - str) : strlen(str);
    *arg = colon ? colon + 1 : NULL;
    for (int w = 0; w < (int)(sizeof named_shapes / sizeof *named_shapes); w++)
        if (strlen(named_shapes[w]) == wl && !strncmp(str, named_shapes[w], wl))
            return w;
    return -1;
}

int torus_shape_needs_count(const char *str)
{
    const char *arg;
    return str && named_word(str, &arg) >= 0 && !arg;
}

static int parse(const char *str, int n, torus_shape *out, int *is_auto, char *err, size_t errlen);

int torus_shape_parse(const char *str, int n, torus_shape *out, char *err, size_t errlen)
{
    return parse(str, n, out, NULL, err, errlen);
}

int torus_shape_parse_spec(const char *str, int n, torus_shape *out, int *is_auto, char *err, size_t errlen)
{
    *is_auto = 0;
    return parse(str, n, out, is_auto, err, errlen);
}

static int parse(const char *str, int n, torus_shape *out, int *is_auto, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!str || !*str) {
        snprintf(err, errlen, "empty shape: " SHAPE_ALLOWED);
        return -1;
    }
    char esc[300];
    kit_cli_escape(str, esc, sizeof esc);
    const char *arg;
    int w = named_word(str, &arg);
    if (w >= 0)
        return parse_named(w, arg, esc, n, out, is_auto, err, errlen);

    const char *p = str;
    long prod = 1;
    while (*p) {
        if (out->ndims >= TORUS_MAX_DIMS) {
            snprintf(err, errlen, "shape '%s' has more than %d dimensions", esc, TORUS_MAX_DIMS);
            return -1;
        }
        if (!isdigit((unsigned char)*p)) {
            snprintf(err, errlen, "malformed shape '%s': " SHAPE_ALLOWED, esc);
            return -1;
        }
        char *end;
        long v = strtol(p, &end, 10);
        if (v < 1 || v > 1 << 20) {
            snprintf(err, errlen, "shape '%s': dimension size %ld out of range: allowed 1..1048576", esc, v);
            return -1;
        }
        out->k[out->ndims] = (int)v;
        p = end;
        if (*p == 'm' || *p == 'M') {
            out->mesh[out->ndims] = 1;
            p++;
        }
        out->ndims++;
        prod *= v;
        if (prod > MAX_POSITIONS) {
            snprintf(err, errlen, "shape '%s' has more than 2^30 positions", esc);
            return -1;
        }
        if (*p == 'x' || *p == 'X') {
            p++;
            if (!*p) {
                snprintf(err, errlen, "malformed shape '%s': trailing 'x'", esc);
                return -1;
            }
        } else if (*p) {
            char c[2] = {*p, 0}, cesc[16];
            kit_cli_escape(c, cesc, sizeof cesc);
            snprintf(err, errlen, "malformed shape '%s': unexpected '%s'; allowed sizes like 4x4x2 (m suffix = mesh)",
                     esc, cesc);
            return -1;
        }
    }
    out->n = (int)prod;
    return check_count(esc, prod, n, err, errlen);
}
