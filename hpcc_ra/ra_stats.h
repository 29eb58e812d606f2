/* ra_stats.h - the counters every RandomAccess algorithm keeps; no MPI, so
 * the routed state machine and the simulators can share them. */
#ifndef RA_STATS_H
#define RA_STATS_H

#include <stdint.h>

/* Activities an algorithm may time (--profile), at most this many. */
#define RA_PROF_MAX 8

/* Counters an algorithm fills in during update(); reduced over ranks by the
 * driver (max for max_pending, sums for the rest; the profile as each
 * rank's share of the timed run, min and max over ranks). */
typedef struct ra_stats {
    uint64_t max_pending;   /* largest number of updates held at once */
    uint64_t send_tests;    /* "may I send?" checks of a busy/free channel */
    uint64_t send_blocked;  /* ... that found it busy (SBF numerator) */
    uint64_t packets_sent;  /* update packets (not finish marks) */
    uint64_t updates_sent;  /* updates carried by those packets */
    uint64_t hops;          /* software-routing hops taken by updates */
    uint64_t polls_empty;   /* asks for a packet that found none (ra_opt) */
    uint64_t recv_peers;    /* over packets taken: the peers of their
                             * dimension (k - 1), what a receiver that
                             * scans one ring per peer looks through */
    uint64_t bytes_sent;    /* update payload bytes sent, 8 per update per hop;
                             * MPI envelopes, finish marks and empty
                             * packets are not counted */
    int nprof;              /* activities timed, 0 = no profile */
    const char *const *prof_names;
    double prof_s[RA_PROF_MAX]; /* this rank's seconds in each */
} ra_stats;

#endif
