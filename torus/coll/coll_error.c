/*
 * coll_error.c - the one error path of the collectives: every failing
 * helper and entry point writes its line into the context and returns its
 * code, and the caller reads the line back.  The lowest file of the
 * folder: everything may call it, it calls nothing of the folder.
 */
#include "coll_impl.h"

#include <stdarg.h>
#include <stdio.h>

int torus__fail(torus_coll *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

const char *torus_coll_error(const torus_coll *c)
{
    /* NULL: the one call that can fail without a context, a multisend
     * call on a NULL plan */
    return c ? c->err : "multisend: the plan is NULL (used after torus_multisend_free, or never made)";
}
