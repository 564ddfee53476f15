// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/gso_cap.h, the congestion controls' cap on
 * sk_gso_max_segs: within the device's limit, lifted to it, and a value
 * the stack wrote in between (a new route's device) kept as the new limit.
 */
#include "gso_cap.h"
#include "tap.h"

int main(void)
{
	struct gso_cap g;
	__u16 sk;

	tap_plan(12);

	/* a device of 64 segments, capped at 2, then lifted */
	sk = 64;
	gso_cap_init(&g, sk);
	sk = gso_cap_next(&g, sk, 2);
	tap_eq_u64(sk, 2, "a cap of 2 under a device's 64 gives 2");
	sk = gso_cap_next(&g, sk, 10);
	tap_eq_u64(sk, 10, "a new cap of 10 replaces it");
	sk = gso_cap_next(&g, sk, 100);
	tap_eq_u64(sk, 64, "a cap above the device's limit gives the limit");
	sk = gso_cap_next(&g, sk, 0);
	tap_eq_u64(sk, 64, "0 lifts the cap: the device's 64");

	/* ldcp's fast start: 1 segment, the route changes, fast start ends */
	sk = 64;
	gso_cap_init(&g, sk);
	sk = gso_cap_next(&g, sk, 1);
	tap_eq_u64(sk, 1, "fast start: one segment per skb");
	sk = 16;	/* sk_setup_caps() on a new route */
	sk = gso_cap_next(&g, sk, 0);
	tap_eq_u64(sk, 16, "lifted after a route change: the new device's 16, not the old 64");
	tap_eq_u64(g.dev, 16, "the new limit is recorded");

	/* hpcc: a route change between two caps is kept as the limit */
	sk = 64;
	gso_cap_init(&g, sk);
	sk = gso_cap_next(&g, sk, 4);
	sk = 3;		/* a device of 3 segments */
	sk = gso_cap_next(&g, sk, 4);
	tap_eq_u64(sk, 3, "a cap of 4 under a new device's 3 gives 3");
	sk = gso_cap_next(&g, sk, 2);
	tap_eq_u64(sk, 2, "a cap of 2 under it gives 2");
	sk = gso_cap_next(&g, sk, 0);
	tap_eq_u64(sk, 3, "lifted: the new device's 3");

	/* a device that allows no GSO: no cap raises it */
	sk = 1;
	gso_cap_init(&g, sk);
	tap_eq_u64(gso_cap_next(&g, sk, 2), 1, "a cap of 2 on a device of 1 leaves 1");

	/* the stack writing the value we set is not a change */
	sk = 64;
	gso_cap_init(&g, sk);
	sk = gso_cap_next(&g, sk, 8);
	sk = gso_cap_next(&g, sk, 8);
	sk = gso_cap_next(&g, sk, 0);
	tap_eq_u64(sk, 64, "repeated caps, then lifted: 64");

	return tap_done();
}
