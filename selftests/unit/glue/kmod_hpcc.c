// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc.c, the module's glue, compiled unchanged over kshim/ and
 * driven through struct glue_flavour (glue.h, kmod_env.h): its module
 * parameters written through their kernel_param_ops as sysfs would, its
 * telemetry from tcp_csig_opt's API (csig_opt_api.h) served from the
 * socket's struct dcc_sim_io.
 */
#include "../../../tcp_hpcc.c"

#include "kmod_env.h"

/* tcp_csig_opt's API over the socket's samples */
bool csig_opt_negotiated(const struct sock *sk)
{
	return kmod_sk(sk)->io.negotiated;
}

/* io.sm[] is in the controller's slots, io.have in bits of CSIG types */
static int kmod_slot(unsigned int type)
{
	switch (type) {
	case CSIG_T_ABWC:
		return HPCC_CTL_S_ABWC;
	case CSIG_T_PD:
		return HPCC_CTL_S_PD;
	case CSIG_T_U:
		return HPCC_CTL_S_U;
	}
	return -1;
}

unsigned int csig_opt_read_mask(const struct sock *sk, unsigned int mask,
				struct csig_opt_sample *out)
{
	const struct dcc_sim_io *io = &kmod_sk(sk)->io;
	unsigned int t, i = 0, got = 0;

	for (t = 0; t < 16; t++) {
		int s = kmod_slot(t);

		if (!(mask & (1U << t)))
			continue;
		if ((io->have & (1U << t)) && s >= 0) {
			memset(&out[i], 0, sizeof(out[i]));
			out[i].s.format = io->sm[s].format;
			out[i].s.type = io->sm[s].type;
			out[i].s.lm = io->sm[s].lm;
			out[i].s.s = io->sm[s].s;
			out[i].t_ns = io->sm[s].t_ns;
			got |= 1U << t;
		}
		i++;
	}
	return got;
}

int csig_opt_register_consumer(const char *name)
{
	return 0;
}

void csig_opt_unregister_consumer(const char *name)
{
}

static void *kmod_hpcc_new(const void *cfgp)
{
	const struct dcc_sim_hpcc_cfg *c = cfgp;
	struct kmod_sk *k = kmod_env_new();
	struct hpcc_cfg *p = &hpcc_cfg.p;

	kmod_param(&base_rtt_us_ops, &p->base_rtt_us, c->base_rtt_us);
	kmod_param(&eta_ops, &p->eta, c->eta);
	kmod_param(&max_stage_ops, &p->max_stage, c->max_stage);
	kmod_param(&w_ai_ops, &p->w_ai, c->w_ai);
	kmod_param(&nflows_ops, &p->nflows, c->nflows);
	kmod_param(&line_rate_mbps_ops, &p->line_rate_mbps, c->line_rate_mbps);
	kmod_param(&grow_pct_ops, &p->grow_pct, c->grow_pct);
	kmod_param(&commit_samples_ops, &p->commit_samples, c->commit_samples);
	kmod_param(&commit_wait_pct_ops, &p->commit_wait_pct, c->commit_wait_pct);
	kmod_param(&stale_rtts_ops, &p->stale_rtts, c->stale_rtts);
	if (input_ops.set(input_names[c->input], NULL))
		abort();
	return k;
}

static __u32 kmod_hpcc_w(void *h)
{
	return hpcc_ctl_ca(h)->st.W;
}

const struct glue_flavour glue_kmod = KMOD_FLAVOUR(kmod_hpcc_new, kmod_hpcc_w);
