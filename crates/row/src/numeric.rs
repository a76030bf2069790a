//! `numeric`: an exact decimal, `mantissa * 10^-scale`, or NaN.
//!
//! This build holds up to 38 significant digits (an `i128` mantissa) and
//! a scale up to 38; PostgreSQL's numeric goes much further (131,072
//! digits before the point). A result past that range is an error
//! (22003), never a rounded value.

use crate::error::RowError;
use std::cmp::Ordering;

/// Bytes of a numeric in a row: mantissa (16), scale (1), flags (1).
pub const NUMERIC_BYTES: usize = 18;
/// Largest scale and digit count.
pub const MAX_NUMERIC_DIGITS: u32 = 38;

/// An exact decimal or NaN.
#[derive(Debug, Clone, Copy)]
pub enum Numeric {
    Value { mantissa: i128, scale: u8 },
    NaN,
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn out_of_range(what: impl std::fmt::Display) -> RowError {
    RowError::NumericOutOfRange(what.to_string())
}

impl Numeric {
    pub fn new(mantissa: i128, scale: u8) -> Result<Numeric, RowError> {
        if scale as u32 > MAX_NUMERIC_DIGITS
            || mantissa.unsigned_abs() >= 10u128.pow(MAX_NUMERIC_DIGITS)
        {
            return Err(out_of_range(format!("{mantissa}e-{scale}")));
        }
        Ok(Numeric::Value { mantissa, scale })
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric::Value {
            mantissa: v as i128,
            scale: 0,
        }
    }

    /// The value assigned to a `numeric(precision, scale)` column, as
    /// PostgreSQL's `apply_typmod`: rounded to `scale` digits after the
    /// point (half away from zero: 12.345 -> 12.35) or padded to them
    /// (12.5 -> 12.50), and refused with "numeric field overflow" (22003)
    /// when more than `precision - scale` digits remain before it.
    pub fn fit_typmod(self, precision: u16, scale: u16) -> Result<Numeric, RowError> {
        let Numeric::Value {
            mantissa,
            scale: own,
        } = self
        else {
            return Ok(self);
        };
        let (own, target) = (u32::from(own), u32::from(scale));
        let too_big = || out_of_range(format!("numeric({precision},{scale})"));
        let mantissa = if target >= own {
            pow10(target - own)
                .and_then(|f| mantissa.checked_mul(f))
                .ok_or_else(too_big)?
        } else {
            let divisor = pow10(own - target).ok_or_else(too_big)?;
            let (q, r) = (mantissa / divisor, mantissa % divisor);
            let away = 2 * r.unsigned_abs() >= divisor.unsigned_abs();
            q + if away { mantissa.signum() } else { 0 }
        };
        if pow10(u32::from(precision))
            .is_some_and(|limit| mantissa.unsigned_abs() >= limit.unsigned_abs())
        {
            return Err(RowError::NumericFieldOverflow { precision, scale });
        }
        Numeric::new(mantissa, u8::try_from(target).map_err(|_| too_big())?)
    }

    /// Parses PostgreSQL's numeric input: `-12.340`, `+.5`, `1e5`, `NaN`.
    pub fn parse(text: &str) -> Result<Numeric, RowError> {
        let bad =
            || RowError::Corrupt(format!("invalid input syntax for type numeric: \"{text}\""));
        let t = text.trim();
        if t.eq_ignore_ascii_case("nan") {
            return Ok(Numeric::NaN);
        }
        let (body, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i32>().map_err(|_| bad())?),
            None => (t, 0),
        };
        let (negative, digits) = match body.as_bytes().first() {
            Some(b'-') => (true, &body[1..]),
            Some(b'+') => (false, &body[1..]),
            _ => (false, body),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let mut mantissa: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            mantissa = mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add((b - b'0') as i128))
                .ok_or_else(|| out_of_range(text))?;
        }
        let mut scale = frac.len() as i32 - exp;
        if scale < 0 {
            mantissa = mantissa
                .checked_mul(pow10((-scale) as u32).ok_or_else(|| out_of_range(text))?)
                .ok_or_else(|| out_of_range(text))?;
            scale = 0;
        }
        if scale > MAX_NUMERIC_DIGITS as i32 {
            return Err(out_of_range(text));
        }
        Numeric::new(if negative { -mantissa } else { mantissa }, scale as u8)
    }

    /// The value with trailing fractional zeros removed (1.50 -> 1.5).
    pub fn normalized(self) -> Numeric {
        match self {
            Numeric::Value {
                mut mantissa,
                mut scale,
            } => {
                while scale > 0 && mantissa % 10 == 0 {
                    mantissa /= 10;
                    scale -= 1;
                }
                Numeric::Value { mantissa, scale }
            }
            nan => nan,
        }
    }

    /// `mantissa` at `scale` (>= the value's), if it fits.
    fn at_scale(mantissa: i128, from: u8, to: u8) -> Option<i128> {
        mantissa.checked_mul(pow10((to - from) as u32)?)
    }

    /// The (mantissa, scale) pairs of two numbers; `None` if either is NaN
    /// (every operation with NaN gives NaN).
    fn pair(self, other: Numeric) -> Option<((i128, u8), (i128, u8))> {
        match (self, other) {
            (
                Numeric::Value {
                    mantissa: a,
                    scale: sa,
                },
                Numeric::Value {
                    mantissa: b,
                    scale: sb,
                },
            ) => Some(((a, sa), (b, sb))),
            _ => None,
        }
    }

    fn binary(
        self,
        other: Numeric,
        op: impl Fn(i128, i128) -> Option<i128>,
    ) -> Result<Numeric, RowError> {
        let Some(((a, sa), (b, sb))) = self.pair(other) else {
            return Ok(Numeric::NaN);
        };
        let scale = sa.max(sb);
        let a = Self::at_scale(a, sa, scale).ok_or_else(|| out_of_range("operand"))?;
        let b = Self::at_scale(b, sb, scale).ok_or_else(|| out_of_range("operand"))?;
        Numeric::new(op(a, b).ok_or_else(|| out_of_range("result"))?, scale)
    }

    pub fn checked_add(self, other: Numeric) -> Result<Numeric, RowError> {
        self.binary(other, i128::checked_add)
    }

    pub fn checked_sub(self, other: Numeric) -> Result<Numeric, RowError> {
        self.binary(other, i128::checked_sub)
    }

    pub fn checked_mul(self, other: Numeric) -> Result<Numeric, RowError> {
        let Some(((a, sa), (b, sb))) = self.pair(other) else {
            return Ok(Numeric::NaN);
        };
        let scale = sa as u32 + sb as u32;
        let m = a.checked_mul(b).ok_or_else(|| out_of_range("result"))?;
        if scale > MAX_NUMERIC_DIGITS {
            return Err(out_of_range("result scale"));
        }
        Numeric::new(m, scale as u8)
    }

    /// `self / other` rounded (half away from zero) to `scale` digits after
    /// the point. `None` for a zero divisor (the caller's 22012).
    pub fn checked_div(self, other: Numeric, scale: u8) -> Result<Option<Numeric>, RowError> {
        let Some(((a, sa), (b, sb))) = self.pair(other) else {
            return Ok(Some(Numeric::NaN));
        };
        if b == 0 {
            return Ok(None);
        }
        // a·10^-sa / (b·10^-sb) at scale s: a·10^(s + sb - sa) / b, one
        // digit more to round.
        let shift = i32::from(scale) + i32::from(sb) - i32::from(sa) + 1;
        let too_big = || out_of_range("result");
        let (n, d) = if shift >= 0 {
            let n = pow10(shift as u32)
                .and_then(|f| a.checked_mul(f))
                .ok_or_else(too_big)?;
            (n, b)
        } else {
            let d = pow10((-shift) as u32)
                .and_then(|f| b.checked_mul(f))
                .ok_or_else(too_big)?;
            (a, d)
        };
        let q = n / d;
        let rounded = q / 10 + if (q % 10).abs() >= 5 { q.signum() } else { 0 };
        Numeric::new(rounded, scale).map(Some)
    }

    /// `self % other` (the remainder's sign is the dividend's, as
    /// PostgreSQL's). `None` for a zero divisor.
    pub fn checked_rem(self, other: Numeric) -> Result<Option<Numeric>, RowError> {
        let Some(((a, sa), (b, sb))) = self.pair(other) else {
            return Ok(Some(Numeric::NaN));
        };
        let scale = sa.max(sb);
        let a = Self::at_scale(a, sa, scale).ok_or_else(|| out_of_range("operand"))?;
        let b = Self::at_scale(b, sb, scale).ok_or_else(|| out_of_range("operand"))?;
        if b == 0 {
            return Ok(None);
        }
        Numeric::new(a % b, scale).map(Some)
    }

    /// The mantissa and scale (`None` for NaN).
    pub fn parts(self) -> Option<(i128, u8)> {
        match self {
            Numeric::Value { mantissa, scale } => Some((mantissa, scale)),
            Numeric::NaN => None,
        }
    }

    /// Row bytes (`NUMERIC_BYTES`).
    pub(crate) fn to_bytes(self) -> [u8; NUMERIC_BYTES] {
        let mut out = [0u8; NUMERIC_BYTES];
        match self {
            Numeric::Value { mantissa, scale } => {
                out[..16].copy_from_slice(&mantissa.to_le_bytes());
                out[16] = scale;
            }
            Numeric::NaN => out[17] = 1,
        }
        out
    }

    pub(crate) fn from_bytes(b: &[u8]) -> Result<Numeric, RowError> {
        if b.len() != NUMERIC_BYTES {
            return Err(RowError::Corrupt("a numeric is not 18 bytes".into()));
        }
        match b[17] {
            0 => Numeric::new(i128::from_le_bytes(b[..16].try_into().expect("16")), b[16])
                .map_err(|_| RowError::Corrupt("a stored numeric is out of range".into())),
            1 => Ok(Numeric::NaN),
            f => Err(RowError::Corrupt(format!("numeric flags {f}"))),
        }
    }

    /// Sign, decimal exponent and significant digits: the value is
    /// `0.d1 d2 ... dn * 10^exponent` with `d1 != 0` (the key encoding's
    /// form). `None` for zero and NaN.
    pub(crate) fn digits(self) -> Option<(bool, i32, Vec<u8>)> {
        let Numeric::Value { mantissa, scale } = self.normalized() else {
            return None;
        };
        if mantissa == 0 {
            return None;
        }
        let text = mantissa.unsigned_abs().to_string();
        let digits: Vec<u8> = text
            .trim_end_matches('0')
            .bytes()
            .map(|b| b - b'0')
            .collect();
        let exponent = text.len() as i32 - scale as i32;
        Some((mantissa < 0, exponent, digits))
    }

    /// The inverse of [`Numeric::digits`].
    pub(crate) fn from_digits(
        negative: bool,
        exponent: i32,
        digits: &[u8],
    ) -> Result<Numeric, RowError> {
        let mut mantissa: i128 = 0;
        for d in digits {
            mantissa = mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add(*d as i128))
                .ok_or_else(|| out_of_range("key"))?;
        }
        let scale = digits.len() as i32 - exponent;
        if scale < 0 {
            mantissa = mantissa
                .checked_mul(pow10((-scale) as u32).ok_or_else(|| out_of_range("key"))?)
                .ok_or_else(|| out_of_range("key"))?;
        }
        let scale = scale.max(0);
        if scale > MAX_NUMERIC_DIGITS as i32 {
            return Err(out_of_range("key"));
        }
        Numeric::new(if negative { -mantissa } else { mantissa }, scale as u8)
    }
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Numeric {}

impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Numeric {
    /// Numeric order; NaN is greater than every number and equal to itself
    /// (PostgreSQL's rule).
    fn cmp(&self, other: &Self) -> Ordering {
        match (*self, *other) {
            (Numeric::NaN, Numeric::NaN) => Ordering::Equal,
            (Numeric::NaN, _) => Ordering::Greater,
            (_, Numeric::NaN) => Ordering::Less,
            (
                Numeric::Value {
                    mantissa: a,
                    scale: sa,
                },
                Numeric::Value {
                    mantissa: b,
                    scale: sb,
                },
            ) => {
                let scale = sa.max(sb);
                match (Self::at_scale(a, sa, scale), Self::at_scale(b, sb, scale)) {
                    (Some(a), Some(b)) => a.cmp(&b),
                    // One side overflowed when scaled: compare by digits.
                    _ => {
                        let key = |n: Numeric| match n.digits() {
                            None => (1, 0, Vec::new()),
                            Some((true, e, d)) => (0, -e, d.iter().map(|x| 9 - x).collect()),
                            Some((false, e, d)) => (2, e, d),
                        };
                        key(*self).cmp(&key(*other))
                    }
                }
            }
        }
    }
}

impl std::fmt::Display for Numeric {
    /// PostgreSQL's output: the value at its own scale (`1.50`), `NaN`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Numeric::NaN => write!(f, "NaN"),
            Numeric::Value { mantissa, scale } => {
                let digits = mantissa.unsigned_abs().to_string();
                let scale = scale as usize;
                let sign = if mantissa < 0 { "-" } else { "" };
                if scale == 0 {
                    return write!(f, "{sign}{digits}");
                }
                let padded = format!("{digits:0>width$}", width = scale + 1);
                let (int, frac) = padded.split_at(padded.len() - scale);
                write!(f, "{sign}{int}.{frac}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves parsing and PostgreSQL's output keep the scale, arithmetic is
    // exact, order ignores the scale (1.5 = 1.50) with NaN greatest, and
    // overflow is 22003, not a rounded value.
    // Proves assignment to numeric(p, s) rounds half away from zero or
    // pads to the scale, and refuses too many integer digits, as
    // PostgreSQL 15 does (`select 12.345::numeric(6,2)` is 12.35,
    // `-0.005::numeric(3,2)` is -0.01, `12345.6::numeric(6,2)` fails).
    #[test]
    fn numerics_fit_their_typmod() {
        let fit = |s: &str, p, sc| {
            Numeric::parse(s)
                .unwrap()
                .fit_typmod(p, sc)
                .map(|n| n.to_string())
        };
        assert_eq!(fit("12.5", 6, 2).unwrap(), "12.50");
        assert_eq!(fit("12.345", 6, 2).unwrap(), "12.35");
        assert_eq!(fit("-12.344", 6, 2).unwrap(), "-12.34");
        assert_eq!(fit("-0.005", 3, 2).unwrap(), "-0.01");
        assert_eq!(fit("9999.994", 6, 2).unwrap(), "9999.99");
        let overflow = RowError::NumericFieldOverflow {
            precision: 6,
            scale: 2,
        };
        assert_eq!(fit("12345.6", 6, 2), Err(overflow.clone()));
        assert_eq!(fit("9999.995", 6, 2), Err(overflow.clone()));
        assert_eq!(
            overflow.detail().as_deref(),
            Some(
                "A field with precision 6, scale 2 must round to an absolute value less than 10^4."
            )
        );
        assert_eq!(
            RowError::NumericFieldOverflow {
                precision: 2,
                scale: 2
            }
            .detail()
            .as_deref(),
            Some("A field with precision 2, scale 2 must round to an absolute value less than 1.")
        );
        assert_eq!(fit("7", 3, 0).unwrap(), "7");
        assert_eq!(fit("NaN", 3, 0).unwrap(), "NaN");
    }

    #[test]
    fn numerics_parse_print_compare_and_compute() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        assert_eq!(n("-12.340").to_string(), "-12.340");
        assert_eq!(n("+.5").to_string(), "0.5");
        assert_eq!(n("1e3").to_string(), "1000");
        assert_eq!(n("1.5e-2").to_string(), "0.015");
        assert_eq!(n("NaN").to_string(), "NaN");
        assert!(Numeric::parse("1.2.3").is_err() && Numeric::parse("").is_err());
        assert_eq!(n("1.5"), n("1.50"));
        assert!(n("-2") < n("-1.9") && n("0.001") < n("1") && n("99") < n("NaN"));
        assert_eq!(n("1.25").checked_add(n("2.5")).unwrap().to_string(), "3.75");
        assert_eq!(
            n("1.25").checked_sub(n("2.5")).unwrap().to_string(),
            "-1.25"
        );
        assert_eq!(
            n("1.5").checked_mul(n("-2.25")).unwrap().to_string(),
            "-3.375"
        );
        let big = n("99999999999999999999999999999999999999");
        assert_eq!(big.checked_add(n("1")).unwrap_err().sqlstate(), "22003");
        assert_eq!(
            Numeric::from_bytes(&n("-7.25").to_bytes())
                .unwrap()
                .to_string(),
            "-7.25"
        );
        for s in ["123.45", "-0.0012", "1000", "7"] {
            let (neg, e, d) = n(s).digits().unwrap();
            assert_eq!(Numeric::from_digits(neg, e, &d).unwrap(), n(s), "{s}");
        }
    }
}
