#!/usr/bin/env python3
"""ptxfp's tensor-core tiles against MMA-Sim itself (PyPI `mmasim`, over PyTorch), bit for bit.

Run once by hand (PyTorch's wheel brings several GB, too much for CI), in a virtual
environment with `pip install mmasim==2.1.1 numpy`, with a built `ptxfp` binary:

    python scripts/mmasim_compare.py --ptxfp target/release/ptxfp --tiles 800

For every mma.sync form MMA-Sim models on each architecture (and wgmma on Hopper, tcgen05 on
Blackwell, the block-scaled mma on RTX Blackwell), it draws random tiles (finite codes of the
input types, a tenth of them zero, exponents over the whole range), evaluates them with
MMA-Sim and with `ptxfp mma`, and counts the elements of D whose bits differ (NaNs compared
as NaNs). docs/tensorcore.md records the figures.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
from mmasim.nv_ptx import MMA, MMABlockScale, TCGen05MMA, WGMMA
from mmasim.nv_ptx import isa_mma, isa_tcgen05mma, isa_wgmma

ARCHS = {
    "Volta": "sm_70",
    "Turing": "sm_75",
    "Ampere": "sm_80",
    "Ada Lovelace": "sm_89",
    "Hopper": "sm_90",
    "Blackwell": "sm_100",
    "RTX Blackwell": "sm_120a",
}
BITS = {"f64": 64, "f32": 32, "tf32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "ue8m0": 8,
        "ue4m3": 8, "e3m2": 6, "e2m3": 6, "e2m1": 4}
NP_WORD = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
TORCH = {"f64": torch.float64, "f32": torch.float32, "tf32": torch.float32, "f16": torch.float16,
         "bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2,
         "ue8m0": torch.float8_e8m0fnu, "ue4m3": torch.float8_e4m3fn}
TORCH_WORD = {8: torch.uint8, 16: torch.int16, 32: torch.int32, 64: torch.int64}


def finite_codes(rng, ty, shape):
    """Random finite codes of `ty` (a tenth zero); ue8m0 near 2^0 so products stay finite."""
    bits = BITS[ty]
    word = NP_WORD[max(8, bits)]
    codes = rng.integers(0, 1 << bits, size=shape, dtype=np.uint64)
    if ty == "ue8m0":
        codes = rng.integers(120, 135, size=shape, dtype=np.uint64)
    elif ty == "ue4m3":
        codes = rng.integers(0x20, 0x50, size=shape, dtype=np.uint64)
    elif ty in TORCH and bits >= 8:
        for _ in range(64):
            t = torch.from_numpy(codes.astype(word).view(NP_WORD[bits]).astype(NP_WORD[bits]))
            vals = t.view(TORCH_WORD[bits]).view(TORCH[ty]).to(torch.float64).numpy()
            bad = ~np.isfinite(vals)
            if not bad.any():
                break
            codes[bad] = rng.integers(0, 1 << bits, size=int(bad.sum()), dtype=np.uint64)
    codes[rng.random(shape) < 0.1] = 0
    return codes.astype(word)


def to_torch(ty, codes, packed=False):
    """MMA-Sim's operand: FP6 in bits 5:0 of a byte, FP4 in bits 5:2 (the kind::f8f6f4
    container), or for mxf4/mxf4nvf4 two FP4 per byte along k, the first in the high nibble."""
    bits = BITS[ty]
    if ty in TORCH:
        return torch.from_numpy(codes.view(NP_WORD[bits]).copy()).view(TORCH_WORD[bits]).view(TORCH[ty])
    if ty == "e2m1" and packed:
        return torch.from_numpy((codes[..., 0::2] << 4 | codes[..., 1::2]).astype(np.uint8))
    if ty == "e2m1":
        return torch.from_numpy((codes << 2).astype(np.uint8))
    return torch.from_numpy(codes.copy())


def bits_of(t, ty):
    bits = BITS[ty]
    return t.contiguous().view(TORCH_WORD[bits]).numpy().view(NP_WORD[bits]).astype(np.uint64)


def is_nan(ty, words):
    return np.isnan(words.astype(NP_WORD[BITS[ty]]).view({16: np.float16, 32: np.float32, 64: np.float64}[BITS[ty]]))


def run_ptxfp(exe, spelling, arch, arrays, out_ty, lead):
    with tempfile.TemporaryDirectory() as d:
        args = [exe, "mma", spelling, "--arch", arch]
        for name, arr in arrays.items():
            path = os.path.join(d, name + ".npy")
            np.save(path, arr)
            args += ["--" + name, path]
        out = os.path.join(d, "d.npy")
        subprocess.run(args + ["--out", out], check=True, capture_output=True)
        return np.load(out).view(NP_WORD[BITS[out_ty]]).astype(np.uint64)


def compare(exe, rng, tiles, family, arch_name, st, scaled=False):
    arch = ARCHS[arch_name]
    parts = st.split(".")
    if family == "mma" and scaled:
        shape, kind, block, d, a, b, c, s = parts
        op = MMABlockScale(arch_name, st)
        vec = {"block32": 64 // 32 if shape.endswith("k64") else 1, "block16": 4}[block]
        spelling = f"mma.sync.aligned.{shape}.row.col.{kind}.block_scale.scale_vec::{vec}X.{d}.{a}.{b}.{c}.{s}"
    elif family == "mma":
        kind = None
        if len(parts) == 6:
            shape, kind, d, a, b, c = parts
        else:
            shape, d, a, b, c = parts
        op = MMA(arch_name, st)
        ks = f".{kind}" if kind else ""
        spelling = f"mma.sync.aligned.{shape}.row.col{ks}.{d}.{a}.{b}.{c}"
    elif family == "wgmma":
        shape, d, a, b = parts
        c = d
        op = WGMMA(arch_name, st)
        spelling = f"wgmma.mma_async.sync.aligned.{shape}.{d}.{a}.{b}"
        arch = "sm_90a"
    m, n, k = op.m, op.n, op.k
    A = finite_codes(rng, a, (tiles, m, k))
    B = finite_codes(rng, b, (tiles, k, n))
    C = finite_codes(rng, c, (tiles, m, n))
    arrays = {"a": A, "b": B, "c": C}
    if scaled:
        SA = finite_codes(rng, s, (tiles, m, vec))
        SB = finite_codes(rng, s, (tiles, vec, n))
        arrays.update({"scale-a": SA, "scale-b": SB})
    try:
        got = run_ptxfp(exe, spelling, arch, arrays, d, (tiles,))
    except subprocess.CalledProcessError as e:
        return spelling, arch, 0, "refused by ptxfp: " + e.stderr.decode().strip()
    packed = scaled and k == 64
    want = np.empty_like(got)
    for t in range(tiles):
        # MMA-Sim's B of a packed kind is n×(k/2): B transposed, packed along k.
        bt = np.ascontiguousarray(np.swapaxes(B[t], 0, 1)) if packed else B[t]
        tb = to_torch(b, bt, packed)
        args = [to_torch(a, A[t], packed), tb.T if packed else tb, to_torch(c, C[t])]
        if scaled:
            args += [to_torch(s, SA[t]), to_torch(s, SB[t])]
        want[t] = bits_of(op(*args), d)
    both_nan = is_nan(d, got) & is_nan(d, want)
    bad = (got != want) & ~both_nan
    if bad.any() and os.environ.get("MMASIM_COMPARE_SHOW"):
        t, i, j = (int(x) for x in np.argwhere(bad)[0])
        print(f"  first: tile {t} D[{i}][{j}]: ptxfp {got[t, i, j]:#x}, MMA-Sim {want[t, i, j]:#x}; "
              f"a {[hex(x) for x in A[t, i]]} b {[hex(x) for x in B[t, :, j]]} c {C[t, i, j]:#x}")
    return spelling, arch, got.size, int(bad.sum())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptxfp", default="target/release/ptxfp")
    p.add_argument("--tiles", type=int, default=800)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", default="", help="compare only spellings containing this text")
    p.add_argument("--arch", default="", help="compare only this MMA-Sim architecture (Volta, Turing, ...)")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    jobs = []
    for arch_name, forms in isa_mma.mma_shape_and_type.items():
        jobs += [("mma", arch_name, st, False) for st in forms if ".f64." not in st]
    for arch_name, forms in isa_mma.mma_block_scale_shape_and_type.items():
        jobs += [("mma", arch_name, st, True) for st in forms]
    jobs += [("wgmma", "Hopper", st, False) for st in isa_wgmma.hopper_wgmma_shape_and_type if st.startswith("m64n8k")]
    total = failed = 0
    for family, arch_name, st, scaled in jobs:
        if args.only not in st or args.arch not in ("", arch_name):
            continue
        spelling, arch, n, bad = compare(args.ptxfp, rng, args.tiles, family, arch_name, st, scaled)
        if isinstance(bad, str):
            print(f"{spelling:<90} {arch:<8} not compared: {bad}", flush=True)
            continue
        total += n
        failed += bad
        print(f"{spelling:<90} {arch:<8} {n:>8} dot products, {bad} differ", flush=True)
    print(f"total: {total} dot products, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
