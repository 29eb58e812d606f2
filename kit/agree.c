/*
 * agree.c - every rank of an MPI binary runs the same configuration, or none
 * runs (issue 33, class 1).  A launch can give ranks different options (MPMD
 * `mpirun -n 1 A : -n 1 A'`, a per-rank wrapper, a setting exported on one
 * node only); each binary then describes its whole parsed configuration as
 * text (kit_agree_text: its options in spec order with their parsed
 * values; the TORUS_*, RA_* and OMP_NUM_THREADS settings;
 * what it derived, such as the table size) and kit_agree checks it.
 *
 * Steps: a 64-bit FNV-1a hash of the text; one allreduce of (h, ~h) with
 * MIN gives the least and the greatest hash; equal: done (the common case,
 * one small collective).  Otherwise the texts go to rank 0, which names the
 * first line (option or setting) where a rank differs from it, with both
 * values.  Its collectives are the MPI library's PMPI_ entries, as
 * ra_main's and ra_verify's, so an interposed collective library is never
 * entered for them.
 * Cost: one allreduce of 16 bytes; on a difference one gather of the texts.
 */
#include "kit_agree.h"
#include "kit_mpi.h"
#include "kit_opt.h"
#include "kit_settings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static uint64_t fnv(const char *s)
{
    return kit_digest(KIT_DIGEST_SEED, s, strlen(s));
}

/* text's line i ("key=value"), its key length and the whole line's length */
static const char *line_at(const char *t, int i, size_t *klen, size_t *len)
{
    for (; i > 0 && *t; i--) {
        const char *nl = strchr(t, '\n');
        t = nl ? nl + 1 : t + strlen(t);
    }
    if (!*t)
        return NULL;
    *len = strcspn(t, "\n");
    const char *eq = memchr(t, '=', *len);
    *klen = eq ? (size_t)(eq - t) : *len;
    return t;
}

/* whether text holds a line with this key */
static const char *find_key(const char *t, const char *key, size_t klen, size_t *len)
{
    size_t kl;
    for (int i = 0;; i++) {
        const char *l = line_at(t, i, &kl, len);
        if (!l)
            return NULL;
        if (kl == klen && !strncmp(l, key, klen))
            return l;
    }
}

/* "--mem" for an option line, "TORUS_NODES" for a setting, as named */
static void say_key(const char *l, size_t klen, char *out, size_t len)
{
    if (klen == 9 && !strncmp(l, "arguments", 9))
        snprintf(out, len, "their command lines");
    else if (!strncmp(l, "env ", 4))
        snprintf(out, len, "%.*s", (int)(klen - 4), l + 4);
    else if (!strncmp(l, "content --", 10))
        snprintf(out, len, "the content of --%.*s", (int)(klen - 10), l + 10);
    else if (!strncmp(l, "content ", 8))
        snprintf(out, len, "the content of %.*s", (int)(klen - 8), l + 8);
    else if (!strncmp(l, "derived ", 8))
        snprintf(out, len, "the %.*s it derived", (int)(klen - 8), l + 8);
    else
        snprintf(out, len, "--%.*s", (int)klen, l);
}

static void say_val(const char *l, size_t klen, size_t len, char *out, size_t olen)
{
    /* a file's value is its quoted path, size and digest: said whole */
    int content = l && !strncmp(l, "content ", 8);
    size_t cut = content ? 200 : 60;
    if (!l)
        snprintf(out, olen, "(not given)");
    else if (klen + 1 >= len)
        snprintf(out, olen, "'%s'", "on");
    else
        snprintf(out, olen, content ? "%.*s" : "'%.*s'", (int)(len - klen - 1 > cut ? cut : len - klen - 1),
                 l + klen + 1);
}

/* whether text b's line with key (klen bytes) differs from text a's */
static int key_differs(const char *a, const char *b, const char *key, size_t klen)
{
    size_t la = 0, lb = 0;
    const char *x = find_key(a, key, klen, &la), *y = find_key(b, key, klen, &lb);
    return !x != !y || (x && (la != lb || strncmp(x, y, la)));
}

/* rank 0: the ranks after r whose line with this key also differs from
 * rank 0's, appended to err as "; ranks 3, 5 too" (the first 16) */
static void more_ranks(const char *all, const int *disp, int P, int r, const char *key, size_t klen, char *err,
                       size_t errlen)
{
    size_t o = strlen(err);
    int n = 0;
    for (int q = r + 1; q < P && o < errlen; q++) {
        if (!key_differs(all, all + disp[q], key, klen))
            continue;
        int w = n < 16 ? snprintf(err + o, errlen - o, "%s%d", n ? ", " : "; also rank ", q)
                       : snprintf(err + o, errlen - o, n == 16 ? ", ..." : "");
        o += w > 0 ? (size_t)w : 0;
        n++;
    }
}

/* rank 0: the first line where rank r's text b differs from a; returns
 * its key (klen bytes, in a or b), or NULL when none is found */
static const char *first_difference(const char *a, const char *b, int r, size_t *klen, char *err, size_t errlen)
{
    size_t ka, la, kb, lb, l2;
    for (int i = 0;; i++) {
        const char *x = line_at(a, i, &ka, &la), *y = line_at(b, i, &kb, &lb);
        if (!x && !y)
            break;
        if (x && y && la == lb && !strncmp(x, y, la))
            continue;
        /* the key of the differing line, and each rank's value of it */
        const char *key = x ? x : y;
        size_t kl = x ? ka : kb;
        const char *in_a = find_key(a, key, kl, &la), *in_b = find_key(b, key, kl, &l2);
        if (x && y && kb != ka) {
            /* a key one rank has and the other not: name that one */
            if (find_key(b, x, ka, &l2)) {
                key = y, kl = kb;
                in_a = find_key(a, key, kl, &la), in_b = find_key(b, key, kl, &l2);
            }
        }
        char name[80], va[240], vb[240];
        say_key(key, kl, name, sizeof name);
        say_val(in_a, kl, in_a ? la : 0, va, sizeof va);
        say_val(in_b, kl, in_b ? l2 : 0, vb, sizeof vb);
        snprintf(err, errlen, "ranks disagree on %s: rank 0 has %s, rank %d has %s: allowed the same options, "
                              "settings and files on every rank",
                 name, va, r, vb);
        *klen = kl;
        return key;
    }
    snprintf(err, errlen, "ranks disagree on their configuration (rank 0 and rank %d): allowed the same options and "
                          "settings on every rank", r);
    return NULL;
}

int kit_agree(MPI_Comm comm, const char *text, char *err, size_t errlen)
{
    err[0] = 0;
    uint64_t h = fnv(text), v[2] = {h, ~h}, m[2];
    KIT_MPI_CHECK(KMPI_Allreduce(v, m, 2, MPI_UINT64_T, MPI_MIN, comm));
    if (m[0] == ~m[1])
        return 0;
    int rank, P;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &P));
    int len = (int)strlen(text) + 1;
    int *lens = rank ? NULL : malloc((size_t)P * sizeof *lens), *disp = rank ? NULL : malloc((size_t)P * sizeof *disp);
    KIT_MPI_CHECK(KMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm));
    char *all = NULL;
    if (!rank && lens && disp) {
        long total = 0;
        for (int r = 0; r < P; r++)
            disp[r] = (int)total, total += lens[r];
        all = malloc((size_t)total);
    }
    /* rank 0 short of memory still takes part, with nothing to compare */
    if (!rank && !all) {
        free(lens), free(disp);
        lens = calloc((size_t)P, sizeof *lens), disp = calloc((size_t)P, sizeof *disp);
    }
    KIT_MPI_CHECK(KMPI_Gatherv(text, len, MPI_CHAR, all, lens, disp, MPI_CHAR, 0, comm));
    if (!rank) {
        snprintf(err, errlen, "ranks disagree on their configuration: allowed the same options and settings on "
                              "every rank");
        for (int r = 1; all && r < P; r++)
            if (strcmp(all, all + disp[r])) {
                size_t kl = 0;
                const char *key = first_difference(all, all + disp[r], r, &kl, err, errlen);
                /* the key lives in one of the texts, which stay until freed */
                if (key)
                    more_ranks(all, disp, P, r, key, kl, err, errlen);
                break;
            }
    }
    free(all), free(lens), free(disp);
    return -2;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int agree_args(int argc, char **argv, char *buf, size_t len)
{
    size_t o = 0;
    int w = snprintf(buf, len, "arguments=");
    o = w > 0 ? (size_t)w : 0;
    for (int i = 1; i < argc && o < len; i++) {
        w = snprintf(buf + o, len - o, "%s%s", i > 1 ? " " : "", argv[i]);
        if (w < 0 || (size_t)w >= len - o)
            return -1;
        o += (size_t)w;
    }
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    if (o + 2 > len)
        return -1;
    buf[o++] = '\n', buf[o] = 0;
    return 0;
}

/* appends "content NAME=WHAT THE FILE HOLDS" at buf + *o */
static int put_content(char *buf, size_t *o, size_t len, const char *name, const char *path)
{
    char what[400];
    kit_digest_file(path, what, sizeof what);
    int w = snprintf(buf + *o, len - *o, "content %s=%s\n", name, what);
    if (w < 0 || (size_t)w >= len - *o)
        return -1;
    *o += (size_t)w;
    return 0;
}

static int agree_env(char *buf, size_t len)
{
    int n = 0;
    for (char **e = environ; *e; e++)
        n++;
    char **v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    int k = 0;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "TORUS_", 6) || !strncmp(*e, "RA_", 3) || !strncmp(*e, "OMP_NUM_THREADS=", 16))
            v[k++] = *e;
    qsort(v, (size_t)k, sizeof *v, cmp_str);
    size_t o = strlen(buf);
    int rc = 0;
    for (int i = 0; i < k && !rc; i++) {
        int w = snprintf(buf + o, len - o, "env %s\n", v[i]);
        if (w < 0 || (size_t)w >= len - o)
            rc = -1;
        else
            o += (size_t)w;
    }
    /* then what each file setting a program reads holds (TORUS_HOSTFILE,
     * TORUS_COLL_TABLE): the same path may name different copies */
    for (int i = 0; i < k && !rc; i++) {
        const char *eq = strchr(v[i], '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - v[i]), v[i]);
        const kit_setting_decl *d = kit_setting_find(name);
        if (!d || d->kind != KIT_SET_FILE || !eq[1] ||
            !(d->readers & (KIT_READ_LIBRARY | KIT_READ_ADAPTER | KIT_READ_HARNESS)))
            continue;
        rc = put_content(buf, &o, len, name, eq + 1);
    }
    free(v);
    return rc;
}

/* opt_canon's recording callback: each option's last value, by its
 * index in the spec */
typedef struct canon_ctx {
    const kit_opt *spec;
    char (*val)[128];
    char *given;
    const char **path; /* a KIT_OPT_FILE_IN option's file, as given */
} canon_ctx;

static int record(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    canon_ctx *c = ctx;
    long i = o - c->spec;
    char *out = c->val[i];
    switch (o->type) {
    case KIT_OPT_FLAG:
        snprintf(out, 128, "on");
        break;
    case KIT_OPT_LONG:
    case KIT_OPT_CHOICE:
        if (v->s)
            snprintf(out, 128, "%ld", v->l);
        else
            snprintf(out, 128, "on");
        break;
    case KIT_OPT_U64:
    case KIT_OPT_BYTES:
        snprintf(out, 128, "%llu", (unsigned long long)v->u);
        break;
    case KIT_OPT_DOUBLE:
        snprintf(out, 128, "%.17g", v->d);
        break;
    default:
        /* text: the bytes given; a long one by its hash beside its start */
        if (!v->s)
            snprintf(out, 128, "on");
        else if (strlen(v->s) < 100)
            snprintf(out, 128, "%s", v->s);
        else
            snprintf(out, 128, "%.60s...#%016llx", v->s, (unsigned long long)fnv(v->s));
        break;
    }
    /* a value holding a newline would split its line: keep one line */
    for (char *p = out; *p; p++)
        if (*p == '\n')
            *p = ' ';
    c->given[i] = 1;
    if (o->type == KIT_OPT_FILE_IN)
        c->path[i] = v->s;
    return 0;
}

static int opt_canon(const kit_opt *spec, int argc, char **argv, char *buf, size_t len)
{
    int n = 0;
    while (spec[n].name || spec[n].type == KIT_OPT_HEADING)
        n++;
    canon_ctx c = {spec, calloc((size_t)n + 1, sizeof *c.val), calloc((size_t)n + 1, 1),
                   calloc((size_t)n + 1, sizeof *c.path)};
    buf[0] = 0;
    if (!c.val || !c.given || !c.path) {
        free(c.val), free(c.given), free(c.path);
        return -1;
    }
    char err[400];
    int rc = kit_opt_parse(spec, argc, argv, 0, record, &c, NULL, err, sizeof err);
    size_t o = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!c.given[i] || !spec[i].name)
            continue;
        int w = snprintf(buf + o, len - o, "%s=%s\n", spec[i].name, c.val[i]);
        if (w < 0 || (size_t)w >= len - o)
            rc = -1;
        else
            o += (size_t)w;
    }
    /* what each file option's file holds, after the options themselves */
    for (int i = 0; i < n && rc == 0; i++)
        if (c.given[i] && c.path[i]) {
            char key[80];
            snprintf(key, sizeof key, "--%s", spec[i].name);
            rc = put_content(buf, &o, len, key, c.path[i]);
        }
    free(c.val), free(c.given), free(c.path);
    return rc == 0 ? 0 : -1;
}

void kit_agree_text(const kit_opt *spec, int argc, char **argv, char *buf, size_t len)
{
    /* a command line that does not parse (a typo, --help) is compared as given */
    if (opt_canon(spec, argc, argv, buf, len) && agree_args(argc, argv, buf, len))
        snprintf(buf, len, "arguments=too long to compare\n");
    size_t keep = strlen(buf);
    if (agree_env(buf, len))
        snprintf(buf + keep / 2, len - keep / 2, "\nenv settings too long to compare\n");
}
