/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness of selftests/unit/test_glue_*: one controller (hpcc's or
 * ldcp's) in each of its flavours, each behind this table, so that the
 * same calls with the same TCP state go to all of them and their results
 * compare.  A flavour's socket carries its inputs and outputs as the
 * ns-3 model's does (struct dcc_sim_io, sim/dcc_sim.h): the model's glue
 * reads them there, the module's and the BPF program's glue from the
 * struct tcp_sock their wrapper fills from it before each call and reads
 * back after (glue_tp.h).
 *
 *   model   sim/hpcc_glue.c, sim/ldcp_glue.c, through sim/dcc_sim.h's API
 *   kmod    tcp_hpcc.c, tcp_ldcp.c over kshim/ (kmod_*.c)
 *   bpf     tools/bpf/tcp_hpcc.bpf.c, tcp_ldcp.bpf.c over bshim/ (bpf_*.c)
 */
#ifndef _GLUE_H
#define _GLUE_H

#include <linux/types.h>

#include "dcc_sim.h"

enum glue_op {
	GLUE_INIT,
	GLUE_UPDATE,		/* hpcc's cong_control: A acked */
	GLUE_IN_ACK_EVENT,	/* ldcp: A the ACK's flags' ECE, 0 or 1 */
	GLUE_CONG_CONTROL,	/* ldcp: A acked_sacked, B losses */
	GLUE_SET_STATE,		/* A the new state */
	GLUE_CWND_EVENT,	/* A the event */
	GLUE_SSTHRESH,		/* returns ssthresh */
	GLUE_UNDO_CWND,		/* returns the cwnd */
	GLUE_NOPS,
};

struct glue_flavour {
	const char	*name;
	/* a socket with @cfg (struct dcc_sim_hpcc_cfg or _ldcp_cfg) */
	void		*(*new)(const void *cfg);
	void		(*free)(void *h);
	struct dcc_sim_io *(*io)(void *h);
	/* TCP's state from io, the call, what it wrote back to io */
	__u32		(*call)(void *h, int op, int a, int b);
	/* hpcc's W (bytes), ldcp's cw (2^-16 packets) */
	__u32		(*w)(void *h);
	/* counter @i: the socket's, or with ctr_global the flavour's */
	__u64		(*ctr)(void *h, int i);
	int		ctr_global;
	/*
	 * The receiver's side of the kernel's flavours: the ACKs the glue
	 * sent (the flavour's count) and icsk_ack.pending, which the
	 * wrapper sets to glue_ack_pending before each call; NULL in the
	 * model, whose receivers send no ACK of their own
	 */
	__u32		(*rx)(void *h);
};

/* icsk_ack.pending's bits */
#define GLUE_ACK_TIMER		2
#define GLUE_ACK_NOW		16

extern __u8 glue_ack_pending;

extern const struct glue_flavour glue_model, glue_kmod, glue_bpf;

#endif /* _GLUE_H */
