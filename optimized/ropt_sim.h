/* ropt_sim.h - the functional driver: the routed algorithm on N virtual ranks
 * over the simulated transport (exactness and deadlock tests at scale). */
#ifndef ROPT_SIM_H
#define ROPT_SIM_H

#include "ropt.h"
#include "torus_sim.h"

typedef struct ropt_sim_config {
    torus_shape shape;
    int log2_table;
    ra_gen_kind gen;
    uint64_t updates;   /* total; 0 = 4 * TableSize */
    ropt_params prm;     /* prm.outstanding is taken from tp.outstanding */
    torus_sim_params tp; /* cap is set from the algorithm */
    int rings;           /* 1: every rank's packets go through the shared-memory
                            ring protocol (torus_shm.h) laid out in plain
                            memory, tp.delay_prob hiding waiting packets and
                            tp.eager_prob refusing free send slots at random;
                            0: the simulated MPI transport (torus_sim.h) */
} ropt_sim_config;

typedef struct ropt_sim_result {
    int deadlock;          /* every rank stuck, not finished */
    uint64_t fingerprint;  /* of the final global table */
    uint64_t steps;        /* rank steps scheduled */
    ra_stats stats;        /* summed; max_pending: the maximum over ranks and steps */
    int cap;
} ropt_sim_result;

/* N ropt ranks over one in-process table (td distributes it), each wired to
 * tps[r] with its own route (compact: next hops computed from the map, no
 * N-entry table per rank); prm passes ropt_params_ok and leaves the
 * shape a capacity (computed here once).  The caller owns every array and calls
 * ropt_start itself.  Returns 0 or -1 (out of memory; call
 * ropt_ranks_free all the same). */
int ropt_ranks_init(ropt *ranks, torus_route *routes, torus_transport *tps, const torus_map *map,
                    const ropt_params *prm, uint64_t *table, const ra_dist *td, int log2, int compact);
/* Frees what ropt_ranks_init built (arrays may be NULL). */
void ropt_ranks_free(ropt *ranks, torus_route *routes, int n);
/* The ranks' counters summed (max_pending: the maximum). */
void ropt_ranks_stats(const ropt *ranks, int n, ra_stats *sum);

/* Runs the whole machine in this process.  Returns 0, -1 on out of memory,
 * -2 when the shape leaves no bucket capacity. */
int ropt_sim_run(const ropt_sim_config *c, ropt_sim_result *res);

#endif
