// SPDX-License-Identifier: GPL-2.0
/*
 * dccbpf: register, unregister and inspect the module-free flavour's
 * congestion controls, hpcc_bpf and ldcp_bpf (tools/bpf/tcp_hpcc.bpf.c,
 * tools/bpf/tcp_ldcp.bpf.c).  Documentation/bpf.rst.
 *
 *   dccbpf load [hpcc|ldcp|all] [KEY=VALUE ...]
 *   dccbpf unload [hpcc|ldcp|all]
 *   dccbpf show [--json] [-N NETNS]
 *
 * load registers each algorithm's struct_ops map and pins it under
 * /sys/fs/bpf/tcp-dcc, so that it stays registered after dccbpf exits;
 * unload unregisters it through that pin.  Before the load it reads the
 * running kernel's BTF for cong_control's arguments (6.10 added two) and
 * tells the programs which to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "dcc_bpf.h"
#include "tcp_hpcc.skel.h"
#include "tcp_ldcp.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BPF_FS_MAGIC	0xcafe4a11
#define NO_BPFFS	"dccbpf: no BPF filesystem at /sys/fs/bpf (mount -t bpf none " \
			"/sys/fs/bpf; 'ip netns exec' hides it)\n"
#define NO_CC_BTF	"dccbpf: tcp_congestion_ops.cong_control not found in the " \
			"kernel's BTF, or with arguments this build does not know\n"
#define NAME_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
/* ss prints each socket, then a line of its state with the CC's name */
#define SS_FILTER	"awk '/^[A-Z]/ { s = $0; next } " \
			"/(^|[ \t])(hpcc_bpf|ldcp_bpf)[ \t]/ { print s; print; n++ } " \
			"END { if (!n) print \"(no socket uses hpcc_bpf or ldcp_bpf)\" }'"

static const char *usage_text =
"usage: dccbpf COMMAND ...\n"
"\n"
"  load [hpcc|ldcp|all] [KEY=VALUE ...]   register hpcc_bpf and/or ldcp_bpf\n"
"                                         (pinned in " DCC_BPF_PIN_DIR ")\n"
"  unload [hpcc|ldcp|all]                 unregister them\n"
"  show [--json] [-N NETNS]               what is registered, the counters,\n"
"                                         each socket's state (U, W, cw, ...)\n"
"                                         and its ss -ti lines, in NETNS\n"
"                                         (--json: as JSON); whether hpcc_bpf\n"
"                                         reads the csig_sk the host path\n"
"                                         writes (exit status 1 if not)\n"
"\n"
"KEY=VALUE sets a parameter for this load (tcp_hpcc's and tcp_ldcp's\n"
"module parameters, with the same ranges):\n"
"  hpcc: base_rtt_us eta max_stage w_ai nflows line_rate_mbps grow_pct\n"
"        commit_samples commit_wait_pct stale_rtts input=auto|u|std\n"
"  ldcp: alpha_milli beta_milli gamma_div bw_mbps base_rtt_us fast_start\n"
"        below_one_inc ack_every\n"
"  (prefix with hpcc. or ldcp. where both load: ldcp.base_rtt_us=4000)\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

enum { CC_HPCC = 1, CC_LDCP = 2 };

struct param {
	int cc;
	const char *name;
	unsigned int lo, hi;
	size_t off;		/* in struct hpcc_cfg or ldcp_bpf_cfg */
};

#define HP(n, f, l, h) { CC_HPCC, n, l, h, offsetof(struct hpcc_cfg, f) }
#define LP(n, f, l, h) { CC_LDCP, n, l, h, offsetof(struct ldcp_bpf_cfg, f) }

static const struct param params[] = {
	HP("base_rtt_us", base_rtt_us, 0, 1000000),
	HP("eta", eta, 50, 100),
	HP("max_stage", max_stage, 0, 100),
	HP("w_ai", w_ai, 0, 16 << 20),
	HP("nflows", nflows, 1, 65536),
	HP("line_rate_mbps", line_rate_mbps, 1, 4000000),
	HP("grow_pct", grow_pct, 0, 100),
	HP("commit_samples", commit_samples, 0, 16),
	HP("commit_wait_pct", commit_wait_pct, 0, 1000),
	HP("stale_rtts", stale_rtts, 1, 1000),
	HP("input", input, 0, 2),
	LP("alpha_milli", alpha_milli, 1, 1000),
	LP("beta_milli", beta_milli, 1, 1000),
	LP("gamma_div", gamma_div, 4, 16),
	LP("bw_mbps", bw_mbps, 1, 4000000),
	LP("base_rtt_us", base_rtt_us, 1, 1000000),
	LP("fast_start", fast_start, 0, 1),
	LP("below_one_inc", below_one_inc, 0, 1),
	LP("ack_every", ack_every, 0, 1),
};

static int bpffs_ok(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC) {
		fputs(NO_BPFFS, stderr);
		return 0;
	}
	return 1;
}

/*
 * 1 when the running kernel's cong_control takes (sk, ack, flag, rs)
 * (6.10 and later), 0 for (sk, rs), -1 when its BTF does not say.
 */
static int cong_control_ack(void)
{
	const struct btf_member *m;
	const struct btf_type *t;
	struct btf *btf;
	int id, i, r = -1;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "dccbpf: no kernel BTF (/sys/kernel/btf/vmlinux): %s\n",
			strerror(errno));
		return -1;
	}
	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id < 0)
		goto out;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "cong_control"))
			continue;
		t = btf__type_by_id(btf, m->type);
		while (t && (btf_is_ptr(t) || btf_is_mod(t) || btf_is_typedef(t)))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_func_proto(t) &&
		    (btf_vlen(t) == 2 || btf_vlen(t) == 4))
			r = btf_vlen(t) == 4;
		break;
	}
out:
	if (r < 0)
		fputs(NO_CC_BTF, stderr);
	btf__free(btf);
	return r;
}

static int set_param(int which, const char *arg, void *hpcc_cfg, void *ldcp_cfg)
{
	const char *eq = strchr(arg, '='), *name = arg;
	int cc = which, n = 0;
	unsigned long v;
	size_t len;
	char *end;
	size_t i;

	if (!eq)
		return -1;
	if (!strncmp(arg, "hpcc.", 5)) {
		cc = CC_HPCC;
		name += 5;
	} else if (!strncmp(arg, "ldcp.", 5)) {
		cc = CC_LDCP;
		name += 5;
	}
	len = eq - name;
	if (!strncmp(name, "input", len) && len == 5) {
		static const char * const in[] = HPCC_INPUT_NAMES;

		for (i = 0; i < ARRAY_SIZE(in); i++)
			if (!strcmp(eq + 1, in[i]))
				break;
		if (i == ARRAY_SIZE(in)) {
			fprintf(stderr, "dccbpf: input must be auto, u or std\n");
			return -2;
		}
		v = i;
	} else {
		errno = 0;
		v = strtoul(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end) {
			fprintf(stderr, "dccbpf: %s: not a number\n", arg);
			return -2;
		}
	}
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		const struct param *p = &params[i];
		void *cfg = p->cc == CC_HPCC ? hpcc_cfg : ldcp_cfg;

		if (!(p->cc & cc) || strlen(p->name) != len ||
		    strncmp(p->name, name, len))
			continue;
		if (v < p->lo || v > p->hi) {
			fprintf(stderr, "dccbpf: %.*s must be in [%u, %u]\n",
				(int)len, name, p->lo, p->hi);
			return -2;
		}
		if (cfg)
			*(__u32 *)((char *)cfg + p->off) = v;
		n++;
	}
	if (!n) {
		fprintf(stderr, "dccbpf: unknown parameter %.*s\n", (int)len, name);
		return -2;
	}
	return 0;
}

static int pin_path(char *buf, size_t len, const char *name)
{
	return snprintf(buf, len, "%s/%s", DCC_BPF_PIN_DIR, name) >= (int)len ? -1 : 0;
}

#define SEP	"\n\t "

static int registered(const char *name)
{
	char buf[512];
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
	char *tok, *save;
	int r = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, SEP, &save); tok;
		     tok = strtok_r(NULL, SEP, &save))
			if (!strcmp(tok, name))
				r = 1;
	fclose(f);
	return r;
}

/* Pin @prog's iterator as DCC_BPF_PIN_DIR/<name>_socks. */
static int pin_iter(struct bpf_program *prog, const char *name)
{
	struct bpf_link *link;
	char path[256];
	int err;

	snprintf(path, sizeof(path), "%s/%s_socks", DCC_BPF_PIN_DIR, name);
	link = bpf_program__attach_iter(prog, NULL);
	if (!link) {
		fprintf(stderr, "dccbpf: %s's socket iterator: %s\n", name, strerror(errno));
		return -1;
	}
	err = bpf_link__pin(link, path);
	if (err)
		fprintf(stderr, "dccbpf: pinning %s: %s\n", path, strerror(-err));
	bpf_link__destroy(link);	/* the pin holds it */
	return err ? -1 : 0;
}

/* Register @map and pin what holds it registered, and @iter. */
static int attach_pin(struct bpf_map *map, struct bpf_program *iter,
		      const char *name)
{
	struct bpf_link *link;
	char path[256];
	int err;

	if (pin_iter(iter, name))
		return -1;

	if (pin_path(path, sizeof(path), name))
		return -1;
	link = bpf_map__attach_struct_ops(map);
	if (!link) {
		fprintf(stderr, "dccbpf: registering %s: %s\n", name, strerror(errno));
		snprintf(path, sizeof(path), "%s/%s_socks", DCC_BPF_PIN_DIR, name);
		unlink(path);
		return -1;
	}
	err = bpf_link__pin(link, path);
	if (err) {
		fprintf(stderr, "dccbpf: pinning %s at %s: %s\n", name, path,
			strerror(-err));
		bpf_link__destroy(link);	/* unregisters it */
		return -1;
	}
	/* the pin, not this process, keeps it registered from now on */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	printf("dccbpf: %s registered, pinned at %s\n", name, path);
	return 0;
}

static int load_hpcc(struct tcp_hpcc *skel)
{
	int err = tcp_hpcc__load(skel);

	if (err) {
		fprintf(stderr, "dccbpf: loading hpcc_bpf: %s\n", strerror(-err));
		return -1;
	}
	return attach_pin(skel->maps.hpcc_bpf, skel->progs.hpcc_socks, HPCC_BPF_NAME);
}

static int load_ldcp(struct tcp_ldcp *skel)
{
	int err = tcp_ldcp__load(skel);

	if (err) {
		fprintf(stderr, "dccbpf: loading ldcp_bpf: %s\n", strerror(-err));
		return -1;
	}
	return attach_pin(skel->maps.ldcp_bpf, skel->progs.ldcp_socks, LDCP_BPF_NAME);
}

static int which_cc(const char *s)
{
	if (!strcmp(s, "hpcc"))
		return CC_HPCC;
	if (!strcmp(s, "ldcp"))
		return CC_LDCP;
	if (!strcmp(s, "all"))
		return CC_HPCC | CC_LDCP;
	return 0;
}

static int cmd_unload(int which);

static int cmd_load(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = DCC_BPF_PIN_DIR);
	char kconfig[64];
	struct tcp_hpcc *h = NULL;
	struct tcp_ldcp *l = NULL;
	int which = CC_HPCC | CC_LDCP, i = 0, abi, rc = 1;

	if (argc > 0 && !strchr(argv[0], '=')) {
		which = which_cc(argv[0]);
		if (!which)
			return usage();
		i = 1;
	}
	/* arguments first: a bad one changes nothing */
	for (int j = i; j < argc; j++) {
		int r = set_param(which, argv[j], NULL, NULL);

		if (r == -1)
			return usage();
		if (r)
			return 2;
	}
	if (!bpffs_ok())
		return 1;
	if ((which & CC_HPCC) && registered(HPCC_BPF_NAME)) {
		fprintf(stderr, "dccbpf: hpcc_bpf is already registered\n");
		return 1;
	}
	if ((which & CC_LDCP) && registered(LDCP_BPF_NAME)) {
		fprintf(stderr, "dccbpf: ldcp_bpf is already registered\n");
		return 1;
	}
	abi = cong_control_ack();
	if (abi < 0)
		return 1;
	/* the programs' CONFIG_DCC_CONG_CONTROL_ACK (tools/bpf/bpf_tcp_ca.h) */
	snprintf(kconfig, sizeof(kconfig), "CONFIG_DCC_CONG_CONTROL_ACK=%c\n",
		 abi ? 'y' : 'n');
	oo.kconfig = kconfig;
	if (mkdir(DCC_BPF_PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "dccbpf: mkdir %s: %s\n", DCC_BPF_PIN_DIR, strerror(errno));
		return 1;
	}
	if (which & CC_HPCC) {
		h = tcp_hpcc__open_opts(&oo);
		if (!h) {
			fprintf(stderr, "dccbpf: opening hpcc_bpf: %s\n", strerror(errno));
			goto out;
		}
	}
	if (which & CC_LDCP) {
		l = tcp_ldcp__open_opts(&oo);
		if (!l) {
			fprintf(stderr, "dccbpf: opening ldcp_bpf: %s\n", strerror(errno));
			goto out;
		}
	}
	for (; i < argc; i++)
		set_param(which, argv[i], h ? &h->data->cfg : NULL,
			  l ? &l->data->cfg : NULL);
	if (h && load_hpcc(h))
		goto out;
	if (l && load_ldcp(l)) {
		if (h)
			cmd_unload(CC_HPCC);
		goto out;
	}
	rc = 0;
out:
	tcp_hpcc__destroy(h);
	tcp_ldcp__destroy(l);
	return rc;
}

/* Unregister @name through its pin; 1 when there was none. */
static int unload_one(const char *name, const char *counters)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	char path[256];
	int fd, rc = 0;

	if (pin_path(path, sizeof(path), name))
		return -1;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "dccbpf: %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (registered(name))
			fprintf(stderr, "dccbpf: %s is registered, not pinned at %s\n",
				name, path);
		return 1;
	}
	/*
	 * libbpf before 1.2 registers by updating the struct_ops map (the
	 * pin is the map); later ones create a link (the pin is the link).
	 */
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == BPF_MAP_TYPE_STRUCT_OPS) {
		if (bpf_map_delete_elem(fd, &zero) && errno != ENOENT) {
			fprintf(stderr, "dccbpf: unregistering %s: %s\n", name,
				strerror(errno));
			rc = -1;
		}
	} else if (bpf_link_detach(fd)) {
		fprintf(stderr, "dccbpf: detaching %s: %s\n", name, strerror(errno));
		rc = -1;
	}
	close(fd);
	if (!rc) {
		unlink(path);
		if (!pin_path(path, sizeof(path), counters))
			unlink(path);
		snprintf(path, sizeof(path), "%s/%s_socks", DCC_BPF_PIN_DIR, name);
		unlink(path);
		printf("dccbpf: %s unregistered\n", name);
	}
	return rc;
}

static int cmd_unload(int which)
{
	int rc = 0, r, any = 0;

	if (!bpffs_ok())
		return 1;
	if (which & CC_HPCC) {
		r = unload_one(HPCC_BPF_NAME, HPCC_BPF_COUNTERS);
		rc |= r < 0;
		any |= r == 0;
	}
	if (which & CC_LDCP) {
		r = unload_one(LDCP_BPF_NAME, LDCP_BPF_COUNTERS);
		rc |= r < 0;
		any |= r == 0;
	}
	if (!rc && !any)
		fprintf(stderr, "dccbpf: nothing to unload\n");
	return rc;
}

static int json;

/* @s as a JSON string: what dccbpf prints has no control characters
 * but tabs, and quotes or backslashes only from names.
 */
static void json_str(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\')
			printf("\\%c", s[i]);
		else if ((unsigned char)s[i] < 0x20)
			printf("\\u%04x", s[i]);
		else
			putchar(s[i]);
	}
	putchar('"');
}

static void show_counters(const char *name, const char *pin,
			  const char * const *names, int n)
{
	struct dcc_bpf_counters *v;
	int ncpu = libbpf_num_possible_cpus(), fd, i, c, reg = registered(name);
	char path[256];
	__u32 zero = 0;

	if (ncpu <= 0 || pin_path(path, sizeof(path), pin))
		return;
	if (json)
		printf("\"%s\":{\"registered\":%s,\"counters\":", name,
		       reg ? "true" : "false");
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (json)
			printf("null}");
		else
			printf("%s: %s\n", name, reg ?
			       "registered, no counters pinned" : "not loaded");
		return;
	}
	v = calloc(ncpu, sizeof(*v));
	if (!v || bpf_map_lookup_elem(fd, &zero, v)) {
		if (json)
			printf("null,\"error\":\"%s\"}", strerror(errno));
		else
			printf("%s: counters unreadable: %s\n", name, strerror(errno));
		free(v);
		close(fd);
		return;
	}
	if (!json)
		printf("%s: %s\n", name, reg ? "registered" :
		       "NOT registered (counters pinned)");
	for (i = 0; i < n; i++) {
		unsigned long long s = 0;

		for (c = 0; c < ncpu; c++)
			s += v[c].c[i];
		if (json)
			printf("%s\"%s\":%llu", i ? "," : "{", names[i], s);
		else
			printf("  %s %llu\n", names[i], s);
	}
	if (json)
		printf("%s}", n ? "}" : "{}");
	free(v);
	close(fd);
}

/*
 * One line of a socket iterator as a JSON object: "LOCAL REMOTE" and
 * then KEY VALUE pairs (tcp_hpcc.bpf.c's and tcp_ldcp.bpf.c's
 * hpcc_socks() and ldcp_socks()); a value that is a number stays one.
 */
static void json_sock_line(char *line)
{
	char *tok[64], *save, *t, *end;
	int n = 0, i;

	for (t = strtok_r(line, " \t\n", &save); t && n < 64;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	printf("{\"local\":");
	json_str(n > 0 ? tok[0] : "", 256);
	printf(",\"remote\":");
	json_str(n > 1 ? tok[1] : "", 256);
	for (i = 2; i + 1 < n; i += 2) {
		putchar(',');
		json_str(tok[i], 256);
		putchar(':');
		strtod(tok[i + 1], &end);
		if (*end || end == tok[i + 1] || tok[i + 1][0] == '-' ||
		    (tok[i + 1][0] == '0' && tok[i + 1][1] && tok[i + 1][1] != '.'))
			json_str(tok[i + 1], 256);
		else
			fputs(tok[i + 1], stdout);
	}
	putchar('}');
}

/* Each socket of @name's, from its pinned iterator, in this namespace. */
static void show_socks(const char *name)
{
	char path[256], buf[4096];
	int lfd, fd, n;

	snprintf(path, sizeof(path), "%s/%s_socks", DCC_BPF_PIN_DIR, name);
	lfd = bpf_obj_get(path);
	if (lfd < 0) {
		if (json)
			printf("\"%s\":null", name);
		return;
	}
	fd = bpf_iter_create(lfd);
	if (fd < 0) {
		if (json)
			printf("\"%s\":null", name);
		else
			printf("  (%s: %s)\n", path, strerror(errno));
		close(lfd);
		return;
	}
	if (json) {
		FILE *f = fdopen(fd, "r");
		char line[1024];
		int k = 0;

		printf("\"%s\":[", name);
		while (f && fgets(line, sizeof(line), f)) {
			if (k++)
				putchar(',');
			json_sock_line(line);
		}
		putchar(']');
		if (f)
			fclose(f);
		else
			close(fd);
		close(lfd);
		return;
	}
	printf("%s sockets (local remote state):\n", name);
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			break;
	if (n < 0)
		printf("  (reading %s: %s)\n", path, strerror(errno));
	fflush(stdout);
	close(fd);
	close(lfd);
}

/*
 * The CSIG socket storage each side uses.  hpcc_bpf and the host path
 * (csighost) share csig_sk only through its pin, /sys/fs/bpf/tcp-dcc/
 * csig_sk: loaded under two BPF filesystems (two mount namespaces, an
 * unmount between the loads) they get a map each, and hpcc_bpf reads a
 * storage nobody writes, and runs its fallback, silently.  The programs
 * tell which maps they use: hpcc_bpf's struct_ops programs (hpcc_*) and
 * the host path's sock_ops and tc programs, found among every program
 * loaded, whatever mount namespace loaded them.
 */
#define MAX_IDS	16

struct map_ids {
	__u32	id[MAX_IDS];
	int	n;
};

static void ids_add(struct map_ids *m, __u32 id)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return;
	if (m->n < MAX_IDS)
		m->id[m->n++] = id;
}

/* csig_sk's id among the maps of program @fd, or 0 */
static __u32 prog_csig_sk(int fd, const struct bpf_prog_info *pi)
{
	__u32 ids[64], i, found = 0;
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (pi->nr_map_ids == 0)
		return 0;
	info.nr_map_ids = pi->nr_map_ids < 64 ? pi->nr_map_ids : 64;
	info.map_ids = (unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	for (i = 0; i < info.nr_map_ids && !found; i++) {
		struct bpf_map_info mi = { 0 };
		__u32 ml = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &ml) &&
		    mi.type == BPF_MAP_TYPE_SK_STORAGE && !strcmp(mi.name, "csig_sk"))
			found = mi.id;
		close(mfd);
	}
	return found;
}

/* 0: the same map or nothing to compare; 1: different maps */
static int show_csig_sk(void)
{
	struct map_ids hp = { 0 }, host = { 0 };
	struct bpf_map_info mi = { 0 };
	__u32 id = 0, ml = sizeof(mi), pinned = 0;
	int fd, i, j, differ = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info pi = { 0 };
		__u32 len = sizeof(pi), m;

		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &pi, &len)) {
			close(fd);
			continue;
		}
		if (pi.type == BPF_PROG_TYPE_STRUCT_OPS &&
		    !strncmp(pi.name, "hpcc_", 5)) {
			m = prog_csig_sk(fd, &pi);
			if (m)
				ids_add(&hp, m);
		} else if ((pi.type == BPF_PROG_TYPE_SOCK_OPS &&
			    !strncmp(pi.name, "csig_host_socko", 15)) ||
			   (pi.type == BPF_PROG_TYPE_SCHED_CLS &&
			    !strcmp(pi.name, "csig_host_rx"))) {
			m = prog_csig_sk(fd, &pi);
			if (m)
				ids_add(&host, m);
		}
		close(fd);
	}
	fd = bpf_obj_get(CSIG_BPF_PIN_SK);
	if (fd >= 0) {
		if (!bpf_obj_get_info_by_fd(fd, &mi, &ml))
			pinned = mi.id;
		close(fd);
	}
	/*
	 * Shared when a host path program writes the map hpcc_bpf reads;
	 * other host paths (another BPF filesystem's, another user's) may
	 * run beside it.  Different when host path programs run and none
	 * writes it.
	 */
	for (i = 0; i < hp.n; i++) {
		int found = 0;

		for (j = 0; j < host.n; j++)
			found |= hp.id[i] == host.id[j];
		if (host.n && !found)
			differ = 1;
	}
	if (json) {
		printf("\"csig_sk\":{\"hpcc_bpf\":[");
		for (i = 0; i < hp.n; i++)
			printf("%s%u", i ? "," : "", hp.id[i]);
		printf("],\"host_path\":[");
		for (i = 0; i < host.n; i++)
			printf("%s%u", i ? "," : "", host.id[i]);
		printf("],\"pinned\":");
		if (pinned)
			printf("%u", pinned);
		else
			printf("null");
		printf(",\"shared\":%s}", !hp.n || !host.n ? "null" :
		       differ ? "false" : "true");
		return differ;
	}
	printf("csig_sk: hpcc_bpf reads map id");
	for (i = 0; i < hp.n; i++)
		printf(" %u", hp.id[i]);
	printf("%s, the host path (csighost) writes map id", hp.n ? "" : " (none: not loaded)");
	for (i = 0; i < host.n; i++)
		printf(" %u", host.id[i]);
	printf("%s; pinned at %s here: ", host.n ? "" : " (none: not attached)",
	       CSIG_BPF_PIN_SK);
	if (pinned)
		printf("map id %u\n", pinned);
	else
		printf("none\n");
	if (differ)
		printf("csig_sk: DIFFERENT maps: %s,\n  %s; %s\n  %s\n",
		       "hpcc_bpf reads a socket storage the host path does not write",
		       "and runs its fallback (Reno) on every flow",
		       "load both under one BPF filesystem",
		       "(one mount namespace's /sys/fs/bpf)");
	else if (hp.n && host.n)
		printf("csig_sk: shared, hpcc_bpf reads what the host path writes\n");
	return differ;
}

static int cmd_show(int argc, char **argv)
{
	static const char * const hn[] = HPCC_COUNTER_NAMES;
	static const char * const ln[] = LDCP_COUNTER_NAMES;
	const char *netns = NULL;
	char path[256], line[1024];
	int rc, fd, i, differ, k = 0;
	FILE *ss;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "-N") && i + 1 < argc && !netns)
			netns = argv[++i];
		else
			return usage();
	}
	if (netns && (strspn(netns, NAME_CHARS) != strlen(netns) || !*netns)) {
		fprintf(stderr, "dccbpf: bad namespace name\n");
		return 2;
	}
	if (!bpffs_ok())
		return 1;
	/* the network namespace only: /sys/fs/bpf stays this one's */
	if (netns) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "dccbpf: network namespace %s: %s\n", netns,
				strerror(errno));
			return 1;
		}
		close(fd);
	}
	if (json)
		printf("{\"netns\":%s%s%s,\"algorithms\":{", netns ? "\"" : "",
		       netns ? netns : "null", netns ? "\"" : "");
	show_counters(HPCC_BPF_NAME, HPCC_BPF_COUNTERS, hn, ARRAY_SIZE(hn));
	if (json)
		putchar(',');
	show_counters(LDCP_BPF_NAME, LDCP_BPF_COUNTERS, ln, ARRAY_SIZE(ln));
	if (json)
		printf("},\"sockets\":{");
	show_socks(HPCC_BPF_NAME);
	if (json)
		putchar(',');
	show_socks(LDCP_BPF_NAME);
	if (json)
		printf("},");
	differ = show_csig_sk();
	if (!json) {
		printf("ss -tni%s%s:\n", netns ? " in " : "", netns ? netns : "");
		fflush(stdout);
		rc = system("ss -tni | " SS_FILTER);
		return rc ? 1 : differ;
	}
	/* ss's lines as they are, two a socket (its addresses, its state) */
	printf(",\"ss\":[");
	fflush(stdout);
	ss = popen("ss -tniH | " SS_FILTER " | grep -v '^(no socket'", "r");
	while (ss && fgets(line, sizeof(line), ss)) {
		line[strcspn(line, "\n")] = 0;
		printf("%s", k++ ? "," : "");
		json_str(line, sizeof(line));
	}
	rc = ss ? pclose(ss) : -1;
	printf("]}\n");
	return rc == -1 ? 1 : differ;
}

int main(int argc, char **argv)
{
	int which;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "load"))
		return cmd_load(argc - 2, argv + 2);
	if (!strcmp(argv[1], "unload")) {
		if (argc > 3)
			return usage();
		which = argc == 3 ? which_cc(argv[2]) : CC_HPCC | CC_LDCP;
		return which ? cmd_unload(which) : usage();
	}
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 2, argv + 2);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	fprintf(stderr, "dccbpf: unknown command %s\n", argv[1]);
	return usage();
}
