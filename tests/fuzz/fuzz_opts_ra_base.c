/* fuzz_opts_ra_base.c - ra_base's option parser (the harness's options)
 * on an argv made of the input's NUL-separated words. */
#include "fuzz.h"
#include "ra_options.h"

int ra_base_tool_main(int argc, char **argv);
#define main ra_base_tool_main
#include "../../baseline/ra_base.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "ra_base", buf, argv, 64);
    ra_config cfg;
    char err[512] = "";
    if (ra_options_parse(argc, argv, &ra_base_algorithm, &cfg, err, sizeof err) == RA_PARSE_ERROR)
        fuzz_one_line(err);
    free(buf);
    return 0;
}
