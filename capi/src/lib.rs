//! libptxfp: ptxfp's C ABI. Every function is prefixed `ptxfp_`, returns a [`ptxfp_status`]
//! (or a value that cannot fail), never unwinds into the caller (a Rust panic becomes
//! `PTXFP_ERR_INTERNAL`), and writes its outputs only when it succeeds. The message of the
//! last failure on the calling thread is [`ptxfp_last_error`].
//!
//! A simulator makes one handle per static instruction ([`ptxfp_instr_new`]) and evaluates
//! per lane ([`ptxfp_eval`]), per warp ([`ptxfp_eval_warp`]) or over buffers
//! ([`ptxfp_eval_buffers`]). Operands and results are raw bit patterns: a packed type is one
//! word with element 0 in its low half. No call starts a thread unless it is given a thread
//! count of two or more. No call changes the floating-point environment, and none depends on
//! it: a host built with `-ffast-math`, or one that calls `fesetround` or `feenableexcept`,
//! gets the same results (a changed environment sends the buffers to the scalar definitions).

#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use ptxfp_core::ptx::{catalog, MAX_SOURCES};
use ptxfp_core::{
    with_words, BatchError, EvalError, Evidence, Instr, ParseErrorKind, Prepared, SimdLevel, Target, Word, WordsFn,
};

/// What a call returns.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ptxfp_status {
    PTXFP_OK = 0,
    /// A pointer argument that must not be NULL is NULL.
    PTXFP_ERR_NULL_POINTER = 1,
    /// The spelling has a word that is no mnemonic, modifier or type, or is not UTF-8.
    PTXFP_ERR_UNKNOWN_SPELLING = 2,
    /// The spelling's words are known but PTX does not have their combination.
    PTXFP_ERR_ILLEGAL_SPELLING = 3,
    /// The target is not a known `sm_XX`.
    PTXFP_ERR_UNKNOWN_TARGET = 4,
    /// The target does not have the instruction (the message names the lowest that does).
    PTXFP_ERR_TARGET_LACKS = 5,
    /// The number of operands (or operand buffers) is not one the instruction takes.
    PTXFP_ERR_OPERAND_COUNT = 6,
    /// An operand word has bits set above the width of its type.
    PTXFP_ERR_OPERAND_WIDTH = 7,
    /// A buffer's word width is not the width of the operand or result type.
    PTXFP_ERR_BUFFER_WIDTH = 8,
    /// A buffer is not aligned to its word size.
    PTXFP_ERR_MISALIGNED = 9,
    /// A catalog index at or beyond `ptxfp_catalog_len()`.
    PTXFP_ERR_INDEX = 10,
    /// A defect of the library (a Rust panic, caught at the boundary).
    PTXFP_ERR_INTERNAL = 11,
}
use ptxfp_status::*;

/// How well an instruction's bits are established.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ptxfp_evidence {
    /// IEEE 754 plus NVIDIA's documented NaN, flush-to-zero and saturation rules.
    PTXFP_EVIDENCE_IEEE_EXACT = 0,
    /// A model that reproduces published measurements of real GPUs.
    PTXFP_EVIDENCE_HARDWARE_VERIFIED = 1,
    /// Follows NVIDIA documentation and ptxas output; no hardware measurement checks it.
    PTXFP_EVIDENCE_DOCUMENTED = 2,
    /// A plausible hardware-style model with no public evidence for its exact bits.
    PTXFP_EVIDENCE_MODEL = 3,
    /// Public hardware data exists and no known model reproduces it.
    PTXFP_EVIDENCE_NO_MODEL_FITS = 4,
}

impl From<Evidence> for ptxfp_evidence {
    fn from(e: Evidence) -> ptxfp_evidence {
        match e {
            Evidence::IeeeExact => ptxfp_evidence::PTXFP_EVIDENCE_IEEE_EXACT,
            Evidence::HardwareVerified => ptxfp_evidence::PTXFP_EVIDENCE_HARDWARE_VERIFIED,
            Evidence::Documented => ptxfp_evidence::PTXFP_EVIDENCE_DOCUMENTED,
            Evidence::Model => ptxfp_evidence::PTXFP_EVIDENCE_MODEL,
            Evidence::NoModelFits => ptxfp_evidence::PTXFP_EVIDENCE_NO_MODEL_FITS,
        }
    }
}

/// An instruction prepared for one target: made by `ptxfp_instr_new`, released by
/// `ptxfp_instr_free`. Immutable, so one handle may be used from several threads at once.
pub struct ptxfp_instr {
    prepared: Prepared,
    spelling: CString,
    target: CString,
}

/// What a handle evaluates.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ptxfp_instr_info {
    /// The canonical spelling (owned by the handle).
    pub spelling: *const c_char,
    /// Width of a source operand word in bits: 8, 16, 32 or 64.
    pub source_bits: u32,
    /// Width of a result word in bits: 8, 16, 32 or 64.
    pub result_bits: u32,
    /// Bit n set: the instruction takes n source operands.
    pub operand_counts: u32,
    /// The lowest `sm_XX` (as XX) that has the instruction.
    pub min_sm: u32,
    /// The handle's target (as XX).
    pub target_sm: u32,
    pub evidence: ptxfp_evidence,
    /// The handle's target as PTX spells it: "sm_90", "sm_100a", "sm_120f" (owned by the
    /// handle).
    pub target: *const c_char,
}

/// One legal (spelling, operand count) pair of the catalog.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ptxfp_catalog_entry {
    /// The spelling (static storage).
    pub spelling: *const c_char,
    /// The number of source operands.
    pub operands: u32,
    /// The lowest `sm_XX` (as XX) that has it, in some variant.
    pub min_sm: u32,
    pub evidence: ptxfp_evidence,
    /// The lowest target that has it, as `ptxfp_instr_new` takes it: "sm_50", "sm_100f",
    /// "sm_100a" (static storage).
    pub lowest_target: *const c_char,
    /// Every target that has it, as `ptxfp ops` lists them: "sm_53+", "sm_50-sm_62",
    /// "sm_100f,sm_110f,sm_120f", "sm_100a,sm_103a" (static storage).
    pub targets: *const c_char,
}

/// A failed call: its status and its message.
struct Failure {
    status: ptxfp_status,
    message: String,
}

fn failure(status: ptxfp_status, message: impl Display) -> Failure {
    Failure { status, message: message.to_string() }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn record(status: ptxfp_status, message: &str) -> ptxfp_status {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
    status
}

/// Run a call's body: its failure or panic becomes a status and the thread's last message.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> ptxfp_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => PTXFP_OK,
        Ok(Err(f)) => record(f.status, &f.message),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            record(PTXFP_ERR_INTERNAL, &format!("internal error in libptxfp (please report): {what}"))
        }
    }
}

#[inline(always)]
fn non_null<T>(p: *const T, what: &'static str) -> Result<(), Failure> {
    non_null_at(p, what, None)
}

/// `what[index]` (or `what` without an index) must not be NULL.
#[inline(always)]
fn non_null_at<T>(p: *const T, what: &'static str, index: Option<usize>) -> Result<(), Failure> {
    #[cold]
    #[inline(never)]
    fn null(what: &str, index: Option<usize>) -> Failure {
        match index {
            Some(k) => failure(PTXFP_ERR_NULL_POINTER, format!("{what}[{k}] is NULL")),
            None => failure(PTXFP_ERR_NULL_POINTER, format!("{what} is NULL")),
        }
    }
    if p.is_null() {
        Err(null(what, index))
    } else {
        Ok(())
    }
}

fn from_eval_error(e: EvalError) -> Failure {
    let status = match e {
        EvalError::OperandCount { .. } => PTXFP_ERR_OPERAND_COUNT,
        EvalError::OperandTooWide { .. } | EvalError::OperandPadding { .. } => PTXFP_ERR_OPERAND_WIDTH,
        EvalError::Target { .. } => PTXFP_ERR_TARGET_LACKS,
    };
    failure(status, e)
}

fn from_batch_error(e: BatchError) -> Failure {
    let status = match e {
        BatchError::Arity { .. } => PTXFP_ERR_OPERAND_COUNT,
        BatchError::Width { .. } => PTXFP_ERR_BUFFER_WIDTH,
        BatchError::Target(_) => PTXFP_ERR_TARGET_LACKS,
        // The C calls pass one length for every buffer and use the active SIMD level.
        BatchError::Length { .. } | BatchError::SimdLevel(_) => PTXFP_ERR_INTERNAL,
    };
    failure(status, e)
}

/// The message of the last failed call on the calling thread (empty if none failed). Valid
/// until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn ptxfp_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The name of a status code, as spelled in this header ("PTXFP_OK", ...); "unknown status"
/// for a value that is none.
#[no_mangle]
pub extern "C" fn ptxfp_status_name(status: c_int) -> *const c_char {
    let name: &CStr = match status {
        0 => c"PTXFP_OK",
        1 => c"PTXFP_ERR_NULL_POINTER",
        2 => c"PTXFP_ERR_UNKNOWN_SPELLING",
        3 => c"PTXFP_ERR_ILLEGAL_SPELLING",
        4 => c"PTXFP_ERR_UNKNOWN_TARGET",
        5 => c"PTXFP_ERR_TARGET_LACKS",
        6 => c"PTXFP_ERR_OPERAND_COUNT",
        7 => c"PTXFP_ERR_OPERAND_WIDTH",
        8 => c"PTXFP_ERR_BUFFER_WIDTH",
        9 => c"PTXFP_ERR_MISALIGNED",
        10 => c"PTXFP_ERR_INDEX",
        11 => c"PTXFP_ERR_INTERNAL",
        _ => c"unknown status",
    };
    name.as_ptr()
}

/// The name `ptxfp ops` gives an evidence level ("ieee-exact", "hardware-verified",
/// "documented", "model", "no-model-fits"); "unknown evidence" for a value that is none.
#[no_mangle]
pub extern "C" fn ptxfp_evidence_name(evidence: c_int) -> *const c_char {
    let name: &CStr = match evidence {
        0 => c"ieee-exact",
        1 => c"hardware-verified",
        2 => c"documented",
        3 => c"model",
        4 => c"no-model-fits",
        _ => c"unknown evidence",
    };
    name.as_ptr()
}

/// The library version, e.g. "0.1.0".
#[no_mangle]
pub extern "C" fn ptxfp_version() -> *const c_char {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

/// The SIMD level the buffer and warp calls use on this processor: "baseline", "avx2" or
/// "avx512" (chosen once; the environment variable PTXFP_SIMD can force a lower one).
#[no_mangle]
pub extern "C" fn ptxfp_simd_level() -> *const c_char {
    let name: &CStr = match catch_unwind(SimdLevel::active) {
        Ok(SimdLevel::Baseline) => c"baseline",
        Ok(SimdLevel::Avx2) => c"avx2",
        Ok(SimdLevel::Avx512) => c"avx512",
        Err(_) => c"unknown",
    };
    name.as_ptr()
}

/// Make a handle for `spelling` (e.g. "fma.rn.ftz.f32", "MUFU.EX2") on `target` ("sm_90",
/// "sm_80", ...; NULL for sm_90). On success `*out` is the handle; on failure it is set to
/// NULL and the message says what is wrong and what is legal instead.
///
/// # Safety
/// `spelling` and a non-NULL `target` are NUL-terminated strings; `out` points to writable
/// storage for one pointer.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_instr_new(
    spelling: *const c_char,
    target: *const c_char,
    out: *mut *mut ptxfp_instr,
) -> ptxfp_status {
    guard(|| {
        non_null(out, "out")?;
        // SAFETY: `out` is non-NULL and writable (contract).
        unsafe { *out = std::ptr::null_mut() };
        non_null(spelling, "spelling")?;
        // SAFETY: a NUL-terminated string (contract).
        let text = unsafe { CStr::from_ptr(spelling) }.to_str();
        let text = text.map_err(|_| failure(PTXFP_ERR_UNKNOWN_SPELLING, "the spelling is not UTF-8"))?;
        let target = if target.is_null() {
            Target::DEFAULT
        } else {
            // SAFETY: as above.
            let name = unsafe { CStr::from_ptr(target) }.to_str();
            let name = name.map_err(|_| failure(PTXFP_ERR_UNKNOWN_TARGET, "the target is not UTF-8"))?;
            name.parse().map_err(|e| failure(PTXFP_ERR_UNKNOWN_TARGET, e))?
        };
        let instr: Instr = text.parse().map_err(|e: ptxfp_core::ParseError| {
            let status = match e.kind {
                ParseErrorKind::Unknown => PTXFP_ERR_UNKNOWN_SPELLING,
                ParseErrorKind::Illegal => PTXFP_ERR_ILLEGAL_SPELLING,
            };
            failure(status, e)
        })?;
        let prepared = Prepared::new(instr, target).map_err(from_eval_error)?;
        let spelling = CString::new(instr.to_string()).expect("spellings have no NUL");
        let target = CString::new(target.to_string()).expect("target names have no NUL");
        // SAFETY: as above.
        unsafe { *out = Box::into_raw(Box::new(ptxfp_instr { prepared, spelling, target })) };
        Ok(())
    })
}

/// Release a handle (NULL is ignored).
///
/// # Safety
/// `instr` is NULL or a handle from `ptxfp_instr_new` not yet released.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_instr_free(instr: *mut ptxfp_instr) {
    if !instr.is_null() {
        // SAFETY: made by Box::into_raw in ptxfp_instr_new and released once (contract).
        drop(unsafe { Box::from_raw(instr) });
    }
}

/// What the handle evaluates: its spelling, word widths, operand counts, architectures and
/// evidence.
///
/// # Safety
/// `instr` is a live handle or NULL; `out` points to writable storage or is NULL.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_instr_get_info(instr: *const ptxfp_instr, out: *mut ptxfp_instr_info) -> ptxfp_status {
    guard(|| {
        non_null(instr, "instr")?;
        non_null(out, "out")?;
        // SAFETY: a live handle (contract).
        let h = unsafe { &*instr };
        let i = h.prepared.instr();
        let info = ptxfp_instr_info {
            spelling: h.spelling.as_ptr(),
            source_bits: i.source_bits(),
            result_bits: i.result_bits(),
            operand_counts: i.operand_counts().iter().fold(0, |acc, &n| acc | 1 << n),
            min_sm: i.min_sm(),
            target_sm: h.prepared.target().sm(),
            evidence: i.evidence().into(),
            target: h.target.as_ptr(),
        };
        // SAFETY: writable (contract).
        unsafe { *out = info };
        Ok(())
    })
}

/// Evaluate once: `operands[0..n_operands]` (bit patterns in the low bits of each word) in,
/// the result's bit pattern out. Allocates nothing unless it fails.
///
/// # Safety
/// `instr` is a live handle or NULL; `operands` points to `n_operands` words (or is NULL
/// when `n_operands` is 0); `result` points to one writable word or is NULL.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_eval(
    instr: *const ptxfp_instr,
    operands: *const u64,
    n_operands: usize,
    result: *mut u64,
) -> ptxfp_status {
    // The checks of the call a simulator makes per lane, without building a failure unless one
    // is found.
    if instr.is_null() || result.is_null() || (operands.is_null() && n_operands != 0) {
        return guard(|| {
            non_null(instr, "instr")?;
            non_null(result, "result")?;
            non_null(operands, "operands")
        });
    }
    let operands: &[u64] = if n_operands == 0 {
        &[]
    } else {
        // SAFETY: `n_operands` readable words (contract).
        unsafe { std::slice::from_raw_parts(operands, n_operands) }
    };
    // SAFETY: a live handle (contract).
    let p = &unsafe { &*instr }.prepared;
    match catch_unwind(AssertUnwindSafe(|| p.eval(operands))) {
        Ok(Ok(r)) => {
            // SAFETY: writable (contract).
            unsafe { *result = r };
            PTXFP_OK
        }
        Ok(Err(e)) => eval_failed(e),
        Err(panic) => guard(|| std::panic::resume_unwind(panic)),
    }
}

#[cold]
#[inline(never)]
fn eval_failed(e: EvalError) -> ptxfp_status {
    let f = from_eval_error(e);
    record(f.status, &f.message)
}

/// Evaluate one warp: lane i (0 ≤ i < 32) is active when bit i of `active_mask` is set, and
/// reads `operands[k][i]` for each of the `n_operands` operands; its result goes to
/// `results[i]`. Only active lanes' words are read or written. The lanes go through the same
/// SIMD kernel as a buffer.
///
/// # Safety
/// `instr` is a live handle or NULL; `operands` points to `n_operands` pointers (or is NULL
/// when `n_operands` is 0), each to 32 words of which the active lanes' are readable;
/// `results` points to 32 words of which the active lanes' are writable, or is NULL.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_eval_warp(
    instr: *const ptxfp_instr,
    active_mask: u32,
    operands: *const *const u64,
    n_operands: usize,
    results: *mut u64,
) -> ptxfp_status {
    guard(|| {
        non_null(instr, "instr")?;
        non_null(results, "results")?;
        // SAFETY: a live handle (contract).
        let p = &unsafe { &*instr }.prepared;
        let i = p.instr();
        if !i.takes(n_operands) {
            let e = EvalError::OperandCount { instr: i.to_string(), legal: i.operand_counts(), got: n_operands };
            return Err(from_eval_error(e));
        }
        let mut columns: [*const u64; MAX_SOURCES] = [std::ptr::null(); MAX_SOURCES];
        if n_operands > 0 {
            non_null(operands, "operands")?;
            for (k, column) in columns.iter_mut().enumerate().take(n_operands) {
                // SAFETY: `n_operands` readable pointers (contract).
                *column = unsafe { *operands.add(k) };
                non_null_at(*column, "operands", Some(k))?;
            }
        }
        // SAFETY: the columns and `results` as the contract says.
        unsafe { warp_at(p, active_mask, &columns[..n_operands], results) }
    })
}

/// [`ptxfp_eval_warp`] after its pointer checks: the words are gathered into buffers of the
/// instruction's widths.
unsafe fn warp_at(p: &Prepared, mask: u32, columns: &[*const u64], results: *mut u64) -> Result<(), Failure> {
    let i = p.instr();
    let call = Warp { p, mask, columns, results };
    with_words(i.source_bits(), i.result_bits(), call).unwrap_or_else(|| Err(internal_widths(&i)))
}

/// The failure of a width pair [`with_words`] does not have: none an instruction has.
fn internal_widths(i: &Instr) -> Failure {
    let (s, d) = (i.source_bits(), i.result_bits());
    failure(PTXFP_ERR_INTERNAL, format!("{i}: no buffers of {s}-bit sources and {d}-bit results"))
}

/// [`warp`] at the word types of an instruction; built only by [`warp_at`], from pointers
/// that satisfy the contract of [`ptxfp_eval_warp`].
struct Warp<'a> {
    p: &'a Prepared,
    mask: u32,
    columns: &'a [*const u64],
    results: *mut u64,
}

impl WordsFn for Warp<'_> {
    type Output = Result<(), Failure>;
    fn call<S: Word, D: Word>(self) -> Result<(), Failure> {
        // SAFETY: the columns and `results` as the contract of ptxfp_eval_warp says.
        unsafe { warp::<S, D>(self.p, self.mask, self.columns, self.results) }
    }
}

unsafe fn warp<S: Word, D: Word>(
    p: &Prepared,
    mask: u32,
    columns: &[*const u64],
    results: *mut u64,
) -> Result<(), Failure> {
    let i = p.instr();
    // A full warp reads and writes every lane in straight loops; a partial one only its
    // active lanes.
    let full = mask == u32::MAX;
    let mut srcs = [[S::from_u64(0); 32]; MAX_SOURCES];
    for (k, (&column, src)) in columns.iter().zip(&mut srcs).enumerate() {
        let mut all = 0;
        if full {
            // SAFETY: 32 readable words (contract, every lane active).
            let words = unsafe { std::slice::from_raw_parts(column, 32) };
            for (s, &w) in src.iter_mut().zip(words) {
                all |= w;
                *s = S::from_u64(w);
            }
        } else {
            for (lane, s) in src.iter_mut().enumerate().filter(|&(lane, _)| mask >> lane & 1 != 0) {
                // SAFETY: the active lanes' words are readable (contract).
                let w = unsafe { column.add(lane).read() };
                all |= w;
                *s = S::from_u64(w);
            }
        }
        // Bits the operand's type does not have: above its width (a scale or rbits word may
        // be narrower than the widest source) or FP6 padding.
        if all & !i.source_type(k).code_bits() != 0 {
            return Err(too_wide(p, mask, k, column));
        }
    }
    let refs: [&[S]; MAX_SOURCES] = std::array::from_fn(|k| &srcs[k][..]);
    let mut out = [D::from_u64(0); 32];
    p.eval_serial(&refs[..columns.len()], &mut out).map_err(from_batch_error)?;
    if full {
        // SAFETY: 32 writable words (contract, every lane active).
        let results = unsafe { std::slice::from_raw_parts_mut(results, 32) };
        for (r, d) in results.iter_mut().zip(out) {
            *r = d.to_u64();
        }
    } else {
        for (lane, d) in out.iter().enumerate().filter(|&(lane, _)| mask >> lane & 1 != 0) {
            // SAFETY: the active lanes' words are writable (contract).
            unsafe { results.add(lane).write(d.to_u64()) };
        }
    }
    Ok(())
}

/// The failure of operand `index` of a warp, whose active lanes include one with bits its
/// type does not have: the first such lane.
#[cold]
#[inline(never)]
unsafe fn too_wide(p: &Prepared, mask: u32, index: usize, column: *const u64) -> Failure {
    let i = p.instr();
    let ty = i.source_type(index);
    let wide = (0..32).filter(|&lane| mask >> lane & 1 != 0).find_map(|lane| {
        // SAFETY: an active lane's word, readable (contract).
        let value = unsafe { column.add(lane).read() };
        (value & !ty.code_bits() != 0).then_some((lane, value))
    });
    let (lane, value) = wide.expect("a lane too wide");
    let instr = i.to_string();
    let e = if ty.bits() < 64 && value >> ty.bits() != 0 {
        EvalError::OperandTooWide { instr, index, value, ty }
    } else {
        EvalError::OperandPadding { instr, index, value, ty }
    };
    failure(PTXFP_ERR_OPERAND_WIDTH, format!("lane {lane}: {e}"))
}

/// Evaluate element-wise over flat buffers of `len` words: `results[j] = instr(sources[0][j],
/// sources[1][j], …)`. `source_bits` and `result_bits` state the buffers' word widths (8, 16,
/// 32 or 64), which must be the instruction's (`ptxfp_instr_get_info`). `threads` 0 or 1 evaluates
/// on the calling thread; n ≥ 2 splits the work over n threads started for this call and
/// joined before it returns. A result buffer may be one of the source buffers (in place).
///
/// # Safety
/// `instr` is a live handle or NULL; `sources` points to `n_sources` pointers (or is NULL when
/// `n_sources` is 0), each to `len` readable words of `source_bits`; `results` points to `len`
/// writable words of `result_bits`. Buffers may be NULL when `len` is 0.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptxfp_eval_buffers(
    instr: *const ptxfp_instr,
    sources: *const *const c_void,
    n_sources: usize,
    source_bits: u32,
    results: *mut c_void,
    result_bits: u32,
    len: usize,
    threads: usize,
) -> ptxfp_status {
    guard(|| {
        non_null(instr, "instr")?;
        // SAFETY: a live handle (contract).
        let p = &unsafe { &*instr }.prepared;
        let i = p.instr();
        if !i.takes(n_sources) {
            let e = BatchError::Arity { instr: i.to_string(), legal: i.operand_counts(), got: n_sources };
            return Err(from_batch_error(e));
        }
        for (what, bits, expected) in
            [("a source buffer", source_bits, i.source_bits()), ("the result buffer", result_bits, i.result_bits())]
        {
            if bits != expected {
                let e = BatchError::Width { instr: i.to_string(), what: what.into(), bits, expected };
                return Err(from_batch_error(e));
            }
        }
        let mut columns: [*const c_void; MAX_SOURCES] = [std::ptr::null(); MAX_SOURCES];
        if n_sources > 0 {
            non_null(sources, "sources")?;
            for (k, column) in columns.iter_mut().enumerate().take(n_sources) {
                // SAFETY: `n_sources` readable pointers (contract).
                *column = unsafe { *sources.add(k) };
            }
        }
        if len == 0 {
            return Ok(());
        }
        non_null(results, "results")?;
        for (k, &column) in columns[..n_sources].iter().enumerate() {
            non_null_at(column, "sources", Some(k))?;
        }
        let call = Buffers { p, columns: &columns[..n_sources], results, len, threads };
        with_words(source_bits, result_bits, call).unwrap_or_else(|| Err(internal_widths(&i)))
    })
}

/// [`buffers`] at the word types of an instruction; built only by [`ptxfp_eval_buffers`], from
/// buffers that satisfy its contract.
struct Buffers<'a> {
    p: &'a Prepared,
    columns: &'a [*const c_void],
    results: *mut c_void,
    len: usize,
    threads: usize,
}

impl WordsFn for Buffers<'_> {
    type Output = Result<(), Failure>;
    fn call<S: Word, D: Word>(self) -> Result<(), Failure> {
        // SAFETY: the buffers as the contract of ptxfp_eval_buffers says.
        unsafe { buffers::<S, D>(self.p, self.columns, self.results, self.len, self.threads) }
    }
}

/// Elements per piece when a source buffer overlaps the results: each piece's operands are
/// copied before its results are written.
const PIECE: usize = 4096;

unsafe fn buffers<S: Word, D: Word>(
    p: &Prepared,
    columns: &[*const c_void],
    results: *mut c_void,
    len: usize,
    threads: usize,
) -> Result<(), Failure> {
    for (what, ptr, align) in columns.iter().map(|&c| ("a source buffer", c as usize, align_of::<S>())).chain([(
        "the result buffer",
        results as usize,
        align_of::<D>(),
    )]) {
        if ptr % align != 0 {
            return Err(failure(
                PTXFP_ERR_MISALIGNED,
                format!("{what} at {ptr:#x} is not aligned to its {align}-byte words"),
            ));
        }
    }
    let (dst_start, dst_end) = (results as usize, results as usize + len * size_of::<D>());
    let overlaps = columns.iter().any(|&c| (c as usize) < dst_end && dst_start < c as usize + len * size_of::<S>());
    // Each part is a range of elements on its own thread (the first on the calling thread).
    let parts = threads.clamp(1, len.div_ceil(PIECE));
    let per_part = len.div_ceil(parts);
    // Addresses, which threads may share; each part reads and writes its own elements only.
    let (columns, results) = (columns.iter().map(|&c| c as usize).collect::<Vec<_>>(), results as usize);
    let run = |start: usize| -> Result<(), Failure> {
        let end = (start + per_part).min(len);
        if overlaps {
            // Copies: no Rust reference ever covers memory that is written through another.
            let mut src = [[S::from_u64(0); PIECE]; MAX_SOURCES];
            let mut dst = [D::from_u64(0); PIECE];
            for piece in (start..end).step_by(PIECE) {
                let n = PIECE.min(end - piece);
                for (column, s) in columns.iter().zip(&mut src) {
                    // SAFETY: `len` readable words (contract); copied by value.
                    unsafe { std::ptr::copy((*column as *const S).add(piece), s.as_mut_ptr(), n) };
                }
                let refs: [&[S]; MAX_SOURCES] = std::array::from_fn(|k| &src[k][..n]);
                p.eval_serial(&refs[..columns.len()], &mut dst[..n]).map_err(from_batch_error)?;
                // SAFETY: `len` writable words (contract).
                unsafe { std::ptr::copy(dst.as_ptr(), (results as *mut D).add(piece), n) };
            }
        } else {
            let mut refs: [&[S]; MAX_SOURCES] = [&[]; MAX_SOURCES];
            for (r, &column) in refs.iter_mut().zip(&columns) {
                // SAFETY: readable, aligned, and not overlapping the results (checked above).
                *r = unsafe { std::slice::from_raw_parts((column as *const S).add(start), end - start) };
            }
            // SAFETY: writable and aligned, and the parts are disjoint.
            let dst = unsafe { std::slice::from_raw_parts_mut((results as *mut D).add(start), end - start) };
            p.eval_serial(&refs[..columns.len()], dst).map_err(from_batch_error)?;
        }
        Ok(())
    };
    if parts == 1 {
        return run(0);
    }
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut inline = vec![0];
        for part in 1..parts {
            let start = part * per_part;
            match std::thread::Builder::new().spawn_scoped(scope, move || run(start)) {
                Ok(h) => handles.push(h),
                // No thread to be had: this thread does the part.
                Err(_) => inline.push(start),
            }
        }
        let mut outcome = Ok(());
        for start in inline {
            outcome = outcome.and(run(start));
        }
        for h in handles {
            outcome = outcome.and(h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        outcome
    })
}

/// The number of catalog entries: one per legal (spelling, operand count) pair.
#[no_mangle]
pub extern "C" fn ptxfp_catalog_len() -> usize {
    catch_unwind(|| catalog::entries().len()).unwrap_or(0)
}

/// The strings of a catalog entry, NUL-terminated: its spelling, its lowest target and its
/// targets.
struct EntryText {
    spelling: CString,
    lowest_target: CString,
    targets: CString,
}

/// The strings of every catalog entry, made once.
fn catalog_text() -> &'static [EntryText] {
    static TEXT: OnceLock<Vec<EntryText>> = OnceLock::new();
    let text = |s: String| CString::new(s).expect("spellings and target names have no NUL");
    TEXT.get_or_init(|| {
        catalog::entries()
            .iter()
            .map(|e| EntryText {
                spelling: text(e.instr.to_string()),
                lowest_target: text(e.lowest_target().to_string()),
                targets: text(format!("{:#}", e.targets.requirement())),
            })
            .collect()
    })
}

/// Catalog entry `index` (0 ≤ index < `ptxfp_catalog_len()`).
///
/// # Safety
/// `out` points to writable storage or is NULL.
#[no_mangle]
pub unsafe extern "C" fn ptxfp_catalog_get(index: usize, out: *mut ptxfp_catalog_entry) -> ptxfp_status {
    guard(|| {
        non_null(out, "out")?;
        let entries = catalog::entries();
        let e = entries.get(index).ok_or_else(|| {
            failure(PTXFP_ERR_INDEX, format!("catalog index {index}: the catalog has {} entries", entries.len()))
        })?;
        let text = &catalog_text()[index];
        let entry = ptxfp_catalog_entry {
            spelling: text.spelling.as_ptr(),
            operands: e.sources as u32,
            min_sm: e.targets.lowest_sm(),
            evidence: e.instr.evidence().into(),
            lowest_target: text.lowest_target.as_ptr(),
            targets: text.targets.as_ptr(),
        };
        // SAFETY: writable (contract).
        unsafe { *out = entry };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let status = guard(|| panic!("a defect"));
        assert_eq!(status, PTXFP_ERR_INTERNAL);
        let message = unsafe { CStr::from_ptr(ptxfp_last_error()) }.to_str().unwrap().to_string();
        assert!(message.contains("a defect"), "{message}");
    }

    #[test]
    fn status_names_match_the_codes() {
        let all = [
            PTXFP_OK,
            PTXFP_ERR_NULL_POINTER,
            PTXFP_ERR_UNKNOWN_SPELLING,
            PTXFP_ERR_ILLEGAL_SPELLING,
            PTXFP_ERR_UNKNOWN_TARGET,
            PTXFP_ERR_TARGET_LACKS,
            PTXFP_ERR_OPERAND_COUNT,
            PTXFP_ERR_OPERAND_WIDTH,
            PTXFP_ERR_BUFFER_WIDTH,
            PTXFP_ERR_MISALIGNED,
            PTXFP_ERR_INDEX,
            PTXFP_ERR_INTERNAL,
        ];
        for (code, status) in all.into_iter().enumerate() {
            let code = code as c_int;
            assert_eq!(status as c_int, code);
            let name = unsafe { CStr::from_ptr(ptxfp_status_name(code)) }.to_str().unwrap();
            assert_eq!(name, format!("{status:?}"));
        }
        let unknown = unsafe { CStr::from_ptr(ptxfp_status_name(all.len() as c_int)) };
        assert_eq!(unknown.to_str().unwrap(), "unknown status");
    }
}
