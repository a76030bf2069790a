//! Dates and timestamps in PostgreSQL 15's four `DateStyle` output
//! styles. A `DateStyle` is an output style and a field order; the order
//! also decides how ambiguous input such as `1/8/1999` is read
//! (`datetime_fields.rs`), and, in the `SQL` and `Postgres` styles,
//! whether the day is written before the month (`DMY`) or after it (`MDY`
//! and `YMD`).
//!
//! | style | date | timestamp (with time zone) |
//! |---|---|---|
//! | `ISO` | `1997-12-17` | `1997-12-17 07:37:16-08` |
//! | `SQL` | `12/17/1997`, DMY `17/12/1997` | `12/17/1997 07:37:16.5 PST` |
//! | `Postgres` | `12-17-1997`, DMY `17-12-1997` | `Wed Dec 17 07:37:16.5 1997 PST`, DMY `Wed 17 Dec ...` |
//! | `German` | `17.12.1997` | `17.12.1997 07:37:16.5 PST` |
//!
//! Outside ISO a timestamptz's zone is its abbreviation at that instant
//! (`PST`, `LMT`, `+05` for a zone that has none but its offset), and an
//! era `BC` comes last in every style. Years are at least four digits;
//! fractions of a second are written without trailing zeros; `infinity`
//! is the same in all styles, as are times, which the styles do not
//! change.

use crate::datetime_fields::DateOrder;

/// The abbreviations PostgreSQL writes for the days of the week, Sunday
/// first.
pub const WEEKDAY_ABBREVS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/// The abbreviations PostgreSQL writes for the months, January first.
pub const MONTH_ABBREVS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The output half of the `DateStyle` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DateOutput {
    #[default]
    Iso,
    Sql,
    Postgres,
    German,
}

impl DateOutput {
    /// The style a word of a `DateStyle` value names (any case).
    pub fn named(word: &str) -> Option<DateOutput> {
        Some(match word.to_ascii_lowercase().as_str() {
            "iso" => DateOutput::Iso,
            "sql" => DateOutput::Sql,
            "postgres" => DateOutput::Postgres,
            "german" => DateOutput::German,
            _ => return None,
        })
    }

    /// As `SHOW DateStyle` prints it (`Postgres`).
    pub fn word(self) -> &'static str {
        match self {
            DateOutput::Iso => "ISO",
            DateOutput::Sql => "SQL",
            DateOutput::Postgres => "Postgres",
            DateOutput::German => "German",
        }
    }
}

/// The `DateStyle` setting: how dates are written and how ambiguous ones
/// are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DateStyle {
    pub output: DateOutput,
    pub order: DateOrder,
}

impl DateStyle {
    /// PostgreSQL's default, `ISO, MDY`.
    pub const ISO_MDY: DateStyle = DateStyle {
        output: DateOutput::Iso,
        order: DateOrder::Mdy,
    };

    /// As `SHOW DateStyle` prints it (`ISO, MDY`).
    pub fn show(self) -> String {
        format!("{}, {}", self.output.word(), self.order.word())
    }
}

/// The calendar fields of a day count since 2000-01-01.
struct Day {
    year: i64,
    month: i64,
    day: i64,
    weekday: &'static str,
    /// `" BC"` for a year before 1 AD, else empty.
    era: &'static str,
}

impl Day {
    fn of(days: i64) -> Day {
        let (y, month, day) = crate::calendar::ymd(days);
        let (year, era) = if y <= 0 { (1 - y, " BC") } else { (y, "") };
        // 2000-01-01, day 0, was a Saturday.
        let weekday = WEEKDAY_ABBREVS[(days + 6).rem_euclid(7) as usize];
        Day {
            year,
            month,
            day,
            weekday,
            era,
        }
    }

    /// The date in `style`, without its era.
    fn text(&self, style: DateStyle) -> String {
        let Day {
            year, month, day, ..
        } = self;
        let dmy = style.order == DateOrder::Dmy;
        match style.output {
            DateOutput::Iso => format!("{year:04}-{month:02}-{day:02}"),
            DateOutput::Sql if dmy => format!("{day:02}/{month:02}/{year:04}"),
            DateOutput::Sql => format!("{month:02}/{day:02}/{year:04}"),
            DateOutput::Postgres if dmy => format!("{day:02}-{month:02}-{year:04}"),
            DateOutput::Postgres => format!("{month:02}-{day:02}-{year:04}"),
            DateOutput::German => format!("{day:02}.{month:02}.{year:04}"),
        }
    }
}

/// A date (days since 2000-01-01, finite) in `style`.
pub fn date_text(days: i64, style: DateStyle) -> String {
    let day = Day::of(days);
    format!("{}{}", day.text(style), day.era)
}

/// A timestamp (microseconds since 2000-01-01 on the clock it is written
/// in, finite) in `style`. `zone`: a timestamptz's offset east of UTC in
/// seconds (written in ISO) and its abbreviation (written in the others).
pub fn timestamp_text(usecs: i64, zone: Option<(i32, &str)>, style: DateStyle) -> String {
    let days = usecs.div_euclid(crate::interval::USECS_PER_DAY);
    let day = Day::of(days);
    let time = crate::time_of_day::format_time(usecs.rem_euclid(crate::interval::USECS_PER_DAY));
    let mut out = match style.output {
        DateOutput::Postgres => {
            let month = MONTH_ABBREVS[(day.month - 1) as usize];
            let (weekday, d, year) = (day.weekday, day.day, day.year);
            match style.order {
                DateOrder::Dmy => format!("{weekday} {d:02} {month} {time} {year:04}"),
                _ => format!("{weekday} {month} {d:02} {time} {year:04}"),
            }
        }
        _ => format!("{} {time}", day.text(style)),
    };
    match (zone, style.output) {
        (None, _) => {}
        (Some((east, _)), DateOutput::Iso) => out.push_str(&crate::time_zone::offset_text(east)),
        (Some((_, abbreviation)), _) => {
            out.push(' ');
            out.push_str(abbreviation);
        }
    }
    out.push_str(day.era);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(output: DateOutput, order: DateOrder) -> DateStyle {
        DateStyle { output, order }
    }

    // Proves each style's date and timestamp layout, the field order's
    // effect, the zone's abbreviation and the era written last
    // (PostgreSQL 15's outputs).
    #[test]
    fn styles_write_postgres_layouts() {
        let days = crate::calendar::day_number(1997, 12, 17);
        let at = days * crate::interval::USECS_PER_DAY + (7 * 3600 + 37 * 60 + 16) * 1_000_000;
        let half = at + 500_000;
        let pst = Some((-8 * 3600, "PST"));
        let cases = [
            (
                DateOutput::Iso,
                DateOrder::Mdy,
                "1997-12-17",
                "1997-12-17 07:37:16-08",
            ),
            (
                DateOutput::Sql,
                DateOrder::Mdy,
                "12/17/1997",
                "12/17/1997 07:37:16 PST",
            ),
            (
                DateOutput::Sql,
                DateOrder::Dmy,
                "17/12/1997",
                "17/12/1997 07:37:16 PST",
            ),
            (
                DateOutput::Postgres,
                DateOrder::Ymd,
                "12-17-1997",
                "Wed Dec 17 07:37:16 1997 PST",
            ),
            (
                DateOutput::Postgres,
                DateOrder::Dmy,
                "17-12-1997",
                "Wed 17 Dec 07:37:16 1997 PST",
            ),
            (
                DateOutput::German,
                DateOrder::Mdy,
                "17.12.1997",
                "17.12.1997 07:37:16 PST",
            ),
        ];
        for (output, order, date, stamp) in cases {
            let s = style(output, order);
            assert_eq!(date_text(days, s), date);
            assert_eq!(timestamp_text(at, pst, s), stamp);
        }
        let postgres = style(DateOutput::Postgres, DateOrder::Mdy);
        assert_eq!(
            timestamp_text(half, None, postgres),
            "Wed Dec 17 07:37:16.5 1997"
        );
        let bc = crate::calendar::day_number(-43, 3, 15);
        let bc_at = bc * crate::interval::USECS_PER_DAY + 10 * 3_600_000_000;
        let sql = style(DateOutput::Sql, DateOrder::Mdy);
        assert_eq!(date_text(bc, sql), "03/15/0044 BC");
        assert_eq!(
            timestamp_text(bc_at, Some((0, "LMT")), sql),
            "03/15/0044 10:00:00 LMT BC"
        );
        assert_eq!(
            timestamp_text(bc_at, Some((0, "LMT")), postgres),
            "Fri Mar 15 10:00:00 0044 LMT BC"
        );
        let far = crate::calendar::day_number(20000, 1, 1);
        assert_eq!(date_text(far, postgres), "01-01-20000");
    }
}
