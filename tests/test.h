/*
 * test.h - tiny assertion macros and a named-case runner for the unit tests
 * (libuv task.h style): a failed check prints both values and file:line and
 * counts a failure.
 *
 * A test file lists its cases, static functions, in one table and hands
 * main to the runner:
 *
 *     static const test_case cases[] = {
 *         {"jump_ahead_matches_stepping", t_jump_matches_stepping},
 *         ...
 *     };
 *     int main(int argc, char **argv) { return TEST_RUN(argc, argv, "test_gen", cases); }
 *
 * With no argument every case runs; with case names only those, in the
 * order given; --list prints the names.  Each case prints "ok - CASE" or
 * "not ok - CASE", and the last line is
 * "NAME: C cases passed, F failed (N checks)" (", M failed" inside the
 * parentheses when checks failed): tests/run_tests.sh shows it.  Exit 0
 * when every case passed, 1 when one failed, 2 for an unknown name.
 *
 * The old style, checks in one main() ending in TEST_MAIN_END(name), which
 * prints "NAME: N passed, N failed", still works for files not yet split.
 */
#ifndef RA_TEST_H
#define RA_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int t_pass, t_fail;

#define ASSERT_TRUE(c)                                                            \
    do {                                                                          \
        if (c) t_pass++;                                                          \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c);      \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_U64(a, b)                                                       \
    do {                                                                          \
        uint64_t ta_ = (uint64_t)(a), tb_ = (uint64_t)(b);                        \
        if (ta_ == tb_) t_pass++;                                                 \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: %s == %s failed: 0x%016" PRIx64 " (%" PRIu64  \
                    ") != 0x%016" PRIx64 " (%" PRIu64 ")\n", __FILE__, __LINE__,  \
                    #a, #b, ta_, ta_, tb_, tb_);                                  \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                       \
    do {                                                                          \
        long long ta_ = (long long)(a), tb_ = (long long)(b);                     \
        if (ta_ == tb_) t_pass++;                                                 \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,   \
                    __LINE__, #a, #b, ta_, tb_);                                  \
        }                                                                         \
    } while (0)

#define ASSERT_STR_CONTAINS(hay, needle)                                          \
    do {                                                                          \
        const char *th_ = (hay), *tn_ = (needle);                                 \
        if (th_ && strstr(th_, tn_)) t_pass++;                                    \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,  \
                    __LINE__, th_ ? th_ : "(null)", tn_);                         \
        }                                                                         \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                       \
    do {                                                                          \
        const char *ta_ = (a), *tb_ = (b);                                        \
        if (ta_ && tb_ && !strcmp(ta_, tb_)) t_pass++;                            \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",        \
                    __FILE__, __LINE__, #a, #b, ta_ ? ta_ : "(null)",             \
                    tb_ ? tb_ : "(null)");                                        \
        }                                                                         \
    } while (0)

#define ASSERT_NEAR(a, b, tol)                                                    \
    do {                                                                          \
        double ta_ = (double)(a), tb_ = (double)(b);                              \
        if (ta_ - tb_ <= (tol) && tb_ - ta_ <= (tol)) t_pass++;                   \
        else {                                                                    \
            t_fail++;                                                             \
            fprintf(stderr, "%s:%d: %s ~= %s failed: %.12g != %.12g\n",           \
                    __FILE__, __LINE__, #a, #b, ta_, tb_);                        \
        }                                                                         \
    } while (0)

#define TEST_MAIN_END(name)                                                       \
    do {                                                                          \
        printf("%s: %d passed, %d failed\n", name, t_pass, t_fail);               \
        return t_fail ? 1 : 0;                                                    \
    } while (0)

typedef struct {
    const char *name; /* snake_case, says what the case checks */
    void (*run)(void);
} test_case;

#define TEST_RUN(argc, argv, name, cases)                                         \
    test_run((argc), (argv), (name), (cases), sizeof(cases) / sizeof *(cases))

static inline int test_find_(const test_case *cases, size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cases[i].name, want))
            return (int)i;
    return -1;
}

static inline void test_list_(FILE *f, const test_case *cases, size_t n, const char *sep)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? sep : "", cases[i].name);
}

/* runs the cases argv names (all of them when none), prints a line per case
 * and the summary; returns main's exit code */
static inline int test_run(int argc, char **argv, const char *name, const test_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (test_find_(cases, i, cases[i].name) >= 0) {
            fprintf(stderr, "%s: case '%s' is listed twice\n", name, cases[i].name);
            return 2;
        }
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        test_list_(stdout, cases, n, "\n");
        printf("\n");
        return 0;
    }
    for (int a = 1; a < argc; a++)
        if (test_find_(cases, n, argv[a]) < 0) {
            fprintf(stderr, "%s: no case '%s'; the cases: ", name, argv[a]);
            test_list_(stderr, cases, n, " ");
            fprintf(stderr, " (or --list)\n");
            return 2;
        }
    int cpass = 0, cfail = 0;
    size_t nrun = argc > 1 ? (size_t)(argc - 1) : n;
    for (size_t k = 0; k < nrun; k++) {
        const test_case *c = argc > 1 ? &cases[test_find_(cases, n, argv[k + 1])] : &cases[k];
        int before = t_fail;
        fflush(stdout);
        c->run();
        fflush(stderr);
        if (t_fail == before)
            cpass++, printf("ok - %s\n", c->name);
        else
            cfail++, printf("not ok - %s\n", c->name);
        fflush(stdout);
    }
    if (t_fail)
        printf("%s: %d cases passed, %d failed (%d checks, %d failed)\n", name, cpass, cfail,
               t_pass + t_fail, t_fail);
    else
        printf("%s: %d cases passed, %d failed (%d checks)\n", name, cpass, cfail, t_pass);
    return cfail ? 1 : 0;
}

#endif
