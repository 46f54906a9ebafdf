/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Minimal unit-test helpers shared by the tests beside each library.
 * CHECK records a failure and goes on, so one run reports every broken
 * assertion; rtr_test_done() prints "N passed, N failed" and returns the
 * process exit status (0 only when nothing failed and something was checked).
 */
#ifndef RTR_TEST_H
#define RTR_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned int rtr_test_pass, rtr_test_fail;

#define CHECK(cond, ...)                                                                \
	do {                                                                            \
		if (cond) {                                                             \
			rtr_test_pass++;                                                \
		} else {                                                                \
			rtr_test_fail++;                                                \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, " " __VA_ARGS__);                               \
			fputc('\n', stderr);                                            \
		}                                                                       \
	} while (0)

#define CHECK_EQ(a, b)                                              \
	do {                                                        \
		long long _a = (long long)(a), _b = (long long)(b); \
		CHECK(_a == _b, "%lld != %lld", _a, _b);            \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *_a = (a), *_b = (b);                                           \
		CHECK(_a != NULL && _b != NULL && strcmp(_a, _b) == 0, "\"%s\" != \"%s\"", \
				_a ? _a : "(null)", _b ? _b : "(null)");                   \
	} while (0)

/* A test's pseudo-random numbers: xorshift64 (Marsaglia's 13, 7, 17) on
 * *s, which must not be 0. Repeatable for one seed. */
static inline uint64_t
rtr_test_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int
rtr_test_done(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, rtr_test_pass, rtr_test_fail);
	return (rtr_test_fail == 0 && rtr_test_pass > 0) ? 0 : 1;
}

#endif /* RTR_TEST_H */
