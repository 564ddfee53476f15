// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc's controller (include/hpcc_ctl.h) compiled as C for the ns-3
 * model: the flavour's socket, accessors and hooks, and the small C API
 * of sim/dcc_sim.h that ns3::TcpHpccDcc (sim/tcp-dcc-sim.cc) calls.
 * Nothing of the algorithm is here.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "dcc_sim.h"
#include "hpcc_api.h"

struct hpcc_ctl_flavour {
};

/*
 * The accessors come before the controller, which calls them; its types
 * after: the socket keeps its state in an icsk_ca_priv-like area, as the
 * module's does, and its parameters behind a pointer.
 */
struct hpcc_ctl_cfg;

struct sock {
	struct dcc_sim_io io;		/* first: the API's handle is the socket */
	struct hpcc_ctl_cfg *k;
	__u64	priv[16];		/* struct hpcc_ctl */
};

#include "dcc_glue_common.h"
#include "hpcc_ctl.h"

static_assert(HPCC_C_NR == DCC_SIM_HPCC_NCTR, "the counters' number");
static_assert(sizeof(struct hpcc_ctl) <= sizeof(((struct sock *)0)->priv),
	      "struct hpcc_ctl fits the socket's area");

static inline struct hpcc_ctl *hpcc_ctl_ca(struct sock *sk)
{
	return (struct hpcc_ctl *)sk->priv;
}

static inline const struct hpcc_ctl_cfg *hpcc_ctl_cfg(struct sock *sk)
{
	return sk->k;
}

static inline void hpcc_ctl_count(struct sock *sk, int i)
{
	if (i >= 0 && i < (int)ARRAY_SIZE(sk->io.ctr))
		sk->io.ctr[i]++;
}

/* the model's CSIG path serves this flow (sim/tcp-dcc-sim.cc) */
static inline bool hpcc_ctl_negotiated(struct sock *sk)
{
	return sk->io.negotiated;
}

static inline unsigned int hpcc_ctl_read(struct sock *sk, unsigned int want,
					 struct hpcc_ctl_sample *out)
{
	int i;

	for (i = 0; i < HPCC_CTL_NS; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].s.format = sk->io.sm[i].format;
		out[i].s.type = sk->io.sm[i].type;
		out[i].s.lm = sk->io.sm[i].lm;
		out[i].s.s = sk->io.sm[i].s;
		out[i].t_ns = sk->io.sm[i].t_ns;
	}
	return sk->io.have & want;
}

static inline void hpcc_ctl_trace(struct sock *sk, const struct hpcc_ctl *ca,
				  __u32 w, __u64 rate, const char *source,
				  bool upd)
{
	(void)ca;
	(void)upd;
	sk->io.trace_w = w;
	sk->io.trace_rate = rate;
	sk->io.trace_src = source;
}

static inline void hpcc_ctl_trace_late(struct sock *sk, __u32 looks)
{
	(void)sk;
	(void)looks;
}

void dcc_sim_hpcc_defaults(struct dcc_sim_hpcc_cfg *c)
{
	struct hpcc_cfg d = HPCC_CFG_INIT;

	c->base_rtt_us = d.base_rtt_us;
	c->eta = d.eta;
	c->max_stage = d.max_stage;
	c->w_ai = d.w_ai;
	c->nflows = d.nflows;
	c->line_rate_mbps = d.line_rate_mbps;
	c->grow_pct = d.grow_pct;
	c->commit_samples = d.commit_samples;
	c->commit_wait_pct = d.commit_wait_pct;
	c->stale_rtts = d.stale_rtts;
	c->input = d.input;
}

void *dcc_sim_hpcc_new(const struct dcc_sim_hpcc_cfg *c)
{
	struct sock *sk = calloc(1, sizeof(*sk));

	if (!sk)
		abort();
	sk->k = calloc(1, sizeof(*sk->k));
	if (!sk->k)
		abort();
	sk->k->p.base_rtt_us = c->base_rtt_us;
	sk->k->p.eta = c->eta;
	sk->k->p.max_stage = c->max_stage;
	sk->k->p.w_ai = c->w_ai;
	sk->k->p.nflows = c->nflows;
	sk->k->p.line_rate_mbps = c->line_rate_mbps;
	sk->k->p.grow_pct = c->grow_pct;
	sk->k->p.commit_samples = c->commit_samples;
	sk->k->p.commit_wait_pct = c->commit_wait_pct;
	sk->k->p.stale_rtts = c->stale_rtts;
	sk->k->p.input = c->input;
	hpcc_ctl_cfg_set(sk->k);
	return sk;
}

void dcc_sim_hpcc_free(void *h)
{
	struct sock *sk = h;

	free(sk->k);
	free(sk);
}

struct dcc_sim_io *dcc_sim_hpcc_io(void *h) { return &((struct sock *)h)->io; }
void dcc_sim_hpcc_init(void *h) { hpcc_ctl_init(h); }
void dcc_sim_hpcc_update(void *h, int acked) { hpcc_ctl_update(h, acked); }
void dcc_sim_hpcc_set_state(void *h, __u8 s) { hpcc_ctl_set_state(h, s); }
void dcc_sim_hpcc_cwnd_event(void *h, int ev) { hpcc_ctl_cwnd_event(h, ev); }
__u32 dcc_sim_hpcc_ssthresh(void *h) { return hpcc_ctl_ssthresh(h); }
__u32 dcc_sim_hpcc_undo_cwnd(void *h) { return hpcc_ctl_undo_cwnd(h); }
__u32 dcc_sim_hpcc_w(void *h) { return hpcc_ctl_ca(h)->st.W; }

const char *dcc_sim_hpcc_ctr_name(int i)
{
	static const char *const names[HPCC_C_NR] = HPCC_COUNTER_NAMES;

	return i >= 0 && i < HPCC_C_NR ? names[i] : "";
}
