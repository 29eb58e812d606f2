/*
 * fabric.c - torusmodel --file: a centre's real fabric (an ibnetdiscover
 * dump, Slurm's topology.conf or topology.yaml, or the kit's graph files)
 * as the physical network under the ranks.  sparsest_cut/ reads it and
 * finds its alpha; here the figure becomes the network term of eq. 2:
 * GUPS <= (2 hosts / b) alpha C, with alpha the upper figure (a bound on
 * GUPS needs the largest alpha can be) in link_bw's units.
 */
#include "torusmodel.h"

#include <stdlib.h>
#include <string.h>

/* bytes/s of one Gb/s: an ibnetdiscover dump's capacities are Gb/s */
#define GBPS_BYTES 1.25e8

int tm_fabric_load(tm_params *p, tm_fabric *f, const char *path, const char *format, int shape_given, char *err,
                   size_t errlen)
{
    memset(f, 0, sizeof *f);
    int rc = sc_file_graph_read(&f->fg, path, format, err, errlen);
    if (rc)
        return rc;
    rc = sc_alpha_auto(&f->fg.g, &f->r, &f->fold, &f->folded_nodes, err, errlen);
    if (!rc && sc_tree_recognise(&f->fg.g, &f->tree)) {
        snprintf(err, errlen, "out of memory for the tree of the --file fabric");
        rc = -3;
    }
    if (rc) {
        tm_fabric_free(f);
        return rc;
    }
    if (!f->fg.g.weights_integral) {
        snprintf(err, errlen, "--file: hosts with fractional endpoints: allowed whole numbers of hosts per node");
        tm_fabric_free(f);
        return -2;
    }
    p->net_mode = TM_NET_FILE;
    p->file_hosts = f->fg.g.wtotal;
    p->file_alpha = f->r.alpha_upper;
    p->file_unit_bps = !strcmp(sc_capacity_unit(f->fg.format), "Gb/s") ? GBPS_BYTES : 0;
    if (shape_given)
        return 0;
    double rpn = p->ranks_per_node >= 1 ? p->ranks_per_node : 1, n = rpn * p->file_hosts;
    char shape[64];
    snprintf(shape, sizeof shape, "auto:%.0f", n);
    if (n > (1 << 30) || tm_param_set(p, "shape", shape, err, errlen)) {
        snprintf(err, errlen, "--file: %.0f hosts x %g ranks per node: allowed at most 2^30 ranks", p->file_hosts,
                 rpn);
        return -2;
    }
    return 0;
}

void tm_fabric_print(FILE *out, const tm_fabric *f)
{
    const sc_result *r = &f->r;
    fprintf(out, "fabric_format: %s\nfabric_capacity_unit: %s\nfabric_nodes: %d\nfabric_hosts: %.17g\n",
            f->fg.format, sc_capacity_unit(f->fg.format), f->fg.g.n, f->fg.g.wtotal);
    fprintf(out, "fabric_alpha_lower: %.10g\nfabric_alpha_upper: %.10g\nfabric_method: %s\n", r->alpha_lower,
            r->alpha_upper, r->method);
    if (f->fold.folded)
        fprintf(out, "fabric_folded_hosts: %ld\nfabric_folded_nodes: %d\n", f->fold.folded, f->folded_nodes);
    sc_tree_print(out, &f->tree, f->fg.names);
}

void tm_fabric_free(tm_fabric *f)
{
    sc_fold_free(&f->fold);
    sc_result_free(&f->r);
    sc_file_graph_free(&f->fg);
}
