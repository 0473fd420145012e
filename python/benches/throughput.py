"""Throughput of the Python package on 2^24 elements, against the ptxfp command's own
`bench` (the Rust library without Python) and against NumPy's and ml_dtypes' arithmetic and
conversions on the same data, all in one run on one machine.

    python python/benches/throughput.py --cli target/release/ptxfp

Build the package in release (`pip install ./python`) for figures users get. Rates are elements
per second on every core (ptxfp's default), each the best of `--repeat` calls; for the
low-precision conversions an element is one f32 input (a pair of them is one instruction:
`cvt.rn.satfinite.e4m3x2.f32 d, a, b` with the odd-indexed values as `a`, the even as `b`, so
that the float8_e4m3fn result of shape (n/2, 2) is in the order of `x.astype(float8_e4m3fn)`),
against ml_dtypes' `astype` on the same values. The measurement
runs in `--rounds` rounds, each timing the package, its peer and then `ptxfp bench` in turn,
and the ratios are taken round by round: pairing keeps a ratio meaningful while a shared
machine's speed drifts. The table shows each ratio's median and its range over the rounds.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import time

import ml_dtypes
import numpy as np

import ptxfp

BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E2M1 = np.dtype(ml_dtypes.float4_e2m1fn)
#: The target of the low-precision conversions (e2m1x2 needs the sm_100 family).
NARROW_ARCH = "sm_100a"


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def rate(f, n, repeat):
    f()  # warm-up: page faults
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return n / best


def moderate(n, dtype, seed):
    """Values like `ptxfp bench`'s operands: 1.0's binade ± 8 binades, random fraction and sign."""
    frac_bits, bits = {np.float32: (23, 32), np.float16: (10, 16)}[dtype]
    word = {32: np.uint32, 16: np.uint16}[bits]
    r = np.random.default_rng(seed).integers(0, 1 << 63, n, dtype=np.uint64)
    one = int(np.array(1, dtype).view(word))
    exponent = (one >> frac_bits) - 8 + (r >> np.uint64(59)).astype(np.int64) % 16
    sign = (r >> np.uint64(58)) & np.uint64(1)
    frac = r & np.uint64((1 << frac_bits) - 1)
    words = (sign << np.uint64(bits - 1)) | (exponent.astype(np.uint64) << np.uint64(frac_bits)) | frac
    return words.astype(word).view(dtype)


def bench_rates(cli, n, spellings, arch="sm_90"):
    """`ptxfp bench --json` figures on the most threads it measured, by spelling."""
    out = subprocess.run([cli, "bench", "--json", "--size", str(n), "--arch", arch, *spellings],
                         capture_output=True, text=True, check=True)
    best = {}
    for m in json.loads(out.stdout):
        best[m["instr"]] = max(best.get(m["instr"], (0, 0)), (m["threads"], m["elements_per_second"]))
    return {k: v[1] for k, v in best.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", help="the ptxfp command, for its `bench` figures")
    parser.add_argument("--size", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n, repeat = args.size, args.repeat

    f32 = [moderate(n, np.float32, s) for s in (1, 2, 3)]
    f16 = [moderate(n, np.float16, s) for s in (4, 5, 6, 7, 8, 9)]
    b16 = [x.astype(BF16) for x in f32[:2]]
    x2 = [(a.view(np.uint16).astype(np.uint32) | b.view(np.uint16).astype(np.uint32) << 16) for a, b in zip(f16[::2], f16[1::2])]
    outs = {k: np.empty(n, dtype=d) for k, d in (("f32", np.float32), ("f16", np.float16), ("b16", BF16), ("u32", np.uint32))}
    # The pairs of the low-precision conversions: a = x[1::2] (element 1), b = x[0::2].
    odd, even = f32[0][1::2], f32[0][0::2]
    outs["e4m3"] = np.empty((n // 2, 2), E4M3)
    outs["e2m1"] = np.empty((n // 2, 2), E2M1)
    e4m3 = ptxfp.Instr("cvt.rn.satfinite.e4m3x2.f32", arch=NARROW_ARCH)
    e2m1 = ptxfp.Instr("cvt.rn.satfinite.e2m1x2.f32", arch=NARROW_ARCH)

    cases = [
        ("add.rn.f32", lambda: ptxfp.eval("add.rn.f32", f32[0], f32[1], out=outs["f32"]),
         "numpy", lambda: np.add(f32[0], f32[1], out=outs["f32"])),
        ("fma.rn.f16x2", lambda: ptxfp.eval("fma.rn.f16x2", *x2, out=outs["u32"]), None, None),
        ("add.rn.f16", lambda: ptxfp.eval("add.rn.f16", f16[0], f16[1], out=outs["f16"]),
         "numpy", lambda: np.add(f16[0], f16[1], out=outs["f16"])),
        ("add.rn.bf16", lambda: ptxfp.eval("add.rn.bf16", b16[0], b16[1], out=outs["b16"]),
         "ml_dtypes", lambda: np.add(b16[0], b16[1], out=outs["b16"])),
        ("cvt.rn.bf16.f32", lambda: ptxfp.eval("cvt.rn.bf16.f32", f32[0], out=outs["b16"]),
         "ml_dtypes", lambda: f32[0].astype(BF16)),
        ("cvt.rn.f16.f32", lambda: ptxfp.eval("cvt.rn.f16.f32", f32[0], out=outs["f16"]),
         "numpy", lambda: f32[0].astype(np.float16)),
        ("cvt.rn.satfinite.e4m3x2.f32", lambda: e4m3.eval(odd, even, out=outs["e4m3"]),
         "ml_dtypes", lambda: f32[0].astype(E4M3)),
        ("cvt.rn.satfinite.e2m1x2.f32", lambda: e2m1.eval(odd, even, out=outs["e2m1"]),
         "ml_dtypes", lambda: f32[0].astype(E2M1)),
    ]
    narrow = [name for name, *_ in cases if ".e4m3x2." in name or ".e2m1x2." in name]
    # On these values (|x| in [2^-8, 2^8], no NaN) the instructions and astype give the same codes.
    for name, ours, _, peer in cases:
        if name in narrow:
            ours()
            same = np.array_equal(outs["e4m3" if "e4m3" in name else "e2m1"].reshape(-1).view(np.uint8), peer().view(np.uint8))
            print(f"# {name}: {'the same codes as' if same else 'NOT the same codes as'} ml_dtypes' astype on these values")

    rounds = {name: {"python": [], "bench": [], "peer": []} for name, *_ in cases}
    with np.errstate(all="ignore"):
        for _ in range(args.rounds):
            for name, ours, _, peer in cases:
                rounds[name]["python"].append(rate(ours, n, repeat))
                if peer is not None:
                    rounds[name]["peer"].append(rate(peer, n, repeat))
            if args.cli:
                for name, r in bench_rates(args.cli, n, [c[0] for c in cases if c[0] not in narrow]).items():
                    rounds[name]["bench"].append(r)
                # `ptxfp bench` counts instructions: two f32 inputs each.
                for name, r in bench_rates(args.cli, n // 2, narrow, NARROW_ARCH).items():
                    rounds[name]["bench"].append(2 * r)

    def paired(ours, theirs):
        ratios = [a / b for a, b in zip(ours, theirs)]
        return f"{statistics.median(ratios):6.2f} {min(ratios):5.2f}-{max(ratios):<5.2f}"

    print(f"# {cpu_model()} ({os.cpu_count()} logical CPUs), SIMD level {ptxfp.simd_level()}, {n} elements, "
          f"{args.rounds} rounds, best of {repeat}; rates are medians over the rounds, ratios medians and ranges of the rounds' ratios")
    width = max(len(name) for name, *_ in cases)
    print(f"{'case':{width}} {'python/s':>9} {'bench/s':>9} {'python/bench':>18} {'peer':>10} {'peer/s':>9} {'python/peer':>18}")
    for name, _, peer_name, _ in cases:
        r = rounds[name]
        line = f"{name:{width}} {statistics.median(r['python']):9.3g}"
        line += f" {statistics.median(r['bench']):9.3g} {paired(r['python'], r['bench'])}" if r["bench"] else f" {'':9} {'':18}"
        if r["peer"]:
            line += f" {peer_name:>10} {statistics.median(r['peer']):9.3g} {paired(r['python'], r['peer'])}"
        print(line)


if __name__ == "__main__":
    main()
