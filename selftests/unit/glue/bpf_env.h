/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel gives a BPF congestion control, for its glue compiled
 * as host C (bshim/bshim.h): the socket the harness hands it, the socket
 * storage and counter maps it looks up, the kfuncs (the kernel's Reno)
 * and helpers it calls.  Included by one bpf_*.c wrapper per harness
 * binary, after the program.
 */
#ifndef _BPF_ENV_H
#define _BPF_ENV_H

#include <stdlib.h>
#include <string.h>

#include "dcc_reno.h"
#include "glue.h"
#include "glue_call.h"
#include "glue_tp.h"

struct bpf_sk {
	struct tcp_sock		tp;	/* first: the program's struct sock */
	/* what bpf_tcp_ca.h's tcp_sock does not declare, the kfuncs use */
	__u32			cwnd_cnt, prior_cwnd;
	struct csig_bpf_sk	cs;	/* the CSIG host path's storage */
	struct dcc_sim_io	io;
};

static struct bpf_sk *bpf_sk(void *sk)
{
	return (struct bpf_sk *)sk;
}

/* one congestion control per binary: its counters map's one entry */
static struct dcc_bpf_counters bpf_env_ctr;
bool CONFIG_DCC_CONG_CONTROL_ACK;
unsigned int bpf_env_acks_sent;

void *bpf_sk_storage_get(void *map, void *sk, void *value, __u64 flags)
{
	return &bpf_sk(sk)->cs;
}

void *bpf_map_lookup_elem(void *map, const void *key)
{
	return *(const __u32 *)key ? NULL : &bpf_env_ctr;
}

long bpf_probe_read_kernel(void *dst, __u32 size, const void *src)
{
	memcpy(dst, src, size);
	return 0;
}

struct tcp_sock *bpf_skc_to_tcp_sock(void *sk)
{
	return sk;
}

long bpf_tcp_send_ack(void *tp, __u32 rcv_nxt)
{
	bpf_env_acks_sent++;
	return 0;
}

void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct bpf_sk *b = bpf_sk(sk);

	dcc_reno_ai(&b->tp.snd_cwnd, &b->cwnd_cnt, b->tp.snd_ssthresh,
		    b->tp.snd_cwnd_clamp, acked);
}

__u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	struct bpf_sk *b = bpf_sk(sk);

	return max(b->tp.snd_cwnd, b->prior_cwnd);
}

static struct bpf_sk *bpf_env_new(void)
{
	struct bpf_sk *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	return b;
}

/* the io's TCP state onto the socket, before a call */
static void bpf_env_in(struct bpf_sk *b)
{
	glue_tp_in((struct sock *)&b->tp, &b->io);
	b->cwnd_cnt = b->io.cwnd_cnt;
	b->prior_cwnd = b->io.prior_cwnd;
}

static void bpf_env_out(struct bpf_sk *b)
{
	glue_tp_out((struct sock *)&b->tp, &b->io);
	b->io.cwnd_cnt = b->cwnd_cnt;
}

/* cong_control's context: (sk, rs) before 6.10 */
static void bpf_env_cc(const struct tcp_congestion_ops *ops, struct sock *sk,
		       struct rate_sample *rs)
{
	__u64 ctx[4] = { (__u64)(unsigned long)sk, (__u64)(unsigned long)rs };

	((void (*)(__u64 *))ops->cong_control)(ctx);
}

/* TCP's state from io, the call through the program's table, back to io */
static __u32 bpf_env_call(const struct tcp_congestion_ops *ops, void *h,
			  int op, int a, int b)
{
	struct bpf_sk *bs = h;
	__u32 ret;

	bpf_env_in(bs);
	ret = glue_ops_call(ops, (struct sock *)&bs->tp, op, a, b, bpf_env_cc);
	bpf_env_out(bs);
	return ret;
}

static struct dcc_sim_io *bpf_env_io(void *h)
{
	return &bpf_sk(h)->io;
}

static void bpf_env_free(void *h)
{
	free(h);
}

static __u64 bpf_env_count(void *h, int i)
{
	return i >= 0 && i < DCC_BPF_NCOUNTERS ? bpf_env_ctr.c[i] : 0;
}

static __u32 bpf_env_rx(void *h)
{
	return bpf_env_acks_sent << 8 | bpf_sk(h)->tp.inet_conn.icsk_ack.pending;
}

#define BPF_FLAVOUR(new_fn, call_fn, w_fn) {				\
	.name = "bpf",							\
	.new = new_fn,							\
	.free = bpf_env_free,						\
	.io = bpf_env_io,						\
	.call = call_fn,						\
	.w = w_fn,							\
	.ctr = bpf_env_count,						\
	.ctr_global = 1,						\
	.rx = bpf_env_rx,						\
}

#endif /* _BPF_ENV_H */
