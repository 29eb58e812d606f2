/*
 * reduce_logic.c - the logical and bitwise reduction kernels: MPI_LAND,
 * MPI_LOR and MPI_LXOR on the integer types and C's _Bool; MPI_BAND,
 * MPI_BOR and MPI_BXOR on the integer types and MPI_BYTE.
 *
 * Exact by nature (no rounding, no overflow), so any order of combination
 * gives the MPI library's bits.  A logical result is 1 or 0 in the
 * element's type, as C's && and || give it (what MPICH's and Open MPI's
 * loops store); a _Bool is read as a byte and tested against 0, so a
 * stray byte value other than 0 or 1 is "true" instead of undefined
 * behaviour.  Signedness does not matter to either family: the signed
 * types share the kernels of the unsigned type of their width.  gcc -O3
 * vectorises every loop (with a run-time overlap check: dst may be a or b).
 */
#include "coll_impl.h"

#include <stdint.h>

#define KERNEL TORUS__REDUCE_KERNEL

#define LOGIC_KERNELS(tag, T)                                                                                  \
    KERNEL(land_##tag, T, (T)((u != 0) & (v != 0)))                                                            \
    KERNEL(lor_##tag, T, (T)((u != 0) | (v != 0)))                                                             \
    KERNEL(lxor_##tag, T, (T)((u != 0) ^ (v != 0)))                                                            \
    KERNEL(band_##tag, T, (T)(u & v))                                                                          \
    KERNEL(bor_##tag, T, (T)(u | v))                                                                           \
    KERNEL(bxor_##tag, T, (T)(u ^ v))

LOGIC_KERNELS(8, uint8_t)
LOGIC_KERNELS(16, uint16_t)
LOGIC_KERNELS(32, uint32_t)
LOGIC_KERNELS(64, uint64_t)

#define LOGIC(w) {[TORUS_OP_LAND] = land_##w, [TORUS_OP_LOR] = lor_##w, [TORUS_OP_LXOR] = lxor_##w, \
                  [TORUS_OP_BAND] = band_##w, [TORUS_OP_BOR] = bor_##w, [TORUS_OP_BXOR] = bxor_##w}

static const torus__reduce_fn table[TORUS_NDTYPES][TORUS_NOPS] = {
    [TORUS_INT8] = LOGIC(8),   [TORUS_UINT8] = LOGIC(8),   [TORUS_INT16] = LOGIC(16), [TORUS_UINT16] = LOGIC(16),
    [TORUS_INT32] = LOGIC(32), [TORUS_UINT32] = LOGIC(32), [TORUS_INT64] = LOGIC(64), [TORUS_UINT64] = LOGIC(64),
    [TORUS_BOOL] = {[TORUS_OP_LAND] = land_8, [TORUS_OP_LOR] = lor_8, [TORUS_OP_LXOR] = lxor_8},
    [TORUS_BYTE] = {[TORUS_OP_BAND] = band_8, [TORUS_OP_BOR] = bor_8, [TORUS_OP_BXOR] = bxor_8},
};

torus__reduce_fn torus__reduce_logic(torus_dtype t, torus_op op)
{
    return (unsigned)t < TORUS_NDTYPES && (unsigned)op < TORUS_NOPS ? table[t][op] : NULL;
}
