/* fuzz_opts_ra_opt.c - ra_opt's option parser, then its --dims through the
 * shape grammar at 4 ranks, as its setup does. */
#include "fuzz.h"
#include "ra_options.h"

int ra_opt_tool_main(int argc, char **argv);
#define main ra_opt_tool_main
#include "../../optimized/ra_opt.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "ra_opt", buf, argv, 64);
    ra_config cfg;
    char err[512] = "";
    int rc = ra_options_parse(argc, argv, &ra_opt_algorithm, &cfg, err, sizeof err);
    if (rc == RA_PARSE_ERROR) {
        fuzz_one_line(err);
    } else if (rc == RA_PARSE_OK) {
        const char *dims = ra_algo_option(&cfg, "dims");
        torus_shape s;
        if (dims && torus_shape_parse(dims, 4, &s, err, sizeof err))
            fuzz_one_line(err);
    }
    free(buf);
    return 0;
}
