//! PostgreSQL's date/time template patterns (its `DCH` keywords), read
//! into pieces: the one reading of a template that `to_char` (which
//! prints by it, `to_char.rs`) and `to_timestamp`/`to_date` (which parse
//! by it, `to_timestamp.rs`) share. A keyword is matched whatever its
//! case, the longest first; `FM` before it and `TH`/`th` after it are
//! its modifiers; text in double quotes (`\"` a quote) and any other
//! character are text.

/// The keywords (the longest one a text starts with is taken).
const KEYWORDS: [&str; 55] = [
    "Y,YYY", "YYYY", "YYY", "YY", "IYYY", "IYY", "IY", "IDDD", "ID", "I", "A.M.", "P.M.", "AM",
    "PM", "MONTH", "MON", "MM", "MS", "MI", "DAY", "DDD", "DD", "DY", "D", "HH24", "HH12", "HH",
    "SSSSS", "SSSS", "SS", "US", "CC", "Q", "RM", "WW", "W", "IW", "J", "TZH", "TZM", "TZ", "OF",
    "Y", "FX", "TH", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "A.D.", "B.C.", "AD", "BC",
];

pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

pub const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

pub const ROMAN: [&str; 12] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
];

/// How a name is written: as the keyword's case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Upper,
    Capitalized,
    Lower,
}

impl Case {
    pub fn of(written: &str) -> Case {
        let mut letters = written.chars().filter(|c| c.is_ascii_alphabetic());
        match (letters.next(), letters.next()) {
            (Some(a), _) if a.is_ascii_lowercase() => Case::Lower,
            (Some(_), Some(b)) if b.is_ascii_lowercase() => Case::Capitalized,
            _ => Case::Upper,
        }
    }

    pub fn apply(self, name: &str) -> String {
        match self {
            Case::Lower => name.to_string(),
            Case::Upper => name.to_ascii_uppercase(),
            Case::Capitalized => {
                let mut out = name[..1].to_ascii_uppercase();
                out.push_str(&name[1..]);
                out
            }
        }
    }
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece<'t> {
    /// A keyword (upper case) as `written`, with `FM` before it (`fill`)
    /// and the case of a `TH` after a numeric one (`ordinal`).
    Field {
        keyword: &'static str,
        written: &'t str,
        fill: bool,
        ordinal: Option<Case>,
    },
    /// Text: quoted, an escaped quote, or one other character.
    Text(String),
}

/// Whether a keyword prints (and reads) a number, which takes a `TH`.
fn numeric(keyword: &str) -> bool {
    !matches!(
        keyword,
        "MONTH"
            | "MON"
            | "RM"
            | "DAY"
            | "DY"
            | "AM"
            | "PM"
            | "A.M."
            | "P.M."
            | "TZ"
            | "TZH"
            | "TZM"
            | "OF"
            | "FX"
            | "TH"
            | "AD"
            | "BC"
            | "A.D."
            | "B.C."
    )
}

/// The template's pieces, in order.
pub fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    let mut fill = false;
    while !rest.is_empty() {
        if rest.starts_with("FM") || rest.starts_with("fm") {
            fill = true;
            rest = &rest[2..];
            continue;
        }
        if let Some(quoted) = rest.strip_prefix('"') {
            // Up to the closing quote; `\"` inside is a quote.
            let mut text = String::new();
            let mut chars = quoted.chars();
            loop {
                match chars.next() {
                    None | Some('"') => break,
                    Some('\\') if chars.as_str().starts_with('"') => {
                        text.push('"');
                        chars.next();
                    }
                    Some(c) => text.push(c),
                }
            }
            rest = chars.as_str();
            out.push(Piece::Text(text));
            continue;
        }
        // A backslash escapes a double quote.
        if let Some(after) = rest.strip_prefix("\\\"") {
            out.push(Piece::Text("\"".into()));
            rest = after;
            continue;
        }
        let Some(keyword) = KEYWORDS
            .iter()
            .filter(|k| {
                rest.get(..k.len()).is_some_and(|w| {
                    // The eras are keywords in upper or lower case only
                    // (`Ad` is `A` and `D`), as PostgreSQL's table has them.
                    let era = matches!(**k, "AD" | "BC" | "A.D." | "B.C.");
                    w.eq_ignore_ascii_case(k) && (!era || w == **k || w == k.to_ascii_lowercase())
                })
            })
            .max_by_key(|k| k.len())
        else {
            let mut chars = rest.chars();
            out.extend(chars.next().map(|c| Piece::Text(c.to_string())));
            rest = chars.as_str();
            fill = false;
            continue;
        };
        let written = &rest[..keyword.len()];
        rest = &rest[keyword.len()..];
        let ordinal = match rest.get(..2) {
            Some("TH") if numeric(keyword) => Some(Case::Upper),
            Some("th") if numeric(keyword) => Some(Case::Lower),
            _ => None,
        };
        if ordinal.is_some() {
            rest = &rest[2..];
        }
        out.push(Piece::Field {
            keyword,
            written,
            fill,
            ordinal,
        });
        fill = false;
    }
    out
}
