#!/usr/bin/env python3
"""Recover the MUFU.SQRT and MUFU.TANH coefficient ROMs from a GPU's outputs.

Reads the per-input dumps of data/hardware/h200-sm90/slices (every input of the binades that
the tables cover), finds for each table segment the one row [c0, c1, c2] with which the stated
datapath reproduces every output of the segment, and writes them as data/sm90_sfu_tables.csv.
It stops with an error if a segment has no such row or more than one.

The datapaths (the Tesla SFU's, docs/semantics.md §2.2, with the squarer `sq`):
  SQRT  y = m·2^-2p in [0.5, 2) (p the exponent parity), row = p·64 + frac[22:17],
        xl = frac[16:0]; acc = (c0 << 14) + c1·xl + c2·sq(xl) + 0x7FFF ≈ √y·2^40;
        q = acc >> 17 when acc ≥ 2^40, else acc >> 16.
  TANH  |x| in binade E = -8..2, n(E) index bits (0,0,0,1,1,2,2,2,3,4,3), row = the segment,
        xl = the 17 fraction bits after the index; acc = (c0 << 16) + c1·xl + c2·sq(xl) in
        units of 2^(T-39), T = min(E, -1); q = acc >> 16 when acc ≥ 2^39 (exponent T), else
        acc >> 15 (exponent T - 1): truncated.

Needs numpy. Run from the repository root: python3 scripts/recover_sfu_tables.py
"""
import lzma
import sys
from pathlib import Path

import numpy as np

SLICES = Path("data/hardware/h200-sm90/slices")
OUT = Path("data/sm90_sfu_tables.csv")
XL = np.arange(1 << 17, dtype=np.int64)
TANH_INDEX_BITS = {-8: 0, -7: 0, -6: 0, -5: 1, -4: 1, -3: 2, -2: 2, -1: 2, 0: 3, 1: 4, 2: 3}


def squarer(v):
    a = v >> 9
    return ((a * a) >> 1) + sum(((v >> j) & 1) * (a >> (9 - j)) for j in range(2, 9))


SQ = squarer(XL)


def words(name):
    return np.frombuffer(lzma.decompress((SLICES / name).read_bytes()), dtype="<u4").astype(np.int64)


def solve(units, low, span=(16, 8)):
    """The (c1, c2, K_lo, K_hi) with `low ≤ K + c1·xl + c2·sq(xl) < low + units` for every xl
    and every K in [K_lo, K_hi) (units per xl: a scalar or an array), searched around the
    least-squares fit."""
    fit, *_ = np.linalg.lstsq(np.stack([np.ones_like(XL), XL, SQ], 1).astype(float),
                              (low + units // 2).astype(float), rcond=None)
    found = []
    for c2 in range(round(fit[2]) - span[0], round(fit[2]) + span[0] + 1):
        for c1 in range(round(fit[1]) - span[1], round(fit[1]) + span[1] + 1):
            t = low - c1 * XL - c2 * SQ
            lo, hi = int(t.max()), int((t + units).min())
            if lo < hi:
                found.append((c1, c2, lo, hi))
    return found


def unique_row(found, shift, bias, what):
    rows = [(c0, c1, c2) for c1, c2, lo, hi in found
            for c0 in range((lo - bias) >> shift, ((hi - bias) >> shift) + 2)
            if lo <= (c0 << shift) + bias < hi]
    if len(rows) != 1:
        sys.exit(f"{what}: {len(rows)} rows reproduce the outputs, expected exactly one")
    return rows[0]


def sqrt_rows():
    rows = [None] * 128
    for p, name in [(0, "sqrt_approx_f32_binade+0.xz"), (1, "sqrt_approx_f32_binade+1.xz")]:
        q = (words(name) & 0x7FFFFF) | (1 << 23)
        shift = 17 if p == 0 else 16  # results ≥ 1 (p = 0) keep acc >> 17
        for j in range(64):
            seg = q[j << 17:(j + 1) << 17] << shift
            rows[p * 64 + j] = unique_row(solve(1 << shift, seg), 14, 0x7FFF, f"sqrt row {p * 64 + j}")
    return rows


def tanh_rows():
    rows = []
    for e, bits in TANH_INDEX_BITS.items():
        w = words(f"tanh_approx_f32_binade{e:+d}.xz")
        for s in range(1 << bits):
            seg = w[s << (23 - bits):(s + 1) << (23 - bits)][::1 << (6 - bits)]
            expo = (seg >> 23) - 127
            top = min(e, -1)
            if not np.all((expo == top) | (expo == top - 1)):
                sys.exit(f"tanh binade {e} segment {s}: an output outside binades {top - 1}..{top}")
            shift = np.where(expo == top, 16, 15)
            low = ((seg & 0x7FFFFF) | (1 << 23)) << shift
            found = solve(1 << shift, low)
            rows.append(unique_row(found, 16, 0, f"tanh binade {e} segment {s}"))
    return rows


def hex32(v):
    return f"0x{v & 0xFFFFFFFF:08x}"


def main():
    sqrt, tanh = sqrt_rows(), tanh_rows()
    lines = [
        "# MUFU.SQRT and MUFU.TANH coefficient ROMs of an NVIDIA H200 (sm_90), recovered from its outputs",
        "# by scripts/recover_sfu_tables.py: every row is the only [c0, c1, c2] with which the datapath",
        "# stated there (and in src/mufu/sqrt.rs, src/mufu/tanh.rs) reproduces all 2^17 GPU results of its",
        "# segment (data/hardware/h200-sm90/slices: every input of [1, 4) for SQRT, of [2^-8, 8) for TANH).",
        "# sqrt: 128 rows, index = exponent parity << 6 | top 6 fraction bits; c0 << 14.",
        "# tanh: 51 rows, segments of the binades 2^-8 .. 2^2 in order (1,1,1,2,2,4,4,4,8,16,8 per binade); c0 << 16.",
        "func,idx,c0,c1,c2",
    ]
    lines += [f"sqrt,{i},{hex32(c0)},{hex32(c1)},{hex32(c2)}" for i, (c0, c1, c2) in enumerate(sqrt)]
    lines += [f"tanh,{i},{hex32(c0)},{hex32(c1)},{hex32(c2)}" for i, (c0, c1, c2) in enumerate(tanh)]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(sqrt)} sqrt rows, {len(tanh)} tanh rows")


if __name__ == "__main__":
    main()
