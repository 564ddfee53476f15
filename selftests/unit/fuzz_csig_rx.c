// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the walks tcp_csig_opt makes over what arrives,
 * from the shared headers it includes: the tag of a received frame
 * (csig_tag_rx(), include/csig.h) and TCP's own option list
 * (csig_tcpopt_scan(), include/csig_opt.h).
 *
 * Input: the first byte picks the format and which walk; the rest is the
 * frame's bytes after the TPID, or a TCP option list.  Checked: neither
 * reads outside its bytes (exact-size copies under ASan); a tag accepted
 * carries an EtherType, not a length or another tag, and takes out
 * exactly its format's bytes; and a scan's flags and TSval agree with
 * TCP's own walk of the same list, transcribed from tcp_parse_options().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csig_opt.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/*
 * The reference for the scan: the walk of TCP's own parser,
 * tcp_parse_options() (net/ipv4/tcp_input.c), transcribed from the kernel
 * and not from the scan, with what the scan reports taken where TCP takes
 * it: rcv_tsval from every timestamp option of TCPOLEN_TIMESTAMP bytes,
 * each one overwriting the last; a signature from any TCP-MD5 or TCP-AO
 * option the walk reaches (TCP checks those before, and the scan only
 * needs to know one is there); and, as broken, each of TCP's returns on
 * a malformed option.
 */
struct ref_opt_rx {
	int saw_tstamp;
	__u32 rcv_tsval;
	int saw_sig;
	int broken;
};

static void ref_parse_options(const unsigned char *ptr, int length,
			      struct ref_opt_rx *opt_rx)
{
	opt_rx->saw_tstamp = 0;

	while (length > 0) {
		int opcode = *ptr++;
		int opsize;

		switch (opcode) {
		case 0:		/* TCPOPT_EOL */
			return;
		case 1:		/* TCPOPT_NOP */
			length--;
			continue;
		default:
			if (length < 2) {
				opt_rx->broken = 1;
				return;
			}
			opsize = *ptr++;
			if (opsize < 2) {	/* "silly options" */
				opt_rx->broken = 1;
				return;
			}
			if (opsize > length) {	/* partial options */
				opt_rx->broken = 1;
				return;
			}
			switch (opcode) {
			case 8:		/* TCPOPT_TIMESTAMP */
				if (opsize == 10) {	/* TCPOLEN_TIMESTAMP */
					opt_rx->saw_tstamp = 1;
					opt_rx->rcv_tsval = (__u32)ptr[0] << 24 |
							    (__u32)ptr[1] << 16 |
							    (__u32)ptr[2] << 8 |
							    ptr[3];
				}
				break;
			case 19:	/* TCPOPT_MD5SIG */
			case 29:	/* TCPOPT_AO */
				opt_rx->saw_sig = 1;
				break;
			}
			ptr += opsize - 2;
			length -= opsize;
		}
	}
}

static int ref_scan(const __u8 *p, int len, __u32 *tsval)
{
	struct ref_opt_rx rx = { 0 };

	ref_parse_options(p, len, &rx);
	if (rx.saw_tstamp)
		*tsval = rx.rcv_tsval;
	return (rx.saw_tstamp ? CSIG_SCAN_TS : 0) |
	       (rx.saw_sig ? CSIG_SCAN_SIGNED : 0) |
	       (rx.broken ? CSIG_SCAN_BROKEN : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csig_fields f;
	__u32 ts1 = 0, ts2 = 0;
	__u16 in;
	__u8 *buf;
	int n, r1, r2;

	if (size < 1)
		return 0;
	n = size - 1;
	buf = malloc(n ? n : 1);
	memcpy(buf, data + 1, n);
	if (data[0] & 1) {
		__u32 fmt = (data[0] >> 1) & 1;

		r1 = csig_tag_rx(buf, n, fmt, CSIG_TPID_COMPACT, CSIG_TPID_EXPANDED,
				 &f, &in);
		if (r1 >= 0) {
			CHECK(r1 == (fmt ? CSIG_EXPANDED_LEN : CSIG_COMPACT_LEN));
			CHECK(r1 <= n);
			CHECK(in >= 0x0600 && in != CSIG_TPID_COMPACT &&
			      in != CSIG_TPID_EXPANDED);
			CHECK(f.format == fmt && f.s <= csig_s_max(fmt));
		}
	} else {
		if (n > 40)
			n = 40;		/* TCP's option space */
		r1 = csig_tcpopt_scan(buf, n, &ts1);
		r2 = ref_scan(buf, n, &ts2);
		CHECK(r1 == r2);
		CHECK(!(r1 & CSIG_SCAN_TS) || ts1 == ts2);
	}
	free(buf);
	return 0;
}
