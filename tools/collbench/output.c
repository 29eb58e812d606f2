/* output.c - collbench's results: the tables on stdout, the preamble,
 * the skipped rows' notices, and --csv/--json written atomically. */
#include "collbench.h"

int cb_add_row(run_info *ri, const row *r)
{
    if (ri->nrows == ri->caprows) {
        int n = ri->caprows ? 2 * ri->caprows : 64;
        row *nr = realloc(ri->rows, (size_t)n * sizeof *nr);
        if (!nr)
            return -1;
        ri->rows = nr;
        ri->caprows = n;
    }
    ri->rows[ri->nrows++] = *r;
    return 0;
}

/* Bytes a rank moves per call, for MB/s: the message or vector, and for
 * alltoall(v) its blocks to the other ranks. */
double cb_payload(int kind, size_t bytes, int n)
{
    if (kind == K_BARRIER)
        return 0;
    return is_a2a(kind) ? (double)bytes * (n - 1) : (double)bytes;
}

/* v with `prec` decimals, "-" for none (negative) */
void cb_fmt_num(char *buf, size_t len, double v, int prec)
{
    if (v < 0 || !isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, v);
}

void cb_print_header(int kind)
{
    printf("# op: %s\n", cb_kind_name[kind]);
    printf("#%9s  %-28s %10s %10s %10s %10s %10s %12s\n", "size", "algorithm", "min_us", "avg_us", "max_us", "MB/s",
           "pred_us", "ratio_vs_mpi");
}

/* A row's algorithm column: "auto(what it ran)" for auto rows. */
void cb_row_label(const row *r, char *label, size_t len)
{
    if (!strcmp(r->alg, "auto") && r->chosen[0])
        snprintf(label, len, "auto(%s)", r->chosen);
    else
        snprintf(label, len, "%s", r->alg);
}

void cb_print_row(const row *r)
{
    char label[100], mbs[32], pred[32], ratio[32];
    cb_row_label(r, label, sizeof label);
    cb_fmt_num(mbs, sizeof mbs, r->mbs, 2);
    cb_fmt_num(pred, sizeof pred, r->pred_us, 2);
    cb_fmt_num(ratio, sizeof ratio, r->ratio, 3);
    printf("%10zu  %-28s %10.2f %10.2f %10.2f %10s %10s %12s\n", r->size, label, r->min_us, r->avg_us, r->max_us, mbs,
           pred, ratio);
}

/* ---- result files: replaced atomically, every write checked ----------------- */

/* A stream whose every write is checked: the first failure is kept. */
typedef struct writer {
    FILE *f;
    int err; /* errno of the first failed write, 0 none */
} writer;

static void wput(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wput(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int rc = vfprintf(w->f, fmt, ap);
    va_end(ap);
    if (rc < 0 && !w->err)
        w->err = errno ? errno : EIO;
}

/* The file a write to path lands in: a symbolic link's target (so the
 * rename replaces the file and keeps the link), else path. */
/* kit_outfile's error line ("cannot write 'PATH': REASON") with the
 * option named: "cannot write --csv 'PATH': REASON". */
static int file_fail(char *err, size_t errlen, const char *opt, const char *line)
{
    static const char head[] = "cannot write ";
    if (!strncmp(line, head, sizeof head - 1))
        snprintf(err, errlen, "%s--%s %s", head, opt, line + sizeof head - 1);
    else
        snprintf(err, errlen, "--%s: %s", opt, line);
    return -1;
}

/* Before the run: will writing path work (kit_outfile_probe)? */
int cb_probe_file(const char *opt, const char *path, char *err, size_t errlen)
{
    char e2[512];
    return kit_outfile_probe(path, e2, sizeof e2) ? file_fail(err, errlen, opt, e2) : 0;
}

/* Writes path through emit with kit_outfile: a temporary in the same
 * folder, every write checked, fsync, close, rename over path (a device
 * or pipe such as /dev/stdout is written in place with the same checks),
 * so a full disk or a crash never leaves half a file.  0, or -1 with one
 * line in err (the old file intact). */
static int write_file(const char *opt, const char *path, void (*emit)(writer *, const run_info *),
                      const run_info *ri, char *err, size_t errlen)
{
    kit_outfile of;
    char e2[512];
    if (kit_outfile_open(&of, path, 0, e2, sizeof e2))
        return file_fail(err, errlen, opt, e2);
    writer w = {of.f, 0};
    emit(&w, ri);
    if (w.err) {
        kit_outfile_discard(&of);
        char esc[300];
        kit_cli_escape(path, esc, sizeof esc);
        snprintf(e2, sizeof e2, "cannot write '%s': %s", esc, strerror(w.err));
        return file_fail(err, errlen, opt, e2);
    }
    if (kit_outfile_commit(&of, e2, sizeof e2))
        return file_fail(err, errlen, opt, e2);
    return 0;
}

/* ",v", or "," alone for none (negative) */
static void csv_num(writer *w, double v)
{
    if (v < 0 || !isfinite(v))
        wput(w, ",");
    else
        wput(w, ",%.4f", v);
}

static void emit_csv(writer *w, const run_info *ri)
{
    /* the multisend patterns' columns only when they ran: a collectives
     * CSV keeps the columns plot_coll.sh and older files have */
    int pats = 0;
    for (int i = 0; i < ri->nrows; i++)
        pats |= ri->rows[i].kind >= NKINDS;
    wput(w, "op,size,algorithm,chosen,ranks,shape,mode,host,iters,warmup,min_us,avg_us,max_us,mb_s,pred_us,"
            "ratio_vs_mpi%s\n", pats ? ",setup_us,bound_us,ratio_vs_bound,breakeven_calls" : "");
    for (int i = 0; i < ri->nrows; i++) {
        const row *r = &ri->rows[i];
        wput(w, "%s,%zu,%s,%s,%d,%s,%s,%s,%d,%d,%.4f,%.4f,%.4f", op_label(r->kind), r->size, r->alg, r->chosen,
             ri->ranks, ri->shape, ri->mode, ri->host, r->iters, r->warmup, r->min_us, r->avg_us, r->max_us);
        csv_num(w, r->mbs);
        csv_num(w, r->pred_us);
        csv_num(w, r->ratio);
        if (pats) {
            int pat = r->kind >= NKINDS;
            csv_num(w, pat ? r->setup_us : -1);
            csv_num(w, pat ? r->bound_us : -1);
            csv_num(w, pat ? r->ratio_bound : -1);
            csv_num(w, pat ? r->breakeven : -1);
        }
        wput(w, "\n");
    }
}

static void json_str(writer *w, const char *s)
{
    errno = 0;
    if (kit_json_string(w->f, s) < 0 && !w->err)
        w->err = errno ? errno : EIO;
}

static void json_num(writer *w, const char *key, double v)
{
    if (v < 0 || !isfinite(v))
        wput(w, ", \"%s\": null", key);
    else
        wput(w, ", \"%s\": %.6g", key, v);
}

static void emit_json(writer *w, const run_info *ri)
{
    wput(w, "{\"tool\": \"collbench\", \"version\": \"%s\", \"mode\": ", HPCC_RA_VERSION);
    json_str(w, ri->mode);
    wput(w, ", \"ranks\": %d, \"nodes\": %d, \"ranks_per_node\": %d, \"nodes_source\": ", ri->ranks, ri->nodes,
         ri->per_node);
    json_str(w, ri->node_source ? ri->node_source : "simulated");
    wput(w, ", \"rounds\": %d, \"shape\": ", ri->rounds);
    json_str(w, ri->shape);
    wput(w, ", \"shape_source\": ");
    json_str(w, ri->shape_src);
    wput(w, ", \"iters_per_size\": %d, \"iters_above_64k\": %d, \"warmup_per_size\": %d, \"warmup_above_64k\": %d",
         ri->iters, ri->iters_big, ri->warmup, ri->warmup_big);
    wput(w, ", \"host\": ");
    json_str(w, ri->host);
    wput(w, ", \"mpi_library\": ");
    json_str(w, ri->mpi);
    wput(w, ", \"date\": ");
    json_str(w, ri->date);
    wput(w, ",\n \"calibration\": {\"alpha_s\": %.6g, \"beta_s_per_byte\": %.6g, \"gamma_s_per_byte\": %.6g, \"how\": ",
         ri->alpha, ri->beta, ri->gamma);
    json_str(w, ri->calib);
    wput(w, "},\n \"validation\": {\"checks\": %d, \"failures\": %d},\n \"algorithms\": {", ri->checks, ri->failures);
    /* the registry, as the preamble's "# algorithms:" line lists it */
    for (int op = 0; op < TORUS_COLL_NCOLL; op++) {
        wput(w, "%s\"%s\": [", op ? ", " : "", torus_coll_op_name((torus_coll_op)op));
        const char *const *a = torus_coll_algorithms((torus_coll_op)op);
        for (int i = 0; a[i]; i++)
            wput(w, "%s\"%s\"", i ? ", " : "", a[i]);
        wput(w, "]");
    }
    wput(w, ", \"multisend\": [");
    const char *const *m = torus_multisend_algorithms();
    for (int i = 0; m[i]; i++)
        wput(w, "%s\"%s\"", i ? ", " : "", m[i]);
    wput(w, "]},\n \"rows\": [");
    for (int i = 0; i < ri->nrows; i++) {
        const row *r = &ri->rows[i];
        wput(w, "%s\n  {\"op\": \"%s\", \"size\": %zu, \"algorithm\": ", i ? "," : "", op_label(r->kind), r->size);
        json_str(w, r->alg);
        wput(w, ", \"chosen\": ");
        json_str(w, r->chosen);
        wput(w, ", \"iters\": %d, \"warmup\": %d, \"min_us\": %.6g, \"avg_us\": %.6g, \"max_us\": %.6g", r->iters,
             r->warmup, r->min_us, r->avg_us, r->max_us);
        json_num(w, "mb_s", r->mbs);
        json_num(w, "pred_us", r->pred_us);
        json_num(w, "ratio_vs_mpi", r->ratio);
        if (r->kind >= NKINDS) {
            json_num(w, "setup_us", r->setup_us);
            json_num(w, "bound_us", r->bound_us);
            json_num(w, "ratio_vs_bound", r->ratio_bound);
            json_num(w, "breakeven_calls", r->breakeven);
        }
        wput(w, "}");
    }
    wput(w, "\n ]}\n");
}

/* Writes --csv and --json (rank 0).  0, or the exit code with err set. */
int cb_write_results(const opts *o, const run_info *ri, char *err, size_t errlen)
{
    if (o->csv && write_file("csv", o->csv, emit_csv, ri, err, errlen))
        return KIT_EXIT_RESOURCE;
    if (o->json && write_file("json", o->json, emit_json, ri, err, errlen))
        return KIT_EXIT_RESOURCE;
    return 0;
}

/* ---- the preamble ----------------------------------------------------------- */

void cb_mpi_library(char *lib)
{
    kit_mpi_library(lib);
    /* one field of the table and the CSV: MPICH's tab becomes a blank */
    for (char *c = lib; *c; c++)
        if (*c == '\t')
            *c = ' ';
}

void cb_now_string(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tmv;
    if (!localtime_r(&t, &tmv) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tmv))
        snprintf(buf, len, "unknown");
}

void cb_print_preamble(const opts *o, const run_info *ri, const char *timer)
{
    printf("# collbench (hpcc-ra) %s: torus/coll collectives against the MPI library's own, OSU-style\n",
           HPCC_RA_VERSION);
    if (o->simulate)
        printf("# ranks: %d simulated (one process), bgl link model\n", ri->ranks);
    else
        printf("# ranks: %d on %d node(s), %d per node%s\n", ri->ranks, ri->nodes, ri->per_node, ri->node_note);
    printf("# shape: %s (%s), XYZT placement\n", ri->shape, ri->shape_src);
    printf("# MPI: %s%s\n", ri->mpi, o->simulate ? " (no MPI collective runs in --simulate)" : "");
    printf("# date: %s\n", ri->date);
    printf("# iters: %ld per size (%ld above 64 KiB), warmup: %ld (%ld above 64 KiB), rounds: %ld\n", o->iters,
           (o->iters + 4) / 5, o->warmup, (o->warmup + 4) / 5, o->rounds);
    printf("# timer: %s; min/avg/max over ranks of each rank's time per call (%s)\n", timer,
           o->rounds > 1 ? "the median of its round means; the rounds visit the algorithms in turn" : "its mean");
    printf("# calibration: alpha %.4g s, beta %.4g s/byte, gamma %.4g s/byte (%s)\n", ri->alpha, ri->beta, ri->gamma,
           ri->calib);
    printf("# data: bcast from root 0; allreduce: doubles, sum; alltoall(v): size = bytes per pair; MB/s = bytes "
           "per rank / avg_us (alltoall(v): size x (ranks - 1)); auto(X): the table chose X; pred_us: "
           "torus_coll_predict of the algorithm that ran\n");
    cb_print_registry("# algorithms:");
    if (o->pats[0] || o->pats[1] || o->pats[2])
        printf("\n# multisend patterns: mpi = MPI_Neighbor_alltoallv; %s; time per call = all steps "
               "(transpose: rows then columns); setup_us: avg over ranks of one set-up (plans, or the graph "
               "communicators%s)",
               MPI_VERSION >= 4 ? "mpi_init = MPI_Neighbor_alltoallv_init + MPI_Start/MPI_Wait (MPI-4)"
                                : "mpi_init not run: this MPI library is MPI-3 (no MPI_Neighbor_alltoallv_init)",
               MPI_VERSION >= 4 ? " and persistent requests" : "");
    printf("\n# validation: %s%s%s\n", o->validate ? "on (every result against the MPI library's own)" : "off",
           ri->validation_note ? "; " : "", ri->validation_note ? ri->validation_note : "");
    kit_stdout_flush();
}


void cb_skip_cannot(skips *sk, int a, size_t bytes)
{
    char *l = sk->cannot[a];
    size_t len = strlen(l);
    if (len + 24 < sizeof sk->cannot[a])
        snprintf(l + len, sizeof sk->cannot[a] - len, "%s%zu", len ? ", " : "", bytes);
    else if (!strstr(l, "..."))
        snprintf(l + len, sizeof sk->cannot[a] - len, ", ...");
}

void cb_skip_fell_back(skips *sk, int a, int print, int kind, const char *name, const char *ran, size_t bytes)
{
    sk->fell_back[a] = bytes ? bytes : 1;
    if (print)
        fprintf(stderr, "collbench: notice: %s algorithm '%s' fell back to '%s' at %zu bytes (its precondition fails "
                        "for this call): its rows from %zu bytes on are left out\n",
                cb_kind_name[kind], name, ran, bytes, bytes);
}

void cb_print_skips(int kind, const char *const *algs, int nalg, const skips *sk)
{
    for (int a = 0; a < nalg && a < MAX_ALGS; a++)
        if (sk->cannot[a][0])
            fprintf(stderr, "collbench: notice: %s algorithm '%s' cannot run on this shape at %s bytes: those rows "
                            "are left out\n",
                    cb_kind_name[kind], algs[a], sk->cannot[a]);
}
