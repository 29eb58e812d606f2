#!/bin/bash
# tests/check_layers.sh ROOT [BUILD] - holds the tree to its layers
# (layers.mk, the one table; read here through `make layers-table`, so the
# rules are the Makefile's own, docs/architecture.md draws them):
#   1. every #include of a file names a header of its own layer or of one
#      it may use (a one-header grant such as torusmodel's
#      optimized/ropt_timed.h allows that header only);
#   2. with BUILD (the objects of a `make` of that flavour): every global
#      symbol an object references that some layer's objects define is
#      defined in its own layer or in one its layer links - calls only run
#      down, so no two folders call each other in a loop;
#   3. with BUILD: no object under the MPI adapter (the layers its
#      libtorus_pmpi.so holds) references an MPI_ name the adapter defines
#      (read from the adapter's own objects): the kit calls the MPI library
#      by its internal names (kit/kit_mpi.h), never the adapter.
# Prints one line per violation and exits 1; else one line per check, 0.
set -u
root=${1:-.}
build=${2:-}
cd "$root" || exit 2
table=$(make -s --no-print-directory layers-table 2>&1) || {
    echo "check-layers: make layers-table failed: $table"
    exit 2
}
declare -A allowed chain
layers=""
while IFS='|' read -r l inc link; do
    [ -n "$l" ] || continue
    layers="$layers $l"
    allowed[$l]="$l $inc"
    chain[$l]=$link
done <<<"$table"
layers=${layers# }

# the layer folder that holds header H (by file name), empty if none
where() {
    local h=$1 l
    for l in $layers; do
        [ -f "$l/$h" ] && echo "$l"
    done
}
# the files of a layer's folder, but those of a sub-folder that is a layer of its own
files_of() {
    local layer=$1 f sub
    [ -d "$layer" ] || return 0
    while IFS= read -r f; do
        sub=$(dirname "$f")
        case " $layers " in *" $sub "*) [ "$sub" = "$layer" ] || continue ;; esac
        echo "$f"
    done < <(find "$layer" -name "$2" | sort)
}

bad=0
for layer in $layers; do
    ok=${allowed[$layer]}
    while IFS= read -r f; do
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
    done < <(files_of "$layer" '*.[ch]')
done
[ $bad = 0 ] && echo "check-layers: every include points down (layers: $layers)"
[ -n "$build" ] || exit $bad

# The objects: $build/<folder>/*.o, the adapter's in $build/pic/pmpi/.
objs_of() {
    local layer=$1 dir=$build/$1
    [ "$layer" = pmpi ] && dir=$build/pic/pmpi
    [ -d "$dir" ] || return 0
    find "$dir" -maxdepth 1 -name '*.o' | sort
}
# one nm per object: what it defines (map symbol -> layers), what it calls
# (kept per object), and the MPI_ names the adapter defines
declare -A defined_by undef
adapter=""
nobj=0
for layer in $layers; do
    while IFS= read -r o; do
        nobj=$((nobj + 1))
        undef[$o]=""
        while read -r a b c; do
            if [ -z "$c" ]; then # "U sym": a reference
                undef[$o]+="$b "
                continue
            fi
            # the adapter's MPI_ entries are MPI's own interface, which the
            # MPI library defines too: calling them is every program's right
            if [ "$layer" = pmpi ] && [ "${c#MPI_}" != "$c" ]; then
                adapter+="$c"$'\n'
                continue
            fi
            case " ${defined_by[$c]:-} " in *" $layer "*) ;; *) defined_by[$c]="${defined_by[$c]:-} $layer" ;; esac
        done < <(nm -g "$o" 2>/dev/null)
    done < <(objs_of "$layer")
done
if [ $nobj = 0 ]; then
    echo "check-layers: no objects under $build: build first (make), then make check-layers"
    exit 1
fi
calls_bad=0
for layer in $layers; do
    [ "$layer" = tests ] && continue # the top: anything below
    mine=" ${chain[$layer]} "
    while IFS= read -r o; do
        for sym in ${undef[$o]}; do
            owners=${defined_by[$sym]:-}
            [ -n "$owners" ] || continue # the MPI library, libc, a system library
            fine=0
            for w in $owners; do
                case "$mine" in *" $w "*) fine=1 ;; esac
            done
            if [ $fine = 0 ]; then
                echo "check-layers: ${o#"$build"/}: calls $sym, defined in$owners/, which $layer/ does not link (links: ${chain[$layer]})"
                calls_bad=1
            fi
        done
    done < <(objs_of "$layer")
done
[ $calls_bad = 0 ] && echo "check-layers: every call of $nobj objects runs down its layer's link chain (no loop between folders)"

# 3: the names the adapter defines, and the objects under it
adapter=$(printf '%s' "$adapter" | sort -u)
mpi_bad=0
if [ -z "$adapter" ]; then
    echo "check-layers: no adapter objects under $build/pic/pmpi: build first (make)"
    mpi_bad=1
else
    under=${chain[pmpi]#pmpi }
    for layer in $under; do
        while IFS= read -r o; do
            for sym in ${undef[$o]}; do
                [ "${sym#MPI_}" != "$sym" ] || continue
                if grep -qxF "$sym" <<<"$adapter"; then
                    echo "check-layers: ${o#"$build"/}: calls $sym, which libtorus_pmpi.so defines: call it as K$sym (kit/kit_mpi.h)"
                    mpi_bad=1
                fi
            done
        done < <(objs_of "$layer")
    done
    [ $mpi_bad = 0 ] && echo "check-layers: nothing under the adapter ($under) calls the $(wc -l <<<"$adapter") MPI_ names it defines"
fi
[ $bad = 0 ] && [ $calls_bad = 0 ] && [ $mpi_bad = 0 ]
