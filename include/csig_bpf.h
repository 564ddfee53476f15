/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF flavour's per-socket CSIG state: what tcp_csig_opt keeps in its
 * flow table (include/csig_opt_api.h), kept instead in BPF socket storage
 * (BPF_MAP_TYPE_SK_STORAGE, pinned as CSIG_BPF_PIN_SK) so that any BPF
 * program holding the socket reaches it on the same ACK.
 *
 * The host path's sock_ops program writes it: the handshake's outcome, and
 * on the sender each sample of a reflection option on a segment TCP
 * accepted.  The struct_ops congestion controls (hpcc_bpf) only read it.
 * The layout mirrors struct csig_opt_sample so that hpcc's code reads the
 * two flavours alike.
 */
#ifndef _CSIG_BPF_H
#define _CSIG_BPF_H

#include "csig_opt.h"

#define CSIG_BPF_PIN_DIR	"/sys/fs/bpf/tcp-dcc"
#define CSIG_BPF_PIN_SK		CSIG_BPF_PIN_DIR "/csig_sk"

/* csig_bpf_sk.state */
#define CSIG_BPF_OFFERED	0x1	/* our SYN or SYN-ACK carried the option */
#define CSIG_BPF_NEGOTIATED	0x2	/* both ends: reflection is on */

/* one per signal type, as csig_opt_read() returns it */
struct csig_bpf_sample {
	struct csig_sample s;	/* format, type, S, LM as the tag carried them */
	__u64	t_ns;		/* arrival, bpf_ktime_get_ns() */
	__u32	ack_seq;	/* the ACK number of the segment that carried it */
	__u32	seq;		/* and its sequence number */
};

struct csig_bpf_sk {
	__u32	state;		/* CSIG_BPF_* */
	__u32	have;		/* bit t: a sample of type t has arrived */
	struct csig_bpf_sample s[CSIG_OPT_T_MASK + 1];
};

#endif /* _CSIG_BPF_H */
