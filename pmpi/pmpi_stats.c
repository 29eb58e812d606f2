/*
 * pmpi_stats.c - what the adapter did, printed at MPI_Finalize when
 * TORUS_COLL_STATS=1 (or kv, below): one line per operation from rank 0 of
 * MPI_COMM_WORLD,
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
 *
 * TORUS_COLL_STATS=kv prints the same figures for scripts and the tests,
 * one line per operation and the summary, as key=value words in the same
 * order (alg. and why. keys for the nonzero counts only, as the
 * parentheses above; the summary adds ranks, torus_coll=off and the node
 * layout of the lines before it):
 *
 *   torus_pmpi_stats: op=allreduce calls=14 torus=12 alg.recursive_doubling=10 alg.empty=2 bytes=152
 *                     msgs=20 time_s=0.000210 fell_through=2 why.user_op=1 why.repro=1
 *   torus_pmpi_stats: op=summary calls=412 torus=380 fell_through=32 most=user_op most_n=30 ranks=4
 *
 * figures() turns the counters into the figures once; print_human and
 * print_kv only format them.
 */
#include "pmpi_impl.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { ALGS = 32, TRIVIAL = ALGS, EMPTY, FLAT, FLAT_DIRECT, SLOTS };

/* One operation's counters, as words of a row (one row per operation):
 * a flat array reduces over the ranks in one call, and the live rows can
 * be atomic while the reduced copy is plain. */
enum { W_TORUS = 0, W_FELL, W_ALG = W_FELL + PM_NWHY, W_BYTES = W_ALG + SLOTS, W_NS, W_CALLS, W_PLANS, W_MSGS,
       W_AGREEMENTS, W };

/* Kept only under TORUS_COLL_STATS=1 or kv.  Relaxed atomics: under MPI_THREAD_MULTIPLE threads count at once (an
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
    if (algorithm == pm__flat_direct_name)
        return FLAT_DIRECT;
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

/* The figures of one operation, as both printers show them: the nonzero
 * algorithm and reason counts in print order, named. */
typedef struct named_count {
    const char *name;
    uint64_t n;
} named_count;

typedef struct op_figures {
    const char *op;
    uint64_t calls, torus, bytes, msgs, fell, plans, agreements;
    double time_s;
    int has_plans; /* neighbor_alltoallv: plans and agreements shown */
    int nalg, nwhy;
    named_count alg[SLOTS], why[PM_NWHY];
} op_figures;

typedef struct stats_figures {
    int ranks, off; /* off: TORUS_COLL=off */
    int nodes, per_node;
    const char *node_src;
    op_figures op[PM_NOPS];
    uint64_t calls, torus, fell, most_n; /* most_n: the commonest reason's count (0: none) */
    const char *most;
} stats_figures;

/* The one place the reduced counters become figures: both printers below
 * only format what this fills. */
static void figures(uint64_t all[PM_NOPS][W], int ranks, pm_why mode, stats_figures *f)
{
    memset(f, 0, sizeof *f);
    const pm_settings *set = pm__settings();
    f->ranks = ranks;
    f->off = mode == PM_WHY_OFF;
    f->nodes = set->nodes;
    f->per_node = set->per_node;
    f->node_src = set->node_src;
    uint64_t by[PM_NWHY] = {0};
    for (int op = 0; op < PM_NOPS; op++) {
        const uint64_t *s = all[op];
        op_figures *o = &f->op[op];
        const char *const *names = alg_names(op);
        o->op = op_names[op];
        o->calls = s[W_CALLS];
        o->torus = s[W_TORUS];
        o->bytes = s[W_BYTES];
        o->msgs = s[W_MSGS];
        o->time_s = (double)s[W_NS] * 1e-9;
        o->has_plans = op == PM_NEIGHBOR_ALLTOALLV;
        o->plans = s[W_PLANS];
        o->agreements = s[W_AGREEMENTS];
        for (int i = 0; i < SLOTS; i++)
            if (s[W_ALG + i])
                o->alg[o->nalg++] = (named_count){i == TRIVIAL ? "trivial"
                                                  : i == EMPTY ? "empty"
                                                  : i == FLAT  ? pm__flat_name
                                                  : i == FLAT_DIRECT ? pm__flat_direct_name
                                                               : names[i],
                                                  s[W_ALG + i]};
        for (int w = 1; w < PM_NWHY; w++)
            if (s[W_FELL + w]) {
                o->why[o->nwhy++] = (named_count){why_names[w], s[W_FELL + w]};
                o->fell += s[W_FELL + w];
                by[w] += s[W_FELL + w];
            }
        f->calls += o->calls;
        f->torus += o->torus;
        f->fell += o->fell;
    }
    for (int w = 1; w < PM_NWHY; w++)
        if (by[w] > f->most_n) {
            f->most_n = by[w];
            f->most = why_names[w];
        }
}

/* Appends to a line of len bytes at *o, never past its end. */
static void add(char *line, size_t len, size_t *o, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *line, size_t len, size_t *o, const char *fmt, ...)
{
    if (*o >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line + *o, len - *o, fmt, ap);
    va_end(ap);
    *o = k < 0 ? len : *o + (size_t)k;
}

/* " (a 1, b 2)" of the human form, nothing for no counts. */
static void add_list(char *line, size_t len, size_t *o, const named_count *c, int n)
{
    for (int i = 0; i < n; i++)
        add(line, len, o, "%s%s %llu", i ? ", " : " (", c[i].name, (unsigned long long)c[i].n);
    if (n)
        add(line, len, o, ")");
}

static void print_human(const stats_figures *f)
{
    fprintf(stderr, "torus_pmpi: stats over %d ranks%s (each figure the largest over ranks)\n", f->ranks,
            f->off ? ", TORUS_COLL=off" : "");
    if (f->nodes)
        fprintf(stderr, "torus_pmpi: nodes: %d, %d ranks per node at most (from %s)\n", f->nodes, f->per_node,
                f->node_src);
    for (int op = 0; op < PM_NOPS; op++) {
        const op_figures *o = &f->op[op];
        char line[2048];
        size_t n = 0;
        add(line, sizeof line, &n, "torus_pmpi: %s: calls %llu, torus %llu", o->op, (unsigned long long)o->calls,
            (unsigned long long)o->torus);
        add_list(line, sizeof line, &n, o->alg, o->nalg);
        if (o->has_plans)
            add(line, sizeof line, &n, ", plans %llu, agreements %llu", (unsigned long long)o->plans,
                (unsigned long long)o->agreements);
        add(line, sizeof line, &n, ", bytes %llu, msgs %llu, time_s %.6f, fell_through %llu",
            (unsigned long long)o->bytes, (unsigned long long)o->msgs, o->time_s, (unsigned long long)o->fell);
        add_list(line, sizeof line, &n, o->why, o->nwhy);
        fprintf(stderr, "%s\n", line);
    }
    /* the summary names the commonest reason a call fell through */
    if (f->most)
        fprintf(stderr, "torus_pmpi: summary: calls %llu, torus %llu, fell_through %llu, most for %s (%llu of them)\n",
                (unsigned long long)f->calls, (unsigned long long)f->torus, (unsigned long long)f->fell, f->most,
                (unsigned long long)f->most_n);
    else
        fprintf(stderr, "torus_pmpi: summary: calls %llu, torus %llu, fell_through 0\n", (unsigned long long)f->calls,
                (unsigned long long)f->torus);
}

/* " alg.a=1 alg.b=2" of the key=value form. */
static void add_keys(char *line, size_t len, size_t *o, const char *prefix, const named_count *c, int n)
{
    for (int i = 0; i < n; i++)
        add(line, len, o, " %s.%s=%llu", prefix, c[i].name, (unsigned long long)c[i].n);
}

static void print_kv(const stats_figures *f)
{
    for (int op = 0; op < PM_NOPS; op++) {
        const op_figures *o = &f->op[op];
        char line[2048];
        size_t n = 0;
        add(line, sizeof line, &n, "torus_pmpi_stats: op=%s calls=%llu torus=%llu", o->op,
            (unsigned long long)o->calls, (unsigned long long)o->torus);
        add_keys(line, sizeof line, &n, "alg", o->alg, o->nalg);
        if (o->has_plans)
            add(line, sizeof line, &n, " plans=%llu agreements=%llu", (unsigned long long)o->plans,
                (unsigned long long)o->agreements);
        add(line, sizeof line, &n, " bytes=%llu msgs=%llu time_s=%.6f fell_through=%llu", (unsigned long long)o->bytes,
            (unsigned long long)o->msgs, o->time_s, (unsigned long long)o->fell);
        add_keys(line, sizeof line, &n, "why", o->why, o->nwhy);
        fprintf(stderr, "%s\n", line);
    }
    char line[512];
    size_t n = 0;
    add(line, sizeof line, &n, "torus_pmpi_stats: op=summary calls=%llu torus=%llu fell_through=%llu",
        (unsigned long long)f->calls, (unsigned long long)f->torus, (unsigned long long)f->fell);
    if (f->most)
        add(line, sizeof line, &n, " most=%s most_n=%llu", f->most, (unsigned long long)f->most_n);
    add(line, sizeof line, &n, " ranks=%d", f->ranks);
    if (f->off)
        add(line, sizeof line, &n, " torus_coll=off");
    if (f->nodes)
        add(line, sizeof line, &n, " nodes=%d ranks_per_node=%d nodes_source=%s", f->nodes, f->per_node, f->node_src);
    fprintf(stderr, "%s\n", line);
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
    stats_figures f;
    figures(all, n, mode, &f);
    if (pm__timing == PM_STATS_KV)
        print_kv(&f);
    else
        print_human(&f);
}
