/*
 * hpcc/mpi1_compat.h - HPCC 1.5 on MPI-3 and later libraries.
 *
 * HPCC 1.5.0 (2016, its last release) calls two MPI-1 functions that MPI-3
 * removed, both in HPL's hpl/src/comm/HPL_packL.c: MPI_Address and
 * MPI_Type_struct.  Open MPI 4 no longer declares them (its mpi.h turns each
 * name into a compile-time error unless the library was built with
 * --enable-mpi1-compatibility, which Debian's is not); MPICH 4 still has
 * them, deprecated.  The build force-includes this header (gcc -include)
 * before every HPCC file, so HPCC's sources stay as they are and the same
 * code runs under both libraries: each removed name becomes its MPI-2 form,
 * which has the same arguments (MPI-2.0, sec. 4.14: MPI_Get_address,
 * MPI_Type_create_struct, with MPI_Aint displacements in both).
 */
#ifndef HPCC_RA_MPI1_COMPAT_H
#define HPCC_RA_MPI1_COMPAT_H

#include <mpi.h>

/* Open MPI's mpi.h defines the removed names as macros that fail the
 * build; MPICH's declares them as functions.  Either way, ours win. */
#undef MPI_Address
#undef MPI_Type_struct
#define MPI_Address(location, address) MPI_Get_address((location), (address))
#define MPI_Type_struct(count, blocklens, displs, types, newtype) \
    MPI_Type_create_struct((count), (blocklens), (displs), (types), (newtype))

#endif
