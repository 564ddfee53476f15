/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * 64-bit division for the algorithm headers (hpcc.h, ldcp.h): the
 * kernel's linux/math64.h, and in userspace (unit tests, fuzzing) the
 * same three helpers with plain division.  The kernel links on 32-bit
 * hosts only through these, never through a plain '/' or '%' on 64 bits.
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

#endif /* _DCC_DIV64_H */
