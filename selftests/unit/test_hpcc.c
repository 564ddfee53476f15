// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/hpcc.h, HPCC++'s algorithm, against cases worked
 * out by hand from draft-miao-iccrg-hpccplus-01 section 4.2 (the numbers
 * in the comments are the draft's formulas evaluated on paper).
 */
#include <string.h>
#include "hpcc.h"
#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define FRAC(x)	((__u32)((x) * HPCC_FRAC_ONE))
#define ETA	996147U		/* 0.95 * 2^20, rounded down */

static const struct hpcc_params P = {
	.t_ns = 10000,		/* T = 10 us */
	.eta = ETA,
	.max_stage = 5,
	.w_ai = 1000,
	.w_min = 100,
	.w_max = 10000000,
};

static struct hpcc_state fresh(__u32 wc, __u32 U, __u32 stage)
{
	struct hpcc_state st;

	hpcc_state_init(&st, &P, wc, 0);
	st.U = U;
	st.inc_stage = stage;
	return st;
}

int main(void)
{
	struct hpcc_link prev[2], now[2];
	struct hpcc_state st;
	__u32 u;
	__u64 tau;
	int i;

	tap_plan(75);

	/* ComputeWind, additive branch (lines 16-19) */
	st = fresh(100000, FRAC(0.5), 0);
	tap_eq_u64(hpcc_compute_wind(&st, &P, 1), 101000,
		   "U < eta, incStage < maxStage: W = Wc + W_ai = 101000");
	tap_ok(st.wc == 101000 && st.inc_stage == 1 && st.committed && !st.mi,
	       "... committed: Wc = W, incStage 1");
	st = fresh(100000, FRAC(0.5), 2);
	tap_eq_u64(hpcc_compute_wind(&st, &P, 0), 101000,
		   "not updating Wc: the same W");
	tap_ok(st.wc == 100000 && st.inc_stage == 2 && !st.committed,
	       "... Wc and incStage unchanged");

	/* ComputeWind, multiplicative branch (lines 12-15) */
	st = fresh(100000, 2 * ETA, 3);
	tap_eq_u64(hpcc_compute_wind(&st, &P, 1), 51000,
		   "U = 2 eta: W = Wc / (U / eta) + W_ai = 50000 + 1000");
	tap_ok(st.wc == 51000 && st.inc_stage == 0 && st.mi,
	       "... committed: Wc = W, incStage back to 0");
	st = fresh(100000, ETA, 0);
	tap_eq_u64(hpcc_compute_wind(&st, &P, 0), 101000,
		   "U = eta exactly: multiplicative, W = Wc + W_ai");
	tap_ok(st.wc == 100000 && st.inc_stage == 0 && st.mi,
	       "... not committed: Wc unchanged");

	/* incStage reaching maxStage */
	st = fresh(100000, FRAC(0.5), 0);
	for (i = 0; i < 5; i++)
		hpcc_compute_wind(&st, &P, 1);
	tap_ok(st.wc == 105000 && st.inc_stage == 5 && !st.mi,
	       "five additive commits: Wc 105000, incStage 5");
	/* 105000 * 996147 / 524288 = 199499.96 -> 199499, + 1000 */
	tap_eq_u64(hpcc_compute_wind(&st, &P, 1), 200499,
		   "sixth: incStage = maxStage forces MI even below eta: 200499");
	tap_ok(st.inc_stage == 0 && st.wc == 200499 && st.mi,
	       "... and starts the stages again");

	/* extreme U; the clamps (a documented departure) */
	st = fresh(100000, 0, 5);
	tap_eq_u64(hpcc_compute_wind(&st, &P, 1), P.w_max,
		   "U = 0 in the MI branch: read as the smallest U, W capped at w_max");
	st = fresh(100000, 0xffffffffU, 0);
	/* 100000 * 996147 / 4294967295 = 23.19 -> 23, + 1000 */
	tap_eq_u64(hpcc_compute_wind(&st, &P, 1), 1023,
		   "U = 4096 (the largest): W = 23 + W_ai = 1023");
	st = fresh(100000, 0xffffffffU, 0);
	{
		struct hpcc_params q = P;

		q.w_ai = 10;
		q.w_min = 500;
		tap_eq_u64(hpcc_compute_wind(&st, &q, 1), 500,
			   "... and with a small W_ai, W clamped to w_min");
		tap_eq_u64(st.wc, 500, "... Wc committed clamped too");
	}
	st = fresh(5000000, FRAC(0.5), 0);
	hpcc_state_init(&st, &P, 20000000, 0);
	tap_ok(st.W == P.w_max && st.wc == P.w_max,
	       "an initial window above w_max starts at w_max");

	/* NewAck: commit only past lastUpdateSeq, then lastUpdateSeq = snd_nxt */
	st = fresh(100000, FRAC(0.5), 0);
	st.last_update_seq = 1000;
	hpcc_new_ack(&st, &P, 1000, 5000, 0);
	tap_ok(!st.committed && st.wc == 100000 && st.last_update_seq == 1000,
	       "ACK 1000 = lastUpdateSeq: no commit");
	hpcc_new_ack(&st, &P, 1001, 5000, 0);
	tap_ok(st.committed && st.wc == 101000 && st.last_update_seq == 5000,
	       "ACK 1001 passes it: commit, lastUpdateSeq = snd_nxt 5000");
	hpcc_new_ack(&st, &P, 4000, 9000, 0);
	tap_ok(!st.committed && st.wc == 101000 && st.W == 102000,
	       "ACK 4000 within the round: W moves, Wc does not");
	st.last_update_seq = 0xfffffff0U;
	hpcc_new_ack(&st, &P, 0x10, 0x2000, 0);
	tap_ok(st.committed && st.last_update_seq == 0x2000,
	       "sequence wrap: 0x10 is past 0xfffffff0");

	/* the departure: a commit also waits for commit_samples new samples */
	{
		struct hpcc_params q = P;

		q.commit_samples = 1;
		st = fresh(100000, FRAC(0.5), 0);
		hpcc_measure_u(&st, &q, FRAC(0.5), 1000);
		st.last_update_seq = 1000;
		hpcc_measure_u(&st, &q, FRAC(0.5), 2000);
		hpcc_new_ack(&st, &q, 1001, 5000, 0);
		tap_ok(!st.committed && st.passed && !st.fresh && st.wc == 100000,
		       "commit_samples 1: past lastUpdateSeq, a sample from before: no commit");
		hpcc_new_ack(&st, &q, 2000, 6000, 0);
		tap_ok(!st.committed && st.W == 101000 && st.last_update_seq == 1000,
		       "... nor on the next ACK without a new sample; W still moves");
		hpcc_measure_u(&st, &q, FRAC(0.5), 2000);
		hpcc_new_ack(&st, &q, 2001, 6000, 0);
		tap_ok(!st.committed && !st.fresh,
		       "... a repeated sample (zero interval) is not new");
		hpcc_measure_u(&st, &q, FRAC(0.5), 3000);
		hpcc_new_ack(&st, &q, 3000, 7000, 0);
		tap_ok(st.committed && st.wc == 101000 && st.last_update_seq == 7000 &&
		       !st.passed,
		       "... the first sample after it: commit, lastUpdateSeq = snd_nxt 7000");
		hpcc_measure_u(&st, &q, FRAC(0.5), 4000);
		hpcc_new_ack(&st, &q, 7001, 8000, 0);
		tap_ok(!st.committed && st.passed && !st.fresh,
		       "... a sample on the ACK that passes lastUpdateSeq does not count");
	}

	/* the departure: a commit also waits commit_wait_us after the pass */
	{
		struct hpcc_params q = P;

		q.commit_wait_us = 4000;
		st = fresh(100000, FRAC(0.5), 0);
		st.last_update_seq = 1000;
		hpcc_new_ack(&st, &q, 1001, 5000, 0xfffff000U);
		tap_ok(!st.committed && st.passed && st.pass_us == 0xfffff000U &&
		       st.W == 101000 && st.wc == 100000,
		       "commit_wait_us 4000: the ACK that passes lastUpdateSeq does not commit; W moves");
		hpcc_new_ack(&st, &q, 2000, 6000, 0xfffff000U + 3999);
		tap_ok(!st.committed && st.last_update_seq == 1000,
		       "... 3999 us after it, across the clock's wrap: no commit");
		hpcc_new_ack(&st, &q, 2001, 6000, 0xfffff000U + 4000);
		tap_ok(st.committed && st.wc == 101000 && st.last_update_seq == 6000 &&
		       !st.passed,
		       "... 4000 us after it: commit, lastUpdateSeq = snd_nxt 6000");
		hpcc_new_ack(&st, &q, 6001, 7000, 100000);
		tap_ok(!st.committed && st.passed && st.pass_us == 100000,
		       "... the next pass starts the wait afresh");
	}

	/* MeasureInflight with a path u (CSIG U): tau, the cap, the EWMA */
	st = fresh(100000, 0, 0);
	hpcc_measure_u(&st, &P, FRAC(1.0), 1000);
	tap_ok(st.U == 0 && st.have_sample && st.last_ts == 1000,
	       "the first sample only records");
	hpcc_measure_u(&st, &P, FRAC(1.0), 1000);
	tap_ok(st.U == 0 && st.last_ts == 1000,
	       "a zero interval changes nothing");
	hpcc_measure_u(&st, &P, FRAC(1.0), 3500);
	tap_eq_u64(st.U, FRAC(0.25), "tau = T/4: U = 3/4 * 0 + 1/4 * 1.0 = 0.25");
	hpcc_measure_u(&st, &P, FRAC(0.5), 3500 + 5000);
	/* 0.25 * 1/2 + 0.5 * 1/2 = 0.375 */
	tap_eq_u64(st.U, FRAC(0.375), "tau = T/2: U = 0.375");
	hpcc_measure_u(&st, &P, FRAC(2.0), 8500 + 50000);
	tap_eq_u64(st.U, FRAC(2.0), "tau = 5 T, capped at T: U = u");
	hpcc_measure_u(&st, &P, 0xffffffffU, 58500 + 10000);
	tap_eq_u64(st.U, 0xffffffffU, "extreme u: no overflow in the EWMA");
	{
		struct hpcc_params q = P;

		/*
		 * T = 10 s (a min RTT as T), U = 2048, u = 4096: U * (T - tau)
		 * + u * tau is 3.2e19; (2^31 + 2^32 - 1) / 2 = 3221225471.5
		 */
		q.t_ns = 10000000000ULL;
		st = fresh(100000, 1U << 31, 0);
		st.have_sample = 1;
		st.last_ts = 1000;
		hpcc_measure_u(&st, &q, 0xffffffffU, 1000 + 5000000000ULL);
		tap_eq_u64(st.U, 3221225471U, "T = 10 s, tau = T/2, U 2048, u 4096: U = 3072");
	}

	/* MeasureInflight over links (lines 3-7) */
	memset(prev, 0, sizeof(prev));
	/* B = 1.25e9 B/s (10 Gbit/s), T = 10 us: B * T = 12500 bytes */
	now[0] = (struct hpcc_link){ .ts = 0, .tx_bytes = 0, .bw = 1250000000, .qlen = 5000 };
	now[1] = (struct hpcc_link){ .ts = 0, .tx_bytes = 0, .bw = 1250000000, .qlen = 0 };
	st = fresh(100000, 0, 0);
	hpcc_measure_links(&st, &P, now, prev, 2);
	tap_ok(st.U == 0 && st.have_sample && prev[0].qlen == 5000,
	       "links: the first sample only records L");
	/*
	 * link 0: 12500 B in 10 us = B (1.0); min(2500, 5000) / 12500 = 0.2;
	 * u0 = 1.2, tau 10 us.  link 1: 3125 B in 5 us = 0.5 B; q 0; u1 0.5.
	 */
	tap_ok(!hpcc_link_u(&(struct hpcc_link){ 10000, 12500, 1250000000, 2500 },
			    &prev[0], P.t_ns, &u, &tau) && u == 1258291 && tau == 10000,
	       "link u' = min(q, q') / (B T) + txRate / B = 0.2 + 1.0");
	now[0] = (struct hpcc_link){ 10000, 12500, 1250000000, 2500 };
	now[1] = (struct hpcc_link){ 5000, 3125, 1250000000, 0 };
	hpcc_measure_links(&st, &P, now, prev, 2);
	tap_eq_u64(st.U, 1258291, "the path's largest u' (1.2), tau = T: U = 1.2");
	/*
	 * link 0: 3125 B in 5 us = 0.5, q min(0, 2500) = 0: 0.5.  link 1:
	 * 6250 B in 5 us = 1.0, min(10000, 0) = 0: 1.0, tau 5 us.
	 * U = 1258291 / 2 + 1048576 / 2 = 1153433.5 -> 1153433
	 */
	now[0] = (struct hpcc_link){ 15000, 15625, 1250000000, 0 };
	now[1] = (struct hpcc_link){ 10000, 9375, 1250000000, 10000 };
	hpcc_measure_links(&st, &P, now, prev, 2);
	tap_eq_u64(st.U, 1153433, "max(0.5, 1.0) with tau = T/2: U = 1.153433");
	/* zero interval on one link: skipped; on both: U unchanged */
	now[0].qlen = 0;
	now[1] = (struct hpcc_link){ 12500, 9375 + 3125, 1250000000, 0 };
	hpcc_measure_links(&st, &P, now, prev, 2);
	/*
	 * link 1 alone: 3125 B in 2.5 us = 1.0 over tau = T/4:
	 * 1153433 * 3/4 + 1048576 / 4 = 1127218.75 -> 1127218
	 */
	tap_eq_u64(st.U, 1127218,
		   "a link with a zero interval gives no u; the other decides");
	i = st.U;
	hpcc_measure_links(&st, &P, now, prev, 2);
	tap_eq_u64(st.U, i, "both intervals zero: U unchanged");
	tap_ok(hpcc_link_u(&(struct hpcc_link){ 1, 0, 0, 0 },
			   &(struct hpcc_link){ 0, 0, 0, 0 }, P.t_ns, &u, &tau),
	       "a link with B = 0 gives no u");
	tap_ok(!hpcc_link_u(&(struct hpcc_link){ 1, 0, 1250000000, 100 },
			    &(struct hpcc_link){ 0, 0, 1250000000, 100 }, 0, &u, &tau) &&
	       u == 0xffffffffU, "T = 0 with a queue: u saturates, no division by zero");

	/* R = W / T and the rule of thumb for W_ai */
	tap_eq_u64(hpcc_rate(12500, 10000), 1250000000ULL, "R = W / T: 12500 B / 10 us");
	tap_eq_u64(hpcc_rate(12500, 0), ~0ULL, "R with T = 0: unlimited");
	/* 12500 * (1 - 0.95) = 625, / 16 = 39 */
	tap_eq_u64(hpcc_default_w_ai(12500, ETA, 16), 39,
		   "W_ai = W_init (1 - eta) / N = 12500 * 0.05 / 16 = 39");
	tap_eq_u64(hpcc_default_w_ai(100, ETA, 1000), 1, "... never 0");

	/* Departure: W grows past Wc only while the flow uses Wc */
	{
		struct hpcc_params g = P;

		g.grow_pct = 90;
		g.w_used = 89999;	/* below 90% of Wc = 100000 */
		st = fresh(100000, FRAC(0.5), 2);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 100000,
			   "unused Wc, U < eta: W = Wc, not Wc + W_ai");
		tap_ok(st.wc == 100000 && st.inc_stage == 2 && st.committed &&
		       st.held, "... committed, incStage does not advance, held");
		st = fresh(100000, FRAC(0.5), 5);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 100000,
			   "unused Wc, incStage = maxStage: no multiplicative increase");
		tap_ok(st.inc_stage == 5 && !st.mi && st.held,
		       "... not a multiplicative step; incStage stays at maxStage");
		st = fresh(100000, 2 * ETA, 3);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 51000,
			   "unused Wc, U = 2 eta: the decrease as the draft's, 51000");
		tap_ok(st.inc_stage == 0 && !st.held,
		       "... incStage back to 0, not held");
		st = fresh(100000, ETA, 0);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 0), 100000,
			   "unused Wc, U = eta: W_ai does not lift W past Wc");
		g.w_used = 90000;	/* exactly 90% */
		st = fresh(100000, FRAC(0.5), 2);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 101000,
			   "Wc used at 90%%: W = Wc + W_ai = 101000");
		tap_ok(st.inc_stage == 3 && !st.held, "... incStage 3, not held");
		st = fresh(100000, FRAC(0.5), 5);
		/* 100000 * 0.95 / 0.5 + 1000 = 191000 (ETA rounds down: 190999) */
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 190999,
			   "Wc used, incStage = maxStage: W = Wc / (U / eta) + W_ai");
		g.grow_pct = 0;
		g.w_used = 0;
		st = fresh(100000, FRAC(0.5), 2);
		tap_eq_u64(hpcc_compute_wind(&st, &g, 1), 101000,
			   "grow_pct 0: the draft's rule whatever the flow used");
	}

	/* Departure: a loss halves W and Wc; U regains it by W_ai only */
	{
		struct hpcc_params q = P;

		st = fresh(100000, FRAC(0.5), 3);
		st.W = 101000;
		st.last_update_seq = 1000;
		st.passed = 1;
		q.w_loss = hpcc_loss(&st, &q, 9000);
		tap_ok(q.w_loss == 101000 && st.W == 50500 && st.wc == 50500 &&
		       st.inc_stage == 0 && st.last_update_seq == 9000 && !st.passed,
		       "a loss: W = Wc = W / 2 = 50500, incStage 0, lastUpdateSeq = snd_nxt");
		st.U = 0;
		st.inc_stage = 5;
		tap_eq_u64(hpcc_compute_wind(&st, &q, 1), 51500,
			   "after it, U = 0 at maxStage: W = Wc + W_ai, not w_max");
		st.U = 2 * ETA;
		tap_eq_u64(hpcc_compute_wind(&st, &q, 1), 26750,
			   "... U = 2 eta: the draft's decrease, 25750 + 1000");
		st.U = FRAC(0.5);
		st.inc_stage = 5;
		st.wc = 101000;
		tap_eq_u64(hpcc_compute_wind(&st, &q, 1), 192899,
			   "... once Wc is back at the W before the loss, the draft's step");
		hpcc_state_init(&st, &q, 100000, 0);
		q.w_loss = hpcc_loss(&st, &q, 0);
		q.w_loss = hpcc_loss(&st, &q, 0);
		tap_ok(st.W == 25000 && q.w_loss == 50000,
		       "a second loss before W is back: W / 4, the mark at W / 2");
		st.W = 150;
		hpcc_loss(&st, &q, 0);
		tap_eq_u64(st.W, P.w_min, "a loss at a small W: w_min");
	}

	/*
	 * 64-bit products at the extremes of the parameters' ranges
	 * (tcp_hpcc: line_rate_mbps up to 4000000, T up to 1 s, a min RTT
	 * up to 2^32 - 1 us) and of the telemetry
	 */
	tap_eq_u64(hpcc_line_bytes(10000, 4000000), 5000000,
		   "line rate * T: 10 Gbit/s * 4 ms = 5 MB");
	tap_eq_u64(hpcc_line_bytes(4000000, 1000000000), 500000000000ULL,
		   "line rate * T: 4 Tbit/s * 1 s = 500 GB");
	tap_eq_u64(hpcc_line_bytes(4000000, 4294967295000ULL), 2147483647500000ULL,
		   "line rate * T: 4 Tbit/s * (2^32 - 1) us");
	tap_eq_u64(hpcc_line_bytes(1, 1000), 0, "line rate * T: 1 Mbit/s * 1 us, under a byte");
	tap_eq_u64(hpcc_scale(20000000000000ULL, 1000000, 10000000000ULL), 2000000000,
		   "a window from a rate: 20 TB * 1 s / 10000 s = 2 GB");
	tap_eq_u64(hpcc_scale(~0ULL, ~0ULL, 1), ~0ULL,
		   "... saturates when the result does not fit");
	/* the BPF build's overflow test against the compiler's */
	{
		static const __u64 v[] = {
			0, 1, 2, 3, 0xffffffffULL, 0x100000000ULL,
			0x100000001ULL, 1000000007ULL, 0x8000000000000000ULL,
			0x7fffffffffffffffULL, 0xfffffffffffffffeULL, ~0ULL,
		};
		unsigned int i, j, bad = 0, seed = 1;
		__u64 p1, p2, a, b;

		for (i = 0; i < ARRAY_SIZE(v); i++)
			for (j = 0; j < ARRAY_SIZE(v); j++)
				bad += __builtin_mul_overflow(v[i], v[j], &p1) !=
				       dcc_mul_overflow_div(v[i], v[j], &p2) || p1 != p2;
		tap_ok(!bad, "dcc_mul_overflow_div() at the edges: as the builtin");
		for (i = 0; i < 200000; i++) {
			seed = seed * 1103515245 + 12345;
			a = ((__u64)seed << 32 | (seed >> 7)) >> (seed % 64);
			seed = seed * 1103515245 + 12345;
			b = ((__u64)seed << 32 | (seed >> 9)) >> (seed % 61);
			bad += __builtin_mul_overflow(a, b, &p1) !=
			       dcc_mul_overflow_div(a, b, &p2) || p1 != p2;
		}
		tap_ok(!bad, "dcc_mul_overflow_div() on 200000 products: as the builtin");
	}
	/* 1e11 B in 100 s at B = 1.25e9 B/s: txRate / B = 0.8, no queue */
	now[0] = (struct hpcc_link){ 100000000000ULL, 100000000000ULL, 1250000000, 0 };
	prev[0] = (struct hpcc_link){ 0, 0, 1250000000, 0 };
	tap_ok(!hpcc_link_u(&now[0], &prev[0], 1000000000, &u, &tau) && u == 838860,
	       "link u' over 100 GB between two samples: 0.8");
	/*
	 * B = 5e11 B/s (4 Tbit/s), T = 1 s: 5e11 B in 1 s is 1.0, a queue
	 * of 2.5e9 B is 0.005 of B * T: 1048576 + 5242
	 */
	now[0] = (struct hpcc_link){ 1000000000, 500000000000ULL, 500000000000ULL, 2500000000U };
	prev[0] = (struct hpcc_link){ 0, 0, 500000000000ULL, 2500000000U };
	tap_ok(!hpcc_link_u(&now[0], &prev[0], 1000000000, &u, &tau) && u == 1053818,
	       "link u' at 4 Tbit/s and T = 1 s: 1.005");

	return tap_done();
}
