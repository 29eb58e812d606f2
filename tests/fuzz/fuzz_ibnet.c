/* fuzz_ibnet.c - sparsest_cut's ibnetdiscover dump reader on arbitrary bytes. */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_graph_reader(data, size, sc_read_ibnet_stream);
}
