// SPDX-License-Identifier: GPL-2.0
/*
 * tools/bpf/tcp_hpcc.bpf.c, hpcc_bpf's glue, compiled unchanged as host C
 * over bshim/ and driven through struct glue_flavour (glue.h): its
 * struct_ops table as the kernel calls it, its parameters as dccbpf load
 * sets them (cfg, before init), its telemetry from the CSIG host path's
 * socket storage (include/csig_bpf.h), filled from the socket's struct
 * dcc_sim_io before each call.
 */
#include "../../../tools/bpf/tcp_hpcc.bpf.c"

#include "bpf_env.h"

/* io.sm[] is in the controller's slots, the storage by CSIG type */
static void bpf_hpcc_storage(struct bpf_sk *b)
{
	static const __u8 type[HPCC_CTL_NS] = {
		[HPCC_CTL_S_ABWC] = CSIG_T_ABWC,
		[HPCC_CTL_S_PD] = CSIG_T_PD,
		[HPCC_CTL_S_U] = CSIG_T_U,
	};
	int i;

	memset(&b->cs, 0, sizeof(b->cs));
	b->cs.state = CSIG_BPF_OFFERED |
		      (b->io.negotiated ? CSIG_BPF_NEGOTIATED : 0);
	b->cs.have = b->io.have;
	for (i = 0; i < HPCC_CTL_NS; i++) {
		struct csig_bpf_sample *s = &b->cs.s[type[i]];

		s->s.format = b->io.sm[i].format;
		s->s.type = b->io.sm[i].type;
		s->s.lm = b->io.sm[i].lm;
		s->s.s = b->io.sm[i].s;
		s->t_ns = b->io.sm[i].t_ns;
	}
}

static void *bpf_hpcc_new(const void *cfgp)
{
	const struct dcc_sim_hpcc_cfg *c = cfgp;

	/* dccbpf load: the program's .data before the load */
	cfg.base_rtt_us = c->base_rtt_us;
	cfg.eta = c->eta;
	cfg.max_stage = c->max_stage;
	cfg.w_ai = c->w_ai;
	cfg.nflows = c->nflows;
	cfg.line_rate_mbps = c->line_rate_mbps;
	cfg.grow_pct = c->grow_pct;
	cfg.commit_samples = c->commit_samples;
	cfg.commit_wait_pct = c->commit_wait_pct;
	cfg.stale_rtts = c->stale_rtts;
	cfg.input = c->input;
	return bpf_env_new();
}

static __u32 bpf_hpcc_call(void *h, int op, int a, int b)
{
	bpf_hpcc_storage(h);
	return bpf_env_call(&hpcc_bpf, h, op, a, b);
}

static __u32 bpf_hpcc_w(void *h)
{
	return hpcc_ctl_ca(h)->st.W;
}

const struct glue_flavour glue_bpf = BPF_FLAVOUR(bpf_hpcc_new, bpf_hpcc_call,
						  bpf_hpcc_w);
