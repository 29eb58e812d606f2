/*
 * digest.c - the one 64-bit digest of the kit (FNV-1a): of the ranks'
 * configuration text (agree.c) and of the bytes of every file an MPI
 * binary reads (issue 48, class 2).  Ranks that agree on a file's name can
 * still read two node-local copies that differ; the agreement then compares
 * what each rank's copy holds, not what it is called.
 *
 * The file is opened as kit_lines_open opens it (regular files only, a
 * FIFO never waited on) and read raw up to KIT_DIGEST_MAX bytes: the
 * readers refuse larger inputs anyway, and a bound keeps the agreement's
 * cost known (one read of each input, before the program reads it again).
 */
#include "kit_agree.h"
#include "kit_io.h"

#include <stdio.h>
#include <string.h>

#define KIT_DIGEST_MAX (256ULL << 20)

uint64_t kit_digest(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

void kit_digest_file(const char *path, char *out, size_t len)
{
    kit_lines L;
    char err[400];
    if (kit_lines_open(&L, path, 1, 1, err, sizeof err)) {
        /* a rank that cannot read what the others read differs from them */
        snprintf(out, len, "'%s' (unreadable: %s)", L.name, L.why);
        return;
    }
    uint64_t h = KIT_DIGEST_SEED, n = 0;
    unsigned char buf[65536];
    size_t got;
    while (n < KIT_DIGEST_MAX && (got = fread(buf, 1, sizeof buf, L.f)) > 0) {
        h = kit_digest(h, buf, got);
        n += got;
    }
    int bad = ferror(L.f);
    snprintf(out, len, bad ? "'%s' (read error after %llu bytes)" : "'%s' (%llu bytes, digest %016llx)", L.name,
             (unsigned long long)n, (unsigned long long)h);
    kit_lines_close(&L);
}
