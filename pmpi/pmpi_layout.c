/*
 * pmpi_layout.c - where a rank's bytes are: in place, or packed around
 * the torus call.
 *
 * The torus collectives move bytes of contiguous buffers.  A rank whose
 * datatype lays its count instances out as one run in type-map order
 * (a predefined type, a contiguous derived one, MPI_BOTTOM with one
 * absolute block) hands that run over directly; any other rank packs its
 * data with MPI_Pack into scratch (the bytes of its type signature, in
 * order: exactly what a rank with a contiguous type holds) and unpacks
 * what it receives with MPI_Unpack.  The choice is each rank's own and
 * changes no message, so ranks that pass different handles of one
 * signature still exchange the same bytes.  MPI_Pack takes int sizes: the
 * data is packed in pieces of at most INT_MAX bytes; a single instance
 * larger than that stops the job (a documented limit).
 */
#include "pmpi_impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static void *at(const void *buf, MPI_Aint off)
{
    /* MPI_BOTTOM is address 0 in both libraries: integer arithmetic */
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

void *pm__direct(const void *buf, MPI_Count count, const pm_type *t)
{
    if (!count || !t->size)
        return at(buf, 0); /* nothing is read or written */
    if (!t->one_run || (count > 1 && t->extent != (MPI_Aint)t->size))
        return NULL;
    return at(buf, t->tlb);
}

/* Instances per MPI_Pack/MPI_Unpack call: as many as fit in INT_MAX bytes. */
static MPI_Count piece(pm_comm *pc, const pm_type *t)
{
    MPI_Count k = INT_MAX / t->size;
    if (k < 1) {
        fprintf(stderr, "torus_pmpi: rank %d: a non-contiguous datatype of %lld bytes per element: MPI_Pack takes at "
                        "most 2 GiB\n", pc->me, (long long)t->size);
        PMPI_Abort(pc->comm, KIT_EXIT_RESOURCE);
    }
    return k;
}

static void check(pm_comm *pc, int rc, int pos, MPI_Count want, const char *what)
{
    if (rc != MPI_SUCCESS || pos != (int)want) {
        /* MPI's packed format is its own; both libraries here pack a
         * homogeneous system's bytes raw, which this code relies on */
        fprintf(stderr, "torus_pmpi: rank %d: %s gave %d bytes where the type signature has %lld\n", pc->me, what, pos,
                (long long)want);
        PMPI_Abort(pc->comm, KIT_EXIT_RESOURCE);
    }
}

/* k instances of dt at buf as (buffer, count, type) for MPI_Pack and
 * MPI_Unpack.  MPICH 4.0.2 refuses a NULL buffer there even when it is
 * MPI_BOTTOM (absolute displacements): then the buffer is the data's true
 * lower bound and the type the k instances shifted down by it (a type
 * made for the call, *made = 1: the caller frees it). */
static void *pack_args(const void *buf, MPI_Count k, MPI_Datatype dt, const pm_type *t, int *n, MPI_Datatype *use,
                       int *made)
{
    *n = (int)k, *use = dt, *made = 0;
    if (buf)
        return at(buf, 0);
    int bl = (int)k;
    MPI_Aint d = -t->tlb;
    PMPI_Type_create_hindexed(1, &bl, &d, dt, use);
    PMPI_Type_commit(use);
    *n = 1, *made = 1;
    return at(NULL, t->tlb);
}

/* count instances of dt at buf to (unpack 0) or from (unpack 1) their
 * packed bytes, in pieces of at most INT_MAX bytes. */
static void transfer(pm_comm *pc, int unpack, const void *buf, MPI_Count count, MPI_Datatype dt, const pm_type *t,
                     unsigned char *packed)
{
    if (!count || !t->size)
        return;
    MPI_Count step = piece(pc, t);
    for (MPI_Count done = 0; done < count;) {
        MPI_Count k = count - done < step ? count - done : step;
        int pos = 0, n, made, bytes = (int)(k * t->size);
        MPI_Datatype use;
        void *data = pack_args(at(buf, (MPI_Aint)(done * t->extent)), k, dt, t, &n, &use, &made);
        unsigned char *p = packed + done * t->size;
        int rc = unpack ? PMPI_Unpack(p, bytes, &pos, data, n, use, pc->comm)
                        : PMPI_Pack(data, n, use, p, bytes, &pos, pc->comm);
        if (made)
            PMPI_Type_free(&use);
        check(pc, rc, pos, k * t->size, unpack ? "MPI_Unpack" : "MPI_Pack");
        done += k;
    }
}

void pm__pack(pm_comm *pc, const void *buf, MPI_Count count, MPI_Datatype dt, const pm_type *t, void *out)
{
    transfer(pc, 0, buf, count, dt, t, out);
}

void pm__unpack(pm_comm *pc, const void *in, void *buf, MPI_Count count, MPI_Datatype dt, const pm_type *t)
{
    /* MPI_Unpack reads `in` only; MPI's prototype wants it non-const */
    unsigned char *packed;
    memcpy(&packed, &in, sizeof packed);
    transfer(pc, 1, buf, count, dt, t, packed);
}

int pm__side(pm_comm *pc, pm_side *s, int slot, const void *buf, int k, const int *counts, const int *displs,
             const pm_type *t)
{
    int direct = t->size == 0 || (t->one_run && t->extent == (MPI_Aint)t->size);
    MPI_Aint lo = 0;
    int first = 1;
    s->total = 0;
    for (int i = 0; i < k; i++) {
        if (counts[i] < 0)
            return -1;
        s->cnt[i] = (size_t)counts[i] * (size_t)t->size;
        s->total += s->cnt[i];
        MPI_Aint o = (MPI_Aint)displs[i] * t->extent + t->tlb;
        if (s->cnt[i] && (first || o < lo))
            lo = o, first = 0;
    }
    s->packed = !direct;
    if (direct) {
        /* the blocks where they are, from the lowest one (MPI allows
         * negative displacements: the torus side takes offsets >= 0) */
        s->base = at(buf, lo);
        for (int i = 0; i < k; i++)
            s->off[i] = s->cnt[i] ? (size_t)((MPI_Aint)displs[i] * t->extent + t->tlb - lo) : 0;
        return 0;
    }
    size_t o = 0;
    for (int i = 0; i < k; i++) {
        s->off[i] = o;
        o += s->cnt[i];
    }
    s->base = pm__scratch(pc, slot, s->total, "packing a v-collective's blocks");
    return 0;
}

void pm__side_pack(pm_comm *pc, const pm_side *s, const void *buf, int k, const int *counts, const int *displs,
                   MPI_Datatype dt, const pm_type *t)
{
    for (int i = 0; i < k; i++)
        if (s->cnt[i])
            pm__pack(pc, at(buf, (MPI_Aint)displs[i] * t->extent), counts[i], dt, t, s->base + s->off[i]);
}

void pm__side_unpack(pm_comm *pc, const pm_side *s, void *buf, int k, const int *counts, const int *displs,
                     MPI_Datatype dt, const pm_type *t)
{
    for (int i = 0; i < k; i++)
        if (s->cnt[i])
            pm__unpack(pc, s->base + s->off[i], at(buf, (MPI_Aint)displs[i] * t->extent), counts[i], dt, t);
}
