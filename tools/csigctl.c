// SPDX-License-Identifier: GPL-2.0
/*
 * csigctl: attach, configure and inspect the CSIG switch-port programs
 * (tools/bpf/csig_port.bpf.c).  See Documentation/csig.rst and
 * `csigctl help`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csig_port.h"
#include "csig_port.skel.h"

#define PIN_ROOT	"/sys/fs/bpf/tc/globals"	/* where tc pins */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TC_HANDLE	0xc516
#define TC_PRIO		0xc516

static const char *usage_text =
"usage: csigctl [--json] [-n NETNS] COMMAND ...\n"
"\n"
"  attach DEV ROLE [--ingress] [OPTIONS]  load and attach a port role\n"
"         ROLE: transit | strip | insert\n"
"  detach DEV [--ingress]                 remove what attach added\n"
"  set    (DEV [--ingress] | --prog ID) OPTIONS   change a running port\n"
"  show   [DEV [--ingress] | --prog ID]   configuration, model, signals,\n"
"                                         counters of every CSIG program\n"
"  flow   add|del --pid PID --fd FD [--types LIST] [--format F]\n"
"                                         request tags for a TCP socket\n"
"\n"
"OPTIONS\n"
"  --capacity RATE     C of the port model (e.g. 200mbit, 10gbit)\n"
"  --t TIME            T of U = q/(C*T) + txRate/C (e.g. 1ms, 100us)\n"
"  --interval TIME     window of the tx rate\n"
"  --lm N|ifindex      locator metadata written on replace\n"
"  --tpid COMPACT,EXPANDED   TPIDs (hex), default 0x88b5,0x88b6\n"
"  --types LIST        transit: types updated; insert: types requested\n"
"                      (abw,abwc,pd,u or all)\n"
"  --format F          insert: compact | expanded\n"
"  --select LIST       insert: sk,mark,all (which flows get tags)\n"
"  --mark VALUE/MASK   insert: skb mark of the flows to tag\n"
"  --strip-pass        strip: pass tags it cannot remove (default drop)\n"
"  --trace on|off      transit: keep the last 128 decisions (show --json)\n"
"  --wred KMIN,KMAX,PMAX[,K]|off  transit: WRED/ECN on the model's queue:\n"
"                      mark ECT packets CE from KMIN bytes with a\n"
"                      probability rising to PMAX (0..1] at KMAX, drop\n"
"                      not-ECT ones from K bytes (default KMIN)\n"
"  --bounds TYPE=B1,..,B31   compact buckets of TYPE (31 upper bounds)\n"
"  --quantum TYPE=Q    expanded quantum of TYPE\n"
"\n"
"-n NETNS runs in network namespace NETNS (/run/netns/NETNS) and keeps\n"
"this mount namespace's /sys/fs/bpf, where the flow table is pinned\n"
"(ip netns exec hides it).\n"
"\n"
"Units: ABW kbit/s, ABW/C and U 2^-20, PD ns (include/csig.h).\n";

static int json;

static int die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "csigctl: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static const char * const type_name[CSIG_NTYPES_COMPACT] = {
	[CSIG_T_ABW] = "abw", [CSIG_T_ABWC] = "abwc",
	[CSIG_T_PD] = "pd", [CSIG_T_U] = "u",
};

static int parse_type(const char *s)
{
	int t;

	for (t = 0; t < CSIG_NTYPES_COMPACT; t++)
		if (type_name[t] && !strcasecmp(s, type_name[t]))
			return t;
	return -1;
}

static __u8 parse_types(const char *arg)
{
	char *dup = strdup(arg), *tok, *save;
	__u8 m = 0;
	int t;

	if (!strcmp(arg, "all"))
		m = CSIG_TYPES_KNOWN;
	else
		for (tok = strtok_r(dup, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			t = parse_type(tok);
			if (t < 0)
				die("unknown signal type '%s' (abw, abwc, pd, u)", tok);
			m |= 1U << t;
		}
	free(dup);
	if (!m)
		die("--types: no type given");
	return m;
}

/* "200mbit" -> kbit/s */
static __u64 parse_rate(const char *s)
{
	static const struct {
		const char *u;
		double m;
	} units[] = {
		{ "tbit", 1e9 }, { "gbit", 1e6 }, { "mbit", 1e3 },
		{ "kbit", 1 }, { "bit", 0.001 },
	};
	char *end;
	double v = strtod(s, &end);
	unsigned int i;

	if (end == s || v <= 0)
		die("bad rate '%s' (e.g. 200mbit, 10gbit)", s);
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(end, units[i].u)) {
			v *= units[i].m;
			if (v < CSIG_MIN_CAPACITY_KBPS || v > CSIG_MAX_CAPACITY_KBPS)
				die("capacity %s out of range (1mbit .. 1600gbit)", s);
			return (__u64)v;
		}
	return die("bad rate unit in '%s' (tbit, gbit, mbit, kbit, bit)", s);
}

/* "1ms" -> ns */
static __u64 parse_time(const char *s, const char *what)
{
	static const struct {
		const char *u;
		double m;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end);
	unsigned int i;

	if (end == s || v <= 0)
		die("bad %s '%s' (e.g. 1ms, 100us)", what, s);
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].u)) {
			v *= units[i].m;
			if (v < CSIG_MIN_T_NS || v > CSIG_MAX_T_NS)
				die("%s %s out of range (1us .. 1s)", what, s);
			return (__u64)v;
		}
	return die("bad time unit in '%s' (ns, us, ms, s)", s);
}

static unsigned long parse_ul(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		die("bad %s '%s' (at most %lu)", what, s, max);
	return v;
}

/*
 * --wred KMIN,KMAX,PMAX[,K] (bytes, bytes, a probability in (0, 1],
 * bytes; K defaults to KMIN) or off
 */
static void parse_wred(const char *arg, struct csig_port_cfg *c)
{
	char *dup, *f[4], *end;
	unsigned long kmin, kmax;
	int n = 0;
	double p;

	if (!strcmp(arg, "off")) {
		c->ecn_kmin = 0;
		c->ecn_kmax = 0;
		c->ecn_pmax = 0;
		c->ecn_kdrop = 0;
		return;
	}
	dup = strdup(arg);
	if (!dup)
		die("out of memory");
	f[n++] = dup;
	for (end = dup; *end && n < 4; end++)
		if (*end == ',') {
			*end = 0;
			f[n++] = end + 1;
		}
	if (n < 3 || strchr(f[n - 1], ','))
		die("--wred KMIN,KMAX,PMAX[,K] (bytes, bytes, 0..1, bytes) or off");
	kmin = parse_ul(f[0], CSIG_ECN_K_MAX, "--wred KMIN");
	kmax = parse_ul(f[1], CSIG_ECN_K_MAX, "--wred KMAX");
	errno = 0;
	p = strtod(f[2], &end);
	if (errno || end == f[2] || *end || !(p > 0 && p <= 1))
		die("bad --wred PMAX '%s' (a probability, 0 < PMAX <= 1)", f[2]);
	c->ecn_kmin = kmin;
	c->ecn_kmax = kmax;
	c->ecn_pmax = (__u32)(p * CSIG_ECN_P_ONE + 0.5);
	if (!c->ecn_pmax)
		c->ecn_pmax = 1;
	c->ecn_kdrop = n > 3 ? parse_ul(f[3], CSIG_ECN_K_MAX, "--wred K") : kmin;
	if (!csig_ecn_cfg_valid(c->ecn_kmin, c->ecn_kmax, c->ecn_pmax,
				c->ecn_kdrop))
		die("bad --wred '%s': need 0 < KMAX, KMIN <= KMAX, 0 < K", arg);
	free(dup);
}

struct opts {
	int ingress, prog_id, pid, fd, have_format;
	struct csig_port_cfg set;	/* values given */
	unsigned int given;		/* G_* */
};

enum {
	G_CAP = 1, G_T = 2, G_IV = 4, G_LM = 8, G_TPID = 16, G_TYPES = 32,
	G_FMT = 64, G_SEL = 128, G_MARK = 256, G_PASS = 512, G_QUANT = 1024,
	G_TRACE = 2048, G_WRED = 4096,
};

static struct csig_quant quant = CSIG_DEFAULT_QUANT_INIT;

#define QUANT_RULE	"quantisation rejected: compact bounds must increase " \
			"strictly from a non-zero first bound, quanta must not be 0"

static void parse_bounds(const char *arg)
{
	char *dup = strdup(arg), *eq = strchr(dup, '='), *tok, *save;
	int t, n = 0;

	if (!eq)
		die("--bounds TYPE=B1,...,B31");
	*eq = 0;
	t = parse_type(dup);
	if (t < 0)
		die("unknown signal type '%s'", dup);
	for (tok = strtok_r(eq + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n >= CSIG_COMPACT_NBOUNDS)
			die("--bounds: more than %d bounds", CSIG_COMPACT_NBOUNDS);
		quant.bound[t][n++] = parse_ul(tok, UINT_MAX, "bound");
	}
	if (n != CSIG_COMPACT_NBOUNDS)
		die("--bounds %s: %d bounds given, %d needed", dup, n, CSIG_COMPACT_NBOUNDS);
	free(dup);
}

static void parse_quantum(const char *arg)
{
	char *dup = strdup(arg), *eq = strchr(dup, '=');
	int t;

	if (!eq)
		die("--quantum TYPE=Q");
	*eq = 0;
	t = parse_type(dup);
	if (t < 0)
		die("unknown signal type '%s'", dup);
	quant.quantum[t] = parse_ul(eq + 1, UINT_MAX, "quantum");
	free(dup);
}

/* Options of a command (argv[0]); returns the index of its first operand. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "ingress", no_argument, 0, 'i' },
		{ "egress", no_argument, 0, 'e' },
		{ "prog", required_argument, 0, 'p' },
		{ "capacity", required_argument, 0, 'c' },
		{ "t", required_argument, 0, 't' },
		{ "interval", required_argument, 0, 'w' },
		{ "lm", required_argument, 0, 'l' },
		{ "tpid", required_argument, 0, 'P' },
		{ "types", required_argument, 0, 'y' },
		{ "format", required_argument, 0, 'f' },
		{ "select", required_argument, 0, 's' },
		{ "mark", required_argument, 0, 'm' },
		{ "strip-pass", no_argument, 0, 'S' },
		{ "trace", required_argument, 0, 'T' },
		{ "wred", required_argument, 0, 'W' },
		{ "bounds", required_argument, 0, 'b' },
		{ "quantum", required_argument, 0, 'q' },
		{ "pid", required_argument, 0, 'I' },
		{ "fd", required_argument, 0, 'F' },
		{ "json", no_argument, 0, 'j' },
		{ 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ingress = 1;
			break;
		case 'e':
			o->ingress = 0;
			break;
		case 'j':
			json = 1;
			break;
		case 'p':
			o->prog_id = parse_ul(optarg, INT_MAX, "program id");
			break;
		case 'c':
			csig_port_set_capacity(&o->set, parse_rate(optarg));
			o->given |= G_CAP;
			break;
		case 't':
			o->set.t_ns = parse_time(optarg, "T");
			o->given |= G_T;
			break;
		case 'w':
			o->set.interval_ns = parse_time(optarg, "interval");
			o->given |= G_IV;
			break;
		case 'l':
			o->given |= G_LM;
			if (!strcmp(optarg, "ifindex"))
				o->set.flags |= CSIG_CFG_LM_IFINDEX;
			else
				o->set.lm = parse_ul(optarg, 0xffff, "locator");
			break;
		case 'P': {
			char *comma = strchr(optarg, ',');

			if (!comma)
				die("--tpid COMPACT,EXPANDED (hex, e.g. 0x88b5,0x88b6)");
			*comma = 0;
			o->set.tpid[0] = parse_ul(optarg, 0xffff, "TPID");
			o->set.tpid[1] = parse_ul(comma + 1, 0xffff, "TPID");
			if (o->set.tpid[0] == o->set.tpid[1] ||
			    o->set.tpid[0] < 0x600 || o->set.tpid[1] < 0x600 ||
			    o->set.tpid[0] == 0x8100 || o->set.tpid[1] == 0x8100 ||
			    o->set.tpid[0] == 0x88a8 || o->set.tpid[1] == 0x88a8 ||
			    o->set.tpid[0] == 0x0800 || o->set.tpid[1] == 0x0800 ||
			    o->set.tpid[0] == 0x86dd || o->set.tpid[1] == 0x86dd)
				die("TPIDs must differ, be >= 0x600, not 802.1Q/ad or IP");
			o->given |= G_TPID;
			break;
		}
		case 'y':
			o->set.types = parse_types(optarg);
			o->given |= G_TYPES;
			break;
		case 'f':
			if (!strcmp(optarg, "compact"))
				o->set.ins_format = CSIG_FMT_COMPACT;
			else if (!strcmp(optarg, "expanded"))
				o->set.ins_format = CSIG_FMT_EXPANDED;
			else
				die("bad --format '%s' (compact, expanded)", optarg);
			o->given |= G_FMT;
			break;
		case 's': {
			char *dup = strdup(optarg), *tok, *save;

			o->set.ins_mode = 0;
			for (tok = strtok_r(dup, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "sk"))
					o->set.ins_mode |= CSIG_INS_SK;
				else if (!strcmp(tok, "mark"))
					o->set.ins_mode |= CSIG_INS_MARK;
				else if (!strcmp(tok, "all"))
					o->set.ins_mode |= CSIG_INS_ALL;
				else
					die("bad --select '%s' (sk, mark, all)", tok);
			}
			free(dup);
			o->given |= G_SEL;
			break;
		}
		case 'm': {
			char *slash = strchr(optarg, '/');

			if (slash)
				*slash = 0;
			o->set.ins_mark = parse_ul(optarg, UINT_MAX, "mark");
			o->set.ins_mark_mask = slash ?
				parse_ul(slash + 1, UINT_MAX, "mask") : ~0U;
			o->given |= G_MARK;
			break;
		}
		case 'S':
			o->given |= G_PASS;
			break;
		case 'T':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die("--trace on|off");
			o->set.flags |= strcmp(optarg, "on") ? 0 : CSIG_CFG_TRACE;
			o->given |= G_TRACE;
			break;
		case 'W':
			parse_wred(optarg, &o->set);
			o->given |= G_WRED;
			break;
		case 'b':
			parse_bounds(optarg);
			o->given |= G_QUANT;
			break;
		case 'q':
			parse_quantum(optarg);
			o->given |= G_QUANT;
			break;
		case 'I':
			o->pid = parse_ul(optarg, INT_MAX, "pid");
			break;
		case 'F':
			o->fd = parse_ul(optarg, INT_MAX, "fd");
			break;
		default:
			die("bad option (see csigctl help)");
		}
	}
	if ((o->given & G_QUANT) && !csig_quant_valid(&quant))
		die("%s", QUANT_RULE);
	return optind;
}

/* Merge the options given into @c. */
static void apply(struct csig_port_cfg *c, const struct opts *o)
{
	if (o->given & G_CAP)
		csig_port_set_capacity(c, o->set.capacity_kbps);
	if (o->given & G_T)
		c->t_ns = o->set.t_ns;
	if (o->given & G_IV)
		c->interval_ns = o->set.interval_ns;
	if (o->given & G_LM) {
		c->flags &= ~CSIG_CFG_LM_IFINDEX;
		c->flags |= o->set.flags & CSIG_CFG_LM_IFINDEX;
		c->lm = o->set.lm;
	}
	if (o->given & G_TPID) {
		c->tpid[0] = o->set.tpid[0];
		c->tpid[1] = o->set.tpid[1];
	}
	if (o->given & G_TYPES) {
		c->types = o->set.types;
		c->ins_types = o->set.types;
	}
	if (o->given & G_FMT)
		c->ins_format = o->set.ins_format;
	if (o->given & G_SEL)
		c->ins_mode = o->set.ins_mode;
	if (o->given & G_MARK) {
		c->ins_mark = o->set.ins_mark;
		c->ins_mark_mask = o->set.ins_mark_mask;
		if (!(o->given & G_SEL))
			c->ins_mode = CSIG_INS_MARK;
	}
	if (o->given & G_PASS)
		c->flags |= CSIG_CFG_STRIP_PASS;
	if (o->given & G_WRED) {
		c->ecn_kmin = o->set.ecn_kmin;
		c->ecn_kmax = o->set.ecn_kmax;
		c->ecn_pmax = o->set.ecn_pmax;
		c->ecn_kdrop = o->set.ecn_kdrop;
	}
	if (o->given & G_TRACE)
		c->flags = (c->flags & ~CSIG_CFG_TRACE) | (o->set.flags & CSIG_CFG_TRACE);
	if (o->given & G_QUANT)
		c->quant = quant;
}

#define NO_BPFFS	"no BPF filesystem at /sys/fs/bpf (mount one with " \
			"'mount -t bpf none /sys/fs/bpf'; 'ip netns exec' hides it: " \
			"use csigctl -n NETNS)"

/* The flow table is pinned in bpffs: make sure this is one. */
static void need_bpffs(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) || st.f_type != 0xcafe4a11)
		die("%s", NO_BPFFS);
}

static int ifindex_of(const char *dev)
{
	int i = if_nametoindex(dev);

	if (!i)
		die("no device '%s'", dev);
	return i;
}

static int cmd_attach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = PIN_ROOT);
	LIBBPF_OPTS(bpf_tc_hook, hook);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);
	struct bpf_program *prog;
	struct csig_port *skel;
	struct opts o = { 0 };
	const char *dev, *role;
	int err, a;

	a = parse_opts(argc, argv, &o);
	if (argc - a != 2)
		die("attach DEV ROLE [OPTIONS]");
	dev = argv[a];
	role = argv[a + 1];
	hook.ifindex = ifindex_of(dev);
	hook.attach_point = o.ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS;
	need_bpffs();
	mkdir("/sys/fs/bpf/tc", 0700);
	mkdir(PIN_ROOT, 0700);
	skel = csig_port__open_opts(&oo);
	if (!skel)
		die("cannot open the BPF object: %s", strerror(errno));
	if (!strcmp(role, "transit"))
		prog = skel->progs.csig_transit;
	else if (!strcmp(role, "strip"))
		prog = skel->progs.csig_strip;
	else if (!strcmp(role, "insert"))
		prog = skel->progs.csig_insert;
	else
		die("unknown role '%s' (transit, strip, insert)", role);
	bpf_program__set_type(skel->progs.csig_transit, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_strip, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_type(skel->progs.csig_insert, BPF_PROG_TYPE_SCHED_CLS);
	bpf_program__set_autoload(skel->progs.csig_transit, prog == skel->progs.csig_transit);
	bpf_program__set_autoload(skel->progs.csig_strip, prog == skel->progs.csig_strip);
	bpf_program__set_autoload(skel->progs.csig_insert, prog == skel->progs.csig_insert);
	apply(&skel->data->csig_cfg, &o);
	err = csig_port__load(skel);
	if (err)
		die("loading the %s program failed: %s", role, strerror(-err));
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		die("cannot add clsact to %s: %s", dev, strerror(-err));
	tco.prog_fd = bpf_program__fd(prog);
	tco.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &tco);
	if (err)
		die("cannot attach to %s %s: %s", dev, o.ingress ? "ingress" : "egress",
		    strerror(-err));
	if (!json)
		printf("%s: %s %s attached (prog id %u)\n", dev, role,
		       o.ingress ? "ingress" : "egress", tco.prog_id);
	else
		printf("{\"dev\":\"%s\",\"role\":\"%s\",\"hook\":\"%s\",\"prog_id\":%u}\n",
		       dev, role, o.ingress ? "ingress" : "egress", tco.prog_id);
	csig_port__destroy(skel);	/* tc keeps the program and its maps */
	return 0;
}

static int cmd_detach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);
	struct opts o = { 0 };
	int err, a;

	a = parse_opts(argc, argv, &o);
	if (argc - a != 1)
		die("detach DEV [--ingress]");
	hook.ifindex = ifindex_of(argv[a]);
	hook.attach_point = o.ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS;
	err = bpf_tc_detach(&hook, &tco);
	if (err)
		die("nothing attached by csigctl on %s %s (%s)", argv[a],
		    o.ingress ? "ingress" : "egress", strerror(-err));
	return 0;
}

/* A loaded CSIG program and the fds of its maps. */
struct port {
	__u32 id;
	char name[BPF_OBJ_NAME_LEN];
	int state, stats, data, trace;
};

static int find_maps(__u32 prog_id, struct port *p)
{
	struct bpf_prog_info pi = { 0 };
	__u32 len = sizeof(pi), ids[16], i, n;
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0)
		return -1;
	pi.nr_map_ids = 16;
	pi.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &pi, &len)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (strcmp(pi.name, "csig_transit") && strcmp(pi.name, "csig_strip") &&
	    strcmp(pi.name, "csig_insert"))
		return -1;
	p->id = prog_id;
	strcpy(p->name, pi.name);
	p->state = -1;
	p->stats = -1;
	p->data = -1;
	p->trace = -1;
	n = pi.nr_map_ids < 16 ? pi.nr_map_ids : 16;
	for (i = 0; i < n; i++) {
		struct bpf_map_info mi = { 0 };
		__u32 ml = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(mfd, &mi, &ml)) {
			close(mfd);
			continue;
		}
		if (!strcmp(mi.name, "csig_state"))
			p->state = mfd;
		else if (!strcmp(mi.name, "csig_stats"))
			p->stats = mfd;
		else if (!strcmp(mi.name, "csig_trace"))
			p->trace = mfd;
		else if (strstr(mi.name, ".data") &&
			 mi.value_size == sizeof(struct csig_port_cfg))
			p->data = mfd;
		else
			close(mfd);
	}
	/* strip and insert do not use the model */
	return p->data >= 0 && p->stats >= 0 ? 0 : -1;
}

static void put_port(struct port *p)
{
	if (p->state >= 0)
		close(p->state);
	if (p->stats >= 0)
		close(p->stats);
	if (p->data >= 0)
		close(p->data);
	if (p->trace >= 0)
		close(p->trace);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char * const counter_name[] = CSIG_COUNTER_NAMES;

static void show_json(struct port *p, const struct csig_port_cfg *c,
		      const struct csig_port_state *m, const __u64 *cnt,
		      const __u64 *hist, __u64 q, __u64 tx)
{
	static const __u32 known[] = { CSIG_T_ABW, CSIG_T_ABWC, CSIG_T_PD, CSIG_T_U };
	__u64 ql = csig_port_bytes(c, m->d_last);
	int f, t, j, i;

	printf("{\"prog_id\":%u,\"role\":\"%s\",", p->id, p->name + 5);
	printf("\"config\":{\"capacity_kbps\":%llu,\"t_ns\":%llu,\"interval_ns\":%llu,",
	       (unsigned long long)c->capacity_kbps, (unsigned long long)c->t_ns,
	       (unsigned long long)c->interval_ns);
	printf("\"lm\":%u,\"lm_ifindex\":%s,\"tpid\":[%u,%u],\"types\":%u,",
	       c->lm, c->flags & CSIG_CFG_LM_IFINDEX ? "true" : "false",
	       c->tpid[0], c->tpid[1], c->types);
	printf("\"ins_format\":%u,\"ins_types\":%u,\"ins_select\":%u,",
	       c->ins_format, c->ins_types, c->ins_mode);
	printf("\"ins_mark\":%u,\"ins_mark_mask\":%u,\"strip_pass\":%s,\"trace\":%s,",
	       c->ins_mark, c->ins_mark_mask,
	       c->flags & CSIG_CFG_STRIP_PASS ? "true" : "false",
	       c->flags & CSIG_CFG_TRACE ? "true" : "false");
	printf("\"wred\":{\"kmin\":%u,\"kmax\":%u,\"pmax\":%.5f,\"k_not_ect\":%u}},",
	       c->ecn_kmin, c->ecn_kmax, c->ecn_pmax / (double)CSIG_ECN_P_ONE,
	       c->ecn_kdrop);
	printf("\"model\":{\"q_bytes\":%llu,\"q_max_bytes\":%llu,\"arrived\":%llu,",
	       (unsigned long long)q,
	       (unsigned long long)csig_port_bytes(c, m->d_max),
	       (unsigned long long)m->arrived);
	printf("\"tx\":%llu,\"rate_kbps\":%llu},", (unsigned long long)tx,
	       (unsigned long long)m->rate_kbps);
	printf("\"signals\":{\"abw_kbps\":%u,\"abwc\":%u,\"pd_ns\":%u,\"u\":%u},",
	       csig_port_signal(c, CSIG_T_ABW, q, m->rate_kbps),
	       csig_port_signal(c, CSIG_T_ABWC, q, m->rate_kbps),
	       csig_port_signal(c, CSIG_T_PD, q, m->rate_kbps),
	       csig_port_signal(c, CSIG_T_U, csig_port_u_queue(c, m), m->rate_kbps));
	/* what the port wrote for its last packet, both formats */
	printf("\"last\":{\"q_bytes\":%llu", (unsigned long long)ql);
	for (f = 0; f < 2; f++) {
		printf(",\"%s\":{", f ? "expanded" : "compact");
		for (t = 0; t < 4; t++)
			printf("%s\"%s\":%u", t ? "," : "", type_name[known[t]],
			       csig_encode(&c->quant, f, known[t],
					   csig_port_signal(c, known[t],
							    known[t] == CSIG_T_U ?
							    csig_port_u_queue(c, m) : ql,
							    m->rate_kbps)));
		printf("}");
	}
	printf("},\"counters\":{");
	for (j = 0; j < CSIG_C_NR; j++)
		printf("%s\"%s\":%llu", j ? "," : "", counter_name[j],
		       (unsigned long long)cnt[j]);
	printf("}");
	if ((c->flags & CSIG_CFG_TRACE) && p->trace >= 0) {
		/* oldest first: [seq, type, format, replaced, s_in, s_local, value] */
		__u64 h = m->trace_head, k0 = h > CSIG_TRACE_N ? h - CSIG_TRACE_N : 0, k;

		printf(",\"trace\":[");
		for (k = k0; k < h; k++) {
			struct csig_trace_rec r;
			__u32 idx = k % CSIG_TRACE_N;

			if (bpf_map_lookup_elem(p->trace, &idx, &r))
				break;
			printf("%s[%u,%u,%u,%u,%u,%u,%u]", k == k0 ? "" : ",",
			       r.seq, r.type, r.format, r.replaced, r.s_in,
			       r.s_local, r.value);
		}
		printf("]");
	}
	/* [delay ns, bytes at C, packets] from each bucket's low edge */
	printf(",\"qhist\":[");
	for (i = 0, j = 0; i < CSIG_QHIST_N; i++) {
		if (!hist[i])
			continue;
		printf("%s[%llu,%llu,%llu]", j++ ? "," : "",
		       (unsigned long long)csig_qhist_low(i),
		       (unsigned long long)csig_port_bytes(c, csig_qhist_low(i)),
		       (unsigned long long)hist[i]);
	}
	printf("]}");
}

static void show_text(struct port *p, const struct csig_port_cfg *c,
		      const struct csig_port_state *m, const __u64 *cnt,
		      __u64 q, __u64 tx)
{
	int j;

	printf("prog %u %s\n", p->id, p->name + 5);
	printf("  capacity %llu kbit/s  T %llu ns  interval %llu ns  lm %s%u  tpid 0x%04x,0x%04x\n",
	       (unsigned long long)c->capacity_kbps, (unsigned long long)c->t_ns,
	       (unsigned long long)c->interval_ns,
	       c->flags & CSIG_CFG_LM_IFINDEX ? "ifindex/" : "", c->lm,
	       c->tpid[0], c->tpid[1]);
	if (c->ecn_kmax)
		printf("  wred: mark from %u B, probability %.3f at %u B; drop not-ECT from %u B\n",
		       c->ecn_kmin, c->ecn_pmax / (double)CSIG_ECN_P_ONE,
		       c->ecn_kmax, c->ecn_kdrop);
	printf("  queue %llu B (max %llu)  rate %llu kbit/s  arrived %llu B  tx %llu B\n",
	       (unsigned long long)q,
	       (unsigned long long)csig_port_bytes(c, m->d_max),
	       (unsigned long long)m->rate_kbps, (unsigned long long)m->arrived,
	       (unsigned long long)tx);
	printf("  signals: abw %u kbit/s  abw/c %.4f  pd %u ns  u %.4f\n",
	       csig_port_signal(c, CSIG_T_ABW, q, m->rate_kbps),
	       csig_port_signal(c, CSIG_T_ABWC, q, m->rate_kbps) / (double)CSIG_FRAC_ONE,
	       csig_port_signal(c, CSIG_T_PD, q, m->rate_kbps),
	       csig_port_signal(c, CSIG_T_U, csig_port_u_queue(c, m),
				m->rate_kbps) / (double)CSIG_FRAC_ONE);
	printf("  counters:");
	for (j = 0; j < CSIG_C_NR; j++)
		if (cnt[j])
			printf(" %s %llu", counter_name[j], (unsigned long long)cnt[j]);
	printf("\n");
}

static void show_port(struct port *p, int *first)
{
	int ncpu = libbpf_num_possible_cpus(), i, j;
	struct csig_port_stats *st = calloc(ncpu, sizeof(*st));
	__u64 cnt[CSIG_C_NR] = { 0 }, hist[CSIG_QHIST_N] = { 0 }, q, tx, now;
	struct csig_port_state m;
	struct csig_port_cfg c;
	__u32 zero = 0;

	memset(&m, 0, sizeof(m));
	if (!st || bpf_map_lookup_elem(p->data, &zero, &c) ||
	    (p->state >= 0 && bpf_map_lookup_elem(p->state, &zero, &m)) ||
	    bpf_map_lookup_elem(p->stats, &zero, st)) {
		free(st);
		return;
	}
	for (i = 0; i < ncpu; i++) {
		for (j = 0; j < CSIG_C_NR; j++)
			cnt[j] += st[i].c[j];
		for (j = 0; j < CSIG_QHIST_N; j++)
			hist[j] += st[i].qhist[j];
	}
	free(st);
	/* the queue now, and what has left by now */
	now = c.clock_ns ? c.clock_ns : mono_ns();
	q = csig_port_bytes(&c, m.t_free > now ? m.t_free - now : 0);
	tx = m.arrived > q ? m.arrived - q : 0;
	if (json) {
		printf("%s", *first ? "" : ",");
		show_json(p, &c, &m, cnt, hist, q, tx);
	} else {
		show_text(p, &c, &m, cnt, q, tx);
	}
	*first = 0;
}

/* The program csigctl attached to DEV, or --prog ID. */
static __u32 resolve(int argc, char **argv, int a, struct opts *o)
{
	LIBBPF_OPTS(bpf_tc_hook, hook);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);

	if (argc - a > 1)
		die("%s: one device at most", argv[0]);
	if (o->prog_id)
		return o->prog_id;
	if (argc - a < 1)
		return 0;
	hook.ifindex = ifindex_of(argv[a]);
	hook.attach_point = o->ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS;
	if (bpf_tc_query(&hook, &tco))
		die("nothing attached by csigctl on %s %s (use --prog ID for programs tc loaded)",
		    argv[a], o->ingress ? "ingress" : "egress");
	return tco.prog_id;
}

static int cmd_show(int argc, char **argv)
{
	struct opts o = { 0 };
	__u32 id = 0, want;
	int first = 1, found = 0;
	struct port p;

	want = resolve(argc, argv, parse_opts(argc, argv, &o), &o);
	if (json)
		printf("[");
	while (!bpf_prog_get_next_id(id, &id)) {
		if (want && id != want)
			continue;
		if (find_maps(id, &p))
			continue;
		show_port(&p, &first);
		put_port(&p);
		found++;
	}
	if (json)
		printf("]\n");
	if (want && !found)
		die("program %u is not a CSIG program", want);
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct csig_port_cfg c;
	struct opts o = { 0 };
	__u32 zero = 0, id;
	struct port p;

	id = resolve(argc, argv, parse_opts(argc, argv, &o), &o);
	if (!id)
		die("set (DEV [--ingress] | --prog ID) OPTIONS");
	if (!o.given)
		die("set: nothing to change");
	if (find_maps(id, &p))
		die("program %u is not a CSIG program", id);
	if (bpf_map_lookup_elem(p.data, &zero, &c))
		die("cannot read the configuration of program %u: %s", id, strerror(errno));
	apply(&c, &o);
	if (bpf_map_update_elem(p.data, &zero, &c, 0))
		die("cannot write the configuration of program %u: %s", id, strerror(errno));
	put_port(&p);
	return 0;
}

static int cmd_flow(int argc, char **argv)
{
	struct csig_flow f = { .types = 1U << CSIG_T_U, .format = CSIG_FMT_COMPACT };
	struct opts o = { .fd = -1 };
	int add, map, pidfd, sfd, err, a;

	a = parse_opts(argc, argv, &o);
	if (argc - a != 1 || (strcmp(argv[a], "add") && strcmp(argv[a], "del")))
		die("flow add|del --pid PID --fd FD [--types LIST] [--format F]");
	add = !strcmp(argv[a], "add");
	if (!o.pid || o.fd < 0)
		die("flow: --pid and --fd are required");
	if (o.given & G_TYPES)
		f.types = o.set.types;
	if (o.given & G_FMT)
		f.format = o.set.ins_format;
	need_bpffs();
	map = bpf_obj_get(PIN_ROOT "/csig_flows");
	if (map < 0)
		die("no flow table at %s (attach an insert role first): %s",
		    PIN_ROOT "/csig_flows", strerror(errno));
	pidfd = syscall(SYS_pidfd_open, o.pid, 0);
	if (pidfd < 0)
		die("pid %d: %s", o.pid, strerror(errno));
	sfd = syscall(SYS_pidfd_getfd, pidfd, o.fd, 0);
	if (sfd < 0)
		die("fd %d of pid %d: %s", o.fd, o.pid, strerror(errno));
	err = add ? bpf_map_update_elem(map, &sfd, &f, BPF_ANY) :
		    bpf_map_delete_elem(map, &sfd);
	if (err)
		die("fd %d of pid %d: %s (a TCP socket?)", o.fd, o.pid, strerror(errno));
	return 0;
}

/* Network namespace only: the mount namespace (and bpffs) stays. */
static void enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s%s", strchr(name, '/') ? "" : "/run/netns/", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("network namespace %s: %s", path, strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		die("entering %s: %s", path, strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	int i;

	/* global options before the command */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			break;
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns")) &&
			 i + 1 < argc)
			enter_netns(argv[++i]);
		else
			die("unknown option '%s' (see csigctl help)", argv[i]);
	}
	if (i >= argc || !strcmp(argv[i], "help") || argv[i][0] == '-') {
		fputs(usage_text, i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	argc -= i;
	argv += i;
	if (!getenv("CSIGCTL_DEBUG"))
		libbpf_set_print(NULL);
	if (!strcmp(argv[0], "attach"))
		return cmd_attach(argc, argv);
	if (!strcmp(argv[0], "detach"))
		return cmd_detach(argc, argv);
	if (!strcmp(argv[0], "show"))
		return cmd_show(argc, argv);
	if (!strcmp(argv[0], "set"))
		return cmd_set(argc, argv);
	if (!strcmp(argv[0], "flow"))
		return cmd_flow(argc, argv);
	return die("unknown command '%s' (see csigctl help)", argv[0]);
}
