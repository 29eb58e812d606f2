/*
 * settings.c - the one declaration of every environment variable the kit
 * reads (kit_settings.h): the readers go through kit_setting(), the MPI
 * adapter checks its settings against the allowed words here, --help and
 * the man pages list them, docs/settings.md is this table printed.
 */
#include "kit_settings.h"

#include <stdlib.h>
#include <string.h>

#define LIB KIT_READ_LIBRARY
#define ADP KIT_READ_ADAPTER
#define SCR KIT_READ_SCRIPTS
#define SLURM KIT_READ_SLURM

const kit_setting_decl kit_settings[] = {
    {"TORUS_NODES", KIT_SET_COUNT, "k, a divisor of the rank count", "unset: the nodes MPI reports", LIB | ADP, 1,
     "emulate k nodes of consecutive ranks (ranks 0..P/k-1 on node 0, ...)"},
    {"TORUS_HOSTFILE", KIT_SET_FILE, "a file, line r naming rank r's host", "unset: the nodes MPI reports", LIB | ADP,
     1, "emulate the nodes of a host list: ranks with the same name share a node"},
    {"TORUS_COLL_TABLE", KIT_SET_FILE, "a selection table (bin/collbench --tune FILE)", "unset: the compiled table",
     LIB | ADP, 0, "the collectives' selection table tried before the compiled one"},
    {"TORUS_COLL_BARRIER", KIT_SET_ALGORITHM, "auto or a barrier algorithm", "auto", LIB | ADP, 1,
     "force the barrier algorithm"},
    {"TORUS_COLL_BCAST", KIT_SET_ALGORITHM, "auto or a bcast algorithm", "auto", LIB | ADP, 1,
     "force the bcast algorithm"},
    {"TORUS_COLL_ALLREDUCE", KIT_SET_ALGORITHM, "auto or an allreduce algorithm", "auto", LIB | ADP, 1,
     "force the allreduce algorithm"},
    {"TORUS_COLL_ALLTOALLV", KIT_SET_ALGORITHM, "auto or an alltoallv algorithm", "auto", LIB | ADP, 1,
     "force the alltoall(v) algorithm"},
    {"TORUS_COLL", KIT_SET_ONOFF, "on, off, 1, 0", "on", ADP, 1,
     "off: the adapter hands every call to the MPI library"},
    {"TORUS_COLL_DIMS", KIT_SET_SHAPE, "a shape (the grammar of --dims)", "auto", ADP, 1,
     "the torus of communicators whose size it fits (others: auto)"},
    {"TORUS_COLL_STATS", KIT_SET_CHOICE, "1, 0, on, off, kv", "0", ADP, 1,
     "at MPI_Finalize, rank 0 prints what the adapter ran and handed over (kv: as key=value lines)"},
    {"TORUS_COLL_REPRO", KIT_SET_CHOICE, "torus, library", "torus", ADP, 1,
     "library: reductions the MPI library may compute differently go to it"},
    {"TORUS_COLL_LIBRARY", KIT_SET_CHOICE, "auto, never", "auto", ADP, 1,
     "never: no call goes to the MPI library for being faster there"},
    {"TORUS_COLL_FLAT", KIT_SET_CHOICE, "auto, off", "auto", ADP, 1,
     "off: no call runs on the node's shared area (small calls of ranks on one node)"},
    {"TORUS_COLL_PERSISTENT", KIT_SET_CHOICE, "library, start", "library", ADP, 1,
     "start: persistent bcast/allreduce/neighbour inits run the torus algorithm at each start"},
    {"TORUS_COLL_MULTISEND", KIT_SET_ALGORITHM, "auto, direct, routed", "auto", ADP, 1,
     "force the algorithm of MPI_Neighbor_alltoallv's plan"},
    {"OMP_NUM_THREADS", KIT_SET_COUNT, "1..1024", "unset: the OpenMP runtime's (one per CPU the rank may use)",
     KIT_READ_HARNESS | SCR, 0,
     "threads per process of the Star and Single kernels (--suite star, single; hpcc_submission.sh: 1 when unset)"},
    {"RA_PROGRESS_DELAY_S", KIT_SET_COUNT, "seconds", "unset: 10", KIT_READ_TESTS, 0,
     "test builds only: when the first progress line is printed"},
    {"RA_INJECT_MPI_ERROR", KIT_SET_ONOFF, "set or unset", "unset", KIT_READ_TESTS, 0,
     "test builds only: rank 0 makes a failing MPI call"},
    {"LAUNCHER", KIT_SET_CHOICE, "mpirun, srun", "mpirun", SCR, 0,
     "how the scripts launch ranks (srun inside a Slurm allocation)"},
    {"MPIRUN", KIT_SET_FILE, "an mpirun command", "unset: the mpirun of the build's MPI (mpirun.mpich, mpirun.openmpi)",
     SCR, 0, "the mpirun the scripts launch with (LAUNCHER=mpirun)"},
    {"LAUNCHER_ARGS", KIT_SET_TEXT, "launcher options", "unset: none", SCR | SLURM, 0,
     "more options for the launcher, before the rank count"},
    {"MPI", KIT_SET_CHOICE, "mpich, openmpi", "unset: the flavour of bin/", SCR, 0,
     "compare.sh and bench_adapter.sh: which build's binaries and mpirun"},
    {"RA_BIN", KIT_SET_FILE, "a folder with ra_opt, ra_base, ...", "unset: the kit's bin/ (or the install's)", SCR, 0,
     "where the scripts find the kit's binaries"},
    {"GNUPLOT", KIT_SET_FILE, "a gnuplot command", "gnuplot", SCR, 0, "plot.sh and plot_coll.sh: the gnuplot to run"},
    {"HPCC", KIT_SET_TEXT, "hpcc binaries, space separated", "hpcc", SCR, 0,
     "compare.sh: the HPCC binaries it times beside ra_opt (empty: none)"},
    {"HPCC_MPIRUN", KIT_SET_FILE, "an mpirun command", "unset: mpirun.openmpi (the Debian package's MPI), else mpirun",
     SCR, 0, "compare.sh: the mpirun of the HPCC binaries"},
    {"RA_HOME", KIT_SET_FILE, "the kit's checkout or install prefix", "unset: the submit directory", SLURM, 0,
     "where the templates find the run scripts and binaries"},
    {"RA_ARGS", KIT_SET_TEXT, "ra_opt options", "--node-dim --progress", SLURM, 0, "ra_opt.sbatch: ra_opt's options"},
    {"MEM", KIT_SET_TEXT, "a byte count (e.g. 2G)", "unset: half of each node's RAM over its ranks", SLURM, 0,
     "hpcc_submission.sbatch: -m, the memory per process"},
    {"OUTDIR", KIT_SET_FILE, "a folder", "hpcc-submission-<job>", SLURM, 0, "hpcc_submission.sbatch: -o"},
    {"OPT_ARGS", KIT_SET_TEXT, "ra_opt options", "unset: the whole suite (--full)", SLURM, 0,
     "hpcc_submission.sbatch: set, a RandomAccess-only submission with these ra_opt options (-O)"},
    {"NPS", KIT_SET_TEXT, "process counts", "1, 2 and 4 nodes' ranks", SLURM, 0, "sweep.sbatch: -p"},
    {"SIZES", KIT_SET_TEXT, "log2 table sizes", "28", SLURM, 0, "sweep.sbatch: -k"},
    {"VARIANTS", KIT_SET_TEXT, "sweep.sh variants", "ra_base ra_opt ra_opt:--node-dim", SLURM, 0, "sweep.sbatch: -a"},
    {"CSV", KIT_SET_FILE, "a CSV file", "sweep.csv", SLURM, 0, "sweep.sbatch: -o"},
    {"TIMEOUT", KIT_SET_COUNT, "seconds, 0 = none", "900", SLURM, 0, "sweep.sbatch: --timeout"},
    {"PAPI", KIT_SET_ONOFF, "1, 0", "0", SLURM, 0, "sweep.sbatch: 1 gives --papi"},
    {"CALIBRATE", KIT_SET_ONOFF, "1, 0", "1", SLURM, 0, "sweep.sbatch: 0 gives --no-calibrate"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

const kit_setting_decl *kit_setting_find(const char *name)
{
    for (const kit_setting_decl *d = kit_settings; d->name; d++)
        if (!strcmp(d->name, name))
            return d;
    return NULL;
}

const char *kit_setting(const char *name)
{
    if (!kit_setting_find(name)) {
        fprintf(stderr, "kit_setting: %s is not declared in kit/settings.c\n", name);
        abort();
    }
    return getenv(name);
}

/* The next word of an allowed list ("torus, library"): its length, *p
 * moved past it and its ", " (NULL after the last). */
static size_t next_word(const char **p)
{
    const char *w = *p, *end = strstr(w, ", ");
    *p = end ? end + 2 : NULL;
    return end ? (size_t)(end - w) : strlen(w);
}

int kit_setting_word_ok(const kit_setting_decl *d, const char *v)
{
    if (!v || !*v)
        return 1;
    size_t n = strlen(v);
    for (const char *p = d->allowed; p && *p;) {
        const char *w = p;
        if (next_word(&p) == n && !strncmp(w, v, n))
            return 1;
    }
    return 0;
}

const char *kit_setting_allowed(const kit_setting_decl *d, char *buf, size_t len)
{
    if (d->kind != KIT_SET_CHOICE) {
        snprintf(buf, len, "%s", d->allowed);
        return buf;
    }
    /* a choice's words, its default marked: "auto (the default), never" */
    size_t o = 0, dl = strlen(d->defval);
    buf[0] = 0;
    for (const char *p = d->allowed; p && *p && o < len;) {
        const char *w = p;
        size_t wl = next_word(&p);
        o += (size_t)snprintf(buf + o, len - o, "%s%.*s%s", o ? ", " : "", (int)wl, w,
                              wl == dl && !strncmp(w, d->defval, dl) ? " (the default)" : "");
    }
    return buf;
}

void kit_settings_help(FILE *f, unsigned readers)
{
    int any = 0;
    for (const kit_setting_decl *d = kit_settings; d->name; d++) {
        if (!(d->readers & readers) || (d->readers & KIT_READ_TESTS))
            continue;
        if (!any++)
            fprintf(f, "Environment (docs/settings.md):\n");
        fprintf(f, "  %-22s %s [default: %s]\n", d->name, d->help, d->defval);
    }
}

static const char *reader_words(unsigned r, char *buf, size_t len)
{
    static const char *const names[] = {"the library", "the adapter", "the harness", "test builds",
                                        "the run scripts", "the Slurm templates"};
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < 6 && o < len; i++)
        if (r & (1u << i))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", names[i]);
    return buf;
}

void kit_settings_table(FILE *f)
{
    fprintf(f, "| setting | values | default | read by | agreed by the adapter's ranks | what it does |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (const kit_setting_decl *d = kit_settings; d->name; d++) {
        char who[80];
        fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", d->name, d->allowed, d->defval,
                reader_words(d->readers, who, sizeof who), d->agreed ? "yes" : "no", d->help);
    }
}
