/*
 * torus_prefetch.h - a prefetch for a word about to be written, the one
 * instruction every random-update loop of the kit hides memory latency
 * with (the apply pipeline, the ceiling kernel, the shared-memory rings).
 *
 * gcc turns __builtin_prefetch(p, 1, ...) into PREFETCHW only when built
 * for a CPU that has it (-mprfchw); the kit is built for plain x86-64, so
 * it asks the CPU once (CPUID 0x80000001, ECX bit 8) and uses the
 * instruction itself where it exists.  Why it matters: on the 2-core EPYC
 * VM (32 MiB L3), a rolling prefetch-then-XOR loop on 2^26 words ran at
 * 0.23 GUPS per process with PREFETCHNTA (what locality 0 gives), 0.23-0.24
 * with PREFETCHT0 and 0.26-0.28 with PREFETCHW, which fetches the line
 * ready to be written instead of shared and then upgraded.
 */
#ifndef TORUS_PREFETCH_H
#define TORUS_PREFETCH_H

extern int torus_have_prefetchw;

/* Finds out once whether this CPU has PREFETCHW; cheap to call again. */
void torus_prefetch_init(void);

static inline void torus_prefetch_write(const void *p)
{
#if defined(__x86_64__) && !defined(__PRFCHW__)
    if (torus_have_prefetchw) {
        __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
        return;
    }
#endif
    __builtin_prefetch(p, 1, 3);
}

/* A line about to be read (a packet's words in a ring). */
static inline void torus_prefetch_read(const void *p)
{
    __builtin_prefetch(p, 0, 3);
}

#endif
