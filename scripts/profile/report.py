#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/profile.sh's report: guest kernel instructions of a profiled run
minus those of its baseline, per function (or per block of one function),
divided by the pages walked.

  report.py BASE RUN PAGES [FUNCTION]
  report.py --phases RUN N [GUEST=HOST ...]

BASE and RUN name a run's files: BASE.tb (the TCG plugin's blocks) and
BASE.out (vm-run.sh's output, with the guest's kallsyms as "KSYM" lines).
Each run is symbolized with its own kallsyms (KASLR differs per boot).

With --phases, user space is symbolized too where RUN.out says where it
was mapped (a guest booted norandmaps): "UENTRY PATH ADDR" (a PIE's
entry point) and "ULIB PATH ADDR" (a library's load address, as
LD_TRACE_LOADED_OBJECTS prints it); GUEST=HOST names the host's copy of
a guest program, a static one (no UENTRY) at its own addresses.  The
libraries are the host's own (vm-run.sh copies them).  nm gives the
symbols, the nearest one below an address names it: a library stripped
of its local symbols shows its nearest exported function.
"""
import bisect
import collections
import subprocess
import sys


def symbols(base):
    syms = []
    with open(base + '.out') as f:
        for line in f:
            if ' KSYM ' not in line:
                continue
            p = line.split()
            name = p[4] + (' ' + p[5] if len(p) > 5 else '')
            syms.append((int(p[2], 16), name))
    syms.sort()
    return syms


def blocks(base):
    with open(base + '.tb') as f:
        for line in f:
            vaddr, insns, execs = line.split()
            yield int(vaddr, 16), int(insns), int(execs)


def per_function(base):
    syms = symbols(base)
    addrs = [a for a, _ in syms]
    count = collections.Counter()
    for vaddr, insns, execs in blocks(base):
        i = bisect.bisect_right(addrs, vaddr) - 1
        count[syms[i][1] if i >= 0 else '?'] += insns * execs
    return count


def per_block(base, function):
    syms = symbols(base)
    starts = [a for a, n in syms if n.split()[0] == function]
    if not starts:
        return collections.Counter()
    start = starts[0]
    end = min((a for a, _ in syms if a > start), default=start + 0x10000)
    count = collections.Counter()
    for vaddr, insns, execs in blocks(base):
        if start <= vaddr < end:
            count[(vaddr - start, insns)] += execs
    return count


def elf_text(path):
    """The entry point and the executable segments [start, end) of ELF @path."""
    out = subprocess.run(['readelf', '-hlW', path], capture_output=True,
                         text=True, check=True).stdout
    entry, segs = 0, []
    for line in out.splitlines():
        p = line.split()
        if line.strip().startswith('Entry point address:'):
            entry = int(p[-1], 16)
        elif p and p[0] == 'LOAD' and any('E' in t for t in p[6:-1]):
            segs.append((int(p[2], 16), int(p[2], 16) + int(p[5], 16)))
    return entry, segs


def elf_symbols(path):
    """(address, name) of @path's functions: its symbol table, else its dynamic one."""
    for args in (['nm', '-n', '--defined-only'], ['nm', '-nD', '--defined-only']):
        out = subprocess.run(args + [path], capture_output=True, text=True).stdout
        syms = [(int(p[0], 16), p[2]) for p in (l.split() for l in out.splitlines())
                if len(p) == 3 and p[1] in 'TtWwi']
        if syms:
            return syms
    return []


def user_symbols(run, hosts):
    """Sorted (address, name) of user space, and the objects' text ranges."""
    where = {}
    with open(run + '.out') as f:
        for line in f:
            p = line.split()
            if len(p) >= 4 and p[1] in ('UENTRY', 'ULIB'):
                where[p[2]] = (p[1], int(p[3], 16))
    objs = [(g, h) for g, h in hosts.items()]
    objs += [(g, g) for g, (kind, _) in where.items() if kind == 'ULIB']
    syms, ranges = [], []
    for guest, host in objs:
        entry, segs = elf_text(host)
        kind, addr = where.get(guest, ('STATIC', 0))
        base = addr - entry if kind == 'UENTRY' else addr
        tag = ' [%s]' % guest.rsplit('/', 1)[-1]
        ranges += [(base + s, base + e, '?' + tag) for s, e in segs]
        syms += [(base + a, name + tag) for a, name in elf_symbols(host)]
    syms.sort()
    ranges.sort()
    return syms, ranges


def user_name(vaddr, syms, saddrs, ranges):
    for start, end, unknown in ranges:
        if start <= vaddr < end:
            i = bisect.bisect_right(saddrs, vaddr) - 1
            return syms[i][1] if i >= 0 and syms[i][0] >= start else unknown
    return 'user space'


def phases(run, n, hosts):
    syms = symbols(run)
    addrs = [a for a, _ in syms]
    usyms, uranges = user_symbols(run, hosts) if hosts else ([], [])
    uaddrs = [a for a, _ in usyms]
    counts, cur = [], None
    with open(run + '.tb') as f:
        for line in f:
            if line.startswith('PHASE'):
                cur = collections.Counter()
                counts.append(cur)
                continue
            vaddr, insns, execs = (int(x, 16 if i == 0 else 10)
                                   for i, x in enumerate(line.split()))
            if vaddr < 0xffff800000000000:
                name = user_name(vaddr, usyms, uaddrs, uranges)
            else:
                i = bisect.bisect_right(addrs, vaddr) - 1
                name = syms[i][1] if i >= 0 else '?'
            cur[name] += insns * execs
    for k, c in enumerate(counts):
        total = sum(c.values())
        print('phase %d: %.0f instructions an iteration' % (k, total / n))
        for name, v in c.most_common(40):
            print('  %10.0f %5.1f%%  %s' % (v / n, 100.0 * v / total, name))


def main():
    if sys.argv[1] == '--phases':
        phases(sys.argv[2], float(sys.argv[3]),
               dict(a.split('=', 1) for a in sys.argv[4:]))
        return
    base, run, pages = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if len(sys.argv) > 4:
        a, b = per_block(base, sys.argv[4]), per_block(run, sys.argv[4])
        print('%s: offset, instructions in the block, runs and instructions a page'
              % sys.argv[4])
        for key in sorted(b):
            d = (b[key] - a.get(key, 0)) / pages
            if d * key[1] >= 0.05:
                print('  +%#06x %3d  %8.3f  %8.1f' % (key[0], key[1], d, d * key[1]))
        return
    a, b = per_function(base), per_function(run)
    diff = {k: b[k] - a.get(k, 0) for k in b}
    total = sum(v for v in diff.values() if v > 0)
    print('%.1f guest kernel instructions a page' % (total / pages))
    for name, v in sorted(diff.items(), key=lambda x: -x[1])[:25]:
        if v <= 0:
            break
        print('  %8.1f %5.1f%%  %s' % (v / pages, 100.0 * v / total, name))


if __name__ == '__main__':
    main()
