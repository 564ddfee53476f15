/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CSIG switch-port helper's interface: its configuration, its port
 * model and its counters, shared by the BPF programs
 * (tools/bpf/csig_port.bpf.c), csigctl and the tests.
 *
 * Every attachment of a program (one port, one role) is a separate load of
 * the object with its own configuration (the object's .data section, a
 * struct csig_port_cfg named csig_cfg) and its own model (a one-entry array
 * map csig_state).  Counters are per CPU (csig_stats).  The flow table of
 * the insertion role (csig_flows, socket storage) is pinned by name, so
 * that every port and csigctl see the same flows.
 */
#ifndef _CSIG_PORT_H
#define _CSIG_PORT_H

#include <linux/types.h>
#include "csig.h"

/* csig_port_cfg.flags */
#define CSIG_CFG_LM_IFINDEX	0x01	/* LM is the port's ifindex (default) */
#define CSIG_CFG_STRIP_PASS	0x02	/* strip role: pass a tag it cannot
					 * remove instead of dropping the frame
					 */
#define CSIG_CFG_TRACE		0x04	/* transit: record each decision in
					 * csig_trace
					 */

/* csig_port_cfg.ins_mode: which flows get tags on a sender's egress */
#define CSIG_INS_SK		0x01	/* sockets flagged in csig_flows */
#define CSIG_INS_MARK		0x02	/* (skb->mark & ins_mark_mask) == ins_mark */
#define CSIG_INS_ALL		0x04	/* every TCP data segment (tests) */

#define CSIG_TYPES_KNOWN	((1U << CSIG_T_ABW) | (1U << CSIG_T_ABWC) | \
				 (1U << CSIG_T_PD) | (1U << CSIG_T_U))

/* Defaults of a port loaded with plain iproute2 (Documentation/csig.rst). */
#define CSIG_DEF_CAPACITY_KBPS	10000000ULL	/* 10 Gbit/s */
#define CSIG_DEF_T_NS		100000ULL	/* 100 us */
#define CSIG_DEF_INTERVAL_NS	1000000ULL	/* 1 ms */

/* Limits csigctl and the programs enforce. */
#define CSIG_MIN_CAPACITY_KBPS	1000ULL			/* 1 Mbit/s */
#define CSIG_MAX_CAPACITY_KBPS	1600000000ULL		/* 1.6 Tbit/s */
#define CSIG_MIN_T_NS		1000ULL			/* 1 us */
#define CSIG_MAX_T_NS		1000000000ULL		/* 1 s */
#define CSIG_MIN_INTERVAL_NS	1000ULL
#define CSIG_MAX_INTERVAL_NS	1000000000ULL

struct csig_port_cfg {
	__u64	capacity_kbps;	/* C, kbit/s (the unit of ABW) */
	__u64	byte_ns_q24;	/* 8e6 / C: ns per byte, 24 fractional bits
				 * (csig_port_set_capacity() keeps it)
				 */
	__u64	clock_ns;	/* tests only: a frozen clock when not 0 */
	__u64	t_ns;		/* T of U = q / (C * T) + txRate / C */
	__u64	interval_ns;	/* window of the tx rate (ABW, ABW/C, U) */
	__u32	flags;		/* CSIG_CFG_* */
	__u16	lm;		/* locator written on replace (unless LM_IFINDEX) */
	__u16	tpid[2];	/* by enum csig_format, host order */
	__u8	types;		/* transit: bit per type this port updates */
	__u8	ins_format;	/* insert: enum csig_format */
	__u8	ins_types;	/* insert: types to request, rotated per packet */
	__u8	ins_mode;	/* insert: CSIG_INS_* */
	__u32	ins_mark;
	__u32	ins_mark_mask;
	__u32	ecn_kmin;	/* transit WRED/ECN: bytes; off while */
	__u32	ecn_kmax;	/* ecn_kmax is 0 (csig_port_wred()) */
	__u32	ecn_pmax;	/* probability at ecn_kmax, 2^-16 */
	__u32	ecn_kdrop;	/* not-ECT dropped from here, bytes */
	struct csig_quant quant;
};

#define CSIG_BYTE_NS_Q24(kbps)	((8000000ULL << 24) / (kbps))

#define CSIG_PORT_CFG_INIT {						\
	.capacity_kbps = CSIG_DEF_CAPACITY_KBPS,				\
	.byte_ns_q24 = CSIG_BYTE_NS_Q24(CSIG_DEF_CAPACITY_KBPS),		\
	.t_ns = CSIG_DEF_T_NS,						\
	.interval_ns = CSIG_DEF_INTERVAL_NS,				\
	.flags = CSIG_CFG_LM_IFINDEX,					\
	.tpid = { CSIG_TPID_COMPACT, CSIG_TPID_EXPANDED },		\
	.types = CSIG_TYPES_KNOWN,					\
	.ins_format = CSIG_FMT_COMPACT,					\
	.ins_types = 1U << CSIG_T_U,					\
	.ins_mode = CSIG_INS_SK,					\
	.quant = CSIG_DEFAULT_QUANT_INIT,				\
}

/*
 * A flow's request in csig_flows (socket storage), written by csigctl, a
 * sock_ops program or the host module's negotiation: the types to rotate
 * through (bit per type, 0 = the flow is off) and the format.  next is the
 * rotation cursor, owned by the insertion program.
 */
struct csig_flow {
	__u8	types;
	__u8	format;
	__u8	next;
	__u8	pad;
};

/*
 * Queue histogram, kept in ns of queueing delay (q / C, which needs no
 * division per packet; csigctl shows bytes as well): 8 buckets per power of
 * two, so a bucket is at most 12.5% wide.  Bucket b < 8 holds d = b; above,
 * b = 8 * (log2(d) - 2) + the next three bits of d.
 */
#define CSIG_QHIST_SUB		3
#define CSIG_QHIST_N		256

/* The histogram index of @q, and the lowest q of index @b. */
static inline __u32 csig_qhist_index(__u64 q)
{
	__u32 lg = 0;
	__u64 x = q;

	if (q < (1U << CSIG_QHIST_SUB))
		return (__u32)q;
	if (x >> 32) {
		lg += 32;
		x >>= 32;
	}
	if (x >> 16) {
		lg += 16;
		x >>= 16;
	}
	if (x >> 8) {
		lg += 8;
		x >>= 8;
	}
	if (x >> 4) {
		lg += 4;
		x >>= 4;
	}
	if (x >> 2) {
		lg += 2;
		x >>= 2;
	}
	if (x >> 1)
		lg += 1;
	/* lg >= CSIG_QHIST_SUB; the three bits below the leading one */
	x = (q >> (lg - CSIG_QHIST_SUB)) & ((1U << CSIG_QHIST_SUB) - 1);
	lg = ((lg - CSIG_QHIST_SUB + 1) << CSIG_QHIST_SUB) + (__u32)x;
	return lg < CSIG_QHIST_N ? lg : CSIG_QHIST_N - 1;
}

static inline __u64 csig_qhist_low(__u32 b)
{
	__u32 e, m;

	if (b < (1U << CSIG_QHIST_SUB))
		return b;
	e = (b >> CSIG_QHIST_SUB) - 1 + CSIG_QHIST_SUB;
	m = b & ((1U << CSIG_QHIST_SUB) - 1);
	return ((__u64)((1U << CSIG_QHIST_SUB) + m)) << (e - CSIG_QHIST_SUB);
}

static inline void csig_port_set_capacity(struct csig_port_cfg *c, __u64 kbps)
{
	c->capacity_kbps = kbps;
	c->byte_ns_q24 = kbps ? CSIG_BYTE_NS_Q24(kbps) : 0;
}

/*
 * The port model (one per attachment): a shadow queue fed by every packet
 * that passes the hook and drained at C, q = max(0, q - C * dt) + len, kept
 * as the time it will be empty, t_free = max(t_free, now) + len / C, so
 * that one compare-and-exchange updates it without a lock.  The queue at
 * time t is (t_free - t) * C; the bytes transmitted by then are those that
 * arrived minus those still queued.  The tx rate is measured over windows
 * of interval_ns.  csig_port_signal() derives every signal from it.
 */
struct csig_port_state {
	__u64	t_free;		/* ns, bpf_ktime_get_ns() clock */
	__u64	arrived;	/* bytes */
	__u64	d_last;		/* ns of queue right after the last packet */
	__u64	d_max;		/* ns, its maximum */
	__u64	win_start;	/* ns */
	__u64	win_tx;		/* bytes transmitted at win_start */
	__u64	rate_kbps;	/* tx rate of the last full window */
	__u64	trace_head;	/* records written to csig_trace */
	__u64	d_win;		/* ns of queue ahead of the packet that
				 * closed the last rate window
				 */
	__u64	d_win_prev;	/* ... the one before */
};

/* ns the link needs for @len bytes */
static inline __u64 csig_port_svc_ns(const struct csig_port_cfg *c, __u64 len)
{
	if (len > (1ULL << 24))
		len = 1ULL << 24;
	return (len * c->byte_ns_q24) >> 24;
}

/* bytes the link sends in @d ns */
static inline __u64 csig_port_bytes(const struct csig_port_cfg *c, __u64 d)
{
	if (d < (1ULL << 32))
		return d * c->capacity_kbps / 8000000ULL;
	return (d / 1000) * c->capacity_kbps / 8000ULL;
}

/*
 * The signals of a port whose model holds @q bytes and measured @rate_kbps,
 * in canonical units (include/csig.h): ABW = C - txRate, ABW/C,
 * PD = q / C (the delay of a packet that arrives now: the queue ahead of it
 * plus itself), U = q / (C * T) + txRate / C.  For U the caller passes
 * csig_port_u_queue(), a snapshot per rate window like txRate.  64-bit
 * arithmetic without
 * overflow within the configuration limits (q below 2^40 bytes).
 */
/*
 * The queue term of U: the smaller of the queues ahead of the packets
 * that closed the last two rate windows, an interval apart.  Ahead of:
 * HPCC's qlen is the port's queue, and the packet's own frame is not load
 * (it would add a frame per C * T to U).  The smaller is HPCC++'s noise
 * filter min(qlen, qlen') (draft-miao figure 2, line 5), which a sender
 * cannot apply once the queue and the rate are summed in one signal.  A
 * snapshot per window rather than each packet's own queue: every packet
 * of an interval carries the same U, whatever the burst it came in, so
 * flows sharing the port read the same load (a flow with larger bursts
 * would otherwise read a smaller queue than the others, and grow).
 */
static inline __u64 csig_port_u_queue(const struct csig_port_cfg *c,
				      const struct csig_port_state *m)
{
	__u64 d = m->d_win < m->d_win_prev ? m->d_win : m->d_win_prev;

	return csig_port_bytes(c, d);
}

static inline __u32 csig_sat32(__u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (__u32)v;
}

static inline __u32 csig_port_signal(const struct csig_port_cfg *cfg,
				     __u32 type, __u64 q, __u64 rate_kbps)
{
	__u64 c = cfg->capacity_kbps, avail, bdp;

	if (!c)
		return 0;
	if (q > (1ULL << 40))
		q = 1ULL << 40;
	avail = c > rate_kbps ? c - rate_kbps : 0;
	switch (type) {
	case CSIG_T_ABW:
		return csig_sat32(avail);
	case CSIG_T_ABWC:
		return csig_sat32((avail << CSIG_FRAC_SHIFT) / c);
	case CSIG_T_PD:
		return csig_sat32(q * 8000000ULL / c);
	case CSIG_T_U:
		/* C * T in bytes: kbit/s * ns / 8e6 */
		bdp = c * cfg->t_ns / 8000000ULL;
		if (!bdp)
			bdp = 1;
		return csig_sat32((q << CSIG_FRAC_SHIFT) / bdp +
				  (rate_kbps << CSIG_FRAC_SHIFT) / c);
	}
	return 0;
}

/*
 * WRED with ECN on the model's queue (transit; LDCP's switch profile,
 * draft-dai-tsvwg-pfc-free-congestion-control-01 section 2.1 and 2.3): an
 * ECN-capable packet that finds @q bytes ahead of it is marked CE with
 * probability 0 below K_min, rising linearly to P_max at K_max, and 1
 * from K_max on, on the instantaneous queue as the draft asks, not an
 * average (csig_port_wred(), @rnd 32 uniform random bits); a not-ECT
 * packet is dropped when @q is at least K, the draft's equation (3)
 * (csig_port_drop_not_ect()).  Both off while ecn_kmax is 0.
 */
#define CSIG_ECN_P_ONE		0x10000U	/* ecn_pmax of probability 1 */
#define CSIG_ECN_K_MAX		0x40000000U	/* limit of the thresholds, 2^30 */

static inline int csig_ecn_cfg_valid(__u32 kmin, __u32 kmax, __u32 pmax,
				     __u32 kdrop)
{
	return kmax && kmin <= kmax && kmax <= CSIG_ECN_K_MAX &&
	       pmax && pmax <= CSIG_ECN_P_ONE &&
	       kdrop && kdrop <= CSIG_ECN_K_MAX;
}

static inline int csig_port_wred(const struct csig_port_cfg *c, __u64 q,
				 __u32 rnd)
{
	__u64 p;

	if (!c->ecn_kmax || q < c->ecn_kmin)
		return 0;
	if (q >= c->ecn_kmax)
		return 1;
	/* K_min <= q < K_max */
	p = (__u64)c->ecn_pmax * (q - c->ecn_kmin) /
	    (c->ecn_kmax - c->ecn_kmin);
	return (rnd >> 16) < p;
}

static inline int csig_port_drop_not_ect(const struct csig_port_cfg *c,
					 __u64 q)
{
	return c->ecn_kmax && q >= c->ecn_kdrop;
}

/*
 * The transit role's decision trace (CSIG_CFG_TRACE): the last
 * CSIG_TRACE_N tagged packets, csig_trace[head % CSIG_TRACE_N], head in
 * csig_port_state.trace_head.  seq is the TCP sequence number (0 when the
 * packet is not IPv4 TCP), so that a tag seen downstream can be matched
 * with the decision that wrote it.
 */
#define CSIG_TRACE_N	128

struct csig_trace_rec {
	__u32	seq;
	__u8	type;
	__u8	format;
	__u8	replaced;
	__u8	pad;
	__u32	s_in;		/* S the packet brought */
	__u32	s_local;	/* this port's S */
	__u32	value;		/* this port's signal, canonical units */
};

/* Per-CPU counters, csig_stats[0]; csigctl sums the CPUs. */
enum csig_counter {
	CSIG_C_PKTS,		/* frames seen by the program */
	CSIG_C_TAGGED,		/* frames with a well-formed tag */
	CSIG_C_REPLACED,	/* transit: S and LM rewritten */
	CSIG_C_KEPT,		/* transit: the tag's value was worse already */
	CSIG_C_UNKNOWN_TYPE,	/* tag of a type without aggregation: passed */
	CSIG_C_TYPE_OFF,	/* type this port does not update: passed */
	CSIG_C_TRUNCATED,	/* tag cut short by the frame's end: passed */
	CSIG_C_NESTED,		/* a second CSIG tag after the first: passed */
	CSIG_C_TOO_DEEP,	/* more VLAN tags than the parser reads: passed */
	CSIG_C_STRIPPED,	/* strip: tag removed */
	CSIG_C_STRIP_FAIL,	/* strip: could not remove (dropped, or passed) */
	CSIG_C_INSERTED,	/* insert: tag added */
	CSIG_C_INSERT_FAIL,	/* insert: helper refused; frame sent untagged */
	CSIG_C_INSERT_SKIP,	/* insert: selected flow, not a TCP data segment */
	CSIG_C_TOO_BIG,		/* insert: a full-size frame the tag would push
				 * past what the next device forwards: sent
				 * untagged
				 */
	CSIG_C_ERROR,		/* a helper failed while rewriting: passed */
	CSIG_C_ECN_MARKED,	/* transit WRED: ECT packet set to CE */
	CSIG_C_ECN_DROPPED,	/* transit WRED: not-ECT packet dropped */
	CSIG_C_ECN_CE,		/* transit WRED: to mark, CE already */
	CSIG_C_NR,
};

#define CSIG_COUNTER_NAMES {						\
	"packets", "tagged", "replaced", "kept", "unknown_type",	\
	"type_off", "truncated", "nested", "too_deep", "stripped",	\
	"strip_fail", "inserted", "insert_fail", "insert_skip", "too_big", \
	"error", "ecn_marked", "ecn_dropped", "ecn_ce",			\
}

struct csig_port_stats {
	__u64	c[CSIG_C_NR];
	__u64	qhist[CSIG_QHIST_N];	/* packets by the queue they found,
					 * themselves included
					 */
};

#endif /* _CSIG_PORT_H */
