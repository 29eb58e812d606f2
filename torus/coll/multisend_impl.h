/*
 * multisend_impl.h - internal to torus/coll/: the plan every multisend
 * algorithm fills and replays (multisend.c holds the API, the pattern
 * check and the choice; multisend_<name>.c one algorithm each).
 */
#ifndef TORUS_MULTISEND_IMPL_H
#define TORUS_MULTISEND_IMPL_H

#include "coll_impl.h"

/* A copy of `len` bytes from offset `from` of one buffer to offset `to`
 * of another: what a plan replays instead of working the layout out anew. */
typedef struct torus__ms_seg {
    size_t from, to, len;
} torus__ms_seg;

typedef struct torus__ms_alg {
    const char *name;
    const char *summary;
    /* Collective, once, after multisend.c has checked the pattern on every
     * rank: builds p->impl.  0 or an error code (the same on every rank
     * unless out of memory). */
    int (*setup)(torus_multisend *p);
    /* Posts the exchange of p->sbuf into p->rbuf (self blocks are copied
     * by multisend.c). */
    int (*start)(torus_multisend *p);
    /* Moves the started exchange on without blocking: 1 done, 0 not yet,
     * or a negative code once every request of the call has finished. */
    int (*progress)(torus_multisend *p);
    void (*release)(torus_multisend *p);
} torus__ms_alg;

struct torus_multisend {
    torus_coll *c;
    const torus__ms_alg *alg;
    /* the spec, copied */
    int ndest, nsrc;
    int *dests, *srcs;
    size_t *scounts, *sdispls, *rcounts, *rdispls;
    /* blocks to myself: sbuf -> rbuf copies */
    torus__ms_seg *self;
    int nself;
    /* the started call */
    int active;
    int tag_seq; /* the context's call number this call's messages carry */
    const unsigned char *sbuf;
    unsigned char *rbuf;
    void *impl; /* the algorithm's replayable state */
};

extern const torus__ms_alg torus__ms_direct;
extern const torus__ms_alg torus__ms_routed;

/* isend/irecv with the started call's tag (its messages may be sent after
 * other collectives have run on the context, inside a later wait). */
int torus__ms_isend(torus_multisend *p, int peer, const void *buf, size_t bytes, torus_req *r);
int torus__ms_irecv(torus_multisend *p, int peer, void *buf, size_t bytes, torus_req *r);
/* Tests every request of r[0..n): the number still open, or
 * TORUS_COLL_ETRUNC once none is open and one of them was too short
 * (*bad remembers it across calls). */
int torus__ms_test_all(torus_multisend *p, torus_req *r, int n, int *bad);
/* Replays copies from src to dst. */
void torus__ms_copy(const torus__ms_seg *s, int n, unsigned char *dst, const unsigned char *src);
/* Joins adjacent segments (contiguous in both buffers); returns the new count. */
int torus__ms_merge(torus__ms_seg *s, int n);

#endif
