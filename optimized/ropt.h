/* ropt.h - the software-routed RandomAccess state machine (one rank).  No
 * MPI here: the same state machine runs over the MPI, the functional and
 * the timed transports (ropt_mpi.c, ropt_sim.c, ropt_timed.c). */
#ifndef ROPT_H
#define ROPT_H

#include "ra_dist.h"
#include "ra_gen.h"
#include "ra_stats.h"
#include "torus.h"

/* The routed algorithm's defaults, named once: bin/ra_opt, bin/ra_calibrate
 * and the timed simulator (torusmodel --simulate) use these, so a
 * simulation runs what ra_opt runs; the functional simulator's tests set
 * their own values on purpose (many slot counts and look-aheads). */
#define ROPT_BUDGET 1024            /* HPCC: updates held per process, every form counted */
#define ROPT_DEFAULT_LOOKAHEAD 64   /* generator prefetch distance (--lookahead) */
#define ROPT_MAX_LOOKAHEAD 256      /* size of the look-ahead ring */
/* Send slots per dimension (--outstanding).  Each slot costs a full packet
 * of the budget, so more slots mean smaller packets.  ra_opt over MPI: one
 * slot (320-update packets at 2 ranks).  On the quiet 2-core VM, MPICH
 * 4.0.2, two rounds each, `-n 2 --log2-table 27`: 0.098 / 0.099 GUPS with
 * 1 slot, 0.095 / 0.095 with 2, 0.092 / 0.093 with 4; `-n 8 --log2-table
 * 25`: 0.074 / 0.073 with 1 against 0.070 / 0.067 with 4 (fewer MPI calls
 * per update; a busy slot is waited on, not a reason to cut a packet).
 * The timed simulator models BlueGene/L and keeps 4 slots
 * (ROPT_TIMED_DEFAULT_OUTSTANDING): there 4 give 0.0561 / 0.7651 GUPS on
 * 4mx4mx2m / 8x8x8 against 0.0498 / 0.7517 with 1. */
#define ROPT_DEFAULT_OUTSTANDING 1
#define ROPT_TIMED_DEFAULT_OUTSTANDING 4
#define ROPT_MAX_OUTSTANDING 64

typedef struct ropt_params {
    int budget;      /* HPCC limit on updates held in any form: 1024 */
    int lookahead;   /* generator prefetch distance, counted in the budget */
    int outstanding; /* send slots per dimension, each counted as a full
                        packet in the budget (a send holds its words until
                        it completes) */
    int shared_recv; /* 1: one receive bucket for all dimensions (paper 002
                        Figure 3a; can deadlock, kept to show why not) */
} ropt_params;

typedef struct ropt {
    /* wiring */
    const torus_route *route;
    torus_transport *tp;
    ropt_params prm;
    int ndims, cap, nb;
    int k[TORUS_MAX_DIMS];
    /* buckets: bucket[b] holds fill[b] updates; full[d] = the full bucket of dim d or -1 */
    uint64_t **bucket;
    int *fill;
    int full[TORUS_MAX_DIMS];
    int nfull;
    /* receive buckets */
    torus_packet pkt[TORUS_MAX_DIMS];
    int have[TORUS_MAX_DIMS], pos[TORUS_MAX_DIMS];
    int nheld, rr;
    /* table block and stream */
    uint64_t *table;
    uint64_t local_start, local_size;
    int log2;
    ra_gen_kind gen;
    const ra_dist *td;
    uint64_t ran, remaining, generated;
    uint64_t ring[ROPT_MAX_LOOKAHEAD]; /* the look-ahead: generated, prefetched, not yet routed */
    int ring_n, ring_h;
    uint64_t ahead_left; /* updates still to be generated into the ring */
    /* FinishLogic */
    int closed[TORUS_MAX_DIMS], close_next[TORUS_MAX_DIMS], fin_recv[TORUS_MAX_DIMS];
    int done;
    /* accounting: updates in send buckets and in taken receive buckets
     * (the look-ahead and the unfinished sends are counted from the ring
     * and the transport, see ropt_held) */
    uint64_t in_buckets, in_recv;
    ra_stats st;
} ropt;

/* budget ROPT_BUDGET, look-ahead ROPT_DEFAULT_LOOKAHEAD, send slots
 * ROPT_DEFAULT_OUTSTANDING, per-dimension receive buckets. */
void ropt_params_defaults(ropt_params *p);

/* Packet buffers a rank may fill at once: over the dimensions of size
 * k_i >= 2, k_i - 1 send buckets, 1 receive bucket and `outstanding`
 * sends in flight each (size-1 dimensions hold nothing). */
int ropt_buffers(const torus_shape *s, const ropt_params *p);

/* Bucket (packet) capacity: floor((budget - lookahead) / ropt_buffers),
 * so that look-ahead + buckets + receive buckets + unfinished sends never
 * exceed the budget.  < 1: the options cannot meet the budget. */
int ropt_capacity(const torus_shape *s, const ropt_params *p);

/* ra_opt's "auto" over n ranks (or nodes, with per_node > 0 ranks each in
 * a last node-local dimension, not included in *out): the balanced
 * factorisation minimising the grammar's cost H * (t_hop + t_msg / fill)
 * (TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG) with the fill this budget really
 * gives, ropt_capacity.  Shapes that leave no capacity are never chosen
 * (if none has any: one dimension, which the caller then refuses). */
void ropt_auto_shape(int n, const ropt_params *p, int per_node, torus_shape *out);

/* Sets up one rank over its block of the table (td distributes the
 * table); the route and transport must outlive it.  Returns 0, -1 on out
 * of memory, -2 when the shape leaves no room (capacity < 1), the
 * look-ahead is outside 0..ROPT_MAX_LOOKAHEAD or the send slots outside
 * 1..ROPT_MAX_OUTSTANDING. */
int ropt_init(ropt *o, const torus_route *route, const torus_shape *shape, torus_transport *tp,
              const ropt_params *p, uint64_t *table, uint64_t local_start, uint64_t local_size,
              int log2, const ra_dist *td);
void ropt_free(ropt *o);

/* Starts a phase: this rank generates elements start+1 .. start+count of
 * generator gen's stream. */
void ropt_start(ropt *o, ra_gen_kind gen, uint64_t start, uint64_t count);

/* One pass of the main loop (send, receive, form, finish).  Returns 1 if
 * anything moved, 0 if this rank is idle; o->done is set when this rank has
 * finished and every rank it talks to has told it so. */
int ropt_step(ropt *o);

/* Updates this rank holds now, in every form: look-ahead ring entries
 * (generated, not yet routed), send buckets, the unrouted rest of taken
 * receive packets, and the words of sends not yet completed (as the
 * transport knows them).  st.max_pending is its maximum over the run. */
uint64_t ropt_held(const ropt *o);

#endif
