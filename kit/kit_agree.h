/*
 * kit_agree.h - the ranks of an MPI binary agree on their whole
 * configuration before anything else (kit/agree.c).
 */
#ifndef KIT_AGREE_H
#define KIT_AGREE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "kit_opt.h"

/* The configuration argv and the environment give, as text to agree on:
 * the options parsed against spec as the program parses them ("name=value"
 * lines in spec order, each option's last value, numbers as parsed, so
 * --mem 64K and --mem=65536 agree; options not given absent), or, for a
 * command line that does not parse, "arguments=" and the words as given;
 * then "env NAME=VALUE" lines, sorted, for every TORUS_*, RA_* and
 * OMP_NUM_THREADS setting; then, for every file the program reads (each
 * KIT_OPT_FILE_IN option given, each KIT_SET_FILE setting a program reads),
 * a "content NAME=" line with what the file holds (kit_digest_file), so
 * two copies of one path that differ between nodes disagree.  Text that does not fit len ends in a line
 * saying so (ranks then still compare what fitted). */
void kit_agree_text(const kit_opt *spec, int argc, char **argv, char *buf, size_t len);

/* Collective over comm: 0 when every rank's text is the same; else -2 on
 * every rank, with one line in rank 0's err naming the first option,
 * setting or file that differs, rank 0's value and the first differing
 * rank's, and every other rank that differs from rank 0 on it
 * (other ranks: ""). */
int kit_agree(MPI_Comm comm, const char *text, char *err, size_t errlen);

/* The kit's one 64-bit digest (FNV-1a, kit/digest.c): h folded with n
 * bytes at p; start from KIT_DIGEST_SEED. */
#define KIT_DIGEST_SEED 0xcbf29ce484222325ULL /* FNV-1a 64's offset basis */
uint64_t kit_digest(uint64_t h, const void *p, size_t n);

/* What a file holds, as one value to agree on: "'PATH' (N bytes, digest
 * HEX)", or "'PATH' (unreadable: WHY)" (PATH escaped, one line).  Only a
 * regular file is read (kit_lines_open), at most 256 MiB of it. */
void kit_digest_file(const char *path, char *out, size_t len);

#endif
