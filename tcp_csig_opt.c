// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_csig_opt: CSIG (draft-ravi-ippm-csig-00) for TCP hosts.
 *
 * Reception: a packet handler for each CSIG TPID takes the tag out of an
 * arriving frame, records its fields for the TCP flow it belongs to, and
 * hands the frame on without it.  Reflection: a netfilter hook on the
 * output path appends the reflection option (include/csig_opt.h) with the
 * latest sample of each type to the pure ACKs of flows that negotiated
 * CSIG, and to their data segments when it fits.  Negotiation: the same
 * hook offers CSIG on SYNs and accepts it on SYN-ACKs when the SYN offered
 * it.  Sender side: a netfilter hook on the
 * input path parses the option of arriving segments that pass TCP's
 * acceptance tests, and keeps the samples for congestion control modules
 * (include/csig_opt_api.h).  Flows that negotiated are marked on output so
 * that the data plane's insertion role tags them.
 *
 * State lives in a flow table of each network namespace, keyed by the
 * connection's addresses and ports as its socket sees them (after NAT),
 * not in the socket: no socket is referenced or changed, any congestion
 * control works on either end, and the module can be removed at any time.
 * An entry goes when its connection closes (FINs both ways, or a reset),
 * when it was idle for idle_timeout seconds, or, with the table full, to
 * make room for a new connection when it is the least recently used and
 * idle for a second.
 * Documentation/tcp_csig_opt.rst has the design, Documentation/results.rst
 * its measurements.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/memcontrol.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <linux/percpu.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/net_namespace.h>
#include <net/ip6_checksum.h>

#include "csig.h"
#include "csig_opt.h"
#include "csig_opt_api.h"
#include "dcc_pernet.h"
#include "range_param.h"
#include "tcp_csig_opt_pkt.h"

#define CREATE_TRACE_POINTS
#include "tcp_csig_opt_trace.h"

static unsigned short tpid_compact = CSIG_TPID_COMPACT;
module_param(tpid_compact, ushort, 0444);
MODULE_PARM_DESC(tpid_compact, "TPID of the compact tag (default 0x88b5)");

static unsigned short tpid_expanded = CSIG_TPID_EXPANDED;
module_param(tpid_expanded, ushort, 0444);
MODULE_PARM_DESC(tpid_expanded, "TPID of the expanded tag (default 0x88b6)");

static bool offer = true;
module_param(offer, bool, 0644);
MODULE_PARM_DESC(offer, "offer CSIG in outgoing SYNs (default 1)");

static bool accept_offers = true;
module_param(accept_offers, bool, 0644);
MODULE_PARM_DESC(accept_offers, "accept CSIG offered by incoming SYNs (default 1)");

static unsigned int insert_mark = 0x40000000;
module_param(insert_mark, uint, 0644);
MODULE_PARM_DESC(insert_mark,
		 "skb mark bits set on data segments of negotiated flows, for the data plane's insertion rule (0: none; default 0x40000000)");

static unsigned int idle_timeout = 120;
DEFINE_RANGE_PARAM_OPS(idle_timeout, 1, 86400);
module_param_cb(idle_timeout, &idle_timeout_ops, &idle_timeout, 0644);
MODULE_PARM_DESC(idle_timeout, "seconds a flow's state outlives its last packet (1..86400, default 120)");

static unsigned int max_flows = 65536;
module_param(max_flows, uint, 0444);
MODULE_PARM_DESC(max_flows, "flows tracked at most in each network namespace (default 65536)");

/* Per-namespace counters: /proc/net/csig_opt. */
enum {
	C_TAGS,			/* tagged frames received */
	C_TAGS_REMOVED,		/* ... their tag taken out */
	C_TAGS_RECORDED,	/* ... recorded for a negotiated flow */
	C_TAGS_UNNEGOTIATED,	/* ... for a flow that did not negotiate */
	C_TAGS_NOT_TCP,		/* ... not TCP (delivered, nothing recorded) */
	C_TAGS_MALFORMED,	/* ... truncated or nested: dropped */
	C_SYN_OFFERED,		/* SYNs we sent with the offer */
	C_SYN_OFFER_RCVD,	/* SYNs that arrived with the offer */
	C_SYNACK_ACCEPTED,	/* SYN-ACKs we sent with the acceptance */
	C_NEGOTIATED,		/* active opens the peer accepted */
	C_PEER_DECLINED,	/* active opens whose SYN-ACK had no option */
	C_SYNACK_INVALID,	/* SYN-ACKs TCP would not accept: ignored */
	C_CONFIRMS_SENT,	/* handshake options confirming an active open */
	C_CONFIRMED,		/* passive opens the peer confirmed */
	C_CONFIRM_INVALID,	/* ... on a segment TCP would not accept */
	C_TAGS_OUT_OF_WINDOW,	/* tags on segments TCP would not accept */
	C_TAGS_NO_SOCKET,	/* ... of no connection that processes them */
	C_OPTS_SIGNED,		/* segments signed (MD5, AO): left alone */
	C_OPTS_SENT,		/* options appended to outgoing segments */
	C_OPTS_NO_ROOM,		/* ... not appended: no option space */
	C_OPTS_SENT_DATA,	/* options sent on data segments */
	C_OPTS_DATA_NO_FIT,	/* data segments the option did not fit */
	C_OPTS_PARSED,		/* options parsed and kept */
	C_OPTS_MALFORMED,	/* ... malformed, ignored */
	C_OPTS_OUT_OF_WINDOW,	/* ... on a segment TCP would not accept: */
	C_OOW_SEQ,		/* its sequence number, */
	C_OOW_ACK,		/* its ACK number, */
	C_OOW_PAWS,		/* its timestamp */
	C_OPTS_NO_SOCKET,	/* ... for no socket that processes ACKs */
	C_OPTS_UNNEGOTIATED,	/* ... on a flow that did not negotiate */
	C_MARKED,		/* data segments marked for tag insertion */
	C_FLOWS_FULL,		/* flows not tracked: max_flows reached */
	C_FLOWS_CLOSED,		/* entries gone with their connection (FIN, RST) */
	C_FLOWS_EVICTED,	/* ... made room for a new one (table full) */
	C_FLOWS_EXPIRED,	/* ... idle for idle_timeout */
	C_TAGS_NOT_DELIVERED,	/* tags whose frame IP did not deliver locally */
	C_TAGS_CSUM_BAD,	/* tags on a segment whose TCP checksum is wrong */
	C_OPTS_CSUM_BAD,	/* options ... likewise: ignored */
	C_CONFIRM_UNACCEPTED,	/* options on a connection this end did not accept */
	C_NR,
};

static const char * const csig_ctr_names[C_NR] = {
	"tags", "tags_removed", "tags_recorded", "tags_unnegotiated",
	"tags_not_tcp", "tags_malformed", "syn_offered", "syn_offer_rcvd",
	"synack_accepted", "negotiated", "peer_declined", "synack_invalid",
	"confirms_sent", "confirmed", "confirm_invalid", "tags_out_of_window",
	"tags_no_socket", "opts_signed", "opts_sent",
	"opts_no_room", "opts_sent_data", "opts_data_no_fit", "opts_parsed",
	"opts_malformed", "opts_out_of_window", "oow_seq", "oow_ack",
	"oow_paws", "opts_no_socket", "opts_unnegotiated", "marked",
	"flows_full", "flows_closed", "flows_evicted", "flows_expired",
	"tags_not_delivered", "tags_csum_bad", "opts_csum_bad",
	"confirm_unaccepted",
};

/* The flow table. */
#define CSIG_FLOW_NTYPES		16

/* Key: addresses and ports as the connection's socket sees them. */
struct csig_flow_key {
	u8	family;
	u8	pad;
	__be16	lport, rport;
	u16	pad2;
	struct in6_addr laddr, raddr;	/* IPv4: mapped into the first word */
};

enum {
	CSIG_F_OFFERED = 1, CSIG_F_PEER_OFFERED = 2, CSIG_F_NEGOTIATED = 4,
	CSIG_F_FIN_OUT = 8, CSIG_F_FIN_IN = 16,	/* FINs seen each way */
};

/*
 * Segments after the handshake on which an active opener confirms the
 * negotiation (the handshake option, or a reflection), so that the passive
 * end can keep state only for a handshake that completed.
 */
#define CSIG_CONFIRMS	3

/*
 * With the table full, the least recently used entry makes room for a new
 * connection when it has been idle this long (jiffies); entries move to
 * the recent end of the namespace's list at most this often.
 */
#define CSIG_EVICT_IDLE	HZ
#define CSIG_EVICT_SCAN	8	/* entries looked at, from the least recent */
#define CSIG_GC_BATCH	1024	/* entries the expiry looks at under the lock */

struct csig_flow {
	struct rhash_head node;
	struct list_head lru;		/* the namespace's; under its lock */
	struct rcu_head rcu;
	struct csig_flow_key key;
	unsigned long last_used;	/* jiffies */
	unsigned long lru_stamp;	/* jiffies: its last move in the list */
	bool	dead;			/* unlinked; under the namespace's lock */
	spinlock_t lock;		/* protects the fields below */
	u8	state;
	u8	confirms;		/* active open: confirmations to send */
	u16	rx_valid, rx_fresh;	/* by type */
	u16	tx_valid;
	struct csig_sample rx[CSIG_FLOW_NTYPES];	/* receiver: latest tag of each type */
	struct csig_opt_sample tx[CSIG_FLOW_NTYPES];	/* sender: latest reflected */
};

static const struct rhashtable_params csig_flow_params = {
	.head_offset = offsetof(struct csig_flow, node),
	.key_offset = offsetof(struct csig_flow, key),
	.key_len = sizeof(struct csig_flow_key),
	.automatic_shrinking = true,
};

/*
 * The SYN-ACKs this end sent with the acceptance, so that a confirmation
 * turns CSIG on only for a connection this end accepted: one word per
 * slot, the key's tag (a second hash, never 0) and the SYN-ACK's sequence
 * number.  Fixed in size, so that SYNs allocate nothing: a SYN-ACK whose
 * slot another overwrote before the confirmation came is not confirmed
 * (counted), and the connection runs without CSIG.
 */
#define CSIG_ACCEPT_BITS	12

/* The namespace's counters (include/dcc_pernet.h) and flows. */
struct csig_net {
	struct dcc_net dcc;	/* first: dcc_net_priv() */
	struct rhashtable flows;
	spinlock_t lock;	/* lru, adds and removals */
	struct list_head lru;	/* least recently used first */
	atomic_t nflows;
	u32	accept_seed;
	u64	*accepts;	/* 1 << CSIG_ACCEPT_BITS slots */
	struct net *net;
	struct delayed_work gc;
};

static struct csig_net *csig_net(const struct net *net)
{
	return dcc_net_priv(net);
}

static void csig_count(const struct net *net, int i)
{
	dcc_count(net, i);
}

static atomic_t csig_nconsumers;

/* The caller holds rcu_read_lock(). */
static struct csig_flow *csig_flow_lookup(const struct net *net,
					  const struct csig_flow_key *k)
{
	return rhashtable_lookup(&csig_net(net)->flows, k, csig_flow_params);
}

/* Unlink a flow; the caller holds its namespace's lock. */
static void csig_flow_unlink(struct csig_net *cn, struct csig_flow *f)
{
	if (f->dead)
		return;
	f->dead = true;
	rhashtable_remove_fast(&cn->flows, &f->node, csig_flow_params);
	list_del(&f->lru);
	atomic_dec(&cn->nflows);
	kfree_rcu(f, rcu);
}

/* Forget the flow @f (counted as @why, if not 0); under RCU. */
static void csig_flow_remove(struct net *net, struct csig_flow *f, int why)
{
	struct csig_net *cn = csig_net(net);
	bool done;

	spin_lock_bh(&cn->lock);
	done = !f->dead;
	csig_flow_unlink(cn, f);
	spin_unlock_bh(&cn->lock);
	if (done && why)
		csig_count(net, why);
}

/* Forget the flow of @k, if any: a new connection on its addresses. */
static void csig_flow_drop(struct net *net, const struct csig_flow_key *k)
{
	struct csig_flow *f = csig_flow_lookup(net, k);

	if (f)
		csig_flow_remove(net, f, 0);
}

/* A packet of the flow: recently used (the list moves once a second). */
static void csig_flow_touch(struct net *net, struct csig_flow *f)
{
	struct csig_net *cn = csig_net(net);
	unsigned long now = jiffies;

	if (READ_ONCE(f->last_used) != now)
		WRITE_ONCE(f->last_used, now);
	if (time_before(now, READ_ONCE(f->lru_stamp) + CSIG_EVICT_IDLE))
		return;
	spin_lock_bh(&cn->lock);
	if (!f->dead) {
		WRITE_ONCE(f->lru_stamp, now);
		list_move_tail(&f->lru, &cn->lru);
	}
	spin_unlock_bh(&cn->lock);
}

/*
 * Room for one more flow in a full table: the least recently used of the
 * first entries, if idle for CSIG_EVICT_IDLE, goes.
 */
static bool csig_flow_evict(struct net *net)
{
	struct csig_net *cn = csig_net(net);
	struct csig_flow *f, *victim = NULL;
	int i = 0;

	spin_lock_bh(&cn->lock);
	list_for_each_entry(f, &cn->lru, lru) {
		if (i++ == CSIG_EVICT_SCAN)
			break;
		if (time_before(jiffies, READ_ONCE(f->last_used) + CSIG_EVICT_IDLE))
			continue;
		if (!victim || time_before(READ_ONCE(f->last_used),
					   READ_ONCE(victim->last_used)))
			victim = f;
	}
	if (victim)
		csig_flow_unlink(cn, victim);
	spin_unlock_bh(&cn->lock);
	if (victim)
		csig_count(net, C_FLOWS_EVICTED);
	return victim;
}

/* The memory cgroup a socket's flow entry is charged to. */
static struct mem_cgroup *csig_sk_memcg(const struct sock *sk)
{
#ifdef CONFIG_MEMCG
	if (sk && sk->sk_state == TCP_NEW_SYN_RECV)
		sk = inet_reqsk(sk)->rsk_listener;
	if (sk && sk_fullsock(sk))
		return sk->sk_memcg;
#endif
	return NULL;
}

/*
 * Find or add; the caller holds rcu_read_lock().  A new entry is charged
 * to @memcg, its socket's.
 */
static struct csig_flow *csig_flow_get(struct net *net, const struct csig_flow_key *k,
				       struct mem_cgroup *memcg)
{
	struct csig_net *cn = csig_net(net);
	struct csig_flow *f = csig_flow_lookup(net, k), *o;
	struct mem_cgroup *old;

	if (f)
		return f;
	if (atomic_inc_return(&cn->nflows) > max_flows && !csig_flow_evict(net)) {
		atomic_dec(&cn->nflows);
		csig_count(net, C_FLOWS_FULL);
		return NULL;
	}
	old = set_active_memcg(memcg);
	f = kzalloc(sizeof(*f), GFP_ATOMIC | __GFP_ACCOUNT);
	set_active_memcg(old);
	if (!f) {
		atomic_dec(&cn->nflows);
		return NULL;
	}
	f->key = *k;
	spin_lock_init(&f->lock);
	f->last_used = jiffies;
	f->lru_stamp = f->last_used;
	spin_lock_bh(&cn->lock);
	o = rhashtable_lookup_get_insert_fast(&cn->flows, &f->node, csig_flow_params);
	if (!o)
		list_add_tail(&f->lru, &cn->lru);
	spin_unlock_bh(&cn->lock);
	if (o) {	/* lost a race, or no room in the table */
		kfree(f);
		atomic_dec(&cn->nflows);
		return IS_ERR(o) ? NULL : o;
	}
	return f;
}

/*
 * Start a connection's state afresh in @f: nothing of an earlier
 * connection on the same addresses (its negotiation, its samples) may
 * carry over.  The caller holds f->lock.
 */
static void csig_flow_reset(struct csig_flow *f, u8 state)
{
	f->state = state;
	f->confirms = 0;
	f->rx_valid = 0;
	f->rx_fresh = 0;
	f->tx_valid = 0;
}

/*
 * Expire a namespace's idle flows: from the least recently used end of its
 * list, in batches, until one was used within idle_timeout.
 */
static void csig_flow_expire(struct csig_net *cn)
{
	unsigned long idle = (unsigned long)READ_ONCE(idle_timeout) * HZ;
	struct csig_flow *f, *tmp;
	unsigned int n, gone;
	bool more = true;

	while (more) {
		n = 0;
		gone = 0;
		more = false;
		spin_lock_bh(&cn->lock);
		list_for_each_entry_safe(f, tmp, &cn->lru, lru) {
			if (n++ == CSIG_GC_BATCH) {
				more = true;
				break;
			}
			if (time_before(jiffies, f->lru_stamp + idle))
				break;
			if (time_before(jiffies, READ_ONCE(f->last_used) + idle)) {
				/* used in the second since its last move */
				f->lru_stamp = jiffies;
				list_move_tail(&f->lru, &cn->lru);
				continue;
			}
			csig_flow_unlink(cn, f);
			gone++;
		}
		spin_unlock_bh(&cn->lock);
		dcc_count_n(cn->net, C_FLOWS_EXPIRED, gone);
		cond_resched();
	}
}

static void csig_gc_work_fn(struct work_struct *w)
{
	struct csig_net *cn = container_of(to_delayed_work(w), struct csig_net, gc);

	csig_flow_expire(cn);
	schedule_delayed_work(&cn->gc, HZ);
}

/*
 * This end's acceptance of @k's handshake: its slot, and the tag that
 * says the slot is @k's.
 */
static u64 *csig_accept_slot(struct net *net, const struct csig_flow_key *k, u32 *tag)
{
	struct csig_net *cn = csig_net(net);
	u32 h = jhash2((const u32 *)k, sizeof(*k) / 4, cn->accept_seed);

	*tag = jhash2((const u32 *)k, sizeof(*k) / 4, ~cn->accept_seed) | 1;
	return &cn->accepts[h & ((1U << CSIG_ACCEPT_BITS) - 1)];
}

/* A SYN-ACK went out for @k, with the acceptance or (@yes false) without. */
static void csig_accept_note(struct net *net, const struct csig_flow_key *k,
			     u32 isn, bool yes)
{
	u32 tag;
	u64 *slot = csig_accept_slot(net, k, &tag);

	if (yes)
		WRITE_ONCE(*slot, (u64)tag << 32 | isn);
	else if (READ_ONCE(*slot) >> 32 == tag)
		WRITE_ONCE(*slot, 0);
}

/*
 * Did this end's latest SYN-ACK for @k accept?  With @isn (a repeat of the
 * SYN-ACK, from TCP's timer), the SYN-ACK with that sequence number.
 */
static bool csig_accepted(struct net *net, const struct csig_flow_key *k,
			  const u32 *isn)
{
	u32 tag;
	u64 v = READ_ONCE(*csig_accept_slot(net, k, &tag));

	return v >> 32 == tag && (!isn || (u32)v == *isn);
}

/* Key of a segment: local is the destination when @in, else the source. */
static void csig_key_from_skb(struct csig_flow_key *k, struct sk_buff *skb,
			      const struct tcphdr *th, bool in)
{
	memset(k, 0, sizeof(*k));
	if (csig_skb_is_ipv6(skb)) {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		k->family = AF_INET6;
		k->laddr = in ? ip6->daddr : ip6->saddr;
		k->raddr = in ? ip6->saddr : ip6->daddr;
	} else {
		const struct iphdr *ip = ip_hdr(skb);

		k->family = AF_INET;
		k->laddr.s6_addr32[0] = in ? ip->daddr : ip->saddr;
		k->raddr.s6_addr32[0] = in ? ip->saddr : ip->daddr;
	}
	k->lport = in ? th->dest : th->source;
	k->rport = in ? th->source : th->dest;
}

/*
 * Key of a socket, from its sock_common: the same for a full socket, a
 * request socket and a timewait socket.  On output the socket's own
 * addresses are the ones input sees (after conntrack undid any NAT), where
 * the packet's may already be translated.  @v6: the flow is IPv6 (not an
 * IPv4 flow of an IPv6 socket; a request socket's family is its
 * listener's, so the caller says).
 */
static void csig_key_from_sk(struct csig_flow_key *k, const struct sock *sk, bool v6)
{
	memset(k, 0, sizeof(*k));
#if IS_ENABLED(CONFIG_IPV6)
	if (v6) {
		k->family = AF_INET6;
		k->laddr = sk->sk_v6_rcv_saddr;
		k->raddr = sk->sk_v6_daddr;
	}
#endif
	if (!v6) {
		k->family = AF_INET;
		k->laddr.s6_addr32[0] = sk->sk_rcv_saddr;
		k->raddr.s6_addr32[0] = sk->sk_daddr;
	}
	k->lport = htons(sk->sk_num);
	k->rport = sk->sk_dport;
}

/* Does the segment carry a TCP-MD5 or TCP-AO signature? */
static bool csig_seg_signed(const struct tcphdr *th)
{
	u32 tsval;

	return csig_tcpopt_scan((const u8 *)(th + 1), th->doff * 4 - sizeof(*th),
				&tsval) & CSIG_SCAN_SIGNED;
}

/*
 * Would TCP accept this segment?  The tests of tcp_validate_incoming() that
 * decide it: sequence window, PAWS, no RST or SYN, and an ACK between what
 * is outstanding and what was sent (tcp_ack()).  Read without the socket
 * lock, so a segment at the edge of a moving window may go either way.
 * Returns 0, or the counter of the test that failed.
 */
static int csig_tcp_would_accept(const struct sock *sk, const struct tcphdr *th,
				 unsigned int payload)
{
	static const int ctr[] = {
		[CSIG_OOW_SEQ] = C_OOW_SEQ, [CSIG_OOW_ACK] = C_OOW_ACK,
		[CSIG_OOW_PAWS] = C_OOW_PAWS,
	};
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct csig_tcp_view v = {
		.rcv_nxt = READ_ONCE(tp->rcv_nxt),
		.rcv_wup = READ_ONCE(tp->rcv_wup),
		.rcv_wnd = READ_ONCE(tp->rcv_wnd),
		.snd_una = READ_ONCE(tp->snd_una),
		.write_seq = READ_ONCE(tp->write_seq),
		.max_window = READ_ONCE(tp->max_window),
		.ts_recent = READ_ONCE(tp->rx_opt.ts_recent),
		.ts_recent_stamp = READ_ONCE(tp->rx_opt.ts_recent_stamp),
	};

	return ctr[csig_tcp_accepts(&v, th, payload)];
}

/*
 * The socket an arriving segment belongs to, established or request (with a
 * reference: sock_gen_put()), or NULL.  @sdif < 0: the packet handler,
 * before IP: looked up by the segment's addresses, never taken from
 * skb->sk, which a frame that crossed a veth on the same host still holds
 * from its sender (ip_rcv() orphans it).  Else the input hook, where
 * skb->sk, if any, is early demux's (or an assigned one): the socket TCP
 * will use.
 */
static struct sock *csig_sk_lookup(struct net *net, struct sk_buff *skb,
				   const struct tcphdr *th, int sdif)
{
	struct sock *sk = skb->sk;

	if (sdif >= 0 && sk && sk_fullsock(sk) && sk->sk_protocol == IPPROTO_TCP &&
	    refcount_inc_not_zero(&sk->sk_refcnt))
		return sk;
	if (sdif < 0)
		sdif = 0;
	if (!csig_skb_is_ipv6(skb))
		return __inet_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
						 ip_hdr(skb)->saddr, th->source,
						 ip_hdr(skb)->daddr, ntohs(th->dest),
						 skb->skb_iif, sdif);
#if IS_ENABLED(CONFIG_IPV6)
	return __inet6_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
					  &ipv6_hdr(skb)->saddr, th->source,
					  &ipv6_hdr(skb)->daddr, ntohs(th->dest),
					  skb->skb_iif, sdif);
#else
	return NULL;
#endif
}

/* states in which TCP processes ACKs of a connection */
#define CSIG_TCPF_LIVE (TCPF_ESTABLISHED | TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 | \
		   TCPF_CLOSE_WAIT | TCPF_CLOSING | TCPF_LAST_ACK)

/*
 * Would TCP accept this segment for a request socket, completing the
 * handshake (tcp_check_req())?  An ACK of the SYN-ACK, in sequence.
 */
static bool csig_req_would_accept(const struct sock *sk, const struct tcphdr *th,
				  unsigned int payload)
{
	const struct request_sock *req = inet_reqsk(sk);
	const struct tcp_request_sock *treq = tcp_rsk(req);

	return csig_req_accepts(treq->snt_isn, treq->rcv_isn, req->rsk_rcv_wnd, th,
				payload);
}

/* A syncookie TCP would accept (it builds the connection from it). */
static bool csig_cookie_valid(struct sk_buff *skb, const struct tcphdr *th)
{
#if IS_ENABLED(CONFIG_SYN_COOKIES)
#ifdef CSIG_COOKIE_CHECK_NO_COOKIE
	if (!csig_skb_is_ipv6(skb))
		return __cookie_v4_check(ip_hdr(skb), th) > 0;
#if IS_ENABLED(CONFIG_IPV6)
	return __cookie_v6_check(ipv6_hdr(skb), th) > 0;
#endif
#else
	u32 cookie = ntohl(th->ack_seq) - 1;

	if (!csig_skb_is_ipv6(skb))
		return __cookie_v4_check(ip_hdr(skb), th, cookie) > 0;
#if IS_ENABLED(CONFIG_IPV6)
	return __cookie_v6_check(ipv6_hdr(skb), th, cookie) > 0;
#endif
#endif
#endif
	return false;
}

/*
 * Would TCP accept this segment on a connection?  0, or the counter of the
 * test that failed (C_OPTS_NO_SOCKET: no such connection).  A segment for
 * a request socket is one that completes the handshake: over veth, the
 * first data can overtake the handshake's ACK on another CPU.  @cookie:
 * where no socket has it, an ACK that carries a valid syncookie completes
 * a handshake too (TCP builds the connection from it).
 */
static int csig_sk_acceptable(const struct sock *sk, struct sk_buff *skb,
			      const struct tcphdr *th, unsigned int payload, bool cookie)
{
	if (!sk)
		return cookie && !th->syn && !th->rst && th->ack &&
		       csig_cookie_valid(skb, th) ? 0 : C_OPTS_NO_SOCKET;
	if (sk->sk_state == TCP_NEW_SYN_RECV)
		return csig_req_would_accept(sk, th, payload) ? 0 : C_OOW_ACK;
	if (sk_fullsock(sk) && ((1 << sk->sk_state) & CSIG_TCPF_LIVE))
		return csig_tcp_would_accept(sk, th, payload);
	return C_OPTS_NO_SOCKET;
}

/* The same, for the socket the segment belongs to. */
static int csig_seg_acceptable(struct net *net, struct sk_buff *skb,
			       const struct tcphdr *th, unsigned int payload, int sdif,
			       bool cookie)
{
	struct sock *sk = csig_sk_lookup(net, skb, th, sdif);
	int why = csig_sk_acceptable(sk, skb, th, payload, cookie);

	if (sk)
		sock_gen_put(sk);
	return why;
}

/*
 * Is this FIN or RST in a timewait socket's window?  An orphan that sent
 * its FIN and had it acknowledged lives on as one (substate FIN_WAIT2),
 * and ends at the peer's FIN (tcp_timewait_state_process()).
 */
static bool csig_tw_in_window(const struct sock *sk, const struct tcphdr *th)
{
	const struct tcp_timewait_sock *tw = tcp_twsk(sk);

	return csig_tw_accepts(READ_ONCE(tw->tw_rcv_nxt), READ_ONCE(tw->tw_rcv_wnd), th);
}

/*
 * Would TCP take this FIN?  A live connection's acceptance test; a
 * timewait socket's exactly at its rcv_nxt, without data.
 */
static bool csig_fin_valid(struct net *net, struct sk_buff *skb,
			   const struct tcphdr *th, unsigned int payload, int sdif)
{
	struct sock *sk = csig_sk_lookup(net, skb, th, sdif);
	bool ok;

	if (!sk)
		return false;
	if (sk->sk_state == TCP_TIME_WAIT)
		ok = !payload && ntohl(th->seq) == READ_ONCE(tcp_twsk(sk)->tw_rcv_nxt);
	else
		ok = !csig_sk_acceptable(sk, skb, th, payload, false);
	sock_gen_put(sk);
	return ok;
}

/*
 * Would TCP take this RST?  For a SYN_SENT socket, one that acknowledges
 * its SYN (tcp_rcv_synsent_state_process()); for a timewait socket, one
 * in its window; else one exactly at rcv_nxt (tcp_validate_incoming(),
 * RFC 5961: others only draw a challenge ACK).
 */
static bool csig_rst_valid(struct net *net, struct sk_buff *skb,
			   const struct tcphdr *th, int sdif)
{
	struct sock *sk = csig_sk_lookup(net, skb, th, sdif);
	u32 ack = ntohl(th->ack_seq);
	bool ok = false;

	if (!sk)
		return false;
	if (sk->sk_state == TCP_TIME_WAIT)
		ok = csig_tw_in_window(sk, th);
	else if (sk_fullsock(sk) && sk->sk_state == TCP_SYN_SENT)
		ok = th->ack && csig_syn_acked(READ_ONCE(tcp_sk(sk)->snd_una),
					       READ_ONCE(tcp_sk(sk)->write_seq), ack);
	else if (sk_fullsock(sk) && ((1 << sk->sk_state) & CSIG_TCPF_LIVE))
		ok = ntohl(th->seq) == READ_ONCE(tcp_sk(sk)->rcv_nxt);
	sock_gen_put(sk);
	return ok;
}

/* Is a full socket's flow IPv6?  (An IPv6 socket may carry IPv4.) */
static bool csig_sk_flow_v6(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	return sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr);
#else
	return false;
#endif
}

/*
 * The tag of the frame this CPU is delivering.  The packet handler takes
 * the tag out and hands the frame to the receive path, which delivers it
 * (IP, netfilter's PREROUTING with any NAT, routing, LOCAL_IN) before it
 * returns; the input hook records the tag there, for the connection as its
 * socket sees it, once IP has checked the header and the hook the TCP
 * checksum.
 */
struct csig_rx_note {
	const struct sk_buff *skb;
	struct csig_fields fl;
};

static DEFINE_PER_CPU(struct csig_rx_note, csig_rx_notes);

/*
 * Reception.  eth_type_trans() left skb->data at the tag's data, the TPID
 * just before it.  The tag is taken out (csig_skb_untag()), and the frame
 * goes through the receive path again, as the VLAN code does with a tag it
 * takes out.
 */
static int csig_rcv(struct sk_buff *skb, struct net_device *dev,
		    struct packet_type *pt, struct net_device *orig_dev)
{
	struct net *net = dev_net(dev);
	struct csig_rx_note *rn, saved;
	struct csig_fields fl;
	unsigned int fmt;
	int ret, tlen;
	u16 in;

	fmt = skb->protocol == htons(tpid_compact) ? CSIG_FMT_COMPACT :
						      CSIG_FMT_EXPANDED;
	csig_count(net, C_TAGS);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	/* the tag's data and the payload's EtherType (include/csig.h) */
	tlen = csig_skb_tag(skb, fmt, tpid_compact, tpid_expanded, &fl, &in);
	if (tlen < 0)
		goto malformed;
	if (csig_skb_untag(skb, tlen, htons(in)))
		goto drop;
	csig_count(net, C_TAGS_REMOVED);

	/* whose is it?  The input hook says (csig_in()), if IP delivers it. */
	rn = this_cpu_ptr(&csig_rx_notes);
	saved = *rn;
	rn->skb = skb;
	rn->fl = fl;
	ret = netif_receive_skb_core(skb);
	rn = this_cpu_ptr(&csig_rx_notes);
	if (rn->skb == skb)	/* only compared: it may be gone */
		csig_count(net, C_TAGS_NOT_DELIVERED);
	*rn = saved;
	return ret;

malformed:
	csig_count(net, C_TAGS_MALFORMED);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type csig_pt[2] __read_mostly = {
	{ .func = csig_rcv },
	{ .func = csig_rcv },
};

/*
 * The SYN this CPU is answering.  TCP answers a SYN with its SYN-ACK in
 * the softirq that delivered it (tcp_conn_request(), inet_rtx_syn_ack()
 * for a repeated SYN), so the output hook finds here whether the SYN it
 * answers offered CSIG: no state is kept for a SYN, spoofed or not.
 */
struct csig_syn_note {
	const struct net *net;
	struct csig_flow_key key;
	u32 isn;
	bool offered;
};

static DEFINE_PER_CPU(struct csig_syn_note, csig_syn_notes);

/*
 * Key of an outgoing segment: its socket's addresses when the socket is
 * the segment's own (a full or request socket; not TCP's control socket,
 * which sends resets and timewait ACKs), so that NAT on the output path
 * does not hide the flow; the packet's otherwise.
 */
static void csig_key_out(struct csig_flow_key *k, struct net *net, struct sk_buff *skb,
			 const struct tcphdr *th)
{
	const struct sock *sk = skb->sk;

	if (sk && (sk->sk_state == TCP_NEW_SYN_RECV ||
		   (sk_fullsock(sk) && sk->sk_protocol == IPPROTO_TCP)) &&
	    net_eq(sock_net(sk), net) && sk->sk_num == ntohs(th->source) &&
	    sk->sk_dport == th->dest)
		csig_key_from_sk(k, sk, csig_skb_is_ipv6(skb));
	else
		csig_key_from_skb(k, skb, th, false);
}

/*
 * Option bytes a data segment may take: what TCP budgeted for its header
 * and payload (the MSS it sized the segment by, which honours the peer's
 * and any clamp: RFC 6691), and the route's MTU.  0 when it has none.
 */
static unsigned int csig_data_room(struct sk_buff *skb, const struct tcphdr *th,
				   unsigned int payload)
{
	const struct sock *sk = skb->sk;
	struct dst_entry *dst = skb_dst(skb);

	/* one segment (all of a GSO super-packet's but the last are full) */
	if (skb_is_gso(skb) || skb->ip_summed != CHECKSUM_PARTIAL || !dst ||
	    !sk || !sk_fullsock(sk) || sk->sk_protocol != IPPROTO_TCP)
		return 0;
	return csig_data_fit(th->doff * 4 + payload,
			     READ_ONCE(tcp_sk(sk)->mss_cache) + tcp_sk(sk)->tcp_header_len,
			     skb->len - skb_network_offset(skb), dst_mtu(dst));
}

/* Append the handshake option (4 bytes: no padding). */
static int csig_append_syn_opt(struct sk_buff *skb, unsigned int nh)
{
	u8 opt[CSIG_OPT_HDR_LEN];

	return csig_append_opt(skb, nh, opt, csig_opt_put_syn(opt, sizeof(opt)));
}

/* SYNs: the offer, and a clean start for the connection's state. */
static void csig_out_syn(struct net *net, struct sk_buff *skb, unsigned int nh,
			 const struct csig_flow_key *k)
{
	struct csig_flow *f;

	if (!READ_ONCE(offer) || csig_seg_signed(tcp_hdr(skb))) {
		if (READ_ONCE(offer))
			csig_count(net, C_OPTS_SIGNED);
		csig_flow_drop(net, k);
		return;
	}
	f = csig_flow_get(net, k, csig_sk_memcg(skb->sk));
	if (!f)
		return;
	if (csig_append_syn_opt(skb, nh)) {
		csig_count(net, C_OPTS_NO_ROOM);
		csig_flow_drop(net, k);
		return;
	}
	spin_lock_bh(&f->lock);
	csig_flow_reset(f, CSIG_F_OFFERED);
	spin_unlock_bh(&f->lock);
	csig_count(net, C_SYN_OFFERED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport), "offered");
}

/* SYN-ACKs: the acceptance, when the SYN answered offered. */
static void csig_out_synack(struct net *net, struct sk_buff *skb, unsigned int nh,
			    const struct csig_flow_key *k)
{
	u32 isn = ntohl(tcp_hdr(skb)->seq);
	const struct csig_syn_note *sn;
	bool ok;

	/* a new connection on these addresses: nothing of an old one stays */
	csig_flow_drop(net, k);
	local_bh_disable();
	sn = this_cpu_ptr(&csig_syn_notes);
	ok = sn->offered && sn->net == net &&
	     sn->isn == ntohl(tcp_hdr(skb)->ack_seq) - 1 &&
	     !memcmp(&sn->key, k, sizeof(*k));
	local_bh_enable();
	/* or TCP's timer repeats a SYN-ACK that accepted */
	ok = (ok || csig_accepted(net, k, &isn)) && READ_ONCE(accept_offers);
	if (ok && csig_seg_signed(tcp_hdr(skb))) {
		csig_count(net, C_OPTS_SIGNED);
		ok = false;
	}
	if (ok && csig_append_syn_opt(skb, nh)) {
		csig_count(net, C_OPTS_NO_ROOM);
		ok = false;
	}
	/* what a confirmation will be checked against (csig_in_confirm()) */
	csig_accept_note(net, k, isn, ok);
	if (!ok)
		return;
	csig_count(net, C_SYNACK_ACCEPTED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport), "accepted");
}

/*
 * The samples a flow's next option carries, up to CSIG_OPT_MAX_SAMPLES:
 * new ones first, then repeats.  Returns how many.
 */
static unsigned int csig_flow_samples(struct csig_flow *f, struct csig_sample *sm)
{
	unsigned int n = 0, t, pass;

	spin_lock_bh(&f->lock);
	for (pass = 0; pass < 2; pass++)
		for (t = 0; t < CSIG_FLOW_NTYPES && n < CSIG_OPT_MAX_SAMPLES; t++) {
			bool fresh = f->rx_fresh & (1U << t);

			if (!(f->rx_valid & (1U << t)) || fresh != !pass)
				continue;
			sm[n] = f->rx[t];
			sm[n].fresh = fresh;
			n++;
		}
	spin_unlock_bh(&f->lock);
	return n;
}

/* An option with the first @n of @sm (none: a confirmation) went out. */
static void csig_flow_sent(struct csig_flow *f, const struct csig_sample *sm,
			   unsigned int n)
{
	unsigned int i;

	spin_lock_bh(&f->lock);
	/* the samples written are no longer new */
	for (i = 0; i < n; i++)
		f->rx_fresh &= ~(1U << sm[i].type);
	/* any option of ours tells the peer that we negotiated */
	if (f->confirms)
		f->confirms--;
	spin_unlock_bh(&f->lock);
}

/*
 * Segments of a negotiated flow: the mark for the data plane's insertion
 * role on data, and the option: the latest samples, or the confirmation an
 * active opener still owes.
 */
static void csig_out_flow(struct net *net, struct sk_buff *skb, unsigned int nh,
			  struct csig_flow *f)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	unsigned int payload, room, n, len;
	u8 buf[CSIG_OPT_MAX_LEN + 4];
	struct tcphdr *th = tcp_hdr(skb);
	bool confirm;

	payload = skb->len - skb_transport_offset(skb) - th->doff * 4;
	csig_flow_touch(net, f);
	if (payload && READ_ONCE(insert_mark)) {
		skb->mark |= READ_ONCE(insert_mark);
		csig_count(net, C_MARKED);
	}
	confirm = READ_ONCE(f->confirms);
	if (th->rst || (!READ_ONCE(f->rx_valid) && !confirm))
		return;
	if (csig_seg_signed(th)) {
		csig_count(net, C_OPTS_SIGNED);
		return;
	}
	room = 60 - th->doff * 4;
	if (payload) {
		room = min(room, csig_data_room(skb, th, payload));
		if (room < CSIG_OPT_HDR_LEN) {
			csig_count(net, C_OPTS_DATA_NO_FIT);
			return;
		}
	}

	/* the most samples that fit; without one, the confirmation alone */
	len = csig_opt_build(buf, room, sm, csig_flow_samples(f, sm), confirm, &n);
	if (!len || csig_append_opt(skb, nh, buf, len)) {
		csig_count(net, payload ? C_OPTS_DATA_NO_FIT : C_OPTS_NO_ROOM);
		return;
	}
	th = tcp_hdr(skb);	/* csig_append_opt() moved the headers */
	csig_flow_sent(f, sm, n);
	if (n) {
		csig_count(net, C_OPTS_SENT);
		if (payload)
			csig_count(net, C_OPTS_SENT_DATA);
	} else {
		csig_count(net, C_CONFIRMS_SENT);
	}
	trace_csig_opt_option(ntohs(th->source), ntohs(th->dest),
			      n ? "sent" : "confirm", n, ntohl(th->seq),
			      ntohl(th->ack_seq));
}

/*
 * A FIN or RST of @f's connection, sent (@out) or on a segment TCP
 * accepts: a reset ends the connection, and so do FINs both ways.
 */
static void csig_flow_fin(struct net *net, struct csig_flow *f,
			  const struct tcphdr *th, bool out)
{
	const u8 both = CSIG_F_FIN_OUT | CSIG_F_FIN_IN;
	u8 st;

	if (!th->rst) {
		spin_lock_bh(&f->lock);
		f->state |= out ? CSIG_F_FIN_OUT : CSIG_F_FIN_IN;
		st = f->state;
		spin_unlock_bh(&f->lock);
		if ((st & both) != both)
			return;
	}
	csig_flow_remove(net, f, C_FLOWS_CLOSED);
	trace_csig_opt_negotiation(ntohs(f->key.lport), ntohs(f->key.rport),
				   th->rst ? "reset" : "closed");
}

static unsigned int csig_out(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct net *net = state->net;
	struct csig_flow_key k;
	struct tcphdr *th;
	unsigned int nh;
	struct csig_flow *f;

	th = csig_tcp_of(skb, &nh);
	if (!th)
		return NF_ACCEPT;
	csig_key_out(&k, net, skb, th);
	rcu_read_lock();
	if (th->syn && !th->ack) {
		csig_out_syn(net, skb, nh, &k);
	} else if (th->syn) {
		csig_out_synack(net, skb, nh, &k);
	} else {
		f = csig_flow_lookup(net, &k);
		if (f && (READ_ONCE(f->state) & CSIG_F_NEGOTIATED))
			csig_out_flow(net, skb, nh, f);
		th = tcp_hdr(skb);	/* csig_out_flow() may move it */
		if (f && (th->fin || th->rst))
			csig_flow_fin(net, f, th, true);
	}
	rcu_read_unlock();
	return NF_ACCEPT;
}

/* A SYN-ACK TCP would accept: for a SYN_SENT socket, an ACK of its SYN. */
static bool csig_synack_valid(struct net *net, struct sk_buff *skb,
			      const struct tcphdr *th, int sdif)
{
	struct sock *sk = csig_sk_lookup(net, skb, th, sdif);
	u32 ack = ntohl(th->ack_seq);
	bool ok = false;

	if (!sk)
		return false;
	/*
	 * tcp_rcv_synsent_state_process(), with write_seq for snd_nxt: over
	 * a software path the SYN-ACK can arrive inside tcp_connect(),
	 * before it advanced snd_nxt past the SYN (TCP checks it later,
	 * from the socket's backlog).
	 */
	if (sk_fullsock(sk) && sk->sk_state == TCP_SYN_SENT)
		ok = csig_syn_acked(READ_ONCE(tcp_sk(sk)->snd_una),
				    READ_ONCE(tcp_sk(sk)->write_seq), ack);
	sock_gen_put(sk);
	return ok;
}

/*
 * An arriving SYN: noted for the SYN-ACK that answers it (csig_out_synack()),
 * nothing allocated.
 */
static void csig_in_syn(struct net *net, const struct csig_flow_key *k,
			const struct tcphdr *th, bool offered)
{
	struct csig_syn_note *sn = this_cpu_ptr(&csig_syn_notes);

	sn->net = net;
	sn->key = *k;
	sn->isn = ntohl(th->seq);
	sn->offered = offered;
	if (offered) {
		csig_count(net, C_SYN_OFFER_RCVD);
		trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport),
					   "offer_rcvd");
	}
}

/*
 * An arriving SYN-ACK, for the flow @f of an active open that offered: with
 * the option (@n == 0) the flow negotiated, without it the peer declined.
 */
static void csig_in_synack(struct net *net, struct sk_buff *skb,
			   const struct tcphdr *th, int sdif,
			   const struct csig_flow_key *k, struct csig_flow *f, int n)
{
	if (!f || !(READ_ONCE(f->state) & CSIG_F_OFFERED) ||
	    (READ_ONCE(f->state) & CSIG_F_NEGOTIATED))
		return;
	if (!csig_synack_valid(net, skb, th, sdif)) {
		csig_count(net, C_SYNACK_INVALID);
		trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport),
					   "synack_invalid");
		return;
	}
	if (n == 0) {
		spin_lock_bh(&f->lock);
		f->state |= CSIG_F_NEGOTIATED;
		f->confirms = CSIG_CONFIRMS;
		spin_unlock_bh(&f->lock);
	} else {
		/* nothing to keep for a connection without CSIG */
		csig_flow_remove(net, f, 0);
	}
	csig_count(net, n ? C_PEER_DECLINED : C_NEGOTIATED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport),
				   n ? "declined" : "negotiated");
}

/*
 * The active opener's first segments, for a flow the passive end does not
 * track: a passive open is confirmed by one that completes the handshake
 * as TCP checks it (the request socket's ISNs, or a syncookie) or that the
 * established connection accepts, on a connection whose SYN-ACK from this
 * end accepted (csig_accepted()).  Only then does the passive end keep
 * state for the flow.  Returns it, or NULL.
 */
static struct csig_flow *csig_in_confirm(struct net *net, struct sk_buff *skb,
					 const struct tcphdr *th, unsigned int payload,
					 int sdif, const struct csig_flow_key *k, int n)
{
	struct csig_flow *f = NULL;
	struct sock *sk;
	int why;

	if (!csig_accepted(net, k, NULL)) {
		csig_count(net, C_CONFIRM_UNACCEPTED);
		trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport),
				      "confirm_unaccepted", n, ntohl(th->seq),
				      ntohl(th->ack_seq));
		return NULL;
	}
	sk = csig_sk_lookup(net, skb, th, sdif);
	why = csig_sk_acceptable(sk, skb, th, payload, true);
	if (!why)
		f = csig_flow_get(net, k, csig_sk_memcg(sk));
	if (sk)
		sock_gen_put(sk);
	if (why) {
		csig_count(net, C_CONFIRM_INVALID);
		trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport),
				      "confirm_invalid", n, ntohl(th->seq),
				      ntohl(th->ack_seq));
		return NULL;
	}
	if (!f)
		return NULL;
	/* one flow for one acceptance: nothing after its end revives it */
	csig_accept_note(net, k, 0, false);
	spin_lock_bh(&f->lock);
	if (!(f->state & CSIG_F_NEGOTIATED))
		csig_flow_reset(f, CSIG_F_PEER_OFFERED | CSIG_F_NEGOTIATED);
	spin_unlock_bh(&f->lock);
	csig_count(net, C_CONFIRMED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport), "confirmed");
	return f;
}

/* Keep the @n samples of a reflection TCP accepts, for the API. */
static void csig_in_keep(struct net *net, struct csig_flow *f, const struct tcphdr *th,
			 const struct csig_sample *sm, unsigned int n)
{
	unsigned int i;

	spin_lock_bh(&f->lock);
	for (i = 0; i < n; i++) {
		unsigned int t = sm[i].type & (CSIG_FLOW_NTYPES - 1);
		struct csig_sample *o = &f->tx[t].s;

		/*
		 * A repeat of the sample kept is no news: its arrival time
		 * stays that of the first reflection, so that a consumer
		 * sees each of the receiver's tags once (HPCC's tau).
		 */
		if (!sm[i].fresh && (f->tx_valid & (1U << t)) &&
		    o->format == sm[i].format && o->s == sm[i].s && o->lm == sm[i].lm)
			continue;
		f->tx[t].s = sm[i];
		f->tx[t].t_ns = ktime_get_ns();
		f->tx[t].ack_seq = ntohl(th->ack_seq);
		f->tx[t].seq = ntohl(th->seq);
		f->tx_valid |= 1U << t;
	}
	spin_unlock_bh(&f->lock);
	csig_flow_touch(net, f);
}

/* Would TCP accept the segment?  Asked once a segment: @why caches it. */
static int csig_in_why(struct net *net, struct sk_buff *skb, const struct tcphdr *th,
		       unsigned int payload, int sdif, int *why)
{
	if (*why < 0)
		*why = csig_seg_acceptable(net, skb, th, payload, sdif, false);
	return *why;
}

/*
 * The option of an arriving segment (@n samples in @sm; none: a
 * confirmation), for the flow @f of its connection, or one a
 * confirmation starts.  Returns the flow, if any.
 */
static struct csig_flow *csig_in_opt(struct net *net, struct sk_buff *skb,
				     const struct tcphdr *th, unsigned int payload,
				     int sdif, const struct csig_flow_key *k,
				     struct csig_flow *f, int n,
				     const struct csig_sample *sm, int *why)
{
	if (!f && READ_ONCE(accept_offers))
		f = csig_in_confirm(net, skb, th, payload, sdif, k, n);
	if (!f || !(READ_ONCE(f->state) & CSIG_F_NEGOTIATED)) {
		csig_count(net, C_OPTS_UNNEGOTIATED);
		trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport), "unnegotiated",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		return f;
	}
	if (n == 0)		/* a confirmation: nothing more to it */
		return f;
	if (csig_in_why(net, skb, th, payload, sdif, why)) {
		bool live = *why != C_OPTS_NO_SOCKET;

		csig_count(net, live ? C_OPTS_OUT_OF_WINDOW : C_OPTS_NO_SOCKET);
		if (live)
			csig_count(net, *why);
		trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport),
				      live ? "out_of_window" : "no_socket",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		return f;
	}
	csig_in_keep(net, f, th, sm, n);
	csig_count(net, C_OPTS_PARSED);
	trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport), "parsed", n,
			      ntohl(th->seq), ntohl(th->ack_seq));
	return f;
}

/*
 * A tag's fields @fl, recorded for the flow @f of the TCP segment it came
 * with, when the flow negotiated and TCP would accept the segment.
 */
static void csig_in_tag(struct net *net, struct sk_buff *skb, const struct tcphdr *th,
			unsigned int payload, int sdif, const struct csig_flow_key *k,
			struct csig_flow *f, const struct csig_fields *fl, int *why)
{
	bool neg = f && (READ_ONCE(f->state) & CSIG_F_NEGOTIATED);
	unsigned int t = fl->type & (CSIG_FLOW_NTYPES - 1);

	if (neg && (th->syn || th->rst ||
		    csig_in_why(net, skb, th, payload, sdif, why))) {
		csig_count(net, *why == C_OPTS_NO_SOCKET ? C_TAGS_NO_SOCKET :
			   C_TAGS_OUT_OF_WINDOW);
		neg = false;
	} else if (neg) {
		spin_lock_bh(&f->lock);
		f->rx[t].format = fl->format;
		f->rx[t].type = fl->type;
		f->rx[t].s = fl->s;
		f->rx[t].lm = fl->lm;
		f->rx_valid |= 1U << t;
		f->rx_fresh |= 1U << t;
		spin_unlock_bh(&f->lock);
		csig_flow_touch(net, f);
		csig_count(net, C_TAGS_RECORDED);
	} else {
		csig_count(net, C_TAGS_UNNEGOTIATED);
	}
	trace_csig_opt_tag(ntohs(k->lport), ntohs(k->rport), fl->format,
			   fl->type, fl->s, fl->lm, neg);
}

/*
 * Arriving segments, as their socket sees them (after any NAT), with the
 * tag the packet handler took out of their frame (csig_rx_notes): the
 * handshake, the option, the tag, and the connection's end.  Nothing is
 * taken from a segment whose TCP checksum is wrong.
 */
static unsigned int csig_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct csig_rx_note *rn = this_cpu_ptr(&csig_rx_notes);
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct net *net = state->net;
	unsigned int nh, payload;
	struct csig_fields fl;
	struct csig_flow_key k;
	struct csig_flow *f;
	int n, why = -1, sdif;
	struct tcphdr *th;
	bool tag = false;

	if (rn->skb == skb) {
		fl = rn->fl;
		rn->skb = NULL;
		tag = true;
	}
	th = csig_tcp_of(skb, &nh);
	if (!th) {
		if (tag)
			csig_count(net, C_TAGS_NOT_TCP);
		return NF_ACCEPT;
	}
	n = csig_opt_find((const u8 *)(th + 1), th->doff * 4 - sizeof(*th), sm);
	if (n == CSIG_OPT_NOT_OURS && !tag && !th->syn && !th->fin && !th->rst)
		return NF_ACCEPT;
	if (nf_checksum(skb, state->hook, skb_transport_offset(skb), IPPROTO_TCP,
			state->pf)) {
		if (tag)
			csig_count(net, C_TAGS_CSUM_BAD);
		if (n != CSIG_OPT_NOT_OURS)
			csig_count(net, C_OPTS_CSUM_BAD);
		return NF_ACCEPT;
	}
	if (n < 0 && n != CSIG_OPT_NOT_OURS) {
		csig_count(net, C_OPTS_MALFORMED);
		trace_csig_opt_option(ntohs(th->dest), ntohs(th->source), "malformed",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		n = CSIG_OPT_NOT_OURS;
	}
	csig_key_from_skb(&k, skb, th, true);
	payload = csig_seg_payload(skb, th, nh);
	sdif = csig_skb_is_ipv6(skb) ? inet6_sdif(skb) : inet_sdif(skb);

	if (th->syn && !th->ack) {
		csig_in_syn(net, &k, th, n == 0);
		if (tag)
			csig_count(net, C_TAGS_UNNEGOTIATED);
		return NF_ACCEPT;
	}

	rcu_read_lock();
	f = csig_flow_lookup(net, &k);
	if (th->syn)
		csig_in_synack(net, skb, th, sdif, &k, f, n);
	else if (th->rst && f && csig_rst_valid(net, skb, th, sdif))
		csig_flow_fin(net, f, th, false);
	else if (n != CSIG_OPT_NOT_OURS && !th->rst)
		f = csig_in_opt(net, skb, th, payload, sdif, &k, f, n, sm, &why);
	if (tag)
		csig_in_tag(net, skb, th, payload, sdif, &k, f, &fl, &why);
	if (f && th->fin && !th->syn && !th->rst &&
	    csig_fin_valid(net, skb, th, payload, sdif))
		csig_flow_fin(net, f, th, false);
	rcu_read_unlock();
	return NF_ACCEPT;
}

static const struct nf_hook_ops csig_nf_ops[] = {
	{ .hook = csig_out, .pf = NFPROTO_IPV4, .hooknum = NF_INET_LOCAL_OUT,
	  .priority = NF_IP_PRI_LAST },
	{ .hook = csig_in, .pf = NFPROTO_IPV4, .hooknum = NF_INET_LOCAL_IN,
	  .priority = NF_IP_PRI_LAST },
#if IS_ENABLED(CONFIG_IPV6)
	{ .hook = csig_out, .pf = NFPROTO_IPV6, .hooknum = NF_INET_LOCAL_OUT,
	  .priority = NF_IP6_PRI_LAST },
	{ .hook = csig_in, .pf = NFPROTO_IPV6, .hooknum = NF_INET_LOCAL_IN,
	  .priority = NF_IP6_PRI_LAST },
#endif
};

/* The API for congestion control modules (include/csig_opt_api.h). */
bool csig_opt_negotiated(const struct sock *sk)
{
	struct csig_flow_key k;
	struct csig_flow *f;
	bool r;

	csig_key_from_sk(&k, sk, csig_sk_flow_v6(sk));
	rcu_read_lock();
	f = csig_flow_lookup(sock_net(sk), &k);
	r = f && (READ_ONCE(f->state) & CSIG_F_NEGOTIATED);
	rcu_read_unlock();
	return r;
}
EXPORT_SYMBOL_GPL(csig_opt_negotiated);

int csig_opt_read(const struct sock *sk, unsigned int type,
		  struct csig_opt_sample *out)
{
	struct csig_flow_key k;
	struct csig_flow *f;
	int r = -ENOENT;

	if (type >= CSIG_FLOW_NTYPES)
		return -EINVAL;
	csig_key_from_sk(&k, sk, csig_sk_flow_v6(sk));
	rcu_read_lock();
	f = csig_flow_lookup(sock_net(sk), &k);
	if (f) {
		spin_lock_bh(&f->lock);
		if (f->tx_valid & (1U << type)) {
			*out = f->tx[type];
			r = 0;
		}
		spin_unlock_bh(&f->lock);
	}
	rcu_read_unlock();
	return r;
}
EXPORT_SYMBOL_GPL(csig_opt_read);

unsigned int csig_opt_read_mask(const struct sock *sk, unsigned int mask,
				struct csig_opt_sample *out)
{
	unsigned int got = 0, t, i = 0;
	struct csig_flow_key k;
	struct csig_flow *f;

	csig_key_from_sk(&k, sk, csig_sk_flow_v6(sk));
	rcu_read_lock();
	f = csig_flow_lookup(sock_net(sk), &k);
	if (f) {
		spin_lock_bh(&f->lock);
		got = f->tx_valid & mask & ((1U << CSIG_FLOW_NTYPES) - 1);
		for (t = 0; t < CSIG_FLOW_NTYPES; t++) {
			if (!(mask & (1U << t)))
				continue;
			if (got & (1U << t))
				out[i] = f->tx[t];
			i++;
		}
		spin_unlock_bh(&f->lock);
	}
	rcu_read_unlock();
	return got;
}
EXPORT_SYMBOL_GPL(csig_opt_read_mask);

int csig_opt_register_consumer(const char *name)
{
	atomic_inc(&csig_nconsumers);
	pr_info("consumer %s registered\n", name);
	return 0;
}
EXPORT_SYMBOL_GPL(csig_opt_register_consumer);

void csig_opt_unregister_consumer(const char *name)
{
	atomic_dec(&csig_nconsumers);
}
EXPORT_SYMBOL_GPL(csig_opt_unregister_consumer);

/*
 * /proc/net/csig_opt: dcc_pernet's counters, then these; /proc/net/csig_opt_flows:
 * the flows.
 */
static void csig_counters_show(struct seq_file *m, struct net *net)
{
	seq_printf(m, "flows %d\nconsumers %d\n", atomic_read(&csig_net(net)->nflows),
		   atomic_read(&csig_nconsumers));
}

/*
 * The flow list: a walk of the namespace's table, each read() in an RCU
 * section of its own (rhashtable's walker, as /proc/net/netlink).
 */
struct csig_flows_iter {
	struct seq_net_private p;	/* first: seq_file_net() */
	struct rhashtable_iter hti;
};

static struct csig_flow *csig_flows_next_flow(struct csig_flows_iter *it)
{
	struct csig_flow *f;

	do {
		f = rhashtable_walk_next(&it->hti);
	} while (IS_ERR(f) && PTR_ERR(f) == -EAGAIN);	/* a resize: go on */
	return IS_ERR(f) ? NULL : f;
}

static void *csig_flows_start(struct seq_file *m, loff_t *pos)
	__acquires(RCU)
{
	struct csig_flows_iter *it = m->private;
	void *v = SEQ_START_TOKEN;
	loff_t i;

	rhashtable_walk_enter(&csig_net(seq_file_net(m))->flows, &it->hti);
	rhashtable_walk_start(&it->hti);
	for (i = 0; i < *pos && v; i++)
		v = csig_flows_next_flow(it);
	return v;
}

static void *csig_flows_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return csig_flows_next_flow(m->private);
}

static void csig_flows_stop(struct seq_file *m, void *v)
	__releases(RCU)
{
	struct csig_flows_iter *it = m->private;

	rhashtable_walk_stop(&it->hti);
	rhashtable_walk_exit(&it->hti);
}

static int csig_flows_show(struct seq_file *m, void *v)
{
	struct csig_flow *f = v;
	struct csig_flow_key *k;
	int t;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# local remote state  rx: type/format/S/LM ...  tx: type/format/S/LM/age_us ...\n");
		return 0;
	}
	k = &f->key;
	if (k->family == AF_INET)
		seq_printf(m, "%pI4:%u %pI4:%u", &k->laddr.s6_addr32[0],
			   ntohs(k->lport), &k->raddr.s6_addr32[0], ntohs(k->rport));
	else
		seq_printf(m, "[%pI6c]:%u [%pI6c]:%u", &k->laddr,
			   ntohs(k->lport), &k->raddr, ntohs(k->rport));
	spin_lock_bh(&f->lock);
	seq_printf(m, " %s%s%s rx:",
		   f->state & CSIG_F_NEGOTIATED ? "negotiated" : "-",
		   f->state & CSIG_F_OFFERED ? ",offered" : "",
		   f->state & CSIG_F_PEER_OFFERED ? ",peer_offered" : "");
	for (t = 0; t < CSIG_FLOW_NTYPES; t++)
		if (f->rx_valid & (1U << t))
			seq_printf(m, " %u/%u/%u/%u", t, f->rx[t].format,
				   f->rx[t].s, f->rx[t].lm);
	seq_puts(m, " tx:");
	for (t = 0; t < CSIG_FLOW_NTYPES; t++)
		if (f->tx_valid & (1U << t))
			seq_printf(m, " %u/%u/%u/%u/%llu", t, f->tx[t].s.format,
				   f->tx[t].s.s, f->tx[t].s.lm,
				   div_u64(ktime_get_ns() - f->tx[t].t_ns, 1000));
	spin_unlock_bh(&f->lock);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations csig_flows_seq_ops = {
	.start = csig_flows_start,
	.next = csig_flows_next,
	.stop = csig_flows_stop,
	.show = csig_flows_show,
};

/* Free what is left of a namespace's flows (its hooks are gone). */
static void csig_flow_free(void *ptr, void *arg)
{
	struct csig_flow *f = ptr;

	kfree_rcu(f, rcu);
}

/* The namespace's flows, their list and hooks (its counters are dcc_pernet's). */
static int __net_init csig_net_init(struct net *net)
{
	struct csig_net *cn = csig_net(net);
	int err;

	cn->net = net;
	atomic_set(&cn->nflows, 0);
	spin_lock_init(&cn->lock);
	INIT_LIST_HEAD(&cn->lru);
	INIT_DELAYED_WORK(&cn->gc, csig_gc_work_fn);
	cn->accept_seed = get_random_u32();
	cn->accepts = kvcalloc(1U << CSIG_ACCEPT_BITS, sizeof(*cn->accepts),
			       GFP_KERNEL_ACCOUNT);
	if (!cn->accepts)
		return -ENOMEM;
	err = rhashtable_init(&cn->flows, &csig_flow_params);
	if (err)
		goto free_accepts;
	/* the flows (addresses, ports) are for the namespace's root only */
	err = -ENOMEM;
	if (!proc_create_net("csig_opt_flows", 0400, net->proc_net,
			     &csig_flows_seq_ops, sizeof(struct csig_flows_iter)))
		goto free_table;
	err = nf_register_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	if (err)
		goto free_proc;
	schedule_delayed_work(&cn->gc, HZ);
	return 0;

free_proc:
	remove_proc_entry("csig_opt_flows", net->proc_net);
free_table:
	rhashtable_destroy(&cn->flows);
free_accepts:
	kvfree(cn->accepts);
	return err;
}

static void __net_exit csig_net_exit(struct net *net)
{
	struct csig_net *cn = csig_net(net);

	nf_unregister_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	remove_proc_entry("csig_opt_flows", net->proc_net);
	cancel_delayed_work_sync(&cn->gc);
	rhashtable_free_and_destroy(&cn->flows, csig_flow_free, NULL);
	kvfree(cn->accepts);
}

static struct dcc_pernet csig_pernet = {
	.proc_name = "csig_opt",
	.ctr_names = csig_ctr_names,
	.nctrs = C_NR,
	.init = csig_net_init,
	.exit = csig_net_exit,
	.show = csig_counters_show,
	.ops = DCC_PERNET_OPS(csig_pernet, struct csig_net),
};

static bool csig_tpid_ok(unsigned int t)
{
	return t >= ETH_P_802_3_MIN && t != ETH_P_8021Q && t != ETH_P_8021AD &&
	       t != ETH_P_IP && t != ETH_P_IPV6 && t != ETH_P_ARP;
}

static int __init csig_opt_init(void)
{
	int err;

	if (!csig_tpid_ok(tpid_compact) || !csig_tpid_ok(tpid_expanded) ||
	    tpid_compact == tpid_expanded) {
		pr_err("tpid_compact and tpid_expanded must differ and be EtherTypes other than 802.1Q/802.1ad/IP/ARP\n");
		return -EINVAL;
	}
	if (!max_flows) {
		pr_err("max_flows must not be 0\n");
		return -EINVAL;
	}
	BUILD_BUG_ON(offsetof(struct csig_net, dcc) != 0);
	err = dcc_pernet_register(&csig_pernet);
	if (err)
		return err;
	csig_pt[0].type = htons(tpid_compact);
	csig_pt[1].type = htons(tpid_expanded);
	dev_add_pack(&csig_pt[0]);
	dev_add_pack(&csig_pt[1]);
	return 0;
}

static void __exit csig_opt_exit(void)
{
	dev_remove_pack(&csig_pt[1]);
	dev_remove_pack(&csig_pt[0]);	/* both wait for readers */
	dcc_pernet_unregister(&csig_pernet);
	rcu_barrier();	/* the flows' kfree_rcu() */
}

module_init(csig_opt_init);
module_exit(csig_opt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CSIG for TCP hosts: tag reception, reflection option, negotiation");
