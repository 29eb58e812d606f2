/*
 * ropt_pipe.h - inside the routed algorithm (ropt.c): the update stream,
 * the split of a chunk and the apply pipeline (ropt_pipe.c).  Not part of
 * ropt.h's interface: ropt.c and ropt_pipe.c only.
 */
#ifndef ROPT_PIPE_H
#define ROPT_PIPE_H

#include "ropt.h"

/* The index of x in the global table, its mask or shift taken once. */
typedef struct idx_fn {
    uint64_t mask;
    int sh;
} idx_fn;

static inline idx_fn idx_of(int log2)
{
    return (idx_fn){.mask = (1ULL << log2) - 1, .sh = 64 - log2};
}

static inline __attribute__((always_inline)) uint64_t idx(idx_fn f, ra_gen_kind gen, uint64_t x)
{
    return gen == RA_GEN_LFSR ? x & f.mask : x >> f.sh;
}

/* The pipeline full of its harmless start (ropt_pipe.c). */
void ropt_pipe_reset(ropt *o);
/* Splits n updates -- src[0..n), or n freshly generated ones when src is
 * NULL -- into a new local list and the end of rl, pushing the previous
 * local list meanwhile (ropt_pipe.c says how).  rl must have room for n
 * more and ROPT_SPLIT_SLACK words beyond. */
void ropt_split_chunk(ropt *o, const uint64_t *src, int n, ropt_rlist *rl, int all_mine);
/* Pushes the local list and applies everything in the pipeline (end of a
 * phase). */
void ropt_apply_all(ropt *o);

#endif
