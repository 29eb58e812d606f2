/* multisend.c - collbench's multisend patterns (paper 001): halo4d,
 * transpose and sparse as torus_multisend plans, raced over MPI against
 * MPI_Neighbor_alltoallv. */
#include "collbench.h"

/* n as 4 factors as equal as the primes allow, largest first (1s pad). */
static void grid4_of(int n, int *g)
{
    int f[32], nf = 0, x = n;
    for (int p = 2; (long)p * p <= x && nf < 31; p++)
        while (x % p == 0 && nf < 31)
            f[nf++] = p, x /= p;
    if (x > 1)
        f[nf++] = x;
    for (int i = 0; i < 4; i++)
        g[i] = 1;
    for (int i = nf - 1; i >= 0; i--) { /* largest prime first, onto the smallest factor */
        int s = 0;
        for (int j = 1; j < 4; j++)
            s = g[j] < g[s] ? j : s;
        g[s] *= f[i];
    }
    for (int i = 0; i < 4; i++) /* largest first */
        for (int j = i + 1; j < 4; j++)
            if (g[j] > g[i]) {
                int t = g[i];
                g[i] = g[j], g[j] = t;
            }
}

/* Over MPI: the balanced grids of n.  Simulated: the torus itself, so
 * that grid neighbours are torus neighbours (halo4d: the shape's
 * dimensions, a fifth and later merged into the fourth, missing ones 1;
 * transpose: rows along dimension 0, columns the rest). */
void cb_pgrid_of(pgrid *pg, int n, const torus_shape *sim)
{
    if (sim) {
        for (int i = 0; i < 4; i++)
            pg->g4[i] = 1;
        for (int d = 0; d < sim->ndims; d++)
            pg->g4[d < 4 ? d : 3] *= sim->k[d];
        pg->R = sim->k[0];
    } else {
        grid4_of(n, pg->g4);
        torus_shape s2;
        pg->R = torus_shape_balanced(n, 2, &s2) ? n : s2.k[0];
    }
    pg->C = n / pg->R;
}


void cb_pattern_free(pattern *p)
{
    for (int i = 0; i < 2; i++) {
        free(p->st[i].dests), free(p->st[i].sc), free(p->st[i].isc);
        memset(&p->st[i], 0, sizeof p->st[i]);
    }
    p->nsteps = 0;
}

/* Room for nd blocks out and ns in. */
static int pstep_alloc(pstep *s, int nd, int ns)
{
    size_t t = (size_t)nd + (size_t)ns + 1;
    s->dests = malloc(t * sizeof *s->dests);
    s->sc = malloc(2 * t * sizeof *s->sc);
    s->isc = malloc(2 * t * sizeof *s->isc);
    if (!s->dests || !s->sc || !s->isc)
        return -1;
    s->srcs = s->dests + nd;
    s->sd = s->sc + nd;
    s->rc = s->sc + 2 * (size_t)nd;
    s->rd = s->rc + ns;
    s->isd = s->isc + nd;
    s->irc = s->isc + 2 * (size_t)nd;
    s->ird = s->irc + ns;
    s->ndest = nd;
    s->nsrc = ns;
    return 0;
}

/* Displacements: blocks in listing order, `gap` bytes between them (the
 * validation checks that gaps stay untouched); the int copies for MPI. */
static void pstep_layout(pstep *s, size_t gap)
{
    size_t o = 0;
    for (int i = 0; i < s->ndest; i++) {
        s->sd[i] = o;
        o += s->sc[i] + gap;
        s->isc[i] = (int)s->sc[i], s->isd[i] = (int)s->sd[i];
    }
    s->slen = o + 1;
    o = 0;
    for (int j = 0; j < s->nsrc; j++) {
        s->rd[j] = o;
        o += s->rc[j] + gap;
        s->irc[j] = (int)s->rc[j], s->ird[j] = (int)s->rd[j];
    }
    s->rlen = o + 1;
}

/* sparse: rank r's i-th destination and block size (irregular: 0..2K
 * blocks, a fifth of the ranks none, sizes 0..size). */
static int sparse_ndest(const opts *o, int r, int irregular)
{
    if (!irregular)
        return (int)o->k;
    uint64_t h = kit_mix64(o->seed * 7919u + (uint64_t)r);
    return h % 5 == 0 ? 0 : (int)(h / 5 % (uint64_t)(2 * o->k + 1));
}

static int sparse_dest(const opts *o, int r, int i, int n)
{
    return (int)(kit_mix64(o->seed * 0x100000001B3ULL + (uint64_t)r * 65537u + (uint64_t)i) % (uint64_t)n);
}

static size_t sparse_size(const opts *o, int r, int i, size_t size, int irregular)
{
    return irregular ? (size_t)(kit_mix64(o->seed + (uint64_t)r * 31u + (uint64_t)i * 7u + 3) % (size + 1)) : size;
}

/* The pattern of op pi (0 halo4d, 1 transpose, 2 sparse) at rank me of
 * n, blocks of `size` bytes.  0 or -1 (out of memory). */
int cb_pattern_make(pattern *p, int pi, const opts *o, const pgrid *pg, int me, int n, size_t size,
                 int irregular, size_t gap)
{
    memset(p, 0, sizeof *p);
    if (pi == 0) {
        /* 8 neighbours, - and + along each grid dimension; a neighbour
         * may be me (size 1) or repeat (size 2): still 8 blocks */
        pstep *s = &p->st[0];
        p->nsteps = 1;
        if (pstep_alloc(s, 8, 8))
            return -1;
        int c[4], x = me;
        for (int d = 0; d < 4; d++)
            c[d] = x % pg->g4[d], x /= pg->g4[d];
        for (int d = 0, i = 0; d < 4; d++)
            for (int dir = -1; dir <= 1; dir += 2, i++) {
                int cc[4] = {c[0], c[1], c[2], c[3]};
                cc[d] = (cc[d] + dir + pg->g4[d]) % pg->g4[d];
                int r = cc[0] + pg->g4[0] * (cc[1] + pg->g4[1] * (cc[2] + pg->g4[2] * cc[3]));
                s->dests[i] = s->srcs[i] = r;
                s->sc[i] = s->rc[i] = size;
            }
    } else if (pi == 1) {
        /* alltoall in my row (R ranks), then in my column (C ranks), me included */
        int a = me % pg->R, b = me / pg->R;
        p->nsteps = 2;
        for (int step = 0; step < 2; step++) {
            pstep *s = &p->st[step];
            int m = step ? pg->C : pg->R;
            if (pstep_alloc(s, m, m))
                return -1;
            for (int i = 0; i < m; i++) {
                int r = step ? a + pg->R * i : i + pg->R * b;
                s->dests[i] = s->srcs[i] = r;
                s->sc[i] = s->rc[i] = size;
            }
        }
    } else {
        /* K random destinations per rank (repeats and self possible);
         * sources: every rank's list replayed, in rank order */
        pstep *s = &p->st[0];
        p->nsteps = 1;
        int nd = sparse_ndest(o, me, irregular), ns = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0, m = sparse_ndest(o, r, irregular); i < m; i++)
                ns += sparse_dest(o, r, i, n) == me;
        if (pstep_alloc(s, nd, ns))
            return -1;
        for (int i = 0; i < nd; i++) {
            s->dests[i] = sparse_dest(o, me, i, n);
            s->sc[i] = sparse_size(o, me, i, size, irregular);
        }
        int j = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0, m = sparse_ndest(o, r, irregular); i < m; i++)
                if (sparse_dest(o, r, i, n) == me) {
                    s->srcs[j] = r;
                    s->rc[j++] = sparse_size(o, r, i, size, irregular);
                }
    }
    for (int i = 0; i < p->nsteps; i++)
        pstep_layout(&p->st[i], gap);
    return 0;
}

/* What plans ran: "direct", or "direct+routed" when the steps differ. */
void cb_plans_ran(torus_multisend *const *plan, int nsteps, char *buf, size_t len)
{
    const char *a = torus_multisend_algorithm(plan[0]), *b = nsteps > 1 ? torus_multisend_algorithm(plan[1]) : a;
    if (strcmp(a, b))
        snprintf(buf, len, "%s+%s", a, b);
    else
        snprintf(buf, len, "%s", a);
}

torus_multisend_spec cb_spec_of(const pstep *s)
{
    torus_multisend_spec x = {s->ndest, s->dests, s->sc, s->sd, s->nsrc, s->srcs, s->rc, s->rd};
    return x;
}

/* Remote bytes a rank sends per call (MB/s), summed over steps. */
double cb_pattern_payload(const pattern *p, int me)
{
    double t = 0;
    for (int k = 0; k < p->nsteps; k++)
        for (int i = 0; i < p->st[k].ndest; i++)
            t += p->st[k].dests[i] != me ? (double)p->st[k].sc[i] : 0;
    return t;
}

static void pattern_desc(int pi, const opts *o, const pgrid *pg, char *buf, size_t len)
{
    if (pi == 0)
        snprintf(buf, len, "4-D nearest neighbour on a %dx%dx%dx%d grid: 8 blocks of size bytes per rank", pg->g4[0],
                 pg->g4[1], pg->g4[2], pg->g4[3]);
    else if (pi == 1)
        snprintf(buf, len, "3-D FFT transpose on a %d x %d grid: alltoall in the row (%d ranks), then in the column "
                           "(%d ranks), size bytes per pair",
                 pg->R, pg->C, pg->R, pg->C);
    else
        snprintf(buf, len, "%ld random destinations per rank (seed %llu, repeats and self possible), size bytes each",
                 o->k, (unsigned long long)o->seed);
}

void cb_print_pattern_header(int pi, const opts *o, const pgrid *pg, int sim)
{
    char d[256];
    pattern_desc(pi, o, pg, d, sizeof d);
    printf("# op: %s (%s)\n", cb_pat_name[pi], d);
    if (sim)
        printf("#%9s  %-20s %10s %10s %10s %10s %10s %10s %12s\n", "size", "algorithm", "setup_us", "min_us", "avg_us",
               "max_us", "MB/s", "bound_us", "ratio_vs_bnd");
    else
        printf("#%9s  %-20s %10s %10s %10s %10s %10s %12s %10s\n", "size", "algorithm", "setup_us", "min_us", "avg_us",
               "max_us", "MB/s", "ratio_vs_mpi", "breakeven");
}

void cb_print_pattern_row(const row *r, int sim)
{
    char label[100], mbs[32], x[32], y[32];
    cb_row_label(r, label, sizeof label);
    cb_fmt_num(mbs, sizeof mbs, r->mbs, 2);
    cb_fmt_num(x, sizeof x, sim ? r->bound_us : r->ratio, sim ? 2 : 3);
    cb_fmt_num(y, sizeof y, sim ? r->ratio_bound : r->breakeven, sim ? 3 : 1);
    printf("%10zu  %-20s %10.2f %10.2f %10.2f %10.2f %10s %10s %12s\n", r->size, label, r->setup_us, r->min_us,
           r->avg_us, r->max_us, mbs, x, y);
}

/* ---- patterns over MPI -------------------------------------------------------- */

/* What a row of a pattern op runs: ours (algorithm for
 * torus_multisend_init), or the MPI library's MPI_Neighbor_alltoallv on
 * a distributed-graph communicator per step, plain or (MPI-4) persistent. */
enum { PE_OURS, PE_MPI, PE_MPI_INIT };
typedef struct pentry {
    const char *name;
    int how;
    const char *alg;
    torus_multisend *plan[2];
    MPI_Comm g[2];
    MPI_Request rq[2];
} pentry;

static void pentry_setup(bench *b, pentry *e, const pattern *p, size_t half)
{
    (void)half; /* the persistent form's buffers (MPI-4 only) */
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        if (e->how == PE_OURS) {
            torus_multisend_spec sp = cb_spec_of(s);
            int rc = torus_multisend_init(b->c_auto, &sp, e->alg, &e->plan[k]);
            if (rc) {
                fprintf(stderr, "collbench: multisend_init '%s' failed on rank %d: %s\n", e->name, b->me,
                        torus_coll_error(b->c_auto));
                MPI_Abort(MPI_COMM_WORLD, rc == TORUS_COLL_ENOMEM ? KIT_EXIT_RESOURCE : KIT_EXIT_VERIFY);
            }
            continue;
        }
/* Open MPI's MPI_UNWEIGHTED is the address 2 cast to int *, which gcc 11+
 * takes for an array of size 0 passed where ints are read */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
        KIT_MPI_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, s->nsrc, s->srcs, MPI_UNWEIGHTED, s->ndest, s->dests,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &e->g[k]));
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
#if MPI_VERSION >= 4
        if (e->how == PE_MPI_INIT)
            KIT_MPI_CHECK(MPI_Neighbor_alltoallv_init(b->sbuf + (size_t)k * half, s->isc, s->isd, MPI_BYTE, b->rbuf + (size_t)k * half, s->irc, s->ird, MPI_BYTE,
                                               e->g[k], MPI_INFO_NULL, &e->rq[k]));
#endif
    }
}

/* One call: every step in turn (buffers: step k at sbuf/rbuf + k * half). */
static void pentry_call(bench *b, pentry *e, const pattern *p, size_t half)
{
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        unsigned char *sb = b->sbuf + (size_t)k * half, *rb = b->rbuf + (size_t)k * half;
        if (e->how == PE_OURS) {
            int rc = torus_multisend_start(e->plan[k], sb, rb);
            rc = rc ? rc : torus_multisend_wait(e->plan[k]);
            if (rc) {
                fprintf(stderr, "collbench: multisend '%s' failed on rank %d: %s\n", e->name, b->me,
                        torus_coll_error(b->c_auto));
                MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_VERIFY);
            }
        } else if (e->how == PE_MPI) {
            KIT_MPI_CHECK(MPI_Neighbor_alltoallv(sb, s->isc, s->isd, MPI_BYTE, rb, s->irc, s->ird, MPI_BYTE, e->g[k]));
        } else {
            KIT_MPI_CHECK(MPI_Start(&e->rq[k]));
            KIT_MPI_CHECK(MPI_Wait(&e->rq[k], MPI_STATUS_IGNORE));
        }
    }
}

static void pentry_free(pentry *e, const pattern *p)
{
    for (int k = 0; k < p->nsteps; k++) {
        if (e->how == PE_OURS) {
            torus_multisend_free(&e->plan[k]);
            continue;
        }
        if (e->how == PE_MPI_INIT)
            KIT_MPI_CHECK(MPI_Request_free(&e->rq[k]));
        KIT_MPI_CHECK(MPI_Comm_free(&e->g[k]));
    }
}

/* Sender's byte i of its k-th listing in step `step`, replay `it`. */
static unsigned char pat_byte(int from, int step, int k, size_t i, int it)
{
    return (unsigned char)kit_mix64(((uint64_t)from << 36) ^ ((uint64_t)step << 32) ^ ((uint64_t)k << 20) ^
                                ((uint64_t)it << 8) ^ kit_mix64(i));
}

#define PAT_GAP 0x5A

/* The reference result of step k through MPI_Alltoallv: a pair's blocks
 * travel as one alltoallv block in the sender's listing order, and the
 * receiver cuts it in its own listing order of that sender (the k-th
 * block from s is the k-th listing of s).  ref: rlen bytes, gaps PAT_GAP. */
static void pattern_reference(bench *b, const pstep *s, const unsigned char *sb, unsigned char *ref)
{
    int n = b->n;
    int *ic = calloc(4 * (size_t)n, sizeof *ic);
    size_t stot = 0, rtot = 0;
    for (int i = 0; i < s->ndest; i++)
        stot += s->sc[i];
    for (int j = 0; j < s->nsrc; j++)
        rtot += s->rc[j];
    unsigned char *a = malloc(stot + 1), *r = malloc(rtot + 1);
    size_t *cur = calloc((size_t)n, sizeof *cur);
    cb_need_memory(b, ic && a && r && cur, "alltoallv", stot + rtot);
    int *scnt = ic, *sdis = ic + n, *rcnt = ic + 2 * n, *rdis = ic + 3 * n;
    for (int i = 0; i < s->ndest; i++)
        scnt[s->dests[i]] += (int)s->sc[i];
    for (int j = 0; j < s->nsrc; j++)
        rcnt[s->srcs[j]] += (int)s->rc[j];
    for (int d = 0, so = 0, ro = 0; d < n; d++) {
        sdis[d] = so, rdis[d] = ro;
        so += scnt[d], ro += rcnt[d];
    }
    for (int i = 0; i < s->ndest; i++) {
        int d = s->dests[i];
        memcpy(a + sdis[d] + cur[d], sb + s->sd[i], s->sc[i]);
        cur[d] += s->sc[i];
    }
    KIT_MPI_CHECK(MPI_Alltoallv(a, scnt, sdis, MPI_BYTE, r, rcnt, rdis, MPI_BYTE, MPI_COMM_WORLD));
    memset(cur, 0, (size_t)n * sizeof *cur);
    memset(ref, PAT_GAP, s->rlen);
    for (int j = 0; j < s->nsrc; j++) {
        int f = s->srcs[j];
        memcpy(ref + s->rd[j], r + rdis[f] + cur[f], s->rc[j]);
        cur[f] += s->rc[j];
    }
    free(ic), free(a), free(r), free(cur);
}

/* Fills the send buffers of every step for replay `it`. */
static void pattern_fill(bench *b, const pattern *p, size_t half, int it)
{
    for (int k = 0; k < p->nsteps; k++) {
        const pstep *s = &p->st[k];
        unsigned char *sb = b->sbuf + (size_t)k * half;
        memset(sb, 0xC3, s->slen);
        for (int i = 0; i < s->ndest; i++)
            for (size_t x = 0; x < s->sc[i]; x++)
                sb[s->sd[i] + x] = pat_byte(b->me, k, i, x, it);
        memset(b->rbuf + (size_t)k * half, PAT_GAP, s->rlen);
    }
}

/* The references of --validate's replays: MPI_Alltoallv's result of every
 * step for replays 0, 1, 2 (made once per pattern, compared with every
 * entry). */
enum { PAT_REPLAYS = 3 };
typedef struct patref {
    unsigned char *r[PAT_REPLAYS][2];
} patref;

static void patref_make(bench *b, patref *pr, const pattern *p, size_t half)
{
    memset(pr, 0, sizeof *pr);
    for (int it = 0; it < PAT_REPLAYS; it++) {
        pattern_fill(b, p, half, it);
        for (int st = 0; st < p->nsteps; st++) {
            pr->r[it][st] = malloc(p->st[st].rlen);
            cb_need_memory(b, pr->r[it][st] != NULL, "multisend", p->st[st].rlen);
            pattern_reference(b, &p->st[st], b->sbuf + (size_t)st * half, pr->r[it][st]);
        }
    }
}

static void patref_free(patref *pr)
{
    for (int it = 0; it < PAT_REPLAYS; it++)
        free(pr->r[it][0]), free(pr->r[it][1]);
    memset(pr, 0, sizeof *pr);
}

/* --validate: three replays with changing data; every step's receive
 * buffer (gaps included) against the MPI_Alltoallv reference. */
static void pattern_validate(bench *b, checks *ck, pentry *e, const pattern *p, size_t half, const patref *pr,
                             const char *what)
{
    int k = cb_check_add(ck, what);
    for (int it = 0; it < PAT_REPLAYS; it++) {
        pattern_fill(b, p, half, it);
        pentry_call(b, e, p, half);
        for (int st = 0; st < p->nsteps; st++) {
            const pstep *s = &p->st[st];
            const unsigned char *ref = pr->r[it][st];
            const unsigned char *got = b->rbuf + (size_t)st * half;
            for (size_t x = 0; x < s->rlen && !ck->why[k][0]; x++)
                if (got[x] != ref[x])
                    snprintf(ck->why[k], sizeof ck->why[k],
                             "rank %d, replay %d, step %d: byte %zu of the receive buffer is %u, MPI_Alltoallv gave %u",
                             b->me, it, st, x, got[x], ref[x]);
        }
    }
}

/* Rank 0: one pattern at one size, from every rank's mean call and
 * set-up times (all, 2 ne per rank) and the bytes all ranks sent (paysum):
 * ours first, the library's last.  breakeven: calls after which set-up
 * plus calls cost less than the library's MPI_Neighbor_alltoallv with its
 * own set-up */
static void report_pattern(bench *b, int pi, const pentry *e, int ne, char (*chosen)[64], const double *all,
                           double paysum, size_t bytes, int iters, int wu)
{
    row rows[8];
    double mpi_avg = -1, mpi_setup = 0;
    for (int i = 0; i < ne; i++) {
        row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->kind = NKINDS + pi;
        r->size = bytes;
        r->iters = iters;
        r->warmup = wu;
        snprintf(r->alg, sizeof r->alg, "%s", e[i].name);
        snprintf(r->chosen, sizeof r->chosen, "%s", chosen[i]);
        double mn = 1e300, mx = 0, sum = 0, ssum = 0;
        for (int k = 0; k < b->n; k++) {
            double v = all[(size_t)k * 2 * (size_t)ne + 2 * (size_t)i];
            mn = v < mn ? v : mn, mx = v > mx ? v : mx, sum += v;
            ssum += all[(size_t)k * 2 * (size_t)ne + 2 * (size_t)i + 1];
        }
        r->min_us = mn * 1e6, r->max_us = mx * 1e6, r->avg_us = sum / b->n * 1e6;
        r->setup_us = ssum / b->n * 1e6;
        r->mbs = paysum > 0 && r->avg_us > 0 ? paysum / b->n / r->avg_us : -1;
        r->pred_us = -1, r->bound_us = -1, r->ratio_bound = -1, r->breakeven = -1;
        if (e[i].how == PE_MPI)
            mpi_avg = r->avg_us, mpi_setup = r->setup_us;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ne; i++) {
            if ((pass == 0) != (e[i].how == PE_OURS))
                continue;
            row *r = &rows[i];
            r->ratio = e[i].how != PE_MPI ? cb_ratio_of(r->avg_us, mpi_avg) : -1;
            if (e[i].how != PE_MPI && mpi_avg > 0) {
                double extra = r->setup_us - mpi_setup, gain = mpi_avg - r->avg_us;
                r->breakeven = extra <= 0 && gain >= 0 ? 0 : gain > 0 ? ceil(extra / gain) : -1;
            }
            cb_print_pattern_row(r, 0);
            if (cb_add_row(b->ri, r)) {
                fprintf(stderr, "collbench: out of memory for the results\n");
                MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
            }
        }
    kit_stdout_flush();
}

/* One pattern at one size, timed: per round and entry, set-up (timed),
 * warm-up, the calls each between barriers; validated in the first round. */
static void time_pattern(bench *b, int pi, pentry *e, int ne, pattern *p, size_t half, size_t bytes, checks *ck,
                         const patref *pr, double *all)
{
    const opts *o = b->o;
    int it = cb_iters_for(o, bytes), wu = cb_warmup_for(o, bytes);
    int nr = (int)o->rounds < it ? (int)o->rounds : it, it_r = (it + nr - 1) / nr;
    static double rmean[8][MAX_ROUNDS], rsetup[8][MAX_ROUNDS];
    double mine[16];
    char chosen[8][64];
    for (int round = 0; round < nr; round++)
        for (int i = 0; i < ne; i++) {
            KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            double t0 = MPI_Wtime();
            pentry_setup(b, &e[i], p, half);
            rsetup[i][round] = MPI_Wtime() - t0;
            for (int w = 0; w < (round ? wu > 0 : wu); w++)
                pentry_call(b, &e[i], p, half);
            double t = 0;
            for (int c = 0; c < it_r; c++) {
                KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
                double t1 = MPI_Wtime();
                pentry_call(b, &e[i], p, half);
                t += MPI_Wtime() - t1;
            }
            rmean[i][round] = t / it_r;
            if (e[i].how == PE_OURS)
                cb_plans_ran(e[i].plan, p->nsteps, chosen[i], sizeof chosen[i]);
            else
                snprintf(chosen[i], sizeof chosen[i], "%s", e[i].name);
            if (round == 0 && o->validate) {
                char what[160];
                snprintf(what, sizeof what, "%s '%s' at %zu bytes", cb_pat_name[pi], e[i].name, bytes);
                pattern_validate(b, ck, &e[i], p, half, pr, what);
            }
            pentry_free(&e[i], p);
        }
    for (int i = 0; i < ne; i++) {
        mine[2 * i] = cb_median(rmean[i], nr);
        mine[2 * i + 1] = cb_median(rsetup[i], nr);
    }
    KIT_MPI_CHECK(MPI_Gather(mine, 2 * ne, MPI_DOUBLE, all, 2 * ne, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    double pay = cb_pattern_payload(p, b->me), paysum = 0;
    KIT_MPI_CHECK(MPI_Reduce(&pay, &paysum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (!b->me)
        report_pattern(b, pi, e, ne, chosen, all, paysum, bytes, it_r * nr, wu);
}

void cb_run_pattern_mpi(bench *b, int pi, const pgrid *pg)
{
    const opts *o = b->o;
    pentry e[6];
    int ne = 0;
    if (cb_wanted(o, "mpi"))
        e[ne++] = (pentry){.name = "mpi", .how = PE_MPI};
#if MPI_VERSION >= 4
    if (cb_wanted(o, "mpi_init"))
        e[ne++] = (pentry){.name = "mpi_init", .how = PE_MPI_INIT};
#endif
    static const char *const ours[] = {"auto", "direct", "routed"};
    for (int i = 0; i < 3; i++)
        if (cb_wanted(o, ours[i]))
            e[ne++] = (pentry){.name = ours[i], .how = PE_OURS, .alg = ours[i]};
    if (!b->me)
        cb_print_pattern_header(pi, o, pg, 0);
    if (!ne)
        return;
    checks *ck = o->validate ? calloc(1, sizeof *ck) : NULL;
    double *all = !b->me ? malloc(2 * (size_t)b->n * (size_t)ne * sizeof *all) : NULL;
    if (!torus_all_ok(MPI_COMM_WORLD, (ck || !o->validate) && (all || b->me))) {
        if (!b->me)
            fprintf(stderr, "collbench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    /* validation adds an irregular sparse pattern (0..2K blocks, sizes 0..size) */
    int variants = o->validate && pi == 2 ? 2 : 1;
    for (int si = 0; si < o->nsizes; si++) {
        size_t bytes = o->sizes[si];
        for (int var = 0; var < variants; var++) {
            pattern p;
            int ok = !cb_pattern_make(&p, pi, o, pg, b->me, b->n, bytes, var, o->validate ? 3 : 0);
            size_t half = ok ? (p.st[0].slen > p.st[0].rlen ? p.st[0].slen : p.st[0].rlen) : 0;
            if (ok && p.nsteps > 1) {
                size_t h2 = p.st[1].slen > p.st[1].rlen ? p.st[1].slen : p.st[1].rlen;
                half = h2 > half ? h2 : half;
            }
            half = (half + 63) / 64 * 64;
            b->sbuf = ok ? malloc((size_t)p.nsteps * half) : NULL;
            b->rbuf = ok ? malloc((size_t)p.nsteps * half) : NULL;
            int too_big = ok && (p.st[0].slen > INT_MAX || p.st[0].rlen > INT_MAX || half > INT_MAX);
            if (!torus_all_ok(MPI_COMM_WORLD, ok && b->sbuf && b->rbuf && !too_big)) {
                if (!b->me)
                    fprintf(stderr, "collbench: out of memory (or beyond MPI's int counts) for %s at %zu bytes\n",
                            cb_pat_name[pi], bytes);
                MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
            }
            patref pr;
            memset(&pr, 0, sizeof pr);
            if (o->validate)
                patref_make(b, &pr, &p, half);
            pattern_fill(b, &p, half, 0);
            if (var == 1) {
                /* the irregular pattern is only validated */
                for (int i = 0; i < ne; i++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s (irregular) '%s' at %zu bytes", cb_pat_name[pi], e[i].name, bytes);
                    pentry_setup(b, &e[i], &p, half);
                    pattern_validate(b, ck, &e[i], &p, half, &pr, what);
                    pentry_free(&e[i], &p);
                }
            } else {
                time_pattern(b, pi, e, ne, &p, half, bytes, ck, &pr, all);
            }
            if (o->validate)
                cb_decide(b, ck);
            patref_free(&pr);
            free(b->sbuf), free(b->rbuf);
            b->sbuf = b->rbuf = NULL;
            cb_pattern_free(&p);
        }
    }
    free(ck);
    free(all);
}
