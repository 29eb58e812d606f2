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

#endif
