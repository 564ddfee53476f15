/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LDCP (draft-dai-tsvwg-pfc-free-congestion-control-01, section 2): the
 * sender's algorithm, in C that compiles in the kernel and in userspace
 * (selftests/unit/test_ldcp.c).  No allocation, no floating point, no
 * kernel or libc dependency.
 *
 * Units: cw, alpha, beta, gamma and the initial window in packets with
 * LDCP_FRAC_SHIFT (16) fractional bits; cw is at most LDCP_CW_MAX.
 *
 * The draft's sections map onto these functions:
 *   2.2, eq. (1) and (2), PAWA      ldcp_pawa() for cw >= 1
 *   2.2, cw below one packet        ldcp_pawa() for cw < 1,
 *                                   ldcp_gap_ns() (one packet per RTT/cw)
 *   2.3 and 3.1, zero-RTT           ldcp_fs_ect(), ldcp_fs_ack(),
 *     bandwidth acquisition         ldcp_fs_loss()
 * Departures (Documentation/tcp_ldcp.rst): an ECE that takes cw from at
 * least one packet to below it gives max(gamma, cw - n * beta), so the
 * two regimes join; in the regime below one packet an ACK for n packets
 * adds n * gamma and an ECE halves cw once; with ldcp_params.inc set, an
 * unmarked ACK below one packet adds inc (alpha) instead of gamma, so
 * that the two regimes have one equilibrium; a fast-start loss before
 * any packet was acknowledged leaves one packet, not none.
 */
#ifndef _LDCP_H
#define _LDCP_H

#include <linux/types.h>

#include "div64.h"

#define LDCP_FRAC_SHIFT		16
#define LDCP_ONE		0x10000U	/* one packet */
#define LDCP_CW_MAX		(0xffffU << LDCP_FRAC_SHIFT)	/* 65535 */

struct ldcp_params {
	__u32	alpha;		/* increase per window of ACKs, (0, 1] */
	__u32	beta;		/* decrease per ECE-marked packet, (0, 1] */
	__u32	gamma;		/* below one packet: step and floor */
	__u32	iw;		/* initial window, the BDP, >= 1 */
	__u32	inc;		/* below one packet: increase per unmarked
				 * ACK; 0: gamma (the draft); alpha makes
				 * the two regimes meet at one packet
				 */
};

enum ldcp_phase {
	LDCP_FAST_START	= 0,	/* the first RTT's window is out (2.3) */
	LDCP_STABLE	= 1,	/* PAWA (2.2) */
};

struct ldcp_state {
	__u32	cw;		/* congestion window */
	__u8	phase;		/* enum ldcp_phase */
	__u8	exit;		/* how fast start ended: LDCP_EXIT_* */
};

enum {
	LDCP_EXIT_NONE	= 0,
	LDCP_EXIT_IW	= 1,	/* the whole initial window acknowledged */
	LDCP_EXIT_LOSS	= 2,	/* a loss in fast start */
};

/*
 * A socket's state in the controller (include/ldcp_ctl.h), in every
 * flavour; a flavour may keep more around it.
 */
struct ldcp {
	struct ldcp_state st;
	__u64	pace_rate;	/* the pacing rate last worked out, bytes/s */
	__u32	iw;		/* this flow's IW, LDCP_FRAC packets */
	__u32	isn;		/* snd_una when it started */
	__u32	prior_rcv_nxt;	/* receiver: rcv_nxt at the last CE event */
	__u32	acks;		/* ACKs taken by PAWA */
	__u32	ece_acks;	/* ... with ECE */
	__u32	loss_cw;	/* cw before the last loss, for undo */
	__u32	pace_key;	/* pace_rate's inputs: cw below one packet, */
	__u32	pace_srtt;	/* or cwnd << 16; srtt, us; the MSS (none */
	__u32	pace_mss;	/* is 0: nothing cached) */
	__u8	ece;		/* the ACK being processed had ECE */
	__u8	ce_state;	/* receiver: the last segment had CE */
	__u8	in_loss;	/* in a loss episode (its response taken) */
};

static inline __u32 ldcp_clamp(__u64 cw, __u32 floor)
{
	if (cw < floor)
		return floor;
	if (cw > LDCP_CW_MAX)
		return LDCP_CW_MAX;
	return (__u32)cw;
}

/* A flow starts in fast start with cw = IW (2.3). */
static inline void ldcp_state_init(struct ldcp_state *st,
				   const struct ldcp_params *p)
{
	st->cw = ldcp_clamp(p->iw, LDCP_ONE);
	st->phase = LDCP_FAST_START;
	st->exit = LDCP_EXIT_NONE;
}

/*
 * PAWA (2.2) for an ACK of @n packets, @ece its ECN-Echo.  At least one
 * packet: eq. (2), cw + n * alpha / cw without ECE, cw - n * beta with
 * it (eq. (1) is n = 1).  Below one packet: cw + n * gamma without ECE
 * (n * inc when inc is set), max(gamma, cw / 2) with it (eta = 1/2).
 * Returns the new cw.
 */
static inline __u32 ldcp_pawa(struct ldcp_state *st,
			      const struct ldcp_params *p, __u32 n, int ece)
{
	__u64 cw = st->cw, d;
	__u32 g = p->gamma ? p->gamma : 1;

	if (!n)
		return st->cw;
	if (cw >= LDCP_ONE) {
		if (!ece) {
			/*
			 * n * alpha / cw, in LDCP_ONE units: below 2^64
			 * while alpha is at most one packet (2^16)
			 */
			cw += div_u64((__u64)n * p->alpha << LDCP_FRAC_SHIFT, st->cw);
		} else {
			d = (__u64)n * p->beta;
			cw = cw > d ? cw - d : 0;
			if (cw < LDCP_ONE && cw < g)
				cw = g;
		}
	} else if (!ece) {
		cw += (__u64)n * (p->inc ? p->inc : g);
	} else {
		cw >>= 1;
		if (cw < g)
			cw = g;
	}
	st->cw = ldcp_clamp(cw, g < LDCP_ONE ? g : LDCP_ONE);
	return st->cw;
}

/*
 * The parameters in LDCP_FRAC units from tcp_ldcp's module parameters,
 * alpha and beta in 1/1000 packet, gamma 1/@gamma_div packet (0 taken
 * as 1), inc alpha when @below_one_inc; iw 0, the socket's to set.
 * The flavours work them out when a parameter is written or a socket
 * starts (include/ldcp_ctl.h), not per ACK.
 */
static inline void ldcp_params_derive(struct ldcp_params *p, __u32 alpha_milli,
				      __u32 beta_milli, __u32 gamma_div,
				      __u32 below_one_inc)
{
	p->alpha = div_u64((__u64)alpha_milli << LDCP_FRAC_SHIFT, 1000);
	p->beta = div_u64((__u64)beta_milli << LDCP_FRAC_SHIFT, 1000);
	p->gamma = LDCP_ONE / (gamma_div ? gamma_div : 1);
	p->iw = 0;
	p->inc = below_one_inc ? p->alpha : 0;
}

/*
 * Fast start's ECN codepoint (2.3, 3.1) for the packet with 0-based
 * index @i in the flow, @last when it is the last one the sender has to
 * send: the first IW packets are not ECN-capable, so that a WRED queue
 * over K drops them rather than marking, except the IW-th and a last
 * packet before it, which are ECN-capable so that a tail loss shows
 * without a timeout; every later packet is ECN-capable.  Returns 1 for
 * ECT.
 */
static inline int ldcp_fs_ect(const struct ldcp_params *p, __u64 i, int last)
{
	__u64 iw = p->iw >> LDCP_FRAC_SHIFT;

	if (!iw)
		iw = 1;
	return i + 1 >= iw || last;
}

/*
 * Fast start's end when the whole initial window is acknowledged (3.1,
 * condition 2): @acked packets acknowledged in order since the start.
 * cw becomes the BDP.  Returns 1 when fast start ended now.
 */
static inline int ldcp_fs_ack(struct ldcp_state *st,
			      const struct ldcp_params *p, __u64 acked)
{
	/* acked << 16 < iw, without shifting a 64-bit count out */
	if (st->phase != LDCP_FAST_START ||
	    acked < ((__u64)p->iw + LDCP_ONE - 1) >> LDCP_FRAC_SHIFT)
		return 0;
	st->cw = ldcp_clamp(p->iw, LDCP_ONE);
	st->phase = LDCP_STABLE;
	st->exit = LDCP_EXIT_IW;
	return 1;
}

/*
 * Fast start's end on a loss (3.1, condition 1): cw becomes the number
 * of packets acknowledged in order before it, @acked (at least one).
 * Returns 1 when fast start ended now.
 */
static inline int ldcp_fs_loss(struct ldcp_state *st, __u64 acked)
{
	if (st->phase != LDCP_FAST_START)
		return 0;
	st->cw = ldcp_clamp(acked > 0xffffU ? LDCP_CW_MAX :
			    acked << LDCP_FRAC_SHIFT, LDCP_ONE);
	st->phase = LDCP_STABLE;
	st->exit = LDCP_EXIT_LOSS;
	return 1;
}

/*
 * Below one packet the flow sends one packet every RTT / cw (2.2): the
 * gap in ns for @rtt_ns; rtt_ns when cw is at least one packet.
 */
static inline __u64 ldcp_gap_ns(__u32 cw, __u64 rtt_ns)
{
	if (cw >= LDCP_ONE || !cw)
		return rtt_ns;
	if (rtt_ns > (~0ULL >> LDCP_FRAC_SHIFT))
		return ~0ULL;
	return div_u64(rtt_ns << LDCP_FRAC_SHIFT, cw);
}

/*
 * The initial window (2.3): the BDP of @bw_mbps (Mbit/s) and @rtt_us
 * (us) in packets of @mss bytes, LDCP_FRAC units, within [one packet,
 * LDCP_CW_MAX]: bits / (8 mss) << 16 = bits * 8192 / mss.  bw * RTT is
 * the BDP in bits and fits 64 bits for any 32-bit values; it is divided
 * by the MSS before it is scaled, so that nothing exceeds 64 bits, and
 * the divisor is the MSS itself, not a product that a 32-bit divisor
 * would truncate.  Exact (the quotient's and the remainder's parts).
 */
#define LDCP_IW_SHIFT	(LDCP_FRAC_SHIFT - 3)	/* 1 / 8 bits per byte */

static inline __u32 ldcp_iw_bdp(__u32 bw_mbps, __u32 rtt_us, __u32 mss)
{
	__u64 q;
	__u32 r;

	if (!mss)
		mss = 1;
	q = div_u64_rem((__u64)bw_mbps * rtt_us, mss, &r);
	if (q > (LDCP_CW_MAX >> LDCP_IW_SHIFT))
		return LDCP_CW_MAX;
	return ldcp_clamp((q << LDCP_IW_SHIFT) +
			  div_u64((__u64)r << LDCP_IW_SHIFT, mss), LDCP_ONE);
}

/*
 * Per-socket state for INET_DIAG and TCP_CC_INFO (tcp_ldcp's get_info):
 * the attribute's type, and its payload.
 */
#define LDCP_DIAG_ATTR		0x3c02

#define LDCP_DIAG_F_CE		0x1	/* receiver: the last segment had CE */

struct ldcp_diag_info {
	__u32	cw;		/* packets, LDCP_FRAC units */
	__u32	iw;		/* initial window, packets, LDCP_FRAC units */
	__u32	acks;		/* ACKs taken by PAWA */
	__u32	ece_acks;	/* ... of them with ECE */
	__u8	phase;		/* enum ldcp_phase */
	__u8	exit;		/* LDCP_EXIT_* */
	__u8	flags;		/* LDCP_DIAG_F_* */
	__u8	pad;
};

/*
 * The counters of every flavour (include/ldcp_ctl.h): tcp_ldcp's
 * /proc/net/tcp_ldcp, per namespace, and ldcp_bpf's (include/dcc_bpf.h),
 * with these names in this order.
 */
enum {
	LDCP_C_FLOWS,		/* flows started */
	LDCP_C_FLOWS_NO_ECN,	/* ... without ECN negotiated */
	LDCP_C_FLOWS_FAST_START, /* ... in fast start */
	LDCP_C_FS_IW,		/* fast start ended: the whole IW acknowledged */
	LDCP_C_FS_LOSS,		/* fast start ended: a loss */
	LDCP_C_ACKS,		/* ACKs taken by PAWA */
	LDCP_C_ECE_ACKS,	/* ... with ECE */
	LDCP_C_BELOW_ONE,	/* ... with cw below one packet */
	LDCP_C_LOSSES,		/* loss episodes in the stable stage */
	LDCP_C_CE_CHANGES,	/* receiver: changes of the CE state echoed */
	LDCP_C_FS_NOT_ECT,	/* fast-start packets sent not-ECN-capable */
	LDCP_C_ACKS_NOW,	/* receiver: data segments ACKed at once */
	LDCP_C_UNDOS,		/* loss episodes found spurious */
	LDCP_C_IW_REMEMBERED,	/* flows whose IW the ssthresh the kernel
				 * remembers for the destination lowered
				 */
	LDCP_C_NR,
};

#define LDCP_COUNTER_NAMES {						\
	"flows", "flows_no_ecn", "flows_fast_start", "fs_iw", "fs_loss",	\
	"acks", "ece_acks", "below_one", "losses", "ce_changes",	\
	"fs_not_ect", "acks_now", "undos", "iw_remembered",		\
}

#endif /* _LDCP_H */
