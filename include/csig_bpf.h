/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF flavour's per-socket CSIG state: what tcp_csig_opt keeps in its
 * flow table (include/csig_opt_api.h), kept instead in BPF socket storage
 * (BPF_MAP_TYPE_SK_STORAGE, pinned as CSIG_BPF_PIN_SK) so that any BPF
 * program holding the socket reaches it on the same ACK.
 *
 * The host path (tools/bpf/csig_host.bpf.c) writes it: the handshake's
 * outcome, and on the sender each sample of a reflection option on a
 * segment TCP accepted; on the receiver, the tags it took out.  The
 * struct_ops congestion controls (hpcc_bpf) only read it.  The layout
 * mirrors struct csig_opt_sample so that hpcc's code reads the two
 * flavours alike.
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

/*
 * The receiver's latest tag of a type, packed in one 64-bit word so that
 * the tc program that takes tags out of frames (without the socket's lock)
 * and the sock_ops program that reflects them (with it) need no lock: a
 * word is written and read whole.  GEN counts the tags of the type taken
 * out, so that a reflection knows a new tag from one it has sent.
 */
#define CSIG_BPF_RX_LM_MASK	0xffffULL	/* bits 0-15: LM */
#define CSIG_BPF_RX_S_SHIFT	16		/* bits 16-39: S */
#define CSIG_BPF_RX_S_MASK	0xffffffULL
#define CSIG_BPF_RX_T_SHIFT	40		/* bits 40-43: type */
#define CSIG_BPF_RX_F_SHIFT	44		/* bit 44: format */
#define CSIG_BPF_RX_VALID	0x200000000000ULL	/* bit 45 */
#define CSIG_BPF_RX_GEN_SHIFT	48		/* bits 48-63: generation */

struct csig_bpf_sk {
	__u32	state;		/* CSIG_BPF_* */
	__u32	have;		/* bit t: a sample of type t has arrived */
	struct csig_bpf_sample s[CSIG_OPT_T_MASK + 1];
	/*
	 * Receiver side, the host path's own (hpcc_bpf does not read it):
	 * the latest tag of each type (CSIG_BPF_RX_*), the generation of
	 * each that the last reflection carried, and the confirmations an
	 * active opener still owes (Documentation/bpf.rst, "CSIG host path").
	 */
	__u64	rx[CSIG_OPT_T_MASK + 1];
	__u16	rx_sent[CSIG_OPT_T_MASK + 1];
	__u32	confirms;
	__u32	pad;
};

#ifdef __bpf__
/*
 * The socket storage holding it, as every BPF program that shares it
 * must declare it: libbpf reuses the pin only for an identical map.
 */
#define CSIG_BPF_SK_MAP(name)					\
	struct {						\
		__uint(type, BPF_MAP_TYPE_SK_STORAGE);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);		\
		__type(key, int);				\
		__type(value, struct csig_bpf_sk);		\
		__uint(pinning, LIBBPF_PIN_BY_NAME);		\
	} name SEC(".maps")
#endif

#endif /* _CSIG_BPF_H */
