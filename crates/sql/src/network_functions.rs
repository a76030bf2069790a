//! The network address types as SQL sees them: the operators and
//! functions of `inet` and `cidr` (PostgreSQL 15's `network.c`) and of
//! `macaddr` and `macaddr8` (`mac.c`, `mac8.c`), and the casts among
//! them. Their values, text forms and order are folio-row's (`inet.rs`,
//! `macaddr.rs`); this file says which operand types each operator and
//! function takes ([`bind_operator`], [`bind_prefix`], [`bind_call`]),
//! the type it gives ([`NetFunc::ty`]) and its value ([`NetFunc::eval`]).
//!
//! | call | result |
//! |---|---|
//! | `a << b`, `a <<= b`, `a >> b`, `a >>= b`, `a && b` (inet, cidr) | bool: contained by, contains, overlaps |
//! | `~ a`, `a & b`, `a \| b` (inet) | inet: bitwise on the address, the longer mask |
//! | `a + n`, `n + a`, `a - n` (inet, an integer) | inet: the address moved |
//! | `a - b` (inet) | int8: the addresses' difference |
//! | `~ m`, `m & n`, `m \| n` (macaddr, macaddr8) | the same type |
//! | `abbrev`, `host`, `text` | text |
//! | `broadcast`, `hostmask`, `netmask`, `set_masklen(inet, int)` | inet |
//! | `network`, `inet_merge`, `set_masklen(cidr, int)` | cidr |
//! | `family`, `masklen` | int4 |
//! | `inet_same_family` | bool |
//! | `trunc(macaddr)`, `trunc(macaddr8)`, `macaddr8_set7bit` | the same type |
//! | `inet_client_addr()`, `inet_server_addr()` | inet |
//! | `inet_client_port()`, `inet_server_port()` | int4 |
//!
//! A `cidr` operand is an `inet` (PostgreSQL's binary-coercible cast);
//! a quoted literal beside one is read as the other side's type, alone
//! as an `inet`. Addresses of different families are never contained
//! or overlapping; `&`, `|`, `-` and `inet_merge` of them are 22023.
//! `inet_client_addr()` and its kin read the session's connection
//! (folio-txn's `Activity`, which the server fills): NULL for a
//! Unix-domain socket's session or one without a client, as in
//! PostgreSQL.

use crate::error::SqlError;
use crate::functions::{Func, no_operator};
use crate::scalar::{Columns, Scalar, fit_unknown};
use crate::set_types;
use folio_row::inet::Inet;
use folio_row::{SqlType, Value};
use sqlparser::ast::{BinaryOperator, UnaryOperator};

/// An operator or function of the network types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetFunc {
    /// `<<`: strictly contained by.
    Within,
    /// `<<=`: contained by or equal.
    WithinOrEq,
    /// `>>`: strictly contains.
    Contains,
    /// `>>=`: contains or equals.
    ContainsOrEq,
    /// `&&`: either contains the other.
    Overlaps,
    /// `~`: every bit flipped (either family of type, or a MAC).
    Not,
    /// `&` (either family of type, or a MAC).
    And,
    /// `|` (either family of type, or a MAC).
    Or,
    /// `inet + int8` (bound with the inet first).
    Plus,
    /// `inet - int8`.
    Minus,
    /// `inet - inet`.
    Difference,
    Abbrev,
    Broadcast,
    Family,
    Host,
    Hostmask,
    Masklen,
    Netmask,
    Network,
    SetMasklen,
    SameFamily,
    Merge,
    /// `trunc(macaddr)`, `trunc(macaddr8)`: the manufacturer's part.
    Trunc,
    Set7bit,
    ClientAddr,
    ClientPort,
    ServerAddr,
    ServerPort,
}

const NAMES: [(&str, NetFunc); 17] = [
    ("abbrev", NetFunc::Abbrev),
    ("broadcast", NetFunc::Broadcast),
    ("family", NetFunc::Family),
    ("host", NetFunc::Host),
    ("hostmask", NetFunc::Hostmask),
    ("masklen", NetFunc::Masklen),
    ("netmask", NetFunc::Netmask),
    ("network", NetFunc::Network),
    ("set_masklen", NetFunc::SetMasklen),
    ("inet_same_family", NetFunc::SameFamily),
    ("inet_merge", NetFunc::Merge),
    ("trunc", NetFunc::Trunc),
    ("macaddr8_set7bit", NetFunc::Set7bit),
    ("inet_client_addr", NetFunc::ClientAddr),
    ("inet_client_port", NetFunc::ClientPort),
    ("inet_server_addr", NetFunc::ServerAddr),
    ("inet_server_port", NetFunc::ServerPort),
];

/// Whether `name` is one of the functions here (`functions::exists`).
pub fn is_name(name: &str) -> bool {
    crate::names::lookup(&NAMES, name).is_some()
}

fn is_net(t: SqlType) -> bool {
    matches!(t, SqlType::Inet | SqlType::Cidr)
}

fn is_mac(t: SqlType) -> bool {
    matches!(t, SqlType::MacAddr | SqlType::MacAddr8)
}

fn integer(t: SqlType) -> bool {
    matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
}

/// The type of an operand, `None` for a quoted literal, NULL or `$n`.
fn typed(s: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    }
}

fn type_name(t: Option<SqlType>) -> String {
    t.map_or_else(|| "unknown".into(), set_types::name)
}

/// The symbol of a binary operator these types have, `None` for others.
fn symbol(op: &BinaryOperator) -> Option<&str> {
    Some(match op {
        BinaryOperator::PGBitwiseShiftLeft => "<<",
        BinaryOperator::PGBitwiseShiftRight => ">>",
        BinaryOperator::PGOverlap => "&&",
        BinaryOperator::BitwiseAnd => "&",
        BinaryOperator::BitwiseOr => "|",
        BinaryOperator::Plus => "+",
        BinaryOperator::Minus => "-",
        BinaryOperator::Custom(s) => s.as_str(),
        BinaryOperator::PGCustomBinaryOperator(parts) => match parts.as_slice() {
            [s] => s.as_str(),
            [schema, s] if schema.eq_ignore_ascii_case("pg_catalog") => s.as_str(),
            _ => return None,
        },
        _ => return None,
    })
}

/// `a op b` where a side is of a network type and `op` one of its
/// operators here (comparisons are the generic ones): the bound call;
/// `None` for every other case.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let (ta, tb) = (typed(a, columns), typed(b, columns));
    let net = |t: Option<SqlType>| t.is_some_and(is_net);
    let mac = |t: Option<SqlType>| t.is_some_and(is_mac);
    if !(net(ta) || net(tb) || mac(ta) || mac(tb)) {
        return None;
    }
    let symbol = symbol(op)?;
    let func = match symbol {
        "<<" => NetFunc::Within,
        "<<=" => NetFunc::WithinOrEq,
        ">>" => NetFunc::Contains,
        ">>=" => NetFunc::ContainsOrEq,
        "&&" => NetFunc::Overlaps,
        "&" => NetFunc::And,
        "|" => NetFunc::Or,
        "+" => NetFunc::Plus,
        "-" => NetFunc::Minus,
        _ => return None,
    };
    let no_op = || {
        no_operator(format!(
            "operator does not exist: {} {symbol} {}",
            type_name(ta),
            type_name(tb)
        ))
    };
    let (a, b) = (a.clone(), b.clone());
    let call = |f: NetFunc, args: Vec<Scalar>| Ok(Scalar::Func(Func::Net(f), args));
    Some((|| match (func, ta, tb) {
        // The integer operands of `+` and `-`.
        (NetFunc::Plus | NetFunc::Minus, Some(x), Some(n)) if is_net(x) && integer(n) => {
            call(func, vec![a, b])
        }
        (NetFunc::Plus, Some(n), Some(x)) if is_net(x) && integer(n) => {
            call(NetFunc::Plus, vec![b, a])
        }
        (NetFunc::Plus, _, _) => Err(no_op()),
        // MAC addresses: `&` and `|` of one type.
        (NetFunc::And | NetFunc::Or, x, y) if mac(x) || mac(y) => {
            let ty = x.or(y).expect("one side is typed");
            match (x, y) {
                (Some(x), Some(y)) if x != y => Err(no_op()),
                _ => call(func, vec![fit_unknown(a, ty)?, fit_unknown(b, ty)?]),
            }
        }
        _ if mac(ta) || mac(tb) => Err(no_op()),
        // Two addresses (a literal is an inet).
        (_, x, y) if x.is_none_or(is_net) && y.is_none_or(is_net) => {
            let func = if func == NetFunc::Minus {
                NetFunc::Difference
            } else {
                func
            };
            call(func, vec![as_inet(a, columns)?, as_inet(b, columns)?])
        }
        _ => Err(no_op()),
    })())
}

/// An address operand as an `inet`, the operators' parameter type: a
/// literal read as one, a cidr constant relabeled, a cidr expression
/// cast (PostgreSQL's binary-coercible cast, which EXPLAIN shows so).
fn as_inet(s: Scalar, columns: &(impl Columns + ?Sized)) -> Result<Scalar, SqlError> {
    Ok(match s {
        Scalar::Const(Value::Cidr(a)) => Scalar::Const(Value::Inet(a)),
        s if typed(&s, columns) == Some(SqlType::Cidr) => Scalar::Cast(Box::new(s), SqlType::Inet),
        s => fit_unknown(s, SqlType::Inet)?,
    })
}

/// The operands of a comparison of an inet with a cidr, the cidr cast
/// to inet as PostgreSQL's operators take it (`(i = (c)::inet)`); any
/// other pair as it is.
pub fn relabeled(
    a: Scalar,
    b: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<(Scalar, Scalar), SqlError> {
    Ok(match (typed(&a, columns), typed(&b, columns)) {
        (Some(SqlType::Inet), Some(SqlType::Cidr)) => (a, as_inet(b, columns)?),
        (Some(SqlType::Cidr), Some(SqlType::Inet)) => (as_inet(a, columns)?, b),
        _ => (a, b),
    })
}

/// `~ a` for an operand of a network type; `None` for others.
pub fn bind_prefix(
    op: &UnaryOperator,
    a: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Scalar> {
    let ty = typed(a, columns)?;
    (matches!(op, UnaryOperator::PGBitwiseNot) && (is_net(ty) || is_mac(ty)))
        .then(|| Scalar::Func(Func::Net(NetFunc::Not), vec![a.clone()]))
}

/// A call of one of the functions here, its arguments fitted (a literal
/// address is an inet); `Err(args)` for a call of another function
/// (`trunc` of a number).
pub fn bind_call(
    name: &str,
    args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    let Some(func) = crate::names::lookup(&NAMES, name) else {
        return Ok(Err(args));
    };
    let types: Vec<Option<SqlType>> = args.iter().map(|a| typed(a, columns)).collect();
    if func == NetFunc::Trunc && !matches!(types.as_slice(), [Some(t)] if is_mac(*t)) {
        return Ok(Err(args));
    }
    let no_function = || {
        crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(&args, columns)
        ))
    };
    let params: &[fn(SqlType) -> bool] = match func {
        NetFunc::SetMasklen => &[is_net, integer],
        NetFunc::SameFamily | NetFunc::Merge => &[is_net, is_net],
        NetFunc::Trunc => &[is_mac],
        NetFunc::Set7bit => &[|t| t == SqlType::MacAddr8],
        f if f.of_connection() => &[],
        _ => &[is_net],
    };
    if args.len() != params.len() || !types.iter().zip(params).all(|(t, fits)| t.is_none_or(fits)) {
        return Err(no_function());
    }
    let fitted = args
        .into_iter()
        .zip(params)
        .map(|(arg, fits)| {
            let to = if fits(SqlType::Inet) {
                SqlType::Inet
            } else if fits(SqlType::MacAddr8) {
                SqlType::MacAddr8
            } else {
                SqlType::Int4
            };
            fit_unknown(arg, to)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ok(Scalar::Func(Func::Net(func), fitted)))
}

/// The value of a network type as `text(inet)` gives it (the cast to a
/// string type): the mask always shown.
fn shown(v: &Value) -> Option<String> {
    match v {
        Value::Inet(a) | Value::Cidr(a) => Some(a.text(true)),
        Value::MacAddr(_) | Value::MacAddr8(_) => crate::types::text_output(v),
        _ => None,
    }
}

/// `CAST(v AS ty)` of a value of a network type (PostgreSQL's `pg_cast`:
/// inet and cidr to each other and to the string types, macaddr and
/// macaddr8 to each other; a cidr from an inet is its network).
pub fn cast(v: Value, ty: SqlType) -> Result<Value, SqlError> {
    let no_cast = |v: &Value| {
        SqlError::new(
            "42846",
            format!(
                "cannot cast type {} to {}",
                crate::scalar::value_type(v).name(),
                ty.name()
            ),
        )
    };
    Ok(match (v, ty) {
        (v, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)) => {
            Value::Text(shown(&v).unwrap_or_default())
        }
        (Value::Inet(a) | Value::Cidr(a), SqlType::Inet) => Value::Inet(a),
        (Value::Inet(a) | Value::Cidr(a), SqlType::Cidr) => Value::Cidr(a.network()),
        (Value::MacAddr(m), SqlType::MacAddr) => Value::MacAddr(m),
        (Value::MacAddr8(m), SqlType::MacAddr8) => Value::MacAddr8(m),
        (Value::MacAddr(m), SqlType::MacAddr8) => {
            Value::MacAddr8(folio_row::macaddr::macaddr_to_8(m))
        }
        (Value::MacAddr8(m), SqlType::MacAddr) => Value::MacAddr(to_macaddr(m)?),
        (v, _) => return Err(no_cast(&v)),
    })
}

/// A value's binary form, PostgreSQL's `inet_send` (family, mask
/// length, whether a cidr, address length, address) and `macaddr_send`
/// / `macaddr8_send` (the bytes).
pub fn send(v: &Value) -> Vec<u8> {
    match v {
        Value::Inet(a) | Value::Cidr(a) => {
            let stored = a.to_stored();
            let is_cidr = matches!(v, Value::Cidr(_)) as u8;
            [
                &[stored[0], stored[1], is_cidr, a.bytes().len() as u8][..],
                a.bytes(),
            ]
            .concat()
        }
        Value::MacAddr(m) => m.to_vec(),
        Value::MacAddr8(m) => m.to_vec(),
        other => unreachable!("{} is no network type", other.type_name()),
    }
}

/// A value of type `ty` from its binary form: `None` when the bytes are
/// not one (22P03), an error for a cidr with host bits.
pub fn receive(bytes: &[u8], ty: SqlType) -> Option<Result<Value, SqlError>> {
    Some(Ok(match ty {
        SqlType::MacAddr => Value::MacAddr(bytes.try_into().ok()?),
        SqlType::MacAddr8 => Value::MacAddr8(match bytes.len() {
            6 => folio_row::macaddr::macaddr_to_8(bytes.try_into().ok()?),
            _ => bytes.try_into().ok()?,
        }),
        _ => {
            let [family, bits, _is_cidr, len, addr @ ..] = bytes else {
                return None;
            };
            if usize::from(*len) != addr.len() {
                return None;
            }
            let a = Inet::from_stored(&[&[*family, *bits][..], addr].concat()).ok()?;
            if ty == SqlType::Cidr && a.has_host_bits() {
                return Some(Err(SqlError::new(
                    "22P03",
                    "invalid external \"cidr\" value",
                )
                .with_detail("Value has bits set to right of mask.")));
            }
            match ty {
                SqlType::Cidr => Value::Cidr(a),
                _ => Value::Inet(a),
            }
        }
    }))
}

fn to_macaddr(m: [u8; 8]) -> Result<[u8; 6], SqlError> {
    folio_row::macaddr::macaddr8_to_6(m).ok_or_else(|| {
        SqlError::new("22003", "macaddr8 data out of range to convert to macaddr").with_hint(
            "Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr.",
        )
    })
}

fn invalid(message: &str) -> SqlError {
    SqlError::new("22023", message)
}

fn out_of_range() -> SqlError {
    SqlError::new("22003", "result is out of range")
}

/// An address argument (a cidr is an inet; text is read as one).
fn address(v: &Value) -> Result<Inet, SqlError> {
    match v {
        Value::Inet(a) | Value::Cidr(a) => Ok(*a),
        Value::Text(t) => Ok(folio_row::inet::parse_inet(t, false)?),
        other => Err(no_operator(format!(
            "operator does not exist: {}",
            other.type_name()
        ))),
    }
}

/// `a` moved by `n` (PostgreSQL's `inetpl`): 22003 past the family.
fn moved(a: &Inet, n: i64) -> Result<Inet, SqlError> {
    let number = a.number();
    let sum = match n >= 0 {
        true => number.checked_add(n as u128),
        false => number.checked_sub(n.unsigned_abs().into()),
    };
    sum.and_then(|s| a.with_number(s, a.bits()))
        .ok_or_else(out_of_range)
}

/// The bitwise `f` (`~`, `&`, `|`) of two MAC addresses' bytes.
fn mac_bits<const N: usize>(f: NetFunc, a: [u8; N], b: [u8; N]) -> [u8; N] {
    std::array::from_fn(|i| match f {
        NetFunc::Not => !a[i],
        NetFunc::And => a[i] & b[i],
        _ => a[i] | b[i],
    })
}

impl NetFunc {
    /// Its name, as EXPLAIN prints a call.
    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether it reads the session's connection (never folded).
    pub fn of_connection(self) -> bool {
        matches!(
            self,
            NetFunc::ClientAddr | NetFunc::ClientPort | NetFunc::ServerAddr | NetFunc::ServerPort
        )
    }

    /// Its value in the session of `backend` (a function
    /// [`NetFunc::of_connection`]).
    pub fn connection(self, backend: &crate::backend::SessionBackend) -> Value {
        let activity = backend.backend().activity();
        let end = match self {
            NetFunc::ClientAddr | NetFunc::ClientPort => activity.client,
            _ => activity.server,
        };
        let Some((host, port)) = end else {
            return Value::Null;
        };
        match self {
            NetFunc::ClientPort | NetFunc::ServerPort => Value::Int4(port.into()),
            _ => folio_row::inet::parse_inet(&host, false).map_or(Value::Null, Value::Inet),
        }
    }

    /// Its operator's symbol, for the operators (EXPLAIN prints them so).
    pub fn symbol(self) -> Option<&'static str> {
        Some(match self {
            NetFunc::Within => "<<",
            NetFunc::WithinOrEq => "<<=",
            NetFunc::Contains => ">>",
            NetFunc::ContainsOrEq => ">>=",
            NetFunc::Overlaps => "&&",
            NetFunc::Not => "~",
            NetFunc::And => "&",
            NetFunc::Or => "|",
            NetFunc::Plus => "+",
            NetFunc::Minus | NetFunc::Difference => "-",
            _ => return None,
        })
    }

    /// Its result type for arguments of `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            NetFunc::Within
            | NetFunc::WithinOrEq
            | NetFunc::Contains
            | NetFunc::ContainsOrEq
            | NetFunc::Overlaps
            | NetFunc::SameFamily => SqlType::Bool,
            NetFunc::Not | NetFunc::And | NetFunc::Or | NetFunc::Trunc => {
                match args.iter().find(|t| is_mac(**t)) {
                    Some(t) => *t,
                    None => SqlType::Inet,
                }
            }
            NetFunc::Set7bit => SqlType::MacAddr8,
            NetFunc::Difference => SqlType::Int8,
            NetFunc::Abbrev | NetFunc::Host => SqlType::Text,
            NetFunc::Family | NetFunc::Masklen | NetFunc::ClientPort | NetFunc::ServerPort => {
                SqlType::Int4
            }
            NetFunc::ClientAddr | NetFunc::ServerAddr => SqlType::Inet,
            NetFunc::Network | NetFunc::Merge => SqlType::Cidr,
            NetFunc::SetMasklen if args.first() == Some(&SqlType::Cidr) => SqlType::Cidr,
            NetFunc::Plus
            | NetFunc::Minus
            | NetFunc::Broadcast
            | NetFunc::Hostmask
            | NetFunc::Netmask
            | NetFunc::SetMasklen => SqlType::Inet,
        }
    }

    /// Its value; NULL if an argument is.
    /// The connection functions give NULL here: a session evaluates them
    /// by [`NetFunc::connection`].
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        if self.of_connection() || args.iter().any(|v| matches!(v, Value::Null)) {
            return Ok(Value::Null);
        }
        match (self, args) {
            (NetFunc::Not | NetFunc::And | NetFunc::Or, [Value::MacAddr(a), rest @ ..]) => {
                let b = match rest {
                    [Value::MacAddr(b)] => *b,
                    _ => *a,
                };
                return Ok(Value::MacAddr(mac_bits(self, *a, b)));
            }
            (NetFunc::Not | NetFunc::And | NetFunc::Or, [Value::MacAddr8(a), rest @ ..]) => {
                let b = match rest {
                    [Value::MacAddr8(b)] => *b,
                    _ => *a,
                };
                return Ok(Value::MacAddr8(mac_bits(self, *a, b)));
            }
            (NetFunc::Trunc, [Value::MacAddr(m)]) => {
                return Ok(Value::MacAddr([m[0], m[1], m[2], 0, 0, 0]));
            }
            (NetFunc::Trunc, [Value::MacAddr8(m)]) => {
                return Ok(Value::MacAddr8([m[0], m[1], m[2], 0, 0, 0, 0, 0]));
            }
            (NetFunc::Set7bit, [Value::MacAddr8(m)]) => {
                let mut m = *m;
                m[0] |= 0x02;
                return Ok(Value::MacAddr8(m));
            }
            (NetFunc::Plus | NetFunc::Minus, [a, n]) => {
                let n = crate::functions::int_arg(n)?;
                let n = match self {
                    NetFunc::Minus => n.checked_neg().ok_or_else(out_of_range)?,
                    _ => n,
                };
                return Ok(Value::Inet(moved(&address(a)?, n)?));
            }
            (NetFunc::SetMasklen, [a, bits]) => {
                let inet = address(a)?;
                let bits = crate::functions::int_arg(bits)?;
                let bits = match bits {
                    -1 => inet.max_bits(),
                    b if (0..=i64::from(inet.max_bits())).contains(&b) => b as u8,
                    b => return Err(invalid(&format!("invalid mask length: {b}"))),
                };
                return Ok(match a {
                    Value::Cidr(_) => Value::Cidr(inet.with_bits(bits).network()),
                    _ => Value::Inet(inet.with_bits(bits)),
                });
            }
            _ => {}
        }
        let a = address(&args[0])?;
        let other = || address(&args[1]);
        let same_family = |b: &Inet| a.is_v6() == b.is_v6();
        let full = a.max_bits();
        Ok(match self {
            NetFunc::Within => {
                let b = other()?;
                Value::Bool(same_family(&b) && a.bits() > b.bits() && a.same_prefix(&b, b.bits()))
            }
            NetFunc::WithinOrEq => {
                let b = other()?;
                Value::Bool(same_family(&b) && a.bits() >= b.bits() && a.same_prefix(&b, b.bits()))
            }
            NetFunc::Contains => {
                let b = other()?;
                Value::Bool(same_family(&b) && a.bits() < b.bits() && a.same_prefix(&b, a.bits()))
            }
            NetFunc::ContainsOrEq => {
                let b = other()?;
                Value::Bool(same_family(&b) && a.bits() <= b.bits() && a.same_prefix(&b, a.bits()))
            }
            NetFunc::Overlaps => {
                let b = other()?;
                Value::Bool(same_family(&b) && a.same_prefix(&b, a.bits().min(b.bits())))
            }
            NetFunc::Not => Value::Inet(
                a.with_number(!a.number() & a.mask_number(full), a.bits())
                    .expect("fits its family"),
            ),
            NetFunc::And | NetFunc::Or => {
                let b = other()?;
                if !same_family(&b) {
                    return Err(invalid(if self == NetFunc::And {
                        "cannot AND inet values of different sizes"
                    } else {
                        "cannot OR inet values of different sizes"
                    }));
                }
                let n = match self {
                    NetFunc::And => a.number() & b.number(),
                    _ => a.number() | b.number(),
                };
                Value::Inet(
                    a.with_number(n, a.bits().max(b.bits()))
                        .expect("fits its family"),
                )
            }
            NetFunc::Difference => {
                let b = other()?;
                if !same_family(&b) {
                    return Err(invalid("cannot subtract inet values of different sizes"));
                }
                let (x, y) = (a.number(), b.number());
                let difference = if x >= y {
                    i64::try_from(x - y).ok()
                } else {
                    match y - x {
                        d if d == 1u128 << 63 => Some(i64::MIN),
                        d => i64::try_from(d).ok().map(|d| -d),
                    }
                };
                Value::Int8(difference.ok_or_else(out_of_range)?)
            }
            NetFunc::Abbrev => Value::Text(match &args[0] {
                Value::Cidr(_) => a.abbrev_cidr(),
                _ => a.text(false),
            }),
            NetFunc::Host => Value::Text(a.host()),
            NetFunc::Family => Value::Int4(a.family()),
            NetFunc::Masklen => Value::Int4(a.bits().into()),
            NetFunc::Broadcast => Value::Inet(
                a.with_number(
                    a.number() | !a.mask_number(a.bits()) & a.mask_number(full),
                    a.bits(),
                )
                .expect("fits its family"),
            ),
            NetFunc::Network => Value::Cidr(a.network()),
            NetFunc::Netmask => Value::Inet(
                a.with_number(a.mask_number(a.bits()), full)
                    .expect("fits its family"),
            ),
            NetFunc::Hostmask => Value::Inet(
                a.with_number(!a.mask_number(a.bits()) & a.mask_number(full), full)
                    .expect("fits its family"),
            ),
            NetFunc::SameFamily => Value::Bool(same_family(&other()?)),
            NetFunc::Merge => {
                let b = other()?;
                if !same_family(&b) {
                    return Err(invalid("cannot merge addresses from different families"));
                }
                let common = (0..=a.bits().min(b.bits()))
                    .rev()
                    .find(|&bits| a.same_prefix(&b, bits))
                    .unwrap_or(0);
                Value::Cidr(a.with_bits(common).network())
            }
            NetFunc::ClientAddr
            | NetFunc::ClientPort
            | NetFunc::ServerAddr
            | NetFunc::ServerPort => Value::Null,
            NetFunc::Plus
            | NetFunc::Minus
            | NetFunc::SetMasklen
            | NetFunc::Trunc
            | NetFunc::Set7bit => {
                return Err(SqlError::new(
                    "42883",
                    format!(
                        "no {} of these arguments",
                        self.name().unwrap_or("operator")
                    ),
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inet(t: &str) -> Value {
        Value::Inet(folio_row::inet::parse_inet(t, false).unwrap())
    }

    fn cidr(t: &str) -> Value {
        Value::Cidr(folio_row::inet::parse_inet(t, true).unwrap())
    }

    fn text(v: Value) -> String {
        crate::types::text_output(&v).unwrap()
    }

    /// Results from PostgreSQL 15's inet.sql.
    #[test]
    fn functions_follow_postgresql() {
        let f = |f: NetFunc, args: &[Value]| text(f.eval(args).unwrap());
        let i = inet("192.168.1.226/24");
        assert_eq!(
            f(NetFunc::Broadcast, std::slice::from_ref(&i)),
            "192.168.1.255/24"
        );
        assert_eq!(
            f(NetFunc::Network, std::slice::from_ref(&i)),
            "192.168.1.0/24"
        );
        assert_eq!(
            f(NetFunc::Netmask, std::slice::from_ref(&i)),
            "255.255.255.0"
        );
        assert_eq!(f(NetFunc::Hostmask, std::slice::from_ref(&i)), "0.0.0.255");
        assert_eq!(f(NetFunc::Not, std::slice::from_ref(&i)), "63.87.254.29/24");
        assert_eq!(f(NetFunc::Abbrev, &[cidr("10.0.0.0/8")]), "10/8");
        assert_eq!(
            f(NetFunc::Plus, &[inet("127.0.0.1"), Value::Int8(257)]),
            "127.0.1.2"
        );
        assert_eq!(
            f(
                NetFunc::Merge,
                &[cidr("192.168.1.0/24"), inet("192.168.1.226")]
            ),
            "192.168.1.0/24"
        );
        assert_eq!(
            NetFunc::Difference
                .eval(&[inet("127::1"), inet("127::2")])
                .unwrap(),
            Value::Int8(-1)
        );
        for (func, args) in [
            (
                NetFunc::Plus,
                vec![inet("127.0.0.1"), Value::Int8(10_000_000_000)],
            ),
            (NetFunc::Difference, vec![inet("126::1"), inet("127::2")]),
        ] {
            assert_eq!(func.eval(&args).unwrap_err().code, "22003");
        }
        assert_eq!(
            NetFunc::Merge
                .eval(&[cidr("10.0.0.0/8"), inet("10::/8")])
                .unwrap_err()
                .code,
            "22023"
        );
        let yes =
            |func: NetFunc, a: Value, b: Value| func.eval(&[a, b]).unwrap() == Value::Bool(true);
        assert!(yes(
            NetFunc::Within,
            inet("192.168.1.226"),
            cidr("192.168.1.0/24")
        ));
        assert!(!yes(
            NetFunc::Within,
            inet("192.168.1.0/24"),
            cidr("192.168.1.0/24")
        ));
        assert!(yes(
            NetFunc::WithinOrEq,
            inet("192.168.1.0/24"),
            cidr("192.168.1.0/24")
        ));
        assert!(yes(
            NetFunc::Overlaps,
            inet("10.1.2.3/8"),
            cidr("10.1.0.0/16")
        ));
    }

    /// MAC operators and casts (macaddr.sql, macaddr8.sql).
    #[test]
    fn mac_functions_follow_postgresql() {
        let m = Value::MacAddr([8, 0, 0x2b, 1, 2, 3]);
        assert_eq!(
            text(NetFunc::Trunc.eval(std::slice::from_ref(&m)).unwrap()),
            "08:00:2b:00:00:00"
        );
        assert_eq!(
            text(NetFunc::Not.eval(std::slice::from_ref(&m)).unwrap()),
            "f7:ff:d4:fe:fd:fc"
        );
        let m8 = cast(m.clone(), SqlType::MacAddr8).unwrap();
        assert_eq!(text(m8.clone()), "08:00:2b:ff:fe:01:02:03");
        assert_eq!(cast(m8, SqlType::MacAddr).unwrap(), m);
        assert_eq!(
            cast(
                Value::MacAddr8([8, 0, 0x2b, 1, 2, 3, 4, 5]),
                SqlType::MacAddr
            )
            .unwrap_err()
            .code,
            "22003"
        );
        assert_eq!(
            text(
                NetFunc::Set7bit
                    .eval(&[Value::MacAddr8([0, 8, 0x2b, 0xff, 0xfe, 1, 2, 3])])
                    .unwrap()
            ),
            "02:08:2b:ff:fe:01:02:03"
        );
    }
}
