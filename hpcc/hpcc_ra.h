/*
 * hpcc/hpcc_ra.h - between HPCC's side of hpcc-opt (ra_hpcc.c, which sees
 * HPCC's headers) and the kit's side (ra_route.c, which sees the kit's):
 * plain C types only, so neither file includes the other's headers.
 */
#ifndef HPCC_RA_H
#define HPCC_RA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* One MPIRandomAccess update phase as HPCC set it up: this rank's block of
 * the table (global words local_start .. +local_size of table_words, HPCC's
 * block distribution: the first table_words mod P ranks hold one more), and
 * this rank's updates, elements start+1 .. start+count of the stream. */
typedef struct hpcc_ra_job {
    uint64_t *table;
    uint64_t local_start, local_size, table_words;
    int log2_table;
    int lcg; /* 0: HPCC's LFSR stream, 1: its LCG twin */
    uint64_t start, count;
} hpcc_ra_job;

/* Collective over comm: the kit's routed algorithm (bin/ra_opt's, with its
 * defaults: the cost model's shape, the node hop through shared memory, the
 * 1024-update budget) applies the job's updates to the table.  Returns 0,
 * or the kit's exit code (2 usage, 3 resource) with one line in err on
 * every rank. */
int hpcc_ra_route(MPI_Comm comm, const hpcc_ra_job *job, char *err, size_t errlen);

/* Collective over comm: the ranks' settings (TORUS_*, RA_* and
 * OMP_NUM_THREADS, and the words of the command line) agree.  0, else 2
 * with one line in rank 0's err naming the first difference. */
int hpcc_ra_agree(MPI_Comm comm, int argc, char **argv, char *err, size_t errlen);
/* Right after MPI_Init: 0, or 2 when another MPI library's launcher
 * started this process (kit_mpi_launch_check: one line from the launch's
 * first process). */
int hpcc_ra_launch_check(void);

/* The kit's version and what the last hpcc_ra_route ran, for rank 0's
 * one line on stdout. */
const char *hpcc_ra_version(void);
const char *hpcc_ra_last_run(void);

#endif
