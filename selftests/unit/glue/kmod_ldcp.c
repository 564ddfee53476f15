// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ldcp.c, the module's glue, compiled unchanged over kshim/ and
 * driven through struct glue_flavour (glue.h, kmod_env.h): its module
 * parameters written through their kernel_param_ops as sysfs would.
 * fs_not_ect stays 0 (its hooks are the packet path, which only compiles
 * here).
 */
#include "../../../tcp_ldcp.c"

#include "kmod_env.h"

static void *kmod_ldcp_new(const void *cfgp)
{
	const struct dcc_sim_ldcp_cfg *c = cfgp;
	struct kmod_sk *k = kmod_env_new();

	kmod_param(&alpha_milli_ops, &alpha_milli, c->alpha_milli);
	kmod_param(&beta_milli_ops, &beta_milli, c->beta_milli);
	kmod_param(&gamma_div_ops, &gamma_div, c->gamma_div);
	kmod_param(&bw_mbps_ops, &bw_mbps, c->bw_mbps);
	kmod_param(&base_rtt_us_ops, &base_rtt_us, c->base_rtt_us);
	kmod_param(&fast_start_ops, &fast_start, c->fast_start);
	kmod_param(&below_one_inc_ops, &below_one_inc, c->below_one_inc);
	kmod_param(&ack_every_ops, &ack_every, c->ack_every);
	return k;
}

static __u32 kmod_ldcp_w(void *h)
{
	return ldcp_ctl_ca(h)->st.cw;
}

const struct glue_flavour glue_kmod = KMOD_FLAVOUR(kmod_ldcp_new, kmod_ldcp_w);
