//! The plot's layout: the title, the error-against-input panel and the ulp histogram as
//! [`Shape`]s, with their axes, ticks and labels.

use std::collections::BTreeMap;

use super::font::text_width;
use super::shape::*;
use super::{Bucket, Metric, PlotData};

/// Up to this many distinct distances get one histogram bar each.
const MAX_BARS: usize = 60;

/// Ulp errors up to this size are shown on a linear axis.
const MAX_LINEAR_ULP: f64 = 1024.0;

/// Height of the band at the foot of a log axis that holds the zero errors.
const ZERO_BAND: f64 = 24.0;

/// A plot area: the rectangle inside the axes.
#[derive(Clone, Copy, Debug)]
struct Area {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Area {
    fn width(self) -> f64 {
        self.right - self.left
    }

    fn height(self) -> f64 {
        self.bottom - self.top
    }
}

struct Canvas {
    shapes: Vec<Shape>,
}

impl Canvas {
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: Rgb, class: Option<&'static str>) {
        self.shapes.push(Shape::Rect { x, y, w, h, fill, class });
    }

    fn hline(&mut self, x1: f64, x2: f64, y: f64, stroke: Rgb) {
        let y = y.floor() + 0.5;
        self.shapes.push(Shape::Line { x1, y1: y, x2, y2: y, width: 1.0, stroke, dashed: false, class: None });
    }

    fn vline(&mut self, x: f64, y1: f64, y2: f64, stroke: Rgb) {
        let x = x.floor() + 0.5;
        self.shapes.push(Shape::Line { x1: x, y1, x2: x, y2, width: 1.0, stroke, dashed: false, class: None });
    }

    fn text(&mut self, x: f64, y: f64, text: impl Into<String>, scale: u32, anchor: Anchor, fill: Rgb) {
        self.shapes.push(Shape::Text { x, y, text: text.into(), scale, anchor, fill });
    }

    /// The frame around a plot area.
    fn frame(&mut self, a: Area) {
        self.hline(a.left, a.right + 1.0, a.top, BLACK);
        self.hline(a.left, a.right + 1.0, a.bottom, BLACK);
        self.vline(a.left, a.top, a.bottom + 1.0, BLACK);
        self.vline(a.right, a.top, a.bottom + 1.0, BLACK);
    }
}

/// The largest of `scales` at which `text` fits in `width` pixels (the smallest if none does).
fn fit(text: &str, width: f64, scales: &[u32]) -> u32 {
    scales.iter().copied().find(|&s| text_width(text, s) <= width).unwrap_or(scales[scales.len() - 1])
}

/// `text` broken at spaces into lines that fit in `width` pixels at `scale` (a word wider
/// than that gets a line of its own).
fn wrap(text: &str, width: f64, scale: u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), scale) <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

pub(super) fn layout(data: &PlotData) -> Vec<Shape> {
    let mut c = Canvas { shapes: Vec::new() };
    let w = WIDTH as f64;
    // The title on one line at the largest size, or on two at the next.
    let lines = wrap(data.title, w - 20.0, 2);
    if text_width(data.title, 3) <= w - 20.0 {
        c.text(w / 2.0, 34.0, data.title, 3, Anchor::Middle, BLACK);
    } else if lines.len() <= 2 {
        for (line, y) in lines.into_iter().zip([28.0, 50.0]) {
            c.text(w / 2.0, y, line, 2, Anchor::Middle, BLACK);
        }
    } else {
        c.text(w / 2.0, 34.0, data.title, 1, Anchor::Middle, BLACK);
    }
    error_panel(&mut c, data, Area { left: 100.0, top: 84.0, right: w - 30.0, bottom: 404.0 });
    histogram_panel(&mut c, data.histogram, Area { left: 100.0, top: 512.0, right: w - 30.0, bottom: 732.0 });
    c.shapes
}

/// The error axis: linear from 0, or log2 from `2^lo` to `2^hi` above a band for zero.
#[derive(Clone, Copy, Debug)]
enum ErrorAxis {
    Linear { hi: f64, step: f64 },
    Log2 { lo: i32, hi: i32, step: i32 },
}

impl ErrorAxis {
    fn new(metric: Metric, values: impl Iterator<Item = f64> + Clone) -> ErrorAxis {
        let top = values.clone().fold(0.0, f64::max);
        if metric == Metric::Ulp && top <= MAX_LINEAR_ULP {
            let step = nice_step(top.max(1.0) * 1.08 / 5.0);
            return ErrorAxis::Linear { hi: (top * 1.08 / step).ceil().max(1.0) * step, step };
        }
        let least = values.filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
        let (lo, hi) = if top > 0.0 { (least.log2().floor() as i32, top.log2().floor() as i32 + 1) } else { (-1, 0) };
        let step = [1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500]
            .into_iter()
            .find(|s| (hi - lo) as f64 / *s as f64 <= 8.0)
            .unwrap_or(1000);
        ErrorAxis::Log2 { lo: lo.div_euclid(step) * step, hi: -((-hi).div_euclid(step)) * step, step }
    }

    /// The pixel row of `v` in `a`.
    fn y(self, v: f64, a: Area) -> f64 {
        let frac = match self {
            ErrorAxis::Linear { hi, .. } => return a.bottom - (v / hi).clamp(0.0, 1.0) * a.height(),
            ErrorAxis::Log2 { lo, hi, .. } if v > 0.0 => ((v.log2() - lo as f64) / (hi - lo) as f64).clamp(0.0, 1.0),
            ErrorAxis::Log2 { .. } => return a.bottom,
        };
        a.bottom - ZERO_BAND - frac * (a.height() - ZERO_BAND)
    }

    /// The ticks: value and label.
    fn ticks(self) -> Vec<(f64, String)> {
        match self {
            ErrorAxis::Linear { hi, step } => {
                let n = (hi / step).round() as i64;
                (0..=n).map(|k| k as f64 * step).map(|v| (v, fmt_g(v, 4))).collect()
            }
            ErrorAxis::Log2 { lo, hi, step } => std::iter::once((0.0, "0".to_string()))
                .chain((lo..=hi).step_by(step as usize).map(|e| (2f64.powi(e), format!("2^{e}"))))
                .collect(),
        }
    }
}

/// The smallest of 1, 2, 5 times a power of ten that is at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&s| s >= raw * (1.0 - 1e-12)).unwrap_or(10.0 * power)
}

/// A finite, non-negative stand-in for a value that should be one.
fn clamp_error(v: f64) -> f64 {
    if v.is_nan() {
        f64::MAX
    } else {
        v.abs().min(f64::MAX)
    }
}

fn metric_name(metric: Metric) -> &'static str {
    match metric {
        Metric::Ulp => "Ulp error",
        Metric::Absolute => "Absolute error",
        Metric::Relative => "Relative error",
    }
}

/// An error value as the panel's text shows it: ulps as a number, other errors as a power of
/// two and in decimal.
fn error_label(metric: Metric, v: f64) -> String {
    match metric {
        Metric::Ulp => format!("{} ulp", fmt_g(v, 4)),
        _ if v == 0.0 => "0".to_string(),
        _ => format!("{} ({})", pow2_label(v), fmt_g(v, 3)),
    }
}

/// `2^k` with k to two decimals (none when `v` is a power of two).
fn pow2_label(v: f64) -> String {
    let e = v.log2();
    if e == e.round() {
        format!("2^{e}")
    } else {
        format!("2^{e:.2}")
    }
}

fn error_panel(c: &mut Canvas, data: &PlotData, a: Area) {
    let mut buckets: Vec<Bucket> = data
        .buckets
        .iter()
        .filter(|b| b.key.is_finite())
        .map(|b| Bucket { error: clamp_error(b.error), ..*b })
        .collect();
    buckets.sort_by(|p, q| p.key.total_cmp(&q.key));
    let bound = data.bound.filter(|b| !b.is_nan()).map(clamp_error);
    let axis = ErrorAxis::new(data.metric, buckets.iter().map(|b| b.error).chain(bound));

    for (v, label) in axis.ticks() {
        let y = axis.y(v, a);
        if y > a.top + 0.5 && y < a.bottom - 0.5 {
            c.hline(a.left, a.right, y, GRID);
        }
        c.hline(a.left - 5.0, a.left, y, BLACK);
        c.text(a.left - 9.0, y + 7.0, label, 2, Anchor::End, BLACK);
    }

    let (kmin, kmax) = match (buckets.first(), buckets.last()) {
        (Some(first), Some(last)) => (first.key, last.key),
        _ => (0.0, 0.0),
    };
    let bar = (0.8 * (a.width() - 16.0) / buckets.len().max(1) as f64).clamp(1.0, 12.0);
    let pad = bar / 2.0 + 4.0;
    let x_of = |key: f64| {
        if kmax > kmin {
            a.left + pad + (key - kmin) / (kmax - kmin) * (a.width() - 2.0 * pad)
        } else {
            a.left + a.width() / 2.0
        }
    };
    // Bars above the bound are drawn last and at least 3 pixels wide, to stand out.
    let above = |b: &Bucket| bound.is_some_and(|bound| b.error > bound);
    for (over, fill, width) in [(false, BLUE, bar), (true, ORANGE, bar.max(3.0))] {
        for b in buckets.iter().filter(|b| above(b) == over) {
            let top = axis.y(b.error, a).min(a.bottom - 2.0);
            c.rect((x_of(b.key) - width / 2.0).round(), top, width, a.bottom - top, fill, Some("bucket"));
        }
    }

    if let Some(bound) = bound {
        let y = axis.y(bound, a).floor() + 0.5;
        c.shapes.push(Shape::Line {
            x1: a.left,
            y1: y,
            x2: a.right,
            y2: y,
            width: 2.0,
            stroke: RED,
            dashed: true,
            class: Some("bound"),
        });
        // The legend, below the axis on the right: a piece of the line and the bound's value.
        let label = format!("bound {}", error_label(data.metric, bound));
        let start = a.right - text_width(&label, 2);
        c.shapes.push(Shape::Line {
            x1: start - 44.0,
            y1: a.bottom + 42.5,
            x2: start - 10.0,
            y2: a.bottom + 42.5,
            width: 2.0,
            stroke: RED,
            dashed: true,
            class: None,
        });
        c.text(start, a.bottom + 48.0, label, 2, Anchor::Start, RED);
    }

    for (key, label) in x_ticks(&buckets, x_of) {
        let x = x_of(key);
        c.vline(x, a.bottom, a.bottom + 5.0, BLACK);
        c.text(x, a.bottom + 23.0, label, 2, Anchor::Middle, BLACK);
    }
    c.frame(a);
    c.text(a.left + a.width() / 2.0, a.bottom + 48.0, "input (in bit-pattern order)", 2, Anchor::Middle, GREY);

    let mut title = metric_name(data.metric).to_string();
    match buckets.iter().map(|b| b.error).reduce(f64::max) {
        None => title += ": no inputs",
        Some(0.0) => title += ": 0 everywhere",
        Some(max) => {
            title += &format!(": max {}", error_label(data.metric, max));
            if let Some(input) = data.worst_input {
                title += &format!(" at {input}");
            }
            if let Some(bound) = bound {
                match buckets.iter().filter(|b| b.error > bound).count() {
                    0 => title += "; all within the bound",
                    n => title += &format!("; {n}/{} buckets above bound", buckets.len()),
                }
            }
        }
    }
    c.text(a.left, a.top - 12.0, &title, fit(&title, a.width(), &[2, 1]), Anchor::Start, BLACK);
}

/// The ticks of the input axis: key and label. Zero when the inputs change sign, then about
/// seven more, each at the roundest number (fewest significant digits, then a leading 1, 2 or
/// 5) among the inputs near an even division of the keys; ticks whose labels would overlap
/// are dropped.
fn x_ticks(buckets: &[Bucket], x_of: impl Fn(f64) -> f64) -> Vec<(f64, String)> {
    let (Some(first), Some(last)) = (buckets.first(), buckets.last()) else {
        return Vec::new();
    };
    let span = last.key - first.key;
    let rounds: Vec<Option<RoundInput>> = (0..buckets.len()).map(|i| round_input(buckets, i)).collect();
    let mut candidates: Vec<RoundInput> = rounds.iter().flatten().filter(|r| r.score == 0).take(1).cloned().collect();
    for i in 0..=6 {
        let target = first.key + span * i as f64 / 6.0;
        let lo = buckets.partition_point(|b| b.key < target - span / 14.0);
        let hi = buckets.partition_point(|b| b.key <= target + span / 14.0);
        let distance = |r: &RoundInput| (r.key - target).abs();
        let roundest = rounds[lo..hi]
            .iter()
            .flatten()
            .min_by(|p, q| p.score.cmp(&q.score).then(distance(p).total_cmp(&distance(q))));
        match roundest {
            Some(r) => candidates.push(r.clone()),
            None => {
                let b = buckets[buckets.partition_point(|b| b.key < target).min(buckets.len() - 1)];
                candidates.push(RoundInput { key: b.key, label: fmt_g(b.input, 6), score: u32::MAX });
            }
        }
    }
    let mut kept: Vec<(f64, String, f64)> = Vec::new();
    for r in candidates {
        let x = x_of(r.key);
        let half = text_width(&r.label, 2) / 2.0;
        if kept.iter().all(|(_, l, kx)| (kx - x).abs() > half + text_width(l, 2) / 2.0 + 16.0) {
            kept.push((r.key, r.label, x));
        }
    }
    kept.sort_by(|p, q| p.0.total_cmp(&q.0));
    kept.into_iter().map(|(k, l, _)| (k, l)).collect()
}

/// A round number among the inputs of a bucket: where it sits on the key axis, its label and
/// how round it is (lower is rounder; 0 is zero).
#[derive(Clone, Debug)]
struct RoundInput {
    key: f64,
    label: String,
    score: u32,
}

/// The roundest number with at most nine significant digits from the input of bucket `i` to
/// that of the next bucket (just the input itself for the last), placed on the key axis by
/// interpolation.
fn round_input(buckets: &[Bucket], i: usize) -> Option<RoundInput> {
    let Bucket { key: k0, input: x0, .. } = buckets[i];
    let (k1, x1) = buckets.get(i + 1).map_or((k0, x0), |b| (b.key, b.input));
    if !x0.is_finite() || !x1.is_finite() {
        return None;
    }
    let (lo, hi) = (x0.min(x1), x0.max(x1));
    let at = |value: f64| if x1 != x0 { k0 + (value - x0) / (x1 - x0) * (k1 - k0) } else { k0 };
    if lo <= 0.0 && 0.0 <= hi {
        return Some(RoundInput { key: at(0.0), label: "0".to_string(), score: 0 });
    }
    for sig in 1..=9 {
        let mut best: Option<RoundInput> = None;
        for magnitude in [lo.abs(), hi.abs()] {
            let unit = 10f64.powi(magnitude.log10().floor() as i32 + 1 - sig);
            let value = (lo / unit).ceil() * unit;
            if !(lo..=hi).contains(&value) {
                continue;
            }
            let label = fmt_g(value, sig as usize);
            let score = 3 * sig as u32
                + match label.trim_start_matches('-').chars().next() {
                    Some('1') => 0,
                    Some('2' | '5') => 1,
                    _ => 2,
                };
            if best.as_ref().is_none_or(|b| score < b.score) {
                best = Some(RoundInput { key: at(value), label, score });
            }
        }
        if best.is_some() {
            return best;
        }
    }
    None
}

/// `x` to `sig` significant digits in the style of C's `%g`: fixed notation for exponents from
/// -4 to 5 (so `20`, not `2e+01`), otherwise scientific with at least two exponent digits;
/// trailing zeros removed.
fn fmt_g(x: f64, sig: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sig = sig.max(1);
    let sci = format!("{:.*e}", sig - 1, x);
    let (mantissa, exponent) = sci.split_once('e').expect("{:e} writes an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} writes an integer exponent");
    if (-4..=5).contains(&exponent) {
        let rounded: f64 = sci.parse().expect("{:e} writes a number");
        trim_zeros(&format!("{rounded:.*}", (sig as i32 - 1 - exponent).max(0) as usize)).to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), exponent.abs())
    }
}

pub(super) fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `n` with commas between groups of three digits.
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `part / total` as a percentage with enough decimals not to read as 0 % or 100 % unless it is.
fn percent(part: u128, total: u128) -> String {
    if part == 0 || part == total {
        return format!("{}%", if part == 0 { 0 } else { 100 });
    }
    let p = part as f64 / total as f64 * 100.0;
    (2..=15)
        .map(|d| format!("{p:.d$}"))
        .find(|s| s.parse::<f64>().is_ok_and(|v| v > 0.0 && v < 100.0))
        .unwrap_or_else(|| p.to_string())
        + "%"
}

/// One bar of the histogram: the distances `lo..=hi` and how many results had them.
struct Slot {
    lo: i64,
    hi: i64,
    count: u64,
    label: String,
}

/// The histogram's bars and the x axis caption that says how they were grouped.
fn slots(histogram: &BTreeMap<i64, u64>) -> (Vec<Slot>, String) {
    let entries: Vec<(i64, u64)> = histogram.iter().map(|(&d, &n)| (d, n)).filter(|&(_, n)| n > 0).collect();
    let (Some(&(min, _)), Some(&(max, _))) = (entries.first(), entries.last()) else {
        return (Vec::new(), "signed ulp distance".to_string());
    };
    let span = max as i128 - min as i128 + 1;
    let caption = "signed ulp distance".to_string();
    if entries.len() <= MAX_BARS && span <= MAX_BARS as i128 {
        let slots = (min..=max)
            .map(|d| Slot { lo: d, hi: d, count: histogram.get(&d).copied().unwrap_or(0), label: d.to_string() })
            .collect();
        return (slots, caption);
    }
    if entries.len() <= MAX_BARS {
        let slots = entries.iter().map(|&(d, n)| Slot { lo: d, hi: d, count: n, label: d.to_string() }).collect();
        return (slots, caption + " (only the distances that occur; not to scale)");
    }
    let bins = [2i64, 3, 4, 5, 8, 10, 16]
        .into_iter()
        .find(|&w| (span + w as i128 - 1) / w as i128 <= MAX_BARS as i128)
        .map_or(Bins::Magnitude, Bins::Width);
    let first = bins.index(min);
    let mut slots: Vec<Slot> = (first..=bins.index(max))
        .map(|i| {
            let (lo, hi) = bins.range(i);
            Slot { lo, hi, count: 0, label: bins.label(i, lo, hi) }
        })
        .collect();
    for (d, n) in entries {
        let slot = &mut slots[(bins.index(d) - first) as usize];
        slot.count = slot.count.saturating_add(n);
    }
    let caption = match bins {
        Bins::Width(w) => format!("{caption} (bins of {w}, labelled by their lowest distance)"),
        Bins::Magnitude => format!("{caption} (bins of magnitude [2^k, 2^(k+1)), labelled by the end nearer 0)"),
    };
    (slots, caption)
}

/// How distances are grouped when there are too many for one bar each.
#[derive(Clone, Copy, Debug)]
enum Bins {
    /// Bin `i` holds `i·w ..= i·w + w - 1`.
    Width(i64),
    /// Bin 0 holds 0, bin ±(k + 1) the distances with `2^k ≤ |d| < 2^(k+1)` of that sign.
    Magnitude,
}

impl Bins {
    fn index(self, d: i64) -> i64 {
        match self {
            Bins::Width(w) => d.div_euclid(w),
            Bins::Magnitude => {
                let k = (u64::BITS - d.unsigned_abs().leading_zeros()) as i64;
                d.signum() * k
            }
        }
    }

    /// The lowest and highest distance of bin `i`.
    fn range(self, i: i64) -> (i64, i64) {
        let (lo, hi) = match self {
            Bins::Width(w) => (i as i128 * w as i128, i as i128 * w as i128 + w as i128 - 1),
            Bins::Magnitude if i == 0 => (0, 0),
            Bins::Magnitude => {
                let k = i.unsigned_abs() as u32;
                let (lo, hi) = (1i128 << (k - 1), (1i128 << k) - 1);
                if i > 0 {
                    (lo, hi)
                } else {
                    (-hi, -lo)
                }
            }
        };
        let clamp = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        (clamp(lo), clamp(hi))
    }

    fn label(self, i: i64, lo: i64, hi: i64) -> String {
        match self {
            Bins::Width(_) => lo.to_string(),
            Bins::Magnitude => {
                let near_zero = if i < 0 { hi } else { lo };
                if near_zero.unsigned_abs() > 1024 {
                    format!("{}2^{}", if i < 0 { "-" } else { "" }, near_zero.unsigned_abs().ilog2())
                } else {
                    near_zero.to_string()
                }
            }
        }
    }
}

fn histogram_panel(c: &mut Canvas, histogram: &BTreeMap<i64, u64>, a: Area) {
    let (slots, caption) = slots(histogram);
    let total: u128 = histogram.values().map(|&n| n as u128).sum();
    let exact = histogram.get(&0).copied().unwrap_or(0) as u128;

    let max = slots.iter().map(|s| s.count).max().unwrap_or(1).max(1) as f64;
    let (bottom, top) = (0.5f64.log10(), (max * 1.5).log10().ceil().max(1.0));
    let y_of = |n: f64| a.bottom - ((n.log10() - bottom) / (top - bottom)).clamp(0.0, 1.0) * a.height();
    let decades = top as i32;
    let step = (decades + 7) / 8;
    for e in (0..=decades).step_by(step as usize) {
        let y = y_of(10f64.powi(e));
        c.hline(a.left, a.right, y, GRID);
        c.hline(a.left - 5.0, a.left, y, BLACK);
        let label = if e < 4 { 10u32.pow(e as u32).to_string() } else { format!("10^{e}") };
        c.text(a.left - 9.0, y + 7.0, label, 2, Anchor::End, BLACK);
    }

    let slot_width = a.width() / slots.len().max(1) as f64;
    let bar = (slot_width * 0.8).max(1.0);
    let widest = slots.iter().map(|s| text_width(&s.label, 2)).fold(0.0, f64::max);
    let stride = ((widest + 14.0) / slot_width).ceil().max(1.0) as usize;
    let anchor = slots.iter().position(|s| s.lo <= 0 && 0 <= s.hi).unwrap_or(0) % stride;
    for (i, s) in slots.iter().enumerate() {
        let x = a.left + slot_width * (i as f64 + 0.5);
        if s.count > 0 {
            let y = y_of(s.count as f64).min(a.bottom - 2.0);
            let fill = if s.lo == 0 && s.hi == 0 { GREEN } else { BLUE };
            c.rect((x - bar / 2.0).round(), y, bar, a.bottom - y, fill, Some("distance"));
        }
        if i % stride == anchor {
            c.vline(x, a.bottom, a.bottom + 5.0, BLACK);
            c.text(x, a.bottom + 23.0, &s.label, 2, Anchor::Middle, BLACK);
        }
    }
    c.frame(a);
    c.text(
        a.left + a.width() / 2.0,
        a.bottom + 48.0,
        &caption,
        fit(&caption, a.width(), &[2, 1]),
        Anchor::Middle,
        GREY,
    );

    let title = if total == 0 {
        "Signed ulp distance: no results".to_string()
    } else {
        format!(
            "Signed ulp distance: {} results, {} exactly rounded (distance 0)",
            grouped(total),
            percent(exact, total)
        )
    };
    c.text(a.left, a.top - 12.0, &title, fit(&title, a.width(), &[2, 1]), Anchor::Start, BLACK);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_like_percent_g() {
        let cases = [
            (1e38, 1, "1e+38"),
            (-3.4028235e38, 3, "-3.4e+38"),
            (-2.0, 1, "-2"),
            (20.0, 1, "20"),
            (123456.0, 3, "123000"),
            (1234567.0, 3, "1.23e+06"),
            (0.0001, 2, "0.0001"),
            (0.00001, 2, "1e-05"),
            (9.99, 2, "10"),
            (2.5e-7, 3, "2.5e-07"),
            (-0.0, 3, "-0"),
            (f64::INFINITY, 3, "inf"),
            (f64::NAN, 3, "nan"),
        ];
        for (x, sig, text) in cases {
            assert_eq!(fmt_g(x, sig), text, "{x} to {sig} digits");
        }
        assert_eq!(pow2_label(2f64.powi(-22)), "2^-22");
        assert_eq!(pow2_label(1e-6), "2^-19.93");
        assert_eq!(grouped(4_294_967_296), "4,294,967,296");
        assert_eq!(grouped(999), "999");
        assert_eq!(percent(0, 7), "0%");
        assert_eq!(percent(7, 7), "100%");
        assert_eq!(percent(1, 3), "33.33%");
        assert_eq!(percent(4_294_967_295, 4_294_967_296), "99.99999998%");
        assert_eq!(percent(1, 4_294_967_296), "0.00000002%");
    }

    #[test]
    fn magnitude_bins_cover_every_distance_once() {
        for d in [0, 1, -1, 2, 3, -4, 7, 8, 1 << 40, i64::MAX, i64::MIN, i64::MIN + 1] {
            let i = Bins::Magnitude.index(d);
            let (lo, hi) = Bins::Magnitude.range(i);
            assert!(lo <= d && d <= hi, "{d} not in bin {i} = {lo}..={hi}");
        }
        assert_eq!(Bins::Magnitude.range(3), (4, 7));
        assert_eq!(Bins::Magnitude.range(-3), (-7, -4));
        assert_eq!(Bins::Magnitude.range(-12), (-4095, -2048));
        assert_eq!(Bins::Magnitude.label(-12, -4095, -2048), "-2^11");
        assert_eq!(Bins::Magnitude.label(11, 1024, 2047), "1024");
        assert_eq!(Bins::Width(4).index(-1), -1);
        assert_eq!(Bins::Width(4).range(-1), (-4, -1));
    }

    #[test]
    fn input_ticks_are_round_numbers() {
        let bucket = |key: f64, input: f64| Bucket { key, input, error: 0.0 };
        let buckets = [bucket(0.0, 0.93), bucket(1.0, 1.07), bucket(2.0, 1.5), bucket(3.0, 1.502)];
        let r = round_input(&buckets, 0).unwrap();
        assert_eq!(r.label, "1");
        assert!((r.key - 0.5).abs() < 1e-9);
        assert_eq!(round_input(&buckets, 2).unwrap().label, "1.5");
        assert_eq!(round_input(&buckets, 3).unwrap().label, "1.502");
        let crossing = [bucket(0.0, -1e-40), bucket(1.0, 1e-40)];
        assert_eq!(round_input(&crossing, 0).unwrap().label, "0");
        let tiny = [bucket(0.0, 5e-324), bucket(1.0, 1e-323)];
        assert!(round_input(&tiny, 0).is_none_or(|r| r.label != "nan"));
    }
}
