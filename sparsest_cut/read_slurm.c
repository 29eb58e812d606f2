/*
 * read_slurm.c - Slurm's topology.conf (topology/tree), read as it is:
 *   SwitchName=NAME [Nodes=HOSTLIST] [Switches=HOSTLIST] [LinkSpeed=N]
 * parameter names in any case, '#' to the end of a line a comment.
 * Every node is an endpoint, every switch a node with none; each switch-
 * child pair is one link, of capacity LinkSpeed where the line gives it
 * (Slurm's units are the site's own), else 1.  Nodes and switches are
 * named apart ("node tux1", "switch s0"): Slurm keeps them apart too.
 */
#include "fabric.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct child_ctx {
    sc_fabric *f;
    long line, max_nodes;
    int sw, is_switch;
    double speed;
} child_ctx;

/* One child of a switch (sc__hostlist's callback). */
static int add_child(void *ctx, const char *name)
{
    child_ctx *c = ctx;
    char full[300];
    snprintf(full, sizeof full, "%s %s", c->is_switch ? "switch" : "node", name);
    int id = sc__fabric_node(c->f, full, c->line, c->max_nodes);
    if (id < 0)
        return id;
    if (!c->is_switch) {
        c->f->kind[id] = 'H';
        c->f->w[id] = 1;
        if (!c->f->defined_at[id])
            c->f->defined_at[id] = c->line;
    }
    return sc__fabric_link(c->f, (sc_flink){c->sw, -1, id, -1, c->speed, c->line});
}

int sc__slurm_switch(sc_fabric *f, long line, long max_nodes, const char *sw, const char *nodes,
                     const char *switches, double speed, char *err, size_t errlen)
{
    char full[300], esc[300];
    if (!*sw || strlen(sw) > 255) {
        snprintf(err, errlen, "switch name '%s': allowed 1..255 characters", sc__esc(sw, esc, 60));
        return -2;
    }
    snprintf(full, sizeof full, "switch %s", sw);
    int id = sc__fabric_node(f, full, line, max_nodes);
    if (id == -2)
        snprintf(err, errlen, "more than %ld nodes and switches: allowed at most %ld", max_nodes, max_nodes);
    if (id < 0)
        return id;
    if (f->defined_at[id]) {
        snprintf(err, errlen, "switch %s described twice (first at line %ld): allowed one line per switch",
                 sc__esc(sw, esc, 200), f->defined_at[id]);
        return -2;
    }
    f->defined_at[id] = line;
    f->kind[id] = 'S';
    child_ctx c = {f, line, max_nodes, id, 0, speed};
    for (int k = 0; k < 2; k++) {
        const char *list = k ? switches : nodes;
        if (!list)
            continue;
        c.is_switch = k;
        char e2[300] = "";
        int rc = sc__hostlist(list, max_nodes, add_child, &c, e2, sizeof e2);
        if (rc == -2 && !e2[0])
            snprintf(e2, sizeof e2, "more than %ld nodes and switches: allowed at most %ld", max_nodes, max_nodes);
        if (rc == -2)
            snprintf(err, errlen, "%s=%s: %s", k ? "Switches" : "Nodes", sc__esc(list, esc, 60), e2);
        if (rc == -3)
            snprintf(err, errlen, "out of memory");
        if (rc)
            return rc;
    }
    return 0;
}

/* A LinkSpeed value: a number in SC_NUM_MIN..SC_NUM_MAX, or -1. */
static double speed_of(const char *t)
{
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    return end != t && !*end && isfinite(v) && v >= SC_NUM_MIN && v <= SC_NUM_MAX ? v : -1;
}

static int read_slurm(kit_lines *Lp, long max_nodes, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L = *Lp;
    sc_fabric f;
    sc__fabric_init(&f);
    char *line, esc[300], e2[400];
    int rc = 0, got;
    while ((got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        const char *sw = NULL, *nodes = NULL, *switches = NULL;
        double speed = 1;
        int nt = 0;
        for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r"), nt++) {
            char *eq = strchr(t, '=');
            if (!eq)
                SC_FAIL("'%s': allowed Key=Value (SwitchName=, Nodes=, Switches=, LinkSpeed=)", sc__esc(t, esc, 60));
            *eq = 0;
            const char *v = eq + 1;
            if (nt == 0 && strcasecmp(t, "SwitchName")) {
                if (!strcasecmp(t, "BlockName") || !strcasecmp(t, "BlockSizes"))
                    SC_FAIL("%s: a topology/block file names no links between blocks: allowed a topology/tree file "
                            "(SwitchName= lines)",
                            t);
                SC_FAIL("'%s=' first: allowed a line 'SwitchName=NAME [Nodes=...] [Switches=...] [LinkSpeed=N]'",
                        sc__esc(t, esc, 60));
            }
            const char **slot = !strcasecmp(t, "SwitchName") ? &sw
                                : !strcasecmp(t, "Nodes")      ? &nodes
                                : !strcasecmp(t, "Switches")   ? &switches
                                                               : NULL;
            if (slot && *slot)
                SC_FAIL("%s= given twice on one line: allowed once", t);
            if (slot) {
                if (!*v)
                    SC_FAIL("%s= without a value: allowed a name or hostlist such as tux[0-3,12]", t);
                *slot = v;
            } else if (!strcasecmp(t, "LinkSpeed")) {
                if ((speed = speed_of(v)) < 0)
                    SC_FAIL("LinkSpeed '%s': allowed a number > 0 (the link's capacity)", sc__esc(v, esc, 60));
            } else {
                SC_FAIL("'%s=': allowed SwitchName=, Nodes=, Switches= or LinkSpeed=", sc__esc(t, esc, 60));
            }
        }
        if (nt == 0)
            continue;
        rc = sc__slurm_switch(&f, L.lineno, max_nodes, sw, nodes, switches, speed, e2, sizeof e2);
        if (rc == -2)
            SC_FAIL("%s", e2);
        if (rc) {
            snprintf(err, errlen, "%s:%ld: out of memory", L.name, L.lineno);
            goto out;
        }
    }
    rc = got < 0 ? got : sc__fabric_edges(&f, L.name, e, err, errlen);
out:
    sc__fabric_free(&f);
    *Lp = L;
    return rc;
}

SC_READER_ENTRIES(slurm, read_slurm, SLURM_LINE_MAX)
