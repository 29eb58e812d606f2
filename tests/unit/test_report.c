/* test_report.c - the HPCC 1.5 Summary block: every key, in HPCC's order,
 * ours filled in, unset ones at HPCC's "not run" values; sections in HPCC's
 * wording; Success by HPCC's 1% rule; PAPI keys. */
#include "../test.h"
#include "ra_report.h"

#include <stdlib.h>

/* the two results and the environment every case reports: MPI LFSR and
 * Star LCG on 4 ranks */
static void two_results(ra_result r[2], ra_hpcc_env *env)
{
    memset(r, 0, 2 * sizeof *r);
    r[0].test = RA_TEST_MPI;
    r[0].gen = RA_GEN_LFSR;
    r[0].algorithm = "baseline";
    r[0].ranks = 4;
    r[0].table_words = 1 << 20;
    r[0].updates = 4 << 20;
    r[0].gups = 0.5;
    r[0].time_s = 2.0;
    r[0].errors = 0;
    r[0].time_bound = 60;
    r[1] = r[0];
    r[1].test = RA_TEST_STAR;
    r[1].gen = RA_GEN_LCG;
    r[1].gups = 0.25;
    *env = (ra_hpcc_env){.prog = "ra_test", .comm_procs = 4, .wtick = 1e-9, .success = 1, .mem_mib = 512,
                         .openmp = 201511, .omp_threads = 2, .omp_max_threads = 2, .omp_procs = 2};
}

/* the Summary block: every key, ours filled in, unset ones at HPCC's "not
 * run" values, in HPCC 1.5's order, 148 lines of key=value */
static void t_summary_every_key_in_order(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ra_report_hpcc_summary(f, r, 2, &env);
    fclose(f);
    const char *keys[] = {"MPIRandomAccess_LCG_N=-1", "MPIRandomAccess_LCG_time=-1",
                          "MPIRandomAccess_LCG_CheckTime=-1", "MPIRandomAccess_LCG_Errors=-1",
                          "MPIRandomAccess_LCG_ErrorsFraction=-1", "MPIRandomAccess_LCG_ExeUpdates=-1",
                          "MPIRandomAccess_LCG_GUPs=-1", "MPIRandomAccess_LCG_TimeBound=-1",
                          "MPIRandomAccess_LCG_Algorithm=-1", "MPIRandomAccess_N=1048576",
                          "MPIRandomAccess_time=2\n", "MPIRandomAccess_Errors=0\n",
                          "MPIRandomAccess_ErrorsFraction=0\n", "MPIRandomAccess_ExeUpdates=4194304",
                          "MPIRandomAccess_GUPs=0.5\n", "MPIRandomAccess_TimeBound=60\n",
                          "MPIRandomAccess_Algorithm=0\n", "RandomAccess_LCG_N=1048576",
                          "StarRandomAccess_LCG_GUPs=0.25", "SingleRandomAccess_LCG_GUPs=-1",
                          "RandomAccess_N=-1", "StarRandomAccess_GUPs=-1", "SingleRandomAccess_GUPs=-1",
                          "CommWorldProcs=4", "Success=1", "Begin of Summary section.",
                          "End of Summary section.", "VersionMajor=1\n", "VersionMinor=5\n",
                          "LANG=C\n", "sizeof_u64Int=8\n", "MPI_Wtick=1.000000e-09\n",
                          "HPL_Tflops=-1\n", "HPL_dMACH_EPS=1.110223e-16\n", "HPL_sMACH_EPS=5.960464e-08\n",
                          "HPL_dMACH_EMIN=-1.021000e+03\n", "dweps=1.110223e-16\n", "PTRANS_GBs=-1\n",
                          "StarSTREAM_Triad=-1\n", "M_OPENMP=201511\n", "MemProc=512\n", "MemSpec=3\n",
                          "MPIFFT_time6=0\n", "CPS_RA_SANDIA_OPT2=0\n", "CPS_RA_SANDIA_NOPT=0\n",
                          "HPL_cpfact=-\n", "HPL_order=-\n", "HPL_N=-1\n", "STREAM_Threads=1\n",
                          "STREAM_VectorSize=-1\n"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        ASSERT_STR_CONTAINS(buf, keys[i]);
    /* The order of HPCC 1.5's keys around and inside the RandomAccess block
     * (parsers that read by position exist). */
    const char *order[] = {"VersionMajor=", "LANG=", "Success=", "sizeof_char=", "CommWorldProcs=",
                           "MPI_Wtick=", "HPL_Tflops=", "dweps=", "PTRANS_npcol=",
                           "MPIRandomAccess_LCG_N=", "MPIRandomAccess_LCG_Algorithm=", "MPIRandomAccess_N=",
                           "MPIRandomAccess_Algorithm=", "RandomAccess_LCG_N=", "StarRandomAccess_LCG_GUPs=",
                           "SingleRandomAccess_LCG_GUPs=", "RandomAccess_N=", "StarRandomAccess_GUPs=",
                           "SingleRandomAccess_GUPs=", "STREAM_VectorSize=", "FFTEl2size=", "M_OPENMP=",
                           "MemVal=", "MPIFFT_time0=", "CPS_USING_FFTW=", "End of Summary section."};
    const char *at = buf;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        const char *hit = strstr(at, order[i]);
        ASSERT_TRUE(hit != NULL);
        if (hit)
            at = hit;
    }
    /* The RandomAccess block line by line: HPCC 1.5's keys, in its order. */
    const char *ra_block[] = {
        "MPIRandomAccess_LCG_N", "MPIRandomAccess_LCG_time", "MPIRandomAccess_LCG_CheckTime",
        "MPIRandomAccess_LCG_Errors", "MPIRandomAccess_LCG_ErrorsFraction", "MPIRandomAccess_LCG_ExeUpdates",
        "MPIRandomAccess_LCG_GUPs", "MPIRandomAccess_LCG_TimeBound", "MPIRandomAccess_LCG_Algorithm",
        "MPIRandomAccess_N", "MPIRandomAccess_time", "MPIRandomAccess_CheckTime", "MPIRandomAccess_Errors",
        "MPIRandomAccess_ErrorsFraction", "MPIRandomAccess_ExeUpdates", "MPIRandomAccess_GUPs",
        "MPIRandomAccess_TimeBound", "MPIRandomAccess_Algorithm", "RandomAccess_LCG_N",
        "StarRandomAccess_LCG_GUPs", "SingleRandomAccess_LCG_GUPs", "RandomAccess_N", "StarRandomAccess_GUPs",
        "SingleRandomAccess_GUPs", "STREAM_VectorSize"};
    const char *at_key = strstr(buf, "\nMPIRandomAccess_LCG_N=");
    for (size_t i = 0; i < sizeof ra_block / sizeof *ra_block && at_key; i++) {
        at_key++;
        size_t kl = strlen(ra_block[i]);
        ASSERT_TRUE(strncmp(at_key, ra_block[i], kl) == 0 && at_key[kl] == '=');
        at_key = strchr(at_key, '\n');
    }
    ASSERT_TRUE(at_key != NULL);
    /* Every line is key=value with no blanks, between the markers. */
    int lines = 0, bad = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, " section."))
            continue;
        lines++;
        if (!strchr(line, '=') || strchr(line, ' '))
            bad++;
    }
    ASSERT_EQ_INT(bad, 0);
    ASSERT_EQ_INT(lines, 148); /* HPCC 1.5's Summary has 148 keys */
    free(buf);
}

/* the MPIRandomAccess section in HPCC's wording */
static void t_section_in_hpcc_wording(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    f = open_memstream(&buf, &len);
    ra_report_hpcc_section(f, &r[0]);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "Begin of MPIRandomAccess section.");
    ASSERT_STR_CONTAINS(buf, "Found 0 errors in 1048576 locations (passed).");
    ASSERT_STR_CONTAINS(buf, "0.500000000 Billion(10^9) Updates    per second [GUP/s]");
    ASSERT_STR_CONTAINS(buf, "End of MPIRandomAccess section.");
    ASSERT_STR_CONTAINS(buf, "Running on 4 processors (PowerofTwo)\n");
    ASSERT_STR_CONTAINS(buf, "PE Main table size = 2^18 = 262144 words/PE\n");
    ASSERT_STR_CONTAINS(buf, "Number of updates EXECUTED = 4194304 (for a TIME BOUND of 60.00 secs)\n");
    ASSERT_STR_CONTAINS(buf, "Verification:  Real time used = ");
    ASSERT_STR_CONTAINS(buf, "\n\nEnd of MPIRandomAccess section.\n");
    free(buf);
}

/* Without a time bound HPCC (built RA_TIME_BOUND_DISABLE) prints no
 * EXECUTED line and TimeBound=-1; unverified: no "Found" line. */
static void t_no_time_bound_unverified(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    r[0].time_bound = 0;
    r[0].errors = -1;
    f = open_memstream(&buf, &len);
    ra_report_hpcc_section(f, &r[0]);
    ra_report_hpcc_summary(f, r, 1, &env);
    fclose(f);
    ASSERT_TRUE(strstr(buf, "EXECUTED") == NULL);
    ASSERT_TRUE(strstr(buf, "Found ") == NULL);
    ASSERT_STR_CONTAINS(buf, "\nMPIRandomAccess_TimeBound=-1\n");
    ASSERT_STR_CONTAINS(buf, "\nMPIRandomAccess_Errors=-1\n");
    ASSERT_STR_CONTAINS(buf, "\nMPIRandomAccess_Algorithm=0\n");
    free(buf);
    r[0].time_bound = 60;
    r[0].errors = 0;
}

/* Success: HPCC's 1% rule per table; unverified is never a success. */
static void t_success_one_percent_rule(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    ra_result sr[2];
    memcpy(sr, r, sizeof sr);
    sr[1].test = RA_TEST_STAR;
    sr[1].nodes_failed = 0;
    ASSERT_EQ_INT(ra_hpcc_success(sr, 2), 1);
    sr[0].errors = (1 << 20) / 100; /* 10485 of 2^20: within 1% */
    ASSERT_EQ_INT(ra_hpcc_success(sr, 2), 1);
    sr[0].errors++;
    ASSERT_EQ_INT(ra_hpcc_success(sr, 2), 0);
    sr[0].errors = 0;
    sr[1].nodes_failed = 1;
    ASSERT_EQ_INT(ra_hpcc_success(sr, 2), 0);
    sr[1].nodes_failed = 0;
    sr[1].errors = -1; /* --no-verify */
    ASSERT_EQ_INT(ra_hpcc_success(sr, 2), 0);
    ASSERT_EQ_INT(ra_hpcc_passed(0, 50), 1);
    ASSERT_EQ_INT(ra_hpcc_passed(1, 99), 0);   /* 1 > 0.99 */
    ASSERT_EQ_INT(ra_hpcc_passed(1, 100), 1);
    ASSERT_EQ_INT(ra_hpcc_passed(2, 199), 0);  /* 2 > 1.99 */
    ASSERT_EQ_INT(ra_hpcc_passed(-1, 1 << 20), 0);
}

/* Star: rank 0's run, the count of ranks with errors, min/avg/max;
 * Single: the selected rank, its run shown only when it is rank 0. */
static void t_star_and_single_sections(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    r[1].ranks = 4;
    r[1].updates = 4 * 4 * (1 << 18);
    r[1].table_words = 1 << 18;
    r[1].log2_table = 18;
    r[1].gups_min = 0.2;
    r[1].gups_max = 0.3;
    r[1].rank_time_s = 0.5;
    r[1].rank_errors = 2;
    r[1].errors = 7;
    r[1].nodes_with_error = 3;
    f = open_memstream(&buf, &len);
    ra_report_hpcc_section(f, &r[1]);
    r[1].test = RA_TEST_SINGLE;
    r[1].updates = 4 * (1 << 18);
    r[1].nodes_with_error = 1;
    r[1].node_selected = 2;
    ra_report_hpcc_section(f, &r[1]);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "Begin of StarRandomAccess_LCG section.\nMain table size   = 2^18 = 262144 words\n"
                             "Number of updates = 1048576\n");
    ASSERT_STR_CONTAINS(buf, "Real time used = 0.500000 seconds\n0.002097152 Billion(10^9) Updates    per second");
    ASSERT_STR_CONTAINS(buf, "Found 2 errors in 262144 locations (passed).\nNode(s) with error 3\n");
    ASSERT_STR_CONTAINS(buf, "Minimum GUP/s 0.200000\nAverage GUP/s 0.250000\nMaximum GUP/s 0.300000\n");
    ASSERT_STR_CONTAINS(buf, "Begin of SingleRandomAccess_LCG section.\nNode(s) with error 1\nNode selected 2\n"
                             "Single GUP/s 0.250000\n");
    free(buf);
    r[1].node_selected = 0; /* one rank: HPCC's output rank ran it */
    buf = NULL;
    f = open_memstream(&buf, &len);
    ra_report_hpcc_section(f, &r[1]);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "Begin of SingleRandomAccess_LCG section.\nMain table size   = 2^18 = 262144 words\n"
                             "Number of updates = 1048576\n");
    ASSERT_STR_CONTAINS(buf, "Node(s) with error 1\nNode selected 0\nSingle GUP/s 0.250000\n");
    free(buf);
}

/* PAPI keys: totals and per update, named from the event. */
static void t_papi_keys(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    r[0].papi_requested = 1;
    r[0].papi_n = 2;
    strcpy(r[0].papi_names[0], "PAPI_TOT_CYC");
    strcpy(r[0].papi_names[1], "perf::L1-DCACHE-LOAD-MISSES");
    r[0].papi_counts[0] = 8 << 20;
    r[0].papi_counts[1] = 2 << 20;
    f = open_memstream(&buf, &len);
    ra_report_keys(f, &r[0]);
    r[0].papi_n = 0;
    ra_report_keys(f, &r[0]);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "papi_events: PAPI_TOT_CYC,perf::L1-DCACHE-LOAD-MISSES\n");
    ASSERT_STR_CONTAINS(buf, "papi_tot_cyc: 8388608\npapi_tot_cyc_per_update: 2.000\n");
    ASSERT_STR_CONTAINS(buf, "papi_perf__l1_dcache_load_misses_per_update: 0.500\n");
    ASSERT_STR_CONTAINS(buf, "papi_events: none\n");
    free(buf);
}

/* r's key block (json 0) or JSON (1), as a string to free */
static char *written(const ra_result *r, int json)
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    if (json)
        ra_report_json(out, r, 1);
    else
        ra_report_keys(out, r);
    fclose(out);
    return text;
}

/* The node layout the preamble's "# ranks:" line says in words, as keys in
 * the key block and the JSON (the suites read these, not the sentence). */
static void t_node_layout_keys(void)
{
    ra_result r[2];
    ra_hpcc_env env;
    two_results(r, &env);
    r[0].nodes = 2;
    r[0].per_node = 3;
    strcpy(r[0].nodes_source, "TORUS_NODES");
    char *keys = written(&r[0], 0), *json = written(&r[0], 1);
    ASSERT_STR_CONTAINS(keys, "\nnodes: 2\nranks_per_node: 3\nnodes_source: TORUS_NODES\n");
    ASSERT_STR_CONTAINS(json, "\"nodes\": 2,\n      \"ranks_per_node\": 3,\n      \"nodes_source\": \"TORUS_NODES\",\n");
    free(keys);
    free(json);
}

static const test_case cases[] = {
    {"summary_every_key_in_order", t_summary_every_key_in_order},
    {"section_in_hpcc_wording", t_section_in_hpcc_wording},
    {"no_time_bound_unverified", t_no_time_bound_unverified},
    {"success_one_percent_rule", t_success_one_percent_rule},
    {"star_and_single_sections", t_star_and_single_sections},
    {"papi_keys", t_papi_keys},
    {"node_layout_keys", t_node_layout_keys},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_report", cases);
}
