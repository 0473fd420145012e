//! The sweep's plots: SVG structure, PNG encoding, atomic output and the edge cases that must not
//! panic. Samples of both formats go to /tmp/plot_sample.svg and /tmp/plot_sample.png.

use std::collections::BTreeMap;
use std::path::Path;

use ptxfp::sweep::plot::{svg, write, Bucket, Metric, PlotData};
use tempdir::TempDir;

mod tempdir;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 800;
const RED: [u8; 3] = [214, 39, 40];

/// The f32 whose bit pattern has ordinal `o` (negative ordinals are the negative numbers).
fn f32_at(o: i64) -> f32 {
    if o >= 0 {
        f32::from_bits(o as u32)
    } else {
        -f32::from_bits((-o - 1) as u32)
    }
}

/// 2048 buckets over all finite f32 inputs, with a relative error around 2^-23 that grows near
/// the ends and a few buckets above 2^-22.
fn f32_buckets() -> Vec<Bucket> {
    let max = 0x7F7F_FFFFi64;
    (0..2048)
        .map(|i| {
            let o = -max - 1 + (2 * max + 2) * i / 2048;
            let wobble = ((i * 7919) % 97) as f64 / 97.0;
            let error = if i % 300 == 7 {
                0.0
            } else if i % 500 == 250 {
                2f64.powi(-21) * (1.0 + wobble)
            } else {
                2f64.powi(-24) * (1.0 + wobble)
            };
            Bucket { key: i as f64, input: f32_at(o) as f64, error }
        })
        .collect()
}

fn histogram(pairs: &[(i64, u64)]) -> BTreeMap<i64, u64> {
    pairs.iter().copied().collect()
}

fn sample_histogram() -> BTreeMap<i64, u64> {
    histogram(&[(-3, 12), (-2, 4_000), (-1, 1_500_000), (0, 4_290_000_000), (1, 1_400_000), (2, 3_300), (4, 1)])
}

fn data<'a>(buckets: &'a [Bucket], bound: Option<f64>, hist: &'a BTreeMap<i64, u64>) -> PlotData<'a> {
    PlotData {
        title: "rcp.approx.f32 <all finite inputs> vs correctly rounded 1/x & sm_80",
        metric: Metric::Relative,
        buckets,
        bound,
        worst_input: Some("-1.5"),
        histogram: hist,
    }
}

/// Every opening tag is closed, in order (self-closing tags count as both).
fn assert_balanced(doc: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = doc;
    while let Some(start) = rest.find('<') {
        let end = start + rest[start..].find('>').expect("an unclosed '<'");
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap());
        }
    }
    assert!(stack.is_empty(), "unclosed tags: {stack:?}");
}

fn count(doc: &str, needle: &str) -> usize {
    doc.matches(needle).count()
}

fn decode(path: &Path) -> (png::OutputInfo, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info, buf)
}

/// The number of pixels of `color` in the fullest row.
fn longest_row(info: &png::OutputInfo, pixels: &[u8], color: [u8; 3]) -> usize {
    pixels
        .chunks_exact(info.line_size)
        .map(|row| row.chunks_exact(3).filter(|p| *p == color).count())
        .max()
        .unwrap_or(0)
}

#[test]
fn svg_is_balanced_and_shows_title_bound_and_one_bar_per_distance() {
    let buckets = f32_buckets();
    let hist = sample_histogram();
    let doc = svg(&data(&buckets, Some(2f64.powi(-22)), &hist));
    std::fs::write("/tmp/plot_sample.svg", &doc).unwrap();
    assert!(doc.starts_with("<svg "), "{}", &doc[..40]);
    assert!(doc.trim_end().ends_with("</svg>"));
    assert_balanced(&doc);
    assert!(doc.contains("rcp.approx.f32 &lt;all finite inputs&gt; vs correctly rounded 1/x &amp; sm_80"));
    assert!(!doc.contains("<all finite"));
    assert_eq!(count(&doc, "class=\"bound\""), 1);
    assert!(doc.contains("bound 2^-22"));
    assert_eq!(count(&doc, "class=\"bucket\""), buckets.len());
    // -3..=4 is contiguous: one bar per distance that occurs (3 has none), a label for each.
    assert_eq!(count(&doc, "class=\"distance\""), hist.len());
    for d in -3..=4 {
        assert!(doc.contains(&format!(">{d}</text>")), "no label {d}");
    }
    assert!(doc.contains("4,292,907,313 results"), "{doc}");
    assert!(doc.contains("99.93% exactly rounded"));
    // Input ticks: zero and the ends of the f32 range in %g form.
    assert!(doc.contains(">0</text>"));
    assert!(doc.contains("e+38</text>"));
}

#[test]
fn the_title_stays_legible_and_names_the_worst_input() {
    let buckets = f32_buckets();
    let hist = sample_histogram();
    // A title too long for one line at the largest size goes on two at the next (18 px).
    let title = "ex2.approx.ftz.f32 on sm_90 | all f32 values: all 4294967296 f32 inputs | vs 2^x correctly \
                 rounded to f32, subnormal inputs and results flushed to zero";
    let plot = PlotData { title, ..data(&buckets, None, &hist) };
    let doc = svg(&plot);
    let title_lines: Vec<&str> =
        doc.lines().filter(|l| l.contains("ex2.approx.ftz.f32") || l.contains("flushed to zero")).collect();
    assert_eq!(title_lines.len(), 2, "{title_lines:?}");
    assert!(title_lines.iter().all(|l| l.contains("font-size=\"18\"")), "{title_lines:?}");
    assert!(!doc.contains("font-size=\"9\""));
    // The panel names the input it is given, whichever bucket holds the maximum.
    assert!(doc.contains("Relative error: max 2^-20"), "{doc}");
    assert!(doc.contains(" at -1.5</text>"), "{doc}");
}

#[test]
fn svg_without_a_bound_has_no_bound_line() {
    let buckets = f32_buckets();
    let hist = sample_histogram();
    let doc = svg(&data(&buckets, None, &hist));
    assert_balanced(&doc);
    assert!(!doc.contains("class=\"bound\""));
    assert!(!doc.contains("bound"));
}

#[test]
fn many_distances_are_grouped() {
    let buckets = f32_buckets();
    // 200 distances over a span of 200: bins of 4.
    let narrow: BTreeMap<i64, u64> = (-100i64..100).map(|d| (d, 1000 - d.unsigned_abs())).collect();
    let doc = svg(&data(&buckets, None, &narrow));
    assert_eq!(count(&doc, "class=\"distance\""), 50);
    assert!(doc.contains("bins of 4"));
    // Spread over the whole i64 range: bins by magnitude, at most 129.
    let wide: BTreeMap<i64, u64> =
        (0..63).flat_map(|k| [(1i64 << k) - 1, -(1i64 << k)]).chain([i64::MIN, i64::MAX]).map(|d| (d, 3)).collect();
    assert!(wide.len() > 60);
    let doc = svg(&data(&buckets, None, &wide));
    assert_balanced(&doc);
    let bars = count(&doc, "class=\"distance\"");
    assert!((100..=129).contains(&bars), "{bars} bars");
    assert!(doc.contains("bins of magnitude"));
    // Few distances far apart: one bar each, not to scale.
    let sparse = histogram(&[(-1 << 40, 1), (0, 10), (3, 2), (1 << 50, 7)]);
    let doc = svg(&data(&buckets, None, &sparse));
    assert_eq!(count(&doc, "class=\"distance\""), 4);
    assert!(doc.contains("not to scale"));
}

#[test]
fn edge_cases_do_not_panic() {
    let empty_hist = BTreeMap::new();
    let hist = sample_histogram();
    let zero = [Bucket { key: 0.0, input: 1.0, error: 0.0 }, Bucket { key: 5.0, input: 2.0, error: 0.0 }];
    let single = [Bucket { key: 42.0, input: -0.0, error: 0.5 }];
    let odd = [
        Bucket { key: 1.0, input: f64::NAN, error: f64::NAN },
        Bucket { key: f64::NAN, input: 1.0, error: 1.0 },
        Bucket { key: 2.0, input: f64::INFINITY, error: f64::INFINITY },
        Bucket { key: 3.0, input: 1e-300, error: -5e-324 },
    ];
    let at_bound = [Bucket { key: 0.0, input: 1.0, error: 0.25 }, Bucket { key: 1.0, input: 2.0, error: 0.25 }];
    let cases: [(&[Bucket], Option<f64>); 8] = [
        (&[], None),
        (&[], Some(1.0)),
        (&zero, None),
        (&zero, Some(0.0)),
        (&single, Some(1.0)),
        (&odd, Some(f64::NAN)),
        (&odd, Some(f64::INFINITY)),
        (&at_bound, Some(0.25)),
    ];
    for metric in [Metric::Ulp, Metric::Absolute, Metric::Relative] {
        for (buckets, bound) in cases {
            for histogram in [&empty_hist, &hist] {
                let plot = PlotData { title: "", metric, buckets, bound, worst_input: None, histogram };
                assert_balanced(&svg(&plot));
            }
        }
    }
    // Errors exactly at the bound are not above it.
    let plot = PlotData {
        title: "t",
        metric: Metric::Ulp,
        buckets: &at_bound,
        bound: Some(0.25),
        worst_input: None,
        histogram: &hist,
    };
    assert!(svg(&plot).contains("all within the bound"));
    // One huge ulp error moves the ulp axis to powers of two.
    let big = [Bucket { key: 0.0, input: 1.0, error: 1.0 }, Bucket { key: 1.0, input: 2.0, error: 1e9 }];
    let plot = PlotData {
        title: "t",
        metric: Metric::Ulp,
        buckets: &big,
        bound: Some(2.0),
        worst_input: Some("2"),
        histogram: &hist,
    };
    let doc = svg(&plot);
    assert!(doc.contains(">2^0</text>") && doc.contains(">2^32</text>"), "{doc}");
    assert!(doc.contains("1/2 buckets above bound"));
}

#[test]
fn png_has_the_layout_and_the_red_bound_line() {
    let dir = TempDir::new("png");
    let buckets = f32_buckets();
    let hist = sample_histogram();
    let path = dir.0.join("plot.png");
    write(&path, &data(&buckets, Some(2f64.powi(-22)), &hist)).unwrap();
    assert_eq!(dir.names(), ["plot.png"]);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), WIDTH);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), HEIGHT);
    let (info, pixels) = decode(&path);
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    // The dashed line: more than half of the plot's width in red on one row.
    assert!(longest_row(&info, &pixels, RED) > 500);
    std::fs::copy(&path, "/tmp/plot_sample.png").unwrap();

    let path = dir.0.join("unbounded.PNG");
    write(&path, &data(&buckets, None, &hist)).unwrap();
    let (info, pixels) = decode(&path);
    assert!(longest_row(&info, &pixels, RED) < 100);
}

#[test]
fn svg_file_matches_svg_string() {
    let dir = TempDir::new("svg");
    let buckets = f32_buckets();
    let hist = sample_histogram();
    let plot = data(&buckets, Some(1e-7), &hist);
    let path = dir.0.join("plot.svg");
    std::fs::write(&path, "old").unwrap();
    write(&path, &plot).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), svg(&plot));
    assert_eq!(dir.names(), ["plot.svg"]);
}

#[test]
fn bad_paths_are_errors_and_leave_no_file() {
    let dir = TempDir::new("bad");
    let buckets = f32_buckets();
    let hist = sample_histogram();
    let plot = data(&buckets, None, &hist);
    let err = write(&dir.0.join("plot.jpg"), &plot).unwrap_err().to_string();
    assert!(err.contains(".svg") && err.contains(".png"), "{err}");
    assert!(write(&dir.0.join("plot"), &plot).is_err());
    let err = write(&dir.0.join("missing/plot.svg"), &plot).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    let err = write(&dir.0.join("missing/plot.png"), &plot).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    assert!(dir.names().is_empty(), "{:?}", dir.names());
    // A directory in the way: the temporary file is removed again.
    std::fs::create_dir(dir.0.join("taken.svg")).unwrap();
    std::fs::write(dir.0.join("taken.svg/inside"), "x").unwrap();
    assert!(write(&dir.0.join("taken.svg"), &plot).is_err());
    assert_eq!(dir.names(), ["taken.svg"]);
}
