#!/bin/bash
# tests/check_layers.sh ROOT - fails when a file includes a header from a
# layer above its own (docs/architecture.md).  Layers, bottom to top:
#   torus < hpcc_ra < baseline, optimized;  torus < sparsest_cut < torusmodel;
#   torusmodel may use optimized/ only through ropt_timed.h (--simulate);
#   tools/ and tests/ sit on top.  torus/coll/ sits on torus/, torus/pmpi/
#   (the MPI adapter, libtorus_pmpi.so) on torus/coll/.  Each program of
#   tools/ with a folder of its own (tools/collbench/, tools/ra_calibrate/)
#   is a layer held to the layers it uses (the Makefile's INC_tools_<name>).
#   hpcc/ (bin/hpcc-opt's side of HPCC) sits on optimized/ (the Makefile's
#   INC_hpcc); HPCC's own headers are outside the tree.
# Prints one line per violation (file:line: includes X from LAYER) and exits 1.
set -u
root=${1:-.}
cd "$root" || exit 2
layers="torus torus/coll torus/pmpi hpcc_ra baseline optimized hpcc sparsest_cut torusmodel tools tools/collbench tools/ra_calibrate tests"
allowed() {
    case $1 in
    torus) echo "torus" ;;
    torus/coll) echo "torus/coll torus" ;;
    torus/pmpi) echo "torus/pmpi torus/coll torus" ;;
    hpcc_ra) echo "hpcc_ra torus" ;;
    baseline) echo "baseline hpcc_ra torus" ;;
    optimized) echo "optimized hpcc_ra torus" ;;
    hpcc) echo "hpcc optimized hpcc_ra torus" ;;
    sparsest_cut) echo "sparsest_cut torus" ;;
    torusmodel) echo "torusmodel sparsest_cut torus optimized/ropt_timed.h" ;;
    tools) echo "tools torusmodel sparsest_cut optimized hpcc_ra baseline torus torus/coll" ;;
    tools/collbench) echo "tools/collbench torus/coll torus" ;;
    tools/ra_calibrate) echo "tools/ra_calibrate torusmodel sparsest_cut optimized hpcc_ra baseline torus" ;;
    tests) echo "tests tools tools/collbench tools/ra_calibrate torusmodel sparsest_cut optimized hpcc_ra baseline torus torus/coll" ;;
    esac
}
# the layer folder that holds header H (by file name), empty if none
where() {
    local h=$1 l
    for l in $layers; do
        [ -f "$l/$h" ] && echo "$l"
    done
}
bad=0
for layer in $layers; do
    [ -d "$layer" ] || continue
    ok=$(allowed "$layer")
    # every file under the folder, except those of a sub-folder that is a layer of its own
    while IFS= read -r f; do
        sub=$(dirname "$f")
        case " $layers " in *" $sub "*) [ "$sub" = "$layer" ] || continue ;; esac
        while IFS=: read -r line inc; do
            h=${inc#*[\"<]}
            h=${h%%[\">]*}
            base=${h##*/}
            if [ "$base" != "$h" ]; then
                # a path like ../optimized/ropt.h names its folder
                d=$(dirname "$(realpath -m --relative-to=. "$(dirname "$f")/$h")")
                owners=""
                for l in $layers; do [ "$d" = "$l" ] && owners=$l; done
            else
                owners=$(where "$base")
            fi
            [ -z "$owners" ] && continue # a system or test header
            fine=0
            for o in $owners; do
                for a in $ok; do
                    if [ "$a" = "$o" ] || [ "$a" = "$o/$base" ]; then fine=1; fi
                done
            done
            if [ $fine = 0 ]; then
                echo "check-layers: $f:$line: includes \"$h\" from $(echo "$owners" | head -1)/, which $layer/ may not include (allowed: $ok)"
                bad=1
            fi
        done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f")
    done < <(find "$layer" -name '*.[ch]' | sort)
done
if [ $bad = 0 ]; then
    echo "check-layers: every include points down (layers: $layers)"
fi
exit $bad
