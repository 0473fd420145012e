#!/usr/bin/env python3
"""Capture the integer and same-size `cvt` conversions on an NVIDIA GPU as fingerprints.

    python3 scripts/capture_cvt_fingerprints.py RESULTS_DIR [--bf16-int8]   # on the machine with the GPU

Every candidate spelling `cvt{rnd}{.ftz}{.sat}.dtype.atype` (rnd one of none, .rni .rzi .rmi
.rpi .rn .rz .rm .rp) between the integer types u8..s64 and f16/bf16/f32/f64, and between a
float type and itself, is JIT-compiled by the driver (`legal.json`: accepted, or ptxas's
error). Each accepted spelling then runs over all its inputs when the source has at most 32
bits (2^32, 2^16 or 2^8 inputs, generated from the thread index) or over 2^24 generated
inputs when it has 64, and the GPU reduces its results to fingerprints, one per block of
inputs (`fingerprints.json`); raw results are written for special inputs of the 32/64-bit
sources (`specials_*.json`) and for every input of the 8/16-bit ones (`raw/`). A CPU
implementation reproduces a fingerprint by evaluating the same inputs (tests/cvt_h200.rs).

fingerprint of a block = sum over its inputs i (wrapping u64) of mix(mix(i + GOLD) ^ out_i),
out_i the destination-size result bits zero-extended; mix = splitmix64's finaliser.
gen64(i) (64-bit sources): r1 = mix(i ^ SEED64), r2 = mix(r1);
  float: sign(r1) | (1019 + ((r1 >> 52) & 0x7F)) << 52 | (r1 & M52 & (~0 << (r2 & 63)))
  int:   x = (r1 >> (r2 & 63)) & (~0 << ((r2 >> 6) & 63)); if r2 bit 12: x = -x
Registers: 8/16-bit integers, f16 and bf16 in .b16, 32-bit values in .b32, 64-bit in .b64;
between bf16 and u8/s8 the integer operand passes through an 8-bit register, the only kind
ptxas takes there.
"""
import json, os, struct, sys, time, multiprocessing as mp
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_run import CudaDevice, CudaError

INTS = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
BITS = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64,
        "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
RNDS = ["", ".rni", ".rzi", ".rmi", ".rpi", ".rn", ".rz", ".rm", ".rp"]
GOLD = 0x9E3779B97F4A7C15
SEED64 = 0xD1B54A32D192ED03
T0 = time.time()


def el():
    return "%6.1fs" % (time.time() - T0)


def spelling(rnd, ftz, sat, dt, st):
    return "cvt%s%s%s.%s.%s" % (rnd, ".ftz" if ftz else "", ".sat" if sat else "", dt, st)


def candidates():
    out = []
    pairs = [(d, s) for s in FLOATS for d in INTS] + [(d, s) for s in INTS for d in FLOATS] + [(f, f) for f in FLOATS]
    for d, s in pairs:
        for r in RNDS:
            for ftz in (False, True):
                for sat in (False, True):
                    out.append((spelling(r, ftz, sat, d, s), d, s))
    return out


def reg(t, role):
    b = BITS[t]
    if b <= 16:
        return "%%h%s" % role, ".b16"
    if b == 32:
        return "%%w%s" % role, ".b32"
    return "%%x%s" % role, ".b64"


MIX = """
    shr.u64 %q, %z, 30; xor.b64 %z, %z, %q; mul.lo.u64 %z, %z, 0xBF58476D1CE4E5B9U;
    shr.u64 %q, %z, 27; xor.b64 %z, %z, %q; mul.lo.u64 %z, %z, 0x94D049BB133111EBU;
    shr.u64 %q, %z, 31; xor.b64 %z, %z, %q;"""


def gen_source(st):
    """PTX that puts the source for index %i into the source register."""
    b = BITS[st]
    if b <= 16:
        return "    cvt.u16.u64 %hs, %i;"
    if b == 32:
        return "    cvt.u32.u64 %ws, %i;"
    code = "    xor.b64 %z, %i, 0xD1B54A32D192ED03U;" + MIX + "\n    mov.b64 %r1, %z;" + MIX + "\n    mov.b64 %r2, %z;\n"
    if st == "f64":
        code += """    and.b64 %t, %r1, 0x8000000000000000U;
    shr.u64 %u, %r1, 52; and.b64 %u, %u, 0x7F; add.u64 %u, %u, 1019; shl.b64 %u, %u, 52; or.b64 %t, %t, %u;
    and.b64 %u, %r2, 63; cvt.u32.u64 %sh, %u; mov.b64 %v, 0xFFFFFFFFFFFFFFFFU; shl.b64 %v, %v, %sh;
    and.b64 %u, %r1, 0x000FFFFFFFFFFFFFU; and.b64 %u, %u, %v; or.b64 %xs, %t, %u;"""
    else:
        code += """    and.b64 %u, %r2, 63; cvt.u32.u64 %sh, %u; shr.u64 %t, %r1, %sh;
    shr.u64 %u, %r2, 6; and.b64 %u, %u, 63; cvt.u32.u64 %sh, %u; mov.b64 %v, 0xFFFFFFFFFFFFFFFFU; shl.b64 %v, %v, %sh; and.b64 %t, %t, %v;
    and.b64 %u, %r2, 4096; setp.ne.u64 %p1, %u, 0; neg.s64 %u, %t; selp.b64 %xs, %u, %t, %p1;"""
    return code


def out_to_u64(dt):
    b = BITS[dt]
    if b == 8:
        return "    cvt.u64.u16 %o, %hd; and.b64 %o, %o, 0xFF;"
    if b == 16:
        return "    cvt.u64.u16 %o, %hd;"
    if b == 32:
        return "    cvt.u64.u32 %o, %wd;"
    return "    mov.b64 %o, %xd;"


HEAD = """.version 8.5
.target sm_90
.address_size 64
"""
REGS = """    .reg .pred %p<4>;
    .reg .b16 %hs, %hd;
    .reg .b8 %bs, %bd;
    .reg .b32 %ws, %wd, %a, %b, %c, %sh;
    .reg .b64 %xs, %xd, %i, %end, %acc, %z, %q, %o, %r1, %r2, %t, %u, %v, %g, %sums, %base, %count, %shift, %ptr;
"""


def instruction(sp, dt, st):
    """The cvt between the source and destination registers. Between bf16 and u8/s8 ptxas takes
    the integer operand only in an 8-bit register: it is moved through %bs/%bd."""
    dr, _ = reg(dt, "d")
    sr, _ = reg(st, "s")
    if st == "bf16" and dt in ("u8", "s8"):
        return "    %s %%bd, %s; cvt.%s16.%s %%hd, %%bd;" % (sp, sr, dt[0], dt)
    if dt == "bf16" and st in ("u8", "s8"):
        return "    cvt.u8.u16 %%bs, %%hs; %s %s, %%bs;" % (sp, dr)
    return "    %s %s, %s;" % (sp, dr, sr)


def ptx(sp, dt, st):
    ins = instruction(sp, dt, st)
    sb, db = BITS[st], BITS[dt]
    ld = {8: "ld.global.b16 %hs", 16: "ld.global.b16 %hs", 32: "ld.global.b32 %ws", 64: "ld.global.b64 %xs"}[sb]
    stv = {8: "st.global.b16 [%ptr], %hd", 16: "st.global.b16 [%ptr], %hd", 32: "st.global.b32 [%ptr], %wd",
           64: "st.global.b64 [%ptr], %xd"}[db]
    ssz = {8: 2, 16: 2, 32: 4, 64: 8}[sb]
    dsz = {8: 2, 16: 2, 32: 4, 64: 8}[db]
    return HEAD + """
.visible .entry fp(.param .u64 psums, .param .u64 pbase, .param .u64 pcount, .param .u64 pshift)
{
%s
    ld.param.u64 %%sums, [psums]; ld.param.u64 %%base, [pbase]; ld.param.u64 %%count, [pcount]; ld.param.u64 %%shift, [pshift];
    mov.u32 %%a, %%ctaid.x; mov.u32 %%b, %%ntid.x; mov.u32 %%c, %%tid.x;
    mul.wide.u32 %%g, %%a, %%b; cvt.u64.u32 %%t, %%c; add.u64 %%g, %%g, %%t;
    shl.b64 %%g, %%g, 8; setp.ge.u64 %%p0, %%g, %%count; @%%p0 bra DONE;
    add.u64 %%i, %%base, %%g; add.u64 %%end, %%i, 256; mov.u64 %%acc, 0;
LOOP:
%s
%s
%s
    add.u64 %%z, %%i, 0x9E3779B97F4A7C15U;%s
    xor.b64 %%z, %%z, %%o;%s
    add.u64 %%acc, %%acc, %%z;
    add.u64 %%i, %%i, 1; setp.lt.u64 %%p0, %%i, %%end; @%%p0 bra LOOP;
    sub.u64 %%i, %%i, 1; cvt.u32.u64 %%sh, %%shift; shr.u64 %%t, %%i, %%sh; shl.b64 %%t, %%t, 3; add.u64 %%ptr, %%sums, %%t;
    atom.global.add.u64 %%t, [%%ptr], %%acc;
DONE:
    ret;
}

.visible .entry raw(.param .u64 pout, .param .u64 pin, .param .u64 pcount)
{
%s
    ld.param.u64 %%sums, [pout]; ld.param.u64 %%base, [pin]; ld.param.u64 %%count, [pcount];
    mov.u32 %%a, %%ctaid.x; mov.u32 %%b, %%ntid.x; mov.u32 %%c, %%tid.x;
    mul.wide.u32 %%g, %%a, %%b; cvt.u64.u32 %%t, %%c; add.u64 %%g, %%g, %%t;
    setp.ge.u64 %%p0, %%g, %%count; @%%p0 bra RDONE;
    mul.lo.u64 %%t, %%g, %d; add.u64 %%ptr, %%base, %%t; %s, [%%ptr];
%s
    mul.lo.u64 %%t, %%g, %d; add.u64 %%ptr, %%sums, %%t; %s;
RDONE:
    ret;
}
""" % (REGS, gen_source(st), ins, out_to_u64(dt), MIX, MIX, REGS, ssz, ld, ins, dsz, stv)


def legal_ptx(sp, dt, st):
    return HEAD + """
.visible .entry capture(.param .u64 pout)
{
%s
    ld.param.u64 %%ptr, [pout];
    ld.global.b64 %%xs, [%%ptr]; cvt.u32.u64 %%ws, %%xs; cvt.u16.u64 %%hs, %%xs;
%s
    cvt.u64.u16 %%t, %%hd; cvt.u64.u32 %%u, %%wd; add.u64 %%t, %%t, %%u; add.u64 %%t, %%t, %%xd;
    st.global.b64 [%%ptr], %%t;
    ret;
}
""" % (REGS, instruction(sp, dt, st))


def check_legal(batch):
    dev = CudaDevice()
    out = []
    for sp, dt, st in batch:
        try:
            h = dev.load(legal_ptx(sp, dt, st))
            dev.unload(h)
            out.append((sp, True, ""))
        except CudaError as e:
            msg = str(e)
            out.append((sp, False, msg[-300:]))
    return out


# ---- special inputs ----
def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f64_bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def neighbours(values, to_bits, inf):
    """The encodings of `values` and of their finite neighbours."""
    return {w + d for w in map(to_bits, values) for d in (-1, 0, 1) if 0 <= w + d < inf}


def specials(st):
    b = BITS[st]
    if st == "f32":
        base = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.5, 3.5, 126.5, 127.0, 127.5, 128.0, 255.5, 256.0,
                32767.5, 32768.0, 65535.5, 65536.0, 2.0**24, 2.0**31, 2.0**32, 2.0**63, 2.0**64, 2.0**100]
        words = neighbours(base, f32_bits, 0x7F800000)
        words |= {1, 0x7FFFFF, 0x800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x7FC12345, 0x7F812345}
        words |= {w | 0x80000000 for w in list(words)}
        return sorted(words)
    if st == "f64":
        base = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 3.5, 127.5, 128.0, 255.5, 256.0, 32767.5, 32768.0, 65535.5,
                65536.0, 2.0**24, 2.0**31 - 0.5, 2.0**31, 2.0**32 - 0.5, 2.0**32, 2.0**53, 2.0**63, 2.0**64, 2.0**100,
                65504.0, 65519.0, 65520.0, 3.3895313892515355e38, 3.4028234663852886e38, 1e300]
        words = neighbours(base, f64_bits, 0x7FF0000000000000)
        words |= {1, 0xFFFFFFFFFFFFF, 0x10000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                  0x7FF0000000000001, 0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF8000012345678, 0x7FF0000012345678,
                  0x36A0000000000000, 0x3690000000000000}
        words |= {w | (1 << 63) for w in list(words)}
        return sorted(words)
    if b == 32 or b == 64:
        vals = set()
        bound = [0, 1, 2, 3, 127, 128, 255, 256, 2047, 2048, 2049, 32767, 32768, 65503, 65504, 65505, 65519, 65520,
                 65535, 65536, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, (1 << 24) + 3, (1 << 25) + 1, (1 << 25) + 2,
                 (1 << 25) + 3, (1 << 25) + 6, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFF7F, 0xFFFFFF80, 0xFFFFFF81,
                 (1 << 53) - 1, 1 << 53, (1 << 53) + 1, (1 << 53) + 3, (1 << 54) + 2, (1 << 54) + 6,
                 (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 63) + 1, 0x7FFFFF8000000000, 0x7FFFFFBFFFFFFFFF,
                 0xFFFFFF8000000000, 0x0123456789ABCDEF]
        m = (1 << b) - 1
        for v in bound:
            vals.add(v & m)
            vals.add((-v) & m)
        return sorted(vals)
    raise ValueError(st)


def pack_words(words, size):
    fmt = {2: "<H", 4: "<I", 8: "<Q"}[size]
    return b"".join(struct.pack(fmt, w) for w in words)


def main():
    res = sys.argv[1]
    os.makedirs(os.path.join(res, "raw"), exist_ok=True)
    dev = CudaDevice()
    info = dev.describe()
    json.dump(info, open(os.path.join(res, "device.json"), "w"), indent=2)
    print(el(), info, flush=True)
    cands = candidates()
    if "--bf16-int8" in sys.argv[2:]:
        # Only the conversions between bf16 and u8/s8 (a second pass: the first used 16-bit
        # registers for them, which ptxas rejects).
        cands = [c for c in cands if {c[1], c[2]} in ({"bf16", "u8"}, {"bf16", "s8"})]
    # control first: if this fails, the PTX template is wrong
    for sp in ["cvt.rzi.s32.f32", "cvt.rn.f16.f32", "cvt.rn.f32.s64", "cvt.rzi.s64.f64"]:
        dt, st = sp.split(".")[-2:]
        try:
            m = dev.load_module(ptx(sp, dt, st))
            dev._call("cuModuleUnload", m)
        except CudaError as e:
            print("CONTROL FAILED", sp, e, flush=True)
            open(os.path.join(res, "control_failed.txt"), "w").write(str(e) + "\n" + ptx(sp, dt, st))
            return 1
    print(el(), "controls load", flush=True)
    if os.path.exists(os.path.join(res, "legal.json")):
        legal = json.load(open(os.path.join(res, "legal.json")))
    else:
        nproc = 8
        chunks = [cands[k::nproc] for k in range(nproc)]
        with mp.get_context("spawn").Pool(nproc) as pool:
            parts = pool.map(check_legal, chunks)
        legal = {sp: [ok, msg] for part in parts for sp, ok, msg in part}
        json.dump(legal, open(os.path.join(res, "legal.json"), "w"), indent=1, sort_keys=True)
    ok = [sp for sp, _, _ in cands if legal[sp][0]]
    print(el(), "legal:", len(ok), "of", len(cands), flush=True)
    # controls already modelled by ptxfp (pipeline check) go first
    run = ["cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rn.f32.f64", "cvt.rn.bf16.f32"] + ok
    fps = {}
    fp_path = os.path.join(res, "fingerprints.json")
    if os.path.exists(fp_path):
        fps = json.load(open(fp_path))
    spec = {}
    sums_buf = dev.alloc(256 * 8)
    io_in = dev.alloc(65536 * 8)
    io_out = dev.alloc(65536 * 8)
    for n, sp in enumerate(run):
        if sp in fps:
            continue
        dt, st = sp.split(".")[-2:]
        try:
            h = (dev.load_module(ptx(sp, dt, st)),)
        except CudaError as e:
            fps[sp] = {"error": str(e)[-300:]}
            continue
        sb = BITS[st]
        count = {8: 256, 16: 65536, 32: 1 << 32, 64: 1 << 24}[sb]
        shift = {8: 8, 16: 16, 32: 24, 64: 16}[sb]
        nblocks = count >> shift
        dev.upload(sums_buf, b"\0" * (nblocks * 8))
        fn = (h[0], dev.function(h[0], b"fp"))
        dev.launch(fn, max(count // 256, 1), [sums_buf, 0, count, shift])
        sums = struct.unpack("<%dQ" % nblocks, bytes(dev.download(sums_buf, nblocks * 8)))
        fps[sp] = {"count": count, "block": 1 << shift, "sums": ["%016x" % s for s in sums],
                   "total": "%016x" % (sum(sums) & (2**64 - 1))}
        # raw results: every input of a 8/16-bit source, the special inputs of others
        if sb <= 16:
            words = list(range(1 << sb))
        else:
            words = specials(st)
        ssz = {8: 2, 16: 2, 32: 4, 64: 8}[sb]
        dsz = {8: 2, 16: 2, 32: 4, 64: 8}[BITS[dt]]
        dev.upload(io_in, pack_words(words, ssz))
        fr = (h[0], dev.function(h[0], b"raw"))
        dev.launch(fr, len(words), [io_out, io_in, len(words)])
        data = bytes(dev.download(io_out, len(words) * dsz))
        if sb <= 16:
            open(os.path.join(res, "raw", sp + ".bin"), "wb").write(data)
        else:
            fmt = {2: "H", 4: "I", 8: "Q"}[dsz]
            outs = struct.unpack("<%d%s" % (len(words), fmt), data)
            spec[sp] = [["%x" % w, "%x" % o] for w, o in zip(words, outs)]
        dev._call("cuModuleUnload", h[0])
        if n % 40 == 0:
            print(el(), n, sp, fps[sp]["total"], flush=True)
            json.dump(fps, open(fp_path, "w"))
            json.dump(spec, open(os.path.join(res, "specials_%d.json" % n), "w"))
            spec = {}
    json.dump(fps, open(fp_path, "w"))
    json.dump(spec, open(os.path.join(res, "specials_end.json"), "w"))
    print(el(), "done", len(fps), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
