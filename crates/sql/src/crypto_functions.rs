//! Hashes, encodings and random bytes: PostgreSQL 15's built-in
//! `encode(bytea, format)`, `decode(text, format)` (formats `hex`,
//! `base64`, `escape`) and `sha224` / `sha256` / `sha384` / `sha512`;
//! pgcrypto's `digest`, `hmac` and `gen_random_bytes`; uuid-ossp's
//! `uuid_generate_v3` / `v4` / `v5`, `uuid_nil` and the `uuid_ns_*`
//! namespaces. An extension's functions are callable once it is created
//! ([`CryptoFunc::extension`], `extensions.rs`). The hashes are the
//! RustCrypto crates' (`md-5`, `sha1`, `sha2`, `hmac`); base64 the
//! `base64` crate's, in PostgreSQL's form (76-character lines).

use crate::error::SqlError;
use base64::Engine;
use folio_row::{SqlType, Value};

/// One of these functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CryptoFunc {
    Encode,
    Decode,
    /// `sha224(bytea)` ... `sha512(bytea)`.
    Sha(Algorithm),
    /// pgcrypto's `digest(data, type)`.
    Digest,
    /// pgcrypto's `hmac(data, key, type)`.
    Hmac,
    /// pgcrypto's `gen_random_bytes(count)`.
    RandomBytes,
    /// uuid-ossp's `uuid_generate_v3(namespace, name)` (md5) and
    /// `uuid_generate_v5` (sha1).
    UuidNamed(Algorithm),
    UuidV4,
    /// `uuid_nil()` and the `uuid_ns_*()` namespaces: fixed values.
    UuidConst(&'static [u8; 16]),
}

/// A hash algorithm, by pgcrypto's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

const NAMES: [(&str, CryptoFunc); 17] = [
    ("encode", CryptoFunc::Encode),
    ("decode", CryptoFunc::Decode),
    ("sha224", CryptoFunc::Sha(Algorithm::Sha224)),
    ("sha256", CryptoFunc::Sha(Algorithm::Sha256)),
    ("sha384", CryptoFunc::Sha(Algorithm::Sha384)),
    ("sha512", CryptoFunc::Sha(Algorithm::Sha512)),
    ("digest", CryptoFunc::Digest),
    ("hmac", CryptoFunc::Hmac),
    ("gen_random_bytes", CryptoFunc::RandomBytes),
    ("uuid_generate_v3", CryptoFunc::UuidNamed(Algorithm::Md5)),
    ("uuid_generate_v4", CryptoFunc::UuidV4),
    ("uuid_generate_v5", CryptoFunc::UuidNamed(Algorithm::Sha1)),
    ("uuid_nil", CryptoFunc::UuidConst(&[0; 16])),
    // RFC 4122's namespaces.
    (
        "uuid_ns_dns",
        CryptoFunc::UuidConst(&0x6ba7b810_9dad_11d1_80b4_00c04fd430c8u128.to_be_bytes()),
    ),
    (
        "uuid_ns_url",
        CryptoFunc::UuidConst(&0x6ba7b811_9dad_11d1_80b4_00c04fd430c8u128.to_be_bytes()),
    ),
    (
        "uuid_ns_oid",
        CryptoFunc::UuidConst(&0x6ba7b812_9dad_11d1_80b4_00c04fd430c8u128.to_be_bytes()),
    ),
    (
        "uuid_ns_x500",
        CryptoFunc::UuidConst(&0x6ba7b814_9dad_11d1_80b4_00c04fd430c8u128.to_be_bytes()),
    ),
];

/// Which argument types a parameter takes.
#[derive(Clone, Copy)]
enum Param {
    Bytea,
    Text,
    TextOrBytea,
    Int,
    Uuid,
}

impl Param {
    fn fits(self, ty: &SqlType) -> bool {
        let text = matches!(ty, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_));
        match self {
            Param::Bytea => *ty == SqlType::Bytea,
            Param::Text => text,
            Param::TextOrBytea => text || *ty == SqlType::Bytea,
            Param::Int => matches!(ty, SqlType::Int2 | SqlType::Int4),
            Param::Uuid => *ty == SqlType::Uuid,
        }
    }
}

impl CryptoFunc {
    pub fn of(name: &str) -> Option<CryptoFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// The extension that brings it (none: built into PostgreSQL).
    pub fn extension(self) -> Option<&'static str> {
        match self {
            CryptoFunc::Encode | CryptoFunc::Decode | CryptoFunc::Sha(_) => None,
            CryptoFunc::Digest | CryptoFunc::Hmac | CryptoFunc::RandomBytes => Some("pgcrypto"),
            CryptoFunc::UuidNamed(_) | CryptoFunc::UuidV4 | CryptoFunc::UuidConst(_) => {
                Some("uuid-ossp")
            }
        }
    }

    fn params(self) -> &'static [Param] {
        match self {
            CryptoFunc::Encode => &[Param::Bytea, Param::Text],
            CryptoFunc::Decode => &[Param::Text, Param::Text],
            CryptoFunc::Sha(_) => &[Param::Bytea],
            CryptoFunc::Digest => &[Param::TextOrBytea, Param::Text],
            CryptoFunc::Hmac => &[Param::TextOrBytea, Param::TextOrBytea, Param::Text],
            CryptoFunc::RandomBytes => &[Param::Int],
            CryptoFunc::UuidNamed(_) => &[Param::Uuid, Param::Text],
            CryptoFunc::UuidV4 | CryptoFunc::UuidConst(_) => &[],
        }
    }

    pub fn takes(self, count: usize) -> bool {
        count == self.params().len()
    }

    /// Whether arguments of these types (`None`: a quoted literal, NULL or
    /// a parameter) fit; PostgreSQL's 42883 otherwise.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        (self.params().iter().zip(types)).all(|(p, t)| t.as_ref().is_none_or(|t| p.fits(t)))
    }

    /// Whether the value depends only on the arguments.
    pub fn immutable(self) -> bool {
        !matches!(self, CryptoFunc::RandomBytes | CryptoFunc::UuidV4)
    }

    pub fn ty(self) -> SqlType {
        match self {
            CryptoFunc::Encode => SqlType::Text,
            CryptoFunc::UuidNamed(_) | CryptoFunc::UuidV4 | CryptoFunc::UuidConst(_) => {
                SqlType::Uuid
            }
            _ => SqlType::Bytea,
        }
    }

    /// The value of a call (strict: NULL arguments give NULL, the caller's).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        Ok(match self {
            CryptoFunc::Encode => Value::Text(encode(&bytea(&args[0])?, &text(&args[1]))?),
            CryptoFunc::Decode => Value::Bytea(decode(&text(&args[0]), &text(&args[1]))?),
            CryptoFunc::Sha(a) => Value::Bytea(hash(a, &bytea(&args[0])?)),
            CryptoFunc::Digest => Value::Bytea(hash(algorithm(&text(&args[1]))?, &data(&args[0]))),
            CryptoFunc::Hmac => {
                let a = algorithm(&text(&args[2]))?;
                Value::Bytea(hmac(a, &data(&args[0]), &data(&args[1])))
            }
            CryptoFunc::RandomBytes => {
                // (A quoted literal is read as the integer it names.)
                let count = crate::functions::int_arg(&args[0])?;
                if !(1..=1024).contains(&count) {
                    return Err(SqlError::new("39000", "Length not in range"));
                }
                let mut bytes = vec![0u8; count as usize];
                rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut bytes);
                Value::Bytea(bytes)
            }
            CryptoFunc::UuidNamed(a) => {
                // A quoted literal is read as the uuid it names.
                let Value::Uuid(namespace) = crate::types::coerce(args[0].clone(), SqlType::Uuid)?
                else {
                    return Err(SqlError::new("42804", "uuid_generate_v3/v5 of a non-uuid"));
                };
                let mut input = namespace.to_vec();
                input.extend_from_slice(text(&args[1]).as_bytes());
                let mut id = [0u8; 16];
                id.copy_from_slice(&hash(a, &input)[..16]);
                let version = if a == Algorithm::Md5 { 0x30 } else { 0x50 };
                id[6] = (id[6] & 0x0f) | version;
                id[8] = (id[8] & 0x3f) | 0x80;
                Value::Uuid(id)
            }
            CryptoFunc::UuidV4 => crate::functions::Func::GenRandomUuid.eval(Vec::new(), None)?,
            CryptoFunc::UuidConst(id) => Value::Uuid(*id),
        })
    }
}

fn text(v: &Value) -> String {
    crate::types::text_output(v).unwrap_or_default()
}

/// A bytea argument: a quoted literal is read by bytea's input syntax.
fn bytea(v: &Value) -> Result<Vec<u8>, SqlError> {
    match crate::types::coerce(v.clone(), SqlType::Bytea)? {
        Value::Bytea(b) => Ok(b),
        other => Err(SqlError::new("42804", format!("{other:?} is not a bytea"))),
    }
}

/// A `text or bytea` argument's bytes: a text's (a quoted literal is one,
/// as PostgreSQL resolves it) or a bytea's.
fn data(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytea(b) => b.clone(),
        other => text(other).into_bytes(),
    }
}

/// pgcrypto's algorithm names (any case); 22023 for another.
fn algorithm(name: &str) -> Result<Algorithm, SqlError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "md5" => Algorithm::Md5,
        "sha1" => Algorithm::Sha1,
        "sha224" => Algorithm::Sha224,
        "sha256" => Algorithm::Sha256,
        "sha384" => Algorithm::Sha384,
        "sha512" => Algorithm::Sha512,
        _ => {
            return Err(SqlError::new(
                "22023",
                format!("Cannot use \"{name}\": No such hash algorithm"),
            ));
        }
    })
}

fn hash(a: Algorithm, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match a {
        Algorithm::Md5 => md5::Md5::digest(data).to_vec(),
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
    }
}

fn hmac(a: Algorithm, data: &[u8], key: &[u8]) -> Vec<u8> {
    use hmac::{Hmac, KeyInit, Mac};
    fn run<M: Mac + KeyInit>(data: &[u8], key: &[u8]) -> Vec<u8> {
        let mut mac = <M as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }
    match a {
        Algorithm::Md5 => run::<Hmac<md5::Md5>>(data, key),
        Algorithm::Sha1 => run::<Hmac<sha1::Sha1>>(data, key),
        Algorithm::Sha224 => run::<Hmac<sha2::Sha224>>(data, key),
        Algorithm::Sha256 => run::<Hmac<sha2::Sha256>>(data, key),
        Algorithm::Sha384 => run::<Hmac<sha2::Sha384>>(data, key),
        Algorithm::Sha512 => run::<Hmac<sha2::Sha512>>(data, key),
    }
}

/// 22023 `unrecognized encoding` for a format PostgreSQL does not have.
fn unrecognized(format: &str) -> SqlError {
    SqlError::new("22023", format!("unrecognized encoding: \"{format}\""))
}

/// `encode(bytes, format)`.
fn encode(bytes: &[u8], format: &str) -> Result<String, SqlError> {
    Ok(match format.to_ascii_lowercase().as_str() {
        "hex" => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        "base64" => {
            // PostgreSQL breaks the text into lines of 76 characters.
            let flat = base64::engine::general_purpose::STANDARD.encode(bytes);
            let lines: Vec<&str> = (flat.as_bytes().chunks(76))
                .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
                .collect();
            lines.join("\n")
        }
        "escape" => {
            let mut out = String::with_capacity(bytes.len());
            for &b in bytes {
                match b {
                    b'\\' => out.push_str("\\\\"),
                    0 | 0x80.. => out.push_str(&format!("\\{b:03o}")),
                    _ => out.push(char::from(b)),
                }
            }
            out
        }
        _ => return Err(unrecognized(format)),
    })
}

/// `decode(text, format)`, with PostgreSQL's messages.
fn decode(text: &str, format: &str) -> Result<Vec<u8>, SqlError> {
    match format.to_ascii_lowercase().as_str() {
        "hex" => decode_hex(text),
        "base64" => decode_base64(text),
        // bytea's escape input (not its hex form).
        "escape" if text.starts_with("\\x") => Err(SqlError::new(
            "22P02",
            "invalid input syntax for type bytea",
        )),
        "escape" => bytea(&Value::Text(text.to_string())),
        _ => Err(unrecognized(format)),
    }
}

/// Pairs of hex digits, whitespace allowed between pairs.
fn decode_hex(text: &str) -> Result<Vec<u8>, SqlError> {
    let digit = |c: char| {
        c.to_digit(16)
            .ok_or_else(|| SqlError::new("22023", format!("invalid hexadecimal digit: \"{c}\"")))
    };
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut chars = text.chars();
    while let Some(high) = chars.next() {
        if matches!(high, ' ' | '\n' | '\t' | '\r') {
            continue;
        }
        let high = digit(high)?;
        let Some(low) = chars.next() else {
            return Err(SqlError::new(
                "22023",
                "invalid hexadecimal data: odd number of digits",
            ));
        };
        out.push((high * 16 + digit(low)?) as u8);
    }
    Ok(out)
}

/// Base64 in groups of four characters (whitespace anywhere ignored), each
/// group ending in at most two `=`.
fn decode_base64(text: &str) -> Result<Vec<u8>, SqlError> {
    let chars: Vec<u8> = (text.bytes())
        .filter(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
        .collect();
    if let Some(&bad) = (chars.iter()).find(|b| !(b.is_ascii_alphanumeric() || b"+/=".contains(b)))
    {
        let symbol = text[text.bytes().position(|b| b == bad).unwrap_or(0)..]
            .chars()
            .next()
            .unwrap_or('?');
        return Err(SqlError::new(
            "22023",
            format!("invalid symbol \"{symbol}\" found while decoding base64 sequence"),
        ));
    }
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    for group in chars.chunks(4) {
        let pads = group.iter().filter(|&&b| b == b'=').count();
        let first_pad = group.iter().position(|&b| b == b'=').unwrap_or(group.len());
        if first_pad < 2 || (pads > 0 && first_pad + pads != 4) {
            return Err(SqlError::new(
                "22023",
                "unexpected \"=\" while decoding base64 sequence",
            ));
        }
        if group.len() < 4 {
            return Err(
                SqlError::new("22023", "invalid base64 end sequence").with_hint(
                    "Input data is missing padding, is truncated, or is otherwise corrupted.",
                ),
            );
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(group)
            .map_err(|e| SqlError::new("22023", format!("invalid base64 sequence: {e}")))?;
        out.extend_from_slice(&decoded);
    }
    Ok(out)
}
