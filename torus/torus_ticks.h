/*
 * torus_ticks.h - a clock cheap enough to read once per packet or batch:
 * the CPU's time-stamp counter where there is one (a few ns, no system
 * call), else CLOCK_MONOTONIC in ns.  Used for where-the-time-goes
 * profiles and for polling a slow road (MPI) on a time budget.
 */
#ifndef TORUS_TICKS_H
#define TORUS_TICKS_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static inline uint64_t torus_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
#endif
}

/* Ticks per second, measured once (20 ms) on first use. */
double torus_ticks_per_second(void);

#endif
