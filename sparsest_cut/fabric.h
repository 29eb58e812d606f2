/*
 * fabric.h - what the readers of a real machine's files share (internal to
 * sparsest_cut/): a table of named nodes, the links between them as the
 * file lists them, and the one step that turns both into sc_edges, so the
 * rules of duplicates and ports live in one place (fabric.c).  Also the
 * one error line of every reader, "FILE:LINE: what was expected", and
 * the stream/path plumbing every reader goes through (graph_io.c).
 */
#ifndef SC_FABRIC_H
#define SC_FABRIC_H

#include "sparsest_cut.h"
#include "kit_io.h"

/* One error line, "FILE:LINE: ...", then `goto out` (the reader keeps L,
 * err, errlen and rc in scope). */
#define SC_FAIL(...)                                                                                                   \
    do {                                                                                                               \
        int o_ = snprintf(err, errlen, "%s:%ld: ", L.name, L.lineno);                                                  \
        if (o_ > 0 && (size_t)o_ < errlen)                                                                             \
            snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__);                                                      \
        rc = -2;                                                                                                       \
        goto out;                                                                                                      \
    } while (0)

/* A token of the user's file, escaped and cut for a one-line message. */
const char *sc__esc(const char *t, char *buf, size_t len);

/* A reader of one format over an open line source. */
typedef int (*sc__reader)(kit_lines *L, long max_nodes, sc_edges *e, char *err, size_t errlen);
int sc__read_stream(sc__reader read, size_t line_max, FILE *f, const char *name, long max_nodes, sc_edges *e,
                    char *err, size_t errlen);
int sc__read_path(sc__reader read, size_t line_max, const char *path, sc_edges *e, char *err, size_t errlen);
/* A format's two public entries, sc_read_NAME_stream and sc_read_NAME,
 * over its reader READ with lines of LINE_MAX bytes. */
#define SC_READER_ENTRIES(NAME, READ, LINE_MAX)                                                                        \
    int sc_read_##NAME##_stream(FILE *f, const char *name, long max_nodes, sc_edges *e, char *err, size_t errlen)      \
    {                                                                                                                  \
        return sc__read_stream(READ, LINE_MAX, f, name, max_nodes, e, err, errlen);                                    \
    }                                                                                                                  \
    int sc_read_##NAME(const char *path, sc_edges *e, char *err, size_t errlen)                                        \
    {                                                                                                                  \
        return sc__read_path(READ, LINE_MAX, path, e, err, errlen);                                                    \
    }

/* A link as the file lists it: node a's port pa to node b's port pb (ports
 * -1 where the format has none), capacity c, from line `line`. */
typedef struct sc_flink {
    int a, pa, b, pb;
    double c;
    long line;
} sc_flink;

typedef struct sc_fabric {
    int n, room;
    char **name;
    double *w;        /* endpoints: 1 a host (CA, Slurm node), 0 a switch or router */
    char *kind;       /* the format's letter: 'S' switch, 'H' host, 'R' router */
    long *defined_at; /* the line that describes the node, 0 while only named */
    long *named_at;   /* the first line that names it */
    int *slot;        /* open addressing over names: node id or -1 */
    size_t slots;
    sc_flink *l;
    size_t nl, lroom;
} sc_fabric;

void sc__fabric_init(sc_fabric *f);
void sc__fabric_free(sc_fabric *f);
/* The node called name, added (kind '?', w 0, defined_at 0) if new:
 * its id, or -3 out of memory, or -2 past max_nodes. */
int sc__fabric_node(sc_fabric *f, const char *name, long line, long max_nodes);
int sc__fabric_link(sc_fabric *f, sc_flink l); /* 0 or -3 */
/* The edges: every node named must be described (else -2: the line naming
 * it); a link listed twice, from both ends or twice from one, counts once
 * (the two listings must agree on capacity); with ports, a port leads to
 * one peer only; parallel cables between two nodes add up (sc_graph_build
 * merges them).  Self-loops carry nothing across a cut and are dropped.
 * 0, -2 or -3 with one line in err. */
int sc__fabric_edges(sc_fabric *f, const char *fname, sc_edges *e, char *err, size_t errlen);

/* Expands a Slurm hostlist expression ("tux[0-3,12],sw1,rack[1-2]n[01-04]")
 * calling each(ctx, name) for every name in order: 0, the callback's
 * non-zero value, or -2 with one line (without the file's prefix) in err.
 * At most max names in all. */
int sc__hostlist(const char *expr, long max, int (*each)(void *ctx, const char *name), void *ctx, char *err,
                 size_t errlen);

/* Slurm's lines may list thousands of nodes, and hostlists keep them short:
 * a line of a MiB is a generous bound, still refused in one line above it. */
#define SLURM_LINE_MAX (1 << 20)

/* A Slurm switch with its children (either hostlist may be NULL), each
 * pair one link of capacity speed; shared by topology.conf and
 * topology.yaml.  0, or -2 / -3 with one line (without the file's
 * prefix) in err. */
int sc__slurm_switch(sc_fabric *f, long line, long max_nodes, const char *sw, const char *nodes,
                     const char *switches, double speed, char *err, size_t errlen);
#endif
