#!/usr/bin/env python3
"""Attributes a `perf record` profile of `ljr --perf-map` to JIT code by name.

perf reads /tmp/perf-PID.map only for samples in anonymous memory. The baseline JIT's code cache
is usually a dual mapping of a memfd (never writable and executable at once), which perf takes
for a deleted file; under `--perf-map` it is one anonymous mapping instead, so `perf report`
names JIT code itself. This script resolves the samples' addresses from the map either way,
and with --by-opcode sums them per opcode:

    perf record -o perf.data ljr --perf-map script.lua
    scripts/perf-jit-report.py perf.data /tmp/perf-PID.map [--top N] [--by-opcode]

It prints the share of samples per JIT symbol (each bytecode's code, its out-of-line part,
each helper), or per opcode with --by-opcode, with everything outside the cache under the
symbol perf gave it.
"""
import bisect
import collections
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = 40
    if "--top" in sys.argv:
        top = int(sys.argv[sys.argv.index("--top") + 1])
        args.remove(str(top))
    by_opcode = "--by-opcode" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    data, map_path = args
    symbols = []
    for line in open(map_path):
        start, size, name = line.rstrip("\n").split(" ", 2)
        symbols.append((int(start, 16), int(size, 16), name))
    symbols.sort()
    starts = [s[0] for s in symbols]
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    total = 0
    for line in out.splitlines():
        parts = line.split(None, 1)
        if not parts:
            continue
        ip = int(parts[0], 16)
        total += 1
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < symbols[i][0] + symbols[i][1]:
            name = symbols[i][2]
            if by_opcode:
                # "lua SOURCE:LINE [OFFSET] OPCODE (line N)[ out of line]" -> "jit OPCODE[ out of line]"
                if name.startswith("lua "):
                    rest = name.split("] ", 1)[1]
                    opcode = rest.split(" (line", 1)[0]
                    name = "jit " + opcode + (" out of line" if name.endswith("out of line") else "")
            counts[name] += 1
        else:
            counts[parts[1].strip() if len(parts) > 1 else "?"] += 1
    for name, n in counts.most_common(top):
        print(f"{100.0 * n / max(total, 1):6.2f}%  {name}")


if __name__ == "__main__":
    main()
