/*
 * ra_table.c - table memory.  Huge pages matter for RandomAccess: every
 * update is a TLB miss with 4 KiB pages on a table of gigabytes, so we ask
 * for transparent huge pages and accept plain pages when refused.
 */
#define _GNU_SOURCE
#include "ra_table.h"
#include "kit_mix.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RA_HUGE (2ULL << 20)

static size_t mapped_size(uint64_t words)
{
    uint64_t bytes = words * 8;
    return (size_t)((bytes + RA_HUGE - 1) / RA_HUGE * RA_HUGE);
}

uint64_t *ra_table_alloc(uint64_t words, int *huge)
{
    *huge = 0;
    if (words == 0 || words > (UINT64_MAX / 8) - RA_HUGE)
        return NULL;
    size_t len = mapped_size(words);
    /* Over-map by one huge page so the table can start on a 2 MiB boundary. */
    size_t over = len + RA_HUGE;
    char *raw = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)raw + RA_HUGE - 1) & ~(uintptr_t)(RA_HUGE - 1);
    size_t head = a - (uintptr_t)raw;
    if (head)
        munmap(raw, head);
    size_t tail = over - head - len;
    if (tail)
        munmap((char *)a + len, tail);
#ifdef MADV_HUGEPAGE
    if (madvise((void *)a, len, MADV_HUGEPAGE) == 0)
        *huge = 1;
#endif
    return (uint64_t *)a;
}

void ra_table_free(uint64_t *t, uint64_t words)
{
    if (t)
        munmap(t, mapped_size(words));
}

void ra_table_init(uint64_t *t, uint64_t n, uint64_t start)
{
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++)
        t[i] = start + i;
}

uint64_t ra_table_errors(const uint64_t *t, uint64_t n, uint64_t start)
{
    uint64_t e = 0;
#pragma omp parallel for schedule(static) reduction(+ : e)
    for (uint64_t i = 0; i < n; i++)
        e += t[i] != start + i;
    return e;
}

uint64_t ra_table_fingerprint(const uint64_t *t, uint64_t n, uint64_t start)
{
    uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (uint64_t i = 0; i < n; i++)
        s += kit_mix64_fin(t[i] ^ ((start + i) * KIT_MIX64_GAMMA));
    return s;
}
