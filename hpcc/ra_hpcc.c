/*
 * hpcc/ra_hpcc.c - HPCC's side of hpcc-opt: HPC Challenge 1.5 with the
 * kit's routed algorithm as its MPIRandomAccess, replaced at link time.
 *
 * HPCC's driver (RandomAccess/MPIRandomAccess.c, HPCC_MPIRandomAccess, and
 * its LCG twin) sizes the table from the memory, sets up its block
 * distribution, picks the update count under its time bound, fills the
 * table, starts the clock, calls one update routine
 * (Power2NodesMPIRandomAccessUpdate or AnyNodesMPIRandomAccessUpdate),
 * stops the clock, verifies and writes the results.  HPCC's rules let an
 * optimized run replace that routine; hpcc-opt does it without editing
 * HPCC's files: the build compiles the two drivers so that their calls go
 * through the symbol (-fPIC, not inlined) and makes HPCC's own routines weak
 * (objcopy --weaken-symbol), so the definitions below are the ones linked.
 * Everything else - the table, the update count, the time bound, the
 * timing, the verification, the output - stays HPCC's.
 *
 * HPCC_external_init is HPCC's own hook for "initialization of external
 * software", called right after MPI_Init (src/extinit.c, replaced the same
 * way): there the ranks check that they run the same settings, as every
 * MPI binary of the kit does before it does anything.
 */
#include <hpcc.h>

#include "RandomAccess.h"
#include "hpcc_ra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Power2NodesMPIRandomAccessUpdate(HPCC_RandomAccess_tabparams_t tparams);
void AnyNodesMPIRandomAccessUpdate(HPCC_RandomAccess_tabparams_t tparams);
void HPCC_Power2NodesMPIRandomAccessUpdate_LCG(HPCC_RandomAccess_tabparams_t tparams);
void HPCC_AnyNodesMPIRandomAccessUpdate_LCG(HPCC_RandomAccess_tabparams_t tparams);
int HPCC_external_init(int argc, char *argv[], void *extdata);

/* HPCC's parameters of this phase, as the kit's job: HPCC's standard
 * algorithm starts each rank's stream at element 4 * GlobalStartMyProc
 * (HPCC_starts, HPCC_starts_LCG) and makes ProcNumUpdates updates, which the
 * time bound may have cut below 4 * LocalTableSize; verification replays
 * exactly those. */
static void route(const HPCC_RandomAccess_tabparams_t *tp, int lcg)
{
    hpcc_ra_job job = {
        .table = (uint64_t *)(void *)HPCC_Table, /* u64Int: unsigned long long, 64 bits */
        .local_start = (uint64_t)tp->GlobalStartMyProc,
        .local_size = (uint64_t)tp->LocalTableSize,
        .table_words = (uint64_t)tp->TableSize,
        .log2_table = (int)tp->logTableSize,
        .lcg = lcg,
        .start = 4 * (uint64_t)tp->GlobalStartMyProc,
        .count = (uint64_t)tp->ProcNumUpdates,
    };
    char err[400] = "";
    int rc = hpcc_ra_route(MPI_COMM_WORLD, &job, err, sizeof err);
    if (rc) {
        /* no silent result: HPCC would verify an unchanged table and
         * report "failed"; the run stops here with the kit's exit code */
        if (tp->MyProc == 0)
            fprintf(stderr, "hpcc-opt: error: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    if (tp->MyProc == 0) {
        printf("hpcc-opt: MPIRandomAccess%s by hpcc-ra %s's routed algorithm (ra_opt): %s; %llu updates on rank 0\n",
               lcg ? "_LCG" : "", hpcc_ra_version(), hpcc_ra_last_run(), (unsigned long long)job.count);
        fflush(stdout);
    }
}

void Power2NodesMPIRandomAccessUpdate(HPCC_RandomAccess_tabparams_t tparams)
{
    route(&tparams, 0);
}

void AnyNodesMPIRandomAccessUpdate(HPCC_RandomAccess_tabparams_t tparams)
{
    route(&tparams, 0);
}

void HPCC_Power2NodesMPIRandomAccessUpdate_LCG(HPCC_RandomAccess_tabparams_t tparams)
{
    route(&tparams, 1);
}

void HPCC_AnyNodesMPIRandomAccessUpdate_LCG(HPCC_RandomAccess_tabparams_t tparams)
{
    route(&tparams, 1);
}

/* What hpcc-opt answers to words on its command line: HPCC itself takes
 * none (it reads hpccinf.txt), so --help, --version, or a refusal. */
static int words(int argc, char **argv, int rank)
{
    if (argc < 2)
        return -1;
    const char *a = argv[1];
    int rc = 0;
    if (argc == 2 && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
        if (rank == 0)
            printf("usage: mpirun -n P bin/hpcc-opt\n"
                   "HPC Challenge 1.5, HPCC's own code built by `make hpcc`, with hpcc-ra's routed\n"
                   "algorithm (bin/ra_opt's) as its MPIRandomAccess update routine: HPCC sizes,\n"
                   "times, verifies and reports as always.  Reads hpccinf.txt in the current\n"
                   "folder and writes hpccoutf.txt beside it, as HPCC does; takes no options.\n"
                   "run_scripts/hpcc_submission.sh --full writes hpccinf.txt and runs it beside\n"
                   "bin/hpcc (HPCC unchanged).\n"
                   "  --help     this text\n"
                   "  --version  the versions of HPCC and of hpcc-ra\n"
                   "exit: 0 HPCC ran (its Success key says whether every test passed), 2 usage\n"
                   "or ranks with different settings, 3 the routed algorithm could not start\n");
    } else if (argc == 2 && !strcmp(a, "--version")) {
        if (rank == 0)
            printf("hpcc-opt: HPC Challenge %d.%d.%d with hpcc-ra %s\n", HPCC_VERSION_MAJOR, HPCC_VERSION_MINOR,
                   HPCC_VERSION_MICRO, hpcc_ra_version());
    } else {
        if (rank == 0)
            fprintf(stderr, "hpcc-opt: error: unknown argument '%s': allowed --help or --version (HPCC reads "
                    "hpccinf.txt)\n", argc == 2 || a[0] != '-' ? a : argv[argc - 1]);
        rc = 2;
    }
    fflush(stdout);
    return rc;
}

int HPCC_external_init(int argc, char *argv[], void *extdata)
{
    (void)extdata;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char err[600] = "";
    int rc = hpcc_ra_launch_check(); /* another MPI's launcher: N jobs of one rank */
    if (!rc && (rc = hpcc_ra_agree(MPI_COMM_WORLD, argc, argv, err, sizeof err))) {
        if (rank == 0)
            fprintf(stderr, "hpcc-opt: error: the ranks do not run the same settings: %s\n", err);
    } else if (!rc) {
        rc = words(argc, argv, rank);
        if (rc < 0)
            return 0; /* no words: HPCC runs */
    }
    /* every rank knows (the agreement is collective, the words the same):
     * leave with the kit's exit code, not through HPCC's end, which exits 0 */
    MPI_Finalize();
    exit(rc);
}
