/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module's counters in each network namespace, shown in
 * /proc/net/NAME one per line as "name value", and the namespace's own
 * setup of the module around them, in one set of pernet operations.
 * The counters are per CPU, as the stack's MIBs: a count is one
 * this_cpu_add(), a read of the file sums them.
 *
 *	static const char * const foo_ctr_names[C_NR] = { "flows", ... };
 *	static struct dcc_pernet foo_pernet = {
 *		.proc_name = "foo",
 *		.ctr_names = foo_ctr_names,
 *		.nctrs = C_NR,
 *		.ops = DCC_PERNET_OPS(foo_pernet, struct dcc_net),
 *	};
 *	dcc_pernet_register(&foo_pernet);	module init
 *	dcc_count(net, C_FLOWS);
 *	dcc_pernet_unregister(&foo_pernet);	module exit
 *
 * A module with more per-namespace state gives DCC_PERNET_OPS() a struct
 * whose first member is a struct dcc_net (dcc_net_priv() finds it), and
 * sets .init and .exit for the rest of its setup: .init runs once the
 * counters and their file exist, .exit before they go.  .show adds lines
 * after the counters.
 *
 * Kernel only; one struct dcc_pernet per module (its counting functions
 * find it without being passed it).
 */
#ifndef _DCC_PERNET_H
#define _DCC_PERNET_H

#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

struct dcc_net {
	u64 __percpu *ctr;	/* nctrs counters on each CPU */
};

struct dcc_pernet {
	const char *proc_name;			/* /proc/net/proc_name */
	const char * const *ctr_names;		/* in counter order */
	unsigned int nctrs;
	int (*init)(struct net *net);
	void (*exit)(struct net *net);
	void (*show)(struct seq_file *m, struct net *net);
	unsigned int id;
	struct pernet_operations ops;	/* DCC_PERNET_OPS() */
};

/*
 * The pernet operations of struct dcc_pernet @p, whose namespaces have a
 * @type each (struct dcc_net, or the module's struct that starts with one).
 */
#define DCC_PERNET_OPS(p, type) {				\
		.init = dcc_pernet_init,			\
		.exit = dcc_pernet_exit,			\
		.id = &(p).id,					\
		.size = sizeof(type),				\
	}

/* The module's, from dcc_pernet_register() on. */
static struct dcc_pernet *dcc_pernet_self __read_mostly;

static inline struct dcc_net *dcc_net(const struct net *net)
{
	return net_generic(net, dcc_pernet_self->id);
}

/* The module's per-namespace state: DCC_PERNET_OPS()'s @type. */
static inline void *dcc_net_priv(const struct net *net)
{
	return dcc_net(net);
}

static inline void dcc_count_n(const struct net *net, unsigned int i, u64 n)
{
	this_cpu_add(*(dcc_net(net)->ctr + i), n);
}

static inline void dcc_count(const struct net *net, unsigned int i)
{
	this_cpu_inc(*(dcc_net(net)->ctr + i));
}

static int dcc_pernet_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	const struct dcc_net *dn = dcc_net(net);
	unsigned int i;
	int cpu;

	for (i = 0; i < dcc_pernet_self->nctrs; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += *per_cpu_ptr(dn->ctr + i, cpu);
		seq_printf(m, "%s %llu\n", dcc_pernet_self->ctr_names[i], sum);
	}
	if (dcc_pernet_self->show)
		dcc_pernet_self->show(m, net);
	return 0;
}

static int __net_init dcc_pernet_init(struct net *net)
{
	struct dcc_net *dn = dcc_net(net);
	int err;

	dn->ctr = __alloc_percpu(dcc_pernet_self->nctrs * sizeof(u64), __alignof__(u64));
	if (!dn->ctr)
		return -ENOMEM;
	if (!proc_create_net_single(dcc_pernet_self->proc_name, 0444, net->proc_net,
				    dcc_pernet_show, NULL)) {
		free_percpu(dn->ctr);
		return -ENOMEM;
	}
	err = dcc_pernet_self->init ? dcc_pernet_self->init(net) : 0;
	if (err) {
		remove_proc_entry(dcc_pernet_self->proc_name, net->proc_net);
		free_percpu(dn->ctr);
	}
	return err;
}

static void __net_exit dcc_pernet_exit(struct net *net)
{
	if (dcc_pernet_self->exit)
		dcc_pernet_self->exit(net);
	remove_proc_entry(dcc_pernet_self->proc_name, net->proc_net);
	free_percpu(dcc_net(net)->ctr);
}

static inline int dcc_pernet_register(struct dcc_pernet *p)
{
	dcc_pernet_self = p;
	return register_pernet_subsys(&p->ops);
}

static inline void dcc_pernet_unregister(struct dcc_pernet *p)
{
	unregister_pernet_subsys(&p->ops);
}

#endif /* _DCC_PERNET_H */
