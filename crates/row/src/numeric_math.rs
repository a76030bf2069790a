//! numeric's square root, exp, ln, log and power, each at a result scale
//! its caller chose (which scale is PostgreSQL's rule, kept by folio-sql's
//! `numeric_functions.rs`). Each is computed in `Wide` (`big.rs`) with
//! guard digits past that scale and rounded once, half away from zero:
//! the result is the exact value correctly rounded, unless the exact value
//! lies within about 10^-(scale + 8) of a half, where PostgreSQL's own
//! (which keeps 8 guard digits the same way) may round either way too.
//!
//! The methods follow PostgreSQL's numeric.c in outline:
//! - sqrt: the integer square root of the scaled value (exact).
//! - exp: x halved k times to |x| <= 0.01, its Taylor series, squared k
//!   times.
//! - ln: x = y·10^e with 1 <= y < 10; y taken below 1.1 by square roots
//!   (n of them); ln y = 2^(n+1)·atanh((y-1)/(y+1)) by its series; plus
//!   e·ln 10.
//! - log(b, x) = ln x / ln b, each to enough significant digits.
//! - power: an integer exponent by repeated squaring, keeping enough
//!   significant digits; otherwise exp(e·ln b).
//!
//! Arguments out of a function's domain (ln of zero, a negative base to a
//! fractional power) are the caller's to refuse with PostgreSQL's errors;
//! here they are 22003.
//!
//! NaN and the infinities give PostgreSQL 15's values: sqrt, exp and ln
//! of Infinity are Infinity, exp(-Infinity) is 0; log and power with a
//! special argument are [`Numeric::log_special`] and
//! [`Numeric::power_special`].

use crate::big::{Big, Wide};
use crate::error::RowError;
use crate::numeric::{MAX_WHOLE_DIGITS, Numeric, Rounding};

/// Digits computed past those kept.
const GUARD: u32 = 10;
/// log10(e).
const LOG10_E: f64 = std::f64::consts::LOG10_E;
/// The largest |x| whose e^x is computed (PostgreSQL's
/// `NUMERIC_MAX_RESULT_SCALE * 3`).
const EXP_LIMIT: f64 = 6000.0;

fn out_of_domain(what: &str) -> RowError {
    RowError::NumericOutOfRange(format!("{what} of a value outside its domain"))
}

impl Numeric {
    /// The square root of a value not below zero, at `scale`.
    pub fn sqrt(&self, scale: u32) -> Result<Numeric, RowError> {
        if *self == Numeric::NEG_INFINITY {
            return Err(out_of_domain("sqrt"));
        }
        let Some(x) = self.wide() else {
            return Ok(self.clone());
        };
        if x.neg {
            return Err(out_of_domain("sqrt"));
        }
        Numeric::from_wide(x.sqrt(scale))
    }

    /// e to the power of the value, at `scale`.
    pub fn exp(&self, scale: u32) -> Result<Numeric, RowError> {
        if *self == Numeric::NEG_INFINITY {
            return Ok(Numeric::from_i64(0));
        }
        let Some(x) = self.wide() else {
            return Ok(self.clone());
        };
        Numeric::from_wide(exp(&x, scale)?)
    }

    /// The natural logarithm of a value above zero, at `scale`.
    pub fn ln(&self, scale: u32) -> Result<Numeric, RowError> {
        if *self == Numeric::NEG_INFINITY {
            return Err(out_of_domain("ln"));
        }
        let Some(x) = self.wide() else {
            return Ok(self.clone());
        };
        if x.neg || x.is_zero() {
            return Err(out_of_domain("ln"));
        }
        Numeric::from_wide(ln(&x, scale + GUARD).at(scale))
    }

    /// The logarithm of the value (above zero) in `base` (above zero), at
    /// `scale`; `None` for base 1 (a division by zero).
    pub fn log(&self, base: &Numeric, scale: u32) -> Result<Option<Numeric>, RowError> {
        if let Some(special) = self.log_special(base) {
            return Ok(Some(special));
        }
        let (Some(x), Some(b)) = (self.wide(), base.wide()) else {
            return Ok(Some(Numeric::NaN));
        };
        if x.neg || x.is_zero() || b.neg || b.is_zero() {
            return Err(out_of_domain("log"));
        }
        let (lx, lb) = (ln_digits(&x, 20), ln_digits(&b, 20));
        if lb.is_zero() {
            return Ok(None);
        }
        let Some(lead) = lx.lead() else {
            return Numeric::from_wide(Wide::int(0).at(scale)).map(Some);
        };
        // Digits before the point of the quotient, at most.
        let lead = lead - lb.lead().unwrap_or(0) + 1;
        let digits = u32::try_from((i64::from(scale) + lead).max(1)).unwrap_or(u32::MAX) + GUARD;
        let quotient =
            ln_digits(&x, digits).div(&ln_digits(&b, digits), scale, Rounding::HalfAwayFromZero);
        Numeric::from_wide(quotient).map(Some)
    }

    /// The logarithm of the value in `base` where either is special, as
    /// PostgreSQL's `numeric_log` gives it for arguments above zero:
    /// NaN with a NaN, `log(Infinity, Infinity)` NaN (Infinity /
    /// Infinity), `log(Infinity, x)` 0, `log(b, Infinity)` Infinity (for
    /// any base, 1 and those below it too). `None` for two numbers.
    pub fn log_special(&self, base: &Numeric) -> Option<Numeric> {
        match (base, self) {
            (b, x) if b.is_finite() && x.is_finite() => None,
            (Numeric::NaN, _) | (_, Numeric::NaN) => Some(Numeric::NaN),
            (Numeric::Infinity { .. }, Numeric::Infinity { .. }) => Some(Numeric::NaN),
            (Numeric::Infinity { .. }, _) => Some(Numeric::from_i64(0)),
            (_, infinity) => Some(infinity.clone()),
        }
    }

    /// The value (the base) to the power `e` where either is special, by
    /// POSIX's `pow` as PostgreSQL's `numeric_power` follows it, once its
    /// errors (zero to a negative power, a negative base to a fractional
    /// one) are refused: `NaN ^ 0` and `1 ^ NaN` are 1, else NaN with a
    /// NaN; `1 ^ e` and `b ^ 0` are 1; `(-1) ^ ±Infinity` is 1; `b ^
    /// Infinity` is Infinity for |b| > 1 and 0 for |b| < 1 (`b ^
    /// -Infinity` the reverse); `Infinity ^ e` is Infinity for e > 0 and
    /// 0 for e < 0; `-Infinity ^ e` is 0 for e < 0, -Infinity for an odd
    /// integer e, else Infinity. `None` for two numbers.
    pub fn power_special(&self, e: &Numeric) -> Option<Numeric> {
        let one = Numeric::from_i64(1);
        let zero = Numeric::from_i64(0);
        if !(self.is_nan() || self.is_infinite() || e.is_nan() || e.is_infinite()) {
            return None;
        }
        if self.is_nan() {
            return Some(if e.signum() == Some(0) {
                one
            } else {
                Numeric::NaN
            });
        }
        if e.is_nan() {
            return Some(if *self == one { one } else { Numeric::NaN });
        }
        if *self == one || e.signum() == Some(0) {
            return Some(one);
        }
        let e_sign = e.signum().expect("not NaN");
        if e.is_infinite() {
            if *self == Numeric::from_i64(-1) {
                return Some(one);
            }
            let above_one = !self.is_finite() || self.abs() > one;
            return Some(if above_one == (e_sign > 0) {
                Numeric::INFINITY
            } else {
                zero
            });
        }
        // The base is an infinity, the exponent a number.
        if e_sign < 0 {
            return Some(zero);
        }
        let odd = matches!(
            e.normalized(),
            Numeric::Value { mantissa, scale: 0 } if mantissa % 2 != 0
        );
        Some(if *self == Numeric::NEG_INFINITY && odd {
            Numeric::NEG_INFINITY
        } else {
            Numeric::INFINITY
        })
    }

    /// The value to the integer power `n`, at `scale`; `None` for zero to
    /// a negative power (a division by zero).
    pub fn powi(&self, n: i64, scale: u32) -> Result<Option<Numeric>, RowError> {
        if let Some(special) = self.power_special(&Numeric::from_i64(n)) {
            return Ok(Some(special));
        }
        let Some(b) = self.wide() else {
            return Ok(Some(self.clone()));
        };
        let at_scale = |w: Wide| Numeric::from_wide(w).map(Some);
        if n == 0 {
            return at_scale(Wide::int(1).at(scale));
        }
        if b.is_zero() {
            return if n < 0 {
                Ok(None)
            } else {
                at_scale(Wide::int(0).at(scale))
            };
        }
        // The result's decimal weight, log10 |b^n|.
        let weight = n as f64 * b.to_f64().abs().log10();
        if weight > f64::from(MAX_WHOLE_DIGITS) {
            return Err(RowError::NumericFormatOverflow);
        }
        if weight + 1.0 < -f64::from(scale) - 1.0 {
            return at_scale(Wide::int(0).at(scale));
        }
        // Significant digits to keep: the result's at `scale`, and more as
        // each product's rounding may cost one (log10 |n| of them).
        let digits = (f64::from(scale) + weight + 1.0).max(1.0)
            + (n.unsigned_abs() as f64).log10()
            + f64::from(GUARD);
        let digits = digits.min(f64::from(u32::MAX / 2)) as u32;
        let mut result = Wide::int(1);
        let mut power = b.abs();
        let mut left = n.unsigned_abs();
        while left > 0 {
            if left & 1 == 1 {
                result = significant(result.mul(&power), digits);
            }
            left >>= 1;
            if left > 0 {
                power = significant(power.mul(&power), digits);
            }
        }
        let result = if n > 0 {
            result.at(scale)
        } else {
            Wide::int(1).div(&result, scale, Rounding::HalfAwayFromZero)
        };
        let negative = b.neg && n % 2 != 0;
        at_scale(if negative { result.negate() } else { result })
    }

    /// The value (above zero) to the power `e`, at `scale`: exp(e·ln b).
    pub fn pow(&self, e: &Numeric, scale: u32) -> Result<Numeric, RowError> {
        if let Some(special) = self.power_special(e) {
            return Ok(special);
        }
        let (Some(b), Some(e)) = (self.wide(), e.wide()) else {
            return Ok(Numeric::NaN);
        };
        if b.neg || b.is_zero() {
            return Err(out_of_domain("power"));
        }
        // e·ln b to the digits exp needs: the result's before the point,
        // `scale` after it, and the guard. A result past exp's reach is
        // refused first.
        let estimate = e.to_f64() * b.to_f64().ln() * LOG10_E;
        if estimate * std::f64::consts::LN_10 >= EXP_LIMIT {
            return Err(RowError::NumericFormatOverflow);
        }
        let weight = estimate.max(0.0) as u32;
        let e_lead = u32::try_from(e.lead().unwrap_or(0).max(0)).unwrap_or(0);
        let t = ln(&b, scale + weight + e_lead + GUARD + 2).mul(&e);
        Numeric::from_wide(exp(&t, scale)?)
    }
}

impl Numeric {
    /// `gcd(a, b)`: the largest number of which both are whole multiples,
    /// at the larger of their scales, never negative (`gcd(12.5, 7.5)` is
    /// 2.5); NaN with a special argument (PostgreSQL's `numeric_gcd`).
    pub fn gcd(&self, other: &Numeric) -> Numeric {
        let Some((a, b, scale)) = common_magnitudes(self, other) else {
            return Numeric::NaN;
        };
        Numeric::from_wide(Wide::new(false, euclid(a, b), scale))
            .expect("no more digits than its operands")
    }

    /// `lcm(a, b)`: the smallest positive number that is a whole multiple
    /// of both (0 when one is 0), at the larger of their scales; NaN with
    /// a special argument; 22003 past the format.
    pub fn lcm(&self, other: &Numeric) -> Result<Numeric, RowError> {
        let Some((a, b, scale)) = common_magnitudes(self, other) else {
            return Ok(Numeric::NaN);
        };
        if a.is_zero() || b.is_zero() {
            return Numeric::from_wide(Wide::new(false, Big::zero(), scale));
        }
        let (quotient, _) = a.div_rem(&euclid(a.clone(), b.clone()));
        Numeric::from_wide(Wide::new(false, quotient.mul(&b), scale))
    }
}

/// The magnitudes of two numbers at the larger of their scales, and that
/// scale (`None` if either is special).
fn common_magnitudes(a: &Numeric, b: &Numeric) -> Option<(Big, Big, u32)> {
    let (a, b) = (a.wide()?, b.wide()?);
    let scale = a.scale.max(b.scale);
    Some((
        a.mag_at(scale).into_owned(),
        b.mag_at(scale).into_owned(),
        scale,
    ))
}

/// The greatest common divisor of two magnitudes (0 for two zeros).
fn euclid(mut a: Big, mut b: Big) -> Big {
    while !b.is_zero() {
        let (_, r) = a.div_rem(&b);
        a = b;
        b = r;
    }
    a
}

/// `w` rounded to `digits` significant digits (never padded).
fn significant(w: Wide, digits: u32) -> Wide {
    match w.lead() {
        Some(lead) if i64::from(digits) - lead < i64::from(w.scale) => {
            let keep = (i64::from(digits) - lead).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
            w.round_at(keep as i32, Rounding::HalfAwayFromZero)
        }
        _ => w,
    }
}

/// e^x at `scale`.
fn exp(x: &Wide, scale: u32) -> Result<Wide, RowError> {
    let val = x.to_f64();
    // PostgreSQL's `exp_var` bound: e^6000 and past is refused before it
    // is computed, e^-6000 and below is zero at any scale.
    if val >= EXP_LIMIT {
        return Err(RowError::NumericFormatOverflow);
    }
    if val <= -EXP_LIMIT {
        return Ok(Wide::int(0).at(scale));
    }
    let mut halvings = 0u32;
    let mut reduced = val.abs();
    while reduced > 0.01 {
        reduced /= 2.0;
        halvings += 1;
    }
    // Digits after the point to work at: squaring k times multiplies the
    // error by 2^k, and a result of w digits before the point needs w
    // more.
    let weight = (val * LOG10_E).max(0.0) as u32;
    let p = scale + weight + halvings + GUARD;
    let reduced = x.div(&Wide::int(1i128 << halvings), p, Rounding::HalfAwayFromZero);
    let mut sum = Wide::int(1).add(&reduced);
    let mut term = reduced.clone();
    let mut n = 1u32;
    loop {
        n += 1;
        term = term.mul_near(&reduced, p).div_small(n, p);
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    // Squaring doubles the relative error, whatever the scale: keep the
    // p + 1 significant digits the series had (fewer places after the
    // point as the value grows; p while it stays below 10).
    for _ in 0..halvings {
        let lead = 2 * sum.lead().unwrap_or(0);
        let at = (i64::from(p) - (lead - 1).max(0)).max(0) as u32;
        sum = sum.mul_near(&sum, at);
    }
    Ok(sum.at(scale))
}

/// ln x for x above zero, at scale `p` (an error of a few units in the
/// last place).
fn ln(x: &Wide, p: u32) -> Wide {
    let lead = x.lead().expect("ln of zero is refused by its callers");
    // x = y · 10^e with 1 <= y < 10.
    let e = lead - 1;
    let y = x.shift10(-e);
    let e_digits = e.unsigned_abs().checked_ilog10().map_or(0, |d| d + 1);
    let q = p + 4 + e_digits;
    let mut out = ln_small(&y, q);
    if e != 0 {
        let ln10 = ln_small(&Wide::int(10), q);
        out = out.add(&ln10.mul(&Wide::int(i128::from(e))));
    }
    out.at(p)
}

/// ln y for 1 <= y <= 10 at scale `q`.
fn ln_small(y: &Wide, q: u32) -> Wide {
    // Up to five square roots (10^(1/32) < 1.1), and the factor 2^(n+1)
    // they leave costs two digits: work at four more.
    let w = q + 4;
    let limit = Wide::new(false, Big::from_u128(11), 1);
    let mut y = y.clone();
    let mut roots = 0u32;
    while y >= limit {
        y = y.sqrt(w);
        roots += 1;
    }
    let one = Wide::int(1);
    let z = y.sub(&one).div(&y.add(&one), w, Rounding::HalfAwayFromZero);
    let z2 = z.mul_near(&z, w);
    let mut sum = z.clone();
    let mut power = z;
    let mut k = 1u32;
    loop {
        power = power.mul_near(&z2, w);
        k += 2;
        let term = power.div_small(k, w);
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    sum.mul(&Wide::int(1i128 << (roots + 1))).at(q)
}

/// ln v to at least `digits` significant digits (exactly zero for 1).
fn ln_digits(v: &Wide, digits: u32) -> Wide {
    let one = Wide::int(1);
    if *v == one.at(v.scale) {
        return Wide::int(0);
    }
    // Near 1, ln v has about the leading zeros of v - 1 (|ln v| >=
    // |v - 1| / 2 for 1/2 <= v <= 2); elsewhere |ln v| > 0.69.
    let near = v >= &Wide::new(false, Big::from_u128(5), 1) && v <= &Wide::int(2);
    let lead = if near {
        v.sub(&one).lead().unwrap_or(0).min(1)
    } else {
        1
    };
    let p = i64::from(digits) + 3 - lead;
    ln(v, u32::try_from(p).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    // Proves each function's value at a chosen scale against PostgreSQL
    // 15's (the same scale given): sqrt exact, exp/ln/log/power correctly
    // rounded, including results past 38 digits in their working values.
    #[test]
    fn functions_give_postgresql_values_at_a_scale() {
        let s = |r: Result<Numeric, RowError>| r.unwrap().to_string();
        assert_eq!(s(n("2").sqrt(15)), "1.414213562373095");
        assert_eq!(s(n("2").sqrt(20)), "1.41421356237309504880");
        assert_eq!(s(n("0.5").sqrt(17)), "0.70710678118654752");
        assert_eq!(s(n("12345678.9").sqrt(13)), "3513.6418286444622");
        assert_eq!(s(n("1e-10").sqrt(21)), "0.000010000000000000000");
        assert_eq!(s(n("1").exp(16)), "2.7182818284590452");
        assert_eq!(s(n("-10").exp(20)), "0.00004539992976248485");
        assert_eq!(s(n("50").exp(0)), "5184705528587072464087");
        assert_eq!(s(n("0.001").exp(16)), "1.0010005001667083");
        assert_eq!(s(n("2").ln(16)), "0.6931471805599453");
        assert_eq!(s(n("1e-30").ln(30)), "-69.077552789821370520539743640531");
        assert_eq!(s(n("1.0001").ln(20)), "0.00009999500033330834");
        assert_eq!(s(n("2.718281828459045").ln(16)), "0.9999999999999999");
        assert_eq!(s(n("0.9").ln(17)), "-0.10536051565782630");
        let log = |x: &str, b: &str, scale| n(x).log(&n(b), scale).unwrap().unwrap().to_string();
        assert_eq!(log("8.0", "2", 16), "3.0000000000000000");
        assert_eq!(log("2", "1.0001", 12), "6931.818373413795");
        assert_eq!(log("2.0", "10", 16), "0.3010299956639812");
        assert_eq!(n("5").log(&n("1"), 16).unwrap(), None);
        let powi = |b: &str, e, scale| n(b).powi(e, scale).unwrap().unwrap().to_string();
        assert_eq!(powi("2", 10, 16), "1024.0000000000000000");
        assert_eq!(powi("1.0001", 10000, 16), "2.7181459268252249");
        assert_eq!(powi("1.5", -1, 16), "0.6666666666666667");
        assert_eq!(powi("-2.0", 3, 16), "-8.0000000000000000");
        assert_eq!(powi("0.1", 20, 16), "0.0000000000000000");
        assert_eq!(n("0").powi(-1, 16).unwrap(), None);
        assert_eq!(s(n("2.0").pow(&n("0.5"), 16)), "1.4142135623730950");
        assert_eq!(
            s(n("0.001").pow(&n("2.5"), 23)),
            "0.00000003162277660168379"
        );
        assert_eq!(
            s(n("10.0").pow(&n("30.5"), 1)),
            "3162277660168379331998893544432.7"
        );
        assert_eq!(s(n("1.1").pow(&n("2.5"), 16)), "1.2690587062858834");
        // PostgreSQL 15's special values.
        let (inf, ninf, nan) = (Numeric::INFINITY, Numeric::NEG_INFINITY, Numeric::NaN);
        assert_eq!(s(inf.sqrt(16)), "Infinity");
        assert!(ninf.sqrt(16).is_err() && ninf.ln(16).is_err());
        assert_eq!(s(inf.exp(16)), "Infinity");
        assert_eq!(s(ninf.exp(16)), "0");
        assert_eq!(s(inf.ln(16)), "Infinity");
        let log = |x: &Numeric, b: &Numeric| x.log(b, 16).unwrap().unwrap().to_string();
        assert_eq!(log(&inf, &n("2")), "Infinity");
        assert_eq!(log(&inf, &n("0.5")), "Infinity");
        assert_eq!(log(&inf, &n("1")), "Infinity");
        assert_eq!(log(&n("2"), &inf), "0");
        assert_eq!(log(&inf, &inf), "NaN");
        let pow = |b: &Numeric, e: &Numeric| b.power_special(e).map(|r| r.to_string());
        assert_eq!(pow(&n("2"), &n("3")), None);
        assert_eq!(pow(&nan, &n("0")).as_deref(), Some("1"));
        assert_eq!(pow(&n("1.00"), &nan).as_deref(), Some("1"));
        assert_eq!(pow(&n("-2"), &nan).as_deref(), Some("NaN"));
        assert_eq!(pow(&inf, &n("0")).as_deref(), Some("1"));
        assert_eq!(pow(&n("1"), &inf).as_deref(), Some("1"));
        assert_eq!(pow(&n("-1"), &ninf).as_deref(), Some("1"));
        assert_eq!(pow(&n("0.5"), &inf).as_deref(), Some("0"));
        assert_eq!(pow(&n("-0.5"), &ninf).as_deref(), Some("Infinity"));
        assert_eq!(pow(&n("2"), &ninf).as_deref(), Some("0"));
        assert_eq!(pow(&n("-2"), &inf).as_deref(), Some("Infinity"));
        assert_eq!(pow(&n("0"), &inf).as_deref(), Some("0"));
        assert_eq!(pow(&inf, &n("-2")).as_deref(), Some("0"));
        assert_eq!(pow(&inf, &n("0.5")).as_deref(), Some("Infinity"));
        assert_eq!(pow(&ninf, &n("3.0")).as_deref(), Some("-Infinity"));
        assert_eq!(pow(&ninf, &n("2")).as_deref(), Some("Infinity"));
        assert_eq!(pow(&ninf, &n("-3")).as_deref(), Some("0"));
        assert_eq!(pow(&ninf, &inf).as_deref(), Some("Infinity"));
        assert_eq!(pow(&inf, &ninf).as_deref(), Some("0"));
        assert_eq!(n("2").powi(3, 0).unwrap().unwrap().to_string(), "8");
        assert_eq!(nan.powi(0, 16).unwrap().unwrap().to_string(), "1");
        // Past 38 digits, exactly (PostgreSQL 15's values); past its
        // format, 22003.
        assert_eq!(
            s(n("100").exp(0)),
            "26881171418161354484126255515800135873611119"
        );
        assert_eq!(
            s(n("2").powi(200, 0).map(Option::unwrap)),
            "1606938044258990275541962092341162602522202993782792835301376"
        );
        assert_eq!(n("6000").exp(0).unwrap_err().sqlstate(), "22003");
        assert_eq!(n("10").powi(131_072, 0).unwrap_err().sqlstate(), "22003");
    }
}
