//! numeric's operators and functions as PostgreSQL 15 computes them. A
//! numeric prints every digit of its scale (digits after the point), so a
//! result's scale is part of its value to a client: each is chosen here by
//! PostgreSQL's rule for it (numeric.c), one function per rule, and
//! folio-row computes the value at that scale, rounded once, half away
//! from zero (`Numeric`, `numeric_math.rs`).
//!
//! | result | its scale |
//! | --- | --- |
//! | `a + b`, `a - b`, `a % b`, `mod(a, b)` | the larger of the operands' (folio-row) |
//! | `a * b` | the sum of the operands' (folio-row) |
//! | `a / b`, `avg` | [`div_scale`]: 16 significant digits at least, by the operands' first base-10000 digits |
//! | `div(a, b)`, `floor`, `ceil`, `sign`, `factorial(n)` | 0 |
//! | `gcd(a, b)`, `lcm(a, b)` | the larger of the operands' (folio-row) |
//! | `round(x, d)`, `trunc(x, d)` | `max(d, 0)` |
//! | `sqrt` | [`sqrt_scale`] |
//! | `exp` | [`exp_scale`] |
//! | `ln` | [`ln_scale`] |
//! | `log(b, x)`, `log(x)`, `log10(x)` (base 10) | [`log_scale`] |
//! | `power(b, e)`, `b ^ e` | [`power_scale`] |
//! | a float8 (float4) cast to numeric | its 15 (6) significant digits, trailing zeros dropped ([`from_float`]) |
//!
//! Every scale is at least the operands' (`Numeric`'s scale is
//! PostgreSQL's display scale), and at most 1000. The rules read PostgreSQL's base-10000
//! digits (`Numeric::base10000`) and, for exp, ln, log and power, its
//! double-precision estimates, computed as it computes them: an estimate
//! one unit off moves the scale, and the printed number, by a digit.
//!
//! NaN, `Infinity` and `-Infinity` take PostgreSQL 15's rules (its
//! numeric.c checks them before any scale is chosen): the arithmetic's
//! are folio-row's (`Numeric`); here, the functions' errors for them
//! (`sqrt(-Infinity)`, `ln(-Infinity)`, a logarithm of a negative or zero
//! argument when either is special, `power`'s two), then folio-row's
//! values (`Numeric::log_special`, `Numeric::power_special`). A special
//! result has no scale: `exp(-Infinity)` and `x / Infinity` are 0.

use crate::error::SqlError;
use folio_row::{Numeric, Rounding};

/// PostgreSQL's `NUMERIC_MIN_SIG_DIGITS`: a computed result has at least
/// this many significant digits.
const MIN_SIG_DIGITS: i32 = 16;
/// PostgreSQL's `NUMERIC_MAX_DISPLAY_SCALE`.
const MAX_DISPLAY_SCALE: i32 = 1000;
/// PostgreSQL's `NUMERIC_MAX_RESULT_SCALE`: the bound on exp's estimate.
const MAX_RESULT_SCALE: i32 = 2 * MAX_DISPLAY_SCALE;
/// log10(e) and ln(10) as PostgreSQL writes them in its estimates: its
/// digits, not the closest double's, so an estimate at a boundary cuts
/// as PostgreSQL's does.
#[allow(clippy::approx_constant)]
const LOG10_E: f64 = 0.434294481903252;
#[allow(clippy::approx_constant)]
const LN_10: f64 = 2.302585092994046;

/// A scale of at least `rscale`, the operands' own scales and 0, at most
/// PostgreSQL's largest (its `Max`/`Min` chain after every rule).
fn scale_at_least(rscale: i32, operands: &[&Numeric]) -> u32 {
    let own = operands
        .iter()
        .filter_map(|n| n.scale())
        .map(|scale| i32::try_from(scale).unwrap_or(i32::MAX))
        .max()
        .unwrap_or(0);
    rscale.max(own).clamp(0, MAX_DISPLAY_SCALE) as u32
}

/// The base-10000 weight and first digit PostgreSQL reads (zero: 0, 0).
fn weight_and_first(n: &Numeric) -> (i32, u16) {
    n.base10000_lead().unwrap_or((0, 0))
}

/// PostgreSQL's `select_div_scale`: the quotient's base-10000 weight is
/// estimated from the operands' weights, one less when the dividend's
/// first digit is not above the divisor's (`1/1`: weight -1, scale 20;
/// `2/1`: weight 0, scale 16), and the scale gives 16 significant digits
/// from it.
pub fn div_scale(a: &Numeric, b: &Numeric) -> u32 {
    let (wa, fa) = weight_and_first(a);
    let (wb, fb) = weight_and_first(b);
    let mut qweight = wa - wb;
    if fa <= fb {
        qweight -= 1;
    }
    scale_at_least(MIN_SIG_DIGITS - qweight * 4, &[a, b])
}

/// `a / b` (also `avg`'s sum / count) at [`div_scale`]; 22012 for zero.
pub fn div(a: &Numeric, b: &Numeric) -> Result<Numeric, SqlError> {
    a.checked_div(b, div_scale(a, b), Rounding::HalfAwayFromZero)?
        .ok_or_else(division_by_zero)
}

/// `div(a, b)`: the quotient cut toward zero to an integer.
pub fn div_trunc(a: &Numeric, b: &Numeric) -> Result<Numeric, SqlError> {
    a.checked_div(b, 0, Rounding::TowardZero)?
        .ok_or_else(division_by_zero)
}

/// `round(x, digits)` (`trunc` with [`Rounding::TowardZero`]): at
/// `digits` places, shown with `max(digits, 0)`. The places are bounded
/// as PostgreSQL 15.18 bounds them: no more than a numeric's largest
/// scale after the point, and before it one place past a numeric's
/// widest whole part (so every value rounds to 0 there; a largest value
/// rounded up one place before it overflows, 22003).
pub fn round(x: &Numeric, digits: i64, how: Rounding) -> Result<Numeric, SqlError> {
    let lowest = -i64::from(folio_row::MAX_WHOLE_DIGITS) - 1;
    let digits = digits.clamp(lowest, i64::from(folio_row::MAX_NUMERIC_SCALE)) as i32;
    Ok(x.round_to(digits, how)?)
}

/// `sign(x)`: -1, 0 or 1, at scale 0 (an infinity's too); NaN for NaN.
pub fn sign(x: &Numeric) -> Numeric {
    match x.signum() {
        Some(sign) => Numeric::from_i64(i64::from(sign)),
        None => x.clone(),
    }
}

/// PostgreSQL's largest factorial: the next has more digits than its
/// numeric holds.
const MAX_FACTORIAL: i64 = 32177;

/// `factorial(n)`: n! as a numeric, 1 for 0 and 1; 22003 for a negative n
/// and for one past [`MAX_FACTORIAL`], as PostgreSQL 15 refuses them.
pub fn factorial(n: i64) -> Result<Numeric, SqlError> {
    if n < 0 {
        return Err(SqlError::new(
            "22003",
            "factorial of a negative number is undefined",
        ));
    }
    if n > MAX_FACTORIAL {
        return Err(SqlError::new("22003", "value overflows numeric format"));
    }
    let mut product = Numeric::from_i64(1);
    for k in 2..=n {
        product = product.checked_mul(&Numeric::from_i64(k))?;
    }
    Ok(product)
}

/// PostgreSQL's scale of `sqrt(x)`: the root has `2·weight + 1` digits
/// before the point (`weight` base-10000 digits before it in x).
pub fn sqrt_scale(x: &Numeric) -> u32 {
    let (weight, _) = weight_and_first(x);
    let sweight = (weight + 1) * 4 / 2 - 1;
    scale_at_least(MIN_SIG_DIGITS - sweight, &[x])
}

pub fn sqrt(x: &Numeric) -> Result<Numeric, SqlError> {
    if is_negative(x) {
        return Err(SqlError::new(
            "2201F",
            "cannot take square root of a negative number",
        ));
    }
    Ok(x.sqrt(sqrt_scale(x))?)
}

/// PostgreSQL's scale of `exp(x)`: x·log10(e) (a double, cut toward
/// zero) digits before the point.
pub fn exp_scale(x: &Numeric) -> u32 {
    let weight = (x.to_f64() * LOG10_E)
        .clamp(-f64::from(MAX_RESULT_SCALE), f64::from(MAX_RESULT_SCALE)) as i32;
    scale_at_least(MIN_SIG_DIGITS - weight, &[x])
}

pub fn exp(x: &Numeric) -> Result<Numeric, SqlError> {
    Ok(x.exp(exp_scale(x))?)
}

/// PostgreSQL's `estimate_ln_dweight`: the decimal weight of ln(x) (0
/// for an x without a logarithm, which its caller refuses). Within
/// [0.9, 1.1], that of x - 1 (ln(1 + d) ~ d); elsewhere log10 of ln of
/// x's first one or two base-10000 digits, cut toward zero.
pub fn ln_weight(x: &Numeric) -> i32 {
    let Some((weight, digits)) = x.base10000() else {
        return 0;
    };
    if is_negative(x) {
        return 0;
    }
    let tenths = |mantissa| Numeric::Value { mantissa, scale: 1 };
    if *x >= tenths(9) && *x <= tenths(11) {
        let d = x.checked_sub(&Numeric::from_i64(1)).unwrap_or(x.clone());
        return match d.base10000() {
            Some((w, digits)) => w * 4 + f64::from(digits[0]).log10() as i32,
            None => 0,
        };
    }
    let (mut first, mut dweight) = (f64::from(digits[0]), weight * 4);
    if let Some(second) = digits.get(1) {
        first = first * 10000.0 + f64::from(*second);
        dweight -= 4;
    }
    let ln = first.ln() + f64::from(dweight) * LN_10;
    ln.abs().log10() as i32
}

/// PostgreSQL's scale of `ln(x)`.
pub fn ln_scale(x: &Numeric) -> u32 {
    scale_at_least(MIN_SIG_DIGITS - ln_weight(x), &[x])
}

pub fn ln(x: &Numeric) -> Result<Numeric, SqlError> {
    check_log_argument(x)?;
    Ok(x.ln(ln_scale(x))?)
}

/// PostgreSQL's scale of `log(b, x)`: by the weights of ln x and ln b.
pub fn log_scale(b: &Numeric, x: &Numeric) -> u32 {
    scale_at_least(MIN_SIG_DIGITS - (ln_weight(x) - ln_weight(b)), &[b, x])
}

/// `log(b, x)`; `log(x)` and `log10(x)` are `log(10, x)`. The base is
/// checked first, as PostgreSQL takes its logarithm first; base 1 is a
/// division by zero. With a special argument PostgreSQL's `numeric_log`
/// answers NaN for a NaN, else refuses a negative argument (either), then
/// a zero one, before its value (`Numeric::log_special`).
pub fn log(b: &Numeric, x: &Numeric) -> Result<Numeric, SqlError> {
    if b.is_nan() || x.is_nan() || b.is_infinite() || x.is_infinite() {
        if b.is_nan() || x.is_nan() {
            return Ok(Numeric::NaN);
        }
        if is_negative(b) || is_negative(x) {
            return Err(negative_logarithm());
        }
        if is_zero(b) || is_zero(x) {
            return Err(zero_logarithm());
        }
        return Ok(x.log_special(b).expect("a special argument"));
    }
    check_log_argument(b)?;
    check_log_argument(x)?;
    x.log(b, log_scale(b, x))?.ok_or_else(division_by_zero)
}

/// PostgreSQL's scale of `power(b, e)`: 16 places (or b's scale) for an
/// integer exponent (PostgreSQL 15's `power_var` with `power_var_int`);
/// otherwise by the weight of the result, e·ln(b)·log10(e), estimated as
/// PostgreSQL estimates it: ln b to 8 significant digits, times e, both
/// rounded at that scale, then in double precision. (Zero to a
/// fractional power has exactly 16.)
pub fn power_scale(b: &Numeric, e: &Numeric) -> Result<u32, SqlError> {
    if integer_exponent(e).is_some() {
        return Ok(scale_at_least(MIN_SIG_DIGITS, &[b]));
    }
    if is_zero(b) {
        return Ok(MIN_SIG_DIGITS as u32);
    }
    let local = (8 - ln_weight(b)).clamp(0, MAX_DISPLAY_SCALE) as u32;
    let ln = b.abs().ln(local)?.mul_round(e, local)?;
    let weight = ln.to_f64() * LOG10_E;
    // In floating point: a huge exponent's weight is past i32 (the scale
    // is clamped to PostgreSQL's display limit anyway).
    let wanted =
        (f64::from(MIN_SIG_DIGITS) - weight.trunc()).clamp(0.0, f64::from(MAX_DISPLAY_SCALE));
    Ok(scale_at_least(wanted as i32, &[b, e]))
}

/// `power(b, e)` and `b ^ e`. A NaN argument gives its value before any
/// error (PostgreSQL's order); an infinite one its value after the two.
pub fn power(b: &Numeric, e: &Numeric) -> Result<Numeric, SqlError> {
    if b.is_nan() || e.is_nan() {
        return Ok(b.power_special(e).expect("a NaN argument"));
    }
    if is_zero(b) && is_negative(e) {
        return Err(SqlError::new(
            "2201F",
            "zero raised to a negative power is undefined",
        ));
    }
    let integral = e.round_to(0, Rounding::TowardZero)? == *e;
    if is_negative(b) && !integral {
        return Err(SqlError::new(
            "2201F",
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    if let Some(special) = b.power_special(e) {
        return Ok(special);
    }
    if let Some(n) = integer_exponent(e) {
        return b.powi(n, power_scale(b, e)?)?.ok_or_else(division_by_zero);
    }
    // Zero to a fractional power: zero at 16 places, whatever the scales.
    if is_zero(b) {
        return Ok(Numeric::from_i64(0).round_to(MIN_SIG_DIGITS, Rounding::HalfAwayFromZero)?);
    }
    let scale = power_scale(b, e)?;
    // A negative base with an integer exponent past 32 bits: |b|^e, its
    // sign by e's parity.
    let value = b.abs().pow(e, scale)?;
    let odd = e
        .checked_rem(&Numeric::from_i64(2))?
        .is_some_and(|r| !is_zero(&r));
    Ok(if is_negative(b) && odd {
        value.negated()
    } else {
        value
    })
}

/// A float8 (`digits` 15) or float4 (6) as numeric, as PostgreSQL casts
/// it: printed with `%.{digits}g` (those significant digits, trailing
/// zeros dropped) and read back, so `0.1::float8::numeric` is 0.1 and
/// `(2/3::float8)::numeric` 0.666666666666667. NaN and the infinities
/// stay themselves.
pub fn from_float(x: f64, digits: usize) -> Result<Numeric, SqlError> {
    if x.is_nan() {
        return Ok(Numeric::NaN);
    }
    if x.is_infinite() {
        return Ok(Numeric::Infinity {
            negative: x.is_sign_negative(),
        });
    }
    let text = format!("{x:.prec$e}", prec = digits.saturating_sub(1));
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = match mantissa.split_once('.') {
        Some((int, frac)) if frac.trim_end_matches('0').is_empty() => int.to_string(),
        Some((int, frac)) => format!("{int}.{}", frac.trim_end_matches('0')),
        None => mantissa.to_string(),
    };
    Ok(Numeric::parse(&format!("{mantissa}e{exponent}"))?)
}

/// The exponent as a 32-bit integer, if it is one (PostgreSQL's
/// `power_var_int` case).
fn integer_exponent(e: &Numeric) -> Option<i64> {
    let (mantissa, scale) = e.normalized().parts()?;
    if scale != 0 {
        return None;
    }
    i32::try_from(mantissa).ok().map(i64::from)
}

fn check_log_argument(x: &Numeric) -> Result<(), SqlError> {
    if is_zero(x) {
        return Err(zero_logarithm());
    }
    if is_negative(x) {
        return Err(negative_logarithm());
    }
    Ok(())
}

fn zero_logarithm() -> SqlError {
    SqlError::new("2201E", "cannot take logarithm of zero")
}

fn negative_logarithm() -> SqlError {
    SqlError::new("2201E", "cannot take logarithm of a negative number")
}

/// Below zero: a negative number or -Infinity.
fn is_negative(x: &Numeric) -> bool {
    x.signum() == Some(-1)
}

fn is_zero(x: &Numeric) -> bool {
    x.signum() == Some(0)
}

fn division_by_zero() -> SqlError {
    SqlError::new("22012", "division by zero")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    // Proves each scale rule gives PostgreSQL 15's scale (the digits after
    // the point it prints) for operands of many weights and scales, the
    // cases where an estimate sits near a boundary among them.
    #[test]
    fn scale_rules_are_postgresqls() {
        let div = |a: &str, b: &str| div_scale(&n(a), &n(b));
        assert_eq!(div("1", "1"), 20);
        assert_eq!(div("2", "1"), 16);
        assert_eq!(div("1", "3"), 20);
        assert_eq!(div("10", "3"), 16);
        assert_eq!(div("1", "30000"), 24);
        assert_eq!(div("123456789", "7"), 12);
        assert_eq!(div("1e-20", "3"), 40);
        assert_eq!(div("0", "5"), 20);
        assert_eq!(div("3.14159", "2"), 16);
        assert_eq!(div("99999999", "0.0001"), 8);
        assert_eq!(div("12345678901234567890", "3"), 0);
        assert_eq!(div("1.000", "1"), 20);
        assert_eq!(sqrt_scale(&n("2.0")), 15);
        assert_eq!(sqrt_scale(&n("0.0001")), 17);
        assert_eq!(sqrt_scale(&n("12345678.9")), 13);
        assert_eq!(sqrt_scale(&n("0")), 15);
        assert_eq!(exp_scale(&n("50")), 0);
        assert_eq!(exp_scale(&n("-10.0")), 20);
        assert_eq!(exp_scale(&n("2.5")), 15);
        assert_eq!(ln_scale(&n("2.0")), 16);
        assert_eq!(ln_scale(&n("1.0001")), 20);
        assert_eq!(ln_scale(&n("0.9")), 17);
        assert_eq!(ln_scale(&n("1e30")), 15);
        assert_eq!(log_scale(&n("1.0001"), &n("2")), 12);
        assert_eq!(log_scale(&n("10"), &n("2.0")), 16);
        let power = |b: &str, e: &str| power_scale(&n(b), &n(e)).unwrap();
        assert_eq!(power("2", "100"), 16);
        assert_eq!(power("2.00000000000000000000", "3"), 20);
        assert_eq!(power("0.001", "2.5"), 23);
        assert_eq!(power("10.0", "30.5"), 1);
        // ln(100) · 0.5 estimated as 2.30258510: weight 1.000000004.
        assert_eq!(power("100", "0.5"), 15);
        assert_eq!(power("0.01", "0.5"), 17);
        assert_eq!(power("0.0", "0.5"), 16);
    }

    // Proves float8 and float4 become numerics by their 15 and 6
    // significant digits, as PostgreSQL's `%.15g`/`%.6g` print them, and
    // NaN and the infinities stay themselves (PostgreSQL 14+).
    #[test]
    fn floats_become_numerics_by_their_printed_digits() {
        let f = |x: f64, d| from_float(x, d).unwrap().to_string();
        assert_eq!(f(0.1, 15), "0.1");
        assert_eq!(f(1.0 / 3.0, 15), "0.333333333333333");
        assert_eq!(f(1e20, 15), "100000000000000000000");
        assert_eq!(f(1e-7, 15), "0.0000001");
        assert_eq!(f(123_456_789.123_456_79, 15), "123456789.123457");
        assert_eq!(f(0.30000000000000004, 15), "0.3");
        assert_eq!(f(f64::from(2.718_281_7_f32), 6), "2.71828");
        assert_eq!(f(1.0, 15), "1");
        assert_eq!(f(-2.5, 15), "-2.5");
        assert!(from_float(f64::NAN, 15).unwrap().is_nan());
        assert_eq!(f(f64::INFINITY, 15), "Infinity");
        assert_eq!(f(f64::NEG_INFINITY, 6), "-Infinity");
    }
}
