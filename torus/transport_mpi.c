/*
 * transport_mpi.c - the packet layer over MPI point-to-point (paper 003's
 * packet/message split): Isend/Irecv/Test on one communicator per dimension.
 *
 * The posted receive of a dimension is that dimension's receive bucket: the
 * next packet is accepted only after the algorithm releases the previous
 * one.  Send buffers are swapped with the algorithm's bucket (no copy).
 * MPI's non-overtaking order on a communicator makes a sender's finish mark
 * arrive after all its packets on that dimension.
 */
#include "torus_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 11
#define TAG_LAST 12


typedef struct dim_state {
    MPI_Comm comm;
    int size;
    int nslots;
    uint64_t **sbuf;
    MPI_Request *sreq;
    int *swords;  /* words of each slot's send until it tests complete */
    int sending;  /* their sum */
    uint64_t *rbuf;
    MPI_Request rreq;
    int held;
    torus_packet pkt;
} dim_state;

struct torus_mpi {
    int ndims, cap;
    int sync; /* packets go by MPI_Issend: complete once the receiver matched them */
    dim_state dim[TORUS_MAX_DIMS];
    /* message interface: the whole communicator, a table of requests */
    MPI_Comm world;
    MPI_Request *req;
    int *free_ids, nfree, nreq;
};

/* Slot s of ds has completed: its words are no longer in flight. */
static void slot_done(dim_state *ds, int s)
{
    ds->sending -= ds->swords[s];
    ds->swords[s] = 0;
}

static int mpi_can_send(void *impl, int d)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    for (int s = 0; s < ds->nslots; s++) {
        if (ds->sreq[s] == MPI_REQUEST_NULL)
            return 1;
        int done;
        KIT_MPI_CHECK(MPI_Test(&ds->sreq[s], &done, MPI_STATUS_IGNORE));
        if (done) {
            slot_done(ds, s);
            return 1;
        }
    }
    return 0;
}

static int mpi_sending(void *impl, int d)
{
    return ((torus_mpi *)impl)->dim[d].sending;
}

static int mpi_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    for (int s = 0; s < ds->nslots; s++)
        if (ds->sreq[s] == MPI_REQUEST_NULL) {
            uint64_t *tmp = ds->sbuf[s];
            ds->sbuf[s] = *buf;
            *buf = tmp;
            int tag = last ? TAG_LAST : TAG_DATA;
            if (((torus_mpi *)impl)->sync)
                KIT_MPI_CHECK(MPI_Issend(ds->sbuf[s], n, MPI_UINT64_T, to, tag, ds->comm, &ds->sreq[s]));
            else
                KIT_MPI_CHECK(MPI_Isend(ds->sbuf[s], n, MPI_UINT64_T, to, tag, ds->comm, &ds->sreq[s]));
            ds->swords[s] = n;
            ds->sending += n;
            return 0;
        }
    return -1; /* caller skipped can_send() */
}

static int mpi_poll(void *impl, int d, torus_packet *pkt)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    if (!ds->held) {
        if (ds->rreq == MPI_REQUEST_NULL)
            return 0;
        int done;
        MPI_Status st;
        KIT_MPI_CHECK(MPI_Test(&ds->rreq, &done, &st));
        if (!done)
            return 0;
        int n;
        KIT_MPI_CHECK(MPI_Get_count(&st, MPI_UINT64_T, &n));
        ds->pkt.data = ds->rbuf;
        ds->pkt.n = n;
        ds->pkt.last = st.MPI_TAG == TAG_LAST;
        ds->held = 1;
    }
    *pkt = ds->pkt;
    return 1;
}

static void post_recv(torus_mpi *mp, int d)
{
    dim_state *ds = &mp->dim[d];
    KIT_MPI_CHECK(MPI_Irecv(ds->rbuf, mp->cap, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, ds->comm, &ds->rreq));
}

static void mpi_release(void *impl, int d)
{
    torus_mpi *mp = impl;
    mp->dim[d].held = 0;
    post_recv(mp, d);
}

static int mpi_quiescent(void *impl)
{
    torus_mpi *mp = impl;
    for (int d = 0; d < mp->ndims; d++) {
        dim_state *ds = &mp->dim[d];
        for (int s = 0; s < ds->nslots; s++)
            if (ds->sreq[s] != MPI_REQUEST_NULL) {
                int done;
                KIT_MPI_CHECK(MPI_Test(&ds->sreq[s], &done, MPI_STATUS_IGNORE));
                if (!done)
                    return 0;
                slot_done(ds, s);
            }
    }
    return 1;
}

/* A free slot of the request table, growing it; -1 on out of memory. */
static int req_slot(torus_mpi *mp)
{
    if (!mp->nfree) {
        int n = mp->nreq ? 2 * mp->nreq : 64;
        MPI_Request *nr = realloc(mp->req, (size_t)n * sizeof *nr);
        if (!nr)
            return -1;
        mp->req = nr;
        int *nf = realloc(mp->free_ids, (size_t)n * sizeof *nf);
        if (!nf)
            return -1;
        mp->free_ids = nf;
        for (int i = n - 1; i >= mp->nreq; i--) {
            mp->req[i] = MPI_REQUEST_NULL;
            mp->free_ids[mp->nfree++] = i;
        }
        mp->nreq = n;
    }
    return mp->free_ids[--mp->nfree];
}

/* A message of more bytes than an int counts (MPI's count argument): one
 * datatype covering them, whole GiB then the rest, so that it is still
 * one message the receiver matches the same way.  Freed at once: MPI keeps
 * a type alive until the requests using it complete. */
static MPI_Datatype big_type(size_t bytes)
{
    const size_t gib = (size_t)1 << 30;
    MPI_Datatype g, t;
    KIT_MPI_CHECK(MPI_Type_contiguous((int)gib, MPI_BYTE, &g));
    int bl[2] = {(int)(bytes / gib), (int)(bytes % gib)};
    MPI_Aint disp[2] = {0, (MPI_Aint)(bytes - bytes % gib)};
    MPI_Datatype parts[2] = {g, MPI_BYTE};
    KIT_MPI_CHECK(MPI_Type_create_struct(2, bl, disp, parts, &t));
    KIT_MPI_CHECK(MPI_Type_commit(&t));
    KIT_MPI_CHECK(MPI_Type_free(&g));
    return t;
}

static int mpi_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r)
{
    torus_mpi *mp = impl;
    int id = req_slot(mp);
    r->id = id;
    if (id < 0)
        return -1;
    if (bytes <= INT_MAX) {
        KIT_MPI_CHECK(MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, mp->world, &mp->req[id]));
    } else {
        MPI_Datatype t = big_type(bytes);
        KIT_MPI_CHECK(MPI_Isend(buf, 1, t, dest, tag, mp->world, &mp->req[id]));
        KIT_MPI_CHECK(MPI_Type_free(&t));
    }
    return 0;
}

static int mpi_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r)
{
    torus_mpi *mp = impl;
    int id = req_slot(mp);
    r->id = id;
    if (id < 0)
        return -1;
    if (bytes <= INT_MAX) {
        KIT_MPI_CHECK(MPI_Irecv(buf, (int)bytes, MPI_BYTE, src, tag, mp->world, &mp->req[id]));
    } else {
        MPI_Datatype t = big_type(bytes);
        KIT_MPI_CHECK(MPI_Irecv(buf, 1, t, src, tag, mp->world, &mp->req[id]));
        KIT_MPI_CHECK(MPI_Type_free(&t));
    }
    return 0;
}

static int mpi_test(void *impl, torus_req *r)
{
    torus_mpi *mp = impl;
    if (r->id < 0)
        return 1;
    int done;
    int rc = MPI_Test(&mp->req[r->id], &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        /* a message longer than the posted buffer: the caller's error */
        int cls = 0;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_TRUNCATE)
            KIT_MPI_CHECK(rc);
        done = -1;
    }
    if (!done)
        return 0;
    mp->req[r->id] = MPI_REQUEST_NULL;
    mp->free_ids[mp->nfree++] = r->id;
    r->id = -1;
    return done;
}

void torus_mpi_bind(torus_mpi *mp, torus_transport *t)
{
    *t = (torus_transport){.impl = mp,
                           .can_send = mpi_can_send,
                           .send = mpi_send,
                           .poll = mpi_poll,
                           .release = mpi_release,
                           .quiescent = mpi_quiescent,
                           .sending = mpi_sending,
                           .isend = mpi_isend,
                           .irecv = mpi_irecv,
                           .test = mpi_test,
                           .reduced = NULL};
}

int torus_mpi_create(torus_mpi **out, MPI_Comm comm, const torus_map *m, int me, int cap,
                     int outstanding, char *err, size_t errlen)
{
    const torus_shape *s = &m->shape;
    torus_mpi *mp = calloc(1, sizeof *mp);
    int ok = mp != NULL;
    if (mp) {
        /* outstanding 0: the message interface only (collectives) */
        mp->ndims = outstanding > 0 ? s->ndims : 0;
        mp->cap = cap;
        mp->world = MPI_COMM_NULL;
    }
    const int *c = &m->coords[me * s->ndims];
    for (int d = 0; ok && d < mp->ndims; d++) {
        dim_state *ds = &mp->dim[d];
        ds->nslots = outstanding;
        ds->sbuf = calloc((size_t)outstanding, sizeof *ds->sbuf);
        ds->sreq = malloc((size_t)outstanding * sizeof *ds->sreq);
        ds->swords = calloc((size_t)outstanding, sizeof *ds->swords);
        ds->rbuf = malloc((size_t)(cap + TORUS_BUF_SLACK_WORDS) * sizeof(uint64_t));
        ok = ds->sbuf && ds->sreq && ds->swords && ds->rbuf;
        for (int k = 0; ok && k < outstanding; k++) {
            ds->sbuf[k] = malloc((size_t)(cap + TORUS_BUF_SLACK_WORDS) * sizeof(uint64_t));
            ds->sreq[k] = MPI_REQUEST_NULL;
            ok = ds->sbuf[k] != NULL;
        }
        ds->rreq = MPI_REQUEST_NULL;
    }
    if (!torus_all_ok(comm, ok)) {
        snprintf(err, errlen, "out of memory for the transport buffers");
        torus_mpi_destroy(mp);
        return -1;
    }
    for (int d = 0; d < mp->ndims; d++)
        mp->dim[d].comm = MPI_COMM_NULL; /* torus_mpi_destroy frees what was made */
    if (torus_comm_made(comm, MPI_Comm_dup(comm, &mp->world), &mp->world, "MPI_Comm_dup", err, errlen)) {
        torus_mpi_destroy(mp);
        return -1;
    }
    KIT_MPI_CHECK(MPI_Comm_set_errhandler(mp->world, MPI_ERRORS_RETURN));
    for (int d = 0; d < mp->ndims; d++) {
        /* Colour: my linear position with coordinate d zeroed; key: coordinate d. */
        int cc[TORUS_MAX_DIMS];
        memcpy(cc, c, (size_t)s->ndims * sizeof(int));
        cc[d] = 0;
        if (torus_comm_made(comm, MPI_Comm_split(comm, torus_map_linear(s, cc), c[d], &mp->dim[d].comm),
                            &mp->dim[d].comm, "MPI_Comm_split", err, errlen)) {
            torus_mpi_destroy(mp);
            return -1;
        }
        KIT_MPI_CHECK(MPI_Comm_set_errhandler(mp->dim[d].comm, MPI_ERRORS_RETURN));
        KIT_MPI_CHECK(MPI_Comm_size(mp->dim[d].comm, &mp->dim[d].size));
        if (mp->dim[d].size > 1)
            post_recv(mp, d);
    }
    *out = mp;
    return 0;
}

int torus_mpi_reset(torus_mpi *mp)
{
    for (int d = 0; d < mp->ndims; d++) {
        dim_state *ds = &mp->dim[d];
        for (int s = 0; s < ds->nslots; s++) {
            KIT_MPI_CHECK(MPI_Wait(&ds->sreq[s], MPI_STATUS_IGNORE));
            slot_done(ds, s);
        }
        if (ds->held) {
            ds->held = 0;
            post_recv(mp, d);
        }
        if (ds->rreq != MPI_REQUEST_NULL) {
            KIT_MPI_CHECK(MPI_Cancel(&ds->rreq));
            KIT_MPI_CHECK(MPI_Wait(&ds->rreq, MPI_STATUS_IGNORE));
        }
        if (ds->size > 1)
            post_recv(mp, d);
    }
    return 0;
}

void torus_mpi_destroy(torus_mpi *mp)
{
    if (!mp)
        return;
    for (int d = 0; d < mp->ndims; d++) {
        dim_state *ds = &mp->dim[d];
        if (ds->rreq != MPI_REQUEST_NULL) {
            MPI_Cancel(&ds->rreq);
            MPI_Wait(&ds->rreq, MPI_STATUS_IGNORE);
        }
        for (int s = 0; ds->sbuf && s < ds->nslots; s++) {
            if (ds->sreq && ds->sreq[s] != MPI_REQUEST_NULL)
                MPI_Wait(&ds->sreq[s], MPI_STATUS_IGNORE);
            free(ds->sbuf[s]);
        }
        free(ds->sbuf);
        free(ds->sreq);
        free(ds->swords);
        free(ds->rbuf);
        if (ds->comm != MPI_COMM_NULL && ds->comm != 0)
            MPI_Comm_free(&ds->comm);
    }
    for (int i = 0; i < mp->nreq; i++)
        if (mp->req[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&mp->req[i]);
            MPI_Wait(&mp->req[i], MPI_STATUS_IGNORE);
        }
    free(mp->req);
    free(mp->free_ids);
    if (mp->world != MPI_COMM_NULL)
        MPI_Comm_free(&mp->world);
    free(mp);
}

void torus_mpi_set_sync(torus_mpi *mp, int sync)
{
    mp->sync = sync;
}
