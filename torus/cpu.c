/*
 * cpu.c - what the hot loops ask of the CPU: whether it has PREFETCHW
 * (torus_prefetch.h) and how fast its cycle counter runs (torus_ticks.h).
 */
#include "torus_prefetch.h"
#include "torus_ticks.h"

#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int torus_have_prefetchw = -1;

void torus_prefetch_init(void)
{
    if (torus_have_prefetchw >= 0)
        return;
    int have = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    /* CPUID 0x80000001: ECX bit 8 is 3DNowPrefetch (PREFETCH/PREFETCHW) */
    if (__get_cpuid(0x80000001, &a, &b, &c, &d))
        have = (c >> 8) & 1;
#endif
    torus_have_prefetchw = have;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double torus_ticks_per_second(void)
{
    static double rate;
    if (rate > 0)
        return rate;
#if defined(__x86_64__) || defined(__i386__)
    /* 20 ms against the wall clock: the counter's rate to 0.1% */
    double w0 = wall();
    uint64_t t0 = torus_ticks();
    while (wall() - w0 < 0.02)
        ;
    rate = (double)(torus_ticks() - t0) / (wall() - w0);
#else
    rate = 1e9;
#endif
    return rate;
}
