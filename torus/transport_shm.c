/*
 * transport_shm.c - the node hop through shared memory (torus_mpi.h): the
 * rings of torus_shm.h laid out in one MPI-3 shared window over the ranks
 * of a node (MPI_Win_allocate_shared, each rank's incoming area in its own
 * segment), every dimension that leaves the node sent by the MPI transport.
 *
 * Which dimensions: d goes through shared memory at a rank when every rank
 * of its line along d is on its node; the ranks of that line all see the
 * same line, so they agree.  A rank's area is laid out for its own set of
 * such dimensions; the ranks of a node exchange those sets (one
 * MPI_Allgather of a word) so that a sender finds its ring in a peer's
 * area.  The window lives until torus_shm_destroy; MPI owns the segment,
 * so a job that dies leaves nothing behind that MPI would not clean up.
 *
 * Polling on a budget: the rings cost a load to look at, MPI_Test a trip
 * through the library's progress engine (100-300 ns here), and a rank
 * whose node hop is busy would otherwise test its network dimensions
 * between every two packets.  A network dimension is asked at most once
 * per TORUS_NET_POLL_NS (a "no" in between), which bounds the latency it
 * adds and leaves the node hop its core.
 *
 * Pages taken at set-up: the window's memory is known to be there before
 * the rings start (shm_room, touch_area), so a full /dev/shm is an error
 * of torus_shm_create on every rank (ra_opt then takes the MPI transport
 * for the node hop), never a SIGBUS at the first packet.
 */
#include "torus_mpi.h"
#include "torus_shm.h"
#include "torus_ticks.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Nanoseconds between two looks at a network dimension. */
#define TORUS_NET_POLL_NS 2000

struct torus_shm {
    torus_shm_core *core;
    torus_transport net;
    uint64_t budget;                    /* TORUS_NET_POLL_NS in ticks */
    uint64_t last_poll[TORUS_MAX_DIMS]; /* ticks of the last MPI look per dimension */
    uint64_t last_send[TORUS_MAX_DIMS];
    MPI_Win win;
    int have_win;
    int on[TORUS_MAX_DIMS];
    int count, ndims; /* dimensions through shared memory, of all with k >= 2 */
    int *node_rank;      /* comm rank -> rank in the node communicator, or MPI_UNDEFINED */
    unsigned *node_mask; /* node rank -> the dimensions its area holds */
    char **node_area;    /* node rank -> its area in my address space */
};

static void *area_of(void *ctx, int rank, unsigned *mask)
{
    torus_shm *s = ctx;
    int nr = s->node_rank[rank];
    if (nr == MPI_UNDEFINED)
        return NULL;
    *mask = s->node_mask[nr];
    return s->node_area[nr];
}

/* ---- the transport: shared memory where on[d], else the network -------- */

/* 1 when a network dimension's last look (*last) is a budget ago. */
static int due(const torus_shm *s, uint64_t *last)
{
    uint64_t now = torus_ticks();
    if (now - *last < s->budget)
        return 0;
    *last = now;
    return 1;
}

static int shm_can_send(void *impl, int d)
{
    torus_shm *s = impl;
    if (s->on[d])
        return torus_shm_can_send(s->core, d);
    return due(s, &s->last_send[d]) && s->net.can_send(s->net.impl, d);
}

static int shm_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    torus_shm *s = impl;
    return s->on[d] ? torus_shm_send(s->core, d, to, *buf, n, last) : s->net.send(s->net.impl, d, to, buf, n, last);
}

static int shm_poll(void *impl, int d, torus_packet *pkt)
{
    torus_shm *s = impl;
    if (s->on[d])
        return torus_shm_poll(s->core, d, pkt);
    return due(s, &s->last_poll[d]) && s->net.poll(s->net.impl, d, pkt);
}

static void shm_release(void *impl, int d)
{
    torus_shm *s = impl;
    if (s->on[d])
        torus_shm_release(s->core, d);
    else
        s->net.release(s->net.impl, d);
}

static int shm_quiescent(void *impl)
{
    torus_shm *s = impl;
    return torus_shm_quiescent(s->core) && s->net.quiescent(s->net.impl);
}

static int shm_sending(void *impl, int d)
{
    torus_shm *s = impl;
    if (s->on[d])
        return torus_shm_sending(s->core, d);
    return s->net.sending ? s->net.sending(s->net.impl, d) : 0;
}

/* The message interface is the network's. */
static int shm_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r)
{
    torus_shm *s = impl;
    return s->net.isend(s->net.impl, dest, buf, bytes, tag, r);
}

static int shm_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r)
{
    torus_shm *s = impl;
    return s->net.irecv(s->net.impl, src, buf, bytes, tag, r);
}

static int shm_test(void *impl, torus_req *r)
{
    torus_shm *s = impl;
    return s->net.test(s->net.impl, r);
}

static int shm_sleep(void *impl, long timeout_ns)
{
    torus_shm *s = impl;
    /* a network dimension is only looked at when asked: bound the sleep */
    if (s->count < s->ndims && timeout_ns > 4 * TORUS_NET_POLL_NS)
        timeout_ns = 4 * TORUS_NET_POLL_NS;
    return torus_shm_sleep(s->core, timeout_ns);
}

void torus_shm_bind(torus_shm *s, torus_transport *t)
{
    *t = (torus_transport){.impl = s,
                           .can_send = shm_can_send,
                           .send = shm_send,
                           .poll = shm_poll,
                           .release = shm_release,
                           .quiescent = shm_quiescent,
                           .sending = shm_sending,
                           .isend = s->net.isend ? shm_isend : NULL,
                           .irecv = s->net.irecv ? shm_irecv : NULL,
                           .test = s->net.test ? shm_test : NULL,
                           .sleep = shm_sleep};
}

int torus_shm_count(const torus_shm *s)
{
    return s->count;
}

/* Which dimensions stay on the node at this rank. */
static void node_dims(torus_shm *s, const torus_map *m, int me)
{
    const torus_shape *sh = &m->shape;
    const int *my = &m->coords[(size_t)me * (size_t)sh->ndims];
    for (int d = 0; d < sh->ndims; d++) {
        s->on[d] = sh->k[d] >= 2;
        int cc[TORUS_MAX_DIMS];
        memcpy(cc, my, (size_t)sh->ndims * sizeof(int));
        for (int x = 0; x < sh->k[d] && s->on[d]; x++) {
            cc[d] = x;
            if (s->node_rank[m->rank_of[torus_map_linear(sh, cc)]] == MPI_UNDEFINED)
                s->on[d] = 0;
        }
        s->count += s->on[d];
        s->ndims += sh->k[d] >= 2;
    }
}

/* ---- the window's pages, taken at set-up ------------------------------ */

/* Whether /dev/shm holds `bytes` now: a segment of this process's takes
 * them (posix_fallocate) and gives them back.  Why before the window:
 * MPICH 4.0 sizes its shared window's file without taking the pages (the
 * first write past a full /dev/shm is SIGBUS: touch_area catches that),
 * and Open MPI 4.1's MPI_Win_allocate_shared returns an error on the rank
 * that creates the segment while the node's other ranks wait inside the
 * call for ever, which no caller can undo. */
static int shm_room(size_t bytes)
{
    char name[64];
    snprintf(name, sizeof name, "/torus_shm_room.%ld", (long)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return 0;
    shm_unlink(name);
    int ok = posix_fallocate(fd, 0, (off_t)bytes) == 0;
    close(fd);
    return ok;
}

static sigjmp_buf bus_jump;

static void on_bus(int sig)
{
    (void)sig;
    siglongjmp(bus_jump, 1);
}

/* Zeroes this rank's area with SIGBUS caught: 0, or -1 when a page could
 * not be had (the space shm_room saw was taken meanwhile).  Set-up runs
 * before the program starts threads of its own here, so the handler is
 * the process's for these few instructions only. */
static int touch_area(void *area, size_t bytes)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_bus;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &old))
        return -1;
    volatile int ok = 0;
    if (!sigsetjmp(bus_jump, 1)) {
        torus_shm_area_init(area, bytes);
        ok = 1;
    }
    sigaction(SIGBUS, &old, NULL);
    return ok ? 0 : -1;
}

/* The window over node, its pages taken on every rank: 0, or -1 with err
 * on every rank of comm (s->have_win says whether a window is left to
 * free). */
static int take_window(torus_shm *s, MPI_Comm comm, MPI_Comm node, size_t bytes, void **base, char *err,
                       size_t errlen)
{
    int local = 0;
    /* what the libraries put around the areas: Open MPI 4.1's osc sm
     * rounds each rank's part to pages (alloc_shared_noncontig) and adds
     * its own state to the segment (a 32 KiB /dev/shm that held our 25 KB
     * made it fail): a page per rank and 64 KiB for the segment */
    long page = sysconf(_SC_PAGESIZE);
    uint64_t pg = page > 0 ? (uint64_t)page : 4096;
    uint64_t mine = (bytes + pg - 1) / pg * pg + pg, total = 0;
    KIT_MPI_CHECK(MPI_Comm_rank(node, &local));
    KIT_MPI_CHECK(KMPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, node));
    total += 65536;
    /* one rank of a node asks for the whole node's window, as MPI would */
    if (!torus_all_ok(comm, local != 0 || (total <= SIZE_MAX && shm_room((size_t)total)))) {
        snprintf(err, errlen, "no room in /dev/shm for the shared window (%llu bytes on a node)",
                 (unsigned long long)total);
        return -1;
    }
    MPI_Info info;
    KIT_MPI_CHECK(MPI_Info_create(&info));
    /* each rank's area on pages of its own (first touch near its core) */
    KIT_MPI_CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    int rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 64, info, node, base, &s->win);
    KIT_MPI_CHECK(MPI_Info_free(&info));
    s->have_win = rc == MPI_SUCCESS;
    if (!torus_all_ok(comm, s->have_win)) {
        snprintf(err, errlen, "the shared window of %zu bytes per rank could not be made", bytes);
        return -1;
    }
    if (!torus_all_ok(comm, touch_area(*base, bytes) == 0)) {
        snprintf(err, errlen, "the pages of the shared window (%zu bytes per rank) could not be had: /dev/shm full",
                 bytes);
        return -1;
    }
    return 0;
}

int torus_shm_create(torus_shm **out, MPI_Comm comm, MPI_Comm node, const torus_map *m, int me, int cap,
                     int slots, const torus_transport *net, char *err, size_t errlen)
{
    *out = NULL;
    int n, nn;
    KIT_MPI_CHECK(MPI_Comm_size(comm, &n));
    KIT_MPI_CHECK(MPI_Comm_size(node, &nn));
    torus_shm *s = calloc(1, sizeof *s);
    int *all = malloc((size_t)n * sizeof *all);
    int ok = s && all;
    if (ok) {
        s->net = *net;
        s->budget = (uint64_t)(torus_ticks_per_second() * TORUS_NET_POLL_NS * 1e-9);
        s->node_rank = malloc((size_t)n * sizeof *s->node_rank);
        s->node_mask = calloc((size_t)nn, sizeof *s->node_mask);
        s->node_area = calloc((size_t)nn, sizeof *s->node_area);
        ok = s->node_rank && s->node_mask && s->node_area;
    }
    if (!torus_all_ok(comm, ok)) {
        snprintf(err, errlen, "out of memory for the shared-memory transport");
        free(all);
        torus_shm_destroy(s);
        return -1;
    }
    MPI_Group g, gn;
    for (int r = 0; r < n; r++)
        all[r] = r;
    KIT_MPI_CHECK(MPI_Comm_group(comm, &g));
    KIT_MPI_CHECK(MPI_Comm_group(node, &gn));
    KIT_MPI_CHECK(MPI_Group_translate_ranks(g, n, all, gn, s->node_rank));
    KIT_MPI_CHECK(MPI_Group_free(&g));
    KIT_MPI_CHECK(MPI_Group_free(&gn));
    free(all);
    node_dims(s, m, me);
    unsigned mask = 0;
    for (int d = 0; d < m->shape.ndims; d++)
        mask |= (unsigned)s->on[d] << d;
    KIT_MPI_CHECK(MPI_Allgather(&mask, 1, MPI_UNSIGNED, s->node_mask, 1, MPI_UNSIGNED, node));

    size_t bytes = torus_shm_area_bytes(&m->shape, s->on, cap, slots);
    void *base = NULL;
    if (take_window(s, comm, node, bytes, &base, err, errlen)) {
        torus_shm_destroy(s);
        return -1;
    }
    for (int r = 0; r < nn; r++) {
        MPI_Aint sz;
        int disp;
        KIT_MPI_CHECK(MPI_Win_shared_query(s->win, r, &sz, &disp, &s->node_area[r]));
    }
    /* every area zeroed before anyone writes into a peer's */
    KIT_MPI_CHECK(KMPI_Barrier(node));
    s->core = torus_shm_core_create(m, me, s->on, cap, slots, area_of, s);
    if (!torus_all_ok(comm, s->core != NULL)) {
        snprintf(err, errlen, "out of memory for the shared-memory rings");
        torus_shm_destroy(s);
        return -1;
    }
    *out = s;
    return 0;
}

void torus_shm_destroy(torus_shm *s)
{
    if (!s)
        return;
    torus_shm_core_destroy(s->core);
    if (s->have_win)
        MPI_Win_free(&s->win);
    free(s->node_rank);
    free(s->node_mask);
    free(s->node_area);
    free(s);
}

void torus_shm_lazy_wake(torus_shm *s)
{
    if (s && s->core)
        torus_shm_set_lazy_wake(s->core, 1);
}
