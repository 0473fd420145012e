//! Plots of a sweep's error: an image of 1200×800 pixels with the title on top, the error
//! against the input in the upper panel and the histogram of the signed ulp distance in the
//! lower one.
//!
//! The layout is built once as a list of shapes (rectangles, lines, text) in pixel coordinates
//! and drawn either as SVG 1.1 or into an RGB raster encoded as PNG, with a built-in 5×7 pixel
//! font, so the two formats show the same picture.
//!
//! - **Error against input.** One bar per bucket from zero up to the bucket's largest error, at
//!   the bucket's position in bit-pattern order; bars above the documented bound are orange,
//!   the bound itself a dashed red line. Absolute and relative errors (and ulp errors above
//!   1024) are on a log2 axis labelled `2^k`, with zero in a band at its foot; smaller ulp
//!   errors on a linear axis.
//! - **Histogram.** One bar per signed ulp distance (count on a log10 axis). More than 60
//!   distinct distances are grouped: into bins of equal width when they span less than 960,
//!   else into bins of magnitude `[2^k, 2^(k+1))` on each side of zero.

mod font;
mod layout;
mod raster;
mod shape;
mod svg;

use std::collections::BTreeMap;
use std::path::Path;

use super::error::PlotError;

pub use svg::svg;

/// One bucket of the error-against-input panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// Position on the x axis: monotone in the input value (an ordinal of the bit pattern).
    pub key: f64,
    /// The input value at `key`, for tick labels.
    pub input: f64,
    /// The largest error in the bucket (finite; ≥ 0); buckets with no inputs are omitted by the caller.
    pub error: f64,
}

/// How the error axis is scaled and labelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Distance in units in the last place: a linear axis, a log2 axis above 1024 ulp.
    Ulp,
    /// `|result - reference|`: a log2 axis.
    Absolute,
    /// `|result - reference| / |reference|`: a log2 axis.
    Relative,
}

/// Everything a plot shows.
pub struct PlotData<'a> {
    /// The line on top: instruction, domain, reference.
    pub title: &'a str,
    /// What `Bucket::error` and `bound` measure.
    pub metric: Metric,
    /// The buckets of the error-against-input panel, in any order.
    pub buckets: &'a [Bucket],
    /// The documented bound in the same metric, if any.
    pub bound: Option<f64>,
    /// The input with the largest error (its operands' values), named in the panel's title.
    pub worst_input: Option<&'a str>,
    /// Signed ulp distance → count.
    pub histogram: &'a BTreeMap<i64, u64>,
}

/// Write the plot to `path`: SVG when it ends in `.svg`, PNG when it ends in `.png` (any other
/// extension is an error naming the two). The file appears only when complete: it is written to
/// a temporary file in the same directory, synced, then renamed over `path`.
pub fn write(path: &Path, data: &PlotData) -> Result<(), PlotError> {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let bytes = match extension.as_deref() {
        Some("svg") => svg(data).into_bytes(),
        Some("png") => raster::png(&layout::layout(data))?,
        _ => return Err(PlotError::Extension { path: path.into() }),
    };
    Ok(crate::io::write_atomically(path, &bytes)?)
}
