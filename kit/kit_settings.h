/*
 * kit_settings.h - every environment variable the kit reads, declared once
 * (kit/settings.c), as MPICH declares its CVARs: name, kind, the values
 * allowed, the default, who reads it and one line of help.  Code reads a
 * setting only through kit_setting() (an undeclared name is a bug: it
 * aborts), the MPI adapter checks and agrees on its settings from the
 * table, every binary's --help (and so its man page) lists the settings
 * its layer reads, and docs/settings.md is the table printed
 * (build/<mpi>/tests/settings_table; tests/suite_docs.sh holds the page
 * to it).
 */
#ifndef KIT_SETTINGS_H
#define KIT_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    KIT_SET_ONOFF,     /* on, off, 1, 0 */
    KIT_SET_CHOICE,    /* one of the words of allowed (", "-separated) */
    KIT_SET_SHAPE,     /* the shape grammar of --dims */
    KIT_SET_ALGORITHM, /* auto or an algorithm the library registers */
    KIT_SET_COUNT,     /* a whole number */
    KIT_SET_FILE,      /* a path */
    KIT_SET_TEXT,      /* words the reader passes on (a command, options, a list) */
} kit_set_kind;

/* Who reads a setting (bits): the torus library (so every program and the
 * adapter), the MPI adapter, the harness, a test build only, the run
 * scripts (run_scripts/, its .sh files), the Slurm templates (run_scripts/slurm/,
 * which turn them into the scripts' options).  The scripts' and templates'
 * rows are declared here too, so that docs/settings.md is every variable
 * the kit reads; tests/suite_docs.sh holds them to what the scripts read. */
enum {
    KIT_READ_LIBRARY = 1,
    KIT_READ_ADAPTER = 2,
    KIT_READ_HARNESS = 4,
    KIT_READ_TESTS = 8,
    KIT_READ_SCRIPTS = 16,
    KIT_READ_SLURM = 32,
};

typedef struct kit_setting_decl {
    const char *name;
    kit_set_kind kind;
    const char *allowed; /* the values, as an error message lists them */
    const char *defval;  /* what unset means */
    unsigned readers;    /* KIT_READ_* */
    int agreed;          /* the adapter's ranks agree on it at MPI_Init */
    const char *help;    /* one line */
} kit_setting_decl;

/* The table, ended by a NULL name. */
extern const kit_setting_decl kit_settings[];

/* The declaration of name, or NULL. */
const kit_setting_decl *kit_setting_find(const char *name);

/* The value of a declared setting (NULL: unset).  An undeclared name is a
 * bug of the caller: one line on stderr and abort(). */
const char *kit_setting(const char *name);

/* Is v one of d's allowed words (KIT_SET_ONOFF, KIT_SET_CHOICE)?  An unset
 * or empty value counts as the default. */
int kit_setting_word_ok(const kit_setting_decl *d, const char *v);

/* What d allows, as an error line says it (a choice marks its default:
 * "auto (the default), never"), into buf. */
const char *kit_setting_allowed(const kit_setting_decl *d, char *buf, size_t len);

/* The settings some reader in `readers` reads, for --help: a heading and
 * one line each (name=allowed, default, help). */
void kit_settings_help(FILE *f, unsigned readers);

/* docs/settings.md's table (markdown), every declared setting. */
void kit_settings_table(FILE *f);

#endif
