/*
 * project.c - torusmodel --ra-opt-node: the shapes ra_opt routes one node
 * of R ranks on (--dims auto with its one-hop-or-two model, reached
 * through optimized/'s narrow entry ropt_timed.h), so that --simulate
 * projects a wide node from the prices measured on a narrow one
 * (tests/bench_node.sh; issue 35).
 */
#include "torusmodel.h"
#include "ropt_timed.h"
#include "kit_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tm_ra_opt_nodes(tm_params *p, const char *list, int node_hops, double hop, double packet, int hops_out[],
                    char *err, size_t errlen)
{
    char buf[512];
    if (strlen(list) >= sizeof buf) {
        snprintf(err, errlen, "--ra-opt-node: list too long: allowed at most %d rank counts", TM_MAX_SHAPES);
        return -1;
    }
    strcpy(buf, list);
    p->nshapes = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long R;
        if (kit_cli_long(t, 1, 65536, &R) || p->nshapes == TM_MAX_SHAPES) {
            kit_cli_bad_value(err, errlen, "ra-opt-node", list,
                              "comma-separated ranks per node, each 1..65536, at most 64 of them");
            return -1;
        }
        hops_out[p->nshapes] =
            ropt_timed_ra_opt_node((int)R, node_hops, hop, packet, &p->shapes[p->nshapes], NULL);
        p->nshapes++;
    }
    if (!p->nshapes) {
        kit_cli_bad_value(err, errlen, "ra-opt-node", list, "comma-separated ranks per node, each 1..65536");
        return -1;
    }
    return 0;
}
