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
 * State lives in a flow table keyed by the connection's addresses and
 * ports, not in the socket: no socket is referenced or changed, any
 * congestion control works on either end, and the module can be removed
 * at any time.  Entries expire after idle_timeout seconds without traffic.
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
	"flows_full",
};

/* The namespace's counters (include/dcc_pernet.h) and flows. */
struct csig_net {
	struct dcc_net dcc;	/* first: dcc_net_priv() */
	atomic_t nflows;
};

static struct csig_net *csig_net(const struct net *net)
{
	return dcc_net_priv(net);
}

static void csig_count(const struct net *net, int i)
{
	dcc_count(net, i);
}

/* The flow table. */
#define CSIG_FLOW_HASH_BITS	12
#define CSIG_FLOW_NTYPES		16

struct csig_flow_key {
	const struct net *net;
	u8	family;
	u8	pad;
	__be16	lport, rport;
	struct in6_addr laddr, raddr;	/* IPv4: mapped into the first word */
};

enum { CSIG_F_OFFERED = 1, CSIG_F_PEER_OFFERED = 2, CSIG_F_NEGOTIATED = 4 };

/*
 * Segments after the handshake on which an active opener confirms the
 * negotiation (the handshake option, or a reflection), so that the passive
 * end can keep state only for a handshake that completed.
 */
#define CSIG_CONFIRMS	3

struct csig_flow {
	struct hlist_node node;
	struct rcu_head rcu;
	struct csig_flow_key key;
	spinlock_t lock;		/* protects the fields below */
	unsigned long last_used;	/* jiffies */
	u8	state;
	u8	confirms;		/* active open: confirmations to send */
	u16	rx_valid, rx_fresh;	/* by type */
	u16	tx_valid;
	struct csig_sample rx[CSIG_FLOW_NTYPES];	/* receiver: latest tag of each type */
	struct csig_opt_sample tx[CSIG_FLOW_NTYPES];	/* sender: latest reflected */
};

/* Lookups walk a bucket under RCU; its lock serialises changes to it. */
static struct {
	struct hlist_head head;
	spinlock_t lock;	/* adds and removals in this bucket */
} csig_table[1 << CSIG_FLOW_HASH_BITS];
static atomic_t csig_nconsumers;
static u32 csig_hash_seed __read_mostly;

static u32 csig_key_hash(const struct csig_flow_key *k)
{
	u32 ports = ((u32)ntohs(k->lport) << 16) | ntohs(k->rport);

	return jhash2((const u32 *)&k->laddr, 8,
		      jhash_3words((u32)(unsigned long)k->net, ports, k->family,
				   csig_hash_seed)) &
	       ((1 << CSIG_FLOW_HASH_BITS) - 1);
}

static struct csig_flow *csig_flow_lookup(const struct csig_flow_key *k, u32 h)
{
	struct csig_flow *f;

	hlist_for_each_entry_rcu(f, &csig_table[h].head, node)
		if (!memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

/* Find or add; the caller holds rcu_read_lock(). */
static struct csig_flow *csig_flow_get(struct net *net, const struct csig_flow_key *k)
{
	u32 h = csig_key_hash(k);
	struct csig_flow *f = csig_flow_lookup(k, h);

	if (f)
		return f;
	if (atomic_inc_return(&csig_net(net)->nflows) > max_flows) {
		atomic_dec(&csig_net(net)->nflows);
		csig_count(net, C_FLOWS_FULL);
		return NULL;
	}
	f = kzalloc(sizeof(*f), GFP_ATOMIC);
	if (!f) {
		atomic_dec(&csig_net(net)->nflows);
		return NULL;
	}
	f->key = *k;
	spin_lock_init(&f->lock);
	f->last_used = jiffies;
	spin_lock_bh(&csig_table[h].lock);
	if (csig_flow_lookup(k, h)) {	/* lost a race */
		spin_unlock_bh(&csig_table[h].lock);
		kfree(f);
		atomic_dec(&csig_net(net)->nflows);
		return csig_flow_lookup(k, h);
	}
	hlist_add_head_rcu(&f->node, &csig_table[h].head);
	spin_unlock_bh(&csig_table[h].lock);
	return f;
}

static void csig_flow_free_rcu(struct rcu_head *r)
{
	kfree(container_of(r, struct csig_flow, rcu));
}

/*
 * Unlink a flow; the caller holds its bucket's lock.  @net_alive: its
 * namespace's counters are still there to count it out.
 */
static void csig_flow_unlink(struct csig_flow *f, bool net_alive)
{
	hlist_del_rcu(&f->node);
	if (net_alive)
		atomic_dec(&csig_net(f->key.net)->nflows);
	call_rcu(&f->rcu, csig_flow_free_rcu);
}

/* Forget the flow of @k, if any: a new connection on its addresses. */
static void csig_flow_drop(const struct csig_flow_key *k)
{
	u32 h = csig_key_hash(k);
	struct csig_flow *f;

	spin_lock_bh(&csig_table[h].lock);
	f = csig_flow_lookup(k, h);
	if (f)
		csig_flow_unlink(f, true);
	spin_unlock_bh(&csig_table[h].lock);
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
	f->last_used = jiffies;
}

/* Remove expired flows (or all of @net's, or all when @all). */
static void csig_flow_gc(const struct net *net, bool all)
{
	unsigned long idle = (unsigned long)READ_ONCE(idle_timeout) * HZ;
	struct hlist_node *tmp;
	struct csig_flow *f;
	int i;

	for (i = 0; i < ARRAY_SIZE(csig_table); i++) {
		spin_lock_bh(&csig_table[i].lock);
		hlist_for_each_entry_safe(f, tmp, &csig_table[i].head, node) {
			if (all || (net && f->key.net == net) ||
			    (!net && time_after(jiffies, READ_ONCE(f->last_used) + idle)))
				csig_flow_unlink(f, !all);
		}
		spin_unlock_bh(&csig_table[i].lock);
		cond_resched();
	}
}

static void csig_gc_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(csig_gc_work, csig_gc_work_fn);

static void csig_gc_work_fn(struct work_struct *w)
{
	csig_flow_gc(NULL, false);
	schedule_delayed_work(&csig_gc_work, HZ);
}

/*
 * IPv6 or IPv4?  skb->protocol says so on input; on output it may not be
 * set yet, and the header's version does.
 */
static bool csig_skb_is_ipv6(const struct sk_buff *skb)
{
	return skb->protocol == htons(ETH_P_IPV6) ||
	       (skb->protocol != htons(ETH_P_IP) && ipv6_hdr(skb)->version == 6);
}

/* Key of a segment: local is the destination when @in, else the source. */
static void csig_key_from_skb(struct csig_flow_key *k, struct net *net, struct sk_buff *skb,
			      const struct tcphdr *th, bool in)
{
	memset(k, 0, sizeof(*k));
	k->net = net;
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
	k->net = sock_net(sk);
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

/* The IP and TCP headers of a TCP segment at the network header, or NULL. */
static struct tcphdr *csig_tcp_of(struct sk_buff *skb, unsigned int *nhlen)
{
	unsigned int nh, thlen;

	if (csig_skb_is_ipv6(skb)) {
		if (ipv6_hdr(skb)->nexthdr != IPPROTO_TCP)
			return NULL;
		nh = sizeof(struct ipv6hdr);
	} else {
		const struct iphdr *ip = ip_hdr(skb);

		if (ip->protocol != IPPROTO_TCP || ip_is_fragment(ip) || ip->ihl < 5)
			return NULL;
		nh = ip->ihl * 4;
	}
	if (!pskb_may_pull(skb, skb_network_offset(skb) + nh + sizeof(struct tcphdr)))
		return NULL;
	thlen = ((struct tcphdr *)(skb_network_header(skb) + nh))->doff * 4;
	if (thlen < sizeof(struct tcphdr) ||
	    !pskb_may_pull(skb, skb_network_offset(skb) + nh + thlen))
		return NULL;
	skb_set_transport_header(skb, skb_network_offset(skb) + nh);
	*nhlen = nh;
	return tcp_hdr(skb);
}

/* Payload bytes of a segment, as its IP header says (frames may be padded). */
static unsigned int csig_seg_payload(const struct sk_buff *skb, const struct tcphdr *th,
				     unsigned int nh)
{
	unsigned int l3, hl = nh + th->doff * 4;

	if (csig_skb_is_ipv6(skb))
		l3 = sizeof(struct ipv6hdr) + ntohs(ipv6_hdr(skb)->payload_len);
	else
		l3 = ntohs(ip_hdr(skb)->tot_len);
	return l3 > hl ? l3 - hl : 0;
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
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 seq = ntohl(th->seq), end = seq + payload + th->fin;
	u32 ack = ntohl(th->ack_seq), rcv_nxt = READ_ONCE(tp->rcv_nxt);
	u32 una = READ_ONCE(tp->snd_una), tsval;

	if (th->rst || th->syn || !th->ack)
		return C_OOW_SEQ;
	/* tcp_sequence() */
	if (before(end, READ_ONCE(tp->rcv_wup)) ||
	    after(seq, rcv_nxt + tcp_receive_window(tp)))
		return C_OOW_SEQ;
	/*
	 * tcp_ack(): not beyond what was sent, not older than a window.  The
	 * bound is write_seq, not snd_nxt: over a software path the ACK of a
	 * segment can arrive before its sender has advanced snd_nxt, and TCP
	 * then checks it from the socket's backlog, later.
	 */
	if (after(ack, READ_ONCE(tp->write_seq)) ||
	    before(ack, una - READ_ONCE(tp->max_window)))
		return C_OOW_ACK;
	/* PAWS (tcp_paws_check()): at most TCP_PAWS_WINDOW older */
	if (READ_ONCE(tp->rx_opt.ts_recent_stamp) &&
	    (csig_tcpopt_scan((const u8 *)(th + 1), th->doff * 4 - sizeof(*th),
			      &tsval) & CSIG_SCAN_TS) &&
	    (s32)(READ_ONCE(tp->rx_opt.ts_recent) - tsval) > TCP_PAWS_WINDOW)
		return C_OOW_PAWS;
	return 0;
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
static bool csig_req_would_accept(const struct sock *sk, const struct tcphdr *th)
{
	const struct request_sock *req = inet_reqsk(sk);
	const struct tcp_request_sock *treq = tcp_rsk(req);
	u32 seq = ntohl(th->seq);

	return !th->syn && !th->rst && th->ack &&
	       ntohl(th->ack_seq) == treq->snt_isn + 1 &&
	       !before(seq, treq->rcv_isn + 1) &&
	       !after(seq, treq->rcv_isn + 1 + req->rsk_rcv_wnd);
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
static int csig_seg_acceptable(struct net *net, struct sk_buff *skb,
			       const struct tcphdr *th, unsigned int payload, int sdif,
			       bool cookie)
{
	struct sock *sk = csig_sk_lookup(net, skb, th, sdif);
	int why = C_OPTS_NO_SOCKET;

	if (!sk)
		return cookie && !th->syn && !th->rst && th->ack &&
		       csig_cookie_valid(skb, th) ? 0 : why;
	if (sk->sk_state == TCP_NEW_SYN_RECV)
		why = csig_req_would_accept(sk, th) ? 0 : C_OOW_ACK;
	else if (sk_fullsock(sk) && ((1 << sk->sk_state) & CSIG_TCPF_LIVE))
		why = csig_tcp_would_accept(sk, th, payload);
	sock_gen_put(sk);
	return why;
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
 * A tag's fields @fl, recorded for the flow of the TCP segment it came
 * with, when the flow negotiated and TCP would accept the segment.
 */
static void csig_rcv_record(struct net *net, struct sk_buff *skb,
			    const struct tcphdr *th, unsigned int nh,
			    const struct csig_fields *fl)
{
	struct csig_flow_key k;
	struct csig_flow *f;
	bool neg;
	int why;

	csig_key_from_skb(&k, net, skb, th, true);
	rcu_read_lock();
	f = csig_flow_lookup(&k, csig_key_hash(&k));
	neg = f && (READ_ONCE(f->state) & CSIG_F_NEGOTIATED);
	why = neg ? csig_seg_acceptable(net, skb, th, csig_seg_payload(skb, th, nh),
					-1, false) : 0;
	if (why) {
		csig_count(net, why == C_OPTS_NO_SOCKET ? C_TAGS_NO_SOCKET :
			   C_TAGS_OUT_OF_WINDOW);
		neg = false;
	} else if (neg) {
		unsigned int t = fl->type & (CSIG_FLOW_NTYPES - 1);

		spin_lock_bh(&f->lock);
		f->rx[t].format = fl->format;
		f->rx[t].type = fl->type;
		f->rx[t].s = fl->s;
		f->rx[t].lm = fl->lm;
		f->rx_valid |= 1U << t;
		f->rx_fresh |= 1U << t;
		f->last_used = jiffies;
		spin_unlock_bh(&f->lock);
		csig_count(net, C_TAGS_RECORDED);
	} else {
		csig_count(net, C_TAGS_UNNEGOTIATED);
	}
	trace_csig_opt_tag(ntohs(k.lport), ntohs(k.rport), fl->format,
			   fl->type, fl->s, fl->lm, neg);
	rcu_read_unlock();
}

/*
 * Reception.  eth_type_trans() left skb->data at the tag's data, the TPID
 * just before it.  The tag's bytes are pulled, the MAC addresses moved up
 * to the payload's EtherType, and the frame goes through the receive path
 * again, as the VLAN code does with a tag it takes out.
 */
static int csig_rcv(struct sk_buff *skb, struct net_device *dev,
		    struct packet_type *pt, struct net_device *orig_dev)
{
	struct net *net = dev_net(dev);
	unsigned int tlen, fmt, nh;
	struct csig_fields fl;
	struct tcphdr *th;
	__be16 inner;
	u16 in;
	u8 *mac;

	fmt = skb->protocol == htons(tpid_compact) ? CSIG_FMT_COMPACT :
						      CSIG_FMT_EXPANDED;
	tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN : CSIG_EXPANDED_LEN;
	csig_count(net, C_TAGS);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	/* the tag's data and the payload's EtherType (include/csig.h) */
	if (skb_mac_header_len(skb) != ETH_HLEN || !pskb_may_pull(skb, tlen) ||
	    csig_tag_rx(skb->data, skb_headlen(skb), fmt, tpid_compact,
			tpid_expanded, &fl, &in) < 0)
		goto malformed;
	inner = htons(in);
	if (skb_cow(skb, 0))
		goto drop;
	/* pull the tag's bytes first: CHECKSUM_COMPLETE covers them */
	skb_pull_rcsum(skb, tlen);
	mac = skb_mac_header(skb);
	memmove(mac + tlen, mac, 2 * ETH_ALEN);
	skb->mac_header += tlen;
	skb->protocol = inner;
	skb_reset_network_header(skb);
	skb_reset_mac_len(skb);
	csig_count(net, C_TAGS_REMOVED);

	/* whose is it?  Recorded only for a segment TCP would accept. */
	nh = 0;
	if (inner == htons(ETH_P_IP))
		nh = pskb_may_pull(skb, sizeof(struct iphdr));
	else if (inner == htons(ETH_P_IPV6))
		nh = pskb_may_pull(skb, sizeof(struct ipv6hdr));
	th = nh ? csig_tcp_of(skb, &nh) : NULL;
	if (th)
		csig_rcv_record(net, skb, th, nh, &fl);
	else
		csig_count(net, C_TAGS_NOT_TCP);
	skb_reset_transport_header(skb);
	return netif_receive_skb_core(skb);

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
 * Append @len bytes of options (a multiple of 4) to the TCP header of an
 * outgoing segment, using headroom: IP and TCP headers move down, the
 * option goes where they ended, the payload stays where it is.  A segment
 * with payload must be CHECKSUM_PARTIAL (the caller checks).
 */
static int csig_append_opt(struct sk_buff *skb, unsigned int nh, const u8 *opt,
			   unsigned int len)
{
	unsigned int hl = nh + tcp_hdr(skb)->doff * 4, o;
	struct tcphdr *th;

	if (tcp_hdr(skb)->doff * 4 + len > 60)
		return -ENOSPC;
	o = skb_network_offset(skb);
	if (skb_ensure_writable(skb, o + hl) || skb_cow_head(skb, len))
		return -ENOMEM;
	skb_push(skb, len);
	memmove(skb->data, skb->data + len, o + hl);
	skb->network_header -= len;
	skb->transport_header -= len;
	th = tcp_hdr(skb);
	memcpy((u8 *)th + th->doff * 4, opt, len);
	th->doff += len / 4;

	if (ip_hdr(skb)->version == 4) {
		struct iphdr *ip = ip_hdr(skb);

		be16_add_cpu(&ip->tot_len, len);
		ip_send_check(ip);
		if (skb->ip_summed == CHECKSUM_PARTIAL) {
			th->check = ~tcp_v4_check(skb->len - skb_transport_offset(skb),
						  ip->saddr, ip->daddr, 0);
			skb->csum_start = skb_transport_header(skb) - skb->head;
		} else {
			th->check = 0;
			th->check = tcp_v4_check(skb->len - skb_transport_offset(skb),
						 ip->saddr, ip->daddr,
						 csum_partial(th, skb->len -
							      skb_transport_offset(skb), 0));
		}
	} else {
		struct ipv6hdr *ip6 = ipv6_hdr(skb);

		be16_add_cpu(&ip6->payload_len, len);
		if (skb->ip_summed == CHECKSUM_PARTIAL) {
			th->check = ~tcp_v6_check(skb->len - skb_transport_offset(skb),
						  &ip6->saddr, &ip6->daddr, 0);
			skb->csum_start = skb_transport_header(skb) - skb->head;
		} else {
			th->check = 0;
			th->check = tcp_v6_check(skb->len - skb_transport_offset(skb),
						 &ip6->saddr, &ip6->daddr,
						 csum_partial(th, skb->len -
							      skb_transport_offset(skb), 0));
		}
	}
	return 0;
}

/* Pad an option to a multiple of 4 with leading NOPs. */
static unsigned int csig_pad_opt(u8 *buf, const u8 *opt, unsigned int len)
{
	unsigned int pad = (4 - (len & 3)) & 3;

	memset(buf, TCPOPT_NOP, pad);
	memcpy(buf + pad, opt, len);
	return pad + len;
}

/*
 * The SYN this CPU is answering.  TCP answers a SYN with its SYN-ACK in
 * the softirq that delivered it (tcp_conn_request(), inet_rtx_syn_ack()
 * for a repeated SYN), so the output hook finds here whether the SYN it
 * answers offered CSIG: no state is kept for a SYN, spoofed or not.
 */
struct csig_syn_note {
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
		csig_key_from_skb(k, net, skb, th, false);
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
	unsigned int ipl = skb->len - skb_network_offset(skb);
	unsigned int used = th->doff * 4 + payload, budget, mtu;

	/* one segment (all of a GSO super-packet's but the last are full) */
	if (skb_is_gso(skb) || skb->ip_summed != CHECKSUM_PARTIAL || !dst ||
	    !sk || !sk_fullsock(sk) || sk->sk_protocol != IPPROTO_TCP)
		return 0;
	budget = READ_ONCE(tcp_sk(sk)->mss_cache) + tcp_sk(sk)->tcp_header_len;
	mtu = dst_mtu(dst);
	if (used >= budget || ipl >= mtu)
		return 0;
	return min(budget - used, mtu - ipl);
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
		csig_flow_drop(k);
		return;
	}
	f = csig_flow_get(net, k);
	if (!f)
		return;
	if (csig_append_syn_opt(skb, nh)) {
		csig_count(net, C_OPTS_NO_ROOM);
		csig_flow_drop(k);
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
	const struct csig_syn_note *sn;
	bool ok;

	/* a new connection on these addresses: nothing of an old one stays */
	if (csig_flow_lookup(k, csig_key_hash(k)))
		csig_flow_drop(k);
	local_bh_disable();
	sn = this_cpu_ptr(&csig_syn_notes);
	ok = sn->offered && sn->isn == ntohl(tcp_hdr(skb)->ack_seq) - 1 &&
	     !memcmp(&sn->key, k, sizeof(*k));
	local_bh_enable();
	if (!ok || !READ_ONCE(accept_offers))
		return;
	if (csig_seg_signed(tcp_hdr(skb))) {
		csig_count(net, C_OPTS_SIGNED);
		return;
	}
	if (csig_append_syn_opt(skb, nh)) {
		csig_count(net, C_OPTS_NO_ROOM);
		return;
	}
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
	u8 opt[CSIG_OPT_MAX_LEN], buf[CSIG_OPT_MAX_LEN + 4];
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct tcphdr *th = tcp_hdr(skb);
	unsigned int payload, room, n, len;
	bool confirm;

	payload = skb->len - skb_transport_offset(skb) - th->doff * 4;
	WRITE_ONCE(f->last_used, jiffies);
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

	n = csig_flow_samples(f, sm);
	/*
	 * The most samples whose option, padded to 4 bytes (4 + 6n needs 2
	 * bytes of padding when n is odd), fits the room; without one, the
	 * confirmation alone.
	 */
	while (n && CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * n + (n & 1) * 2 > room)
		n--;
	if (n)
		len = csig_opt_put(opt, sizeof(opt), sm, n);
	else
		len = confirm ? csig_opt_put_syn(opt, room) : 0;
	if (!len || csig_append_opt(skb, nh, buf, csig_pad_opt(buf, opt, len))) {
		csig_count(net, payload ? C_OPTS_DATA_NO_FIT : C_OPTS_NO_ROOM);
		return;
	}
	th = tcp_hdr(skb);	/* csig_append_opt() moved the headers */
	n = (len - CSIG_OPT_HDR_LEN) / CSIG_OPT_SAMPLE_LEN;
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
		f = csig_flow_lookup(&k, csig_key_hash(&k));
		if (f && (READ_ONCE(f->state) & CSIG_F_NEGOTIATED))
			csig_out_flow(net, skb, nh, f);
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
		ok = after(ack, READ_ONCE(tcp_sk(sk)->snd_una)) &&
		     !after(ack, READ_ONCE(tcp_sk(sk)->write_seq));
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
	spin_lock_bh(&f->lock);
	if (n == 0) {
		f->state |= CSIG_F_NEGOTIATED;
		f->confirms = CSIG_CONFIRMS;
	}
	spin_unlock_bh(&f->lock);
	csig_count(net, n ? C_PEER_DECLINED : C_NEGOTIATED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport),
				   n ? "declined" : "negotiated");
}

/*
 * The active opener's first segments, for a flow the passive end does not
 * track: a passive open is confirmed by one that completes the handshake
 * as TCP checks it (the request socket's ISNs, or a syncookie) or that the
 * established connection accepts.  Only then does the passive end keep
 * state for the flow.  Returns it, or NULL.
 */
static struct csig_flow *csig_in_confirm(struct net *net, struct sk_buff *skb,
					 const struct tcphdr *th, unsigned int payload,
					 int sdif, const struct csig_flow_key *k, int n)
{
	struct csig_flow *f;

	if (csig_seg_acceptable(net, skb, th, payload, sdif, true)) {
		csig_count(net, C_CONFIRM_INVALID);
		trace_csig_opt_option(ntohs(k->lport), ntohs(k->rport),
				      "confirm_invalid", n, ntohl(th->seq),
				      ntohl(th->ack_seq));
		return NULL;
	}
	f = csig_flow_get(net, k);
	if (!f)
		return NULL;
	spin_lock_bh(&f->lock);
	if (!(f->state & CSIG_F_NEGOTIATED))
		csig_flow_reset(f, CSIG_F_PEER_OFFERED | CSIG_F_NEGOTIATED);
	spin_unlock_bh(&f->lock);
	csig_count(net, C_CONFIRMED);
	trace_csig_opt_negotiation(ntohs(k->lport), ntohs(k->rport), "confirmed");
	return f;
}

/* Keep the @n samples of a reflection TCP accepts, for the API. */
static void csig_in_keep(struct csig_flow *f, const struct tcphdr *th,
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
	f->last_used = jiffies;
	spin_unlock_bh(&f->lock);
}

static unsigned int csig_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct net *net = state->net;
	unsigned int nh, payload;
	struct csig_flow_key k;
	struct csig_flow *f;
	struct tcphdr *th;
	int n, why, sdif;

	th = csig_tcp_of(skb, &nh);
	if (!th)
		return NF_ACCEPT;
	n = csig_opt_find((const u8 *)(th + 1), th->doff * 4 - sizeof(*th), sm);
	if (n == CSIG_OPT_NOT_OURS && !th->syn)
		return NF_ACCEPT;
	if (n < 0 && n != CSIG_OPT_NOT_OURS) {
		csig_count(net, C_OPTS_MALFORMED);
		trace_csig_opt_option(ntohs(th->dest), ntohs(th->source), "malformed",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		return NF_ACCEPT;
	}
	csig_key_from_skb(&k, net, skb, th, true);
	payload = csig_seg_payload(skb, th, nh);
	sdif = csig_skb_is_ipv6(skb) ? inet6_sdif(skb) : inet_sdif(skb);

	if (th->syn && !th->ack) {
		csig_in_syn(net, &k, th, n == 0);
		return NF_ACCEPT;
	}

	rcu_read_lock();
	f = csig_flow_lookup(&k, csig_key_hash(&k));
	if (th->syn) {
		csig_in_synack(net, skb, th, sdif, &k, f, n);
		goto out;
	}
	if (!f && READ_ONCE(accept_offers)) {
		f = csig_in_confirm(net, skb, th, payload, sdif, &k, n);
		if (!f)
			goto out;
	}
	if (!f || !(READ_ONCE(f->state) & CSIG_F_NEGOTIATED)) {
		csig_count(net, C_OPTS_UNNEGOTIATED);
		trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport), "unnegotiated",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		goto out;
	}
	if (n == 0)		/* a confirmation: nothing more to it */
		goto out;
	why = csig_seg_acceptable(net, skb, th, payload, sdif, false);
	if (why) {
		bool live = why != C_OPTS_NO_SOCKET;

		csig_count(net, live ? C_OPTS_OUT_OF_WINDOW : C_OPTS_NO_SOCKET);
		if (live)
			csig_count(net, why);
		trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport),
				      live ? "out_of_window" : "no_socket",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		goto out;
	}
	csig_in_keep(f, th, sm, n);
	csig_count(net, C_OPTS_PARSED);
	trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport), "parsed", n,
			      ntohl(th->seq), ntohl(th->ack_seq));
out:
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
	f = csig_flow_lookup(&k, csig_key_hash(&k));
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
	f = csig_flow_lookup(&k, csig_key_hash(&k));
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
	f = csig_flow_lookup(&k, csig_key_hash(&k));
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

static int csig_flows_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct csig_flow *f;
	int i, t;

	seq_puts(m, "# local remote state  rx: type/format/S/LM ...  tx: type/format/S/LM/age_us ...\n");
	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(csig_table); i++) {
		hlist_for_each_entry_rcu(f, &csig_table[i].head, node) {
			struct csig_flow_key *k = &f->key;

			if (k->net != net)
				continue;
			if (k->family == AF_INET)
				seq_printf(m, "%pI4:%u %pI4:%u", &k->laddr.s6_addr32[0],
					   ntohs(k->lport), &k->raddr.s6_addr32[0],
					   ntohs(k->rport));
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
					seq_printf(m, " %u/%u/%u/%u/%llu", t,
						   f->tx[t].s.format, f->tx[t].s.s,
						   f->tx[t].s.lm,
						   (ktime_get_ns() - f->tx[t].t_ns) / 1000);
			spin_unlock_bh(&f->lock);
			seq_putc(m, '\n');
		}
	}
	rcu_read_unlock();
	return 0;
}

/* The namespace's flows file and hooks (its counters are dcc_pernet's). */
static int __net_init csig_net_init(struct net *net)
{
	int err;

	atomic_set(&csig_net(net)->nflows, 0);
	/* the flows (addresses, ports) are for the namespace's root only */
	if (!proc_create_net_single("csig_opt_flows", 0400, net->proc_net,
				    csig_flows_show, NULL))
		return -ENOMEM;
	err = nf_register_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	if (err)
		remove_proc_entry("csig_opt_flows", net->proc_net);
	return err;
}

static void __net_exit csig_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	remove_proc_entry("csig_opt_flows", net->proc_net);
	csig_flow_gc(net, false);
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
	int i, err;

	if (!csig_tpid_ok(tpid_compact) || !csig_tpid_ok(tpid_expanded) ||
	    tpid_compact == tpid_expanded) {
		pr_err("tpid_compact and tpid_expanded must differ and be EtherTypes other than 802.1Q/802.1ad/IP/ARP\n");
		return -EINVAL;
	}
	if (!max_flows) {
		pr_err("max_flows must not be 0\n");
		return -EINVAL;
	}
	get_random_bytes(&csig_hash_seed, sizeof(csig_hash_seed));
	for (i = 0; i < ARRAY_SIZE(csig_table); i++) {
		INIT_HLIST_HEAD(&csig_table[i].head);
		spin_lock_init(&csig_table[i].lock);
	}
	BUILD_BUG_ON(offsetof(struct csig_net, dcc) != 0);
	err = dcc_pernet_register(&csig_pernet);
	if (err)
		return err;
	csig_pt[0].type = htons(tpid_compact);
	csig_pt[1].type = htons(tpid_expanded);
	dev_add_pack(&csig_pt[0]);
	dev_add_pack(&csig_pt[1]);
	schedule_delayed_work(&csig_gc_work, HZ);
	return 0;
}

static void __exit csig_opt_exit(void)
{
	dev_remove_pack(&csig_pt[1]);
	dev_remove_pack(&csig_pt[0]);	/* both wait for readers */
	dcc_pernet_unregister(&csig_pernet);
	cancel_delayed_work_sync(&csig_gc_work);
	csig_flow_gc(NULL, true);
	rcu_barrier();
}

module_init(csig_opt_init);
module_exit(csig_opt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CSIG for TCP hosts: tag reception, reflection option, negotiation");
