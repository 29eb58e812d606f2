/*
 * ra_opt.c - bin/ra_opt: the software-routed RandomAccess of paper 002 over
 * MPI.  Options pick the shape (--dims), the rank placement (--map,
 * --node-dim), the send slots per dimension and the generator look-ahead;
 * the setup and run loop are ropt_mpi.c, the algorithm ropt.c, the wire
 * torus/transport_mpi.c.
 */
#include "ra.h"
#include "ropt_mpi.h"
#include "torus_cli.h"
#include "torus_ticks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ROPT_BUDGET == RA_MAX_PENDING, "the routed algorithm's budget is HPCC's limit");
_Static_assert(ROPT_T_N <= RA_PROF_MAX, "the harness holds every activity ropt times");

/* An integer algorithm option in lo..hi, def when not given. */
static int int_option(const ra_config *cfg, const char *name, int def, int lo, int hi, int *out, char *err,
                      size_t errlen)
{
    const char *v = ra_algo_option(cfg, name);
    long x = def;
    if (v && torus_cli_long(v, lo, hi, &x)) {
        char allowed[64];
        snprintf(allowed, sizeof allowed, "an integer %d..%d", lo, hi);
        torus_cli_bad_value(err, errlen, name, v, allowed);
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* --lookahead: 0 or a power of two 2..ROPT_MAX_LOOKAHEAD. */
static int lookahead_option(const ra_config *cfg, int *out, char *err, size_t errlen)
{
    const char *v = ra_algo_option(cfg, "lookahead");
    long x = ROPT_DEFAULT_LOOKAHEAD;
    if (v && (torus_cli_long(v, 0, ROPT_MAX_LOOKAHEAD, &x) || !ropt_lookahead_ok((int)x))) {
        torus_cli_bad_value(err, errlen, "lookahead", v, "0 or a power of two 2..512");
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int opt_setup(ra_run *run, char *err, size_t errlen)
{
    ropt_mpi *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return RA_EXIT_RESOURCE;
    }
    run->algo_state = s;
    const ra_config *cfg = run->cfg;
    ropt_mpi_options o;
    ropt_mpi_options_defaults(&o);
    if (int_option(cfg, "outstanding", ROPT_DEFAULT_OUTSTANDING, 1, ROPT_MAX_OUTSTANDING, &o.prm.outstanding, err,
                   errlen) ||
        lookahead_option(cfg, &o.prm.lookahead, err, errlen) ||
        int_option(cfg, "batch", ROPT_DEFAULT_BATCH, 1, ROPT_MAX_BATCH, &o.prm.batch, err, errlen)) {
        /* the driver calls teardown only after a successful setup */
        free(s);
        run->algo_state = NULL;
        return RA_EXIT_USAGE;
    }
    if (ra_algo_option(cfg, "dims"))
        o.dims = ra_algo_option(cfg, "dims");
    o.mapfile = ra_algo_option(cfg, "map");
    o.node_dim = ra_algo_option(cfg, "node-dim") != NULL;
    o.sync = ra_algo_option(cfg, "sync-sends") != NULL;
    o.profile = ra_algo_option(cfg, "profile") != NULL;
    const char *nt = ra_algo_option(cfg, "node-transport");
    if (nt && strcmp(nt, "shm") && strcmp(nt, "mpi") && strcmp(nt, "auto")) {
        torus_cli_bad_value(err, errlen, "node-transport", nt, "auto, shm or mpi");
        free(s);
        run->algo_state = NULL;
        return RA_EXIT_USAGE;
    }
    o.node_shm = !nt || !strcmp(nt, "auto") ? -1 : !strcmp(nt, "shm");
    o.node = run->node;
    int rc = ropt_mpi_setup(s, run->comm, &o, run->table, run->local_start, run->local_size, run->log2_table,
                            &run->table_dist, err, errlen);
    if (rc) {
        /* the driver calls teardown only after a successful setup */
        ropt_mpi_free(s);
        free(s);
        run->algo_state = NULL;
        return rc;
    }
    char sh[64];
    torus_shape_format(&s->shape, sh, sizeof sh);
    snprintf(run->shape, sizeof run->shape, "%s", sh);
    if (run->rank == 0 && !cfg->quiet)
        printf("# shape: %s (%s%s), bucket capacity %d, %d send slot%s per dimension%s, pipeline %d, batch %d, "
               "expected hops %.3f\n"
               "# node transport: %s%s (%d of %d dimension%s through shared memory at rank 0; %d rank%s on %d core%s on "
               "rank 0's node)\n",
               sh, o.mapfile ? "mapping file" : "XYZT order", o.node_dim ? ", node-local last dimension" : "", s->cap,
               s->outstanding, s->outstanding == 1 ? "" : "s", o.sync ? " (MPI_Issend)" : "", o.prm.lookahead,
               o.prm.batch, torus_expected_hops(&s->shape), s->node_shm ? "shm" : "mpi",
               o.node_shm < 0 ? ", chosen by auto" : "", s->shm_dims, s->shape.ndims, s->shape.ndims == 1 ? "" : "s",
               s->node.local_size, s->node.local_size == 1 ? "" : "s", s->node_cores, s->node_cores == 1 ? "" : "s");
    return RA_EXIT_OK;
}

static void progress_tick(void *ctx, uint64_t generated)
{
    ra_progress_tick(ctx, generated);
}

static int opt_update(ra_run *run)
{
    ropt_mpi *s = run->algo_state;
    ropt_mpi_run(s, run->gen, run->upd_start, run->upd_count, progress_tick, run->progress);
    run->stats = s->core.st;
    if (s->core.profile) {
        double tps = torus_ticks_per_second();
        run->stats.nprof = ROPT_T_N;
        run->stats.prof_names = ropt_time_names;
        for (int i = 0; i < ROPT_T_N; i++)
            run->stats.prof_s[i] = (double)s->core.ticks[i] / tps;
    }
    return RA_EXIT_OK;
}

static void opt_teardown(ra_run *run)
{
    ropt_mpi *s = run->algo_state;
    if (!s)
        return;
    ropt_mpi_free(s);
    free(s);
    run->algo_state = NULL;
}

#define STR_(x) #x
#define STR(x) STR_(x)

static const ra_option_def opt_options[] = {
    {"dims", 1, "auto",
     "routing shape: auto, flat, hypercube (one link between partners), hypercube:D, flat:N, auto:N, or sizes like "
     "4x4x2 (m suffix = mesh); product = ranks"},
    {"map", 1, "none (from --dims)", "mapping file: one line of coordinates per rank, in rank order"},
    {"node-dim", 0, "off", "add a last, node-local dimension (ranks sharing a node); --dims then covers the nodes"},
    {"outstanding", 1, STR(ROPT_DEFAULT_OUTSTANDING),
     "send slots per dimension (1.." STR(ROPT_MAX_OUTSTANDING) "), each counted as a full packet in the 1024 budget"},
    {"sync-sends", 0, "off", "send packets with MPI_Issend: a packet counts at its sender until the receiver takes it"},
    {"node-transport", 1, "auto",
     "how packets travel between ranks of one node: shm (rings in an MPI-3 shared window, no MPI call per packet), "
     "mpi (MPI_Isend/Irecv), or auto (shm unless a node has more ranks than cores); dimensions that leave the node "
     "always use MPI"},
    {"profile", 0, "off",
     "time shares of generate, route, apply_recv, send, poll and wait on every rank (min and max over "
     "ranks in the key block and JSON)"},
    {"lookahead", 1, STR(ROPT_DEFAULT_LOOKAHEAD),
     "apply pipeline: updates for this rank's table are prefetched this many entries before they are applied, "
     "counted in the 1024 budget (0 = none, or a power of two 2.." STR(ROPT_MAX_LOOKAHEAD) ")"},
    {"batch", 1, STR(ROPT_DEFAULT_BATCH),
     "updates split at once between this rank's table and the buckets, counted twice in the 1024 budget (1.." STR(
         ROPT_MAX_BATCH) ")"},
    {NULL, 0, NULL, NULL},
};

static const ra_algorithm ra_opt_algorithm = {
    .name = "optimized",
    .summary = "software-routed, dimension-ordered RandomAccess (paper 002 sec. 5)",
    .options = opt_options,
    .setup = opt_setup,
    .update = opt_update,
    .teardown = opt_teardown,
};

int main(int argc, char **argv)
{
    return ra_main(argc, argv, &ra_opt_algorithm);
}
