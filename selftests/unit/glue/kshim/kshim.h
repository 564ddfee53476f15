/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the modules' congestion-control glue (tcp_hpcc.c, tcp_ldcp.c) uses
 * of the kernel, declared for userspace so that the glue's own source
 * compiles unchanged into selftests/unit/test_glue_*.c's harness, which
 * drives it beside the BPF flavour's glue and the model's.  Every header
 * the glue includes from the kernel (<net/tcp.h>, <linux/module.h>, ...)
 * is a one-line file of this directory that includes this one.
 *
 * struct sock and struct tcp_sock carry only the fields the glue and the
 * controllers read or write, under the kernel's names; the harness fills
 * them before each call and reads them after.  What the glue registers
 * (the congestion control, netfilter hooks, pernet operations) is
 * recorded, not acted on; the packet path (ldcp's fast start hook) only
 * compiles here.
 */
#ifndef _KSHIM_H
#define _KSHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/types.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define __init
#define __exit
#define __net_init
#define __net_exit
#define __read_mostly
#define __percpu
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define __maybe_unused		__attribute__((__unused__))
#define IS_ENABLED(x)		1

#define KBUILD_MODNAME		"kshim"
#define BIT(n)			(1UL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c)		((void)sizeof(char[1 - 2 * !!(c)]))
#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define cmpxchg(p, o, n)	__sync_val_compare_and_swap(p, o, n)
#define min(a, b)		({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)		({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)		({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)		({ t _a = (a), _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#define USEC_PER_MSEC		1000ULL
#define USEC_PER_SEC		1000000ULL
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL

/* printk: errors on stderr, the rest dropped */
#ifndef pr_fmt
#define pr_fmt(fmt)		fmt
#endif
#define pr_err(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	((void)0)

/* linux/math64.h */
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

/* linux/module.h, linux/moduleparam.h */
struct module;
#define THIS_MODULE		((struct module *)0)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)
#define MODULE_PARM_DESC(n, d)
/* the harness calls the module's init and exit through these */
#define module_init(fn)		int kshim_module_init(void) { return fn(); }
#define module_exit(fn)		void kshim_module_exit(void) { fn(); }

struct kernel_param;

struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buf, const struct kernel_param *kp);
};

struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};

#define module_param_cb(n, o, a, perm)					\
	static const struct kernel_param __param_##n __maybe_unused = {	\
		.name = #n, .ops = (o), .arg = (a),			\
	}

static inline int param_set_uint_minmax(const char *val,
					const struct kernel_param *kp,
					unsigned int lo, unsigned int hi)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(val, &end, 0);
	if (errno || end == val || (*end && *end != '\n') || v < lo || v > hi)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static inline int param_get_uint(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%u\n", *(unsigned int *)kp->arg);
}

static inline int kshim_match_string(const char * const *a, size_t n,
				     const char *s)
{
	size_t i, l = strcspn(s, "\n");

	for (i = 0; i < n; i++)
		if (a[i] && strlen(a[i]) == l && !strncmp(a[i], s, l))
			return i;
	return -EINVAL;
}

#define sysfs_match_string(a, s)	kshim_match_string(a, ARRAY_SIZE(a), s)
#define sysfs_emit(buf, fmt, ...)	sprintf(buf, fmt, ##__VA_ARGS__)

/* the network namespace: the counters dcc_pernet.h's shim keeps */
struct net {
	u64	ctr[32];
};

struct pernet_operations {
	int (*init)(struct net *net);
	void (*exit)(struct net *net);
};

static inline int register_pernet_subsys(struct pernet_operations *ops)
{
	return 0;
}

static inline void unregister_pernet_subsys(struct pernet_operations *ops)
{
}

/* linux/mutex.h: one thread */
struct mutex {
	int	held;
};

#define DEFINE_MUTEX(m)			struct mutex m = { 0 }
#define mutex_lock(m)			((m)->held = 1)
#define mutex_unlock(m)			((m)->held = 0)
#define lockdep_assert_held(m)		((void)(m))

/* net/sock.h, net/inet_sock.h, net/inet_connection_sock.h */
enum sk_pacing {
	SK_PACING_NONE		= 0,
	SK_PACING_NEEDED	= 1,
	SK_PACING_FQ		= 2,
};

struct sock {
	struct net	*sk_net;
	unsigned long	sk_pacing_rate;
	unsigned long	sk_max_pacing_rate;
	u32		sk_pacing_status;
	u8		sk_pacing_shift;
	u16		sk_gso_max_segs;
	u16		sk_type;
	u16		sk_protocol;
};

static inline struct net *sock_net(const struct sock *sk)
{
	return sk->sk_net;
}

static inline bool sk_fullsock(const struct sock *sk)
{
	return true;
}

struct inet_sock {
	struct sock	sk;
	__u16		inet_num;
	__be16		inet_sport;
	__be16		inet_dport;
};

#define inet_sk(sk)		((struct inet_sock *)(sk))

struct tcp_congestion_ops;

#define ICSK_CA_PRIV_SIZE	(13 * sizeof(u64))
#define ICSK_ACK_TIMER		2
#define ICSK_ACK_NOW		16

struct inet_connection_sock {
	struct inet_sock		icsk_inet;
	const struct tcp_congestion_ops	*icsk_ca_ops;
	u8				icsk_ca_state;
	struct {
		u8	pending;
	} icsk_ack;
	u64				icsk_ca_priv[13];
};

static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

/* net/tcp.h */
/* enum tcp_ca_state: the uapi's <linux/tcp.h> */
enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

#define CA_ACK_SLOWPATH		(1 << 0)
#define CA_ACK_WIN_UPDATE	(1 << 1)
#define CA_ACK_ECE		(1 << 2)

#define TCP_ECN_OK		1
#define TCP_ECN_QUEUE_CWR	2
#define TCP_ECN_DEMAND_CWR	4

#define TCP_CA_NAME_MAX		16
#define TCP_CONG_NEEDS_ECN	0x2

struct minmax_sample {
	u32	t;
	u32	v;
};

struct minmax {
	struct minmax_sample s[3];
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32	mss_cache;
	u32	snd_cwnd;
	u32	snd_cwnd_cnt;
	u32	snd_cwnd_clamp;
	u32	snd_ssthresh;
	u32	prior_cwnd;
	u32	rcv_nxt;
	u32	snd_nxt;
	u32	snd_una;
	u32	srtt_us;
	u32	packets_out;
	u32	delivered;
	u8	ecn_flags;
	u64	tcp_mstamp;
	struct minmax rtt_min;
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	tp->snd_cwnd = val;
}

static inline u32 tcp_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

struct rate_sample {
	u32	acked_sacked;
	s32	losses;
};

struct ack_sample;
union tcp_cc_info;

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	void (*set_state)(struct sock *sk, u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	u32 (*min_tso_segs)(struct sock *sk);
	/* (sk, rs) before 6.10: the harness builds the glue that way */
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
	u32 (*undo_cwnd)(struct sock *sk);
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info);
	char name[TCP_CA_NAME_MAX];
	struct module *owner;
	u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

/* what the module registered (the harness's handle on it) */
static struct tcp_congestion_ops *kshim_ca;

static inline int tcp_register_congestion_control(struct tcp_congestion_ops *ca)
{
	if (kshim_ca)
		return -EEXIST;
	kshim_ca = ca;
	return 0;
}

static inline void tcp_unregister_congestion_control(struct tcp_congestion_ops *ca)
{
	kshim_ca = NULL;
}

/*
 * The kernel's Reno (net/ipv4/tcp_cong.c), with the model's reading of
 * it (sim/dcc_reno.h), so that the flavours' fallbacks compare.
 */
#include "dcc_reno.h"

static inline void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	dcc_reno_ai(&tp->snd_cwnd, &tp->snd_cwnd_cnt, tp->snd_ssthresh,
		    tp->snd_cwnd_clamp, acked);
}

static inline u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(tp->snd_cwnd, tp->prior_cwnd);
}

/* the harness records the ACKs the receiver glue sends */
extern unsigned int kshim_acks_sent;

static inline void __tcp_send_ack(struct sock *sk, u32 rcv_nxt)
{
	kshim_acks_sent++;
}

/* the packet path: compiled, not run (fast start's hook) */
struct skb_shared_info {
	u16	gso_segs;
};

struct sk_buff {
	struct sock		*sk;
	unsigned int		len;
	unsigned char		*head;
	u16			network_header, transport_header;
	struct skb_shared_info	shinfo;
};

#define skb_shinfo(skb)		(&(skb)->shinfo)

static inline struct iphdr *ip_hdr(const struct sk_buff *skb)
{
	return (struct iphdr *)(skb->head + skb->network_header);
}

static inline struct ipv6hdr *ipv6_hdr(const struct sk_buff *skb)
{
	return (struct ipv6hdr *)(skb->head + skb->network_header);
}

static inline struct tcphdr *tcp_hdr(const struct sk_buff *skb)
{
	return (struct tcphdr *)(skb->head + skb->transport_header);
}

static inline unsigned int ip_hdrlen(const struct sk_buff *skb)
{
	return ip_hdr(skb)->ihl * 4;
}

static inline int skb_transport_offset(const struct sk_buff *skb)
{
	return skb->transport_header;
}

static inline int skb_network_offset(const struct sk_buff *skb)
{
	return skb->network_header;
}

static inline bool pskb_may_pull(struct sk_buff *skb, unsigned int len)
{
	return len <= skb->len;
}

static inline int skb_ensure_writable(struct sk_buff *skb, unsigned int len)
{
	return 0;
}

#define INET_ECN_NOT_ECT	0
#define INET_ECN_MASK		3

static inline int INET_ECN_is_not_ect(__u8 dsfield)
{
	return (dsfield & INET_ECN_MASK) == INET_ECN_NOT_ECT;
}

static inline void ipv4_change_dsfield(struct iphdr *iph, __u8 mask, __u8 value)
{
	iph->tos = (iph->tos & mask) | value;
}

static inline __u8 ipv6_get_dsfield(const struct ipv6hdr *h)
{
	return ntohs(*(const __be16 *)h) >> 4;
}

static inline void ipv6_change_dsfield(struct ipv6hdr *h, __u8 mask, __u8 value)
{
	__be16 *p = (__be16 *)h;

	*p = (*p & htons((((u16)mask << 4) | 0xf00f))) | htons((u16)value << 4);
}

/* linux/netfilter.h */
#define NF_ACCEPT		1
#define NFPROTO_IPV4		2
#define NFPROTO_IPV6		10
#define NF_INET_LOCAL_OUT	3
#define NF_IP_PRI_MANGLE	(-150)
#define NF_IP6_PRI_MANGLE	(-150)

struct nf_hook_state {
	u8	pf;
};

struct nf_hook_ops {
	unsigned int	(*hook)(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state);
	u8		pf;
	unsigned int	hooknum;
	int		priority;
};

static inline int nf_register_net_hooks(struct net *net,
					const struct nf_hook_ops *reg,
					unsigned int n)
{
	return 0;
}

static inline void nf_unregister_net_hooks(struct net *net,
					   const struct nf_hook_ops *reg,
					   unsigned int n)
{
}

/* linux/tracepoint.h: a module's events, inline functions doing nothing */
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	static inline void trace_##name(proto) {}

#endif /* _KSHIM_H */
