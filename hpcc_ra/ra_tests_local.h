/* ra_tests_local.h - the tests where every rank works alone on a table of
 * its own (HPCC's Star and Single, the kit's Ceiling); internal to the
 * harness. */
#ifndef RA_TESTS_LOCAL_H
#define RA_TESTS_LOCAL_H

#include "ra.h"
#include "ra_report.h"

/* Collective.  kind: RA_TEST_STAR (every rank, HPCC's kernel), RA_TEST_SINGLE
 * (one rank picked as HPCC picks it) or RA_TEST_CEILING (every rank, the
 * prefetched kernels of ra_ceiling.c, the best of them).  Each rank uses
 * the first 2^floor(log2(smallest block)) words of its table.  Fills res;
 * returns KIT_EXIT_OK. */
int ra_test_local(ra_run *run, const ra_config *cfg, int huge, ra_gen_kind gen, ra_test_kind kind, ra_result *res);

/* Collective over comm: a short trial (at most 2^22 of upd updates) of
 * every ceiling kernel at every depth on every rank at once, each rank on
 * its own table t of 2^log2 words (each trial starts from T[i] = i); the
 * trial rates summed over ranks go into trials, the best setting (the
 * same on every rank) into *kind and *depth. */
void ra_ceiling_pick(MPI_Comm comm, uint64_t *t, int log2, ra_gen_kind gen, uint64_t upd,
                     double trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS], int *kind, int *depth);

#endif
