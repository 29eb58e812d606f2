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

/* Sum over i of kit_mix64_fin(T[i] ^ ((start + i) * KIT_MIX64_GAMMA)) mod 2^64
 * (SplitMix64's finaliser, kit_mix.h):
 * this rank's share of the table fingerprint (sum the shares over ranks). */
uint64_t ra_table_fingerprint(const uint64_t *t, uint64_t n, uint64_t start);

#endif
