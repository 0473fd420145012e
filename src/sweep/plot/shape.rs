//! What a plot is made of: shapes in pixel coordinates on a canvas of fixed size, and their
//! colours; drawn alike as SVG (svg.rs) and as a raster (raster.rs).

pub(super) const WIDTH: u32 = 1200;
pub(super) const HEIGHT: u32 = 800;

/// Dash pattern of the bound line, in pixels on and off.
pub(super) const DASH_ON: f64 = 10.0;
pub(super) const DASH_OFF: f64 = 6.0;

#[derive(Clone, Copy, Debug)]
pub(super) struct Rgb(pub(super) u8, pub(super) u8, pub(super) u8);

impl Rgb {
    pub(super) fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

pub(super) const WHITE: Rgb = Rgb(255, 255, 255);
pub(super) const BLACK: Rgb = Rgb(0, 0, 0);
pub(super) const GREY: Rgb = Rgb(90, 90, 90);
pub(super) const GRID: Rgb = Rgb(225, 225, 225);
pub(super) const BLUE: Rgb = Rgb(31, 119, 180);
pub(super) const ORANGE: Rgb = Rgb(255, 127, 14);
pub(super) const GREEN: Rgb = Rgb(44, 160, 44);
pub(super) const RED: Rgb = Rgb(214, 39, 40);

#[derive(Clone, Copy, Debug)]
pub(super) enum Anchor {
    Start,
    Middle,
    End,
}

/// What the picture is made of, in pixel coordinates (y down). Text sits on its baseline at `y`;
/// a `scale` of 1 is the 5×7 font at one pixel per dot.
#[derive(Debug)]
pub(super) enum Shape {
    Rect { x: f64, y: f64, w: f64, h: f64, fill: Rgb, class: Option<&'static str> },
    Line { x1: f64, y1: f64, x2: f64, y2: f64, width: f64, stroke: Rgb, dashed: bool, class: Option<&'static str> },
    Text { x: f64, y: f64, text: String, scale: u32, anchor: Anchor, fill: Rgb },
}
