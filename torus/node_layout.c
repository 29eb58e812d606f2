/*
 * node_layout.c - an emulated node layout (issue 25 item 3: several nodes
 * on one machine), read from the environment instead of asking MPI which
 * ranks share memory: TORUS_NODES=k splits the ranks into k nodes of
 * consecutive ranks, TORUS_HOSTFILE=FILE names each rank's host (ranks
 * with the same name share a node).  Pure functions, no MPI: node.c
 * applies the result and checks that the ranks agree on it.
 */
#include "torus.h"
#include "kit_settings.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <stdlib.h>
#include <string.h>

/* A strict decimal integer 1..max, else 0. */
static long parse_count(const char *v, long max)
{
    long n = 0;
    if (!*v)
        return 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        n = n * 10 + (*p - '0');
        if (n > max)
            return 0;
    }
    return n;
}

/* "1, 2, 4" - the divisors of n, cut short with "..." when they do not fit. */
static void divisors(int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int d = 1; d <= n && o < len; d++) {
        if (n % d)
            continue;
        int w = snprintf(buf + o, len - o, "%s%d", o ? ", " : "", d);
        if (w < 0 || (size_t)w >= len - o) {
            if (len > 4)
                memcpy(buf + (o < len - 4 ? o : len - 4), "...", 4);
            return;
        }
        o += (size_t)w;
    }
}

static int nodes_layout(const char *v, int nranks, int *node_of, char *err, size_t errlen)
{
    char shown[100], divs[200];
    kit_cli_escape(v, shown, sizeof shown);
    divisors(nranks, divs, sizeof divs);
    long k = parse_count(v, nranks);
    if (!k || nranks % k) {
        snprintf(err, errlen, "TORUS_NODES=%s: the %d ranks do not split evenly into that many nodes: allowed %s", shown,
                 nranks, divs);
        return -2;
    }
    int per = nranks / (int)k;
    for (int r = 0; r < nranks; r++)
        node_of[r] = r / per;
    return 0;
}

typedef struct {
    const char *name;
    int rank;
} host_slot;

static int by_name_rank(const void *pa, const void *pb)
{
    const host_slot *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* Trims blanks and a CR; NULL for a blank or comment line. */
static char *host_of(char *line)
{
    char *h = line + strspn(line, " \t\r");
    if (!*h || *h == '#')
        return NULL;
    size_t n = strlen(h);
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\t' || h[n - 1] == '\r'))
        h[--n] = 0;
    return h;
}

static int host_ok(const char *h)
{
    size_t n = strlen(h);
    if (n > TORUS_HOST_NAME_MAX)
        return 0;
    for (const char *p = h; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '-' || *p == '_'))
            return 0;
    return 1;
}

/* Every name into one arena (they are small; the file's size bounds it). */
static int read_hosts(kit_lines *L, int nranks, char *arena, size_t cap, host_slot *slots, char *err, size_t errlen)
{
    char *line;
    int got, n = 0;
    size_t used = 0;
    while ((got = kit_lines_next(L, &line, err, errlen)) > 0) {
        char *h = host_of(line);
        if (!h)
            continue;
        if (!host_ok(h)) {
            char shown[100];
            kit_cli_escape(h, shown, sizeof shown);
            snprintf(err, errlen, "%s:%ld: bad host name '%s': allowed letters, digits, '.', '-' and '_', at most %d",
                     L->name, L->lineno, shown, TORUS_HOST_NAME_MAX);
            return -2;
        }
        if (n == nranks) {
            snprintf(err, errlen, "%s:%ld: more host lines than the %d ranks: allowed one line per rank", L->name,
                     L->lineno, nranks);
            return -2;
        }
        size_t len = strlen(h) + 1;
        if (len > cap - used) { /* cannot happen: see hosts_lines */
            snprintf(err, errlen, "%s: out of memory", L->name);
            return -3;
        }
        memcpy(arena + used, h, len);
        slots[n].name = arena + used;
        slots[n].rank = n;
        used += len;
        n++;
    }
    if (got < 0)
        return got;
    if (n != nranks) {
        snprintf(err, errlen, "%s: has %d host lines but there are %d ranks: allowed one line per rank", L->name, n,
                 nranks);
        return -2;
    }
    return 0;
}

/* Reads L to the end and closes it; node_of as torus_hosts_stream's. */
static int hosts_lines(kit_lines *L, int *node_of, int nranks, char *err, size_t errlen)
{
    /* at most nranks names are kept, each of at most TORUS_HOST_NAME_MAX
     * bytes, and no more than the file holds */
    size_t cap = (size_t)(nranks > 0 ? nranks : 1) * (TORUS_HOST_NAME_MAX + 1);
    if (cap > (size_t)TORUS_HOSTS_MAX_BYTES + 1)
        cap = (size_t)TORUS_HOSTS_MAX_BYTES + 1;
    char *arena = malloc(cap);
    host_slot *slots = malloc((size_t)(nranks > 0 ? nranks : 1) * sizeof *slots);
    int rc = -3;
    if (!arena || !slots)
        snprintf(err, errlen, "%s: out of memory", L->name);
    else
        rc = read_hosts(L, nranks, arena, cap, slots, err, errlen);
    kit_lines_close(L);
    if (!rc) {
        /* node_of[r] = the lowest rank on r's host, then the node's number:
         * how many nodes have a smaller lowest rank (that rank comes first) */
        qsort(slots, (size_t)nranks, sizeof *slots, by_name_rank);
        for (int i = 0, lead = 0; i < nranks; i++) {
            if (!i || strcmp(slots[i].name, slots[i - 1].name))
                lead = slots[i].rank;
            node_of[slots[i].rank] = lead;
        }
        for (int r = 0, nn = 0; r < nranks; r++)
            node_of[r] = node_of[r] == r ? nn++ : node_of[node_of[r]];
    }
    free(slots);
    free(arena);
    return rc;
}

int torus_hosts_stream(int *node_of, int nranks, FILE *f, const char *name, char *err, size_t errlen)
{
    kit_lines L;
    kit_lines_stream(&L, f, name, TORUS_HOSTS_LINE_MAX, TORUS_HOSTS_MAX_BYTES);
    return hosts_lines(&L, node_of, nranks, err, errlen);
}

int torus_hosts_file(int *node_of, int nranks, const char *path, char *err, size_t errlen)
{
    kit_lines L;
    if (kit_lines_open(&L, path, TORUS_HOSTS_LINE_MAX, TORUS_HOSTS_MAX_BYTES, err, errlen)) {
        /* a path that is not a regular file already says what is allowed */
        size_t l = strlen(err);
        if (L.open_errno)
            snprintf(err + l, errlen - l, ": allowed a file of one host name per rank");
        return -2;
    }
    return hosts_lines(&L, node_of, nranks, err, errlen);
}

int torus_node_override(int nranks, int **node_of, char *err, size_t errlen)
{
    const char *k = kit_setting("TORUS_NODES"), *hf = kit_setting("TORUS_HOSTFILE");
    k = k && *k ? k : NULL;
    hf = hf && *hf ? hf : NULL;
    *node_of = NULL;
    if (!k && !hf)
        return 0;
    if (k && hf) {
        snprintf(err, errlen, "TORUS_NODES and TORUS_HOSTFILE both set: allowed one of them");
        return -2;
    }
    int *v = malloc((size_t)(nranks > 0 ? nranks : 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory for the node layout of %d ranks", nranks);
        return -3;
    }
    int rc;
    if (k) {
        rc = nodes_layout(k, nranks, v, err, errlen);
    } else {
        char e[600];
        rc = torus_hosts_file(v, nranks, hf, e, sizeof e);
        if (rc)
            snprintf(err, errlen, "TORUS_HOSTFILE: %s", e);
    }
    if (rc) {
        free(v);
        return rc;
    }
    *node_of = v;
    return 1;
}
