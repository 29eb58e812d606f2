/* fuzz_mapping.c - the mapping-file reader (ra_opt --map) on arbitrary
 * bytes; the first byte picks the shape the file must cover. */
#include "fuzz.h"
#include "torus.h"

static const char *const shapes[] = {"4", "2x2", "3x2m", "2x2x2", "4x3x2", "hypercube:4", "5x1", "1"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    torus_shape s;
    char err[512] = "";
    if (torus_shape_parse(shapes[data[0] % (sizeof shapes / sizeof *shapes)], 0, &s, err, sizeof err))
        abort();
    FILE *f = fuzz_stream(data + 1, size - 1);
    if (!f)
        return 0;
    torus_map m;
    int rc = torus_map_stream(&m, &s, f, "input", err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    /* a bijection: every rank's coordinates lead back to it */
    for (int r = 0; r < s.n; r++)
        if (m.rank_of[torus_map_linear(&s, &m.coords[r * s.ndims])] != r)
            abort();
    torus_map_free(&m);
    return 0;
}
