/*
 * registry.c - every collective algorithm: one ALG line per algorithm file
 * in <op>.def, in the order --help and collbench list them.  Each is
 * defined in its own file (<op>_<name>.c) as torus__coll_<op>_<name>.
 * Also the lookups of the list: an algorithm by name, the names per op,
 * the ops' names and the settings that force an algorithm.
 */
#include "coll_impl.h"

#include <pthread.h>
#include <string.h>

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

static const char *const op_names[TORUS_COLL_NCOLL] = {"barrier", "bcast", "allreduce", "alltoallv"};

const char *torus_coll_op_name(torus_coll_op op)
{
    return op >= 0 && op < TORUS_COLL_NCOLL ? op_names[op] : "?";
}

/* the one list of the settings that force an algorithm (declared in
 * kit/settings.c; the adapter checks them through this) */
static const char *const op_settings[TORUS_COLL_NCOLL] = {"TORUS_COLL_BARRIER", "TORUS_COLL_BCAST",
                                                          "TORUS_COLL_ALLREDUCE", "TORUS_COLL_ALLTOALLV"};

const char *torus_coll_op_setting(torus_coll_op op)
{
    return op >= 0 && op < TORUS_COLL_NCOLL ? op_settings[op] : NULL;
}

const torus__coll_alg *torus__coll_find(torus_coll_op op, const char *name)
{
    for (int i = 0; i < torus__coll_nlisted; i++)
        if (torus__coll_listed[i] && torus__coll_listed[i]->op == op && !strcmp(torus__coll_listed[i]->name, name))
            return torus__coll_listed[i];
    return NULL;
}

/* The registered names per op, NULL-terminated; filled once per process
 * (threads may ask at once: the MPI adapter's stats under
 * MPI_THREAD_MULTIPLE). */
static const char *alg_names[TORUS_COLL_NCOLL][32];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void fill_names(void)
{
    int k[TORUS_COLL_NCOLL] = {0};
    for (int i = 0; i < torus__coll_nlisted; i++) {
        if (!torus__coll_listed[i])
            continue;
        int o = torus__coll_listed[i]->op;
        if (k[o] < 31)
            alg_names[o][k[o]++] = torus__coll_listed[i]->name;
    }
}

const char *const *torus_coll_algorithms(torus_coll_op op)
{
    pthread_once(&names_once, fill_names);
    return op >= 0 && op < TORUS_COLL_NCOLL ? alg_names[op] : alg_names[0] + 31;
}
