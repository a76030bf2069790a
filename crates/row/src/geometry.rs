//! PostgreSQL's geometric types (`SqlType::Geo`, `Value::Geo`): `point`,
//! `lseg`, `box`, `line`, `path`, `polygon` and `circle`, each a few
//! float8 coordinates. This file holds the values and their byte form;
//! their text forms are `geometry_text.rs`, their operators and
//! functions folio-sql's `geometry_functions.rs`.
//!
//! The byte form is PostgreSQL 15's binary send format (`point_send`,
//! `box_send`, ...), every float8 big-endian; a row stores the same
//! bytes as a varlena payload:
//!
//! | type | bytes |
//! |---|---|
//! | point | x, y |
//! | lseg | x1, y1, x2, y2 |
//! | box | high x, high y, low x, low y (high the upper right corner) |
//! | line | A, B, C (of `Ax + By + C = 0`) |
//! | path | closed (u8: 1 closed, 0 open), point count (i32), the points |
//! | polygon | point count (i32), the points |
//! | circle | center x, center y, radius |
//!
//! A polygon keeps its bounding box beside its points, as PostgreSQL's
//! does, computed when it is made; the box is not in the byte form.
//! PostgreSQL has no btree operator class for any of these, so no index
//! key holds one; the order folio gives them (`Geometry::compare`, for
//! sorting rows that hold them) is by kind, then coordinate by coordinate.

use std::cmp::Ordering;

/// Which geometric type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeoKind {
    Point,
    Lseg,
    Box,
    Line,
    Path,
    Polygon,
    Circle,
}

impl GeoKind {
    pub const ALL: [GeoKind; 7] = [
        GeoKind::Point,
        GeoKind::Lseg,
        GeoKind::Box,
        GeoKind::Line,
        GeoKind::Path,
        GeoKind::Polygon,
        GeoKind::Circle,
    ];

    /// The type's name, as PostgreSQL spells it.
    pub fn name(self) -> &'static str {
        match self {
            GeoKind::Point => "point",
            GeoKind::Lseg => "lseg",
            GeoKind::Box => "box",
            GeoKind::Line => "line",
            GeoKind::Path => "path",
            GeoKind::Polygon => "polygon",
            GeoKind::Circle => "circle",
        }
    }

    /// The kind named `name` (a type name as written, lower case).
    pub fn from_name(name: &str) -> Option<GeoKind> {
        GeoKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// PostgreSQL's type oid.
    pub fn oid(self) -> u32 {
        match self {
            GeoKind::Point => 600,
            GeoKind::Lseg => 601,
            GeoKind::Path => 602,
            GeoKind::Box => 603,
            GeoKind::Polygon => 604,
            GeoKind::Line => 628,
            GeoKind::Circle => 718,
        }
    }

    /// The oid of PostgreSQL's array type of it.
    pub fn array_oid(self) -> u32 {
        match self {
            GeoKind::Point => 1017,
            GeoKind::Lseg => 1018,
            GeoKind::Path => 1019,
            GeoKind::Box => 1020,
            GeoKind::Polygon => 1027,
            GeoKind::Line => 629,
            GeoKind::Circle => 719,
        }
    }

    /// The kind of the type of oid `oid`.
    pub fn from_oid(oid: u32) -> Option<GeoKind> {
        GeoKind::ALL.into_iter().find(|k| k.oid() == oid)
    }

    /// The delimiter of its arrays' text (PostgreSQL's `typdelim`): `;`
    /// for box, whose text has commas, `,` for the others.
    pub fn array_delimiter(self) -> char {
        match self {
            GeoKind::Box => ';',
            _ => ',',
        }
    }

    /// The size of a value of it in PostgreSQL (`typlen`); `None` for
    /// path and polygon, which are varlenas.
    pub fn fixed_len(self) -> Option<usize> {
        match self {
            GeoKind::Point => Some(16),
            GeoKind::Lseg | GeoKind::Box => Some(32),
            GeoKind::Line | GeoKind::Circle => Some(24),
            GeoKind::Path | GeoKind::Polygon => None,
        }
    }
}

/// A point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// The slope of the line from here to `to` (PostgreSQL's
    /// `point_sl`): infinite for a vertical one, 0 for a horizontal one,
    /// both fuzzily.
    pub fn slope_to(self, to: Point) -> f64 {
        if fp_eq(self.x, to.x) {
            f64::INFINITY
        } else if fp_eq(self.y, to.y) {
            0.0
        } else {
            (self.y - to.y) / (self.x - to.x)
        }
    }
}

/// PostgreSQL's fuzzy float comparisons (`geo_decls.h`): values within
/// [`EPSILON`] of each other are equal.
pub const EPSILON: f64 = 1.0e-6;

pub fn fp_zero(a: f64) -> bool {
    a.abs() <= EPSILON
}

pub fn fp_eq(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= EPSILON
}

pub fn fp_ne(a: f64, b: f64) -> bool {
    a != b && (a - b).abs() > EPSILON
}

pub fn fp_lt(a: f64, b: f64) -> bool {
    a + EPSILON < b
}

pub fn fp_le(a: f64, b: f64) -> bool {
    a <= b + EPSILON
}

pub fn fp_gt(a: f64, b: f64) -> bool {
    a > b + EPSILON
}

pub fn fp_ge(a: f64, b: f64) -> bool {
    a + EPSILON >= b
}

/// Whether two points are the same (PostgreSQL's `point_eq_point`):
/// fuzzily, or, with a NaN among the coordinates, exactly (NaN equal to
/// NaN).
pub fn points_equal(a: Point, b: Point) -> bool {
    if [a.x, a.y, b.x, b.y].iter().any(|v| v.is_nan()) {
        let exact = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
        return exact(a.x, b.x) && exact(a.y, b.y);
    }
    fp_eq(a.x, b.x) && fp_eq(a.y, b.y)
}

/// A line `Ax + By + C = 0` (A and B not both zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

impl Line {
    /// The line through `p` of slope `m` (PostgreSQL's `line_construct`):
    /// `x = C` for an infinite slope, `y = C` for 0, else
    /// `mx - y + C = 0`.
    pub fn through(p: Point, m: f64) -> Line {
        if m.is_infinite() {
            Line {
                a: -1.0,
                b: 0.0,
                c: p.x,
            }
        } else if m == 0.0 {
            Line {
                a: 0.0,
                b: -1.0,
                c: p.y,
            }
        } else {
            let c = p.y - m * p.x;
            Line {
                a: m,
                b: -1.0,
                // Not -0.
                c: if c == 0.0 { 0.0 } else { c },
            }
        }
    }
}

/// A line segment between two points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lseg(pub [Point; 2]);

/// A box: its upper right and lower left corners (`high.x >= low.x`,
/// `high.y >= low.y` for a box made by [`GeoBox::new`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoBox {
    pub high: Point,
    pub low: Point,
}

impl GeoBox {
    /// The box with corners `a` and `b`, whichever corners they are
    /// (PostgreSQL's `box_construct`: NaN is above every number).
    pub fn new(a: Point, b: Point) -> GeoBox {
        let order = |p: f64, q: f64| if float_gt(p, q) { (p, q) } else { (q, p) };
        let ((hx, lx), (hy, ly)) = (order(a.x, b.x), order(a.y, b.y));
        GeoBox {
            high: Point::new(hx, hy),
            low: Point::new(lx, ly),
        }
    }

    /// The smallest box holding `points` (PostgreSQL's `make_bound_box`
    /// of a polygon); a zero box for none.
    pub fn bounding(points: &[Point]) -> GeoBox {
        let Some(first) = points.first() else {
            return GeoBox::new(Point::default(), Point::default());
        };
        let mut b = GeoBox {
            high: *first,
            low: *first,
        };
        for p in &points[1..] {
            // PostgreSQL's float8_gt / float8_lt: NaN above all.
            if float_gt(p.x, b.high.x) {
                b.high.x = p.x;
            }
            if float_lt(p.x, b.low.x) {
                b.low.x = p.x;
            }
            if float_gt(p.y, b.high.y) {
                b.high.y = p.y;
            }
            if float_lt(p.y, b.low.y) {
                b.low.y = p.y;
            }
        }
        b
    }
}

/// PostgreSQL's `float8_gt` (NaN greater than every number).
fn float_gt(a: f64, b: f64) -> bool {
    if a.is_nan() {
        !b.is_nan()
    } else {
        !b.is_nan() && a > b
    }
}

/// PostgreSQL's `float8_lt`.
fn float_lt(a: f64, b: f64) -> bool {
    float_gt(b, a)
}

/// A path: open or closed, of at least one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub closed: bool,
    pub points: Vec<Point>,
}

/// A polygon: its points and their bounding box.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    pub points: Vec<Point>,
    pub bound: GeoBox,
}

impl Polygon {
    pub fn new(points: Vec<Point>) -> Polygon {
        let bound = GeoBox::bounding(&points);
        Polygon { points, bound }
    }
}

/// A circle: center and radius (not negative, or NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    pub center: Point,
    pub radius: f64,
}

/// A value of a geometric type.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    Point(Point),
    Lseg(Lseg),
    Box(GeoBox),
    Line(Line),
    Path(Path),
    Polygon(Polygon),
    Circle(Circle),
}

/// Most points a path or polygon may have: PostgreSQL's bound, a
/// varlena of at most 1 GB.
pub const MAX_POINTS: usize = (0x3FFF_FFFF - 40) / 16;

impl Geometry {
    pub fn kind(&self) -> GeoKind {
        match self {
            Geometry::Point(_) => GeoKind::Point,
            Geometry::Lseg(_) => GeoKind::Lseg,
            Geometry::Box(_) => GeoKind::Box,
            Geometry::Line(_) => GeoKind::Line,
            Geometry::Path(_) => GeoKind::Path,
            Geometry::Polygon(_) => GeoKind::Polygon,
            Geometry::Circle(_) => GeoKind::Circle,
        }
    }

    /// The value's float8s in the order of its byte form (the header of
    /// a path or polygon aside).
    fn coordinates(&self) -> Vec<f64> {
        let points = |ps: &[Point]| ps.iter().flat_map(|p| [p.x, p.y]).collect::<Vec<_>>();
        match self {
            Geometry::Point(p) => vec![p.x, p.y],
            Geometry::Lseg(l) => points(&l.0),
            Geometry::Box(b) => points(&[b.high, b.low]),
            Geometry::Line(l) => vec![l.a, l.b, l.c],
            Geometry::Path(p) => points(&p.points),
            Geometry::Polygon(p) => points(&p.points),
            Geometry::Circle(c) => vec![c.center.x, c.center.y, c.radius],
        }
    }

    /// The byte form (PostgreSQL's binary send format; module table).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Geometry::Path(p) => {
                out.push(p.closed as u8);
                out.extend_from_slice(&(p.points.len() as i32).to_be_bytes());
            }
            Geometry::Polygon(p) => out.extend_from_slice(&(p.points.len() as i32).to_be_bytes()),
            _ => {}
        }
        for c in self.coordinates() {
            out.extend_from_slice(&c.to_be_bytes());
        }
        out
    }

    /// Reads the byte form of a value of `kind` (PostgreSQL's `*_recv`):
    /// `None` when the bytes are not one (a path or polygon of no
    /// points among them).
    pub fn from_bytes(kind: GeoKind, bytes: &[u8]) -> Option<Geometry> {
        let (header, closed) = match kind {
            GeoKind::Path => (5, bytes.first().map(|b| *b != 0)),
            GeoKind::Polygon => (4, Some(false)),
            _ => (0, Some(false)),
        };
        let (Some(closed), Some(head)) = (closed, bytes.get(..header)) else {
            return None;
        };
        let floats: Vec<f64> = bytes[header..]
            .chunks(8)
            .map(|c| <[u8; 8]>::try_from(c).map(f64::from_be_bytes))
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        if !(bytes.len() - header).is_multiple_of(8) {
            return None;
        }
        let points =
            |fs: &[f64]| -> Vec<Point> { fs.chunks(2).map(|c| Point::new(c[0], c[1])).collect() };
        let fixed = |n: usize| floats.len() == n;
        Some(match kind {
            GeoKind::Point if fixed(2) => Geometry::Point(Point::new(floats[0], floats[1])),
            GeoKind::Lseg if fixed(4) => {
                let p = points(&floats);
                Geometry::Lseg(Lseg([p[0], p[1]]))
            }
            // `box_recv` orders the corners.
            GeoKind::Box if fixed(4) => {
                let p = points(&floats);
                Geometry::Box(GeoBox::new(p[0], p[1]))
            }
            GeoKind::Line if fixed(3) => Geometry::Line(Line {
                a: floats[0],
                b: floats[1],
                c: floats[2],
            }),
            GeoKind::Circle if fixed(3) => Geometry::Circle(Circle {
                center: Point::new(floats[0], floats[1]),
                radius: floats[2],
            }),
            GeoKind::Path | GeoKind::Polygon => {
                let count = i32::from_be_bytes(head[header - 4..].try_into().expect("4 bytes"));
                if count <= 0 || floats.len() != 2 * count as usize {
                    return None;
                }
                match kind {
                    GeoKind::Path => Geometry::Path(Path {
                        closed,
                        points: points(&floats),
                    }),
                    _ => Geometry::Polygon(Polygon::new(points(&floats))),
                }
            }
            _ => return None,
        })
    }

    /// A total order for sorting rows that hold geometric values (no SQL
    /// operator gives it: module doc): by kind, then a path's closedness
    /// and point count, then coordinate by coordinate, NaN last.
    pub fn compare(&self, other: &Geometry) -> Ordering {
        let rank = |g: &Geometry| GeoKind::ALL.iter().position(|k| *k == g.kind());
        let head = |g: &Geometry| match g {
            Geometry::Path(p) => (p.closed, p.points.len()),
            Geometry::Polygon(p) => (false, p.points.len()),
            _ => (false, 0),
        };
        rank(self)
            .cmp(&rank(other))
            .then_with(|| head(self).cmp(&head(other)))
            .then_with(|| {
                let (a, b) = (self.coordinates(), other.coordinates());
                a.iter()
                    .zip(&b)
                    .map(|(x, y)| x.total_cmp(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves every kind's byte form reads back as the value, a box's
    // corners are ordered on reading, and a path of no points or bytes
    // of the wrong length are refused.
    #[test]
    fn byte_forms_round_trip() {
        let p = |x, y| Point::new(x, y);
        for g in [
            Geometry::Point(p(1.5, -2.0)),
            Geometry::Lseg(Lseg([p(1.0, 2.0), p(3.0, 4.0)])),
            Geometry::Box(GeoBox::new(p(0.0, 0.0), p(2.0, 3.0))),
            Geometry::Line(Line {
                a: 1.0,
                b: -1.0,
                c: 0.0,
            }),
            Geometry::Path(Path {
                closed: true,
                points: vec![p(1.0, 1.0), p(2.0, f64::NAN)],
            }),
            Geometry::Polygon(Polygon::new(vec![p(0.0, 0.0), p(1.0, 3.0), p(2.0, 0.0)])),
            Geometry::Circle(Circle {
                center: p(1.0, 1.0),
                radius: 5.0,
            }),
        ] {
            let back = Geometry::from_bytes(g.kind(), &g.to_bytes()).unwrap();
            assert_eq!(back.compare(&g), Ordering::Equal, "{g:?}");
        }
        let turned = [
            &2.0f64.to_be_bytes()[..],
            &0f64.to_be_bytes(),
            &0f64.to_be_bytes(),
            &3f64.to_be_bytes(),
        ]
        .concat();
        assert_eq!(
            Geometry::from_bytes(GeoKind::Box, &turned),
            Some(Geometry::Box(GeoBox::new(p(0.0, 0.0), p(2.0, 3.0))))
        );
        let empty = [0u8, 0, 0, 0, 0];
        assert_eq!(Geometry::from_bytes(GeoKind::Path, &empty), None);
        assert_eq!(Geometry::from_bytes(GeoKind::Point, &[0; 15]), None);
    }

    // Proves the bounding box of a polygon takes NaN as PostgreSQL does:
    // above every number.
    #[test]
    fn bounding_boxes_as_postgresql() {
        let b = GeoBox::bounding(&[Point::new(1.0, 2.0), Point::new(-1.0, f64::NAN)]);
        assert_eq!((b.low.x, b.high.x, b.low.y), (-1.0, 1.0, 2.0));
        assert!(b.high.y.is_nan());
    }
}
