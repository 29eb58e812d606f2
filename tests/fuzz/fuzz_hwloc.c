/* fuzz_hwloc.c - torusmodel's reader of hwloc's XML on arbitrary bytes:
 * an error is one line, facts read are counts that hold together. */
#include "fuzz.h"
#include "torusmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    tm_hw hw;
    char err[512] = "";
    int rc = tm_hwloc_stream(f, "input", &hw, err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    if (hw.cores < 1 || hw.pus < 0 || hw.numa < 0 || !(hw.memory >= 0))
        abort();
    return 0;
}
