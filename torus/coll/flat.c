/*
 * flat.c - barrier, bcast, allreduce and alltoall of ranks that share one
 * node, through one shared area (torus_flat.h), for the small calls where
 * a message's fixed cost is the whole cost.
 *
 * Source: the shared-memory collectives of the MPI libraries' own
 *   intra-node paths (Open MPI's coll/sm, MPICH's release/gather trees):
 *   data written once where every peer can read it, one flag published
 *   after it.  Here flat: every rank reads the others' slots directly.
 * Layout: a rank's slot is its done line (also its process, probe word
 *   and mark, and a direct bcast's verdict) and TORUS_FLAT_GENERATIONS
 *   buffers; call k uses buffer k mod G.  A buffer starts with its
 *   sequence word (the call whose data it holds; a direct bcast's buffer
 *   address follows it) and the data follows in
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
 * A bcast of TORUS_FLAT_DIRECT bytes or more, when every rank agreed at
 *   set-up that it can reach every other's memory (torus_flat_probe), goes
 *   process to process instead (bcast_direct): one call number, every rank
 *   publishes its buffer's address in its sequence line, the root writes
 *   the first n-th into each reader's buffer (process_vm_writev) while
 *   each reader reads the rest from the root's (process_vm_readv), each
 *   rank publishes in its done line whether its copies went, and the root
 *   publishes its done, with the verdict, after every reader's.  One copy
 *   of each byte, cut between the two cores at 2 ranks, against two
 *   copies through the area; the root waits for its readers here (its
 *   buffer is read until then), as a library's rendezvous send does.
 *   When a copy failed anywhere, every rank learns it from the verdict
 *   and the bcast goes again in pieces (the root's buffer is untouched).
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
 *   of the whole one after the other; a direct bcast of B bytes at n ranks
 *   about (n-1)/n copies of B on each rank, at once, two system calls and
 *   three line transfers (a message costs a library 0.2-0.9 us at 2 ranks
 *   here, a line transfer about 0.05-0.2 us).  Each rank
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
#define _GNU_SOURCE /* process_vm_readv, process_vm_writev */
#include "torus_flat.h"

#include "coll_impl.h"
#include "kit_mix.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* DATA_AT: the data's offset in a buffer, after its sequence word, 16 so
 * that any MPI type (long double, complex) stays aligned. */
enum { LINE = 64, DATA_AT = 16, ADDR_AT = 8, TORUS_FLAT_SPIN = 20000 };

typedef struct done_line {
    _Atomic uint64_t done; /* the last call this rank finished reading */
    _Atomic uint64_t ok;   /* a direct bcast: the last call whose copies all succeeded */
    _Atomic uint64_t pid;  /* for the direct copies (process_vm_readv): this rank's process */
    _Atomic uint64_t word; /* and the address of its probe word there, */
    _Atomic uint64_t mark; /* which holds this: no other rank's (a pid that is another
                            * process here, in another pid namespace, fails the probe) */
    char pad[LINE - 5 * sizeof(uint64_t)];
} done_line;

struct torus_flat {
    int n, me;
    size_t cap, buf, stride; /* data bytes; a buffer's bytes; a slot's */
    unsigned char *area;
    uint64_t k;     /* this rank's calls so far */
    int lead;       /* the barrier's releaser after a bcast, else -1 */
    int root, step; /* the last bcast's root, and the step from the one before */
    uint64_t *seen; /* the done count last read of each rank (step 1) */
    int direct;     /* large bcasts copied process to process (all ranks agreed) */
    uint64_t went;  /* bcasts that went so */
    uint64_t probe; /* the word peers read and write to try the direct copies */
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

/* A rank's probe mark: its number, its process, the word's address and
 * the time mixed (kit_mix.h's SplitMix64 finaliser), never 0. */
static uint64_t mark_of(int me, const void *word)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t m = kit_mix64((uint64_t)me << 48 ^ (uint64_t)getpid() << 20 ^ (uint64_t)(uintptr_t)word ^
                           (uint64_t)t.tv_sec * 1000000000u ^ (uint64_t)t.tv_nsec);
    return m ? m : 1;
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
                      .area = area, .seen = seen, .poke = poke, .ctx = ctx, .lead = -1, .root = -1,
                      .probe = mark_of(me, &f->probe)};
    done_line *d = (done_line *)(void *)(f->area + (size_t)me * f->stride);
    atomic_store_explicit(&d->pid, (uint64_t)getpid(), memory_order_relaxed);
    atomic_store_explicit(&d->word, (uint64_t)(uintptr_t)&f->probe, memory_order_relaxed);
    atomic_store_explicit(&d->mark, f->probe, memory_order_release);
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

/* Rank r's bcast buffer address in this call's sequence line (a direct
 * bcast's; published before the sequence word, read after it). */
static _Atomic uint64_t *addr_of(const torus_flat *f, int r)
{
    return (_Atomic uint64_t *)(void *)(buffer(f, r) + ADDR_AT);
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

/* Copies len bytes between this process's mine and process pid's theirs
 * (to it when put, else from it); 1 when all went. */
static int copy_with(pid_t pid, void *mine, uint64_t theirs, size_t len, int put)
{
    while (len) {
        struct iovec l = {mine, len}, r = {(void *)(uintptr_t)theirs, len};
        ssize_t got = put ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got <= 0)
            return 0;
        mine = (unsigned char *)mine + got, theirs += (uint64_t)got, len -= (size_t)got;
    }
    return 1;
}

/* Rank r's process, from its done line. */
static pid_t pid_of(const torus_flat *f, int r)
{
    return (pid_t)atomic_load_explicit(&done_of(f, r)->pid, memory_order_acquire);
}

/* A bcast of TORUS_FLAT_DIRECT bytes or more, process to process: every
 * rank publishes its buffer's address in its sequence line; the root
 * writes the first `share` bytes into each reader's buffer while every
 * reader reads the rest from the root's, so the copy is cut in two halves
 * that run at once (at 2 ranks), each rank's done line says whether its
 * copies went, and the root publishes its own done, with the verdict,
 * after all readers' (it must: its buffer is read until then).  1 when
 * every copy went; 0 on every rank when one failed (then nothing is lost:
 * the root's buffer is whole and the caller sends it again in pieces). */
static int bcast_direct(torus_flat *f, unsigned char *buf, size_t bytes, int root)
{
    f->k++;
    wait_done(f);
    atomic_store_explicit(addr_of(f, f->me), (uint64_t)(uintptr_t)buf, memory_order_relaxed);
    publish(f, 0);
    size_t share = bytes / (size_t)f->n / LINE * LINE;
    int ok = 1;
    if (f->me == root) {
        for (int r = 0; r < f->n; r++)
            if (r != root) {
                wait_for(f, seq_of(f, r), f->k);
                uint64_t at = atomic_load_explicit(addr_of(f, r), memory_order_relaxed);
                ok &= copy_with(pid_of(f, r), buf, at, share, 1);
            }
        for (int r = 0; r < f->n; r++)
            if (r != root) {
                f->seen[r] = wait_for(f, &done_of(f, r)->done, f->k);
                ok &= atomic_load_explicit(&done_of(f, r)->ok, memory_order_relaxed) == f->k;
            }
    } else {
        wait_for(f, seq_of(f, root), f->k);
        uint64_t at = atomic_load_explicit(addr_of(f, root), memory_order_relaxed);
        ok = copy_with(pid_of(f, root), buf + share, at + share, bytes - share, 0);
    }
    if (ok)
        atomic_store_explicit(&done_of(f, f->me)->ok, f->k, memory_order_relaxed);
    publish(f, 1);
    if (f->me != root) {
        f->seen[root] = wait_for(f, &done_of(f, root)->done, f->k);
        ok = atomic_load_explicit(&done_of(f, root)->ok, memory_order_relaxed) == f->k;
    }
    return ok;
}

int torus_flat_probe(torus_flat *f)
{
    int ok = 1;
    for (int r = 0; r < f->n; r++) {
        uint64_t mark = atomic_load_explicit(&done_of(f, r)->mark, memory_order_acquire), got = 0, put = mark;
        uint64_t at = atomic_load_explicit(&done_of(f, r)->word, memory_order_relaxed);
        ok &= mark && at && copy_with(pid_of(f, r), &got, at, sizeof got, 0) && got == mark &&
              copy_with(pid_of(f, r), &put, at, sizeof put, 1);
    }
    return ok;
}

void torus_flat_direct(torus_flat *f, int on)
{
    f->direct = on;
}

uint64_t torus_flat_direct_count(const torus_flat *f)
{
    return f->went;
}

int torus_flat_bcast(torus_flat *f, void *buf, size_t bytes, int root)
{
    if (root < 0 || root >= f->n || (bytes && !f->cap)) /* no buffer holds a byte */
        return TORUS_COLL_EARG;
    if (f->direct && f->n > 1 && bytes >= TORUS_FLAT_DIRECT && bcast_direct(f, buf, bytes, root)) {
        f->went++;
    } else {
        /* more than a piece (TORUS_FLAT_PIECE, or cap when smaller): one
         * call per piece (the count is the same on every rank: MPI makes
         * the bytes match) */
        size_t at = 0, most = f->cap < TORUS_FLAT_PIECE ? f->cap : TORUS_FLAT_PIECE;
        do {
            size_t piece = bytes - at < most ? bytes - at : most;
            bcast_piece(f, (unsigned char *)buf + at, piece, root);
            at += piece;
        } while (at < bytes);
    }
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
