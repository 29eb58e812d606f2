/* simulate.c - collbench --simulate SHAPE: the collectives and the
 * multisend patterns on the timed simulator with a BlueGene/L link model,
 * each pattern row beside its link-model bound. */
#include "collbench.h"

/* ---- patterns on the timed simulator ------------------------------------------ */

/* The link-model bound of one call: each step takes at least
 *   max(busiest link, busiest CPU) + latency,
 * where the busiest link carries the wire bytes of every remote block
 * whose route (dimension by dimension, the shorter way round, half each
 * way at exactly half a ring: the model's own routes) crosses it, at
 * payload x (packet + header) / packet (no packetisation carries less),
 * over the link bandwidth; the busiest CPU writes the packets of all it
 * sends and reads the packets of all it receives, aggregated into as few
 * packets as the bytes allow, plus one message cost at each end when it
 * sends or receives anything; the latency is that of the longest route.
 * No algorithm can beat it under the model (an algorithm that forwards
 * blocks only adds link bytes and CPU); how close one comes is the
 * ratio time / bound. */
static double pattern_bound(const opts *o, int pi, const pgrid *pg, const torus_map *m, const torus_timed_params *prm,
                            size_t size)
{
    const torus_shape *sh = &m->shape;
    int n = sh->n, nd = sh->ndims;
    double *load = calloc((size_t)n * (size_t)nd * 2, sizeof *load);
    double *out = calloc(2 * (size_t)n, sizeof *out), *in = out ? out + n : NULL;
    if (!load || !out) {
        free(load), free(out);
        return -1;
    }
    double wire = (prm->packet_bytes + prm->header_bytes) / prm->packet_bytes, total = 0;
    int nsteps = pi == 1 ? 2 : 1;
    for (int step = 0; step < nsteps; step++) {
        memset(load, 0, (size_t)n * (size_t)nd * 2 * sizeof *load);
        memset(out, 0, 2 * (size_t)n * sizeof *out);
        int maxhops = 0;
        for (int r = 0; r < n; r++) {
            pattern p;
            if (cb_pattern_make(&p, pi, o, pg, r, n, size, 0, 0)) {
                free(load), free(out);
                return -1;
            }
            const pstep *s = &p.st[step];
            for (int i = 0; i < s->ndest; i++) {
                int d = s->dests[i];
                if (d == r || !s->sc[i])
                    continue;
                double bytes = (double)s->sc[i];
                out[r] += bytes, in[d] += bytes;
                int c[TORUS_MAX_DIMS], hops = 0;
                memcpy(c, &m->coords[(size_t)r * (size_t)nd], (size_t)nd * sizeof *c);
                const int *t = &m->coords[(size_t)d * (size_t)nd];
                for (int dim = 0; dim < nd; dim++) {
                    int k = sh->k[dim], fw = (t[dim] - c[dim] + k) % k, bw = (c[dim] - t[dim] + k) % k;
                    if (sh->mesh[dim]) /* a line: the only way */
                        fw = t[dim] > c[dim] ? fw : 0, bw = t[dim] < c[dim] ? bw : 0;
                    /* the shares each way: the shorter, or half each at a tie */
                    double sf = fw && (!bw || fw < bw) ? 1 : fw && fw == bw ? 0.5 : 0, sb = fw || bw ? 1 - sf : 0;
                    for (int dir = 0; dir < 2; dir++) {
                        double share = dir ? sb : sf;
                        int steps = dir ? bw : fw, x = c[dim];
                        for (int h = 0; share > 0 && h < steps; h++) {
                            c[dim] = x;
                            int lin = torus_map_linear(sh, c);
                            load[((size_t)lin * (size_t)nd + (size_t)dim) * 2 + (size_t)dir] += share * bytes * wire;
                            x = dir ? (x - 1 + k) % k : (x + 1) % k;
                        }
                    }
                    hops += fw && (!bw || fw <= bw) ? fw : bw;
                    c[dim] = t[dim];
                }
                maxhops = hops > maxhops ? hops : maxhops;
            }
            cb_pattern_free(&p);
        }
        double link = 0, cpu = 0;
        for (size_t i = 0; i < (size_t)n * (size_t)nd * 2; i++)
            link = load[i] > link ? load[i] : link;
        for (int r = 0; r < n; r++) {
            double t = ceil(out[r] / prm->packet_bytes) * prm->cpu_send_pkt_s +
                       ceil(in[r] / prm->packet_bytes) * prm->cpu_recv_pkt_s + (out[r] > 0) * prm->cpu_msg_s +
                       (in[r] > 0) * prm->cpu_msg_s;
            cpu = t > cpu ? t : cpu;
        }
        link /= prm->link_bw;
        total += (link > cpu ? link : cpu) + maxhops * prm->latency_s;
    }
    free(load), free(out);
    return total;
}

typedef struct patsim {
    const opts *o;
    int pi;
    const pgrid *pg;
    size_t bytes;
    const char *alg;
    int n, iters, warmup;
    double *mean, *setup;
    char ran[64];
    int oom;
} patsim;

static int patsim_body(torus_coll *c, int r, void *arg)
{
    patsim *s = arg;
    pattern p;
    if (cb_pattern_make(&p, s->pi, s->o, s->pg, r, s->n, s->bytes, 0, 0)) {
        s->oom = 1;
        return TORUS_COLL_ENOMEM;
    }
    size_t half = 1;
    for (int k = 0; k < p.nsteps; k++) {
        half = p.st[k].slen > half ? p.st[k].slen : half;
        half = p.st[k].rlen > half ? p.st[k].rlen : half;
    }
    unsigned char *sb = calloc((size_t)p.nsteps, half), *rb = calloc((size_t)p.nsteps, half);
    torus_multisend *plan[2] = {NULL, NULL};
    int rc = sb && rb ? torus_coll_barrier(c) : TORUS_COLL_ENOMEM;
    s->oom |= rc == TORUS_COLL_ENOMEM;
    double t0 = torus_coll_vtime(c);
    for (int k = 0; k < p.nsteps && !rc; k++) {
        torus_multisend_spec sp = cb_spec_of(&p.st[k]);
        rc = torus_multisend_init(c, &sp, s->alg, &plan[k]);
    }
    s->setup[r] = torus_coll_vtime(c) - t0;
    for (int i = -s->warmup; i < s->iters && !rc; i++) {
        rc = torus_coll_barrier(c);
        double t1 = torus_coll_vtime(c);
        for (int k = 0; k < p.nsteps && !rc; k++) {
            rc = torus_multisend_start(plan[k], sb + (size_t)k * half, rb + (size_t)k * half);
            rc = rc ? rc : torus_multisend_wait(plan[k]);
        }
        if (i == 0)
            s->mean[r] = 0;
        if (i >= 0)
            s->mean[r] += (torus_coll_vtime(c) - t1) / s->iters;
    }
    if (r == 0)
        cb_plans_ran(plan, p.nsteps, s->ran, sizeof s->ran);
    torus_multisend_free(&plan[0]);
    torus_multisend_free(&plan[1]);
    free(sb), free(rb);
    cb_pattern_free(&p);
    return rc;
}

/* --simulate for the pattern ops: auto, direct and routed on the timed
 * simulator, each row with the link-model bound and the ratio to it. */
static int simulate_patterns(const opts *o, run_info *ri, const torus_map *map, const torus_timed_params *prm,
                             char *err, size_t errlen)
{
    int n = map->shape.n;
    pgrid pg;
    cb_pgrid_of(&pg, n, &map->shape);
    double *mean = malloc(2 * (size_t)n * sizeof *mean);
    if (!mean) {
        snprintf(err, errlen, "out of memory for %d simulated ranks", n);
        return KIT_EXIT_RESOURCE;
    }
    static const char *const names[] = {"auto", "direct", "routed"};
    int rc = 0;
    for (int pi = 0; pi < 3 && !rc; pi++) {
        if (!o->pats[pi])
            continue;
        cb_print_pattern_header(pi, o, &pg, 1);
        for (int si = 0; si < o->nsizes && !rc; si++) {
            size_t bytes = o->sizes[si];
            double bound = pattern_bound(o, pi, &pg, map, prm, bytes);
            for (int a = 0; a < 3 && !rc; a++) {
                if (!cb_wanted(o, names[a]))
                    continue;
                patsim s = {.o = o, .pi = pi, .pg = &pg, .bytes = bytes, .alg = names[a], .n = n,
                            .iters = cb_iters_for(o, bytes), .warmup = cb_warmup_for(o, bytes), .mean = mean,
                            .setup = mean + n};
                torus_coll_vrun_result res;
                if (torus_coll_vrun_timed(map, prm, NULL, patsim_body, &s, &res) || s.oom || bound < 0) {
                    snprintf(err, errlen, "out of memory simulating %s '%s' at %zu bytes on %d ranks", cb_pat_name[pi],
                             names[a], bytes, n);
                    rc = KIT_EXIT_RESOURCE;
                    break;
                }
                if (res.deadlock || res.failed_rank >= 0) {
                    fprintf(stderr, "collbench: FAILED simulated %s '%s' at %zu bytes: %s\n", cb_pat_name[pi], names[a],
                            bytes, res.failed_rank >= 0 ? res.err : "deadlock: ranks left waiting that nothing could wake");
                    ri->failures++;
                    continue;
                }
                row r;
                memset(&r, 0, sizeof r);
                r.kind = NKINDS + pi;
                r.size = bytes;
                r.iters = s.iters;
                r.warmup = s.warmup;
                snprintf(r.alg, sizeof r.alg, "%s", names[a]);
                snprintf(r.chosen, sizeof r.chosen, "%s", s.ran);
                double mn = mean[0], mx = mean[0], sum = 0, ssum = 0;
                for (int j = 0; j < n; j++) {
                    mn = mean[j] < mn ? mean[j] : mn, mx = mean[j] > mx ? mean[j] : mx, sum += mean[j];
                    ssum += mean[n + j];
                }
                r.min_us = mn * 1e6, r.max_us = mx * 1e6, r.avg_us = sum / n * 1e6;
                r.setup_us = ssum / n * 1e6;
                pattern p;
                double pay = 0;
                if (!cb_pattern_make(&p, pi, o, &pg, 0, n, bytes, 0, 0)) {
                    pay = cb_pattern_payload(&p, 0);
                    cb_pattern_free(&p);
                }
                r.mbs = pay > 0 && r.avg_us > 0 ? pay / r.avg_us : -1;
                r.pred_us = -1, r.ratio = -1, r.breakeven = -1;
                r.bound_us = bound * 1e6;
                r.ratio_bound = bound > 0 ? r.max_us / r.bound_us : -1;
                cb_print_pattern_row(&r, 1);
                kit_stdout_flush();
                if (cb_add_row(ri, &r)) {
                    snprintf(err, errlen, "out of memory for the results");
                    rc = KIT_EXIT_RESOURCE;
                }
            }
        }
    }
    free(mean);
    return rc;
}

/* ---- --simulate -------------------------------------------------------------- */

/* Ping-pong between virtual ranks 0 and 1 straight on the timed
 * transport's message interface: the simulated counterpart of the MPI
 * calibration. */
typedef struct pingpong_sim {
    torus_timed *tt;
    torus_transport tp[2];
    size_t bytes;
    int reps, state[2], done[2], failed;
    torus_req rq[2][2];
    unsigned char *buf[3]; /* rank 0 sends from 0 and receives into 2; rank 1 uses 1 */
} pingpong_sim;

/* 1 when request r has completed (or was none), 0 while pending. */
static int req_done(pingpong_sim *p, torus_transport *t, torus_req *r)
{
    if (r->id < 0)
        return 1;
    int rc = t->test(t->impl, r);
    if (rc < 0)
        p->failed = 1;
    if (rc != 0)
        r->id = -1;
    return rc != 0;
}

static int pp_step(void *ctx, int r, double now, double *cpu_s)
{
    pingpong_sim *p = ctx;
    (void)now;
    *cpu_s = 0;
    if (r > 1)
        return TORUS_TIMED_DONE;
    torus_transport *t = &p->tp[r];
    int peer = 1 - r, moved = 0, *st = &p->state[r];
    if (r == 0) {
        /* 0: start a round (receive posted first), 1: wait for both */
        if (*st == 0) {
            p->failed |= t->irecv(t->impl, peer, p->buf[2], p->bytes, 0, &p->rq[0][0]) != 0;
            p->failed |= t->isend(t->impl, peer, p->buf[0], p->bytes, 0, &p->rq[0][1]) != 0;
            *st = 1, moved = 1;
        } else if (*st == 1 && (req_done(p, t, &p->rq[0][0]) & req_done(p, t, &p->rq[0][1]))) {
            /* '&', not '&&': both requests are tested (and freed) every step */
            *st = ++p->done[0] == p->reps ? 2 : 0, moved = 1;
        }
    } else {
        /* 0: post the receive, 1: wait for it and answer, 2: wait for the answer to leave */
        if (*st == 0) {
            p->failed |= t->irecv(t->impl, peer, p->buf[1], p->bytes, 0, &p->rq[1][0]) != 0;
            *st = 1, moved = 1;
        } else if (*st == 1 && req_done(p, t, &p->rq[1][0])) {
            p->failed |= t->isend(t->impl, peer, p->buf[1], p->bytes, 0, &p->rq[1][1]) != 0;
            *st = 2, moved = 1;
        } else if (*st == 2 && req_done(p, t, &p->rq[1][1])) {
            *st = ++p->done[1] == p->reps ? 3 : 0, moved = 1;
        }
    }
    *cpu_s = torus_timed_take_cpu(p->tt, r);
    if ((r == 0 && *st == 2) || (r == 1 && *st == 3))
        return TORUS_TIMED_DONE;
    return moved ? TORUS_TIMED_MOVED : TORUS_TIMED_IDLE;
}

/* Half a round trip of `bytes` between virtual ranks 0 and 1; -1 on error. */
static double sim_pingpong(const torus_map *m, const torus_timed_params *prm, size_t bytes)
{
    enum { REPS = 4 };
    pingpong_sim p;
    memset(&p, 0, sizeof p);
    p.bytes = bytes;
    p.reps = REPS;
    for (int i = 0; i < 3; i++)
        p.buf[i] = calloc(bytes, 1);
    p.tt = torus_timed_create(m, prm);
    double res = -1;
    if (p.tt && p.buf[0] && p.buf[1] && p.buf[2]) {
        torus_timed_bind(p.tt, 0, &p.tp[0]);
        torus_timed_bind(p.tt, 1, &p.tp[1]);
        torus_timed_stats st;
        if (torus_timed_run(p.tt, pp_step, &p, &st) == 0 && !p.failed)
            res = st.makespan / (2.0 * REPS);
    }
    torus_timed_destroy(p.tt);
    free(p.buf[0]), free(p.buf[1]), free(p.buf[2]);
    return res;
}

/* One (op, algorithm, size) on every virtual rank. */
typedef struct simcase {
    int kind;
    const char *alg; /* NULL: auto */
    size_t bytes;
    int n, iters, warmup;
    const size_t *cnt, *dis; /* uniform counts, shared read-only by all ranks */
    double *mean;            /* per rank: simulated seconds per call */
    char ran[64];            /* what rank 0 ran */
    int oom;
} simcase;

static int sim_call(torus_coll *c, const simcase *s, unsigned char *sb, unsigned char *rb)
{
    switch (s->kind) {
    case K_BARRIER:
        return torus_coll_barrier(c);
    case K_BCAST:
        return torus_coll_bcast(c, sb, s->bytes, 0);
    case K_ALLREDUCE:
        return torus_coll_allreduce(c, sb, rb, s->bytes / 8, TORUS_DOUBLE, TORUS_OP_SUM);
    case K_ALLTOALL:
        return torus_coll_alltoall(c, sb, rb, s->bytes);
    default:
        return torus_coll_alltoallv(c, sb, s->cnt, s->dis, rb, s->cnt, s->dis);
    }
}

/* The OSU loop on the simulated clock: a (not timed) barrier before each
 * timed call, as over MPI. */
static int sim_body(torus_coll *c, int r, void *arg)
{
    simcase *s = arg;
    int rc = s->alg ? torus_coll_force(c, cb_kind_op[s->kind], s->alg) : 0;
    if (rc)
        return rc;
    size_t nb = is_a2a(s->kind) ? s->bytes * (size_t)s->n : s->bytes;
    unsigned char *sb = calloc(nb ? nb : 1, 1);
    unsigned char *rb = s->kind == K_BCAST || s->kind == K_BARRIER ? NULL : calloc(nb ? nb : 1, 1);
    if (!sb || (!rb && s->kind != K_BCAST && s->kind != K_BARRIER)) {
        free(sb), free(rb);
        s->oom = 1;
        return TORUS_COLL_ENOMEM;
    }
    for (int i = 0; i < s->warmup && !rc; i++)
        rc = sim_call(c, s, sb, rb);
    double t = 0;
    for (int i = 0; i < s->iters && !rc; i++) {
        rc = torus_coll_barrier(c);
        double t0 = torus_coll_vtime(c);
        rc = rc ? rc : sim_call(c, s, sb, rb);
        t += torus_coll_vtime(c) - t0;
    }
    s->mean[r] = t / s->iters;
    if (r == 0)
        snprintf(s->ran, sizeof s->ran, "%s", torus_coll_last(c, cb_kind_op[s->kind]));
    free(sb), free(rb);
    return rc;
}

/* Bytes the simulation of one call holds, all ranks together: buffers,
 * the algorithm's scratch and the transport's copies of messages in
 * flight (about as much again), a coroutine stack's touched pages each. */
static double sim_need(int kind, size_t bytes, int n)
{
    double per;
    switch (kind) {
    case K_BARRIER:
        per = 0;
        break;
    case K_BCAST:
        per = 3.0 * (double)bytes;
        break;
    case K_ALLREDUCE:
        per = 4.0 * (double)bytes;
        break;
    default:
        per = 4.0 * (double)bytes * n + 32.0 * n; /* + the counts torus_coll_alltoall makes */
        break;
    }
    return (double)n * (per + 64 * 1024);
}

static double free_memory(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    return pages > 0 && psize > 0 ? (double)pages * (double)psize : 1e9;
}

/* The simulated machine of one run: its map, link model, and a context
 * on the map for choices and predictions (never sends). */
typedef struct simrun {
    const opts *o;
    run_info *ri;
    torus_map map;
    torus_timed_params prm;
    torus_coll *probe;
    int n;
    double *mean;
    size_t *cnt;
    size_t maxsize[NKINDS];
} simrun;

/* Calibration: the same ping-pong as over MPI, on the simulated links,
 * into ri's alpha, beta, gamma and their description.  0 or an exit code. */
static int sim_calibrate(simrun *sr, char *err, size_t errlen)
{
    const opts *o = sr->o;
    run_info *ri = sr->ri;
    enum { BIG = 1 << 20 };
    if (sr->n > 1) {
        double t8 = sim_pingpong(&sr->map, &sr->prm, 8), tb = sim_pingpong(&sr->map, &sr->prm, BIG);
        if (t8 < 0 || tb < 0) {
            snprintf(err, errlen, "the simulated ping-pong failed (out of memory?)");
            return KIT_EXIT_RESOURCE;
        }
        ri->alpha = t8;
        ri->beta = tb > t8 ? (tb - t8) / (BIG - 8) : 0;
        snprintf(ri->calib, sizeof ri->calib,
                 "simulated ping-pong between virtual ranks 0 and 1 (8 bytes, 1 MiB); gamma: the model's %g cycle "
                 "per byte at %g MHz; link %.4g bytes/s, %.3g s per link",
                 BGL_GAMMA_CYCLES, BGL_HZ / 1e6, o->link_bw, o->latency);
    } else {
        snprintf(ri->calib, sizeof ri->calib, "one simulated rank: no messages, alpha and beta 0");
    }
    ri->gamma = sr->prm.cpu_reduce_byte_s;
    return 0;
}

/* Sizes cut to what fits (sr->maxsize per op): one notice line for the
 * whole run */
static void sim_cut_sizes(simrun *sr)
{
    const opts *o = sr->o;
    double budget = free_memory() / 2;
    char cut[1024] = "";
    size_t co = 0;
    for (int k = 0; k < NKINDS; k++) {
        sr->maxsize[k] = 0;
        if (!o->kinds[k] || k == K_BARRIER)
            continue;
        for (int i = 0; i < o->nsizes; i++)
            if (sim_need(k, o->sizes[i], sr->n) <= budget)
                sr->maxsize[k] = o->sizes[i];
        if (sr->maxsize[k] == o->sizes[o->nsizes - 1] || co >= sizeof cut)
            continue;
        if (sr->maxsize[k])
            co += (size_t)snprintf(cut + co, sizeof cut - co, "%s %s up to %zu bytes", co ? "," : "", cb_kind_name[k],
                                   sr->maxsize[k]);
        else
            co += (size_t)snprintf(cut + co, sizeof cut - co, "%s %s none", co ? "," : "", cb_kind_name[k]);
    }
    if (cut[0])
        fprintf(stderr, "collbench: notice: sizes cut to fit %d simulated ranks in %.1f GiB (half the free memory):%s\n",
                sr->n, budget / (1 << 30), cut);
}

/* One row of a simulated op from every virtual rank's mean, printed and
 * kept.  0 or an exit code. */
static int sim_row(simrun *sr, const simcase *sc, const char *name, char *err, size_t errlen)
{
    int n = sr->n, kind = sc->kind;
    const double *mean = sr->mean;
    torus_coll_op op = cb_kind_op[kind];
    row r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.size = sc->bytes;
    r.iters = sc->iters;
    r.warmup = sc->warmup;
    snprintf(r.alg, sizeof r.alg, "%s", name);
    snprintf(r.chosen, sizeof r.chosen, "%s", sc->ran[0] ? sc->ran : torus_coll_choice(sr->probe, op, sc->bytes));
    double mn = mean[0], mx = mean[0], sum = 0;
    for (int j = 0; j < n; j++) {
        mn = mean[j] < mn ? mean[j] : mn;
        mx = mean[j] > mx ? mean[j] : mx;
        sum += mean[j];
    }
    r.min_us = mn * 1e6;
    r.max_us = mx * 1e6;
    r.avg_us = sum / n * 1e6;
    double pay = cb_payload(kind, sc->bytes, n);
    r.mbs = pay > 0 && r.avg_us > 0 ? pay / r.avg_us : -1;
    double pr = torus_coll_predict(sr->probe, op, r.chosen, sc->bytes, sr->ri->alpha, sr->ri->beta, sr->ri->gamma);
    r.pred_us = pr >= 0 ? pr * 1e6 : -1;
    r.ratio = -1; /* no MPI library in the simulator */
    cb_print_row(&r);
    kit_stdout_flush();
    if (cb_add_row(sr->ri, &r)) {
        snprintf(err, errlen, "out of memory for the results");
        return KIT_EXIT_RESOURCE;
    }
    return 0;
}

/* One op over every size and algorithm on the simulator.  0 or an exit
 * code. */
static int simulate_op(simrun *sr, int kind, char *err, size_t errlen)
{
    const opts *o = sr->o;
    int n = sr->n;
    torus_coll_op op = cb_kind_op[kind];
    const char *const *algs = torus_coll_algorithms(op);
    int nalg = 0;
    while (algs[nalg])
        nalg++;
    cb_print_header(kind);
    if (!nalg) {
        printf("# (no %s algorithm registered yet)\n", torus_coll_op_name(op));
        return 0;
    }
    size_t sizes1[1] = {0};
    const size_t *sizes = kind == K_BARRIER ? sizes1 : o->sizes;
    int nsizes = kind == K_BARRIER ? 1 : o->nsizes;
    skips *sk = calloc(1, sizeof *sk);
    if (!sk) {
        snprintf(err, errlen, "out of memory");
        return KIT_EXIT_RESOURCE;
    }
    int rc = 0;
    size_t prev_bytes = (size_t)-1;
    for (int si = 0; si < nsizes && !rc; si++) {
        size_t bytes = sizes[si];
        if (kind != K_BARRIER && bytes > sr->maxsize[kind])
            break;
        if (kind == K_ALLREDUCE)
            bytes = bytes < 8 ? 8 : bytes / 8 * 8;
        if (bytes == prev_bytes)
            continue;
        prev_bytes = bytes;
        for (int j = 0; j < n; j++)
            sr->cnt[j] = bytes, sr->cnt[n + j] = (size_t)j * bytes;
        for (int a = -1; a < nalg && a < MAX_ALGS && !rc; a++) {
            const char *name = a < 0 ? "auto" : algs[a];
            if (!cb_wanted(o, name) || (a >= 0 && sk->fell_back[a]))
                continue;
            if (a >= 0 && torus_coll_predict(sr->probe, op, name, bytes, 1, 1, 1) < 0) {
                cb_skip_cannot(sk, a, bytes);
                continue;
            }
            simcase sc = {.kind = kind, .alg = a < 0 ? NULL : name, .bytes = bytes, .n = n,
                          .iters = cb_iters_for(o, bytes), .warmup = cb_warmup_for(o, bytes), .cnt = sr->cnt,
                          .dis = sr->cnt + n, .mean = sr->mean};
            torus_coll_vrun_result res;
            if (torus_coll_vrun_timed(&sr->map, &sr->prm, NULL, sim_body, &sc, &res) || sc.oom) {
                snprintf(err, errlen, "out of memory simulating %s '%s' at %zu bytes on %d ranks", cb_kind_name[kind],
                         name, bytes, n);
                rc = KIT_EXIT_RESOURCE;
                break;
            }
            if (res.deadlock || res.failed_rank >= 0) {
                fprintf(stderr, "collbench: FAILED simulated %s '%s' at %zu bytes: %s\n", cb_kind_name[kind], name,
                        bytes, res.failed_rank >= 0 ? res.err : "deadlock: ranks left waiting that nothing could wake");
                sr->ri->failures++;
                continue;
            }
            if (a >= 0 && sc.ran[0] && strcmp(sc.ran, name)) {
                cb_skip_fell_back(sk, a, 1, kind, name, sc.ran, bytes);
                continue;
            }
            rc = sim_row(sr, &sc, name, err, errlen);
        }
    }
    cb_print_skips(kind, algs, nalg, sk);
    free(sk);
    return rc;
}

/* Frees what sim_open made. */
static void sim_close(simrun *sr, torus_timed *probe_tt)
{
    torus_coll_destroy(sr->probe);
    torus_timed_destroy(probe_tt);
    free(sr->mean), free(sr->cnt);
    torus_map_free(&sr->map);
}

int cb_simulate_main(const opts *o, run_info *ri, char *err, size_t errlen)
{
    torus_shape s;
    char e2[300];
    if (torus_shape_parse(o->simulate, 0, &s, e2, sizeof e2)) {
        snprintf(err, errlen, "--simulate: %s", e2);
        return KIT_EXIT_USAGE;
    }
    if (s.n > 64 * 32 * 32) {
        snprintf(err, errlen, "--simulate: shape '%s' has %d positions: allowed at most 65536 (64x32x32)",
                 o->simulate, s.n);
        return KIT_EXIT_USAGE;
    }
    static simrun sr;
    memset(&sr, 0, sizeof sr);
    sr.o = o, sr.ri = ri;
    if (torus_map_xyzt(&sr.map, &s)) {
        snprintf(err, errlen, "out of memory for the map of %d simulated ranks", s.n);
        return KIT_EXIT_RESOURCE;
    }
    int n = sr.n = s.n;
    ri->ranks = n;
    ri->nodes = n;
    ri->per_node = 1;
    ri->node_source = "simulated";
    ri->mode = "simulate:bgl";
    ri->rounds = 1;
    torus_shape_format(&s, ri->shape, sizeof ri->shape);
    snprintf(ri->shape_src, sizeof ri->shape_src, "--simulate");
    sr.prm = (torus_timed_params){.cap = 1, .outstanding = 1, .link_bw = o->link_bw, .latency_s = o->latency,
                                  .header_bytes = BGL_HEADER_BYTES, .packet_bytes = BGL_PACKET_BYTES,
                                  .cpu_msg_s = BGL_MSG_CYCLES / BGL_HZ, .cpu_send_pkt_s = BGL_SEND_PKT_CYCLES / BGL_HZ,
                                  .cpu_recv_pkt_s = BGL_RECV_PKT_CYCLES / BGL_HZ,
                                  .cpu_reduce_byte_s = BGL_GAMMA_CYCLES / BGL_HZ};
    int rc = sim_calibrate(&sr, err, errlen);
    if (rc) {
        torus_map_free(&sr.map);
        return rc;
    }
    cb_print_preamble(o, ri, "the timed simulator's clock (torus_coll_vtime), barrier between calls");

    /* a context on the map for choices and predictions (never sends) */
    torus_timed *probe_tt = torus_timed_create(&sr.map, &sr.prm);
    torus_transport probe_tp;
    if (probe_tt) {
        torus_timed_bind(probe_tt, 0, &probe_tp);
        torus_coll_config cfg = {.map = &sr.map, .me = 0, .tp = &probe_tp};
        if (torus_coll_create(&sr.probe, &cfg, e2, sizeof e2)) {
            torus_timed_destroy(probe_tt);
            torus_map_free(&sr.map);
            snprintf(err, errlen, "%s", e2);
            return KIT_EXIT_USAGE;
        }
    }
    sr.mean = malloc((size_t)n * sizeof *sr.mean);
    sr.cnt = malloc(2 * (size_t)n * sizeof *sr.cnt);
    if (!sr.probe || !sr.mean || !sr.cnt) {
        sim_close(&sr, probe_tt);
        snprintf(err, errlen, "out of memory for %d simulated ranks", n);
        return KIT_EXIT_RESOURCE;
    }
    sim_cut_sizes(&sr);
    for (int kind = 0; kind < NKINDS && !rc; kind++)
        if (o->kinds[kind])
            rc = simulate_op(&sr, kind, err, errlen);
    if (!rc)
        rc = simulate_patterns(o, ri, &sr.map, &sr.prm, err, errlen);
    sim_close(&sr, probe_tt);
    return rc;
}
