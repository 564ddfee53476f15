/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HPCC++ (draft-miao-iccrg-hpccplus-01, section 4.2): the algorithm, in C
 * that compiles in the kernel (tcp_hpcc.c) and in userspace
 * (selftests/unit/test_hpcc.c).  No allocation, no floating point, no
 * kernel or libc dependency.
 *
 * Units:
 *   U, u, eta   fractions with HPCC_FRAC_SHIFT (20) fractional bits, the
 *               unit of the CSIG U and ABW/C signals (include/csig.h)
 *   W, Wc, W_ai bytes
 *   T, ts, tau  nanoseconds
 *   B           bytes per second
 *
 * The draft's figures map onto these functions line by line:
 *   MeasureInflight (lines 1-10)  hpcc_measure_links() with per-link
 *                                 telemetry, hpcc_measure_u() with a path
 *                                 u the switches already aggregated (CSIG
 *                                 U, max over the path)
 *   ComputeWind (lines 11-20)     hpcc_compute_wind()
 *   NewAck (lines 21-27)          hpcc_new_ack(), hpcc_rate()
 * Departures (Documentation/tcp_hpcc.rst): W is clamped to [w_min, w_max]
 * before it is used or committed; U = 0 in the multiplicative branch is
 * read as the smallest non-zero U; a link whose two samples share a
 * timestamp (zero interval) gives no u; a commit waits for fresh
 * telemetry (hpcc_new_ack()); W grows past Wc only while the flow uses
 * it (hpcc_may_grow()); a loss halves W (hpcc_loss()).
 */
#ifndef _HPCC_H
#define _HPCC_H

#include <linux/types.h>

#include "div64.h"

#define HPCC_FRAC_SHIFT		20
#define HPCC_FRAC_ONE		0x100000U	/* 1 << HPCC_FRAC_SHIFT */
#define HPCC_NSEC_PER_SEC	1000000000ULL

/* Figure 3's parameters, in the units above. */
struct hpcc_params {
	__u64	t_ns;		/* T: known baseline RTT */
	__u32	eta;		/* target utilisation (0.95 by default) */
	__u32	max_stage;	/* additive increases before an MI step */
	__u32	w_ai;		/* W_ai: additive increase, bytes */
	__u32	w_min;		/* departure: W never below ... */
	__u32	w_max;		/* ... or above these, bytes */
	__u32	commit_samples;	/* departure: new samples a commit also
				 * waits for once lastUpdateSeq is acked
				 * (0: the draft's rule alone) ...
				 */
	__u32	commit_wait_us;	/* ... and the time since that ACK, us */
	__u32	grow_pct;	/* departure: W grows past Wc only if the
				 * flow used this per cent of Wc (0: the
				 * draft's rule alone) ...
				 */
	__u32	w_used;		/* ... as W = delivery rate * T, bytes */
	__u32	w_loss;		/* departure: W before the last loss;
				 * below it W grows by W_ai at most
				 * (hpcc_loss(); 0: no loss)
				 */
};

/* Figure 2's per-flow variables. */
struct hpcc_state {
	__u64	last_ts;	/* the u sample's time (hpcc_measure_u) */
	__u32	U;		/* EWMA of the normalised inflight */
	__u32	W;		/* window, bytes */
	__u32	wc;		/* Wc: reference window, bytes */
	__u32	inc_stage;	/* additive increases since the last MI/MD */
	__u32	last_update_seq;
	__u32	pass_us;	/* when an ACK passed it, us (mod 2^32) */
	__u8	have_sample;	/* a first sample was recorded */
	__u8	committed;	/* the last hpcc_new_ack() updated Wc */
	__u8	mi;		/* ... and took the multiplicative branch */
	__u8	held;		/* ... and W was kept at Wc (hpcc_may_grow()) */
	__u8	passed;		/* an ACK passed lastUpdateSeq */
	__u8	fresh;		/* new samples measured since */
};

/* One link's telemetry (figure 2): what a switch writes for its port. */
struct hpcc_link {
	__u64	ts;		/* ns */
	__u64	tx_bytes;	/* bytes sent by the port, at ts */
	__u64	bw;		/* B, bytes per second */
	__u32	qlen;		/* bytes queued at ts */
};

static inline __u32 hpcc_clamp_w(const struct hpcc_params *p, __u64 w)
{
	if (w < p->w_min)
		return p->w_min;
	if (w > p->w_max)
		return p->w_max;
	return (__u32)w;
}

static inline void hpcc_state_init(struct hpcc_state *st,
				   const struct hpcc_params *p, __u32 w_init,
				   __u32 seq)
{
	st->last_ts = 0;
	st->pass_us = 0;
	st->U = 0;
	st->W = hpcc_clamp_w(p, w_init);
	st->wc = st->W;
	st->inc_stage = 0;
	st->last_update_seq = seq;
	st->have_sample = 0;
	st->committed = 0;
	st->mi = 0;
	st->held = 0;
	st->passed = 0;
	st->fresh = 0;
}

/* A new sample was measured: count it towards the next commit. */
static inline void hpcc_sample_seen(struct hpcc_state *st)
{
	if (st->passed && st->fresh < 255)
		st->fresh++;
}

/*
 * Line 9: U = (1 - tau/T) * U + tau/T * u, tau already capped at T
 * (line 8).  A T of 0 is read as tau == T.
 */
static inline __u32 hpcc_ewma(__u32 U, __u32 u, __u64 tau, __u64 t)
{
	if (!t || tau >= t)
		return u;
	/* below 2^32 * t, within 64 bits once t is below 2^32 (4.3 s) */
	while (t >> 32) {
		t >>= 1;
		tau >>= 1;
	}
	return (__u32)div64_u64((__u64)U * (t - tau) + (__u64)u * tau, t);
}

/*
 * @a * @b / @c, ~0 for @c = 0.  When the product passes 64 bits, the
 * larger factor and @c lose their low bits together until it fits: the
 * quotient is then exact to about 1 / (@c >> those bits), and ~0 when
 * that leaves nothing of @c (the quotient is at least 2^64 / @c).
 */
#ifdef __bpf__
/*
 * BPF: a global function of the program, which the verifier checks once
 * for any arguments; inlined at each caller, its loop is explored anew
 * at each, past the verifier's limit of a million instructions
 * (__noinline: libbpf's bpf_helpers.h, which the programs include first).
 */
__noinline __u64 hpcc_scale(__u64 a, __u64 b, __u64 c)
#else
static inline __u64 hpcc_scale(__u64 a, __u64 b, __u64 c)
#endif
{
	__u64 p;

	while (dcc_mul_overflow(a, b, &p)) {
		if (a > b)
			a >>= 1;
		else
			b >>= 1;
		c >>= 1;
		if (!c)
			return ~0ULL;
	}
	return c ? div64_u64(p, c) : ~0ULL;
}

/*
 * A line rate of @mbps Mbit/s over @t_ns: bytes, mbps * t_ns / 8000.
 * Exact up to 4.6e12 ns (77 minutes) at 4 Tbit/s.
 */
static inline __u64 hpcc_line_bytes(__u32 mbps, __u64 t_ns)
{
	return hpcc_scale(mbps, t_ns, 8000);
}

/*
 * Lines 4-5 for one link: txRate = dTxBytes / dts and
 * u' = min(qlen, qlen') / (B * T) + txRate / B, in HPCC_FRAC.  Returns
 * -1 (no u) for a zero or negative interval or a zero B.
 */
static inline int hpcc_link_u(const struct hpcc_link *now,
			      const struct hpcc_link *prev, __u64 t_ns,
			      __u32 *u, __u64 *tau)
{
	__u64 dt, q, rate, bdp, v;

	if (now->ts <= prev->ts || !now->bw)
		return -1;
	dt = now->ts - prev->ts;
	q = now->qlen < prev->qlen ? now->qlen : prev->qlen;
	/* txRate in bytes/s: exact for up to 18 GB between two samples */
	rate = hpcc_scale(now->tx_bytes - prev->tx_bytes, HPCC_NSEC_PER_SEC, dt);
	/* B * T in bytes */
	bdp = hpcc_scale(now->bw, t_ns, HPCC_NSEC_PER_SEC);
	/* u' saturates at 2^32 - 1 (4096) */
	v = rate >> (64 - HPCC_FRAC_SHIFT) ? ~0ULL : div64_u64(rate << HPCC_FRAC_SHIFT, now->bw);
	if (q && v <= 0xffffffffULL)
		v += bdp ? div64_u64((__u64)q << HPCC_FRAC_SHIFT, bdp) : 0xffffffffULL;
	*u = v > 0xffffffffULL ? 0xffffffffU : (__u32)v;
	*tau = dt;
	return 0;
}

/*
 * MeasureInflight (lines 1-10) over @n links: the largest u' and its
 * interval, tau capped at T, then the EWMA.  @prev is the L of line 27
 * and becomes @now.  The first call only records (there is no previous
 * sample to take differences from); links with no u (zero interval) are
 * skipped, and when none gives one U is unchanged.
 */
static inline __u32 hpcc_measure_links(struct hpcc_state *st,
				       const struct hpcc_params *p,
				       const struct hpcc_link *now,
				       struct hpcc_link *prev, unsigned int n)
{
	__u32 u = 0, ui;
	__u64 tau = 0, ti;
	unsigned int i;
	int any = 0;

	if (st->have_sample) {
		for (i = 0; i < n; i++) {
			if (hpcc_link_u(&now[i], &prev[i], p->t_ns, &ui, &ti))
				continue;
			if (!any || ui > u) {
				u = ui;
				tau = ti;
			}
			any = 1;
		}
		if (any) {
			if (tau > p->t_ns)
				tau = p->t_ns;
			st->U = hpcc_ewma(st->U, u, tau, p->t_ns);
			hpcc_sample_seen(st);
		}
	}
	for (i = 0; i < n; i++)
		prev[i] = now[i];
	st->have_sample = 1;
	return st->U;
}

/*
 * MeasureInflight when the path already reported u = max_i(u'_i) (CSIG's
 * U signal: each switch wrote max(its U, the tag's), with line 5's
 * min(qlen, qlen') applied to its queue term), sampled at @ts: tau is the
 * interval since the previous sample, capped at T (line 8), then the EWMA
 * (line 9).  The first sample only records its time; a sample no later
 * than the previous one (zero interval) changes nothing.
 */
static inline __u32 hpcc_measure_u(struct hpcc_state *st,
				   const struct hpcc_params *p, __u32 u,
				   __u64 ts)
{
	__u64 tau;

	if (!st->have_sample) {
		st->have_sample = 1;
		st->last_ts = ts;
		return st->U;
	}
	if (ts <= st->last_ts)
		return st->U;
	tau = ts - st->last_ts;
	st->last_ts = ts;
	if (tau > p->t_ns)
		tau = p->t_ns;
	st->U = hpcc_ewma(st->U, u, tau, p->t_ns);
	hpcc_sample_seen(st);
	return st->U;
}

/*
 * Departure (window validation, after RFC 7661): W may grow past Wc only
 * while the flow delivered at least grow_pct per cent of Wc / T, so that
 * a flow held back by something else does not read the spare capacity
 * as room for itself (Documentation/tcp_hpcc.rst).
 */
static inline int hpcc_may_grow(const struct hpcc_state *st,
				const struct hpcc_params *p)
{
	return !p->grow_pct ||
	       (__u64)p->w_used * 100 >= (__u64)st->wc * p->grow_pct;
}

/*
 * Departure (loss): below the W it had before its last loss (p->w_loss),
 * W rises by at most W_ai per update, whatever U says (hpcc_loss()).
 */
static inline __u64 hpcc_loss_cap(const struct hpcc_state *st,
				  const struct hpcc_params *p, __u64 w)
{
	if (st->wc < p->w_loss && w > (__u64)st->wc + p->w_ai)
		return (__u64)st->wc + p->w_ai;
	return w;
}

/*
 * ComputeWind (lines 11-20).  The multiplicative step W = Wc / (U / eta)
 * + W_ai when U >= eta or incStage >= maxStage, else the additive
 * W = Wc + W_ai; Wc and incStage change only when @update_wc.  A flow
 * that may not grow (hpcc_may_grow()) keeps W at most Wc, and its
 * additive stage does not advance.
 */
static inline __u32 hpcc_compute_wind(struct hpcc_state *st,
				      const struct hpcc_params *p,
				      int update_wc)
{
	int grow = hpcc_may_grow(st, p);
	__u64 w;

	if (st->U >= p->eta || st->inc_stage >= p->max_stage) {
		__u32 u = st->U ? st->U : 1;

		w = div_u64((__u64)st->wc * p->eta, u) + p->w_ai;
		w = hpcc_loss_cap(st, p, w);
		st->held = !grow && w > st->wc;
		if (st->held)
			w = st->wc;
		st->W = hpcc_clamp_w(p, w);
		/* held at maxStage with U < eta: no multiplicative step */
		st->mi = grow || st->U >= p->eta;
		if (update_wc) {
			if (st->mi)
				st->inc_stage = 0;
			st->wc = st->W;
		}
	} else {
		st->held = !grow;
		w = grow ? (__u64)st->wc + p->w_ai : st->wc;
		st->W = hpcc_clamp_w(p, w);
		st->mi = 0;
		if (update_wc) {
			if (grow)
				st->inc_stage++;
			st->wc = st->W;
		}
	}
	st->committed = !!update_wc;
	return st->W;
}

/*
 * Departure (loss): a loss episode, once per episode, halves W and Wc
 * as the draft's decrease for U = 2 eta would, with incStage back to 0;
 * the next commit waits for an ACK past @snd_nxt.  A loss is a queue
 * that U did not show, so the caller passes the W returned, the W before
 * the loss, as p->w_loss, below which W grows by W_ai per update only
 * (hpcc_loss_cap(); Documentation/tcp_hpcc.rst).
 */
static inline __u32 hpcc_loss(struct hpcc_state *st,
			      const struct hpcc_params *p, __u32 snd_nxt)
{
	__u32 w = st->W;

	st->W = hpcc_clamp_w(p, w >> 1);
	st->wc = st->W;
	st->inc_stage = 0;
	st->last_update_seq = snd_nxt;
	st->passed = 0;
	st->committed = 0;
	st->mi = 0;
	st->held = 0;
	return w;
}

/*
 * NewAck (lines 21-26) after MeasureInflight: Wc is committed when the
 * ACK passes lastUpdateSeq, which then becomes snd_nxt, so at most once
 * per round trip.  Sequence numbers compare modulo 2^32.
 *
 * Departure: once an ACK has passed lastUpdateSeq the commit also waits
 * for p->commit_samples new samples and p->commit_wait_us (@now_us, a
 * clock in microseconds, differences modulo 2^32): a CSIG port reports
 * a rate window closed before the packet, so only later samples describe
 * the new Wc (Documentation/tcp_hpcc.rst).
 */
static inline __u32 hpcc_new_ack(struct hpcc_state *st,
				 const struct hpcc_params *p, __u32 ack_seq,
				 __u32 snd_nxt, __u32 now_us)
{
	int commit;

	if (!st->passed && (__s32)(ack_seq - st->last_update_seq) > 0) {
		st->passed = 1;
		st->fresh = 0;
		st->pass_us = now_us;
	}
	commit = st->passed && st->fresh >= p->commit_samples &&
		 now_us - st->pass_us >= p->commit_wait_us;
	hpcc_compute_wind(st, p, commit);
	if (commit) {
		st->last_update_seq = snd_nxt;
		st->passed = 0;
	}
	return st->W;
}

/* Line 27: R = W / T, bytes per second. */
static inline __u64 hpcc_rate(__u32 w, __u64 t_ns)
{
	if (!t_ns)
		return ~0ULL;
	return div64_u64((__u64)w * HPCC_NSEC_PER_SEC, t_ns);
}

/* The rule of thumb of section 5: W_ai = W_init * (1 - eta) / N. */
static inline __u32 hpcc_default_w_ai(__u32 w_init, __u32 eta, __u32 n)
{
	__u64 w;

	if (!n)
		n = 1;
	if (eta >= HPCC_FRAC_ONE)
		return 1;
	w = div_u64((__u64)w_init * (HPCC_FRAC_ONE - eta) >> HPCC_FRAC_SHIFT, n);
	return w ? (__u32)w : 1;
}

/*
 * Per-socket state as tcp_hpcc reports it: the get_info() answer to
 * INET_DIAG (attribute HPCC_DIAG_ATTR, asked for with INET_DIAG_INFO or
 * INET_DIAG_VEGASINFO in idiag_ext) and to getsockopt(TCP_CC_INFO).  20
 * bytes, the size of the kernel's union tcp_cc_info.  HPCC_DIAG_ATTR is
 * above every INET_DIAG_* the kernel defines, so ss ignores it;
 * tools/ccstat reads it.
 */
#define HPCC_DIAG_ATTR		0x3c01

enum {
	HPCC_DIAG_SRC_FALLBACK	= 0,	/* no telemetry: Reno */
	HPCC_DIAG_SRC_U		= 1,	/* the CSIG U signal */
	HPCC_DIAG_SRC_STD	= 2,	/* PD and ABW/C */
};

#define HPCC_DIAG_F_NEGOTIATED	0x1	/* the connection negotiated CSIG */
#define HPCC_DIAG_F_SAMPLED	0x2	/* a sample has been recorded */
#define HPCC_DIAG_F_MI		0x4	/* last update: multiplicative branch */
#define HPCC_DIAG_F_HELD	0x8	/* last update: W kept at Wc (grow_pct) */

struct hpcc_diag_info {
	__u32	u;		/* U, HPCC_FRAC units */
	__u32	w;		/* W, bytes */
	__u32	wc;		/* Wc, bytes */
	__u32	t_us;		/* T in use, us */
	__u8	inc_stage;
	__u8	source;		/* HPCC_DIAG_SRC_* */
	__u8	flags;		/* HPCC_DIAG_F_* */
	__u8	pad;
};

#endif /* _HPCC_H */
