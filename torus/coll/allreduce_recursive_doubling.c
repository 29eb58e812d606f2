/*
 * allreduce_recursive_doubling.c - recursive-doubling allreduce.
 *
 * Algorithm: MPICH's short-message MPI_Allreduce paper 000 sec. 3.2
 *   names it as the baseline; Thakur, Rabenseifner and Gropp 2005).
 *   Let p = the largest power of two <= N and r = N - p.
 *   1. Pre-step: among the first 2r ranks, each odd rank sends its vector
 *      to the even rank below it and sits out; the even rank combines
 *      them.  The p ranks left take new numbers 0 .. p-1 (rank i < 2r:
 *      i/2, else i - r).
 *   2. In round k = 0 .. log2 p - 1 new rank j exchanges its whole vector
 *      with new rank j ^ 2^k and combines the two.
 *   3. Post-step: each even rank of the first 2r sends the result to the
 *      odd rank above it.
 *   Every combination is torus__reduce3(dst, lower rank's partial, higher
 *   rank's partial): the two partners evaluate the same expression on
 *   the same operands, so doubles come out bit-identical on every rank.
 * Preconditions: none (any N, any count).
 * Cost: with n = count * (element size) bytes and R = log2 p + 2 [r > 0] rounds,
 *   T = R (alpha + n beta) + (log2 p + [r > 0]) n gamma.  Rank i < 2r,
 *   odd: 1 message of n bytes; even: log2 p + 1 messages of n bytes;
 *   every other rank log2 p messages of n bytes.
 */
#include "coll_impl.h"

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, p = torus__floor_pow2(n), rem = n - p, rc = 0, newrank;
    size_t bytes = a->count * a->esize;
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
            torus__reduce3(c, buf, buf, tmp, a->count, a->dt, a->rop); /* mine is the lower rank */
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0)
        for (int mask = 1; mask < p; mask <<= 1) {
            int dst = torus__fold_rank(newrank ^ mask, rem);
            if ((rc = torus__sendrecv(c, dst, buf, bytes, dst, tmp, bytes)))
                return rc;
            if (dst < me)
                torus__reduce3(c, buf, tmp, buf, a->count, a->dt, a->rop);
            else
                torus__reduce3(c, buf, buf, tmp, a->count, a->dt, a->rop);
        }
    if (me < 2 * rem)
        rc = me % 2 ? torus__recv(c, me - 1, buf, bytes) : torus__send(c, me + 1, buf, bytes);
    return rc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, p = torus__floor_pow2(n), rem = n - p, lg = 0;
    size_t bytes = a->count * a->esize;
    while ((1 << lg) < p)
        lg++;
    if (rank < 2 * rem)
        k->msgs = rank % 2 ? 1 : (uint64_t)lg + 1;
    else
        k->msgs = (uint64_t)lg;
    k->bytes = k->msgs * bytes;
    k->rounds = lg + 2 * (rem > 0);
    k->path_bytes = k->rounds * (double)bytes;
    k->reduce_bytes = (double)(lg + (rem > 0)) * (double)bytes;
}

const torus__coll_alg torus__coll_allreduce_recursive_doubling = {
    .name = "recursive_doubling",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "log2 N exchanges of the whole vector, MPICH pre/post steps (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
