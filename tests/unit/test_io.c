/*
 * test_io.c - kit_io.h: the bounded line reader (limits, NUL bytes,
 * directories, a last line without newline) and the atomic output file
 * (replace, append, a write failing half way leaves the old file whole
 * and no temporary, a device written in place, probing); what a file
 * holds as the ranks' agreement compares it (kit_digest_file).
 */
#include "../test.h"
#include "kit_agree.h"
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

/* the kit's digest is FNV-1a 64: its published values */
static void t_digest_known_values(void)
{
    ASSERT_EQ_U64(kit_digest(KIT_DIGEST_SEED, "", 0), 0xcbf29ce484222325ULL);
    ASSERT_EQ_U64(kit_digest(KIT_DIGEST_SEED, "a", 1), 0xaf63dc4c8601ec8cULL);
    ASSERT_EQ_U64(kit_digest(KIT_DIGEST_SEED, "foobar", 6), 0x85944171f73967e8ULL);
    /* folding in pieces is folding the whole */
    ASSERT_EQ_U64(kit_digest(kit_digest(KIT_DIGEST_SEED, "foo", 3), "bar", 3), 0x85944171f73967e8ULL);
}

/* generated files: the value names the path, the size and the digest of
 * exactly the bytes; one byte changed anywhere, or one byte more, is
 * another value; the same bytes in another file are the same digest */
static void t_digest_file_generated(void)
{
    char a[300], b[300], va[400], vb[400], want[400];
    static unsigned char buf[70000];
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    snprintf(a, sizeof a, "%s/da", dir);
    snprintf(b, sizeof b, "%s/db", dir);
    for (int i = 0; i < 60; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        /* sizes about the reader's 64 KiB chunk too */
        size_t n = i < 4 ? (size_t)i : i < 8 ? 65536 + (size_t)i - 6 : (size_t)(s % sizeof buf);
        for (size_t k = 0; k < n; k++)
            s ^= s << 13, s ^= s >> 7, s ^= s << 17, buf[k] = (unsigned char)s;
        put(a, (const char *)buf, n);
        put(b, (const char *)buf, n);
        kit_digest_file(a, va, sizeof va);
        snprintf(want, sizeof want, "'%s' (%zu bytes, digest %016llx)", a, n,
                 (unsigned long long)kit_digest(KIT_DIGEST_SEED, buf, n));
        ASSERT_STR_EQ(va, want);
        kit_digest_file(b, vb, sizeof vb);
        ASSERT_STR_EQ(strstr(vb, "' ("), strstr(va, "' ("));
        if (n) {
            size_t at = (size_t)(s % n);
            buf[at] ^= (unsigned char)(1u << (s >> 61));
            put(b, (const char *)buf, n);
            kit_digest_file(b, vb, sizeof vb);
            ASSERT_TRUE(strcmp(strstr(vb, "' ("), strstr(va, "' (")) != 0);
        }
        put(b, (const char *)buf, n + 1);
        kit_digest_file(b, vb, sizeof vb);
        ASSERT_TRUE(strcmp(strstr(vb, "' ("), strstr(va, "' (")) != 0);
    }
}

/* what cannot be read is its reason, at once: a FIFO never waited on */
static void t_digest_file_unreadable(void)
{
    char path[300], v[400], want[400];
    snprintf(path, sizeof path, "%s/nosuch", dir);
    kit_digest_file(path, v, sizeof v);
    snprintf(want, sizeof want, "'%s' (unreadable: No such file or directory)", path);
    ASSERT_STR_EQ(v, want);
    snprintf(path, sizeof path, "%s/fifo2", dir);
    ASSERT_EQ_INT(mkfifo(path, 0600), 0);
    kit_digest_file(path, v, sizeof v);
    snprintf(want, sizeof want, "'%s' (unreadable: a FIFO, not a regular file: allowed a regular file)", path);
    ASSERT_STR_EQ(v, want);
    unlink(path);
}

/* the agreement's text carries what each file input holds: a file option
 * given and a TORUS_* file setting */
static void t_agree_text_has_content(void)
{
    static const kit_opt spec[] = {
        {.name = "map", .type = KIT_OPT_FILE_IN, .meta = "FILE", .help = "a map"},
        {.name = "out", .type = KIT_OPT_FILE_OUT, .meta = "FILE", .help = "an output"},
        {0},
    };
    char m[300], h[300], text[4096], line[700], v[400];
    snprintf(m, sizeof m, "%s/map", dir);
    snprintf(h, sizeof h, "%s/hosts", dir);
    put(m, "0\n1\n", 4);
    put(h, "a\nb\n", 4);
    char *argv[] = {"p", "--map", m, "--out", h, NULL};
    setenv("TORUS_HOSTFILE", h, 1);
    kit_agree_text(spec, 5, argv, text, sizeof text);
    unsetenv("TORUS_HOSTFILE");
    kit_digest_file(m, v, sizeof v);
    snprintf(line, sizeof line, "\ncontent --map=%s\n", v);
    ASSERT_STR_CONTAINS(text, line);
    kit_digest_file(h, v, sizeof v);
    snprintf(line, sizeof line, "\ncontent TORUS_HOSTFILE=%s\n", v);
    ASSERT_STR_CONTAINS(text, line);
    /* an output is not read: no content line for --out */
    ASSERT_TRUE(strstr(text, "content --out") == NULL);
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
    {"digest_known_values", t_digest_known_values},
    {"digest_file_generated", t_digest_file_generated},
    {"digest_file_unreadable", t_digest_file_unreadable},
    {"agree_text_has_content", t_agree_text_has_content},
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

