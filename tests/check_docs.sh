#!/bin/bash
# tests/check_docs.sh ROOT - every reference in README.md and docs/*.md
# points at something in the repository, so a fresh clone needs nothing
# outside itself:
#   - markdown links [text](path#anchor): the path exists (relative to the
#     page), and an anchor names a heading of the target page (GitHub's
#     slugs: lower case, punctuation dropped, spaces to hyphens);
#   - code (`inline` spans and fenced blocks): every word that looks like a
#     repository path (starts with a top-level folder, e.g.
#     run_scripts/plot.sh, tests/suite_*.sh) exists; <placeholders> and *
#     match any name.  Built paths (bin/X, lib/<mpi>/X, build/<mpi>/X) must
#     exist in the build tree (run it after `make`); a bare file name
#     (ropt.c, torus.h, multisend.md) must be the name of a file in the
#     repository, unless it is one of the outside files named in $external;
#     a word starting with ../ points outside the repository.
# Prints one line per broken reference (FILE:LINE: ...) and exits 1; exit 0
# and one summary line when all resolve.
set -u
root=${1:-.}
cd "$root" || exit 2

# the layers' top-level folders (layers.mk, the one list) and the two beside them
read -r -a folders <<<"$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' layers.mk 2>/dev/null | sed -n 's/^LAYERS *:= *//p' |
    tr -s ' ' '\n' | cut -d/ -f1 | awk '!seen[$0]++' | tr '\n' ' ') run_scripts docs"
top=" ${folders[*]} "
built=" bin lib build "
# Files of other projects the pages name on purpose: HPCC's header and the
# HPCC files hpcc-submission.md names (make hpcc builds them), PAPI's,
# MPICH's barrier file (conventions.md).
external=" RandomAccess.h papi.h barrier_intra_k_dissemination.c HPL_dlamch.c HPL_slamch.c noopt.c HPL_packL.c MPIRandomAccess.c extinit.c "
hpcc_progs=$(sed -n 's/^HPCC_PROGS := //p' Makefile 2>/dev/null)
bad=0
checked=0
say() {
    echo "check-docs: $*"
    bad=1
}

# Every file name in the repository (for bare names).
names=" $(find "${folders[@]}" Makefile LICENSE README.md -type f -not -path '*/corpus/*' -printf '%f ' 2>/dev/null) "

# GitHub's heading anchors of a page, one per line (fenced code skipped).
anchors() {
    awk '/^```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
        tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# pattern P exists? (<x> and * match any name; relative to the root)
exists_glob() {
    local g
    g=$(printf '%s' "$1" | sed 's/<[^>]*>/*/g')
    compgen -G "$g" >/dev/null
}

# One code word: is it a path, and does it resolve?
check_word() {
    local file=$1 line=$2 w=$3 first pat n
    w=${w#\$PWD/}
    w=${w#./}
    w=${w%[.:]}
    case $w in *'{'* | *'...'* | *'$'* | '' | /*) return ;; esac
    if [[ $w == ../* ]]; then
        checked=$((checked + 1))
        say "$file:$line: '$w' points outside the repository"
        return
    fi
    if [[ $w == */* ]]; then
        first=${w%%/*}
        if [[ $top == *" $first "* ]]; then
            checked=$((checked + 1))
            exists_glob "$w" || say "$file:$line: '$w' is not in the repository"
        elif [[ $built == *" $first "* ]]; then
            checked=$((checked + 1))
            pat=$w
            # lib/<mpi>/..., build/<mpi>/...: any flavour that was built
            [ "$first" != bin ] && [[ $w == */*/* ]] && pat=$first/'*'/${w#*/*/}
            [ "$first" != bin ] && [[ $w == */*/ ]] && pat=$first/'*'/
            # `make hpcc`'s binaries (the Makefile's HPCC_PROGS) need HPCC's source
            [[ " $hpcc_progs " == *" $w "* ]] || exists_glob "$pat" || say "$file:$line: '$w' is not built by make (looked for $pat)"
        fi
        return
    fi
    case $w in *.c | *.h | *.sh | *.sbatch | *.def | *.md) ;; *) return ;; esac
    checked=$((checked + 1))
    [[ $external == *" $w "* ]] && return
    pat=$(printf '%s' "$w" | sed 's/<[^>]*>/*/g')
    for n in $names; do
        # shellcheck disable=SC2053 # $pat is a glob on purpose
        [[ $n == $pat ]] && return
    done
    say "$file:$line: no file named '$w' in the repository"
}

# Every page: print "LINE<TAB>L<TAB>target" for each markdown link and
# "LINE<TAB>W<TAB>word" for each word of code (inline spans may run over
# several lines: a line with an odd number of backticks is joined to the next).
extract() {
    awk '
    function words(s, ln,   n, i, w) {
        n = split(s, w, /[ \t|,;()"'"'"'=]+/)
        for (i = 1; i <= n; i++) if (w[i] != "") print ln "\tW\t" w[i]
    }
    function flush(   s, t, i, span) {
        s = buf
        while (match(s, /\]\([^) ]+\)/)) {
            print start "\tL\t" substr(s, RSTART + 2, RLENGTH - 3)
            s = substr(s, RSTART + RLENGTH)
        }
        s = buf
        while ((i = index(s, "`")) > 0) {
            s = substr(s, i + 1)
            if ((i = index(s, "`")) == 0) break
            span = substr(s, 1, i - 1)
            gsub(/\n/, " ", span)
            words(span, start)
            s = substr(s, i + 1)
        }
        buf = ""
    }
    /^```/ { if (buf != "") flush(); fence = !fence; next }
    fence { words($0, NR); next }
    {
        if (buf == "") start = NR
        buf = buf $0 "\n"
        t = buf
        if (gsub(/`/, "", t) % 2 == 0) flush()
    }
    END { if (buf != "") flush() }
    ' "$1"
}

pages=(README.md docs/*.md)
for f in "${pages[@]}"; do
    dir=$(dirname "$f")
    while IFS=$'\t' read -r line kind what; do
        if [ "$kind" = W ]; then
            check_word "$f" "$line" "$what"
            continue
        fi
        case $what in http://* | https://* | mailto:*) continue ;; esac
        checked=$((checked + 1))
        path=${what%%#*}
        anchor=
        [[ $what == *'#'* ]] && anchor=${what#*#}
        if [ -z "$path" ]; then target=$f; else target=$dir/$path; fi
        if [ ! -e "$target" ]; then
            say "$f:$line: link '$what': no $target"
        elif [ -n "$anchor" ] && [[ $target == *.md ]] && ! anchors "$target" | grep -qx -- "$anchor"; then
            say "$f:$line: link '$what': no heading '#$anchor' in $target"
        fi
    done < <(extract "$f")
done
[ $bad = 0 ] && echo "check-docs: ${#pages[@]} pages, $checked references, all resolve"
exit $bad
