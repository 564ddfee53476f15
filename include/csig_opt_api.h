/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_csig_opt's in-kernel API for congestion control modules: the latest
 * CSIG sample of each signal type that the peer reflected to a socket
 * (Documentation/tcp_csig_opt.rst).
 *
 * A consumer calls these from its tcp_congestion_ops hooks (socket lock
 * held, softirq or process context); they take no socket reference and
 * sleep nowhere.  Only samples carried by segments that passed the
 * module's acceptance check (TCP's window, ACK and PAWS tests) are
 * returned.  Using any of these symbols makes the consumer depend on
 * tcp_csig_opt, so the module cannot be unloaded under it.
 */
#ifndef _CSIG_OPT_API_H
#define _CSIG_OPT_API_H

#include <linux/types.h>
#include "csig_opt.h"

struct sock;

struct csig_opt_sample {
	struct csig_sample s;	/* format, type, S, LM as the tag carried them */
	u64	t_ns;		/* arrival, ktime_get_ns(); a repeat (N = 0)
				 * of the same value keeps the first's
				 */
	u32	ack_seq;	/* the ACK number of the segment that carried it */
	u32	seq;		/* and its sequence number */
};

/* Did this connection negotiate CSIG reflection in its handshake? */
bool csig_opt_negotiated(const struct sock *sk);

/*
 * The latest sample of @type (any format) for @sk.  Returns 0 and fills
 * @out, or -ENOENT when none has arrived (or the flow is unknown).
 */
int csig_opt_read(const struct sock *sk, unsigned int type,
		  struct csig_opt_sample *out);

/*
 * The latest samples of the types in @mask (bit t: type t) in one lookup
 * and one hold of the flow's lock, for a consumer that wants several on
 * every ACK.  @out has one entry per bit of @mask, in increasing order of
 * type; the entries of the types returned are filled.  Returns the mask
 * of those that have arrived (0 when none has, or the flow is unknown).
 */
unsigned int csig_opt_read_mask(const struct sock *sk, unsigned int mask,
				struct csig_opt_sample *out);

/*
 * A consumer (a CC module) announces itself; the module counts consumers
 * for its statistics.  Returns 0.
 */
int csig_opt_register_consumer(const char *name);
void csig_opt_unregister_consumer(const char *name);

#endif /* _CSIG_OPT_API_H */
