/*
 * test_reduce.c - the reduction kernels of torus/coll/reduce_*.c: MPI's
 * table of (type, op) pairs is exactly what the library defines; every
 * kernel gives the same bits vectorised as element by element, also with
 * dst equal to either operand (the algorithms' in-place calls); and the
 * semantics MPI fixes: integer wrap-around, logical results 0/1, MAXLOC/
 * MINLOC's tie rule on packed pairs, complex products, long double
 * precision.
 */
#include "kit_mix.h"
#include "../test.h"
#include "coll_impl.h"

#include <stdlib.h>
#include <string.h>


/* MPI-4.0 sec. 6.9.2: which ops each type group allows. */
static int mpi_allows(torus_dtype t, torus_op op)
{
    int integer = t == TORUS_INT8 || t == TORUS_INT16 || t == TORUS_INT32 || t == TORUS_INT64 ||
                  t == TORUS_UINT8 || t == TORUS_UINT16 || t == TORUS_UINT32 || t == TORUS_UINT64;
    int floating = t == TORUS_FLOAT || t == TORUS_DOUBLE || t == TORUS_LONG_DOUBLE;
    int complex = t == TORUS_FLOAT_COMPLEX || t == TORUS_DOUBLE_COMPLEX || t == TORUS_LONG_DOUBLE_COMPLEX;
    int pair = t >= TORUS_FLOAT_INT && t <= TORUS_2DOUBLE;
    switch (op) {
    case TORUS_OP_SUM:
    case TORUS_OP_PROD:
        return integer || floating || complex;
    case TORUS_OP_MIN:
    case TORUS_OP_MAX:
        return integer || floating;
    case TORUS_OP_LAND:
    case TORUS_OP_LOR:
    case TORUS_OP_LXOR:
        return integer || t == TORUS_BOOL;
    case TORUS_OP_BAND:
    case TORUS_OP_BOR:
    case TORUS_OP_BXOR:
        return integer || t == TORUS_BYTE;
    default:
        return pair;
    }
}

/* Random bytes for n elements of t: a long double's padding zero, a bool
 * 0 or 1, floats finite (no NaN: its comparisons are order-dependent). */
static void fill(torus_dtype t, unsigned char *p, size_t n, uint64_t seed)
{
    size_t es = torus_dtype_size(t);
    for (size_t i = 0; i < n * es; i++)
        p[i] = (unsigned char)kit_mix64(seed + i);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = p + i * es;
        uint64_t x = kit_mix64(seed * 31 + i);
        double d = (double)(int)(x % 200) - 100 + 0.25 * (double)(x % 4);
        switch (t) {
        case TORUS_FLOAT: case TORUS_FLOAT_COMPLEX: case TORUS_FLOAT_INT: case TORUS_2FLOAT: {
            float f = (float)d;
            memcpy(e, &f, 4);
            if (t == TORUS_FLOAT_COMPLEX || t == TORUS_2FLOAT)
                memcpy(e + 4, &f, 4);
            break;
        }
        case TORUS_DOUBLE: case TORUS_DOUBLE_COMPLEX: case TORUS_DOUBLE_INT: case TORUS_2DOUBLE:
            memcpy(e, &d, 8);
            if (t == TORUS_DOUBLE_COMPLEX || t == TORUS_2DOUBLE)
                memcpy(e + 8, &d, 8);
            break;
        case TORUS_LONG_DOUBLE: case TORUS_LONG_DOUBLE_COMPLEX: case TORUS_LONG_DOUBLE_INT: {
            long double l = d;
            memset(e, 0, 16);
            memcpy(e, &l, 10);
            if (t == TORUS_LONG_DOUBLE_COMPLEX) {
                memset(e + 16, 0, 16);
                memcpy(e + 16, &l, 10);
            }
            break;
        }
        case TORUS_BOOL:
            e[0] &= 1;
            break;
        default:
            break;
        }
        if (t >= TORUS_FLOAT_INT && t <= TORUS_SHORT_INT && x % 3 == 0) /* value ties */
            memset(e, 0, t == TORUS_SHORT_INT ? 2 : t == TORUS_2INT ? 4 : 8);
    }
}

/* Every defined kernel: vectorised = element by element, in place both ways. */
static void kernels_consistent(void)
{
    enum { N = 37 }; /* odd: the vector loops' tails */
    static unsigned char a[N * 32], b[N * 32], d[N * 32], ref[N * 32], tmp[N * 32];
    int defined = 0;
    for (int t = 0; t < TORUS_NDTYPES; t++)
        for (int o = 0; o < TORUS_NOPS; o++) {
            torus__reduce_fn k = torus__reduce_kernel((torus_dtype)t, (torus_op)o);
            ASSERT_EQ_INT(k != NULL, mpi_allows((torus_dtype)t, (torus_op)o));
            if (!k)
                continue;
            defined++;
            size_t es = torus_dtype_size((torus_dtype)t);
            fill((torus_dtype)t, a, N, (uint64_t)(t * 100 + o));
            fill((torus_dtype)t, b, N, (uint64_t)(t * 100 + o + 50));
            memcpy(ref, a, N * es); /* padding as in a, where the kernels keep it */
            for (size_t i = 0; i < N; i++)
                k(ref + i * es, a + i * es, b + i * es, 1);
            k(d, a, b, N);
            int same = !memcmp(d, ref, N * es) || t == TORUS_LONG_DOUBLE || t == TORUS_LONG_DOUBLE_COMPLEX;
            memcpy(tmp, a, N * es);
            k(tmp, tmp, b, N); /* dst == a */
            same &= !memcmp(tmp, ref, N * es) || t == TORUS_LONG_DOUBLE || t == TORUS_LONG_DOUBLE_COMPLEX;
            memcpy(tmp, b, N * es);
            k(tmp, a, tmp, N); /* dst == b */
            for (size_t i = 0; i < N * es; i++) /* value bytes: a long double's first 10 of 16 */
                if ((t != TORUS_LONG_DOUBLE && t != TORUS_LONG_DOUBLE_COMPLEX && t != TORUS_LONG_DOUBLE_INT) ||
                    (t == TORUS_LONG_DOUBLE_INT ? (i % es < 10 || i % es >= 16) : i % 16 < 10))
                    same &= tmp[i] == ref[i] && d[i] == ref[i];
            if (!same)
                fprintf(stderr, "kernel of type %d op %d: vector and scalar results differ\n", t, o);
            ASSERT_TRUE(same);
        }
    printf("kernels defined: %d\n", defined);
    ASSERT_EQ_INT(defined, 120);
}

/* integers wrap around; unsigned compares as unsigned */
static void t_integer_wrap_around(void)
{
    int8_t i8;
    int8_t x8 = 127, y8 = 1;
    torus__reduce_kernel(TORUS_INT8, TORUS_OP_SUM)(&i8, &x8, &y8, 1);
    ASSERT_EQ_INT(i8, -128);
    uint16_t u16, p16 = 65535;
    torus__reduce_kernel(TORUS_UINT16, TORUS_OP_PROD)(&u16, &p16, &p16, 1);
    ASSERT_EQ_INT(u16, 1);
    int32_t i32, m32 = INT32_MIN, n32 = -1;
    torus__reduce_kernel(TORUS_INT32, TORUS_OP_PROD)(&i32, &m32, &n32, 1);
    ASSERT_EQ_INT(i32, INT32_MIN);
    uint64_t big = UINT64_MAX, two = 2, u64;
    torus__reduce_kernel(TORUS_UINT64, TORUS_OP_MAX)(&u64, &big, &two, 1);
    ASSERT_EQ_U64(u64, UINT64_MAX); /* unsigned, not compared as signed */
}

/* logical results are 0 or 1 */
static void t_logical_results_zero_or_one(void)
{
    int32_t i32;
    int32_t f5 = 5, f7 = 7, z = 0;
    torus__reduce_kernel(TORUS_INT32, TORUS_OP_LAND)(&i32, &f5, &f7, 1);
    ASSERT_EQ_INT(i32, 1);
    torus__reduce_kernel(TORUS_INT32, TORUS_OP_LXOR)(&i32, &f5, &f7, 1);
    ASSERT_EQ_INT(i32, 0);
    torus__reduce_kernel(TORUS_INT32, TORUS_OP_LOR)(&i32, &z, &f7, 1);
    ASSERT_EQ_INT(i32, 1);
    unsigned char bt = 1, bf = 0, br;
    torus__reduce_kernel(TORUS_BOOL, TORUS_OP_LXOR)(&br, &bt, &bf, 1);
    ASSERT_EQ_INT(br, 1);
}

/* complex: (1 + 2i)(3 + 4i) = -5 + 10i; long double keeps its 64 mantissa
 * bits, float rounds in float */
static void t_complex_and_float_precision(void)
{
    double c1[2] = {1, 2}, c2[2] = {3, 4}, c3[2];
    torus__reduce_kernel(TORUS_DOUBLE_COMPLEX, TORUS_OP_PROD)(c3, c1, c2, 1);
    ASSERT_TRUE(c3[0] == -5 && c3[1] == 10);
    /* long double keeps 64 mantissa bits: 1 + 2^-63 is not 1 */
    long double l1 = 1.0L, l2 = 1.0L / 9223372036854775808.0L, l3;
    torus__reduce_kernel(TORUS_LONG_DOUBLE, TORUS_OP_SUM)(&l3, &l1, &l2, 1);
    ASSERT_TRUE(l3 > 1.0L);
    /* float sums round in float: 2^24 + 1 stays 2^24 */
    float f1 = 16777216.0f, f2 = 1.0f, f3;
    torus__reduce_kernel(TORUS_FLOAT, TORUS_OP_SUM)(&f3, &f1, &f2, 1);
    ASSERT_TRUE(f3 == 16777216.0f);
}

/* MAXLOC/MINLOC on packed pairs: the larger value's index; on a tie
 * the smaller index, whichever operand holds it */
static void t_maxloc_minloc_tie_rule(void)
{
    unsigned char p[2][12], r[12];
    double v;
    int k;
    double vals[2] = {3.0, 3.0};
    int idx[2] = {7, 2};
    for (int s = 0; s < 2; s++) {
        memcpy(p[s], &vals[s], 8);
        memcpy(p[s] + 8, &idx[s], 4);
    }
    torus__reduce_kernel(TORUS_DOUBLE_INT, TORUS_OP_MAXLOC)(r, p[0], p[1], 1);
    memcpy(&v, r, 8), memcpy(&k, r + 8, 4);
    ASSERT_TRUE(v == 3.0 && k == 2);
    torus__reduce_kernel(TORUS_DOUBLE_INT, TORUS_OP_MINLOC)(r, p[1], p[0], 1);
    memcpy(&v, r, 8), memcpy(&k, r + 8, 4);
    ASSERT_TRUE(v == 3.0 && k == 2);
    vals[1] = 4.0;
    memcpy(p[1], &vals[1], 8);
    torus__reduce_kernel(TORUS_DOUBLE_INT, TORUS_OP_MAXLOC)(r, p[0], p[1], 1);
    memcpy(&v, r, 8), memcpy(&k, r + 8, 4);
    ASSERT_TRUE(v == 4.0 && k == 2);
    torus__reduce_kernel(TORUS_DOUBLE_INT, TORUS_OP_MINLOC)(r, p[0], p[1], 1);
    memcpy(&v, r, 8), memcpy(&k, r + 8, 4);
    ASSERT_TRUE(v == 3.0 && k == 7);
    /* MPI_SHORT_INT packed: the index right after the 2-byte value */
    unsigned char s1[6], s2[6], s3[6];
    short sv1 = 9, sv2 = 9;
    int si1 = 40, si2 = 30, si;
    memcpy(s1, &sv1, 2), memcpy(s1 + 2, &si1, 4);
    memcpy(s2, &sv2, 2), memcpy(s2 + 2, &si2, 4);
    ASSERT_EQ_INT(torus_dtype_size(TORUS_SHORT_INT), 6);
    torus__reduce_kernel(TORUS_SHORT_INT, TORUS_OP_MAXLOC)(s3, s1, s2, 1);
    memcpy(&si, s3 + 2, 4);
    ASSERT_EQ_INT(si, 30);
}

static const test_case cases[] = {
    {"kernels_vector_equals_scalar_in_place", kernels_consistent},
    {"integer_wrap_around", t_integer_wrap_around},
    {"logical_results_zero_or_one", t_logical_results_zero_or_one},
    {"complex_and_float_precision", t_complex_and_float_precision},
    {"maxloc_minloc_tie_rule", t_maxloc_minloc_tie_rule},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_reduce", cases);
}

