// SPDX-License-Identifier: GPL-2.0
/*
 * test_glue_hpcc, test_glue_ldcp: one controller's flavours against each
 * other.  The module's glue (tcp_hpcc.c, tcp_ldcp.c), the BPF program's
 * (tools/bpf/tcp_hpcc.bpf.c, ...) and the ns-3 model's (sim/hpcc_glue.c, ...) each
 * compile here from their own source (glue.h); every call goes to all
 * three with the same TCP state, and after each the windows, ssthresh,
 * pacing rate, Reno's counter, the receiver's ECE state, the returned
 * value and the controller's window must be the same in all three, and
 * at the end of each run the controller's counters.
 *
 *  1. A recorded trace of the model's calls (selftests/data/ackcost-*.trace,
 *     tools/ackcost.c): every socket's calls with the recorded inputs, and
 *     the model's outputs also against the recording.
 *  2. Random runs of a crude TCP sender (seeded, GLUE_RUNS of them, more
 *     with an argument): ACKs with telemetry that comes, changes type,
 *     goes stale and comes back, a negotiation found late, ECN echoes,
 *     recovery and RTOs with ssthresh and undo, over parameter sets that
 *     turn the departures off and on.
 *
 * Built with -DGLUE_HPCC or -DGLUE_LDCP (selftests/unit/Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "dcc_acktrace.h"
#include "glue.h"

#ifdef GLUE_HPCC
#define GLUE_CC		"hpcc"
#define GLUE_NCTR	DCC_SIM_HPCC_NCTR
#else
#define GLUE_CC		"ldcp"
#define GLUE_NCTR	DCC_SIM_LDCP_NCTR
#endif

#define GLUE_RUNS	300
#define GLUE_NFL	3

__u8 glue_ack_pending = GLUE_ACK_NOW;
/*
 * The flavour the others are compared with: the model, or the module
 * where the model cannot follow (a receiver's delayed-ACK timer, which
 * its receivers do not have: ack_timer 0, ack_now 1 there)
 */
static int ref;

static const struct glue_flavour *const fl[GLUE_NFL] = {
	&glue_model, &glue_kmod, &glue_bpf,
};

/* the model's flavour: sim/dcc_sim.h's API */
#ifdef GLUE_HPCC
static void *model_new(const void *cfg)
{
	return dcc_sim_hpcc_new(cfg);
}

static __u32 model_call(void *h, int op, int a, int b)
{
	switch (op) {
	case GLUE_INIT:
		dcc_sim_hpcc_init(h);
		return 0;
	case GLUE_UPDATE:
		dcc_sim_hpcc_update(h, a);
		return 0;
	case GLUE_SET_STATE:
		dcc_sim_hpcc_set_state(h, a);
		return 0;
	case GLUE_CWND_EVENT:
		dcc_sim_hpcc_cwnd_event(h, a);
		return 0;
	case GLUE_SSTHRESH:
		return dcc_sim_hpcc_ssthresh(h);
	case GLUE_UNDO_CWND:
		return dcc_sim_hpcc_undo_cwnd(h);
	}
	abort();
}

static struct dcc_sim_io *model_io(void *h)
{
	return dcc_sim_hpcc_io(h);
}

static void model_free(void *h)
{
	dcc_sim_hpcc_free(h);
}

static __u32 model_w(void *h)
{
	return dcc_sim_hpcc_w(h);
}
#else
static void *model_new(const void *cfg)
{
	return dcc_sim_ldcp_new(cfg);
}

static __u32 model_call(void *h, int op, int a, int b)
{
	switch (op) {
	case GLUE_INIT:
		dcc_sim_ldcp_init(h);
		return 0;
	case GLUE_IN_ACK_EVENT:
		dcc_sim_ldcp_in_ack_event(h, a);
		return 0;
	case GLUE_CONG_CONTROL:
		dcc_sim_ldcp_cong_control(h, a, b);
		return 0;
	case GLUE_SET_STATE:
		dcc_sim_ldcp_set_state(h, a);
		return 0;
	case GLUE_CWND_EVENT:
		dcc_sim_ldcp_cwnd_event(h, a);
		return 0;
	case GLUE_SSTHRESH:
		return dcc_sim_ldcp_ssthresh(h);
	case GLUE_UNDO_CWND:
		return dcc_sim_ldcp_undo_cwnd(h);
	}
	abort();
}

static struct dcc_sim_io *model_io(void *h)
{
	return dcc_sim_ldcp_io(h);
}

static void model_free(void *h)
{
	dcc_sim_ldcp_free(h);
}

static __u32 model_w(void *h)
{
	return dcc_sim_ldcp_cw(h);
}
#endif

static __u64 model_ctr(void *h, int i)
{
	return model_io(h)->ctr[i];
}

const struct glue_flavour glue_model = {
	.name = "model",
	.new = model_new,
	.free = model_free,
	.io = model_io,
	.call = model_call,
	.w = model_w,
	.ctr = model_ctr,
};

static const char *ctr_name(int i)
{
#ifdef GLUE_HPCC
	return dcc_sim_hpcc_ctr_name(i);
#else
	return dcc_sim_ldcp_ctr_name(i);
#endif
}

static const char *const op_names[GLUE_NOPS] = {
	"init", "update", "in_ack_event", "cong_control", "set_state",
	"cwnd_event", "ssthresh", "undo_cwnd",
};

/* one socket of each flavour */
struct gsk {
	void	*h[GLUE_NFL];
	__u64	ctr0[GLUE_NFL][GLUE_NCTR];	/* global counters at its start */
};

struct glue_run {
	const char	*what;		/* for the diagnostics */
	unsigned long	calls, differ;
	char		first[512];	/* the first difference */
};

static void gsk_new(struct gsk *g, const void *cfg)
{
	int f, i;

	for (f = 0; f < GLUE_NFL; f++) {
		g->h[f] = fl[f]->new(cfg);
		for (i = 0; i < GLUE_NCTR; i++)
			g->ctr0[f][i] = fl[f]->ctr_global ?
					fl[f]->ctr(g->h[f], i) : 0;
	}
}

static void gsk_free(struct gsk *g)
{
	int f;

	for (f = 0; f < GLUE_NFL; f++)
		fl[f]->free(g->h[f]);
}

/* @in's TCP state and telemetry into every flavour's io */
static void gsk_in(struct gsk *g, const struct dcc_sim_io *in)
{
	unsigned int i, f;

	for (f = 0; f < GLUE_NFL; f++)
		for (i = 0; i < DCC_AT_NFIELDS; i++)
			dcc_acktrace_set(fl[f]->io(g->h[f]), &dcc_acktrace_fields[i],
					 dcc_acktrace_get(in, &dcc_acktrace_fields[i]));
}

/* The call in every flavour; 0 when they agree, else the first noted. */
static int gsk_call(struct glue_run *r, struct gsk *g, int op, int a, int b,
		    __u32 *ret)
{
	__u32 v[GLUE_NFL], w[GLUE_NFL];
	const struct dcc_sim_io *io[GLUE_NFL];
	int f, bad = 0;

	for (f = 0; f < GLUE_NFL; f++) {
		v[f] = fl[f]->call(g->h[f], op, a, b);
		w[f] = fl[f]->w(g->h[f]);
		io[f] = fl[f]->io(g->h[f]);
	}
	for (f = ref + 1; f < GLUE_NFL; f++)
		bad |= v[f] != v[ref] || w[f] != w[ref] ||
		       io[f]->cwnd != io[ref]->cwnd ||
		       io[f]->ssthresh != io[ref]->ssthresh ||
		       io[f]->pacing != io[ref]->pacing ||
		       io[f]->cwnd_cnt != io[ref]->cwnd_cnt ||
		       io[f]->demand_cwr != io[ref]->demand_cwr;
	for (f = 2; f < GLUE_NFL && fl[1]->rx; f++)
		bad |= fl[f]->rx(g->h[f]) != fl[1]->rx(g->h[1]);
	r->calls++;
	if (ret)
		*ret = v[ref];
	if (!bad)
		return 0;
	if (!r->differ++) {
		int n = snprintf(r->first, sizeof(r->first), "%s, call %lu, %s(%d, %d):",
				 r->what, r->calls, op_names[op], a, b);

		for (f = ref; f < GLUE_NFL && n < (int)sizeof(r->first); f++)
			n += snprintf(r->first + n, sizeof(r->first) - n,
				      " %s ret %u W %u cwnd %u ssthresh %u pacing %llu cnt %u cwr %u;",
				      fl[f]->name, v[f], w[f], io[f]->cwnd,
				      io[f]->ssthresh,
				      (unsigned long long)io[f]->pacing,
				      io[f]->cwnd_cnt, io[f]->demand_cwr);
		if (n < (int)sizeof(r->first))
			snprintf(r->first + n, sizeof(r->first) - n,
				 " rx kmod %#x bpf %#x", fl[1]->rx ? fl[1]->rx(g->h[1]) : 0,
				 fl[2]->rx ? fl[2]->rx(g->h[2]) : 0);
	}
	return 1;
}

/*
 * The counters of @n sockets, one of each flavour each, since the first
 * (@g[0]) started: the same in every flavour.  Adds the model's to @sum.
 */
static __u64 ctr_sum[GLUE_NCTR];

static int gsk_ctr_differ(struct glue_run *r, struct gsk *g, unsigned long n)
{
	__u64 c[GLUE_NFL];
	unsigned long k;
	int f, i;

	for (i = 0; i < GLUE_NCTR; i++) {
		for (f = 0; f < GLUE_NFL; f++) {
			c[f] = 0;
			if (fl[f]->ctr_global) {
				c[f] = fl[f]->ctr(g[0].h[f], i) - g[0].ctr0[f][i];
				continue;
			}
			for (k = 0; k < n; k++)
				c[f] += fl[f]->ctr(g[k].h[f], i);
		}
		ctr_sum[i] += c[ref];
		for (f = ref + 1; f < GLUE_NFL; f++) {
			if (c[f] == c[ref])
				continue;
			if (!r->differ++)
				snprintf(r->first, sizeof(r->first),
					 "%s: counter %s: %s %llu, %s %llu",
					 r->what, ctr_name(i), fl[ref]->name,
					 (unsigned long long)c[ref], fl[f]->name,
					 (unsigned long long)c[f]);
			return 1;
		}
	}
	return 0;
}

/* 1. The recorded trace: one struct gsk per socket, as tools/ackcost.c */
struct rsk {
	struct gsk		g;
	struct dcc_sim_io	in;
	int			live;
};

static void die(const char *path, unsigned long line, const char *what)
{
	printf("Bail out! %s: line %lu: %s\n", path, line, what);
	exit(1);
}

static void replay(const char *path, struct glue_run *r, unsigned long *rec_differ)
{
	struct rsk *sk = NULL;
	unsigned long nsk = 0, line = 0, id;
	char buf[4096], *p, *tok, *save;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path, 0, "cannot open");
	while (fgets(buf, sizeof(buf), f)) {
		struct dcc_sim_io want;
		__u64 pacing = 0;
		int out = 0, a, b, op;
		struct rsk *s;

		line++;
		if (buf[0] == '#')
			continue;
		id = strtoul(buf, &p, 10);
		if (p == buf || *p != ' ')
			die(path, line, "ID expected");
		if (id >= nsk) {
			sk = realloc(sk, (id + 1) * sizeof(*sk));
			if (!sk)
				abort();
			memset(&sk[nsk], 0, (id + 1 - nsk) * sizeof(*sk));
			nsk = id + 1;
		}
		s = &sk[id];
		tok = strtok_r(p, " \t\n", &save);
		if (!tok)
			die(path, line, "OP expected");
		if (!strcmp(tok, "cfg")) {
			__u32 v[32];
			unsigned int n = 0;

			while ((tok = strtok_r(NULL, " \t\n", &save)) && n < 32)
				v[n++] = strtoul(tok, NULL, 10);
#ifdef GLUE_HPCC
			if (n * 4 != sizeof(struct dcc_sim_hpcc_cfg))
#else
			if (n * 4 != sizeof(struct dcc_sim_ldcp_cfg))
#endif
				die(path, line, "cfg: the wrong number of values");
			gsk_new(&s->g, v);
			s->live = 1;
			continue;
		}
		for (op = 0; op < GLUE_NOPS && strcmp(tok, op_names[op]); op++)
			;
		if (op == GLUE_NOPS || !s->live)
			die(path, line, "an unknown call or socket");
		a = atoi(strtok_r(NULL, " \t\n", &save) ?: "x");
		b = atoi(strtok_r(NULL, " \t\n", &save) ?: "x");
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(tok, '=');
			struct dcc_sim_io *into = out ? &want : &s->in;
			unsigned int i;

			if (!strcmp(tok, "|")) {
				out = 1;
				want = s->in;
				pacing = model_io(s->g.h[0])->pacing;
				continue;
			}
			if (!eq)
				die(path, line, "KEY=VAL expected");
			*eq = 0;
			if (out && !strcmp(tok, DCC_AT_OUT_PACING)) {
				pacing = strtoull(eq + 1, NULL, 10);
				continue;
			}
			for (i = 0; i < DCC_AT_NFIELDS; i++)
				if (!strcmp(tok, dcc_acktrace_fields[i].key))
					break;
			if (i == DCC_AT_NFIELDS)
				die(path, line, "an unknown key");
			dcc_acktrace_set(into, &dcc_acktrace_fields[i],
					 strtoull(eq + 1, NULL, 10));
		}
		if (!out)
			die(path, line, "no '|'");
		gsk_in(&s->g, &s->in);
		gsk_call(r, &s->g, op, a, b, NULL);
		/* the model as recorded, the others as the model */
		{
			const struct dcc_sim_io *m = model_io(s->g.h[0]);

			if (m->cwnd != want.cwnd || m->ssthresh != want.ssthresh ||
			    m->pacing != pacing)
				(*rec_differ)++;
		}
	}
	fclose(f);
	{
		struct gsk *g = calloc(nsk, sizeof(*g));
		unsigned long n = 0;

		if (!g)
			abort();
		/* in the order of their cfg lines: the first started first */
		for (id = 0; id < nsk; id++)
			if (sk[id].live)
				g[n++] = sk[id].g;
		if (n)
			gsk_ctr_differ(r, g, n);
		for (id = 0; id < n; id++)
			gsk_free(&g[id]);
		free(g);
	}
	free(sk);
}

/* 2. Random runs */
static __u64 rng_state;

static __u32 rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (__u32)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* an integer in [lo, hi] */
static __u32 rnd_in(__u32 lo, __u32 hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static int chance(unsigned int pct)
{
	return rnd() % 100 < pct;
}

#ifdef GLUE_HPCC
static void rnd_cfg(struct dcc_sim_hpcc_cfg *c)
{
	dcc_sim_hpcc_defaults(c);
	c->line_rate_mbps = chance(50) ? 100 : rnd_in(1, 100000);
	c->base_rtt_us = chance(30) ? 0 : rnd_in(5, 20000);
	if (chance(40))
		c->grow_pct = chance(50) ? 0 : rnd_in(1, 100);
	if (chance(40))
		c->commit_samples = rnd_in(0, 16);
	if (chance(40))
		c->commit_wait_pct = rnd_in(0, 1000);
	if (chance(40))
		c->max_stage = rnd_in(0, 100);
	if (chance(30))
		c->w_ai = rnd_in(0, 1 << 20);
	if (chance(30))
		c->eta = rnd_in(50, 100);
	if (chance(30))
		c->stale_rtts = rnd_in(1, 10);
	c->input = rnd_in(0, 2);
}
#else
static void rnd_cfg(struct dcc_sim_ldcp_cfg *c)
{
	/* within the module's ranges, which it enforces */
	c->alpha_milli = chance(50) ? 1000 : rnd_in(1, 1000);
	c->beta_milli = chance(50) ? 500 : rnd_in(1, 1000);
	c->gamma_div = chance(50) ? 8 : rnd_in(4, 16);
	c->bw_mbps = chance(50) ? 100 : rnd_in(1, 100000);
	c->base_rtt_us = rnd_in(5, 20000);
	c->fast_start = chance(70);
	c->below_one_inc = chance(70);
	c->ack_every = chance(70);
}
#endif

/*
 * A sender: cwnd as the controller left it (all flavours agree, or the
 * run has failed), one ACK at a time for 1..4 packets, each ACK's time
 * a few us to an RTT after the last; telemetry on most ACKs.
 */
struct tcpsim {
	struct dcc_sim_io	in;
	__u32			rtt_us, u;
	int			tele_off;	/* ACKs left without telemetry */
};

static void sim_start(struct tcpsim *t)
{
	memset(t, 0, sizeof(*t));
	t->rtt_us = rnd_in(10, 20000);
	t->in.cwnd = 10;
	t->in.ssthresh = 0x7fffffff;
	t->in.clamp = chance(80) ? 100000 : rnd_in(2, 200);
	t->in.mss = chance(70) ? 1448 : rnd_in(1, 9000);
	t->in.srtt_us = t->rtt_us;
	t->in.min_rtt_us = t->rtt_us;
	t->in.snd_una = rnd();
	t->in.snd_nxt = t->in.snd_una;
	t->in.rcv_nxt = rnd();
	t->in.ecn_ok = chance(90);
	/*
	 * Whole us: the kernel's flavours have tcp_mstamp's us, the model
	 * ns-3's ns (sim/dcc_glue_common.h), the one difference between
	 * them that their glue does not hide: a call at a time with ns
	 * can differ in the model (the recorded trace has them, and agrees)
	 */
	t->in.now_ns = (__u64)rnd_in(1, 1000000) * 1000;
	t->in.max_pacing = chance(80) ? ~0ULL : (__u64)rnd_in(1000, 1 << 30);
	t->in.negotiated = chance(80);
	t->u = rnd_in(0, 1 << 20);
}

/* the telemetry of an ACK: a type's sample renewed now, or none */
static void sim_tele(struct tcpsim *t)
{
	int slot;

	if (t->tele_off) {
		t->tele_off--;
		return;
	}
	if (chance(2)) {
		/* a silence: stale after a few RTTs, if a window is acked */
		t->tele_off = rnd_in(1, 400);
		return;
	}
	if (chance(20))
		t->u = rnd_in(0, 2 << 20);
	else
		t->u = t->u + rnd_in(0, 40000) - 20000;
	t->u &= 0x3fffff;
	/* U mostly; PD and ABW/C (std input) sometimes, or both */
	slot = chance(70) ? 2 : rnd_in(0, 1);
	t->in.sm[slot].format = chance(80) ? 0 : 1;
	t->in.sm[slot].type = slot == 0 ? 1 : slot == 1 ? 2 : 7;
	t->in.sm[slot].s = slot == 2 ? t->u >> 8 : rnd_in(0, 0xffffff);
	t->in.sm[slot].lm = rnd_in(0, 0xffff);
	t->in.sm[slot].t_ns = t->in.now_ns - rnd_in(0, 50) * 1000;
	t->in.have |= 1U << t->in.sm[slot].type;
}

/* one ACK: time, what it acked, what the sender sent after */
static int sim_ack(struct tcpsim *t, struct glue_run *r, struct gsk *g)
{
	struct dcc_sim_io *m = fl[ref]->io(g->h[ref]);
	__u32 acked, out;
	int bad = 0;

	t->in.cwnd = m->cwnd;
	t->in.ssthresh = m->ssthresh;
	/* whole us, as tcp_mstamp (the model's clock has ns: sim_start()) */
	t->in.now_ns += (__u64)(rnd_in(1, t->rtt_us) / rnd_in(1, 8) + 1) * 1000;
	out = t->in.snd_nxt - t->in.snd_una;
	acked = out ? rnd_in(0, out < 4 ? out : 4) : 0;
	t->in.snd_una += acked;
	t->in.delivered += acked + (chance(3) ? 1 : 0);
	if (chance(30)) {
		t->in.srtt_us = t->rtt_us + rnd_in(0, t->rtt_us);
		if (t->in.srtt_us < t->in.min_rtt_us)
			t->in.min_rtt_us = t->in.srtt_us;
	}
	if (chance(50))
		t->in.rcv_nxt += rnd_in(0, 9000);
	if (ref)
		glue_ack_pending = rnd_in(0, 1) * GLUE_ACK_TIMER |
				   rnd_in(0, 1) * GLUE_ACK_NOW;
	if (!t->in.negotiated && chance(1))
		t->in.negotiated = 1;	/* a confirmation found late */
	sim_tele(t);
	/* fills cwnd, a packet a sequence number here */
	if (t->in.snd_nxt - t->in.snd_una < t->in.cwnd)
		t->in.snd_nxt = t->in.snd_una + t->in.cwnd;
	t->in.packets_out = t->in.snd_nxt - t->in.snd_una;
	gsk_in(g, &t->in);
#ifdef GLUE_HPCC
	bad |= gsk_call(r, g, GLUE_UPDATE, acked, 0, NULL);
#else
	bad |= gsk_call(r, g, GLUE_IN_ACK_EVENT, chance(20), 0, NULL);
	bad |= gsk_call(r, g, GLUE_CONG_CONTROL, acked, chance(1), NULL);
#endif
	return bad;
}

/* a state change as tcp_set_ca_state() makes it: the call, then the state */
static int sim_state(struct tcpsim *t, struct glue_run *r, struct gsk *g,
		     __u8 st)
{
	int bad;

	gsk_in(g, &t->in);
	bad = gsk_call(r, g, GLUE_SET_STATE, st, 0, NULL);
	t->in.ca_state = st;
	return bad;
}

/* a reduction: ssthresh() into snd_ssthresh, prior_cwnd kept */
static int sim_reduce(struct tcpsim *t, struct glue_run *r, struct gsk *g)
{
	__u32 v;
	int bad;

	t->in.prior_cwnd = fl[ref]->io(g->h[ref])->cwnd;
	gsk_in(g, &t->in);
	bad = gsk_call(r, g, GLUE_SSTHRESH, 0, 0, &v);
	t->in.ssthresh = v;
	return bad;
}

static int sim_event(struct tcpsim *t, struct glue_run *r, struct gsk *g)
{
	struct dcc_sim_io *m = fl[ref]->io(g->h[ref]);
	__u32 v;
	int bad = 0;

	switch (rnd_in(0, 9)) {
	case 0:	/* fast recovery */
		if (t->in.ca_state >= 3)
			break;
		bad |= sim_reduce(t, r, g);
		bad |= sim_state(t, r, g, 3);
		break;
	case 1:	/* an RTO: CA_EVENT_LOSS, ssthresh, the loss state, cwnd 1 */
		gsk_in(g, &t->in);
		bad |= gsk_call(r, g, GLUE_CWND_EVENT, 3, 0, NULL);
		bad |= sim_reduce(t, r, g);
		bad |= sim_state(t, r, g, 4);
		t->in.cwnd = 1;
		gsk_in(g, &t->in);
		break;
	case 2:	/* recovery or loss ends */
	case 3:
		if (t->in.ca_state < 2)
			break;
		bad |= sim_state(t, r, g, 0);
		break;
	case 4:	/* a spurious loss: undo */
		if (t->in.ca_state < 3)
			break;
		gsk_in(g, &t->in);
		bad |= gsk_call(r, g, GLUE_UNDO_CWND, 0, 0, &v);
		t->in.cwnd = v;
		bad |= sim_state(t, r, g, 0);
		break;
	case 5:	/* CWR (an ECE, local congestion) and out of it */
		if (t->in.ca_state)
			break;
		bad |= sim_reduce(t, r, g);
		bad |= sim_state(t, r, g, 2);
		break;
	case 6:	/* TCP's other events: the receiver's CE changes among them */
		if (ref)
			glue_ack_pending = rnd_in(0, 1) * GLUE_ACK_TIMER |
					   rnd_in(0, 1) * GLUE_ACK_NOW;
		gsk_in(g, &t->in);
		bad |= gsk_call(r, g, GLUE_CWND_EVENT, rnd_in(0, 5), 0, NULL);
		break;
	case 7:	/* disorder */
		if (t->in.ca_state)
			break;
		bad |= sim_state(t, r, g, 1);
		break;
	case 8:	/* all acked, idle for up to 20 RTTs, a write: hpcc's probe */
		if (t->in.ca_state)
			break;
		t->in.snd_una = t->in.snd_nxt;
		t->in.packets_out = 0;
		t->in.now_ns += (__u64)rnd_in(1, 20 * t->rtt_us) * 1000;
		gsk_in(g, &t->in);
		bad |= gsk_call(r, g, GLUE_CWND_EVENT, 0, 0, NULL);
		break;
	default:
		break;
	}
	(void)m;
	return bad;
}

static void random_run(unsigned long seed, struct glue_run *r)
{
#ifdef GLUE_HPCC
	struct dcc_sim_hpcc_cfg c;
#else
	struct dcc_sim_ldcp_cfg c;
#endif
	struct tcpsim t;
	struct gsk g;
	int i, n;

	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	rnd_cfg(&c);
	sim_start(&t);
	gsk_new(&g, &c);
	gsk_in(&g, &t.in);
	gsk_call(r, &g, GLUE_INIT, 0, 0, NULL);
	n = rnd_in(50, 3000);
	for (i = 0; i < n && !r->differ; i++) {
		if (chance(3))
			sim_event(&t, r, &g);
		else
			sim_ack(&t, r, &g);
	}
	gsk_ctr_differ(r, &g, 1);
	gsk_free(&g);
}

/* @runs random runs from @seed0; the number that differ */
static unsigned long random_runs(unsigned long seed0, unsigned long runs,
				 unsigned long *calls, char *first, size_t len)
{
	unsigned long seed, failed = 0;
	char what[64];

	memset(ctr_sum, 0, sizeof(ctr_sum));
	for (seed = seed0; seed < seed0 + runs; seed++) {
		struct glue_run rr = { .what = what };

		snprintf(what, sizeof(what), "random run %lu", seed);
		random_run(seed, &rr);
		*calls += rr.calls;
		if (rr.differ && !failed++)
			snprintf(first, len, "%s", rr.first);
	}
	return failed;
}

static void ctr_diag(void)
{
	char buf[1024];
	int i, n = 0;

	for (i = 0; i < GLUE_NCTR && n < (int)sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s %llu",
			      ctr_name(i), (unsigned long long)ctr_sum[i]);
	tap_diag("%s's counters over them:%s", fl[ref]->name, buf);
}

int main(int argc, char **argv)
{
	unsigned long runs = argc > 1 ? strtoul(argv[1], NULL, 0) : GLUE_RUNS;
	unsigned long calls = 0, failed, rec_differ = 0;
	struct glue_run r = { .what = "the trace" };
	char first[600] = "";

	tap_plan(4);
	replay(GLUE_DATA "/ackcost-" GLUE_CC ".trace", &r, &rec_differ);
	tap_diag("trace: %lu calls, %lu recorded outputs differ", r.calls, rec_differ);
	if (!tap_ok(r.differ == 0 && r.calls > 1000,
		    "the recorded trace: model, module and BPF glue agree on every call"))
		tap_diag("%lu calls differ; first: %s", r.differ, r.first);
	tap_ok(rec_differ == 0, "... and the model replays its recording");

	failed = random_runs(1, runs, &calls, first, sizeof(first));
	tap_diag("%lu random runs, %lu calls", runs, calls);
	ctr_diag();
	if (!tap_ok(failed == 0 && calls > runs * 50,
		    "random runs: the three flavours agree on every call and counter"))
		tap_diag("%lu runs differ; first: %s", failed, first);

	/* the receiver's delayed-ACK states: module and BPF */
	ref = 1;
	calls = 0;
	failed = random_runs(100001, runs, &calls, first, sizeof(first));
	tap_diag("%lu random runs with icsk_ack.pending at random, %lu calls", runs, calls);
	ctr_diag();
	if (!tap_ok(failed == 0 && calls > runs * 50,
		    "... and with any delayed-ACK state, the module's and BPF glue agree"))
		tap_diag("%lu runs differ; first: %s", failed, first);
	return tap_failed ? 1 : 0;
}
