/*
 * host.c - /proc/cpuinfo's fields (kit_host.h).  The first processor's
 * line is taken: the figures the kit records are per machine, and a
 * machine whose cores differ (big.LITTLE) is named by its first.
 */
#include "kit_host.h"

#include <stdio.h>
#include <string.h>

int kit_cpuinfo(const char *key, char *out, size_t len)
{
    if (len)
        out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[512];
    size_t k = strlen(key);
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon || strncmp(line, key, k) || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\r\n");
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (len)
            snprintf(out, len, "%.*s", (int)n, v);
        rc = 0;
        break;
    }
    fclose(f);
    return rc;
}
