//! Outputs written atomically: a temporary file beside the destination, synced, then renamed
//! over it, so that readers see the old file or the complete new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self as stdio, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::npy::npy_header;
use super::{data_error, io_error, Container, DataError, Dtype, Error};
use crate::batch::Word;

/// An output file written atomically: the words go to a temporary file next to the
/// destination, which [`Writer::commit`] syncs and renames over it. Dropped without a commit
/// (an error anywhere), the temporary file is removed and the destination left as it was.
#[derive(Debug)]
pub struct Writer {
    pub(super) dest: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    bits: u32,
    remaining: u64,
}

impl Writer {
    /// Start writing `len` elements of `dtype` to `dest` (an `.npy` file with that dtype, or raw
    /// words of its width).
    pub fn create(dest: &Path, dtype: Dtype, len: u64) -> Result<Writer, Error> {
        let mut writer = Writer::temporary(dest, dtype.bits(), len)?;
        if Container::of(dest) == Container::Npy {
            let header = npy_header(dtype, len);
            writer.write_bytes(&header)?;
        }
        Ok(writer)
    }

    /// A temporary file beside `dest` (through a symbolic link: beside the file it points
    /// to), which [`Writer::commit`] renames over `dest`.
    fn temporary(dest: &Path, bits: u32, len: u64) -> Result<Writer, Error> {
        // Through a symbolic link the file it points to is replaced, not the link.
        let resolved;
        let dest = match fs::symlink_metadata(dest) {
            Ok(m) if m.file_type().is_symlink() => match fs::canonicalize(dest) {
                Ok(target) => {
                    resolved = target;
                    resolved.as_path()
                }
                Err(_) => dest,
            },
            _ => dest,
        };
        let Some(name) = dest.file_name() else {
            return Err(data_error(dest, DataError::NotAFileName));
        };
        let existing = match fs::metadata(dest) {
            Ok(m) if m.is_dir() => return Err(data_error(dest, DataError::OutputIsADirectory)),
            Ok(m) if !m.is_file() => return Err(data_error(dest, DataError::OutputIsNotARegularFile)),
            Ok(m) => Some(m.permissions()),
            Err(_) => None,
        };
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        static SERIAL: AtomicU32 = AtomicU32::new(0);
        let (tmp, file) = loop {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".ptxfp-{}-{}.tmp", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
            let tmp = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => break (tmp, file),
                Err(e) if e.kind() == stdio::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(Error::Io { path: dest.to_path_buf(), action: "create a temporary file for", source })
                }
            }
        };
        let writer = Writer { dest: dest.to_path_buf(), tmp, file: Some(file), bits, remaining: len };
        if let Some(permissions) = existing {
            // The replacement keeps the permissions of the file it replaces.
            let file = writer.file.as_ref().unwrap();
            file.set_permissions(permissions).map_err(io_error(dest, "set the permissions of"))?;
        }
        Ok(writer)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let file = self.file.as_mut().expect("writer used after commit");
        file.write_all(bytes).map_err(io_error(&self.dest, "write"))
    }

    /// Append words. `W` must have the dtype's width; no more than `len` words in total.
    pub fn write_block<W: Word>(&mut self, words: &[W]) -> Result<(), Error> {
        assert_eq!(W::BITS, self.bits, "write_block: word width differs from the output's");
        assert!(words.len() as u64 <= self.remaining, "write_block: more words than announced");
        self.remaining -= words.len() as u64;
        if cfg!(target_endian = "big") {
            let mut bytes = bytemuck::cast_slice::<W, u8>(words).to_vec();
            for word in bytes.chunks_exact_mut((W::BITS / 8) as usize) {
                word.reverse();
            }
            self.write_bytes(&bytes)
        } else {
            self.write_bytes(bytemuck::cast_slice(words))
        }
    }

    /// Sync the data to disk and rename the file over the destination.
    pub fn commit(mut self) -> Result<(), Error> {
        assert_eq!(self.remaining, 0, "commit: fewer words written than announced");
        let file = self.file.take().expect("writer used after commit");
        file.sync_all().map_err(io_error(&self.dest, "sync"))?;
        drop(file);
        fs::rename(&self.tmp, &self.dest).map_err(io_error(&self.dest, "write"))?;
        self.tmp = PathBuf::new();
        // Make the rename itself durable (best effort: not every platform syncs directories).
        if let Some(dir) = self.dest.parent() {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.file.take();
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Whether ptxfp can write `dest` as it writes every output (a temporary file beside it, then
/// a rename): checked before long work, so that a missing directory or a denied permission is
/// reported at once rather than after the work.
pub fn check_writable(dest: &Path) -> Result<(), Error> {
    Writer::temporary(dest, 8, 0).map(drop)
}

/// Replace `dest` with `bytes` as a whole: written to a temporary file beside it, synced, then
/// renamed, so readers see the old file or the complete new one, never a partial one.
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut writer = Writer::temporary(dest, 8, 0)?;
    writer.write_bytes(bytes)?;
    writer.commit()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn an_uncommitted_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let names = || crate::io::file_names(dir.path());
        let fresh = dir.path().join("fresh.npy");
        let mut w = Writer::create(&fresh, Dtype::Float32, 4).unwrap();
        w.write_block(&[1u32, 2]).unwrap();
        drop(w);
        assert!(names().is_empty());
        let old = dir.path().join("old.bin");
        fs::write(&old, b"old").unwrap();
        let mut w = Writer::create(&old, Dtype::Uint16, 1).unwrap();
        w.write_block(&[7u16]).unwrap();
        drop(w);
        assert_eq!(fs::read(&old).unwrap(), b"old");
        assert_eq!(names(), ["old.bin"]);
        let w = Writer::create(&old, Dtype::Uint16, 0).unwrap();
        w.commit().unwrap();
        assert_eq!(fs::read(&old).unwrap(), b"");
    }

    #[cfg(unix)]
    #[test]
    fn the_output_keeps_permissions_and_follows_links() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let names = || crate::io::file_names(dir.path());
        let target = dir.path().join("target.bin");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.bin");
        symlink(&target, &link).unwrap();
        let mut w = Writer::create(&link, Dtype::Uint16, 1).unwrap();
        w.write_block(&[0x0201u16]).unwrap();
        w.commit().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), [1, 2]);
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(names(), ["link.bin", "target.bin"]);
    }
}
