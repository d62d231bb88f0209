# SPDX-License-Identifier: GPL-2.0
# Sourced by the profiled guests (scripts/profile-*.sh, which boot them
# norandmaps): where code is, for scripts/profile/report.py.  The kernel's
# text symbols; the client's entry point, from which the host finds its
# load address; its libraries' load addresses as the dynamic loader
# places them (the same in every run without address randomization).
grep -i ' t ' /proc/kallsyms | sed 's/^/KSYM /'
LD_SHOW_AUXV=1 /bin/memwalk-client --help 2>/dev/null |
	sed -n 's/^AT_ENTRY: *\(0x[0-9a-f]*\)$/UENTRY \/bin\/memwalk-client \1/p'
LD_TRACE_LOADED_OBJECTS=1 /bin/memwalk-client |
	sed -n 's/^[[:space:]]*\([^ ]* => \)\{0,1\}\(\/[^ ]*\) (\(0x[0-9a-f]*\))$/ULIB \2 \3/p'
