//! The `run` driver: an instruction over input files, block by block, into an output file.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{data_error, result_dtype, DataError, Error, Reader, Writer};
use crate::batch::Word;
use crate::ptx::{Instr, Target};

/// Elements evaluated per block: every input and the output hold one block in memory
/// (at most 4 · 2^22 · 8 bytes = 128 MiB for a three-operand f64 instruction).
pub const BLOCK: usize = 1 << 22;

/// Evaluate `instr` over the input files (one per source operand, in operand order) and write
/// the results to `output`, [`BLOCK`] elements at a time. Returns the number of elements.
pub fn run(instr: &Instr, target: Target, inputs: &[&Path], output: &Path) -> Result<u64, Error> {
    run_until(instr, target, inputs, output, &AtomicBool::new(false))
}

/// [`run`] that stops when `stop` is set (polled before each block, e.g. by a Ctrl-C handler),
/// with [`Error::Interrupted`]: the output is then not written and its temporary file removed.
pub fn run_until(
    instr: &Instr,
    target: Target,
    inputs: &[&Path],
    output: &Path,
    stop: &AtomicBool,
) -> Result<u64, Error> {
    run_in_blocks(instr, target, inputs, output, BLOCK, stop)
}

/// [`run_until`] with `block` elements per block (at least 1).
fn run_in_blocks(
    instr: &Instr,
    target: Target,
    inputs: &[&Path],
    output: &Path,
    block: usize,
    stop: &AtomicBool,
) -> Result<u64, Error> {
    target.check(instr)?;
    if !instr.takes(inputs.len()) {
        return Err(Error::InputCount { instr: *instr, legal: instr.operand_counts(), got: inputs.len() });
    }
    let mut readers = Vec::with_capacity(inputs.len());
    for (i, path) in inputs.iter().enumerate() {
        let ty = instr.source_type(i);
        let reader = Reader::open(path, ty.bits())?;
        reader.expect(ty, instr)?;
        readers.push(reader);
    }
    let len = readers.first().map_or(0, Reader::len);
    if let Some(other) = readers.iter().find(|r| r.len() != len) {
        let (first, first_len) = (readers[0].path().to_path_buf(), len);
        return Err(data_error(other.path(), DataError::InputLengths { len: other.len(), first, first_len }));
    }
    let mut writer = Writer::create(output, result_dtype(instr), len)?;
    let src_bits = instr.source_bits();
    let dst_bits = instr.result_bits();
    let args = Stream { instr, target, readers: &mut readers[..], writer: &mut writer, len, block, stop };
    crate::batch::with_words(src_bits, dst_bits, args).unwrap_or(Err(Error::NoWords {
        instr: *instr,
        source_bits: src_bits,
        result_bits: dst_bits,
    }))?;
    writer.commit()?;
    Ok(len)
}

/// The block loop of [`run_in_blocks`]: read a block of every input, evaluate it, append the
/// results.
struct Stream<'a> {
    instr: &'a Instr,
    target: Target,
    readers: &'a mut [Reader],
    writer: &'a mut Writer,
    len: u64,
    block: usize,
    stop: &'a AtomicBool,
}

impl crate::batch::WordsFn for Stream<'_> {
    type Output = Result<(), Error>;

    fn call<S: Word, D: Word>(self) -> Result<(), Error> {
        let Stream { instr, target, readers, writer, len, block, stop } = self;
        let cap = usize::try_from(len).unwrap_or(usize::MAX).min(block.max(1));
        let mut sources: Vec<Vec<S>> = readers.iter().map(|_| vec![S::zeroed(); cap]).collect();
        let mut out = vec![D::zeroed(); cap];
        let mut done = 0u64;
        while done < len {
            if stop.load(Ordering::Relaxed) {
                return Err(Error::Interrupted { output: writer.dest.clone() });
            }
            let n = (len - done).min(cap as u64) as usize;
            for (reader, buf) in readers.iter_mut().zip(&mut sources) {
                reader.read_block(&mut buf[..n])?;
            }
            let views: Vec<&[S]> = sources.iter().map(|b| &b[..n]).collect();
            instr.eval_batch(target, &views, &mut out[..n])?;
            writer.write_block(&out[..n])?;
            done += n as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::io::{npy_header, Dtype};

    /// `fma.rn.f32.bf16`: `a` and `b` in files of 16-bit words, `c` in one of 32-bit words
    /// (each operand in its own type's words), as `eval` gives them.
    #[test]
    fn operands_of_different_widths_are_read_in_their_own_words() {
        let dir = tempfile::tempdir().unwrap();
        let fma: Instr = "fma.rn.f32.bf16".parse().unwrap();
        let target: Target = "sm_100a".parse().unwrap();
        let n = 777u32;
        let a: Vec<u16> = (0..n).map(|i| (i.wrapping_mul(0x9E37_79B9) >> 16) as u16).collect();
        let b: Vec<u16> = (0..n).map(|i| (i.wrapping_mul(0x85EB_CA6B) >> 16) as u16 ^ 0x3F80).collect();
        let c: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0xC2B2_AE35)).collect();
        let paths = ["a.bin", "b.bin", "c.bin"].map(|name| dir.path().join(name));
        fs::write(&paths[0], bytemuck::cast_slice::<u16, u8>(&a)).unwrap();
        fs::write(&paths[1], bytemuck::cast_slice::<u16, u8>(&b)).unwrap();
        fs::write(&paths[2], bytemuck::cast_slice::<u32, u8>(&c)).unwrap();
        let want: Vec<u32> = (0..n as usize)
            .map(|i| fma.eval_on(target, &[a[i].into(), b[i].into(), c[i].into()]).unwrap() as u32)
            .collect();
        let out = dir.path().join("d.bin");
        let inputs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        for block in [1, 100, BLOCK] {
            run_in_blocks(&fma, target, &inputs, &out, block, &AtomicBool::new(false)).unwrap();
            assert_eq!(bytemuck::cast_slice::<u8, u32>(&fs::read(&out).unwrap()), &want[..], "block {block}");
        }
    }

    #[test]
    fn every_block_size_gives_the_scalar_results() {
        let dir = tempfile::tempdir().unwrap();
        let names = || crate::io::file_names(dir.path());
        let add: Instr = "add.rn.f16x2".parse().unwrap();
        let n = 1000u32;
        let a: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let b: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x85EB_CA6B) ^ 0x3C00_3C00).collect();
        let (pa, pb) = (dir.path().join("a.bin"), dir.path().join("b.npy"));
        fs::write(&pa, bytemuck::cast_slice::<u32, u8>(&a)).unwrap();
        let mut npy = npy_header(Dtype::Uint32, n.into());
        npy.extend_from_slice(bytemuck::cast_slice(&b));
        fs::write(&pb, npy).unwrap();
        let want: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| add.eval(&[x.into(), y.into()]).unwrap() as u32).collect();
        for block in [1, 2, 7, 64, 999, 1000, 1001, BLOCK] {
            let out = dir.path().join("d.bin");
            let len = run_in_blocks(&add, Target::DEFAULT, &[&pa, &pb], &out, block, &AtomicBool::new(false)).unwrap();
            assert_eq!(len, u64::from(n));
            let got = fs::read(&out).unwrap();
            assert_eq!(bytemuck::cast_slice::<u8, u32>(&got), &want[..], "block {block}");
        }
        assert_eq!(names(), ["a.bin", "b.npy", "d.bin"]);
        // Stopped: the output keeps its contents and no temporary file remains.
        let before = fs::read(dir.path().join("d.bin")).unwrap();
        let stopped = run_until(&add, Target::DEFAULT, &[&pa, &pb], &dir.path().join("d.bin"), &AtomicBool::new(true));
        assert!(matches!(stopped, Err(Error::Interrupted { .. })), "{stopped:?}");
        assert_eq!(fs::read(dir.path().join("d.bin")).unwrap(), before);
        assert_eq!(names(), ["a.bin", "b.npy", "d.bin"]);
    }
}
