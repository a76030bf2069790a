//! Functions of intervals: `justify_days`, `justify_hours`,
//! `justify_interval`, `age(a, b)` (and `age(t)`, bound as `age(CURRENT_DATE, t)`),
//! `make_interval(years, months, weeks, days, hours, mins, secs)` with
//! positional or named arguments, and the interval forms of `EXTRACT` /
//! `date_part` ([`part`]) and `date_trunc` ([`trunc`]). The arithmetic
//! itself is folio-row's `Interval`.

use crate::error::SqlError;
use crate::scalar::Scalar;
use folio_row::{Interval, Numeric, SqlType, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr};

const HOUR: i64 = 3_600_000_000;
const MINUTE: i64 = 60_000_000;
const SECOND: i64 = 1_000_000;

/// An interval function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalFunc {
    JustifyDays,
    JustifyHours,
    JustifyInterval,
    Age,
    MakeInterval,
}

const NAMES: [(&str, IntervalFunc); 5] = [
    ("justify_days", IntervalFunc::JustifyDays),
    ("justify_hours", IntervalFunc::JustifyHours),
    ("justify_interval", IntervalFunc::JustifyInterval),
    ("age", IntervalFunc::Age),
    ("make_interval", IntervalFunc::MakeInterval),
];

/// `make_interval`'s parameters, in order.
const MAKE_INTERVAL: [&str; 7] = ["years", "months", "weeks", "days", "hours", "mins", "secs"];

impl IntervalFunc {
    pub fn of(name: &str) -> Option<IntervalFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether `count` arguments are accepted (`age` of one is bound as
    /// `age` of two, [`IntervalFunc::bind`]).
    pub fn takes(self, count: usize) -> bool {
        match self {
            IntervalFunc::Age => count == 2,
            IntervalFunc::MakeInterval => count == MAKE_INTERVAL.len(),
            _ => count == 1,
        }
    }

    /// The arguments of a call of `name` when it is one that binds its
    /// arguments its own way: `make_interval`'s, positional then named,
    /// the missing ones zero; `age(t)`'s, with `CURRENT_DATE` before `t`
    /// (PostgreSQL's `age(timestamp)`). `None` for other calls.
    pub fn bind(
        name: &str,
        args: &[FunctionArg],
        bind: impl Fn(&Expr) -> Result<Scalar, SqlError>,
    ) -> Option<Result<Vec<Scalar>, SqlError>> {
        match IntervalFunc::of(name)? {
            IntervalFunc::MakeInterval => Some(make_interval_args(args, bind)),
            IntervalFunc::Age if args.len() == 1 => Some((|| {
                let [FunctionArg::Unnamed(FunctionArgExpr::Expr(t))] = args else {
                    return Err(SqlError::unsupported(format!("age({})", args[0])));
                };
                let today = Scalar::Cast(Box::new(Scalar::Now), SqlType::Date);
                Ok(vec![today, bind(t)?])
            })()),
            _ => None,
        }
    }

    pub fn ty(self) -> SqlType {
        SqlType::Interval(None)
    }

    /// Its value (no argument NULL: these are strict).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let interval = |v: &Value| match crate::types::coerce(v.clone(), SqlType::Interval(None))? {
            Value::Interval(i) => Ok(i),
            other => Err(crate::functions::no_match(format!(
                "function {}({}) does not exist",
                self.name().unwrap_or("?"),
                other.type_name()
            ))),
        };
        Ok(Value::Interval(match self {
            IntervalFunc::JustifyDays => interval(&args[0])?.justify_days()?,
            IntervalFunc::JustifyHours => interval(&args[0])?.justify_hours()?,
            IntervalFunc::JustifyInterval => interval(&args[0])?.justify_interval()?,
            IntervalFunc::Age => Interval::age(instant(&args[0])?, instant(&args[1])?)?,
            IntervalFunc::MakeInterval => make_interval(args)?,
        }))
    }
}

/// A date or timestamp argument as microseconds since 2000-01-01 (a
/// quoted literal read as a timestamp).
fn instant(v: &Value) -> Result<i64, SqlError> {
    if let Some(micros) = crate::date_arith::instant(v) {
        return Ok(micros);
    }
    match v {
        Value::Text(t) => Ok(folio_row::parse_timestamp(t, false)?),
        other => Err(crate::functions::no_match(format!(
            "function age({}) does not exist",
            other.type_name()
        ))),
    }
}

fn make_interval_args(
    args: &[FunctionArg],
    bind: impl Fn(&Expr) -> Result<Scalar, SqlError>,
) -> Result<Vec<Scalar>, SqlError> {
    let slots = crate::named_arguments::slots(&MAKE_INTERVAL, args).ok_or_else(|| {
        crate::functions::no_match(
            "function make_interval with these arguments does not exist".into(),
        )
    })?;
    slots
        .into_iter()
        .map(|slot| match slot {
            Some(e) => bind(e),
            None => Ok(Scalar::Const(Value::Int4(0))),
        })
        .collect()
}

/// `make_interval(years, months, weeks, days, hours, mins, secs)`.
fn make_interval(args: &[Value]) -> Result<Interval, SqlError> {
    let out_of_range = || SqlError::new("22008", "interval out of range");
    let int = |v: &Value| -> Result<i64, SqlError> {
        match crate::types::cast(v.clone(), SqlType::Int4)? {
            Value::Int4(x) => Ok(i64::from(x)),
            _ => Err(out_of_range()),
        }
    };
    let secs = match crate::types::cast(args[6].clone(), SqlType::Float8)? {
        Value::Float8(x) => x,
        _ => 0.0,
    };
    let months = int(&args[0])? * 12 + int(&args[1])?;
    let days = int(&args[2])? * 7 + int(&args[3])?;
    let micros = (int(&args[4])? * HOUR + int(&args[5])? * MINUTE) as f64 + (secs * 1e6).round();
    if !micros.is_finite() || micros.abs() >= 9.2e18 {
        return Err(out_of_range());
    }
    Ok(Interval::new(
        i32::try_from(months).map_err(|_| out_of_range())?,
        i32::try_from(days).map_err(|_| out_of_range())?,
        micros as i64,
    ))
}

fn unit_error(field: &str) -> SqlError {
    SqlError::new(
        "0A000",
        format!("unit \"{field}\" not supported for type interval"),
    )
}

/// `EXTRACT(field FROM interval)` (numeric, PostgreSQL 15's scale per
/// field) or `date_part(field, interval)` (`float`: double precision).
pub fn part(field: &str, i: Interval, float: bool) -> Result<Value, SqlError> {
    let field = field.to_ascii_lowercase();
    // date_part's epoch: PostgreSQL's sum of doubles, in its order.
    if float && field == "epoch" {
        return Ok(Value::Float8(
            i.micros as f64 / 1e6
                + 365.25 * 86_400.0 * f64::from(i.months / 12)
                + 30.0 * 86_400.0 * f64::from(i.months % 12)
                + 86_400.0 * f64::from(i.days),
        ));
    }
    let years = i64::from(i.months / 12);
    let time_seconds = i.micros % MINUTE;
    // The value's mantissa and scale (digits after the point).
    let (mantissa, scale): (i128, u8) = match field.as_str() {
        "microseconds" => (i128::from(time_seconds), 0),
        "milliseconds" => (i128::from(time_seconds), 3),
        "second" => (i128::from(time_seconds), 6),
        "minute" => (i128::from(i.micros / MINUTE % 60), 0),
        "hour" => (i128::from(i.micros / HOUR), 0),
        "day" => (i128::from(i.days), 0),
        "month" => (i128::from(i.months % 12), 0),
        "quarter" => (i128::from(i.months % 12 / 3 + 1), 0),
        "year" => (i128::from(years), 0),
        "decade" => (i128::from(years / 10), 0),
        "century" => (i128::from(years / 100), 0),
        "millennium" => (i128::from(years / 1000), 0),
        // A year is 365.25 days, a month 30.
        "epoch" => {
            let seconds = i128::from(years) * 31_557_600
                + i128::from(i.months % 12) * 30 * 86_400
                + i128::from(i.days) * 86_400;
            (seconds * 1_000_000 + i128::from(i.micros), 6)
        }
        _ => return Err(unit_error(&field)),
    };
    // The microsecond fields' mantissas are microseconds: the scale puts
    // the point where milliseconds (3) and seconds (6) need it.
    Ok(if float {
        Value::Float8(mantissa as f64 / 10f64.powi(i32::from(scale)))
    } else {
        Value::Numeric(Numeric::new(mantissa, scale)?)
    })
}

/// `date_trunc(field, interval)`: the fields below `field` zeroed.
pub fn trunc(field: &str, i: Interval) -> Result<Interval, SqlError> {
    let field = field.to_ascii_lowercase();
    let years = i.months / 12;
    let cut = |unit: i64| i.micros / unit * unit;
    Ok(match field.as_str() {
        "millennium" => Interval::new(years / 1000 * 12000, 0, 0),
        "century" => Interval::new(years / 100 * 1200, 0, 0),
        "decade" => Interval::new(years / 10 * 120, 0, 0),
        "year" => Interval::new(years * 12, 0, 0),
        "quarter" => Interval::new(years * 12 + i.months % 12 / 3 * 3, 0, 0),
        "month" => Interval::new(i.months, 0, 0),
        "day" => Interval::new(i.months, i.days, 0),
        "hour" => Interval::new(i.months, i.days, cut(HOUR)),
        "minute" => Interval::new(i.months, i.days, cut(MINUTE)),
        "second" => Interval::new(i.months, i.days, cut(SECOND)),
        "milliseconds" => Interval::new(i.months, i.days, cut(1_000)),
        "microseconds" => i,
        _ => return Err(unit_error(&field)),
    })
}
