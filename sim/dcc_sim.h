/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ns-3 flavour of the shared controllers (include/hpcc_ctl.h,
 * include/ldcp_ctl.h): what the C glue (sim/hpcc_glue.c,
 * sim/ldcp_glue.c), which compiles the controllers as C, as the kernel
 * does, shares with the ns-3 classes (sim/tcp-dcc-sim.cc).
 *
 * The class copies TCP's state from ns-3's TcpSocketState into struct
 * dcc_sim_io before it calls the controller, which reads it through
 * the accessors of include/dcc_ctl.h, and copies back what the
 * controller wrote (cwnd, ssthresh, the pacing rate, the receiver's ECE
 * demand).  Windows in packets, times in ns and us, as in Linux.
 */
#ifndef _DCC_SIM_H
#define _DCC_SIM_H

#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the newest CSIG sample of one type (slots: ABW/C, PD, U) */
struct dcc_sim_sample {
	__u8		format, type;
	__u16	lm;
	__u32	s;
	__u64	t_ns;		/* its arrival */
};

struct dcc_sim_io {
	/* TCP's, in */
	__u32	cwnd, ssthresh, clamp, mss, srtt_us, min_rtt_us;
	__u32	delivered, packets_out, snd_una, snd_nxt, rcv_nxt;
	__u8		ca_state, ecn_ok;
	__u64	now_ns;
	__u64	max_pacing;	/* bytes/s */
	/* out */
	__u64	pacing;		/* bytes/s */
	__u8		demand_cwr;	/* ldcp's receiver: ECE on its ACKs */
	/* Reno (the fallback's): cwnd_cnt, and the cwnd before a reduction */
	__u32	cwnd_cnt, prior_cwnd;
	/* telemetry (hpcc) */
	__u8		negotiated;
	unsigned int	have;		/* bit t: a sample of CSIG type t */
	struct dcc_sim_sample sm[3];
	/* the trace hooks' last */
	__u32	trace_w;
	__u64	trace_rate;
	const char	*trace_src;
	__u64	ctr[16];	/* the controller's counters */
};

/* the counters' numbers (HPCC_C_NR, LDCP_C_NR; the glue checks them) */
#define DCC_SIM_HPCC_NCTR	15
#define DCC_SIM_LDCP_NCTR	14

/* hpcc: parameters as struct hpcc_cfg's (include/hpcc_api.h) */
struct dcc_sim_hpcc_cfg {
	__u32	base_rtt_us, eta, max_stage, w_ai, nflows, line_rate_mbps;
	__u32	grow_pct, commit_samples, commit_wait_pct, stale_rtts, input;
};

void *dcc_sim_hpcc_new(const struct dcc_sim_hpcc_cfg *cfg);
void dcc_sim_hpcc_free(void *h);
struct dcc_sim_io *dcc_sim_hpcc_io(void *h);
void dcc_sim_hpcc_defaults(struct dcc_sim_hpcc_cfg *cfg);
void dcc_sim_hpcc_init(void *h);
void dcc_sim_hpcc_update(void *h, int acked);
void dcc_sim_hpcc_set_state(void *h, __u8 new_state);
void dcc_sim_hpcc_cwnd_event(void *h, int ev);
__u32 dcc_sim_hpcc_ssthresh(void *h);
__u32 dcc_sim_hpcc_undo_cwnd(void *h);
__u32 dcc_sim_hpcc_w(void *h);	/* W, bytes */
const char *dcc_sim_hpcc_ctr_name(int i);

/* ldcp: the module's parameters */
struct dcc_sim_ldcp_cfg {
	__u32	alpha_milli, beta_milli, gamma_div, bw_mbps, base_rtt_us;
	__u32	fast_start, below_one_inc, ack_every;
};

void *dcc_sim_ldcp_new(const struct dcc_sim_ldcp_cfg *cfg);
void dcc_sim_ldcp_free(void *h);
struct dcc_sim_io *dcc_sim_ldcp_io(void *h);
void dcc_sim_ldcp_init(void *h);
void dcc_sim_ldcp_cong_control(void *h, int acked_sacked, int losses);
void dcc_sim_ldcp_in_ack_event(void *h, int ece);
void dcc_sim_ldcp_set_state(void *h, __u8 new_state);
void dcc_sim_ldcp_cwnd_event(void *h, int ev);
__u32 dcc_sim_ldcp_ssthresh(void *h);
__u32 dcc_sim_ldcp_undo_cwnd(void *h);
__u32 dcc_sim_ldcp_iw(void *h);	/* the flow's IW, 1/65536 packets */
__u32 dcc_sim_ldcp_cw(void *h);	/* cw, 1/65536 packets */
const char *dcc_sim_ldcp_ctr_name(int i);

#ifdef __cplusplus
}
#endif

#endif /* _DCC_SIM_H */
