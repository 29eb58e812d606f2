/* ropt_sim.h - the optimized algorithm on N virtual ranks over the simulated transport. */
#ifndef ROPT_SIM_H
#define ROPT_SIM_H

#include "ropt.h"
#include "torus_sim.h"

typedef struct ropt_sim_config {
    torus_shape shape;
    int log2_table;
    ra_gen_kind gen;
    uint64_t updates;   /* total; 0 = 4 * TableSize */
    ropt_params prm;
    torus_sim_params tp; /* cap is set from the algorithm */
} ropt_sim_config;

typedef struct ropt_sim_result {
    int deadlock;          /* every rank stuck, not finished */
    uint64_t fingerprint;  /* of the final global table */
    uint64_t max_pending;  /* over ranks and steps */
    uint64_t steps;        /* rank steps scheduled */
    ra_stats stats;        /* summed (max_pending: max) */
    int cap;
} ropt_sim_result;

/* Runs the whole machine in this process.  Returns 0, -1 on out of memory,
 * -2 when the shape leaves no bucket capacity. */
int ropt_sim_run(const ropt_sim_config *c, ropt_sim_result *res);

#endif
