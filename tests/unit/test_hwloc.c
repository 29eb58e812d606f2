/*
 * test_hwloc.c - torusmodel's reader of hwloc's XML (torusmodel/hwloc.c):
 * hwloc 2's and hwloc 1's object types, instruction caches passed over,
 * and every malformed file one line.
 */
#include "../test.h"
#include "torusmodel.h"

#include <stdint.h>
#include <string.h>

static int read_text(const char *text, tm_hw *hw, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    int rc = tm_hwloc_stream(f, "n.xml", hw, err, errlen);
    fclose(f);
    return rc;
}

/* hwloc 2: two packages of one core of two PUs, a NUMA node each */
static const char v2[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n"
    "  <object type=\"Machine\" os_index=\"0\" gp_index=\"1\">\n"
    "    <object type=\"Package\" os_index=\"0\" gp_index=\"2\">\n"
    "      <object type=\"NUMANode\" os_index=\"0\" gp_index=\"3\" local_memory=\"1073741824\"/>\n"
    "      <object type=\"L3Cache\" gp_index=\"4\" cache_size=\"8388608\" depth=\"3\" cache_linesize=\"64\" "
    "cache_type=\"0\">\n"
    "        <object type=\"L1Cache\" gp_index=\"5\" cache_size=\"32768\" depth=\"1\" cache_linesize=\"128\" "
    "cache_type=\"1\">\n"
    "          <object type=\"L1iCache\" gp_index=\"6\" cache_size=\"65536\" depth=\"1\" cache_linesize=\"256\" "
    "cache_type=\"2\">\n"
    "            <object type=\"Core\" os_index=\"0\" gp_index=\"7\"><object type=\"PU\" os_index=\"0\"/>"
    "<object type=\"PU\" os_index=\"1\"/></object>\n"
    "          </object>\n        </object>\n      </object>\n    </object>\n"
    "    <object type=\"Package\" os_index=\"1\" gp_index=\"8\">\n"
    "      <object type=\"NUMANode\" os_index=\"1\" gp_index=\"9\" local_memory=\"1073741824\"/>\n"
    "      <object type=\"Core\" os_index=\"1\" gp_index=\"10\">\n"
    "        <object type=\"PU\" os_index=\"2\"/>\n        <object type=\"PU\" os_index=\"3\"/>\n      </object>\n"
    "    </object>\n  </object>\n</topology>\n";

static void t_hwloc2(void)
{
    tm_hw hw;
    char err[512];
    ASSERT_EQ_INT(read_text(v2, &hw, err, sizeof err), 0);
    ASSERT_EQ_U64((uint64_t)hw.packages, 2);
    ASSERT_EQ_U64((uint64_t)hw.cores, 2);
    ASSERT_EQ_U64((uint64_t)hw.pus, 4);
    ASSERT_EQ_U64((uint64_t)hw.numa, 2);
    ASSERT_NEAR(hw.memory, 2147483648.0, 0);
    ASSERT_NEAR(hw.cache[1], 32768, 0); /* the data cache, not the 64 KiB instruction one */
    ASSERT_NEAR(hw.cache[2], 0, 0);
    ASSERT_NEAR(hw.cache[3], 8388608, 0);
    ASSERT_NEAR(hw.line, 128, 0);
}

/* hwloc 1.x: Socket, Cache with a depth */
static void t_hwloc1(void)
{
    static const char v1[] = "<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM \"hwloc.dtd\">\n<topology>\n"
                             "  <object type=\"Machine\" os_index=\"0\" local_memory=\"4294967296\">\n"
                             "    <object type=\"Socket\" os_index=\"0\">\n"
                             "      <object type=\"Cache\" cache_size=\"6291456\" depth=\"2\" cache_linesize=\"64\" "
                             "cache_type=\"0\">\n"
                             "        <object type=\"Cache\" cache_size=\"32768\" depth=\"1\" cache_linesize=\"64\" "
                             "cache_type=\"1\">\n"
                             "          <object type=\"Core\" os_index=\"0\">\n"
                             "            <object type=\"PU\" os_index=\"0\"/>\n"
                             "          </object>\n        </object>\n      </object>\n    </object>\n"
                             "  </object>\n</topology>\n";
    tm_hw hw;
    char err[512];
    ASSERT_EQ_INT(read_text(v1, &hw, err, sizeof err), 0);
    ASSERT_EQ_U64((uint64_t)hw.packages, 1);
    ASSERT_EQ_U64((uint64_t)hw.cores, 1);
    ASSERT_NEAR(hw.cache[2], 6291456, 0);
    ASSERT_NEAR(hw.cache[1], 32768, 0);
    ASSERT_NEAR(hw.line, 64, 0);
}

static void t_hwloc_errors(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"<topology>\n<object type=\"Core\"/>\n", "n.xml: the file ends before </topology>"},
        {"<object type=\"Core\"/>\n", "n.xml:1: an <object> before <topology>"},
        {"not xml at all\n", "n.xml: no <topology> element"},
        {"<topology>\n<object type=\"Core\"\n</topology>\n", "n.xml:2: an <object> tag not closed on its line"},
        {"<topology>\n<object type=\"L2Cache\" cache_size=\"1e6\"/>\n</topology>\n",
         "n.xml:2: a size, depth or cache type not a whole number"},
        {"<topology>\n<object type=Core/>\n</topology>\n", "n.xml:2: an attribute not name=\"value\""},
        {"<topology>\n<object type=\"Core/>\n</topology>\n", "n.xml:2: an attribute value without its closing quote"},
        {"<topology>\n<object type=\"Package\"/>\n</topology>\n", "n.xml: no Core objects"},
    };
    tm_hw hw;
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ASSERT_EQ_INT(read_text(bad[i].text, &hw, err, sizeof err), -2);
        ASSERT_STR_CONTAINS(err, bad[i].want);
    }
    ASSERT_EQ_INT(tm_hwloc_read("/nonexistent/node.xml", &hw, err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "cannot open hwloc XML '/nonexistent/node.xml'");
}

/* --node after --node-from: cores and the line from hwloc, each saying so */
static void t_node_spec_takes_hwloc(void)
{
    tm_params p;
    tm_params_defaults(&p);
    tm_hw hw;
    char err[512];
    ASSERT_EQ_INT(read_text(v2, &hw, err, sizeof err), 0);
    snprintf(hw.src, sizeof hw.src, "hwloc n.xml");
    tm_hw_apply(&p, &hw);
    ASSERT_EQ_INT(tm_node_spec(&p, "clock_ghz=2,mem_latency_ns=100", err, sizeof err), 0);
    ASSERT_NEAR(p.cores_per_node, 2, 0);
    ASSERT_NEAR(p.node.v[TM_N_LINE], 128, 0);
    ASSERT_STR_CONTAINS(p.node.src[TM_N_LINE], "hwloc n.xml: the L1 data cache's line");
    tm_params q;
    tm_params_defaults(&q);
    ASSERT_EQ_INT(tm_node_spec(&q, "clock_ghz=2,mem_latency_ns=100", err, sizeof err), -2);
    ASSERT_STR_CONTAINS(err, "cores missing");
}

static const test_case cases[] = {
    {"hwloc2", t_hwloc2},
    {"hwloc1", t_hwloc1},
    {"hwloc_errors", t_hwloc_errors},
    {"node_spec_takes_hwloc", t_node_spec_takes_hwloc},
};

int main(int argc, char **argv)
{
    return TEST_RUN(argc, argv, "test_hwloc", cases);
}
