/* base_algo.h - the classic HPCC MPIRandomAccess algorithm (base_algo.c) as
 * an ra_algorithm: bin/ra_base's, and the one ra_calibrate times to fit the
 * direct model's t_wait_direct. */
#ifndef BASE_ALGO_H
#define BASE_ALGO_H

#include "ra.h"

extern const ra_algorithm ra_base_algorithm;

/* Receives the algorithm keeps posted (and tests with one MPI_Testany per
 * update) at nprocs ranks: 4 when nprocs > 4, else 1, as HPCC 1.5. */
int ra_base_receives(int nprocs);

#endif
