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
 * Documentation/tcp_csig_opt.rst has the design and its measurements.
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
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/netns/generic.h>
#include <net/net_namespace.h>
#include <net/ip6_checksum.h>

#include "csig.h"
#include "csig_opt.h"
#include "csig_opt_api.h"

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

static int idle_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err = kstrtouint(val, 0, &v);

	if (err || v < 1 || v > 86400) {
		pr_err("idle_timeout must be 1..86400 seconds\n");
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops idle_timeout_ops = {
	.set = idle_timeout_set,
	.get = param_get_uint,
};

static unsigned int idle_timeout = 120;
module_param_cb(idle_timeout, &idle_timeout_ops, &idle_timeout, 0644);
MODULE_PARM_DESC(idle_timeout, "seconds a flow's state outlives its last packet (1..86400, default 120)");

static unsigned int max_flows = 65536;
module_param(max_flows, uint, 0444);
MODULE_PARM_DESC(max_flows, "flows tracked at most (default 65536)");

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

static const char * const counter_names[C_NR] = {
	"tags", "tags_removed", "tags_recorded", "tags_unnegotiated",
	"tags_not_tcp", "tags_malformed", "syn_offered", "syn_offer_rcvd",
	"synack_accepted", "negotiated", "peer_declined", "opts_sent",
	"opts_no_room", "opts_sent_data", "opts_data_no_fit", "opts_parsed",
	"opts_malformed", "opts_out_of_window", "oow_seq", "oow_ack",
	"oow_paws", "opts_no_socket", "opts_unnegotiated", "marked",
	"flows_full",
};

struct csig_net {
	atomic64_t c[C_NR];
};

static unsigned int csig_net_id;

static void count(struct net *net, int i)
{
	struct csig_net *cn = net_generic(net, csig_net_id);

	atomic64_inc(&cn->c[i]);
}

/* The flow table. */
#define FLOW_HASH_BITS	12
#define NTYPES		16

struct flow_key {
	const struct net *net;
	u8	family;
	u8	pad;
	__be16	lport, rport;
	struct in6_addr laddr, raddr;	/* IPv4: mapped into the first word */
};

enum { F_OFFERED = 1, F_PEER_OFFERED = 2, F_NEGOTIATED = 4 };

struct flow {
	struct hlist_node node;
	struct rcu_head rcu;
	struct flow_key key;
	spinlock_t lock;		/* protects the fields below */
	unsigned long last_used;	/* jiffies */
	u8	state;
	u16	rx_valid, rx_fresh;	/* by type */
	u16	tx_valid;
	struct csig_sample rx[NTYPES];	/* receiver: latest tag of each type */
	struct csig_opt_sample tx[NTYPES];	/* sender: latest reflected */
};

/* Lookups walk a bucket under RCU; its lock serialises changes to it. */
static struct {
	struct hlist_head head;
	spinlock_t lock;	/* adds and removals in this bucket */
} table[1 << FLOW_HASH_BITS];
static atomic_t nflows;
static atomic_t nconsumers;
static u32 hash_seed __read_mostly;

static u32 key_hash(const struct flow_key *k)
{
	u32 ports = ((u32)ntohs(k->lport) << 16) | ntohs(k->rport);

	return jhash2((const u32 *)&k->laddr, 8,
		      jhash_3words((u32)(unsigned long)k->net, ports, k->family,
				   hash_seed)) &
	       ((1 << FLOW_HASH_BITS) - 1);
}

static struct flow *flow_lookup(const struct flow_key *k, u32 h)
{
	struct flow *f;

	hlist_for_each_entry_rcu(f, &table[h].head, node)
		if (!memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

/* Find or add; the caller holds rcu_read_lock(). */
static struct flow *flow_get(struct net *net, const struct flow_key *k)
{
	u32 h = key_hash(k);
	struct flow *f = flow_lookup(k, h);

	if (f)
		return f;
	if (atomic_inc_return(&nflows) > max_flows) {
		atomic_dec(&nflows);
		count(net, C_FLOWS_FULL);
		return NULL;
	}
	f = kzalloc(sizeof(*f), GFP_ATOMIC);
	if (!f) {
		atomic_dec(&nflows);
		return NULL;
	}
	f->key = *k;
	spin_lock_init(&f->lock);
	f->last_used = jiffies;
	spin_lock_bh(&table[h].lock);
	if (flow_lookup(k, h)) {	/* lost a race */
		spin_unlock_bh(&table[h].lock);
		kfree(f);
		atomic_dec(&nflows);
		return flow_lookup(k, h);
	}
	hlist_add_head_rcu(&f->node, &table[h].head);
	spin_unlock_bh(&table[h].lock);
	return f;
}

static void flow_free_rcu(struct rcu_head *r)
{
	kfree(container_of(r, struct flow, rcu));
	atomic_dec(&nflows);
}

/* Remove expired flows (or all of @net's, or all when @all). */
static void flow_gc(const struct net *net, bool all)
{
	unsigned long idle = (unsigned long)READ_ONCE(idle_timeout) * HZ;
	struct hlist_node *tmp;
	struct flow *f;
	int i;

	for (i = 0; i < ARRAY_SIZE(table); i++) {
		spin_lock_bh(&table[i].lock);
		hlist_for_each_entry_safe(f, tmp, &table[i].head, node) {
			if (all || (net && f->key.net == net) ||
			    (!net && time_after(jiffies, READ_ONCE(f->last_used) + idle))) {
				hlist_del_rcu(&f->node);
				call_rcu(&f->rcu, flow_free_rcu);
			}
		}
		spin_unlock_bh(&table[i].lock);
		cond_resched();
	}
}

static void gc_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(gc_work, gc_work_fn);

static void gc_work_fn(struct work_struct *w)
{
	flow_gc(NULL, false);
	schedule_delayed_work(&gc_work, HZ);
}

/*
 * IPv6 or IPv4?  skb->protocol says so on input; on output it may not be
 * set yet, and the header's version does.
 */
static bool skb_is_ipv6(const struct sk_buff *skb)
{
	return skb->protocol == htons(ETH_P_IPV6) ||
	       (skb->protocol != htons(ETH_P_IP) && ipv6_hdr(skb)->version == 6);
}

/* Key of a segment: local is the destination when @in, else the source. */
static void key_from_skb(struct flow_key *k, struct net *net, struct sk_buff *skb,
			 const struct tcphdr *th, bool in)
{
	memset(k, 0, sizeof(*k));
	k->net = net;
	if (skb_is_ipv6(skb)) {
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

static void key_from_sk(struct flow_key *k, const struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);

	bool v6 = false;

	memset(k, 0, sizeof(*k));
	k->net = sock_net(sk);
#if IS_ENABLED(CONFIG_IPV6)
	v6 = sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr);
	if (v6) {
		k->family = AF_INET6;
		k->laddr = sk->sk_v6_rcv_saddr;
		k->raddr = sk->sk_v6_daddr;
	}
#endif
	if (!v6) {
		k->family = AF_INET;
		k->laddr.s6_addr32[0] = inet->inet_rcv_saddr;
		k->raddr.s6_addr32[0] = inet->inet_daddr;
	}
	k->lport = inet->inet_sport;
	k->rport = inet->inet_dport;
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
	__be16 inner;
	u8 *mac;

	fmt = skb->protocol == htons(tpid_compact) ? CSIG_FMT_COMPACT :
						      CSIG_FMT_EXPANDED;
	tlen = fmt == CSIG_FMT_COMPACT ? CSIG_COMPACT_LEN : CSIG_EXPANDED_LEN;
	count(net, C_TAGS);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	/* the tag's data and the payload's EtherType */
	if (!pskb_may_pull(skb, tlen) || skb_mac_header_len(skb) != ETH_HLEN)
		goto malformed;
	inner = *(__be16 *)(skb->data + tlen - 2);
	if (inner == htons(tpid_compact) || inner == htons(tpid_expanded) ||
	    ntohs(inner) < ETH_P_802_3_MIN)
		goto malformed;
	if (fmt == CSIG_FMT_COMPACT) {
		csig_compact_unpack(get_unaligned_be16(skb->data), &fl);
	} else {
		csig_expanded_unpack(get_unaligned_be16(skb->data),
				     get_unaligned_be32(skb->data + 2), &fl);
	}
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
	count(net, C_TAGS_REMOVED);

	/* whose is it? */
	nh = 0;
	if (inner == htons(ETH_P_IP) && pskb_may_pull(skb, sizeof(struct iphdr))) {
		const struct iphdr *ip = ip_hdr(skb);

		if (ip->protocol == IPPROTO_TCP && !ip_is_fragment(ip) && ip->ihl >= 5)
			nh = ip->ihl * 4;
	} else if (inner == htons(ETH_P_IPV6) &&
		   pskb_may_pull(skb, sizeof(struct ipv6hdr))) {
		if (ipv6_hdr(skb)->nexthdr == IPPROTO_TCP)
			nh = sizeof(struct ipv6hdr);
	}
	if (nh && pskb_may_pull(skb, nh + sizeof(struct tcphdr))) {
		struct flow_key k;
		struct flow *f;

		skb_set_transport_header(skb, nh);
		key_from_skb(&k, net, skb, tcp_hdr(skb), true);
		rcu_read_lock();
		f = flow_lookup(&k, key_hash(&k));
		if (f && (READ_ONCE(f->state) & F_NEGOTIATED)) {
			unsigned int t = fl.type & (NTYPES - 1);

			spin_lock_bh(&f->lock);
			f->rx[t].format = fl.format;
			f->rx[t].type = fl.type;
			f->rx[t].s = fl.s;
			f->rx[t].lm = fl.lm;
			f->rx_valid |= 1U << t;
			f->rx_fresh |= 1U << t;
			f->last_used = jiffies;
			spin_unlock_bh(&f->lock);
			count(net, C_TAGS_RECORDED);
		} else {
			count(net, C_TAGS_UNNEGOTIATED);
		}
		trace_csig_opt_tag(ntohs(k.lport), ntohs(k.rport), fl.format,
				   fl.type, fl.s, fl.lm, f && (f->state & F_NEGOTIATED));
		rcu_read_unlock();
	} else {
		count(net, C_TAGS_NOT_TCP);
	}
	skb_reset_transport_header(skb);
	return netif_receive_skb_core(skb);

malformed:
	count(net, C_TAGS_MALFORMED);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type csig_pt[2] __read_mostly = {
	{ .func = csig_rcv },
	{ .func = csig_rcv },
};

/* The IP and TCP headers of a TCP segment at the network header, or NULL. */
static struct tcphdr *tcp_of(struct sk_buff *skb, unsigned int *nhlen)
{
	unsigned int nh, thlen;

	if (skb_is_ipv6(skb)) {
		if (ipv6_hdr(skb)->nexthdr != IPPROTO_TCP)
			return NULL;
		nh = sizeof(struct ipv6hdr);
	} else {
		const struct iphdr *ip = ip_hdr(skb);

		if (ip->protocol != IPPROTO_TCP || ip_is_fragment(ip))
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

/*
 * Append @len bytes of options (a multiple of 4) to the TCP header of an
 * outgoing segment, using headroom: IP and TCP headers move down, the
 * option goes where they ended, the payload stays where it is.  A segment
 * with payload must be CHECKSUM_PARTIAL (the caller checks).
 */
static int append_opt(struct sk_buff *skb, unsigned int nh, const u8 *opt,
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
static unsigned int pad_opt(u8 *buf, const u8 *opt, unsigned int len)
{
	unsigned int pad = (4 - (len & 3)) & 3;

	memset(buf, TCPOPT_NOP, pad);
	memcpy(buf + pad, opt, len);
	return pad + len;
}

static unsigned int csig_out(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	u8 opt[CSIG_OPT_MAX_LEN], buf[CSIG_OPT_MAX_LEN + 4];
	struct net *net = state->net;
	unsigned int nh, len, payload, room;
	struct flow_key k;
	struct tcphdr *th;
	struct flow *f;

	th = tcp_of(skb, &nh);
	if (!th)
		return NF_ACCEPT;
	key_from_skb(&k, net, skb, th, false);
	payload = skb->len - skb_transport_offset(skb) - th->doff * 4;
	room = 60 - th->doff * 4;

	rcu_read_lock();
	if (th->syn && !th->ack) {
		if (!READ_ONCE(offer))
			goto out;
		f = flow_get(net, &k);
		if (!f)
			goto out;
		len = pad_opt(buf, opt, csig_opt_put_syn(opt, sizeof(opt)));
		if (!append_opt(skb, nh, buf, len)) {
			spin_lock_bh(&f->lock);
			f->state |= F_OFFERED;
			f->last_used = jiffies;
			spin_unlock_bh(&f->lock);
			count(net, C_SYN_OFFERED);
			trace_csig_opt_negotiation(ntohs(k.lport), ntohs(k.rport), "offered");
		} else {
			count(net, C_OPTS_NO_ROOM);
		}
		goto out;
	}
	f = flow_lookup(&k, key_hash(&k));
	if (!f)
		goto out;
	if (th->syn) {		/* SYN-ACK */
		if (!(READ_ONCE(f->state) & F_PEER_OFFERED))
			goto out;
		len = pad_opt(buf, opt, csig_opt_put_syn(opt, sizeof(opt)));
		if (!append_opt(skb, nh, buf, len)) {
			spin_lock_bh(&f->lock);
			f->state |= F_NEGOTIATED;
			spin_unlock_bh(&f->lock);
			count(net, C_SYNACK_ACCEPTED);
			trace_csig_opt_negotiation(ntohs(k.lport), ntohs(k.rport), "accepted");
		} else {
			count(net, C_OPTS_NO_ROOM);
		}
		goto out;
	}
	if (!(READ_ONCE(f->state) & F_NEGOTIATED))
		goto out;
	WRITE_ONCE(f->last_used, jiffies);
	if (payload) {
		/* data: tagged by the data plane */
		if (insert_mark) {
			skb->mark |= READ_ONCE(insert_mark);
			count(net, C_MARKED);
		}
	}
	if (th->rst || !READ_ONCE(f->rx_valid))
		goto out;
	if (payload) {
		/*
		 * Reflection rides a data segment only when it fits what
		 * TCP budgeted: one segment (not GSO: every segment of a
		 * super-packet is full-sized) whose IP packet stays within
		 * the route's MTU with the option added.
		 */
		struct dst_entry *dst = skb_dst(skb);
		unsigned int mtu = dst ? dst_mtu(dst) : 0;
		unsigned int ipl = skb->len - skb_network_offset(skb);

		if (skb_is_gso(skb) || skb->ip_summed != CHECKSUM_PARTIAL ||
		    ipl + CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN + 2 > mtu) {
			count(net, C_OPTS_DATA_NO_FIT);
			goto out;
		}
		room = min(room, mtu - ipl);
	}
	{
		struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
		unsigned int n = 0, t, pass;

		/* room for samples; new ones first, then repeats */
		spin_lock_bh(&f->lock);
		for (pass = 0; pass < 2; pass++)
			for (t = 0; t < NTYPES && n < CSIG_OPT_MAX_SAMPLES; t++) {
				bool fresh = f->rx_fresh & (1U << t);

				if (!(f->rx_valid & (1U << t)) || fresh != !pass)
					continue;
				sm[n] = f->rx[t];
				sm[n].fresh = fresh;
				n++;
			}
		spin_unlock_bh(&f->lock);
		/*
		 * The most samples whose option, padded to 4 bytes (4 + 6n
		 * needs 2 bytes of padding when n is odd), fits the room.
		 */
		while (n && CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN * n + (n & 1) * 2 > room)
			n--;
		len = n ? csig_opt_put(opt, sizeof(opt), sm, n) : 0;
		if (!len) {
			count(net, C_OPTS_NO_ROOM);
			goto out;
		}
		if (append_opt(skb, nh, buf, pad_opt(buf, opt, len))) {
			count(net, C_OPTS_NO_ROOM);
			goto out;
		}
		/* the samples written are no longer new */
		n = (len - CSIG_OPT_HDR_LEN) / CSIG_OPT_SAMPLE_LEN;
		spin_lock_bh(&f->lock);
		for (t = 0; t < n; t++)
			f->rx_fresh &= ~(1U << sm[t].type);
		spin_unlock_bh(&f->lock);
		count(net, C_OPTS_SENT);
		if (payload)
			count(net, C_OPTS_SENT_DATA);
		trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport), "sent", n,
				      ntohl(th->seq), ntohl(th->ack_seq));
	}
out:
	rcu_read_unlock();
	return NF_ACCEPT;
}

/*
 * Would TCP accept this segment?  The tests of tcp_validate_incoming() that
 * decide it: sequence window, PAWS, no RST or SYN, and an ACK between what
 * is outstanding and what was sent (tcp_ack()).  Read without the socket
 * lock, so a segment at the edge of a moving window may go either way.
 * Returns 0, or the counter of the test that failed.
 */
static int tcp_would_accept(const struct sock *sk, const struct sk_buff *skb,
			    const struct tcphdr *th, unsigned int payload)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 seq = ntohl(th->seq), end = seq + payload + th->fin;
	u32 ack = ntohl(th->ack_seq), rcv_nxt = READ_ONCE(tp->rcv_nxt);
	u32 una = READ_ONCE(tp->snd_una);

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
	if (READ_ONCE(tp->rx_opt.ts_recent_stamp)) {
		const u8 *p = (const u8 *)(th + 1), *e = (const u8 *)th + th->doff * 4;

		/* PAWS (tcp_paws_check()): at most TCP_PAWS_WINDOW older */
		while (p + 1 < e) {
			if (*p == TCPOPT_EOL)
				break;
			if (*p == TCPOPT_NOP) {
				p++;
				continue;
			}
			if (p[1] < 2 || p + p[1] > e)
				break;
			if (*p == TCPOPT_TIMESTAMP && p[1] == TCPOLEN_TIMESTAMP) {
				s32 d = READ_ONCE(tp->rx_opt.ts_recent) -
					get_unaligned_be32(p + 2);

				return d <= TCP_PAWS_WINDOW ? 0 : C_OOW_PAWS;
			}
			p += p[1];
		}
	}
	return 0;
}

static struct sock *sk_of(struct net *net, struct sk_buff *skb,
			  const struct tcphdr *th, bool *put)
{
	struct sock *sk = skb->sk;

	*put = false;
	if (sk && sk_fullsock(sk) && sk->sk_protocol == IPPROTO_TCP)
		return sk;
	*put = true;
	if (ip_hdr(skb)->version == 4)
		return __inet_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
						 ip_hdr(skb)->saddr, th->source,
						 ip_hdr(skb)->daddr, ntohs(th->dest),
						 skb->skb_iif, inet_sdif(skb));
#if IS_ENABLED(CONFIG_IPV6)
	return __inet6_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
					  &ipv6_hdr(skb)->saddr, th->source,
					  &ipv6_hdr(skb)->daddr, ntohs(th->dest),
					  skb->skb_iif, inet6_sdif(skb));
#else
	return NULL;
#endif
}

static unsigned int csig_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES];
	struct net *net = state->net;
	unsigned int nh, payload, i;
	struct flow_key k;
	struct tcphdr *th;
	struct flow *f;
	int n;

	th = tcp_of(skb, &nh);
	if (!th)
		return NF_ACCEPT;
	n = csig_opt_find((const u8 *)(th + 1), th->doff * 4 - sizeof(*th), sm);
	if (n == CSIG_OPT_NOT_OURS && !(th->syn && th->ack))
		return NF_ACCEPT;
	if (n < 0 && n != CSIG_OPT_NOT_OURS) {
		count(net, C_OPTS_MALFORMED);
		trace_csig_opt_option(ntohs(th->dest), ntohs(th->source), "malformed",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		return NF_ACCEPT;
	}
	key_from_skb(&k, net, skb, th, true);
	payload = skb->len - skb_transport_offset(skb) - th->doff * 4;

	rcu_read_lock();
	if (th->syn && !th->ack) {
		if (n == 0) {
			count(net, C_SYN_OFFER_RCVD);
			trace_csig_opt_negotiation(ntohs(k.lport), ntohs(k.rport),
						   "offer_rcvd");
			if (READ_ONCE(accept_offers)) {
				f = flow_get(net, &k);
				if (f) {
					spin_lock_bh(&f->lock);
					f->state |= F_PEER_OFFERED;
					f->last_used = jiffies;
					spin_unlock_bh(&f->lock);
				}
			}
		}
		goto out;
	}
	f = flow_lookup(&k, key_hash(&k));
	if (th->syn) {		/* SYN-ACK */
		if (f && (READ_ONCE(f->state) & F_OFFERED)) {
			spin_lock_bh(&f->lock);
			if (n == 0) {
				f->state |= F_NEGOTIATED;
				count(net, C_NEGOTIATED);
			} else {
				count(net, C_PEER_DECLINED);
			}
			trace_csig_opt_negotiation(ntohs(k.lport), ntohs(k.rport),
						   n ? "declined" : "negotiated");
			spin_unlock_bh(&f->lock);
		}
		goto out;
	}
	if (n <= 0)
		goto out;
	if (!f || !(READ_ONCE(f->state) & F_NEGOTIATED)) {
		count(net, C_OPTS_UNNEGOTIATED);
		trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport), "unnegotiated",
				      n, ntohl(th->seq), ntohl(th->ack_seq));
		goto out;
	}
	{
		bool put;
		struct sock *sk = sk_of(net, skb, th, &put);
		/* states in which TCP processes ACKs of a connection */
		bool live = sk && ((1 << sk->sk_state) &
				   (TCPF_ESTABLISHED | TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 |
				    TCPF_CLOSE_WAIT | TCPF_CLOSING | TCPF_LAST_ACK));
		int why = live ? tcp_would_accept(sk, skb, th, payload) : 0;

		if (sk && put)
			sock_gen_put(sk);
		if (!live || why) {
			count(net, live ? C_OPTS_OUT_OF_WINDOW : C_OPTS_NO_SOCKET);
			if (why)
				count(net, why);
			trace_csig_opt_option(ntohs(k.lport), ntohs(k.rport),
					      live ? "out_of_window" : "no_socket",
					      n, ntohl(th->seq), ntohl(th->ack_seq));
			goto out;
		}
	}
	spin_lock_bh(&f->lock);
	for (i = 0; i < n; i++) {
		unsigned int t = sm[i].type & (NTYPES - 1);
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
	count(net, C_OPTS_PARSED);
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
	struct flow_key k;
	struct flow *f;
	bool r;

	key_from_sk(&k, sk);
	rcu_read_lock();
	f = flow_lookup(&k, key_hash(&k));
	r = f && (READ_ONCE(f->state) & F_NEGOTIATED);
	rcu_read_unlock();
	return r;
}
EXPORT_SYMBOL_GPL(csig_opt_negotiated);

int csig_opt_read(const struct sock *sk, unsigned int type,
		  struct csig_opt_sample *out)
{
	struct flow_key k;
	struct flow *f;
	int r = -ENOENT;

	if (type >= NTYPES)
		return -EINVAL;
	key_from_sk(&k, sk);
	rcu_read_lock();
	f = flow_lookup(&k, key_hash(&k));
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

int csig_opt_register_consumer(const char *name)
{
	atomic_inc(&nconsumers);
	pr_info("consumer %s registered\n", name);
	return 0;
}
EXPORT_SYMBOL_GPL(csig_opt_register_consumer);

void csig_opt_unregister_consumer(const char *name)
{
	atomic_dec(&nconsumers);
}
EXPORT_SYMBOL_GPL(csig_opt_unregister_consumer);

/* /proc/net/csig_opt: counters; /proc/net/csig_opt_flows: the flows. */
static int counters_show(struct seq_file *m, void *v)
{
	struct csig_net *cn = net_generic(seq_file_single_net(m), csig_net_id);
	int i;

	for (i = 0; i < C_NR; i++)
		seq_printf(m, "%s %lld\n", counter_names[i],
			   (long long)atomic64_read(&cn->c[i]));
	seq_printf(m, "flows %d\nconsumers %d\n", atomic_read(&nflows),
		   atomic_read(&nconsumers));
	return 0;
}

static int flows_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct flow *f;
	int i, t;

	seq_puts(m, "# local remote state  rx: type/format/S/LM ...  tx: type/format/S/LM/age_us ...\n");
	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		hlist_for_each_entry_rcu(f, &table[i].head, node) {
			struct flow_key *k = &f->key;

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
				   f->state & F_NEGOTIATED ? "negotiated" : "-",
				   f->state & F_OFFERED ? ",offered" : "",
				   f->state & F_PEER_OFFERED ? ",peer_offered" : "");
			for (t = 0; t < NTYPES; t++)
				if (f->rx_valid & (1U << t))
					seq_printf(m, " %u/%u/%u/%u", t, f->rx[t].format,
						   f->rx[t].s, f->rx[t].lm);
			seq_puts(m, " tx:");
			for (t = 0; t < NTYPES; t++)
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

static int __net_init csig_net_init(struct net *net)
{
	int err;

	if (!proc_create_net_single("csig_opt", 0444, net->proc_net,
				    counters_show, NULL) ||
	    !proc_create_net_single("csig_opt_flows", 0444, net->proc_net,
				    flows_show, NULL)) {
		remove_proc_entry("csig_opt", net->proc_net);
		return -ENOMEM;
	}
	err = nf_register_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	if (err) {
		remove_proc_entry("csig_opt_flows", net->proc_net);
		remove_proc_entry("csig_opt", net->proc_net);
	}
	return err;
}

static void __net_exit csig_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, csig_nf_ops, ARRAY_SIZE(csig_nf_ops));
	remove_proc_entry("csig_opt_flows", net->proc_net);
	remove_proc_entry("csig_opt", net->proc_net);
	flow_gc(net, false);
}

static struct pernet_operations csig_net_ops = {
	.init = csig_net_init,
	.exit = csig_net_exit,
	.id = &csig_net_id,
	.size = sizeof(struct csig_net),
};

static bool tpid_ok(unsigned int t)
{
	return t >= ETH_P_802_3_MIN && t != ETH_P_8021Q && t != ETH_P_8021AD &&
	       t != ETH_P_IP && t != ETH_P_IPV6 && t != ETH_P_ARP;
}

static int __init csig_opt_init(void)
{
	int i, err;

	if (!tpid_ok(tpid_compact) || !tpid_ok(tpid_expanded) ||
	    tpid_compact == tpid_expanded) {
		pr_err("tpid_compact and tpid_expanded must differ and be EtherTypes other than 802.1Q/802.1ad/IP/ARP\n");
		return -EINVAL;
	}
	if (!max_flows) {
		pr_err("max_flows must not be 0\n");
		return -EINVAL;
	}
	get_random_bytes(&hash_seed, sizeof(hash_seed));
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		INIT_HLIST_HEAD(&table[i].head);
		spin_lock_init(&table[i].lock);
	}
	err = register_pernet_subsys(&csig_net_ops);
	if (err)
		return err;
	csig_pt[0].type = htons(tpid_compact);
	csig_pt[1].type = htons(tpid_expanded);
	dev_add_pack(&csig_pt[0]);
	dev_add_pack(&csig_pt[1]);
	schedule_delayed_work(&gc_work, HZ);
	return 0;
}

static void __exit csig_opt_exit(void)
{
	dev_remove_pack(&csig_pt[1]);
	dev_remove_pack(&csig_pt[0]);	/* both wait for readers */
	unregister_pernet_subsys(&csig_net_ops);
	cancel_delayed_work_sync(&gc_work);
	flow_gc(NULL, true);
	rcu_barrier();
}

module_init(csig_opt_init);
module_exit(csig_opt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CSIG for TCP hosts: tag reception, reflection option, negotiation");
