//! `numeric`: an exact decimal, `mantissa * 10^-scale`, NaN, or
//! `Infinity` / `-Infinity` (PostgreSQL 14's infinities).
//!
//! A number holds what PostgreSQL's numeric holds: up to 131,072 digits
//! before the point and a scale (digits after the point, PostgreSQL's
//! display scale) up to 16,383; past them a result is 22003 "value
//! overflows numeric format", never a rounded value. Two forms, one per
//! value (a number that fits the first is never in the second):
//! `Numeric::Value`, up to 38 significant digits (an `i128` mantissa) at
//! a scale up to 255, computed in machine integers; and
//! `Numeric::Long`, any other, kept as a `Wide` (`big.rs`) behind an
//! `Arc` so a copy of the value is cheap.
//!
//! Operations try the short form's i128 arithmetic first and compute in
//! `Wide` where it does not reach (a long operand, an intermediate value
//! past 38 digits: division, rounding, the functions of
//! `numeric_math.rs`), rounding once, half away from zero, at the scale
//! their caller chose: which scale each SQL operation's result has is
//! PostgreSQL's rule, kept by folio-sql (`numeric_functions.rs`).
//!
//! The special values follow PostgreSQL 15's numeric.c. Order: -Infinity
//! below every number, Infinity above, NaN above both (each equal to
//! itself). Arithmetic: anything with NaN is NaN; an infinity plus or
//! minus a number is that infinity, `Infinity - Infinity` and
//! `Infinity + -Infinity` are NaN; an infinity times a non-zero number or
//! an infinity is an infinity of the product's sign, times zero NaN; an
//! infinity divided by a non-zero number is an infinity, by an infinity
//! NaN, by zero still a division by zero; a number divided by an infinity
//! is 0 (scale 0, as PostgreSQL's `const_zero`); `Infinity % x` is NaN
//! (a division by zero for x = 0) and `x % Infinity` is x. A
//! `numeric(p, s)` refuses an infinity with 22003 (its DETAIL: "cannot
//! hold an infinite value"). The functions' values for them are
//! `numeric_math.rs`'s; their errors (`sqrt(-Infinity)`, ...) and the
//! casts folio-sql's.

use crate::big::{Big, Wide};
use crate::error::RowError;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

/// Bytes of a numeric's head in a row: mantissa (16), scale (1), flags
/// (1). A long number's payload follows its head.
///
/// | flags | value |
/// |---|---|
/// | 0 | `mantissa * 10^-scale` |
/// | 1 | NaN |
/// | 2 | Infinity (since session 55; older rows never hold it) |
/// | 3 | -Infinity |
/// | 4 | a long number (since session 56): the head's first 4 bytes are its payload's length (u32); the payload is the scale (u16), the sign (u8, 1 = negative), the count of the magnitude's low zero limbs left out (u32) and its other base-10^9 limbs (u32 each, least significant first, the first and last not zero) |
/// | 5 | a long number stored out of line (since session 59): the head's first 8 bytes are the value's id (u64), the next 8 its length (u64); what is stored out of line is the number's flag-4 bytes, head and payload. No other bytes follow the head. |
///
/// A special value's other bytes are zero.
pub const NUMERIC_BYTES: usize = 18;
/// The flags of a long number.
const LONG_FLAG: u8 = 4;
/// The flags of a long number stored out of line.
const EXTERNAL_FLAG: u8 = 5;
/// A long number's payload before its limbs: scale, sign, zero limbs.
const LONG_PAYLOAD_HEAD: usize = 7;
/// Most significant digits of the short form (`Numeric::Value`).
pub(crate) const SHORT_DIGITS: u32 = 38;
/// 10^38: the short form's mantissas are below it.
const SHORT_LIMIT: u128 = 10u128.pow(SHORT_DIGITS);
/// Most digits before the point (PostgreSQL's, from its weight limit).
pub const MAX_WHOLE_DIGITS: u32 = 131_072;
/// Largest scale (PostgreSQL's `NUMERIC_DSCALE_MAX`).
pub const MAX_NUMERIC_SCALE: u32 = 16_383;

/// An exact decimal, NaN, or an infinity.
#[derive(Debug, Clone)]
pub enum Numeric {
    /// A number of up to 38 significant digits at a scale up to 255.
    Value {
        mantissa: i128,
        scale: u8,
    },
    /// Any other number.
    Long(LongNumeric),
    NaN,
    /// `Infinity` (`negative`: `-Infinity`).
    Infinity {
        negative: bool,
    },
}

/// A number past the short form's digits or scale.
#[derive(Debug, Clone)]
pub struct LongNumeric(Arc<Wide>);

/// How digits cut from a value round what is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest; a half away from zero (PostgreSQL's `round`, and
    /// every rounded result of its numeric arithmetic).
    HalfAwayFromZero,
    /// Toward zero (`trunc`, `div`).
    TowardZero,
    /// Toward negative infinity (`floor`).
    Floor,
    /// Toward positive infinity (`ceil`).
    Ceiling,
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// PostgreSQL's error for a number past its format's digits or scale.
fn overflow() -> RowError {
    RowError::NumericFormatOverflow
}

impl Numeric {
    pub const INFINITY: Numeric = Numeric::Infinity { negative: false };
    pub const NEG_INFINITY: Numeric = Numeric::Infinity { negative: true };

    pub fn new(mantissa: i128, scale: u8) -> Result<Numeric, RowError> {
        if mantissa.unsigned_abs() < SHORT_LIMIT {
            return Ok(Numeric::Value { mantissa, scale });
        }
        Numeric::from_wide(Wide::new(
            mantissa < 0,
            Big::from_u128(mantissa.unsigned_abs()),
            u32::from(scale),
        ))
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric::Value {
            mantissa: v as i128,
            scale: 0,
        }
    }

    /// The value of `wide` in its form; 22003 past PostgreSQL's limits.
    pub(crate) fn from_wide(wide: Wide) -> Result<Numeric, RowError> {
        if let Ok(scale) = u8::try_from(wide.scale)
            && let Some(magnitude) = wide.mag.to_u128()
            && magnitude < SHORT_LIMIT
        {
            let magnitude = magnitude as i128;
            let mantissa = if wide.neg { -magnitude } else { magnitude };
            return Ok(Numeric::Value { mantissa, scale });
        }
        if wide.scale > MAX_NUMERIC_SCALE
            || wide
                .lead()
                .is_some_and(|lead| lead > i64::from(MAX_WHOLE_DIGITS))
        {
            return Err(overflow());
        }
        Ok(Numeric::Long(LongNumeric(Arc::new(wide))))
    }

    pub fn is_nan(&self) -> bool {
        matches!(self, Numeric::NaN)
    }

    /// Infinity or -Infinity.
    pub fn is_infinite(&self) -> bool {
        matches!(self, Numeric::Infinity { .. })
    }

    /// A number (neither NaN nor an infinity).
    pub fn is_finite(&self) -> bool {
        matches!(self, Numeric::Value { .. } | Numeric::Long(_))
    }

    /// -1, 0 or 1 by the value's sign (an infinity's too); `None` for NaN.
    pub fn signum(&self) -> Option<i32> {
        match self {
            Numeric::Value { mantissa, .. } => Some(mantissa.signum() as i32),
            Numeric::Long(long) => Some(match (long.0.is_zero(), long.0.neg) {
                (true, _) => 0,
                (false, true) => -1,
                (false, false) => 1,
            }),
            Numeric::NaN => None,
            Numeric::Infinity { negative } => Some(if *negative { -1 } else { 1 }),
        }
    }

    /// The value with its sign changed (NaN stays NaN).
    pub fn negated(&self) -> Numeric {
        match self {
            Numeric::Value { mantissa, scale } => Numeric::Value {
                mantissa: -mantissa,
                scale: *scale,
            },
            Numeric::Long(long) => Numeric::Long(LongNumeric(Arc::new(long.0.negate()))),
            Numeric::NaN => Numeric::NaN,
            Numeric::Infinity { negative } => Numeric::Infinity {
                negative: !negative,
            },
        }
    }

    /// The value's absolute value (NaN stays NaN).
    pub fn abs(&self) -> Numeric {
        match self.signum() {
            Some(-1) => self.negated(),
            _ => self.clone(),
        }
    }

    /// The value as a `Wide` (`None` for NaN and the infinities).
    pub(crate) fn wide(&self) -> Option<Cow<'_, Wide>> {
        match self {
            Numeric::Value { mantissa, scale } => Some(Cow::Owned(Wide::new(
                *mantissa < 0,
                Big::from_u128(mantissa.unsigned_abs()),
                u32::from(*scale),
            ))),
            Numeric::Long(long) => Some(Cow::Borrowed(&long.0)),
            Numeric::NaN | Numeric::Infinity { .. } => None,
        }
    }

    /// A number's scale, its digits after the point (`None` for NaN and
    /// the infinities).
    pub fn scale(&self) -> Option<u32> {
        match self {
            Numeric::Value { scale, .. } => Some(u32::from(*scale)),
            Numeric::Long(long) => Some(long.0.scale),
            Numeric::NaN | Numeric::Infinity { .. } => None,
        }
    }

    /// The value rounded at `digits` places after the point (negative:
    /// before it, `round(155, -1)` is 160) as `how` says, shown with
    /// `max(digits, 0)` of them (`round(1.2, 3)` is 1.200): PostgreSQL's
    /// `round_var`/`trunc_var` with the display scale its `round` and
    /// `trunc` give. NaN and the infinities stay as they are.
    pub fn round_to(&self, digits: i32, how: Rounding) -> Result<Numeric, RowError> {
        if let Numeric::Value { mantissa, scale } = *self
            && let Some(n) = round_fast(mantissa, scale, digits, how)
        {
            return Ok(n);
        }
        match self.wide() {
            Some(wide) => Numeric::from_wide(wide.round_at(digits, how)),
            None => Ok(self.clone()),
        }
    }

    /// The value assigned to a `numeric(precision, scale)` column, as
    /// PostgreSQL's `apply_typmod`: rounded to `scale` digits after the
    /// point (half away from zero: 12.345 -> 12.35) or padded to them
    /// (12.5 -> 12.50), and refused with "numeric field overflow" (22003)
    /// when more than `precision - scale` digits remain before it. An
    /// infinity fits no typmod (22003, PostgreSQL's "cannot hold an
    /// infinite value"); NaN fits every one.
    pub fn fit_typmod(&self, precision: u16, scale: u16) -> Result<Numeric, RowError> {
        if self.is_infinite() {
            return Err(RowError::NumericFieldInfinite { precision, scale });
        }
        let overflow = RowError::NumericFieldOverflow { precision, scale };
        let rounded = self
            .round_to(i32::from(scale), Rounding::HalfAwayFromZero)
            .map_err(|_| overflow.clone())?;
        // At `scale` places, the value's digits are at most `precision`.
        let too_long = match &rounded {
            Numeric::Value { mantissa, .. } => pow10(u32::from(precision))
                .is_some_and(|limit| mantissa.unsigned_abs() >= limit.unsigned_abs()),
            Numeric::Long(long) => long.0.mag.digits() > u32::from(precision),
            Numeric::NaN | Numeric::Infinity { .. } => false,
        };
        if too_long {
            return Err(overflow);
        }
        Ok(rounded)
    }

    /// Parses PostgreSQL's numeric input: `-12.340`, `+.5`, `1e5`, `NaN`,
    /// and (any case) `Infinity`, `inf`, either signed.
    pub fn parse(text: &str) -> Result<Numeric, RowError> {
        let bad =
            || RowError::Corrupt(format!("invalid input syntax for type numeric: \"{text}\""));
        let t = text.trim();
        if t.eq_ignore_ascii_case("nan") {
            return Ok(Numeric::NaN);
        }
        match t.to_ascii_lowercase().as_str() {
            "infinity" | "+infinity" | "inf" | "+inf" => return Ok(Numeric::INFINITY),
            "-infinity" | "-inf" => return Ok(Numeric::NEG_INFINITY),
            _ => {}
        }
        let (body, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().map_err(|_| bad())?),
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
        let scale = i64::try_from(frac.len())
            .ok()
            .and_then(|f| f.checked_sub(exp))
            .ok_or_else(overflow)?;
        let digits: Vec<u8> = int
            .bytes()
            .chain(frac.bytes())
            .skip_while(|b| *b == b'0')
            .map(|b| b - b'0')
            .collect();
        Numeric::of_digits(negative, &digits, scale)
    }

    /// The number whose decimal digits (values 0..=9, most significant
    /// first) are `digits`, times 10^-`scale`; 22003 past the format.
    fn of_digits(negative: bool, digits: &[u8], scale: i64) -> Result<Numeric, RowError> {
        let lead = i64::try_from(digits.len()).unwrap_or(i64::MAX) - scale;
        if scale > i64::from(MAX_NUMERIC_SCALE)
            || (lead > i64::from(MAX_WHOLE_DIGITS) && digits.iter().any(|d| *d != 0))
        {
            return Err(overflow());
        }
        // Zeros a negative scale appends.
        let zeros = u32::try_from(-scale.min(0)).map_err(|_| overflow())?;
        let scale = scale.max(0) as u32;
        if digits.len() as u32 + zeros <= SHORT_DIGITS
            && let Ok(short_scale) = u8::try_from(scale)
        {
            let mantissa = digits.iter().fold(0i128, |m, d| m * 10 + i128::from(*d))
                * pow10(zeros).expect("within 38 digits");
            return Ok(Numeric::Value {
                mantissa: if negative { -mantissa } else { mantissa },
                scale: short_scale,
            });
        }
        let magnitude = Big::from_decimal_digits(digits).mul_pow10(zeros);
        Numeric::from_wide(Wide::new(negative, magnitude, scale))
    }

    /// The value with trailing fractional zeros removed (1.50 -> 1.5).
    pub fn normalized(&self) -> Numeric {
        match self {
            Numeric::Value {
                mantissa,
                scale: from,
            } => {
                let (mut mantissa, mut scale) = (*mantissa, *from);
                while scale > 0 && mantissa % 10 == 0 {
                    mantissa /= 10;
                    scale -= 1;
                }
                Numeric::Value { mantissa, scale }
            }
            Numeric::Long(long) => {
                let zeros = long.0.mag.trailing_zeros().min(long.0.scale);
                let (magnitude, _) = long.0.mag.div_rem_pow10(zeros);
                let wide = Wide::new(long.0.neg, magnitude, long.0.scale - zeros);
                Numeric::from_wide(wide).expect("fewer digits than a numeric it came from")
            }
            special => special.clone(),
        }
    }

    /// `mantissa` at `scale` (>= the value's), if it fits.
    fn at_scale(mantissa: i128, from: u8, to: u8) -> Option<i128> {
        mantissa.checked_mul(pow10((to - from) as u32)?)
    }

    /// Both operands as short numbers, if they are.
    fn short_pair(&self, other: &Numeric) -> Option<((i128, u8), (i128, u8))> {
        self.parts().zip(other.parts())
    }

    /// The two values as `Wide`s; `None` if either is NaN or infinite.
    fn wide_pair<'a>(&'a self, other: &'a Numeric) -> Option<(Cow<'a, Wide>, Cow<'a, Wide>)> {
        Some((self.wide()?, other.wide()?))
    }

    /// `a op b` at the larger scale: in i128 when both are short and fit
    /// there, else in `Wide` (`wide_op`).
    fn binary(
        &self,
        other: &Numeric,
        op: impl Fn(i128, i128) -> Option<i128>,
        wide_op: impl Fn(&Wide, &Wide) -> Wide,
    ) -> Result<Numeric, RowError> {
        if let Some(((a, sa), (b, sb))) = self.short_pair(other) {
            let scale = sa.max(sb);
            if let Some(n) = Self::at_scale(a, sa, scale)
                .zip(Self::at_scale(b, sb, scale))
                .and_then(|(a, b)| op(a, b))
                .and_then(|m| Numeric::new(m, scale).ok())
            {
                return Ok(n);
            }
        }
        match self.wide_pair(other) {
            Some((x, y)) => Numeric::from_wide(wide_op(&x, &y)),
            None => Ok(Numeric::NaN),
        }
    }

    pub fn checked_add(&self, other: &Numeric) -> Result<Numeric, RowError> {
        if let Some(special) = special_sum(self, other) {
            return Ok(special);
        }
        self.binary(other, i128::checked_add, Wide::add)
    }

    pub fn checked_sub(&self, other: &Numeric) -> Result<Numeric, RowError> {
        if let Some(special) = special_sum(self, &other.negated()) {
            return Ok(special);
        }
        self.binary(other, i128::checked_sub, Wide::sub)
    }

    /// `self * other` exactly: its scale is the sum of theirs (PostgreSQL's
    /// `numeric_mul`), rounded at the largest scale where the sum passes
    /// it (`1e-10000 * 1e-10000` is 0 at 16,383 places, as PostgreSQL's).
    pub fn checked_mul(&self, other: &Numeric) -> Result<Numeric, RowError> {
        if let Some(special) = special_product(self, other) {
            return Ok(special);
        }
        if let Some(((a, sa), (b, sb))) = self.short_pair(other)
            && let Ok(scale) = u8::try_from(u32::from(sa) + u32::from(sb))
            && let Some(m) = a.checked_mul(b)
        {
            return Numeric::new(m, scale);
        }
        let Some((x, y)) = self.wide_pair(other) else {
            return Ok(Numeric::NaN);
        };
        let product = x.mul(&y);
        if product.scale > MAX_NUMERIC_SCALE {
            return Numeric::from_wide(product.at(MAX_NUMERIC_SCALE));
        }
        Numeric::from_wide(product)
    }

    /// `self * other` rounded at `scale` digits (PostgreSQL's `mul_var`
    /// with a result scale).
    pub fn mul_round(&self, other: &Numeric, scale: u32) -> Result<Numeric, RowError> {
        if let Some(special) = special_product(self, other) {
            return Ok(special);
        }
        let Some((x, y)) = self.wide_pair(other) else {
            return Ok(Numeric::NaN);
        };
        let digits = i32::try_from(scale).map_err(|_| overflow())?;
        Numeric::from_wide(x.mul(&y).round_at(digits, Rounding::HalfAwayFromZero))
    }

    /// `self / other` rounded at `scale` digits after the point as `how`
    /// says (the quotient is exact before it is rounded). `None` for a
    /// zero divisor (the caller's 22012), an infinite dividend's too.
    pub fn checked_div(
        &self,
        other: &Numeric,
        scale: u32,
        how: Rounding,
    ) -> Result<Option<Numeric>, RowError> {
        if let Some(special) = special_quotient(self, other) {
            return Ok(special);
        }
        if other.signum() == Some(0) {
            return Ok(None);
        }
        if let Some((a, b)) = self.short_pair(other)
            && let Some(n) = div_fast(a, b, scale, how)
        {
            return Ok(Some(n));
        }
        let (x, y) = self.wide_pair(other).expect("numbers");
        Numeric::from_wide(x.div(&y, scale, how)).map(Some)
    }

    /// `self % other` (the remainder's sign is the dividend's, as
    /// PostgreSQL's; its scale the larger of theirs). `None` for a zero
    /// divisor. An infinite dividend gives NaN, an infinite divisor the
    /// dividend.
    pub fn checked_rem(&self, other: &Numeric) -> Result<Option<Numeric>, RowError> {
        match (self, other) {
            (Numeric::NaN, _) | (_, Numeric::NaN) => return Ok(Some(Numeric::NaN)),
            (Numeric::Infinity { .. }, divisor) if divisor.signum() == Some(0) => return Ok(None),
            (Numeric::Infinity { .. }, _) => return Ok(Some(Numeric::NaN)),
            (_, Numeric::Infinity { .. }) => return Ok(Some(self.clone())),
            _ => {}
        }
        if other.signum() == Some(0) {
            return Ok(None);
        }
        if let Some(((a, sa), (b, sb))) = self.short_pair(other) {
            let scale = sa.max(sb);
            if let (Some(a), Some(b)) = (Self::at_scale(a, sa, scale), Self::at_scale(b, sb, scale))
            {
                return Numeric::new(a % b, scale).map(Some);
            }
        }
        let (x, y) = self.wide_pair(other).expect("numbers");
        let quotient = x.div(&y, 0, Rounding::TowardZero);
        Numeric::from_wide(x.sub(&quotient.mul(&y))).map(Some)
    }

    /// The mantissa and scale of a short number (`None` for a long one,
    /// NaN and the infinities).
    pub fn parts(&self) -> Option<(i128, u8)> {
        match self {
            Numeric::Value { mantissa, scale } => Some((*mantissa, *scale)),
            Numeric::Long(_) | Numeric::NaN | Numeric::Infinity { .. } => None,
        }
    }

    /// The value as an `i128` if it is an integer that fits one (any
    /// scale: 12.000 is 12).
    pub fn to_i128(&self) -> Option<i128> {
        let (mantissa, scale) = self.normalized().parts()?;
        (scale == 0).then_some(mantissa)
    }

    /// The nearest double (PostgreSQL's `numericvar_to_double`: by its
    /// text); NaN for NaN, an infinity for an infinity (and for a number
    /// past a double's range).
    pub fn to_f64(&self) -> f64 {
        match self {
            Numeric::NaN => f64::NAN,
            Numeric::Infinity { negative: false } => f64::INFINITY,
            Numeric::Infinity { negative: true } => f64::NEG_INFINITY,
            Numeric::Value { .. } | Numeric::Long(_) => {
                self.to_string().parse().unwrap_or(f64::NAN)
            }
        }
    }

    /// A number's sign, its magnitude's decimal digits and its scale.
    fn decimal(&self) -> Option<(bool, String, u32)> {
        match self {
            Numeric::Value { mantissa, scale } => Some((
                *mantissa < 0,
                mantissa.unsigned_abs().to_string(),
                u32::from(*scale),
            )),
            Numeric::Long(long) => Some((long.0.neg, long.0.mag.to_string(), long.0.scale)),
            Numeric::NaN | Numeric::Infinity { .. } => None,
        }
    }

    /// The weight and first digit of [`Numeric::base10000`], read from
    /// the value's digit count and top digits without building its
    /// digits (the scale rules of division and `sqrt` read only these,
    /// once a call). `None` for zero, NaN and the infinities.
    pub fn base10000_lead(&self) -> Option<(i32, u16)> {
        // The magnitude's digit count, its scale, and its top digits
        // (`top`, of `top_digits` digits: at least 4 unless it has fewer).
        let (count, scale, top, top_digits) = match self {
            Numeric::Value { mantissa, scale } => {
                let mag = mantissa.unsigned_abs();
                if mag == 0 {
                    return None;
                }
                let count = mag.ilog10() + 1;
                (count, i64::from(*scale), mag, count)
            }
            Numeric::Long(long) => {
                let limbs = long.0.mag.limbs();
                let (&high, rest) = limbs.split_last()?;
                let high_digits = high.ilog10() + 1;
                let (top, top_digits) = match rest.last() {
                    Some(&next) => (
                        u128::from(high) * u128::from(crate::big::BASE) + u128::from(next),
                        high_digits + crate::big::BASE_DIGITS,
                    ),
                    None => (u128::from(high), high_digits),
                };
                (
                    long.0.mag.digits(),
                    i64::from(long.0.scale),
                    top,
                    top_digits,
                )
            }
            Numeric::NaN | Numeric::Infinity { .. } => return None,
        };
        // The first digit is worth 10^e; its base-10000 digit holds the
        // first `e mod 4 + 1` digits.
        let e = i64::from(count) - 1 - scale;
        let k = (e.rem_euclid(4) + 1) as u32;
        let first = if top_digits >= k {
            top / 10u128.pow(top_digits - k)
        } else {
            top * 10u128.pow(k - top_digits)
        };
        Some((e.div_euclid(4) as i32, first as u16))
    }

    /// PostgreSQL's own form of the value, whose base-10000 digits its
    /// scale rules read: the weight (the power of 10000 of the first
    /// digit) and the digits, leading and trailing zero digits stripped.
    /// `None` for zero, NaN and the infinities.
    pub fn base10000(&self) -> Option<(i32, Vec<u16>)> {
        let (_, mut digits, scale) = self.decimal()?;
        if digits == "0" {
            return None;
        }
        let scale = scale as usize;
        let frac_groups = scale.div_ceil(4);
        // The digits with the point moved to a group boundary.
        digits.push_str(&"0".repeat(frac_groups * 4 - scale));
        let groups = digits.len().div_ceil(4);
        // Zeros before, to whole groups (not `format!`'s width, which
        // stops at 65,535).
        let digits = "0".repeat(groups * 4 - digits.len()) + &digits;
        let mut values: Vec<u16> = digits
            .as_bytes()
            .chunks(4)
            .map(|c| c.iter().fold(0u16, |acc, d| acc * 10 + u16::from(d - b'0')))
            .collect();
        let mut weight = groups as i32 - frac_groups as i32 - 1;
        let lead = values.iter().take_while(|d| **d == 0).count();
        values.drain(..lead);
        weight -= lead as i32;
        while values.last() == Some(&0) {
            values.pop();
        }
        Some((weight, values))
    }

    /// Appends the value's row bytes: the head (`NUMERIC_BYTES`) and a
    /// long number's payload.
    pub(crate) fn write_bytes(&self, out: &mut Vec<u8>) {
        let mut head = [0u8; NUMERIC_BYTES];
        match self {
            Numeric::Value { mantissa, scale } => {
                head[..16].copy_from_slice(&mantissa.to_le_bytes());
                head[16] = *scale;
            }
            Numeric::NaN => head[17] = 1,
            Numeric::Infinity { negative } => head[17] = if *negative { 3 } else { 2 },
            Numeric::Long(long) => {
                // Low zero limbs are counted, not stored: 10^100000 is a
                // limb and a count.
                let limbs = long.0.mag.limbs();
                let zeros = limbs.iter().take_while(|l| **l == 0).count();
                let limbs = &limbs[zeros..];
                let payload = LONG_PAYLOAD_HEAD + 4 * limbs.len();
                head[..4].copy_from_slice(&(payload as u32).to_le_bytes());
                head[17] = LONG_FLAG;
                out.extend_from_slice(&head);
                // A long number's scale is at most 16,383.
                out.extend_from_slice(&(long.0.scale as u16).to_le_bytes());
                out.push(u8::from(long.0.neg));
                out.extend_from_slice(&(zeros as u32).to_le_bytes());
                limbs
                    .iter()
                    .for_each(|l| out.extend_from_slice(&l.to_le_bytes()));
                return;
            }
        }
        out.extend_from_slice(&head);
    }

    /// Whether the value may be stored out of line: a long number, whose
    /// pointer (`external_head`) is shorter than its bytes. A short one's
    /// bytes are as long as a pointer.
    pub(crate) fn may_be_external(&self) -> bool {
        matches!(self, Numeric::Long(_))
    }

    /// The head of a numeric stored out of line: value `id`, `len` bytes
    /// (flags 5).
    pub(crate) fn external_head(id: u64, len: u64) -> [u8; NUMERIC_BYTES] {
        let mut head = [0u8; NUMERIC_BYTES];
        head[..8].copy_from_slice(&id.to_le_bytes());
        head[8..16].copy_from_slice(&len.to_le_bytes());
        head[17] = EXTERNAL_FLAG;
        head
    }

    /// The id and length of a numeric stored out of line, if `head` (at
    /// least `NUMERIC_BYTES`) is one's.
    #[inline]
    pub(crate) fn external_of(head: &[u8]) -> Option<(u64, u64)> {
        (head.len() >= NUMERIC_BYTES && head[17] == EXTERNAL_FLAG).then(|| {
            (
                u64::from_le_bytes(head[..8].try_into().expect("8")),
                u64::from_le_bytes(head[8..16].try_into().expect("8")),
            )
        })
    }

    /// The bytes a stored numeric takes, read from its head (at least
    /// `NUMERIC_BYTES` of what follows it in a row).
    pub(crate) fn stored_len(head: &[u8]) -> Result<usize, RowError> {
        if head.len() < NUMERIC_BYTES {
            return Err(RowError::Corrupt("a numeric cut short".into()));
        }
        if head[17] != LONG_FLAG {
            return Ok(NUMERIC_BYTES);
        }
        let payload = u32::from_le_bytes(head[..4].try_into().expect("4"));
        Ok(NUMERIC_BYTES + payload as usize)
    }

    /// The numeric stored as `b` (its head and any payload).
    pub(crate) fn from_bytes(b: &[u8]) -> Result<Numeric, RowError> {
        let corrupt = |what: &str| RowError::Corrupt(format!("a stored numeric {what}"));
        if b.len() < NUMERIC_BYTES || Numeric::stored_len(b)? != b.len() {
            return Err(corrupt("is not as long as its head says"));
        }
        match b[17] {
            0 => Numeric::new(i128::from_le_bytes(b[..16].try_into().expect("16")), b[16])
                .map_err(|_| corrupt("is out of range")),
            1 => Ok(Numeric::NaN),
            2 => Ok(Numeric::INFINITY),
            3 => Ok(Numeric::NEG_INFINITY),
            LONG_FLAG => {
                let payload = &b[NUMERIC_BYTES..];
                if payload.len() < LONG_PAYLOAD_HEAD
                    || !(payload.len() - LONG_PAYLOAD_HEAD).is_multiple_of(4)
                {
                    return Err(corrupt("has a payload of a wrong length"));
                }
                let scale = u16::from_le_bytes([payload[0], payload[1]]);
                let zeros = u32::from_le_bytes(payload[3..7].try_into().expect("4"));
                // No number of the format has more limbs (nothing is
                // allocated for a corrupt count).
                if zeros > (MAX_WHOLE_DIGITS + MAX_NUMERIC_SCALE) / 9 + 1 {
                    return Err(corrupt("has too many zero limbs"));
                }
                let mut limbs = vec![0u32; zeros as usize];
                limbs.extend(
                    payload[LONG_PAYLOAD_HEAD..]
                        .chunks(4)
                        .map(|c| u32::from_le_bytes(c.try_into().expect("4"))),
                );
                let magnitude = Big::from_limbs(limbs).ok_or_else(|| corrupt("has bad limbs"))?;
                let wide = Wide::new(payload[2] == 1, magnitude, u32::from(scale));
                Numeric::from_wide(wide).map_err(|_| corrupt("is out of range"))
            }
            EXTERNAL_FLAG => Err(corrupt(
                "is stored out of line: decode it through its relation",
            )),
            f => Err(RowError::Corrupt(format!("numeric flags {f}"))),
        }
    }

    /// Sign, decimal exponent and significant digits: the value is
    /// `0.d1 d2 ... dn * 10^exponent` with `d1 != 0` (the key encoding's
    /// form). `None` for zero, NaN and the infinities.
    pub(crate) fn digits(&self) -> Option<(bool, i32, Vec<u8>)> {
        let (negative, text, scale) = self.normalized().decimal()?;
        if text == "0" {
            return None;
        }
        let digits: Vec<u8> = text
            .trim_end_matches('0')
            .bytes()
            .map(|b| b - b'0')
            .collect();
        let exponent = text.len() as i32 - scale as i32;
        Some((negative, exponent, digits))
    }

    /// The inverse of [`Numeric::digits`].
    pub(crate) fn from_digits(
        negative: bool,
        exponent: i32,
        digits: &[u8],
    ) -> Result<Numeric, RowError> {
        Numeric::of_digits(negative, digits, digits.len() as i64 - i64::from(exponent))
    }
}

/// `a + b` where either is special (NaN, an infinity); `None` for two
/// numbers. Opposite infinities sum to NaN.
fn special_sum(a: &Numeric, b: &Numeric) -> Option<Numeric> {
    match (a, b) {
        (Numeric::NaN, _) | (_, Numeric::NaN) => Some(Numeric::NaN),
        (Numeric::Infinity { negative: x }, Numeric::Infinity { negative: y }) if x != y => {
            Some(Numeric::NaN)
        }
        (inf @ Numeric::Infinity { .. }, _) | (_, inf @ Numeric::Infinity { .. }) => {
            Some(inf.clone())
        }
        _ => None,
    }
}

/// `a * b` where either is special; `None` for two numbers. An infinity
/// times zero is NaN, else an infinity of the product's sign.
fn special_product(a: &Numeric, b: &Numeric) -> Option<Numeric> {
    if a.is_nan() || b.is_nan() {
        return Some(Numeric::NaN);
    }
    if !(a.is_infinite() || b.is_infinite()) {
        return None;
    }
    Some(match a.signum()? * b.signum()? {
        0 => Numeric::NaN,
        sign => Numeric::Infinity { negative: sign < 0 },
    })
}

/// `a / b` where either is special, as `checked_div` answers it; `None`
/// for two numbers. PostgreSQL's `numeric_div`: an infinity over an
/// infinity is NaN, over zero a division by zero, over a number an
/// infinity of the quotient's sign; a number over an infinity is 0.
fn special_quotient(a: &Numeric, b: &Numeric) -> Option<Option<Numeric>> {
    match (a, b) {
        (Numeric::NaN, _) | (_, Numeric::NaN) => Some(Some(Numeric::NaN)),
        (Numeric::Infinity { .. }, Numeric::Infinity { .. }) => Some(Some(Numeric::NaN)),
        (Numeric::Infinity { negative }, divisor) => match divisor.signum() {
            Some(0) => Some(None),
            sign => Some(Some(Numeric::Infinity {
                negative: *negative != (sign == Some(-1)),
            })),
        },
        (_, Numeric::Infinity { .. }) => Some(Some(Numeric::from_i64(0))),
        _ => None,
    }
}

/// The quotient `q` (cut toward zero) of an exact quotient whose sign is
/// `negative`, with remainder `r` of a divisor `d`, rounded as `how` says.
fn nudge(q: i128, r: i128, d: i128, negative: bool, how: Rounding) -> i128 {
    let away = r != 0
        && match how {
            Rounding::HalfAwayFromZero => 2 * r.unsigned_abs() >= d.unsigned_abs(),
            Rounding::TowardZero => false,
            Rounding::Floor => negative,
            Rounding::Ceiling => !negative,
        };
    match (away, negative) {
        (false, _) => q,
        (true, true) => q - 1,
        (true, false) => q + 1,
    }
}

/// `Numeric::round_to` in i128, where everything fits (`None` where not:
/// the caller computes in `Wide`).
fn round_fast(mantissa: i128, scale: u8, digits: i32, how: Rounding) -> Option<Numeric> {
    let target = u8::try_from(digits.max(0)).ok()?;
    let cut = i64::from(scale) - i64::from(digits);
    if cut <= 0 {
        let m = mantissa.checked_mul(pow10(u32::from(target - scale))?)?;
        return Numeric::new(m, target).ok();
    }
    let d = pow10(u32::try_from(cut).ok()?)?;
    let q = nudge(mantissa / d, mantissa % d, d, mantissa < 0, how);
    // Places before the point (digits < 0) come back as zeros.
    let pad = pow10(digits.min(0).unsigned_abs())?;
    Numeric::new(q.checked_mul(pad)?, target).ok()
}

/// `Numeric::checked_div` in i128, where everything fits.
fn div_fast(a: (i128, u8), b: (i128, u8), scale: u32, how: Rounding) -> Option<Numeric> {
    let ((a, sa), (b, sb)) = (a, b);
    let shift = i64::from(scale) + i64::from(sb) - i64::from(sa);
    let (n, d) = if shift >= 0 {
        (a.checked_mul(pow10(u32::try_from(shift).ok()?)?)?, b)
    } else {
        (a, b.checked_mul(pow10(u32::try_from(-shift).ok()?)?)?)
    };
    let negative = (n < 0) != (d < 0);
    let q = nudge(n / d, n % d, d, negative, how);
    Numeric::new(q, u8::try_from(scale).ok()?).ok()
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
    /// Numeric order; -Infinity below every number, Infinity above, NaN
    /// above both, each equal to itself (PostgreSQL's rule).
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Numeric::NaN, Numeric::NaN) => Ordering::Equal,
            (Numeric::NaN, _) => Ordering::Greater,
            (_, Numeric::NaN) => Ordering::Less,
            (Numeric::Infinity { negative: a }, Numeric::Infinity { negative: b }) => b.cmp(a),
            (Numeric::Infinity { negative }, _) => match negative {
                true => Ordering::Less,
                false => Ordering::Greater,
            },
            (_, Numeric::Infinity { negative }) => match negative {
                true => Ordering::Greater,
                false => Ordering::Less,
            },
            _ => {
                if let Some(((a, sa), (b, sb))) = self.short_pair(other) {
                    let scale = sa.max(sb);
                    if let (Some(a), Some(b)) =
                        (Self::at_scale(a, sa, scale), Self::at_scale(b, sb, scale))
                    {
                        return a.cmp(&b);
                    }
                }
                let (x, y) = self.wide_pair(other).expect("numbers");
                x.cmp(&y)
            }
        }
    }
}

impl std::fmt::Display for Numeric {
    /// PostgreSQL's output: the value at its own scale (`1.50`), `NaN`,
    /// `Infinity`, `-Infinity`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Numeric::NaN => write!(f, "NaN"),
            Numeric::Infinity { negative: false } => write!(f, "Infinity"),
            Numeric::Infinity { negative: true } => write!(f, "-Infinity"),
            Numeric::Value { mantissa, scale } => write_decimal(
                f,
                *mantissa < 0,
                &mantissa.unsigned_abs().to_string(),
                (*scale).into(),
            ),
            Numeric::Long(long) => std::fmt::Display::fmt(&*long.0, f),
        }
    }
}

/// A decimal of magnitude `digits` (an integer's) at `scale` places, as a
/// numeric prints (`-0.50`): the one owner of that text, for [`Numeric`]
/// and folio-row's `Wide`.
pub(crate) fn write_decimal(
    f: &mut std::fmt::Formatter<'_>,
    negative: bool,
    digits: &str,
    scale: u32,
) -> std::fmt::Result {
    let scale = scale as usize;
    let sign = if negative { "-" } else { "" };
    if scale == 0 {
        return write!(f, "{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    write!(f, "{sign}{int}.{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes_of(n: &Numeric) -> Vec<u8> {
        let mut out = Vec::new();
        n.write_bytes(&mut out);
        out
    }

    fn rounding() -> impl Strategy<Value = Rounding> {
        prop_oneof![
            Just(Rounding::HalfAwayFromZero),
            Just(Rounding::TowardZero),
            Just(Rounding::Floor),
            Just(Rounding::Ceiling),
        ]
    }

    // Proves the i128 fast paths of rounding and division give what the
    // exact `Wide` computation gives, wherever they answer.
    proptest! {
        #[test]
        fn fast_paths_agree_with_wide(
            a in -(10i128.pow(20))..10i128.pow(20),
            b in -(10i128.pow(12))..10i128.pow(12),
            sa in 0u8..30,
            sb in 0u8..30,
            digits in -25i32..45,
            scale in 0u32..45,
            how in rounding(),
        ) {
            let x = Numeric::new(a, sa).unwrap();
            if let Some(fast) = round_fast(a, sa, digits, how) {
                let wide = Numeric::from_wide(x.wide().unwrap().round_at(digits, how)).unwrap();
                prop_assert_eq!(fast.to_string(), wide.to_string());
            }
            prop_assume!(b != 0);
            let y = Numeric::new(b, sb).unwrap();
            if let Some(fast) = div_fast((a, sa), (b, sb), scale, how) {
                let wide = x.wide().unwrap().div(&y.wide().unwrap(), scale, how);
                prop_assert_eq!(fast.to_string(), Numeric::from_wide(wide).unwrap().to_string());
            }
        }
    }

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
        assert_eq!(
            n("1.25").checked_add(&n("2.5")).unwrap().to_string(),
            "3.75"
        );
        assert_eq!(
            n("1.25").checked_sub(&n("2.5")).unwrap().to_string(),
            "-1.25"
        );
        assert_eq!(
            n("1.5").checked_mul(&n("-2.25")).unwrap().to_string(),
            "-3.375"
        );
        let big = n("99999999999999999999999999999999999999");
        assert_eq!(
            big.checked_add(&n("1")).unwrap().to_string(),
            format!("1{}", "0".repeat(38))
        );
        assert_eq!(
            Numeric::from_bytes(&bytes_of(&n("-7.25")))
                .unwrap()
                .to_string(),
            "-7.25"
        );
        for s in ["123.45", "-0.0012", "1000", "7"] {
            let (neg, e, d) = n(s).digits().unwrap();
            assert_eq!(Numeric::from_digits(neg, e, &d).unwrap(), n(s), "{s}");
        }
    }

    // Proves PostgreSQL 15's infinities: their input (any case, `inf`,
    // signs, blanks) and output, their row bytes beside the older flags,
    // their order, arithmetic with them (NaN for inf - inf and inf * 0,
    // zero for x / inf, division by zero kept), rounding, and that no
    // numeric(p, s) holds one (22003 with PostgreSQL's DETAIL).
    #[test]
    fn infinities_parse_print_store_order_and_compute() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        let s = |r: Result<Numeric, RowError>| r.unwrap().to_string();
        for (text, shown) in [
            ("Infinity", "Infinity"),
            ("+Infinity", "Infinity"),
            ("-Infinity", "-Infinity"),
            ("inf", "Infinity"),
            ("  -INF ", "-Infinity"),
            ("+iNf", "Infinity"),
        ] {
            assert_eq!(n(text).to_string(), shown, "{text}");
        }
        for bad in ["infinit", " - inf", "infinityx", "+nan", "--inf"] {
            assert!(Numeric::parse(bad).is_err(), "{bad}");
        }
        for v in [Numeric::INFINITY, Numeric::NEG_INFINITY, Numeric::NaN] {
            let bytes = bytes_of(&v);
            assert_eq!(bytes[..17], [0u8; 17]);
            assert_eq!(
                Numeric::from_bytes(&bytes).unwrap().to_string(),
                v.to_string()
            );
        }
        assert_eq!(bytes_of(&Numeric::INFINITY)[17], 2);
        assert_eq!(bytes_of(&Numeric::NEG_INFINITY)[17], 3);
        let (inf, ninf) = (Numeric::INFINITY, Numeric::NEG_INFINITY);
        let big = n("99999999999999999999999999999999999999");
        assert!(ninf < big.negated() && big < inf && inf < Numeric::NaN && ninf < inf);
        assert_eq!(inf, n("inf"));
        assert_eq!(s(inf.checked_add(&n("1"))), "Infinity");
        assert_eq!(s(inf.checked_add(&big)), "Infinity");
        assert_eq!(s(inf.checked_sub(&inf)), "NaN");
        assert_eq!(s(inf.checked_add(&ninf)), "NaN");
        assert_eq!(s(ninf.checked_sub(&inf)), "-Infinity");
        assert_eq!(s(n("1").checked_sub(&inf)), "-Infinity");
        assert_eq!(s(inf.checked_add(&Numeric::NaN)), "NaN");
        assert_eq!(s(inf.checked_mul(&n("0.00"))), "NaN");
        assert_eq!(s(inf.checked_mul(&n("-2"))), "-Infinity");
        assert_eq!(s(ninf.checked_mul(&ninf)), "Infinity");
        assert_eq!(s(inf.mul_round(&n("2.5"), 3)), "Infinity");
        let div = |a: &Numeric, b: &Numeric| {
            a.checked_div(b, 20, Rounding::HalfAwayFromZero)
                .unwrap()
                .map(|q| q.to_string())
        };
        assert_eq!(div(&n("-1.5"), &inf).as_deref(), Some("0"));
        assert_eq!(div(&inf, &inf).as_deref(), Some("NaN"));
        assert_eq!(div(&inf, &n("-3")).as_deref(), Some("-Infinity"));
        assert_eq!(div(&ninf, &n("0.5")).as_deref(), Some("-Infinity"));
        assert_eq!(div(&inf, &n("0")), None);
        assert_eq!(div(&Numeric::NaN, &n("0")).as_deref(), Some("NaN"));
        let rem = |a: &Numeric, b: &Numeric| a.checked_rem(b).unwrap().map(|q| q.to_string());
        assert_eq!(rem(&inf, &n("2")).as_deref(), Some("NaN"));
        assert_eq!(rem(&n("-5.5"), &ninf).as_deref(), Some("-5.5"));
        assert_eq!(rem(&inf, &n("0")), None);
        assert_eq!(rem(&inf, &inf).as_deref(), Some("NaN"));
        for how in [Rounding::Floor, Rounding::Ceiling, Rounding::TowardZero] {
            assert_eq!(s(ninf.round_to(-2, how)), "-Infinity");
        }
        assert_eq!(inf.to_f64(), f64::INFINITY);
        assert_eq!(ninf.to_f64(), f64::NEG_INFINITY);
        assert_eq!(
            (inf.signum(), ninf.signum(), Numeric::NaN.signum()),
            (Some(1), Some(-1), None)
        );
        let refused = inf.fit_typmod(10, 2).unwrap_err();
        assert_eq!(refused.sqlstate(), "22003");
        assert_eq!(refused.to_string(), "numeric field overflow");
        assert_eq!(
            refused.detail().as_deref(),
            Some("A field with precision 10, scale 2 cannot hold an infinite value.")
        );
        assert!(ninf.fit_typmod(1000, 0).is_err());
    }

    // Proves rounding at any place (negative: before the point) by each
    // mode with the display scale PostgreSQL's round/trunc give, exact
    // division rounded at a scale past i128's reach, the remainder, and
    // PostgreSQL's base-10000 form, against PostgreSQL 15's values.
    #[test]
    fn numerics_round_divide_and_show_their_base10000_digits() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        let round = |s: &str, d, how| n(s).round_to(d, how).unwrap().to_string();
        use Rounding::*;
        assert_eq!(round("123.45", -1, HalfAwayFromZero), "120");
        assert_eq!(round("-155.5", -2, HalfAwayFromZero), "-200");
        assert_eq!(round("55555", -5, HalfAwayFromZero), "100000");
        assert_eq!(round("1.2", 5, HalfAwayFromZero), "1.20000");
        assert_eq!(round("-2.5", 0, HalfAwayFromZero), "-3");
        assert_eq!(round("-123.45", -2, TowardZero), "-100");
        assert_eq!(round("-0.5", 0, TowardZero), "0");
        assert_eq!(round("-1.01", 0, Floor), "-2");
        assert_eq!(round("-1.01", 0, Ceiling), "-1");
        assert_eq!(round("0.00049", 3, HalfAwayFromZero), "0.000");
        let div = |a: &str, b: &str, scale| {
            n(a).checked_div(&n(b), scale, HalfAwayFromZero)
                .unwrap()
                .unwrap()
                .to_string()
        };
        assert_eq!(div("1", "3", 20), "0.33333333333333333333");
        assert_eq!(div("22", "7", 16), "3.1428571428571429");
        assert_eq!(
            div("1e-20", "3", 40),
            "0.0000000000000000000033333333333333333333"
        );
        // A 51-digit dividend: 1e30 / 1e29 at 20 places.
        assert_eq!(div("1e30", "1e29", 20), "10.00000000000000000000");
        assert_eq!(
            n("1").checked_div(&n("0"), 2, HalfAwayFromZero).unwrap(),
            None
        );
        assert_eq!(
            n("-7.5")
                .checked_div(&n("2"), 0, TowardZero)
                .unwrap()
                .unwrap()
                .to_string(),
            "-3"
        );
        assert_eq!(
            n("-7.5").checked_rem(&n("2")).unwrap().unwrap().to_string(),
            "-1.5"
        );
        assert_eq!(
            n("1.00")
                .checked_rem(&n("0.3"))
                .unwrap()
                .unwrap()
                .to_string(),
            "0.10"
        );
        assert_eq!(n("0.001").base10000(), Some((-1, vec![10])));
        assert_eq!(n("12345.6789").base10000(), Some((1, vec![1, 2345, 6789])));
        assert_eq!(n("100.0").base10000(), Some((0, vec![100])));
        assert_eq!(n("1e8").base10000(), Some((2, vec![1])));
        assert_eq!(n("0.000").base10000(), None);
        assert_eq!(n("1e-40").to_string(), format!("0.{}1", "0".repeat(39)));
        assert_eq!(
            n("1e-40").checked_add(&n("1")).unwrap().to_string(),
            format!("1.{}1", "0".repeat(39))
        );
        assert_eq!(n("1e50").base10000(), Some((12, vec![100])));
        // The lead alone agrees with the digits, short and long, signs,
        // scales on every side of a group boundary.
        for text in [
            "0.001",
            "12345.6789",
            "100.0",
            "1e8",
            "1e50",
            "-7",
            "0.5",
            "9999.9999",
            "10000",
            "1e-16383",
            "-3.14159e-20",
            "123456789012345678901234567890123456789012",
            "1234567890123456789.0123456789012345678901234567890",
            "1e131070",
            "0.000",
        ] {
            let v = n(text);
            for x in [v.clone(), v.negated(), v.checked_mul(&n("10")).unwrap()] {
                let lead = x.base10000().map(|(w, d)| (w, d[0]));
                assert_eq!(x.base10000_lead(), lead, "{text}");
            }
        }
    }

    // Proves numbers past the short form's 38 digits and scale 255: one
    // form per value (a long result that fits comes back short), exact
    // arithmetic across the forms, order, rounding, typmods, row bytes
    // with their payload, the key form's digits, and PostgreSQL's limits
    // (131,072 digits before the point, a scale of 16,383: 22003 past
    // them; a product's scale stops at 16,383, rounded).
    #[test]
    fn long_numbers_compute_store_and_keep_postgresql_limits() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        let s = |r: Result<Numeric, RowError>| r.unwrap().to_string();
        let long = n("123456789012345678901234567890123456789012345678901234567890.5");
        assert!(matches!(long, Numeric::Long(_)));
        assert_eq!(
            long.to_string(),
            "123456789012345678901234567890123456789012345678901234567890.5"
        );
        let back = long.checked_sub(&n(
            "123456789012345678901234567890123456789012345678901234567890",
        ));
        assert!(matches!(
            back,
            Ok(Numeric::Value {
                mantissa: 5,
                scale: 1
            })
        ));
        assert_eq!(
            s(long.checked_mul(&n("-2"))),
            format!(
                "-{}",
                "246913578024691357802469135780246913578024691357802469135781.0"
            )
        );
        assert_eq!(
            s(n("1e40")
                .checked_div(&n("3"), 5, Rounding::HalfAwayFromZero)
                .map(Option::unwrap)),
            format!("{}.33333", "3".repeat(40))
        );
        assert_eq!(s(n("1e39").checked_rem(&n("7")).map(Option::unwrap)), "6");
        assert!(n("1e40") > n("99999999999999999999999999999999999999"));
        assert!(n("-1e40") < n("-1e39") && n("1e-300") > n("0") && n("1e-300") < n("1e-299"));
        assert_eq!(
            n("1e40"),
            n("10000000000000000000000000000000000000000.000")
        );
        assert_eq!(
            s(long.round_to(-59, Rounding::HalfAwayFromZero)),
            format!("1{}", "0".repeat(59))
        );
        assert_eq!(s(n("1e-300").round_to(2, Rounding::Ceiling)), "0.01");
        assert_eq!(long.normalized().to_string(), long.to_string());
        let zeros = n(&format!("1{}.000", "0".repeat(45)));
        assert!(matches!(zeros.normalized(), Numeric::Long(_)));
        assert_eq!(
            zeros.normalized().to_string(),
            format!("1{}", "0".repeat(45))
        );
        assert!(matches!(
            n("1.5e-250").checked_mul(&n("1e-10")),
            Ok(Numeric::Long(_))
        ));
        assert!(n("1e-260").normalized().scale() == Some(260));
        // Typmods past 38 digits.
        assert_eq!(
            s(long.fit_typmod(62, 1)),
            "123456789012345678901234567890123456789012345678901234567890.5"
        );
        assert!(long.fit_typmod(61, 2).is_err());
        assert_eq!(
            s(n("99999999999999999999999999999999999999.99").fit_typmod(40, 1)),
            "100000000000000000000000000000000000000.0"
        );
        // Row bytes: head, then the payload its head counts.
        for v in [
            long.clone(),
            long.negated(),
            n("1e-300"),
            n("0e-300"),
            n("1e131071"),
        ] {
            let bytes = bytes_of(&v);
            assert_eq!(Numeric::stored_len(&bytes).unwrap(), bytes.len());
            assert_eq!(
                Numeric::from_bytes(&bytes).unwrap().to_string(),
                v.to_string()
            );
            let (neg, e, d) = v.digits().unwrap_or((false, 0, Vec::new()));
            if !d.is_empty() {
                assert_eq!(Numeric::from_digits(neg, e, &d).unwrap(), v);
            }
        }
        assert_eq!(bytes_of(&n("1e100000")).len(), NUMERIC_BYTES + 7 + 4);
        let mut cut = bytes_of(&long);
        cut.pop();
        assert!(Numeric::from_bytes(&cut).is_err());
        // PostgreSQL's limits.
        assert_eq!(n("1e131071").to_string().len(), 131_072);
        for past in ["1e131072", "1e-16384", "0.5e-16383"] {
            assert_eq!(
                Numeric::parse(past).unwrap_err().sqlstate(),
                "22003",
                "{past}"
            );
        }
        assert!(n("1e-16383") > n("0"));
        assert_eq!(
            n("1e131071").checked_mul(&n("10")).unwrap_err().sqlstate(),
            "22003"
        );
        let tiny = n("1e-10000").checked_mul(&n("1e-10000")).unwrap();
        assert_eq!((tiny.signum(), tiny.scale()), (Some(0), Some(16_383)));
        assert_eq!(
            n("1e-10000").checked_mul(&n("1e-1000")).unwrap().scale(),
            Some(11_000)
        );
    }
}
