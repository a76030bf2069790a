//! The trigonometric and hyperbolic functions of double precision, in
//! radians (`sin` ... `atan2`, `cot`) and in degrees (`sind` ...
//! `atan2d`, `cotd`), `degrees`, `radians`, and `float4send` /
//! `float8send`, as PostgreSQL 15 has them.
//!
//! The rules PostgreSQL keeps and this file follows: NaN in gives NaN out;
//! an infinite argument of `sin`, `cos`, `tan`, `cot` and their degree
//! forms, or an argument of `asin`, `acos`, `acosh`, `atanh` outside the
//! function's domain, is 22003 `input is out of range`; an infinite
//! result of a finite argument is 22003 `value out of range: overflow`
//! (`sinh` and `cosh` excepted: they give the infinity).
//!
//! The degree forms are exact at the angles whose values are exact
//! (`sind(30)` is 0.5, `tand(45)` 1, `cosd(90)` 0, `acosd(0.5)` 60): the
//! argument is folded into the first quadrant, and the result scaled so
//! those angles' values come out exactly, as PostgreSQL does (its
//! `sind_q1`, `cosd_q1`, `asind_q1`, `acosd_q1`).

use crate::error::SqlError;
use crate::functions::{float_arg, no_function};
use folio_row::{SqlType, Value};

/// One of these functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFunc {
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sind,
    Cosd,
    Tand,
    Cotd,
    Asind,
    Acosd,
    Atand,
    Atan2d,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Degrees,
    Radians,
    /// `float4send(real)`: the value's 4 bytes, big-endian.
    Float4Send,
    /// `float8send(double precision)`: its 8 bytes, big-endian.
    Float8Send,
}

const NAMES: [(&str, FloatFunc); 26] = [
    ("sin", FloatFunc::Sin),
    ("cos", FloatFunc::Cos),
    ("tan", FloatFunc::Tan),
    ("cot", FloatFunc::Cot),
    ("asin", FloatFunc::Asin),
    ("acos", FloatFunc::Acos),
    ("atan", FloatFunc::Atan),
    ("atan2", FloatFunc::Atan2),
    ("sind", FloatFunc::Sind),
    ("cosd", FloatFunc::Cosd),
    ("tand", FloatFunc::Tand),
    ("cotd", FloatFunc::Cotd),
    ("asind", FloatFunc::Asind),
    ("acosd", FloatFunc::Acosd),
    ("atand", FloatFunc::Atand),
    ("atan2d", FloatFunc::Atan2d),
    ("sinh", FloatFunc::Sinh),
    ("cosh", FloatFunc::Cosh),
    ("tanh", FloatFunc::Tanh),
    ("asinh", FloatFunc::Asinh),
    ("acosh", FloatFunc::Acosh),
    ("atanh", FloatFunc::Atanh),
    ("degrees", FloatFunc::Degrees),
    ("radians", FloatFunc::Radians),
    ("float4send", FloatFunc::Float4Send),
    ("float8send", FloatFunc::Float8Send),
];

/// Radians in a degree, to the digits PostgreSQL uses.
const RADIANS_PER_DEGREE: f64 = 0.017_453_292_519_943_295;

impl FloatFunc {
    pub fn of(name: &str) -> Option<FloatFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether it takes `count` arguments.
    pub fn takes(self, count: usize) -> bool {
        match self {
            FloatFunc::Atan2 | FloatFunc::Atan2d => count == 2,
            _ => count == 1,
        }
    }

    pub fn ty(self) -> SqlType {
        match self {
            FloatFunc::Float4Send | FloatFunc::Float8Send => SqlType::Bytea,
            _ => SqlType::Float8,
        }
    }

    /// The call's value; `args` are not NULL (the functions are strict).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let name = self.name().unwrap_or("float function");
        match self {
            FloatFunc::Float4Send => {
                let Value::Float4(x) = crate::types::cast(args[0].clone(), SqlType::Float4)? else {
                    return Err(no_function(name, &args[0]));
                };
                return Ok(Value::Bytea(x.to_bits().to_be_bytes().to_vec()));
            }
            FloatFunc::Float8Send => {
                let x = float_arg(&args[0], name)?;
                return Ok(Value::Bytea(x.to_bits().to_be_bytes().to_vec()));
            }
            _ => {}
        }
        let x = float_arg(&args[0], name)?;
        let result = match self {
            FloatFunc::Atan2 | FloatFunc::Atan2d => {
                let y = float_arg(&args[1], name)?;
                if x.is_nan() || y.is_nan() {
                    return Ok(Value::Float8(f64::NAN));
                }
                match self {
                    FloatFunc::Atan2 => x.atan2(y),
                    _ => x.atan2(y) / 1.0f64.atan() * 45.0,
                }
            }
            _ if x.is_nan() => return Ok(Value::Float8(f64::NAN)),
            FloatFunc::Degrees => return degrees(x).map(Value::Float8),
            FloatFunc::Radians => return radians(x).map(Value::Float8),
            FloatFunc::Sinh => x.sinh(),
            FloatFunc::Cosh => x.cosh(),
            FloatFunc::Tanh => x.tanh(),
            FloatFunc::Asinh => x.asinh(),
            FloatFunc::Acosh if x < 1.0 => return Err(input_out_of_range()),
            FloatFunc::Acosh => x.acosh(),
            FloatFunc::Atanh if !(-1.0..=1.0).contains(&x) => return Err(input_out_of_range()),
            FloatFunc::Atanh if x == 1.0 => f64::INFINITY,
            FloatFunc::Atanh if x == -1.0 => f64::NEG_INFINITY,
            FloatFunc::Atanh => x.atanh(),
            FloatFunc::Atan => x.atan(),
            FloatFunc::Atand => x.atan() / 1.0f64.atan() * 45.0,
            FloatFunc::Asin | FloatFunc::Acos | FloatFunc::Asind | FloatFunc::Acosd
                if !(-1.0..=1.0).contains(&x) =>
            {
                return Err(input_out_of_range());
            }
            FloatFunc::Asin => x.asin(),
            FloatFunc::Acos => x.acos(),
            FloatFunc::Asind if x >= 0.0 => asind_q1(x),
            FloatFunc::Asind => -asind_q1(-x),
            FloatFunc::Acosd if x >= 0.0 => acosd_q1(x),
            FloatFunc::Acosd => 90.0 + asind_q1(-x),
            // The periodic ones: an infinity has no angle.
            _ if x.is_infinite() => return Err(input_out_of_range()),
            FloatFunc::Sin => x.sin(),
            FloatFunc::Cos => x.cos(),
            FloatFunc::Tan => x.tan(),
            // cot(0) is infinite, and no overflow.
            FloatFunc::Cot => return Ok(Value::Float8(1.0 / x.tan())),
            FloatFunc::Sind => sind(x),
            FloatFunc::Cosd => cosd(x),
            FloatFunc::Tand => tand_or_cotd(x, false),
            FloatFunc::Cotd => return Ok(Value::Float8(tand_or_cotd(x, true))),
            FloatFunc::Float4Send | FloatFunc::Float8Send => unreachable!("answered above"),
        };
        // An infinite result of a finite argument overflowed; the
        // hyperbolic functions and `tand(90)` give their infinities.
        let infinite_allowed = matches!(
            self,
            FloatFunc::Sinh
                | FloatFunc::Cosh
                | FloatFunc::Asinh
                | FloatFunc::Acosh
                | FloatFunc::Atanh
                | FloatFunc::Tan
                | FloatFunc::Tand
        );
        if result.is_infinite() && !infinite_allowed {
            return Err(overflow());
        }
        Ok(Value::Float8(result))
    }
}

fn input_out_of_range() -> SqlError {
    SqlError::new("22003", "input is out of range")
}

fn overflow() -> SqlError {
    SqlError::new("22003", "value out of range: overflow")
}

fn underflow() -> SqlError {
    SqlError::new("22003", "value out of range: underflow")
}

/// `power(x, y)` (and `x ^ y`) of double precision, as PostgreSQL's:
/// NaN to the 0th is 1 and 1 to the NaNth is 1, other NaNs give NaN;
/// zero to a negative power and a negative number to a finite
/// non-integer power are 2201F; an infinite exponent or base gives its
/// limit (`(-1) ^ Infinity` is 1, `(-0.5) ^ Infinity` 0); an infinite
/// or zero result of finite operands is 22003 overflow or underflow.
pub fn power(x: f64, y: f64) -> Result<f64, SqlError> {
    if x.is_nan() || y.is_nan() {
        let one = (x.is_nan() && y == 0.0) || (y.is_nan() && x == 1.0);
        return Ok(if one { 1.0 } else { f64::NAN });
    }
    if x == 0.0 && y < 0.0 {
        return Err(SqlError::new(
            "2201F",
            "zero raised to a negative power is undefined",
        ));
    }
    if x < 0.0 && y.floor() != y {
        return Err(SqlError::new(
            "2201F",
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    if x.is_infinite() || y.is_infinite() {
        // IEEE 754's pow gives the limits PostgreSQL spells out.
        return Ok(x.powf(y));
    }
    let r = x.powf(y);
    if r.is_infinite() {
        return Err(overflow());
    }
    if r == 0.0 && x != 0.0 {
        return Err(underflow());
    }
    Ok(r)
}

/// `degrees(x)`: x divided by the radians in a degree, with float8
/// division's range checks.
fn degrees(x: f64) -> Result<f64, SqlError> {
    let r = x / RADIANS_PER_DEGREE;
    if r.is_infinite() && !x.is_infinite() {
        return Err(overflow());
    }
    if r == 0.0 && x != 0.0 {
        return Err(underflow());
    }
    Ok(r)
}

/// `radians(x)`: x times the radians in a degree, with float8
/// multiplication's range checks.
fn radians(x: f64) -> Result<f64, SqlError> {
    let r = x * RADIANS_PER_DEGREE;
    if r.is_infinite() && !x.is_infinite() {
        return Err(overflow());
    }
    if r == 0.0 && x != 0.0 {
        return Err(underflow());
    }
    Ok(r)
}

/// sin(x°) for x in [0, 30], scaled so sin(30°) is exactly 1/2.
fn sind_0_to_30(x: f64) -> f64 {
    let sin_30 = (30.0 * RADIANS_PER_DEGREE).sin();
    std::hint::black_box((x * RADIANS_PER_DEGREE).sin()) / sin_30 / 2.0
}

/// cos(x°) for x in [0, 60], scaled so cos(60°) is exactly 1/2.
fn cosd_0_to_60(x: f64) -> f64 {
    let one_minus_cos_60 = 1.0 - (60.0 * RADIANS_PER_DEGREE).cos();
    let one_minus_cos_x = std::hint::black_box(1.0 - (x * RADIANS_PER_DEGREE).cos());
    1.0 - one_minus_cos_x / one_minus_cos_60 / 2.0
}

/// sin(x°) for x in the first quadrant.
fn sind_q1(x: f64) -> f64 {
    if x <= 30.0 {
        sind_0_to_30(x)
    } else {
        cosd_0_to_60(90.0 - x)
    }
}

/// cos(x°) for x in the first quadrant.
fn cosd_q1(x: f64) -> f64 {
    if x <= 60.0 {
        cosd_0_to_60(x)
    } else {
        sind_0_to_30(90.0 - x)
    }
}

/// An angle in degrees folded into [0, 180] with the sign its sine
/// keeps: (angle, sign).
fn half_turn(x: f64) -> (f64, f64) {
    let mut a = x % 360.0;
    let mut sign = 1.0;
    if a < 0.0 {
        a = -a;
        sign = -sign;
    }
    if a > 180.0 {
        a = 360.0 - a;
        sign = -sign;
    }
    (a, sign)
}

fn sind(x: f64) -> f64 {
    let (mut a, sign) = half_turn(x);
    if a > 90.0 {
        a = 180.0 - a;
    }
    sign * sind_q1(a)
}

fn cosd(x: f64) -> f64 {
    let a = (x % 360.0).abs();
    let a = if a > 180.0 { 360.0 - a } else { a };
    let (a, sign) = if a > 90.0 {
        (180.0 - a, -1.0)
    } else {
        (a, 1.0)
    };
    sign * cosd_q1(a)
}

/// tan(x°), or cot(x°) when `cot`, exact at multiples of 45°; a zero
/// result is +0.
fn tand_or_cotd(x: f64, cot: bool) -> f64 {
    let (mut a, mut sign) = half_turn(x);
    if a > 90.0 {
        a = 180.0 - a;
        sign = -sign;
    }
    let ratio = |a: f64| match cot {
        false => sind_q1(a) / cosd_q1(a),
        true => cosd_q1(a) / sind_q1(a),
    };
    let r = sign * (std::hint::black_box(ratio(a)) / ratio(45.0));
    if r == 0.0 { 0.0 } else { r }
}

/// asin(x) in degrees for x in [0, 1], exact at 1/2 (30°) and 1 (90°).
fn asind_q1(x: f64) -> f64 {
    if x <= 0.5 {
        std::hint::black_box(x.asin()) / 0.5f64.asin() * 30.0
    } else {
        90.0 - std::hint::black_box(x.acos()) / 0.5f64.acos() * 60.0
    }
}

/// acos(x) in degrees for x in [0, 1], exact at 1/2 (60°) and 0 (90°).
fn acosd_q1(x: f64) -> f64 {
    if x <= 0.5 {
        90.0 - std::hint::black_box(x.asin()) / 0.5f64.asin() * 30.0
    } else {
        std::hint::black_box(x.acos()) / 0.5f64.acos() * 60.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: &str, args: &[f64]) -> Result<f64, SqlError> {
        let args: Vec<Value> = args.iter().map(|x| Value::Float8(*x)).collect();
        match FloatFunc::of(f).unwrap().eval(&args)? {
            Value::Float8(x) => Ok(x),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn degree_forms_are_exact_where_the_value_is() {
        for (x, s) in [
            (0.0, 0.0),
            (30.0, 0.5),
            (90.0, 1.0),
            (150.0, 0.5),
            (180.0, 0.0),
        ] {
            assert_eq!(call("sind", &[x]).unwrap(), s, "sind({x})");
        }
        assert_eq!(call("sind", &[210.0]).unwrap(), -0.5);
        assert_eq!(call("sind", &[270.0]).unwrap(), -1.0);
        for (x, c) in [
            (0.0, 1.0),
            (60.0, 0.5),
            (90.0, 0.0),
            (120.0, -0.5),
            (180.0, -1.0),
        ] {
            assert_eq!(call("cosd", &[x]).unwrap(), c, "cosd({x})");
        }
        assert_eq!(call("tand", &[45.0]).unwrap(), 1.0);
        assert_eq!(call("tand", &[135.0]).unwrap(), -1.0);
        assert_eq!(call("tand", &[90.0]).unwrap(), f64::INFINITY);
        assert_eq!(call("cotd", &[0.0]).unwrap(), f64::INFINITY);
        assert_eq!(call("cotd", &[45.0]).unwrap(), 1.0);
        assert_eq!(call("asind", &[0.5]).unwrap(), 30.0);
        assert_eq!(call("asind", &[-1.0]).unwrap(), -90.0);
        assert_eq!(call("acosd", &[0.5]).unwrap(), 60.0);
        assert_eq!(call("acosd", &[-0.5]).unwrap(), 120.0);
        assert_eq!(call("atand", &[1.0]).unwrap(), 45.0);
        assert_eq!(call("atan2d", &[1.0, 0.0]).unwrap(), 90.0);
    }

    #[test]
    fn domains_and_special_values() {
        assert_eq!(call("sin", &[f64::INFINITY]).unwrap_err().code, "22003");
        assert_eq!(call("asin", &[2.0]).unwrap_err().code, "22003");
        assert_eq!(
            call("acosh", &[f64::NEG_INFINITY]).unwrap_err().code,
            "22003"
        );
        assert_eq!(call("atanh", &[f64::INFINITY]).unwrap_err().code, "22003");
        assert_eq!(call("atanh", &[1.0]).unwrap(), f64::INFINITY);
        assert!(call("acosh", &[f64::NAN]).unwrap().is_nan());
        assert!(call("cos", &[f64::NAN]).unwrap().is_nan());
        assert_eq!(
            call("sinh", &[f64::NEG_INFINITY]).unwrap(),
            f64::NEG_INFINITY
        );
        assert_eq!(call("cosh", &[1000.0]).unwrap(), f64::INFINITY);
        assert_eq!(call("tanh", &[f64::INFINITY]).unwrap(), 1.0);
        assert_eq!(call("degrees", &[std::f64::consts::PI]).unwrap(), 180.0);
        assert_eq!(call("radians", &[5e-324]).unwrap_err().code, "22003");
    }

    #[test]
    fn power_of_special_values() {
        assert!(power(-1.0, f64::NAN).unwrap().is_nan());
        assert_eq!(power(f64::NAN, 0.0).unwrap(), 1.0);
        assert_eq!(power(1.0, f64::NAN).unwrap(), 1.0);
        assert_eq!(power(-1.0, f64::INFINITY).unwrap(), 1.0);
        assert_eq!(power(-0.1, f64::INFINITY).unwrap(), 0.0);
        assert_eq!(power(-1.1, f64::NEG_INFINITY).unwrap(), 0.0);
        assert_eq!(power(-0.1, f64::NEG_INFINITY).unwrap(), f64::INFINITY);
        assert_eq!(power(f64::NEG_INFINITY, 3.0).unwrap(), f64::NEG_INFINITY);
        assert_eq!(power(f64::NEG_INFINITY, -3.0).unwrap(), 0.0);
        assert_eq!(power(-2.0, 0.5).unwrap_err().code, "2201F");
        assert_eq!(power(0.0, -1.0).unwrap_err().code, "2201F");
        assert_eq!(
            power(1004.3, 1e200).unwrap_err().message,
            "value out of range: overflow"
        );
        assert_eq!(
            power(1e-200, 1e200).unwrap_err().message,
            "value out of range: underflow"
        );
        assert_eq!(power(0.0, 1e200).unwrap(), 0.0);
    }
}
