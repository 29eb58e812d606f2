/*
 * opt_spec.c - the option spec of kit_opt.h: a binary's table of
 * options becomes its getopt_long table, the checks of its values and its
 * --help, so that every binary parses, refuses and documents alike.
 */
#include "kit_opt.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's val for entry i: above every char, so no short option
 * letter can collide with it. */
#define VAL0 0x100

static int is_end(const kit_opt *o)
{
    return !o->name && o->type != KIT_OPT_HEADING;
}

const kit_opt *kit_opt_find(const kit_opt *spec, const char *name)
{
    for (const kit_opt *o = spec; !is_end(o); o++)
        if (o->name && !strcmp(o->name, name))
            return o;
    return NULL;
}

/* Whether s is empty or only blanks: never a name anyone means. */
static int blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* The word's index in "a|b|c", or -1. */
static int choice_of(const char *choices, const char *s)
{
    size_t sl = strlen(s);
    int i = 0;
    for (const char *p = choices;; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == sl && !strncmp(p, s, len))
            return sl ? i : -1;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

/* "allowed" of an entry without its own text, from its type and range. */
static void allowed_of(const kit_opt *o, char *buf, size_t len)
{
    switch (o->type) {
    case KIT_OPT_LONG:
        snprintf(buf, len, "an integer %.0f..%.0f", o->lo, o->hi);
        break;
    case KIT_OPT_U64:
        if (o->hi > 0)
            snprintf(buf, len, "a whole number %.0f..%.0f", o->lo, o->hi);
        else
            snprintf(buf, len, "a whole number >= %.0f", o->lo);
        break;
    case KIT_OPT_DOUBLE:
        snprintf(buf, len, "a number in %g..%g", o->lo, o->hi);
        break;
    case KIT_OPT_BYTES:
        snprintf(buf, len, "a byte count of at least %.0f, with optional K/M/G/T suffix", o->lo);
        break;
    case KIT_OPT_CHOICE: {
        size_t k = 0;
        for (const char *p = o->choices; *p && k + 3 < len; p++) {
            if (*p == '|') {
                buf[k++] = ',';
                buf[k++] = ' ';
            } else {
                buf[k++] = *p;
            }
        }
        buf[k] = 0;
        break;
    }
    case KIT_OPT_FILE_IN:
    case KIT_OPT_FILE_OUT:
        snprintf(buf, len, "a file name");
        break;
    default:
        snprintf(buf, len, "a value (see --help)");
    }
}

/* Checks s against o's type into v: 0, or -1 with the bad-value line. */
static int check_value(const kit_opt *o, const char *s, kit_opt_val *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->s = s;
    if (!s)
        return 0; /* a flag, or an optional value left out */
    int bad = 0;
    switch (o->type) {
    case KIT_OPT_LONG:
        bad = kit_cli_long(s, (long)o->lo, (long)o->hi, &v->l) != 0;
        break;
    case KIT_OPT_U64:
        bad = kit_cli_u64(s, (uint64_t)o->lo, o->hi > 0 ? (uint64_t)o->hi : UINT64_MAX, &v->u) != 0;
        break;
    case KIT_OPT_DOUBLE:
        bad = kit_cli_double(s, o->lo, o->hi, &v->d) != 0;
        break;
    case KIT_OPT_BYTES:
        bad = kit_cli_bytes(s, &v->u) != 0 || (double)v->u < o->lo;
        break;
    case KIT_OPT_CHOICE:
        v->l = choice_of(o->choices, s);
        bad = v->l < 0;
        break;
    case KIT_OPT_TEXT:
    case KIT_OPT_FILE_IN:
    case KIT_OPT_FILE_OUT:
        bad = blank(s);
        break;
    default:
        break;
    }
    if (!bad)
        return 0;
    char allowed[512];
    if (o->allowed)
        snprintf(allowed, sizeof allowed, "%s", o->allowed);
    else
        allowed_of(o, allowed, sizeof allowed);
    kit_cli_bad_value(err, errlen, o->name, s, allowed);
    return -1;
}

/* One line for what getopt_long refused: c is ':' (a value is missing) or
 * '?', optopt its code when it knows the option, word the word at fault. */
static void refused(const struct option *lo, const kit_opt *const *ent, int n, int c, const char *word, char *err,
                    size_t errlen)
{
    int i = optopt - VAL0;
    if (c == ':' && i >= 0 && i < n) {
        snprintf(err, errlen, "option '--%s' needs a value (see --help)", ent[i]->name);
        return;
    }
    if (c == ':' || (optopt > 0 && optopt < VAL0 && strncmp(word, "--", 2))) {
        /* a short option: unknown, or its value missing */
        char s[2] = {(char)(optopt > 0 && optopt < VAL0 ? optopt : '?'), 0}, esc[16];
        kit_cli_escape(s, esc, sizeof esc);
        if (c == ':')
            snprintf(err, errlen, "option '-%s' needs a value (see --help)", esc);
        else
            snprintf(err, errlen, "unknown option '-%s' (see --help)", esc);
        return;
    }
    kit_cli_refused(lo, word, err, errlen);
}

/* Two FILE_OUT options naming one file: 0, or -1 with the line. */
static int outputs_distinct(const kit_opt *const *ent, const char *const *last, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        if (ent[i]->type != KIT_OPT_FILE_OUT || !last[i])
            continue;
        for (int j = i + 1; j < n; j++) {
            if (ent[j]->type != KIT_OPT_FILE_OUT || !last[j] || ent[j]->id == ent[i]->id)
                continue;
            if (kit_outfile_same(last[i], last[j])) {
                char esc[300];
                kit_cli_escape(last[j], esc, sizeof esc);
                snprintf(err, errlen, "--%s and --%s name the same file '%s': allowed two different files",
                         ent[i]->name, ent[j]->name, esc);
                return -1;
            }
        }
    }
    return 0;
}

int kit_opt_parse(const kit_opt *spec, int argc, char **argv, unsigned flags, kit_opt_fn fn, void *ctx,
                    int *first, char *err, size_t errlen)
{
    int n = 0;
    for (const kit_opt *o = spec; !is_end(o); o++)
        n += o->name != NULL;
    struct option *lo = calloc((size_t)n + 1, sizeof *lo);
    const kit_opt **ent = calloc((size_t)n + 1, sizeof *ent);
    const char **last = calloc((size_t)n + 1, sizeof *last);
    char shorts[80] = "";
    size_t ns = 0;
    if (!lo || !ent || !last) {
        free(lo), free(ent), free(last);
        snprintf(err, errlen, "out of memory while reading the options");
        return -1;
    }
    /* "+": stop at the first operand (no reordering) unless operands are
     * allowed; ":": a missing value comes back as ':' */
    if (!(flags & KIT_OPT_OPERANDS))
        shorts[ns++] = '+';
    shorts[ns++] = ':';
    int k = 0;
    for (const kit_opt *o = spec; !is_end(o); o++) {
        if (!o->name)
            continue;
        int has = o->type == KIT_OPT_FLAG ? no_argument : o->optional ? optional_argument : required_argument;
        lo[k] = (struct option){o->name, has, NULL, VAL0 + k};
        ent[k] = o;
        if (o->short_name && ns + 3 < sizeof shorts) {
            shorts[ns++] = o->short_name;
            if (has == required_argument)
                shorts[ns++] = ':';
        }
        k++;
    }
    shorts[ns] = 0;

    /* optind = 0 restarts getopt completely (glibc, musl, the BSDs), so a
     * process may parse more than once (the unit tests, the fuzzers) */
    optind = 0;
    opterr = 0;
    int rc = 0;
    err[0] = 0;
    for (;;) {
        int c = getopt_long(argc, argv, shorts, lo, NULL);
        if (c == -1)
            break;
        int i = c - VAL0;
        if (c < VAL0) {
            /* a short letter: the entry that has it */
            i = -1;
            for (int j = 0; j < n && c != ':' && c != '?'; j++)
                if (ent[j]->short_name == c)
                    i = j;
        }
        if (i < 0 || i >= n) {
            refused(lo, ent, n, c, argv[optind > 1 ? optind - 1 : 1], err, errlen);
            rc = -1;
            break;
        }
        const kit_opt *o = ent[i];
        const char *val = optarg;
        char target[64];
        if (o->alias) {
            /* "name=value": the option it stands for, with that value */
            const char *eq = strchr(o->alias, '=');
            size_t tl = eq ? (size_t)(eq - o->alias) : 0;
            const kit_opt *t = NULL;
            if (eq && tl < sizeof target) {
                memcpy(target, o->alias, tl);
                target[tl] = 0;
                t = kit_opt_find(spec, target);
            }
            if (!t || t->alias) {
                snprintf(err, errlen, "--%s: its alias '%s' names no option of this program", o->name, o->alias);
                rc = -1;
                break;
            }
            o = t;
            val = eq + 1;
        }
        /* an optional value may also come as the next word, when that word
         * is not itself an option: getopt_long only takes --opt=V */
        if (o->optional && !val && optind < argc && strncmp(argv[optind], "--", 2) != 0)
            val = argv[optind++];
        kit_opt_val v;
        if (check_value(o, val, &v, err, errlen)) {
            rc = -1;
            break;
        }
        if (o->type == KIT_OPT_FILE_OUT)
            last[i] = val;
        rc = fn(ctx, o, &v, err, errlen);
        if (rc)
            break;
    }
    if (!rc && !(flags & KIT_OPT_OPERANDS) && optind < argc) {
        /* no positional arguments: a stray word (also one after --) is a
         * mistake worth stopping for */
        char w[300];
        kit_cli_escape(argv[optind], w, sizeof w);
        snprintf(err, errlen, "unexpected argument '%s' (see --help)", w);
        rc = -1;
    }
    if (!rc && outputs_distinct(ent, last, n, err, errlen))
        rc = -1;
    if (first)
        *first = optind;
    free(lo), free(ent), free(last);
    return rc < 0 ? -1 : rc;
}

/* Writes text from column `at`, wrapped at 100 columns, continuation lines
 * starting at column `indent`. */
static void wrap(FILE *f, const char *text, int at, int indent)
{
    const int width = 100;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        int len = (int)(p - w);
        if (!len)
            break;
        if (at > indent && at + 1 + len > width) {
            fprintf(f, "\n%*s", indent, "");
            at = indent;
        } else if (at > indent) {
            fputc(' ', f);
            at++;
        }
        fprintf(f, "%.*s", len, w);
        at += len;
    }
}

void kit_opt_help(FILE *f, const kit_opt *spec)
{
    enum { COL = 24 };
    for (const kit_opt *o = spec; !is_end(o); o++) {
        if (o->type == KIT_OPT_HEADING) {
            fprintf(f, "%s\n", o->help);
            continue;
        }
        if (o->hidden)
            continue;
        char left[96];
        int l = o->short_name ? snprintf(left, sizeof left, "  -%c, --%s", o->short_name, o->name)
                              : snprintf(left, sizeof left, "  --%s", o->name);
        if (o->type != KIT_OPT_FLAG && l > 0 && (size_t)l < sizeof left)
            snprintf(left + l, sizeof left - (size_t)l, o->optional ? " [%s]" : " %s", o->meta ? o->meta : "V");
        int at = fprintf(f, "%s", left);
        /* the text at column COL; a long left part puts it on the next line */
        if (at < COL)
            fprintf(f, "%*s", COL - at, "");
        else
            fprintf(f, "\n%*s", COL, "");
        char text[1200], same[200] = "";
        if (o->alias) {
            const char *eq = strchr(o->alias, '=');
            snprintf(same, sizeof same, "same as --%.*s %s%s", eq ? (int)(eq - o->alias) : 0, o->alias,
                     eq ? eq + 1 : "", o->help ? " " : "");
        }
        snprintf(text, sizeof text, "%s%s%s%s%s", same, o->help ? o->help : "", o->defval ? " [default: " : "",
                 o->defval ? o->defval : "", o->defval ? "]" : "");
        wrap(f, text, COL, COL);
        fputc('\n', f);
    }
}
