/* select_table.h - the hook of select.c into the table from a file
 * (select_table.c, TORUS_COLL_TABLE). */
#ifndef TORUS_SELECT_TABLE_H
#define TORUS_SELECT_TABLE_H
#include "coll_impl.h"

/* The file table's choice for these arguments (first row that fits and
 * whose algorithm's preconditions hold), or NULL: no file, the ranks
 * disagreed (torus_coll_table_off), or no row fits: the compiled table
 * decides. */
const torus__coll_alg *torus__coll_table_pick(const torus_coll *c, const torus__coll_args *a);
/* The one matcher (the compiled rows of select.c and a file's): the index
 * of t's first row that fits a and can run, or -1 (t NULL: -1). */
int torus__coll_table_fit(const torus_coll_table *t, const torus_coll *c, const torus__coll_args *a);
/* Row i's algorithm (NULL: an mpi row). */
const torus__coll_alg *torus__coll_table_alg(const torus_coll_table *t, int i);

#endif
