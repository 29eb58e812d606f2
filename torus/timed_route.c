/*
 * timed_route.c - the timed transport's message interface (the
 * collectives'): a message cut into packets that book the links of the
 * dimension-ordered route hop by hop (timed_links.c), the deposit bit's
 * line send, receives and tests through the matching queue (msgq.c), and
 * the CPU time each charges.
 */
#include "timed_impl.h"

#include <stdlib.h>
#include <string.h>

/* A message of `bytes` from rank r to dest: packets injected one after
 * another (each no earlier than the CPU has written it), each crossing
 * the links of the dimension-ordered route as the link books allow.  On a
 * ring, a packet at exactly half the ring away (both ways are shortest)
 * takes the two ways in turn, packet by packet at each source: BlueGene/L
 * routes adaptively among shortest paths (paper 000 sec. 2), and a fixed
 * choice would load one direction of every even ring with k/2 + 1 of k
 * shares.  Returns the arrival of the last packet to arrive (-1 on out
 * of memory); *left the time the last packet left the first link (the
 * send buffer is free again). */
static double route_message(torus_timed *s, int r, int dest, size_t bytes, double now, double *left)
{
    const torus_shape *sh = &s->map->shape;
    const int *from = &s->map->coords[(size_t)r * s->nd], *to = &s->map->coords[(size_t)dest * s->nd];
    /* the route: per dimension a direction and a number of steps */
    int dir[TORUS_MAX_DIMS], steps[TORUS_MAX_DIMS], tie[TORUS_MAX_DIMS], hops = 0, ties = 0;
    for (int d = 0; d < s->nd; d++) {
        int k = sh->k[d], fwd = (to[d] - from[d] + k) % k;
        tie[d] = 0;
        if (sh->mesh[d]) {
            dir[d] = to[d] > from[d] ? 0 : 1;
            steps[d] = abs(to[d] - from[d]);
        } else if (fwd < k - fwd) {
            dir[d] = 0, steps[d] = fwd;
        } else if (fwd > k - fwd) {
            dir[d] = 1, steps[d] = k - fwd;
        } else {
            dir[d] = 0, steps[d] = fwd;
            tie[d] = fwd > 0 && k > 2; /* a ring of 2: its two links are one each way */
            ties |= tie[d];
        }
        hops += steps[d];
    }
    size_t npk = bytes ? (bytes + (size_t)s->p.packet_bytes - 1) / (size_t)s->p.packet_bytes : 1;
    double arrive = now, out = now, written = now;
    size_t rest = bytes;
    for (size_t k = 0; k < npk; k++) {
        double pay = rest < (size_t)s->p.packet_bytes ? (double)rest : s->p.packet_bytes;
        rest -= (size_t)pay;
        double ser = (pay + s->p.header_bytes) / s->p.link_bw;
        written += s->p.cpu_send_pkt_s;
        if (ties) {
            int way = (int)(s->ties[r]++ & 1u);
            for (int d = 0; d < s->nd; d++)
                if (tie[d])
                    dir[d] = way;
        }
        if (!hops) {
            out = written;
            arrive = arrive > written ? arrive : written;
            continue;
        }
        int c[TORUS_MAX_DIMS];
        memcpy(c, from, (size_t)s->nd * sizeof *c);
        double head = written, first = -1;
        for (int d = 0; d < s->nd; d++)
            for (int h = 0; h < steps[d]; h++) {
                link_book *b = &s->book[torus__timed_link_at(s, c, d, dir[d])];
                torus__timed_book_prune(b, s->horizon);
                double st = torus__timed_book_take(b, head, ser);
                if (st < 0)
                    return -1;
                if (first < 0)
                    first = st;
                head = st + s->p.latency_s; /* the head reaches the next router */
                torus__timed_step_along(c, d, dir[d], sh->k[d]);
            }
        s->busy += ser * hops;
        out = first + ser > out ? first + ser : out;
        /* head: the last link's start plus one latency; the tail follows ser later */
        arrive = head + ser > arrive ? head + ser : arrive;
    }
    *left = out;
    s->packets += npk;
    s->words += (bytes + 7) / 8;
    return arrive;
}

static double npackets(const torus_timed *s, size_t bytes)
{
    return bytes ? (double)((bytes + (size_t)s->p.packet_bytes - 1) / (size_t)s->p.packet_bytes) : 1.0;
}

/* A send starts when this step's CPU work so far is done; the CPU then
 * spends cpu_msg_s on the message and cpu_send_pkt_s on every packet. */
int torus__timed_isend(void *impl, int dest, const void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    double now = s->clock[me] + s->cpu_due[me] + s->p.cpu_msg_s, left;
    double arrive = route_message(s, me, dest, bytes, now, &left);
    if (arrive < 0)
        return -1;
    s->cpu_due[me] += s->p.cpu_msg_s + npackets(s, bytes) * s->p.cpu_send_pkt_s;
    if (torus__msgs_isend(s->msgs, me, dest, buf, bytes, tag, arrive, left, &r->id))
        return -1;
    torus__timed_wake_at(s, dest, arrive);
    return 0;
}

/* The flag of a message deposited by a line send (see timed_test). */
#define DEPOSITED 1

/* Paper 000's deposit bit (sec. 3, 3.2): a line send writes each packet
 * once per direction of the line (both ways round a ring, floor(k/2)
 * nodes the + way and the rest the - way; towards both ends of a mesh
 * line) and the packet is deposited at every node it passes, booking
 * each link of its way as a message's packet does.  The sender pays
 * cpu_msg_s once and cpu_send_pkt_s per packet and direction; a
 * receiver pays only cpu_recv_pkt_s per packet it reads (timed_test): no
 * message of its own was matched, "receivers pay only a per-packet read"
 * (the paper's phase latency S + (n-1) max(|P|/BW, T_pkt)). */
int torus__timed_line_send(void *impl, int d, const void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    const torus_shape *sh = &s->map->shape;
    const int *mine = &s->map->coords[(size_t)me * s->nd];
    int k = sh->k[d], p = mine[d];
    int way[2]; /* nodes the + way and the - way */
    if (sh->mesh[d])
        way[0] = k - 1 - p, way[1] = p;
    else
        way[0] = k / 2, way[1] = k - 1 - k / 2;
    int nw = (way[0] > 0) + (way[1] > 0);
    int *dst = malloc((size_t)k * sizeof *dst);
    double *arrive = calloc((size_t)k, sizeof *arrive);
    if (!dst || !arrive) {
        free(dst), free(arrive);
        return -1;
    }
    int c[TORUS_MAX_DIMS];
    memcpy(c, mine, (size_t)s->nd * sizeof *c);
    for (int w = 0, i = 0; w < 2; w++)
        for (int h = 1; h <= way[w]; h++) {
            c[d] = w == 0 ? (p + h) % k : (p - h + k) % k;
            dst[i++] = s->map->rank_of[torus_map_linear(sh, c)];
        }
    double now = s->clock[me] + s->cpu_due[me] + s->p.cpu_msg_s, written = now, left = now;
    size_t npk = (size_t)npackets(s, bytes), rest = bytes;
    for (size_t q = 0; q < npk; q++) {
        double pay = rest < (size_t)s->p.packet_bytes ? (double)rest : s->p.packet_bytes;
        rest -= (size_t)pay;
        double ser = (pay + s->p.header_bytes) / s->p.link_bw;
        for (int w = 0, base = 0; w < 2; base += way[w], w++) {
            if (!way[w])
                continue;
            written += s->p.cpu_send_pkt_s;
            double head = written;
            memcpy(c, mine, (size_t)s->nd * sizeof *c);
            for (int h = 0; h < way[w]; h++) {
                link_book *b = &s->book[torus__timed_link_at(s, c, d, w)];
                torus__timed_book_prune(b, s->horizon);
                double st = torus__timed_book_take(b, head, ser);
                if (st < 0) {
                    free(dst), free(arrive);
                    return -1;
                }
                if (h == 0 && st + ser > left)
                    left = st + ser;
                head = st + s->p.latency_s;
                if (head + ser > arrive[base + h])
                    arrive[base + h] = head + ser;
                torus__timed_step_along(c, d, w, k);
            }
            s->busy += ser * way[w];
        }
    }
    s->packets += npk * (size_t)nw;
    s->words += (uint64_t)nw * ((bytes + 7) / 8);
    s->cpu_due[me] += s->p.cpu_msg_s + (double)npk * nw * s->p.cpu_send_pkt_s;
    int rc = torus__msgs_isend_multi(s->msgs, me, dst, arrive, k - 1, buf, bytes, tag, left, DEPOSITED, &r->id);
    for (int i = 0; !rc && i < k - 1; i++)
        torus__timed_wake_at(s, dst[i], arrive[i]);
    free(dst), free(arrive);
    return rc;
}

int torus__timed_irecv(void *impl, int src, void *buf, size_t bytes, int tag, torus_req *r)
{
    timed_ep *e = impl;
    return torus__msgs_irecv(e->t->msgs, e->rank, src, buf, bytes, tag, &r->id);
}

int torus__timed_test(void *impl, torus_req *r)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int me = e->rank;
    if (r->id < 0)
        return 1;
    size_t bytes = 0;
    int is_recv = torus__msgs_is_recv(s->msgs, r->id);
    int deposited = is_recv && (torus__msgs_flags(s->msgs, r->id) & DEPOSITED);
    int rc = torus__msgs_test(s->msgs, r->id, s->clock[me] + s->cpu_due[me], &bytes);
    if (rc) {
        r->id = -1;
        if (is_recv) {
            /* the CPU reads every packet of the message; a deposited one
             * was matched by no message call of its own */
            s->cpu_due[me] += (deposited ? 0 : s->p.cpu_msg_s) + npackets(s, bytes) * s->p.cpu_recv_pkt_s;
            s->recvs++;
        }
    }
    return rc;
}

void torus__timed_reduced(void *impl, size_t bytes)
{
    timed_ep *e = impl;
    e->t->cpu_due[e->rank] += (double)bytes * e->t->p.cpu_reduce_byte_s;
}
