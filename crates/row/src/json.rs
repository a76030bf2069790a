//! `jsonb` values (`Value::Jsonb`): JSON normalized as PostgreSQL 15's
//! jsonb is, so equal documents are equal values.
//!
//! - An object's keys are unique (of duplicates the last one written is
//!   kept) and ordered as PostgreSQL orders them: shorter keys first, keys
//!   of one length by their bytes.
//! - A number is kept as the text of the numeric it is (`1.50` stays
//!   `1.50`, `1e2` is `100`, `-0` is `0`): PostgreSQL's jsonb stores a
//!   numeric. Numbers compare by value (`1.0` = `1.00`).
//! - Strings are text: `\u0000` and lone surrogates are refused.
//!
//! The text form is PostgreSQL's `jsonb_out` (`{"a": 1, "b": [1, 2]}`);
//! values order as its jsonb btree operators do (`cmp`). The `json` type
//! is not here: it is its text as written (`Value::Json`), read with
//! `json_parse.rs` when an operator needs its parts.

use crate::error::RowError;
use crate::json_parse::{Node, NodeKind, parse};
use std::cmp::Ordering;

/// A jsonb value.
#[derive(Debug, Clone)]
pub enum Jsonb {
    Null,
    Bool(bool),
    /// The numeric's text (see the module comment).
    Number(String),
    String(String),
    Array(Vec<Jsonb>),
    /// Members with unique keys in [`key_order`].
    Object(Vec<(String, Jsonb)>),
}

/// A jsonb number holds what a numeric holds: up to this many digits
/// before the point and [`MAX_SCALE`] after it.
const MAX_WHOLE_DIGITS: usize = crate::numeric::MAX_WHOLE_DIGITS as usize;
const MAX_SCALE: usize = crate::numeric::MAX_NUMERIC_SCALE as usize;

impl Jsonb {
    /// Parses JSON text (PostgreSQL's `jsonb_in`).
    pub fn parse(text: &str) -> Result<Jsonb, RowError> {
        Jsonb::from_node(&parse(text)?)
    }

    /// The jsonb of a parsed JSON value.
    pub fn from_node(node: &Node<'_>) -> Result<Jsonb, RowError> {
        Ok(match &node.kind {
            NodeKind::Null => Jsonb::Null,
            NodeKind::Bool(b) => Jsonb::Bool(*b),
            NodeKind::Number(n) => Jsonb::Number(number_text(n)?),
            NodeKind::String(s) => Jsonb::String(s.clone()?),
            NodeKind::Array(items) => Jsonb::Array(
                items
                    .iter()
                    .map(Jsonb::from_node)
                    .collect::<Result<_, _>>()?,
            ),
            NodeKind::Object(members) => Jsonb::object(
                members
                    .iter()
                    .map(|(k, v)| Ok((k.clone()?, Jsonb::from_node(v)?)))
                    .collect::<Result<Vec<_>, RowError>>()?,
            ),
        })
    }

    /// An object of `members` in any order: duplicates dropped but the
    /// last of each key, the rest put in [`key_order`].
    pub fn object(members: Vec<(String, Jsonb)>) -> Jsonb {
        let mut members: Vec<(usize, (String, Jsonb))> = members.into_iter().enumerate().collect();
        // By key, the last written first among equal keys; then keep the
        // first of each key.
        members.sort_by(|(i, (a, _)), (j, (b, _))| key_order(a, b).then(j.cmp(i)));
        members.dedup_by(|(_, (a, _)), (_, (b, _))| a == b);
        Jsonb::Object(members.into_iter().map(|(_, m)| m).collect())
    }

    /// PostgreSQL's `jsonb_typeof` name of the value's kind.
    pub fn type_name(&self) -> &'static str {
        match self {
            Jsonb::Null => "null",
            Jsonb::Bool(_) => "boolean",
            Jsonb::Number(_) => "number",
            Jsonb::String(_) => "string",
            Jsonb::Array(_) => "array",
            Jsonb::Object(_) => "object",
        }
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Jsonb> {
        match self {
            Jsonb::Object(members) => members
                .binary_search_by(|(k, _)| key_order(k, key))
                .ok()
                .map(|i| &members[i].1),
            _ => None,
        }
    }

    /// PostgreSQL's text form (`jsonb_out`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0);
        out
    }

    /// PostgreSQL's `jsonb_pretty`: one member or element a line,
    /// indented four spaces a level.
    pub fn to_pretty_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(4), 0);
        out
    }

    fn write(&self, out: &mut String, indent: Option<usize>, level: usize) {
        let newline = |out: &mut String, level: usize| {
            if let Some(width) = indent {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', width * level));
            }
        };
        match self {
            Jsonb::Null => out.push_str("null"),
            Jsonb::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Jsonb::Number(n) => out.push_str(n),
            Jsonb::String(s) => escape_into(out, s),
            Jsonb::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if indent.is_some() { "," } else { ", " });
                    }
                    newline(out, level + 1);
                    item.write(out, indent, level + 1);
                }
                newline(out, level);
                out.push(']');
            }
            Jsonb::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if indent.is_some() { "," } else { ", " });
                    }
                    newline(out, level + 1);
                    escape_into(out, key);
                    out.push_str(": ");
                    value.write(out, indent, level + 1);
                }
                newline(out, level);
                out.push('}');
            }
        }
    }

    /// PostgreSQL's jsonb order (its btree operator class): by kind,
    /// null < string < number < boolean < array < object; arrays by their
    /// lengths, then element by element; objects by their numbers of
    /// members, then member by member (key, then value) in key order;
    /// strings by their bytes (the C collation), numbers by value. At the
    /// top level a scalar meets an array as an array of itself would
    /// (PostgreSQL stores it so): by length first, then the scalar first.
    fn order(&self, other: &Jsonb) -> Ordering {
        match (self, other) {
            (Jsonb::Array(items), scalar) if !scalar.is_container() => {
                items.len().cmp(&1).then(Ordering::Greater)
            }
            (scalar, Jsonb::Array(items)) if !scalar.is_container() => {
                1.cmp(&items.len()).then(Ordering::Less)
            }
            _ => self.cmp_nested(other),
        }
    }

    fn cmp_nested(&self, other: &Jsonb) -> Ordering {
        let rank = |j: &Jsonb| match j {
            Jsonb::Null => 0,
            Jsonb::String(_) => 1,
            Jsonb::Number(_) => 2,
            Jsonb::Bool(_) => 3,
            Jsonb::Array(_) => 4,
            Jsonb::Object(_) => 5,
        };
        match (self, other) {
            (Jsonb::Null, Jsonb::Null) => Ordering::Equal,
            (Jsonb::Bool(a), Jsonb::Bool(b)) => a.cmp(b),
            (Jsonb::Number(a), Jsonb::Number(b)) => number_cmp(a, b),
            (Jsonb::String(a), Jsonb::String(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Jsonb::Array(a), Jsonb::Array(b)) => a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.cmp_nested(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            }),
            (Jsonb::Object(a), Jsonb::Object(b)) => a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .zip(b)
                    .map(|((ka, va), (kb, vb))| {
                        ka.as_bytes()
                            .cmp(kb.as_bytes())
                            .then_with(|| va.cmp_nested(vb))
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            }),
            (a, b) => rank(a).cmp(&rank(b)),
        }
    }

    /// PostgreSQL's `@>`: whether `self` contains `other` — an object
    /// every member of `other` with a value containing its value; an
    /// array an element containing each of `other`'s elements (scalars
    /// equal, containers of one kind containing); a scalar an equal
    /// scalar. At the top level an array also contains a scalar it has
    /// as an element.
    pub fn contains(&self, other: &Jsonb) -> bool {
        match (self, other) {
            (Jsonb::Array(items), scalar) if !scalar.is_container() => {
                items.iter().any(|i| i.cmp(scalar).is_eq())
            }
            _ => self.contains_nested(other),
        }
    }

    fn contains_nested(&self, other: &Jsonb) -> bool {
        match (self, other) {
            (Jsonb::Object(_), Jsonb::Object(wanted)) => wanted.iter().all(|(key, want)| {
                self.get(key).is_some_and(|have| match want.is_container() {
                    true => have.contains_nested(want),
                    false => have.cmp(want).is_eq(),
                })
            }),
            (Jsonb::Array(items), Jsonb::Array(wanted)) => wanted.iter().all(|want| {
                items.iter().any(|have| match want.is_container() {
                    true => have.contains_nested(want),
                    false => have.cmp(want).is_eq(),
                })
            }),
            (a, b) if !a.is_container() && !b.is_container() => a.cmp(b).is_eq(),
            _ => false,
        }
    }

    fn is_container(&self) -> bool {
        matches!(self, Jsonb::Array(_) | Jsonb::Object(_))
    }

    /// PostgreSQL's `?`: an object's key, an array's string element or
    /// the string itself equal to `key`.
    pub fn has_key(&self, key: &str) -> bool {
        match self {
            Jsonb::Object(_) => self.get(key).is_some(),
            Jsonb::Array(items) => items
                .iter()
                .any(|i| matches!(i, Jsonb::String(s) if s == key)),
            Jsonb::String(s) => s == key,
            _ => false,
        }
    }
}

impl PartialEq for Jsonb {
    /// Equal as PostgreSQL's jsonb `=` (numbers by value).
    fn eq(&self, other: &Jsonb) -> bool {
        self.order(other).is_eq()
    }
}

impl Eq for Jsonb {}

impl Ord for Jsonb {
    /// PostgreSQL's jsonb order ([`Jsonb::order`]).
    fn cmp(&self, other: &Jsonb) -> Ordering {
        self.order(other)
    }
}

impl PartialOrd for Jsonb {
    fn partial_cmp(&self, other: &Jsonb) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A text equal for equal jsonb values and only for them: the text form
/// with each number's trailing fraction zeros dropped (`1.50` and `1.5`
/// are equal jsonb). GROUP BY and DISTINCT hash it.
pub fn equality_text(j: &Jsonb) -> String {
    fn strip(j: &Jsonb) -> Jsonb {
        match j {
            Jsonb::Number(n) if n.contains('.') => {
                Jsonb::Number(n.trim_end_matches('0').trim_end_matches('.').to_string())
            }
            Jsonb::Array(items) => Jsonb::Array(items.iter().map(strip).collect()),
            Jsonb::Object(members) => {
                Jsonb::Object(members.iter().map(|(k, v)| (k.clone(), strip(v))).collect())
            }
            other => other.clone(),
        }
    }
    strip(j).to_text()
}

/// PostgreSQL's order of jsonb object keys: shorter first, then bytewise.
pub fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// Appends `s` as a JSON string, PostgreSQL's escapes: `"` and `\`, the
/// short forms of backspace, form feed, newline, return and tab, and
/// `\u00XX` for the other control characters.
pub fn escape_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The numeric text of a JSON number (its grammar already checked):
/// the digits with the decimal point moved by the exponent, as many
/// decimals as the number had less the exponent (none below zero),
/// without leading zeros or the sign of a zero.
pub fn number_text(json: &str) -> Result<String, RowError> {
    let (negative, rest) = match json.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, json),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, "0"),
    };
    let exponent: i64 = match exponent.trim_start_matches('+').parse::<i64>() {
        Ok(e) if e.unsigned_abs() <= 2 * MAX_WHOLE_DIGITS as u64 => e,
        _ => return Err(RowError::NumericFormatOverflow),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int}{frac}");
    let scale = (frac.len() as i64 - exponent).max(0) as usize;
    // The decimal point sits after `point` of the digits.
    let point = int.len() as i64 + exponent;
    let (mut whole, fraction) = if point <= 0 {
        let zeros = "0".repeat((-point) as usize);
        (String::new(), format!("{zeros}{digits}"))
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (format!("{digits}{zeros}"), String::new())
    } else {
        let (w, f) = digits.split_at(point as usize);
        (w.to_string(), f.to_string())
    };
    let mut fraction = fraction;
    fraction.truncate(scale);
    while fraction.len() < scale {
        fraction.push('0');
    }
    let trimmed = whole.trim_start_matches('0');
    whole = if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed.into()
    };
    if whole.len() > MAX_WHOLE_DIGITS || scale > MAX_SCALE {
        return Err(RowError::NumericFormatOverflow);
    }
    let zero = whole == "0" && fraction.bytes().all(|b| b == b'0');
    let sign = if negative && !zero { "-" } else { "" };
    Ok(match fraction.is_empty() {
        true => format!("{sign}{whole}"),
        false => format!("{sign}{whole}.{fraction}"),
    })
}

/// Two numeric texts (as [`number_text`] makes them) by value.
pub fn number_cmp(a: &str, b: &str) -> Ordering {
    let parts = |n: &str| {
        let (negative, n) = match n.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, n.to_string()),
        };
        let (whole, fraction) = n.split_once('.').unwrap_or((&n, ""));
        let whole = whole.trim_start_matches('0').to_string();
        let fraction = fraction.trim_end_matches('0').to_string();
        let zero = whole.is_empty() && fraction.is_empty();
        (negative && !zero, whole, fraction)
    };
    let (an, aw, af) = parts(a);
    let (bn, bw, bf) = parts(b);
    let magnitude = aw
        .len()
        .cmp(&bw.len())
        .then_with(|| aw.cmp(&bw))
        .then_with(|| af.cmp(&bf));
    match (an, bn) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the normalization matches PostgreSQL 15's jsonb output (each
    // expected text taken from `select '...'::jsonb` there): key order and
    // duplicates, number text, spacing and escapes.
    #[test]
    fn jsonb_text_is_postgresql_s() {
        for (input, expected) in [
            (r#"{"b":1,"a":2,"aa":3}"#, r#"{"a": 2, "b": 1, "aa": 3}"#),
            (r#"{"a":1,"a":2}"#, r#"{"a": 2}"#),
            (
                r#"{"a":{"c":1,"c":[]},"a":3,"b":"x"}"#,
                r#"{"a": 3, "b": "x"}"#,
            ),
            (
                "[1.50, 1e2, 1E-2, -0, -0.0, 1.5e1, 0.00012e3, 12e-1]",
                "[1.50, 100, 0.01, 0, 0.0, 15, 0.12, 1.2]",
            ),
            (" [ ] ", "[]"),
            ("{}", "{}"),
            (
                r#""a\u00e9\n\"\\\/\u0001""#,
                "\"a\u{e9}\\n\\\"\\\\/\\u0001\"",
            ),
            (r#""\ud83d\ude00""#, "\"\u{1F600}\""),
            ("[true,false,null]", "[true, false, null]"),
            ("-12.3400e+1", "-123.400"),
        ] {
            assert_eq!(Jsonb::parse(input).unwrap().to_text(), expected, "{input}");
        }
    }

    // Proves numbers compare by value and values by PostgreSQL's jsonb
    // order; and containment's rules.
    #[test]
    fn jsonb_order_and_containment() {
        let j = |s: &str| Jsonb::parse(s).unwrap();
        assert_eq!(j("1.0"), j("1.00"));
        assert_eq!(j(r#"{"a":1,"b":2}"#), j(r#"{"b":2.0,"a":1}"#));
        assert!(j("-2").cmp(&j("-10")).is_gt());
        assert!(j("10").cmp(&j("9.99")).is_gt());
        assert!(j("null").cmp(&j(r#""a""#)).is_lt());
        assert!(j(r#""z""#).cmp(&j("1")).is_lt());
        assert!(
            j("true").cmp(&j("[]")).is_gt(),
            "a top-level scalar is a 1-array"
        );
        assert!(j("true").cmp(&j("[false]")).is_lt());
        assert!(j("[[]]").cmp(&j("[true]")).is_gt());
        assert!(j("[9]").cmp(&j("[1, 1]")).is_lt());
        assert!(j(r#"{"a":1,"b":[1,2]}"#).contains(&j(r#"{"b":[2]}"#)));
        assert!(!j(r#"{"a":1}"#).contains(&j(r#"{"a":[1]}"#)));
        assert!(j("[1,2,[3]]").contains(&j("[[3],1]")));
        assert!(j("[1,2]").contains(&j("1")));
        assert!(!j("[[1]]").contains(&j("[1]")));
        assert!(!j("1").contains(&j("[1]")));
        assert!(j(r#"["a",{"b":1}]"#).has_key("a"));
        assert!(!j(r#"{"b":{"a":1}}"#).has_key("a"));
    }

    // Proves PostgreSQL's errors: 22P02 with its DETAIL for bad syntax,
    // 22P05 for `\u0000`.
    #[test]
    fn jsonb_input_errors() {
        for (input, detail) in [
            (r#"{"a":1"#, "The input string ended unexpectedly."),
            (r#"{"a" 1}"#, "Expected \":\", but found \"1\"."),
            ("x", "Token \"x\" is invalid."),
            ("01", "Token \"01\" is invalid."),
            ("1.", "Token \"1.\" is invalid."),
            (
                r#""\ud800""#,
                "Unicode low surrogate must follow a high surrogate.",
            ),
            (
                r#""\u12""#,
                "\"\\u\" must be followed by four hexadecimal digits.",
            ),
            (r#""\q""#, "Escape sequence \"\\q\" is invalid."),
            ("{1:2}", "Expected string or \"}\", but found \"1\"."),
            ("[1 2]", "Expected \",\" or \"]\", but found \"2\"."),
            ("", "The input string ended unexpectedly."),
            ("[1,]", "Expected JSON value, but found \"]\"."),
            ("1 2", "Expected end of input, but found \"2\"."),
            ("nul", "Token \"nul\" is invalid."),
        ] {
            let e = Jsonb::parse(input).unwrap_err();
            assert_eq!(e.sqlstate(), "22P02", "{input}");
            assert_eq!(e.to_string(), "invalid input syntax for type json");
            assert_eq!(e.detail().as_deref(), Some(detail), "{input}");
        }
        assert_eq!(Jsonb::parse(r#""\u0000""#).unwrap_err().sqlstate(), "22P05");
        assert!(crate::json_parse::parse(r#"["\u0000", "\ud800"]"#).is_ok());
    }
}
