/*
 * torus_agree.h - the ranks of an MPI binary agree on their whole
 * configuration before anything else (torus/agree.c).
 */
#ifndef TORUS_AGREE_H
#define TORUS_AGREE_H

#include <mpi.h>
#include <stddef.h>

#include "torus_opt.h"

/* The options argv gives, parsed against spec as the program parses them:
 * "name=value" lines in spec order, each option's last value, numbers as
 * parsed (so --mem 64K and --mem=65536 agree), options not given absent.
 * 0, or -1 when argv does not parse or buf is too small. */
int torus_opt_canon(const torus_opt *spec, int argc, char **argv, unsigned flags, char *buf, size_t len);

/* "arguments=..." (argv[1..] as given, one line): the text of a command
 * line that does not parse.  0, or -1 when buf is too small. */
int torus_agree_args(int argc, char **argv, char *buf, size_t len);

/* Appends "env NAME=VALUE" lines, sorted, for every TORUS_*, RA_* and
 * OMP_NUM_THREADS setting of the environment: 0, or -1 when buf is full. */
int torus_agree_env(char *buf, size_t len);

/* Collective over comm: 0 when every rank's text is the same; else -2 on
 * every rank, with one line in rank 0's err naming the first option or
 * setting that differs and both values (other ranks: ""). */
int torus_agree(MPI_Comm comm, const char *text, char *err, size_t errlen);

#endif
