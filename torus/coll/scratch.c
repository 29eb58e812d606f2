/*
 * scratch.c - scratch memory owned by one call: blocks chained on the
 * context and freed together when the dispatcher (coll.c) ends the call.
 */
#include "coll_impl.h"

#include <stdlib.h>

typedef struct torus__scratch_block {
    struct torus__scratch_block *next;
    max_align_t data[];
} scratch_block;

void *torus__scratch(torus_coll *c, size_t bytes)
{
    scratch_block *b = malloc(sizeof *b + bytes + 16);
    if (!b)
        return NULL;
    b->next = c->scratch;
    c->scratch = b;
    return b->data;
}

void torus__scratch_free(torus_coll *c)
{
    while (c->scratch) {
        scratch_block *nx = c->scratch->next;
        free(c->scratch);
        c->scratch = nx;
    }
}
