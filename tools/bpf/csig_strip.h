/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taking a CSIG tag out of a frame in a tc program: the switch port's
 * strip role (csig_port.bpf.c) and the host path's receiver
 * (csig_host.bpf.c) share it.  BPF only: it calls tc's helpers.
 */
#ifndef _CSIG_STRIP_H
#define _CSIG_STRIP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "csig.h"

#define CSIG_ETH_ADDRS_LEN	12	/* destination and source MAC */

/*
 * Remove the tag at offset 12.  bpf_skb_adjust_room() refuses frames whose
 * skb->protocol is not IP (a received tagged frame has the TPID there), so
 * the tag is removed as a VLAN tag would be: rewritten in place into
 * 802.1Q headers (the compact tag is one, the expanded tag two), then
 * popped with the VLAN helpers, which set skb->protocol from the payload's
 * EtherType.  They pop an in-packet tag only while skb->protocol is a VLAN
 * protocol, which two pushes of a dummy tag arrange.  A hardware-accelerated
 * VLAN tag the frame carried is set aside and restored.  GSO state is kept.
 * Returns 0, or -1 with the frame half rewritten: it must not go on.
 */
static __always_inline int csig_strip_tag(struct __sk_buff *skb, __u32 fmt)
{
	__u32 vlan = skb->vlan_present, tci = skb->vlan_tci;
	__be16 vproto = skb->vlan_proto, q = bpf_htons(ETH_P_8021Q);
	int pops = fmt == CSIG_FMT_COMPACT ? 3 : 4, i;

	if (vlan && bpf_skb_vlan_pop(skb))
		return -1;
	if (bpf_skb_store_bytes(skb, CSIG_ETH_ADDRS_LEN, &q, 2, 0))
		return -1;
	if (fmt == CSIG_FMT_EXPANDED &&
	    bpf_skb_store_bytes(skb, CSIG_ETH_ADDRS_LEN + 4, &q, 2, 0))
		return -1;
	if (bpf_skb_vlan_push(skb, q, 0) || bpf_skb_vlan_push(skb, q, 0))
		return -1;
#pragma unroll
	for (i = 0; i < 4; i++) {
		if (i < pops && bpf_skb_vlan_pop(skb))
			return -1;
	}
	if (vlan && bpf_skb_vlan_push(skb, vproto, tci))
		return -1;
	return 0;
}

/*
 * Is an 802.1Q/802.1ad tag right behind the tag at offset 12?  The pops
 * that remove the tag would take it too: bpf_skb_vlan_pop() moves the next
 * in-packet VLAN tag into the accelerated one, and the last pop clears it.
 */
static __always_inline int csig_strip_vlan_follows(struct __sk_buff *skb,
						   __u32 fmt)
{
	__u32 tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN :
					       CSIG_EXPANDED_LEN;
	__be16 et;

	if (bpf_skb_load_bytes(skb, CSIG_ETH_ADDRS_LEN + tlen, &et, 2))
		return 1;
	return et == bpf_htons(ETH_P_8021Q) || et == bpf_htons(ETH_P_8021AD);
}

#endif /* _CSIG_STRIP_H */
