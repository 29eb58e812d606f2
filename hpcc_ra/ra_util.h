/* ra_util.h - two small helpers the harness's drivers and its report share:
 * the floor of log2 and the process's CPU seconds (for the key block's
 * cpu_s beside wall time: a rank that waits shows it as cpu < wall). */
#ifndef RA_UTIL_H
#define RA_UTIL_H

#include <stdint.h>
#include <time.h>

/* floor(log2(v)) for v >= 1; -1 for v = 0. */
static inline int ra_ilog2_floor(uint64_t v)
{
    int k = -1;
    while (v) {
        v >>= 1;
        k++;
    }
    return k;
}

/* CPU seconds of this process; 0 if the clock is unavailable. */
static inline double ra_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
