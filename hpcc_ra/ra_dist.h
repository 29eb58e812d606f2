/*
 * ra_dist.h - block distribution of N items over P processes, HPCC style.
 *
 * The first N mod P processes get one extra item; with P a power of two and
 * N a power of two this is an even split.  Used for the table (global index
 * -> owner) and for slicing the update stream.
 */
#ifndef RA_DIST_H
#define RA_DIST_H

#include <stdint.h>

typedef struct ra_dist {
    uint64_t total;  /* N */
    int nprocs;      /* P */
    uint64_t base;   /* N / P */
    uint64_t rem;    /* N mod P */
    uint64_t split;  /* rem * (base + 1): first index owned by a "short" process */
    int shift;       /* log2(base) when the split is even and base a power of two, else -1 */
} ra_dist;

/* Needs nprocs >= 1.  Items may be fewer than processes (some get none). */
void ra_dist_init(ra_dist *d, uint64_t total, int nprocs);
uint64_t ra_dist_start(const ra_dist *d, int p);
uint64_t ra_dist_count(const ra_dist *d, int p);

/* Owner of global item i (< total); needs base >= 1. */
static inline int ra_dist_owner(const ra_dist *d, uint64_t i)
{
    if (d->shift >= 0)
        return (int)(i >> d->shift);
    if (i < d->split)
        return (int)(i / (d->base + 1));
    return (int)(d->rem + (i - d->split) / d->base);
}

#endif
