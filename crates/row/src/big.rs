//! `Big`, an unsigned integer of any size, and `Wide`, a signed decimal
//! of any size over it: the intermediate values of numeric's division,
//! square root, exp, ln and power. A numeric holds 38
//! digits (`numeric.rs`), but `1e30 / 1e29` at 20 digits after the point
//! needs a 51-digit dividend, and ln needs 8 or more guard digits past
//! the result's: these are computed exactly in `Big` and rounded once.
//!
//! Base 10^9 digits ("limbs"), least significant first, no high zero
//! limbs (zero is no limbs): shifts by powers of ten and the conversions
//! to decimal stay cheap. Division is Knuth's algorithm D (TAOCP 4.3.1).

use crate::numeric::Rounding;
use std::cmp::Ordering;

const BASE: u64 = 1_000_000_000;
const BASE_DIGITS: u32 = 9;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Big {
    limbs: Vec<u32>,
}

impl Big {
    pub(crate) fn zero() -> Big {
        Big::default()
    }

    pub(crate) fn from_u128(mut v: u128) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(BASE)) as u32);
            v /= u128::from(BASE);
        }
        Big { limbs }
    }

    /// The integer whose decimal digits (values 0..=9, most significant
    /// first) are `digits`.
    pub(crate) fn from_decimal_digits(digits: &[u8]) -> Big {
        let mut limbs = Vec::with_capacity(digits.len() / BASE_DIGITS as usize + 1);
        for chunk in digits.rchunks(BASE_DIGITS as usize) {
            limbs.push(chunk.iter().fold(0u32, |acc, d| acc * 10 + u32::from(*d)));
        }
        Big { limbs }.trim()
    }

    /// How many decimal zeros it ends with (0 for zero).
    pub(crate) fn trailing_zeros(&self) -> u32 {
        let Some(low) = self.limbs.iter().position(|&l| l != 0) else {
            return 0;
        };
        let mut limb = self.limbs[low];
        let mut zeros = low as u32 * BASE_DIGITS;
        while limb.is_multiple_of(10) {
            limb /= 10;
            zeros += 1;
        }
        zeros
    }

    /// Its base-10^9 limbs, least significant first (none for zero).
    pub(crate) fn limbs(&self) -> &[u32] {
        &self.limbs
    }

    /// The integer of base-10^9 `limbs` (least significant first), if each
    /// is below 10^9 and the last is not zero.
    pub(crate) fn from_limbs(limbs: Vec<u32>) -> Option<Big> {
        let valid = limbs.iter().all(|&l| u64::from(l) < BASE) && limbs.last() != Some(&0);
        valid.then_some(Big { limbs })
    }

    /// The value, if it fits a `u128`.
    pub(crate) fn to_u128(&self) -> Option<u128> {
        let mut v: u128 = 0;
        for &limb in self.limbs.iter().rev() {
            v = v
                .checked_mul(u128::from(BASE))?
                .checked_add(u128::from(limb))?;
        }
        Some(v)
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// 10^n.
    pub(crate) fn pow10(n: u32) -> Big {
        Big::from_u128(1).mul_pow10(n)
    }

    fn trim(mut self) -> Big {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        self
    }

    /// Its count of decimal digits (0 for zero).
    pub(crate) fn digits(&self) -> u32 {
        match self.limbs.last() {
            None => 0,
            Some(top) => (self.limbs.len() as u32 - 1) * BASE_DIGITS + top.ilog10() + 1,
        }
    }

    pub(crate) fn add(&self, other: &Big) -> Big {
        let (long, short) = if self.limbs.len() >= other.limbs.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Vec::with_capacity(long.limbs.len() + 1);
        let mut carry = 0u64;
        for (i, &a) in long.limbs.iter().enumerate() {
            let sum = u64::from(a) + u64::from(*short.limbs.get(i).unwrap_or(&0)) + carry;
            out.push((sum % BASE) as u32);
            carry = sum / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big { limbs: out }
    }

    /// `self - other`; `other` must not be greater.
    pub(crate) fn sub(&self, other: &Big) -> Big {
        assert!(*self >= *other, "Big::sub would go below zero");
        let mut out = Vec::with_capacity(self.limbs.len());
        let mut borrow = 0i64;
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut d = i64::from(a) - i64::from(*other.limbs.get(i).unwrap_or(&0)) - borrow;
            borrow = 0;
            if d < 0 {
                d += BASE as i64;
                borrow = 1;
            }
            out.push(d as u32);
        }
        Big { limbs: out }.trim()
    }

    pub(crate) fn mul(&self, other: &Big) -> Big {
        if self.is_zero() || other.is_zero() {
            return Big::zero();
        }
        let mut out = vec![0u64; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.limbs.iter().enumerate() {
                // < BASE + BASE^2 + BASE: fits a u64.
                let cur = out[i + j] + u64::from(a) * u64::from(b) + carry;
                out[i + j] = cur % BASE;
                carry = cur / BASE;
            }
            out[i + other.limbs.len()] += carry;
        }
        Big {
            limbs: out.into_iter().map(|l| l as u32).collect(),
        }
        .trim()
    }

    /// `self * m` for `m < 10^9`.
    pub(crate) fn mul_small(&self, m: u32) -> Big {
        assert!(u64::from(m) < BASE);
        let mut out = Vec::with_capacity(self.limbs.len() + 1);
        let mut carry = 0u64;
        for &a in &self.limbs {
            let cur = u64::from(a) * u64::from(m) + carry;
            out.push((cur % BASE) as u32);
            carry = cur / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big { limbs: out }.trim()
    }

    /// Quotient and remainder by `d` (`0 < d < 10^9`).
    pub(crate) fn div_rem_small(&self, d: u32) -> (Big, u32) {
        assert!(d > 0 && u64::from(d) < BASE);
        let mut out = vec![0u32; self.limbs.len()];
        let mut rem = 0u64;
        for (i, &a) in self.limbs.iter().enumerate().rev() {
            let cur = rem * BASE + u64::from(a);
            out[i] = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        (Big { limbs: out }.trim(), rem as u32)
    }

    /// `self * 10^n`.
    pub(crate) fn mul_pow10(&self, n: u32) -> Big {
        if self.is_zero() {
            return Big::zero();
        }
        let mut limbs = vec![0u32; (n / BASE_DIGITS) as usize];
        limbs.extend_from_slice(&self.limbs);
        Big { limbs }.mul_small(10u32.pow(n % BASE_DIGITS))
    }

    /// Quotient and remainder by 10^n.
    pub(crate) fn div_rem_pow10(&self, n: u32) -> (Big, Big) {
        let whole = (n / BASE_DIGITS) as usize;
        if whole >= self.limbs.len() {
            return (Big::zero(), self.clone());
        }
        let low = Big {
            limbs: self.limbs[..whole].to_vec(),
        }
        .trim();
        let high = Big {
            limbs: self.limbs[whole..].to_vec(),
        };
        let (q, r) = high.div_rem_small(10u32.pow(n % BASE_DIGITS));
        let rem = Big::from_u128(u128::from(r)).mul_pow10(whole as u32 * BASE_DIGITS);
        (q, rem.add(&low))
    }

    /// Quotient and remainder by `d` (not zero).
    pub(crate) fn div_rem(&self, d: &Big) -> (Big, Big) {
        assert!(!d.is_zero(), "Big division by zero");
        if *self < *d {
            return (Big::zero(), self.clone());
        }
        if d.limbs.len() == 1 {
            let (q, r) = self.div_rem_small(d.limbs[0]);
            return (q, Big::from_u128(u128::from(r)));
        }
        // Normalise so the divisor's top limb is at least BASE / 2.
        let scale = (BASE / (u64::from(*d.limbs.last().expect("not zero")) + 1)) as u32;
        let u = self.mul_small(scale);
        let v = d.mul_small(scale);
        let n = v.limbs.len();
        let mut u = u.limbs;
        u.push(0);
        let m = u.len() - n - 1;
        let (v_top, v_next) = (u64::from(v.limbs[n - 1]), u64::from(v.limbs[n - 2]));
        let mut q = vec![0u32; m + 1];
        for j in (0..=m).rev() {
            let top = u64::from(u[j + n]) * BASE + u64::from(u[j + n - 1]);
            let mut qhat = top / v_top;
            let mut rhat = top % v_top;
            while qhat >= BASE || qhat * v_next > rhat * BASE + u64::from(u[j + n - 2]) {
                qhat -= 1;
                rhat += v_top;
                if rhat >= BASE {
                    break;
                }
            }
            // u[j..j+n+1] -= qhat * v
            let mut borrow = 0i64;
            let mut carry = 0u64;
            for i in 0..n {
                let p = qhat * u64::from(v.limbs[i]) + carry;
                carry = p / BASE;
                let mut t = i64::from(u[i + j]) - (p % BASE) as i64 - borrow;
                borrow = 0;
                if t < 0 {
                    t += BASE as i64;
                    borrow = 1;
                }
                u[i + j] = t as u32;
            }
            let mut t = i64::from(u[j + n]) - carry as i64 - borrow;
            if t < 0 {
                // qhat was one too large: add v back.
                t += BASE as i64;
                u[j + n] = t as u32;
                qhat -= 1;
                let mut carry = 0u64;
                for i in 0..n {
                    let s = u64::from(u[i + j]) + u64::from(v.limbs[i]) + carry;
                    u[i + j] = (s % BASE) as u32;
                    carry = s / BASE;
                }
                u[j + n] = ((u64::from(u[j + n]) + carry) % BASE) as u32;
            } else {
                u[j + n] = t as u32;
            }
            q[j] = qhat as u32;
        }
        u.truncate(n);
        let (rem, left) = Big { limbs: u }.trim().div_rem_small(scale);
        debug_assert_eq!(left, 0);
        (Big { limbs: q }.trim(), rem)
    }

    /// The integer square root, rounded down.
    pub(crate) fn isqrt(&self) -> Big {
        if self.is_zero() {
            return Big::zero();
        }
        // Newton's iteration from above: x' = (x + n/x) / 2 falls to the
        // root and then stops falling.
        let mut x = Big::pow10(self.digits().div_ceil(2));
        loop {
            let (q, _) = self.div_rem(&x);
            let (next, _) = x.add(&q).div_rem_small(2);
            if next >= x {
                return x;
            }
            x = next;
        }
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl std::fmt::Display for Big {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some((top, rest)) = self.limbs.split_last() else {
            return write!(f, "0");
        };
        write!(f, "{top}")?;
        for limb in rest.iter().rev() {
            write!(f, "{limb:09}")?;
        }
        Ok(())
    }
}

/// A signed decimal of any size: `±mag · 10^-scale` (zero is never
/// negative).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wide {
    pub(crate) neg: bool,
    pub(crate) mag: Big,
    pub(crate) scale: u32,
}

impl Wide {
    pub(crate) fn new(neg: bool, mag: Big, scale: u32) -> Wide {
        Wide {
            neg: neg && !mag.is_zero(),
            mag,
            scale,
        }
    }

    /// The integer `v`.
    pub(crate) fn int(v: i128) -> Wide {
        Wide::new(v < 0, Big::from_u128(v.unsigned_abs()), 0)
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }

    /// The count of digits before the point, `floor(log10 |v|) + 1`
    /// (negative for 0.00x); `None` for zero.
    pub(crate) fn lead(&self) -> Option<i64> {
        (!self.is_zero()).then(|| i64::from(self.mag.digits()) - i64::from(self.scale))
    }

    /// The magnitude at `scale` (not less than the value's).
    pub(crate) fn mag_at(&self, scale: u32) -> Big {
        self.mag.mul_pow10(scale - self.scale)
    }

    pub(crate) fn negate(&self) -> Wide {
        Wide::new(!self.neg, self.mag.clone(), self.scale)
    }

    pub(crate) fn abs(&self) -> Wide {
        Wide::new(false, self.mag.clone(), self.scale)
    }

    pub(crate) fn add(&self, other: &Wide) -> Wide {
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.mag_at(scale), other.mag_at(scale));
        if self.neg == other.neg {
            return Wide::new(self.neg, a.add(&b), scale);
        }
        match a.cmp(&b) {
            Ordering::Less => Wide::new(other.neg, b.sub(&a), scale),
            _ => Wide::new(self.neg, a.sub(&b), scale),
        }
    }

    pub(crate) fn sub(&self, other: &Wide) -> Wide {
        self.add(&other.negate())
    }

    /// The exact product (its scale the sum of theirs).
    pub(crate) fn mul(&self, other: &Wide) -> Wide {
        Wide::new(
            self.neg != other.neg,
            self.mag.mul(&other.mag),
            self.scale + other.scale,
        )
    }

    /// The product rounded (half away from zero) at `scale`.
    pub(crate) fn mul_at(&self, other: &Wide, scale: u32) -> Wide {
        self.mul(other).at(scale)
    }

    /// The value rounded (half away from zero) or padded to `scale`.
    pub(crate) fn at(&self, scale: u32) -> Wide {
        self.round_at(scale as i32, Rounding::HalfAwayFromZero)
    }

    /// The value rounded at `digits` places after the point (negative:
    /// before it) as `how` says, at scale `max(digits, 0)`.
    pub(crate) fn round_at(&self, digits: i32, how: Rounding) -> Wide {
        let target = digits.max(0) as u32;
        let cut = i64::from(self.scale) - i64::from(digits);
        if cut <= 0 {
            return Wide::new(self.neg, self.mag_at(target), target);
        }
        let cut = cut as u32;
        let (kept, rest) = self.mag.div_rem_pow10(cut);
        let up = !rest.is_zero()
            && match how {
                Rounding::HalfAwayFromZero => rest.mul_small(2) >= Big::pow10(cut),
                Rounding::TowardZero => false,
                Rounding::Floor => self.neg,
                Rounding::Ceiling => !self.neg,
            };
        let kept = if up {
            kept.add(&Big::from_u128(1))
        } else {
            kept
        };
        // `kept` counts units of 10^-digits; shown at `target` places.
        let pad = if digits < 0 { digits.unsigned_abs() } else { 0 };
        Wide::new(self.neg, kept.mul_pow10(pad), target)
    }

    /// `self / other` (not zero) at `scale`, the exact quotient rounded
    /// as `how` says.
    pub(crate) fn div(&self, other: &Wide, scale: u32, how: Rounding) -> Wide {
        // a·10^-sa / (b·10^-sb) · 10^scale = a·10^(scale + sb - sa) / b.
        let shift = i64::from(scale) + i64::from(other.scale) - i64::from(self.scale);
        let (n, d) = if shift >= 0 {
            (self.mag.mul_pow10(shift as u32), other.mag.clone())
        } else {
            (self.mag.clone(), other.mag.mul_pow10((-shift) as u32))
        };
        let (q, r) = n.div_rem(&d);
        let neg = self.neg != other.neg;
        let up = !r.is_zero()
            && match how {
                Rounding::HalfAwayFromZero => r.mul_small(2) >= d,
                Rounding::TowardZero => false,
                Rounding::Floor => neg,
                Rounding::Ceiling => !neg,
            };
        let q = if up { q.add(&Big::from_u128(1)) } else { q };
        Wide::new(neg, q, scale)
    }

    /// `self / d` rounded at `scale`, for a small positive integer `d`.
    pub(crate) fn div_small(&self, d: u32, scale: u32) -> Wide {
        self.div(&Wide::int(i128::from(d)), scale, Rounding::HalfAwayFromZero)
    }

    /// The square root of a value not below zero, correctly rounded (half
    /// away from zero) at `scale`.
    pub(crate) fn sqrt(&self, scale: u32) -> Wide {
        assert!(!self.neg, "the square root of a negative Wide");
        // sqrt(m · 10^-s) · 10^t = sqrt(m · 10^(2t - s)): with s even and
        // t > scale, the integer root is the root cut at t digits, which
        // rounds at `scale` as the exact root would (the cut digits only
        // ever lose value, never cross a half).
        let (mag, s) = if self.scale % 2 == 1 {
            (self.mag.mul_small(10), self.scale + 1)
        } else {
            (self.mag.clone(), self.scale)
        };
        let t = (scale + 1).max(s / 2);
        let root = mag.mul_pow10(2 * t - s).isqrt();
        Wide::new(false, root, t).at(scale)
    }

    /// `self · 10^e`, exactly.
    pub(crate) fn shift10(&self, e: i64) -> Wide {
        if e >= 0 {
            let down = (e as u64).min(u64::from(self.scale)) as u32;
            let up = (e as u64 - u64::from(down)) as u32;
            Wide::new(self.neg, self.mag.mul_pow10(up), self.scale - down)
        } else {
            Wide::new(self.neg, self.mag.clone(), self.scale + (-e) as u32)
        }
    }

    /// The nearest double, for estimates.
    pub(crate) fn to_f64(&self) -> f64 {
        self.to_string().parse().unwrap_or(f64::NAN)
    }
}

impl PartialOrd for Wide {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Wide {
    fn cmp(&self, other: &Self) -> Ordering {
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.mag_at(scale), other.mag_at(scale));
        match (self.neg, other.neg) {
            (false, false) => a.cmp(&b),
            (true, true) => b.cmp(&a),
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
        }
    }
}

impl std::fmt::Display for Wide {
    /// The value at its scale, as a numeric prints (`-0.50`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::numeric::write_decimal(f, self.neg, &self.mag.to_string(), self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn big(s: &str) -> Big {
        s.bytes().fold(Big::zero(), |acc, b| {
            acc.mul_small(10).add(&Big::from_u128(u128::from(b - b'0')))
        })
    }

    // Proves the arithmetic against u128 where both fit, and division of
    // many-limb numbers by its defining identity (q·d + r = n, r < d).
    proptest! {
        #[test]
        fn big_agrees_with_u128(a in any::<u64>(), b in 1u64.., k in 0u32..20) {
            let (x, y) = (Big::from_u128(a.into()), Big::from_u128(b.into()));
            prop_assert_eq!(x.add(&y).to_u128(), Some(u128::from(a) + u128::from(b)));
            prop_assert_eq!(x.mul(&y).to_u128(), Some(u128::from(a) * u128::from(b)));
            let (q, r) = x.div_rem(&y);
            prop_assert_eq!((q.to_u128(), r.to_u128()), (Some((a / b).into()), Some((a % b).into())));
            let (q, r) = x.div_rem_pow10(k);
            let p = 10u128.pow(k);
            prop_assert_eq!((q.to_u128(), r.to_u128()), (Some(u128::from(a) / p), Some(u128::from(a) % p)));
            prop_assert_eq!(x.isqrt().to_u128(), Some(u128::from(a.isqrt())));
            prop_assert_eq!(x.to_string(), a.to_string());
        }

        #[test]
        fn big_division_holds_its_identity(n in "[1-9][0-9]{0,80}", d in "[1-9][0-9]{0,40}") {
            let (n, d) = (big(&n), big(&d));
            let (q, r) = n.div_rem(&d);
            prop_assert!(r < d);
            prop_assert_eq!(q.mul(&d).add(&r), n);
        }
    }

    #[test]
    fn big_counts_digits_and_takes_roots() {
        assert_eq!(Big::zero().digits(), 0);
        assert_eq!(Big::pow10(30).digits(), 31);
        assert_eq!(big("999999999").digits(), 9);
        let two = big("2").mul_pow10(40);
        assert_eq!(two.isqrt().to_string(), "141421356237309504880");
        assert_eq!(
            big("12345678901234567890123").sub(&big("1")).to_string(),
            "12345678901234567890122"
        );
    }
}
