/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module-free flavour's congestion controls, hpcc_bpf and ldcp_bpf
 * (tools/bpf/tcp_hpcc.bpf.c, tools/bpf/tcp_ldcp.bpf.c), as their loader
 * (tools/dccbpf.c) sees them: where they are pinned, and their counters,
 * the modules' /proc/net/tcp_hpcc and /proc/net/tcp_ldcp with the same
 * names in the same order.  Documentation/bpf.rst.
 *
 * Each object keeps its counters in a per-CPU array of one struct
 * dcc_bpf_counters, pinned as DCC_BPF_PIN_DIR/<name>; the struct_ops map
 * that registers the algorithm is pinned as DCC_BPF_PIN_DIR/<cc name>.
 */
#ifndef _DCC_BPF_H
#define _DCC_BPF_H

#include <linux/types.h>

#include "csig_bpf.h"
#include "hpcc_api.h"
#include "ldcp.h"

#define DCC_BPF_PIN_DIR		CSIG_BPF_PIN_DIR	/* /sys/fs/bpf/tcp-dcc */

#define HPCC_BPF_NAME		"hpcc_bpf"
#define LDCP_BPF_NAME		"ldcp_bpf"
#define HPCC_BPF_COUNTERS	"hpcc_bpf_cnt"
#define LDCP_BPF_COUNTERS	"ldcp_bpf_cnt"

/*
 * Parameters: tcp_ldcp's module parameters of the same names, defaults
 * and ranges (dccbpf checks them), in ldcp_bpf's .data as "cfg"; dccbpf
 * load sets them before the load.  hpcc_bpf's are struct hpcc_cfg
 * (include/hpcc_api.h).
 */
struct ldcp_bpf_cfg {
	__u32	alpha_milli;
	__u32	beta_milli;
	__u32	gamma_div;
	__u32	bw_mbps;
	__u32	base_rtt_us;
	__u32	fast_start;
	__u32	below_one_inc;
	__u32	ack_every;
};

#define LDCP_BPF_CFG_INIT {						\
	.alpha_milli = 1000, .beta_milli = 500, .gamma_div = 8,		\
	.bw_mbps = 10000, .base_rtt_us = 100, .fast_start = 1,		\
	.below_one_inc = 1, .ack_every = 1,				\
}

#define DCC_BPF_NCOUNTERS	16

struct dcc_bpf_counters {
	__u64	c[DCC_BPF_NCOUNTERS];
};

/* tcp_hpcc's counters: HPCC_C_* and HPCC_COUNTER_NAMES, include/hpcc_api.h */

/* tcp_ldcp.c's counters: LDCP_C_* and LDCP_COUNTER_NAMES, in include/ldcp.h */

#ifdef __bpf__
/* A congestion control's counters: a per-CPU array, pinned by its name. */
#define DCC_BPF_COUNTERS_MAP(name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, 1);					\
		__type(key, __u32);					\
		__type(value, struct dcc_bpf_counters);			\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} name SEC(".maps")

/* Add one to counter @i of the counters in @map. */
static __always_inline void dcc_bpf_count(void *map, int i)
{
	struct dcc_bpf_counters *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(map, &zero);
	if (c && i >= 0 && i < DCC_BPF_NCOUNTERS)
		c->c[i]++;
}
#endif

#endif /* _DCC_BPF_H */
