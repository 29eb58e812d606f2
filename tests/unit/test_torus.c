/* test_torus.c - the shape grammar, auto choice, mapping files,
 * dimension-ordered routing. */
#include "../test.h"
#include "torus.h"

#include <stdlib.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    return 0;
}

/* Parses s over n processes and checks the normalised name and size. */
static void parses_to(const char *s, int n, const char *name, int positions)
{
    torus_shape sh;
    char err[256] = "", buf[128] = "";
    int rc = torus_shape_parse(s, n, &sh, err, sizeof err);
    ASSERT_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "  torus_shape_parse(\"%s\", %d): %s\n", s, n, err);
    torus_shape_format(&sh, buf, sizeof buf);
    ASSERT_EQ_INT(strcmp(buf, name), 0);
    if (strcmp(buf, name))
        fprintf(stderr, "  torus_shape_parse(\"%s\", %d) gave %s, want %s\n", s, n, buf, name);
    ASSERT_EQ_INT(sh.n, positions);
}

/* Parses s over n processes, expecting one non-empty line of error that
 * contains `want`. */
static void refuses(const char *s, int n, const char *want)
{
    torus_shape sh;
    char err[256] = "";
    ASSERT_EQ_INT(torus_shape_parse(s, n, &sh, err, sizeof err), -1);
    ASSERT_TRUE(err[0] != 0);
    ASSERT_TRUE(strchr(err, '\n') == NULL);
    ASSERT_STR_CONTAINS(err, want);
}

/* Every form of the one grammar (torus.h), with and without a process
 * count.  Sizes: product checked only when there is a process count. */
static void t_grammar_sizes(void)
{
    parses_to("8x4x2", 64, "8x4x2", 64);
    parses_to("8x4x2", 0, "8x4x2", 64);
    parses_to("4x4x2m", 0, "4x4x2m", 32);
    parses_to("4x4Mx2", 32, "4x4mx2", 32);
    /* the grammar has one suffix, m: a 't' is refused, not taken as a
     * torus that every size already is (issue 28: --dims 3t was accepted) */
    refuses("3t", 0, "malformed shape '3t': unexpected 't'; allowed sizes like 4x4x2 (m suffix = mesh)");
    refuses("4tx4Mx2", 32, "unexpected 't'");
    refuses("8x4x2", 32, "product must equal the process count");
}

/* hypercube: mesh dimensions of 2, one link between partners */
static void t_grammar_hypercube(void)
{
    torus_shape a, b;
    char err[256];
    parses_to("hypercube", 8, "2mx2mx2m", 8);
    parses_to("hypercube:3", 8, "2mx2mx2m", 8);
    parses_to("hypercube:3", 0, "2mx2mx2m", 8);
    parses_to("hypercube:1", 0, "2m", 2);
    parses_to("hypercube:24", 0, "2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2mx2m", 1 << 24);
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 8, &a, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("hypercube:3", 0, &b, err, sizeof err), 0);
    ASSERT_EQ_INT(memcmp(&a, &b, sizeof a), 0);
    ASSERT_EQ_INT(a.ndims, 3);
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(a.k[i], 2);
        ASSERT_EQ_INT(a.mesh[i], 1);
    }
    /* ... while 2x2x2 stays a torus: rings of 2, two links between partners */
    ASSERT_EQ_INT(torus_shape_parse("2x2x2", 8, &b, err, sizeof err), 0);
    ASSERT_EQ_INT(b.ndims, 3);
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(b.k[i], 2);
        ASSERT_EQ_INT(b.mesh[i], 0);
    }
    parses_to("2x2x2", 0, "2x2x2", 8);
    refuses("hypercube", 12, "power-of-two");
    refuses("hypercube", 1, "power-of-two");
    refuses("hypercube:3", 16, "has 8 positions but there are 16 processes: the product must equal the process count");
    refuses("hypercube:0", 0, "allowed hypercube:D with D in 1..24");
    refuses("hypercube:25", 0, "allowed hypercube:D with D in 1..24");
    refuses("hypercube:3x", 0, "bad dimension count in shape 'hypercube:3x'");
    refuses("hypercube:", 0, "allowed hypercube:D");
}

/* flat: one torus ring */
static void t_grammar_flat(void)
{
    torus_shape a;
    char err[256];
    parses_to("flat:6", 6, "6", 6);
    parses_to("flat:6", 0, "6", 6);
    parses_to("flat", 6, "6", 6);
    parses_to("flat", 1, "1", 1);
    ASSERT_EQ_INT(torus_shape_parse("flat:6", 6, &a, err, sizeof err), 0);
    ASSERT_EQ_INT(a.ndims, 1);
    ASSERT_EQ_INT(a.k[0], 6);
    ASSERT_EQ_INT(a.mesh[0], 0);
    refuses("flat:6", 8, "has 6 positions but there are 8 processes: the product must equal the process count");
    refuses("flat:0", 0, "allowed flat:N with N in 1..1073741824");
    refuses("flat:x", 0, "bad size in shape 'flat:x'");
    refuses("flat:6:6", 0, "bad size in shape 'flat:6:6'");
}

/* auto: the constants are ra_opt's (1024-update budget less its
 * look-ahead of 64; 25 ns per hop, 1.5 us per message) */
static void t_grammar_auto(void)
{
    torus_shape a, b;
    char err[256];
    ASSERT_EQ_INT(TORUS_AUTO_BUDGET, 960);
    ASSERT_TRUE(TORUS_AUTO_T_HOP == 25e-9);
    ASSERT_TRUE(TORUS_AUTO_T_MSG == 1.5e-6);
    static const struct {
        int n;
        const char *name;
    } autos[] = {{1, "1"}, {2, "2"}, {7, "7"}, {8, "8"}, {64, "8x8"}, {512, "8x8x8"}, {4096, "8x8x8x8"},
                 {65536, "8x8x8x8x4x4"}};
    for (size_t i = 0; i < sizeof autos / sizeof *autos; i++) {
        char txt[32];
        snprintf(txt, sizeof txt, "auto:%d", autos[i].n);
        parses_to(txt, 0, autos[i].name, autos[i].n);
        parses_to(txt, autos[i].n, autos[i].name, autos[i].n);
        parses_to("auto", autos[i].n, autos[i].name, autos[i].n);
        /* what ra_opt's auto computes over n ranks, with its own figures */
        torus_shape_auto(autos[i].n, 1024 - 64, 25e-9, 1.5e-6, &a);
        ASSERT_EQ_INT(torus_shape_parse(txt, 0, &b, err, sizeof err), 0);
        ASSERT_EQ_INT(memcmp(&a, &b, sizeof a), 0);
    }
    /* The auto-shape table of docs/ra_opt.md, row by row: shape, sum of sizes (the
     * buckets per rank) and fill = floor(TORUS_AUTO_BUDGET / sum).  A change
     * of the model's constants must change docs/ra_opt.md with this table. */
    static const struct {
        int n;
        const char *name;
        int sum_k, fill;
    } table[] = {{2, "2", 2, 480},           {4, "4", 4, 240},          {8, "8", 8, 120},
                 {16, "16", 16, 60},         {24, "24", 24, 40},        {32, "8x4", 12, 80},
                 {64, "8x8", 16, 60},        {128, "16x8", 24, 40},     {256, "16x16", 32, 30},
                 {512, "8x8x8", 24, 40},     {1024, "16x8x8", 32, 30},  {2048, "8x8x8x4", 28, 34},
                 {4096, "8x8x8x8", 32, 30},  {8192, "8x8x8x4x4", 32, 30}, {16384, "8x8x8x8x4", 36, 26},
                 {32768, "8x8x8x8x8", 40, 24}, {65536, "8x8x8x8x4x4", 40, 24}, {100, "10x10", 20, 48},
                 {1000, "10x10x10", 30, 32}};
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        char name[64];
        torus_shape_auto(table[i].n, TORUS_AUTO_BUDGET, TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG, &a);
        torus_shape_format(&a, name, sizeof name);
        ASSERT_STR_EQ(name, table[i].name);
        ASSERT_EQ_INT(torus_shape_sum_k(&a), table[i].sum_k);
        ASSERT_EQ_INT(TORUS_AUTO_BUDGET / torus_shape_sum_k(&a), table[i].fill);
    }
    refuses("auto:64", 32, "has 64 positions but there are 32 processes: the product must equal the process count");
    refuses("auto:0", 0, "allowed auto:N with N in 1..1073741824");
}

/* no process count: the bare words say which form to write */
static void t_grammar_bare_words_need_count(void)
{
    torus_shape a;
    char err[256];
    torus_shape_parse("flat", 0, &a, err, sizeof err);
    ASSERT_EQ_INT(strcmp(err, "shape 'flat' needs a process count here: write flat:N"), 0);
    torus_shape_parse("auto", 0, &a, err, sizeof err);
    ASSERT_EQ_INT(strcmp(err, "shape 'auto' needs a process count here: write auto:N"), 0);
    torus_shape_parse("hypercube", 0, &a, err, sizeof err);
    ASSERT_EQ_INT(strcmp(err, "shape 'hypercube' needs a process count here: write hypercube:D"), 0);
}

/* malformed text: one line, the user's bytes escaped */
static void t_grammar_malformed_text(void)
{
    refuses("", 8, "empty shape");
    refuses("Flat", 0, "malformed shape 'Flat'");
    refuses("foo:3", 0, "malformed shape 'foo:3'");
    refuses("4x4y2", 0, "unexpected 'y'");
    refuses("4x\n4", 0, "malformed shape '4x\\x0a4'");
    refuses("4x4\t", 0, "unexpected '\\x09'");
    refuses("2048x2048x2048", 0, "more than 2^30 positions");
    refuses("2000000x2", 0, "dimension size 2000000 out of range");
    refuses("2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2", 0, "more than 24 dimensions");
}

/* sizes, mesh suffix, flat, hypercube; expected hops */
static void t_shape_basics(void)
{
    torus_shape s;
    char err[256], buf[128];
    ASSERT_EQ_INT(torus_shape_parse("4x4x2", 32, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(s.ndims, 3);
    ASSERT_EQ_INT(torus_shape_sum_k(&s), 10);
    ASSERT_TRUE(torus_expected_hops(&s) == 2.0); /* paper 002 sec. 6.2: 3/4 + 3/4 + 1/2 */
    ASSERT_EQ_INT(torus_shape_parse("4x4x2m", 32, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(s.mesh[2], 1);
    torus_shape_format(&s, buf, sizeof buf);
    ASSERT_STR_CONTAINS(buf, "4x4x2m");
    ASSERT_EQ_INT(torus_shape_parse("flat", 7, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(s.ndims, 1);
    ASSERT_EQ_INT(s.k[0], 7);
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 16, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(s.ndims, 4);
}

/* the count checked against the process count; malformed sizes */
static void t_shape_refused(void)
{
    torus_shape s;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 12, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "power-of-two");
    ASSERT_EQ_INT(torus_shape_parse("4x4", 32, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "product must equal");
    ASSERT_EQ_INT(torus_shape_parse("4xx4", 16, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "malformed");
    ASSERT_EQ_INT(torus_shape_parse("4x", 4, &s, err, sizeof err), -1);
    ASSERT_EQ_INT(torus_shape_parse("0x4", 0, &s, err, sizeof err), -1);
    ASSERT_EQ_INT(torus_shape_parse("abc", 4, &s, err, sizeof err), -1);
}

/* Balanced factorisations. */
static void t_balanced_factorisations(void)
{
    torus_shape s;
    ASSERT_EQ_INT(torus_shape_balanced(64, 3, &s), 0);
    ASSERT_TRUE(s.k[0] == 4 && s.k[1] == 4 && s.k[2] == 4);
    ASSERT_EQ_INT(torus_shape_balanced(65536, 3, &s), 0);
    ASSERT_TRUE(s.k[0] == 64 && s.k[1] == 32 && s.k[2] == 32); /* the BG/L shape */
    ASSERT_EQ_INT(torus_shape_balanced(7, 2, &s), -1);
}

/* auto: few ranks -> direct sends; thousands -> several dimensions, fill >= 8. */
static void t_auto_scales_with_ranks(void)
{
    torus_shape s;
    torus_shape_auto(8, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_EQ_INT(s.ndims, 1);
    torus_shape_auto(4096, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_TRUE(s.ndims >= 3);
    ASSERT_TRUE(1008 / torus_shape_sum_k(&s) >= 8);
    torus_shape_auto(65536, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_TRUE(torus_shape_sum_k(&s) <= 1008);
}

/* Routing: following next hops reaches every destination in exactly
 * (number of differing coordinates) hops, dimension by dimension. */
static void t_routing_dimension_ordered(void)
{
    torus_shape s;
    char err[256];
    const char *shapes[] = {"4x4x2", "3x5", "2x2x2x2", "6", "1x3", "5x1x2"};
    int ns[] = {32, 15, 16, 6, 3, 10};
    for (int i = 0; i < 6; i++) {
        ASSERT_EQ_INT(torus_shape_parse(shapes[i], ns[i], &s, err, sizeof err), 0);
        torus_map m;
        ASSERT_EQ_INT(torus_map_xyzt(&m, &s), 0);
        torus_route *r = calloc((size_t)s.n, sizeof *r);
        for (int me = 0; me < s.n; me++)
            torus_route_build(&r[me], &m, me);
        int bad = 0;
        double hops = 0;
        for (int src = 0; src < s.n; src++)
            for (int dst = 0; dst < s.n; dst++) {
                int at = src, h = 0, lastdim = -1;
                while (at != dst && h <= s.ndims) {
                    int b = r[at].next[dst];
                    int d = r[at].bucket_dim[b];
                    if (d <= lastdim)
                        bad++;
                    lastdim = d;
                    at = r[at].peer[b];
                    h++;
                }
                int diff = 0;
                for (int d = 0; d < s.ndims; d++)
                    diff += m.coords[src * s.ndims + d] != m.coords[dst * s.ndims + d];
                if (at != dst || h != diff)
                    bad++;
                hops += h;
            }
        ASSERT_EQ_INT(bad, 0);
        double mean = hops / ((double)s.n * s.n);
        ASSERT_TRUE(mean > torus_expected_hops(&s) - 1e-9 && mean < torus_expected_hops(&s) + 1e-9);
        for (int me = 0; me < s.n; me++)
            torus_route_free(&r[me]);
        free(r);
        torus_map_free(&m);
    }
}

/* Node-local last dimension: 2 nodes x 2 ranks, ranks interleaved over
 * the nodes; the last coordinate is the index on the node. */
static void t_node_local_last_dimension(void)
{
    char err[256];
    {
        torus_shape nshape;
        torus_map nm;
        ASSERT_EQ_INT(torus_shape_parse("2x2", 4, &nshape, err, sizeof err), 0);
        const int node_local[8] = {0, 0, 1, 0, 0, 1, 1, 1}; /* ranks 0,2 on node 0 */
        ASSERT_EQ_INT(torus_map_nodes(&nm, &nshape, 2, node_local), 0);
        ASSERT_EQ_INT(nm.coords[2 * 2 + 0], 0); /* rank 2: node 0 */
        ASSERT_EQ_INT(nm.coords[2 * 2 + 1], 1); /* index 1 on it */
        ASSERT_EQ_INT(nm.rank_of[1], 1);        /* position (1,0): node 1, index 0 */
        ASSERT_EQ_INT(nm.rank_of[3], 3);
        torus_map_free(&nm);
    }
}

/* Mapping files. */
static void t_mapping_files(void)
{
    torus_shape s;
    char err[256];
    char path[] = "/tmp/torus_map_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_TRUE(fd >= 0);
    close(fd);
    torus_map m;
    ASSERT_EQ_INT(torus_shape_parse("2x2", 4, &s, err, sizeof err), 0);
    write_file(path, "# a reversed placement\n1 1\n0 1\n\n1 0\n0 0   # last\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), 0);
    ASSERT_EQ_INT(m.rank_of[0], 3);
    ASSERT_EQ_INT(m.coords[0 * 2 + 0], 1);
    torus_map_free(&m);
    write_file(path, "0 0\n0 1\n0 1\n1 1\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "line 3: coordinates already used by rank 1");
    write_file(path, "0 0\n0 1\n1 0\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "has 3 coordinate lines but there are 4 ranks");
    write_file(path, "0 0\n0 2\n1 0\n1 1\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "line 2: coordinate 2 of dimension 1 out of range: allowed 0..1");
    write_file(path, "0 0\n0 1 1\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "more than 2 coordinates");
    write_file(path, "0 x\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "expected 2 coordinates");
    /* past a long's range: out of range as written (issue 28 row 10: it
     * was "expected 2 coordinates, found 1") */
    write_file(path, "0 100000000000000000000\n");
    ASSERT_EQ_INT(torus_map_file(&m, &s, path, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "line 1: coordinate 100000000000000000000 of dimension 1 out of range: allowed 0..1");
    unlink(path);
    ASSERT_EQ_INT(torus_map_file(&m, &s, "/nonexistent/map", err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "cannot be read");
}

/* torus_shape_append_shape: a node's part after the nodes' shape, mesh
 * flags 0; a part that does not fit is refused */
static void t_shape_append_shape(void)
{
    torus_shape s, part;
    char err[256];
    ASSERT_EQ_INT(torus_shape_parse("4m", 4, &s, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_parse("2x3m", 6, &part, err, sizeof err), 0);
    ASSERT_EQ_INT(torus_shape_append_shape(&s, &part), 0);
    ASSERT_EQ_INT(s.ndims, 3);
    ASSERT_EQ_INT(s.n, 24);
    ASSERT_EQ_INT(s.k[1], 2);
    ASSERT_EQ_INT(s.k[2], 3);
    ASSERT_EQ_INT(s.mesh[0], 1);
    ASSERT_EQ_INT(s.mesh[2], 0);
    torus_shape big = {.n = 1};
    for (int d = 0; d < TORUS_MAX_DIMS; d++)
        ASSERT_EQ_INT(torus_shape_append(&big, 1), 0);
    ASSERT_EQ_INT(torus_shape_append_shape(&big, &part), -1);
}

static const test_case cases[] = {
    {"shape_basics", t_shape_basics},
    {"shape_append_shape", t_shape_append_shape},
    {"shape_refused", t_shape_refused},
    {"grammar_sizes", t_grammar_sizes},
    {"grammar_hypercube", t_grammar_hypercube},
    {"grammar_flat", t_grammar_flat},
    {"grammar_auto", t_grammar_auto},
    {"grammar_bare_words_need_count", t_grammar_bare_words_need_count},
    {"grammar_malformed_text", t_grammar_malformed_text},
    {"balanced_factorisations", t_balanced_factorisations},
    {"auto_scales_with_ranks", t_auto_scales_with_ranks},
    {"routing_dimension_ordered", t_routing_dimension_ordered},
    {"node_local_last_dimension", t_node_local_last_dimension},
    {"mapping_files", t_mapping_files},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_torus", cases);
}
