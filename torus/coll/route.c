/*
 * route.c - where one call runs, decided in one place: a torus algorithm,
 * the MPI library's own call, or the node's shared area.
 *
 * Steps: (1) an algorithm forced by TORUS_COLL_<OP> runs, always; (2) the
 * first fitting row of the file's table (TORUS_COLL_TABLE), its mpi and
 * flat rows when the caller can make them; (3) the first fitting row of
 * the compiled table (select.table), its mpi and flat rows only when the
 * caller allows them (the MPI adapter without a file and without
 * TORUS_COLL_LIBRARY=never); (4) the torus library's own choice.  A route
 * that is not a torus algorithm carries the one step (4) gives, for a
 * call the caller cannot hand over after all.
 *
 * Every input is a fact all ranks share (the tables agreed at start, the
 * op, the context's size, shape, nodes and transport, the byte figure MPI
 * requires to match, the caller's bits, which depend only on agreed
 * settings and agreed set-up outcomes), so every rank takes the same
 * route.  The answer holds over a range of byte figures (hi: up to the
 * next row bound of either table), so a caller can cache it per range and
 * decide a call with one lookup (pmpi/pmpi_route.c).
 *
 * Cost: one scan of each table's rows of the op, at most 4096 + the
 * compiled rows.
 */
#include "coll_impl.h"
#include "select_table.h"
#include "kit_mpi.h"

_Static_assert((int)TORUS_COLL_LIB_MPICH == (int)KIT_MPI_MPICH && (int)TORUS_COLL_LIB_OPENMPI == (int)KIT_MPI_OPENMPI,
               "the library column and kit_mpi_built_for number the libraries alike");

#include <string.h>

void torus_coll_route_of(const torus_coll *c, torus_coll_op op, uint64_t bytes, int uniform, int calls,
                         torus_coll_route *out)
{
    memset(out, 0, sizeof *out);
    out->hi = UINT64_MAX;
    if (op < 0 || op >= TORUS_COLL_NCOLL) {
        out->name = "";
        return;
    }
    torus__coll_args a = {.op = op, .bytes = (size_t)bytes, .uniform = op == TORUS_COLL_ALLTOALLV && uniform};
    const torus__coll_alg *alg = c->forced[op];
    if (alg) {
        out->alg = alg;
        out->name = alg->name;
        return;
    }
    const torus_coll_table *file = torus__coll_table_active(), *comp = torus_coll_table_compiled();
    uint64_t h1 = torus__coll_table_break(file, op, bytes), h2 = torus__coll_table_break(comp, op, bytes);
    out->hi = h1 < h2 ? h1 : h2;
    int flat = calls & TORUS_ROUTE_FLAT_OK ? TORUS__FIT_FLAT : 0;
    const torus_coll_table *t = file;
    int row = torus__coll_table_fit(file, c, &a, (calls & TORUS_ROUTE_FILE_CALLS ? TORUS__FIT_CALLS : 0) | flat |
                                                     TORUS__FIT_STOP);
    out->from_file = row >= 0;
    if (row == -1) {
        t = comp;
        row = torus__coll_table_fit(comp, c, &a, (calls & TORUS_ROUTE_COMPILED_CALLS ? TORUS__FIT_CALLS : 0) | flat);
    }
    out->kind = row >= 0 ? (torus_route_kind)torus__coll_table_kind(t, row) : TORUS_ROUTE_TORUS;
    alg = row >= 0 && out->kind == TORUS_ROUTE_TORUS ? torus__coll_table_alg(t, row) : torus__coll_select(c, &a);
    out->alg = alg;
    out->name = out->kind == TORUS_ROUTE_LIBRARY ? TORUS_COLL_TABLE_LIBRARY
                : out->kind == TORUS_ROUTE_FLAT  ? TORUS_COLL_TABLE_FLAT
                : alg                            ? alg->name
                                                 : "";
}

int torus_coll_table_wants_library(const torus_coll *c, torus_coll_op op, size_t bytes, int uniform)
{
    if (!c || op < 0 || op >= TORUS_COLL_NCOLL)
        return 0;
    torus_coll_route r;
    torus_coll_route_of(c, op, bytes, uniform, TORUS_ROUTE_FILE_CALLS, &r);
    return r.kind == TORUS_ROUTE_LIBRARY;
}
