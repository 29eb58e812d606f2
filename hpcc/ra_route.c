/*
 * hpcc/ra_route.c - the kit's side of hpcc-opt: HPCC's MPIRandomAccess
 * update phase run by the routed algorithm of bin/ra_opt (paper 002's
 * software routing over a virtual torus, optimized/ropt*.c) on HPCC's own
 * table, communicator, stream start and update count.
 *
 * Steps: describe HPCC's block distribution (ra_dist is the same rule);
 * ropt_mpi_setup with ra_opt's defaults (collective: node discovery, the
 * shape, the shared-memory node hop, the buckets); ropt_mpi_run over the
 * rank's elements start+1 .. start+count; free.  Setup and teardown fall
 * inside HPCC's timed section, as they would in any routine HPCC calls.
 * Cost: ra_opt's (docs/ra_opt.md), plus one node discovery per call.
 */
#include "hpcc_ra.h"

#include "ra_dist.h"
#include "ropt_mpi.h"
#include "kit_agree.h"
#include "kit_mpi.h"
#include "kit_opt.h"

#include <stdio.h>
#include <string.h>

static char last_run[256];

int hpcc_ra_route(MPI_Comm comm, const hpcc_ra_job *job, char *err, size_t errlen)
{
    int P;
    MPI_Comm_size(comm, &P);
    ra_dist td;
    ra_dist_init(&td, job->table_words, P);
    ropt_mpi_options o;
    ropt_mpi_options_defaults(&o);
    ropt_mpi s;
    int rc = ropt_mpi_setup(&s, comm, &o, job->table, job->local_start, job->local_size, job->log2_table, &td, err,
                            errlen);
    if (rc) {
        ropt_mpi_free(&s);
        return rc;
    }
    char sh[64];
    torus_shape_format(&s.shape, sh, sizeof sh);
    snprintf(last_run, sizeof last_run, "shape %s, bucket capacity %d, node hop by %s", sh, s.cap,
             s.node_shm ? "shared memory" : "MPI");
    ropt_mpi_run(&s, job->lcg ? RA_GEN_LCG : RA_GEN_LFSR, job->start, job->count, NULL, NULL);
    ropt_mpi_free(&s);
    return 0;
}

int hpcc_ra_agree(MPI_Comm comm, int argc, char **argv, char *err, size_t errlen)
{
    /* HPCC reads hpccinf.txt on rank 0 and sends it to the others, so its
     * input agrees by construction; what each rank reads for itself is the
     * environment (the kit's TORUS_* settings), and the words given */
    static const kit_opt none[] = {{0}};
    char text[8192];
    kit_agree_text(none, argc, argv, text, sizeof text);
    return kit_agree(comm, text, err, errlen) ? 2 : 0;
}

int hpcc_ra_launch_check(void)
{
    return kit_mpi_launch_check("hpcc-opt");
}

const char *hpcc_ra_version(void)
{
    return HPCC_RA_VERSION;
}

const char *hpcc_ra_last_run(void)
{
    return last_run;
}
