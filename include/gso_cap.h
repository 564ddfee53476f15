/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A congestion control's cap on a socket's sk_gso_max_segs, for tcp_hpcc
 * (super-packets of rate >> sk_pacing_shift) and tcp_ldcp (one packet per
 * skb during fast start), in C that compiles in the kernel and in
 * userspace (selftests/unit/test_gso_cap.c).
 *
 * The stack owns the field too: sk_setup_caps() writes the device's limit
 * when the socket gets a new route.  A value other than the one last
 * written here is therefore taken as the device's new limit, kept under
 * any later cap and left in place when the cap is lifted, rather than
 * overwritten with a limit saved from another device.
 *
 *	gso_cap_init(&ca->gso, sk->sk_gso_max_segs);	(init)
 *	sk_gso_cap(sk, &ca->gso, segs);			(0: no cap)
 */
#ifndef _GSO_CAP_H
#define _GSO_CAP_H

#include <linux/types.h>

struct gso_cap {
	__u16	dev;	/* the device's limit, as the stack last set it */
	__u16	set;	/* the value last returned */
};

static inline void gso_cap_init(struct gso_cap *g, __u16 cur)
{
	g->dev = cur;
	g->set = cur;
}

/*
 * The value sk_gso_max_segs should hold, now @cur: at most @segs, within
 * the device's limit; @segs 0 lifts the cap (the device's limit).
 */
static inline __u16 gso_cap_next(struct gso_cap *g, __u16 cur, __u32 segs)
{
	if (cur != g->set)
		g->dev = cur;
	g->set = segs && segs < g->dev ? (__u16)segs : g->dev;
	return g->set;
}

#ifdef __KERNEL__
#include <net/sock.h>

static inline void sk_gso_cap(struct sock *sk, struct gso_cap *g, u32 segs)
{
	u16 v = gso_cap_next(g, sk->sk_gso_max_segs, segs);

	if (sk->sk_gso_max_segs != v)
		WRITE_ONCE(sk->sk_gso_max_segs, v);
}
#endif

#endif /* _GSO_CAP_H */
