/*
 * sim_timed.h - the optimized algorithm (optimized/ropt.c, unchanged) on N
 * virtual ranks over a timed transport: every rank has a CPU clock, every
 * physical torus link a busy-until time.
 */
#ifndef TM_SIM_TIMED_H
#define TM_SIM_TIMED_H

#include <stdint.h>

#include "model.h"

typedef struct tm_sim_config {
    torus_shape shape;
    tm_params p;            /* clock_hz, t_local, t_hop, link_bw */
    long updates_per_rank;
    double latency_s;       /* per physical link */
    double header_bytes;    /* per packet, beyond 8 bytes per update */
    int outstanding;        /* send slots per dimension (0: 2) */
    int lookahead;          /* ropt look-ahead (0: 64) */
} tm_sim_config;

typedef struct tm_sim_result {
    double gups;             /* steady rate: 10%..90% of the CPU work */
    double gups_total;       /* all updates / makespan (start and drain included) */
    double time_s;           /* simulated makespan */
    double sbf;              /* send tests that found every slot busy */
    double link_util;        /* busy time / (links * makespan) */
    double bytes_per_update; /* packet bytes per update, summed over software hops */
    double hops_per_update;
    uint64_t updates, packets, steps;
    uint64_t fingerprint;
    int exact;               /* the final table equals the sequential one */
} tm_sim_result;

/* Returns 0, -2 on bad input (err), -3 out of memory or a stuck machine. */
int tm_simulate(const tm_sim_config *c, tm_sim_result *r, char *err, size_t errlen);

#endif
