/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf's headers (<bpf/bpf_helpers.h>, <bpf/bpf_core_read.h>,
 * <bpf/bpf_endian.h>, <bpf/bpf_tracing.h>) for the BPF congestion
 * controls' glue (tools/bpf/tcp_hpcc.bpf.c, tcp_ldcp.bpf.c) compiled as
 * host C by selftests/unit/test_glue_*.c's harness, with __bpf__ defined
 * so that the project's headers take their BPF paths.  Sections vanish,
 * maps are plain variables, BPF_PROG() functions take their arguments
 * directly, CO-RE reads are plain reads, and the helpers and kfuncs the
 * programs call are the harness's functions (glue/bpf_*.c).
 */
#ifndef _BSHIM_H
#define _BSHIM_H

#include <stddef.h>
#include <linux/types.h>

#define SEC(name)
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define __noinline		__attribute__((__noinline__))
#define __ksym
#define __kconfig
#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	typeof(val) *name
#define LIBBPF_PIN_BY_NAME	1

#define BPF_PROG(name, args...)	name(args)
#define BPF_CORE_READ_BITFIELD(s, field)	((s)->field)
#define bpf_ntohs(x)		__builtin_bswap16(x)

struct seq_file;

static inline int bshim_seq_printf(struct seq_file *m, const char *fmt, ...)
{
	return 0;
}

#define BPF_SEQ_PRINTF(seq, fmt, args...)	bshim_seq_printf(seq, fmt, ##args)

/* the helpers the programs call: the harness's */
void *bpf_sk_storage_get(void *map, void *sk, void *value, __u64 flags);
void *bpf_map_lookup_elem(void *map, const void *key);
long bpf_probe_read_kernel(void *dst, __u32 size, const void *src);
struct tcp_sock *bpf_skc_to_tcp_sock(void *sk);
long bpf_tcp_send_ack(void *tp, __u32 rcv_nxt);

#endif /* _BSHIM_H */
