//! The plot as an SVG 1.1 document.

use super::layout::{layout, trim_zeros};
use super::shape::*;
use super::PlotData;

/// The SVG document as a string (what [`super::write`] stores for .svg).
pub fn svg(data: &PlotData) -> String {
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\">\n<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"{}\"/>\n",
        WHITE.hex()
    );
    for shape in layout(data) {
        match shape {
            Shape::Rect { x, y, w, h, fill, class } => {
                out += &format!(
                    "<rect{} x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                    class_attr(class),
                    num(x),
                    num(y),
                    num(w),
                    num(h),
                    fill.hex()
                );
            }
            Shape::Line { x1, y1, x2, y2, width, stroke, dashed, class } => {
                let dash = if dashed { format!(" stroke-dasharray=\"{DASH_ON} {DASH_OFF}\"") } else { String::new() };
                out += &format!(
                    "<line{} x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{dash}/>\n",
                    class_attr(class),
                    num(x1),
                    num(y1),
                    num(x2),
                    num(y2),
                    stroke.hex(),
                    num(width)
                );
            }
            Shape::Text { x, y, text, scale, anchor, fill } => {
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                out += &format!(
                    "<text x=\"{}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"{}\" text-anchor=\"{anchor}\" \
                     fill=\"{}\">{}</text>\n",
                    num(x),
                    num(y),
                    9 * scale,
                    fill.hex(),
                    escape(&text)
                );
            }
        }
    }
    out + "</svg>\n"
}

/// A coordinate for SVG: at most two decimals, no trailing zeros.
fn num(v: f64) -> String {
    trim_zeros(&format!("{v:.2}")).to_string()
}

fn class_attr(class: Option<&'static str>) -> String {
    class.map(|c| format!(" class=\"{c}\"")).unwrap_or_default()
}

/// Text content for XML: `&`, `<`, `>` escaped, control characters (not allowed in XML) as `?`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out
}
