/*
 * machines.c - torusmodel presets for machines after BlueGene/L, from
 * published hardware figures: BlueGene/Q (5-D torus), the K computer (Tofu,
 * 6-D mesh/torus), Fugaku (Tofu-D), a Cray EX / Slingshot dragonfly
 * (Perlmutter's CPU partition) and an InfiniBand HDR fat-tree.  Each figure
 * names its source here and in `sources`, which torusmodel prints when the
 * preset loads; docs/machines.md has the worked examples.
 *
 * What is published and what is not: clocks, cores, link rates, link
 * counts, torus shapes, memory bandwidth and cache lines are the vendors'
 * and the sites' figures.  What ra_opt and the baseline cost per update on
 * these cores is NOT published: every preset takes BlueGene/L's cycle
 * counts (paper 002: t_local 104, t_hop 128 cycles; MPI send 1544, receive
 * 1271, t_o^p 68), an assumption the docs repeat.  The node's memory bound
 * is derived, not measured: peak memory bandwidth / (2 x cache line), every
 * update reading and writing back one line.  Bytes per update are ra_opt's
 * buckets in the machine's packets (derivation beside each).
 */
#include "torusmodel.h"
#include "torus_cli.h"

#include <stdio.h>
#include <string.h>

typedef struct machine {
    const char *name;
    double clock_hz, link_bw, bytes_per_update, ranks_per_node, node_gups;
    const char *network; /* "nodes" or a network spec */
    const char *shapes;
    const char *sources;
} machine;

static const machine machines[] = {
    /* BlueGene/Q: 1.6 GHz PowerPC A2, 16 application cores (64 hardware
     * threads; one rank per core here, SMT not modelled), 5-D torus, 10
     * links of 2 GB/s raw per direction (+1 I/O link, not used by
     * RandomAccess); packets: 32-byte header + up to 512 bytes of payload in
     * 32-byte chunks (Chen et al., SC11; Haring et al., IEEE Micro 32(2)
     * 2012; IBM Redbook SG24-7872 ch. 2: "2 GBps ... in both directions on
     * all 10 links").  b = (32 + 512) / 62: a full packet holds 62 updates
     * after a 16-byte software header (BlueGene/L's preset: 24 - 8).  DDR3
     * 42.6 GB/s per node, 128-byte L2 line: 42.6e9 / 256 = 0.166 GUPS.
     * Shapes (nodes, A x B x C x D x E; the leading 16 = the cores of a
     * node): midplane 4x4x4x4x2 (512), rack 4x4x4x8x2 (1024), Mira 48 racks
     * 8x12x16x16x2 (49152), Sequoia 96 racks 16x12x16x16x2 (98304). */
    {"bgq", 1.6e9, 2e9, 544.0 / 62, 16, 42.6e9 / 256 / 1e9, "nodes",
     "16x4x4x4x4x2,16x4x4x4x8x2,16x8x12x16x16x2,16x16x12x16x16x2",
     "BlueGene/Q: Chen et al., The IBM Blue Gene/Q interconnection network and message unit, SC11; Haring et al., "
     "The IBM Blue Gene/Q compute chip, IEEE Micro 32(2) 2012; IBM Redbook SG24-7872 (BG/Q hardware overview) ch. 2: "
     "1.6 GHz, 16 cores, 5-D torus, 10 links x 2 GB/s per direction, packets 32 B header + 512 B payload, DDR3 "
     "42.6 GB/s, 128 B L2 line; Mira 8x12x16x16x2, Sequoia 16x12x16x16x2. Assumed: BlueGene/L's cycle counts "
     "(paper 002)"},
    /* K computer: SPARC64 VIIIfx 2.0 GHz, 8 cores, 64 GB/s memory, 128-byte
     * lines (Maruyama et al., IEEE Micro 30(2) 2010); Tofu 6-D mesh/torus
     * X x Y x Z x a x b x c with a, c meshes of 2 and b a ring of 3, 10 links
     * of 5 GB/s per direction (Ajima, Sumimoto, Shimizu, "Tofu: a 6D
     * mesh/torus interconnect for exascale computers", IEEE Computer 42(11)
     * 2009; Ajima et al., IEEE Micro 32(1) 2012); 82944 nodes = 24 x 18 x
     * 16 x 12 (Miyazaki et al., Fujitsu Sci. Tech. J. 48(3) 2012).  Tofu's
     * packet format is not modelled: b is BlueGene/Q's. */
    {"tofu", 2.0e9, 5e9, 544.0 / 62, 8, 64e9 / 256 / 1e9, "nodes", "8x12x9x8x2mx3x2m,8x24x18x16x2mx3x2m",
     "K computer: Ajima, Sumimoto, Shimizu, Tofu: a 6D mesh/torus interconnect for exascale computers, IEEE "
     "Computer 42(11) 2009; Ajima et al., The Tofu interconnect, IEEE Micro 32(1) 2012; Maruyama et al., SPARC64 "
     "VIIIfx, IEEE Micro 30(2) 2010; Miyazaki et al., Overview of the K computer system, Fujitsu Sci. Tech. J. 48(3) "
     "2012: 2.0 GHz, 8 cores, 64 GB/s memory, 128 B line, 10 links x 5 GB/s per direction, 82944 nodes "
     "24x18x16x2x3x2. Assumed: BlueGene/L's cycle counts (paper 002), BlueGene/Q's bytes per update"},
    /* Fugaku: A64FX 48 compute cores at 2.0 GHz (normal mode), HBM2 1024
     * GB/s, 256-byte lines; Tofu-D 6.8 GB/s per link and direction, the same
     * 6-D topology; 158976 nodes = 24 x 23 x 24 x 12 (Ajima et al., "The
     * Tofu interconnect D", IEEE Cluster 2018; Sato et al., SC20). */
    {"tofu-d", 2.0e9, 6.8e9, 544.0 / 62, 48, 1024e9 / 512 / 1e9, "nodes", "48x24x23x24x2mx3x2m",
     "Fugaku: Ajima et al., The Tofu interconnect D, IEEE Cluster 2018; Sato et al., Co-design for A64FX manycore "
     "processor and Fugaku, SC20: A64FX 48 cores 2.0 GHz, HBM2 1024 GB/s, 256 B line, Tofu-D 6.8 GB/s per link, "
     "158976 nodes 24x23x24x2x3x2. Assumed: BlueGene/L's cycle counts (paper 002), BlueGene/Q's bytes per update"},
    /* Perlmutter's CPU partition (docs.nersc.gov/systems/perlmutter/
     * architecture): 3072 nodes of 2 x AMD EPYC 7763 (64 cores each, 2.45
     * GHz, 8 channels DDR4-3200 = 204.8 GB/s per socket, 64-byte lines:
     * 409.6e9 / 128 = 3.2 GUPS), one Slingshot-11 NIC (200 Gb/s = 25 GB/s
     * per direction) per node; a CPU cabinet is one dragonfly group: 8
     * chassis x 2 switch blades = 16 switches, 256 nodes, so 16 per switch,
     * all-to-all inside the group; 12 CPU groups.  Global links per switch
     * are not published per pair of groups: h = 11 spreads them evenly
     * (16 links between each pair of the 12 groups).  b = 10: 8-byte
     * updates, 64 bytes of Ethernet/Slingshot headers per 32-update bucket
     * (assumed). */
    {"perlmutter-cpu", 2.45e9, 25e9, 10, 128, 409.6e9 / 128 / 1e9, "dragonfly:16,16,11,12", "128x3072,128x16x16x12",
     "Perlmutter CPU partition: docs.nersc.gov/systems/perlmutter/architecture (3072 nodes, 2x EPYC 7763, 1 "
     "Slingshot-11 NIC, one dragonfly group of 16 switches per CPU cabinet); HPE Slingshot 200 Gb/s per port; AMD "
     "EPYC 7763: 64 cores, 2.45 GHz, 8 x DDR4-3200. Assumed: 11 global links per switch, b = 10, BlueGene/L's cycle "
     "counts (paper 002)"},
    /* An InfiniBand HDR fat-tree: 40-port 200 Gb/s switches (NVIDIA/Mellanox
     * QM8700) as a 20-ary 3-tree, 8000 hosts, full bisection; the same node
     * as perlmutter-cpu, so the two differ in the network only.  Tapered
     * trees: --network fattree:20,3,T (Narval, Calcul Quebec: 33:7 at the
     * leaves, T = 4.71, docs.alliancecan.ca/wiki/Narval). */
    {"hdr-fattree", 2.45e9, 25e9, 10, 128, 409.6e9 / 128 / 1e9, "fattree:20,3", "128x8000,128x20x20x20",
     "InfiniBand HDR fat-tree: NVIDIA QM8700 40 ports x 200 Gb/s (a 20-ary 3-tree: 8000 hosts, full bisection); "
     "node as perlmutter-cpu (2x EPYC 7763, docs.nersc.gov); taper for --network: Narval 33:7, "
     "docs.alliancecan.ca/wiki/Narval. Assumed: b = 10, BlueGene/L's cycle counts (paper 002)"},
};

const char *tm_machine_names(void)
{
    return "bgq, tofu (K computer), tofu-d (Fugaku), perlmutter-cpu, hdr-fattree";
}

int tm_machine_preset(tm_params *p, const char *name, char *err, size_t errlen)
{
    const machine *m = NULL;
    for (size_t i = 0; i < sizeof machines / sizeof *machines; i++)
        if (!strcmp(machines[i].name, name))
            m = &machines[i];
    if (!m)
        return 1;
    tm_params q = *p;
    q.clock_hz = m->clock_hz;
    q.t_local = 104, q.t_hop = 128;                          /* paper 002, BlueGene/L: assumed */
    q.t_send = 1544, q.t_recv = 1271, q.t_overhead = 68;     /* ra_base: BlueGene/L's MPI, assumed */
    q.t_local_plain = 0, q.t_test = 0, q.t_exposed = 0, q.nplain = 0;
    q.t_wait_routed = 0, q.t_wait_direct = 0;
    q.link_bw = m->link_bw;
    q.bytes_per_update = m->bytes_per_update;
    q.updates_per_message = 1;
    q.ranks_per_node = m->ranks_per_node, q.cores_per_node = m->ranks_per_node;
    q.nnode = 1, q.node_ranks[0] = 0, q.node_rate[0] = m->node_gups;
    q.packet_header_bytes = 0, q.chunk_bytes = 0, q.packet_max_bytes = 0, q.link_overhead_bytes = 0;
    q.algorithm = TM_ROUTED;
    char e2[400];
    if (tm_param_set(&q, "network", m->network, e2, sizeof e2) ||
        (q.nshapes == 0 && tm_param_set(&q, "shapes", m->shapes, e2, sizeof e2))) {
        snprintf(err, errlen, "preset %s: %s", m->name, e2); /* a defect of this table */
        return -2;
    }
    snprintf(q.preset, sizeof q.preset, "%s", m->name);
    q.sources = m->sources;
    *p = q;
    return 0;
}
