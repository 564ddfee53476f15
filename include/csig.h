/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CSIG wire formats and constants: the one header that owns them.
 *
 * CSIG (Congestion Signaling, draft-ravi-ippm-csig-00) carries a summary of
 * the path's bottleneck in a fixed-size L2 tag, the last tag of the L2
 * header, updated hop by hop with compare-and-replace (draft section 4).
 * This header is included by the kernel modules, the BPF programs, the
 * userspace tools and the tests, so it depends on nothing but
 * <linux/types.h> and compiler builtins, and it has no byte-order helpers
 * of its own context: every function here works on host-order integers,
 * and csig_be16()/csig_be32() convert to and from the wire.
 *
 * Compact tag, 4 bytes (draft 4.1.1):
 *
 *	 0                   1                   2                   3
 *	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *	|              TPID             |  T  |R|    S    |     LM      |
 *	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Expanded tag, 8 bytes (draft 4.1.2):
 *
 *	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *	|              TPID             |              LM               |
 *	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *	|   T   |                   S                   |       R       |
 *	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Either tag sits between the MAC addresses (and any VLAN tags) and the
 * EtherType of the payload, as a VLAN tag does.
 */
#ifndef _CSIG_H
#define _CSIG_H

#include <linux/types.h>

/*
 * TPIDs.  The draft asks IEEE for two TPIDs, one per format, and none has
 * been allocated.  The defaults are IEEE 802's Local Experimental
 * EtherTypes 1 and 2 (IEEE Std 802, clause 9.2.2), reserved for exactly
 * this: protocol experiments inside one administrative domain.  Nothing in
 * the path mistakes them for VLAN tags.  The draft's software-assisted mode
 * (section 6.4) instead reuses a switch's configurable VLAN TPID; the
 * widely deployed ones are 0x9100, 0x9200 and 0x9300 (pre-802.1ad QinQ),
 * which a domain can configure here when its hardware parses them.  0x8100
 * and 0x88a8 must not be used: every device treats them as VLAN tags.
 */
#define CSIG_TPID_COMPACT	0x88b5	/* IEEE Local Experimental EtherType 1 */
#define CSIG_TPID_EXPANDED	0x88b6	/* IEEE Local Experimental EtherType 2 */

#define CSIG_COMPACT_LEN	4	/* TPID + 16 bits of data */
#define CSIG_EXPANDED_LEN	8	/* TPID + 48 bits of data */

enum csig_format {
	CSIG_FMT_COMPACT	= 0,
	CSIG_FMT_EXPANDED	= 1,
};

/*
 * Signal types (draft 4.1.3.1 and section 5).  Compact tags carry 3 bits
 * (types 0-7), expanded tags 4 bits (0-15).  The draft defines 0-2 and
 * leaves the rest for future signals.
 *
 * CSIG_T_U is this project's experimental type: HPCC++'s normalised
 * inflight U = qlen / (C * T) + txRate / C of a port, aggregated with max()
 * so that a tag carries the path maximum, which is MeasureInflight's u
 * (draft-miao-iccrg-hpccplus-01 figure 2).  It takes codepoint 7, the last
 * one both formats can carry, as far as possible from the codepoints a
 * future revision would allocate next (3, 4, ...).
 */
enum csig_type {
	CSIG_T_ABW	= 0,	/* min(ABW): available bandwidth, kbit/s */
	CSIG_T_ABWC	= 1,	/* min(ABW/C): CSIG_FRAC units */
	CSIG_T_PD	= 2,	/* max(PD): per-hop delay, ns */
	CSIG_T_U	= 7,	/* max(U): normalised inflight, CSIG_FRAC units */
};

#define CSIG_NTYPES_COMPACT	8
#define CSIG_NTYPES_EXPANDED	16

/*
 * Canonical units of a signal's value, before quantisation.  Every value
 * fits in 32 bits: ABW in kbit/s up to 4.29 Tbit/s, delay in ns up to
 * 4.29 s, fractions (ABW/C, U) with 20 fractional bits up to 4096.
 */
#define CSIG_FRAC_SHIFT		20
#define CSIG_FRAC_ONE		0x100000U	/* 1 << CSIG_FRAC_SHIFT */

/* Field widths and masks (host order). */
#define CSIG_COMPACT_T_SHIFT	13
#define CSIG_COMPACT_T_MASK	0x7
#define CSIG_COMPACT_R_SHIFT	12
#define CSIG_COMPACT_S_SHIFT	7
#define CSIG_COMPACT_S_MASK	0x1f
#define CSIG_COMPACT_LM_MASK	0x7f
#define CSIG_COMPACT_NBUCKETS	32

#define CSIG_EXPANDED_T_SHIFT	28
#define CSIG_EXPANDED_T_MASK	0xf
#define CSIG_EXPANDED_S_SHIFT	8
#define CSIG_EXPANDED_S_MASK	0xfffff
#define CSIG_EXPANDED_R_MASK	0xff
#define CSIG_EXPANDED_LM_MASK	0xffff

static inline __u16 csig_be16(__u16 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(x);
#else
	return x;
#endif
}

static inline __u32 csig_be32(__u32 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(x);
#else
	return x;
#endif
}

/*
 * The tags on the wire, TPID first, network byte order.  Only 16-bit
 * members, so that the layout needs no packing and a tag may start at any
 * even offset of a frame (it follows 12 bytes of MAC addresses).
 */
struct csig_compact_tag {
	__be16	tpid;
	__be16	data;		/* T:3 R:1 S:5 LM:7 */
};

struct csig_expanded_tag {
	__be16	tpid;
	__be16	lm;
	__be16	tsr_hi;		/* T:4 S:12 (high bits of S) */
	__be16	tsr_lo;		/* S:8 (low bits of S) R:8 */
};

/* The expanded tag's T/S/R word, host order. */
static inline __u32 csig_expanded_tsr(const struct csig_expanded_tag *t)
{
	return ((__u32)csig_be16(t->tsr_hi) << 16) | csig_be16(t->tsr_lo);
}

/*
 * A tag's data fields, decoded: all 48 bits of the expanded format and all
 * 16 of the compact one, so a receiver can hand every field to its
 * transport (draft 4.4.3).
 */
struct csig_fields {
	__u8	format;		/* enum csig_format */
	__u8	type;		/* enum csig_type */
	__u8	rsvd;		/* R: 1 bit compact, 8 bits expanded */
	__u8	pad;
	__u16	lm;		/* locator metadata: 7 or 16 bits */
	__u16	pad2;
	__u32	s;		/* quantised signal: 5 or 20 bits */
};

/* Compact data word (host order) <-> fields. */
static inline void csig_compact_unpack(__u16 data, struct csig_fields *f)
{
	f->format = CSIG_FMT_COMPACT;
	f->type = (data >> CSIG_COMPACT_T_SHIFT) & CSIG_COMPACT_T_MASK;
	f->rsvd = (data >> CSIG_COMPACT_R_SHIFT) & 1;
	f->s = (data >> CSIG_COMPACT_S_SHIFT) & CSIG_COMPACT_S_MASK;
	f->lm = data & CSIG_COMPACT_LM_MASK;
	f->pad = 0;
	f->pad2 = 0;
}

static inline __u16 csig_compact_pack(const struct csig_fields *f)
{
	return ((f->type & CSIG_COMPACT_T_MASK) << CSIG_COMPACT_T_SHIFT) |
	       ((f->rsvd & 1) << CSIG_COMPACT_R_SHIFT) |
	       ((f->s & CSIG_COMPACT_S_MASK) << CSIG_COMPACT_S_SHIFT) |
	       (f->lm & CSIG_COMPACT_LM_MASK);
}

/* Expanded LM and T/S/R words (host order) <-> fields. */
static inline void csig_expanded_unpack(__u16 lm, __u32 tsr,
					struct csig_fields *f)
{
	f->format = CSIG_FMT_EXPANDED;
	f->type = (tsr >> CSIG_EXPANDED_T_SHIFT) & CSIG_EXPANDED_T_MASK;
	f->s = (tsr >> CSIG_EXPANDED_S_SHIFT) & CSIG_EXPANDED_S_MASK;
	f->rsvd = tsr & CSIG_EXPANDED_R_MASK;
	f->lm = lm;
	f->pad = 0;
	f->pad2 = 0;
}

static inline __u32 csig_expanded_pack_tsr(const struct csig_fields *f)
{
	return ((__u32)(f->type & CSIG_EXPANDED_T_MASK) << CSIG_EXPANDED_T_SHIFT) |
	       ((f->s & CSIG_EXPANDED_S_MASK) << CSIG_EXPANDED_S_SHIFT) |
	       (f->rsvd & CSIG_EXPANDED_R_MASK);
}

/*
 * A tag as a receiving host's packet handler meets it: @data is what
 * follows the TPID (@len bytes of it), @fmt the format the TPID named.
 * Fills @f and *@inner (the EtherType the tag carries, host order) and
 * returns the bytes to take out after the TPID (2 or 6 of tag, 2 of
 * EtherType), or -1 for a frame to drop: truncated, a tag behind the tag
 * (@tpid_c, @tpid_e), or a length where the EtherType belongs.
 */
static inline int csig_tag_rx(const __u8 *data, unsigned int len, __u32 fmt,
			      __u16 tpid_c, __u16 tpid_e, struct csig_fields *f,
			      __u16 *inner)
{
	unsigned int tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN :
						      CSIG_EXPANDED_LEN;
	__u16 in;

	if (len < tlen)
		return -1;
	in = (data[tlen - 2] << 8) | data[tlen - 1];
	if (in == tpid_c || in == tpid_e || in < 0x0600)	/* 802.3 length */
		return -1;
	if (fmt == CSIG_FMT_COMPACT)
		csig_compact_unpack((data[0] << 8) | data[1], f);
	else
		csig_expanded_unpack((data[0] << 8) | data[1],
				     ((__u32)data[2] << 24) | ((__u32)data[3] << 16) |
				     ((__u32)data[4] << 8) | data[5], f);
	*inner = in;
	return tlen;
}

/*
 * Aggregation (draft 4.1.3.2): min() for the bandwidth signals, max() for
 * delay and U.  A sender initialises S with the identity of the type's
 * aggregation: the largest encodable value for min(), zero for max().
 * Unknown types (3-6, 8-15) have no aggregation here: a port passes them
 * untouched.
 */
static inline int csig_type_known(__u32 type)
{
	return type == CSIG_T_ABW || type == CSIG_T_ABWC ||
	       type == CSIG_T_PD || type == CSIG_T_U;
}

static inline int csig_type_is_min(__u32 type)
{
	return type == CSIG_T_ABW || type == CSIG_T_ABWC;
}

static inline __u32 csig_s_max(__u32 format)
{
	return format == CSIG_FMT_COMPACT ? CSIG_COMPACT_S_MASK :
					    CSIG_EXPANDED_S_MASK;
}

static inline __u32 csig_s_identity(__u32 format, __u32 type)
{
	return csig_type_is_min(type) ? csig_s_max(format) : 0;
}

/*
 * Compare-and-replace (draft 5.3.3, 5.4.2.3): does a hop whose own
 * quantised value is @local replace the tag's @s?  Only when strictly
 * worse than what the tag carries, so that on a tie the first bottleneck
 * keeps its locator (a hop that does not update S must not touch LM).
 */
static inline int csig_should_replace(__u32 type, __u32 s, __u32 local)
{
	return csig_type_is_min(type) ? local < s : local > s;
}

/*
 * Quantisation.
 *
 * Compact (draft 4.1.3.2, 5.3.3): 32 configurable buckets per type, each a
 * [low, high) range of the canonical value.  They are stored as the 31
 * upper bounds of buckets 0..30, strictly increasing; bucket 31 is open
 * above.  A value encodes to the first bucket whose bound exceeds it.
 *
 * Expanded (draft 4.1.3.2): uniform quanta, one per type, in canonical
 * units; S = value / quantum, saturated at 2^20 - 1.
 */
#define CSIG_COMPACT_NBOUNDS	(CSIG_COMPACT_NBUCKETS - 1)

struct csig_quant {
	__u32	bound[CSIG_NTYPES_COMPACT][CSIG_COMPACT_NBOUNDS];
	__u32	quantum[CSIG_NTYPES_COMPACT];
};

/* Branch-free-friendly binary search: five steps, bounded for BPF. */
static inline __u32 csig_compact_encode(const __u32 *bound, __u32 v)
{
	__u32 lo = 0, step;

	/* find the number of bounds <= v, i.e. the bucket index */
	for (step = 16; step; step >>= 1) {
		__u32 i = lo + step;

		if (i <= CSIG_COMPACT_NBOUNDS && bound[i - 1] <= v)
			lo = i;
	}
	return lo;
}

/*
 * @v, with what clang knows of it forgotten in BPF programs: a mask or a
 * test on the result stays in the program, where the verifier needs it
 * (those of 6.1 and 6.12 lose a bound that clang tested on a copy, or
 * that a test of != 0 implies).  Elsewhere just @v.
 */
static inline __u32 csig_bpf_opaque(__u32 v)
{
#ifdef __bpf__
	asm volatile("" : "+r"(v));
#endif
	return v;
}

/* The lowest value of bucket @s. */
static inline __u32 csig_compact_lo(const __u32 *bound, __u32 s)
{
	s &= CSIG_COMPACT_S_MASK;
	if (!s)
		return 0;
	/* s - 1 is below CSIG_COMPACT_NBOUNDS: the mask is for BPF */
	return bound[csig_bpf_opaque(s - 1) & CSIG_COMPACT_S_MASK];
}

/* The highest value of bucket @s (inclusive); ~0U for the open bucket. */
static inline __u32 csig_compact_hi(const __u32 *bound, __u32 s)
{
	s &= CSIG_COMPACT_S_MASK;
	return s < CSIG_COMPACT_NBOUNDS ? bound[s] - 1 : ~0U;
}

static inline __u32 csig_expanded_encode(__u32 quantum, __u32 v)
{
	__u32 s;

	if (!quantum)
		return CSIG_EXPANDED_S_MASK;
	s = v / quantum;
	return s > CSIG_EXPANDED_S_MASK ? CSIG_EXPANDED_S_MASK : s;
}

/* The lowest value of quantum @s; saturates at ~0U. */
static inline __u32 csig_expanded_lo(__u32 quantum, __u32 s)
{
	__u64 v = (__u64)(s & CSIG_EXPANDED_S_MASK) * quantum;

	return v > 0xffffffffULL ? ~0U : (__u32)v;
}

/* The highest value of quantum @s (inclusive); ~0U when that saturates. */
static inline __u32 csig_expanded_hi(__u32 quantum, __u32 s)
{
	__u32 next;

	s &= CSIG_EXPANDED_S_MASK;
	if (s == CSIG_EXPANDED_S_MASK)
		return ~0U;
	next = csig_expanded_lo(quantum, s + 1);
	return next == ~0U ? ~0U : next - 1;
}

/* Encode @v of @type in @format under @q. */
static inline __u32 csig_encode(const struct csig_quant *q, __u32 format,
				__u32 type, __u32 v)
{
	type &= CSIG_NTYPES_COMPACT - 1;
	if (format == CSIG_FMT_COMPACT)
		return csig_compact_encode(q->bound[type], v);
	return csig_expanded_encode(q->quantum[type], v);
}

/*
 * The conservative reading of a quantised value: the low edge of its
 * bucket for the bandwidth signals (never promise bandwidth that may not
 * be there), the high edge for delay and U (never hide congestion).
 */
static inline __u32 csig_decode(const struct csig_quant *q, __u32 format,
				__u32 type, __u32 s)
{
	__u32 t = type & (CSIG_NTYPES_COMPACT - 1);

	if (format == CSIG_FMT_COMPACT)
		return csig_type_is_min(type) ? csig_compact_lo(q->bound[t], s) :
						csig_compact_hi(q->bound[t], s);
	if (csig_type_is_min(type))
		return csig_expanded_lo(q->quantum[t], s);
	return csig_expanded_hi(q->quantum[t], s);
}

/*
 * A quantisation is usable when, for every known type, the compact bounds
 * increase strictly from a non-zero first bound (the search relies on it)
 * and the expanded quantum is not zero.  Callers encode and decode known
 * types only: the tables have no entry for types 8-15.
 */
static inline int csig_quant_valid(const struct csig_quant *q)
{
	__u32 t, i;

	for (t = 0; t < CSIG_NTYPES_COMPACT; t++) {
		if (!csig_type_known(t))
			continue;
		if (!q->quantum[t])
			return 0;
		for (i = 1; i < CSIG_COMPACT_NBOUNDS; i++)
			if (q->bound[t][i] <= q->bound[t][i - 1])
				return 0;
		if (!q->bound[t][0])
			return 0;
	}
	return 1;
}

/*
 * Default quantisation.
 *
 * Compact: the draft's Appendix A example, which gives 8 buckets, refined
 * to the format's 32 by splitting each of its ranges into 4 equal parts,
 * so that every boundary of the example is a boundary here.  Its open top
 * ranges (>90 Gbit/s, >2000 us) are split at 2.5 Gbit/s and 500 us steps.
 * The example is sized for 100G datacenter links; sub-Gbit/s software
 * links want their own table (Documentation/csig.rst).
 *
 * U has no example in the draft: 32 buckets with 0.02 resolution around
 * HPCC++'s target eta = 0.95 (0.8 to 1.2), coarser elsewhere.
 *
 * Expanded: the draft's example quanta, 8 Mbit/s for ABW and 128 ns for
 * PD; 2^-20 for ABW/C (the whole [0, 1] range in 20 bits) and 2^-16 for U
 * (up to 16).
 */
#define CSIG_K(x)	((__u32)(x))
#define CSIG_G(x)	((__u32)((x) * 1000000ULL))		/* Gbit/s -> kbit/s */
#define CSIG_US(x)	((__u32)((x) * 1000ULL))		/* us -> ns */
#define CSIG_PCT(x)	((__u32)((x) * (__u64)CSIG_FRAC_ONE / 10000))	/* 0.01% */
#define CSIG_U(x)	((__u32)((x) * (__u64)CSIG_FRAC_ONE / 1000))	/* 0.001 */

#define CSIG_DEFAULT_QUANT_INIT {					\
	.bound = {							\
	[CSIG_T_ABW] = {						\
		CSIG_K(250000), CSIG_K(500000), CSIG_K(750000),		\
		CSIG_G(1), CSIG_G(2), CSIG_G(3), CSIG_G(4),		\
		CSIG_G(5), CSIG_K(6250000), CSIG_K(7500000),		\
		CSIG_K(8750000), CSIG_G(10), CSIG_K(12500000),		\
		CSIG_G(15), CSIG_K(17500000), CSIG_G(20),		\
		CSIG_K(27500000), CSIG_G(35), CSIG_K(42500000),		\
		CSIG_G(50), CSIG_K(56250000), CSIG_K(62500000),		\
		CSIG_K(68750000), CSIG_G(75), CSIG_K(78750000),		\
		CSIG_K(82500000), CSIG_K(86250000), CSIG_G(90),		\
		CSIG_K(92500000), CSIG_G(95), CSIG_K(97500000) },	\
	[CSIG_T_ABWC] = {						\
		CSIG_PCT(25), CSIG_PCT(50), CSIG_PCT(75), CSIG_PCT(100), \
		CSIG_PCT(200), CSIG_PCT(300), CSIG_PCT(400),		\
		CSIG_PCT(500), CSIG_PCT(625), CSIG_PCT(750),		\
		CSIG_PCT(875), CSIG_PCT(1000), CSIG_PCT(1250),		\
		CSIG_PCT(1500), CSIG_PCT(1750), CSIG_PCT(2000),		\
		CSIG_PCT(2750), CSIG_PCT(3500), CSIG_PCT(4250),		\
		CSIG_PCT(5000), CSIG_PCT(5625), CSIG_PCT(6250),		\
		CSIG_PCT(6875), CSIG_PCT(7500), CSIG_PCT(7875),		\
		CSIG_PCT(8250), CSIG_PCT(8625), CSIG_PCT(9000),		\
		CSIG_PCT(9250), CSIG_PCT(9500), CSIG_PCT(9750) },	\
	[CSIG_T_PD] = {							\
		CSIG_K(2500), CSIG_K(5000), CSIG_K(7500), CSIG_US(10),	\
		CSIG_US(20), CSIG_US(30), CSIG_US(40), CSIG_US(50),	\
		CSIG_K(62500), CSIG_US(75), CSIG_K(87500), CSIG_US(100), \
		CSIG_US(125), CSIG_US(150), CSIG_US(175), CSIG_US(200),	\
		CSIG_US(250), CSIG_US(300), CSIG_US(350), CSIG_US(400),	\
		CSIG_US(500), CSIG_US(600), CSIG_US(700), CSIG_US(800),	\
		CSIG_US(1100), CSIG_US(1400), CSIG_US(1700),		\
		CSIG_US(2000), CSIG_US(2500), CSIG_US(3000),		\
		CSIG_US(3500) },					\
	[CSIG_T_U] = {							\
		CSIG_U(100), CSIG_U(200), CSIG_U(300), CSIG_U(400),	\
		CSIG_U(500), CSIG_U(600), CSIG_U(700), CSIG_U(800),	\
		CSIG_U(820), CSIG_U(840), CSIG_U(860), CSIG_U(880),	\
		CSIG_U(900), CSIG_U(920), CSIG_U(940), CSIG_U(960),	\
		CSIG_U(980), CSIG_U(1000), CSIG_U(1020), CSIG_U(1040),	\
		CSIG_U(1060), CSIG_U(1080), CSIG_U(1100), CSIG_U(1120),	\
		CSIG_U(1140), CSIG_U(1160), CSIG_U(1180), CSIG_U(1200),	\
		CSIG_U(1500), CSIG_U(2000), CSIG_U(4000) },		\
	},								\
	.quantum = {							\
		[CSIG_T_ABW] = 8000,		/* 8 Mbit/s */		\
		[CSIG_T_ABWC] = 1,		/* 2^-20 */		\
		[CSIG_T_PD] = 128,		/* 128 ns */		\
		[3] = 1, [4] = 1, [5] = 1, [6] = 1,			\
		[CSIG_T_U] = 1 << (CSIG_FRAC_SHIFT - 16), /* 2^-16 */	\
	},								\
}

#endif /* _CSIG_H */
