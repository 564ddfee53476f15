/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCTCP's sender-side work per ACK, transcribed for userspace from Linux
 * 6.1 (Debian's linux-source-6.1): net/ipv4/tcp_dctcp.c (struct dctcp,
 * dctcp_init() for an ECN flow, dctcp_update_alpha() - its in_ack_event -
 * dctcp_ssthresh(), dctcp_state(), dctcp_cwnd_event() for CA_EVENT_LOSS)
 * and net/ipv4/tcp_cong.c (tcp_reno_cong_avoid() - its cong_avoid - with
 * tcp_slow_start() and tcp_cong_avoid_ai()), with include/net/tcp.h's
 * helpers they use.  The code is the kernel's, statement for statement;
 * only struct tcp_sock is reduced to the fields it reads and writes.
 * The functions the kernel calls through tcp_congestion_ops, or exports,
 * are not inlined here either, so that tools/ackcost.c can count each.
 * The receiver's side (dctcp_ece_ack_update()) is not here: it is not
 * the sender's cost per ACK.
 */
#ifndef _ACKCOST_DCTCP_H
#define _ACKCOST_DCTCP_H

#include <stdbool.h>

#include <linux/types.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;

/*
 * called through tcp_congestion_ops or exported: not inlined, nor cloned
 * for its callers' constants (noipa implies noinline)
 */
#define ACKCOST_NOINLINE	__attribute__((__noipa__))
/* WRITE_ONCE(): one store, which the compiler may not split or drop */
#define ACKCOST_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* include/net/tcp.h: what of a tcp_sock the functions below touch */
struct tcp_sock {
	u32	snd_cwnd, snd_ssthresh, snd_cwnd_clamp, snd_cwnd_cnt;
	u32	snd_una, snd_nxt, rcv_nxt, delivered, delivered_ce;
	u32	max_packets_out;
	u8	is_cwnd_limited:1;
	u8	ca_state;		/* inet_csk(sk)->icsk_ca_state */
	u64	icsk_ca_priv[13];	/* inet_csk_ca(sk) */
};

#define DCTCP_MAX_ALPHA	1024U

struct dctcp {
	u32 old_delivered;
	u32 old_delivered_ce;
	u32 prior_rcv_nxt;
	u32 dctcp_alpha;
	u32 next_seq;
	u32 ce_state;
	u32 loss_cwnd;
};

/* module parameters: read from memory on each use, as the module's */
static unsigned int dctcp_shift_g = 4; /* g = 1/2^4 */
static unsigned int dctcp_alpha_on_init = DCTCP_MAX_ALPHA;
static unsigned int dctcp_warned;

static inline struct dctcp *inet_csk_ca(struct tcp_sock *tp)
{
	return (struct dctcp *)tp->icsk_ca_priv;
}

static inline bool before(u32 seq1, u32 seq2)
{
	return (s32)(seq1 - seq2) < 0;
}

static inline u32 dctcp_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 dctcp_max(u32 a, u32 b)
{
	return a > b ? a : b;
}

/* min_not_zero() */
static inline u32 dctcp_min_not_zero(u32 x, u32 y)
{
	return x == 0 ? y : (y == 0 ? x : dctcp_min(x, y));
}

/* WARN_ON_ONCE()'s slow path */
static ACKCOST_NOINLINE void dctcp_warn(void)
{
	dctcp_warned = 1;
}

static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	if (__builtin_expect((int)val <= 0, 0) && !dctcp_warned)
		dctcp_warn();
	tp->snd_cwnd = val;
}

static inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tcp_snd_cwnd(tp) < tp->snd_ssthresh;
}

static inline bool tcp_is_cwnd_limited(const struct tcp_sock *tp)
{
	if (tp->is_cwnd_limited)
		return true;

	/* If in slow start, ensure cwnd grows to twice what was ACKed. */
	if (tcp_in_slow_start(tp))
		return tcp_snd_cwnd(tp) < 2 * tp->max_packets_out;

	return false;
}

/* net/ipv4/tcp_cong.c */
static ACKCOST_NOINLINE u32 tcp_slow_start(struct tcp_sock *tp, u32 acked)
{
	u32 cwnd = dctcp_min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);

	acked -= cwnd - tcp_snd_cwnd(tp);
	tcp_snd_cwnd_set(tp, dctcp_min(cwnd, tp->snd_cwnd_clamp));

	return acked;
}

static ACKCOST_NOINLINE void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w,
					       u32 acked)
{
	/* If credits accumulated at a higher w, apply them gently now. */
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
	}

	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
	}
	tcp_snd_cwnd_set(tp, dctcp_min(tcp_snd_cwnd(tp), tp->snd_cwnd_clamp));
}

static ACKCOST_NOINLINE void tcp_reno_cong_avoid(struct tcp_sock *tp, u32 ack,
						 u32 acked)
{
	(void)ack;
	if (!tcp_is_cwnd_limited(tp))
		return;

	/* In "safe" area, increase. */
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* In dangerous area, increase slowly. */
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

/* net/ipv4/tcp_dctcp.c */
static void dctcp_reset(const struct tcp_sock *tp, struct dctcp *ca)
{
	ca->next_seq = tp->snd_nxt;

	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

/* an ECN flow's: the fallback to Reno is not taken */
static ACKCOST_NOINLINE void dctcp_init(struct tcp_sock *tp)
{
	struct dctcp *ca = inet_csk_ca(tp);

	ca->prior_rcv_nxt = tp->rcv_nxt;

	ca->dctcp_alpha = dctcp_min(dctcp_alpha_on_init, DCTCP_MAX_ALPHA);

	ca->loss_cwnd = 0;
	ca->ce_state = 0;

	dctcp_reset(tp, ca);
}

static ACKCOST_NOINLINE u32 dctcp_ssthresh(struct tcp_sock *tp)
{
	struct dctcp *ca = inet_csk_ca(tp);

	ca->loss_cwnd = tcp_snd_cwnd(tp);
	return dctcp_max(tcp_snd_cwnd(tp) -
			 ((tcp_snd_cwnd(tp) * ca->dctcp_alpha) >> 11U), 2U);
}

static ACKCOST_NOINLINE void dctcp_update_alpha(struct tcp_sock *tp, u32 flags)
{
	struct dctcp *ca = inet_csk_ca(tp);

	(void)flags;
	/* Expired RTT */
	if (!before(tp->snd_una, ca->next_seq)) {
		u32 delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
		u32 alpha = ca->dctcp_alpha;

		/* alpha = (1 - g) * alpha + g * F */

		alpha -= dctcp_min_not_zero(alpha, alpha >> dctcp_shift_g);
		if (delivered_ce) {
			u32 delivered = tp->delivered - ca->old_delivered;

			/* If dctcp_shift_g == 1, a 32bit value would overflow
			 * after 8 M packets.
			 */
			delivered_ce <<= (10 - dctcp_shift_g);
			delivered_ce /= dctcp_max(1U, delivered);

			alpha = dctcp_min(alpha + delivered_ce, DCTCP_MAX_ALPHA);
		}
		/* dctcp_alpha can be read from dctcp_get_info() without
		 * synchro, so we ask compiler to not use dctcp_alpha
		 * as a temporary variable in prior operations.
		 */
		ACKCOST_WRITE_ONCE(ca->dctcp_alpha, alpha);
		dctcp_reset(tp, ca);
	}
}

static void dctcp_react_to_loss(struct tcp_sock *tp)
{
	struct dctcp *ca = inet_csk_ca(tp);

	ca->loss_cwnd = tcp_snd_cwnd(tp);
	tp->snd_ssthresh = dctcp_max(tcp_snd_cwnd(tp) >> 1U, 2U);
}

/* TCP_CA_Recovery, CA_EVENT_LOSS: include/net/tcp.h's numbers */
#define ACKCOST_CA_RECOVERY	3
#define ACKCOST_CA_EVENT_LOSS	3

static ACKCOST_NOINLINE void dctcp_state(struct tcp_sock *tp, u8 new_state)
{
	if (new_state == ACKCOST_CA_RECOVERY &&
	    new_state != tp->ca_state)
		dctcp_react_to_loss(tp);
}

/* the sender's events: CE's (the receiver's) are not transcribed */
static ACKCOST_NOINLINE void dctcp_cwnd_event(struct tcp_sock *tp, int ev)
{
	if (ev == ACKCOST_CA_EVENT_LOSS)
		dctcp_react_to_loss(tp);
}

#endif /* _ACKCOST_DCTCP_H */
