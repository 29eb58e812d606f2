/*
 * alltoallv_routed.c - dimension-routed alltoallv: small blocks
 * aggregated dimension by dimension, as the routed RandomAccess does.
 *
 * Algorithm: the software routing of paper 002 sec. 5 applied to
 *   alltoall(v), in the spirit of paper 000's dimension-wise collectives.
 *   A block from s to t travels along dimension 0 to t's coordinate there,
 *   then along dimension 1, and so on.  In phase d (every dimension of
 *   size k_d > 1 in turn) each rank sends ONE message to each of the
 *   k_d - 1 other ranks on its line along d, holding every block it holds
 *   whose destination lies at that rank's coordinate d; blocks travel as
 *   records (16-byte header: source, destination, length; then the data),
 *   since ranks in between do not know other ranks' counts.  A message's
 *   size goes first (8 bytes) so the receiver can post the right buffer;
 *   an empty message is announced as 0 and not sent.  Blocks of 0 bytes
 *   never travel (the receiver knows its counts).  sum(k_d - 1) partners
 *   instead of N - 1: fewer, fuller messages for small blocks.
 * Preconditions: none (any shape; size-1 dimensions are skipped).
 * Cost: with uniform blocks of m bytes and D' dimensions of size > 1:
 *   R = 2 D' rounds; in phase d a rank holds N/k_d blocks for each other
 *   coordinate, so it sends k_d - 1 size messages (8 bytes) and, when
 *   m > 0, k_d - 1 data messages of (N/k_d)(16 + m) bytes:
 *   T = sum_d [2 alpha + (k_d - 1)(8 + (N/k_d)(16 + m)) beta].
 */
#include "coll_impl.h"

#include <string.h>

#define HDR 16

typedef struct rec_hdr {
    int32_t src, dst;
    uint64_t len;
} rec_hdr;

_Static_assert(sizeof(rec_hdr) == HDR, "record header layout");

/* Walks the packed records of buf[0..len). */
static size_t rec_size(const unsigned char *p)
{
    rec_hdr h;
    memcpy(&h, p, HDR);
    return HDR + (size_t)h.len;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, rc = 0;
    const unsigned char *s = a->sbuf;
    unsigned char *r = a->rbuf;
    const int *mine = torus__coords(c, me);
    /* my own block is a copy; the others become records */
    if (a->scounts[me] > a->rcounts[me])
        return torus__fail(c, TORUS_COLL_ETRUNC, "rank %d: its block to itself is %zu bytes but %zu are expected", me,
                           a->scounts[me], a->rcounts[me]);
    memcpy(r + a->rdispls[me], s + a->sdispls[me], a->scounts[me]);
    size_t held_len = 0;
    for (int j = 0; j < n; j++)
        if (j != me && a->scounts[j])
            held_len += HDR + a->scounts[j];
    unsigned char *held = torus__scratch(c, held_len + 1);
    size_t *size_to = torus__scratch(c, 4 * (size_t)n * sizeof(size_t));
    torus_req *req = torus__scratch(c, 4 * (size_t)n * sizeof *req);
    if (!held || !size_to || !req)
        return torus__fail(c, TORUS_COLL_ENOMEM, "routed alltoallv: out of memory");
    size_t *size_from = size_to + n, *off_to = size_to + 2 * n, *off_from = size_to + 3 * n;
    size_t o = 0;
    for (int j = 0; j < n; j++)
        if (j != me && a->scounts[j]) {
            rec_hdr h = {me, j, a->scounts[j]};
            memcpy(held + o, &h, HDR);
            memcpy(held + o + HDR, s + a->sdispls[j], a->scounts[j]);
            o += HDR + a->scounts[j];
        }
    for (int d = 0; d < c->ndims; d++) {
        int k = c->map->shape.k[d];
        if (k < 2)
            continue;
        /* bytes for each coordinate along d */
        for (int q = 0; q < k; q++)
            size_to[q] = 0;
        for (size_t p = 0; p < held_len; p += rec_size(held + p)) {
            rec_hdr h;
            memcpy(&h, held + p, HDR);
            int q = torus__coords(c, h.dst)[d];
            if (q != mine[d])
                size_to[q] += rec_size(held + p);
        }
        size_t out = 0;
        for (int q = 0; q < k; q++) {
            off_to[q] = out;
            out += size_to[q];
        }
        unsigned char *sendbuf = torus__scratch(c, out + 1);
        if (!sendbuf)
            return torus__fail(c, TORUS_COLL_ENOMEM, "routed alltoallv: out of memory");
        /* pack: records for other coordinates out, the rest stay in front of held */
        size_t keep = 0;
        for (int q = 0; q < k; q++)
            off_from[q] = off_to[q]; /* cursor per coordinate */
        for (size_t p = 0; p < held_len;) {
            size_t sz = rec_size(held + p);
            rec_hdr h;
            memcpy(&h, held + p, HDR);
            int q = torus__coords(c, h.dst)[d];
            if (q == mine[d]) {
                memmove(held + keep, held + p, sz);
                keep += sz;
            } else {
                memcpy(sendbuf + off_from[q], held + p, sz);
                off_from[q] += sz;
            }
            p += sz;
        }
        /* sizes first: every partner gets 8 bytes */
        int nr = 0;
        for (int q = 0; q < k; q++)
            if (q != mine[d] && (rc = torus__irecv(c, torus__line_rank(c, me, d, q), &size_from[q], 8, &req[nr++])))
                return rc;
        uint64_t *announce = torus__scratch(c, (size_t)k * 8);
        if (!announce)
            return torus__fail(c, TORUS_COLL_ENOMEM, "routed alltoallv: out of memory");
        for (int q = 0; q < k; q++) {
            announce[q] = size_to[q];
            if (q != mine[d] && (rc = torus__isend(c, torus__line_rank(c, me, d, q), &announce[q], 8, &req[nr++])))
                return rc;
        }
        if ((rc = torus__wait(c, req, nr)))
            return rc;
        size_t in = 0;
        for (int q = 0; q < k; q++) {
            off_from[q] = in;
            if (q != mine[d])
                in += size_from[q];
        }
        unsigned char *next = torus__scratch(c, keep + in + 1);
        if (!next)
            return torus__fail(c, TORUS_COLL_ENOMEM, "routed alltoallv: out of memory");
        memcpy(next, held, keep);
        nr = 0;
        for (int q = 0; q < k; q++)
            if (q != mine[d] && size_from[q] &&
                (rc = torus__irecv(c, torus__line_rank(c, me, d, q), next + keep + off_from[q], size_from[q],
                                   &req[nr++])))
                return rc;
        for (int q = 0; q < k; q++)
            if (q != mine[d] && size_to[q] &&
                (rc = torus__isend(c, torus__line_rank(c, me, d, q), sendbuf + off_to[q], size_to[q], &req[nr++])))
                return rc;
        if ((rc = torus__wait(c, req, nr)))
            return rc;
        held = next;
        held_len = keep + in;
    }
    /* every record is mine now */
    for (size_t p = 0; p < held_len; p += rec_size(held + p)) {
        rec_hdr h;
        memcpy(&h, held + p, HDR);
        if (h.dst != me || h.src < 0 || h.src >= n || h.len != a->rcounts[h.src])
            return torus__fail(c, TORUS_COLL_ETRUNC,
                               "rank %d: a block from rank %d of %llu bytes where %zu are expected: do the counts differ between ranks?",
                               me, (int)h.src, (unsigned long long)h.len, h.src >= 0 && h.src < n ? a->rcounts[h.src] : 0);
        memcpy(r + a->rdispls[h.src], held + p + HDR, (size_t)h.len);
    }
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)rank;
    for (int d = 0; d < c->ndims; d++) {
        int kd = c->map->shape.k[d];
        if (kd < 2)
            continue;
        uint64_t data = a->bytes ? (uint64_t)(c->n / kd) * (HDR + a->bytes) : 0;
        k->msgs += (uint64_t)(kd - 1) * (a->bytes ? 2u : 1u);
        k->bytes += (uint64_t)(kd - 1) * (8 + data);
        k->rounds += 2;
        k->path_bytes += (double)(kd - 1) * (double)(8 + data);
    }
}

const torus__coll_alg torus__coll_alltoallv_routed = {
    .name = "routed",
    .op = TORUS_COLL_ALLTOALLV,
    .summary = "blocks aggregated dimension by dimension: sum(k_d - 1) partners",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
