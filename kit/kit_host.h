/* kit_host.h - what the kernel says about this machine's processor, for
 * the records that must name it beside a figure (a tuned table's notes,
 * the probe's clock). */
#ifndef KIT_HOST_H
#define KIT_HOST_H

#include <stddef.h>

/* The first value of `key` in /proc/cpuinfo ("model name", "cpu MHz")
 * into out, blanks trimmed: 0, or -1 (no such file or key: out ""). */
int kit_cpuinfo(const char *key, char *out, size_t len);

#endif
