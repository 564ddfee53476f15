/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters with a range, for the congestion control modules:
 * an unsigned value that a write outside [lo, hi] does not change (the
 * write fails with -EINVAL and a message naming the range).
 *
 *	static struct range_param eta = { 95, 50, 100 };
 *	module_param_cb(eta, &range_ops, &eta, 0644);
 *
 * Kernel only: each module that includes it has its own copy.
 */
#ifndef _RANGE_PARAM_H
#define _RANGE_PARAM_H

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

struct range_param {
	unsigned int val, lo, hi;
};

static int range_set(const char *val, const struct kernel_param *kp)
{
	struct range_param *r = kp->arg;
	unsigned int v;
	int err = kstrtouint(val, 0, &v);

	if (err)
		return err;
	if (v < r->lo || v > r->hi) {
		pr_err("%s must be in [%u, %u], not %u\n", kp->name, r->lo, r->hi, v);
		return -EINVAL;
	}
	WRITE_ONCE(r->val, v);
	return 0;
}

static int range_get(char *buf, const struct kernel_param *kp)
{
	const struct range_param *r = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(r->val));
}

static const struct kernel_param_ops range_ops = {
	.set = range_set,
	.get = range_get,
};

#endif /* _RANGE_PARAM_H */
