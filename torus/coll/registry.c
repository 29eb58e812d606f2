/*
 * registry.c - every collective algorithm: one ALG line per algorithm file
 * in <op>.def, in the order --help and collbench list them.  Each is
 * defined in its own file (<op>_<name>.c) as torus__coll_<op>_<name>.
 */
#include "coll_impl.h"

#define ALG(x) extern const torus__coll_alg x;
#include "barrier.def"
#include "bcast.def"
#include "allreduce.def"
#include "alltoallv.def"
#undef ALG

#define ALG(x) &x,
const torus__coll_alg *const torus__coll_listed[] = {
#include "barrier.def"
#include "bcast.def"
#include "allreduce.def"
#include "alltoallv.def"
    NULL,
};
#undef ALG

const int torus__coll_nlisted = (int)(sizeof torus__coll_listed / sizeof *torus__coll_listed) - 1;
