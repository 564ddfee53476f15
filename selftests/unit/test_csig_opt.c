// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/csig_opt.h, the CSIG reflection option: its bytes
 * on the wire, round trips of every type in both formats, how much fits in
 * the room TCP leaves, and every malformed option and option list; and of
 * the scan of a TCP option list that tcp_csig_opt's hooks make for PAWS
 * and for signed segments (csig_tcpopt_scan()).
 */
#include <stdlib.h>
#include <string.h>
#include "csig_opt.h"
#include "tap.h"

static const __u8 syn[] = { 253, 4, 0xc5, 0x16 };

static struct csig_sample mk(int f, int t, __u32 s, __u16 lm, int fresh)
{
	struct csig_sample sm = { .format = f, .type = t, .s = s, .lm = lm,
				  .fresh = fresh };
	return sm;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Option lists for csig_tcpopt_scan(); a timestamp option is kind 8,
 * length 10, TSval, TSecr (0 here).
 */
struct scan_case {
	const char *what;
	__u8 opts[CSIG_TCPOPT_SPACE];
	int len;
	int flags;
	__u32 tsval;
};

static const struct scan_case scan_cases[] = {
	{ "two timestamps: the last TSval, as TCP takes it",
	  { 1, 1, 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    1, 1, 8, 10, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0 }, 24,
	  CSIG_SCAN_TS, 0x0a0b0c0d },
	{ "two timestamps back to back, unaligned: the last",
	  { 1, 8, 10, 0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0,
	    8, 10, 0x22, 0x22, 0x22, 0x22, 0, 0, 0, 0 }, 21,
	  CSIG_SCAN_TS, 0x22222222 },
	{ "four timestamps filling the 40 bytes: the fourth",
	  { 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
	    8, 10, 0, 0, 0, 2, 0, 0, 0, 0,
	    8, 10, 0, 0, 0, 3, 0, 0, 0, 0,
	    8, 10, 0, 0, 0, 4, 0, 0, 0, 0 }, 40,
	  CSIG_SCAN_TS, 4 },
	{ "a second timestamp of 9 bytes does not replace the first",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    8, 9, 5, 5, 5, 5, 5, 5, 5 }, 19,
	  CSIG_SCAN_TS, 0x01020304 },
	{ "a second timestamp after the end-of-list option is not read",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    0,
	    8, 10, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0 }, 21,
	  CSIG_SCAN_TS, 0x01020304 },
	{ "a second timestamp after an option of length 0 is not read",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    30, 0,
	    8, 10, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0 }, 22,
	  CSIG_SCAN_TS | CSIG_SCAN_BROKEN, 0x01020304 },
	{ "a second timestamp after an option of length 1 is not read",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    30, 1,
	    8, 10, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0 }, 22,
	  CSIG_SCAN_TS | CSIG_SCAN_BROKEN, 0x01020304 },
	{ "a second timestamp running past the list is not read",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    8, 10, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0 }, 19,
	  CSIG_SCAN_TS | CSIG_SCAN_BROKEN, 0x01020304 },
	{ "a kind in the last byte, with no length: broken, the TSval kept",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    8 }, 11,
	  CSIG_SCAN_TS | CSIG_SCAN_BROKEN, 0x01020304 },
	{ "a no-op in the last byte: not broken",
	  { 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
	    1 }, 11,
	  CSIG_SCAN_TS, 0x01020304 },
	{ "thirty no-ops, one byte each, then a timestamp",
	  { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    8, 10, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0 }, 40,
	  CSIG_SCAN_TS, 0x55667788 },
	{ "a timestamp's bytes inside another option are not one",
	  { 30, 12, 8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0 }, 12,
	  0, 0 },
	{ "a 10-byte option of another kind is no timestamp",
	  { 5, 10, 1, 2, 3, 4, 5, 6, 7, 8 }, 10,
	  0, 0 },
	{ "an option of length 2 is stepped over",
	  { 30, 2,
	    8, 10, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0 }, 12,
	  CSIG_SCAN_TS, 0x01020304 },
	{ "a signature between two timestamps: signed, the last TSval",
	  { 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
	    29, 4, 0, 0,
	    8, 10, 0, 0, 0, 2, 0, 0, 0, 0 }, 24,
	  CSIG_SCAN_TS | CSIG_SCAN_SIGNED, 2 },
	{ "a signature after a broken option is not seen",
	  { 30, 0, 19, 18 }, 4,
	  CSIG_SCAN_BROKEN, 0 },
	{ "a signature after the end-of-list option is not seen",
	  { 0, 29, 4, 0, 0 }, 5,
	  0, 0 },
	{ "no options", { 0 }, 0, 0, 0 },
};

int main(void)
{
	struct csig_sample sm[8], got[CSIG_OPT_MAX_SAMPLES];
	__u8 b[64], list[40];
	int i, n, f, t, ok, r;

	tap_plan(42 + ARRAY_SIZE(scan_cases));

	/* the handshake option */
	tap_ok(csig_opt_put_syn(b, 4) == 4 && !memcmp(b, syn, 4),
	       "handshake option: kind 253, length 4, ExID 0xC516");
	tap_eq_i64(csig_opt_put_syn(b, 3), 0, "handshake option needs 4 bytes of room");
	tap_eq_i64(csig_opt_parse(syn, 4, got), 0, "handshake option parses to no sample");

	/* a sample's bytes, by the layout in the header */
	sm[0] = mk(CSIG_FMT_EXPANDED, CSIG_T_U, 0xabcde, 0x1234, 1);
	n = csig_opt_put(b, 40, sm, 1);
	{
		const __u8 want[] = { 253, 10, 0xc5, 0x16,
				      0x80 | (7 << 3) | 0x04, 0x0a, 0xbc, 0xde,
				      0x12, 0x34 };

		tap_ok(n == 10 && !memcmp(b, want, 10),
		       "expanded U sample: F=1 T=7 N=1, S in 24 bits, LM in 16");
	}
	sm[0] = mk(CSIG_FMT_COMPACT, CSIG_T_ABW, 31, 0x7f, 0);
	n = csig_opt_put(b, 40, sm, 1);
	tap_ok(n == 10 && b[4] == 0 && b[7] == 31 && b[9] == 0x7f,
	       "compact ABW sample: F=0 T=0 N=0");

	/* round trips: every type, both formats, edge values */
	ok = 1;
	for (f = 0; f < 2; f++) {
		for (t = 0; t < (f ? 16 : 8); t++) {
			__u32 smax = csig_s_max(f);
			__u16 lmax = f ? 0xffff : 0x7f;

			sm[0] = mk(f, t, 0, 0, 0);
			sm[1] = mk(f, t ^ 1, smax, lmax, 1);
			n = csig_opt_put(b, 40, sm, 2);
			if (n != 16 || csig_opt_parse(b, n, got) != 2 ||
			    memcmp(got, sm, 2 * sizeof(sm[0])))
				ok = 0;
		}
	}
	tap_ok(ok, "every type of both formats round-trips, S and LM at 0 and at their maximum");

	/* room: as many samples as fit, never more */
	for (i = 0; i < 8; i++)
		sm[i] = mk(CSIG_FMT_EXPANDED, i, i * 1000, i, 1);
	tap_eq_i64(csig_opt_put(b, 40, sm, 8), 40, "40 bytes of room take six samples");
	tap_eq_i64(csig_opt_put(b, 28, sm, 8), 28, "28 bytes (timestamps on) take four");
	tap_eq_i64(csig_opt_put(b, 20, sm, 8), 16, "20 bytes take two (16 bytes)");
	tap_eq_i64(csig_opt_put(b, 9, sm, 8), 0, "9 bytes take none: no option");
	tap_eq_i64(csig_opt_put(b, 40, sm, 0), 0, "no sample: no data option");
	tap_ok(csig_opt_put(b, 28, sm, 8) == 28 && csig_opt_parse(b, 28, got) == 4 &&
	       got[3].type == 3, "the first samples given are the ones kept");
	sm[0] = mk(CSIG_FMT_COMPACT, 1, 32, 0, 0);
	tap_eq_i64(csig_opt_put(b, 40, sm, 1), 0, "a compact S of 32 is not written");
	sm[0] = mk(CSIG_FMT_COMPACT, 1, 3, 0x80, 0);
	tap_eq_i64(csig_opt_put(b, 40, sm, 1), 0, "a compact LM of 0x80 is not written");
	sm[0] = mk(CSIG_FMT_EXPANDED, 1, 0x100000, 0, 0);
	tap_eq_i64(csig_opt_put(b, 40, sm, 1), 0, "an expanded S of 2^20 is not written");

	/* malformed options */
	sm[0] = mk(CSIG_FMT_EXPANDED, CSIG_T_PD, 77, 5, 0);
	sm[1] = mk(CSIG_FMT_COMPACT, CSIG_T_PD, 7, 5, 0);
	n = csig_opt_put(b, 40, sm, 2);
	tap_eq_i64(n, 16, "two samples written");
	tap_eq_i64(csig_opt_parse(b, 15, got), CSIG_OPT_E_LEN,
		   "length beyond the option list: malformed");
	b[1] = 15;
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_LEN, "length not 4 + 6n: malformed");
	b[1] = 3;
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_LEN, "length below 4: malformed");
	b[1] = 16;
	b[3] ^= 1;
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_NOT_OURS,
		   "another ExID: another experiment's option, not ours");
	b[3] ^= 1;
	b[4] |= 1;
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_RSVD, "reserved bit set: malformed");
	b[4] &= ~1;
	b[11] = 0xff;		/* second sample, compact: S byte 3 = 255 */
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_RANGE,
		   "compact S above 31: malformed");
	b[11] = 7;
	b[14] = 0x80 >> 8;
	b[15] = 0x80;
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_RANGE,
		   "compact LM above 127: malformed");
	b[15] = 5;
	memcpy(b + 10, b + 4, 6);
	tap_eq_i64(csig_opt_parse(b, 16, got), CSIG_OPT_E_DUP,
		   "one type and format twice: malformed");
	memset(b, 0, sizeof(b));
	b[0] = 253;
	b[1] = 46;
	b[2] = 0xc5;
	b[3] = 0x16;
	tap_eq_i64(csig_opt_parse(b, 46, got), CSIG_OPT_E_LEN,
		   "seven samples (more than TCP's option space): malformed");

	/* finding the option in a list */
	memset(list, 0, sizeof(list));
	list[0] = 1;
	list[1] = 1;
	list[2] = 8;		/* timestamps */
	list[3] = 10;
	sm[0] = mk(CSIG_FMT_EXPANDED, CSIG_T_U, 1000, 3, 1);
	n = csig_opt_put(list + 12, 28, sm, 1);
	tap_ok(n == 10 && csig_opt_find(list, 12 + n, got) == 1 && got[0].s == 1000,
	       "found after NOP, NOP, timestamps");
	tap_eq_i64(csig_opt_find(list, 12, got), CSIG_OPT_NOT_OURS,
		   "a list without it: not found");
	list[12 + n] = 0;
	list[12 + n + 1] = 253;		/* after end-of-list: ignored */
	tap_eq_i64(csig_opt_find(list, 40, got), 1, "end of list stops the walk");
	list[0] = 253;
	list[1] = 4;
	list[2] = 0x12;
	list[3] = 0x34;
	memmove(list + 4, list + 12, n);
	tap_eq_i64(csig_opt_find(list, 4 + n, got), 1,
		   "another experiment's kind 253 first, ours after it");
	list[1] = 0;
	tap_eq_i64(csig_opt_find(list, 4 + n, got), CSIG_OPT_E_LIST,
		   "an option of length 0: the list is broken");
	list[1] = 1;
	tap_eq_i64(csig_opt_find(list, 4 + n, got), CSIG_OPT_E_LIST,
		   "an option of length 1: the list is broken");
	list[1] = 60;
	tap_eq_i64(csig_opt_find(list, 4 + n, got), CSIG_OPT_E_LIST,
		   "an option running past the list: broken");
	list[0] = 2;
	tap_eq_i64(csig_opt_find(list, 1, got), CSIG_OPT_E_LIST,
		   "a kind without its length byte: broken");
	tap_eq_i64(csig_opt_find(list, 0, got), CSIG_OPT_NOT_OURS, "an empty list");

	/* csig_tcpopt_scan(): what the hooks read of TCP's own options */
	{
		/* NOP NOP TS(0x01020304, 0) as Linux sends it */
		static const __u8 ts[] = { 1, 1, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0 };
		static const __u8 md5[20] = { 1, 1, 19, 18 };
		static const __u8 ao[8] = { 29, 8, 1, 1 };
		__u8 l[40];
		__u32 v = 0;

		tap_ok(csig_tcpopt_scan(ts, sizeof(ts), &v) == CSIG_SCAN_TS &&
		       v == 0x01020304, "scan: the timestamp's TSval");
		tap_eq_i64(csig_tcpopt_scan(md5, sizeof(md5), &v), CSIG_SCAN_SIGNED,
			   "scan: a TCP-MD5 signature");
		tap_eq_i64(csig_tcpopt_scan(ao, sizeof(ao), &v), CSIG_SCAN_SIGNED,
			   "scan: a TCP-AO signature");
		memcpy(l, ts, sizeof(ts));
		memcpy(l + sizeof(ts), md5 + 2, 18);
		tap_eq_i64(csig_tcpopt_scan(l, sizeof(ts) + 18, &v),
			   CSIG_SCAN_TS | CSIG_SCAN_SIGNED,
			   "scan: timestamp and signature together");
		memcpy(l, ts, sizeof(ts));
		l[3] = 9;	/* a timestamp of the wrong length is no timestamp */
		tap_eq_i64(csig_tcpopt_scan(l, sizeof(ts), &v), 0,
			   "scan: a 9-byte timestamp option is not used");
		l[0] = 0;	/* end of list before the timestamp */
		l[3] = 10;
		tap_eq_i64(csig_tcpopt_scan(l, sizeof(ts), &v), 0,
			   "scan: nothing after the end-of-list option");
		memcpy(l, ts, sizeof(ts));
		l[sizeof(ts)] = 19;	/* a signature whose length runs past */
		l[sizeof(ts) + 1] = 18;
		tap_eq_i64(csig_tcpopt_scan(l, sizeof(ts) + 2, &v),
			   CSIG_SCAN_TS | CSIG_SCAN_BROKEN,
			   "scan: a broken option after the timestamp: both said");
		l[sizeof(ts) + 1] = 1;
		tap_eq_i64(csig_tcpopt_scan(l, sizeof(ts) + 2, &v),
			   CSIG_SCAN_TS | CSIG_SCAN_BROKEN,
			   "scan: an option of length 1: broken");
	}

	/*
	 * csig_tcpopt_scan() against the rules of TCP's own parser,
	 * tcp_parse_options(): every timestamp option of 10 bytes overwrites
	 * the TSval taken before it (the last one wins); the end-of-list
	 * option ends the walk; a no-op is one byte; a kind with no length
	 * byte, a length below 2 or one running past the list stops the
	 * walk, keeping what was found before it.
	 */
	for (i = 0; i < (int)ARRAY_SIZE(scan_cases); i++) {
		const struct scan_case *c = &scan_cases[i];
		/* an exact-size copy: ASan sees any read past the list */
		__u8 *o = malloc(c->len ? c->len : 1);
		__u32 v = 0xdeadbeef;

		memcpy(o, c->opts, c->len);
		r = csig_tcpopt_scan(o, c->len, &v);
		free(o);
		if (!tap_ok(r == c->flags && (!(r & CSIG_SCAN_TS) || v == c->tsval),
			    "scan: %s", c->what))
			tap_diag("got flags %d TSval 0x%08x, want flags %d TSval 0x%08x",
				 r, v, c->flags, c->tsval);
	}
	return tap_done();
}
