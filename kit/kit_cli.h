/*
 * kit_cli.h - what every binary of the kit shares on its command line:
 * strict number parsing with ranges, and one error format,
 *
 *     PROG: bad value 'X' for --opt: allowed ...
 *
 * so a typo always costs one line naming the value and what is allowed,
 * and exit code 2.  The value is echoed escaped and cut (control bytes as
 * \xNN, at most 64 characters) so that the message stays one line.
 */
#ifndef KIT_CLI_H
#define KIT_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* The exit codes of every binary and script of the kit, the one set. */
enum {
    KIT_EXIT_OK = 0,
    KIT_EXIT_VERIFY = 1,   /* verification found errors */
    KIT_EXIT_USAGE = 2,    /* bad option or input */
    KIT_EXIT_RESOURCE = 3, /* memory or MPI failure */
};

/* Decimal integer in [lo, hi], no sign junk or trailing bytes: 0, else -1. */
int kit_cli_long(const char *s, long lo, long hi, long *out);
/* Unsigned decimal integer in [lo, hi]: 0, else -1 (no '-', no overflow). */
int kit_cli_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* Finite number in [lo, hi] (strtod syntax, e.g. 1e-7): 0, else -1. */
int kit_cli_double(const char *s, double lo, double hi, double *out);
/* A byte count with an optional K, M, G or T suffix (x1024; "MiB", "GB"
 * spellings too): 0, else -1 (sign, junk, overflow, empty). */
int kit_cli_bytes(const char *s, uint64_t *out);

/* Copies s into buf, control and non-ASCII bytes as \xNN, quotes as \',
 * cut to 64 characters with "..." : for echoing user input in one line. */
void kit_cli_escape(const char *s, char *buf, size_t len);

/* Writes "bad value 'X' for --opt: allowed ALLOWED" into err (the PROG:
 * prefix is added by whoever prints err).  opt is given without dashes. */
void kit_cli_bad_value(char *err, size_t errlen, const char *opt, const char *value, const char *allowed);

/* One line for the word getopt_long refused with '?' (call with opterr = 0
 * and "+:" so argv keeps its order and `word` is argv[optind before the
 * call]): unknown option, ambiguous prefix (naming the candidates), or a
 * value given to a flag. */
void kit_cli_refused(const struct option *opts, const char *word, char *err, size_t errlen);

#endif
