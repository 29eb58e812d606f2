/* mpi_time.c - collbench's MPI mode: the OSU timing loop of one call,
 * the buffers, the alpha-beta-gamma calibration and one op over every
 * size and algorithm. */
#include "collbench.h"

/* A torus call that failed is a broken algorithm or out of memory: the
 * other ranks may be waiting inside it, so the job ends here. */
void cb_call_failed(const bench *b, torus_coll *c, int kind, size_t bytes, int rc)
{
    fprintf(stderr, "collbench: %s '%s' failed at %zu bytes on rank %d: %s\n", cb_kind_name[kind],
            torus_coll_last(c, cb_kind_op[kind]), bytes, b->me, torus_coll_error(c));
    MPI_Abort(MPI_COMM_WORLD, rc == TORUS_COLL_ENOMEM ? KIT_EXIT_RESOURCE : KIT_EXIT_VERIFY);
}

/* One call of kind at bytes: through context c, or the MPI library's own
 * collective when c is NULL.  Timing data: root 0, doubles summed. */
static void one_call(bench *b, int kind, torus_coll *c, size_t bytes)
{
    int rc = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (kind) {
    case K_BARRIER:
        if (c)
            rc = torus_coll_barrier(c);
        else
            KIT_MPI_CHECK(MPI_Barrier(w));
        break;
    case K_BCAST:
        if (c)
            rc = torus_coll_bcast(c, b->sbuf, bytes, 0);
        else
            KIT_MPI_CHECK(MPI_Bcast(b->sbuf, (int)bytes, MPI_BYTE, 0, w));
        break;
    case K_ALLREDUCE:
        if (c)
            rc = torus_coll_allreduce(c, b->sbuf, b->rbuf, bytes / 8, TORUS_DOUBLE, TORUS_OP_SUM);
        else
            KIT_MPI_CHECK(MPI_Allreduce(b->sbuf, b->rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, w));
        break;
    case K_ALLTOALL:
        if (c)
            rc = torus_coll_alltoall(c, b->sbuf, b->rbuf, bytes);
        else
            KIT_MPI_CHECK(MPI_Alltoall(b->sbuf, (int)bytes, MPI_BYTE, b->rbuf, (int)bytes, MPI_BYTE, w));
        break;
    default:
        if (c)
            rc = torus_coll_alltoallv(c, b->sbuf, b->cnt, b->dis, b->rbuf, b->cnt, b->dis);
        else
            KIT_MPI_CHECK(MPI_Alltoallv(b->sbuf, b->icnt, b->idis, MPI_BYTE, b->rbuf, b->icnt, b->idis, MPI_BYTE, w));
        break;
    }
    if (rc)
        cb_call_failed(b, c, kind, bytes, rc);
}

/* The OSU loop; returns this rank's mean seconds per call.  (Without
 * warm-up calls the first iteration's barrier is the opening one.) */
static double measure(bench *b, int kind, torus_coll *c, size_t bytes, int iters, int warmup)
{
    if (warmup)
        KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < warmup; i++)
        one_call(b, kind, c, bytes);
    double t = 0;
    for (int i = 0; i < iters; i++) {
        KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        one_call(b, kind, c, bytes);
        t += MPI_Wtime() - t0;
    }
    return t / iters;
}

/* Buffers for the largest size of kind (uniform counts filled per size).
 * Agreed on every rank; on failure rank 0 says so and all exit 3. */
static int alloc_buffers(bench *b, int kind, size_t maxbytes)
{
    size_t per = is_a2a(kind) ? maxbytes * (size_t)b->n : maxbytes;
    /* validation of alltoallv adds gaps of up to 2 bytes between blocks */
    per += 4 * (size_t)b->n + 16;
    b->sbuf = malloc(per);
    b->rbuf = malloc(per);
    b->cnt = malloc(2 * (size_t)b->n * sizeof *b->cnt);
    b->icnt = malloc(2 * (size_t)b->n * sizeof *b->icnt);
    int ok = b->sbuf && b->rbuf && b->cnt && b->icnt;
    if (!torus_all_ok(MPI_COMM_WORLD, ok)) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory for %s buffers of 2 x %zu bytes per rank\n", cb_kind_name[kind], per);
        return -1;
    }
    b->dis = b->cnt + b->n;
    b->idis = b->icnt + b->n;
    /* doubles that stay ordinary numbers under summation (no NaN, no
     * denormals that would slow one side down) */
    for (size_t i = 0; i + 8 <= per; i += 8) {
        double one = 1.0;
        memcpy(b->sbuf + i, &one, 8);
    }
    memset(b->rbuf, 0, per);
    return 0;
}

static void free_buffers(bench *b)
{
    free(b->sbuf), free(b->rbuf), free(b->cnt), free(b->icnt);
    b->sbuf = b->rbuf = NULL;
    b->cnt = NULL;
    b->icnt = NULL;
}

static void uniform_counts(bench *b, size_t bytes)
{
    for (int j = 0; j < b->n; j++) {
        b->cnt[j] = bytes;
        b->dis[j] = (size_t)j * bytes;
        b->icnt[j] = (int)bytes;
        b->idis[j] = (int)((size_t)j * bytes);
    }
}

/* ---- calibration (MPI mode) -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cb_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Half round trips (or, alone, one message to itself) of `bytes` between
 * ranks 0 and 1: the median of reps after a few untimed. */
static double pingpong(int me, int n, char *buf, int bytes, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t), res; /* rank 1 times nothing */
    if (!t) {
        fprintf(stderr, "collbench: out of memory for the calibration\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    for (int rep = -5; rep < reps; rep++) {
        double t0 = MPI_Wtime();
        if (n == 1) {
            MPI_Request rq;
            KIT_MPI_CHECK(MPI_Irecv(buf + bytes, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq));
            KIT_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
            KIT_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (me == 0) {
            KIT_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
            KIT_MPI_CHECK(MPI_Recv(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            KIT_MPI_CHECK(MPI_Recv(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            KIT_MPI_CHECK(MPI_Send(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
        }
        if (rep >= 0)
            t[rep] = (MPI_Wtime() - t0) / (n == 1 ? 1 : 2);
    }
    res = cb_median(t, reps);
    free(t);
    return res;
}

/* gamma: seconds per byte of the library's double sum (dst = a + b), on
 * two 1 MiB vectors, median of 20. */
static double time_reduction(void)
{
    enum { N = (1 << 20) / 8, REPS = 20 };
    double *a = malloc(N * sizeof *a), *bb = malloc(N * sizeof *bb), t[REPS], sink = 0;
    if (!a || !bb) {
        fprintf(stderr, "collbench: out of memory for the calibration\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    for (int i = 0; i < N; i++)
        a[i] = i, bb[i] = 1.0;
    for (int rep = -2; rep < REPS; rep++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < N; i++)
            a[i] = a[i] + bb[i];
        double dt = MPI_Wtime() - t0;
        sink += a[rep + 2];
        if (rep >= 0)
            t[rep] = dt;
    }
    volatile double keep = sink; /* the loop's result is used */
    (void)keep;
    free(a), free(bb);
    return cb_median(t, REPS) / (double)(N * 8);
}

/* alpha, beta, gamma on every rank.  Ranks 0 and 1 ping-pong while the
 * others sleep (so that on an oversubscribed machine they do not steal
 * the cores the ping-pong needs); rank 0 then times the reduction. */
void cb_calibrate(bench *b)
{
    run_info *ri = b->ri;
    double cal[3] = {0, 0, 0};
    int active = b->me < 2;
    MPI_Request rq;
    if (!active) {
        kit_mpi_sleepy_barrier(MPI_COMM_WORLD);
    } else {
        enum { BIG = 1 << 20 };
        char *buf = calloc(2 * BIG, 1);
        if (!buf) {
            fprintf(stderr, "collbench: out of memory for the calibration\n");
            MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
        }
        double t8 = pingpong(b->me, b->n, buf, 8, 200);
        double tb = pingpong(b->me, b->n, buf, BIG, 20);
        free(buf);
        cal[0] = t8;
        cal[1] = tb > t8 ? (tb - t8) / (BIG - 8) : 0;
        if (!b->me)
            cal[2] = time_reduction();
        KIT_MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        KIT_MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    KIT_MPI_CHECK(MPI_Bcast(cal, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    ri->alpha = cal[0];
    ri->beta = cal[1];
    ri->gamma = cal[2];
    snprintf(ri->calib, sizeof ri->calib,
             "%s; gamma: rank 0 summing two 1 MiB vectors of doubles",
             b->n > 1 ? "alpha: half round trip of 8 bytes between ranks 0 and 1, beta: from a 1 MiB ping-pong, "
                        "medians"
                      : "one rank: alpha and beta from messages to itself (no network), medians");
}

/* ---- one op over every size and algorithm (MPI mode) ----------------------- */

typedef struct entry {
    const char *name;  /* auto, mpi or an algorithm */
    torus_coll *c;     /* NULL: the MPI library */
    int idx;           /* index among the op's algorithms, -1 for auto/mpi */
} entry;

double cb_ratio_of(double avg, double mpi_avg)
{
    return mpi_avg > 0 ? avg / mpi_avg : -1;
}

/* Rank 0: one row from every rank's mean seconds per call (all[n]). */
static void fill_row(const bench *b, row *r, const entry *e, const double *all, size_t bytes)
{
    double mn = all[0], mx = all[0], sum = 0;
    for (int k = 0; k < b->n; k++) {
        mn = all[k] < mn ? all[k] : mn;
        mx = all[k] > mx ? all[k] : mx;
        sum += all[k];
    }
    r->min_us = mn * 1e6;
    r->max_us = mx * 1e6;
    r->avg_us = sum / b->n * 1e6;
    double pay = cb_payload(r->kind, bytes, b->n);
    r->mbs = pay > 0 && r->avg_us > 0 ? pay / r->avg_us : -1;
    double pr = e->c ? torus_coll_predict(b->c_auto, cb_kind_op[r->kind], r->chosen, bytes, b->ri->alpha, b->ri->beta,
                                          b->ri->gamma)
                     : -1;
    r->pred_us = pr >= 0 ? pr * 1e6 : -1;
}

/* Rank 0, one size: every rank's means (all, ne per rank) into rows,
 * printed auto, the algorithms, mpi last, and kept for the files. */
static void report_size(bench *b, const entry *e, int ne, row *rows, const int *have, const double *all,
                        size_t bytes)
{
    double mpi_avg = -1, *one = malloc((size_t)b->n * sizeof *one);
    if (!one) {
        fprintf(stderr, "collbench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    for (int i = 0; i < ne; i++) {
        if (!have[i])
            continue;
        for (int k = 0; k < b->n; k++)
            one[k] = all[(size_t)k * (size_t)ne + (size_t)i];
        fill_row(b, &rows[i], &e[i], one, bytes);
        if (!e[i].c)
            mpi_avg = rows[i].avg_us;
    }
    free(one);
    /* printed: auto, the algorithms, mpi last */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ne; i++) {
            if (!have[i] || (pass == 0) != (e[i].c != NULL))
                continue;
            rows[i].ratio = e[i].c ? cb_ratio_of(rows[i].avg_us, mpi_avg) : -1;
            cb_print_row(&rows[i]);
            if (cb_add_row(b->ri, &rows[i])) {
                fprintf(stderr, "collbench: out of memory for the results\n");
                MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
            }
        }
    kit_stdout_flush();
}

/* The bytes the torus selection reads for one_call's call at `bytes`. */
static size_t lib_bytes(int kind, size_t bytes)
{
    switch (kind) {
    case K_BARRIER:
    case K_ALLTOALLV:
        return 0;
    case K_ALLREDUCE:
        return bytes / 8 * 8;
    default:
        return bytes;
    }
}

/* One op at one size: every entry timed in rounds (each visits every
 * algorithm with a share of the calls), validated in the first, then one
 * gather and one verdict for the whole size.  all: rank 0's ne doubles
 * per rank. */
static void run_size_mpi(bench *b, int kind, const entry *e, int ne, size_t bytes, skips *sk, checks *ck, vref *vr,
                         double *all)
{
    const opts *o = b->o;
    torus_coll_op op = cb_kind_op[kind];
    if (is_a2a(kind))
        uniform_counts(b, bytes);
    int it = cb_iters_for(o, bytes), wu = cb_warmup_for(o, bytes);
    /* rounds: each visits every algorithm with a share of the calls */
    int nr = (int)o->rounds < it ? (int)o->rounds : it;
    int it_r = (it + nr - 1) / nr;
    row rows[MAX_ALGS + 2];
    int have[MAX_ALGS + 2] = {0};
    double mean[MAX_ALGS + 2] = {0};
    static double rmean[MAX_ALGS + 2][MAX_ROUNDS];
    for (int i = 0; i < ne; i++) {
        row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->kind = kind;
        r->size = bytes;
        r->iters = it_r * nr;
        r->warmup = wu;
        snprintf(r->alg, sizeof r->alg, "%s", e[i].name);
    }
    for (int round = 0; round < nr; round++)
        for (int i = 0; i < ne; i++) {
            row *r = &rows[i];
            if (round > 0 && !have[i])
                continue;
            if (e[i].idx >= 0) {
                if (round == 0 && sk->fell_back[e[i].idx])
                    continue;
                if (round == 0 && torus_coll_predict(b->c_auto, op, e[i].name, bytes, 1, 1, 1) < 0) {
                    cb_skip_cannot(sk, e[i].idx, bytes);
                    continue;
                }
                if (torus_coll_force(b->c_named, op, e[i].name)) {
                    if (!b->me)
                        fprintf(stderr, "collbench: %s\n", torus_coll_error(b->c_named));
                    MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_USAGE);
                }
            }
            /* auto under a table row that says mpi runs the library's
             * call, as the MPI adapter would (same byte figure as the
             * torus selection: the vector, the uniform block, 0 for
             * alltoallv) */
            torus_coll *c = e[i].c;
            if (c == b->c_auto && e[i].idx < 0 &&
                torus_coll_table_wants_library(c, op, lib_bytes(kind, bytes), kind == K_ALLTOALL))
                c = NULL;
            /* the first round warms up fully, later ones with one call
             * (the other algorithms ran in between) */
            rmean[i][round] = measure(b, kind, c, bytes, it_r, round == 0 ? wu : wu > 0);
            if (round > 0)
                continue;
            if (c) {
                const char *last = torus_coll_last(e[i].c, op);
                if (e[i].idx >= 0 && *last && strcmp(last, e[i].name)) {
                    cb_skip_fell_back(sk, e[i].idx, !b->me, kind, e[i].name, last, bytes);
                    continue;
                }
                snprintf(r->chosen, sizeof r->chosen, "%s", *last ? last : torus_coll_choice(e[i].c, op, bytes));
                if (o->validate)
                    cb_validate(b, vr, ck, kind, e[i].c, e[i].idx >= 0 ? e[i].name : NULL, e[i].name, bytes);
            } else {
                snprintf(r->chosen, sizeof r->chosen, "mpi");
            }
            have[i] = 1;
        }
    for (int i = 0; i < ne; i++)
        if (have[i])
            mean[i] = cb_median(rmean[i], nr);
    /* one gather and one verdict for the whole size */
    KIT_MPI_CHECK(MPI_Gather(mean, ne, MPI_DOUBLE, all, ne, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (o->validate)
        cb_decide(b, ck);
    if (!b->me)
        report_size(b, e, ne, rows, have, all, bytes);
}

void cb_run_op_mpi(bench *b, int kind)
{
    const opts *o = b->o;
    torus_coll_op op = cb_kind_op[kind];
    const char *const *algs = torus_coll_algorithms(op);
    int nalg = 0;
    while (algs[nalg])
        nalg++;
    /* Order of measurement: mpi first, so every row can carry its ratio. */
    entry e[MAX_ALGS + 2];
    int ne = 0;
    if (cb_wanted(o, "mpi"))
        e[ne++] = (entry){"mpi", NULL, -1};
    /* an op with no algorithm registered yet has nothing for auto to run */
    if (nalg && cb_wanted(o, "auto"))
        e[ne++] = (entry){"auto", b->c_auto, -1};
    for (int a = 0; a < nalg && a < MAX_ALGS; a++)
        if (cb_wanted(o, algs[a]))
            e[ne++] = (entry){algs[a], b->c_named, a};
    if (!b->me) {
        cb_print_header(kind);
        if (!nalg)
            printf("# (no %s algorithm registered yet: only the MPI library's is timed)\n", torus_coll_op_name(op));
        if (!ne)
            printf("# (no algorithm of --algorithms applies to %s)\n", cb_kind_name[kind]);
    }
    if (!ne)
        return;
    size_t sizes1[1] = {0};
    const size_t *sizes = kind == K_BARRIER ? sizes1 : o->sizes;
    int nsizes = kind == K_BARRIER ? 1 : o->nsizes;
    size_t maxb = sizes[nsizes - 1];
    if (kind == K_ALLREDUCE && maxb < 8)
        maxb = 8;
    if (alloc_buffers(b, kind, maxb)) {
        MPI_Finalize();
        exit(KIT_EXIT_RESOURCE);
    }
    skips *sk = calloc(1, sizeof *sk);
    checks *ck = o->validate ? calloc(1, sizeof *ck) : NULL;
    double *all = !b->me ? malloc((size_t)b->n * (size_t)ne * sizeof *all) : NULL;
    if (!torus_all_ok(MPI_COMM_WORLD, sk && (ck || !o->validate) && (all || b->me))) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    vref vr;
    memset(&vr, 0, sizeof vr);
    cb_vref_free(&vr);
    size_t prev_bytes = (size_t)-1;
    for (int si = 0; si < nsizes; si++) {
        size_t bytes = sizes[si];
        /* allreduce moves whole doubles: the size is rounded down to them */
        if (kind == K_ALLREDUCE)
            bytes = bytes < 8 ? 8 : bytes / 8 * 8;
        if (bytes == prev_bytes)
            continue;
        prev_bytes = bytes;
        run_size_mpi(b, kind, e, ne, bytes, sk, ck, &vr, all);
    }
    if (!b->me)
        cb_print_skips(kind, algs, nalg, sk);
    free(sk);
    free(ck);
    free(all);
    cb_vref_free(&vr);
    free_buffers(b);
}

/* Bytes a rank holds at once for the largest size: the send and receive
 * buffers (alloc_buffers: alltoall(v) a block per rank, the multisend
 * patterns a block per destination, at most max(8, P, --k)) and, with
 * --validate, the references made with the MPI library, about as much
 * again.  In doubles: no product wraps. */
static double buffer_need(const opts *o, int n)
{
    double maxs = (double)o->sizes[o->nsizes - 1], need = 0;
    for (int k = 0; k < NKINDS; k++)
        if (o->kinds[k]) {
            double per = (is_a2a(k) ? maxs * n : maxs) + 4.0 * n + 16;
            need = 2 * per > need ? 2 * per : need;
        }
    if (o->pats[0] || o->pats[1] || o->pats[2]) {
        double blocks = n > 8 ? n : 8;
        blocks = (double)o->k > blocks ? (double)o->k : blocks;
        need = 2 * maxs * blocks > need ? 2 * maxs * blocks : need;
    }
    return o->validate ? 2 * need : need;
}

/* The collective contexts over MPI_COMM_WORLD: the map from --dims, the
 * node of every rank, two message-only transports (one per context, so the
 * two never share tags).  Returns -1 to go on, else an exit code. */
/* TORUS_COLL_TABLE: every rank must pick the same algorithm, so the
 * ranks compare their tables' ids once (one allreduce of {id, ~id, a bad
 * rank}); a bad file on some rank or tables that differ leave every rank
 * on the compiled table, said in one line. */
static void agree_table(int me)
{
    char tmsg[700];
    uint64_t tid = torus_coll_table_use(tmsg, sizeof tmsg);
    uint64_t mine[3] = {tid, ~tid, tmsg[0] ? UINT64_MAX - (uint64_t)me : 0}, all[3];
    KIT_MPI_CHECK(MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
    if (!all[2] && all[0] == ~all[1])
        return;
    torus_coll_table_off();
    if (all[2] && UINT64_MAX - all[2] == (uint64_t)me)
        fprintf(stderr, "collbench: %s\n", tmsg);
    else if (!all[2] && !me)
        fprintf(stderr, "collbench: TORUS_COLL_TABLE: the ranks read different tables (a file that differs "
                        "between nodes?): the compiled table is used on every rank\n");
}

int cb_setup_mpi(bench *b, char *err, size_t errlen)
{
    const opts *o = b->o;
    torus_shape s;
    char e2[300];
    if (torus_shape_parse(o->dims, b->n, &s, e2, sizeof e2)) {
        snprintf(err, errlen, "--dims: %s", e2);
        return KIT_EXIT_USAGE;
    }
    if (torus_map_xyzt(&b->map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d ranks", b->n);
        return KIT_EXIT_RESOURCE;
    }
    torus_shape_format(&s, b->ri->shape, sizeof b->ri->shape);
    char esc[100];
    kit_cli_escape(o->dims, esc, sizeof esc);
    snprintf(b->ri->shape_src, sizeof b->ri->shape_src, "--dims %s", esc);
    torus_node_info ni;
    int nrc = torus_node_discover(MPI_COMM_WORLD, &ni, err, errlen);
    if (nrc)
        return nrc == -2 ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
    /* the one memory check, before any buffer is touched */
    torus_mem_verdict v;
    double need = buffer_need(o, b->n);
    if (!torus_mem_fits(MPI_COMM_WORLD, &ni, need, &v)) {
        if (v.speaker)
            fprintf(stderr,
                    "collbench: error: --sizes up to %zu bytes at %d ranks need %.2f GiB per rank, %.2f GiB on this "
                    "node (%d ranks), but only %.2f GiB is available: allowed smaller --sizes\n",
                    o->sizes[o->nsizes - 1], b->n, need / (double)(1ULL << 30), v.node_need / (double)(1ULL << 30),
                    v.ranks, (double)v.avail / (double)(1ULL << 30));
        torus_node_free(&ni);
        err[0] = 0;
        return KIT_EXIT_RESOURCE;
    }
    b->ri->nodes = ni.nnodes;
    b->ri->per_node = ni.max_per_node;
    b->ri->node_note = torus_node_note(&ni);
    b->ri->node_source = torus_node_source(&ni);
    b->node_of = malloc((size_t)b->n * sizeof *b->node_of);
    if (!torus_all_ok(MPI_COMM_WORLD, b->node_of != NULL)) {
        snprintf(err, errlen, "out of memory for the node table");
        return KIT_EXIT_RESOURCE;
    }
    KIT_MPI_CHECK(MPI_Allgather(&ni.node, 1, MPI_INT, b->node_of, 1, MPI_INT, MPI_COMM_WORLD));
    torus_node_free(&ni);
    agree_table(b->me);
    for (int i = 0; i < 2; i++) {
        if (torus_mpi_create(&b->tm[i], MPI_COMM_WORLD, &b->map, b->me, 1, 0, e2, sizeof e2)) {
            snprintf(err, errlen, "%s", e2);
            return KIT_EXIT_RESOURCE;
        }
        torus_mpi_bind(b->tm[i], &b->tp[i]);
        torus_coll_config cfg = {.map = &b->map, .me = b->me, .tp = &b->tp[i], .node_of = b->node_of,
                                 .library = kit_mpi_built_for(),
                                 .idle = NULL, .idle_ctx = NULL};
        int rc = torus_coll_create(i ? &b->c_named : &b->c_auto, &cfg, e2, sizeof e2);
        /* TORUS_COLL_<OP> naming no algorithm fails the same on every rank */
        if (!torus_all_ok(MPI_COMM_WORLD, rc == 0)) {
            snprintf(err, errlen, "%s", e2);
            return rc == TORUS_COLL_ENOMEM ? KIT_EXIT_RESOURCE : KIT_EXIT_USAGE;
        }
    }
    return -1;
}

void cb_teardown_mpi(bench *b)
{
    torus_coll_destroy(b->c_auto);
    torus_coll_destroy(b->c_named);
    for (int i = 0; i < 2; i++)
        if (b->tm[i])
            torus_mpi_destroy(b->tm[i]);
    torus_map_free(&b->map);
    free(b->node_of);
}
