//! What the geometric operators and functions compute (PostgreSQL 15's
//! `geo_ops.c`, read for its behaviour): distances, closest points,
//! intersections, containment and the arithmetic of points and shapes,
//! over folio-row's values (`geometry.rs`). Which SQL call reaches which
//! of these is `geometry_functions.rs`.
//!
//! Coordinates compare fuzzily, as PostgreSQL's do: values within
//! `EPSILON` (1e-6) are equal (`fp_eq` and its kin in folio-row). The
//! arithmetic of points (`+ - * /` of points, boxes, paths and circles)
//! checks each float operation as float8's operators do (22003 overflow
//! and underflow, 22012 division by zero: `expr::float_arithmetic`);
//! distances do not, as PostgreSQL's do not fail on an infinity.
//!
//! A polygon's edges include the one from its last point to its first;
//! a closed path's too, an open path's not.

use crate::error::SqlError;
use folio_row::geometry::{
    Circle, GeoBox, Line, Lseg, Path, Point, Polygon, fp_eq, fp_ge, fp_gt, fp_le, fp_lt, fp_zero,
    points_equal,
};
use sqlparser::ast::BinaryOperator;

type Result<T> = std::result::Result<T, SqlError>;

fn checked(op: BinaryOperator, a: f64, b: f64) -> Result<f64> {
    crate::expr::float_arithmetic(&op, a, b)
}

pub fn pl(a: f64, b: f64) -> Result<f64> {
    checked(BinaryOperator::Plus, a, b)
}

pub fn mi(a: f64, b: f64) -> Result<f64> {
    checked(BinaryOperator::Minus, a, b)
}

pub fn mul(a: f64, b: f64) -> Result<f64> {
    checked(BinaryOperator::Multiply, a, b)
}

pub fn div(a: f64, b: f64) -> Result<f64> {
    checked(BinaryOperator::Divide, a, b)
}

/// PostgreSQL's `float8_lt`: NaN above every number.
fn float_lt(a: f64, b: f64) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a < b,
        (false, true) => true,
        _ => false,
    }
}

// ---- points ----

/// PostgreSQL's `pg_hypot`: infinite for an infinite side, NaN for a
/// NaN one, else the larger side scaled (which rounds as PostgreSQL's,
/// not as C's `hypot`).
pub fn hypot(x: f64, y: f64) -> f64 {
    if x.is_infinite() || y.is_infinite() {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    let (x, y) = (x.abs(), y.abs());
    let (x, y) = if x < y { (y, x) } else { (x, y) };
    if y == 0.0 {
        return x;
    }
    let ratio = y / x;
    x * (1.0 + ratio * ratio).sqrt()
}

pub fn distance(a: Point, b: Point) -> f64 {
    hypot(a.x - b.x, a.y - b.y)
}

pub fn point_add(a: Point, b: Point) -> Result<Point> {
    Ok(Point::new(pl(a.x, b.x)?, pl(a.y, b.y)?))
}

pub fn point_sub(a: Point, b: Point) -> Result<Point> {
    Ok(Point::new(mi(a.x, b.x)?, mi(a.y, b.y)?))
}

/// As complex numbers.
pub fn point_mul(a: Point, b: Point) -> Result<Point> {
    Ok(Point::new(
        mi(mul(a.x, b.x)?, mul(a.y, b.y)?)?,
        pl(mul(a.x, b.y)?, mul(a.y, b.x)?)?,
    ))
}

/// As complex numbers (22012 for a zero divisor).
pub fn point_div(a: Point, b: Point) -> Result<Point> {
    let d = pl(mul(b.x, b.x)?, mul(b.y, b.y)?)?;
    Ok(Point::new(
        div(pl(mul(a.x, b.x)?, mul(a.y, b.y)?)?, d)?,
        div(mi(mul(a.y, b.x)?, mul(a.x, b.y)?)?, d)?,
    ))
}

/// The slope of a line perpendicular to the one through `a` and `b`.
fn inverse_slope(a: Point, b: Point) -> f64 {
    if fp_eq(a.x, b.x) {
        0.0
    } else if fp_eq(a.y, b.y) {
        f64::INFINITY
    } else {
        (a.x - b.x) / (b.y - a.y)
    }
}

fn midpoint(a: Point, b: Point) -> Result<Point> {
    Ok(Point::new(
        div(pl(a.x, b.x)?, 2.0)?,
        div(pl(a.y, b.y)?, 2.0)?,
    ))
}

// ---- lines ----

/// The line's slope (PostgreSQL's `line_sl`): 0 for a horizontal one,
/// infinite for a vertical one.
pub fn line_slope(l: &Line) -> f64 {
    if fp_zero(l.a) {
        0.0
    } else if fp_zero(l.b) {
        f64::INFINITY
    } else {
        l.a / -l.b
    }
}

fn line_inverse_slope(l: &Line) -> f64 {
    if fp_zero(l.a) {
        f64::INFINITY
    } else if fp_zero(l.b) {
        0.0
    } else {
        l.b / l.a
    }
}

/// Where two lines cross; `None` for parallel ones.
pub fn line_intersection(l1: &Line, l2: &Line) -> Option<Point> {
    let (x, y);
    if !fp_zero(l1.b) {
        if fp_eq(l2.a, l1.a * (l2.b / l1.b)) {
            return None;
        }
        x = (l1.b * l2.c - l2.b * l1.c) / (l1.a * l2.b - l2.a * l1.b);
        y = -(l1.a * x + l1.c) / l1.b;
    } else if !fp_zero(l2.b) {
        if fp_eq(l1.a, l2.a * (l1.b / l2.b)) {
            return None;
        }
        x = (l2.b * l1.c - l1.b * l2.c) / (l2.a * l1.b - l1.a * l2.b);
        y = -(l2.a * x + l2.c) / l2.b;
    } else {
        return None;
    }
    // Not -0.
    Some(Point::new(x + 0.0, y + 0.0))
}

/// The point of `l` closest to `p` and its distance; `p` and NaN when
/// the perpendicular finds no crossing (NaN coordinates).
pub fn line_closest(l: &Line, p: Point) -> (Point, f64) {
    let perpendicular = Line::through(p, line_inverse_slope(l));
    match line_intersection(&perpendicular, l) {
        Some(c) => (c, distance(c, p)),
        None => (p, f64::NAN),
    }
}

pub fn on_line(p: Point, l: &Line) -> bool {
    fp_zero(l.a * p.x + l.b * p.y + l.c)
}

pub fn lines_equal(l1: &Line, l2: &Line) -> bool {
    let all = [l1.a, l1.b, l1.c, l2.a, l2.b, l2.c];
    if all.iter().any(|v| v.is_nan()) {
        let eq = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        return eq(l1.a, l2.a) && eq(l1.b, l2.b) && eq(l1.c, l2.c);
    }
    let ratio = if !fp_zero(l2.a) {
        l1.a / l2.a
    } else if !fp_zero(l2.b) {
        l1.b / l2.b
    } else if !fp_zero(l2.c) {
        l1.c / l2.c
    } else {
        1.0
    };
    fp_eq(l1.a, ratio * l2.a) && fp_eq(l1.b, ratio * l2.b) && fp_eq(l1.c, ratio * l2.c)
}

pub fn lines_perpendicular(l1: &Line, l2: &Line) -> bool {
    if fp_zero(l1.a) {
        fp_zero(l2.b)
    } else if fp_zero(l2.a) {
        fp_zero(l1.b)
    } else if fp_zero(l1.b) {
        fp_zero(l2.a)
    } else if fp_zero(l2.b) {
        fp_zero(l1.a)
    } else {
        fp_eq((l1.a * l2.a) / (l1.b * l2.b), -1.0)
    }
}

pub fn line_distance(l1: &Line, l2: &Line) -> f64 {
    if line_intersection(l1, l2).is_some() {
        return 0.0;
    }
    let usable = |v: f64| !fp_zero(v) && !v.is_nan();
    let ratio = if usable(l1.a) && usable(l2.a) {
        l1.a / l2.a
    } else if usable(l1.b) && usable(l2.b) {
        l1.b / l2.b
    } else {
        1.0
    };
    (l1.c - ratio * l2.c).abs() / hypot(l1.a, l1.b)
}

/// The line through two points (22023 for one point twice).
pub fn line_of_points(a: Point, b: Point) -> Result<Line> {
    if points_equal(a, b) {
        return Err(SqlError::new(
            "22023",
            "invalid line specification: must be two distinct points",
        ));
    }
    Ok(Line::through(a, a.slope_to(b)))
}

// ---- segments ----

pub fn lseg_slope(l: &Lseg) -> f64 {
    l.0[0].slope_to(l.0[1])
}

pub fn lseg_length(l: &Lseg) -> f64 {
    distance(l.0[0], l.0[1])
}

pub fn lseg_center(l: &Lseg) -> Result<Point> {
    midpoint(l.0[0], l.0[1])
}

pub fn lseg_parallel(a: &Lseg, b: &Lseg) -> bool {
    fp_eq(lseg_slope(a), lseg_slope(b))
}

pub fn lseg_perpendicular(a: &Lseg, b: &Lseg) -> bool {
    fp_eq(lseg_slope(a), inverse_slope(b.0[0], b.0[1]))
}

pub fn lsegs_equal(a: &Lseg, b: &Lseg) -> bool {
    points_equal(a.0[0], b.0[0]) && points_equal(a.0[1], b.0[1])
}

/// Whether `p` lies on the segment (fuzzily: its distances to the ends
/// add up to the segment's length).
pub fn lseg_contains(l: &Lseg, p: Point) -> bool {
    fp_eq(distance(p, l.0[0]) + distance(p, l.0[1]), lseg_length(l))
}

/// Where the segment crosses the line, an end of the segment when the
/// crossing is (fuzzily) one.
pub fn lseg_line_intersection(s: &Lseg, l: &Line) -> Option<Point> {
    let own = Line::through(s.0[0], lseg_slope(s));
    let p = line_intersection(&own, l)?;
    if !lseg_contains(s, p) {
        return None;
    }
    Some(if points_equal(s.0[0], p) {
        s.0[0]
    } else if points_equal(s.0[1], p) {
        s.0[1]
    } else {
        p
    })
}

/// Where two segments cross.
pub fn lseg_intersection(a: &Lseg, b: &Lseg) -> Option<Point> {
    let line = Line::through(b.0[0], lseg_slope(b));
    let p = lseg_line_intersection(a, &line)?;
    lseg_contains(b, p).then_some(p)
}

/// The point of `s` closest to `p`, and its distance.
pub fn lseg_closest(s: &Lseg, p: Point) -> (Point, f64) {
    let perpendicular = Line::through(p, inverse_slope(s.0[0], s.0[1]));
    let (c, _) = lseg_line_closest(s, &perpendicular);
    (c, distance(c, p))
}

/// The point of `s` closest to the line, and its distance.
pub fn lseg_line_closest(s: &Lseg, l: &Line) -> (Point, f64) {
    if let Some(p) = lseg_line_intersection(s, l) {
        return (p, 0.0);
    }
    let (_, d1) = line_closest(l, s.0[0]);
    let (_, d2) = line_closest(l, s.0[1]);
    if d1 < d2 { (s.0[0], d1) } else { (s.0[1], d2) }
}

/// The point of `on` closest to `to`, and its distance.
pub fn lseg_lseg_closest(on: &Lseg, to: &Lseg) -> (Point, f64) {
    if let Some(p) = lseg_intersection(on, to) {
        return (p, 0.0);
    }
    let (mut best, mut dist) = lseg_closest(on, to.0[0]);
    let (p, d) = lseg_closest(on, to.0[1]);
    if float_lt(d, dist) {
        (best, dist) = (p, d);
    }
    for end in on.0 {
        let (_, d) = lseg_closest(to, end);
        if float_lt(d, dist) {
            (best, dist) = (end, d);
        }
    }
    (best, dist)
}

// ---- boxes ----

pub fn box_width(b: &GeoBox) -> Result<f64> {
    mi(b.high.x, b.low.x)
}

pub fn box_height(b: &GeoBox) -> Result<f64> {
    mi(b.high.y, b.low.y)
}

pub fn box_area(b: &GeoBox) -> Result<f64> {
    mul(box_width(b)?, box_height(b)?)
}

pub fn box_center(b: &GeoBox) -> Result<Point> {
    midpoint(b.high, b.low)
}

pub fn boxes_same(a: &GeoBox, b: &GeoBox) -> bool {
    points_equal(a.high, b.high) && points_equal(a.low, b.low)
}

pub fn boxes_overlap(a: &GeoBox, b: &GeoBox) -> bool {
    fp_le(a.low.x, b.high.x)
        && fp_le(b.low.x, a.high.x)
        && fp_le(a.low.y, b.high.y)
        && fp_le(b.low.y, a.high.y)
}

/// Whether `a` holds `b`.
pub fn box_contains_box(a: &GeoBox, b: &GeoBox) -> bool {
    fp_ge(a.high.x, b.high.x)
        && fp_le(a.low.x, b.low.x)
        && fp_ge(a.high.y, b.high.y)
        && fp_le(a.low.y, b.low.y)
}

/// Whether `p` is in the box (exactly, not fuzzily).
pub fn box_contains(b: &GeoBox, p: Point) -> bool {
    b.high.x >= p.x && b.low.x <= p.x && b.high.y >= p.y && b.low.y <= p.y
}

/// The box's four sides, in PostgreSQL's order of testing them.
fn box_sides(b: &GeoBox) -> [Lseg; 4] {
    let upper_left = Point::new(b.low.x, b.high.y);
    let lower_right = Point::new(b.high.x, b.low.y);
    [
        Lseg([b.low, upper_left]),
        Lseg([b.high, upper_left]),
        Lseg([b.low, lower_right]),
        Lseg([b.high, lower_right]),
    ]
}

/// The point of the box closest to `p`, and its distance.
pub fn box_closest(b: &GeoBox, p: Point) -> (Point, f64) {
    if box_contains(b, p) {
        return (p, 0.0);
    }
    closest_of(box_sides(b).iter().map(|s| lseg_closest(s, p)))
}

/// The first of the nearest candidates (PostgreSQL's `float8_lt` scan).
fn closest_of(candidates: impl Iterator<Item = (Point, f64)>) -> (Point, f64) {
    let mut best: Option<(Point, f64)> = None;
    for (p, d) in candidates {
        if best.is_none_or(|(_, b)| float_lt(d, b)) {
            best = Some((p, d));
        }
    }
    best.unwrap_or((Point::default(), f64::NAN))
}

/// Whether the segment meets the box; with the point of the segment
/// nearest the box's center when it does.
pub fn box_lseg_intersection(b: &GeoBox, s: &Lseg) -> Option<Point> {
    let min = |x: f64, y: f64| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else {
            x.min(y)
        }
    };
    let max = |x: f64, y: f64| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else {
            x.max(y)
        }
    };
    let bounds = GeoBox {
        low: Point::new(min(s.0[0].x, s.0[1].x), min(s.0[0].y, s.0[1].y)),
        high: Point::new(max(s.0[0].x, s.0[1].x), max(s.0[0].y, s.0[1].y)),
    };
    if !boxes_overlap(&bounds, b) {
        return None;
    }
    let center = midpoint(b.high, b.low).unwrap_or_default();
    let (nearest, _) = lseg_closest(s, center);
    let meets = box_contains(b, s.0[0])
        || box_contains(b, s.0[1])
        || box_sides(b)
            .iter()
            .any(|side| lseg_intersection(side, s).is_some());
    meets.then_some(nearest)
}

/// The point of the box closest to the segment, and its distance.
pub fn box_lseg_closest(b: &GeoBox, s: &Lseg) -> (Point, f64) {
    if let Some(p) = box_lseg_intersection(b, s) {
        return (p, 0.0);
    }
    closest_of(box_sides(b).iter().map(|side| lseg_lseg_closest(side, s)))
}

/// Whether the line crosses the box's sides.
pub fn line_meets_box(l: &Line, b: &GeoBox) -> bool {
    let corners = [
        Point::new(b.low.x, b.low.y),
        Point::new(b.low.x, b.high.y),
        Point::new(b.high.x, b.high.y),
        Point::new(b.high.x, b.low.y),
    ];
    (0..4).any(|i| lseg_line_intersection(&Lseg([corners[i], corners[(i + 1) % 4]]), l).is_some())
}

/// `box + point` and its kin: each corner moved by `f`, the corners
/// ordered again.
pub fn box_map(b: &GeoBox, p: Point, f: fn(Point, Point) -> Result<Point>) -> Result<GeoBox> {
    Ok(GeoBox::new(f(b.high, p)?, f(b.low, p)?))
}

pub fn box_intersection(a: &GeoBox, b: &GeoBox) -> Option<GeoBox> {
    boxes_overlap(a, b).then(|| GeoBox {
        high: Point::new(a.high.x.min(b.high.x), a.high.y.min(b.high.y)),
        low: Point::new(a.low.x.max(b.low.x), a.low.y.max(b.low.y)),
    })
}

pub fn bound_box(a: &GeoBox, b: &GeoBox) -> GeoBox {
    GeoBox {
        high: Point::new(a.high.x.max(b.high.x), a.high.y.max(b.high.y)),
        low: Point::new(a.low.x.min(b.low.x), a.low.y.min(b.low.y)),
    }
}

pub fn box_of_circle(c: &Circle) -> Result<GeoBox> {
    let delta = div(c.radius, std::f64::consts::SQRT_2)?;
    Ok(GeoBox {
        high: Point::new(pl(c.center.x, delta)?, pl(c.center.y, delta)?),
        low: Point::new(mi(c.center.x, delta)?, mi(c.center.y, delta)?),
    })
}

pub fn polygon_of_box(b: &GeoBox) -> Polygon {
    Polygon::new(vec![
        Point::new(b.low.x, b.low.y),
        Point::new(b.low.x, b.high.y),
        Point::new(b.high.x, b.high.y),
        Point::new(b.high.x, b.low.y),
    ])
}

// ---- polygons ----

/// A point on a polygon's edge (`lseg_crossing`'s answer for it).
const ON_EDGE: i32 = i32::MAX;

/// How the edge from `prev` to `(x, y)` (relative to the point tested)
/// crosses the positive x axis: 0, ±1 or ±2 half crossings, or
/// [`ON_EDGE`].
fn crossing(x: f64, y: f64, prev_x: f64, prev_y: f64) -> i32 {
    if fp_zero(y) {
        if fp_zero(x) {
            ON_EDGE
        } else if fp_gt(x, 0.0) {
            if fp_zero(prev_y) {
                if fp_gt(prev_x, 0.0) { 0 } else { ON_EDGE }
            } else if fp_lt(prev_y, 0.0) {
                1
            } else {
                -1
            }
        } else if fp_zero(prev_y) {
            if fp_lt(prev_x, 0.0) { 0 } else { ON_EDGE }
        } else {
            0
        }
    } else {
        let sign = if fp_gt(y, 0.0) { 1 } else { -1 };
        if fp_zero(prev_y) {
            if fp_lt(prev_x, 0.0) { 0 } else { sign }
        } else if (sign < 0 && fp_lt(prev_y, 0.0)) || (sign > 0 && fp_gt(prev_y, 0.0)) {
            0
        } else if fp_ge(x, 0.0) && fp_gt(prev_x, 0.0) {
            2 * sign
        } else if fp_lt(x, 0.0) && fp_le(prev_x, 0.0) {
            0
        } else {
            let z = (x - prev_x) * y - (y - prev_y) * x;
            if fp_zero(z) {
                ON_EDGE
            } else if (sign < 0 && fp_lt(z, 0.0)) || (sign > 0 && fp_gt(z, 0.0)) {
                0
            } else {
                2 * sign
            }
        }
    }
}

/// Whether `p` is inside the polygon of `points` or on its edge
/// (PostgreSQL's `point_inside`, by crossings of the x axis).
pub fn point_inside(p: Point, points: &[Point]) -> bool {
    let Some(first) = points.first() else {
        return false;
    };
    let (x0, y0) = (first.x - p.x, first.y - p.y);
    let (mut prev_x, mut prev_y) = (x0, y0);
    let mut total: i64 = 0;
    for q in &points[1..] {
        let (x, y) = (q.x - p.x, q.y - p.y);
        let c = crossing(x, y, prev_x, prev_y);
        if c == ON_EDGE {
            return true;
        }
        total += i64::from(c);
        (prev_x, prev_y) = (x, y);
    }
    let c = crossing(x0, y0, prev_x, prev_y);
    c == ON_EDGE || total + i64::from(c) != 0
}

/// The edges of a polygon or closed path (the closing one first, as
/// PostgreSQL walks them), of an open path without it.
pub fn edges(points: &[Point], closed: bool) -> Vec<Lseg> {
    let mut out = Vec::with_capacity(points.len());
    for i in 0..points.len() {
        match i {
            0 if closed => out.push(Lseg([points[points.len() - 1], points[0]])),
            0 => {}
            _ => out.push(Lseg([points[i - 1], points[i]])),
        }
    }
    out
}

pub fn polygon_distance_to_point(poly: &Polygon, p: Point) -> f64 {
    if point_inside(p, &poly.points) {
        return 0.0;
    }
    edges(&poly.points, true)
        .iter()
        .map(|e| lseg_closest(e, p).1)
        .fold(f64::NAN, |best, d| {
            if best.is_nan() || float_lt(d, best) {
                d
            } else {
                best
            }
        })
}

pub fn polygons_same(a: &Polygon, b: &Polygon) -> bool {
    let n = a.points.len();
    if n != b.points.len() {
        return false;
    }
    (0..n).any(|i| {
        points_equal(b.points[i], a.points[0])
            && ((1..n).all(|k| points_equal(b.points[(i + k) % n], a.points[k]))
                || (1..n).all(|k| points_equal(b.points[(i + n * k - k) % n], a.points[k])))
    })
}

pub fn polygons_overlap(a: &Polygon, b: &Polygon) -> bool {
    if !boxes_overlap(&a.bound, &b.bound) {
        return false;
    }
    let (ea, eb) = (edges(&a.points, true), edges(&b.points, true));
    ea.iter()
        .any(|sa| eb.iter().any(|sb| lseg_intersection(sa, sb).is_some()))
        || point_inside(a.points[0], &b.points)
        || point_inside(b.points[0], &a.points)
}

/// Whether the segment from `a` to `b` lies inside the polygon,
/// testing its edges from `start` (PostgreSQL's `lseg_inside_poly`).
fn lseg_inside(a: Point, b: Point, poly: &Polygon, start: usize) -> bool {
    let n = poly.points.len();
    let t = Lseg([a, b]);
    let mut s0 = poly.points[if start == 0 { n - 1 } else { start - 1 }];
    let mut inside = true;
    let mut crossed = false;
    let mut i = start;
    while i < n && inside {
        let s = Lseg([s0, poly.points[i]]);
        if lseg_contains(&s, a) {
            if lseg_contains(&s, b) {
                return true;
            }
            inside = touched_inside(a, b, &s, poly, i + 1);
        } else if lseg_contains(&s, b) {
            inside = touched_inside(b, a, &s, poly, i + 1);
        } else if let Some(p) = lseg_intersection(&t, &s) {
            crossed = true;
            inside = lseg_inside(a, p, poly, i + 1) && lseg_inside(b, p, poly, i + 1);
        }
        s0 = s.0[1];
        i += 1;
    }
    if inside && !crossed {
        let mid = Point::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
        inside = point_inside(mid, &poly.points);
    }
    inside
}

/// `lseg_inside` for a segment whose end `a` is on the edge `s`.
fn touched_inside(a: Point, b: Point, s: &Lseg, poly: &Polygon, start: usize) -> bool {
    let t = Lseg([a, b]);
    if points_equal(a, s.0[0]) {
        if lseg_contains(&t, s.0[1]) {
            return lseg_inside(b, s.0[1], poly, start);
        }
    } else if points_equal(a, s.0[1]) {
        if lseg_contains(&t, s.0[0]) {
            return lseg_inside(b, s.0[0], poly, start);
        }
    } else if lseg_contains(&t, s.0[0]) {
        return lseg_inside(b, s.0[0], poly, start);
    } else if lseg_contains(&t, s.0[1]) {
        return lseg_inside(b, s.0[1], poly, start);
    }
    true
}

/// Whether `outer` holds `inner`.
pub fn polygon_contains(outer: &Polygon, inner: &Polygon) -> bool {
    box_contains_box(&outer.bound, &inner.bound)
        && edges(&inner.points, true)
            .iter()
            .all(|e| lseg_inside(e.0[0], e.0[1], outer, 0))
}

pub fn polygon_distance(a: &Polygon, b: &Polygon) -> f64 {
    if polygons_overlap(a, b) {
        return 0.0;
    }
    lsegs_distance(&edges(&a.points, true), &edges(&b.points, true)).unwrap_or(0.0)
}

/// The least distance between a segment of `a` and one of `b`; `None`
/// when either has none.
pub fn lsegs_distance(a: &[Lseg], b: &[Lseg]) -> Option<f64> {
    let mut best: Option<f64> = None;
    for sa in a {
        for sb in b {
            let d = lseg_lseg_closest(sa, sb).1;
            if best.is_none_or(|m| float_lt(d, m)) {
                best = Some(d);
            }
        }
    }
    best
}

/// The mean of the points, and the mean distance to it (PostgreSQL's
/// `circle(polygon)`; `@@ polygon` is its center).
pub fn circle_of_points(points: &[Point]) -> Result<Circle> {
    let n = points.len() as f64;
    let (mut x, mut y) = (0.0, 0.0);
    for p in points {
        x = pl(x, p.x)?;
        y = pl(y, p.y)?;
    }
    let center = Point::new(div(x, n)?, div(y, n)?);
    let mut radius = 0.0;
    for p in points {
        radius = pl(radius, distance(*p, center))?;
    }
    Ok(Circle {
        center,
        radius: div(radius, n)?,
    })
}

// ---- paths ----

pub fn path_length(p: &Path) -> Result<f64> {
    let mut total = 0.0;
    for e in edges(&p.points, p.closed) {
        total = pl(total, lseg_length(&e))?;
    }
    Ok(total)
}

/// The area a closed path encloses; `None` for an open one.
pub fn path_area(p: &Path) -> Result<Option<f64>> {
    if !p.closed {
        return Ok(None);
    }
    let n = p.points.len();
    let mut area = 0.0;
    for i in 0..n {
        let (a, b) = (p.points[i], p.points[(i + 1) % n]);
        area = pl(area, mul(a.x, b.y)?)?;
        area = mi(area, mul(a.y, b.x)?)?;
    }
    Ok(Some(div(area.abs(), 2.0)?))
}

pub fn point_on_path(pt: Point, p: &Path) -> bool {
    if p.closed {
        return point_inside(pt, &p.points);
    }
    p.points.windows(2).any(|w| {
        fp_eq(
            distance(pt, w[0]) + distance(pt, w[1]),
            distance(w[0], w[1]),
        )
    })
}

pub fn path_distance_to_point(p: &Path, pt: Point) -> Option<f64> {
    let mut best: Option<f64> = None;
    for e in edges(&p.points, p.closed) {
        let d = lseg_closest(&e, pt).1;
        if best.is_none_or(|m| float_lt(d, m)) {
            best = Some(d);
        }
    }
    best
}

pub fn paths_intersect(a: &Path, b: &Path) -> bool {
    let (ba, bb) = (GeoBox::bounding(&a.points), GeoBox::bounding(&b.points));
    if !boxes_overlap(&ba, &bb) {
        return false;
    }
    let (ea, eb) = (edges(&a.points, a.closed), edges(&b.points, b.closed));
    ea.iter()
        .any(|sa| eb.iter().any(|sb| lseg_intersection(sa, sb).is_some()))
}

pub fn path_map(p: &Path, by: Point, f: fn(Point, Point) -> Result<Point>) -> Result<Path> {
    Ok(Path {
        closed: p.closed,
        points: p.points.iter().map(|q| f(*q, by)).collect::<Result<_>>()?,
    })
}

// ---- circles ----

pub fn circle_area(c: &Circle) -> Result<f64> {
    mul(mul(c.radius, c.radius)?, std::f64::consts::PI)
}

pub fn circles_same(a: &Circle, b: &Circle) -> bool {
    ((a.radius.is_nan() && b.radius.is_nan()) || fp_eq(a.radius, b.radius))
        && points_equal(a.center, b.center)
}

/// A distance less a radius: 0 when negative, NaN kept.
pub fn not_below_zero(d: f64) -> f64 {
    if d < 0.0 { 0.0 } else { d }
}

pub fn circle_distance(a: &Circle, b: &Circle) -> f64 {
    not_below_zero(distance(a.center, b.center) - (a.radius + b.radius))
}

pub fn circle_distance_to_point(c: &Circle, p: Point) -> f64 {
    not_below_zero(distance(p, c.center) - c.radius)
}

pub fn circle_contains(c: &Circle, p: Point) -> bool {
    distance(c.center, p) <= c.radius
}

pub fn circle_of_box(b: &GeoBox) -> Result<Circle> {
    let center = box_center(b)?;
    Ok(Circle {
        center,
        radius: distance(center, b.high),
    })
}

/// `polygon(n, circle)`: `n` points on the circle.
pub fn polygon_of_circle(n: i32, c: &Circle) -> Result<Polygon> {
    if fp_zero(c.radius) {
        return Err(SqlError::new(
            "0A000",
            "cannot convert circle with radius zero to polygon",
        ));
    }
    if n < 2 {
        return Err(SqlError::new("22023", "must request at least 2 points"));
    }
    let step = div(2.0 * std::f64::consts::PI, f64::from(n))?;
    let mut points = Vec::with_capacity(n as usize);
    for i in 0..n {
        let angle = mul(step, f64::from(i))?;
        points.push(Point::new(
            mi(c.center.x, mul(c.radius, angle.cos())?)?,
            pl(c.center.y, mul(c.radius, angle.sin())?)?,
        ));
    }
    Ok(Polygon::new(points))
}

/// `circle * point` and `circle / point`: the center by the point, the
/// radius by its distance from the origin.
pub fn circle_scale(c: &Circle, p: Point, divide: bool) -> Result<Circle> {
    let scale = hypot(p.x, p.y);
    Ok(if divide {
        Circle {
            center: point_div(c.center, p)?,
            radius: div(c.radius, scale)?,
        }
    } else {
        Circle {
            center: point_mul(c.center, p)?,
            radius: mul(c.radius, scale)?,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the crossing test finds points inside, outside and on the
    // edge of a square, as PostgreSQL's `point_inside` does.
    #[test]
    fn points_inside_a_square() {
        let square = [
            Point::new(0.0, 0.0),
            Point::new(0.0, 2.0),
            Point::new(2.0, 2.0),
            Point::new(2.0, 0.0),
        ];
        assert!(point_inside(Point::new(1.0, 1.0), &square));
        assert!(point_inside(Point::new(0.0, 1.0), &square));
        assert!(!point_inside(Point::new(3.0, 1.0), &square));
        assert!(!point_inside(Point::new(-1.0, 2.0), &square));
    }

    // Proves a segment's closest point to a point off its ends is its
    // end, and the perpendicular foot otherwise.
    #[test]
    fn closest_points_of_segments() {
        let s = Lseg([Point::new(0.0, 0.0), Point::new(2.0, 0.0)]);
        assert_eq!(
            lseg_closest(&s, Point::new(1.0, 3.0)),
            (Point::new(1.0, 0.0), 3.0)
        );
        assert_eq!(
            lseg_closest(&s, Point::new(5.0, 4.0)),
            (Point::new(2.0, 0.0), 5.0)
        );
    }

    // Proves the complex-number division of points and its zero divisor.
    #[test]
    fn points_divide_as_complex_numbers() {
        let q = point_div(Point::new(1.0, 2.0), Point::new(0.0, 1.0)).unwrap();
        assert_eq!(q, Point::new(2.0, -1.0));
        assert_eq!(
            point_div(Point::new(1.0, 2.0), Point::default())
                .unwrap_err()
                .code,
            "22012"
        );
    }
}
