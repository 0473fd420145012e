#!/usr/bin/env python3
"""The SASS that ptxas emits for each spelling of data/ptxas/cvt_lowprec.tsv, on the first target
that accepts it (data/ptxas/cvt_lowprec.sass.txt): where ptxas lowers an instruction to a
sequence of integer and float operations rather than one conversion instruction, that sequence
fixes every bit of the result (docs/semantics.md's [PTXAS] evidence); where it emits one `F2FP`/
`F2F` instruction, the listing names the hardware operation a capture must measure.

Each kernel loads its operands from global memory (so that nothing is folded) and stores the
result. ptxas, cuobjdump and nvdisasm come from PyPI (nvidia-cuda-nvcc, -cuobjdump, -nvdisasm), installed
into target/ptxas13-venv as scripts/ptxas_cvt_catalog.py installs them.

    scripts/ptxas_cvt_sass.py [TSV] [OUT]
"""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["nvidia-cuda-nvcc==13.5.37", "nvidia-cuda-cuobjdump==13.5.37", "nvidia-cuda-nvdisasm==13.5.37"]
# Lines of the listing that only move operands in and out.
PLUMBING = re.compile(r"\b(NOP|EXIT|BRA|LDC|LDG|ULDC|S2R|STG|S2UR|UMOV|LDCU)\b|MOV R1, c|IMAD.MOV.U32 R1, RZ")


def tools():
    venv = ROOT / "target" / "ptxas13-venv"
    python = venv / "bin" / "python3"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PACKAGES],
                   check=True)
    found = {}
    for name in ["ptxas", "cuobjdump", "nvdisasm"]:
        paths = sorted(venv.glob(f"**/cu13/bin/{name}"))
        if not paths:
            raise SystemExit(f"{name} not found in the wheels")
        paths[0].chmod(0o755)
        found[name] = str(paths[0])
    # cuobjdump runs nvdisasm, which it looks for on PATH.
    os.environ["PATH"] = os.path.dirname(found["nvdisasm"]) + os.pathsep + os.environ["PATH"]
    return found["ptxas"], found["cuobjdump"]


def kernel(target, version, spelling, ops):
    dst = ops.split(",")[0].strip()
    store = {"f": "st.global.f32", "h": "st.global.b16", "r": "st.global.b32", "q": "st.global.b8"}[dst[0]]
    return "\n".join([
        f".version {version}", f".target {target}", ".address_size 64",
        ".visible .entry k(.param .u64 p) {",
        "  .reg .f32 f<6>; .reg .b16 h<4>; .reg .b32 r<4>; .reg .b8 q<3>; .reg .b64 l<2>;",
        "  ld.param.u64 l1, [p];",
        "  ld.global.f32 f1, [l1]; ld.global.f32 f2, [l1+4]; ld.global.f32 f3, [l1+8]; ld.global.f32 f4, [l1+12];",
        "  ld.global.b32 r1, [l1+16]; ld.global.b32 r2, [l1+20]; ld.global.b16 h1, [l1+24];",
        "  ld.global.b16 h2, [l1+26]; ld.global.b8 q1, [l1+28]; ld.global.b8 q2, [l1+29];",
        f"  {spelling} {ops};",
        f"  {store} [l1+32], {dst};",
        "  ret;", "}", "",
    ])


def sass(ptxas, cuobjdump, target, version, spelling, ops):
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(ptx, "w") as f:
            f.write(kernel(target, version, spelling, ops))
        r = subprocess.run([ptxas, f"-arch={target}", ptx, "-o", cubin], capture_output=True, text=True)
        if r.returncode != 0:
            # Accepted by the parser (the catalog's run) but not compiled: the listing says why.
            return ["ptxas: " + " / ".join(l for l in r.stderr.splitlines() if "error" in l or "fatal" in l)]
        listing = subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True, text=True).stdout
    body = []
    last = None
    for line in listing.splitlines():
        m = re.match(r"\s+/\*([0-9a-f]{4})\*/\s+(.*?)\s*;", line)
        if not m:
            continue
        address = int(m.group(1), 16)
        if last is not None and address > last + 0x10:
            # An encoding without a mnemonic: cuobjdump 13.5 cannot disassemble it (sm_75's
            # F2FP.SATFINITE, for one).
            body.append("(an instruction cuobjdump does not disassemble)")
        last = address
        if not PLUMBING.search(m.group(2)):
            body.append(re.sub(r"\s+", " ", m.group(2)))
    return body


def main():
    tsv = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "ptxas" / "cvt_lowprec.tsv"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "data" / "ptxas" / "cvt_lowprec.sass.txt"
    ptxas, cuobjdump = tools()
    version_line = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    rows = [l.rstrip("\n").split("\t") for l in open(tsv) if not l.startswith("#") and not l.startswith("spelling")]
    with open(out, "w") as f:
        f.write(f"# SASS of each spelling of {tsv.name} on the first target that accepts it, by ptxas {version_line}\n")
        f.write("# (scripts/ptxas_cvt_sass.py); operand loads and the result store left out. Registers: R0 and up\n")
        f.write("# hold the loaded operands in the order the instruction names them.\n")
        for spelling, ops, targets, version in rows:
            targets = targets.split(",")
            target = next(t for t in targets if not t.startswith(("sm_5", "sm_6", "sm_70", "sm_72")))
            body = sass(ptxas, cuobjdump, target, version, spelling, ops)
            f.write(f"\n{spelling} {ops}   [{target}, PTX {version}]\n")
            for line in body:
                f.write(f"    {line}\n")
    print(f"{len(rows)} listings written to {out}")


if __name__ == "__main__":
    main()
