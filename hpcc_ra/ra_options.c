/*
 * ra_options.c - option parsing with getopt_long.  Every value is checked
 * here, before MPI work starts, so a typo costs one clear line and exit 2,
 * never a hang.
 *
 * The long-option array is built at run time from the harness table below
 * and the algorithm's own table (algo->options), so that both follow GNU
 * conventions alike: --opt value, --opt=value, -- ends the options, unique
 * prefixes accepted.  getopt's own messages are off (opterr = 0): every
 * error is written into err in the kit's one format (torus_cli.h), e.g.
 *
 *     bad value 'ten' for --log2-table: allowed an integer 1..62 (...)
 *     unknown option '--bogus' (see --help)
 */
#include "ra_options.h"
#include "ra_papi.h"
#include "torus_cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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

int ra_parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !*s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end)
            return -1;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
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

/* The harness options, in --help order; the enum indexes the table. */
enum harness_id {
    H_LOG2_TABLE, H_MEM, H_UPDATES, H_TIME_BOUND, H_NO_VERIFY, H_GEN, H_LCG, H_SUITE, H_OUTPUT,
    H_JSON, H_PAPI, H_PROGRESS, H_NO_PROGRESS, H_QUIET, H_HELP, H_VERSION, H_COUNT
};

static const ra_option_def harness_opts[H_COUNT + 1] = {
    [H_LOG2_TABLE] = {"log2-table", 1, "from --mem", "global table of 2^K words, K in 1..62"},
    [H_MEM] = {"mem", 1, "1/2 of RAM / ranks per node", "memory per process (K/M/G/T suffixes); the table is the largest power of two taking at most half of the total"},
    [H_UPDATES] = {"updates", 1, "4*TableSize", "total updates over all processes (the first N elements of the stream)"},
    [H_TIME_BOUND] = {"time-bound", 1, "0 (off)", "HPCC time bound in seconds: time a 1% sample, run what fits (submissions use 60)"},
    [H_NO_VERIFY] = {"no-verify", 0, "verify", "skip verification"},
    [H_GEN] = {"gen", 1, "lfsr", "generator: lfsr, lcg or both"},
    [H_LCG] = {"lcg", 0, "off", "same as --gen lcg (HPCC's _LCG variants)"},
    [H_SUITE] = {"suite", 1, "mpi",
                 "tests to run: mpi, star, single, all (HPCC's three), ceiling (every rank alone, HPCC's stream "
                 "prefetched: the node's memory ceiling); comma list allowed"},
    [H_OUTPUT] = {"output", 1, "none", "append an HPCC-format run (header, sections, Summary) to FILE, like hpccoutf.txt"},
    [H_JSON] = {"json", 1, "none", "write results as JSON to FILE"},
    [H_PAPI] = {"papi", 2, "off; bare --papi counts " RA_PAPI_DEFAULT,
                "read PAPI counters around the timed MPI kernel on every rank (comma list of events); without counters: one notice, wall-clock only"},
    [H_PROGRESS] = {"progress", 0, "when stderr is a terminal", "force the progress line on stderr"},
    [H_NO_PROGRESS] = {"no-progress", 0, "off", "never print the progress line"},
    [H_QUIET] = {"quiet", 0, "off", "omit the preamble, print only the key block"},
    [H_HELP] = {"help", 0, NULL, "show this help"},
    [H_VERSION] = {"version", 0, NULL, "print the version"},
    [H_COUNT] = {NULL, 0, NULL, NULL},
};

const char *ra_algo_option(const ra_config *cfg, const char *name)
{
    const char *v = NULL;
    for (int i = 0; i < cfg->n_algo_opts; i++)
        if (!strcmp(cfg->algo_opt_name[i], name))
            v = cfg->algo_opt_value[i]; /* the last one given wins */
    return v;
}

#define FAIL(...)                                                            \
    do {                                                                     \
        snprintf(err, errlen, __VA_ARGS__);                                  \
        return RA_PARSE_ERROR;                                               \
    } while (0)

#define BAD_VALUE(id, val, allowed)                                          \
    do {                                                                     \
        torus_cli_bad_value(err, errlen, harness_opts[id].name, val, allowed); \
        return RA_PARSE_ERROR;                                               \
    } while (0)

/* Stores one harness option's value (NULL for a flag) into cfg. */
static int set_harness(ra_config *cfg, int id, const char *val, char *err, size_t errlen)
{
    long l;
    uint64_t u;
    double d;
    switch (id) {
    case H_HELP:
        return RA_PARSE_HELP;
    case H_VERSION:
        return RA_PARSE_VERSION;
    case H_LOG2_TABLE:
        if (torus_cli_long(val, 1, 62, &l))
            BAD_VALUE(id, val, "an integer 1..62 (table of 2^K words)");
        cfg->log2_table = (int)l;
        break;
    case H_MEM:
        if (ra_parse_bytes(val, &u) || u < 16)
            BAD_VALUE(id, val, "a positive byte count of at least 16, with optional K/M/G/T suffix");
        cfg->mem_bytes = u;
        break;
    case H_UPDATES:
        if (torus_cli_u64(val, 1, UINT64_MAX, &u))
            BAD_VALUE(id, val, "a whole number >= 1");
        cfg->updates = u;
        break;
    case H_TIME_BOUND:
        if (torus_cli_double(val, 0, 1e7, &d))
            BAD_VALUE(id, val, "seconds in 0..1e7 (0 = off)");
        cfg->time_bound = d;
        break;
    case H_NO_VERIFY:
        cfg->verify = 0;
        break;
    case H_GEN:
        if (!strcmp(val, "lfsr")) cfg->gens = RA_GENS_LFSR;
        else if (!strcmp(val, "lcg")) cfg->gens = RA_GENS_LCG;
        else if (!strcmp(val, "both")) cfg->gens = RA_GENS_LFSR | RA_GENS_LCG;
        else BAD_VALUE(id, val, "lfsr, lcg, both");
        break;
    case H_LCG:
        cfg->gens = RA_GENS_LCG;
        break;
    case H_SUITE:
        if (parse_suite(val, &cfg->suite))
            BAD_VALUE(id, val, "mpi, star, single, ceiling, all or a comma list");
        break;
    case H_OUTPUT:
        if (!*val)
            BAD_VALUE(id, val, "a file name");
        cfg->output = val;
        break;
    case H_JSON:
        if (!*val)
            BAD_VALUE(id, val, "a file name");
        cfg->json = val;
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
    case H_PAPI: {
        ra_papi probe; /* checks the list now; the driver opens it later */
        if (ra_papi_parse(&probe, val, err, errlen))
            return RA_PARSE_ERROR;
        cfg->papi = 1;
        cfg->papi_events = val;
        break;
    }
    }
    return RA_PARSE_OK;
}

/* Index in opts of the option that --NAME (NAME up to len bytes) means:
 * an exact name, else the one name it is a prefix of; -1 when none, -2
 * when several (ambiguous).  The same rule getopt_long applies, worked out
 * again because getopt reports every one of these cases as '?'. */
/* getopt_long's val for entry i of the array: unique, above every char. */
#define OPT_VAL0 0x100

int ra_options_parse(int argc, char **argv, const ra_algorithm *algo,
                     ra_config *cfg, char *err, size_t errlen)
{
    ra_config_defaults(cfg);
    const ra_option_def *aopts = algo && algo->options ? algo->options : NULL;
    int na = 0;
    while (aopts && aopts[na].name)
        na++;
    /* Harness first: on a name both tables define, the harness wins (the
     * first exact match), as it always has. */
    struct option *opts = calloc((size_t)(H_COUNT + na + 1), sizeof *opts);
    if (!opts)
        FAIL("out of memory while reading the options");
    for (int i = 0; i < H_COUNT + na; i++) {
        const ra_option_def *o = i < H_COUNT ? &harness_opts[i] : &aopts[i - H_COUNT];
        opts[i].name = o->name;
        opts[i].has_arg = o->has_arg == 2 ? optional_argument : o->has_arg ? required_argument : no_argument;
        opts[i].val = OPT_VAL0 + i;
    }

    /* optind = 0 restarts getopt completely (glibc, musl and the BSDs), so
     * the parser can run more than once in a process (the unit tests). */
    optind = 0;
    opterr = 0;
    /* "+": stop at the first word that is not an option (no reordering of
     * argv, which is only read); ":": a missing value returns ':'. */
    int rc = RA_PARSE_OK;
    for (;;) {
        int at = optind ? optind : 1;
        int c = getopt_long(argc, argv, "+:", opts, NULL);
        if (c == -1)
            break;
        if (c == ':') {
            int i = optopt - OPT_VAL0;
            if (i >= 0 && i < H_COUNT + na)
                snprintf(err, errlen, "option '--%s' needs a value (see --help)", opts[i].name);
            else
                torus_cli_refused(opts, argv[at], err, errlen);
            rc = RA_PARSE_ERROR;
            break;
        }
        int i = c - OPT_VAL0;
        if (c == '?' || i < 0 || i >= H_COUNT + na) {
            torus_cli_refused(opts, argv[at], err, errlen);
            rc = RA_PARSE_ERROR;
            break;
        }
        const char *val = optarg;
        /* An optional value also comes as the next word (--papi LIST), when
         * that word is not itself an option: getopt only takes --papi=LIST. */
        if (opts[i].has_arg == optional_argument && !val && optind < argc &&
            strncmp(argv[optind], "--", 2) != 0)
            val = argv[optind++];
        if (i < H_COUNT) {
            rc = set_harness(cfg, i, val, err, errlen);
            if (rc != RA_PARSE_OK)
                break;
            continue;
        }
        if (cfg->n_algo_opts >= RA_MAX_ALGO_OPTS) {
            snprintf(err, errlen, "too many algorithm options (at most %d)", RA_MAX_ALGO_OPTS);
            rc = RA_PARSE_ERROR;
            break;
        }
        cfg->algo_opt_name[cfg->n_algo_opts] = aopts[i - H_COUNT].name;
        cfg->algo_opt_value[cfg->n_algo_opts] = val ? val : "1";
        cfg->n_algo_opts++;
    }
    free(opts);
    if (rc == RA_PARSE_OK && optind < argc) {
        /* The kit takes no positional arguments: a stray word (also one
         * after --) is a mistake worth stopping for. */
        char w[300];
        torus_cli_escape(argv[optind], w, sizeof w);
        snprintf(err, errlen, "unexpected argument '%s' (see --help)", w);
        rc = RA_PARSE_ERROR;
    }
    if (rc == RA_PARSE_OK && cfg->log2_table >= 0 && cfg->mem_bytes)
        FAIL("--log2-table and --mem both given: use one of them");
    return rc;
}

static void help_line(FILE *f, const char *name, int has_arg, const char *defval,
                      const char *help)
{
    char left[64];
    snprintf(left, sizeof left, "--%s%s", name, has_arg == 2 ? " [V]" : has_arg ? " V" : "");
    fprintf(f, "  %-20s %s", left, help);
    if (defval)
        fprintf(f, " [default: %s]", defval);
    fputc('\n', f);
}

void ra_options_help(FILE *f, const char *prog, const ra_algorithm *algo)
{
    fprintf(f, "usage: mpirun -n P %s [options]\n", prog);
    if (algo && algo->summary)
        fprintf(f, "%s\n", algo->summary);
    fprintf(f, "\nharness options (HPCC RandomAccess rules):\n");
    for (const ra_option_def *h = harness_opts; h->name; h++)
        help_line(f, h->name, h->has_arg, h->defval, h->help);
    if (algo && algo->options && algo->options[0].name) {
        fprintf(f, "\n%s options:\n", algo->name);
        for (const ra_option_def *o = algo->options; o->name; o++)
            help_line(f, o->name, o->has_arg, o->defval, o->help);
    }
    fprintf(f, "\nexit codes: 0 ok, 1 verification failed, 2 usage or input error, 3 resource error\n");
}
