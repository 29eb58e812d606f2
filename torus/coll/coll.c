/*
 * coll.c - the collective context: creation, the blocking message helpers
 * algorithms use, reductions in a fixed operand order, scratch memory, and
 * the four entry points that check arguments, pick an algorithm (select.c)
 * and run it.
 */
#include "coll_impl.h"
#include "kit_settings.h"
#include "kit_cli.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Over MPI a wait spins first: a peer running on another core answers
 * within microseconds, and a rank that yields early hands its core to
 * whatever else is runnable, often a rank spinning in the MPI library
 * (MPICH busy-polls without yielding), which keeps it for a whole time
 * slice.  Measured with bin/collbench --rounds 5 at 4 and 8 ranks on 2
 * cores: a small bcast took 1.5-14x MPICH's with a yield every 16 idle
 * polls, 1.3-1.8x after 1000, while allreduce and barrier were the same.
 * After that many, the peer is likely descheduled (more ranks than
 * cores): yield on every idle poll until something completes (no sleep:
 * a collective's waits are short). */
#define TORUS_COLL_SPIN_POLLS 1000

/* Tags: one per call, so a fast rank's next collective can never match a
 * message of this one; MPI guarantees tags up to 32767. */
#define TAG_SPACE 32768

typedef struct torus__scratch_block {
    struct torus__scratch_block *next;
    max_align_t data[];
} scratch_block;

int torus__fail(torus_coll *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

const char *torus_coll_error(const torus_coll *c)
{
    /* NULL: the one call that can fail without a context, a multisend
     * call on a NULL plan */
    return c ? c->err : "multisend: the plan is NULL (used after torus_multisend_free, or never made)";
}

size_t torus_dtype_size(torus_dtype t)
{
    static const size_t size[TORUS_NDTYPES] = {
        [TORUS_UINT64] = 8, [TORUS_INT64] = 8, [TORUS_DOUBLE] = 8, [TORUS_INT8] = 1, [TORUS_INT16] = 2,
        [TORUS_INT32] = 4, [TORUS_UINT8] = 1, [TORUS_UINT16] = 2, [TORUS_UINT32] = 4, [TORUS_FLOAT] = sizeof(float),
        [TORUS_LONG_DOUBLE] = sizeof(long double), [TORUS_FLOAT_COMPLEX] = 2 * sizeof(float),
        [TORUS_DOUBLE_COMPLEX] = 2 * sizeof(double), [TORUS_LONG_DOUBLE_COMPLEX] = 2 * sizeof(long double),
        [TORUS_BOOL] = sizeof(_Bool), [TORUS_BYTE] = 1,
        /* the pairs packed: value, then index */
        [TORUS_FLOAT_INT] = sizeof(float) + sizeof(int), [TORUS_DOUBLE_INT] = sizeof(double) + sizeof(int),
        [TORUS_LONG_INT] = sizeof(long) + sizeof(int), [TORUS_2INT] = 2 * sizeof(int),
        [TORUS_SHORT_INT] = sizeof(short) + sizeof(int), [TORUS_LONG_DOUBLE_INT] = sizeof(long double) + sizeof(int),
        [TORUS_2FLOAT] = 2 * sizeof(float), [TORUS_2DOUBLE] = 2 * sizeof(double),
    };
    return (unsigned)t < TORUS_NDTYPES ? size[t] : 0;
}

torus__reduce_fn torus__reduce_kernel(torus_dtype t, torus_op op)
{
    switch (op) {
    case TORUS_OP_SUM:
    case TORUS_OP_PROD:
    case TORUS_OP_MIN:
    case TORUS_OP_MAX:
        return torus__reduce_arith(t, op);
    case TORUS_OP_MAXLOC:
    case TORUS_OP_MINLOC:
        return torus__reduce_loc(t, op);
    default:
        return torus__reduce_logic(t, op);
    }
}

int torus_coll_reduce_defined(torus_dtype t, torus_op op)
{
    return torus__reduce_kernel(t, op) != NULL;
}

void torus_coll_skip_empty(torus_coll *c, int on)
{
    c->skip_empty = on != 0;
}

static const char *const op_names[TORUS_COLL_NCOLL] = {"barrier", "bcast", "allreduce", "alltoallv"};

const char *torus_coll_op_name(torus_coll_op op)
{
    return op >= 0 && op < TORUS_COLL_NCOLL ? op_names[op] : "?";
}

/* the one list of the settings that force an algorithm (declared in
 * kit/settings.c; the adapter checks them through this) */
static const char *const op_settings[TORUS_COLL_NCOLL] = {"TORUS_COLL_BARRIER", "TORUS_COLL_BCAST",
                                                          "TORUS_COLL_ALLREDUCE", "TORUS_COLL_ALLTOALLV"};

const char *torus_coll_op_setting(torus_coll_op op)
{
    return op >= 0 && op < TORUS_COLL_NCOLL ? op_settings[op] : NULL;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int torus_coll_create(torus_coll **out, const torus_coll_config *cfg, char *err, size_t errlen)
{
    *out = NULL;
    if (!cfg->map || !cfg->tp || !cfg->tp->isend || cfg->me < 0 || cfg->me >= cfg->map->shape.n) {
        snprintf(err, errlen, "collectives need a map, this rank in it and a transport with the message interface");
        return TORUS_COLL_EARG;
    }
    torus_coll *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory for the collective context");
        return TORUS_COLL_ENOMEM;
    }
    c->map = cfg->map;
    c->me = cfg->me;
    c->n = cfg->map->shape.n;
    c->ndims = cfg->map->shape.ndims;
    c->tp = cfg->tp;
    c->node_of = cfg->node_of;
    if (c->node_of) {
        /* several ranks on one node <=> fewer distinct node numbers than ranks */
        int *v = malloc((size_t)c->n * sizeof *v);
        if (!v) {
            free(c);
            snprintf(err, errlen, "out of memory for the collective context");
            return TORUS_COLL_ENOMEM;
        }
        memcpy(v, c->node_of, (size_t)c->n * sizeof *v);
        qsort(v, (size_t)c->n, sizeof *v, cmp_int);
        for (int i = 1; i < c->n; i++)
            c->shared_nodes |= v[i] == v[i - 1];
        free(v);
    }
    c->idle = cfg->idle;
    torus_idle_init(&c->idle_wait, TORUS_COLL_SPIN_POLLS, 0, c->tp);
    c->idle_ctx = cfg->idle_ctx;
    /* TORUS_COLL_<OP>=name forces an algorithm; the same variable is
     * exported to every rank by the launcher, so the choice stays global */
    for (int op = 0; op < TORUS_COLL_NCOLL; op++) {
        const char *v = kit_setting(op_settings[op]);
        if (v && *v && torus_coll_force(c, (torus_coll_op)op, v)) {
            snprintf(err, errlen, "%s=%s: %s", op_settings[op], v, c->err);
            free(c);
            return TORUS_COLL_EARG;
        }
    }
    *out = c;
    return 0;
}

void torus_coll_destroy(torus_coll *c)
{
    free(c);
}

void torus_coll_get_counts(const torus_coll *c, torus_coll_counts *out)
{
    *out = c->counts;
}

void torus_coll_reset_counts(torus_coll *c)
{
    memset(&c->counts, 0, sizeof c->counts);
}

/* ---- messaging ---------------------------------------------------------- */

int torus__isend(torus_coll *c, int peer, const void *buf, size_t bytes, torus_req *r)
{
    if (c->tp->isend(c->tp->impl, peer, buf, bytes, c->seq % TAG_SPACE, r))
        return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not start a send of %zu bytes to rank %d", c->me,
                           bytes, peer);
    c->counts.msgs_sent++;
    c->counts.bytes_sent += bytes;
    c->progress++;
    return 0;
}

int torus__irecv(torus_coll *c, int peer, void *buf, size_t bytes, torus_req *r)
{
    if (c->tp->irecv(c->tp->impl, peer, buf, bytes, c->seq % TAG_SPACE, r))
        return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not post a receive from rank %d", c->me, peer);
    c->counts.msgs_recv++;
    c->counts.bytes_recv += bytes;
    return 0;
}

/* One test of a started request: 1 done (the request is freed, progress
 * counted, the spin count restarts), 0 still open, -1 a message longer
 * than its buffer (the request is freed too). */
static int test_one(torus_coll *c, torus_req *r)
{
    if (r->id < 0)
        return 1;
    int rc = c->tp->test(c->tp->impl, r);
    if (!rc)
        return 0;
    r->id = -1;
    if (rc < 0)
        return -1;
    c->progress++;
    torus_idle_reset(&c->idle_wait);
    return 1;
}

static int truncated(torus_coll *c)
{
    return torus__fail(c, TORUS_COLL_ETRUNC,
                       "rank %d: a message was longer than expected: do the counts or sizes differ between ranks?", c->me);
}

int torus__wait(torus_coll *c, torus_req *r, int n)
{
    /* a truncated message is remembered until the other requests are done,
     * so that no peer is left waiting on one of them */
    int bad = 0;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < n; i++) {
            int rc = test_one(c, &r[i]);
            if (rc < 0)
                bad = 1;
            else if (rc == 0)
                pending++;
        }
        if (!pending)
            return bad ? truncated(c) : 0;
        torus__idle(c);
    }
}

void torus__idle(torus_coll *c)
{
    if (c->idle) {
        c->idle(c->idle_ctx);
        return;
    }
    torus_idle_wait(&c->idle_wait);
}

int torus__send(torus_coll *c, int peer, const void *buf, size_t bytes)
{
    torus_req r;
    int rc = torus__isend(c, peer, buf, bytes, &r);
    return rc ? rc : torus__wait(c, &r, 1);
}

int torus__recv(torus_coll *c, int peer, void *buf, size_t bytes)
{
    torus_req r;
    int rc = torus__irecv(c, peer, buf, bytes, &r);
    return rc ? rc : torus__wait(c, &r, 1);
}

int torus__sendrecv(torus_coll *c, int dst, const void *sbuf, size_t sbytes, int src, void *rbuf, size_t rbytes)
{
    torus_req r[2];
    int rc = torus__irecv(c, src, rbuf, rbytes, &r[0]);
    if (rc)
        return rc;
    rc = torus__isend(c, dst, sbuf, sbytes, &r[1]);
    if (rc) {
        r[1].id = -1;
        torus__wait(c, r, 1);
        return rc;
    }
    return torus__wait(c, r, 2);
}

/* ---- reductions --------------------------------------------------------- */

void torus__reduce3(torus_coll *c, void *dst, const void *a, const void *b, size_t count, torus_dtype t, torus_op op)
{
    /* the entry point checked that the kernel exists */
    torus__reduce_kernel(t, op)(dst, a, b, count);
    if (c->tp->reduced)
        c->tp->reduced(c->tp->impl, count * torus_dtype_size(t));
}

void torus__reduce(torus_coll *c, void *dst, const void *src, size_t count, torus_dtype t, torus_op op)
{
    torus__reduce3(c, dst, dst, src, count, t, op);
}

int torus__coll_runs_anywhere(const torus_coll *c, const torus__coll_args *a)
{
    (void)c, (void)a;
    return 1;
}

int torus__floor_pow2(int n)
{
    int p = 1;
    while (2 * p <= n)
        p *= 2;
    return p;
}

int torus__fold_rank(int j, int rem)
{
    return j < rem ? 2 * j : j + rem;
}

/* ---- scratch, coordinates ----------------------------------------------- */

void *torus__scratch(torus_coll *c, size_t bytes)
{
    scratch_block *b = malloc(sizeof *b + bytes + 16);
    if (!b)
        return NULL;
    b->next = c->scratch;
    c->scratch = b;
    return b->data;
}

static void scratch_free(torus_coll *c)
{
    while (c->scratch) {
        scratch_block *nx = c->scratch->next;
        free(c->scratch);
        c->scratch = nx;
    }
}

const int *torus__coords(const torus_coll *c, int rank)
{
    return &c->map->coords[(size_t)rank * (size_t)c->ndims];
}

int torus__line_rank(const torus_coll *c, int rank, int d, int pos)
{
    int cc[TORUS_MAX_DIMS];
    memcpy(cc, torus__coords(c, rank), (size_t)c->ndims * sizeof(int));
    cc[d] = pos;
    return c->map->rank_of[torus_map_linear(&c->map->shape, cc)];
}

/* ---- entry points ------------------------------------------------------- */

const torus__coll_alg *torus__coll_find(torus_coll_op op, const char *name)
{
    for (int i = 0; i < torus__coll_nlisted; i++)
        if (torus__coll_listed[i] && torus__coll_listed[i]->op == op && !strcmp(torus__coll_listed[i]->name, name))
            return torus__coll_listed[i];
    return NULL;
}

/* The registered names per op, NULL-terminated; filled once per process
 * (threads may ask at once: the MPI adapter's stats under
 * MPI_THREAD_MULTIPLE). */
static const char *alg_names[TORUS_COLL_NCOLL][32];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void fill_names(void)
{
    int k[TORUS_COLL_NCOLL] = {0};
    for (int i = 0; i < torus__coll_nlisted; i++) {
        if (!torus__coll_listed[i])
            continue;
        int o = torus__coll_listed[i]->op;
        if (k[o] < 31)
            alg_names[o][k[o]++] = torus__coll_listed[i]->name;
    }
}

const char *const *torus_coll_algorithms(torus_coll_op op)
{
    pthread_once(&names_once, fill_names);
    return op >= 0 && op < TORUS_COLL_NCOLL ? alg_names[op] : alg_names[0] + 31;
}

int torus_coll_force(torus_coll *c, torus_coll_op op, const char *name)
{
    if (op < 0 || op >= TORUS_COLL_NCOLL)
        return torus__fail(c, TORUS_COLL_EARG, "unknown collective %d", (int)op);
    if (!name || !strcmp(name, "auto")) {
        c->forced[op] = NULL;
        return 0;
    }
    const torus__coll_alg *a = torus__coll_find(op, name);
    if (!a) {
        char list[512] = "";
        size_t o = 0;
        for (const char *const *n = torus_coll_algorithms(op); *n && o < sizeof list; n++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", *n);
        char shown[80];
        kit_cli_escape(name, shown, sizeof shown);
        return torus__fail(c, TORUS_COLL_EARG, "unknown %s algorithm '%s': allowed auto, %s", torus_coll_op_name(op),
                           shown, list);
    }
    c->forced[op] = a;
    return 0;
}

const char *torus_coll_last(const torus_coll *c, torus_coll_op op)
{
    return op >= 0 && op < TORUS_COLL_NCOLL && c->last[op] ? c->last[op]->name : "";
}

/* Picks and runs op's algorithm: a forced one whose preconditions hold,
 * else the table's.  One notice line (rank 0) when a forced algorithm
 * cannot run here. */
static int dispatch(torus_coll *c, torus__coll_args *a)
{
    const torus__coll_alg *alg = c->forced[a->op];
    if (alg && !alg->ok(c, a)) {
        if (c->me == 0 && !c->noticed[a->op])
            fprintf(stderr, "torus_coll: notice: %s algorithm '%s' cannot run on %d ranks here (%s); using the table's choice\n",
                    torus_coll_op_name(a->op), alg->name, c->n, alg->summary);
        c->noticed[a->op] = 1;
        alg = NULL;
    }
    if (!alg)
        alg = torus__coll_select(c, a);
    c->last[a->op] = alg;
    int rc = alg->run(c, a);
    scratch_free(c);
    c->seq++;
    return rc;
}

int torus_coll_barrier(torus_coll *c)
{
    torus__coll_args a = {.op = TORUS_COLL_BARRIER};
    return dispatch(c, &a);
}

int torus_coll_bcast(torus_coll *c, void *buf, size_t bytes, int root)
{
    if (root < 0 || root >= c->n)
        return torus__fail(c, TORUS_COLL_EARG, "bcast root %d out of range: allowed 0..%d", root, c->n - 1);
    torus__coll_args a = {.op = TORUS_COLL_BCAST, .buf = buf, .bytes = bytes, .root = root};
    if (!bytes || c->n == 1) {
        c->seq++;
        return 0;
    }
    return dispatch(c, &a);
}

static const char *const dtype_names[TORUS_NDTYPES] = {
    "uint64", "int64", "double", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float", "long double",
    "float complex", "double complex", "long double complex", "bool", "byte", "float_int", "double_int",
    "long_int", "2int", "short_int", "long_double_int", "2float", "2double"};
static const char *const rop_names[TORUS_NOPS] = {"sum", "min", "max", "bxor", "prod", "land",
                                                   "lor", "lxor", "band", "bor", "maxloc", "minloc"};

int torus_coll_allreduce(torus_coll *c, const void *sbuf, void *rbuf, size_t count, torus_dtype t, torus_op op)
{
    if ((unsigned)t >= TORUS_NDTYPES || (unsigned)op >= TORUS_NOPS)
        return torus__fail(c, TORUS_COLL_EARG, "allreduce: unknown type %d or operation %d", (int)t, (int)op);
    if (!torus__reduce_kernel(t, op)) {
        char list[128] = "";
        size_t o = 0;
        for (int k = 0; k < TORUS_NOPS && o < sizeof list; k++)
            if (torus__reduce_kernel(t, (torus_op)k))
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", rop_names[k]);
        return torus__fail(c, TORUS_COLL_EARG, "allreduce: %s is not defined on %s: allowed %s", rop_names[op],
                           dtype_names[t], list);
    }
    size_t esize = torus_dtype_size(t);
    if (count > SIZE_MAX / 64)
        return torus__fail(c, TORUS_COLL_EARG, "allreduce: count %zu too large", count);
    if (sbuf != rbuf && count)
        memmove(rbuf, sbuf, count * esize);
    torus__coll_args a = {.op = TORUS_COLL_ALLREDUCE, .sbuf = rbuf, .rbuf = rbuf, .count = count,
                          .bytes = count * esize, .esize = esize, .dt = t, .rop = op};
    if (!count || c->n == 1) {
        c->seq++;
        return 0;
    }
    return dispatch(c, &a);
}

int torus_coll_alltoallv(torus_coll *c, const void *sbuf, const size_t *scounts, const size_t *sdispls, void *rbuf,
                         const size_t *rcounts, const size_t *rdispls)
{
    torus__coll_args a = {.op = TORUS_COLL_ALLTOALLV, .sbuf = sbuf, .rbuf = rbuf, .scounts = scounts,
                          .sdispls = sdispls, .rcounts = rcounts, .rdispls = rdispls};
    return dispatch(c, &a);
}

int torus_coll_alltoall(torus_coll *c, const void *sbuf, void *rbuf, size_t bytes)
{
    size_t *v = torus__scratch(c, 2 * (size_t)c->n * sizeof *v);
    if (!v)
        return torus__fail(c, TORUS_COLL_ENOMEM, "alltoall: out of memory for %d counts", c->n);
    for (int j = 0; j < c->n; j++) {
        v[j] = bytes;
        v[c->n + j] = (size_t)j * bytes;
    }
    torus__coll_args a = {.op = TORUS_COLL_ALLTOALLV, .sbuf = sbuf, .rbuf = rbuf, .scounts = v,
                          .sdispls = v + c->n, .rcounts = v, .rdispls = v + c->n, .bytes = bytes, .uniform = 1};
    return dispatch(c, &a);
}

/* Arguments for choice and prediction: the shared facts of a call of
 * op at `bytes`, with no data. */
static torus__coll_args shape_args(torus_coll_op op, size_t bytes)
{
    torus__coll_args a = {.op = op, .bytes = bytes, .count = bytes / 8, .esize = 8, .dt = TORUS_UINT64,
                          .rop = TORUS_OP_SUM, .uniform = op == TORUS_COLL_ALLTOALLV};
    return a;
}

const char *torus_coll_choice(const torus_coll *c, torus_coll_op op, size_t bytes)
{
    if (op < 0 || op >= TORUS_COLL_NCOLL)
        return "";
    torus__coll_args a = shape_args(op, bytes);
    const torus__coll_alg *alg = c->forced[op];
    if (!alg || !alg->ok(c, &a))
        alg = torus__coll_select(c, &a);
    return alg->name;
}

/* The cost of a uniform call of an algorithm at `rank`; -1 if it cannot run. */
static int uniform_cost(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, int rank,
                        torus__coll_cost *k)
{
    const torus__coll_alg *alg = torus__coll_find(op, algorithm);
    torus__coll_args a = shape_args(op, bytes);
    if (!alg || !alg->ok(c, &a))
        return -1;
    memset(k, 0, sizeof *k);
    alg->cost(c, &a, rank, k);
    return 0;
}

double torus_coll_predict(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, double alpha,
                          double beta, double gamma)
{
    torus__coll_cost k;
    if (uniform_cost(c, op, algorithm, bytes, c->me, &k))
        return -1;
    return alpha * k.rounds + beta * k.path_bytes + gamma * k.reduce_bytes;
}

int torus__coll_cost_of(const torus_coll *c, torus_coll_op op, const char *algorithm, size_t bytes, int rank,
                        uint64_t *msgs, uint64_t *sent)
{
    torus__coll_cost k;
    if (uniform_cost(c, op, algorithm, bytes, rank, &k))
        return -1;
    *msgs = k.msgs;
    *sent = k.bytes;
    return 0;
}

/* ---- non-blocking progress for algorithms that keep requests in flight --- */

int torus__test(torus_coll *c, torus_req *r)
{
    int rc = test_one(c, r);
    return rc < 0 ? truncated(c) : rc;
}

int torus__line_send(torus_coll *c, int d, const void *buf, size_t bytes, torus_req *r, int *nr)
{
    int k = c->map->shape.k[d], me = torus__coords(c, c->me)[d];
    if (k < 2)
        return 0;
    if (c->tp->line_send) {
        if (c->tp->line_send(c->tp->impl, d, buf, bytes, c->seq % TAG_SPACE, &r[*nr]))
            return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not start a line send of %zu bytes along %d",
                               c->me, bytes, d);
        ++*nr;
        c->counts.msgs_sent += (uint64_t)(k - 1);
        c->counts.bytes_sent += (uint64_t)(k - 1) * bytes;
        c->progress++;
        return 0;
    }
    /* no deposit bit: one message per rank of the line, the next
     * coordinate first so that the ranks of a line spread their sends */
    for (int i = 1; i < k; i++) {
        int rc = torus__isend(c, torus__line_rank(c, c->me, d, (me + i) % k), buf, bytes, &r[*nr]);
        if (rc)
            return rc;
        ++*nr;
    }
    return 0;
}
