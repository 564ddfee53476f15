// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc: HPCC++ (draft-miao-iccrg-hpccplus-01) as a TCP congestion
 * control, driven by CSIG telemetry that tcp_csig_opt reflects.
 *
 * The algorithm is include/hpcc.h (MeasureInflight, ComputeWind, NewAck),
 * the same code the userspace unit tests run.  This file feeds it: on
 * every ACK it takes the newest CSIG sample of the connection
 * (csig_opt_read()), turns it into the path's normalised inflight u, runs
 * MeasureInflight when the sample is new and NewAck always, and sets the
 * window W (snd_cwnd, rounded up to whole segments) and the rate W / T
 * (sk_pacing_rate; TCP paces internally when no fq qdisc does).
 *
 * Inputs: the CSIG U signal (the path maximum of q / (C T) + txRate / C,
 * written by the data plane's switch ports), or the draft's standard
 * signals max(PD) and min(ABW/C), from which u = PD / T + 1 - ABW/C.
 * Without telemetry (no negotiation, tags stripped, samples older than
 * stale_rtts round trips) the flow falls back to Reno, counted, and comes
 * back when samples do.
 *
 * Documentation/tcp_hpcc.rst maps this to the draft line by line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "csig.h"
#include "csig_opt_api.h"
#include "dcc_pernet.h"
#include "gso_cap.h"
#include "hpcc.h"
#include "range_param.h"

#define CREATE_TRACE_POINTS
#include "tcp_hpcc_trace.h"

/*
 * Parameters (include/range_param.h): a write outside a parameter's
 * range is refused with a message and leaves the old value.
 */
static unsigned int base_rtt_us;
DEFINE_RANGE_PARAM_OPS(base_rtt_us, 0, 1000000);
module_param_cb(base_rtt_us, &base_rtt_us_ops, &base_rtt_us, 0644);
MODULE_PARM_DESC(base_rtt_us,
		 "T, the known baseline RTT, us; 0: the flow's min RTT (0..1000000, default 0)");
static unsigned int eta = 95;
DEFINE_RANGE_PARAM_OPS(eta, 50, 100);
module_param_cb(eta, &eta_ops, &eta, 0644);
MODULE_PARM_DESC(eta, "target utilisation eta, per cent (50..100, default 95)");
static unsigned int max_stage = 5;
DEFINE_RANGE_PARAM_OPS(max_stage, 0, 100);
module_param_cb(max_stage, &max_stage_ops, &max_stage, 0644);
MODULE_PARM_DESC(max_stage,
		 "additive increases before a multiplicative step (0..100, default 5)");
static unsigned int w_ai;
DEFINE_RANGE_PARAM_OPS(w_ai, 0, 16 << 20);
module_param_cb(w_ai, &w_ai_ops, &w_ai, 0644);
MODULE_PARM_DESC(w_ai,
		 "additive increase W_ai, bytes; 0: W_init * (1 - eta) / nflows (0..16 MiB, default 0)");
static unsigned int nflows = 16;
DEFINE_RANGE_PARAM_OPS(nflows, 1, 65536);
module_param_cb(nflows, &nflows_ops, &nflows, 0644);
MODULE_PARM_DESC(nflows,
		 "N of the W_ai rule of thumb: concurrent flows expected per link (1..65536, default 16)");
static unsigned int line_rate_mbps = 10000;
DEFINE_RANGE_PARAM_OPS(line_rate_mbps, 1, 4000000);
module_param_cb(line_rate_mbps, &line_rate_mbps_ops, &line_rate_mbps, 0644);
MODULE_PARM_DESC(line_rate_mbps,
		 "line rate, Mbit/s: W_init = line rate * T, pacing at most this (1..4000000, default 10000)");
static unsigned int pacing_shift = 12;
DEFINE_RANGE_PARAM_OPS(pacing_shift, 8, 16);
module_param_cb(pacing_shift, &pacing_shift_ops, &pacing_shift, 0644);
MODULE_PARM_DESC(pacing_shift,
		 "sk_pacing_shift of hpcc sockets: TSO bursts of rate / 2^shift seconds (8..16, default 12)");
static unsigned int grow_pct = 90;
DEFINE_RANGE_PARAM_OPS(grow_pct, 0, 100);
module_param_cb(grow_pct, &grow_pct_ops, &grow_pct, 0644);
MODULE_PARM_DESC(grow_pct,
		 "W grows past Wc only after the flow delivered this per cent of Wc / T over at least T; 0: always, as the draft (0..100, default 90)");
static unsigned int tso_cap = 1;
DEFINE_RANGE_PARAM_OPS(tso_cap, 0, 1);
module_param_cb(tso_cap, &tso_cap_ops, &tso_cap, 0644);
MODULE_PARM_DESC(tso_cap,
		 "1: TSO bursts of at most rate / 2^pacing_shift, 2 segments or more; 0: also the kernel's min-RTT term, up to 64 KB (0..1, default 1)");
static unsigned int commit_samples = 2;
DEFINE_RANGE_PARAM_OPS(commit_samples, 0, 16);
module_param_cb(commit_samples, &commit_samples_ops, &commit_samples, 0644);
MODULE_PARM_DESC(commit_samples,
		 "new telemetry samples a commit of Wc also waits for once lastUpdateSeq is acked; 0: the draft's rule (0..16, default 2)");
static unsigned int commit_wait_pct = 100;
DEFINE_RANGE_PARAM_OPS(commit_wait_pct, 0, 1000);
module_param_cb(commit_wait_pct, &commit_wait_pct_ops, &commit_wait_pct, 0644);
MODULE_PARM_DESC(commit_wait_pct,
		 "time a commit of Wc also waits once lastUpdateSeq is acked, per cent of T: U's EWMA horizon; 0: the draft's rule (0..1000, default 100)");
static unsigned int stale_rtts = 4;
DEFINE_RANGE_PARAM_OPS(stale_rtts, 1, 1000);
module_param_cb(stale_rtts, &stale_rtts_ops, &stale_rtts, 0644);
MODULE_PARM_DESC(stale_rtts,
		 "telemetry older than this many RTTs, a window acked since, is stale (1..1000, default 4)");

enum { IN_AUTO, IN_U, IN_STD };
static const char * const input_names[] = { "auto", "u", "std" };
static unsigned int input = IN_AUTO;

static int input_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(input_names, val);

	if (i < 0) {
		pr_err("input must be auto, u or std\n");
		return -EINVAL;
	}
	WRITE_ONCE(input, i);
	return 0;
}

static int input_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", input_names[input]);
}

static const struct kernel_param_ops input_ops = {
	.set = input_set,
	.get = input_get,
};
module_param_cb(input, &input_ops, NULL, 0644);
MODULE_PARM_DESC(input,
		 "telemetry: u (CSIG U), std (PD and ABW/C) or auto (U when present, default)");

/* Per-namespace counters: /proc/net/tcp_hpcc. */
enum {
	C_FLOWS,		/* flows that started with telemetry (negotiated) */
	C_FLOWS_NO_CSIG,	/* ... without: Reno from the start */
	C_SAMPLES_U,		/* new U samples taken into MeasureInflight */
	C_SAMPLES_STD,		/* new PD / ABW/C samples taken */
	C_COMMITS,		/* Wc committed (NewAck past lastUpdateSeq) */
	C_COMMITS_MI,		/* ... by the multiplicative branch */
	C_FALLBACKS,		/* telemetry went stale: fell back to Reno */
	C_RESUMES,		/* telemetry came back after a fallback */
	C_FALLBACK_ACKS,	/* ACKs handled by the fallback */
	C_COMMITS_HELD,		/* commits that kept W at Wc (grow_pct) */
	C_LOSSES,		/* loss episodes with telemetry: W halved */
	C_UNDOS,		/* ... found spurious: W restored */
	C_NR,
};

static const char * const hpcc_ctr_names[C_NR] = {
	"flows", "flows_no_csig", "samples_u", "samples_std", "commits",
	"commits_mi", "fallbacks", "resumes", "fallback_acks",
	"commits_held", "losses", "undos",
};

static struct dcc_pernet hpcc_pernet = {
	.proc_name = "tcp_hpcc",
	.ctr_names = hpcc_ctr_names,
	.nctrs = C_NR,
	.ops = DCC_PERNET_OPS(hpcc_pernet, struct dcc_net),
};

static void hpcc_count(const struct sock *sk, int i)
{
	dcc_count(sock_net(sk), i);
}

enum { SRC_NONE, SRC_U, SRC_STD };
static const char * const src_names[] = { "fallback", "u", "std" };

/* Per-socket state, in icsk_ca_priv. */
struct hpcc {
	struct hpcc_state st;
	u64	info_ns;	/* newest telemetry (or the flow's start) */
	u64	seen_ns[2];	/* arrival of the samples used: U or PD, ABW/C */
	u64	use_ns;		/* start of hpcc_w_used()'s average */
	u32	info_delivered;	/* tp->delivered at info_ns */
	u32	w_ai;		/* this flow's W_ai, bytes */
	u32	pd_last;	/* the previous PD sample, ns (input std) */
	u32	use_delivered;	/* tp->delivered at use_ns */
	u32	w_used_prev;	/* hpcc_w_used() when use_ns was set */
	u32	w_loss;		/* W before the last loss (hpcc_loss()) */
	struct gso_cap gso;	/* hpcc's cap on sk_gso_max_segs */
	u8	negotiated:1,
		in_loss:1;	/* in a loss episode (its response taken) */
	u8	fallback;	/* Reno now; SRC_* of the last sample */
	u8	source;
	u8	shift_saved;	/* sk_pacing_shift before hpcc */
};

static const struct csig_quant quant = CSIG_DEFAULT_QUANT_INIT;

/* T of this flow, ns: the parameter, else the flow's min RTT. */
static u64 hpcc_t_ns(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 us = READ_ONCE(base_rtt_us);

	if (!us) {
		us = tcp_min_rtt(tp);
		if (us == ~0U || !us)
			us = tp->srtt_us ? tp->srtt_us >> 3 : USEC_PER_MSEC;
	}
	return (u64)us * NSEC_PER_USEC;
}

/*
 * Line rate * @rtt_ns, bytes, within what the socket can use: W_init with
 * T, and the most W may be with the flow's current RTT.
 */
static u32 hpcc_w_line(const struct sock *sk, u64 rtt_ns)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 w = hpcc_line_bytes(READ_ONCE(line_rate_mbps), rtt_ns);
	u64 cap = (u64)tp->snd_cwnd_clamp * tp->mss_cache;

	w = min(w, cap);
	return (u32)clamp_t(u64, w, 2 * tp->mss_cache, U32_MAX);
}

/*
 * The algorithm's parameters for this flow now.  W is bounded by what
 * the line rate can keep in flight over the flow's RTT (max(T, srtt)):
 * where the round trip is longer than T (host delays under load), a W of
 * line rate * T could not fill the path, and U still decides below that.
 */
static void hpcc_params(const struct sock *sk, const struct hpcc *ca,
			struct hpcc_params *p)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 mss = tp->mss_cache;

	p->t_ns = hpcc_t_ns(sk);
	p->eta = READ_ONCE(eta) * HPCC_FRAC_ONE / 100;
	p->max_stage = READ_ONCE(max_stage);
	p->commit_samples = READ_ONCE(commit_samples);
	p->commit_wait_us = min_t(u64, div_u64(p->t_ns * READ_ONCE(commit_wait_pct),
					       100 * NSEC_PER_USEC), U32_MAX);
	p->grow_pct = READ_ONCE(grow_pct);
	p->w_used = 0;		/* hpcc_update() measures it */
	p->w_ai = ca->w_ai;
	p->w_loss = ca->w_loss;
	p->w_min = max(mss / 8, 64U);
	p->w_max = max(hpcc_w_line(sk, max_t(u64, p->t_ns, (u64)(tp->srtt_us >> 3) *
					     NSEC_PER_USEC)), p->w_min);
}

/* R = W / T, at most the line rate. */
static u64 hpcc_pacing(u32 w, u64 t_ns)
{
	return min(hpcc_rate(w, t_ns), (u64)READ_ONCE(line_rate_mbps) * 125000);
}

/*
 * TSO bursts of rate >> sk_pacing_shift alone, without the min-RTT term
 * tcp_tso_autosize() adds, which a switch would see as queue
 * (Documentation/tcp_hpcc.rst, "Departures from the draft").  The only
 * bound a congestion control has is sk_gso_max_segs; a change made by
 * someone else (sk_setup_caps() on a new route) is taken as the
 * device's new limit.
 */
static void hpcc_cap_tso(struct sock *sk, struct hpcc *ca, u64 rate)
{
	u32 segs = 0;

	if (READ_ONCE(tso_cap)) {
		u32 burst = div_u64(rate >> READ_ONCE(sk->sk_pacing_shift),
				    tcp_sk(sk)->mss_cache);

		/* 2 or more, unless the device allows fewer */
		segs = max(burst, 2U);
	}
	sk_gso_cap(sk, &ca->gso, segs);
}

static void hpcc_set_pacing(struct sock *sk, u64 rate)
{
	rate = min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate));
	WRITE_ONCE(sk->sk_pacing_rate, rate);
	hpcc_cap_tso(sk, inet_csk_ca(sk), rate);
}

/*
 * W into TCP: snd_cwnd in whole segments, ssthresh with it, R = W / T.
 * After an RTO (TCP_CA_Loss) snd_cwnd grows from TCP's loss window by
 * the @acked packets, up to W, as TCP's slow start would after it
 * (tcp_bbr.c does the same).
 */
static u64 hpcc_apply(struct sock *sk, const struct hpcc *ca, u64 t_ns,
		      u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 rate = hpcc_pacing(ca->st.W, t_ns);
	u32 cwnd = clamp(DIV_ROUND_UP(ca->st.W, tp->mss_cache), 2U, tp->snd_cwnd_clamp);

	tp->snd_ssthresh = cwnd;
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		cwnd = min(cwnd, tcp_snd_cwnd(tp) + acked);
	tcp_snd_cwnd_set(tp, cwnd);
	hpcc_set_pacing(sk, rate);
	return rate;
}

/* Does hpcc_w_used()'s average span T by @now? */
static bool hpcc_use_spans(const struct hpcc *ca, u64 now, u64 t_ns)
{
	return now > ca->use_ns && now - ca->use_ns >= t_ns;
}

/* Restart hpcc_w_used()'s average now, with @prev deciding until T. */
static void hpcc_use_restart(struct sock *sk, struct hpcc *ca, u64 now,
			     u32 prev)
{
	ca->use_ns = now;
	ca->use_delivered = tcp_sk(sk)->delivered;
	ca->w_used_prev = prev;
}

static void hpcc_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	struct hpcc_params p;
	u32 w_init;

	memset(ca, 0, sizeof(*ca));
	gso_cap_init(&ca->gso, sk->sk_gso_max_segs);
	ca->shift_saved = sk->sk_pacing_shift;
	ca->negotiated = !!csig_opt_negotiated(sk);
	ca->info_ns = ktime_get_ns();
	hpcc_use_restart(sk, ca, ca->info_ns, 0);
	ca->info_delivered = tp->delivered;
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	/*
	 * Small TSO bursts: a switch sees a super-packet's frames back to
	 * back, and its queue signal the burst (HPCC assumes per-packet
	 * pacing).  TCP's default shift of 10 sends ~1 ms of data at once.
	 */
	WRITE_ONCE(sk->sk_pacing_shift, READ_ONCE(pacing_shift));
	if (!ca->negotiated) {
		hpcc_cap_tso(sk, ca, READ_ONCE(sk->sk_pacing_rate));
		/* Reno from TCP's initial window */
		ca->fallback = 1;
		hpcc_count(sk, C_FLOWS_NO_CSIG);
		return;
	}
	hpcc_count(sk, C_FLOWS);
	/* flows start at line rate: W_init = line rate * T */
	w_init = hpcc_w_line(sk, hpcc_t_ns(sk));
	hpcc_params(sk, ca, &p);
	ca->w_ai = READ_ONCE(w_ai) ?: hpcc_default_w_ai(w_init, p.eta, READ_ONCE(nflows));
	p.w_ai = ca->w_ai;
	hpcc_state_init(&ca->st, &p, w_init, tp->snd_una);
	hpcc_apply(sk, ca, p.t_ns, 0);
}

/*
 * The newest sample of the configured input.  Returns the SRC_* it came
 * from and sets *u and *ts when it is one not used before, else 0.
 */
static int hpcc_sample(const struct sock *sk, struct hpcc *ca, u64 t_ns,
		       u32 *u, u64 *ts)
{
	unsigned int in = READ_ONCE(input), want = 0, got;
	/* one read of the flow's samples: up to ABW/C, PD, U, in type order */
	struct csig_opt_sample sm[3], a, b;

	if (in != IN_STD)
		want |= BIT(CSIG_T_U);
	if (in != IN_U)
		want |= BIT(CSIG_T_ABWC) | BIT(CSIG_T_PD);
	got = csig_opt_read_mask(sk, want, sm);
	if (got & BIT(CSIG_T_U)) {
		a = sm[hweight32(want) - 1];	/* the highest type */
		if (a.t_ns == ca->seen_ns[0] && ca->source == SRC_U)
			return 0;
		ca->seen_ns[0] = a.t_ns;
		*u = csig_decode(&quant, a.s.format, CSIG_T_U, a.s.s);
		*ts = a.t_ns;
		return SRC_U;
	}
	/* u = max(PD) / T + 1 - min(ABW/C): both must be there */
	if ((got & (BIT(CSIG_T_ABWC) | BIT(CSIG_T_PD))) !=
	    (BIT(CSIG_T_ABWC) | BIT(CSIG_T_PD)))
		return 0;
	b = sm[0];		/* ABW/C, type 1 */
	a = sm[1];		/* PD, type 2 */
	if (a.t_ns == ca->seen_ns[0] && b.t_ns == ca->seen_ns[1] &&
	    ca->source == SRC_STD)
		return 0;
	ca->seen_ns[0] = a.t_ns;
	ca->seen_ns[1] = b.t_ns;
	{
		u64 pd = csig_decode(&quant, a.s.format, CSIG_T_PD, a.s.s);
		u64 abwc = csig_decode(&quant, b.s.format, CSIG_T_ABWC, b.s.s);
		u64 v;

		/* line 5's min(qlen, qlen'), on the delay: PD = qlen / C */
		v = min_t(u64, pd, ca->pd_last);
		ca->pd_last = min_t(u64, pd, U32_MAX);
		v = t_ns ? div64_u64(v << HPCC_FRAC_SHIFT, t_ns) : U32_MAX;

		v += HPCC_FRAC_ONE - min_t(u64, abwc, HPCC_FRAC_ONE);
		*u = (u32)min_t(u64, v, U32_MAX);
	}
	*ts = max(a.t_ns, b.t_ns);
	return SRC_STD;
}

/* Reno, with TCP's pacing rule, when there is no telemetry. */
static void hpcc_reno(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 rate;

	hpcc_count(sk, C_FALLBACK_ACKS);
	if (inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery)
		tcp_snd_cwnd_set(tp, max(min(tcp_snd_cwnd(tp), tp->snd_ssthresh), 2U));
	else if (rs->acked_sacked > 0)
		tcp_reno_cong_avoid(sk, tp->snd_una, rs->acked_sacked);
	/* tcp_update_pacing_rate(): 200% of cwnd / srtt in slow start, 120% after */
	rate = (u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	rate *= tcp_in_slow_start(tp) ? 200 : 120;
	rate *= max(tcp_snd_cwnd(tp), tp->packets_out);
	if (tp->srtt_us)
		rate = div64_u64(rate, tp->srtt_us);
	hpcc_set_pacing(sk, rate);
}

/*
 * What this flow used since the last commit, as a window: its delivery
 * rate over that time * max(T, srtt), bytes (hpcc_may_grow()).  An
 * average over at least T, not TCP's per-ACK rate samples, which show a
 * host sending in bursts after a stall at the line rate; until it spans
 * T, the one before decides (Documentation/tcp_hpcc.rst).
 */
static u32 hpcc_w_used(const struct sock *sk, const struct hpcc *ca,
		       u64 now, u64 t_ns)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 dt, w;

	if (!hpcc_use_spans(ca, now, t_ns))
		return ca->w_used_prev;
	dt = div_u64(now - ca->use_ns, NSEC_PER_USEC);
	if (!dt)
		return ca->w_used_prev;
	w = hpcc_scale((u64)(tp->delivered - ca->use_delivered) * tp->mss_cache,
		       max_t(u64, div_u64(t_ns, NSEC_PER_USEC), tp->srtt_us >> 3), dt);
	return min_t(u64, w, U32_MAX);
}

static void hpcc_update(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	struct hpcc_params p;
	u64 now = ktime_get_ns(), ts = 0, rtt, rate;
	u32 u = 0;
	int src;

	/*
	 * The ACK of an active open's SYN reaches cong_control before
	 * tcp_init_transfer() calls init: nothing to do on the zeroed state
	 * (hpcc_init() sets info_ns).
	 */
	if (!ca->info_ns)
		return;
	if (!ca->negotiated) {
		hpcc_reno(sk, rs);
		return;
	}
	hpcc_params(sk, ca, &p);
	p.w_used = hpcc_w_used(sk, ca, now, p.t_ns);
	src = hpcc_sample(sk, ca, p.t_ns, &u, &ts);
	if (src) {
		ca->source = src;
		ca->info_ns = ts;
		ca->info_delivered = tp->delivered;
		hpcc_count(sk, src == SRC_U ? C_SAMPLES_U : C_SAMPLES_STD);
		if (ca->fallback) {
			/* telemetry is back: HPCC from the window Reno had */
			ca->fallback = 0;
			ca->st.W = clamp(tcp_snd_cwnd(tp) * tp->mss_cache, p.w_min, p.w_max);
			ca->st.wc = ca->st.W;
			ca->st.inc_stage = 0;
			ca->st.last_update_seq = tp->snd_nxt;
			ca->st.passed = 0;
			/* what the fallback used is no measure of W */
			hpcc_use_restart(sk, ca, now, 0);
			hpcc_count(sk, C_RESUMES);
		}
		hpcc_measure_u(&ca->st, &p, u, ts);
	}
	/* stale: a few RTTs without news while a window was acked */
	rtt = max_t(u64, p.t_ns, (u64)(tp->srtt_us >> 3) * NSEC_PER_USEC);
	if (!ca->fallback && now > ca->info_ns &&
	    now - ca->info_ns > READ_ONCE(stale_rtts) * rtt &&
	    tp->delivered - ca->info_delivered > tcp_snd_cwnd(tp)) {
		ca->fallback = 1;
		tp->snd_ssthresh = tcp_snd_cwnd(tp);
		hpcc_count(sk, C_FALLBACKS);
	}
	if (ca->fallback) {
		hpcc_reno(sk, rs);
		trace_hpcc_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
				  ca->st.U, tcp_snd_cwnd(tp) * tp->mss_cache, ca->st.wc,
				  ca->st.inc_stage, READ_ONCE(sk->sk_pacing_rate),
				  false, false, false, src_names[SRC_NONE], tcp_snd_cwnd(tp));
		return;
	}
	/*
	 * In loss recovery W stays where hpcc_react_to_loss() put it: U,
	 * which did not show the loss, would take it back.
	 */
	if (inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery)
		ca->st.committed = 0;
	else
		hpcc_new_ack(&ca->st, &p, tp->snd_una, tp->snd_nxt, (u32)tp->tcp_mstamp);
	if (ca->st.committed) {
		/* a new average once this one spans T (hpcc_w_used()) */
		if (hpcc_use_spans(ca, now, p.t_ns))
			hpcc_use_restart(sk, ca, now, p.w_used);
		hpcc_count(sk, C_COMMITS);
		if (ca->st.mi)
			hpcc_count(sk, C_COMMITS_MI);
		if (ca->st.held)
			hpcc_count(sk, C_COMMITS_HELD);
		/* back at the W before the loss: U decides alone again */
		if (ca->w_loss && ca->st.wc >= ca->w_loss)
			ca->w_loss = 0;
	}
	rate = hpcc_apply(sk, ca, p.t_ns, max(rs->acked_sacked, 0));
	trace_hpcc_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			  ca->st.U, ca->st.W, ca->st.wc, ca->st.inc_stage, rate,
			  ca->st.committed, ca->st.mi, ca->st.held,
			  src_names[ca->source], tcp_snd_cwnd(tp));
}

/* 6.10 added the ACK and flags (Kbuild tests the header) */
#ifdef HPCC_CONG_CONTROL_ACK
static void hpcc_cong_control(struct sock *sk, u32 ack, int flag,
			      const struct rate_sample *rs)
{
	hpcc_update(sk, rs);
}
#else
static void hpcc_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	hpcc_update(sk, rs);
}
#endif

/*
 * A loss episode, once: entering fast recovery or the loss state (an
 * RTO).  tcp_dctcp.c counts an RTO only when TCP counts it as a new
 * reduction (CA_EVENT_LOSS), which an RTO in CWR is not; hpcc counts
 * that one too, as CWR, which TCP enters at an ECE or a local
 * congestion notification, does not touch W.  With telemetry W and Wc
 * halve (hpcc_loss(), Documentation/tcp_hpcc.rst); the fallback halves
 * as Reno does, through ssthresh.
 */
static void hpcc_react_to_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	struct hpcc_params p;

	if (ca->in_loss)
		return;
	ca->in_loss = 1;
	if (!ca->info_ns || !ca->negotiated || ca->fallback)
		return;
	hpcc_params(sk, ca, &p);
	ca->w_loss = hpcc_loss(&ca->st, &p, tp->snd_nxt);
	hpcc_count(sk, C_LOSSES);
	trace_hpcc_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			  ca->st.U, ca->st.W, ca->st.wc, ca->st.inc_stage,
			  READ_ONCE(sk->sk_pacing_rate), false, false, false, "loss",
			  tcp_snd_cwnd(tp));
}

/*
 * An episode starts when TCP enters recovery or the loss state, and ends
 * when it leaves them; one that TCP entered again within it (an RTO in
 * fast recovery, a timer that backs off) is the same episode.  An RTO
 * that TCP counts as a new reduction reaches hpcc_cwnd_event() first
 * (tcp_enter_loss() sends CA_EVENT_LOSS before it sets the state) and
 * starts a new one; one in CWR only comes here.
 */
static void hpcc_set_state(struct sock *sk, u8 new_state)
{
	struct hpcc *ca = inet_csk_ca(sk);

	if (new_state < TCP_CA_Recovery)
		ca->in_loss = 0;
	else if (new_state != inet_csk(sk)->icsk_ca_state)
		hpcc_react_to_loss(sk);
}

static void hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct hpcc *ca = inet_csk_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		ca->in_loss = 0;
		hpcc_react_to_loss(sk);
	}
}

/* With telemetry, hpcc_react_to_loss() has set the window. */
static u32 hpcc_ssthresh(struct sock *sk)
{
	const struct hpcc *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	if (ca->fallback)
		return max(tcp_snd_cwnd(tp) >> 1U, 2U);
	return max(tcp_snd_cwnd(tp), 2U);
}

/* A loss found spurious: W as before it. */
static u32 hpcc_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);

	if (ca->fallback)
		return tcp_reno_undo_cwnd(sk);
	if (ca->w_loss) {
		ca->st.W = max(ca->st.W, ca->w_loss);
		ca->st.wc = ca->st.W;
		ca->w_loss = 0;
		hpcc_count(sk, C_UNDOS);
	}
	return max(tcp_snd_cwnd(tp), DIV_ROUND_UP(ca->st.W, tp->mss_cache));
}

/* Another algorithm takes the socket: TSO and pacing as they were. */
static void hpcc_release(struct sock *sk)
{
	struct hpcc *ca = inet_csk_ca(sk);

	if (!ca->info_ns)
		return;
	sk_gso_cap(sk, &ca->gso, 0);
	WRITE_ONCE(sk->sk_pacing_shift, ca->shift_saved);
}

static size_t hpcc_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct hpcc *ca = inet_csk_ca(sk);
	struct hpcc_diag_info *hi = (struct hpcc_diag_info *)info;

	BUILD_BUG_ON(sizeof(*hi) > sizeof(*info));
	if (!(ext & (1 << (INET_DIAG_INFO - 1)) ||
	      ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(hi, 0, sizeof(*hi));
	hi->u = ca->st.U;
	hi->w = ca->st.W;
	hi->wc = ca->st.wc;
	hi->t_us = div_u64(hpcc_t_ns(sk), NSEC_PER_USEC);
	hi->inc_stage = ca->st.inc_stage;
	hi->source = ca->fallback ? HPCC_DIAG_SRC_FALLBACK :
		     ca->source == SRC_STD ? HPCC_DIAG_SRC_STD : HPCC_DIAG_SRC_U;
	hi->flags = (ca->negotiated ? HPCC_DIAG_F_NEGOTIATED : 0) |
		    (ca->st.have_sample ? HPCC_DIAG_F_SAMPLED : 0) |
		    (ca->st.mi ? HPCC_DIAG_F_MI : 0) |
		    (ca->st.held ? HPCC_DIAG_F_HELD : 0);
	*attr = HPCC_DIAG_ATTR;
	return sizeof(*hi);
}

static struct tcp_congestion_ops tcp_hpcc __read_mostly = {
	.init		= hpcc_init,
	.ssthresh	= hpcc_ssthresh,
	.undo_cwnd	= hpcc_undo_cwnd,
	.cong_control	= hpcc_cong_control,
	.set_state	= hpcc_set_state,
	.cwnd_event	= hpcc_cwnd_event,
	.release	= hpcc_release,
	.get_info	= hpcc_get_info,
	.owner		= THIS_MODULE,
	.name		= "hpcc",
};

static int __init hpcc_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct hpcc) > ICSK_CA_PRIV_SIZE);
	err = dcc_pernet_register(&hpcc_pernet);
	if (err)
		return err;
	err = tcp_register_congestion_control(&tcp_hpcc);
	if (err) {
		dcc_pernet_unregister(&hpcc_pernet);
		return err;
	}
	csig_opt_register_consumer("hpcc");
	return 0;
}

static void __exit hpcc_unregister(void)
{
	csig_opt_unregister_consumer("hpcc");
	tcp_unregister_congestion_control(&tcp_hpcc);
	dcc_pernet_unregister(&hpcc_pernet);
}

module_init(hpcc_register);
module_exit(hpcc_unregister);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HPCC++ congestion control driven by CSIG telemetry");
