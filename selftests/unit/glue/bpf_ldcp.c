// SPDX-License-Identifier: GPL-2.0
/*
 * tools/bpf/tcp_ldcp.bpf.c, ldcp_bpf's glue, compiled unchanged as host C
 * over bshim/ and driven through struct glue_flavour (glue.h): its
 * struct_ops table as the kernel calls it, its parameters as dccbpf load
 * sets them (cfg, before init).
 */
#include "../../../tools/bpf/tcp_ldcp.bpf.c"

#include "bpf_env.h"

static void *bpf_ldcp_new(const void *cfgp)
{
	const struct dcc_sim_ldcp_cfg *c = cfgp;

	cfg.alpha_milli = c->alpha_milli;
	cfg.beta_milli = c->beta_milli;
	cfg.gamma_div = c->gamma_div;
	cfg.bw_mbps = c->bw_mbps;
	cfg.base_rtt_us = c->base_rtt_us;
	cfg.fast_start = c->fast_start;
	cfg.below_one_inc = c->below_one_inc;
	cfg.ack_every = c->ack_every;
	return bpf_env_new();
}

static __u32 bpf_ldcp_call(void *h, int op, int a, int b)
{
	return bpf_env_call(&ldcp_bpf, h, op, a, b);
}

static __u32 bpf_ldcp_w(void *h)
{
	return ldcp_ctl_ca(h)->st.cw;
}

const struct glue_flavour glue_bpf = BPF_FLAVOUR(bpf_ldcp_new, bpf_ldcp_call,
						  bpf_ldcp_w);
