// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/hpcc_ctl.h, tcp_hpcc's controller, over a fake
 * socket: the flavour interface of include/dcc_ctl.h defined over plain
 * fields, driven through traces of ACKs and loss events.  The expected
 * windows and rates are the draft's formulas evaluated on paper for
 * these numbers: a 10 Gbit/s line, T = 100 us, srtt 200 us, MSS 1000.
 */
#include <stdbool.h>
#include <string.h>

#include <linux/types.h>

#include "hpcc_api.h"

/* The flavour's own state: none here. */
struct hpcc_ctl_flavour {
};

struct sock {
	__u32	cwnd, ssthresh, clamp, mss, srtt_us, min_rtt_us, delivered;
	__u32	packets_out, snd_una, snd_nxt, cwnd_cnt, prior_cwnd;
	__u8	ca_state;
	__u64	now_us, pacing;
	/* telemetry */
	int	negotiated;
	unsigned int have;	/* bit t: a sample of type t */
	struct {
		__u32	format, s;
		__u64	t_ns;
	} sm[3];		/* ABW/C, PD, U */
	/* what the controller did */
	unsigned int reads, looks, late_looks, traces;
	__u64	trace_rate;
	__u32	trace_w;
	const char *trace_src;
	__u64	ctr[HPCC_C_NR];
	const struct hpcc_ctl_cfg *k;
	__u64	priv[13];	/* icsk_ca_priv, 104 bytes */
};

static __u32 dcc_cwnd(struct sock *sk) { return sk->cwnd; }
static void dcc_set_cwnd(struct sock *sk, __u32 v) { sk->cwnd = v; }
static __u32 dcc_ssthresh(struct sock *sk) { return sk->ssthresh; }
static void dcc_set_ssthresh(struct sock *sk, __u32 v) { sk->ssthresh = v; }
static __u32 dcc_cwnd_clamp(struct sock *sk) { return sk->clamp; }
static __u32 dcc_mss(struct sock *sk) { return sk->mss; }
static __u32 dcc_srtt_us(struct sock *sk) { return sk->srtt_us; }
static __u32 dcc_min_rtt_us(struct sock *sk) { return sk->min_rtt_us; }
static __u32 dcc_delivered(struct sock *sk) { return sk->delivered; }
static __u32 dcc_packets_out(struct sock *sk) { return sk->packets_out; }
static __u32 dcc_snd_una(struct sock *sk) { return sk->snd_una; }
static __u32 dcc_snd_nxt(struct sock *sk) { return sk->snd_nxt; }
static __u8 dcc_ca_state(struct sock *sk) { return sk->ca_state; }
static __u64 dcc_now_us(struct sock *sk) { return sk->now_us; }
static __u64 dcc_now_ns(struct sock *sk) { return sk->now_us * 1000; }
static void dcc_set_pacing_rate(struct sock *sk, __u64 r) { sk->pacing = r; }

/* tcp_reno_cong_avoid(): tcp_slow_start(), then tcp_cong_avoid_ai() */
static void dcc_reno_cong_avoid(struct sock *sk, __u32 acked)
{
	if (sk->cwnd < sk->ssthresh) {
		__u32 c = sk->cwnd + acked;

		c = c < sk->ssthresh ? c : sk->ssthresh;
		acked -= c - sk->cwnd;
		sk->cwnd = c;
		if (!acked)
			return;
	}
	if (sk->cwnd_cnt >= sk->cwnd) {
		sk->cwnd_cnt = 0;
		sk->cwnd++;
	}
	sk->cwnd_cnt += acked;
	if (sk->cwnd_cnt >= sk->cwnd) {
		__u32 delta = sk->cwnd_cnt / sk->cwnd;

		sk->cwnd_cnt -= delta * sk->cwnd;
		sk->cwnd += delta;
	}
}

static __u32 dcc_reno_undo_cwnd(struct sock *sk)
{
	return sk->cwnd > sk->prior_cwnd ? sk->cwnd : sk->prior_cwnd;
}

#include "hpcc_ctl.h"
#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The controller's hooks */
static inline struct hpcc_ctl *hpcc_ctl_ca(struct sock *sk)
{
	return (struct hpcc_ctl *)sk->priv;
}

static struct hpcc_ctl *fake_ca(struct sock *sk)
{
	return hpcc_ctl_ca(sk);
}

static inline const struct hpcc_ctl_cfg *hpcc_ctl_cfg(struct sock *sk)
{
	return sk->k;
}

static inline void hpcc_ctl_count(struct sock *sk, int i)
{
	sk->ctr[i]++;
}

static inline void hpcc_ctl_trace_late(struct sock *sk, __u32 looks)
{
	sk->late_looks = looks;
}

static inline bool hpcc_ctl_negotiated(struct sock *sk)
{
	sk->looks++;
	return sk->negotiated;
}

static inline void hpcc_ctl_trace(struct sock *sk, const struct hpcc_ctl *ca,
				  __u32 w, __u64 rate, const char *src, bool upd)
{
	sk->traces += 1 + (upd && ca);
	sk->trace_w = w;
	sk->trace_rate = rate;
	sk->trace_src = src;
}

static const int slot_type[3] = { CSIG_T_ABWC, CSIG_T_PD, CSIG_T_U };

static inline unsigned int hpcc_ctl_read(struct sock *sk, unsigned int want,
					 struct hpcc_ctl_sample *out)
{
	int i;

	sk->reads++;
	for (i = 0; i < HPCC_CTL_NS; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].s.format = sk->sm[i].format;
		out[i].s.type = slot_type[i];
		out[i].s.s = sk->sm[i].s;
		out[i].t_ns = sk->sm[i].t_ns;
	}
	return sk->have & want;
}

#define ETA		996147U		/* 95 * 2^20 / 100 */
#define W_AI		390U		/* 125000 * (2^20 - ETA) >> 20 / 16 */
#define LINE_BPS	1250000000ULL	/* 10 Gbit/s */

static struct hpcc_ctl_cfg cfg_of(__u32 base_rtt_us, __u32 input)
{
	struct hpcc_ctl_cfg k = { .p = HPCC_CFG_INIT };

	k.p.base_rtt_us = base_rtt_us;
	k.p.input = input;
	/* the draft's commit rule and growth, for round numbers */
	k.p.commit_samples = 0;
	k.p.commit_wait_pct = 0;
	k.p.grow_pct = 0;
	hpcc_ctl_cfg_set(&k);
	return k;
}

/* A socket that starts with ssthresh @ss (the kernel's for the destination) */
static void sock_init_ss(struct sock *sk, const struct hpcc_ctl_cfg *k,
			 int negotiated, __u32 ss)
{
	memset(sk, 0, sizeof(*sk));
	sk->cwnd = 10;
	sk->ssthresh = ss;
	sk->clamp = 10000;
	sk->mss = 1000;
	sk->srtt_us = 200;
	sk->min_rtt_us = 100;
	sk->snd_una = 1000;
	sk->snd_nxt = 1000;
	sk->now_us = 1000;
	sk->negotiated = negotiated;
	sk->k = k;
	hpcc_ctl_init(sk);
}

static void sock_init(struct sock *sk, const struct hpcc_ctl_cfg *k,
		      int negotiated)
{
	sock_init_ss(sk, k, negotiated, DCC_INFINITE_SSTHRESH);
}

/* A sample of CSIG type slot @i (HPCC_CTL_S_*), expanded format. */
static void sample(struct sock *sk, int i, __u32 s, __u64 t_ns)
{
	sk->sm[i].format = CSIG_FMT_EXPANDED;
	sk->sm[i].s = s;
	sk->sm[i].t_ns = t_ns;
	sk->have |= 1U << slot_type[i];
}

/* An ACK at @now_us of @acked packets, snd_una @una. */
static void ack(struct sock *sk, __u64 now_us, __u32 una, __u32 acked)
{
	sk->now_us = now_us;
	sk->snd_una = una;
	sk->delivered += acked;
	hpcc_ctl_update(sk, acked);
}

/* U = (s + 1) * 2^-16 - 2^-20, the high edge of expanded S */
#define U_HALF		32767U		/* 524287, 0.5 */
#define U_TWO		131071U		/* 2097151, 2.0 */

static void test_cfg(void)
{
	static const __u32 pct[] = { 0, 33, 100, 150, 250, 1000 };
	static const __u32 want[] = { 0, 33, 100, 150, 250, 1000 };
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_params p;
	struct sock sk;
	unsigned int i;
	int ok = 1;

	tap_eq_u64(k.eta, ETA, "eta 95%%: %u in 2^-20 units", ETA);
	tap_eq_u64(k.line_bps, LINE_BPS, "10000 Mbit/s: 1.25e9 bytes/s");
	sock_init(&sk, &k, 1);
	for (i = 0; i < ARRAY_SIZE(pct); i++) {
		k.p.commit_wait_pct = pct[i];
		hpcc_ctl_cfg_set(&k);
		hpcc_ctl_params(&sk, fake_ca(&sk), &k, 100, &p);
		if (p.commit_wait_us != want[i]) {
			tap_diag("pct %u: %u, want %u", pct[i], p.commit_wait_us,
				 want[i]);
			ok = 0;
		}
	}
	tap_ok(ok, "commit_wait_us = T * pct / 100 for pct 0, 33, 100, 150, 250, 1000");
	k.p.commit_wait_pct = 7;
	hpcc_ctl_cfg_set(&k);
	hpcc_ctl_params(&sk, fake_ca(&sk), &k, 333, &p);
	tap_eq_u64(p.commit_wait_us, 23, "7%% of 333 us: 23 us, rounded down");
	tap_ok(p.w_min == 125 && p.w_max == 416250 && p.t_ns == 333000,
	       "w_min MSS / 8, w_max line rate * max(T 333, srtt 200) = 416250");
	tap_ok(sizeof(struct hpcc_ctl) <= 104, "the state fits icsk_ca_priv: %zu bytes",
	       sizeof(struct hpcc_ctl));
}

/* Start, U samples, commits, stale telemetry, Reno, resume. */
static void test_u_path(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;
	__u32 w, c;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	/* W_init = 10000 Mbit/s * 100 us / 8 = 125000 bytes */
	tap_ok(ca->st.W == 125000 && ca->st.wc == 125000 && ca->w_ai == W_AI,
	       "start: W = Wc = W_init = 125000, W_ai 390");
	tap_ok(sk.cwnd == 126 && sk.ssthresh == 126 && sk.pacing == LINE_BPS,
	       "start: cwnd 125 + 1, ssthresh 126, pacing 125000 / 100 us = line rate");
	tap_ok(sk.ctr[HPCC_C_FLOWS] == 1 && !sk.ctr[HPCC_C_FLOWS_NO_CSIG] &&
	       !ca->fallback, "start: counted a flow with CSIG, no fallback");

	/* the first sample only records; the ACK passes lastUpdateSeq */
	sk.snd_nxt = 130000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 1099500);
	ack(&sk, 1100, 2000, 2);
	tap_ok(ca->st.U == 0 && ca->st.have_sample && sk.ctr[HPCC_C_SAMPLES_U] == 1,
	       "first U sample: recorded, U still 0");
	tap_ok(ca->st.W == 125390 && ca->st.wc == 125390 && ca->st.inc_stage == 1 &&
	       sk.ctr[HPCC_C_COMMITS] == 1 && ca->st.last_update_seq == 130000,
	       "commit, additive: W = Wc = 125000 + 390, incStage 1, lastUpdateSeq snd_nxt");
	tap_ok(sk.cwnd == 127 && sk.pacing == LINE_BPS && ca->rate == 1253900000ULL,
	       "cwnd 126 (125390 rounded up) + 1, R 1253900000 capped at the line rate");
	tap_eq_u64(sk.reads, 1, "one telemetry read per ACK");

	/* U = 2.0 over tau = T: U = u; W = Wc * eta / U + W_ai, not committed */
	sample(&sk, HPCC_CTL_S_U, U_TWO, 1199500);
	ack(&sk, 1200, 3000, 2);
	w = 125390ULL * ETA / 2097151 + W_AI;	/* 59560 + 390 */
	tap_ok(ca->st.U == 2097151 && ca->st.W == w && w == 59950 &&
	       ca->st.wc == 125390 && !ca->st.committed,
	       "U 2.0: W = 125390 * eta / U + W_ai = 59950, Wc kept before lastUpdateSeq");
	tap_ok(sk.cwnd == 61 && sk.pacing == 599500000ULL,
	       "cwnd 60 + 1, pacing 59950 / 100 us = 599500000 bytes/s");

	/* no new sample; the ACK passes lastUpdateSeq: the MI commit */
	sk.snd_nxt = 200000;
	ack(&sk, 1300, 131000, 2);
	tap_ok(ca->st.wc == 59950 && ca->st.mi && ca->st.inc_stage == 0 &&
	       sk.ctr[HPCC_C_COMMITS] == 2 && sk.ctr[HPCC_C_COMMITS_MI] == 1 &&
	       sk.ctr[HPCC_C_SAMPLES_U] == 2,
	       "commit, multiplicative: Wc 59950, incStage 0; the old sample not taken again");
	tap_eq_u64(sk.reads, 3, "three ACKs, three reads");

	/*
	 * stale: more than 4 * max(T, srtt) = 800 us since the sample.
	 * Before lastUpdateSeq W = 59950 * eta / U + W_ai = 28476 + 390.
	 */
	ack(&sk, 1999, 132000, 100);
	tap_ok(!ca->fallback && !sk.ctr[HPCC_C_FALLBACKS] && ca->st.W == 28866 &&
	       sk.cwnd == 30, "799.5 us after the last sample: not stale, W 28866");
	ack(&sk, 2000, 133000, 1);
	c = sk.cwnd;
	tap_ok(ca->fallback && sk.ctr[HPCC_C_FALLBACKS] == 1 &&
	       sk.ctr[HPCC_C_FALLBACK_ACKS] == 1 && sk.ssthresh == 30 && c == 30,
	       "800.5 us and a window acked: fallback, ssthresh = cwnd 30");
	tap_eq_u64(sk.pacing, 1000ULL * 80000 * 120 * 30 / 1600,
		   "Reno's pacing: 120%% of cwnd * MSS / srtt");
	tap_ok(!strcmp(sk.trace_src, "fallback") && sk.trace_w == 30000 &&
	       sk.trace_rate == sk.pacing, "traced: fallback, cwnd 30000 bytes");
	/* Reno's additive increase: a window of 30 acked, one more segment */
	ack(&sk, 2050, 162000, 29);
	tap_ok(sk.cwnd == 31 && sk.ctr[HPCC_C_FALLBACK_ACKS] == 2,
	       "fallback: Reno's congestion avoidance, cwnd 31");

	/* a new sample: HPCC resumes from Reno's window */
	sk.snd_nxt = 300000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 2099500);
	ack(&sk, 2100, 194000, 1);
	tap_ok(!ca->fallback && sk.ctr[HPCC_C_RESUMES] == 1 &&
	       ca->st.wc == 31000 && ca->st.last_update_seq == 300000,
	       "resume: Wc = Reno's 31 segments, lastUpdateSeq snd_nxt");
	tap_ok(ca->st.U == 524287 && ca->st.W == 31000 + W_AI && sk.cwnd == 33,
	       "resume: U 0.5 (tau capped at T), W = Wc + W_ai = 31390, cwnd 32 + 1");
}

/* Loss episodes and undo. */
static void test_loss(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	/* fast recovery: W and Wc halve */
	hpcc_ctl_set_state(&sk, TCP_CA_Recovery);
	sk.ca_state = TCP_CA_Recovery;
	tap_ok(ca->st.W == 62500 && ca->st.wc == 62500 && ca->w_loss == 125000 &&
	       sk.ctr[HPCC_C_LOSSES] == 1, "recovery: W halves to 62500, once");
	tap_ok(!strcmp(sk.trace_src, "loss") && sk.trace_w == 62500,
	       "traced: loss, W 62500");
	tap_eq_u64(hpcc_ctl_ssthresh(&sk), 126, "ssthresh with telemetry: cwnd, W set already");
	/* an ACK in recovery commits nothing */
	sk.snd_nxt = 500000;
	ack(&sk, 1100, 400000, 10);
	tap_ok(ca->st.W == 62500 && !ca->st.committed && sk.cwnd == 64,
	       "ACK in recovery: W stays, cwnd 63 + 1");
	/* an RTO in recovery, without CA_EVENT_LOSS: the same episode */
	hpcc_ctl_set_state(&sk, TCP_CA_Loss);
	sk.ca_state = TCP_CA_Loss;
	tap_ok(ca->st.W == 62500 && sk.ctr[HPCC_C_LOSSES] == 1,
	       "RTO in recovery without CA_EVENT_LOSS: no second halving");
	/* CA_EVENT_LOSS: TCP's new reduction, a new episode */
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_LOSS);
	tap_ok(ca->st.W == 31250 && ca->w_loss == 62500 && sk.ctr[HPCC_C_LOSSES] == 2,
	       "CA_EVENT_LOSS: W halves again, to 31250");
	/* in the loss state cwnd grows from TCP's loss window by the ACKed */
	sk.cwnd = 1;
	ack(&sk, 1200, 401000, 3);
	tap_ok(sk.cwnd == 4 && sk.ssthresh == 33,
	       "ACK in the loss state: cwnd 1 + 3 acked, ssthresh W's 32 + 1");
	/* undo: W before the last halving */
	tap_eq_u64(hpcc_ctl_undo_cwnd(&sk), 64, "undo: cwnd of W 62500, 63 + 1");
	tap_ok(ca->st.W == 62500 && ca->st.wc == 62500 && !ca->w_loss &&
	       sk.ctr[HPCC_C_UNDOS] == 1, "undo: W = Wc = 62500, counted");
	/* back in Open, a loss is a new episode; its undo restores W */
	hpcc_ctl_set_state(&sk, TCP_CA_Open);
	sk.ca_state = TCP_CA_Open;
	hpcc_ctl_set_state(&sk, TCP_CA_Recovery);
	tap_ok(ca->st.W == 31250 && sk.ctr[HPCC_C_LOSSES] == 3,
	       "a new episode after Open: W 31250");
	hpcc_ctl_undo_cwnd(&sk);
	tap_ok(ca->st.W == 62500 && sk.ctr[HPCC_C_UNDOS] == 2, "... undone: W 62500");
}

/* PD and ABW/C: u = min(PD, PD') / T + 1 - ABW/C */
static void test_std(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_STD);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	sk.snd_nxt = 100000;
	/* PD (389 + 1) * 128 - 1 = 49919 ns, ABW/C 0.5; U ignored */
	sample(&sk, HPCC_CTL_S_PD, 389, 1099000);
	sample(&sk, HPCC_CTL_S_ABWC, 524288, 1099500);
	sample(&sk, HPCC_CTL_S_U, U_TWO, 1099700);
	ack(&sk, 1100, 1000, 1);
	tap_ok(ca->source == HPCC_SRC_STD && sk.ctr[HPCC_C_SAMPLES_STD] == 1 &&
	       !sk.ctr[HPCC_C_SAMPLES_U] && ca->pd_last == 49919 &&
	       ca->info_ns == 1099500,
	       "input std: PD and ABW/C taken, U not; the pair's time is the newer");
	/* a new PD: min(PD, PD') = 49919 -> 49919 * 2^20 / 100000 = 523438 */
	sample(&sk, HPCC_CTL_S_PD, 389, 1199500);
	ack(&sk, 1200, 1000, 1);
	tap_ok(sk.ctr[HPCC_C_SAMPLES_STD] == 2 && ca->st.U == 523438 + 524288,
	       "u = 49919 / 100000 + 1 - 0.5 = 1047726 in 2^-20 units, tau = T");
	ack(&sk, 1250, 1000, 1);
	tap_eq_u64(sk.ctr[HPCC_C_SAMPLES_STD], 2, "the same pair: not taken again");
	/* only ABW/C new: a new pair */
	sample(&sk, HPCC_CTL_S_ABWC, 0, 1299000);
	ack(&sk, 1300, 1000, 1);
	tap_ok(sk.ctr[HPCC_C_SAMPLES_STD] == 3 && ca->info_ns == 1299000,
	       "a new ABW/C alone makes a new pair");
}

/* A flow that started without CSIG finds it on a later ACK. */
static void test_late(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;
	int i;

	sock_init(&sk, &k, 0);
	ca = fake_ca(&sk);
	tap_ok(ca->fallback && !ca->negotiated && sk.ctr[HPCC_C_FLOWS_NO_CSIG] == 1 &&
	       ca->late_checks == HPCC_LATE_CHECKS && sk.cwnd == 10,
	       "start without CSIG: Reno from TCP's initial window, 16 looks left");
	ack(&sk, 1100, 2000, 2);
	tap_ok(sk.looks == 2 && ca->late_checks == 15 && sk.cwnd == 12 && !sk.reads,
	       "first ACK: looked (not found), Reno's slow start, no telemetry read");
	sk.negotiated = 1;
	ack(&sk, 1150, 4000, 2);
	tap_ok(sk.looks == 2 && !ca->negotiated,
	       "50 us later: no look within max(T, srtt) = 200 us");
	ack(&sk, 1300, 6000, 2);
	tap_ok(ca->negotiated && sk.late_looks == 2 && !ca->late_checks &&
	       sk.ctr[HPCC_C_FLOWS_LATE_CSIG] == 1 && ca->w_ai == W_AI,
	       "200 us after the last look: found at the second look, W_ai 390");
	tap_ok(ca->fallback && sk.cwnd == 16 && ca->st.W == 14000 && !sk.reads,
	       "found: W from Reno's 14 segments, Reno on this ACK still");
	sk.snd_nxt = 50000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 1399000);
	ack(&sk, 1400, 8000, 2);
	tap_ok(!ca->fallback && sk.ctr[HPCC_C_RESUMES] == 1 && ca->st.wc == 16000 &&
	       sk.reads == 1 && sk.ctr[HPCC_C_SAMPLES_U] == 1,
	       "first sample: HPCC from Reno's 16 segments");

	/* never negotiated: 16 looks in all, then none */
	sock_init(&sk, &k, 0);
	for (i = 0; i < 40; i++)
		ack(&sk, 1000 + 200 * i, 2000 + i, 1);
	tap_ok(sk.looks == 1 + HPCC_LATE_CHECKS && !fake_ca(&sk)->late_checks &&
	       !sk.ctr[HPCC_C_FLOWS_LATE_CSIG] && sk.ctr[HPCC_C_FALLBACK_ACKS] == 40,
	       "never negotiated: 16 looks after the start's, then Reno alone");
}

/* R and W in segments follow T and the MSS. */
static void test_cache(void)
{
	struct hpcc_ctl_cfg k = cfg_of(0, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	/* T = min RTT, 100 us: W_init 125000 */
	tap_ok(ca->st.W == 125000 && ca->t_us == 100 && sk.pacing == LINE_BPS,
	       "T from the min RTT: 100 us");
	sk.min_rtt_us = 200;
	sk.snd_nxt = 100000;
	ack(&sk, 1100, 1000, 1);
	tap_ok(ca->t_us == 200 && ca->st.W == 125000 + W_AI &&
	       sk.pacing == 125390ULL * 1000000000 / 200000,
	       "min RTT 200 us: R = W / 200 us = 626950000");
	sk.mss = 500;
	ack(&sk, 1200, 1000, 1);
	tap_ok(sk.cwnd == 252 && ca->cwnd == 251,
	       "MSS 500: W 125390 / 500 rounded up = 251 segments, cwnd 252");
	sk.min_rtt_us = ~0U;
	sk.srtt_us = 0;
	ack(&sk, 1300, 1000, 1);
	tap_ok(ca->t_us == 1000 && sk.pacing == 125390ULL * 1000,
	       "no RTT at all: T 1 ms");
}

/* A restart with stale telemetry: probe, then W from the path's answer. */
static void test_probe(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	/* a new connection's first write starts at W_init, no probe */
	sk.now_us = 5000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	tap_ok(!ca->probing && !sk.ctr[HPCC_C_PROBES] && sk.cwnd == 126,
	       "no sample yet (a new connection): no probe, cwnd 126 kept");
	sk.snd_nxt = 130000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 5099500);
	ack(&sk, 5100, 2000, 2);
	tap_ok(ca->st.W == 125390 && sk.cwnd == 127, "a sample: W 125390");

	/* idle, restarting within 4 * max(T, srtt) of the sample: not stale */
	sk.now_us = 5899;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	tap_ok(!ca->probing && sk.cwnd == 127 && !sk.ctr[HPCC_C_PROBES],
	       "restart 799.5 us after the sample: no probe");

	/* idle 900 us: the probe */
	sk.snd_una = 140000;
	sk.snd_nxt = 140000;
	sk.now_us = 6000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	tap_ok(ca->probing && sk.cwnd == HPCC_PROBE_SEGS &&
	       sk.ctr[HPCC_C_PROBES] == 1 && !strcmp(sk.trace_src, "probe") &&
	       ca->use_us == 6000 && ca->st.W == 125390,
	       "restart 900 us after the sample: probing, cwnd 2, counted, traced, W kept");
	/* an ACK without news, then one with a sample from before the restart */
	sk.snd_nxt = 142000;
	ack(&sk, 6050, 141000, 1);
	sample(&sk, HPCC_CTL_S_U, U_TWO, 5999000);
	ack(&sk, 6060, 141000, 0);
	tap_ok(ca->probing && sk.cwnd == HPCC_PROBE_SEGS && ca->st.W == 125390,
	       "no sample since the restart: still probing, cwnd 2");
	/*
	 * the answer: U 0.5.  With the W before the pause in flight U
	 * would be 0.5 + 125390 / 125000 = 1576134 / 2^20: Wc = 125390 *
	 * eta / that = 79248, above the room, 125000 * (eta - 0.5) =
	 * 56250; and the draft's W from it on this ACK, U < eta: Wc + W_ai
	 */
	sample(&sk, HPCC_CTL_S_U, U_HALF, 6099000);
	ack(&sk, 6100, 142000, 1);
	tap_ok(!ca->probing && ca->st.U == 524287 && ca->st.wc == 79248 &&
	       ca->st.W == 79248 + W_AI && ca->st.last_update_seq == 142000 &&
	       sk.cwnd == 81 && sk.pacing == 796380000ULL,
	       "the answer U 0.5: Wc = 125390 * eta / (0.5 + 1.0031) = 79248, W 79638, cwnd 81");

	/*
	 * again, on a path that filled meanwhile, U 2.0: Wc = 79638 * eta /
	 * (2.0 + 79638 / 125000) = 28689 (no room); W = Wc * eta / U + W_ai
	 */
	sk.snd_una = 150000;
	sk.snd_nxt = 150000;
	sk.now_us = 7000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	sk.snd_nxt = 152000;
	sample(&sk, HPCC_CTL_S_U, U_TWO, 7099000);
	ack(&sk, 7100, 151000, 1);
	tap_ok(sk.ctr[HPCC_C_PROBES] == 2 && ca->st.wc == 28689 &&
	       ca->st.W == 28689ULL * ETA / 2097151 + W_AI && ca->st.W == 14017 &&
	       sk.cwnd == 16, "a full path (U 2.0): Wc 28689, W 14017, cwnd 16");

	/* an idle path: at most the W before the pause */
	sk.snd_una = 160000;
	sk.snd_nxt = 160000;
	sk.now_us = 8000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	sk.snd_nxt = 162000;
	sample(&sk, HPCC_CTL_S_U, 0, 8099000);
	ack(&sk, 8100, 161000, 1);
	tap_ok(sk.ctr[HPCC_C_PROBES] == 3 && ca->st.wc == 14017 &&
	       ca->st.W == 14017 + W_AI,
	       "an idle path (U 15 / 2^20): Wc 14017, not above the W before the pause");

	/* no answer: stale, Reno from the window before the probe */
	ca->st.W = 125390;
	ca->cwnd = 126;
	sk.snd_una = 170000;
	sk.snd_nxt = 170000;
	sk.now_us = 10000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	sk.snd_nxt = 172000;
	ack(&sk, 10100, 171000, 3);
	tap_ok(sk.ctr[HPCC_C_PROBES] == 4 && ca->fallback && !ca->probing &&
	       sk.cwnd == 126 && sk.ssthresh == 126,
	       "no answer: fallback with cwnd 126, the W before the probe");

	/* in loss recovery, TCP's window: no probe */
	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	sample(&sk, HPCC_CTL_S_U, U_HALF, 1099500);
	ack(&sk, 1100, 2000, 2);
	sk.ca_state = TCP_CA_Recovery;
	sk.now_us = 5000;
	hpcc_ctl_cwnd_event(&sk, CA_EVENT_TX_START);
	tap_ok(!ca->probing && !sk.ctr[HPCC_C_PROBES],
	       "in recovery: no probe");
}

/*
 * W_init is at most the ssthresh the kernel remembers for the destination
 * (tcp_init_metrics()), at least two segments; a larger one, or none,
 * leaves it at line rate * T.  A flow without CSIG keeps TCP's window.
 */
static void test_remembered(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init_ss(&sk, &k, 1, 20);
	ca = fake_ca(&sk);
	tap_ok(ca->st.W == 20000 && ca->st.wc == 20000 && sk.cwnd == 21 &&
	       sk.pacing == LINE_BPS / 125000 * 20000 && ca->w_ai == W_AI &&
	       sk.ctr[HPCC_C_W_REMEMBERED] == 1,
	       "ssthresh 20 remembered: W = Wc = 20 segments, paced at W / T, W_ai of line rate, counted (%u %u %u %llu)",
	       ca->st.W, ca->st.wc, sk.cwnd, (unsigned long long)sk.pacing);
	sock_init_ss(&sk, &k, 1, 1);
	tap_eq_u64(fake_ca(&sk)->st.W, 2000, "ssthresh 1 remembered: W = 2 segments");
	sock_init_ss(&sk, &k, 1, 200);
	tap_ok(fake_ca(&sk)->st.W == 125000 && !sk.ctr[HPCC_C_W_REMEMBERED],
	       "ssthresh 200 remembered: W_init, 125000, not counted");
	sock_init_ss(&sk, &k, 0, 20);
	tap_ok(fake_ca(&sk)->fallback && sk.cwnd == 10,
	       "without CSIG: Reno from TCP's window, the ssthresh left to TCP");
}

/*
 * In loss recovery the ACKs' SACK blocks can fill TCP's option space
 * (timestamps and two blocks leave 8 bytes, a sample needs 10): ACKs
 * without a sample there do not count towards the fallback's window.
 */
static void test_recovery_silence(void)
{
	struct hpcc_ctl_cfg k = cfg_of(100, HPCC_IN_AUTO);
	struct hpcc_ctl *ca;
	struct sock sk;

	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	sk.snd_nxt = 200000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 1099500);
	ack(&sk, 1100, 2000, 2);
	hpcc_ctl_set_state(&sk, TCP_CA_Recovery);
	sk.ca_state = TCP_CA_Recovery;
	/* 2 ms (10 * max(T, srtt)) of SACKs, 300 packets, no sample */
	ack(&sk, 2000, 2000, 150);
	ack(&sk, 3100, 2000, 150);
	tap_ok(!ca->fallback && !sk.ctr[HPCC_C_FALLBACKS],
	       "recovery: 2 ms and 300 packets of ACKs without a sample, no fallback");
	/* recovery ends; the window counts from there */
	hpcc_ctl_set_state(&sk, TCP_CA_Open);
	sk.ca_state = TCP_CA_Open;
	ack(&sk, 3200, 100000, 10);
	tap_ok(!ca->fallback, "back in Open: 10 packets without a sample, no fallback yet");
	ack(&sk, 3300, 180000, 80);
	tap_ok(ca->fallback && sk.ctr[HPCC_C_FALLBACKS] == 1,
	       "... a window acked in Open without a sample: fallback");

	/* an RTO: 200 ms of silence, then loss-state ACKs without a sample */
	sock_init(&sk, &k, 1);
	ca = fake_ca(&sk);
	sk.snd_nxt = 200000;
	sample(&sk, HPCC_CTL_S_U, U_HALF, 1099500);
	ack(&sk, 1100, 2000, 2);
	hpcc_ctl_set_state(&sk, TCP_CA_Loss);
	sk.ca_state = TCP_CA_Loss;
	sk.cwnd = 1;
	ack(&sk, 201100, 3000, 3);
	tap_ok(!ca->fallback && !sk.ctr[HPCC_C_FALLBACKS] &&
	       sk.ctr[HPCC_C_LOSSES] == 1,
	       "RTO: 200 ms later an ACK of 3 packets in the loss state, no sample: no fallback");
}

int main(void)
{
	tap_plan(68);
	test_cfg();
	test_u_path();
	test_loss();
	test_std();
	test_late();
	test_cache();
	test_probe();
	test_remembered();
	test_recovery_silence();
	return tap_done();
}
