/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every flavour of tcp_hpcc (the module tcp_hpcc.c, the BPF
 * congestion control hpcc_bpf, the userspace harness of the unit tests)
 * shows its user alike: the parameters with their defaults, the inputs
 * and the counters.  The module's /proc/net/tcp_hpcc and dccbpf's
 * counters of hpcc_bpf have these names in this order.  No code: the
 * loader (tools/dccbpf.c) includes it too.
 */
#ifndef _HPCC_API_H
#define _HPCC_API_H

#include <linux/types.h>

/* The telemetry a flow takes (parameter input). */
enum {
	HPCC_IN_AUTO,		/* U when present, else PD and ABW/C */
	HPCC_IN_U,		/* the CSIG U signal alone */
	HPCC_IN_STD,		/* PD and ABW/C alone */
};

#define HPCC_INPUT_NAMES	{ "auto", "u", "std" }

/*
 * The parameters, as written: tcp_hpcc's module parameters of the same
 * names (Documentation/tcp_hpcc.rst), hpcc_bpf's "cfg", which dccbpf
 * load sets before the load.
 */
struct hpcc_cfg {
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
	__u32	input;		/* HPCC_IN_* */
};

#define HPCC_CFG_INIT {							\
	.base_rtt_us = 0, .eta = 95, .max_stage = 5, .w_ai = 0,		\
	.nflows = 16, .line_rate_mbps = 10000, .grow_pct = 90,		\
	.commit_samples = 2, .commit_wait_pct = 100, .stale_rtts = 4,	\
	.input = HPCC_IN_AUTO,						\
}

/* The counters (hpcc_ctl_count()) */
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
	HPCC_C_FLOWS_LATE_CSIG,	/* flows without CSIG at the start that found it later */
	HPCC_C_PROBES,		/* restarts after T without telemetry: W held
				 * for the path's answer (hpcc_ctl_tx_start())
				 */
	HPCC_C_W_REMEMBERED,	/* flows whose W_init the ssthresh the kernel
				 * remembers for the destination lowered
				 */
	HPCC_C_NR,
};

#define HPCC_COUNTER_NAMES {						\
	"flows", "flows_no_csig", "samples_u", "samples_std", "commits",	\
	"commits_mi", "fallbacks", "resumes", "fallback_acks",		\
	"commits_held", "losses", "undos", "flows_late_csig",		\
	"probes", "w_remembered",					\
}

#endif /* _HPCC_API_H */
