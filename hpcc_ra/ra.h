/*
 * ra.h - the HPCC RandomAccess harness: what every algorithm plugs into.
 *
 * An algorithm is a struct ra_algorithm { name, options, setup, update,
 * teardown }.  The driver (ra_main.c) parses options, sizes and distributes
 * the table, calls setup once, then update() for the timed run (and, with a
 * time bound, once more for the 1% sample), and owns timing, verification,
 * fingerprint and reporting.  update() must apply every update of its slice
 * of the stream exactly once, to the owning rank's table, before it returns
 * on every rank.
 */
#ifndef RA_H
#define RA_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "ra_dist.h"
#include "ra_gen.h"
#include "ra_stats.h"
#include "torus_mpi.h"
#include "kit_cli.h"
#include "kit_opt.h"

#ifdef HPCC_RA_VERSION
#define RA_VERSION HPCC_RA_VERSION
#else
#define RA_VERSION "unknown"
#endif

/* exit codes: the kit's one set, KIT_EXIT_* (kit_cli.h) */

/* HPCC: at most 1024 updates looked ahead or stored per process. */
#define RA_MAX_PENDING 1024

enum { RA_SUITE_MPI = 1, RA_SUITE_STAR = 2, RA_SUITE_SINGLE = 4, RA_SUITE_CEILING = 8 };
enum { RA_GENS_LFSR = 1, RA_GENS_LCG = 2 };

#define RA_MAX_ALGO_OPTS 16

typedef struct ra_config {
    int log2_table;       /* -1: derive from mem_bytes */
    uint64_t mem_bytes;   /* memory per process; 0: machine default */
    uint64_t updates;     /* total updates; 0: 4 * TableSize */
    double time_bound;    /* seconds; 0 = off */
    int verify;
    int gens;             /* RA_GENS_* mask */
    int suite;            /* RA_SUITE_* mask */
    const char *output;   /* hpccoutf-style file to append, or NULL */
    const char *json;     /* JSON file to write, or NULL */
    int progress;         /* -1 auto (stderr is a tty), 0 off, 1 on */
    int quiet;            /* no preamble */
    int dry_run;          /* --dry-run: check every option and input, run nothing */
    int dry_ranks;        /* --dry-run=P: the ranks a run will have, 0 unknown */
    int papi;             /* --papi given */
    const char *papi_events; /* its comma list, NULL = the default set */
    int n_algo_opts;
    const char *algo_opt_name[RA_MAX_ALGO_OPTS];
    const char *algo_opt_value[RA_MAX_ALGO_OPTS];
} ra_config;

typedef struct ra_progress ra_progress;
struct torus_node_info; /* torus_mpi.h */

typedef struct ra_run {
    MPI_Comm comm;
    int rank, nprocs;
    const ra_config *cfg;
    ra_gen_kind gen;
    int log2_table;
    uint64_t table_size;  /* global words */
    ra_dist table_dist;
    uint64_t *table;      /* this rank's block */
    uint64_t local_start; /* global index of table[0] */
    uint64_t local_size;
    uint64_t upd_start;   /* stream element before this rank's first update */
    uint64_t upd_count;   /* updates this rank generates in this update() */
    ra_stats stats;
    const struct torus_node_info *node; /* ranks sharing this rank's node, found
                                         * once by the driver (torus_node_discover) */
    char shape[64];       /* routing shape used, "" when not applicable */
    /* the algorithm's own facts of the run, "name: value" lines (each name
     * [a-z0-9_], the value without quotes or backslashes): printed after
     * shape in the key block and as strings in the JSON, so tests and
     * scripts read them as keys, never from the preamble's sentences */
    char keys[320];
    void *algo_state;
    ra_progress *progress;
} ra_run;

typedef struct ra_algorithm {
    const char *name;           /* printed as "algorithm:" */
    const char *summary;        /* one line for --help */
    /* its options in the kit's one spec (kit_opt.h), ended by {0}: each
     * value is checked against its type and range while the options are
     * read, before MPI or memory, and handed to setup() as text */
    const kit_opt *options;
    /* Once, collectively, after the table is allocated: read options from
     * run->cfg, build communicators.  Returns an RA_EXIT_* code; on error
     * writes one line into err (same on every rank).  A bad option value
     * written with kit_cli_bad_value() is printed as the kit's option
     * error ("PROG: bad value 'X' for --opt: allowed ..."), any other line
     * as "PROG: error: ...". */
    int (*setup)(ra_run *run, char *err, size_t errlen);
    /* Optional, before MPI starts, on every process alike (no MPI, no
     * communication): checks what the options alone can tell, e.g. a
     * shape's grammar; with files != 0 (--dry-run, one process) also that
     * the files they name can be read, and with cfg->dry_ranks > 0 what
     * setup would check against that many ranks.  KIT_EXIT_OK, else
     * KIT_EXIT_USAGE with one line in err, printed as setup's are. */
    int (*check)(const ra_config *cfg, int files, char *err, size_t errlen);
    int (*update)(ra_run *run);  /* KIT_EXIT_OK or KIT_EXIT_RESOURCE */
    void (*teardown)(ra_run *run);
} ra_algorithm;

/* The driver: returns the process exit code. */
int ra_main(int argc, char **argv, const ra_algorithm *algo);

/* Value of an algorithm option, or NULL if it was not given. */
const char *ra_algo_option(const ra_config *cfg, const char *name);

/* Progress: call now and then (every few thousand updates) with the number of
 * updates this rank has generated in the current update().  Cheap. */
void ra_progress_tick(ra_progress *p, uint64_t generated);

#endif
