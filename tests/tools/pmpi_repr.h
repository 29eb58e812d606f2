/*
 * pmpi_repr.h - for tests/tools/pmpi_sigs.c: many datatypes of one type
 * signature.  A "representation" lays k elements of a base type out in a
 * rank's buffer: the datatype and count a rank passes, and where each of
 * its k signature elements lives, so the test can fill and check the
 * elements whatever layout each rank chose.  Ranks that pick different
 * representations of the same k elements pass matching signatures, as MPI
 * allows (and MPICH's test/mpi/coll covers), and must get the same result
 * as if they had all passed the base type.  Also the elements' values,
 * buffers whose bytes outside the elements must stay untouched, and the
 * per-block layouts of the v-collectives.
 */
#ifndef PMPI_REPR_H
#define PMPI_REPR_H

#include "kit_mix.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                            \
    do {                                                                                                       \
        int rc_ = (call);                                                                                      \
        if (rc_ != MPI_SUCCESS) {                                                                              \
            fprintf(stderr, "pmpi_sigs: %s failed at line %d (code %d)\n", #call, __LINE__, rc_);              \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                                      \
        }                                                                                                      \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "pmpi_sigs: out of memory for %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* A base type: its handle, its extent (the stride of an array of it) and
 * which bytes of an element are its value (the pairs have padding). */
typedef struct base {
    MPI_Datatype dt;
    const char *name;
    size_t ext;
    unsigned char value[32]; /* 1: a value byte */
} base;

static void base_init(base *b, MPI_Datatype dt, const char *name)
{
    memset(b, 0, sizeof *b);
    b->dt = dt;
    b->name = name;
    MPI_Aint lb, ext;
    CHECK(MPI_Type_get_extent(dt, &lb, &ext));
    b->ext = (size_t)ext;
    /* the value bytes: pack one element of 0xFF bytes into a zeroed one */
    unsigned char ones[32], packed[32], out[32];
    memset(ones, 0xFF, sizeof ones);
    memset(out, 0, sizeof out);
    int pos = 0, size;
    CHECK(MPI_Type_size(dt, &size));
    CHECK(MPI_Pack(ones, 1, dt, packed, sizeof packed, &pos, MPI_COMM_SELF));
    pos = 0;
    CHECK(MPI_Unpack(packed, size, &pos, out, 1, dt, MPI_COMM_SELF));
    for (size_t i = 0; i < b->ext && i < sizeof b->value; i++)
        b->value[i] = out[i] != 0;
}

/* The ways to lay k elements out (each valid for the k it says). */
typedef enum {
    K_PLAIN,    /* base x k */
    K_CONTIG,   /* contiguous(k, base) x 1 */
    K_CONTIG2,  /* contiguous(2, base) x k/2 (k even) */
    K_VECTOR,   /* vector(k, 1, 2, base) x 1: a hole after every element */
    K_VECTOR2,  /* vector(2, 1, 3, base) x k/2 (k even) */
    K_RESIZED,  /* base resized to twice its extent, x k */
    K_REVERSED, /* hindexed: element i at (k - 1 - i) extents, x 1: memory order reversed */
    K_STRUCT,   /* struct: the first half, a hole, the second half, x 1 */
    K_PAIR,     /* MPI_2INT x k/2 for int elements (the same signature: two ints) */
    K_BOTTOM,   /* MPI_BOTTOM with the elements' absolute addresses, one run */
    K_BOTTOM_GAPS, /* MPI_BOTTOM with absolute addresses, holes between */
    K_ZERO,     /* a zero-size type x 3 (k = 0 only) */
    K_NKINDS
} kind;

static const char *const kind_names[K_NKINDS] = {"plain",    "contig", "contig2", "vector", "vector2", "resized",
                                                 "reversed", "struct", "pair",    "bottom", "bottom_gaps", "zero"};

/* Whether kind can represent k elements of b (unit: every count of the
 * call a multiple of it, for the v-collectives). */
static int kind_fits(kind kd, const base *b, int k, int whole)
{
    switch (kd) {
    case K_CONTIG2: case K_VECTOR2: return k % 2 == 0;
    case K_PAIR: return b->dt == MPI_INT && k % 2 == 0;
    case K_ZERO: return k == 0 && whole;
    case K_CONTIG: case K_VECTOR: case K_REVERSED: case K_STRUCT: case K_BOTTOM: case K_BOTTOM_GAPS: return whole;
    default: return 1;
    }
}

/* Elements per instance of the unit kinds (the v-collectives' counts). */
static int kind_unit(kind kd)
{
    return kd == K_CONTIG2 || kd == K_VECTOR2 || kd == K_PAIR ? 2 : 1;
}

/* One representation of k elements: pass (buf or MPI_BOTTOM, count, dt);
 * element i is at buf + off[i]; consecutive instances (alltoall's blocks)
 * are `ext` bytes apart; one block needs `span` bytes of buffer. */
typedef struct repr {
    kind kd;
    int k, count, bottom;
    MPI_Datatype dt;
    int derived;
    size_t ext, span;
    size_t *off;
} repr;

/* Builds r for k elements of b laid out as kd at buf (the buffer only
 * matters to the MPI_BOTTOM kinds: their absolute addresses).  Call with
 * buf NULL first to learn r->span, allocate, then again with the buffer. */
static void repr_make(repr *r, kind kd, const base *b, int k, unsigned char *buf)
{
    size_t e = b->ext;
    memset(r, 0, sizeof *r);
    r->kd = kd;
    r->k = k;
    r->off = xmalloc(((size_t)k + 1) * sizeof *r->off);
    r->dt = b->dt;
    r->count = k;
    r->ext = e;
    for (int i = 0; i < k; i++)
        r->off[i] = (size_t)i * e;
    r->span = (size_t)k * e;
    int half = k / 2;
    switch (kd) {
    case K_PLAIN:
        break;
    case K_CONTIG:
        CHECK(MPI_Type_contiguous(k, b->dt, &r->dt));
        r->count = 1, r->derived = 1, r->ext = (size_t)k * e;
        break;
    case K_CONTIG2:
        CHECK(MPI_Type_contiguous(2, b->dt, &r->dt));
        r->count = k / 2, r->derived = 1, r->ext = 2 * e;
        break;
    case K_VECTOR:
        CHECK(MPI_Type_vector(k, 1, 2, b->dt, &r->dt));
        r->count = 1, r->derived = 1;
        for (int i = 0; i < k; i++)
            r->off[i] = 2 * (size_t)i * e;
        r->ext = k ? (2 * (size_t)k - 1) * e : 0;
        r->span = r->ext;
        break;
    case K_VECTOR2:
        CHECK(MPI_Type_vector(2, 1, 3, b->dt, &r->dt));
        r->count = k / 2, r->derived = 1, r->ext = 4 * e;
        for (int i = 0; i < k; i++)
            r->off[i] = (size_t)(i / 2) * 4 * e + (size_t)(i % 2) * 3 * e;
        r->span = (size_t)(k / 2) * 4 * e;
        break;
    case K_RESIZED:
        CHECK(MPI_Type_create_resized(b->dt, 0, (MPI_Aint)(2 * e), &r->dt));
        r->derived = 1, r->ext = 2 * e;
        for (int i = 0; i < k; i++)
            r->off[i] = 2 * (size_t)i * e;
        r->span = 2 * (size_t)k * e;
        break;
    case K_REVERSED: {
        MPI_Aint *d = xmalloc(((size_t)k + 1) * sizeof *d);
        for (int i = 0; i < k; i++) {
            r->off[i] = (size_t)(k - 1 - i) * e;
            d[i] = (MPI_Aint)r->off[i];
        }
        MPI_Datatype t;
        CHECK(MPI_Type_create_hindexed_block(k, 1, d, b->dt, &t));
        /* the extent of the whole k, so blocks of alltoall tile */
        CHECK(MPI_Type_create_resized(t, 0, (MPI_Aint)((size_t)k * e), &r->dt));
        CHECK(MPI_Type_free(&t));
        free(d);
        r->count = 1, r->derived = 1, r->ext = (size_t)k * e;
        break;
    }
    case K_STRUCT: {
        int bl[2] = {half, k - half};
        MPI_Aint d[2] = {0, (MPI_Aint)((size_t)(half + 1) * e)};
        MPI_Datatype ts[2] = {b->dt, b->dt}, t;
        for (int i = half; i < k; i++)
            r->off[i] = (size_t)(i + 1) * e;
        CHECK(MPI_Type_create_struct(2, bl, d, ts, &t));
        r->span = (size_t)(k + 1) * e;
        CHECK(MPI_Type_create_resized(t, 0, (MPI_Aint)r->span, &r->dt));
        CHECK(MPI_Type_free(&t));
        r->count = 1, r->derived = 1, r->ext = r->span;
        break;
    }
    case K_PAIR:
        r->dt = MPI_2INT, r->count = k / 2, r->ext = 8;
        break;
    case K_BOTTOM:
    case K_BOTTOM_GAPS: {
        size_t gap = kd == K_BOTTOM_GAPS ? 2 : 1;
        for (int i = 0; i < k; i++)
            r->off[i] = (size_t)i * gap * e;
        r->span = k ? ((size_t)k * gap - gap + 1) * e : 0;
        r->bottom = 1, r->count = 1, r->derived = 1, r->ext = r->span;
        if (buf) {
            MPI_Aint *d = xmalloc(((size_t)k + 1) * sizeof *d), lb;
            for (int i = 0; i < k; i++)
                CHECK(MPI_Get_address(buf + r->off[i], &d[i]));
            CHECK(MPI_Get_address(buf, &lb));
            MPI_Datatype t;
            CHECK(MPI_Type_create_hindexed_block(k, 1, d, b->dt, &t));
            CHECK(MPI_Type_create_resized(t, lb, (MPI_Aint)r->span, &r->dt));
            CHECK(MPI_Type_free(&t));
            free(d);
        } else {
            r->derived = 0; /* the first call only measures */
        }
        break;
    }
    case K_ZERO:
        CHECK(MPI_Type_contiguous(0, b->dt, &r->dt));
        r->count = 3, r->derived = 1, r->ext = 0;
        break;
    default:
        break;
    }
    if (r->derived)
        CHECK(MPI_Type_commit(&r->dt));
}

static void repr_free(repr *r)
{
    if (r->derived)
        CHECK(MPI_Type_free(&r->dt));
    free(r->off);
    r->off = NULL;
}

/* The buffer argument to pass for a buffer at buf. */
static void *repr_buf(const repr *r, void *buf)
{
    return r->bottom ? MPI_BOTTOM : buf;
}


/* ---- elements and buffers ------------------------------------------------- */


/* The value bytes of an element from a key. */
static void put(const base *b, unsigned char *e, uint64_t key)
{
    for (size_t i = 0; i < b->ext; i++)
        if (b->value[i])
            e[i] = (unsigned char)kit_mix64(key * 64 + i);
}

static int same(const base *b, const unsigned char *e, const unsigned char *want)
{
    for (size_t i = 0; i < b->ext; i++)
        if (b->value[i] && e[i] != want[i])
            return 0;
    return 1;
}

/* A buffer of `bytes` filled with a rank's pattern; the mask marks the
 * value bytes of the elements placed in it. */
typedef struct buffer {
    unsigned char *p, *mask;
    size_t bytes;
    unsigned char fillv;
} buffer;

static void buf_new(buffer *B, size_t bytes, unsigned char fillv)
{
    B->bytes = bytes;
    B->fillv = fillv;
    B->p = xmalloc(bytes + 16);
    B->mask = xmalloc(bytes + 16);
    memset(B->p, fillv, bytes + 16);
    memset(B->mask, 0, bytes + 16);
}

static void buf_mark(buffer *B, const base *b, size_t off)
{
    for (size_t i = 0; i < b->ext; i++)
        if (b->value[i])
            B->mask[off + i] = 1;
}

static void buf_free(buffer *B)
{
    free(B->p);
    free(B->mask);
}

/* A kind for this rank's side of a call (its own choice: ranks differ). */
static kind pick_kind(uint64_t seed, int rank, int side, const base *b, int k, int whole)
{
    for (uint64_t t = 0;; t++) {
        kind kd = (kind)(kit_mix64(seed * 1315423911u + (uint64_t)rank * 7 + (uint64_t)side * 131 + t * 977) % K_NKINDS);
        if (kind_fits(kd, b, k, whole))
            return kd;
    }
}

/* ---- the v-collectives: one unit type per side ---------------------------- */

/* Elements from src to dst in a v-call: even (every unit kind fits),
 * zeros among them; symmetric when in place (MPI's rule there). */
static int vcount(uint64_t seed, int src, int dst, int sym)
{
    int a = sym && dst < src ? dst : src, z = sym && dst < src ? src : dst;
    return 2 * (int)(kit_mix64(seed + (uint64_t)a * 31 + (uint64_t)z * 1009) % 5);
}

/* One side: k[j] elements per block, laid out as kind kd (a unit kind),
 * blocks in reverse order with a gap of one unit: counts and displacements
 * in this side's units and extents; element i of block j at at[j] + off. */
typedef struct vside {
    repr u; /* one unit */
    int unit;
    int *counts, *displs;
    size_t bytes;
} vside;

static void vside_make(vside *v, kind kd, const base *b, const int *k, int nb)
{
    v->unit = kind_unit(kd);
    repr_make(&v->u, kd, b, v->unit, NULL);
    v->counts = xmalloc(2 * (size_t)nb * sizeof(int));
    v->displs = v->counts + nb;
    int at = 0;
    for (int j = nb - 1; j >= 0; j--) {
        v->counts[j] = k[j] / v->unit;
        v->displs[j] = at;
        at += v->counts[j] + 1;
    }
    v->bytes = (size_t)at * v->u.ext;
}

static size_t vside_at(const vside *v, int j, int i)
{
    return (size_t)v->displs[j] * v->u.ext + (size_t)(i / v->unit) * v->u.ext + v->u.off[i % v->unit];
}

static void vside_free(vside *v)
{
    repr_free(&v->u);
    free(v->counts);
}

static const kind unit_kinds[] = {K_PLAIN, K_CONTIG2, K_VECTOR2, K_RESIZED, K_PAIR};

static kind pick_unit(uint64_t seed, int rank, int side, const base *b)
{
    for (uint64_t t = 0;; t++) {
        kind kd = unit_kinds[kit_mix64(seed * 31 + (uint64_t)rank * 17 + (uint64_t)side + t * 101) % 5];
        if (kind_fits(kd, b, 2, 0))
            return kd;
    }
}

#endif
