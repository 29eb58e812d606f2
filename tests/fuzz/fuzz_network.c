/* fuzz_network.c - the network grammar (sparsest_cut SHAPE, torusmodel
 * --network: a torus shape, fattree:K,N[,T], dragonfly:A,P,H[,G]) on
 * arbitrary text.  Accepted: the counts agree with the closed form and a
 * small network's graph builds with every host an endpoint; refused: one
 * line naming what is allowed. */
#include "fuzz.h"
#include "sparsest_cut.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *txt = malloc(size + 1);
    if (!txt)
        return 0;
    memcpy(txt, data, size);
    txt[size] = 0;
    sc_network net;
    char err[512] = "";
    if (sc_network_parse(txt, &net, err, sizeof err)) {
        fuzz_one_line(err);
    } else {
        sc_result r;
        if (net.hosts < 2 || sc_network_closed_form(&net, &r, err, sizeof err))
            abort();
        if (!(r.alpha > 0) || !isfinite(r.alpha) || r.wtotal != (double)net.hosts)
            abort();
        sc_result_free(&r);
        if (net.kind != SC_NET_TORUS && net.hosts + net.switches <= 4096) {
            sc_graph g;
            if (sc_graph_from_network(&g, &net, err, sizeof err) || g.wtotal != (double)net.hosts)
                abort();
            sc_graph_free(&g);
        }
    }
    free(txt);
    return 0;
}
