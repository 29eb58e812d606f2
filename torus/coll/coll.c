/*
 * coll.c - the collective context and the entry points: creation (with
 * the TORUS_COLL_<OP> settings that force an algorithm), the counters,
 * and the four collectives that check their arguments, pick an algorithm
 * (a route's, a forced one, else the table's: route.c, select.c) and run it.  The helpers the algorithms
 * use live beside it: p2p.c (messages), reduce.c (reductions), scratch.c,
 * ranks.c; the list of algorithms in registry.c, predictions in cost.c,
 * the error line in coll_error.c.
 */
#include "coll_impl.h"
#include "kit_settings.h"
#include "kit_cli.h"

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

void torus_coll_skip_empty(torus_coll *c, int on)
{
    c->skip_empty = on != 0;
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
    c->library = cfg->library;
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
        const char *v = kit_setting(torus_coll_op_setting((torus_coll_op)op));
        if (v && *v && torus_coll_force(c, (torus_coll_op)op, v)) {
            snprintf(err, errlen, "%s=%s: %s", torus_coll_op_setting((torus_coll_op)op), v, c->err);
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

/* Runs op's algorithm: the route's (r), else a forced one, else the
 * table's; a forced algorithm whose preconditions fail here gives one
 * notice line (rank 0) and the table's choice. */
static int dispatch(torus_coll *c, torus__coll_args *a, const torus_coll_route *r)
{
    const torus__coll_alg *alg = r ? r->alg : c->forced[a->op];
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
    torus__scratch_free(c);
    c->seq++;
    return rc;
}

int torus_coll_barrier_on(torus_coll *c, const torus_coll_route *r)
{
    torus__coll_args a = {.op = TORUS_COLL_BARRIER};
    return dispatch(c, &a, r);
}

int torus_coll_barrier(torus_coll *c)
{
    return torus_coll_barrier_on(c, NULL);
}

int torus_coll_bcast_on(torus_coll *c, const torus_coll_route *r, void *buf, size_t bytes, int root)
{
    if (root < 0 || root >= c->n)
        return torus__fail(c, TORUS_COLL_EARG, "bcast root %d out of range: allowed 0..%d", root, c->n - 1);
    torus__coll_args a = {.op = TORUS_COLL_BCAST, .buf = buf, .bytes = bytes, .root = root};
    if (!bytes || c->n == 1) {
        c->seq++;
        return 0;
    }
    return dispatch(c, &a, r);
}

int torus_coll_bcast(torus_coll *c, void *buf, size_t bytes, int root)
{
    return torus_coll_bcast_on(c, NULL, buf, bytes, root);
}

static const char *const dtype_names[TORUS_NDTYPES] = {
    "uint64", "int64", "double", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float", "long double",
    "float complex", "double complex", "long double complex", "bool", "byte", "float_int", "double_int",
    "long_int", "2int", "short_int", "long_double_int", "2float", "2double"};
static const char *const rop_names[TORUS_NOPS] = {"sum", "min", "max", "bxor", "prod", "land",
                                                   "lor", "lxor", "band", "bor", "maxloc", "minloc"};

int torus_coll_allreduce_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, void *rbuf, size_t count,
                            torus_dtype t, torus_op op)
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
    return dispatch(c, &a, r);
}

int torus_coll_allreduce(torus_coll *c, const void *sbuf, void *rbuf, size_t count, torus_dtype t, torus_op op)
{
    return torus_coll_allreduce_on(c, NULL, sbuf, rbuf, count, t, op);
}

int torus_coll_alltoallv_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, const size_t *scounts,
                            const size_t *sdispls, void *rbuf, const size_t *rcounts, const size_t *rdispls)
{
    torus__coll_args a = {.op = TORUS_COLL_ALLTOALLV, .sbuf = sbuf, .rbuf = rbuf, .scounts = scounts,
                          .sdispls = sdispls, .rcounts = rcounts, .rdispls = rdispls};
    return dispatch(c, &a, r);
}

int torus_coll_alltoallv(torus_coll *c, const void *sbuf, const size_t *scounts, const size_t *sdispls, void *rbuf,
                         const size_t *rcounts, const size_t *rdispls)
{
    return torus_coll_alltoallv_on(c, NULL, sbuf, scounts, sdispls, rbuf, rcounts, rdispls);
}

int torus_coll_alltoall_on(torus_coll *c, const torus_coll_route *r, const void *sbuf, void *rbuf, size_t bytes)
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
    return dispatch(c, &a, r);
}

int torus_coll_alltoall(torus_coll *c, const void *sbuf, void *rbuf, size_t bytes)
{
    return torus_coll_alltoall_on(c, NULL, sbuf, rbuf, bytes);
}
