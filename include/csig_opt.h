/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CSIG reflection option for TCP (draft-ravi-ippm-csig-00 4.2.1): the
 * one header that owns its layout, for tcp_csig_opt, the tools and the
 * tests.  Like include/csig.h it depends on <linux/types.h> only and works
 * on plain byte buffers, so the same code runs in the kernel, in BPF and in
 * userspace (unit tests, fuzzing).
 *
 * The draft leaves the kind to a future allocation; until then it is an
 * experimental option with an Experiment Identifier (RFC 6994):
 *
 *	 0                   1                   2                   3
 *	+---------------+---------------+-------------------------------+
 *	|  Kind = 253   |    Length     |         ExID = 0xC516         |
 *	+---------------+---------------+-------------------------------+
 *	|                  zero to six samples, 6 bytes each  ...
 *	+---------------------------------------------------------------+
 *
 * Length is 4 + 6 * n.  With no sample (length 4) the option is the
 * handshake's: on a SYN it offers CSIG reflection, on a SYN-ACK it accepts
 * it, and on the active opener's first segments after the handshake it
 * confirms that the acceptance arrived, so that the passive end keeps no
 * state for a handshake that did not complete
 * (Documentation/tcp_csig_opt.rst).  A sample reflects one signal type,
 * the latest the receiver took out of a tag of that type:
 *
 *	 0 1 2 3 4 5 6 7
 *	+-+-------+-+-+-+-----------------------------------------------+
 *	|F|   T   |N|0 0|            S (24 bits, right-aligned)         |
 *	+-+-------+-+-+-+-------------------------------+---------------+
 *	|              LM (16 bits)                     |
 *	+-----------------------------------------------+
 *
 * F the tag's format (0 compact, 1 expanded), T its type, S and LM its
 * signal and locator exactly as the tag carried them (include/csig.h: 5 or
 * 20 bits of S, 7 or 16 bits of LM), N set when the sample arrived after
 * the previous reflection of this type (new, not a repeat).  The tag's
 * reserved bits are not reflected.  Two reserved bits must be zero.
 */
#ifndef _CSIG_OPT_H
#define _CSIG_OPT_H

#include <linux/types.h>
#include "csig.h"

#define CSIG_OPT_KIND		253	/* RFC 6994 experimental, shared */
#define CSIG_OPT_EXID		0xC516
#define CSIG_OPT_HDR_LEN	4	/* kind, length, ExID */
#define CSIG_OPT_SAMPLE_LEN	6
#define CSIG_OPT_MAX_SAMPLES	6	/* (40 - 4) / 6: TCP's whole option space */
#define CSIG_OPT_MAX_LEN	(CSIG_OPT_HDR_LEN + \
				 CSIG_OPT_MAX_SAMPLES * CSIG_OPT_SAMPLE_LEN)

#define CSIG_OPT_F_SHIFT	7
#define CSIG_OPT_T_SHIFT	3
#define CSIG_OPT_T_MASK		0xf
#define CSIG_OPT_N_BIT		0x04
#define CSIG_OPT_RSVD_MASK	0x03

/* A reflected sample, decoded. */
struct csig_sample {
	__u8	format;		/* enum csig_format */
	__u8	type;		/* enum csig_type (any 4-bit value) */
	__u8	fresh;		/* N: new since the last reflection */
	__u8	pad;
	__u16	lm;
	__u16	pad2;
	__u32	s;
};

/* Parse results (negative: malformed; the option is ignored and counted). */
enum {
	CSIG_OPT_NOT_OURS	= -1,	/* another experiment's ExID: not ours */
	CSIG_OPT_E_LEN		= -2,	/* length not 4 + 6n, or beyond the header */
	CSIG_OPT_E_RSVD		= -3,	/* reserved bits set */
	CSIG_OPT_E_RANGE	= -4,	/* S or LM wider than the format allows */
	CSIG_OPT_E_DUP		= -5,	/* one type and format twice */
	CSIG_OPT_E_LIST		= -6,	/* the TCP option list itself is broken */
};

/* The handshake option: 4 bytes, or 0 when @room is smaller. */
static inline int csig_opt_put_syn(__u8 *buf, int room)
{
	if (room < CSIG_OPT_HDR_LEN)
		return 0;
	buf[0] = CSIG_OPT_KIND;
	buf[1] = CSIG_OPT_HDR_LEN;
	buf[2] = CSIG_OPT_EXID >> 8;
	buf[3] = CSIG_OPT_EXID & 0xff;
	return CSIG_OPT_HDR_LEN;
}

/* Is @sm representable?  (S and LM within its format, type 4 bits) */
static inline int csig_sample_valid(const struct csig_sample *sm)
{
	if (sm->format > CSIG_FMT_EXPANDED || sm->type > CSIG_OPT_T_MASK)
		return 0;
	if (sm->s > csig_s_max(sm->format))
		return 0;
	if (sm->format == CSIG_FMT_COMPACT && sm->lm > CSIG_COMPACT_LM_MASK)
		return 0;
	return 1;
}

/*
 * Write an option with as many of the @n samples as fit in @room bytes
 * (TCP's remaining option space), in the order given.  Returns the bytes
 * written, 0 when not one sample fits or a sample is not representable.
 */
static inline int csig_opt_put(__u8 *buf, int room, const struct csig_sample *sm,
			       int n)
{
	unsigned int fit;
	int i;

	if (n > CSIG_OPT_MAX_SAMPLES)
		n = CSIG_OPT_MAX_SAMPLES;
	if (n <= 0 || room < CSIG_OPT_HDR_LEN + CSIG_OPT_SAMPLE_LEN)
		return 0;
	/* unsigned: BPF has no signed division */
	fit = (unsigned int)(room - CSIG_OPT_HDR_LEN) / CSIG_OPT_SAMPLE_LEN;
	if (fit > (unsigned int)n)
		fit = n;
	for (i = 0; i < (int)fit; i++)
		if (!csig_sample_valid(&sm[i]))
			return 0;
	csig_opt_put_syn(buf, CSIG_OPT_HDR_LEN);
	buf[1] = CSIG_OPT_HDR_LEN + fit * CSIG_OPT_SAMPLE_LEN;
	for (i = 0; i < (int)fit; i++) {
		__u8 *p = buf + CSIG_OPT_HDR_LEN + i * CSIG_OPT_SAMPLE_LEN;

		p[0] = (sm[i].format << CSIG_OPT_F_SHIFT) |
		       (sm[i].type << CSIG_OPT_T_SHIFT) |
		       (sm[i].fresh ? CSIG_OPT_N_BIT : 0);
		p[1] = sm[i].s >> 16;
		p[2] = sm[i].s >> 8;
		p[3] = sm[i].s;
		p[4] = sm[i].lm >> 8;
		p[5] = sm[i].lm;
	}
	return buf[1];
}

/*
 * Parse one option: @opt points at its kind byte, @avail bytes of the
 * option list remain from there.  Returns the number of samples put in
 * @out (0 for the handshake option), or a CSIG_OPT_* error.  @out must
 * hold CSIG_OPT_MAX_SAMPLES.
 */
static inline int csig_opt_parse(const __u8 *opt, int avail,
				 struct csig_sample *out)
{
	unsigned int len, n, i, j;

	if (avail < 2 || opt[0] != CSIG_OPT_KIND)
		return CSIG_OPT_E_LEN;
	len = opt[1];
	if (len < CSIG_OPT_HDR_LEN || len > (unsigned int)avail)
		return CSIG_OPT_E_LEN;
	if (((opt[2] << 8) | opt[3]) != CSIG_OPT_EXID)
		return CSIG_OPT_NOT_OURS;
	if ((len - CSIG_OPT_HDR_LEN) % CSIG_OPT_SAMPLE_LEN)
		return CSIG_OPT_E_LEN;
	n = (len - CSIG_OPT_HDR_LEN) / CSIG_OPT_SAMPLE_LEN;
#ifdef __bpf__
	/*
	 * Hide n's origin from clang: BPF's verifier does not follow the
	 * division, so the bound it needs must be tested on n itself, where
	 * clang would test the length it knows n from.
	 */
	asm volatile("" : "+r"(n));
#endif
	if (n > CSIG_OPT_MAX_SAMPLES)
		return CSIG_OPT_E_LEN;
	/*
	 * A constant bound: 6.1's verifier, given i < n on a reloaded n,
	 * walks on past n's own bound
	 */
	for (i = 0; i < CSIG_OPT_MAX_SAMPLES && i < n; i++) {
		const __u8 *p = opt + CSIG_OPT_HDR_LEN + i * CSIG_OPT_SAMPLE_LEN;

		if (p[0] & CSIG_OPT_RSVD_MASK)
			return CSIG_OPT_E_RSVD;
		out[i].format = p[0] >> CSIG_OPT_F_SHIFT;
		out[i].type = (p[0] >> CSIG_OPT_T_SHIFT) & CSIG_OPT_T_MASK;
		out[i].fresh = !!(p[0] & CSIG_OPT_N_BIT);
		out[i].pad = 0;
		out[i].s = ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
		out[i].lm = (p[4] << 8) | p[5];
		out[i].pad2 = 0;
		if (!csig_sample_valid(&out[i]))
			return CSIG_OPT_E_RANGE;
		for (j = 0; j < i; j++)
			if (out[j].type == out[i].type &&
			    out[j].format == out[i].format)
				return CSIG_OPT_E_DUP;
	}
	return n;
}

/*
 * Find our option in a TCP header's option list (@opts, @len bytes: the
 * bytes after the 20-byte fixed header).  Returns what csig_opt_parse()
 * returns for the first option of kind 253 with our ExID, CSIG_OPT_NOT_OURS
 * when there is none, CSIG_OPT_E_LIST when the list cannot be walked.
 */
static inline int csig_opt_find(const __u8 *opts, int len,
				struct csig_sample *out)
{
	int i = 0, r;

	while (i < len) {
		if (opts[i] == 0)		/* end of list */
			return CSIG_OPT_NOT_OURS;
		if (opts[i] == 1) {		/* no-op */
			i++;
			continue;
		}
		if (i + 1 >= len || opts[i + 1] < 2 || opts[i + 1] > len - i)
			return CSIG_OPT_E_LIST;
		if (opts[i] == CSIG_OPT_KIND) {
			r = csig_opt_parse(opts + i, len - i, out);
			if (r != CSIG_OPT_NOT_OURS)
				return r;
		}
		i += opts[i + 1];
	}
	return CSIG_OPT_NOT_OURS;
}

/*
 * What the hooks of tcp_csig_opt need to know of a TCP option list besides
 * their own option: the TSval TCP will use (for PAWS) and whether the
 * segment is signed, which no option may be added to.  @opts and @len as
 * for csig_opt_find(), @len at most CSIG_TCPOPT_SPACE.  Returns
 * CSIG_SCAN_* flags; *@tsval is set with CSIG_SCAN_TS.  Like TCP's own
 * parser, tcp_parse_options(), it takes the TSval of the last timestamp
 * option of 10 bytes, and stops at the end-of-list option and at a
 * malformed option (CSIG_SCAN_BROKEN), keeping what it found before.
 */
#define CSIG_TCPOPT_TS		8	/* RFC 7323 */
#define CSIG_TCPOPT_TS_LEN	10
#define CSIG_TCPOPT_MD5SIG	19	/* RFC 2385 */
#define CSIG_TCPOPT_AO		29	/* RFC 5925 */

enum {
	CSIG_SCAN_TS		= 1,
	CSIG_SCAN_SIGNED	= 2,
	CSIG_SCAN_BROKEN	= 4,
};

#define CSIG_TCPOPT_SPACE	40	/* TCP's option space, bytes */

/*
 * In BPF, csig_tcpopt_scan() reads @opts at an index the verifier sees
 * below 64, and up to 5 bytes beyond it: the caller's buffer must hold
 * CSIG_TCPOPT_BPF_BUF bytes.  The verifiers of 6.1 and 6.12 lose the
 * bound of @i that the loop tests (clang tests a copy); a mask on a value
 * clang cannot see through gives them one.  It changes nothing: @i is
 * below @len, at most CSIG_TCPOPT_SPACE.
 */
#define CSIG_TCPOPT_BPF_BUF	(64 + 8)

static inline int csig_tcpopt_idx(int i)
{
	return csig_bpf_opaque(i) & 63;
}

static inline int csig_tcpopt_scan(const __u8 *opts, int len, __u32 *tsval)
{
	int i = 0, r = 0, step;

	/*
	 * Every step moves on by a byte at least, so a list of at most
	 * CSIG_TCPOPT_SPACE bytes (any TCP header's) takes at most as many
	 * steps: a bound BPF's verifier can see, where a loop on @i alone
	 * looks endless to it.
	 */
	for (step = 0; step < CSIG_TCPOPT_SPACE && i < len; step++) {
		const __u8 *o = opts + csig_tcpopt_idx(i);

		if (o[0] == 0)			/* end of list */
			break;
		if (o[0] == 1) {		/* no-op */
			i++;
			continue;
		}
		if (i + 1 >= len || o[1] < 2 || o[1] > len - i)
			return r | CSIG_SCAN_BROKEN;
		/* each timestamp overwrites the last, as in TCP's parser */
		if (o[0] == CSIG_TCPOPT_TS && o[1] == CSIG_TCPOPT_TS_LEN) {
			*tsval = ((__u32)o[2] << 24) | ((__u32)o[3] << 16) |
				 ((__u32)o[4] << 8) | o[5];
			r |= CSIG_SCAN_TS;
		}
		if (o[0] == CSIG_TCPOPT_MD5SIG || o[0] == CSIG_TCPOPT_AO)
			r |= CSIG_SCAN_SIGNED;
		i += o[1];
	}
	return r;
}

#endif /* _CSIG_OPT_H */
