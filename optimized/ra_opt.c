/*
 * ra_opt.c - bin/ra_opt: the software-routed RandomAccess of paper 002 over
 * MPI.  Options pick the shape (--dims), the rank placement (--map,
 * --node-dim), the send slots per dimension and the generator look-ahead;
 * the algorithm itself is ropt.c, the wire is torus/transport_mpi.c.
 */
#include "ra.h"
#include "ropt.h"
#include "torus_mpi.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cost-model constants for --dims auto, measured on the development machine
 * (2-core VM, MPICH shared memory): ~25 ns of CPU per routing hop and ~1.5 us
 * per message send+receive.  Only their ratio matters for the choice. */
#define AUTO_T_HOP 25e-9
#define AUTO_T_MSG 1.5e-6
#define DEFAULT_OUTSTANDING 4
#define DEFAULT_LOOKAHEAD 64
#define IDLE_POLLS 16

typedef struct opt_state {
    torus_shape shape;
    torus_map map;
    torus_route route;
    torus_mpi *tm;
    torus_transport tp;
    ropt core;
    int outstanding;
} opt_state;

static int parse_int_opt(const ra_config *cfg, const char *name, int def, int lo, int hi, int *out,
                         char *err, size_t errlen)
{
    const char *v = ra_algo_option(cfg, name);
    *out = def;
    if (!v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        snprintf(err, errlen, "--%s '%s' is not valid: allowed an integer %d..%d", name, v, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int opt_setup(ra_run *run, char *err, size_t errlen)
{
    opt_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return RA_EXIT_RESOURCE;
    }
    run->algo_state = s;
    const ra_config *cfg = run->cfg;
    int P = run->nprocs;
    ropt_params prm = {.budget = RA_MAX_PENDING, .lookahead = DEFAULT_LOOKAHEAD, .shared_recv = 0};
    if (parse_int_opt(cfg, "outstanding", DEFAULT_OUTSTANDING, 1, 64, &s->outstanding, err, errlen) ||
        parse_int_opt(cfg, "lookahead", DEFAULT_LOOKAHEAD, 0, 256, &prm.lookahead, err, errlen))
        return RA_EXIT_USAGE;
    const char *dims = ra_algo_option(cfg, "dims");
    const char *mapfile = ra_algo_option(cfg, "map");
    int node_dim = ra_algo_option(cfg, "node-dim") != NULL;
    if (!dims)
        dims = "auto";
    if (mapfile && node_dim) {
        snprintf(err, errlen, "--map and --node-dim both given: use one of them");
        return RA_EXIT_USAGE;
    }

    int nodes = 1, per_node = P, node = 0, local = run->rank;
    if (node_dim) {
        torus_node_info ni;
        if (torus_node_discover(run->comm, &ni)) {
            snprintf(err, errlen, "out of memory");
            return RA_EXIT_RESOURCE;
        }
        node = ni.node, local = ni.local, per_node = ni.per_node, nodes = ni.nnodes;
        torus_node_free(&ni);
        if (per_node < 1 || per_node * nodes != P) {
            snprintf(err, errlen, "--node-dim needs the same number of ranks on every node (found uneven nodes over %d ranks)", P);
            return RA_EXIT_USAGE;
        }
    }
    int over = node_dim ? nodes : P;
    if (!strcmp(dims, "auto")) {
        torus_shape_auto(over, prm.budget - prm.lookahead - (node_dim ? per_node : 0), AUTO_T_HOP, AUTO_T_MSG, &s->shape);
    } else if (torus_shape_parse(dims, over, &s->shape, err, errlen)) {
        if (node_dim) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, " (with --node-dim the shape covers the %d nodes)", nodes);
        }
        return RA_EXIT_USAGE;
    }
    if (node_dim && torus_shape_append(&s->shape, per_node)) {
        snprintf(err, errlen, "--node-dim: too many dimensions");
        return RA_EXIT_USAGE;
    }
    if (ropt_capacity(&s->shape, &prm) < 1) {
        char sh[128];
        torus_shape_format(&s->shape, sh, sizeof sh);
        snprintf(err, errlen, "shape %s has %d buckets per rank, more than the %d-update budget allows: use more dimensions (e.g. --dims auto)",
                 sh, torus_shape_sum_k(&s->shape), prm.budget - prm.lookahead);
        return RA_EXIT_USAGE;
    }

    int rc = 0;
    if (mapfile) {
        rc = torus_map_file(&s->map, &s->shape, mapfile, err, errlen);
    } else if (node_dim) {
        /* Agree on the buffer first: the all-gather is collective. */
        int pair[2] = {node, local}, *all = malloc(2 * (size_t)P * sizeof(int));
        int have = all != NULL, all_have;
        RA_MPI_CHECK(MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, run->comm));
        if (all_have)
            RA_MPI_CHECK(MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, run->comm));
        rc = !all_have || torus_map_nodes(&s->map, &s->shape, nodes, all) ? -1 : 0;
        free(all);
    } else {
        rc = torus_map_xyzt(&s->map, &s->shape);
    }
    if (rc && !mapfile)
        snprintf(err, errlen, "out of memory for the rank mapping");
    /* Every rank read the same file; agree before going on. */
    int bad = rc != 0, anybad;
    RA_MPI_CHECK(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, run->comm));
    if (anybad) {
        if (!bad)
            snprintf(err, errlen, "mapping failed on another rank");
        return mapfile ? RA_EXIT_USAGE : RA_EXIT_RESOURCE;
    }
    if (torus_route_build(&s->route, &s->map, run->rank)) {
        snprintf(err, errlen, "out of memory for the routing table");
        return RA_EXIT_RESOURCE;
    }
    int cap = ropt_capacity(&s->shape, &prm);
    if (torus_mpi_create(&s->tm, run->comm, &s->map, run->rank, cap, s->outstanding, err, errlen))
        return RA_EXIT_RESOURCE;
    torus_mpi_bind(s->tm, &s->tp);
    int irc = ropt_init(&s->core, &s->route, &s->shape, &s->tp, &prm, run->table, run->local_start,
                        run->local_size, run->log2_table, RA_GEN_LFSR, &run->table_dist);
    int ok = irc == 0, allok;
    RA_MPI_CHECK(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, run->comm));
    if (!allok) {
        snprintf(err, errlen, "out of memory for the buckets");
        return RA_EXIT_RESOURCE;
    }
    char sh[64];
    torus_shape_format(&s->shape, sh, sizeof sh);
    snprintf(run->shape, sizeof run->shape, "%s", sh);
    if (run->rank == 0 && !cfg->quiet)
        printf("# shape: %s (%s%s), bucket capacity %d, %d send slots per dimension, look-ahead %d, expected hops %.3f\n",
               sh, mapfile ? "mapping file" : "XYZT order", node_dim ? ", node-local last dimension" : "", cap,
               s->outstanding, prm.lookahead, torus_expected_hops(&s->shape));
    return RA_EXIT_OK;
}

static int opt_update(ra_run *run)
{
    opt_state *s = run->algo_state;
    ropt *o = &s->core;
    o->gen = run->gen; /* the table is fixed at setup, the generator per test */
    ropt_start(o, run->upd_start, run->upd_count);
    int idle = 0;
    uint64_t next_tick = 1 << 16;
    while (!o->done) {
        if (ropt_step(o))
            idle = 0;
        else if (++idle > IDLE_POLLS)
            sched_yield(); /* oversubscribed runs: let the peer run */
        if (o->generated >= next_tick) {
            ra_progress_tick(run->progress, o->generated);
            next_tick = o->generated + (1 << 16);
        }
    }
    torus_mpi_reset(s->tm);
    run->stats = o->st;
    return RA_EXIT_OK;
}

static void opt_teardown(ra_run *run)
{
    opt_state *s = run->algo_state;
    if (!s)
        return;
    ropt_free(&s->core);
    torus_mpi_destroy(s->tm);
    torus_route_free(&s->route);
    torus_map_free(&s->map);
    free(s);
    run->algo_state = NULL;
}

static const ra_option_def opt_options[] = {
    {"dims", 1, "auto", "routing shape: auto, flat, hypercube, or sizes like 4x4x2 (m suffix = mesh); product = ranks"},
    {"map", 1, "none (from --dims)", "mapping file: one line of coordinates per rank, in rank order"},
    {"node-dim", 0, "off", "add a last, node-local dimension (ranks sharing a node); --dims then covers the nodes"},
    {"outstanding", 1, "4", "send slots per dimension (1..64)"},
    {"lookahead", 1, "64", "generator prefetch distance, counted in the 1024 budget (0..256)"},
    {NULL, 0, NULL, NULL},
};

static const ra_algorithm ra_opt_algorithm = {
    .name = "optimized",
    .summary = "software-routed, dimension-ordered RandomAccess (paper 002 sec. 5)",
    .hpcc_algorithm_id = 1,
    .options = opt_options,
    .setup = opt_setup,
    .update = opt_update,
    .teardown = opt_teardown,
};

int main(int argc, char **argv)
{
    return ra_main(argc, argv, &ra_opt_algorithm);
}
