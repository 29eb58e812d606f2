/*
 * ra_opt.c - bin/ra_opt: the software-routed RandomAccess of paper 002 over
 * MPI.  Options pick the shape (--dims), the rank placement (--map,
 * --node-dim), the send slots per dimension and the generator look-ahead;
 * the setup and run loop are ropt_mpi.c, the algorithm ropt.c, the wire
 * torus/transport_mpi.c.
 */
#include "ra.h"
#include "ropt_mpi.h"
#include "kit_io.h"
#include "torus_ticks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ROPT_BUDGET == RA_MAX_PENDING, "the routed algorithm's budget is HPCC's limit");
_Static_assert(ROPT_T_N <= RA_PROF_MAX, "the harness holds every activity ropt times");
_Static_assert(ROPT_MAX_LOOKAHEAD == 512, "--lookahead's choices end at ROPT_MAX_LOOKAHEAD");

/* An integer algorithm option, def when not given (the option spec below
 * has checked its range while the options were read). */
static int int_option(const ra_config *cfg, const char *name, int def)
{
    const char *v = ra_algo_option(cfg, name);
    return v ? (int)strtol(v, NULL, 10) : def;
}

/* The routed algorithm's options from the command line (the option spec
 * below has checked each value). */
static void options_of(const ra_config *cfg, ropt_mpi_options *o)
{
    ropt_mpi_options_defaults(o);
    o->prm.outstanding = int_option(cfg, "outstanding", ROPT_DEFAULT_OUTSTANDING);
    o->prm.lookahead = int_option(cfg, "lookahead", ROPT_DEFAULT_LOOKAHEAD);
    o->prm.batch = int_option(cfg, "batch", ROPT_DEFAULT_BATCH);
    if (ra_algo_option(cfg, "dims"))
        o->dims = ra_algo_option(cfg, "dims");
    o->mapfile = ra_algo_option(cfg, "map");
    o->node_dim = ra_algo_option(cfg, "node-dim") != NULL;
    o->sync = ra_algo_option(cfg, "sync-sends") != NULL;
    o->profile = ra_algo_option(cfg, "profile") != NULL;
    const char *nt = ra_algo_option(cfg, "node-transport");
    o->node_shm = !nt || !strcmp(nt, "auto") ? -1 : !strcmp(nt, "shm");
    const char *nh = ra_algo_option(cfg, "node-hops");
    o->node_hops = !nh || !strcmp(nh, "auto") ? 0 : (int)strtol(nh, NULL, 10);
    if (ra_algo_option(cfg, "hop-cost"))
        o->hop_cost = strtod(ra_algo_option(cfg, "hop-cost"), NULL);
    const char *sp = ra_algo_option(cfg, "split");
    o->prm.portable_split = sp && !strcmp(sp, "portable");
    if (ra_algo_option(cfg, "packet-cost"))
        o->packet_cost = strtod(ra_algo_option(cfg, "packet-cost"), NULL);
}

/* Before MPI starts: --dims's grammar (its product is checked against the
 * ranks by setup).  With files (--dry-run) also the mapping file; and
 * with the ranks a run will have (--dry-run=P) what setup checks against
 * them: the shape, its bucket capacity and the mapping file's lines (not
 * with --node-dim, whose shape depends on the nodes). */
static int opt_check(const ra_config *cfg, int files, char *err, size_t errlen)
{
    ropt_mpi_options o;
    options_of(cfg, &o);
    const char *dims = ra_algo_option(cfg, "dims");
    torus_shape s;
    /* bare auto, flat and hypercube take the count from the ranks */
    int is_auto;
    if (dims && !torus_shape_needs_count(dims) && torus_shape_parse_spec(dims, 0, &s, &is_auto, err, errlen))
        return KIT_EXIT_USAGE;
    if (files && cfg->dry_ranks > 0 && !o.node_dim) {
        if (ropt_mpi_choose_shape(&s, cfg->dry_ranks, &o, NULL, NULL, NULL, err, errlen))
            return KIT_EXIT_USAGE;
        torus_map m;
        if (o.mapfile) {
            if (torus_map_file(&m, &s, o.mapfile, err, errlen))
                return KIT_EXIT_USAGE;
            torus_map_free(&m);
        }
        return KIT_EXIT_OK;
    }
    kit_lines L;
    char e2[400];
    if (files && o.mapfile) {
        if (kit_lines_open(&L, o.mapfile, 1, 1, e2, sizeof e2)) {
            snprintf(err, errlen, "mapping file '%s' cannot be read: %s", L.name, L.why);
            return KIT_EXIT_USAGE;
        }
        kit_lines_close(&L);
    }
    return KIT_EXIT_OK;
}

/* The node's routing as keys: node_hops (1 or 2, "none" where the shape
 * mixes node and network dimensions), who chose it, and the model's price
 * of each routing in updates per update at the prices it was given. */
static void node_hops_keys(const ropt_node_choice *nc, const ropt_mpi_options *o, char *buf, size_t len)
{
    if (nc->hops < 0) {
        snprintf(buf, len, "node_hops: none\nnode_hops_chosen_by: %s\n",
                 nc->dims_auto ? "several_nodes" : "dims");
        return;
    }
    char c2[32] = "none";
    if (nc->cost[2] > 0)
        snprintf(c2, sizeof c2, "%.3f", nc->cost[2]);
    snprintf(buf, len, "node_hops: %d\nnode_hops_chosen_by: %s\nnode_hops_model: 1 hop %.3f, 2 hops %s (h %g, s %g)\n",
             nc->hops, nc->by_model ? "model" : "option", nc->cost[1], c2, o->hop_cost, o->packet_cost);
}

static int opt_setup(ra_run *run, char *err, size_t errlen)
{
    ropt_mpi *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return KIT_EXIT_RESOURCE;
    }
    run->algo_state = s;
    const ra_config *cfg = run->cfg;
    ropt_mpi_options o;
    options_of(cfg, &o);
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
    /* the node transport as keys (the preamble's line below says the same
     * in words): what it is, who chose it, the dimensions it carries at
     * rank 0, rank 0's node */
    snprintf(run->keys, sizeof run->keys,
             "node_transport: %s\nnode_transport_chosen_by: %s\nshm_dims: %d\nnode_ranks: %d\nnode_cores: %d\n"
             "split_kernel: %s\n",
             s->node_shm ? "shm" : "mpi", o.node_shm < 0 ? "auto" : "option", s->shm_dims, s->node.local_size,
             s->node_cores, ropt_split_kernel(&o.prm));
    char why[160];
    node_hops_keys(&s->nodes, &o, why, sizeof why);
    size_t used = strlen(run->keys);
    snprintf(run->keys + used, sizeof run->keys - used, "%s", why);
    if (run->rank == 0 && !cfg->quiet)
        printf("# shape: %s (%s%s), bucket capacity %d, %d send slot%s per dimension%s, pipeline %d, batch %d, "
               "expected hops %.3f, split %s\n"
               "# node transport: %s%s%s%s (%d of %d dimension%s through shared memory at rank 0; %d rank%s on %d core%s "
               "on rank 0's node)\n",
               sh, o.mapfile ? "mapping file" : "XYZT order", o.node_dim ? ", node-local last dimension" : "", s->cap,
               s->outstanding, s->outstanding == 1 ? "" : "s", o.sync ? " (MPI_Issend)" : "", o.prm.lookahead,
               o.prm.batch, torus_expected_hops(&s->shape), ropt_split_kernel(&o.prm), s->node_shm ? "shm" : "mpi",
               o.node_shm < 0 ? ", chosen by auto" : "", s->shm_refused[0] ? ": shared memory refused: " : "",
               s->shm_refused, s->shm_dims, s->shape.ndims, s->shape.ndims == 1 ? "" : "s",
               s->node.local_size, s->node.local_size == 1 ? "" : "s", s->node_cores, s->node_cores == 1 ? "" : "s");
    return KIT_EXIT_OK;
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
        /* what the profile's shares are counted per (rank 0's, printed):
         * crossings for the hop's price h, packets for a packet's */
        double g = s->core.generated ? (double)s->core.generated : 1;
        size_t used = strlen(run->keys);
        snprintf(run->keys + used, sizeof run->keys - used,
                 "profile_crossings_per_update: %.4f\nprofile_packets_per_update: %.6f\n", (double)s->core.st.hops / g,
                 (double)s->core.st.packets_sent / g);
    }
    return KIT_EXIT_OK;
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

static const kit_opt opt_options[] = {
    {.name = "dims", .type = KIT_OPT_TEXT, .meta = "SHAPE", .defval = "auto",
     .help = "routing shape: auto, flat, hypercube (one link between partners), hypercube:D, flat:N, auto:N, or sizes "
             "like 4x4x2 (m suffix = mesh); product = ranks",
     .allowed = "auto, flat, hypercube, auto:N, flat:N, hypercube:D or sizes like 4x4x2 (m suffix = mesh)"},
    {.name = "map", .type = KIT_OPT_FILE_IN, .meta = "FILE", .defval = "none (from --dims)",
     .help = "mapping file: one line of coordinates per rank, in rank order"},
    {.name = "node-dim", .type = KIT_OPT_FLAG, .defval = "off",
     .help = "add a last, node-local dimension (ranks sharing a node); --dims then covers the nodes"},
    {.name = "outstanding", .type = KIT_OPT_LONG, .meta = "S", .defval = STR(ROPT_DEFAULT_OUTSTANDING),
     .help = "send slots per dimension (1.." STR(ROPT_MAX_OUTSTANDING) "), each counted as a full packet in the 1024 "
             "budget",
     .lo = 1, .hi = ROPT_MAX_OUTSTANDING},
    {.name = "sync-sends", .type = KIT_OPT_FLAG, .defval = "off",
     .help = "send packets with MPI_Issend: a packet counts at its sender until the receiver takes it"},
    {.name = "node-transport", .type = KIT_OPT_CHOICE, .meta = "T", .defval = "auto",
     .help = "how packets travel between ranks of one node: shm (rings in an MPI-3 shared window, no MPI call per "
             "packet), mpi (MPI_Isend/Irecv), or auto (shm unless a node has more ranks than cores); dimensions that "
             "leave the node always use MPI",
     .choices = "auto|shm|mpi", .allowed = "auto, shm or mpi"},
    {.name = "node-hops", .type = KIT_OPT_CHOICE, .meta = "H", .defval = "auto",
     .help = "a node's ranks routed in 1 hop (one node dimension, small packets) or 2 (a 2-D node shape, larger "
             "packets), or auto: the cheaper by the model H * (hop-cost + packet-cost / capacity); with --node-dim, "
             "or --dims auto on one node",
     .choices = "auto|1|2", .allowed = "auto, 1 or 2"},
    {.name = "hop-cost", .type = KIT_OPT_DOUBLE, .meta = "H", .defval = STR(ROPT_NODE_HOP_COST),
     .help = "--node-hops auto: the price of a crossing update, in updates at the node's ceiling (ra_calibrate --hop "
             "measures it: hop_h_updates)",
     .lo = 0, .hi = 1e6, .allowed = "a number of updates in 0..1e6"},
    {.name = "packet-cost", .type = KIT_OPT_DOUBLE, .meta = "S", .defval = STR(ROPT_NODE_PACKET_COST),
     .help = "--node-hops auto: the price of a packet, in updates at the node's ceiling (ra_calibrate --hop measures "
             "it: hop_s_updates)",
     .lo = 0, .hi = 1e9, .allowed = "a number of updates in 0..1e9"},
    {.name = "split", .type = KIT_OPT_CHOICE, .meta = "K", .defval = "auto",
     .help = "the split of generated updates between this rank's table and the buckets: auto (eight at a time with "
             "AVX-512 where the CPU has it, else portable) or portable (one at a time); the same updates either way",
     .choices = "auto|portable", .allowed = "auto or portable"},
    {.name = "profile", .type = KIT_OPT_FLAG, .defval = "off",
     .help = "time shares of generate, route, apply_recv, send, poll and wait on every rank (min and max over "
             "ranks in the key block and JSON)"},
    {.name = "lookahead", .type = KIT_OPT_CHOICE, .meta = "L", .defval = STR(ROPT_DEFAULT_LOOKAHEAD),
     .help = "apply pipeline: updates for this rank's table are prefetched this many entries before they are "
             "applied, counted in the 1024 budget (0 = none, or a power of two 2.." STR(ROPT_MAX_LOOKAHEAD) ")",
     .choices = "0|2|4|8|16|32|64|128|256|512", .allowed = "0 or a power of two 2..512"},
    {.name = "batch", .type = KIT_OPT_LONG, .meta = "B", .defval = STR(ROPT_DEFAULT_BATCH),
     .help = "updates split at once between this rank's table and the buckets, counted twice in the 1024 budget "
             "(1.." STR(ROPT_MAX_BATCH) ")",
     .lo = 1, .hi = ROPT_MAX_BATCH},
    {0},
};

static const ra_algorithm ra_opt_algorithm = {
    .name = "optimized",
    .summary = "software-routed, dimension-ordered RandomAccess (paper 002 sec. 5)",
    .options = opt_options,
    .setup = opt_setup,
    .check = opt_check,
    .update = opt_update,
    .teardown = opt_teardown,
};

int main(int argc, char **argv)
{
    return ra_main(argc, argv, &ra_opt_algorithm);
}
