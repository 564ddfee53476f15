// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_bpf: tcp_hpcc (HPCC++, draft-miao-iccrg-hpccplus-01) as a BPF
 * struct_ops congestion control, for hosts that load no modules.
 *
 * The controller is include/hpcc_ctl.h, around the algorithm of
 * include/hpcc.h, the code tcp_hpcc.c and the unit tests run; this file
 * is its glue, as tcp_hpcc.c is for the module.  What it cannot do the
 * same way
 * (Documentation/bpf.rst): no sk_pacing_shift and no sk_gso_max_segs
 * (a BPF congestion control may not write them), no get_info (ss shows
 * the name only; build/bin/dccbpf show prints the counters), no
 * tracepoint, parameters fixed when the loader loads it, counters for
 * the whole host rather than per network namespace.
 *
 * Telemetry comes from the BPF flavour's CSIG socket storage
 * (include/csig_bpf.h), pinned as /sys/fs/bpf/tcp-dcc/csig_sk, which the
 * host path's sock_ops program fills and this program only reads.  A
 * socket with no CSIG_BPF_NEGOTIATED state there runs the module's
 * fallback, Reno with TCP's pacing rule, and looks for a late
 * negotiation as the module does: the host path may mark a passive
 * open negotiated after hpcc_bpf's init.
 */
#include <linux/bpf.h>

#include "bpf_tcp_ca.h"
#include "csig.h"
#include "csig_bpf.h"
#include "dcc_bpf.h"
#include "dcc_ctl_bpf.h"
#include "hpcc_api.h"

char LICENSE[] SEC("license") = "GPL";

/* tcp_hpcc's parameters, with its defaults; dccbpf load may set them */
struct hpcc_cfg cfg = HPCC_CFG_INIT;

/* The BPF flavour's CSIG state: read only, shared by pinning. */
CSIG_BPF_SK_MAP(csig_sk);

DCC_BPF_COUNTERS_MAP(hpcc_bpf_cnt);

/* No state of its own: tcp_hpcc.c's less the TSO cap. */
struct hpcc_ctl_flavour {
};

#include "hpcc_ctl.h"

/*
 * What the controller takes from them (hpcc_ctl_cfg_set()): derived
 * again by each socket's init, the same every time, as cfg is fixed
 * when the program loads.
 */
static struct hpcc_ctl_cfg hpcc_k;

/* The controller's hooks */
static __always_inline struct hpcc_ctl *hpcc_ctl_ca(struct sock *sk)
{
	return inet_csk_ca(sk);
}

static __always_inline const struct hpcc_ctl_cfg *hpcc_ctl_cfg(struct sock *sk)
{
	return &hpcc_k;
}

static __always_inline void hpcc_ctl_count(struct sock *sk, int i)
{
	dcc_bpf_count(&hpcc_bpf_cnt, i);
}

static __always_inline bool hpcc_ctl_negotiated(struct sock *sk)
{
	struct csig_bpf_sk *cs = bpf_sk_storage_get(&csig_sk, sk, 0, 0);

	return cs && (cs->state & CSIG_BPF_NEGOTIATED);
}

/* A copy of one sample of the socket's CSIG state. */
static __always_inline void hpcc_copy(struct hpcc_ctl_sample *to,
				      const struct csig_bpf_sample *from)
{
	to->s = from->s;
	to->t_ns = from->t_ns;
}

/* Every slot filled: the verifier reads none it did not see written. */
static __always_inline unsigned int hpcc_ctl_read(struct sock *sk,
						  unsigned int want,
						  struct hpcc_ctl_sample *out)
{
	struct csig_bpf_sk *cs = bpf_sk_storage_get(&csig_sk, sk, 0, 0);

	if (!cs)
		return 0;
	hpcc_copy(&out[HPCC_CTL_S_ABWC], &cs->s[CSIG_T_ABWC]);
	hpcc_copy(&out[HPCC_CTL_S_PD], &cs->s[CSIG_T_PD]);
	hpcc_copy(&out[HPCC_CTL_S_U], &cs->s[CSIG_T_U]);
	return cs->have & want;
}

/* No tracepoint: dccbpf show and the counters instead. */
static __always_inline void hpcc_ctl_trace(struct sock *sk,
					   const struct hpcc_ctl *ca, __u32 w,
					   __u64 rate, const char *source,
					   bool upd)
{
}

static __always_inline void hpcc_ctl_trace_late(struct sock *sk, __u32 looks)
{
}

SEC("struct_ops/hpcc_init")
void BPF_PROG(hpcc_init, struct sock *sk)
{
	struct hpcc_ctl *ca = hpcc_ctl_ca(sk);

	BUILD_BUG_ON(sizeof(*ca) > sizeof(inet_csk(sk)->icsk_ca_priv));
	__builtin_memset(ca, 0, sizeof(*ca));
	hpcc_k.p = cfg;
	hpcc_ctl_cfg_set(&hpcc_k);
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	hpcc_ctl_init(sk);
}

/* (sk, rs) before 6.10, (sk, ack, flag, rs) since: bpf_cc_rs() */
SEC("struct_ops/hpcc_cong_control")
void hpcc_cong_control(__u64 *ctx)
{
	hpcc_ctl_update((struct sock *)ctx[0], bpf_cc_rs(ctx)->acked_sacked);
}

SEC("struct_ops/hpcc_set_state")
void BPF_PROG(hpcc_set_state, struct sock *sk, __u8 new_state)
{
	hpcc_ctl_set_state(sk, new_state);
}

SEC("struct_ops/hpcc_cwnd_event")
void BPF_PROG(hpcc_cwnd_event, struct sock *sk, int ev)
{
	hpcc_ctl_cwnd_event(sk, ev);
}

SEC("struct_ops/hpcc_ssthresh")
__u32 BPF_PROG(hpcc_ssthresh, struct sock *sk)
{
	return hpcc_ctl_ssthresh(sk);
}

SEC("struct_ops/hpcc_undo_cwnd")
__u32 BPF_PROG(hpcc_undo_cwnd, struct sock *sk)
{
	return hpcc_ctl_undo_cwnd(sk);
}

/*
 * Each hpcc_bpf socket's state, what tcp_hpcc's get_info gives ccstat:
 * dccbpf pins this iterator as /sys/fs/bpf/tcp-dcc/hpcc_bpf_socks, and a
 * read of it lists the sockets of the reader's network namespace.
 */
SEC("iter/tcp")
int hpcc_socks(struct bpf_iter__tcp *ctx)
{
	static const char name[] = HPCC_BPF_NAME;
	struct seq_file *seq = ctx->meta->seq;
	struct tcp_sock *tp;
	struct hpcc_ctl ca;
	__u32 u;

	tp = bpf_iter_cc_sock(ctx, name, sizeof(name));
	if (!tp)
		return 0;
	bpf_probe_read_kernel(&ca, sizeof(ca), tp->inet_conn.icsk_ca_priv);
	u = (__u32)(((__u64)ca.st.U * 1000) >> HPCC_FRAC_SHIFT);
	BPF_SEQ_PRINTF(seq, " input %s U %u.%03u W %u Wc %u stage %u",
		       !ca.negotiated ? "none" : ca.fallback ? "fallback" :
		       ca.source == HPCC_SRC_STD ? "std" : "u",
		       u / 1000, u % 1000, ca.st.W, ca.st.wc, ca.st.inc_stage);
	BPF_SEQ_PRINTF(seq, " mi %u held %u cwnd %u pacing %lu\n", ca.st.mi,
		       ca.st.held, tp->snd_cwnd,
		       ((struct sock *)tp)->sk_pacing_rate);
	return 0;
}

SEC(".struct_ops")
struct tcp_congestion_ops hpcc_bpf = {
	.init		= (void *)hpcc_init,
	.ssthresh	= (void *)hpcc_ssthresh,
	.undo_cwnd	= (void *)hpcc_undo_cwnd,
	.cong_control	= (void *)hpcc_cong_control,
	.set_state	= (void *)hpcc_set_state,
	.cwnd_event	= (void *)hpcc_cwnd_event,
	.name		= HPCC_BPF_NAME,
};
