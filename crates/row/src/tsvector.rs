//! `tsvector` values (PostgreSQL's `tsvector.c`): a sorted list of
//! distinct lexemes, each with its positions in the document and their
//! weights. The one owner of the value's forms:
//!
//! | form | bytes |
//! |---|---|
//! | value | lexemes in byte order, no two equal; each one's positions ascending, no two equal, at most [`MAX_POSITIONS`], each 1 to [`MAX_POS`] with a weight 0 (D) to 3 (A) |
//! | text | `'lexeme':1,3A 'other'`: each lexeme quoted (`'` and `\` doubled), its positions after `:`, a weight letter but for D (`tsvectorout`); input per `ts_token.rs` |
//! | row | the lexeme count (u32 LE); per lexeme its length (u32 LE), its bytes, its position count (u16 LE), each position as PostgreSQL's `WordEntryPos` (u16 LE: weight in the top two bits) |
//! | key | PostgreSQL's `tsvector_cmp`: the size PostgreSQL's value would take and the lexeme count (u32 BE each); per lexeme `0x00` with positions / `0x01` without, its bytes escaped as text's, and with positions their count (inverted u16 BE), each position and weight (inverted: larger first, as PostgreSQL's order has them) |
//!
//! Invariants (checked by [`TsVector::check_invariants`]): the above, and
//! every lexeme non-empty and at most [`MAX_LEXEME_BYTES`] bytes.

use crate::error::RowError;
use crate::ts_token::TokenReader;
use std::cmp::Ordering;

/// The largest position (PostgreSQL's `MAXENTRYPOS - 1`); larger ones are
/// stored as it.
pub const MAX_POS: u16 = (1 << 14) - 1;
/// Most positions a lexeme keeps (PostgreSQL's `MAXNUMPOS`).
pub const MAX_POSITIONS: usize = 256;
/// The longest lexeme in bytes (PostgreSQL's `MAXSTRLEN - 1`).
pub const MAX_LEXEME_BYTES: usize = 2046;
/// The largest lexeme area of a tsvector (PostgreSQL's `MAXSTRPOS`).
const MAX_STRING_BYTES: usize = 1 << 20;

/// A position and its weight, packed as PostgreSQL's `WordEntryPos`: the
/// weight (0 = D ... 3 = A) in the top two bits, the position below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WordPos(pub u16);

impl WordPos {
    pub fn new(pos: u16, weight: u8) -> WordPos {
        WordPos((u16::from(weight & 3) << 14) | pos.min(MAX_POS))
    }

    pub fn pos(self) -> u16 {
        self.0 & MAX_POS
    }

    /// 0 (D) to 3 (A).
    pub fn weight(self) -> u8 {
        (self.0 >> 14) as u8
    }

    pub fn with_weight(self, weight: u8) -> WordPos {
        WordPos::new(self.pos(), weight)
    }
}

/// The letter of weight `w` (3 is `A`).
pub fn weight_letter(w: u8) -> char {
    ['D', 'C', 'B', 'A'][usize::from(w & 3)]
}

/// One lexeme and its positions (none: a stripped lexeme).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lexeme {
    pub word: String,
    pub positions: Vec<WordPos>,
}

/// A `tsvector`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TsVector {
    lexemes: Vec<Lexeme>,
}

/// 54000 `word is too long (N bytes, max 2046 bytes)` for a lexeme past
/// [`MAX_LEXEME_BYTES`].
pub fn check_lexeme(word: &str) -> Result<(), RowError> {
    if word.len() > MAX_LEXEME_BYTES {
        return Err(RowError::TextSearch {
            code: "54000",
            message: format!(
                "word is too long ({} bytes, max {MAX_LEXEME_BYTES} bytes)",
                word.len()
            ),
        });
    }
    Ok(())
}

/// Sorts positions, keeps one of each (the highest weight), at most
/// [`MAX_POSITIONS`] and none after [`MAX_POS`] (PostgreSQL's
/// `uniquePos`).
fn unique_positions(positions: &mut Vec<WordPos>) {
    positions.sort_by_key(|p| p.pos());
    let mut out: Vec<WordPos> = Vec::with_capacity(positions.len());
    for &p in positions.iter() {
        let full = out.len() >= MAX_POSITIONS;
        match out.last_mut() {
            Some(last) if last.pos() == p.pos() => {
                if p.weight() > last.weight() {
                    *last = p;
                }
            }
            Some(last) if full || last.pos() == MAX_POS => break,
            _ => out.push(p),
        }
    }
    *positions = out;
}

impl TsVector {
    /// The tsvector of `lexemes`: sorted, equal lexemes merged (their
    /// positions together), positions made unique. Errors: a lexeme too
    /// long, or too much text in all (54000).
    pub fn from_lexemes(mut lexemes: Vec<Lexeme>) -> Result<TsVector, RowError> {
        for l in &lexemes {
            check_lexeme(&l.word)?;
        }
        lexemes.sort_by(|a, b| a.word.as_bytes().cmp(b.word.as_bytes()));
        let mut out: Vec<Lexeme> = Vec::with_capacity(lexemes.len());
        for l in lexemes {
            match out.last_mut() {
                Some(last) if last.word == l.word => last.positions.extend(l.positions),
                _ => out.push(l),
            }
        }
        for l in &mut out {
            unique_positions(&mut l.positions);
        }
        let total: usize = out.iter().map(|l| l.word.len()).sum();
        if total > MAX_STRING_BYTES {
            return Err(RowError::TextSearch {
                code: "54000",
                message: format!(
                    "string is too long for tsvector ({total} bytes, max {MAX_STRING_BYTES} bytes)"
                ),
            });
        }
        let v = TsVector { lexemes: out };
        debug_assert!(v.check_invariants().is_ok());
        Ok(v)
    }

    /// The lexemes, in order.
    pub fn lexemes(&self) -> &[Lexeme] {
        &self.lexemes
    }

    /// The lexeme `word`, if present.
    pub fn find(&self, word: &str) -> Option<&Lexeme> {
        self.lexemes
            .binary_search_by(|l| l.word.as_bytes().cmp(word.as_bytes()))
            .ok()
            .map(|i| &self.lexemes[i])
    }

    /// The lexemes that start with `prefix`, in order.
    pub fn with_prefix<'s>(&'s self, prefix: &'s str) -> impl Iterator<Item = &'s Lexeme> + 's {
        let start = self
            .lexemes
            .partition_point(|l| l.word.as_bytes() < prefix.as_bytes());
        self.lexemes[start..]
            .iter()
            .take_while(move |l| l.word.as_bytes().starts_with(prefix.as_bytes()))
    }

    /// Checks the module's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        for w in self.lexemes.windows(2) {
            if w[0].word.as_bytes() >= w[1].word.as_bytes() {
                return Err(format!("lexemes out of order: {:?}", w));
            }
        }
        for l in &self.lexemes {
            if l.word.is_empty() || l.word.len() > MAX_LEXEME_BYTES {
                return Err(format!("lexeme of {} bytes", l.word.len()));
            }
            if l.positions.len() > MAX_POSITIONS {
                return Err(format!("{} positions", l.positions.len()));
            }
            if l.positions.iter().any(|p| p.pos() == 0) {
                return Err("position 0".into());
            }
            if l.positions.windows(2).any(|w| w[0].pos() >= w[1].pos()) {
                return Err("positions out of order".into());
            }
        }
        Ok(())
    }

    /// Reads tsvector text (`tsvectorin`).
    pub fn parse(text: &str) -> Result<TsVector, RowError> {
        let mut reader = TokenReader::new(text, false);
        let mut lexemes = Vec::new();
        while let Some((word, positions)) = reader.next_word()? {
            check_lexeme(&word)?;
            lexemes.push(Lexeme { word, positions });
        }
        TsVector::from_lexemes(lexemes)
    }

    /// Its text (`tsvectorout`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, l) in self.lexemes.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            quote_lexeme(&l.word, &mut out);
            for (j, p) in l.positions.iter().enumerate() {
                out.push(if j == 0 { ':' } else { ',' });
                out.push_str(&p.pos().to_string());
                if p.weight() != 0 {
                    out.push(weight_letter(p.weight()));
                }
            }
        }
        out
    }

    /// The bytes PostgreSQL's value would take (`VARSIZE`): its order
    /// compares these first.
    fn pg_size(&self) -> usize {
        let mut strings = 0usize;
        for l in &self.lexemes {
            strings += l.word.len();
            if !l.positions.is_empty() {
                strings = strings.next_multiple_of(2) + 2 + 2 * l.positions.len();
            }
        }
        8 + 4 * self.lexemes.len() + strings
    }

    /// PostgreSQL's order of tsvectors (`tsvector_cmp`): size, lexeme
    /// count, then lexeme by lexeme (with positions first, the word, more
    /// positions first, then each position and weight, larger first).
    pub fn cmp_tsvector(&self, other: &TsVector) -> Ordering {
        let mut a = Vec::new();
        let mut b = Vec::new();
        self.key_bytes(&mut a);
        other.key_bytes(&mut b);
        a.cmp(&b)
    }

    /// Appends its key (module table).
    pub(crate) fn key_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.pg_size() as u32).to_be_bytes());
        out.extend_from_slice(&(self.lexemes.len() as u32).to_be_bytes());
        for l in &self.lexemes {
            out.push(if l.positions.is_empty() { 0x01 } else { 0x00 });
            escaped(l.word.as_bytes(), out);
            if !l.positions.is_empty() {
                out.extend_from_slice(&(!(l.positions.len() as u16)).to_be_bytes());
                for p in &l.positions {
                    out.extend_from_slice(&(!p.pos()).to_be_bytes());
                    out.push(!p.weight());
                }
            }
        }
    }

    /// Reads a key written by [`TsVector::key_bytes`]: `byte` reads the
    /// next byte, `unescaped` an escaped string.
    pub(crate) fn from_key(r: &mut crate::key::KeyReader<'_>) -> Result<TsVector, RowError> {
        let _size = u32::from_be_bytes([r.byte()?, r.byte()?, r.byte()?, r.byte()?]);
        let count = u32::from_be_bytes([r.byte()?, r.byte()?, r.byte()?, r.byte()?]);
        let mut lexemes = Vec::new();
        for _ in 0..count {
            let has_positions = r.byte()? == 0x00;
            let word = String::from_utf8(r.unescaped()?)
                .map_err(|_| RowError::Corrupt("tsvector key lexeme".into()))?;
            let mut positions = Vec::new();
            if has_positions {
                let n = !u16::from_be_bytes([r.byte()?, r.byte()?]);
                for _ in 0..n {
                    let pos = !u16::from_be_bytes([r.byte()?, r.byte()?]);
                    let weight = !r.byte()?;
                    positions.push(WordPos::new(pos, weight));
                }
            }
            lexemes.push(Lexeme { word, positions });
        }
        Ok(TsVector { lexemes })
    }

    /// Appends its row form (module table).
    pub(crate) fn write_row(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.lexemes.len() as u32).to_le_bytes());
        for l in &self.lexemes {
            out.extend_from_slice(&(l.word.len() as u32).to_le_bytes());
            out.extend_from_slice(l.word.as_bytes());
            out.extend_from_slice(&(l.positions.len() as u16).to_le_bytes());
            for p in &l.positions {
                out.extend_from_slice(&p.0.to_le_bytes());
            }
        }
    }

    /// Its row form's bytes.
    pub fn row_len(&self) -> usize {
        4 + self
            .lexemes
            .iter()
            .map(|l| 4 + l.word.len() + 2 + 2 * l.positions.len())
            .sum::<usize>()
    }

    /// Reads its row form.
    pub(crate) fn read_row(b: &[u8]) -> Option<TsVector> {
        let mut at = 0usize;
        let mut take = |n: usize| {
            let s = b.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let count = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let mut lexemes = Vec::new();
        for _ in 0..count {
            let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            let word = String::from_utf8(take(len)?.to_vec()).ok()?;
            let n = u16::from_le_bytes(take(2)?.try_into().ok()?);
            let mut positions = Vec::with_capacity(usize::from(n));
            for _ in 0..n {
                positions.push(WordPos(u16::from_le_bytes(take(2)?.try_into().ok()?)));
            }
            lexemes.push(Lexeme { word, positions });
        }
        let v = TsVector { lexemes };
        (at == b.len() && v.check_invariants().is_ok()).then_some(v)
    }

    /// A tsvector already in order (the caller keeps the invariants:
    /// lexemes taken from sorted values, positions from a valid one).
    pub fn from_sorted(lexemes: Vec<Lexeme>) -> TsVector {
        let v = TsVector { lexemes };
        debug_assert!(v.check_invariants().is_ok(), "{v:?}");
        v
    }
}

/// Bytes with `0x00` escaped as `0x00 0xFF`, then `0x00 0x00` (as
/// `key.rs` escapes text).
fn escaped(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// Appends `word` quoted as tsvector and tsquery text quote it: in `'`,
/// with `'` and `\` doubled.
pub fn quote_lexeme(word: &str, out: &mut String) {
    out.push('\'');
    for c in word.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(input: &str) -> String {
        TsVector::parse(input).unwrap().text()
    }

    fn error(input: &str) -> (String, &'static str) {
        let e = TsVector::parse(input).unwrap_err();
        (e.to_string(), e.sqlstate())
    }

    // Proves the text forms are PostgreSQL 15's (tstypes.sql's answers):
    // quoting, escapes, sorting, merging of duplicates, weights, limits.
    #[test]
    fn text_forms_are_postgresqls() {
        assert_eq!(text(" 1 "), "'1'");
        assert_eq!(text("1 2"), "'1' '2'");
        assert_eq!(text("'1 2'"), "'1 2'");
        assert_eq!(text("'1 \\'2'"), "'1 ''2'");
        assert_eq!(text("'1 \\'2'3"), "'1 ''2' '3'");
        assert_eq!(text("'1 \\'2' ' 3' 4 "), "' 3' '1 ''2' '4'");
        assert_eq!(
            text(r"'\\as' ab\c ab\\c AB\\\c ab\\\\c"),
            r"'AB\\c' '\\as' 'ab\\\\c' 'ab\\c' 'abc'"
        );
        assert_eq!(text("'w':4A,3B,2C,1D,5 a:8"), "'a':8 'w':1,2C,3B,4A,5");
        assert_eq!(text("a:1,1A,1B,2 a:2C"), "'a':1A,2C");
        assert_eq!(text("a:1A2"), "'a':1A");
        assert_eq!(text("a:1dc"), "'a':1C");
        assert_eq!(text("a:99999"), "'a':16383");
        assert_eq!(text("a'b ab\\:c"), "'a''b' 'ab:c'");
        assert_eq!(text(""), "");
        assert_eq!(
            error("'' '1' '2'"),
            ("syntax error in tsvector: \"'' '1' '2'\"".into(), "42601")
        );
        assert_eq!(error("a:0").1, "42601");
        assert_eq!(error("a:").1, "42601");
        assert_eq!(error("a:1x").1, "42601");
        assert_eq!(error("a:1AB").1, "42601");
        assert_eq!(error("'a").1, "42601");
        assert_eq!(
            error("a\\").0,
            "there is no escaped character: \"a\\\"".to_string()
        );
        assert_eq!(
            error(&"x".repeat(2047)),
            (
                "word is too long (2047 bytes, max 2046 bytes)".into(),
                "54000"
            )
        );
    }

    // Proves the order is PostgreSQL's `tsvector_cmp` (answers of
    // PostgreSQL 15) and the row form reads back.
    #[test]
    fn order_and_row_form() {
        let v = |t: &str| TsVector::parse(t).unwrap();
        assert_eq!(v("a").cmp_tsvector(&v("b")), Ordering::Less);
        assert_eq!(v("a:1").cmp_tsvector(&v("a")), Ordering::Greater);
        assert_eq!(v("aa").cmp_tsvector(&v("b")), Ordering::Greater);
        assert_eq!(v("b c").cmp_tsvector(&v("aaaa")), Ordering::Greater);
        for t in ["", "a", "a:1,3A b 'c d':16383B"] {
            let mut row = Vec::new();
            v(t).write_row(&mut row);
            assert_eq!(row.len(), v(t).row_len());
            assert_eq!(TsVector::read_row(&row), Some(v(t)));
        }
    }
}
