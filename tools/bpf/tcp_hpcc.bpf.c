// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_bpf: tcp_hpcc (HPCC++, draft-miao-iccrg-hpccplus-01) as a BPF
 * struct_ops congestion control, for hosts that load no modules.
 *
 * The algorithm is include/hpcc.h, the code tcp_hpcc.c and the unit tests
 * run; this file is the adapter tcp_hpcc.c is for the module, and follows
 * it function by function.  What it cannot do the same way
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
 * fallback, Reno with TCP's pacing rule, from the start.
 */
#include <linux/bpf.h>

#include "bpf_tcp_ca.h"
#include "csig.h"
#include "csig_bpf.h"
#include "dcc_bpf.h"
#include "hpcc.h"

/* the kernel's Reno, which a congestion control may call (6.1 and later) */
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

char LICENSE[] SEC("license") = "GPL";

/* tcp_hpcc's parameters, with its defaults; dccbpf load may set them */
struct hpcc_bpf_cfg cfg = HPCC_BPF_CFG_INIT;

/* The BPF flavour's CSIG state: read only, shared by pinning. */
CSIG_BPF_SK_MAP(csig_sk);

DCC_BPF_COUNTERS_MAP(hpcc_bpf_cnt);

static __always_inline void count(int i)
{
	dcc_bpf_count(&hpcc_bpf_cnt, i);
}

enum { SRC_NONE, SRC_U, SRC_STD };

/* Per-socket state, in icsk_ca_priv: tcp_hpcc.c's less the TSO cap. */
struct hpcc {
	struct hpcc_state st;
	__u64	info_ns;	/* newest telemetry (or the flow's start) */
	__u64	seen_ns[2];	/* arrival of the samples used: U or PD, ABW/C */
	__u64	use_ns;		/* start of hpcc_w_used()'s average */
	__u32	info_delivered;	/* tp->delivered at info_ns */
	__u32	w_ai;		/* this flow's W_ai, bytes */
	__u32	pd_last;	/* the previous PD sample, ns (input std) */
	__u32	use_delivered;	/* tp->delivered at use_ns */
	__u32	w_used_prev;	/* hpcc_w_used() when use_ns was set */
	__u32	w_loss;		/* W before the last loss (hpcc_loss()) */
	__u8	negotiated;
	__u8	in_loss;	/* in a loss episode (its response taken) */
	__u8	fallback;	/* Reno now */
	__u8	source;		/* SRC_* of the last sample */
};

static const struct csig_quant quant = CSIG_DEFAULT_QUANT_INIT;

/* T of this flow, ns: the parameter, else the flow's min RTT. */
static __u64 hpcc_t_ns(const struct tcp_sock *tp)
{
	__u32 us = cfg.base_rtt_us;

	if (!us) {
		us = tcp_min_rtt(tp);
		if (us == ~0U || !us)
			us = tp->srtt_us ? tp->srtt_us >> 3 : USEC_PER_MSEC;
	}
	return (__u64)us * NSEC_PER_USEC;
}

/* Line rate * @rtt_ns, bytes, within what the socket can use. */
static __u32 hpcc_w_line(const struct tcp_sock *tp, __u64 rtt_ns)
{
	__u64 w = hpcc_line_bytes(cfg.line_rate_mbps, rtt_ns);
	__u64 cap = (__u64)tp->snd_cwnd_clamp * tp->mss_cache;

	w = min(w, cap);
	return (__u32)clamp(w, 2ULL * tp->mss_cache, 0xffffffffULL);
}

static void hpcc_params(const struct tcp_sock *tp, const struct hpcc *ca,
			struct hpcc_params *p)
{
	__u32 mss = tp->mss_cache;
	__u64 srtt_ns = (__u64)(tp->srtt_us >> 3) * NSEC_PER_USEC;

	p->t_ns = hpcc_t_ns(tp);
	p->eta = cfg.eta * HPCC_FRAC_ONE / 100;
	p->max_stage = cfg.max_stage;
	p->commit_samples = cfg.commit_samples;
	p->commit_wait_us = min_t(__u64, div_u64(p->t_ns * cfg.commit_wait_pct,
						 100 * NSEC_PER_USEC), U32_MAX);
	p->grow_pct = cfg.grow_pct;
	p->w_used = 0;
	p->w_ai = ca->w_ai;
	p->w_loss = ca->w_loss;
	p->w_min = max(mss / 8, 64U);
	p->w_max = max(hpcc_w_line(tp, max(p->t_ns, srtt_ns)), p->w_min);
}

/* R = W / T, at most the line rate. */
static __u64 hpcc_pacing(__u32 w, __u64 t_ns)
{
	return min_t(__u64, hpcc_rate(w, t_ns), (__u64)cfg.line_rate_mbps * 125000);
}

static void hpcc_set_pacing(struct sock *sk, __u64 rate)
{
	sk->sk_pacing_rate = min_t(__u64, rate, sk->sk_max_pacing_rate);
}

/* W into TCP: snd_cwnd in whole segments, ssthresh with it, R = W / T. */
static __u64 hpcc_apply(struct sock *sk, const struct hpcc *ca, __u64 t_ns,
			__u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = hpcc_pacing(ca->st.W, t_ns);
	__u32 mss = max(tp->mss_cache, 1U);
	__u32 cwnd = clamp(DIV_ROUND_UP(ca->st.W, mss), 2U, tp->snd_cwnd_clamp);

	tp->snd_ssthresh = cwnd;
	if (icsk_ca_state(sk) == TCP_CA_Loss)
		cwnd = min(cwnd, tp->snd_cwnd + acked);
	tp->snd_cwnd = cwnd;
	hpcc_set_pacing(sk, rate);
	return rate;
}

static __always_inline int hpcc_use_spans(const struct hpcc *ca, __u64 now,
					  __u64 t_ns)
{
	return now > ca->use_ns && now - ca->use_ns >= t_ns;
}

static __always_inline void hpcc_use_restart(const struct tcp_sock *tp,
					     struct hpcc *ca, __u64 now,
					     __u32 prev)
{
	ca->use_ns = now;
	ca->use_delivered = tp->delivered;
	ca->w_used_prev = prev;
}

SEC("struct_ops/hpcc_init")
void BPF_PROG(hpcc_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	struct csig_bpf_sk *cs;
	struct hpcc_params p;
	__u32 w_init;

	BUILD_BUG_ON(sizeof(*ca) > sizeof(inet_csk(sk)->icsk_ca_priv));
	__builtin_memset(ca, 0, sizeof(*ca));
	cs = bpf_sk_storage_get(&csig_sk, sk, 0, 0);
	ca->negotiated = cs && (cs->state & CSIG_BPF_NEGOTIATED);
	ca->info_ns = bpf_ktime_get_ns();
	hpcc_use_restart(tp, ca, ca->info_ns, 0);
	ca->info_delivered = tp->delivered;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	if (!ca->negotiated) {
		/* Reno from TCP's initial window */
		ca->fallback = 1;
		count(HPCC_C_FLOWS_NO_CSIG);
		return;
	}
	count(HPCC_C_FLOWS);
	/* flows start at line rate: W_init = line rate * T */
	w_init = hpcc_w_line(tp, hpcc_t_ns(tp));
	hpcc_params(tp, ca, &p);
	ca->w_ai = cfg.w_ai ?: hpcc_default_w_ai(w_init, p.eta, cfg.nflows);
	p.w_ai = ca->w_ai;
	hpcc_state_init(&ca->st, &p, w_init, tp->snd_una);
	hpcc_apply(sk, ca, p.t_ns, 0);
}

/* A copy of one sample of the socket's CSIG state. */
static __always_inline void hpcc_copy(struct csig_bpf_sample *to,
				      const struct csig_bpf_sample *from)
{
	to->s = from->s;
	to->t_ns = from->t_ns;
}

/*
 * The newest sample of the configured input, as tcp_hpcc.c's
 * hpcc_sample(): the SRC_* it came from, with *u and *ts, when it is one
 * not used before, else 0.
 */
static int hpcc_sample(struct sock *sk, struct hpcc *ca, __u64 t_ns,
		       __u32 *u, __u64 *ts)
{
	struct csig_bpf_sample a, b;
	struct csig_bpf_sk *cs;
	__u64 pd, abwc, v;
	__u32 have;

	cs = bpf_sk_storage_get(&csig_sk, sk, 0, 0);
	if (!cs)
		return 0;
	have = cs->have;
	if (cfg.input != HPCC_BPF_IN_STD && (have & (1U << CSIG_T_U))) {
		hpcc_copy(&a, &cs->s[CSIG_T_U]);
		if (a.t_ns == ca->seen_ns[0] && ca->source == SRC_U)
			return 0;
		ca->seen_ns[0] = a.t_ns;
		*u = csig_decode(&quant, a.s.format, CSIG_T_U, a.s.s);
		*ts = a.t_ns;
		return SRC_U;
	}
	if (cfg.input == HPCC_BPF_IN_U)
		return 0;
	/* u = max(PD) / T + 1 - min(ABW/C): both must be there */
	if ((have & ((1U << CSIG_T_ABWC) | (1U << CSIG_T_PD))) !=
	    ((1U << CSIG_T_ABWC) | (1U << CSIG_T_PD)))
		return 0;
	hpcc_copy(&b, &cs->s[CSIG_T_ABWC]);
	hpcc_copy(&a, &cs->s[CSIG_T_PD]);
	if (a.t_ns == ca->seen_ns[0] && b.t_ns == ca->seen_ns[1] &&
	    ca->source == SRC_STD)
		return 0;
	ca->seen_ns[0] = a.t_ns;
	ca->seen_ns[1] = b.t_ns;
	pd = csig_decode(&quant, a.s.format, CSIG_T_PD, a.s.s);
	abwc = csig_decode(&quant, b.s.format, CSIG_T_ABWC, b.s.s);
	/* line 5's min(qlen, qlen'), on the delay: PD = qlen / C */
	v = min_t(__u64, pd, ca->pd_last);
	ca->pd_last = min_t(__u64, pd, U32_MAX);
	v = t_ns ? div64_u64(v << HPCC_FRAC_SHIFT, t_ns) : U32_MAX;
	v += HPCC_FRAC_ONE - min_t(__u64, abwc, HPCC_FRAC_ONE);
	*u = (__u32)min_t(__u64, v, U32_MAX);
	*ts = max(a.t_ns, b.t_ns);
	return SRC_STD;
}

/* Reno, with TCP's pacing rule, when there is no telemetry. */
static void hpcc_reno(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int acked = rs->acked_sacked;
	__u64 rate;

	count(HPCC_C_FALLBACK_ACKS);
	if (icsk_ca_state(sk) >= TCP_CA_Recovery)
		tp->snd_cwnd = max(min(tp->snd_cwnd, tp->snd_ssthresh), 2U);
	else if (acked > 0)
		tcp_reno_cong_avoid(sk, tp->snd_una, acked);
	/* tcp_update_pacing_rate(): 200% of cwnd / srtt in slow start, 120% after */
	rate = (__u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	rate *= tcp_in_slow_start(tp) ? 200 : 120;
	rate *= max(tp->snd_cwnd, tp->packets_out);
	if (tp->srtt_us)
		rate = div64_u64(rate, tp->srtt_us);
	hpcc_set_pacing(sk, rate);
}

/* What this flow used since the last commit, as a window (tcp_hpcc.c). */
static __u32 hpcc_w_used(const struct tcp_sock *tp, const struct hpcc *ca,
			 __u64 now, __u64 t_ns)
{
	__u64 dt, w;

	if (!hpcc_use_spans(ca, now, t_ns))
		return ca->w_used_prev;
	dt = div_u64(now - ca->use_ns, NSEC_PER_USEC);
	if (!dt)
		return ca->w_used_prev;
	w = hpcc_scale((__u64)(tp->delivered - ca->use_delivered) * tp->mss_cache,
		       max_t(__u64, div_u64(t_ns, NSEC_PER_USEC), tp->srtt_us >> 3),
		       dt);
	return min_t(__u64, w, U32_MAX);
}

static void hpcc_update(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	__u64 now = bpf_ktime_get_ns(), ts = 0, rtt;
	struct hpcc_params p;
	int src, acked;
	__u32 u = 0;

	/* the ACK of an active open's SYN comes before init */
	if (!ca->info_ns)
		return;
	if (!ca->negotiated) {
		hpcc_reno(sk, rs);
		return;
	}
	hpcc_params(tp, ca, &p);
	p.w_used = hpcc_w_used(tp, ca, now, p.t_ns);
	src = hpcc_sample(sk, ca, p.t_ns, &u, &ts);
	if (src) {
		ca->source = src;
		ca->info_ns = ts;
		ca->info_delivered = tp->delivered;
		count(src == SRC_U ? HPCC_C_SAMPLES_U : HPCC_C_SAMPLES_STD);
		if (ca->fallback) {
			/* telemetry is back: HPCC from the window Reno had */
			ca->fallback = 0;
			ca->st.W = clamp(tp->snd_cwnd * tp->mss_cache, p.w_min, p.w_max);
			ca->st.wc = ca->st.W;
			ca->st.inc_stage = 0;
			ca->st.last_update_seq = tp->snd_nxt;
			ca->st.passed = 0;
			hpcc_use_restart(tp, ca, now, 0);
			count(HPCC_C_RESUMES);
		}
		hpcc_measure_u(&ca->st, &p, u, ts);
	}
	/* stale: a few RTTs without news while a window was acked */
	rtt = max_t(__u64, p.t_ns, (__u64)(tp->srtt_us >> 3) * NSEC_PER_USEC);
	if (!ca->fallback && now > ca->info_ns &&
	    now - ca->info_ns > cfg.stale_rtts * rtt &&
	    tp->delivered - ca->info_delivered > tp->snd_cwnd) {
		ca->fallback = 1;
		tp->snd_ssthresh = tp->snd_cwnd;
		count(HPCC_C_FALLBACKS);
	}
	if (ca->fallback) {
		hpcc_reno(sk, rs);
		return;
	}
	/* in loss recovery W stays where hpcc_react_to_loss() put it */
	if (icsk_ca_state(sk) >= TCP_CA_Recovery)
		ca->st.committed = 0;
	else
		hpcc_new_ack(&ca->st, &p, tp->snd_una, tp->snd_nxt,
			     (__u32)tp->tcp_mstamp);
	if (ca->st.committed) {
		if (hpcc_use_spans(ca, now, p.t_ns))
			hpcc_use_restart(tp, ca, now, p.w_used);
		count(HPCC_C_COMMITS);
		if (ca->st.mi)
			count(HPCC_C_COMMITS_MI);
		if (ca->st.held)
			count(HPCC_C_COMMITS_HELD);
		if (ca->w_loss && ca->st.wc >= ca->w_loss)
			ca->w_loss = 0;
	}
	acked = rs->acked_sacked;
	hpcc_apply(sk, ca, p.t_ns, acked > 0 ? acked : 0);
}

/* (sk, rs) before 6.10, (sk, ack, flag, rs) since: bpf_cc_rs() */
SEC("struct_ops/hpcc_cong_control")
void hpcc_cong_control(__u64 *ctx)
{
	hpcc_update((struct sock *)ctx[0], bpf_cc_rs(ctx));
}

/* A loss episode, once (tcp_hpcc.c's hpcc_react_to_loss()). */
static void hpcc_react_to_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);
	struct hpcc_params p;

	if (ca->in_loss)
		return;
	ca->in_loss = 1;
	if (!ca->info_ns || !ca->negotiated || ca->fallback)
		return;
	hpcc_params(tp, ca, &p);
	ca->w_loss = hpcc_loss(&ca->st, &p, tp->snd_nxt);
	count(HPCC_C_LOSSES);
}

SEC("struct_ops/hpcc_set_state")
void BPF_PROG(hpcc_set_state, struct sock *sk, __u8 new_state)
{
	struct hpcc *ca = inet_csk_ca(sk);

	if (new_state < TCP_CA_Recovery)
		ca->in_loss = 0;
	else if (new_state != icsk_ca_state(sk))
		hpcc_react_to_loss(sk);
}

SEC("struct_ops/hpcc_cwnd_event")
void BPF_PROG(hpcc_cwnd_event, struct sock *sk, int ev)
{
	struct hpcc *ca = inet_csk_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		ca->in_loss = 0;
		hpcc_react_to_loss(sk);
	}
}

SEC("struct_ops/hpcc_ssthresh")
__u32 BPF_PROG(hpcc_ssthresh, struct sock *sk)
{
	const struct hpcc *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	if (ca->fallback)
		return max(tp->snd_cwnd >> 1U, 2U);
	return max(tp->snd_cwnd, 2U);
}

SEC("struct_ops/hpcc_undo_cwnd")
__u32 BPF_PROG(hpcc_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc *ca = inet_csk_ca(sk);

	if (ca->fallback)
		return tcp_reno_undo_cwnd(sk);
	if (ca->w_loss) {
		ca->st.W = max(ca->st.W, ca->w_loss);
		ca->st.wc = ca->st.W;
		ca->w_loss = 0;
		count(HPCC_C_UNDOS);
	}
	return max(tp->snd_cwnd, DIV_ROUND_UP(ca->st.W, max(tp->mss_cache, 1U)));
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
	struct hpcc ca;
	__u32 u;

	tp = bpf_iter_cc_sock(ctx, name, sizeof(name));
	if (!tp)
		return 0;
	bpf_probe_read_kernel(&ca, sizeof(ca), tp->inet_conn.icsk_ca_priv);
	u = (__u32)(((__u64)ca.st.U * 1000) >> HPCC_FRAC_SHIFT);
	BPF_SEQ_PRINTF(seq, " input %s U %u.%03u W %u Wc %u stage %u",
		       !ca.negotiated ? "none" : ca.fallback ? "fallback" :
		       ca.source == SRC_STD ? "std" : "u",
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
