/* fuzz_opts_collbench.c - collbench's option parser (its option spec, the
 * sizes and ops lists, the algorithm names and the shapes' grammar). */
#include "fuzz.h"

#include "../../tools/collbench/options.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    if (!buf)
        return 0;
    int argc = fuzz_argv(data, size, "collbench", buf, argv, 64);
    static opts o;
    char err[2600] = "";
    int rc = cb_parse_options(argc, argv, &o, err, sizeof err);
    if (rc >= 0)
        fuzz_one_line(err);
    else if (rc == -1 && (o.nsizes < 1 || o.iters < 1 || o.rounds < 1))
        abort(); /* a run would start with nothing to time */
    free(buf);
    return 0;
}
