/*
 * fabric.c - the named nodes and listed links of a real machine's file
 * (ibnetdiscover, Slurm topology.conf / topology.yaml) turned into
 * sc_edges.  The rules every such reader shares live here: which listings
 * are one link, which are two cables, and which are a contradiction.
 */
#include "fabric.h"
#include "kit_agree.h"
#include "kit_cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *sc__esc(const char *t, char *buf, size_t len)
{
    kit_cli_escape(t, buf, len);
    return buf;
}

void sc__fabric_init(sc_fabric *f)
{
    memset(f, 0, sizeof *f);
}

void sc__fabric_free(sc_fabric *f)
{
    for (int i = 0; f->name && i < f->n; i++)
        free(f->name[i]);
    free(f->name);
    free(f->w);
    free(f->kind);
    free(f->defined_at);
    free(f->named_at);
    free(f->slot);
    free(f->l);
    memset(f, 0, sizeof *f);
}

static uint64_t hash_name(const char *s)
{
    return kit_digest(KIT_DIGEST_SEED, s, strlen(s));
}

/* The slot table at twice the room, refilled: 0 or -3. */
static int rehash(sc_fabric *f, size_t slots)
{
    int *s = malloc(slots * sizeof *s);
    if (!s)
        return -3;
    for (size_t i = 0; i < slots; i++)
        s[i] = -1;
    for (int id = 0; id < f->n; id++) {
        size_t at = (size_t)(hash_name(f->name[id]) & (slots - 1));
        while (s[at] >= 0)
            at = (at + 1) & (slots - 1);
        s[at] = id;
    }
    free(f->slot);
    f->slot = s;
    f->slots = slots;
    return 0;
}

/* Room for one more node in every per-node array: 0 or -3. */
static int grow_nodes(sc_fabric *f)
{
    if (f->n < f->room)
        return 0;
    int room = f->room ? 2 * f->room : 64;
    char **nn = realloc(f->name, (size_t)room * sizeof *nn);
    if (nn)
        f->name = nn;
    double *nw = realloc(f->w, (size_t)room * sizeof *nw);
    if (nw)
        f->w = nw;
    char *nk = realloc(f->kind, (size_t)room);
    if (nk)
        f->kind = nk;
    long *nd = realloc(f->defined_at, (size_t)room * sizeof *nd);
    if (nd)
        f->defined_at = nd;
    long *nr = realloc(f->named_at, (size_t)room * sizeof *nr);
    if (nr)
        f->named_at = nr;
    if (!nn || !nw || !nk || !nd || !nr)
        return -3;
    f->room = room;
    return 0;
}

int sc__fabric_node(sc_fabric *f, const char *name, long line, long max_nodes)
{
    if (2 * ((size_t)f->n + 1) > f->slots && rehash(f, f->slots ? 2 * f->slots : 256))
        return -3;
    size_t at = (size_t)(hash_name(name) & (f->slots - 1));
    for (; f->slot[at] >= 0; at = (at + 1) & (f->slots - 1))
        if (!strcmp(f->name[f->slot[at]], name))
            return f->slot[at];
    if (f->n >= max_nodes)
        return -2;
    if (grow_nodes(f))
        return -3;
    char *copy = strdup(name);
    if (!copy)
        return -3;
    int id = f->n++;
    f->name[id] = copy;
    f->w[id] = 0;
    f->kind[id] = '?';
    f->defined_at[id] = 0;
    f->named_at[id] = line;
    f->slot[at] = id;
    return id;
}

int sc__fabric_link(sc_fabric *f, sc_flink l)
{
    if (f->nl == f->lroom) {
        size_t room = f->lroom ? 2 * f->lroom : 256;
        sc_flink *nl = realloc(f->l, room * sizeof *nl);
        if (!nl)
            return -3;
        f->l = nl;
        f->lroom = room;
    }
    /* one orientation for both listings of a link: the lower end first */
    if (l.b < l.a || (l.b == l.a && l.pb < l.pa)) {
        int t = l.a, tp = l.pa;
        l.a = l.b, l.pa = l.pb;
        l.b = t, l.pb = tp;
    }
    f->l[f->nl++] = l;
    return 0;
}

static int cmp_link(const void *x, const void *y)
{
    const sc_flink *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->pa != q->pa)
        return p->pa < q->pa ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    if (p->pb != q->pb)
        return p->pb < q->pb ? -1 : 1;
    return p->line < q->line ? -1 : p->line > q->line;
}

/* One end of a kept link: (node, port) and the line that listed it. */
typedef struct link_end {
    int node, port;
    long line;
} link_end;

static int cmp_end(const void *x, const void *y)
{
    const link_end *p = x, *q = y;
    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    if (p->port != q->port)
        return p->port < q->port ? -1 : 1;
    return p->line < q->line ? -1 : p->line > q->line;
}

/* Every port of the kept links leads to one peer: 0, or -2 naming the
 * port and the two lines that give it two. */
static int ports_unique(const sc_fabric *f, size_t kept, const char *fname, char *err, size_t errlen)
{
    link_end *e = malloc((2 * kept + 1) * sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory reading '%s'", fname);
        return -3;
    }
    for (size_t i = 0; i < kept; i++) {
        e[2 * i] = (link_end){f->l[i].a, f->l[i].pa, f->l[i].line};
        e[2 * i + 1] = (link_end){f->l[i].b, f->l[i].pb, f->l[i].line};
    }
    qsort(e, 2 * kept, sizeof *e, cmp_end);
    int rc = 0;
    for (size_t i = 1; i < 2 * kept && !rc; i++)
        if (e[i].node == e[i - 1].node && e[i].port == e[i - 1].port) {
            char esc[300];
            snprintf(err, errlen, "%s:%ld: port [%d] of %s is cabled to a second peer (the first at line %ld): allowed "
                                  "one cable per port",
                     fname, e[i].line, e[i].port, sc__esc(f->name[e[i].node], esc, sizeof esc), e[i - 1].line);
            rc = -2;
        }
    free(e);
    return rc;
}

/* Sorts the links, keeps one of each listing of a link: the count kept,
 * or -2 when two listings of one link disagree on its capacity. */
static long dedupe(sc_fabric *f, const char *fname, char *err, size_t errlen)
{
    if (f->nl)
        qsort(f->l, f->nl, sizeof *f->l, cmp_link);
    size_t kept = 0;
    for (size_t i = 0; i < f->nl; i++) {
        sc_flink *p = kept ? &f->l[kept - 1] : NULL, *q = &f->l[i];
        if (p && p->a == q->a && p->pa == q->pa && p->b == q->b && p->pb == q->pb) {
            if (p->c != q->c) {
                char e1[300], e2[300];
                snprintf(err, errlen, "%s:%ld: the link %s - %s has capacity %g here and %g at line %ld: allowed "
                                      "the same link speed from both ends",
                         fname, q->line, sc__esc(f->name[q->a], e1, sizeof e1),
                         sc__esc(f->name[q->b], e2, sizeof e2), q->c, p->c, p->line);
                return -2;
            }
            continue;
        }
        f->l[kept++] = *q;
    }
    return (long)kept;
}

int sc__fabric_edges(sc_fabric *f, const char *fname, sc_edges *e, char *err, size_t errlen)
{
    char esc[300];
    for (int i = 0; i < f->n; i++)
        if (!f->defined_at[i]) {
            snprintf(err, errlen, "%s:%ld: %s is named here but the file does not describe it: allowed names of "
                                  "nodes the file describes",
                     fname, f->named_at[i], sc__esc(f->name[i], esc, sizeof esc));
            return -2;
        }
    long kept = dedupe(f, fname, err, errlen);
    if (kept < 0)
        return -2;
    int rc = f->nl && f->l[0].pa >= 0 ? ports_unique(f, (size_t)kept, fname, err, errlen) : 0;
    if (rc)
        return rc;
    if (f->n < 2 || kept == 0) {
        snprintf(err, errlen, "%s: no links found: allowed a file with at least one link", fname);
        return -2;
    }
    if (sc_edges_init(e, f->n, 0)) {
        snprintf(err, errlen, "out of memory reading '%s'", fname);
        return -3;
    }
    for (int i = 0; i < f->n; i++)
        e->w[i] = f->w[i];
    e->names = f->name; /* the names go with the graph, for its messages */
    f->name = NULL;
    f->n = 0;
    for (long i = 0; i < kept; i++)
        if (f->l[i].a != f->l[i].b && sc_edges_add(e, f->l[i].a, f->l[i].b, f->l[i].c)) {
            sc_edges_free(e);
            snprintf(err, errlen, "out of memory reading '%s'", fname);
            return -3;
        }
    return 0;
}
