/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording of every call that the ns-3 model makes into a shared
 * controller (sim/hpcc_glue.c, sim/ldcp_glue.c), with the socket's state
 * it was made with (struct dcc_sim_io), so that the call can be made
 * again outside ns-3 with the same inputs: tools/ackcost.c replays it to
 * count the instructions of the per-ACK path.  dccsim writes one when
 * DCCSIM_ACKTRACE names a file (Documentation/sim.rst).
 *
 * Text, one line per call:
 *
 *   # dccsim acktrace 1 cc=hpcc|ldcp ...       the first line
 *   ID cfg V0 V1 ...                           socket ID's parameters, the
 *                                              __u32 fields of struct
 *                                              dcc_sim_hpcc_cfg or _ldcp_cfg
 *                                              in order, before its calls
 *   ID OP A B KEY=VAL ... [| KEY=VAL ...]      a call: the inputs that
 *                                              changed since the socket's
 *                                              last call, then what the call
 *                                              left in cwnd, ssthresh and
 *                                              the pacing rate where that
 *                                              differs from the inputs
 *
 * ID numbers the sockets in the order they first appear (the model's
 * receivers have their own).  OP is the glue's function: init, update
 * (A: acked), in_ack_event (A: ECE), cong_control (A: acked_sacked, B:
 * losses), set_state (A: the state), cwnd_event (A: the event), ssthresh.
 * The keys are those of dcc_acktrace_fields[] below; values decimal.
 */
#ifndef _DCC_ACKTRACE_H
#define _DCC_ACKTRACE_H

#include <stddef.h>

#include <linux/types.h>

#include "dcc_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dcc_acktrace_field {
	const char	*key;
	unsigned short	off, size;
};

/* KEY, the member, its size (dcc_acktrace.c checks them) */
#define DCC_AT_FIELD(k, m, size) { k, offsetof(struct dcc_sim_io, m), size }

/* The inputs of a call: what TcpDccSim::In() and Telemetry() set. */
static const struct dcc_acktrace_field dcc_acktrace_fields[] = {
	DCC_AT_FIELD("cwnd", cwnd, 4),
	DCC_AT_FIELD("ssthresh", ssthresh, 4),
	DCC_AT_FIELD("clamp", clamp, 4),
	DCC_AT_FIELD("mss", mss, 4),
	DCC_AT_FIELD("srtt", srtt_us, 4),
	DCC_AT_FIELD("minrtt", min_rtt_us, 4),
	DCC_AT_FIELD("dlv", delivered, 4),
	DCC_AT_FIELD("out", packets_out, 4),
	DCC_AT_FIELD("una", snd_una, 4),
	DCC_AT_FIELD("nxt", snd_nxt, 4),
	DCC_AT_FIELD("rnxt", rcv_nxt, 4),
	DCC_AT_FIELD("state", ca_state, 1),
	DCC_AT_FIELD("ecn", ecn_ok, 1),
	DCC_AT_FIELD("now", now_ns, 8),
	DCC_AT_FIELD("maxpace", max_pacing, 8),
	DCC_AT_FIELD("pcwnd", prior_cwnd, 4),
	DCC_AT_FIELD("neg", negotiated, 1),
	DCC_AT_FIELD("have", have, 4),
	DCC_AT_FIELD("f0", sm[0].format, 1),
	DCC_AT_FIELD("y0", sm[0].type, 1),
	DCC_AT_FIELD("l0", sm[0].lm, 2),
	DCC_AT_FIELD("s0", sm[0].s, 4),
	DCC_AT_FIELD("t0", sm[0].t_ns, 8),
	DCC_AT_FIELD("f1", sm[1].format, 1),
	DCC_AT_FIELD("y1", sm[1].type, 1),
	DCC_AT_FIELD("l1", sm[1].lm, 2),
	DCC_AT_FIELD("s1", sm[1].s, 4),
	DCC_AT_FIELD("t1", sm[1].t_ns, 8),
	DCC_AT_FIELD("f2", sm[2].format, 1),
	DCC_AT_FIELD("y2", sm[2].type, 1),
	DCC_AT_FIELD("l2", sm[2].lm, 2),
	DCC_AT_FIELD("s2", sm[2].s, 4),
	DCC_AT_FIELD("t2", sm[2].t_ns, 8),
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define DCC_AT_NFIELDS	ARRAY_SIZE(dcc_acktrace_fields)

/* The outputs checked: cwnd, ssthresh and the pacing rate. */
#define DCC_AT_OUT_CWND		"cwnd"
#define DCC_AT_OUT_SSTHRESH	"ssthresh"
#define DCC_AT_OUT_PACING	"pacing"

static inline __u64 dcc_acktrace_get(const struct dcc_sim_io *io,
				     const struct dcc_acktrace_field *f)
{
	const char *p = (const char *)io + f->off;

	switch (f->size) {
	case 1:
		return *(const __u8 *)p;
	case 2:
		return *(const __u16 *)p;
	case 4:
		return *(const __u32 *)p;
	default:
		return *(const __u64 *)p;
	}
}

static inline void dcc_acktrace_set(struct dcc_sim_io *io,
				    const struct dcc_acktrace_field *f, __u64 v)
{
	char *p = (char *)io + f->off;

	switch (f->size) {
	case 1:
		*(__u8 *)p = (__u8)v;
		break;
	case 2:
		*(__u16 *)p = (__u16)v;
		break;
	case 4:
		*(__u32 *)p = (__u32)v;
		break;
	default:
		*(__u64 *)p = v;
		break;
	}
}

/* The writer (sim/dcc_acktrace.c): a no-op until dcc_acktrace_open(). */
int dcc_acktrace_open(const char *path, const char *header);
int dcc_acktrace_on(void);
void dcc_acktrace_cfg(const void *h, const __u32 *v, unsigned int n);
void dcc_acktrace_call(const void *h, const char *op, int a, int b,
		       const struct dcc_sim_io *in,
		       const struct dcc_sim_io *out);
void dcc_acktrace_close(void);

#ifdef __cplusplus
}
#endif

#endif /* _DCC_ACKTRACE_H */
