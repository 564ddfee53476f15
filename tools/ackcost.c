// SPDX-License-Identifier: GPL-2.0
/*
 * ackcost: replays a recording of the ns-3 model's calls into a shared
 * controller (sim/dcc_acktrace.h; selftests/data/ackcost-*.trace) through
 * the same controller, compiled as the model compiles it (sim/hpcc_glue.c,
 * sim/ldcp_glue.c), or through DCTCP's sender-side per-ACK work
 * (tools/ackcost_dctcp.h) on the same ACKs, so that valgrind's callgrind
 * can count the instructions of each per ACK
 * (selftests/bench/ackcost_sim.sh, make bench-ackcost-sim):
 *
 *   ackcost TRACE ctl      the controller the trace was recorded from:
 *                          hpcc's cong_control (dcc_sim_hpcc_update()),
 *                          ldcp's in_ack_event and cong_control
 *                          (dcc_sim_ldcp_in_ack_event(),
 *                          dcc_sim_ldcp_cong_control())
 *   ackcost TRACE dctcp    dctcp_update_alpha() (in_ack_event) and, where
 *                          TCP calls it, tcp_reno_cong_avoid()
 *
 * Only the senders' calls are replayed: a socket is a sender when one
 * of its ACKs acknowledged data (the model's receivers call the
 * controller too, on the segments they receive, which Linux does not).
 * Each call gets the recorded TCP state; the controller's own state is
 * its own, from its first call on.  In ctl mode each call's cwnd,
 * ssthresh and pacing rate are compared with what the model recorded:
 * the replay is the recorded run or ackcost fails.  It prints the ACKs
 * replayed and the calls of each function counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "ackcost_dctcp.h"
#include "dcc_acktrace.h"
#include "dcc_sim.h"

enum { CC_HPCC, CC_LDCP };

/* a line's words */
#define SEP	"\n\t "

struct sk {
	void			*h;	/* the controller's socket (ctl) */
	struct tcp_sock		tp;	/* DCTCP's (dctcp) */
	struct dcc_sim_io	in;	/* the recorded inputs */
	__u64			pacing;	/* the recorded rate */
	int			sender, ece;
};

struct ackcost {
	int		cc, dctcp;
	struct sk	*sk;
	unsigned int	nsk;
	unsigned long	acks, calls, differ, lines;
	unsigned long	ce_acks, cong_avoid;
};

static void die(const char *what, unsigned long line)
{
	fprintf(stderr, "ackcost: line %lu: %s\n", line, what);
	exit(1);
}

static struct sk *sk_of(struct ackcost *ac, unsigned long id)
{
	if (id >= ac->nsk) {
		struct sk *s = realloc(ac->sk, (id + 1) * sizeof(*s));

		if (!s)
			die("out of memory", ac->lines);
		memset(&s[ac->nsk], 0, (id + 1 - ac->nsk) * sizeof(*s));
		ac->sk = s;
		ac->nsk = id + 1;
	}
	return &ac->sk[id];
}

static struct dcc_sim_io *io_of(struct ackcost *ac, struct sk *s)
{
	return ac->cc == CC_HPCC ? dcc_sim_hpcc_io(s->h) : dcc_sim_ldcp_io(s->h);
}

/* KEY=VAL into @io: an input field, or with @out an output */
static void parse_kv(struct ackcost *ac, char *tok, struct dcc_sim_io *io,
		     __u64 *pacing)
{
	char *eq = strchr(tok, '='), *end;
	unsigned long long v;
	unsigned int i;

	if (!eq)
		die("KEY=VAL expected", ac->lines);
	*eq = 0;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (errno || *end)
		die("a bad value", ac->lines);
	if (pacing && !strcmp(tok, DCC_AT_OUT_PACING)) {
		*pacing = v;
		return;
	}
	for (i = 0; i < DCC_AT_NFIELDS; i++) {
		if (!strcmp(tok, dcc_acktrace_fields[i].key)) {
			dcc_acktrace_set(io, &dcc_acktrace_fields[i], v);
			return;
		}
	}
	die("an unknown key", ac->lines);
}

static void new_ctl(struct ackcost *ac, struct sk *s, char *args)
{
	struct dcc_sim_hpcc_cfg hc;
	struct dcc_sim_ldcp_cfg lc;
	__u32 v[32], n = 0, want;
	char *tok;

	for (tok = strtok(args, SEP); tok && n < 32; tok = strtok(NULL, SEP))
		v[n++] = (__u32)strtoul(tok, NULL, 10);
	want = ac->cc == CC_HPCC ? sizeof(hc) : sizeof(lc);
	if (n * sizeof(__u32) != want)
		die("cfg: the wrong number of values", ac->lines);
	if (ac->cc == CC_HPCC) {
		memcpy(&hc, v, sizeof(hc));
		s->h = dcc_sim_hpcc_new(&hc);
	} else {
		memcpy(&lc, v, sizeof(lc));
		s->h = dcc_sim_ldcp_new(&lc);
	}
}

/* TCP's state of the ACK for DCTCP: the recorded socket's */
static void dctcp_in(struct sk *s, int acked)
{
	struct tcp_sock *tp = &s->tp;

	tp->snd_cwnd = s->in.cwnd;
	tp->snd_ssthresh = s->in.ssthresh;
	tp->snd_cwnd_clamp = s->in.clamp;
	tp->snd_una = s->in.snd_una;
	tp->snd_nxt = s->in.snd_nxt;
	tp->rcv_nxt = s->in.rcv_nxt;
	tp->ca_state = s->in.ca_state;
	/* tcp_count_delivered(): the ACK's packets, CE-marked if it had ECE */
	if (s->ece && acked > 0)
		tp->delivered_ce += acked;
	tp->delivered = s->in.delivered;
	/* tcp_cwnd_validate(): it sent as much as cwnd let it */
	tp->max_packets_out = s->in.packets_out + (acked > 0 ? acked : 0);
	tp->is_cwnd_limited = tp->max_packets_out >= tp->snd_cwnd;
}

/* One ACK through DCTCP: tcp_in_ack_event(), then tcp_cong_control() */
static void dctcp_ack(struct ackcost *ac, struct sk *s, int acked)
{
	struct tcp_sock *tp = &s->tp;

	dctcp_in(s, acked);
	dctcp_update_alpha(tp, 0);
	ac->calls++;
	if (s->ece)
		ac->ce_acks++;
	/* tcp_in_cwnd_reduction(): CWR or Recovery; tcp_may_raise_cwnd() */
	if (tp->ca_state != 2 && tp->ca_state != ACKCOST_CA_RECOVERY &&
	    acked > 0) {
		tcp_reno_cong_avoid(tp, tp->snd_una, (u32)acked);
		ac->calls++;
		ac->cong_avoid++;
	}
	ac->acks++;
}

static void dctcp_call(struct ackcost *ac, struct sk *s, const char *op, int a)
{
	if (!strcmp(op, "init")) {
		dctcp_in(s, 0);
		dctcp_init(&s->tp);
	} else if (!strcmp(op, "update") || !strcmp(op, "cong_control")) {
		dctcp_ack(ac, s, a);
		s->ece = 0;
	} else if (!strcmp(op, "in_ack_event")) {
		s->ece = a;
	} else if (!strcmp(op, "set_state")) {
		dctcp_in(s, 0);
		dctcp_state(&s->tp, (u8)a);
	} else if (!strcmp(op, "cwnd_event")) {
		dctcp_in(s, 0);
		dctcp_cwnd_event(&s->tp, a);
	} else if (!strcmp(op, "ssthresh")) {
		dctcp_in(s, 0);
		dctcp_ssthresh(&s->tp);
	}
}

/* The recorded inputs onto the controller's socket, then the call. */
static void ctl_call(struct ackcost *ac, struct sk *s, const char *op, int a,
		     int b, const struct dcc_sim_io *want, __u64 pacing)
{
	struct dcc_sim_io *io = io_of(ac, s);
	int hpcc = ac->cc == CC_HPCC;
	unsigned int i;

	for (i = 0; i < DCC_AT_NFIELDS; i++)
		dcc_acktrace_set(io, &dcc_acktrace_fields[i],
				 dcc_acktrace_get(&s->in, &dcc_acktrace_fields[i]));
	if (!strcmp(op, "init")) {
		hpcc ? dcc_sim_hpcc_init(s->h) : dcc_sim_ldcp_init(s->h);
	} else if (hpcc && !strcmp(op, "update")) {
		dcc_sim_hpcc_update(s->h, a);
		ac->calls++;
		ac->acks++;
	} else if (!hpcc && !strcmp(op, "in_ack_event")) {
		dcc_sim_ldcp_in_ack_event(s->h, a);
		ac->calls++;
		if (a)
			ac->ce_acks++;
	} else if (!hpcc && !strcmp(op, "cong_control")) {
		dcc_sim_ldcp_cong_control(s->h, a, b);
		ac->calls++;
		ac->acks++;
	} else if (!strcmp(op, "set_state")) {
		hpcc ? dcc_sim_hpcc_set_state(s->h, (__u8)a) :
		       dcc_sim_ldcp_set_state(s->h, (__u8)a);
	} else if (!strcmp(op, "cwnd_event")) {
		hpcc ? dcc_sim_hpcc_cwnd_event(s->h, a) :
		       dcc_sim_ldcp_cwnd_event(s->h, a);
	} else if (!strcmp(op, "ssthresh")) {
		hpcc ? dcc_sim_hpcc_ssthresh(s->h) : dcc_sim_ldcp_ssthresh(s->h);
	} else {
		die("an unknown call", ac->lines);
	}
	if (io->cwnd != want->cwnd || io->ssthresh != want->ssthresh ||
	    io->pacing != pacing) {
		if (ac->differ < 5)
			fprintf(stderr,
				"ackcost: line %lu: %s: cwnd %u ssthresh %u pacing %llu, recorded %u %u %llu\n",
				ac->lines, op, io->cwnd, io->ssthresh,
				(unsigned long long)io->pacing, want->cwnd,
				want->ssthresh, (unsigned long long)pacing);
		ac->differ++;
	}
}

/* ID OP A B KEY=VAL ... | KEY=VAL ... */
static void call_line(struct ackcost *ac, struct sk *s, char *rest)
{
	char *op = strtok(rest, SEP), *ta = strtok(NULL, SEP);
	char *tb = strtok(NULL, SEP), *tok;
	struct dcc_sim_io want;
	int a, b, out = 0;
	__u64 pacing;

	if (!op || !ta || !tb)
		die("ID OP A B expected", ac->lines);
	a = atoi(ta);
	b = atoi(tb);
	while ((tok = strtok(NULL, SEP))) {
		if (!strcmp(tok, "|")) {
			out = 1;
			want = s->in;
			pacing = s->pacing;
			continue;
		}
		if (out)
			parse_kv(ac, tok, &want, &pacing);
		else
			parse_kv(ac, tok, &s->in, NULL);
	}
	if (!out)
		die("no '|'", ac->lines);
	s->pacing = pacing;
	if (!s->sender)
		return;
	if (ac->dctcp)
		dctcp_call(ac, s, op, a);
	else
		ctl_call(ac, s, op, a, b, &want, pacing);
}

/* A first pass: which sockets are senders (an ACK of data). */
static void find_senders(struct ackcost *ac, FILE *f)
{
	char line[4096], op[32];
	unsigned long id;
	int a;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lu %31s %d", &id, op, &a) == 3 && a > 0 &&
		    (!strcmp(op, "update") || !strcmp(op, "cong_control")))
			sk_of(ac, id)->sender = 1;
	}
	rewind(f);
}

int main(int argc, char **argv)
{
	struct ackcost ac = { 0 };
	char line[4096], *rest;
	unsigned long id;
	struct sk *s;
	FILE *f;

	if (argc != 3 || (strcmp(argv[2], "ctl") && strcmp(argv[2], "dctcp"))) {
		fprintf(stderr, "usage: ackcost TRACE ctl|dctcp\n");
		return 2;
	}
	ac.dctcp = !strcmp(argv[2], "dctcp");
	f = fopen(argv[1], "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		fprintf(stderr, "ackcost: cannot read %s\n", argv[1]);
		return 1;
	}
	if (strstr(line, " cc=hpcc"))
		ac.cc = CC_HPCC;
	else if (strstr(line, " cc=ldcp"))
		ac.cc = CC_LDCP;
	else
		die("not a trace of hpcc or ldcp", 1);
	find_senders(&ac, f);
	while (fgets(line, sizeof(line), f)) {
		ac.lines++;
		if (line[0] == '#')
			continue;
		id = strtoul(line, &rest, 10);
		if (rest == line || *rest != ' ')
			die("ID expected", ac.lines);
		s = sk_of(&ac, id);
		rest++;
		if (!strncmp(rest, "cfg ", 4)) {
			if (s->sender && !ac.dctcp)
				new_ctl(&ac, s, rest + 4);
			continue;
		}
		if (s->sender && !ac.dctcp && !s->h)
			die("a call before the socket's cfg", ac.lines);
		call_line(&ac, s, rest);
	}
	fclose(f);
	printf("ackcost: %s %s: %lu ACKs (%lu with ECE), %lu per-ACK calls%s",
	       ac.cc == CC_HPCC ? "hpcc" : "ldcp", ac.dctcp ? "dctcp" : "ctl",
	       ac.acks, ac.ce_acks, ac.calls, ac.dctcp ? "" : "\n");
	if (ac.dctcp)
		printf(" (%lu cong_avoid)\n", ac.cong_avoid);
	if (ac.differ) {
		fprintf(stderr, "ackcost: %lu calls differ from the recording\n",
			ac.differ);
		return 1;
	}
	return 0;
}
