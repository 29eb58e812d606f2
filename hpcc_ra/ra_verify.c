/*
 * ra_verify.c - verification that shares nothing with the algorithms: each
 * round every rank generates a chunk of its updates, sorts them by owner
 * (counting sort), exchanges counts with MPI_Alltoall and updates with
 * MPI_Alltoallv, and XORs what it receives.  Simple and bulk-synchronous on
 * purpose: no look-ahead limit applies to verification.
 *
 * Its collectives call the MPI library's PMPI_ entries directly: under
 * libtorus_pmpi.so (LD_PRELOAD) the MPI_ names run the torus collectives,
 * and verification must stay independent of the code under test.
 */
#include "ra_verify.h"
#include "torus_mpi.h"

#include <stdlib.h>
#include <string.h>

#define RA_VERIFY_CHUNK (1ULL << 20)

int ra_verify_replay(ra_run *run)
{
    int P = run->nprocs;
    uint64_t my_rounds = (run->upd_count + RA_VERIFY_CHUNK - 1) / RA_VERIFY_CHUNK, rounds;
    KIT_MPI_CHECK(KMPI_Allreduce(&my_rounds, &rounds, 1, MPI_UINT64_T, MPI_MAX, run->comm));

    uint64_t *vals = malloc(RA_VERIFY_CHUNK * sizeof *vals);
    uint64_t *sendbuf = malloc(RA_VERIFY_CHUNK * sizeof *sendbuf);
    int *owner = malloc(RA_VERIFY_CHUNK * sizeof *owner);
    int *scount = calloc((size_t)P, sizeof(int)), *rcount = calloc((size_t)P, sizeof(int));
    int *sdisp = calloc((size_t)P, sizeof(int)), *rdisp = calloc((size_t)P, sizeof(int));
    int *fill = calloc((size_t)P, sizeof(int));
    uint64_t *recvbuf = NULL;
    size_t recv_cap = 0;
    int ok = vals && sendbuf && owner && scount && rcount && sdisp && rdisp && fill;
    int rc = KIT_EXIT_OK;
    if (!torus_all_ok(run->comm, ok)) {
        rc = KIT_EXIT_RESOURCE;
        goto out;
    }

    uint64_t ran = ra_gen_jump(run->gen, run->upd_start), done = 0;
    for (uint64_t r = 0; r < rounds; r++) {
        uint64_t n = run->upd_count - done;
        if (n > RA_VERIFY_CHUNK)
            n = RA_VERIFY_CHUNK;
        memset(scount, 0, (size_t)P * sizeof(int));
        for (uint64_t i = 0; i < n; i++) {
            ran = ra_gen_next(run->gen, ran);
            vals[i] = ran;
            owner[i] = ra_dist_owner(&run->table_dist, ra_gen_index(run->gen, ran, run->log2_table));
            scount[owner[i]]++;
        }
        done += n;
        for (int p = 0, acc = 0; p < P; p++) {
            sdisp[p] = acc;
            fill[p] = acc;
            acc += scount[p];
        }
        for (uint64_t i = 0; i < n; i++)
            sendbuf[fill[owner[i]]++] = vals[i];
        KIT_MPI_CHECK(KMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, run->comm));
        size_t total = 0;
        for (int p = 0; p < P; p++) {
            rdisp[p] = (int)total;
            total += (size_t)rcount[p];
        }
        if (total > recv_cap) {
            free(recvbuf);
            recv_cap = total;
            recvbuf = malloc(recv_cap * sizeof *recvbuf);
        }
        if (!torus_all_ok(run->comm, recvbuf != NULL || total == 0)) {
            rc = KIT_EXIT_RESOURCE;
            goto out;
        }
        KIT_MPI_CHECK(KMPI_Alltoallv(sendbuf, scount, sdisp, MPI_UINT64_T,
                                    recvbuf, rcount, rdisp, MPI_UINT64_T, run->comm));
        for (size_t i = 0; i < total; i++) {
            uint64_t v = recvbuf[i];
            run->table[ra_gen_index(run->gen, v, run->log2_table) - run->local_start] ^= v;
        }
    }
out:
    free(vals);
    free(sendbuf);
    free(owner);
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    free(fill);
    free(recvbuf);
    return rc;
}
