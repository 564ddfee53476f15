// SPDX-License-Identifier: GPL-2.0
/*
 * CSIG for Linux software switches: tc (clsact) programs for the roles of
 * draft-ravi-ippm-csig-00 section 4.4 and 6.1.
 *
 *   csig/transit  egress of a switch port: models the port's queue and
 *                 does compare-and-replace on passing tags
 *   csig/strip    a port at the domain boundary (egress), or a receiver
 *                 host without the host module (ingress): removes tags
 *   csig/insert   a sender host's egress: tags TCP data segments of the
 *                 flows that asked for CSIG
 *
 * Each works with plain iproute2 and the defaults of csig_cfg:
 *
 *   tc qdisc add dev X clsact
 *   tc filter add dev X egress bpf da obj csig_port.bpf.o sec csig/transit
 *
 * csigctl loads the same object with its own configuration.  Wire formats
 * and the configuration layout: include/csig.h, include/csig_port.h.
 * Design: Documentation/csig.rst; measurements: Documentation/results.rst.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "csig_port.h"
#include "csig_strip.h"

char LICENSE[] SEC("license") = "GPL";

/* This attachment's configuration; csigctl rewrites it before loading. */
struct csig_port_cfg csig_cfg = CSIG_PORT_CFG_INIT;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct csig_port_state);
} csig_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct csig_port_stats);
} csig_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct csig_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} csig_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CSIG_TRACE_N);
	__type(key, __u32);
	__type(value, struct csig_trace_rec);
} csig_trace SEC(".maps");

#define ETH_ALEN_2	12	/* destination and source MAC */
#define VLAN_HLEN	4
#define MAX_VLANS	2	/* VLAN tags read before a CSIG tag */
#define ECN_NOT_ECT	0	/* RFC 3168's ECN field */
#define ECN_CE		3
#define ECN_MASK	3

static __always_inline struct csig_port_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&csig_stats, &zero);
}

static __always_inline void count(struct csig_port_stats *st, int i)
{
	if (st)
		st->c[i]++;
}

static __always_inline __u16 tag_len(__u32 fmt)
{
	return fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN : CSIG_EXPANDED_LEN;
}

enum { TAG_NONE, TAG_FOUND, TAG_BAD };

/*
 * Find the CSIG tag: at offset 12, or after up to MAX_VLANS 802.1Q/802.1ad
 * tags.  A tag must be followed by the payload's EtherType (2 bytes) inside
 * the frame, and by no second CSIG tag.  Bad tags are counted here.  *l3 is
 * the offset of the payload (IPv4, IPv6) behind the tags, 0 for anything
 * else.
 */
static __always_inline int find_tag(struct __sk_buff *skb,
				    struct csig_port_stats *st,
				    __u32 *off, __u32 *fmt, __u32 *l3)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	__u16 tp0 = csig_cfg.tpid[0], tp1 = csig_cfg.tpid[1];
	__u32 o = ETH_ALEN_2, i;
	__be16 *p, et;

#pragma unroll
	for (i = 0; i <= MAX_VLANS; i++) {
		p = data + o;
		if ((void *)(p + 1) > end) {
			/* a short frame, or headers outside the linear part */
			if (skb->len < o + 2)
				return TAG_NONE;
			if (bpf_skb_load_bytes(skb, o, &et, 2))
				return TAG_NONE;
		} else {
			et = *p;
		}
		if (et == bpf_htons(tp0) || et == bpf_htons(tp1)) {
			*fmt = et == bpf_htons(tp0) ? CSIG_FMT_COMPACT :
						     CSIG_FMT_EXPANDED;
			*off = o;
			o += tag_len(*fmt);
			if (skb->len < o + 2) {
				count(st, CSIG_C_TRUNCATED);
				return TAG_BAD;
			}
			if (bpf_skb_load_bytes(skb, o, &et, 2))
				return TAG_BAD;
			if (et == bpf_htons(tp0) || et == bpf_htons(tp1)) {
				count(st, CSIG_C_NESTED);
				return TAG_BAD;
			}
			if (et == bpf_htons(ETH_P_IP) || et == bpf_htons(ETH_P_IPV6))
				*l3 = o + 2;
			return TAG_FOUND;
		}
		if (et != bpf_htons(ETH_P_8021Q) && et != bpf_htons(ETH_P_8021AD)) {
			if (et == bpf_htons(ETH_P_IP) || et == bpf_htons(ETH_P_IPV6))
				*l3 = o + 2;
			return TAG_NONE;
		}
		o += VLAN_HLEN;
	}
	count(st, CSIG_C_TOO_DEEP);
	return TAG_BAD;
}

/*
 * Bytes of L2-L4 header in front of a TCP segment's payload, 0 for
 * anything else: the header a GSO packet repeats per segment.
 */
static __always_inline __u32 tcp_hdr_len(struct __sk_buff *skb, __u32 l3,
					 __be16 proto)
{
	__u8 buf[2];
	__u32 l4;

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, l3, &ip, sizeof(ip)))
			return 0;
		if (ip.protocol != IPPROTO_TCP || ip.ihl < 5)
			return 0;
		l4 = l3 + ip.ihl * 4;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, l3, &ip6, sizeof(ip6)))
			return 0;
		if (ip6.nexthdr != IPPROTO_TCP)
			return 0;
		l4 = l3 + sizeof(ip6);
	} else {
		return 0;
	}
	/* data offset: the high nibble of byte 12 of the TCP header */
	if (bpf_skb_load_bytes(skb, l4 + 12, buf, 1))
		return 0;
	if ((buf[0] >> 4) < 5)
		return 0;
	return l4 + (buf[0] >> 4) * 4;
}

/*
 * The bytes a packet occupies on the link: a GSO packet leaves as
 * gso_segs frames, each with its own copy of the headers (as
 * qdisc_pkt_len_init() counts it).  *first is the bytes of its first
 * frame (all of them for a packet that is not GSO).
 */
static __always_inline __u64 wire_len(struct __sk_buff *skb, int tagged,
				      __u32 off, __u32 fmt, __u64 *first)
{
	__u32 segs = skb->gso_segs, l3, hdr;
	__be16 proto;

	*first = skb->len;
	if (segs <= 1)
		return skb->len;
	l3 = tagged ? off + tag_len(fmt) : ETH_ALEN_2;
	if (bpf_skb_load_bytes(skb, l3, &proto, 2))
		return skb->len;
	hdr = tcp_hdr_len(skb, l3 + 2, proto);
	if (segs > 0xffff)
		segs = 0xffff;
	if (hdr && skb->gso_size && hdr + skb->gso_size < skb->len)
		*first = hdr + skb->gso_size;
	return skb->len + (__u64)(segs - 1) * hdr;
}

/* ns the port needs for @len bytes at C */
static __always_inline __u64 svc_ns(__u64 len)
{
	if (csig_cfg.byte_ns_q24)
		return csig_port_svc_ns(&csig_cfg, len);
	return csig_cfg.capacity_kbps ? len * 8000000ULL / csig_cfg.capacity_kbps : 0;
}

/*
 * The port model (include/csig_port.h): t_free = max(t_free, now) + len / C
 * by compare-and-exchange, so ports on several CPUs need no lock.  Returns
 * the queue this packet found, its first frame included (@first bytes), in
 * ns of delay (*d) and the tx rate.  A GSO packet's later frames queue
 * behind its first: counting them would have every super-packet report
 * its own burst as a queue (64 KB is 2.6 ms at 200 Mbit/s).  The rate
 * window is closed by the first packet past its end, which wins the
 * compare-and-exchange of win_start.
 */
static __always_inline void model_update(struct csig_port_state *m,
					 struct csig_port_stats *st,
					 __u64 now, __u64 len, __u64 first,
					 __u64 *d, __u64 *rate)
{
	__u64 svc, svc1, old = 0, base = 0, new = 0, arrived, ws, w, i;
	__u32 b;

	svc = svc_ns(len);
	svc1 = svc_ns(first);
	for (i = 0; i < 4; i++) {
		old = m->t_free;
		base = old > now ? old : now;
		new = base + svc;
		if (__sync_val_compare_and_swap(&m->t_free, old, new) == old)
			break;
	}
	arrived = __sync_fetch_and_add(&m->arrived, len);
	*d = base - now + svc1;
	m->d_last = *d;
	if (*d > m->d_max)
		m->d_max = *d;
	if (st) {
		/*
		 * csig_qhist_index() is below CSIG_QHIST_N, but clang drops a
		 * check it can prove and 6.1's verifier then loses the bound
		 * of the copy it indexes with: hide the value, then mask.
		 */
		b = csig_qhist_index(*d);
		asm volatile("" : "+r"(b));
		st->qhist[b & (CSIG_QHIST_N - 1)]++;
	}

	ws = m->win_start;
	w = now > ws ? now - ws : 0;
	if (w >= csig_cfg.interval_ns && w &&
	    __sync_val_compare_and_swap(&m->win_start, ws, now) == ws) {
		/* transmitted by now: arrived before this packet, minus queued */
		__u64 q = csig_port_bytes(&csig_cfg, old > now ? old - now : 0);
		__u64 tx = arrived > q ? arrived - q : 0, bytes;

		bytes = tx > m->win_tx ? tx - m->win_tx : 0;
		if (bytes > (1ULL << 40))
			bytes = 1ULL << 40;
		m->rate_kbps = bytes * 8000000ULL / w;
		m->win_tx = tx;
		m->d_win_prev = m->d_win;
		m->d_win = *d - svc1;	/* the queue ahead of it (qlen) */
	}
	*rate = m->rate_kbps;
}

/* Record a decision (CSIG_CFG_TRACE): the packet's TCP sequence number too. */
static __always_inline void trace(struct __sk_buff *skb,
				  struct csig_port_state *m, __u32 off,
				  __u32 fmt, __u32 type, __u32 s, __u32 local,
				  __u32 value, int replaced)
{
	struct csig_trace_rec *r;
	__u32 l3 = off + tag_len(fmt) + 2, idx, seq = 0;
	__u8 vihl;
	__be16 et;
	__be32 sq;

	if (!bpf_skb_load_bytes(skb, l3 - 2, &et, 2) &&
	    et == bpf_htons(ETH_P_IP) &&
	    !bpf_skb_load_bytes(skb, l3, &vihl, 1) &&
	    !bpf_skb_load_bytes(skb, l3 + (vihl & 0xf) * 4 + 4, &sq, 4))
		seq = bpf_ntohl(sq);
	idx = __sync_fetch_and_add(&m->trace_head, 1) % CSIG_TRACE_N;
	r = bpf_map_lookup_elem(&csig_trace, &idx);
	if (!r)
		return;
	r->seq = seq;
	r->type = type;
	r->format = fmt;
	r->replaced = replaced;
	r->s_in = s;
	r->s_local = local;
	r->value = value;
}

/* Compare-and-replace on the tag at @off (draft 4.1.3, 5.3.3, 5.4.2.3). */
static __always_inline void transit_tag(struct __sk_buff *skb,
					struct csig_port_stats *st,
					struct csig_port_state *m,
					__u32 off, __u32 fmt, __u64 q,
					__u64 rate)
{
	__u32 type, s, local, lm, value;
	__be16 w[3];

	if (bpf_skb_load_bytes(skb, off + 2, w, fmt == CSIG_FMT_COMPACT ? 2 : 6))
		return;
	if (fmt == CSIG_FMT_COMPACT) {
		__u16 d = bpf_ntohs(w[0]);

		type = (d >> CSIG_COMPACT_T_SHIFT) & CSIG_COMPACT_T_MASK;
		s = (d >> CSIG_COMPACT_S_SHIFT) & CSIG_COMPACT_S_MASK;
	} else {
		__u32 tsr = ((__u32)bpf_ntohs(w[1]) << 16) | bpf_ntohs(w[2]);

		type = (tsr >> CSIG_EXPANDED_T_SHIFT) & CSIG_EXPANDED_T_MASK;
		s = (tsr >> CSIG_EXPANDED_S_SHIFT) & CSIG_EXPANDED_S_MASK;
	}
	if (!csig_type_known(type)) {
		count(st, CSIG_C_UNKNOWN_TYPE);
		return;
	}
	if (!(csig_cfg.types & (1U << type))) {
		count(st, CSIG_C_TYPE_OFF);
		return;
	}
	if (type == CSIG_T_U)
		q = csig_port_u_queue(&csig_cfg, m);
	value = csig_port_signal(&csig_cfg, type, q, rate);
	local = csig_encode(&csig_cfg.quant, fmt, type, value);
	if (!csig_should_replace(type, s, local)) {
		count(st, CSIG_C_KEPT);
		if (csig_cfg.flags & CSIG_CFG_TRACE)
			trace(skb, m, off, fmt, type, s, local, value, 0);
		return;
	}
	lm = csig_cfg.flags & CSIG_CFG_LM_IFINDEX ? skb->ifindex : csig_cfg.lm;
	if (fmt == CSIG_FMT_COMPACT) {
		__u16 d = bpf_ntohs(w[0]);

		d &= ~((CSIG_COMPACT_S_MASK << CSIG_COMPACT_S_SHIFT) |
		       CSIG_COMPACT_LM_MASK);
		d |= (local << CSIG_COMPACT_S_SHIFT) | (lm & CSIG_COMPACT_LM_MASK);
		w[0] = bpf_htons(d);
	} else {
		__u32 tsr = ((__u32)bpf_ntohs(w[1]) << 16) | bpf_ntohs(w[2]);

		tsr &= ~(CSIG_EXPANDED_S_MASK << CSIG_EXPANDED_S_SHIFT);
		tsr |= local << CSIG_EXPANDED_S_SHIFT;
		w[0] = bpf_htons(lm & CSIG_EXPANDED_LM_MASK);
		w[1] = bpf_htons(tsr >> 16);
		w[2] = bpf_htons(tsr & 0xffff);
	}
	if (bpf_skb_store_bytes(skb, off + 2, w,
				fmt == CSIG_FMT_COMPACT ? 2 : 6,
				BPF_F_RECOMPUTE_CSUM)) {
		count(st, CSIG_C_ERROR);
		return;
	}
	count(st, CSIG_C_REPLACED);
	if (csig_cfg.flags & CSIG_CFG_TRACE)
		trace(skb, m, off, fmt, type, s, local, value, 1);
}

/*
 * WRED/ECN on the model (csig_port_wred(), csig_port_drop_not_ect()),
 * decided on the queue the packet finds before it joins: an ECN-capable
 * packet to mark is set to CE; a not-ECT one above K is dropped
 * (TC_ACT_SHOT) and kept out of the model, as a switch drops it at
 * enqueue.  Frames other than IP pass.
 */
static __always_inline int wred(struct __sk_buff *skb,
				struct csig_port_stats *st,
				struct csig_port_state *m, __u32 l3, __u64 now)
{
	__u64 tf = m->t_free, q;
	__u8 b[2], nb;
	__u32 ecn;
	__be16 et;

	if (!csig_cfg.ecn_kmax || !l3)
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, l3 - 2, &et, 2) ||
	    bpf_skb_load_bytes(skb, l3, b, 2))
		return TC_ACT_OK;
	q = csig_port_bytes(&csig_cfg, tf > now ? tf - now : 0);
	/* IPv4: TOS in byte 1; IPv6: traffic class in bits 4-11 */
	ecn = et == bpf_htons(ETH_P_IP) ? b[1] & ECN_MASK :
					   (b[1] >> 4) & ECN_MASK;
	if (ecn == ECN_NOT_ECT) {
		if (!csig_port_drop_not_ect(&csig_cfg, q))
			return TC_ACT_OK;
		count(st, CSIG_C_ECN_DROPPED);
		return TC_ACT_SHOT;
	}
	if (!csig_port_wred(&csig_cfg, q, bpf_get_prandom_u32()))
		return TC_ACT_OK;
	if (ecn == ECN_CE) {
		count(st, CSIG_C_ECN_CE);
		return TC_ACT_OK;
	}
	if (et == bpf_htons(ETH_P_IP)) {
		nb = b[1] | ECN_CE;
		/* the checksum's 16-bit word: version/IHL and TOS */
		if (bpf_l3_csum_replace(skb, l3 + 10,
					bpf_htons(((__u16)b[0] << 8) | b[1]),
					bpf_htons(((__u16)b[0] << 8) | nb), 2) ||
		    bpf_skb_store_bytes(skb, l3 + 1, &nb, 1, 0)) {
			count(st, CSIG_C_ERROR);
			return TC_ACT_OK;
		}
	} else {
		nb = b[1] | (ECN_CE << 4);
		if (bpf_skb_store_bytes(skb, l3 + 1, &nb, 1, 0)) {
			count(st, CSIG_C_ERROR);
			return TC_ACT_OK;
		}
	}
	count(st, CSIG_C_ECN_MARKED);
	return TC_ACT_OK;
}

SEC("csig/transit")
int csig_transit(struct __sk_buff *skb)
{
	struct csig_port_stats *st = stats();
	struct csig_port_state *m;
	__u32 zero = 0, off = 0, fmt = 0, l3 = 0;
	__u64 now, d = 0, rate = 0, len, first;
	int tag;

	count(st, CSIG_C_PKTS);
	tag = find_tag(skb, st, &off, &fmt, &l3);
	now = csig_cfg.clock_ns ? csig_cfg.clock_ns : bpf_ktime_get_ns();
	m = bpf_map_lookup_elem(&csig_state, &zero);
	if (!m)
		return TC_ACT_OK;
	if (wred(skb, st, m, l3, now) == TC_ACT_SHOT)
		return TC_ACT_SHOT;
	len = wire_len(skb, tag == TAG_FOUND, off, fmt, &first);
	model_update(m, st, now, len, first, &d, &rate);
	if (tag != TAG_FOUND)
		return TC_ACT_OK;
	count(st, CSIG_C_TAGGED);
	transit_tag(skb, st, m, off, fmt, csig_port_bytes(&csig_cfg, d), rate);
	return TC_ACT_OK;
}

SEC("csig/strip")
int csig_strip(struct __sk_buff *skb)
{
	struct csig_port_stats *st = stats();
	__u32 off = 0, fmt = 0, l3 = 0;
	int tag;

	count(st, CSIG_C_PKTS);
	tag = find_tag(skb, st, &off, &fmt, &l3);
	if (tag == TAG_NONE)
		return TC_ACT_OK;
	if (tag == TAG_FOUND)
		count(st, CSIG_C_TAGGED);
	/* next to in-packet VLAN tags, or malformed: cannot be removed */
	if (tag == TAG_FOUND && off == ETH_ALEN_2 && !csig_strip_vlan_follows(skb, fmt)) {
		if (!csig_strip_tag(skb, fmt)) {
			count(st, CSIG_C_STRIPPED);
			return TC_ACT_OK;
		}
		/* the frame is half rewritten: never forward it */
		count(st, CSIG_C_ERROR);
		return TC_ACT_SHOT;
	}
	count(st, CSIG_C_STRIP_FAIL);
	return csig_cfg.flags & CSIG_CFG_STRIP_PASS ? TC_ACT_OK : TC_ACT_SHOT;
}

/* The type a flow requests next: its types taken in turn. */
static __always_inline __u32 next_type(__u32 types, __u32 cursor)
{
	__u32 n = 0, i, pick;

#pragma unroll
	for (i = 0; i < CSIG_NTYPES_COMPACT; i++)
		n += (types >> i) & 1;
	if (!n)
		return 0;
	pick = cursor % n;
#pragma unroll
	for (i = 0; i < CSIG_NTYPES_COMPACT; i++) {
		if (!((types >> i) & 1))
			continue;
		if (!pick)
			return i;
		pick--;
	}
	return 0;
}

SEC("csig/insert")
int csig_insert(struct __sk_buff *skb)
{
	struct csig_port_stats *st = stats();
	__u32 types = 0, fmt = csig_cfg.ins_format, cursor = 0, type, hdr;
	__u8 mode = csig_cfg.ins_mode;
	struct csig_flow *flow = NULL;
	__u8 buf[ETH_ALEN_2 + CSIG_EXPANDED_LEN];
	struct bpf_sock *sk;
	__u16 len;

	count(st, CSIG_C_PKTS);
	if (skb->protocol != bpf_htons(ETH_P_IP) &&
	    skb->protocol != bpf_htons(ETH_P_IPV6))
		return TC_ACT_OK;
	if ((mode & CSIG_INS_SK) && skb->sk) {
		sk = bpf_sk_fullsock(skb->sk);
		if (sk)
			flow = bpf_sk_storage_get(&csig_flows, sk, 0, 0);
		if (flow && flow->types) {
			types = flow->types;
			fmt = flow->format;
			cursor = flow->next++;
		}
	}
	if (!types && (((mode & CSIG_INS_MARK) &&
			(skb->mark & csig_cfg.ins_mark_mask) == csig_cfg.ins_mark) ||
		       (mode & CSIG_INS_ALL))) {
		types = csig_cfg.ins_types;
		cursor = st ? (__u32)st->c[CSIG_C_INSERTED] : 0;
	}
	types &= CSIG_TYPES_KNOWN;
	if (!types)
		return TC_ACT_OK;
	/* TCP segments that carry data only */
	hdr = tcp_hdr_len(skb, ETH_HLEN, skb->protocol);
	if (!hdr || skb->len <= hdr) {
		count(st, CSIG_C_INSERT_SKIP);
		return TC_ACT_OK;
	}
	fmt = fmt == CSIG_FMT_EXPANDED ? CSIG_FMT_EXPANDED : CSIG_FMT_COMPACT;
	type = next_type(types, cursor);
	len = tag_len(fmt);

	/*
	 * A device forwards a frame of up to MTU + 14 + 4 bytes (a VLAN
	 * tag's room, is_skb_forwardable()): the compact tag always fits, the
	 * expanded one not on a full-size frame.  Such a frame goes untagged
	 * rather than being dropped downstream; GSO packets are segmented
	 * by MSS and always fit.
	 */
	if (skb->gso_segs <= 1 && skb->len + len > ETH_HLEN + VLAN_HLEN + 1500) {
		__u32 mtu = 0;

		bpf_check_mtu(skb, 0, &mtu, 0, 0);
		if (skb->len + len > ETH_HLEN + VLAN_HLEN + mtu) {
			count(st, CSIG_C_TOO_BIG);
			return TC_ACT_OK;
		}
	}

	/*
	 * Room in front of the MAC header (bpf_skb_change_head() keeps
	 * skb->protocol, the network header and GSO as they are, unlike
	 * bpf_skb_adjust_room(), whose room becomes the network header);
	 * then the MAC addresses move to the front and the tag goes between
	 * them and the EtherType, which is already in place.
	 */
	if (bpf_skb_change_head(skb, len, 0)) {
		count(st, CSIG_C_INSERT_FAIL);
		return TC_ACT_OK;
	}
	if (bpf_skb_load_bytes(skb, len, buf, ETH_ALEN_2))
		goto broken;
	if (fmt == CSIG_FMT_COMPACT) {
		struct csig_fields f = {
			.type = type, .s = csig_s_identity(fmt, type),
		};
		__be16 *t = (__be16 *)(buf + ETH_ALEN_2);

		t[0] = bpf_htons(csig_cfg.tpid[CSIG_FMT_COMPACT]);
		t[1] = bpf_htons(csig_compact_pack(&f));
		if (bpf_skb_store_bytes(skb, 0, buf, ETH_ALEN_2 + CSIG_COMPACT_LEN, 0))
			goto broken;
	} else {
		struct csig_fields f = {
			.type = type, .s = csig_s_identity(fmt, type),
		};
		__be16 *t = (__be16 *)(buf + ETH_ALEN_2);
		__u32 tsr = csig_expanded_pack_tsr(&f);

		t[0] = bpf_htons(csig_cfg.tpid[CSIG_FMT_EXPANDED]);
		t[1] = 0;
		t[2] = bpf_htons(tsr >> 16);
		t[3] = bpf_htons(tsr & 0xffff);
		if (bpf_skb_store_bytes(skb, 0, buf, ETH_ALEN_2 + CSIG_EXPANDED_LEN, 0))
			goto broken;
	}
	count(st, CSIG_C_INSERTED);
	return TC_ACT_OK;
broken:
	/* room pushed but not written: the frame must not leave */
	count(st, CSIG_C_ERROR);
	return TC_ACT_SHOT;
}
