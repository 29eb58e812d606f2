/*
 * hostlist.c - Slurm's hostlist expressions, expanded in full: names
 * separated by commas, each with any number of bracket groups of numbers
 * and ranges ("tux[0-3,12]", "rack[1-2]n[01-04]").  A range's numbers are
 * padded with zeros to the width of its lower bound as written, as Slurm
 * prints them ("[08-10]" is 08, 09, 10).
 */
#include "fabric.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 255

typedef struct expander {
    long count, max;
    int (*each)(void *ctx, const char *name);
    void *ctx;
    char *err;
    size_t errlen;
} expander;

/* A number of a bracket group at *p: its value and written width. */
static int number(const char **p, long *v, int *width)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s))
        return -1;
    long x = 0;
    int w = 0;
    for (; isdigit((unsigned char)*s); s++, w++) {
        if (x > 99999999L)
            return -1;
        x = 10 * x + (*s - '0');
    }
    *p = s;
    *v = x;
    *width = w;
    return 0;
}

static int expand(expander *x, char *name, size_t len, const char *rest, const char *end);

/* The group's text for a message: at most 40 bytes, escaped. */
static const char *group_text(const char *g, const char *close, char *buf, size_t len)
{
    char raw[41];
    size_t n = (size_t)(close - g) > 40 ? 40 : (size_t)(close - g);
    memcpy(raw, g, n);
    raw[n] = 0;
    return sc__esc(raw, buf, len);
}

/* The bracket group at g (after '['), each number into name at len, then
 * what follows the ']'. */
static int group(expander *x, char *name, size_t len, const char *g, const char *end)
{
    const char *close = memchr(g, ']', (size_t)(end - g));
    if (!close) {
        snprintf(x->err, x->errlen, "'[' without ']': allowed name[N-M,K,...]");
        return -2;
    }
    if (close == g) {
        snprintf(x->err, x->errlen, "bracket group '[]': allowed numbers and ranges N-M separated by commas");
        return -2;
    }
    const char *p = g;
    char gt[200];
    while (p < close) {
        long lo, hi;
        int w, w2;
        if (number(&p, &lo, &w)) {
            snprintf(x->err, x->errlen, "bracket group '[%s]': allowed numbers and ranges N-M separated by commas",
                     group_text(g, close, gt, sizeof gt));
            return -2;
        }
        hi = lo;
        if (*p == '-') {
            p++;
            if (number(&p, &hi, &w2) || hi < lo) {
                snprintf(x->err, x->errlen, "range in '[%s]': allowed N-M with N <= M", group_text(g, close, gt, sizeof gt));
                return -2;
            }
        }
        if (p < close && *p++ != ',') {
            snprintf(x->err, x->errlen, "bracket group '[%s]': allowed numbers and ranges N-M separated by commas",
                     group_text(g, close, gt, sizeof gt));
            return -2;
        }
        for (long v = lo; v <= hi; v++) {
            int k = snprintf(name + len, NAME_MAX_LEN + 1 - len, "%0*ld", w, v);
            if (k < 0 || len + (size_t)k > NAME_MAX_LEN) {
                snprintf(x->err, x->errlen, "a name longer than %d characters", NAME_MAX_LEN);
                return -2;
            }
            int rc = expand(x, name, len + (size_t)k, close + 1, end);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Literal text up to the next '[' or the end of the name, then a group. */
static int expand(expander *x, char *name, size_t len, const char *rest, const char *end)
{
    const char *open = memchr(rest, '[', (size_t)(end - rest));
    const char *lit_end = open ? open : end;
    if (memchr(rest, ']', (size_t)(lit_end - rest))) {
        snprintf(x->err, x->errlen, "']' without '[': allowed name[N-M,K,...]");
        return -2;
    }
    size_t n = (size_t)(lit_end - rest);
    if (len + n > NAME_MAX_LEN) {
        snprintf(x->err, x->errlen, "a name longer than %d characters", NAME_MAX_LEN);
        return -2;
    }
    memcpy(name + len, rest, n);
    len += n;
    name[len] = 0;
    if (open)
        return group(x, name, len, open + 1, end);
    if (len == 0) {
        snprintf(x->err, x->errlen, "an empty name: allowed names separated by single commas");
        return -2;
    }
    if (++x->count > x->max) {
        snprintf(x->err, x->errlen, "more than %ld names: allowed at most %ld", x->max, x->max);
        return -2;
    }
    return x->each(x->ctx, name);
}

int sc__hostlist(const char *expr, long max, int (*each)(void *ctx, const char *name), void *ctx, char *err,
                 size_t errlen)
{
    expander x = {0, max, each, ctx, err, errlen};
    char name[NAME_MAX_LEN + 1];
    const char *p = expr;
    for (;;) {
        /* the item ends at a comma outside brackets */
        const char *q = p;
        int depth = 0;
        for (; *q && !(depth == 0 && *q == ','); q++)
            depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
        int rc = expand(&x, name, 0, p, q);
        if (rc)
            return rc;
        if (!*q)
            return 0;
        p = q + 1;
    }
}
