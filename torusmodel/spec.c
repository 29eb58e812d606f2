/*
 * spec.c - the procurement mode: `torusmodel --node KEY=VALUE,...` describes
 * a node from its spec sheet (a machine that may not exist yet); node.c
 * turns it into per-update costs.  Every value is checked against its
 * range before anything is printed; a bad one is one line naming the key,
 * the value and what is allowed (exit 2).
 * Also the sensitivity line: the predicted GUPS with each input 10% larger
 * (the scale term held at its value), as a change in percent.
 */
#include "torusmodel.h"
#include "kit_cli.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SK_CLOCK, SK_CORES, SK_RANKS, SK_LAT, SK_MLP, SK_BW, SK_CHANNELS, SK_CHANNEL_BW, SK_LINE, SK_WIDTH,
       SK_IN_ORDER, SK_ILOCAL, SK_IHOP, SK_ITEST, SK_MPI_LAT, SK_INJ, SK_MSG, SK_LINK, SK_BPU, SK_THREADS, SK_N };

typedef struct spec_key {
    const char *name;
    double lo, hi;
    int whole;
    const char *allowed;
} spec_key;

static const spec_key skeys[SK_N] = {
    {"clock_ghz", 0.01, 100, 0, "GHz in 0.01..100"},
    {"cores", 1, 1e6, 1, "a whole number of cores per node in 1..1e6"},
    {"ranks", 1, 1e6, 1, "a whole number of ranks per node in 1..1e6 (default: cores)"},
    {"mem_latency_ns", 1, 1e6, 0, "ns in 1..1e6"},
    {"mlp", 1, 1e4, 0, "misses in flight per core in 1..1e4"},
    {"mem_bw_gbs", 1e-3, 1e6, 0, "GB/s per node in 0.001..1e6"},
    {"channels", 1, 1024, 1, "a whole number of memory channels in 1..1024"},
    {"channel_gbs", 1e-3, 1e4, 0, "GB/s per channel in 0.001..1e4"},
    {"line", 8, 4096, 1, "a power of two of bytes in 8..4096"},
    {"issue_width", 1, 64, 0, "instructions a core issues per cycle in 1..64"},
    {"in_order", 0, 1, 1, "0 (out-of-order core) or 1 (in-order core)"},
    {"instr_local", 0.01, 1e7, 0, "cycles in 0.01..1e7"},
    {"instr_hop", 0.01, 1e7, 0, "cycles in 0.01..1e7"},
    {"instr_test", 0.01, 1e7, 0, "cycles in 0.01..1e7"},
    {"mpi_latency_us", 1e-3, 1e6, 0, "microseconds in 0.001..1e6"},
    {"inj_gbs", 1e-3, 1e6, 0, "GB/s a node injects in 0.001..1e6"},
    {"msg_rate_m", 1e-3, 1e6, 0, "millions of messages per second per node in 0.001..1e6"},
    {"link_gbs", 1e-3, 1e6, 0, "GB/s per link and direction in 0.001..1e6"},
    {"bytes_per_update", 1, 1e6, 0, "bytes on the wire per update in 1..1e6"},
    {"threads", 1, 64, 1, "a whole number of hardware threads per core in 1..64 (default 1)"},
};

static const char *key_list(void)
{
    return "clock_ghz, cores, ranks, mem_latency_ns, mlp, mem_bw_gbs, channels, channel_gbs, line, issue_width, "
           "in_order, instr_local, instr_hop, instr_test, mpi_latency_us, inj_gbs, msg_rate_m, link_gbs, "
           "bytes_per_update, threads";
}

int tm_node_spec(tm_params *p, const char *spec, char *err, size_t errlen)
{
    double v[SK_N];
    int given[SK_N] = {0};
    char buf[2048], shown[300];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "--node: longer than %zu characters: allowed KEY=VALUE,... of the keys %s",
                 sizeof buf - 1, key_list());
        return -2;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    size_t L = strlen(buf);
    if (!L || buf[0] == ',' || buf[L - 1] == ',' || strstr(buf, ",,")) {
        kit_cli_escape(spec, shown, sizeof shown);
        snprintf(err, errlen, "--node: empty item in '%s': allowed KEY=VALUE items separated by single commas", shown);
        return -2;
    }
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        kit_cli_escape(t, shown, sizeof shown);
        if (!eq) {
            snprintf(err, errlen, "--node: '%s' is not KEY=VALUE: allowed keys %s", shown, key_list());
            return -2;
        }
        *eq = 0;
        int k = -1;
        for (int i = 0; i < SK_N; i++)
            if (!strcmp(t, skeys[i].name))
                k = i;
        kit_cli_escape(t, shown, sizeof shown);
        if (k < 0) {
            snprintf(err, errlen, "--node: unknown key '%s': allowed %s", shown, key_list());
            return -2;
        }
        if (given[k]) {
            snprintf(err, errlen, "--node: key %s given twice: allowed once", skeys[k].name);
            return -2;
        }
        double x;
        if (kit_cli_double(eq + 1, skeys[k].lo, skeys[k].hi, &x) || (skeys[k].whole && x != floor(x)) ||
            (k == SK_LINE && ((long)x & ((long)x - 1)))) {
            kit_cli_escape(eq + 1, shown, sizeof shown);
            snprintf(err, errlen, "--node: bad value '%s' for %s: allowed %s", shown, skeys[k].name, skeys[k].allowed);
            return -2;
        }
        v[k] = x, given[k] = 1;
    }
    /* what hwloc read (--node-from, given first) is not asked again */
    if (!given[SK_CORES] && p->hw.cores > 0)
        v[SK_CORES] = (double)p->hw.cores, given[SK_CORES] = 1;
    if (!given[SK_LINE] && p->hw.line > 0 && ((long)p->hw.line & ((long)p->hw.line - 1)) == 0 && p->hw.line >= 8 &&
        p->hw.line <= 4096)
        v[SK_LINE] = p->hw.line, given[SK_LINE] = 2;
    static const int required[] = {SK_CLOCK, SK_CORES, SK_LAT};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!given[required[i]]) {
            snprintf(err, errlen, "--node: %s missing: required clock_ghz, cores and mem_latency_ns (cores: or "
                                  "--node-from before --node)", skeys[required[i]].name);
            return -2;
        }
    if (given[SK_BW] && (given[SK_CHANNELS] || given[SK_CHANNEL_BW])) {
        snprintf(err, errlen, "--node: mem_bw_gbs and channels/channel_gbs both given: allowed one of the two");
        return -2;
    }
    if (given[SK_CHANNELS] != given[SK_CHANNEL_BW]) {
        snprintf(err, errlen, "--node: channels and channel_gbs go together: allowed both or neither");
        return -2;
    }
    if (given[SK_RANKS] && v[SK_RANKS] < 1) {
        snprintf(err, errlen, "--node: bad value for ranks: allowed %s", skeys[SK_RANKS].allowed);
        return -2;
    }
    const char *g = "given (--node)";
    p->clock_hz = v[SK_CLOCK] * 1e9;
    p->cores_per_node = v[SK_CORES];
    p->ranks_per_node = given[SK_RANKS] ? v[SK_RANKS] : v[SK_CORES];
    if (given[SK_THREADS])
        p->threads_per_core = v[SK_THREADS];
    else if (!(p->threads_per_core >= 1))
        p->threads_per_core = 1;
    tm_node_reference(p, given[SK_IN_ORDER] && v[SK_IN_ORDER] == 1, given[SK_WIDTH] ? v[SK_WIDTH] : 0,
                      given[SK_WIDTH] ? "--node issue_width" : "not given: the reference core's");
    if (!given[SK_WIDTH])
        tm_node_set(p, TM_N_IPC_SCALE, 1, "assumed: issue width of the reference core (--node issue_width not given)");
    tm_node_set(p, TM_N_MEM_LATENCY, v[SK_LAT], g);
    /* figures not given keep what an earlier --preset or --params set */
    if (given[SK_MLP])
        tm_node_set(p, TM_N_MLP, v[SK_MLP], g);
    else if (!(p->node.v[TM_N_MLP] > 0))
        tm_node_set(p, TM_N_MLP, 1, "assumed: 1 (--node mlp not given)");
    if (given[SK_BW])
        tm_node_set(p, TM_N_MEM_BW, v[SK_BW] * 1e9, g);
    if (given[SK_CHANNELS]) {
        char s[TM_SRC_LEN];
        snprintf(s, sizeof s, "given (--node): %g channels x %g GB/s", v[SK_CHANNELS], v[SK_CHANNEL_BW]);
        tm_node_set(p, TM_N_MEM_BW, v[SK_CHANNELS] * v[SK_CHANNEL_BW] * 1e9, s);
    }
    if (given[SK_LINE] == 2) {
        char src[TM_SRC_LEN];
        snprintf(src, sizeof src, "%.160s: the L1 data cache's line", p->hw.src);
        tm_node_set(p, TM_N_LINE, v[SK_LINE], src);
    } else if (given[SK_LINE])
        tm_node_set(p, TM_N_LINE, v[SK_LINE], g);
    else if (!(p->node.v[TM_N_LINE] > 0))
        tm_node_set(p, TM_N_LINE, 64, "assumed: 64 (--node line not given)");
    /* instr_* given are this core's cycles.  All three: ipc_scale 1.  Some
     * of them: the others stay the reference core's, carried by the IPC
     * rule's ipc_scale s, so the given ones are kept as value / s (s x
     * that = the value given); ipc_scale 1 here would leave the others in
     * the reference core's cycles. */
    static const int ik[3] = {SK_ILOCAL, SK_IHOP, SK_ITEST};
    static const int in[3] = {TM_N_INSTR_LOCAL, TM_N_INSTR_HOP, TM_N_INSTR_TEST};
    int ngiven = given[SK_ILOCAL] + given[SK_IHOP] + given[SK_ITEST];
    double s = p->node.v[TM_N_IPC_SCALE] > 0 ? p->node.v[TM_N_IPC_SCALE] : 1;
    if (ngiven == 3) {
        s = 1;
        tm_node_set(p, TM_N_IPC_SCALE, 1, "given (--node): instruction costs in this core's cycles");
    }
    for (int i = 0; i < 3; i++) {
        if (!given[ik[i]])
            continue;
        char src[TM_SRC_LEN];
        if (s == 1)
            snprintf(src, sizeof src, "%s", g);
        else
            snprintf(src, sizeof src, "given (--node): %g cycles of this core over ipc_scale %g", v[ik[i]], s);
        tm_node_set(p, in[i], v[ik[i]] / s, src);
    }
    if (given[SK_MPI_LAT])
        tm_node_set(p, TM_N_MPI_LATENCY, v[SK_MPI_LAT] * 1e3, g);
    if (given[SK_INJ])
        tm_node_set(p, TM_N_INJ_BW, v[SK_INJ] * 1e9, g);
    if (given[SK_MSG])
        tm_node_set(p, TM_N_MSG_RATE, v[SK_MSG] * 1e6, g);
    if (given[SK_LINK])
        p->link_bw = v[SK_LINK] * 1e9;
    /* 8-byte updates and 64 bytes of headers per 32-update packet, unless given */
    p->bytes_per_update = given[SK_BPU] ? v[SK_BPU] : (p->bytes_per_update > 0 ? p->bytes_per_update : 10);
    if (!p->preset[0] || !strcmp(p->preset, "none"))
        snprintf(p->preset, sizeof p->preset, "--node");
    return 0;
}

/* The inputs the sensitivity line varies, each by +10%. */
typedef struct sens_in {
    const char *name;
    int node;      /* index in tm_node, or -1 */
    size_t offset; /* into tm_params when node < 0 */
} sens_in;

static const sens_in sens[] = {
    {"clock", -1, offsetof(tm_params, clock_hz)},
    {"mem_latency", TM_N_MEM_LATENCY, 0},
    {"mlp", TM_N_MLP, 0},
    {"mem_bw", TM_N_MEM_BW, 0},
    {"instr", TM_N_IPC_SCALE, 0},
    {"mpi_latency", TM_N_MPI_LATENCY, 0},
    {"inj_bw", TM_N_INJ_BW, 0},
    {"msg_rate", TM_N_MSG_RATE, 0},
    {"link_bw", -1, offsetof(tm_params, link_bw)},
};

/* "clock +8.1%, mem_latency -7.9%, ..." for shape s (the inputs p gives) */
int tm_sensitivity(const tm_params *p, const torus_shape *s, const tm_row *row, char *out, size_t len)
{
    size_t o = 0;
    out[0] = 0;
    double base = row->first_order_gups;
    for (size_t i = 0; i < sizeof sens / sizeof *sens && o < len; i++) {
        tm_params q = *p;
        double *x;
        if (sens[i].node >= 0) {
            x = &q.node.v[sens[i].node];
            if (sens[i].node == TM_N_IPC_SCALE && *x <= 0)
                *x = 1;
        } else {
            x = (double *)((char *)&q + sens[i].offset);
        }
        if (!(*x > 0))
            continue;
        *x *= 1.1;
        tm_row r2;
        char e[400];
        if (tm_evaluate(&q, s, &r2, e, sizeof e))
            continue;
        double d = base > 0 ? (r2.first_order_gups / base - 1) * 100 : 0;
        o += (size_t)snprintf(out + o, len - o, "%s%s %+.1f%%", o ? ", " : "", sens[i].name, d);
    }
    return 0;
}
