/* ra_table.h - the distributed table's memory: sizing facts, allocation, init. */
#ifndef RA_TABLE_H
#define RA_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Allocates words * 8 bytes, 2 MiB aligned and advised for transparent huge
 * pages when the kernel allows (silently plain pages otherwise).  Returns NULL
 * on failure.  *huge tells whether the huge-page advice was accepted.  Free
 * with ra_table_free(t, words). */
uint64_t *ra_table_alloc(uint64_t words, int *huge);
void ra_table_free(uint64_t *t, uint64_t words);

/* T[i] = start + i, the HPCC initial state (global index). */
void ra_table_init(uint64_t *t, uint64_t n, uint64_t start);

/* Entries with T[i] != start + i. */
uint64_t ra_table_errors(const uint64_t *t, uint64_t n, uint64_t start);

/* SplitMix64 finaliser: a strong 64-bit mix used by the fingerprint. */
static inline uint64_t ra_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Sum over i of mix(T[i] ^ ((start + i) * 0x9E3779B97F4A7C15)) mod 2^64:
 * this rank's share of the table fingerprint (sum the shares over ranks). */
uint64_t ra_table_fingerprint(const uint64_t *t, uint64_t n, uint64_t start);

#endif
