/*
 * pmpi_state.c - the adapter's settings and its per-communicator state.
 *
 * Settings come from the environment, read once right after MPI_Init:
 * TORUS_COLL=on|off, TORUS_COLL_DIMS=shape, TORUS_COLL_STATS=1|0|kv,
 * TORUS_COLL_REPRO=torus|library (the numeric policy, pmpi_types.c),
 * TORUS_COLL_MULTISEND=name (MPI_Neighbor_alltoallv's plans) and the
 * library's own TORUS_COLL_<OP>=name, checked here so that a bad value
 * stops the job at start with one line instead of at some later
 * collective.  Every rank must take the same path, so the ranks then
 * agree on the settings with one small allreduce (six 64-bit words, once
 * per job): a launcher that exported different values to different ranks
 * (or a wrapper script that set one on some nodes) stops the job there
 * with one line and exit 2, where it would otherwise split the ranks
 * between the adapter and the library and hang.
 *
 * A communicator's state (pm_comm) is built by its first intercepted call
 * (every rank of it makes that call, so the set-up collectives match):
 * the shape (TORUS_COLL_DIMS when it fits the size, else "auto"), the map,
 * the node of every rank (node-aware algorithms), the MPI transport on a
 * private duplicate of the communicator (its traffic can never match the
 * program's) and the torus_coll context.  It is cached as an attribute, so
 * it dies with the communicator; the ones still alive at MPI_Finalize are
 * freed there.
 *
 * Threads (MPI_THREAD_MULTIPLE): MPI lets threads run collectives at once
 * on different communicators, never on one, so a pm_comm is only ever
 * used by one thread at a time (the program orders calls on one
 * communicator) and needs no lock; what is shared between communicators
 * is: the list of live states (pm__lock), the settings (written once in
 * MPI_Init, before the program can start threads that call MPI, or under
 * init_lk).  Under the other levels pm__lock takes nothing.  The torus
 * library under the adapter calls the MPI library by the kit's internal
 * names (kit/kit_mpi.h), never the adapter, so nothing here re-enters.
 */
#include "pmpi_impl.h"
#include "kit_cli.h"
#include "kit_mpi.h"
#include "kit_settings.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pm_settings pm__settings_store = {.node_src = ""};

/* PM_OK once set up and on; PM_WHY_OFF under TORUS_COLL=off, PM_WHY_SETUP
 * when the keys could not be made; PM_WHY_ARGS before MPI_Init and after
 * MPI_Finalize. */
static pm_why mode = PM_WHY_ARGS;
/* Set (release) once init has run; read (acquire) by every call: under
 * MPI_THREAD_MULTIPLE two threads may reach a first call at once when MPI
 * was started without the adapter's MPI_Init (init_lk orders them). */
static atomic_int initialised;
static pthread_mutex_t init_lk = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;
static const char *dims_env;
static int world_n;
pm_comm *_Atomic pm__world; /* MPI_COMM_WORLD's state: no attribute lookup on the common path */
atomic_int pm__on;
_Thread_local pm_last pm__last PM_TLS;
atomic_uint pm__gen;
static pm_comm *live;     /* every state not yet freed (guarded by pm__lock) */

/* Recursive: a datatype's attribute callback may run inside an MPI call the
 * adapter makes while it holds the lock (pmpi_types.c). */
static pthread_mutex_t lk;
static pthread_once_t lk_once = PTHREAD_ONCE_INIT;
static int lk_ok;

static void lk_make(void)
{
    pthread_mutexattr_t a;
    lk_ok = !pthread_mutexattr_init(&a) && !pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE) &&
            !pthread_mutex_init(&lk, &a);
    pthread_mutexattr_destroy(&a);
}

int pm__lock(void)
{
    if (!pm__settings_store.threaded)
        return 0;
    if (pthread_once(&lk_once, lk_make) || !lk_ok || pthread_mutex_lock(&lk)) {
        /* unguarded shared state under threads could corrupt the job's
         * results: stop instead (never happens with a working libc) */
        fprintf(stderr, "torus_pmpi: cannot take the adapter's lock\n");
        PMPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    }
    return 1;
}

void pm__unlock(int locked)
{
    if (locked)
        pthread_mutex_unlock(&lk);
}

/* Communicators whose torus side is built, each holding a duplicate of
 * its own (torus_mpi_create), and the most there may be.  Why a bound:
 * MPICH has 2048 context ids per process, and a program that makes its
 * communicators while it uses them would otherwise find the library out
 * of them sooner under the adapter than without it: past 256 the
 * program's communicators go to the library, so it keeps at least
 * 2048 - 256 - 2 of its own (the 2: MPI_COMM_WORLD's state and the
 * types' check, made at the start).  The check is agreed in build_on. */
enum { PM_MAX_BUILT = 256 };
static atomic_int built;

static void destroy(pm_comm *pc)
{
    if (!pc)
        return;
    int locked = pm__lock();
    if (pc->prev)
        pc->prev->next = pc->next;
    else if (live == pc)
        live = pc->next;
    if (pc->next)
        pc->next->prev = pc->prev;
    pc->prev = pc->next = NULL;
    if (atomic_load_explicit(&pm__world, memory_order_relaxed) == pc)
        atomic_store_explicit(&pm__world, NULL, memory_order_release);
    /* before pc is freed: every thread's cached pm__last is stale now */
    atomic_fetch_add_explicit(&pm__gen, 1, memory_order_release);
    pm__unlock(locked);
    pm__neighbor_free(pc);
    pm__flat_free(pc);
    if (pc->c)
        torus_coll_destroy(pc->c);
    if (pc->tm) {
        torus_mpi_destroy(pc->tm);
        atomic_fetch_sub(&built, 1);
    }
    torus_map_free(&pc->map);
    free(pc->node_of);
    free(pc->v);
    for (int i = 0; i < PM_NSCRATCH; i++)
        free(pc->tmp[i]);
    free(pc);
}

/* The attribute's delete callback: the user's communicator is being freed. */
static int delete_state(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    destroy(val);
    return MPI_SUCCESS;
}

/* A bad setting found outside MPI_Init (MPI started through another
 * entry, e.g. a Fortran binding): this rank says it and aborts the job
 * with exit code 2 (usage). */
static void usage_error(const char *msg)
{
    fprintf(stderr, "torus_pmpi: %s\n", msg);
    PMPI_Abort(MPI_COMM_WORLD, KIT_EXIT_USAGE);
}

/* The setting (declared in kit/settings.c) is set to word. */
static int set_is(const char *name, const char *word)
{
    const char *v = kit_setting(name);
    return v && !strcmp(v, word);
}

/* name=value of a setting that is not allowed, into msg. */
static void bad_value(char *msg, size_t len, const char *name, const char *v, const char *allowed)
{
    char shown[100];
    kit_cli_escape(v, shown, sizeof shown);
    snprintf(msg, len, "%s=%s: allowed %s", name, shown, allowed);
}

/* name=value of an algorithm setting that names none of list, into msg
 * (0 when it names one or is unset/auto). */
static int check_name(char *msg, size_t len, const char *name, const char *what, const char *const *list)
{
    const char *v = kit_setting(name);
    if (!v || !*v || !strcmp(v, "auto"))
        return 0;
    int found = 0;
    size_t o = 0;
    char names[400] = "";
    for (const char *const *a = list; *a; a++) {
        found |= !strcmp(*a, v);
        if (o < sizeof names)
            o += (size_t)snprintf(names + o, sizeof names - o, ", %s", *a);
    }
    if (found)
        return 0;
    char shown[100];
    kit_cli_escape(v, shown, sizeof shown);
    snprintf(msg, len, "%s=%s: unknown %s algorithm: allowed auto%s", name, shown, what, names);
    return -1;
}

/* The adapter's settings are declared in kit/settings.c (KIT_READ_ADAPTER:
 * kinds, allowed words, defaults); those marked agreed steer a decision and
 * are agreed between the ranks at MPI_Init. */

/* Checks every setting: 0, or -1 with the first bad one's line in msg. */
static int check_settings(char *msg, size_t len)
{
    for (const kit_setting_decl *d = kit_settings; d->name; d++) {
        if (!(d->readers & KIT_READ_ADAPTER))
            continue;
        const char *v = kit_setting(d->name);
        if (!v || !*v)
            continue;
        if ((d->kind == KIT_SET_ONOFF || d->kind == KIT_SET_CHOICE) && !kit_setting_word_ok(d, v)) {
            char allowed[200];
            bad_value(msg, len, d->name, v, kit_setting_allowed(d, allowed, sizeof allowed));
            return -1;
        }
        if (d->kind == KIT_SET_SHAPE) {
            /* its grammar only: a communicator it does not fit takes auto
             * (shape_for), MPI_COMM_WORLD included */
            torus_shape s;
            char e[300];
            if (torus_shape_parse(v, 0, &s, e, sizeof e)) {
                snprintf(msg, len, "%s: %s", d->name, e);
                return -1;
            }
        }
    }
    /* an emulated node layout: read here to say a bad one once, at the
     * start, rather than at each communicator's first call */
    int *node_of = NULL;
    int lrc = torus_node_override(world_n, &node_of, msg, len);
    free(node_of);
    if (lrc < 0)
        return -1;
    /* TORUS_COLL_<OP>=name: the library would reject a bad name at the
     * first call on each communicator; say it once, now */
    for (int op = 0; op < TORUS_COLL_NCOLL; op++)
        if (check_name(msg, len, torus_coll_op_setting((torus_coll_op)op), torus_coll_op_name((torus_coll_op)op),
                       torus_coll_algorithms((torus_coll_op)op)))
            return -1;
    return check_name(msg, len, "TORUS_COLL_MULTISEND", "multisend", torus_multisend_algorithms());
}

/* A hash of every setting's value (unset and empty alike): what must be
 * equal on every rank.  The thread level is not in it, nor anywhere in the
 * agreement: ranks may legally run at different levels, and the level
 * decides only whether this rank guards its own shared state. */
static uint64_t settings_hash(void)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const kit_setting_decl *d = kit_settings; d->name; d++) {
        if (!(d->readers & KIT_READ_ADAPTER) || !d->agreed)
            continue;
        const char *v = kit_setting(d->name);
        for (const char *p = v ? v : ""; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
        h = (h ^ 0xff) * 0x100000001b3ULL; /* separator */
    }
    return h;
}

/* collective (MPI_Init on every rank): the ranks agree with one allreduce
 * of {hash, ~hash, a bad rank}: equal hashes everywhere leave max(hash) =
 * ~max(~hash), and the lowest rank with a bad value says it; then every
 * rank ends MPI and exits 2 together (an abort could kill the rank with
 * the line before the launcher has forwarded it).  The same allreduce
 * carries the selection table's id (TORUS_COLL_TABLE, torus_coll_table_use)
 * and a rank whose file was bad: a bad file or tables that differ leave
 * every rank on the compiled table (one line from the lowest such rank,
 * or rank 0), since every rank must pick the same algorithm. */
static void agree(int bad, const char *msg)
{
    int me = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    char tmsg[700];
    uint64_t tid = torus_coll_table_use(tmsg, sizeof tmsg);
    uint64_t h = settings_hash(), mine[6] = {h, ~h, bad ? UINT64_MAX - (uint64_t)me : 0, tid, ~tid,
                                             tmsg[0] ? UINT64_MAX - (uint64_t)me : 0}, all[6];
    PMPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (all[2]) {
        if (UINT64_MAX - all[2] == (uint64_t)me)
            fprintf(stderr, "torus_pmpi: %s\n", msg);
    } else if (all[0] != ~all[1]) {
        if (me == 0)
            fprintf(stderr, "torus_pmpi: the TORUS_NODES, TORUS_HOSTFILE or TORUS_COLL* settings differ between "
                            "ranks: the launcher must export the same environment to every rank (mpirun -x, or "
                            "env on the command line)\n");
    } else {
        if (all[5] || all[3] != ~all[4]) {
            torus_coll_table_off();
            if (all[5] && UINT64_MAX - all[5] == (uint64_t)me)
                fprintf(stderr, "torus_pmpi: %s\n", tmsg);
            else if (!all[5] && me == 0)
                fprintf(stderr, "torus_pmpi: TORUS_COLL_TABLE: the ranks read different tables (a file that "
                                "differs between nodes?): the compiled table is used on every rank\n");
        }
        return;
    }
    PMPI_Finalize();
    exit(KIT_EXIT_USAGE);
}

/* Reads and checks the settings.  collective: called from MPI_Init on
 * every rank. */
static void init(int collective)
{
    char msg[700];
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    pm__settings_store.threaded = level == MPI_THREAD_MULTIPLE;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_n);
    int bad = check_settings(msg, sizeof msg);
    if (collective) {
        agree(bad, msg);
    } else {
        if (bad)
            usage_error(msg);
        /* no MPI_Init of ours: no moment when every rank can agree on a
         * table file, so none is used */
        const char *tf = kit_setting("TORUS_COLL_TABLE");
        int me = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (tf && *tf && !me)
            fprintf(stderr, "torus_pmpi: TORUS_COLL_TABLE is not used: MPI was started without the adapter's "
                            "MPI_Init (a language binding?), where the ranks cannot agree on it; the compiled "
                            "table is used\n");
        torus_coll_table_off();
    }
    pm__timing = set_is("TORUS_COLL_STATS", "kv")                                          ? PM_STATS_KV
                 : set_is("TORUS_COLL_STATS", "1") || set_is("TORUS_COLL_STATS", "on") ? PM_STATS_HUMAN
                                                                                       : PM_STATS_OFF;
    pm__settings_store.repro_library = set_is("TORUS_COLL_REPRO", "library");
    pm__settings_store.persist_start = set_is("TORUS_COLL_PERSISTENT", "start");
    pm__route_init(set_is("TORUS_COLL_LIBRARY", "never"), !set_is("TORUS_COLL_FLAT", "off"));
    if (set_is("TORUS_COLL", "off") || set_is("TORUS_COLL", "0")) {
        mode = PM_WHY_OFF;
        return;
    }
    dims_env = kit_setting("TORUS_COLL_DIMS");
    if (dims_env && !*dims_env)
        dims_env = NULL;
    const char *ms = kit_setting("TORUS_COLL_MULTISEND");
    if (ms && *ms && strcmp(ms, "auto"))
        pm__settings_store.ms_algorithm = ms;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL) != MPI_SUCCESS ||
        pm__types_init()) {
        mode = PM_WHY_SETUP;
        return;
    }
    mode = PM_OK;
}

void pm__init_collective(void)
{
    if (!atomic_load_explicit(&initialised, memory_order_acquire)) {
        init(1);
        atomic_store_explicit(&initialised, 1, memory_order_release);
        atomic_store_explicit(&pm__on, mode == PM_OK, memory_order_release);
    }
}

pm_why pm__ready(void)
{
    if (!atomic_load_explicit(&initialised, memory_order_acquire)) {
        /* MPI started without our MPI_Init (e.g. through a Fortran
         * binding): the first call sets up, once, whichever thread it is */
        int up = 0, down = 0;
        PMPI_Initialized(&up);
        PMPI_Finalized(&down);
        if (!up || down)
            return PM_WHY_ARGS;
        pthread_mutex_lock(&init_lk);
        if (!atomic_load_explicit(&initialised, memory_order_relaxed)) {
            init(0);
            atomic_store_explicit(&initialised, 1, memory_order_release);
            atomic_store_explicit(&pm__on, mode == PM_OK, memory_order_release);
        }
        pthread_mutex_unlock(&init_lk);
    }
    return mode;
}

/* The shape for a communicator of n ranks: TORUS_COLL_DIMS when it fits
 * (checked against MPI_COMM_WORLD at start), else auto. */
static void shape_for(int n, torus_shape *s)
{
    char e[300];
    if (dims_env && !torus_shape_parse(dims_env, n, s, e, sizeof e))
        return;
    torus_shape_auto(n, TORUS_AUTO_BUDGET, TORUS_AUTO_T_HOP, TORUS_AUTO_T_MSG, s);
}

MPI_Errhandler pm__errors_return(MPI_Comm comm)
{
    MPI_Errhandler old = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &old) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    else
        old = MPI_ERRHANDLER_NULL;
    return old;
}

void pm__errors_restore(MPI_Comm comm, MPI_Errhandler old)
{
    if (old == MPI_ERRHANDLER_NULL)
        return;
    PMPI_Comm_set_errhandler(comm, old);
    PMPI_Errhandler_free(&old);
}

/* Rank 0 of a communicator whose set-up failed says why, once per
 * process: a program of thousands of communicators past the library's
 * limit would otherwise get a line for each. */
static void say_once(const pm_comm *pc, const char *err)
{
    static atomic_int said;
    if (pc->me == 0 && !atomic_exchange(&said, 1))
        fprintf(stderr, "torus_pmpi: %s: this communicator's calls go to the MPI library (said once)\n", err);
}

/* pc's torus side, with pc->comm's errors returning (build). */
static int build_on(pm_comm *pc)
{
    char err[300];
    torus_shape s;
    shape_for(pc->n, &s);
    int ok = torus_map_xyzt(&pc->map, &s) == 0;
    pc->v = malloc(4 * (size_t)pc->n * sizeof *pc->v);
    pc->node_of = malloc((size_t)pc->n * sizeof *pc->node_of);
    ok = ok && pc->v && pc->node_of && atomic_load(&built) < PM_MAX_BUILT;
    if (!torus_all_ok(pc->comm, ok))
        return -1;
    torus_node_info ni;
    if (torus_node_discover(pc->comm, &ni, err, sizeof err)) {
        say_once(pc, err);
        return -1;
    }
    PMPI_Allgather(&ni.node, 1, MPI_INT, pc->node_of, 1, MPI_INT, pc->comm);
    if (pc->comm == MPI_COMM_WORLD) {
        pm__settings_store.nodes = ni.nnodes;
        pm__settings_store.per_node = ni.max_per_node;
        pm__settings_store.node_src = torus_node_source(&ni);
    }
    torus_node_free(&ni);
    if (torus_mpi_create(&pc->tm, pc->comm, &pc->map, pc->me, 1, 0, err, sizeof err)) {
        say_once(pc, err);
        return -1;
    }
    torus_mpi_bind(pc->tm, &pc->tp);
    torus_coll_config cfg = {.map = &pc->map, .me = pc->me, .tp = &pc->tp, .node_of = pc->node_of,
                             .library = kit_mpi_built_for()};
    int rc = torus_coll_create(&pc->c, &cfg, err, sizeof err);
    if (!rc) /* MPI_Alltoallv's counts match pairwise: empty blocks need no message */
        torus_coll_skip_empty(pc->c, 1);
    if (rc)
        say_once(pc, err);
    return torus_all_ok(pc->comm, rc == 0) ? 0 : -1;
}

/* Builds pc's torus side (collective over pc->comm); 0 or -1 on every rank. */
static int build(pm_comm *pc)
{
    MPI_Errhandler old = pm__errors_return(pc->comm);
    int rc = build_on(pc);
    pm__errors_restore(pc->comm, old);
    if (!rc)
        atomic_fetch_add(&built, 1);
    return rc;
}

/* This thread's next call on comm finds pc without a lookup (pm__last),
 * unless a state was destroyed since gen was read. */
static void remember(MPI_Comm comm, pm_comm *pc, unsigned gen)
{
    pm__last.comm = comm;
    pm__last.pc = pc;
    pm__last.gen = gen;
}

pm_why pm__comm_lookup(MPI_Comm comm, pm_comm **out)
{
    if (comm == MPI_COMM_NULL)
        return PM_WHY_ARGS;
    /* read before the lookup: a state destroyed after it leaves the cache stale */
    unsigned gen = atomic_load_explicit(&pm__gen, memory_order_acquire);
    void *val = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS)
        return PM_WHY_ARGS;
    if (flag) {
        *out = val;
        remember(comm, val, gen);
        return ((pm_comm *)val)->why;
    }
    pm_comm *pc = calloc(1, sizeof *pc);
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        if (!pc)
            return PM_WHY_INTERCOMM;
        pc->why = PM_WHY_INTERCOMM;
    } else {
        /* every rank takes part, also one whose calloc failed */
        if (!torus_all_ok(comm, pc != NULL)) {
            free(pc);
            return PM_WHY_SETUP;
        }
        pc->comm = comm;
        PMPI_Comm_size(comm, &pc->n);
        PMPI_Comm_rank(comm, &pc->me);
        pc->why = build(pc) ? PM_WHY_SETUP : PM_OK;
        if (pc->why != PM_OK) {
            /* keep only the verdict: later calls fall through without retrying */
            if (pc->c)
                torus_coll_destroy(pc->c);
            if (pc->tm)
                torus_mpi_destroy(pc->tm);
            pc->c = NULL;
            pc->tm = NULL;
        }
    }
    pc->comm = comm;
    pm__route_build(pc);
    int locked = pm__lock();
    pc->next = live;
    if (live)
        live->prev = pc;
    live = pc;
    /* only an attached state is freed with its communicator (and bumps
     * pm__gen then), so only an attached one may be remembered */
    int attached = PMPI_Comm_set_attr(comm, keyval, pc) == MPI_SUCCESS;
    /* under the lock: destroy() reads it there while another thread may
     * free its own communicator */
    if (comm == MPI_COMM_WORLD)
        atomic_store_explicit(&pm__world, pc, memory_order_release);
    pm__unlock(locked);
    *out = pc;
    if (attached)
        remember(comm, pc, gen);
    return pc->why;
}

_Noreturn void pm__no_memory(const pm_comm *pc, size_t bytes, const char *what)
{
    fprintf(stderr, "torus_pmpi: rank %d: out of memory for %zu bytes (%s)\n", pc->me, bytes, what);
    PMPI_Abort(pc->comm, KIT_EXIT_RESOURCE);
    _Exit(KIT_EXIT_RESOURCE); /* MPI_Abort does not return; if it did, still stop */
}

void *pm__scratch(pm_comm *pc, int slot, size_t bytes, const char *what)
{
    if (bytes <= pc->tmp_cap[slot])
        return pc->tmp[slot];
    void *p = realloc(pc->tmp[slot], bytes);
    if (!p)
        pm__no_memory(pc, bytes, what);
    pc->tmp[slot] = p;
    pc->tmp_cap[slot] = bytes;
    return p;
}

int pm__result(pm_comm *pc, const char *opname, int rc)
{
    if (!rc)
        return MPI_SUCCESS;
    fprintf(stderr, "torus_pmpi: %s on rank %d of %d: %s\n", opname, pc->me, pc->n, torus_coll_error(pc->c));
    int code = rc == TORUS_COLL_ETRUNC ? MPI_ERR_TRUNCATE : rc == TORUS_COLL_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_ARG;
    PMPI_Comm_call_errhandler(pc->comm, code);
    return code;
}

void pm__free_all(void)
{
    /* the fast paths first: from here every call takes the full path,
     * which finds the mode below */
    atomic_store_explicit(&pm__on, 0, memory_order_release);
    /* deleting the attribute runs delete_state, which unlinks the state */
    while (live) {
        pm_comm *pc = live;
        PMPI_Comm_delete_attr(pc->comm, keyval);
        if (live == pc) /* the delete did not reach us: unlink by hand */
            destroy(pc);
    }
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
    pm__types_free();
    mode = PM_WHY_ARGS;
}

pm_why pm__mode(void)
{
    return atomic_load_explicit(&initialised, memory_order_acquire) ? mode : PM_WHY_ARGS;
}
