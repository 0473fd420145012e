//! The PTX kernel of a capture: one thread per input, the instruction once per thread.
//!
//! Every kernel has the same parameters, so one runner launches them all:
//! `(out, in0, …, in4, n, base, lo0, len0, stride0, …, lo4, len4, stride4)`, all `.u64`
//! ([`PARAMS`]). Thread `i < n` evaluates input `base + i` and stores its result at `out[i]`.
//! Its operand `j` is `in_j[i]` when the inputs come from files (the runner copies each chunk's
//! operands, so they are indexed from the chunk's start), or `lo_j + ((base + i) / stride_j) %
//! len_j` when the domain is counted. Every operand word has the width of the widest source
//! ([`Instr::source_bits`]); a narrower operand (the `.f16` `a` of `add.rn.f32.f16`, the
//! scales of a `.scaled::n2::ue8m0` form) is its low bits.

use std::collections::HashMap;
use std::fmt::{self, Write};
use std::sync::OnceLock;

use crate::ops::cvt_int::IntType;
use crate::ptx::{Instr, Opcode, Target, Type, MAX_SOURCES};

/// The entry point of every capture kernel.
pub const KERNEL: &str = "capture";

/// The parameter names, in order: the results, one input buffer per source operand, the count
/// and the first input's index, one counter per source operand.
pub const PARAMS: [&str; 23] = [
    "out", "in0", "in1", "in2", "in3", "in4", "n", "base", "lo0", "len0", "stride0", "lo1", "len1", "stride1", "lo2",
    "len2", "stride2", "lo3", "len3", "stride3", "lo4", "len4", "stride4",
];

/// A PTX ISA version (`.version 8.8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IsaVersion {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for IsaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

const fn isa(major: u32, minor: u32) -> IsaVersion {
    IsaVersion { major, minor }
}

/// The PTX ISA version a kernel of `instr` for `target` declares: at least 8.1 (CUDA 12.1, the
/// first with the `.oob` forms) up to sm_90 and 8.8 (CUDA 12.9, the three-operand `min`/`max`
/// of sm_100) beyond, and at least the first version that has the target and the spelling —
/// which ptxas 13.5 puts at 9.0 for sm_88 and sm_110, 9.4 for sm_107 (a `ret` kernel tried at
/// every version), and for a low-precision or mixed-precision spelling at the lowest version of
/// data/ptxas/cvt_lowprec.tsv and data/ptxas/mixed.tsv. The lowest version keeps the kernel
/// loadable by the oldest driver that has the instruction.
pub fn version(instr: &Instr, target: Target) -> IsaVersion {
    let floor = if target.sm() <= 90 { isa(8, 1) } else { isa(8, 8) };
    let first_for_target = match target.sm() {
        88 | 110 => isa(9, 0),
        107 => isa(9, 4),
        _ => floor,
    };
    let first_for_spelling = first_versions().get(&instr.to_string()).copied().unwrap_or(floor);
    floor.max(first_for_target).max(first_for_spelling)
}

/// Spelling (as ptxfp writes it) → the lowest PTX ISA version ptxas accepts it at, from the
/// tables scripts/ptxas_cvt_catalog.py wrote (rows ptxfp does not parse are left out).
fn first_versions() -> &'static HashMap<String, IsaVersion> {
    static TABLE: OnceLock<HashMap<String, IsaVersion>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let tables = [include_str!("../../data/ptxas/cvt_lowprec.tsv"), include_str!("../../data/ptxas/mixed.tsv")];
        let mut out = HashMap::new();
        for line in tables.iter().flat_map(|t| t.lines()).filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            let (Some(spelling), Some(version)) = (cols.first(), cols.get(3)) else { continue };
            let (Ok(instr), Some((major, minor))) = (spelling.parse::<Instr>(), version.split_once('.')) else {
                continue;
            };
            if let (Ok(major), Ok(minor)) = (major.parse(), minor.parse()) {
                let v = isa(major, minor);
                out.entry(instr.to_string()).and_modify(|old: &mut IsaVersion| *old = (*old).min(v)).or_insert(v);
            }
        }
        out
    })
}

/// How a word of type `ty` lives in a register: the register type. An 8-bit integer is held in
/// a 16-bit register (`ld.global.u8` extends it, `st.global.u8` writes the low byte); an 8-bit
/// low-precision word (`.e2m1x2`) in an 8-bit one, which is what ptxas takes for it
/// (data/ptxas/cvt_lowprec.tsv).
fn register(ty: Type) -> &'static str {
    match ty {
        Type::F32 => "f32",
        Type::F64 => "f64",
        _ if ty.narrow().is_some() && ty.bits() == 8 => "b8",
        _ => register_bits(ty.bits().max(16)),
    }
}

/// The `ld`/`st` type of a word of type `ty`.
fn memory(ty: Type) -> &'static str {
    match register(ty) {
        "b8" => "b8",
        _ if ty.bits() == 8 => "u8",
        r => r,
    }
}

/// Between bf16 and u8/s8, ptxas takes the integer operand only in an 8-bit register (an H100
/// and an H200 rejected `.b16`: data/hardware/h200-sm90/cvt/README.md).
fn needs_byte_register(instr: &Instr) -> bool {
    let (src, dst) = (instr.source_type(0), instr.ty());
    (src == Type::BF16 && dst.int().is_some_and(|t| t.bits() == 8))
        || (dst == Type::BF16 && src.int().is_some_and(|t| t.bits() == 8))
}

/// The source operands as the instruction line writes them: `%a0, %a1`, and for the x4
/// conversions from four f32 `{%a0, %a1, %a2, %a3}, %a4`.
fn operand_list(instr: &Instr, sources: usize) -> String {
    let names: Vec<String> = (0..sources).map(|j| format!("%a{j}")).collect();
    if instr.ty().lanes() == 4 && instr.source_type(0) == Type::F32 && sources >= 4 {
        let rest: Vec<&str> = names[4..].iter().map(String::as_str).collect();
        let vector = format!("{{{}}}", names[..4].join(", "));
        std::iter::once(vector.as_str()).chain(rest).collect::<Vec<_>>().join(", ")
    } else {
        names.join(", ")
    }
}

/// The kernel evaluating `instr` with `sources` operands (at most [`MAX_SOURCES`]); `counted`:
/// operands from the thread index rather than from the input buffers.
pub fn kernel(instr: &Instr, sources: usize, counted: bool, target: Target) -> String {
    debug_assert!(sources <= MAX_SOURCES);
    let dst_ty = instr.ty();
    let testp = matches!(instr.opcode(), Opcode::Testp(_));
    // A testp predicate is written as 0 or 1 in a word of the source width.
    let dst = if testp { register_bits(instr.result_bits()) } else { register(dst_ty) };
    let dst_mem = if testp { dst } else { memory(dst_ty) };
    let src_bytes = instr.source_bits() / 8;
    let dst_bytes = instr.result_bits() / 8;
    let mut k = String::new();
    let w = &mut k;
    let _ = writeln!(w, "// ptxfp capture: {instr}");
    let _ = writeln!(w, "// words: {}-bit sources, {}-bit results", src_bytes * 8, dst_bytes * 8);
    let _ = writeln!(w, ".version {}", version(instr, target));
    let _ = writeln!(w, ".target {target}");
    let _ = writeln!(w, ".address_size 64\n");
    let params: Vec<String> = PARAMS.iter().map(|p| format!("    .param .u64 {p}")).collect();
    let _ = writeln!(w, ".visible .entry {KERNEL}(\n{}\n)\n{{", params.join(",\n"));
    let _ = writeln!(w, "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<16>;");
    for j in 0..sources {
        let _ = writeln!(w, "    .reg .{} %a{j};", register(instr.source_type(j)));
    }
    let _ = writeln!(w, "    .reg .{dst} %d;");
    if needs_byte_register(instr) {
        let _ = writeln!(w, "    .reg .b8 %byte;");
    }
    // i = ctaid.x · ntid.x + tid.x
    let _ = writeln!(w, "    mov.u32 %r0, %ctaid.x;\n    mov.u32 %r1, %ntid.x;\n    mov.u32 %r2, %tid.x;");
    let _ = writeln!(w, "    mul.wide.u32 %rd0, %r0, %r1;\n    cvt.u64.u32 %rd1, %r2;\n    add.u64 %rd0, %rd0, %rd1;");
    let _ = writeln!(w, "    ld.param.u64 %rd1, [n];\n    setp.ge.u64 %p0, %rd0, %rd1;\n    @%p0 bra DONE;");
    if counted {
        let _ = writeln!(w, "    ld.param.u64 %rd1, [base];\n    add.u64 %rd1, %rd1, %rd0;");
    }
    for j in 0..sources {
        let ty = instr.source_type(j);
        if counted {
            let _ = writeln!(
                w,
                "    ld.param.u64 %rd2, [lo{j}];\n    ld.param.u64 %rd3, [len{j}];\n    ld.param.u64 %rd4, [stride{j}];"
            );
            let _ = writeln!(
                w,
                "    div.u64 %rd5, %rd1, %rd4;\n    rem.u64 %rd5, %rd5, %rd3;\n    add.u64 %rd5, %rd5, %rd2;"
            );
            let _ = match (register(ty), ty.bits()) {
                ("b8", _) => writeln!(w, "    cvt.u8.u64 %a{j}, %rd5;"),
                (_, 8 | 16) => writeln!(w, "    cvt.u16.u64 %a{j}, %rd5;"),
                (_, 32) => writeln!(w, "    cvt.u32.u64 %r3, %rd5;\n    mov.b32 %a{j}, %r3;"),
                _ => writeln!(w, "    mov.b64 %a{j}, %rd5;"),
            };
        } else {
            // Operand j's word of the widest source's width; a narrower operand is its low
            // bits (little-endian: the word's first bytes).
            let _ = writeln!(
                w,
                "    ld.param.u64 %rd2, [in{j}];\n    mad.lo.u64 %rd2, %rd0, {src_bytes}, %rd2;\n    ld.global.{} %a{j}, [%rd2];",
                memory(ty)
            );
        }
    }
    let operands = operand_list(instr, sources);
    if testp {
        let _ = writeln!(w, "    {instr} %p1, {operands};");
        let _ = writeln!(w, "    selp.{dst} %d, 1, 0, %p1;");
    } else if needs_byte_register(instr) && instr.ty() == Type::BF16 {
        let _ = writeln!(w, "    cvt.u8.u16 %byte, %a0;\n    {instr} %d, %byte;");
    } else if needs_byte_register(instr) {
        let extend = if instr.ty() == Type::Int(IntType::S8) { "s16.s8" } else { "u16.u8" };
        let _ = writeln!(w, "    {instr} %byte, %a0;\n    cvt.{extend} %d, %byte;");
    } else {
        let _ = writeln!(w, "    {instr} %d, {operands};");
    }
    let _ = writeln!(w, "    ld.param.u64 %rd2, [out];\n    mad.lo.u64 %rd2, %rd0, {dst_bytes}, %rd2;");
    let _ = writeln!(w, "    st.global.{dst_mem} [%rd2], %d;");
    let _ = writeln!(w, "DONE:\n    ret;\n}}");
    k
}

/// The bit-size register type of a word of `bits`.
fn register_bits(bits: u32) -> &'static str {
    match bits {
        16 => "b16",
        32 => "b32",
        _ => "b64",
    }
}
