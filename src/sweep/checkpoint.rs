//! Checkpoints: the state of an interrupted sweep, and the file that holds it until the sweep
//! is resumed.
//!
//! The file is one JSON object: the format's name, its version, a CRC-32 of the exact text of
//! its body, and the body ([`Saved`]). Another file, another version, or a checkpoint edited
//! or damaged since it was written is refused rather than resumed; what the body says is then
//! checked against the sweep it continues when the sweep runs (its shard, spec, units and
//! counts).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::report::Report;
use crate::quote::Quoted;

/// The state of an interrupted sweep: the statistics of the units done so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Unit ranges done (half-open, in units of [`super::UNIT`] from the shard's first input).
    pub done: Vec<(u64, u64)>,
    /// The report of the inputs done.
    pub report: Report,
}

impl Checkpoint {
    /// Whether `unit` is done; `done` is ascending (checked before a sweep resumes).
    pub(super) fn is_done(&self, unit: u64) -> bool {
        let at = self.done.partition_point(|&(_, b)| b <= unit);
        self.done.get(at).is_some_and(|&(a, _)| a <= unit)
    }
}

/// What a checkpoint file holds: the sweep's state and the files the finished sweep writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub checkpoint: Checkpoint,
    /// The `--json` report to write when the sweep is done (an absolute path).
    pub json: Option<PathBuf>,
    /// The `--plot` to draw when the sweep is done (an absolute path).
    pub plot: Option<PathBuf>,
}

/// The name in every checkpoint file's `format` field.
pub const FORMAT: &str = "ptxfp sweep checkpoint";
/// The version of the body this ptxfp writes and reads.
pub const VERSION: u32 = 1;

/// The checkpoint file around a [`Saved`] body.
#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    format: String,
    version: u32,
    crc32: u32,
    #[serde(borrow)]
    body: &'a RawValue,
}

/// Why a checkpoint file was refused.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Not JSON of the envelope's shape, or a body that is not a [`Saved`].
    #[error("not a ptxfp sweep checkpoint: {0}")]
    Json(#[from] serde_json::Error),
    /// Another format's name.
    #[error("not a ptxfp sweep checkpoint: its format is {}", Quoted(format))]
    OtherFormat { format: String },
    /// A checkpoint of another format version.
    #[error("a sweep checkpoint of format version {0}; this ptxfp reads version {VERSION}")]
    Version(u32),
    /// The body does not match its checksum.
    #[error(
        "the checkpoint's checksum does not match its contents (the file was edited or damaged): start the sweep again"
    )]
    Checksum,
}

impl Saved {
    /// The text of a checkpoint file.
    pub fn to_text(&self) -> String {
        let body = serde_json::to_string(self).expect("a checkpoint always serializes");
        let crc32 = crc32fast::hash(body.as_bytes());
        let body = RawValue::from_string(body).expect("serde_json writes valid JSON");
        let envelope = Envelope { format: FORMAT.into(), version: VERSION, crc32, body: &body };
        serde_json::to_string(&envelope).expect("a checkpoint always serializes")
    }

    /// Read a checkpoint file's text: its format, version and checksum checked, then its body.
    pub fn from_text(text: &str) -> Result<Saved, CheckpointError> {
        let envelope: Envelope = serde_json::from_str(text)?;
        if envelope.format != FORMAT {
            return Err(CheckpointError::OtherFormat { format: envelope.format });
        }
        if envelope.version != VERSION {
            return Err(CheckpointError::Version(envelope.version));
        }
        let body = envelope.body.get();
        if crc32fast::hash(body.as_bytes()) != envelope.crc32 {
            return Err(CheckpointError::Checksum);
        }
        Ok(serde_json::from_str(body)?)
    }
}
