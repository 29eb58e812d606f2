/*
 * detect.c - a graph file read by the reader it needs: which one, from what
 * its first lines say (each format the kit reads opens in a way no other
 * does), then the graph built, the fabric's names kept beside it.
 */
#include "fabric.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Lines looked at: ibnetdiscover's header is five, a topology file's
 * comment block rarely more than a screen. */
#define DETECT_LINES 200

static const char *by_line(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!strncmp(s, "# Topology file: generated", 26) || !strncmp(s, "vendid=0x", 9) ||
        !strncmp(s, "switchguid=0x", 13) || !strncmp(s, "caguid=0x", 9))
        return "ibnetdiscover";
    if (!strncasecmp(s, "SwitchName=", 11) || !strncasecmp(s, "BlockName=", 10))
        return "slurm";
    if (!strncmp(s, "- topology:", 11) || !strcmp(s, "- topology:"))
        return "slurm-yaml";
    return NULL;
}

const char *sc_detect_format(const char *path)
{
    size_t fl = strlen(path);
    const char *found = NULL;
    kit_lines L;
    char err[400];
    if (!kit_lines_open(&L, path, SLURM_LINE_MAX, SC_FILE_MAX_BYTES, err, sizeof err)) {
        char *line;
        for (int i = 0; i < DETECT_LINES && !found && kit_lines_next(&L, &line, err, sizeof err) > 0; i++)
            found = by_line(line);
        kit_lines_close(&L);
    }
    if (found)
        return found;
    if (fl > 6 && (!strcmp(path + fl - 6, ".graph") || !strcmp(path + fl - 6, ".metis")))
        return "metis";
    return "edgelist";
}

const char *sc_capacity_unit(const char *format)
{
    return !strcmp(format, "ibnetdiscover") ? "Gb/s" : !strcmp(format, "slurm") ? "LinkSpeed" : "link";
}

int sc_file_graph_read(sc_file_graph *fg, const char *path, const char *format, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int (*read)(const char *, sc_edges *, char *, size_t);
    } readers[] = {{"edgelist", sc_read_edgelist},
                   {"metis", sc_read_metis},
                   {"ibnetdiscover", sc_read_ibnet},
                   {"slurm", sc_read_slurm},
                   {"slurm-yaml", sc_read_slurm_yaml}};
    memset(fg, 0, sizeof *fg);
    fg->format = format ? format : sc_detect_format(path);
    sc_edges e;
    int rc = -2;
    snprintf(err, errlen, "format '%s': allowed edgelist, metis, ibnetdiscover, slurm or slurm-yaml", fg->format);
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++)
        if (!strcmp(fg->format, readers[i].name))
            rc = readers[i].read(path, &e, err, errlen);
    if (rc)
        return rc;
    rc = sc_graph_build(&fg->g, &e, err, errlen);
    if (!rc) {
        fg->names = e.names; /* kept with the graph, for the tree's report */
        e.names = NULL;
    }
    sc_edges_free(&e);
    return rc;
}

void sc_file_graph_free(sc_file_graph *fg)
{
    for (int i = 0; fg->names && i < fg->g.n; i++)
        free(fg->names[i]);
    free(fg->names);
    sc_graph_free(&fg->g);
    memset(fg, 0, sizeof *fg);
}
