/*
 * kit_io.h - the kit's two rules for files, in the bottom layer so every
 * binary shares them:
 *
 *   reading: bounded lines.  A line longer than its limit, a file larger
 *   than its limit, a NUL byte or anything but a regular file (a directory,
 *   FIFO, device, socket) is one error line, never an endless read
 *   (/dev/zero, `yes`), a wait on a FIFO nor a line silently split in two.
 *
 *   writing: atomic files.  Everything goes to a temporary file in the
 *   target's folder; every write is checked (the stream's error flag),
 *   then flush, fsync, close and rename over the target, what git and
 *   SQLite do, so a full disk or a crash never leaves half a result.
 *   Appending copies the old content into the temporary first, so what was
 *   there stays intact whatever happens.  A device or pipe (/dev/stdout,
 *   /dev/full) cannot be renamed over: it is written in place with the
 *   same checks.
 *
 * Messages quote paths escaped and cut (kit_cli_escape): always one line.
 */
#ifndef KIT_IO_H
#define KIT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- bounded line reader ---------------------------------------------- */

typedef struct kit_lines {
    FILE *f;
    int own;           /* kit_lines_close closes f */
    char name[300];    /* the path, escaped, for messages */
    char *buf;         /* the current line, NUL-terminated, no newline */
    size_t cap;
    size_t max_line;   /* bytes per line, newline excluded */
    uint64_t max_bytes; /* bytes in the whole input */
    uint64_t bytes;    /* read so far */
    long lineno;       /* of the line last returned (1-based) */
    /* kit_lines_open's failure: the reason alone, for callers with their
     * own wording ("No such file or directory", "a FIFO, not a regular
     * file: allowed a regular file"), and its errno (0: not a regular file) */
    char why[96];
    int open_errno;
} kit_lines;

/* Opens path for reading lines of at most max_line bytes, max_bytes in all.
 * Only a regular file is read: a directory, FIFO, device or socket is
 * refused without blocking (the open is non-blocking, then fstat), so a
 * FIFO with no writer or /dev/zero never holds a job.  0, or -2 with one
 * line in err ("'PATH' is a FIFO, not a regular file: allowed a regular
 * file", or "cannot read 'PATH': REASON" when the open fails); L->why
 * holds the reason alone and L->name the path escaped, for callers with
 * their own wording ("cannot open params file 'PATH': L->why"). */
int kit_lines_open(kit_lines *L, const char *path, size_t max_line, uint64_t max_bytes, char *err, size_t errlen);

/* The same over a stream the caller owns (a fuzzer's fmemopen buffer);
 * name is what messages call it. */
void kit_lines_stream(kit_lines *L, FILE *f, const char *name, size_t max_line, uint64_t max_bytes);

/* Next line into *line (valid until the next call): 1, 0 at the end, -2
 * bad input (line or file too long, NUL byte, read error) or -3 out of
 * memory, with one line in err naming "NAME:LINE". */
int kit_lines_next(kit_lines *L, char **line, char *err, size_t errlen);

void kit_lines_close(kit_lines *L);

/* ---- atomic output file ----------------------------------------------- */

typedef struct kit_outfile {
    FILE *f;     /* write with stdio; errors are caught at commit */
    char *path;  /* the file replaced: path, or a symbolic link's target */
    char *tmp;   /* the temporary beside it; NULL when written in place */
    char shown[300]; /* the user's path, escaped */
} kit_outfile;

/* Before a long run: will writing path work?  A directory is refused; a
 * device or pipe must open for writing; elsewhere the folder must take a
 * new file (one is made and removed).  0, or -1 with one line in err. */
int kit_outfile_probe(const char *path, char *err, size_t errlen);

/* Starts writing path (append != 0: after a copy of its current content).
 * 0, or -1 with one line in err ("cannot write 'PATH': REASON"); on
 * success the caller must end with commit or discard. */
int kit_outfile_open(kit_outfile *o, const char *path, int append, char *err, size_t errlen);

/* Flush, fsync, close and rename into place.  0, or -1 with one line in
 * err; either way o is released and, on failure, the old file is intact
 * and no temporary is left. */
int kit_outfile_commit(kit_outfile *o, char *err, size_t errlen);

/* Drops what was written (the old file stays) and releases o. */
void kit_outfile_discard(kit_outfile *o);

/* Whether a and b name one file that two outputs would both replace: a
 * regular file (or one that does not exist yet) reached by both, after
 * symbolic links and "." and ".." are followed.  Devices and pipes never
 * count: two outputs to /dev/null are fine. */
int kit_outfile_same(const char *a, const char *b);

/* ---- standard output -------------------------------------------------- */

/* The first call of every binary's main: names the program for the kit's
 * messages (argv0's last part, see kit_prog) and makes sure descriptors
 * 0, 1 and 2 are open.  A closed one gets /dev/null, so that no file the
 * program opens lands on it (a result file taking a closed stdout's place,
 * or error lines written into a result file); a closed stdout is
 * remembered, and a run that had results for it ends with exit 3
 * (kit_stdout_end). */
void kit_stdout_begin(const char *argv0);

/* The program's name, for messages ("ra_opt"; "hpcc-ra" before begin). */
const char *kit_prog(void);

/* Whether this process is the first of its launch, as far as the
 * launcher's environment says before MPI starts (OMPI_COMM_WORLD_RANK:
 * Open MPI; PMI_RANK: MPICH's Hydra and PMI-2; PMIX_RANK; SLURM_PROCID:
 * srun): 1 when it says rank 0 or says nothing (a process started alone),
 * else 0.  What an MPI binary prints before MPI_Init (an option error,
 * --help) is printed by this process only. */
int kit_launch_first(void);
/* The processes of the launch as the launcher's environment says (Open MPI,
 * Hydra/PMI, PMIx, Slurm), 1 when none says.  More than one: a process
 * joins MPI even when its own options stop it, so that ranks given
 * different options meet in the agreement (kit_agree.h) instead of
 * leaving the others waiting in MPI_Init. */
int kit_launch_size(void);

/* fflush(stdout) at a point where a block of results is complete (a key
 * block, a table): a failure's reason is kept for kit_stdout_end, which
 * says it (ENOSPC: /dev/full), where a later flush would only see the
 * stream's error flag. */
void kit_stdout_flush(void);

/* The end of main in the process that writes standard output (rank 0 of
 * an MPI run): flushes stdout and checks every write made to it (the
 * stream's error flag is sticky).  Returns code when all of it went out;
 * else says "PROG: cannot write standard output: REASON" on stderr and
 * returns KIT_EXIT_RESOURCE (3), unless code is already a usage or
 * resource error (2, 3: the first error is the one reported). */
int kit_stdout_end(int code);

/* s as a JSON string: quoted, the quote and the backslash escaped with a
 * backslash, control bytes as u00XX escapes (other bytes as they are: the
 * kit's texts are UTF-8 or ASCII).  0, or -1 when a write to f failed
 * (errno from it).  collbench's and torusmodel's JSON both use it. */
int kit_json_string(FILE *f, const char *s);

#endif
