#!/bin/bash
# hpcc/hpcc_source.sh - where `make hpcc` finds HPC Challenge 1.5's sources.
#
#   hpcc/hpcc_source.sh SRC DEST
#
# SRC is a release tarball (hpcc-1.5.0.tar.gz, Debian's hpcc_1.5.0.orig.tar.gz),
# an unpacked tree or a git checkout of HPCC; empty: a tree unpacked in DEST
# earlier, else Debian's source package (`apt-get source hpcc`, which needs a
# deb-src line: added, as root, beside the deb lines already there).  A
# tarball is unpacked into DEST; a tree is used where it is (the build writes
# nothing into it: objects go to build/, and HPCC's files stay as they are).
# Prints the tree's absolute path.  Exit 2: SRC is not an HPCC 1.5 source;
# 3: it could not be fetched or unpacked (one line saying what to do).
set -u
die() { echo "hpcc_source.sh: error: $2" >&2; exit "$1"; }
SRC=${1:-}
DEST=${2:?usage: hpcc_source.sh SRC DEST}
# absolute (nothing is created yet): apt-get runs in a folder of its own
DEST=$(readlink -m -- "$DEST")

# The root of an HPCC 1.5 tree under $1 (itself or one level down), or nothing.
tree_in() {
    local d
    for d in "$1" "$1"/*/; do
        d=${d%/}
        if [ -f "$d/hpl/lib/arch/build/Makefile.hpcc" ] && [ -f "$d/include/hpccver.h" ] &&
            grep -qE 'define HPCC_VERSION_MAJOR +1$' "$d/include/hpccver.h" &&
            grep -qE 'define HPCC_VERSION_MINOR +5$' "$d/include/hpccver.h"; then
            readlink -f "$d"
            return 0
        fi
    done
    return 1
}

unpack() {
    local tmp
    mkdir -p "$DEST" || die 3 "cannot create $DEST"
    tmp=$(mktemp -d "$DEST/.unpack.XXXXXX") || die 3 "cannot write in $DEST"
    tar -xf "$1" -C "$tmp" || { rm -rf "$tmp"; die 2 "HPCC_SRC=$1 cannot be unpacked: allowed an HPCC 1.5 tarball, tree or git checkout"; }
    local t
    t=$(tree_in "$tmp") || { rm -rf "$tmp"; die 2 "HPCC_SRC=$1 holds no HPCC 1.5 tree (hpl/lib/arch/build/Makefile.hpcc, include/hpccver.h 1.5): allowed an HPCC 1.5 tarball, tree or git checkout"; }
    rm -rf "$DEST/tree"
    mv "$t" "$DEST/tree" || die 3 "cannot move the unpacked tree into $DEST/tree"
    rm -rf "$tmp"
    readlink -f "$DEST/tree"
}

if [ -n "$SRC" ]; then
    if [ -d "$SRC" ]; then
        tree_in "$SRC" || die 2 "HPCC_SRC=$SRC is not an HPCC 1.5 tree (no hpl/lib/arch/build/Makefile.hpcc or include/hpccver.h of 1.5): allowed an HPCC 1.5 tarball, tree or git checkout"
        exit 0
    fi
    [ -f "$SRC" ] || die 2 "HPCC_SRC=$SRC does not exist: allowed an HPCC 1.5 tarball, tree or git checkout"
    # unpack once per tarball: a stamp names the one unpacked
    stamp="$(readlink -f "$SRC") $(stat -c '%s %Y' "$SRC")"
    if [ -f "$DEST/tree.from" ] && [ "$(cat "$DEST/tree.from")" = "$stamp" ] && tree_in "$DEST/tree" >/dev/null; then
        readlink -f "$DEST/tree"
        exit 0
    fi
    unpack "$SRC" || exit $?
    if ! { echo "$stamp" >"$DEST/tree.from.tmp" && mv "$DEST/tree.from.tmp" "$DEST/tree.from"; }; then
        die 3 "cannot write $DEST/tree.from"
    fi
    exit 0
fi

# no SRC: what was unpacked before, else Debian's source package
if [ -d "$DEST/tree" ] && tree_in "$DEST/tree"; then
    exit 0
fi
command -v apt-get >/dev/null 2>&1 ||
    die 3 "no HPCC source: give one with HPCC_SRC=<tarball, tree or git checkout> (e.g. hpcc-1.5.0.tar.gz from https://icl.utk.edu/hpcc/)"
have_src_line() {
    grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/
}
if ! have_src_line; then
    if [ "$(id -u)" != 0 ]; then
        die 3 "no HPCC source and no deb-src line for apt-get source: as root add one (e.g. 'deb-src http://deb.debian.org/debian bookworm main' in /etc/apt/sources.list.d/hpcc-ra-src.list, then apt-get update), or give HPCC_SRC=<tarball, tree or git checkout>"
    fi
    # the deb lines' own archive, suite and keyring, as a source line
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    stanza=$(awk -v RS= '/URIs:[^\n]*debian\/?(\n|$)/ && !/debian-security/ { print; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
    if [ -n "$stanza" ]; then
        f=/etc/apt/sources.list.d/hpcc-ra-src.sources
        printf '%s\n' "$stanza" | sed -E "s/^Types:.*/Types: deb-src/; s/^Suites:.*/Suites: $suite/" >"$f" || die 3 "cannot write $f"
    else
        f=/etc/apt/sources.list.d/hpcc-ra-src.list
        line=$(grep -hsE '^deb [^#]*debian/? ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | grep -v security | head -1)
        line=${line:-deb http://deb.debian.org/debian $suite main}
        echo "$line" | sed -E 's/^deb /deb-src /' >"$f" || die 3 "cannot write $f"
    fi
    echo "hpcc_source.sh: added $f (a deb-src line of the same archive) for apt-get source hpcc" >&2
    apt-get update -qq >&2 || die 3 "apt-get update failed: give HPCC_SRC=<tarball, tree or git checkout>"
fi
mkdir -p "$DEST/apt" || die 3 "cannot create $DEST/apt"
# Debian's patch archive may be gone from the mirror (it is for 1.5.0-3):
# apt-get then fails, but the orig tarball, all we use, has arrived.
(cd "$DEST/apt" && apt-get source --download-only hpcc >&2 2>"$DEST/apt/log") || true
shopt -s nullglob
tarballs=("$DEST"/apt/hpcc_1.5*.orig.tar.*)
tarball=${tarballs[0]:-}
[ -n "$tarball" ] || die 3 "apt-get source hpcc fetched no hpcc_1.5*.orig.tar.*: $(tail -1 "$DEST/apt/log"); give HPCC_SRC=<tarball, tree or git checkout>"
unpack "$tarball"
