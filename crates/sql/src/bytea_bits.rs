//! Bytes and bits of a bytea by position: PostgreSQL 15's `get_byte`,
//! `set_byte`, `get_bit`, `set_bit` and `bit_count(bytea)`. Byte `n` is
//! the `n`th from 0; bit `n` is bit `n % 8` (from the least significant)
//! of byte `n / 8`. A position past the value is 2202E `index n out of
//! valid range, 0..last`. (folio has no bit string types, whose forms of
//! these PostgreSQL also has.)

use crate::error::SqlError;
use crate::functions::int_arg;
use folio_row::{SqlType, Value};

/// One of these functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitFunc {
    GetByte,
    SetByte,
    GetBit,
    SetBit,
    BitCount,
}

const NAMES: [(&str, BitFunc); 5] = [
    ("get_byte", BitFunc::GetByte),
    ("set_byte", BitFunc::SetByte),
    ("get_bit", BitFunc::GetBit),
    ("set_bit", BitFunc::SetBit),
    ("bit_count", BitFunc::BitCount),
];

impl BitFunc {
    pub fn of(name: &str) -> Option<BitFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count
            == match self {
                BitFunc::BitCount => 1,
                BitFunc::GetByte | BitFunc::GetBit => 2,
                BitFunc::SetByte | BitFunc::SetBit => 3,
            }
    }

    /// Whether arguments of these types (`None`: a quoted literal, NULL
    /// or a parameter) fit: a bytea, then integers; PostgreSQL's 42883
    /// otherwise.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        types.iter().enumerate().all(|(at, ty)| match ty {
            None => true,
            Some(ty) if at == 0 => *ty == SqlType::Bytea,
            Some(ty) => matches!(ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8),
        })
    }

    pub fn ty(self) -> SqlType {
        match self {
            BitFunc::GetByte | BitFunc::GetBit => SqlType::Int4,
            BitFunc::SetByte | BitFunc::SetBit => SqlType::Bytea,
            BitFunc::BitCount => SqlType::Int8,
        }
    }

    /// The value of a call (strict: NULL arguments give NULL, the
    /// caller's).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let mut bytes = match crate::types::coerce(args[0].clone(), SqlType::Bytea)? {
            Value::Bytea(bytes) => bytes,
            _ => return Ok(Value::Null),
        };
        if self == BitFunc::BitCount {
            let ones: u32 = bytes.iter().map(|b| b.count_ones()).sum();
            return Ok(Value::Int8(ones.into()));
        }
        let n = int_arg(&args[1])?;
        let bits = matches!(self, BitFunc::GetBit | BitFunc::SetBit);
        let len = bytes.len() as i64 * if bits { 8 } else { 1 };
        if !(0..len).contains(&n) {
            return Err(SqlError::new(
                "2202E",
                format!("index {n} out of valid range, 0..{}", (len - 1).max(0)),
            ));
        }
        let (byte, bit) = match bits {
            true => ((n / 8) as usize, (n % 8) as u32),
            false => (n as usize, 0),
        };
        Ok(match self {
            BitFunc::GetByte => Value::Int4(bytes[byte].into()),
            BitFunc::GetBit => Value::Int4(((bytes[byte] >> bit) & 1).into()),
            BitFunc::SetByte => {
                // PostgreSQL keeps the new value's low 8 bits.
                bytes[byte] = int_arg(&args[2])? as u8;
                Value::Bytea(bytes)
            }
            BitFunc::SetBit => {
                match int_arg(&args[2])? {
                    0 => bytes[byte] &= !(1 << bit),
                    1 => bytes[byte] |= 1 << bit,
                    _ => return Err(SqlError::new("22023", "new bit must be 0 or 1")),
                }
                Value::Bytea(bytes)
            }
            BitFunc::BitCount => unreachable!("answered above"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves positions count from 0, bits from the least significant
    // bit of each byte, and a position past the value is 2202E.
    #[test]
    fn bytes_and_bits_by_position() {
        let v = Value::Bytea(vec![0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xcd, 0xef, 0x00]);
        let call = |f: BitFunc, rest: &[Value]| {
            let mut args = vec![v.clone()];
            args.extend_from_slice(rest);
            f.eval(&args)
        };
        let i = Value::Int4;
        assert_eq!(call(BitFunc::GetBit, &[i(43)]).unwrap(), i(1));
        assert_eq!(call(BitFunc::GetByte, &[i(3)]).unwrap(), i(0x78));
        let Value::Bytea(set) = call(BitFunc::SetBit, &[i(43), i(0)]).unwrap() else {
            panic!("a bytea")
        };
        assert_eq!(set[5], 0xa3);
        let Value::Bytea(set) = call(BitFunc::SetByte, &[i(7), i(11)]).unwrap() else {
            panic!("a bytea")
        };
        assert_eq!(set[7], 11);
        let e = call(BitFunc::GetBit, &[i(99)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("2202E", "index 99 out of valid range, 0..71")
        );
        let e = call(BitFunc::SetByte, &[i(99), i(11)]).unwrap_err();
        assert_eq!(e.message, "index 99 out of valid range, 0..8");
        assert_eq!(call(BitFunc::BitCount, &[]).unwrap(), Value::Int8(32));
    }
}
