/* validate.c - collbench --validate: every algorithm's result against the
 * MPI library's own collective on the same data, decided per size in one
 * collective. */
#include "collbench.h"

int cb_check_add(checks *ck, const char *what)
{
    int k = ck->n < SIZE_CHECKS - 1 ? ck->n++ : ck->n - 1;
    snprintf(ck->what[k], sizeof ck->what[k], "%s", what);
    ck->why[k][0] = 0;
    ck->skip[k] = 0;
    return k;
}

/* Rank 0 prints one line per failed check, naming the first wrong rank
 * and how many ranks were wrong.  Empties ck. */
void cb_decide(bench *b, checks *ck)
{
    if (!ck->n)
        return;
    int *bad = ck->bad, *nbad = ck->nbad;
    for (int k = 0; k < ck->n; k++)
        bad[k] = !ck->skip[k] && ck->why[k][0];
    KIT_MPI_CHECK(MPI_Allreduce(bad, nbad, ck->n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < ck->n; k++) {
        if (ck->skip[k])
            continue;
        b->ri->checks++;
        if (!nbad[k])
            continue;
        b->ri->failures++;
        int first = bad[k] ? b->me : b->n;
        KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        char line[256];
        snprintf(line, sizeof line, "%s", ck->why[k]);
        if (first != 0) {
            if (b->me == first)
                KIT_MPI_CHECK(MPI_Send(line, (int)sizeof line, MPI_CHAR, 0, 77, MPI_COMM_WORLD));
            else if (!b->me)
                KIT_MPI_CHECK(MPI_Recv(line, (int)sizeof line, MPI_CHAR, first, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (!b->me)
            fprintf(stderr, "collbench: FAILED %s: %s (%d of %d ranks wrong)\n", ck->what[k], line, nbad[k], b->n);
    }
    ck->n = 0;
}

/* Whether the forced algorithm really ran ("" = nothing ran: one rank or
 * nothing to move, which is right for any algorithm). */
static int ran_as_asked(torus_coll *c, int kind, const char *alg)
{
    const char *last = torus_coll_last(c, cb_kind_op[kind]);
    return !alg || !*last || !strcmp(last, alg);
}

/* A reference made with the MPI library must fit: on failure every rank
 * leaves with exit 3, rank 0 saying what did not fit. */
void cb_need_memory(bench *b, int ok, const char *what, size_t bytes)
{
    if (!torus_all_ok(MPI_COMM_WORLD, ok)) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory for the %s reference at %zu bytes\n", what, bytes);
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
}

/* Barrier: nobody leaves before everybody has entered.  Each rank adds 1
 * to a counter at rank 0 (completed at the target by the flush) before
 * entering; after leaving it reads the counter atomically: a correct
 * barrier shows every rank's increment of this round.  A late rank (the
 * last, the first, a middle one) makes a barrier that lets ranks out early
 * fail visibly. */
static void validate_barrier(bench *b, checks *ck, torus_coll *c, const char *alg, const char *label)
{
    int n = b->n;
    uint64_t one = 1, zero = 0, old = 0, got = 0;
    char what[160];
    snprintf(what, sizeof what, "barrier '%s'", label);
    int k = cb_check_add(ck, what);
    KIT_MPI_CHECK(MPI_Win_lock_all(0, b->win));
    if (!b->me) {
        KIT_MPI_CHECK(MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, 0, 0, MPI_REPLACE, b->win));
        KIT_MPI_CHECK(MPI_Win_flush(0, b->win));
    }
    KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const int late[3] = {n - 1, 0, n / 2};
    for (int round = 1; round <= 3; round++) {
        if (b->me == late[round - 1]) {
            struct timespec ts = {0, 2000000}; /* 2 ms */
            nanosleep(&ts, NULL);
        }
        KIT_MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 0, 0, MPI_SUM, b->win));
        KIT_MPI_CHECK(MPI_Win_flush(0, b->win));
        int rc = torus_coll_barrier(c);
        if (rc)
            cb_call_failed(b, c, K_BARRIER, 0, rc);
        KIT_MPI_CHECK(MPI_Fetch_and_op(&one, &got, MPI_UINT64_T, 0, 0, MPI_NO_OP, b->win)); /* an atomic read */
        KIT_MPI_CHECK(MPI_Win_flush(0, b->win));
        if (got < (uint64_t)round * (uint64_t)n && !ck->why[k][0])
            snprintf(ck->why[k], sizeof ck->why[k],
                     "rank %d left barrier %d when %llu of %d ranks had entered (rank %d late)", b->me, round,
                     (unsigned long long)(got - (uint64_t)(round - 1) * (uint64_t)n), n, late[round - 1]);
        ck->skip[k] |= !ran_as_asked(c, K_BARRIER, alg);
        KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* everyone has read before the next round adds */
    }
    KIT_MPI_CHECK(MPI_Win_unlock_all(b->win));
}


void cb_vref_free(vref *v)
{
    free(v->bc[0]), free(v->bc[1]), free(v->a2a[0]), free(v->a2a[1]);
    for (int i = 0; i < AR_CASES; i++)
        free(v->ar[i]);
    memset(v, 0, sizeof *v);
    v->bytes = (size_t)-1;
}

static unsigned char bcast_byte(size_t bytes, int root, size_t i)
{
    return (unsigned char)kit_mix64(((uint64_t)bytes << 20) ^ ((uint64_t)root << 8) ^ kit_mix64(i));
}

static void validate_bcast(bench *b, vref *v, checks *ck, torus_coll *c, const char *alg, const char *label,
                           size_t bytes)
{
    int roots[2] = {0, b->n - 1}, nroots = b->n > 1 ? 2 : 1;
    if (v->bytes != bytes) {
        cb_vref_free(v);
        v->bytes = bytes;
        for (int r = 0; r < nroots; r++) {
            v->bc[r] = malloc(bytes);
            cb_need_memory(b, v->bc[r] != NULL, "bcast", bytes);
            for (size_t i = 0; i < bytes; i++)
                v->bc[r][i] = b->me == roots[r] ? bcast_byte(bytes, roots[r], i) : 0;
            KIT_MPI_CHECK(MPI_Bcast(v->bc[r], (int)bytes, MPI_BYTE, roots[r], MPI_COMM_WORLD));
        }
    }
    unsigned char *got = b->rbuf;
    for (int r = 0; r < nroots; r++) {
        char what[160];
        snprintf(what, sizeof what, "bcast '%s' %zu bytes root %d", label, bytes, roots[r]);
        int k = cb_check_add(ck, what);
        for (size_t i = 0; i < bytes; i++)
            got[i] = b->me == roots[r] ? bcast_byte(bytes, roots[r], i) : 0xEE;
        int rc = torus_coll_bcast(c, got, bytes, roots[r]);
        if (rc)
            cb_call_failed(b, c, K_BCAST, bytes, rc);
        ck->skip[k] = !ran_as_asked(c, K_BCAST, alg);
        for (size_t i = 0; i < bytes; i++)
            if (got[i] != v->bc[r][i]) {
                snprintf(ck->why[k], sizeof ck->why[k], "rank %d byte %zu: 0x%02x, MPI_Bcast gave 0x%02x", b->me, i,
                         got[i], v->bc[r][i]);
                break;
            }
    }
}

/* Element i of rank r's allreduce input for case c: integers over their
 * whole range for uint64 (sums wrap, as unsigned arithmetic does), within
 * +-2^52 for int64 (no signed overflow, which MPI leaves undefined), whole
 * numbers within +-1e6 for doubles so that any order of summation is
 * exact. */
static uint64_t ar_elem(int r, size_t i, torus_dtype t, int c)
{
    uint64_t x = kit_mix64(((uint64_t)c << 48) ^ ((uint64_t)r << 32) ^ i);
    if (t == TORUS_INT64) {
        int64_t s = (int64_t)(x % (1ULL << 53)) - (int64_t)(1ULL << 52);
        memcpy(&x, &s, 8);
    } else if (t == TORUS_DOUBLE) {
        double d = (double)(int64_t)(x % 2000001) - 1000000.0;
        memcpy(&x, &d, 8);
    }
    return x;
}

/* acc = acc op x, the rank-order reference: doubles (held as bits) with
 * sum, min, max; uint64 with min, max */
static void fold(uint64_t *acc, uint64_t x, torus_dtype t, torus_op op)
{
    if (t == TORUS_UINT64) {
        *acc = op == TORUS_OP_MIN ? (x < *acc ? x : *acc) : (x > *acc ? x : *acc);
        return;
    }
    double a, y;
    memcpy(&a, acc, 8);
    memcpy(&y, &x, 8);
    a = op == TORUS_OP_SUM ? a + y : op == TORUS_OP_MIN ? (y < a ? y : a) : (y > a ? y : a);
    memcpy(acc, &a, 8);
}

/* Whether the MPI library's MPI_MIN/MPI_MAX on MPI_UINT64_T compare as
 * signed numbers (MPICH 4.0.2: pmodels/mpich#6083): then those references
 * come from MPI_Allgather instead, so that collbench does not blame the
 * algorithms for the library's error.  Collective. */
int cb_u64_minmax_broken(void)
{
    int me;
    KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    uint64_t v[2] = {me ? UINT64_MAX : 0, me ? 0 : UINT64_MAX}, mn[2], mx[2];
    KIT_MPI_CHECK(MPI_Allreduce(v, mn, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Allreduce(v, mx, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
    int n;
    KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    return n > 1 && (mn[0] != 0 || mn[1] != 0 || mx[0] != UINT64_MAX || mx[1] != UINT64_MAX);
}

/* Whether case (t, op) is checked against a rank-order fold of
 * everyone's inputs (MPI_Allgather) rather than MPI_Allreduce: doubles
 * always (the library's fixed order), uint64 min/max when the library
 * gets them wrong. */
static int gathered_ref(const bench *b, torus_dtype t, torus_op op)
{
    return t == TORUS_DOUBLE || (t == TORUS_UINT64 && (op == TORUS_OP_MIN || op == TORUS_OP_MAX) &&
                                 b->u64_minmax_broken);
}

/* Case c of the 11: uint64 and int64 with sum, min, max, bxor; doubles
 * with sum, min, max. */
static void ar_case(int c, torus_dtype *t, torus_op *op)
{
    *t = (torus_dtype)(c / 4);
    *op = (torus_op)(c % 4);
}

static void validate_allreduce(bench *b, vref *v, checks *ck, torus_coll *c, const char *alg, const char *label,
                               size_t bytes)
{
    static const char *const tname[] = {"uint64", "int64", "double"};
    static const char *const oname[] = {"sum", "min", "max", "bxor"};
    static const MPI_Op mop[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_BXOR};
    size_t count = bytes / 8;
    uint64_t *in = (uint64_t *)(void *)b->sbuf, *got = (uint64_t *)(void *)b->rbuf;
    if (v->bytes != bytes) {
        cb_vref_free(v);
        v->bytes = bytes;
        /* the rank-order cases: every rank's inputs of all of them in one
         * MPI_Allgather, rank r's at all + r * ng * count */
        int ng = 0, gi[AR_CASES];
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            gi[cs] = gathered_ref(b, t, op) ? ng++ : -1;
        }
        size_t per = (size_t)ng * count;
        uint64_t *mine = malloc(per * 8 + 8), *all = malloc(per * 8 * (size_t)b->n + 8);
        cb_need_memory(b, mine && all, "allreduce", bytes);
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            for (size_t i = 0; gi[cs] >= 0 && i < count; i++)
                mine[(size_t)gi[cs] * count + i] = ar_elem(b->me, i, t, cs);
        }
        KIT_MPI_CHECK(MPI_Allgather(mine, (int)per, MPI_UINT64_T, all, (int)per, MPI_UINT64_T, MPI_COMM_WORLD));
        for (int cs = 0; cs < AR_CASES; cs++) {
            torus_dtype t;
            torus_op op;
            ar_case(cs, &t, &op);
            v->ar[cs] = malloc(count * 8 + 8);
            cb_need_memory(b, v->ar[cs] != NULL, "allreduce", bytes);
            if (gi[cs] >= 0) {
                /* the fixed order: ranks 0, 1, ..., P-1 */
                const uint64_t *x = all + (size_t)gi[cs] * count;
                for (size_t i = 0; i < count; i++) {
                    v->ar[cs][i] = x[i];
                    for (int r = 1; r < b->n; r++)
                        fold(&v->ar[cs][i], x[(size_t)r * per + i], t, op);
                }
            } else {
                for (size_t i = 0; i < count; i++)
                    in[i] = ar_elem(b->me, i, t, cs);
                KIT_MPI_CHECK(MPI_Allreduce(in, v->ar[cs], (int)count, t == TORUS_UINT64 ? MPI_UINT64_T : MPI_INT64_T,
                                     mop[op], MPI_COMM_WORLD));
            }
        }
        free(mine);
        free(all);
    }
    for (int cs = 0; cs < AR_CASES; cs++) {
        torus_dtype t;
        torus_op op;
        ar_case(cs, &t, &op);
        char what[160];
        snprintf(what, sizeof what, "allreduce '%s' %zu bytes %s %s", label, bytes, tname[t], oname[op]);
        int k = cb_check_add(ck, what);
        for (size_t i = 0; i < count; i++)
            in[i] = ar_elem(b->me, i, t, cs);
        /* bxor in place, as applications call it too */
        int in_place = op == TORUS_OP_BXOR;
        if (in_place)
            memcpy(got, in, count * 8);
        else
            memset(got, 0xA5, count * 8);
        int rc = torus_coll_allreduce(c, in_place ? got : in, got, count, t, op);
        if (rc)
            cb_call_failed(b, c, K_ALLREDUCE, bytes, rc);
        ck->skip[k] = !ran_as_asked(c, K_ALLREDUCE, alg);
        for (size_t i = 0; i < count; i++)
            if (got[i] != v->ar[cs][i]) {
                snprintf(ck->why[k], sizeof ck->why[k], "rank %d element %zu of %zu: 0x%016llx, %s gave 0x%016llx",
                         b->me, i, count, (unsigned long long)got[i],
                         gathered_ref(b, t, op) ? "the rank-order reference" : "MPI_Allreduce",
                         (unsigned long long)v->ar[cs][i]);
                break;
            }
    }
    /* the timing data again: ones */
    for (size_t i = 0; i < count; i++) {
        double one = 1.0;
        memcpy(&in[i], &one, 8);
    }
}

static unsigned char a2a_byte(int from, int to, size_t i, size_t bytes)
{
    return (unsigned char)kit_mix64(((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ (bytes << 4) ^ kit_mix64(i));
}

/* Uneven counts for the v call: 0 .. bytes, some zero. */
size_t cb_uneven(int from, int to, size_t bytes)
{
    uint64_t h = kit_mix64((uint64_t)from * 131u + (uint64_t)to);
    return h % 5 == 0 ? 0 : (size_t)(h % (bytes + 1));
}

/* Counts and displacements of the check: every block `bytes` long and
 * packed, or (uneven) every pair its own count with gaps between blocks,
 * which must stay untouched.  Returns the receive buffer's length. */
static size_t a2a_layout(int me, int n, size_t bytes, int uneven_counts, size_t *sc, size_t *sd, size_t *rc,
                         size_t *rd, int *isc)
{
    size_t stot = 0, rtot = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = uneven_counts ? cb_uneven(me, j, bytes) : bytes;
        rc[j] = uneven_counts ? cb_uneven(j, me, bytes) : bytes;
        sd[j] = stot;
        rd[j] = rtot;
        stot += sc[j] + (uneven_counts ? (size_t)(j % 3) : 0);
        rtot += rc[j] + (uneven_counts ? (size_t)(j % 2) : 0);
        isc[j] = (int)sc[j], isc[n + j] = (int)sd[j], isc[2 * n + j] = (int)rc[j], isc[3 * n + j] = (int)rd[j];
    }
    return rtot;
}

static void a2a_fill(bench *b, const size_t *sc, const size_t *sd, size_t bytes)
{
    size_t end = sd[b->n - 1] + sc[b->n - 1] + 2;
    memset(b->sbuf, 0xAB, end);
    for (int j = 0; j < b->n; j++)
        for (size_t i = 0; i < sc[j]; i++)
            b->sbuf[sd[j] + i] = a2a_byte(b->me, j, i, bytes);
}

/* alltoall, and alltoallv with even and uneven counts, against
 * MPI_Alltoallv on the same counts. */
static void validate_a2a(bench *b, vref *v, checks *ck, int kind, torus_coll *c, const char *alg, const char *label,
                         size_t bytes)
{
    int n = b->n, variants = kind == K_ALLTOALLV ? 2 : 1;
    size_t *sc = malloc(4 * (size_t)n * sizeof *sc);
    int *isc = malloc(4 * (size_t)n * sizeof *isc);
    cb_need_memory(b, sc && isc, "alltoall counts", bytes);
    size_t *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
    if (v->bytes != bytes || v->kind != kind) {
        cb_vref_free(v);
        v->bytes = bytes;
        v->kind = kind;
        for (int u = 0; u < variants; u++) {
            size_t rtot = a2a_layout(b->me, n, bytes, u, sc, sd, rc, rd, isc);
            v->a2a[u] = malloc(rtot + 1);
            cb_need_memory(b, v->a2a[u] != NULL, cb_kind_name[kind], bytes);
            memset(v->a2a[u], 0xCD, rtot + 1);
            a2a_fill(b, sc, sd, bytes);
            KIT_MPI_CHECK(MPI_Alltoallv(b->sbuf, isc, isc + n, MPI_BYTE, v->a2a[u], isc + 2 * n, isc + 3 * n, MPI_BYTE,
                                 MPI_COMM_WORLD));
        }
    }
    for (int u = 0; u < variants; u++) {
        size_t rtot = a2a_layout(b->me, n, bytes, u, sc, sd, rc, rd, isc);
        char what[160];
        snprintf(what, sizeof what, "%s '%s' %zu bytes%s", cb_kind_name[kind], label, bytes, u ? " uneven counts" : "");
        int k = cb_check_add(ck, what);
        a2a_fill(b, sc, sd, bytes);
        unsigned char *got = b->rbuf;
        memset(got, 0xCD, rtot + 1);
        int rcode = kind == K_ALLTOALL ? torus_coll_alltoall(c, b->sbuf, got, bytes)
                                       : torus_coll_alltoallv(c, b->sbuf, sc, sd, got, rc, rd);
        if (rcode)
            cb_call_failed(b, c, kind, bytes, rcode);
        ck->skip[k] = !ran_as_asked(c, kind, alg);
        for (size_t i = 0; i < rtot; i++)
            if (got[i] != v->a2a[u][i]) {
                int from = 0;
                while (from + 1 < n && rd[from + 1] <= i)
                    from++;
                snprintf(ck->why[k], sizeof ck->why[k],
                         "rank %d byte %zu (%s from rank %d): 0x%02x, MPI_Alltoallv gave 0x%02x", b->me, i,
                         i < rd[from] + rc[from] ? "block" : "gap after the block", from, got[i], v->a2a[u][i]);
                break;
            }
    }
    free(sc);
    free(isc);
}

/* Checks algorithm `label` (context c; alg = the forced name, NULL for
 * auto) at one size against the MPI library's references in v; the
 * verdicts are added to ck (decided once per size). */
void cb_validate(bench *b, vref *v, checks *ck, int kind, torus_coll *c, const char *alg, const char *label,
              size_t bytes)
{
    switch (kind) {
    case K_BARRIER:
        validate_barrier(b, ck, c, alg, label);
        break;
    case K_BCAST:
        validate_bcast(b, v, ck, c, alg, label, bytes);
        break;
    case K_ALLREDUCE:
        validate_allreduce(b, v, ck, c, alg, label, bytes);
        break;
    default:
        validate_a2a(b, v, ck, kind, c, alg, label, bytes);
        break;
    }
}
