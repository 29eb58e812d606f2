/* ra_report.h - results of one test and the three ways they are written. */
#ifndef RA_REPORT_H
#define RA_REPORT_H

#include <stdio.h>
#include "ra.h"
#include "ra_ceiling.h"
#include "ra_papi.h"

/* Ceiling is the kit's own (ra_ceiling.h): reported beside Star, never in
 * the HPCC file. */
typedef enum { RA_TEST_MPI = 0, RA_TEST_STAR, RA_TEST_SINGLE, RA_TEST_CEILING } ra_test_kind;

typedef struct ra_result {
    ra_test_kind test;
    ra_gen_kind gen;
    const char *algorithm;
    int ranks;
    int log2_table;          /* global table (MPI) or per-process table (Star/Single) */
    uint64_t table_words;
    uint64_t default_updates; /* HPCC's recommended count: 4 * table */
    uint64_t updates;        /* executed, summed over ranks */
    double time_s;           /* timed kernel, wall clock (Star: slowest rank) */
    double rank_time_s;      /* Star: rank 0's own kernel time; Single: the
                              * selected rank's (HPCC prints that rank's run) */
    double check_time_s;     /* verification, -1 when skipped */
    double cpu_time_s;       /* process CPU time in the kernel: rank 0's (Single: the selected rank's) */
    double check_cpu_s;      /* rank 0's process CPU time in verification */
    double gups;             /* MPI: total; Star: mean per process; Single: the selected rank */
    double gups_min, gups_max, gups_sum; /* Star and Ceiling */
    int ceil_kind, ceil_depth;  /* Ceiling: the kernel and depth that won the trials */
    double ceil_trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS]; /* Ceiling: each trial's GUPS summed over ranks */
    double time_bound;       /* seconds, 0 when off */
    double sample_time_s;    /* time-bound sample, 0 when none */
    int64_t errors;          /* -1 when not verified; Star: summed over ranks */
    int64_t rank_errors;     /* Star: rank 0's own errors; Single: the selected rank's */
    int nodes_with_error;    /* Star/Single: ranks whose table had any error */
    int nodes_failed;        /* Star/Single: ranks over HPCC's 1% of their table */
    int node_selected;       /* Single: the rank HPCC's way picked (random, not 0 when P > 1) */
    uint64_t fingerprint;
    ra_stats stats;          /* reduced over ranks */
    double prof_min[RA_PROF_MAX], prof_max[RA_PROF_MAX]; /* --profile: each rank's share
                              * of the timed run per activity (stats.prof_names),
                              * smallest and largest over ranks */
    char shape[64];
    int nodes, per_node;     /* the node layout: nodes, most ranks on one */
    char nodes_source[24];   /* where the layout came from (torus_node_source) */
    char keys[320];          /* the algorithm's own "name: value" lines (ra_run.keys) */
    int threads;             /* OpenMP threads (Star/Single) */
    int huge_pages;
    int papi_requested;      /* --papi given (MPI test) */
    int papi_n;              /* events counted, 0 = none */
    char papi_names[RA_PAPI_MAX][48];
    uint64_t papi_counts[RA_PAPI_MAX]; /* summed over ranks */
} ra_result;

/* Facts of the run HPCC puts in its header and Summary beside the results. */
typedef struct ra_hpcc_env {
    const char *prog;        /* e.g. "ra_opt" */
    const char *summary;     /* the algorithm's one-line description */
    const char *hostname;
    const char *mpi_library; /* MPI_Get_library_version, first line */
    const char *build;       /* compiler and flags */
    int comm_procs;
    double wtick;
    int success;             /* ra_hpcc_success() of the run's results */
    double mem_mib;          /* --mem per process in MiB; -1 when not given */
    long openmp;             /* _OPENMP, -1 without OpenMP */
    int omp_threads, omp_max_threads, omp_procs;
} ra_hpcc_env;

const char *ra_test_name(ra_test_kind t);
/* HPCC's section and key prefix, e.g. "MPIRandomAccess_LCG". */
void ra_hpcc_prefix(const ra_result *r, char *buf, size_t len);

/* stdout key block: "key: value" lines. */
void ra_report_keys(FILE *f, const ra_result *r);
/* An HPCC 1.5 output file for one run is header, sections, Summary, footer;
 * like HPCC, runs are appended one after the other. */
void ra_report_hpcc_header(FILE *f, const ra_hpcc_env *env);
/* One HPCC-format section (Begin of ... section. ... End of ... section.). */
void ra_report_hpcc_section(FILE *f, const ra_result *r);
/* HPCC 1.5 Summary block: every key HPCC prints, in its order; the
 * RandomAccess ones carry our results, other benchmarks' keys are -1
 * (not run), machine constants are this machine's. */
void ra_report_hpcc_summary(FILE *f, const ra_result *rs, int n, const ra_hpcc_env *env);
/* "End of HPC Challenge tests." trailer. */
void ra_report_hpcc_footer(FILE *f);
/* JSON object {"results": [...]} for all tests of the run. */
void ra_report_json(FILE *f, const ra_result *rs, int n);

/* Key name of a PAPI event: "PAPI_L1_DCM" -> "papi_l1_dcm". */
void ra_papi_key(const char *event, char *buf, size_t len);

/* HPCC's pass rule for one table: errors <= 1% of its words (verified). */
int ra_hpcc_passed(int64_t errors, uint64_t words);
/* 0 when r is an MPI test that ran no update (a --time-bound its 1%
 * sample left no room for): nothing measured, so never "passed". */
int ra_result_measured(const ra_result *r);
/* HPCC's Summary "Success": 1 when every test passed its check under HPCC's
 * 1% rule (MPI: the global table; Star, Single: every rank's own table);
 * 0 when any failed, was not verified (--no-verify), since HPCC always
 * verifies, or measured nothing (ra_result_measured).  The exit code stays
 * strict: any error at all exits 1. */
int ra_hpcc_success(const ra_result *rs, int n);

/* Derived figures, 0 when undefined. */
double ra_result_sbf(const ra_result *r);
double ra_result_mean_fill(const ra_result *r);
double ra_result_hops_per_update(const ra_result *r);
double ra_result_bytes_per_update(const ra_result *r);

#endif
