#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-run.sh LINE RUN-SCRIPT [NAME]: boot a throw-away QEMU (TCG) guest on a
# kernel line with memwalk.ko, the client and the selftests in a busybox
# initramfs, run RUN-SCRIPT there and print its output (TAP) prefixed with
# "[LINE] ".  Then judge the guest: it must finish in time, and its dmesg must
# hold no splat and its taint no flag but O and E.
#
# Knobs (environment):
#   MW_VM_MEM (MiB, 1024)  MW_VM_CPUS (2)  MW_VM_TIMEOUT (s)
#   MW_VM_CPU      QEMU CPU model (max; arm64: the line's KCPU, or
#                  max,pauth-impdef=on)
#   MW_VM_APPEND   extra kernel command line (THP mode, hugepages=...)
#   MW_VM_MODULES  modules of the kernel image to load first ("zram")
#   MW_KO          the memwalk.ko to use (out/LINE/memwalk.ko)
#   MW_VM_QUIET=1  print only the verdict lines, not the guest's TAP
#   MW_VM_TCG_THREAD  multi (one host thread per vCPU, the default) or
#                  single (one host thread runs every vCPU in turn): make
#                  check runs two guests at once on two cores, where single
#                  does the same work in less host CPU
#   MW_VM_ICOUNT   QEMU -icount option ("shift=0,sleep=off"): the guest
#                  clock counts executed instructions, not host time
#   MW_VM_PLUGIN   QEMU -plugin option (a TCG plugin and its arguments)
#   MW_VM_HOSTFWD  HOSTPORT:GUESTPORT: an e1000 NIC on QEMU user networking
#                  with restrict=on (no traffic out of the guest), the guest
#                  at 10.0.2.15, and the host's 127.0.0.1:HOSTPORT forwarded
#                  to its GUESTPORT (the exporter's test scrapes it)
#   MW_VM_STDIO=1  a third serial port (ttyS2) on this terminal, for a
#                  guest script that talks to people (make lab SHELL=1)
#
# An arm64 line boots qemu-system-aarch64 -M virt with its cross-built
# client and selftests (scripts/cross-build.sh), the arm64 busybox and the
# client's libraries from the sysroot make setup made; kernel messages on
# ttyAMA0, results on a virtio console (hvc0).  The paging levels the line
# must run (KLEVELS in scripts/versions) go to /etc/memwalk/levels for the
# guest script to check (scripts/guest/xline.sh), the tests it runs
# (KTESTS) to /etc/memwalk/tests (scripts/guest/selftests.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

line=${1:?usage: vm-run.sh LINE RUN-SCRIPT [NAME]}
run=${2:?usage: vm-run.sh LINE RUN-SCRIPT [NAME]}
name=${3:-$(basename "$run" .sh)}
krel=$(mw_krel "$line")
kimg=$(mw_kimage "$line")
ko=${MW_KO:-$MW_OUT/$(mw_built "$line")/memwalk.ko}
mem=${MW_VM_MEM:-1024}
cpus=${MW_VM_CPUS:-2}
tmo=${MW_VM_TIMEOUT:-900}
accel=tcg,thread=${MW_VM_TCG_THREAD:-multi}
[[ $accel =~ ^tcg,thread=(single|multi)$ ]] || die "MW_VM_TCG_THREAD=${MW_VM_TCG_THREAD:-}: say single or multi"
work=$MW_OUT/vm/$line-$name
tag="[$line]"
arch=$(mw_karch "$line")
if [ "$arch" = arm64 ]; then
	user=$(mw_xuser "$line")
	busybox=$MW_CACHE/arm64/busybox/bin/busybox
	[ -x "$user/userspace/memwalk-client" ] || die "no arm64 client: run scripts/cross-build.sh $line"
	[ -z "${MW_VM_STDIO:-}" ] || die "MW_VM_STDIO: not on arm64 guests"
else
	user=$MW_TOP
	busybox=/bin/busybox
fi

[ -f "$kimg/vmlinuz" ] || die "no kernel image for $line: run 'make setup'"
[ -f "$ko" ] || die "no $ko: run 'make KVER=$line'"
rm -rf "$work" && mkdir -p "$work/root"

# --- initramfs ---------------------------------------------------------
r=$work/root
mkdir -p "$r"/{bin,sbin,etc/memwalk,proc,sys,dev,tmp,selftests,lib/memwalk,lib/modules-extra}
cp "$busybox" "$r/bin/busybox"
install -m 0755 "$MW_TOP/scripts/guest/init" "$r/init"
cp "$run" "$r/etc/memwalk/run"
cp "$MW_TOP/scripts/guest/zram.sh" "$r/etc/memwalk/zram.sh"
cp "$ko" "$r/lib/memwalk/memwalk.ko"
# A dynamically linked program's shared libraries (ldd), at the paths the
# dynamic loader looks for them, for the busybox initramfs.
copy_shared_libs() {
	local lib
	for lib in $(ldd "$1" | grep -Eo '/[^ ]+'); do
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
}
# The same for an arm64 program, which ldd cannot run: its NEEDED closure
# from the sysroot and the cross toolchain's glibc, into /lib/aarch64-linux-gnu.
arm64_libdirs="$MW_CACHE/arm64/sysroot/lib/aarch64-linux-gnu $MW_CACHE/arm64/sysroot/usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
copy_arm64_libs() {
	local lib
	for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		copy_arm64_lib "$lib" "needed by $1"
	done
}
# copy_arm64_lib SONAME WHY: one library and its closure, once.
copy_arm64_lib() {
	local d
	[ -e "$r/lib/aarch64-linux-gnu/$1" ] && return
	for d in $arm64_libdirs; do
		[ -e "$d/$1" ] || continue
		mkdir -p "$r/lib/aarch64-linux-gnu"
		cp -L "$d/$1" "$r/lib/aarch64-linux-gnu/$1"
		copy_arm64_libs "$d/$1"
		return
	done
	die "$1 ($2) is in no arm64 library directory"
}
# The libraries the client opens when a command needs one (dlopen): the
# sonames it names, but not among those it is linked with.
opened_libs() {
	strings -a "$1" | grep -xE 'lib[[:alnum:]_+-]+\.so\.[0-9]+' |
		grep -vxF -f <(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') | sort -u
}
if [ -x "$user/userspace/memwalk-client" ]; then
	cp "$user/userspace/memwalk-client" "$r/bin/"
	if [ "$arch" = arm64 ]; then
		copy_arm64_libs "$user/userspace/memwalk-client"
		for lib in $(opened_libs "$user/userspace/memwalk-client"); do
			copy_arm64_lib "$lib" "opened by the client"
		done
		cp -L /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 "$r/lib/"
	else
		copy_shared_libs "$user/userspace/memwalk-client"
		for lib in $(opened_libs "$user/userspace/memwalk-client"); do
			path=$(ldconfig -p | sed -n "s/^[[:space:]]*$lib (.*x86-64.*) => //p" | head -n 1)
			[ -n "$path" ] || die "$lib (opened by the client) is not installed"
			mkdir -p "$r$(dirname "$path")"
			cp -L "$path" "$r$path"
			copy_shared_libs "$path"
		done
	fi
fi
for t in "$user"/selftests/memwalk_*; do
	[ -x "$t" ] && [ -f "$t" ] && cp "$t" "$r/selftests/"
done
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$r/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$r/etc/group"

# Modules of the image itself, dependencies first, decompressed for busybox.
add_module() {
	local m=$1 f d
	grep -qx "$m" "$r/etc/memwalk/modules" 2>/dev/null && return
	# Built into this kernel (the debug kernel has zram built in).
	grep -qs "/$m.ko" "$kimg/lib/modules/$krel/modules.builtin" && return
	f=$(find "$kimg/lib/modules/$krel" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -n 1)
	[ -n "$f" ] || die "module $m not in the $line image"
	case $f in
	*.xz) xz -dc "$f" > "$r/lib/modules-extra/$m.ko" ;;
	*.zst) zstd -qdc "$f" > "$r/lib/modules-extra/$m.ko" ;;
	*) cp "$f" "$r/lib/modules-extra/$m.ko" ;;
	esac
	for d in $(modinfo -F depends "$r/lib/modules-extra/$m.ko" | tr , ' '); do
		add_module "$d"
	done
	echo "$m" >> "$r/etc/memwalk/modules"
}
: > "$r/etc/memwalk/modules"
# The results' console, where the kernel has it as modules (arm64 6.1;
# built in elsewhere, and 7.2's image lists no modules.builtin).
[ "$arch" != arm64 ] || for m in virtio_pci virtio_console; do
	[ -z "$(find "$kimg/lib/modules/$krel" -name "$m.ko*" | head -n 1)" ] || add_module "$m"
done
for m in ${MW_VM_MODULES:-}; do add_module "$m"; done
net=()
if [ -n "${MW_VM_HOSTFWD:-}" ]; then
	[[ $MW_VM_HOSTFWD =~ ^[0-9]+:[0-9]+$ ]] || die "MW_VM_HOSTFWD=$MW_VM_HOSTFWD: say HOSTPORT:GUESTPORT"
	add_module e1000
	touch "$r/etc/memwalk/net"	# /init brings eth0 up
	net=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${MW_VM_HOSTFWD%%:*}-10.0.2.15:${MW_VM_HOSTFWD#*:}"
	     -device e1000,netdev=n0)
fi
lv=$(mw_var KLEVELS "$line")
[ -z "$lv" ] || echo "$lv" > "$r/etc/memwalk/levels"
kt=$(mw_var KTESTS "$line")
[ -z "$kt" ] || echo "$kt" > "$r/etc/memwalk/tests"
[ -n "${MW_VM_FILES:-}" ] && for f in $MW_VM_FILES; do cp -a "$f" "$r/etc/memwalk/"; done

(cd "$r" && find . | cpio -o -H newc --quiet) > "$work/initramfs.cpio"

# --- boot ----------------------------------------------------------------
# rcu_cpu_stall_timeout: TCG is slow enough to trip the default 21 s on a
# loaded host; a real stall still shows within the run's timeout.
console=ttyS0
[ "$arch" = arm64 ] && console=ttyAMA0
append="console=$console panic=-1 loglevel=4 rcupdate.rcu_cpu_stall_timeout=300"
append="$append ${MW_VM_APPEND:-}"
t0=$SECONDS
set +e
# The debug kernel boots with 4-level paging: with LA57 under TCG, KASAN
# once reported a wild access in an interrupt taken during early CPU
# identification (before memwalk loads), as if the 5-level direct map were
# not yet covered by its shadow.
cpu=${MW_VM_CPU:-max}
[ "$line" = debug ] && cpu=${MW_VM_CPU:-max,la57=off}
qout=$work/qemu.log
[ -n "${MW_VM_STDIO:-}" ] && qout=/dev/stdout
if [ "$arch" = arm64 ]; then
	# pauth-impdef: QEMU's architected pointer authentication is slow.
	cpu=${MW_VM_CPU:-$(mw_var KCPU "$line")}
	qemu=(qemu-system-aarch64 -M virt -accel "$accel" -cpu "${cpu:-max,pauth-impdef=on}")
	chan=(-serial "file:$work/console.log" -device virtio-serial-pci
	      -chardev "file,id=res,path=$work/results.log" -device virtconsole,chardev=res)
else
	qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu")
	chan=(-serial "file:$work/console.log" -serial "file:$work/results.log")
fi
timeout ${MW_VM_STDIO:+--foreground} -k 10 "$tmo" "${qemu[@]}" \
	${MW_VM_ICOUNT:+-icount "$MW_VM_ICOUNT"} \
	${MW_VM_PLUGIN:+-plugin "$MW_VM_PLUGIN"} \
	-m "$mem" -smp "$cpus" -nodefaults -no-user-config -display none \
	-no-reboot -kernel "$kimg/vmlinuz" -initrd "$work/initramfs.cpio" \
	-append "$append" "${net[@]}" "${chan[@]}" \
	${MW_VM_STDIO:+-serial stdio} > "$qout" 2>&1
qrc=$?
set -e
secs=$((SECONDS - t0))
rm -rf "$r" "$work/initramfs.cpio"

tr -d '\r' < "$work/results.log" > "$work/results.txt"
sed -n '/^MEMWALK-DMESG-BEGIN$/,/^MEMWALK-DMESG-END$/p' "$work/results.txt" \
	| sed '1d;$d' > "$work/dmesg.log"
[ "${MW_VM_QUIET:-0}" = 1 ] ||
	sed -n '/^MEMWALK-BEGIN/,/^MEMWALK-RC/{/^MEMWALK-/d;p}' "$work/results.txt" \
		| sed "s/^/$tag /"

fail=0
if ! grep -q '^MEMWALK-END$' "$work/results.txt"; then
	echo "$tag not ok - $name: guest did not finish (qemu rc $qrc after ${secs}s, timeout ${tmo}s); console: $work/console.log"
	exit 1
fi
echo "$tag ok - $name: guest ran $krel and finished in ${secs}s"

# A splat fails the run even when every test passed.  Every kernel report
# opens with one of these headers; a bare "Call Trace" does not count: the
# OOM killer and failed allocations (the tests provoke both) print one too.
splat='BUG:|WARNING:|Oops|general protection|Kernel panic|KASAN|KFENCE|UBSAN|suspected memory leak|'
splat+='possible recursive locking|possible circular locking|inconsistent lock state|'
splat+='possible irq lock inversion|lock held when returning|bad unlock balance|'
splat+='sleeping function called from invalid context|scheduling while atomic|'
splat+='detected stall|blocked for more than|list_(add|del) corruption'
taint=$(sed -n 's/^MEMWALK-TAINT //p' "$work/results.txt")
if grep -Eq "$splat" "$work/dmesg.log"; then
	echo "$tag not ok - $name: guest dmesg has a splat: $(grep -Em1 "$splat" "$work/dmesg.log"); dmesg: $work/dmesg.log"
	fail=1
elif [ -z "$taint" ] || [ $((taint & ~(4096 | 8192))) != 0 ]; then
	echo "$tag not ok - $name: kernel tainted $taint (only O and E allowed); dmesg: $work/dmesg.log"
	fail=1
else
	echo "$tag ok - $name: guest dmesg clean, taint $taint"
fi
exit $fail
