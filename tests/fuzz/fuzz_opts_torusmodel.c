/* fuzz_opts_torusmodel.c - torusmodel's option parser (which also reads
 * --params files and parses shapes and presets). */
#include "fuzz.h"

int torusmodel_tool_main(int argc, char **argv);
#define main torusmodel_tool_main
#include "../../torusmodel/torusmodel.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "torusmodel", buf, argv, 64);
    tm_cli c;
    char err[512] = "";
    if (parse_cli(argc, argv, &c, err, sizeof err) == CLI_BAD)
        fuzz_one_line(err);
    free(buf);
    return 0;
}
