/* fuzz_metis.c - sparsest_cut's METIS reader on arbitrary bytes. */
#include "fuzz.h"
#include "sparsest_cut.h"

/* Graphs of up to 2^16 nodes: the same code paths as 2^26, without
 * spending each execution on a 0.5 GiB allocation. */
#define FUZZ_MAX_NODES (1L << 16)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    sc_edges e;
    char err[512] = "";
    int rc = sc_read_metis_stream(f, "input", FUZZ_MAX_NODES, &e, err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    for (size_t i = 0; i < e.count; i++)
        if (e.u[i] < 0 || e.u[i] >= e.n || e.v[i] < 0 || e.v[i] >= e.n)
            abort();
    sc_edges_free(&e);
    return 0;
}
