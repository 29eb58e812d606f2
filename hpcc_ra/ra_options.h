/* ra_options.h - command-line parsing and validation for every ra_* binary. */
#ifndef RA_OPTIONS_H
#define RA_OPTIONS_H

#include <stdio.h>
#include "ra.h"

enum { RA_PARSE_OK = 0, RA_PARSE_HELP, RA_PARSE_VERSION, RA_PARSE_ERROR };

void ra_config_defaults(ra_config *cfg);

/* Parses argv into cfg.  Algorithm options (algo->options) are stored by name
 * for the algorithm's setup().  On RA_PARSE_ERROR, err holds one line naming
 * the bad value and what is allowed.  argv strings are referenced, not copied. */
int ra_options_parse(int argc, char **argv, const ra_algorithm *algo,
                     ra_config *cfg, char *err, size_t errlen);

void ra_options_help(FILE *f, const char *prog, const ra_algorithm *algo);

/* Strict number parsers: 0 on success, -1 on anything else (sign, junk,
 * overflow, empty).  ra_parse_bytes accepts K, M, G, T suffixes (x1024). */
int ra_parse_u64(const char *s, uint64_t *out);
int ra_parse_bytes(const char *s, uint64_t *out);
int ra_parse_double(const char *s, double *out);

#endif
