/* select_table.h - the tables' parser and matcher (select_table.c) as
 * select.c and route.c use them. */
#ifndef TORUS_SELECT_TABLE_H
#define TORUS_SELECT_TABLE_H
#include "coll_impl.h"

/* The process's table (TORUS_COLL_TABLE), NULL when none, bad, or turned
 * off (torus_coll_table_off). */
const torus_coll_table *torus__coll_table_active(void);
/* How the matcher treats mpi and flat rows (bits). */
enum {
    TORUS__FIT_CALLS = 1, /* they apply: the caller can make the library's call or use the shared area */
    TORUS__FIT_FLAT = 2,  /* the shared area can run this context's calls */
    TORUS__FIT_STOP = 4,  /* one that fits but cannot be made ends the search (-2): a file's */
};
/* The one matcher (the compiled rows and a file's): the index of t's
 * first row that fits a and can run, -1 (t NULL: -1), or -2 (FIT_STOP). */
int torus__coll_table_fit(const torus_coll_table *t, const torus_coll *c, const torus__coll_args *a, int how);
/* The last byte figure from `bytes` on with no row of op in t starting or
 * stopping to fit (UINT64_MAX: none). */
uint64_t torus__coll_table_break(const torus_coll_table *t, torus_coll_op op, uint64_t bytes);
/* Row i's algorithm (NULL: an mpi or flat row) and torus_route_kind. */
const torus__coll_alg *torus__coll_table_alg(const torus_coll_table *t, int i);
int torus__coll_table_kind(const torus_coll_table *t, int i);

#endif
