/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters with a range, for the project's modules: an unsigned
 * int that a write outside [lo, hi] does not change.  The kernel's
 * param_set_uint_minmax() parses and checks the value (the write fails
 * with -EINVAL, or kstrtouint()'s error); a message names the range.
 * This is tcp_dctcp.c's setter for shift_g, made once for every
 * parameter:
 *
 *	static unsigned int eta = 95;
 *	DEFINE_RANGE_PARAM_OPS(eta, 50, 100);
 *	module_param_cb(eta, &eta_ops, &eta, 0644);
 *	MODULE_PARM_DESC(eta, "...");
 *
 * Kernel only.
 */
#ifndef _RANGE_PARAM_H
#define _RANGE_PARAM_H

#include <linux/printk.h>
#include <linux/moduleparam.h>

static inline int range_param_set(const char *val, const struct kernel_param *kp,
				  unsigned int lo, unsigned int hi)
{
	int err = param_set_uint_minmax(val, kp, lo, hi);

	if (err)
		pr_err("%s must be in [%u, %u]\n", kp->name, lo, hi);
	return err;
}

/*
 * @name##_ops, the kernel_param_ops of an unsigned int parameter in
 * [@lo, @hi], for module_param_cb().
 */
#define DEFINE_RANGE_PARAM_OPS(name, lo, hi)				\
	static int name##_set(const char *val, const struct kernel_param *kp) \
	{								\
		return range_param_set(val, kp, lo, hi);		\
	}								\
	static const struct kernel_param_ops name##_ops = {		\
		.set = name##_set,					\
		.get = param_get_uint,					\
	}

/*
 * The same, calling @notify() after a write that changed the value, for
 * what is derived from the parameters (tcp_hpcc's hpcc_ctl_cfg_set()).
 */
#define DEFINE_RANGE_PARAM_OPS_NOTIFY(name, lo, hi, notify)		\
	static int name##_set(const char *val, const struct kernel_param *kp) \
	{								\
		int err = range_param_set(val, kp, lo, hi);		\
									\
		if (!err)						\
			notify();					\
		return err;						\
	}								\
	static const struct kernel_param_ops name##_ops = {		\
		.set = name##_set,					\
		.get = param_get_uint,					\
	}

#endif /* _RANGE_PARAM_H */
