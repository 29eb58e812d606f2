/*
 * io_stdout.c - standard output as a result channel (kit_io.h): every
 * binary's key blocks, tables and JSON go to stdout, so a full disk, a
 * closed descriptor or /dev/full there is a lost result, said in one line
 * with exit 3, never exit 0 and silence.
 */
#include "kit_io.h"
#include "kit_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char prog[64] = "hpcc-ra";
static int stdout_closed; /* fd 1 was closed when the program started */
static int stdout_errno;  /* the reason of the first failed kit_stdout_flush */

const char *kit_prog(void)
{
    return prog;
}

int kit_launch_first(void)
{
    /* the launchers' own variables (not settings of the kit: kit/settings.c) */
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return !strcmp(v, "0");
    }
    return 1;
}

int kit_launch_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) > 1 ? atoi(v) : 1;
    }
    return 1;
}

void kit_stdout_begin(const char *argv0)
{
    if (argv0 && *argv0) {
        const char *slash = strrchr(argv0, '/');
        snprintf(prog, sizeof prog, "%s", slash ? slash + 1 : argv0);
    }
    /* in order: open() returns the lowest free descriptor, this one */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        if (fd == 1) {
            /* an unlinked temporary, so that the end can tell whether the
             * run had anything for stdout (a run that writes nothing, such
             * as --dry-run, is fine with stdout closed) */
            stdout_closed = 1;
            if (tmpfile() && fcntl(1, F_GETFD) >= 0)
                continue;
            stdout_closed = 2; /* cannot tell: count it as written */
        }
        int nfd = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
        if (nfd >= 0 && nfd != fd)
            close(nfd);
    }
}

/* e when a failed write(2) can have set it, else 0: the reason of a
 * stream whose error flag was set by an earlier write (an MPI library may
 * make stdout line-buffered, so a write fails inside printf) is read from
 * errno only when errno plausibly still holds it. */
static int write_errno(int e)
{
    switch (e) {
    case ENOSPC:
    case EBADF:
    case EPIPE:
    case EIO:
    case EFBIG:
    case EDQUOT:
    case ENXIO:
        return e;
    default:
        return 0;
    }
}

/* The reason stdout failed, 0 when it has not. */
static int stdout_failure(void)
{
    int before = errno;
    if (ferror(stdout) && !stdout_errno)
        stdout_errno = write_errno(before);
    errno = 0;
    if (fflush(stdout) || ferror(stdout)) {
        if (!stdout_errno)
            stdout_errno = errno ? errno : EIO;
        return stdout_errno;
    }
    return 0;
}

void kit_stdout_flush(void)
{
    (void)stdout_failure();
}

int kit_stdout_end(int code)
{
    int e = stdout_failure();
    if (!e && stdout_closed) {
        struct stat st;
        if (stdout_closed == 2 || fstat(1, &st) || st.st_size > 0)
            e = EBADF;
    }
    if (!e || code == KIT_EXIT_USAGE || code == KIT_EXIT_RESOURCE)
        return code;
    fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(e));
    fflush(stderr);
    return KIT_EXIT_RESOURCE;
}

int kit_json_string(FILE *f, const char *s)
{
    int bad = fputc('"', f) == EOF;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            bad |= fprintf(f, "\\%c", c) < 0;
        else if (c < 0x20)
            bad |= fprintf(f, "\\u%04x", c) < 0;
        else
            bad |= fputc(c, f) == EOF;
    }
    bad |= fputc('"', f) == EOF;
    return bad ? -1 : 0;
}
