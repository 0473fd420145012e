#!/usr/bin/env python3
"""Every kernel against the copy baseline: `ptxfp bench` on 2^24 elements (buffers that live in
memory) for one spelling of each group of spellings that differ only in `.ftz`, `.sat`,
`.relu`, `.satfinite`, `.oob` and the rounding direction (the `.rm`/`.rmi` form where there is
one, the directed forms being the slower), then a Markdown table of those whose rate with all
threads is below 0.8 of the baseline's, with their time per element on one thread (the compute
bound). About ten minutes on two cores.

Usage: scripts/bench_copy_ratio.py [PTXFP_BINARY] (default target/release/ptxfp)
"""

import json
import re
import subprocess
import sys

MODIFIERS = r"\.(ftz|sat|relu|satfinite|oob)(?=\.|$)"
DIRECTIONS = r"\.(rn|rz|rm|rp|rni|rzi|rmi|rpi|rna|rs)(?=\.|$)"
BAR = 0.8


def representatives(spellings):
    groups = {}
    for s in spellings:
        key = re.sub(DIRECTIONS, ".R", re.sub(MODIFIERS, "", s))
        groups.setdefault(key, []).append(s)

    def preference(s):
        return (not re.search(r"\.(rm|rmi)(?=\.|$)", s), bool(re.search(MODIFIERS, s)), s)

    return [sorted(group, key=preference)[0] for group in groups.values()]


def main():
    ptxfp = sys.argv[1] if len(sys.argv) > 1 else "target/release/ptxfp"
    ops = subprocess.run([ptxfp, "ops"], check=True, capture_output=True, text=True).stdout.splitlines()[1:]
    # RRO (sm_50 to sm_62) is left out: no single target has it and the sm_100 forms.
    spellings = [line.split()[0] for line in ops if line.split()[2] != "sm_50-sm_62"]
    chosen = representatives(spellings)
    out = subprocess.run(
        [ptxfp, "bench", "--json", "--arch", "sm_100", "--size", str(1 << 24), *chosen],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = {(m["instr"], m["threads"]): m for m in json.loads(out)}
    threads = max(t for _, t in rows)
    below = []
    for s in chosen:
        many, one = rows[(s, threads)], rows[(s, 1)]
        if many["ratio_to_copy"] < BAR:
            below.append((many["ratio_to_copy"], s, many, one))
    print(f"{len(chosen)} spellings measured for {len(spellings)} (RRO left out), {threads} threads, "
          f"level {rows[(chosen[0], 1)]['simd_level']}: {len(below)} below {BAR} of the copy baseline")
    print()
    print(f"| instruction | {threads} threads ·10^9/s | copy ·10^9/s | ratio | one thread: ns per element |")
    print("|---|---|---|---|---|")
    for ratio, s, many, one in sorted(below):
        print(f"| {s} | {many['elements_per_second'] / 1e9:.2f} | {many['copy_elements_per_second'] / 1e9:.2f} "
              f"| {ratio:.2f} | {1e9 / one['elements_per_second']:.3f} |")


if __name__ == "__main__":
    main()
