//! PostgreSQL's number template patterns (formatting.c's `NUM` keywords),
//! read into pieces: the one reading of a number template that
//! `to_char(number, template)` (`to_char.rs`) and `to_number`
//! (`to_number.rs`) share. A keyword is matched as PostgreSQL lists it,
//! all upper or all lower case (`FM`, `fm`; not `Fm`); text in double
//! quotes (`\` quoting the next character) is text, as is any other
//! character (`\"` outside quotes is a quote).
//!
//! [`Summary`] is PostgreSQL's `NUMDesc_prepare`: the digit places
//! before and after the point and the 42601 errors for patterns that do
//! not go together.

use crate::error::SqlError;

/// One piece of a number template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumPiece {
    /// `9` (`zero`: `0`).
    Digit { zero: bool },
    /// `.` (`locale`: `D`).
    Point { locale: bool },
    /// `,` (`locale`: `G`).
    Group { locale: bool },
    /// `S`: the sign anchored to the number.
    Sign,
    /// `MI`: a minus sign.
    Minus,
    /// `PL`: a plus sign.
    Plus,
    /// `SG`: a plus or minus sign.
    PlusMinus,
    /// `PR`: a negative number in angle brackets.
    Brackets,
    /// `TH` / `th`: the ordinal suffix (`lower`: `th`).
    Ordinal { lower: bool },
    /// `L`: the currency symbol.
    Currency,
    /// `V`: shift by the digits after it.
    Shift,
    /// `RN` / `rn`: a roman numeral.
    Roman { lower: bool },
    /// `EEEE`: scientific notation.
    Exponent,
    /// `B`, `C`, `SP`: keywords that do nothing here.
    Inert,
    /// `FM`: fill mode (no padding).
    FillMode,
    /// Any other character.
    Text(char),
}

/// The keywords, the longest first where one starts another.
const KEYWORDS: &[(&str, NumPiece)] = &[
    ("EEEE", NumPiece::Exponent),
    ("eeee", NumPiece::Exponent),
    ("FM", NumPiece::FillMode),
    ("fm", NumPiece::FillMode),
    ("MI", NumPiece::Minus),
    ("mi", NumPiece::Minus),
    ("PL", NumPiece::Plus),
    ("pl", NumPiece::Plus),
    ("PR", NumPiece::Brackets),
    ("pr", NumPiece::Brackets),
    ("RN", NumPiece::Roman { lower: false }),
    ("rn", NumPiece::Roman { lower: true }),
    ("SG", NumPiece::PlusMinus),
    ("sg", NumPiece::PlusMinus),
    ("SP", NumPiece::Inert),
    ("sp", NumPiece::Inert),
    ("TH", NumPiece::Ordinal { lower: false }),
    ("th", NumPiece::Ordinal { lower: true }),
    (",", NumPiece::Group { locale: false }),
    (".", NumPiece::Point { locale: false }),
    ("0", NumPiece::Digit { zero: true }),
    ("9", NumPiece::Digit { zero: false }),
    ("B", NumPiece::Inert),
    ("b", NumPiece::Inert),
    ("C", NumPiece::Inert),
    ("c", NumPiece::Inert),
    ("D", NumPiece::Point { locale: true }),
    ("d", NumPiece::Point { locale: true }),
    ("G", NumPiece::Group { locale: true }),
    ("g", NumPiece::Group { locale: true }),
    ("L", NumPiece::Currency),
    ("l", NumPiece::Currency),
    ("S", NumPiece::Sign),
    ("s", NumPiece::Sign),
    ("V", NumPiece::Shift),
    ("v", NumPiece::Shift),
];

/// A template's pieces, in order.
pub fn pieces(template: &str) -> Vec<NumPiece> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if let Some((keyword, piece)) = KEYWORDS.iter().find(|(k, _)| rest.starts_with(k)) {
            out.push(*piece);
            rest = &rest[keyword.len()..];
            continue;
        }
        if c == '"' {
            let mut chars = rest[1..].char_indices();
            rest = "";
            while let Some((_, c)) = chars.next() {
                match c {
                    '"' => {
                        rest = chars.as_str();
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, quoted)) => out.push(NumPiece::Text(quoted)),
                        None => out.push(NumPiece::Text('\\')),
                    },
                    c => out.push(NumPiece::Text(c)),
                }
            }
            continue;
        }
        let c = match rest.strip_prefix("\\\"") {
            Some(_) => '"',
            None => c,
        };
        out.push(NumPiece::Text(c));
        rest = &rest[if c == '"' { 2 } else { c.len_utf8() }..];
    }
    out
}

/// What a template asks for (PostgreSQL's `NUMDesc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Digit places before the point (not counting those after `V`).
    pub pre: usize,
    /// Digit places after the point.
    pub post: usize,
    /// Digit places after `V`.
    pub shift: usize,
    pub point: bool,
    /// `S`, and whether it comes before the point (or there is none).
    pub sign: Option<bool>,
    pub minus: bool,
    pub plus: bool,
    pub brackets: bool,
    pub fill: bool,
    pub roman: bool,
    pub exponent: bool,
}

fn syntax(message: &str) -> SqlError {
    SqlError::new("42601", message)
}

impl Summary {
    /// The template's summary, or PostgreSQL's error for patterns that do
    /// not go together.
    pub fn of(pieces: &[NumPiece]) -> Result<Summary, SqlError> {
        let mut s = Summary::default();
        let mut shifting = false;
        for piece in pieces {
            match *piece {
                NumPiece::Digit { .. } => {
                    if s.brackets {
                        return Err(syntax(&format!(
                            "\"{}\" must be ahead of \"PR\"",
                            if *piece == (NumPiece::Digit { zero: true }) {
                                '0'
                            } else {
                                '9'
                            }
                        )));
                    }
                    // A `0` after `V` is a place before the point, as
                    // PostgreSQL counts it.
                    let zero = *piece == (NumPiece::Digit { zero: true });
                    match (shifting && !zero, s.point) {
                        (true, _) => s.shift += 1,
                        (false, true) => s.post += 1,
                        (false, false) => s.pre += 1,
                    }
                }
                NumPiece::Point { .. } => {
                    if s.point {
                        return Err(syntax("multiple decimal points"));
                    }
                    if shifting {
                        return Err(syntax("cannot use \"V\" and decimal point together"));
                    }
                    s.point = true;
                }
                NumPiece::FillMode => s.fill = true,
                NumPiece::Sign => {
                    if s.sign.is_some() {
                        return Err(syntax("cannot use \"S\" twice"));
                    }
                    if s.plus || s.minus || s.brackets {
                        return Err(syntax(
                            "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
                        ));
                    }
                    s.sign = Some(!s.point);
                }
                NumPiece::Minus | NumPiece::Plus | NumPiece::PlusMinus => {
                    if s.sign.is_some() {
                        let name = match piece {
                            NumPiece::Minus => "MI",
                            NumPiece::Plus => "PL",
                            _ => "SG",
                        };
                        return Err(syntax(&format!("cannot use \"S\" and \"{name}\" together")));
                    }
                    s.minus |= !matches!(piece, NumPiece::Plus);
                    s.plus |= !matches!(piece, NumPiece::Minus);
                }
                NumPiece::Brackets => {
                    if s.sign.is_some() || s.plus || s.minus {
                        return Err(syntax(
                            "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together",
                        ));
                    }
                    s.brackets = true;
                }
                NumPiece::Roman { .. } => s.roman = true,
                NumPiece::Shift => {
                    if s.point {
                        return Err(syntax("cannot use \"V\" and decimal point together"));
                    }
                    shifting = true;
                }
                NumPiece::Exponent => {
                    if s.exponent {
                        return Err(syntax("cannot use \"EEEE\" twice"));
                    }
                    if s.fill || s.sign.is_some() || s.brackets || s.minus || s.plus || s.roman {
                        return Err(syntax("\"EEEE\" is incompatible with other formats")
                            .with_detail(
                                "\"EEEE\" may only be used together with digit and decimal point patterns.",
                            ));
                    }
                    s.exponent = true;
                }
                NumPiece::Group { .. }
                | NumPiece::Ordinal { .. }
                | NumPiece::Currency
                | NumPiece::Inert
                | NumPiece::Text(_) => {}
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The pieces formatting.c reads from a template.
    #[test]
    fn reads_keywords_quotes_and_text() {
        use NumPiece::*;
        assert_eq!(
            pieces("FM9,990.0PR"),
            vec![
                FillMode,
                Digit { zero: false },
                Group { locale: false },
                Digit { zero: false },
                Digit { zero: false },
                Digit { zero: true },
                Point { locale: false },
                Digit { zero: true },
                Brackets
            ]
        );
        assert_eq!(
            pieces("Fm\"a\\\"\"x"),
            vec![Text('F'), Text('m'), Text('a'), Text('"'), Text('x')]
        );
        let s = Summary::of(&pieces("S999V99")).unwrap();
        assert_eq!((s.pre, s.post, s.shift, s.sign), (3, 0, 2, Some(true)));
        assert_eq!(Summary::of(&pieces("9.9.9")).unwrap_err().code, "42601");
    }
}
