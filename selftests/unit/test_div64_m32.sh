#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No 64-bit division in the headers the modules include, as a 32-bit
# kernel (i386, armhf) would build them.  There '/' and '%' on 64-bit
# operands become calls of libgcc's __udivdi3, __divdi3, __umoddi3,
# __moddi3 (__udivmoddi4, __divmoddi4), which the kernel does not link:
# modpost fails the module.  The modules divide 64 bits through div64.h's
# helpers only (linux/math64.h).  The unit tests built with -m32 link
# libgcc and cannot tell.
#
# Every header of include/ that tcp_*.c or selftests/kmod/*.c include,
# and what those include in turn, is compiled alone for 32-bit x86 (-m32
# -O2, as the kernel builds) with all its inline functions kept
# (-fkeep-inline-functions), and div64.h in its kernel form over a
# linux/math64.h that declares the helpers out of line; its undefined
# symbols must name none of libgcc's divisions.  A canary header with a
# u64 / u64 must name one, so the check is known to work.  Headers of
# kernel APIs (no userspace build) are skipped: make build32 compiles
# them, with the modules, against a 32-bit kernel's headers.  A
# controller, NAME_ctl.h, needs a flavour's accessors: its unit test
# (selftests/unit/test_NAME_ctl.c), which includes it, is compiled.
#
# Installed by selftests/unit/Makefile as build/unit/test_div64_m32.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
libgcc='__udivdi3|__divdi3|__umoddi3|__moddi3|__udivmoddi4|__divmoddi4'
# headers of the kernel's API (and the flavours' accessors over its struct
# tcp_sock, which divide nothing), with no userspace build
kernel_only=" csig_opt_api.h dcc_ctl_kern.h dcc_ctl_tcp.h dcc_pernet.h ldcp_ctl_tcp.h range_param.h "

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

includes()	# FILE...: the "..." includes
{
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$@"
}

# the headers of include/ the modules include, directly or not
module_headers()
{
	local l n h

	l=$(includes "$top"/tcp_*.c "$top"/selftests/kmod/*.c | sort -u)
	while :; do
		n=$(for h in $l; do
			[ -f "$top/include/$h" ] || continue
			echo "$h"
			includes "$top/include/$h"
		done | sort -u)
		[ "$n" = "$l" ] && break
		l=$n
	done
	for h in $l; do
		[ -f "$top/include/$h" ] && echo "$h"
	done
}

# linux/math64.h of a 32-bit kernel, as far as the compiler sees it: the
# divisions are functions (lib/math/div64.c, or inline asm), no libgcc
mkdir -p "$tmp/inc/linux"
cat > "$tmp/inc/linux/math64.h" <<'EOF'
#include <linux/types.h>
__u64 div_u64_rem(__u64 dividend, __u32 divisor, __u32 *remainder);
__u64 div_u64(__u64 dividend, __u32 divisor);
__u64 div64_u64(__u64 dividend, __u64 divisor);
__u64 div64_u64_rem(__u64 dividend, __u64 divisor, __u64 *remainder);
__s64 div_s64(__s64 dividend, __s32 divisor);
__s64 div64_s64(__s64 dividend, __s64 divisor);
EOF
# div64.h first, in its kernel form; the other headers as userspace has them
cat > "$tmp/div64_kernel.h" <<'EOF'
#define __KERNEL__
#include "div64.h"
#undef __KERNEL__
EOF
cat > "$tmp/canary.h" <<'EOF'
#include <linux/types.h>
static inline __u64 canary(__u64 a, __u64 b)
{
	return a / b;
}
EOF

n=0
check()		# check NAME FILE: compile FILE, then its libgcc divisions
{
	local o=$tmp/$1.o

	if ! "$cc" -m32 -O2 -std=gnu11 -fkeep-inline-functions \
		-I"$tmp/inc" -I"$top/include" -include "$tmp/div64_kernel.h" \
		-c -x c "$2" -o "$o" 2> "$tmp/err"; then
		echo "not ok $n - $1: does not compile with -m32"
		sed 's/^/# /' "$tmp/err" | head -n 20
		return 2
	fi
	funcs=$(nm "$o" | grep -c ' [Tt] ')
	divs=$(nm -u "$o" | awk '{print $2}' | grep -E "^($libgcc)\$" | xargs)
	[ -z "$divs" ]
}

# the calls of $divs, function by function
callers()
{
	objdump -dr "$tmp/$1.o" | awk -v re="$libgcc" '
		/^[0-9a-f]+ <.*>:$/ { f = $2 }
		$0 ~ re { print "# " f " calls " $NF }' | sort -u | head -n 20
}

hdrs=$(module_headers)
[ -n "$hdrs" ] || { echo "Bail out! no header of include/ found in tcp_*.c"; exit 1; }
echo "TAP version 13"
echo "1..$(($(echo "$hdrs" | wc -l) + 1))"

n=1
failed=0
check canary "$tmp/canary.h"
case $? in
1)	echo "ok $n - canary: a u64 / u64 in a header calls $divs on 32-bit x86";;
0)	echo "not ok $n - canary: a u64 / u64 in a header is not seen as a libgcc division"
	failed=1;;
*)	failed=1;;
esac

for h in $hdrs; do
	n=$((n + 1))
	if [ "${kernel_only#* "$h" }" != "$kernel_only" ]; then
		echo "ok $n - $h # SKIP kernel API only, make build32 compiles it"
		continue
	fi
	# a controller (NAME_ctl.h) compiles over its flavour's accessors:
	# its unit test's harness
	src=$top/include/$h
	case $h in
	*_ctl.h) [ -f "$top/selftests/unit/test_${h%.h}.c" ] &&
			src=$top/selftests/unit/test_${h%.h}.c;;
	esac
	check "$h" "$src"
	case $? in
	0)	echo "ok $n - $h ($funcs functions): no 64-bit division through libgcc on 32-bit x86";;
	1)	echo "not ok $n - $h: 64-bit division through libgcc on 32-bit x86: $divs"
		echo "# divide through div64.h's helpers (div_u64(), div64_u64(), ...)"
		callers "$h"
		failed=1;;
	*)	failed=1;;
	esac
done
exit $failed
