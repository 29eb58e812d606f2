/* fuzz_slurm_yaml.c - sparsest_cut's Slurm topology.yaml reader on arbitrary bytes. */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_graph_reader(data, size, sc_read_slurm_yaml_stream);
}
