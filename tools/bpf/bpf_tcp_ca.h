/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF congestion controls (tcp_hpcc.bpf.c, tcp_ldcp.bpf.c) see of
 * the kernel: the few fields of struct sock, tcp_sock and rate_sample they
 * read or write, declared with preserve_access_index so that libbpf
 * relocates every access to the running kernel's layout (CO-RE), and the
 * kernel's helpers of net/tcp.h they use, rewritten for BPF.
 *
 * Only these fields are declared, not a vmlinux.h: the object then builds
 * on any machine, with or without BTF, from the kernel's uapi headers and
 * the project's include/ (whose headers include <linux/types.h>, which a
 * vmlinux.h would clash with).  A field missing from a kernel fails the
 * load with the field's name, never silently.
 *
 * What a BPF congestion control may write is the kernel's choice
 * (bpf_tcp_ca_btf_struct_access()): on 6.1 sk_pacing_rate,
 * sk_pacing_status, icsk_ca_priv, icsk_ack.pending, snd_cwnd,
 * snd_cwnd_cnt, snd_ssthresh and ecn_flags.  Documentation/bpf.rst.
 */
#ifndef _DCC_BPF_TCP_CA_H
#define _DCC_BPF_TCP_CA_H

#include <stdbool.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>

#define TCP_CA_NAME_MAX		16
#define TCP_CONG_NEEDS_ECN	0x2

#define USEC_PER_MSEC		1000ULL
#define USEC_PER_SEC		1000000ULL
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL
#define U32_MAX			0xffffffffU

struct sock_common {
	__be32		skc_daddr;
	__be32		skc_rcv_saddr;
	__be16		skc_dport;
	__u16		skc_num;
	unsigned short	skc_family;
	unsigned char	skc_state;
} __attribute__((preserve_access_index));

enum sk_pacing {
	SK_PACING_NONE		= 0,
	SK_PACING_NEEDED	= 1,
	SK_PACING_FQ		= 2,
};

struct sock {
	struct sock_common	__sk_common;
	unsigned long		sk_pacing_rate;
	unsigned long		sk_max_pacing_rate;
	__u32			sk_pacing_status;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops;

/*
 * The kernel's nesting: a socket starts with its struct sock.  CO-RE
 * finds each field by name, so it does not matter to BPF; compiled as
 * host C (selftests/unit/glue/) the fields must not overlap.
 */
struct inet_sock {
	struct sock		sk;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	struct inet_sock	icsk_inet;
	const struct tcp_congestion_ops *icsk_ca_ops;
	/* 6 bits on 6.1, 5 on 6.18: read with BPF_CORE_READ_BITFIELD */
	__u8			icsk_ca_state:5;
	struct {
		__u8		pending;
	} icsk_ack;
	__u64			icsk_ca_priv[104 / sizeof(__u64)];
} __attribute__((preserve_access_index));

struct minmax_sample {
	__u32	t;
	__u32	v;
} __attribute__((preserve_access_index));

struct minmax {
	struct minmax_sample s[3];
} __attribute__((preserve_access_index));

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32	mss_cache;
	__u32	snd_cwnd;
	__u32	snd_cwnd_clamp;
	__u32	snd_ssthresh;
	struct minmax rtt_min;
	__u8	ecn_flags;
	__u64	tcp_mstamp;
	__u32	rcv_nxt;
	__u32	snd_nxt;
	__u32	snd_una;
	__u32	srtt_us;
	__u32	packets_out;
	__u32	delivered;
} __attribute__((preserve_access_index));

struct rate_sample {
	int	losses;
	__u32	acked_sacked;
} __attribute__((preserve_access_index));

/* The members this project's BPF congestion controls fill in. */
struct tcp_congestion_ops {
	char name[TCP_CA_NAME_MAX];
	__u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
	__u32 (*ssthresh)(struct sock *sk);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, int ev);
	void (*in_ack_event)(struct sock *sk, __u32 flags);
	__u32 (*undo_cwnd)(struct sock *sk);
	/* (sk, rs) before 6.10, (sk, ack, flag, rs) since: BPF_CC_RS() */
	void (*cong_control)(void);
} __attribute__((preserve_access_index));

/* A TCP socket iterator's context (iter/tcp, for dccbpf show) */
struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__tcp {
	struct bpf_iter_meta *meta;
	struct sock_common *sk_common;
} __attribute__((preserve_access_index));

#define AF_INET		2

enum tcp_ca_state {
	TCP_CA_Open	= 0,
	TCP_CA_Disorder	= 1,
	TCP_CA_CWR	= 2,
	TCP_CA_Recovery	= 3,
	TCP_CA_Loss	= 4,
};

enum tcp_ca_event {
	CA_EVENT_TX_START	= 0,
	CA_EVENT_CWND_RESTART	= 1,
	CA_EVENT_COMPLETE_CWR	= 2,
	CA_EVENT_LOSS		= 3,
	CA_EVENT_ECN_NO_CE	= 4,
	CA_EVENT_ECN_IS_CE	= 5,
};

#define CA_ACK_ECE		4

#define TCP_ECN_OK		1
#define TCP_ECN_DEMAND_CWR	4

#define ICSK_ACK_TIMER		2
#define ICSK_ACK_NOW		16

/*
 * cong_control's arguments changed in 6.10 (the ACK and its flags came
 * before the rate sample).  One program serves both: the loader reads
 * the running kernel's BTF and sets CONFIG_DCC_CONG_CONTROL_ACK (a
 * Kconfig value of this project's, given to libbpf with the object's
 * other Kconfig externs, not the kernel's) before the load; the
 * verifier sees a constant, and the branch for the other kernel is dead
 * code it never checks (an argument 6.1 does not have would fail it).
 * Two loads at fixed offsets: in C, clang folds them into one load at
 * ctx + (8 or 24), and the verifier refuses a context pointer moved by
 * a register.
 */
extern bool CONFIG_DCC_CONG_CONTROL_ACK __kconfig;

static __always_inline const struct rate_sample *bpf_cc_rs(__u64 *ctx)
{
	__u64 rs;

#ifdef DCC_BPF_HOST
	/* the glue's userspace harness (selftests/unit/glue/bshim/) */
	rs = ctx[CONFIG_DCC_CONG_CONTROL_ACK ? 3 : 1];
#else
	if (CONFIG_DCC_CONG_CONTROL_ACK)
		asm volatile("%0 = *(u64 *)(%1 + 24)" : "=r"(rs) : "r"(ctx));
	else
		asm volatile("%0 = *(u64 *)(%1 + 8)" : "=r"(rs) : "r"(ctx));
#endif
	return (const struct rate_sample *)rs;
}

#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a), _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d) ({ typeof(d) _d = (d); ((n) + _d - 1) / _d; })
#define BUILD_BUG_ON(c)	((void)sizeof(char[1 - 2 * !!(c)]))

/*
 * The TCP socket the iterator is at, when @name's congestion control
 * runs it (the name compared, as the iterator cannot know the address
 * of the kernel's copy of our struct_ops); its endpoints printed to @seq.
 */
static __always_inline struct tcp_sock *bpf_iter_cc_sock(struct bpf_iter__tcp *ctx,
							 const char *name,
							 unsigned int len)
{
	struct sock_common *skc = ctx->sk_common;
	char cc[TCP_CA_NAME_MAX] = {};
	struct tcp_sock *tp;
	__be32 a[2];
	unsigned int i;

	if (!skc)
		return NULL;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || !tp->inet_conn.icsk_ca_ops)
		return NULL;
	bpf_probe_read_kernel(cc, sizeof(cc), tp->inet_conn.icsk_ca_ops->name);
	for (i = 0; i < len && i < TCP_CA_NAME_MAX; i++)
		if (cc[i] != name[i])
			return NULL;
	if (skc->skc_family == AF_INET) {
		a[0] = skc->skc_rcv_saddr;
		a[1] = skc->skc_daddr;
		BPF_SEQ_PRINTF(ctx->meta->seq, "%pI4:%u %pI4:%u", &a[0],
			       skc->skc_num, &a[1], bpf_ntohs(skc->skc_dport));
	} else {
		BPF_SEQ_PRINTF(ctx->meta->seq, "[v6]:%u [v6]:%u", skc->skc_num,
			       bpf_ntohs(skc->skc_dport));
	}
	return tp;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline __u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static __always_inline void tcp_snd_cwnd_set(struct tcp_sock *tp, __u32 val)
{
	tp->snd_cwnd = val;
}

static __always_inline __u8 icsk_ca_state(const struct sock *sk)
{
	return BPF_CORE_READ_BITFIELD(inet_csk(sk), icsk_ca_state);
}

static __always_inline __u32 tcp_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

static __always_inline int tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

#endif /* _DCC_BPF_TCP_CA_H */
