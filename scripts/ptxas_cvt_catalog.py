#!/usr/bin/env python3
"""Which low-precision `cvt` spellings NVIDIA's ptxas accepts, on which targets, from which
PTX ISA version: the evidence behind the catalog's low-precision conversions
(data/ptxas/cvt_lowprec.tsv, read by tests/catalog_lowprec.rs).

Every combination of rounding (none, .rn .rna .rz .rm .rp .rs), `.satfinite`, `.relu`,
`.scaled::n2::ue8m0` / `.scaled::n1::ue8m0` and `.pzo` on every pair of a low-precision type
(tf32, the x2 and x4 packed FP8/FP6/FP4 types, ue8m0x2, ue5m3x2, s2f6x2) with f32, f16, bf16,
f16x2 and bf16x2 (and the f16/bf16 `.satfinite` forms from f32) is written as one line of a
kernel, with the operands its spelling implies: `d, a, b` from two f32, `d, {a, b, e, f}` for
the x4 forms, `d, a` from a packed source, a trailing `rbits` for `.rs` and a trailing scale for
`.scaled`. ptxas reports each line it rejects, so one file per target gives the whole matrix.
A spelling is kept when some target accepts it; then the lowest PTX ISA version is found with
the lowest target that accepts it.

    scripts/ptxas_cvt_catalog.py [OUT.tsv]

ptxas comes from PyPI (nvidia-cuda-nvcc, installed into target/ptxas13-venv); no GPU is
needed. The output is deterministic for one ptxas version, which it records.
"""

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


def kernel(version, target, lines):
    head = [
        f".version {version}", f".target {target}", ".address_size 64",
        ".visible .entry k() {",
        "  .reg .f32 f<6>; .reg .b16 h<4>; .reg .b32 r<4>; .reg .b8 q<3>;",
        "  mov.f32 f1, 0f3F800000; mov.f32 f2, 0f3F800000; mov.f32 f3, 0f3F800000;",
        "  mov.f32 f4, 0f3F800000; mov.b16 h1, 0; mov.b16 h2, 0; mov.b32 r1, 0; mov.b32 r2, 0;",
        "  mov.b16 h0, 0; cvt.u8.u16 q1, h0; cvt.u8.u16 q2, h0;",
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
        bad.add(int(m.group(1)) - len(head) - 1)
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
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "ptxas" / "cvt_lowprec.tsv"
    ptxas = install_ptxas(NVCC, "ptxas13-venv")
    old_ptxas = install_ptxas(NVCC_OLD, "ptxas-venv")
    version_line = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    old_line = subprocess.run([old_ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    lines = candidates()
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
        f.write(f"# Low-precision cvt spellings accepted by ptxas {version_line} (scripts/ptxas_cvt_catalog.py),\n")
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
