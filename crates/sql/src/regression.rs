//! The two-argument statistical aggregates of PostgreSQL: `corr`,
//! `covar_pop`, `covar_samp` and the `regr_*` family, each of `(Y, X)`
//! taken as double precision (integers and numerics are cast), over the
//! rows where neither is NULL.
//!
//! The running state is PostgreSQL's (`float8_regr_accum`): N, Σx, Σy and
//! the centred sums Sxx, Syy, Sxy updated by the Youngs-Cramer method,
//! each new pair adding `tx·tx / (N·(N-1))` (with `tx = x·N - Σx`) in the
//! order PostgreSQL multiplies, so the results print with its digits. A sum
//! that overflows while the inputs are finite is 22003; an infinite or NaN
//! first input makes the sums it touches NaN. The results, NULL over too
//! few rows (and for a vertical or horizontal line where PostgreSQL's is):
//!
//! - `regr_count` (bigint): N; `regr_avgx`, `regr_avgy`: Σx/N, Σy/N;
//! - `regr_sxx`, `regr_syy` (never negative), `regr_sxy`;
//! - `covar_pop`: Sxy/N; `covar_samp`: Sxy/(N-1), NULL under two rows;
//! - `corr`: Sxy/√(Sxx·Syy), NULL when Sxx or Syy is 0;
//! - `regr_slope`: Sxy/Sxx; `regr_intercept`: (Σy - Σx·Sxy/Sxx)/N; NULL
//!   when Sxx is 0; `regr_r2`: Sxy²/(Sxx·Syy), 1 when only Syy is 0.

use crate::error::SqlError;
use crate::types;
use folio_row::{SqlType, Value};

/// A two-argument statistical aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regr {
    Corr,
    CovarPop,
    CovarSamp,
    Count,
    AvgX,
    AvgY,
    Sxx,
    Syy,
    Sxy,
    Slope,
    Intercept,
    R2,
}

const NAMES: [(&str, Regr); 12] = [
    ("corr", Regr::Corr),
    ("covar_pop", Regr::CovarPop),
    ("covar_samp", Regr::CovarSamp),
    ("regr_count", Regr::Count),
    ("regr_avgx", Regr::AvgX),
    ("regr_avgy", Regr::AvgY),
    ("regr_sxx", Regr::Sxx),
    ("regr_syy", Regr::Syy),
    ("regr_sxy", Regr::Sxy),
    ("regr_slope", Regr::Slope),
    ("regr_intercept", Regr::Intercept),
    ("regr_r2", Regr::R2),
];

impl Regr {
    pub fn of(name: &str) -> Option<Regr> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> &'static str {
        crate::names::name_in(&NAMES, &self).expect("every aggregate is named")
    }

    /// Its result type.
    pub fn ty(self) -> SqlType {
        match self {
            Regr::Count => SqlType::Int8,
            _ => SqlType::Float8,
        }
    }
}

/// The running sums of the pairs taken so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sums {
    n: f64,
    sx: f64,
    sy: f64,
    sxx: f64,
    syy: f64,
    sxy: f64,
}

/// PostgreSQL's error for a sum that overflowed.
fn overflow() -> SqlError {
    SqlError::new("22003", "value out of range: overflow")
}

impl Sums {
    /// Takes the pair `(y, x)`; a pair with a NULL is skipped.
    pub fn add(&mut self, y: Value, x: Value) -> Result<(), SqlError> {
        if matches!(y, Value::Null) || matches!(x, Value::Null) {
            return Ok(());
        }
        let float = |v: Value| -> Result<f64, SqlError> {
            match types::cast(v, SqlType::Float8)? {
                Value::Float8(f) => Ok(f),
                _ => unreachable!("a cast to float8 gives a float8"),
            }
        };
        let (y, x) = (float(y)?, float(x)?);
        let before = *self;
        let n = before.n + 1.0;
        let (sx, sy) = (before.sx + x, before.sy + y);
        let (mut sxx, mut syy, mut sxy) = (before.sxx, before.syy, before.sxy);
        if before.n > 0.0 {
            let tx = x * n - sx;
            let ty = y * n - sy;
            let scale = 1.0 / (n * before.n);
            sxx += tx * tx * scale;
            syy += ty * ty * scale;
            sxy += tx * ty * scale;
            if sx.is_infinite() || sxx.is_infinite() {
                if !before.sx.is_infinite() && !x.is_infinite() {
                    return Err(overflow());
                }
                sxx = f64::NAN;
            }
            if sy.is_infinite() || syy.is_infinite() {
                if !before.sy.is_infinite() && !y.is_infinite() {
                    return Err(overflow());
                }
                syy = f64::NAN;
            }
            if sxy.is_infinite() {
                if !before.sx.is_infinite()
                    && !x.is_infinite()
                    && !before.sy.is_infinite()
                    && !y.is_infinite()
                {
                    return Err(overflow());
                }
                sxy = f64::NAN;
            }
        } else {
            if !x.is_finite() {
                sxx = f64::NAN;
                sxy = f64::NAN;
            }
            if !y.is_finite() {
                syy = f64::NAN;
                sxy = f64::NAN;
            }
        }
        *self = Sums {
            n,
            sx,
            sy,
            sxx,
            syy,
            sxy,
        };
        Ok(())
    }

    /// `which` of the pairs taken.
    pub fn result(&self, which: Regr) -> Value {
        let Sums {
            n,
            sx,
            sy,
            sxx,
            syy,
            sxy,
        } = *self;
        if which == Regr::Count {
            return Value::Int8(n as i64);
        }
        let least = if which == Regr::CovarSamp { 2.0 } else { 1.0 };
        if n < least {
            return Value::Null;
        }
        let value = match which {
            Regr::AvgX => sx / n,
            Regr::AvgY => sy / n,
            // Rounding may leave a sum of squares just below 0.
            Regr::Sxx => sxx.max(0.0),
            Regr::Syy => syy.max(0.0),
            Regr::Sxy => sxy,
            Regr::CovarPop => sxy / n,
            Regr::CovarSamp => sxy / (n - 1.0),
            Regr::Corr if sxx <= 0.0 || syy <= 0.0 => return Value::Null,
            Regr::Corr => sxy / (sxx * syy).sqrt(),
            Regr::Slope | Regr::Intercept | Regr::R2 if sxx <= 0.0 => return Value::Null,
            Regr::Slope => sxy / sxx,
            Regr::Intercept => (sy - sx * sxy / sxx) / n,
            Regr::R2 if syy <= 0.0 => 1.0,
            Regr::R2 => (sxy * sxy) / (sxx * syy),
            Regr::Count => unreachable!("counted above"),
        };
        Value::Float8(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_its_slope_and_no_correlation_when_flat() {
        // Proves the final rules: y = 2x + 1 over x = 1..4 has slope 2,
        // intercept 1, r² 1; a horizontal line has r² 1 and no corr.
        let mut line = Sums::default();
        for x in 1..=4 {
            line.add(Value::Int4(2 * x + 1), Value::Int4(x)).unwrap();
        }
        assert_eq!(line.result(Regr::Slope), Value::Float8(2.0));
        assert_eq!(line.result(Regr::Intercept), Value::Float8(1.0));
        assert_eq!(line.result(Regr::R2), Value::Float8(1.0));
        assert_eq!(line.result(Regr::Count), Value::Int8(4));
        let mut flat = Sums::default();
        for x in 1..=3 {
            flat.add(Value::Int4(5), Value::Int4(x)).unwrap();
        }
        flat.add(Value::Null, Value::Int4(9)).unwrap();
        assert_eq!(flat.result(Regr::Corr), Value::Null);
        assert_eq!(flat.result(Regr::R2), Value::Float8(1.0));
        assert_eq!(flat.result(Regr::Count), Value::Int8(3));
        assert_eq!(Sums::default().result(Regr::AvgX), Value::Null);
    }
}
