/*
 * fuzz.h - what every harness of tests/fuzz/ shares: the libFuzzer entry
 * point's prototype, a stream over the input (the parsers read FILE *),
 * an argv split from the input, and the one-line-error check.
 *
 * The same harness is built twice: with clang and -fsanitize=fuzzer for
 * `make fuzz`, and with the kit's own compiler against replay.c, which
 * feeds it the kept corpus in `make test` (no clang needed there).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a read-only stream (fmemopen takes size 0 since glibc 2.22). */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
    return fmemopen((void *)(uintptr_t)data, size, "r");
}

/* Splits the input at NUL bytes into at most max - 1 words after prog:
 * argv[0] = prog, argv[argc] = NULL.  buf (size + 1 bytes) holds them. */
static inline int fuzz_argv(const uint8_t *data, size_t size, const char *prog, char *buf, char **argv, int max)
{
    memcpy(buf, data, size);
    buf[size] = 0;
    int argc = 0;
    argv[argc++] = (char *)(uintptr_t)prog;
    size_t i = 0;
    while (i <= size && argc < max - 1) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    return argc;
}

/* An error must be one non-empty line of printable text (user bytes are
 * escaped): anything else is a finding, so abort for the fuzzer to see. */
static inline void fuzz_one_line(const char *err)
{
    if (!err[0]) {
        fprintf(stderr, "fuzz: empty error message\n");
        abort();
    }
    for (const unsigned char *p = (const unsigned char *)err; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            fprintf(stderr, "fuzz: control byte 0x%02x in error message: %s\n", *p, err);
            abort();
        }
}

#endif
