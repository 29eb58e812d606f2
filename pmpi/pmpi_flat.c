/*
 * pmpi_flat.c - a communicator's shared area for the small collectives
 * of torus/coll/flat.c, when all its ranks share one node.
 *
 * Why: at 2 ranks a small bcast, allreduce, alltoall or barrier is one
 * message or one exchange in the library and in every torus algorithm,
 * 0.2-0.9 us here; through memory both ranks map it is one cache line
 * published and read, 0.06-0.2 us (docs/mpi-adapter.md has the table).
 * Which calls run here is the selection table's (rows `flat`, pmpi_route.c).
 *
 * Set-up, at the first call a row sends here (every rank decides alike,
 * so every rank is in that call): MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * says whether the communicator is one node (the same answer on every
 * rank: a communicator over two nodes splits smaller everywhere); rank 0
 * creates a POSIX shared-memory segment of one slot per rank and
 * broadcasts its name, the others map it, one allreduce agrees that every
 * rank did, and rank 0 unlinks the name at once: nothing stays in
 * /dev/shm even if the job dies, and the mapping goes when the state does
 * (munmap, no message, so freeing communicators in any order is safe).
 * Every page of the segment is taken at set-up (posix_fallocate), so a
 * full /dev/shm is a failure here, not a SIGBUS at the first call.  When a
 * rank fails, every rank learns it in the allreduce and the
 * communicator's calls go the torus library's way.  Then every rank
 * tries to read and write each peer's memory (torus_flat_probe), and a
 * second allreduce says whether all could: only then do large bcasts go
 * process to process (torus_flat.h, TORUS_FLAT_DIRECT), else in pieces.
 *
 * While it waits, a rank lets its MPI library progress (an MPI_Iprobe on
 * MPI_COMM_SELF after flat.c's spin), as the library's own wait would: a
 * peer may need this rank's library to finish a send before it can come.
 */
#include "pmpi_impl.h"
#include "torus_flat.h"

#include <fcntl.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

const char pm__flat_name[] = "flat";
const char pm__flat_direct_name[] = "flat_direct";

/* A communicator's shared area (pc->area), made by its set-up: the flat
 * collectives' state over the mapping.  Only this file sees the fields. */
struct pm_flat {
    struct torus_flat *f;
    void *map;
    size_t len;
};
/* pc->area after a set-up that failed on some rank (every rank then holds
 * it): the area is not possible for pc; NULL: not set up yet. */
static pm_flat unusable;

static void progress(void *ctx)
{
    (void)ctx;
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

/* One node? The same answer on every rank of pc->comm, also when the
 * library could not make the split on some rank (out of communicators):
 * then none (pm__errors_return: the program's handler may be fatal). */
static int one_node(const pm_comm *pc)
{
    MPI_Comm node = MPI_COMM_NULL;
    int nn = 0, one = 0;
    MPI_Errhandler old = pm__errors_return(pc->comm);
    if (PMPI_Comm_split_type(pc->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        node = MPI_COMM_NULL, nn = -1;
    if (node != MPI_COMM_NULL) {
        PMPI_Comm_size(node, &nn);
        PMPI_Comm_free(&node);
    }
    int mine = nn == pc->n;
    PMPI_Allreduce(&mine, &one, 1, MPI_INT, MPI_MIN, pc->comm);
    pm__errors_restore(pc->comm, old);
    return one;
}

/* pc's area, set up (collective over pc->comm); NULL on every rank when
 * it failed on any. */
static pm_flat *set_up(const pm_comm *pc)
{
    static atomic_uint serial;
    if (!one_node(pc))
        return NULL;
    size_t cap = pm__route_flat_bytes(pc), len = (size_t)pc->n * torus_flat_slot_bytes(cap);
    char name[64] = "";
    int fd = -1;
    if (pc->me == 0) {
        snprintf(name, sizeof name, "/torus_flat.%ld.%u", (long)getpid(), atomic_fetch_add(&serial, 1));
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        /* every page taken now: a segment only sized (ftruncate) on a
         * full /dev/shm maps fine and dies of SIGBUS at its first use */
        if (fd >= 0 && posix_fallocate(fd, 0, (off_t)len)) {
            close(fd);
            shm_unlink(name);
            fd = -1;
        }
        if (fd < 0)
            name[0] = 0;
    }
    PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, pc->comm);
    if (pc->me != 0 && name[0])
        fd = shm_open(name, O_RDWR, 0);
    void *map = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    torus_flat *f = map != MAP_FAILED ? torus_flat_create(pc->n, pc->me, cap, map, progress, NULL) : NULL;
    pm_flat *a = f ? malloc(sizeof *a) : NULL;
    int ok = a != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, pc->comm);
    if (pc->me == 0 && name[0])
        shm_unlink(name);
    if (!all) {
        free(a);
        torus_flat_destroy(f);
        if (map != MAP_FAILED)
            munmap(map, len);
        return NULL;
    }
    /* every end exists now: can each rank reach every other's memory?
     * (all or none: the copies of a direct bcast go both ways) */
    int direct = torus_flat_probe(f), every = 0;
    PMPI_Allreduce(&direct, &every, 1, MPI_INT, MPI_MIN, pc->comm);
    torus_flat_direct(f, every);
    *a = (pm_flat){.f = f, .map = map, .len = len};
    return a;
}

/* pm__flat_routed's first call on pc, or one after a failed set-up: out
 * of line, so that the calls after a set-up only test and return. */
static __attribute__((noinline)) torus_flat *routed_slow(pm_comm *pc, pm_op op, size_t bytes,
                                                        const torus_coll_route **r)
{
    pm_flat *a = pc->area;
    if (!a && (a = set_up(pc))) {
        pc->area = a;
        return a->f;
    }
    if (!a) {
        pc->area = &unusable;
        pm__route_build(pc); /* the ranges without the area, alike on every rank */
    }
    *r = pm__route(pc, op, bytes);
    return NULL;
}

torus_flat *pm__flat_routed(pm_comm *pc, pm_op op, size_t bytes, const torus_coll_route **r)
{
    if ((*r)->kind != TORUS_ROUTE_FLAT)
        return NULL;
    const pm_flat *a = pc->area;
    if (PM_LIKELY(a && a->f))
        return a->f;
    return routed_slow(pc, op, bytes, r);
}

int pm__flat_failed(const pm_comm *pc)
{
    return pc->area == &unusable;
}

void pm__flat_free(pm_comm *pc)
{
    pm_flat *a = pc->area;
    pc->area = NULL;
    if (!a || a == &unusable)
        return;
    torus_flat_destroy(a->f);
    munmap(a->map, a->len);
    free(a);
}
