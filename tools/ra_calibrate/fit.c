/* fit.c - ra_calibrate's params from its figures: the bounds' costs as
 * measured, and the waits the two runs showed beyond their bounds' work
 * (paper 002 fits t_o^p, sec. 4.3, and t_hop, sec. 6.2, to measured runs
 * the same way). */
#include "ra_calibrate.h"

/* The waits: cycles a node's cores spent per update in the two runs, less
 * the CPU bound's cycles (tm_evaluate on the run's own shape) */
static void fit_waits(const cal *c, cal_figs *f, tm_params *prm)
{
    double t_local = f->t_local;
    f->cyc_routed = 0, f->cyc_direct = 0;
    {
        tm_row row;
        char e[256];
        prm->algorithm = TM_ROUTED;
        if (tm_evaluate(prm, &f->shape, &row, e, sizeof e) == 0)
            f->cyc_routed = row.cycles_per_update;
        torus_shape flat;
        char fs[32];
        snprintf(fs, sizeof fs, "%d", c->P);
        prm->algorithm = TM_DIRECT;
        if (torus_shape_parse(fs, c->P, &flat, e, sizeof e) == 0 && tm_evaluate(prm, &flat, &row, e, sizeof e) == 0)
            f->cyc_direct = row.cycles_per_update;
        prm->algorithm = TM_ROUTED;
    }
    f->spent_routed = c->ni.nnodes / f->routed_gups * c->used;
    f->spent_direct = c->ni.nnodes / f->base_gups * c->used;
    /* a bound its own algorithm's run beat was measured high (the lone
     * figures, e.g. a test's cost with the other ranks asleep, are not
     * always the least): its algorithm's costs beyond t_local are lowered
     * in proportion until the bound's work is what that run spent */
    if (f->cyc_direct > f->spent_direct && f->cyc_direct > t_local) {
        double k = f->spent_direct > t_local ? (f->spent_direct - t_local) / (f->cyc_direct - t_local) : 0;
        prm->t_test *= k, prm->t_exposed *= k, prm->t_send *= k, prm->t_recv *= k;
        f->cyc_direct = f->spent_direct > t_local ? f->spent_direct : t_local;
    }
    if (f->cyc_routed > f->spent_routed && f->H > 0 && f->cyc_routed > t_local) {
        double k = f->spent_routed > t_local ? (f->spent_routed - t_local) / (f->cyc_routed - t_local) : 0;
        prm->t_hop *= k;
        f->cyc_routed = f->spent_routed > t_local ? f->spent_routed : t_local;
    }
    /* a run no slower than its bound's work waits nothing; written as a
     * hundredth of a ns, not 0, which torusmodel reads as "no wait fitted"
     * (and then predicts from node rates instead) */
    prm->t_wait_routed = f->spent_routed - f->cyc_routed > 0.01 ? f->spent_routed - f->cyc_routed : 0.01;
    prm->t_wait_direct = f->spent_direct - f->cyc_direct > 0.01 ? f->spent_direct - f->cyc_direct : 0.01;
}

void cal_fit_params(const cal *c, cal_figs *f, tm_params *prm)
{
    /* the baseline's mean bucket: its message's payload */
    f->bucket = c->P >= 2 ? tm_bucket_sim(c->P, 1024, 100000, 1) : 1;
    if (f->bucket < 1)
        f->bucket = 1;

    /* the local path's cost less the final t_local (lowered above by the
     * node's share or the routed run on one rank) and the test */
    /* (on one rank the baseline's run is that local path itself, whose
     * rate varies by some percent run to run: the faster figure) */
    if (c->P == 1 && c->used * c->ni.nnodes / f->base_gups < f->local_path)
        f->local_path = c->used * c->ni.nnodes / f->base_gups;
    f->t_exposed = f->local_path - f->t_local - f->t_test > 0 ? f->local_path - f->t_local - f->t_test : 0;

    tm_params_defaults(prm);
    prm->clock_hz = 1e9;
    prm->t_local = f->t_local;
    prm->t_local_plain = 0;
    prm->t_test = f->t_test;
    prm->t_exposed = f->t_exposed;
    prm->t_send = cal_at_payload(f->ts, 8 * f->bucket);
    prm->t_recv = cal_at_payload(f->tr, 8 * f->bucket);
    prm->updates_per_message = f->bucket;
    prm->t_overhead = 0;
    prm->t_hop = f->t_hop;
    prm->bytes_per_update = 8.0 + 32.0 / f->cap; /* 8 bytes + a 32-byte envelope shared by a full bucket */
    prm->link_bw = f->link_bw;
    prm->ranks_per_node = ceil(c->rpn);
    prm->cores_per_node = c->cores;
    prm->nnode = 1;
    prm->node_ranks[0] = ceil(c->rpn);
    prm->node_rate[0] = f->node_gups;
    prm->nshapes = 1;
    prm->shapes[0] = f->shape;
    fit_waits(c, f, prm);
}
