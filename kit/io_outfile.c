/*
 * io_outfile.c - the atomic output file of kit_io.h: every result file
 * of the kit (hpccoutf.txt, JSON, params) is written through it, so a full
 * disk, an unwritable folder or a crash costs one error line and never
 * half a file or an earlier result.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "kit_io.h"
#include "kit_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *shown, int e)
{
    snprintf(err, errlen, "cannot write '%s': %s", shown, strerror(e ? e : EIO));
    return -1;
}

/* The file a write to path lands in: a symbolic link's target, followed
 * link by link (so the rename replaces the file and keeps the link; a
 * dangling link makes its target, as the shell's > does), else path.
 * NULL with errno on a loop of links or no memory. */
static char *target_of(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
            return cur;
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n <= 0) {
            free(cur);
            errno = n ? errno : ENOENT;
            return NULL;
        }
        link[n] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dl = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dl + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dl);
            memcpy(next + dl, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
        return NULL;
    }
    errno = ENOMEM;
    return NULL;
}

/* The canonical name of a file that may not exist yet: its folder's real
 * path and its own name; NULL when the folder cannot be resolved. */
static char *canonical(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (!dir[0])
        snprintf(dir, sizeof dir, "/");
    char *rd = realpath(dir, NULL);
    if (!rd)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(rd) + strlen(base) + 2;
    char *c = malloc(n);
    if (c)
        snprintf(c, n, "%s/%s", rd, base);
    free(rd);
    return c;
}

int kit_outfile_same(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    char *ta = target_of(a), *tb = target_of(b);
    int same = 0;
    if (ta && tb) {
        struct stat sa, sb;
        int ea = stat(ta, &sa) == 0, eb = stat(tb, &sb) == 0;
        if (ea && eb)
            same = S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
        else if (!ea && !eb) {
            char *ca = canonical(ta), *cb = canonical(tb);
            same = ca && cb && !strcmp(ca, cb);
            free(ca);
            free(cb);
        }
    }
    free(ta);
    free(tb);
    return same;
}

/* A new temporary file beside path: fd, and its name in *tmp (to free). */
static int temp_beside(const char *path, char **tmp)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dl = slash ? (int)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 32;
    char *t = malloc(n);
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(t, n, "%.*s.%s.XXXXXX", dl, path, base);
    int fd = mkstemp(t);
    if (fd < 0) {
        int e = errno;
        free(t);
        errno = e;
        return -1;
    }
    *tmp = t;
    return fd;
}

int kit_outfile_probe(const char *path, char *err, size_t errlen)
{
    char shown[300];
    kit_cli_escape(path, shown, sizeof shown);
    if (!path || !*path)
        return fail(err, errlen, shown, ENOENT);
    char *p = target_of(path);
    if (!p)
        return fail(err, errlen, shown, errno);
    struct stat st;
    int rc = 0;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = fail(err, errlen, shown, EISDIR);
    } else if (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* O_NONBLOCK: a pipe without a reader says so instead of waiting */
        int fd = open(p, O_WRONLY | O_NONBLOCK);
        if (fd < 0)
            rc = fail(err, errlen, shown, errno);
        else
            close(fd);
    } else {
        char *tmp = NULL;
        int fd = temp_beside(p, &tmp);
        if (fd < 0) {
            rc = fail(err, errlen, shown, errno);
        } else {
            close(fd);
            unlink(tmp);
            free(tmp);
        }
    }
    free(p);
    return rc;
}

/* Copies the current content of path (if any) to out; 0 or an errno. */
static int copy_old(const char *path, FILE *out)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return errno == ENOENT ? 0 : errno;
    char buf[65536];
    size_t n;
    int e = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) {
            e = errno ? errno : EIO;
            break;
        }
    if (!e && ferror(in))
        e = errno ? errno : EIO;
    fclose(in);
    return e;
}

int kit_outfile_open(kit_outfile *o, const char *path, int append, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    kit_cli_escape(path, o->shown, sizeof o->shown);
    if (!path || !*path)
        return fail(err, errlen, o->shown, ENOENT);
    o->path = target_of(path);
    if (!o->path)
        return fail(err, errlen, o->shown, errno);
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        free(o->path);
        o->path = NULL;
        return fail(err, errlen, o->shown, EISDIR);
    }
    int special = exists && !S_ISREG(st.st_mode);
    int fd = special ? open(o->path, O_WRONLY | (append ? O_APPEND : O_TRUNC)) : temp_beside(o->path, &o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->path);
        o->path = NULL;
        return fail(err, errlen, o->shown, e);
    }
    if (!special) {
        /* mkstemp makes 0600: keep the old file's mode, else what the umask allows */
        mode_t um = umask(0);
        umask(um);
        if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~um)) {
            /* not fatal: the content is what matters */
        }
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        kit_outfile_discard(o);
        return fail(err, errlen, o->shown, e);
    }
    if (append && !special && exists) {
        int e = copy_old(o->path, o->f);
        if (e) {
            kit_outfile_discard(o);
            return fail(err, errlen, o->shown, e);
        }
    }
    return 0;
}

int kit_outfile_commit(kit_outfile *o, char *err, size_t errlen)
{
    int e = 0;
    errno = 0;
    /* the error flag is sticky: any failed write since open shows here */
    if (fflush(o->f) || ferror(o->f))
        e = errno ? errno : EIO;
    if (!e && o->tmp && fsync(fileno(o->f)))
        e = errno;
    if (fclose(o->f) && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->path))
        e = errno;
    if (e && o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = NULL;
    o->path = NULL;
    return e ? fail(err, errlen, o->shown, e) : 0;
}

void kit_outfile_discard(kit_outfile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    o->f = NULL;
    o->tmp = NULL;
    o->path = NULL;
}
