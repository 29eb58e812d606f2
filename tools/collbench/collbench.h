/*
 * collbench.h - what the files of bin/collbench share: the ops, the
 * options, a result row, the MPI-mode bench and the multisend patterns.
 *
 * bin/collbench: the collectives of torus/coll raced against the MPI
 * library's own, OSU/IMB style, with an alpha-beta-gamma prediction
 * beside every measurement.  Its files, by job:
 *   options.c    the option table (kit/opt_spec.c), --sizes, --op, --algorithms
 *   mpi_time.c   MPI mode: the OSU timing loop, calibration, one op over every size
 *   validate.c   --validate: every algorithm against the MPI library's result
 *   multisend.c  the multisend patterns halo4d, transpose, sparse (paper 001) over MPI
 *   simulate.c   --simulate: the same on the timed simulator with a BlueGene/L model
 *   output.c     the tables on stdout, the preamble, --csv and --json
 *   tune.c       --tune: the fastest algorithm per op and size as a selection table
 *   main.c       --choose, and main: options, MPI start, the modes, the result files
 *
 * Protocol (OSU micro-benchmarks): per operation, size and algorithm,
 *   MPI_Barrier; warm-up calls; then per iteration MPI_Barrier (not timed),
 *   MPI_Wtime around one call.  Each rank's mean time per call is reduced
 *   to min/avg/max over ranks.  "mpi" is the library's own collective,
 *   "auto" what torus/coll's selection table picks, every other name an
 *   algorithm of torus_coll_algorithms(op) forced by torus_coll_force.
 * Calibration, in the same run: alpha = half the round trip of an 8-byte
 *   ping-pong between ranks 0 and 1, beta from a 1 MiB ping-pong, gamma
 *   from rank 0 summing two 1 MiB vectors of doubles the way the library's
 *   reductions do; pred_us = torus_coll_predict(alpha, beta, gamma).
 * --validate: every algorithm's result against the MPI library's own
 *   collective on the same data; one line per failure, exit 1.
 * --simulate SHAPE: no MPI collective; the same algorithms on the timed
 *   simulator (torus_coll_vrun_timed) with a BlueGene/L link model, timed
 *   with the simulated clock, calibrated with a simulated ping-pong.
 *
 * Collbench knows no algorithm by name: it lists what the registry holds,
 * so an algorithm registered in torus/coll/<op>.def is benchmarked,
 * validated and plotted without a change here.
 */
#ifndef COLLBENCH_H
#define COLLBENCH_H

#include "torus.h"
#include "kit_agree.h"
#include "kit_cli.h"
#include "torus_coll.h"
#include "kit_io.h"
#include "kit_mem.h"
#include "kit_mix.h"
#include "torus_mpi.h"
#include "kit_opt.h"
#include "torus_timed.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
/* tune.c */
int cb_tune_begin(const opts *o, char *err, size_t errlen);
int cb_tune_end(const opts *o, const run_info *ri, char *err, size_t errlen);

#endif

/* ---- operations ----------------------------------------------------------- */

/* What --op names: alltoall and alltoallv are one collective of the
 * library (TORUS_COLL_ALLTOALLV) called two ways. */
enum { K_BARRIER, K_BCAST, K_ALLREDUCE, K_ALLTOALL, K_ALLTOALLV, NKINDS };
extern const char *const cb_kind_name[NKINDS];
extern const torus_coll_op cb_kind_op[NKINDS];

/* The multisend patterns of paper 001 (--op halo4d, transpose, sparse):
 * not collectives of the registry but plans of torus_multisend; their rows
 * carry kind NKINDS + index. */
enum { NPATS = 3 };
extern const char *const cb_pat_name[NPATS];

static inline const char *op_label(int kind)
{
    return kind < NKINDS ? cb_kind_name[kind] : cb_pat_name[kind - NKINDS];
}

static inline int is_a2a(int k)
{
    return k == K_ALLTOALL || k == K_ALLTOALLV;
}

/* ---- the bgl link model of --simulate --------------------------------------- */

/* BlueGene/L (paper 000 sec. 2): a 700 MHz core writes a torus packet in 75
 * cycles and reads one in 204; packets carry 240 bytes of payload (256 on
 * the wire); a link moves 154 MB/s of payload per direction.  The
 * per-message software overhead and gamma are not in the paper: 1000
 * cycles per message at each end and 1 cycle per byte combined are this
 * tool's assumptions (with them an 8-byte message to a neighbour takes
 * 3.5 us, the few microseconds of BlueGene/L's MPI latency).  The per-link
 * latency is torusmodel --simulate's default. */
#define BGL_HZ 700e6
#define BGL_LINK_BW 154e6
#define BGL_PACKET_BYTES 240.0
#define BGL_HEADER_BYTES 16.0
#define BGL_SEND_PKT_CYCLES 75.0
#define BGL_RECV_PKT_CYCLES 204.0
#define BGL_MSG_CYCLES 1000.0
#define BGL_GAMMA_CYCLES 1.0
#define BGL_LATENCY_S 100e-9

/* ---- options ---------------------------------------------------------------- */

#define MAX_SIZES 256
#define MAX_ROUNDS 64
#define MAX_SIZE_BYTES (1ULL << 30)
#define BIG_SIZE (64u * 1024u) /* above this, fewer iterations (as OSU does) */

typedef struct opts {
    int kinds[NKINDS];
    size_t sizes[MAX_SIZES];
    int nsizes;
    const char *alg_list; /* NULL: all */
    long iters, warmup, rounds;
    int iters_set, warmup_set, rounds_set;
    const char *dims;
    int validate;
    const char *csv, *json;
    const char *simulate;
    const char *choose; /* --choose SHAPE: print the table's choices, run nothing */
    long per_node;      /* --per-node K with --choose */
    int per_node_set;
    double link_bw, latency;
    int link_bw_set, latency_set;
    int pats[NPATS];    /* multisend patterns to run */
    long k;             /* --k: destinations per rank of sparse */
    uint64_t seed;      /* --seed: sparse's destinations */
    int dry_run;        /* --dry-run: check, run nothing */
    const char *tune;   /* --tune FILE: the fastest per op and size into a selection table */
} opts;

/* ---- results ----------------------------------------------------------------- */

typedef struct row {
    int kind;
    size_t size;
    char alg[64];    /* auto, mpi or an algorithm */
    char chosen[64]; /* what ran (auto: the table's choice) */
    int iters, warmup;
    double min_us, avg_us, max_us;
    double mbs, pred_us, ratio; /* < 0: none */
    /* multisend patterns: set-up, the simulator's link-model bound and the
     * ratio to it, and the calls after which set-up is paid (< 0: none) */
    double setup_us, bound_us, ratio_bound, breakeven;
} row;

typedef struct run_info {
    int ranks, nodes, per_node;
    const char *node_note; /* torus_node_note: "" or " (emulated: TORUS_NODES)" (MPI runs only) */
    const char *node_source; /* torus_node_source, or "simulated" (--json's nodes_source) */
    char shape[128], shape_src[160];
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    char date[64];
    char host[128]; /* rank 0's host name, commas and quotes replaced (a CSV field) */
    const char *mode; /* "mpi" or "simulate:bgl" */
    int rounds;       /* --rounds: a rank's time is the median of its round means */
    int iters, iters_big, warmup, warmup_big; /* per size, and above BIG_SIZE (the JSON's keys) */
    double alpha, beta, gamma;
    char calib[320];
    row *rows;
    int nrows, caprows;
    int checks, failures;
    const char *validation_note; /* about the MPI library's references, or NULL */
} run_info;
/* What is left out of an op, so that every missing row is accounted for
 * by one notice line per algorithm: sizes at which its preconditions fail
 * on this shape (torus_coll_predict says it cannot run: timing it would
 * time the table's choice under its name), or the size from which it fell
 * back at run time (a precondition on the call's data, e.g. uniform
 * blocks). */
#define MAX_ALGS 64
typedef struct skips {
    size_t fell_back[MAX_ALGS]; /* per algorithm index: the size it fell back at, 0 none */
    char cannot[MAX_ALGS][256]; /* sizes at which it cannot run here: "1024, 4096" */
} skips;
/* ---- MPI mode ------------------------------------------------------------- */

typedef struct bench {
    const opts *o;
    int me, n;
    torus_map map;
    int *node_of;
    torus_mpi *tm[2];
    torus_transport tp[2];
    torus_coll *c_auto;  /* never forced: what an application gets (TORUS_COLL_<OP> applies) */
    torus_coll *c_named; /* forced to each algorithm in turn */
    /* per op: buffers of the largest size */
    unsigned char *sbuf, *rbuf;
    size_t *cnt, *dis;   /* uniform counts for the v call */
    int *icnt, *idis;    /* the same for MPI */
    int u64_minmax_broken; /* the library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare signed */
    MPI_Win win;         /* barrier check: a counter at rank 0 */
    uint64_t *win_base;
    run_info *ri;
} bench;
/* ---- validation (MPI mode) ------------------------------------------------ */

/* Checks per algorithm and size at most (allreduce: 3 types x their
 * operations), and so per size. */
#define MAX_CHECKS 12
#define SIZE_CHECKS ((MAX_ALGS + 2) * MAX_CHECKS)

/* The checks of every algorithm at one size, decided together in one
 * collective (collectives of the MPI library are slow on an oversubscribed
 * machine): what[k] names check k, why[k] is this rank's first difference
 * ("" when right), skip[k] marks a check whose call fell back to another
 * algorithm (the same on every rank), which is not counted. */
typedef struct checks {
    int n;
    char what[SIZE_CHECKS][160];
    char why[SIZE_CHECKS][256];
    int skip[SIZE_CHECKS], bad[SIZE_CHECKS], nbad[SIZE_CHECKS];
} checks;
/* The MPI library's results at one size, made once and compared with
 * every algorithm (and freed when the size changes). */
enum { AR_CASES = 11 };
typedef struct vref {
    int kind;
    size_t bytes;       /* (size_t)-1: none made yet */
    unsigned char *bc[2];   /* bcast: what MPI_Bcast gave from roots 0 and P-1 */
    uint64_t *ar[AR_CASES]; /* allreduce: per (type, operation) */
    unsigned char *a2a[2];  /* alltoall(v): MPI_Alltoallv's receive buffer, even and uneven counts */
} vref;
/* ---- multisend patterns: halo4d, transpose, sparse (paper 001) ------------- */

/* The patterns' process grids: halo4d's 4-D grid (dimension 0 fastest in
 * rank order) and transpose's R x C grid (rank = a + R b: a row is the R
 * ranks of one b, a column the C ranks of one a). */
typedef struct pgrid {
    int g4[4];
    int R, C;
} pgrid;
/* One exchange: a multisend spec with its MPI int copies. */
typedef struct pstep {
    int ndest, nsrc;
    int *dests, *srcs;
    size_t *sc, *sd, *rc, *rd;
    int *isc, *isd, *irc, *ird;
    size_t slen, rlen;
} pstep;

typedef struct pattern {
    int nsteps; /* transpose: rows, then columns */
    pstep st[2];
} pattern;


/* options.c */
int cb_registered(torus_coll_op op, const char *name);
void cb_print_registry(const char *head);
void cb_usage(void);
int cb_parse_options(int argc, char **argv, opts *o, char *err, size_t errlen);
/* the configuration the ranks agree on (kit_agree_text) */
void cb_agree_text(int argc, char **argv, char *buf, size_t len);
int cb_wanted(const opts *o, const char *name);
int cb_iters_for(const opts *o, size_t bytes);
int cb_warmup_for(const opts *o, size_t bytes);

/* output.c */
int cb_add_row(run_info *ri, const row *r);
double cb_payload(int kind, size_t bytes, int n);
void cb_fmt_num(char *buf, size_t len, double v, int prec);
void cb_print_header(int kind);
void cb_row_label(const row *r, char *label, size_t len);
void cb_print_row(const row *r);
int cb_probe_file(const char *opt, const char *path, char *err, size_t errlen);
int cb_write_results(const opts *o, const run_info *ri, char *err, size_t errlen);
void cb_mpi_library(char *lib);
void cb_now_string(char *buf, size_t len);
void cb_print_preamble(const opts *o, const run_info *ri, const char *timer);
void cb_skip_cannot(skips *sk, int a, size_t bytes);
void cb_skip_fell_back(skips *sk, int a, int print, int kind, const char *name, const char *ran, size_t bytes);
void cb_print_skips(int kind, const char *const *algs, int nalg, const skips *sk);

/* mpi_time.c */
void cb_call_failed(const bench *b, torus_coll *c, int kind, size_t bytes, int rc);
double cb_median(double *v, int n);
void cb_calibrate(bench *b);
double cb_ratio_of(double avg, double mpi_avg);
void cb_run_op_mpi(bench *b, int kind);
int cb_setup_mpi(bench *b, char *err, size_t errlen);
void cb_teardown_mpi(bench *b);

/* validate.c */
int cb_check_add(checks *ck, const char *what);
void cb_decide(bench *b, checks *ck);
void cb_need_memory(bench *b, int ok, const char *what, size_t bytes);
void cb_vref_free(vref *v);
int cb_u64_minmax_broken(void);
size_t cb_uneven(int from, int to, size_t bytes);
void cb_validate(bench *b, vref *v, checks *ck, int kind, torus_coll *c, const char *alg, const char *label,
              size_t bytes);

/* multisend.c */
void cb_pgrid_of(pgrid *pg, int n, const torus_shape *sim);
void cb_pattern_free(pattern *p);
int cb_pattern_make(pattern *p, int pi, const opts *o, const pgrid *pg, int me, int n, size_t size,
                 int irregular, size_t gap);
void cb_plans_ran(torus_multisend *const *plan, int nsteps, char *buf, size_t len);
torus_multisend_spec cb_spec_of(const pstep *s);
double cb_pattern_payload(const pattern *p, int me);
void cb_print_pattern_header(int pi, const opts *o, const pgrid *pg, int sim);
void cb_print_pattern_row(const row *r, int sim);
void cb_run_pattern_mpi(bench *b, int pi, const pgrid *pg);

/* simulate.c */
int cb_simulate_main(const opts *o, run_info *ri, char *err, size_t errlen);

/* tune.c */
int cb_tune_begin(const opts *o, char *err, size_t errlen);
int cb_tune_end(const opts *o, const run_info *ri, char *err, size_t errlen);

#endif
