// SPDX-License-Identifier: GPL-2.0
/*
 * csighost: attach, configure and inspect the CSIG host path in BPF
 * (tools/bpf/csig_host.bpf.c): the receiver's tc program on a device and
 * the sock_ops program on a cgroup.  Maps are pinned by name under
 * CSIG_BPF_PIN_DIR (the socket storage at CSIG_BPF_PIN_SK, for hpcc_bpf),
 * the sock_ops link as CSIG_HOST_PIN_LINK<cgroup inode>.  See
 * Documentation/bpf.rst, "CSIG host path", and `csighost help`.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csig_host.h"
#include "csig_host.skel.h"

#define TC_HANDLE	0xc517
#define TC_PRIO		0xc517
#define BPFFS_MAGIC	0xcafe4a11
#define CGROUP2_MAGIC	0x63677270

static const char *usage_text =
"usage: csighost [--json] [-n NETNS] COMMAND ...\n"
"\n"
"  --json may also follow the command (csighost show --json).\n"
"\n"
"  attach DEV [--cgroup DIR] [OPTIONS]   the receiver's program on DEV's\n"
"                                        ingress, sock_ops on the cgroup\n"
"  detach DEV [--cgroup DIR]             remove both (sock_ops when no\n"
"                                        other device uses the cgroup)\n"
"  show [--sockets]                      configuration and counters; with\n"
"                                        --sockets the state of every\n"
"                                        socket in this network namespace\n"
"                                        (in NETNS, with -n)\n"
"\n"
"OPTIONS\n"
"  --cgroup DIR        a cgroup v2 directory (default: the cgroup2 root)\n"
"  --no-offer          do not offer CSIG in SYNs\n"
"  --no-accept         do not accept offers\n"
"  --mark VALUE        SO_MARK bits given to negotiated sockets, for the\n"
"                      insertion role's mark rule (0: none; default\n"
"                      0x40000000, tcp_csig_opt's insert_mark)\n"
"  --tpid COMPACT,EXPANDED   TPIDs (hex), default 0x88b5,0x88b6\n"
"\n"
"-n NETNS enters the network namespace only (ip netns exec would hide\n"
"/sys/fs/bpf, where the maps are pinned).  The configuration and counters\n"
"are the host's (one set for every device and cgroup).\n"
"\n"
"Exit status: 0 done, 1 an error at run time, 2 a usage error.\n";

static int json;

static void vfail(int rc, const char *fmt, va_list ap)
{
	fputs("csighost: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(rc);
}

/* What failed at run time: exit status 1. */
static int die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(1, fmt, ap);
	va_end(ap);
	return 1;
}

/* A command line that is not csighost's: exit status 2. */
static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(2, fmt, ap);
	va_end(ap);
	return 2;
}

struct opts {
	const char *cgroup;
	int sockets;
	int given_cfg;
	struct csig_host_cfg cfg;
};

static unsigned long num(const char *s, const char *what, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max)
		bad_usage("bad %s '%s'", what, s);
	return v;
}

static int tpid_ok(unsigned long t)
{
	/* tcp_csig_opt's rule: EtherTypes other than VLAN, IP, IPv6, ARP */
	return t >= 0x600 && t != 0x8100 && t != 0x88a8 && t != 0x0800 &&
	       t != 0x86dd && t != 0x0806;
}

static int parse_opts(int argc, char **argv, int first, struct opts *o)
{
	struct csig_host_cfg def = CSIG_HOST_CFG_INIT;
	int i, pos = first;

	o->cfg = def;
	for (i = first; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-') {
			argv[pos++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--sockets")) {
			o->sockets = 1;
			continue;
		}
		/* the global option, after the command too */
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(a, "--no-offer")) {
			o->cfg.flags &= ~CSIG_HOST_OFFER;
			continue;
		}
		if (!strcmp(a, "--no-accept")) {
			o->cfg.flags &= ~CSIG_HOST_ACCEPT;
			continue;
		}
		if (i + 1 >= argc)
			bad_usage("%s needs a value", a);
		if (!strcmp(a, "--cgroup")) {
			o->cgroup = argv[++i];
		} else if (!strcmp(a, "--mark")) {
			o->cfg.mark = num(argv[++i], "--mark", 0xffffffffUL);
		} else if (!strcmp(a, "--tpid")) {
			char *c = strchr(argv[++i], ',');

			if (!c)
				bad_usage("--tpid COMPACT,EXPANDED");
			*c = 0;
			o->cfg.tpid[0] = num(argv[i], "TPID", 0xffff);
			o->cfg.tpid[1] = num(c + 1, "TPID", 0xffff);
			if (!tpid_ok(o->cfg.tpid[0]) || !tpid_ok(o->cfg.tpid[1]) ||
			    o->cfg.tpid[0] == o->cfg.tpid[1])
				bad_usage("TPIDs must differ and not be %s",
					  "802.1Q/802.1ad/IP/IPv6/ARP");
		} else {
			bad_usage("unknown option '%s' (see csighost help)", a);
		}
	}
	return pos;
}

#define NO_BPFFS	"no BPF filesystem at /sys/fs/bpf (mount one with " \
			"'mount -t bpf none /sys/fs/bpf'; 'ip netns exec' hides it: " \
			"use csighost -n NETNS)"

static void need_bpffs(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) || st.f_type != BPFFS_MAGIC)
		die("%s", NO_BPFFS);
	mkdir(CSIG_BPF_PIN_DIR, 0700);
}

/* The cgroup v2 root: the first cgroup2 mount. */
static const char *cgroup_root(void)
{
	static char path[PATH_MAX];
	char line[PATH_MAX + 256], dev[64], mnt[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		die("cannot read /proc/self/mounts: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %4095s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(path, sizeof(path), "%s", mnt);
			fclose(f);
			return path;
		}
	}
	fclose(f);
	die("no cgroup v2 mounted (mount -t cgroup2 none /sys/fs/cgroup), or give --cgroup");
	return NULL;
}

/* An open cgroup v2 directory and the pin of its sock_ops link. */
static int cgroup_open(const char *dir, char *pin, size_t len)
{
	struct statfs sf;
	struct stat st;
	int fd;

	if (!dir)
		dir = cgroup_root();
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("cgroup %s: %s", dir, strerror(errno));
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_MAGIC || fstat(fd, &st))
		die("%s is not a cgroup v2 directory", dir);
	snprintf(pin, len, "%s%llu", CSIG_HOST_PIN_LINK,
		 (unsigned long long)st.st_ino);
	return fd;
}

static int ifindex_of(const char *dev)
{
	int i = if_nametoindex(dev);

	if (!i)
		die("no device '%s'", dev);
	return i;
}

static struct csig_host *open_skel(int tc, int sockops, int iter, int reset)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = CSIG_BPF_PIN_DIR);
	struct csig_host *skel;
	int err;

	skel = csig_host__open_opts(&oo);
	if (!skel)
		die("cannot open the BPF object: %s", strerror(errno));
	bpf_program__set_autoload(skel->progs.csig_host_rx, tc);
	bpf_program__set_autoload(skel->progs.csig_host_sockops, sockops);
	bpf_program__set_autoload(skel->progs.csig_host_dump, iter);
	bpf_program__set_autoload(skel->progs.csig_host_reset, reset);
	err = csig_host__load(skel);
	if (err)
		die("loading the host path failed: %s (CSIGHOST_DEBUG=1 shows libbpf's log)",
		    strerror(-err));
	return skel;
}

/* This process's network namespace, by its inode. */
static __u64 netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
}

/* The record of the devices with the tc program; @create: make it. */
static int devs_open(int create)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	int fd = bpf_obj_get(CSIG_HOST_PIN_DEVS);

	if (fd >= 0 || !create)
		return fd;
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "csig_host_devs",
			    sizeof(struct csig_host_dev), sizeof(__u64),
			    CSIG_HOST_DEVS_MAX, &mo);
	if (fd < 0)
		return fd;
	if (bpf_obj_pin(fd, CSIG_HOST_PIN_DEVS)) {
		close(fd);
		fd = bpf_obj_get(CSIG_HOST_PIN_DEVS);	/* another's, just made */
	}
	return fd;
}

/* @ifindex (of this network namespace) has the tc program, for @cg. */
static int dev_record(int ifindex, __u64 cg)
{
	struct csig_host_dev k = { .netns = netns_ino(), .ifindex = ifindex };
	int fd = devs_open(1), err;

	if (fd < 0)
		return -1;
	err = bpf_map_update_elem(fd, &k, &cg, BPF_ANY);
	close(fd);
	return err;
}

/*
 * Forget @ifindex, and count the devices still recorded for cgroup @cg.
 * A device of this network namespace whose filter is gone (deleted with
 * its device, or removed with tc) is forgotten as well.
 */
static int dev_forget(int ifindex, __u64 cg)
{
	struct csig_host_dev k = { .netns = netns_ino(), .ifindex = ifindex };
	static struct csig_host_dev keys[CSIG_HOST_DEVS_MAX];
	int fd = devs_open(0), n = 0, nk = 0, i;
	__u64 v;

	if (fd < 0)
		return 0;
	bpf_map_delete_elem(fd, &k);
	/* the keys first: a deletion would restart the walk */
	while (nk < CSIG_HOST_DEVS_MAX &&
	       !bpf_map_get_next_key(fd, nk ? &keys[nk - 1] : NULL, &keys[nk]))
		nk++;
	for (i = 0; i < nk; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &v) || v != cg)
			continue;
		if (keys[i].netns == k.netns) {
			LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = keys[i].ifindex,
				    .attach_point = BPF_TC_INGRESS);
			LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE,
				    .priority = TC_PRIO);

			if (bpf_tc_query(&hook, &tco)) {
				bpf_map_delete_elem(fd, &keys[i]);
				continue;
			}
		}
		n++;
	}
	close(fd);
	return n;
}

/*
 * What an attach did so far, for its undoing when a later step fails: an
 * attach that fails leaves the host as it found it.
 */
struct attach_undo {
	const char *pin;		/* the sock_ops link's pin ... */
	int linked;			/* ... made by this attach */
	struct bpf_tc_hook *hook;
	int hook_made;			/* clsact added by this attach */
	int tc_attached;		/* the filter, by this attach */
	int had_cfg;			/* the configuration was there */
	struct csig_host_cfg cfg;	/* and held this */
	int had_pin[3];			/* the maps' pins were there */
};

static const char * const map_pins[3] = {
	CSIG_HOST_PIN_CFG, CSIG_HOST_PIN_STATS, CSIG_BPF_PIN_SK,
};

static void attach_undo(struct attach_undo *u, struct csig_host *skel)
{
	__u32 zero = 0;
	int i, fd;

	if (u->linked) {
		fd = bpf_obj_get(u->pin);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
		unlink(u->pin);
	}
	if (u->tc_attached && !u->hook_made) {
		LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE,
			    .priority = TC_PRIO);

		bpf_tc_detach(u->hook, &tco);
	}
	if (u->hook_made) {
		/* the qdisc itself: both attach points */
		u->hook->attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(u->hook);
	}
	if (u->had_cfg && skel)
		bpf_map__update_elem(skel->maps.csig_host_cfg, &zero,
				     sizeof(zero), &u->cfg, sizeof(u->cfg),
				     BPF_ANY);
	for (i = 0; i < 3; i++)
		if (!u->had_pin[i])
			unlink(map_pins[i]);
	if (skel)
		csig_host__destroy(skel);
}

/* What failed at run time, after the attach undid what it had done. */
static int attach_fail(struct attach_undo *u, struct csig_host *skel,
		       const char *fmt, ...)
{
	va_list ap;

	attach_undo(u, skel);
	va_start(ap, fmt);
	fputs("csighost: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("; nothing attached\n", stderr);
	va_end(ap);
	exit(1);
	return 1;
}

static int cmd_attach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = CSIG_BPF_PIN_DIR);
	struct attach_undo u = { .hook = &hook };
	struct opts o = { 0 };
	struct csig_host *skel;
	struct bpf_link *link;
	char pin[PATH_MAX];
	unsigned long long cg_ino;
	__u32 zero = 0;
	int n, i, fd, cg, err;

	n = parse_opts(argc, argv, 1, &o);
	if (n != 2)
		bad_usage("attach DEV [--cgroup DIR] [OPTIONS]");
	hook.ifindex = ifindex_of(argv[1]);
	hook.attach_point = BPF_TC_INGRESS;
	need_bpffs();
	cg = cgroup_open(o.cgroup, pin, sizeof(pin));
	cg_ino = strtoull(pin + strlen(CSIG_HOST_PIN_LINK), NULL, 10);
	u.pin = pin;
	for (i = 0; i < 3; i++)
		u.had_pin[i] = !access(map_pins[i], F_OK);
	fd = bpf_obj_get(CSIG_HOST_PIN_CFG);
	if (fd >= 0) {
		u.had_cfg = !bpf_map_lookup_elem(fd, &zero, &u.cfg);
		close(fd);
	}
	skel = csig_host__open_opts(&oo);
	if (!skel)
		attach_fail(&u, NULL, "cannot open the BPF object: %s",
			    strerror(errno));
	bpf_program__set_autoload(skel->progs.csig_host_dump, 0);
	bpf_program__set_autoload(skel->progs.csig_host_reset, 0);
	err = csig_host__load(skel);
	if (err)
		attach_fail(&u, skel, "loading the host path failed: %s %s",
			    strerror(-err), "(CSIGHOST_DEBUG=1 shows libbpf's log)");
	if (bpf_map__update_elem(skel->maps.csig_host_cfg, &zero, sizeof(zero),
				 &o.cfg, sizeof(o.cfg), BPF_ANY))
		attach_fail(&u, skel, "cannot write the configuration: %s",
			    strerror(errno));

	/* sock_ops: once per cgroup; the pinned link keeps it */
	if (access(pin, F_OK)) {
		link = bpf_program__attach_cgroup(skel->progs.csig_host_sockops, cg);
		if (!link)
			attach_fail(&u, skel, "cannot attach sock_ops to the cgroup: %s",
				    strerror(errno));
		err = bpf_link__pin(link, pin);
		if (err) {
			bpf_link__destroy(link);
			attach_fail(&u, skel, "cannot pin the sock_ops link at %s: %s",
				    pin, strerror(-err));
		}
		bpf_link__destroy(link);	/* the pin holds it */
		u.linked = 1;
	}
	close(cg);

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		attach_fail(&u, skel, "cannot add clsact to %s: %s", argv[1],
			    strerror(-err));
	u.hook_made = !err;
	tco.prog_fd = bpf_program__fd(skel->progs.csig_host_rx);
	tco.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &tco);
	if (err)
		attach_fail(&u, skel, "cannot attach to %s ingress: %s%s", argv[1],
			    strerror(-err), err == -EINVAL ?
			    " (another filter at priority 0xc517?)" : "");
	u.tc_attached = 1;
	if (dev_record(hook.ifindex, cg_ino))
		attach_fail(&u, skel, "cannot record %s in %s: %s", argv[1],
			    CSIG_HOST_PIN_DEVS, strerror(errno));
	if (json)
		printf("{\"dev\":\"%s\",\"prog_id\":%u,\"sockops\":\"%s\",\"sockops_new\":%s}\n",
		       argv[1], tco.prog_id, pin, u.linked ? "true" : "false");
	else
		printf("%s: host path attached (prog id %u), sock_ops %s%s\n",
		       argv[1], tco.prog_id, pin, u.linked ? "" : " (already there)");
	csig_host__destroy(skel);	/* tc and the pins keep the rest */
	return 0;
}

/*
 * The sockets of cgroup @cg in this network namespace no longer act as
 * negotiated: their mark bits and their state go (csig_host_reset).
 * Returns how many were reset, or -1.
 */
static int reset_sockets(__u64 cg)
{
	struct csig_host *skel;
	struct bpf_link *link;
	char buf[256];
	int fd, n = 0;
	ssize_t got;

	skel = open_skel(0, 0, 0, 1);
	skel->bss->csig_host_reset_cg = cg;
	link = bpf_program__attach_iter(skel->progs.csig_host_reset, NULL);
	fd = link ? bpf_iter_create(bpf_link__fd(link)) : -1;
	if (fd < 0) {
		fprintf(stderr, "csighost: cannot reset the sockets: %s\n",
			strerror(errno));
		n = -1;
	} else {
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			n += got;
		if (got < 0) {
			fprintf(stderr, "csighost: resetting the sockets: %s\n",
				strerror(errno));
			n = -1;
		}
		close(fd);
	}
	bpf_link__destroy(link);
	csig_host__destroy(skel);
	return n;
}

static int cmd_detach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);
	struct opts o = { 0 };
	char pin[PATH_MAX];
	int n, cg, err, fd, rc = 0, others;
	__u64 cg_ino;

	n = parse_opts(argc, argv, 1, &o);
	if (n != 2)
		bad_usage("detach DEV [--cgroup DIR]");
	hook.ifindex = ifindex_of(argv[1]);
	hook.attach_point = BPF_TC_INGRESS;
	err = bpf_tc_detach(&hook, &tco);
	if (err) {
		fprintf(stderr, "csighost: nothing attached on %s ingress (%s)\n",
			argv[1], strerror(-err));
		rc = 1;
	}
	cg = cgroup_open(o.cgroup, pin, sizeof(pin));
	close(cg);
	cg_ino = strtoull(pin + strlen(CSIG_HOST_PIN_LINK), NULL, 10);
	/* the cgroup's sock_ops stays while another device uses it */
	others = dev_forget(hook.ifindex, cg_ino);
	if (others) {
		if (!json)
			printf("%s: host path detached; sock_ops %s stays (%d other device%s)\n",
			       argv[1], pin, others, others > 1 ? "s" : "");
		return rc;
	}
	fd = bpf_obj_get(pin);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
		unlink(pin);
	} else {
		fprintf(stderr, "csighost: no sock_ops link at %s\n", pin);
		rc = 1;
	}
	/* what sock_ops did to the cgroup's sockets goes with it */
	if (!access(CSIG_BPF_PIN_SK, F_OK)) {
		n = reset_sockets(cg_ino);
		if (n < 0)
			rc = 1;
		else if (!json)
			printf("%s: host path detached; sock_ops removed, %d socket%s reset\n",
			       argv[1], n, n == 1 ? "" : "s");
	}
	return rc;
}

static const char * const ctr_names[CSIG_HC_NR] = {
	"tags", "tags_removed", "tags_recorded", "tags_unnegotiated",
	"tags_not_tcp", "tags_malformed", "tags_out_of_window",
	"tags_strip_fail", "syn_offered", "syn_offer_rcvd", "synack_accepted",
	"negotiated", "peer_declined", "confirms_sent", "confirmed",
	"opts_sent", "opts_no_room", "opts_sent_data",
	"opts_data_no_fit",
	"opts_parsed", "opts_malformed", "opts_out_of_window",
	"opts_unnegotiated", "marked",
};

/* the dump's two writes, header and state, are one record */
static_assert(sizeof(struct csig_host_sock_rec) ==
	      sizeof(struct csig_host_sock_hdr) + sizeof(struct csig_bpf_sk),
	      "padding in struct csig_host_sock_rec");

/*
 * The sockets with state in this network namespace (NETNS with -n): a TCP
 * socket iterator visits the sockets of the namespace its reader is in.
 */
static void show_sockets(void)
{
	struct csig_host *skel;
	struct bpf_link *link;
	struct csig_host_sock_rec r;
	unsigned int netns = 0;
	int fd, first = 1;
	struct stat st;
	ssize_t got;

	if (!stat("/proc/self/ns/net", &st))
		netns = st.st_ino;
	skel = open_skel(0, 0, 1, 0);
	link = bpf_program__attach_iter(skel->progs.csig_host_dump, NULL);
	if (!link)
		die("cannot attach the socket dump: %s", strerror(errno));
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		die("cannot start the socket dump: %s", strerror(errno));
	if (json)
		printf(",\"sockets\":[");
	while ((got = read(fd, &r, sizeof(r))) == sizeof(r)) {
		char la[INET6_ADDRSTRLEN], ra[INET6_ADDRSTRLEN];
		const struct csig_bpf_sk *v = &r.sk;
		struct csig_host_sock_hdr *h = &r.h;
		int af = h->family == 10 ? AF_INET6 : AF_INET, t, k = 0;

		/* an IPv4 flow of an IPv6 socket (v4-mapped): as IPv4 */
		if (af == AF_INET6 && !h->laddr[0] && !h->laddr[1] &&
		    h->laddr[2] == htonl(0xffff) && !h->raddr[0] && !h->raddr[1] &&
		    h->raddr[2] == htonl(0xffff)) {
			af = AF_INET;
			h->laddr[0] = h->laddr[3];
			h->raddr[0] = h->raddr[3];
		}
		inet_ntop(af, h->laddr, la, sizeof(la));
		inet_ntop(af, h->raddr, ra, sizeof(ra));
		if (json) {
			printf("%s{\"netns\":%u,\"local\":\"%s\",\"lport\":%u,",
			       first ? "" : ",", netns, la, h->lport);
			printf("\"remote\":\"%s\",\"rport\":%u,\"tcp_state\":%u,",
			       ra, h->rport, h->state);
			printf("\"state\":%u,\"offered\":%s,\"negotiated\":%s,",
			       v->state, v->state & CSIG_BPF_OFFERED ? "true" : "false",
			       v->state & CSIG_BPF_NEGOTIATED ? "true" : "false");
			printf("\"rcv_nxt\":%u,\"snd_una\":%u,\"snd_nxt\":%u,",
			       h->rcv_nxt, h->snd_una, h->snd_nxt);
			printf("\"have\":%u,\"confirms\":%u,\"samples\":[",
			       v->have, v->confirms);
		} else {
			printf("%s%s%s:%u %s%s%s:%u netns %u tcp %u %s%s have 0x%x",
			       af == AF_INET6 ? "[" : "", la, af == AF_INET6 ? "]" : "",
			       h->lport, af == AF_INET6 ? "[" : "", ra,
			       af == AF_INET6 ? "]" : "", h->rport, netns, h->state,
			       v->state & CSIG_BPF_NEGOTIATED ? "negotiated" : "-",
			       v->state & CSIG_BPF_OFFERED ? ",offered" : "",
			       v->have);
			printf(" tx:");
		}
		first = 0;
		for (t = 0; t <= CSIG_OPT_T_MASK; t++) {
			const struct csig_bpf_sample *s = &v->s[t];
			unsigned long long age;

			if (!(v->have & (1U << t)))
				continue;
			age = h->now_ns > s->t_ns ? (h->now_ns - s->t_ns) / 1000 : 0;
			if (json) {
				printf("%s{\"type\":%u,\"format\":%u,\"s\":%u,\"lm\":%u,",
				       k++ ? "," : "", s->s.type, s->s.format, s->s.s,
				       s->s.lm);
				printf("\"fresh\":%u,\"age_us\":%llu,\"ack_seq\":%u,\"seq\":%u}",
				       s->s.fresh, age, s->ack_seq, s->seq);
			} else {
				printf(" %u/%u/%u/%u/%llu", s->s.type, s->s.format,
				       s->s.s, s->s.lm, age);
			}
		}
		printf(json ? "],\"rx\":[" : " rx:");
		k = 0;
		for (t = 0; t <= CSIG_OPT_T_MASK; t++) {
			__u64 w = v->rx[t];

			if (!(w & CSIG_BPF_RX_VALID))
				continue;
			if (json) {
				printf("%s{\"type\":%u,\"format\":%u,\"s\":%llu,",
				       k++ ? "," : "", t,
				       (unsigned int)(w >> CSIG_BPF_RX_F_SHIFT) & 1,
				       (w >> CSIG_BPF_RX_S_SHIFT) & CSIG_BPF_RX_S_MASK);
				printf("\"lm\":%llu,\"gen\":%llu,\"sent\":%u}",
				       w & CSIG_BPF_RX_LM_MASK,
				       w >> CSIG_BPF_RX_GEN_SHIFT, v->rx_sent[t]);
			} else {
				printf(" %u/%u/%llu/%llu", t,
				       (unsigned int)(w >> CSIG_BPF_RX_F_SHIFT) & 1,
				       (w >> CSIG_BPF_RX_S_SHIFT) & CSIG_BPF_RX_S_MASK,
				       w & CSIG_BPF_RX_LM_MASK);
			}
		}
		printf(json ? "]}" : "\n");
	}
	if (got < 0)
		die("reading the socket dump: %s", strerror(errno));
	if (json)
		printf("]");
	close(fd);
	bpf_link__destroy(link);
	csig_host__destroy(skel);
}

static int cmd_show(int argc, char **argv)
{
	struct csig_host_stats *per;
	struct csig_host_cfg c;
	struct opts o = { 0 };
	__u64 sum[CSIG_HC_NR] = { 0 };
	int ncpu, cfd, sfd, kfd, i, j;
	__u32 zero = 0;

	if (parse_opts(argc, argv, 1, &o) != 1)
		bad_usage("show [--sockets]");
	need_bpffs();
	cfd = bpf_obj_get(CSIG_HOST_PIN_CFG);
	sfd = bpf_obj_get(CSIG_HOST_PIN_STATS);
	kfd = bpf_obj_get(CSIG_BPF_PIN_SK);
	if (cfd < 0 || sfd < 0 || kfd < 0)
		die("the host path was never attached here (no maps under %s)",
		    CSIG_BPF_PIN_DIR);
	if (bpf_map_lookup_elem(cfd, &zero, &c))
		die("reading the configuration: %s", strerror(errno));
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		die("cannot count the CPUs");
	per = calloc(ncpu, sizeof(*per));
	if (!per || bpf_map_lookup_elem(sfd, &zero, per))
		die("reading the counters: %s", strerror(errno));
	for (i = 0; i < ncpu; i++)
		for (j = 0; j < CSIG_HC_NR; j++)
			sum[j] += per[i].c[j];
	free(per);
	if (json) {
		printf("{\"config\":{\"offer\":%s,\"accept\":%s,",
		       c.flags & CSIG_HOST_OFFER ? "true" : "false",
		       c.flags & CSIG_HOST_ACCEPT ? "true" : "false");
		printf("\"mark\":%u,\"tpid\":[%u,%u]},\"counters\":{",
		       c.mark, c.tpid[0], c.tpid[1]);
		for (j = 0; j < CSIG_HC_NR; j++)
			printf("%s\"%s\":%llu", j ? "," : "", ctr_names[j],
			       (unsigned long long)sum[j]);
		printf("}");
	} else {
		printf("config: offer %d accept %d mark 0x%x tpid 0x%x,0x%x\n",
		       !!(c.flags & CSIG_HOST_OFFER), !!(c.flags & CSIG_HOST_ACCEPT),
		       c.mark, c.tpid[0], c.tpid[1]);
		for (j = 0; j < CSIG_HC_NR; j++)
			printf("%s %llu\n", ctr_names[j], (unsigned long long)sum[j]);
	}
	if (o.sockets)
		show_sockets();
	if (json)
		printf("}\n");
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

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			break;
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns")) &&
			 i + 1 < argc)
			enter_netns(argv[++i]);
		else
			bad_usage("unknown option '%s' (see csighost help)", argv[i]);
	}
	if (i >= argc || !strcmp(argv[i], "help") || argv[i][0] == '-') {
		fputs(usage_text, i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	argc -= i;
	argv += i;
	if (!getenv("CSIGHOST_DEBUG"))
		libbpf_set_print(NULL);
	if (!strcmp(argv[0], "attach"))
		return cmd_attach(argc, argv);
	if (!strcmp(argv[0], "detach"))
		return cmd_detach(argc, argv);
	if (!strcmp(argv[0], "show"))
		return cmd_show(argc, argv);
	return bad_usage("unknown command '%s' (see csighost help)", argv[0]);
}
