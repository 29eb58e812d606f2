#!/bin/sh
# Installs the Debian packages named on the command line that are missing,
# when run as root; otherwise prints the exact command to run and fails.
# Packages after "--" are optional (PAPI counters, plots, shellcheck, man
# pages, pkg-config, HPCC itself for the cross-check, mpi4py for the
# adapter's outside-program suite): as root they are
# installed when apt can; otherwise one hint line, never a failure, and the
# tests that need one say so and skip.
missing=""
optional=""
opt=0
for p in "$@"; do
    if [ "$p" = -- ]; then opt=1; continue; fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    if [ $opt = 1 ]; then optional="$optional $p"; else missing="$missing $p"; fi
done
[ -z "$missing$optional" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    if [ -n "$missing" ]; then
        echo "deps: installing$missing"
        apt-get install -y -qq $missing >/dev/null || { echo "deps: apt-get install$missing failed" >&2; exit 3; }
    fi
    if [ -n "$optional" ]; then
        echo "deps: installing optional$optional"
        # one at a time: a package this release lacks costs only itself
        failed=""
        for p in $optional; do
            apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 || failed="$failed $p"
        done
        [ -z "$failed" ] ||
            echo "deps: optional packages$failed could not be installed: the checks that need them (--papi, plots, shellcheck, man pages, pkg-config, the HPCC cross-check, mpi4py) will say so and be skipped" >&2
    fi
    exit 0
fi
if [ -n "$optional" ]; then
    echo "deps: optional, for --papi counters, plots, shellcheck, man pages, pkg-config, the HPCC cross-check and mpi4py: sudo apt-get install -y$optional" >&2
fi
[ -z "$missing" ] && exit 0
echo "deps: missing packages:$missing" >&2
echo "deps: install them with: sudo apt-get install -y$missing" >&2
exit 3
