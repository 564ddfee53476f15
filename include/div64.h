/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * 64-bit division for the algorithm headers (hpcc.h, ldcp.h): the
 * kernel's linux/math64.h, and in userspace (unit tests, fuzzing) and
 * in BPF (tools/bpf's congestion controls) the same three helpers with
 * plain division, which BPF has for unsigned operands only, as these are.  The kernel links on
 * 32-bit hosts only through these, never through a plain '/' or '%' on
 * 64 bits.
 *
 * dcc_mul_overflow(): @a * @b into *@p, non-zero when the product does
 * not fit 64 bits (*@p is then its low 64 bits), as the compilers'
 * __builtin_mul_overflow(), which the kernel and userspace use.  BPF has
 * no 128-bit multiplication (clang lowers the builtin to a libgcc call,
 * __multi3, that a BPF program cannot make): there dcc_mul_overflow_div()
 * checks with a division, ~0 / @a, unsigned as BPF wants it
 * (selftests/unit/test_hpcc.c compares the two).
 */
#ifndef _DCC_DIV64_H
#define _DCC_DIV64_H

#include <linux/types.h>

#ifdef __KERNEL__
#include <linux/math64.h>
#else
static inline __u64 div_u64_rem(__u64 dividend, __u32 divisor, __u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline __u64 div_u64(__u64 dividend, __u32 divisor)
{
	return dividend / divisor;
}

static inline __u64 div64_u64(__u64 dividend, __u64 divisor)
{
	return dividend / divisor;
}
#endif

#ifndef __KERNEL__
static inline int dcc_mul_overflow_div(__u64 a, __u64 b, __u64 *p)
{
	__u64 lim = a ? ~0ULL / a : ~0ULL;

	/* opaque to clang, which would fold the test back into __multi3 */
	asm volatile("" : "+r"(lim));
	*p = a * b;
	return b > lim;
}
#endif

#ifdef __bpf__
#define dcc_mul_overflow(a, b, p)	dcc_mul_overflow_div(a, b, p)
#else
#define dcc_mul_overflow(a, b, p)	__builtin_mul_overflow(a, b, p)
#endif

#endif /* _DCC_DIV64_H */
