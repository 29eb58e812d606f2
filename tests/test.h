/*
 * test.h - tiny assertion macros for the unit tests (libuv task.h style):
 * a failed check prints both values and file:line and counts a failure;
 * TEST_MAIN_END prints "N passed, N failed" and sets the exit code.
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

#endif
