//! `Big`, an unsigned integer of any size, and `Wide`, a signed decimal
//! of any size over it: a long numeric's value (`Numeric::Long`) and the
//! intermediate values of numeric's division, square root, exp, ln and
//! power. `1e30 / 1e29` at 20 digits after the point needs a 51-digit
//! dividend, and ln needs 8 or more guard digits past the result's: these
//! are computed exactly in `Big` and rounded once.
//!
//! Base 10^9 digits ("limbs"), least significant first, no high zero
//! limbs (zero is no limbs): shifts by powers of ten and the conversions
//! to decimal stay cheap. Up to 16 limbs live in place (no heap
//! allocation for the functions' working values at their usual scales).
//! Multiplication is the schoolbook's with deferred carries (`Big::mul`),
//! division Knuth's algorithm D (TAOCP 4.3.1), the integer square root
//! Newton's from the root of the top digits.

use crate::numeric::Rounding;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::cmp::Ordering;

pub(crate) const BASE: u64 = 1_000_000_000;
pub(crate) const BASE_DIGITS: u32 = 9;
/// Rows of a product added into its columns between two carries: a
/// carried column (below 10^9) plus 16 products below 10^18 stays below
/// `u64::MAX` (1.8 * 10^19), and so does a carry into it.
const ROWS_PER_CARRY: usize = 16;

/// Limbs kept in place, without a heap allocation: 144 digits, enough
/// for the working values (and their products) of the functions at
/// their default scales.
const INLINE_LIMBS: usize = 16;

type Limbs = SmallVec<[u32; INLINE_LIMBS]>;

/// Brings `columns[from..to]` back to limbs below 10^9, each passing its
/// excess up, and the excess of the last on into the columns above it
/// (which are below 10^9: the product fits its columns).
fn carry_range(columns: &mut [u64], from: usize, to: usize) {
    let mut carry = 0u64;
    let mut at = from;
    while at < to || carry > 0 {
        let v = columns[at] + carry;
        columns[at] = v % BASE;
        carry = v / BASE;
        at += 1;
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Big {
    limbs: Limbs,
}

/// The digits a division by a power of ten cut off, as rounding reads
/// them (`Big::cut_pow10`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The most significant cut digit.
    pub(crate) first: u8,
    /// Whether any cut digit is not zero.
    pub(crate) rest: bool,
}

impl Big {
    pub(crate) fn zero() -> Big {
        Big::default()
    }

    pub(crate) fn from_u128(mut v: u128) -> Big {
        let mut limbs = Limbs::new();
        while v > 0 {
            limbs.push((v % u128::from(BASE)) as u32);
            v /= u128::from(BASE);
        }
        Big { limbs }
    }

    /// The integer whose decimal digits (values 0..=9, most significant
    /// first) are `digits`.
    pub(crate) fn from_decimal_digits(digits: &[u8]) -> Big {
        let mut limbs = Limbs::with_capacity(digits.len() / BASE_DIGITS as usize + 1);
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
        valid.then(|| Big {
            limbs: Limbs::from_vec(limbs),
        })
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

    fn trim(mut self) -> Big {
        self.trim_in_place();
        self
    }

    fn trim_in_place(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
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
        let mut out = Limbs::with_capacity(long.limbs.len() + 1);
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
        let mut out = Limbs::with_capacity(self.limbs.len());
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

    /// The product, schoolbook: each row adds `a_i * b` into 64-bit
    /// columns without carrying (a plain multiply-add the compiler
    /// vectorises); the columns are carried after every `ROWS_PER_CARRY`
    /// rows, before they could pass `u64::MAX`.
    pub(crate) fn mul(&self, other: &Big) -> Big {
        self.mul_above(other, 0)
    }

    /// The product without the partial products `a_i * b_j` of limbs
    /// `i + j < low` (all of them for `low` 0): short of the exact
    /// product by less than `min(len a, len b) * 10^(9 (low + 1))`.
    fn mul_above(&self, other: &Big, low: usize) -> Big {
        if self.is_zero() || other.is_zero() {
            return Big::zero();
        }
        // The longer operand runs along the rows' inner loop.
        let (short, long) = if self.limbs.len() <= other.limbs.len() {
            (&self.limbs, &other.limbs)
        } else {
            (&other.limbs, &self.limbs)
        };
        if let [m] = short[..] {
            let mut product = Big {
                limbs: long.clone(),
            };
            product.scale_by(m);
            return product;
        }
        let mut columns: SmallVec<[u64; 2 * INLINE_LIMBS]> =
            smallvec::smallvec![0u64; short.len() + long.len()];
        for (block, rows) in short.chunks(ROWS_PER_CARRY).enumerate() {
            let first = block * ROWS_PER_CARRY;
            for (i, &a) in rows.iter().enumerate() {
                let at = first + i;
                let skip = low.saturating_sub(at).min(long.len());
                let a = u64::from(a);
                let row = &mut columns[at + skip..at + long.len()];
                for (c, &b) in row.iter_mut().zip(&long[skip..]) {
                    *c += a * u64::from(b);
                }
            }
            // The block's rows touched columns from the first not left out
            // to the last row's end.
            carry_range(
                &mut columns,
                first.max(low),
                first + rows.len() + long.len(),
            );
        }
        Big {
            limbs: columns.iter().map(|&l| l as u32).collect(),
        }
        .trim()
    }

    /// The product rounded (half away from zero) at 10^`cut`, up to one
    /// unit off: the partial products more than two limbs below the cut
    /// are left out (`mul_above`), which moves the product by less than
    /// 10^-4 of a unit (operands under 100,000 limbs, 10 times the
    /// format's), so only a product that close to a half can round
    /// the other way. The series of exp and ln, which carry guard digits,
    /// multiply this way at about half the cost.
    pub(crate) fn mul_near(&self, other: &Big, cut: u32) -> Big {
        let low = (cut / BASE_DIGITS).saturating_sub(2) as usize;
        let (kept, rest) = self.mul_above(other, low).cut_pow10(cut);
        if rest.first >= 5 {
            kept.add(&Big::from_u128(1))
        } else {
            kept
        }
    }

    /// `self * m` for `m < 10^9`.
    pub(crate) fn mul_small(&self, m: u32) -> Big {
        let mut out = self.clone();
        out.scale_by(m);
        out
    }

    /// Multiplies in place by `m < 10^9`.
    fn scale_by(&mut self, m: u32) {
        assert!(u64::from(m) < BASE);
        if m == 1 {
            return;
        }
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let cur = u64::from(*limb) * u64::from(m) + carry;
            *limb = (cur % BASE) as u32;
            carry = cur / BASE;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
        self.trim_in_place();
    }

    /// Quotient and remainder by `d` (`0 < d < 10^9`).
    pub(crate) fn div_rem_small(&self, d: u32) -> (Big, u32) {
        assert!(d > 0 && u64::from(d) < BASE);
        let mut out: Limbs = smallvec::smallvec![0u32; self.limbs.len()];
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
        if self.is_zero() || n == 0 {
            return self.clone();
        }
        let zeros = (n / BASE_DIGITS) as usize;
        let mut limbs = Limbs::with_capacity(zeros + self.limbs.len() + 1);
        limbs.resize(zeros, 0);
        limbs.extend_from_slice(&self.limbs);
        let mut out = Big { limbs };
        out.scale_by(10u32.pow(n % BASE_DIGITS));
        out
    }

    /// The quotient by 10^n, with what the cut digits say about rounding
    /// it: their first digit (the one worth 10^(n-1)) and whether any
    /// of them is not zero.
    pub(crate) fn cut_pow10(&self, n: u32) -> (Big, Cut) {
        if n == 0 {
            return (self.clone(), Cut::default());
        }
        let whole = (n / BASE_DIGITS) as usize;
        let part = n % BASE_DIGITS;
        // The cut digit lies in limb (n - 1) / 9 at place (n - 1) % 9.
        let at = ((n - 1) / BASE_DIGITS) as usize;
        let place = 10u32.pow((n - 1) % BASE_DIGITS);
        let limb = |i: usize| self.limbs.get(i).copied().unwrap_or(0);
        let first = (limb(at) / place % 10) as u8;
        let below = limb(at) % place != 0 || self.limbs.iter().take(at).any(|&l| l != 0);
        let cut = Cut {
            first,
            rest: first != 0 || below,
        };
        if whole >= self.limbs.len() {
            return (Big::zero(), cut);
        }
        let high = Big {
            limbs: Limbs::from_slice(&self.limbs[whole..]),
        };
        if part == 0 {
            return (high, cut);
        }
        (high.div_rem_small(10u32.pow(part)).0, cut)
    }

    /// Quotient and remainder by 10^n.
    pub(crate) fn div_rem_pow10(&self, n: u32) -> (Big, Big) {
        let whole = (n / BASE_DIGITS) as usize;
        if whole >= self.limbs.len() {
            return (Big::zero(), self.clone());
        }
        let low = Big {
            limbs: Limbs::from_slice(&self.limbs[..whole]),
        }
        .trim();
        let high = Big {
            limbs: Limbs::from_slice(&self.limbs[whole..]),
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
        let mut q: Limbs = smallvec::smallvec![0u32; m + 1];
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
        if let Some(v) = self.to_u128() {
            return Big::from_u128(v.isqrt());
        }
        // Newton's iteration from above: x' = (x + n/x) / 2 falls to the
        // root and then stops falling. It starts from the root of the top
        // 32 or 33 digits, t = floor(n / 10^2k), rounded up: n < (t + 1)
        // 10^2k <= (isqrt(t) + 1)^2 10^2k, so the start is above the root
        // and about 16 digits right; each step doubles the digits.
        let k = (self.digits() - 32) / 2;
        let top = self.cut_pow10(2 * k).0.to_u128().expect("33 digits fit");
        let mut x = Big::from_u128(top.isqrt() + 1).mul_pow10(k);
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
    pub(crate) fn mag_at(&self, scale: u32) -> Cow<'_, Big> {
        if scale == self.scale {
            Cow::Borrowed(&self.mag)
        } else {
            Cow::Owned(self.mag.mul_pow10(scale - self.scale))
        }
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

    /// The product at `scale`, up to a unit of its last place off
    /// (`Big::mul_near`): for working values that carry guard digits.
    pub(crate) fn mul_near(&self, other: &Wide, scale: u32) -> Wide {
        let exact = self.scale + other.scale;
        if exact <= scale {
            return self.mul(other).at(scale);
        }
        let mag = self.mag.mul_near(&other.mag, exact - scale);
        Wide::new(self.neg != other.neg, mag, scale)
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
            return Wide::new(self.neg, self.mag_at(target).into_owned(), target);
        }
        let (kept, rest) = self.mag.cut_pow10(cut as u32);
        let up = rest.rest
            && match how {
                Rounding::HalfAwayFromZero => rest.first >= 5,
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
        // The operand not shifted is borrowed.
        let (n, d): (Cow<Big>, Cow<Big>) = if shift >= 0 {
            (
                Cow::Owned(self.mag.mul_pow10(shift as u32)),
                Cow::Borrowed(&other.mag),
            )
        } else {
            (
                Cow::Borrowed(&self.mag),
                Cow::Owned(other.mag.mul_pow10((-shift) as u32)),
            )
        };
        let neg = self.neg != other.neg;
        // Whether a quotient with a remainder (`half`: at least half the
        // divisor) rounds away from zero.
        let away = |half: bool| match how {
            Rounding::HalfAwayFromZero => half,
            Rounding::TowardZero => false,
            Rounding::Floor => neg,
            Rounding::Ceiling => !neg,
        };
        let (q, up) = match d.limbs() {
            // A one-limb divisor: its remainder is a machine integer.
            &[small] => {
                let (q, r) = n.div_rem_small(small);
                (q, r != 0 && away(2 * u64::from(r) >= u64::from(small)))
            }
            _ => {
                let (q, r) = n.div_rem(&d);
                let up = !r.is_zero() && away(r.mul_small(2) >= *d);
                (q, up)
            }
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

        // Products of many limbs (past one carry block of 16 rows and past
        // the inline limbs) against a sum of one-limb products, shifted.
        #[test]
        fn big_products_agree_with_rows(a in "[1-9][0-9]{0,400}", b in "[1-9][0-9]{0,400}") {
            let (a, b) = (big(&a), big(&b));
            let rows = a.limbs().iter().enumerate().fold(Big::zero(), |sum, (i, &limb)| {
                sum.add(&b.mul_small(limb).mul_pow10(i as u32 * BASE_DIGITS))
            });
            prop_assert_eq!(a.mul(&b), rows.clone());
            prop_assert_eq!(b.mul(&a), rows);
        }

        // The digits a cut by 10^k drops, against the remainder's.
        #[test]
        fn big_cuts_agree_with_remainders(n in "[1-9][0-9]{0,60}", k in 0u32..70) {
            let n = big(&n);
            let (q, r) = n.div_rem_pow10(k);
            let (kept, cut) = n.cut_pow10(k);
            prop_assert_eq!(kept, q);
            prop_assert_eq!(cut.rest, !r.is_zero());
            let first = if k == 0 { 0 } else { r.div_rem_pow10(k - 1).0.to_u128().unwrap_or(0) };
            prop_assert_eq!(u128::from(cut.first), first);
        }

        // Roots of numbers past u128 (the start from the top digits).
        #[test]
        fn big_roots_are_floors(n in "[1-9][0-9]{38,200}") {
            let n = big(&n);
            let root = n.isqrt();
            let next = root.add(&Big::from_u128(1));
            prop_assert!(root.mul(&root) <= n && next.mul(&next) > n);
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
        assert_eq!(Big::from_u128(1).mul_pow10(30).digits(), 31);
        assert_eq!(big("999999999").digits(), 9);
        let two = big("2").mul_pow10(40);
        assert_eq!(two.isqrt().to_string(), "141421356237309504880");
        assert_eq!(
            big("12345678901234567890123").sub(&big("1")).to_string(),
            "12345678901234567890122"
        );
    }
}
