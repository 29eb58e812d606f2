/*
 * flat.c - barrier, bcast, allreduce and alltoall of ranks that share one
 * node, through one shared area (torus_flat.h), for the small calls where
 * a message's fixed cost is the whole cost.
 *
 * Source: the shared-memory collectives of the MPI libraries' own
 *   intra-node paths (Open MPI's coll/sm, MPICH's release/gather trees):
 *   data written once where every peer can read it, one flag published
 *   after it.  Here flat: every rank reads the others' slots directly.
 * Steps of call k (every rank counts its calls on the area alike):
 *   1. before writing its slot, a rank waits until every rank's done
 *      count is k-1: nobody still reads what the slot held in call k-1;
 *   2. it writes its data (bcast: the root only; barrier: none) and
 *      publishes k in its count line (a release store);
 *   3. it waits for the counts it needs to reach k (acquire loads: bcast
 *      the root's, the others every rank's), then reads: bcast copies the
 *      root's data, allreduce reduces slot 0, 1, ... n-1 in rank order (the
 *      same bits on every rank), alltoall copies its block of each slot;
 *   4. it publishes k in its done line.
 * Cost: one cache-line transfer per published line, the n-1 reads of step
 *   3 in parallel: T = about 2 line transfers + the copies (a message costs
 *   a library 0.2-0.9 us at 2 ranks here, a line transfer about 0.05 us).
 *   Each rank reads n-1 slots: the calls are for small n and small data
 *   (the adapter's rows, pmpi/pmpi_flat.c).  The count and done lines are
 *   written only by their rank, so no line has two writers.
 * A waiting rank spins TORUS_FLAT_SPIN polls (a load each, some 20-40 us:
 * a peer copying 16-64 KiB takes microseconds, and a waiter that went to
 * a system call meanwhile answers late; against 1000 polls no difference
 * was measured at 1 B - 16 KiB, docs/mpi-adapter.md), then calls poke (its
 * MPI library's progress) and follows the kit's idle policy
 * (torus_idle): yields the core, so more ranks than cores still make
 * progress.
 */
#include "torus_flat.h"

#include "coll_impl.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LINE = 64, TORUS_FLAT_SPIN = 20000 };

typedef struct slot_head {
    _Atomic uint64_t count; /* the last call whose data this slot holds (or whose barrier it reached) */
    char pad1[LINE - sizeof(uint64_t)];
    _Atomic uint64_t done; /* the last call this rank finished reading */
    char pad2[LINE - sizeof(uint64_t)];
} slot_head;

struct torus_flat {
    int n, me;
    size_t cap, stride;
    unsigned char *area;
    uint64_t k; /* this rank's calls so far */
    void (*poke)(void *ctx);
    void *ctx;
};

size_t torus_flat_slot_bytes(size_t cap)
{
    return sizeof(slot_head) + (cap + LINE - 1) / LINE * LINE;
}

torus_flat *torus_flat_create(int n, int me, size_t cap, void *area, void (*poke)(void *ctx), void *ctx)
{
    if (n < 1 || me < 0 || me >= n || !area || ((uintptr_t)area % LINE))
        return NULL;
    torus_flat *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (torus_flat){.n = n, .me = me, .cap = cap, .stride = torus_flat_slot_bytes(cap), .area = area,
                      .poke = poke, .ctx = ctx};
    return f;
}

void torus_flat_destroy(torus_flat *f)
{
    free(f);
}

size_t torus_flat_cap(const torus_flat *f)
{
    return f->cap;
}

static slot_head *head(const torus_flat *f, int r)
{
    return (slot_head *)(void *)(f->area + (size_t)r * f->stride);
}

static unsigned char *data(const torus_flat *f, int r)
{
    return f->area + (size_t)r * f->stride + sizeof(slot_head);
}

/* Waits until rank r's line (done: its done count, else its count) has
 * reached k. */
static void wait_for(const torus_flat *f, int r, int done, uint64_t k)
{
    slot_head *h = head(f, r);
    _Atomic uint64_t *w = done ? &h->done : &h->count;
    if (atomic_load_explicit(w, memory_order_acquire) >= k)
        return;
    torus_idle idle;
    torus_idle_init(&idle, TORUS_FLAT_SPIN, 0, NULL);
    while (atomic_load_explicit(w, memory_order_acquire) < k) {
        if (f->poke && idle.polls >= TORUS_FLAT_SPIN)
            f->poke(f->ctx);
        torus_idle_wait(&idle);
    }
}

/* Step 1: nobody reads this rank's slot from an earlier call any more. */
static void wait_done(const torus_flat *f)
{
    for (int r = 0; r < f->n; r++)
        if (r != f->me)
            wait_for(f, r, 1, f->k - 1);
}

static void publish(const torus_flat *f, int done)
{
    slot_head *h = head(f, f->me);
    atomic_store_explicit(done ? &h->done : &h->count, f->k, memory_order_release);
}

static void wait_all(const torus_flat *f)
{
    for (int r = 0; r < f->n; r++)
        if (r != f->me)
            wait_for(f, r, 0, f->k);
}

int torus_flat_barrier(torus_flat *f)
{
    f->k++;
    publish(f, 0);
    wait_all(f);
    publish(f, 1);
    return 0;
}

int torus_flat_bcast(torus_flat *f, void *buf, size_t bytes, int root)
{
    if (bytes > f->cap || root < 0 || root >= f->n)
        return TORUS_COLL_EARG;
    f->k++;
    if (f->me == root) {
        wait_done(f);
        memcpy(data(f, root), buf, bytes);
        publish(f, 0);
    } else {
        wait_for(f, root, 0, f->k);
        memcpy(buf, data(f, root), bytes);
    }
    publish(f, 1);
    return 0;
}

int torus_flat_allreduce(torus_flat *f, const void *s, void *d, size_t count, torus_dtype t, torus_op op)
{
    torus__reduce_fn fn = torus__reduce_kernel(t, op);
    size_t bytes = count * torus_dtype_size(t);
    if (!fn || bytes > f->cap)
        return TORUS_COLL_EARG;
    f->k++;
    wait_done(f);
    memcpy(data(f, f->me), s, bytes);
    publish(f, 0);
    wait_all(f);
    if (f->n == 1)
        memcpy(d, data(f, 0), bytes);
    else
        fn(d, data(f, 0), data(f, 1), count);
    for (int r = 2; r < f->n; r++)
        fn(d, d, data(f, r), count);
    publish(f, 1);
    return 0;
}

int torus_flat_alltoall(torus_flat *f, const void *s, void *d, size_t block)
{
    if (block && (size_t)f->n > f->cap / block)
        return TORUS_COLL_EARG;
    f->k++;
    wait_done(f);
    memcpy(data(f, f->me), s, (size_t)f->n * block);
    publish(f, 0);
    wait_all(f);
    for (int r = 0; r < f->n; r++)
        memcpy((unsigned char *)d + (size_t)r * block, data(f, r) + (size_t)f->me * block, block);
    publish(f, 1);
    return 0;
}
