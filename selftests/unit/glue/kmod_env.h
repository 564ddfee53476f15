/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket and calls of a module's glue compiled over kshim/: included
 * by one kmod_*.c wrapper per harness binary, after the module's source,
 * which registered its tcp_congestion_ops (kshim_ca).
 */
#ifndef _KMOD_ENV_H
#define _KMOD_ENV_H

#include "glue.h"
#include "glue_call.h"
#include "glue_tp.h"

unsigned int kshim_acks_sent;

struct kmod_sk {
	struct tcp_sock		tp;	/* first: the glue's struct sock */
	struct net		net;	/* its own: counters per socket */
	struct dcc_sim_io	io;
};

static struct kmod_sk *kmod_sk(const void *h)
{
	return (struct kmod_sk *)h;
}

/* a socket, the module loaded (its init) on the first */
static struct kmod_sk *kmod_env_new(void)
{
	struct kmod_sk *k = calloc(1, sizeof(*k));
	struct sock *sk = (struct sock *)&k->tp;

	if (!k)
		abort();
	if (!kshim_ca && kshim_module_init())
		abort();
	sk->sk_net = &k->net;
	sk->sk_gso_max_segs = 64;
	sk->sk_pacing_shift = 10;
	k->tp.inet_conn.icsk_ca_ops = kshim_ca;
	return k;
}

/* a parameter written as sysfs writes it: refused out of its range */
static void kmod_param(const struct kernel_param_ops *ops, unsigned int *arg,
		       __u32 v)
{
	struct kernel_param kp = { .name = "glue", .ops = ops, .arg = arg };
	char buf[16];

	snprintf(buf, sizeof(buf), "%u\n", v);
	if (ops->set(buf, &kp)) {
		fprintf(stderr, "kmod: %u refused\n", v);
		abort();
	}
}

/* cong_control (sk, rs), as before 6.10 */
static void kmod_cc(const struct tcp_congestion_ops *ops, struct sock *sk,
		    struct rate_sample *rs)
{
	ops->cong_control(sk, rs);
}

/* TCP's state from io, the call through the module's table, back to io */
static __u32 kmod_env_call(void *h, int op, int a, int b)
{
	struct kmod_sk *k = h;
	struct sock *sk = (struct sock *)&k->tp;
	__u32 ret;

	glue_tp_in(sk, &k->io);
	k->tp.snd_cwnd_cnt = k->io.cwnd_cnt;
	k->tp.prior_cwnd = k->io.prior_cwnd;
	ret = glue_ops_call(kshim_ca, sk, op, a, b, kmod_cc);
	glue_tp_out(sk, &k->io);
	k->io.cwnd_cnt = k->tp.snd_cwnd_cnt;
	return ret;
}

static void kmod_env_free(void *h)
{
	free(h);
}

static struct dcc_sim_io *kmod_env_io(void *h)
{
	return &kmod_sk(h)->io;
}

static __u64 kmod_env_ctr(void *h, int i)
{
	return kmod_sk(h)->net.ctr[i];
}

static __u32 kmod_env_rx(void *h)
{
	return kshim_acks_sent << 8 | kmod_sk(h)->tp.inet_conn.icsk_ack.pending;
}

#define KMOD_FLAVOUR(new_fn, w_fn) {					\
	.name = "kmod",							\
	.new = new_fn,							\
	.free = kmod_env_free,						\
	.io = kmod_env_io,						\
	.call = kmod_env_call,						\
	.w = w_fn,							\
	.ctr = kmod_env_ctr,						\
	.rx = kmod_env_rx,						\
}

#endif /* _KMOD_ENV_H */
