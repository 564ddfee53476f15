/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_csig_opt's packet handling, apart from its state: where a segment's
 * headers are and how long (csig_tcp_of(), csig_seg_payload()), the tag
 * taken out of a received frame (csig_skb_tag(), csig_skb_untag()), the
 * option appended to an outgoing segment (csig_opt_build(),
 * csig_append_opt(), csig_data_fit()), and the arithmetic of the tests
 * by which the module decides whether TCP would accept a segment, over
 * the values it reads from the socket (struct csig_tcp_view).
 *
 * tcp_csig_opt.c includes it in the kernel, where it uses the kernel's
 * own skb, checksum and sequence helpers.  It includes nothing else of
 * its own in userspace: there the includer provides those APIs first
 * (selftests/unit/kskb.h, over exactly sized buffers), so that
 * selftests/unit/fuzz_csig_skb.c and test_csig_skb.c run this same code
 * under the sanitizers.
 */
#ifndef _TCP_CSIG_OPT_PKT_H
#define _TCP_CSIG_OPT_PKT_H

#ifdef __KERNEL__
#include <linux/skbuff.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <net/ip6_checksum.h>
#endif

#include "csig.h"
#include "csig_opt.h"

/*
 * IPv6 or IPv4?  skb->protocol says so on input; on output it may not be
 * set yet, and the header's version does.
 */
static inline bool csig_skb_is_ipv6(const struct sk_buff *skb)
{
	return skb->protocol == htons(ETH_P_IPV6) ||
	       (skb->protocol != htons(ETH_P_IP) && ipv6_hdr(skb)->version == 6);
}

/* The IP and TCP headers of a TCP segment at the network header, or NULL. */
static inline struct tcphdr *csig_tcp_of(struct sk_buff *skb, unsigned int *nhlen)
{
	unsigned int nh, thlen;

	if (csig_skb_is_ipv6(skb)) {
		if (ipv6_hdr(skb)->nexthdr != IPPROTO_TCP)
			return NULL;
		nh = sizeof(struct ipv6hdr);
	} else {
		const struct iphdr *ip = ip_hdr(skb);

		if (ip->protocol != IPPROTO_TCP || ip_is_fragment(ip) || ip->ihl < 5)
			return NULL;
		nh = ip->ihl * 4;
	}
	if (!pskb_may_pull(skb, skb_network_offset(skb) + nh + sizeof(struct tcphdr)))
		return NULL;
	thlen = ((struct tcphdr *)(skb_network_header(skb) + nh))->doff * 4;
	if (thlen < sizeof(struct tcphdr) ||
	    !pskb_may_pull(skb, skb_network_offset(skb) + nh + thlen))
		return NULL;
	skb_set_transport_header(skb, skb_network_offset(skb) + nh);
	*nhlen = nh;
	return tcp_hdr(skb);
}

/* Payload bytes of a segment, as its IP header says (frames may be padded). */
static inline unsigned int csig_seg_payload(const struct sk_buff *skb,
					    const struct tcphdr *th, unsigned int nh)
{
	unsigned int l3, hl = nh + th->doff * 4;

	if (csig_skb_is_ipv6(skb))
		l3 = sizeof(struct ipv6hdr) + ntohs(ipv6_hdr(skb)->payload_len);
	else
		l3 = ntohs(ip_hdr(skb)->tot_len);
	return l3 > hl ? l3 - hl : 0;
}

/*
 * The tag of a received frame of format @fmt, which eth_type_trans() left
 * with skb->data at the tag's data, the TPID just before it.  Returns the
 * tag's length, its fields in @fl and the payload's EtherType in @inner,
 * or a negative value for a tag that is truncated, nested or a runt's.
 */
static inline int csig_skb_tag(struct sk_buff *skb, unsigned int fmt, u16 tpid_c,
			       u16 tpid_e, struct csig_fields *fl, u16 *inner)
{
	unsigned int tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN :
						      CSIG_EXPANDED_LEN;

	if (skb_mac_header_len(skb) != ETH_HLEN || !pskb_may_pull(skb, tlen))
		return -1;
	return csig_tag_rx(skb->data, skb_headlen(skb), fmt, tpid_c, tpid_e, fl,
			   inner);
}

/*
 * Take the tag of @tlen bytes (csig_skb_tag()) out: its bytes are pulled
 * (with CHECKSUM_COMPLETE kept right), the MAC addresses moved up to the
 * payload's EtherType @inner, and the frame's headers reset, as the VLAN
 * code does with a tag it takes out.
 */
static inline int csig_skb_untag(struct sk_buff *skb, unsigned int tlen, __be16 inner)
{
	u8 *mac;

	if (skb_cow(skb, 0))
		return -ENOMEM;
	/* pull the tag's bytes first: CHECKSUM_COMPLETE covers them */
	skb_pull_rcsum(skb, tlen);
	mac = skb_mac_header(skb);
	memmove(mac + tlen, mac, 2 * ETH_ALEN);
	skb->mac_header += tlen;
	skb->protocol = inner;
	skb_reset_network_header(skb);
	skb_reset_mac_len(skb);
	return 0;
}

/*
 * Append @len bytes of options (a multiple of 4) to the TCP header of an
 * outgoing segment, using headroom: IP and TCP headers move down, the
 * option goes where they ended, the payload stays where it is.  A segment
 * with payload must be CHECKSUM_PARTIAL (the caller checks).
 */
static inline int csig_append_opt(struct sk_buff *skb, unsigned int nh, const u8 *opt,
				  unsigned int len)
{
	unsigned int hl = nh + tcp_hdr(skb)->doff * 4, o;
	struct tcphdr *th;

	if (tcp_hdr(skb)->doff * 4 + len > 60)
		return -ENOSPC;
	o = skb_network_offset(skb);
	if (skb_ensure_writable(skb, o + hl) || skb_cow_head(skb, len))
		return -ENOMEM;
	skb_push(skb, len);
	memmove(skb->data, skb->data + len, o + hl);
	skb->network_header -= len;
	skb->transport_header -= len;
	th = tcp_hdr(skb);
	memcpy((u8 *)th + th->doff * 4, opt, len);
	th->doff += len / 4;

	if (ip_hdr(skb)->version == 4) {
		struct iphdr *ip = ip_hdr(skb);

		be16_add_cpu(&ip->tot_len, len);
		ip_send_check(ip);
		if (skb->ip_summed == CHECKSUM_PARTIAL) {
			th->check = ~tcp_v4_check(skb->len - skb_transport_offset(skb),
						  ip->saddr, ip->daddr, 0);
			skb->csum_start = skb_transport_header(skb) - skb->head;
		} else {
			th->check = 0;
			th->check = tcp_v4_check(skb->len - skb_transport_offset(skb),
						 ip->saddr, ip->daddr,
						 csum_partial(th, skb->len -
							      skb_transport_offset(skb), 0));
		}
	} else {
		struct ipv6hdr *ip6 = ipv6_hdr(skb);

		be16_add_cpu(&ip6->payload_len, len);
		if (skb->ip_summed == CHECKSUM_PARTIAL) {
			th->check = ~tcp_v6_check(skb->len - skb_transport_offset(skb),
						  &ip6->saddr, &ip6->daddr, 0);
			skb->csum_start = skb_transport_header(skb) - skb->head;
		} else {
			th->check = 0;
			th->check = tcp_v6_check(skb->len - skb_transport_offset(skb),
						 &ip6->saddr, &ip6->daddr,
						 csum_partial(th, skb->len -
							      skb_transport_offset(skb), 0));
		}
	}
	return 0;
}

/* Pad an option to a multiple of 4 with leading NOPs. */
static inline unsigned int csig_pad_opt(u8 *buf, const u8 *opt, unsigned int len)
{
	unsigned int pad = (4 - (len & 3)) & 3;

	memset(buf, TCPOPT_NOP, pad);
	memcpy(buf + pad, opt, len);
	return pad + len;
}

/*
 * The option for a segment with @room bytes of option space, into @buf
 * (CSIG_OPT_MAX_LEN + 4 bytes): the most of the @n samples @sm whose
 * option, padded to 4 bytes (4 + 6n needs 2 bytes of padding when n is
 * odd), fits the room; without one, the confirmation alone when
 * @confirm.  Returns its length with the padding, 0 for none, and in
 * *@nsent the samples it carries.
 */
static inline unsigned int csig_opt_build(u8 *buf, unsigned int room,
					  const struct csig_sample *sm, unsigned int n,
					  bool confirm, unsigned int *nsent)
{
	u8 opt[CSIG_OPT_MAX_LEN];
	unsigned int len;

	while (n && CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * n + (n & 1) * 2 > room)
		n--;
	if (n)
		len = csig_opt_put(opt, sizeof(opt), sm, n);
	else
		len = confirm ? csig_opt_put_syn(opt, room) : 0;
	if (!len)
		return 0;
	*nsent = (len - CSIG_OPT_HDR_LEN) / CSIG_OPT_SAMPLE_LEN;
	return csig_pad_opt(buf, opt, len);
}

/*
 * Option bytes a data segment of @used bytes of TCP header and payload,
 * @ipl bytes of IP packet, may take: what TCP budgeted for its header and
 * payload (@budget: the MSS it sized the segment by, which honours the
 * peer's and any clamp, RFC 6691, and its header length), and the route's
 * @mtu.  0 when it has none.
 */
static inline unsigned int csig_data_fit(unsigned int used, unsigned int budget,
					 unsigned int ipl, unsigned int mtu)
{
	if (used >= budget || ipl >= mtu)
		return 0;
	return min(budget - used, mtu - ipl);
}

/*
 * What the acceptance tests read of a connection's socket (tcp_sock), read
 * once and without its lock by the module.
 */
struct csig_tcp_view {
	u32	rcv_nxt;
	u32	rcv_wup;
	u32	rcv_wnd;		/* the window: tcp_receive_window() of these */
	u32	snd_una;
	u32	write_seq;
	u32	max_window;
	u32	ts_recent;
	int	ts_recent_stamp;	/* 0: no timestamp kept */
};

/* csig_tcp_accepts(): accepted, or the test that failed */
enum {
	CSIG_ACCEPTED,
	CSIG_OOW_SEQ,		/* flags or sequence number */
	CSIG_OOW_ACK,		/* ACK number */
	CSIG_OOW_PAWS,		/* timestamp */
};

/*
 * Would TCP accept this segment of @payload bytes on a connection?  The
 * tests of tcp_validate_incoming() that decide it: sequence window, PAWS,
 * no RST or SYN, and an ACK between what is outstanding and what was sent
 * (tcp_ack()).  Returns CSIG_ACCEPTED or the test that failed.
 */
static inline int csig_tcp_accepts(const struct csig_tcp_view *v, const struct tcphdr *th,
				   unsigned int payload)
{
	u32 seq = ntohl(th->seq), end = seq + payload + th->fin;
	u32 ack = ntohl(th->ack_seq), tsval;
	s32 win = v->rcv_wup + v->rcv_wnd - v->rcv_nxt;

	if (th->rst || th->syn || !th->ack)
		return CSIG_OOW_SEQ;
	/* tcp_sequence(), tcp_receive_window() on the same rcv_nxt */
	if (win < 0)
		win = 0;
	if (before(end, v->rcv_wup) || after(seq, v->rcv_nxt + (u32)win))
		return CSIG_OOW_SEQ;
	/*
	 * tcp_ack(): not beyond what was sent, not older than a window.  The
	 * bound is write_seq, not snd_nxt: over a software path the ACK of a
	 * segment can arrive before its sender has advanced snd_nxt, and TCP
	 * then checks it from the socket's backlog, later.
	 */
	if (after(ack, v->write_seq) || before(ack, v->snd_una - v->max_window))
		return CSIG_OOW_ACK;
	/* PAWS (tcp_paws_check()): at most TCP_PAWS_WINDOW older */
	if (v->ts_recent_stamp &&
	    (csig_tcpopt_scan((const u8 *)(th + 1), th->doff * 4 - sizeof(*th),
			      &tsval) & CSIG_SCAN_TS) &&
	    (s32)(v->ts_recent - tsval) > TCP_PAWS_WINDOW)
		return CSIG_OOW_PAWS;
	return CSIG_ACCEPTED;
}

/*
 * Would TCP accept this segment for a request socket, completing the
 * handshake (tcp_check_req())?  An ACK of the SYN-ACK (sequence number
 * @snt_isn), starting after the SYN (@rcv_isn) within the window offered
 * (@rcv_wnd), by tcp_in_window()'s rule for its @payload bytes: one that
 * starts at the window's right edge only if it is empty (no data, no
 * FIN) or the window is (it starts at rcv_nxt).
 */
static inline bool csig_req_accepts(u32 snt_isn, u32 rcv_isn, u32 rcv_wnd,
				    const struct tcphdr *th, unsigned int payload)
{
	u32 seq = ntohl(th->seq), s_win = rcv_isn + 1, e_win = s_win + rcv_wnd;

	if (th->syn || th->rst || !th->ack || ntohl(th->ack_seq) != snt_isn + 1 ||
	    before(seq, s_win) || after(seq, e_win))
		return false;
	return seq == s_win || seq != e_win || (!payload && !th->fin);
}

/* Is this segment in a timewait socket's window (@rcv_nxt, @rcv_wnd)? */
static inline bool csig_tw_accepts(u32 rcv_nxt, u32 rcv_wnd, const struct tcphdr *th)
{
	u32 seq = ntohl(th->seq);

	return !before(seq, rcv_nxt) && !after(seq, rcv_nxt + rcv_wnd);
}

/*
 * Does @ack acknowledge a SYN_SENT socket's SYN
 * (tcp_rcv_synsent_state_process())?  With write_seq for snd_nxt: over a
 * software path the SYN-ACK can arrive inside tcp_connect(), before it
 * advanced snd_nxt past the SYN (TCP checks it later, from the socket's
 * backlog).
 */
static inline bool csig_syn_acked(u32 snd_una, u32 write_seq, u32 ack)
{
	return after(ack, snd_una) && !after(ack, write_seq);
}

#endif /* _TCP_CSIG_OPT_PKT_H */
