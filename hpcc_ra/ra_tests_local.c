/*
 * ra_tests_local.c - HPCC's Star and Single tests and the kit's Ceiling:
 * every rank (Star, Ceiling) or one rank (Single) updates a table of its
 * own with elements 1..4n of the stream, no messages.
 *
 * Star and Single run HPCC's sequential kernel (ra_local.c) and are
 * reported as HPCC reports them.  Ceiling runs the prefetched kernels of
 * ra_ceiling.c: first a short trial of each kind and depth on every rank
 * at once (the memory system shared as in a real run), then the best of
 * them over the whole stream; its table is Star's table (the same updates
 * on the same table), so their fingerprints match.
 */
#include "ra_tests_local.h"
#include "ra_ceiling.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ra_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>



/* HPCC's Single test picks its rank at random on rank 0, seeded from the
 * clock, never rank 0 unless it is alone, and broadcasts the choice. */
static int single_rank(MPI_Comm comm, int rank, int P)
{
    int pick = 0;
    if (rank == 0 && P > 1) {
        srand((unsigned)time(NULL));
        pick = 1 + (int)((double)rand() / ((double)RAND_MAX + 1.0) * (P - 1));
    }
    KIT_MPI_CHECK(MPI_Bcast(&pick, 1, MPI_INT, 0, comm));
    return pick;
}

/* Updates of a trial: enough to leave the start-up behind (2^22), never
 * more than the run itself. */
#define CEIL_TRIAL (1ULL << 22)

void ra_ceiling_pick(MPI_Comm comm, uint64_t *t, int log2, ra_gen_kind gen, uint64_t upd,
                     double trials[RA_CEIL_NKINDS][RA_CEIL_NDEPTHS], int *kind, int *depth)
{
    uint64_t n = 1ULL << log2, tu = upd < CEIL_TRIAL ? upd : CEIL_TRIAL;
    double best = -1;
    for (int k = 0; k < RA_CEIL_NKINDS; k++)
        for (int i = 0; i < RA_CEIL_NDEPTHS; i++) {
            ra_table_init(t, n, 0);
            KIT_MPI_CHECK(MPI_Barrier(comm));
            double t0 = MPI_Wtime();
            ra_ceiling_run(t, log2, gen, tu, (ra_ceil_kind)k, ra_ceil_depths[i]);
            double secs = MPI_Wtime() - t0, g = secs > 0 ? 1e-9 * (double)tu / secs : 0, sum;
            KIT_MPI_CHECK(MPI_Allreduce(&g, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
            trials[k][i] = sum;
            if (sum > best) {
                best = sum;
                *kind = k;
                *depth = ra_ceil_depths[i];
            }
        }
}

int ra_test_local(ra_run *run, const ra_config *cfg, int huge, ra_gen_kind gen, ra_test_kind kind, ra_result *res)
{
    int log2 = ra_ilog2_floor(run->table_dist.base);
    uint64_t n = 1ULL << log2;
    uint64_t upd = cfg->updates ? (cfg->updates / (uint64_t)run->nprocs ? cfg->updates / (uint64_t)run->nprocs : 1)
                                : 4 * n;
    int single = kind == RA_TEST_SINGLE;
    /* the rank whose own run the section reports: rank 0 for Star (HPCC
     * prints rank 0's run there), the selected rank for Single */
    int who = single ? single_rank(run->comm, run->rank, run->nprocs) : 0;
    int active = !single || run->rank == who;

    memset(res, 0, sizeof *res);
    res->test = kind;
    res->gen = gen;
    res->algorithm = kind == RA_TEST_CEILING ? "prefetched-sequential" : "hpcc-sequential";
    res->ranks = run->nprocs;
    res->log2_table = log2;
    res->table_words = n;
    res->default_updates = 4 * n;
    res->threads = kind == RA_TEST_CEILING ? 1 : ra_local_threads();
    res->huge_pages = huge;
    res->node_selected = who;
    if (kind == RA_TEST_CEILING)
        ra_ceiling_pick(run->comm, run->table, log2, gen, upd, res->ceil_trials, &res->ceil_kind, &res->ceil_depth);

    if (active)
        ra_table_init(run->table, n, 0);
    KIT_MPI_CHECK(MPI_Barrier(run->comm));
    double tb0 = MPI_Wtime(), t = 0, cpu = 0;
    if (active) {
        double t0 = MPI_Wtime(), c0 = ra_cpu_seconds();
        if (kind == RA_TEST_CEILING)
            ra_ceiling_run(run->table, log2, gen, upd, (ra_ceil_kind)res->ceil_kind, res->ceil_depth);
        else
            ra_local_run(run->table, log2, gen, upd);
        t = MPI_Wtime() - t0;
        cpu = ra_cpu_seconds() - c0;
    }
    KIT_MPI_CHECK(MPI_Barrier(run->comm));
    /* from this rank's leaving the first barrier to every rank's reaching
     * the second: the max over ranks spans the whole run, however the
     * ranks of an oversubscribed node were scheduled */
    double span = MPI_Wtime() - tb0, spanmax;
    KIT_MPI_CHECK(MPI_Allreduce(&span, &spanmax, 1, MPI_DOUBLE, MPI_MAX, run->comm));
    double g = active && t > 0 ? 1e-9 * (double)upd / t : 0;
    double gmin, gmax, gsum, tmax;
    double ginf = active ? g : 1e300;
    KIT_MPI_CHECK(MPI_Allreduce(&ginf, &gmin, 1, MPI_DOUBLE, MPI_MIN, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&g, &gmax, 1, MPI_DOUBLE, MPI_MAX, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&g, &gsum, 1, MPI_DOUBLE, MPI_SUM, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, run->comm));
    double times[2] = {t, cpu};
    KIT_MPI_CHECK(MPI_Bcast(times, 2, MPI_DOUBLE, who, run->comm));
    int nact = single ? 1 : run->nprocs;
    res->updates = upd * (uint64_t)nact;
    res->time_s = tmax;
    res->rank_time_s = times[0];
    res->cpu_time_s = times[1];
    res->gups = gsum / nact; /* HPCC: Star is the mean per process */
    res->gups_min = gmin;
    res->gups_max = gmax;
    /* Star's sum is HPCC's (each process's own rate, added); the ceiling
     * is a bound for ra_opt, so it is aggregated as ra_opt's GUPS is: every
     * update over the whole run's time, barrier to barrier.  The two agree
     * when each rank has a core; on an oversubscribed node ranks take
     * turns, and a sum of their own rates (or a span measured from each
     * rank's own start) counted the cores several times (8 ranks on 2
     * cores: 1.27 against 0.62 at 4). */
    res->gups_sum = kind == RA_TEST_CEILING && spanmax > 0 ? 1e-9 * (double)res->updates / spanmax : gsum;
    uint64_t fp = active ? ra_table_fingerprint(run->table, n, 0) : 0;
    KIT_MPI_CHECK(MPI_Bcast(&fp, 1, MPI_UINT64_T, who, run->comm));
    res->fingerprint = fp;
    res->errors = res->rank_errors = -1;
    res->check_time_s = -1;
    if (cfg->verify) {
        double t0 = MPI_Wtime();
        uint64_t e = 0;
        if (active) {
            ra_local_replay(run->table, log2, gen, upd);
            e = ra_table_errors(run->table, n, 0);
        }
        /* total errors, ranks with any error, ranks over HPCC's 1% */
        uint64_t mine[3] = {e, e > 0, !ra_hpcc_passed((int64_t)e, n)}, tot[3], who_e = e;
        KIT_MPI_CHECK(MPI_Allreduce(mine, tot, 3, MPI_UINT64_T, MPI_SUM, run->comm));
        KIT_MPI_CHECK(MPI_Bcast(&who_e, 1, MPI_UINT64_T, who, run->comm));
        res->errors = (int64_t)tot[0];
        res->nodes_with_error = (int)tot[1];
        res->nodes_failed = (int)tot[2];
        res->rank_errors = (int64_t)who_e;
        res->check_time_s = MPI_Wtime() - t0;
    }
    return KIT_EXIT_OK;
}
