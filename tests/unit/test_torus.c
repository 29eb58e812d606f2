/* test_torus.c - shapes, auto choice, mapping files, dimension-ordered routing. */
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

int main(void)
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
    ASSERT_EQ_INT(torus_shape_parse("hypercube", 12, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "power-of-two");
    ASSERT_EQ_INT(torus_shape_parse("4x4", 32, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "product must equal");
    ASSERT_EQ_INT(torus_shape_parse("4xx4", 16, &s, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "malformed");
    ASSERT_EQ_INT(torus_shape_parse("4x", 4, &s, err, sizeof err), -1);
    ASSERT_EQ_INT(torus_shape_parse("0x4", 0, &s, err, sizeof err), -1);
    ASSERT_EQ_INT(torus_shape_parse("abc", 4, &s, err, sizeof err), -1);

    /* Balanced factorisations. */
    ASSERT_EQ_INT(torus_shape_balanced(64, 3, &s), 0);
    ASSERT_TRUE(s.k[0] == 4 && s.k[1] == 4 && s.k[2] == 4);
    ASSERT_EQ_INT(torus_shape_balanced(65536, 3, &s), 0);
    ASSERT_TRUE(s.k[0] == 64 && s.k[1] == 32 && s.k[2] == 32); /* the BG/L shape */
    ASSERT_EQ_INT(torus_shape_balanced(7, 2, &s), -1);
    /* auto: few ranks -> direct sends; thousands -> several dimensions, fill >= 8. */
    torus_shape_auto(8, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_EQ_INT(s.ndims, 1);
    torus_shape_auto(4096, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_TRUE(s.ndims >= 3);
    ASSERT_TRUE(1008 / torus_shape_sum_k(&s) >= 8);
    torus_shape_auto(65536, 1008, 25e-9, 1.5e-6, &s);
    ASSERT_TRUE(torus_shape_sum_k(&s) <= 1008);

    /* Routing: following next hops reaches every destination in exactly
     * (number of differing coordinates) hops, dimension by dimension. */
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

    /* Node-local last dimension: 2 nodes x 2 ranks, ranks interleaved over
     * the nodes; the last coordinate is the index on the node. */
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

    /* Mapping files. */
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
    unlink(path);
    ASSERT_EQ_INT(torus_map_file(&m, &s, "/nonexistent/map", err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "cannot be read");
    TEST_MAIN_END("test_torus");
}
