//! The default text search parser's tokens (PostgreSQL 15's `default`
//! parser, the token kinds its regression files exercise): words of
//! letters, words of letters and digits, hyphenated words (the whole
//! word, then each part), integers (signed after a blank or a number) and
//! decimal numbers. Anything else separates tokens and is not indexed.
//!
//! A token's kind decides which dictionary a configuration sends it to
//! (`ts_config.rs`): the `english` configuration stems words and keeps
//! numbers and words with digits as they are.

/// A token kind, by PostgreSQL's alias (`ts_token_type('default')`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `asciiword`: ASCII letters.
    AsciiWord,
    /// `word`: letters, some not ASCII.
    Word,
    /// `numword`: letters and digits.
    NumWord,
    /// `asciihword`: a hyphenated word of ASCII letters.
    AsciiHWord,
    /// `hword`: a hyphenated word of letters.
    HWord,
    /// `numhword`: a hyphenated word with digits.
    NumHWord,
    /// `hword_asciipart`: a part of a hyphenated word, ASCII letters.
    HWordAsciiPart,
    /// `hword_part`: a part of a hyphenated word, letters.
    HWordPart,
    /// `hword_numpart`: a part of a hyphenated word, with digits.
    HWordNumPart,
    /// `uint`: an unsigned integer.
    UInt,
    /// `int`: a signed integer.
    Int,
    /// `float`: a decimal number.
    Decimal,
}

impl TokenKind {
    /// Whether the token is made of letters only (a word a stemmer takes).
    pub(crate) fn is_letters(self) -> bool {
        matches!(
            self,
            TokenKind::AsciiWord
                | TokenKind::Word
                | TokenKind::AsciiHWord
                | TokenKind::HWord
                | TokenKind::HWordAsciiPart
                | TokenKind::HWordPart
        )
    }
}

/// A token: its kind and its text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub text: String,
}

/// The kind of a word (or of a hyphenated word's part, `part`).
fn word_kind(word: &str, part: bool) -> TokenKind {
    let digits = word.chars().any(|c| c.is_numeric());
    let ascii = word.is_ascii();
    match (part, digits, ascii) {
        (false, true, _) => TokenKind::NumWord,
        (false, false, true) => TokenKind::AsciiWord,
        (false, false, false) => TokenKind::Word,
        (true, true, _) => TokenKind::HWordNumPart,
        (true, false, true) => TokenKind::HWordAsciiPart,
        (true, false, false) => TokenKind::HWordPart,
    }
}

/// The kind of a hyphenated word of `parts`.
fn hyphenated_kind(parts: &[String]) -> TokenKind {
    if parts.iter().any(|p| p.chars().any(|c| c.is_numeric())) {
        TokenKind::NumHWord
    } else if parts.iter().all(|p| p.is_ascii()) {
        TokenKind::AsciiHWord
    } else {
        TokenKind::HWord
    }
}

/// The tokens of `text`, in order (each takes the next position).
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let run = |from: usize| {
        let mut j = from;
        while j < chars.len() && chars[j].is_alphanumeric() {
            j += 1;
        }
        j
    };
    let token = |kind, text: String| Token { kind, text };
    while i < chars.len() {
        let c = chars[i];
        // A sign before digits, after a number or a blank.
        if c == '-'
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            && (i == 0 || !chars[i - 1].is_alphabetic())
        {
            let end = run(i + 1);
            if chars[i + 1..end].iter().all(|d| d.is_ascii_digit()) {
                out.push(token(TokenKind::Int, chars[i..end].iter().collect()));
                i = end;
                continue;
            }
        }
        if !c.is_alphanumeric() {
            i += 1;
            continue;
        }
        let end = run(i);
        let first: String = chars[i..end].iter().collect();
        let all_digits = first.chars().all(|d| d.is_ascii_digit());
        // A decimal number.
        if all_digits
            && chars.get(end) == Some(&'.')
            && chars.get(end + 1).is_some_and(|d| d.is_ascii_digit())
        {
            let mut j = end + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            out.push(token(TokenKind::Decimal, chars[i..j].iter().collect()));
            i = j;
            continue;
        }
        // A hyphenated word.
        let mut parts = vec![first.clone()];
        let mut j = end;
        if first.chars().any(char::is_alphabetic) {
            while chars.get(j) == Some(&'-')
                && chars.get(j + 1).is_some_and(|d| d.is_alphanumeric())
            {
                let e = run(j + 1);
                parts.push(chars[j + 1..e].iter().collect());
                j = e;
            }
        }
        if parts.len() > 1 {
            out.push(token(hyphenated_kind(&parts), parts.join("-")));
            out.extend(parts.into_iter().map(|p| token(word_kind(&p, true), p)));
        } else if all_digits {
            out.push(token(TokenKind::UInt, first));
        } else {
            out.push(token(word_kind(&first, false), first));
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves tokens come with PostgreSQL's default parser's kinds.
    #[test]
    fn kinds_as_the_default_parser() {
        let kinds: Vec<(TokenKind, String)> = tokens("Foo-bar2 x2y 12 -3 1.5 café")
            .into_iter()
            .map(|t| (t.kind, t.text))
            .collect();
        use TokenKind::*;
        let want = [
            (NumHWord, "Foo-bar2"),
            (HWordAsciiPart, "Foo"),
            (HWordNumPart, "bar2"),
            (NumWord, "x2y"),
            (UInt, "12"),
            (Int, "-3"),
            (Decimal, "1.5"),
            (Word, "café"),
        ];
        assert_eq!(
            kinds,
            want.iter()
                .map(|(k, t)| (*k, t.to_string()))
                .collect::<Vec<_>>()
        );
    }
}
