//! `format(fmt, ...)`, PostgreSQL's: the format string with each
//! specifier `%[n$][-][width|*|*n$]type` replaced by an argument, where
//! type is `s` (its text; NULL as nothing), `I` (a quoted identifier,
//! `quote_ident`; NULL is 22004) or `L` (a quoted literal,
//! `quote_literal`; NULL as `NULL`), and `%%` is a `%`.
//!
//! Arguments are taken in order from the first after the format, or at the
//! 1-based position `n$` (the next unnumbered one then follows it). A
//! width pads with spaces on the left, or on the right with `-` or a
//! negative width; `*` takes the width from the next argument (`*n$`
//! from the n-th; NULL is 0). A NULL format gives NULL. PostgreSQL's
//! errors: 22023 for too few arguments, an unterminated or unknown
//! specifier (with its hint) and argument 0; 22003 for a number out of
//! range.

use crate::error::SqlError;
use crate::types;
use folio_row::{SqlType, Value};

/// `format(args[0], args[1..])`.
pub fn format(args: &[Value]) -> Result<Value, SqlError> {
    let Some(fmt) = args.first() else {
        return Ok(Value::Null);
    };
    let Some(fmt) = types::text_output(fmt) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len());
    // The next argument to take, counting the format as 0.
    let mut next = 1;
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        at += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.get(at) == Some(&'%') {
            out.push('%');
            at += 1;
            continue;
        }
        let spec = Spec::parse(&chars, &mut at)?;
        if let Some(width_at) = spec.width_at {
            if width_at > 0 {
                next = width_at;
            }
            let width = width_of(args.get(next).ok_or_else(too_few)?)?;
            next += 1;
            spec_apply(&mut out, &spec, width, args, &mut next)?;
        } else {
            spec_apply(&mut out, &spec, spec.width, args, &mut next)?;
        }
    }
    Ok(Value::Text(out))
}

/// One specifier after its `%`.
struct Spec {
    /// `n$`: the argument's 1-based position.
    position: Option<usize>,
    /// `-`: padded on the right.
    left: bool,
    /// A width written in the format.
    width: i64,
    /// `*` (0: the next argument) or `*n$` (the n-th): the width's argument.
    width_at: Option<usize>,
    kind: char,
}

impl Spec {
    /// Parses a specifier from `chars[*at..]`, leaving `at` after its type.
    fn parse(chars: &[char], at: &mut usize) -> Result<Spec, SqlError> {
        let mut spec = Spec {
            position: None,
            left: false,
            width: 0,
            width_at: None,
            kind: 's',
        };
        let peek = |at: usize| chars.get(at).copied().ok_or_else(unterminated);
        // Digits first: a position if a `$` follows, else the width.
        if peek(*at)?.is_ascii_digit() {
            let n = digits(chars, at)?;
            if peek(*at)? == '$' {
                *at += 1;
                spec.position = Some(position(n)?);
            } else {
                spec.width = n;
                spec.kind = peek(*at)?;
                *at += 1;
                return spec.checked();
            }
        }
        while peek(*at)? == '-' {
            spec.left = true;
            *at += 1;
        }
        if peek(*at)? == '*' {
            *at += 1;
            spec.width_at = Some(0);
            if peek(*at)?.is_ascii_digit() {
                let n = digits(chars, at)?;
                if peek(*at)? != '$' {
                    return Err(unterminated());
                }
                *at += 1;
                spec.width_at = Some(position(n)?);
            }
        } else if peek(*at)?.is_ascii_digit() {
            spec.width = digits(chars, at)?;
        }
        spec.kind = peek(*at)?;
        *at += 1;
        spec.checked()
    }

    fn checked(self) -> Result<Spec, SqlError> {
        match self.kind {
            's' | 'I' | 'L' => Ok(self),
            other => Err(SqlError::new(
                "22023",
                format!("unrecognized format() type specifier \"{other}\""),
            )
            .with_hint("For a single \"%\" use \"%%\".")),
        }
    }
}

/// Writes the argument `spec` names (`next` the one in turn) padded to
/// `width` (negative: on the right).
fn spec_apply(
    out: &mut String,
    spec: &Spec,
    width: i64,
    args: &[Value],
    next: &mut usize,
) -> Result<(), SqlError> {
    if let Some(p) = spec.position {
        *next = p;
    }
    let value = args.get(*next).ok_or_else(too_few)?;
    *next += 1;
    let text = match (spec.kind, value) {
        ('I', Value::Null) => {
            return Err(SqlError::new(
                "22004",
                "null values cannot be formatted as an SQL identifier",
            ));
        }
        ('L', Value::Null) => "NULL".to_string(),
        (_, Value::Null) => String::new(),
        ('I', v) => crate::names::written(&types::text_output(v).unwrap_or_default()).to_string(),
        ('L', v) => quote_literal(&types::text_output(v).unwrap_or_default()),
        (_, v) => types::text_output(v).unwrap_or_default(),
    };
    let left = spec.left || width < 0;
    let pad = (width.unsigned_abs() as usize).saturating_sub(text.chars().count());
    if !left {
        out.extend(std::iter::repeat_n(' ', pad));
    }
    out.push_str(&text);
    if left {
        out.extend(std::iter::repeat_n(' ', pad));
    }
    Ok(())
}

/// PostgreSQL's `quote_literal`: in single quotes, each `'` and `\`
/// doubled, with an `E` before when there is a backslash.
pub fn quote_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 3);
    if s.contains('\\') {
        out.push('E');
    }
    out.push('\'');
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// A width taken from an argument (NULL: 0).
fn width_of(v: &Value) -> Result<i64, SqlError> {
    Ok(match v {
        Value::Null => 0,
        v => match types::cast(v.clone(), SqlType::Int4)? {
            Value::Int4(n) => n.into(),
            _ => 0,
        },
    })
}

/// The number at `chars[*at..]`, leaving `at` after it.
fn digits(chars: &[char], at: &mut usize) -> Result<i64, SqlError> {
    let mut n: i64 = 0;
    while let Some(d) = chars.get(*at).and_then(|c| c.to_digit(10)) {
        n = n * 10 + i64::from(d);
        if n > i64::from(i32::MAX) {
            return Err(SqlError::new("22003", "number is out of range"));
        }
        *at += 1;
    }
    Ok(n)
}

/// A 1-based argument position, which may not be 0.
fn position(n: i64) -> Result<usize, SqlError> {
    if n == 0 {
        return Err(SqlError::new(
            "22023",
            "format specifies argument 0, but arguments are numbered from 1",
        ));
    }
    Ok(n as usize)
}

fn too_few() -> SqlError {
    SqlError::new("22023", "too few arguments for format()")
}

fn unterminated() -> SqlError {
    SqlError::new("22023", "unterminated format() type specifier")
        .with_hint("For a single \"%\" use \"%%\".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[Value]) -> Result<String, SqlError> {
        match format(args)? {
            Value::Text(t) => Ok(t),
            other => panic!("{other:?}"),
        }
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn positions_and_widths_take_arguments_as_postgresql() {
        // Proves the argument order rules: after `%2$s` the next
        // unnumbered specifier takes the third; `*` takes its width first.
        let got = run(&[
            text("%2$s %s|%*s|"),
            text("a"),
            text("b"),
            text("c"),
            Value::Int4(3),
            text("d"),
        ]);
        assert_eq!(got.unwrap(), "b c|  d|");
        let got = run(&[
            text("%-5s|%5s|%*2$s|"),
            text("ab"),
            Value::Int4(-4),
            text("x"),
        ]);
        assert_eq!(got.unwrap(), "ab   |   -4|x   |");
        assert_eq!(quote_literal("it's a\\b"), "E'it''s a\\\\b'");
    }
}
