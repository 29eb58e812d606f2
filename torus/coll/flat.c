/*
 * flat.c - barrier, bcast, allreduce and alltoall of ranks that share one
 * node, through one shared area (torus_flat.h), for the small calls where
 * a message's fixed cost is the whole cost.
 *
 * Source: the shared-memory collectives of the MPI libraries' own
 *   intra-node paths (Open MPI's coll/sm, MPICH's release/gather trees):
 *   data written once where every peer can read it, one flag published
 *   after it.  Here flat: every rank reads the others' slots directly.
 * Layout: a rank's slot is its done line and TORUS_FLAT_GENERATIONS
 *   buffers; call k uses buffer k mod G.  A buffer starts with its
 *   sequence word (the call whose data it holds) and the data follows in
 *   the same line (16 bytes in, so 48 bytes ride with the flag: a reader
 *   of a small call takes one line, not a flag line and a data line).
 *   With G buffers a rank that writes in consecutive calls (a broadcasting
 *   root above all: IMB-MPI1's Bcast keeps root 0) waits only for the
 *   readers of call k-G, and runs up to G-1 calls ahead of its slowest
 *   reader, as a library's eager send does (issue 46: with one buffer a
 *   fixed root at 2 ranks, 1 B - 1 KiB, waited for its reader's done line
 *   on every call and took 1.4-1.8x the library's time).
 * Steps of call k (every rank counts its calls on the area alike):
 *   1. before writing buffer k mod G, a rank makes sure every other rank's
 *      done count is at least k-G: nobody still reads what it held in call
 *      k-G (a reader of a call k' = k mod G, k' < k, has done < k' <= k-G).
 *      The done counts it last read are kept, so it reads a peer's done
 *      line only when the kept one is too old: once in G calls at most;
 *   2. it writes its data (bcast: the root only; barrier: none) after the
 *      sequence word and publishes k in it (a release store);
 *   3. it waits for the sequence words it needs to reach k (acquire loads:
 *      bcast the root's, the others every rank's; they hold k-G or less,
 *      or k: never more, step 1), then reads: bcast copies the root's data,
 *      allreduce reduces slot 0, 1, ... n-1 in rank order (the same bits on
 *      every rank), alltoall copies its block of each slot;
 *   4. it publishes k in its done line.
 * A bcast of more than a piece (TORUS_FLAT_PIECE, or cap when smaller)
 *   goes as consecutive calls of a piece each, steps 1-4 for every one:
 *   the root copies piece i+1 into the next buffer while its readers copy
 *   piece i out, runs up to G-1 pieces ahead of them, and the area stays
 *   the size of the small calls' however large the bcast (every rank cuts
 *   the same pieces: MPI makes a bcast's bytes match on every rank).
 * A barrier publishes no data; it has two forms.  Every rank publishes
 *   and waits for all (one line transfer, the last to arrive leaving
 *   first), unless the last call was a bcast: then one rank, the one
 *   expected to be the next root (the last root plus the step from the root
 *   before: the same root again, or the next, as IMB-MPI1's and OSU's
 *   loops call it), waits for all and publishes, and the others wait for
 *   it alone.  The next root so leaves first and writes its data while its
 *   readers are still on their way out, where otherwise the reader, which
 *   arrives last, would leave first and wait for the root: IMB-MPI1's Bcast
 *   (root 0, a barrier after each call, MPICH, 2 ranks, 1 B - 8 KiB) took
 *   0.97-1.29x the library's time with every barrier of the first form
 *   and 0.45-0.93x with the second (docs/mpi-adapter.md).  Any rank as the
 *   releaser is a correct barrier; the guess, from calls every rank made
 *   alike, is the same on every rank.
 * Cost: one cache-line transfer per published line, the n-1 reads of step
 *   3 in parallel: T = about 1 line transfer + the copies for a call of 48
 *   bytes or less; a bcast of m pieces of P bytes about (m + 1) copies of
 *   P and m line transfers, where a single buffer would take two copies
 *   of the whole one after the other (a message costs a library 0.2-0.9
 *   us at 2 ranks here, a line transfer about 0.05-0.2 us).  Each rank
 *   reads n-1 slots: the calls are for small n and small data (the
 *   adapter's rows, pmpi/pmpi_flat.c).  A sequence word and a done line
 *   are written only by their rank, so no line has two writers.
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

/* DATA_AT: the data's offset in a buffer, after its sequence word, 16 so
 * that any MPI type (long double, complex) stays aligned. */
enum { LINE = 64, DATA_AT = 16, TORUS_FLAT_SPIN = 20000 };

typedef struct done_line {
    _Atomic uint64_t done; /* the last call this rank finished reading */
    char pad[LINE - sizeof(uint64_t)];
} done_line;

struct torus_flat {
    int n, me;
    size_t cap, buf, stride; /* data bytes; a buffer's bytes; a slot's */
    unsigned char *area;
    uint64_t k;     /* this rank's calls so far */
    int lead;       /* the barrier's releaser after a bcast, else -1 */
    int root, step; /* the last bcast's root, and the step from the one before */
    uint64_t *seen; /* the done count last read of each rank (step 1) */
    void (*poke)(void *ctx);
    void *ctx;
};

/* A buffer's bytes: the sequence word, then cap data bytes, whole lines. */
static size_t buf_bytes(size_t cap)
{
    return (DATA_AT + cap + LINE - 1) / LINE * LINE;
}

size_t torus_flat_slot_bytes(size_t cap)
{
    return sizeof(done_line) + TORUS_FLAT_GENERATIONS * buf_bytes(cap);
}

torus_flat *torus_flat_create(int n, int me, size_t cap, void *area, void (*poke)(void *ctx), void *ctx)
{
    if (n < 1 || me < 0 || me >= n || !area || ((uintptr_t)area % LINE))
        return NULL;
    torus_flat *f = calloc(1, sizeof *f);
    uint64_t *seen = calloc((size_t)n, sizeof *seen);
    if (!f || !seen) {
        free(f), free(seen);
        return NULL;
    }
    *f = (torus_flat){.n = n, .me = me, .cap = cap, .buf = buf_bytes(cap), .stride = torus_flat_slot_bytes(cap),
                      .area = area, .seen = seen, .poke = poke, .ctx = ctx, .lead = -1, .root = -1};
    return f;
}

void torus_flat_destroy(torus_flat *f)
{
    if (f)
        free(f->seen);
    free(f);
}

size_t torus_flat_cap(const torus_flat *f)
{
    return f->cap;
}

static done_line *done_of(const torus_flat *f, int r)
{
    return (done_line *)(void *)(f->area + (size_t)r * f->stride);
}

/* Rank r's buffer of this rank's current call f->k: its start (the
 * sequence word), and its data. */
static unsigned char *buffer(const torus_flat *f, int r)
{
    return f->area + (size_t)r * f->stride + sizeof(done_line) + (size_t)(f->k % TORUS_FLAT_GENERATIONS) * f->buf;
}

static _Atomic uint64_t *seq_of(const torus_flat *f, int r)
{
    return (_Atomic uint64_t *)(void *)buffer(f, r);
}

static unsigned char *data(const torus_flat *f, int r)
{
    return buffer(f, r) + DATA_AT;
}

/* Waits until *w has reached k. */
static uint64_t wait_for(const torus_flat *f, _Atomic uint64_t *w, uint64_t k)
{
    uint64_t v = atomic_load_explicit(w, memory_order_acquire);
    if (v >= k)
        return v;
    torus_idle idle;
    torus_idle_init(&idle, TORUS_FLAT_SPIN, 0, NULL);
    while ((v = atomic_load_explicit(w, memory_order_acquire)) < k) {
        if (f->poke && idle.polls >= TORUS_FLAT_SPIN)
            f->poke(f->ctx);
        torus_idle_wait(&idle);
    }
    return v;
}

/* A call that is not a bcast begins: the next call's number, and no
 * guess of a next root for a barrier (only a bcast makes one). */
static void begin(torus_flat *f)
{
    f->k++;
    f->lead = -1;
}

/* Step 1: nobody reads this rank's buffer k mod G from call k-G any more
 * (the done counts read last time answer most calls without a load). */
static void wait_done(const torus_flat *f)
{
    if (f->k <= TORUS_FLAT_GENERATIONS)
        return;
    uint64_t need = f->k - TORUS_FLAT_GENERATIONS;
    for (int r = 0; r < f->n; r++)
        if (r != f->me && f->seen[r] < need)
            f->seen[r] = wait_for(f, &done_of(f, r)->done, need);
}

/* Step 2's flag, step 4's done. */
static void publish(const torus_flat *f, int done)
{
    atomic_store_explicit(done ? &done_of(f, f->me)->done : seq_of(f, f->me), f->k, memory_order_release);
}

static void wait_all(const torus_flat *f)
{
    for (int r = 0; r < f->n; r++)
        if (r != f->me)
            wait_for(f, seq_of(f, r), f->k);
}

int torus_flat_barrier(torus_flat *f)
{
    int lead = f->lead;
    begin(f);
    wait_done(f);
    if (lead < 0) {
        publish(f, 0);
        wait_all(f);
    } else if (f->me == lead) {
        wait_all(f);
        publish(f, 0);
    } else {
        publish(f, 0);
        wait_for(f, seq_of(f, lead), f->k);
    }
    publish(f, 1);
    return 0;
}

/* Steps 1-4 of one bcast call of at most cap bytes. */
static void bcast_piece(torus_flat *f, unsigned char *buf, size_t bytes, int root)
{
    f->k++;
    if (f->me == root) {
        wait_done(f);
        memcpy(data(f, root), buf, bytes);
        publish(f, 0);
    } else {
        wait_for(f, seq_of(f, root), f->k);
        memcpy(buf, data(f, root), bytes);
    }
    publish(f, 1);
}

int torus_flat_bcast(torus_flat *f, void *buf, size_t bytes, int root)
{
    if (root < 0 || root >= f->n || (bytes && !f->cap)) /* no buffer holds a byte */
        return TORUS_COLL_EARG;
    /* more than a piece (TORUS_FLAT_PIECE, or cap when smaller): one call
     * per piece (the count is the same on every rank: MPI makes the bytes
     * match) */
    size_t at = 0, most = f->cap < TORUS_FLAT_PIECE ? f->cap : TORUS_FLAT_PIECE;
    do {
        size_t piece = bytes - at < most ? bytes - at : most;
        bcast_piece(f, (unsigned char *)buf + at, piece, root);
        at += piece;
    } while (at < bytes);
    if (f->root >= 0)
        f->step = (root - f->root + f->n) % f->n;
    f->root = root;
    f->lead = (root + f->step) % f->n;
    return 0;
}

int torus_flat_allreduce(torus_flat *f, const void *s, void *d, size_t count, torus_dtype t, torus_op op)
{
    torus__reduce_fn fn = torus__reduce_kernel(t, op);
    size_t bytes = count * torus_dtype_size(t);
    if (!fn || bytes > f->cap)
        return TORUS_COLL_EARG;
    begin(f);
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
    begin(f);
    wait_done(f);
    memcpy(data(f, f->me), s, (size_t)f->n * block);
    publish(f, 0);
    wait_all(f);
    for (int r = 0; r < f->n; r++)
        memcpy((unsigned char *)d + (size_t)r * block, data(f, r) + (size_t)f->me * block, block);
    publish(f, 1);
    return 0;
}
