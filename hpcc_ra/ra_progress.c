/* ra_progress.c - a throttled "label  42.0%  ETA 12 s" line on stderr. */
#include "ra_progress.h"
#include "kit_settings.h"

#include <stdio.h>
#include <stdlib.h>

#define RA_PROGRESS_DELAY 2.0    /* seconds before the first line */
#define RA_PROGRESS_PERIOD 0.5   /* seconds between refreshes */
#define RA_PROGRESS_STRIDE 65536 /* updates between clock reads */

struct ra_progress {
    int enabled, printed;
    uint64_t total, next_check;
    double t0, t_next;
    const char *label;
};

ra_progress *ra_progress_begin(int enabled, uint64_t total, const char *label)
{
    ra_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->enabled = enabled && total > 0;
    p->total = total;
    p->label = label;
    p->t0 = MPI_Wtime();
    p->t_next = p->t0 + RA_PROGRESS_DELAY;
#ifdef KIT_TEST_HOOKS
    /* test builds only (build/<flavour>/tests/ra_base_hooks):
     * RA_PROGRESS_DELAY_S lets tests see the line without a long run */
    const char *env = kit_setting("RA_PROGRESS_DELAY_S");
    if (env)
        p->t_next = p->t0 + atof(env);
#endif
    p->next_check = RA_PROGRESS_STRIDE;
    return p;
}

void ra_progress_tick(ra_progress *p, uint64_t generated)
{
    if (!p || !p->enabled || generated < p->next_check)
        return;
    p->next_check = generated + RA_PROGRESS_STRIDE;
    double now = MPI_Wtime();
    if (now < p->t_next)
        return;
    p->t_next = now + RA_PROGRESS_PERIOD;
    double frac = (double)generated / (double)p->total;
    if (frac > 1)
        frac = 1;
    double eta = frac > 0 ? (now - p->t0) * (1 - frac) / frac : 0;
    fprintf(stderr, "\r%s %5.1f%%  elapsed %.0f s  ETA %.0f s   ", p->label, 100 * frac,
            now - p->t0, eta);
    fflush(stderr);
    p->printed = 1;
}

void ra_progress_end(ra_progress *p)
{
    if (!p)
        return;
    if (p->printed) {
        fprintf(stderr, "\r%60s\r", "");
        fflush(stderr);
    }
    free(p);
}
