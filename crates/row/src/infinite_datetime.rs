//! `infinity` and `-infinity` of `date`, `timestamp` and `timestamptz`:
//! the one owner of which stored values are infinite, and of their text.
//!
//! As PostgreSQL 15 (`DATEVAL_NOBEGIN` / `DATEVAL_NOEND`,
//! `DT_NOBEGIN` / `DT_NOEND`), an infinity is its type's extreme value:
//!
//! | type | `-infinity` | `infinity` |
//! |------|-------------|------------|
//! | `date` (days, `i32`) | `i32::MIN` | `i32::MAX` |
//! | `timestamp`, `timestamptz` (microseconds, `i64`) | `i64::MIN` | `i64::MAX` |
//!
//! so the order of the plain integers (comparisons, sorting, index keys)
//! puts `-infinity` before every finite value and `infinity` after, and
//! the binary wire format (the integer itself) is PostgreSQL's. Finite
//! values never reach these extremes: PostgreSQL's ranges end far inside
//! them, and arithmetic past those ranges is an error, not an infinity.
//!
//! Text: `infinity` or `-infinity`, in any case, blanks around (what
//! PostgreSQL 15 reads; `+infinity` is a syntax error there), and the
//! same words out in every DateStyle.

/// Which infinity a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Infinity {
    /// `-infinity`: before every other value.
    Negative,
    /// `infinity`: after every other value.
    Positive,
}

impl Infinity {
    /// The infinity a date holds, if it is one.
    pub fn of_date(days: i32) -> Option<Infinity> {
        match days {
            i32::MIN => Some(Infinity::Negative),
            i32::MAX => Some(Infinity::Positive),
            _ => None,
        }
    }

    /// The infinity a timestamp (or timestamptz) holds, if it is one.
    pub fn of_timestamp(micros: i64) -> Option<Infinity> {
        match micros {
            i64::MIN => Some(Infinity::Negative),
            i64::MAX => Some(Infinity::Positive),
            _ => None,
        }
    }

    /// The infinity `text` names (`infinity`, `-infinity`, any case,
    /// blanks around), if it names one.
    pub fn of_text(text: &str) -> Option<Infinity> {
        let word = text.trim();
        if word.eq_ignore_ascii_case("infinity") {
            Some(Infinity::Positive)
        } else if word.eq_ignore_ascii_case("-infinity") {
            Some(Infinity::Negative)
        } else {
            None
        }
    }

    /// The stored date of this infinity.
    pub fn date(self) -> i32 {
        match self {
            Infinity::Negative => i32::MIN,
            Infinity::Positive => i32::MAX,
        }
    }

    /// The stored timestamp (or timestamptz) of this infinity.
    pub fn timestamp(self) -> i64 {
        match self {
            Infinity::Negative => i64::MIN,
            Infinity::Positive => i64::MAX,
        }
    }

    /// Its text, in every DateStyle.
    pub fn word(self) -> &'static str {
        match self {
            Infinity::Negative => "-infinity",
            Infinity::Positive => "infinity",
        }
    }

    /// The double of this infinity (`extract` / `date_part` of fields
    /// that grow with time: `epoch`, `year`, `julian`, ...).
    pub fn float(self) -> f64 {
        match self {
            Infinity::Negative => f64::NEG_INFINITY,
            Infinity::Positive => f64::INFINITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words read and written, and the stored extremes both ways.
    #[test]
    fn words_and_extremes() {
        assert_eq!(Infinity::of_text(" InFinity\t"), Some(Infinity::Positive));
        assert_eq!(Infinity::of_text("-INFINITY"), Some(Infinity::Negative));
        assert_eq!(Infinity::of_text("+infinity"), None);
        assert_eq!(Infinity::of_text("infinit"), None);
        for inf in [Infinity::Negative, Infinity::Positive] {
            assert_eq!(Infinity::of_date(inf.date()), Some(inf));
            assert_eq!(Infinity::of_timestamp(inf.timestamp()), Some(inf));
            assert_eq!(Infinity::of_text(inf.word()), Some(inf));
        }
        assert_eq!(Infinity::of_date(0), None);
        assert_eq!(Infinity::of_timestamp(i64::MAX - 1), None);
    }
}
