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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 11
#define TAG_LAST 12

#define TCHECK(call)                                                                 \
    do {                                                                             \
        int tc__ = (call);                                                           \
        if (tc__ != MPI_SUCCESS) {                                                   \
            char tm__[MPI_MAX_ERROR_STRING];                                         \
            int tl__ = 0;                                                            \
            MPI_Error_string(tc__, tm__, &tl__);                                     \
            fprintf(stderr, "torus: MPI error at %s:%d in %s: %s\n", __FILE__,       \
                    __LINE__, #call, tm__);                                          \
            MPI_Abort(MPI_COMM_WORLD, 3);                                            \
        }                                                                            \
    } while (0)

typedef struct dim_state {
    MPI_Comm comm;
    int size;
    int nslots;
    uint64_t **sbuf;
    MPI_Request *sreq;
    uint64_t *rbuf;
    MPI_Request rreq;
    int held;
    torus_packet pkt;
} dim_state;

struct torus_mpi {
    int ndims, cap;
    dim_state dim[TORUS_MAX_DIMS];
};

static int tm_can_send(void *impl, int d)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    for (int s = 0; s < ds->nslots; s++) {
        if (ds->sreq[s] == MPI_REQUEST_NULL)
            return 1;
        int done;
        TCHECK(MPI_Test(&ds->sreq[s], &done, MPI_STATUS_IGNORE));
        if (done)
            return 1;
    }
    return 0;
}

static int tm_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    for (int s = 0; s < ds->nslots; s++)
        if (ds->sreq[s] == MPI_REQUEST_NULL) {
            uint64_t *tmp = ds->sbuf[s];
            ds->sbuf[s] = *buf;
            *buf = tmp;
            TCHECK(MPI_Isend(ds->sbuf[s], n, MPI_UINT64_T, to, last ? TAG_LAST : TAG_DATA, ds->comm, &ds->sreq[s]));
            return 0;
        }
    return -1; /* caller skipped can_send() */
}

static int tm_poll(void *impl, int d, torus_packet *pkt)
{
    dim_state *ds = &((torus_mpi *)impl)->dim[d];
    if (!ds->held) {
        if (ds->rreq == MPI_REQUEST_NULL)
            return 0;
        int done;
        MPI_Status st;
        TCHECK(MPI_Test(&ds->rreq, &done, &st));
        if (!done)
            return 0;
        int n;
        TCHECK(MPI_Get_count(&st, MPI_UINT64_T, &n));
        ds->pkt.data = ds->rbuf;
        ds->pkt.n = n;
        ds->pkt.last = st.MPI_TAG == TAG_LAST;
        ds->pkt.src_coord = st.MPI_SOURCE;
        ds->held = 1;
    }
    *pkt = ds->pkt;
    return 1;
}

static void post_recv(torus_mpi *tm, int d)
{
    dim_state *ds = &tm->dim[d];
    TCHECK(MPI_Irecv(ds->rbuf, tm->cap, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, ds->comm, &ds->rreq));
}

static void tm_release(void *impl, int d)
{
    torus_mpi *tm = impl;
    tm->dim[d].held = 0;
    post_recv(tm, d);
}

static int tm_quiescent(void *impl)
{
    torus_mpi *tm = impl;
    for (int d = 0; d < tm->ndims; d++) {
        dim_state *ds = &tm->dim[d];
        for (int s = 0; s < ds->nslots; s++)
            if (ds->sreq[s] != MPI_REQUEST_NULL) {
                int done;
                TCHECK(MPI_Test(&ds->sreq[s], &done, MPI_STATUS_IGNORE));
                if (!done)
                    return 0;
            }
    }
    return 1;
}

void torus_mpi_bind(torus_mpi *tm, torus_transport *t)
{
    t->impl = tm;
    t->can_send = tm_can_send;
    t->send = tm_send;
    t->poll = tm_poll;
    t->release = tm_release;
    t->quiescent = tm_quiescent;
}

int torus_mpi_create(torus_mpi **out, MPI_Comm comm, const torus_map *m, int me, int cap,
                     int outstanding, char *err, size_t errlen)
{
    const torus_shape *s = &m->shape;
    torus_mpi *tm = calloc(1, sizeof *tm);
    int ok = tm != NULL;
    if (tm) {
        tm->ndims = s->ndims;
        tm->cap = cap;
    }
    const int *c = &m->coords[me * s->ndims];
    for (int d = 0; ok && d < s->ndims; d++) {
        dim_state *ds = &tm->dim[d];
        ds->nslots = outstanding;
        ds->sbuf = calloc((size_t)outstanding, sizeof *ds->sbuf);
        ds->sreq = malloc((size_t)outstanding * sizeof *ds->sreq);
        ds->rbuf = malloc((size_t)cap * sizeof(uint64_t) + 8);
        ok = ds->sbuf && ds->sreq && ds->rbuf;
        for (int k = 0; ok && k < outstanding; k++) {
            ds->sbuf[k] = malloc((size_t)cap * sizeof(uint64_t) + 8);
            ds->sreq[k] = MPI_REQUEST_NULL;
            ok = ds->sbuf[k] != NULL;
        }
        ds->rreq = MPI_REQUEST_NULL;
    }
    int all_ok;
    TCHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
    if (!all_ok) {
        snprintf(err, errlen, "out of memory for the transport buffers");
        torus_mpi_destroy(tm);
        return -1;
    }
    for (int d = 0; d < s->ndims; d++) {
        /* Colour: my linear position with coordinate d zeroed; key: coordinate d. */
        int cc[TORUS_MAX_DIMS];
        memcpy(cc, c, (size_t)s->ndims * sizeof(int));
        cc[d] = 0;
        TCHECK(MPI_Comm_split(comm, torus_map_linear(s, cc), c[d], &tm->dim[d].comm));
        TCHECK(MPI_Comm_set_errhandler(tm->dim[d].comm, MPI_ERRORS_RETURN));
        TCHECK(MPI_Comm_size(tm->dim[d].comm, &tm->dim[d].size));
        if (tm->dim[d].size > 1)
            post_recv(tm, d);
    }
    *out = tm;
    return 0;
}

int torus_mpi_reset(torus_mpi *tm)
{
    for (int d = 0; d < tm->ndims; d++) {
        dim_state *ds = &tm->dim[d];
        for (int s = 0; s < ds->nslots; s++)
            TCHECK(MPI_Wait(&ds->sreq[s], MPI_STATUS_IGNORE));
        if (ds->held) {
            ds->held = 0;
            post_recv(tm, d);
        }
        if (ds->rreq != MPI_REQUEST_NULL) {
            TCHECK(MPI_Cancel(&ds->rreq));
            TCHECK(MPI_Wait(&ds->rreq, MPI_STATUS_IGNORE));
        }
        if (ds->size > 1)
            post_recv(tm, d);
    }
    return 0;
}

void torus_mpi_destroy(torus_mpi *tm)
{
    if (!tm)
        return;
    for (int d = 0; d < tm->ndims; d++) {
        dim_state *ds = &tm->dim[d];
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
        free(ds->rbuf);
        if (ds->comm != MPI_COMM_NULL && ds->comm != 0)
            MPI_Comm_free(&ds->comm);
    }
    free(tm);
}

int torus_node_layout(MPI_Comm comm, int *node, int *local, int *per_node, int *nnodes)
{
    int rank, size;
    TCHECK(MPI_Comm_rank(comm, &rank));
    TCHECK(MPI_Comm_size(comm, &size));
    MPI_Comm nc;
    TCHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &nc));
    int lr, ls, leader;
    TCHECK(MPI_Comm_rank(nc, &lr));
    TCHECK(MPI_Comm_size(nc, &ls));
    leader = rank;
    TCHECK(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, nc));
    TCHECK(MPI_Comm_free(&nc));
    /* Node number = how many node leaders have a smaller rank. */
    int is_leader = leader == rank;
    int *flags = malloc((size_t)size * sizeof(int));
    if (!flags)
        return -1;
    TCHECK(MPI_Allgather(&is_leader, 1, MPI_INT, flags, 1, MPI_INT, comm));
    int nn = 0, mine = 0;
    for (int r = 0; r < size; r++) {
        if (r == leader)
            mine = nn;
        nn += flags[r];
    }
    free(flags);
    int mn = ls, mx = ls;
    TCHECK(MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_INT, MPI_MIN, comm));
    TCHECK(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, comm));
    *node = mine;
    *local = lr;
    *per_node = mn == mx ? ls : -1;
    *nnodes = nn;
    return 0;
}
