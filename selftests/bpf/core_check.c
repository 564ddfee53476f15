// SPDX-License-Identifier: GPL-2.0
/*
 * core_check: do a BPF object's CO-RE relocations resolve against
 * another kernel's BTF?  For selftests/host/dccbpf_core.t, which checks
 * hpcc_bpf and ldcp_bpf against the target kernels' images without
 * booting them.
 *
 *   core_check OBJ BTF_FILE      prints "relocations N failed M unmatched U"
 *
 * failed: relocations the verifier met poisoned (it stops at the first
 * error, so a program that fails earlier hides the rest); unmatched:
 * relocations libbpf found no target for, whether or not a load reached
 * them.
 *
 * libbpf relocates when it loads, so the object is loaded into the
 * running kernel with the other kernel's offsets: the load is expected
 * to fail there (and nothing is attached either way); what counts is
 * libbpf's log of the relocations.  Maps are not pinned.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static int relos, failed, unmatched;

static int log_line(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, ": relo #"))
		relos++;
	if (strstr(buf, "failed to resolve CO-RE relocation")) {
		failed++;
		fputs(buf, stderr);
	}
	if (strstr(buf, ": relo #") && strstr(buf, "no matching targets found"))
		unmatched++;
	return 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .kconfig = "CONFIG_DCC_CONG_CONTROL_ACK=n\n");
	struct bpf_object *obj;
	struct bpf_map *m;

	if (argc != 3) {
		fputs("usage: core_check OBJ BTF_FILE\n", stderr);
		return 2;
	}
	oo.btf_custom_path = argv[2];
	libbpf_set_print(log_line);
	obj = bpf_object__open_file(argv[1], &oo);
	if (!obj) {
		fprintf(stderr, "core_check: cannot open %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_map(m, obj)
		bpf_map__set_pin_path(m, NULL);
	bpf_object__load(obj);
	bpf_object__close(obj);
	printf("relocations %d failed %d unmatched %d\n", relos, failed, unmatched);
	return 0;
}
