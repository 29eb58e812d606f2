/* tune.c - collbench --tune FILE: the fastest algorithm per op and size of
 * this run, as rows of a selection table (torus_coll_table, the format of
 * docs/collectives.md "Tuning") merged into FILE, which TORUS_COLL_TABLE
 * then hands to the library and the MPI adapter.
 *
 * Rows: per op, consecutive sizes with the same winner (least avg_us of
 * the algorithms that ran as asked and the MPI library's own call, `mpi`;
 * auto is not a candidate) become one row for exactly this run's rank count, its node layout
 * (nodes 1 when some node holds several ranks) and no deposit bit (MPI);
 * a row's bytes reach from just above the previous size up to its last
 * size, the first from 0, the last without bound.  alltoall's rows are
 * for uniform blocks (uniform 1); alltoallv's, timed only when alltoall
 * is not, for any counts.  FILE's rows for other rank counts or ops stay;
 * this rank count's rows of the ops tuned are replaced.
 *
 * An `mpi` row sends the adapter's calls there to the library's own (the
 * target: no size slower than the library); the torus library used
 * directly reads it as no row (torus_coll_table_wants_library).
 *
 * Precedence (issue 33, class 5): the table's rule is "first row that
 * fits wins", so rows appended after a row of FILE that fits the same
 * calls (a catch-all: ranks any, bytes any) would never be used.  The
 * rows this run writes therefore go at the top of the table, before every
 * row FILE had, and FILE's other rows follow in their order.  The new rows
 * fit only calls of their op at exactly this rank count, node layout and
 * no deposit bit, so a call they do not fit is decided by FILE's rows as
 * before: only the calls the run tuned change hands. */
#include "collbench.h"

#include "kit_host.h"

#include <sys/stat.h>

static torus_coll_table *tune_tab; /* rank 0: FILE's rows, then the merge */

/* Rank 0, before the run: FILE's table (a file that does not exist or is
 * empty: none yet).  0, or an exit code with the one line in err. */
int cb_tune_begin(const opts *o, char *err, size_t errlen)
{
    struct stat st;
    char e2[600];
    if (stat(o->tune, &st) || (S_ISREG(st.st_mode) && st.st_size == 0) || !S_ISREG(st.st_mode)) {
        tune_tab = torus_coll_table_new();
        if (!tune_tab) {
            snprintf(err, errlen, "out of memory");
            return KIT_EXIT_RESOURCE;
        }
        return cb_probe_file("tune", o->tune, err, errlen) ? KIT_EXIT_RESOURCE : 0;
    }
    if (torus_coll_table_read(&tune_tab, o->tune, e2, sizeof e2)) {
        snprintf(err, errlen, "--tune: %s (a file that holds a table is merged into, any other is left alone)",
                 e2);
        return KIT_EXIT_USAGE;
    }
    return cb_probe_file("tune", o->tune, err, errlen) ? KIT_EXIT_RESOURCE : 0;
}

/* A range's measurement, the row's note (the table keeps why each row is
 * there: command, CPU, date, library, ratio). */
typedef struct why {
    size_t lo, hi;     /* sizes timed */
    double rmin, rmax; /* the winner's time over the library's (ratio < 0: none) */
} why;

static void why_add(why *w, const row *best, int first)
{
    if (first)
        *w = (why){best->size, best->size, -1, -1};
    w->hi = best->size;
    if (best->ratio < 0)
        return;
    w->rmin = w->rmin < 0 || best->ratio < w->rmin ? best->ratio : w->rmin;
    w->rmax = best->ratio > w->rmax ? best->ratio : w->rmax;
}

/* What every note of this run ends with: the CPU, the library's name and
 * version (its version string's first words) and the date (read once). */
static void run_tail(const run_info *ri, char *out, size_t len)
{
    char cpu[96];
    if (kit_cpuinfo("model name", cpu, sizeof cpu) || !cpu[0])
        snprintf(cpu, sizeof cpu, "unknown CPU");
    snprintf(out, len, "%s; %.*s; %s", cpu, (int)strcspn(ri->mpi, ",\n\r\t"), ri->mpi, ri->date);
}

static void why_note(torus_coll_table *t, const run_info *ri, const why *w, const char *tail)
{
    char note[512], ratio[64] = ""; /* the note keeps TORUS_COLL_NOTE_MAX bytes */
    if (w->rmin >= 0)
        snprintf(ratio, sizeof ratio, ", %.2f-%.2fx the library's time", w->rmin, w->rmax);
    snprintf(note, sizeof note, "collbench --tune %d ranks (%d a node), %zu-%zu B%s; %s", ri->ranks, ri->per_node,
             w->lo, w->hi, ratio, tail);
    torus_coll_table_set_note(t, torus_coll_table_rows(t) - 1, note);
}

/* The rows of kind in ri, winner per size, appended to t as ranges, each
 * with its note.  Returns the rows added, or -1 with err. */
static int tune_kind(torus_coll_table *t, const run_info *ri, int kind, const char *tail, char *err, size_t errlen)
{
    torus_coll_table_row tr;
    memset(&tr, 0, sizeof tr);
    tr.op = cb_kind_op[kind];
    tr.min_ranks = tr.max_ranks = ri->ranks;
    tr.min_dims = 0;
    tr.pow2 = -1;
    tr.shared_nodes = ri->per_node > 1;
    tr.uniform = kind == K_ALLTOALL ? 1 : -1;
    tr.deposit = 0;
    tr.library = kit_mpi_built_for() ? kit_mpi_built_for() : -1; /* measured over this library */
    int added = 0, have = 0;
    uint64_t prev = 0;
    why w = {0, 0, -1, -1};
    for (int i = 0; i < ri->nrows;) {
        /* the rows of one size are consecutive */
        size_t size = ri->rows[i].size;
        const row *best = NULL;
        int j = i;
        for (; j < ri->nrows && ri->rows[j].size == size; j++) {
            const row *r = &ri->rows[j];
            if (r->kind != kind || !strcmp(r->alg, "auto") || strcmp(r->alg, r->chosen))
                continue;
            if (!best || r->avg_us < best->avg_us)
                best = r;
        }
        i = j;
        if (!best)
            continue;
        if (have && !strcmp(tr.algorithm, best->alg)) {
            tr.max_bytes = kind == K_BARRIER ? UINT64_MAX : (uint64_t)size;
            prev = size;
            why_add(&w, best, 0);
            continue;
        }
        if (have) {
            if (torus_coll_table_add(t, &tr, err, errlen))
                return -1;
            why_note(t, ri, &w, tail);
            added++;
            tr.min_bytes = prev + 1;
        }
        why_add(&w, best, 1);
        snprintf(tr.algorithm, sizeof tr.algorithm, "%.31s", best->alg);
        tr.max_bytes = kind == K_BARRIER ? UINT64_MAX : (uint64_t)size;
        prev = size;
        have = 1;
    }
    if (have) {
        tr.max_bytes = UINT64_MAX;
        if (torus_coll_table_add(t, &tr, err, errlen))
            return -1;
        why_note(t, ri, &w, tail);
        added++;
    }
    return added;
}

/* Rank 0, after the run: the merge, written atomically: this run's rows
 * first, then FILE's rows that stay, in their order (the precedence
 * above).  0, or an exit code with the one line in err. */
int cb_tune_end(const opts *o, const run_info *ri, char *err, size_t errlen)
{
    char e2[600], tail[300];
    int kinds[4] = {K_BARRIER, K_BCAST, K_ALLREDUCE, o->kinds[K_ALLTOALL] ? K_ALLTOALL : K_ALLTOALLV}, added = 0;
    run_tail(ri, tail, sizeof tail);
    torus_coll_table *merged = torus_coll_table_new();
    if (!merged) {
        snprintf(err, errlen, "--tune: out of memory");
        return KIT_EXIT_RESOURCE;
    }
    for (int k = 0; k < 4; k++) {
        if (!o->kinds[kinds[k]])
            continue;
        torus_coll_table_drop(tune_tab, cb_kind_op[kinds[k]], ri->ranks);
        int a = tune_kind(merged, ri, kinds[k], tail, e2, sizeof e2);
        if (a < 0) {
            snprintf(err, errlen, "--tune: %s", e2);
            torus_coll_table_free(merged);
            return KIT_EXIT_RESOURCE;
        }
        added += a;
    }
    for (int i = 0; i < torus_coll_table_rows(tune_tab); i++) {
        if (torus_coll_table_add(merged, torus_coll_table_row_at(tune_tab, i), e2, sizeof e2)) {
            snprintf(err, errlen, "--tune: %s", e2);
            torus_coll_table_free(merged);
            return KIT_EXIT_RESOURCE;
        }
        torus_coll_table_set_note(merged, torus_coll_table_rows(merged) - 1, torus_coll_table_note(tune_tab, i));
    }
    torus_coll_table_free(tune_tab);
    tune_tab = merged;
    kit_outfile f;
    if (kit_outfile_open(&f, o->tune, 0, e2, sizeof e2)) {
        snprintf(err, errlen, "--tune: %s", e2);
        return KIT_EXIT_RESOURCE;
    }
    fprintf(f.f, "# collbench --tune (hpcc-ra %s): the fastest algorithm per op and size; TORUS_COLL_TABLE=FILE "
                 "uses it (docs/collectives.md, Tuning).  Last run: %d ranks, at most %d per node\n",
            HPCC_RA_VERSION, ri->ranks, ri->per_node);
    torus_coll_table_write(tune_tab, f.f);
    if (kit_outfile_commit(&f, e2, sizeof e2)) {
        snprintf(err, errlen, "--tune: %s", e2);
        return KIT_EXIT_RESOURCE;
    }
    char shown[300];
    kit_cli_escape(o->tune, shown, sizeof shown);
    printf("# tune: %d rows for %d ranks written to %s, before its other rows (%d rows in all)\n", added, ri->ranks,
           shown, torus_coll_table_rows(tune_tab));
    torus_coll_table_free(tune_tab);
    tune_tab = NULL;
    return 0;
}
