/* SPDX-License-Identifier: GPL-2.0 */
/*
 * include/dcc_pernet.h for selftests/unit/glue/kshim/kshim.h: a module's
 * counters in the socket's struct net, no /proc file.
 */
#ifndef _DCC_PERNET_H
#define _DCC_PERNET_H

#include "kshim.h"

struct dcc_net {
	u64	*ctr;
};

struct dcc_pernet {
	const char		*proc_name;
	const char * const	*ctr_names;
	unsigned int		nctrs;
	int			ops;
};

#define DCC_PERNET_OPS(p, type)	0

static inline void dcc_count_n(const struct net *net, unsigned int i, u64 n)
{
	if (i < ARRAY_SIZE(net->ctr))
		((struct net *)net)->ctr[i] += n;
}

static inline void dcc_count(const struct net *net, unsigned int i)
{
	dcc_count_n(net, i, 1);
}

static inline int dcc_pernet_register(struct dcc_pernet *p)
{
	return 0;
}

static inline void dcc_pernet_unregister(struct dcc_pernet *p)
{
}

#endif /* _DCC_PERNET_H */
