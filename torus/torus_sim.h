/* torus_sim.h - N virtual ranks in one process behind the transport interface. */
#ifndef TORUS_SIM_H
#define TORUS_SIM_H

#include "torus.h"

typedef struct torus_sim_params {
    int cap;            /* words per packet buffer (packet interface) */
    int outstanding;    /* send slots per rank and dimension */
    double eager_prob;  /* chance a send completes at once (else when received) */
    int eager_queue;    /* eager completion only while the queue is shorter */
    double delay_prob;  /* chance a waiting packet is not yet visible to poll */
    uint64_t seed;
} torus_sim_params;

typedef struct torus_sim torus_sim;

torus_sim *torus_sim_create(const torus_map *m, const torus_sim_params *p);
void torus_sim_destroy(torus_sim *s);
/* The transport of virtual rank r. */
void torus_sim_bind(torus_sim *s, int r, torus_transport *t);
/* The scheduler's random source (xorshift64*, seeded). */
uint64_t torus_sim_rand(torus_sim *s);
/* Turns the visibility delay off (1) or back on (0): a deadlock check
 * must see every packet. */
void torus_sim_set_strict(torus_sim *s, int strict);
/* Message requests of rank r not yet completed and tested (0 after a
 * collective that cleaned up after itself). */
int torus_sim_open_requests(const torus_sim *s, int r);

#endif
