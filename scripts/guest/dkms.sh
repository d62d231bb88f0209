# SPDX-License-Identifier: GPL-2.0
# Load the DKMS-built module, ask it who it is, unload it.
if insmod /lib/memwalk/memwalk.ko; then
	echo "ok - insmod of the DKMS-built memwalk.ko"
else
	echo "not ok - insmod of the DKMS-built memwalk.ko"
fi
if out=$(memwalk-client info 2>&1) && echo "$out" | grep -q "$(uname -r)"; then
	echo "ok - memwalk-client info answers from the DKMS-built module"
else
	echo "not ok - memwalk-client info answers from the DKMS-built module: $out"
fi
rmmod memwalk && echo "ok - rmmod memwalk" || echo "not ok - rmmod memwalk"
