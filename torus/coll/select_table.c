/*
 * select_table.c - the selection table's format: its parser, writer,
 * digest and matcher, for the compiled table (torus/coll/select.table,
 * select.c) and a file (TORUS_COLL_TABLE=FILE, written by `collbench
 * --tune`, used before it) alike; the format is in docs/collectives.md
 * ("Tuning").
 *
 * Rows have the columns op, ranks, dims, pow2, nodes, uniform, deposit,
 * library (version 2; version 1 files have none), bytes, algorithm, and
 * one rule: first row
 * that fits and whose algorithm's preconditions hold wins.  A call no row
 * fits is decided by the compiled table, so a file tuned at 2, 4 and 8
 * ranks leaves every other rank count as it was.
 *
 * Safety: the file is data only.  Lines are bounded (kit_lines: 512
 * bytes a line, 1 MiB a file, 4096 rows), every number is range-checked
 * (torus_cli), every word is compared against a fixed list or the
 * registry, and nothing from the file reaches a format string.  A bad
 * file is one line naming the file, the line and what is allowed, and the
 * compiled table is used.
 *
 * Every rank must pick alike: the table is part of what ranks must share.
 * Within one process (the simulators) every context sees the same table;
 * across processes the caller that owns the communicator agrees once
 * (torus_coll_table_use's id, compared in one allreduce by the MPI adapter
 * and collbench) and calls torus_coll_table_off on every rank when the
 * ids differ.
 */
#include "coll_impl.h"
#include "kit_agree.h"
#include "kit_settings.h"
#include "select_table.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_MAGIC "torus-coll-table 2"
#define MAX_LINE 512
#define MAX_FILE (1u << 20)
#define MAX_ROWS 4096
#define MAX_RANKS (1L << 24)

struct torus_coll_table {
    int n, cap;
    torus_coll_table_row *row;
    const torus__coll_alg **alg; /* row i's algorithm, found once (NULL: an mpi or flat row) */
    signed char *kind;           /* row i's torus_route_kind */
    char **note;                 /* row i's comment (why the row: the measurement), or NULL */
};

static const char *const op_words[TORUS_COLL_NCOLL] = {"barrier", "bcast", "allreduce", "alltoallv"};

torus_coll_table *torus_coll_table_new(void)
{
    return calloc(1, sizeof(torus_coll_table));
}

void torus_coll_table_free(torus_coll_table *t)
{
    if (!t)
        return;
    free(t->row);
    free(t->alg);
    free(t->kind);
    for (int i = 0; t->note && i < t->n; i++)
        free(t->note[i]);
    free(t->note);
    free(t);
}

int torus_coll_table_rows(const torus_coll_table *t)
{
    return t ? t->n : 0;
}

const torus_coll_table_row *torus_coll_table_row_at(const torus_coll_table *t, int i)
{
    return t && i >= 0 && i < t->n ? &t->row[i] : NULL;
}

/* 0, or -1 with the reason in err (no line number: the caller adds it). */
int torus_coll_table_add(torus_coll_table *t, const torus_coll_table_row *r, char *err, size_t errlen)
{
    if (r->op < 0 || r->op >= TORUS_COLL_NCOLL) {
        snprintf(err, errlen, "bad op: allowed barrier, bcast, allreduce or alltoallv");
        return -1;
    }
    /* "mpi": the MPI library's own call, "flat": the node's shared area
     * (no torus algorithm; alg NULL) */
    const torus__coll_alg *alg = torus__coll_find(r->op, r->algorithm);
    int kind = alg ? TORUS_ROUTE_TORUS
               : !strcmp(r->algorithm, TORUS_COLL_TABLE_LIBRARY) ? TORUS_ROUTE_LIBRARY
               : !strcmp(r->algorithm, TORUS_COLL_TABLE_FLAT)    ? TORUS_ROUTE_FLAT
                                                                  : -1;
    if (kind < 0) {
        char list[400] = "";
        size_t o = 0;
        const char *const *names = torus_coll_algorithms(r->op);
        for (int i = 0; names[i] && o < sizeof list; i++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", names[i]);
        char shown[80];
        kit_cli_escape(r->algorithm, shown, sizeof shown);
        snprintf(err, errlen, "unknown %s algorithm '%s': allowed %s, " TORUS_COLL_TABLE_LIBRARY " or "
                 TORUS_COLL_TABLE_FLAT, op_words[r->op], shown, list);
        return -1;
    }
    if (t->n == MAX_ROWS) {
        snprintf(err, errlen, "more than %d rows: allowed at most %d", MAX_ROWS, MAX_ROWS);
        return -1;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        torus_coll_table_row *nr = realloc(t->row, (size_t)cap * sizeof *nr);
        if (nr)
            t->row = nr;
        const torus__coll_alg **na = nr ? realloc(t->alg, (size_t)cap * sizeof *na) : NULL;
        if (na)
            t->alg = na;
        signed char *nk = na ? realloc(t->kind, (size_t)cap * sizeof *nk) : NULL;
        if (nk)
            t->kind = nk;
        char **nn = nk ? realloc(t->note, (size_t)cap * sizeof *nn) : NULL;
        if (!nn) {
            snprintf(err, errlen, "out of memory for the table's rows");
            return -1;
        }
        t->note = nn;
        t->cap = cap;
    }
    t->row[t->n] = *r;
    t->alg[t->n] = alg;
    t->kind[t->n] = (signed char)kind;
    t->note[t->n] = NULL;
    t->n++;
    return 0;
}

void torus_coll_table_drop(torus_coll_table *t, torus_coll_op op, int ranks)
{
    int k = 0;
    for (int i = 0; i < t->n; i++) {
        const torus_coll_table_row *r = &t->row[i];
        if (r->op == op && r->min_ranks == ranks && r->max_ranks == ranks) {
            free(t->note[i]);
            continue;
        }
        t->row[k] = t->row[i];
        t->alg[k] = t->alg[i];
        t->kind[k] = t->kind[i];
        t->note[k] = t->note[i];
        k++;
    }
    t->n = k;
}

void torus_coll_table_set_note(torus_coll_table *t, int i, const char *text)
{
    if (!t || i < 0 || i >= t->n)
        return;
    free(t->note[i]);
    t->note[i] = NULL;
    /* leading blanks skipped, cut, a control byte made a blank, trailing
     * blanks trimmed: what is kept reads back the same */
    char n[TORUS_COLL_NOTE_MAX + 1];
    size_t len = 0;
    while (text && *text && ((unsigned char)*text <= ' ' || *text == 127))
        text++;
    for (; text && text[len] && len < TORUS_COLL_NOTE_MAX; len++)
        n[len] = (unsigned char)text[len] < 32 || text[len] == 127 ? ' ' : text[len];
    while (len && n[len - 1] == ' ')
        len--;
    n[len] = 0;
    if (len)
        t->note[i] = strdup(n); /* out of memory: a comment only, the row stays */
}

const char *torus_coll_table_note(const torus_coll_table *t, int i)
{
    return t && i >= 0 && i < t->n && t->note[i] ? t->note[i] : "";
}

/* ---- reading ------------------------------------------------------------ */

/* "any", or a number in lo..hi (overflow-checked, digits only). */
static int word_num(const char *w, uint64_t lo, uint64_t hi, int64_t *out)
{
    if (!strcmp(w, "any")) {
        *out = -1;
        return 0;
    }
    if (*w < '0' || *w > '9')
        return -1;
    uint64_t v;
    if (kit_cli_u64(w, lo, hi, &v))
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* any | N | N-M | N-any, N <= M, each in lo..hi: into *a, *b (-1: none) */
static int word_range(char *w, uint64_t lo, uint64_t hi, int64_t *a, int64_t *b)
{
    if (!strcmp(w, "any")) {
        *a = *b = -1;
        return 0;
    }
    char *dash = strchr(w, '-');
    if (!dash) {
        if (word_num(w, lo, hi, a) || *a < 0)
            return -1;
        *b = *a;
        return 0;
    }
    *dash = 0;
    int bad = word_num(w, lo, hi, a) || *a < 0 || word_num(dash + 1, lo, hi, b);
    *dash = '-';
    return bad || (*b >= 0 && *b < *a) ? -1 : 0;
}

/* 0, 1 or any (-1) */
static int word_flag(const char *w, int *out)
{
    if (!strcmp(w, "0") || !strcmp(w, "1"))
        *out = w[0] - '0';
    else if (!strcmp(w, "any"))
        *out = -1;
    else
        return -1;
    return 0;
}

/* Version 2's columns; version 1 (no library column: any) is read too. */
enum { C_OP, C_RANKS, C_DIMS, C_POW2, C_NODES, C_UNIFORM, C_DEPOSIT, C_LIBRARY, C_BYTES, C_ALG, NCOLS };
static const char *const col_name[NCOLS] = {"op", "ranks", "dims", "pow2", "nodes", "uniform", "deposit", "library",
                                            "bytes", "algorithm"};
static const char *const lib_words[] = {"any", "mpich", "openmpi"}; /* -1, TORUS_COLL_LIB_MPICH, _OPENMPI */

/* any, mpich or openmpi */
static int word_library(const char *w, int *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(w, lib_words[i])) {
            *out = i ? i : -1;
            return 0;
        }
    return -1;
}

/* One row's words into r; -1 with "bad COLUMN 'WORD': allowed ..." */
static int parse_row(char **w, torus_coll_table_row *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int c = -1, op = -1;
    for (int i = 0; i < TORUS_COLL_NCOLL; i++)
        if (!strcmp(w[C_OP], op_words[i]))
            op = i;
    int64_t a, b;
    const char *allowed = NULL;
    if (op < 0)
        c = C_OP, allowed = "barrier, bcast, allreduce or alltoallv";
    else if (word_range(w[C_RANKS], 1, (uint64_t)MAX_RANKS, &a, &b))
        c = C_RANKS, allowed = "any, N, N-M or N-any with 1 <= N <= M <= 16777216";
    else {
        r->op = (torus_coll_op)op;
        r->min_ranks = (int)a, r->max_ranks = (int)b;
        int dims_bad = word_num(w[C_DIMS], 0, TORUS_MAX_DIMS, &a);
        r->min_dims = a < 0 ? 0 : (int)a;
        if (dims_bad)
            c = C_DIMS, allowed = "any or the least count of dimensions of size > 1, 0..24";
        else if (word_flag(w[C_POW2], &r->pow2))
            c = C_POW2, allowed = "0, 1 or any";
        else if (word_flag(w[C_NODES], &r->shared_nodes))
            c = C_NODES, allowed = "0, 1 or any";
        else if (word_flag(w[C_UNIFORM], &r->uniform))
            c = C_UNIFORM, allowed = "0, 1 or any";
        else if (word_flag(w[C_DEPOSIT], &r->deposit))
            c = C_DEPOSIT, allowed = "0, 1 or any";
        else if (word_library(w[C_LIBRARY], &r->library))
            c = C_LIBRARY, allowed = "any, mpich or openmpi";
        else if (word_range(w[C_BYTES], 0, (uint64_t)1 << 62, &a, &b))
            c = C_BYTES, allowed = "any, N, N-M or N-any with 0 <= N <= M <= 2^62";
        else if (strlen(w[C_ALG]) >= sizeof r->algorithm)
            c = C_ALG, allowed = "a registered algorithm of the op (collbench --help lists them), mpi or flat";
        else {
            r->min_bytes = a < 0 ? 0 : (uint64_t)a;
            r->max_bytes = b < 0 ? UINT64_MAX : (uint64_t)b;
            memcpy(r->algorithm, w[C_ALG], strlen(w[C_ALG]) + 1);
            return 0;
        }
    }
    char shown[80];
    kit_cli_escape(w[c], shown, sizeof shown);
    snprintf(err, errlen, "bad %s '%s': allowed %s", col_name[c], shown, allowed);
    return -1;
}

/* Splits line at blanks into at most max words; the count, or max + 1
 * when there are more. */
static int split(char *line, char **w, int max, char **comment)
{
    int n = 0;
    *comment = NULL;
    for (char *p = line; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            *p++ = 0;
        if (*p == '#') {
            *p = 0;
            *comment = p + 1;
            break;
        }
        if (!*p)
            break;
        if (n == max)
            return max + 1;
        w[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
            p++;
        if (*p == '#') {
            *p = 0;
            *comment = p + 1;
            break;
        }
    }
    return n;
}

static int read_lines(kit_lines *L, torus_coll_table *t, char *err, size_t errlen)
{
    char *line, e[400];
    int rc, version = 0;
    while ((rc = kit_lines_next(L, &line, e, sizeof e)) == 1) {
        char *w[NCOLS], *comment;
        int n = split(line, w, NCOLS, &comment);
        if (n == 0)
            continue;
        if (!version) {
            if (n != 2 || strcmp(w[0], "torus-coll-table") || (strcmp(w[1], "1") && strcmp(w[1], "2"))) {
                snprintf(err, errlen, "%s:%ld: not a selection table: allowed a first line '" TABLE_MAGIC
                         "' (or version 1)", L->name, L->lineno);
                return -1;
            }
            version = w[1][0] - '0';
            continue;
        }
        torus_coll_table_row r;
        int want = version == 1 ? NCOLS - 1 : NCOLS;
        if (n != want) {
            snprintf(err, errlen, "%s:%ld: %d words: allowed %d (op ranks dims pow2 nodes uniform deposit%s bytes "
                     "algorithm)", L->name, L->lineno, n > want ? want + 1 : n, want, version == 1 ? "" : " library");
            return -1;
        }
        char any[] = "any";
        if (version == 1) {
            /* no library column: any */
            for (int i = NCOLS - 1; i > C_LIBRARY; i--)
                w[i] = w[i - 1];
            w[C_LIBRARY] = any;
        }
        if (parse_row(w, &r, e, sizeof e) || torus_coll_table_add(t, &r, e, sizeof e)) {
            snprintf(err, errlen, "%s:%ld: %s", L->name, L->lineno, e);
            return -1;
        }
        /* a row's own comment is its note: kept when the table is written again */
        torus_coll_table_set_note(t, t->n - 1, comment);
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    if (!version) {
        snprintf(err, errlen, "%s: empty: allowed a first line '" TABLE_MAGIC "', then rows", L->name);
        return -1;
    }
    return 0;
}

int torus_coll_table_stream(torus_coll_table **out, FILE *f, const char *name, char *err, size_t errlen)
{
    kit_lines L;
    kit_lines_stream(&L, f, name, MAX_LINE, MAX_FILE);
    torus_coll_table *t = torus_coll_table_new();
    int rc = t ? read_lines(&L, t, err, errlen) : (snprintf(err, errlen, "out of memory"), -1);
    kit_lines_close(&L);
    if (rc) {
        torus_coll_table_free(t);
        t = NULL;
    }
    *out = t;
    return rc;
}

int torus_coll_table_read(torus_coll_table **out, const char *path, char *err, size_t errlen)
{
    kit_lines L;
    *out = NULL;
    if (kit_lines_open(&L, path, MAX_LINE, MAX_FILE, err, errlen))
        return -1;
    torus_coll_table *t = torus_coll_table_new();
    int rc = t ? read_lines(&L, t, err, errlen) : (snprintf(err, errlen, "out of memory"), -1);
    kit_lines_close(&L);
    if (rc)
        torus_coll_table_free(t);
    else
        *out = t;
    return rc;
}

/* ---- writing ------------------------------------------------------------ */

/* a..b (b < 0: no bound) as the file writes it */
static void put_range(FILE *f, int64_t a, int64_t b)
{
    char s[48];
    if (a <= 0 && b < 0)
        snprintf(s, sizeof s, "any");
    else if (a == b)
        snprintf(s, sizeof s, "%lld", (long long)a);
    else if (b < 0)
        snprintf(s, sizeof s, "%lld-any", (long long)a);
    else
        snprintf(s, sizeof s, "%lld-%lld", (long long)a, (long long)b);
    fprintf(f, " %-12s", s);
}

static const char *flag_word(int v)
{
    return v < 0 ? "any" : v ? "1" : "0";
}

void torus_coll_table_write(const torus_coll_table *t, FILE *f)
{
    fprintf(f, TABLE_MAGIC "\n");
    fprintf(f, "# %-9s %-12s %-4s %-4s %-5s %-7s %-7s %-7s %-12s %s\n", "op", "ranks", "dims", "pow2", "nodes",
            "uniform", "deposit", "library", "bytes", "algorithm");
    for (int i = 0; i < t->n; i++) {
        const torus_coll_table_row *r = &t->row[i];
        fprintf(f, "  %-9s", op_words[r->op]);
        put_range(f, r->min_ranks, r->max_ranks);
        fprintf(f, " %-4d %-4s %-5s %-7s %-7s %-7s", r->min_dims, flag_word(r->pow2), flag_word(r->shared_nodes),
                flag_word(r->uniform), flag_word(r->deposit), lib_words[r->library > 0 ? r->library : 0]);
        put_range(f, (int64_t)r->min_bytes, r->max_bytes == UINT64_MAX ? -1 : (int64_t)r->max_bytes);
        if (t->note[i])
            fprintf(f, " %-18s # %s\n", r->algorithm, t->note[i]);
        else
            fprintf(f, " %s\n", r->algorithm);
    }
}

/* The kit's digest over the rows' values (little-endian bytes), their
 * algorithm names and a 0xff after each row: equal tables, equal ids,
 * whatever the spacing or comments of their files.  Never 0 (the compiled
 * table's). */
uint64_t torus_coll_table_hash(const torus_coll_table *t)
{
    static const unsigned char end_of_row = 0xff;
    uint64_t h = KIT_DIGEST_SEED;
    for (int i = 0; t && i < t->n; i++) {
        const torus_coll_table_row *r = &t->row[i];
        int64_t v[11] = {r->op, r->min_ranks, r->max_ranks, r->min_dims, r->pow2, r->shared_nodes, r->uniform,
                         r->deposit, (int64_t)r->min_bytes, (int64_t)r->max_bytes, r->library};
        for (int k = 0; k < 11; k++) {
            unsigned char b[8];
            for (int j = 0; j < 8; j++)
                b[j] = (unsigned char)((uint64_t)v[k] >> (8 * j));
            h = kit_digest(h, b, sizeof b);
        }
        h = kit_digest(h, r->algorithm, strlen(r->algorithm));
        h = kit_digest(h, &end_of_row, 1);
    }
    return h ? h : 1;
}

/* ---- the process's table -------------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static torus_coll_table *active;
static uint64_t active_id;
static int off, reported;
static char load_err[700];

static void load(void)
{
    const char *path = kit_setting("TORUS_COLL_TABLE");
    if (!path || !*path)
        return;
    char e[560];
    if (torus_coll_table_read(&active, path, e, sizeof e)) {
        snprintf(load_err, sizeof load_err, "TORUS_COLL_TABLE: %s; the compiled table is used", e);
        active = NULL;
        return;
    }
    active_id = torus_coll_table_hash(active);
}

uint64_t torus_coll_table_use(char *msg, size_t len)
{
    pthread_once(&once, load);
    if (msg && len)
        msg[0] = 0;
    if (load_err[0] && !reported) {
        reported = 1;
        if (msg && len)
            snprintf(msg, len, "%s", load_err);
        else
            fprintf(stderr, "torus_coll: %s\n", load_err);
    }
    return off ? 0 : active_id;
}

void torus_coll_table_off(void)
{
    pthread_once(&once, load);
    off = 1;
}

/* The process's table (TORUS_COLL_TABLE), NULL when none or turned off. */
const torus_coll_table *torus__coll_table_active(void)
{
    torus_coll_table_use(NULL, 0);
    return off ? NULL : active;
}

/* The one matcher (route.c has the rules for mpi and flat rows): the
 * index of t's first row whose columns fit a on c and that can run, or
 * -1; -2 when, under TORUS__FIT_STOP, an mpi or flat row the caller
 * cannot make fits first. */
int torus__coll_table_fit(const torus_coll_table *t, const torus_coll *c, const torus__coll_args *a, int how)
{
    if (!t)
        return -1;
    int n = c->n, pow2 = n > 0 && (n & (n - 1)) == 0, dims = torus__coll_dims_over_one(&c->map->shape);
    int deposit = c->tp->line_send != NULL;
    for (int i = 0; i < t->n; i++) {
        const torus_coll_table_row *r = &t->row[i];
        if (r->op != a->op || (r->min_ranks >= 0 && n < r->min_ranks) || (r->max_ranks >= 0 && n > r->max_ranks) ||
            dims < r->min_dims || (r->pow2 >= 0 && r->pow2 != pow2) ||
            (r->shared_nodes >= 0 && r->shared_nodes != c->shared_nodes) ||
            (r->uniform >= 0 && r->uniform != a->uniform) || (r->deposit >= 0 && r->deposit != deposit) ||
            (r->library > 0 && r->library != c->library) || (uint64_t)a->bytes < r->min_bytes ||
            (uint64_t)a->bytes > r->max_bytes)
            continue;
        switch (t->kind[i]) {
        case TORUS_ROUTE_TORUS:
            if (t->alg[i]->ok(c, a))
                return i;
            break;
        case TORUS_ROUTE_LIBRARY:
            if (how & TORUS__FIT_CALLS)
                return i;
            if (how & TORUS__FIT_STOP)
                return -2;
            break;
        default: /* flat: alltoallv's only for uniform blocks */
            if ((how & TORUS__FIT_CALLS) && (how & TORUS__FIT_FLAT) && (a->op != TORUS_COLL_ALLTOALLV || a->uniform))
                return i;
            if ((how & TORUS__FIT_STOP) && !(how & TORUS__FIT_CALLS))
                return -2;
            break;
        }
    }
    return -1;
}

/* The last byte figure from `bytes` on at which no row of op in t starts
 * or stops fitting: the route found at `bytes` holds up to it. */
uint64_t torus__coll_table_break(const torus_coll_table *t, torus_coll_op op, uint64_t bytes)
{
    uint64_t hi = UINT64_MAX;
    for (int i = 0; t && i < t->n; i++) {
        const torus_coll_table_row *r = &t->row[i];
        if (r->op != op)
            continue;
        if (r->min_bytes > bytes && r->min_bytes - 1 < hi)
            hi = r->min_bytes - 1;
        if (r->max_bytes >= bytes && r->max_bytes < hi)
            hi = r->max_bytes;
    }
    return hi;
}

const torus__coll_alg *torus__coll_table_alg(const torus_coll_table *t, int i)
{
    return t->alg[i];
}

int torus__coll_table_kind(const torus_coll_table *t, int i)
{
    return t->kind[i];
}
