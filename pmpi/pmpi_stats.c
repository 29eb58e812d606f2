/*
 * pmpi_stats.c - what the adapter did, printed at MPI_Finalize when
 * TORUS_COLL_STATS=1: one line per operation from rank 0 of MPI_COMM_WORLD,
 *
 *   torus_pmpi: allreduce: calls 14, torus 12 (recursive_doubling 10, empty 2),
 *               bytes 152, msgs 20, time_s 0.000210, fell_through 2 (user_op 1, repro 1)
 *
 * (one line), each figure the largest over the ranks of that rank's own
 * count, so that calls on communicators without rank 0 show too.  bytes is
 * the payload the rank passed (bcast and allreduce: the type signature's
 * bytes; alltoall(v): the bytes it sent); msgs the messages the torus
 * algorithms sent (neighbor_alltoallv: its exchanges', not the set-up of
 * its plans); time_s the wall time inside the intercepted calls
 * (fall-throughs are counted, not timed).  "trivial" is a call with
 * nothing to move (one rank); "empty" a zero-byte call, which returns at
 * once with no message.  neighbor_alltoallv adds "plans N" (multisend
 * plans built; the rest of its calls replayed one) and "agreements N"
 * (its per-call allreduce).  Then one summary line names the commonest
 * reason a call fell through, so that a user sees at once why a program
 * did not speed up:
 *
 *   torus_pmpi: summary: calls 412, torus 380, fell_through 32, most for user_op (30 of them)
 */
#include "pmpi_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { ALGS = 32, TRIVIAL = ALGS, EMPTY, FLAT, SLOTS };

/* One operation's counters, as words of a row (one row per operation):
 * a flat array reduces over the ranks in one call, and the live rows can
 * be atomic while the reduced copy is plain. */
enum { W_TORUS = 0, W_FELL, W_ALG = W_FELL + PM_NWHY, W_BYTES = W_ALG + SLOTS, W_NS, W_CALLS, W_PLANS, W_MSGS,
       W_AGREEMENTS, W };

/* Kept only under TORUS_COLL_STATS=1.  Relaxed atomics: under MPI_THREAD_MULTIPLE threads count at once (an
 * increment, no order needed: the figures are read after every thread's
 * last call, at MPI_Finalize); otherwise a plain load and store, no locked
 * instruction on the call's path. */
typedef _Atomic uint64_t counter;
static counter stats[PM_NOPS][W];
int pm__timing;

static void bump(counter *c, uint64_t v)
{
    if (!pm__timing) /* nobody will read them: nothing on the call's path */
        return;
    if (pm__settings()->threaded)
        atomic_fetch_add_explicit(c, v, memory_order_relaxed);
    else
        atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v, memory_order_relaxed);
}

static const char *const op_names[PM_NOPS] = {"barrier", "bcast", "allreduce", "alltoall", "alltoallv",
                                              "neighbor_alltoallv"};
static const char *const why_names[PM_NWHY] = {"", "off", "intercomm", "datatype", "user_op",
                                                "type_op", "repro", "args", "setup", "topology", "persistent", "table",
                                                "faster"};

/* The algorithm names of op: the torus collective's, or multisend's. */
static const char *const *alg_names(int op)
{
    return op == PM_NEIGHBOR_ALLTOALLV ? torus_multisend_algorithms() : torus_coll_algorithms(pm__coll_op((pm_op)op));
}

static double now(void)
{
    return PMPI_Wtime();
}

static uint64_t msgs_of(const pm_comm *pc)
{
    torus_coll_counts k;
    torus_coll_get_counts(pc->c, &k);
    return k.msgs_sent;
}

void pm__count_fell(pm_op op, pm_why why)
{
    bump(&stats[op][W_FELL + why], 1);
}

pm_mark pm__start(const pm_comm *pc)
{
    pm_mark m = {0, 0};
    if (pm__timing) {
        m.t0 = now();
        m.msgs = msgs_of(pc);
    }
    return m;
}

/* The stats slot of an algorithm name: the library hands back the very
 * pointers alg_names lists, so a pointer scan finds it; names compared as
 * text only if it did not. */
static int slot_of(pm_op op, const char *algorithm)
{
    if (!algorithm)
        return TRIVIAL;
    if (algorithm == pm__flat_name)
        return FLAT;
    const char *const *names = alg_names(op);
    for (int i = 0; i < ALGS && names[i]; i++)
        if (names[i] == algorithm)
            return i;
    for (int i = 0; i < ALGS && names[i]; i++)
        if (!strcmp(names[i], algorithm))
            return i;
    return TRIVIAL;
}

void pm__ran(pm_op op, size_t bytes, const char *algorithm, pm_mark m, const pm_comm *pc)
{
    if (!pm__timing)
        return;
    counter *s = stats[op];
    bump(&s[W_TORUS], 1);
    bump(&s[W_BYTES], bytes);
    bump(&s[W_ALG + slot_of(op, algorithm)], 1);
    if (pm__timing) {
        bump(&s[W_NS], (uint64_t)((now() - m.t0) * 1e9));
        bump(&s[W_MSGS], msgs_of(pc) - m.msgs);
    }
}

void pm__count_empty(pm_op op)
{
    bump(&stats[op][W_TORUS], 1);
    bump(&stats[op][W_ALG + EMPTY], 1);
}

int pm__counted_empty(pm_op op)
{
    pm__count_empty(op);
    return MPI_SUCCESS;
}

void pm__agreed(pm_op op)
{
    bump(&stats[op][W_AGREEMENTS], 1);
}

void pm__planned(void)
{
    bump(&stats[PM_NEIGHBOR_ALLTOALLV][W_PLANS], 1);
}

/* The summary line: totals, and the reason most calls fell through for. */
static void summary(uint64_t all[PM_NOPS][W])
{
    uint64_t calls = 0, torus = 0, fell = 0, by[PM_NWHY] = {0};
    for (int op = 0; op < PM_NOPS; op++) {
        calls += all[op][W_CALLS];
        torus += all[op][W_TORUS];
        for (int w = 1; w < PM_NWHY; w++) {
            by[w] += all[op][W_FELL + w];
            fell += all[op][W_FELL + w];
        }
    }
    int top = 0;
    for (int w = 1; w < PM_NWHY; w++)
        if (by[w] > (top ? by[top] : 0))
            top = w;
    if (top)
        fprintf(stderr, "torus_pmpi: summary: calls %llu, torus %llu, fell_through %llu, most for %s (%llu of them)\n",
                (unsigned long long)calls, (unsigned long long)torus, (unsigned long long)fell, why_names[top],
                (unsigned long long)by[top]);
    else
        fprintf(stderr, "torus_pmpi: summary: calls %llu, torus %llu, fell_through 0\n", (unsigned long long)calls,
                (unsigned long long)torus);
}

void pm__print_stats(pm_why mode)
{
    if (!pm__timing)
        return;
    int me = 0, n = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    /* MPI_Finalize: every thread's last call is over */
    uint64_t mine[PM_NOPS][W], all[PM_NOPS][W];
    for (int op = 0; op < PM_NOPS; op++) {
        for (int k = 0; k < W; k++)
            mine[op][k] = atomic_load_explicit(&stats[op][k], memory_order_relaxed);
        mine[op][W_CALLS] = mine[op][W_TORUS];
        for (int w = 0; w < PM_NWHY; w++)
            mine[op][W_CALLS] += mine[op][W_FELL + w];
    }
    PMPI_Reduce(mine, all, PM_NOPS * W, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me)
        return;
    fprintf(stderr, "torus_pmpi: stats over %d ranks%s (each figure the largest over ranks)\n", n,
            mode == PM_WHY_OFF ? ", TORUS_COLL=off" : "");
    const pm_settings *set = pm__settings();
    if (set->nodes)
        fprintf(stderr, "torus_pmpi: nodes: %d, %d ranks per node at most (from %s)\n", set->nodes, set->per_node,
                set->node_src);
    for (int op = 0; op < PM_NOPS; op++) {
        const uint64_t *s = all[op];
        char line[1024];
        size_t o = (size_t)snprintf(line, sizeof line, "torus_pmpi: %s: calls %llu, torus %llu", op_names[op],
                                    (unsigned long long)s[W_CALLS], (unsigned long long)s[W_TORUS]);
        const char *const *names = alg_names(op);
        const char *sep = " (";
        for (int i = 0; i < SLOTS && o < sizeof line; i++)
            if (s[W_ALG + i]) {
                o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu", sep,
                                      i == TRIVIAL  ? "trivial"
                                      : i == EMPTY  ? "empty"
                                      : i == FLAT   ? pm__flat_name
                                                    : names[i],
                                      (unsigned long long)s[W_ALG + i]);
                sep = ", ";
            }
        if (*sep == ',' && o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ")");
        uint64_t fell = 0;
        for (int w = 1; w < PM_NWHY; w++)
            fell += s[W_FELL + w];
        if (op == PM_NEIGHBOR_ALLTOALLV && o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ", plans %llu, agreements %llu",
                                  (unsigned long long)s[W_PLANS], (unsigned long long)s[W_AGREEMENTS]);
        if (o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ", bytes %llu, msgs %llu, time_s %.6f, fell_through %llu",
                                  (unsigned long long)s[W_BYTES], (unsigned long long)s[W_MSGS], (double)s[W_NS] * 1e-9,
                                  (unsigned long long)fell);
        sep = " (";
        for (int w = 1; w < PM_NWHY && o < sizeof line; w++)
            if (s[W_FELL + w]) {
                o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu", sep, why_names[w],
                                      (unsigned long long)s[W_FELL + w]);
                sep = ", ";
            }
        if (*sep == ',' && o < sizeof line)
            snprintf(line + o, sizeof line - o, ")");
        fprintf(stderr, "%s\n", line);
    }
    summary(all);
}
