/*
 * kit_opt.h - the one option spec of the kit.  Each binary describes its
 * options once, as a table of kit_opt; that table gives
 *
 *   - its getopt_long table (GNU conventions: --opt value, --opt=value,
 *     unique prefixes, -- ends the options),
 *   - the check of every value against its type and range, with the kit's
 *     one error format (kit_cli.h):
 *         bad value 'X' for --opt: allowed ...
 *         option '--opt' needs a value (see --help)
 *         unknown option '--x' (see --help)
 *         option '--me' is ambiguous: could be --mesh, --method (see --help)
 *         option '--flag' takes no value, got '1' (see --help)
 *         unexpected argument 'X' (see --help)
 *         --json and --output name the same file 'F': allowed two different files
 *   - its --help: one entry per option with its value's name, the text
 *     wrapped, and [default: X].
 *
 * The parser never prints, exits or allocates beyond one getopt table, so
 * the fuzz harnesses call it over and over; argv is only read.
 */
#ifndef KIT_OPT_H
#define KIT_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum kit_opt_type {
    KIT_OPT_FLAG = 1, /* no value */
    KIT_OPT_LONG,     /* a decimal integer in lo..hi */
    KIT_OPT_U64,      /* an unsigned decimal integer in lo..hi (hi 0: up to 2^64 - 1) */
    KIT_OPT_DOUBLE,   /* a finite number in lo..hi (strtod syntax) */
    KIT_OPT_BYTES,    /* a byte count >= lo, K/M/G/T suffixes (x1024) */
    KIT_OPT_CHOICE,   /* one word of `choices` ("a|b|c"); val.l = its index */
    KIT_OPT_TEXT,     /* a non-blank text the program checks itself (a shape, a list) */
    KIT_OPT_FILE_IN,  /* a file to read: a non-blank name */
    KIT_OPT_FILE_OUT, /* a file to write: a non-blank name, no other output's file */
    KIT_OPT_HEADING,  /* no option: a heading line in --help (help = its text) */
} kit_opt_type;

typedef struct kit_opt {
    const char *name;     /* the long name, without dashes */
    kit_opt_type type;
    int id;               /* the program's code for it */
    const char *meta;     /* the value's name in --help ("N", "FILE"); NULL: "V" */
    const char *defval;   /* --help's default; NULL: none shown */
    const char *help;
    double lo, hi;        /* LONG, U64, DOUBLE, BYTES: the range */
    const char *choices;  /* CHOICE: "a|b|c" */
    const char *allowed;  /* the error's "allowed ..." text; NULL: said from the type and range */
    int optional;         /* the value may be left out: --opt, --opt=V or --opt V (V not an option) */
    char short_name;      /* also -c (help: "-h, --help"); 0 none */
    int hidden;           /* parsed but not listed in --help (an alias) */
    const char *alias;    /* a FLAG that abbreviates another option with a value, "name=value":
                           * the parser checks the value against that option and hands the
                           * callback that option's entry, so the meaning is declared once;
                           * --help says "same as --name value" */
} kit_opt;

/* A value, checked and converted by its type. */
typedef struct kit_opt_val {
    const char *s; /* as given; NULL for a flag or a left-out optional value */
    long l;        /* LONG; CHOICE: the word's index */
    uint64_t u;    /* U64, BYTES */
    double d;      /* DOUBLE */
} kit_opt_val;

/* Called for each option in command-line order.  Returns 0 to go on, < 0
 * for an error with one line in err (written with kit_cli_bad_value or
 * snprintf, no program name), > 0 to stop parsing with that code (--help,
 * --version). */
typedef int (*kit_opt_fn)(void *ctx, const kit_opt *o, const kit_opt_val *v, char *err, size_t errlen);

enum {
    KIT_OPT_OPERANDS = 1, /* words that are not options are operands, left in argv[*first..argc) */
};

/* Parses argv[1..argc) against spec (ended by an entry with neither name
 * nor a HEADING type, e.g. {0}).  Without KIT_OPT_OPERANDS, a word that
 * is not an option (also after --) is an error; with it, getopt_long
 * moves the operands to argv[*first..argc) (argv's pointers are then
 * reordered, its strings untouched).  Returns 0, -1 with one line in err,
 * or the callback's positive code.  Resets getopt's state itself (not
 * reentrant: getopt's state is global).  After the options, two
 * FILE_OUT options naming one regular file (or one that does not exist
 * yet) are an error. */
int kit_opt_parse(const kit_opt *spec, int argc, char **argv, unsigned flags, kit_opt_fn fn, void *ctx,
                    int *first, char *err, size_t errlen);

/* Writes the entries of spec to f: "  --name META" then the help text,
 * wrapped to 100 columns, and " [default: X]" when defval is set. */
void kit_opt_help(FILE *f, const kit_opt *spec);

/* The entry named name (exactly), or NULL. */
const kit_opt *kit_opt_find(const kit_opt *spec, const char *name);

#endif
