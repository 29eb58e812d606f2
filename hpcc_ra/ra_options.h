/* ra_options.h - command-line parsing and validation for every ra_* binary. */
#ifndef RA_OPTIONS_H
#define RA_OPTIONS_H

#include <stdio.h>
#include "ra.h"

enum { RA_PARSE_OK = 0, RA_PARSE_HELP, RA_PARSE_VERSION, RA_PARSE_ERROR };

void ra_config_defaults(ra_config *cfg);

/* Parses argv into cfg through the kit's option spec (kit_opt.h; GNU
 * conventions: --opt value, --opt=value, -- ends the options, unique
 * prefixes).  Algorithm options (algo->options) are checked against their
 * types and ranges and stored by name, as text, for the algorithm's
 * setup().  OMP_NUM_THREADS is checked too (Star and Single start that
 * many threads).  On
 * RA_PARSE_ERROR, err holds one line without the program name, in the kit's
 * one format (kit_cli.h): "bad value 'X' for --opt: allowed ...",
 * "unknown option '--x' (see --help)", ...  argv is only read; its strings
 * are referenced, not copied.  Not reentrant (getopt's state is global). */
int ra_options_parse(int argc, char **argv, const ra_algorithm *algo,
                     ra_config *cfg, char *err, size_t errlen);

void ra_options_help(FILE *f, const char *prog, const ra_algorithm *algo);
/* The configuration the ranks agree on (kit_agree_text over the
 * harness's and the algorithm's options) */
void ra_options_agree_text(int argc, char **argv, const ra_algorithm *algo, char *buf, size_t len);

#endif
