/*
 * ropt_pipe.c - the routed algorithm's inner loop (ropt.c calls it): the
 * update stream, the split of a chunk between this rank's table and the
 * rest, and the apply pipeline.
 *
 * Source: HPCC's RandomAccess stream (hpcc_ra/ra_gen.h) and paper 002 sec.
 * 5.2's routing, with the pipeline and the branch-free split of
 * docs/ra_opt.md "Speed on a node".
 * Steps:
 *   1. The stream eight elements at a time (issue 44, item 3): eight
 *      consecutive elements step together (LFSR: x -> x << 8 ^ clmul(x >>
 *      56, x^2 + x + 1), exact because the feedback never reaches the top
 *      byte within eight steps; LCG: x -> a^8 x + c (1 + a + ... + a^7)),
 *      eight independent chains where one step waited for the one before.
 *      The updates and their order are the single stream's (element start
 *      + i is the i-th generated), so every fingerprint and budget is as
 *      before; the rank's state stays the last element used (o->ran), a
 *      chunk starts its eight with eight single steps, and its last few
 *      (fewer than eight) go through the portable loop.
 *   2. The split: a chunk of updates goes into a local list (this rank's)
 *      and a remote list with no branch on where an update goes, while
 *      the previous local list enters the pipeline, one push per update
 *      split, so the split runs under the pipeline's misses.
 *      Where the CPU has AVX-512 (F and DQ), a freshly generated chunk is
 *      split eight at a time: the owner test on eight lanes gives a mask,
 *      and the lanes are compressed into the two lists (compress into a
 *      register, then one whole-vector store: the lists keep
 *      ROPT_SPLIT_SLACK words of room beyond their end for it).  Elsewhere
 *      the portable loop does the same an update at a time.  Chosen at run
 *      time, once (ropt_split_kernel names it; ra_opt --split portable
 *      forces the portable loop, to compare the two on one machine).
 *   3. The pipeline: an update for this rank's table is prefetched when it
 *      enters and XORed D entries later.
 * Cost per update: the pipeline's miss (overlapped D deep), two stores and
 * a compare in the split (an eighth of a vector step with AVX-512).
 */
#include "ropt_pipe.h"
#include "torus_prefetch.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* A word no update of the run changes on its own: the pipeline starts
 * full of D copies of a value whose word is this rank's first one, and D
 * is even, so every copy applied (each is, once: pushed out or flushed)
 * leaves that word as it was.  No branch per push for the empty start. */
static uint64_t pipe_dummy(const ropt *o)
{
    return o->gen == RA_GEN_LFSR ? o->local_start : o->local_start << (64 - o->log2);
}

void ropt_pipe_reset(ropt *o)
{
    uint64_t v0 = pipe_dummy(o);
    for (int i = 0; i < o->prm.lookahead; i++)
        o->pval[i] = v0;
    o->ph = o->pn = 0;
}

/* Applies every entry still in the pipeline (end of a phase), the start's
 * copies of the dummy among them. */
static void pipe_flush(ropt *o)
{
    idx_fn f = idx_of(o->log2);
    for (int i = 0; i < o->prm.lookahead; i++) {
        uint64_t v = o->pval[i];
        o->table[idx(f, o->gen, v) - o->local_start] ^= v;
    }
    ropt_pipe_reset(o);
}

/* How a chunk applies this rank's updates: straight (no pipeline), or
 * through the pipeline with PREFETCHW or with a plain prefetch. */
enum { APPLY_NOW = 0, APPLY_PFW, APPLY_PF };

/* The pipeline's cursor, held in locals while a chunk is split: a store
 * through a table pointer could alias the ropt fields and make the
 * compiler reload them every update. */
typedef struct pipe_cursor {
    uint64_t *pval, *table;
    uint64_t start;
    idx_fn f;
    int dmask, h;
} pipe_cursor;

static inline pipe_cursor cursor_of(const ropt *o)
{
    return (pipe_cursor){.pval = o->pval, .table = o->table, .start = o->local_start, .f = idx_of(o->log2),
                         .dmask = o->prm.lookahead - 1, .h = o->ph};
}

/* x belongs to this rank's block: prefetch its word now and apply the
 * entry it replaces, pushed D entries ago, so that its line has had time
 * to come (APPLY_NOW: apply it at once).  Everything it needs comes in as
 * values, not through a pointer to the cursor: the compiler then keeps
 * them in registers, where a pointer would make it reload them after
 * every store into the table.  gen and how are constants where this is
 * inlined; returns the next slot. */
static inline __attribute__((always_inline)) int push_at(uint64_t *table, uint64_t *pval, uint64_t start, idx_fn f,
                                                          int dmask, int h, uint64_t x, ra_gen_kind gen, int how)
{
    uint64_t *w = table + (idx(f, gen, x) - start);
    if (how == APPLY_NOW) {
        *w ^= x;
        return h;
    }
    if (how == APPLY_PFW)
        torus_prefetch_write(w);
    else
        __builtin_prefetch(w, 1, 3);
    uint64_t v = pval[h];
    table[idx(f, gen, v) - start] ^= v;
    pval[h] = x;
    return (h + 1) & dmask;
}

static inline __attribute__((always_inline)) void push(pipe_cursor *c, uint64_t x, ra_gen_kind gen, int how)
{
    c->h = push_at(c->table, c->pval, c->start, c->f, c->dmask, c->h, x, gen, how);
}

/* The split of split_chunk, written once and specialised by the compiler
 * for each constant gen (the index), from_gen (generator or array), how
 * (the pipeline) and all_mine: a branch per update on any of them cost
 * about a fifth of the rate here.  Pushes old[0..nold) meanwhile, one per
 * update split. */
static inline __attribute__((always_inline)) void split_loop(ropt *o, const uint64_t *src, int n, uint64_t *loc,
                                                              int *nloc, ropt_rlist *rl, const uint64_t *old,
                                                              int nold, pipe_cursor *c, ra_gen_kind gen,
                                                              int from_gen, int how, int all_mine)
{
    const uint64_t lo = o->local_start, lsz = o->local_size;
    uint64_t *const table = c->table, *const pval = c->pval, *const rem = rl->v;
    const uint64_t start = c->start;
    const idx_fn f = c->f;
    const int dmask = c->dmask;
    int h = c->h, nl = 0, nr = rl->n, i = 0, both = n < nold ? n : nold;
    uint64_t r = o->ran;
    /* the first `both` updates push an old one each, the rest do not: two
     * loops instead of a test per update */
    for (int pass = 0; pass < 2; pass++) {
        int end = pass == 0 ? both : n;
        for (; i < end; i++) {
            if (pass == 0)
                h = push_at(table, pval, start, f, dmask, h, old[i], gen, how);
            uint64_t x;
            if (from_gen)
                x = r = ra_gen_next(gen, r);
            else
                x = src[i];
            if (all_mine) {
                /* nothing to split: straight into the pipeline */
                h = push_at(table, pval, start, f, dmask, h, x, gen, how);
                continue;
            }
            int mine = idx(f, gen, x) - lo < lsz;
            loc[nl] = x;
            rem[nr] = x;
            nl += mine;
            nr += !mine;
        }
    }
    for (int j = n; j < nold; j++)
        h = push_at(table, pval, start, f, dmask, h, old[j], gen, how);
    c->h = h;
    if (from_gen) {
        o->ran = r;
        o->remaining -= (uint64_t)n;
        o->generated += (uint64_t)n;
    }
    *nloc = nl;
    rl->n = nr;
}

#define SPLIT3(G, FG, M, H) split_loop(o, src, n, loc, &nl, rl, old, nold, &c, G, FG, H, M)
#define SPLIT2(G, FG, M)                                                                                    \
    (how == APPLY_PFW ? SPLIT3(G, FG, M, APPLY_PFW) : how == APPLY_PF ? SPLIT3(G, FG, M, APPLY_PF)          \
                                                                       : SPLIT3(G, FG, M, APPLY_NOW))
#define SPLIT(G, FG) (all_mine ? SPLIT2(G, FG, 1) : SPLIT2(G, FG, 0))

static int apply_how(const ropt *o)
{
    return o->prm.lookahead == 0 ? APPLY_NOW : torus_have_prefetchw > 0 ? APPLY_PFW : APPLY_PF;
}

/* ---- AVX-512: a generated chunk split eight at a time ------------------- */

#if defined(__x86_64__) && defined(__GNUC__)
#define ROPT_HAVE_VSPLIT 1
#define VTARGET __attribute__((target("avx512f,avx512dq")))

static inline __attribute__((always_inline)) VTARGET void vsplit(ropt *o, int n, uint64_t *loc, int *nloc,
                                                                  ropt_rlist *rl, const uint64_t *old, int nold,
                                                                  pipe_cursor *c, ra_gen_kind gen, int how)
{
    uint64_t *const table = c->table, *const pval = c->pval, *const rem = rl->v;
    const uint64_t start = c->start;
    const idx_fn f = c->f;
    const int dmask = c->dmask;
    int h = c->h, nl = 0, nr = rl->n, i = 0, oi = 0;
    uint64_t r = o->ran;
    if (n >= 8) {
        /* the chunk's first eight elements, one step each (an eighth of a
         * step per update at a batch of 64), then eight at a time */
        uint64_t first[8];
        for (int j = 0; j < 8; j++)
            first[j] = r = ra_gen_next(gen, r);
        const __m512i lo = _mm512_set1_epi64((long long)o->local_start);
        const __m512i lsz = _mm512_set1_epi64((long long)o->local_size);
        const __m512i msk = _mm512_set1_epi64((long long)f.mask), sh = _mm512_set1_epi64(f.sh);
        /* the LCG's eight steps: x -> a^8 x + c (a^7 + ... + 1) */
        uint64_t a8 = 1, c8 = 0;
        for (int j = 0; j < 8; j++)
            c8 = RA_LCG_MUL * c8 + RA_LCG_ADD, a8 *= RA_LCG_MUL;
        const __m512i mul = _mm512_set1_epi64((long long)a8), add = _mm512_set1_epi64((long long)c8);
        __m512i v = _mm512_loadu_si512((const void *)first), last = v;
        for (; n - i >= 8; i += 8) {
            /* eight pushes of the old list per eight updates split, as the
             * portable loop's one per one */
            int e = oi + 8 < nold ? oi + 8 : nold;
            for (; oi < e; oi++)
                h = push_at(table, pval, start, f, dmask, h, old[oi], gen, how);
            __m512i ix = gen == RA_GEN_LFSR ? _mm512_and_si512(v, msk) : _mm512_srlv_epi64(v, sh);
            __mmask8 m = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(ix, lo), lsz);
            /* compress into a register, then one whole store each: the
             * lists have ROPT_SPLIT_SLACK words of room past their end */
            _mm512_storeu_si512((void *)(loc + nl), _mm512_maskz_compress_epi64(m, v));
            _mm512_storeu_si512((void *)(rem + nr), _mm512_maskz_compress_epi64((__mmask8)~m, v));
            int k = __builtin_popcount(m);
            nl += k;
            nr += 8 - k;
            last = v;
            if (gen == RA_GEN_LFSR) {
                __m512i t = _mm512_srli_epi64(v, 56);
                v = _mm512_xor_si512(_mm512_xor_si512(_mm512_slli_epi64(v, 8), t),
                                     _mm512_xor_si512(_mm512_slli_epi64(t, 1), _mm512_slli_epi64(t, 2)));
            } else {
                v = _mm512_add_epi64(_mm512_mullo_epi64(v, mul), add);
            }
        }
        /* the serial state: the last element used */
        _mm512_storeu_si512((void *)first, last);
        r = first[7];
    }
    o->ran = r;
    o->remaining -= (uint64_t)i;
    o->generated += (uint64_t)i;
    c->h = h;
    rl->n = nr;
    /* the rest of the chunk (fewer than eight) and of the old list: the
     * portable loop */
    int nt = 0;
    split_loop(o, NULL, n - i, loc + nl, &nt, rl, old + oi, nold - oi, c, gen, 1, how, 0);
    *nloc = nl + nt;
}

/* The six specialisations, each compiled for AVX-512. */
#define VSPLIT_FN(NAME, G, H)                                                                                    \
    static VTARGET void NAME(ropt *o, int n, uint64_t *loc, int *nl, ropt_rlist *rl, const uint64_t *old, int nold, \
                             pipe_cursor *c)                                                                     \
    {                                                                                                            \
        vsplit(o, n, loc, nl, rl, old, nold, c, G, H);                                                           \
    }
VSPLIT_FN(vsplit_lfsr_pfw, RA_GEN_LFSR, APPLY_PFW)
VSPLIT_FN(vsplit_lfsr_pf, RA_GEN_LFSR, APPLY_PF)
VSPLIT_FN(vsplit_lfsr_now, RA_GEN_LFSR, APPLY_NOW)
VSPLIT_FN(vsplit_lcg_pfw, RA_GEN_LCG, APPLY_PFW)
VSPLIT_FN(vsplit_lcg_pf, RA_GEN_LCG, APPLY_PF)
VSPLIT_FN(vsplit_lcg_now, RA_GEN_LCG, APPLY_NOW)

typedef void (*vsplit_fn)(ropt *, int, uint64_t *, int *, ropt_rlist *, const uint64_t *, int, pipe_cursor *);
static const vsplit_fn vsplit_of[2][3] = {{vsplit_lfsr_now, vsplit_lfsr_pfw, vsplit_lfsr_pf},
                                          {vsplit_lcg_now, vsplit_lcg_pfw, vsplit_lcg_pf}};
#else
#define ROPT_HAVE_VSPLIT 0
#endif

/* 1 when this CPU has AVX-512 F and DQ (found once). */
static int cpu_vsplit(void)
{
    static int ok = -1;
    if (ok < 0) {
        ok = 0;
#if ROPT_HAVE_VSPLIT
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    }
    return ok;
}

const char *ropt_split_kernel(const ropt_params *p)
{
    return cpu_vsplit() && !p->portable_split ? "avx512" : "portable";
}

/* Splits n updates -- src[0..n), or n freshly generated ones when src is
 * NULL -- into a new local list (this rank's) and the end of rl (the
 * rest, in order), while pushing the previous local list into the
 * pipeline, one entry per update split, so that this work runs while the
 * pipeline's misses are in flight.  all_mine: every update is this rank's
 * (a packet of the last dimension that has more than one rank, or a rank
 * alone), so none is tested and each goes straight into the pipeline.  rl
 * must have room for n more.  Held at any moment: the unpushed rest of the
 * old list plus the new one, at most one chunk. */
void ropt_split_chunk(ropt *o, const uint64_t *src, int n, ropt_rlist *rl, int all_mine)
{
    const uint64_t *old = o->lbuf[o->lcur];
    int nold = o->lnum, nl = 0;
    o->lcur ^= 1;
    uint64_t *loc = o->lbuf[o->lcur];
    pipe_cursor c = cursor_of(o);
    const int how = apply_how(o);
#if ROPT_HAVE_VSPLIT
    if (!src && !all_mine && !o->prm.portable_split && cpu_vsplit()) {
        vsplit_of[o->gen == RA_GEN_LCG][how](o, n, loc, &nl, rl, old, nold, &c);
    } else
#endif
    if (o->gen == RA_GEN_LFSR) {
        if (src)
            SPLIT(RA_GEN_LFSR, 0);
        else
            SPLIT(RA_GEN_LFSR, 1);
    } else {
        if (src)
            SPLIT(RA_GEN_LCG, 0);
        else
            SPLIT(RA_GEN_LCG, 1);
    }
    o->ph = c.h;
    o->pushed += (uint64_t)nold + (all_mine ? (uint64_t)n : 0);
    o->pn = o->pushed < (uint64_t)o->prm.lookahead ? (int)o->pushed : o->prm.lookahead;
    o->lnum = nl;
}

/* Pushes the local list and applies everything in the pipeline (end of a
 * phase). */
void ropt_apply_all(ropt *o)
{
    pipe_cursor c = cursor_of(o);
    const uint64_t *loc = o->lbuf[o->lcur];
    for (int j = 0; j < o->lnum; j++) {
        if (o->prm.lookahead)
            push(&c, loc[j], o->gen, APPLY_PF);
        else
            push(&c, loc[j], o->gen, APPLY_NOW);
    }
    o->lnum = 0;
    o->ph = c.h;
    pipe_flush(o);
}
