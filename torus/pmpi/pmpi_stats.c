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

#include <stdio.h>
#include <string.h>

enum { ALGS = 32, TRIVIAL = ALGS, EMPTY, SLOTS };

typedef struct pm_stat {
    uint64_t torus, fell[PM_NWHY], alg[SLOTS], bytes, ns, calls, plans, msgs, agreements;
} pm_stat;

static pm_stat stats[PM_NOPS];
int pm__timing;

static const char *const op_names[PM_NOPS] = {"barrier", "bcast", "allreduce", "alltoall", "alltoallv",
                                              "neighbor_alltoallv"};
static const char *const why_names[PM_NWHY] = {"", "off", "threads", "intercomm", "datatype", "user_op",
                                                "type_op", "repro", "args", "setup", "topology", "persistent", "table"};

/* The algorithm names of op: the torus collective's, or multisend's. */
static const char *const *alg_names(int op)
{
    static const torus_coll_op coll_of[PM_NOPS] = {TORUS_COLL_BARRIER, TORUS_COLL_BCAST, TORUS_COLL_ALLREDUCE,
                                                   TORUS_COLL_ALLTOALLV, TORUS_COLL_ALLTOALLV};
    return op == PM_NEIGHBOR_ALLTOALLV ? torus_multisend_algorithms() : torus_coll_algorithms(coll_of[op]);
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

void pm__fell(pm_op op, pm_why why)
{
    stats[op].fell[why]++;
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

void pm__ran(pm_op op, size_t bytes, const char *algorithm, pm_mark m, const pm_comm *pc)
{
    pm_stat *s = &stats[op];
    s->torus++;
    s->bytes += bytes;
    int slot = TRIVIAL;
    if (algorithm) {
        const char *const *names = alg_names(op);
        for (int i = 0; i < ALGS && names[i]; i++)
            if (names[i] == algorithm || !strcmp(names[i], algorithm)) {
                slot = i;
                break;
            }
    }
    s->alg[slot]++;
    if (pm__timing) {
        s->ns += (uint64_t)((now() - m.t0) * 1e9);
        s->msgs += msgs_of(pc) - m.msgs;
    }
}

void pm__empty(pm_op op)
{
    stats[op].torus++;
    stats[op].alg[EMPTY]++;
}

void pm__agreed(pm_op op)
{
    stats[op].agreements++;
}

void pm__planned(void)
{
    stats[PM_NEIGHBOR_ALLTOALLV].plans++;
}

/* The summary line: totals, and the reason most calls fell through for. */
static void summary(const pm_stat *all)
{
    uint64_t calls = 0, torus = 0, fell = 0, by[PM_NWHY] = {0};
    for (int op = 0; op < PM_NOPS; op++) {
        calls += all[op].calls;
        torus += all[op].torus;
        for (int w = 1; w < PM_NWHY; w++) {
            by[w] += all[op].fell[w];
            fell += all[op].fell[w];
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
    if (mode == PM_WHY_THREADS) {
        if (me == 0)
            fprintf(stderr, "torus_pmpi: off under MPI_THREAD_MULTIPLE: every call went to the MPI library\n");
        return;
    }
    for (int op = 0; op < PM_NOPS; op++) {
        pm_stat *s = &stats[op];
        s->calls = s->torus;
        for (int w = 0; w < PM_NWHY; w++)
            s->calls += s->fell[w];
    }
    pm_stat all[PM_NOPS];
    enum { WORDS = PM_NOPS * (sizeof(pm_stat) / sizeof(uint64_t)) };
    PMPI_Reduce(stats, all, WORDS, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me)
        return;
    fprintf(stderr, "torus_pmpi: stats over %d ranks%s (each figure the largest over ranks)\n", n,
            mode == PM_WHY_OFF ? ", TORUS_COLL=off" : "");
    if (pm__nodes)
        fprintf(stderr, "torus_pmpi: nodes: %d, %d ranks per node at most (from %s)\n", pm__nodes, pm__per_node,
                pm__node_src);
    for (int op = 0; op < PM_NOPS; op++) {
        const pm_stat *s = &all[op];
        char line[1024];
        size_t o = (size_t)snprintf(line, sizeof line, "torus_pmpi: %s: calls %llu, torus %llu", op_names[op],
                                    (unsigned long long)s->calls, (unsigned long long)s->torus);
        const char *const *names = alg_names(op);
        const char *sep = " (";
        for (int i = 0; i < SLOTS && o < sizeof line; i++)
            if (s->alg[i]) {
                o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu", sep,
                                      i == TRIVIAL ? "trivial" : i == EMPTY ? "empty" : names[i],
                                      (unsigned long long)s->alg[i]);
                sep = ", ";
            }
        if (*sep == ',' && o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ")");
        uint64_t fell = 0;
        for (int w = 1; w < PM_NWHY; w++)
            fell += s->fell[w];
        if (op == PM_NEIGHBOR_ALLTOALLV && o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ", plans %llu, agreements %llu",
                                  (unsigned long long)s->plans, (unsigned long long)s->agreements);
        if (o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, ", bytes %llu, msgs %llu, time_s %.6f, fell_through %llu",
                                  (unsigned long long)s->bytes, (unsigned long long)s->msgs, (double)s->ns * 1e-9,
                                  (unsigned long long)fell);
        sep = " (";
        for (int w = 1; w < PM_NWHY && o < sizeof line; w++)
            if (s->fell[w]) {
                o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu", sep, why_names[w],
                                      (unsigned long long)s->fell[w]);
                sep = ", ";
            }
        if (*sep == ',' && o < sizeof line)
            snprintf(line + o, sizeof line - o, ")");
        fprintf(stderr, "%s\n", line);
    }
    summary(all);
}
