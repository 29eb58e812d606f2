/* fuzz_opts_sparsest_cut.c - sparsest_cut's option parser. */
#include "fuzz.h"

int sparsest_cut_tool_main(int argc, char **argv);
#define main sparsest_cut_tool_main
#include "../../sparsest_cut/sparsest_cut.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "sparsest_cut", buf, argv, 64);
    sc_cli c;
    char err[512] = "";
    if (parse_cli(argc, argv, &c, err, sizeof err) == CLI_BAD)
        fuzz_one_line(err);
    free(buf);
    return 0;
}
