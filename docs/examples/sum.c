/* docs/examples/sum.c - one number per rank, summed by libtorus's allreduce
 * over MPI (docs/collectives.md shows it; tests/suite_install.sh builds it
 * against an installed copy with pkg-config and runs it) */
#include <stdio.h>
#include "torus_coll.h"
#include "torus_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char err[256] = "";
    torus_shape shape;
    torus_map map;
    torus_mpi *tm;
    torus_transport tp;
    torus_coll *c;
    if (torus_shape_parse("auto", n, &shape, err, sizeof err) || torus_map_xyzt(&map, &shape) ||
        torus_mpi_create(&tm, MPI_COMM_WORLD, &map, me, 1, 0, err, sizeof err)) {
        fprintf(stderr, "sum: %s\n", err[0] ? err : "out of memory");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    torus_mpi_bind(tm, &tp);
    torus_coll_config cfg = {.map = &map, .me = me, .tp = &tp};
    uint64_t mine = (uint64_t)me + 1, sum = 0;
    if (torus_coll_create(&c, &cfg, err, sizeof err) ||
        torus_coll_allreduce(c, &mine, &sum, 1, TORUS_UINT64, TORUS_OP_SUM)) {
        fprintf(stderr, "sum: %s\n", err[0] ? err : torus_coll_error(c));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (me == 0)
        printf("sum of 1..%d: %llu (allreduce %s)\n", n, (unsigned long long)sum,
               torus_coll_last(c, TORUS_COLL_ALLREDUCE));
    torus_coll_destroy(c);
    torus_mpi_destroy(tm);
    torus_map_free(&map);
    MPI_Finalize();
    return sum == (uint64_t)n * (uint64_t)(n + 1) / 2 ? 0 : 1;
}
