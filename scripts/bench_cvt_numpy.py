"""cvt.rn.bf16.f32 and cvt.rn.f16.f32 in ptxfp against ml_dtypes' astype(bfloat16) and
NumPy's astype(float16), on buffers of the same length in the same run.

Run through scripts/bench_cvt_numpy.sh, which builds ptxfp and installs NumPy and ml_dtypes
into a virtual environment under target/. Both sides convert normal f32 values near 1.0 (what
`ptxfp bench` converts: 1.0 with a random fraction and a small exponent spread); NumPy's
conversions run on one thread, so the table sets them beside ptxfp's one-thread rate and
prints its all-thread rate too. The best of several repetitions counts, as in `ptxfp bench`.
"""

import json
import os
import subprocess
import sys
import time

import ml_dtypes
import numpy as np

LENGTH = 1 << 24
REPEATS = 7


def best_rate(convert, x):
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        convert(x)
        best = min(best, time.perf_counter() - start)
    return len(x) / best


def ptxfp_rates(binary, instr):
    out = subprocess.run(
        [binary, "bench", instr, "--size", str(LENGTH), "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = json.loads(out)
    return {row["threads"]: row for row in rows}


def main():
    binary = sys.argv[1]
    rng = np.random.default_rng(1)
    x = (rng.random(LENGTH, dtype=np.float32) + 1.0) * np.exp2(rng.integers(-4, 4, LENGTH)).astype(np.float32)
    peers = [
        ("cvt.rn.bf16.f32", "ml_dtypes astype(bfloat16)", lambda v: v.astype(ml_dtypes.bfloat16)),
        ("cvt.rn.f16.f32", "numpy astype(float16)", lambda v: v.astype(np.float16)),
    ]
    print(f"{LENGTH} elements, numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, {os.cpu_count()} CPUs")
    print(f"{'instruction':18} {'peer':28} {'peer/s':>10} {'ptxfp 1t/s':>11} {'ratio':>6} {'ptxfp Nt/s':>11} {'ratio':>6}")
    for instr, name, convert in peers:
        peer = best_rate(convert, x)
        rows = ptxfp_rates(binary, instr)
        one = rows[1]["elements_per_second"]
        threads = max(rows)
        all_threads = rows[threads]["elements_per_second"]
        level = rows[1]["simd_level"]
        print(
            f"{instr:18} {name:28} {peer:10.3e} {one:11.3e} {one / peer:6.2f} {all_threads:11.3e} "
            f"{all_threads / peer:6.2f}  ({threads} threads, SIMD level {level})"
        )


if __name__ == "__main__":
    main()
