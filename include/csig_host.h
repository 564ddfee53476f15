/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CSIG host path in BPF (tools/bpf/csig_host.bpf.c): its configuration,
 * its counters and the record its socket dump writes, shared by the BPF
 * programs and csighost.  Everything is pinned by name under
 * CSIG_BPF_PIN_DIR, so that every load of the object (one per device, and
 * one per cgroup of sock_ops) shares one configuration, one set of
 * counters and the per-socket state of include/csig_bpf.h.
 */
#ifndef _CSIG_HOST_H
#define _CSIG_HOST_H

#include <linux/types.h>
#include "csig.h"
#include "csig_bpf.h"

#define CSIG_HOST_PIN_CFG	CSIG_BPF_PIN_DIR "/csig_host_cfg"
#define CSIG_HOST_PIN_STATS	CSIG_BPF_PIN_DIR "/csig_host_stats"
/*
 * The sock_ops link of a cgroup: this prefix and the cgroup's inode
 * (bpffs refuses dots in names).
 */
#define CSIG_HOST_PIN_LINK	CSIG_BPF_PIN_DIR "/csig_host_sockops_"
/*
 * The devices with the tc program (csighost's record, no program reads
 * it): a hash map from struct csig_host_dev to the inode of the cgroup
 * whose sock_ops the attach used.  A cgroup's sock_ops goes when the last
 * device recorded for it is detached.
 */
#define CSIG_HOST_PIN_DEVS	CSIG_BPF_PIN_DIR "/csig_host_devs"
#define CSIG_HOST_DEVS_MAX	1024

struct csig_host_dev {
	__u64	netns;		/* the network namespace's inode */
	__u32	ifindex;
	__u32	pad;
};

/*
 * Segments after the handshake on which an active opener confirms the
 * negotiation (tcp_csig_opt's CSIG_CONFIRMS: the same on the wire).
 */
#define CSIG_HOST_CONFIRMS	3

/*
 * A passive end takes a confirmation on the segment that completes the
 * handshake or, when that one carried none, on a later segment while the
 * connection has received at most this many (the SYN included).
 */
#define CSIG_HOST_CONFIRM_SEGS	(2 + CSIG_HOST_CONFIRMS)

/* csig_host_cfg.flags */
#define CSIG_HOST_OFFER		0x1	/* offer CSIG in our SYNs */
#define CSIG_HOST_ACCEPT	0x2	/* accept offers in SYNs we answer */

struct csig_host_cfg {
	__u32	flags;		/* CSIG_HOST_* */
	__u32	mark;		/* SO_MARK bits set on negotiated sockets, for
				 * the insertion role's mark rule (0: none)
				 */
	__u16	tpid[2];	/* by enum csig_format, host order */
	__u32	pad;
};

#define CSIG_HOST_CFG_INIT {						\
	.flags = CSIG_HOST_OFFER | CSIG_HOST_ACCEPT,			\
	.mark = 0x40000000,						\
	.tpid = { CSIG_TPID_COMPACT, CSIG_TPID_EXPANDED },		\
}

/* Counters, per CPU; the names are tcp_csig_opt's where they mean the same. */
enum {
	CSIG_HC_TAGS,			/* tagged frames received */
	CSIG_HC_TAGS_REMOVED,		/* ... whose tag was taken out */
	CSIG_HC_TAGS_RECORDED,		/* ... recorded for a negotiated socket */
	CSIG_HC_TAGS_UNNEGOTIATED,	/* ... of no negotiated socket */
	CSIG_HC_TAGS_NOT_TCP,		/* ... not TCP */
	CSIG_HC_TAGS_MALFORMED,		/* ... truncated or nested: dropped */
	CSIG_HC_TAGS_OUT_OF_WINDOW,	/* ... on a segment TCP would not accept */
	CSIG_HC_TAGS_STRIP_FAIL,	/* ... could not be taken out: dropped */
	CSIG_HC_SYN_OFFERED,		/* SYNs sent with the offer */
	CSIG_HC_SYN_OFFER_RCVD,		/* SYN-ACKs answering an offer */
	CSIG_HC_SYNACK_ACCEPTED,	/* SYN-ACKs sent with the acceptance */
	CSIG_HC_NEGOTIATED,		/* active opens the peer accepted */
	CSIG_HC_PEER_DECLINED,		/* active opens whose SYN-ACK had none */
	CSIG_HC_CONFIRMS_SENT,		/* confirmations sent (active opener) */
	CSIG_HC_CONFIRMED,		/* passive opens the peer confirmed */
	CSIG_HC_OPTS_SENT,		/* options with samples sent */
	CSIG_HC_OPTS_NO_ROOM,		/* ACKs without room for a sample */
	CSIG_HC_OPTS_SENT_DATA,		/* options sent on data segments */
	CSIG_HC_OPTS_DATA_NO_FIT,	/* data segments the option did not fit */
	CSIG_HC_OPTS_PARSED,		/* options parsed and kept */
	CSIG_HC_OPTS_MALFORMED,		/* options that failed to parse */
	CSIG_HC_OPTS_OUT_OF_WINDOW,	/* options on a segment whose ACK TCP
					 * would refuse
					 */
	CSIG_HC_OPTS_UNNEGOTIATED,	/* options on a socket that did not
					 * negotiate
					 */
	CSIG_HC_MARKED,			/* sockets given the mark */
	CSIG_HC_NR,
};

struct csig_host_stats {
	__u64	c[CSIG_HC_NR];
};

/*
 * A socket with host-path state, as the dump (a TCP socket iterator,
 * csighost show --sockets) writes it: this header, then the socket's
 * struct csig_bpf_sk.
 */
struct csig_host_sock_hdr {
	__u16	family;		/* AF_INET, AF_INET6 */
	__u16	lport;		/* host order */
	__u16	rport;
	__u16	state;		/* TCP state */
	__u32	laddr[4];	/* network order; IPv4 in the first word */
	__u32	raddr[4];
	__u32	rcv_nxt;	/* TCP's, at the dump */
	__u32	snd_una;
	__u32	snd_nxt;
	__u32	pad;
	__u64	now_ns;		/* bpf_ktime_get_ns() at the dump */
};

struct csig_host_sock_rec {
	struct csig_host_sock_hdr h;
	struct csig_bpf_sk sk;
};

#endif /* _CSIG_HOST_H */
