/*
 * test_coll.c - every collective algorithm on the functional simulator:
 * every ordered factorisation of every N <= 16 into at most 4 dimensions
 * (mesh and torus flags, size-1 and size-2 dimensions), sizes 0, 1, odd
 * and 64 KiB, several scheduler seeds.  Each run must terminate, leave no
 * request open, give the sequential reference element for element (every
 * rank bit-identical for doubles), and send exactly the messages and bytes
 * of its file's cost formula; the second seed of every other shape runs
 * without the transport's line_send (the deposit bit), as over MPI.  Then a few shapes at 4096 virtual ranks,
 * and bad input.  Arguments: case names, or op [algorithm] to run those
 * runs alone.
 */
#include "kit_mix.h"
#include "../test.h"
#include "coll_impl.h"

#include <stdlib.h>
#include <string.h>

static int bad_runs, runs;
static int nshapes; /* shapes of all_algorithms so far */
static const char *only_op, *only_alg;

/* ---- deterministic data ------------------------------------------------ */


/* element i of rank r's allreduce input for a type: integers anywhere in
 * their range (sums wrap), doubles whole numbers below 2^20 so that any
 * order of summation is exact */
static uint64_t elem(int r, size_t i, torus_dtype t, uint64_t salt)
{
    uint64_t x = kit_mix64(salt * 1000003u + (uint64_t)r * 7919u + i);
    if (t == TORUS_DOUBLE) {
        double d = (double)(int64_t)(x % 2000001) - 1000000.0;
        memcpy(&x, &d, 8);
    }
    return x;
}

/* Element i of rank r for a (type, op) pair other than the uint64/int64/
 * double ones above, esize bytes at out: values for which every order of
 * combination gives the same bits (integers anywhere, floats small whole
 * numbers or powers of two, complex parts in -1..1 for products, pairs
 * with values 0..3 so that MAXLOC/MINLOC ties are frequent).  A long
 * double's 6 padding bytes are zero. */
static void put_ld(unsigned char *out, long double v)
{
    memset(out, 0, sizeof v);
    memcpy(out, &v, 10);
}

static void gen_elem(torus_dtype t, torus_op op, int r, size_t i, uint64_t salt, unsigned char *out)
{
    uint64_t x = kit_mix64(salt * 1000003u + (uint64_t)r * 7919u + i);
    int small = (int)(x % 2001) - 1000, unit = (int)(x % 3) - 1, tiny = (int)(x % 4);
    double f = op == TORUS_OP_PROD ? (x % 2 ? 2.0 : 0.5) * (x % 4 < 2 ? 1 : -1) : small + 0.5;
    int idx = (int)(kit_mix64(x) % 100000);
    switch (t) {
    case TORUS_FLOAT: { float v = (float)f; memcpy(out, &v, 4); break; }
    case TORUS_DOUBLE: memcpy(out, &f, 8); break;
    case TORUS_LONG_DOUBLE: put_ld(out, (long double)f); break;
    case TORUS_FLOAT_COMPLEX: {
        float v[2] = {(float)(op == TORUS_OP_PROD ? unit : small), (float)(op == TORUS_OP_PROD ? (int)(x / 3 % 3) - 1 : -small)};
        memcpy(out, v, 8);
        break;
    }
    case TORUS_DOUBLE_COMPLEX: {
        double v[2] = {op == TORUS_OP_PROD ? unit : small, op == TORUS_OP_PROD ? (int)(x / 3 % 3) - 1 : 3 * small};
        memcpy(out, v, 16);
        break;
    }
    case TORUS_LONG_DOUBLE_COMPLEX:
        put_ld(out, op == TORUS_OP_PROD ? unit : small);
        put_ld(out + 16, op == TORUS_OP_PROD ? (int)(x / 3 % 3) - 1 : 5 * small);
        break;
    case TORUS_BOOL: out[0] = (unsigned char)(x & 1); break;
    case TORUS_FLOAT_INT: { float v = (float)tiny; memcpy(out, &v, 4); memcpy(out + 4, &idx, 4); break; }
    case TORUS_DOUBLE_INT: { double v = tiny; memcpy(out, &v, 8); memcpy(out + 8, &idx, 4); break; }
    case TORUS_LONG_INT: { long v = tiny - 2; memcpy(out, &v, 8); memcpy(out + 8, &idx, 4); break; }
    case TORUS_2INT: { int v[2] = {tiny, idx}; memcpy(out, v, 8); break; }
    case TORUS_SHORT_INT: { short v = (short)tiny; memcpy(out, &v, 2); memcpy(out + 2, &idx, 4); break; }
    case TORUS_LONG_DOUBLE_INT: put_ld(out, tiny); memcpy(out + 16, &idx, 4); break;
    case TORUS_2FLOAT: { float v[2] = {(float)tiny, (float)idx}; memcpy(out, v, 8); break; }
    case TORUS_2DOUBLE: { double v[2] = {tiny, idx}; memcpy(out, v, 16); break; }
    default: {
        /* integers and bytes: anything (sums and products wrap); logical
         * ops get zeros often */
        if ((op == TORUS_OP_LAND || op == TORUS_OP_LOR || op == TORUS_OP_LXOR) && x % 3 == 0)
            x = 0;
        memcpy(out, &x, torus_dtype_size(t));
        break;
    }
    }
}

/* Whether two elements hold the same value: floating parts compared as
 * numbers (the values are exact in any order, but a zero part of a
 * complex product may come out -0 or +0 depending on the order its
 * factors meet), the rest byte for byte but a long double's padding (10
 * of its 16 bytes are the x87 value). */
static int same_elem(torus_dtype t, const unsigned char *x, const unsigned char *y)
{
    if (t == TORUS_FLOAT || t == TORUS_FLOAT_COMPLEX) {
        float u[2] = {0, 0}, v[2] = {0, 0};
        memcpy(u, x, torus_dtype_size(t));
        memcpy(v, y, torus_dtype_size(t));
        return u[0] == v[0] && u[1] == v[1];
    }
    if (t == TORUS_DOUBLE || t == TORUS_DOUBLE_COMPLEX) {
        double u[2] = {0, 0}, v[2] = {0, 0};
        memcpy(u, x, torus_dtype_size(t));
        memcpy(v, y, torus_dtype_size(t));
        return u[0] == v[0] && u[1] == v[1];
    }
    if (t == TORUS_LONG_DOUBLE || t == TORUS_LONG_DOUBLE_COMPLEX) {
        long double u[2] = {0, 0}, v[2] = {0, 0};
        memcpy(u, x, torus_dtype_size(t));
        memcpy(v, y, torus_dtype_size(t));
        return u[0] == v[0] && u[1] == v[1];
    }
    for (size_t b = 0; b < torus_dtype_size(t); b++) {
        int pad = (t == TORUS_LONG_DOUBLE || t == TORUS_LONG_DOUBLE_COMPLEX) ? b % 16 >= 10
                  : t == TORUS_LONG_DOUBLE_INT                               ? b >= 10 && b < 16
                                                                             : 0;
        if (!pad && x[b] != y[b])
            return 0;
    }
    return 1;
}

/* The k-th (type, op) pair the library defines, cycling. */
static void nth_pair(size_t k, torus_dtype *t, torus_op *op)
{
    size_t total = 0;
    for (int a = 0; a < TORUS_NDTYPES; a++)
        for (int o = 0; o < TORUS_NOPS; o++)
            total += (size_t)torus_coll_reduce_defined((torus_dtype)a, (torus_op)o);
    k %= total;
    for (int a = 0; a < TORUS_NDTYPES; a++)
        for (int o = 0; o < TORUS_NOPS; o++)
            if (torus_coll_reduce_defined((torus_dtype)a, (torus_op)o) && k-- == 0) {
                *t = (torus_dtype)a, *op = (torus_op)o;
                return;
            }
}

/* ---- one collective on every rank --------------------------------------- */

typedef struct tcase {
    torus_coll_op op;
    const char *alg;
    size_t bytes;  /* bcast message, allreduce vector (count * element size), alltoall block */
    size_t count;  /* allreduce elements */
    int root;
    torus_dtype dt;
    torus_op rop;
    int uniform;   /* alltoallv: uniform blocks (else seeded random counts) */
    int no_line_send; /* run without the transport's line_send (deposit bit), as over MPI */
    uint64_t salt;
    int n;
    unsigned char *arrived; /* barrier: who has entered */
    int *fail_rank;
    char why[256];
} tcase;

static size_t a2a_count(const tcase *t, int from, int to)
{
    if (t->uniform)
        return t->bytes;
    return (size_t)(kit_mix64(t->salt + (uint64_t)from * 131u + (uint64_t)to) % 40); /* 0..39, zeros included */
}

static int body(torus_coll *c, int r, void *arg)
{
    tcase *t = arg;
    int n = t->n, rc = 0;
    if (t->no_line_send)
        c->tp->line_send = NULL; /* every rank, before any call: torus__line_send's fallback */
    if (torus_coll_force(c, t->op, t->alg))
        return -10;
    switch (t->op) {
    case TORUS_COLL_BARRIER:
        for (int round = 0; round < 3 && !rc; round++) {
            t->arrived[r] = (unsigned char)(round + 1);
            rc = torus_coll_barrier(c);
            /* nobody leaves a barrier before everybody has entered it */
            for (int j = 0; j < n && !rc; j++)
                if (t->arrived[j] < round + 1) {
                    snprintf(t->why, sizeof t->why, "rank %d left barrier %d before rank %d entered", r, round, j);
                    rc = -11;
                }
            rc = rc ? rc : torus_coll_barrier(c); /* everyone has checked before the next round writes */
        }
        break;
    case TORUS_COLL_BCAST: {
        unsigned char *b = malloc(t->bytes + 1);
        for (size_t i = 0; i < t->bytes; i++)
            b[i] = r == t->root ? (unsigned char)kit_mix64(t->salt + i) : 0xEE;
        rc = torus_coll_bcast(c, b, t->bytes, t->root);
        for (size_t i = 0; i < t->bytes && !rc; i++)
            if (b[i] != (unsigned char)kit_mix64(t->salt + i)) {
                snprintf(t->why, sizeof t->why, "rank %d byte %zu: %u, root sent %u", r, i, b[i],
                         (unsigned)(unsigned char)kit_mix64(t->salt + i));
                rc = -12;
            }
        free(b);
        break;
    }
    case TORUS_COLL_ALLREDUCE: {
        /* elements of any size (12-byte packed pairs, 32-byte complex long
         * doubles): the algorithms' block arithmetic in elements */
        size_t cnt = t->count, es = torus_dtype_size(t->dt);
        unsigned char *v = malloc(cnt * es + 8), *want = malloc(cnt * es + 8), x[32];
        int original = (t->dt == TORUS_UINT64 || t->dt == TORUS_INT64 || t->dt == TORUS_DOUBLE) && t->rop <= TORUS_OP_BXOR;
        for (size_t i = 0; i < cnt; i++) {
            if (original) {
                uint64_t e = elem(r, i, t->dt, t->salt);
                memcpy(v + i * es, &e, 8);
            } else {
                gen_elem(t->dt, t->rop, r, i, t->salt, v + i * es);
            }
        }
        /* the sequential reference, ranks in order */
        for (size_t i = 0; i < cnt; i++) {
            unsigned char *acc = want + i * es;
            for (int j = 0; j < n; j++) {
                if (original) {
                    uint64_t e = elem(j, i, t->dt, t->salt);
                    memcpy(x, &e, 8);
                } else {
                    gen_elem(t->dt, t->rop, j, i, t->salt, x);
                }
                if (j == 0)
                    memcpy(acc, x, es);
                else
                    torus__reduce3(c, acc, acc, x, 1, t->dt, t->rop);
            }
        }
        rc = torus_coll_allreduce(c, v, v, cnt, t->dt, t->rop);
        for (size_t i = 0; i < cnt && !rc; i++)
            if (!same_elem(t->dt, v + i * es, want + i * es)) {
                uint64_t got = 0, exp = 0;
                memcpy(&got, v + i * es, es < 8 ? es : 8);
                memcpy(&exp, want + i * es, es < 8 ? es : 8);
                snprintf(t->why, sizeof t->why, "rank %d element %zu of %zu: %016llx, want %016llx", r, i, cnt,
                         (unsigned long long)got, (unsigned long long)exp);
                rc = -13;
            }
        free(v);
        free(want);
        break;
    }
    default: {
        size_t *sc = malloc(4 * (size_t)n * sizeof *sc), *sd = sc + n, *rcn = sc + 2 * n, *rd = sc + 3 * n;
        size_t stot = 0, rtot = 0;
        for (int j = 0; j < n; j++) {
            /* the uniform alltoall has contiguous blocks; alltoallv gets gaps */
            sc[j] = a2a_count(t, r, j);
            sd[j] = stot;
            stot += sc[j] + (t->uniform ? 0 : (size_t)(j % 3));
            rcn[j] = a2a_count(t, j, r);
            rd[j] = rtot;
            rtot += rcn[j] + (t->uniform ? 0 : (size_t)(j % 2));
        }
        unsigned char *s = malloc(stot + 1), *d = malloc(rtot + 1);
        memset(s, 0xAB, stot + 1);
        memset(d, 0xCD, rtot + 1);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < sc[j]; i++)
                s[sd[j] + i] = (unsigned char)kit_mix64(t->salt + (uint64_t)r * 65536u + (uint64_t)j * 256u + i);
        rc = t->uniform ? torus_coll_alltoall(c, s, d, t->bytes)
                        : torus_coll_alltoallv(c, s, sc, sd, d, rcn, rd);
        for (int j = 0; j < n && !rc; j++)
            for (size_t i = 0; i < rcn[j] && !rc; i++)
                if (d[rd[j] + i] != (unsigned char)kit_mix64(t->salt + (uint64_t)j * 65536u + (uint64_t)r * 256u + i)) {
                    snprintf(t->why, sizeof t->why, "rank %d block from %d byte %zu wrong", r, j, i);
                    rc = -14;
                }
        /* the gaps between blocks stay untouched */
        for (int j = 0; j < n && !rc; j++)
            for (size_t g = rd[j] + rcn[j]; g < (j + 1 < n ? rd[j + 1] : rtot); g++)
                if (d[g] != 0xCD) {
                    snprintf(t->why, sizeof t->why, "rank %d wrote outside block %d", r, j);
                    rc = -15;
                }
        free(s);
        free(d);
        free(sc);
        break;
    }
    }
    /* the forced algorithm ran, unless its preconditions do not hold here
     * (then the table's choice is right) */
    torus__coll_args pre = {.op = t->op, .bytes = t->bytes, .count = t->count, .esize = torus_dtype_size(t->dt),
                            .dt = t->dt, .rop = t->rop, .root = t->root, .uniform = t->uniform};
    const torus__coll_alg *forced = torus__coll_find(t->op, t->alg);
    if (!rc && forced && forced->ok(c, &pre) && strcmp(torus_coll_last(c, t->op), t->alg) &&
        !(t->op != TORUS_COLL_BARRIER && n == 1) &&
        !(t->bytes == 0 && (t->op == TORUS_COLL_BCAST || t->op == TORUS_COLL_ALLREDUCE))) {
        snprintf(t->why, sizeof t->why, "ran '%s', not the forced '%s'", torus_coll_last(c, t->op), t->alg);
        rc = -16;
    }
    /* the counts of the file's cost formula (uniform calls at root 0) */
    if (!rc && (t->op == TORUS_COLL_BARRIER || t->uniform || t->op == TORUS_COLL_ALLREDUCE ||
                (t->op == TORUS_COLL_BCAST && t->root == 0))) {
        torus_coll_counts k;
        torus_coll_get_counts(c, &k);
        uint64_t m = 0, b = 0;
        int calls = t->op == TORUS_COLL_BARRIER ? 6 : 1;
        /* the formula at 8-byte elements (the cost functions' shape) */
        int formula = t->op != TORUS_COLL_ALLREDUCE || torus_dtype_size(t->dt) == 8;
        if (formula && n > 1 && (t->bytes || t->op == TORUS_COLL_BARRIER) &&
            torus__coll_cost_of(c, t->op, t->alg, t->bytes, r, &m, &b) == 0 &&
            (k.msgs_sent != m * (uint64_t)calls || k.bytes_sent != b * (uint64_t)calls)) {
            snprintf(t->why, sizeof t->why, "rank %d sent %llu messages / %llu bytes, formula %llu / %llu", r,
                     (unsigned long long)k.msgs_sent, (unsigned long long)k.bytes_sent,
                     (unsigned long long)(m * (uint64_t)calls), (unsigned long long)(b * (uint64_t)calls));
            rc = -17;
        }
    }
    return rc;
}

static void run_case(const torus_map *m, tcase *t, uint64_t seed, double eager)
{
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = eager, .eager_queue = 4, .delay_prob = 0.3,
                           .seed = seed};
    t->n = m->shape.n;
    t->why[0] = 0;
    unsigned char arrived[8192];
    memset(arrived, 0, sizeof arrived);
    t->arrived = arrived;
    torus_coll_vrun_result res;
    int rc = torus_coll_vrun_sim(m, &sp, NULL, body, t, &res);
    runs++;
    if (rc || res.deadlock || res.failed_rank >= 0 || res.unfinished || res.open_requests) {
        char name[128];
        torus_shape_format(&m->shape, name, sizeof name);
        if (bad_runs++ < 25)
            fprintf(stderr, "%s %s on %s (N=%d) bytes %zu root %d type %d op %d seed %llu: rc=%d deadlock=%d "
                            "unfinished=%d open=%d failed rank %d (%d): %s %s\n",
                    torus_coll_op_name(t->op), t->alg, name, t->n, t->bytes, t->root, t->dt, t->rop,
                    (unsigned long long)seed, rc, res.deadlock, res.unfinished, res.open_requests, res.failed_rank,
                    res.rc, t->why, res.err);
    }
}

static int selected(torus_coll_op op, const char *alg)
{
    return (!only_op || !strcmp(only_op, torus_coll_op_name(op))) && (!only_alg || !strcmp(only_alg, alg));
}

/* Every algorithm of every op on one shape; returns the runs made. */
static void all_algorithms(const torus_map *m, int seeds, int big)
{
    static const size_t sizes[] = {0, 8, 104, 65536};
    for (int op = 0; op < TORUS_COLL_NCOLL; op++)
        for (const char *const *a = torus_coll_algorithms((torus_coll_op)op); *a; a++) {
            if (!selected((torus_coll_op)op, *a))
                continue;
            for (int seed = 1; seed <= seeds; seed++) {
                tcase t = {.op = (torus_coll_op)op, .alg = *a, .salt = (uint64_t)seed * 77u};
                /* the second seed of every other shape runs as over MPI,
                 * without the deposit bit */
                t.no_line_send = seed == 2 && nshapes % 2;
                double eager = seed % 2 ? 0.0 : 0.7; /* rendezvous and buffered sends */
                if (op == TORUS_COLL_BARRIER) {
                    run_case(m, &t, (uint64_t)seed, eager);
                    continue;
                }
                for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                    if (sizes[s] == 65536 && !big)
                        continue;
                    t.bytes = sizes[s];
                    if (op == TORUS_COLL_BCAST) {
                        t.bytes = sizes[s] ? sizes[s] + (s == 2) : 0; /* odd size */
                        t.root = (int)((uint64_t)seed * 5u % (uint64_t)m->shape.n);
                        if (s == 1)
                            t.root = 0;
                        run_case(m, &t, (uint64_t)seed, eager);
                    } else if (op == TORUS_COLL_ALLREDUCE) {
                        t.dt = (torus_dtype)((s + (size_t)seed) % 3);
                        t.rop = (torus_op)((s + (size_t)seed * 3) % (t.dt == TORUS_DOUBLE ? 3 : 4));
                        if (s == 1 || (s == 3 && seed == 1))
                            t.dt = TORUS_UINT64, t.rop = TORUS_OP_SUM; /* the cost formula's case */
                        else if (s == 2 || s == 3)
                            /* every (type, op) pair in turn over the shapes */
                            nth_pair((size_t)nshapes * 7 + (size_t)seed * 3 + (s == 3), &t.dt, &t.rop);
                        t.count = sizes[s] / 8;
                        t.bytes = t.count * torus_dtype_size(t.dt);
                        run_case(m, &t, (uint64_t)seed, eager);
                    } else {
                        t.uniform = 1;
                        t.bytes = sizes[s] / 16 + (s == 2); /* blocks of 0, 0, 7, 4096 bytes */
                        run_case(m, &t, (uint64_t)seed, eager);
                        if (s == 0) {
                            t.uniform = 0;
                            run_case(m, &t, (uint64_t)seed, eager);
                        }
                    }
                }
            }
        }
}

/* Every ordered factorisation of n into factors >= 1, at most 4 dims, at
 * most one size-1 dimension; mesh flags spread over the dimensions. */
static void shapes_of(int n, int left, torus_shape *cur, int ones)
{
    if (left == 1 && cur->ndims > 0) {
        torus_shape s = *cur;
        s.n = n;
        for (int v = 0; v < 2; v++) {
            for (int i = 0; i < s.ndims; i++)
                s.mesh[i] = v ? (int)((n + i) % 2) : 0;
            torus_map m;
            if (torus_map_xyzt(&m, &s) == 0) {
                all_algorithms(&m, 2, nshapes % 5 == 0);
                torus_map_free(&m);
                nshapes++;
            }
        }
        return;
    }
    if (cur->ndims == 4)
        return;
    for (int f = 1; f <= left; f++) {
        if (left % f)
            continue;
        if (f == 1 && (ones || left == 1))
            continue;
        cur->k[cur->ndims++] = f;
        shapes_of(n, left / f, cur, ones + (f == 1));
        cur->ndims--;
    }
}

/* The algorithms issue 11 and docs/architecture.md name, all registered. */
static void registry_complete(void)
{
    static const char *const want[TORUS_COLL_NCOLL][8] = {
        {"dissemination", "nary_dissemination", "nary_exchange", "hsb", "dimwise", "node_aware"},
        {"binomial", "scatter_allgather", "multistream", "chain"},
        {"recursive_doubling", "rabenseifner", "dimwise", "hamiltonian", "swing", "ring"},
        {"pairwise", "random_permutation", "routed", "bruck"},
    };
    for (int op = 0; op < TORUS_COLL_NCOLL; op++)
        for (int i = 0; want[op][i]; i++)
            if (!torus__coll_find((torus_coll_op)op, want[op][i])) {
                fprintf(stderr, "missing %s algorithm %s\n", torus_coll_op_name((torus_coll_op)op), want[op][i]);
                t_fail++;
            }
    printf("algorithms registered: %d\n", torus__coll_nlisted);
}

/* Whether an algorithm's critical path on map m has more than 64 rounds
 * (its cost formula with alpha = 1, beta = gamma = 0). */
static int linear_rounds(const torus_map *m, torus_coll_op op, const char *alg)
{
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .seed = 1};
    torus_sim *sim = torus_sim_create(m, &sp);
    torus_transport tp;
    torus_sim_bind(sim, 0, &tp);
    torus_coll_config cfg = {.map = m, .me = 0, .tp = &tp};
    torus_coll *c;
    char err[256];
    double rounds = 0;
    if (torus_coll_create(&c, &cfg, err, sizeof err) == 0) {
        rounds = torus_coll_predict(c, op, alg, op == TORUS_COLL_ALLTOALLV ? 8 : 64, 1, 0, 0);
        torus_coll_destroy(c);
    }
    torus_sim_destroy(sim);
    return rounds > 64;
}

static void big_shapes(void)
{
    const char *shapes[] = {"16x16x16", "8x8x8x8"};
    for (int i = 0; i < 2; i++) {
        torus_shape s;
        char err[128];
        ASSERT_EQ_INT(torus_shape_parse(shapes[i], 4096, &s, err, sizeof err), 0);
        torus_map m;
        ASSERT_EQ_INT(torus_map_xyzt(&m, &s), 0);
        for (int op = 0; op < TORUS_COLL_NCOLL; op++)
            for (const char *const *a = torus_coll_algorithms((torus_coll_op)op); *a; a++) {
                if (!selected((torus_coll_op)op, *a))
                    continue;
                /* algorithms of O(N) sequential rounds (rings, paths) take
                 * N^2 coroutine switches here: they run at 4096 only when
                 * asked for by name */
                if (!only_alg && linear_rounds(&m, (torus_coll_op)op, *a))
                    continue;
                tcase t = {.op = (torus_coll_op)op, .alg = *a, .salt = 99, .bytes = 64, .count = 8, .uniform = 1};
                if (op == TORUS_COLL_ALLTOALLV)
                    t.bytes = 8;
                run_case(&m, &t, 7, 0.5);
            }
        torus_map_free(&m);
    }
}

static void bad_input(void)
{
    torus_shape s;
    char err[256];
    torus_shape_parse("2x2", 4, &s, err, sizeof err);
    torus_map m;
    torus_map_xyzt(&m, &s);
    torus_transport tp = {0};
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .seed = 1};
    torus_sim *sim = torus_sim_create(&m, &sp);
    torus_sim_bind(sim, 0, &tp);
    torus_coll *c;
    torus_coll_config cfg = {.map = &m, .me = 0, .tp = &tp};
    ASSERT_EQ_INT(torus_coll_create(&c, &cfg, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_coll_force(c, TORUS_COLL_BCAST, "bogus"), TORUS_COLL_EARG);
    ASSERT_STR_CONTAINS(torus_coll_error(c), "unknown bcast algorithm 'bogus': allowed auto, binomial");
    ASSERT_EQ_INT(torus_coll_bcast(c, err, 1, 4), TORUS_COLL_EARG);
    ASSERT_STR_CONTAINS(torus_coll_error(c), "root 4 out of range: allowed 0..3");
    double d = 1;
    ASSERT_EQ_INT(torus_coll_allreduce(c, &d, &d, 1, TORUS_DOUBLE, TORUS_OP_BXOR), TORUS_COLL_EARG);
    ASSERT_STR_CONTAINS(torus_coll_error(c), "bxor is not defined on double: allowed sum, min, max, prod");
    torus_coll_destroy(c);
    /* an environment override naming no algorithm is refused at creation */
    setenv("TORUS_COLL_ALLREDUCE", "nonesuch", 1);
    ASSERT_TRUE(torus_coll_create(&c, &cfg, err, sizeof err) != 0);
    ASSERT_STR_CONTAINS(err, "TORUS_COLL_ALLREDUCE=nonesuch: unknown allreduce algorithm 'nonesuch'");
    unsetenv("TORUS_COLL_ALLREDUCE");
    torus_sim_destroy(sim);
    torus_map_free(&m);
}

/* Counts that differ between ranks: a longer message than the receiver
 * expects is an error line on that rank, never a hang or an overrun.  The
 * segmented algorithms, whose segments depend on the size, hold to it both
 * ways: chain follows the root's size (a header), ring sends the same
 * number of messages whatever the count. */
typedef struct mm_case {
    int op;                  /* TORUS_COLL_BCAST or TORUS_COLL_ALLREDUCE */
    const char *alg;
    size_t first, others;    /* bytes (bcast) or uint64 elements (allreduce) of rank 0 and the rest */
} mm_case;

static int mismatch_body(torus_coll *c, int r, void *arg)
{
    const mm_case *k = arg;
    static unsigned char buf[16][65536];
    size_t mine = r == 0 ? k->first : k->others;
    torus_coll_force(c, (torus_coll_op)k->op, k->alg);
    if (k->op == TORUS_COLL_BCAST)
        return torus_coll_bcast(c, buf[r], mine, 0);
    return torus_coll_allreduce(c, buf[r], buf[r], mine, TORUS_UINT64, TORUS_OP_SUM);
}

/* The rank count of a shape string "AxBxC" (the product of its sizes). */
static int shape_ranks(const char *shape)
{
    int n = 1;
    for (const char *p = shape; *p;) {
        char *end;
        n *= (int)strtol(p, &end, 10);
        p = *end ? end + 1 : end;
    }
    return n;
}

static void mismatch_one(const char *shape, mm_case *k, const char *msg)
{
    torus_shape s;
    char err[128];
    ASSERT_EQ_INT(torus_shape_parse(shape, shape_ranks(shape), &s, err, sizeof err), 0);
    torus_map m;
    ASSERT_EQ_INT(torus_map_xyzt(&m, &s), 0);
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = 1, .eager_queue = 8, .seed = 3};
    torus_coll_vrun_result res;
    ASSERT_EQ_INT(torus_coll_vrun_sim(&m, &sp, NULL, mismatch_body, k, &res), 0);
    ASSERT_EQ_INT(res.deadlock, 0);
    ASSERT_TRUE(res.failed_rank > 0);
    ASSERT_EQ_INT(res.rc, TORUS_COLL_ETRUNC);
    ASSERT_STR_CONTAINS(res.err, msg);
    torus_map_free(&m);
}

static void mismatch(void)
{
    static mm_case binomial = {TORUS_COLL_BCAST, "binomial", 64, 16};
    mismatch_one("4", &binomial, "longer than expected");
    /* more segments at the root than the others expect, and fewer */
    static mm_case chain_long = {TORUS_COLL_BCAST, "chain", 40000, 3000};
    static mm_case chain_short = {TORUS_COLL_BCAST, "chain", 3000, 40000};
    mismatch_one("5", &chain_long, "the root sends 40000 bytes where 3000 are expected");
    mismatch_one("2x3", &chain_short, "the root sends 3000 bytes where 40000 are expected");
    static mm_case ring = {TORUS_COLL_ALLREDUCE, "ring", 4000, 1000};
    mismatch_one("5", &ring, "longer than expected");
}

/* The segmented algorithms with several segments, a count that no segment
 * divides and roots other than 0, checked element for element as every
 * case (the sizes of all_algorithms give chain one segment at most). */
static void segmented(void)
{
    int before = bad_runs;
    static const char *const shapes[] = {"3", "5", "2x3", "7", "2x2x2", "3x4"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        torus_shape s;
        char err[128];
        ASSERT_EQ_INT(torus_shape_parse(shapes[i], shape_ranks(shapes[i]), &s, err, sizeof err), 0);
        torus_map m;
        ASSERT_EQ_INT(torus_map_xyzt(&m, &s), 0);
        for (int root = 0; root < 3; root++) {
            tcase t = {.op = TORUS_COLL_BCAST, .alg = "chain", .salt = 5u + (uint64_t)root, .bytes = 30001,
                       .root = root % s.n};
            run_case(&m, &t, (uint64_t)root + 1, root % 2 ? 0.7 : 0.0);
        }
        tcase t = {.op = TORUS_COLL_ALLREDUCE, .alg = "ring", .salt = 9, .count = 1001, .dt = TORUS_UINT64,
                   .rop = TORUS_OP_SUM, .bytes = 1001 * 8};
        run_case(&m, &t, 2, 0.0);
        t.dt = TORUS_DOUBLE, t.count = 999, t.bytes = 999 * 8, t.salt = 10;
        run_case(&m, &t, 3, 0.7);
        torus_map_free(&m);
    }
    /* a bad run fails this case too, not only the check of every_shape's
     * bad_runs (which counts them all, as before) */
    if (bad_runs > before)
        t_fail++;
}

/* torus_coll_skip_empty (the MPI adapter's alltoallv): pairwise sends only
 * non-empty blocks, the data still right; a call whose counts are all 0
 * sends no message at all. */
static int sparse_body(torus_coll *c, int r, void *arg)
{
    (void)arg;
    int n = c->n, nonempty = 0;
    torus_coll_skip_empty(c, 1);
    torus_coll_force(c, TORUS_COLL_ALLTOALLV, "pairwise");
    size_t sc[8], sd[8], rcn[8], rd[8];
    unsigned char s[8 * 8], d[8 * 8];
    for (int j = 0; j < n; j++) {
        sc[j] = (size_t)((r + 2 * j) % 3), rcn[j] = (size_t)((j + 2 * r) % 3);
        sd[j] = rd[j] = (size_t)j * 8;
        nonempty += sc[j] && j != r;
        for (size_t i = 0; i < 8; i++)
            s[j * 8 + i] = (unsigned char)(r * 16 + j + (int)i);
    }
    memset(d, 0xEE, sizeof d);
    int rc = torus_coll_alltoallv(c, s, sc, sd, d, rcn, rd);
    for (int j = 0; j < n && !rc; j++)
        for (size_t i = 0; i < 8; i++)
            if (d[j * 8 + i] != (i < rcn[j] ? (unsigned char)(j * 16 + r + (int)i) : 0xEE))
                return -20;
    torus_coll_counts k;
    torus_coll_get_counts(c, &k);
    if (!rc && k.msgs_sent != (uint64_t)nonempty)
        return -21;
    torus_coll_reset_counts(c);
    for (int j = 0; j < n; j++)
        sc[j] = rcn[j] = 0;
    rc = rc ? rc : torus_coll_alltoallv(c, s, sc, sd, d, rcn, rd);
    torus_coll_get_counts(c, &k);
    return rc ? rc : k.msgs_sent || k.msgs_recv ? -22 : 0;
}

static void skip_empty(void)
{
    torus_shape s;
    char err[128];
    torus_shape_parse("5", 5, &s, err, sizeof err);
    torus_map m;
    torus_map_xyzt(&m, &s);
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .eager_prob = 0, .seed = 5};
    torus_coll_vrun_result res;
    ASSERT_EQ_INT(torus_coll_vrun_sim(&m, &sp, NULL, sparse_body, NULL, &res), 0);
    ASSERT_EQ_INT(res.deadlock, 0);
    ASSERT_EQ_INT(res.failed_rank, -1);
    ASSERT_EQ_INT(res.open_requests, 0);
    torus_map_free(&m);
}

/* COLL_EXHAUSTIVE=0 (the second MPI library's pass: this is serial
 * code, the same under both): shapes up to 8 ranks, no 4096 */
static int quick(void)
{
    const char *ex = getenv("COLL_EXHAUSTIVE");
    return ex && !strcmp(ex, "0");
}

/* every algorithm (of the selected op) on every ordered factorisation of
 * every N <= 16 */
static void every_shape(void)
{
    for (int n = 1; n <= (quick() ? 8 : 16); n++) {
        torus_shape cur;
        memset(&cur, 0, sizeof cur);
        shapes_of(n, n, &cur, 0);
    }
    printf("shapes: %d, runs: %d, failed: %d\n", nshapes, runs, bad_runs);
    ASSERT_EQ_INT(bad_runs, 0);
}

/* a few shapes at 4096 virtual ranks */
static void shapes_of_4096(void)
{
    if (!quick())
        big_shapes();
    printf("with 4096-rank shapes: runs %d, failed %d\n", runs, bad_runs);
    ASSERT_EQ_INT(bad_runs, 0);
}

static const test_case cases[] = {
    {"algorithms_registered", registry_complete},
    {"bad_input_refused", bad_input},
    {"count_mismatch_is_an_error", mismatch},
    {"segmented_several_segments", segmented},
    {"alltoallv_skips_empty_blocks", skip_empty},
    {"every_algorithm_every_shape", every_shape},
    {"shapes_of_4096_ranks", shapes_of_4096},
};

/* test_coll OP [ALGORITHM]: the runs of that op (and algorithm) alone, on
 * every shape and at 4096 ranks; otherwise case names as in every test */
int main(int argc, char **argv)
{
    for (int op = 0; argc > 1 && op < TORUS_COLL_NCOLL; op++)
        if (!strcmp(argv[1], torus_coll_op_name((torus_coll_op)op))) {
            static char every[] = "every_algorithm_every_shape", big[] = "shapes_of_4096_ranks";
            char *sel[] = {argv[0], every, big};
            only_op = argv[1];
            only_alg = argc > 2 ? argv[2] : NULL;
            return TEST_RUN(3, sel, "test_coll", cases);
        }
    return TEST_RUN(argc, argv, "test_coll", cases);
}

