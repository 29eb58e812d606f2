/*
 * multisend.c - persistent sparse many-to-many exchange (paper 001's
 * multisend, MPI's MPI_Neighbor_alltoallv and its MPI-4 _init form): the
 * plan, the pattern check made once at set-up, the choice between the
 * algorithms (multisend_<name>.c) and the start/test/wait/free calls.
 *
 * A plan is recorded once and replayed: the spec is copied, self blocks
 * become a list of copies, the algorithm keeps its peers, request slots,
 * message sizes, buffers and copy lists, so a call only posts messages
 * and copies bytes.  Set-up is collective and checks the pattern across
 * ranks (one 8-byte-per-rank alltoall and one allreduce): for every pair
 * (s, d), d must list as many blocks from s as s sends it, with the same
 * sizes in the same order.  A disagreement would otherwise surface as a
 * message nobody receives (a hang) or a truncated receive in the middle
 * of a replay; here it is an error on every rank at set-up.  Because the
 * pattern is known to agree, blocks of 0 bytes are never sent, and no
 * call carries sizes.
 *
 * Choice ("auto"): from the facts the allreduce gives every rank alike:
 * M = non-empty remote blocks per rank (direct's messages, on average; a
 * peer listed twice counts twice), B = bytes per such block, H = routing
 * hops per block (dimensions in which source and destination differ, on
 * average), D = distinct remote destinations per rank, and P' = the
 * smaller of D and sum(k_d - 1) over the dimensions (the routed
 * algorithm's partners per rank): about the messages routed sends.
 * Direct costs M alpha + M B beta per rank; routed about P' alpha +
 * H M B beta + the copies (each block is packed and unpacked once per
 * hop: MS_COPY_SHARE of a send per byte).  Routed is taken when it sends
 * fewer messages (P' < M) and the saving pays for the extra hops and
 * copies: (M - P') alpha > (H - 1 + MS_COPY_SHARE) M B beta, with
 * alpha/beta = MS_ALPHA_BYTES.  On one dimension (H = 1) that is a peer
 * listed several times (a halo on a ring of 2): its small blocks go as
 * one message.
 */
#include "multisend_impl.h"
#include "kit_mix.h"

#include <stdlib.h>
#include <string.h>

/* alpha / beta in bytes: a message costs what this many bytes cost.
 * collbench's calibrations: on the BlueGene/L model of --simulate 3.5 us
 * against 8.1 ns/byte (about 430 bytes); on this machine's MPICH shared
 * memory 0.3-1.5 us against 0.2-0.5 ns/byte (1-5 KiB).  1 KiB lies
 * between: on the model it picks routed for transpose's 64-rank columns at
 * 512-byte blocks, where direct is 1.6x faster (docs/multisend.md). */
#define MS_ALPHA_BYTES 1024.0
/* Packing and unpacking a byte against sending it: two memcpy of cached
 * data against a transport's copy in and out (shared memory) or a wire:
 * taken as half. */
#define MS_COPY_SHARE 0.5

static const torus__ms_alg *const ms_algs[] = {&torus__ms_direct, &torus__ms_routed, NULL};

const char *const *torus_multisend_algorithms(void)
{
    static const char *names[8];
    if (!names[0])
        for (int i = 0; ms_algs[i] && i < 7; i++)
            names[i] = ms_algs[i]->name;
    return names;
}

/* ---- helpers the algorithms share ---------------------------------------- */

int torus__ms_isend(torus_multisend *p, int peer, const void *buf, size_t bytes, torus_req *r)
{
    torus_coll *c = p->c;
    int save = c->seq;
    c->seq = p->tag_seq;
    int rc = torus__isend(c, peer, buf, bytes, r);
    c->seq = save;
    return rc;
}

int torus__ms_irecv(torus_multisend *p, int peer, void *buf, size_t bytes, torus_req *r)
{
    torus_coll *c = p->c;
    int save = c->seq;
    c->seq = p->tag_seq;
    int rc = torus__irecv(c, peer, buf, bytes, r);
    c->seq = save;
    return rc;
}

int torus__ms_test_all(torus_multisend *p, torus_req *r, int n, int *bad)
{
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].id < 0)
            continue;
        int rc = torus__test(p->c, &r[i]);
        if (rc < 0)
            *bad = 1; /* completed too, with the error line set */
        else if (!rc)
            open++;
    }
    if (open)
        return open;
    return *bad ? TORUS_COLL_ETRUNC : 0;
}

void torus__ms_copy(const torus__ms_seg *s, int n, unsigned char *dst, const unsigned char *src)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + s[i].to, src + s[i].from, s[i].len);
}

int torus__ms_merge(torus__ms_seg *s, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!s[i].len)
            continue;
        if (m && s[m - 1].from + s[m - 1].len == s[i].from && s[m - 1].to + s[m - 1].len == s[i].to)
            s[m - 1].len += s[i].len;
        else
            s[m++] = s[i];
    }
    return m;
}

/* ---- the pattern check ------------------------------------------------------ */

/* One 64-bit word per (s, d) pair: how many blocks (top 24 bits,
 * saturated) and a hash of their sizes in order (low 40 bits).  Equal
 * words on both sides mean the pair agrees (up to a 2^-40 collision). */
#define CNT_SHIFT 40
#define HASH_MASK ((1ULL << CNT_SHIFT) - 1)
#define CNT_MAX ((1ULL << 24) - 1)

/* Adds one block of `size` bytes to pair word w. */
static uint64_t pair_add(uint64_t w, size_t size)
{
    uint64_t cnt = w >> CNT_SHIFT, h = w & HASH_MASK;
    h = kit_mix64(h ^ kit_mix64((uint64_t)size + cnt)) & HASH_MASK;
    cnt = cnt < CNT_MAX ? cnt + 1 : CNT_MAX;
    return cnt << CNT_SHIFT | h;
}

/* The spec's own sanity: 0 or TORUS_COLL_EARG with the line in c->err. */
static int spec_ok(torus_coll *c, const torus_multisend_spec *s)
{
    if (!s)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: no spec");
    if (s->ndest < 0 || s->nsrc < 0)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: negative list length (ndest %d, nsrc %d)", c->me,
                           s->ndest, s->nsrc);
    if ((s->ndest && (!s->dests || !s->scounts || !s->sdispls)) || (s->nsrc && (!s->srcs || !s->rcounts || !s->rdispls)))
        return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: a non-empty list without its array", c->me);
    for (int i = 0; i < s->ndest; i++)
        if (s->dests[i] < 0 || s->dests[i] >= c->n)
            return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: dests[%d] = %d out of range: allowed 0..%d",
                               c->me, i, s->dests[i], c->n - 1);
    for (int j = 0; j < s->nsrc; j++)
        if (s->srcs[j] < 0 || s->srcs[j] >= c->n)
            return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: srcs[%d] = %d out of range: allowed 0..%d",
                               c->me, j, s->srcs[j], c->n - 1);
    return 0;
}

enum { F_BADARG, F_BADCOUNT, F_BADSIZE, F_DESTS, F_BLOCKS, F_BYTES, F_HOPS, NFACTS };

/* Collective: checks the pattern on every rank and gathers the facts the
 * choice needs (sums over ranks in facts[]).  0, or the error every rank
 * returns. */
static int check_pattern(torus_multisend *p, int local_rc, uint64_t *facts)
{
    torus_coll *c = p->c;
    int n = c->n, me = c->me;
    uint64_t *to = calloc(2 * (size_t)n, sizeof *to), *from = to ? to + n : NULL;
    uint64_t *mine = calloc((size_t)n, sizeof *mine);
    uint64_t f[NFACTS] = {0};
    char why[256] = "";
    if (!to || !mine) {
        free(to), free(mine);
        /* cannot take part in the alltoall: the others would wait for us */
        return torus__fail(c, TORUS_COLL_ENOMEM, "multisend: out of memory checking the pattern of %d ranks", n);
    }
    if (local_rc) {
        f[F_BADARG] = 1;
    } else {
        for (int i = 0; i < p->ndest; i++) {
            int d = p->dests[i];
            to[d] = pair_add(to[d], p->scounts[i]);
            if (d != me && p->scounts[i]) {
                f[F_BLOCKS]++;
                f[F_BYTES] += p->scounts[i];
                const int *a = torus__coords(c, me), *b = torus__coords(c, d);
                for (int k = 0; k < c->ndims; k++)
                    f[F_HOPS] += a[k] != b[k];
            }
        }
        for (int d = 0; d < n; d++)
            f[F_DESTS] += d != me && (to[d] >> CNT_SHIFT);
        for (int j = 0; j < p->nsrc; j++)
            mine[p->srcs[j]] = pair_add(mine[p->srcs[j]], p->rcounts[j]);
    }
    int rc = torus_coll_alltoall(c, to, from, 8);
    if (rc) {
        free(to), free(mine);
        return rc;
    }
    for (int s = 0; s < n && !local_rc; s++) {
        if (from[s] == mine[s])
            continue;
        uint64_t sent = from[s] >> CNT_SHIFT, listed = mine[s] >> CNT_SHIFT;
        if (sent != listed) {
            if (!f[F_BADCOUNT] && !f[F_BADSIZE])
                snprintf(why, sizeof why,
                         "multisend: rank %d lists %llu block(s) from rank %d, which sends it %llu: the patterns of "
                         "the two ranks disagree",
                         me, (unsigned long long)listed, s, (unsigned long long)sent);
            f[F_BADCOUNT]++;
        } else {
            if (!f[F_BADCOUNT] && !f[F_BADSIZE])
                snprintf(why, sizeof why,
                         "multisend: rank %d: the sizes of the %llu block(s) it expects from rank %d (rcounts) differ "
                         "from those rank %d sends it (scounts)",
                         me, (unsigned long long)listed, s, s);
            f[F_BADSIZE]++;
        }
    }
    free(to), free(mine);
    rc = torus_coll_allreduce(c, f, facts, NFACTS, TORUS_UINT64, TORUS_OP_SUM);
    if (rc)
        return rc;
    if (facts[F_BADARG])
        return local_rc ? local_rc
                        : torus__fail(c, TORUS_COLL_EARG, "multisend: %llu rank(s) passed a bad spec (they say which)",
                                      (unsigned long long)facts[F_BADARG]);
    if (facts[F_BADCOUNT] || facts[F_BADSIZE]) {
        int code = facts[F_BADCOUNT] ? TORUS_COLL_EARG : TORUS_COLL_ETRUNC;
        if (why[0])
            return torus__fail(c, code, "%s", why);
        return torus__fail(c, code,
                           "multisend: the ranks' patterns disagree: %llu pair(s) on the number of blocks, %llu on "
                           "their sizes (the receiving ranks say which)",
                           (unsigned long long)facts[F_BADCOUNT], (unsigned long long)facts[F_BADSIZE]);
    }
    return 0;
}

/* The rule of the header, on facts every rank shares. */
static const torus__ms_alg *choose(const torus_multisend *p, const uint64_t *facts)
{
    const torus_coll *c = p->c;
    double partners = 0;
    for (int d = 0; d < c->ndims; d++)
        partners += c->map->shape.k[d] - 1;
    if (!facts[F_BLOCKS])
        return &torus__ms_direct;
    double M = (double)facts[F_BLOCKS] / c->n, B = (double)facts[F_BYTES] / (double)facts[F_BLOCKS];
    double H = (double)facts[F_HOPS] / (double)facts[F_BLOCKS], D = (double)facts[F_DESTS] / c->n;
    double P = partners < D ? partners : D;
    if (P < M && (M - P) * MS_ALPHA_BYTES > (H - 1 + MS_COPY_SHARE) * M * B)
        return &torus__ms_routed;
    return &torus__ms_direct;
}

/* ---- the API ---------------------------------------------------------------- */

static int copy_spec(torus_multisend *p, const torus_multisend_spec *s)
{
    size_t nd = (size_t)s->ndest, ns = (size_t)s->nsrc;
    p->ndest = s->ndest;
    p->nsrc = s->nsrc;
    p->dests = malloc((nd + ns + 1) * sizeof(int));
    p->scounts = malloc((2 * nd + 2 * ns + 1) * sizeof(size_t));
    if (!p->dests || !p->scounts)
        return -1;
    p->srcs = p->dests + nd;
    p->sdispls = p->scounts + nd;
    p->rcounts = p->scounts + 2 * nd;
    p->rdispls = p->scounts + 2 * nd + ns;
    if (nd) {
        memcpy(p->dests, s->dests, nd * sizeof(int));
        memcpy(p->scounts, s->scounts, nd * sizeof(size_t));
        memcpy(p->sdispls, s->sdispls, nd * sizeof(size_t));
    }
    if (ns) {
        memcpy(p->srcs, s->srcs, ns * sizeof(int));
        memcpy(p->rcounts, s->rcounts, ns * sizeof(size_t));
        memcpy(p->rdispls, s->rdispls, ns * sizeof(size_t));
    }
    return 0;
}

/* Blocks to myself: the k-th listing of me in dests goes to the k-th
 * listing of me in srcs (sizes already checked equal). */
static int self_copies(torus_multisend *p)
{
    int me = p->c->me, n = 0, j = 0;
    for (int i = 0; i < p->ndest; i++)
        n += p->dests[i] == me;
    p->self = malloc(((size_t)n + 1) * sizeof *p->self);
    if (!p->self)
        return -1;
    for (int i = 0; i < p->ndest; i++) {
        if (p->dests[i] != me)
            continue;
        while (j < p->nsrc && p->srcs[j] != me)
            j++;
        if (j == p->nsrc)
            break; /* cannot happen after the check */
        p->self[p->nself++] = (torus__ms_seg){p->sdispls[i], p->rdispls[j], p->scounts[i]};
        j++;
    }
    p->nself = torus__ms_merge(p->self, p->nself);
    return 0;
}

static void plan_free(torus_multisend *p)
{
    if (!p)
        return;
    if (p->alg && p->impl)
        p->alg->release(p);
    free(p->dests);
    free(p->scounts);
    free(p->self);
    free(p);
}

int torus_multisend_init(torus_coll *c, const torus_multisend_spec *s, const char *algorithm, torus_multisend **out)
{
    *out = NULL;
    const torus__ms_alg *want = NULL;
    int local_rc = 0;
    if (algorithm && strcmp(algorithm, "auto")) {
        for (int i = 0; ms_algs[i]; i++)
            if (!strcmp(ms_algs[i]->name, algorithm))
                want = ms_algs[i];
        if (!want)
            /* a name known on one rank only would still be bad everywhere:
             * every rank passes the same argument */
            return torus__fail(c, TORUS_COLL_EARG, "unknown multisend algorithm '%.60s': allowed auto, direct, routed",
                               algorithm);
    }
    torus_multisend *p = calloc(1, sizeof *p);
    if (!p)
        return torus__fail(c, TORUS_COLL_ENOMEM, "multisend: out of memory for the plan");
    p->c = c;
    local_rc = spec_ok(c, s);
    if (!local_rc && copy_spec(p, s))
        local_rc = torus__fail(c, TORUS_COLL_ENOMEM, "multisend: out of memory copying the spec");
    if (local_rc) {
        p->ndest = p->nsrc = 0; /* take part in the check with an empty pattern */
    }
    uint64_t facts[NFACTS];
    int rc = check_pattern(p, local_rc, facts);
    if (!rc && self_copies(p))
        rc = torus__fail(c, TORUS_COLL_ENOMEM, "multisend: out of memory for the plan");
    if (!rc) {
        p->alg = want ? want : choose(p, facts);
        p->tag_seq = c->seq;
        rc = p->alg->setup(p);
        c->seq++; /* the set-up's messages had this call's tag */
    }
    if (rc) {
        plan_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

static int null_plan(void)
{
    /* torus_coll_error(NULL) says the same */
    return TORUS_COLL_EARG;
}

int torus_multisend_start(torus_multisend *p, const void *sbuf, void *rbuf)
{
    if (!p)
        return null_plan();
    torus_coll *c = p->c;
    if (p->active)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: started again before the wait of the last start",
                           c->me);
    p->sbuf = sbuf;
    p->rbuf = rbuf;
    p->tag_seq = c->seq++;
    p->active = 1;
    torus__ms_copy(p->self, p->nself, p->rbuf, p->sbuf);
    int rc = p->alg->start(p);
    if (rc) {
        /* finish what was posted, so no request stays open */
        while (p->alg->progress(p) == 0)
            torus__idle(c);
        p->active = 0;
    }
    return rc;
}

int torus_multisend_test(torus_multisend *p, int *done)
{
    *done = 0;
    if (!p)
        return null_plan();
    if (!p->active) {
        *done = 1;
        return 0;
    }
    int rc = p->alg->progress(p);
    if (rc == 0)
        return 0;
    p->active = 0;
    *done = 1;
    return rc < 0 ? rc : 0;
}

int torus_multisend_wait(torus_multisend *p)
{
    if (!p)
        return null_plan();
    if (!p->active)
        return 0;
    int rc;
    while ((rc = p->alg->progress(p)) == 0)
        torus__idle(p->c);
    p->active = 0;
    return rc < 0 ? rc : 0;
}

void torus_multisend_free(torus_multisend **pp)
{
    if (!pp || !*pp)
        return;
    torus_multisend_wait(*pp);
    plan_free(*pp);
    *pp = NULL;
}

const char *torus_multisend_algorithm(const torus_multisend *p)
{
    return p && p->alg ? p->alg->name : "";
}

int torus_multisend_check(torus_multisend *p, const torus_multisend_spec *s)
{
    if (!p)
        return null_plan();
    torus_coll *c = p->c;
    if (!s)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: no spec to check");
    if (s->ndest != p->ndest)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: ndest %d, the plan was made for %d", c->me,
                           s->ndest, p->ndest);
    if (s->nsrc != p->nsrc)
        return torus__fail(c, TORUS_COLL_EARG, "multisend: rank %d: nsrc %d, the plan was made for %d", c->me, s->nsrc,
                           p->nsrc);
    for (int i = 0; i < p->ndest; i++)
        if (s->dests[i] != p->dests[i] || s->scounts[i] != p->scounts[i] || s->sdispls[i] != p->sdispls[i])
            return torus__fail(c, TORUS_COLL_EARG,
                               "multisend: rank %d: block %d is (dest %d, %zu bytes at %zu), the plan was made for "
                               "(dest %d, %zu bytes at %zu)",
                               c->me, i, s->dests[i], s->scounts[i], s->sdispls[i], p->dests[i], p->scounts[i],
                               p->sdispls[i]);
    for (int j = 0; j < p->nsrc; j++)
        if (s->srcs[j] != p->srcs[j] || s->rcounts[j] != p->rcounts[j] || s->rdispls[j] != p->rdispls[j])
            return torus__fail(c, TORUS_COLL_EARG,
                               "multisend: rank %d: receive %d is (src %d, %zu bytes at %zu), the plan was made for "
                               "(src %d, %zu bytes at %zu)",
                               c->me, j, s->srcs[j], s->rcounts[j], s->rdispls[j], p->srcs[j], p->rcounts[j],
                               p->rdispls[j]);
    return 0;
}
