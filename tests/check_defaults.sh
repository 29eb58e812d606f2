#!/bin/bash
# tests/check_defaults.sh ROOT - the options tables of the docs against the
# binaries they describe: every row of a table headed "| option | meaning |
# default |" names an option whose default, as the binary's --help prints
# it from its option spec (kit_opt_help: "[default: X]"), is the table's
# default cell (backticks and blanks aside), or begins it followed by "; "
# and more words.  A page's binary: docs/ra_opt.md bin/ra_opt (its own and
# the harness's options), docs/running.md bin/ra_base (the harness's).
# Prints one line per row that differs (FILE:LINE: --opt: the page says
# 'X', --help says 'Y') and exits 1; else one summary line, exit 0.
set -u
root=${1:-.}
cd "$root" || exit 2
pages=("docs/ra_opt.md bin/ra_opt" "docs/running.md bin/ra_base")

# "--name<TAB>default" for every option of the binary's --help
defaults_of() {
    "$1" --help 2>/dev/null | awk '
        function flush() { if (name != "") { d = ""; if (match(text, /\[default: [^]]*\]/)) d = substr(text, RSTART + 10, RLENGTH - 11); print name "\t" d } }
        /^  --[a-z0-9-]+/ { flush(); name = $1; text = $0; next }
        /^      / && name != "" { sub(/^ +/, " "); text = text $0; next }
        { flush(); name = "" }
        END { flush() }'
}
norm() { printf '%s' "$1" | tr -d '`' | tr -s ' ' | sed 's/^ //; s/ $//'; }

bad=0
rows=0
for pair in "${pages[@]}"; do
    read -r page bin <<<"$pair"
    if [ ! -x "$bin" ]; then
        echo "check-defaults: $bin is not built (make first)"
        exit 2
    fi
    table=$(defaults_of "$bin")
    in_table=0
    lineno=0
    while IFS= read -r line; do
        lineno=$((lineno + 1))
        case $line in
        '| option | meaning | default |') in_table=1; continue ;;
        '|'*) ;;
        *) in_table=0; continue ;;
        esac
        [ $in_table = 1 ] || continue
        case $line in '|---'*) continue ;; esac
        # the first option of the row's first cell, and its last cell
        opt=$(printf '%s' "$line" | sed 's/^| *//; s/ |.*//' | grep -oE -- '--[a-z0-9-]+' | head -1)
        cell=$(printf '%s' "$line" | sed 's/ *| *$//; s/.*| *//')
        [ -n "$opt" ] && [ -n "$(norm "$cell")" ] || continue
        rows=$((rows + 1))
        want=$(printf '%s\n' "$table" | awk -F'\t' -v o="$opt" '$1 == o { print $2; exit }')
        doc=$(norm "$cell")
        want=$(norm "$want")
        if [ -z "$want" ]; then
            echo "check-defaults: $page:$lineno: $opt: $bin --help gives no default for it (the page says '$doc')"
            bad=1
        elif [ "$doc" != "$want" ] && [[ $doc != "$want; "* ]]; then
            echo "check-defaults: $page:$lineno: $opt: the page says '$doc', $bin --help says '$want'"
            bad=1
        fi
    done <"$page"
done
[ $bad = 0 ] && echo "check-defaults: $rows option defaults in the docs' tables are the ones --help prints"
exit $bad
