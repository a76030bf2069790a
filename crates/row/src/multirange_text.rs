//! The text form of multiranges, PostgreSQL 15's `multirange_in` /
//! `multirange_out`:
//!
//! ```text
//! {}                          the empty multirange (blanks around and inside)
//! {[1,3), (5,7], empty}       ranges (each in `range_text.rs`'s syntax) or `empty`,
//!                             separated by commas
//! ```
//!
//! A range ends at its first `]` or `)` outside double quotes and not
//! after a backslash; its text is then read by `range_text.rs`'s
//! `range_in` (its own errors), and [`Multirange::new`] sorts and merges
//! the ranges. A malformed literal is 22P02 `malformed multirange
//! literal` with PostgreSQL's DETAIL. Output is `{`, the ranges as
//! `range_out` prints them separated by commas, `}`.

use crate::datetime_fields::DateOrder;
use crate::error::RowError;
use crate::multirange::Multirange;
use crate::range::RangeKind;
use crate::range_text::{range_in, range_out};
use crate::text_style::TextStyle;
use crate::time_zone::TimeZone;

/// Where the reader is between and within ranges.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    BeforeRange,
    InRange,
    InRangeEscaped,
    InQuotes,
    InQuotesEscaped,
    AfterRange,
    Finished,
}

/// Parses a multirange of `kind` (bounds read in `zone`).
pub fn multirange_in(
    kind: RangeKind,
    text: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<Multirange, RowError> {
    let malformed = |detail: &'static str| RowError::MalformedMultirange {
        text: text.to_string(),
        detail,
    };
    let blank = |c: char| c.is_ascii_whitespace();
    let body = text.trim_start_matches(blank);
    let Some(body) = body.strip_prefix('{') else {
        return Err(malformed("Missing left brace."));
    };
    let mut ranges = Vec::new();
    let mut state = State::BeforeRange;
    let mut seen = 0usize;
    let mut range_start = 0;
    let mut at = 0;
    let bytes = body.as_bytes();
    while at < bytes.len() && state != State::Finished {
        let c = bytes[at];
        state = match state {
            State::BeforeRange => match c {
                b'[' | b'(' => {
                    range_start = at;
                    State::InRange
                }
                b'}' if seen == 0 => State::Finished,
                _ if bytes
                    .get(at..at + 5)
                    .is_some_and(|w| w.eq_ignore_ascii_case(b"empty")) =>
                {
                    seen += 1;
                    at += 4;
                    State::AfterRange
                }
                c if c.is_ascii_whitespace() => State::BeforeRange,
                _ => return Err(malformed("Expected range start.")),
            },
            State::InRange => match c {
                b']' | b')' => {
                    ranges.push(range_in(kind, &body[range_start..=at], zone, order)?);
                    seen += 1;
                    State::AfterRange
                }
                b'"' => State::InQuotes,
                b'\\' => State::InRangeEscaped,
                _ => State::InRange,
            },
            State::InRangeEscaped => State::InRange,
            State::InQuotes => match c {
                b'"' if bytes.get(at + 1) == Some(&b'"') => {
                    at += 1;
                    State::InQuotes
                }
                b'"' => State::InRange,
                b'\\' => State::InQuotesEscaped,
                _ => State::InQuotes,
            },
            State::InQuotesEscaped => State::InQuotes,
            State::AfterRange => match c {
                b',' => State::BeforeRange,
                b'}' => State::Finished,
                c if c.is_ascii_whitespace() => State::AfterRange,
                _ => return Err(malformed("Expected comma or end of multirange.")),
            },
            State::Finished => unreachable!("the loop stops"),
        };
        at += 1;
    }
    if !body[at..].trim_start_matches(blank).is_empty() {
        return Err(malformed("Junk after closing right brace."));
    }
    if state != State::Finished {
        return Err(malformed("Unexpected end of input."));
    }
    Multirange::new(kind, ranges)
}

/// A multirange as PostgreSQL prints it (bounds written in `style`).
pub fn multirange_out(multirange: &Multirange, style: &TextStyle) -> String {
    let ranges: Vec<String> = multirange
        .ranges()
        .iter()
        .map(|r| range_out(r, style))
        .collect();
    format!("{{{}}}", ranges.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(kind: RangeKind, text: &str) -> Result<String, String> {
        multirange_in(kind, text, &TimeZone::UTC, DateOrder::Mdy)
            .map(|m| multirange_out(&m, &TextStyle::default()))
            .map_err(|e| format!("{e}: {}", e.detail().unwrap_or_default()))
    }

    // Proves the literal syntax: blanks, `empty`, merging, quoted
    // brackets inside a bound, and PostgreSQL's DETAIL for each
    // malformed form.
    #[test]
    fn multirange_literals_read_and_print_as_postgresql() {
        use RangeKind::*;
        assert_eq!(round(Int4, "  {}  ").unwrap(), "{}");
        assert_eq!(round(Int4, " { empty, empty }  ").unwrap(), "{}");
        assert_eq!(round(Int4, "{[1,2], [3,4]}").unwrap(), "{[1,5)}");
        assert_eq!(round(Num, "{(3,4), [1,2]}").unwrap(), "{[1,2],(3,4)}");
        assert_eq!(round(Int4, "{[\"1\",\"3\")}").unwrap(), "{[1,3)}");
        for (text, detail) in [
            ("", "Missing left brace."),
            ("{,}", "Expected range start."),
            ("{(,)}.", "Junk after closing right brace."),
            ("{[1,3),}", "Expected range start."),
            ("{[1,3) - }", "Expected comma or end of multirange."),
            ("{[1,3)", "Unexpected end of input."),
        ] {
            let err = round(Int4, text).unwrap_err();
            assert!(err.ends_with(detail), "{text}: {err}");
        }
    }
}
