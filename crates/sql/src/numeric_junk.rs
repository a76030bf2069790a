//! Trailing junk after a number or a parameter (`123abc`, `0x0o`,
//! `1_000`, `0.0e`, `$1a`): PostgreSQL 15's lexer refuses these (42601
//! "trailing junk after numeric literal"), where sqlparser reads a number
//! followed by a word, which a SELECT list takes as a column alias (`SELECT
//! 123abc` answered 123 named abc).
//!
//! The rule is the lexer's: a number is `digits`, `digits.digits` (either
//! side may be empty, not both) or either of them with an exponent; one
//! followed at once by an identifier character is junk, and so is an
//! exponent marker with a sign but no digit. A parameter `$n` followed by
//! an identifier character is junk too. It is checked on the text each
//! token starts at, before any token is rewritten.

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::tokenizer::TokenWithSpan;

/// 42601 at the first number or parameter of `tokens` that has trailing
/// junk in `text`. One pass over the text: the tokens come in order, so a
/// cursor moves from each token's start to the next.
pub(crate) fn check(tokens: &[TokenWithSpan], text: &Text<'_>) -> Result<(), SqlError> {
    let sql = text.sql();
    let (mut char_at, mut byte_at) = (0, 0);
    for token in tokens {
        let Some(start) = text.position(token.span.start) else {
            continue;
        };
        let want = start - 1;
        if want < char_at {
            (char_at, byte_at) = (0, 0);
        }
        let skipped = &sql[byte_at..];
        byte_at += (skipped.chars().take(want - char_at))
            .map(char::len_utf8)
            .sum::<usize>();
        char_at = want;
        let from = &sql[byte_at..];
        if let Some((what, len)) = junk(from) {
            return Err(SqlError::syntax(format!(
                "trailing junk after {what} at or near \"{}\"",
                &from[..len]
            ))
            .at(start));
        }
    }
    Ok(())
}

/// What `s` starts with is junk of (`numeric literal` or `parameter`),
/// and its length in bytes, if it is. Everything before the junk is
/// ASCII, so byte offsets step by one there.
fn junk(s: &str) -> Option<(&'static str, usize)> {
    let b = s.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let at = |i: usize| b.get(i).copied();
    let word_at = |i: usize| s[i..].chars().next().is_some_and(ident_start);
    if at(0) == Some(b'$') {
        let end = digits(1);
        return (end > 1 && word_at(end)).then(|| ("parameter", identifier_end(s, end)));
    }
    let mut end = digits(0);
    let whole = end > 0;
    if at(end) == Some(b'.') && at(end + 1) != Some(b'.') {
        let fraction = digits(end + 1);
        if !whole && fraction == end + 1 {
            return None;
        }
        end = fraction;
    } else if !whole {
        return None;
    }
    if matches!(at(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(at(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > end + 1 + sign {
            end = exponent;
        } else if sign == 1 {
            return Some(("numeric literal", end + 2));
        }
    }
    word_at(end).then(|| ("numeric literal", identifier_end(s, end)))
}

/// PostgreSQL's `ident_start`: a letter, `_` or any non-ASCII character.
fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

/// Where (in bytes) the identifier starting at `from` ends.
fn identifier_end(s: &str, from: usize) -> usize {
    from + (s[from..].chars())
        .take_while(|&c| ident_start(c) || c.is_ascii_digit() || c == '$')
        .map(char::len_utf8)
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::junk;

    fn of(s: &str) -> Option<(&'static str, String)> {
        junk(s).map(|(what, len)| (what, s[..len].to_string()))
    }

    #[test]
    fn junk_is_the_lexers() {
        let numeric = |s: &str| Some(("numeric literal", s.to_string()));
        assert_eq!(of("123abc "), numeric("123abc"));
        assert_eq!(of("0x0o"), numeric("0x0o"));
        assert_eq!(of("1_2_3"), numeric("1_2_3"));
        assert_eq!(of("0.a"), numeric("0.a"));
        assert_eq!(of(".0a"), numeric(".0a"));
        assert_eq!(of("0.0e1a"), numeric("0.0e1a"));
        assert_eq!(of("0.0e"), numeric("0.0e"));
        assert_eq!(of("0.0e+a"), numeric("0.0e+"));
        assert_eq!(of("1e"), numeric("1e"));
        assert_eq!(of("$1a"), Some(("parameter", "$1a".to_string())));
        assert_eq!(of("1é "), numeric("1é"));
        for fine in [
            "1", "1.5e-3 ", "1..2", "1::int", "1.", ".5)", "$1)", "$x", ".", "a1", "1e5",
        ] {
            assert_eq!(of(fine), None, "{fine}");
        }
    }
}
