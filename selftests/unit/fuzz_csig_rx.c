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
 * exactly its format's bytes; and a scan's flags agree with a second,
 * independent walk of the same list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csig_opt.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* TCP's own parser, tcp_parse_options(), as a reference for the scan */
static int ref_scan(const __u8 *p, int len, __u32 *tsval)
{
	int r = 0;

	while (len > 0) {
		int kind = *p++, size;

		if (kind == 0)
			break;
		if (kind == 1) {
			len--;
			continue;
		}
		if (len < 2)
			return r | CSIG_SCAN_BROKEN;
		size = *p++;
		if (size < 2 || size > len)
			return r | CSIG_SCAN_BROKEN;
		if (kind == 8 && size == 10 && !(r & CSIG_SCAN_TS)) {
			*tsval = ((__u32)p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
			r |= CSIG_SCAN_TS;
		}
		if (kind == 19 || kind == 29)
			r |= CSIG_SCAN_SIGNED;
		p += size - 2;
		len -= size;
	}
	return r;
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
