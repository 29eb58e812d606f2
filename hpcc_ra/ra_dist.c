/* ra_dist.c - HPCC block distribution arithmetic (see ra_dist.h). */
#include "ra_dist.h"

void ra_dist_init(ra_dist *d, uint64_t total, int nprocs)
{
    d->total = total;
    d->nprocs = nprocs;
    d->base = total / (uint64_t)nprocs;
    d->rem = total % (uint64_t)nprocs;
    d->split = d->rem * (d->base + 1);
    d->shift = -1;
    if (d->rem == 0 && d->base && (d->base & (d->base - 1)) == 0) {
        int s = 0;
        while ((1ULL << s) < d->base)
            s++;
        d->shift = s;
    }
}

uint64_t ra_dist_start(const ra_dist *d, int p)
{
    uint64_t up = (uint64_t)p;
    return up < d->rem ? up * (d->base + 1) : d->split + (up - d->rem) * d->base;
}

uint64_t ra_dist_count(const ra_dist *d, int p)
{
    return (uint64_t)p < d->rem ? d->base + 1 : d->base;
}
