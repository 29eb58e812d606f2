# tests/suite_install.sh - the kit installed like a library people use
# (issue 24 item 5): make install into a temporary prefix gives a man page
# for every binary, made from its --help, that man -l renders; torus.pc for
# pkg-config; and the program docs/collectives.md shows (docs/examples/sum.c)
# builds against that installed copy alone with `pkg-config --cflags --libs
# torus` and runs over MPI.  Sourced by run_tests.sh (tests/lib.sh).

inst=$TMP/instlib
if make --no-print-directory install MPI="$MPI" PAPI="${PAPI:-}" PREFIX="$inst" >"$TMP/instlib.log" 2>&1; then
    ok "make install PREFIX=<tmp>: $(tail -1 "$TMP/instlib.log" | cut -c1-100)..."
else
    bad "make install PREFIX=<tmp> failed: $(tail -3 "$TMP/instlib.log")"
fi

# man pages: one per binary, rendered by man -l, naming the binary and
# listing its options with their defaults as --help does
if command -v help2man >/dev/null 2>&1 && command -v man >/dev/null 2>&1; then
    probs=""
    for b in ra_base ra_opt sparsest_cut torusmodel ra_calibrate collbench; do
        page=$inst/share/man/man1/$b.1
        [ -s "$page" ] || { probs="$probs $b:no-page"; continue; }
        MANWIDTH=100 MANPAGER=cat man -l "$page" >"$TMP/man.txt" 2>"$TMP/man.err" || { probs="$probs $b:man-exit-$?"; continue; }
        [ -s "$TMP/man.err" ] && probs="$probs $b:man-stderr($(head -1 "$TMP/man.err"))"
        grep -q "^NAME" "$TMP/man.txt" && grep -q "^ *$b - " "$TMP/man.txt" || probs="$probs $b:no-NAME"
        # every option of --help is in the page (the spec is the one source)
        for o in $(bin/$b --help | sed -nE 's/^  (-[a-zA-Z], )?--([a-z0-9-]+).*/\2/p'); do
            grep -qE -- "(^|[^a-z-])--$o([^a-z-]|$)" "$TMP/man.txt" || probs="$probs $b:--$o"
        done
    done
    if [ -z "$probs" ]; then
        ok "man pages of the six binaries, made by help2man from --help: man -l renders each with its NAME and every option"
    else
        bad "man pages:$probs"
    fi
else
    echo "# skip - man pages: help2man or man not installed (apt-get install help2man man-db; make test installs them as root)"
fi

# pkg-config, and the documented program built against the installed copy
if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs torus 2>&1 | sed 's/ *$//')
    if [ "$flags" = "-I$inst/include -L$inst/lib -ltorus -lkit -lm" ]; then
        ok "pkg-config --cflags --libs torus: $flags"
    else
        bad "pkg-config --cflags --libs torus: '$flags'"
    fi
    # the page shows the file as it is
    shown=$(awk '/^```c$/ { f = 1; next } /^```$/ && f { exit } f' docs/collectives.md)
    if [ "$shown" = "$(cat docs/examples/sum.c)" ]; then
        ok "docs/collectives.md shows docs/examples/sum.c as it is ($(wc -l <docs/examples/sum.c) lines)"
    else
        bad "docs/collectives.md's program differs from docs/examples/sum.c"
    fi
    ex=$TMP/example
    mkdir -p "$ex"
    cp docs/examples/sum.c "$ex/"
    # outside the checkout, with nothing but the installed copy
    # shellcheck disable=SC2046 # pkg-config's words are flags
    if (cd "$ex" && mpicc."$MPI" -std=c11 -o sum sum.c $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs torus)) >"$TMP/cc.log" 2>&1; then
        run_mpi 4 "$ex/sum"
        rc=$?
        if [ $rc = 0 ] && grep -qE '^sum of 1\.\.4: 10 \(allreduce [a-z_]+\)$' "$TMP/out"; then
            ok "docs/examples/sum.c built with mpicc.$MPI and pkg-config against the installed libtorus, 4 ranks: $(cat "$TMP/out")"
        else
            bad "sum at 4 ranks: rc=$rc $(head -3 "$TMP/out" "$TMP/err")"
        fi
    else
        bad "docs/examples/sum.c does not build against the installed copy: $(head -5 "$TMP/cc.log")"
    fi
else
    echo "# skip - pkg-config not installed: the installed library's test (apt-get install pkg-config; make test installs it as root)"
fi

# Issue 33, class 3: PREFIX and DESTDIR with a blank and a quote.  Every
# file goes under them (nothing into the checkout), the installed scripts
# run from there into a folder with a blank and a quote, and torus.pc's
# flags come out as shell words (pkg-config's backslash escapes).
top_before=$(find . -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort)
sp="$TMP/pre fix 'q'"
dd="$TMP/dest dir 'q'" dp="/opt/with space 'q'"
make --no-print-directory install MPI="$MPI" PAPI="${PAPI:-}" PREFIX="$sp" >"$TMP/instsp.log" 2>&1
rc1=$?
make --no-print-directory install MPI="$MPI" PAPI="${PAPI:-}" DESTDIR="$dd" PREFIX="$dp" >"$TMP/instdd.log" 2>&1
rc2=$?
top_after=$(find . -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort)
miss=""
for root in "$sp" "$dd$dp"; do
    for f in bin/ra_opt bin/hpcc-ra-sweep bin/hpcc-ra-submission lib/libtorus.a include/torus.h lib/pkgconfig/torus.pc \
        "lib/hpcc-ra/$MPI/libtorus_pmpi.so" share/hpcc-ra/mpi_flavour share/hpcc-ra/run_scripts/slurm/sweep.sbatch; do
        [ -e "$root/$f" ] || miss="$miss ${root##*/}/$f"
    done
done
[ -e "/opt/with space 'q'" ] && miss="$miss (wrote outside DESTDIR)"
qo="$TMP/out dir 'q'"
mkdir -p "$qo"
(cd "$TMP" && MPIRUN='' "$sp/bin/hpcc-ra-sweep" --no-calibrate -o "$qo/inst.csv" -p 2 -k 12 -a ra_base) >"$TMP/instsw" 2>&1
rc3=$?
(cd "$TMP" && MPIRUN='' "$dd$dp/bin/hpcc-ra-submission" -n 2 -k 12 -t 0.05 -o "$qo/inst sub") >"$TMP/instsub" 2>&1
rc4=$?
pcok=1
if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH=$sp/lib/pkgconfig pkg-config --cflags --libs torus)
    eval "set -- $flags"
    [ "${1-}" = "-I$sp/include" ] && [ "${2-}" = "-L$sp/lib" ] || pcok=0
    mkdir -p "$TMP/example2"
    src=$PWD/docs/examples/sum.c
    (cd "$TMP/example2" && mpicc."$MPI" -std=c11 -o sum "$src" "$@") >"$TMP/cc2.log" 2>&1 || pcok=0
fi
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$top_before" = "$top_after" ] && [ -z "$miss" ] && [ $rc3 = 0 ] && grep -q ',passed,' "$qo/inst.csv" &&
    [ $rc4 = 0 ] && [ -s "$qo/inst sub/optimized/hpccoutf.txt" ] && [ $pcok = 1 ]; then
    ok "make install PREFIX=\"<tmp>/pre fix 'q'\" and DESTDIR=\"<tmp>/dest dir 'q'\" PREFIX=\"/opt/with space 'q'\": every file under them, none in the checkout; the installed sweep and submission run into \"out dir 'q'\"; torus.pc's flags are shell words (sum.c builds with them)"
else
    bad "make install with blanks and quotes: rc=$rc1/$rc2/$rc3/$rc4 missing:${miss:-none} checkout: $(diff <(echo "$top_before") <(echo "$top_after") | grep '^>' | tr '\n' ' ') pkg-config:$pcok $(tail -2 "$TMP/instsp.log" "$TMP/instdd.log")"
fi
