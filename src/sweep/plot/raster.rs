//! The plot drawn into an RGB raster and encoded as PNG.

use super::font::{glyph, text_width};
use super::shape::*;

/// An RGB raster, row-major, three bytes per pixel.
struct Raster {
    pixels: Vec<u8>,
}

impl Raster {
    /// Fill the pixels whose centres lie in `[x0, x1) × [y0, y1)`, at least one column and row.
    fn fill(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: Rgb) {
        let span = |lo: f64, hi: f64, size: u32| {
            let a = lo.round();
            let b = hi.round().max(a + 1.0);
            (a.clamp(0.0, size as f64) as usize, b.clamp(0.0, size as f64) as usize)
        };
        let (xa, xb) = span(x0, x1, WIDTH);
        let (ya, yb) = span(y0, y1, HEIGHT);
        for y in ya..yb {
            let row = y * WIDTH as usize * 3;
            for x in xa..xb {
                self.pixels[row + x * 3..row + x * 3 + 3].copy_from_slice(&[color.0, color.1, color.2]);
            }
        }
    }

    /// A line as a square of side `width` stamped at every pixel along it.
    fn line(&mut self, (x1, y1, x2, y2): (f64, f64, f64, f64), width: f64, color: Rgb, dashed: bool) {
        let length = (x2 - x1).hypot(y2 - y1);
        let steps = length.ceil().max(1.0) as usize;
        for i in 0..steps {
            let s = length * i as f64 / steps as f64;
            if dashed && s % (DASH_ON + DASH_OFF) >= DASH_ON {
                continue;
            }
            let t = s / length.max(f64::MIN_POSITIVE);
            let (x, y) = (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t);
            self.fill(x - width / 2.0, y - width / 2.0, x + width / 2.0, y + width / 2.0, color);
        }
    }

    fn text(&mut self, x: f64, baseline: f64, text: &str, scale: u32, anchor: Anchor, color: Rgb) {
        let s = scale as f64;
        let mut left = match anchor {
            Anchor::Start => x,
            Anchor::Middle => x - text_width(text, scale) / 2.0,
            Anchor::End => x - text_width(text, scale),
        }
        .round();
        let top = baseline.round() - 7.0 * s;
        for ch in text.chars() {
            for (row, bits) in glyph(ch).iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        let (px, py) = (left + col as f64 * s, top + row as f64 * s);
                        self.fill(px, py, px + s, py + s, color);
                    }
                }
            }
            left += 6.0 * s;
        }
    }
}

/// The shapes drawn into a raster and encoded as PNG.
pub(super) fn png(shapes: &[Shape]) -> Result<Vec<u8>, png::EncodingError> {
    let mut raster = Raster { pixels: [255u8; 3].repeat((WIDTH * HEIGHT) as usize) };
    for shape in shapes {
        match shape {
            Shape::Rect { x, y, w, h, fill, .. } => raster.fill(*x, *y, x + w, y + h, *fill),
            Shape::Line { x1, y1, x2, y2, width, stroke, dashed, .. } => {
                raster.line((*x1, *y1, *x2, *y2), *width, *stroke, *dashed)
            }
            Shape::Text { x, y, text, scale, anchor, fill } => raster.text(*x, *y, text, *scale, *anchor, *fill),
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&raster.pixels)?;
    writer.finish()?;
    Ok(out)
}
