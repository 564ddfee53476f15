/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_hpcc's controller: the code around HPCC++'s arithmetic
 * (include/hpcc.h), once for every flavour (the module tcp_hpcc.c, the
 * BPF congestion control tools/bpf/tcp_hpcc.bpf.c, the unit tests'
 * harness selftests/unit/test_hpcc_ctl.c, the ns-3 model).  On every ACK
 * it takes the newest CSIG sample of the connection, turns it into the
 * path's normalised inflight u, runs MeasureInflight when the sample is
 * new and NewAck always, and sets the window W (snd_cwnd, rounded up to
 * whole segments) and the rate W / T.  Without telemetry (no
 * negotiation, samples older than stale_rtts round trips) it runs Reno,
 * and comes back when samples do; a flow that started without CSIG
 * looks for a late negotiation.  Documentation/tcp_hpcc.rst.
 *
 * A flavour defines the accessors of include/dcc_ctl.h and struct
 * hpcc_ctl_flavour before it includes this header, and the functions
 * below, which this header declares (static) and which take its types,
 * before or after:
 *
 *   struct hpcc_ctl_flavour       its own per-socket fields, at the end
 *                                 of struct hpcc_ctl (may be empty)
 *   struct hpcc_ctl *hpcc_ctl_ca(sk)
 *                                 the socket's state (icsk_ca_priv)
 *   const struct hpcc_ctl_cfg *hpcc_ctl_cfg(sk)
 *                                 the parameters, with the constants
 *                                 hpcc_ctl_cfg_set() derives from them
 *                                 when they are written (the module) or
 *                                 a socket starts (fixed at the load:
 *                                 BPF)
 *   void hpcc_ctl_count(sk, int i)
 *                                 add one to counter i, HPCC_C_*
 *                                 (include/hpcc_api.h)
 *   bool hpcc_ctl_negotiated(sk)  did the connection negotiate CSIG, as
 *                                 far as is known now (the passive end
 *                                 learns it late: hpcc_ctl_late_csig())
 *   unsigned int hpcc_ctl_read(sk, unsigned int want,
 *                              struct hpcc_ctl_sample out[HPCC_CTL_NS])
 *                                 the newest sample of each CSIG type in
 *                                 @want (bit t: type t; of ABW/C, PD and
 *                                 U) into its slot HPCC_CTL_S_*; returns
 *                                 the mask of those that have arrived.
 *                                 Called once per ACK at most.
 *   void hpcc_ctl_trace(sk, const struct hpcc_ctl *ca, u32 w, u64 rate,
 *                       const char *source, bool upd)
 *                                 a window update (the module's
 *                                 tracepoint hpcc_update): W or the
 *                                 fallback's cwnd in bytes, the rate,
 *                                 the input ("u", "std", "fallback",
 *                                 "loss"); @upd: ca->st's committed, mi
 *                                 and held describe this update
 *   void hpcc_ctl_trace_late(sk, u32 looks)
 *                                 a late negotiation found at the
 *                                 @looks-th look (tracepoint
 *                                 hpcc_late_csig)
 *
 * The trace hooks may do nothing.  The flavour's congestion control
 * calls hpcc_ctl_init(), hpcc_ctl_update() (cong_control),
 * hpcc_ctl_set_state(), hpcc_ctl_cwnd_event(), hpcc_ctl_ssthresh() and
 * hpcc_ctl_undo_cwnd(); what it does besides (TSO cap, pacing shift,
 * get_info) is its own.
 *
 * Per ACK: the parameters once (hpcc_ctl_params()), no division by a
 * parameter (hpcc_ctl_cfg_set() reduces them), no clock read (the ACK's
 * time, dcc_now_ns()), one read of the telemetry; R = W / T and W in
 * segments are recomputed only when W, T or the MSS changed.
 */
#ifndef _HPCC_CTL_H
#define _HPCC_CTL_H

#include "csig.h"
#include "csig_opt.h"
#include "dcc_ctl.h"
#include "hpcc.h"
#include "hpcc_api.h"

/*
 * The parameters (struct hpcc_cfg, as written) and what per-ACK code
 * takes from them, derived by hpcc_ctl_cfg_set().
 */
struct hpcc_ctl_cfg {
	struct hpcc_cfg p;
	__u64	line_bps;	/* line rate, bytes per second */
	__u32	eta;		/* eta, HPCC_FRAC units */
	__u32	wait_mul;	/* commit_wait_us = T * wait_mul / wait_div, */
	__u32	wait_div;	/* commit_wait_pct / 100 reduced ... */
	__u32	wait_shift;	/* ... a shift when wait_div is 2^wait_shift */
};

/* Derive @k's constants from its parameters, @k->p. */
static inline void hpcc_ctl_cfg_set(struct hpcc_ctl_cfg *k)
{
	__u32 m = DCC_READ_ONCE(k->p.commit_wait_pct), d = 100;

	k->eta = DCC_READ_ONCE(k->p.eta) * HPCC_FRAC_ONE / 100;
	k->line_bps = (__u64)DCC_READ_ONCE(k->p.line_rate_mbps) * 125000;
	/* 100 = 2^2 * 5^2: pct / 100 in lowest terms, no loop (BPF) */
	if (!(m & 1) && !(d & 1)) {
		m >>= 1;
		d >>= 1;
	}
	if (!(m & 1) && !(d & 1)) {
		m >>= 1;
		d >>= 1;
	}
	if (!(m % 5) && !(d % 5)) {
		m /= 5;
		d /= 5;
	}
	if (!(m % 5) && !(d % 5)) {
		m /= 5;
		d /= 5;
	}
	k->wait_mul = m;
	k->wait_div = d;
	k->wait_shift = d == 1 ? 0 : d == 2 ? 1 : d == 4 ? 2 : 32;
}

/* The slots of hpcc_ctl_read()'s samples. */
enum {
	HPCC_CTL_S_ABWC,
	HPCC_CTL_S_PD,
	HPCC_CTL_S_U,
	HPCC_CTL_NS,
};

struct hpcc_ctl_sample {
	struct csig_sample s;	/* format, type, S, LM as the tag carried them */
	__u64	t_ns;		/* arrival, ktime_get_ns() */
};

/* ca->source: where the last sample came from */
enum { HPCC_SRC_NONE, HPCC_SRC_U, HPCC_SRC_STD };

/*
 * Looks for the negotiation, at most one per round trip, that a flow
 * which started without CSIG negotiated takes (hpcc_ctl_late_csig()).
 */
#define HPCC_LATE_CHECKS	16

/*
 * Per-socket state, in icsk_ca_priv: 104 bytes on 6.1 and 6.12 with the
 * module's own.  The times of the ACKs are kept in us (tcp_mstamp), the
 * samples' in ns.
 */
struct hpcc_ctl {
	struct hpcc_state st;
	__u64	info_ns;	/* newest telemetry: the arrival of the samples
				 * used (the newer of PD and ABW/C), which also
				 * tells a new sample; the flow's start, or its
				 * last look for a late negotiation
				 */
	__u64	rate;		/* W / T for st.W and t_us, bytes per second */
	__u32	t_us;		/* T of the last ACK, us */
	__u32	cwnd;		/* st.W in segments, rounded up, unclamped */
	__u32	use_us;		/* start of hpcc_ctl_w_used()'s average */
	__u32	use_delivered;	/* delivered at use_us */
	__u32	w_used_prev;	/* hpcc_ctl_w_used() when use_us was set */
	__u32	info_delivered;	/* delivered at info_ns */
	__u32	w_ai;		/* this flow's W_ai, bytes */
	__u32	pd_last;	/* the previous PD sample, ns (input std) */
	__u32	w_loss;		/* W before the last loss (hpcc_loss()) */
	__u8	started:1,	/* hpcc_ctl_init() ran */
		negotiated:1,
		in_loss:1,	/* in a loss episode (its response taken) */
		fallback:1,	/* Reno now */
		source:2,	/* HPCC_SRC_* of the last sample */
		probing:1;	/* restarted: W held until the path's
				 * answer (hpcc_ctl_tx_start()); use_us
				 * holds the restart's time
				 */
	__u8	late_checks;	/* looks for a late negotiation left */
	struct hpcc_ctl_flavour fl;
};

/* The flavour's (at the top), defined static, inline or not */
struct sock;
static struct hpcc_ctl *hpcc_ctl_ca(struct sock *sk);
static const struct hpcc_ctl_cfg *hpcc_ctl_cfg(struct sock *sk);
static void hpcc_ctl_count(struct sock *sk, int i);
static bool hpcc_ctl_negotiated(struct sock *sk);
static unsigned int hpcc_ctl_read(struct sock *sk, unsigned int want,
				  struct hpcc_ctl_sample *out);
static void hpcc_ctl_trace(struct sock *sk, const struct hpcc_ctl *ca,
			   __u32 w, __u64 rate, const char *source, bool upd);
static void hpcc_ctl_trace_late(struct sock *sk, __u32 looks);

static const struct csig_quant hpcc_ctl_quant = CSIG_DEFAULT_QUANT_INIT;

/* T of this flow, us: the parameter, else the flow's min RTT. */
static inline __u32 hpcc_ctl_t_us(struct sock *sk,
				  const struct hpcc_ctl_cfg *k)
{
	__u32 us = DCC_READ_ONCE(k->p.base_rtt_us);

	if (!us) {
		us = dcc_min_rtt_us(sk);
		if (us == ~0U || !us)
			us = dcc_srtt_us(sk) ?: USEC_PER_MSEC;
	}
	return us;
}

/* max(T, srtt), us: the round trip of staleness and W's bound */
static inline __u32 hpcc_ctl_rtt_us(struct sock *sk, __u32 t_us)
{
	return dcc_max32(t_us, dcc_srtt_us(sk));
}

/*
 * Line rate * @rtt_us, bytes, within what the socket can use: W_init
 * with T, and the most W may be with the flow's current RTT.
 * Mbit/s * us / 8 is exact in 64 bits.
 */
static inline __u32 hpcc_ctl_w_line(struct sock *sk,
				    const struct hpcc_ctl_cfg *k, __u32 rtt_us)
{
	__u64 w = (__u64)DCC_READ_ONCE(k->p.line_rate_mbps) * rtt_us >> 3;
	__u32 mss = dcc_mss(sk);

	w = dcc_min64(w, (__u64)dcc_cwnd_clamp(sk) * mss);
	return (__u32)dcc_clamp64(w, 2ULL * mss, ~0U);
}

/*
 * The algorithm's parameters for this flow on this ACK, T @t_us.  W is
 * bounded by what the line rate can keep in flight over the flow's RTT
 * (max(T, srtt)): where the round trip is longer than T (host delays
 * under load), a W of line rate * T could not fill the path, and U
 * still decides below that.
 */
static inline void hpcc_ctl_params(struct sock *sk, const struct hpcc_ctl *ca,
				   const struct hpcc_ctl_cfg *k, __u32 t_us,
				   struct hpcc_params *p)
{
	__u32 mss = dcc_mss(sk), div = DCC_READ_ONCE(k->wait_div);
	__u64 wait = (__u64)t_us * DCC_READ_ONCE(k->wait_mul);

	p->t_ns = (__u64)t_us * NSEC_PER_USEC;
	p->eta = DCC_READ_ONCE(k->eta);
	p->max_stage = DCC_READ_ONCE(k->p.max_stage);
	p->commit_samples = DCC_READ_ONCE(k->p.commit_samples);
	/* T * commit_wait_pct / 100, a shift but for odd divisors */
	if (div & (div - 1))
		wait = div_u64(wait, div);
	else
		wait >>= DCC_READ_ONCE(k->wait_shift) & 31;
	p->commit_wait_us = (__u32)dcc_min64(wait, ~0U);
	p->grow_pct = DCC_READ_ONCE(k->p.grow_pct);
	p->w_used = 0;		/* hpcc_ctl_update() measures it */
	p->w_ai = ca->w_ai;
	p->w_loss = ca->w_loss;
	p->w_min = dcc_max32(mss >> 3, 64);
	p->w_max = dcc_max32(hpcc_ctl_w_line(sk, k, hpcc_ctl_rtt_us(sk, t_us)),
			     p->w_min);
}

/*
 * R = W / T, at most the line rate: recomputed when W or T changed
 * since the last (the rate kept is then no longer W * 10^9 / T rounded
 * down).
 */
static inline __u64 hpcc_ctl_pacing(struct hpcc_ctl *ca,
				    const struct hpcc_ctl_cfg *k, __u32 t_us)
{
	__u64 t_ns = (__u64)t_us * NSEC_PER_USEC;
	__u64 b = (__u64)ca->st.W * HPCC_NSEC_PER_SEC, r;

	if (t_us == ca->t_us) {
		/* kept for this T: r is at most 2^32 * 10^9, no overflow */
		r = ca->rate * t_ns;
		if (r <= b && b - r < t_ns)
			return dcc_min64(ca->rate, DCC_READ_ONCE(k->line_bps));
	}
	ca->rate = hpcc_rate(ca->st.W, t_ns);
	ca->t_us = t_us;
	return dcc_min64(ca->rate, DCC_READ_ONCE(k->line_bps));
}

/* W in segments, rounded up: recomputed when W or the MSS changed. */
static inline __u32 hpcc_ctl_segs(struct hpcc_ctl *ca, __u32 mss)
{
	__u64 c = ca->cwnd;

	if (c * mss < ca->st.W || (c && (c - 1) * mss >= ca->st.W))
		ca->cwnd = dcc_div_up32(ca->st.W, mss);
	return ca->cwnd;
}

/*
 * W into TCP: snd_cwnd in whole segments plus one, ssthresh with it,
 * R = W / T.  The segment above W is the one a delayed ACK holds at the
 * receiver (it acknowledges every second full segment): without it a
 * flow whose W is within a segment of R * RTT waits for that ACK each
 * round and sends below R (Documentation/tcp_hpcc.rst, "W's bounds");
 * R still paces.  After an RTO (TCP_CA_Loss) snd_cwnd grows from TCP's
 * loss window by the @acked packets, up to that, as TCP's slow start
 * would after it (tcp_bbr.c does the same).
 */
static inline __u64 hpcc_ctl_apply(struct sock *sk, struct hpcc_ctl *ca,
				   const struct hpcc_ctl_cfg *k, __u32 t_us,
				   __u32 acked)
{
	__u64 rate = hpcc_ctl_pacing(ca, k, t_us);
	__u32 cwnd = dcc_clamp32(hpcc_ctl_segs(ca, dcc_mss(sk)) + 1, 2,
				 dcc_cwnd_clamp(sk));

	dcc_set_ssthresh(sk, cwnd);
	if (dcc_ca_state(sk) == TCP_CA_Loss)
		cwnd = dcc_min32(cwnd, dcc_cwnd(sk) + acked);
	dcc_set_cwnd(sk, cwnd);
	dcc_set_pacing_rate(sk, rate);
	return rate;
}

/* Does hpcc_ctl_w_used()'s average span T by @now_us? */
static inline bool hpcc_ctl_use_spans(const struct hpcc_ctl *ca, __u32 now_us,
				      __u32 t_us)
{
	return now_us != ca->use_us && now_us - ca->use_us >= t_us;
}

/* Restart hpcc_ctl_w_used()'s average now, with @prev deciding until T. */
static inline void hpcc_ctl_use_restart(struct sock *sk, struct hpcc_ctl *ca,
					__u32 now_us, __u32 prev)
{
	ca->use_us = now_us;
	ca->use_delivered = dcc_delivered(sk);
	ca->w_used_prev = prev;
}

/* W_ai and the algorithm's state of a flow that takes telemetry. */
static inline void hpcc_ctl_start(struct sock *sk, struct hpcc_ctl *ca,
				  const struct hpcc_ctl_cfg *k, __u32 t_us,
				  __u32 w)
{
	struct hpcc_params p;
	__u32 w_init;

	/* W_init = line rate * T */
	w_init = hpcc_ctl_w_line(sk, k, t_us);
	hpcc_ctl_params(sk, ca, k, t_us, &p);
	ca->w_ai = DCC_READ_ONCE(k->p.w_ai) ?:
		   hpcc_default_w_ai(w_init, p.eta, DCC_READ_ONCE(k->p.nflows));
	p.w_ai = ca->w_ai;
	hpcc_state_init(&ca->st, &p, w ?: w_init, dcc_snd_una(sk));
}

/*
 * Reno, with TCP's pacing rule, when there is no telemetry.  Returns the
 * pacing rate.
 */
static inline __u64 hpcc_ctl_reno(struct sock *sk, int acked)
{
	__u32 cwnd, srtt;
	__u64 rate;

	hpcc_ctl_count(sk, HPCC_C_FALLBACK_ACKS);
	if (dcc_ca_state(sk) >= TCP_CA_Recovery)
		dcc_set_cwnd(sk, dcc_max32(dcc_min32(dcc_cwnd(sk),
						     dcc_ssthresh(sk)), 2));
	else if (acked > 0)
		dcc_reno_cong_avoid(sk, acked);
	/* tcp_update_pacing_rate(): 200% of cwnd / srtt in slow start, 120% after */
	cwnd = dcc_cwnd(sk);
	rate = (__u64)dcc_mss(sk) * ((USEC_PER_SEC / 100) << 3);
	rate *= cwnd < dcc_ssthresh(sk) ? 200 : 120;
	rate *= dcc_max32(cwnd, dcc_packets_out(sk));
	/* srtt_us, the kernel's 8 times srtt */
	srtt = dcc_srtt_us(sk) << 3;
	if (srtt)
		rate = div64_u64(rate, srtt);
	dcc_set_pacing_rate(sk, rate);
	return rate;
}

static inline void hpcc_ctl_init(struct sock *sk)
{
	const struct hpcc_ctl_cfg *k = hpcc_ctl_cfg(sk);
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);
	__u32 t_us, ss, w;
	__u64 r;

	ca->started = 1;
	ca->negotiated = hpcc_ctl_negotiated(sk);
	ca->info_ns = dcc_now_ns(sk);
	hpcc_ctl_use_restart(sk, ca, (__u32)dcc_now_us(sk), 0);
	ca->info_delivered = dcc_delivered(sk);
	if (!ca->negotiated) {
		/* Reno from TCP's initial window */
		ca->fallback = 1;
		ca->late_checks = HPCC_LATE_CHECKS;
		hpcc_ctl_count(sk, HPCC_C_FLOWS_NO_CSIG);
		return;
	}
	hpcc_ctl_count(sk, HPCC_C_FLOWS);
	/*
	 * flows start at line rate: W_init = line rate * T; a departure
	 * from the draft: at most the ssthresh the kernel remembers for
	 * the destination (DCC_INFINITE_SSTHRESH where it has none)
	 */
	t_us = hpcc_ctl_t_us(sk, k);
	ss = dcc_ssthresh(sk);
	w = hpcc_ctl_w_line(sk, k, t_us);
	r = (__u64)dcc_max32(ss, 2) * dcc_mss(sk);
	if (ss < DCC_INFINITE_SSTHRESH && r < w) {
		w = (__u32)r;
		hpcc_ctl_count(sk, HPCC_C_W_REMEMBERED);
	}
	hpcc_ctl_start(sk, ca, k, t_us, w);
	hpcc_ctl_apply(sk, ca, k, t_us, 0);
}

/*
 * A passive open is negotiated only once the active opener's
 * confirmation arrives, which can be after the segment that created the
 * socket (Documentation/tcp_hpcc.rst, "Fallback").  A flow that started
 * without CSIG negotiated looks again on its ACKs: on the first, then at
 * most once per round trip (max(T, srtt); info_ns holds the last look),
 * HPCC_LATE_CHECKS times.  Found, it takes the telemetry path with the
 * W_ai and state hpcc_ctl_init() gives, and stays on Reno until its
 * first sample, which resumes HPCC from Reno's window.
 */
static inline void hpcc_ctl_late_csig(struct sock *sk, struct hpcc_ctl *ca,
				      const struct hpcc_ctl_cfg *k, __u64 now)
{
	__u32 t_us = hpcc_ctl_t_us(sk, k);

	if (ca->late_checks < HPCC_LATE_CHECKS &&
	    now - ca->info_ns < (__u64)hpcc_ctl_rtt_us(sk, t_us) * NSEC_PER_USEC)
		return;
	ca->info_ns = now;
	ca->late_checks--;
	if (!hpcc_ctl_negotiated(sk))
		return;
	hpcc_ctl_trace_late(sk, HPCC_LATE_CHECKS - ca->late_checks);
	ca->late_checks = 0;
	ca->negotiated = 1;
	hpcc_ctl_count(sk, HPCC_C_FLOWS_LATE_CSIG);
	hpcc_ctl_start(sk, ca, k, t_us, dcc_cwnd(sk) * dcc_mss(sk));
	ca->info_delivered = dcc_delivered(sk);
}

/*
 * The newest sample of the configured input.  Returns the HPCC_SRC_* it
 * came from and sets *u and *ts when it is one not used before, else 0.
 * A sample is new when it arrived after the one used (info_ns): the
 * newer of a PD and ABW/C pair changes when either does.
 */
static inline int hpcc_ctl_sample(struct sock *sk, struct hpcc_ctl *ca,
				  const struct hpcc_ctl_cfg *k, __u64 t_ns,
				  __u32 *u, __u64 *ts)
{
	unsigned int in = DCC_READ_ONCE(k->p.input), want = 0, got;
	struct hpcc_ctl_sample sm[HPCC_CTL_NS];
	__u64 pd, abwc, v;

	if (in != HPCC_IN_STD)
		want |= 1U << CSIG_T_U;
	if (in != HPCC_IN_U)
		want |= (1U << CSIG_T_ABWC) | (1U << CSIG_T_PD);
	got = hpcc_ctl_read(sk, want, sm);
	if (got & (1U << CSIG_T_U)) {
		if (sm[HPCC_CTL_S_U].t_ns == ca->info_ns &&
		    ca->source == HPCC_SRC_U)
			return 0;
		*u = csig_decode(&hpcc_ctl_quant, sm[HPCC_CTL_S_U].s.format,
				 CSIG_T_U, sm[HPCC_CTL_S_U].s.s);
		*ts = sm[HPCC_CTL_S_U].t_ns;
		return HPCC_SRC_U;
	}
	/* u = max(PD) / T + 1 - min(ABW/C): both must be there */
	if ((got & ((1U << CSIG_T_ABWC) | (1U << CSIG_T_PD))) !=
	    ((1U << CSIG_T_ABWC) | (1U << CSIG_T_PD)))
		return 0;
	*ts = dcc_max64(sm[HPCC_CTL_S_PD].t_ns, sm[HPCC_CTL_S_ABWC].t_ns);
	if (*ts == ca->info_ns && ca->source == HPCC_SRC_STD)
		return 0;
	pd = csig_decode(&hpcc_ctl_quant, sm[HPCC_CTL_S_PD].s.format,
			 CSIG_T_PD, sm[HPCC_CTL_S_PD].s.s);
	abwc = csig_decode(&hpcc_ctl_quant, sm[HPCC_CTL_S_ABWC].s.format,
			   CSIG_T_ABWC, sm[HPCC_CTL_S_ABWC].s.s);
	/* line 5's min(qlen, qlen'), on the delay: PD = qlen / C */
	v = dcc_min64(pd, ca->pd_last);
	ca->pd_last = (__u32)dcc_min64(pd, ~0U);
	v = t_ns ? div64_u64(v << HPCC_FRAC_SHIFT, t_ns) : ~0U;
	v += HPCC_FRAC_ONE - dcc_min64(abwc, HPCC_FRAC_ONE);
	*u = (__u32)dcc_min64(v, ~0U);
	return HPCC_SRC_STD;
}

/*
 * What this flow used since the last commit, as a window: its delivery
 * rate over that time * max(T, srtt), bytes (hpcc_may_grow()).  An
 * average over at least T, not TCP's per-ACK rate samples, which show a
 * host sending in bursts after a stall at the line rate; until it spans
 * T, the one before decides (Documentation/tcp_hpcc.rst).
 */
static inline __u32 hpcc_ctl_w_used(struct sock *sk,
				    const struct hpcc_ctl *ca, __u32 now_us,
				    __u32 t_us)
{
	__u64 w;

	if (!hpcc_ctl_use_spans(ca, now_us, t_us))
		return ca->w_used_prev;
	w = hpcc_scale((__u64)(dcc_delivered(sk) - ca->use_delivered) *
		       dcc_mss(sk), hpcc_ctl_rtt_us(sk, t_us),
		       now_us - ca->use_us);
	return (__u32)dcc_min64(w, ~0U);
}

/* Telemetry is back: HPCC from the window Reno had. */
static inline void hpcc_ctl_resume(struct sock *sk, struct hpcc_ctl *ca,
				   const struct hpcc_params *p, __u32 now_us)
{
	ca->fallback = 0;
	ca->st.W = dcc_clamp32(dcc_cwnd(sk) * dcc_mss(sk), p->w_min, p->w_max);
	ca->st.wc = ca->st.W;
	ca->st.inc_stage = 0;
	ca->st.last_update_seq = dcc_snd_nxt(sk);
	ca->st.passed = 0;
	/* what the fallback used is no measure of W */
	hpcc_ctl_use_restart(sk, ca, now_us, 0);
	hpcc_ctl_count(sk, HPCC_C_RESUMES);
}

/*
 * Is the newest telemetry older than stale_rtts round trips (max(T,
 * srtt)) at @now?  The fallback's measure, and the probe's.
 */
static inline bool hpcc_ctl_stale(struct sock *sk, const struct hpcc_ctl *ca,
				  const struct hpcc_ctl_cfg *k, __u64 now,
				  __u32 t_us)
{
	return now > ca->info_ns &&
	       now - ca->info_ns > (__u64)DCC_READ_ONCE(k->p.stale_rtts) *
				   hpcc_ctl_rtt_us(sk, t_us) * NSEC_PER_USEC;
}

/*
 * Probes.  A flow that restarts with stale telemetry (nothing in flight:
 * TCP's CA_EVENT_TX_START; its newest sample older than stale_rtts round
 * trips, max(T, srtt), the fallback's measure) holds snd_cwnd at
 * HPCC_PROBE_SEGS until a sample that arrived after the restart tells
 * it the path's U: the restart's first segments are the draft's probe
 * (section 6.1).  W then starts from the W before the
 * pause as HPCC's multiplicative step would take it on that path
 * (hpcc_ctl_probed()), and HPCC goes on from there.  A flow that has not
 * had a sample yet (a new connection: W_init is the line rate's, the
 * draft's start) does not probe; nor one in loss recovery, whose window
 * TCP's recovery sets.  Without an answer the fallback takes over as
 * for any stale telemetry, from the window before the pause.
 */
#define HPCC_PROBE_SEGS	2

static inline void hpcc_ctl_tx_start(struct sock *sk, struct hpcc_ctl *ca)
{
	const struct hpcc_ctl_cfg *k = hpcc_ctl_cfg(sk);
	__u64 now = dcc_now_ns(sk);

	if (!ca->started || !ca->negotiated || ca->fallback || ca->probing ||
	    ca->source == HPCC_SRC_NONE ||
	    dcc_ca_state(sk) >= TCP_CA_Recovery ||
	    !hpcc_ctl_stale(sk, ca, k, now, hpcc_ctl_t_us(sk, k)))
		return;
	ca->probing = 1;
	/* what the pause used is no measure of W either */
	hpcc_ctl_use_restart(sk, ca, (__u32)dcc_now_us(sk), 0);
	dcc_set_cwnd(sk, HPCC_PROBE_SEGS);
	hpcc_ctl_count(sk, HPCC_C_PROBES);
	hpcc_ctl_trace(sk, ca, ca->st.W,
		       dcc_min64(ca->rate, DCC_READ_ONCE(k->line_bps)), "probe",
		       false);
}

/*
 * The probe's answer, the path's U now (ca->st.U).  W is what HPCC's
 * multiplicative step makes of the W before the pause once that W is in
 * flight on this path, W * eta / (U + W / (line rate * T)): ComputeWind
 * on the inflight the restart would add, before the restart adds it.
 * Not above that W; not below what the path has room for, line rate * T
 * * (eta - U), nor W_ai.
 */
static inline void hpcc_ctl_probed(struct sock *sk, struct hpcc_ctl *ca,
				   const struct hpcc_ctl_cfg *k,
				   const struct hpcc_params *p, __u32 t_us)
{
	__u32 w_line = hpcc_ctl_w_line(sk, k, t_us), w0 = ca->st.W;
	__u32 room = p->eta > ca->st.U ? p->eta - ca->st.U : 0;
	__u64 u, w;

	u = ca->st.U + hpcc_scale(w0, HPCC_FRAC_ONE, w_line);
	w = dcc_max64(hpcc_scale(w0, p->eta, u),
		      (__u64)w_line * room >> HPCC_FRAC_SHIFT);
	w = dcc_min64(dcc_max64(w, p->w_ai), w0);
	ca->probing = 0;
	ca->st.W = hpcc_clamp_w(p, w);
	ca->st.wc = ca->st.W;
	ca->st.inc_stage = 0;
	ca->st.last_update_seq = dcc_snd_nxt(sk);
	ca->st.passed = 0;
}

/* cong_control: @acked, the rate sample's acked_sacked. */
static inline void hpcc_ctl_update(struct sock *sk, int acked)
{
	const struct hpcc_ctl_cfg *k = hpcc_ctl_cfg(sk);
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);
	__u64 now, ts = 0, rate;
	struct hpcc_params p;
	__u32 u = 0, t_us, now_us;
	int src;

	/*
	 * The ACK of an active open's SYN reaches cong_control before
	 * tcp_init_transfer() calls init: nothing to do on the zeroed
	 * state.
	 */
	if (!ca->started)
		return;
	now = dcc_now_ns(sk);
	if (!ca->negotiated) {
		/* found late: its samples from the next ACK on */
		if (ca->late_checks)
			hpcc_ctl_late_csig(sk, ca, k, now);
		hpcc_ctl_reno(sk, acked);
		return;
	}
	now_us = (__u32)dcc_now_us(sk);
	t_us = hpcc_ctl_t_us(sk, k);
	hpcc_ctl_params(sk, ca, k, t_us, &p);
	p.w_used = hpcc_ctl_w_used(sk, ca, now_us, t_us);
	src = hpcc_ctl_sample(sk, ca, k, p.t_ns, &u, &ts);
	if (src) {
		ca->source = src;
		ca->info_ns = ts;
		ca->info_delivered = dcc_delivered(sk);
		hpcc_ctl_count(sk, src == HPCC_SRC_U ? HPCC_C_SAMPLES_U :
						       HPCC_C_SAMPLES_STD);
		if (ca->fallback)
			hpcc_ctl_resume(sk, ca, &p, now_us);
		hpcc_measure_u(&ca->st, &p, u, ts);
	}
	/*
	 * In loss recovery the ACKs' SACK blocks can fill the option space
	 * (timestamps and two blocks leave 8 bytes, a sample needs 10):
	 * their silence says nothing of the path, and the window acked
	 * without news counts from the end of recovery.
	 */
	if (dcc_ca_state(sk) >= TCP_CA_Recovery)
		ca->info_delivered = dcc_delivered(sk);
	/* stale: a few RTTs without news while a window was acked */
	if (!ca->fallback && hpcc_ctl_stale(sk, ca, k, now, t_us) &&
	    dcc_delivered(sk) - ca->info_delivered > dcc_cwnd(sk)) {
		ca->fallback = 1;
		/* no answer to a probe: Reno from the W before it */
		if (ca->probing) {
			ca->probing = 0;
			dcc_set_cwnd(sk, dcc_max32(dcc_cwnd(sk), ca->cwnd));
		}
		dcc_set_ssthresh(sk, dcc_cwnd(sk));
		hpcc_ctl_count(sk, HPCC_C_FALLBACKS);
	}
	if (ca->fallback) {
		rate = hpcc_ctl_reno(sk, acked);
		hpcc_ctl_trace(sk, ca, dcc_cwnd(sk) * dcc_mss(sk), rate,
			       "fallback", false);
		return;
	}
	/* a probe's answer is a sample that arrived after the restart */
	if (ca->probing) {
		if (!src || (__s32)((__u32)div_u64(ts, NSEC_PER_USEC) -
				    ca->use_us) < 0) {
			dcc_set_cwnd(sk, HPCC_PROBE_SEGS);
			return;
		}
		hpcc_ctl_probed(sk, ca, k, &p, t_us);
	}
	/*
	 * In loss recovery W stays where hpcc_ctl_react_to_loss() put it:
	 * U, which did not show the loss, would take it back.
	 */
	if (dcc_ca_state(sk) >= TCP_CA_Recovery)
		ca->st.committed = 0;
	else
		hpcc_new_ack(&ca->st, &p, dcc_snd_una(sk), dcc_snd_nxt(sk),
			     now_us);
	if (ca->st.committed) {
		/* a new average once this one spans T (hpcc_ctl_w_used()) */
		if (hpcc_ctl_use_spans(ca, now_us, t_us))
			hpcc_ctl_use_restart(sk, ca, now_us, p.w_used);
		hpcc_ctl_count(sk, HPCC_C_COMMITS);
		if (ca->st.mi)
			hpcc_ctl_count(sk, HPCC_C_COMMITS_MI);
		if (ca->st.held)
			hpcc_ctl_count(sk, HPCC_C_COMMITS_HELD);
		/* back at the W before the loss: U decides alone again */
		if (ca->w_loss && ca->st.wc >= ca->w_loss)
			ca->w_loss = 0;
	}
	rate = hpcc_ctl_apply(sk, ca, k, t_us, acked > 0 ? acked : 0);
	hpcc_ctl_trace(sk, ca, ca->st.W, rate,
		       ca->source == HPCC_SRC_STD ? "std" : "u", true);
}

/*
 * A loss episode, once: entering fast recovery or the loss state (an
 * RTO).  tcp_dctcp.c counts an RTO only when TCP counts it as a new
 * reduction (CA_EVENT_LOSS), which an RTO in CWR is not; hpcc counts
 * that one too, as CWR, which TCP enters at an ECE or a local
 * congestion notification, does not touch W.  With telemetry W and Wc
 * halve (hpcc_loss(), Documentation/tcp_hpcc.rst); the fallback halves
 * as Reno does, through ssthresh.
 */
static inline void hpcc_ctl_react_to_loss(struct sock *sk)
{
	const struct hpcc_ctl_cfg *k = hpcc_ctl_cfg(sk);
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);
	struct hpcc_params p;

	if (ca->in_loss)
		return;
	ca->in_loss = 1;
	if (!ca->started || !ca->negotiated || ca->fallback)
		return;
	hpcc_ctl_params(sk, ca, k, hpcc_ctl_t_us(sk, k), &p);
	ca->w_loss = hpcc_loss(&ca->st, &p, dcc_snd_nxt(sk));
	hpcc_ctl_count(sk, HPCC_C_LOSSES);
	hpcc_ctl_trace(sk, ca, ca->st.W,
		       dcc_min64(ca->rate, DCC_READ_ONCE(k->line_bps)), "loss",
		       false);
}

/*
 * An episode starts when TCP enters recovery or the loss state, and ends
 * when it leaves them; one that TCP entered again within it (an RTO in
 * fast recovery, a timer that backs off) is the same episode.  An RTO
 * that TCP counts as a new reduction reaches hpcc_ctl_cwnd_event() first
 * (tcp_enter_loss() sends CA_EVENT_LOSS before it sets the state) and
 * starts a new one; one in CWR only comes here.
 */
static inline void hpcc_ctl_set_state(struct sock *sk, __u8 new_state)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	if (new_state < TCP_CA_Recovery)
		ca->in_loss = 0;
	else if (new_state != dcc_ca_state(sk))
		hpcc_ctl_react_to_loss(sk);
}

static inline void hpcc_ctl_cwnd_event(struct sock *sk, int ev)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		ca->in_loss = 0;
		hpcc_ctl_react_to_loss(sk);
	} else if (ev == CA_EVENT_TX_START) {
		hpcc_ctl_tx_start(sk, ca);
	}
}

/* With telemetry, hpcc_ctl_react_to_loss() has set the window. */
static inline __u32 hpcc_ctl_ssthresh(struct sock *sk)
{
	if (hpcc_ctl_ca(sk)->fallback)
		return dcc_max32(dcc_cwnd(sk) >> 1, 2);
	return dcc_max32(dcc_cwnd(sk), 2);
}

/* A loss found spurious: W as before it. */
static inline __u32 hpcc_ctl_undo_cwnd(struct sock *sk)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	if (ca->fallback)
		return dcc_reno_undo_cwnd(sk);
	if (ca->w_loss) {
		ca->st.W = dcc_max32(ca->st.W, ca->w_loss);
		ca->st.wc = ca->st.W;
		ca->w_loss = 0;
		hpcc_ctl_count(sk, HPCC_C_UNDOS);
	}
	return dcc_max32(dcc_cwnd(sk), dcc_div_up32(ca->st.W, dcc_mss(sk)) + 1);
}

#endif /* _HPCC_CTL_H */
