/* fuzz_shape.c - the shape grammar (--dims, SHAPE, --shape) on arbitrary
 * text; the first two bytes give the process count (0 = none). */
#include "fuzz.h"
#include "torus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int n = (data[0] | data[1] << 8) % 4097;
    char *txt = malloc(size - 1);
    if (!txt)
        return 0;
    memcpy(txt, data + 2, size - 2);
    txt[size - 2] = 0;
    torus_shape s;
    char err[512] = "";
    if (torus_shape_parse(txt, n, &s, err, sizeof err)) {
        fuzz_one_line(err);
    } else {
        long prod = 1;
        for (int i = 0; i < s.ndims; i++) {
            if (s.k[i] < 1)
                abort();
            prod *= s.k[i];
        }
        if (s.ndims < 1 || prod != s.n || (n > 0 && s.n != n))
            abort();
    }
    free(txt);
    return 0;
}
