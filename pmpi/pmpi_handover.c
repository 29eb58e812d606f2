/*
 * pmpi_handover.c - how a call routed to the MPI library (a row `mpi` of
 * the selection table, pmpi_route.c) is handed over.
 *
 * An allreduce handed over keeps what the adapter adds: the call the
 * library gets names the predefined element type of the signature (the
 * reduction class every rank computed alike) and the element count, on
 * the rank's bytes in place or packed, so a predefined op on a derived
 * type, which both libraries refuse, still works.  Only classes and ops
 * the libraries get right go (pm__library_type: 32- and 64-bit integers,
 * float and double; not Open MPI's unsigned min/max, its saturating 8- and
 * 16-bit sums, nor the pairs, packed here without MPI's padding); any
 * other runs the torus algorithm the route names for that case.  At 2
 * ranks a + b is b + a, so the result is the torus library's bit for bit.
 */
#include "pmpi_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

MPI_Datatype pm__library_type(torus_dtype et, torus_op op)
{
    int minmax = op == TORUS_OP_MIN || op == TORUS_OP_MAX;
    switch (et) {
    case TORUS_INT32: return MPI_INT32_T;
    case TORUS_INT64: return MPI_INT64_T;
    case TORUS_UINT32: return minmax ? MPI_DATATYPE_NULL : MPI_UINT32_T;
    case TORUS_UINT64: return minmax ? MPI_DATATYPE_NULL : MPI_UINT64_T;
    case TORUS_FLOAT: return MPI_FLOAT;
    case TORUS_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

int pm__allreduce_library(pm_comm *pc, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, const pm_type *t,
                          MPI_Datatype et, int n, MPI_Op op)
{
    int in_place = sbuf == MPI_IN_PLACE;
    unsigned char *d = pm__direct(rbuf, count, t);
    const void *s = in_place ? MPI_IN_PLACE : pm__direct(sbuf, count, t);
    if (d && s)
        return PMPI_Allreduce(s, d, n, et, op, pc->comm);
    /* a layout of holes on this rank: its elements packed, reduced in place there */
    size_t bytes = (size_t)count * (size_t)t->size;
    unsigned char *p = pm__scratch(pc, PM_SCRATCH_SEND, bytes, "MPI_Allreduce");
    pm__pack(pc, in_place ? rbuf : sbuf, count, dt, t, p);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, p, n, et, op, pc->comm);
    if (rc == MPI_SUCCESS)
        pm__unpack(pc, p, rbuf, count, dt, t);
    return rc;
}
