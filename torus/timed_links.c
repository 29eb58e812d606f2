/*
 * timed_links.c - the timed transport's link booking: every directed link's
 * busy intervals, sorted and disjoint, and the search for the first gap a
 * packet fits in (transport_timed.c's packet interface with link_gaps, and
 * timed_route.c's messages).
 */
#include "timed_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- the message interface's link books --------------------------------
 *
 * Every directed link keeps the busy intervals [s, e) that packets of
 * messages have booked on it, sorted and disjoint.  A packet takes, hop by
 * hop, the first gap long enough for it that starts no earlier than its
 * head can be there (virtual cut-through: one latency behind the previous
 * hop, and not before the previous hop started; a packet that finds the
 * next link busy waits in the router's buffer, whose space is not
 * modelled).  So a packet booked later in the simulation can still use an
 * idle gap before packets booked earlier, as on the real network, where
 * links are arbitrated packet by packet.  Intervals that end before the
 * clock of the rank being stepped are dropped: the loop steps ranks in
 * clock order, so nothing can be booked before that clock any more.
 */

void torus__timed_book_prune(link_book *b, double horizon)
{
    while (b->head < b->len && b->e[b->head] <= horizon)
        b->head++;
    if (b->head == b->len) {
        b->head = b->len = 0;
    } else if (b->head > 32 && b->head * 2 > b->len) {
        int m = b->len - b->head;
        memmove(b->s, b->s + b->head, (size_t)m * sizeof *b->s);
        memmove(b->e, b->e + b->head, (size_t)m * sizeof *b->e);
        b->head = 0;
        b->len = m;
    }
}

/* The earliest start >= t of a free window of length ser on b; *pos gets
 * the index of the first interval after that window. */
double torus__timed_book_find(const link_book *b, double t, double ser, int *pos)
{
    /* the first interval that ends after t: binary search */
    int lo = b->head, hi = b->len;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (b->e[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int i = lo;
    double start = t;
    while (i < b->len && b->s[i] < start + ser - BOOK_EPS) {
        if (b->e[i] > start)
            start = b->e[i];
        i++;
    }
    *pos = i;
    return start;
}

/* The earliest start >= t of a free window of length ser on b, booked;
 * -1 on out of memory. */
double torus__timed_book_take(link_book *b, double t, double ser)
{
    int i;
    double start = torus__timed_book_find(b, t, ser, &i);
    /* [start, start + ser) lies between interval i - 1 and interval i */
    double end = start + ser;
    int join_prev = i > b->head && b->e[i - 1] >= start - BOOK_EPS;
    int join_next = i < b->len && b->s[i] <= end + BOOK_EPS;
    if (join_prev && join_next) {
        b->e[i - 1] = b->e[i];
        memmove(b->s + i, b->s + i + 1, (size_t)(b->len - i - 1) * sizeof *b->s);
        memmove(b->e + i, b->e + i + 1, (size_t)(b->len - i - 1) * sizeof *b->e);
        b->len--;
    } else if (join_prev) {
        b->e[i - 1] = end;
    } else if (join_next) {
        b->s[i] = start;
    } else {
        if (b->len == b->cap) {
            int nc = b->cap ? 2 * b->cap : 8;
            double *ns = realloc(b->s, (size_t)nc * sizeof *ns);
            if (!ns)
                return -1;
            b->s = ns;
            double *ne = realloc(b->e, (size_t)nc * sizeof *ne);
            if (!ne)
                return -1;
            b->e = ne;
            b->cap = nc;
        }
        memmove(b->s + i + 1, b->s + i, (size_t)(b->len - i) * sizeof *b->s);
        memmove(b->e + i + 1, b->e + i, (size_t)(b->len - i) * sizeof *b->e);
        b->s[i] = start;
        b->e[i] = end;
        b->len++;
    }
    return start;
}
