/*
 * pmpi_check.c - the MPI program tests/suite_pmpi.sh runs with and without
 * LD_PRELOAD=lib/<mpi>/libtorus_pmpi.so: it calls every operation the
 * adapter intercepts (MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Neighbor_alltoallv) over many datatypes, ops and counts (zero included), roots
 * other than 0, MPI_IN_PLACE, on MPI_COMM_WORLD, a duplicate of it and a
 * split with reversed rank order, derived datatypes (which the adapter
 * packs), plus cases it must hand to the MPI library (user-defined ops, an
 * intercommunicator, a Cartesian communicator for the neighbourhood call).  Rank 0 prints one line per case, "NAME DIGEST",
 * the digest a hash of every rank's result bytes in rank order, then
 * "cases N".  The two runs must print the same lines.  An argument STRIDE
 * runs every STRIDE-th case only (quick runs at many rank counts).
 *
 * Values are chosen so that results are defined and exact in any order of
 * combination: signed sums stay in range, unsigned sums wrap (defined in
 * C), double sums add multiples of 1/4 far below 2^53.  The digests are
 * gathered with MPI_Gather, which the adapter leaves alone.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        if (rc_ != MPI_SUCCESS) {                                                                      \
            fprintf(stderr, "pmpi_check: %s failed at line %d (code %d)\n", #call, __LINE__, rc_);    \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                              \
        }                                                                                              \
    } while (0)

enum { MAXCASES = 2048 };
static char names[MAXCASES][160];
static uint64_t digests[MAXCASES];
static int ncases;
/* The other communicators run every STRIDE-th case of the table (a
 * different slice each), MPI_COMM_WORLD all of them: the suite runs this
 * at 1-8 ranks on two cores, where each collective costs milliseconds. */
static int stride = 1, slice;
static int skip(int *idx)
{
    return (*idx)++ % stride != slice;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Records one case: this rank's result bytes under a name every rank shares. */
static void record(const char *comm, const char *what, const void *buf, size_t bytes)
{
    if (ncases >= MAXCASES) {
        fprintf(stderr, "pmpi_check: more than %d cases\n", MAXCASES);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    snprintf(names[ncases], sizeof names[ncases], "%s/%s", comm, what);
    digests[ncases++] = fnv(0xcbf29ce484222325ULL, buf, bytes);
}

/* Bytes that differ by rank and by seed: a block left unwritten shows. */
static void fill(void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *b = buf;
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < bytes; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        b[i] = (unsigned char)(x >> 56);
    }
}

/* ---- datatypes ----------------------------------------------------------- */

typedef enum { K_SINT, K_UINT, K_FLOAT, K_DOUBLE } kind;
typedef struct tinfo {
    MPI_Datatype dt;
    const char *name;
    kind k;
    int size;
} tinfo;

static tinfo types[24];
static int ntypes;

static void add_type(MPI_Datatype dt, const char *name, kind k)
{
    int size;
    CHECK(MPI_Type_size(dt, &size));
    types[ntypes++] = (tinfo){dt, name, k, size};
}

static void set_types(void)
{
    add_type(MPI_INT, "int", K_SINT);
    add_type(MPI_UNSIGNED, "unsigned", K_UINT);
    add_type(MPI_LONG, "long", K_SINT);
    add_type(MPI_UNSIGNED_LONG, "ulong", K_UINT);
    add_type(MPI_LONG_LONG, "longlong", K_SINT);
    add_type(MPI_UNSIGNED_LONG_LONG, "ulonglong", K_UINT);
    add_type(MPI_INT64_T, "int64", K_SINT);
    add_type(MPI_UINT64_T, "uint64", K_UINT);
    add_type(MPI_SHORT, "short", K_SINT);
    add_type(MPI_UNSIGNED_SHORT, "ushort", K_UINT);
    add_type(MPI_INT8_T, "int8", K_SINT);
    add_type(MPI_UINT8_T, "uint8", K_UINT);
    add_type(MPI_INT16_T, "int16", K_SINT);
    add_type(MPI_INT32_T, "int32", K_SINT);
    add_type(MPI_UINT32_T, "uint32", K_UINT);
    add_type(MPI_SIGNED_CHAR, "schar", K_SINT);
    add_type(MPI_FLOAT, "float", K_FLOAT);
    add_type(MPI_DOUBLE, "double", K_DOUBLE);
}

/* Element i of rank r for a reduction of type t with op. */
static void set_value(void *buf, size_t i, const tinfo *t, int r, MPI_Op op)
{
    long long s = (long long)((r * 37 + (int)i * 11) % 31) - 15; /* |s| <= 15: 8 ranks never overflow int8 */
    uint64_t u = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)i * 0x632BE59BD9B4E019ULL;
    switch (t->k) {
    case K_SINT:
        if (t->size == 8)
            s += (long long)((r + (int)i) % 3 - 1) * (1LL << 40);
        if (t->size == 1)
            ((int8_t *)buf)[i] = (int8_t)s;
        else if (t->size == 2)
            ((int16_t *)buf)[i] = (int16_t)s;
        else if (t->size == 4)
            ((int32_t *)buf)[i] = (int32_t)s;
        else
            ((int64_t *)buf)[i] = s;
        break;
    case K_UINT: {
        uint64_t w = t->size == 1 ? u >> 40 : t->size == 2 ? u >> 40 : t->size == 4 ? u >> 20 : u;
        /* min and max with the top bit clear: MPICH 4.0.2 (pmodels/mpich#6083)
         * and Open MPI 4.1.2-4.1.4 (open-mpi/ompi#10525) compare unsigned
         * values as signed there, and the adapter's correct answer would
         * differ from theirs (docs/mpi-adapter.md) */
        if (op == MPI_MIN || op == MPI_MAX)
            w &= ~(uint64_t)0 >> (65 - 8 * t->size);
        if (t->size == 1)
            ((uint8_t *)buf)[i] = (uint8_t)w;
        else if (t->size == 2)
            ((uint16_t *)buf)[i] = (uint16_t)w;
        else if (t->size == 4)
            ((uint32_t *)buf)[i] = (uint32_t)w;
        else
            ((uint64_t *)buf)[i] = w;
        break;
    }
    case K_FLOAT:
        ((float *)buf)[i] = (float)s * 0.37f;
        break;
    default:
        /* sums and products of quarters stay exact; min/max may be anything */
        ((double *)buf)[i] = op == MPI_SUM || op == MPI_PROD ? (double)s * 0.25 : (double)s * 0.1;
        break;
    }
}

/* ---- the cases ------------------------------------------------------------ */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static const char *op_name(MPI_Op op)
{
    return op == MPI_SUM ? "sum" : op == MPI_MIN ? "min" : op == MPI_MAX ? "max" : op == MPI_BXOR ? "bxor"
                                  : op == MPI_BOR ? "bor" : op == MPI_PROD ? "prod" : "?";
}

static void check_barrier(MPI_Comm c, const char *cn)
{
    /* a barrier has no result: what it must show is that every rank passes */
    int me;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Barrier(c));
    CHECK(MPI_Barrier(c));
    record(cn, "barrier", &me, 0);
}

static void check_bcast(MPI_Comm c, const char *cn, MPI_Datatype vec, MPI_Datatype contig)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    const int counts[] = {0, 1, 7, 1000, 20000};
    const int nc = 5;
    const MPI_Datatype bt[] = {MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_UINT64_T, MPI_SHORT, MPI_LONG_DOUBLE};
    const char *const bn[] = {"byte", "char", "int", "double", "uint64", "short", "longdouble"};
    const int roots[] = {0, n - 1, n / 2};
    size_t cap = 20000 * 16 + 64;
    unsigned char *buf = malloc(cap);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char what[64];
    int idx = 0;
    for (int t = 0; t < 7; t++)
        for (int k = 0; k < nc; k++) {
            int ri = (t + k) % 3;
            if (!skip(&idx)) {
                int size, root = roots[ri];
                CHECK(MPI_Type_size(bt[t], &size));
                size_t bytes = (size_t)counts[k] * (size_t)size;
                fill(buf, bytes + 8, me == root ? 1000u + (unsigned)(t * 16 + k) : 7u * (unsigned)me + 3);
                CHECK(MPI_Bcast(buf, counts[k], bt[t], root, c));
                snprintf(what, sizeof what, "bcast %s x%d root%d", bn[t], counts[k], ri);
                record(cn, what, buf, bytes + 8);
            }
        }
    /* derived datatypes: packed by the adapter (a vector) or read in place (contiguous) */
    fill(buf, 64 * 4, me == n - 1 ? 77 : 5u + (unsigned)me);
    CHECK(MPI_Bcast(buf, 4, vec, n - 1, c));
    record(cn, "bcast vector", buf, 64 * 4);
    fill(buf, 64 * 4, me == 0 ? 78 : 9u + (unsigned)me);
    CHECK(MPI_Bcast(buf, 3, contig, 0, c));
    record(cn, "bcast contiguous-derived", buf, 64 * 4);
    free(buf);
}

static void check_allreduce(MPI_Comm c, const char *cn, MPI_Op user, MPI_Datatype contig)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    const int counts[] = {0, 1, 5, 300, 3000};
    enum { CAP = 3000 * 8 + 64 };
    unsigned char *sb = malloc(CAP), *rb = malloc(CAP);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char what[64];
    int step = 0, idx = 0;
    for (int t = 0; t < ntypes; t++) {
        const tinfo *ti = &types[t];
        MPI_Op ops[5];
        int nops = 0;
        if (ti->k == K_SINT || ti->k == K_UINT) {
            ops[nops++] = MPI_SUM, ops[nops++] = MPI_MIN, ops[nops++] = MPI_MAX, ops[nops++] = MPI_BXOR;
            ops[nops++] = MPI_BOR;
        } else if (ti->k == K_FLOAT) {
            ops[nops++] = MPI_MIN, ops[nops++] = MPI_MAX, ops[nops++] = MPI_SUM;
        } else {
            ops[nops++] = MPI_SUM, ops[nops++] = MPI_MIN, ops[nops++] = MPI_MAX, ops[nops++] = MPI_PROD;
        }
        for (int o = 0; o < nops; o++, step++) {
            if (skip(&idx))
                continue;
            int count = counts[step % 5], in_place = step % 2;
            size_t bytes = (size_t)count * (size_t)ti->size;
            for (int i = 0; i < count; i++)
                set_value(sb, (size_t)i, ti, me, ops[o]);
            fill(rb, bytes + 8, 55u + (unsigned)me);
            if (in_place) {
                memcpy(rb, sb, bytes);
                CHECK(MPI_Allreduce(MPI_IN_PLACE, rb, count, ti->dt, ops[o], c));
            } else {
                CHECK(MPI_Allreduce(sb, rb, count, ti->dt, ops[o], c));
            }
            /* the byte after the vector stays as it was (it is rank-specific) */
            snprintf(what, sizeof what, "allreduce %s %s x%d%s", ti->name, op_name(ops[o]), count,
                     in_place ? " in-place" : "");
            record(cn, what, rb, bytes);
        }
    }
    /* user-defined ops: handed to the library (a derived type with one too) */
    for (int i = 0; i < 17; i++)
        ((int *)sb)[i] = me * 3 + i;
    CHECK(MPI_Allreduce(sb, rb, 17, MPI_INT, user, c));
    record(cn, "allreduce int user-op", rb, 17 * sizeof(int));
    CHECK(MPI_Allreduce(sb, rb, 4, contig, user, c));
    record(cn, "allreduce contiguous-derived user-op", rb, 16 * sizeof(int));
    free(sb);
    free(rb);
}

static void check_alltoall(MPI_Comm c, const char *cn, MPI_Datatype vec)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    const MPI_Datatype at[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, MPI_SHORT};
    const char *const an[] = {"byte", "int", "double", "short"};
    const int counts[] = {0, 1, 3, 100, 700};
    size_t cap = (size_t)n * 700 * 8 + 64;
    unsigned char *sb = malloc(cap), *rb = malloc(cap);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char what[64];
    int idx = 0;
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 5; k++) {
            if (skip(&idx))
                continue;
            int size, in_place = (t + k) % 2;
            CHECK(MPI_Type_size(at[t], &size));
            size_t bytes = (size_t)n * (size_t)counts[k] * (size_t)size;
            fill(sb, bytes, 100u + (unsigned)(me * 10 + t));
            fill(rb, bytes + 8, 200u + (unsigned)me);
            if (in_place) {
                memcpy(rb, sb, bytes);
                CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, counts[k], at[t], c));
            } else {
                CHECK(MPI_Alltoall(sb, counts[k], at[t], rb, counts[k], at[t], c));
            }
            snprintf(what, sizeof what, "alltoall %s x%d%s", an[t], counts[k], in_place ? " in-place" : "");
            record(cn, what, rb, bytes + 8);
        }
    /* the same bytes as 4 ints sent and one 16-byte block type received
     * would be a derived type: packed by the adapter */
    size_t vb = (size_t)n * 64 * 4;
    fill(sb, vb, 300u + (unsigned)me);
    fill(rb, vb, 400u + (unsigned)me);
    CHECK(MPI_Alltoall(sb, 1, vec, rb, 1, vec, c));
    record(cn, "alltoall vector", rb, vb);
    free(sb);
    free(rb);
}

static void check_alltoallv(MPI_Comm c, const char *cn, MPI_Datatype vec)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    int *sc = malloc(4 * (size_t)n * sizeof *sc);
    if (!sc)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int *sd = sc + n, *rc = sd + n, *rd = rc + n;
    const MPI_Datatype vt[] = {MPI_INT, MPI_UINT64_T, MPI_CHAR, MPI_DOUBLE};
    const char *const vn[] = {"int", "uint64", "char", "double"};
    size_t cap = (size_t)n * (3 * 600 + 1) * 8 + 64;
    unsigned char *sb = malloc(cap), *rb = malloc(cap);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char what[64];
    int idx = 0;
    for (int t = 0; t < 4; t++)
        for (int scale = 1; scale <= 600; scale *= 600)
            for (int in_place = 0; in_place < 2; in_place++) {
                if (skip(&idx))
                    continue;
                int size;
                CHECK(MPI_Type_size(vt[t], &size));
                /* uneven counts, zeros among them; blocks placed in reverse
                 * rank order with a gap of one element; in place needs the
                 * same counts both ways, so symmetric ones */
                int so = 0, ro = 0;
                for (int j = n - 1; j >= 0; j--) {
                    sc[j] = in_place ? scale * ((me + j) % 3) : scale * ((me + 2 * j) % 4);
                    rc[j] = in_place ? scale * ((me + j) % 3) : scale * ((j + 2 * me) % 4);
                    sd[j] = so;
                    rd[j] = ro;
                    so += sc[j] + 1;
                    ro += rc[j] + 1;
                }
                size_t sbytes = (size_t)so * (size_t)size, rbytes = (size_t)ro * (size_t)size;
                fill(sb, sbytes, 500u + (unsigned)(me * 4 + t));
                fill(rb, rbytes + 8, 600u + (unsigned)me);
                if (in_place) {
                    memcpy(rb, sb, rbytes);
                    CHECK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rc, rd, vt[t], c));
                } else {
                    CHECK(MPI_Alltoallv(sb, sc, sd, vt[t], rb, rc, rd, vt[t], c));
                }
                snprintf(what, sizeof what, "alltoallv %s x%d%s", vn[t], scale, in_place ? " in-place" : "");
                record(cn, what, rb, rbytes + 8);
            }
    /* a derived type: packed by the adapter */
    for (int j = 0; j < n; j++) {
        sc[j] = rc[j] = (me + j) % 2 + 1;
        sd[j] = rd[j] = 2 * j;
    }
    size_t vb = (size_t)(2 * n + 2) * 64 * 4;
    fill(sb, vb, 700u + (unsigned)me);
    fill(rb, vb, 800u + (unsigned)me);
    /* counts must match pairwise: rank j sends me (j + me) % 2 + 1, as I receive */
    CHECK(MPI_Alltoallv(sb, sc, sd, vec, rb, rc, rd, vec, c));
    record(cn, "alltoallv vector", rb, vb);
    free(sc);
    free(sb);
    free(rb);
}

/* MPI_Neighbor_alltoallv on a distributed graph: each rank sends to its
 * right neighbour twice (a repeated edge), to its left one and to itself;
 * the same pattern replayed with new data, then changed, then another
 * datatype; a derived type (packed); a Cartesian communicator goes to the
 * library. */
static int ncount(int s, int d, int k, int scale)
{
    return scale * ((s + 2 * d + k) % 4);
}

static void check_neighbor(MPI_Datatype vec)
{
    int me, n;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int dests[4] = {right, left, me, right}, srcs[4] = {left, right, me, left};
    MPI_Comm g;
    /* weighted (the adapter reads the weights too), which also spares
     * Open MPI's MPI_UNWEIGHTED, a fake pointer gcc warns about */
    int w[4] = {1, 2, 1, 2};
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, srcs, w, 4, dests, w, MPI_INFO_NULL, 0, &g));
    int sc[4], sd[4], rc[4], rd[4];
    size_t cap = 4 * (3 * 50 + 1) * 8 + 64;
    unsigned char *sb = malloc(cap), *rb = malloc(cap);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char what[64];
    const int scales[] = {1, 1, 1, 50, 50, 50};
    for (int rep = 0; rep < 6; rep++) {
        MPI_Datatype t = rep == 5 ? MPI_DOUBLE : MPI_INT;
        int size = rep == 5 ? 8 : 4, so = 0, ro = 0;
        for (int k = 3; k >= 0; k--) {
            sc[k] = ncount(me, dests[k], k, scales[rep]);
            rc[k] = ncount(srcs[k], me, k, scales[rep]);
            sd[k] = so;
            rd[k] = ro;
            so += sc[k] + 1;
            ro += rc[k] + 1;
        }
        fill(sb, (size_t)so * (size_t)size, 900u + (unsigned)(me * 8 + rep));
        fill(rb, (size_t)ro * (size_t)size, 950u + (unsigned)me);
        CHECK(MPI_Neighbor_alltoallv(sb, sc, sd, t, rb, rc, rd, t, g));
        snprintf(what, sizeof what, "neighbor_alltoallv call %d x%d %s", rep, scales[rep], rep == 5 ? "double" : "int");
        record("graph", what, rb, (size_t)ro * (size_t)size);
    }
    for (int k = 0; k < 4; k++) {
        sc[k] = rc[k] = 1;
        sd[k] = rd[k] = k;
    }
    fill(sb, 4 * 64 * 4, 990u + (unsigned)me);
    fill(rb, 4 * 64 * 4, 991u + (unsigned)me);
    CHECK(MPI_Neighbor_alltoallv(sb, sc, sd, vec, rb, rc, rd, vec, g));
    record("graph", "neighbor_alltoallv vector", rb, 4 * 64 * 4);
    CHECK(MPI_Comm_free(&g));
    /* a ring as a Cartesian communicator: neighbours left, right */
    MPI_Comm cart;
    int dim = n, periodic = 1;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dim, &periodic, 0, &cart));
    for (int k = 0; k < 2; k++) {
        sc[k] = rc[k] = 3;
        sd[k] = rd[k] = 4 * k;
    }
    fill(sb, 64, 992u + (unsigned)me);
    fill(rb, 64, 993u + (unsigned)me);
    CHECK(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, cart));
    record("cart", "neighbor_alltoallv int", rb, 64);
    CHECK(MPI_Comm_free(&cart));
    free(sb);
    free(rb);
}

/* Every operation on one communicator. */
static void check_comm(MPI_Comm c, const char *cn, MPI_Op user, MPI_Datatype vec, MPI_Datatype contig)
{
    check_barrier(c, cn);
    check_bcast(c, cn, vec, contig);
    check_allreduce(c, cn, user, contig);
    check_alltoall(c, cn, vec);
    check_alltoallv(c, cn, vec);
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    /* pmpi_check [STRIDE]: every STRIDE-th case on MPI_COMM_WORLD (default
     * 1: all), every 4*STRIDE-th on the others */
    int base = argc > 1 ? atoi(argv[1]) : 1;
    if (base < 1 || base > 64) {
        fprintf(stderr, "pmpi_check: STRIDE '%s' out of range: allowed 1..64\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    stride = base;
    int me, n;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    set_types();
    MPI_Op user;
    CHECK(MPI_Op_create(user_sum, 1, &user));
    MPI_Datatype vec, contig;
    CHECK(MPI_Type_vector(4, 2, 3, MPI_INT, &vec)); /* 8 ints with holes, extent 11 ints */
    CHECK(MPI_Type_commit(&vec));
    CHECK(MPI_Type_contiguous(4, MPI_INT, &contig));
    CHECK(MPI_Type_commit(&contig));

    check_comm(MPI_COMM_WORLD, "world", user, vec, contig);
    stride = 4 * base;
    MPI_Comm dup, split;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    check_comm(dup, "dup", user, vec, contig);
    /* two halves, each in reverse rank order */
    slice = 1;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &split));
    check_comm(split, "split", user, vec, contig);
    /* the second call on a communicator uses its cached state */
    slice = 2;
    check_allreduce(dup, "dup-again", user, contig);
    CHECK(MPI_Comm_free(&dup));
    /* a communicator made after another was freed */
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    slice = 3;
    check_alltoallv(dup, "dup2", vec);
    CHECK(MPI_Comm_free(&dup));
    if (n > 1) {
        /* an intercommunicator between the halves: handed to the library */
        MPI_Comm inter;
        /* each half's leader (its rank 0) is its highest world rank */
        int other = 1 - me % 2, leader = (n - 1) % 2 == other ? n - 1 : n - 2;
        CHECK(MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, leader, 99, &inter));
        CHECK(MPI_Barrier(inter));
        int v = me + 1, s = 0;
        CHECK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, inter));
        record("inter", "allreduce int sum", &s, sizeof s);
        CHECK(MPI_Comm_free(&inter));
    } else {
        record("inter", "allreduce int sum", &me, 0);
    }
    CHECK(MPI_Comm_free(&split));
    check_neighbor(vec);

    uint64_t *all = me == 0 ? malloc((size_t)n * (size_t)ncases * sizeof *all) : NULL;
    if (me == 0 && !all)
        MPI_Abort(MPI_COMM_WORLD, 3);
    CHECK(MPI_Gather(digests, ncases, MPI_UINT64_T, all, ncases, MPI_UINT64_T, 0, MPI_COMM_WORLD));
    if (me == 0) {
        for (int k = 0; k < ncases; k++) {
            uint64_t h = 0xcbf29ce484222325ULL;
            for (int r = 0; r < n; r++)
                h = fnv(h, &all[(size_t)r * (size_t)ncases + (size_t)k], 8);
            printf("%s %016llx\n", names[k], (unsigned long long)h);
        }
        printf("cases %d\n", ncases);
        free(all);
    }
    CHECK(MPI_Type_free(&vec));
    CHECK(MPI_Type_free(&contig));
    CHECK(MPI_Op_free(&user));
    CHECK(MPI_Finalize());
    return 0;
}
