//! Date/time text cut into fields, as PostgreSQL 15 cuts it (its
//! `ParseDateTime` rules), before `datetime_fields.rs` decides what each
//! field is. The rules, by the field's first character (blanks between
//! fields are skipped, other punctuation ends a field and is dropped):
//!
//! | first      | what follows it                    | kind                      |
//! |------------|------------------------------------|---------------------------|
//! | digit      | digits, then `:`, digits `:` `.`   | [`Kind::Time`]            |
//! | digit      | digits, `-`/`/`/`.`, digits, and the same delimiter again, more | [`Kind::Date`] |
//! | digit      | digits `.` digits (no second `.`)  | [`Kind::Number`]          |
//! | digit      | digits, `-`/`/`, digits            | [`Kind::Date`]            |
//! | digit      | digits, a delimiter, letters (`99-jan-08`) | [`Kind::Date`]    |
//! | digit, `.` | digits (and one fraction)          | [`Kind::Number`]          |
//! | letter     | letters                            | [`Kind::Text`]            |
//! | letter     | letters, then `-`/`/`/`.`, or a digit or `+` after a word that is no keyword: a zone name (`america/new_york`, `pst+8`) or a date (`jan-08-1999`) | [`Kind::Date`] |
//! | `+`, `-`   | blanks, then digits `:` `.` `-`    | [`Kind::Zone`]            |
//! | `+`, `-`   | blanks, then letters (`-infinity`) | [`Kind::Special`]         |
//!
//! Letters are lowered. Any other character (a control character, a
//! non-ASCII one) is bad syntax, as is text past PostgreSQL's limits: 25
//! fields, 128 bytes of fields.

use crate::datetime_fields::Fault;

/// What a field looks like (PostgreSQL's `DTK_NUMBER`, `DTK_STRING`,
/// `DTK_DATE`, `DTK_TIME`, `DTK_TZ`, `DTK_SPECIAL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Number,
    Text,
    Date,
    Time,
    Zone,
    Special,
}

/// One field of the text: its characters (letters lowered) and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub text: String,
    pub kind: Kind,
}

/// The most fields a text may have (PostgreSQL's `MAXDATEFIELDS`).
pub(crate) const MAX_FIELDS: usize = 25;

/// The bytes the fields may take, each with one byte to end it
/// (PostgreSQL's work buffer, `MAXDATELEN + 1`).
const MAX_FIELD_BYTES: usize = 129;

/// `text` cut into fields (module table); `Fault::Syntax` where
/// PostgreSQL's `ParseDateTime` fails. `keyword` says whether a word is
/// one of the date/time keywords, which decides whether a word followed
/// by a digit or `+` starts a zone name.
pub(crate) fn tokens(text: &str, keyword: impl Fn(&str) -> bool) -> Result<Vec<Token>, Fault> {
    let b = text.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mut fields: Vec<Token> = Vec::new();
    let mut used = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == 0x0b {
            i += 1;
            continue;
        }
        if fields.len() >= MAX_FIELDS {
            return Err(Fault::Syntax);
        }
        if c != b'.' && !c.is_ascii_alphanumeric() && c != b'+' && c != b'-' {
            if c.is_ascii_punctuation() {
                i += 1;
                continue;
            }
            return Err(Fault::Syntax);
        }
        let mut field = String::new();
        let mut push = |field: &mut String, c: u8| -> Result<(), Fault> {
            if used + 1 >= MAX_FIELD_BYTES {
                return Err(Fault::Syntax);
            }
            used += 1;
            field.push(c.to_ascii_lowercase() as char);
            Ok(())
        };
        let kind;
        if c.is_ascii_digit() {
            while at(i).is_ascii_digit() {
                push(&mut field, b[i])?;
                i += 1;
            }
            let next = at(i);
            if next == b':' {
                kind = Kind::Time;
                while matches!(at(i), b'0'..=b'9' | b':' | b'.') {
                    push(&mut field, b[i])?;
                    i += 1;
                }
            } else if matches!(next, b'-' | b'/' | b'.') {
                let delimiter = next;
                push(&mut field, delimiter)?;
                i += 1;
                if at(i).is_ascii_digit() {
                    let mut k = if delimiter == b'.' {
                        Kind::Number
                    } else {
                        Kind::Date
                    };
                    while at(i).is_ascii_digit() {
                        push(&mut field, b[i])?;
                        i += 1;
                    }
                    // Three fields only with the same delimiter twice.
                    if at(i) == delimiter {
                        k = Kind::Date;
                        while at(i).is_ascii_digit() || at(i) == delimiter {
                            push(&mut field, b[i])?;
                            i += 1;
                        }
                    }
                    kind = k;
                } else {
                    kind = Kind::Date;
                    while at(i).is_ascii_alphanumeric() || at(i) == delimiter {
                        push(&mut field, b[i])?;
                        i += 1;
                    }
                }
            } else {
                kind = Kind::Number;
            }
        } else if c == b'.' {
            push(&mut field, c)?;
            i += 1;
            while at(i).is_ascii_digit() {
                push(&mut field, b[i])?;
                i += 1;
            }
            kind = Kind::Number;
        } else if c.is_ascii_alphabetic() {
            while at(i).is_ascii_alphabetic() {
                push(&mut field, b[i])?;
                i += 1;
            }
            let next = at(i);
            let zone_or_date = matches!(next, b'-' | b'/' | b'.')
                || ((next == b'+' || next.is_ascii_digit()) && !keyword(&field));
            if zone_or_date {
                loop {
                    push(&mut field, b[i])?;
                    i += 1;
                    let n = at(i);
                    if !(n.is_ascii_alphanumeric()
                        || matches!(n, b'+' | b'-' | b'/' | b'_' | b'.' | b':'))
                    {
                        break;
                    }
                }
                kind = Kind::Date;
            } else {
                kind = Kind::Text;
            }
        } else {
            // A sign: a numeric zone, or a special word (`-infinity`).
            push(&mut field, c)?;
            i += 1;
            while at(i).is_ascii_whitespace() {
                i += 1;
            }
            if at(i).is_ascii_digit() {
                while matches!(at(i), b'0'..=b'9' | b':' | b'.' | b'-') {
                    push(&mut field, b[i])?;
                    i += 1;
                }
                kind = Kind::Zone;
            } else if at(i).is_ascii_alphabetic() {
                while at(i).is_ascii_alphabetic() {
                    push(&mut field, b[i])?;
                    i += 1;
                }
                kind = Kind::Special;
            } else {
                return Err(Fault::Syntax);
            }
        }
        used += 1;
        fields.push(Token { text: field, kind });
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, Kind)> {
        let keyword = |w: &str| matches!(w, "j" | "t" | "y" | "m" | "d");
        tokens(text, keyword)
            .unwrap()
            .into_iter()
            .map(|t| (t.text, t.kind))
            .collect()
    }

    /// Each row of the module table, and the cuts between fields.
    #[test]
    fn fields_are_cut_as_postgresql_cuts_them() {
        use Kind::*;
        let t = |s: &str, k| (s.to_string(), k);
        assert_eq!(
            kinds("January 8, 1999"),
            vec![t("january", Text), t("8", Number), t("1999", Number)]
        );
        assert_eq!(kinds("1999-01-08"), vec![t("1999-01-08", Date)]);
        assert_eq!(kinds("1999.008"), vec![t("1999.008", Number)]);
        assert_eq!(kinds("99-Jan-08"), vec![t("99-jan-08", Date)]);
        assert_eq!(kinds("J2451187"), vec![t("j", Text), t("2451187", Number)]);
        assert_eq!(
            kinds("17:32:01.5 PST+8"),
            vec![t("17:32:01.5", Time), t("pst+8", Date)]
        );
        assert_eq!(
            kinds("12:00 - 05:30"),
            vec![t("12:00", Time), t("-05:30", Zone)]
        );
        assert_eq!(kinds("-infinity"), vec![t("-infinity", Special)]);
        assert_eq!(kinds("America/New_York"), vec![t("america/new_york", Date)]);
        assert_eq!(tokens("ţ", |_| false), Err(Fault::Syntax));
        assert_eq!(tokens("1 +", |_| false), Err(Fault::Syntax));
        assert_eq!(tokens(&"1 ".repeat(26), |_| false), Err(Fault::Syntax));
    }
}
