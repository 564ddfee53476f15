/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_ldcp: every window change.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_ldcp/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_ldcp

#if !defined(_TCP_LDCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_LDCP_TRACE_H

#include <linux/tracepoint.h>

/*
 * A change of cw (packets, 2^-16 units) on an ACK of n packets with or
 * without ECE, or on an event: "pawa" (section 2.2), "fs_iw" and
 * "fs_loss" (the end of fast start, section 3.1), "loss" (a loss episode
 * in the stable stage), "rto" (an ACK after an RTO: cw as it is, cwnd
 * growing back to it from TCP's loss window); the phase after it, cwnd
 * and the pacing rate (bytes/s).
 */
TRACE_EVENT(ldcp_update,
	    TP_PROTO(u16 lport, u16 rport, u32 cw_old, u32 cw, u32 n, bool ece,
		     u8 phase, u32 cwnd, u64 rate, const char *event),
	    TP_ARGS(lport, rport, cw_old, cw, n, ece, phase, cwnd, rate, event),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(u32, cw_old)
			     __field(u32, cw)
			     __field(u32, n)
			     __field(bool, ece)
			     __field(u8, phase)
			     __field(u32, cwnd)
			     __field(u64, rate)
			     __field(const char *, event)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->cw_old = cw_old;
			   __entry->cw = cw;
			   __entry->n = n;
			   __entry->ece = ece;
			   __entry->phase = phase;
			   __entry->cwnd = cwnd;
			   __entry->rate = rate;
			   __entry->event = event;),
	    TP_printk("lport=%u rport=%u cw=%u->%u n=%u ece=%d phase=%s cwnd=%u rate=%llu event=%s",
		      __entry->lport, __entry->rport, __entry->cw_old,
		      __entry->cw, __entry->n, __entry->ece,
		      __entry->phase ? "stable" : "fast_start", __entry->cwnd,
		      __entry->rate, __entry->event)
);

#endif /* _TCP_LDCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tcp_ldcp_trace
#include <trace/define_trace.h>
