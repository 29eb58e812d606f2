# run_scripts/common.sh - sourced by the run scripts: where the binaries are,
# how to launch them (mpirun or srun), and facts about the MPI library.
# Works from a checkout (run_scripts/ beside bin/) and from `make install`
# (PREFIX/share/hpcc-ra/run_scripts with the binaries in PREFIX/bin).
# shellcheck shell=bash

ra_die() { echo "$RA_SCRIPT: error: $*" >&2; exit 2; }

# ra_csv_col FILE NAME: the number of column NAME in FILE's header line
ra_csv_col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

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

# Whole numbers only, with a message naming the option.
ra_need_uint() {
    case "$2" in
    '' | *[!0-9]*) ra_die "$1 '$2' is not valid: allowed a whole number" ;;
    esac
}
