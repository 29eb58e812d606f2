/*
 * idle.c - the one idle policy of every polling loop in the kit (the
 * routed algorithm's run loop, the collectives' waits, ra_base's loops).
 *
 * The algorithm says when it is idle (torus_idle_wait after a poll that
 * found nothing; torus_idle_reset after one that found work); the policy
 * says what an idle poll costs; the transport says how to wait long (its
 * optional sleep(): the shared-memory rings sleep on a futex until a peer
 * hands this rank work, bounded while a network dimension needs polling).
 *
 * Steps, counted in idle polls in a row:
 *   1 .. spin            return at once: a peer on another core answers
 *                        within microseconds, and a yield hands the core
 *                        to whatever is runnable (often a rank spinning
 *                        in MPICH, which keeps it for a whole time slice);
 *   spin+1 .. sleep_at-1 sched_yield(): MPICH's shared-memory progress
 *                        busy-waits, and with more ranks than cores the
 *                        peer we wait for needs this core;
 *   sleep_at ..          (sleep_at 0: never) the transport's sleep, else
 *                        nanosleep 1 us doubling every 1024 polls to 64 us.
 * Cost: one compare per idle poll until spin, then the system call.
 */
#include "torus.h"

#include <limits.h>
#include <sched.h>
#include <time.h>

void torus_idle_init(torus_idle *w, int spin, int sleep_at, const torus_transport *tp)
{
    w->polls = 0;
    w->spin = spin;
    w->sleep_at = sleep_at;
    w->tp = tp;
}

void torus_idle_wait(torus_idle *w)
{
    if (w->polls < INT_MAX)
        w->polls++;
    if (w->polls <= w->spin)
        return;
    if (!w->sleep_at || w->polls < w->sleep_at) {
        sched_yield();
        return;
    }
    if (w->tp && w->tp->sleep) {
        w->tp->sleep(w->tp->impl, TORUS_IDLE_SLEEP_NS);
        return;
    }
    int shift = (w->polls - w->sleep_at) / 1024;
    struct timespec ts = {0, 1000L << (shift < 6 ? shift : 6)};
    nanosleep(&ts, NULL);
}
