//! The geometric types as SQL sees them: which operator or function a
//! call of them is ([`bind_operator`], [`bind_prefix`], [`bind_call`]),
//! its result type and its value, and the casts among them ([`cast`]).
//! Values and text forms are folio-row's (`geometry.rs`,
//! `geometry_text.rs`); what each call computes is
//! `geometry_operators.rs`.
//!
//! Every operator and function is one row of [`SIGNATURES`]: its name
//! (an operator's symbol, or a function's name), its parameter types, its
//! result type and its evaluation, as PostgreSQL 15's `pg_operator` and
//! `pg_proc` list them. A call binds to the first row of its name whose
//! parameters its arguments' types fit: a geometric argument its own
//! kind, a number a float8 (or an int4) parameter, and a quoted literal
//! any parameter, the kind of the other operand first (`p <-> '(1,2)'`
//! is two points). A call with a geometric argument and no row is
//! 42883, as PostgreSQL's `operator does not exist: point = point` (the
//! geometric types have no btree operators: no `=` on points, no ORDER
//! BY of them). Every call is strict: NULL in, NULL out; the
//! closest-point operators (`##`) and the intersection point (`#`) are
//! NULL where there is none.
//!
//! The casts PostgreSQL has among these types are the one-argument
//! functions named after a type (`box(circle)`, `polygon(path)`, ...):
//! [`cast`] runs those rows. `point` to `box`, `path` to `polygon`,
//! `box` to `polygon` and `polygon` to `path` are also assignment casts.

use crate::error::SqlError;
use crate::functions::{Func, no_operator};
use crate::geometry_operators as ops;
use crate::scalar::{Columns, Scalar, fit_unknown};
use folio_row::geometry::{
    Circle, GeoBox, GeoKind, Geometry, Line, Lseg, Path, Point, Polygon, fp_eq, fp_ge, fp_gt,
    fp_le, fp_lt, fp_ne, fp_zero, points_equal,
};
use folio_row::{SqlType, Value};
use sqlparser::ast::{BinaryOperator, Subscript, UnaryOperator};

/// A parameter or result type of a row of [`SIGNATURES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    Point,
    Lseg,
    Box,
    Line,
    Path,
    Polygon,
    Circle,
    F8,
    Int4,
    Bool,
}

impl Param {
    fn ty(self) -> SqlType {
        match self {
            Param::Point => SqlType::Geo(GeoKind::Point),
            Param::Lseg => SqlType::Geo(GeoKind::Lseg),
            Param::Box => SqlType::Geo(GeoKind::Box),
            Param::Line => SqlType::Geo(GeoKind::Line),
            Param::Path => SqlType::Geo(GeoKind::Path),
            Param::Polygon => SqlType::Geo(GeoKind::Polygon),
            Param::Circle => SqlType::Geo(GeoKind::Circle),
            Param::F8 => SqlType::Float8,
            Param::Int4 => SqlType::Int4,
            Param::Bool => SqlType::Bool,
        }
    }

    /// Whether an argument of type `t` fits (a number a float8 or int4
    /// parameter, by the implicit casts).
    fn fits(self, t: SqlType) -> bool {
        match self {
            Param::F8 => matches!(
                t,
                SqlType::Int2
                    | SqlType::Int4
                    | SqlType::Int8
                    | SqlType::Float4
                    | SqlType::Float8
                    | SqlType::Numeric(_)
            ),
            Param::Int4 => matches!(t, SqlType::Int2 | SqlType::Int4),
            p => p.ty() == t,
        }
    }
}

type Eval = fn(&[Value]) -> Result<Value, SqlError>;

/// One operator or function: a row of [`SIGNATURES`].
#[derive(Debug)]
pub struct Signature {
    pub name: &'static str,
    pub params: &'static [Param],
    pub ret: Param,
    eval: Eval,
}

/// Rows are compared as the rows they are (each is one static).
impl PartialEq for Signature {
    fn eq(&self, other: &Signature) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Signature {}

fn internal(v: &Value) -> SqlError {
    SqlError::new(
        "XX000",
        format!("a geometric call got a {} value", v.type_name()),
    )
}

fn geo(v: &Value) -> Result<&Geometry, SqlError> {
    match v {
        Value::Geo(g) => Ok(g),
        other => Err(internal(other)),
    }
}

fn pt(v: &Value) -> Result<Point, SqlError> {
    match geo(v)? {
        Geometry::Point(p) => Ok(*p),
        _ => Err(internal(v)),
    }
}

fn ls(v: &Value) -> Result<Lseg, SqlError> {
    match geo(v)? {
        Geometry::Lseg(l) => Ok(*l),
        _ => Err(internal(v)),
    }
}

fn bx(v: &Value) -> Result<GeoBox, SqlError> {
    match geo(v)? {
        Geometry::Box(b) => Ok(*b),
        _ => Err(internal(v)),
    }
}

fn ln(v: &Value) -> Result<Line, SqlError> {
    match geo(v)? {
        Geometry::Line(l) => Ok(*l),
        _ => Err(internal(v)),
    }
}

fn pa(v: &Value) -> Result<&Path, SqlError> {
    match geo(v)? {
        Geometry::Path(p) => Ok(p),
        _ => Err(internal(v)),
    }
}

fn pg(v: &Value) -> Result<&Polygon, SqlError> {
    match geo(v)? {
        Geometry::Polygon(p) => Ok(p),
        _ => Err(internal(v)),
    }
}

fn ci(v: &Value) -> Result<Circle, SqlError> {
    match geo(v)? {
        Geometry::Circle(c) => Ok(*c),
        _ => Err(internal(v)),
    }
}

fn f8(v: &Value) -> Result<f64, SqlError> {
    match v {
        Value::Float8(f) => Ok(*f),
        other => Err(internal(other)),
    }
}

fn i4(v: &Value) -> Result<i32, SqlError> {
    match v {
        Value::Int4(i) => Ok(*i),
        other => Err(internal(other)),
    }
}

/// Item `i` of `items` (from 0), `None` past them.
fn nth<T: Copy>(items: &[T], i: &Value) -> Result<Option<T>, SqlError> {
    Ok(usize::try_from(i4(i)?)
        .ok()
        .and_then(|i| items.get(i).copied()))
}

fn value(g: Geometry) -> Value {
    Value::Geo(Box::new(g))
}

fn point(p: Point) -> Value {
    value(Geometry::Point(p))
}

fn boxed(b: GeoBox) -> Value {
    value(Geometry::Box(b))
}

fn circle(c: Circle) -> Value {
    value(Geometry::Circle(c))
}

fn path(p: Path) -> Value {
    value(Geometry::Path(p))
}

fn polygon(p: Polygon) -> Value {
    value(Geometry::Polygon(p))
}

fn lseg(l: Lseg) -> Value {
    value(Geometry::Lseg(l))
}

/// A closest point: NULL where the distance is NaN.
fn closest((p, d): (Point, f64)) -> Value {
    if d.is_nan() { Value::Null } else { point(p) }
}

fn b(v: bool) -> Result<Value, SqlError> {
    Ok(Value::Bool(v))
}

fn f(v: f64) -> Result<Value, SqlError> {
    Ok(Value::Float8(v))
}

macro_rules! sig {
    ($name:literal, [$($p:ident),*], $ret:ident, $eval:expr) => {
        Signature { name: $name, params: &[$(Param::$p),*], ret: Param::$ret, eval: $eval }
    };
}

/// PostgreSQL 15's geometric operators and functions (module doc).
pub static SIGNATURES: &[Signature] = &[
    // Arithmetic.
    sig!("+", [Point, Point], Point, |v| Ok(point(ops::point_add(
        pt(&v[0])?,
        pt(&v[1])?
    )?))),
    sig!("-", [Point, Point], Point, |v| Ok(point(ops::point_sub(
        pt(&v[0])?,
        pt(&v[1])?
    )?))),
    sig!("*", [Point, Point], Point, |v| Ok(point(ops::point_mul(
        pt(&v[0])?,
        pt(&v[1])?
    )?))),
    sig!("/", [Point, Point], Point, |v| Ok(point(ops::point_div(
        pt(&v[0])?,
        pt(&v[1])?
    )?))),
    sig!("+", [Box, Point], Box, |v| Ok(boxed(ops::box_map(
        &bx(&v[0])?,
        pt(&v[1])?,
        ops::point_add
    )?))),
    sig!("-", [Box, Point], Box, |v| Ok(boxed(ops::box_map(
        &bx(&v[0])?,
        pt(&v[1])?,
        ops::point_sub
    )?))),
    sig!("*", [Box, Point], Box, |v| Ok(boxed(ops::box_map(
        &bx(&v[0])?,
        pt(&v[1])?,
        ops::point_mul
    )?))),
    sig!("/", [Box, Point], Box, |v| Ok(boxed(ops::box_map(
        &bx(&v[0])?,
        pt(&v[1])?,
        ops::point_div
    )?))),
    sig!("+", [Path, Point], Path, |v| Ok(path(ops::path_map(
        pa(&v[0])?,
        pt(&v[1])?,
        ops::point_add
    )?))),
    sig!("-", [Path, Point], Path, |v| Ok(path(ops::path_map(
        pa(&v[0])?,
        pt(&v[1])?,
        ops::point_sub
    )?))),
    sig!("*", [Path, Point], Path, |v| Ok(path(ops::path_map(
        pa(&v[0])?,
        pt(&v[1])?,
        ops::point_mul
    )?))),
    sig!("/", [Path, Point], Path, |v| Ok(path(ops::path_map(
        pa(&v[0])?,
        pt(&v[1])?,
        ops::point_div
    )?))),
    sig!("+", [Path, Path], Path, |v| {
        let (a, b) = (pa(&v[0])?, pa(&v[1])?);
        if a.closed || b.closed {
            return Ok(Value::Null);
        }
        Ok(path(Path {
            closed: false,
            points: [&a.points[..], &b.points[..]].concat(),
        }))
    }),
    sig!("+", [Circle, Point], Circle, |v| {
        let c = ci(&v[0])?;
        Ok(circle(Circle {
            center: ops::point_add(c.center, pt(&v[1])?)?,
            ..c
        }))
    }),
    sig!("-", [Circle, Point], Circle, |v| {
        let c = ci(&v[0])?;
        Ok(circle(Circle {
            center: ops::point_sub(c.center, pt(&v[1])?)?,
            ..c
        }))
    }),
    sig!("*", [Circle, Point], Circle, |v| Ok(circle(
        ops::circle_scale(&ci(&v[0])?, pt(&v[1])?, false)?
    ))),
    sig!("/", [Circle, Point], Circle, |v| Ok(circle(
        ops::circle_scale(&ci(&v[0])?, pt(&v[1])?, true)?
    ))),
    // Distances.
    sig!("<->", [Point, Point], F8, |v| f(ops::distance(
        pt(&v[0])?,
        pt(&v[1])?
    ))),
    sig!("<->", [Point, Lseg], F8, |v| f(ops::lseg_closest(
        &ls(&v[1])?,
        pt(&v[0])?
    )
    .1)),
    sig!("<->", [Point, Path], F8, |v| Ok(
        ops::path_distance_to_point(pa(&v[1])?, pt(&v[0])?).map_or(Value::Null, Value::Float8)
    )),
    sig!("<->", [Point, Box], F8, |v| f(ops::box_closest(
        &bx(&v[1])?,
        pt(&v[0])?
    )
    .1)),
    sig!("<->", [Point, Polygon], F8, |v| f(
        ops::polygon_distance_to_point(pg(&v[1])?, pt(&v[0])?)
    )),
    sig!("<->", [Point, Line], F8, |v| f(ops::line_closest(
        &ln(&v[1])?,
        pt(&v[0])?
    )
    .1)),
    sig!("<->", [Point, Circle], F8, |v| f(
        ops::circle_distance_to_point(&ci(&v[1])?, pt(&v[0])?)
    )),
    sig!("<->", [Lseg, Point], F8, |v| f(ops::lseg_closest(
        &ls(&v[0])?,
        pt(&v[1])?
    )
    .1)),
    sig!("<->", [Lseg, Lseg], F8, |v| f(ops::lseg_lseg_closest(
        &ls(&v[0])?,
        &ls(&v[1])?
    )
    .1)),
    sig!("<->", [Lseg, Box], F8, |v| f(ops::box_lseg_closest(
        &bx(&v[1])?,
        &ls(&v[0])?
    )
    .1)),
    sig!("<->", [Lseg, Line], F8, |v| f(ops::lseg_line_closest(
        &ls(&v[0])?,
        &ln(&v[1])?
    )
    .1)),
    sig!("<->", [Path, Point], F8, |v| Ok(
        ops::path_distance_to_point(pa(&v[0])?, pt(&v[1])?).map_or(Value::Null, Value::Float8)
    )),
    sig!("<->", [Path, Path], F8, |v| {
        let (a, b) = (pa(&v[0])?, pa(&v[1])?);
        let d = ops::lsegs_distance(
            &ops::edges(&a.points, a.closed),
            &ops::edges(&b.points, b.closed),
        );
        Ok(d.map_or(Value::Null, Value::Float8))
    }),
    sig!("<->", [Box, Point], F8, |v| f(ops::box_closest(
        &bx(&v[0])?,
        pt(&v[1])?
    )
    .1)),
    sig!("<->", [Box, Lseg], F8, |v| f(ops::box_lseg_closest(
        &bx(&v[0])?,
        &ls(&v[1])?
    )
    .1)),
    sig!("<->", [Box, Box], F8, |v| f(ops::distance(
        ops::box_center(&bx(&v[0])?)?,
        ops::box_center(&bx(&v[1])?)?
    ))),
    sig!("<->", [Polygon, Point], F8, |v| f(
        ops::polygon_distance_to_point(pg(&v[0])?, pt(&v[1])?)
    )),
    sig!("<->", [Polygon, Polygon], F8, |v| f(ops::polygon_distance(
        pg(&v[0])?,
        pg(&v[1])?
    ))),
    sig!("<->", [Polygon, Circle], F8, |v| {
        let c = ci(&v[1])?;
        f(ops::not_below_zero(
            ops::polygon_distance_to_point(pg(&v[0])?, c.center) - c.radius,
        ))
    }),
    sig!("<->", [Line, Point], F8, |v| f(ops::line_closest(
        &ln(&v[0])?,
        pt(&v[1])?
    )
    .1)),
    sig!("<->", [Line, Lseg], F8, |v| f(ops::lseg_line_closest(
        &ls(&v[1])?,
        &ln(&v[0])?
    )
    .1)),
    sig!("<->", [Line, Line], F8, |v| f(ops::line_distance(
        &ln(&v[0])?,
        &ln(&v[1])?
    ))),
    sig!("<->", [Circle, Point], F8, |v| f(
        ops::circle_distance_to_point(&ci(&v[0])?, pt(&v[1])?)
    )),
    sig!("<->", [Circle, Polygon], F8, |v| {
        let c = ci(&v[0])?;
        f(ops::not_below_zero(
            ops::polygon_distance_to_point(pg(&v[1])?, c.center) - c.radius,
        ))
    }),
    sig!("<->", [Circle, Circle], F8, |v| f(ops::circle_distance(
        &ci(&v[0])?,
        &ci(&v[1])?
    ))),
    // Closest points.
    sig!("##", [Point, Lseg], Point, |v| Ok(closest(
        ops::lseg_closest(&ls(&v[1])?, pt(&v[0])?)
    ))),
    sig!("##", [Point, Box], Point, |v| Ok(closest(
        ops::box_closest(&bx(&v[1])?, pt(&v[0])?)
    ))),
    sig!("##", [Point, Line], Point, |v| Ok(closest(
        ops::line_closest(&ln(&v[1])?, pt(&v[0])?)
    ))),
    // Parallel ones (of exactly one slope) have none.
    sig!("##", [Lseg, Lseg], Point, |v| {
        let (a, c) = (ls(&v[0])?, ls(&v[1])?);
        if ops::lseg_slope(&a) == ops::lseg_slope(&c) {
            return Ok(Value::Null);
        }
        Ok(closest(ops::lseg_lseg_closest(&c, &a)))
    }),
    sig!("##", [Lseg, Box], Point, |v| Ok(closest(
        ops::box_lseg_closest(&bx(&v[1])?, &ls(&v[0])?)
    ))),
    sig!("##", [Line, Lseg], Point, |v| {
        let (l, s) = (ln(&v[0])?, ls(&v[1])?);
        if ops::lseg_slope(&s) == ops::line_slope(&l) {
            return Ok(Value::Null);
        }
        Ok(closest(ops::lseg_line_closest(&s, &l)))
    }),
    // Intersections.
    sig!("#", [Lseg, Lseg], Point, |v| Ok(ops::lseg_intersection(
        &ls(&v[0])?,
        &ls(&v[1])?
    )
    .map_or(Value::Null, point))),
    sig!("#", [Box, Box], Box, |v| Ok(ops::box_intersection(
        &bx(&v[0])?,
        &bx(&v[1])?
    )
    .map_or(Value::Null, boxed))),
    sig!("#", [Line, Line], Point, |v| Ok(ops::line_intersection(
        &ln(&v[0])?,
        &ln(&v[1])?
    )
    .map_or(Value::Null, point))),
    sig!("?#", [Lseg, Lseg], Bool, |v| b(ops::lseg_intersection(
        &ls(&v[0])?,
        &ls(&v[1])?
    )
    .is_some())),
    sig!("?#", [Lseg, Box], Bool, |v| b(ops::box_lseg_intersection(
        &bx(&v[1])?,
        &ls(&v[0])?
    )
    .is_some())),
    sig!("?#", [Lseg, Line], Bool, |v| b(
        ops::lseg_line_intersection(&ls(&v[0])?, &ln(&v[1])?).is_some()
    )),
    sig!("?#", [Path, Path], Bool, |v| b(ops::paths_intersect(
        pa(&v[0])?,
        pa(&v[1])?
    ))),
    sig!("?#", [Box, Box], Bool, |v| b(ops::boxes_overlap(
        &bx(&v[0])?,
        &bx(&v[1])?
    ))),
    sig!("?#", [Line, Box], Bool, |v| b(ops::line_meets_box(
        &ln(&v[0])?,
        &bx(&v[1])?
    ))),
    sig!("?#", [Line, Line], Bool, |v| b(ops::line_intersection(
        &ln(&v[0])?,
        &ln(&v[1])?
    )
    .is_some())),
    // Positions of points.
    sig!("<<", [Point, Point], Bool, |v| b(fp_lt(
        pt(&v[0])?.x,
        pt(&v[1])?.x
    ))),
    sig!(">>", [Point, Point], Bool, |v| b(fp_gt(
        pt(&v[0])?.x,
        pt(&v[1])?.x
    ))),
    sig!("<<|", [Point, Point], Bool, |v| b(fp_lt(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!("|>>", [Point, Point], Bool, |v| b(fp_gt(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!("<^", [Point, Point], Bool, |v| b(fp_lt(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!(">^", [Point, Point], Bool, |v| b(fp_gt(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!("?-", [Point, Point], Bool, |v| b(fp_eq(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!("?|", [Point, Point], Bool, |v| b(fp_eq(
        pt(&v[0])?.x,
        pt(&v[1])?.x
    ))),
    sig!("~=", [Point, Point], Bool, |v| b(points_equal(
        pt(&v[0])?,
        pt(&v[1])?
    ))),
    sig!("<>", [Point, Point], Bool, |v| b(!points_equal(
        pt(&v[0])?,
        pt(&v[1])?
    ))),
    // Containment.
    sig!("<@", [Point, Lseg], Bool, |v| b(ops::lseg_contains(
        &ls(&v[1])?,
        pt(&v[0])?
    ))),
    sig!("<@", [Point, Path], Bool, |v| b(ops::point_on_path(
        pt(&v[0])?,
        pa(&v[1])?
    ))),
    sig!("<@", [Point, Box], Bool, |v| b(ops::box_contains(
        &bx(&v[1])?,
        pt(&v[0])?
    ))),
    sig!("<@", [Point, Polygon], Bool, |v| b(ops::point_inside(
        pt(&v[0])?,
        &pg(&v[1])?.points
    ))),
    sig!("<@", [Point, Line], Bool, |v| b(ops::on_line(
        pt(&v[0])?,
        &ln(&v[1])?
    ))),
    sig!("<@", [Point, Circle], Bool, |v| b(ops::circle_contains(
        &ci(&v[1])?,
        pt(&v[0])?
    ))),
    sig!("<@", [Lseg, Box], Bool, |v| {
        let (s, bb) = (ls(&v[0])?, bx(&v[1])?);
        b(ops::box_contains(&bb, s.0[0]) && ops::box_contains(&bb, s.0[1]))
    }),
    sig!("<@", [Lseg, Line], Bool, |v| {
        let (s, l) = (ls(&v[0])?, ln(&v[1])?);
        b(ops::on_line(s.0[0], &l) && ops::on_line(s.0[1], &l))
    }),
    sig!("<@", [Box, Box], Bool, |v| b(ops::box_contains_box(
        &bx(&v[1])?,
        &bx(&v[0])?
    ))),
    sig!("<@", [Polygon, Polygon], Bool, |v| b(
        ops::polygon_contains(pg(&v[1])?, pg(&v[0])?)
    )),
    sig!("<@", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_le(
            ops::distance(a.center, c.center) + a.radius,
            c.radius,
        ))
    }),
    sig!("@>", [Path, Point], Bool, |v| b(ops::point_on_path(
        pt(&v[1])?,
        pa(&v[0])?
    ))),
    sig!("@>", [Box, Point], Bool, |v| b(ops::box_contains(
        &bx(&v[0])?,
        pt(&v[1])?
    ))),
    sig!("@>", [Box, Box], Bool, |v| b(ops::box_contains_box(
        &bx(&v[0])?,
        &bx(&v[1])?
    ))),
    sig!("@>", [Polygon, Point], Bool, |v| b(ops::point_inside(
        pt(&v[1])?,
        &pg(&v[0])?.points
    ))),
    sig!("@>", [Polygon, Polygon], Bool, |v| b(
        ops::polygon_contains(pg(&v[0])?, pg(&v[1])?)
    )),
    sig!("@>", [Circle, Point], Bool, |v| b(ops::circle_contains(
        &ci(&v[0])?,
        pt(&v[1])?
    ))),
    sig!("@>", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_le(
            ops::distance(a.center, c.center) + c.radius,
            a.radius,
        ))
    }),
    // Boxes.
    sig!("&&", [Box, Box], Bool, |v| b(ops::boxes_overlap(
        &bx(&v[0])?,
        &bx(&v[1])?
    ))),
    sig!("<<", [Box, Box], Bool, |v| b(fp_lt(
        bx(&v[0])?.high.x,
        bx(&v[1])?.low.x
    ))),
    sig!("&<", [Box, Box], Bool, |v| b(fp_le(
        bx(&v[0])?.high.x,
        bx(&v[1])?.high.x
    ))),
    sig!(">>", [Box, Box], Bool, |v| b(fp_gt(
        bx(&v[0])?.low.x,
        bx(&v[1])?.high.x
    ))),
    sig!("&>", [Box, Box], Bool, |v| b(fp_ge(
        bx(&v[0])?.low.x,
        bx(&v[1])?.low.x
    ))),
    sig!("<<|", [Box, Box], Bool, |v| b(fp_lt(
        bx(&v[0])?.high.y,
        bx(&v[1])?.low.y
    ))),
    sig!("&<|", [Box, Box], Bool, |v| b(fp_le(
        bx(&v[0])?.high.y,
        bx(&v[1])?.high.y
    ))),
    sig!("|>>", [Box, Box], Bool, |v| b(fp_gt(
        bx(&v[0])?.low.y,
        bx(&v[1])?.high.y
    ))),
    sig!("|&>", [Box, Box], Bool, |v| b(fp_ge(
        bx(&v[0])?.low.y,
        bx(&v[1])?.low.y
    ))),
    sig!("<^", [Box, Box], Bool, |v| b(fp_le(
        bx(&v[0])?.high.y,
        bx(&v[1])?.low.y
    ))),
    sig!(">^", [Box, Box], Bool, |v| b(fp_ge(
        bx(&v[0])?.low.y,
        bx(&v[1])?.high.y
    ))),
    sig!("~=", [Box, Box], Bool, |v| b(ops::boxes_same(
        &bx(&v[0])?,
        &bx(&v[1])?
    ))),
    sig!("=", [Box, Box], Bool, |v| b(fp_eq(
        ops::box_area(&bx(&v[0])?)?,
        ops::box_area(&bx(&v[1])?)?
    ))),
    sig!("<", [Box, Box], Bool, |v| b(fp_lt(
        ops::box_area(&bx(&v[0])?)?,
        ops::box_area(&bx(&v[1])?)?
    ))),
    sig!("<=", [Box, Box], Bool, |v| b(fp_le(
        ops::box_area(&bx(&v[0])?)?,
        ops::box_area(&bx(&v[1])?)?
    ))),
    sig!(">", [Box, Box], Bool, |v| b(fp_gt(
        ops::box_area(&bx(&v[0])?)?,
        ops::box_area(&bx(&v[1])?)?
    ))),
    sig!(">=", [Box, Box], Bool, |v| b(fp_ge(
        ops::box_area(&bx(&v[0])?)?,
        ops::box_area(&bx(&v[1])?)?
    ))),
    sig!("@@", [Box], Point, |v| Ok(point(ops::box_center(&bx(
        &v[0]
    )?)?))),
    // Segments.
    sig!("=", [Lseg, Lseg], Bool, |v| b(ops::lsegs_equal(
        &ls(&v[0])?,
        &ls(&v[1])?
    ))),
    sig!("<>", [Lseg, Lseg], Bool, |v| b(!ops::lsegs_equal(
        &ls(&v[0])?,
        &ls(&v[1])?
    ))),
    sig!("<", [Lseg, Lseg], Bool, |v| b(fp_lt(
        ops::lseg_length(&ls(&v[0])?),
        ops::lseg_length(&ls(&v[1])?)
    ))),
    sig!("<=", [Lseg, Lseg], Bool, |v| b(fp_le(
        ops::lseg_length(&ls(&v[0])?),
        ops::lseg_length(&ls(&v[1])?)
    ))),
    sig!(">", [Lseg, Lseg], Bool, |v| b(fp_gt(
        ops::lseg_length(&ls(&v[0])?),
        ops::lseg_length(&ls(&v[1])?)
    ))),
    sig!(">=", [Lseg, Lseg], Bool, |v| b(fp_ge(
        ops::lseg_length(&ls(&v[0])?),
        ops::lseg_length(&ls(&v[1])?)
    ))),
    sig!("?-|", [Lseg, Lseg], Bool, |v| b(ops::lseg_perpendicular(
        &ls(&v[0])?,
        &ls(&v[1])?
    ))),
    sig!("?||", [Lseg, Lseg], Bool, |v| b(ops::lseg_parallel(
        &ls(&v[0])?,
        &ls(&v[1])?
    ))),
    sig!("?-", [Lseg], Bool, |v| {
        let s = ls(&v[0])?;
        b(fp_eq(s.0[0].y, s.0[1].y))
    }),
    sig!("?|", [Lseg], Bool, |v| {
        let s = ls(&v[0])?;
        b(fp_eq(s.0[0].x, s.0[1].x))
    }),
    sig!("@-@", [Lseg], F8, |v| f(ops::lseg_length(&ls(&v[0])?))),
    sig!("@@", [Lseg], Point, |v| Ok(point(ops::lseg_center(&ls(
        &v[0]
    )?)?))),
    // Lines.
    sig!("=", [Line, Line], Bool, |v| b(ops::lines_equal(
        &ln(&v[0])?,
        &ln(&v[1])?
    ))),
    sig!("?-|", [Line, Line], Bool, |v| b(ops::lines_perpendicular(
        &ln(&v[0])?,
        &ln(&v[1])?
    ))),
    sig!("?||", [Line, Line], Bool, |v| b(ops::line_intersection(
        &ln(&v[0])?,
        &ln(&v[1])?
    )
    .is_none())),
    sig!("?-", [Line], Bool, |v| b(fp_zero(ln(&v[0])?.a))),
    sig!("?|", [Line], Bool, |v| b(fp_zero(ln(&v[0])?.b))),
    // Paths.
    sig!("#", [Path], Int4, |v| Ok(Value::Int4(
        pa(&v[0])?.points.len() as i32
    ))),
    sig!("@-@", [Path], F8, |v| f(ops::path_length(pa(&v[0])?)?)),
    sig!("=", [Path, Path], Bool, |v| b(
        pa(&v[0])?.points.len() == pa(&v[1])?.points.len()
    )),
    sig!("<", [Path, Path], Bool, |v| b(
        pa(&v[0])?.points.len() < pa(&v[1])?.points.len()
    )),
    sig!("<=", [Path, Path], Bool, |v| b(
        pa(&v[0])?.points.len() <= pa(&v[1])?.points.len()
    )),
    sig!(">", [Path, Path], Bool, |v| b(
        pa(&v[0])?.points.len() > pa(&v[1])?.points.len()
    )),
    sig!(">=", [Path, Path], Bool, |v| b(
        pa(&v[0])?.points.len() >= pa(&v[1])?.points.len()
    )),
    // Polygons: positions by their bounding boxes, exactly.
    sig!("#", [Polygon], Int4, |v| Ok(Value::Int4(
        pg(&v[0])?.points.len() as i32
    ))),
    sig!("@@", [Polygon], Point, |v| Ok(point(
        ops::circle_of_points(&pg(&v[0])?.points)?.center
    ))),
    sig!("&&", [Polygon, Polygon], Bool, |v| b(
        ops::polygons_overlap(pg(&v[0])?, pg(&v[1])?)
    )),
    sig!("~=", [Polygon, Polygon], Bool, |v| b(ops::polygons_same(
        pg(&v[0])?,
        pg(&v[1])?
    ))),
    sig!("<<", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .high
        .x
        < pg(&v[1])?.bound.low.x)),
    sig!("&<", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .high
        .x
        <= pg(&v[1])?.bound.high.x)),
    sig!(">>", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .low
        .x
        > pg(&v[1])?.bound.high.x)),
    sig!("&>", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .low
        .x
        >= pg(&v[1])?.bound.low.x)),
    sig!("<<|", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .high
        .y
        < pg(&v[1])?.bound.low.y)),
    sig!("&<|", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .high
        .y
        <= pg(&v[1])?.bound.high.y)),
    sig!("|>>", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .low
        .y
        > pg(&v[1])?.bound.high.y)),
    sig!("|&>", [Polygon, Polygon], Bool, |v| b(pg(&v[0])?
        .bound
        .low
        .y
        >= pg(&v[1])?.bound.low.y)),
    // Circles: positions by their extents, comparisons by area.
    sig!("@@", [Circle], Point, |v| Ok(point(ci(&v[0])?.center))),
    sig!("~=", [Circle, Circle], Bool, |v| b(ops::circles_same(
        &ci(&v[0])?,
        &ci(&v[1])?
    ))),
    sig!("&&", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_le(
            ops::distance(a.center, c.center),
            a.radius + c.radius,
        ))
    }),
    sig!("<<", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_lt(a.center.x + a.radius, c.center.x - c.radius))
    }),
    sig!("&<", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_le(a.center.x + a.radius, c.center.x + c.radius))
    }),
    sig!(">>", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_gt(a.center.x - a.radius, c.center.x + c.radius))
    }),
    sig!("&>", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_ge(a.center.x - a.radius, c.center.x - c.radius))
    }),
    sig!("<<|", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_lt(a.center.y + a.radius, c.center.y - c.radius))
    }),
    sig!("&<|", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_le(a.center.y + a.radius, c.center.y + c.radius))
    }),
    sig!("|>>", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_gt(a.center.y - a.radius, c.center.y + c.radius))
    }),
    sig!("|&>", [Circle, Circle], Bool, |v| {
        let (a, c) = (ci(&v[0])?, ci(&v[1])?);
        b(fp_ge(a.center.y - a.radius, c.center.y - c.radius))
    }),
    sig!("=", [Circle, Circle], Bool, |v| b(fp_eq(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    sig!("<>", [Circle, Circle], Bool, |v| b(fp_ne(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    sig!("<", [Circle, Circle], Bool, |v| b(fp_lt(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    sig!("<=", [Circle, Circle], Bool, |v| b(fp_le(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    sig!(">", [Circle, Circle], Bool, |v| b(fp_gt(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    sig!(">=", [Circle, Circle], Bool, |v| b(fp_ge(
        ops::circle_area(&ci(&v[0])?)?,
        ops::circle_area(&ci(&v[1])?)?
    ))),
    // Subscripts: a point's and a line's coordinates, a segment's and a
    // box's points (`[0]`, `[1]`, ...); NULL past them.
    sig!("[]", [Point, Int4], F8, |v| {
        let p = pt(&v[0])?;
        Ok(nth(&[p.x, p.y], &v[1])?.map_or(Value::Null, Value::Float8))
    }),
    sig!("[]", [Line, Int4], F8, |v| {
        let l = ln(&v[0])?;
        Ok(nth(&[l.a, l.b, l.c], &v[1])?.map_or(Value::Null, Value::Float8))
    }),
    sig!("[]", [Lseg, Int4], Point, |v| Ok(nth(
        &ls(&v[0])?.0,
        &v[1]
    )?
    .map_or(Value::Null, point))),
    sig!("[]", [Box, Int4], Point, |v| {
        let bb = bx(&v[0])?;
        Ok(nth(&[bb.high, bb.low], &v[1])?.map_or(Value::Null, point))
    }),
    // Functions.
    sig!("area", [Box], F8, |v| f(ops::box_area(&bx(&v[0])?)?)),
    sig!("area", [Circle], F8, |v| f(ops::circle_area(&ci(&v[0])?)?)),
    sig!("area", [Path], F8, |v| Ok(
        ops::path_area(pa(&v[0])?)?.map_or(Value::Null, Value::Float8)
    )),
    sig!("center", [Box], Point, |v| Ok(point(ops::box_center(
        &bx(&v[0])?
    )?))),
    sig!("center", [Circle], Point, |v| Ok(point(ci(&v[0])?.center))),
    sig!("diameter", [Circle], F8, |v| f(ops::mul(
        ci(&v[0])?.radius,
        2.0
    )?)),
    sig!("radius", [Circle], F8, |v| f(ci(&v[0])?.radius)),
    sig!("height", [Box], F8, |v| f(ops::box_height(&bx(&v[0])?)?)),
    sig!("width", [Box], F8, |v| f(ops::box_width(&bx(&v[0])?)?)),
    sig!("diagonal", [Box], Lseg, |v| {
        let bb = bx(&v[0])?;
        Ok(lseg(Lseg([bb.high, bb.low])))
    }),
    sig!("bound_box", [Box, Box], Box, |v| Ok(boxed(ops::bound_box(
        &bx(&v[0])?,
        &bx(&v[1])?
    )))),
    sig!("length", [Lseg], F8, |v| f(ops::lseg_length(&ls(&v[0])?))),
    sig!("length", [Path], F8, |v| f(ops::path_length(pa(&v[0])?)?)),
    sig!("npoints", [Path], Int4, |v| Ok(Value::Int4(
        pa(&v[0])?.points.len() as i32
    ))),
    sig!("npoints", [Polygon], Int4, |v| Ok(Value::Int4(
        pg(&v[0])?.points.len() as i32
    ))),
    sig!("isclosed", [Path], Bool, |v| b(pa(&v[0])?.closed)),
    sig!("isopen", [Path], Bool, |v| b(!pa(&v[0])?.closed)),
    sig!("pclose", [Path], Path, |v| Ok(path(Path {
        closed: true,
        ..pa(&v[0])?.clone()
    }))),
    sig!("popen", [Path], Path, |v| Ok(path(Path {
        closed: false,
        ..pa(&v[0])?.clone()
    }))),
    sig!("slope", [Point, Point], F8, |v| f(
        pt(&v[0])?.slope_to(pt(&v[1])?)
    )),
    sig!("ishorizontal", [Point, Point], Bool, |v| b(fp_eq(
        pt(&v[0])?.y,
        pt(&v[1])?.y
    ))),
    sig!("isvertical", [Point, Point], Bool, |v| b(fp_eq(
        pt(&v[0])?.x,
        pt(&v[1])?.x
    ))),
    sig!("ishorizontal", [Lseg], Bool, |v| {
        let s = ls(&v[0])?;
        b(fp_eq(s.0[0].y, s.0[1].y))
    }),
    sig!("isvertical", [Lseg], Bool, |v| {
        let s = ls(&v[0])?;
        b(fp_eq(s.0[0].x, s.0[1].x))
    }),
    sig!("ishorizontal", [Line], Bool, |v| b(fp_zero(ln(&v[0])?.a))),
    sig!("isvertical", [Line], Bool, |v| b(fp_zero(ln(&v[0])?.b))),
    sig!("isparallel", [Lseg, Lseg], Bool, |v| b(ops::lseg_parallel(
        &ls(&v[0])?,
        &ls(&v[1])?
    ))),
    sig!("isperp", [Lseg, Lseg], Bool, |v| b(
        ops::lseg_perpendicular(&ls(&v[0])?, &ls(&v[1])?)
    )),
    sig!("isparallel", [Line, Line], Bool, |v| b(
        ops::line_intersection(&ln(&v[0])?, &ln(&v[1])?).is_none()
    )),
    sig!("isperp", [Line, Line], Bool, |v| b(
        ops::lines_perpendicular(&ln(&v[0])?, &ln(&v[1])?)
    )),
    // Constructors and casts (the one-argument ones are PostgreSQL's casts).
    sig!("point", [F8, F8], Point, |v| Ok(point(Point::new(
        f8(&v[0])?,
        f8(&v[1])?
    )))),
    sig!("point", [Box], Point, |v| Ok(point(ops::box_center(&bx(
        &v[0]
    )?)?))),
    sig!("point", [Circle], Point, |v| Ok(point(ci(&v[0])?.center))),
    sig!("point", [Lseg], Point, |v| Ok(point(ops::lseg_center(
        &ls(&v[0])?
    )?))),
    sig!("poly_center", [Polygon], Point, |v| Ok(point(
        ops::circle_of_points(&pg(&v[0])?.points)?.center
    ))),
    sig!("point", [Polygon], Point, |v| Ok(point(
        ops::circle_of_points(&pg(&v[0])?.points)?.center
    ))),
    sig!("box", [Point], Box, |v| {
        let p = pt(&v[0])?;
        Ok(boxed(GeoBox { high: p, low: p }))
    }),
    sig!("box", [Point, Point], Box, |v| Ok(boxed(GeoBox::new(
        pt(&v[0])?,
        pt(&v[1])?
    )))),
    sig!("box", [Circle], Box, |v| Ok(boxed(ops::box_of_circle(
        &ci(&v[0])?
    )?))),
    sig!("box", [Polygon], Box, |v| Ok(boxed(pg(&v[0])?.bound))),
    sig!("circle", [Box], Circle, |v| Ok(circle(ops::circle_of_box(
        &bx(&v[0])?
    )?))),
    sig!("circle", [Point, F8], Circle, |v| Ok(circle(Circle {
        center: pt(&v[0])?,
        radius: f8(&v[1])?
    }))),
    sig!("circle", [Polygon], Circle, |v| Ok(circle(
        ops::circle_of_points(&pg(&v[0])?.points)?
    ))),
    sig!("lseg", [Box], Lseg, |v| {
        let bb = bx(&v[0])?;
        Ok(lseg(Lseg([bb.high, bb.low])))
    }),
    sig!("lseg", [Point, Point], Lseg, |v| Ok(lseg(Lseg([
        pt(&v[0])?,
        pt(&v[1])?
    ])))),
    sig!("line", [Point, Point], Line, |v| Ok(value(Geometry::Line(
        ops::line_of_points(pt(&v[0])?, pt(&v[1])?)?
    )))),
    sig!("path", [Polygon], Path, |v| Ok(path(Path {
        closed: true,
        points: pg(&v[0])?.points.clone()
    }))),
    sig!("polygon", [Box], Polygon, |v| Ok(polygon(
        ops::polygon_of_box(&bx(&v[0])?)
    ))),
    sig!("polygon", [Circle], Polygon, |v| Ok(polygon(
        ops::polygon_of_circle(12, &ci(&v[0])?)?
    ))),
    sig!("polygon", [Int4, Circle], Polygon, |v| Ok(polygon(
        ops::polygon_of_circle(i4(&v[0])?, &ci(&v[1])?)?
    ))),
    sig!("polygon", [Path], Polygon, |v| {
        let p = pa(&v[0])?;
        if !p.closed {
            return Err(SqlError::new(
                "22023",
                "open path cannot be converted to polygon",
            ));
        }
        Ok(polygon(Polygon::new(p.points.clone())))
    }),
];

fn is_geo(t: SqlType) -> bool {
    matches!(t, SqlType::Geo(_))
}

/// Whether `name` is a function here (`functions::exists`).
pub fn is_name(name: &str) -> bool {
    SIGNATURES
        .iter()
        .any(|s| s.name == name && s.name.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// The type of an operand, `None` for a quoted literal, NULL or `$n`.
fn typed(s: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    }
}

/// The first row of `name` the argument types fit (module doc); a
/// literal's parameter the other operand's kind first.
fn resolve(name: &str, types: &[Option<SqlType>]) -> Option<&'static Signature> {
    let rows = || {
        SIGNATURES.iter().filter(move |s| {
            s.name == name
                && s.params.len() == types.len()
                && s.params
                    .iter()
                    .zip(types)
                    .all(|(p, t)| t.is_none_or(|t| p.fits(t)))
        })
    };
    let known: Vec<SqlType> = types.iter().flatten().copied().collect();
    rows()
        .find(|s| {
            s.params
                .iter()
                .zip(types)
                .all(|(p, t)| t.is_some() || known.contains(&p.ty()))
        })
        .or_else(|| rows().next())
}

/// The arguments fitted to the row's parameters: literals read as their
/// type, numbers cast to float8.
fn fitted(
    sig: &'static Signature,
    args: Vec<Scalar>,
    types: &[Option<SqlType>],
) -> Result<Scalar, SqlError> {
    let args = args
        .into_iter()
        .zip(sig.params)
        .zip(types)
        .map(|((arg, p), t)| match t {
            Some(t) if *t != p.ty() => Ok(Scalar::Cast(Box::new(arg), p.ty())),
            _ => fit_unknown(arg, p.ty()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Scalar::Func(Func::Geo(sig), args))
}

/// The symbol of a binary operator (a schema-qualified one's own).
fn symbol(op: &BinaryOperator) -> Option<String> {
    Some(match op {
        BinaryOperator::PGCustomBinaryOperator(parts) => match parts.as_slice() {
            [s] => s.clone(),
            [schema, s] if schema.eq_ignore_ascii_case("pg_catalog") => s.clone(),
            _ => return None,
        },
        BinaryOperator::PGBitwiseXor => "#".into(),
        other => other.to_string(),
    })
}

/// `a op b` where a side is of a geometric type: the bound call, or
/// 42883 when no row fits; `None` when neither side is geometric.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let types = [typed(a, columns), typed(b, columns)];
    if !types.iter().flatten().any(|t| is_geo(*t)) {
        return None;
    }
    let symbol = symbol(op)?;
    if matches!(symbol.as_str(), "AND" | "OR") {
        return None;
    }
    Some(match resolve(&symbol, &types) {
        Some(sig) => fitted(sig, vec![a.clone(), b.clone()], &types),
        None => Err(no_operator(format!(
            "operator does not exist: {} {symbol} {}",
            type_name(types[0]),
            type_name(types[1])
        ))),
    })
}

fn type_name(t: Option<SqlType>) -> String {
    t.map_or_else(|| "unknown".into(), crate::set_types::name)
}

/// `value[i]` for a value of a geometric type (a point's, a line's,
/// a segment's or a box's: one index); `None` for another type.
pub fn bind_subscript(
    value: &Scalar,
    subscripts: &[&Subscript],
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let ty = typed(value, columns).filter(|t| is_geo(*t))?;
    let refused = || {
        SqlError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.name()
            ),
        )
    };
    Some((|| {
        let [Subscript::Index { index }] = subscripts else {
            return Err(refused());
        };
        let index = crate::scalar::bind(index, columns)?;
        let types = [Some(ty), typed(&index, columns)];
        match resolve("[]", &types) {
            Some(sig) => fitted(sig, vec![value.clone(), index], &types),
            None => Err(refused()),
        }
    })())
}

/// Whether `op` is a prefix operator of these types (`@@`, `@-@`, `#`,
/// `?-`, `?|`).
pub fn is_prefix(op: &UnaryOperator) -> bool {
    matches!(
        op,
        UnaryOperator::DoubleAt
            | UnaryOperator::AtDashAt
            | UnaryOperator::Hash
            | UnaryOperator::QuestionDash
            | UnaryOperator::QuestionPipe
    )
}

/// A prefix operator of [`is_prefix`] on its operand.
pub fn bind_prefix(
    op: &UnaryOperator,
    a: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let types = [typed(&a, columns)];
    let symbol = op.to_string();
    match resolve(&symbol, &types) {
        Some(sig) if types[0].is_some() => fitted(sig, vec![a], &types),
        _ => Err(no_operator(format!(
            "operator does not exist: {symbol} {}",
            type_name(types[0])
        ))),
    }
}

/// A call of a function here whose arguments fit a row; `Err(args)` for
/// a call of another function (`length(text)`). A call with a geometric
/// argument that no row fits is 42883.
pub fn bind_call(
    name: &str,
    args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    if !is_name(name) {
        return Ok(Err(args));
    }
    let types: Vec<Option<SqlType>> = args.iter().map(|a| typed(a, columns)).collect();
    // A call named as a geometric type, of one quoted literal, is that
    // type's input (PostgreSQL's `func_get_detail`: with no exact match,
    // such a call is a coercion, so `box('1,1,2,2')` reads a box, not a
    // point for `box(point)`).
    if let (Some(kind), [Scalar::Const(Value::Text(_))]) = (GeoKind::from_name(name), &args[..]) {
        let arg = args.into_iter().next().expect("one argument");
        return Ok(Ok(fit_unknown(arg, SqlType::Geo(kind))?));
    }
    // A name other functions have too (`length`) is theirs unless an
    // argument is geometric: a literal is text to them first.
    let geometric = types.iter().flatten().any(|t| is_geo(*t));
    if !geometric && crate::functions::Func::of(name).is_some() {
        return Ok(Err(args));
    }
    match resolve(name, &types) {
        Some(sig) => Ok(Ok(fitted(sig, args, &types)?)),
        None if types.iter().flatten().any(|t| is_geo(*t)) => {
            Err(crate::functions::no_match(format!(
                "function {name}({}) does not exist",
                crate::scalar::argument_types(&args, columns)
            )))
        }
        None => Ok(Err(args)),
    }
}

impl Signature {
    pub fn ty(&self) -> SqlType {
        self.ret.ty()
    }

    /// The call's value: NULL for a NULL argument.
    pub fn eval(&self, args: &[Value]) -> Result<Value, SqlError> {
        if args.iter().any(|v| matches!(v, Value::Null)) {
            return Ok(Value::Null);
        }
        (self.eval)(args)
    }

    /// The operator's symbol, `None` for a function or a subscript.
    pub fn symbol(&self) -> Option<&'static str> {
        (!self
            .name
            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '['))
        .then_some(self.name)
    }
}

/// 42883 for an ORDER BY of a geometric type: PostgreSQL has no btree
/// operator class for any of them.
pub fn check_ordering(ty: SqlType) -> Result<(), SqlError> {
    match ty {
        SqlType::Geo(kind) => Err(SqlError::new(
            "42883",
            format!(
                "could not identify an ordering operator for type {}",
                kind.name()
            ),
        )
        .with_hint("Use an explicit ordering operator or modify the query.")),
        _ => Ok(()),
    }
}

/// 42883 for a DISTINCT or GROUP BY of a geometric type: PostgreSQL
/// has no btree or hash equality for any of them (box's `=` compares
/// areas and is in no operator class).
pub fn check_equality(ty: SqlType) -> Result<(), SqlError> {
    match ty {
        SqlType::Geo(kind) => Err(SqlError::new(
            "42883",
            format!(
                "could not identify an equality operator for type {}",
                kind.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// The row that casts a value of `from` to `to` (module doc).
fn cast_row(from: GeoKind, to: GeoKind) -> Option<&'static Signature> {
    let from = Param::ALL
        .into_iter()
        .find(|p| p.ty() == SqlType::Geo(from))?;
    SIGNATURES
        .iter()
        .find(|s| s.name == to.name() && s.params == [from])
}

impl Param {
    const ALL: [Param; 7] = [
        Param::Point,
        Param::Lseg,
        Param::Box,
        Param::Line,
        Param::Path,
        Param::Polygon,
        Param::Circle,
    ];
}

/// 42846: no cast.
fn no_cast(from: SqlType, to: SqlType) -> SqlError {
    SqlError::new(
        "42846",
        format!("cannot cast type {} to {}", from.name(), to.name()),
    )
}

/// Whether there is a cast from `from` to `to` where either is
/// geometric (to and from text by their text forms).
pub fn check_cast(from: SqlType, to: SqlType) -> Result<(), SqlError> {
    let text = |t: SqlType| matches!(t, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_));
    match (from, to) {
        _ if from == to || text(from) || text(to) => Ok(()),
        (SqlType::Geo(a), SqlType::Geo(b)) if cast_row(a, b).is_some() => Ok(()),
        _ => Err(no_cast(from, to)),
    }
}

/// `CAST(v AS ty)` where the value or the type is geometric (the value
/// not text, which `types::coerce` reads).
pub fn cast(v: Value, ty: SqlType) -> Result<Value, SqlError> {
    let from = crate::scalar::value_type(&v);
    check_cast(from, ty)?;
    match (&v, ty) {
        (Value::Geo(g), SqlType::Geo(to)) if g.kind() == to => Ok(v),
        (Value::Geo(g), SqlType::Geo(to)) => {
            let row = cast_row(g.kind(), to).ok_or_else(|| no_cast(from, ty))?;
            row.eval(&[v])
        }
        (Value::Geo(_), _) => {
            let text = crate::types::text_output(&v).unwrap_or_default();
            crate::types::coerce(Value::Text(text), ty)
        }
        _ => Err(no_cast(from, ty)),
    }
}

/// Whether PostgreSQL casts `from` to `to` in an assignment.
pub fn assignment_cast(from: SqlType, to: SqlType) -> bool {
    use GeoKind::*;
    matches!(
        (from, to),
        (SqlType::Geo(Point), SqlType::Geo(Box))
            | (SqlType::Geo(Path), SqlType::Geo(Polygon))
            | (SqlType::Geo(Box), SqlType::Geo(Polygon))
            | (SqlType::Geo(Polygon), SqlType::Geo(Path))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(kind: GeoKind, text: &str) -> Value {
        Value::from_text(SqlType::Geo(kind), text).unwrap()
    }

    // Proves calls resolve to PostgreSQL's rows: a literal beside a
    // point is a point, a number a float8, and no row for `point = point`.
    #[test]
    fn calls_resolve_as_postgresql() {
        let point = Some(SqlType::Geo(GeoKind::Point));
        let sig = resolve("<->", &[point, None]).unwrap();
        assert_eq!(sig.params, [Param::Point, Param::Point]);
        let sig = resolve("point", &[Some(SqlType::Int4), Some(SqlType::Float8)]).unwrap();
        assert_eq!(sig.ret, Param::Point);
        assert!(resolve("=", &[point, point]).is_none());
        assert!(resolve("@>", &[Some(SqlType::Geo(GeoKind::Box)), point]).is_some());
    }

    // Proves the casts run their functions: a box's center, a box's
    // polygon, and none from a line.
    #[test]
    fn casts_are_the_type_named_functions() {
        let b = g(GeoKind::Box, "(2,2),(0,0)");
        let p = cast(b.clone(), SqlType::Geo(GeoKind::Point)).unwrap();
        assert_eq!(p.to_text().unwrap(), "(1,1)");
        let poly = cast(b, SqlType::Geo(GeoKind::Polygon)).unwrap();
        assert_eq!(poly.to_text().unwrap(), "((0,0),(0,2),(2,2),(2,0))");
        let l = g(GeoKind::Line, "{1,-1,0}");
        assert_eq!(
            cast(l, SqlType::Geo(GeoKind::Point)).unwrap_err().code,
            "42846"
        );
    }
}
