/* test_options.c - option parsing: values, defaults, GNU conventions
 * (--opt=value, --, unique prefixes) and the kit's one-line errors. */
#include "../test.h"
#include "ra_options.h"
#include "kit_cli.h"

static const kit_opt opts[] = {{.name = "dims", .type = KIT_OPT_TEXT, .defval = "auto", .help = "shape"},
                                 {.name = "flag", .type = KIT_OPT_FLAG, .help = "a flag"},
                                 {.name = "slots", .type = KIT_OPT_LONG, .lo = 1, .hi = 64, .help = "slots"},
                                 {0}};
static const ra_algorithm algo = {.name = "t", .options = opts};

static int parse(ra_config *c, char *err, int argc, const char **argv)
{
    char *v[32];
    for (int i = 0; i < argc && i < 32; i++)
        v[i] = (char *)(uintptr_t)argv[i]; /* the parser never writes to argv */
    return ra_options_parse(argc, v, &algo, c, err, 256);
}

static int take_nothing(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen)
{
    (void)ctx, (void)o, (void)v, (void)err, (void)errlen;
    return 0;
}

#define ARGV(...) (const char *[]){"prog", __VA_ARGS__}
#define NARGS(...) (int)(sizeof((const char *[]){"prog", __VA_ARGS__}) / sizeof(char *))
#define P(...) parse(&c, err, NARGS(__VA_ARGS__), ARGV(__VA_ARGS__))

/* byte counts with suffixes, whole numbers in range */
static void t_byte_and_number_values(void)
{
    uint64_t u;
    ASSERT_EQ_INT(kit_cli_bytes("4G", &u), 0);
    ASSERT_EQ_U64(u, 4ULL << 30);
    ASSERT_EQ_INT(kit_cli_bytes("512MiB", &u), 0);
    ASSERT_EQ_U64(u, 512ULL << 20);
    ASSERT_EQ_INT(kit_cli_bytes("-5", &u), -1);
    ASSERT_EQ_INT(kit_cli_bytes("5X", &u), -1);
    ASSERT_EQ_INT(kit_cli_bytes("99999999999999T", &u), -1);
    ASSERT_EQ_INT(kit_cli_u64("18446744073709551616", 0, UINT64_MAX, &u), -1);
    ASSERT_EQ_INT(kit_cli_u64(" 5", 0, UINT64_MAX, &u), -1);
}

/* the harness options and an algorithm's own options */
static void t_values_and_algorithm_options(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--log2-table", "20", "--lcg", "--updates=1000", "--no-verify"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.log2_table, 20);
    ASSERT_EQ_INT(c.gens, RA_GENS_LCG);
    ASSERT_EQ_U64(c.updates, 1000);
    ASSERT_EQ_INT(c.verify, 0);
    ASSERT_EQ_INT(P("--suite", "star,single", "--gen", "both", "--time-bound", "60"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.suite, RA_SUITE_STAR | RA_SUITE_SINGLE);
    ASSERT_EQ_INT(c.gens, RA_GENS_LFSR | RA_GENS_LCG);
    ASSERT_TRUE(c.time_bound == 60.0);
    ASSERT_EQ_INT(P("--dims", "4x2", "--flag"), RA_PARSE_OK);
    ASSERT_STR_CONTAINS(ra_algo_option(&c, "dims"), "4x2");
    ASSERT_STR_CONTAINS(ra_algo_option(&c, "flag"), "1");
    ASSERT_TRUE(ra_algo_option(&c, "nothing") == NULL);
    ASSERT_EQ_INT(P("--mem", "1G"), RA_PARSE_OK);
    ASSERT_EQ_U64(c.mem_bytes, 1ULL << 30);
}

/* --papi takes an optional list: bare before another option, =LIST, or
 * the next word; a malformed list is a usage error.  --help, --version. */
static void t_papi_optional_list_help_version(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--papi", "--quiet"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.papi, 1);
    ASSERT_TRUE(c.papi_events == NULL);
    ASSERT_EQ_INT(c.quiet, 1);
    ASSERT_EQ_INT(P("--papi=PAPI_TOT_CYC,PAPI_L3_TCM"), RA_PARSE_OK);
    ASSERT_STR_CONTAINS(c.papi_events, "PAPI_L3_TCM");
    ASSERT_EQ_INT(P("--papi", "perf::CYCLES", "--log2-table", "10"), RA_PARSE_OK);
    ASSERT_STR_CONTAINS(c.papi_events, "perf::CYCLES");
    ASSERT_EQ_INT(c.log2_table, 10);
    ASSERT_EQ_INT(P("--papi"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.papi, 1);
    ASSERT_EQ_INT(P("--papi", "A,,B c"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value 'B c' for --papi: allowed PAPI event names like PAPI_TOT_CYC, comma-separated");
    ASSERT_EQ_INT(P("--papi=a,b,c,d,e,f,g,h,i"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "at most 8");
    ASSERT_EQ_INT(P("--help"), RA_PARSE_HELP);
    ASSERT_EQ_INT(P("--version"), RA_PARSE_VERSION);
}

/* unknown options, values out of range or malformed, strays, conflicts */
static void t_bad_values_refused(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--bogus"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "unknown option '--bogus'");
    ASSERT_EQ_INT(P("--log2-table", "63"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "allowed an integer 1..62");
    ASSERT_EQ_INT(P("--log2-table", "0"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--log2-table", "ten"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "'ten'");
    ASSERT_EQ_INT(P("--log2-table"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "needs a value");
    ASSERT_EQ_INT(P("--updates", "0"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--updates", "-3"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--mem", "0"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--mem", "-1G"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--time-bound", "-1"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--time-bound", "nan"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--suite", "mpi,bogus"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--gen", "xorshift"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--no-verify=1"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("stray"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--log2-table", "20", "--mem", "1G"), RA_PARSE_ERROR);
    ASSERT_STR_CONTAINS(err, "use one of them");
}

/* GNU conventions (getopt_long): --opt=value, unique prefixes, -- ends
 * the options; algorithm options alike. */
static void t_gnu_conventions(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--log2-table=20"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.log2_table, 20);
    ASSERT_EQ_INT(P("--log2", "21"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.log2_table, 21);
    ASSERT_EQ_INT(P("--log2=22", "--qu"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.log2_table, 22);
    ASSERT_EQ_INT(c.quiet, 1);
    ASSERT_EQ_INT(P("--log2-table", "10", "--"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.log2_table, 10);
    ASSERT_EQ_INT(P("--di", "2x2", "--dims=4x2", "--fl"), RA_PARSE_OK);
    ASSERT_STR_EQ(ra_algo_option(&c, "dims"), "4x2"); /* the last one given wins */
    ASSERT_STR_EQ(ra_algo_option(&c, "flag"), "1");
    ASSERT_EQ_INT(c.n_algo_opts, 3);
    /* --papi's optional list by prefix, as the next word */
    ASSERT_EQ_INT(P("--pa", "PAPI_TOT_CYC"), RA_PARSE_OK);
    ASSERT_STR_EQ(c.papi_events, "PAPI_TOT_CYC");
}

/* Errors: one line each, exactly the kit's format. */
static void t_error_messages_exact(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--log2-table", "ten"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value 'ten' for --log2-table: allowed an integer 1..62 (table of 2^K words)");
    ASSERT_EQ_INT(P("--log2-table="), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value '' for --log2-table: allowed an integer 1..62 (table of 2^K words)");
    ASSERT_EQ_INT(P("--mem", "0"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value '0' for --mem: allowed a positive byte count of at least 16, with optional K/M/G/T suffix");
    ASSERT_EQ_INT(P("--bogus"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unknown option '--bogus' (see --help)");
    ASSERT_EQ_INT(P("--bogus=3"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unknown option '--bogus' (see --help)");
    ASSERT_EQ_INT(P("-x"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unknown option '-x' (see --help)");
    ASSERT_EQ_INT(P("--log2-table"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "option '--log2-table' needs a value (see --help)");
    ASSERT_EQ_INT(P("--quiet", "--log2"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "option '--log2-table' needs a value (see --help)");
    ASSERT_EQ_INT(P("--no"), RA_PARSE_ERROR); /* --no-verify or --no-progress */
    ASSERT_STR_EQ(err, "option '--no' is ambiguous: could be --no-verify, --no-progress (see --help)");
    ASSERT_EQ_INT(P("--p=1"), RA_PARSE_ERROR); /* --papi or --progress */
    ASSERT_STR_EQ(err, "option '--p' is ambiguous: could be --papi, --progress (see --help)");
    ASSERT_EQ_INT(P("--no-verify=1"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "option '--no-verify' takes no value, got '1' (see --help)");
    ASSERT_EQ_INT(P("--quiet", "--", "stray"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unexpected argument 'stray' (see --help)");
    ASSERT_EQ_INT(P("--", "--quiet"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unexpected argument '--quiet' (see --help)");
    ASSERT_EQ_INT(P("stray", "--quiet"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "unexpected argument 'stray' (see --help)");
    ASSERT_EQ_INT(P("--papi", "--", "x"), RA_PARSE_ERROR); /* -- is not a list */
    ASSERT_STR_EQ(err, "unexpected argument 'x' (see --help)");
    ASSERT_EQ_INT(P("a\nb"), RA_PARSE_ERROR); /* echoed on one line */
    ASSERT_STR_EQ(err, "unexpected argument 'a\\x0ab' (see --help)");
    ASSERT_EQ_INT(P("--gen", "xorshift"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value 'xorshift' for --gen: allowed lfsr, lcg, both");
    ASSERT_EQ_INT(P("--papi=a,b,c,d,e,f,g,h,i"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value 'a,b,c,d,e,f,g,h,i' for --papi: allowed at most 8 events");
}

/* the spec checks an algorithm option's range while reading, before
 * any memory is sized (issue 28: --outstanding 0 --log2-table 40 was a
 * memory error) */
static void t_algorithm_option_range_while_reading(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--slots", "0", "--log2-table", "40"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value '0' for --slots: allowed an integer 1..64");
    ASSERT_EQ_INT(P("--slots", "64"), RA_PARSE_OK);
    ASSERT_STR_EQ(ra_algo_option(&c, "slots"), "64");
}

/* two outputs on one path are refused (the second would replace the
 * first), whatever way the path is spelt; a blank file name */
static void t_outputs_on_one_path_refused(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--output", "/tmp/x.out", "--json", "/tmp/./x.out"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "--output and --json name the same file '/tmp/./x.out': allowed two different files");
    ASSERT_EQ_INT(P("--output", "/dev/null", "--json", "/dev/null"), RA_PARSE_OK);
    ASSERT_EQ_INT(P("--json", " "), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value ' ' for --json: allowed a file name");
}

/* --dry-run; numbers past their type; the parser still works after an error */
static void t_dry_run_limits_parse_after_error(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--dry-run", "--log2-table", "12"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.dry_run, 1);
    ASSERT_EQ_INT(P("--updates", "18446744073709551616"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "bad value '18446744073709551616' for --updates: allowed a whole number >= 1");
    ASSERT_EQ_INT(P("--time-bound", "1e400"), RA_PARSE_ERROR);
    ASSERT_EQ_INT(P("--time-bound", "inf"), RA_PARSE_ERROR);
    /* the parser still works after an error (getopt restarted each time) */
    ASSERT_EQ_INT(P("--updates", "7"), RA_PARSE_OK);
    ASSERT_EQ_U64(c.updates, 7);
}

/* an alias (--lcg) is the option it abbreviates (--gen lcg): later words
 * override it like any repeat of --gen, and --help says what it stands for;
 * an alias naming no option is refused, not ignored */
static void t_alias_is_its_option(void)
{
    ra_config c;
    char err[256];
    ASSERT_EQ_INT(P("--gen", "both", "--lcg"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.gens, RA_GENS_LCG);
    ASSERT_EQ_INT(P("--lcg", "--gen", "lfsr"), RA_PARSE_OK);
    ASSERT_EQ_INT(c.gens, RA_GENS_LFSR);
    ASSERT_EQ_INT(P("--lcg=yes"), RA_PARSE_ERROR);
    ASSERT_STR_EQ(err, "option '--lcg' takes no value, got 'yes' (see --help)");
    static const kit_opt bad[] = {{.name = "gen", .type = KIT_OPT_CHOICE, .choices = "a|b"},
                                  {.name = "x", .type = KIT_OPT_FLAG, .alias = "gen=c"},
                                  {.name = "y", .type = KIT_OPT_FLAG, .alias = "nothing=a"},
                                  {0}};
    char *argv_x[] = {"prog", "--x", NULL}, *argv_y[] = {"prog", "--y", NULL};
    ASSERT_EQ_INT(kit_opt_parse(bad, 2, argv_x, 0, take_nothing, NULL, NULL, err, sizeof err), -1);
    ASSERT_STR_EQ(err, "bad value 'c' for --gen: allowed a, b");
    ASSERT_EQ_INT(kit_opt_parse(bad, 2, argv_y, 0, take_nothing, NULL, NULL, err, sizeof err), -1);
    ASSERT_STR_EQ(err, "--y: its alias 'nothing=a' names no option of this program");
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    ASSERT_TRUE(f != NULL);
    kit_opt_help(f, bad);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "--x                   same as --gen c");
}

static const test_case cases[] = {
    {"byte_and_number_values", t_byte_and_number_values},
    {"values_and_algorithm_options", t_values_and_algorithm_options},
    {"papi_optional_list_help_version", t_papi_optional_list_help_version},
    {"bad_values_refused", t_bad_values_refused},
    {"gnu_conventions", t_gnu_conventions},
    {"error_messages_exact", t_error_messages_exact},
    {"algorithm_option_range_while_reading", t_algorithm_option_range_while_reading},
    {"outputs_on_one_path_refused", t_outputs_on_one_path_refused},
    {"dry_run_limits_parse_after_error", t_dry_run_limits_parse_after_error},
    {"alias_is_its_option", t_alias_is_its_option},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_options", cases);
}
