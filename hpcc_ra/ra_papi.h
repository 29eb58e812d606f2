/*
 * ra_papi.h - optional hardware counters around the timed kernel (--papi).
 *
 * Built against libpapi when the Makefile finds papi.h (HAVE_PAPI); without
 * it, or where the machine exposes no counters (VMs, locked perf_event), the
 * open call reports why in one line and the run goes on with wall-clock
 * figures only.  This layer knows nothing of MPI: the driver agrees on one
 * event set over all ranks and reduces the counts.
 */
#ifndef RA_PAPI_H
#define RA_PAPI_H

#include <stddef.h>
#include <stdint.h>

#define RA_PAPI_MAX 8
#define RA_PAPI_DEFAULT "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,PAPI_TLB_DM"

typedef struct ra_papi {
    int n;                         /* events requested */
    char names[RA_PAPI_MAX][48];   /* as requested, e.g. "PAPI_TOT_CYC" */
    unsigned counting;             /* bit i: event i is in the running set */
    int eventset;
    int opened;                    /* eventset exists */
    char why[200];                 /* why some or all events are not counted */
} ra_papi;

/* Splits a comma list (NULL or "" = RA_PAPI_DEFAULT) into p->names.
 * Returns 0, or -1 with err naming the bad item and what is allowed. */
int ra_papi_parse(ra_papi *p, const char *events, char *err, size_t errlen);

/* Builds the event set from the events whose bit is set in want; returns the
 * mask of events that are counted (0 when none, with p->why said). */
unsigned ra_papi_open(ra_papi *p, unsigned want);
void ra_papi_close(ra_papi *p);

/* Start/stop around the kernel; stop writes one count per requested event
 * (0 for events not counted).  Both are no-ops when nothing is counted. */
void ra_papi_start(ra_papi *p);
void ra_papi_stop(ra_papi *p, uint64_t counts[RA_PAPI_MAX]);

/* 1 when this build has PAPI compiled in. */
int ra_papi_built_in(void);

#endif
