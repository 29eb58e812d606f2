/*
 * io_lines.c - the bounded line reader of torus_io.h: every input file of
 * the kit (graphs, params, mappings) is read through it, so no input can
 * make a tool read forever, grow without bound or split a line silently.
 */
#include "torus_io.h"
#include "torus_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void torus_lines_stream(torus_lines *L, FILE *f, const char *name, size_t max_line, uint64_t max_bytes)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->max_line = max_line;
    L->max_bytes = max_bytes;
    torus_cli_escape(name, L->name, sizeof L->name);
}

int torus_lines_open(torus_lines *L, const char *path, size_t max_line, uint64_t max_bytes, char *err, size_t errlen)
{
    torus_lines_stream(L, NULL, path, max_line, max_bytes);
    FILE *f = fopen(path, "r");
    int e = f ? 0 : errno;
    /* fopen takes a directory; reading it would look like an empty file */
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        e = EISDIR;
    }
    if (e) {
        snprintf(err, errlen, "cannot read '%s': %s", L->name, strerror(e));
        errno = e; /* callers that word their own message use strerror(errno) */
        return -2;
    }
    L->f = f;
    L->own = 1;
    return 0;
}

int torus_lines_next(torus_lines *L, char **line, char *err, size_t errlen)
{
    size_t n = 0;
    int c, any = 0;
    for (;;) {
        c = getc(L->f);
        if (c == EOF)
            break;
        any = 1;
        if (++L->bytes > L->max_bytes) {
            snprintf(err, errlen, "%s: larger than %llu bytes: allowed at most %llu", L->name,
                     (unsigned long long)L->max_bytes, (unsigned long long)L->max_bytes);
            return -2;
        }
        if (c == '\n')
            break;
        if (c == 0) {
            /* a NUL would end the C string early: what follows would be lost */
            snprintf(err, errlen, "%s:%ld: NUL byte in the text: allowed a text file", L->name, L->lineno + 1);
            return -2;
        }
        if (n == L->max_line) {
            snprintf(err, errlen, "%s:%ld: line longer than %zu bytes: allowed at most %zu", L->name, L->lineno + 1,
                     L->max_line, L->max_line);
            return -2;
        }
        if (n + 1 >= L->cap) {
            size_t nc = L->cap ? 2 * L->cap : 256;
            if (nc > L->max_line + 1)
                nc = L->max_line + 1;
            if (nc < n + 2)
                nc = n + 2;
            char *nb = realloc(L->buf, nc);
            if (!nb) {
                snprintf(err, errlen, "%s:%ld: out of memory for a line of %zu bytes", L->name, L->lineno + 1, n);
                return -3;
            }
            L->buf = nb;
            L->cap = nc;
        }
        L->buf[n++] = (char)c;
    }
    if (ferror(L->f)) {
        snprintf(err, errlen, "%s:%ld: read error: %s", L->name, L->lineno + 1, strerror(errno ? errno : EIO));
        return -2;
    }
    if (!any)
        return 0;
    if (!L->buf) {
        L->buf = malloc(1);
        if (!L->buf) {
            snprintf(err, errlen, "%s: out of memory", L->name);
            return -3;
        }
        L->cap = 1;
    }
    L->buf[n] = 0;
    L->lineno++;
    *line = L->buf;
    return 1;
}

void torus_lines_close(torus_lines *L)
{
    if (L->own && L->f)
        fclose(L->f);
    free(L->buf);
    L->f = NULL;
    L->buf = NULL;
    L->cap = 0;
}
