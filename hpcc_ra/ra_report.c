/*
 * ra_report.c - writing results.  The key block is for people and scripts
 * (one "key: value" per line, fixed names); the HPCC section and Summary use
 * HPCC's own wording and key names so existing HPCC parsers read our files.
 */
#include "ra_report.h"
#include "ra_util.h"

#include <ctype.h>
#include <float.h>
#include <string.h>
#include <time.h>

const char *ra_test_name(ra_test_kind t)
{
    return t == RA_TEST_MPI ? "mpi" : t == RA_TEST_STAR ? "star" : t == RA_TEST_SINGLE ? "single" : "ceiling";
}

void ra_hpcc_prefix(const ra_result *r, char *buf, size_t len)
{
    const char *base = r->test == RA_TEST_MPI ? "MPIRandomAccess"
                     : r->test == RA_TEST_STAR ? "StarRandomAccess" : "SingleRandomAccess";
    snprintf(buf, len, "%s%s", base, r->gen == RA_GEN_LCG ? "_LCG" : "");
}

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

int ra_hpcc_passed(int64_t errors, uint64_t words)
{
    /* HPCC: errors <= 0.01 * TableSize; for whole numbers the same as
     * errors <= floor(words / 100), without a product that could overflow */
    return errors >= 0 && (uint64_t)errors <= words / 100;
}

int ra_result_measured(const ra_result *r)
{
    return r->test != RA_TEST_MPI || r->updates > 0;
}

int ra_hpcc_success(const ra_result *rs, int n)
{
    for (int i = 0; i < n; i++) {
        const ra_result *r = &rs[i];
        if (r->errors < 0 || !ra_result_measured(r))
            return 0;
        if (r->test == RA_TEST_MPI ? !ra_hpcc_passed(r->errors, r->table_words) : r->nodes_failed > 0)
            return 0;
    }
    return 1;
}

double ra_result_sbf(const ra_result *r) { return ratio(r->stats.send_blocked, r->stats.send_tests); }
double ra_result_mean_fill(const ra_result *r) { return ratio(r->stats.updates_sent, r->stats.packets_sent); }
double ra_result_hops_per_update(const ra_result *r) { return ratio(r->stats.hops, r->updates); }
double ra_result_bytes_per_update(const ra_result *r) { return ratio(r->stats.bytes_sent, r->updates); }

/* "PAPI_TOT_CYC" -> "papi_tot_cyc"; native names keep their letters and
 * digits, everything else becomes '_', so keys stay one word. */
void ra_papi_key(const char *event, char *buf, size_t len)
{
    const char *e = strncmp(event, "PAPI_", 5) == 0 ? event + 5 : event;
    size_t j = (size_t)snprintf(buf, len, "papi_");
    for (; *e && j + 1 < len; e++)
        buf[j++] = isalnum((unsigned char)*e) ? (char)tolower((unsigned char)*e) : '_';
    buf[j < len ? j : len - 1] = 0;
}

static void papi_keys(FILE *f, const ra_result *r)
{
    if (!r->papi_requested)
        return;
    fprintf(f, "papi_events: ");
    for (int i = 0; i < r->papi_n; i++)
        fprintf(f, "%s%s", i ? "," : "", r->papi_names[i]);
    fprintf(f, "%s\n", r->papi_n ? "" : "none");
    for (int i = 0; i < r->papi_n; i++) {
        char key[64];
        ra_papi_key(r->papi_names[i], key, sizeof key);
        fprintf(f, "%s: %llu\n", key, (unsigned long long)r->papi_counts[i]);
        fprintf(f, "%s_per_update: %.3f\n", key, ratio(r->papi_counts[i], r->updates));
    }
}

static const char *status_of(const ra_result *r)
{
    if (r->errors < 0)
        return "unverified";
    return r->errors == 0 && ra_result_measured(r) ? "passed" : "failed";
}

void ra_report_keys(FILE *f, const ra_result *r)
{
    fprintf(f, "test: %s\n", ra_test_name(r->test));
    fprintf(f, "algorithm: %s\n", r->algorithm);
    fprintf(f, "ranks: %d\n", r->ranks);
    fprintf(f, "generator: %s\n", ra_gen_name(r->gen));
    fprintf(f, "table_log2: %d\n", r->log2_table);
    fprintf(f, "table_words: %llu\n", (unsigned long long)r->table_words);
    fprintf(f, "updates: %llu\n", (unsigned long long)r->updates);
    fprintf(f, "time_s: %.6f\n", r->time_s);
    fprintf(f, "gups: %.9f\n", r->gups);
    if (r->test == RA_TEST_STAR || r->test == RA_TEST_CEILING) {
        fprintf(f, "gups_min: %.9f\n", r->gups_min);
        fprintf(f, "gups_max: %.9f\n", r->gups_max);
        fprintf(f, "gups_sum: %.9f\n", r->gups_sum);
    }
    if (r->test == RA_TEST_CEILING) {
        fprintf(f, "ceiling_kernel: %s\n", ra_ceil_kind_name((ra_ceil_kind)r->ceil_kind));
        fprintf(f, "ceiling_depth: %d\n", r->ceil_depth);
        for (int k = 0; k < RA_CEIL_NKINDS; k++) {
            fprintf(f, "ceiling_trials_%s:", ra_ceil_kind_name((ra_ceil_kind)k));
            for (int i = 0; i < RA_CEIL_NDEPTHS; i++)
                fprintf(f, " %d:%.4f", ra_ceil_depths[i], r->ceil_trials[k][i]);
            fprintf(f, "\n");
        }
    }
    if (r->test != RA_TEST_MPI)
        fprintf(f, "threads: %d\n", r->threads);
    if (r->test == RA_TEST_SINGLE)
        fprintf(f, "node_selected: %d\n", r->node_selected);
    fprintf(f, "errors: %lld\n", (long long)r->errors);
    fprintf(f, "verify_time_s: %.6f\n", r->check_time_s);
    fprintf(f, "cpu_time_s: %.6f\n", r->cpu_time_s);
    fprintf(f, "fingerprint: %016llx\n", (unsigned long long)r->fingerprint);
    fprintf(f, "time_bound_s: %g\n", r->time_bound);
    if (r->test == RA_TEST_MPI) {
        fprintf(f, "max_pending: %llu\n", (unsigned long long)r->stats.max_pending);
        fprintf(f, "sbf: %.6f\n", ra_result_sbf(r));
        fprintf(f, "mean_fill: %.3f\n", ra_result_mean_fill(r));
        fprintf(f, "hops_per_update: %.4f\n", ra_result_hops_per_update(r));
        fprintf(f, "bytes_per_update: %.3f\n", ra_result_bytes_per_update(r));
        fprintf(f, "shape: %s\n", r->shape[0] ? r->shape : "-");
        fprintf(f, "nodes: %d\nranks_per_node: %d\nnodes_source: %s\n", r->nodes, r->per_node, r->nodes_source);
        fputs(r->keys, f);
        papi_keys(f, r);
        for (int i = 0; i < r->stats.nprof; i++)
            fprintf(f, "profile_%s: %.4f %.4f\n", r->stats.prof_names[i], r->prof_min[i], r->prof_max[i]);
    }
    fprintf(f, "huge_pages: %s\n", r->huge_pages ? "advised" : "no");
    fprintf(f, "status: %s\n", status_of(r));
}


/* HPCC ends every section with ctime()'s text, whose own newline leaves the
 * blank line before "End of ... section.". */
static void current_time(FILE *f)
{
    time_t now = time(NULL);
    char tbuf[64];
    if (!ctime_r(&now, tbuf))
        snprintf(tbuf, sizeof tbuf, "unknown\n");
    fprintf(f, "Current time (%lld) is %s\n", (long long)now, tbuf);
}

static const char *hash_line =
    "########################################################################";

void ra_report_hpcc_header(FILE *f, const ra_hpcc_env *env)
{
    fprintf(f, "%s\n", hash_line);
    fprintf(f, "This is hpcc-ra %s, RandomAccess of the DARPA/DOE HPC Challenge Benchmark\n", RA_VERSION);
    fprintf(f, "written in the output format of HPCC version 1.5.0 (October 2012).\n");
    fprintf(f, "Program: %s - %s\n", env->prog, env->summary ? env->summary : "");
    fprintf(f, "MPI: %s\n", env->mpi_library ? env->mpi_library : "unknown");
    fprintf(f, "Compiled with: %s\n", env->build ? env->build : "unknown");
    current_time(f);
    fprintf(f, "Hostname: '%s'\n", env->hostname ? env->hostname : "unknown");
    fprintf(f, "%s\n", hash_line);
}

/* One rank's sequential run, in HPCC's words (core_single_cpu.c). */
static void local_run_lines(FILE *f, const ra_result *r)
{
    int nact = r->test == RA_TEST_STAR ? r->ranks : 1;
    uint64_t per = r->updates / (uint64_t)nact;
    fprintf(f, "Main table size   = 2^%d = %llu words\n", r->log2_table, (unsigned long long)r->table_words);
    fprintf(f, "Number of updates = %llu\n", (unsigned long long)per);
    fprintf(f, "CPU time used  = %.6f seconds\n", r->cpu_time_s);
    fprintf(f, "Real time used = %.6f seconds\n", r->rank_time_s);
    fprintf(f, "%.9f Billion(10^9) Updates    per second [GUP/s]\n",
            r->rank_time_s > 0 ? 1e-9 * (double)per / r->rank_time_s : 0.0);
    if (r->rank_errors >= 0)
        fprintf(f, "Found %lld errors in %llu locations (%s).\n", (long long)r->rank_errors,
                (unsigned long long)r->table_words, ra_hpcc_passed(r->rank_errors, r->table_words) ? "passed" : "failed");
}

void ra_report_hpcc_section(FILE *f, const ra_result *r)
{
    char pre[64];
    ra_hpcc_prefix(r, pre, sizeof pre);
    int P = r->ranks;
    fprintf(f, "Begin of %s section.\n", pre);
    if (r->test == RA_TEST_MPI) {
        fprintf(f, "Running on %d processors%s\n", P, (P & (P - 1)) == 0 ? " (PowerofTwo)" : "");
        fprintf(f, "Total Main table size = 2^%d = %llu words\n", r->log2_table,
                (unsigned long long)r->table_words);
        if ((P & (P - 1)) == 0)
            fprintf(f, "PE Main table size = 2^%d = %llu words/PE\n", ra_ilog2_floor(r->table_words / (uint64_t)P),
                    (unsigned long long)(r->table_words / (uint64_t)P));
        else
            fprintf(f, "PE Main table size = (2^%d)/%d  = %llu words/PE MAX\n", r->log2_table, P,
                    (unsigned long long)((r->table_words + (uint64_t)P - 1) / (uint64_t)P));
        fprintf(f, "Default number of updates (RECOMMENDED) = %llu\n",
                (unsigned long long)r->default_updates);
        /* HPCC prints this line only when built with its time bound (the
         * default); a run without one is HPCC built RA_TIME_BOUND_DISABLE */
        if (r->time_bound > 0)
            fprintf(f, "Number of updates EXECUTED = %llu (for a TIME BOUND of %.2f secs)\n",
                    (unsigned long long)r->updates, r->time_bound);
        fprintf(f, "CPU time used = %.6f seconds\n", r->cpu_time_s);
        fprintf(f, "Real time used = %.6f seconds\n", r->time_s);
        fprintf(f, "%.9f Billion(10^9) Updates    per second [GUP/s]\n", r->gups);
        fprintf(f, "%.9f Billion(10^9) Updates/PE per second [GUP/s]\n", r->gups / P);
        if (r->errors >= 0) {
            fprintf(f, "Verification:  CPU time used = %.6f seconds\n", r->check_cpu_s);
            fprintf(f, "Verification:  Real time used = %.6f seconds\n", r->check_time_s);
            fprintf(f, "Found %lld errors in %llu locations (%s).\n", (long long)r->errors,
                    (unsigned long long)r->table_words, ra_hpcc_passed(r->errors, r->table_words) ? "passed" : "failed");
        } else {
            fprintf(f, "Verification skipped.\n");
        }
    } else {
        /* Star: HPCC prints rank 0's own run, then the count of ranks with
         * an error and min/avg/max over ranks.  Single: the selected rank's
         * run is printed only when that is rank 0 (HPCC's output rank). */
        if (r->test == RA_TEST_STAR || r->node_selected == 0)
            local_run_lines(f, r);
        fprintf(f, "Node(s) with error %d\n", r->nodes_with_error);
        if (r->test == RA_TEST_STAR) {
            fprintf(f, "Minimum GUP/s %.6f\n", r->gups_min);
            fprintf(f, "Average GUP/s %.6f\n", r->gups);
            fprintf(f, "Maximum GUP/s %.6f\n", r->gups_max);
        } else {
            fprintf(f, "Node selected %d\n", r->node_selected);
            fprintf(f, "Single GUP/s %.6f\n", r->gups);
        }
    }
    current_time(f);
    fprintf(f, "End of %s section.\n", pre);
}

static const ra_result *find(const ra_result *rs, int n, ra_test_kind t, ra_gen_kind g)
{
    for (int i = 0; i < n; i++)
        if (rs[i].test == t && rs[i].gen == g)
            return &rs[i];
    return NULL;
}

static void mpi_keys(FILE *f, const ra_result *r, const char *pre)
{
    if (!r) {
        const char *k[] = {"N", "time", "CheckTime", "Errors", "ErrorsFraction",
                           "ExeUpdates", "GUPs", "TimeBound", "Algorithm"};
        for (size_t i = 0; i < sizeof k / sizeof *k; i++)
            fprintf(f, "%s_%s=-1\n", pre, k[i]);
        return;
    }
    fprintf(f, "%s_N=%llu\n", pre, (unsigned long long)r->table_words);
    fprintf(f, "%s_time=%g\n", pre, r->time_s);
    fprintf(f, "%s_CheckTime=%g\n", pre, r->check_time_s);
    fprintf(f, "%s_Errors=%lld\n", pre, (long long)r->errors);
    fprintf(f, "%s_ErrorsFraction=%g\n", pre,
            r->errors >= 0 ? (double)r->errors / (double)r->table_words : -1.0);
    fprintf(f, "%s_ExeUpdates=%llu\n", pre, (unsigned long long)r->updates);
    fprintf(f, "%s_GUPs=%g\n", pre, r->gups);
    fprintf(f, "%s_TimeBound=%g\n", pre, r->time_bound > 0 ? r->time_bound : -1.0);
    /* HPCC's code for which of its algorithms ran: 0 the standard one, 1
     * and 2 its Sandia variants (RA_SANDIA_NOPT, RA_SANDIA_OPT2).  No
     * binary here is a Sandia variant, so 0, as CPS_RA_SANDIA_* = 0 say. */
    fprintf(f, "%s_Algorithm=%d\n", pre, 0);
}

static void local_keys(FILE *f, const ra_result *rs, int n, ra_gen_kind g)
{
    const char *infix = g == RA_GEN_LCG ? "_LCG" : "";
    const ra_result *st = find(rs, n, RA_TEST_STAR, g);
    const ra_result *si = find(rs, n, RA_TEST_SINGLE, g);
    const ra_result *any = st ? st : si;
    if (any)
        fprintf(f, "RandomAccess%s_N=%llu\n", infix, (unsigned long long)any->table_words);
    else
        fprintf(f, "RandomAccess%s_N=-1\n", infix);
    fprintf(f, "StarRandomAccess%s_GUPs=%g\n", infix, st ? st->gups : -1.0);
    fprintf(f, "SingleRandomAccess%s_GUPs=%g\n", infix, si ? si->gups : -1.0);
}

/* Keys of the benchmarks this kit does not run, in HPCC 1.5's order; HPCC
 * leaves a test that did not run at -1. */
static const char *const hpl_keys[] = {
    "HPL_Tflops", "HPL_time", "HPL_eps", "HPL_RnormI", "HPL_Anorm1", "HPL_AnormI", "HPL_Xnorm1",
    "HPL_XnormI", "HPL_BnormI", "HPL_N", "HPL_NB", "HPL_nprow", "HPL_npcol", "HPL_depth",
    "HPL_nbdiv", "HPL_nbmin", NULL};
/* HPL's factorisation codes are characters; HPCC's "not run" is '-'. */
static const char *const hpl_char_keys[] = {"HPL_cpfact", "HPL_crfact", "HPL_ctop", "HPL_order", NULL};
static const char *const dgemm_ptrans_keys[] = {
    "HPLMaxProcs", "HPLMinProcs", "DGEMM_N", "StarDGEMM_Gflops", "SingleDGEMM_Gflops",
    "PTRANS_GBs", "PTRANS_time", "PTRANS_residual", "PTRANS_n", "PTRANS_nb", "PTRANS_nprow",
    "PTRANS_npcol", NULL};
static const char *const stream_fft_net_keys[] = {
    "STREAM_VectorSize", "STREAM_Threads=1", "StarSTREAM_Copy", "StarSTREAM_Scale", "StarSTREAM_Add",
    "StarSTREAM_Triad", "SingleSTREAM_Copy", "SingleSTREAM_Scale", "SingleSTREAM_Add",
    "SingleSTREAM_Triad", "FFT_N", "StarFFT_Gflops", "SingleFFT_Gflops", "MPIFFT_N",
    "MPIFFT_Gflops", "MPIFFT_maxErr", "MPIFFT_Procs", "MaxPingPongLatency_usec",
    "RandomlyOrderedRingLatency_usec", "MinPingPongBandwidth_GBytes",
    "NaturallyOrderedRingBandwidth_GBytes", "RandomlyOrderedRingBandwidth_GBytes",
    "MinPingPongLatency_usec", "AvgPingPongLatency_usec", "MaxPingPongBandwidth_GBytes",
    "AvgPingPongBandwidth_GBytes", "NaturallyOrderedRingLatency_usec", "FFTEnblk", "FFTEnp",
    "FFTEl2size", NULL};

/* Each key with HPCC's "not run" value: -1, or the value written after
 * '=' in the list where HPCC starts from another (STREAM_Threads=1). */
static void unset_keys(FILE *f, const char *const *k, const char *unset)
{
    for (; *k; k++)
        fprintf(f, strchr(*k, '=') ? "%s\n" : "%s=%s\n", *k, unset);
}

/* HPL's machine constants (LAPACK xLAMCH) for IEEE binary64/binary32: eps is
 * half the distance from 1 to the next number (rounding), prec = eps * base. */
static void mach_keys(FILE *f, char t, double eps, double sfmin, int mant, int emin, int emax, double rmax)
{
    fprintf(f, "HPL_%cMACH_EPS=%e\n", t, eps);
    fprintf(f, "HPL_%cMACH_SFMIN=%e\n", t, sfmin);
    fprintf(f, "HPL_%cMACH_BASE=%e\n", t, 2.0);
    fprintf(f, "HPL_%cMACH_PREC=%e\n", t, eps * 2);
    fprintf(f, "HPL_%cMACH_MLEN=%e\n", t, (double)mant);
    fprintf(f, "HPL_%cMACH_RND=%e\n", t, 1.0);
    fprintf(f, "HPL_%cMACH_EMIN=%e\n", t, (double)emin);
    fprintf(f, "HPL_%cMACH_RMIN=%e\n", t, sfmin);
    fprintf(f, "HPL_%cMACH_EMAX=%e\n", t, (double)emax);
    fprintf(f, "HPL_%cMACH_RMAX=%e\n", t, rmax);
}

void ra_report_hpcc_summary(FILE *f, const ra_result *rs, int n, const ra_hpcc_env *env)
{
    fprintf(f, "Begin of Summary section.\n");
    fprintf(f, "VersionMajor=1\nVersionMinor=5\nVersionMicro=0\nVersionRelease=f\n");
    fprintf(f, "LANG=C\n");
    fprintf(f, "Success=%d\n", env->success);
    fprintf(f, "sizeof_char=%d\nsizeof_short=%d\nsizeof_int=%d\nsizeof_long=%d\n", (int)sizeof(char),
            (int)sizeof(short), (int)sizeof(int), (int)sizeof(long));
    fprintf(f, "sizeof_void_ptr=%d\nsizeof_size_t=%d\nsizeof_float=%d\nsizeof_double=%d\n",
            (int)sizeof(void *), (int)sizeof(size_t), (int)sizeof(float), (int)sizeof(double));
    fprintf(f, "sizeof_s64Int=%d\nsizeof_u64Int=%d\nsizeof_struct_double_double=%d\n", (int)sizeof(int64_t),
            (int)sizeof(uint64_t), (int)(2 * sizeof(double)));
    fprintf(f, "CommWorldProcs=%d\n", env->comm_procs);
    fprintf(f, "MPI_Wtick=%e\n", env->wtick);
    unset_keys(f, hpl_keys, "-1");
    unset_keys(f, hpl_char_keys, "-");
    mach_keys(f, 'd', DBL_EPSILON / 2, DBL_MIN, DBL_MANT_DIG, DBL_MIN_EXP, DBL_MAX_EXP, DBL_MAX);
    mach_keys(f, 's', FLT_EPSILON / 2, FLT_MIN, FLT_MANT_DIG, FLT_MIN_EXP, FLT_MAX_EXP, FLT_MAX);
    fprintf(f, "dweps=%e\nsweps=%e\n", DBL_EPSILON / 2, (double)(FLT_EPSILON / 2));
    unset_keys(f, dgemm_ptrans_keys, "-1");
    mpi_keys(f, find(rs, n, RA_TEST_MPI, RA_GEN_LCG), "MPIRandomAccess_LCG");
    mpi_keys(f, find(rs, n, RA_TEST_MPI, RA_GEN_LFSR), "MPIRandomAccess");
    local_keys(f, rs, n, RA_GEN_LCG);
    local_keys(f, rs, n, RA_GEN_LFSR);
    unset_keys(f, stream_fft_net_keys, "-1");
    fprintf(f, "M_OPENMP=%ld\n", env->openmp);
    fprintf(f, "omp_get_num_threads=%d\nomp_get_max_threads=%d\nomp_get_num_procs=%d\n", env->omp_threads,
            env->omp_max_threads, env->omp_procs);
    /* HPCC's hpccmemf.txt "Process=" form is our --mem: MiB per process. */
    if (env->mem_mib > 0)
        fprintf(f, "MemProc=%g\nMemSpec=3\nMemVal=%g\n", env->mem_mib, env->mem_mib);
    else
        fprintf(f, "MemProc=-1\nMemSpec=-1\nMemVal=-1\n");
    /* HPCC prints differences of MPI FFT timestamps that start at 0 */
    for (int i = 0; i < 7; i++)
        fprintf(f, "MPIFFT_time%d=0\n", i);
    fprintf(f, "CPS_HPCC_FFT_235=0\nCPS_HPCC_FFTW_ESTIMATE=0\nCPS_HPCC_MEMALLCTR=0\n");
    fprintf(f, "CPS_HPL_USE_GETPROCESSTIMES=0\nCPS_RA_SANDIA_NOPT=0\nCPS_RA_SANDIA_OPT2=0\nCPS_USING_FFTW=0\n");
    fprintf(f, "End of Summary section.\n");
}

void ra_report_hpcc_footer(FILE *f)
{
    fprintf(f, "%s\n", hash_line);
    fprintf(f, "End of HPC Challenge tests.\n");
    current_time(f);
    fprintf(f, "%s\n", hash_line);
}

static void json_str(FILE *f, const char *k, const char *v, int comma)
{
    fprintf(f, "      \"%s\": \"%s\"%s\n", k, v, comma ? "," : "");
}

void ra_report_json(FILE *f, const ra_result *rs, int n)
{
    fprintf(f, "{\n  \"results\": [\n");
    for (int i = 0; i < n; i++) {
        const ra_result *r = &rs[i];
        char fp[17];
        snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r->fingerprint);
        fprintf(f, "    {\n");
        json_str(f, "test", ra_test_name(r->test), 1);
        json_str(f, "algorithm", r->algorithm, 1);
        json_str(f, "generator", ra_gen_name(r->gen), 1);
        fprintf(f, "      \"ranks\": %d,\n", r->ranks);
        fprintf(f, "      \"table_log2\": %d,\n", r->log2_table);
        fprintf(f, "      \"table_words\": %llu,\n", (unsigned long long)r->table_words);
        fprintf(f, "      \"updates\": %llu,\n", (unsigned long long)r->updates);
        fprintf(f, "      \"time_s\": %.9g,\n", r->time_s);
        fprintf(f, "      \"gups\": %.9g,\n", r->gups);
        if (r->test == RA_TEST_STAR || r->test == RA_TEST_CEILING)
            fprintf(f, "      \"gups_min\": %.9g,\n      \"gups_max\": %.9g,\n      \"gups_sum\": %.9g,\n",
                    r->gups_min, r->gups_max, r->gups_sum);
        if (r->test == RA_TEST_CEILING) {
            json_str(f, "ceiling_kernel", ra_ceil_kind_name((ra_ceil_kind)r->ceil_kind), 1);
            fprintf(f, "      \"ceiling_depth\": %d,\n      \"ceiling_trials\": {", r->ceil_depth);
            for (int k = 0; k < RA_CEIL_NKINDS; k++) {
                fprintf(f, "%s\"%s\": {", k ? ", " : "", ra_ceil_kind_name((ra_ceil_kind)k));
                for (int j = 0; j < RA_CEIL_NDEPTHS; j++)
                    fprintf(f, "%s\"%d\": %.6g", j ? ", " : "", ra_ceil_depths[j], r->ceil_trials[k][j]);
                fprintf(f, "}");
            }
            fprintf(f, "},\n");
        }
        fprintf(f, "      \"errors\": %lld,\n", (long long)r->errors);
        fprintf(f, "      \"verify_time_s\": %.9g,\n", r->check_time_s);
        fprintf(f, "      \"time_bound_s\": %g,\n", r->time_bound);
        fprintf(f, "      \"max_pending\": %llu,\n", (unsigned long long)r->stats.max_pending);
        fprintf(f, "      \"sbf\": %.9g,\n", ra_result_sbf(r));
        fprintf(f, "      \"mean_fill\": %.9g,\n", ra_result_mean_fill(r));
        fprintf(f, "      \"hops_per_update\": %.9g,\n", ra_result_hops_per_update(r));
        fprintf(f, "      \"bytes_per_update\": %.9g,\n", ra_result_bytes_per_update(r));
        json_str(f, "shape", r->shape[0] ? r->shape : "-", 1);
        fprintf(f, "      \"nodes\": %d,\n      \"ranks_per_node\": %d,\n", r->nodes, r->per_node);
        json_str(f, "nodes_source", r->nodes_source, 1);
        for (const char *p = r->keys; *p;) {
            const char *colon = strstr(p, ": "), *nl = strchr(p, '\n');
            if (!colon || !nl || colon > nl)
                break;
            fprintf(f, "      \"%.*s\": \"%.*s\",\n", (int)(colon - p), p, (int)(nl - colon - 2), colon + 2);
            p = nl + 1;
        }
        for (int e = 0; e < r->papi_n; e++) {
            char key[64];
            ra_papi_key(r->papi_names[e], key, sizeof key);
            fprintf(f, "      \"%s\": %llu,\n      \"%s_per_update\": %.9g,\n", key,
                    (unsigned long long)r->papi_counts[e], key, ratio(r->papi_counts[e], r->updates));
        }
        if (r->stats.nprof) {
            fprintf(f, "      \"profile\": {");
            for (int e = 0; e < r->stats.nprof; e++)
                fprintf(f, "%s\"%s\": {\"min\": %.6g, \"max\": %.6g}", e ? ", " : "", r->stats.prof_names[e],
                        r->prof_min[e], r->prof_max[e]);
            fprintf(f, "},\n");
        }
        json_str(f, "fingerprint", fp, 1);
        json_str(f, "status", status_of(r), 0);
        fprintf(f, "    }%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}
