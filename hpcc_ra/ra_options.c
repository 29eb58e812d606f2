/*
 * ra_options.c - the options of every ra_* binary, in the kit's one spec
 * (kit_opt.h): the harness's table below and the algorithm's own
 * (algo->options) are read as one, so both follow GNU conventions alike
 * (--opt value, --opt=value, -- ends the options, unique prefixes) and
 * every value is checked against its type and range here, before MPI or
 * memory is touched: a typo costs one clear line and exit 2, never a hang
 * or a wait for memory.  Errors are written into err in the kit's one
 * format (kit_cli.h), e.g.
 *
 *     bad value 'ten' for --log2-table: allowed an integer 1..62 (...)
 *     unknown option '--bogus' (see --help)
 */
#include "ra_options.h"
#include "kit_settings.h"
#include "ra_local.h"
#include "ra_papi.h"
#include "kit_agree.h"
#include "kit_cli.h"

#include <stdlib.h>
#include <string.h>

void ra_config_defaults(ra_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->log2_table = -1;
    cfg->verify = 1;
    cfg->gens = RA_GENS_LFSR;
    cfg->suite = RA_SUITE_MPI;
    cfg->progress = -1;
}

static int parse_suite(const char *s, int *mask)
{
    *mask = 0;
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "mpi")) *mask |= RA_SUITE_MPI;
        else if (!strcmp(tok, "star")) *mask |= RA_SUITE_STAR;
        else if (!strcmp(tok, "single")) *mask |= RA_SUITE_SINGLE;
        else if (!strcmp(tok, "ceiling")) *mask |= RA_SUITE_CEILING;
        else if (!strcmp(tok, "all")) *mask |= RA_SUITE_MPI | RA_SUITE_STAR | RA_SUITE_SINGLE;
        else return -1;
    }
    return *mask ? 0 : -1;
}

/* The harness options, in --help order; the enum is each one's id. */
enum harness_id {
    H_LOG2_TABLE, H_MEM, H_UPDATES, H_TIME_BOUND, H_NO_VERIFY, H_GEN,
    H_LCG, /* an alias of --gen lcg: take() sees --gen's entry */
    H_SUITE, H_OUTPUT,
    H_JSON, H_PAPI, H_PROGRESS, H_NO_PROGRESS, H_QUIET, H_DRY_RUN, H_HELP, H_VERSION, H_COUNT
};

static const kit_opt harness_opts[H_COUNT + 1] = {
    {.name = "log2-table", .type = KIT_OPT_LONG, .id = H_LOG2_TABLE, .meta = "K", .defval = "from --mem",
     .help = "global table of 2^K words, K in 1..62", .lo = 1, .hi = 62,
     .allowed = "an integer 1..62 (table of 2^K words)"},
    {.name = "mem", .type = KIT_OPT_BYTES, .id = H_MEM, .meta = "BYTES", .defval = "1/2 of RAM / ranks per node",
     .help = "memory per process (K/M/G/T suffixes); the table is the largest power of two taking at most half of "
             "the total",
     .lo = 16, .allowed = "a positive byte count of at least 16, with optional K/M/G/T suffix"},
    {.name = "updates", .type = KIT_OPT_U64, .id = H_UPDATES, .meta = "N", .defval = "4*TableSize",
     .help = "total updates over all processes (the first N elements of the stream)", .lo = 1,
     .allowed = "a whole number >= 1"},
    {.name = "time-bound", .type = KIT_OPT_DOUBLE, .id = H_TIME_BOUND, .meta = "S", .defval = "0 (off)",
     .help = "HPCC time bound in seconds: time a 1% sample, run what fits (submissions use 60)", .lo = 0, .hi = 1e7,
     .allowed = "seconds in 0..1e7 (0 = off)"},
    {.name = "no-verify", .type = KIT_OPT_FLAG, .id = H_NO_VERIFY, .defval = "verify", .help = "skip verification"},
    {.name = "gen", .type = KIT_OPT_CHOICE, .id = H_GEN, .meta = "G", .defval = "lfsr",
     .help = "generator: lfsr, lcg or both", .choices = "lfsr|lcg|both"},
    {.name = "lcg", .type = KIT_OPT_FLAG, .id = H_LCG, .alias = "gen=lcg", .help = "(HPCC's _LCG variants)"},
    {.name = "suite", .type = KIT_OPT_TEXT, .id = H_SUITE, .meta = "LIST", .defval = "mpi",
     .help = "tests to run: mpi, star, single, all (HPCC's three), ceiling (every rank alone, HPCC's stream "
             "prefetched: the node's memory ceiling); comma list allowed",
     .allowed = "mpi, star, single, ceiling, all or a comma list"},
    {.name = "output", .type = KIT_OPT_FILE_OUT, .id = H_OUTPUT, .meta = "FILE", .defval = "none",
     .help = "append an HPCC-format run (header, sections, Summary) to FILE, like hpccoutf.txt"},
    {.name = "json", .type = KIT_OPT_FILE_OUT, .id = H_JSON, .meta = "FILE", .defval = "none",
     .help = "write results as JSON to FILE"},
    {.name = "papi", .type = KIT_OPT_TEXT, .id = H_PAPI, .meta = "LIST", .optional = 1,
     .defval = "off; bare --papi counts " RA_PAPI_DEFAULT,
     .help = "read PAPI counters around the timed MPI kernel on every rank (comma list of events); without counters: "
             "one notice, wall-clock only",
     .allowed = "PAPI event names like PAPI_TOT_CYC, comma-separated"},
    {.name = "progress", .type = KIT_OPT_FLAG, .id = H_PROGRESS, .defval = "when stderr is a terminal",
     .help = "force the progress line on stderr"},
    {.name = "no-progress", .type = KIT_OPT_FLAG, .id = H_NO_PROGRESS, .defval = "off",
     .help = "never print the progress line"},
    {.name = "quiet", .type = KIT_OPT_FLAG, .id = H_QUIET, .defval = "off",
     .help = "omit the preamble, print only the key block"},
    {.name = "dry-run", .type = KIT_OPT_LONG, .id = H_DRY_RUN, .meta = "P", .optional = 1, .lo = 1,
     .hi = 1 << 30, .defval = "off",
     .help = "check every option, the input files and the result files' folders without starting MPI (launched with "
             "others: only for the ranks' agreement), then exit 0 "
             "without running, printing or writing anything (exit 2 as the run would); with P, also what a run of P "
             "ranks checks at its start (the table against the ranks; ra_opt: the shape and the mapping file). The "
             "run scripts call it before they launch anything"},
    {.name = "help", .type = KIT_OPT_FLAG, .id = H_HELP, .help = "show this help"},
    {.name = "version", .type = KIT_OPT_FLAG, .id = H_VERSION, .help = "print the version"},
    {0},
};

const char *ra_algo_option(const ra_config *cfg, const char *name)
{
    const char *v = NULL;
    for (int i = 0; i < cfg->n_algo_opts; i++)
        if (!strcmp(cfg->algo_opt_name[i], name))
            v = cfg->algo_opt_value[i]; /* the last one given wins */
    return v;
}

#define BAD_VALUE(o, val, allowed)                                           \
    do {                                                                     \
        kit_cli_bad_value(err, errlen, (o)->name, val, allowed);           \
        return -1;                                                           \
    } while (0)

typedef struct parse_ctx {
    ra_config *cfg;
    const kit_opt *harness_end; /* entries before it are the harness's */
    const kit_opt *all;
} parse_ctx;

/* One option, checked by the spec, into cfg: the harness's by id, the
 * algorithm's as text for its setup(). */
static int take(void *ctxp, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
    parse_ctx *ctx = ctxp;
    ra_config *cfg = ctx->cfg;
    if (o >= ctx->harness_end) {
        if (cfg->n_algo_opts >= RA_MAX_ALGO_OPTS) {
            snprintf(err, errlen, "too many algorithm options (at most %d)", RA_MAX_ALGO_OPTS);
            return -1;
        }
        cfg->algo_opt_name[cfg->n_algo_opts] = o->name;
        cfg->algo_opt_value[cfg->n_algo_opts] = v->s ? v->s : "1";
        cfg->n_algo_opts++;
        return 0;
    }
    switch (o->id) {
    case H_HELP:
        return RA_PARSE_HELP;
    case H_VERSION:
        return RA_PARSE_VERSION;
    case H_LOG2_TABLE:
        cfg->log2_table = (int)v->l;
        break;
    case H_MEM:
        cfg->mem_bytes = v->u;
        break;
    case H_UPDATES:
        cfg->updates = v->u;
        break;
    case H_TIME_BOUND:
        cfg->time_bound = v->d;
        break;
    case H_NO_VERIFY:
        cfg->verify = 0;
        break;
    case H_GEN:
        cfg->gens = v->l == 0 ? RA_GENS_LFSR : v->l == 1 ? RA_GENS_LCG : RA_GENS_LFSR | RA_GENS_LCG;
        break;
    case H_SUITE:
        if (parse_suite(v->s, &cfg->suite))
            BAD_VALUE(o, v->s, o->allowed);
        break;
    case H_OUTPUT:
        cfg->output = v->s;
        break;
    case H_JSON:
        cfg->json = v->s;
        break;
    case H_PROGRESS:
        cfg->progress = 1;
        break;
    case H_NO_PROGRESS:
        cfg->progress = 0;
        break;
    case H_QUIET:
        cfg->quiet = 1;
        break;
    case H_DRY_RUN:
        cfg->dry_run = 1;
        cfg->dry_ranks = v->s ? (int)v->l : 0;
        break;
    case H_PAPI: {
        ra_papi probe; /* checks the list now; the driver opens it later */
        if (v->s && !*v->s) /* an empty list given is a mistake; a bare --papi counts the default */
            BAD_VALUE(o, v->s, "a comma list like " RA_PAPI_DEFAULT " (or a bare --papi)");
        if (ra_papi_parse(&probe, v->s, err, errlen))
            return -1;
        cfg->papi = 1;
        cfg->papi_events = v->s;
        break;
    }
    }
    return 0;
}

/* Star and Single run one OpenMP thread per core asked for: a count the
 * runtime cannot start crashes inside it, so it is checked with the
 * options (OMP_NUM_THREADS is input like they are). */
#define RA_MAX_THREADS 1024 /* kit/settings.c declares OMP_NUM_THREADS 1..1024 */

/* One table: the harness first, so that on a name both define the harness
 * wins (getopt_long takes the first exact match), then the algorithm's;
 * NULL when out of memory.  The caller frees it. */
static kit_opt *all_options(const ra_algorithm *algo)
{
    const kit_opt *aopts = algo && algo->options ? algo->options : NULL;
    int na = 0;
    while (aopts && (aopts[na].name || aopts[na].type == KIT_OPT_HEADING))
        na++;
    kit_opt *all = calloc((size_t)(H_COUNT + na + 1), sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, harness_opts, H_COUNT * sizeof *all);
    if (na)
        memcpy(all + H_COUNT, aopts, (size_t)na * sizeof *all);
    return all;
}

void ra_options_agree_text(int argc, char **argv, const ra_algorithm *algo, char *buf, size_t len)
{
    kit_opt *all = all_options(algo);
    if (all)
        kit_agree_text(all, argc, argv, buf, len);
    else
        snprintf(buf, len, "out of memory reading the options\n");
    free(all);
}

int ra_options_parse(int argc, char **argv, const ra_algorithm *algo,
                     ra_config *cfg, char *err, size_t errlen)
{
    ra_config_defaults(cfg);
    kit_opt *all = all_options(algo);
    if (!all) {
        snprintf(err, errlen, "out of memory while reading the options");
        return RA_PARSE_ERROR;
    }
    parse_ctx ctx = {cfg, all + H_COUNT, all};
    int rc = kit_opt_parse(all, argc, argv, 0, take, &ctx, NULL, err, errlen);
    free(all);
    if (rc < 0)
        return RA_PARSE_ERROR;
    if (rc > 0)
        return rc;
    if (cfg->log2_table >= 0 && cfg->mem_bytes) {
        snprintf(err, errlen, "--log2-table and --mem both given: use one of them");
        return RA_PARSE_ERROR;
    }
    int threads = ra_local_threads();
    if (threads > RA_MAX_THREADS) {
        const char *env = kit_setting("OMP_NUM_THREADS");
        char esc[300];
        kit_cli_escape(env ? env : "", esc, sizeof esc);
        snprintf(err, errlen, "OMP_NUM_THREADS='%s' asks for %d threads per process: allowed 1..%d", esc, threads,
                 RA_MAX_THREADS);
        return RA_PARSE_ERROR;
    }
    return RA_PARSE_OK;
}

void ra_options_help(FILE *f, const char *prog, const ra_algorithm *algo)
{
    fprintf(f, "usage: mpirun -n P %s [options]\n", prog);
    if (algo && algo->summary)
        fprintf(f, "%s\n", algo->summary);
    fprintf(f, "\nharness options (HPCC RandomAccess rules):\n");
    kit_opt_help(f, harness_opts);
    if (algo && algo->options && algo->options[0].name) {
        fprintf(f, "\n%s options:\n", algo->name);
        kit_opt_help(f, algo->options);
    }
    fprintf(f, "\n");
    kit_settings_help(f, KIT_READ_LIBRARY | KIT_READ_HARNESS);
    fprintf(f, "\noptions are checked before MPI starts; a bad one is one line and exit 2\n"
               "exit codes: 0 ok, 1 verification failed, 2 usage or input error, 3 resource error\n");
}
