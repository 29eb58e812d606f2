/* fuzz_slurm.c - sparsest_cut's Slurm topology.conf reader on arbitrary bytes. */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_graph_reader(data, size, sc_read_slurm_stream);
}
