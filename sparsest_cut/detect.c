/*
 * detect.c - which reader a graph file needs, from what its first lines
 * say: each format the kit reads opens in a way no other does.
 */
#include "fabric.h"

#include <ctype.h>
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
