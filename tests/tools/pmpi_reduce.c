/*
 * pmpi_reduce.c - MPI_Allreduce on every predefined type MPI lists for
 * every predefined op, against the MPI library's own result in the same
 * run: each trial calls MPI_Allreduce (the adapter's, under LD_PRELOAD)
 * and PMPI_Allreduce (always the library's) on the same input, with
 * counts 0..65537 and MPI_IN_PLACE drawn at random, and compares them
 * under the numeric policy (docs/mpi-adapter.md):
 * - integer sums and products (wrap-around), min/max, the logical and
 *   bitwise ops, MAXLOC/MINLOC (MPI's tie rule), min/max on floating
 *   types: bit for bit (value bytes: a long double's padding and the
 *   padded pairs' holes excluded);
 * - floating sums and products (float, double, long double, complex): the
 *   adapter combines in the type's own arithmetic in its algorithm's
 *   order, so within n_ranks ulps of the sum of magnitudes (products:
 *   relative); the same bits on every rank; the same bits when the call
 *   is repeated (reproducible); and bit for bit under
 *   TORUS_COLL_REPRO=library, where they go to the library.
 * Two library bugs are kept out of the comparison, where the adapter is
 * right and the libraries are not: unsigned min/max use values below the
 * top bit (MPICH 4.0.2, pmodels/mpich#6083, and Open MPI 4.1.2-4.1.4,
 * open-mpi/ompi#10525/#10648, compare some unsigned types as signed, and
 * Open MPI 4.1.4 the signed MPI_OFFSET as unsigned: min(-5, 3) = 3); 8-
 * and 16-bit sums never wrap (Open MPI 4.1's op/avx component saturates
 * them from 64 elements on, open-mpi/ompi#8045, "wontfix", while it wraps
 * shorter vectors; C, MPICH and the adapter wrap).
 *
 *   pmpi_reduce SEED TRIALS   TRIALS trials of every (type, op) pair
 *
 * Rank 0 prints "pmpi_reduce: P pairs, N calls, 0 mismatches" and "expect
 * op=allreduce fell_through=N why.REASON=N ..." (the keys of the adapter's
 * TORUS_COLL_STATS=kv line): the calls the policy hands to the library
 * (MPI_LOGICAL: no kernel, "datatype"; under TORUS_COLL_REPRO=library the
 * floating sums and products, "repro").
 * Exit 1 on a mismatch.
 */
#include "kit_mix.h"
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                            \
    do {                                                                                                       \
        int rc_ = (call);                                                                                      \
        if (rc_ != MPI_SUCCESS) {                                                                              \
            fprintf(stderr, "pmpi_reduce: %s failed at line %d (code %d)\n", #call, __LINE__, rc_);            \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                                      \
        }                                                                                                      \
    } while (0)

/* G_NOLOGIC: Fortran integers and the multi-language types (MPI_AINT,
 * MPI_OFFSET, MPI_COUNT): integers without the logical ops */
typedef enum { G_SINT, G_UINT, G_NOLOGIC, G_FLOAT, G_COMPLEX, G_BOOL, G_BYTE, G_PAIR, G_FLOGICAL } group;

typedef struct tinfo {
    MPI_Datatype dt;
    const char *name;
    group g;
    int real;       /* floating: 4, 8 or 16 (long double) bytes per real part; pairs: value size */
    size_t ext;     /* bytes between elements */
    size_t idx_off; /* pairs: where the index sits */
    int idx_real;   /* pairs: the index is a real of this size (Fortran's 2REAL), 0: an int */
} tinfo;

static tinfo types[64];
static int ntypes, me, np;

static void add(MPI_Datatype dt, const char *name, group g, int real, size_t idx_off, int idx_real)
{
    if (dt == MPI_DATATYPE_NULL)
        return;
    MPI_Aint lb, ext;
    CHECK(MPI_Type_get_extent(dt, &lb, &ext));
    types[ntypes++] = (tinfo){dt, name, g, real, (size_t)ext, idx_off, idx_real};
}

static void set_types(void)
{
    add(MPI_INT, "int", G_SINT, 0, 0, 0);
    add(MPI_UNSIGNED, "unsigned", G_UINT, 0, 0, 0);
    add(MPI_LONG, "long", G_SINT, 0, 0, 0);
    add(MPI_UNSIGNED_LONG, "unsigned_long", G_UINT, 0, 0, 0);
    add(MPI_LONG_LONG, "long_long", G_SINT, 0, 0, 0);
    add(MPI_UNSIGNED_LONG_LONG, "unsigned_long_long", G_UINT, 0, 0, 0);
    add(MPI_SHORT, "short", G_SINT, 0, 0, 0);
    add(MPI_UNSIGNED_SHORT, "unsigned_short", G_UINT, 0, 0, 0);
    add(MPI_SIGNED_CHAR, "signed_char", G_SINT, 0, 0, 0);
    add(MPI_UNSIGNED_CHAR, "unsigned_char", G_UINT, 0, 0, 0);
    add(MPI_INT8_T, "int8", G_SINT, 0, 0, 0);
    add(MPI_INT16_T, "int16", G_SINT, 0, 0, 0);
    add(MPI_INT32_T, "int32", G_SINT, 0, 0, 0);
    add(MPI_INT64_T, "int64", G_SINT, 0, 0, 0);
    add(MPI_UINT8_T, "uint8", G_UINT, 0, 0, 0);
    add(MPI_UINT16_T, "uint16", G_UINT, 0, 0, 0);
    add(MPI_UINT32_T, "uint32", G_UINT, 0, 0, 0);
    add(MPI_UINT64_T, "uint64", G_UINT, 0, 0, 0);
    add(MPI_AINT, "aint", G_NOLOGIC, 0, 0, 0);
    add(MPI_OFFSET, "offset", G_NOLOGIC, 0, 0, 0);
    add(MPI_COUNT, "count", G_NOLOGIC, 0, 0, 0);
    add(MPI_FLOAT, "float", G_FLOAT, 4, 0, 0);
    add(MPI_DOUBLE, "double", G_FLOAT, 8, 0, 0);
    add(MPI_LONG_DOUBLE, "long_double", G_FLOAT, 16, 0, 0);
    add(MPI_C_FLOAT_COMPLEX, "c_float_complex", G_COMPLEX, 4, 0, 0);
    add(MPI_C_DOUBLE_COMPLEX, "c_double_complex", G_COMPLEX, 8, 0, 0);
    add(MPI_C_LONG_DOUBLE_COMPLEX, "c_long_double_complex", G_COMPLEX, 16, 0, 0);
    add(MPI_C_BOOL, "c_bool", G_BOOL, 0, 0, 0);
    add(MPI_BYTE, "byte", G_BYTE, 0, 0, 0);
    add(MPI_FLOAT_INT, "float_int", G_PAIR, 4, 4, 0);
    add(MPI_DOUBLE_INT, "double_int", G_PAIR, 8, 8, 0);
    add(MPI_LONG_INT, "long_int", G_PAIR, -8, 8, 0); /* negative: an integer value */
    add(MPI_2INT, "2int", G_PAIR, -4, 4, 0);
    add(MPI_SHORT_INT, "short_int", G_PAIR, -2, 4, 0);
    add(MPI_LONG_DOUBLE_INT, "long_double_int", G_PAIR, 16, 16, 0);
    add(MPI_INTEGER, "integer", G_NOLOGIC, 0, 0, 0);
    add(MPI_REAL, "real", G_FLOAT, 4, 0, 0);
    add(MPI_DOUBLE_PRECISION, "double_precision", G_FLOAT, 8, 0, 0);
    add(MPI_COMPLEX, "complex", G_COMPLEX, 4, 0, 0);
    add(MPI_DOUBLE_COMPLEX, "double_complex", G_COMPLEX, 8, 0, 0);
    add(MPI_LOGICAL, "logical", G_FLOGICAL, 0, 0, 0);
    add(MPI_2INTEGER, "2integer", G_PAIR, -4, 4, 0);
    add(MPI_2REAL, "2real", G_PAIR, 4, 4, 4);
    add(MPI_2DOUBLE_PRECISION, "2double_precision", G_PAIR, 8, 8, 8);
}

typedef struct opinfo {
    MPI_Op op;
    const char *name;
} opinfo;

/* MPI-4.0 sec. 6.9.2: the ops each group allows. */
static int allowed(group g, MPI_Op op)
{
    int arith = op == MPI_SUM || op == MPI_PROD, order = op == MPI_MIN || op == MPI_MAX;
    int logic = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
    int bits = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR, loc = op == MPI_MAXLOC || op == MPI_MINLOC;
    switch (g) {
    case G_SINT: case G_UINT: return arith || order || logic || bits;
    case G_NOLOGIC: return arith || order || bits;
    case G_FLOAT: return arith || order;
    case G_COMPLEX: return arith;
    case G_BOOL: case G_FLOGICAL: return logic;
    case G_BYTE: return bits;
    default: return loc;
    }
}


/* A real of `size` bytes with value v at p (a long double's padding zero). */
static void put_real(unsigned char *p, int size, long double v)
{
    if (size == 4) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (size == 8) {
        double d = (double)v;
        memcpy(p, &d, 8);
    } else {
        memset(p, 0, 16);
        memcpy(p, &v, 10);
    }
}

static long double get_real(const unsigned char *p, int size)
{
    if (size == 4) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (size == 8) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    long double v = 0;
    memcpy(&v, p, 10);
    return v;
}

/* This rank's element i for a trial. */
static void value(const tinfo *t, MPI_Op op, uint64_t key, unsigned char *e)
{
    uint64_t x = kit_mix64(key);
    double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
    memset(e, 0, t->ext);
    switch (t->g) {
    case G_SINT: case G_UINT: case G_NOLOGIC: case G_BYTE:
        memcpy(e, &x, t->ext);
        if ((op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) && x % 3 == 0)
            memset(e, 0, t->ext);
        if ((t->g == G_UINT || t->dt == MPI_OFFSET) && (op == MPI_MIN || op == MPI_MAX))
            e[t->ext - 1] &= 0x7F; /* below the top bit (see the header) */
        if (t->ext <= 2 && op == MPI_SUM) {
            /* 8- and 16-bit sums that never wrap at 8 ranks (see the header) */
            int v = (int)(x % (t->ext == 1 ? 31 : 8191)) - (t->g == G_UINT ? 0 : (t->ext == 1 ? 15 : 4095));
            memcpy(e, &v, t->ext); /* little-endian: the low bytes */
        }
        break;
    case G_BOOL:
        e[0] = (unsigned char)(x & 1);
        break;
    case G_FLOGICAL: {
        int v = x & 1; /* .TRUE. is 1 for gfortran and both libraries' C side */
        memcpy(e, &v, sizeof v);
        break;
    }
    case G_FLOAT:
        put_real(e, t->real, op == MPI_PROD ? 0.5 + 1.5 * u : (u - 0.5) * 2000.0);
        break;
    case G_COMPLEX: {
        double w = (double)(kit_mix64(x) >> 11) / 9007199254740992.0;
        put_real(e, t->real, op == MPI_PROD ? 0.5 + u : (u - 0.5) * 4);
        put_real(e + (t->real == 16 ? 16 : t->real), t->real, op == MPI_PROD ? w - 0.5 : (w - 0.5) * 4);
        break;
    }
    default: {
        /* pairs: values 0..3 (ties are the point), the index anything */
        int small = (int)(x % 4);
        if (t->real > 0)
            put_real(e, t->real, small);
        else if (t->real == -8) {
            long v = small;
            memcpy(e, &v, 8);
        } else if (t->real == -4) {
            memcpy(e, &small, 4);
        } else {
            short v = (short)small;
            memcpy(e, &v, 2);
        }
        int idx = (int)(kit_mix64(x) % 100000);
        if (t->idx_real)
            put_real(e + t->idx_off, t->idx_real, idx);
        else
            memcpy(e + t->idx_off, &idx, 4);
        break;
    }
    }
}

/* Whether byte b of an element is part of its value. */
static int value_byte(const tinfo *t, size_t b)
{
    switch (t->g) {
    case G_FLOAT: case G_COMPLEX:
        return t->real == 16 ? b % 16 < 10 : 1;
    case G_PAIR: {
        size_t vs = t->real > 0 ? (size_t)t->real : (size_t)-t->real;
        size_t is = t->idx_real ? (size_t)t->idx_real : 4;
        return (b < vs && (t->real != 16 || b < 10)) || (b >= t->idx_off && b < t->idx_off + is);
    }
    default:
        return 1;
    }
}

static uint64_t hash_values(const tinfo *t, const unsigned char *p, int count)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < (size_t)count * t->ext; i++)
        if (value_byte(t, i % t->ext))
            h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static int floating_arith(const tinfo *t, MPI_Op op)
{
    return (t->g == G_FLOAT || t->g == G_COMPLEX) && (op == MPI_SUM || op == MPI_PROD);
}

/* Element i of got against the library's: within the policy. */
static int close_enough(const tinfo *t, MPI_Op op, const unsigned char *got, const unsigned char *want,
                        long double magnitude)
{
    long double eps = t->real == 4 ? FLT_EPSILON : t->real == 8 ? DBL_EPSILON : LDBL_EPSILON;
    int parts = t->g == G_COMPLEX ? 2 : 1;
    size_t step = t->real == 16 ? 16 : (size_t)t->real;
    /* a product's error scales with its modulus (a complex part may
     * cancel to near zero), a sum's with the sum of magnitudes */
    long double modulus = 0;
    for (int p = 0; p < parts; p++)
        modulus += fabsl(get_real(want + (size_t)p * step, t->real));
    long double tol = 4 * np * eps * (op == MPI_SUM ? magnitude : 4 * modulus + 1e-30L);
    for (int p = 0; p < parts; p++) {
        long double a = get_real(got + (size_t)p * step, t->real), b = get_real(want + (size_t)p * step, t->real);
        if (!(fabsl(a - b) <= tol))
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    char *end = NULL;
    unsigned long long seed = argc == 3 ? strtoull(argv[1], &end, 10) : 0;
    long trials = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (argc != 3 || *end || trials < 1 || trials > 1000) {
        if (me == 0)
            fprintf(stderr, "pmpi_reduce: usage: pmpi_reduce SEED TRIALS (a number, 1..1000)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *repro = getenv("TORUS_COLL_REPRO");
    int library_bits = repro && !strcmp(repro, "library");
    set_types();
    const opinfo ops[] = {{MPI_SUM, "sum"},   {MPI_PROD, "prod"}, {MPI_MIN, "min"},   {MPI_MAX, "max"},
                          {MPI_LAND, "land"}, {MPI_LOR, "lor"},   {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},
                          {MPI_BOR, "bor"},   {MPI_BXOR, "bxor"}, {MPI_MAXLOC, "maxloc"}, {MPI_MINLOC, "minloc"}};
    enum { MAXCOUNT = 65537 };
    size_t cap = (size_t)MAXCOUNT * 32;
    unsigned char *in = malloc(cap), *mine = malloc(cap), *lib = malloc(cap), *again = malloc(cap);
    long double *mag = malloc((size_t)MAXCOUNT * sizeof *mag);
    if (!in || !mine || !lib || !again || !mag)
        MPI_Abort(MPI_COMM_WORLD, 3);
    long pairs = 0, calls = 0, bad = 0, fell_repro = 0, fell_type = 0;
    for (int ti = 0; ti < ntypes; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
            const tinfo *t = &types[ti];
            MPI_Op op = ops[oi].op;
            if (!allowed(t->g, op))
                continue;
            pairs++;
            for (long tr = 0; tr < trials; tr++) {
                uint64_t k = kit_mix64(seed * 1000003u + (uint64_t)(ti * 64 + (int)oi) * 131u + (uint64_t)tr);
                int r = (int)(k % 20), in_place = (int)(k / 20 % 2);
                int count = r < 2 ? 0 : r < 8 ? 1 + (int)(k / 40 % 17) : r < 18 ? (int)(k / 40 % 4096)
                                                                          : MAXCOUNT - (int)(k / 40 % 3);
                /* the large counts on one trial in a few, not at every rank count */
                if (count > 4096 && (k / 7 % 4 != 0 || t->ext > 16))
                    count = 4096 + (int)(k / 40 % 100);
                size_t bytes = (size_t)count * t->ext;
                for (int i = 0; i < count; i++)
                    value(t, op, k * 7919u + (uint64_t)me * 104729u + (uint64_t)i, in + (size_t)i * t->ext);
                if (floating_arith(t, op) && op == MPI_SUM) {
                    /* the sum of magnitudes, the scale of a sum's rounding */
                    for (int i = 0; i < count; i++)
                        mag[i] = fabsl(get_real(in + (size_t)i * t->ext, t->real)) * (t->g == G_COMPLEX ? 2 : 1);
                    long double *all = malloc(((size_t)count + 1) * sizeof *all);
                    if (!all)
                        MPI_Abort(MPI_COMM_WORLD, 3);
                    for (int i = 0; i < count; i++)
                        all[i] = mag[i];
                    /* PMPI: the library's own sum, outside the adapter's reach */
                    CHECK(PMPI_Allreduce(MPI_IN_PLACE, all, count, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
                    memcpy(mag, all, (size_t)count * sizeof *mag);
                    free(all);
                }
                memcpy(mine, in, bytes);
                memcpy(lib, in, bytes);
                if (in_place) {
                    CHECK(MPI_Allreduce(MPI_IN_PLACE, mine, count, t->dt, op, MPI_COMM_WORLD));
                    CHECK(PMPI_Allreduce(MPI_IN_PLACE, lib, count, t->dt, op, MPI_COMM_WORLD));
                } else {
                    CHECK(MPI_Allreduce(in, mine, count, t->dt, op, MPI_COMM_WORLD));
                    CHECK(PMPI_Allreduce(in, lib, count, t->dt, op, MPI_COMM_WORLD));
                }
                calls++;
                if (count && t->g == G_FLOGICAL)
                    fell_type++;
                int fp = floating_arith(t, op), exact = !fp || library_bits, ok = 1;
                if (count && fp && library_bits)
                    fell_repro++;
                for (int i = 0; i < count && ok; i++) {
                    const unsigned char *a = mine + (size_t)i * t->ext, *b = lib + (size_t)i * t->ext;
                    if (exact) {
                        for (size_t x = 0; x < t->ext; x++)
                            if (value_byte(t, x) && a[x] != b[x])
                                ok = 0;
                    } else {
                        ok = close_enough(t, op, a, b, op == MPI_SUM ? mag[i] : 0);
                    }
                    if (!ok && bad < 10)
                        fprintf(stderr, "pmpi_reduce: rank %d: %s %s count %d%s: element %d differs from the "
                                        "library's\n", me, t->name, ops[oi].name, count, in_place ? " in place" : "", i);
                }
                if (fp && !library_bits && count) {
                    /* the same bits on every rank, and again on a repeat */
                    memcpy(again, in, bytes);
                    CHECK(MPI_Allreduce(MPI_IN_PLACE, again, count, t->dt, op, MPI_COMM_WORLD));
                    calls++;
                    uint64_t h = hash_values(t, mine, count), hs[2] = {h, ~h}, hmax[2];
                    CHECK(PMPI_Allreduce(hs, hmax, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
                    if (hmax[0] != ~hmax[1] || hash_values(t, again, count) != h) {
                        ok = 0;
                        if (bad < 10)
                            fprintf(stderr, "pmpi_reduce: rank %d: %s %s count %d: not the same bits on every rank "
                                            "and every repeat\n", me, t->name, ops[oi].name, count);
                    }
                }
                bad += !ok;
            }
        }
    long tot[2] = {bad, 0}, sum[2];
    CHECK(PMPI_Allreduce(tot, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0) {
        printf("pmpi_reduce: %ld pairs, %ld calls, %ld mismatches\n", pairs, calls, sum[0]);
        /* the same as keys: what tests/suite_pmpi.sh reads */
        printf("pairs: %ld\ncalls: %ld\nmismatches: %ld\n", pairs, calls, sum[0]);
        /* the keys of the adapter's TORUS_COLL_STATS=kv line, nonzero reasons only */
        printf("expect op=allreduce fell_through=%ld", fell_repro + fell_type);
        if (fell_type)
            printf(" why.datatype=%ld", fell_type);
        if (fell_repro)
            printf(" why.repro=%ld", fell_repro);
        printf("\n");
    }
    free(in), free(mine), free(lib), free(again), free(mag);
    CHECK(MPI_Finalize());
    return sum[0] ? 1 : 0;
}
