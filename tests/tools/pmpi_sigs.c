/*
 * pmpi_sigs.c - every call libtorus_pmpi.so intercepts (MPI_Barrier,
 * MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Alltoallv,
 * MPI_Neighbor_alltoallv) with matching but different type signatures per
 * rank: each rank lays the same elements out its own way (pmpi_repr.h:
 * predefined, contiguous, vector, resized, reversed-index, struct with a
 * hole, MPI_2INT for pairs of ints, MPI_BOTTOM with absolute addresses,
 * zero-size types, count 0), with and without MPI_IN_PLACE, on
 * MPI_COMM_WORLD and on communicators from dup, split and create of odd
 * sizes.  Self-checking: every element is compared with what MPI defines,
 * and every byte that is not an element's value (holes, padding) must be
 * left as it was.  The suite runs it with and without LD_PRELOAD.
 *
 *   pmpi_sigs fixed         the cases MPICH's test/mpi/coll has hung or
 *                           may hang an adapter on (alltoallw_zeros' zero-
 *                           size against count 0, MPI_2INT against two
 *                           ints, different send and receive types), an
 *                           intercommunicator, user ops (commutative and
 *                           not), non-blocking collectives around blocking
 *                           ones, then 30 random rounds
 *   pmpi_sigs random SEED N N random rounds from SEED on each communicator
 *   pmpi_sigs zero          zero-byte calls of every intercepted collective
 *                           in every form (the suite checks the stats:
 *                           no message)
 *   pmpi_sigs big           a bcast and an allreduce of 2 GiB + 64 bytes
 *                           (about 6 GiB per rank: the suite runs it only
 *                           with PMPI_BIG=1)
 *
 * A last argument "adapter" adds what only the adapter handles: allreduce
 * with derived layouts (MPI and both libraries refuse a predefined op on
 * a derived type; the adapter's rule is any layout of one element type);
 * and legal MPI the libraries themselves get wrong: MPI_Alltoall with
 * count 0 against a zero-size type (MPICH 4.0.2 hangs), MPI_Bcast with a
 * different layout per rank (Open MPI 4.1 delivers wrong data or a
 * truncation error) or count 0 against a zero-size type (Open MPI hangs).
 * Rank 0 prints "pmpi_sigs MODE: N checks, 0 errors" and, for the suite to
 * hold the adapter's stats to, "expect op=OP fell_through=N why.REASON=N"
 * (the keys of its TORUS_COLL_STATS=kv line) for the calls that must go to
 * the library (intercommunicator, user ops).
 * Exit 1 on any wrong element.
 */
#include "pmpi_repr.h"

static int me_w, n_w;
/* "adapter": what only the adapter handles too: allreduce with derived
 * layouts (MPI and both libraries refuse a predefined op on a derived
 * type), and MPI_Alltoall with count 0 on some ranks against a zero-size
 * type on others (MPICH 4.0.2 hangs there; Open MPI does not) */
static int adapter_only;
static long checks, errors;
enum { E_BCAST, E_ALLREDUCE, E_ALLTOALL, E_NOPS };
static long expect_inter[E_NOPS], expect_user[E_NOPS];

static void fail(const char *what, const char *cn, int i)
{
    if (errors++ < 10)
        fprintf(stderr, "pmpi_sigs: rank %d: %s on %s: element %d wrong\n", me_w, what, cn, i);
}

/* Bytes that are no element's value are as they were. */
static void buf_holes(const buffer *B, const char *what, const char *cn)
{
    checks++;
    for (size_t i = 0; i < B->bytes + 16; i++)
        if (!B->mask[i] && B->p[i] != B->fillv) {
            fail(what, cn, -(int)i - 1);
            return;
        }
}

/* ---- bcast ------------------------------------------------------------------ */

static void t_bcast(MPI_Comm c, const char *cn, const base *b, int k, int root, uint64_t seed)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    repr r;
    /* Open MPI 4.1's bcast cuts segments in the local type's elements, so
     * it mixes up ranks of different layouts (wrong data, truncation
     * errors) and hangs on count 0 against a zero-size type: one layout for
     * every rank unless "adapter" */
    kind kd = pick_kind(seed, adapter_only ? me : 0, 0, b, k, k > 0 || adapter_only);
    repr_make(&r, kd, b, k, NULL);
    buffer B;
    buf_new(&B, r.span, (unsigned char)(0x30 + me));
    repr_free(&r);
    repr_make(&r, r.kd, b, k, B.p);
    unsigned char want[32];
    for (int i = 0; i < k; i++) {
        buf_mark(&B, b, r.off[i]);
        if (me == root)
            put(b, B.p + r.off[i], seed + (uint64_t)i);
    }
    CHECK(MPI_Bcast(repr_buf(&r, B.p), r.count, r.dt, root, c));
    for (int i = 0; i < k; i++) {
        checks++;
        put(b, want, seed + (uint64_t)i);
        if (!same(b, B.p + r.off[i], want)) {
            fail("bcast", cn, i);
            break;
        }
    }
    buf_holes(&B, "bcast", cn);
    repr_free(&r);
    buf_free(&B);
}

/* ---- allreduce --------------------------------------------------------------- */

/* Rank r's element i of a reduction (values whose result is exact). */
static void red_value(const base *b, MPI_Op op, int r, int i, uint64_t seed, unsigned char *e)
{
    uint64_t x = kit_mix64(seed * 7919 + (uint64_t)r * 104729 + (uint64_t)i);
    int small = (int)(x % 4), idx = (int)(kit_mix64(x) % 1000);
    if (b->dt == MPI_INT) {
        int v = op == MPI_LAND && x % 3 == 0 ? 0 : (int)(uint32_t)x;
        memcpy(e, &v, 4);
    } else if (b->dt == MPI_DOUBLE) {
        double v = (double)((int)(x % 201) - 100);
        memcpy(e, &v, 8);
    } else if (b->dt == MPI_2INT) {
        int v[2] = {small, idx};
        memcpy(e, v, 8);
    } else if (b->dt == MPI_DOUBLE_INT) {
        double v = small;
        memcpy(e, &v, 8);
        memcpy(e + 8, &idx, 4);
    } else { /* MPI_SHORT_INT: short, 2 bytes of padding, int */
        short v = (short)small;
        memcpy(e, &v, 2);
        memcpy(e + 4, &idx, 4);
    }
}

/* acc = acc op e, MPI's definitions. */
static void red_fold(const base *b, MPI_Op op, unsigned char *acc, const unsigned char *e)
{
    if (b->dt == MPI_INT) {
        int32_t a, v;
        memcpy(&a, acc, 4), memcpy(&v, e, 4);
        a = op == MPI_SUM ? (int32_t)((uint32_t)a + (uint32_t)v) : op == MPI_MAX ? (a > v ? a : v)
            : op == MPI_BXOR ? a ^ v : (a != 0 && v != 0);
        memcpy(acc, &a, 4);
    } else if (b->dt == MPI_DOUBLE) {
        double a, v;
        memcpy(&a, acc, 8), memcpy(&v, e, 8);
        a = op == MPI_SUM ? a + v : (v < a ? v : a);
        memcpy(acc, &a, 8);
    } else {
        /* pairs: value (as double) at 0, index at io */
        size_t io = b->dt == MPI_2INT ? 4 : b->dt == MPI_DOUBLE_INT ? 8 : 4;
        double u, v;
        int i, j;
        if (b->dt == MPI_2INT) {
            int a, x;
            memcpy(&a, acc, 4), memcpy(&x, e, 4);
            u = a, v = x;
        } else if (b->dt == MPI_DOUBLE_INT) {
            memcpy(&u, acc, 8), memcpy(&v, e, 8);
        } else {
            short a, x;
            memcpy(&a, acc, 2), memcpy(&x, e, 2);
            u = a, v = x;
        }
        memcpy(&i, acc + io, 4), memcpy(&j, e + io, 4);
        int second = op == MPI_MAXLOC ? v > u : v < u;
        if (second)
            memcpy(acc, e, b->ext);
        else if (u == v && j < i)
            memcpy(acc + io, &j, 4);
    }
}

static void t_allreduce(MPI_Comm c, const char *cn, const base *b, MPI_Op op, int k, int in_place, uint64_t seed)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    /* one datatype for both buffers, this rank's own */
    repr r;
    /* MPI defines the predefined ops on predefined types only, and both
     * libraries refuse a derived type there (even a contiguous one): the
     * base type, unless "derived" asks for the adapter's wider rule (its
     * classes: any layout of one element type, pmpi_types.c) */
    kind kd = adapter_only ? pick_kind(seed, me, 1, b, k, k > 0) : K_PLAIN;
    /* one datatype serves both buffers: absolute addresses (MPI_BOTTOM)
     * can name only one of them, the in-place one */
    if ((kd == K_BOTTOM || kd == K_BOTTOM_GAPS) && !in_place)
        kd = K_CONTIG;
    buffer S, R;
    repr_make(&r, kd, b, k, NULL);
    buf_new(&S, r.span, 0x11);
    buf_new(&R, r.span, (unsigned char)(0x40 + me));
    repr_free(&r);
    repr rs, rr;
    repr_make(&rs, kd, b, k, S.p);
    repr_make(&rr, kd, b, k, R.p);
    for (int i = 0; i < k; i++) {
        red_value(b, op, me, i, seed, (in_place ? R.p : S.p) + rr.off[i]);
        buf_mark(&R, b, rr.off[i]);
    }
    if (in_place)
        CHECK(MPI_Allreduce(MPI_IN_PLACE, repr_buf(&rr, R.p), rr.count, rr.dt, op, c));
    else
        CHECK(MPI_Allreduce(repr_buf(&rs, S.p), repr_buf(&rr, R.p), rr.count, rr.dt, op, c));
    unsigned char acc[32], e[32];
    for (int i = 0; i < k; i++) {
        red_value(b, op, 0, i, seed, acc);
        for (int j = 1; j < n; j++) {
            red_value(b, op, j, i, seed, e);
            red_fold(b, op, acc, e);
        }
        checks++;
        if (!same(b, R.p + rr.off[i], acc)) {
            fail("allreduce", cn, i);
            break;
        }
    }
    buf_holes(&R, "allreduce", cn);
    repr_free(&rs);
    repr_free(&rr);
    buf_free(&S);
    buf_free(&R);
}

/* ---- alltoall ----------------------------------------------------------------- */

static uint64_t key3(uint64_t seed, int src, int dst, int i)
{
    return seed * 1000003u + (uint64_t)src * 65537u + (uint64_t)dst * 257u + (uint64_t)i;
}

static void t_alltoall(MPI_Comm c, const char *cn, const base *b, int k, int in_place, uint64_t seed)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    repr s0, r0;
    /* count 0 everywhere unless "adapter" (MPICH hangs when some ranks
     * pass a zero-size type with a count > 0) */
    int whole = k > 0 || adapter_only;
    repr_make(&s0, k || adapter_only ? pick_kind(seed, me, 2, b, k, whole) : K_PLAIN, b, k, NULL);
    repr_make(&r0, k || adapter_only ? pick_kind(seed, me, 3, b, k, whole) : K_PLAIN, b, k, NULL);
    /* n blocks; the last one needs its span, the others their stride */
    buffer S, R;
    buf_new(&S, (size_t)(n - 1) * (size_t)s0.count * s0.ext + s0.span, 0x22);
    buf_new(&R, (size_t)(n - 1) * (size_t)r0.count * r0.ext + r0.span, (unsigned char)(0x50 + me));
    repr rs, rr;
    repr_make(&rs, s0.kd, b, k, S.p);
    repr_make(&rr, r0.kd, b, k, R.p);
    repr_free(&s0);
    repr_free(&r0);
    size_t sstride = (size_t)rs.count * rs.ext, rstride = (size_t)rr.count * rr.ext;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++) {
            buf_mark(&R, b, (size_t)j * rstride + rr.off[i]);
            if (in_place)
                put(b, R.p + (size_t)j * rstride + rr.off[i], key3(seed, me, j, i));
            else
                put(b, S.p + (size_t)j * sstride + rs.off[i], key3(seed, me, j, i));
        }
    if (in_place)
        CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, repr_buf(&rr, R.p), rr.count, rr.dt, c));
    else
        CHECK(MPI_Alltoall(repr_buf(&rs, S.p), rs.count, rs.dt, repr_buf(&rr, R.p), rr.count, rr.dt, c));
    unsigned char want[32];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++) {
            checks++;
            put(b, want, key3(seed, j, me, i));
            if (!same(b, R.p + (size_t)j * rstride + rr.off[i], want)) {
                fail("alltoall", cn, j * 100000 + i);
                j = n;
                break;
            }
        }
    buf_holes(&R, "alltoall", cn);
    repr_free(&rs);
    repr_free(&rr);
    buf_free(&S);
    buf_free(&R);
}

/* ---- alltoallv and neighbor_alltoallv: one unit type per side ------------------- */

static void t_alltoallv(MPI_Comm c, const char *cn, const base *b, int in_place, int zero, uint64_t seed)
{
    int me, n;
    CHECK(MPI_Comm_rank(c, &me));
    CHECK(MPI_Comm_size(c, &n));
    int *ks = xmalloc(2 * (size_t)n * sizeof(int)), *kr = ks + n;
    for (int j = 0; j < n; j++) {
        ks[j] = zero ? 0 : vcount(seed, me, j, in_place);
        kr[j] = zero ? 0 : vcount(seed, j, me, in_place);
    }
    vside vs, vr;
    vside_make(&vs, pick_unit(seed, me, 4, b), b, ks, n);
    vside_make(&vr, pick_unit(seed, me, 5, b), b, kr, n);
    buffer S, R;
    buf_new(&S, vs.bytes, 0x33);
    buf_new(&R, vr.bytes, (unsigned char)(0x60 + me));
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < kr[j]; i++) {
            buf_mark(&R, b, vside_at(&vr, j, i));
            if (in_place) /* what this rank sends to j, from the receive blocks */
                put(b, R.p + vside_at(&vr, j, i), key3(seed, me, j, i));
        }
        for (int i = 0; i < ks[j] && !in_place; i++)
            put(b, S.p + vside_at(&vs, j, i), key3(seed, me, j, i));
    }
    if (in_place)
        CHECK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, R.p, vr.counts, vr.displs, vr.u.dt, c));
    else
        CHECK(MPI_Alltoallv(S.p, vs.counts, vs.displs, vs.u.dt, R.p, vr.counts, vr.displs, vr.u.dt, c));
    unsigned char want[32];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < kr[j]; i++) {
            checks++;
            put(b, want, key3(seed, j, me, i));
            if (!same(b, R.p + vside_at(&vr, j, i), want)) {
                fail("alltoallv", cn, j * 100000 + i);
                j = n;
                break;
            }
        }
    buf_holes(&R, "alltoallv", cn);
    vside_free(&vs);
    vside_free(&vr);
    buf_free(&S);
    buf_free(&R);
    free(ks);
}

/* A ring as a distributed graph: each rank sends to its right and left
 * neighbours and to itself, and to its right one twice (a repeated edge). */
static void t_neighbor(MPI_Comm g, const base *b, int zero, uint64_t seed)
{
    int me, n;
    CHECK(MPI_Comm_rank(g, &me));
    CHECK(MPI_Comm_size(g, &n));
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int dests[4] = {right, left, me, right}, srcs[4] = {left, right, me, left};
    int ks[4], kr[4];
    for (int e = 0; e < 4; e++) {
        ks[e] = zero ? 0 : vcount(seed + (uint64_t)e, me, dests[e], 0);
        kr[e] = zero ? 0 : vcount(seed + (uint64_t)e, srcs[e], me, 0);
    }
    vside vs, vr;
    vside_make(&vs, pick_unit(seed, me, 6, b), b, ks, 4);
    vside_make(&vr, pick_unit(seed, me, 7, b), b, kr, 4);
    buffer S, R;
    buf_new(&S, vs.bytes, 0x44);
    buf_new(&R, vr.bytes, (unsigned char)(0x70 + me));
    for (int e = 0; e < 4; e++) {
        for (int i = 0; i < ks[e]; i++)
            put(b, S.p + vside_at(&vs, e, i), key3(seed + (uint64_t)e, me, dests[e], i));
        for (int i = 0; i < kr[e]; i++)
            buf_mark(&R, b, vside_at(&vr, e, i));
    }
    CHECK(MPI_Neighbor_alltoallv(S.p, vs.counts, vs.displs, vs.u.dt, R.p, vr.counts, vr.displs, vr.u.dt, g));
    unsigned char want[32];
    for (int e = 0; e < 4; e++)
        for (int i = 0; i < kr[e]; i++) {
            checks++;
            put(b, want, key3(seed + (uint64_t)e, srcs[e], me, i));
            if (!same(b, R.p + vside_at(&vr, e, i), want)) {
                fail("neighbor_alltoallv", "graph", e * 100000 + i);
                e = 4;
                break;
            }
        }
    buf_holes(&R, "neighbor_alltoallv", "graph");
    vside_free(&vs);
    vside_free(&vr);
    buf_free(&S);
    buf_free(&R);
}

static MPI_Comm ring_graph(void)
{
    int right = (me_w + 1) % n_w, left = (me_w + n_w - 1) % n_w;
    int dests[4] = {right, left, me_w, right}, srcs[4] = {left, right, me_w, left}, w[4] = {1, 1, 1, 1};
    MPI_Comm g;
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, srcs, w, 4, dests, w, MPI_INFO_NULL, 0, &g));
    return g;
}

/* ---- rounds ---------------------------------------------------------------------- */

typedef struct bases {
    base i, d, c, p, di, si; /* int, double, char, 2int, double_int, short_int */
} bases;

static bases B;

/* One random round on c: the call, base type, count, root, op and in-place
 * choice are drawn from seed alike on every rank; each rank's layout from
 * seed and its rank. */
static void round_on(MPI_Comm c, const char *cn, uint64_t seed)
{
    int n;
    CHECK(MPI_Comm_size(c, &n));
    uint64_t x = kit_mix64(seed);
    const base *moves[] = {&B.i, &B.d, &B.c, &B.p, &B.di, &B.si};
    const base *b = moves[x % 6];
    int k = x / 7 % 4 == 0 ? 0 : (int)(x / 29 % 300), in_place = (int)(x / 13 % 2);
    switch (x / 101 % 5) {
    case 0:
        t_bcast(c, cn, b, k, (int)(x / 211 % (uint64_t)n), seed);
        break;
    case 1: {
        /* the reductions each base type has exact values for */
        const base *rbs[] = {&B.i, &B.i, &B.i, &B.i, &B.d, &B.d, &B.p, &B.p, &B.di, &B.si};
        MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_BXOR, MPI_LAND, MPI_SUM, MPI_MIN, MPI_MAXLOC, MPI_MINLOC, MPI_MAXLOC,
                        MPI_MINLOC};
        int w = (int)(x / 307 % 10);
        t_allreduce(c, cn, rbs[w], ops[w], k, in_place, seed);
        break;
    }
    case 2:
        t_alltoall(c, cn, b, k % 40, in_place, seed);
        break;
    case 3:
        t_alltoallv(c, cn, b, in_place, x / 401 % 6 == 0, seed);
        break;
    default:
        CHECK(MPI_Barrier(c));
        break;
    }
}

/* The communicators of the random rounds: world, a dup, a split of odd
 * sizes (rank mod 3) in reverse order, and one made by MPI_Comm_create
 * from the group without rank 0. */
static void random_rounds(uint64_t seed, int rounds)
{
    MPI_Comm dup, split, made;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, me_w % 3, n_w - me_w, &split));
    MPI_Group wg, g;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int zero = 0;
    CHECK(n_w > 1 ? MPI_Group_excl(wg, 1, &zero, &g) : MPI_Group_incl(wg, 1, &zero, &g));
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &made));
    MPI_Comm graph = ring_graph();
    for (int r = 0; r < rounds; r++) {
        uint64_t s = seed * 100003u + (uint64_t)r;
        round_on(MPI_COMM_WORLD, "world", s);
        if (r % 2 == 0)
            round_on(dup, "dup", s + 1);
        if (r % 3 == 0)
            round_on(split, "split", s + 2);
        if (made != MPI_COMM_NULL && r % 3 == 1)
            round_on(made, "create", s + 3);
        if (r % 4 == 0)
            t_neighbor(graph, &B.i, 0, s + 4);
    }
    CHECK(MPI_Comm_free(&graph));
    if (made != MPI_COMM_NULL)
        CHECK(MPI_Comm_free(&made));
    CHECK(MPI_Group_free(&g));
    CHECK(MPI_Group_free(&wg));
    CHECK(MPI_Comm_free(&split));
    CHECK(MPI_Comm_free(&dup));
}

/* ---- fixed cases ------------------------------------------------------------------ */

/* MPICH's alltoallw_zeros, for MPI_Alltoallv: a zero-size derived type
 * with count 1 on one side, MPI_INT with count 0 on the other, and with
 * MPI_IN_PLACE each parity of ranks passes the other one. */
static void zeros_like_mpich(void)
{
    MPI_Datatype z;
    CHECK(MPI_Type_contiguous(0, MPI_INT, &z));
    CHECK(MPI_Type_commit(&z));
    int *ones = xmalloc(4 * (size_t)n_w * sizeof(int)), *zeros = ones + n_w, *d0 = ones + 2 * n_w;
    for (int j = 0; j < n_w; j++)
        ones[j] = 1, zeros[j] = 0, d0[j] = 0;
    int sb = 5, rb = 7;
    CHECK(MPI_Alltoallv(&sb, ones, d0, z, &rb, zeros, d0, MPI_INT, MPI_COMM_WORLD));
    CHECK(MPI_Alltoallv(&sb, zeros, d0, MPI_INT, &rb, ones, d0, z, MPI_COMM_WORLD));
    if (me_w % 2)
        CHECK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, &rb, zeros, d0, MPI_INT, MPI_COMM_WORLD));
    else
        CHECK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, &rb, ones, d0, z, MPI_COMM_WORLD));
    checks++;
    if (sb != 5 || rb != 7)
        fail("alltoallv zero-size", "world", 0);
    /* the same mix on the other zero-byte calls */
    /* (MPICH refuses a predefined op on a zero-size derived type, so
     * allreduce takes count 0 everywhere; the libraries themselves hang on
     * the bcast mix (Open MPI) and the alltoall mix (MPICH), so those run
     * under "adapter" only) */
    CHECK(MPI_Allreduce(&sb, &rb, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me_w % 2 || !adapter_only) {
        CHECK(MPI_Bcast(&rb, 0, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK(MPI_Alltoall(&sb, 0, MPI_INT, &rb, 0, MPI_INT, MPI_COMM_WORLD));
    } else {
        CHECK(MPI_Bcast(&rb, 4, z, 0, MPI_COMM_WORLD));
        CHECK(MPI_Alltoall(&sb, 2, z, &rb, 3, z, MPI_COMM_WORLD));
    }
    checks++;
    if (sb != 5 || rb != 7)
        fail("zero-byte mix", "world", 0);
    CHECK(MPI_Type_free(&z));
    free(ones);
}

/* Issue 28 row 9: MPI_2INT on some ranks against MPI_INT with twice the
 * count on others (one signature), and send and receive types that differ
 * but match. */
static void pairs_and_mixed(void)
{
    int n = n_w;
    int *a = xmalloc((size_t)n * 8 * sizeof(int)), *r = xmalloc((size_t)n * 8 * sizeof(int));
    for (int i = 0; i < 8; i++)
        a[i] = me_w == n - 1 ? 1000 + i : -1;
    if (me_w % 2)
        CHECK(MPI_Bcast(a, 4, MPI_2INT, n - 1, MPI_COMM_WORLD));
    else
        CHECK(MPI_Bcast(a, 8, MPI_INT, n - 1, MPI_COMM_WORLD));
    for (int i = 0; i < 8; i++) {
        checks++;
        if (a[i] != 1000 + i)
            fail("bcast 2int/int", "world", i);
    }
    MPI_Datatype four;
    CHECK(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK(MPI_Type_commit(&four));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 4; i++)
            a[j * 4 + i] = me_w * 100 + j * 10 + i, r[j * 4 + i] = -1;
    /* even ranks send 2 x MPI_2INT and receive one 4-int type; odd ranks
     * send 4 x MPI_INT and receive 2 x MPI_2INT */
    if (me_w % 2)
        CHECK(MPI_Alltoall(a, 4, MPI_INT, r, 2, MPI_2INT, MPI_COMM_WORLD));
    else
        CHECK(MPI_Alltoall(a, 2, MPI_2INT, r, 1, four, MPI_COMM_WORLD));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 4; i++) {
            checks++;
            if (r[j * 4 + i] != j * 100 + me_w * 10 + i)
                fail("alltoall 2int/int/contig", "world", j * 4 + i);
        }
    CHECK(MPI_Type_free(&four));
    free(a);
    free(r);
}

/* Intercommunicator between the parities: every call goes to the library
 * (reason intercomm), with MPI's intercommunicator meanings. */
static void intercomm(void)
{
    if (n_w < 2)
        return;
    MPI_Comm half, inter;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, me_w % 2, me_w, &half));
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me_w % 2, 77, &inter));
    int rn;
    CHECK(MPI_Comm_remote_size(inter, &rn));
    /* bcast from even rank 0 to the odd group */
    int v = me_w % 2 ? -1 : 4242;
    int root = me_w % 2 ? 0 : (me_w == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CHECK(MPI_Bcast(&v, 1, MPI_INT, root, inter));
    checks++;
    if (me_w % 2 && v != 4242)
        fail("bcast", "inter", 0);
    /* allreduce: the sum over the other group */
    int x = me_w + 1, s = 0, want = 0;
    CHECK(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, inter));
    for (int j = 0; j < n_w; j++)
        if (j % 2 != me_w % 2)
            want += j + 1;
    checks++;
    if (s != want)
        fail("allreduce", "inter", 0);
    /* alltoall: one int to every remote rank */
    int *sb = xmalloc((size_t)rn * 2 * sizeof(int)), *rb = sb + rn;
    for (int j = 0; j < rn; j++)
        sb[j] = me_w * 1000 + j;
    CHECK(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter));
    int mine;
    CHECK(MPI_Comm_rank(half, &mine));
    for (int j = 0; j < rn; j++) {
        checks++;
        int wr = 2 * j + (1 - me_w % 2); /* world rank of remote rank j */
        if (rb[j] != wr * 1000 + mine)
            fail("alltoall", "inter", j);
    }
    expect_inter[E_BCAST]++, expect_inter[E_ALLREDUCE]++, expect_inter[E_ALLTOALL]++;
    free(sb);
    CHECK(MPI_Comm_free(&inter));
    CHECK(MPI_Comm_free(&half));
}

/* 2x2 integer matrices: a product in rank order (not commutative). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int m = 0; m < *len; m++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* User ops go to the library (reason user_op): a commutative sum and a
 * non-commutative matrix product, whose result is the rank-order product. */
static void user_ops(void)
{
    MPI_Op prod, sum;
    CHECK(MPI_Op_create(matmul, 0, &prod));
    CHECK(MPI_Op_create(isum, 1, &sum));
    MPI_Datatype mat;
    CHECK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK(MPI_Type_commit(&mat));
    int m[4] = {1, me_w % 3, 0, 1}, out[4], want[4] = {1, 0, 0, 1};
    CHECK(MPI_Allreduce(m, out, 1, mat, prod, MPI_COMM_WORLD));
    for (int r = 0; r < n_w; r++) { /* [1 a; 0 1][1 b; 0 1] = [1 a+b; 0 1] */
        want[1] += r % 3;
    }
    checks++;
    if (memcmp(out, want, sizeof out))
        fail("allreduce user non-commutative", "world", 0);
    /* an upper-triangular product commutes; a lower-left entry shows order */
    int l[4] = {1, 0, me_w + 1, 2}, lo[4];
    CHECK(MPI_Allreduce(l, lo, 1, mat, prod, MPI_COMM_WORLD));
    int w2[4] = {1, 0, 1, 2};
    for (int r = 1; r < n_w; r++) {
        int x[4] = {1, 0, r + 1, 2}, len = 1;
        MPI_Datatype t = mat;
        matmul(w2, x, &len, &t); /* x = w2 * x: rank order */
        memcpy(w2, x, sizeof x);
    }
    checks++;
    if (memcmp(lo, w2, sizeof lo))
        fail("allreduce user non-commutative order", "world", 0);
    int v = me_w + 1, s;
    CHECK(MPI_Allreduce(&v, &s, 1, MPI_INT, sum, MPI_COMM_WORLD));
    checks++;
    if (s != n_w * (n_w + 1) / 2)
        fail("allreduce user commutative", "world", 0);
    expect_user[E_ALLREDUCE] += 3;
    CHECK(MPI_Type_free(&mat));
    CHECK(MPI_Op_free(&prod));
    CHECK(MPI_Op_free(&sum));
}

/* Non-blocking collectives (which the adapter leaves to the library) in
 * flight on a communicator while blocking ones (which it intercepts) run
 * on the same communicator: both complete, both right. */
static void nonblocking(void)
{
    MPI_Request q[2];
    int big[64], sum[64], all = 0;
    for (int i = 0; i < 64; i++)
        big[i] = me_w == n_w - 1 ? i * 3 : -1;
    int v = me_w + 1;
    CHECK(MPI_Ibcast(big, 64, MPI_INT, n_w - 1, MPI_COMM_WORLD, &q[0]));
    CHECK(MPI_Iallreduce(&v, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    for (int i = 0; i < 64; i++)
        sum[i] = me_w + i;
    CHECK(MPI_Allreduce(MPI_IN_PLACE, sum, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    t_bcast(MPI_COMM_WORLD, "world+nonblocking", &B.d, 33, 0, 4711);
    t_alltoall(MPI_COMM_WORLD, "world+nonblocking", &B.i, 5, 0, 4712);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Status st[2];
    CHECK(MPI_Waitall(2, q, st));
    for (int i = 0; i < 64; i++) {
        checks += 2;
        if (big[i] != i * 3)
            fail("ibcast next to bcast", "world", i);
        if (sum[i] != n_w * (n_w - 1) / 2 + n_w * i)
            fail("allreduce next to iallreduce", "world", i);
    }
    checks++;
    if (all != n_w * (n_w + 1) / 2)
        fail("iallreduce", "world", 0);
}

/* Zero-byte calls of every intercepted collective, in every form. */
static void zero_calls(void)
{
    const base *bs[] = {&B.i, &B.d, &B.p, &B.di};
    MPI_Comm graph = ring_graph();
    for (int s = 0; s < 12; s++) {
        const base *b = bs[s % 4];
        t_bcast(MPI_COMM_WORLD, "world", b, 0, s % n_w, (uint64_t)s);
        t_allreduce(MPI_COMM_WORLD, "world", b == &B.p ? &B.p : &B.i, b == &B.p ? MPI_MAXLOC : MPI_SUM, 0, s % 2,
                    (uint64_t)s);
        t_alltoall(MPI_COMM_WORLD, "world", b, 0, s % 2, (uint64_t)s);
        t_alltoallv(MPI_COMM_WORLD, "world", b, s % 2, 1, (uint64_t)s);
        t_neighbor(graph, &B.i, 1, (uint64_t)s);
    }
    CHECK(MPI_Comm_free(&graph));
    zeros_like_mpich();
    /* a barrier is never zero-byte: it synchronises (the suite sees its messages) */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Messages over 2 GiB (MPI's int count of bytes): a bcast of 2 GiB + 64
 * bytes, and an allreduce of as many floats (whole-vector messages under
 * TORUS_COLL_ALLREDUCE=recursive_doubling).  About 6 GiB per rank. */
static void big_calls(void)
{
    int n = (1 << 29) + 16, root = n_w - 1;
    int *b = xmalloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        b[i] = me_w == root ? i ^ 0x5a5a : -1;
    CHECK(MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        if (b[i] != (i ^ 0x5a5a)) {
            fail("bcast 2 GiB", "world", i);
            break;
        }
    checks++;
    free(b);
    float *s = xmalloc((size_t)n * 4), *r = xmalloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        s[i] = (float)(i % 1000 + me_w);
    CHECK(MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        if (r[i] != (float)(n_w * (i % 1000) + n_w * (n_w - 1) / 2)) {
            fail("allreduce 2 GiB", "world", i);
            break;
        }
    checks++;
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me_w));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n_w));
    base_init(&B.i, MPI_INT, "int");
    base_init(&B.d, MPI_DOUBLE, "double");
    base_init(&B.c, MPI_CHAR, "char");
    base_init(&B.p, MPI_2INT, "2int");
    base_init(&B.di, MPI_DOUBLE_INT, "double_int");
    base_init(&B.si, MPI_SHORT_INT, "short_int");
    const char *mode = argc > 1 ? argv[1] : "fixed";
    adapter_only = argc > 2 && !strcmp(argv[argc - 1], "adapter");
    int nargs = argc - adapter_only;
    if (!strcmp(mode, "fixed") && nargs == 2) {
        zeros_like_mpich();
        pairs_and_mixed();
        intercomm();
        user_ops();
        nonblocking();
        random_rounds(1, 30);
    } else if (!strcmp(mode, "random") && nargs == 4) {
        char *end;
        unsigned long long seed = strtoull(argv[2], &end, 10);
        long rounds = strtol(argv[3], NULL, 10);
        if (*end || rounds < 1 || rounds > 100000) {
            if (me_w == 0)
                fprintf(stderr, "pmpi_sigs: random SEED ROUNDS: SEED a number, ROUNDS 1..100000\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        random_rounds(seed, (int)rounds);
    } else if (!strcmp(mode, "zero") && nargs == 2) {
        zero_calls();
    } else if (!strcmp(mode, "big") && nargs == 2) {
        big_calls();
    } else {
        if (me_w == 0)
            fprintf(stderr, "pmpi_sigs: usage: pmpi_sigs fixed | random SEED ROUNDS | zero | big, each [adapter]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long tot[2] = {checks, errors}, all[2];
    long ex[2 * E_NOPS], exall[2 * E_NOPS];
    for (int o = 0; o < E_NOPS; o++)
        ex[o] = expect_inter[o], ex[E_NOPS + o] = expect_user[o];
    CHECK(MPI_Reduce(tot, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    CHECK(MPI_Reduce(ex, exall, 2 * E_NOPS, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD));
    if (me_w == 0) {
        printf("pmpi_sigs %s: %ld checks, %ld errors\n", mode, all[0], all[1]);
        /* the same as keys: what tests/suite_pmpi.sh reads */
        printf("checks: %ld\nerrors: %ld\n", all[0], all[1]);
        static const char *const names[E_NOPS] = {"bcast", "allreduce", "alltoall"};
        for (int o = 0; o < E_NOPS; o++) {
            long i = exall[o], u = exall[E_NOPS + o];
            /* the keys of the adapter's TORUS_COLL_STATS=kv line, nonzero reasons only */
            printf("expect op=%s fell_through=%ld", names[o], i + u);
            if (i)
                printf(" why.intercomm=%ld", i);
            if (u)
                printf(" why.user_op=%ld", u);
            printf("\n");
        }
    }
    CHECK(MPI_Finalize());
    return me_w == 0 ? all[1] != 0 : errors != 0;
}
