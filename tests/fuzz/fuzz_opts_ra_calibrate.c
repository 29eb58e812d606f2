/* fuzz_opts_ra_calibrate.c - ra_calibrate's option parser (called as a
 * rank other than 0, which prints nothing). */
#include "fuzz.h"

#include "../../tools/ra_calibrate/options.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "ra_calibrate", buf, argv, 64);
    cal_opts o = {.log2 = 25, .out = "calibration.params"};
    optind = 0; /* glibc: a full restart of getopt's scan */
    int rc = cal_parse_options(argc, argv, 0, &o); /* not the first process: prints nothing */
    if (rc != -1 && rc != 0 && rc != KIT_EXIT_USAGE)
        abort();
    if (rc == -1 && (o.log2 < 10 || o.log2 > 40 || o.link_bw < 0))
        abort();
    free(buf);
    return 0;
}
