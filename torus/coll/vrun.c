/*
 * vrun.c - every rank of a map as a coroutine in one process, over the
 * functional or the timed simulated transport.  Algorithms are written in
 * blocking style (send, receive, wait); when a wait finds nothing to do,
 * the rank's coroutine switches back to the scheduler (the context's idle
 * hook), which runs another rank.  The functional scheduler looks for
 * deadlocks; the timed one is torus_timed_run's discrete-event loop.
 * Coroutines have mmap'ed stacks (only touched pages cost memory, so
 * thousands of ranks fit).  On x86-64 a switch is a dozen instructions
 * (callee-saved registers, the SSE and x87 control words, the stack
 * pointer): glibc's swapcontext also saves the signal mask, one system
 * call per switch, which was most of a simulation's system time.
 * Elsewhere, and under AddressSanitizer (which must see the stack
 * switches), POSIX ucontext does it.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define STACK_BYTES (256 * 1024)

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VRUN_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define VRUN_ASAN 1
#endif
#if defined(__x86_64__) && !defined(VRUN_ASAN)
#define VRUN_FAST 1
#else
#define VRUN_FAST 0
#endif

#if VRUN_FAST
/* Saves the System V callee-saved state on the current stack, stores the
 * stack pointer in *save, continues on the stack `to` (left by another
 * switch, or made by make_coroutine). */
void torus__vrun_switch(void **save, void *to);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl torus__vrun_switch\n"
        ".hidden torus__vrun_switch\n"
        ".type torus__vrun_switch, @function\n"
        "torus__vrun_switch:\n"
        "\tpushq %rbp\n"
        "\tpushq %rbx\n"
        "\tpushq %r12\n"
        "\tpushq %r13\n"
        "\tpushq %r14\n"
        "\tpushq %r15\n"
        "\tsubq $8, %rsp\n"
        "\tstmxcsr (%rsp)\n"
        "\tfnstcw 4(%rsp)\n"
        "\tmovq %rsp, (%rdi)\n"
        "\tmovq %rsi, %rsp\n"
        "\tldmxcsr (%rsp)\n"
        "\tfldcw 4(%rsp)\n"
        "\taddq $8, %rsp\n"
        "\tpopq %r15\n"
        "\tpopq %r14\n"
        "\tpopq %r13\n"
        "\tpopq %r12\n"
        "\tpopq %rbx\n"
        "\tpopq %rbp\n"
        "\tret\n"
        ".size torus__vrun_switch, .-torus__vrun_switch\n");
#endif

typedef struct vrank {
    ucontext_t uc;
    void *sp; /* VRUN_FAST: the stack pointer it was left at */
    void *stack;
    torus_coll *c;
    int rank, done, rc;
    char err[256];
} vrank;

typedef struct vrun {
    ucontext_t main;
    void *main_sp; /* VRUN_FAST */
    vrank *v;
    int n;
    torus_coll_body body;
    void *arg;
    torus_transport *tps;
    torus_timed *tt; /* timed runs */
} vrun;

static vrun *g_run; /* the scheduler of the running simulation (one at a time) */
static vrank *g_cur;

static void yield_to_scheduler(void *ctx)
{
    vrank *v = ctx;
#if VRUN_FAST
    torus__vrun_switch(&v->sp, g_run->main_sp);
#else
    swapcontext(&v->uc, &g_run->main);
#endif
}

static void entry(void)
{
    vrank *v = g_cur;
    v->rc = g_run->body(v->c, v->rank, g_run->arg);
    if (v->rc)
        snprintf(v->err, sizeof v->err, "%s", torus_coll_error(v->c));
    v->done = 1;
#if VRUN_FAST
    /* back to the scheduler, which never resumes a finished rank */
    torus__vrun_switch(&v->sp, g_run->main_sp);
    abort();
#endif
    /* ucontext: uc_link returns to the scheduler */
}

static void resume(vrun *run, vrank *v)
{
    g_cur = v;
#if VRUN_FAST
    torus__vrun_switch(&run->main_sp, v->sp);
#else
    swapcontext(&run->main, &v->uc);
#endif
}

static int setup(vrun *run, const torus_map *m, const int *node_of, torus_coll_body body, void *arg)
{
    memset(run, 0, sizeof *run);
    run->n = m->shape.n;
    run->body = body;
    run->arg = arg;
    run->v = calloc((size_t)run->n, sizeof *run->v);
    run->tps = calloc((size_t)run->n, sizeof *run->tps);
    if (!run->v || !run->tps)
        return -1;
    return 0;
    (void)node_of;
}

/* A stack and a context that starts in entry(); a function of its own so
 * that getcontext's setjmp-like return clobbers no loop variable. */
static int make_coroutine(vrun *run, vrank *v)
{
    v->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (v->stack == MAP_FAILED) {
        v->stack = NULL;
        return -1;
    }
#if VRUN_FAST
    /* the frame torus__vrun_switch restores: control words (MXCSR and
     * x87 defaults), six registers, then "returns" into entry() with the
     * stack aligned as at a call (a zero return address above it) */
    uint64_t *f = (uint64_t *)((char *)v->stack + STACK_BYTES - 72);
    f[0] = 0x1F80u | (uint64_t)0x037Fu << 32;
    for (int i = 1; i <= 6; i++)
        f[i] = 0;
    f[7] = (uint64_t)(uintptr_t)entry;
    f[8] = 0;
    v->sp = f;
    (void)run;
    return 0;
#endif
    if (getcontext(&v->uc))
        return -1;
    v->uc.uc_stack.ss_sp = v->stack;
    v->uc.uc_stack.ss_size = STACK_BYTES;
    v->uc.uc_link = &run->main;
    makecontext(&v->uc, entry, 0);
    return 0;
}

static int start_ranks(vrun *run, const torus_map *m, const int *node_of)
{
    for (int r = 0; r < run->n; r++) {
        vrank *v = &run->v[r];
        v->rank = r;
        torus_coll_config cfg = {.map = m, .me = r, .tp = &run->tps[r], .node_of = node_of,
                                 .idle = yield_to_scheduler, .idle_ctx = v};
        char err[256];
        if (torus_coll_create(&v->c, &cfg, err, sizeof err))
            return -1;
        if (make_coroutine(run, v))
            return -1;
    }
    return 0;
}

static void finish(vrun *run, torus_coll_vrun_result *res, int (*open)(const void *, int), const void *tr)
{
    res->failed_rank = -1;
    for (int r = 0; r < run->n; r++) {
        vrank *v = &run->v[r];
        if (!v->done)
            res->unfinished++;
        else if (v->rc && res->failed_rank < 0) {
            res->failed_rank = r;
            res->rc = v->rc;
            snprintf(res->err, sizeof res->err, "%s", v->err);
        }
        if (tr && v->done)
            res->open_requests += open(tr, r);
    }
}

static void teardown(vrun *run)
{
    for (int r = 0; run->v && r < run->n; r++) {
        if (run->v[r].stack)
            munmap(run->v[r].stack, STACK_BYTES);
        torus_coll_destroy(run->v[r].c);
    }
    free(run->v);
    free(run->tps);
    g_run = NULL;
}

static int sim_open(const void *s, int r)
{
    return torus_sim_open_requests(s, r);
}

static int timed_open(const void *s, int r)
{
    return torus_timed_open_requests(s, r);
}

int torus_coll_vrun_sim(const torus_map *m, const torus_sim_params *p, const int *node_of, torus_coll_body body,
                        void *arg, torus_coll_vrun_result *res)
{
    memset(res, 0, sizeof *res);
    vrun run;
    torus_sim_params sp = *p;
    if (sp.cap < 1)
        sp.cap = 1;
    if (sp.outstanding < 1)
        sp.outstanding = 1;
    torus_sim *sim = NULL;
    int rc = -1;
    if (setup(&run, m, node_of, body, arg) || !(sim = torus_sim_create(m, &sp)))
        goto out;
    for (int r = 0; r < run.n; r++)
        torus_sim_bind(sim, r, &run.tps[r]);
    g_run = &run;
    if (start_ranks(&run, m, node_of))
        goto out;
    int left = run.n;
    while (left > 0) {
        int moved = 0;
        for (int i = 0; i < run.n; i++) {
            int r = (int)(torus_sim_rand(sim) % (uint64_t)run.n);
            vrank *v = &run.v[r];
            if (v->done)
                continue;
            uint64_t p0 = v->c->progress;
            resume(&run, v);
            res->steps++;
            moved |= v->c->progress != p0 || v->done;
            left -= v->done;
            if (v->done)
                v->done = 2; /* counted */
        }
        if (moved)
            continue;
        /* nothing moved: every message visible, every rank once */
        torus_sim_set_strict(sim, 1);
        for (int r = 0; r < run.n; r++) {
            vrank *v = &run.v[r];
            if (v->done)
                continue;
            uint64_t p0 = v->c->progress;
            resume(&run, v);
            res->steps++;
            moved |= v->c->progress != p0 || v->done;
            left -= v->done != 0;
            if (v->done)
                v->done = 2;
        }
        torus_sim_set_strict(sim, 0);
        if (!moved) {
            res->deadlock = 1;
            break;
        }
    }
    finish(&run, res, sim_open, sim);
    rc = 0;
out:
    teardown(&run);
    torus_sim_destroy(sim);
    return rc;
}

typedef struct timed_ctx {
    vrun *run;
    torus_timed *tt;
    uint64_t steps;
} timed_ctx;

static int timed_step(void *ctx, int r, double now, double *cpu_s)
{
    timed_ctx *t = ctx;
    vrank *v = &t->run->v[r];
    uint64_t p0 = v->c->progress;
    (void)now;
    resume(t->run, v);
    t->steps++;
    *cpu_s = torus_timed_take_cpu(t->tt, r);
    if (v->done)
        return TORUS_TIMED_DONE;
    return v->c->progress != p0 ? TORUS_TIMED_MOVED : TORUS_TIMED_IDLE;
}

int torus_coll_vrun_timed(const torus_map *m, const torus_timed_params *p, const int *node_of, torus_coll_body body,
                          void *arg, torus_coll_vrun_result *res)
{
    memset(res, 0, sizeof *res);
    vrun run;
    torus_timed_params tp = *p;
    if (tp.cap < 1)
        tp.cap = 1;
    if (tp.outstanding < 1)
        tp.outstanding = 1;
    torus_timed *tt = NULL;
    int rc = -1;
    if (setup(&run, m, node_of, body, arg) || !(tt = torus_timed_create(m, &tp)))
        goto out;
    run.tt = tt;
    for (int r = 0; r < run.n; r++)
        torus_timed_bind(tt, r, &run.tps[r]);
    g_run = &run;
    if (start_ranks(&run, m, node_of))
        goto out;
    timed_ctx t = {&run, tt, 0};
    if (torus_timed_run(tt, timed_step, &t, &res->timed))
        res->deadlock = 1;
    res->steps = t.steps;
    finish(&run, res, timed_open, tt);
    rc = 0;
out:
    teardown(&run);
    torus_timed_destroy(tt);
    return rc;
}

double torus_coll_vtime(const torus_coll *c)
{
    if (!g_run || !g_run->tt)
        return 0;
    return torus_timed_clock(g_run->tt, c->me);
}
