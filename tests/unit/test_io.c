/*
 * test_io.c - kit_io.h: the bounded line reader (limits, NUL bytes,
 * directories, a last line without newline) and the atomic output file
 * (replace, append, a write failing half way leaves the old file whole
 * and no temporary, a device written in place, probing).
 */
#include "../test.h"
#include "kit_io.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void put(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Entries of dir other than . and .. (temporaries left behind show here). */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* lines, an empty one, a last line without newline */
static void t_lines_last_without_newline(void)
{
    char path[300], err[512], *line;
    kit_lines L;
    snprintf(path, sizeof path, "%s/in.txt", dir);
    put(path, "a b\n\nlast", 9);
    ASSERT_EQ_INT(kit_lines_open(&L, path, 16, 100, err, sizeof err), 0);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_STR_EQ(line, "a b");
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_STR_EQ(line, "");
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_STR_EQ(line, "last"); /* no newline at the end: still a line */
    ASSERT_EQ_INT((int)L.lineno, 3);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 0);
    kit_lines_close(&L);
}

/* a line of exactly max_line bytes passes, one more is an error; the
 * whole input is bounded too */
static void t_lines_line_and_input_bounded(void)
{
    char path[300], err[512], *line;
    kit_lines L;
    snprintf(path, sizeof path, "%s/in.txt", dir);
    put(path, "12345678\n123456789\n", 19);
    ASSERT_EQ_INT(kit_lines_open(&L, path, 8, 100, err, sizeof err), 0);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), -2);
    char want[400];
    snprintf(want, sizeof want, "%s:2: line longer than 8 bytes: allowed at most 8", path);
    ASSERT_STR_EQ(err, want);
    kit_lines_close(&L);

    /* the whole input is bounded too */
    ASSERT_EQ_INT(kit_lines_open(&L, path, 100, 10, err, sizeof err), 0);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), -2);
    snprintf(want, sizeof want, "%s: larger than 10 bytes: allowed at most 10", path);
    ASSERT_STR_EQ(err, want);
    kit_lines_close(&L);
}

/* NUL byte, /dev/zero, a directory */
static void t_lines_nul_byte_refused(void)
{
    char path[300], err[512], *line, want[400];
    kit_lines L;
    snprintf(path, sizeof path, "%s/in.txt", dir);
    put(path, "ok\nab\0cd\n", 9);
    ASSERT_EQ_INT(kit_lines_open(&L, path, 100, 100, err, sizeof err), 0);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), 1);
    ASSERT_EQ_INT(kit_lines_next(&L, &line, err, sizeof err), -2);
    snprintf(want, sizeof want, "%s:2: NUL byte in the text: allowed a text file", path);
    ASSERT_STR_EQ(err, want);
    kit_lines_close(&L);
}

/* only a regular file is read (issue 33): a device, a directory and
 * a FIFO with no writer are refused at once, never read or waited on */
static void t_lines_only_regular_files(void)
{
    char path[300], err[512], want[400];
    kit_lines L;
    ASSERT_EQ_INT(kit_lines_open(&L, "/dev/zero", 4096, 1 << 20, err, sizeof err), -2);
    ASSERT_STR_EQ(err, "'/dev/zero' is a character device, not a regular file: allowed a regular file");
    ASSERT_STR_EQ(L.why, "a character device, not a regular file: allowed a regular file");
    ASSERT_EQ_INT(L.open_errno, 0);
    ASSERT_EQ_INT(kit_lines_open(&L, dir, 100, 100, err, sizeof err), -2);
    snprintf(want, sizeof want, "'%s' is a directory, not a regular file: allowed a regular file", dir);
    ASSERT_STR_EQ(err, want);
    snprintf(path, sizeof path, "%s/fifo", dir);
    ASSERT_EQ_INT(mkfifo(path, 0600), 0);
    ASSERT_EQ_INT(kit_lines_open(&L, path, 100, 100, err, sizeof err), -2);
    snprintf(want, sizeof want, "'%s' is a FIFO, not a regular file: allowed a regular file", path);
    ASSERT_STR_EQ(err, want);
    unlink(path);
}

/* a name with a newline is escaped: the message stays one line */
static void t_lines_newline_in_name_escaped(void)
{
    char err[512];
    kit_lines L;
    ASSERT_EQ_INT(kit_lines_open(&L, "no\nsuch", 100, 100, err, sizeof err), -2);
    ASSERT_STR_EQ(err, "cannot read 'no\\x0asuch': No such file or directory");
}

/* commit replaces, append copies the old content first, discard leaves
 * the target alone; a write failing half way (file-size limit: EFBIG with
 * SIGXFSZ ignored): commit reports it, the old file is whole, no temporary */
static void t_outfile_replace_append_failed_write(void)
{
    char path[300], err[512];
    kit_outfile o;
    snprintf(path, sizeof path, "%s/in.txt", dir);
    put(path, "ok\n", 3); /* a file beside the output: entries() counts it */
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ASSERT_EQ_INT(kit_outfile_probe(path, err, sizeof err), 0);
    ASSERT_EQ_INT(file_size(path), -1); /* probing creates nothing */
    ASSERT_EQ_INT(kit_outfile_open(&o, path, 0, err, sizeof err), 0);
    fputs("first\n", o.f);
    ASSERT_EQ_INT(file_size(path), -1); /* nothing at the target before commit */
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), 0);
    ASSERT_EQ_INT(file_size(path), 6);
    ASSERT_EQ_INT(kit_outfile_open(&o, path, 1, err, sizeof err), 0);
    fputs("second\n", o.f);
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), 0);
    ASSERT_EQ_INT(file_size(path), 13); /* appended after a copy of the old content */
    ASSERT_EQ_INT(kit_outfile_open(&o, path, 0, err, sizeof err), 0);
    fputs("dropped\n", o.f);
    kit_outfile_discard(&o);
    ASSERT_EQ_INT(file_size(path), 13);
    ASSERT_EQ_INT(entries(), 2); /* in.txt, out.txt: no temporary left */

    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    ASSERT_EQ_INT(kit_outfile_open(&o, path, 1, err, sizeof err), 0);
    for (int i = 0; i < 1000; i++)
        fputs("0123456789\n", o.f);
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), -1);
    setrlimit(RLIMIT_FSIZE, &old);
    char want[400];
    snprintf(want, sizeof want, "cannot write '%s': File too large", path);
    ASSERT_STR_EQ(err, want);
    ASSERT_EQ_INT(file_size(path), 13);
    ASSERT_EQ_INT(entries(), 2);
    unlink(path); /* the case can run again */
}

/* a device is written in place, and a full one is an error */
static void t_outfile_device_in_place(void)
{
    char err[512];
    kit_outfile o;
    ASSERT_EQ_INT(kit_outfile_probe("/dev/full", err, sizeof err), 0);
    ASSERT_EQ_INT(kit_outfile_open(&o, "/dev/full", 0, err, sizeof err), 0);
    fputs("x\n", o.f);
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), -1);
    ASSERT_STR_EQ(err, "cannot write '/dev/full': No space left on device");
    ASSERT_EQ_INT(kit_outfile_open(&o, "/dev/null", 0, err, sizeof err), 0);
    fputs("x\n", o.f);
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), 0);
}

/* a directory, a missing folder */
static void t_outfile_directory_missing_folder(void)
{
    char path[300], err[512];
    kit_outfile o;
    ASSERT_EQ_INT(kit_outfile_probe(dir, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "Is a directory");
    snprintf(path, sizeof path, "%s/none/x", dir);
    ASSERT_EQ_INT(kit_outfile_probe(path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "No such file or directory");
    ASSERT_EQ_INT(kit_outfile_open(&o, path, 0, err, sizeof err), -1);
}

/* a dangling link: its target is made and the link kept, as the
 * shell's > does (issue 28: the link was replaced by a file) */
static void t_outfile_dangling_link_and_same_file(void)
{
    char link[300], target[300], err[512];
    kit_outfile o;
    snprintf(link, sizeof link, "%s/link.params", dir);
    snprintf(target, sizeof target, "%s/real.params", dir);
    ASSERT_EQ_INT(symlink("real.params", link), 0);
    ASSERT_EQ_INT(kit_outfile_open(&o, link, 0, err, sizeof err), 0);
    fputs("k = 1\n", o.f);
    ASSERT_EQ_INT(kit_outfile_commit(&o, err, sizeof err), 0);
    struct stat lst;
    ASSERT_EQ_INT(lstat(link, &lst), 0);
    ASSERT_TRUE(S_ISLNK(lst.st_mode));
    ASSERT_EQ_INT((int)file_size(target), 6);
    /* two names of one file: the same path spelt two ways, a link, a file
     * not there yet; never a device or two different files */
    char other[300], dotted[300];
    snprintf(other, sizeof other, "%s/other.params", dir);
    ASSERT_EQ_INT(kit_outfile_same(link, target), 1);
    ASSERT_EQ_INT(kit_outfile_same(target, target), 1);
    ASSERT_EQ_INT(kit_outfile_same(other, other), 1);
    ASSERT_EQ_INT(kit_outfile_same(target, other), 0);
    ASSERT_EQ_INT(kit_outfile_same("/dev/null", "/dev/null"), 0);
    snprintf(dotted, sizeof dotted, "%s/./real.params", dir);
    ASSERT_EQ_INT(kit_outfile_same(dotted, target), 1);
    unlink(link);
    unlink(target);
}

/* a loop of links is one error line */
static void t_outfile_link_loop_one_error(void)
{
    char link[300], other[300], err[512];
    snprintf(link, sizeof link, "%s/link.params", dir);
    ASSERT_EQ_INT(symlink("loop", link), 0);
    snprintf(other, sizeof other, "%s/loop", dir);
    ASSERT_EQ_INT(symlink("link.params", other), 0);
    ASSERT_EQ_INT(kit_outfile_probe(link, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "Too many levels of symbolic links");
    unlink(link);
    unlink(other);
}

static const test_case cases[] = {
    {"lines_last_without_newline", t_lines_last_without_newline},
    {"lines_line_and_input_bounded", t_lines_line_and_input_bounded},
    {"lines_nul_byte_refused", t_lines_nul_byte_refused},
    {"lines_only_regular_files", t_lines_only_regular_files},
    {"lines_newline_in_name_escaped", t_lines_newline_in_name_escaped},
    {"outfile_replace_append_failed_write", t_outfile_replace_append_failed_write},
    {"outfile_device_in_place", t_outfile_device_in_place},
    {"outfile_directory_missing_folder", t_outfile_directory_missing_folder},
    {"outfile_dangling_link_and_same_file", t_outfile_dangling_link_and_same_file},
    {"outfile_link_loop_one_error", t_outfile_link_loop_one_error},
};

/* every case works in one temporary folder, removed at the end */
int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s/test_io.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int rc = TEST_RUN(argc, argv, "test_io", cases);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
        /* leftover temp dir: harmless */
    }
    return rc;
}

