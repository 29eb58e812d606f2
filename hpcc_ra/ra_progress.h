/* ra_progress.h - the progress line on stderr for long runs. */
#ifndef RA_PROGRESS_H
#define RA_PROGRESS_H

#include <stdint.h>
#include "ra.h"

/* Starts a progress meter for `total` updates of this rank.  Prints nothing
 * unless enabled; when enabled prints only after RA_PROGRESS_DELAY seconds. */
ra_progress *ra_progress_begin(int enabled, uint64_t total, const char *label);
/* Clears the line (if printed) and frees p. */
void ra_progress_end(ra_progress *p);

#endif
