// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for tcp_csig_opt's own packet handling: the code of
 * tcp_csig_opt_pkt.h, as the module builds it, over the userspace skb of
 * kskb.h (exactly sized buffers, a head that moves wherever the kernel's
 * may) and checked by csig_skb_ref.h against frames and rules of its own.
 *
 * The first byte picks what runs; the rest gives the frame's shape and
 * fields, so that malformed frames are common:
 *
 *  0  an outgoing segment (IPv4 with options or IPv6, TCP with options,
 *     payload, linear or not, CHECKSUM_PARTIAL or a full checksum, shared
 *     or not, little headroom or more): csig_tcp_of(), then the option
 *     csig_opt_build() makes for the room csig_data_fit() leaves, or
 *     other bytes of any length, appended by csig_append_opt(), with a
 *     reallocation that may fail;
 *  1  an arriving segment of any bytes: csig_tcp_of(), csig_seg_payload();
 *  2  a tagged frame of any bytes after the MAC addresses and TPID:
 *     csig_skb_tag(), csig_skb_untag();
 *  3  a segment's numbers against a socket's: csig_tcp_accepts(),
 *     csig_req_accepts(), csig_tw_accepts(), csig_syn_acked().
 *
 * Checked: no sanitizer report, and every ref_check_*() (csig_skb_ref.h).
 * The headroom of segments is a multiple of 4, so that their headers are
 * aligned as the kernel's structures want (UBSan checks it; the kernel's
 * own x86 builds do not).
 */
#include <stdint.h>
#include "csig_skb_ref.h"

#define CHECK(e) do {							\
	const char *__e = (e);						\
	if (__e) {							\
		fprintf(stderr, "fuzz_csig_skb: %s\n", __e);		\
		abort();						\
	}								\
} while (0)

struct input {
	const uint8_t *p;
	size_t n;
};

/* @bytes of the input, big-endian; zeros once it is used up */
static __u32 get(struct input *in, int bytes)
{
	__u32 v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

/* a sequence number near @base, or (one time in eight) anywhere */
static __u32 near(struct input *in, __u32 base)
{
	__u32 c = get(in, 1);

	if ((c & 7) == 7)
		return get(in, 4);
	return base + (__s32)(__s16)get(in, 2) * ((c >> 3) + 1);
}

static __u8 pkt[REF_PKT_MAX];

static void fuzz_out(struct input *in)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	__u8 buf[60];	/* csig_opt_build()'s CSIG_OPT_MAX_LEN + 4, or other bytes */
	unsigned int f = get(in, 2), len, n, i, room, plen, nsent, used, ipl;
	unsigned int types = 0;
	struct ref_seg s = {
		.v6 = f & 1,
		.proto = f & 2,
		.partial = f & 4,
		.cloned = f & 8,
		.ihl = 5 + get(in, 1) % 11,
		.doff = 5 + get(in, 1) % 11,
		.headroom = 4 * (get(in, 1) % 40),
	};
	int fail = (f >> 4) & 3;

	s.payload = get(in, 2) % 1601;
	s.seed = get(in, 4);
	len = ref_build_seg(&s, pkt);
	/*
	 * Linear: the IP header at least, as IP left it; the rest may be in
	 * fragments when TCP offloads the checksum, as it always does; a
	 * full checksum is computed over a linear segment only (the
	 * module's callers: csig_data_room() takes data only when
	 * CHECKSUM_PARTIAL, TCP's control socket sends linear ones).
	 */
	i = s.v6 ? 40 : s.ihl * 4;
	s.linear = s.partial ? i + get(in, 2) % (len - i + 1) : len;

	/* the room csig_out_flow() gives the option */
	room = 60 - s.doff * 4;
	if (s.payload) {
		used = s.doff * 4 + s.payload;
		ipl = len;
		CHECK(ref_check_fit(used, get(in, 2), ipl, get(in, 2)));
		room = min(room, csig_data_fit(used, 536 + get(in, 2) % 9000, ipl,
					       1280 + get(in, 2) % 8000));
	}
	if (f & 0x40) {
		/* any bytes, of any length in words */
		plen = 4 * (get(in, 1) % 16);
		for (i = 0; i < plen; i++)
			buf[i] = get(in, 1);
		CHECK(ref_check_append(&s, pkt, len, buf, plen, -1, NULL, fail));
		return;
	}
	/* distinct types, as the flow's samples are; valid ones mostly */
	n = get(in, 1) % (CSIG_OPT_MAX_SAMPLES + 1);
	for (i = 0; i < n; i++) {
		unsigned int c = get(in, 1), fmt = c & 1, t = (c >> 1) & 15;

		while (types & (1U << t))
			t = (t + 1) & 15;
		types |= 1U << t;
		sm[i] = ref_sample(fmt, t, get(in, 3), get(in, 2), (c >> 5) & 1);
		if (!(c & 0x80)) {
			sm[i].s &= csig_s_max(fmt);
			if (fmt == CSIG_FMT_COMPACT)
				sm[i].lm &= CSIG_COMPACT_LM_MASK;
		}
	}
	CHECK(ref_check_build(room, sm, n, f & 0x80, buf, &plen, &nsent));
	if (plen)
		CHECK(ref_check_append(&s, pkt, len, buf, plen, nsent, sm, fail));
}

static void fuzz_in(struct input *in)
{
	unsigned int f = get(in, 1), headroom = 4 * (get(in, 1) % 64), len, linear;
	__be16 proto = (f & 3) == 1 ? htons(ETH_P_IP) :
		       (f & 3) == 2 ? htons(ETH_P_IPV6) : 0;

	/* the input's bytes; IP left 40 bytes linear at least here */
	len = min(in->n, (size_t)REF_PKT_MAX);
	memset(pkt, 0, 40);
	memcpy(pkt, in->p, len);
	if (len < 40)
		len = 40;
	linear = 40 + (f >> 2) % (len - 40 + 1);
	CHECK(ref_check_tcp_of(pkt, len, linear, headroom, proto));
}

static void fuzz_tag(struct input *in)
{
	static const int summed[] = {
		CHECKSUM_NONE, CHECKSUM_UNNECESSARY, CHECKSUM_COMPLETE, CHECKSUM_COMPLETE,
	};
	unsigned int f = get(in, 1), g = get(in, 1), len, n, i, linear;
	unsigned int maclen = ETH_HLEN;
	__u16 tpid_c = CSIG_TPID_COMPACT, tpid_e = CSIG_TPID_EXPANDED;
	unsigned int headroom = get(in, 1);
	int fmt = f & 1;

	if (f & 2) {		/* other TPIDs, as the module's parameters allow */
		tpid_c = get(in, 2);
		tpid_e = get(in, 2);
	}
	if (f & 4)		/* a MAC header of another length */
		maclen = ETH_HLEN + 4 * (get(in, 1) % 3) - 4;
	/* the MAC addresses, the TPID, then the rest of the input */
	for (i = 0; i < 2 * ETH_ALEN; i++)
		pkt[i] = get(in, 1);
	ref_put16(pkt + 2 * ETH_ALEN, fmt ? tpid_e : tpid_c);
	n = min(in->n, (size_t)REF_PKT_MAX - ETH_HLEN - 4);
	memcpy(pkt + ETH_HLEN, in->p, n);
	len = ETH_HLEN + n;
	if (len < maclen) {
		memset(pkt + len, 0, maclen - len);
		len = maclen;
	}
	linear = maclen + g % (len - maclen + 1);
	CHECK(ref_check_untag(pkt, len, linear, headroom, maclen, fmt, tpid_c, tpid_e,
			      summed[(f >> 3) & 3], f & 0x80, (f >> 6) & 1));
}

static void fuzz_accept(struct input *in)
{
	struct ref_sock tp;
	struct ref_segh h;
	unsigned int f = get(in, 1), olen = 0, i, nts;
	__u8 opts[40], *th;
	__u32 rcv_isn, snt_isn, req_wnd;

	/* TCP's windows are below 2^30 (a scale of 14 at most) */
	tp.rcv_nxt = get(in, 4);
	tp.rcv_wup = near(in, tp.rcv_nxt);
	tp.rcv_wnd = get(in, 4) >> (2 + (f & 7) * 3);
	tp.snd_una = get(in, 4);
	/* what is queued to send, below 2^30 too */
	tp.snd_nxt = tp.snd_una + (get(in, 4) >> (2 + ((f >> 3) & 7) * 3));
	tp.max_window = get(in, 4) >> 2;
	tp.ts_recent = f & 0x40 ? 0 : get(in, 4);
	tp.ts_recent_stamp = f & 0x80;

	f = get(in, 1);
	h.seq = near(in, tp.rcv_nxt);
	h.ack = near(in, f & 1 ? tp.snd_una : tp.snd_nxt);
	h.payload = get(in, 2);
	h.ackf = !(f & 2);
	h.syn = (f & 0x0c) == 0x04;
	h.rst = (f & 0x0c) == 0x08;
	h.fin = !!(f & 0x10);
	h.saw_tstamp = 0;
	h.tsval = 0;
	/* up to two timestamps (TCP takes the last), NOPs, SACK */
	nts = (f >> 5) % 3;
	for (i = 0; i < nts; i++) {
		opts[olen++] = TCPOPT_NOP;
		opts[olen++] = TCPOPT_NOP;
		opts[olen++] = 8;
		opts[olen++] = 10;
		h.tsval = near(in, tp.ts_recent);
		ref_put32(opts + olen, h.tsval);
		ref_put32(opts + olen + 4, get(in, 4));
		olen += 8;
		h.saw_tstamp = 1;
	}
	if (f & 0x80) {
		opts[olen++] = TCPOPT_NOP;
		opts[olen++] = TCPOPT_NOP;
		opts[olen++] = 5;
		opts[olen++] = 10;
		for (i = 0; i < 8; i++)
			opts[olen++] = get(in, 1);
	}
	/* the header alone, in a buffer of its size */
	th = malloc(20 + olen);
	ref_build_th(th, &h, opts, olen);
	rcv_isn = near(in, h.seq - 1);
	snt_isn = near(in, h.ack - 1);
	req_wnd = get(in, 4) >> 2;
	CHECK(ref_check_accept(&tp, th, &h, snt_isn, rcv_isn, req_wnd));
	free(th);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };

	switch (get(&in, 1) & 3) {
	case 0:
		fuzz_out(&in);
		break;
	case 1:
		fuzz_in(&in);
		break;
	case 2:
		fuzz_tag(&in);
		break;
	default:
		fuzz_accept(&in);
	}
	return 0;
}
