/* fuzz_hosts.c - the host-file reader (TORUS_HOSTFILE, an emulated node
 * layout) on arbitrary bytes; the first byte picks the rank count. */
#include "fuzz.h"
#include "torus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n = 1 + data[0] % 16;
    FILE *f = fuzz_stream(data + 1, size - 1);
    if (!f)
        return 0;
    int node_of[16];
    char err[700] = "";
    int rc = torus_hosts_stream(node_of, n, f, "input", err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    /* nodes numbered by their lowest rank: rank 0 on node 0, and a rank
     * opens node k only after nodes 0..k-1 are open */
    int next = 0;
    for (int r = 0; r < n; r++) {
        if (node_of[r] < 0 || node_of[r] > next)
            abort();
        if (node_of[r] == next)
            next++;
    }
    return 0;
}
