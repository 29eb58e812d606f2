/*
 * test_fabric.c - the readers of a real machine's files (ibnetdiscover,
 * Slurm topology.conf and topology.yaml), the hostlist expander, format
 * detection, and folding hosts into their switches against enumeration.
 */
#include "../test.h"
#include "fabric.h"
#include "sparsest_cut.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*stream_reader)(FILE *, const char *, long, sc_edges *, char *, size_t);

/* text through a reader: its return code, err and (when 0) the graph. */
static int read_text(stream_reader read, const char *text, sc_graph *g, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    sc_edges e;
    int rc = read(f, "t", SC_FILE_MAX_NODES, &e, err, errlen);
    fclose(f);
    if (rc)
        return rc;
    rc = sc_graph_build(g, &e, err, errlen);
    sc_edges_free(&e);
    return rc;
}

/* alpha of text's graph by enumeration (-1 when it does not read). */
static double exact_alpha(stream_reader read, const char *text, double *endpoints, int *nodes)
{
    char err[512];
    sc_graph g;
    sc_result r;
    if (read_text(read, text, &g, err, sizeof err)) {
        printf("# %s\n", err);
        return -1;
    }
    *endpoints = g.wtotal;
    *nodes = g.n;
    double a = sc_exact(&g, &r, err, sizeof err) ? -1 : r.alpha;
    sc_result_free(&r);
    sc_graph_free(&g);
    return a;
}

typedef struct names_seen {
    char all[2048];
} names_seen;

static int collect(void *ctx, const char *name)
{
    names_seen *s = ctx;
    size_t n = strlen(s->all);
    snprintf(s->all + n, sizeof s->all - n, "%s%s", n ? " " : "", name);
    return 0;
}

static void t_hostlist_expansion(void)
{
    names_seen s = {""};
    char err[256];
    ASSERT_EQ_INT(sc__hostlist("tux[0-3,12],sw1,rack[1-2]n[01-02],a[08-10]", 100, collect, &s, err, sizeof err), 0);
    ASSERT_STR_EQ(s.all, "tux0 tux1 tux2 tux3 tux12 sw1 rack1n01 rack1n02 rack2n01 rack2n02 a08 a09 a10");
    static const struct {
        const char *expr, *want;
    } bad[] = {{"a[3-1]", "N <= M"}, {"a[1-2", "without ']'"}, {"a]", "without '['"}, {"a[x]", "numbers and ranges"},
               {"a,,b", "empty name"}, {"a[]", "numbers and ranges"}, {"n[1-200]", "more than 100 names"},
               {"a[1-2;3]", "numbers and ranges"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s.all[0] = 0;
        err[0] = 0;
        ASSERT_EQ_INT(sc__hostlist(bad[i].expr, 100, collect, &s, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
    }
}

/* Two leaves under one spine: leaf A has hosts a1 (4xHDR) and a2 (4xEDR)
 * and two parallel cables up (4xHDR each); leaf B has b1 (1xQDR) and one
 * cable up at 4xEDR; a router hangs off the spine.  Every link listed from
 * both ends, a chassis header and comments between. */
static const char ibnet_text[] =
    "#\n# Topology file: generated on Tue Mar 11 09:14:27 2025\n#\n"
    "# Initiated from node 0000000000000a01 port 0000000000000a02\n\nNon-Chassis Nodes\n\n"
    "vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x1\nswitchguid=0x1(1)\n"
    "Switch\t36 \"S-0000000000000001\"\t\t# \"spine\" enhanced port 0 lid 1 lmc 0\n"
    "[1]\t\"S-000000000000000a\"[35]\t\t# \"leafA\" lid 2 4xHDR\n"
    "[2]\t\"S-000000000000000a\"[36]\t\t# \"leafA\" lid 2 4xHDR\n"
    "[3]\t\"S-000000000000000b\"[36]\t\t# \"leafB\" lid 3 4xEDR\n"
    "[9]\t\"R-00000000000000f1\"[1](f2) \t\t# \"gw # 1\" lid 9 4xHDR\n\n"
    "vendid=0x2c9\ndevid=0xd2f0\nswitchguid=0xa(a)\n"
    "Switch\t36 \"S-000000000000000a\"\t\t# \"leafA\" base port 0 lid 2 lmc 0\n"
    "[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1 HCA-1\" lid 11 4xHDR\n"
    "[2]\t\"H-0000000000000a03\"[1](a04) \t\t# \"a2 HCA-1\" lid 12 4xEDR\n"
    "[35]\t\"S-0000000000000001\"[1]\t\t# \"spine\" lid 1 4xHDR\n"
    "[36]\t\"S-0000000000000001\"[2]\t\t# \"spine\" lid 1 4xHDR\n\n"
    "switchguid=0xb(b)\n"
    "Switch\t36 \"S-000000000000000b\"\t\t# \"leafB\" base port 0 lid 3 lmc 0\n"
    "[1]\t\"H-0000000000000b01\"[1](b02) \t\t# \"b1 HCA-1\" lid 13 1xQDR\n"
    "[36]\t\"S-0000000000000001\"[3]\t\t# \"spine\" lid 1 4xEDR\n\n"
    "vendid=0x2c9\ndevid=0x101b\ncaguid=0xa01\n"
    "Ca\t1 \"H-0000000000000a01\"\t\t# \"a1 HCA-1\"\n"
    "[1](a02) \t\"S-000000000000000a\"[1]\t\t# lid 11 lmc 0 \"leafA\" lid 2 4xHDR\n\n"
    "caguid=0xa03\nCa\t1 \"H-0000000000000a03\"\t\t# \"a2 HCA-1\"\n"
    "[1](a04) \t\"S-000000000000000a\"[2]\t\t# lid 12 lmc 0 \"leafA\" lid 2 4xEDR\n\n"
    "caguid=0xb01\nCa\t1 \"H-0000000000000b01\"\t\t# \"b1 HCA-1\"\n"
    "[1](b02) \t\"S-000000000000000b\"[1]\t\t# lid 13 lmc 0 \"leafB\" lid 3 1xQDR\n\n"
    "rtguid=0xf1\nRt\t1 \"R-00000000000000f1\"\t\t# \"gw # 1\"\n"
    "[1](f2) \t\"S-0000000000000001\"[9]\t\t# lid 9 lmc 0 \"spine\" lid 1 4xHDR\n";

static void t_ibnet_every_record(void)
{
    double w;
    int n;
    /* 7 nodes, 3 CAs; the weakest cut: b1 alone over its 1xQDR cable, 10 Gb/s */
    ASSERT_NEAR(exact_alpha(sc_read_ibnet_stream, ibnet_text, &w, &n), 10.0, 1e-12);
    ASSERT_NEAR(w, 3, 0);
    ASSERT_EQ_INT(n, 7);
    /* the link capacities: parallel cables summed, listed twice counted once */
    char err[512];
    sc_graph g;
    ASSERT_EQ_INT(read_text(sc_read_ibnet_stream, ibnet_text, &g, err, sizeof err), 0);
    double spine_a = 0, spine_b = 0, total = 0;
    for (int p = g.off[0]; p < g.off[1]; p++) { /* node 0: the spine, described first */
        spine_a += g.adj[p] == 1 ? g.cap[p] : 0;
        spine_b += g.adj[p] == 2 ? g.cap[p] : 0;
    }
    for (int p = 0; p < g.off[g.n]; p++)
        total += g.cap[p];
    ASSERT_NEAR(spine_a, 2 * 4 * 53.125, 1e-12);
    ASSERT_NEAR(spine_b, 4 * 25.78125, 1e-12);
    /* both directions: 425 + 103.125 + 212.5 (a1) + 103.125 (a2) + 10 (b1) + 212.5 (router) */
    ASSERT_NEAR(total, 2 * (425 + 103.125 + 212.5 + 103.125 + 10 + 212.5), 1e-9);
    sc_graph_free(&g);
}

static void t_ibnet_errors(void)
{
    static const char sw[] = "Switch\t36 \"S-0000000000000001\"\t\t# \"spine\" enhanced port 0 lid 1 lmc 0\n";
    static const char ca[] = "Ca\t1 \"H-0000000000000a01\"\t\t# \"a1\"\n";
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"vendid=0x2c9\nbogus line\n", "t:2: unrecognised line 'bogus line'"},
        {"[1]\t\"S-0000000000000001\"[1]\t\t# \"x\" lid 1 4xHDR\n", "t:1: port line before any node line"},
        {"Switch\t0 \"S-0000000000000001\"\t\t# \"s\"\n", "t:1: node line: port count '0' invalid"},
        {"Switch\t36 \"H-0000000000000001\"\t\t# \"s\"\n", "t:1: node line: allowed a name \"S-GUID\""},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1\" lid 1 4xZDR\n",
         "t:2: port [1]: no link width and speed"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1\" lid 1 3xHDR\n",
         "t:2: port [1]: no link width and speed"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1\" lid 1 4xHDR\n",
         "t:2: H-0000000000000a01 is named here but the file does not describe it"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[999]\t\"H-0000000000000a01\"[1]\t# 4xHDR\n",
         "t:2: port line: allowed '[P]'"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[1]\tH-0000000000000a01[1]\t# 4xHDR\n",
         "t:2: port line: allowed the peer's name"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\n[1]\t\"H-0000000000000a01\"\t# 4xHDR\n",
         "t:2: port line: allowed the peer's port"},
        {"Switch\t36 \"S-0000000000000001\"\t\t# \"s\"\nSwitch\t36 \"S-0000000000000001\"\t\t# \"s\"\n",
         "t:2: S-0000000000000001 described twice (first at line 1)"},
        {"# only comments\n", "t: no links found"},
    };
    char err[512], text[1024];
    sc_graph g;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ASSERT_EQ_INT(read_text(sc_read_ibnet_stream, bad[i].text, &g, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
        ASSERT_TRUE(!strchr(err, '\n'));
    }
    /* a port cabled to two peers; a link whose two listings disagree */
    snprintf(text, sizeof text, "%s[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1\" lid 1 4xHDR\n"
                                "[1]\t\"H-0000000000000a01\"[2](a03) \t\t# \"a1\" lid 1 4xHDR\n%s",
             sw, ca);
    ASSERT_EQ_INT(read_text(sc_read_ibnet_stream, text, &g, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "t:3: port [1] of S-0000000000000001 is cabled to a second peer (the first at line 2)");
    snprintf(text, sizeof text, "%s[1]\t\"H-0000000000000a01\"[1](a02) \t\t# \"a1\" lid 1 4xHDR\n%s"
                                "[1](a02) \t\"S-0000000000000001\"[1]\t\t# lid 1 lmc 0 \"spine\" lid 1 4xEDR\n",
             sw, ca);
    ASSERT_EQ_INT(read_text(sc_read_ibnet_stream, text, &g, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "t:4: the link S-0000000000000001 - H-0000000000000a01 has capacity 103.125 here and "
                             "212.5 at line 2");
}

static const char slurm_text[] = "# topology.conf\n"
                                 "SwitchName=leaf1 Nodes=tux[001-003] LinkSpeed=2\n"
                                 "switchname=leaf2 nodes=tux[004-005],tux010,tux004   # repeated: one link\n"
                                 "SwitchName=spine Switches=leaf[1-2] LinkSpeed=4\n";

static void t_slurm_conf(void)
{
    double w;
    int n;
    /* 3 switches, 6 nodes; tux010 alone over its link of 1 */
    ASSERT_NEAR(exact_alpha(sc_read_slurm_stream, slurm_text, &w, &n), 1.0, 0);
    ASSERT_NEAR(w, 6, 0);
    ASSERT_EQ_INT(n, 9);
    /* all at LinkSpeed: the spine's 4 shared by leaf1's 3 nodes */
    ASSERT_NEAR(exact_alpha(sc_read_slurm_stream,
                            "SwitchName=l1 Nodes=n[1-3] LinkSpeed=8\nSwitchName=l2 Nodes=n[4-6] LinkSpeed=8\n"
                            "SwitchName=s Switches=l[1-2] LinkSpeed=4\n",
                            &w, &n),
                4.0 / 3, 1e-12);
}

static void t_slurm_conf_errors(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"SwitchName=s1 Nodes=a[1-2] Colour=red\n", "t:1: 'Colour=': allowed SwitchName="},
        {"Nodes=a[1-2]\n", "t:1: 'Nodes=' first: allowed a line 'SwitchName=NAME"},
        {"BlockName=b1 Nodes=a[1-4]\n", "t:1: BlockName: a topology/block file names no links between blocks"},
        {"SwitchName=s1 Nodes=a[1-2] LinkSpeed=fast\n", "t:1: LinkSpeed 'fast': allowed a number > 0"},
        {"SwitchName=s1 Nodes=a[1-2] LinkSpeed=0\n", "t:1: LinkSpeed '0'"},
        {"SwitchName=s1 Nodes=a[3-1]\n", "t:1: Nodes=a[3-1]: range in '[3-1]': allowed N-M with N <= M"},
        {"SwitchName=s1 Nodes=a[1-2\n", "t:1: Nodes=a[1-2: '[' without ']'"},
        {"SwitchName=s1 Nodes=a1,a2\nSwitchName=s1 Nodes=a3\n", "t:2: switch s1 described twice (first at line 1)"},
        {"SwitchName=s1 Nodes=a1,a2\nSwitchName=s0 Switches=s[1-2]\n",
         "t:2: switch s2 is named here but the file does not describe it"},
        {"SwitchName=s1 Nodes=a1 Nodes=a2\n", "t:1: Nodes= given twice on one line"},
        {"SwitchName=s1 Nodes=\n", "t:1: Nodes= without a value"},
        {"SwitchName=s1 junk\n", "t:1: 'junk': allowed Key=Value"},
        {"SwitchName=s1 Nodes=a1,a2\nSwitchName=s2 Nodes=b1,b2\n", "not connected"},
    };
    char err[512];
    sc_graph g;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ASSERT_EQ_INT(read_text(sc_read_slurm_stream, bad[i].text, &g, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
    }
}

static const char yaml_text[] = "---\n"
                                "# as the topology.yaml(5) page writes it\n"
                                "- topology: blocks\n"
                                "  cluster_default: false\n"
                                "  block:\n"
                                "    block_sizes:\n"
                                "      - 4\n"
                                "    blocks:\n"
                                "      - block: b1\n"
                                "        nodes: node[01-04]\n"
                                "- topology: fabric   # the one used\n"
                                "  cluster_default: true\n"
                                "  tree:\n"
                                "    switches:\n"
                                "      - switch: s0\n"
                                "        children: s[1-2]\n"
                                "      - switch: s1\n"
                                "        nodes: node[01-03],gpu01\n"
                                "      - switch: \"s2\"\n"
                                "        nodes: 'node[04-06]'\n"
                                "- topology: flat\n"
                                "  flat: true\n";

static void t_slurm_yaml(void)
{
    double w;
    int n;
    /* 3 switches, 7 nodes: the leaf of 4 cut off by one link: 1/3 (the other side has 3) */
    ASSERT_NEAR(exact_alpha(sc_read_slurm_yaml_stream, yaml_text, &w, &n), 1.0 / 3, 1e-12);
    ASSERT_NEAR(w, 7, 0);
    ASSERT_EQ_INT(n, 10);
}

static void t_slurm_yaml_errors(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"- topology: t\n  tree:\n\tswitches:\n", "t:3: a tab in the indentation"},
        {"- topology: t\n  colour: red\n", "t:2: 'colour:' here: allowed topology"},
        {"- topology: t\n  block:\n    blocks:\n      - block: b\n        nodes: n[1-2]\n",
         "t: no tree topology"},
        {"- topology: t\n  tree:\n    switches:\n    nodes: n[1-2]\n", "t:4: 'nodes:' outside a switch"},
        {"- topology: t\n  cluster_default: maybe\n", "t:2: cluster_default: allowed true or false"},
        {"tree:\n", "t:1: 'tree:' before the first topology"},
        {"- topology: t\n  tree:\n  flat: true\n", "t:3: 'flat:' in a topology already of a type"},
        {"- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: n[2-1]\n",
         "t:4: Nodes=n[2-1]: range in '[2-1]'"},
        {"- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: [n1, n2]\n",
         "t:5: nodes: allowed a hostlist string"},
        {"- topology: t\n  tree:\n    switches:\n      - switch: s0\n        children: s1\n",
         "t:4: switch s1 is named here but the file does not describe it"},
        {"- topology: t\n  tree:\n    switches:\n      - switch: s0\n      just text\n", "t:5: 'just text': allowed"},
    };
    char err[512];
    sc_graph g;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ASSERT_EQ_INT(read_text(sc_read_slurm_yaml_stream, bad[i].text, &g, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
    }
}

/* Each format is told from its first lines. */
static void t_detect_format(void)
{
    static const struct {
        const char *text, *want;
    } k[] = {{ibnet_text, "ibnetdiscover"}, {slurm_text, "slurm"}, {yaml_text, "slurm-yaml"},
             {"0 1\n1 2\n", "edgelist"}};
    char path[] = "/tmp/test_fabric_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_TRUE(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        FILE *f = fopen(path, "w");
        fputs(k[i].text, f);
        fclose(f);
        ASSERT_STR_EQ(sc_detect_format(path), k[i].want);
    }
    unlink(path);
    ASSERT_STR_EQ(sc_detect_format("/nonexistent/x.graph"), "metis");
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Folding hosts into their switches (fold.c) gives enumeration's alpha on
 * random small fabrics: a switch tree with cross links, hosts on random
 * leaves at random speeds, and now and then a host on two switches. */
static void t_fold_equals_enumeration(void)
{
    char err[256];
    int folded_any = 0;
    for (int trial = 0; trial < 80; trial++) {
        int sw = 2 + (int)(next_rand() % 5), hosts = 2 + (int)(next_rand() % 12), n = sw + hosts;
        sc_edges e;
        sc_edges_init(&e, n, 0);
        for (int s = 0; s < sw; s++)
            e.w[s] = 0;
        for (int s = 1; s < sw; s++)
            sc_edges_add(&e, (int)(next_rand() % (uint64_t)s), s, 1.0 + (double)(next_rand() % 4));
        if (sw > 2)
            sc_edges_add(&e, 0, sw - 1, 0.5 + (double)(next_rand() % 3));
        for (int h = sw; h < n; h++) {
            sc_edges_add(&e, (int)(next_rand() % (uint64_t)sw), h, 0.25 + (double)(next_rand() % 6));
            if (next_rand() % 7 == 0)
                sc_edges_add(&e, (int)(next_rand() % (uint64_t)sw), h, 1.0);
        }
        sc_graph g, h;
        sc_result ex, rh, lifted;
        sc_fold f;
        ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_exact(&g, &ex, err, sizeof err), 0);
        ASSERT_EQ_INT(sc_fold_pendants(&g, &h, &f, err, sizeof err), 0);
        if (f.folded) {
            folded_any++;
            ASSERT_EQ_INT(sc_exact(&h, &rh, err, sizeof err), 0);
            sc_fold_lift(&g, &f, &rh, &lifted);
            ASSERT_NEAR(lifted.alpha, ex.alpha, 1e-9);
            ASSERT_NEAR(lifted.alpha_lower, ex.alpha, 1e-9);
            ASSERT_NEAR(sc_ratio(&g, lifted.set), ex.alpha, 1e-9); /* the lifted set is a real cut */
            ASSERT_TRUE(lifted.bisection < 0 || lifted.bisection >= ex.bisection - 1e-9);
            sc_result_free(&lifted);
            sc_graph_free(&h);
        }
        sc_fold_free(&f);
        sc_result_free(&ex);
        sc_graph_free(&g);
        sc_edges_free(&e);
    }
    ASSERT_TRUE(folded_any >= 60);
}

/* The sample dump as a tree; a cable between two leaves makes it none. */
static void t_tree_recognition(void)
{
    char err[512];
    sc_graph g;
    sc_tree t;
    ASSERT_EQ_INT(read_text(sc_read_ibnet_stream, ibnet_text, &g, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_tree_recognise(&g, &t), 0);
    ASSERT_TRUE(t.is_tree);
    ASSERT_EQ_INT(t.levels, 2);
    ASSERT_EQ_U64((uint64_t)t.hosts, 3);
    ASSERT_EQ_U64((uint64_t)t.attached, 1); /* the router */
    ASSERT_EQ_U64((uint64_t)t.switches[1], 2);
    ASSERT_EQ_U64((uint64_t)t.switches[2], 1);
    /* leaves: down 212.5 + 103.125 + 10, up 425 + 103.125 */
    ASSERT_NEAR(t.down[1] / t.up[1], (212.5 + 103.125 + 10) / (425 + 103.125), 1e-12);
    ASSERT_EQ_U64((uint64_t)t.irregular, 1); /* leaf B: 103.125 up of 425 */
    ASSERT_NEAR(t.irr[0].cap, 103.125, 0);
    ASSERT_NEAR(t.irr[0].cap_max, 425, 0);
    ASSERT_EQ_U64((uint64_t)t.slow_hosts, 2); /* a2 at 4xEDR, b1 at 1xQDR */
    sc_graph_free(&g);
    sc_edges e;
    sc_edges_init(&e, 5, 0);
    e.w[0] = e.w[1] = e.w[2] = 0;
    sc_edges_add(&e, 0, 1, 1), sc_edges_add(&e, 0, 2, 1), sc_edges_add(&e, 1, 2, 1); /* leaf-leaf */
    sc_edges_add(&e, 1, 3, 1), sc_edges_add(&e, 2, 4, 1);
    ASSERT_EQ_INT(sc_graph_build(&g, &e, err, sizeof err), 0);
    ASSERT_EQ_INT(sc_tree_recognise(&g, &t), 0);
    ASSERT_TRUE(!t.is_tree);
    ASSERT_STR_CONTAINS(t.why_not, "both at level 1");
    sc_graph_free(&g);
    sc_edges_free(&e);
}

static const test_case cases[] = {
    {"tree_recognition", t_tree_recognition},
    {"hostlist_expansion", t_hostlist_expansion},
    {"ibnet_every_record", t_ibnet_every_record},
    {"ibnet_errors", t_ibnet_errors},
    {"slurm_conf", t_slurm_conf},
    {"slurm_conf_errors", t_slurm_conf_errors},
    {"slurm_yaml", t_slurm_yaml},
    {"slurm_yaml_errors", t_slurm_yaml_errors},
    {"detect_format", t_detect_format},
    {"fold_equals_enumeration", t_fold_equals_enumeration},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_fabric", cases);
}
