/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module-free flavour's congestion controls, hpcc_bpf and ldcp_bpf
 * (tools/bpf/tcp_hpcc.bpf.c, tools/bpf/tcp_ldcp.bpf.c), as their loader
 * (tools/dccbpf.c) sees them: where they are pinned, and their counters,
 * the modules' /proc/net/tcp_hpcc and /proc/net/tcp_ldcp with the same
 * names in the same order.  Documentation/bpf.rst.
 *
 * Each object keeps its counters in a per-CPU array of one struct
 * dcc_bpf_counters, pinned as DCC_BPF_PIN_DIR/<name>; the struct_ops map
 * that registers the algorithm is pinned as DCC_BPF_PIN_DIR/<cc name>.
 */
#ifndef _DCC_BPF_H
#define _DCC_BPF_H

#include <linux/types.h>

#include "csig_bpf.h"

#define DCC_BPF_PIN_DIR		CSIG_BPF_PIN_DIR	/* /sys/fs/bpf/tcp-dcc */

#define HPCC_BPF_NAME		"hpcc_bpf"
#define LDCP_BPF_NAME		"ldcp_bpf"
#define HPCC_BPF_COUNTERS	"hpcc_bpf_cnt"
#define LDCP_BPF_COUNTERS	"ldcp_bpf_cnt"

/*
 * Parameters: tcp_hpcc's and tcp_ldcp's module parameters of the same
 * names, defaults and ranges (dccbpf checks them), in each object's
 * .data as "cfg"; dccbpf load sets them before the load.
 */
struct hpcc_bpf_cfg {
	__u32	base_rtt_us;	/* T, us; 0: the flow's min RTT */
	__u32	eta;		/* per cent */
	__u32	max_stage;
	__u32	w_ai;		/* bytes; 0: W_init * (1 - eta) / nflows */
	__u32	nflows;
	__u32	line_rate_mbps;
	__u32	grow_pct;
	__u32	commit_samples;
	__u32	commit_wait_pct;
	__u32	stale_rtts;
	__u32	input;		/* HPCC_BPF_IN_* */
};

enum { HPCC_BPF_IN_AUTO, HPCC_BPF_IN_U, HPCC_BPF_IN_STD };

#define HPCC_BPF_CFG_INIT {						\
	.base_rtt_us = 0, .eta = 95, .max_stage = 5, .w_ai = 0,		\
	.nflows = 16, .line_rate_mbps = 10000, .grow_pct = 90,		\
	.commit_samples = 2, .commit_wait_pct = 100, .stale_rtts = 4,	\
	.input = HPCC_BPF_IN_AUTO,					\
}

struct ldcp_bpf_cfg {
	__u32	alpha_milli;
	__u32	beta_milli;
	__u32	gamma_div;
	__u32	bw_mbps;
	__u32	base_rtt_us;
	__u32	fast_start;
	__u32	below_one_inc;
	__u32	ack_every;
};

#define LDCP_BPF_CFG_INIT {						\
	.alpha_milli = 1000, .beta_milli = 500, .gamma_div = 8,		\
	.bw_mbps = 10000, .base_rtt_us = 100, .fast_start = 1,		\
	.below_one_inc = 1, .ack_every = 1,				\
}

#define DCC_BPF_NCOUNTERS	16

struct dcc_bpf_counters {
	__u64	c[DCC_BPF_NCOUNTERS];
};

/* tcp_hpcc.c's counters */
enum {
	HPCC_C_FLOWS,		/* flows that started with telemetry (negotiated) */
	HPCC_C_FLOWS_NO_CSIG,	/* ... without: Reno from the start */
	HPCC_C_SAMPLES_U,	/* new U samples taken into MeasureInflight */
	HPCC_C_SAMPLES_STD,	/* new PD / ABW/C samples taken */
	HPCC_C_COMMITS,		/* Wc committed (NewAck past lastUpdateSeq) */
	HPCC_C_COMMITS_MI,	/* ... by the multiplicative branch */
	HPCC_C_FALLBACKS,	/* telemetry went stale: fell back to Reno */
	HPCC_C_RESUMES,		/* telemetry came back after a fallback */
	HPCC_C_FALLBACK_ACKS,	/* ACKs handled by the fallback */
	HPCC_C_COMMITS_HELD,	/* commits that kept W at Wc (grow_pct) */
	HPCC_C_LOSSES,		/* loss episodes with telemetry: W halved */
	HPCC_C_UNDOS,		/* ... found spurious: W restored */
	HPCC_C_NR,
};

#define HPCC_COUNTER_NAMES {						\
	"flows", "flows_no_csig", "samples_u", "samples_std", "commits",	\
	"commits_mi", "fallbacks", "resumes", "fallback_acks",		\
	"commits_held", "losses", "undos",				\
}

/* tcp_ldcp.c's counters */
enum {
	LDCP_C_FLOWS,		/* flows started */
	LDCP_C_FLOWS_NO_ECN,	/* ... without ECN negotiated */
	LDCP_C_FLOWS_FAST_START, /* ... in fast start */
	LDCP_C_FS_IW,		/* fast start ended: the whole IW acknowledged */
	LDCP_C_FS_LOSS,		/* fast start ended: a loss */
	LDCP_C_ACKS,		/* ACKs taken by PAWA */
	LDCP_C_ECE_ACKS,	/* ... with ECE */
	LDCP_C_BELOW_ONE,	/* ... with cw below one packet */
	LDCP_C_LOSSES,		/* loss episodes in the stable stage */
	LDCP_C_CE_CHANGES,	/* receiver: changes of the CE state echoed */
	LDCP_C_FS_NOT_ECT,	/* fast-start packets sent not-ECN-capable */
	LDCP_C_ACKS_NOW,	/* receiver: data segments ACKed at once */
	LDCP_C_UNDOS,		/* loss episodes found spurious */
	LDCP_C_NR,
};

#define LDCP_COUNTER_NAMES {						\
	"flows", "flows_no_ecn", "flows_fast_start", "fs_iw", "fs_loss",	\
	"acks", "ece_acks", "below_one", "losses", "ce_changes",	\
	"fs_not_ect", "acks_now", "undos",				\
}

#ifdef __bpf__
/* A congestion control's counters: a per-CPU array, pinned by its name. */
#define DCC_BPF_COUNTERS_MAP(name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, 1);					\
		__type(key, __u32);					\
		__type(value, struct dcc_bpf_counters);			\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} name SEC(".maps")

/* Add one to counter @i of the counters in @map. */
static __always_inline void dcc_bpf_count(void *map, int i)
{
	struct dcc_bpf_counters *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(map, &zero);
	if (c && i >= 0 && i < DCC_BPF_NCOUNTERS)
		c->c[i]++;
}
#endif

#endif /* _DCC_BPF_H */
