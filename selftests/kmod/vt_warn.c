// SPDX-License-Identifier: GPL-2.0
/*
 * vt_warn: a test-only module that plants a kernel warning.
 *
 * The VM runner must fail a run whose guest dmesg shows a WARN, BUG, oops or
 * similar report.  A runner that cannot fail proves nothing, so the suite
 * loads this module in a throw-away VM and checks that the runner reports
 * the warning it plants.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/module.h>

static int __init vt_warn_init(void)
{
	WARN(1, "vt_warn: planted warning (selftest of the VM runner)\n");
	return 0;
}

static void __exit vt_warn_exit(void)
{
}

module_init(vt_warn_init);
module_exit(vt_warn_exit);

MODULE_DESCRIPTION("Test-only module that plants a WARN for the VM runner's selftest");
MODULE_LICENSE("GPL");
