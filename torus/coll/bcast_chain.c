/*
 * bcast_chain.c - pipelined chain broadcast in segments, for long messages.
 *
 * Algorithm: the pipelined linear ("chain") broadcast of Open MPI's tuned
 *   component (ompi_coll_base_bcast_intra_chain with one chain) and of
 *   Traff and Ripke's pipelining analysis (J. Parallel Distrib. Comput.
 *   2008); the segment size is the classic alpha-beta optimum (Van de
 *   Geijn, "On global combine operations", JPDC 1994; Pjesivac-Grbovic et
 *   al., "Performance analysis of MPI collective operations", Cluster
 *   Computing 2007).  With ranks renumbered relative to the root
 *   (v = (i - root) mod N):
 *   1. Rank v > 0 receives an 8-byte header from v - 1 holding the ROOT's
 *      byte count n (the root makes it) and passes it on to v + 1 at once.
 *   2. Everyone cuts n (the root's, from the header, so every rank cuts
 *      the same) into S segments of m bytes, the last shorter (S = 0 for
 *      n = 0); v > 0 posts all S receives from v - 1, then forwards each
 *      segment to v + 1 as soon as it lands, in order; the root sends all
 *      S at once.
 *   Segment size: a chain of N ranks takes (N - 2 + S) stages of
 *   (alpha + m beta); with S = n/m, d/dm = 0 gives
 *   m* = sqrt(n alpha / ((N - 2) beta)).  alpha/beta is not known at run
 *   time (nor is it the same fact on every rank), so the formula uses a
 *   fixed ALPHA_OVER_BETA of 4096 bytes, between this VM's MPICH shared
 *   memory (collbench's calibration: alpha ~1 us, ~4-6 GB/s: 4-6 KiB) and
 *   BlueGene/L (5 us, 154 MB/s: 770 bytes); m is rounded down to 64
 *   bytes and held in [SEG_MIN, SEG_MAX] (1 KiB .. 256 KiB: the low end
 *   keeps per-message overhead under ~20% of a stage, the high end keeps
 *   a rendezvous send's buffer small).  For 1 MiB on 4 ranks m = 45 KiB.
 *   Sizes that differ between ranks: every rank follows the root's n from
 *   the header, so the same messages flow whatever the ranks were given
 *   (never a hang); a rank given fewer bytes than the root receives into
 *   scratch, keeps what fits and returns TORUS_COLL_ETRUNC, a rank given
 *   more keeps the root's n bytes and returns TORUS_COLL_ETRUNC too.
 * Preconditions: none (any N, any root, any size).
 * Cost: with S = ceil(n / m) segments, T = (N - 1 + S - 1) (alpha + m beta)
 *   + alpha (the header runs one hop ahead): n beta + (N - 2) m beta
 *   on the path instead of binomial's ceil(log2 N) n beta.  Rank v < N - 1
 *   sends 1 + S messages, 8 + n bytes; the last rank sends none.
 */
#include "coll_impl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define ALPHA_OVER_BETA 4096.0
#define SEG_MIN ((size_t)1024)
#define SEG_MAX ((size_t)256 * 1024)

/* The segment for n bytes on an N-rank chain (the header's n: the same
 * on every rank). */
static size_t segment(size_t n, int nranks)
{
    double hops = nranks > 2 ? (double)(nranks - 2) : 1.0;
    double m = sqrt((double)n * ALPHA_OVER_BETA / hops);
    size_t s = (size_t)m & ~(size_t)63;
    s = s < SEG_MIN ? SEG_MIN : s > SEG_MAX ? SEG_MAX : s;
    return n && s > n ? n : s;
}

static size_t nsegs(size_t n, size_t m)
{
    return m ? n / m + (n % m != 0) : 0;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, v = (c->me - a->root + n) % n, rc = 0;
    if (n == 1)
        return 0;
    int prev = (c->me - 1 + n) % n, next = v + 1 < n ? (c->me + 1) % n : -1;
    uint64_t hdr = a->bytes;
    if (v && (rc = torus__recv(c, prev, &hdr, sizeof hdr)))
        return rc;
    size_t total = (size_t)hdr, m = segment(total, n), ns = nsegs(total, m);
    unsigned char *dst = a->buf;
    if (total > a->bytes && !(dst = torus__scratch(c, total)))
        return torus__fail(c, TORUS_COLL_ENOMEM, "bcast: out of memory for %zu bytes", total);
    torus_req *rr = torus__scratch(c, (ns + 1) * sizeof *rr), *sr = torus__scratch(c, (ns + 1) * sizeof *sr);
    if (!rr || !sr)
        return torus__fail(c, TORUS_COLL_ENOMEM, "bcast: out of memory for %zu requests", ns);
    int nsr = 0;
    if (next >= 0 && (rc = torus__isend(c, next, &hdr, sizeof hdr, &sr[nsr++])))
        return rc;
    for (size_t s = 0; v && s < ns; s++) {
        size_t lo = s * m, len = total - lo < m ? total - lo : m;
        if ((rc = torus__irecv(c, prev, dst + lo, len, &rr[s])))
            return rc;
    }
    /* each segment onwards as soon as it is here, in order (the next rank
     * matches them by order) */
    for (size_t s = 0; s < ns; s++) {
        size_t lo = s * m, len = total - lo < m ? total - lo : m;
        if (v && (rc = torus__wait(c, &rr[s], 1)))
            return rc;
        if (next >= 0 && (rc = torus__isend(c, next, dst + lo, len, &sr[nsr++])))
            return rc;
    }
    if ((rc = torus__wait(c, sr, nsr)))
        return rc;
    if (total != a->bytes) {
        if (dst != a->buf)
            memcpy(a->buf, dst, a->bytes);
        return torus__fail(c, TORUS_COLL_ETRUNC,
                           "rank %d: bcast: the root sends %zu bytes where %zu are expected: do the counts or sizes "
                           "differ between ranks?",
                           c->me, total, a->bytes);
    }
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, v = (rank - a->root + n) % n;
    size_t m = segment(a->bytes, n), ns = nsegs(a->bytes, m);
    if (n == 1)
        return;
    if (v + 1 < n) {
        k->msgs = 1 + ns;
        k->bytes = 8 + a->bytes;
    }
    k->rounds = (double)(n - 1) + (ns ? (double)ns - 1 : 0) + 1;
    k->path_bytes = (double)(n - 2) * (double)(ns ? m : 0) + (double)a->bytes + 8;
}

const torus__coll_alg torus__coll_bcast_chain = {
    .name = "chain",
    .op = TORUS_COLL_BCAST,
    .summary = "pipelined chain in rank order, segments of sqrt(n alpha / ((N-2) beta)) (any N; long messages)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
