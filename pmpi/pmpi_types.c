/*
 * pmpi_types.c - what the adapter knows of datatypes and ops: the
 * predefined (named) datatypes in a table, the derived ones decoded once
 * (pmpi_decode.c) and cached as an attribute of the type, and the rule
 * that maps a reduction to one of the torus library's element types.
 *
 * Data movement (bcast, alltoall(v), neighbor_alltoallv) needs no class at
 * all: MPI requires the type signatures of sender and receiver to match,
 * so the byte count (size x count) is the same on both sides whatever
 * handles they passed, and any datatype is intercepted (packed when its
 * bytes are not one run, pmpi_layout.c).  A reduction needs its element
 * type: the signature reduced to (predefined element type, count), the
 * `elem` class.  A contiguous, vector or struct type made of MPI_INTs is
 * int32 x (size / 4), and so is MPI_2INT (its signature is two ints), so
 * ranks that pass different handles of one signature get one class.
 * MAXLOC/MINLOC keep the pairs whole (the `loc` class: MPI_2INT is one
 * 2int); MPI requires a pair type there.  Which MPI handles map to which
 * element type is fixed here by their C type and checked against the
 * size MPI reports, so a library whose sizes differ just falls through.
 *
 * Numeric policy (docs/mpi-adapter.md): every (element type, op) pair MPI
 * defines is combined by the torus library in the type's own arithmetic,
 * in an order the algorithm fixes, the same on every rank and in every
 * run; integer, logical, bitwise, min/max and loc results are the MPI
 * library's bits.  TORUS_COLL_REPRO=library hands floating sums and
 * products (float, double, long double, complex), whose last bits depend
 * on the order of combination, to the MPI library instead (reason
 * "repro").
 */
#include "pmpi_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the named types ----------------------------------------------------- */

/* pm__slots (pmpi_impl.h): used is set (release) after dt and the rest
 * are written, and read (acquire) by lookups that take no lock: under
 * MPI_THREAD_MULTIPLE a thread may add a predefined type the table did not
 * list (pm__named, under pm__lock) while others look types up. */
pm_named pm__slots[PM_NSLOTS];
static int built;
/* Slots in use: at most PM_NSLOTS - 1, so that every probe meets an empty
 * slot and pm__named_fast needs no bound on its loop (written by build and
 * under pm__lock). */
static int nused;

static pm_named *find(MPI_Datatype dt)
{
    for (unsigned i = pm__slot_of(dt), k = 0; k < PM_NSLOTS; k++, i = (i + 1) % PM_NSLOTS) {
        if (!atomic_load_explicit(&pm__slots[i].used, memory_order_acquire))
            return &pm__slots[i];
        if (pm__slots[i].dt == dt)
            return &pm__slots[i];
    }
    return NULL;
}

/* The integer element type of a C type of `size` bytes. */
static int int_class(int is_signed, MPI_Count size)
{
    switch (size) {
    case 1: return is_signed ? TORUS_INT8 : TORUS_UINT8;
    case 2: return is_signed ? TORUS_INT16 : TORUS_UINT16;
    case 4: return is_signed ? TORUS_INT32 : TORUS_UINT32;
    case 8: return is_signed ? TORUS_INT64 : TORUS_UINT64;
    default: return PM_NOKERNEL;
    }
}

/* Reads size, extent and true lower bound (and the true extent); 0, or
 * -1 for a handle MPI rejects. */
int pm__measure(MPI_Datatype dt, pm_type *t, MPI_Aint *true_extent)
{
    MPI_Count size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    if (PMPI_Type_size_x(dt, &size) != MPI_SUCCESS || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS || size < 0)
        return -1;
    t->size = size;
    t->extent = extent;
    t->tlb = tlb;
    *true_extent = textent;
    return 0;
}

/* Adds a named type: elem and loc classes, each kept only where MPI's
 * size for the handle is the torus type's (elem: one or two elements). */
static void add(MPI_Datatype dt, int elem, int loc)
{
    if (dt == MPI_DATATYPE_NULL)
        return;
    pm_named *s = find(dt);
    /* full, or an alias (MPI_LONG_LONG is MPI_LONG_LONG_INT) */
    if (!s || atomic_load_explicit(&s->used, memory_order_relaxed) || nused >= PM_NSLOTS - 1)
        return;
    pm_type t;
    MPI_Aint textent = 0;
    if (pm__measure(dt, &t, &textent) || t.size <= 0)
        return;
    /* a named type is one run unless it has holes (MPI_SHORT_INT: 2 + 2 + 4) */
    t.one_run = t.size == textent;
    size_t es = elem >= 0 ? torus_dtype_size((torus_dtype)elem) : 0;
    t.elem = es && ((size_t)t.size == es || (size_t)t.size == 2 * es) ? elem : PM_NOKERNEL;
    t.loc = loc >= 0 && (size_t)t.size == torus_dtype_size((torus_dtype)loc) ? loc : t.elem;
    /* the ops an allreduce of this type hands to the library as it is,
     * one element per instance (MPI_Allreduce's fast path): the class
     * pm__reduction finds, defined for op, of a type the library takes
     * (pm__library_type); TORUS_COLL_REPRO is tested per call */
    s->lib_ops = 0;
    s->lib_dt = MPI_DATATYPE_NULL;
    for (int op = 0; op < TORUS_NOPS; op++) {
        int cls = op == TORUS_OP_MAXLOC || op == TORUS_OP_MINLOC ? t.loc : t.elem;
        if (cls < 0 || (size_t)t.size != torus_dtype_size((torus_dtype)cls) ||
            !torus_coll_reduce_defined((torus_dtype)cls, (torus_op)op))
            continue;
        MPI_Datatype lib = pm__library_type((torus_dtype)cls, (torus_op)op);
        if (lib == MPI_DATATYPE_NULL || (s->lib_ops && lib != s->lib_dt))
            continue;
        s->lib_dt = lib;
        s->lib_ops |= 1u << op;
    }
    s->dt = dt;
    s->t = t;
    nused++;
    atomic_store_explicit(&s->used, 1, memory_order_release);
}

/* The same class for both. */
static void add1(MPI_Datatype dt, int cls)
{
    add(dt, cls, cls);
}

static void build(void)
{
    built = 1;
    /* C integers, by their C size */
    add1(MPI_INT, int_class(1, sizeof(int)));
    add1(MPI_UNSIGNED, int_class(0, sizeof(unsigned)));
    add1(MPI_LONG, int_class(1, sizeof(long)));
    add1(MPI_UNSIGNED_LONG, int_class(0, sizeof(unsigned long)));
    add1(MPI_LONG_LONG_INT, int_class(1, sizeof(long long)));
    add1(MPI_LONG_LONG, int_class(1, sizeof(long long)));
    add1(MPI_UNSIGNED_LONG_LONG, int_class(0, sizeof(unsigned long long)));
    add1(MPI_SHORT, int_class(1, sizeof(short)));
    add1(MPI_UNSIGNED_SHORT, int_class(0, sizeof(unsigned short)));
    add1(MPI_SIGNED_CHAR, TORUS_INT8);
    add1(MPI_UNSIGNED_CHAR, TORUS_UINT8);
    add1(MPI_INT8_T, TORUS_INT8);
    add1(MPI_INT16_T, TORUS_INT16);
    add1(MPI_INT32_T, TORUS_INT32);
    add1(MPI_INT64_T, TORUS_INT64);
    add1(MPI_UINT8_T, TORUS_UINT8);
    add1(MPI_UINT16_T, TORUS_UINT16);
    add1(MPI_UINT32_T, TORUS_UINT32);
    add1(MPI_UINT64_T, TORUS_UINT64);
    add1(MPI_AINT, int_class(1, sizeof(MPI_Aint)));
    add1(MPI_OFFSET, int_class(1, sizeof(MPI_Offset)));
    add1(MPI_COUNT, int_class(1, sizeof(MPI_Count)));
    /* floating, complex, logical, bytes */
    add1(MPI_FLOAT, TORUS_FLOAT);
    add1(MPI_DOUBLE, TORUS_DOUBLE);
    add1(MPI_LONG_DOUBLE, TORUS_LONG_DOUBLE);
    add1(MPI_C_FLOAT_COMPLEX, TORUS_FLOAT_COMPLEX);
    add1(MPI_C_DOUBLE_COMPLEX, TORUS_DOUBLE_COMPLEX);
    add1(MPI_C_LONG_DOUBLE_COMPLEX, TORUS_LONG_DOUBLE_COMPLEX);
    add1(MPI_C_BOOL, TORUS_BOOL);
    add1(MPI_BYTE, TORUS_BYTE);
    /* no reduction is defined on these; their bytes move all the same */
    add1(MPI_CHAR, PM_NOKERNEL);
    add1(MPI_WCHAR, PM_NOKERNEL);
    add1(MPI_PACKED, PM_NOKERNEL);
    /* the pairs: two ints are int32 x 2 for every op but MAXLOC/MINLOC */
    add(MPI_FLOAT_INT, PM_NOKERNEL, TORUS_FLOAT_INT);
    add(MPI_DOUBLE_INT, PM_NOKERNEL, TORUS_DOUBLE_INT);
    add(MPI_LONG_INT, PM_NOKERNEL, sizeof(long) == 8 ? TORUS_LONG_INT : PM_NOKERNEL);
    add(MPI_2INT, TORUS_INT32, TORUS_2INT);
    add(MPI_SHORT_INT, PM_NOKERNEL, TORUS_SHORT_INT);
    add(MPI_LONG_DOUBLE_INT, PM_NOKERNEL, TORUS_LONG_DOUBLE_INT);
    /* Fortran's, by the sizes gfortran gives them (checked against MPI's);
     * LOGICAL's true value is the compiler's, not C's 1: no kernel */
    add1(MPI_INTEGER, TORUS_INT32);
    add1(MPI_REAL, TORUS_FLOAT);
    add1(MPI_DOUBLE_PRECISION, TORUS_DOUBLE);
    add1(MPI_COMPLEX, TORUS_FLOAT_COMPLEX);
    add1(MPI_DOUBLE_COMPLEX, TORUS_DOUBLE_COMPLEX);
    add1(MPI_LOGICAL, PM_NOKERNEL);
    add1(MPI_CHARACTER, PM_NOKERNEL);
    add(MPI_2INTEGER, TORUS_INT32, TORUS_2INT);
    add(MPI_2REAL, TORUS_FLOAT, TORUS_2FLOAT);
    add(MPI_2DOUBLE_PRECISION, TORUS_DOUBLE, TORUS_2DOUBLE);
#ifdef MPI_INTEGER1
    add1(MPI_INTEGER1, TORUS_INT8);
#endif
#ifdef MPI_INTEGER2
    add1(MPI_INTEGER2, TORUS_INT16);
#endif
#ifdef MPI_INTEGER4
    add1(MPI_INTEGER4, TORUS_INT32);
#endif
#ifdef MPI_INTEGER8
    add1(MPI_INTEGER8, TORUS_INT64);
#endif
#ifdef MPI_REAL4
    add1(MPI_REAL4, TORUS_FLOAT);
#endif
#ifdef MPI_REAL8
    add1(MPI_REAL8, TORUS_DOUBLE);
#endif
#ifdef MPI_COMPLEX8
    add1(MPI_COMPLEX8, TORUS_FLOAT_COMPLEX);
#endif
#ifdef MPI_COMPLEX16
    add1(MPI_COMPLEX16, TORUS_DOUBLE_COMPLEX);
#endif
#ifdef MPI_CXX_BOOL
    add1(MPI_CXX_BOOL, sizeof(_Bool) == 1 ? TORUS_BOOL : PM_NOKERNEL);
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    add1(MPI_CXX_FLOAT_COMPLEX, TORUS_FLOAT_COMPLEX);
    add1(MPI_CXX_DOUBLE_COMPLEX, TORUS_DOUBLE_COMPLEX);
    add1(MPI_CXX_LONG_DOUBLE_COMPLEX, TORUS_LONG_DOUBLE_COMPLEX);
#endif
}

const pm_type *pm__named(MPI_Datatype dt)
{
    const pm_named *f = pm__named_fast(dt);
    if (f)
        return &f->t;
    if (!built)
        build();
    pm_named *s = find(dt);
    if (s && atomic_load_explicit(&s->used, memory_order_acquire))
        return &s->t;
    /* a predefined type not listed (MPI_REAL16, MPI_CXX_...): bytes only */
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS || combiner != MPI_COMBINER_NAMED)
        return NULL;
    int locked = pm__lock(); /* one writer at a time; add() skips a type another thread added */
    add1(dt, PM_NOKERNEL);
    pm__unlock(locked);
    s = find(dt);
    if (s && atomic_load_explicit(&s->used, memory_order_acquire))
        return &s->t;
    /* the table is full (never with MPI's ~70 named types): describe it in
     * a slot of its own (this thread's), without keeping it */
    static _Thread_local pm_type spare PM_TLS;
    MPI_Aint textent;
    if (pm__measure(dt, &spare, &textent))
        return NULL;
    spare.one_run = 0; /* packed: always right */
    spare.elem = spare.loc = PM_NOKERNEL;
    return &spare;
}

/* ---- derived types: decoded once, cached on the type ----------------------- */

/* Every description still attached to a type, freed at MPI_Finalize. */
typedef struct cached {
    pm_type t;
    struct cached *prev, *next;
} cached;

static cached *alive;
static int type_key = MPI_KEYVAL_INVALID;
static int finalized;

static void unlink_cached(cached *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        alive = c->next;
    if (c->next)
        c->next->prev = c->prev;
}

/* The type is being freed: so is its description (after MPI_Finalize the
 * descriptions are gone already; a library that frees its types there
 * finds nothing to do). */
static int delete_desc(MPI_Datatype dt, int key, void *val, void *extra)
{
    (void)dt, (void)key, (void)extra;
    int locked = pm__lock();
    if (!finalized && val) {
        unlink_cached(val);
        free(val);
    }
    pm__unlock(locked);
    return MPI_SUCCESS;
}

/* A private copy of MPI_COMM_SELF that returns errors: the library's own
 * check of a datatype (library_takes) must not call the program's error
 * handler, nor abort. */
static MPI_Comm check_comm = MPI_COMM_NULL;

/* Whether the MPI library takes dt in a call (committed, valid): it is
 * asked with a send of one element to MPI_PROC_NULL, which checks its
 * arguments as every call does and moves nothing.  A type it refuses goes
 * to the library's own collective, which returns the library's error
 * through the communicator's handler (issue 33, class 2); never cached, so
 * a type committed later is taken then. */
static int library_takes(MPI_Datatype dt)
{
    if (check_comm == MPI_COMM_NULL)
        return 1; /* no way to ask: as before */
    char dummy[16];
    MPI_Request r;
    if (PMPI_Isend(dummy, 1, dt, MPI_PROC_NULL, 0, check_comm, &r) != MPI_SUCCESS)
        return 0;
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
    return 1;
}

int pm__types_init(void)
{
    if (!built)
        build();
    finalized = 0;
    if (check_comm == MPI_COMM_NULL && PMPI_Comm_dup(MPI_COMM_SELF, &check_comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(check_comm, MPI_ERRORS_RETURN);
    /* MPI_Type_dup does not copy the description: the dup is decoded at its first use */
    return PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_desc, &type_key, NULL) == MPI_SUCCESS ? 0 : -1;
}

void pm__types_free(void)
{
    finalized = 1;
    while (alive) {
        cached *c = alive;
        unlink_cached(c);
        free(c);
    }
    if (type_key != MPI_KEYVAL_INVALID)
        PMPI_Type_free_keyval(&type_key);
    if (check_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&check_comm);
}

/* dt's description when another thread attached it meanwhile, else NULL. */
static const pm_type *described(MPI_Datatype dt)
{
    void *val = NULL;
    int flag = 0;
    if (type_key != MPI_KEYVAL_INVALID && PMPI_Type_get_attr(dt, type_key, &val, &flag) == MPI_SUCCESS && flag)
        return &((cached *)val)->t;
    return NULL;
}

/* Decodes dt and attaches the description (the caller holds pm__lock
 * under threads); NULL when the library refuses dt. */
static const pm_type *describe_new(MPI_Datatype dt)
{
    if (!library_takes(dt))
        return NULL;
    cached *c = malloc(sizeof *c);
    if (!c) {
        /* every rank is inside the same collective: it cannot fall through alone */
        fprintf(stderr, "torus_pmpi: out of memory describing a datatype\n");
        PMPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
        return NULL;
    }
    pm__decode(dt, &c->t);
    c->prev = NULL;
    c->next = alive;
    if (alive)
        alive->prev = c;
    alive = c;
    /* a type MPI will not attach attributes to stays on the list, freed at
     * MPI_Finalize, and is decoded again at its next use */
    if (type_key != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(dt, type_key, c);
    return &c->t;
}

const pm_type *pm__type(MPI_Datatype dt)
{
    if (dt == MPI_DATATYPE_NULL)
        return NULL;
    const pm_type *t = pm__named(dt);
    if (!t)
        t = described(dt);
    if (t)
        return t;
    /* threads may share a datatype: one decodes it while the others wait,
     * then find its description (two attaching theirs would free the
     * first one's under the thread still reading it) */
    int locked = pm__lock();
    t = locked ? described(dt) : NULL;
    if (!t)
        t = describe_new(dt);
    pm__unlock(locked);
    return t;
}

/* ---- ops and the reduction rule ------------------------------------------- */

pm_why pm__op(MPI_Op op, torus_op *top)
{
    int k = pm__op_of(op);
    if (k >= 0) {
        *top = (torus_op)k;
        return PM_OK;
    }
    if (op == MPI_OP_NULL)
        return PM_WHY_ARGS;
    if (op == MPI_REPLACE || op == MPI_NO_OP) /* one-sided only */
        return PM_WHY_TYPE_OP;
    return PM_WHY_USER_OP;
}

static int floating(int cls)
{
    return cls == TORUS_FLOAT || cls == TORUS_DOUBLE || cls == TORUS_LONG_DOUBLE || cls == TORUS_FLOAT_COMPLEX ||
           cls == TORUS_DOUBLE_COMPLEX || cls == TORUS_LONG_DOUBLE_COMPLEX;
}

pm_why pm__reduction(const pm_type *t, torus_op op, torus_dtype *dt)
{
    int cls = op == TORUS_OP_MAXLOC || op == TORUS_OP_MINLOC ? t->loc : t->elem;
    if (cls < 0)
        return PM_WHY_DATATYPE;
    if (!torus_coll_reduce_defined((torus_dtype)cls, op))
        return PM_WHY_TYPE_OP;
    if (pm__settings()->repro_library && (op == TORUS_OP_SUM || op == TORUS_OP_PROD) && floating(cls))
        return PM_WHY_REPRO;
    *dt = (torus_dtype)cls;
    return PM_OK;
}
