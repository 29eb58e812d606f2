/*
 * cli.c - strict number parsing and the one option-error format shared by
 * every binary (see kit_cli.h).
 */
#include "kit_cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kit_cli_long(const char *s, long lo, long hi, long *out)
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

int kit_cli_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
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

int kit_cli_double(const char *s, double lo, double hi, double *out)
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

int kit_cli_bytes(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end)
            return -1;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

void kit_cli_escape(const char *s, char *buf, size_t len)
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

void kit_cli_bad_value(char *err, size_t errlen, const char *opt, const char *value, const char *allowed)
{
    char v[300];
    kit_cli_escape(value, v, sizeof v);
    snprintf(err, errlen, "bad value '%s' for --%s: allowed %s", v, opt, allowed);
}

/* Entry i of opts named exactly name[0..len), else -1 none, -2 several
 * entries begin with it (an ambiguous prefix), else the one that does. */
static int match_long(const struct option *opts, const char *name, size_t len)
{
    int found = -1;
    for (int i = 0; opts[i].name; i++) {
        if (strncmp(opts[i].name, name, len))
            continue;
        if (strlen(opts[i].name) == len)
            return i;
        found = found == -1 ? i : -2;
    }
    return found;
}

void kit_cli_refused(const struct option *opts, const char *word, char *err, size_t errlen)
{
    char w[300];
    if (strncmp(word, "--", 2) != 0) {
        /* -x: the kit has long options only */
        kit_cli_escape(word, w, sizeof w);
        snprintf(err, errlen, "unknown option '%s' (see --help)", w);
        return;
    }
    const char *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
    int i = match_long(opts, word + 2, len);
    char name[300];
    snprintf(name, sizeof name, "%.*s", (int)(len < 200 ? len : 200), word + 2);
    kit_cli_escape(name, w, sizeof w);
    if (i == -2) {
        size_t o = (size_t)snprintf(err, errlen, "option '--%s' is ambiguous: could be", w);
        for (int k = 0, shown = 0; opts[k].name && o < errlen; k++)
            if (!strncmp(opts[k].name, word + 2, len) && shown++ < 6)
                o += (size_t)snprintf(err + o, errlen - o, "%s --%s", shown > 1 ? "," : "", opts[k].name);
        if (o < errlen)
            snprintf(err + o, errlen - o, " (see --help)");
    } else if (i == -1 || !eq) {
        snprintf(err, errlen, "unknown option '--%s' (see --help)", w);
    } else {
        /* a known flag given a value: --no-verify=1 */
        kit_cli_escape(eq + 1, w, sizeof w);
        snprintf(err, errlen, "option '--%s' takes no value, got '%s' (see --help)", opts[i].name, w);
    }
}
