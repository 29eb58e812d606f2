/*
 * torusmodel.c - bin/torusmodel: paper 002's CPU and network bottlenecks
 * for one shape or a list (Tables 3, 5 and 7), the baseline's mean bucket
 * size (Table 6), and --simulate: the real routed algorithm run over the
 * simulated transport with link and CPU costs.
 */
#include "model.h"
#include "sim_timed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPCC_RA_VERSION
#define HPCC_RA_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: torusmodel [options]\n"
            "CPU and network bounds on RandomAccess GUPS (paper 002 eq. 1, eq. 2, sec. 6.2).\n"
            "Parameters, applied left to right (later ones win):\n"
            "  --preset NAME          bgl-mpi (Tables 1, 3), bgl-raw (Tables 4, 5), bgl-routed (Table 7)\n"
            "                         (default: none)\n"
            "  --params FILE          'key = value' lines, '#' comments (bin/ra_calibrate writes one)\n"
            "                         (default: none)\n"
            "  --clock-hz F           cycles per second of the cycle figures (default 1e9)\n"
            "  --t-local C            cycles per update: generate + update + loop (default 0)\n"
            "  --t-send C, --t-recv C cycles per message call (default 0)\n"
            "  --t-overhead C         cycles per remote update beyond send/recv, t_o^p (default 0)\n"
            "  --t-hop C              cycles per software-routing hop (default 0)\n"
            "  --bytes-per-update B   bytes on the wire per update, b (required; default: none)\n"
            "  --link-bw BYTES_PER_S  link capacity per direction, C (required; default: none)\n"
            "  --updates-per-message M  direct: updates per send/recv (default 1 = eq. 1)\n"
            "  --algorithm A          direct | routed (default direct)\n"
            "  --shape S              one shape: 8x8x16, m suffix = mesh dimension, hypercube:D\n"
            "                         (default: none; --shape or --shapes is required)\n"
            "  --shapes LIST          comma-separated shapes, or bgl (Table 2's twelve partitions)\n"
            "                         (default: none)\n"
            "Models:\n"
            "  --bucketed             direct: m = the simulated mean bucket size at each N (default: off)\n"
            "  --bucket-sim P         the baseline's mean bucket size at P processes, Table 6 (default: off)\n"
            "  --simulate             run the routed algorithm over the simulated transport with\n"
            "                         link and CPU costs, shapes up to 64x32x32 (default: off)\n"
            "  --sim-updates U        updates per virtual rank in --simulate (default 1024)\n"
            "  --sim-latency S        per-link latency in seconds (default 1e-7)\n"
            "  --header-bytes H       bytes per packet on the wire beyond 8 per update (default 32)\n"
            "Output:\n"
            "  --json                 one JSON object (default: off, a table or key block)\n"
            "  --write-params FILE    write the effective parameters as a params file (default: none)\n"
            "  --help, --version\n"
            "exit: 0 ok, 2 bad input, 3 out of memory\n");
}

static int parse_d(const char *opt, const char *v, double lo, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d) || d < lo) {
        fprintf(stderr, "torusmodel: %s '%s' invalid: allowed a number >= %g\n", opt, v, lo);
        return -1;
    }
    *out = d;
    return 0;
}

int main(int argc, char **argv)
{
    tm_params p;
    tm_params_defaults(&p);
    int json = 0, bucketed = 0, simulate = 0;
    long bucket_p = 0;
    double sim_updates = 1024, sim_latency = 1e-7, header_bytes = 32;
    const char *write_params = NULL;
    char err[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEXT()                                                                                                         \
    (i + 1 < argc ? argv[++i]                                                                                          \
                  : (fprintf(stderr, "torusmodel: %s needs a value (see --help)\n", a), exit(2), (char *)NULL))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("torusmodel (hpcc-ra) %s\n", HPCC_RA_VERSION);
            return 0;
        } else if (!strcmp(a, "--preset")) {
            if (tm_preset(&p, NEXT(), err, sizeof err))
                goto bad;
        } else if (!strcmp(a, "--params")) {
            if (tm_params_file(&p, NEXT(), err, sizeof err))
                goto bad;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--bucketed")) {
            bucketed = 1;
        } else if (!strcmp(a, "--simulate")) {
            simulate = 1;
        } else if (!strcmp(a, "--bucket-sim")) {
            double v;
            if (parse_d(a, NEXT(), 2, &v))
                return 2;
            if (v > 1 << 24 || v != floor(v)) {
                fprintf(stderr, "torusmodel: --bucket-sim '%s' invalid: allowed a whole number in 2..%d\n", argv[i],
                        1 << 24);
                return 2;
            }
            bucket_p = (long)v;
        } else if (!strcmp(a, "--sim-updates")) {
            if (parse_d(a, NEXT(), 1, &sim_updates))
                return 2;
        } else if (!strcmp(a, "--sim-latency")) {
            if (parse_d(a, NEXT(), 0, &sim_latency))
                return 2;
        } else if (!strcmp(a, "--header-bytes")) {
            if (parse_d(a, NEXT(), 0, &header_bytes))
                return 2;
        } else if (!strcmp(a, "--write-params")) {
            write_params = NEXT();
        } else if (!strncmp(a, "--", 2) && tm_param_known(a + 2)) {
            if (tm_param_set(&p, a + 2, NEXT(), err, sizeof err))
                goto bad;
        } else {
            fprintf(stderr, "torusmodel: unknown argument '%s' (see --help)\n", a);
            return 2;
        }
#undef NEXT
    }
    if (write_params) {
        FILE *f = fopen(write_params, "w");
        if (!f) {
            fprintf(stderr, "torusmodel: cannot write '%s'\n", write_params);
            return 2;
        }
        tm_params_write(&p, f);
        fclose(f);
    }
    if (!p.nshapes) {
        if (!bucket_p) {
            fprintf(stderr, "torusmodel: no shape: give --shape, --shapes, a --preset or --bucket-sim P\n");
            return 2;
        }
        double m = tm_bucket_sim((int)bucket_p, 1024, 200000, 1);
        if (m < 0) {
            fprintf(stderr, "torusmodel: out of memory for %ld buckets\n", bucket_p);
            return 3;
        }
        if (json)
            printf("{\"bucket_sim_p\": %ld, \"pending\": 1024, \"mean_bucket_size\": %.4f}\n", bucket_p, m);
        else
            printf("bucket_sim_p: %ld\npending: 1024\nmean_bucket_size: %.4f\n", bucket_p, m);
        return 0;
    }
    if (!(p.bytes_per_update > 0) || !(p.link_bw > 0)) {
        fprintf(stderr, "torusmodel: the network bound needs --bytes-per-update and --link-bw (or a preset/params)\n");
        return 2;
    }
    if (simulate && p.algorithm != TM_ROUTED) {
        fprintf(stderr, "torusmodel: --simulate runs the routed algorithm: add --algorithm routed\n");
        return 2;
    }
    if (!json) {
        printf("# torusmodel (hpcc-ra %s): algorithm %s, preset %s%s\n", HPCC_RA_VERSION,
               p.algorithm == TM_ROUTED ? "routed" : "direct", p.preset, bucketed ? ", bucketed" : "");
        printf("# clock_hz %g  t_local %g  t_send %g  t_recv %g  t_overhead %g  t_hop %g  b %g B  link_bw %g B/s"
               "  updates/message %g\n",
               p.clock_hz, p.t_local, p.t_send, p.t_recv, p.t_overhead, p.t_hop, p.bytes_per_update, p.link_bw,
               p.updates_per_message);
        printf("# %8s  %-16s %8s %7s %11s %12s %12s %12s  %-7s", "N", "shape", "alpha/C", "hops", "cycles/upd",
               "cpu_gups", "net_gups", "bound_gups", "binding");
        if (bucketed)
            printf(" %9s", "bucket");
        if (simulate)
            printf(" %12s %8s %8s", "sim_gups", "sim_sbf", "link_use");
        printf("\n");
    } else {
        printf("{\"algorithm\": \"%s\", \"preset\": \"%s\", \"rows\": [", p.algorithm == TM_ROUTED ? "routed" : "direct",
               p.preset);
    }
    tm_row row;
    double bucket = -1;
    tm_sim_result sr;
    memset(&sr, 0, sizeof sr);
    for (int k = 0; k < p.nshapes; k++) {
        tm_params q = p;
        if (bucketed && p.algorithm == TM_DIRECT) {
            bucket = p.shapes[k].n > 1 ? tm_bucket_sim(p.shapes[k].n, 1024, 100000, 1) : 1;
            if (bucket < 0) {
                fprintf(stderr, "torusmodel: out of memory for the bucket simulation\n");
                return 3;
            }
            q.updates_per_message = bucket;
        }
        if (tm_evaluate(&q, &p.shapes[k], &row, err, sizeof err))
            goto bad;
        if (simulate) {
            tm_sim_config sc = {.shape = p.shapes[k],
                                .updates_per_rank = (long)sim_updates,
                                .latency_s = sim_latency,
                                .header_bytes = header_bytes};
            sc.p = q;
            int rc = tm_simulate(&sc, &sr, err, sizeof err);
            if (rc)
                goto bad_rc;
        }
        char name[128];
        torus_shape_format(&p.shapes[k], name, sizeof name);
        if (json) {
            printf("%s{\"nodes\": %d, \"shape\": \"%s\", \"alpha\": %.10g, \"hops\": %.6g, \"cycles_per_update\": %.6g, "
                   "\"cpu_bound_gups\": %.6g, \"network_bound_gups\": %.6g, \"bound_gups\": %.6g, \"binding\": \"%s\"",
                   k ? ", " : "", row.n, name, row.alpha, row.hops, row.cycles_per_update, row.cpu_gups, row.net_gups,
                   row.bound_gups, row.binding);
            if (bucketed)
                printf(", \"mean_bucket_size\": %.4f", bucket);
            if (simulate)
                printf(", \"sim_gups\": %.6g, \"sim_gups_total\": %.6g, \"sim_sbf\": %.6g, \"sim_link_utilisation\": %.6g, "
                       "\"sim_bytes_per_update\": %.6g, \"sim_fingerprint\": \"%016llx\", \"sim_exact\": %s",
                       sr.gups, sr.gups_total, sr.sbf, sr.link_util, sr.bytes_per_update,
                       (unsigned long long)sr.fingerprint,
                       sr.exact ? "true" : "false");
            printf("}");
        } else {
            printf("  %8d  %-16s %8.4f %7.4f %11.1f %12.4f %12.4f %12.4f  %-7s", row.n, name, row.alpha, row.hops,
                   row.cycles_per_update, row.cpu_gups, row.net_gups, row.bound_gups, row.binding);
            if (bucketed)
                printf(" %9.3f", bucket);
            if (simulate)
                printf(" %12.4f %8.4f %8.4f", sr.gups, sr.sbf, sr.link_util);
            printf("\n");
        }
    }
    if (json) {
        printf("]");
        if (bucket_p)
            printf(", \"bucket_sim_p\": %ld, \"mean_bucket_size\": %.4f", bucket_p,
                   tm_bucket_sim((int)bucket_p, 1024, 200000, 1));
        printf("}\n");
    } else {
        if (p.nshapes == 1) {
            char name[128];
            torus_shape_format(&p.shapes[0], name, sizeof name);
            printf("nodes: %d\nshape: %s\nalpha: %.10g\nhops_per_update: %.6g\ncycles_per_update: %.6g\n"
                   "cpu_bound_gups: %.6g\nnetwork_bound_gups: %.6g\nbound_gups: %.6g\nbinding: %s\n",
                   row.n, name, row.alpha, row.hops, row.cycles_per_update, row.cpu_gups, row.net_gups, row.bound_gups,
                   row.binding);
            if (bucketed)
                printf("mean_bucket_size: %.4f\n", bucket);
            if (simulate)
                printf("sim_gups: %.6g\nsim_gups_total: %.6g\nsim_time_s: %.6g\nsim_sbf: %.6g\nsim_link_utilisation: %.6g\nsim_bytes_per_update: %.6g\n"
                       "sim_updates: %llu\nsim_fingerprint: %016llx\nsim_exact: %s\n",
                       sr.gups, sr.gups_total, sr.time_s, sr.sbf, sr.link_util, sr.bytes_per_update,
                       (unsigned long long)sr.updates,
                       (unsigned long long)sr.fingerprint, sr.exact ? "yes" : "no");
        }
        if (bucket_p) {
            printf("bucket_sim_p: %ld\n", bucket_p);
            printf("mean_bucket_size: %.4f\n", tm_bucket_sim((int)bucket_p, 1024, 200000, 1));
        }
    }
    return 0;
bad:
    fprintf(stderr, "torusmodel: %s\n", err);
    return 2;
bad_rc:
    fprintf(stderr, "torusmodel: %s\n", err);
    return 3;
}
