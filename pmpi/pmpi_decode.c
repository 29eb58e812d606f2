/*
 * pmpi_decode.c - a derived datatype's description, read from its
 * constructor (MPI_Type_get_envelope / MPI_Type_get_contents), once per
 * handle (pmpi_types.c caches it as an attribute of the type).
 *
 * Two facts come out of it.  The reduction classes: a type's signature is
 * its children's signatures concatenated (repeated or not), so it has one
 * element type when all the children that appear have the same one
 * (zero-size children and blocks of length 0 left out), none otherwise;
 * the element count is then size / element size.  And whether one
 * instance's bytes are one run in type-map order (so the adapter may read
 * and write them in place): the blocks are walked in type-map order, each
 * a run when its child is one and, for more than one child instance, the
 * child's extent is its size; consecutive runs must abut.  Vectors are
 * judged in closed form (every block the same, at a fixed stride), index
 * and struct types block by block (as many steps as the arrays the
 * program gave).  Subarray and darray types are always packed (their
 * runs depend on the array shape), and so is anything this code does not
 * recognise: packing through MPI_Pack is right for every type, reading in
 * place only a speed-up.
 */
#include "pmpi_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* The runs of one instance so far: ok while they form one run [start, end). */
typedef struct runs {
    int have, ok;
    MPI_Aint start, end;
} runs;

/* bl consecutive instances of child c at byte displacement disp. */
static void block(runs *r, MPI_Aint disp, MPI_Count bl, const pm_type *c)
{
    if (!r->ok || bl <= 0 || c->size == 0)
        return;
    if (!c->one_run || (bl > 1 && c->extent != c->size)) {
        r->ok = 0;
        return;
    }
    MPI_Aint start = disp + c->tlb, len = (MPI_Aint)(bl * c->size);
    if (!r->have) {
        r->have = 1;
        r->start = start;
        r->end = start + len;
    } else if (start == r->end) {
        r->end += len;
    } else {
        r->ok = 0;
    }
}

/* count blocks of bl instances of c, block k at k * stride bytes. */
static void blocks_strided(runs *r, MPI_Count count, MPI_Count bl, MPI_Aint stride, const pm_type *c)
{
    if (count <= 0 || bl <= 0 || c->size == 0)
        return;
    block(r, 0, bl, c);
    if (count > 1 && r->ok) {
        if (stride == (MPI_Aint)(bl * c->size))
            r->end = r->start + (MPI_Aint)(count * bl * c->size);
        else
            r->ok = 0;
    }
}

/* The class of a signature made of parts of classes acc and cls. */
static int join(int acc, int cls)
{
    if (cls == PM_EMPTY)
        return acc;
    if (acc == PM_EMPTY)
        return cls;
    return acc == cls ? acc : PM_NOKERNEL;
}

static void describe(MPI_Datatype dt, pm_type *out)
{
    const pm_type *n = pm__named(dt);
    if (n)
        *out = *n;
    else
        pm__decode(dt, out);
}

/* The element type of Fortran's selected-kind types, by their size. */
static int f90_class(int combiner, MPI_Count size)
{
    if (combiner == MPI_COMBINER_F90_REAL)
        return size == 4 ? TORUS_FLOAT : size == 8 ? TORUS_DOUBLE : PM_NOKERNEL;
    if (combiner == MPI_COMBINER_F90_COMPLEX)
        return size == 8 ? TORUS_FLOAT_COMPLEX : size == 16 ? TORUS_DOUBLE_COMPLEX : PM_NOKERNEL;
    return size == 1 ? TORUS_INT8 : size == 2 ? TORUS_INT16 : size == 4 ? TORUS_INT32 : size == 8 ? TORUS_INT64
                                                                                                  : PM_NOKERNEL;
}

/* Walks the blocks of a constructor with children ch (the combiner's
 * integers and addresses as MPI_Type_get_contents gives them) into r and
 * the classes; 0, or -1 for a constructor whose runs are not walked. */
static int walk(int combiner, const int *in, const MPI_Aint *ad, const pm_type *ch, int nd, runs *r, int *elem,
                int *loc)
{
    MPI_Count count = nd > 0 ? in[0] : 0;
    /* every constructor but struct repeats its one child: the child's
     * classes, if any instance of it appears (the type's size > 0) */
    if (nd > 0) {
        *elem = ch[0].elem;
        *loc = ch[0].loc;
    }
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        block(r, 0, 1, &ch[0]);
        return 0;
    case MPI_COMBINER_CONTIGUOUS:
        block(r, 0, count, &ch[0]);
        return 0;
    case MPI_COMBINER_VECTOR:
        blocks_strided(r, count, in[1], (MPI_Aint)in[2] * ch[0].extent, &ch[0]);
        return 0;
    case MPI_COMBINER_HVECTOR:
        blocks_strided(r, count, in[1], ad[0], &ch[0]);
        return 0;
    case MPI_COMBINER_INDEXED:
        for (MPI_Count i = 0; i < count && r->ok; i++)
            block(r, (MPI_Aint)in[1 + count + i] * ch[0].extent, in[1 + i], &ch[0]);
        return 0;
    case MPI_COMBINER_HINDEXED:
        for (MPI_Count i = 0; i < count && r->ok; i++)
            block(r, ad[i], in[1 + i], &ch[0]);
        return 0;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (MPI_Count i = 0; i < count && r->ok; i++)
            block(r, (MPI_Aint)in[2 + i] * ch[0].extent, in[1], &ch[0]);
        return 0;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (MPI_Count i = 0; i < count && r->ok; i++)
            block(r, ad[i], in[1], &ch[0]);
        return 0;
    case MPI_COMBINER_STRUCT:
        *elem = *loc = PM_EMPTY;
        for (MPI_Count i = 0; i < count; i++) {
            if (in[1 + i] > 0) {
                *elem = join(*elem, ch[i].elem);
                *loc = join(*loc, ch[i].loc);
            }
            block(r, ad[i], in[1 + i], &ch[i]);
        }
        return 0;
    default:
        /* subarray, darray: the child's classes, bytes packed */
        return -1;
    }
}

void pm__decode(MPI_Datatype dt, pm_type *out)
{
    MPI_Aint textent = 0;
    /* the safe description: packed, no reduction */
    if (pm__measure(dt, out, &textent))
        out->size = 0, out->extent = 0, out->tlb = 0;
    out->one_run = out->size == 0;
    out->elem = out->loc = out->size == 0 ? PM_EMPTY : PM_NOKERNEL;
    int ni = 0, na = 0, nd = 0, combiner = MPI_UNDEFINED;
    if (out->size == 0 || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return;
    if (combiner == MPI_COMBINER_NAMED) {
        out->one_run = out->size == textent;
        return;
    }
    if (combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
        combiner == MPI_COMBINER_F90_INTEGER) {
        out->one_run = out->size == textent;
        out->elem = out->loc = f90_class(combiner, out->size);
        return;
    }
    int *in = malloc(((size_t)ni + 1) * sizeof *in);
    MPI_Aint *ad = malloc(((size_t)na + 1) * sizeof *ad);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    pm_type *ch = malloc(((size_t)nd + 1) * sizeof *ch);
    if (!in || !ad || !types || !ch) {
        fprintf(stderr, "torus_pmpi: out of memory describing a datatype\n");
        PMPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    if (PMPI_Type_get_contents(dt, ni, na, nd, in, ad, types) == MPI_SUCCESS) {
        for (int k = 0; k < nd; k++) {
            describe(types[k], &ch[k]);
            /* get_contents hands out new handles of derived children */
            if (!pm__named(types[k]))
                PMPI_Type_free(&types[k]);
        }
        runs r = {.ok = 1};
        int elem = PM_NOKERNEL, loc = PM_NOKERNEL;
        int walked = walk(combiner, in, ad, ch, nd, &r, &elem, &loc) == 0;
        out->elem = elem;
        out->loc = loc;
        /* one run, and it is exactly the type's data (no overlaps) */
        out->one_run = walked && r.ok && r.have && r.start == out->tlb && r.end - r.start == (MPI_Aint)out->size;
    }
    free(in);
    free(ad);
    free(types);
    free(ch);
}
