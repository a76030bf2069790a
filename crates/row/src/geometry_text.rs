//! The text forms of the geometric types (`geometry.rs`): PostgreSQL
//! 15's `point_in` ... `circle_in` and their outputs.
//!
//! | type | printed | also read |
//! |---|---|---|
//! | point | `(x,y)` | `x,y` |
//! | lseg | `[(x1,y1),(x2,y2)]` | `((x1,y1),(x2,y2))`, `(x1,y1),(x2,y2)`, `x1,y1,x2,y2` |
//! | box | `(x1,y1),(x2,y2)` | `((x1,y1),(x2,y2))`, `x1,y1,x2,y2` (corners in any order) |
//! | line | `{A,B,C}` | any form of an lseg: the line through its two points |
//! | path | `[(x1,y1),...]` open, `((x1,y1),...)` closed | `(x1,y1),...` (closed), `x1,y1,...` |
//! | polygon | `((x1,y1),...)` | as a closed path, no `[...]` |
//! | circle | `<(x,y),r>` | `((x,y),r)`, `(x,y),r`, `x,y,r` |
//!
//! Whitespace may stand around every number and delimiter. A number is
//! read as float8 input reads it (`Infinity`, `NaN`, exponents), one
//! past float8's range being float8's 22003 error; any other bad text is
//! `invalid input syntax for type point: "..."` (22P02). A point count
//! comes from the text's commas, as PostgreSQL's `pair_count`: an even
//! number of commas is no path. Coordinates print as float8 does, under
//! `extra_float_digits` (`text.rs`'s `float8_text`).

use crate::error::RowError;
use crate::geometry::{Circle, GeoBox, GeoKind, Geometry, Line, Lseg, Path, Point, Polygon};
use crate::text::{float8_text, parse_float};
use crate::types::SqlType;

/// C's `isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The length of the number at the start of `s` as C's `strtod` reads
/// one (sign, digits with a point, exponent; `inf`, `infinity`, `nan`),
/// 0 when there is none.
fn number_len(s: &[u8]) -> usize {
    let mut i = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let word = |at: usize, w: &str| {
        s.len() >= at + w.len() && s[at..at + w.len()].eq_ignore_ascii_case(w.as_bytes())
    };
    if word(i, "infinity") {
        return i + 8;
    }
    if word(i, "inf") || word(i, "nan") {
        return i + 3;
    }
    let digits = |from: usize| from + s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let whole = digits(i);
    let mut seen = whole > i;
    i = whole;
    if s.get(i) == Some(&b'.') {
        let fraction = digits(i + 1);
        seen |= fraction > i + 1;
        i = fraction;
    }
    if !seen {
        return 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let sign = i + 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
        let end = digits(sign);
        if end > sign {
            i = end;
        }
    }
    i
}

/// A reader of one value's text.
struct Reader<'a> {
    s: &'a [u8],
    at: usize,
    kind: GeoKind,
    text: &'a str,
}

impl<'a> Reader<'a> {
    fn new(kind: GeoKind, text: &'a str) -> Reader<'a> {
        Reader {
            s: text.as_bytes(),
            at: 0,
            kind,
            text,
        }
    }

    fn syntax(&self) -> RowError {
        RowError::InvalidText {
            type_name: self.kind.name().into(),
            text: self.text.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
    }

    /// Steps over `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        let next = self.peek() == Some(c);
        self.at += usize::from(next);
        next
    }

    /// `c` next, or the syntax error.
    fn expect(&mut self, c: u8) -> Result<(), RowError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    /// The end of the text, or the syntax error.
    fn end(&self) -> Result<(), RowError> {
        if self.at == self.s.len() {
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    /// A float8 and the whitespace around it (`float8in_internal`).
    fn float(&mut self) -> Result<f64, RowError> {
        self.skip_spaces();
        let len = number_len(&self.s[self.at..]);
        if len == 0 {
            return Err(self.syntax());
        }
        let number = &self.text[self.at..self.at + len];
        let value = parse_float(SqlType::Float8, number, number).map_err(|e| match e {
            RowError::InvalidText { .. } => self.syntax(),
            other => other,
        })?;
        self.at += len;
        self.skip_spaces();
        Ok(value)
    }

    /// `x,y` or `(x,y)` and the whitespace after the parenthesis
    /// (`pair_decode`).
    fn pair(&mut self) -> Result<Point, RowError> {
        self.skip_spaces();
        let parenthesized = self.eat(b'(');
        let x = self.float()?;
        self.expect(b',')?;
        let y = self.float()?;
        if parenthesized {
            self.expect(b')')?;
            self.skip_spaces();
        }
        Ok(Point::new(x, y))
    }

    /// Whether the `(` at the reader is the text's last.
    fn last_open_paren(&self, at: usize) -> bool {
        !self.s[at + 1..].contains(&b'(')
    }

    /// `count` points, bracketed `[...]` (when `open_allowed`: an open
    /// path), parenthesized, or bare (`path_decode`): the points and
    /// whether they were bracketed.
    fn points(&mut self, open_allowed: bool, count: usize) -> Result<(Vec<Point>, bool), RowError> {
        self.skip_spaces();
        let mut depth = 0;
        let open = self.peek() == Some(b'[');
        if open {
            if !open_allowed {
                return Err(self.syntax());
            }
            depth += 1;
            self.at += 1;
        } else if self.peek() == Some(b'(') {
            let mut after = self.at + 1;
            while self.s.get(after).copied().is_some_and(is_space) {
                after += 1;
            }
            if self.s.get(after) == Some(&b'(') || self.last_open_paren(self.at) {
                depth += 1;
                self.at = after;
            }
        }
        let mut points = Vec::with_capacity(count);
        for _ in 0..count {
            points.push(self.pair()?);
            self.eat(b',');
        }
        while depth > 0 {
            if self.eat(b')') || (open && depth == 1 && self.eat(b']')) {
                depth -= 1;
                self.skip_spaces();
            } else {
                return Err(self.syntax());
            }
        }
        Ok((points, open))
    }

    /// The point count the text's commas give (`pair_count`): half of
    /// one more than their number, which must be odd.
    fn pair_count(&self) -> Result<usize, RowError> {
        let commas = self.s.iter().filter(|c| **c == b',').count();
        if !commas.is_multiple_of(2) {
            Ok(commas.div_ceil(2))
        } else {
            Err(self.syntax())
        }
    }
}

/// Reads `text` as a value of `kind` (module table).
pub fn parse(kind: GeoKind, text: &str) -> Result<Geometry, RowError> {
    let mut r = Reader::new(kind, text);
    let value = match kind {
        GeoKind::Point => Geometry::Point(r.pair()?),
        GeoKind::Lseg => {
            let (p, _) = r.points(true, 2)?;
            Geometry::Lseg(Lseg([p[0], p[1]]))
        }
        GeoKind::Box => {
            let (p, _) = r.points(false, 2)?;
            Geometry::Box(GeoBox::new(p[0], p[1]))
        }
        GeoKind::Line => Geometry::Line(line(&mut r)?),
        GeoKind::Path => {
            let count = r.pair_count()?;
            r.skip_spaces();
            // A single leading parenthesis around the whole path.
            let around = r.peek() == Some(b'(') && r.last_open_paren(r.at);
            r.at += usize::from(around);
            let (points, open) = r.points(true, count)?;
            if around {
                r.expect(b')')?;
                r.skip_spaces();
            }
            Geometry::Path(Path {
                closed: !open,
                points,
            })
        }
        GeoKind::Polygon => {
            let count = r.pair_count()?;
            let (points, _) = r.points(false, count)?;
            Geometry::Polygon(Polygon::new(points))
        }
        GeoKind::Circle => Geometry::Circle(circle(&mut r)?),
    };
    r.end()?;
    Ok(value)
}

/// `{A,B,C}`, or two distinct points in any form of an lseg (`line_in`).
fn line(r: &mut Reader<'_>) -> Result<Line, RowError> {
    r.skip_spaces();
    if r.eat(b'{') {
        let a = r.float()?;
        r.expect(b',')?;
        let b = r.float()?;
        r.expect(b',')?;
        let c = r.float()?;
        r.expect(b'}')?;
        r.skip_spaces();
        r.end()?;
        if crate::geometry::fp_zero(a) && crate::geometry::fp_zero(b) {
            return Err(RowError::InvalidInput(
                "invalid line specification: A and B cannot both be zero".into(),
            ));
        }
        return Ok(Line { a, b, c });
    }
    let (p, _) = r.points(true, 2)?;
    r.end()?;
    if crate::geometry::points_equal(p[0], p[1]) {
        return Err(RowError::InvalidInput(
            "invalid line specification: must be two distinct points".into(),
        ));
    }
    Ok(Line::through(p[0], p[0].slope_to(p[1])))
}

/// `<(x,y),r>`, `((x,y),r)`, `(x,y),r` or `x,y,r` (`circle_in`).
fn circle(r: &mut Reader<'_>) -> Result<Circle, RowError> {
    r.skip_spaces();
    let mut depth = 0;
    let angled = r.eat(b'<');
    if angled {
        depth += 1;
    } else if r.peek() == Some(b'(') {
        let mut after = r.at + 1;
        while r.s.get(after).copied().is_some_and(is_space) {
            after += 1;
        }
        if r.s.get(after) == Some(&b'(') {
            depth += 1;
            r.at = after;
        }
    }
    let center = r.pair()?;
    r.eat(b',');
    let radius = r.float()?;
    // NaN is a radius; a negative number is not.
    if radius < 0.0 {
        return Err(r.syntax());
    }
    while depth > 0 {
        if r.eat(b')') || (angled && depth == 1 && r.eat(b'>')) {
            depth -= 1;
            r.skip_spaces();
        } else {
            return Err(r.syntax());
        }
    }
    Ok(Circle { center, radius })
}

/// The value's text (module table), coordinates under `extra_digits`
/// (`extra_float_digits`).
pub fn text(g: &Geometry, extra_digits: i32) -> String {
    let f = |v: f64| float8_text(v, extra_digits);
    let point = |p: &Point| format!("({},{})", f(p.x), f(p.y));
    let points = |ps: &[Point]| ps.iter().map(point).collect::<Vec<_>>().join(",");
    match g {
        Geometry::Point(p) => point(p),
        Geometry::Lseg(l) => format!("[{}]", points(&l.0)),
        Geometry::Box(b) => points(&[b.high, b.low]),
        Geometry::Line(l) => format!("{{{},{},{}}}", f(l.a), f(l.b), f(l.c)),
        Geometry::Path(p) if p.closed => format!("({})", points(&p.points)),
        Geometry::Path(p) => format!("[{}]", points(&p.points)),
        Geometry::Polygon(p) => format!("({})", points(&p.points)),
        Geometry::Circle(c) => format!("<{},{}>", point(&c.center), f(c.radius)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(kind: GeoKind, input: &str) -> String {
        match parse(kind, input) {
            Ok(g) => text(&g, 1),
            Err(e) => format!("error: {e}"),
        }
    }

    // Proves each type reads PostgreSQL 15's accepted forms and prints
    // as it does (answers taken from PostgreSQL 15).
    #[test]
    fn forms_read_and_print_as_postgresql() {
        for (kind, input, expected) in [
            (GeoKind::Point, " ( Nan , NaN ) ", "(NaN,NaN)"),
            (GeoKind::Point, "10.0,10.0", "(10,10)"),
            (GeoKind::Point, "(1e+300,Inf)", "(1e+300,Infinity)"),
            (GeoKind::Point, "(-5.0,-12.0)", "(-5,-12)"),
            (GeoKind::Lseg, "[(1,2),(3,4)]", "[(1,2),(3,4)]"),
            (GeoKind::Lseg, "(1,2),(3,4)", "[(1,2),(3,4)]"),
            (GeoKind::Lseg, "1,2,3,4", "[(1,2),(3,4)]"),
            (GeoKind::Lseg, "((1,2),(3,4))", "[(1,2),(3,4)]"),
            (GeoKind::Box, "(2.0,2.0,0.0,0.0)", "(2,2),(0,0)"),
            (GeoKind::Box, "(1.0,1.0,3.0,3.0)", "(3,3),(1,1)"),
            (GeoKind::Box, "((-8, 2), (-2, -10))", "(-2,2),(-8,-10)"),
            (GeoKind::Line, "{0,-1,5}", "{0,-1,5}"),
            (GeoKind::Line, "[(1,2),(3,4)]", "{1,-1,1}"),
            (GeoKind::Line, "(0,0),(6,6)", "{1,-1,0}"),
            (GeoKind::Line, "[(1,2),(1,4)]", "{-1,0,1}"),
            (GeoKind::Path, "[1,2,3,4]", "[(1,2),(3,4)]"),
            (GeoKind::Path, "(1,2),(3,4)", "((1,2),(3,4))"),
            (GeoKind::Path, "((1,2),(3,4))", "((1,2),(3,4))"),
            (
                GeoKind::Path,
                "[(0,0),(3,0),(4,5),(1,6)]",
                "[(0,0),(3,0),(4,5),(1,6)]",
            ),
            (GeoKind::Path, "((1,2))", "((1,2))"),
            (GeoKind::Path, "1,2 ,3,4 ", "((1,2),(3,4))"),
            (
                GeoKind::Polygon,
                "(3.0,1.0),(3.0,3.0),(1.0,0.0)",
                "((3,1),(3,3),(1,0))",
            ),
            (GeoKind::Polygon, "0.0,0.0", "((0,0))"),
            (GeoKind::Circle, "<(5,1),3>", "<(5,1),3>"),
            (GeoKind::Circle, "((1,2),100)", "<(1,2),100>"),
            (GeoKind::Circle, " 1 , 3 , 5 ", "<(1,3),5>"),
            (
                GeoKind::Circle,
                "(3,(1,2),3)",
                "error: invalid input syntax for type circle: \"(3,(1,2),3)\"",
            ),
            (
                GeoKind::Circle,
                "<(-100,0),-100>",
                "error: invalid input syntax for type circle: \"<(-100,0),-100>\"",
            ),
            (
                GeoKind::Point,
                "asdfasdf",
                "error: invalid input syntax for type point: \"asdfasdf\"",
            ),
            (
                GeoKind::Point,
                "(10.0 10.0)",
                "error: invalid input syntax for type point: \"(10.0 10.0)\"",
            ),
            (
                GeoKind::Point,
                "(10.0,10.0",
                "error: invalid input syntax for type point: \"(10.0,10.0\"",
            ),
            (
                GeoKind::Point,
                "(10.0, 1e+500)",
                "error: \"1e+500\" is out of range for type double precision",
            ),
            (
                GeoKind::Box,
                "[1, 2, 3, 4)",
                "error: invalid input syntax for type box: \"[1, 2, 3, 4)\"",
            ),
            (
                GeoKind::Path,
                "[(1,2),(3,4)",
                "error: invalid input syntax for type path: \"[(1,2),(3,4)\"",
            ),
            (
                GeoKind::Path,
                "(1,2,3)",
                "error: invalid input syntax for type path: \"(1,2,3)\"",
            ),
            (
                GeoKind::Polygon,
                "[(1,2),(3,4)]",
                "error: invalid input syntax for type polygon: \"[(1,2),(3,4)]\"",
            ),
            (
                GeoKind::Line,
                "{0,0,1}",
                "error: invalid line specification: A and B cannot both be zero",
            ),
            (
                GeoKind::Line,
                "[(1,2),(1,2)]",
                "error: invalid line specification: must be two distinct points",
            ),
        ] {
            assert_eq!(round_trip(kind, input), expected, "{kind:?} {input}");
        }
    }

    // Proves coordinates follow extra_float_digits as float8 does.
    #[test]
    fn coordinates_follow_extra_float_digits() {
        let g = parse(GeoKind::Point, "(0.1,1e-300)").unwrap();
        assert_eq!(text(&g, 1), "(0.1,1e-300)");
        let g = parse(GeoKind::Circle, "<(0,0),3.14159265358979>").unwrap();
        assert_eq!(text(&g, -3), "<(0,0),3.14159265359>");
    }

    // Proves the strtod-like number scanner stops where C's does.
    #[test]
    fn numbers_end_where_strtod_ends_them() {
        for (s, len) in [
            ("1.5e3,", 5),
            ("-Infinity)", 9),
            ("inf,", 3),
            ("NaN ", 3),
            (".5", 2),
            ("5.", 2),
            ("1e", 1),
            ("e5", 0),
            ("-", 0),
        ] {
            assert_eq!(number_len(s.as_bytes()), len, "{s}");
        }
    }
}
