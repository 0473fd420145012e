//! The PTX kernel of a capture: one thread per input, the instruction once per thread.
//!
//! Every kernel has the same parameters, so one runner launches them all:
//! `(out, in0, in1, in2, n, base, lo0, len0, stride0, lo1, len1, stride1, lo2, len2, stride2)`,
//! all `.u64`. Thread `i < n` evaluates input `base + i` and stores its result at `out[i]`.
//! Its operand `j` is `in_j[i]` when the inputs come from files (the runner copies each chunk's
//! operands, so they are indexed from the chunk's start), or `lo_j + ((base + i) / stride_j) %
//! len_j` when the domain is counted.

use std::fmt::Write;

use crate::ops::cvt_int::IntType;
use crate::ptx::{Instr, Opcode, Target, Type};

/// The entry point of every capture kernel.
pub const KERNEL: &str = "capture";

/// The parameter names, in order.
pub const PARAMS: [&str; 15] = [
    "out", "in0", "in1", "in2", "n", "base", "lo0", "len0", "stride0", "lo1", "len1", "stride1", "lo2", "len2",
    "stride2",
];

/// The PTX ISA version a kernel for `target` declares: 8.1 (CUDA 12.1, the first with the
/// `.oob` forms) up to sm_90, 8.8 (CUDA 12.9, the three-operand `min`/`max` of sm_100) beyond.
pub fn version(target: Target) -> &'static str {
    if target.sm() <= 90 {
        "8.1"
    } else {
        "8.8"
    }
}

/// How a word of type `ty` lives in a register: the register type and the `ld`/`st` type.
/// An 8-bit integer is loaded into and stored from a 16-bit register (`ld.global.u8` extends
/// it, `st.global.u8` writes the low byte).
fn register(ty: Type) -> &'static str {
    match ty {
        Type::F32 => "f32",
        Type::F64 => "f64",
        _ => register_bits(ty.bits().max(16)),
    }
}

/// The `ld`/`st` type of a word of type `ty`.
fn memory(ty: Type) -> &'static str {
    if ty.bits() == 8 {
        "u8"
    } else {
        register(ty)
    }
}

/// Between bf16 and u8/s8, ptxas takes the integer operand only in an 8-bit register (an H100
/// and an H200 rejected `.b16`: data/hardware/h200-sm90/cvt/README.md).
fn needs_byte_register(instr: &Instr) -> bool {
    let (src, dst) = (instr.source_type(0), instr.ty());
    (src == Type::BF16 && dst.bits() == 8) || (dst == Type::BF16 && src.bits() == 8)
}

/// The kernel evaluating `instr` with `sources` operands; `counted`: operands from the thread
/// index rather than from the input buffers.
pub fn kernel(instr: &Instr, sources: usize, counted: bool, target: Target) -> String {
    let src = register(instr.source_type(0));
    let dst_ty = instr.ty();
    let testp = matches!(instr.opcode(), Opcode::Testp(_));
    // A testp predicate is written as 0 or 1 in a word of the source width.
    let dst = if testp { register_bits(instr.result_bits()) } else { register(dst_ty) };
    let (src_mem, dst_mem) = (memory(instr.source_type(0)), if testp { dst } else { memory(dst_ty) });
    let src_bytes = instr.source_bits() / 8;
    let dst_bytes = instr.result_bits() / 8;
    let mut k = String::new();
    let w = &mut k;
    let _ = writeln!(w, "// ptxfp capture: {instr}");
    let _ = writeln!(w, "// words: {}-bit sources, {}-bit results", src_bytes * 8, dst_bytes * 8);
    let _ = writeln!(w, ".version {}", version(target));
    let _ = writeln!(w, ".target {target}");
    let _ = writeln!(w, ".address_size 64\n");
    let params: Vec<String> = PARAMS.iter().map(|p| format!("    .param .u64 {p}")).collect();
    let _ = writeln!(w, ".visible .entry {KERNEL}(\n{}\n)\n{{", params.join(",\n"));
    let _ = writeln!(w, "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<16>;");
    let _ = writeln!(w, "    .reg .{src} %a<3>;\n    .reg .{dst} %d;");
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
        if counted {
            let _ = writeln!(
                w,
                "    ld.param.u64 %rd2, [lo{j}];\n    ld.param.u64 %rd3, [len{j}];\n    ld.param.u64 %rd4, [stride{j}];"
            );
            let _ = writeln!(
                w,
                "    div.u64 %rd5, %rd1, %rd4;\n    rem.u64 %rd5, %rd5, %rd3;\n    add.u64 %rd5, %rd5, %rd2;"
            );
            let _ = match src_bytes {
                1 | 2 => writeln!(w, "    cvt.u16.u64 %a{j}, %rd5;"),
                4 => writeln!(w, "    cvt.u32.u64 %r3, %rd5;\n    mov.b32 %a{j}, %r3;"),
                _ => writeln!(w, "    mov.b64 %a{j}, %rd5;"),
            };
        } else {
            let _ = writeln!(
                w,
                "    ld.param.u64 %rd2, [in{j}];\n    mad.lo.u64 %rd2, %rd0, {src_bytes}, %rd2;\n    ld.global.{src_mem} %a{j}, [%rd2];"
            );
        }
    }
    let operands: Vec<String> = (0..sources).map(|j| format!("%a{j}")).collect();
    if testp {
        let _ = writeln!(w, "    {instr} %p1, {};", operands.join(", "));
        let _ = writeln!(w, "    selp.{dst} %d, 1, 0, %p1;");
    } else if needs_byte_register(instr) && instr.ty() == Type::BF16 {
        let _ = writeln!(w, "    cvt.u8.u16 %byte, %a0;\n    {instr} %d, %byte;");
    } else if needs_byte_register(instr) {
        let extend = if instr.ty() == Type::Int(IntType::S8) { "s16.s8" } else { "u16.u8" };
        let _ = writeln!(w, "    {instr} %byte, %a0;\n    cvt.{extend} %d, %byte;");
    } else {
        let _ = writeln!(w, "    {instr} %d, {};", operands.join(", "));
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
