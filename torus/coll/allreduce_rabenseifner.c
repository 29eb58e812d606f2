/*
 * allreduce_rabenseifner.c - reduce-scatter + allgather allreduce.
 *
 * Algorithm: Rabenseifner (ICCS 2004), MPICH's long-message
 *   MPI_Allreduce paper 000 sec. 3.1).  Let p = the largest power of two
 *   <= N and r = N - p; the vector is cut into p blocks, block b holding
 *   count/p elements plus one for b < count mod p (some empty when
 *   count < p).
 *   1. Pre-step as in recursive doubling: among the first 2r ranks each
 *      odd rank sends its vector to the even rank below and sits out;
 *      the p ranks left take new numbers 0 .. p-1.
 *   2. Reduce-scatter by recursive halving: in step k = 0 .. log2 p - 1
 *      new rank j and j ^ 2^k split their common block range in two, the
 *      lower new rank keeping the lower half; each sends the half it
 *      gives up and combines the half it keeps.  At the end new rank j
 *      owns one block, fully reduced.
 *   3. Allgather by recursive doubling: the steps in reverse, each
 *      sending its range and receiving the partner's half.
 *   4. Post-step: each even rank of the first 2r sends the result to the
 *      odd rank above it.
 *   Each block is reduced by exactly one sequence of combinations, all at
 *   its final owner or its partners, each torus__reduce3(dst, lower
 *   rank's partial, higher rank's partial), then only copied: doubles are
 *   bit-identical everywhere.  Empty halves are not sent (both partners
 *   know the block sizes, so neither posts them).
 * Preconditions: none (any N, any count).
 * Cost: with n = count * (element size) bytes, R = 2 log2 p + 2 [r > 0] rounds,
 *   T = R alpha + 2 ((p-1)/p n + [r > 0] n) beta + ((p-1)/p n + [r > 0] n)
 *   gamma (block rounding makes the figures exact only for p | count;
 *   the cost function sums the real blocks).  A rank sends, per halving
 *   step, one message with the half it gives up and, per doubling step,
 *   one with the range it holds (non-empty ones only); an odd rank < 2r
 *   sends only its n bytes, an even one its n-byte result once more.
 */
#include "coll_impl.h"

#define MAX_STEPS 31 /* log2 of the largest power of two an int holds */

/* First element of block b of p blocks over count elements. */
static size_t disp(size_t count, int p, int b)
{
    size_t q = count / (size_t)p, rr = count % (size_t)p;
    return q * (size_t)b + ((size_t)b < rr ? (size_t)b : rr);
}

/* One halving step of new rank j with partner j ^ mask over blocks
 * [*lo, *hi): the kept half becomes [*lo, *hi), the given-up half
 * [*glo, *ghi). */
static void halve(int j, int mask, int *lo, int *hi, int *glo, int *ghi)
{
    int mid = (*lo + *hi) / 2;
    if (j < (j ^ mask)) {
        *glo = mid, *ghi = *hi;
        *hi = mid;
    } else {
        *glo = *lo, *ghi = mid;
        *lo = mid;
    }
}

/* The half of parent [plo, phi) that is not [lo, hi). */
static void other_half(int plo, int phi, int lo, int hi, int *olo, int *ohi)
{
    if (lo == plo)
        *olo = hi, *ohi = phi;
    else
        *olo = plo, *ohi = lo;
}

/* Receives [rlo, rhi) elements into rdst and sends [slo, shi) from src to
 * peer, skipping empty sides (the partner skips the same ones). */
static int exchange(torus_coll *c, int peer, const unsigned char *src, size_t slo, size_t shi, unsigned char *rdst,
                    size_t rlo, size_t rhi, size_t es)
{
    torus_req r[2] = {{-1}, {-1}};
    int rc;
    if (rhi > rlo && (rc = torus__irecv(c, peer, rdst + rlo * es, (rhi - rlo) * es, &r[0])))
        return rc;
    if (shi > slo && (rc = torus__isend(c, peer, src + slo * es, (shi - slo) * es, &r[1]))) {
        torus__wait(c, r, 1);
        return rc;
    }
    return torus__wait(c, r, 2);
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, p = torus__floor_pow2(n), rem = n - p, rc = 0, newrank;
    size_t count = a->count, es = a->esize, bytes = count * es;
    unsigned char *buf = a->rbuf, *tmp = torus__scratch(c, bytes);
    if (!tmp)
        return torus__fail(c, TORUS_COLL_ENOMEM, "allreduce: out of memory for %zu bytes", bytes);
    if (me < 2 * rem) {
        if (me % 2) {
            if ((rc = torus__send(c, me - 1, buf, bytes)))
                return rc;
            newrank = -1;
        } else {
            if ((rc = torus__recv(c, me + 1, tmp, bytes)))
                return rc;
            torus__reduce3(c, buf, buf, tmp, count, a->dt, a->rop); /* mine is the lower rank */
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0) {
        int lo = 0, hi = p, plo[MAX_STEPS], phi[MAX_STEPS], steps = 0;
        for (int mask = 1; mask < p; mask <<= 1, steps++) {
            int dst = torus__fold_rank(newrank ^ mask, rem), glo, ghi;
            plo[steps] = lo, phi[steps] = hi;
            halve(newrank, mask, &lo, &hi, &glo, &ghi);
            size_t k0 = disp(count, p, lo), k1 = disp(count, p, hi);
            if ((rc = exchange(c, dst, buf, disp(count, p, glo), disp(count, p, ghi), tmp, k0, k1, es)))
                return rc;
            if (k1 > k0) {
                unsigned char *mine = buf + k0 * es, *theirs = tmp + k0 * es;
                if (dst < me)
                    torus__reduce3(c, mine, theirs, mine, k1 - k0, a->dt, a->rop);
                else
                    torus__reduce3(c, mine, mine, theirs, k1 - k0, a->dt, a->rop);
            }
        }
        while (steps-- > 0) {
            int dst = torus__fold_rank(newrank ^ (1 << steps), rem), olo, ohi;
            other_half(plo[steps], phi[steps], lo, hi, &olo, &ohi);
            if ((rc = exchange(c, dst, buf, disp(count, p, lo), disp(count, p, hi), buf, disp(count, p, olo),
                               disp(count, p, ohi), es)))
                return rc;
            lo = plo[steps], hi = phi[steps];
        }
    }
    if (me < 2 * rem)
        rc = me % 2 ? torus__recv(c, me - 1, buf, bytes) : torus__send(c, me + 1, buf, bytes);
    return rc;
}

/* What `rank` sends (messages, bytes) and combines (bytes), the same walk
 * as run() without data. */
static void tally(int n, size_t count, size_t es, int rank, uint64_t *msgs, uint64_t *sent, double *reduced)
{
    int p = torus__floor_pow2(n), rem = n - p, newrank = rank < 2 * rem ? (rank % 2 ? -1 : rank / 2) : rank - rem;
    size_t bytes = count * es;
    *msgs = 0, *sent = 0, *reduced = 0;
    if (rank < 2 * rem) {
        *msgs = 1, *sent = bytes; /* odd: its vector; even: the result back */
        *reduced = newrank >= 0 ? (double)bytes : 0;
    }
    if (newrank < 0)
        return;
    int lo = 0, hi = p, plo[MAX_STEPS], phi[MAX_STEPS], steps = 0;
    for (int mask = 1; mask < p; mask <<= 1, steps++) {
        int glo, ghi;
        plo[steps] = lo, phi[steps] = hi;
        halve(newrank, mask, &lo, &hi, &glo, &ghi);
        size_t g = disp(count, p, ghi) - disp(count, p, glo);
        *msgs += g != 0;
        *sent += g * es;
        *reduced += (double)(disp(count, p, hi) - disp(count, p, lo)) * (double)es;
    }
    while (steps-- > 0) {
        size_t h = disp(count, p, hi) - disp(count, p, lo);
        *msgs += h != 0;
        *sent += h * es;
        lo = plo[steps], hi = phi[steps];
    }
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, p = torus__floor_pow2(n), lg = 0;
    uint64_t m0, s0;
    double red, red0;
    tally(n, a->count, a->esize, rank, &k->msgs, &k->bytes, &red);
    while ((1 << lg) < p)
        lg++;
    /* the critical path: rank 0 always takes part, and with r > 0 it is
     * the even rank of a pair, so its pre-step and post-step lie on it */
    tally(n, a->count, a->esize, 0, &m0, &s0, &red0);
    int rem = n - p;
    k->rounds = 2 * lg + 2 * (rem > 0);
    k->path_bytes = (double)s0 + (rem > 0 ? (double)(a->count * a->esize) : 0);
    k->reduce_bytes = red0;
}

const torus__coll_alg torus__coll_allreduce_rabenseifner = {
    .name = "rabenseifner",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "reduce-scatter by recursive halving + allgather by recursive doubling (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
