/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fuzz_csig_skb.c and test_csig_skb.c run tcp_csig_opt_pkt.h's code
 * on, and what they check it against: frames built byte by byte, the
 * checksums computed here from the RFCs' definitions (16-bit big-endian
 * words, nothing of kskb.h's or the kernel's helpers), and the kernel's
 * acceptance rules transcribed from net/ipv4/tcp_input.c and
 * tcp_minisocks.c (6.1 and 6.12 agree on them), not from the module.
 *
 * Each ref_check_*() runs one of the module's functions on a frame and
 * returns NULL, or what went wrong.
 */
#ifndef _SELFTESTS_UNIT_CSIG_SKB_REF_H
#define _SELFTESTS_UNIT_CSIG_SKB_REF_H

#include "kskb.h"
#include "../../tcp_csig_opt_pkt.h"

/* a segment's bytes can reach 60 + 60 + 2000, and a frame's */
#define REF_PKT_MAX	4096

/* checksums, independently: big-endian 16-bit words, end-around carry */
static inline __u32 ref_sum(const __u8 *p, unsigned int n, __u32 s)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		s += (__u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (__u32)p[n - 1] << 8;
	return s;
}

static inline __u16 ref_fold(__u32 s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* A sum of big-endian words as the host's csum_partial() has it. */
static inline __u16 ref_host16(__u16 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u16)(v >> 8 | v << 8);
#else
	return v;
#endif
}

/* one's complement equality: 0 and 0xffff are both zero */
static inline int ref_csum_eq(__u32 a, __u32 b)
{
	__u16 x = ref_fold(a), y = ref_fold(b);

	return x == y || (x % 0xffff == 0 && y % 0xffff == 0);
}

static inline __u16 ref_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 ref_get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static inline void ref_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void ref_put32(__u8 *p, __u32 v)
{
	ref_put16(p, v >> 16);
	ref_put16(p + 2, v);
}

/*
 * Does the TCP segment @tcp of @len bytes verify, with its IP header @ip
 * (RFC 793's pseudo-header for IPv4, RFC 8200's for IPv6)?
 */
static inline int ref_tcp_csum_ok(const __u8 *ip, int v6, const __u8 *tcp, unsigned int len)
{
	__u32 s = ref_sum(tcp, len, 0);

	if (v6) {
		s = ref_sum(ip + 8, 32, s);	/* source and destination */
		s += len >> 16;
		s += len & 0xffff;
	} else {
		s = ref_sum(ip + 12, 8, s);
		s += len;
	}
	s += IPPROTO_TCP;
	return ref_fold(s) == 0xffff;
}

/* A small generator for the bytes nothing is checked on. */
static inline __u32 ref_rand(__u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * TCP options as TCP and others write them, @len bytes, none of them
 * ours and no end-of-list: NOPs, MSS, window scale, SACK permitted,
 * timestamps, SACK blocks, another experiment's kind 253.
 */
static inline void ref_tcp_opts(__u8 *p, unsigned int len, __u32 *rnd)
{
	unsigned int i = 0, k, n;

	while (i < len) {
		unsigned int left = len - i;

		switch (ref_rand(rnd) % 7) {
		case 1:
			n = 4;
			k = 2;		/* MSS */
			break;
		case 2:
			n = 3;
			k = 3;		/* window scale */
			break;
		case 3:
			n = 2;
			k = 4;		/* SACK permitted */
			break;
		case 4:
			n = 10;
			k = 8;		/* timestamps */
			break;
		case 5:
			n = 2 + 8 * (1 + ref_rand(rnd) % 4);
			k = 5;		/* SACK */
			break;
		case 6:
			n = 4 + ref_rand(rnd) % 8;
			k = 253;	/* another experiment's */
			break;
		default:
			n = 1;
			k = 1;		/* NOP */
		}
		if (n > left) {
			n = 1;
			k = 1;
		}
		p[i] = k;
		if (n > 1)
			p[i + 1] = n;
		for (k = 2; k < n; k++)
			p[i + k] = ref_rand(rnd);
		if (p[i] == 253 && n >= 4 && ref_get16(p + i + 2) == CSIG_OPT_EXID)
			p[i + 2] ^= 0x80;
		i += n;
	}
}

/* How an outgoing segment is built. */
struct ref_seg {
	int	v6;
	int	proto;		/* skb->protocol set (else 0: the version says) */
	int	partial;	/* CHECKSUM_PARTIAL, else CHECKSUM_NONE */
	int	cloned;
	unsigned int ihl;	/* IPv4: 5..15 */
	unsigned int doff;	/* 5..15 */
	unsigned int payload;
	unsigned int headroom;
	unsigned int linear;	/* bytes in the head: the headers at least */
	__u32	seed;		/* addresses, ports, options, payload */
};

/* The segment's bytes into @pkt; returns its length. */
static inline unsigned int ref_build_seg(const struct ref_seg *s, __u8 *pkt)
{
	unsigned int nh = s->v6 ? 40 : s->ihl * 4, i, len;
	__u32 rnd = s->seed | 1;
	__u8 *th;

	len = nh + s->doff * 4 + s->payload;
	for (i = 0; i < len; i++)
		pkt[i] = ref_rand(&rnd);
	if (s->v6) {
		pkt[0] = 0x60 | (pkt[0] & 0x0f);
		ref_put16(pkt + 4, len - 40);
		pkt[6] = IPPROTO_TCP;
	} else {
		pkt[0] = 0x40 | s->ihl;
		ref_put16(pkt + 2, len);
		pkt[6] &= 0x40;		/* DF or nothing: not a fragment */
		pkt[7] = 0;
		pkt[9] = IPPROTO_TCP;
		memset(pkt + 20, 1, nh - 20);	/* IP options: NOPs */
		ref_put16(pkt + 10, 0);
		ref_put16(pkt + 10, ~ref_fold(ref_sum(pkt, nh, 0)));
	}
	th = pkt + nh;
	th[12] = s->doff << 4 | (th[12] & 0x0f);
	ref_tcp_opts(th + 20, s->doff * 4 - 20, &rnd);
	return len;
}

/* The skb TCP would hand LOCAL_OUT for @pkt of @len bytes. */
static inline struct sk_buff *ref_seg_skb(const struct ref_seg *s, const __u8 *pkt,
					  unsigned int len)
{
	struct sk_buff *skb = kskb_alloc(s->headroom, pkt, s->linear, len);
	unsigned int nh = s->v6 ? 40 : s->ihl * 4;

	skb->protocol = s->proto ? htons(s->v6 ? ETH_P_IPV6 : ETH_P_IP) : 0;
	skb->cloned = s->cloned;
	skb_set_transport_header(skb, nh);
	if (s->partial) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb->transport_header;
		skb->csum_offset = offsetof(struct tcphdr, check);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
	}
	return skb;
}

/*
 * csig_tcp_of() on a segment at LOCAL_IN or LOCAL_OUT, whose IP header is
 * linear as IP left it (@pkt, @len bytes, @linear in the head, skb->data
 * at the network header; @proto: skb->protocol): where the TCP header is
 * and how long, from the header's own fields, and the payload's length
 * (csig_seg_payload()).
 */
static inline const char *ref_check_tcp_of(const __u8 *pkt, unsigned int len,
					   unsigned int linear, unsigned int headroom,
					   __be16 proto)
{
	static __u8 copy[REF_PKT_MAX];
	unsigned int nh = 0, thlen = 0, l3, payload, got_nh = ~0U;
	struct sk_buff *skb;
	struct tcphdr *th;
	int v6, tcp = 0;

	v6 = proto == htons(ETH_P_IPV6) ||
	     (proto != htons(ETH_P_IP) && pkt[0] >> 4 == 6);
	if (v6 && pkt[6] == IPPROTO_TCP)
		nh = 40;
	if (!v6 && pkt[9] == IPPROTO_TCP && !(ref_get16(pkt + 6) & 0x3fff) &&
	    (pkt[0] & 0x0f) >= 5)
		nh = (pkt[0] & 0x0f) * 4;
	if (nh && len >= nh + 20) {
		thlen = (pkt[nh + 12] >> 4) * 4;
		tcp = thlen >= 20 && len >= nh + thlen;
	}

	skb = kskb_alloc(headroom, pkt, linear, len);
	skb->protocol = proto;
	th = csig_tcp_of(skb, &got_nh);
	if (!th != !tcp) {
		kskb_free(skb);
		return tcp ? "csig_tcp_of() found no TCP header in a segment" :
			     "csig_tcp_of() found a TCP header where there is none";
	}
	kskb_copy(skb, copy);
	if (skb->len != len || memcmp(copy, pkt, len)) {
		kskb_free(skb);
		return "csig_tcp_of() changed the segment";
	}
	if (!th) {
		kskb_free(skb);
		return NULL;
	}
	if (got_nh != nh || (__u8 *)th != skb->data + nh ||
	    skb_transport_offset(skb) != (int)nh) {
		kskb_free(skb);
		return "csig_tcp_of(): the TCP header is not after the IP header";
	}
	if (skb_headlen(skb) < nh + thlen) {
		kskb_free(skb);
		return "csig_tcp_of(): the TCP header is not linear";
	}
	l3 = v6 ? 40 + ref_get16(pkt + 4) : ref_get16(pkt + 2);
	payload = csig_seg_payload(skb, th, got_nh);
	kskb_free(skb);
	if (payload != (l3 > nh + thlen ? l3 - nh - thlen : 0))
		return "csig_seg_payload() is not the IP length less the headers";
	return NULL;
}

/*
 * csig_append_opt() of @opt (@olen bytes) to the segment @s (@pkt, @len
 * bytes), with the option's @n samples @sm when it is csig_opt_build()'s
 * (@n < 0: other bytes).  After it the segment must be the one it was
 * with the option at the end of its TCP header: its bytes, its lengths,
 * both checksums, and our parser must find the option.  A failure must
 * leave it as it was.  @fail: a reallocation may fail.
 */
static inline const char *ref_check_append(const struct ref_seg *s, const __u8 *pkt,
					   unsigned int len, const __u8 *opt,
					   unsigned int olen, int n,
					   const struct csig_sample *sm, int fail)
{
	static __u8 exp[REF_PKT_MAX], got[REF_PKT_MAX];
	unsigned int nh = s->v6 ? 40 : s->ihl * 4, hl = nh + s->doff * 4, i;
	struct csig_sample found[CSIG_OPT_MAX_SAMPLES];
	const char *err = NULL;
	struct sk_buff *skb;
	unsigned int got_nh;
	struct tcphdr *th;
	__u8 *tcp;
	int r, cs;

	skb = ref_seg_skb(s, pkt, len);
	th = csig_tcp_of(skb, &got_nh);
	if (!th || got_nh != nh) {
		kskb_free(skb);
		return "csig_tcp_of() did not find the segment's TCP header";
	}
	kskb_fail_after = fail;
	r = csig_append_opt(skb, nh, opt, olen);
	kskb_fail_after = 0;
	kskb_copy(skb, got);
	if (s->doff * 4 + olen > 60 || r) {
		int want = s->doff * 4 + olen > 60 ? -ENOSPC : -ENOMEM;

		if (r != want || (r == -ENOMEM && !fail))
			err = "csig_append_opt() failed, or did not, against its length check";
		else if (skb->len != len || memcmp(got, pkt, len))
			err = "csig_append_opt() failed and changed the segment";
		kskb_free(skb);
		return err;
	}

	/* the segment as it must be: the option after the TCP header */
	memcpy(exp, pkt, hl);
	memcpy(exp + hl, opt, olen);
	memcpy(exp + hl + olen, pkt + hl, len - hl);
	if (s->v6)
		ref_put16(exp + 4, ref_get16(exp + 4) + olen);
	else
		ref_put16(exp + 2, ref_get16(exp + 2) + olen);
	exp[nh + 12] = (s->doff + olen / 4) << 4 | (exp[nh + 12] & 0x0f);
	if (skb->len != len + olen || skb_network_offset(skb) != 0 ||
	    skb_transport_offset(skb) != (int)nh) {
		err = "csig_append_opt(): lengths or header offsets wrong";
		goto out;
	}
	for (i = 0; i < len + olen; i++) {
		if (!s->v6 && (i == 10 || i == 11))
			continue;		/* IP checksum */
		if (i == nh + 16 || i == nh + 17)
			continue;		/* TCP checksum */
		if (got[i] != exp[i]) {
			err = "csig_append_opt(): the segment's bytes are not the option added";
			goto out;
		}
	}
	if (!s->v6 && ref_fold(ref_sum(got, nh, 0)) != 0xffff) {
		err = "csig_append_opt(): the IP header checksum does not verify";
		goto out;
	}
	tcp = got + nh;
	if (s->partial) {
		/* what the device does from csum_start */
		cs = skb_checksum_start_offset(skb);
		if (skb->ip_summed != CHECKSUM_PARTIAL || cs != (int)nh ||
		    skb->csum_offset != offsetof(struct tcphdr, check)) {
			err = "csig_append_opt(): csum_start or csum_offset wrong";
			goto out;
		}
		ref_put16(tcp + 16, ~ref_fold(ref_sum(tcp, len + olen - nh, 0)));
	} else if (skb->ip_summed != CHECKSUM_NONE) {
		err = "csig_append_opt(): ip_summed changed";
		goto out;
	}
	if (!ref_tcp_csum_ok(got, s->v6, tcp, len + olen - nh)) {
		err = s->partial ? "csig_append_opt(): the device's checksum does not verify" :
				   "csig_append_opt(): the TCP checksum does not verify";
		goto out;
	}
	if (n >= 0) {
		r = csig_opt_find(tcp + 20, (tcp[12] >> 4) * 4 - 20, found);
		if (r != n || memcmp(found, sm, n * sizeof(*sm)))
			err = "csig_opt_find() does not find the option appended";
	}
out:
	kskb_free(skb);
	return err;
}

/* Samples as csig_opt_find() returns them (its padding zero). */
static inline struct csig_sample ref_sample(unsigned int format, unsigned int type,
					    __u32 s, __u16 lm, int fresh)
{
	struct csig_sample sm;

	memset(&sm, 0, sizeof(sm));
	sm.format = format;
	sm.type = type;
	sm.s = s;
	sm.lm = lm;
	sm.fresh = fresh;
	return sm;
}

/*
 * csig_opt_build() for @room bytes: the most of the @n samples whose
 * option, padded to 4 bytes, fits, or the confirmation alone; our
 * parser must read it back as the samples it says it carries.
 */
static inline const char *ref_check_build(unsigned int room, const struct csig_sample *sm,
					  unsigned int n, int confirm, __u8 *buf,
					  unsigned int *plen, unsigned int *nsent)
{
	struct csig_sample found[CSIG_OPT_MAX_SAMPLES];
	unsigned int k = n, i, want;
	int valid = 1;

	while (k && ((CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * k + 3) & ~3U) > room)
		k--;
	for (i = 0; i < k; i++)
		valid &= csig_sample_valid(&sm[i]);
	if (k)
		want = valid ? (CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * k + 3) & ~3U : 0;
	else
		want = confirm && room >= CSIG_OPT_HDR_LEN ? CSIG_OPT_HDR_LEN : 0;
	*nsent = ~0U;
	*plen = csig_opt_build(buf, room, sm, n, confirm, nsent);
	if (*plen != want)
		return "csig_opt_build(): not the longest option that fits";
	if (!*plen)
		return NULL;
	if (*nsent != k)
		return "csig_opt_build(): not the samples it wrote";
	for (i = 0; i < *plen - (CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * k); i++)
		if (buf[i] != TCPOPT_NOP)
			return "csig_opt_build(): padding is not leading NOPs";
	if (csig_opt_find(buf, *plen, found) != (int)k ||
	    memcmp(found, sm, k * sizeof(*sm)))
		return "csig_opt_build(): our parser does not read the samples back";
	return NULL;
}

/*
 * csig_data_fit(): the room is what leaves both the MSS budget and the
 * MTU respected, and all of it.
 */
static inline const char *ref_check_fit(unsigned int used, unsigned int budget,
					unsigned int ipl, unsigned int mtu)
{
	unsigned int r = csig_data_fit(used, budget, ipl, mtu);

	if (used >= budget || ipl >= mtu)
		return r ? "csig_data_fit(): room where the segment is full" : NULL;
	if ((__u64)used + r > budget || (__u64)ipl + r > mtu)
		return "csig_data_fit(): the room breaks the MSS budget or the MTU";
	if (used + r != budget && ipl + r != mtu)
		return "csig_data_fit(): less room than there is";
	return NULL;
}

/*
 * A tagged frame: @frame (@len bytes from the destination MAC address,
 * @linear of them in the head), as eth_type_trans() and the receive path
 * hand it to the packet handler: skb->data after the TPID, the MAC header
 * @maclen bytes before it, skb->protocol the TPID.  csig_skb_tag() and
 * csig_skb_untag() must take out exactly the tag: the frame after is the
 * frame without it, its checksum (CHECKSUM_COMPLETE) that of what remains.
 */
static inline const char *ref_check_untag(const __u8 *frame, unsigned int len,
					  unsigned int linear, unsigned int headroom,
					  unsigned int maclen, int fmt, __u16 tpid_c,
					  __u16 tpid_e, int summed, int cloned, int fail)
{
	static __u8 exp[REF_PKT_MAX], got[REF_PKT_MAX];
	unsigned int tlen = fmt ? CSIG_EXPANDED_LEN : CSIG_COMPACT_LEN;
	struct csig_fields fl, rfl;
	const char *err = NULL;
	struct sk_buff *skb;
	__u16 in = 0, rin = 0, inner;
	int r, rr, ok;

	if (len < maclen || linear < maclen)
		return "ref_check_untag(): no MAC header";
	/* what the tag must be: include/csig.h's reading of the same bytes */
	inner = len >= maclen + tlen ? ref_get16(frame + maclen + tlen - 2) : 0;
	ok = maclen == ETH_HLEN && len >= maclen + tlen && inner >= 0x0600 &&
	     inner != tpid_c && inner != tpid_e;
	rr = csig_tag_rx(frame + maclen, len - maclen, fmt, tpid_c, tpid_e, &rfl, &rin);

	skb = kskb_alloc(headroom, frame, linear, len);
	skb->data += maclen;
	skb->len -= maclen;
	skb_reset_network_header(skb);
	skb_reset_mac_len(skb);
	skb->protocol = htons(fmt ? tpid_e : tpid_c);
	skb->ip_summed = summed;
	skb->cloned = cloned;
	if (summed == CHECKSUM_COMPLETE)
		skb->csum = ref_host16(ref_fold(ref_sum(frame + maclen, len - maclen, 0)));
	r = csig_skb_tag(skb, fmt, tpid_c, tpid_e, &fl, &in);
	if (ok ? r != (int)tlen || rr != r || in != inner || memcmp(&fl, &rfl, sizeof(fl)) :
		 r >= 0) {
		err = "csig_skb_tag(): not the tag the frame carries";
		goto out;
	}
	if (!ok)
		goto out;
	kskb_fail_after = fail;
	r = csig_skb_untag(skb, tlen, htons(in));
	kskb_fail_after = 0;
	if (r) {
		kskb_copy(skb, got);
		if (r != -ENOMEM || !fail || skb->len != len - maclen ||
		    memcmp(got, frame + maclen, len - maclen) ||
		    memcmp(skb_mac_header(skb), frame, maclen))
			err = "csig_skb_untag() failed and changed the frame";
		goto out;
	}
	/* the frame without its tag: the MAC addresses, then from the EtherType */
	memcpy(exp, frame, 2 * ETH_ALEN);
	memcpy(exp + 2 * ETH_ALEN, frame + ETH_HLEN + tlen - 2, len - ETH_HLEN - tlen + 2);
	if (skb->len != len - ETH_HLEN - tlen ||
	    skb_mac_header(skb) + ETH_HLEN != skb->data ||
	    skb_network_header(skb) != skb->data || skb->mac_len != ETH_HLEN ||
	    skb->protocol != htons(inner)) {
		err = "csig_skb_untag(): the frame's headers or length are wrong";
		goto out;
	}
	memcpy(got, skb_mac_header(skb), ETH_HLEN);
	kskb_copy(skb, got + ETH_HLEN);
	if (memcmp(got, exp, len - tlen)) {
		err = "csig_skb_untag(): the frame is not the frame without its tag";
		goto out;
	}
	if (summed == CHECKSUM_COMPLETE &&
	    !ref_csum_eq(ref_host16(ref_fold(skb->csum)), ref_sum(got + ETH_HLEN, skb->len, 0)))
		err = "csig_skb_untag(): CHECKSUM_COMPLETE no longer the data's";
	else if (skb->ip_summed != summed)
		err = "csig_skb_untag(): ip_summed changed";
out:
	kskb_free(skb);
	return err;
}

/*
 * The kernel's acceptance of a segment on an established connection, as
 * tcp_rcv_established()'s slow path and tcp_validate_incoming() decide
 * it, over a model of the socket.  Segments without ACK, with SYN (a
 * challenge ACK) or RST (handled as a reset, not taken) are not taken.
 */
struct ref_sock {
	__u32	rcv_nxt, rcv_wup, rcv_wnd;
	__u32	snd_una, snd_nxt, max_window;
	__u32	ts_recent;
	int	ts_recent_stamp;	/* timestamps in use */
};

struct ref_segh {
	__u32	seq, ack;
	unsigned int payload;
	int	syn, fin, rst, ackf;
	int	saw_tstamp;
	__u32	tsval;
};

/* include/net/tcp.h */
static inline __u32 ref_tcp_receive_window(const struct ref_sock *tp)
{
	__s32 win = tp->rcv_wup + tp->rcv_wnd - tp->rcv_nxt;

	if (win < 0)
		win = 0;
	return (__u32)win;
}

/* net/ipv4/tcp_input.c: tcp_sequence() */
static inline int ref_tcp_sequence(const struct ref_sock *tp, __u32 seq, __u32 end_seq)
{
	return !before(end_seq, tp->rcv_wup) &&
	       !after(seq, tp->rcv_nxt + ref_tcp_receive_window(tp));
}

/* tcp_ack(): the drops before any processing */
static inline int ref_tcp_ack_ok(const struct ref_sock *tp, __u32 ack)
{
	if (before(ack, tp->snd_una) && before(ack, tp->snd_una - tp->max_window))
		return 0;	/* older than a window: challenge ACK */
	if (after(ack, tp->snd_nxt))
		return 0;	/* ACK of data not sent */
	return 1;
}

/* tcp_paws_check(), TCP_PAWS_WINDOW, with its zero exemption; not aged */
static inline int ref_tcp_paws_ok(const struct ref_sock *tp, const struct ref_segh *h)
{
	if (!tp->ts_recent_stamp || !h->saw_tstamp)
		return 1;
	if ((__s32)(tp->ts_recent - h->tsval) <= TCP_PAWS_WINDOW)
		return 1;
	return !tp->ts_recent;
}

/*
 * tcp_disordered_ack()'s first two tests: a pure duplicate ACK at
 * rcv_nxt, which TCP may exempt from PAWS (its others need the window
 * and the RTO, which the module does not read).
 */
static inline int ref_tcp_maybe_disordered(const struct ref_sock *tp,
					   const struct ref_segh *h)
{
	__u32 end = h->seq + h->payload + h->fin;

	return h->ackf && h->seq == end && h->seq == tp->rcv_nxt &&
	       h->ack == tp->snd_una;
}

/*
 * tcp_check_req() on a request socket (rcv_nxt: rcv_isn + 1): in order,
 * the ACK number, tcp_in_window() from rcv_nxt over the window offered,
 * RST or SYN, and an ACK.  PAWS against the request's ts_recent is left
 * out, as the module has no timestamp of it.
 */
static inline int ref_tcp_in_window(__u32 seq, __u32 end_seq, __u32 s_win, __u32 e_win)
{
	if (seq == s_win)
		return 1;
	if (after(end_seq, s_win) && before(seq, e_win))
		return 1;
	return seq == e_win && seq == end_seq;
}

static inline int ref_tcp_check_req(__u32 snt_isn, __u32 rcv_isn, __u32 rcv_wnd,
				    const struct ref_segh *h)
{
	__u32 end = h->seq + h->payload + h->syn + h->fin;

	if (h->ackf && h->ack != snt_isn + 1)
		return 0;
	if (!ref_tcp_in_window(h->seq, end, rcv_isn + 1, rcv_isn + 1 + rcv_wnd))
		return 0;
	if (h->rst || h->syn)
		return 0;
	return h->ackf;
}

/* A TCP header of @h with @opts (@olen bytes, a multiple of 4), into @th. */
static inline void ref_build_th(__u8 *th, const struct ref_segh *h, const __u8 *opts,
				unsigned int olen)
{
	memset(th, 0, 20);
	ref_put32(th + 4, h->seq);
	ref_put32(th + 8, h->ack);
	th[12] = (20 + olen) / 4 << 4;
	th[13] = (h->fin ? 0x01 : 0) | (h->syn ? 0x02 : 0) | (h->rst ? 0x04 : 0) |
		 (h->ackf ? 0x10 : 0);
	memcpy(th + 20, opts, olen);
}

/*
 * csig_tcp_accepts(), csig_req_accepts(), csig_tw_accepts() and
 * csig_syn_acked() on the TCP header @th (its own exact-size buffer) of
 * @h, against the kernel's rules:
 *
 *  - an established connection: the module takes a segment only where
 *    TCP does (tcp_sequence(), tcp_ack()'s bounds, PAWS: tp's snd_nxt is
 *    write_seq, as documented in csig_tcp_accepts()), and does take every
 *    one that passes them except where TCP exempts it from PAWS (a
 *    ts_recent of 0, a disordered ACK, 24 days without one), which the
 *    module does not; the test it names failed in TCP's rules;
 *  - a request socket: taken only where tcp_check_req() completes the
 *    handshake, and every segment that starts in the window and
 *    completes it is taken;
 *  - a timewait socket's RST: taken only where tcp_in_window() takes it,
 *    and wherever it does but 2^31 after rcv_nxt, where before() and
 *    after() are both true and tcp_in_window() takes it (as it does a
 *    request socket's segment there);
 *  - a SYN_SENT socket's SYN-ACK: exactly tcp_rcv_synsent_state_process()'s
 *    test.
 */
static inline const char *ref_check_accept(const struct ref_sock *tp, const __u8 *th,
					   const struct ref_segh *h, __u32 snt_isn,
					   __u32 rcv_isn, __u32 req_wnd)
{
	const struct tcphdr *t = (const struct tcphdr *)th;
	struct csig_tcp_view v = {
		.rcv_nxt = tp->rcv_nxt,
		.rcv_wup = tp->rcv_wup,
		.rcv_wnd = tp->rcv_wnd,
		.snd_una = tp->snd_una,
		.write_seq = tp->snd_nxt,
		.max_window = tp->max_window,
		.ts_recent = tp->ts_recent,
		.ts_recent_stamp = tp->ts_recent_stamp,
	};
	__u32 end = h->seq + h->payload + h->fin;
	int flags, seq, ack, paws, strict, r, req, kreq, tw, ktw;

	r = csig_tcp_accepts(&v, t, h->payload);
	flags = h->ackf && !h->rst && !h->syn;
	seq = ref_tcp_sequence(tp, h->seq, end);
	ack = ref_tcp_ack_ok(tp, h->ack);
	paws = ref_tcp_paws_ok(tp, h) || ref_tcp_maybe_disordered(tp, h);
	strict = !tp->ts_recent_stamp || !h->saw_tstamp ||
		 (__s32)(tp->ts_recent - h->tsval) <= TCP_PAWS_WINDOW;
	if (r == CSIG_ACCEPTED && !(flags && seq && ack && paws))
		return "csig_tcp_accepts() takes a segment TCP drops";
	if (r != CSIG_ACCEPTED && flags && seq && ack && strict)
		return "csig_tcp_accepts() drops a segment TCP takes";
	if ((r == CSIG_OOW_SEQ && flags && seq) ||
	    (r == CSIG_OOW_ACK && !(flags && seq && !ack)) ||
	    (r == CSIG_OOW_PAWS && !(flags && seq && ack && !strict)))
		return "csig_tcp_accepts(): the test it names did not fail";
	if (r < CSIG_ACCEPTED || r > CSIG_OOW_PAWS)
		return "csig_tcp_accepts(): no such result";

	req = csig_req_accepts(snt_isn, rcv_isn, req_wnd, t, h->payload);
	kreq = ref_tcp_check_req(snt_isn, rcv_isn, req_wnd, h);
	if (req && !kreq)
		return "csig_req_accepts() takes a segment tcp_check_req() drops";
	if (!req && kreq && !before(h->seq, rcv_isn + 1) &&
	    h->seq - (rcv_isn + 1) != 0x80000000)
		return "csig_req_accepts() drops a segment tcp_check_req() takes";

	tw = csig_tw_accepts(tp->rcv_nxt, req_wnd, t);
	ktw = ref_tcp_in_window(h->seq, h->seq, tp->rcv_nxt, tp->rcv_nxt + req_wnd);
	if (tw && !ktw)
		return "csig_tw_accepts() takes a RST tcp_in_window() does not";
	if (!tw && ktw && h->seq - tp->rcv_nxt != 0x80000000)
		return "csig_tw_accepts() drops a RST tcp_in_window() takes";
	if (csig_syn_acked(tp->snd_una, tp->snd_nxt, h->ack) ==
	    (!after(h->ack, tp->snd_una) || after(h->ack, tp->snd_nxt)))
		return "csig_syn_acked() is not tcp_rcv_synsent_state_process()'s test";
	return NULL;
}

#endif /* _SELFTESTS_UNIT_CSIG_SKB_REF_H */
