//! `ptxfp._ptxfp`: the native half of the Python package. It takes and returns raw words
//! (one-dimensional NumPy arrays of words, the sources of any stride, the result contiguous)
//! and JSON; `ptxfp/__init__.py` turns NumPy's dtypes, shapes and scalars into words and back.
//! Evaluation and sweeps run with the interpreter released, so other Python threads go on
//! meanwhile.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use numpy::{
    PyArray1, PyArrayDescrMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArray, PyUntypedArrayMethods,
};
use ptxfp::io::{result_dtype, writes_a_value, Dtype};
use ptxfp::mma::{Dims, Gemm, Matrices, Mma, MmaInstr, Tile};
use ptxfp::ptx::catalog;
use ptxfp::sweep::report::Report;
use ptxfp::sweep::{self, Control, Outcome, Shard, Spec, Sweep};
use ptxfp::{with_words, BatchError, Instr, Prepared, SimdLevel, Target, Word, WordsFn};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// An instruction checked against one target, with its batch kernel chosen.
#[pyclass(frozen, name = "NativeInstr", module = "ptxfp._ptxfp")]
struct NativeInstr {
    prepared: Prepared,
}

fn value_error(e: impl ToString) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn dtype_names(dtypes: Vec<Dtype>) -> Vec<&'static str> {
    dtypes.into_iter().map(Dtype::name).collect()
}

#[pymethods]
impl NativeInstr {
    #[new]
    fn new(spelling: &str, arch: &str) -> PyResult<NativeInstr> {
        let instr: Instr = spelling.parse().map_err(value_error)?;
        let target: Target = arch.parse().map_err(value_error)?;
        let prepared = Prepared::new(instr, target).map_err(value_error)?;
        Ok(NativeInstr { prepared })
    }

    /// The canonical spelling.
    #[getter]
    fn spelling(&self) -> String {
        self.prepared.instr().to_string()
    }

    #[getter]
    fn arch(&self) -> String {
        self.prepared.target().to_string()
    }

    /// The numbers of source operands the instruction takes on its target.
    #[getter]
    fn operand_counts(&self) -> Vec<usize> {
        let (instr, target) = (self.prepared.instr(), self.prepared.target());
        instr.operand_counts().into_iter().filter(|&n| target.check_operand_count(&instr, n).is_ok()).collect()
    }

    /// PTX name of the source operands' type (`f32`, `bf16x2`, `s32`, …).
    #[getter]
    fn source_type(&self) -> &'static str {
        self.prepared.instr().source_type(0).name()
    }

    /// PTX name of each source operand's type, in operand order, for the largest operand count
    /// (`cvt.rs.satfinite.e4m3x4.f32`: four `f32` and the random bits' `u32`; a
    /// `.scaled::n2::ue8m0` form's last operand is `ue8m0x2`).
    #[getter]
    fn source_types(&self) -> Vec<&'static str> {
        let i = self.prepared.instr();
        (0..i.operand_counts().last().copied().unwrap_or(0)).map(|k| i.source_type(k).name()).collect()
    }

    /// Width in bits of each source operand's type, in operand order (narrower than
    /// `source_bits` for a scale, an f16 or bf16 operand of the mixed f32 arithmetic, …).
    #[getter]
    fn source_widths(&self) -> Vec<u32> {
        let i = self.prepared.instr();
        (0..i.operand_counts().last().copied().unwrap_or(0)).map(|k| i.source_type(k).bits()).collect()
    }

    /// PTX name of the result's type.
    #[getter]
    fn result_type(&self) -> &'static str {
        self.prepared.instr().ty().name()
    }

    /// Width of a source word in bits.
    #[getter]
    fn source_bits(&self) -> u32 {
        self.prepared.instr().source_bits()
    }

    /// Per source operand, the bits its words may set: all of the operand's type's width (a
    /// scale or rbits operand may be narrower than `source_bits`) but the padding bits 7:6
    /// of the FP6 bytes. `eval_bits` refuses a word outside them; the array paths read only
    /// these bits.
    #[getter]
    fn operand_bits(&self) -> Vec<u64> {
        let i = self.prepared.instr();
        (0..i.operand_counts().last().copied().unwrap_or(0)).map(|k| i.source_type(k).code_bits()).collect()
    }

    /// Width of a result word in bits.
    #[getter]
    fn result_bits(&self) -> u32 {
        self.prepared.instr().result_bits()
    }

    /// The NumPy dtypes a source array may have (as `ptxfp run` reads `.npy` files).
    #[getter]
    fn source_dtypes(&self) -> Vec<&'static str> {
        let i = self.prepared.instr();
        let first = i.source_type(0);
        if first.bits() == i.source_bits() {
            dtype_names(Dtype::accepted(first))
        } else {
            // A scale operand wider than the source (`cvt…scaled::n2::ue8m0.bf16x2.e2m1x2`):
            // every operand as words of the widest, the narrower zero-extended.
            vec![Dtype::unsigned(i.source_bits()).name()]
        }
    }

    /// The NumPy dtype of the result (as `ptxfp run` writes it).
    #[getter]
    fn result_dtype(&self) -> &'static str {
        result_dtype(&self.prepared.instr()).name()
    }

    /// Whether the result word is a value of the result type (not a predicate, an RRO word or
    /// the high word of an f64).
    #[getter]
    fn result_is_value(&self) -> bool {
        writes_a_value(&self.prepared.instr())
    }

    #[getter]
    fn evidence(&self) -> &'static str {
        self.prepared.instr().evidence().name()
    }

    #[getter]
    fn min_sm(&self) -> u32 {
        self.prepared.instr().min_sm()
    }

    /// `simd` or `scalar`: how batches are evaluated on this processor.
    #[getter]
    fn batch_path(&self) -> &'static str {
        self.prepared.instr().batch_path(self.prepared.target()).name()
    }

    /// One evaluation of the scalar definition on raw operand words (each in the low bits).
    fn eval_bits(&self, operands: Vec<u64>) -> PyResult<u64> {
        self.prepared.eval(&operands).map_err(value_error)
    }

    /// Evaluate element-wise: `out[i] = instr(sources[0][i], …)`. Each source is a
    /// one-dimensional array of source words (itemsize `source_bits / 8`) of any stride: a
    /// strided or broadcast (stride 0) view is read in place, block by block, with no copy
    /// of the whole. `out` is a contiguous byte array: the result words, or with `nibbles` =
    /// L > 0 (e2m1x2: 2, e2m1x4: 4) each result word's L nibbles one per byte, element 0
    /// first, as `float4_e2m1fn` holds them. The buffers are checked here (count, widths,
    /// lengths, alignment); nothing is written unless they pass. The blocks are shared among
    /// `RAYON_NUM_THREADS` threads (every core when unset), as the library's batches are.
    #[pyo3(signature = (sources, out, nibbles=0))]
    fn eval_arrays(
        &self,
        py: Python<'_>,
        sources: Vec<Bound<'_, PyUntypedArray>>,
        mut out: PyReadwriteArray1<'_, u8>,
        nibbles: u32,
    ) -> PyResult<()> {
        let instr = self.prepared.instr();
        let (src_bits, dst_bits) = (instr.source_bits(), instr.result_bits());
        let arrays = sources
            .iter()
            .enumerate()
            .map(|(k, a)| Strided::new(&instr, k, a, src_bits))
            .collect::<PyResult<Vec<_>>>()?;
        let out = out.as_slice_mut().map_err(value_error)?;
        let job = Arrays { prepared: &self.prepared, sources: &arrays, out, nibbles };
        py.detach(|| with_words(src_bits, dst_bits, job).expect("every instruction has word widths"))
    }
}

/// A tensor-core instruction on one target (`ptxfp.Mma`): tiles of codes in, D's codes out.
#[pyclass(frozen, name = "NativeMma", module = "ptxfp._ptxfp")]
struct NativeMma {
    mma: Mma,
}

#[pymethods]
impl NativeMma {
    #[new]
    fn new(spelling: &str, arch: &str) -> PyResult<NativeMma> {
        let instr = MmaInstr::parse(spelling).map_err(value_error)?;
        let target: Target = arch.parse().map_err(value_error)?;
        let mma = Mma::new(instr, target).map_err(value_error)?;
        Ok(NativeMma { mma })
    }

    #[getter]
    fn spelling(&self) -> String {
        self.mma.instr().to_string()
    }

    #[getter]
    fn arch(&self) -> String {
        self.mma.target().to_string()
    }

    /// (m, n, k).
    #[getter]
    fn shape(&self) -> (u32, u32, u32) {
        let s = self.mma.instr().shape;
        (s.m, s.n, s.k)
    }

    /// (name, code bits) of A, B, C and D.
    #[getter]
    fn operand_types(&self) -> Vec<(&'static str, u32)> {
        self.mma.operand_types().to_vec()
    }

    /// (name, code bits) of the scales of a block-scaled form, else None.
    #[getter]
    fn scale_type(&self) -> Option<(&'static str, u32)> {
        self.mma.scale_type()
    }

    /// Scales per row of A (and column of B) of a block-scaled form, else None.
    #[getter]
    fn scale_vec(&self) -> Option<u32> {
        self.mma.scale_vec()
    }

    #[getter]
    fn evidence(&self) -> &'static str {
        self.mma.evidence().name()
    }

    /// `tiles` tiles of D from contiguous one-dimensional arrays of codes (uint64), tile after
    /// tile: A m×k, B k×n, C m×n (or None: +0), the scales m×vec and vec×n. Every length and
    /// code is checked before anything is computed; the tiles are shared among the threads.
    #[pyo3(signature = (tiles, a, b, c=None, scale_a=None, scale_b=None))]
    #[allow(clippy::too_many_arguments)]
    fn tiles<'py>(
        &self,
        py: Python<'py>,
        tiles: usize,
        a: PyReadonlyArray1<'py, u64>,
        b: PyReadonlyArray1<'py, u64>,
        c: Option<PyReadonlyArray1<'py, u64>>,
        scale_a: Option<PyReadonlyArray1<'py, u64>>,
        scale_b: Option<PyReadonlyArray1<'py, u64>>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        use rayon::prelude::*;
        let s = self.mma.instr().shape;
        let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
        let v = self.mma.scale_vec().unwrap_or(0) as usize;
        let slice = |x: &PyReadonlyArray1<'py, u64>, per: usize, name: &str| -> PyResult<Vec<u64>> {
            let x = x.as_slice().map_err(value_error)?;
            if x.len() != tiles * per {
                return Err(value_error(format!("{name} holds {} codes, {tiles} tiles need {}", x.len(), tiles * per)));
            }
            Ok(x.to_vec())
        };
        let a = slice(&a, m * k, "A")?;
        let b = slice(&b, k * n, "B")?;
        let c = c.map(|c| slice(&c, m * n, "C")).transpose()?;
        let scales = match (scale_a, scale_b) {
            (Some(sa), Some(sb)) => Some((slice(&sa, m * v, "scale_A")?, slice(&sb, v * n, "scale_B")?)),
            (None, None) => None,
            _ => return Err(value_error("give both scale_a and scale_b")),
        };
        let mma = &self.mma;
        let mut d = vec![0u64; tiles * m * n];
        py.detach(|| {
            d.par_chunks_mut((m * n).max(1)).enumerate().try_for_each(|(t, d)| {
                let tile = Tile {
                    a: &a[t * m * k..(t + 1) * m * k],
                    b: &b[t * k * n..(t + 1) * k * n],
                    c: c.as_ref().map(|c| &c[t * m * n..(t + 1) * m * n]),
                    scales: scales
                        .as_ref()
                        .map(|(sa, sb)| (&sa[t * m * v..(t + 1) * m * v], &sb[t * v * n..(t + 1) * v * n])),
                };
                mma.tile(tile, d)
            })
        })
        .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, d))
    }

    /// D (M×N) = A·B + C through this instruction's k-steps (`ptxfp::mma::Gemm`), from
    /// contiguous row-major codes: A M×K, B K×N, C M×N (or None: +0), the scales M×⌈K/s⌉ and
    /// ⌈K/s⌉×N; promoted into f32 every `promote_every` k where given. Every length and code
    /// is checked first; the rows of D are shared among the threads.
    #[pyo3(signature = (m, n, k, a, b, c=None, scale_a=None, scale_b=None, promote_every=None))]
    #[allow(clippy::too_many_arguments)]
    fn gemm<'py>(
        &self,
        py: Python<'py>,
        m: usize,
        n: usize,
        k: usize,
        a: PyReadonlyArray1<'py, u64>,
        b: PyReadonlyArray1<'py, u64>,
        c: Option<PyReadonlyArray1<'py, u64>>,
        scale_a: Option<PyReadonlyArray1<'py, u64>>,
        scale_b: Option<PyReadonlyArray1<'py, u64>>,
        promote_every: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let gemm = Gemm::new(self.mma, promote_every).map_err(value_error)?;
        let slice = |x: &PyReadonlyArray1<'py, u64>| x.as_slice().map(<[u64]>::to_vec).map_err(value_error);
        let (a, b) = (slice(&a)?, slice(&b)?);
        let c = c.as_ref().map(slice).transpose()?;
        let scales = match (scale_a, scale_b) {
            (Some(sa), Some(sb)) => Some((slice(&sa)?, slice(&sb)?)),
            (None, None) => None,
            _ => return Err(value_error("give both scale_a and scale_b")),
        };
        let mut d = vec![0u64; m.checked_mul(n).ok_or_else(|| value_error("M×N overflows"))?];
        py.detach(|| {
            let x =
                Matrices { a: &a, b: &b, c: c.as_deref(), scales: scales.as_ref().map(|(sa, sb)| (&sa[..], &sb[..])) };
            gemm.run(Dims { m, n, k }, x, &mut d)
        })
        .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, d))
    }
}

/// A one-dimensional NumPy array of source words, read in place: `len` words of `itemsize`
/// bytes, word i at `data + i·stride`.
#[derive(Clone, Copy)]
struct Strided {
    data: *const u8,
    stride: isize,
    len: usize,
}

// The arrays are NumPy's, kept alive by the caller for the whole evaluation, and only read.
unsafe impl Send for Strided {}
unsafe impl Sync for Strided {}

impl Strided {
    fn new(instr: &Instr, k: usize, a: &Bound<'_, PyUntypedArray>, bits: u32) -> PyResult<Strided> {
        if a.ndim() != 1 {
            return Err(PyTypeError::new_err(format!("operand {} of {instr} is not one-dimensional", k + 1)));
        }
        let itemsize = a.dtype().itemsize();
        if itemsize * 8 != bits as usize {
            return Err(PyTypeError::new_err(format!(
                "operand {} of {instr} has {}-bit items, not {bits}-bit words",
                k + 1,
                itemsize * 8
            )));
        }
        // SAFETY: the array object is alive (`a` holds it); its data pointer and strides
        // describe `len` items, as NumPy guarantees for every array.
        let data = unsafe { (*a.as_array_ptr()).fields.data as *const u8 };
        Ok(Strided { data, stride: a.strides()[0], len: a.len() })
    }

    /// Words `lo..hi`: the array's own memory where it is contiguous and aligned there, else
    /// gathered into `buf`.
    fn block<'a, S: Word>(&'a self, lo: usize, hi: usize, buf: &'a mut Vec<S>) -> &'a [S] {
        let size = size_of::<S>() as isize;
        // SAFETY: lo..hi lies within 0..len (checked against the output's length), so every
        // address read is one of the array's items.
        unsafe {
            let first = self.data.offset(lo as isize * self.stride);
            if self.stride == size && (first as usize).is_multiple_of(align_of::<S>()) {
                return std::slice::from_raw_parts(first as *const S, hi - lo);
            }
            buf.clear();
            buf.extend(
                (lo..hi).map(|i| std::ptr::read_unaligned(self.data.offset(i as isize * self.stride) as *const S)),
            );
        }
        buf
    }
}

/// Elements per block: each thread evaluates a block at a time, its gathered sources in cache,
/// and takes the next one when done.
const BLOCK: usize = 1 << 14;

/// The threads to share the blocks among: `RAYON_NUM_THREADS` as the library's own batches
/// read it, else every core.
fn threads() -> usize {
    let set = std::env::var("RAYON_NUM_THREADS").ok().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0);
    set.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Where a block's results go: its words, or each word's nibbles one per byte.
enum Dst<'b, D> {
    Words(&'b mut [D]),
    Nibbles(&'b mut [u8]),
}

/// [`NativeInstr::eval_arrays`] at the instruction's word types.
struct Arrays<'a> {
    prepared: &'a Prepared,
    sources: &'a [Strided],
    out: &'a mut [u8],
    nibbles: u32,
}

impl WordsFn for Arrays<'_> {
    type Output = PyResult<()>;

    fn call<S: Word, D: Word>(self) -> PyResult<()> {
        let instr = self.prepared.instr();
        let per = if self.nibbles == 0 { size_of::<D>() } else { self.nibbles as usize };
        if self.nibbles != 0 && self.nibbles * 4 != D::BITS {
            return Err(PyValueError::new_err(format!(
                "{instr} writes {}-bit words, not {} nibbles",
                D::BITS,
                self.nibbles
            )));
        }
        if !self.out.len().is_multiple_of(per) {
            return Err(PyTypeError::new_err(format!(
                "the output of {instr} is not a whole number of {}-bit words",
                D::BITS
            )));
        }
        let n = self.out.len() / per;
        // The checks of a batch (count, lengths) on the whole, before anything is written.
        let empty: Vec<&[S]> = self.sources.iter().map(|_| &[][..]).collect();
        let lens: Vec<usize> = self.sources.iter().map(|s| s.len).collect();
        if let Some(k) = lens.iter().position(|&len| len != n) {
            return Err(value_error(BatchError::Length {
                operand: k,
                len: lens[k],
                expected: n,
                instr: instr.to_string(),
            }));
        }
        self.prepared.eval_serial::<S, D>(&empty, &mut []).map_err(|e| match e {
            BatchError::Width { .. } => PyTypeError::new_err(e.to_string()),
            _ => value_error(e),
        })?;
        let (sources, prepared, nibbles) = (self.sources, self.prepared, self.nibbles as usize);
        // The blocks, taken in turn by the threads (a busy core takes fewer).
        let blocks: Vec<(usize, Dst<'_, D>)> = if nibbles == 0 {
            let words: &mut [D] = match self.out {
                [] => &mut [],
                bytes => bytemuck::try_cast_slice_mut(bytes)
                    .map_err(|_| PyValueError::new_err(format!("the output of {instr} is not aligned to its words")))?,
            };
            words.chunks_mut(BLOCK).enumerate().map(|(b, w)| (b * BLOCK, Dst::Words(w))).collect()
        } else {
            self.out.chunks_mut(BLOCK * nibbles).enumerate().map(|(b, c)| (b * BLOCK, Dst::Nibbles(c))).collect()
        };
        let threads = threads().min(blocks.len());
        let queue = Mutex::new(blocks.into_iter());
        let work = || {
            let mut bufs: Vec<Vec<S>> = sources.iter().map(|_| Vec::with_capacity(BLOCK)).collect();
            let mut tmp: Vec<D> = Vec::new();
            loop {
                let Some((lo, dst)) = queue.lock().unwrap_or_else(|p| p.into_inner()).next() else { break };
                let len = match &dst {
                    Dst::Words(w) => w.len(),
                    Dst::Nibbles(c) => c.len() / nibbles,
                };
                let srcs: Vec<&[S]> =
                    sources.iter().zip(bufs.iter_mut()).map(|(s, buf)| s.block(lo, lo + len, buf)).collect();
                match dst {
                    Dst::Words(w) => prepared.eval_serial(&srcs, w).expect("checked above"),
                    Dst::Nibbles(codes) => {
                        tmp.clear();
                        tmp.resize(len, D::from_u64(0));
                        prepared.eval_serial(&srcs, &mut tmp).expect("checked above");
                        for (word, out) in tmp.iter().zip(codes.chunks_exact_mut(nibbles)) {
                            let bits = word.to_u64();
                            for (j, code) in out.iter_mut().enumerate() {
                                *code = ((bits >> (4 * j)) & 0xF) as u8;
                            }
                        }
                    }
                }
            }
        };
        if threads <= 1 {
            work();
        } else {
            std::thread::scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(work);
                }
                work();
            });
        }
        Ok(())
    }
}

/// A catalog entry: spelling, operands, lowest sm, evidence, source type, result type, lowest
/// target (`sm_100f`), targets (as `ptxfp ops` lists them).
type CatalogRow = (String, usize, u32, &'static str, &'static str, &'static str, String, String);

/// Every legal (spelling, operand count) pair.
#[pyfunction]
fn catalog_entries() -> Vec<CatalogRow> {
    catalog::entries()
        .iter()
        .map(|e| {
            let i = e.instr;
            let (lowest, targets) = (e.lowest_target().to_string(), format!("{:#}", e.targets.requirement()));
            let sm = e.targets.lowest_sm();
            (i.to_string(), e.sources, sm, i.evidence().name(), i.source_type(0).name(), i.ty().name(), lowest, targets)
        })
        .collect()
}

/// The SIMD level batch evaluation uses on this processor.
#[pyfunction]
fn simd_level() -> &'static str {
    SimdLevel::active().name()
}

/// The version of the Rust library.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Run the sweep `spec` (a JSON object with the fields of `ptxfp::sweep::Spec`) on shard
/// `shard` (`K/N`, or none for all) and return its report as JSON. The sweep runs on a worker
/// thread with the interpreter released; the calling thread checks for signals every 50 ms and
/// stops the sweep on one (Ctrl-C raises `KeyboardInterrupt`).
#[pyfunction]
#[pyo3(signature = (spec, shard=None))]
fn run_sweep(py: Python<'_>, spec: &str, shard: Option<&str>) -> PyResult<String> {
    let spec: Spec = serde_json::from_str(spec).map_err(|e| value_error(format!("not a sweep specification: {e}")))?;
    let shard = shard.map(Shard::parse).transpose().map_err(value_error)?.unwrap_or(Shard::WHOLE);
    let stop = AtomicBool::new(false);
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| -> Result<Outcome, sweep::Error> {
                let sweep = Sweep::new(&spec, shard, true)?;
                let control =
                    Control { progress: &|_, _| {}, stop: &stop, checkpoint: &|_| {}, checkpoint_every: f64::INFINITY };
                sweep.run(None, &control)
            });
            let mut signal = None;
            while !worker.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                if signal.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        stop.store(true, Ordering::Relaxed);
                        signal = Some(e);
                    }
                }
            }
            let outcome = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (outcome, signal)
        })
    });
    match outcome {
        (_, Some(signal)) => Err(signal),
        (Err(message), None) => Err(value_error(message)),
        (Ok(Outcome::Complete(report)), None) => Ok(to_json(&report)),
        (Ok(Outcome::Interrupted(_)), None) => Err(PyKeyboardInterrupt::new_err("the sweep was stopped")),
    }
}

/// Merge the JSON reports of a sweep's shards (as `ptxfp merge`) into one JSON report.
#[pyfunction]
fn merge_reports(reports: Vec<String>) -> PyResult<String> {
    let reports: Vec<Report> = reports
        .iter()
        .enumerate()
        .map(|(k, r)| {
            serde_json::from_str(r).map_err(|e| value_error(format!("report {} is not a sweep report: {e}", k + 1)))
        })
        .collect::<PyResult<_>>()?;
    sweep::merge(&reports).map(|r| to_json(&r)).map_err(value_error)
}

fn to_json(report: &Report) -> String {
    serde_json::to_string(report).expect("a report serializes")
}

#[pymodule]
fn _ptxfp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeInstr>()?;
    m.add_class::<NativeMma>()?;
    m.add_function(wrap_pyfunction!(catalog_entries, m)?)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(run_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(merge_reports, m)?)?;
    Ok(())
}
