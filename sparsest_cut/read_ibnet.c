/*
 * read_ibnet.c - an InfiniBand fabric as `ibnetdiscover` (infiniband-diags,
 * rdma-core) prints it, read as it is.
 *
 * Records: "vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=",
 * "rtguid=" lines; a node line, "Switch|Ca|Rt PORTS "X-GUID" # "desc" ...";
 * then its ports, one line each:
 *   [P][ext E](PORTGUID)  "X-GUID"[Q][ext F](PORTGUID)  # ... WIDTHxSPEED
 * Headers of the chassis view ("Chassis N ...", "Non-Chassis Nodes",
 * "Hostname: ...") and '#' comment lines are skipped.
 *
 * Every CA is an endpoint (w 1), every switch and router a node with none.
 * A link's capacity is its width times its lane rate in Gb/s (the table
 * below, docs/model.md); a link listed from both ends counts once
 * (fabric.c), and parallel cables between two nodes add up.
 */
#include "fabric.h"
#include "kit_cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Lane rates in Gb/s, as the InfiniBand Trade Association's roadmap gives
 * them (signalling rate per lane; docs/model.md). */
static const struct {
    const char *name;
    double gbps;
} lane_rate[] = {
    {"SDR", 2.5},         {"DDR", 5.0},      {"QDR", 10.0},      {"FDR10", 10.3125}, {"FDR", 14.0625},
    {"EDR", 25.78125},    {"HDR", 53.125},   {"NDR", 106.25},    {"XDR", 212.5},
};
static const int lane_width[] = {1, 2, 4, 8, 12};

/* "4xEDR" -> 103.125; -1 when it is not a width x speed token. */
static double link_gbps(const char *t)
{
    char *end;
    long w = strtol(t, &end, 10);
    if (end == t || *end != 'x')
        return -1;
    int ok = 0;
    for (size_t i = 0; i < sizeof lane_width / sizeof *lane_width; i++)
        ok |= w == lane_width[i];
    for (size_t i = 0; ok && i < sizeof lane_rate / sizeof *lane_rate; i++)
        if (!strcmp(end + 1, lane_rate[i].name))
            return (double)w * lane_rate[i].gbps;
    return -1;
}

/* A quoted node name "X-..." at *p: copied to out (without quotes), *p
 * past it; 0 or -1. */
static int quoted_name(char **p, char *out, size_t len)
{
    char *s = *p;
    if (*s != '"')
        return -1;
    char *q = strchr(s + 1, '"');
    if (!q || (size_t)(q - s - 1) >= len || q - s - 1 < 3 || s[2] != '-' || !strchr("SHR", s[1]))
        return -1;
    memcpy(out, s + 1, (size_t)(q - s - 1));
    out[q - s - 1] = 0;
    *p = q + 1;
    return 0;
}

/* "[N]" at *p: N in 0..255 (an InfiniBand port number), *p past it. */
static int port_num(char **p, int *port)
{
    char *s = *p, *end;
    if (*s != '[' || !isdigit((unsigned char)s[1]))
        return -1;
    long v = strtol(s + 1, &end, 10);
    if (*end != ']' || v < 0 || v > 255)
        return -1;
    *port = (int)v;
    *p = end + 1;
    return 0;
}

/* Skips "[ext N]" and "(GUID)" decorations and blanks. */
static void skip_decor(char **p)
{
    for (;;) {
        while (**p == ' ' || **p == '\t')
            (*p)++;
        char *close = NULL;
        if (!strncmp(*p, "[ext ", 5))
            close = strchr(*p, ']');
        else if (**p == '(')
            close = strchr(*p, ')');
        if (!close)
            return;
        *p = close + 1;
    }
}

/* The link's width x speed: the token of that form after the comment's
 * last quoted text (the peer's description may hold anything). */
static double comment_gbps(char *c)
{
    char *q = strrchr(c, '"');
    char *p = q ? q + 1 : c;
    for (char *t = strtok(p, " \t"); t; t = strtok(NULL, " \t")) {
        double g = link_gbps(t);
        if (g > 0)
            return g;
    }
    return -1;
}

static int starts(const char *line, const char *word)
{
    return !strncmp(line, word, strlen(word));
}

/* A line that carries nothing for the graph: ids, chassis headers. */
static int skipped(const char *s)
{
    static const char *const ids[] = {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=",
                                      "rtguid=", "Non-Chassis Nodes", "Hostname:", "Chassis "};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (starts(s, ids[i]))
            return 1;
    return 0;
}

static int read_ibnet(kit_lines *Lp, long max_nodes, sc_edges *e, char *err, size_t errlen)
{
    kit_lines L = *Lp;
    sc_fabric f;
    sc__fabric_init(&f);
    char *line, name[128], esc[300];
    int rc = 0, got, cur = -1;
    while ((got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#' || *s == '\r' || skipped(s))
            continue;
        if (starts(s, "Switch") || starts(s, "Ca") || starts(s, "Rt")) {
            char kind = s[0] == 'S' ? 'S' : s[0] == 'C' ? 'H' : 'R';
            char *p = s + (kind == 'S' ? 6 : 2), *end;
            if (*p != ' ' && *p != '\t')
                SC_FAIL("unrecognised line '%s': allowed a node line 'Switch|Ca|Rt PORTS \"X-GUID\" # ...', a port "
                        "line '[P] \"X-GUID\"[Q] # ...', an id line (vendid=, devid=, ...guid=) or a comment",
                        sc__esc(s, esc, 60));
            while (*p == ' ' || *p == '\t')
                p++;
            long ports = strtol(p, &end, 10);
            if (end == p || ports < 1 || ports > 255) {
                char tok[41];
                snprintf(tok, sizeof tok, "%.*s", (int)strcspn(p, " \t"), p);
                SC_FAIL("node line: port count '%s' invalid: allowed 1..255", sc__esc(tok, esc, sizeof esc));
            }
            p = end;
            while (*p == ' ' || *p == '\t')
                p++;
            if (quoted_name(&p, name, sizeof name) || name[0] != kind)
                SC_FAIL("node line: allowed a name \"%c-GUID\" after the port count", kind);
            cur = sc__fabric_node(&f, name, L.lineno, max_nodes);
            if (cur == -2)
                SC_FAIL("more than %ld nodes: allowed at most %ld", max_nodes, max_nodes);
            if (cur < 0)
                goto oom;
            if (f.defined_at[cur])
                SC_FAIL("%s described twice (first at line %ld): allowed one record per node", sc__esc(name, esc, 200),
                        f.defined_at[cur]);
            f.defined_at[cur] = L.lineno;
            f.kind[cur] = kind;
            f.w[cur] = kind == 'H';
            continue;
        }
        if (*s != '[')
            SC_FAIL("unrecognised line '%s': allowed a node line 'Switch|Ca|Rt PORTS \"X-GUID\" # ...', a port line "
                    "'[P] \"X-GUID\"[Q] # ...', an id line (vendid=, devid=, ...guid=) or a comment",
                    sc__esc(s, esc, 60));
        if (cur < 0)
            SC_FAIL("port line before any node line: allowed ports after 'Switch', 'Ca' or 'Rt'");
        char *p = s;
        int pa, pb;
        if (port_num(&p, &pa))
            SC_FAIL("port line: allowed '[P]' with P in 0..255 first");
        skip_decor(&p);
        if (quoted_name(&p, name, sizeof name))
            SC_FAIL("port line: allowed the peer's name \"S-GUID\", \"H-GUID\" or \"R-GUID\" after '[%d]'", pa);
        if (port_num(&p, &pb))
            SC_FAIL("port line: allowed the peer's port '[Q]' after \"%s\"", sc__esc(name, esc, 200));
        char *hash = strchr(p, '#');
        double gbps = hash ? comment_gbps(hash + 1) : -1;
        if (gbps <= 0)
            SC_FAIL("port [%d]: no link width and speed: allowed 1x|2x|4x|8x|12x with SDR|DDR|QDR|FDR10|FDR|EDR|"
                    "HDR|NDR|XDR (e.g. 4xHDR) after the '#'",
                    pa);
        int peer = sc__fabric_node(&f, name, L.lineno, max_nodes);
        if (peer == -2)
            SC_FAIL("more than %ld nodes: allowed at most %ld", max_nodes, max_nodes);
        if (peer < 0 || sc__fabric_link(&f, (sc_flink){cur, pa, peer, pb, gbps, L.lineno}))
            goto oom;
    }
    if (got < 0) {
        rc = got;
        goto out;
    }
    rc = sc__fabric_edges(&f, L.name, e, err, errlen);
    goto out;
oom:
    snprintf(err, errlen, "%s:%ld: out of memory", L.name, L.lineno);
    rc = -3;
out:
    sc__fabric_free(&f);
    *Lp = L;
    return rc;
}

SC_READER_ENTRIES(ibnet, read_ibnet, SC_LINE_MAX)
