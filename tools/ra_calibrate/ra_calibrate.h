/*
 * ra_calibrate.h - bin/ra_calibrate: measures this machine's model
 * parameters at the rank count of the run to be predicted (mpirun -n P,
 * the run's --log2-table) and writes a torusmodel params file.  It sits in
 * tools/, above both the routed algorithm (optimized/, which it runs) and
 * the calculator (torusmodel/, whose params file it writes).
 *
 * Algorithm: paper 002 sec. 4.1, 4.3.1 (Table 1's method) and 6.1-6.2,
 * with every rank of every node working at once where the run would.
 * Each rank holds its share of the run's table, 2^K / P words.  The bounds
 * take costs measured alone (the least a step can cost); the predictions
 * add what short runs of the two algorithms themselves lose beyond them.
 *   t_local: the best of the ceiling kernel (hpcc_ra/ra_ceiling.c, the
 *     kind and depth its trials on every rank at once chose), the Star
 *     kernel (hpcc_ra/ra_local.c, one thread) and ra_opt's own loop on
 *     rank 0 alone, the others asleep: the sequential benchmark's t_g +
 *     t_u + t_o^s.
 *   node_gups: the ceiling kernel and ra_opt's loop on every rank at once,
 *     the best of four tries each (two when ranks outnumber cores): a
 *     node's ranks' updates over its slowest rank's time, the node memory
 *     system's random-update rate with its ranks sharing it (and never
 *     below the rate ra_opt's run below reached on the node).  HPCC's Star
 *     kernel on every rank at once is measured too and reported
 *     (node_gups_star in the params file's comments), not used: without
 *     prefetches it is not what the memory gives.
 *   A lone figure above the node's share (cores / node rate) is lowered to
 *     it: other load took the lone rank's core.
 *   t_test, t_exposed: the baseline's local path (sec. 6.1) on rank 0 alone
 *     with the receives it keeps posted (ra_base_receives): one
 *     MPI_Testany per update costs t_test (loop with and without tests on a
 *     table in cache); on the run's table a local update then costs
 *     t_local + t_test + t_exposed, as the test between two updates keeps
 *     their misses from overlapping.  Four tries each (the least): on one
 *     rank that path is the whole baseline run the bound is for.
 *   t_send, t_recv: pairs of ranks (0-1, 2-3, ...) at once, Table 1's
 *     method per payload 8..8192 bytes, the least of the repetitions; the
 *     direct model takes the payload of the baseline's mean bucket
 *     (tm_bucket_sim, Table 6).
 *   Figures measured with ranks at once are wall time per rank times
 *     min(1, cores / ranks on the node): cycles of a core, which the model
 *     multiplies back by min(ranks, cores).
 *   t_hop: ra_opt's state machine over the in-process transport on ra_opt's
 *     shape with every block in cache (rank 0 alone): ns per update less
 *     the same on one rank, over H.  The routing work with no memory miss
 *     and no MPI: below what a hop costs in a run, so the CPU bound holds.
 *   t_wait_routed, t_wait_direct: ra_opt (its defaults, its shape, the
 *     run's own 4 x 2^K updates, at most 2^29) and the baseline (baseline/base_algo.c) on all ranks, table 2^K, the better of
 *     two tries each (four of the baseline on one rank): a node's cores
 *     spend used * nodes / GUPS ns per update; what exceeds the CPU bound's
 *     cycles (tm_evaluate) is the wait the prediction adds.  Paper 002 fits t_o^p (sec. 4.3) and t_hop (sec.
 *     6.2) to measured runs the same way.
 *   link_bw: 64 KiB ping-pong between ranks 0 and 1, the others asleep.
 *   Cost: 7-20 s with --quick (2^21 updates per rank per phase, 2^24 for
 *   the kernels), longer otherwise.
 * Figures are written in nanoseconds with clock_hz = 1e9.
 *
 * Files, by job: options.c (the option table), kernels.c (the timed loops
 * and message exchanges the measures share), measure.c (one function per
 * measured parameter, in the order main runs them), fit.c (the params
 * and the waits fitted to the two runs), main.c (set-up, the report, the
 * params file).
 */
#ifndef RA_CALIBRATE_H
#define RA_CALIBRATE_H

#include "base_algo.h"
#include "ra.h"
#include "ra_dist.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ra_tests_local.h"
#include "ropt_mpi.h"
#include "ropt_sim.h"
#include "kit_agree.h"
#include "kit_cli.h"
#include "kit_io.h"
#include "kit_mem.h"
#include "kit_opt.h"
#include "torusmodel.h"

#include <math.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct cal_opts {
    int log2, quick, dry_run, probe, hop, reps;
    const char *out;
    double link_bw;
    tm_hw hw; /* --node-from: hwloc's facts of the node (cores 0: none) */
} cal_opts;

int cal_parse_options(int argc, char **argv, int first, cal_opts *o);
/* the configuration the ranks agree on (kit_agree_text) */
void cal_agree_text(int argc, char **argv, char *buf, size_t len);

/* The run being calibrated: its options, ranks and nodes, and each rank's
 * share of the table (2^lk words in tab, LS of them). */
typedef struct cal {
    cal_opts op;
    int rank, P, cores, lk;
    torus_node_info ni;
    double rpn, used, share; /* ranks per node, cores at work per node, wall ns -> core ns */
    uint64_t LS, per_rank, kern;
    int reps, warm;
    uint64_t *tab;
} cal;

/* The payloads of Table 1's method. */
extern const int cal_msg_sizes[];
enum { NS = 11 };

/* Every figure measured, and what the fit derives from them. */
typedef struct cal_figs {
    double node_gups, star_gups, t_local, t_test, local_path, t_exposed;
    int nrecv;
    double ts[NS], tr[NS], link_bw;
    int cap;
    torus_shape shape;
    double H, routed_gups, t_hop, base_gups, bucket;
    double cyc_routed, cyc_direct, spent_routed, spent_direct;
} cal_figs;

/* kernels.c */
extern int cal_ceil_kind, cal_ceil_depth;
uint64_t *cal_alloc_table(MPI_Comm comm, uint64_t words);
double cal_routed_run(MPI_Comm comm, MPI_Comm sync, const char *dims, int log2, uint64_t updates, int *cap,
                  torus_shape *shape, uint64_t *given);
/* The same with every ra_opt option given (o->prm's budget may exceed
 * 1024: --hop's packets of a chosen fill); *node_shm (may be NULL) gets the
 * node hop's road (1 shared memory, 0 MPI), *wait_s (may be NULL) this
 * rank's seconds in steps that moved nothing (o->profile set, else 0). */
double cal_routed_run_with(MPI_Comm comm, MPI_Comm sync, const ropt_mpi_options *o, int log2, uint64_t updates,
                           int *cap, torus_shape *shape, uint64_t *given, int *node_shm, double *wait_s);
double cal_node_rate(const torus_node_info *ni, double updates, double secs);
void cal_base_local_path(uint64_t *t, int lk, uint64_t n, int nrecv, MPI_Request *req, int tests);
double cal_star_ns(uint64_t *t, int lk, uint64_t n);
double cal_ceiling_ns(uint64_t *t, int lk, uint64_t n);
double cal_sim_ns_per_update(const torus_shape *shape, uint64_t updates);
void cal_message_costs(int rank, int P, int reps, int warm, double *ts, double *tr);
double cal_at_payload(const double *c, double bytes);
int cal_cores_online(void);

/* measure.c */
double cal_measure_t_local(cal *c);
double cal_measure_node_gups(cal *c);
double cal_measure_star_gups(cal *c);
void cal_measure_local_path(cal *c, double *t_test, double *local_path, int *nrecv);
void cal_measure_message_costs(cal *c, double *ts, double *tr);
double cal_measure_link_bw(cal *c);
double cal_measure_routed_gups(cal *c, int *cap, torus_shape *shape);
double cal_measure_t_hop(cal *c, const torus_shape *shape, double H);
double cal_measure_base_gups(cal *c);

/* probe.c: --probe, the hardware figures alone (no GUPS run) */
typedef struct probe_figs {
    double clock_hz, mem_latency_ns, mlp, mem_bw, line_bytes;
    double instr_local, instr_hop, instr_test, mpi_latency_ns;
    double link_bw;     /* several nodes, no --link-bw: the 64 KiB ping-pong; else 0 */
    double mlp_rate[9]; /* updates per ns with 2, 4, 8, 12, 16, 24, 32, 48, 64 chases */
    char hop_shape[64];  /* the shape instr_hop was measured on ("" = 4x4 in-process) */
    int bw_threads;      /* threads per rank of the bandwidth pass: the cores it really has */
} probe_figs;
void cal_probe_all(cal *c, probe_figs *pf);
void cal_probe_params(const cal *c, const probe_figs *pf, tm_params *prm);
void cal_probe_cpu_name(char *buf, size_t len);

/* hop.c: --hop, the node hop's price measured directly */
int cal_hop_main(cal *c);

/* fit.c */
void cal_fit_params(const cal *c, cal_figs *f, tm_params *prm);

#endif
