"""Throughput of the Python package on 2^24 elements, against the ptxfp command's own
`bench` (the Rust library without Python) and against NumPy's and ml_dtypes' arithmetic and
conversions on the same data, all in one run on one machine.

    python python/benches/throughput.py --cli target/release/ptxfp

Build the package in release (`pip install ./python`) for figures users get; the rates are
elements per second, best of `--repeat` runs, on every core (ptxfp's default).
"""

import argparse
import json
import platform
import subprocess
import time

import ml_dtypes
import numpy as np

import ptxfp

BF16 = np.dtype(ml_dtypes.bfloat16)


def rate(f, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return n / best


def words(n, bits, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << bits, n, dtype=np.uint64).astype({16: np.uint16, 32: np.uint32}[bits])


def finite(x):
    """Random finite values (NaN and infinite patterns replaced by 1)."""
    return np.where(np.isfinite(x), x, x.dtype.type(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", help="the ptxfp command, for its `bench` figures")
    parser.add_argument("--size", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n, repeat = args.size, args.repeat

    f32 = [finite(words(n, 32, s).view(np.float32)) for s in (1, 2, 3)]
    f16 = [finite(words(n, 16, s).view(np.float16)) for s in (4, 5)]
    b16 = [x.astype(np.float32).astype(BF16) for x in f16]
    x2 = [words(n, 32, s) for s in (6, 7, 8)]
    outs = {k: np.empty(n, dtype=d) for k, d in (("f32", np.float32), ("f16", np.float16), ("b16", BF16), ("u32", np.uint32))}

    rows = []

    def row(name, ours, peer_name=None, peer=None):
        r = {"case": name, "ptxfp_python": rate(ours, n, repeat)}
        if peer is not None:
            r[peer_name] = rate(peer, n, repeat)
        rows.append(r)

    with np.errstate(all="ignore"):
        row("add.rn.f32", lambda: ptxfp.eval("add.rn.f32", f32[0], f32[1], out=outs["f32"]),
            "numpy", lambda: np.add(f32[0], f32[1], out=outs["f32"]))
        row("fma.rn.f16x2", lambda: ptxfp.eval("fma.rn.f16x2", *x2, out=outs["u32"]))
        row("add.rn.f16", lambda: ptxfp.eval("add.rn.f16", f16[0], f16[1], out=outs["f16"]),
            "numpy", lambda: np.add(f16[0], f16[1], out=outs["f16"]))
        row("add.rn.bf16", lambda: ptxfp.eval("add.rn.bf16", b16[0], b16[1], out=outs["b16"]),
            "ml_dtypes", lambda: np.add(b16[0], b16[1], out=outs["b16"]))
        row("cvt.rn.bf16.f32", lambda: ptxfp.eval("cvt.rn.bf16.f32", f32[0], out=outs["b16"]),
            "ml_dtypes", lambda: f32[0].astype(BF16))
        row("cvt.rn.f16.f32", lambda: ptxfp.eval("cvt.rn.f16.f32", f32[0], out=outs["f16"]),
            "numpy", lambda: f32[0].astype(np.float16))

    if args.cli:
        spellings = [r["case"] for r in rows]
        out = subprocess.run([args.cli, "bench", "--json", "--size", str(n), *spellings], capture_output=True, text=True, check=True)
        best = {}
        for m in json.loads(out.stdout):
            best[m["instr"]] = max(best.get(m["instr"], 0), m["elements_per_second"])
        for r in rows:
            r["ptxfp_bench"] = best[r["case"]]

    print(f"# {platform.processor() or platform.machine()}, SIMD level {ptxfp.simd_level()}, {n} elements, best of {repeat}")
    print(f"{'case':18} {'python/s':>10} {'bench/s':>10} {'ratio':>6} {'peer':>10} {'peer/s':>10} {'ratio':>6}")
    for r in rows:
        bench = r.get("ptxfp_bench")
        peer = next(((k, v) for k, v in r.items() if k in ("numpy", "ml_dtypes")), None)
        line = f"{r['case']:18} {r['ptxfp_python']:10.3g}"
        line += f" {bench:10.3g} {r['ptxfp_python'] / bench:6.2f}" if bench else f" {'':10} {'':6}"
        if peer:
            line += f" {peer[0]:>10} {peer[1]:10.3g} {r['ptxfp_python'] / peer[1]:6.2f}"
        print(line)


if __name__ == "__main__":
    main()
