/*
 * reduce_arith.c - the arithmetic reduction kernels: MPI_SUM and MPI_PROD
 * on the integer, floating and complex types, MPI_MIN and MPI_MAX on the
 * integer and floating types (MPI's table of predefined operations).
 *
 * Each kernel is dst[i] = a[i] op b[i] in the element type's own
 * arithmetic, the numeric policy of the collectives (docs/mpi-adapter.md):
 * - integers wrap around: sums and products are computed in the unsigned
 *   type of the same width and converted back (modular in gcc and clang),
 *   which is what the MPI libraries' C loops give on overflow;
 * - floating types round once per operation in the type itself: float in
 *   float (x86-64 SSE evaluates float as float, FLT_EVAL_METHOD 0), double
 *   in double, long double in the x87 80-bit format, and nothing is fused
 *   into a multiply-add (-std=c11 makes gcc's -ffp-contract=off the
 *   default); so a sum's last bits depend only on the order of its
 *   operands, which the algorithm fixes;
 * - min and max are `a < b ? a : b` and `a > b ? a : b`, what SSE's
 *   minps/maxps compute, so gcc vectorises them without -ffast-math (a NaN
 *   or a +0/-0 tie gives the second operand);
 * - a complex product is (ac - bd) + (ad + bc)i, the formula MPICH's
 *   loops use, without C99 Annex G's inf/NaN recovery (__mulsc3); both
 *   parts are exact-commutative (x + y == y + x in IEEE arithmetic).
 * Elements are read and written through their own C type: the buffers of
 * these types are aligned (the pair types, which need not be, live in
 * reduce_loc.c).  dst may be a or b but never overlaps them partially; gcc
 * -O3 vectorises the loops with a run-time overlap check (-fopt-info-vec:
 * 56 loops), all but the long double ones and, on baseline x86-64 (SSE2:
 * no 64-bit multiply or compare), 64-bit integer products, min and max.
 */
#include "coll_impl.h"

#include <stdint.h>

#define KERNEL TORUS__REDUCE_KERNEL

/* Integers: wrap-around sum and product through the unsigned type U. */
#define INT_KERNELS(tag, T, U)                                                                                 \
    KERNEL(sum_##tag, T, (T)((U)u + (U)v))                                                                     \
    KERNEL(prod_##tag, T, (T)((U)u * (U)v))                                                                    \
    KERNEL(min_##tag, T, u < v ? u : v)                                                                        \
    KERNEL(max_##tag, T, u > v ? u : v)

/* The 8- and 16-bit unsigned products are promoted to int, where 65535^2
 * overflows: they multiply as unsigned int. */
#define NARROW_PROD(tag, T) KERNEL(prod_##tag, T, (T)((unsigned)u * (unsigned)v))

INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(i16, int16_t, uint16_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
KERNEL(sum_u8, uint8_t, (uint8_t)(u + v))
NARROW_PROD(u8, uint8_t)
KERNEL(min_u8, uint8_t, u < v ? u : v)
KERNEL(max_u8, uint8_t, u > v ? u : v)
KERNEL(sum_u16, uint16_t, (uint16_t)(u + v))
NARROW_PROD(u16, uint16_t)
KERNEL(min_u16, uint16_t, u < v ? u : v)
KERNEL(max_u16, uint16_t, u > v ? u : v)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(u64, uint64_t, uint64_t)

#define FLOAT_KERNELS(tag, T)                                                                                  \
    KERNEL(sum_##tag, T, u + v)                                                                                \
    KERNEL(prod_##tag, T, u * v)                                                                               \
    KERNEL(min_##tag, T, u < v ? u : v)                                                                        \
    KERNEL(max_##tag, T, u > v ? u : v)

FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
FLOAT_KERNELS(f80, long double)

/* Complex numbers as MPI lays them out: real part, then imaginary part. */
#define COMPLEX_KERNELS(tag, T)                                                                                \
    typedef struct {                                                                                           \
        T re, im;                                                                                              \
    } tag##_t;                                                                                                 \
    KERNEL(sum_##tag, tag##_t, ((tag##_t){u.re + v.re, u.im + v.im}))                                          \
    KERNEL(prod_##tag, tag##_t, ((tag##_t){u.re * v.re - u.im * v.im, u.re * v.im + u.im * v.re}))

COMPLEX_KERNELS(c32, float)
COMPLEX_KERNELS(c64, double)
COMPLEX_KERNELS(c80, long double)

#define ARITH(tag) {[TORUS_OP_SUM] = sum_##tag, [TORUS_OP_PROD] = prod_##tag, [TORUS_OP_MIN] = min_##tag, \
                    [TORUS_OP_MAX] = max_##tag}
#define COMPLEX(tag) {[TORUS_OP_SUM] = sum_##tag, [TORUS_OP_PROD] = prod_##tag}

static const torus__reduce_fn table[TORUS_NDTYPES][TORUS_NOPS] = {
    [TORUS_INT8] = ARITH(i8),     [TORUS_INT16] = ARITH(i16),   [TORUS_INT32] = ARITH(i32),
    [TORUS_INT64] = ARITH(i64),   [TORUS_UINT8] = ARITH(u8),    [TORUS_UINT16] = ARITH(u16),
    [TORUS_UINT32] = ARITH(u32),  [TORUS_UINT64] = ARITH(u64),  [TORUS_FLOAT] = ARITH(f32),
    [TORUS_DOUBLE] = ARITH(f64),  [TORUS_LONG_DOUBLE] = ARITH(f80),
    [TORUS_FLOAT_COMPLEX] = COMPLEX(c32), [TORUS_DOUBLE_COMPLEX] = COMPLEX(c64),
    [TORUS_LONG_DOUBLE_COMPLEX] = COMPLEX(c80),
};

torus__reduce_fn torus__reduce_arith(torus_dtype t, torus_op op)
{
    return (unsigned)t < TORUS_NDTYPES && (unsigned)op < TORUS_NOPS ? table[t][op] : NULL;
}
