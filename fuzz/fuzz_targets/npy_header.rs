//! `.npy` files: any bytes are read as an array whose data exactly fills the rest of the file,
//! or refused with a message of bounded length; every header ptxfp writes reads back.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ptxfp::io::{npy_header, read_npy_header, Dtype, NpyHeader};

const MAX_MESSAGE: usize = 2000;

fuzz_target!(|bytes: &[u8]| {
    let path = Path::new("fuzz.npy");
    let size = bytes.len() as u64;
    let mut file = bytes;
    match read_npy_header(path, &mut file, size) {
        Ok(header) => {
            let data = header.len.checked_mul(u64::from(header.dtype.bits() / 8));
            assert_eq!(data, Some(file.len() as u64), "{header:?} with {} data bytes", file.len());
        }
        Err(e) => assert!(e.to_string().len() <= MAX_MESSAGE, "{} bytes", e.to_string().len()),
    }
    // A header ptxfp writes, for a dtype and length taken from the input.
    if let [d, rest @ ..] = bytes {
        let dtype = Dtype::ALL[usize::from(*d) % Dtype::ALL.len()];
        let len = rest.iter().take(8).fold(0u64, |n, &b| n << 8 | u64::from(b)) % (1 << 40);
        let header = npy_header(dtype, len);
        let written = header.len() as u64 + len * u64::from(dtype.bits() / 8);
        let read = read_npy_header(path, &mut header.as_slice(), written).unwrap();
        assert_eq!(read, NpyHeader { dtype, len });
    }
});
