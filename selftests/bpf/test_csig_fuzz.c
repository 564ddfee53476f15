// SPDX-License-Identifier: GPL-2.0
/*
 * The CSIG transit and strip programs (tools/bpf/csig_port.bpf.c) on a
 * million random and mutated frames, with BPF_PROG_TEST_RUN on the host
 * kernel.  Frames are random bytes, or well-formed frames (VLAN tags, a
 * compact or expanded CSIG tag, IPv4/IPv6/ARP, TCP/UDP) whose EtherTypes,
 * tag bytes, IP and TCP header lengths and lengths are then mutated or cut
 * short.  Every batch of frames gets a random port configuration (TPIDs,
 * types, LM, flags, WRED/ECN) and model state.
 *
 * A parser written here from Documentation/csig.rst classifies each frame
 * (no tag, tag at an offset, truncated, nested, too deep), and the test
 * checks that:
 *
 *   - every run succeeds and returns TC_ACT_OK or TC_ACT_SHOT;
 *   - transit keeps the frame's length and changes nothing but a tag's S
 *     and LM (type and R kept, only for a type it updates, only to a value
 *     compare-and-replace allows) and an ECT codepoint to CE (the IPv4
 *     checksum updated); it drops only not-ECT IP frames under WRED;
 *   - strip removes a tag at offset 12 and nothing else, passes untagged
 *     frames untouched and drops (or, with CSIG_CFG_STRIP_PASS, passes
 *     untouched) the frames whose tag it cannot remove;
 *   - the counters add up, per batch: packets = frames; tagged +
 *     truncated + nested + too_deep + untagged = frames; tagged = replaced
 *     + kept + unknown_type + type_off; stripped + strip_fail + untagged =
 *     frames; each equal to the classes seen, and errors 0;
 *   - the port model counts every frame that was not dropped (queue
 *     histogram, arrived bytes), t_free moves by the sum of their service
 *     times, and the trace ring by the decisions made;
 *   - every class of frame and every decision occurred, so that the
 *     generator keeps reaching them.
 *
 *   test_csig_fuzz [FRAMES]      default 1000000
 *   CSIG_FUZZ_SEED=N test_csig_fuzz   replays the run that printed seed N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csig_port.h"
#include "csig_port.skel.h"
#include "../unit/tap.h"

#define MAXF		1600	/* longest frame generated */
#define BATCH		500	/* frames per configuration */
#define T0		1000000000000ULL	/* the frozen clock, ns */
#define MAX_DIAG	10	/* frames printed per check that fails */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct csig_port *skel;
static int nr_cpus;
static __u64 rng;

/* splitmix64: the whole run follows from the seed */
static __u64 rnd(void)
{
	__u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 below(__u32 n)
{
	return rnd() % n;
}

static int chance(int percent)
{
	return below(100) < (__u32)percent;
}

struct frame {
	unsigned char b[MAXF + 64];
	unsigned int len;
};

static void put16(unsigned char *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static __u16 get16(const unsigned char *p)
{
	return p[0] << 8 | p[1];
}

static struct csig_port_cfg *cfg(void)
{
	return &skel->data->csig_cfg;
}

/* An EtherType where one is parsed: mostly one that means something. */
static __u16 ethertype(void)
{
	static const __u16 et[] = {
		ETH_P_IP, ETH_P_IPV6, ETH_P_ARP, ETH_P_8021Q, ETH_P_8021AD,
		CSIG_TPID_COMPACT, CSIG_TPID_EXPANDED,
	};

	switch (below(4)) {
	case 0:
		return cfg()->tpid[below(2)];
	case 1:
		return rnd();
	default:
		return et[below(ARRAY_SIZE(et))];
	}
}

static __u16 ip_sum(const unsigned char *h, int n)
{
	__u32 sum = 0;
	int i;

	for (i = 0; i + 1 < n; i += 2)
		sum += get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* A tag of @fmt with the configured TPID; type, S, R and LM random. */
static unsigned char *put_tag(unsigned char *p, int fmt)
{
	struct csig_fields f = {
		.type = below(fmt ? 16 : 8),
		.rsvd = rnd(),
		.lm = rnd(),
	};

	/* mostly S at or near an end, where replace and keep both happen */
	f.s = chance(50) ? rnd() : (chance(50) ? 0 : csig_s_max(fmt)) ^ below(3);
	f.s &= csig_s_max(fmt);
	put16(p, cfg()->tpid[fmt]);
	if (fmt == CSIG_FMT_COMPACT) {
		put16(p + 2, csig_compact_pack(&f));
		return p + CSIG_COMPACT_LEN;
	}
	__u32 tsr = csig_expanded_pack_tsr(&f);

	put16(p + 2, f.lm);
	put16(p + 4, tsr >> 16);
	put16(p + 6, tsr & 0xffff);
	return p + CSIG_EXPANDED_LEN;
}

/* L2 headers, a tag, IPv4/IPv6/ARP/other with TCP/UDP/other, payload */
static void gen_frame(struct frame *f)
{
	unsigned char *p = f->b, *l3;
	int i, n, payload, ihl, doff, proto, kind;
	__u16 et;

	memset(f->b, 0, sizeof(f->b));
	for (i = 0; i < 12; i++)
		*p++ = rnd();
	n = chance(70) ? 0 : below(4);		/* VLAN tags before the tag */
	for (i = 0; i < n; i++) {
		put16(p, chance(70) ? ETH_P_8021Q : ETH_P_8021AD);
		put16(p + 2, rnd());
		p += 4;
	}
	if (chance(75)) {
		p = put_tag(p, below(2));
		if (chance(5))			/* nested */
			p = put_tag(p, below(2));
		if (chance(3)) {		/* a VLAN tag after the tag */
			put16(p, ETH_P_8021Q);
			put16(p + 2, rnd());
			p += 4;
		}
	}
	kind = below(10);
	et = kind < 5 ? ETH_P_IP : kind < 8 ? ETH_P_IPV6 :
	     kind < 9 ? ETH_P_ARP : ethertype();
	put16(p, et);
	p += 2;
	l3 = p;
	payload = chance(20) ? 0 : chance(70) ? below(200) : below(1400);
	proto = chance(80) ? 6 : chance(50) ? 17 : rnd() & 0xff;
	doff = chance(85) ? 5 + below(11) : below(16);
	if (et == ETH_P_IP) {
		ihl = chance(85) ? 5 + below(3) : below(16);
		p[0] = 0x40 | ihl;
		p[1] = rnd();			/* DSCP and ECN */
		put16(p + 2, 20 + 20 + payload);
		p[8] = 64;
		p[9] = proto;
		for (i = 12; i < 20; i++)
			p[i] = rnd();
		for (i = 20; i < ihl * 4; i++)
			p[i] = 1;		/* NOP options */
		put16(p + 10, ~ip_sum(p, ihl < 5 ? 20 : ihl * 4));
		p += ihl < 5 ? 20 : ihl * 4;
	} else if (et == ETH_P_IPV6) {
		__u32 w = 0x60000000 | (rnd() & 0x0fffffff);

		put16(p, w >> 16);
		put16(p + 2, w & 0xffff);
		put16(p + 4, 20 + payload);
		p[6] = proto;
		p[7] = 64;
		for (i = 8; i < 40; i++)
			p[i] = rnd();
		p += 40;
	} else {
		for (i = 0; i < 28; i++)
			p[i] = rnd();
		p += 28;
	}
	if (p > l3 && (et == ETH_P_IP || et == ETH_P_IPV6) && proto == 6) {
		for (i = 0; i < 12; i++)
			p[i] = rnd();
		p[12] = doff << 4;
		p[13] = rnd();
		p += 20;
	}
	if (p + payload > f->b + MAXF)
		payload = f->b + MAXF - p;
	for (i = 0; i < payload; i++)
		p[i] = rnd();
	p += payload;
	f->len = p - f->b;
}

/*
 * BPF_PROG_TEST_RUN itself refuses a frame whose EtherType at 12 is IPv4
 * or IPv6 with less than a minimal header behind it (EINVAL, before the
 * program runs); such frames are not generated.
 */
static int test_run_refuses(const struct frame *f)
{
	__u16 et = get16(f->b + 12);

	return (et == ETH_P_IP && f->len < ETH_HLEN + 20) ||
	       (et == ETH_P_IPV6 && f->len < ETH_HLEN + 40);
}

static void mutate(struct frame *f)
{
	int i, n;

	if (chance(20)) {		/* flip bytes of the headers */
		n = 1 + below(3);
		for (i = 0; i < n; i++)
			f->b[12 + below(60)] ^= 1 + below(255);
	}
	if (chance(15))		/* an EtherType/TPID somewhere else */
		put16(f->b + 12 + 2 * below(16), ethertype());
	if (chance(25))		/* cut short */
		f->len = ETH_HLEN + below(f->len - ETH_HLEN + 1);
	if (f->len > MAXF)
		f->len = MAXF;
}

static void random_frame(struct frame *f);

/* The next frame: random bytes, or a mutated well-formed one. */
static void next_frame(struct frame *f)
{
	do {
		if (chance(15)) {
			random_frame(f);
		} else {
			gen_frame(f);
			mutate(f);
		}
	} while (test_run_refuses(f));
}

static void random_frame(struct frame *f)
{
	unsigned int i;

	f->len = ETH_HLEN + below(chance(80) ? 64 : MAXF - ETH_HLEN);
	for (i = 0; i < f->len; i++)
		f->b[i] = rnd();
	/* an interesting first EtherType, often */
	if (chance(70))
		put16(f->b + 12, ethertype());
	if (chance(30))
		put16(f->b + 16, ethertype());
}

/*
 * Where the tag is, written from Documentation/csig.rst (the table of
 * frames a port passes): at 12 or behind up to two VLAN tags, followed by
 * an EtherType inside the frame that is not a second tag.
 */
enum { R_NONE, R_FOUND, R_TRUNCATED, R_NESTED, R_TOO_DEEP, R_NR };
static const char * const rname[] = {
	"untagged", "tagged", "truncated", "nested", "too_deep",
};

struct parse {
	int kind;
	unsigned int off, fmt, l3;	/* l3: 0 unless IPv4/IPv6 follows */
};

static int is_ip(__u16 et)
{
	return et == ETH_P_IP || et == ETH_P_IPV6;
}

static void parse(const struct frame *f, const struct csig_port_cfg *c,
		  struct parse *r)
{
	unsigned int o = 12, i;
	__u16 et;

	memset(r, 0, sizeof(*r));
	for (i = 0; i <= 2; i++) {
		if (f->len < o + 2) {
			r->kind = R_NONE;
			return;
		}
		et = get16(f->b + o);
		if (et == c->tpid[0] || et == c->tpid[1]) {
			r->fmt = et == c->tpid[0] ? CSIG_FMT_COMPACT :
						    CSIG_FMT_EXPANDED;
			r->off = o;
			o += r->fmt ? CSIG_EXPANDED_LEN : CSIG_COMPACT_LEN;
			if (f->len < o + 2) {
				r->kind = R_TRUNCATED;
				return;
			}
			et = get16(f->b + o);
			if (et == c->tpid[0] || et == c->tpid[1]) {
				r->kind = R_NESTED;
				return;
			}
			r->l3 = is_ip(et) ? o + 2 : 0;
			r->kind = R_FOUND;
			return;
		}
		if (et != ETH_P_8021Q && et != ETH_P_8021AD) {
			r->l3 = is_ip(et) ? o + 2 : 0;
			r->kind = R_NONE;
			return;
		}
		o += 4;
	}
	r->kind = R_TOO_DEEP;
}

/* Everything a batch saw, and what the checks found. */
struct tally {
	__u64 frames, ok, shot;
	__u64 cls[R_NR];
	__u64 found_fmt[2];
	__u64 replaced, kept, unknown, type_off, tagged;
	__u64 marked, ce_in, ect_short;	/* ECN */
	__u64 stripped, strip_fail;
	__u64 arrived, svc, passed;	/* the model */
};

enum {
	F_RUN, F_TRANSIT_FRAME, F_TRANSIT_COUNT, F_MODEL, F_STRIP_FRAME,
	F_STRIP_COUNT, F_NR
};

static __u64 fails[F_NR];

static void hexdump(const struct frame *f)
{
	char line[3 * 32 + 1];
	unsigned int i, n = f->len < 96 ? f->len : 96;

	for (i = 0; i < n; i++) {
		sprintf(line + 3 * (i % 32), "%02x ", f->b[i]);
		if (i % 32 == 31 || i == n - 1)
			tap_diag("  %s", line);
	}
}

static void fail(int check, __u64 frame, const struct frame *in,
		 const char *what)
{
	if (fails[check]++ >= MAX_DIAG)
		return;
	if (!in) {
		tap_diag("%s", what);
		return;
	}
	tap_diag("frame %llu: %s (len %u)", (unsigned long long)frame, what,
		 in->len);
	hexdump(in);
}

static int test_run(struct bpf_program *prog, const struct frame *in,
		    struct frame *out, int *ret)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err;

	o.data_in = in->b;
	o.data_size_in = in->len;
	o.data_out = out->b;
	o.data_size_out = sizeof(out->b);
	o.repeat = 1;
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);
	*ret = o.retval;
	out->len = o.data_size_out;
	return err;
}

/* The counters and the queue histogram, summed over the CPUs. */
static void counters(__u64 *c, __u64 *hist)
{
	struct csig_port_stats st[nr_cpus];
	__u32 zero = 0;
	int i, j;

	memset(c, 0, sizeof(__u64) * CSIG_C_NR);
	*hist = 0;
	if (bpf_map__lookup_elem(skel->maps.csig_stats, &zero, sizeof(zero),
				 st, sizeof(st), 0))
		return;
	for (i = 0; i < nr_cpus; i++) {
		for (j = 0; j < CSIG_C_NR; j++)
			c[j] += st[i].c[j];
		for (j = 0; j < CSIG_QHIST_N; j++)
			*hist += st[i].qhist[j];
	}
}

static void get_state(struct csig_port_state *m)
{
	__u32 zero = 0;

	bpf_map__lookup_elem(skel->maps.csig_state, &zero, sizeof(zero), m,
			     sizeof(*m), 0);
}

static void set_state(const struct csig_port_state *m)
{
	__u32 zero = 0;

	bpf_map__update_elem(skel->maps.csig_state, &zero, sizeof(zero), m,
			     sizeof(*m), 0);
}

/* A configuration csigctl would accept, and a model state, at random. */
static void random_port(struct csig_port_state *m)
{
	static const __u16 qinq[] = { 0x9100, 0x9200, 0x9300 };
	struct csig_port_cfg c = CSIG_PORT_CFG_INIT;
	static const __u64 kbps[] = { 100000, 1000000, 10000000, 100000000 };

	if (chance(30)) {
		c.tpid[0] = qinq[below(3)];
		do {
			c.tpid[1] = chance(50) ? qinq[below(3)] :
				    0x600 + below(0xfa00);
		} while (c.tpid[1] == c.tpid[0] || c.tpid[1] == ETH_P_8021Q ||
			 c.tpid[1] == ETH_P_8021AD || is_ip(c.tpid[1]));
	}
	csig_port_set_capacity(&c, kbps[below(4)]);
	c.clock_ns = T0;
	c.t_ns = CSIG_MIN_T_NS + below(1000000);
	c.interval_ns = CSIG_MIN_INTERVAL_NS + below(2000000);
	c.types = chance(50) ? CSIG_TYPES_KNOWN : rnd() & CSIG_TYPES_KNOWN;
	c.lm = rnd();
	c.flags = (chance(25) ? CSIG_CFG_LM_IFINDEX : 0) |
		  (chance(50) ? CSIG_CFG_STRIP_PASS : 0) |
		  (chance(25) ? CSIG_CFG_TRACE : 0);
	if (chance(60)) {
		c.ecn_kmin = 1 + below(40000);
		c.ecn_kmax = c.ecn_kmin + below(80000);
		c.ecn_pmax = 1 + below(CSIG_ECN_P_ONE);
		c.ecn_kdrop = 1 + below(100000);
	}
	*cfg() = c;

	memset(m, 0, sizeof(*m));
	/* a queue of up to 100 KB at C already, the rate window anywhere */
	m->t_free = T0 - 1000000 + csig_port_svc_ns(&c, below(200000));
	m->arrived = rnd() >> 20;
	m->win_start = T0 - below(3000000);
	m->win_tx = chance(50) ? m->arrived - below(100000) : 0;
	m->rate_kbps = below(c.capacity_kbps * 2);
	m->d_win = below(2000000);
	m->d_win_prev = below(2000000);
	m->trace_head = rnd() >> 8;
	set_state(m);
}

static __u16 csum_replace2(__u16 sum, __u16 old, __u16 new)
{
	__u32 s = (__u16)~sum + (__u16)~old + new;

	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

static void check_transit(__u64 n, const struct frame *in,
			  const struct frame *out, int ret,
			  const struct parse *p, struct tally *t)
{
	const struct csig_port_cfg *c = cfg();
	unsigned int i, tag0 = 0, tag1 = 0, ecn_at = 0, ecn_in = 0, ecn_out;
	int ip4 = 0, wred = c->ecn_kmax && p->l3 && in->len >= p->l3 + 2;

	if (wred) {
		ip4 = get16(in->b + p->l3 - 2) == ETH_P_IP;
		ecn_at = p->l3 + 1;
		ecn_in = ip4 ? in->b[ecn_at] & 3 : (in->b[ecn_at] >> 4) & 3;
	}
	if (out->len != in->len) {
		fail(F_TRANSIT_FRAME, n, in, "transit changed the length");
		return;
	}
	if (ret == TC_ACT_SHOT) {
		t->shot++;
		if (!wred || ecn_in)
			fail(F_TRANSIT_FRAME, n, in,
			     "transit dropped a frame that is not a not-ECT IP packet under WRED");
		return;
	}
	t->ok++;
	if (ret != TC_ACT_OK) {
		fail(F_TRANSIT_FRAME, n, in, "transit returned a verdict other than OK or SHOT");
		return;
	}
	t->passed++;
	t->arrived += in->len;
	t->svc += csig_port_svc_ns(c, in->len);
	if (p->kind == R_FOUND) {
		tag0 = p->off + 2;
		tag1 = p->off + (p->fmt ? CSIG_EXPANDED_LEN : CSIG_COMPACT_LEN);
		t->tagged++;
	}
	for (i = 0; i < in->len; i++) {
		if (in->b[i] == out->b[i] || (i >= tag0 && i < tag1))
			continue;
		if (wred && (i == ecn_at ||
			     (ip4 && (i == p->l3 + 10 || i == p->l3 + 11))))
			continue;
		fail(F_TRANSIT_FRAME, n, in,
		     "transit changed a byte outside the tag's S/LM and the ECN field");
		return;
	}
	if (p->kind == R_FOUND) {
		struct csig_fields a, b;
		const unsigned char *x = in->b + tag0, *y = out->b + tag0;
		__u32 lm = c->flags & CSIG_CFG_LM_IFINDEX ? 1 : c->lm;

		if (p->fmt == CSIG_FMT_COMPACT) {
			csig_compact_unpack(get16(x), &a);
			csig_compact_unpack(get16(y), &b);
			lm &= CSIG_COMPACT_LM_MASK;
		} else {
			csig_expanded_unpack(get16(x), (__u32)get16(x + 2) << 16 |
					     get16(x + 4), &a);
			csig_expanded_unpack(get16(y), (__u32)get16(y + 2) << 16 |
					     get16(y + 4), &b);
			lm &= CSIG_EXPANDED_LM_MASK;
		}
		t->found_fmt[p->fmt]++;
		if (memcmp(x, y, tag1 - tag0)) {
			t->replaced++;
			if (!csig_type_known(a.type) || !(c->types & (1U << a.type)) ||
			    b.type != a.type || b.rsvd != a.rsvd || b.lm != lm ||
			    !csig_should_replace(a.type, a.s, b.s))
				fail(F_TRANSIT_FRAME, n, in,
				     "transit rewrote a tag it must keep, or wrote the wrong type, R, LM or S");
		} else if (!csig_type_known(a.type)) {
			t->unknown++;
		} else if (!(c->types & (1U << a.type))) {
			t->type_off++;
		} else {
			t->kept++;
		}
	}
	if (!wred)
		return;
	ecn_out = ip4 ? out->b[ecn_at] & 3 : (out->b[ecn_at] >> 4) & 3;
	if (ecn_in == 3)
		t->ce_in++;
	if (ip4 && (ecn_in == 1 || ecn_in == 2) && in->len < p->l3 + 12)
		t->ect_short++;		/* no room for the checksum */
	if (in->b[ecn_at] == out->b[ecn_at]) {
		for (i = p->l3 + 10; ip4 && i < p->l3 + 12 && i < in->len; i++)
			if (in->b[i] != out->b[i])
				fail(F_TRANSIT_FRAME, n, in,
				     "transit changed the IPv4 checksum, not the ECN field");
		return;
	}
	t->marked++;
	if ((ecn_in != 1 && ecn_in != 2) || ecn_out != 3 ||
	    ((in->b[ecn_at] ^ out->b[ecn_at]) & ~(ip4 ? 3 : 3 << 4)) ||
	    (ip4 && (in->len < p->l3 + 12 ||
		     get16(out->b + p->l3 + 10) !=
		     csum_replace2(get16(in->b + p->l3 + 10),
				   get16(in->b + p->l3), get16(out->b + p->l3)))))
		fail(F_TRANSIT_FRAME, n, in,
		     "transit's ECN change is not ECT -> CE with the checksum updated");
}

static void check_strip(__u64 n, const struct frame *in,
			const struct frame *out, int ret,
			const struct parse *p, struct tally *t)
{
	int pass = cfg()->flags & CSIG_CFG_STRIP_PASS;
	unsigned int tl = p->fmt ? CSIG_EXPANDED_LEN : CSIG_COMPACT_LEN;

	if (ret != TC_ACT_OK && ret != TC_ACT_SHOT) {
		fail(F_STRIP_FRAME, n, in,
		     "strip returned a verdict other than OK or SHOT");
		return;
	}
	if (p->kind == R_NONE) {
		if (ret != TC_ACT_OK || out->len != in->len ||
		    memcmp(out->b, in->b, in->len))
			fail(F_STRIP_FRAME, n, in,
			     "strip did not pass an untagged frame untouched");
		return;
	}
	/* a VLAN tag behind it would go with it: it cannot be removed */
	if (p->kind == R_FOUND && p->off == 12 &&
	    get16(in->b + 12 + tl) != ETH_P_8021Q &&
	    get16(in->b + 12 + tl) != ETH_P_8021AD) {
		t->stripped++;
		if (ret != TC_ACT_OK || out->len != in->len - tl ||
		    memcmp(out->b, in->b, 12) ||
		    memcmp(out->b + 12, in->b + 12 + tl, in->len - 12 - tl))
			fail(F_STRIP_FRAME, n, in,
			     "strip did not remove the tag at 12 and keep the rest of the frame");
		return;
	}
	t->strip_fail++;
	if (pass ? (ret != TC_ACT_OK || out->len != in->len ||
		    memcmp(out->b, in->b, in->len)) : ret != TC_ACT_SHOT)
		fail(F_STRIP_FRAME, n, in, pass ?
		     "strip did not pass a tag it cannot remove untouched (STRIP_PASS)" :
		     "strip did not drop a tag it cannot remove");
}

/* One counter's change over a batch against what the frames showed. */
static void expect(const char *prog, int check, const char *name, __u64 got,
		   __u64 want, __u64 batch)
{
	char what[160];

	if (got == want)
		return;
	snprintf(what, sizeof(what), "batch %llu: %s counter %s %llu, expected %llu",
		 (unsigned long long)batch, prog, name, (unsigned long long)got,
		 (unsigned long long)want);
	fail(check, batch, NULL, what);
}

static const char * const cname[] = CSIG_COUNTER_NAMES;

static void run_batch(__u64 b, __u64 first, int nframes, struct tally *tt,
		      struct tally *ts)
{
	__u64 c0[CSIG_C_NR], c1[CSIG_C_NR], c[CSIG_C_NR], h0, h1;
	struct csig_port_state m0, m1;
	struct tally t = {}, s = {};
	static struct frame in, out;
	struct parse p;
	int i, j, ret, err;
	char what[80];

	random_port(&m0);
	/* transit: the model is the one random_port() wrote */
	counters(c0, &h0);
	for (i = 0; i < nframes; i++) {
		next_frame(&in);
		parse(&in, cfg(), &p);
		t.frames++;
		t.cls[p.kind]++;
		err = test_run(skel->progs.csig_transit, &in, &out, &ret);
		if (err) {
			snprintf(what, sizeof(what), "transit: BPF_PROG_TEST_RUN failed: %s",
				 strerror(-err));
			fail(F_RUN, first + i, &in, what);
			continue;
		}
		check_transit(first + i, &in, &out, ret, &p, &t);
	}
	counters(c1, &h1);
	get_state(&m1);
	for (j = 0; j < CSIG_C_NR; j++)
		c[j] = c1[j] - c0[j];
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_PKTS], c[CSIG_C_PKTS], t.frames, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_TAGGED], c[CSIG_C_TAGGED], t.tagged, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_TRUNCATED], c[CSIG_C_TRUNCATED],
	       t.cls[R_TRUNCATED], b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_NESTED], c[CSIG_C_NESTED],
	       t.cls[R_NESTED], b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_TOO_DEEP], c[CSIG_C_TOO_DEEP],
	       t.cls[R_TOO_DEEP], b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_REPLACED], c[CSIG_C_REPLACED],
	       t.replaced, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_KEPT], c[CSIG_C_KEPT], t.kept, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_UNKNOWN_TYPE],
	       c[CSIG_C_UNKNOWN_TYPE], t.unknown, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_TYPE_OFF], c[CSIG_C_TYPE_OFF],
	       t.type_off, b);
	/* per-reason sums */
	expect("transit", F_TRANSIT_COUNT, "tagged+truncated+nested+too_deep+untagged",
	       c[CSIG_C_TAGGED] + c[CSIG_C_TRUNCATED] + c[CSIG_C_NESTED] +
	       c[CSIG_C_TOO_DEEP] + t.cls[R_NONE] + (t.cls[R_FOUND] - t.tagged),
	       c[CSIG_C_PKTS], b);
	expect("transit", F_TRANSIT_COUNT, "replaced+kept+unknown_type+type_off",
	       c[CSIG_C_REPLACED] + c[CSIG_C_KEPT] + c[CSIG_C_UNKNOWN_TYPE] +
	       c[CSIG_C_TYPE_OFF], c[CSIG_C_TAGGED], b);
	expect("transit", F_TRANSIT_COUNT, "verdicts OK+SHOT", t.ok + t.shot, c[CSIG_C_PKTS], b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_ECN_DROPPED], c[CSIG_C_ECN_DROPPED],
	       t.shot, b);
	expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_ECN_MARKED], c[CSIG_C_ECN_MARKED],
	       t.marked, b);
	/* errors: only an ECT IPv4 header too short for its checksum */
	if (c[CSIG_C_ERROR] > t.ect_short)
		expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_ERROR], c[CSIG_C_ERROR],
		       t.ect_short, b);
	if (c[CSIG_C_ECN_CE] > t.ce_in)
		expect("transit", F_TRANSIT_COUNT, cname[CSIG_C_ECN_CE], c[CSIG_C_ECN_CE],
		       t.ce_in, b);
	for (j = CSIG_C_STRIPPED; j <= CSIG_C_TOO_BIG; j++)
		expect("transit", F_TRANSIT_COUNT, cname[j], c[j], 0, b);
	/* the model */
	expect("transit", F_MODEL, "queue histogram", h1 - h0, t.passed, b);
	expect("transit", F_MODEL, "model arrived bytes", m1.arrived - m0.arrived,
	       t.arrived, b);
	expect("transit", F_MODEL, "model t_free",
	       m1.t_free, (m0.t_free > T0 ? m0.t_free : T0) + t.svc, b);
	expect("transit", F_MODEL, "model trace_head", m1.trace_head - m0.trace_head,
	       cfg()->flags & CSIG_CFG_TRACE ? t.replaced + t.kept : 0, b);
	if (m1.d_max < m1.d_last)
		expect("transit", F_MODEL, "model d_max >= d_last", m1.d_max, m1.d_last, b);

	/* strip: the same configuration, fresh frames */
	counters(c0, &h0);
	for (i = 0; i < nframes; i++) {
		next_frame(&in);
		parse(&in, cfg(), &p);
		s.frames++;
		s.cls[p.kind]++;
		err = test_run(skel->progs.csig_strip, &in, &out, &ret);
		if (err) {
			snprintf(what, sizeof(what), "strip: BPF_PROG_TEST_RUN failed: %s",
				 strerror(-err));
			fail(F_RUN, first + i, &in, what);
			continue;
		}
		if (ret == TC_ACT_OK)
			s.ok++;
		else
			s.shot++;
		check_strip(first + i, &in, &out, ret, &p, &s);
	}
	counters(c1, &h1);
	for (j = 0; j < CSIG_C_NR; j++)
		c[j] = c1[j] - c0[j];
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_PKTS], c[CSIG_C_PKTS], s.frames, b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_TAGGED], c[CSIG_C_TAGGED],
	       s.cls[R_FOUND], b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_TRUNCATED], c[CSIG_C_TRUNCATED],
	       s.cls[R_TRUNCATED], b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_NESTED], c[CSIG_C_NESTED],
	       s.cls[R_NESTED], b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_TOO_DEEP], c[CSIG_C_TOO_DEEP],
	       s.cls[R_TOO_DEEP], b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_STRIPPED], c[CSIG_C_STRIPPED],
	       s.stripped, b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_STRIP_FAIL], c[CSIG_C_STRIP_FAIL],
	       s.strip_fail, b);
	expect("strip", F_STRIP_COUNT, cname[CSIG_C_ERROR], c[CSIG_C_ERROR], 0, b);
	expect("strip", F_STRIP_COUNT, "stripped+strip_fail+error+untagged",
	       c[CSIG_C_STRIPPED] + c[CSIG_C_STRIP_FAIL] + c[CSIG_C_ERROR] +
	       s.cls[R_NONE], c[CSIG_C_PKTS], b);
	expect("strip", F_STRIP_COUNT, "verdicts OK+SHOT", s.ok + s.shot, c[CSIG_C_PKTS], b);
	for (j = CSIG_C_REPLACED; j < CSIG_C_NR; j++) {
		if (j == CSIG_C_TRUNCATED || j == CSIG_C_NESTED ||
		    j == CSIG_C_TOO_DEEP || j == CSIG_C_STRIPPED ||
		    j == CSIG_C_STRIP_FAIL)
			continue;
		expect("strip", F_STRIP_COUNT, cname[j], c[j], 0, b);
	}

	for (j = 0; j < (int)(sizeof(t) / sizeof(__u64)); j++) {
		((__u64 *)tt)[j] += ((__u64 *)&t)[j];
		((__u64 *)ts)[j] += ((__u64 *)&s)[j];
	}
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	char pin[] = "/sys/fs/bpf/csig-fuzz-XXXXXX";
	__u64 seed, frames = 1000000, b, done = 0;
	struct tally t = {}, s = {};
	struct timespec ts0, ts1;
	const char *env = getenv("CSIG_FUZZ_SEED");
	cpu_set_t cpus;
	double secs;
	int err, i;

	if (argc > 1)
		frames = strtoull(argv[1], NULL, 0);
	if (env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (__u64)time(NULL) ^ ((__u64)getpid() << 32);
	rng = seed;

	/* one CPU: the per-CPU counters then read as one sequence */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	nr_cpus = libbpf_num_possible_cpus();

	if (!mkdtemp(pin)) {
		printf("1..0 # SKIP no bpffs at /sys/fs/bpf (%s)\n", strerror(errno));
		return 0;
	}
	oo.pin_root_path = pin;
	skel = csig_port__open_opts(&oo);
	if (!skel) {
		printf("Bail out! cannot open the object\n");
		rmdir(pin);
		return 1;
	}
	bpf_program__set_type(skel->progs.csig_transit, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_strip, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_insert, BPF_PROG_TYPE_SCHED_CLS);
	err = csig_port__load(skel);
	if (err) {
		rmdir(pin);
		if (err == -EPERM && geteuid()) {
			printf("1..0 # SKIP loading BPF needs root\n");
			return 0;
		}
		printf("Bail out! the programs do not load: %s\n", strerror(-err));
		return 1;
	}
	tap_diag("seed %llu: replay with CSIG_FUZZ_SEED=%llu %s %llu",
		 (unsigned long long)seed, (unsigned long long)seed, argv[0],
		 (unsigned long long)frames);
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	for (b = 0; done < frames; b++) {
		int n = frames - done < BATCH ? frames - done : BATCH;

		run_batch(b, done, n, &t, &s);
		done += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts1);
	secs = ts1.tv_sec - ts0.tv_sec + (ts1.tv_nsec - ts0.tv_nsec) / 1e9;
	tap_diag("%llu frames through each program in %llu batches, %.1f s",
		 (unsigned long long)done, (unsigned long long)b, secs);
	for (i = 0; i < R_NR; i++)
		tap_diag("  %-9s transit %7llu  strip %7llu", rname[i],
			 (unsigned long long)t.cls[i], (unsigned long long)s.cls[i]);

	tap_ok(!fails[F_RUN] && t.frames == done && s.frames == done,
	       "%llu random and mutated frames through transit and strip: every BPF_PROG_TEST_RUN succeeded",
	       (unsigned long long)done);
	tap_ok(!fails[F_TRANSIT_FRAME],
	       "transit: OK %llu (replaced %llu, kept %llu, unknown type %llu, type off %llu, ECN marked %llu), SHOT %llu: lengths kept, only S/LM and ECN changed, as allowed",
	       (unsigned long long)t.ok, (unsigned long long)t.replaced,
	       (unsigned long long)t.kept, (unsigned long long)t.unknown,
	       (unsigned long long)t.type_off, (unsigned long long)t.marked,
	       (unsigned long long)t.shot);
	tap_ok(!fails[F_TRANSIT_COUNT],
	       "transit: per batch, the counters equal the frames' classes and decisions, and add up to the frames run");
	tap_ok(!fails[F_MODEL],
	       "transit: per batch, the model's histogram, arrived bytes, t_free and trace ring moved by the frames that passed");
	tap_ok(!fails[F_STRIP_FRAME],
	       "strip: OK %llu, SHOT %llu (stripped %llu, could not strip %llu): tags at 12 removed and nothing else, the rest passed untouched or dropped",
	       (unsigned long long)s.ok, (unsigned long long)s.shot,
	       (unsigned long long)s.stripped, (unsigned long long)s.strip_fail);
	tap_ok(!fails[F_STRIP_COUNT],
	       "strip: per batch, the counters equal the frames' classes and add up to the frames run");
	/* the generator must keep reaching every class and decision */
	tap_ok(done < 100000 ||
	       (t.cls[R_NONE] > 1000 && t.cls[R_FOUND] > 1000 &&
		t.cls[R_TRUNCATED] > 100 && t.cls[R_NESTED] > 100 &&
		t.cls[R_TOO_DEEP] > 100 && t.found_fmt[0] > 1000 &&
		t.found_fmt[1] > 1000 && t.replaced > 1000 && t.kept > 1000 &&
		t.unknown > 1000 && t.type_off > 100 && t.marked > 100 &&
		t.shot > 100 && s.stripped > 1000 && s.strip_fail > 1000),
	       "every class of frame and every decision occurred (at least 100 each)");
	for (i = 0; i < F_NR; i++)
		if (fails[i])
			tap_diag("check %d: %llu failures; replay with CSIG_FUZZ_SEED=%llu",
				 i, (unsigned long long)fails[i], (unsigned long long)seed);

	bpf_map__unpin(skel->maps.csig_flows, NULL);
	csig_port__destroy(skel);
	rmdir(pin);
	return tap_done();
}
