#!/usr/bin/env python3
"""Which spellings of a family of instructions NVIDIA's ptxas accepts, on which targets, from
which PTX ISA version: the evidence behind the catalog's low-precision conversions
(family cvt, data/ptxas/cvt_lowprec.tsv, read by tests/catalog_lowprec.rs) and its
mixed-precision arithmetic (family mixed, data/ptxas/mixed.tsv).

Family cvt: every combination of rounding (none, .rn .rna .rz .rm .rp .rs), `.satfinite`,
`.relu`, `.scaled::n2::ue8m0` / `.scaled::n1::ue8m0` and `.pzo` on every pair of a
low-precision type (tf32, the x2 and x4 packed FP8/FP6/FP4 types, ue8m0x2, ue5m3x2, s2f6x2)
with f32, f16, bf16, f16x2 and bf16x2 (and the f16/bf16 `.satfinite` forms from f32), with the
operands its spelling implies: `d, a, b` from two f32, `d, {a, b, e, f}` for the x4 forms,
`d, a` from a packed source, a trailing `rbits` for `.rs` and a trailing scale for `.scaled`.

Family mixed: the mixed-precision arithmetic of PTX ISA section 9.7.5 and the packed mixed
forms of PTX ISA 9.4, each with every combination of rounding (none, .rn .rz .rm .rp), `.ftz`
and `.sat` / `.satfinite`:
  - scalar add, sub and mul into f32 from an f16 or bf16 first source
    (`add.rn.f32.f16 d, a, c`, also spelled with a trailing `.f32`, and with the second
    source in a .b16 register as a mul of two halves would want), and fma
    (`fma.rn.f32.bf16 d, a, b, c`, also `.f32.bf16.f32` and `.f32.bf16.bf16.f32`);
  - packed add and sub into f32x2 from an f16x2 or bf16x2 first source
    (`add.rn.f32x2.f16x2.f32x2 d, a, c`, d and c .b64; also `.f32x2.f16x2`, the second
    source in .b64 or .b32), fma into f32x2 with the types of a, b and c each that half type
    or f32x2 (a or b the half type), and `.f32x2.f16x2` and `.f32x2.f16x2.f32x2`;
  - add, sub and mul of two f32x2 into f16x2 or bf16x2 (`add.rz.f16x2.f32x2.f32x2`, d .b32,
    a and b .b64);
  - add, sub, mul (three types) and fma (four) on f16x2 and bf16x2 mixed
    (`mul.rn.bf16x2.bf16x2.f16x2`, all .b32).
Scalar `.b16` operands are in `h` registers, f32 in `f`, the .b32 packed halves in `r` and
f32x2 in `.b64` `w` registers.

Each candidate is written as one line of a kernel. ptxas reports each line it rejects, so one
file per target gives the whole matrix. A spelling is kept when some target accepts it; then
the lowest PTX ISA version is found with the lowest target that accepts it.

    scripts/ptxas_cvt_catalog.py [--family cvt|mixed] [OUT.tsv]

The default family is cvt; the default output is data/ptxas/cvt_lowprec.tsv for cvt and
data/ptxas/mixed.tsv for mixed. ptxas comes from PyPI (nvidia-cuda-nvcc, installed into
target/ptxas13-venv; nvidia-cuda-nvcc-cu12 into target/ptxas-venv for the targets ptxas 13.5
dropped); no GPU is needed. The output is deterministic for one ptxas version, which it
records.
"""

import argparse
import itertools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NVCC = "nvidia-cuda-nvcc==13.5.37"
# The targets ptxas 13.5 dropped, asked of the last ptxas that has them, at its last PTX
# ISA version (8.8): a spelling of a later version is not theirs anyway.
NVCC_OLD = "nvidia-cuda-nvcc-cu12==12.9.86"
OLD_TARGETS = ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72"]
OLD_VERSION = "8.8"
TARGETS = [
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
    "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
    "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f",
    "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f",
]
VERSIONS = ["7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1",
            "9.2", "9.3", "9.4", "9.5"]

# The register of an operand word of each type.
REGISTER = {
    "f32": "f", "f16": "h", "bf16": "h", "f16x2": "r", "bf16x2": "r", "tf32": "r",
    "e4m3x2": "h", "e5m2x2": "h", "e2m3x2": "h", "e3m2x2": "h", "ue8m0x2": "h",
    "ue5m3x2": "h", "s2f6x2": "h", "e2m1x2": "q",
    "e4m3x4": "r", "e5m2x4": "r", "e2m3x4": "r", "e3m2x4": "r", "e2m1x4": "h",
}
X2 = ["e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2", "ue5m3x2", "s2f6x2"]
X4 = ["e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"]
WIDE = ["f32", "f16", "bf16", "f16x2", "bf16x2"]


def pairs():
    """(destination, source) pairs to try."""
    for d in X2:
        for s in WIDE:
            yield d, s
    for d in X4:
        yield d, "f32"
    for s in ["f32", "f16", "bf16"]:
        yield "tf32", s
    for d in ["f16x2", "bf16x2", "f32"]:
        for s in X2:
            yield d, s
    for d in ["f16", "bf16", "f16x2", "bf16x2"]:
        yield d, "f32"


def modifier_sets():
    for rnd, sat, relu, scaled, pzo in itertools.product(
        ["", "rn", "rna", "rz", "rm", "rp", "rs"], [False, True], [False, True],
        ["", "scaled::n2::ue8m0", "scaled::n1::ue8m0"], [False, True],
    ):
        words = [w for w in [rnd, "satfinite" if sat else "", "relu" if relu else "", scaled,
                             "pzo" if pzo else ""] if w]
        yield words


def operands(d, s, words):
    """The operand lists the spelling implies."""
    ops = [REGISTER[d] + "0"]
    if s == "f32" and d in X4:
        ops.append("{f1, f2, f3, f4}")
    elif s == "f32" and (d in X2 or d in ["f16x2", "bf16x2"]):
        ops += ["f1", "f2"]
    else:
        ops.append(REGISTER[s] + "1")
    if "rs" in words:
        ops.append("r2")
    forms = [ops]
    if any(w.startswith("scaled") for w in words):
        # The scale operand in a .b16 (two scale bytes, n2) or .b8 register (one, n1), and the
        # same without it (whether it may be left out).
        forms = [ops + ["h2"], ops + ["q2"], ops]
    return forms


def candidates():
    out = []
    for d, s in pairs():
        for words in modifier_sets():
            spelling = ".".join(["cvt"] + words + [d, s])
            for ops in operands(d, s, words):
                out.append((spelling, ", ".join(ops)))
    return out


# The mixed family.
MIXED_REGISTER = {"f32": "f", "f16": "h", "bf16": "h", "f16x2": "r", "bf16x2": "r", "f32x2": "w"}
HALF = ["f16", "bf16"]
HALF_X2 = ["f16x2", "bf16x2"]


def mixed_modifier_sets():
    for rnd, ftz, sat in itertools.product(["", "rn", "rz", "rm", "rp"], [False, True],
                                           ["", "sat", "satfinite"]):
        yield [w for w in [rnd, "ftz" if ftz else "", sat] if w]


def mixed_shapes():
    """(opcode, type words, operand types d, a, b[, c]) of each shape to try: the types as
    spelled and the types of the operands they would give."""
    out = []
    for op in ["add", "sub", "mul"]:
        for s in HALF:
            # d f32, a half, second source f32 (add/sub) or half (what a mul would take).
            for second in ["f32", s]:
                out.append((op, ["f32", s], ["f32", s, second]))
            out.append((op, ["f32", s, "f32"], ["f32", s, "f32"]))
    for s in HALF:
        out.append(("fma", ["f32", s], ["f32", s, s, "f32"]))
        out.append(("fma", ["f32", s, "f32"], ["f32", s, s, "f32"]))
        out.append(("fma", ["f32", s, s, "f32"], ["f32", s, s, "f32"]))
    for op in ["add", "sub"]:
        for s in HALF_X2:
            for second in ["f32x2", s]:
                out.append((op, ["f32x2", s], ["f32x2", s, second]))
            out.append((op, ["f32x2", s, "f32x2"], ["f32x2", s, "f32x2"]))
    for s in HALF_X2:
        out.append(("fma", ["f32x2", s], ["f32x2", s, s, "f32x2"]))
        for a, b, c in itertools.product([s, "f32x2"], repeat=3):
            if s in (a, b):
                out.append(("fma", ["f32x2", a, b, c], ["f32x2", a, b, c]))
        out.append(("fma", ["f32x2", s, "f32x2"], ["f32x2", s, s, "f32x2"]))
    for op in ["add", "sub", "mul"]:
        for d in HALF_X2:
            out.append((op, [d, "f32x2"], [d, "f32x2", "f32x2"]))
            out.append((op, [d, "f32x2", "f32x2"], [d, "f32x2", "f32x2"]))
    for op in ["add", "sub", "mul"]:
        for types in itertools.product(HALF_X2, repeat=3):
            if len(set(types)) > 1:
                out.append((op, list(types), list(types)))
    for types in itertools.product(HALF_X2, repeat=4):
        if len(set(types)) > 1:
            out.append(("fma", list(types), list(types)))
    return out


def mixed_candidates():
    out = []
    for op, types, operand_types in mixed_shapes():
        ops = ", ".join(MIXED_REGISTER[t] + str(k) for k, t in enumerate(operand_types))
        for words in mixed_modifier_sets():
            out.append((".".join([op] + words + types), ops))
    return out


FAMILIES = {
    "cvt": (candidates, "cvt_lowprec.tsv", "Low-precision cvt spellings"),
    "mixed": (mixed_candidates, "mixed.tsv", "Mixed-precision add, sub, mul and fma spellings"),
}


def kernel(version, target, lines):
    head = [
        f".version {version}", f".target {target}", ".address_size 64",
        ".visible .entry k() {",
        "  .reg .f32 f<6>; .reg .b16 h<4>; .reg .b32 r<4>; .reg .b8 q<3>;",
        "  mov.f32 f1, 0f3F800000; mov.f32 f2, 0f3F800000; mov.f32 f3, 0f3F800000;",
        "  mov.f32 f4, 0f3F800000; mov.b16 h1, 0; mov.b16 h2, 0; mov.b32 r1, 0; mov.b32 r2, 0;",
        "  mov.b16 h0, 0; cvt.u8.u16 q1, h0; cvt.u8.u16 q2, h0;",
        "  .reg .b64 w<4>; mov.b64 w1, 0; mov.b64 w2, 0; mov.b64 w3, 0; mov.b32 r3, 0;",
    ]
    body = [f"  {spelling} {ops};" for spelling, ops in lines]
    return head, "\n".join(head + body + ["  ret;", "}", ""])


def rejected(ptxas, version, target, lines):
    """Indices of `lines` that ptxas rejects for `target` at `version`."""
    head, text = kernel(version, target, lines)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(path)
    bad = set()
    for m in re.finditer(r"line (\d+); error", r.stderr):
        k = int(m.group(1)) - len(head) - 1
        if k < 0:
            # An error in the head (a .version that does not know the .target): nothing in the
            # file is accepted.
            return set(range(len(lines)))
        bad.add(k)
    if r.returncode != 0 and not bad:
        raise SystemExit(f"ptxas failed without a line error on {target} {version}:\n{r.stderr[:2000]}")
    return bad


def install_ptxas(package, venv_name):
    venv = ROOT / "target" / venv_name
    python = venv / "bin" / "python3"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", package], check=True)
    found = sorted(p for p in venv.glob("**/bin/ptxas") if "nvcc" in str(p) or "cu1" in str(p))
    if not found:
        raise SystemExit("ptxas not found in the nvidia-cuda-nvcc wheel")
    ptxas = found[0]
    ptxas.chmod(0o755)
    return str(ptxas)


def main():
    parser = argparse.ArgumentParser(description="Which spellings of a family ptxas accepts.")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="cvt")
    parser.add_argument("out", nargs="?", type=Path)
    args = parser.parse_args()
    make_candidates, default_name, title = FAMILIES[args.family]
    out = args.out if args.out is not None else ROOT / "data" / "ptxas" / default_name
    ptxas = install_ptxas(NVCC, "ptxas13-venv")
    old_ptxas = install_ptxas(NVCC_OLD, "ptxas-venv")
    version_line = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    old_line = subprocess.run([old_ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    lines = make_candidates()
    accepted = {i: [] for i in range(len(lines))}
    for target in OLD_TARGETS:
        bad = rejected(old_ptxas, OLD_VERSION, target, lines)
        for i in range(len(lines)):
            if i not in bad:
                accepted[i].append(target)
    for target in TARGETS:
        bad = rejected(ptxas, VERSIONS[-1], target, lines)
        for i in range(len(lines)):
            if i not in bad:
                accepted[i].append(target)
    kept = [i for i in range(len(lines)) if accepted[i]]
    lowest_version = {}
    for i in kept:
        lowest_version[i] = None
    # The lowest version with the spelling, on the first target of ptxas 13.5 that accepts it.
    for version in VERSIONS:
        todo = [i for i in kept if lowest_version[i] is None]
        by_target = {}
        for i in todo:
            first = next((t for t in accepted[i] if t in TARGETS), None)
            if first is not None:
                by_target.setdefault(first, []).append(i)
        for target, idx in by_target.items():
            bad = rejected(ptxas, version, target, [lines[i] for i in idx])
            for k, i in enumerate(idx):
                if k not in bad:
                    lowest_version[i] = version
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        f.write(f"# {title} accepted by ptxas {version_line} (scripts/ptxas_cvt_catalog.py"
                f"{'' if args.family == 'cvt' else ' --family ' + args.family}),\n")
        f.write(f"# {' '.join(OLD_TARGETS)} by ptxas {old_line} at PTX ISA {OLD_VERSION}:\n")
        f.write(f"# {len(lines)} candidates tried on {len(TARGETS) + len(OLD_TARGETS)} targets; "
                f"{len(kept)} accepted somewhere.\n")
        f.write("# Columns: spelling, operands as written, targets that accept it, lowest PTX ISA version.\n")
        f.write("spelling\toperands\ttargets\tptx\n")
        for i in kept:
            spelling, ops = lines[i]
            f.write(f"{spelling}\t{ops}\t{','.join(accepted[i])}\t{lowest_version[i]}\n")
    print(f"{len(kept)} of {len(lines)} candidates accepted; written to {out}")


if __name__ == "__main__":
    main()
