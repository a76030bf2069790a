//! The text form of ranges, PostgreSQL 15's `range_in` / `range_out`:
//!
//! ```text
//! empty                      (any case, blanks around)
//! [lower,upper)              `[` / `(` inclusive / exclusive lower bound, `]` / `)` upper
//! (,5]  [1,)                 a bound left out is infinite
//! ["a b",c\,d)               a bound in double quotes ("" inside for a quote) or with
//!                            backslash escapes; blanks inside a bound are the bound's
//! ```
//!
//! Blanks may precede the opening bracket and follow the closing one.
//! Output writes `empty` or the brackets with each finite bound's own
//! text, quoted when it is empty or holds a quote, backslash, bracket,
//! parenthesis, comma or blank (a quote or backslash inside doubled).
//! A malformed literal is 22P02 `malformed range literal` with
//! PostgreSQL's DETAIL; a bound's text is read by its element type's
//! input (its own errors), then [`Range::new`] checks and canonicalises.

use crate::datetime_fields::DateOrder;
use crate::error::RowError;
use crate::range::{Bound, Range, RangeKind};
use crate::text_style::TextStyle;
use crate::time_zone::TimeZone;
use crate::value::Value;

/// Parses a range of `kind` (bounds read in `zone`).
pub fn range_in(
    kind: RangeKind,
    text: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<Range, RowError> {
    let malformed = |detail: &'static str| RowError::MalformedRange {
        text: text.to_string(),
        detail,
    };
    let rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    if rest
        .get(..5)
        .is_some_and(|word| word.eq_ignore_ascii_case("empty"))
    {
        if !rest[5..]
            .trim_matches(|c: char| c.is_ascii_whitespace())
            .is_empty()
        {
            return Err(malformed("Junk after \"empty\" key word."));
        }
        return Ok(Range::empty(kind));
    }
    let mut chars = rest.chars().peekable();
    let lower_inclusive = match chars.next() {
        Some('[') => true,
        Some('(') => false,
        _ => return Err(malformed("Missing left parenthesis or bracket.")),
    };
    let lower = bound_text(&mut chars).ok_or_else(|| malformed("Unexpected end of input."))?;
    if chars.next() != Some(',') {
        return Err(malformed("Missing comma after lower bound."));
    }
    let upper = bound_text(&mut chars).ok_or_else(|| malformed("Unexpected end of input."))?;
    let upper_inclusive = match chars.next() {
        Some(']') => true,
        Some(')') => false,
        _ => return Err(malformed("Too many commas.")),
    };
    if chars.any(|c| !c.is_ascii_whitespace()) {
        return Err(malformed("Junk after right parenthesis or bracket."));
    }
    let bound = |text: Option<String>, inclusive: bool| -> Result<Bound, RowError> {
        Ok(match text {
            None => Bound::INFINITE,
            Some(t) => Bound::at(
                Value::from_text_in(kind.element(), &t, zone, order)?,
                inclusive,
            ),
        })
    };
    Range::new(
        kind,
        bound(lower, lower_inclusive)?,
        bound(upper, upper_inclusive)?,
    )
}

/// One bound's text up to (not taking) the `,`, `)` or `]` that ends it
/// outside quotes: `Some(None)` when there is none (an infinite bound),
/// `None` when the input ends first.
fn bound_text(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Option<String>> {
    let ends = |c: char| matches!(c, ',' | ')' | ']');
    if ends(*chars.peek()?) {
        return Some(None);
    }
    let mut out = String::new();
    let mut quoted = false;
    loop {
        let c = *chars.peek()?;
        if !quoted && ends(c) {
            return Some(Some(out));
        }
        chars.next();
        match c {
            '\\' => out.push(chars.next()?),
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.push('"');
            }
            '"' => quoted = !quoted,
            c => out.push(c),
        }
    }
}

/// A range as PostgreSQL prints it (bounds written in `style`).
pub fn range_out(range: &Range, style: &TextStyle) -> String {
    let Some((lower, upper)) = &range.bounds else {
        return "empty".into();
    };
    let mut out = String::new();
    out.push(if lower.inclusive { '[' } else { '(' });
    if let Some(v) = &lower.value {
        push_bound(&mut out, &v.to_text_styled(style).unwrap_or_default());
    }
    out.push(',');
    if let Some(v) = &upper.value {
        push_bound(&mut out, &v.to_text_styled(style).unwrap_or_default());
    }
    out.push(if upper.inclusive { ']' } else { ')' });
    out
}

/// A bound's text, quoted where reading it back needs it.
fn push_bound(out: &mut String, text: &str) {
    let quote = text.is_empty()
        || text.chars().any(|c| {
            matches!(c, '"' | '\\' | '(' | ')' | '[' | ']' | ',') || c.is_ascii_whitespace()
        });
    if quote {
        out.push('"');
    }
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push(c);
        }
        out.push(c);
    }
    if quote {
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(kind: RangeKind, text: &str) -> Result<String, String> {
        range_in(kind, text, &TimeZone::UTC, DateOrder::Mdy)
            .map(|r| range_out(&r, &TextStyle::default()))
            .map_err(|e| format!("{e}: {}", e.detail().unwrap_or_default()))
    }

    // Proves the literal syntax: canonical output, blanks, quotes,
    // infinite bounds, `empty`, and PostgreSQL's DETAIL for each
    // malformed form.
    #[test]
    fn range_literals_read_and_print_as_postgresql() {
        use RangeKind::*;
        assert_eq!(round(Int4, " ( 1 , 5 ] ").unwrap(), "[2,6)");
        assert_eq!(round(Int4, "(,5]").unwrap(), "(,6)");
        assert_eq!(round(Int4, "[,]").unwrap(), "(,)");
        assert_eq!(round(Int4, "  EmPty ").unwrap(), "empty");
        assert_eq!(round(Int4, "[\"1\",\"3\"]").unwrap(), "[1,4)");
        assert_eq!(round(Num, "[1.5,2.50]").unwrap(), "[1.5,2.50]");
        assert_eq!(
            round(Ts, "[2020-01-01,\"2020-01-02 10:00\")").unwrap(),
            "[\"2020-01-01 00:00:00\",\"2020-01-02 10:00:00\")"
        );
        for (text, detail) in [
            ("emptyx", "Junk after \"empty\" key word."),
            ("1,2", "Missing left parenthesis or bracket."),
            ("[1", "Unexpected end of input."),
            ("[1)", "Missing comma after lower bound."),
            ("[1,2,3]", "Too many commas."),
            ("[1,2] x", "Junk after right parenthesis or bracket."),
        ] {
            let err = round(Int4, text).unwrap_err();
            assert!(err.ends_with(detail), "{text}: {err}");
        }
    }
}
