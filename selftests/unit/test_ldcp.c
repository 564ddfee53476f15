// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/ldcp.h, LDCP's sender algorithm, against cases
 * worked out by hand from draft-dai-tsvwg-pfc-free-congestion-control-01
 * section 2 (the numbers in the comments are the draft's formulas
 * evaluated on paper, then truncated to 2^-16 of a packet).
 */
#include "ldcp.h"
#include "tap.h"

#define PK(x)	((__u32)((x) * LDCP_ONE))

static const struct ldcp_params P = {
	.alpha = LDCP_ONE,		/* 1 */
	.beta = LDCP_ONE / 2,		/* 1/2 */
	.gamma = LDCP_ONE / 8,		/* 1/8 */
	.iw = 10 * LDCP_ONE,		/* a BDP of 10 packets */
};

/*
 * ldcp_iw_bdp()'s reference: bw * rtt * 8192 / mss exactly, then clamped
 * to [LDCP_ONE, LDCP_CW_MAX]; in 128-bit arithmetic where the compiler
 * has it, else (32-bit targets) by long division of the 96-bit product
 * in 32-bit digits.
 */
#ifdef __SIZEOF_INT128__
#define REF_IW_HOW	"from 128-bit arithmetic"
#else
#define REF_IW_HOW	"from long division in 32-bit digits"
#endif

static __u32 ref_iw(__u32 bw, __u32 rtt, __u32 mss)
{
#ifdef __SIZEOF_INT128__
	__uint128_t v = (__uint128_t)bw * rtt * 8192 / mss;
#else
	__u64 p = (__u64)bw * rtt, v = 0, r = 0, cur;
	/* p * 8192 (2^13), most significant digit first */
	__u32 d[3] = { p >> 51, p >> 19, p << 13 };
	int i;

	for (i = 0; i < 3; i++) {
		cur = r << 32 | d[i];
		if (i == 0 && cur / mss)
			return LDCP_CW_MAX;	/* 2^64 or more */
		v = v << 32 | cur / mss;
		r = cur % mss;
	}
#endif
	return v < LDCP_ONE ? LDCP_ONE : v > LDCP_CW_MAX ? LDCP_CW_MAX : v;
}

static struct ldcp_state at(__u32 cw)
{
	struct ldcp_state st = { .cw = cw, .phase = LDCP_STABLE };

	return st;
}

int main(void)
{
	struct ldcp_state st;
	int i, ok;

	tap_plan(46);

	/* eq. (1): per-packet ACKs, cw >= 1 */
	st = at(PK(10));
	/* 10 + 1/10: 655360 + 4294967296 / 655360 = 655360 + 6553 */
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 0), 661913, "eq. (1), no ECE: cw = 10 + alpha/cw = 10.1");
	st = at(PK(10));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), PK(9.5), "eq. (1), ECE: cw = 10 - beta = 9.5");
	st = at(PK(10));
	for (i = 0; i < 10; i++)
		ldcp_pawa(&st, &P, 1, 0);
	/* 10 ACKs of a window of 10: 1/10 + 1/10.1 + ... = 0.95865 */
	tap_ok(st.cw > PK(10.958) && st.cw < PK(10.959),
	       "a window of ACKs without ECE adds about alpha: 10.9586 (cw %.5f)",
	       (double)st.cw / LDCP_ONE);

	/* eq. (2): an ACK of n packets (delayed ACK) */
	st = at(PK(10));
	/* 655360 + 2 * 4294967296 / 655360 = 655360 + 13107 */
	tap_eq_u64(ldcp_pawa(&st, &P, 2, 0), 668467,
		   "eq. (2), n = 2, no ECE: cw = 10 + 2 alpha/cw = 10.2");
	st = at(PK(10));
	tap_eq_u64(ldcp_pawa(&st, &P, 3, 1), PK(8.5),
		   "eq. (2), n = 3, ECE: cw = 10 - 3 beta = 8.5");
	st = at(PK(10));
	tap_eq_u64(ldcp_pawa(&st, &P, 0, 1), PK(10), "an ACK of no packet changes nothing");

	/* from one packet or more to below one */
	st = at(78643);		/* 1.2 */
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), 78643 - 32768,
		   "ECE at cw = 1.2: 1.2 - 1/2 = 0.7, below one packet");
	st = at(PK(1));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), PK(0.5), "ECE at cw = 1: 0.5");
	{
		struct ldcp_params q = P;

		q.beta = LDCP_ONE;
		st = at(PK(1.0625));
		tap_eq_u64(ldcp_pawa(&st, &q, 1, 1), PK(0.125),
			   "ECE at cw = 1.0625 with beta = 1: 0.0625, raised to gamma = 1/8");
		st = at(PK(4));
		tap_eq_u64(ldcp_pawa(&st, &q, 8, 1), PK(0.125),
			   "an ECE for 8 packets at cw = 4: gamma, never 0");
	}

	/* below one packet: cw + gamma, max(gamma, cw / 2) */
	st = at(PK(0.5));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 0), PK(0.625), "cw = 0.5, no ECE: cw + gamma = 0.625");
	st = at(PK(0.5));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), PK(0.25), "cw = 0.5, ECE: cw / 2 = 0.25");
	st = at(13107);		/* 0.2 */
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), PK(0.125),
		   "cw = 0.2, ECE: max(gamma, 0.1) = gamma = 0.125");
	st = at(PK(0.125));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 1), PK(0.125), "cw = gamma, ECE: stays at gamma");
	st = at(PK(0.25));
	tap_eq_u64(ldcp_pawa(&st, &P, 2, 0), PK(0.5),
		   "cw = 0.25, an ACK of 2 packets: + 2 gamma = 0.5");
	st = at(PK(0.9375));
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 0), PK(1.0625),
		   "cw = 0.9375, no ECE: 1.0625, one packet again");
	/* then eq. (1): 69632 + 4294967296 / 69632 = 69632 + 61680 */
	tap_eq_u64(ldcp_pawa(&st, &P, 1, 0), 131312,
		   "... and the next ACK takes eq. (1): + 1/1.0625");

	/* below one packet with inc = alpha (below_one_inc=1) */
	{
		struct ldcp_params q = P;

		q.inc = q.alpha;
		st = at(PK(0.25));
		tap_eq_u64(ldcp_pawa(&st, &q, 1, 0), PK(1.25),
			   "inc = alpha = 1: cw = 0.25, no ECE: + alpha = 1.25");
		st = at(PK(0.125));
		tap_eq_u64(ldcp_pawa(&st, &q, 2, 0), PK(2.125),
			   "inc = alpha: an ACK of 2 packets at gamma: + 2 alpha");
		st = at(PK(0.5));
		tap_eq_u64(ldcp_pawa(&st, &q, 1, 1), PK(0.25),
			   "inc = alpha: an ECE still halves cw below one packet");
		q.alpha = PK(0.5);
		q.inc = q.alpha;
		st = at(PK(1));
		tap_eq_u64(ldcp_pawa(&st, &q, 1, 0), PK(1.5),
			   "alpha = 0.5 at cw = 1: eq. (1) adds alpha / cw = 0.5 ...");
		st = at(PK(0.9375));
		tap_eq_u64(ldcp_pawa(&st, &q, 1, 0), PK(1.4375),
			   "... and just below one packet inc adds the same 0.5");
	}

	/* the bound */
	st = at(LDCP_CW_MAX);
	tap_eq_u64(ldcp_pawa(&st, &P, 1000, 0), LDCP_CW_MAX, "cw stays within LDCP_CW_MAX");

	/* zero-RTT bandwidth acquisition: fast start */
	ldcp_state_init(&st, &P);
	tap_ok(st.cw == PK(10) && st.phase == LDCP_FAST_START && st.exit == LDCP_EXIT_NONE,
	       "a flow starts in fast start with cw = IW = the BDP");
	ok = !ldcp_fs_ect(&P, 0, 0) && !ldcp_fs_ect(&P, 8, 0) && ldcp_fs_ect(&P, 9, 0) &&
	     ldcp_fs_ect(&P, 10, 0) && ldcp_fs_ect(&P, 1000, 0);
	tap_ok(ok, "packets 1-9 of an IW of 10 are not ECN-capable, the IW-th and later are");
	tap_ok(!ldcp_fs_ect(&P, 2, 0) && ldcp_fs_ect(&P, 3, 1),
	       "a message of 4 packets: its last is ECN-capable");
	{
		struct ldcp_params q = P;

		q.iw = LDCP_ONE;
		tap_ok(ldcp_fs_ect(&q, 0, 0), "an IW of one packet: it is the IW-th, ECN-capable");
	}
	tap_ok(!ldcp_fs_ack(&st, &P, 9) && st.phase == LDCP_FAST_START && st.cw == PK(10),
	       "9 of 10 packets acknowledged: still fast start");
	/* cw = IW all through fast start; set it apart to see the rule act */
	st.cw = PK(3);
	tap_ok(ldcp_fs_ack(&st, &P, 10) && st.phase == LDCP_STABLE && st.cw == PK(10) &&
	       st.exit == LDCP_EXIT_IW,
	       "the whole IW acknowledged: stable stage, cw = BDP (condition 2)");
	tap_ok(!ldcp_fs_ack(&st, &P, 20) && !ldcp_fs_loss(&st, 3) && st.cw == PK(10),
	       "once stable, neither transition applies again");
	ldcp_state_init(&st, &P);
	tap_ok(ldcp_fs_loss(&st, 4) && st.phase == LDCP_STABLE && st.cw == PK(4) &&
	       st.exit == LDCP_EXIT_LOSS,
	       "a loss in fast start after 4 packets acknowledged: cw = 4 (condition 1)");
	ldcp_state_init(&st, &P);
	tap_ok(ldcp_fs_loss(&st, 0) && st.cw == PK(1),
	       "a loss before any ACK: cw = 1 packet, not 0");
	ldcp_state_init(&st, &P);
	tap_ok(ldcp_fs_loss(&st, 1ULL << 40) && st.cw == LDCP_CW_MAX,
	       "a huge count is bounded by LDCP_CW_MAX");

	/* one packet every RTT / cw below one packet */
	tap_eq_u64(ldcp_gap_ns(PK(0.25), 100000), 400000,
		   "cw = 1/4, RTT 100 us: a packet every 400 us");
	tap_eq_u64(ldcp_gap_ns(PK(0.0625), 1000000), 16000000, "cw = 1/16, RTT 1 ms: every 16 ms");
	tap_ok(ldcp_gap_ns(PK(3), 100000) == 100000 && ldcp_gap_ns(0, 100000) == 100000,
	       "cw >= 1 (or 0): the RTT itself");

	/*
	 * The initial window: bw * RTT / (8 MSS) packets, exact to 2^-16 of
	 * a packet (bits * 8192 / MSS, worked out with 128-bit integers).
	 */
	tap_eq_u64(ldcp_iw_bdp(10000, 100, 1448), 5657458,
		   "IW: 10 Gbit/s * 100 us, MSS 1448: 86.33 packets");
	tap_eq_u64(ldcp_iw_bdp(10000, 100, 8948), 915511,
		   "IW: 10 Gbit/s * 100 us, MSS 8948 (MTU 9000): 13.97 packets");
	tap_eq_u64(ldcp_iw_bdp(10000, 100, 65483), 125101,
		   "IW: 10 Gbit/s * 100 us, MSS 65483 (loopback): 1.91 packets");
	tap_eq_u64(ldcp_iw_bdp(4000000, 100, 8948), 366204738,
		   "IW: 4 Tbit/s * 100 us, MSS 8948: 5587.84 packets");
	tap_eq_u64(ldcp_iw_bdp(4000000, 1000, 65535), 500007629,
		   "IW: 4 Tbit/s * 1 ms, MSS 65535: 7629.51 packets (bytes << 16 past 2^64)");
	tap_eq_u64(ldcp_iw_bdp(4000000, 1000000, 1448), LDCP_CW_MAX,
		   "IW: the largest bw and RTT, MSS 1448: LDCP_CW_MAX");
	tap_eq_u64(ldcp_iw_bdp(4000000, 1000000, 65535), LDCP_CW_MAX,
		   "IW: the largest bw and RTT, MSS 65535: LDCP_CW_MAX");
	tap_eq_u64(ldcp_iw_bdp(1, 1, 65535), LDCP_ONE,
		   "IW: the smallest bw and RTT, MSS 65535: one packet");
	tap_eq_u64(ldcp_iw_bdp(0xffffffffU, 0xffffffffU, 0), LDCP_CW_MAX,
		   "IW: any 32-bit bw and RTT, MSS 0 read as 1: LDCP_CW_MAX");
	{
		static const __u32 bw[] = { 1, 100, 10000, 400000, 4000000 };
		static const __u32 rtt[] = { 1, 100, 1500, 100000, 1000000 };
		unsigned int a, b, bad = 0;
		__u32 mss;

		for (a = 0; a < 5; a++)
			for (b = 0; b < 5; b++)
				for (mss = 1; mss <= 65535; mss++)
					bad += ldcp_iw_bdp(bw[a], rtt[b], mss) !=
					       ref_iw(bw[a], rtt[b], mss);
		tap_ok(!bad, "IW: MSS 1-65535, bw and RTT to their extremes: %u differ %s",
		       bad, REF_IW_HOW);
	}

	return tap_done();
}
