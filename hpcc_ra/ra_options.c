/*
 * ra_options.c - option parsing.  Every value is checked here, before MPI
 * work starts, so a typo costs one clear line and exit 2, never a hang.
 */
#include "ra_options.h"
#include "ra_papi.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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

int ra_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
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

int ra_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_suite(const char *s, int *mask)
{
    *mask = 0;
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "mpi")) *mask |= RA_SUITE_MPI;
        else if (!strcmp(tok, "star")) *mask |= RA_SUITE_STAR;
        else if (!strcmp(tok, "single")) *mask |= RA_SUITE_SINGLE;
        else if (!strcmp(tok, "all")) *mask |= RA_SUITE_MPI | RA_SUITE_STAR | RA_SUITE_SINGLE;
        else return -1;
    }
    return *mask ? 0 : -1;
}

typedef struct {
    const char *name;
    int has_arg;
    const char *defval;
    const char *help;
} harness_opt;

static const harness_opt harness_opts[] = {
    {"log2-table", 1, "from --mem", "global table of 2^K words, K in 1..62"},
    {"mem", 1, "1/2 of RAM / ranks per node", "memory per process (K/M/G/T suffixes); the table is the largest power of two taking at most half of the total"},
    {"updates", 1, "4*TableSize", "total updates over all processes (the first N elements of the stream)"},
    {"time-bound", 1, "0 (off)", "HPCC time bound in seconds: time a 1% sample, run what fits (submissions use 60)"},
    {"no-verify", 0, "verify", "skip verification"},
    {"gen", 1, "lfsr", "generator: lfsr, lcg or both"},
    {"lcg", 0, "off", "same as --gen lcg (HPCC's _LCG variants)"},
    {"suite", 1, "mpi", "tests to run: mpi, star, single, all (comma list allowed)"},
    {"output", 1, "none", "append an HPCC-format run (header, sections, Summary) to FILE, like hpccoutf.txt"},
    {"json", 1, "none", "write results as JSON to FILE"},
    {"papi", 2, "off; bare --papi counts " RA_PAPI_DEFAULT,
     "read PAPI counters around the timed MPI kernel on every rank (comma list of events); without counters: one notice, wall-clock only"},
    {"progress", 0, "when stderr is a terminal", "force the progress line on stderr"},
    {"no-progress", 0, "off", "never print the progress line"},
    {"quiet", 0, "off", "omit the preamble, print only the key block"},
    {"help", 0, NULL, "show this help"},
    {"version", 0, NULL, "print the version"},
    {NULL, 0, NULL, NULL},
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

int ra_options_parse(int argc, char **argv, const ra_algorithm *algo,
                     ra_config *cfg, char *err, size_t errlen)
{
    ra_config_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            FAIL("unexpected argument '%s': options start with -- (see --help)", arg);
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        size_t nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (nlen >= sizeof name)
            FAIL("unknown option '%s' (see --help)", arg);
        memcpy(name, arg + 2, nlen);
        name[nlen] = 0;

        int has_arg = -1, harness = 0;
        for (const harness_opt *h = harness_opts; h->name; h++)
            if (!strcmp(h->name, name)) {
                has_arg = h->has_arg;
                harness = 1;
            }
        if (!harness && algo && algo->options)
            for (const ra_option_def *o = algo->options; o->name; o++)
                if (!strcmp(o->name, name))
                    has_arg = o->has_arg;
        if (has_arg < 0)
            FAIL("unknown option '--%s' (see --help)", name);

        const char *val = NULL;
        if (has_arg == 2) {
            /* Optional value: --papi=LIST, or --papi LIST when LIST is not
             * the next option. */
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
                val = argv[++i];
        } else if (has_arg) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                FAIL("option '--%s' needs a value (see --help)", name);
        } else if (eq) {
            FAIL("option '--%s' takes no value, got '%s'", name, eq + 1);
        }

        if (!harness) {
            if (cfg->n_algo_opts >= RA_MAX_ALGO_OPTS)
                FAIL("too many algorithm options (at most %d)", RA_MAX_ALGO_OPTS);
            for (const ra_option_def *o = algo->options; o->name; o++)
                if (!strcmp(o->name, name))
                    cfg->algo_opt_name[cfg->n_algo_opts] = o->name;
            cfg->algo_opt_value[cfg->n_algo_opts] = val ? val : "1";
            cfg->n_algo_opts++;
            continue;
        }

        uint64_t u;
        double d;
        if (!strcmp(name, "help"))
            return RA_PARSE_HELP;
        if (!strcmp(name, "version"))
            return RA_PARSE_VERSION;
        if (!strcmp(name, "log2-table")) {
            if (ra_parse_u64(val, &u) || u < 1 || u > 62)
                FAIL("--log2-table '%s' is not valid: allowed an integer 1..62 (table of 2^K words)", val);
            cfg->log2_table = (int)u;
        } else if (!strcmp(name, "mem")) {
            if (ra_parse_bytes(val, &u) || u < 16)
                FAIL("--mem '%s' is not a valid size: allowed a positive byte count of at least 16, with optional K/M/G/T suffix", val);
            cfg->mem_bytes = u;
        } else if (!strcmp(name, "updates")) {
            if (ra_parse_u64(val, &u) || u < 1)
                FAIL("--updates '%s' is not valid: allowed a whole number >= 1", val);
            cfg->updates = u;
        } else if (!strcmp(name, "time-bound")) {
            if (ra_parse_double(val, &d) || d < 0 || d > 1e7)
                FAIL("--time-bound '%s' is not valid: allowed seconds in 0..1e7 (0 = off)", val);
            cfg->time_bound = d;
        } else if (!strcmp(name, "no-verify")) {
            cfg->verify = 0;
        } else if (!strcmp(name, "gen")) {
            if (!strcmp(val, "lfsr")) cfg->gens = RA_GENS_LFSR;
            else if (!strcmp(val, "lcg")) cfg->gens = RA_GENS_LCG;
            else if (!strcmp(val, "both")) cfg->gens = RA_GENS_LFSR | RA_GENS_LCG;
            else FAIL("--gen '%s' is not valid: allowed lfsr, lcg, both", val);
        } else if (!strcmp(name, "lcg")) {
            cfg->gens = RA_GENS_LCG;
        } else if (!strcmp(name, "suite")) {
            if (parse_suite(val, &cfg->suite))
                FAIL("--suite '%s' is not valid: allowed mpi, star, single, all or a comma list", val);
        } else if (!strcmp(name, "output")) {
            if (!*val)
                FAIL("--output needs a file name");
            cfg->output = val;
        } else if (!strcmp(name, "json")) {
            if (!*val)
                FAIL("--json needs a file name");
            cfg->json = val;
        } else if (!strcmp(name, "progress")) {
            cfg->progress = 1;
        } else if (!strcmp(name, "no-progress")) {
            cfg->progress = 0;
        } else if (!strcmp(name, "quiet")) {
            cfg->quiet = 1;
        } else if (!strcmp(name, "papi")) {
            ra_papi probe;
            if (ra_papi_parse(&probe, val, err, errlen))
                return RA_PARSE_ERROR;
            cfg->papi = 1;
            cfg->papi_events = val;
        }
    }
    if (cfg->log2_table >= 0 && cfg->mem_bytes)
        FAIL("--log2-table and --mem both given: use one of them");
    return RA_PARSE_OK;
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
    for (const harness_opt *h = harness_opts; h->name; h++)
        help_line(f, h->name, h->has_arg, h->defval, h->help);
    if (algo && algo->options && algo->options[0].name) {
        fprintf(f, "\n%s options:\n", algo->name);
        for (const ra_option_def *o = algo->options; o->name; o++)
            help_line(f, o->name, o->has_arg, o->defval, o->help);
    }
    fprintf(f, "\nexit codes: 0 ok, 1 verification failed, 2 usage or input error, 3 resource error\n");
}
