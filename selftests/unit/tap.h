/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP producer for the userspace unit tests of the project's pure C
 * code (the codecs and algorithm steps that also build into the modules).
 *
 *	int main(void)
 *	{
 *		tap_plan(2);
 *		tap_ok(1 + 1 == 2, "addition");
 *		tap_eq_u64(f(3), 9, "f(3)");
 *		return tap_done();
 *	}
 */
#ifndef _SELFTESTS_UNIT_TAP_H
#define _SELFTESTS_UNIT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed, tap_planned = -1;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	return cond;
}

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

#define tap_eq_u64(got, want, ...) ({					\
	unsigned long long __g = (got), __w = (want);			\
	if (!tap_ok(__g == __w, __VA_ARGS__))				\
		tap_diag("got %llu (0x%llx), want %llu (0x%llx)",	\
			 __g, __g, __w, __w);				\
	__g == __w; })

#define tap_eq_i64(got, want, ...) ({					\
	long long __g = (got), __w = (want);				\
	if (!tap_ok(__g == __w, __VA_ARGS__))				\
		tap_diag("got %lld, want %lld", __g, __w);		\
	__g == __w; })

/* A plan of -1 means "print the plan at the end" (tap_done). */
static inline int tap_done(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_n);
	else if (tap_planned != tap_n)
		printf("# planned %d tests, ran %d\n", tap_planned, tap_n);
	return tap_failed || (tap_planned >= 0 && tap_planned != tap_n);
}

#endif /* _SELFTESTS_UNIT_TAP_H */
