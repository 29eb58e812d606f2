/*
 * reduce_loc.c - MPI_MAXLOC and MPI_MINLOC on the value-index pair types:
 * MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT and Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION.
 *
 * MPI's definition (MPI-4.0 sec. 6.9.4): (u, i) maxloc (v, j) = (w, k)
 * with w = max(u, v) and k = i if u > v, min(i, j) if u = v, j if u < v
 * (minloc alike with min); associative and commutative, so every order of
 * combination gives the same pair, the MPI library's.  Values that are
 * neither greater nor smaller (equal, or a NaN among them) count as a tie:
 * the first operand's value, the smaller index.
 * Elements are packed (value, then index, no padding: 12 bytes for
 * MPI_DOUBLE_INT, the layout MPI_Pack gives and the adapter packs the
 * padded C structs into), so an element may sit at any byte offset:
 * values and indices are read and written with memcpy, which gcc turns
 * into plain loads and stores.  The kept value's bytes are copied from its
 * operand, never re-stored from a register, so a long double's padding
 * bytes travel with it.  These loops do not vectorise (a 12-byte stride);
 * MAXLOC/MINLOC are rare enough that the copies dominate anyway.
 */
#include "coll_impl.h"

#include <string.h>

/* sign > 0: maxloc, < 0: minloc. */
#define LOC_KERNEL(name, V, I, SIGN)                                                                           \
    static void name(void *dst, const void *a, const void *b, size_t n)                                        \
    {                                                                                                          \
        enum { VS = sizeof(V), ES = sizeof(V) + sizeof(I) };                                                   \
        unsigned char *d = dst;                                                                                \
        const unsigned char *x = a, *y = b;                                                                    \
        for (size_t e = 0; e < n; e++, d += ES, x += ES, y += ES) {                                            \
            V u, v;                                                                                            \
            I i, j, k;                                                                                         \
            memcpy(&u, x, sizeof u);                                                                           \
            memcpy(&v, y, sizeof v);                                                                           \
            memcpy(&i, x + VS, sizeof i);                                                                      \
            memcpy(&j, y + VS, sizeof j);                                                                      \
            const unsigned char *keep = x;                                                                     \
            if ((SIGN) > 0 ? u > v : u < v) {                                                                  \
                k = i;                                                                                         \
            } else if ((SIGN) > 0 ? v > u : v < u) {                                                           \
                k = j;                                                                                         \
                keep = y;                                                                                      \
            } else {                                                                                           \
                k = i < j ? i : j;                                                                             \
            }                                                                                                  \
            if (keep != d)                                                                                     \
                memcpy(d, keep, VS);                                                                           \
            memcpy(d + VS, &k, sizeof k);                                                                      \
        }                                                                                                      \
    }

#define LOC_KERNELS(tag, V, I)                                                                                 \
    LOC_KERNEL(maxloc_##tag, V, I, 1)                                                                          \
    LOC_KERNEL(minloc_##tag, V, I, -1)

LOC_KERNELS(float_int, float, int)
LOC_KERNELS(double_int, double, int)
LOC_KERNELS(long_int, long, int)
LOC_KERNELS(2int, int, int)
LOC_KERNELS(short_int, short, int)
LOC_KERNELS(long_double_int, long double, int)
LOC_KERNELS(2float, float, float)
LOC_KERNELS(2double, double, double)

#define LOC(tag) {[TORUS_OP_MAXLOC] = maxloc_##tag, [TORUS_OP_MINLOC] = minloc_##tag}

static const torus__reduce_fn table[TORUS_NDTYPES][TORUS_NOPS] = {
    [TORUS_FLOAT_INT] = LOC(float_int),   [TORUS_DOUBLE_INT] = LOC(double_int),
    [TORUS_LONG_INT] = LOC(long_int),     [TORUS_2INT] = LOC(2int),
    [TORUS_SHORT_INT] = LOC(short_int),   [TORUS_LONG_DOUBLE_INT] = LOC(long_double_int),
    [TORUS_2FLOAT] = LOC(2float),         [TORUS_2DOUBLE] = LOC(2double),
};

torus__reduce_fn torus__reduce_loc(torus_dtype t, torus_op op)
{
    return (unsigned)t < TORUS_NDTYPES && (unsigned)op < TORUS_NOPS ? table[t][op] : NULL;
}
