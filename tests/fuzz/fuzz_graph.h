/*
 * fuzz_graph.h - the one body of the graph-reader harnesses (fuzz_edgelist,
 * fuzz_metis, fuzz_ibnet, fuzz_slurm, fuzz_slurm_yaml): they differ only in
 * the reader they call.
 */
#ifndef FUZZ_GRAPH_H
#define FUZZ_GRAPH_H

#include "fuzz.h"
#include "sparsest_cut.h"

/* A graph reader (one of sparsest_cut's stream readers) on the
 * input: an error must be one line, a graph must hold together (every id
 * inside 0..n-1).  Graphs of up to 2^16 nodes: the same code paths as
 * 2^26, without spending each execution on a 0.5 GiB allocation. */
static inline int fuzz_graph_reader(const uint8_t *data, size_t size,
                                    int (*read)(FILE *, const char *, long, sc_edges *, char *, size_t))
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    sc_edges e;
    char err[512] = "";
    int rc = read(f, "input", 1L << 16, &e, err, sizeof err);
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

#endif
