/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flavour interface of the shared controllers (include/hpcc_ctl.h,
 * include/ldcp_ctl.h): the code around the drafts' arithmetic (input
 * selection, stale telemetry and fallback, loss and undo, W into cwnd
 * and pacing rate) is written once, over a socket that each flavour
 * describes with the accessors below.  The flavours are the modules
 * (tcp_hpcc.c, tcp_ldcp.c), the BPF congestion controls
 * (tools/bpf/tcp_*.bpf.c), the userspace harness of the unit tests
 * (selftests/unit/) and the ns-3 model (sim/); each keeps only its glue.
 *
 * A flavour defines, before it includes a controller, as static inline
 * functions (or macros) over its own struct sock:
 *
 *   u32  dcc_cwnd(sk)             snd_cwnd, packets
 *   void dcc_set_cwnd(sk, u32)
 *   u32  dcc_ssthresh(sk)
 *   void dcc_set_ssthresh(sk, u32)
 *   u32  dcc_cwnd_clamp(sk)       snd_cwnd_clamp, packets
 *   u32  dcc_mss(sk)              mss_cache, bytes, at least 1
 *   u32  dcc_srtt_us(sk)          smoothed RTT, us (srtt_us >> 3); 0: none
 *   u32  dcc_min_rtt_us(sk)       tcp_min_rtt(); ~0U: none
 *   u32  dcc_delivered(sk)        tp->delivered, packets
 *   u32  dcc_packets_out(sk)
 *   u32  dcc_snd_una(sk), dcc_snd_nxt(sk)
 *   u8   dcc_ca_state(sk)         icsk_ca_state, TCP_CA_*
 *   u64  dcc_now_ns(sk)           the time of the ACK being processed
 *                                 (tcp_mstamp, us, times 1000): no clock
 *                                 read per ACK; the clock of ktime_get_ns()
 *                                 (tcp_clock_ns()), which stamps the CSIG
 *                                 samples, and bpf_ktime_get_ns()
 *   u64  dcc_now_us(sk)           the same in us (tcp_mstamp): what a
 *                                 controller keeps in 32 bits, without a
 *                                 division
 *   void dcc_set_pacing_rate(sk, u64 rate)
 *                                 bytes per second; the flavour clamps it
 *                                 to sk_max_pacing_rate and does what it
 *                                 must with it (the module's TSO cap)
 *   void dcc_reno_cong_avoid(sk, u32 acked)
 *   u32  dcc_reno_undo_cwnd(sk)
 *
 * and the controller's own (its header lists them): counters, the
 * telemetry source, tracepoints, where its parameters are.
 *
 * Over the kernel's struct tcp_sock, the accessors are written once:
 * include/dcc_ctl_tcp.h, which the modules take through
 * include/dcc_ctl_kern.h and the BPF congestion controls through
 * tools/bpf/dcc_ctl_bpf.h.
 *
 * This header gives the controllers what every flavour has the same:
 * minimum and maximum without the kernel's type checks, and in userspace
 * the kernel's TCP constants they test.
 */
#ifndef _DCC_CTL_H
#define _DCC_CTL_H

#include <linux/types.h>

#include "div64.h"

#ifndef __KERNEL__
#include <stdbool.h>
#endif

/*
 * A read of a parameter that a writer may change under the reader (the
 * module's, written through sysfs); a plain read elsewhere, where the
 * parameters are fixed (BPF: at the load).
 */
#ifdef __KERNEL__
#define DCC_READ_ONCE(x)	READ_ONCE(x)
#else
#define DCC_READ_ONCE(x)	(x)
#endif

#if !defined(__KERNEL__) && !defined(__bpf__)
/* include/net/tcp.h and inet_connection_sock.h, which userspace lacks */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

#define USEC_PER_MSEC		1000ULL
#define USEC_PER_SEC		1000000ULL
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL
#endif

/*
 * TCP_INFINITE_SSTHRESH: the ssthresh of a socket that starts with none.
 * A lower one at the start is the kernel's memory of the destination
 * (tcp_init_metrics(): the route's ssthresh metric or tcp_metrics' cache,
 * read where net.ipv4.tcp_no_ssthresh_metrics_save is 0).
 */
#define DCC_INFINITE_SSTHRESH	0x7fffffffU

static inline __u32 dcc_min32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

static inline __u32 dcc_max32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

static inline __u64 dcc_min64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static inline __u64 dcc_max64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

static inline __u32 dcc_clamp32(__u32 v, __u32 lo, __u32 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline __u64 dcc_clamp64(__u64 v, __u64 lo, __u64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* DIV_ROUND_UP on 32 bits, @d at least 1 */
static inline __u32 dcc_div_up32(__u32 n, __u32 d)
{
	return n / d + (n % d != 0);
}

#endif /* _DCC_CTL_H */
