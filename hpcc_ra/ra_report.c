/*
 * ra_report.c - writing results.  The key block is for people and scripts
 * (one "key: value" per line, fixed names); the HPCC section and Summary use
 * HPCC's own wording and key names so existing HPCC parsers read our files.
 */
#include "ra_report.h"

#include <string.h>
#include <time.h>

const char *ra_test_name(ra_test_kind t)
{
    return t == RA_TEST_MPI ? "mpi" : t == RA_TEST_STAR ? "star" : "single";
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

double ra_result_sbf(const ra_result *r) { return ratio(r->stats.send_blocked, r->stats.send_tests); }
double ra_result_mean_fill(const ra_result *r) { return ratio(r->stats.updates_sent, r->stats.packets_sent); }
double ra_result_hops_per_update(const ra_result *r) { return ratio(r->stats.hops, r->updates); }
double ra_result_bytes_per_update(const ra_result *r) { return ratio(r->stats.bytes_sent, r->updates); }

static const char *status_of(const ra_result *r)
{
    if (r->errors < 0)
        return "unverified";
    return r->errors == 0 ? "passed" : "failed";
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
    if (r->test == RA_TEST_STAR) {
        fprintf(f, "gups_min: %.9f\n", r->gups_min);
        fprintf(f, "gups_max: %.9f\n", r->gups_max);
        fprintf(f, "gups_sum: %.9f\n", r->gups_sum);
    }
    if (r->test != RA_TEST_MPI)
        fprintf(f, "threads: %d\n", r->threads);
    fprintf(f, "errors: %lld\n", (long long)r->errors);
    fprintf(f, "verify_time_s: %.6f\n", r->check_time_s);
    fprintf(f, "fingerprint: %016llx\n", (unsigned long long)r->fingerprint);
    fprintf(f, "time_bound_s: %g\n", r->time_bound);
    if (r->test == RA_TEST_MPI) {
        fprintf(f, "max_pending: %llu\n", (unsigned long long)r->stats.max_pending);
        fprintf(f, "sbf: %.6f\n", ra_result_sbf(r));
        fprintf(f, "mean_fill: %.3f\n", ra_result_mean_fill(r));
        fprintf(f, "hops_per_update: %.4f\n", ra_result_hops_per_update(r));
        fprintf(f, "bytes_per_update: %.3f\n", ra_result_bytes_per_update(r));
        fprintf(f, "shape: %s\n", r->shape[0] ? r->shape : "-");
    }
    fprintf(f, "huge_pages: %s\n", r->huge_pages ? "advised" : "no");
    fprintf(f, "status: %s\n", status_of(r));
}

static int ilog2(uint64_t v)
{
    int k = 0;
    while (v > 1) {
        v >>= 1;
        k++;
    }
    return k;
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
            fprintf(f, "PE Main table size = 2^%d = %llu words/PE\n", ilog2(r->table_words / (uint64_t)P),
                    (unsigned long long)(r->table_words / (uint64_t)P));
        else
            fprintf(f, "PE Main table size = (2^%d)/%d  = %llu words/PE MAX\n", r->log2_table, P,
                    (unsigned long long)((r->table_words + (uint64_t)P - 1) / (uint64_t)P));
        fprintf(f, "Default number of updates (RECOMMENDED) = %llu\n",
                (unsigned long long)r->default_updates);
        if (r->time_bound > 0)
            fprintf(f, "Number of updates EXECUTED = %llu (for a TIME BOUND of %.2f secs)\n",
                    (unsigned long long)r->updates, r->time_bound);
        else
            fprintf(f, "Number of updates EXECUTED = %llu\n", (unsigned long long)r->updates);
        fprintf(f, "Algorithm = %s\n", r->algorithm);
        fprintf(f, "Real time used = %.6f seconds\n", r->time_s);
        fprintf(f, "%.9f Billion(10^9) Updates    per second [GUP/s]\n", r->gups);
        fprintf(f, "%.9f Billion(10^9) Updates/PE per second [GUP/s]\n", r->gups / P);
        if (r->errors >= 0) {
            fprintf(f, "Verification:  Real time used = %.6f seconds\n", r->check_time_s);
            fprintf(f, "Found %lld errors in %llu locations (%s).\n", (long long)r->errors,
                    (unsigned long long)r->table_words, r->errors <= (int64_t)(r->table_words / 100) ? "passed" : "failed");
        } else {
            fprintf(f, "Verification skipped.\n");
        }
    } else {
        fprintf(f, "Main table size   = 2^%d = %llu words\n", r->log2_table,
                (unsigned long long)r->table_words);
        fprintf(f, "Number of updates = %llu\n", (unsigned long long)(r->test == RA_TEST_STAR ? r->updates / (uint64_t)P : r->updates));
        fprintf(f, "Threads = %d\n", r->threads);
        if (r->test == RA_TEST_STAR) {
            fprintf(f, "Minimum GUP/s %.6f\n", r->gups_min);
            fprintf(f, "Average GUP/s %.6f\n", r->gups);
            fprintf(f, "Maximum GUP/s %.6f\n", r->gups_max);
        } else {
            fprintf(f, "Real time used = %.6f seconds\n", r->time_s);
            fprintf(f, "%.9f Billion(10^9) Updates    per second [GUP/s]\n", r->gups);
        }
        if (r->errors >= 0)
            fprintf(f, "Found %lld errors in %llu locations (%s).\n", (long long)r->errors,
                    (unsigned long long)(r->test == RA_TEST_STAR ? r->table_words * (uint64_t)P : r->table_words),
                    r->errors == 0 ? "passed" : "failed");
        else
            fprintf(f, "Verification skipped.\n");
    }
    time_t now = time(NULL);
    char tbuf[64];
    strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", localtime(&now));
    fprintf(f, "Current time (%lld) is %s\n\n", (long long)now, tbuf);
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
    fprintf(f, "%s_Algorithm=%d\n", pre, r->hpcc_algorithm_id);
}

void ra_report_hpcc_summary(FILE *f, const ra_result *rs, int n, int comm_procs,
                            double wtick, int success)
{
    fprintf(f, "Begin of Summary section.\n");
    fprintf(f, "CommWorldProcs=%d\n", comm_procs);
    fprintf(f, "MPI_Wtick=%e\n", wtick);
    mpi_keys(f, find(rs, n, RA_TEST_MPI, RA_GEN_LCG), "MPIRandomAccess_LCG");
    mpi_keys(f, find(rs, n, RA_TEST_MPI, RA_GEN_LFSR), "MPIRandomAccess");
    for (int g = RA_GEN_LCG; g >= RA_GEN_LFSR; g--) {
        const char *infix = g == RA_GEN_LCG ? "_LCG" : "";
        const ra_result *st = find(rs, n, RA_TEST_STAR, (ra_gen_kind)g);
        const ra_result *si = find(rs, n, RA_TEST_SINGLE, (ra_gen_kind)g);
        const ra_result *any = st ? st : si;
        if (any)
            fprintf(f, "RandomAccess%s_N=%llu\n", infix, (unsigned long long)any->table_words);
        else
            fprintf(f, "RandomAccess%s_N=-1\n", infix);
        if (st)
            fprintf(f, "StarRandomAccess%s_GUPs=%g\n", infix, st->gups);
        else
            fprintf(f, "StarRandomAccess%s_GUPs=-1\n", infix);
        if (si)
            fprintf(f, "SingleRandomAccess%s_GUPs=%g\n", infix, si->gups);
        else
            fprintf(f, "SingleRandomAccess%s_GUPs=-1\n", infix);
    }
    fprintf(f, "Success=%d\n", success);
    fprintf(f, "End of Summary section.\n");
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
        if (r->test == RA_TEST_STAR)
            fprintf(f, "      \"gups_min\": %.9g,\n      \"gups_max\": %.9g,\n      \"gups_sum\": %.9g,\n",
                    r->gups_min, r->gups_max, r->gups_sum);
        fprintf(f, "      \"errors\": %lld,\n", (long long)r->errors);
        fprintf(f, "      \"verify_time_s\": %.9g,\n", r->check_time_s);
        fprintf(f, "      \"time_bound_s\": %g,\n", r->time_bound);
        fprintf(f, "      \"max_pending\": %llu,\n", (unsigned long long)r->stats.max_pending);
        fprintf(f, "      \"sbf\": %.9g,\n", ra_result_sbf(r));
        fprintf(f, "      \"mean_fill\": %.9g,\n", ra_result_mean_fill(r));
        fprintf(f, "      \"hops_per_update\": %.9g,\n", ra_result_hops_per_update(r));
        fprintf(f, "      \"bytes_per_update\": %.9g,\n", ra_result_bytes_per_update(r));
        json_str(f, "shape", r->shape[0] ? r->shape : "-", 1);
        json_str(f, "fingerprint", fp, 1);
        json_str(f, "status", status_of(r), 0);
        fprintf(f, "    }%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}
