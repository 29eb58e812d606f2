# tests/tools/gen_ibnet.awk - an ibnetdiscover dump of a two-level fat tree,
# written as infiniband-diags prints it, for the reader's scale test:
#   awk -v leaves=500 -v hosts=20 -v up=10 -v spines=50 -f tests/tools/gen_ibnet.awk
# Leaf l's uplink k goes to spine (7 l + 13 k) % spines (every spine as loaded,
# the leaves joined through shared spines); leaf 0 lacks its
# last uplink and host 7 runs at 4xEDR (the rest 4xHDR), so the fabric has
# the irregularities a real one has.
function guid(kind, i) { return sprintf("%s-0c42a1%010x", kind, i) }
function sw_hdr(g, ports, desc, lid) {
    printf "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x%s\nswitchguid=0x%s(%s)\n", substr(g, 3), substr(g, 3), substr(g, 3)
    printf "Switch\t%d \"%s\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0\n", ports, g, desc, lid
}
BEGIN {
    printf "#\n# Topology file: generated on Tue Mar 11 09:14:27 2025\n#\n"
    printf "# Initiated from node 0c42a10000000000 port 0c42a10000000001\n"
    nlinks = 0
    for (l = 0; l < leaves; l++)
        for (k = 0; k < up; k++) {
            if (l == 0 && k == up - 1)
                continue
            s = (7 * l + 13 * k) % spines
            sport[s]++
            L_s[l, k] = s; L_sp[l, k] = sport[s]
            S_l[s, sport[s]] = l; S_lp[s, sport[s]] = hosts + k + 1
        }
    for (s = 0; s < spines; s++) {
        sw_hdr(guid("S", 1000000 + s), sport[s], "spine" s, 1 + s)
        for (p = 1; p <= sport[s]; p++)
            printf "[%d]\t\"%s\"[%d]\t\t# \"leaf%d\" lid %d 4xHDR\n", p, guid("S", 2000000 + S_l[s, p]), S_lp[s, p], S_l[s, p], 10000 + S_l[s, p]
    }
    for (l = 0; l < leaves; l++) {
        sw_hdr(guid("S", 2000000 + l), hosts + up, "leaf" l, 10000 + l)
        for (h = 0; h < hosts; h++) {
            id = l * hosts + h
            printf "[%d]\t\"%s\"[1](%x) \t\t# \"cn%05d HCA-1\" lid %d %s\n", h + 1, guid("H", id), 3000000 + id, id, 20000 + id, id == 7 ? "4xEDR" : "4xHDR"
        }
        for (k = 0; k < up; k++)
            if ((l, k) in L_s)
                printf "[%d]\t\"%s\"[%d]\t\t# \"spine%d\" lid %d 4xHDR\n", hosts + k + 1, guid("S", 1000000 + L_s[l, k]), L_sp[l, k], L_s[l, k], 1 + L_s[l, k]
    }
    for (l = 0; l < leaves; l++)
        for (h = 0; h < hosts; h++) {
            id = l * hosts + h
            g = guid("H", id)
            printf "\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x%s\ncaguid=0x%s\n", substr(g, 3), substr(g, 3)
            printf "Ca\t1 \"%s\"\t\t# \"cn%05d HCA-1\"\n", g, id
            printf "[1](%x) \t\"%s\"[%d]\t\t# lid %d lmc 0 \"leaf%d\" lid %d %s\n", 3000000 + id, guid("S", 2000000 + l), h + 1, 20000 + id, l, 10000 + l, id == 7 ? "4xEDR" : "4xHDR"
        }
}
