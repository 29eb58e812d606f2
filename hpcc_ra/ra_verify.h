/* ra_verify.h - independent verification by bulk replay (not the algorithm under test). */
#ifndef RA_VERIFY_H
#define RA_VERIFY_H

#include "ra.h"

/* Replays this rank's executed updates (elements upd_start+1 ..
 * upd_start+upd_count of run->gen) through a chunked MPI_Alltoallv and XORs
 * them into the owners' tables.  Collective.  Since XOR is its own inverse a
 * correct run returns every entry to its initial value.  Returns KIT_EXIT_OK
 * or KIT_EXIT_RESOURCE (out of memory). */
int ra_verify_replay(ra_run *run);

#endif
