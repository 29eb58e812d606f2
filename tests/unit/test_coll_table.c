/*
 * test_coll_table.c - the selection table from a file (torus/coll/
 * select_table.c, TORUS_COLL_TABLE): a good file read, written and read
 * back to the same rows; each kind of bad line refused with one line
 * naming the file, the line and what is allowed; and the library picking
 * the file's rows before the compiled table, falling back to it where no
 * row fits and when the table is turned off (ranks that disagreed).
 */
#include "../test.h"
#include "torus_coll.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

static const char good[] = "# a comment before the first line\n"
                           "torus-coll-table 1\n"
                           "\n"
                           "# op ranks dims pow2 nodes uniform deposit bytes algorithm\n"
                           "  allreduce 4 0 any any any any 0-1024 rabenseifner   # a trailing comment\n"
                           "  allreduce 4 0 any any any any 1025-any recursive_doubling\n"
                           "  barrier 2-8 1 1 0 any 0 any dissemination\n"
                           "  alltoallv any 0 any any 1 any 0-32 bruck\n"
                           /* mpi: the MPI library's own call, any op */
                           "  allreduce 4 0 any any any any 16384 mpi\n"
                           "  bcast 4 0 any any any any any mpi\n"
                           "  alltoallv any 0 any any 1 any 33-any mpi\n";

static void read_good(void)
{
    char path[300], err[700];
    snprintf(path, sizeof path, "%s/good", dir);
    put(path, good);
    torus_coll_table *t = NULL;
    ASSERT_EQ_INT(torus_coll_table_read(&t, path, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_coll_table_rows(t), 7);
    const torus_coll_table_row *r = torus_coll_table_row_at(t, 0);
    ASSERT_EQ_INT(r->op, TORUS_COLL_ALLREDUCE);
    ASSERT_EQ_INT(r->min_ranks, 4);
    ASSERT_EQ_INT(r->max_ranks, 4);
    ASSERT_EQ_INT(r->pow2, -1);
    ASSERT_EQ_INT(r->deposit, -1);
    ASSERT_EQ_U64(r->min_bytes, 0);
    ASSERT_EQ_U64(r->max_bytes, 1024);
    ASSERT_STR_EQ(r->algorithm, "rabenseifner");
    r = torus_coll_table_row_at(t, 1);
    ASSERT_EQ_U64(r->min_bytes, 1025);
    ASSERT_EQ_U64(r->max_bytes, UINT64_MAX);
    r = torus_coll_table_row_at(t, 2);
    ASSERT_EQ_INT(r->min_ranks, 2);
    ASSERT_EQ_INT(r->max_ranks, 8);
    ASSERT_EQ_INT(r->min_dims, 1);
    ASSERT_EQ_INT(r->pow2, 1);
    ASSERT_EQ_INT(r->shared_nodes, 0);
    ASSERT_EQ_INT(r->deposit, 0);
    r = torus_coll_table_row_at(t, 3);
    ASSERT_EQ_INT(r->min_ranks, -1);
    ASSERT_EQ_INT(r->uniform, 1);
    r = torus_coll_table_row_at(t, 4);
    ASSERT_EQ_INT(r->op, TORUS_COLL_ALLREDUCE);
    ASSERT_EQ_U64(r->min_bytes, 16384);
    ASSERT_STR_EQ(r->algorithm, "mpi");
    ASSERT_STR_EQ(torus_coll_table_row_at(t, 5)->algorithm, "mpi");
    ASSERT_EQ_INT(torus_coll_table_row_at(t, 6)->uniform, 1);
    /* written and read back: the same rows (the same id) */
    char path2[300];
    snprintf(path2, sizeof path2, "%s/written", dir);
    FILE *f = fopen(path2, "w");
    torus_coll_table_write(t, f);
    fclose(f);
    torus_coll_table *t2 = NULL;
    ASSERT_EQ_INT(torus_coll_table_read(&t2, path2, err, sizeof err), 0);
    ASSERT_EQ_U64(torus_coll_table_hash(t2), torus_coll_table_hash(t));
    ASSERT_TRUE(torus_coll_table_hash(t) != 0);
    ASSERT_STR_EQ(torus_coll_table_row_at(t2, 5)->algorithm, "mpi");
    /* a re-tune's merge: 4 ranks' allreduce rows dropped, the rest kept */
    torus_coll_table_drop(t2, TORUS_COLL_ALLREDUCE, 4);
    ASSERT_EQ_INT(torus_coll_table_rows(t2), 4);
    ASSERT_TRUE(torus_coll_table_hash(t2) != torus_coll_table_hash(t));
    torus_coll_table_free(t);
    torus_coll_table_free(t2);
}

/* text refused with a message holding each of want[] */
static void refused(const char *text, const char *want1, const char *want2)
{
    char path[300], err[700] = "";
    snprintf(path, sizeof path, "%s/bad", dir);
    put(path, text);
    torus_coll_table *t = (torus_coll_table *)1;
    ASSERT_EQ_INT(torus_coll_table_read(&t, path, err, sizeof err), -1);
    ASSERT_TRUE(t == NULL);
    ASSERT_TRUE(strchr(err, '\n') == NULL);
    ASSERT_STR_CONTAINS(err, want1);
    ASSERT_STR_CONTAINS(err, want2);
}

/* the first line, the number of words */
static void t_bad_header_and_word_count(void)
{
    refused("", "empty: allowed a first line 'torus-coll-table 2'", "/bad");
    refused("torus-coll-table 3\n", "bad:1: not a selection table", "allowed a first line 'torus-coll-table 2'");
    /* version 2: the library column after deposit */
    refused("torus-coll-table 2\nallreduce 4 0 any any any 0 8 swing\n", "bad:2: 9 words: allowed 10", "library");
    refused("torus-coll-table 1\nallreduce 4 0 any any any 0 8\n", "bad:2: 8 words: allowed 9", "algorithm");
    refused("torus-coll-table 1\nallreduce 4 0 any any any 0 8 swing more\n", "bad:2: 10 words: allowed 9", "op");
}

/* each field's bad values */
static void t_bad_field_values(void)
{
    refused("torus-coll-table 1\ngather 4 0 any any any 0 8 swing\n", "bad:2: bad op 'gather'",
            "allowed barrier, bcast, allreduce or alltoallv");
    refused("torus-coll-table 1\nbcast 99999999999999999999999 0 any any any 0 8 binomial\n",
            "bad:2: bad ranks '99999999999999999999999'", "allowed any, N, N-M or N-any");
    refused("torus-coll-table 1\nbcast 8-4 0 any any any 0 8 binomial\n", "bad ranks '8-4'", "N <= M");
    refused("torus-coll-table 1\nbcast 0 0 any any any 0 8 binomial\n", "bad ranks '0'", "1 <= N");
    refused("torus-coll-table 1\nbcast -4 0 any any any 0 8 binomial\n", "bad ranks '-4'", "allowed");
    refused("torus-coll-table 1\nbcast 4 25 any any any 0 8 binomial\n", "bad dims '25'", "0..24");
    refused("torus-coll-table 1\nbcast 4 0 yes any any 0 8 binomial\n", "bad pow2 'yes'", "allowed 0, 1 or any");
    refused("torus-coll-table 1\nbcast 4 0 any 2 any 0 8 binomial\n", "bad nodes '2'", "allowed 0, 1 or any");
    refused("torus-coll-table 1\nbcast 4 0 any any x 0 8 binomial\n", "bad uniform 'x'", "allowed 0, 1 or any");
    refused("torus-coll-table 1\nbcast 4 0 any any any -1 8 binomial\n", "bad deposit '-1'", "allowed 0, 1 or any");
    refused("torus-coll-table 1\nbcast 4 0 any any any 0 1K binomial\n", "bad bytes '1K'", "2^62");
    refused("torus-coll-table 1\nbcast 4 0 any any any 0 18446744073709551616 binomial\n", "bad bytes", "2^62");
    refused("torus-coll-table 2\nbcast 4 0 any any any 0 intel 8 binomial\n", "bad:2: bad library 'intel'",
            "allowed any, mpich or openmpi");
}

/* an algorithm the op does not have, spelt in capitals, a format directive */
static void t_unknown_algorithm(void)
{
    refused("torus-coll-table 1\nbcast 4 0 any any any 0 8 swing\n", "bad:2: unknown bcast algorithm 'swing'",
            "allowed binomial");
    refused("torus-coll-table 1\nbcast 4 0 any any any 0 8 MPI\n", "unknown bcast algorithm 'MPI'", "mpi or flat");
    /* a format directive is data: echoed escaped, never interpreted */
    refused("torus-coll-table 1\nbcast 4 0 any any any 0 8 %s%n%x\n", "unknown bcast algorithm '%s%n%x'", "allowed");
}

/* a line past the reader's limit; a file that is not there */
static void t_long_line_and_missing_file(void)
{
    char longline[2000];
    snprintf(longline, sizeof longline, "torus-coll-table 1\nbarrier %01500d\n", 1);
    refused(longline, "bad:2", "");
    char path[300], err[700] = "";
    snprintf(path, sizeof path, "%s/missing", dir);
    torus_coll_table *t;
    ASSERT_EQ_INT(torus_coll_table_read(&t, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "cannot read");
}

/* The library's choice on a 4-rank line over the functional simulator
 * (the file is read once per process, at the first choice: this case
 * comes before every other that chooses). */
static void choice(void)
{
    char path[300], err[700];
    snprintf(path, sizeof path, "%s/use", dir);
    put(path, good);
    setenv("TORUS_COLL_TABLE", path, 1);
    torus_shape s;
    torus_shape_parse("4", 4, &s, err, sizeof err);
    torus_map m;
    torus_map_xyzt(&m, &s);
    torus_transport tp = {0};
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .seed = 1};
    torus_sim *sim = torus_sim_create(&m, &sp);
    torus_sim_bind(sim, 0, &tp);
    torus_coll *c;
    torus_coll_config cfg = {.map = &m, .me = 0, .tp = &tp};
    ASSERT_EQ_INT(torus_coll_create(&c, &cfg, err, sizeof err), 0);
    char msg[700];
    uint64_t id = torus_coll_table_use(msg, sizeof msg);
    ASSERT_STR_EQ(msg, "");
    ASSERT_TRUE(id != 0);
    /* the compiled table picks recursive doubling at 8 bytes on 4 ranks:
     * the file says rabenseifner up to 1 KiB, recursive doubling above */
    ASSERT_STR_EQ(torus_coll_choice(c, TORUS_COLL_ALLREDUCE, 8), "rabenseifner");
    ASSERT_STR_EQ(torus_coll_choice(c, TORUS_COLL_ALLREDUCE, 4096), "recursive_doubling");
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_ALLREDUCE, 8, 0), 0);
    /* rows in file order: 1025-any recursive doubling comes before the
     * 16384 mpi row */
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_ALLREDUCE, 16384, 0), 0);
    /* bcast's only row says mpi: the library used directly has no MPI
     * call, so for it no row fits (the compiled table's choice); a caller
     * with the library's call is told to make it */
    const char *compiled_bcast = torus_coll_choice(c, TORUS_COLL_BCAST, 8);
    ASSERT_STR_EQ(compiled_bcast, "binomial");
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_BCAST, 8, 0), 1);
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_BCAST, 1 << 20, 0), 1);
    /* alltoallv's mpi row is for uniform blocks above 32 bytes only */
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_ALLTOALLV, 64, 1), 1);
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_ALLTOALLV, 64, 0), 0);
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_ALLTOALLV, 16, 1), 0);
    ASSERT_STR_EQ(torus_coll_choice(c, TORUS_COLL_ALLTOALLV, 64), "pairwise");
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_BARRIER, 0, 0), 0);
    /* a forced algorithm still wins over the file, mpi rows too */
    ASSERT_EQ_INT(torus_coll_force(c, TORUS_COLL_ALLREDUCE, "swing"), 0);
    ASSERT_EQ_INT(torus_coll_force(c, TORUS_COLL_BCAST, "binomial"), 0);
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_BCAST, 8, 0), 0);
    torus_coll_force(c, TORUS_COLL_BCAST, NULL);
    torus_coll_force(c, TORUS_COLL_ALLREDUCE, NULL);
    /* ranks that disagreed: the compiled table everywhere */
    torus_coll_table_off();
    ASSERT_EQ_U64(torus_coll_table_use(msg, sizeof msg), 0);
    ASSERT_STR_EQ(torus_coll_choice(c, TORUS_COLL_ALLREDUCE, 8), "recursive_doubling");
    ASSERT_EQ_INT(torus_coll_table_wants_library(c, TORUS_COLL_BCAST, 8, 0), 0);
    torus_coll_destroy(c);
    torus_sim_destroy(sim);
    torus_map_free(&m);
}

/* A context of n ranks on a line over the functional simulator, with the
 * MPI library `library` under it (TORUS_COLL_LIB_*). */
typedef struct ctx {
    torus_map m;
    torus_sim *sim;
    torus_transport tp;
    torus_coll *c;
} ctx;

static void ctx_make(ctx *x, const char *shape, int library)
{
    char err[300];
    torus_shape s;
    memset(x, 0, sizeof *x);
    ASSERT_EQ_INT(torus_shape_parse(shape, 0, &s, err, sizeof err), 0);
    torus_map_xyzt(&x->m, &s);
    torus_sim_params sp = {.cap = 1, .outstanding = 1, .seed = 1};
    x->sim = torus_sim_create(&x->m, &sp);
    torus_sim_bind(x->sim, 0, &x->tp);
    torus_coll_config cfg = {.map = &x->m, .me = 0, .tp = &x->tp, .library = library};
    ASSERT_EQ_INT(torus_coll_create(&x->c, &cfg, err, sizeof err), 0);
}

static void ctx_free(ctx *x)
{
    torus_coll_destroy(x->c);
    torus_sim_destroy(x->sim);
    torus_map_free(&x->m);
}

static torus_coll_route route(const ctx *x, torus_coll_op op, uint64_t bytes, int uniform, int calls)
{
    torus_coll_route r;
    torus_coll_route_of(x->c, op, bytes, uniform, calls, &r);
    return r;
}

/* The compiled table is torus/coll/select.table, byte for byte in its
 * rows (the tests run from the top of the tree), and its adapter rows
 * decide as pmpi_prefer.c's C rows did. */
static void compiled_table_is_the_file(void)
{
    char err[700];
    const torus_coll_table *t = torus_coll_table_compiled();
    ASSERT_TRUE(t != NULL);
    ASSERT_TRUE(torus_coll_table_rows(t) > 20);
    torus_coll_table *f = NULL;
    ASSERT_EQ_INT(torus_coll_table_read(&f, "torus/coll/select.table", err, sizeof err), 0);
    ASSERT_EQ_U64(torus_coll_table_hash(f), torus_coll_table_hash(t));
    torus_coll_table_free(f);
    int all = TORUS_ROUTE_COMPILED_CALLS | TORUS_ROUTE_FLAT_OK, lib = TORUS_ROUTE_COMPILED_CALLS;
    ctx m, o, s;
    ctx_make(&m, "2", TORUS_COLL_LIB_MPICH);
    ctx_make(&o, "2", TORUS_COLL_LIB_OPENMPI);
    ctx_make(&s, "2", TORUS_COLL_LIB_NONE);
    /* one node: the shared area below its bounds (a bcast has none: in
     * pieces), then the library's rows */
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 1, 0, all).kind, TORUS_ROUTE_FLAT);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 65537, 0, all).kind, TORUS_ROUTE_FLAT);
    ASSERT_EQ_INT(route(&o, TORUS_COLL_BCAST, 1 << 30, 0, all).kind, TORUS_ROUTE_FLAT);
    /* without the area, MPICH's bcast below 512 KiB, ours above */
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 65537, 0, lib).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 524288, 0, lib).kind, TORUS_ROUTE_TORUS);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_ALLREDUCE, 16385, 0, all).kind, TORUS_ROUTE_TORUS);
    ASSERT_EQ_INT(route(&o, TORUS_COLL_ALLREDUCE, 16385, 0, all).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_ALLTOALLV, 65536, 1, all).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_ALLTOALLV, 64, 1, all).kind, TORUS_ROUTE_FLAT);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_ALLTOALLV, 0, 0, all).kind, TORUS_ROUTE_TORUS); /* alltoallv: no flat */
    ASSERT_EQ_INT(route(&o, TORUS_COLL_ALLTOALLV, 0, 0, all).kind, TORUS_ROUTE_LIBRARY); /* Open MPI's, any counts */
    ASSERT_EQ_INT(route(&o, TORUS_COLL_ALLTOALLV, 65536, 1, all).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BARRIER, 0, 0, all).kind, TORUS_ROUTE_FLAT);
    ASSERT_EQ_INT(route(&o, TORUS_COLL_BARRIER, 0, 0, lib).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BARRIER, 0, 0, lib).kind, TORUS_ROUTE_TORUS);
    /* several nodes (no shared area): the library's rows alone */
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 1, 0, lib).kind, TORUS_ROUTE_LIBRARY);
    ASSERT_EQ_INT(route(&o, TORUS_COLL_BCAST, 1 << 30, 0, lib).kind, TORUS_ROUTE_LIBRARY);
    /* a route that is not a torus algorithm still names the one that
     * runs when the caller cannot take it */
    torus_coll_route r = route(&o, TORUS_COLL_ALLREDUCE, 8, 0, lib);
    ASSERT_EQ_INT(r.kind, TORUS_ROUTE_LIBRARY);
    ASSERT_STR_EQ(r.name, "mpi");
    ASSERT_TRUE(r.alg != NULL);
    /* no library (the simulators) or no calls: torus rows only */
    ASSERT_EQ_INT(route(&s, TORUS_COLL_BCAST, 65537, 0, lib).kind, TORUS_ROUTE_TORUS);
    ASSERT_EQ_INT(route(&m, TORUS_COLL_BCAST, 1, 0, 0).kind, TORUS_ROUTE_TORUS);
    ASSERT_STR_EQ(route(&m, TORUS_COLL_BCAST, 1, 0, 0).name, "binomial");
    /* a forced algorithm over every row */
    ASSERT_EQ_INT(torus_coll_force(m.c, TORUS_COLL_BCAST, "scatter_allgather"), 0);
    r = route(&m, TORUS_COLL_BCAST, 1, 0, all);
    ASSERT_EQ_INT(r.kind, TORUS_ROUTE_TORUS);
    ASSERT_STR_EQ(r.name, "scatter_allgather");
    ctx_free(&m);
    ctx_free(&o);
    ctx_free(&s);
}

/* A route holds over its whole range [bytes, hi]: the adapter caches it
 * per range.  Every op, every caller, sizes around every bound. */
static void route_holds_to_hi(void)
{
    static const char *const shapes[] = {"2", "4", "8", "4x4x4"};
    static const int callers[] = {0, TORUS_ROUTE_COMPILED_CALLS,
                                  TORUS_ROUTE_COMPILED_CALLS | TORUS_ROUTE_FLAT_OK};
    for (int si = 0; si < 4; si++)
        for (int lib = TORUS_COLL_LIB_NONE; lib <= TORUS_COLL_LIB_OPENMPI; lib++) {
            ctx x;
            ctx_make(&x, shapes[si], lib);
            for (int ci = 0; ci < 3; ci++)
                for (int op = 0; op < TORUS_COLL_NCOLL; op++)
                    for (int uniform = 0; uniform < 2; uniform++) {
                        /* walk the ranges from 0 to past 1 GiB */
                        uint64_t b = 0;
                        int ranges = 0;
                        while (b <= (uint64_t)1 << 30 && ranges < 100) {
                            torus_coll_route r = route(&x, (torus_coll_op)op, b, uniform, callers[ci]);
                            ASSERT_TRUE(r.hi >= b);
                            uint64_t probe[3] = {b + (r.hi - b) / 2, r.hi > ((uint64_t)1 << 40) ? b + 1 : r.hi, b};
                            for (int k = 0; k < 3; k++) {
                                torus_coll_route q = route(&x, (torus_coll_op)op, probe[k], uniform, callers[ci]);
                                ASSERT_EQ_INT(q.kind, r.kind);
                                ASSERT_TRUE(q.alg == r.alg);
                            }
                            if (r.hi == UINT64_MAX)
                                break;
                            b = r.hi + 1;
                            ranges++;
                        }
                        ASSERT_TRUE(ranges < 100);
                    }
            ctx_free(&x);
        }
}

static const test_case cases[] = {

    {"good_file_read_written_read_back", read_good},
    {"bad_header_and_word_count", t_bad_header_and_word_count},
    {"bad_field_values", t_bad_field_values},
    {"unknown_algorithm", t_unknown_algorithm},
    {"long_line_and_missing_file", t_long_line_and_missing_file},
    {"file_rows_before_compiled_table", choice},
    /* after it: the process's file is read once, at the first choice */
    {"compiled_table_is_the_file", compiled_table_is_the_file},
    {"route_holds_to_hi", route_holds_to_hi},
};

/* every case works in one temporary folder, removed at the end */
int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_coll_table.%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    if (mkdir(dir, 0700)) {
        perror(dir);
        return 2;
    }
    int rc = TEST_RUN(argc, argv, "test_coll_table", cases);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    return rc;
}

