# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the project's modules against every target kernel
# installed on this machine, each in its own output directory.
#
#   make deps                  install everything from Debian's archive
#   make                       build for every target kernel (build/<kver>/),
#                              the BPF objects, csigctl, csighost and ccstat (build/bpf, build/bin)
#   make KVER=<kver>           build for one kernel; KDIR=<dir> overrides its
#                              build tree (default /lib/modules/<kver>/build)
#   make check                 a short pass of each fuzz target, then the
#                              VM suite per kernel and the userspace tests
#   make bench                 the evaluation (Documentation/results.rst):
#                              BPF programs' cost per packet (host), the
#                              BPF flavour natively (host, native.sh),
#                              the scenarios (VM), the cost per ACK (VM);
#                              BENCH="hpcc ..." some of them, ROUNDS=N
#                              rounds of each instead of its default,
#                              CCS="..." the algorithms compared (also
#                              hpcc,KEY=VAL variants, and paced,
#                              hpcc_bpf and ldcp_bpf in the long-flow
#                              scenarios), PROFILE=dc|small|all
#                              the scenarios' path (all: dc, the
#                              headline, with paced beside the five
#                              in its dumbbell and convergence, then
#                              the small profile's mixes;
#                              selftests/bench/run.sh),
#                              LOADS="..." the mixes' loads (60),
#                              FANINS="..." incast's
#                              fan-ins, TRACE=1 hpcc's events
#                              (BENCH=hpcc), RATES="..." its
#                              bottlenecks, Mbit/s; about an hour
#                              at the defaults, BENCH_TIMEOUT=s the
#                              scenario guest's limit (4 h)
#   make bench-ackcost-sim     instructions per ACK of hpcc's and ldcp's
#                              controllers and of DCTCP's sender-side
#                              per-ACK work, callgrind on a recorded ACK
#                              trace (selftests/bench/ackcost_sim.sh;
#                              ACKCOST_RECORD=1 records the traces
#                              again from the ns-3 model first)
#   make bench-native          the BPF flavour alone, on the host kernel
#                              (selftests/bench/native.sh; also
#                              BENCH=native), table in build/bench-native/
#   make lint                  checkpatch --strict, sparse (C=2) and W=1
#   make build32               the modules for 32-bit x86 (Debian's 6.1
#                              686-pae headers, fetched into build/k32/):
#                              64-bit divisions a 32-bit kernel cannot link
#   make flavours              the modules with sparse and W=1 against the
#                              cloud and rt flavours of each 6.12 target
#                              (their headers: make deps), build/flavours/;
#                              then a guest of each installed cloud
#                              flavour loads them and runs a flow of each
#                              algorithm (selftests/flavours/smoke.sh)
#   make kvers                 the kernels make check and make lint use: both
#                              targets (6.1, 6.12) or it fails, unless KVER=
#                              or KVERS= chooses them
#   make fuzz                  libFuzzer targets (FUZZ_RUNS executions each,
#                              FUZZ_SEED=N to replay one)
#   make install [KVER=..]     install the modules (default: running kernel)
#   make deb                   Debian packages in build/deb/: tcp-dcc-dkms
#                              (the sources, built by DKMS) and tcp-dcc-tools
#   make demo                  boot a VM: two flows per congestion control
#                              on its own path, side by side (tools/demo.sh)
#   make sim                   the ns-3 model (sim/, Documentation/sim.rst):
#                              build/sim/dccsim, against libns3-dev
#                              (make check runs its smoke test,
#                              selftests/host/sim_smoke.t)
#   make bench-sim             the datacenter scenarios in the model, every
#                              cc side by side (tools/sim_bench.sh;
#                              SIM_BENCH or SIM, SIM_CCS, SIM_SEEDS,
#                              SIM_JOBS),
#                              tables in build/bench-sim/results.md
#   make clean

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build

ifneq ($(KVER),)
KVERS := $(KVER)
else
KVERS := $(shell $(TOP)/tools/kvers.sh)
endif
kdir = $(if $(KDIR),$(KDIR),/lib/modules/$(1)/build)

# make check and make lint are for both target kernels: they stop at once
# when tools/kvers.sh does not find one, unless KVER or KVERS (on the
# command line) chooses the kernels.  make kvers prints the kernels they
# use, with the same requirement.
target_pkgs.6.1 := linux-image-amd64 and linux-headers-amd64
target_pkgs.6.12 := linux-image-6.12.N+deb12-amd64 and its headers, bookworm-security
ifneq ($(filter check lint kvers,$(MAKECMDGOALS)),)
ifeq ($(KVER)$(filter command line,$(origin KVERS)),)
missing_kvers := $(strip $(foreach s,6.1 6.12,$(if $(filter $(s).%,$(KVERS)),,$(s))))
ifneq ($(missing_kvers),)
$(error make $(filter check lint kvers,$(MAKECMDGOALS)) needs both target kernels, \
	6.1 and 6.12; missing:$(foreach s,$(missing_kvers), $(s) ($(target_pkgs.$(s)));) \
	tools/kvers.sh found: $(or $(KVERS),none).  Run make deps, or choose \
	the kernels with KVERS="...")
endif
endif
endif

# Sources linked into each per-kernel output directory.
MOD_SRCS := Kbuild include $(wildcard tcp_*.c tcp_*.h)
KMOD_SRCS := $(wildcard selftests/kmod/Kbuild selftests/kmod/*.c) include

CHECKPATCH ?= $(firstword $(wildcard /usr/src/linux-checkpatch/scripts/checkpatch.pl))
# Every C file, tracked or new.  libFuzzer entry points are named by
# libFuzzer's API (LLVMFuzzerTestOneInput), so fuzz targets are left out,
# and so are the ns-3 model's C++ headers (sim/, ns-3's style), but for
# its C (the configuration, the controllers' glue and what it shares).
SIM_C := sim/csig_cfg.% sim/dcc_sim.h sim/dcc_glue_common.h sim/dcc_reno.h sim/%_glue.c sim/dcc_acktrace.%
# The unit harness's stand-ins for the kernel's and libbpf's headers
# (selftests/unit/glue/kshim/, bshim/) define what those define, the
# way they do, which the rules for their users flag: left out too.
GLUE_SHIMS := selftests/unit/glue/kshim/% selftests/unit/glue/bshim/%
C_FILES = $(filter-out selftests/unit/fuzz_% $(GLUE_SHIMS) $(filter-out $(SIM_C),$(filter sim/%,$(ALL_C))),$(ALL_C))
ALL_C = $(shell cd $(TOP) && \
		git ls-files --cached --others --exclude-standard '*.c' '*.h' \
		2>/dev/null || find . -name '*.[ch]' -not -path './build/*')

# $(1) kernel, $(2) output dir, $(3) sources, $(4) extra kbuild arguments
define kbuild
	@mkdir -p $(2)
	@for f in $(3); do ln -sfn $(TOP)/$$f $(2)/$$(basename $$f); done
	$(Q)$(MAKE) -C $(call kdir,$(1)) M=$(2) $(4) modules
endef

Q ?= @

.PHONY: flavours all tools bench bench-native bench-ackcost-sim bench-sim modules deps check unit fuzz vmcheck lint install deb demo sim clean help kvers \
	build32 build32-modules \
	$(addprefix modules-,$(KVERS))

all: modules tools

# The CSIG BPF objects (switch port, host path), their skeletons, csigctl,
# csighost and ccstat.
tools:
	@$(MAKE) -s -C tools/bpf

kvers:
	@echo $(KVERS)

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(TOP)/Makefile

deps:
	@$(TOP)/tools/setup.sh

modules: $(addprefix modules-,$(KVERS))

# The test modules (kmod/) link against tcp_csig_opt's symbol versions,
# which kbuild does not track across directories: they are built afresh
# when build/<kver>/Module.symvers changes.
$(addprefix modules-,$(KVERS)): modules-%:
	@test -e $(call kdir,$*)/Makefile || \
		{ echo "no kernel build tree for $* (run: make deps)" >&2; exit 1; }
	@echo "  BUILD   $* -> build/$*"
	$(call kbuild,$*,$(BUILD)/$*,$(MOD_SRCS))
	@cmp -s $(BUILD)/$*/Module.symvers $(BUILD)/$*/kmod/.extra.symvers || \
		{ rm -rf $(BUILD)/$*/kmod && mkdir -p $(BUILD)/$*/kmod && \
		  cp $(BUILD)/$*/Module.symvers $(BUILD)/$*/kmod/.extra.symvers; }
	$(call kbuild,$*,$(BUILD)/$*/kmod,$(KMOD_SRCS),KBUILD_EXTRA_SYMBOLS=$(BUILD)/$*/Module.symvers)

# Userspace unit tests of the pure algorithm and codec code.
unit: tools
	@$(MAKE) -s -C selftests/unit
	@$(MAKE) -s -C selftests/bpf

# The kernel's own BPF DCTCP, the native benchmark's reference for the
# ECN algorithms: tools/testing/selftests/bpf/progs/bpf_dctcp.c and the
# one header of the selftests it includes, bpf_tcp_helpers.h, taken
# from Debian's linux-source tarball (make deps installs it) into
# build/bpf_dctcp/, never into the tree.  The program declares the
# kernel's structures itself (bpf_tcp_helpers.h, with
# preserve_access_index: libbpf relocates them to the running kernel's
# BTF), so it needs no vmlinux.h, and one would clash with those
# declarations.  Its <errno.h> is glibc's, which takes a target that
# does not define __x86_64__ (BPF) for a 32-bit one and includes
# gnu/stubs-32.h, absent without libc6-dev-i386: an empty one stands
# in.  Register with: bpftool struct_ops register
# build/bpf/bpf_dctcp.bpf.o (struct_ops "bpf_dctcp").
LINUX_SRC_TAR ?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
DCTCP_DIR := $(BUILD)/bpf_dctcp
DCTCP_SRCS := tools/testing/selftests/bpf/progs/bpf_dctcp.c \
	tools/testing/selftests/bpf/bpf_tcp_helpers.h
# run in the selftests' bpf directory: DCTCP_CC SOURCE OBJECT
DCTCP_CC = clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I. \
	-I$(DCTCP_DIR)/inc -I/usr/include/$$($(CC) -dumpmachine) -c $(1) -o $(2)
$(BUILD)/bpf/bpf_dctcp.bpf.o:
	@test -n "$(LINUX_SRC_TAR)" || \
		{ echo "no /usr/src/linux-source-*.tar.xz (run: make deps)" >&2; exit 1; }
	@echo "  DCTCP   $(notdir $(LINUX_SRC_TAR)) -> $@"
	@rm -rf $(DCTCP_DIR) && mkdir -p $(DCTCP_DIR)/inc/gnu $(BUILD)/bpf && \
		: > $(DCTCP_DIR)/inc/gnu/stubs-32.h && \
		top=$$(basename $(LINUX_SRC_TAR) .tar.xz) && \
		tar -xJf $(LINUX_SRC_TAR) -C $(DCTCP_DIR) --strip-components=1 \
			$(addprefix $$top/,$(DCTCP_SRCS))
	$(Q)cd $(DCTCP_DIR)/tools/testing/selftests/bpf && \
		$(call DCTCP_CC,progs/bpf_dctcp.c,$@)

# Its twin for the native benchmark's receivers: the same program under
# other names (the congestion control bpf_dctcp_rx, programs dctcprx_*),
# so that the run time of bpf_dctcp's programs is its senders' alone,
# while the receivers echo CE as DCTCP's do (selftests/bench/native.sh).
$(BUILD)/bpf/bpf_dctcp_rx.bpf.o: $(BUILD)/bpf/bpf_dctcp.bpf.o
	@echo "  DCTCP   $@ (the receivers' twin)"
	$(Q)cd $(DCTCP_DIR)/tools/testing/selftests/bpf && \
		sed -e 's/\bdctcp_\(init\|ssthresh\|update_alpha\|state\|cwnd_event\|cwnd_undo\|cong_avoid\)\b/dctcprx_\1/g' \
		    -e 's/^struct tcp_congestion_ops dctcp\b/struct tcp_congestion_ops dctcp_rx/' \
		    -e 's/^struct tcp_congestion_ops dctcp_nouse/struct tcp_congestion_ops dctcprx_nouse/' \
		    -e 's/"bpf_dctcp"/"bpf_dctcp_rx"/; s/"bpf_dctcp_nouse"/"dctcprx_nouse"/' \
		    progs/bpf_dctcp.c > progs/bpf_dctcp_rx.c && \
		$(call DCTCP_CC,progs/bpf_dctcp_rx.c,$@)

# Benchmarks: ns per packet of the BPF programs (host, BPF_PROG_TEST_RUN),
# the BPF flavour's congestion controls on the host kernel
# (selftests/bench/native.sh, which skips, saying why, without root,
# kernel BTF or struct_ops; BENCH=native runs it alone, a BENCH list
# without it leaves it out), then selftests/bench/*.sh (or those named in BENCH) in a VM of the first
# kernel (BENCH_KVER), and ackcost.sh in one of its own with one vCPU; the
# records (build/bench/results/, build/bench/ackcost/results/) then
# become build/bench/results.md and build/bench/plots/ (tools/bench_report.py).
BENCH_KVER ?= $(firstword $(KVERS))
# Debian's, with python3-matplotlib (make deps), whatever python3 is first in PATH
BENCH_PYTHON ?= /usr/bin/python3
# settings for every benchmark, as run.sh's arguments: the guest gets no
# environment from the host
BENCH_SET = $(if $(ROUNDS),ROUNDS=$(ROUNDS)) $(if $(CCS),'CCS=$(CCS)') \
	$(if $(TRACE),TRACE=$(TRACE)) $(if $(RATES),'RATES=$(RATES)') \
	$(if $(PROFILE),PROFILE=$(PROFILE)) $(if $(LOADS),'LOADS=$(LOADS)') \
	$(if $(FANINS),'FANINS=$(FANINS)')
# the bench guest's memory: incast at a fan-in of 128 runs 128 Python
# senders
BENCH_MEM ?= 6G
# the scenario guest's limit, seconds: the defaults take under an hour
# on the build machine, and TCG runs up to 1.6 times slower at times;
# PROFILE=small alone runs all of that profile's scenarios
# (Documentation/results.rst, "How long make bench takes")
BENCH_TIMEOUT ?= 14400
bench: unit modules
	@echo "  BENCH   BPF programs, ns per packet (host)"
	@if [ "$$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ]; then \
		$(BUILD)/unit/test_csig_port --bench; \
	else \
		unshare -m --propagation private sh -c \
			'mount -t bpf bpf /sys/fs/bpf && exec "$$0" --bench' \
			$(BUILD)/unit/test_csig_port; \
	fi
	@rm -f $(BUILD)/bench-native.rc; \
	if [ -z "$(BENCH)" ] || [ -n "$(filter native,$(BENCH))" ]; then \
		$(MAKE) --no-print-directory bench-native; echo $$? > $(BUILD)/bench-native.rc; \
	fi
	@rm -rf $(BUILD)/bench; mkdir -p $(BUILD)/bench; \
	rc=$$(cat $(BUILD)/bench-native.rc 2>/dev/null || echo 0); \
	t0=$$(date +%s); scen="$(filter-out ackcost native,$(BENCH))"; \
	if [ -z "$(BENCH)" ] || [ -n "$$scen" ]; then \
		echo "  BENCH   booting $(BENCH_KVER) for selftests/bench"; \
		$(TOP)/tools/vm/run -k $(BENCH_KVER) -m $(BENCH_MEM) -o $(BUILD)/bench -t $(BENCH_TIMEOUT) \
			$(TOP)/selftests/bench/run.sh $(BENCH_SET) $$scen || rc=1; \
		cat $(BUILD)/bench/*.txt 2>/dev/null; \
	fi; \
	if [ -z "$(BENCH)" ] || [ -n "$(filter ackcost,$(BENCH))" ]; then \
		echo "  BENCH   booting $(BENCH_KVER) with one vCPU for selftests/bench/ackcost.sh"; \
		$(TOP)/tools/vm/run -k $(BENCH_KVER) -c 1 -o $(BUILD)/bench/ackcost -t 900 \
			$(TOP)/selftests/bench/run.sh $(BENCH_SET) ackcost || rc=1; \
		cat $(BUILD)/bench/ackcost/*.txt 2>/dev/null; \
	fi; \
	res=$$(ls -d $(BUILD)/bench/results $(BUILD)/bench/ackcost/results 2>/dev/null); \
	if [ -n "$$res" ]; then \
		echo "  REPORT  $(BUILD)/bench/results.md, plots in $(BUILD)/bench/plots"; \
		$(BENCH_PYTHON) $(TOP)/tools/bench_report.py --plots $(BUILD)/bench/plots \
			$$res > $(BUILD)/bench/results.md && \
		cat $(BUILD)/bench/results.md || rc=1; \
	fi; \
	t=$$(($$(date +%s) - t0)); echo "  BENCH   $$((t / 60)) min $$((t % 60)) s, exit $$rc"; \
	exit $$rc

# VM_LOCK=FILE: the native benchmark loads every CPU; on a machine whose
# other runs (VMs) take that lock with flock(1), it waits for it first.
VM_LOCK ?=
# The BPF flavour natively (the host kernel, no VM): hpcc_bpf, ldcp_bpf,
# the kernel's bpf_dctcp, cubic and bbr through an htb bottleneck with
# the CSIG port model, and the CSIG host path's cost
# (Documentation/results.rst, "The BPF flavour, natively").  ROUNDS=N.
bench-native: tools $(BUILD)/bpf/bpf_dctcp.bpf.o $(BUILD)/bpf/bpf_dctcp_rx.bpf.o
	@echo "  BENCH   the BPF flavour natively (host, $$(uname -r))"
	@OUT=$(BUILD)/bench-native $(if $(ROUNDS),ROUNDS=$(ROUNDS)) $(if $(CCS),CCS='$(CCS)') \
		$(if $(VM_LOCK),flock $(VM_LOCK)) $(TOP)/selftests/bench/native.sh

# Instructions per ACK (selftests/bench/ackcost_sim.sh): tools/ackcost.c
# with the ns-3 model's C glue of the controllers, the code the model
# runs, compiled as the model compiles it (-O2); DCTCP's transcription
# (tools/ackcost_dctcp.h) with the same flags.  ACKCOST_RECORD=1 first
# records selftests/data/ackcost-*.trace again from the model (make sim).
ACKCOST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
	-I$(TOP)/include -I$(TOP)/sim -I$(TOP)/tools
ACKCOST_SRCS := tools/ackcost.c sim/hpcc_glue.c sim/ldcp_glue.c
$(BUILD)/ackcost/ackcost: $(ACKCOST_SRCS) tools/ackcost_dctcp.h sim/dcc_acktrace.h \
		sim/dcc_sim.h sim/dcc_glue_common.h sim/dcc_reno.h $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(ACKCOST_CFLAGS) -o $@ $(ACKCOST_SRCS)

bench-ackcost-sim: $(BUILD)/ackcost/ackcost $(if $(ACKCOST_RECORD),sim)
	$(if $(ACKCOST_RECORD),@$(TOP)/selftests/bench/ackcost_sim.sh record)
	@$(TOP)/selftests/bench/ackcost_sim.sh

# libFuzzer targets: FUZZ_RUNS executions each (make check runs
# CHECK_FUZZ_RUNS).  A target that does not build, crashes, trips a
# sanitizer or stops short of its runs fails make; its log, the crashing
# input and the seed to replay it with stay in build/fuzz/.
# FUZZ_SEED=N repeats a run (0: libFuzzer picks one and prints it).
FUZZ_RUNS ?= 2000000
CHECK_FUZZ_RUNS ?= 500000
FUZZ_SEED ?= 0
FUZZ_TARGETS = $(patsubst selftests/unit/%.c,%,$(wildcard selftests/unit/fuzz_*.c))
fuzz:
	@mkdir -p $(BUILD)/fuzz
	@for n in $(FUZZ_TARGETS); do \
		out=$(BUILD)/fuzz/$$n; \
		rm -f $$out-crash-* $$out-leak-* $$out-timeout-* $$out-oom-*; \
		clang -g -O1 -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=all -Iinclude -o $$out \
			selftests/unit/$$n.c || exit 1; \
		if ! $$out -runs=$(FUZZ_RUNS) -max_len=256 -seed=$(FUZZ_SEED) \
			-artifact_prefix=$$out- > $$out.log 2>&1; then \
			tail -n 40 $$out.log; \
			echo "  FUZZ    $$n: FAILED, $$(sed -n 's/^INFO: Seed: //p' $$out.log | \
				sed 's/^/seed /'); log $$out.log, input: $$(ls $$out-*-* 2>/dev/null)" >&2; \
			exit 1; \
		fi; \
		done=$$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' $$out.log); \
		seed=$$(sed -n 's/^INFO: Seed: //p' $$out.log); \
		case "$$done" in \
		"$(FUZZ_RUNS) runs "*) echo "  FUZZ    $$n: $$done (seed $$seed)";; \
		*) echo "  FUZZ    $$n: FAILED, did not complete $(FUZZ_RUNS) runs (log $$out.log)" >&2; \
		   exit 1;; \
		esac; \
	done

check: modules unit sim $(BUILD)/ackcost/ackcost
	@$(MAKE) --no-print-directory fuzz FUZZ_RUNS=$(CHECK_FUZZ_RUNS)
	@KVERS="$(KVERS)" $(TOP)/selftests/run

# sparse_w1 NAME,KVERS: each kernel's modules compiled from scratch with
# sparse and W=1 (lint-one) in build/NAME/KVER, the log in
# build/NAME-KVER.log; the first warning or failed build stops it.
define sparse_w1
	@mkdir -p $(BUILD); for k in $(2); do \
		rm -rf $(BUILD)/$(1)/$$k; \
		echo "  SPARSE+W=1 $$k"; \
		log=$(BUILD)/$(1)-$$k.log; \
		$(MAKE) -s Q= BUILD=$(BUILD)/$(1) KVER=$$k lint-one > $$log 2>&1; \
		rc=$$?; \
		if grep -E 'warning|error' $$log; then \
			echo "$(1): $$k: warnings (full log: $$log)" >&2; exit 1; \
		fi; \
		if [ $$rc != 0 ]; then \
			tail -n 20 $$log; \
			echo "$(1): $$k: the build failed (full log: $$log)" >&2; exit 1; \
		fi; \
	done
endef

lint:
	@test -n "$(CHECKPATCH)" || { echo "checkpatch.pl missing (run: make deps)" >&2; exit 1; }
	@echo "  CHECKPATCH --strict"
	@perl $(CHECKPATCH) --no-tree --strict --terse --show-types --no-summary -q \
		-f $(C_FILES)
	$(call sparse_w1,lint,$(KVERS))
	@echo "  lint clean"

# Debian's 6.12 also ships cloud (cloud VMs run it) and rt flavours: other
# configs of the same sources (PREEMPT_RT's locks; the cloud one's
# smaller driver set).  The modules must build there, lint-clean, too.
FLAVOUR_KVERS := $(foreach k,$(filter 6.12.%,$(KVERS)),$(patsubst %-amd64,%-cloud-amd64,$(k)) \
	$(patsubst %-amd64,%-rt-amd64,$(k)))
flavours:
	@test -n "$(FLAVOUR_KVERS)" || { echo "flavours: no 6.12 target in KVERS" >&2; exit 1; }
	@for k in $(FLAVOUR_KVERS); do \
		test -e /lib/modules/$$k/build/Makefile || \
			{ echo "flavours: no headers for $$k (run: make deps)" >&2; exit 1; }; \
	done
	$(call sparse_w1,flavours,$(FLAVOUR_KVERS))
	@echo "  flavours built clean: $(FLAVOUR_KVERS)"
	@for k in $(filter %-cloud-amd64,$(FLAVOUR_KVERS)); do \
		test -e /boot/vmlinuz-$$k || \
			{ echo "flavours: no /boot/vmlinuz-$$k (run: make deps)" >&2; exit 1; }; \
		echo "  SMOKE   $$k"; \
		o=$(BUILD)/flavours/smoke-$$k; \
		$(TOP)/tools/vm/run -k $$k -o $$o -t 300 \
			$(TOP)/selftests/flavours/smoke.sh $(BUILD)/flavours/$$k > $$o.log 2>&1; \
		rc=$$?; \
		grep -E '^(not )?ok ' $$o/console.log | sed 's/^/    /'; \
		if [ $$rc != 0 ]; then \
			tail -n 20 $$o.log; \
			echo "flavours: $$k: the smoke test failed ($$rc; $$o/console.log)" >&2; exit 1; \
		fi; \
	done

# One kernel, everything compiled from scratch with sparse and W=1.
lint-one:
	$(call kbuild,$(KVER),$(BUILD)/$(KVER),$(MOD_SRCS),C=2 W=1)
	$(call kbuild,$(KVER),$(BUILD)/$(KVER)/kmod,$(KMOD_SRCS),C=2 W=1 \
		KBUILD_EXTRA_SYMBOLS=$(BUILD)/$(KVER)/Module.symvers)

# The modules built for 32-bit x86, which neither target kernel is: a
# 64-bit division outside div64.h's helpers compiles there to a call of
# libgcc's __udivdi3, which the kernel does not have, and modpost fails
# the build (selftests/unit/test_div64_m32 checks the shared headers
# alone, without a kernel).  Debian has 32-bit x86 headers for 6.1 only
# (686-pae; its 6.12 has no i386 flavour).  They are not installed: apt
# fetches the newest, with the machine's sources but a state of its own
# for i386 in build/k32/apt (dpkg gains no architecture, apt-get update
# no i386 indexes), into build/k32/root, and their scripts are the amd64
# linux-kbuild-6.1 that make deps installs (Multi-Arch: foreign, as
# Debian's own dependency allows).  An index that fails to download
# (another suite's) is ignored; K32_TREE=DIR builds against another
# 32-bit tree instead.
K32 := $(BUILD)/k32
K32_APT = -o APT::Architecture=i386 -o APT::Architectures::=i386 \
	-o Dir::State::Lists=$(K32)/apt/lists -o Dir::State::status=$(K32)/apt/status \
	-o Dir::Cache=$(K32)/apt -o APT::Sandbox::User=root
build32:
	@if [ -z "$(K32_TREE)" ]; then \
		set -e; mkdir -p $(K32)/apt/lists/partial $(K32)/apt/archives/partial $(K32)/debs; \
		touch $(K32)/apt/status; \
		apt-get $(K32_APT) -qq update 2>&1 | sed -n 's/^E: /build32: apt: /p' >&2 || true; \
		pkg=$$(apt-cache $(K32_APT) search --names-only '^linux-headers-6\.1\.0-[0-9]+-686-pae$$' | \
			awk '{print $$1}' | sort -V | tail -n 1); \
		[ -n "$$pkg" ] || { echo "build32: no linux-headers-6.1.0-N-686-pae for i386 in the archive" >&2; exit 1; }; \
		common=$${pkg%-686-pae}-common; tree=$(K32)/root/usr/src/$$pkg; \
		if [ ! -e $$tree/Makefile ]; then \
			echo "  FETCH   $$pkg $$common -> build/k32/"; \
			rm -f $(K32)/debs/*.deb; \
			(cd $(K32)/debs && apt-get $(K32_APT) -qq download $$pkg $$common); \
			for p in $$pkg $$common; do dpkg-deb -x $(K32)/debs/$${p}_*.deb $(K32)/root; done; \
			echo "include $(K32)/root/usr/src/$$common/Makefile" > $$tree/Makefile; \
			mkdir -p $(K32)/root/usr/lib; \
			ln -sfn /usr/lib/linux-kbuild-6.1 $(K32)/root/usr/lib/linux-kbuild-6.1; \
		fi; \
		test -e /usr/lib/linux-kbuild-6.1/scripts/Makefile.build || \
			{ echo "build32: no /usr/lib/linux-kbuild-6.1 (run: make deps)" >&2; exit 1; }; \
		ln -sfn $$tree $(K32)/tree; \
	fi
	@echo "  BUILD   $$(basename $$(readlink -f $(or $(K32_TREE),$(K32)/tree))) (i386) -> build/k32/mod"
	@$(MAKE) --no-print-directory KDIR=$(or $(K32_TREE),$(K32)/tree) build32-modules

build32-modules:
	$(call kbuild,,$(K32)/mod,$(MOD_SRCS))
	$(call kbuild,,$(K32)/mod/kmod,$(KMOD_SRCS),KBUILD_EXTRA_SYMBOLS=$(K32)/mod/Module.symvers)

INSTALL_KVER := $(if $(KVER),$(KVER),$(shell uname -r))
install: tools
	$(call kbuild,$(INSTALL_KVER),$(BUILD)/$(INSTALL_KVER),$(MOD_SRCS))
	$(MAKE) -C $(call kdir,$(INSTALL_KVER)) M=$(BUILD)/$(INSTALL_KVER) \
		INSTALL_MOD_DIR=updates modules_install
	$(if $(INSTALL_MOD_PATH),,depmod -a $(INSTALL_KVER))
	install -D -m 0755 $(BUILD)/bin/csigctl $(DESTDIR)/usr/local/sbin/csigctl
	install -D -m 0755 $(BUILD)/bin/csighost $(DESTDIR)/usr/local/sbin/csighost
	install -D -m 0755 $(BUILD)/bin/ccstat $(DESTDIR)/usr/local/sbin/ccstat
	ln -sf ccstat $(DESTDIR)/usr/local/sbin/hpccstat
	install -D -m 0644 $(BUILD)/bpf/csig_port.bpf.o \
		$(DESTDIR)/usr/local/lib/csig/csig_port.bpf.o
	install -D -m 0644 $(TOP)/tools/wireshark/csig.lua \
		$(DESTDIR)/usr/local/share/tcp-dcc/wireshark/csig.lua

# Debian packages, built with dpkg-buildpackage from a copy of the
# checkout's files (tracked or new, as lint's C_FILES) in
# build/deb/NAME-VERSION, so that the .debs land in build/deb/ and the
# checkout gets no debian/ build leftovers.  lintian, when installed,
# must find no errors.
DEB_DIR := $(BUILD)/deb
DKMS_NAME = $(shell sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' $(TOP)/dkms.conf)
DKMS_VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)
deb:
	@rm -rf $(DEB_DIR); src=$(DEB_DIR)/$(DKMS_NAME)-$(DKMS_VERSION); mkdir -p $$src && \
	git -c safe.directory='*' -C $(TOP) ls-files -z --cached --others --exclude-standard | \
		(cd $(TOP) && xargs -0 cp --parents -t $$src) && \
	echo "  DEB     $$src" && \
	(cd $$src && dpkg-buildpackage -b -us -uc > $(DEB_DIR)/build.log 2>&1) || \
		{ tail -n 30 $(DEB_DIR)/build.log; echo "deb: dpkg-buildpackage failed (log: $(DEB_DIR)/build.log)" >&2; exit 1; }
	@for d in $(DEB_DIR)/*.deb; do echo "  DEB     $$d"; done
	@if command -v lintian > /dev/null; then \
		echo "  LINTIAN $(DEB_DIR)/*.changes"; \
		lintian --fail-on error $(DEB_DIR)/*.changes; \
	fi

# The ns-3 model (sim/Makefile, Documentation/sim.rst): build/sim/dccsim.
sim:
	@nice -n 19 $(MAKE) -s -j1 -C sim

# The datacenter benchmark in the model (Documentation/sim.rst): records
# in build/bench-sim/results/, tables in build/bench-sim/results.md, plots
# in build/bench-sim/plots/.
SIM_JOBS ?= 2
# SIM="ws50 join" is SIM_BENCH="ws50 join"
SIM_BENCH ?= $(SIM)
bench-sim: sim
	@rm -rf $(BUILD)/bench-sim; mkdir -p $(BUILD)/bench-sim; \
	t0=$$(date +%s); rc=0; \
	SIM_JOBS=$(SIM_JOBS) SIM_BENCH="$(SIM_BENCH)" SIM_CCS="$(SIM_CCS)" \
		SIM_SEEDS="$(SIM_SEEDS)" $(TOP)/tools/sim_bench.sh $(BUILD)/bench-sim || rc=1; \
	echo "  REPORT  $(BUILD)/bench-sim/results.md, plots in $(BUILD)/bench-sim/plots"; \
	nice -n 19 $(BENCH_PYTHON) $(TOP)/tools/bench_report.py --plots $(BUILD)/bench-sim/plots \
		$(BUILD)/bench-sim/results > $(BUILD)/bench-sim/results.md || rc=1; \
	cat $(BUILD)/bench-sim/results.md; \
	echo "  BENCH-SIM took $$(( ($$(date +%s) - t0) / 60 )) min $$(( ($$(date +%s) - t0) % 60 )) s"; \
	exit $$rc

demo: modules
	@echo "  DEMO    booting $(firstword $(KVERS)) (about two minutes)"
	@rm -f $(BUILD)/demo/demo.txt
	@$(TOP)/tools/vm/run -k $(firstword $(KVERS)) -o $(BUILD)/demo \
		-t 900 $(TOP)/tools/demo.sh; rc=$$?; \
		cat $(BUILD)/demo/demo.txt 2>/dev/null; exit $$rc

clean:
	rm -rf $(BUILD)
	@$(MAKE) -s -C selftests/unit clean
