// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/csig.h: tag field packing in both formats, the
 * compact bucket search at every edge, expanded quantisation and its
 * saturation, aggregation identities and compare-and-replace.
 */
#include <string.h>
#include "csig.h"
#include "tap.h"

static const struct csig_quant dq = CSIG_DEFAULT_QUANT_INIT;

static void test_compact_fields(void)
{
	struct csig_fields f = { 0 }, g;
	unsigned int t, s, lm, r, bad = 0;

	/* every field combination round-trips, and lands where the draft says */
	for (t = 0; t < 8; t++)
		for (r = 0; r < 2; r++)
			for (s = 0; s < 32; s++)
				for (lm = 0; lm < 128; lm++) {
					__u16 w;

					f.type = t;
					f.rsvd = r;
					f.s = s;
					f.lm = lm;
					w = csig_compact_pack(&f);
					csig_compact_unpack(w, &g);
					if (g.type != t || g.rsvd != r || g.s != s ||
					    g.lm != lm || g.format != CSIG_FMT_COMPACT ||
					    w != ((t << 13) | (r << 12) | (s << 7) | lm))
						bad++;
				}
	tap_eq_u64(bad, 0, "compact: all 65536 field combinations round-trip");

	/* the draft's bit numbering: T in bits 16-18 of the tag = top of data */
	f.type = CSIG_T_PD;
	f.rsvd = 0;
	f.s = 0x1f;
	f.lm = 0x55;
	tap_eq_u64(csig_compact_pack(&f), 0x4fd5, "compact: T=2 S=31 LM=0x55 is 0x4fd5");
	/* oversized fields are masked, never spill into neighbours */
	f.type = 0xff;
	f.rsvd = 0xff;
	f.s = 0xffffffff;
	f.lm = 0xffff;
	tap_eq_u64(csig_compact_pack(&f), 0xffff, "compact: oversized fields are masked");
	f.type = 0;
	f.rsvd = 0;
	f.s = 0x20;
	f.lm = 0x80;
	tap_eq_u64(csig_compact_pack(&f), 0, "compact: S and LM overflow bits are dropped");
}

static void test_expanded_fields(void)
{
	struct csig_fields f = { 0 }, g;
	unsigned int bad = 0, i;
	__u32 x = 12345;

	for (i = 0; i < 200000; i++) {
		__u32 tsr;
		__u16 lm;

		x = x * 1103515245 + 12345;
		f.type = x >> 28;
		f.s = (x >> 4) & 0xfffff;
		f.rsvd = x & 0xff;
		f.lm = (x >> 8) & 0xffff;
		tsr = csig_expanded_pack_tsr(&f);
		lm = f.lm;
		csig_expanded_unpack(lm, tsr, &g);
		if (g.type != f.type || g.s != f.s || g.rsvd != f.rsvd ||
		    g.lm != f.lm || g.format != CSIG_FMT_EXPANDED)
			bad++;
	}
	tap_eq_u64(bad, 0, "expanded: 200000 random field sets round-trip");
	f.type = CSIG_T_U;
	f.s = 0xabcde;
	f.rsvd = 0x5a;
	tap_eq_u64(csig_expanded_pack_tsr(&f), 0x7abcde5a,
		   "expanded: T=7 S=0xabcde R=0x5a is 0x7abcde5a");
	f.type = 0x1f;
	f.s = 0x1fffff;
	f.rsvd = 0;
	tap_eq_u64(csig_expanded_pack_tsr(&f), 0xffffff00,
		   "expanded: oversized T and S are masked");
}

static void test_wire(void)
{
	struct csig_expanded_tag e;
	unsigned char b[8] = { 0x88, 0xb6, 0x12, 0x34, 0x7a, 0xbc, 0xde, 0x5a };
	struct csig_fields f;

	tap_eq_u64(sizeof(struct csig_compact_tag), CSIG_COMPACT_LEN, "compact tag is 4 bytes");
	tap_eq_u64(sizeof(struct csig_expanded_tag), CSIG_EXPANDED_LEN, "expanded tag is 8 bytes");
	memcpy(&e, b, sizeof(e));
	csig_expanded_unpack(csig_be16(e.lm), csig_expanded_tsr(&e), &f);
	tap_ok(csig_be16(e.tpid) == CSIG_TPID_EXPANDED && f.lm == 0x1234 &&
	       f.type == 7 && f.s == 0xabcde && f.rsvd == 0x5a,
	       "expanded tag bytes decode as the draft lays them out");
}

static void test_compact_buckets(void)
{
	const __u32 *b = dq.bound[CSIG_T_ABWC];
	unsigned int t, i, bad = 0;

	tap_ok(csig_quant_valid(&dq), "the default quantisation is valid");
	/* every bucket edge, for every known type */
	for (t = 0; t < 8; t++) {
		const __u32 *bt = dq.bound[t];

		if (!csig_type_known(t))
			continue;
		for (i = 0; i < CSIG_COMPACT_NBOUNDS; i++) {
			if (csig_compact_encode(bt, bt[i]) != i + 1 ||
			    csig_compact_encode(bt, bt[i] - 1) != i ||
			    csig_compact_lo(bt, i + 1) != bt[i] ||
			    csig_compact_hi(bt, i) != bt[i] - 1)
				bad++;
		}
	}
	tap_eq_u64(bad, 0, "compact: each bound starts the next bucket (4 types x 31 edges)");
	tap_eq_u64(csig_compact_encode(b, 0), 0, "compact: 0 is bucket 0");
	tap_eq_u64(csig_compact_encode(b, ~0U), 31, "compact: saturates in bucket 31");
	tap_eq_u64(csig_compact_hi(b, 31), ~0U, "compact: bucket 31 is open above");

	/* Appendix A's boundaries survive the refinement: 1%, 5%, 10%, ... */
	tap_eq_u64(csig_compact_encode(b, CSIG_PCT(100)), 4, "ABW/C: 1%% starts bucket 4 (A: 0x1)");
	tap_eq_u64(csig_compact_encode(b, CSIG_PCT(9000)), 28,
		   "ABW/C: 90%% starts bucket 28 (A: 0x7)");
	tap_eq_u64(csig_compact_encode(dq.bound[CSIG_T_PD], CSIG_US(2000)), 28,
		   "PD: 2000 us starts bucket 28 (A: 0x7)");
	tap_eq_u64(csig_compact_encode(dq.bound[CSIG_T_ABW], CSIG_G(50)), 20,
		   "ABW: 50 Gbit/s starts bucket 20 (A: 0x5)");
	tap_eq_u64(csig_compact_encode(dq.bound[CSIG_T_U], CSIG_U(950)), 15,
		   "U: 0.95 is in bucket 15 [0.94, 0.96)");
}

static void test_expanded_quanta(void)
{
	tap_eq_u64(csig_expanded_encode(8000, 199999), 24,
		   "expanded ABW: 199.999 Mbit/s is 24 quanta");
	tap_eq_u64(csig_expanded_lo(8000, 24), 192000, "expanded ABW: 24 quanta read 192 Mbit/s");
	tap_eq_u64(csig_expanded_encode(128, ~0U), 0xfffff, "expanded: saturates at 2^20 - 1");
	tap_eq_u64(csig_expanded_lo(0xffffffff, 0xfffff), ~0U,
		   "expanded: decode saturates at 2^32 - 1");
	tap_eq_u64(csig_expanded_encode(0, 5), 0xfffff,
		   "expanded: a zero quantum encodes as the top");
	/* found by the fuzzer: the top of a quantum that crosses 2^32 */
	tap_eq_u64(csig_expanded_hi(8000, ~0U / 8000), ~0U,
		   "expanded: a quantum whose top crosses 2^32 reads up to 2^32 - 1");
	tap_eq_u64(csig_decode(&dq, CSIG_FMT_EXPANDED, CSIG_T_U, 0xfffff), ~0U,
		   "expanded max(): the top quantum reads as 2^32 - 1");
	tap_eq_u64(csig_encode(&dq, CSIG_FMT_EXPANDED, CSIG_T_ABWC, CSIG_FRAC_ONE - 1),
		   0xfffff, "expanded ABW/C: 1 - 2^-20 is the top quantum");
	/* conservative decode: low edge for min() types, high edge for max() */
	tap_eq_u64(csig_decode(&dq, CSIG_FMT_EXPANDED, CSIG_T_PD, 10), 1407,
		   "expanded PD: 10 quanta read as 1407 ns (high edge)");
	tap_eq_u64(csig_decode(&dq, CSIG_FMT_EXPANDED, CSIG_T_ABW, 10), 80000,
		   "expanded ABW: 10 quanta read as 80 Mbit/s (low edge)");
	tap_eq_u64(csig_decode(&dq, CSIG_FMT_COMPACT, CSIG_T_PD, 4), CSIG_US(20) - 1,
		   "compact PD: bucket 4 reads as 19.999 us (high edge)");
	tap_eq_u64(csig_decode(&dq, CSIG_FMT_COMPACT, CSIG_T_ABWC, 4), CSIG_PCT(100),
		   "compact ABW/C: bucket 4 reads as 1%% (low edge)");
}

static void test_aggregation(void)
{
	tap_eq_u64(csig_s_identity(CSIG_FMT_COMPACT, CSIG_T_ABW), 31,
		   "min(ABW) starts at the top (compact)");
	tap_eq_u64(csig_s_identity(CSIG_FMT_EXPANDED, CSIG_T_ABWC), 0xfffff,
		   "min(ABW/C) starts at the top (expanded)");
	tap_eq_u64(csig_s_identity(CSIG_FMT_COMPACT, CSIG_T_PD), 0, "max(PD) starts at 0");
	tap_eq_u64(csig_s_identity(CSIG_FMT_EXPANDED, CSIG_T_U), 0, "max(U) starts at 0");
	tap_ok(csig_should_replace(CSIG_T_ABW, 10, 9) && !csig_should_replace(CSIG_T_ABW, 10, 10) &&
	       !csig_should_replace(CSIG_T_ABW, 10, 11), "min(): replace only a larger value");
	tap_ok(csig_should_replace(CSIG_T_PD, 10, 11) && !csig_should_replace(CSIG_T_PD, 10, 10) &&
	       !csig_should_replace(CSIG_T_U, 10, 9), "max(): replace only a smaller value");
	tap_ok(!csig_type_known(3) && !csig_type_known(6) && !csig_type_known(8) &&
	       !csig_type_known(15) && csig_type_known(7),
				"types 3-6 and 8-15 are unknown, 7 is U");
}

/* csig_tag_rx(): the receiving host's view of a tag (tcp_csig_opt) */
static void test_tag_rx(void)
{
	/* compact: T 7, R 0, S 21, LM 5; then IPv4 */
	static const __u8 c[] = { 0xea, 0x85, 0x08, 0x00 };
	/* expanded: LM 0x1234, T 7 S 0x54321 R 0xab; then IPv6 */
	static const __u8 e[] = { 0x12, 0x34, 0x75, 0x43, 0x21, 0xab, 0x86, 0xdd };
	struct csig_fields f;
	__u16 in = 0;
	__u8 b[8];

	tap_ok(csig_tag_rx(c, sizeof(c), CSIG_FMT_COMPACT, 0x88b5, 0x88b6, &f, &in) == 4 &&
	       in == 0x0800 && f.type == 7 && f.s == 21 && f.lm == 5 && !f.rsvd,
	       "tag rx: a compact tag, its fields and the IPv4 behind it");
	tap_ok(csig_tag_rx(e, sizeof(e), CSIG_FMT_EXPANDED, 0x88b5, 0x88b6, &f, &in) == 8 &&
	       in == 0x86dd && f.type == 7 && f.s == 0x54321 && f.lm == 0x1234 &&
	       f.rsvd == 0xab, "tag rx: an expanded tag, its fields and the IPv6 behind it");
	tap_ok(csig_tag_rx(c, 3, CSIG_FMT_COMPACT, 0x88b5, 0x88b6, &f, &in) < 0 &&
	       csig_tag_rx(e, 7, CSIG_FMT_EXPANDED, 0x88b5, 0x88b6, &f, &in) < 0,
	       "tag rx: truncated tags are refused");
	memcpy(b, c, 4);
	b[2] = 0x88;
	b[3] = 0xb6;
	tap_ok(csig_tag_rx(b, 4, CSIG_FMT_COMPACT, 0x88b5, 0x88b6, &f, &in) < 0,
	       "tag rx: a tag behind the tag is refused");
	b[2] = 0x05;
	b[3] = 0xff;
	tap_ok(csig_tag_rx(b, 4, CSIG_FMT_COMPACT, 0x88b5, 0x88b6, &f, &in) < 0,
	       "tag rx: an 802.3 length (0x05ff) where the EtherType belongs is refused");
	b[3] = 0x00;
	b[2] = 0x06;
	tap_ok(csig_tag_rx(b, 4, CSIG_FMT_COMPACT, 0x88b5, 0x88b6, &f, &in) == 4 &&
	       in == 0x0600, "tag rx: 0x0600, the first EtherType, is one");
}

int main(void)
{
	test_compact_fields();
	test_expanded_fields();
	test_wire();
	test_compact_buckets();
	test_expanded_quanta();
	test_aggregation();
	test_tag_rx();
	return tap_done();
}
