/*
 * select.c - which algorithm runs: a table as data, first match wins.
 *
 * Every column is a fact all ranks share (paper 000 sec. 2.3, "global
 * algorithm decisions"): the rank count, the shape, whether the count is a
 * power of two, whether some node holds several ranks, whether the
 * transport has the deposit bit (line_send: one injection reaches a whole
 * line, the timed simulator's BlueGene/L model; MPI has none), the message
 * size of bcast/allreduce and the block size of a uniform alltoall
 * (alltoallv counts differ per rank and are never looked at).  A row whose
 * algorithm's preconditions fail is skipped; the last row of each
 * collective takes anything.  `bin/collbench --choose SHAPE` prints the
 * picks.  Where the rows come from:
 * - deposit bit (bin/collbench --simulate 8x8x8, bgl model): dimwise
 *   barrier 11.4 us against 33.1 for dissemination; dimwise allreduce
 *   11.7 us at 8 B against 33.7 for recursive doubling (paper 000 Table
 *   4: 19.7 against 42.3), ahead to 512 B; multistream bcast ahead of
 *   binomial at every size (10.7 against 23.8 us at 8 B, 2.6 links' worth
 *   at 1 MiB).
 * - simulated torus, any transport: uniform alltoall at 512+ ranks routed
 *   to 128 B per pair (436 us against bruck's 479 at 16 B on 8x8x8); at
 *   64 (4x4x4) bruck to 32 B (46 against 71 us at 16 B), routed to 128 B
 *   (149 against bruck's 227); above, the randomized permutation (86.8% of
 *   the bisection peak at 1 KiB on 8x8x8, 306 against pairwise's 384 us at
 *   1 KiB on 4x4x4); recursive
 *   doubling to 512 B (85 us against Rabenseifner's 95), then swing for
 *   power-of-two counts (81 us at 1 KiB against 144 for recursive doubling
 *   and 113 for Rabenseifner; 18.7 ms at 1 MiB against 24.1 and 72 for the
 *   Hamiltonian pipeline).
 * - MPI on this 2-core VM (bin/collbench --rounds 5, MPICH 4.0.2 and Open
 *   MPI 4.1, 2/4/8 ranks): binomial bcast below 8 ranks at every size
 *   (scatter+allgather took 2.7-3.8x MPICH's time at 2 ranks), recursive
 *   doubling to 8 KiB and Rabenseifner above at <= 4 ranks (swing 1.1-1.5x
 *   MPICH at 128 KiB-1 MiB on 2 ranks, Rabenseifner 0.86-0.92x), the
 *   dissemination barrier at <= 3 ranks (node_aware's check-in/out costs 2
 *   rounds where dissemination needs 1: 1.46x Open MPI's at 2 ranks);
 *   binomial bcast at 8 ranks sharing a node (a line of 8 has no
 *   multistream; scatter+allgather took 5-15x Open MPI's at 16 KiB-1 MiB,
 *   binomial 1.3-2.6x); pairwise rather than bruck for uniform alltoall
 *   below 16 ranks (Open MPI, 4 and 8 ranks, 8-256 B: pairwise 1.03-1.20x
 *   the library's, bruck 1.22-2.26x).
 * - the segmented algorithms (issue 26; docs/collectives.md): the ring
 *   allreduce from 64 KiB on 3-16 ranks when N is not a power of two
 *   (2 (N-1)/N n beta where Rabenseifner's pre- and post-steps add 2 n):
 *   on the timed simulator (bin/collbench --simulate 6, bgl model) 1.00 ms
 *   at 64 KiB and 15.5 at 1 MiB against Rabenseifner's 1.89 and 30.0, and
 *   over MPICH at 3 ranks (2 cores) 0.76-0.88x Rabenseifner's mean time at
 *   64 KiB-4 MiB but for 256 KiB (1.15x), level at 6 ranks.  The chain
 *   bcast has no row: the model and the simulator favour it from 256 KiB
 *   on 3-8 ranks (7.75 ms for 1 MiB on 4 ranks against binomial's 12.2),
 *   but over MPICH on this 2-core VM it took 0.95-1.27x binomial's time at
 *   4 ranks and 1.6-3.4x at 8 (each hop of a chain waits for a descheduled
 *   rank); `collbench --tune` puts it in a machine's own table where it
 *   wins there.
 */
#include "coll_impl.h"
#include "select_table.h"

#include <pthread.h>
#include <stdint.h>

#define ANY (-1)
#define NOLIMIT UINT64_MAX

/* The rows are the table file's own row type (torus_coll_table_row: the
 * columns and their "any" are documented there and in docs/collectives.md,
 * a file writes the same rows), matched by the same code
 * (torus__coll_table_fit). */
static const torus_coll_table_row rows[] = {
    /* op                   ranks      dims pow2 nodes unif  dep  bytes              algorithm */
    {TORUS_COLL_BARRIER,    ANY, 3,     0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "dissemination"},
    {TORUS_COLL_BARRIER,    ANY, ANY,   2, ANY, ANY, ANY, 1,   0, NOLIMIT,          "dimwise"},
    {TORUS_COLL_BARRIER,    4, ANY,     0, ANY, 1,   ANY, ANY, 0, NOLIMIT,          "node_aware"},
    {TORUS_COLL_BARRIER,    ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "dissemination"},

    {TORUS_COLL_BCAST,      8, ANY,     2, ANY, ANY, ANY, 1,   0, NOLIMIT,          "multistream"},
    {TORUS_COLL_BCAST,      ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, 12287,            "binomial"},
    {TORUS_COLL_BCAST,      ANY, 7,     0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "binomial"},
    {TORUS_COLL_BCAST,      ANY, 8,     0, ANY, 1,   ANY, ANY, 0, NOLIMIT,          "binomial"},
    {TORUS_COLL_BCAST,      8, ANY,     2, ANY, ANY, ANY, ANY, 16384, NOLIMIT,      "multistream"},
    {TORUS_COLL_BCAST,      ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "scatter_allgather"},

    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   2, ANY, ANY, ANY, 1,   0, 512,              "dimwise"},
    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, 512,              "recursive_doubling"},
    {TORUS_COLL_ALLREDUCE,  ANY, 4,     0, ANY, ANY, ANY, ANY, 0, 8192,             "recursive_doubling"},
    {TORUS_COLL_ALLREDUCE,  3, 16,      0, 0,   ANY, ANY, ANY, 65536, NOLIMIT,      "ring"},
    {TORUS_COLL_ALLREDUCE,  ANY, 4,     0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "rabenseifner"},
    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, 1,   ANY, ANY, ANY, 0, NOLIMIT,          "swing"},
    {TORUS_COLL_ALLREDUCE,  ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "rabenseifner"},

    {TORUS_COLL_ALLTOALLV,  512, ANY,   2, ANY, ANY, 1,   ANY, 0, 128,              "routed"},
    {TORUS_COLL_ALLTOALLV,  64, ANY,    0, ANY, ANY, 1,   ANY, 0, 32,               "bruck"},
    {TORUS_COLL_ALLTOALLV,  64, ANY,    2, ANY, ANY, 1,   ANY, 0, 128,              "routed"},
    {TORUS_COLL_ALLTOALLV,  64, ANY,    0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "random_permutation"},
    {TORUS_COLL_ALLTOALLV,  16, ANY,    0, ANY, ANY, 1,   ANY, 0, 256,              "bruck"},
    {TORUS_COLL_ALLTOALLV,  ANY, 8,     0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "pairwise"},
    {TORUS_COLL_ALLTOALLV,  ANY, ANY,   0, ANY, ANY, ANY, ANY, 0, NOLIMIT,          "random_permutation"},
};

enum { NROWS = sizeof rows / sizeof *rows };
static torus_coll_table *compiled;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

/* The rows as a table, their algorithms looked up by name once (a small
 * collective costs well under a microsecond), once per process, since
 * threads may select at once on different contexts (the MPI adapter under
 * MPI_THREAD_MULTIPLE).  A row naming an algorithm this build lacks is
 * left out; out of memory leaves the fallback below. */
static void build_rows(void)
{
    compiled = torus_coll_table_new();
    char e[600];
    for (size_t i = 0; compiled && i < NROWS; i++)
        (void)torus_coll_table_add(compiled, &rows[i], e, sizeof e);
}

const torus__coll_alg *torus__coll_select(const torus_coll *c, const torus__coll_args *a)
{
    /* TORUS_COLL_TABLE=FILE: its rows first (select_table.c) */
    const torus__coll_alg *from_file = torus__coll_table_pick(c, a);
    if (from_file)
        return from_file;
    pthread_once(&rows_once, build_rows);
    int row = torus__coll_table_fit(compiled, c, a);
    if (row >= 0)
        return torus__coll_table_alg(compiled, row);
    /* no row fits (a table row names an algorithm whose preconditions fail
     * here): the first registered algorithm of the op that can run */
    for (int i = 0; i < torus__coll_nlisted; i++) {
        const torus__coll_alg *alg = torus__coll_listed[i];
        if (alg->op == a->op && alg->ok(c, a))
            return alg;
    }
    /* none can: the op's last row (the catch-all), to report its error */
    const torus__coll_alg *last = NULL;
    for (int r = 0; compiled && r < torus_coll_table_rows(compiled); r++)
        if (torus_coll_table_row_at(compiled, r)->op == a->op && torus__coll_table_alg(compiled, r))
            last = torus__coll_table_alg(compiled, r);
    return last;
}
