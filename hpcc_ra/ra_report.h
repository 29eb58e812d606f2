/* ra_report.h - results of one test and the three ways they are written. */
#ifndef RA_REPORT_H
#define RA_REPORT_H

#include <stdio.h>
#include "ra.h"

typedef enum { RA_TEST_MPI = 0, RA_TEST_STAR, RA_TEST_SINGLE } ra_test_kind;

typedef struct ra_result {
    ra_test_kind test;
    ra_gen_kind gen;
    const char *algorithm;
    int hpcc_algorithm_id;
    int ranks;
    int log2_table;          /* global table (MPI) or per-process table (Star/Single) */
    uint64_t table_words;
    uint64_t default_updates; /* HPCC's recommended count: 4 * table */
    uint64_t updates;        /* executed, summed over ranks */
    double time_s;           /* timed kernel, wall clock */
    double check_time_s;     /* verification, -1 when skipped */
    double gups;             /* MPI: total; Star: mean per process; Single: rank 0 */
    double gups_min, gups_max, gups_sum; /* Star only */
    double time_bound;       /* seconds, 0 when off */
    double sample_time_s;    /* time-bound sample, 0 when none */
    int64_t errors;          /* -1 when not verified */
    uint64_t fingerprint;
    ra_stats stats;          /* reduced over ranks */
    char shape[64];
    int threads;             /* OpenMP threads (Star/Single) */
    int huge_pages;
} ra_result;

const char *ra_test_name(ra_test_kind t);
/* HPCC's section and key prefix, e.g. "MPIRandomAccess_LCG". */
void ra_hpcc_prefix(const ra_result *r, char *buf, size_t len);

/* stdout key block: "key: value" lines. */
void ra_report_keys(FILE *f, const ra_result *r);
/* One HPCC-format section (Begin of ... section. ... End of ... section.). */
void ra_report_hpcc_section(FILE *f, const ra_result *r);
/* HPCC Summary block with every RandomAccess key; unset values print -1. */
void ra_report_hpcc_summary(FILE *f, const ra_result *rs, int n, int comm_procs,
                            double wtick, int success);
/* JSON object {"results": [...]} for all tests of the run. */
void ra_report_json(FILE *f, const ra_result *rs, int n);

/* Derived figures, 0 when undefined. */
double ra_result_sbf(const ra_result *r);
double ra_result_mean_fill(const ra_result *r);
double ra_result_hops_per_update(const ra_result *r);
double ra_result_bytes_per_update(const ra_result *r);

#endif
