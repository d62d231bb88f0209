#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/profile.sh's report: guest kernel instructions of a profiled run
minus those of its baseline, per function (or per block of one function),
divided by the pages walked.

  report.py BASE RUN PAGES [FUNCTION]

BASE and RUN name a run's files: BASE.tb (the TCG plugin's blocks) and
BASE.out (vm-run.sh's output, with the guest's kallsyms as "KSYM" lines).
Each run is symbolized with its own kallsyms (KASLR differs per boot).
"""
import bisect
import collections
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


def phases(run, n):
    syms = symbols(run)
    addrs = [a for a, _ in syms]
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
                name = 'user space'
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
        phases(sys.argv[2], float(sys.argv[3]))
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
