/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call of struct glue_flavour's through a tcp_congestion_ops table,
 * for the module's (kmod_env.h, kshim's declarations) and the BPF
 * program's (bpf_env.h, bpf_tcp_ca.h's): the same member names in both,
 * only cong_control's arguments differ, which @cc makes.
 */
#ifndef _GLUE_CALL_H
#define _GLUE_CALL_H

typedef void (*glue_cc_fn)(const struct tcp_congestion_ops *ops,
			   struct sock *sk, struct rate_sample *rs);

static inline __u32 glue_ops_call(const struct tcp_congestion_ops *ops,
				  struct sock *sk, int op, int a, int b,
				  glue_cc_fn cc)
{
	struct rate_sample rs = { .acked_sacked = a, .losses = b };

	switch (op) {
	case GLUE_INIT:
		ops->init(sk);
		return 0;
	case GLUE_UPDATE:
	case GLUE_CONG_CONTROL:
		cc(ops, sk, &rs);
		return 0;
	case GLUE_IN_ACK_EVENT:
		ops->in_ack_event(sk, a ? CA_ACK_ECE : 0);
		return 0;
	case GLUE_SET_STATE:
		ops->set_state(sk, a);
		return 0;
	case GLUE_CWND_EVENT:
		ops->cwnd_event(sk, a);
		return 0;
	case GLUE_SSTHRESH:
		return ops->ssthresh(sk);
	case GLUE_UNDO_CWND:
		return ops->undo_cwnd(sk);
	}
	abort();
}

#endif /* _GLUE_CALL_H */
