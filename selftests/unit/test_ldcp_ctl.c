// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/ldcp_ctl.h, LDCP's controller, over a fake
 * socket that implements the accessors of include/dcc_ctl.h and the
 * controller's hooks: event traces as TCP would give them, against
 * windows and rates worked out by hand.
 *
 * The parameters are the module's defaults but for the IW: alpha 1,
 * beta 1/2, gamma 1/8, inc alpha; IW = 80 Mbit/s * 1 ms = 10000 bytes,
 * 10 packets of 1000 bytes; fast start paces at 80 Mbit/s, 10^7 bytes/s.
 * srtt is 100 us, so that the stable stage's rate, 120% of cwnd per
 * srtt, is 12 * 10^6 bytes/s per packet of cwnd.
 */
#include <string.h>

#include "ldcp.h"
#include "dcc_ctl.h"
#include "tap.h"

#define ICSK_ACK_TIMER	2
#define ICSK_ACK_NOW	16

struct sock {
	/* TCP's */
	__u32	cwnd, ssthresh, clamp, mss, srtt_us, snd_una, rcv_nxt;
	__u8	ca_state, ecn_ok, demand_cwr, ack_pending;
	__u64	pacing_rate, max_pacing_rate;
	/* the controller's */
	struct ldcp ca;
	/* parameters */
	struct ldcp_params p;
	__u32	bw_mbps, base_rtt_us;
	int	fast_start, ack_every;
	/* what the hooks saw */
	__u64	ctr[LDCP_C_NR];
	const char *event;
	__u32	trace_old, trace_n, acks_sent, ack_seq;
	int	traces, fs_started, fs_ended;
};

static inline __u32 dcc_cwnd(struct sock *sk) { return sk->cwnd; }
static inline void dcc_set_cwnd(struct sock *sk, __u32 v) { sk->cwnd = v; }
static inline __u32 dcc_ssthresh(struct sock *sk) { return sk->ssthresh; }
static inline void dcc_set_ssthresh(struct sock *sk, __u32 v) { sk->ssthresh = v; }
static inline __u32 dcc_cwnd_clamp(struct sock *sk) { return sk->clamp; }
static inline __u32 dcc_mss(struct sock *sk) { return sk->mss ? sk->mss : 1; }
static inline __u32 dcc_srtt_us(struct sock *sk) { return sk->srtt_us; }
static inline __u32 dcc_snd_una(struct sock *sk) { return sk->snd_una; }
static inline __u8 dcc_ca_state(struct sock *sk) { return sk->ca_state; }

static inline void dcc_set_pacing_rate(struct sock *sk, __u64 rate)
{
	sk->pacing_rate = rate < sk->max_pacing_rate ? rate : sk->max_pacing_rate;
}

static inline struct ldcp *ldcp_ctl_ca(struct sock *sk) { return &sk->ca; }

static inline void ldcp_ctl_params(struct sock *sk, struct ldcp_params *p)
{
	*p = sk->p;
}

static inline __u32 ldcp_ctl_iw(struct sock *sk)
{
	return ldcp_iw_bdp(sk->bw_mbps, sk->base_rtt_us, sk->mss);
}

static inline int ldcp_ctl_fast_start(struct sock *sk) { return sk->fast_start; }

static inline __u64 ldcp_ctl_fs_rate(struct sock *sk)
{
	return (__u64)sk->bw_mbps * 125000;
}

static inline int ldcp_ctl_ack_every(struct sock *sk) { return sk->ack_every; }
static inline void ldcp_ctl_count(struct sock *sk, int i) { sk->ctr[i]++; }

static inline void ldcp_ctl_trace(struct sock *sk, const struct ldcp *ca,
				  __u32 cw_old, __u32 n, const char *event)
{
	(void)ca;
	sk->traces++;
	sk->trace_old = cw_old;
	sk->trace_n = n;
	sk->event = event;
}

static inline void ldcp_ctl_fs_start(struct sock *sk, struct ldcp *ca)
{
	(void)ca;
	sk->fs_started++;
}

static inline void ldcp_ctl_fs_end(struct sock *sk, struct ldcp *ca)
{
	(void)ca;
	sk->fs_ended++;
}

static inline int ldcp_ctl_ecn_ok(struct sock *sk) { return sk->ecn_ok; }
static inline void ldcp_ctl_demand_cwr(struct sock *sk, int on) { sk->demand_cwr = on; }
static inline __u32 ldcp_ctl_rcv_nxt(struct sock *sk) { return sk->rcv_nxt; }

static inline int ldcp_ctl_ack_timer(struct sock *sk)
{
	return sk->ack_pending & ICSK_ACK_TIMER;
}

static inline int ldcp_ctl_ack_now(struct sock *sk)
{
	return sk->ack_pending & ICSK_ACK_NOW;
}

static inline void ldcp_ctl_set_ack_now(struct sock *sk)
{
	sk->ack_pending |= ICSK_ACK_NOW;
}

static inline void ldcp_ctl_send_ack(struct sock *sk, __u32 rcv_nxt)
{
	sk->acks_sent++;
	sk->ack_seq = rcv_nxt;
}

#include "ldcp_ctl.h"

#define PK(x)		((__u32)((x) * LDCP_ONE))
#define ISN		1000000U
#define MSS		1000U
#define RATE_PER_PK	12000000ULL	/* 1.2 * 1000 bytes / 100 us */

/* A socket just past the handshake; ldcp_ctl_init() not yet run. */
static void sk_new(struct sock *sk, int fast_start)
{
	memset(sk, 0, sizeof(*sk));
	sk->cwnd = 10;
	sk->ssthresh = DCC_INFINITE_SSTHRESH;
	sk->clamp = 100000;
	sk->mss = MSS;
	sk->snd_una = ISN;
	sk->rcv_nxt = 5000;
	sk->ecn_ok = 1;
	sk->max_pacing_rate = ~0ULL;
	ldcp_params_derive(&sk->p, 1000, 500, 8, 1);
	sk->bw_mbps = 80;
	sk->base_rtt_us = 1000;
	sk->fast_start = fast_start;
	sk->ack_every = 1;
}

/* An ACK of @n packets, in order, with or without ECE */
static void ack(struct sock *sk, __u32 n, int ece)
{
	sk->snd_una += n * MSS;
	ldcp_ctl_in_ack_event(sk, ece);
	ldcp_ctl_cong_control(sk, n, 0);
}

/* TCP's tcp_set_ca_state(): the callback, then the state */
static void set_state(struct sock *sk, __u8 s)
{
	ldcp_ctl_set_state(sk, s);
	sk->ca_state = s;
}

/* A socket in the stable stage at cw = 10 packets, srtt 100 us. */
static void sk_stable10(struct sock *sk)
{
	sk_new(sk, 1);
	ldcp_ctl_init(sk);
	sk->srtt_us = 100;
	ack(sk, 10, 0);
}

static void test_params(void)
{
	struct ldcp_params p;

	ldcp_params_derive(&p, 1000, 500, 8, 1);
	tap_ok(p.alpha == LDCP_ONE && p.beta == LDCP_ONE / 2 && p.gamma == LDCP_ONE / 8 &&
	       p.inc == LDCP_ONE && p.iw == 0,
	       "derived parameters: alpha 1, beta 1/2, gamma 1/8, inc alpha (%u %u %u %u)",
	       p.alpha, p.beta, p.gamma, p.inc);
	ldcp_params_derive(&p, 1, 1000, 16, 0);
	/* 65536 / 1000 = 65.536 -> 65 */
	tap_ok(p.alpha == 65 && p.beta == LDCP_ONE && p.gamma == 4096 && p.inc == 0,
	       "derived parameters: alpha 1/1000 = 65, beta 1, gamma 1/16, inc 0 (%u %u %u %u)",
	       p.alpha, p.beta, p.gamma, p.inc);
}

static void test_fast_start_iw(void)
{
	struct sock s, *sk = &s;

	sk_new(sk, 1);
	ldcp_ctl_cong_control(sk, 1, 0);
	tap_ok(sk->cwnd == 10 && sk->pacing_rate == 0 && sk->ctr[LDCP_C_FLOWS] == 0,
	       "an ACK before init (an active open's SYN-ACK) changes nothing");
	ldcp_ctl_init(sk);
	tap_eq_u64(sk->ca.st.cw, PK(10), "init: cw = IW = 80 Mbit/s * 1 ms / 1000 bytes = 10");
	tap_ok(sk->ca.st.phase == LDCP_FAST_START && sk->cwnd == 10 && sk->ssthresh == 10 &&
	       sk->fs_started == 1,
	       "init: fast start, snd_cwnd = ssthresh = 10, the flavour's fast start begun");
	tap_eq_u64(sk->pacing_rate, 10000000, "init: paced at bw_mbps, 10^7 bytes/s");
	tap_ok(sk->ctr[LDCP_C_FLOWS] == 1 && sk->ctr[LDCP_C_FLOWS_FAST_START] == 1 &&
	       sk->ctr[LDCP_C_FLOWS_NO_ECN] == 0,
	       "init: counted a flow in fast start, with ECN");
	sk->srtt_us = 100;
	ack(sk, 9, 0);
	tap_ok(sk->ca.st.phase == LDCP_FAST_START && sk->ca.st.cw == PK(10) &&
	       sk->ctr[LDCP_C_ACKS] == 0 && sk->traces == 0 &&
	       sk->pacing_rate == 10000000,
	       "9 of 10 packets acknowledged: still fast start, cw = IW, no PAWA");
	ack(sk, 1, 1);
	tap_ok(sk->ca.st.phase == LDCP_STABLE && sk->ca.st.exit == LDCP_EXIT_IW &&
	       sk->ca.st.cw == PK(10) && sk->ctr[LDCP_C_FS_IW] == 1 && sk->fs_ended == 1,
	       "the 10th packet acknowledged (with ECE): fast start ends at cw = IW, not PAWA");
	tap_ok(sk->traces == 1 && !strcmp(sk->event, "fs_iw") && sk->trace_old == PK(10),
	       "... traced as fs_iw");
	tap_eq_u64(sk->pacing_rate, 10 * RATE_PER_PK,
		   "... paced at 1.2 * 10 * 1000 bytes / 100 us");
	tap_ok(sk->ca.ece == 0, "the ACK's ECE is consumed by its cong_control");
}

/*
 * A socket that starts with the ssthresh the kernel remembers for its
 * destination (tcp_init_metrics()): the IW is at most that, at least one
 * packet; one above the IW, or none, leaves the IW as it is.
 */
static void test_fast_start_remembered(void)
{
	struct sock s, *sk = &s;

	sk_new(sk, 1);
	sk->ssthresh = 4;
	ldcp_ctl_init(sk);
	tap_ok(sk->ca.iw == PK(4) && sk->ca.st.cw == PK(4) && sk->cwnd == 4 &&
	       sk->ca.st.phase == LDCP_FAST_START && sk->pacing_rate == 10000000 &&
	       sk->ctr[LDCP_C_IW_REMEMBERED] == 1,
	       "init, ssthresh 4 remembered: fast start at an IW of 4, paced at bw_mbps, counted");
	ack(sk, 4, 0);
	tap_ok(sk->ca.st.phase == LDCP_STABLE && sk->ctr[LDCP_C_FS_IW] == 1,
	       "... and over once those 4 are acknowledged");

	sk_new(sk, 1);
	sk->ssthresh = 25;
	ldcp_ctl_init(sk);
	tap_ok(sk->ca.st.cw == PK(10) && !sk->ctr[LDCP_C_IW_REMEMBERED],
	       "init, ssthresh 25 remembered: the IW, 10, not counted");

	sk_new(sk, 1);
	sk->ssthresh = 0;
	ldcp_ctl_init(sk);
	tap_eq_u64(sk->ca.st.cw, PK(1), "init, ssthresh 0: one packet");
}

static void test_fast_start_loss(void)
{
	struct sock s, *sk = &s;

	sk_new(sk, 1);
	ldcp_ctl_init(sk);
	ack(sk, 3, 0);
	sk->snd_una += MSS;
	ldcp_ctl_cong_control(sk, 1, 1);
	tap_ok(sk->ca.st.phase == LDCP_STABLE && sk->ca.st.exit == LDCP_EXIT_LOSS &&
	       sk->ca.st.cw == PK(4) && sk->cwnd == 4 && sk->ctr[LDCP_C_FS_LOSS] == 1 &&
	       sk->ctr[LDCP_C_FS_IW] == 0 && sk->fs_ended == 1,
	       "a loss in fast start after 4 packets acknowledged: cw = 4 (cw %u, cwnd %u)",
	       sk->ca.st.cw, sk->cwnd);
	tap_ok(!strcmp(sk->event, "fs_loss") && sk->pacing_rate == ~0ULL,
	       "... traced as fs_loss; without an srtt, no pacing limit");

	sk_new(sk, 1);
	ldcp_ctl_init(sk);
	sk->srtt_us = 100;
	ack(sk, 6, 0);
	set_state(sk, TCP_CA_Recovery);
	tap_ok(sk->ca.st.exit == LDCP_EXIT_LOSS && sk->ca.st.cw == PK(6) && sk->cwnd == 6 &&
	       sk->ctr[LDCP_C_FS_LOSS] == 1 && sk->ctr[LDCP_C_LOSSES] == 0 &&
	       sk->pacing_rate == 6 * RATE_PER_PK,
	       "fast recovery in fast start after 6 packets: cw = 6, not a stable-stage loss");
	ack(sk, 1, 0);
	tap_ok(sk->ca.st.cw == PK(6) && sk->ctr[LDCP_C_ACKS] == 0,
	       "... and no PAWA while in recovery");

	sk_new(sk, 1);
	ldcp_ctl_init(sk);
	ldcp_ctl_cwnd_event(sk, CA_EVENT_LOSS);
	tap_ok(sk->ca.st.cw == PK(1) && sk->cwnd == 1,
	       "an RTO in fast start before any ACK: cw = one packet, not none");
}

static void test_pawa(void)
{
	struct sock s, *sk = &s;

	sk_stable10(sk);
	sk->traces = 0;
	ack(sk, 1, 0);
	/* 655360 + 65536 * 65536 / 655360 = 655360 + 6553 */
	tap_eq_u64(sk->ca.st.cw, 661913, "PAWA, an ACK without ECE: cw = 10 + 1/10");
	tap_ok(sk->cwnd == 10 && sk->ssthresh == 10 && sk->ctr[LDCP_C_ACKS] == 1 &&
	       sk->ctr[LDCP_C_ECE_ACKS] == 0 && sk->ca.acks == 1 &&
	       !strcmp(sk->event, "pawa") && sk->trace_n == 1,
	       "... snd_cwnd 10, counted and traced as pawa");
	ack(sk, 1, 1);
	tap_eq_u64(sk->ca.st.cw, 661913 - 32768, "PAWA, an ACK with ECE: cw - beta = 9.6");
	tap_ok(sk->cwnd == 9 && sk->ctr[LDCP_C_ECE_ACKS] == 1 && sk->ca.ece_acks == 1 &&
	       sk->pacing_rate == 9 * RATE_PER_PK,
	       "... snd_cwnd 9, paced at 9 packets per srtt * 1.2, counted with ECE");
	ack(sk, 3, 1);
	tap_eq_u64(sk->ca.st.cw, 661913 - 4 * 32768, "PAWA, an ECE ACK of 3 packets: 3 beta off");
	ack(sk, 2, 0);
	/* 530841 + 2 * 2^32 / 530841 = 530841 + 16181 */
	tap_eq_u64(sk->ca.st.cw, 530841 + 16181, "PAWA, an ACK of 2 without ECE: 2 alpha / cw on");
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_eq_u64(sk->ca.st.cw, 547022, "an ACK of nothing changes nothing");
}

static void test_below_one(void)
{
	struct sock s, *sk = &s;

	sk_new(sk, 0);
	sk->cwnd = 1;
	ldcp_ctl_init(sk);
	tap_ok(sk->ca.st.phase == LDCP_STABLE && sk->ca.st.cw == PK(1) && sk->fs_started == 0 &&
	       sk->ctr[LDCP_C_FLOWS_FAST_START] == 0,
	       "fast_start=0: PAWA from TCP's window, one packet");
	sk->srtt_us = 100;
	ack(sk, 1, 1);
	tap_ok(sk->ca.st.cw == PK(0.5) && sk->cwnd == 1 && sk->ctr[LDCP_C_BELOW_ONE] == 0,
	       "ECE at cw = 1: 0.5; snd_cwnd stays one packet");
	/* one packet every 100 us / 0.5 = 200 us: 1000 bytes / 200 us */
	tap_eq_u64(sk->pacing_rate, 5000000,
		   "cw = 0.5: one packet every RTT / cw, 5 * 10^6 bytes/s");
	ack(sk, 1, 1);
	tap_ok(sk->ca.st.cw == PK(0.25) && sk->pacing_rate == 2500000 &&
	       sk->ctr[LDCP_C_BELOW_ONE] == 1,
	       "ECE at cw = 0.5: 0.25, one packet per 400 us, counted below one");
	ack(sk, 1, 1);
	ack(sk, 1, 1);
	tap_ok(sk->ca.st.cw == PK(0.125) && sk->pacing_rate == 1250000 &&
	       sk->ctr[LDCP_C_BELOW_ONE] == 3,
	       "ECE twice more: cw halves to gamma = 1/8 and stays there");
	ack(sk, 1, 0);
	tap_ok(sk->ca.st.cw == PK(1.125) && sk->cwnd == 1 && sk->pacing_rate == RATE_PER_PK,
	       "an unmarked ACK below one packet adds inc = alpha: 1.125, TCP's rate again");

	sk_new(sk, 0);
	sk->cwnd = 1;
	ldcp_params_derive(&sk->p, 1000, 500, 8, 0);
	ldcp_ctl_init(sk);
	sk->srtt_us = 100;
	ack(sk, 1, 1);
	ack(sk, 2, 0);
	/*
	 * 0.5 + 2/8 = 0.75: one packet per 100 us / 0.75, 133333 ns
	 * truncated, 10^12 / 133333 = 7500018 bytes/s
	 */
	tap_ok(sk->ca.st.cw == PK(0.75) && sk->pacing_rate == 7500018,
	       "below_one_inc=0: an ACK of 2 adds 2 gamma: 0.75, one packet per 133333 ns (%llu)",
	       (unsigned long long)sk->pacing_rate);
}

static void test_loss(void)
{
	struct sock s, *sk = &s;

	sk_stable10(sk);
	set_state(sk, TCP_CA_CWR);
	tap_ok(sk->ca.st.cw == PK(10) && sk->ctr[LDCP_C_LOSSES] == 0,
	       "CWR (an ECE to TCP) leaves cw alone");
	set_state(sk, TCP_CA_Open);
	set_state(sk, TCP_CA_Recovery);
	tap_ok(sk->ca.st.cw == PK(5) && sk->cwnd == 5 && sk->ssthresh == 5 &&
	       sk->ctr[LDCP_C_LOSSES] == 1 && !strcmp(sk->event, "loss") &&
	       sk->trace_old == PK(10),
	       "fast recovery: cw halves, 10 -> 5, counted and traced as loss");
	ack(sk, 2, 1);
	tap_ok(sk->ca.st.cw == PK(5) && sk->ctr[LDCP_C_ACKS] == 0,
	       "no PAWA in recovery, not even for an ECE");
	set_state(sk, TCP_CA_Loss);
	tap_ok(sk->ca.st.cw == PK(5) && sk->ctr[LDCP_C_LOSSES] == 1,
	       "an RTO inside the episode that TCP does not count: no second halving");
	ldcp_ctl_cwnd_event(sk, CA_EVENT_LOSS);
	tap_ok(sk->ca.st.cw == PK(2.5) && sk->ctr[LDCP_C_LOSSES] == 2,
	       "CA_EVENT_LOSS inside the episode (an RTO TCP counts): cw halves again, 2.5");
	sk->ca_state = TCP_CA_Recovery;
	set_state(sk, TCP_CA_Loss);
	tap_ok(sk->ca.st.cw == PK(2.5) && sk->ctr[LDCP_C_LOSSES] == 2,
	       "... and its entry into the loss state does not halve it a third time");
	set_state(sk, TCP_CA_Open);
	set_state(sk, TCP_CA_Recovery);
	tap_ok(sk->ca.st.cw == PK(1.25) && sk->ctr[LDCP_C_LOSSES] == 3,
	       "a new episode after the last ended halves it again: 1.25");

	sk_stable10(sk);
	set_state(sk, TCP_CA_Recovery);
	tap_eq_u64(ldcp_ctl_undo_cwnd(sk), 10, "undo: snd_cwnd back to cw before the loss, 10");
	tap_ok(sk->ca.st.cw == PK(10) && sk->ctr[LDCP_C_UNDOS] == 1 && sk->ca.loss_cw == 0,
	       "... cw restored, counted once");
	tap_ok(ldcp_ctl_undo_cwnd(sk) == 10 && sk->ctr[LDCP_C_UNDOS] == 1,
	       "a second undo changes nothing");
	sk->cwnd = 7;
	tap_eq_u64(ldcp_ctl_ssthresh(sk), 7, "ssthresh: snd_cwnd as it is");
	sk->cwnd = 1;
	tap_eq_u64(ldcp_ctl_ssthresh(sk), 2, "ssthresh: at least 2");
}

static void test_rto(void)
{
	struct sock s, *sk = &s;

	sk_stable10(sk);
	ldcp_ctl_cwnd_event(sk, CA_EVENT_LOSS);
	/* tcp_enter_loss(): the loss window, then the state */
	sk->cwnd = 1;
	set_state(sk, TCP_CA_Loss);
	tap_ok(sk->ca.st.cw == PK(5) && sk->ctr[LDCP_C_LOSSES] == 1,
	       "an RTO: cw halves once, 5");
	ack(sk, 1, 0);
	tap_ok(sk->cwnd == 2 && sk->ssthresh == 5 && sk->ca.st.cw == PK(5) &&
	       sk->ctr[LDCP_C_ACKS] == 0 && !strcmp(sk->event, "rto"),
	       "after it, an ACK of 1: snd_cwnd grows from the loss window, 1 + 1 (cwnd %u)",
	       sk->cwnd);
	ack(sk, 2, 0);
	tap_eq_u64(sk->cwnd, 4, "an ACK of 2: 2 + 2");
	ack(sk, 2, 0);
	tap_eq_u64(sk->cwnd, 5, "an ACK of 2: 4 + 2, held at cw = 5");
	set_state(sk, TCP_CA_Open);
	ack(sk, 1, 0);
	/* 327680 + 2^32 / 327680 = 327680 + 13107 */
	tap_ok(sk->ca.st.cw == 327680 + 13107 && sk->cwnd == 5 && sk->ctr[LDCP_C_ACKS] == 1,
	       "back in Open: PAWA again from cw = 5");
}

static void test_receiver(void)
{
	struct sock s, *sk = &s;

	sk_stable10(sk);
	sk->rcv_nxt = 9000;
	sk->ack_pending = ICSK_ACK_TIMER;
	ldcp_ctl_cwnd_event(sk, CA_EVENT_ECN_IS_CE);
	tap_ok(sk->acks_sent == 1 && sk->ack_seq == 5000,
	       "CE after non-CE with an ACK delayed: it goes out first, for rcv_nxt at the last event");
	tap_ok(sk->demand_cwr == 1 && sk->ca.ce_state == 1 && sk->ca.prior_rcv_nxt == 9000 &&
	       (sk->ack_pending & ICSK_ACK_NOW) && sk->ctr[LDCP_C_CE_CHANGES] == 1 &&
	       sk->ctr[LDCP_C_ACKS_NOW] == 0,
	       "... then ECE held, an ACK now, the change counted (and not as acks_now)");
	sk->ack_pending = 0;
	ldcp_ctl_cwnd_event(sk, CA_EVENT_ECN_IS_CE);
	tap_ok(sk->acks_sent == 1 && sk->ctr[LDCP_C_CE_CHANGES] == 1 &&
	       (sk->ack_pending & ICSK_ACK_NOW) && sk->ctr[LDCP_C_ACKS_NOW] == 1,
	       "CE again: no change to echo; ack_every ACKs it at once, counted");
	sk->ack_pending = 0;
	sk->ack_every = 0;
	ldcp_ctl_cwnd_event(sk, CA_EVENT_ECN_IS_CE);
	tap_ok(!(sk->ack_pending & ICSK_ACK_NOW) && sk->ctr[LDCP_C_ACKS_NOW] == 1,
	       "ack_every=0: TCP's delayed ACK");
	ldcp_ctl_cwnd_event(sk, CA_EVENT_ECN_NO_CE);
	tap_ok(sk->acks_sent == 1 && sk->demand_cwr == 0 && sk->ca.ce_state == 0 &&
	       (sk->ack_pending & ICSK_ACK_NOW) && sk->ctr[LDCP_C_CE_CHANGES] == 2,
	       "non-CE after CE, no ACK delayed: ECE released, an ACK now");
	ldcp_ctl_cwnd_event(sk, CA_EVENT_TX_START);
	tap_ok(sk->ctr[LDCP_C_CE_CHANGES] == 2 && sk->ca.st.cw == PK(10),
	       "other events change nothing");

	sk_new(sk, 1);
	sk->ecn_ok = 0;
	ldcp_ctl_init(sk);
	tap_ok(sk->ctr[LDCP_C_FLOWS_NO_ECN] == 1, "a flow without ECN is counted");
}

static void test_pacing(void)
{
	struct sock s, *sk = &s;

	sk_stable10(sk);
	sk->ca.pace_rate = 42;
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_eq_u64(sk->pacing_rate, 42,
		   "the rate is not worked out again while cwnd, srtt and the MSS are as they were");
	sk->srtt_us = 200;
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_eq_u64(sk->pacing_rate, 5 * RATE_PER_PK, "srtt doubled: the rate halves");
	sk->mss = 500;
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_eq_u64(sk->pacing_rate, 5 * RATE_PER_PK / 2, "the MSS halved: the rate halves");
	ack(sk, 1, 0);
	tap_eq_u64(sk->pacing_rate, 5 * RATE_PER_PK / 2,
		   "cw grown within the same whole packets: the same rate");
	sk->max_pacing_rate = 1000000;
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_eq_u64(sk->pacing_rate, 1000000, "the flavour clamps it to sk_max_pacing_rate");
	sk->max_pacing_rate = ~0ULL;
	sk->clamp = 4;
	ldcp_ctl_cong_control(sk, 0, 0);
	tap_ok(sk->cwnd == 4 && sk->pacing_rate == 4 * RATE_PER_PK / 4,
	       "snd_cwnd_clamp 4: snd_cwnd 4, the rate of 4 packets of 500 bytes per 200 us");

	/* below one packet: the cached rate follows cw, not cwnd */
	sk_new(sk, 0);
	sk->cwnd = 1;
	ldcp_ctl_init(sk);
	sk->srtt_us = 100;
	ack(sk, 1, 1);
	ack(sk, 1, 1);
	tap_eq_u64(sk->pacing_rate, 2500000, "below one packet, cw 0.5 then 0.25: rate of 0.25");
	ack(sk, 1, 0);
	ack(sk, 1, 1);
	tap_ok(sk->ca.st.cw == PK(0.75) && sk->pacing_rate == 7500018,
	       "cw 1.25 then ECE, 0.75: one packet per 133333 ns (%llu)",
	       (unsigned long long)sk->pacing_rate);
}

int main(void)
{
	tap_plan(67);
	test_params();
	test_fast_start_iw();
	test_fast_start_remembered();
	test_fast_start_loss();
	test_pawa();
	test_below_one();
	test_loss();
	test_rto();
	test_receiver();
	test_pacing();
	return tap_done();
}
