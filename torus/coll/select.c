/*
 * select.c - the compiled selection table: torus/coll/select.table, put
 * into the library at build time, parsed once by the table file's own
 * parser (select_table.c), and the torus library's own choice from it.
 *
 * Why a data file: the rows and the measurements behind them (command,
 * CPU, date, ratio: the file's comments) live in one place, in the format
 * a machine's own table has (TORUS_COLL_TABLE, written by `collbench
 * --tune`), so a tuned file and the default read alike, and the adapter's
 * rows (the MPI library's call, the node's shared area) are rows of the
 * same table, matched by the same function (route.c decides; the
 * matcher is select_table.c's).
 *
 * The bytes are put into the object by the assembler (.incbin) from the
 * path relative to the top of the tree, where the one Makefile compiles
 * everything; the Makefile makes the object depend on the file.
 */
#include "coll_impl.h"
#include "select_table.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__asm__(".pushsection .rodata\n"
        ".globl torus__coll_select_text\n"
        ".hidden torus__coll_select_text\n"
        "torus__coll_select_text:\n"
        ".incbin \"torus/coll/select.table\"\n"
        ".byte 0\n"
        ".popsection\n");
extern const char torus__coll_select_text[];

static torus_coll_table *compiled;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

/* Once per process (threads may select at once on different contexts:
 * the MPI adapter under MPI_THREAD_MULTIPLE).  The file is checked by the
 * unit tests (test_coll_table), so a failure here is a broken build:
 * said once, and the fallback below decides. */
static void build_rows(void)
{
    char e[600];
    /* read-only mode: fmemopen never writes the buffer */
    FILE *f = fmemopen((void *)(uintptr_t)torus__coll_select_text, strlen(torus__coll_select_text), "r");
    if (!f || torus_coll_table_stream(&compiled, f, "torus/coll/select.table (compiled in)", e, sizeof e)) {
        if (f)
            fprintf(stderr, "torus_coll: %s\n", e);
        compiled = NULL;
    }
    if (f)
        fclose(f);
}

const torus_coll_table *torus_coll_table_compiled(void)
{
    pthread_once(&rows_once, build_rows);
    return compiled;
}

const torus__coll_alg *torus__coll_select(const torus_coll *c, const torus__coll_args *a)
{
    /* a file's rows first; its fitting mpi or flat row: the compiled table decides */
    const torus_coll_table *file = torus__coll_table_active(), *t = torus_coll_table_compiled();
    int row = torus__coll_table_fit(file, c, a, TORUS__FIT_STOP);
    if (row >= 0)
        return torus__coll_table_alg(file, row);
    row = torus__coll_table_fit(t, c, a, 0);
    if (row >= 0)
        return torus__coll_table_alg(t, row);
    /* no row fits (a table row names an algorithm whose preconditions fail
     * here): the first registered algorithm of the op that can run */
    for (int i = 0; i < torus__coll_nlisted; i++) {
        const torus__coll_alg *alg = torus__coll_listed[i];
        if (alg->op == a->op && alg->ok(c, a))
            return alg;
    }
    /* none can: the op's last torus row (the catch-all), to report its error */
    const torus__coll_alg *last = NULL;
    for (int r = 0; r < torus_coll_table_rows(t); r++)
        if (torus_coll_table_row_at(t, r)->op == a->op && torus__coll_table_alg(t, r))
            last = torus__coll_table_alg(t, r);
    return last ? last : torus__coll_find(a->op, torus_coll_algorithms(a->op)[0]);
}
