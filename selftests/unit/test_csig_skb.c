// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tcp_csig_opt's own packet handling (tcp_csig_opt_pkt.h,
 * the module's code) over the userspace skb of kskb.h: hand-made frames
 * and sockets at the edges, each checked by csig_skb_ref.h and by the
 * values expected here.  fuzz_csig_skb.c runs the same checks on frames
 * built from its input.
 */
#include "csig_skb_ref.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static __u8 pkt[REF_PKT_MAX];

static struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];

static void samples(void)
{
	int i;

	for (i = 0; i < CSIG_OPT_MAX_SAMPLES; i++)
		sm[i] = ref_sample(i & 1, 7 - i, 3 + i, 5 + i, i & 1);
}

/* build @s, then its option of the first @n samples for @room, appended */
static void append(const char *what, struct ref_seg *s, unsigned int room, int n,
		   int confirm, int fail, unsigned int want_len)
{
	__u8 buf[CSIG_OPT_MAX_LEN + 4];
	unsigned int len = ref_build_seg(s, pkt), plen = 0, nsent = 0;
	const char *err;

	if (!s->linear)
		s->linear = len;
	err = ref_check_build(room, sm, n, confirm, buf, &plen, &nsent);
	if (!err)
		err = ref_check_append(s, pkt, len, buf, plen, nsent, sm, fail);
	if (!tap_ok(!err && plen == want_len, "%s", what))
		tap_diag("%s, option of %u bytes, want %u", err ? err : "checks pass",
			 plen, want_len);
}

static void test_append(void)
{
	struct ref_seg s;
	__u8 opt[60];
	unsigned int len;

	samples();
	s = (struct ref_seg){ .ihl = 5, .doff = 8, .headroom = 64, .partial = 1,
			      .proto = 1, .seed = 1 };
	append("IPv4 pure ACK, partial: the confirmation", &s, 28, 0, 1, 0, 4);
	s = (struct ref_seg){ .ihl = 5, .doff = 8, .headroom = 64, .partial = 1,
			      .proto = 1, .seed = 2 };
	append("IPv4 pure ACK with timestamps: four samples fill the 28 bytes", &s,
	       28, 6, 0, 0, 28);
	s = (struct ref_seg){ .v6 = 1, .doff = 5, .payload = 1000, .headroom = 0,
			      .linear = 60 + 100, .partial = 1, .cloned = 1, .seed = 3 };
	append("IPv6 data in fragments, shared, no headroom: two samples, moved head",
	       &s, 40, 2, 0, 0, 16);
	s = (struct ref_seg){ .ihl = 8, .doff = 5, .payload = 33, .headroom = 8,
			      .seed = 4 };
	append("IPv4 with IP options, full checksum, data: one sample, padded", &s, 40,
	       1, 0, 0, 12);
	s = (struct ref_seg){ .v6 = 1, .doff = 7, .headroom = 32, .seed = 5 };
	append("IPv6 pure ACK, full checksum, protocol unset: three samples", &s, 32, 3,
	       0, 0, 24);
	s = (struct ref_seg){ .ihl = 5, .doff = 14, .headroom = 64, .partial = 1,
			      .seed = 6 };
	append("a TCP header of 56 bytes takes the 4-byte confirmation: 60", &s, 4, 0,
	       1, 0, 4);

	/* the length check, from both sides, and failures */
	memset(opt, 1, sizeof(opt));
	s = (struct ref_seg){ .ihl = 5, .doff = 15, .headroom = 64, .partial = 1,
			      .seed = 7 };
	len = ref_build_seg(&s, pkt);
	s.linear = len;
	tap_ok(!ref_check_append(&s, pkt, len, opt, 4, -1, NULL, 0),
	       "60 bytes of TCP header and 4 more: -ENOSPC, the segment unchanged");
	s.doff = 14;
	len = ref_build_seg(&s, pkt);
	s.linear = len;
	tap_ok(!ref_check_append(&s, pkt, len, opt, 8, -1, NULL, 0),
	       "56 bytes and 8 more: -ENOSPC");
	s.doff = 5;
	len = ref_build_seg(&s, pkt);
	s.linear = len;
	tap_ok(!ref_check_append(&s, pkt, len, opt, 40, -1, NULL, 0),
	       "20 bytes and 40 NOPs: 60, appended");
	s = (struct ref_seg){ .ihl = 5, .doff = 8, .headroom = 0, .partial = 1,
			      .seed = 8 };
	append("no headroom and the reallocation fails: -ENOMEM, the segment unchanged",
	       &s, 28, 2, 0, 1, 16);
}

static void test_build(void)
{
	__u8 buf[CSIG_OPT_MAX_LEN + 4];
	static const struct {
		unsigned int room, n;
		int confirm;
		unsigned int len, nsent;
	} c[] = {
		{ 40, 6, 0, 40, 6 },	/* all six: 4 + 36 */
		{ 39, 6, 0, 36, 5 },	/* five, padded: 4 + 30 + 2 */
		{ 28, 6, 0, 28, 4 },
		{ 27, 6, 1, 24, 3 },
		{ 11, 2, 1, 4, 0 },	/* no sample fits: the confirmation */
		{ 12, 2, 1, 12, 1 },
		{ 4, 0, 1, 4, 0 },
		{ 3, 0, 1, 0, 0 },
		{ 40, 0, 0, 0, 0 },
	};
	unsigned int i, plen, nsent;
	const char *err;

	samples();
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		err = ref_check_build(c[i].room, sm, c[i].n, c[i].confirm, buf, &plen,
				      &nsent);
		if (!tap_ok(!err && plen == c[i].len && (!plen || nsent == c[i].nsent),
			    "csig_opt_build(): %u samples in %u bytes: %u bytes, %u samples",
			    c[i].n, c[i].room, c[i].len, c[i].nsent))
			tap_diag("%s; got %u bytes, %u samples", err ? err : "checks pass",
				 plen, nsent);
	}
	sm[1].s = csig_s_max(sm[1].format) + 1;
	err = ref_check_build(40, sm, 3, 1, buf, &plen, &nsent);
	tap_ok(!err && !plen, "csig_opt_build(): a sample out of range: no option");
}

static void test_fit(void)
{
	tap_eq_u64(csig_data_fit(120, 1480, 140, 1500), 1360,
		   "csig_data_fit(): the MTU is the bound");
	tap_eq_u64(csig_data_fit(1460, 1480, 1480, 1500), 20,
		   "csig_data_fit(): the MSS budget is the bound");
	tap_eq_u64(csig_data_fit(1480, 1480, 1400, 1500), 0,
		   "csig_data_fit(): a full-sized segment: none");
	tap_eq_u64(csig_data_fit(100, 1480, 1500, 1500), 0,
		   "csig_data_fit(): at the MTU: none");
	tap_ok(!ref_check_fit(1000, 999, 0, 1500) && !ref_check_fit(0, 0, 0, 0) &&
	       !ref_check_fit(1, ~0U, 2, ~0U), "csig_data_fit(): the edges");
}

/* an IPv4 or IPv6 TCP segment with @doff and @payload, for csig_tcp_of() */
static unsigned int seg(int v6, unsigned int doff, unsigned int payload)
{
	struct ref_seg s = { .v6 = v6, .ihl = 5, .doff = doff, .payload = payload,
			     .seed = 9 };

	return ref_build_seg(&s, pkt);
}

static void tcp_of(const char *what, unsigned int len, unsigned int linear,
		   __be16 proto)
{
	const char *err = ref_check_tcp_of(pkt, len, linear, 0, proto);

	if (!tap_ok(!err, "%s", what))
		tap_diag("%s", err);
}

static struct sk_buff *cur;

/* csig_tcp_of() on a new skb of the segment (cur), the last one freed */
static struct tcphdr *tcp_of_got(unsigned int len, unsigned int linear, __be16 proto,
				 unsigned int *nh)
{
	if (cur)
		kskb_free(cur);
	cur = kskb_alloc(0, pkt, linear, len);
	cur->protocol = proto;
	return csig_tcp_of(cur, nh);
}

static void test_tcp_of(void)
{
	__be16 ip = htons(ETH_P_IP), ip6 = htons(ETH_P_IPV6);
	unsigned int len, nh = 0;
	struct tcphdr *th;

	len = seg(0, 8, 100);
	tcp_of("IPv4, options, data in fragments", len, 20, ip);
	th = tcp_of_got(len, 20, ip, &nh);
	tap_ok(th && nh == 20 && th->doff == 8, "IPv4: the TCP header after 20 bytes");
	pkt[6] = 0x20;			/* more fragments */
	tcp_of("IPv4 fragment: none", len, len, ip);
	tap_ok(!tcp_of_got(len, len, ip, &nh), "IPv4 fragment: csig_tcp_of() NULL");
	pkt[6] = 0;
	pkt[0] = 0x44;			/* IHL 4 */
	tap_ok(!tcp_of_got(len, len, ip, &nh), "IPv4 IHL 4: csig_tcp_of() NULL");
	pkt[0] = 0x45;
	pkt[9] = IPPROTO_UDP;
	tap_ok(!tcp_of_got(len, len, ip, &nh), "IPv4 UDP: csig_tcp_of() NULL");
	pkt[9] = IPPROTO_TCP;
	pkt[20 + 12] = 4 << 4;		/* data offset 4 */
	tap_ok(!tcp_of_got(len, len, ip, &nh), "TCP data offset 4: csig_tcp_of() NULL");
	len = seg(0, 15, 0);
	tap_ok(!tcp_of_got(len - 1, len - 1, ip, &nh),
	       "a TCP header cut a byte short: csig_tcp_of() NULL");
	tcp_of("IPv4, a TCP header cut short", len - 1, 20, ip);
	len = seg(1, 5, 10);
	th = tcp_of_got(len, 40, 0, &nh);
	tap_ok(th && nh == 40, "IPv6, protocol unset: the version says");
	tcp_of("IPv6, protocol unset", len, 40, 0);
	pkt[6] = IPPROTO_UDP;
	tap_ok(!tcp_of_got(len, len, ip6, &nh), "IPv6 UDP: csig_tcp_of() NULL");
	pkt[6] = IPPROTO_TCP;
	ref_put16(pkt + 4, 20 + 4);	/* 6 bytes of padding after the payload */
	th = tcp_of_got(len, len, ip6, &nh);
	tap_eq_u64(th ? csig_seg_payload(cur, th, nh) : ~0U, 4,
		   "csig_seg_payload(): the IP length's, not the frame's");
	ref_put16(pkt + 4, 10);		/* shorter than the headers */
	th = tcp_of_got(len, len, ip6, &nh);
	tap_eq_u64(th ? csig_seg_payload(cur, th, nh) : ~0U, 0,
		   "csig_seg_payload(): an IP length short of the headers: 0");
	kskb_free(cur);
	cur = NULL;
}

/* a tagged frame: MAC addresses, TPID, @dlen bytes of tag data, EtherType */
static unsigned int tagged(__u16 tpid, unsigned int dlen, __u16 inner,
			   unsigned int payload)
{
	unsigned int i, len = ETH_HLEN + dlen + 2 + payload;

	for (i = 0; i < len; i++)
		pkt[i] = i * 29 + 7;
	ref_put16(pkt + 12, tpid);
	ref_put16(pkt + ETH_HLEN + dlen, inner);
	return len;
}

static void untag(const char *what, unsigned int len, unsigned int linear,
		  unsigned int maclen, int fmt, int summed, int cloned, int fail)
{
	const char *err = ref_check_untag(pkt, len, linear, 16, maclen, fmt,
					  CSIG_TPID_COMPACT, CSIG_TPID_EXPANDED,
					  summed, cloned, fail);

	if (!tap_ok(!err, "%s", what))
		tap_diag("%s", err);
}

static void test_untag(void)
{
	unsigned int len;
	struct sk_buff *skb;
	struct csig_fields fl;
	__u16 in;

	len = tagged(CSIG_TPID_COMPACT, 2, ETH_P_IP, 100);
	untag("compact tag, CHECKSUM_COMPLETE, payload in fragments", len, 20,
	      ETH_HLEN, 0, CHECKSUM_COMPLETE, 0, 0);
	untag("compact tag, shared: the head copied", len, len, ETH_HLEN, 0,
	      CHECKSUM_NONE, 1, 0);
	untag("compact tag, shared, the copy fails: -ENOMEM, the frame unchanged", len,
	      len, ETH_HLEN, 0, CHECKSUM_COMPLETE, 1, 1);
	len = tagged(CSIG_TPID_EXPANDED, 6, ETH_P_IPV6, 0);
	untag("expanded tag, nothing after it", len, ETH_HLEN, ETH_HLEN, 1,
	      CHECKSUM_COMPLETE, 0, 0);

	skb = kskb_alloc(16, pkt, len, len);
	skb->data += ETH_HLEN;
	skb->len -= ETH_HLEN;
	skb_reset_network_header(skb);
	tap_eq_i64(csig_skb_tag(skb, CSIG_FMT_EXPANDED, CSIG_TPID_COMPACT,
				CSIG_TPID_EXPANDED, &fl, &in), CSIG_EXPANDED_LEN,
		   "csig_skb_tag(): an expanded tag is 8 bytes");
	tap_eq_u64(in, ETH_P_IPV6, "csig_skb_tag(): the EtherType after it");
	kskb_free(skb);

	len = tagged(CSIG_TPID_COMPACT, 2, CSIG_TPID_EXPANDED, 40);
	untag("a nested tag: refused", len, len, ETH_HLEN, 0, CHECKSUM_NONE, 0, 0);
	len = tagged(CSIG_TPID_COMPACT, 2, 0x05dc, 40);
	untag("an 802.3 length for an EtherType: refused", len, len, ETH_HLEN, 0,
	      CHECKSUM_NONE, 0, 0);
	len = tagged(CSIG_TPID_EXPANDED, 6, ETH_P_IP, 0);
	untag("a runt: the expanded tag cut short, refused", len - 1, len - 1,
	      ETH_HLEN, 1, CHECKSUM_NONE, 0, 0);
	len = tagged(CSIG_TPID_COMPACT, 2, ETH_P_IP, 40);
	untag("a MAC header of 18 bytes: refused", len, len, ETH_HLEN + 4, 0,
	      CHECKSUM_NONE, 0, 0);
}

static void accept(const char *what, const struct ref_sock *tp, struct ref_segh *h,
		   int want, int want_req, int want_tw)
{
	__u8 th[60], opts[20] = { 1, 1, 8, 10 };
	unsigned int olen = 0;
	const char *err;
	int r, req, tw;

	if (h->saw_tstamp) {
		ref_put32(opts + 4, h->tsval);
		olen = 12;
	}
	ref_build_th(th, h, opts, olen);
	r = csig_tcp_accepts(&(struct csig_tcp_view){
		.rcv_nxt = tp->rcv_nxt, .rcv_wup = tp->rcv_wup,
		.rcv_wnd = tp->rcv_wnd, .snd_una = tp->snd_una,
		.write_seq = tp->snd_nxt, .max_window = tp->max_window,
		.ts_recent = tp->ts_recent, .ts_recent_stamp = tp->ts_recent_stamp,
	}, (struct tcphdr *)th, h->payload);
	/* the request socket: its SYN at rcv_nxt - 1, its SYN-ACK at snd_una */
	req = csig_req_accepts(tp->snd_una, tp->rcv_nxt - 1, 1000, (struct tcphdr *)th,
			       h->payload);
	tw = csig_tw_accepts(tp->rcv_nxt, 1000, (struct tcphdr *)th);
	err = ref_check_accept(tp, th, h, tp->snd_una, tp->rcv_nxt - 1, 1000);
	if (!tap_ok(!err && r == want && req == want_req && tw == want_tw, "%s", what))
		tap_diag("%s; connection %d (want %d), request %d (%d), timewait %d (%d)",
			 err ? err : "checks pass", r, want, req, want_req, tw, want_tw);
}

static void test_accept(void)
{
	const struct ref_sock tp = {
		.rcv_nxt = 0xfffffc00, .rcv_wup = 0xfffff800, .rcv_wnd = 0x1400,
		.snd_una = 0x7fffff00, .snd_nxt = 0x80000100, .max_window = 0x10000,
		.ts_recent = 1000, .ts_recent_stamp = 1,
	};
	const __u32 win_end = tp.rcv_wup + tp.rcv_wnd;
	struct ref_segh h0 = {
		.seq = tp.rcv_nxt, .ack = tp.snd_una + 1, .ackf = 1,
		.saw_tstamp = 1, .tsval = 1000,
	}, h;

	h = h0;
	accept("an ACK at rcv_nxt; a request's ACK of its SYN-ACK", &tp, &h,
	       CSIG_ACCEPTED, 1, 1);
	h.ack = tp.snd_una;
	accept("a duplicate ACK; not the request's", &tp, &h, CSIG_ACCEPTED, 0, 1);
	h.seq = win_end;
	accept("at the window's end, across 2^32", &tp, &h, CSIG_ACCEPTED, 0, 0);
	h.seq = win_end + 1;
	accept("a byte beyond it", &tp, &h, CSIG_OOW_SEQ, 0, 0);
	h = h0;
	h.seq = tp.rcv_wup - 100;
	h.payload = 99;
	accept("ending before rcv_wup", &tp, &h, CSIG_OOW_SEQ, 0, 0);
	h.payload = 100;
	accept("ending at rcv_wup", &tp, &h, CSIG_ACCEPTED, 0, 0);
	h = h0;
	h.rst = 1;
	accept("RST", &tp, &h, CSIG_OOW_SEQ, 0, 1);
	h = h0;
	h.syn = 1;
	accept("SYN", &tp, &h, CSIG_OOW_SEQ, 0, 1);
	h = h0;
	h.ackf = 0;
	accept("no ACK", &tp, &h, CSIG_OOW_SEQ, 0, 1);
	h = h0;
	h.ack = tp.snd_nxt;
	accept("ACK of all sent, across 2^31", &tp, &h, CSIG_ACCEPTED, 0, 1);
	h.ack = tp.snd_nxt + 1;
	accept("ACK of a byte not sent", &tp, &h, CSIG_OOW_ACK, 0, 1);
	h.ack = tp.snd_una - tp.max_window;
	accept("ACK a window old", &tp, &h, CSIG_ACCEPTED, 0, 1);
	h.ack = tp.snd_una - tp.max_window - 1;
	accept("ACK older than a window", &tp, &h, CSIG_OOW_ACK, 0, 1);
	h = h0;
	h.tsval = 999;
	accept("TSval a tick old (TCP_PAWS_WINDOW)", &tp, &h, CSIG_ACCEPTED, 1, 1);
	h.tsval = 998;
	accept("TSval two ticks old: PAWS", &tp, &h, CSIG_OOW_PAWS, 1, 1);
	h.saw_tstamp = 0;
	accept("no timestamp: no PAWS", &tp, &h, CSIG_ACCEPTED, 1, 1);
	h = h0;
	h.seq = tp.rcv_nxt + 1000;
	accept("the request's window's end", &tp, &h, CSIG_ACCEPTED, 1, 1);
	h.payload = 100;
	accept("data from the request's window's end: tcp_check_req() drops it",
	       &tp, &h, CSIG_ACCEPTED, 0, 1);
	h.payload = 0;
	h.fin = 1;
	accept("a FIN at the request's window's end: dropped too", &tp, &h,
	       CSIG_ACCEPTED, 0, 1);
	h.fin = 0;
	h.seq -= 1;
	h.payload = 100;
	accept("data from a byte before it, past it: completes the handshake",
	       &tp, &h, CSIG_ACCEPTED, 1, 1);
	h.payload = 0;
	h.seq = tp.rcv_nxt + 1001;
	accept("beyond it", &tp, &h, CSIG_ACCEPTED, 0, 0);
	h.seq = tp.rcv_nxt - 1;
	accept("before rcv_nxt: not the request's, not timewait's", &tp, &h,
	       CSIG_ACCEPTED, 0, 0);

	tap_ok(csig_syn_acked(100, 101, 101) && !csig_syn_acked(100, 101, 100) &&
	       !csig_syn_acked(100, 101, 102) && csig_syn_acked(~0U, 0, 0),
	       "csig_syn_acked(): after snd_una, up to write_seq, across 2^32");
}

int main(void)
{
	test_append();
	test_build();
	test_fit();
	test_tcp_of();
	test_untag();
	test_accept();
	return tap_done();
}
