/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs that tcp_csig_opt_pkt.h uses, in userspace, so that the
 * module's own packet code runs unchanged under the sanitizers
 * (fuzz_csig_skb.c, test_csig_skb.c).  Include this, then the header.
 *
 * The skb is a model of the kernel's: head, data, len and data_len, the
 * MAC, network and transport headers as offsets from head, protocol,
 * ip_summed, csum or csum_start/csum_offset (a union, as there).  Its
 * buffers are exactly the size the kernel guarantees and no more, so that
 * AddressSanitizer reports any access the kernel would not allow:
 *
 *  - the linear part is one heap block of headroom and skb_headlen()
 *    bytes, without tailroom;
 *  - the nonlinear part (data_len bytes, the kernel's frags) is a block
 *    of its own, which only pskb_may_pull() brings into the linear part;
 *  - whatever may reallocate the head in the kernel does here, always:
 *    pskb_may_pull() when it pulls, skb_cow(), skb_cow_head() and
 *    skb_ensure_writable() when the kernel would copy (too little
 *    headroom, or a clone): the old block is freed, so that a header
 *    pointer kept across the call is a use after free;
 *  - a push beyond the head aborts, as skb_under_panic() would, and so
 *    does a pull beyond the linear part (__skb_pull()'s BUG()).
 *
 * kskb_fail_after makes the Nth reallocation from now fail (-ENOMEM), as
 * GFP_ATOMIC allocations may.  The checksum helpers are transcriptions of
 * the kernel's generic C versions (lib/checksum.c, net/ipv6/ip6_checksum.c,
 * include/net/checksum.h), which the architectures' versions equal after
 * folding.
 */
#ifndef _SELFTESTS_UNIT_KSKB_H
#define _SELFTESTS_UNIT_KSKB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <asm/byteorder.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;

#define htons(x)	__cpu_to_be16(x)
#define ntohs(x)	__be16_to_cpu(x)
#define htonl(x)	__cpu_to_be32(x)
#define ntohl(x)	__be32_to_cpu(x)

#define min(a, b) ({			\
	typeof(a) __a = (a);		\
	typeof(b) __b = (b);		\
	__a < __b ? __a : __b; })

static inline unsigned int kskb_align(unsigned int x, unsigned int a)
{
	return (x + a - 1) / a * a;
}

#define ALIGN(x, a)	kskb_align(x, a)

/* include/net/tcp.h */
#define TCPOPT_NOP		1
#define TCP_PAWS_WINDOW		1

static inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}

#define after(seq2, seq1)	before(seq1, seq2)

/* include/net/ip.h */
#define IP_MF		0x2000
#define IP_OFFSET	0x1FFF

static inline bool ip_is_fragment(const struct iphdr *iph)
{
	return (iph->frag_off & htons(IP_MF | IP_OFFSET)) != 0;
}

static inline void be16_add_cpu(__be16 *var, u16 val)
{
	*var = htons(ntohs(*var) + val);
}

/* checksums */
static inline u32 kskb_from64to32(u64 x)
{
	x = (x & 0xffffffff) + (x >> 32);
	x = (x & 0xffffffff) + (x >> 32);
	return (u32)x;
}

static inline __wsum csum_partial(const void *buff, int len, __wsum sum)
{
	const unsigned char *p = buff;
	u64 s = sum;
	int i;

	/* 16-bit words in memory order; an odd last byte is a word's first */
	for (i = 0; i + 1 < len; i += 2) {
		u16 w;

		memcpy(&w, p + i, 2);
		s += w;
	}
	if (len & 1) {
		u16 w = 0;

		memcpy(&w, p + len - 1, 1);
		s += w;
	}
	return kskb_from64to32(s);
}

static inline __sum16 csum_fold(__wsum csum)
{
	u32 sum = csum;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__sum16)~sum;
}

static inline __wsum wsum_negate(__wsum val)
{
	return ~val;
}

static inline __wsum csum_tcpudp_nofold(__be32 saddr, __be32 daddr, __u32 len,
					__u8 proto, __wsum sum)
{
	u64 s = sum;

	s += saddr;
	s += daddr;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	s += proto + len;
#else
	s += (proto + len) << 8;
#endif
	return kskb_from64to32(s);
}

static inline __sum16 csum_tcpudp_magic(__be32 saddr, __be32 daddr, __u32 len,
					__u8 proto, __wsum sum)
{
	return csum_fold(csum_tcpudp_nofold(saddr, daddr, len, proto, sum));
}

static inline __sum16 csum_ipv6_magic(const struct in6_addr *saddr,
				      const struct in6_addr *daddr,
				      __u32 len, __u8 proto, __wsum csum)
{
	u64 s = csum;
	int i;

	for (i = 0; i < 4; i++)
		s += (u64)saddr->s6_addr32[i] + daddr->s6_addr32[i];
	s += htonl(len);
	s += htonl(proto);
	return csum_fold(kskb_from64to32(s));
}

static inline __sum16 tcp_v4_check(int len, __be32 saddr, __be32 daddr, __wsum base)
{
	return csum_tcpudp_magic(saddr, daddr, len, IPPROTO_TCP, base);
}

static inline __sum16 tcp_v6_check(int len, const struct in6_addr *saddr,
				   const struct in6_addr *daddr, __wsum base)
{
	return csum_ipv6_magic(saddr, daddr, len, IPPROTO_TCP, base);
}

static inline void ip_send_check(struct iphdr *iph)
{
	iph->check = 0;
	iph->check = csum_fold(csum_partial(iph, iph->ihl * 4, 0));
}

/* the skb */
#define CHECKSUM_NONE		0
#define CHECKSUM_UNNECESSARY	1
#define CHECKSUM_COMPLETE	2
#define CHECKSUM_PARTIAL	3

#define NET_SKB_PAD		64	/* x86-64: L1_CACHE_BYTES */

struct sk_buff {
	unsigned char	*head;
	unsigned char	*data;
	unsigned int	len;
	unsigned int	data_len;
	u16		mac_header;
	u16		network_header;
	u16		transport_header;
	u16		mac_len;
	__be16		protocol;
	u8		ip_summed;
	u8		cloned;		/* the data is shared: copy to write */
	union {
		__wsum	csum;
		struct {
			u16	csum_start;
			u16	csum_offset;
		};
	};
	/* the model's own */
	unsigned int	size;		/* bytes at head: headroom + skb_headlen() */
	unsigned char	*frag;		/* data_len bytes */
};

static int kskb_fail_after;	/* the Nth reallocation from now fails (0: none) */
static unsigned int kskb_reallocs;

static inline void kskb_bug(const char *func, const char *what)
{
	fprintf(stderr, "kskb: %s: %s\n", func, what);
	abort();
}

static inline unsigned int skb_headlen(const struct sk_buff *skb)
{
	return skb->len - skb->data_len;
}

static inline unsigned int skb_headroom(const struct sk_buff *skb)
{
	return skb->data - skb->head;
}

static inline unsigned char *skb_mac_header(const struct sk_buff *skb)
{
	return skb->head + skb->mac_header;
}

static inline unsigned char *skb_network_header(const struct sk_buff *skb)
{
	return skb->head + skb->network_header;
}

static inline unsigned char *skb_transport_header(const struct sk_buff *skb)
{
	return skb->head + skb->transport_header;
}

static inline int skb_network_offset(const struct sk_buff *skb)
{
	return skb_network_header(skb) - skb->data;
}

static inline int skb_transport_offset(const struct sk_buff *skb)
{
	return skb_transport_header(skb) - skb->data;
}

static inline int skb_mac_header_len(const struct sk_buff *skb)
{
	return skb->network_header - skb->mac_header;
}

static inline void skb_reset_network_header(struct sk_buff *skb)
{
	skb->network_header = skb->data - skb->head;
}

static inline void skb_set_transport_header(struct sk_buff *skb, int offset)
{
	skb->transport_header = skb->data - skb->head + offset;
}

static inline void skb_reset_mac_len(struct sk_buff *skb)
{
	skb->mac_len = skb->network_header - skb->mac_header;
}

static inline int skb_checksum_start_offset(const struct sk_buff *skb)
{
	return skb->csum_start - skb_headroom(skb);
}

static inline struct iphdr *ip_hdr(const struct sk_buff *skb)
{
	return (struct iphdr *)skb_network_header(skb);
}

static inline struct ipv6hdr *ipv6_hdr(const struct sk_buff *skb)
{
	return (struct ipv6hdr *)skb_network_header(skb);
}

static inline struct tcphdr *tcp_hdr(const struct sk_buff *skb)
{
	return (struct tcphdr *)skb_transport_header(skb);
}

/*
 * A new head of @nhead more bytes of headroom and @pull more linear bytes,
 * taken from the nonlinear part; the old one is freed.  0, or -ENOMEM.
 */
static inline int kskb_realloc(struct sk_buff *skb, unsigned int nhead, unsigned int pull)
{
	unsigned int hr = skb_headroom(skb), hl = skb_headlen(skb);
	unsigned char *head, *frag = NULL;

	if (kskb_fail_after && !--kskb_fail_after)
		return -ENOMEM;
	if (pull > skb->data_len)
		kskb_bug(__func__, "pull beyond the data");
	if (nhead + hr + hl + pull > 0xffff)
		return -ENOMEM;		/* the headers' offsets are 16 bits */
	head = malloc(nhead + hr + hl + pull ? nhead + hr + hl + pull : 1);
	if (skb->data_len - pull)
		frag = malloc(skb->data_len - pull);
	if (!head || (skb->data_len - pull && !frag))
		kskb_bug(__func__, "out of memory");
	memcpy(head + nhead, skb->head, hr + hl);
	if (pull)
		memcpy(head + nhead + hr + hl, skb->frag, pull);
	if (frag)
		memcpy(frag, skb->frag + pull, skb->data_len - pull);
	free(skb->head);
	free(skb->frag);
	skb->head = head;
	skb->data = head + nhead + hr;
	skb->frag = frag;
	skb->data_len -= pull;
	skb->size = nhead + hr + hl + pull;
	skb->mac_header += nhead;
	skb->network_header += nhead;
	skb->transport_header += nhead;
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		skb->csum_start += nhead;
	skb->cloned = 0;
	kskb_reallocs++;
	return 0;
}

static inline int pskb_expand_head(struct sk_buff *skb, int nhead, int ntail, int gfp)
{
	(void)ntail;
	(void)gfp;
	return kskb_realloc(skb, nhead, 0);
}

#define GFP_ATOMIC	0

static inline bool pskb_may_pull(struct sk_buff *skb, unsigned int len)
{
	if (len <= skb_headlen(skb))
		return true;
	if (len > skb->len)
		return false;
	return !kskb_realloc(skb, 0, len - skb_headlen(skb));
}

static inline bool skb_cloned(const struct sk_buff *skb)
{
	return skb->cloned;
}

static inline bool skb_header_cloned(const struct sk_buff *skb)
{
	return skb->cloned;
}

static inline int skb_ensure_writable(struct sk_buff *skb, unsigned int write_len)
{
	if (!pskb_may_pull(skb, write_len))
		return -ENOMEM;
	if (!skb_cloned(skb))
		return 0;
	return pskb_expand_head(skb, 0, 0, GFP_ATOMIC);
}

static inline int __skb_cow(struct sk_buff *skb, unsigned int headroom, int cloned)
{
	int delta = 0;

	if (headroom > skb_headroom(skb))
		delta = headroom - skb_headroom(skb);
	if (delta || cloned)
		return pskb_expand_head(skb, ALIGN(delta, NET_SKB_PAD), 0, GFP_ATOMIC);
	return 0;
}

static inline int skb_cow(struct sk_buff *skb, unsigned int headroom)
{
	return __skb_cow(skb, headroom, skb_cloned(skb));
}

static inline int skb_cow_head(struct sk_buff *skb, unsigned int headroom)
{
	return __skb_cow(skb, headroom, skb_header_cloned(skb));
}

static inline void *skb_push(struct sk_buff *skb, unsigned int len)
{
	if (len > skb_headroom(skb))
		kskb_bug(__func__, "beyond the head (skb_under_panic())");
	skb->data -= len;
	skb->len += len;
	return skb->data;
}

static inline void *__skb_pull(struct sk_buff *skb, unsigned int len)
{
	if (len > skb_headlen(skb))
		kskb_bug(__func__, "beyond the linear data");
	skb->len -= len;
	return skb->data += len;
}

static inline void skb_postpull_rcsum(struct sk_buff *skb, const void *start,
				      unsigned int len)
{
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->csum = wsum_negate(csum_partial(start, len, wsum_negate(skb->csum)));
	else if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_start_offset(skb) < 0)
		skb->ip_summed = CHECKSUM_NONE;
}

static inline void *skb_pull_rcsum(struct sk_buff *skb, unsigned int len)
{
	unsigned char *data = skb->data;

	if (len > skb->len)
		kskb_bug(__func__, "beyond the data");
	__skb_pull(skb, len);
	skb_postpull_rcsum(skb, data, len);
	return skb->data;
}

/*
 * A buffer of @total bytes (@frame), @linear of them in the head behind
 * @headroom bytes, the rest nonlinear; skb->data at the frame, every
 * header there.
 */
static inline struct sk_buff *kskb_alloc(unsigned int headroom, const void *frame,
					 unsigned int linear, unsigned int total)
{
	struct sk_buff *skb = calloc(1, sizeof(*skb));

	if (!skb || linear > total || headroom + linear > 0xffff)
		kskb_bug(__func__, "bad sizes");
	skb->size = headroom + linear;
	skb->head = malloc(skb->size ? skb->size : 1);
	skb->frag = total > linear ? malloc(total - linear) : NULL;
	if (!skb->head || (total > linear && !skb->frag))
		kskb_bug(__func__, "out of memory");
	memset(skb->head, 0xa5, headroom);
	memcpy(skb->head + headroom, frame, linear);
	if (skb->frag)
		memcpy(skb->frag, (const unsigned char *)frame + linear, total - linear);
	skb->data = skb->head + headroom;
	skb->len = total;
	skb->data_len = total - linear;
	skb->mac_header = headroom;
	skb->network_header = headroom;
	skb->transport_header = headroom;
	return skb;
}

/* skb->len bytes from skb->data, linear and not, into @out */
static inline void kskb_copy(const struct sk_buff *skb, void *out)
{
	memcpy(out, skb->data, skb_headlen(skb));
	if (skb->data_len)
		memcpy((unsigned char *)out + skb_headlen(skb), skb->frag, skb->data_len);
}

static inline void kskb_free(struct sk_buff *skb)
{
	free(skb->head);
	free(skb->frag);
	free(skb);
}

#endif /* _SELFTESTS_UNIT_KSKB_H */
