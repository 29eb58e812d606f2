/*
 * pmpi_state.c - the adapter's settings and its per-communicator state.
 *
 * Settings come from the environment, read once right after MPI_Init (the
 * launcher exports the same values to every rank): TORUS_COLL=off|on,
 * TORUS_COLL_DIMS=shape, TORUS_COLL_STATS=1, TORUS_COLL_MULTISEND=name
 * (MPI_Neighbor_alltoallv's plans) and the library's own
 * TORUS_COLL_<OP>=name, checked here so that a bad value stops the job at
 * start with one line instead of at some later collective.
 *
 * A communicator's state (pm_comm) is built by its first intercepted call
 * (every rank of it makes that call, so the set-up collectives match):
 * the shape (TORUS_COLL_DIMS when it fits the size, else "auto"), the map,
 * the node of every rank (node-aware algorithms), the MPI transport on a
 * private duplicate of the communicator (its traffic can never match the
 * program's) and the torus_coll context.  It is cached as an attribute, so
 * it dies with the communicator; the ones still alive at MPI_Finalize are
 * freed there.
 */
#include "pmpi_impl.h"
#include "torus_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm__busy;

/* PM_OK once set up and on; PM_WHY_OFF / PM_WHY_THREADS when stepping
 * aside; PM_WHY_ARGS before MPI_Init and after MPI_Finalize. */
static pm_why mode = PM_WHY_ARGS;
static int initialised;
static int keyval = MPI_KEYVAL_INVALID;
static const char *dims_env;
static int world_n;
static pm_comm *world_pc; /* MPI_COMM_WORLD's state: no attribute lookup on the common path */
static pm_comm *live;     /* every state not yet freed */

static void destroy(pm_comm *pc)
{
    if (!pc)
        return;
    if (pc->prev)
        pc->prev->next = pc->next;
    else if (live == pc)
        live = pc->next;
    if (pc->next)
        pc->next->prev = pc->prev;
    if (world_pc == pc)
        world_pc = NULL;
    int was = pm__busy;
    pm__busy = 1; /* the transport frees its communicator: no adapter inside */
    pm__neighbor_free(pc);
    if (pc->c)
        torus_coll_destroy(pc->c);
    if (pc->tm)
        torus_mpi_destroy(pc->tm);
    pm__busy = was;
    torus_map_free(&pc->map);
    free(pc->node_of);
    free(pc->v);
    free(pc->tmp);
    free(pc);
}

/* The attribute's delete callback: the user's communicator is being freed. */
static int delete_state(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    destroy(val);
    return MPI_SUCCESS;
}

/* A bad setting: one line, then the job stops with exit code 2 (usage).
 * collective: every rank found the same bad value at the same point
 * (MPI_Init), so rank 0 alone says it and every rank ends MPI and exits
 * (an abort could kill rank 0 before the launcher has forwarded its line);
 * else the rank that found it says it and aborts the job. */
static void usage_error(const char *msg, int collective)
{
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0 || !collective)
        fprintf(stderr, "torus_pmpi: %s\n", msg);
    if (!collective)
        PMPI_Abort(MPI_COMM_WORLD, 2);
    PMPI_Finalize();
    exit(2);
}

/* Reads and checks the settings.  collective: called from MPI_Init on
 * every rank. */
static void init(int collective)
{
    initialised = 1;
    char msg[700], shown[100];
    const char *on = getenv("TORUS_COLL");
    if (on && *on && strcmp(on, "on") && strcmp(on, "1") && strcmp(on, "off") && strcmp(on, "0")) {
        torus_cli_escape(on, shown, sizeof shown);
        snprintf(msg, sizeof msg, "TORUS_COLL=%s: allowed on, off, 1, 0", shown);
        usage_error(msg, collective);
    }
    pm__timing = getenv("TORUS_COLL_STATS") && !strcmp(getenv("TORUS_COLL_STATS"), "1");
    if (on && (!strcmp(on, "off") || !strcmp(on, "0"))) {
        mode = PM_WHY_OFF;
        return;
    }
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    if (level == MPI_THREAD_MULTIPLE) {
        /* the adapter's state has no locks: let the library serve threads */
        mode = PM_WHY_THREADS;
        return;
    }
    PMPI_Comm_size(MPI_COMM_WORLD, &world_n);
    dims_env = getenv("TORUS_COLL_DIMS");
    if (dims_env && !*dims_env)
        dims_env = NULL;
    if (dims_env) {
        torus_shape s;
        char e[300];
        if (torus_shape_parse(dims_env, world_n, &s, e, sizeof e)) {
            snprintf(msg, sizeof msg, "TORUS_COLL_DIMS: %s", e);
            usage_error(msg, collective);
        }
    }
    /* TORUS_COLL_<OP>=name: the library would reject a bad name at the
     * first call on each communicator; say it once, now */
    static const char *const env[TORUS_COLL_NCOLL] = {"TORUS_COLL_BARRIER", "TORUS_COLL_BCAST", "TORUS_COLL_ALLREDUCE",
                                                      "TORUS_COLL_ALLTOALLV"};
    for (int op = 0; op < TORUS_COLL_NCOLL; op++) {
        const char *v = getenv(env[op]);
        if (!v || !*v || !strcmp(v, "auto"))
            continue;
        int found = 0;
        size_t o = 0;
        char list[400] = "";
        for (const char *const *a = torus_coll_algorithms((torus_coll_op)op); *a; a++) {
            found |= !strcmp(*a, v);
            if (o < sizeof list)
                o += (size_t)snprintf(list + o, sizeof list - o, ", %s", *a);
        }
        if (!found) {
            torus_cli_escape(v, shown, sizeof shown);
            snprintf(msg, sizeof msg, "%s=%s: unknown %s algorithm: allowed auto%s", env[op], shown,
                     torus_coll_op_name((torus_coll_op)op), list);
            usage_error(msg, collective);
        }
    }
    const char *ms = getenv("TORUS_COLL_MULTISEND");
    if (ms && *ms && strcmp(ms, "auto")) {
        int found = 0;
        size_t o = 0;
        char list[200] = "";
        for (const char *const *a = torus_multisend_algorithms(); *a; a++) {
            found |= !strcmp(*a, ms);
            if (o < sizeof list)
                o += (size_t)snprintf(list + o, sizeof list - o, ", %s", *a);
        }
        if (!found) {
            torus_cli_escape(ms, shown, sizeof shown);
            snprintf(msg, sizeof msg, "TORUS_COLL_MULTISEND=%s: unknown multisend algorithm: allowed auto%s", shown, list);
            usage_error(msg, collective);
        }
        pm__ms_algorithm = ms;
    }
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL) != MPI_SUCCESS) {
        mode = PM_WHY_SETUP;
        return;
    }
    mode = PM_OK;
}

void pm__init_collective(void)
{
    if (!initialised)
        init(1);
}

pm_why pm__ready(void)
{
    if (!initialised) {
        /* MPI started without our MPI_Init (e.g. through a Fortran binding) */
        int up = 0, down = 0;
        PMPI_Initialized(&up);
        PMPI_Finalized(&down);
        if (!up || down)
            return PM_WHY_ARGS;
        init(0);
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

/* Builds pc's torus side (collective over pc->comm); 0 or -1 on every rank. */
static int build(pm_comm *pc)
{
    char err[300];
    torus_shape s;
    shape_for(pc->n, &s);
    int ok = torus_map_xyzt(&pc->map, &s) == 0;
    pc->v = malloc(4 * (size_t)pc->n * sizeof *pc->v);
    pc->node_of = malloc((size_t)pc->n * sizeof *pc->node_of);
    ok = ok && pc->v && pc->node_of;
    if (!torus_all_ok(pc->comm, ok))
        return -1;
    torus_node_info ni;
    if (torus_node_discover(pc->comm, &ni))
        return -1;
    PMPI_Allgather(&ni.node, 1, MPI_INT, pc->node_of, 1, MPI_INT, pc->comm);
    torus_node_free(&ni);
    if (torus_mpi_create(&pc->tm, pc->comm, &pc->map, pc->me, 1, 0, err, sizeof err))
        return -1;
    torus_mpi_bind(pc->tm, &pc->tp);
    torus_coll_config cfg = {.map = &pc->map, .me = pc->me, .tp = &pc->tp, .node_of = pc->node_of};
    int rc = torus_coll_create(&pc->c, &cfg, err, sizeof err);
    if (rc && pc->me == 0)
        fprintf(stderr, "torus_pmpi: %s: this communicator's calls go to the MPI library\n", err);
    return torus_all_ok(pc->comm, rc == 0) ? 0 : -1;
}

pm_why pm__comm(MPI_Comm comm, pm_comm **out)
{
    if (comm == MPI_COMM_NULL)
        return PM_WHY_ARGS;
    if (comm == MPI_COMM_WORLD && world_pc) {
        *out = world_pc;
        return world_pc->why;
    }
    void *val = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS)
        return PM_WHY_ARGS;
    if (flag) {
        *out = val;
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
        int was = pm__busy;
        pm__busy = 1;
        if (!torus_all_ok(comm, pc != NULL)) {
            free(pc);
            pm__busy = was;
            return PM_WHY_SETUP;
        }
        pc->comm = comm;
        PMPI_Comm_size(comm, &pc->n);
        PMPI_Comm_rank(comm, &pc->me);
        pc->why = build(pc) ? PM_WHY_SETUP : PM_OK;
        pm__busy = was;
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
    pc->next = live;
    if (live)
        live->prev = pc;
    live = pc;
    PMPI_Comm_set_attr(comm, keyval, pc);
    if (comm == MPI_COMM_WORLD)
        world_pc = pc;
    *out = pc;
    return pc->why;
}

void *pm__scratch(pm_comm *pc, size_t bytes)
{
    if (bytes <= pc->tmp_cap)
        return pc->tmp;
    void *p = realloc(pc->tmp, bytes);
    if (!p)
        return NULL;
    pc->tmp = p;
    pc->tmp_cap = bytes;
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
    /* deleting the attribute runs delete_state, which unlinks the state */
    while (live) {
        pm_comm *pc = live;
        PMPI_Comm_delete_attr(pc->comm, keyval);
        if (live == pc) /* the delete did not reach us: unlink by hand */
            destroy(pc);
    }
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
    mode = PM_WHY_ARGS;
}

pm_why pm__mode(void)
{
    return initialised ? mode : PM_WHY_ARGS;
}
