// SPDX-License-Identifier: GPL-2.0
/*
 * The writer of sim/dcc_acktrace.h's recording: DCCSIM_ACKTRACE=FILE
 * makes dccsim write every call into a shared controller, with its
 * inputs, for tools/ackcost.c to replay.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcc_acktrace.h"

struct dcc_at_sock {
	const void		*h;
	struct dcc_sim_io	last;	/* the inputs of its last call */
	__u64			pacing;	/* the rate its last call left */
};

static FILE *dcc_at_f;
static struct dcc_at_sock *dcc_at_socks;
static unsigned int dcc_at_n, dcc_at_cap;

/* each key's size is its member's (dcc_acktrace_fields[]) */
static const struct dcc_sim_io *const dcc_at_io;

static_assert(sizeof(dcc_at_io->cwnd) == 4, "cwnd");
static_assert(sizeof(dcc_at_io->ca_state) == 1, "ca_state");
static_assert(sizeof(dcc_at_io->ecn_ok) == 1, "ecn_ok");
static_assert(sizeof(dcc_at_io->now_ns) == 8, "now_ns");
static_assert(sizeof(dcc_at_io->max_pacing) == 8, "max_pacing");
static_assert(sizeof(dcc_at_io->negotiated) == 1, "negotiated");
static_assert(sizeof(dcc_at_io->have) == 4, "have");
static_assert(sizeof(dcc_at_io->sm[0].format) == 1, "sm[0].format");
static_assert(sizeof(dcc_at_io->sm[0].type) == 1, "sm[0].type");
static_assert(sizeof(dcc_at_io->sm[0].lm) == 2, "sm[0].lm");
static_assert(sizeof(dcc_at_io->sm[0].s) == 4, "sm[0].s");
static_assert(sizeof(dcc_at_io->sm[0].t_ns) == 8, "sm[0].t_ns");

int dcc_acktrace_open(const char *path, const char *header)
{
	dcc_at_f = fopen(path, "w");
	if (!dcc_at_f)
		return -1;
	fprintf(dcc_at_f, "# dccsim acktrace 1 %s\n", header);
	return 0;
}

int dcc_acktrace_on(void)
{
	return !!dcc_at_f;
}

/* The socket of handle @h, numbered at its first call; NULL: none. */
static struct dcc_at_sock *dcc_at_sock(const void *h, unsigned int *id)
{
	unsigned int i;

	for (i = 0; i < dcc_at_n; i++) {
		if (dcc_at_socks[i].h == h) {
			*id = i;
			return &dcc_at_socks[i];
		}
	}
	if (dcc_at_n == dcc_at_cap) {
		unsigned int cap = dcc_at_cap ? 2 * dcc_at_cap : 64;
		struct dcc_at_sock *s = realloc(dcc_at_socks, cap * sizeof(*s));

		if (!s)
			return NULL;
		dcc_at_socks = s;
		dcc_at_cap = cap;
	}
	memset(&dcc_at_socks[dcc_at_n], 0, sizeof(dcc_at_socks[0]));
	dcc_at_socks[dcc_at_n].h = h;
	*id = dcc_at_n++;
	return &dcc_at_socks[*id];
}

void dcc_acktrace_cfg(const void *h, const __u32 *v, unsigned int n)
{
	unsigned int id, i;

	if (!dcc_at_f || !dcc_at_sock(h, &id))
		return;
	fprintf(dcc_at_f, "%u cfg", id);
	for (i = 0; i < n; i++)
		fprintf(dcc_at_f, " %u", v[i]);
	fputc('\n', dcc_at_f);
}

void dcc_acktrace_call(const void *h, const char *op, int a, int b,
		       const struct dcc_sim_io *in,
		       const struct dcc_sim_io *out)
{
	struct dcc_at_sock *s;
	unsigned int id, i;

	if (!dcc_at_f)
		return;
	s = dcc_at_sock(h, &id);
	if (!s)
		return;
	fprintf(dcc_at_f, "%u %s %d %d", id, op, a, b);
	for (i = 0; i < DCC_AT_NFIELDS; i++) {
		const struct dcc_acktrace_field *f = &dcc_acktrace_fields[i];
		__u64 v = dcc_acktrace_get(in, f);

		if (v != dcc_acktrace_get(&s->last, f))
			fprintf(dcc_at_f, " %s=%llu", f->key,
				(unsigned long long)v);
	}
	s->last = *in;
	fputs(" |", dcc_at_f);
	if (out->cwnd != in->cwnd)
		fprintf(dcc_at_f, " " DCC_AT_OUT_CWND "=%u", out->cwnd);
	if (out->ssthresh != in->ssthresh)
		fprintf(dcc_at_f, " " DCC_AT_OUT_SSTHRESH "=%u", out->ssthresh);
	if (out->pacing != s->pacing)
		fprintf(dcc_at_f, " " DCC_AT_OUT_PACING "=%llu",
			(unsigned long long)out->pacing);
	s->pacing = out->pacing;
	fputc('\n', dcc_at_f);
}

void dcc_acktrace_close(void)
{
	if (dcc_at_f)
		fclose(dcc_at_f);
	dcc_at_f = NULL;
	free(dcc_at_socks);
	dcc_at_socks = NULL;
	dcc_at_n = 0;
	dcc_at_cap = 0;
}
