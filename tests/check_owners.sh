#!/usr/bin/env bash
# check_owners.sh DIR - every field of the adapter's per-communicator state
# (pm_comm in DIR/pmpi/pmpi_impl.h) is written by its owner file alone:
# the tag [NAME] in the comment before or beside a field names its owner,
# pmpi/pmpi_NAME.c, and no other pmpi/*.c may assign it through pc->
# (=, op=, ++/--) or take its address; and the settings' storage
# (pm__settings_store) is named by pmpi_state.c and the header alone.
# A tripwire on the usual spelling (pc->field), not a proof: the compiler
# keeps the two parts' fields (pm_neighbor, pm_flat) to their files.
# Prints "check-owners: fields N, files M, bad K" and one line per write
# found outside its owner; exit 0, or 1 when any is found.
set -u
dir=${1:-.}
hdr=$dir/pmpi/pmpi_impl.h
# field<TAB>owner, from the struct's body: a tag applies to the fields
# that follow it up to the next tag
fields=$(awk '
    /^typedef struct pm_comm \{/ { on = 1; next }
    on && /^\} pm_comm;/ { exit }
    on {
        line = $0
        if (match(line, /\[[a-z]+\]/)) tag = substr(line, RSTART + 1, RLENGTH - 2)
        sub(/\/\*.*/, "", line)
        if (line ~ /^[ \t]*\*/ || line !~ /;/) next
        sub(/;.*/, "", line)
        gsub(/\[[^]]*\]/, "", line)
        n = split(line, part, ",")
        for (i = 1; i <= n; i++) {
            f = part[i]
            gsub(/[*]/, " ", f)
            m = split(f, w, /[ \t]+/)
            name = w[m] != "" ? w[m] : w[m - 1]
            if (name != "") print name "\t" tag
        }
    }' "$hdr")
nf=0 bad=0
files=("$dir"/pmpi/*.c)
# refuse OWNER PATTERN WHAT: one line per match of grep -E PATTERN in a
# pmpi file other than pmpi_OWNER.c, saying WHAT it does
refuse() {
    local c hit
    for c in "${files[@]}"; do
        [ "$(basename "$c")" = "pmpi_$1.c" ] && continue
        while IFS= read -r hit; do
            [ -n "$hit" ] || continue
            echo "check-owners: pmpi/$(basename "$c"):${hit%%:*}: $3"
            bad=$((bad + 1))
        done < <(grep -nE "$2" "$c")
    done
}
while IFS=$'\t' read -r f owner; do
    [ -n "$f" ] || continue
    nf=$((nf + 1))
    if [ -z "$owner" ] || [ ! -f "$dir/pmpi/pmpi_$owner.c" ]; then
        echo "check-owners: pmpi/pmpi_impl.h: pm_comm.$f: no owner tag naming a pmpi/pmpi_NAME.c"
        bad=$((bad + 1))
        continue
    fi
    # the field, an element or a member of it (pc->seg[op][i].hi = ...)
    sub="pc->$f\b(\[[^]]*\]|\.[a-z_]+)*"
    refuse "$owner" "${sub}[[:space:]]*([-+*/|&^]|<<|>>)?=[^=]|${sub}[[:space:]]*(\+\+|--)|(\+\+|--)${sub}|&${sub}" \
        "writes pm_comm.$f, owned by pmpi/pmpi_$owner.c"
done <<<"$fields"
refuse state 'pm__settings_store' "names pm__settings_store (pmpi_state.c's; read pm__settings())"
echo "check-owners: fields $nf, files ${#files[@]}, bad $bad"
[ "$bad" = 0 ] && [ "$nf" -gt 0 ]
