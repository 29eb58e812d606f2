/*
 * msgq.h - internal to torus/: the message interface of the in-process
 * transports (transport_sim.c, transport_timed.c).  Matching follows MPI:
 * a receive takes the first unmatched message from its source with its
 * tag in send order; a send takes the first posted receive that matches in
 * post order; the data is copied at the match.  Times are what the timed
 * transport needs (the functional one passes 0): a message is at its
 * receiver from `arrive` on, a send's buffer is free again from `ready` on
 * (INFINITY: only when matched, a rendezvous send).
 */
#ifndef TORUS_MSGQ_H
#define TORUS_MSGQ_H

#include <stddef.h>

typedef struct torus__msgs torus__msgs;

torus__msgs *torus__msgs_create(int nranks);
void torus__msgs_destroy(torus__msgs *m);

/* Starts a send of bytes from src to dst; *id is the send's request.
 * Returns 0, -1 on out of memory. */
int torus__msgs_isend(torus__msgs *m, int src, int dst, const void *buf, size_t bytes, int tag, double arrive,
                      double ready, int *id);
/* The same data from src to ndst ranks dst[i] (arriving at arrive[i]) as
 * ndst messages under ONE send request, which completes at `ready` or,
 * for a rendezvous (ready INFINITY), once every copy is matched.  flags
 * travel with each copy to its receive (torus__msgs_flags).  Returns 0,
 * -1 on out of memory. */
int torus__msgs_isend_multi(torus__msgs *m, int src, const int *dst, const double *arrive, int ndst, const void *buf,
                            size_t bytes, int tag, double ready, int flags, int *id);
/* Starts a receive at rank me from src; *id is its request. */
int torus__msgs_irecv(torus__msgs *m, int me, int src, void *buf, size_t bytes, int tag, int *id);
/* 1 (and frees the request) once request id has completed by time now,
 * -1 (and frees it) for a receive whose message was longer than its
 * buffer, else 0.  *bytes_out, if not NULL, gets the message's size. */
int torus__msgs_test(torus__msgs *m, int id, double now, size_t *bytes_out);
/* The flags of the message a receive matched (0 if none yet); read it
 * before the test that frees the request. */
int torus__msgs_flags(const torus__msgs *m, int id);
/* Whether request id is a receive. */
int torus__msgs_is_recv(const torus__msgs *m, int id);
/* The earliest time after now at which one of rank r's requests can
 * complete by itself; INFINITY when none can (only a new send can help). */
double torus__msgs_next_event(const torus__msgs *m, int r, double now);
/* Requests of rank r still open (for a clean end of a run). */
int torus__msgs_open(const torus__msgs *m, int r);

#endif
