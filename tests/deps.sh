#!/bin/sh
# Installs the Debian packages named on the command line that are missing,
# when run as root; otherwise prints the exact command to run and fails.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq $missing >/dev/null || { echo "deps: apt-get install$missing failed" >&2; exit 3; }
    exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: install them with: sudo apt-get install -y$missing" >&2
exit 3
