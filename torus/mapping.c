/*
 * mapping.c - rank <-> coordinates: XYZT order (dimension 0 fastest, the
 * BlueGene/L default of paper 003 sec. 5) or a mapping file, one line of
 * coordinates per rank in rank order.
 */
#include "torus.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int torus_map_linear(const torus_shape *s, const int *c)
{
    int lin = 0;
    for (int i = s->ndims - 1; i >= 0; i--)
        lin = lin * s->k[i] + c[i];
    return lin;
}

static int map_alloc(torus_map *m, const torus_shape *s)
{
    m->shape = *s;
    m->coords = malloc((size_t)s->n * (size_t)(s->ndims ? s->ndims : 1) * sizeof(int));
    m->rank_of = malloc((size_t)s->n * sizeof(int));
    if (!m->coords || !m->rank_of) {
        torus_map_free(m);
        return -1;
    }
    return 0;
}

void torus_map_free(torus_map *m)
{
    free(m->coords);
    free(m->rank_of);
    m->coords = NULL;
    m->rank_of = NULL;
}

/* Puts rank r at linear position lin (the inverse of torus_map_linear). */
static void map_place(torus_map *m, int r, int lin)
{
    const torus_shape *s = &m->shape;
    int v = lin;
    for (int i = 0; i < s->ndims; i++) {
        m->coords[r * s->ndims + i] = v % s->k[i];
        v /= s->k[i];
    }
    m->rank_of[lin] = r;
}

int torus_map_xyzt(torus_map *m, const torus_shape *s)
{
    if (map_alloc(m, s))
        return -1;
    for (int r = 0; r < s->n; r++)
        map_place(m, r, r);
    return 0;
}

int torus_map_nodes(torus_map *m, const torus_shape *s, int nnodes, const int *node_local)
{
    if (map_alloc(m, s))
        return -1;
    for (int r = 0; r < s->n; r++)
        map_place(m, r, node_local[2 * r] + nnodes * node_local[2 * r + 1]);
    return 0;
}

static int map_lines(torus_map *m, const torus_shape *s, kit_lines *L, char *err, size_t errlen)
{
    if (map_alloc(m, s)) {
        snprintf(err, errlen, "out of memory for a mapping of %d ranks", s->n);
        return -1;
    }
    for (int i = 0; i < s->n; i++)
        m->rank_of[i] = -1;
    const char *name = L->name;
    char *line;
    int r = 0, rc = 0, got;
    long lineno = 0;
    while ((got = kit_lines_next(L, &line, err, errlen)) > 0) {
        lineno = L->lineno;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        if (r >= s->n) {
            snprintf(err, errlen, "mapping file '%s' line %ld: more lines than the %d ranks", name, lineno, s->n);
            rc = -1;
            break;
        }
        int c[TORUS_MAX_DIMS];
        for (int i = 0; i < s->ndims; i++) {
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p) {
                snprintf(err, errlen, "mapping file '%s' line %ld: expected %d coordinates, found %d", name, lineno,
                         s->ndims, i);
                rc = -1;
                break;
            }
            if (errno || v < 0 || v >= s->k[i]) {
                /* the number as written: past a long's range strtol says
                 * only ERANGE, and a clamped value would misquote it */
                const char *q = p;
                while (isspace((unsigned char)*q))
                    q++;
                char num[32], shown[80];
                snprintf(num, sizeof num, "%.*s", (int)(end - q < 24 ? end - q : 24), q);
                kit_cli_escape(num, shown, sizeof shown);
                snprintf(err, errlen,
                         "mapping file '%s' line %ld: coordinate %s%s of dimension %d out of range: allowed 0..%d",
                         name, lineno, shown, end - q > 24 ? "..." : "", i, s->k[i] - 1);
                rc = -1;
                break;
            }
            c[i] = (int)v;
            p = end;
        }
        if (rc)
            break;
        while (isspace((unsigned char)*p))
            p++;
        if (*p) {
            snprintf(err, errlen, "mapping file '%s' line %ld: more than %d coordinates", name, lineno, s->ndims);
            rc = -1;
            break;
        }
        int lin = torus_map_linear(s, c);
        if (m->rank_of[lin] >= 0) {
            snprintf(err, errlen, "mapping file '%s' line %ld: coordinates already used by rank %d (line for rank %d)",
                     name, lineno, m->rank_of[lin], r);
            rc = -1;
            break;
        }
        m->rank_of[lin] = r;
        memcpy(&m->coords[r * s->ndims], c, (size_t)s->ndims * sizeof(int));
        r++;
    }
    if (got < 0) {
        /* err holds the reader's "NAME:LINE: ..." */
        char e2[512];
        snprintf(e2, sizeof e2, "mapping file %s", err);
        snprintf(err, errlen, "%s", e2);
        rc = -1;
    }
    if (!rc && r < s->n) {
        snprintf(err, errlen, "mapping file '%s' has %d coordinate lines but there are %d ranks: every rank needs one",
                 name, r, s->n);
        rc = -1;
    }
    if (rc)
        torus_map_free(m);
    return rc;
}

int torus_map_stream(torus_map *m, const torus_shape *s, FILE *f, const char *name, char *err, size_t errlen)
{
    kit_lines L;
    kit_lines_stream(&L, f, name, TORUS_MAP_LINE_MAX, TORUS_MAP_MAX_BYTES);
    int rc = map_lines(m, s, &L, err, errlen);
    kit_lines_close(&L);
    return rc;
}

int torus_map_file(torus_map *m, const torus_shape *s, const char *path, char *err, size_t errlen)
{
    kit_lines L;
    char e2[512];
    if (kit_lines_open(&L, path, TORUS_MAP_LINE_MAX, TORUS_MAP_MAX_BYTES, e2, sizeof e2)) {
        snprintf(err, errlen, "mapping file '%s' cannot be read: %s", L.name, L.why);
        return -1;
    }
    int rc = map_lines(m, s, &L, err, errlen);
    kit_lines_close(&L);
    return rc;
}
