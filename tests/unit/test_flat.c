/*
 * test_flat.c - the shared-area collectives (torus/coll/flat.c) with one
 * thread per rank over plain memory: every root, size and op, results
 * checked bit for bit, a bcast larger than a buffer (in pieces), calls
 * of different ops back to back (the slot
 * reuse protocol), a fixed root running ahead of slow readers, large
 * bcasts process to process and in pieces, and the arguments it refuses.
 */
#define _GNU_SOURCE /* syscall numbers */
#include "torus_flat.h"

#include "kit_mix.h"
#include "test.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CAP = 1024 };

static const int ranks[] = {1, 2, 3, 5, 8};

/* A zeroed, line-aligned area of n slots. */
static void *area_for(int n)
{
    size_t bytes = (size_t)n * torus_flat_slot_bytes(CAP);
    void *a = aligned_alloc(64, bytes);
    if (a)
        memset(a, 0, bytes);
    return a;
}

static unsigned char pattern(int call, int rank, size_t i)
{
    return (unsigned char)(call * 31 + rank * 7 + i * 13 + 1);
}

/* Large bcasts process to process (torus_flat_direct) in the runs that
 * follow: 1 after every thread's probe (threads of one process reach each
 * other's memory), 0 through the area. */
static int direct;

/* Runs body(f, me, n, errs) on n threads sharing one area; the errors the
 * threads counted, or -1 when a thread could not be set up. */
typedef int (*body_fn)(torus_flat *f, int me, int n);
static long on_threads(int n, body_fn body)
{
    void *area = area_for(n);
    long errs = area ? 0 : -1;
    int got = 0;
    if (area) {
#pragma omp parallel num_threads(n) reduction(+ : errs)
        {
            int me = omp_get_thread_num();
#pragma omp atomic
            got++;
            torus_flat *f = torus_flat_create(n, me, CAP, area, NULL, NULL);
            if (direct) {
#pragma omp barrier
                errs += !f || !torus_flat_probe(f); /* every end made: probe them */
                if (f)
                    torus_flat_direct(f, 1);
            }
            errs += f ? body(f, me, n) : 1;
            torus_flat_destroy(f);
        }
    }
    free(area);
    return got == n ? errs : -1;
}

/* Sizes to five buffers and a bit: a bcast larger than a buffer goes in
 * pieces, one call number each; every tenth call a whole number of them. */
static int bcast_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    unsigned char buf[5 * CAP + 3];
    for (int call = 0; call < 300; call++) {
        int root = call % n;
        size_t bytes = call % 10 ? (size_t)(call * 37) % sizeof buf : (size_t)(call / 10 % 6) * CAP;
        for (size_t i = 0; i < bytes; i++)
            buf[i] = me == root ? pattern(call, root, i) : 0;
        errs += torus_flat_bcast(f, buf, bytes, root) != 0;
        for (size_t i = 0; i < bytes; i++)
            errs += buf[i] != pattern(call, root, i);
    }
    return errs;
}

static void t_bcast(void)
{
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        ASSERT_EQ_INT(on_threads(ranks[i], bcast_body), 0);
}

/* Doubles whose sum depends on the order: the result must be the rank
 * order's, the same bits on every rank. */
static double term(int call, int rank, size_t i)
{
    return (rank % 2 ? 1e16 : 1.0) * (1 + (call + rank + (int)i) % 5) * (rank % 3 ? -1 : 1) + 0.25 * rank;
}

static int allreduce_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    enum { M = CAP / sizeof(double) };
    double s[M], d[M];
    int64_t si[M], di[M];
    for (int call = 0; call < 200; call++) {
        size_t count = (size_t)(call * 11) % (M + 1);
        for (size_t i = 0; i < count; i++)
            s[i] = term(call, me, i), si[i] = (int64_t)(call * 1000 + me * 10) - (int64_t)i;
        int in_place = call % 3 == 0;
        if (in_place)
            memcpy(d, s, count * sizeof *s);
        errs += torus_flat_allreduce(f, in_place ? d : s, d, count, TORUS_DOUBLE, TORUS_OP_SUM) != 0;
        errs += torus_flat_allreduce(f, si, di, count, TORUS_INT64, TORUS_OP_MAX) != 0;
        for (size_t i = 0; i < count; i++) {
            double want = term(call, 0, i);
            for (int r = 1; r < n; r++)
                want += term(call, r, i);
            errs += memcmp(&want, &d[i], sizeof want) != 0;
            errs += di[i] != (int64_t)(call * 1000 + (n - 1) * 10) - (int64_t)i;
        }
    }
    return errs;
}

static void t_allreduce(void)
{
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        ASSERT_EQ_INT(on_threads(ranks[i], allreduce_body), 0);
}

static int alltoall_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    unsigned char s[CAP], d[CAP];
    for (int call = 0; call < 200; call++) {
        size_t block = (size_t)call % (CAP / (size_t)n + 1);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < block; i++)
                s[(size_t)j * block + i] = pattern(call, me * n + j, i);
        errs += torus_flat_alltoall(f, s, d, block) != 0;
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < block; i++)
                errs += d[(size_t)r * block + i] != pattern(call, r * n + me, i);
    }
    return errs;
}

static void t_alltoall(void)
{
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        ASSERT_EQ_INT(on_threads(ranks[i], alltoall_body), 0);
}

/* Nobody leaves barrier k before everybody entered it. */
static atomic_int arrived;
static int barrier_body(torus_flat *f, int me, int n)
{
    (void)me;
    int errs = 0;
    for (int k = 1; k <= 300; k++) {
        atomic_fetch_add(&arrived, 1);
        errs += torus_flat_barrier(f) != 0;
        errs += atomic_load(&arrived) < k * n;
    }
    return errs;
}

static void t_barrier(void)
{
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
        atomic_store(&arrived, 0);
        ASSERT_EQ_INT(on_threads(ranks[i], barrier_body), 0);
    }
}

/* A barrier after a bcast lets the rank it expects to be the next root
 * out first (the last root and its step): still nobody leaves before
 * everybody entered, the root fixed, moving by one, or drawn at random,
 * and the data of every bcast right. */
static int root_mode;
static int bcast_barrier_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    uint64_t seed = 777;
    unsigned char buf[64];
    for (int k = 1; k <= 300; k++) {
        uint64_t x = kit_splitmix64_next(&seed);
        int root = root_mode == 0 ? n - 1 : root_mode == 1 ? k % n : (int)(x >> 40) % n;
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = pattern(k, me, i);
        errs += torus_flat_bcast(f, buf, sizeof buf, root) != 0;
        for (size_t i = 0; i < sizeof buf; i++)
            errs += buf[i] != pattern(k, root, i);
        atomic_fetch_add(&arrived, 1);
        errs += torus_flat_barrier(f) != 0;
        errs += atomic_load(&arrived) < k * n;
    }
    return errs;
}

static void t_barrier_after_bcast(void)
{
    for (root_mode = 0; root_mode < 3; root_mode++)
        for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
            atomic_store(&arrived, 0);
            ASSERT_EQ_INT(on_threads(ranks[i], bcast_barrier_body), 0);
        }
}

/* The four ops back to back in one order every rank draws alike: a slot
 * is rewritten only after every reader of its last contents is done. */
static int mixed_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    uint64_t seed = 12345;
    unsigned char buf[3 * CAP], out[CAP];
    for (int call = 0; call < 1000; call++) {
        uint64_t x = kit_splitmix64_next(&seed);
        int op = (int)(x >> 60) % 4, root = (int)(x >> 40) % n;
        /* a bcast also in pieces (to three buffers) */
        size_t bytes = (size_t)(x >> 20) % (op == 1 ? sizeof buf + 1 : CAP / (size_t)n + 1);
        for (size_t i = 0; i < bytes; i++)
            buf[i] = pattern(call, me, i);
        if (op == 0)
            errs += torus_flat_barrier(f);
        else if (op == 1) {
            errs += torus_flat_bcast(f, buf, bytes, root) != 0;
            for (size_t i = 0; i < bytes; i++)
                errs += buf[i] != pattern(call, root, i);
        } else if (op == 2) {
            errs += torus_flat_allreduce(f, buf, out, bytes, TORUS_UINT8, TORUS_OP_BXOR) != 0;
            for (size_t i = 0; i < bytes; i++) {
                unsigned char want = 0;
                for (int r = 0; r < n; r++)
                    want ^= pattern(call, r, i);
                errs += out[i] != want;
            }
        } else {
            size_t block = bytes / (size_t)n;
            errs += torus_flat_alltoall(f, buf, out, block) != 0;
            for (int r = 0; r < n; r++)
                for (size_t i = 0; i < block; i++)
                    errs += out[(size_t)r * block + i] != pattern(call, r, (size_t)me * block + i);
        }
    }
    return errs;
}

static void t_mixed(void)
{
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        ASSERT_EQ_INT(on_threads(ranks[i], mixed_body), 0);
}

/* A fixed root (IMB-MPI1's Bcast keeps root 0) runs ahead of readers
 * that dawdle: it never waits for the readers of its previous call, only
 * for those of the call TORUS_FLAT_GENERATIONS back, so its lead over the
 * slowest reader passes one call; and every reader still gets every
 * call's data (the lead's upper bound is not asserted: a reader's
 * `finished` is stored after its done line, and a thread descheduled in
 * between makes the lead look longer than it is). */
static atomic_long finished[8];
static atomic_long max_lead;
static int fixed_root_body(torus_flat *f, int me, int n)
{
    int errs = 0;
    unsigned char buf[CAP];
    for (long call = 1; call <= 400; call++) {
        size_t bytes = (size_t)(call * 53) % (CAP + 1);
        if (me == 0) {
            long slow = call;
            for (int r = 1; r < n; r++)
                slow = atomic_load(&finished[r]) < slow ? atomic_load(&finished[r]) : slow;
            long lead = call - 1 - slow; /* calls this root finished that a reader has not */
            if (lead > atomic_load(&max_lead))
                atomic_store(&max_lead, lead);
            for (size_t i = 0; i < bytes; i++)
                buf[i] = pattern((int)call, 0, i);
        } else if (call % 4 == 0) {
            for (volatile int spin = 0; spin < 20000; spin++) /* a reader busy elsewhere */
                ;
        }
        errs += torus_flat_bcast(f, buf, bytes, 0) != 0;
        for (size_t i = 0; i < bytes; i++)
            errs += buf[i] != pattern((int)call, 0, i);
        atomic_store(&finished[me], call);
    }
    return errs;
}

static void t_fixed_root_runs_ahead(void)
{
    for (int n = 2; n <= 3; n++) {
        for (int r = 0; r < 8; r++)
            atomic_store(&finished[r], 0);
        atomic_store(&max_lead, 0);
        ASSERT_EQ_INT(on_threads(n, fixed_root_body), 0);
    }
    /* it ran ahead: more than the one call a single buffer allows */
    ASSERT_TRUE(atomic_load(&max_lead) >= 2);
}

/* Bcasts of TORUS_FLAT_DIRECT bytes and more, every root, among small
 * calls of every kind (their slots and sequence words around the direct
 * ones), odd sizes too: each reader gets every byte, the root's buffer
 * is untouched. */
enum { LARGE_CALLS = 24 };
static int large_body(torus_flat *f, int me, int n)
{
    const size_t most = 2 * TORUS_FLAT_DIRECT + 4099;
    unsigned char *buf = malloc(most), small[CAP], out[CAP];
    int errs = !buf;
    for (int call = 0; buf && call < LARGE_CALLS; call++) {
        int root = (call * 5 + 1) % n;
        size_t bytes = call % 3 == 0 ? TORUS_FLAT_DIRECT : most - (size_t)call * 977;
        for (size_t i = 0; i < bytes; i++)
            buf[i] = me == root ? pattern(call, root, i) : 0;
        errs += torus_flat_bcast(f, buf, bytes, root) != 0;
        for (size_t i = 0; i < bytes; i++)
            errs += buf[i] != pattern(call, root, i);
        memset(small, me + 1, sizeof small);
        errs += call % 2 ? torus_flat_barrier(f) != 0
                         : torus_flat_allreduce(f, small, out, CAP / (size_t)n / 8 * 8, TORUS_UINT8, TORUS_OP_BXOR) != 0;
        errs += torus_flat_bcast(f, small, 100, root) != 0;
    }
    free(buf);
    /* every large one went process to process, or none */
    return errs + (torus_flat_direct_count(f) != (direct ? LARGE_CALLS : 0));
}

static void t_large_bcast_direct(void)
{
    static const int some[] = {2, 3, 5};
    for (int d = 1; d >= 0; d--) { /* process to process, then in pieces */
        direct = d;
        for (size_t i = 0; i < sizeof some / sizeof *some; i++)
            ASSERT_EQ_INT(on_threads(some[i], large_body), 0);
        ASSERT_EQ_INT(on_threads(2, mixed_body), 0);
        ASSERT_EQ_INT(on_threads(3, bcast_body), 0);
    }
    direct = 0;
}

/* A kernel that refuses the direct copies after the ranks agreed on
 * them (a seccomp filter answering EPERM, in a child process: the filter
 * cannot be taken back): every bcast still arrives whole, in pieces, on
 * 2 plain threads (OpenMP's pool does not survive a fork). */
static void *area_of_child;
static void *child_rank(void *arg)
{
    int me = (int)(intptr_t)arg;
    torus_flat *f = torus_flat_create(2, me, CAP, area_of_child, NULL, NULL);
    long errs = !f;
    if (f) {
        torus_flat_direct(f, 1);
        errs += large_body(f, me, 2); /* direct is 0 here: it also counts that none went so */
    }
    torus_flat_destroy(f);
    return (void *)(intptr_t)errs;
}

static int refused_child(void)
{
    struct sock_filter deny[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {sizeof deny / sizeof *deny, deny};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
        return 10;
    area_of_child = area_for(2);
    torus_flat *probe = area_of_child ? torus_flat_create(2, 0, CAP, area_of_child, NULL, NULL) : NULL;
    if (!probe || torus_flat_probe(probe)) /* the probe sees the refusal */
        return 11;
    torus_flat_destroy(probe);
    memset(area_of_child, 0, 2 * torus_flat_slot_bytes(CAP));
    pthread_t t[2];
    long errs = 0;
    for (int r = 0; r < 2; r++)
        if (pthread_create(&t[r], NULL, child_rank, (void *)(intptr_t)r))
            return 12;
    for (int r = 0; r < 2; r++) {
        void *e;
        pthread_join(t[r], &e);
        errs += (long)(intptr_t)e;
    }
    return errs ? 1 : 0;
}

static void t_direct_refused_falls_back(void)
{
    fflush(NULL);
    pid_t pid = fork();
    ASSERT_TRUE(pid >= 0);
    if (pid == 0)
        _exit(refused_child());
    int status = -1;
    ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ_INT(WEXITSTATUS(status), 0);
}

static void t_refuses(void)
{
    void *area = area_for(2);
    ASSERT_TRUE(area != NULL);
    ASSERT_TRUE(torus_flat_create(2, 2, CAP, area, NULL, NULL) == NULL);
    ASSERT_TRUE(torus_flat_create(0, 0, CAP, area, NULL, NULL) == NULL);
    ASSERT_TRUE(torus_flat_create(2, 0, CAP, (char *)area + 8, NULL, NULL) == NULL);
    torus_flat *f = torus_flat_create(1, 0, CAP, area, NULL, NULL);
    ASSERT_TRUE(f != NULL);
    unsigned char b[CAP + 8] = {0};
    ASSERT_EQ_INT(torus_flat_cap(f), CAP);
    ASSERT_EQ_INT(torus_flat_bcast(f, b, 8, 1), TORUS_COLL_EARG);
    ASSERT_EQ_INT(torus_flat_allreduce(f, b, b, CAP / 8 + 1, TORUS_DOUBLE, TORUS_OP_SUM), TORUS_COLL_EARG);
    ASSERT_EQ_INT(torus_flat_allreduce(f, b, b, 1, TORUS_DOUBLE, TORUS_OP_BXOR), TORUS_COLL_EARG);
    ASSERT_EQ_INT(torus_flat_alltoall(f, b, b, CAP + 1), TORUS_COLL_EARG);
    /* a refused call is no call: the next one still works */
    ASSERT_EQ_INT(torus_flat_bcast(f, b, CAP, 0), 0);
    /* larger than a buffer: in pieces, not refused */
    ASSERT_EQ_INT(torus_flat_bcast(f, b, CAP + 8, 0), 0);
    torus_flat_destroy(f);
    /* an area without data buffers (a barrier's only): no piece holds a byte */
    f = torus_flat_create(1, 0, 0, area, NULL, NULL);
    ASSERT_TRUE(f != NULL);
    ASSERT_EQ_INT(torus_flat_bcast(f, b, 1, 0), TORUS_COLL_EARG);
    ASSERT_EQ_INT(torus_flat_bcast(f, b, 0, 0), 0);
    torus_flat_destroy(f);
    free(area);
}

static const test_case cases[] = {
    {"bcast_every_root_and_size", t_bcast},
    {"allreduce_rank_order_same_bits", t_allreduce},
    {"alltoall_blocks", t_alltoall},
    {"barrier_waits_for_all", t_barrier},
    {"barrier_after_bcast_waits_for_all", t_barrier_after_bcast},
    {"mixed_ops_reuse_slots", t_mixed},
    {"fixed_root_runs_ahead", t_fixed_root_runs_ahead},
    {"large_bcast_direct", t_large_bcast_direct},
    {"direct_refused_falls_back", t_direct_refused_falls_back},
    {"refuses_what_does_not_fit", t_refuses},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_flat", cases);
}
