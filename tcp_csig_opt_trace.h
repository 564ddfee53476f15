/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_csig_opt: every tag taken out, every option sent or
 * parsed (with what became of it), every negotiation step.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_csig_opt/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_csig_opt

#if !defined(_TCP_CSIG_OPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_CSIG_OPT_TRACE_H

#include <linux/tracepoint.h>

/* A tag taken out of a frame; @recorded: kept for a negotiated flow. */
TRACE_EVENT(csig_opt_tag,
	    TP_PROTO(u16 lport, u16 rport, u8 format, u8 type, u32 s, u16 lm, bool recorded),
	    TP_ARGS(lport, rport, format, type, s, lm, recorded),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(u8, format)
			     __field(u8, type)
			     __field(u32, s)
			     __field(u16, lm)
			     __field(bool, recorded)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->format = format;
			   __entry->type = type;
			   __entry->s = s;
			   __entry->lm = lm;
			   __entry->recorded = recorded;),
	    TP_printk("lport=%u rport=%u format=%u type=%u s=%u lm=%u recorded=%d",
		      __entry->lport, __entry->rport, __entry->format,
		      __entry->type, __entry->s, __entry->lm, __entry->recorded)
);

/*
 * An option: @what is "sent" (n samples appended to an ACK), "parsed",
 * "out_of_window", "no_socket", "unnegotiated" or "malformed".
 */
TRACE_EVENT(csig_opt_option,
	    TP_PROTO(u16 lport, u16 rport, const char *what, int n, u32 seq, u32 ack),
	    TP_ARGS(lport, rport, what, n, seq, ack),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(const char *, what)
			     __field(int, n)
			     __field(u32, seq)
			     __field(u32, ack)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->what = what;
			   __entry->n = n;
			   __entry->seq = seq;
			   __entry->ack = ack;),
	    TP_printk("lport=%u rport=%u %s n=%d seq=%u ack=%u",
		      __entry->lport, __entry->rport, __entry->what, __entry->n,
		      __entry->seq, __entry->ack)
);

/* A handshake step: "offered", "offer_rcvd", "accepted", "negotiated", "declined". */
TRACE_EVENT(csig_opt_negotiation,
	    TP_PROTO(u16 lport, u16 rport, const char *what),
	    TP_ARGS(lport, rport, what),
	    TP_STRUCT__entry(__field(u16, lport)
			     __field(u16, rport)
			     __field(const char *, what)),
	    TP_fast_assign(__entry->lport = lport;
			   __entry->rport = rport;
			   __entry->what = what;),
	    TP_printk("lport=%u rport=%u %s", __entry->lport, __entry->rport,
		      __entry->what)
);

#endif /* _TCP_CSIG_OPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tcp_csig_opt_trace
#include <trace/define_trace.h>
