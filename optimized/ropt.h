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
/* The apply pipeline (--lookahead): every update bound for this rank's own
 * table, generated here or received, is prefetched when it enters and
 * XORed when it leaves, D entries later, so D misses stay in flight.  On
 * the 2-core EPYC VM (32 MiB L3) a kernel that does only this reached 0.27
 * GUPS per process at D = 128-256 against 0.24 for 256-update batches
 * (prefetch all, then XOR all), which stall for one memory latency per
 * batch (docs/ra_opt.md, "Speed on a node").  Inside ra_opt, with the
 * batch below, D = 128 measured best there: 0.264 GUPS at -n 1, 2^26,
 * against 0.250 at 256, 0.233 at 512 and 0.224 at 64 (medians of 3). */
#define ROPT_DEFAULT_LOOKAHEAD 128
#define ROPT_MAX_LOOKAHEAD 512
/* Updates split at once (--batch): a chunk of generated or received
 * updates is split without a branch on where each goes -- this rank's own
 * into a local list, the rest into the source's remote list, both counted
 * in registers -- while the previous local list enters the pipeline, so
 * that the splitting runs while the pipeline's misses are in flight; the
 * remote list is then scattered into the buckets.  (A coin-flip branch per
 * update costs a misprediction every other update at -n 2, and a per-bucket
 * count kept in memory inside the pushing loop cost 15-20% here.)  The
 * budget counts the batch twice: a local list and the generator's remote
 * list waiting for a blocked bucket.  64 with D = 128 on the same VM:
 * -n 2, 2^27: 0.392 GUPS against 0.374 with 32 (0.356 with D = 256 and
 * 32, the previous default); -n 8, 2^25: 0.122 against 0.115 (medians of
 * 3, one batch). */
#define ROPT_DEFAULT_BATCH 64
#define ROPT_MAX_BATCH 256
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
/* The timed simulator has no memory model, so no pipeline: its 64 updates
 * of look-ahead are a batch of 32 counted twice, which keeps the bucket
 * capacity the BlueGene/L tables were made with ((1024 - 64) / buffers). */
#define ROPT_TIMED_DEFAULT_LOOKAHEAD 0
#define ROPT_TIMED_DEFAULT_BATCH 32
#define ROPT_MAX_OUTSTANDING 64
/* Words of room every list the split writes into keeps beyond its end:
 * the AVX-512 split stores whole vectors of eight (ropt_pipe.c). */
#define ROPT_SPLIT_SLACK TORUS_BUF_SLACK_WORDS

typedef struct ropt_params {
    int budget;      /* HPCC limit on updates held in any form: 1024 */
    int lookahead;   /* apply pipeline depth D, counted in the budget */
    int batch;       /* generation batch G, counted in the budget */
    int outstanding; /* send slots per dimension, each counted as a full
                        packet in the budget (a send holds its words until
                        it completes) */
    int shared_recv; /* 1: one receive bucket for all dimensions (paper 002
                        Figure 3a; can deadlock, kept to show why not) */
    int portable_split; /* 1: the portable split even where the CPU has
                           AVX-512 (ra_opt --split portable) */
} ropt_params;

/* Where a rank's time goes (--profile): ticks per activity, from the
 * cycle counter (torus_ticks.h) read once per chunk or packet, never per
 * update. */
enum {
    ROPT_T_GENERATE = 0, /* generating and splitting chunks, and applying the
                            local list meanwhile (the two interleave by design) */
    ROPT_T_ROUTE,        /* scattering remote lists into the send buckets */
    ROPT_T_APPLY_RECV,   /* splitting received packets and applying meanwhile */
    ROPT_T_SEND,         /* may-I-send checks and sends (the copy into a ring) */
    ROPT_T_POLL,         /* asking the transport for packets */
    ROPT_T_WAIT,         /* steps that moved nothing, and backing off */
    ROPT_T_N
};
extern const char *const ropt_time_names[ROPT_T_N];

/* A source's remote list: updates split off a chunk whose next hop is
 * another rank, waiting in order for their buckets (v[pos .. n)). */
typedef struct ropt_rlist {
    uint64_t *v;
    int pos, n;
} ropt_rlist;

typedef struct ropt {
    /* wiring */
    const torus_route *route;
    torus_transport *tp;
    ropt_params prm;
    int ndims, cap, nb;
    int k[TORUS_MAX_DIMS];
    int lastd;  /* the last dimension of size >= 2 (-1: none): what arrives
                   along it is all this rank's */
    int alone;  /* no other rank: everything generated is this rank's */
    int solo;   /* the one send bucket when there is exactly one, else -1 */
    /* send buckets: bucket[b] holds fill[b] updates, at most lim[b]: cap
     * while b's dimension is open, 0 while it is blocked (it has a full
     * bucket, full[d]); bdim[b] is b's dimension */
    uint64_t **bucket;
    int *fill, *lim;
    int16_t *bdim;
    int full[TORUS_MAX_DIMS];
    int nfull;
    /* receive buckets: dimension d is busy (have[d]) while its taken packet
     * (held[d], split up to pos[d]) or its remote list dr[d] holds updates */
    torus_packet pkt[TORUS_MAX_DIMS];
    int have[TORUS_MAX_DIMS], held[TORUS_MAX_DIMS], pos[TORUS_MAX_DIMS];
    ropt_rlist dr[TORUS_MAX_DIMS];
    int nheld, rr;
    /* table block and stream */
    uint64_t *table;
    uint64_t local_start, local_size;
    int log2;
    ra_gen_kind gen;
    const ra_dist *td;
    uint64_t ran; /* the stream: the last element used */
    uint64_t remaining, generated;
    ropt_rlist gr; /* the generator's remote list (nothing new while it waits) */
    /* local lists: updates for this rank's table on their way into the
     * pipeline; lbuf[lcur] holds lnum of them, pushed while the next chunk
     * is split into the other list (ropt.c, split_chunk) */
    uint64_t *lbuf[2];
    int lcur, lnum;
    /* apply pipeline: D entries (0 or a power of two), the next one at
     * ph; pn of them hold updates (the rest, until it first fills, copies
     * of a harmless dummy, see ropt.c), pushed counts what went in */
    uint64_t *pval;
    int ph, pn;
    uint64_t pushed;
    /* FinishLogic */
    int closed[TORUS_MAX_DIMS], close_next[TORUS_MAX_DIMS], fin_recv[TORUS_MAX_DIMS];
    int done;
    /* accounting: updates in send buckets (every other place is counted
     * from its own state, see ropt_held) */
    uint64_t in_buckets;
    ra_stats st;
    /* --profile: ticks per activity (cycle counter or ns), 0 = off */
    int profile;
    uint64_t ticks[ROPT_T_N];
} ropt;

/* budget ROPT_BUDGET, pipeline ROPT_DEFAULT_LOOKAHEAD, batch
 * ROPT_DEFAULT_BATCH, send slots ROPT_DEFAULT_OUTSTANDING, per-dimension
 * receive buckets. */
void ropt_params_defaults(ropt_params *p);

/* 1 when d is a pipeline depth ropt takes: 0 (none) or a power of two
 * 2..ROPT_MAX_LOOKAHEAD (a mask wraps it, and an even depth lets its
 * start be filled with copies of one harmless update). */
int ropt_lookahead_ok(int d);

/* 1 when p's bounds hold: send slots 1..ROPT_MAX_OUTSTANDING, the pipeline
 * ropt_lookahead_ok, the batch 1..ROPT_MAX_BATCH.  The one check of them:
 * every driver asks it before ropt_init, which trusts p. */
int ropt_params_ok(const ropt_params *p);

/* Packet buffers a rank may fill at once: over the dimensions of size
 * k_i >= 2, k_i - 1 send buckets, 1 receive bucket and `outstanding`
 * sends in flight each (size-1 dimensions hold nothing). */
int ropt_buffers(const torus_shape *s, const ropt_params *p);

/* Bucket (packet) capacity: floor((budget - lookahead - 2 batch) /
 * ropt_buffers), so that pipeline + local list + the generator's remote
 * list + send buckets + receive buckets + unfinished sends never exceed
 * the budget.  < 1: the options cannot meet the budget. */
int ropt_capacity(const torus_shape *s, const ropt_params *p);

/* ra_opt's "auto" over n ranks (or nodes, with per_node > 0 ranks each in
 * a last node-local dimension, not included in *out): the balanced
 * factorisation minimising the grammar's cost H * (t_hop + t_msg / fill)
 * (TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG) with the fill this budget really
 * gives, ropt_capacity.  Shapes that leave no capacity are never chosen
 * (if none has any: one dimension, which the caller then refuses). */
void ropt_auto_shape(int n, const ropt_params *p, int per_node, torus_shape *out);
/* The same over n nodes with a node part of any dimensions (ropt_node.c's
 * one or two hops) appended for the capacity; part NULL: none. */
void ropt_auto_shape_part(int n, const ropt_params *p, const torus_shape *part, torus_shape *out);

/* Sets up one rank over its block of the table (td distributes the
 * table); the route and transport must outlive it.  p must pass
 * ropt_params_ok and cap be ropt_capacity(shape, p), which the caller has
 * computed once for all its ranks.  Returns 0, -1 on out of memory, -2
 * when the shape leaves no room (cap < 1). */
int ropt_init(ropt *o, const torus_route *route, const torus_shape *shape, torus_transport *tp,
              const ropt_params *p, int cap, uint64_t *table, uint64_t local_start, uint64_t local_size,
              int log2, const ra_dist *td);
void ropt_free(ropt *o);

/* Starts a phase: this rank generates elements start+1 .. start+count of
 * generator gen's stream. */
void ropt_start(ropt *o, ra_gen_kind gen, uint64_t start, uint64_t count);

/* One pass of the main loop (send, receive, form, finish).  Returns 1 if
 * anything moved, 0 if this rank is idle; o->done is set when this rank has
 * finished, applied everything in its pipeline, and every rank it talks to
 * has told it so. */
int ropt_step(ropt *o);

/* The split of generated updates these parameters run on this CPU
 * (ropt_pipe.c): "avx512" or "portable". */
const char *ropt_split_kernel(const ropt_params *p);

/* Updates this rank holds now, in every form: the generator's remote list
 * (generated, waiting for a bucket), the local list and the pipeline
 * (prefetched, not yet applied), send buckets, the unsplit rest of taken
 * packets and their remote lists, and the words of sends not yet
 * completed (as the transport knows them).  st.max_pending is its maximum
 * over the run. */
uint64_t ropt_held(const ropt *o);


#endif
