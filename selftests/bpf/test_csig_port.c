// SPDX-License-Identifier: GPL-2.0
/*
 * The CSIG switch-port programs (tools/bpf/csig_port.bpf.c) on the host
 * kernel with BPF_PROG_TEST_RUN: compare-and-replace for every type in both
 * formats, the port model, stripping, insertion and bad frames.  Each case
 * builds a frame, runs one program on it and compares the frame that comes
 * out (and the counters) with what Documentation/csig.rst says.
 *
 *   test_csig_port            the tests (TAP)
 *   test_csig_port --bench    ns per packet of each role and of an empty
 *                             program, same run
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csig_port.h"
#include "csig_port.skel.h"
#include "../unit/tap.h"

#define MAXF	2048
#define REPEAT	200000

struct frame {
	unsigned char b[MAXF];
	unsigned int len;
};

static struct csig_port *skel;
static int nr_cpus;

enum l4 { L4_TCP_DATA, L4_TCP_ACK, L4_UDP, L4_ARP, L4_TCP6_DATA };

/*
 * dst, src, @nvlan 802.1Q tags, then an optional CSIG tag (@fmt < 0: none),
 * then the payload's EtherType and an IPv4/TCP segment with @payload bytes.
 */
static void build(struct frame *f, int nvlan, int fmt, __u32 type, __u32 s,
		  __u32 lm, __u32 r, enum l4 l4, int payload)
{
	unsigned char *p = f->b;
	int i, iplen;

	memset(f, 0, sizeof(*f));
	memcpy(p, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
	p += 12;
	for (i = 0; i < nvlan; i++) {
		*p++ = 0x81; *p++ = 0x00; *p++ = 0x00; *p++ = 10 + i;
	}
	if (fmt == CSIG_FMT_COMPACT) {
		struct csig_fields fl = { .type = type, .s = s, .lm = lm, .rsvd = r };
		__u16 d = csig_compact_pack(&fl);

		*p++ = CSIG_TPID_COMPACT >> 8; *p++ = CSIG_TPID_COMPACT & 0xff;
		*p++ = d >> 8; *p++ = d & 0xff;
	} else if (fmt == CSIG_FMT_EXPANDED) {
		struct csig_fields fl = { .type = type, .s = s, .lm = lm, .rsvd = r };
		__u32 tsr = csig_expanded_pack_tsr(&fl);

		*p++ = CSIG_TPID_EXPANDED >> 8; *p++ = CSIG_TPID_EXPANDED & 0xff;
		*p++ = lm >> 8; *p++ = lm & 0xff;
		*p++ = tsr >> 24; *p++ = tsr >> 16; *p++ = tsr >> 8; *p++ = tsr;
	}
	if (l4 == L4_ARP) {
		*p++ = 0x08; *p++ = 0x06;
		memset(p, 0x11, 28);
		p += 28;
		f->len = p - f->b;
		return;
	}
	if (l4 == L4_TCP6_DATA) {
		*p++ = 0x86; *p++ = 0xdd;
		p[0] = 0x60;
		p[4] = 0; p[5] = 20 + payload;
		p[6] = 6; p[7] = 64;
		p[23] = 1; p[39] = 2;
		p += 40;
		p[12] = 5 << 4; p[13] = 0x18;
		p += 20;
		memset(p, 0xab, payload);
		p += payload;
		f->len = p - f->b;
		return;
	}
	*p++ = 0x08; *p++ = 0x00;
	iplen = 20 + (l4 == L4_UDP ? 8 : 20) + payload;
	p[0] = 0x45; p[2] = iplen >> 8; p[3] = iplen & 0xff;
	p[8] = 64; p[9] = l4 == L4_UDP ? 17 : 6;
	p[12] = 198; p[13] = 18; p[15] = 10;
	p[16] = 198; p[17] = 18; p[19] = 1;
	p += 20;
	if (l4 == L4_UDP) {
		p[4] = (8 + payload) >> 8; p[5] = (8 + payload) & 0xff;
		p += 8;
	} else {
		p[0] = 0x30; p[1] = 0x39; p[2] = 0x14; p[3] = 0x51;
		p[12] = 5 << 4; p[13] = 0x10;
		p += 20;
	}
	memset(p, 0xab, payload);
	p += payload;
	f->len = p - f->b;
}

struct run {
	struct frame out;
	int ret;
	__u32 dur;
};

static struct __sk_buff ctx;
static int use_ctx;

static int run(struct bpf_program *prog, const struct frame *in, struct run *r,
	       int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err;

	o.data_in = in->b;
	o.data_size_in = in->len;
	o.data_out = r->out.b;
	o.data_size_out = sizeof(r->out.b);
	o.repeat = repeat;
	if (use_ctx) {
		o.ctx_in = &ctx;
		o.ctx_size_in = sizeof(ctx);
	}
	memset(&r->out, 0, sizeof(r->out));
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);
	r->ret = o.retval;
	r->out.len = o.data_size_out;
	r->dur = o.duration;
	return err;
}

static void counters(__u64 *c)
{
	struct csig_port_stats st[nr_cpus];
	__u32 zero = 0;
	int i, j;

	memset(c, 0, sizeof(__u64) * CSIG_C_NR);
	int err = bpf_map__lookup_elem(skel->maps.csig_stats, &zero, sizeof(zero),
				       st, sizeof(st), 0);

	if (err) {
		tap_diag("reading csig_stats: %s", strerror(-err));
		return;
	}
	for (i = 0; i < nr_cpus; i++)
		for (j = 0; j < CSIG_C_NR; j++)
			c[j] += st[i].c[j];
}

/* Counter changes since mark(). */
static __u64 base[CSIG_C_NR];

static void mark(void)
{
	counters(base);
}

static __u64 d(int i)
{
	__u64 now[CSIG_C_NR];

	counters(now);
	return now[i] - base[i];
}

#define T0	1000000000000ULL	/* the tests' frozen clock, ns */

/*
 * Put the model in a known state at the frozen clock T0: @q bytes queued,
 * tx rate @rate_kbps, the rate window just opened (no new window during
 * the test).
 */
static void seed_state(__u64 d_ns, __u64 arrived, __u64 rate_kbps,
		       __u64 win_start, __u64 win_tx)
{
	struct csig_port_state m;
	__u32 zero = 0;

	memset(&m, 0, sizeof(m));
	m.t_free = T0 + d_ns;
	m.arrived = arrived;
	m.rate_kbps = rate_kbps;
	m.win_start = win_start;
	m.win_tx = win_tx;
	bpf_map__update_elem(skel->maps.csig_state, &zero, sizeof(zero), &m,
			     sizeof(m), 0);
}

static struct csig_port_cfg *cfg(void);

/* ns of queue that @q bytes are at C */
static __u64 q_ns(__u64 q)
{
	return q * 8000000ULL / cfg()->capacity_kbps;
}

static void seed(__u64 q, __u64 rate_kbps)
{
	cfg()->clock_ns = T0;
	seed_state(q_ns(q), 0, rate_kbps, T0, 0);
}

/* U's queue term: both window snapshots at @q bytes. */
static void seed_u_queue(__u64 q)
{
	struct csig_port_state m;
	__u32 zero = 0;

	bpf_map__lookup_elem(skel->maps.csig_state, &zero, sizeof(zero), &m,
			     sizeof(m), 0);
	m.d_win = q_ns(q);
	m.d_win_prev = q_ns(q);
	bpf_map__update_elem(skel->maps.csig_state, &zero, sizeof(zero), &m,
			     sizeof(m), 0);
}

/* The queue in bytes a packet of @len finds after seed(@q, ...). */
static __u64 q_after(__u64 q, __u64 len)
{
	return csig_port_bytes(cfg(), q_ns(q) + csig_port_svc_ns(cfg(), len));
}

static void state(struct csig_port_state *m)
{
	__u32 zero = 0;

	bpf_map__lookup_elem(skel->maps.csig_state, &zero, sizeof(zero), m,
			     sizeof(*m), 0);
}

static struct csig_port_cfg *cfg(void)
{
	return &skel->data->csig_cfg;
}

static void cfg_default(void)
{
	struct csig_port_cfg c = CSIG_PORT_CFG_INIT;

	csig_port_set_capacity(&c, 200000);	/* 200 Mbit/s */
	c.clock_ns = T0;
	c.t_ns = 1000000;		/* 1 ms */
	c.interval_ns = 1000000;
	c.flags = 0;
	c.lm = 0x5a5a;
	*cfg() = c;
}

static int same(const struct frame *a, const struct frame *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

/* The tag's fields in a frame, tag at @off. */
static void read_tag(const struct frame *f, int off, int fmt,
		     struct csig_fields *fl)
{
	const unsigned char *p = f->b + off + 2;

	if (fmt == CSIG_FMT_COMPACT)
		csig_compact_unpack(p[0] << 8 | p[1], fl);
	else
		csig_expanded_unpack(p[0] << 8 | p[1],
				     (__u32)p[2] << 24 | p[3] << 16 | p[4] << 8 | p[5],
				     fl);
}

static const char * const fmt_name[] = { "compact", "expanded" };
static const __u32 known[] = { CSIG_T_ABW, CSIG_T_ABWC, CSIG_T_PD, CSIG_T_U };

/* Replace and keep, both directions, every known type, both formats. */
static void t_transit_types(void)
{
	int fmt, i;

	for (fmt = 0; fmt < 2; fmt++) {
		for (i = 0; i < 4; i++) {
			__u32 t = known[i], want, lmmask;
			struct csig_fields fl;
			struct frame in;
			struct run r;
			__u64 q = 60000, rate = 150000;	/* 60 KB, 150 Mbit/s */

			lmmask = fmt ? CSIG_EXPANDED_LM_MASK : CSIG_COMPACT_LM_MASK;
			cfg_default();
			/* the frame's own length joins the queue first */
			build(&in, 0, fmt, t, csig_s_identity(fmt, t), 0x11, 1,
			      L4_TCP_DATA, 100);
			/* U's queue: the window snapshots, none taken yet */
			want = csig_encode(&cfg()->quant, fmt, t,
					   csig_port_signal(cfg(), t, t == CSIG_T_U ? 0 :
							    q_after(q, in.len), rate));
			seed(q, rate);
			mark();
			run(skel->progs.csig_transit, &in, &r, 1);
			read_tag(&r.out, 12, fmt, &fl);
			tap_ok(r.ret == TC_ACT_OK && fl.s == want &&
			       fl.lm == (0x5a5a & lmmask) && fl.type == t &&
			       fl.rsvd == 1 && d(CSIG_C_REPLACED) == 1 &&
			       r.out.len == in.len &&
			       !memcmp(r.out.b + 12 + (fmt ? 8 : 4),
				       in.b + 12 + (fmt ? 8 : 4),
				       in.len - 12 - (fmt ? 8 : 4)),
			       "transit %s type %u: identity replaced by the port's S %u and LM, R and payload kept",
			       fmt_name[fmt], t, want);
			if (fl.s != want || getenv("DBG"))
				tap_diag("S %u want %u ret %d len %u/%u lm %x r %u repl %llu",
					 fl.s, want, r.ret, r.out.len, in.len, fl.lm, fl.rsvd,
					 (unsigned long long)d(CSIG_C_REPLACED));

			/* a value already worse than the port's is kept */
			build(&in, 0, fmt, t,
			      csig_type_is_min(t) ? 0 : csig_s_max(fmt), 0x22, 0,
			      L4_TCP_DATA, 100);
			seed(q, rate);
			mark();
			run(skel->progs.csig_transit, &in, &r, 1);
			tap_ok(same(&r.out, &in) && d(CSIG_C_KEPT) == 1 &&
			       d(CSIG_C_REPLACED) == 0,
			       "transit %s type %u: a worse value and its LM are kept",
			       fmt_name[fmt], t);

			/* a tie keeps the first bottleneck's LM */
			build(&in, 0, fmt, t, want, 0x22, 0, L4_TCP_DATA, 100);
			seed(q, rate);
			run(skel->progs.csig_transit, &in, &r, 1);
			tap_ok(same(&r.out, &in),
			       "transit %s type %u: an equal value keeps its LM",
			       fmt_name[fmt], t);
		}
	}
}

/* Saturation and the identities at the extremes. */
static void t_transit_saturation(void)
{
	int fmt;

	for (fmt = 0; fmt < 2; fmt++) {
		struct csig_fields fl;
		struct frame in;
		struct run r;

		cfg_default();
		/* 1 GB of queue: PD and U past the top of both formats */
		build(&in, 0, fmt, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 10);
		seed(1ULL << 30, 0);
		run(skel->progs.csig_transit, &in, &r, 1);
		read_tag(&r.out, 12, fmt, &fl);
		tap_eq_u64(fl.s, csig_s_max(fmt), "transit %s: PD saturates at the top bucket",
			   fmt_name[fmt]);
		build(&in, 0, fmt, CSIG_T_U, 0, 0, 0, L4_TCP_DATA, 10);
		seed(1ULL << 30, 0);
		seed_u_queue(1ULL << 30);
		run(skel->progs.csig_transit, &in, &r, 1);
		read_tag(&r.out, 12, fmt, &fl);
		tap_eq_u64(fl.s, csig_s_max(fmt), "transit %s: U saturates at the top bucket",
			   fmt_name[fmt]);
		/* tx rate above C: no bandwidth left */
		build(&in, 0, fmt, CSIG_T_ABW, csig_s_max(fmt), 0, 0, L4_TCP_DATA, 10);
		seed(0, 400000);
		run(skel->progs.csig_transit, &in, &r, 1);
		read_tag(&r.out, 12, fmt, &fl);
		tap_eq_u64(fl.s, 0, "transit %s: ABW is 0 when the rate exceeds C",
			   fmt_name[fmt]);
		/* an idle port leaves ABW/C's identity... only if C is all free */
		build(&in, 0, fmt, CSIG_T_ABWC, csig_s_max(fmt), 0, 0, L4_TCP_DATA, 10);
		seed(0, 0);
		run(skel->progs.csig_transit, &in, &r, 1);
		read_tag(&r.out, 12, fmt, &fl);
		tap_eq_u64(fl.s, csig_encode(&cfg()->quant, fmt, CSIG_T_ABWC, CSIG_FRAC_ONE),
			   "transit %s: an idle port reports ABW/C = 1", fmt_name[fmt]);
	}
}

/* LM from the ifindex, VLAN-tagged frames, types this port skips. */
static void t_transit_misc(void)
{
	struct csig_fields fl;
	struct frame in;
	struct run r;
	int n, fmt;

	cfg_default();
	cfg()->flags = CSIG_CFG_LM_IFINDEX;
	memset(&ctx, 0, sizeof(ctx));
	ctx.ifindex = 1;	/* test runs see the loopback device */
	build(&in, 0, CSIG_FMT_EXPANDED, CSIG_T_PD, 0, 0x7777, 0, L4_TCP_DATA, 10);
	seed(100000, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	read_tag(&r.out, 12, CSIG_FMT_EXPANDED, &fl);
	tap_eq_u64(fl.lm, 1, "transit: LM_IFINDEX writes the port's ifindex");

	cfg_default();
	for (n = 1; n <= 2; n++) {
		for (fmt = 0; fmt < 2; fmt++) {
			build(&in, n, fmt, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 10);
			seed(100000, 0);
			mark();
			run(skel->progs.csig_transit, &in, &r, 1);
			read_tag(&r.out, 12 + 4 * n, fmt, &fl);
			tap_ok(fl.s > 0 && fl.lm == (0x5a5a & (fmt ? 0xffff : 0x7f)) &&
			       d(CSIG_C_REPLACED) == 1 &&
			       !memcmp(r.out.b, in.b, 12 + 4 * n),
			       "transit: %s tag after %d VLAN tag(s) is updated, the VLAN tags kept",
			       fmt_name[fmt], n);
		}
	}

	cfg()->types = CSIG_TYPES_KNOWN & ~(1U << CSIG_T_PD);
	build(&in, 0, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 10);
	seed(100000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(same(&r.out, &in) && d(CSIG_C_TYPE_OFF) == 1,
	       "transit: a type the port does not update passes untouched, counted");

	cfg_default();
	for (fmt = 0; fmt < 2; fmt++) {
		__u32 t, bad = 0, cnt = 0;

		for (t = 0; t < (fmt ? 16U : 8U); t++) {
			if (csig_type_known(t))
				continue;
			build(&in, 0, fmt, t, 3, 0x11, 0, L4_TCP_DATA, 10);
			seed(100000, 100000);
			mark();
			run(skel->progs.csig_transit, &in, &r, 1);
			if (!same(&r.out, &in) || r.ret != TC_ACT_OK)
				bad++;
			cnt += d(CSIG_C_UNKNOWN_TYPE);
		}
		tap_ok(!bad && cnt == (fmt ? 12U : 4U),
		       "transit %s: every unknown type passes untouched and is counted (%u)",
		       fmt_name[fmt], cnt);
	}
}

/* Frames a port must pass untouched and count. */
static void t_bad_frames(void)
{
	struct frame in;
	struct run r;
	struct {
		const char *what;
		int counter;
	} c[6] = {
		{ "truncated compact tag", CSIG_C_TRUNCATED },
		{ "truncated expanded tag", CSIG_C_TRUNCATED },
		{ "compact tag at the end of a runt frame", CSIG_C_TRUNCATED },
		{ "nested tags", CSIG_C_NESTED },
		{ "three VLAN tags before the tag", CSIG_C_TOO_DEEP },
		{ "non-IP untagged frame", -1 },
	};
	int i;

	cfg_default();
	for (i = 0; i < 6; i++) {
		switch (i) {
		case 0:
			build(&in, 0, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 0);
			in.len = 15;	/* 12 + TPID + 1 byte */
			break;
		case 1:
			build(&in, 0, CSIG_FMT_EXPANDED, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 0);
			in.len = 18;
			break;
		case 2:
			build(&in, 0, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 0);
			in.len = 16;	/* no EtherType after the tag */
			break;
		case 3:
			build(&in, 0, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 10);
			/* a second compact tag where the EtherType should be */
			memmove(in.b + 20, in.b + 16, in.len - 16);
			memcpy(in.b + 16, in.b + 12, 4);
			in.len += 4;
			break;
		case 4:
			build(&in, 3, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 10);
			break;
		case 5:
			build(&in, 0, -1, 0, 0, 0, 0, L4_ARP, 0);
			break;
		}
		seed(100000, 0);
		mark();
		run(skel->progs.csig_transit, &in, &r, 1);
		tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in) &&
		       d(CSIG_C_REPLACED) == 0 &&
		       (c[i].counter < 0 ? d(CSIG_C_TAGGED) == 0 :
					   d(c[i].counter) == 1),
		       "transit: %s passes untouched%s", c[i].what,
		       c[i].counter < 0 ? "" : ", counted");
	}
}

/* The shadow queue, the transmitted bytes, the rate window, GSO. */
static void t_model(void)
{
	struct csig_port_state m;
	__u64 hist[CSIG_QHIST_N], svc, i, hsum = 0;
	struct frame in;
	struct run r;

	cfg_default();
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 1000);
	svc = csig_port_svc_ns(cfg(), in.len);
	seed_state(0, 0, 0, T0, 0);
	{
		/* the histogram is per CPU: its change over the ten packets */
		struct csig_port_stats st[nr_cpus];
		__u32 zero = 0;
		int c, b;

		memset(hist, 0, sizeof(hist));
		bpf_map__lookup_elem(skel->maps.csig_stats, &zero, sizeof(zero),
				     st, sizeof(st), 0);
		for (c = 0; c < nr_cpus; c++)
			for (b = 0; b < CSIG_QHIST_N; b++)
				hist[b] -= st[c].qhist[b];
		for (i = 0; i < 10; i++)
			run(skel->progs.csig_transit, &in, &r, 1);
		bpf_map__lookup_elem(skel->maps.csig_stats, &zero, sizeof(zero),
				     st, sizeof(st), 0);
		for (c = 0; c < nr_cpus; c++)
			for (b = 0; b < CSIG_QHIST_N; b++)
				hist[b] += st[c].qhist[b];
	}
	state(&m);
	for (i = 0; i < CSIG_QHIST_N; i++)
		hsum += hist[i];
	tap_ok(m.t_free == T0 + 10 * svc && m.arrived == 10 * in.len &&
	       m.d_last == 10 * svc && m.d_max == 10 * svc && hsum == 10 &&
	       hist[csig_qhist_index(svc)] == 1 &&
	       hist[csig_qhist_index(10 * svc)] == 1,
	       "model: ten back-to-back packets of %u bytes queue behind each other (%llu ns each), histogram counts them",
	       in.len, (unsigned long long)svc);

	/* 1 MB queued (40 ms at 200 Mbit/s), 1 ms later: 25000 bytes gone */
	seed_state(q_ns(1000000), 1000000, 0, T0 + 1000000, 0);
	cfg()->clock_ns = T0 + 1000000;
	run(skel->progs.csig_transit, &in, &r, 1);
	state(&m);
	tap_ok(m.d_last == q_ns(1000000) - 1000000 + svc &&
	       csig_port_bytes(cfg(), m.d_last - svc) == 975000,
	       "model: q = max(0, q - C*dt) + len: 1 MB minus 1 ms at 200 Mbit/s");

	/* a long idle gap drains everything, no more */
	cfg()->clock_ns = T0;
	seed_state(0, 5000, 0, T0, 0);
	{
		struct csig_port_state z;
		__u32 zero = 0;

		state(&z);
		z.t_free = T0 - 1000000000ULL;
		bpf_map__update_elem(skel->maps.csig_state, &zero, sizeof(zero),
				     &z, sizeof(z), 0);
	}
	run(skel->progs.csig_transit, &in, &r, 1);
	state(&m);
	tap_ok(m.d_last == svc && m.t_free == T0 + svc,
	       "model: after an idle second a packet finds only itself");

	/* rate window: 50000 bytes left in the 2 ms since it opened */
	seed_state(0, 80000, 0, T0 - 2000000, 30000);
	run(skel->progs.csig_transit, &in, &r, 1);
	state(&m);
	tap_ok(m.rate_kbps == 200000 && m.win_tx == 80000 && m.win_start == T0,
	       "model: the window's rate is the bytes transmitted over its length (%llu kbit/s)",
	       (unsigned long long)m.rate_kbps);
	tap_ok(m.d_win == 0 && m.d_last == svc,
	       "model: ... the queue ahead of the packet that closed it is U's (0, not its own %llu ns)",
	       (unsigned long long)svc);

	/* U's queue term: the smaller of now's and the last window's */
	build(&in, 0, CSIG_FMT_EXPANDED, CSIG_T_U, 0, 0, 0, L4_TCP_DATA, 100);
	seed(60000, 100000);
	{
		struct csig_port_state z;
		struct csig_fields fl;
		__u32 zero = 0, want;

		state(&z);
		z.d_win = q_ns(10000);	/* 10 KB when the window closed */
		z.d_win_prev = q_ns(30000);	/* 30 KB the one before */
		bpf_map__update_elem(skel->maps.csig_state, &zero, sizeof(zero),
				     &z, sizeof(z), 0);
		run(skel->progs.csig_transit, &in, &r, 1);
		read_tag(&r.out, 12, CSIG_FMT_EXPANDED, &fl);
		want = csig_encode(&cfg()->quant, CSIG_FMT_EXPANDED, CSIG_T_U,
				   csig_port_signal(cfg(), CSIG_T_U,
						    csig_port_bytes(cfg(), q_ns(10000)), 100000));
		tap_ok(fl.s == want,
		       "model: U's queue term is min(10 KB, 30 KB) at the last two window ends, not the 60 KB now: S %u",
		       fl.s);
	}

	/* a GSO packet counts each segment's headers */
	build(&in, 0, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 200);
	memset(&ctx, 0, sizeof(ctx));
	ctx.gso_segs = 4;
	ctx.gso_size = 50;
	use_ctx = 1;
	seed(0, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	use_ctx = 0;
	state(&m);
	tap_eq_u64(m.arrived, in.len + 3 * (12 + 4 + 2 + 20 + 20),
		   "model: a 4-segment GSO packet is its length plus 3 more copies of its headers");
	tap_ok(m.d_last == csig_port_svc_ns(cfg(), 12 + 4 + 2 + 20 + 20 + 50) &&
	       m.t_free == T0 + csig_port_svc_ns(cfg(), m.arrived),
	       "model: ... it finds the queue of its first frame (%llu ns), and leaves all of it",
	       (unsigned long long)m.d_last);
}

static void t_strip(void)
{
	struct frame in, plain;
	struct run r;
	int fmt;

	cfg_default();
	build(&plain, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 100);
	for (fmt = 0; fmt < 2; fmt++) {
		build(&in, 0, fmt, CSIG_T_U, 123, 0x55, 1, L4_TCP_DATA, 100);
		mark();
		run(skel->progs.csig_strip, &in, &r, 1);
		tap_ok(r.ret == TC_ACT_OK && same(&r.out, &plain) &&
		       d(CSIG_C_STRIPPED) == 1,
		       "strip: the %s tag is removed, the frame is otherwise unchanged",
		       fmt_name[fmt]);
	}
	mark();
	run(skel->progs.csig_strip, &plain, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &plain) && d(CSIG_C_STRIPPED) == 0,
	       "strip: an untagged frame passes untouched");
	build(&in, 0, -1, 0, 0, 0, 0, L4_ARP, 0);
	run(skel->progs.csig_strip, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in), "strip: a non-IP frame passes untouched");

	build(&in, 1, CSIG_FMT_COMPACT, CSIG_T_U, 1, 0, 0, L4_TCP_DATA, 100);
	mark();
	run(skel->progs.csig_strip, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_SHOT && d(CSIG_C_STRIP_FAIL) == 1,
	       "strip: a tag behind an in-packet VLAN tag is dropped, counted");
	cfg()->flags |= CSIG_CFG_STRIP_PASS;
	run(skel->progs.csig_strip, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in),
	       "strip: ... or passed untouched with CSIG_CFG_STRIP_PASS");
	cfg()->flags &= ~CSIG_CFG_STRIP_PASS;

	/* a VLAN tag right behind the tag would be popped with it */
	for (fmt = 0; fmt < 2; fmt++) {
		int tl = fmt ? 8 : 4, ok;

		build(&in, 0, fmt, CSIG_T_U, 1, 0, 0, L4_TCP_DATA, 100);
		memmove(in.b + 12 + tl + 4, in.b + 12 + tl, in.len - 12 - tl);
		memcpy(in.b + 12 + tl, "\x81\x00\x00\x0a", 4);
		in.len += 4;
		mark();
		run(skel->progs.csig_strip, &in, &r, 1);
		ok = r.ret == TC_ACT_SHOT && d(CSIG_C_STRIP_FAIL) == 1 &&
		     d(CSIG_C_STRIPPED) == 0;
		cfg()->flags |= CSIG_CFG_STRIP_PASS;
		run(skel->progs.csig_strip, &in, &r, 1);
		cfg()->flags &= ~CSIG_CFG_STRIP_PASS;
		tap_ok(ok && r.ret == TC_ACT_OK && same(&r.out, &in),
		       "strip: a %s tag with a VLAN tag behind it is dropped, counted (passed untouched with CSIG_CFG_STRIP_PASS)",
		       fmt_name[fmt]);
	}

	build(&in, 0, CSIG_FMT_EXPANDED, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 0);
	in.len = 19;
	mark();
	run(skel->progs.csig_strip, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_SHOT && d(CSIG_C_TRUNCATED) == 1 &&
	       d(CSIG_C_STRIP_FAIL) == 1,
	       "strip: a truncated tag cannot leave the domain: dropped, counted");
}

static void t_insert(void)
{
	struct frame in, want;
	struct csig_fields fl;
	struct run r;
	int fmt, i, ok;

	for (fmt = 0; fmt < 2; fmt++) {
		for (i = 0; i < 4; i++) {
			__u32 t = known[i];

			cfg_default();
			cfg()->ins_mode = CSIG_INS_ALL;
			cfg()->ins_format = fmt;
			cfg()->ins_types = 1U << t;
			build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 100);
			build(&want, 0, fmt, t, csig_s_identity(fmt, t), 0, 0,
			      L4_TCP_DATA, 100);
			mark();
			run(skel->progs.csig_insert, &in, &r, 1);
			tap_ok(r.ret == TC_ACT_OK && same(&r.out, &want) &&
			       d(CSIG_C_INSERTED) == 1,
			       "insert %s type %u: the tag goes after the MACs with the identity S %u",
			       fmt_name[fmt], t, csig_s_identity(fmt, t));
		}
	}

	/* rotation through the requested types */
	cfg_default();
	cfg()->ins_mode = CSIG_INS_ALL;
	cfg()->ins_types = (1U << CSIG_T_ABW) | (1U << CSIG_T_PD) | (1U << CSIG_T_U);
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 100);
	{
		__u32 seen = 0, prev = 99, repeat = 0;

		for (i = 0; i < 6; i++) {
			run(skel->progs.csig_insert, &in, &r, 1);
			read_tag(&r.out, 12, CSIG_FMT_COMPACT, &fl);
			seen |= 1U << fl.type;
			if (fl.type == prev)
				repeat++;
			prev = fl.type;
		}
		tap_ok(seen == cfg()->ins_types && !repeat,
		       "insert: consecutive packets rotate through the requested types (seen 0x%x)",
		       seen);
	}

	/* not data: pure ACK, UDP; not IP: ARP */
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_ACK, 0);
	mark();
	run(skel->progs.csig_insert, &in, &r, 1);
	ok = same(&r.out, &in) && d(CSIG_C_INSERT_SKIP) == 1;
	build(&in, 0, -1, 0, 0, 0, 0, L4_UDP, 100);
	mark();
	run(skel->progs.csig_insert, &in, &r, 1);
	ok = ok && same(&r.out, &in) && d(CSIG_C_INSERT_SKIP) == 1;
	tap_ok(ok, "insert: pure ACKs and UDP are not tagged, counted");
	build(&in, 0, -1, 0, 0, 0, 0, L4_ARP, 0);
	mark();
	run(skel->progs.csig_insert, &in, &r, 1);
	tap_ok(same(&r.out, &in) && d(CSIG_C_INSERTED) == 0,
	       "insert: non-IP frames pass untouched");
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP6_DATA, 100);
	mark();
	run(skel->progs.csig_insert, &in, &r, 1);
	tap_ok(r.out.len == in.len + 4 && d(CSIG_C_INSERTED) == 1 &&
	       r.out.b[12] == (CSIG_TPID_COMPACT >> 8) && r.out.b[16] == 0x86 &&
	       !memcmp(r.out.b + 16, in.b + 12, in.len - 12),
	       "insert: IPv6 TCP data segments are tagged");

	/* flow selection by mark, and the default (socket storage only) */
	cfg_default();
	cfg()->ins_mode = CSIG_INS_MARK;
	cfg()->ins_mark = 0x100;
	cfg()->ins_mark_mask = 0xf00;
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 100);
	memset(&ctx, 0, sizeof(ctx));
	use_ctx = 1;
	ctx.mark = 0x1ab;
	run(skel->progs.csig_insert, &in, &r, 1);
	ok = r.out.len == in.len + 4;
	ctx.mark = 0x2ab;
	run(skel->progs.csig_insert, &in, &r, 1);
	use_ctx = 0;
	tap_ok(ok && same(&r.out, &in),
	       "insert: CSIG_INS_MARK tags marked flows only");
	cfg_default();
	run(skel->progs.csig_insert, &in, &r, 1);
	tap_ok(same(&r.out, &in),
	       "insert: by default only sockets flagged in csig_flows are tagged");
}

/* A sender's tag through two hops and a boundary, back to the frame. */
static void t_round_trip(void)
{
	struct frame plain, mid;
	struct csig_fields fl;
	struct run r;
	int fmt;

	for (fmt = 0; fmt < 2; fmt++) {
		cfg_default();
		cfg()->ins_mode = CSIG_INS_ALL;
		cfg()->ins_format = fmt;
		cfg()->ins_types = 1U << CSIG_T_ABW;
		build(&plain, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 300);
		run(skel->progs.csig_insert, &plain, &r, 1);
		mid = r.out;
		csig_port_set_capacity(cfg(), 200000000);
		seed(0, 50000000);	/* 150 of 200 Gbit/s free */
		run(skel->progs.csig_transit, &mid, &r, 1);
		mid = r.out;
		csig_port_set_capacity(cfg(), 100000000);
		cfg()->lm = 0x2a;
		seed(0, 90000000);	/* 10 of 100 Gbit/s free: the bottleneck */
		run(skel->progs.csig_transit, &mid, &r, 1);
		mid = r.out;
		read_tag(&mid, 12, fmt, &fl);
		run(skel->progs.csig_strip, &mid, &r, 1);
		tap_ok(fl.s == csig_encode(&cfg()->quant, fmt, CSIG_T_ABW, 10000000) &&
		       fl.lm == 0x2a && same(&r.out, &plain),
		       "round trip %s: insert, two hops, strip: the bottleneck's ABW and LM, then the original frame",
		       fmt_name[fmt]);
	}
}

/* IPv4 header checksum over @n bytes at @h, the field included */
static __u16 ip_sum(const unsigned char *h, int n)
{
	__u32 sum = 0;
	int i;

	for (i = 0; i < n; i += 2)
		sum += (h[i] << 8) | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* an IPv4/TCP frame at @ip with ECN field @ecn and a valid checksum */
static void set_ecn4(struct frame *f, int ip, int ecn)
{
	__u16 c;

	f->b[ip + 1] = (f->b[ip + 1] & ~3) | ecn;
	f->b[ip + 10] = 0;
	f->b[ip + 11] = 0;
	c = ~ip_sum(f->b + ip, 20);
	f->b[ip + 10] = c >> 8;
	f->b[ip + 11] = c & 0xff;
}

static void cfg_wred(void)
{
	cfg_default();
	cfg()->ecn_kmin = 15000;
	cfg()->ecn_kmax = 45000;
	cfg()->ecn_pmax = CSIG_ECN_P_ONE / 5;
	cfg()->ecn_kdrop = 15000;
}

static void t_wred(void)
{
	struct csig_port_cfg c = CSIG_PORT_CFG_INIT;
	struct csig_port_state m;
	struct frame in, want;
	struct run r;
	int i, n, ok;

	/* the rule itself: K_min 15000, K_max 45000, P_max 0.2 */
	c.ecn_kmin = 15000;
	c.ecn_kmax = 45000;
	c.ecn_pmax = CSIG_ECN_P_ONE / 5;
	c.ecn_kdrop = 20000;
	tap_ok(!csig_port_drop_not_ect(&c, 19999) && csig_port_drop_not_ect(&c, 20000),
	       "wred: not-ECT dropped from K on (the draft's equation 3)");
	tap_ok(!csig_port_wred(&c, 14999, 0) && csig_port_wred(&c, 45000, ~0U) &&
	       csig_port_wred(&c, 30000, 6552U << 16) &&
	       !csig_port_wred(&c, 30000, 6553U << 16) &&
	       csig_port_wred(&c, 15003, 0) && !csig_port_wred(&c, 15000, 0),
	       "wred: 0 below K_min, P_max (K - K_min) / (K_max - K_min) between, 1 from K_max");
	c.ecn_kmax = 0;
	tap_ok(!csig_port_wred(&c, 1 << 30, 0) && !csig_port_drop_not_ect(&c, 1 << 30) &&
	       !csig_ecn_cfg_valid(0, 0, 1, 1) && !csig_ecn_cfg_valid(2, 1, 1, 1) &&
	       !csig_ecn_cfg_valid(1, 2, 0, 1) &&
	       !csig_ecn_cfg_valid(1, 2, CSIG_ECN_P_ONE + 1, 1) &&
	       !csig_ecn_cfg_valid(1, 2, 1, 0) &&
	       !csig_ecn_cfg_valid(1, CSIG_ECN_K_MAX + 1, 1, 1) &&
	       csig_ecn_cfg_valid(15000, 15000, CSIG_ECN_P_ONE, 15000),
	       "wred: off while K_max is 0; a configuration needs 0 < K_max, K_min <= K_max, 0 < P_max <= 1, 0 < K");

	cfg_wred();
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 1000);
	set_ecn4(&in, 14, 2);
	seed(10000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in) && !d(CSIG_C_ECN_MARKED) &&
	       !d(CSIG_C_ECN_DROPPED), "wred: an ECT packet finding 10 KB passes unmarked");

	seed(50000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	state(&m);
	want = in;
	set_ecn4(&want, 14, 3);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &want) && ip_sum(r.out.b + 14, 20) == 0xffff &&
	       d(CSIG_C_ECN_MARKED) == 1 &&
	       m.t_free == T0 + q_ns(50000) + csig_port_svc_ns(cfg(), in.len),
	       "wred: an ECT(0) packet finding 50 KB leaves CE, the IPv4 checksum updated, and joins the model");

	set_ecn4(&in, 14, 1);
	seed(50000, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &want) && d(CSIG_C_ECN_MARKED) == 2,
	       "wred: ECT(1) too");

	set_ecn4(&in, 14, 0);
	seed(50000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	state(&m);
	tap_ok(r.ret == TC_ACT_SHOT && d(CSIG_C_ECN_DROPPED) == 1 && !d(CSIG_C_ECN_MARKED) &&
	       m.t_free == T0 + q_ns(50000) && m.arrived == 0,
	       "wred: a not-ECT packet finding 50 KB, over K, is dropped, counted, and kept out of the model");
	/* between K_min and K_max: a step for not-ECT, not red's ramp */
	mark();
	for (i = 0, ok = 0; i < 50; i++) {
		seed(16000, 0);
		run(skel->progs.csig_transit, &in, &r, 1);
		ok += r.ret == TC_ACT_SHOT;
	}
	seed(14000, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(ok == 50 && r.ret == TC_ACT_OK && same(&r.out, &in) && d(CSIG_C_ECN_DROPPED) == 50,
	       "wred: not-ECT: all 50 finding 16 KB dropped, one finding 14 KB passes (K = 15 KB)");
	cfg()->ecn_kdrop = 60000;
	seed(50000, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	cfg()->ecn_kdrop = 15000;
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in) && d(CSIG_C_ECN_DROPPED) == 50,
	       "wred: with K = 60 KB a not-ECT packet finding 50 KB passes");

	seed(50000, 0);
	run(skel->progs.csig_transit, &want, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &want) && d(CSIG_C_ECN_CE) == 1,
	       "wred: a CE packet passes as it is, counted");

	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP6_DATA, 1000);
	in.b[15] |= 0x20;
	want = in;
	want.b[15] |= 0x30;
	seed(50000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &want) && d(CSIG_C_ECN_MARKED) == 1,
	       "wred: IPv6: ECT(0) in the traffic class becomes CE, the flow label kept");

	/* behind a VLAN tag and a CSIG tag: CE, and the tag still updated */
	build(&in, 1, CSIG_FMT_COMPACT, CSIG_T_PD, 0, 0, 0, L4_TCP_DATA, 1000);
	set_ecn4(&in, 12 + 4 + 4 + 2, 2);
	seed(50000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	{
		struct csig_fields fl;

		read_tag(&r.out, 16, CSIG_FMT_COMPACT, &fl);
		tap_ok(r.ret == TC_ACT_OK && (r.out.b[12 + 4 + 4 + 2 + 1] & 3) == 3 &&
		       ip_sum(r.out.b + 22, 20) == 0xffff && fl.s > 0 &&
		       d(CSIG_C_ECN_MARKED) == 1 && d(CSIG_C_REPLACED) == 1,
		       "wred: behind VLAN and CSIG tags: CE, the checksum right, the tag replaced");
	}

	build(&in, 0, -1, 0, 0, 0, 0, L4_ARP, 0);
	seed(50000, 0);
	mark();
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in) && !d(CSIG_C_ECN_MARKED) &&
	       !d(CSIG_C_ECN_DROPPED), "wred: a frame that is not IP passes");

	/* halfway between K_min and K_max: P_max / 2 = 0.1 */
	build(&in, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 1000);
	set_ecn4(&in, 14, 2);
	mark();
	n = 4000;
	for (i = 0; i < n; i++) {
		seed(30000, 0);
		run(skel->progs.csig_transit, &in, &r, 1);
	}
	ok = d(CSIG_C_ECN_MARKED);
	tap_ok(ok > n / 10 - 100 && ok < n / 10 + 100,
	       "wred: at 30 KB, %d of %d packets marked (0.1 expected, +-5 sd)", ok, n);

	cfg()->ecn_kmax = 0;
	cfg()->ecn_kdrop = 1;
	seed(1 << 20, 0);
	mark();
	set_ecn4(&in, 14, 0);
	run(skel->progs.csig_transit, &in, &r, 1);
	tap_ok(r.ret == TC_ACT_OK && same(&r.out, &in) && !d(CSIG_C_ECN_DROPPED),
	       "wred: off by default: a not-ECT packet finding 1 MB passes");
}

static int empty_prog(void)
{
	struct bpf_insn insn[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = TC_ACT_OK },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "csig_empty", "GPL",
			     insn, 2, NULL);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Median ns of @n single runs (each a fresh copy of the frame). */
static __u32 bench_one(int fd, const struct frame *in, int n)
{
	__u32 *d = calloc(n, sizeof(*d)), med;
	unsigned char out[MAXF];
	int i;

	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o);

		o.data_in = in->b;
		o.data_size_in = in->len;
		o.data_out = out;
		o.data_size_out = sizeof(out);
		o.repeat = 1;
		bpf_prog_test_run_opts(fd, &o);
		d[i] = o.duration;
	}
	qsort(d, n, sizeof(*d), cmp_u32);
	med = d[n / 2];
	free(d);
	return med;
}

static int bench(void)
{
	int efd = empty_prog(), rounds = 5, n = 20000, k;
	struct frame tagged, plain;

	if (efd < 0) {
		fprintf(stderr, "cannot load the empty program: %s\n", strerror(errno));
		return 1;
	}
	cfg_default();
	cfg()->clock_ns = 0;		/* the real clock: its cost is the model's */
	cfg()->ins_mode = CSIG_INS_ALL;
	build(&tagged, 0, CSIG_FMT_COMPACT, CSIG_T_U, 0, 0, 0, L4_TCP_DATA, 1400);
	build(&plain, 0, -1, 0, 0, 0, 0, L4_TCP_DATA, 1400);
	printf("# BPF_PROG_TEST_RUN, median ns of %d single runs, %d rounds\n",
	       n, rounds);
	printf("# (min..max of the rounds' medians)\n");
	{
		static const char * const name[] = {
			"empty", "transit (tagged)", "transit (untagged)",
			"strip (compact)", "insert (compact)",
		};
		int tfd = bpf_program__fd(skel->progs.csig_transit);
		__u32 med[5][8], lo, hi;
		int i;

		for (k = 0; k < rounds; k++) {
			med[0][k] = bench_one(efd, &plain, n);
			med[1][k] = bench_one(tfd, &tagged, n);
			med[2][k] = bench_one(tfd, &plain, n);
			med[3][k] = bench_one(bpf_program__fd(skel->progs.csig_strip), &tagged, n);
			med[4][k] = bench_one(bpf_program__fd(skel->progs.csig_insert), &plain, n);
		}
		for (i = 0; i < 5; i++) {
			qsort(med[i], rounds, sizeof(__u32), cmp_u32);
			(void)lo;
			lo = med[i][0];
			hi = med[i][rounds - 1];
			printf("%-20s %5u ns  (%u..%u)  extra %+d ns\n", name[i],
			       med[i][rounds / 2], lo, hi,
			       (int)med[i][rounds / 2] - (int)med[0][rounds / 2]);
		}
	}
	/* transit keeps the frame's length: also measured in-kernel, repeated */
	{
		struct run r;
		__u32 e[8], t[8], u[8];

		printf("# BPF_PROG_TEST_RUN repeat=%d (one skb, in-kernel loop), %d rounds\n",
		       REPEAT, rounds);
		for (k = 0; k < rounds; k++) {
			LIBBPF_OPTS(bpf_test_run_opts, o);

			o.data_in = plain.b;
			o.data_size_in = plain.len;
			o.repeat = REPEAT;
			bpf_prog_test_run_opts(efd, &o);
			e[k] = o.duration;
			run(skel->progs.csig_transit, &tagged, &r, REPEAT);
			t[k] = r.dur;
			run(skel->progs.csig_transit, &plain, &r, REPEAT);
			u[k] = r.dur;
		}
		qsort(e, rounds, sizeof(__u32), cmp_u32);
		qsort(t, rounds, sizeof(__u32), cmp_u32);
		qsort(u, rounds, sizeof(__u32), cmp_u32);
		printf("%-20s %5u ns  (%u..%u)\n", "empty", e[rounds / 2], e[0], e[rounds - 1]);
		printf("%-20s %5u ns  (%u..%u)  extra %+d ns\n", "transit (tagged)",
		       t[rounds / 2], t[0], t[rounds - 1], (int)t[rounds / 2] - (int)e[rounds / 2]);
		printf("%-20s %5u ns  (%u..%u)  extra %+d ns\n", "transit (untagged)",
		       u[rounds / 2], u[0], u[rounds - 1], (int)u[rounds / 2] - (int)e[rounds / 2]);
	}
	close(efd);
	return 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	char pin[] = "/sys/fs/bpf/csig-test-XXXXXX";
	cpu_set_t cpus;
	int err;

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
		return 1;
	}
	bpf_program__set_type(skel->progs.csig_transit, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_strip, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_insert, BPF_PROG_TYPE_SCHED_CLS);
	err = csig_port__load(skel);
	if (err) {
		if (err == -EPERM && geteuid()) {
			printf("1..0 # SKIP loading BPF needs root\n");
			rmdir(pin);
			return 0;
		}
		printf("Bail out! the programs do not load: %s\n", strerror(-err));
		rmdir(pin);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		err = bench();
	} else {
		t_transit_types();
		t_transit_saturation();
		t_transit_misc();
		t_bad_frames();
		t_model();
		t_wred();
		t_strip();
		t_insert();
		t_round_trip();
		err = tap_done();
	}
	bpf_map__unpin(skel->maps.csig_flows, NULL);
	csig_port__destroy(skel);
	rmdir(pin);
	return err;
}
