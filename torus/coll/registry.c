/*
 * registry.c - every collective algorithm, one line each, in the order
 * --help and collbench list them.  Each is defined in its own file
 * (<op>_<name>.c) as torus__coll_<op>_<name>.
 */
#include "coll_impl.h"

#define ALG(x) extern const torus__coll_alg x;
#include "registry.def"
#undef ALG

#define ALG(x) &x,
const torus__coll_alg *const torus__coll_all[] = {
#include "registry.def"
    NULL,
};
#undef ALG
