// SPDX-License-Identifier: GPL-2.0
/*
 * CSIG on TCP hosts in BPF: what tcp_csig_opt does, on the same wire, for
 * a host that cannot load modules.
 *
 *   tc           ingress (clsact) of the host's interface: takes the CSIG
 *                tag out of arriving frames and keeps its fields in the
 *                socket storage of the negotiated connection the segment
 *                belongs to, if TCP would accept the segment
 *   sockops      a cgroup's TCP sockets: negotiation in the handshake
 *                (tcp_csig_opt's option bytes), the reflection option on
 *                ACKs (BPF_SOCK_OPS_HDR_OPT_LEN_CB, WRITE_HDR_OPT_CB), and
 *                on the sender the samples of the peer's reflections
 *                (PARSE_HDR_OPT_CB) in struct csig_bpf_sk
 *   iter         TCP socket iterators: the state of the sockets of the
 *                reader's network namespace, for csighost show --sockets;
 *                and the reset of a cgroup's sockets when csighost detach
 *                removes its sock_ops (their mark, their state)
 *
 * Maps are pinned by name under CSIG_BPF_PIN_DIR: the socket storage
 * (include/csig_bpf.h) that hpcc_bpf reads, the configuration and the
 * counters (include/csig_host.h).  The option's codec is
 * include/csig_opt.h's, the tag's include/csig.h's.  Design, and where it
 * departs from the module: Documentation/bpf.rst, "CSIG host path".
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <linux/socket.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>

#include "csig.h"
#include "csig_opt.h"
#include "csig_bpf.h"
#include "csig_host.h"
#include "csig_strip.h"

char LICENSE[] SEC("license") = "GPL";

/* <sys/socket.h> and <linux/tcp.h> values the uapi headers above lack */
#ifndef SOL_SOCKET
#define SOL_SOCKET	1
#endif
#ifndef SO_MARK
#define SO_MARK		36
#endif
#ifndef AF_INET6
#define AF_INET6	10
#endif
#define TCP_PAWS_WINDOW	1	/* include/net/tcp.h: PAWS's one-tick slack */
#define TCPOPT_MD5SIG	19	/* include/net/tcp.h: TCP-MD5's option kind */
#define TCPOPT_AO	29	/* and TCP-AO's */
#define CSIG_ENOMSG	42	/* bpf_load_hdr_opt(): no such option */
/* TCP_SKB_CB()->tcp_flags, as skops->skb_tcp_flags has them */
#define TCPHDR_SYN_FLAG	0x02
#define TCPHDR_RST_FLAG	0x04
#define TCPHDR_ACK_FLAG	0x10

/* TCP states in which TCP processes a connection's ACKs (tcp_csig_opt's) */
#define TCPF_LIVE	((1 << 1) | (1 << 4) | (1 << 5) | (1 << 8) | \
			 (1 << 9) | (1 << 11))

/* The kernel's structures, as far as they are read here (CO-RE). */
struct tcp_options_received {
	int	ts_recent_stamp;
	__u32	ts_recent;
	__u8	dsack:1;	/* a bit field: BPF_CORE_READ_BITFIELD() */
	__u8	num_sacks;
} __attribute__((preserve_access_index));

struct tcp_sock {
	__u32	rcv_nxt;
	__u32	rcv_wup;
	__u32	rcv_wnd;
	__u32	snd_una;
	__u32	snd_nxt;
	__u32	write_seq;
	__u32	max_window;
	__u32	mss_cache;
	__u16	tcp_header_len;
	struct tcp_options_received rx_opt;
} __attribute__((preserve_access_index));

struct sock_common {
	__be32	skc_daddr;
	__be32	skc_rcv_saddr;
	__be16	skc_dport;
	__u16	skc_num;
	unsigned short skc_family;
	unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
} __attribute__((preserve_access_index));

/* a full socket's cgroup (v2), for the reset's choice of sockets */
struct kernfs_node {
	__u64	id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct sock_cgroup_data {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_cgroup_data sk_cgrp_data;
} __attribute__((preserve_access_index));

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

/* the TCP socket iterator's context (6.1: net/ipv4/tcp_ipv4.c) */
struct bpf_iter__tcp {
	struct bpf_iter_meta *meta;
	struct sock_common *sk_common;
} __attribute__((preserve_access_index));

/* The state hpcc_bpf reads: include/csig_bpf.h. */
CSIG_BPF_SK_MAP(csig_sk);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct csig_host_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} csig_host_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct csig_host_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} csig_host_stats SEC(".maps");

static __always_inline struct csig_host_cfg *cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&csig_host_cfg, &zero);
}

static __always_inline void count(int i)
{
	struct csig_host_stats *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&csig_host_stats, &zero);
	if (st && i >= 0 && i < CSIG_HC_NR)
		st->c[i]++;
}

static __always_inline int before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

#define after(a, b)	before(b, a)

/* ---------------------------------------------------------------------
 * Receiver: tc ingress
 */

/* TCP's own options of a segment, zero-padded so that the codec's reads
 * past the end of a short list stay inside the buffer.
 */
/* csig_tcpopt_scan()'s in BPF; rx_record() loads up to 64 bytes */
#define OPTS_BUF	CSIG_TCPOPT_BPF_BUF

struct csig_host_opts {
	__u8	b[OPTS_BUF];
};

/*
 * The segment's TSval, by include/csig_opt.h's scan.  A global function:
 * the verifier checks it once, on its own, instead of once for every path
 * of its callers, which its loop multiplies past the verifier's limit.
 */
__noinline int csig_host_tsval(struct csig_host_opts *o, int len, __u32 *tsval)
{
	if (!o || !tsval || len < 0 || len > CSIG_TCPOPT_SPACE)
		return 0;
	return csig_tcpopt_scan(o->b, len, tsval) & CSIG_SCAN_TS;
}

/*
 * Would TCP accept this segment on @tp?  tcp_csig_opt's tcp_would_accept():
 * the tests of tcp_validate_incoming() and tcp_ack() that decide it, read
 * without the socket's lock (a segment at the edge of a moving window may
 * go either way).  @opts, @olen: the segment's options.
 */
static __always_inline int seg_acceptable(struct tcp_sock *tp,
					  const struct tcphdr *th,
					  __u32 payload,
					  struct csig_host_opts *opts, int olen)
{
	__u32 seq = bpf_ntohl(th->seq), ack = bpf_ntohl(th->ack_seq);
	__u32 end = seq + payload + th->fin, tsval = 0;
	__u32 rcv_nxt = tp->rcv_nxt, rcv_wup = tp->rcv_wup;
	__s32 win = (__s32)(rcv_wup + tp->rcv_wnd - rcv_nxt);

	if (th->rst || th->syn || !th->ack)
		return 0;
	if (win < 0)
		win = 0;
	/* tcp_sequence() */
	if (before(end, rcv_wup) || after(seq, rcv_nxt + (__u32)win))
		return 0;
	/* tcp_ack(): not beyond what was queued, not older than a window */
	if (after(ack, tp->write_seq) || before(ack, tp->snd_una - tp->max_window))
		return 0;
	/* PAWS (tcp_paws_check()) */
	if (tp->rx_opt.ts_recent_stamp &&
	    csig_host_tsval(opts, olen, &tsval) &&
	    (__s32)(tp->rx_opt.ts_recent - tsval) > TCP_PAWS_WINDOW)
		return 0;
	return 1;
}

/*
 * The tag's fields, for the socket of the TCP segment behind it (the frame
 * has its tag taken out already: the IP header is at ETH_HLEN).
 */
static __always_inline void rx_record(struct __sk_buff *skb,
				      const struct csig_fields *f, __u16 inner)
{
	struct bpf_sock_tuple tuple = {};
	struct csig_host_opts opts = {};
	__u32 l4, tsz, hl, payload, t, ol;
	struct csig_bpf_sk *v;
	struct tcp_sock *tp;
	struct bpf_sock *sk;
	struct tcphdr th;
	__u64 w, gen;
	int olen;

	if (inner == ETH_P_IP) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) ||
		    ip.protocol != IPPROTO_TCP || ip.ihl < 5 ||
		    (ip.frag_off & bpf_htons(0x3fff)))
			goto not_tcp;
		tuple.ipv4.saddr = ip.saddr;
		tuple.ipv4.daddr = ip.daddr;
		tsz = sizeof(tuple.ipv4);
		l4 = ETH_HLEN + ip.ihl * 4;
		hl = bpf_ntohs(ip.tot_len);
		hl = hl > ip.ihl * 4 ? hl - ip.ihl * 4 : 0;
	} else if (inner == ETH_P_IPV6) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip6, sizeof(ip6)) ||
		    ip6.nexthdr != IPPROTO_TCP)
			goto not_tcp;
		__builtin_memcpy(tuple.ipv6.saddr, &ip6.saddr, 16);
		__builtin_memcpy(tuple.ipv6.daddr, &ip6.daddr, 16);
		tsz = sizeof(tuple.ipv6);
		l4 = ETH_HLEN + sizeof(ip6);
		hl = bpf_ntohs(ip6.payload_len);
	} else {
		goto not_tcp;
	}
	if (bpf_skb_load_bytes(skb, l4, &th, sizeof(th)) || th.doff < 5)
		goto not_tcp;
	olen = th.doff * 4 - sizeof(th);
	if (th.doff > 5) {
		/*
		 * 4..40 bytes, computed so that the verifiers of 6.1 and
		 * 6.12 see [4, 64] in the register passed: they lose a
		 * range tested on a copy, and refuse a length that may be 0
		 */
		ol = th.doff - 6;
		asm volatile("" : "+r"(ol));
		ol = 4 + (ol & 0xf) * 4;
		if (bpf_skb_load_bytes(skb, l4 + sizeof(th), opts.b, ol))
			goto not_tcp;
	}
	payload = hl > th.doff * 4U ? hl - th.doff * 4 : 0;
	if (inner == ETH_P_IP) {
		tuple.ipv4.sport = th.source;
		tuple.ipv4.dport = th.dest;
	} else {
		tuple.ipv6.sport = th.source;
		tuple.ipv6.dport = th.dest;
	}

	/*
	 * The socket by the segment's addresses: its storage exists only
	 * when sock_ops created it for a negotiated connection, and it is
	 * never created here, so a spoofed segment allocates nothing.
	 */
	sk = bpf_sk_lookup_tcp(skb, &tuple, tsz, BPF_F_CURRENT_NETNS, 0);
	if (!sk) {
		count(CSIG_HC_TAGS_UNNEGOTIATED);
		return;
	}
	v = bpf_sk_storage_get(&csig_sk, sk, 0, 0);
	if (!v || !(v->state & CSIG_BPF_NEGOTIATED) ||
	    !((1U << (sk->state & 31)) & TCPF_LIVE)) {
		count(CSIG_HC_TAGS_UNNEGOTIATED);
		goto out;
	}
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp || !seg_acceptable(tp, &th, payload, &opts, olen)) {
		count(CSIG_HC_TAGS_OUT_OF_WINDOW);
		goto out;
	}
	t = f->type & CSIG_OPT_T_MASK;
	gen = (v->rx[t] >> CSIG_BPF_RX_GEN_SHIFT) + 1;
	w = (f->lm & CSIG_BPF_RX_LM_MASK) |
	    ((__u64)(f->s & CSIG_BPF_RX_S_MASK) << CSIG_BPF_RX_S_SHIFT) |
	    ((__u64)t << CSIG_BPF_RX_T_SHIFT) |
	    ((__u64)(f->format & 1) << CSIG_BPF_RX_F_SHIFT) |
	    CSIG_BPF_RX_VALID | (gen << CSIG_BPF_RX_GEN_SHIFT);
	v->rx[t] = w;	/* one store: sock_ops reads it whole */
	count(CSIG_HC_TAGS_RECORDED);
out:
	bpf_sk_release(sk);
	return;
not_tcp:
	count(CSIG_HC_TAGS_NOT_TCP);
}

SEC("tc")
int csig_host_rx(struct __sk_buff *skb)
{
	struct csig_host_cfg *c = cfg();
	__u8 b[CSIG_EXPANDED_LEN] = {};
	struct csig_fields f = {};
	__u32 fmt, tlen;
	__u16 inner;
	__be16 et;

	if (!c || bpf_skb_load_bytes(skb, CSIG_ETH_ADDRS_LEN, &et, 2))
		return TC_ACT_OK;
	if (et == bpf_htons(c->tpid[CSIG_FMT_COMPACT]))
		fmt = CSIG_FMT_COMPACT;
	else if (et == bpf_htons(c->tpid[CSIG_FMT_EXPANDED]))
		fmt = CSIG_FMT_EXPANDED;
	else
		return TC_ACT_OK;
	count(CSIG_HC_TAGS);
	/* the tag's data and the payload's EtherType (include/csig.h) */
	tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN : CSIG_EXPANDED_LEN;
	if ((fmt == CSIG_FMT_COMPACT ?
	     bpf_skb_load_bytes(skb, CSIG_ETH_ADDRS_LEN + 2, b, CSIG_COMPACT_LEN) :
	     bpf_skb_load_bytes(skb, CSIG_ETH_ADDRS_LEN + 2, b, CSIG_EXPANDED_LEN)) ||
	    csig_tag_rx(b, tlen, fmt, c->tpid[CSIG_FMT_COMPACT],
			c->tpid[CSIG_FMT_EXPANDED], &f, &inner) < 0) {
		count(CSIG_HC_TAGS_MALFORMED);
		return TC_ACT_SHOT;
	}
	/* a VLAN tag behind it: the helpers would take that too */
	if (csig_strip_vlan_follows(skb, fmt) || csig_strip_tag(skb, fmt)) {
		count(CSIG_HC_TAGS_STRIP_FAIL);
		return TC_ACT_SHOT;
	}
	count(CSIG_HC_TAGS_REMOVED);
	rx_record(skb, &f, inner);
	return TC_ACT_OK;
}

/* ---------------------------------------------------------------------
 * Both ends: sock_ops
 */

static const __u8 csig_search[CSIG_OPT_HDR_LEN] = {
	CSIG_OPT_KIND, CSIG_OPT_HDR_LEN, CSIG_OPT_EXID >> 8, CSIG_OPT_EXID & 0xff,
};

/*
 * Our option in the segment at hand (@syn: in the SYN a SYN-ACK answers),
 * parsed into @sm: what csig_opt_parse() returns, or CSIG_OPT_NOT_OURS.
 * The kernel finds it (bpf_load_hdr_opt() matches kind 253 and the ExID
 * as the codec does: the first such option) and include/csig_opt.h parses
 * it.
 */
static __always_inline int opt_load(struct bpf_sock_ops *skops, int syn,
				    struct csig_sample *sm)
{
	/* room past the longest option: the verifier's bounds are looser */
	__u8 buf[CSIG_OPT_MAX_LEN + 8] = {};
	int len;

	__builtin_memcpy(buf, csig_search, sizeof(csig_search));
	len = bpf_load_hdr_opt(skops, buf, sizeof(buf),
			       syn ? BPF_LOAD_HDR_OPT_TCP_SYN : 0);
	if (len < 0)
		return CSIG_OPT_NOT_OURS;
	if (len > CSIG_OPT_MAX_LEN)
		return CSIG_OPT_E_LEN;
	return csig_opt_parse(buf, len, sm);
}

/* The socket's state (@flags: BPF_SK_STORAGE_GET_F_CREATE), or NULL. */
static __always_inline struct csig_bpf_sk *sk_state(struct bpf_sock_ops *skops,
						    __u64 flags)
{
	struct bpf_sock *sk = skops->sk;

	if (!sk)
		return NULL;
	return bpf_sk_storage_get(&csig_sk, sk, 0, flags);
}

static __always_inline struct tcp_sock *sk_tcp(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;

	if (!sk)
		return NULL;
	return bpf_skc_to_tcp_sock(sk);
}

static __always_inline void set_flags(struct bpf_sock_ops *skops, __u32 on,
				      __u32 off)
{
	bpf_sock_ops_cb_flags_set(skops,
				  (skops->bpf_sock_ops_cb_flags | on) & ~off);
}

static __always_inline int is_syn(struct bpf_sock_ops *skops)
{
	return skops->skb_tcp_flags & TCPHDR_SYN_FLAG;
}

/* The mark the insertion role's rule selects (tcp_csig_opt's insert_mark). */
static __always_inline void set_mark(struct bpf_sock_ops *skops, __u32 mark)
{
	int m = 0;

	if (!mark || bpf_getsockopt(skops, SOL_SOCKET, SO_MARK, &m, sizeof(m)))
		return;
	m |= mark;
	if (!bpf_setsockopt(skops, SOL_SOCKET, SO_MARK, &m, sizeof(m)))
		count(CSIG_HC_MARKED);
}

/* Reflection on, both ways, on a socket that negotiated. */
static __always_inline void negotiated(struct bpf_sock_ops *skops,
				       struct csig_host_cfg *c)
{
	set_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
		  BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG, 0);
	set_mark(skops, c->mark);
}

/* A fresh start: nothing of an earlier connection on this socket stays. */
static __always_inline void sk_reset(struct csig_bpf_sk *v, __u32 state)
{
	int t;

	v->state = state;
	v->have = 0;
	v->confirms = 0;
	for (t = 0; t <= CSIG_OPT_T_MASK; t++) {
		v->rx[t] = 0;
		v->rx_sent[t] = 0;
	}
}

/*
 * Samples of a reflection on a segment TCP took: PARSE_HDR_OPT_CB runs
 * from tcp_validate_incoming() once sequence, PAWS, RST and SYN passed;
 * what remains of TCP's acceptance is tcp_ack()'s test of the ACK number,
 * made here as tcp_ack() makes it, under the same socket lock.
 */
static __always_inline void take_samples(struct bpf_sock_ops *skops,
					 struct csig_bpf_sk *v,
					 const struct csig_sample *sm, int n)
{
	void *data = (void *)(long)skops->skb_data;
	void *end = (void *)(long)skops->skb_data_end;
	struct tcphdr *th = data;
	struct tcp_sock *tp;
	__u32 ack, seq, t;
	__u64 now;
	int i;

	if ((void *)(th + 1) > end)
		return;
	ack = bpf_ntohl(th->ack_seq);
	seq = bpf_ntohl(th->seq);
	tp = sk_tcp(skops);
	if (!tp || !th->ack || after(ack, skops->snd_nxt) ||
	    before(ack, skops->snd_una - tp->max_window)) {
		count(CSIG_HC_OPTS_OUT_OF_WINDOW);
		return;
	}
	now = bpf_ktime_get_ns();
	for (i = 0; i < n && i < CSIG_OPT_MAX_SAMPLES; i++) {
		struct csig_bpf_sample *o;

		t = sm[i].type & CSIG_OPT_T_MASK;
		o = &v->s[t];
		/*
		 * A repeat of the sample kept is no news: its arrival time
		 * stays that of the first reflection (tcp_csig_opt's rule).
		 */
		if (!sm[i].fresh && (v->have & (1U << t)) &&
		    o->s.format == sm[i].format && o->s.s == sm[i].s &&
		    o->s.lm == sm[i].lm)
			continue;
		o->s = sm[i];
		o->t_ns = now;
		o->ack_seq = ack;
		o->seq = seq;
		v->have |= 1U << t;
	}
	count(CSIG_HC_OPTS_PARSED);
}

static __always_inline void on_connect(struct bpf_sock_ops *skops,
				       struct csig_host_cfg *c)
{
	struct bpf_sock *sk = skops->sk;
	struct csig_bpf_sk *v;

	if (!sk)
		return;
	if (!(c->flags & CSIG_HOST_OFFER)) {
		bpf_sk_storage_delete(&csig_sk, sk);
		set_flags(skops, 0, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
			  BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		return;
	}
	/* our own socket's SYN: the state starts here, afresh */
	v = sk_state(skops, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v)
		return;
	sk_reset(v, CSIG_BPF_OFFERED);
	set_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG,
		  BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
}

/*
 * Does this end accept the connection's SYN?  When accept is on, the SYN
 * offered (our 4-byte option) and it is not signed (TCP-MD5 or TCP-AO,
 * which the module leaves alone too).  The SYN is the one the SYN-ACK
 * being written answers (the kernel's syn_skb), or else the copy the
 * listener saved (TCP_SAVE_SYN, set at TCP_LISTEN_CB): a request socket
 * retransmitting its SYN-ACK and the child the handshake made have that
 * copy.  The SYN-ACK's acceptance and the check of a confirmation are both
 * this test, on the same SYN, so a confirmation counts only for a
 * connection whose SYN-ACK accepted.
 */
static __always_inline int syn_accepts(struct bpf_sock_ops *skops,
				       struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	__u8 buf[CSIG_TCPOPT_SPACE] = { TCPOPT_MD5SIG, 0 };

	if (!(c->flags & CSIG_HOST_ACCEPT) || opt_load(skops, 1, sm) != 0)
		return 0;
	/* any answer but "not there" (malformed options too) declines */
	if (bpf_load_hdr_opt(skops, buf, sizeof(buf),
			     BPF_LOAD_HDR_OPT_TCP_SYN) != -CSIG_ENOMSG)
		return 0;
	buf[0] = TCPOPT_AO;
	buf[1] = 0;
	return bpf_load_hdr_opt(skops, buf, sizeof(buf),
				BPF_LOAD_HDR_OPT_TCP_SYN) == -CSIG_ENOMSG;
}

/*
 * A listener accepts only when it keeps its SYNs (syn_accepts() checks
 * confirmations against them).  An application's own TCP_SAVE_SYN (2
 * keeps the MAC header too) stays as it is.
 */
static __always_inline void on_listen(struct bpf_sock_ops *skops,
				      struct csig_host_cfg *c)
{
	int save = 0;

	if (!(c->flags & CSIG_HOST_ACCEPT) ||
	    bpf_getsockopt(skops, IPPROTO_TCP, TCP_SAVE_SYN, &save,
			   sizeof(save)))
		return;
	if (!save) {
		save = 1;
		if (bpf_setsockopt(skops, IPPROTO_TCP, TCP_SAVE_SYN, &save,
				   sizeof(save)))
			return;
	}
	/* the kernel asks the listener's flags for the SYN-ACK's options */
	set_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG, 0);
}

/* The SYN-ACK TCP took (tcp_finish_connect()): accepted or not. */
static __always_inline void on_active(struct bpf_sock_ops *skops,
				      struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct csig_bpf_sk *v;

	v = sk_state(skops, 0);
	if (!v || !(v->state & CSIG_BPF_OFFERED))
		return;
	if (opt_load(skops, 0, sm) == 0) {
		v->state |= CSIG_BPF_NEGOTIATED;
		v->confirms = CSIG_HOST_CONFIRMS;
		negotiated(skops, c);
		count(CSIG_HC_NEGOTIATED);
	} else {
		/* declined: nothing of this connection is worth keeping */
		if (skops->sk)
			bpf_sk_storage_delete(&csig_sk, skops->sk);
		set_flags(skops, 0, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		count(CSIG_HC_PEER_DECLINED);
	}
}

/*
 * A passive end keeps state only for a handshake that completed (as TCP
 * checked it: the request's ISNs) with a SYN-ACK that accepted, and that
 * the active end confirms with our option.  A peer whose SYN did not offer
 * confirms nothing, whatever it sends later.  The listener's flags came
 * with the clone.
 */
static __always_inline int confirm(struct bpf_sock_ops *skops,
				   struct csig_host_cfg *c, int n,
				   const struct csig_sample *sm)
{
	struct csig_bpf_sk *v;

	if (!skops->sk || !syn_accepts(skops, c))
		return 0;
	v = sk_state(skops, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v)
		return 0;
	sk_reset(v, CSIG_BPF_OFFERED | CSIG_BPF_NEGOTIATED);
	negotiated(skops, c);
	count(CSIG_HC_CONFIRMED);
	if (n > 0)
		take_samples(skops, v, sm, n);
	return 1;
}

static __always_inline void on_passive(struct bpf_sock_ops *skops,
				       struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	int n;

	if (!(c->flags & CSIG_HOST_ACCEPT)) {
		set_flags(skops, 0, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
			  BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		return;
	}
	/*
	 * A Fast Open child is established by the SYN itself, whose offer
	 * is no confirmation: it waits for the active end's segments.
	 */
	n = is_syn(skops) ? CSIG_OPT_NOT_OURS : opt_load(skops, 0, sm);
	if (n >= 0) {
		if (confirm(skops, c, n, sm))
			return;
		/* our option, from a peer this end did not accept */
		set_flags(skops, 0, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
			  BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		count(CSIG_HC_OPTS_UNNEGOTIATED);
		return;
	}
	if (n != CSIG_OPT_NOT_OURS)
		count(CSIG_HC_OPTS_MALFORMED);
	/* no confirmation yet: watch the next segments for one */
	set_flags(skops, BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG,
		  BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
}

static __always_inline void on_parse(struct bpf_sock_ops *skops,
				     struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct csig_bpf_sk *v;
	int n;

	n = opt_load(skops, 0, sm);
	if (n == CSIG_OPT_NOT_OURS)
		return;
	if (n < 0) {
		count(CSIG_HC_OPTS_MALFORMED);
		return;
	}
	v = sk_state(skops, 0);
	if (!v) {
		/*
		 * a passive open whose confirmation came late, or too late,
		 * or a peer that was not accepted
		 */
		if (skops->segs_in <= CSIG_HOST_CONFIRM_SEGS &&
		    confirm(skops, c, n, sm))
			return;
		set_flags(skops, 0, BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		count(CSIG_HC_OPTS_UNNEGOTIATED);
		return;
	}
	if (!(v->state & CSIG_BPF_NEGOTIATED)) {
		count(CSIG_HC_OPTS_UNNEGOTIATED);
		return;
	}
	if (n > 0)
		take_samples(skops, v, sm, n);
}

/*
 * The samples to reflect: the latest tag of each type, new ones first,
 * then repeats (tcp_csig_opt's order).  @gen gets each one's generation.
 */
static __always_inline int collect(struct csig_bpf_sk *v,
				   struct csig_sample *sm, __u16 *gen)
{
	int n = 0, pass, t;

	for (pass = 0; pass < 2; pass++) {
		for (t = 0; t <= CSIG_OPT_T_MASK; t++) {
			__u64 w = v->rx[t];
			__u16 g = w >> CSIG_BPF_RX_GEN_SHIFT;
			int fresh = g != v->rx_sent[t];

			if (!(w & CSIG_BPF_RX_VALID) || fresh != !pass)
				continue;
			if (n >= CSIG_OPT_MAX_SAMPLES)
				return n;
			sm[n].format = (w >> CSIG_BPF_RX_F_SHIFT) & 1;
			sm[n].type = (w >> CSIG_BPF_RX_T_SHIFT) & CSIG_OPT_T_MASK;
			sm[n].fresh = fresh;
			sm[n].pad = 0;
			sm[n].s = (w >> CSIG_BPF_RX_S_SHIFT) & CSIG_BPF_RX_S_MASK;
			sm[n].lm = w & CSIG_BPF_RX_LM_MASK;
			sm[n].pad2 = 0;
			gen[n] = g;
			n++;
		}
	}
	return n;
}

/*
 * Option bytes a data segment may take: what TCP budgeted for its header
 * and payload (mss_cache + tcp_header_len, RFC 6691), less its payload
 * and the header it has without us (tcp_header_len and any SACK blocks).
 * The SACK blocks are tcp_established_options()'s: those of
 * rx_opt.num_sacks and a pending D-SACK's (rx_opt.dsack), 4 bytes and 8
 * a block.  A D-SACK set by a duplicate makes tcp_current_mss() cut the
 * payload by those 12 bytes; counted as room, they put the segment 12
 * bytes over the path MTU.  Full-sized segments and GSO packets get none
 * (tcp_csig_opt's rule).
 */
static __always_inline __u32 data_room(struct bpf_sock_ops *skops)
{
	__u32 payload = skops->skb_len, used, budget, sacks;
	struct tcp_sock *tp;

	tp = sk_tcp(skops);
	if (!tp)
		return 0;
	sacks = tp->rx_opt.num_sacks +
		BPF_CORE_READ_BITFIELD(tp, rx_opt.dsack);
	budget = tp->mss_cache + tp->tcp_header_len;
	used = tp->tcp_header_len + payload + (sacks ? 4 + 8 * sacks : 0);
	return budget > used ? budget - used : 0;
}

/* The handshake: the offer on a SYN, the acceptance on a SYN-ACK. */
static __always_inline int hs_wanted(struct bpf_sock_ops *skops,
				     struct csig_host_cfg *c, int count_it)
{
	struct csig_bpf_sk *v;

	if (!(skops->skb_tcp_flags & TCPHDR_ACK_FLAG)) {
		/* our SYN: offered when the connect started the state */
		v = sk_state(skops, 0);
		return v && v->state == CSIG_BPF_OFFERED;
	}
	/*
	 * A SYN-ACK (of a request socket: nothing is kept for it): accept
	 * when syn_accepts() does, on the SYN it answers, which is the
	 * confirmation's test later.  A syncookie's SYN-ACK does not: the
	 * child its ACK makes has no copy of the SYN to test.
	 */
	if (skops->args[0] == BPF_WRITE_HDR_TCP_SYNACK_COOKIE ||
	    !syn_accepts(skops, c))
		return 0;
	if (count_it)
		count(CSIG_HC_SYN_OFFER_RCVD);
	return 1;
}

static __always_inline void hdr_len(struct bpf_sock_ops *skops,
				    struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	__u16 gen[CSIG_OPT_MAX_SAMPLES];
	struct csig_bpf_sk *v;
	__u32 room = CSIG_OPT_MAX_LEN;
	int n, i;

	/* tcp_current_mss() asks without a segment: data never grows */
	if (skops->args[0] == BPF_WRITE_HDR_TCP_CURRENT_MSS)
		return;
	if (is_syn(skops)) {
		if (hs_wanted(skops, c, 1))
			bpf_reserve_hdr_opt(skops, CSIG_OPT_HDR_LEN, 0);
		return;
	}
	if (skops->skb_tcp_flags & TCPHDR_RST_FLAG)
		return;
	v = sk_state(skops, 0);
	if (!v || !(v->state & CSIG_BPF_NEGOTIATED))
		return;
	n = collect(v, sm, gen);
	if (!n && !v->confirms)
		return;
	if (skops->skb_len) {
		room = data_room(skops);
		if (room < CSIG_OPT_HDR_LEN) {
			count(CSIG_HC_OPTS_DATA_NO_FIT);
			return;
		}
	}
	/* the most samples that fit; without one, the confirmation alone */
	for (i = CSIG_OPT_MAX_SAMPLES; i >= 0; i--) {
		__u32 len = CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * i;

		if (i > n || len > room || (!i && !v->confirms))
			continue;
		if (!bpf_reserve_hdr_opt(skops, len, 0))
			return;
	}
	count(skops->skb_len ? CSIG_HC_OPTS_DATA_NO_FIT : CSIG_HC_OPTS_NO_ROOM);
}

/*
 * Does the segment being written carry data?  Here skb_len counts the TCP
 * header too (it is in place; HDR_OPT_LEN_CB runs before it is).
 */
static __always_inline int has_data(struct bpf_sock_ops *skops)
{
	void *data = (void *)(long)skops->skb_data;
	void *end = (void *)(long)skops->skb_data_end;
	struct tcphdr *th = data;

	if ((void *)(th + 1) > end)
		return 0;
	return skops->skb_len > th->doff * 4U;
}

static __always_inline void hdr_write(struct bpf_sock_ops *skops,
				      struct csig_host_cfg *c)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	__u16 gen[CSIG_OPT_MAX_SAMPLES];
	__u8 opt[CSIG_OPT_MAX_LEN];
	struct csig_bpf_sk *v;
	int n, i, k, len;

	if (is_syn(skops)) {
		if (!hs_wanted(skops, c, 0))
			return;
		csig_opt_put_syn(opt, sizeof(opt));
		if (bpf_store_hdr_opt(skops, opt, CSIG_OPT_HDR_LEN, 0))
			return;
		count(skops->skb_tcp_flags & TCPHDR_ACK_FLAG ?
		      CSIG_HC_SYNACK_ACCEPTED : CSIG_HC_SYN_OFFERED);
		return;
	}
	v = sk_state(skops, 0);
	if (!v || !(v->state & CSIG_BPF_NEGOTIATED))
		return;
	n = collect(v, sm, gen);
	/* what was reserved holds this many (more tags may have come since) */
	for (i = CSIG_OPT_MAX_SAMPLES; i >= 0; i--) {
		if (i > n)
			continue;
		if (i)
			len = csig_opt_put(opt, CSIG_OPT_HDR_LEN +
					   CSIG_OPT_SAMPLE_LEN * i, sm, i);
		else
			len = v->confirms ? csig_opt_put_syn(opt, sizeof(opt)) : 0;
		if (len <= 0 || len > CSIG_OPT_MAX_LEN)
			continue;
		if (!bpf_store_hdr_opt(skops, opt, len & 63, 0))
			break;
	}
	if (i < 0)
		return;
	/* the samples written are no longer new */
	for (k = 0; k < i && k < CSIG_OPT_MAX_SAMPLES; k++)
		v->rx_sent[sm[k].type & CSIG_OPT_T_MASK] = gen[k];
	/* any option of ours tells the peer that we negotiated */
	if (v->confirms)
		v->confirms--;
	if (i) {
		count(CSIG_HC_OPTS_SENT);
		if (has_data(skops))
			count(CSIG_HC_OPTS_SENT_DATA);
	} else {
		count(CSIG_HC_CONFIRMS_SENT);
	}
}

SEC("sockops")
int csig_host_sockops(struct bpf_sock_ops *skops)
{
	struct csig_host_cfg *c = cfg();

	if (!c)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		on_listen(skops, c);
		break;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		on_connect(skops, c);
		break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		on_active(skops, c);
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		on_passive(skops, c);
		break;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		on_parse(skops, c);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		hdr_len(skops, c);
		break;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		hdr_write(skops, c);
		break;
	}
	return 1;	/* anything else fails the kernel's callback */
}

/* ---------------------------------------------------------------------
 * The dump: every socket with state (csighost show --sockets)
 *
 * A TCP socket iterator, not one over the socket storage: some kernels
 * refuse every program of the map element iterators (bpf_map_elem,
 * bpf_sk_storage_map, sockmap) with EPERM and load this one
 * (Documentation/bpf.rst, "Reading the sockets' state").  It visits the
 * TCP sockets of the reader's network namespace; a socket's state is
 * looked up without creating it, and everything is read through the
 * pointers' BTF types, nothing with bpf_probe_read_kernel().
 */
SEC("iter/tcp")
int csig_host_dump(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct seq_file *seq = ctx->meta->seq;
	struct csig_host_sock_hdr h = {};
	struct csig_bpf_sk *v;
	struct tcp_sock *tp;
	int i;

	if (!skc)
		return 0;
	/* NULL for request and timewait sockets, which have no storage */
	v = bpf_sk_storage_get(&csig_sk, skc, 0, 0);
	if (!v)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	h.family = skc->skc_family;
	h.state = skc->skc_state;
	h.lport = skc->skc_num;
	h.rport = bpf_ntohs(skc->skc_dport);
	if (h.family == AF_INET6) {
		for (i = 0; i < 4; i++) {
			h.laddr[i] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			h.raddr[i] = skc->skc_v6_daddr.in6_u.u6_addr32[i];
		}
	} else {
		h.laddr[0] = skc->skc_rcv_saddr;
		h.raddr[0] = skc->skc_daddr;
	}
	h.rcv_nxt = tp->rcv_nxt;
	h.snd_una = tp->snd_una;
	h.snd_nxt = tp->snd_nxt;
	h.now_ns = bpf_ktime_get_ns();
	/* one record: the iterator keeps both writes or neither */
	bpf_seq_write(seq, &h, sizeof(h));
	bpf_seq_write(seq, v, sizeof(*v));
	return 0;
}

/* ---------------------------------------------------------------------
 * The reset: csighost detach, when a cgroup's sock_ops goes
 *
 * A TCP socket iterator (the reader's network namespace) over the
 * sockets with state whose cgroup is csig_host_reset_cg (0: any): a
 * negotiated one loses the mark bits of the configuration, which made the
 * insertion role tag its segments, and each loses its state, so that the
 * tc programs and hpcc_bpf take it for a connection that never
 * negotiated.  Under the socket's lock, as the iterator calls it; one
 * byte written per socket reset, for csighost to count.
 */
__u64 csig_host_reset_cg;

SEC("iter/tcp")
int csig_host_reset(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct seq_file *seq = ctx->meta->seq;
	struct csig_host_cfg *c = cfg();
	struct csig_bpf_sk *v;
	struct tcp_sock *tp;
	struct sock *sk;
	__u8 one = 1;
	int m = 0;

	if (!skc)
		return 0;
	v = bpf_sk_storage_get(&csig_sk, skc, 0, 0);
	if (!v)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	sk = (struct sock *)tp;
	if (csig_host_reset_cg &&
	    (!sk->sk_cgrp_data.cgroup ||
	     sk->sk_cgrp_data.cgroup->kn->id != csig_host_reset_cg))
		return 0;
	if ((v->state & CSIG_BPF_NEGOTIATED) && c && c->mark &&
	    !bpf_getsockopt(tp, SOL_SOCKET, SO_MARK, &m, sizeof(m)) &&
	    (m & c->mark)) {
		m &= ~c->mark;
		bpf_setsockopt(tp, SOL_SOCKET, SO_MARK, &m, sizeof(m));
	}
	if (bpf_sk_storage_delete(&csig_sk, skc))
		sk_reset(v, 0);
	bpf_seq_write(seq, &one, sizeof(one));
	return 0;
}
