//! `ptxfp._ptxfp`: the native half of the Python package. It takes and returns raw words
//! (contiguous one-dimensional byte views of NumPy arrays) and JSON; `ptxfp/__init__.py`
//! turns NumPy's dtypes, shapes and scalars into words and back. Evaluation and sweeps run
//! with the interpreter released, so other Python threads go on meanwhile.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use numpy::{PyReadonlyArray1, PyReadwriteArray1};
use ptxfp::io::{result_dtype, writes_a_value, Dtype};
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

    /// Evaluate element-wise over byte views of word buffers: `out[i] = instr(sources[0][i], …)`.
    /// The buffers are checked here (count, widths, lengths, alignment); nothing is written
    /// unless they pass.
    fn eval_words(
        &self,
        py: Python<'_>,
        sources: Vec<PyReadonlyArray1<'_, u8>>,
        mut out: PyReadwriteArray1<'_, u8>,
    ) -> PyResult<()> {
        let srcs: Vec<&[u8]> = sources.iter().map(|s| s.as_slice()).collect::<Result<_, _>>().map_err(value_error)?;
        let out = out.as_slice_mut().map_err(value_error)?;
        let instr = self.prepared.instr();
        let (src_bits, dst_bits) = (instr.source_bits(), instr.result_bits());
        let job = Words { prepared: &self.prepared, sources: &srcs, out };
        py.detach(|| with_words(src_bits, dst_bits, job).expect("every instruction has word widths"))
    }
}

/// [`NativeInstr::eval_words`] at the instruction's word types.
struct Words<'a> {
    prepared: &'a Prepared,
    sources: &'a [&'a [u8]],
    out: &'a mut [u8],
}

impl WordsFn for Words<'_> {
    type Output = PyResult<()>;

    fn call<S: Word, D: Word>(self) -> PyResult<()> {
        let instr = self.prepared.instr();
        fn words<'b, S: Word>(instr: &Instr, k: usize, bytes: &'b [u8]) -> PyResult<&'b [S]> {
            if !bytes.len().is_multiple_of(size_of::<S>()) {
                return Err(PyTypeError::new_err(format!(
                    "operand {} of {instr} has {} bytes, not a whole number of {}-bit words",
                    k + 1,
                    bytes.len(),
                    S::BITS
                )));
            }
            if bytes.is_empty() {
                return Ok(&[]); // NumPy may give an empty array any address
            }
            bytemuck::try_cast_slice(bytes)
                .map_err(|_| PyValueError::new_err(format!("operand {} of {instr} is not aligned to its words", k + 1)))
        }
        let sources: Vec<&[S]> =
            self.sources.iter().enumerate().map(|(k, b)| words(&instr, k, b)).collect::<Result<_, _>>()?;
        if !self.out.len().is_multiple_of(size_of::<D>()) {
            return Err(PyTypeError::new_err(format!(
                "the output of {instr} is not a whole number of {}-bit words",
                D::BITS
            )));
        }
        let out: &mut [D] = match self.out {
            [] => &mut [],
            bytes => bytemuck::try_cast_slice_mut(bytes)
                .map_err(|_| PyValueError::new_err(format!("the output of {instr} is not aligned to its words")))?,
        };
        instr.eval_batch(self.prepared.target(), &sources, out).map_err(|e| match e {
            BatchError::Width { .. } => PyTypeError::new_err(e.to_string()),
            _ => value_error(e),
        })
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
    m.add_function(wrap_pyfunction!(catalog_entries, m)?)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(run_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(merge_reports, m)?)?;
    Ok(())
}
