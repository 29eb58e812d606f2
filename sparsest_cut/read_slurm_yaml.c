/*
 * read_slurm_yaml.c - Slurm's topology.yaml, read as it is: a list of
 * topologies, each "topology: NAME", "cluster_default: true|false" and
 * one of "tree:" (switches: a list of "switch: NAME" with "children:
 * HOSTLIST" and/or "nodes: HOSTLIST"), "block:" (block_sizes, blocks) or
 * "flat: true".  The subset of YAML that file uses is read here line by
 * line (block mappings and sequences, quoted or plain scalars, '#'
 * comments), so no YAML library is needed.
 *
 * The graph is the tree topology marked cluster_default, else the first
 * tree: a block or flat topology names no links, and is refused when it
 * is all the file has.  Switches and nodes as in topology.conf
 * (read_slurm.c), each link of capacity 1 (the file gives no speed).
 */
#include "fabric.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TOPOLOGIES 64

/* One switch item while its keys are read. */
typedef struct sw_item {
    char name[256], nodes[SLURM_LINE_MAX / 4], children[SLURM_LINE_MAX / 4];
    int has_nodes, has_children;
    long line;
} sw_item;

typedef struct topo {
    char type;    /* 't' tree, 'b' block, 'f' flat, 0 none yet */
    int deflt;    /* cluster_default: true */
    long line;
    sc_fabric f;
} topo;

typedef struct yaml_state {
    topo t[MAX_TOPOLOGIES];
    int nt;
    sw_item *sw;  /* the open switch item, or none (name empty) */
    int in_blocks; /* inside "blocks:" or "block_sizes:" of a block topology */
} yaml_state;

/* A scalar: quotes removed, in place; NULL for a flow collection. */
static char *scalar(char *v)
{
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        v[n - 1] = 0;
        return v + 1;
    }
    return v[0] == '[' || v[0] == '{' ? NULL : v;
}

/* '#' at the start or after a blank opens a comment (YAML's rule);
 * trailing blanks go. */
static void strip_comment(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
            *p = 0;
            break;
        }
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
}

/* The open switch item into its topology's fabric: 0, or -2 / -3 with one
 * line naming the item's line. */
static int flush_switch(yaml_state *y, const char *fname, long max_nodes, char *err, size_t errlen)
{
    sw_item *s = y->sw;
    if (!s->name[0])
        return 0;
    char e2[400];
    int rc = sc__slurm_switch(&y->t[y->nt - 1].f, s->line, max_nodes, s->name, s->has_nodes ? s->nodes : NULL,
                              s->has_children ? s->children : NULL, 1.0, e2, sizeof e2);
    if (rc)
        snprintf(err, errlen, "%s:%ld: %s", fname, s->line, rc == -3 ? "out of memory" : e2);
    memset(s, 0, sizeof *s);
    return rc;
}

/* The tree the graph comes from: its index, or -1. */
static int chosen(const yaml_state *y)
{
    for (int i = 0; i < y->nt; i++)
        if (y->t[i].type == 't' && y->t[i].deflt)
            return i;
    for (int i = 0; i < y->nt; i++)
        if (y->t[i].type == 't')
            return i;
    return -1;
}

/* One "key: value" of the current topology (y->t[y->nt - 1]): 0, or an
 * error's text (without the file's prefix) in err and -2 / -3. */
static int take_key(yaml_state *y, const char *fname, long line, long max_nodes, int item, const char *key,
                    char *val, char *err, size_t errlen)
{
    topo *t = &y->t[y->nt - 1];
    char *v = scalar(val);
    if (!strcmp(key, "cluster_default")) {
        if (!v || (strcmp(v, "true") && strcmp(v, "false")))
            return snprintf(err, errlen, "cluster_default: allowed true or false"), -2;
        t->deflt = !strcmp(v, "true");
    } else if ((!strcmp(key, "tree") || !strcmp(key, "flat") || (!strcmp(key, "block") && !item)) && !t->type) {
        if (!strcmp(key, "flat") ? !v || strcmp(v, "true") : *val)
            return snprintf(err, errlen, "%s: allowed '%s'", key, !strcmp(key, "flat") ? "flat: true" : "tree:' or 'block:' alone, its fields below"), -2;
        t->type = key[0];
        y->in_blocks = 0;
    } else if (!strcmp(key, "tree") || !strcmp(key, "flat") || (!strcmp(key, "block") && !item)) {
        return snprintf(err, errlen, "'%s:' in a topology already of a type: allowed one of tree, block, flat", key), -2;
    } else if (t->type == 't' && !strcmp(key, "switches") && !*val) {
        /* the list follows */
    } else if (t->type == 't' && !strcmp(key, "switch") && item && v && *v) {
        int rc = flush_switch(y, fname, max_nodes, err, errlen);
        if (rc)
            return rc;
        if (strlen(v) >= sizeof y->sw->name)
            return snprintf(err, errlen, "switch name longer than 255 characters"), -2;
        snprintf(y->sw->name, sizeof y->sw->name, "%s", v);
        y->sw->line = line;
    } else if (t->type == 't' && (!strcmp(key, "nodes") || !strcmp(key, "children"))) {
        int nodes = key[0] == 'n';
        if (!y->sw->name[0] || item)
            return snprintf(err, errlen, "'%s:' outside a switch: allowed under '- switch: NAME'", key), -2;
        if (!v || !*v)
            return snprintf(err, errlen, "%s: allowed a hostlist string such as node[01-16]", key), -2;
        if (nodes ? y->sw->has_nodes : y->sw->has_children)
            return snprintf(err, errlen, "'%s:' given twice for one switch: allowed once", key), -2;
        if (strlen(v) >= sizeof y->sw->nodes)
            return snprintf(err, errlen, "%s: longer than %zu characters", key, sizeof y->sw->nodes - 1), -2;
        snprintf(nodes ? y->sw->nodes : y->sw->children, sizeof y->sw->nodes, "%s", v);
        *(nodes ? &y->sw->has_nodes : &y->sw->has_children) = 1;
    } else if (t->type == 'b' && (!strcmp(key, "block_sizes") || !strcmp(key, "blocks") ||
                                  (item && !strcmp(key, "block")) || !strcmp(key, "nodes"))) {
        y->in_blocks = 1; /* a block topology names no links: read, not used */
    } else {
        char esc[100];
        return snprintf(err, errlen, "'%s:' here: allowed topology, cluster_default, tree (switches: switch, "
                                     "children, nodes), block (block_sizes, blocks: block, nodes) or flat",
                        sc__esc(key, esc, 60)), -2;
    }
    return 0;
}

static int read_slurm_yaml(kit_lines *Lp, long max_nodes, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L = *Lp;
    char *line, esc[300], e2[400];
    int rc = 0, got;
    yaml_state *y = calloc(1, sizeof *y);
    if (y && !(y->sw = calloc(1, sizeof *y->sw))) {
        free(y);
        y = NULL;
    }
    if (!y) {
        snprintf(err, errlen, "out of memory reading '%s'", L.name);
        *Lp = L;
        return -3;
    }
    while ((got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        strip_comment(line);
        char *s = line;
        while (*s == ' ')
            s++;
        if (*s == '\t')
            SC_FAIL("a tab in the indentation: allowed spaces (YAML)");
        if (!*s || !strcmp(s, "---") || !strcmp(s, "..."))
            continue;
        int item = s[0] == '-' && (s[1] == ' ' || !s[1]);
        if (item)
            for (s++; *s == ' '; s++)
                ;
        char *colon = strstr(s, ": ");
        if (!colon && *s && s[strlen(s) - 1] == ':')
            colon = s + strlen(s) - 1;
        if (!colon) {
            if (item && y->in_blocks && *s)
                continue; /* a block size */
            SC_FAIL("'%s': allowed 'key: value' or '- key: value'", sc__esc(s, esc, 60));
        }
        *colon = 0;
        char *val = colon + 1;
        while (*val == ' ')
            val++;
        if (!strcmp(s, "topology")) {
            char *v = scalar(val);
            if (!item || !v || !*v)
                SC_FAIL("'topology:' starts a list item with a name: allowed '- topology: NAME'");
            if ((rc = flush_switch(y, L.name, max_nodes, err, errlen)))
                goto out;
            if (y->nt == MAX_TOPOLOGIES)
                SC_FAIL("more than %d topologies: allowed at most %d", MAX_TOPOLOGIES, MAX_TOPOLOGIES);
            y->t[y->nt++].line = L.lineno;
            y->in_blocks = 0;
            continue;
        }
        if (!y->nt)
            SC_FAIL("'%s:' before the first topology: allowed '- topology: NAME' first", sc__esc(s, esc, 60));
        rc = take_key(y, L.name, L.lineno, max_nodes, item, s, val, e2, sizeof e2);
        if (rc == -2 && !strncmp(e2, L.name, strlen(L.name)))
            snprintf(err, errlen, "%s", e2); /* a switch's error names its own line */
        else if (rc == -2)
            SC_FAIL("%s", e2);
        if (rc)
            goto out;
    }
    if (got < 0 || (rc = flush_switch(y, L.name, max_nodes, err, errlen))) {
        rc = got < 0 ? got : rc;
        goto out;
    }
    int k = chosen(y);
    if (k < 0) {
        snprintf(err, errlen, "%s: no tree topology: allowed a file with a 'tree:' topology (block and flat "
                              "topologies name no links)",
                 L.name);
        rc = -2;
        goto out;
    }
    rc = sc__fabric_edges(&y->t[k].f, L.name, e, err, errlen);
out:
    for (int i = 0; i < y->nt; i++)
        sc__fabric_free(&y->t[i].f);
    free(y->sw);
    free(y);
    *Lp = L;
    return rc;
}

SC_READER_ENTRIES(slurm_yaml, read_slurm_yaml, SLURM_LINE_MAX)
