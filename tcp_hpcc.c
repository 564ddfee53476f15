// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc: HPCC++ (draft-miao-iccrg-hpccplus-01) as a TCP congestion
 * control, driven by CSIG telemetry that tcp_csig_opt reflects.
 *
 * The algorithm is include/hpcc.h (MeasureInflight, ComputeWind, NewAck)
 * and the controller around it include/hpcc_ctl.h, the code hpcc_bpf
 * and the userspace unit tests run too: on every ACK it takes the newest
 * CSIG sample of the connection, turns it into the path's normalised
 * inflight u, runs MeasureInflight when the sample is new and NewAck
 * always, and sets the window W (snd_cwnd, rounded up to whole segments)
 * and the rate W / T (sk_pacing_rate; TCP paces internally when no fq
 * qdisc does).  This file is the module's glue: the pacing rate's TSO
 * cap (the socket's other accessors are include/dcc_ctl_kern.h's, which
 * tcp_ldcp.c shares), tcp_csig_opt's samples (csig_opt_read_mask()), the
 * tracepoints, the parameters, the per-namespace counters, the pacing
 * shift, get_info() and the registration.
 *
 * Inputs: the CSIG U signal (the path maximum of q / (C T) + txRate / C,
 * written by the data plane's switch ports), or the draft's standard
 * signals max(PD) and min(ABW/C), from which u = PD / T + 1 - ABW/C.
 * Without telemetry (no negotiation, tags stripped, samples older than
 * stale_rtts round trips) the flow falls back to Reno, counted, and comes
 * back when samples do; a flow whose negotiation shows up after it
 * started (a passive open) takes the telemetry path then, and one that
 * restarts after an idle period on stale telemetry probes the path
 * before its window opens.
 *
 * Documentation/tcp_hpcc.rst maps this to the draft line by line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "csig.h"
#include "csig_opt_api.h"
#include "dcc_pernet.h"
#include "gso_cap.h"
#include "hpcc_api.h"
#include "range_param.h"

#define CREATE_TRACE_POINTS
#include "tcp_hpcc_trace.h"

/* The module's own per-socket state, after the controller's. */
struct hpcc_ctl_flavour {
	struct gso_cap gso;	/* hpcc's cap on sk_gso_max_segs */
	u8	shift_saved;	/* sk_pacing_shift before hpcc */
};

/*
 * The flavour interface (include/dcc_ctl.h): include/dcc_ctl_kern.h's,
 * but for the pacing rate, which caps TSO bursts too.
 */
static void hpcc_set_pacing_rate(struct sock *sk, u64 rate);
#define dcc_set_pacing_rate hpcc_set_pacing_rate
#include "dcc_ctl_kern.h"
#include "hpcc_ctl.h"

/*
 * Parameters (include/range_param.h): a write outside a parameter's
 * range is refused with a message and leaves the old value; one inside
 * it derives the controller's constants again (hpcc_ctl_cfg_set()).
 */
static struct hpcc_ctl_cfg hpcc_cfg = { .p = HPCC_CFG_INIT };

static void hpcc_cfg_changed(void)
{
	hpcc_ctl_cfg_set(&hpcc_cfg);
}

DEFINE_RANGE_PARAM_OPS_NOTIFY(base_rtt_us, 0, 1000000, hpcc_cfg_changed);
module_param_cb(base_rtt_us, &base_rtt_us_ops, &hpcc_cfg.p.base_rtt_us, 0644);
MODULE_PARM_DESC(base_rtt_us,
		 "T, the known baseline RTT, us; 0: the flow's min RTT (0..1000000, default 0)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(eta, 50, 100, hpcc_cfg_changed);
module_param_cb(eta, &eta_ops, &hpcc_cfg.p.eta, 0644);
MODULE_PARM_DESC(eta,
		 "target utilisation eta, per cent (50..100, default 95)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(max_stage, 0, 100, hpcc_cfg_changed);
module_param_cb(max_stage, &max_stage_ops, &hpcc_cfg.p.max_stage, 0644);
MODULE_PARM_DESC(max_stage,
		 "additive increases before a multiplicative step (0..100, default 5)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(w_ai, 0, 16 << 20, hpcc_cfg_changed);
module_param_cb(w_ai, &w_ai_ops, &hpcc_cfg.p.w_ai, 0644);
MODULE_PARM_DESC(w_ai,
		 "additive increase W_ai, bytes; 0: W_init * (1 - eta) / nflows (0..16 MiB, default 0)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(nflows, 1, 65536, hpcc_cfg_changed);
module_param_cb(nflows, &nflows_ops, &hpcc_cfg.p.nflows, 0644);
MODULE_PARM_DESC(nflows,
		 "N of the W_ai rule of thumb: concurrent flows expected per link (1..65536, default 16)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(line_rate_mbps, 1, 4000000, hpcc_cfg_changed);
module_param_cb(line_rate_mbps, &line_rate_mbps_ops, &hpcc_cfg.p.line_rate_mbps, 0644);
MODULE_PARM_DESC(line_rate_mbps,
		 "line rate, Mbit/s: W_init = line rate * T, pacing at most this (1..4000000, default 10000)");
static unsigned int pacing_shift = 12;
DEFINE_RANGE_PARAM_OPS(pacing_shift, 8, 16);
module_param_cb(pacing_shift, &pacing_shift_ops, &pacing_shift, 0644);
MODULE_PARM_DESC(pacing_shift,
		 "sk_pacing_shift of hpcc sockets: TSO bursts of rate / 2^shift seconds (8..16, default 12)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(grow_pct, 0, 100, hpcc_cfg_changed);
module_param_cb(grow_pct, &grow_pct_ops, &hpcc_cfg.p.grow_pct, 0644);
MODULE_PARM_DESC(grow_pct,
		 "W grows past Wc only after the flow delivered this per cent of Wc / T over at least T; 0: always, as the draft (0..100, default 90)");
static unsigned int tso_cap = 1;
DEFINE_RANGE_PARAM_OPS(tso_cap, 0, 1);
module_param_cb(tso_cap, &tso_cap_ops, &tso_cap, 0644);
MODULE_PARM_DESC(tso_cap,
		 "1: TSO bursts of at most rate / 2^pacing_shift, 2 segments or more; 0: also the kernel's min-RTT term, up to 64 KB (0..1, default 1)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(commit_samples, 0, 16, hpcc_cfg_changed);
module_param_cb(commit_samples, &commit_samples_ops, &hpcc_cfg.p.commit_samples, 0644);
MODULE_PARM_DESC(commit_samples,
		 "new telemetry samples a commit of Wc also waits for once lastUpdateSeq is acked; 0: the draft's rule (0..16, default 2)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(commit_wait_pct, 0, 1000, hpcc_cfg_changed);
module_param_cb(commit_wait_pct, &commit_wait_pct_ops, &hpcc_cfg.p.commit_wait_pct, 0644);
MODULE_PARM_DESC(commit_wait_pct,
		 "time a commit of Wc also waits once lastUpdateSeq is acked, per cent of T: U's EWMA horizon; 0: the draft's rule (0..1000, default 100)");
DEFINE_RANGE_PARAM_OPS_NOTIFY(stale_rtts, 1, 1000, hpcc_cfg_changed);
module_param_cb(stale_rtts, &stale_rtts_ops, &hpcc_cfg.p.stale_rtts, 0644);
MODULE_PARM_DESC(stale_rtts,
		 "telemetry older than this many RTTs is stale: fallback once a window is acked, a probe at a restart (1..1000, default 4)");

static const char * const input_names[] = HPCC_INPUT_NAMES;

static int input_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(input_names, val);

	if (i < 0) {
		pr_err("input must be auto, u or std\n");
		return -EINVAL;
	}
	WRITE_ONCE(hpcc_cfg.p.input, i);
	return 0;
}

static int input_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", input_names[READ_ONCE(hpcc_cfg.p.input)]);
}

static const struct kernel_param_ops input_ops = {
	.set = input_set,
	.get = input_get,
};
module_param_cb(input, &input_ops, NULL, 0644);
MODULE_PARM_DESC(input,
		 "telemetry: u (CSIG U), std (PD and ABW/C) or auto (U when present, default)");

/* Per-namespace counters: /proc/net/tcp_hpcc, HPCC_C_* (include/hpcc_api.h). */
static const char * const hpcc_ctr_names[HPCC_C_NR] = HPCC_COUNTER_NAMES;

static struct dcc_pernet hpcc_pernet = {
	.proc_name = "tcp_hpcc",
	.ctr_names = hpcc_ctr_names,
	.nctrs = HPCC_C_NR,
	.ops = DCC_PERNET_OPS(hpcc_pernet, struct dcc_net),
};

/* The controller's hooks */
static struct hpcc_ctl *hpcc_ctl_ca(struct sock *sk)
{
	return inet_csk_ca(sk);
}

static const struct hpcc_ctl_cfg *hpcc_ctl_cfg(struct sock *sk)
{
	return &hpcc_cfg;
}

static void hpcc_ctl_count(struct sock *sk, int i)
{
	dcc_count(sock_net(sk), i);
}

static bool hpcc_ctl_negotiated(struct sock *sk)
{
	return csig_opt_negotiated(sk);
}

/* csig_opt_read_mask()'s samples, in type order, into their slots */
static unsigned int hpcc_ctl_read(struct sock *sk, unsigned int want,
				  struct hpcc_ctl_sample *out)
{
	static const u8 type[HPCC_CTL_NS] = {
		[HPCC_CTL_S_ABWC] = CSIG_T_ABWC,
		[HPCC_CTL_S_PD] = CSIG_T_PD,
		[HPCC_CTL_S_U] = CSIG_T_U,
	};
	struct csig_opt_sample sm[HPCC_CTL_NS];
	unsigned int got, i, n = 0;

	got = csig_opt_read_mask(sk, want, sm);
	for (i = 0; i < HPCC_CTL_NS; i++) {
		if (!(want & BIT(type[i])))
			continue;
		if (got & BIT(type[i])) {
			out[i].s = sm[n].s;
			out[i].t_ns = sm[n].t_ns;
		}
		n++;
	}
	return got;
}

static void hpcc_ctl_trace(struct sock *sk, const struct hpcc_ctl *ca,
			   u32 w, u64 rate, const char *source, bool upd)
{
	trace_hpcc_update(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			  ca->st.U, w, ca->st.wc, ca->st.inc_stage, rate,
			  upd && ca->st.committed, upd && ca->st.mi,
			  upd && ca->st.held, source, tcp_snd_cwnd(tcp_sk(sk)));
}

static void hpcc_ctl_trace_late(struct sock *sk, u32 looks)
{
	trace_hpcc_late_csig(inet_sk(sk)->inet_num, ntohs(inet_sk(sk)->inet_dport),
			     looks, tcp_snd_cwnd(tcp_sk(sk)));
}

/*
 * TSO bursts of rate >> sk_pacing_shift alone, without the min-RTT term
 * tcp_tso_autosize() adds, which a switch would see as queue
 * (Documentation/tcp_hpcc.rst, "Departures from the draft").  The only
 * bound a congestion control has is sk_gso_max_segs; a change made by
 * someone else (sk_setup_caps() on a new route) is taken as the
 * device's new limit.
 */
static void hpcc_cap_tso(struct sock *sk, u64 rate)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);
	u32 segs = 0;

	if (READ_ONCE(tso_cap)) {
		u32 burst = div_u64(rate >> READ_ONCE(sk->sk_pacing_shift),
				    tcp_sk(sk)->mss_cache);

		/* 2 or more, unless the device allows fewer */
		segs = max(burst, 2U);
	}
	sk_gso_cap(sk, &ca->fl.gso, segs);
}

/* dcc_set_pacing_rate(): the rate, and TSO bursts by it */
static void hpcc_set_pacing_rate(struct sock *sk, u64 rate)
{
	hpcc_cap_tso(sk, dcc_pacing_rate_write(sk, rate));
}

static void hpcc_init(struct sock *sk)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	memset(ca, 0, sizeof(*ca));
	gso_cap_init(&ca->fl.gso, sk->sk_gso_max_segs);
	ca->fl.shift_saved = sk->sk_pacing_shift;
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	/*
	 * Small TSO bursts: a switch sees a super-packet's frames back to
	 * back, and its queue signal the burst (HPCC assumes per-packet
	 * pacing).  TCP's default shift of 10 sends ~1 ms of data at once.
	 */
	WRITE_ONCE(sk->sk_pacing_shift, READ_ONCE(pacing_shift));
	hpcc_ctl_init(sk);
	/* Reno from TCP's initial window: its pacing rate, capped bursts */
	if (ca->fallback)
		hpcc_cap_tso(sk, READ_ONCE(sk->sk_pacing_rate));
}

/* 6.10 added the ACK and flags (Kbuild tests the header) */
#ifdef HPCC_CONG_CONTROL_ACK
static void hpcc_cong_control(struct sock *sk, u32 ack, int flag,
			      const struct rate_sample *rs)
{
	hpcc_ctl_update(sk, rs->acked_sacked);
}
#else
static void hpcc_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	hpcc_ctl_update(sk, rs->acked_sacked);
}
#endif

static void hpcc_set_state(struct sock *sk, u8 new_state)
{
	hpcc_ctl_set_state(sk, new_state);
}

static void hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	hpcc_ctl_cwnd_event(sk, ev);
}

static u32 hpcc_ssthresh(struct sock *sk)
{
	return hpcc_ctl_ssthresh(sk);
}

static u32 hpcc_undo_cwnd(struct sock *sk)
{
	return hpcc_ctl_undo_cwnd(sk);
}

/* Another algorithm takes the socket: TSO and pacing as they were. */
static void hpcc_release(struct sock *sk)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	if (!ca->started)
		return;
	sk_gso_cap(sk, &ca->fl.gso, 0);
	WRITE_ONCE(sk->sk_pacing_shift, ca->fl.shift_saved);
}

static size_t hpcc_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct hpcc_ctl *ca = hpcc_ctl_ca(sk);
	struct hpcc_diag_info *hi = (struct hpcc_diag_info *)info;

	BUILD_BUG_ON(sizeof(*hi) > sizeof(*info));
	if (!(ext & (1 << (INET_DIAG_INFO - 1)) ||
	      ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(hi, 0, sizeof(*hi));
	hi->u = ca->st.U;
	hi->w = ca->st.W;
	hi->wc = ca->st.wc;
	hi->t_us = hpcc_ctl_t_us(sk, &hpcc_cfg);
	hi->inc_stage = ca->st.inc_stage;
	hi->source = ca->fallback ? HPCC_DIAG_SRC_FALLBACK :
		     ca->source == HPCC_SRC_STD ? HPCC_DIAG_SRC_STD : HPCC_DIAG_SRC_U;
	hi->flags = (ca->negotiated ? HPCC_DIAG_F_NEGOTIATED : 0) |
		    (ca->st.have_sample ? HPCC_DIAG_F_SAMPLED : 0) |
		    (ca->st.mi ? HPCC_DIAG_F_MI : 0) |
		    (ca->st.held ? HPCC_DIAG_F_HELD : 0);
	*attr = HPCC_DIAG_ATTR;
	return sizeof(*hi);
}

static struct tcp_congestion_ops tcp_hpcc __read_mostly = {
	.init		= hpcc_init,
	.ssthresh	= hpcc_ssthresh,
	.undo_cwnd	= hpcc_undo_cwnd,
	.cong_control	= hpcc_cong_control,
	.set_state	= hpcc_set_state,
	.cwnd_event	= hpcc_cwnd_event,
	.release	= hpcc_release,
	.get_info	= hpcc_get_info,
	.owner		= THIS_MODULE,
	.name		= "hpcc",
};

static int __init hpcc_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct hpcc_ctl) > ICSK_CA_PRIV_SIZE);
	hpcc_ctl_cfg_set(&hpcc_cfg);
	err = dcc_pernet_register(&hpcc_pernet);
	if (err)
		return err;
	err = tcp_register_congestion_control(&tcp_hpcc);
	if (err) {
		dcc_pernet_unregister(&hpcc_pernet);
		return err;
	}
	csig_opt_register_consumer("hpcc");
	return 0;
}

static void __exit hpcc_unregister(void)
{
	csig_opt_unregister_consumer("hpcc");
	tcp_unregister_congestion_control(&tcp_hpcc);
	dcc_pernet_unregister(&hpcc_pernet);
}

module_init(hpcc_register);
module_exit(hpcc_unregister);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HPCC++ congestion control driven by CSIG telemetry");
