/*
 * pmpi_types.c - which MPI datatypes and reduction ops the adapter can hand
 * to the torus library exactly.
 *
 * bcast and alltoall(v) move bytes: any predefined datatype whose bytes are
 * contiguous (size == extent, lower bound 0: not MPI_DOUBLE_INT and the
 * other padded pair types) maps to count * size bytes.  Derived datatypes
 * fall through even when contiguous: telling the contiguous ones apart costs
 * a datatype decode per call, and the fall-through is what users expect.
 *
 * allreduce combines 64-bit words (uint64, int64, double; sum, min, max,
 * bxor).  Integer types of 8, 16, 32 and 64 bits are exact: a narrower type
 * is widened (sign- or zero-extended) to 64 bits, combined and truncated
 * back, which gives the MPI library's wrap-around result bit for bit.
 * MPI_FLOAT is exact for min and max (widening a float to double and back
 * is exact) but not for sum (the library rounds to float at every step), so
 * a float sum falls through.  MPI_DOUBLE sums are combined in the torus
 * algorithm's fixed order, which may differ from the library's in the last
 * bits (docs/mpi-adapter.md).  Everything else (MPI_PROD, the logical and bitwise and/or
 * ops, MAXLOC/MINLOC, long double, complex) falls through.
 */
#include "pmpi_impl.h"

#include <string.h>

typedef struct pm_type {
    MPI_Datatype dt;
    pm_kind kind; /* for reductions; PM_K_BYTES: bcast/alltoall only */
    size_t size;
} pm_type;

/* Built at first use: Open MPI's predefined handles are addresses, not
 * constant expressions. */
enum { PM_MAXTYPES = 48 };
static pm_type types[PM_MAXTYPES];
static int ntypes = -1;

static void add(MPI_Datatype dt, pm_kind kind)
{
    if (dt == MPI_DATATYPE_NULL || ntypes >= PM_MAXTYPES)
        return;
    for (int i = 0; i < ntypes; i++)
        if (types[i].dt == dt) /* an alias (MPI_LONG_LONG == MPI_LONG_LONG_INT) */
            return;
    int size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return;
    /* contiguous bytes only: no padding, no holes */
    if (size <= 0 || lb != 0 || tlb != 0 || extent != size || textent != size)
        return;
    /* a reduction class only where the width is one we widen exactly */
    if ((kind == PM_K_SINT || kind == PM_K_UINT) && size != 1 && size != 2 && size != 4 && size != 8)
        kind = PM_K_BYTES;
    if ((kind == PM_K_FLOAT && size != 4) || (kind == PM_K_DOUBLE && size != 8))
        kind = PM_K_BYTES;
    types[ntypes++] = (pm_type){.dt = dt, .kind = kind, .size = (size_t)size};
}

static void build(void)
{
    ntypes = 0;
    /* the most used first: the lookup is a linear scan */
    add(MPI_DOUBLE, PM_K_DOUBLE);
    add(MPI_INT, PM_K_SINT);
    add(MPI_UINT64_T, PM_K_UINT);
    add(MPI_INT64_T, PM_K_SINT);
    add(MPI_LONG, PM_K_SINT);
    add(MPI_UNSIGNED_LONG, PM_K_UINT);
    add(MPI_LONG_LONG_INT, PM_K_SINT);
    add(MPI_LONG_LONG, PM_K_SINT);
    add(MPI_UNSIGNED_LONG_LONG, PM_K_UINT);
    add(MPI_UNSIGNED, PM_K_UINT);
    add(MPI_BYTE, PM_K_BYTES);
    add(MPI_CHAR, PM_K_BYTES);
    add(MPI_FLOAT, PM_K_FLOAT);
    add(MPI_SHORT, PM_K_SINT);
    add(MPI_UNSIGNED_SHORT, PM_K_UINT);
    add(MPI_SIGNED_CHAR, PM_K_SINT);
    add(MPI_UNSIGNED_CHAR, PM_K_UINT);
    add(MPI_INT8_T, PM_K_SINT);
    add(MPI_INT16_T, PM_K_SINT);
    add(MPI_INT32_T, PM_K_SINT);
    add(MPI_UINT8_T, PM_K_UINT);
    add(MPI_UINT16_T, PM_K_UINT);
    add(MPI_UINT32_T, PM_K_UINT);
    add(MPI_AINT, PM_K_SINT);
    add(MPI_OFFSET, PM_K_SINT);
    add(MPI_COUNT, PM_K_SINT);
    add(MPI_WCHAR, PM_K_BYTES);
    add(MPI_C_BOOL, PM_K_BYTES);
    add(MPI_LONG_DOUBLE, PM_K_BYTES);
    add(MPI_C_FLOAT_COMPLEX, PM_K_BYTES);
    add(MPI_C_DOUBLE_COMPLEX, PM_K_BYTES);
    add(MPI_PACKED, PM_K_BYTES);
}

pm_why pm__datatype(MPI_Datatype dt, size_t *size, pm_kind *kind)
{
    if (ntypes < 0)
        build();
    for (int i = 0; i < ntypes; i++)
        if (types[i].dt == dt) {
            *size = types[i].size;
            *kind = types[i].kind;
            return PM_OK;
        }
    return PM_WHY_DATATYPE;
}

pm_why pm__reduction(MPI_Op op, pm_kind kind, torus_op *top)
{
    int known = 1;
    if (op == MPI_SUM)
        *top = TORUS_OP_SUM;
    else if (op == MPI_MIN)
        *top = TORUS_OP_MIN;
    else if (op == MPI_MAX)
        *top = TORUS_OP_MAX;
    else if (op == MPI_BXOR)
        *top = TORUS_OP_BXOR;
    else
        known = 0;
    if (!known) {
        /* a predefined op the library has no counterpart for, or the user's */
        const MPI_Op predefined[] = {MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
                                     MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
        for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
            if (op == predefined[i])
                return PM_WHY_TYPE_OP;
        return PM_WHY_USER_OP;
    }
    switch (kind) {
    case PM_K_SINT:
    case PM_K_UINT:
        return PM_OK;
    case PM_K_DOUBLE:
        return *top == TORUS_OP_BXOR ? PM_WHY_TYPE_OP : PM_OK;
    case PM_K_FLOAT:
        return *top == TORUS_OP_MIN || *top == TORUS_OP_MAX ? PM_OK : PM_WHY_TYPE_OP;
    default:
        return PM_WHY_TYPE_OP;
    }
}
