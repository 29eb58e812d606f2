/*
 * ra_seq.c - the sequential reference for tests: applies the first N updates
 * of a stream to a 2^K table one at a time, the plainest possible way, and
 * prints the table fingerprint.  usage: ra_seq K lfsr|lcg [N]
 */
#include "ra_local.h"
#include "ra_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ra_seq LOG2_TABLE lfsr|lcg [UPDATES]\n");
        return 2;
    }
    int k = atoi(argv[1]);
    if (k < 1 || k > 34) {
        fprintf(stderr, "ra_seq: LOG2_TABLE '%s' out of range: allowed 1..34\n", argv[1]);
        return 2;
    }
    ra_gen_kind g = strcmp(argv[2], "lcg") == 0 ? RA_GEN_LCG : RA_GEN_LFSR;
    uint64_t n = 1ULL << k;
    uint64_t upd = argc > 3 ? strtoull(argv[3], NULL, 10) : 4 * n;
    uint64_t *t = malloc(n * sizeof *t);
    if (!t)
        return 3;
    ra_table_init(t, n, 0);
    ra_local_replay(t, k, g, upd);
    printf("%016llx\n", (unsigned long long)ra_table_fingerprint(t, n, 0));
    free(t);
    return 0;
}
