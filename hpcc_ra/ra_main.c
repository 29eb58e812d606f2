/*
 * ra_main.c - the one driver every ra_* binary runs.
 *
 * Order of a run, one static step each (see ra_main at the end):
 * options -> node layout (found once) -> table size (HPCC: largest power of
 * two taking at most half the memory) -> memory check on every node before
 * allocating -> table allocated -> stream slices -> result files probed ->
 * algorithm setup -> counters and preamble -> for each generator: MPI test
 * [time-bound sample; barrier, clock, update(), barrier, clock; fingerprint;
 * verification by bulk replay], Star and Single tests -> key block on
 * stdout, HPCC sections/Summary and JSON on request -> cleanup.
 *
 * Every step is collective and returns the same value on every rank:
 * KIT_EXIT_OK to go on, STEP_DONE to stop with exit 0 (--help), or the
 * RA_EXIT_* code to exit with.
 */
#include "ra.h"
#include "kit_settings.h"
#include "ra_local.h"
#include "ra_options.h"
#include "ra_papi.h"
#include "ra_progress.h"
#include "ra_report.h"
#include "ra_table.h"
#include "ra_tests_local.h"
#include "ra_verify.h"
#include "kit_agree.h"
#include "kit_io.h"
#include "kit_mem.h"
#include "torus_mpi.h"
#include "ra_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef HPCC_RA_BUILD
#define HPCC_RA_BUILD "unknown"
#endif

static const char *g_prog = "ra";

/* A step's "stop here, exit 0" (--help, --version): not an RA_EXIT_ code. */
enum { STEP_DONE = -1 };

/* One line from rank 0 (errors every rank agrees on). */
__attribute__((format(printf, 2, 3))) static void say0(int rank, const char *fmt, ...)
{
    if (rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", g_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

/* An option error, from rank 0, in the kit's one format without "error:"
 * (kit_cli.h): "PROG: bad value 'X' for --opt: allowed ...". */
static void usage0(int rank, const char *msg)
{
    if (rank != 0)
        return;
    fprintf(stderr, "%s: %s\n", g_prog, msg);
    fflush(stderr);
}


/* Every rank needs a word of the table: KIT_EXIT_OK, else the one line
 * (said when say is 0) and KIT_EXIT_USAGE. */
static int table_covers(int k, int P, int say)
{
    if ((1ULL << k) >= (uint64_t)P)
        return KIT_EXIT_OK;
    say0(say, "table of 2^%d words is smaller than the %d processes: allowed --log2-table >= %d here", k, P,
         ra_ilog2_floor((uint64_t)P - 1) + 1);
    return KIT_EXIT_USAGE;
}

static double gib(uint64_t b) { return (double)b / (double)(1ULL << 30); }

#define RA_MAX_RESULTS 8 /* 2 generators x (MPI, Star, Single, Ceiling) */

typedef struct driver {
    ra_run run;
    const ra_algorithm *algo;
    ra_config cfg;
    torus_node_info node;                       /* ranks sharing this rank's memory */
    int setup_done;                             /* algo->setup succeeded: teardown owed */
    ra_result results[RA_MAX_RESULTS];
    int nres;
    uint64_t my_default_start, my_default_count; /* this rank's stream slice */
    uint64_t default_updates;                   /* total, HPCC's 4*TableSize or --updates */
    int huge;
    int show_progress;
    ra_papi papi;                               /* counted events, if any */
    uint64_t papi_counts[RA_PAPI_MAX];          /* this rank, last timed kernel */
    double last_cpu;                            /* CPU seconds of the last kernel */
} driver;


/* --papi: every rank opens the requested events; the set counted is the one
 * all ranks could open, so the sums mean the same thing on every rank.  One
 * notice line from rank 0 says what is not counted and why; never an error. */
static void papi_setup(driver *d)
{
    ra_papi *p = &d->papi;
    char err[256];
    if (ra_papi_parse(p, d->cfg.papi_events, err, sizeof err))
        return; /* already validated by the option parser */
    unsigned all = (1u << p->n) - 1, mine = ra_papi_open(p, all), common;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &common, 1, MPI_UNSIGNED, MPI_BAND, d->run.comm));
    if (common != mine) {
        ra_papi_close(p);
        mine = common ? ra_papi_open(p, common) : 0;
        KIT_MPI_CHECK(MPI_Allreduce(&mine, &common, 1, MPI_UNSIGNED, MPI_BAND, d->run.comm));
        if (common != mine) {
            ra_papi_close(p);
            common = 0;
            if (!p->why[0])
                snprintf(p->why, sizeof p->why, "ranks disagree on which events can be counted");
        }
    }
    /* Rank 0's reason may be empty when another rank lost the events. */
    char why0[sizeof p->why];
    snprintf(why0, sizeof why0, "%s", p->why[0] ? p->why : "not available on every rank");
    if (d->run.rank == 0 && common != all) {
        if (!common) {
            fprintf(stderr, "%s: notice: --papi: hardware counters are not available here: %s; reporting wall-clock figures only\n",
                    g_prog, why0);
        } else {
            char left[RA_PAPI_MAX * 48] = "";
            for (int i = 0; i < p->n; i++)
                if (!(common & (1u << i)))
                    snprintf(left + strlen(left), sizeof left - strlen(left), "%s%s", left[0] ? "," : "", p->names[i]);
            fprintf(stderr, "%s: notice: --papi: not counting %s: %s\n", g_prog, left, why0);
        }
        fflush(stderr);
    }
}

/* --profile: every rank's share of the timed run per activity, min and
 * max over ranks (every rank times the same activities). */
static void reduce_profile(ra_run *run, double secs, ra_result *res)
{
    int n = run->stats.nprof, mx;
    KIT_MPI_CHECK(MPI_Allreduce(&n, &mx, 1, MPI_INT, MPI_MAX, run->comm));
    if (mx == 0 || n != mx)
        return;
    double share[RA_PROF_MAX];
    for (int i = 0; i < n; i++)
        share[i] = secs > 0 ? run->stats.prof_s[i] / secs : 0;
    KIT_MPI_CHECK(MPI_Allreduce(share, res->prof_min, n, MPI_DOUBLE, MPI_MIN, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(share, res->prof_max, n, MPI_DOUBLE, MPI_MAX, run->comm));
    res->stats.nprof = n;
    res->stats.prof_names = run->stats.prof_names;
}

static void reduce_stats(ra_run *run, ra_stats *out)
{
    uint64_t sums[6] = {run->stats.send_tests, run->stats.send_blocked, run->stats.packets_sent,
                        run->stats.updates_sent, run->stats.hops, run->stats.bytes_sent};
    uint64_t tot[6];
    KIT_MPI_CHECK(MPI_Allreduce(sums, tot, 6, MPI_UINT64_T, MPI_SUM, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&run->stats.max_pending, &out->max_pending, 1, MPI_UINT64_T, MPI_MAX, run->comm));
    out->send_tests = tot[0];
    out->send_blocked = tot[1];
    out->packets_sent = tot[2];
    out->updates_sent = tot[3];
    out->hops = tot[4];
    out->bytes_sent = tot[5];
}

static int timed_update(driver *d, double *secs, const char *label)
{
    ra_run *run = &d->run;
    memset(&run->stats, 0, sizeof run->stats);
    run->progress = ra_progress_begin(d->show_progress && label, run->upd_count, label);
    int count = label && d->papi.counting;
    KIT_MPI_CHECK(MPI_Barrier(run->comm));
    double t0 = MPI_Wtime(), c0 = ra_cpu_seconds();
    if (count)
        ra_papi_start(&d->papi);
    int rc = d->algo->update(run);
    if (count)
        ra_papi_stop(&d->papi, d->papi_counts);
    d->last_cpu = ra_cpu_seconds() - c0;
    KIT_MPI_CHECK(MPI_Barrier(run->comm));
    *secs = MPI_Wtime() - t0;
    ra_progress_end(run->progress);
    run->progress = NULL;
    return rc;
}

static int run_mpi_test(driver *d, ra_gen_kind gen, ra_result *res)
{
    ra_run *run = &d->run;
    const ra_config *cfg = &d->cfg;
    run->gen = gen;
    run->upd_start = d->my_default_start;
    run->upd_count = d->my_default_count;
    ra_table_init(run->table, run->local_size, run->local_start);

    memset(res, 0, sizeof *res);
    res->test = RA_TEST_MPI;
    res->gen = gen;
    res->algorithm = d->algo->name;
    res->ranks = run->nprocs;
    res->log2_table = run->log2_table;
    res->table_words = run->table_size;
    res->default_updates = d->default_updates;
    res->time_bound = cfg->time_bound;
    res->huge_pages = d->huge;

    if (cfg->time_bound > 0) {
        /* HPCC 1.4 time bound: time 1% of each rank's updates, estimate how
         * many fit in the bound, take the minimum over ranks, start over.
         * The sample is bounded too: it doubles from 1024 updates and stops
         * at 1% of the updates or once it takes 5% of the bound (less would
         * time mostly the kernel's fixed start-up cost), so an --updates of
         * 2^63 still ends within the bound plus at most ~20% for sampling. */
        uint64_t target = d->my_default_count / 100 ? d->my_default_count / 100 : (d->my_default_count ? 1 : 0);
        uint64_t c = 1024;
        double ts = 0;
        for (;;) {
            run->upd_count = c < target ? c : target;
            int rc = timed_update(d, &ts, NULL);
            if (rc)
                return rc;
            double tmax;
            KIT_MPI_CHECK(MPI_Allreduce(&ts, &tmax, 1, MPI_DOUBLE, MPI_MAX, run->comm));
            if (torus_all_ok(run->comm, run->upd_count == target) || tmax >= cfg->time_bound / 20 ||
                c > UINT64_MAX / 2)
                break;
            c *= 2;
            ra_table_init(run->table, run->local_size, run->local_start);
        }
        res->sample_time_s = ts;
        double est = ts > 0 ? (double)run->upd_count * cfg->time_bound / ts : 1e30;
        int fits = est >= (double)d->my_default_count;
        uint64_t mine = fits ? d->my_default_count : (uint64_t)est, m;
        int all_fit = torus_all_ok(run->comm, fits);
        KIT_MPI_CHECK(MPI_Allreduce(&mine, &m, 1, MPI_UINT64_T, MPI_MIN, run->comm));
        run->upd_count = all_fit ? d->my_default_count : (m < d->my_default_count ? m : d->my_default_count);
        ra_table_init(run->table, run->local_size, run->local_start);
    }

    char label[96];
    snprintf(label, sizeof label, "[%s mpi %s]", d->algo->name, ra_gen_name(gen));
    int rc = timed_update(d, &res->time_s, label);
    if (rc)
        return rc;
    res->cpu_time_s = d->last_cpu;
    reduce_stats(run, &res->stats);
    reduce_profile(run, res->time_s, res);
    if (cfg->papi) {
        res->papi_requested = 1;
        uint64_t tot[RA_PAPI_MAX];
        KIT_MPI_CHECK(MPI_Allreduce(d->papi_counts, tot, RA_PAPI_MAX, MPI_UINT64_T, MPI_SUM, run->comm));
        for (int i = 0; i < d->papi.n; i++)
            if (d->papi.counting & (1u << i)) {
                /* a copy, not snprintf: gcc -O1 (the sanitizer build) warns that
                 * d and res may overlap (-Wrestrict), which they never do */
                size_t l = strnlen(d->papi.names[i], sizeof res->papi_names[0] - 1);
                memcpy(res->papi_names[res->papi_n], d->papi.names[i], l);
                res->papi_names[res->papi_n][l] = 0;
                res->papi_counts[res->papi_n++] = tot[i];
            }
    }
    snprintf(res->shape, sizeof res->shape, "%s", run->shape);
    /* the preamble's "# ranks:" line as keys, for scripts and tests */
    res->nodes = d->node.nnodes;
    res->per_node = d->node.max_per_node;
    snprintf(res->nodes_source, sizeof res->nodes_source, "%s", torus_node_source(&d->node));
    snprintf(res->keys, sizeof res->keys, "%s", run->keys);
    /* The update count, the fingerprint and the error count are what the
     * run is judged by: like ra_verify.c they call the MPI library's own
     * PMPI_Allreduce, so an interposed collective library (libtorus_pmpi.so)
     * can never vouch for itself. */
    KIT_MPI_CHECK(KMPI_Allreduce(&run->upd_count, &res->updates, 1, MPI_UINT64_T, MPI_SUM, run->comm));
    res->gups = res->time_s > 0 ? 1e-9 * (double)res->updates / res->time_s : 0;

    uint64_t fp = ra_table_fingerprint(run->table, run->local_size, run->local_start);
    KIT_MPI_CHECK(KMPI_Allreduce(&fp, &res->fingerprint, 1, MPI_UINT64_T, MPI_SUM, run->comm));

    res->errors = -1;
    res->check_time_s = -1;
    if (cfg->verify) {
        KIT_MPI_CHECK(MPI_Barrier(run->comm));
        double t0 = MPI_Wtime(), c0 = ra_cpu_seconds();
        rc = ra_verify_replay(run);
        if (rc)
            return rc;
        uint64_t e = ra_table_errors(run->table, run->local_size, run->local_start), te;
        KIT_MPI_CHECK(KMPI_Allreduce(&e, &te, 1, MPI_UINT64_T, MPI_SUM, run->comm));
        res->check_cpu_s = ra_cpu_seconds() - c0;
        KIT_MPI_CHECK(MPI_Barrier(run->comm));
        res->check_time_s = MPI_Wtime() - t0;
        res->errors = (int64_t)te;
    }
    return KIT_EXIT_OK;
}

static void preamble(const driver *d)
{
    const ra_run *run = &d->run;
    const ra_config *cfg = &d->cfg;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    kit_mpi_library(lib);
    printf("# hpcc-ra %s  %s: %s\n", RA_VERSION, g_prog, d->algo->summary);
    printf("# ranks: %d on %d node(s), %d per node%s\n", run->nprocs, d->node.nnodes, d->node.max_per_node,
           torus_node_note(&d->node));
    printf("# table: 2^%d words = %.3f GiB total, %llu words (%.3f GiB) on rank 0, huge pages %s\n",
           run->log2_table, gib(run->table_size * 8), (unsigned long long)run->local_size,
           gib(run->local_size * 8), d->huge ? "advised" : "not available");
    printf("# updates: %llu%s\n", (unsigned long long)d->default_updates,
           cfg->updates ? " (--updates)" : " (4 x table, HPCC default)");
    printf("# generator: %s  suite:%s%s%s%s  time bound: ",
           cfg->gens == (RA_GENS_LFSR | RA_GENS_LCG) ? "lfsr+lcg" : cfg->gens == RA_GENS_LCG ? "lcg" : "lfsr",
           cfg->suite & RA_SUITE_MPI ? " mpi" : "", cfg->suite & RA_SUITE_STAR ? " star" : "",
           cfg->suite & RA_SUITE_SINGLE ? " single" : "", cfg->suite & RA_SUITE_CEILING ? " ceiling" : "");
    if (cfg->time_bound > 0)
        printf("%g s\n", cfg->time_bound);
    else
        printf("off\n");
    printf("# verification: %s  OpenMP threads (star/single): %d\n",
           cfg->verify ? "bulk replay (MPI_Alltoallv)" : "off", ra_local_threads());
    printf("# timer: MPI_Wtime, resolution %.3g s\n", MPI_Wtick());
    if (cfg->papi) {
        printf("# papi:");
        for (int i = 0; i < d->papi.n; i++)
            if (d->papi.counting & (1u << i))
                printf(" %s", d->papi.names[i]);
        printf("%s\n", d->papi.counting ? " (counted around the timed MPI kernel, summed over ranks)" : " no counters (wall clock only)");
    }
    printf("# MPI: %s\n", lib);
    printf("# build: %s\n", HPCC_RA_BUILD);
    kit_stdout_flush();
}

static void print_version(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    kit_mpi_library(lib);
    printf("%s (hpcc-ra) %s\n", g_prog, RA_VERSION);
    printf("build: %s\n", HPCC_RA_BUILD);
    printf("papi: %s\n", ra_papi_built_in() ? "built in (--papi)" : "not built in");
    printf("mpi: %s\n", lib);
}

static void write_hpcc_file(FILE *f, const driver *d, const ra_result *rs, int n, int success)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[256] = "unknown";
    kit_mpi_library(lib);
    if (gethostname(host, sizeof host))
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = 0;
    ra_hpcc_env env = {
        .prog = g_prog, .summary = d->algo->summary, .hostname = host, .mpi_library = lib,
        .build = HPCC_RA_BUILD, .comm_procs = d->run.nprocs, .wtick = MPI_Wtick(), .success = success,
        .mem_mib = d->cfg.mem_bytes ? (double)d->cfg.mem_bytes / (1 << 20) : -1.0, .openmp = -1,
    };
#ifdef _OPENMP
    env.openmp = _OPENMP;
    env.omp_max_threads = omp_get_max_threads();
    env.omp_procs = omp_get_num_procs();
#pragma omp parallel
    {
#pragma omp single
        env.omp_threads = omp_get_num_threads();
    }
#endif
    ra_report_hpcc_header(f, &env);
    for (int i = 0; i < n; i++)
        if (rs[i].test != RA_TEST_CEILING) /* the kit's own: the file stays HPCC's */
            ra_report_hpcc_section(f, &rs[i]);
    ra_report_hpcc_summary(f, rs, n, &env);
    ra_report_hpcc_footer(f);
}

/* ---- the steps of a run, in order ---------------------------------------- */

/* Whether --output and --json can be written (a temporary is made beside
 * each and removed: nothing is created or truncated); the one line is
 * said when say is 0.  KIT_EXIT_OK or KIT_EXIT_USAGE. */
static int probe_files(const ra_config *cfg, int say)
{
    const char *opt[2] = {"output", "json"}, *path[2] = {cfg->output, cfg->json};
    char err[400];
    for (int i = 0; i < 2; i++)
        if (path[i] && kit_outfile_probe(path[i], err, sizeof err)) {
            say0(say, "--%s cannot be opened for writing: %s: allowed a writable file path", opt[i], err);
            return KIT_EXIT_USAGE;
        }
    return KIT_EXIT_OK;
}

/* Before MPI starts: the options into d->cfg, the algorithm's own check of
 * them, and with --dry-run the result files' folders and the input files.
 * Every process reads the same argv and agrees without communicating; the
 * first process of the launch (kit_launch_first) prints --help,
 * --version or the one-line error.  KIT_EXIT_OK to go on, STEP_DONE to stop
 * with exit 0, or KIT_EXIT_USAGE.  A typo costs no MPI start-up. */
static int parse_options(driver *d, int argc, char **argv)
{
    char err[512] = "";
    int first = kit_launch_first(), say = first ? 0 : 1;
    int pr = ra_options_parse(argc, argv, d->algo, &d->cfg, err, sizeof err);
    if (pr == RA_PARSE_ERROR) {
        usage0(say, err);
        return KIT_EXIT_USAGE;
    }
    if (pr != RA_PARSE_OK) {
        if (first) {
            if (pr == RA_PARSE_HELP)
                ra_options_help(stdout, g_prog, d->algo);
            else
                print_version();
        }
        return STEP_DONE;
    }
    const ra_config *cfg = &d->cfg;
    int dry = cfg->dry_run;
    if (d->algo->check && d->algo->check(cfg, dry, err, sizeof err)) {
        /* printed as setup's lines are (setup_algorithm) */
        if (!strncmp(err, "bad value ", 10))
            usage0(say, err);
        else
            say0(say, "%s", err);
        return KIT_EXIT_USAGE;
    }
    if (!dry)
        return KIT_EXIT_OK;
    /* --dry-run: one process checks what a run's rank 0 would before it
     * starts (probe_outputs), and nothing is left behind; with P ranks
     * given, the table against them as size_table does */
    if ((cfg->dry_ranks > 0 && cfg->log2_table >= 0 && table_covers(cfg->log2_table, cfg->dry_ranks, say)) ||
        probe_files(cfg, say))
        return KIT_EXIT_USAGE;
    return STEP_DONE;
}

/* Every rank runs the same configuration or none runs (kit_agree.h):
 * before anything else, the options and settings each rank was given. */
static int agree(driver *d, const char *text, int said)
{
    char err[600];
    if (kit_agree(d->run.comm, text, err, sizeof err) == 0)
        return KIT_EXIT_OK;
    if (!said)
        say0(d->run.rank, "%s", err);
    return KIT_EXIT_USAGE;
}

/* ... and what they derived from them: the table and the update count. */
static int agree_derived(driver *d)
{
    char text[128];
    uint64_t updates = d->cfg.updates ? d->cfg.updates : 4 * d->run.table_size;
    snprintf(text, sizeof text, "derived log2_table=%d\nderived updates=%llu\n", d->run.log2_table,
             (unsigned long long)updates);
    return agree(d, text, 0);
}

/* Finds, once, which ranks share this rank's node (and so its memory):
 * d->node, which the sizing, the memory check and the preamble read and
 * algorithms see as run->node. */
static int discover_node(driver *d)
{
    char err[600];
    int rc = torus_node_discover(d->run.comm, &d->node, err, sizeof err);
    if (rc) {
        say0(d->run.rank, "%s", err);
        return rc == -2 ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
    }
    d->run.node = &d->node;
    return KIT_EXIT_OK;
}

/* Needs the options and the node layout.  Sets the table's size (from
 * --log2-table, or HPCC's rule: the largest power of two taking at most half
 * of --mem times the ranks) and this rank's block of it. */
static int size_table(driver *d)
{
    ra_run *run = &d->run;
    const ra_config *cfg = &d->cfg;
    int rank = run->rank, P = run->nprocs;
    int k = cfg->log2_table;
    if (k < 0) {
        uint64_t mem = cfg->mem_bytes, mine, minmem;
        if (!mem) {
            /* Default: half of this node's RAM is "given to the benchmark",
             * shared by its ranks; HPCC puts the table in half of that. */
            mine = kit_mem_total() / 2 / (uint64_t)d->node.local_size;
            KIT_MPI_CHECK(MPI_Allreduce(&mine, &minmem, 1, MPI_UINT64_T, MPI_MIN, run->comm));
            mem = minmem;
        }
        uint64_t total = mem > UINT64_MAX / (uint64_t)P ? UINT64_MAX : mem * (uint64_t)P;
        uint64_t words = total / 2 / 8;
        k = ra_ilog2_floor(words);
        if (k > 62)
            k = 62;
        if (k < 1) {
            say0(rank, "--mem %llu bytes per process gives no table: allowed at least 16 bytes per process in total",
                 (unsigned long long)mem);
            return KIT_EXIT_USAGE;
        }
    }
    run->log2_table = k;
    run->table_size = 1ULL << k;
    if (table_covers(k, P, rank))
        return KIT_EXIT_USAGE;
    ra_dist_init(&run->table_dist, run->table_size, P);
    run->local_start = ra_dist_start(&run->table_dist, rank);
    run->local_size = ra_dist_count(&run->table_dist, rank);
    return KIT_EXIT_OK;
}

/* Needs the table's blocks and the node layout.  Before allocating, on every
 * node: the ranks of a node must fit their blocks into 90% of what the
 * kernel says is available; else the lowest such rank says what fits. */
static int check_memory(driver *d)
{
    const ra_run *run = &d->run;
    int P = run->nprocs;
    torus_mem_verdict v;
    if (torus_mem_fits(run->comm, &d->node, (double)run->local_size * 8, &v))
        return KIT_EXIT_OK;
    if (v.speaker) {
        fprintf(stderr,
                "%s: error: table of 2^%d words needs %.2f GiB on this node (%d ranks) but only %.2f GiB is available: "
                "allowed --log2-table <= %d here (or a smaller --mem)\n",
                g_prog, run->log2_table, v.node_need / (double)(1ULL << 30), v.ranks, gib(v.avail),
                ra_ilog2_floor(v.avail / 10 * 9 / 8 * (uint64_t)P / (uint64_t)v.ranks));
        fflush(stderr);
    }
    return KIT_EXIT_RESOURCE;
}

/* Allocates this rank's block (huge pages advised: d->huge), or every rank
 * stops; the lowest failing rank says so for all of them, in one line. */
static int allocate_table(driver *d)
{
    ra_run *run = &d->run;
    run->table = ra_table_alloc(run->local_size, &d->huge);
    int ok = run->table != NULL;
    if (torus_all_ok(run->comm, ok))
        return KIT_EXIT_OK;
    int cand = ok ? run->nprocs : run->rank, first, nfail, mine = !ok;
    KIT_MPI_CHECK(MPI_Allreduce(&cand, &first, 1, MPI_INT, MPI_MIN, run->comm));
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &nfail, 1, MPI_INT, MPI_SUM, run->comm));
    if (run->rank == first)
        fprintf(stderr, "%s: error: %d of %d ranks (rank %d first) could not allocate %.2f GiB each for its block of the 2^%d-word table\n",
                g_prog, nfail, run->nprocs, first, (double)run->local_size * 8 / (double)(1ULL << 30), run->log2_table);
    return KIT_EXIT_RESOURCE;
}

/* Update stream slices: HPCC gives rank p the 4*LocalSize(p) elements after
 * element 4*GlobalStart(p); --updates N splits elements 1..N the same block
 * way.  Either way the union is a prefix of the stream, so the final table
 * does not depend on the process count.  Also decides the progress line. */
static void slice_updates(driver *d)
{
    const ra_run *run = &d->run;
    const ra_config *cfg = &d->cfg;
    if (cfg->updates) {
        ra_dist ud;
        ra_dist_init(&ud, cfg->updates, run->nprocs);
        d->my_default_start = ra_dist_start(&ud, run->rank);
        d->my_default_count = ra_dist_count(&ud, run->rank);
        d->default_updates = cfg->updates;
    } else {
        d->my_default_start = 4 * run->local_start;
        d->my_default_count = 4 * run->local_size;
        d->default_updates = 4 * run->table_size;
    }
    d->show_progress = run->rank == 0 && (cfg->progress == 1 || (cfg->progress < 0 && isatty(2)));
}

/* A result file that cannot be written is a usage error found now, not after
 * a long run: rank 0 (the only writer) checks that --output and --json can
 * be written (probe_files) and tells the others. */
static int probe_outputs(driver *d)
{
    int code = d->run.rank == 0 ? probe_files(&d->cfg, 0) : KIT_EXIT_OK;
    KIT_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, 0, d->run.comm));
    return code;
}

/* Test hook, in test builds only (build/<flavour>/tests/ra_base_hooks),
 * RA_INJECT_MPI_ERROR set: prove that a failing MPI call names its place
 * and aborts the job with exit code 3. */
static void inject_mpi_error(const driver *d)
{
#ifdef KIT_TEST_HOOKS
    if (kit_setting("RA_INJECT_MPI_ERROR") && d->run.rank == 0)
        KIT_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, d->run.nprocs + 7, 0, d->run.comm));
#else
    (void)d;
#endif
}

/* Needs the table allocated.  The algorithm reads its options and builds
 * its state; its error line is printed by rank 0 (as an option error when it
 * is one, see ra.h). */
static int setup_algorithm(driver *d)
{
    char err[512] = "";
    int code = d->algo->setup ? d->algo->setup(&d->run, err, sizeof err) : KIT_EXIT_OK;
    if (code == KIT_EXIT_OK) {
        d->setup_done = 1;
        return KIT_EXIT_OK;
    }
    if (!strncmp(err, "bad value ", 10))
        usage0(d->run.rank, err);
    else
        say0(d->run.rank, "%s", err);
    return code;
}

/* Runs the chosen tests for each chosen generator, in HPCC's order (MPI,
 * Star, Single, then the kit's Ceiling), after the counters are agreed on and the preamble printed;
 * rank 0 prints each key block as soon as its test ends.  Stops at the
 * first test that fails to run (not at verification errors). */
static int run_suite(driver *d)
{
    const ra_config *cfg = &d->cfg;
    if (cfg->papi)
        papi_setup(d);
    if (d->run.rank == 0 && !cfg->quiet)
        preamble(d);
    for (int g = RA_GEN_LFSR; g <= RA_GEN_LCG; g++) {
        if (!(cfg->gens & (g == RA_GEN_LFSR ? RA_GENS_LFSR : RA_GENS_LCG)))
            continue;
        for (int t = 0; t < 4; t++) {
            static const int want[4] = {RA_SUITE_MPI, RA_SUITE_STAR, RA_SUITE_SINGLE, RA_SUITE_CEILING};
            static const ra_test_kind kind[4] = {RA_TEST_MPI, RA_TEST_STAR, RA_TEST_SINGLE, RA_TEST_CEILING};
            if (!(cfg->suite & want[t]))
                continue;
            ra_result *res = &d->results[d->nres];
            int code = t == 0 ? run_mpi_test(d, (ra_gen_kind)g, res)
                              : ra_test_local(&d->run, cfg, d->huge, (ra_gen_kind)g, kind[t], res);
            if (code)
                return code;
            d->nres++;
            if (d->run.rank == 0) {
                if (d->nres > 1)
                    printf("\n");
                ra_report_keys(stdout, res);
                kit_stdout_flush();
            }
        }
    }
    return KIT_EXIT_OK;
}

/* 1 when verification found errors in any test, or the MPI test ran no
 * update at all (a --time-bound its sample did not leave room for):
 * nothing measured is never a pass.  Rank 0 says the latter. */
static int any_errors(const driver *d)
{
    for (int i = 0; i < d->nres; i++) {
        const ra_result *r = &d->results[i];
        if (r->errors > 0)
            return 1;
        if (!ra_result_measured(r)) {
            say0(d->run.rank, "the MPI test ran 0 updates within --time-bound %g s (its sample took %.3g s): nothing "
                              "was measured or verified: allowed a bound longer than the sample",
                 r->time_bound, r->sample_time_s);
            return 1;
        }
    }
    return 0;
}

/* Needs run_suite's code.  When the suite ran, rank 0 appends the HPCC file
 * and writes the JSON; then every rank takes rank 0's code, so that all exit
 * alike.  Returns the exit code of the run (KIT_EXIT_VERIFY on errors). */
static int write_reports(driver *d, int code)
{
    const ra_config *cfg = &d->cfg;
    int failed = any_errors(d);
    if (!code && d->run.rank == 0) {
        char err[400];
        kit_outfile o;
        /* the HPCC file is appended to: the temporary starts as a copy of
         * the old content, so a failed write leaves the old file whole */
        if (cfg->output) {
            if (kit_outfile_open(&o, cfg->output, 1, err, sizeof err)) {
                say0(0, "--output: %s", err);
                code = KIT_EXIT_RESOURCE;
            } else {
                write_hpcc_file(o.f, d, d->results, d->nres, ra_hpcc_success(d->results, d->nres));
                if (kit_outfile_commit(&o, err, sizeof err)) {
                    say0(0, "--output: %s", err);
                    code = KIT_EXIT_RESOURCE;
                }
            }
        }
        if (cfg->json) {
            if (kit_outfile_open(&o, cfg->json, 0, err, sizeof err)) {
                say0(0, "--json: %s", err);
                code = KIT_EXIT_RESOURCE;
            } else {
                ra_report_json(o.f, d->results, d->nres);
                if (kit_outfile_commit(&o, err, sizeof err)) {
                    say0(0, "--json: %s", err);
                    code = KIT_EXIT_RESOURCE;
                }
            }
        }
    }
    /* the key blocks went to stdout: a full or closed stdout lost them */
    if (d->run.rank == 0)
        code = kit_stdout_end(code ? code : failed ? KIT_EXIT_VERIFY : KIT_EXIT_OK);
    KIT_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, 0, d->run.comm));
    return code;
}

/* Releases whatever the steps acquired, in reverse order, and ends MPI. */
static void cleanup(driver *d)
{
    if (d->setup_done && d->algo->teardown)
        d->algo->teardown(&d->run);
    ra_papi_close(&d->papi);
    if (d->run.table)
        ra_table_free(d->run.table, d->run.local_size);
    torus_node_free(&d->node);
    MPI_Finalize();
}

int ra_main(int argc, char **argv, const ra_algorithm *algo)
{
    kit_stdout_begin(argv[0]);
    g_prog = kit_prog();
    driver dd;
    driver *d = &dd;
    memset(d, 0, sizeof *d);
    d->algo = algo;
    d->node.comm = MPI_COMM_NULL;
    d->run.comm = MPI_COMM_WORLD;
    d->run.cfg = &d->cfg;

    int code = parse_options(d, argc, argv);
    /* alone, an option that stops the run stops it before MPI starts (a typo
     * costs no start-up); launched with others, the process joins MPI all the
     * same, so that ranks given different options meet in the agreement
     * instead of leaving the others waiting in MPI_Init */
    int alone = kit_launch_size() == 1;
    if (code == STEP_DONE && alone)
        return kit_launch_first() ? kit_stdout_end(KIT_EXIT_OK) : KIT_EXIT_OK;
    if (code != KIT_EXIT_OK && alone)
        return code;
    /* the configuration the ranks must agree on, from argv as given (MPI_Init
     * may take words of it) */
    static char canon[1 << 15];
    ra_options_agree_text(argc, argv, algo, canon, sizeof canon);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "%s: error: MPI_Init failed\n", g_prog);
        return KIT_EXIT_RESOURCE;
    }
    KIT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int lrc = kit_mpi_launch_check(kit_prog()); /* another MPI's launcher: N jobs of one rank */
    if (lrc) {
        MPI_Finalize();
        return lrc;
    }
    KIT_MPI_CHECK(MPI_Comm_rank(d->run.comm, &d->run.rank));
    KIT_MPI_CHECK(MPI_Comm_size(d->run.comm, &d->run.nprocs));
    /* a rank 0 that printed its own error (an option it alone was given,
     * MPMD) leaves out the disagreement: one line */
    int acode = agree(d, canon, code != KIT_EXIT_OK && code != STEP_DONE && kit_launch_first());
    if (acode != KIT_EXIT_OK || code != KIT_EXIT_OK) {
        MPI_Finalize();
        if (acode != KIT_EXIT_OK)
            return acode;
        return code == STEP_DONE ? (kit_launch_first() ? kit_stdout_end(KIT_EXIT_OK) : KIT_EXIT_OK) : code;
    }

    /* input errors (the table against the ranks, the result files) before
     * resource errors (memory) */
    code = discover_node(d);
    if (code == KIT_EXIT_OK)
        code = size_table(d);
    if (code == KIT_EXIT_OK)
        code = agree_derived(d);
    if (code == KIT_EXIT_OK)
        code = probe_outputs(d);
    if (code == KIT_EXIT_OK)
        code = check_memory(d);
    if (code == KIT_EXIT_OK)
        code = allocate_table(d);
    if (code == KIT_EXIT_OK) {
        slice_updates(d);
        inject_mpi_error(d);
        code = setup_algorithm(d);
    }
    if (code == KIT_EXIT_OK)
        code = write_reports(d, run_suite(d));
    cleanup(d);
    return code;
}
