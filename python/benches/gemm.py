"""Products per second of `ptxfp.matmul` (a whole GEMM with one tensor-core instruction's
numerics) for the common rows, against NumPy's float32 matmul on the same shape and, where it
is installed, MMA-Sim (PyPI `mmasim`, over PyTorch) on tiles of the same instruction, all in
one run on one machine.

    python python/benches/gemm.py --size 1024

Build the package in release (`pip install ./python`) for figures users get. A product is one
multiply-add of the M·N·K of a GEMM. The measurement runs in `--rounds` rounds, each timing
ptxfp and then NumPy for every row; the ratio is taken round by round (a shared machine's speed
drifts) and the table shows its median and range. NumPy's float32 matmul is the speed of the
CPU's BLAS, not the tensor cores' numerics: the ratio says what bit-exactness costs.
"""

import argparse
import statistics
import time

import ml_dtypes
import numpy as np

import ptxfp
from throughput import cpu_model  # python/benches/throughput.py, beside this script

ROWS = [
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_80", "bf16", None),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_90", "bf16", None),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "sm_90", "f16", None),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "sm_90a", "e4m3", None),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "sm_90a", "e4m3", 128),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
     "sm_120a", "e2m1", None),
]
DTYPES = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "e4m3": ml_dtypes.float8_e4m3fn, "e2m1": ml_dtypes.float4_e2m1fn}


def best_time(f, repeat):
    f()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def mmasim_rate(spelling, arch, rng, tiles=200):
    """Products per second of MMA-Sim on `tiles` tiles of `wgmma`/`mma.sync`, or why not."""
    try:
        import torch
        from mmasim.nv_ptx import MMA, WGMMA
    except ImportError:
        return None, "NOT RUN: mmasim (and PyTorch) not installed"
    parts = spelling.split(".")
    names = {"sm_80": "Ampere", "sm_90": "Hopper", "sm_90a": "Hopper"}
    if arch not in names or "block_scale" in spelling:
        return None, "NOT RUN: no such MMA-Sim row here"
    if parts[0] == "wgmma":
        op = WGMMA(names[arch], ".".join(parts[4:]))
    else:
        op = MMA(names[arch], ".".join([parts[3]] + parts[6:]))
    torch_type = {"bf16": torch.bfloat16, "f16": torch.float16, "e4m3": torch.float8_e4m3fn}[parts[-1] if parts[0] == "wgmma" else parts[-2]]
    a = torch.tensor(rng.standard_normal((op.m, op.k)), dtype=torch.float32).to(torch_type)
    b = torch.tensor(rng.standard_normal((op.k, op.n)), dtype=torch.float32).to(torch_type)
    c = torch.zeros((op.m, op.n), dtype=torch.float32)
    start = time.perf_counter()
    for _ in range(tiles):
        op(a, b, c)
    return tiles * op.m * op.n * op.k / (time.perf_counter() - start), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=512, help="M = N = K")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, n)).astype(np.float32)
    y = rng.standard_normal((n, n)).astype(np.float32)
    operands = {t: (x.astype(dt), y.astype(dt)) for t, dt in DTYPES.items()}
    nvfp4_cols = -(-n // 16)
    ones = np.full((n, nvfp4_cols), 0x38, np.uint8)  # ue4m3 1.0

    def ours(spelling, arch, ty, promote):
        a, b = operands[ty]
        if "block_scale" in spelling:
            return lambda: ptxfp.matmul(a, b, instr=spelling, arch=arch, scale_a=ones, scale_b=ones.T.copy())
        return lambda: ptxfp.matmul(a, b, instr=spelling, arch=arch, promote_every=promote)

    numpy = lambda: x @ y  # noqa: E731
    products = n**3
    ratios = {i: [] for i in range(len(ROWS))}
    rates = {i: [] for i in range(len(ROWS))}
    peer = []
    for _ in range(args.rounds):
        t_np = best_time(numpy, args.repeat)
        peer.append(products / t_np)
        for i, row in enumerate(ROWS):
            t = best_time(ours(*row), args.repeat)
            rates[i].append(products / t)
            ratios[i].append(t_np / t)

    print(f"# {cpu_model()}, {ptxfp.simd_level()}, ptxfp {ptxfp.__version__}, {n}×{n}×{n}, numpy float32 matmul "
          f"{statistics.median(peer):.3g} products/s")
    print("| instruction | arch | promotion | ptxfp products/s | ÷ numpy float32 (median, range) | MMA-Sim products/s |")
    print("|---|---|---|---|---|---|")
    for i, (spelling, arch, _, promote) in enumerate(ROWS):
        sim, why = mmasim_rate(spelling, arch, rng)
        sim_text = f"{sim:.3g}" if sim is not None else why
        r = ratios[i]
        print(f"| {spelling} | {arch} | {promote or '-'} | {statistics.median(rates[i]):.3g} | "
              f"{statistics.median(r):.3g} ({min(r):.3g}–{max(r):.3g}) | {sim_text} |")


if __name__ == "__main__":
    main()
