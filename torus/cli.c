/*
 * cli.c - strict number parsing and the one option-error format shared by
 * every binary (see torus_cli.h).
 */
#include "torus_cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int torus_cli_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s || isspace((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int torus_cli_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    /* strtoull accepts "-1" as a huge value: insist on a digit first. */
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int torus_cli_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s || isspace((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    /* ERANGE on underflow still gives a usable tiny value; on overflow inf. */
    if (*end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

void torus_cli_escape(const char *s, char *buf, size_t len)
{
    size_t o = 0, shown = 0;
    if (!len)
        return;
    if (!s)
        s = "(null)";
    for (; *s && o + 8 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (shown == 64) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c < 0x20 || c >= 0x7f)
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
        else if (c == '\'' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else
            buf[o++] = (char)c;
        shown++;
    }
    buf[o] = 0;
}

void torus_cli_bad_value(char *err, size_t errlen, const char *opt, const char *value, const char *allowed)
{
    char v[300];
    torus_cli_escape(value, v, sizeof v);
    snprintf(err, errlen, "bad value '%s' for --%s: allowed %s", v, opt, allowed);
}
