// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for include/csig_opt.h (make fuzz; make check runs a short
 * pass).
 *
 * Input: a TCP option list, or (first byte odd) samples behind a header of
 * ours, so that the sample parser is reached at once.  Checked: walking and parsing any bytes never
 * reads outside them; whatever parses re-encodes to the same bytes; every
 * sample parsed is representable; and a list that holds our option at the
 * front is found again by csig_opt_find().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csig_opt.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csig_sample sm[CSIG_OPT_MAX_SAMPLES], again[CSIG_OPT_MAX_SAMPLES];
	__u8 *buf, out[CSIG_OPT_MAX_LEN];
	int n, i, len;

	if (size >= 2 && (data[0] & 1)) {
		/* our header, a length of 4 + 6k (k <= 6), then the input */
		__u8 hdr[4] = { CSIG_OPT_KIND, 4 + 6 * (data[1] % 7), 0xc5, 0x16 };

		data += 2;
		size -= 2;
		if (size > 36)
			size = 36;
		buf = malloc(size + 4);
		memcpy(buf, hdr, 4);
		memcpy(buf + 4, data, size);
		size += 4;
	} else {
		if (size > 40)
			size = 40;	/* TCP's option space */
		/* an exact-size copy: ASan sees any read past the end */
		buf = malloc(size ? size : 1);
		memcpy(buf, data, size);
	}
	n = csig_opt_find(buf, size, sm);
	CHECK(n <= CSIG_OPT_MAX_SAMPLES);
	for (i = 0; i < n; i++)
		CHECK(csig_sample_valid(&sm[i]));
	if (size >= 2 && buf[0] == CSIG_OPT_KIND) {
		n = csig_opt_parse(buf, size, sm);
		if (n > 0) {
			len = csig_opt_put(out, sizeof(out), sm, n);
			CHECK(len == buf[1]);
			/* the N bit and the fields round-trip; the rest is zero */
			CHECK(!memcmp(out, buf, len));
			CHECK(csig_opt_find(out, len, again) == n);
			CHECK(!memcmp(again, sm, n * sizeof(sm[0])));
		} else if (n == 0) {
			CHECK(buf[1] == CSIG_OPT_HDR_LEN);
		}
	}
	free(buf);
	return 0;
}
