/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The accessors of include/dcc_ctl.h for the modules (tcp_hpcc.c,
 * tcp_ldcp.c), over the kernel's struct tcp_sock: include/dcc_ctl_tcp.h's,
 * which the BPF flavour shares, and the module's own below.  A module
 * includes it before its controller.
 *
 * dcc_set_pacing_rate() is the clamped write of the rate alone, unless
 * the module defines dcc_set_pacing_rate as a macro naming its own
 * first, as tcp_hpcc.c does for its TSO cap: that one may build on
 * dcc_pacing_rate_write().
 */
#ifndef _DCC_CTL_KERN_H
#define _DCC_CTL_KERN_H

#include <net/tcp.h>

#include "dcc_ctl.h"

static __always_inline u8 dcc_ca_state(struct sock *sk)
{
	return inet_csk(sk)->icsk_ca_state;
}

/* sk_pacing_rate = @rate, at most sk_max_pacing_rate; returns what it set */
static __always_inline u64 dcc_pacing_rate_write(struct sock *sk, u64 rate)
{
	rate = min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate));
	WRITE_ONCE(sk->sk_pacing_rate, rate);
	return rate;
}

#ifndef dcc_set_pacing_rate
static __always_inline void dcc_set_pacing_rate(struct sock *sk, u64 rate)
{
	dcc_pacing_rate_write(sk, rate);
}
#endif

#include "dcc_ctl_tcp.h"

#endif /* _DCC_CTL_KERN_H */
