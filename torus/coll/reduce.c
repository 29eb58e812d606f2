/*
 * reduce.c - reductions in a fixed operand order: the size of each element
 * type, the kernel of a (type, op) pair from the family that holds it
 * (reduce_arith.c, reduce_logic.c, reduce_loc.c), and the calls
 * algorithms make, which also charge the timed model for the bytes.
 */
#include "coll_impl.h"

size_t torus_dtype_size(torus_dtype t)
{
    static const size_t size[TORUS_NDTYPES] = {
        [TORUS_UINT64] = 8, [TORUS_INT64] = 8, [TORUS_DOUBLE] = 8, [TORUS_INT8] = 1, [TORUS_INT16] = 2,
        [TORUS_INT32] = 4, [TORUS_UINT8] = 1, [TORUS_UINT16] = 2, [TORUS_UINT32] = 4, [TORUS_FLOAT] = sizeof(float),
        [TORUS_LONG_DOUBLE] = sizeof(long double), [TORUS_FLOAT_COMPLEX] = 2 * sizeof(float),
        [TORUS_DOUBLE_COMPLEX] = 2 * sizeof(double), [TORUS_LONG_DOUBLE_COMPLEX] = 2 * sizeof(long double),
        [TORUS_BOOL] = sizeof(_Bool), [TORUS_BYTE] = 1,
        /* the pairs packed: value, then index */
        [TORUS_FLOAT_INT] = sizeof(float) + sizeof(int), [TORUS_DOUBLE_INT] = sizeof(double) + sizeof(int),
        [TORUS_LONG_INT] = sizeof(long) + sizeof(int), [TORUS_2INT] = 2 * sizeof(int),
        [TORUS_SHORT_INT] = sizeof(short) + sizeof(int), [TORUS_LONG_DOUBLE_INT] = sizeof(long double) + sizeof(int),
        [TORUS_2FLOAT] = 2 * sizeof(float), [TORUS_2DOUBLE] = 2 * sizeof(double),
    };
    return (unsigned)t < TORUS_NDTYPES ? size[t] : 0;
}

torus__reduce_fn torus__reduce_kernel(torus_dtype t, torus_op op)
{
    switch (op) {
    case TORUS_OP_SUM:
    case TORUS_OP_PROD:
    case TORUS_OP_MIN:
    case TORUS_OP_MAX:
        return torus__reduce_arith(t, op);
    case TORUS_OP_MAXLOC:
    case TORUS_OP_MINLOC:
        return torus__reduce_loc(t, op);
    default:
        return torus__reduce_logic(t, op);
    }
}

int torus_coll_reduce_defined(torus_dtype t, torus_op op)
{
    return torus__reduce_kernel(t, op) != NULL;
}

void torus__reduce3(torus_coll *c, void *dst, const void *a, const void *b, size_t count, torus_dtype t, torus_op op)
{
    /* the entry point checked that the kernel exists */
    torus__reduce_kernel(t, op)(dst, a, b, count);
    if (c->tp->reduced)
        c->tp->reduced(c->tp->impl, count * torus_dtype_size(t));
}

void torus__reduce(torus_coll *c, void *dst, const void *src, size_t count, torus_dtype t, torus_op op)
{
    torus__reduce3(c, dst, dst, src, count, t, op);
}
