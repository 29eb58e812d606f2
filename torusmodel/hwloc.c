/*
 * hwloc.c - a node's facts from hwloc's XML (`lstopo --of xml > node.xml`,
 * hwloc 1.x and 2.x), read by a small careful reader of its own, so no
 * libhwloc is needed to build or run: packages, cores, PUs, NUMA nodes and
 * their memory, the data caches and the line.  torusmodel --node-from
 * gives them to the node model (cores, line) and prints the rest, each
 * with the file it came from.
 *
 * What is read: the <topology> element, then every <object ...> start tag,
 * one per line as lstopo writes them, for its type and numeric attributes
 * (cache_size, cache_linesize, cache_type, depth, local_memory).  Other
 * tags and types are passed over; the file must end with </topology> (a
 * truncated file is refused).
 */
#include "torusmodel.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define HWLOC_LINE_MAX (1 << 20)
#define HWLOC_MAX_BYTES (1ULL << 30)

/* The attributes of one tag the reader uses. */
typedef struct tag_attrs {
    char type[32];
    double size, linesize, cache_type, depth, local_memory;
} tag_attrs;

/* A whole number of at most 18 digits: 0, or -1. */
static int whole(const char *v, size_t n, double *out)
{
    if (n == 0 || n > 18)
        return -1;
    double x = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)v[i]))
            return -1;
        x = 10 * x + (v[i] - '0');
    }
    *out = x;
    return 0;
}

/* The attributes of the tag at p (after "<object"): 0, or -1 with what is
 * wrong in why. */
static int attrs(const char *p, tag_attrs *a, const char **why)
{
    memset(a, 0, sizeof *a);
    a->cache_type = -1;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (*p == '>' || (p[0] == '/' && p[1] == '>'))
            return 0;
        if (!*p)
            return *why = "an <object> tag not closed on its line: allowed lstopo's one tag per line", -1;
        const char *name = p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ':')
            p++;
        size_t nl = (size_t)(p - name);
        if (!nl || p[0] != '=' || p[1] != '"')
            return *why = "an attribute not name=\"value\"", -1;
        const char *v = p + 2, *q = strchr(v, '"');
        if (!q)
            return *why = "an attribute value without its closing quote", -1;
        size_t vl = (size_t)(q - v);
        p = q + 1;
        double *num = nl == 10 && !strncmp(name, "cache_size", nl)         ? &a->size
                      : nl == 14 && !strncmp(name, "cache_linesize", nl)   ? &a->linesize
                      : nl == 10 && !strncmp(name, "cache_type", nl)       ? &a->cache_type
                      : nl == 5 && !strncmp(name, "depth", nl)             ? &a->depth
                      : nl == 12 && !strncmp(name, "local_memory", nl)     ? &a->local_memory
                                                                           : NULL;
        if (num && whole(v, vl, num))
            return *why = "a size, depth or cache type not a whole number", -1;
        if (nl == 4 && !strncmp(name, "type", 4)) {
            if (vl >= sizeof a->type)
                return *why = "an object type longer than 31 characters", -1;
            memcpy(a->type, v, vl);
            a->type[vl] = 0;
        }
    }
}

/* One object into hw. */
static void count(const tag_attrs *a, tm_hw *hw)
{
    const char *t = a->type;
    hw->packages += !strcmp(t, "Package") || !strcmp(t, "Socket");
    hw->cores += !strcmp(t, "Core");
    hw->pus += !strcmp(t, "PU");
    if (!strcmp(t, "NUMANode")) {
        hw->numa++;
        hw->memory += a->local_memory;
    }
    /* a data or unified cache: hwloc 2's L1Cache..L5Cache, hwloc 1's Cache with its depth */
    int level = !strncmp(t, "L", 1) && isdigit((unsigned char)t[1]) && !strcmp(t + 2, "Cache") ? t[1] - '0'
                : !strcmp(t, "Cache")                                                        ? (int)a->depth
                                                                                             : 0;
    if (level >= 1 && level <= 3 && a->cache_type != 2) {
        if (a->size > hw->cache[level])
            hw->cache[level] = a->size;
        if (level == 1 && a->linesize > 0)
            hw->line = a->linesize;
    }
}

int tm_hwloc_stream(FILE *f, const char *name, tm_hw *hw, char *err, size_t errlen)
{
    kit_lines L;
    kit_lines_stream(&L, f, name, HWLOC_LINE_MAX, HWLOC_MAX_BYTES);
    memset(hw, 0, sizeof *hw);
    char *line;
    int got, in_topology = 0, closed = 0, rc = 0;
    const char *why = NULL;
    while (!why && (got = kit_lines_next(&L, &line, err, errlen)) > 0) {
        if (!in_topology) {
            char *t = strstr(line, "<topology");
            in_topology = t && (t[9] == '>' || t[9] == ' ' || t[9] == '\t' || !t[9]);
            if (in_topology)
                continue;
            if (strstr(line, "<object"))
                why = "an <object> before <topology>: allowed the XML of lstopo --of xml";
            continue;
        }
        closed |= strstr(line, "</topology>") != NULL;
        for (char *p = strstr(line, "<object"); p && !why; p = strstr(p + 7, "<object")) {
            if (p[7] != ' ' && p[7] != '\t' && p[7] != '>' && p[7] != '/')
                continue; /* <objects...> is some other tag */
            tag_attrs a;
            if (!attrs(p + 7, &a, &why))
                count(&a, hw);
        }
    }
    if (why) {
        snprintf(err, errlen, "%s:%ld: %s", L.name, L.lineno, why);
        rc = -2;
    } else if (got < 0) {
        rc = got;
    } else if (!in_topology || !closed) {
        snprintf(err, errlen, "%s: %s: allowed the whole output of lstopo --of xml", L.name,
                 in_topology ? "the file ends before </topology> (cut short?)" : "no <topology> element");
        rc = -2;
    } else if (hw->cores < 1) {
        snprintf(err, errlen, "%s: no Core objects: allowed an hwloc topology of a node with its cores", L.name);
        rc = -2;
    }
    kit_lines_close(&L);
    return rc;
}

int tm_hwloc_read(const char *path, tm_hw *hw, char *err, size_t errlen)
{
    kit_lines L;
    char e2[400];
    if (kit_lines_open(&L, path, HWLOC_LINE_MAX, HWLOC_MAX_BYTES, e2, sizeof e2)) {
        snprintf(err, errlen, "cannot open hwloc XML '%s': %s", L.name, L.why);
        return -2;
    }
    FILE *f = L.f;
    L.own = 0; /* the stream reader takes it from here */
    int rc = tm_hwloc_stream(f, L.name, hw, err, errlen);
    kit_lines_close(&L);
    fclose(f);
    if (!rc) {
        char esc[160];
        kit_cli_escape(path, esc, sizeof esc);
        snprintf(hw->src, sizeof hw->src, "hwloc %s", esc);
    }
    return rc;
}

void tm_hw_apply(tm_params *p, const tm_hw *hw)
{
    p->hw = *hw;
    p->cores_per_node = (double)hw->cores;
    p->ranks_per_node = (double)hw->cores; /* one rank a core, as --node's default */
    if (hw->line > 0) {
        char src[TM_SRC_LEN];
        snprintf(src, sizeof src, "%.160s: the L1 data cache's line", hw->src);
        tm_node_set(p, TM_N_LINE, hw->line, src);
    }
}

void tm_hw_print(FILE *f, const tm_hw *hw, int keys)
{
    if (keys) {
        fprintf(f, "hwloc_packages: %ld\nhwloc_cores: %ld\nhwloc_pus: %ld\nhwloc_numa_nodes: %ld\n"
                   "hwloc_memory_bytes: %.0f\nhwloc_l1d_bytes: %.0f\nhwloc_l2_bytes: %.0f\nhwloc_l3_bytes: %.0f\n"
                   "hwloc_line_bytes: %.0f\n",
                hw->packages, hw->cores, hw->pus, hw->numa, hw->memory, hw->cache[1], hw->cache[2], hw->cache[3],
                hw->line);
        return;
    }
    fprintf(f, "# %s: %ld packages, %ld cores, %ld PUs, %ld NUMA nodes, %.4g GiB; L1d %.0f KiB, L2 %.0f KiB, "
               "L3 %.0f KiB, line %.0f B\n",
            hw->src, hw->packages, hw->cores, hw->pus, hw->numa, hw->memory / (1 << 30), hw->cache[1] / 1024,
            hw->cache[2] / 1024, hw->cache[3] / 1024, hw->line);
}
