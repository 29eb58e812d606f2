# run_scripts/common.sh - sourced by the run scripts: where the binaries are,
# how to launch them (mpirun or srun), and facts about the MPI library.
# Works from a checkout (run_scripts/ beside bin/) and from `make install`
# (PREFIX/share/hpcc-ra/run_scripts with the binaries in PREFIX/bin).
# shellcheck shell=bash

ra_die() { echo "$RA_SCRIPT: error: $*" >&2; exit 2; }

# ---- standard output and clean-up -------------------------------------------
# A script's stdout is a result channel (the tables of compare.sh, the
# progress of sweep.sh, the summary of hpcc_submission.sh): ra_guard_stdout
# passes it through a cat of its own whose failure (/dev/full, a closed
# descriptor) the script's end turns into one line and exit 3, as the
# binaries do (kit_stdout_end).  Clean-ups go through ra_on_exit, which
# the guard's EXIT trap runs first.
RA__ON_EXIT=""
ra_on_exit() { RA__ON_EXIT+="$1"$'\n'; }
ra__exit() {
    local rc=$?
    eval "$RA__ON_EXIT"
    ra__stage_end "$rc" || rc=3
    if [ -n "${RA__GUARD:-}" ]; then
        exec 1>&- # the guard sees the end of its input
        [ -n "$RA__GUARD_PID" ] && wait "$RA__GUARD_PID" 2>/dev/null
        if [ -s "$RA__GUARD" ] && [ $rc != 2 ] && [ $rc != 3 ]; then
            echo "$RA_SCRIPT: error: cannot write standard output: $(sed -n 's/.*write error: //p' "$RA__GUARD" | head -1)" >&2
            rc=3
        fi
        rm -f -- "$RA__GUARD"
    fi
    exit $rc
}
trap ra__exit EXIT
ra_guard_stdout() {
    [ -t 1 ] && return 0 # a terminal: nothing is lost unseen
    RA__GUARD=$(mktemp 2>/dev/null) || { RA__GUARD=""; return 0; }
    if (exec 9>&1) 2>/dev/null; then
        # cat's own line on a failed write ("cat: write error: REASON");
        # the second cat drains what follows, so the script never dies of
        # SIGPIPE before it can say so
        exec 1> >(cat 2>"$RA__GUARD" || cat >/dev/null)
        RA__GUARD_PID=$!
    else
        echo "cat: write error: Bad file descriptor" >"$RA__GUARD"
        exec 1>/dev/null
        RA__GUARD_PID=""
    fi
}

# ---- results that keep earlier ones (issue 33, class 3) --------------------
# A run writes its files into a folder of its own inside its output folder
# DIR (RA_STAGE, DIR/.ra-new.XXXXXX, made by ra_stage), never into DIR
# itself.  They take their place in DIR only when the run succeeded: by
# ra_stage_commit, or at the script's end with exit 0.  Each entry of the
# stage then replaces the one of its name in DIR (the old one is moved
# aside first, and back if a move fails; other files of DIR are left
# alone).  At any other end the earlier files in DIR are untouched:
#   refused (RA_STAGE_FAILED unset: nothing ran to the end): the stage is
#     removed, and DIR with the folders above it that ra_stage made;
#   failed (RA_STAGE_FAILED=1: a run ended and wrote something): its files
#     are kept, in place when DIR holds none of their names, else beside
#     the earlier ones in DIR/failed-DATE-TIME.XXXXXX, said on stderr.
RA_STAGE="" RA_STAGE_DIR="" RA_STAGE_FAILED=""
RA__STAGE_MADE=()
# ra_stage DIR: RA_STAGE, a new empty folder inside DIR (made if missing)
ra_stage() {
    local d=$1
    RA_STAGE_DIR=$1
    RA__STAGE_MADE=()
    while [ ! -e "$d" ] && [ ! -L "$d" ]; do
        RA__STAGE_MADE+=("$d")
        case "$d" in */*) d=${d%/*} ;; *) break ;; esac
        [ -n "$d" ] || break
    done
    mkdir -p -- "$1" || { echo "$RA_SCRIPT: error: cannot create '$(ra_show "$1")'" >&2; exit 3; }
    RA_STAGE=$(mktemp -d -- "$1/.ra-new.XXXXXX") ||
        { RA_STAGE=""; echo "$RA_SCRIPT: error: cannot write in '$(ra_show "$1")'" >&2; exit 3; }
}
# the names of the entries of folder $1, one per element of RA__NAMES
ra__names() { mapfile -d '' -t RA__NAMES < <(find "$1" -mindepth 1 -maxdepth 1 -printf '%f\0'); }
# ra_stage_commit: every entry of RA_STAGE into RA_STAGE_DIR, replacing
# its namesake; 0, or 3 with RA_STAGE_DIR as it was and the stage kept
ra_stage_commit() {
    local old n i dst ok=1
    [ -n "$RA_STAGE" ] || return 0
    old=$(mktemp -d -- "$RA_STAGE_DIR/.ra-old.XXXXXX") || return 3
    ra__names "$RA_STAGE"
    for n in ${RA__NAMES[@]+"${RA__NAMES[@]}"}; do
        dst=$RA_STAGE_DIR/$n
        if [ -e "$dst" ] || [ -L "$dst" ]; then mv -T -- "$dst" "$old/$n" || { ok=0; break; }; fi
        mv -T -- "$RA_STAGE/$n" "$dst" || { ok=0; break; }
    done
    if [ $ok = 0 ]; then
        # back as it was: the new ones to the stage, the old ones home
        for i in "${!RA__NAMES[@]}"; do
            n=${RA__NAMES[i]}
            [ -e "$RA_STAGE/$n" ] || [ -L "$RA_STAGE/$n" ] || mv -T -- "$RA_STAGE_DIR/$n" "$RA_STAGE/$n" 2>/dev/null
            if [ -e "$old/$n" ] || [ -L "$old/$n" ]; then mv -T -- "$old/$n" "$RA_STAGE_DIR/$n"; fi
        done
        rmdir -- "$old" 2>/dev/null
        echo "$RA_SCRIPT: error: cannot move the new files into '$(ra_show "$RA_STAGE_DIR")': they are in '$(ra_show "$RA_STAGE")', the earlier ones unchanged" >&2
        RA_STAGE=""
        return 3
    fi
    rm -rf -- "$old"
    rmdir -- "$RA_STAGE" 2>/dev/null
    RA_STAGE=""
    return 0
}
# at the script's end (ra__exit), with its exit code: see above
ra__stage_end() {
    local rc=$1 n clash="" f i
    { [ -n "$RA_STAGE" ] && [ -d "$RA_STAGE" ]; } || return 0
    if [ "$rc" = 0 ]; then
        ra_stage_commit
        return
    fi
    ra__names "$RA_STAGE"
    if [ -z "$RA_STAGE_FAILED" ] || [ ${#RA__NAMES[@]} = 0 ]; then
        rm -rf -- "$RA_STAGE"
        for i in "${!RA__STAGE_MADE[@]}"; do rmdir -- "${RA__STAGE_MADE[i]}" 2>/dev/null || break; done
        RA_STAGE=""
        return 0
    fi
    for n in "${RA__NAMES[@]}"; do [ -e "$RA_STAGE_DIR/$n" ] || [ -L "$RA_STAGE_DIR/$n" ] && clash=1; done
    if [ -z "$clash" ]; then
        ra_stage_commit || return 0 # said; the exit code is the run's
        echo "$RA_SCRIPT: the failed run's files are in '$(ra_show "$RA_STAGE_DIR")' (it held no earlier ones)" >&2
        return 0
    fi
    f=$RA_STAGE_DIR/failed-$(date +%Y%m%d-%H%M%S)${RA_STAGE##*/.ra-new}
    if mv -T -- "$RA_STAGE" "$f" 2>/dev/null; then
        echo "$RA_SCRIPT: the failed run's files are in '$(ra_show "$f")'; the earlier results in '$(ra_show "$RA_STAGE_DIR")' are unchanged" >&2
    else
        echo "$RA_SCRIPT: the failed run's files are in '$(ra_show "$RA_STAGE")'; the earlier results in '$(ra_show "$RA_STAGE_DIR")' are unchanged" >&2
    fi
    RA_STAGE=""
    return 0
}

# ---- options: one parser for every run script -------------------------------
# Every value is checked before anything is printed, created or launched:
# a bad one is one line on stderr naming it and what is allowed, exit 2.
# No value ever reaches shell arithmetic unchecked (2^64 is a message, not
# a bash error).

# ra_show VALUE: VALUE for a one-line message, control and non-ASCII bytes
# as \xNN, quotes as \', cut to 64 characters (as the binaries echo it).
ra_show() {
    local LC_ALL=C v=$1 out="" c i
    for ((i = 0; i < ${#v} && i < 64; i++)); do
        c=${v:i:1}
        case "$c" in
        "'" | "\\") out+="\\$c" ;;
        [[:print:]]) out+=$c ;;
        *) printf -v c '\\x%02x' "'$c"; out+=$c ;;
        esac
    done
    [ ${#v} -gt 64 ] && out+=...
    printf '%s' "$out"
}

# ra_bad NAME VALUE ALLOWED: the one line for a bad value, exit 2.
ra_bad() { ra_die "$1 '$(ra_show "$2")' is not valid: allowed $3"; }

# ra__uint VALUE LO HI: 0 when VALUE is a whole number in LO..HI (both
# below 10^18), by its digits: no arithmetic on a value not yet checked.
ra__uint() {
    local v=$1
    case "$v" in '' | *[!0-9]*) return 1 ;; esac
    v=${v#"${v%%[!0]*}"}
    v=${v:-0}
    [ ${#v} -le 18 ] && [ "$v" -ge "$2" ] && [ "$v" -le "$3" ]
}

# ra_check NAME KIND VALUE: VALUE against KIND, or the one line and exit 2.
#   uint:LO:HI    a whole number in LO..HI
#   uints:LO:HI   a blank-separated list of those, not empty
#   seconds       seconds as digits with at most one '.', 0..1e7 (HPCC's bound)
#   bytes         a byte count with an optional K/M/G/T suffix, below 10^18
#   choice:A,B    one of the words
#   name          a name of a file or folder to write: not empty or blank
#   file          a readable file
#   text          anything not empty or blank
ra_check() {
    local name=$1 kind=$2 v=$3 lo hi w
    case "$kind" in
    uint:*)
        IFS=: read -r _ lo hi <<<"$kind"
        ra__uint "$v" "$lo" "$hi" || ra_bad "$name" "$v" "a whole number $lo..$hi"
        ;;
    uints:*)
        IFS=: read -r _ lo hi <<<"$kind"
        [ -n "${v//[[:space:]]/}" ] || ra_bad "$name" "$v" "a list of whole numbers $lo..$hi like \"1 2 4\""
        for w in $v; do ra__uint "$w" "$lo" "$hi" || ra_bad "$name entry" "$w" "$lo..$hi"; done
        ;;
    seconds)
        { [[ "$v" =~ ^[0-9]*\.?[0-9]*$ ]] && [[ "$v" =~ [0-9] ]] && awk -v x="$v" 'BEGIN { exit !(x + 0 <= 1e7) }'; } ||
            ra_bad "$name" "$v" "seconds in 0..1e7, e.g. 60 (HPCC's bound) or 0.5"
        ;;
    bytes)
        [[ "$v" =~ ^([0-9]{1,18})([KkMmGgTt]([iI]?[bB])?)?$ ]] ||
            ra_bad "$name" "$v" "a byte count with an optional K/M/G/T suffix, e.g. 2G"
        ;;
    choice:*)
        case ",${kind#choice:}," in *",$v,"*) [ -n "$v" ] ;; *) false ;; esac ||
            ra_bad "$name" "$v" "$(printf '%s' "${kind#choice:}" | sed 's/,/, /g')"
        ;;
    name) [ -n "${v//[[:space:]]/}" ] || ra_bad "$name" "$v" "a file or folder name" ;;
    file)
        { [ -n "$v" ] && [ -f "$v" ] && [ -r "$v" ]; } || ra_bad "$name" "$v" "a readable file"
        ;;
    text) [ -n "${v//[[:space:]]/}" ] || ra_bad "$name" "$v" "a value (see -h)" ;;
    esac
}

# ra_parse_opts "$@": the options the script declares in RA_OPTSPEC, one
# "OPTION KIND VAR" per line (KIND as ra_check's, or flag: VAR=1, or
# help: the script's usage, exit 0).  `--opt=value` works for long
# options.  Words that are not options go to RA_ARGS, those after "--"
# (the binaries' options, checked by ra_dry_run) to RA_REST.  A missing or
# bad value, or an unknown option, is one line and exit 2.
# shellcheck disable=SC2034 # RA_ARGS and RA_REST are read by the callers
ra_parse_opts() {
    RA_ARGS=()
    RA_REST=()
    local a name val hasval opt kind var found
    while [ $# -gt 0 ]; do
        a=$1
        shift
        if [ "$a" = -- ]; then
            RA_REST=("$@")
            return 0
        fi
        case "$a" in
        -?*) ;;
        *) RA_ARGS+=("$a"); continue ;;
        esac
        name=$a hasval=0 val="" found=""
        case "$a" in --*=*) name=${a%%=*} val=${a#*=} hasval=1 ;; esac
        while read -r opt kind var; do
            [ "$opt" = "$name" ] && { found=1; break; }
        done <<<"$RA_OPTSPEC"
        [ -n "$found" ] || ra_die "unknown option '$(ra_show "$a")' (see -h)"
        case "$kind" in
        help)
            [ $hasval = 0 ] || ra_die "option '$name' takes no value, got '$(ra_show "$val")' (see -h)"
            usage
            exit 0
            ;;
        flag)
            [ $hasval = 0 ] || ra_die "option '$name' takes no value, got '$(ra_show "$val")' (see -h)"
            printf -v "$var" 1
            continue
            ;;
        esac
        if [ $hasval = 0 ]; then
            [ $# -gt 0 ] || ra_die "option '$name' needs a value (see -h)"
            val=$1
            shift
        fi
        ra_check "$name" "$kind" "$val"
        printf -v "$var" '%s' "$val"
    done
}

# ra_dry_run PROG RANKS ARGS...: PROG (a binary in RA_BIN) checks ARGS with
# --dry-run (--dry-run=RANKS when RANKS is not empty: also what a run of
# that many ranks checks at its start), alone and before any launch: every
# option the user passed through is checked by the binary's own spec, MPI
# is not started, nothing is written.  On a refusal its line is said and
# the script exits with its code (2 or 3).
ra_dry_run() {
    local prog=$1 ranks=$2 out rc=0
    shift 2
    # "|| rc=": a refusal must not end a `set -e` script before its line
    out=$("$RA_BIN/$prog" "--dry-run${ranks:+=$ranks}" "$@" 2>&1 >/dev/null) || rc=$?
    [ $rc = 0 ] && return 0
    echo "$RA_SCRIPT: error: $(printf '%s\n' "$out" | grep -m1 . || echo "$prog --dry-run: exit $rc")" >&2
    exit $rc
}

# ra_out_dir NAME DIR: DIR can be made (or is a folder) and written in,
# checked without creating anything: the nearest existing folder on its
# path must be writable.  One line and exit 2 otherwise.
ra_out_dir() {
    local name=$1 d=$2 up
    [ -e "$d" ] && [ ! -d "$d" ] && ra_bad "$name" "$d" "a folder (it is a file)"
    up=$d
    while [ ! -e "$up" ]; do
        case "$up" in */*) up=${up%/*}; up=${up:-/} ;; *) up=. ;; esac
    done
    { [ -d "$up" ] && [ -w "$up" ] && [ -x "$up" ]; } || ra_bad "$name" "$d" "a folder that can be made and written (not under '$(ra_show "$up")')"
}

# ra_csv_col FILE NAME: the number of column NAME in FILE's header line
ra_csv_col() { head -1 -- "$1" | tr ',' '\n' | grep -nx -- "$2" | head -1 | cut -d: -f1; }

# ra_gp_text TEXT: TEXT as it may enter a gnuplot script: letters, digits,
# blanks and ._:=- kept, every other byte '_'.  A CSV or params file is
# data, never script text: no quote, backquote (gnuplot runs `...` inside
# double quotes), backslash, $ or @ of theirs reaches gnuplot.
ra_gp_text() { printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._:= -' '_'; }

# RA_BIN: directory holding ra_base, ra_opt, torusmodel, ra_calibrate.
ra_find_bin() {
    local here
    here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
    if [ -n "${RA_BIN:-}" ]; then
        [ -x "$RA_BIN/ra_opt" ] || ra_die "RA_BIN=$RA_BIN has no ra_opt: allowed a directory with the hpcc-ra binaries"
    elif [ -x "$here/../bin/ra_opt" ]; then
        RA_BIN=$(cd "$here/../bin" && pwd)
    elif [ -x "$here/../../../bin/ra_opt" ]; then
        RA_BIN=$(cd "$here/../../../bin" && pwd)
    elif command -v ra_opt >/dev/null 2>&1; then
        RA_BIN=$(dirname "$(command -v ra_opt)")
    else
        echo "$RA_SCRIPT: error: no hpcc-ra binaries found (looked beside this script and on PATH): run 'make' in the checkout, or set RA_BIN" >&2
        exit 3
    fi
    RA_HERE=$here
}

# The MPI the binaries were built with: bin/.flavour in a checkout, the
# installed share/hpcc-ra/mpi_flavour otherwise; "" when unknown.
ra_flavour() {
    local f
    for f in "$RA_BIN/.flavour" "$RA_HERE/../mpi_flavour"; do
        if [ -r "$f" ]; then
            awk '{print $1; exit}' "$f"
            return
        fi
    done
}

# Sets RA_LAUNCH (an array): the command that starts N ranks, from
# LAUNCHER=mpirun|srun, MPIRUN (the mpirun to use) and LAUNCHER_ARGS.
ra_launcher() {
    local np=$1
    RA_LAUNCH=()
    local extra=()
    if [ -n "${LAUNCHER_ARGS:-}" ]; then
        read -r -a extra <<<"$LAUNCHER_ARGS"
    fi
    case "${LAUNCHER:-mpirun}" in
    srun)
        command -v srun >/dev/null 2>&1 || ra_die "LAUNCHER=srun but srun is not on PATH: allowed LAUNCHER=mpirun outside Slurm"
        # One rank per core, packed; the table is per rank so binding keeps
        # each rank's pages near its core.
        RA_LAUNCH=(srun -n "$np" --cpu-bind=cores --distribution=block:block "${extra[@]}")
        ;;
    mpirun)
        local mr=${MPIRUN:-}
        if [ -z "$mr" ]; then
            local fl
            fl=$(ra_flavour)
            if [ -n "$fl" ] && command -v "mpirun.$fl" >/dev/null 2>&1; then mr=mpirun.$fl; else mr=mpirun; fi
        fi
        command -v "$mr" >/dev/null 2>&1 || ra_die "launcher '$mr' not found: allowed MPIRUN=<path to mpirun> or LAUNCHER=srun"
        RA_LAUNCH=("$mr")
        if "$mr" --version 2>&1 | grep -qiE "open mpi|openrte|open-mpi"; then
            # Open MPI refuses root and more ranks than cores unless told.
            [ "$(id -u)" = 0 ] && RA_LAUNCH+=(--allow-run-as-root)
            [ "$np" -gt "$(nproc)" ] && RA_LAUNCH+=(--oversubscribe)
        fi
        RA_LAUNCH+=(-n "$np" "${extra[@]}")
        ;;
    *) ra_die "LAUNCHER='${LAUNCHER}' is not valid: allowed mpirun or srun" ;;
    esac
}

# "MPICH Version: 4.0.2" -> RA_MPI_NAME=MPICH RA_MPI_VERSION=4.0.2, from the
# "# MPI:" preamble line of a run's output (file $1).  Read by the callers.
# shellcheck disable=SC2034
ra_mpi_info() {
    local line
    line=$(sed -n 's/^# MPI: *//p' "$1" | head -1 | tr '\t' ' ')
    RA_MPI_NAME=unknown
    RA_MPI_VERSION=unknown
    case "$line" in
    *MPICH*) RA_MPI_NAME=MPICH ;;
    *"Open MPI"*) RA_MPI_NAME="Open MPI" ;;
    *"Intel(R) MPI"*) RA_MPI_NAME="Intel MPI" ;;
    *MVAPICH*) RA_MPI_NAME=MVAPICH ;;
    *) [ -n "$line" ] && RA_MPI_NAME=${line%% *} ;;
    esac
    local v
    v=$(printf '%s\n' "$line" | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?[a-z0-9]*' | head -1)
    [ -n "$v" ] && RA_MPI_VERSION=$v
    return 0
}

# HPCC 1.5's input file, hpccinf.txt, on standard output: HPL's lines with
# one problem size N ($2), one block NB ($3) and one grid P x Q ($4, $5),
# HPL's other choices and PTRANS's lines as in HPCC's sample; $1 names the
# script that wrote it (its title), $6 says why this N (on the N line).
ra_hpcc_inf() {
    cat <<EOF
HPLinpack benchmark input file (written by hpcc-ra $1)
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$2           Ns ($6)
1            # of NBs
$3           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$4           Ps
$5           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF
}

# The value of key $2 in the Summary section of the hpccoutf.txt $1, "-"
# when the file or the key is missing.
ra_hpcc_key() {
    local v
    v=$(sed -n '/^Begin of Summary section/,/^End of Summary section/p' "$1" 2>/dev/null | sed -n "s/^$2=//p" | head -1)
    echo "${v:--}"
}

# Value of "key: value" in a key block file ($1), first occurrence.
# Result files are replaced, never written in place (issue 15): the new
# content goes to a temporary beside the file, every write checked, then
# one rename, so a full disk or a killed script leaves the old file whole.
# ra_atomic_write FILE: FILE becomes standard input.  ra_atomic_append
# FILE: FILE's old content, then standard input.  Both return 3 (the kit's
# resource exit) on any failure, with nothing changed.
ra__atomic() {
    local mode=$1 f=$2 tmp
    # a link: replace what it points to; a device or a pipe (/dev/null, a
    # FIFO) cannot be replaced: write through it, still checked
    [ -L "$f" ] && f=$(readlink -f -- "$f")
    if [ -e "$f" ] && [ ! -f "$f" ]; then
        if [ "$mode" = append ]; then cat >>"$f" || return 3; else cat >"$f" || return 3; fi
        return 0
    fi
    tmp=$(mktemp "$(dirname -- "$f")/.$(basename -- "$f").XXXXXX" 2>/dev/null) || return 3
    if [ -e "$f" ]; then
        chmod --reference="$f" "$tmp" 2>/dev/null
    else
        chmod "$(printf '%o' $((0666 & ~$(umask))))" "$tmp"
    fi
    if { if [ "$mode" = append ] && [ -e "$f" ]; then cat -- "$f"; fi && cat; } >"$tmp" && mv -f -- "$tmp" "$f"; then
        return 0
    fi
    rm -f -- "$tmp"
    return 3
}
ra_atomic_write() { ra__atomic write "$1"; }
ra_atomic_append() { ra__atomic append "$1"; }

ra_key() { sed -n "s/^$2: //p" "$1" | head -1; }

# ra_over_bound LABEL MEASURED BOUND BINDING: a measurement above the
# bound printed beside it (issue 48, class 4) means the model's inputs do
# not describe that run (a calibration on another layout, threads that
# oversubscribed the cores): never printed silently.  Status 0 and one
# warning line on stderr when MEASURED > BOUND; 1 otherwise (no bound,
# "unbounded", no measurement).
ra_over_bound() {
    awk -v g="$2" -v b="$3" 'BEGIN { exit !(b != "" && b != "unbounded" && b + 0 > 0 && g + 0 > b + 0) }' ||
        return 1
    echo "$RA_SCRIPT: warning: $1 measured $2 GUPS, above its $4 bound of $3 GUPS: an inconsistency (the model's inputs do not describe this run: calibrate at the same ranks, node layout and table)" >&2
}
