// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for include/csig.h (make fuzz; make check runs a short
 * pass).
 *
 * Input: bytes read as a tag (compact or expanded, by the first byte), a
 * value and a quantisation table.  Checked: unpacking any bytes never
 * faults, packing what was unpacked gives the same bits back, encoding any
 * value under any valid table lands in range and inside its bucket, and
 * compare-and-replace never moves a tag away from its aggregation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csig.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csig_quant q = CSIG_DEFAULT_QUANT_INIT;
	struct csig_fields f;
	__u32 v, s, t, lo, hi, local, next;
	__u16 w16;
	__u32 w32;

	if (size < 11)
		return 0;
	memcpy(&w16, data + 1, 2);
	memcpy(&w32, data + 3, 4);
	memcpy(&v, data + 7, 4);

	if (data[0] & 1) {
		csig_expanded_unpack(w16, w32, &f);
		CHECK(csig_expanded_pack_tsr(&f) == w32 && f.lm == w16);
	} else {
		csig_compact_unpack(w16, &f);
		CHECK(csig_compact_pack(&f) == w16);
	}
	CHECK(f.s <= csig_s_max(f.format));

	/* a table from the remaining bytes, used only when valid */
	if (size >= 11 + sizeof(q.bound[0]) + 4) {
		t = f.type & 7;
		memcpy(q.bound[t], data + 11, sizeof(q.bound[0]));
		memcpy(&q.quantum[t], data + 11 + sizeof(q.bound[0]), 4);
		if (!csig_quant_valid(&q))
			return 0;
	}
	if (!csig_type_known(f.type))
		return 0;

	t = f.type;
	s = csig_encode(&q, f.format, t, v);
	CHECK(s <= csig_s_max(f.format));
	if (f.format == CSIG_FMT_COMPACT) {
		lo = csig_compact_lo(q.bound[t], s);
		hi = csig_compact_hi(q.bound[t], s);
	} else {
		lo = csig_expanded_lo(q.quantum[t], s);
		hi = csig_expanded_hi(q.quantum[t], s);
	}
	CHECK(lo <= v && v <= hi);
	CHECK(csig_decode(&q, f.format, t, s) ==
	      (csig_type_is_min(t) ? lo : hi));

	/* compare-and-replace only moves toward the aggregation */
	local = s;
	next = csig_should_replace(t, f.s, local) ? local : f.s;
	if (csig_type_is_min(t))
		CHECK(next <= f.s && next <= local);
	else
		CHECK(next >= f.s && next >= local);
	return 0;
}
