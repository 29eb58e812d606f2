/*
 * io_lines.c - the bounded line reader of kit_io.h: every input file of
 * the kit (graphs, params, mappings, host files, selection tables) is read
 * through it, so no input can make a tool read forever, wait forever, grow
 * without bound or split a line silently.
 */
#include "kit_io.h"
#include "kit_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void kit_lines_stream(kit_lines *L, FILE *f, const char *name, size_t max_line, uint64_t max_bytes)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->max_line = max_line;
    L->max_bytes = max_bytes;
    kit_cli_escape(name, L->name, sizeof L->name);
}

/* What a path that is not a regular file is, for the message ("a FIFO"). */
static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a plain file";
}

int kit_lines_open(kit_lines *L, const char *path, size_t max_line, uint64_t max_bytes, char *err, size_t errlen)
{
    kit_lines_stream(L, NULL, path, max_line, max_bytes);
    /* O_NONBLOCK: a FIFO without a writer (or a serial line) would block
     * the open itself, before fstat could say what it is: a job waiting
     * forever inside MPI_Init.  Only a regular file is read: a FIFO or a
     * device may never end (/dev/zero) or never start. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    struct stat st;
    if (!e && fstat(fd, &st))
        e = errno;
    if (!e && !S_ISREG(st.st_mode)) {
        snprintf(L->why, sizeof L->why, "%s, not a regular file: allowed a regular file", kind_of(st.st_mode));
        snprintf(err, errlen, "'%s' is %s", L->name, L->why);
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return -2;
    }
    /* a regular file never blocks, but reads without O_NONBLOCK see no EAGAIN */
    int fl = e ? 0 : fcntl(fd, F_GETFL);
    if (!e && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
        e = errno;
    FILE *f = e ? NULL : fdopen(fd, "r");
    if (!e && !f)
        e = errno;
    if (e) {
        if (fd >= 0)
            close(fd);
        L->open_errno = e;
        snprintf(L->why, sizeof L->why, "%s", strerror(e));
        snprintf(err, errlen, "cannot read '%s': %s", L->name, L->why);
        errno = e;
        return -2;
    }
    L->f = f;
    L->own = 1;
    return 0;
}

int kit_lines_next(kit_lines *L, char **line, char *err, size_t errlen)
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

void kit_lines_close(kit_lines *L)
{
    if (L->own && L->f)
        fclose(L->f);
    free(L->buf);
    L->f = NULL;
    L->buf = NULL;
    L->cap = 0;
}
