/*
 * mem.c - this machine's memory as the kernel reports it (kit_mem.h):
 * /proc/meminfo, else sysconf.
 */
#include "kit_mem.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static uint64_t meminfo_field(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t kb = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            unsigned long long v;
            if (sscanf(line + klen + 1, "%llu", &v) == 1)
                kb = v;
            break;
        }
    fclose(f);
    return kb * 1024;
}

static uint64_t pages(int name)
{
    long n = sysconf(name), psz = sysconf(_SC_PAGESIZE);
    return n > 0 && psz > 0 ? (uint64_t)n * (uint64_t)psz : 0;
}

uint64_t kit_mem_available(void)
{
    uint64_t b = meminfo_field("MemAvailable");
    return b ? b : pages(_SC_AVPHYS_PAGES);
}

uint64_t kit_mem_total(void)
{
    uint64_t b = meminfo_field("MemTotal");
    return b ? b : pages(_SC_PHYS_PAGES);
}
