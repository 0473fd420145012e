//! A directory under the system temporary directory for one test (the `tempfile` crate's),
//! removed when dropped; `.0` is its path.

#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;

pub struct TempDir(pub PathBuf, tempfile::TempDir);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = tempfile::Builder::new().prefix(&format!("ptxfp-test-{name}-")).tempdir().unwrap();
        TempDir(dir.path().to_path_buf(), dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The names in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }
}
