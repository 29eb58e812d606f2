/* fuzz_params.c - torusmodel's params-file reader on arbitrary bytes. */
#include "fuzz.h"
#include "torusmodel.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    tm_params p;
    tm_params_defaults(&p);
    char err[512] = "";
    int rc = tm_params_stream(&p, f, "input", err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    /* every accepted figure is in its documented range, so the model's
     * outputs are finite or an explicit "unbounded" */
    const double v[] = {p.clock_hz, p.t_local, p.t_send, p.t_recv, p.t_overhead, p.t_hop, p.bytes_per_update,
                        p.link_bw, p.updates_per_message};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!(v[i] >= 0 && v[i] <= TM_PARAM_MAX))
            abort();
    for (int i = 0; i < p.nshapes && p.bytes_per_update > 0 && p.link_bw > 0; i++) {
        tm_row row;
        /* one rank has no network: its bound is an explicit infinity;
         * every other shape's network bound is a finite number */
        if (tm_evaluate(&p, &p.shapes[i], &row, err, sizeof err) == 0 &&
            !(isfinite(row.net_gups) || (p.shapes[i].n < 2 && row.net_gups == INFINITY)))
            abort();
        /* the prediction is never NaN and never above the smallest bound */
        if (tm_evaluate(&p, &p.shapes[i], &row, err, sizeof err) == 0 && row.predicted_gups == row.predicted_gups &&
            row.predicted_gups > row.bound_gups * (1 + 1e-12))
            abort();
    }
    return 0;
}
