/*
 * node.c - the cost of an update on a node, from the node's own parameters
 * (a spec sheet, `ra_calibrate --probe`, or `--node KEY=VALUE,...`), in
 * place of cycle counts borrowed from another machine.
 *
 * Inputs (tm_node, each with its source): clock f, cores c and ranks per
 * node, memory latency L, misses in flight per core m (memory-level
 * parallelism), the node's memory bandwidth B and cache line l, the kit's
 * instruction cost per step (instr_local: generate + apply; instr_hop: one
 * software hop; instr_test: the baseline's MPI_Testany) in cycles of the
 * core they were measured on, carried here by ipc_scale, and the network's
 * one-way MPI latency, injection bandwidth and message rate.
 *
 * Steps (cycles of this core; every figure printed with its source):
 *   miss       = f L                       a dependent load that misses
 *   t_local    = s instr_local + miss / m  ra_opt's update: its
 *                instructions plus its share of the misses the core keeps
 *                in flight (the kit's loops prefetch within the 1024 rule)
 *   t_hop      = s instr_hop + (X / H) f t_msg / fill
 *                the routing work, plus the CPU cost of a message t_msg (the
 *                one-way MPI latency, an upper bound on LogP's o_s + o_r; or
 *                raw_msg_ns where the routed code drives the network itself)
 *                for the X of the H hops per update that leave the node,
 *                shared by the fill updates of one of ra_opt's packets
 *                (its bucket capacity under the 1024-update rule: the
 *                per-packet cost paper 002 sec. 6.2 names as growing with N)
 *   baseline   t_local_plain = s instr_local + miss (one MPI_Testany between
 *                updates: no two misses overlap, paper 002 sec. 6.1),
 *                t_test = s instr_test, t_send = t_recv = f t_mpi / 2,
 *                t_overhead = s instr_hop (bucketing one update)
 *   memory     node_gups = B / (2 l)        a line read and written back
 *   injection  nodes min(I / (b X), R fill / X)   bytes and messages a node
 *                can send for the X network crossings of each update
 * The IPC rule (tm_node_reference): an instruction cost measured on a
 * reference core is carried to another of the same kind by the ratio of
 * their issue widths, ipc_scale = width_ref / width.  Two references:
 * out-of-order cores take the kit's own calibration (ra_calibrate --probe on
 * the development VM, NODE_REF_* below); in-order cores take BlueGene/L's
 * PPC440, whose costs paper 002 publishes (sec. 4.1: 18 cycles of the 104
 * generate, update and loop; sec. 6.2 and Table 4: 128 cycles per hop, of
 * which a 256-byte packet's raw send and receive, 70 + 194 cycles over its
 * 29 updates, are 9; the MPI_Test between updates, 583 cycles, is Table 6's
 * 1018 cycles per update at 32 nodes less the 435 of sec. 6.1's run that
 * tests once in 60 updates: 0.0515 GUPS).
 * Cost: O(1) per shape.
 */
#include "torusmodel.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const node_keys[TM_N_KEYS] = {
    "mem_latency_ns", "mlp", "mem_bw", "line_bytes", "instr_local", "instr_hop",
    "instr_test", "mpi_latency_ns", "inj_bw", "msg_rate", "ipc_scale", "raw_msg_ns"};

/* The out-of-order reference: `mpirun -n 1 bin/ra_calibrate --probe
 * --log2-table 27` on the development VM (AMD EPYC, family 25 model 17,
 * Zen 4, 2.6 GHz, 2 cores of KVM, 2026-11-27): 3.5 cycles per local update,
 * 20.1-20.2 per hop (the state machine on 4x4 in the in-process simulator,
 * one rank's method) and 67.4-67.5 per MPI_Testany, in two runs.  Zen 4
 * dispatches 6 macro-ops a cycle (AMD, Software Optimization Guide for the
 * AMD Zen4 Microarchitecture, 57647 rev. 1.00 sec. 2.1). */
#define NODE_REF_OOO_WIDTH 6.0
#define NODE_REF_OOO_LOCAL 3.5
#define NODE_REF_OOO_HOP 20.1
#define NODE_REF_OOO_TEST 67.5
#define NODE_REF_OOO_SRC "the kit's calibration: ra_calibrate --probe on AMD EPYC Zen 4 (dev VM, 2026-11-27)"
/* The in-order reference, BlueGene/L's PPC440 (2-issue), paper 002. */
#define NODE_REF_INO_WIDTH 2.0
#define NODE_REF_INO_LOCAL 18.0
#define NODE_REF_INO_HOP 119.0
#define NODE_REF_INO_TEST 583.0
#define NODE_REF_INO_SRC "BlueGene/L PPC440, paper 002 sec. 4.1 (18 of 104 cycles), 6.2 and Table 4 (128 - 9 per hop)"

const char *tm_node_key(int i)
{
    return i >= 0 && i < TM_N_KEYS ? node_keys[i] : NULL;
}

int tm_node_given(const tm_params *p)
{
    return p->node.v[TM_N_MEM_LATENCY] > 0;
}

void tm_node_set(tm_params *p, int i, double v, const char *src)
{
    p->node.v[i] = v;
    snprintf(p->node.src[i], TM_SRC_LEN, "%s", src);
}

/* "KEY text": the source of one figure (params files, term_source lines) */
int tm_node_source(tm_params *p, const char *value, char *err, size_t errlen)
{
    size_t n = strcspn(value, " \t");
    for (int i = 0; i < TM_N_KEYS; i++)
        if (strlen(node_keys[i]) == n && !strncmp(value, node_keys[i], n)) {
            const char *t = value + n;
            while (*t == ' ' || *t == '\t')
                t++;
            snprintf(p->node.src[i], TM_SRC_LEN, "%s", t);
            return 0;
        }
    char shown[300];
    kit_cli_escape(value, shown, sizeof shown);
    snprintf(err, errlen, "bad value '%s' for term_source: allowed 'KEY text' with KEY one of mem_latency_ns, mlp, "
                          "mem_bw, line_bytes, instr_local, instr_hop, instr_test, mpi_latency_ns, inj_bw, msg_rate, "
                          "ipc_scale", shown);
    return -2;
}

void tm_node_reference(tm_params *p, int in_order, double issue_width, const char *width_src)
{
    double wref = in_order ? NODE_REF_INO_WIDTH : NODE_REF_OOO_WIDTH;
    const char *ref = in_order ? NODE_REF_INO_SRC : NODE_REF_OOO_SRC;
    tm_node_set(p, TM_N_INSTR_LOCAL, in_order ? NODE_REF_INO_LOCAL : NODE_REF_OOO_LOCAL, ref);
    tm_node_set(p, TM_N_INSTR_HOP, in_order ? NODE_REF_INO_HOP : NODE_REF_OOO_HOP, ref);
    tm_node_set(p, TM_N_INSTR_TEST, in_order ? NODE_REF_INO_TEST : NODE_REF_OOO_TEST, ref);
    char s[TM_SRC_LEN];
    snprintf(s, sizeof s, "IPC rule: issue width %g (%s) against the reference's %g", issue_width, width_src, wref);
    tm_node_set(p, TM_N_IPC_SCALE, issue_width > 0 ? wref / issue_width : 1, s);
}

/* Ranks that share one core as its hardware threads: ranks per node over
 * cores, between 1 and threads_per_core (ranks beyond that time-share). */
static double threads_in_use(const tm_params *p)
{
    double cores = p->cores_per_node > 0 ? p->cores_per_node : p->ranks_per_node;
    double th = p->threads_per_core >= 1 ? p->threads_per_core : 1;
    double t = cores > 0 ? p->ranks_per_node / cores : 1;
    return t < 1 ? 1 : t > th ? th : t;
}

/* The per-update costs of p's node on shape s: q = p with t_local, t_hop,
 * the baseline's costs and the memory rate derived (node.c's header).
 * hops_out: the hops per update that leave a node; fill: updates per
 * packet (routed: ra_opt's bucket capacity; direct: the mean bucket). */
void tm_node_derive(const tm_params *p, double hops, double hops_out, double fill, tm_params *q)
{
    const double *v = p->node.v;
    *q = *p;
    double f = p->clock_hz, s = v[TM_N_IPC_SCALE] > 0 ? v[TM_N_IPC_SCALE] : 1;
    double m = v[TM_N_MLP] > 0 ? v[TM_N_MLP] : 1;
    double il = s * (v[TM_N_INSTR_LOCAL] > 0 ? v[TM_N_INSTR_LOCAL] : NODE_REF_OOO_LOCAL);
    double ih = s * (v[TM_N_INSTR_HOP] > 0 ? v[TM_N_INSTR_HOP] : NODE_REF_OOO_HOP);
    double it = s * (v[TM_N_INSTR_TEST] > 0 ? v[TM_N_INSTR_TEST] : NODE_REF_OOO_TEST);
    double miss = f * v[TM_N_MEM_LATENCY] * 1e-9;
    double msg = f * v[TM_N_MPI_LATENCY] * 1e-9;
    /* the routed code's packet: the network driven directly where it is */
    double pkt = v[TM_N_RAW_MSG] > 0 ? f * v[TM_N_RAW_MSG] * 1e-9 : msg;
    if (fill < 1)
        fill = 1;
    q->t_local = il + miss / m;
    q->t_hop = ih + (hops > 0 ? hops_out / hops * pkt / fill : 0);
    q->t_local_plain = il + miss;
    q->t_test = it;
    /* hardware threads: t ranks on a core (up to threads_per_core) share
     * its issue slots, so the core spends at least one thread's work W per
     * update, and its m misses in flight, m / t each, so a thread takes W +
     * miss t / m per update and the core finishes t at once:
     *   core time per update = max(W, W / t + miss / m)
     * with W = t_local's instructions + H t_hop (routed; the baseline: its
     * loop and its test, its miss alone, m = 1).  t = 1 is the rule above. */
    double t = threads_in_use(p);
    if (t > 1) {
        double w = il + hops * q->t_hop, core = fmax(w, w / t + miss / m);
        q->t_local = core - hops * q->t_hop;
        double wb = il + it;
        q->t_local_plain = fmax(wb, wb / t + miss) - it;
    }
    q->t_exposed = 0;
    q->t_send = q->t_recv = msg / 2;
    q->t_overhead = ih;
    q->nplain = 0;
    q->t_wait_routed = q->t_wait_direct = 0;
    if (v[TM_N_MEM_BW] > 0) {
        double line = v[TM_N_LINE] > 0 ? v[TM_N_LINE] : 64;
        q->nnode = 1, q->node_ranks[0] = 0, q->node_rate[0] = v[TM_N_MEM_BW] / (2 * line) / 1e9;
    }
}

/* The injection bound of nodes sending hops_out crossings per update in
 * packets of fill updates of b bytes each: INFINITY when neither the
 * injection bandwidth nor the message rate is given. */
double tm_node_injection(const tm_params *p, double nodes, double hops_out, double fill)
{
    const double *v = p->node.v;
    if (hops_out <= 0)
        return INFINITY;
    double g = INFINITY;
    if (v[TM_N_INJ_BW] > 0 && p->bytes_per_update > 0)
        g = v[TM_N_INJ_BW] / (p->bytes_per_update * hops_out);
    if (v[TM_N_MSG_RATE] > 0) {
        double r = v[TM_N_MSG_RATE] * (fill > 1 ? fill : 1) / hops_out;
        g = r < g ? r : g;
    }
    return nodes * g / 1e9;
}

static const char *const term_unit[TM_N_KEYS] = {"ns", "misses", "B/s", "B", "cycles", "cycles", "cycles", "ns",
                                                 "B/s", "msg/s", "x", "ns"};

/* Term i as printed: its figure (0: not given) and source ("" for none);
 * an instruction cost not given is the out-of-order reference's, *dflt. */
static double term_of(const tm_params *p, int i, const char **src, int *dflt)
{
    double v = p->node.v[i];
    *src = p->node.src[i];
    *dflt = 0;
    if (v <= 0 && (i == TM_N_INSTR_LOCAL || i == TM_N_INSTR_HOP || i == TM_N_INSTR_TEST)) {
        *dflt = 1;
        *src = NODE_REF_OOO_SRC;
        return i == TM_N_INSTR_LOCAL ? NODE_REF_OOO_LOCAL : i == TM_N_INSTR_HOP ? NODE_REF_OOO_HOP : NODE_REF_OOO_TEST;
    }
    return v > 0 ? v : 0;
}

/* The terms, each with its source, as `# term:` lines (text) */
void tm_node_print(FILE *f, const tm_params *p, const tm_params *q)
{
    fprintf(f, "# node model (torusmodel/node.c), %s:\n", p->preset);
    fprintf(f, "#   clock %.4g GHz, %g cores of %g hardware threads, %g ranks per node (%g threads a core in use)\n",
            p->clock_hz / 1e9, p->cores_per_node > 0 ? p->cores_per_node : p->ranks_per_node,
            p->threads_per_core >= 1 ? p->threads_per_core : 1, p->ranks_per_node, threads_in_use(p));
    for (int i = 0; i < TM_N_KEYS; i++) {
        const char *src;
        int dflt;
        double v = term_of(p, i, &src, &dflt);
        if (dflt)
            fprintf(f, "#   %-15s %-10.4g %-7s %s (default)\n", node_keys[i], v, term_unit[i], src);
        else if (v > 0)
            fprintf(f, "#   %-15s %-10.4g %-7s %s\n", node_keys[i], v, term_unit[i], src[0] ? src : "not given");
        else /* no figure, no bound: a preset still says why */
            fprintf(f, "#   %-15s %-10s %-7s %s\n", node_keys[i], "-", term_unit[i], src[0] ? src : "not given");
    }
    fprintf(f, "#   derived: t_local %.4g, t_hop %.4g, baseline local %.4g + test %.4g, message %.4g cycles; "
               "memory %.4g GUPS per node\n",
            q->t_local, q->t_hop, q->t_local_plain, q->t_test, q->t_send + q->t_recv, q->nnode ? q->node_rate[0] : 0);
}

void tm_node_print_json(FILE *f, const tm_params *p)
{
    fprintf(f, "\"node_model\": {\"clock_hz\": %.6g, \"cores\": %g, \"threads_per_core\": %g, "
               "\"threads_in_use\": %g, \"ranks_per_node\": %g, \"terms\": {",
            p->clock_hz, p->cores_per_node > 0 ? p->cores_per_node : p->ranks_per_node,
            p->threads_per_core >= 1 ? p->threads_per_core : 1, threads_in_use(p), p->ranks_per_node);
    for (int i = 0; i < TM_N_KEYS; i++) {
        const char *src;
        int dflt;
        double v = term_of(p, i, &src, &dflt); /* no figure: its source says why, or null */
        fprintf(f, "%s\"%s\": {\"value\": ", i ? ", " : "", node_keys[i]);
        if (v > 0)
            fprintf(f, "%.6g", v);
        else
            fprintf(f, "null");
        fprintf(f, ", \"unit\": \"%s\", \"source\": ", term_unit[i]);
        if (src[0])
            kit_json_string(f, src);
        else
            fprintf(f, "null");
        fprintf(f, ", \"default\": %s}", dflt ? "true" : "false");
    }
    /* the terms whose figure is an assumption, not a published one */
    fprintf(f, "}, \"assumed\": [");
    for (int i = 0, k = 0; i < TM_N_KEYS; i++)
        if (p->node.v[i] > 0 && !strncmp(p->node.src[i], "assumed", 7))
            fprintf(f, "%s\"%s\"", k++ ? ", " : "", node_keys[i]);
    fprintf(f, "]}, ");
}
