/*
 * kit_agree.h - the ranks of an MPI binary agree on their whole
 * configuration before anything else (kit/agree.c).
 */
#ifndef KIT_AGREE_H
#define KIT_AGREE_H

#include <mpi.h>
#include <stddef.h>

#include "kit_opt.h"

/* The configuration argv and the environment give, as text to agree on:
 * the options parsed against spec as the program parses them ("name=value"
 * lines in spec order, each option's last value, numbers as parsed, so
 * --mem 64K and --mem=65536 agree; options not given absent), or, for a
 * command line that does not parse, "arguments=" and the words as given;
 * then "env NAME=VALUE" lines, sorted, for every TORUS_*, RA_* and
 * OMP_NUM_THREADS setting.  Text that does not fit len ends in a line
 * saying so (ranks then still compare what fitted). */
void kit_agree_text(const kit_opt *spec, int argc, char **argv, char *buf, size_t len);

/* Collective over comm: 0 when every rank's text is the same; else -2 on
 * every rank, with one line in rank 0's err naming the first option or
 * setting that differs and both values (other ranks: ""). */
int kit_agree(MPI_Comm comm, const char *text, char *err, size_t errlen);

#endif
