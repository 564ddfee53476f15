#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkinitrd.sh KVER OUT: a busybox initramfs for kernel KVER that
#  - loads the modules for virtio, 9p (or virtiofs, for a kernel without
#    9p: Debian's cloud flavour) and overlayfs (from KVER's own tree),
#  - mounts the host root read-only over 9p or virtiofs (tag "hostroot")
#    with a tmpfs overlay on top, and the runner's output directory
#    read-write (tag "vtout") at /vtout inside it,
#  - switches root to it and runs /vtout/cmd.sh with bash under the
#    guest-side timeout vt.timeout= of the kernel command line,
#  - saves the guest's dmesg to /vtout/dmesg.txt, prints VT-EXIT=<status>
#    and powers off with "poweroff -f" (a sysrq power-off from inside the
#    switched root ends in a panic trace that the dmesg check would count).
set -e
K=$1
OUT=$2
[ -n "$K" ] && [ -n "$OUT" ] || { echo "usage: mkinitrd.sh KVER OUT" >&2; exit 2; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/bin" "$D/proc" "$D/sys" "$D/dev" "$D/mnt" "$D/newroot" "$D/up" "$D/mods"
cp /bin/busybox "$D/bin/"
# The shares' file system: 9p, or virtiofs where the kernel has no 9p
# (tools/vm/run starts a virtiofsd per share then).
if grep -q '^CONFIG_9P_FS=[ym]' "/boot/config-$K"; then
	mods="virtio_pci 9pnet_virtio 9p overlay"
	opt_ro="-t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000"
	opt_rw="-t 9p -o trans=virtio,version=9p2000.L,msize=512000"
else
	mods="virtio_pci virtiofs overlay"
	opt_ro="-t virtiofs -o ro" opt_rw="-t virtiofs"
fi
# 6.12 builds virtio_pci in: --show-depends prints "builtin" for it, skipped here.
for m in $mods; do
	modprobe -S "$K" --show-depends "$m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$D/order.full"
while read -r f; do
	cp "$f" "$D/mods/"
	basename "$f" >> "$D/mods/order"
done < "$D/order.full"

cat > "$D/init" <<'EOI'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
# busybox insmod logs "Invalid ELF header magic" for xz modules and loads them
for f in $(cat /mods/order); do insmod /mods/$f 2>/dev/null || echo "insmod $f failed"; done
mount @OPT_RO@ hostroot /mnt
mount -t tmpfs tmpfs /up; mkdir -p /up/u /up/w
mount -t overlay overlay -o lowerdir=/mnt,upperdir=/up/u,workdir=/up/w /newroot
mkdir -p /newroot/vtout
mount @OPT_RW@ vtout /newroot/vtout
# switch_root, not chroot: the kernel's usermode helpers (module autoload
# through /sbin/modprobe) resolve paths from the real root, which must be
# the host's tree with its /lib/modules.
T=$(sed -n 's/.*vt.timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
exec switch_root /newroot /bin/bash -c '
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mount -t proc proc /proc; mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev; mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run
	# devtmpfs lacks the links udev would make; bash needs /dev/fd for <(...)
	ln -sfn /proc/self/fd /dev/fd; ln -sfn fd/0 /dev/stdin
	ln -sfn fd/1 /dev/stdout; ln -sfn fd/2 /dev/stderr
	mkdir -p /dev/pts; mount -t devpts devpts /dev/pts
	mount -t bpf bpf /sys/fs/bpf
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	hostname vt-guest
	timeout -k 5 '"${T:-600}"' bash /vtout/cmd.sh; rc=$?
	[ $rc = 124 ] && echo "VT-TIMEOUT: the script ran out of time in the guest"
	echo $rc > /vtout/exit
	dmesg > /vtout/dmesg.txt
	sync
	echo VT-EXIT=$rc
	/bin/busybox poweroff -f'
EOI
sed -i "s|@OPT_RO@|$opt_ro|; s|@OPT_RW@|$opt_rw|" "$D/init"
chmod +x "$D/init"
(cd "$D" && rm -f order.full && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
