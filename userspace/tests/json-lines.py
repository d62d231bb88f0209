# SPDX-License-Identifier: GPL-2.0
# json-lines.py FILE ASSERTIONS: FILE must be JSON lines as the client writes
# them (one object per line, each ending in a newline, no duplicate keys, no
# NaN/Infinity); then the Python ASSERTIONS run with the objects in "lines".
import json
import sys


def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in %r" % keys)
    return dict(pairs)


def no_constants(name):
    raise ValueError("non-standard constant " + name)


lines = []
for line in open(sys.argv[1]):
    if not line.endswith("\n"):
        sys.exit("a line without its newline")
    lines.append(json.loads(line, object_pairs_hook=no_dups, parse_constant=no_constants))
    if not isinstance(lines[-1], dict):
        sys.exit("not an object: " + line)
exec(sys.argv[2])
