/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_hpcc: every window update, and a negotiation found
 * late.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_hpcc/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_hpcc

#if !defined(_TCP_HPCC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_HPCC_TRACE_H

#include <linux/tracepoint.h>

/*
 * A window update on an ACK: U (2^-20 units), W and Wc (bytes), incStage,
 * the pacing rate (bytes/s), whether Wc was committed and by which branch
 * (mi: multiplicative), whether W was kept at Wc because the flow did not
 * use it (held: grow_pct), the input: "u" (CSIG U), "std" (PD and
 * ABW/C), "fallback" (no telemetry: Reno), and snd_cwnd (packets).  A
 * loss episode that halves W (hpcc_loss()) is an update of its own, with
 * the source "loss".
 */
TRACE_EVENT(hpcc_update,
	    TP_PROTO(u16 lport, u16 rport, u32 U, u32 W, u32 wc, u32 stage,
		     u64 rate, bool committed, bool mi, bool held,
		     const char *source, u32 cwnd),
	    TP_ARGS(lport, rport, U, W, wc, stage, rate, committed, mi, held,
		    source, cwnd),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(u32, U)
			     __field(u32, W)
			     __field(u32, wc)
			     __field(u32, stage)
			     __field(u64, rate)
			     __field(bool, committed)
			     __field(bool, mi)
			     __field(bool, held)
			     __field(const char *, source)
			     __field(u32, cwnd)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->U = U;
			   __entry->W = W;
			   __entry->wc = wc;
			   __entry->stage = stage;
			   __entry->rate = rate;
			   __entry->committed = committed;
			   __entry->mi = mi;
			   __entry->held = held;
			   __entry->source = source;
			   __entry->cwnd = cwnd;),
	    TP_printk("lport=%u rport=%u U=%u W=%u Wc=%u stage=%u rate=%llu committed=%d mi=%d held=%d source=%s cwnd=%u",
		      __entry->lport, __entry->rport, __entry->U, __entry->W,
		      __entry->wc, __entry->stage, __entry->rate,
		      __entry->committed, __entry->mi, __entry->held,
		      __entry->source, __entry->cwnd)
);

/*
 * A flow that started without CSIG negotiated found the negotiation
 * (hpcc_late_csig()): on its n-th look (1 to HPCC_LATE_CHECKS), with
 * snd_cwnd (packets) as Reno had it.
 */
TRACE_EVENT(hpcc_late_csig,
	    TP_PROTO(u16 lport, u16 rport, u32 looks, u32 cwnd),
	    TP_ARGS(lport, rport, looks, cwnd),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(u32, looks)
			     __field(u32, cwnd)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->looks = looks;
			   __entry->cwnd = cwnd;),
	    TP_printk("lport=%u rport=%u looks=%u cwnd=%u",
		      __entry->lport, __entry->rport, __entry->looks,
		      __entry->cwnd)
);

#endif /* _TCP_HPCC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tcp_hpcc_trace
#include <trace/define_trace.h>
