/* fuzz_coll_table.c - the selection-table reader (TORUS_COLL_TABLE,
 * collbench --tune's file, torus/coll/select.table) on arbitrary bytes: a
 * bad file is one line; a good one writes out and reads back to the same
 * table, every row's note included. */
#include "fuzz.h"
#include "torus_coll.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    torus_coll_table *t = NULL;
    char err[1024] = "";
    int rc = torus_coll_table_stream(&t, f, "input", err, sizeof err);
    fclose(f);
    if (rc) {
        fuzz_one_line(err);
        return 0;
    }
    /* the written form reads back to the same rows */
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    if (!w) {
        torus_coll_table_free(t);
        return 0;
    }
    torus_coll_table_write(t, w);
    fclose(w);
    FILE *r = fmemopen(buf, len, "r");
    torus_coll_table *t2 = NULL;
    if (!r || torus_coll_table_stream(&t2, r, "written", err, sizeof err) ||
        torus_coll_table_hash(t2) != torus_coll_table_hash(t) ||
        torus_coll_table_rows(t2) != torus_coll_table_rows(t)) {
        fprintf(stderr, "fuzz: the written table did not read back: %s\n", err);
        abort();
    }
    for (int i = 0; i < torus_coll_table_rows(t); i++)
        if (strcmp(torus_coll_table_note(t, i), torus_coll_table_note(t2, i))) {
            fprintf(stderr, "fuzz: row %d's note did not read back\n", i);
            abort();
        }
    fclose(r);
    free(buf);
    torus_coll_table_free(t);
    torus_coll_table_free(t2);
    return 0;
}
