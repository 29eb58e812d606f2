/*
 * ra_papi.c - PAPI counters, or a clear reason why there are none.
 *
 * Events are added one at a time so that a CPU which lacks one (or cannot
 * count it together with the others) still gives the rest; the first reason
 * an event is left out is kept for the one notice line the driver prints.
 */
#include "ra_papi.h"
#include "kit_cli.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int ra_papi_parse(ra_papi *p, const char *events, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    char buf[RA_PAPI_MAX * 48 + RA_PAPI_MAX];
    const char *src = events && *events ? events : RA_PAPI_DEFAULT;
    if (strlen(src) >= sizeof buf) {
        char allowed[96];
        snprintf(allowed, sizeof allowed, "at most %d comma-separated event names", RA_PAPI_MAX);
        kit_cli_bad_value(err, errlen, "papi", src, allowed);
        return -1;
    }
    strcpy(buf, src);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t len = strlen(tok);
        int okname = len > 0 && len < sizeof p->names[0];
        for (size_t i = 0; okname && i < len; i++)
            if (!isalnum((unsigned char)tok[i]) && !strchr("_:.=-", tok[i]))
                okname = 0;
        if (!okname) {
            /* Name the one bad event, not the whole list. */
            kit_cli_bad_value(err, errlen, "papi", tok, "PAPI event names like PAPI_TOT_CYC, comma-separated");
            return -1;
        }
        if (p->n == RA_PAPI_MAX) {
            char allowed[64];
            snprintf(allowed, sizeof allowed, "at most %d events", RA_PAPI_MAX);
            kit_cli_bad_value(err, errlen, "papi", src, allowed);
            return -1;
        }
        strcpy(p->names[p->n++], tok);
    }
    if (!p->n) {
        kit_cli_bad_value(err, errlen, "papi", src, "a comma list like " RA_PAPI_DEFAULT);
        return -1;
    }
    return 0;
}

#ifdef HAVE_PAPI
#include <papi.h>
#include <stdarg.h>

int ra_papi_built_in(void) { return 1; }

/* Keeps the first reason only: it is the one that explains the rest. */
__attribute__((format(printf, 2, 3))) static void why(ra_papi *p, const char *fmt, ...)
{
    if (p->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
}

unsigned ra_papi_open(ra_papi *p, unsigned want)
{
    p->counting = 0;
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            why(p, "PAPI_library_init failed: %s", v > 0 ? "library version mismatch" : PAPI_strerror(v));
            return 0;
        }
    }
    p->eventset = PAPI_NULL;
    int rc = PAPI_create_eventset(&p->eventset);
    if (rc != PAPI_OK) {
        why(p, "PAPI_create_eventset failed: %s", PAPI_strerror(rc));
        return 0;
    }
    p->opened = 1;
    for (int i = 0; i < p->n; i++) {
        if (!(want & (1u << i)))
            continue;
        int code;
        char name[48];
        strcpy(name, p->names[i]);
        rc = PAPI_event_name_to_code(name, &code);
        if (rc != PAPI_OK) {
            why(p, "event %s is not known to PAPI here (%s)", name, PAPI_strerror(rc));
            continue;
        }
        rc = PAPI_add_event(p->eventset, code);
        if (rc != PAPI_OK) {
            /* The usual case in VMs: the CPU component is disabled; say what
             * PAPI says about it, which names the real cause. */
            const PAPI_component_info_t *ci = PAPI_get_component_info(0);
            if (ci && ci->disabled && ci->disabled_reason[0])
                why(p, "%s (%s)", PAPI_strerror(rc), ci->disabled_reason);
            else
                why(p, "event %s cannot be counted: %s", name, PAPI_strerror(rc));
            continue;
        }
        p->counting |= 1u << i;
    }
    if (!p->counting)
        ra_papi_close(p);
    return p->counting;
}

void ra_papi_close(ra_papi *p)
{
    if (p->opened) {
        PAPI_cleanup_eventset(p->eventset);
        PAPI_destroy_eventset(&p->eventset);
    }
    p->opened = 0;
    p->counting = 0;
}

void ra_papi_start(ra_papi *p)
{
    if (p->counting && PAPI_start(p->eventset) != PAPI_OK)
        ra_papi_close(p); /* counts of this run become 0, never a failure */
}

void ra_papi_stop(ra_papi *p, uint64_t counts[RA_PAPI_MAX])
{
    long long v[RA_PAPI_MAX] = {0};
    memset(counts, 0, RA_PAPI_MAX * sizeof *counts);
    if (!p->counting || PAPI_stop(p->eventset, v) != PAPI_OK)
        return;
    /* PAPI returns values in the order events were added: the set bits. */
    for (int i = 0, j = 0; i < p->n; i++)
        if (p->counting & (1u << i)) {
            long long x = v[j++];
            counts[i] = x > 0 ? (uint64_t)x : 0;
        }
}

#else /* no PAPI in this build */

int ra_papi_built_in(void) { return 0; }

unsigned ra_papi_open(ra_papi *p, unsigned want)
{
    (void)want;
    snprintf(p->why, sizeof p->why, "this build has no PAPI support (install libpapi-dev, then rebuild with make)");
    p->counting = 0;
    return 0;
}

void ra_papi_close(ra_papi *p) { p->counting = 0; }
void ra_papi_start(ra_papi *p) { (void)p; }
void ra_papi_stop(ra_papi *p, uint64_t counts[RA_PAPI_MAX])
{
    (void)p;
    memset(counts, 0, RA_PAPI_MAX * sizeof *counts);
}

#endif
