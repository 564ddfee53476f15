// SPDX-License-Identifier: GPL-2.0
/*
 * LDCP's controller (include/ldcp_ctl.h) compiled as C for the ns-3
 * model: the flavour's socket, accessors and hooks, and the small C API
 * of sim/dcc_sim.h that ns3::TcpLdcpDcc (sim/tcp-dcc-sim.cc) calls.
 * Nothing of the algorithm is here.
 *
 * The receiver's hooks: ns-3's receivers of ldcp's flows ACK every
 * segment (dccsim sets DelAckCount 1), so no delayed ACK is ever pending
 * when the CE state changes (ldcp_ctl_ack_timer() 0) and every segment
 * is acknowledged at once (ldcp_ctl_ack_now() 1); the ECE that
 * ldcp_ctl_demand_cwr() asks for goes onto the socket's ECN state.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "dcc_sim.h"
#include "dcc_ctl.h"
#include "ldcp.h"

struct sock {
	struct dcc_sim_io io;		/* first: the API's handle is the socket */
	struct dcc_sim_ldcp_cfg c;
	struct ldcp_params p;		/* ldcp_params_derive()'s, at creation */
	struct ldcp ca;
};

#include "dcc_glue_common.h"

static inline struct ldcp *ldcp_ctl_ca(struct sock *sk) { return &sk->ca; }

static inline void ldcp_ctl_params(struct sock *sk, struct ldcp_params *p)
{
	*p = sk->p;
}

static inline __u32 ldcp_ctl_iw(struct sock *sk)
{
	return ldcp_iw_bdp(sk->c.bw_mbps, sk->c.base_rtt_us, dcc_mss(sk));
}

static inline int ldcp_ctl_fast_start(struct sock *sk) { return sk->c.fast_start; }

static inline __u64 ldcp_ctl_fs_rate(struct sock *sk)
{
	return (__u64)sk->c.bw_mbps * 125000;
}

static inline int ldcp_ctl_ack_every(struct sock *sk) { return sk->c.ack_every; }

static inline void ldcp_ctl_count(struct sock *sk, int i)
{
	if (i >= 0 && i < (int)ARRAY_SIZE(sk->io.ctr))
		sk->io.ctr[i]++;
}

static inline void ldcp_ctl_trace(struct sock *sk, const struct ldcp *ca,
				  __u32 cw_old, __u32 n, const char *event)
{
	(void)ca;
	(void)cw_old;
	(void)n;
	sk->io.trace_src = event;
}

/* the module's not-ECT fast start (fs_not_ect) has no ns-3 counterpart */
static inline void ldcp_ctl_fs_start(struct sock *sk, struct ldcp *ca)
{
	(void)sk;
	(void)ca;
}

static inline void ldcp_ctl_fs_end(struct sock *sk, struct ldcp *ca)
{
	(void)sk;
	(void)ca;
}

static inline int ldcp_ctl_ecn_ok(struct sock *sk) { return sk->io.ecn_ok; }
static inline void ldcp_ctl_demand_cwr(struct sock *sk, int on) { sk->io.demand_cwr = !!on; }
static inline __u32 ldcp_ctl_rcv_nxt(struct sock *sk) { return sk->io.rcv_nxt; }
static inline int ldcp_ctl_ack_timer(struct sock *sk) { (void)sk; return 0; }
static inline int ldcp_ctl_ack_now(struct sock *sk) { (void)sk; return 1; }
static inline void ldcp_ctl_set_ack_now(struct sock *sk) { (void)sk; }

static inline void ldcp_ctl_send_ack(struct sock *sk, __u32 rcv_nxt)
{
	(void)sk;
	(void)rcv_nxt;
}

#include "ldcp_ctl.h"

static_assert(LDCP_C_NR == DCC_SIM_LDCP_NCTR, "the counters' number");

void *dcc_sim_ldcp_new(const struct dcc_sim_ldcp_cfg *c)
{
	struct sock *sk = calloc(1, sizeof(*sk));

	if (!sk)
		abort();
	sk->c = *c;
	ldcp_params_derive(&sk->p, c->alpha_milli, c->beta_milli, c->gamma_div,
			   c->below_one_inc);
	return sk;
}

void dcc_sim_ldcp_free(void *h) { free(h); }
struct dcc_sim_io *dcc_sim_ldcp_io(void *h) { return &((struct sock *)h)->io; }
void dcc_sim_ldcp_init(void *h) { ldcp_ctl_init(h); }

void dcc_sim_ldcp_cong_control(void *h, int acked_sacked, int losses)
{
	ldcp_ctl_cong_control(h, acked_sacked, losses);
}

void dcc_sim_ldcp_in_ack_event(void *h, int ece) { ldcp_ctl_in_ack_event(h, ece); }
void dcc_sim_ldcp_set_state(void *h, __u8 s) { ldcp_ctl_set_state(h, s); }
void dcc_sim_ldcp_cwnd_event(void *h, int ev) { ldcp_ctl_cwnd_event(h, ev); }
__u32 dcc_sim_ldcp_ssthresh(void *h) { return ldcp_ctl_ssthresh(h); }
__u32 dcc_sim_ldcp_undo_cwnd(void *h) { return ldcp_ctl_undo_cwnd(h); }
__u32 dcc_sim_ldcp_iw(void *h) { return ((struct sock *)h)->ca.iw; }
__u32 dcc_sim_ldcp_cw(void *h) { return ((struct sock *)h)->ca.st.cw; }

const char *dcc_sim_ldcp_ctr_name(int i)
{
	static const char *const names[LDCP_C_NR] = LDCP_COUNTER_NAMES;

	return i >= 0 && i < LDCP_C_NR ? names[i] : "";
}
