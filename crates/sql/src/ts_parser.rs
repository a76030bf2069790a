//! The default text search parser's token stream (PostgreSQL 15's
//! `default` parser): a text into tokens of the 23 kinds
//! (`ts_token_kinds.rs`), blanks included, in order.
//!
//! The parser is a machine of states (`ts_parser_rules.rs`) that saves
//! alternatives and goes back to them: `1.2.3.4` is tried as a host, then
//! as a decimal, and is a version. Some tests start a parser of their own
//! at the next character: an e-mail's host and a URL's path are what such
//! a parser finds there. A URL is one token, then its host and path are
//! read again as tokens of their own; a hyphenated word likewise, then
//! its parts.
//!
//! Character classes follow PostgreSQL's in a UTF-8 database under a
//! glibc locale: digits are ASCII only, letters are any script's (digits
//! of other scripts count as letters), a mark inside a word neither
//! breaks it nor starts one.

use crate::ts_parser_rules::{Act, Hook, State, Test, rules};
pub(crate) use crate::ts_token_kinds::TokenKind;
use std::cell::RefCell;
use std::collections::HashMap;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// A token: its kind and its text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub text: String,
}

/// How many parsers may nest (an e-mail's host holding an e-mail...);
/// past it the inner test fails. PostgreSQL bounds the same nesting by
/// its stack depth.
const MAX_NESTING: usize = 1000;

/// A place the machine is at: a position, the token's length so far, the
/// state, and (for a saved place) the rule that saved it.
#[derive(Debug, Clone, Copy)]
struct Place {
    pos: usize,
    len: usize,
    state: State,
    saved_at: Option<usize>,
}

/// One parser over `chars`: the current place is the top of `places`,
/// the places under it the saved alternatives.
struct Machine<'a> {
    /// The whole text (an inner parser starts inside it).
    chars: &'a [char],
    places: Vec<Place>,
    /// Inside `<script>` / `<style>`.
    ignoring: bool,
    /// A host is wanted (an e-mail's or URL's, read by a parser of its own).
    want_host: bool,
    nesting: usize,
    /// What the inner parsers found, by where they started and what they
    /// looked for (an inner parser's answer depends on nothing else), so
    /// `a1@a1@a1@...` is read in linear time.
    inner_found: &'a RefCell<HashMap<(usize, State), Option<usize>>>,
}

impl<'a> Machine<'a> {
    fn new(
        chars: &'a [char],
        offset: usize,
        nesting: usize,
        inner_found: &'a RefCell<HashMap<(usize, State), Option<usize>>>,
    ) -> Machine<'a> {
        Machine {
            chars,
            places: vec![Place {
                pos: offset,
                len: 0,
                state: State::Base,
                saved_at: None,
            }],
            ignoring: false,
            want_host: false,
            nesting,
            inner_found,
        }
    }

    fn top(&mut self) -> &mut Place {
        self.places.last_mut().expect("a parser has a place")
    }

    /// The next token: its kind, where it starts and its length (in
    /// characters); none at the end.
    fn next(&mut self) -> Option<(TokenKind, usize, usize)> {
        let end = self.chars.len();
        let start = self.top().pos;
        if start >= end {
            return None;
        }
        self.top().saved_at = None;
        loop {
            let place = *self.places.last().expect("a parser has a place");
            let table = rules(place.state);
            let from = place.saved_at.map_or(0, |i| i + 1);
            self.top().saved_at = None;
            let index = (from..table.len())
                .find(|&i| self.holds(table[i].test))
                .expect("a state's last rule always holds");
            let rule = table[index];
            if let Some(hook) = rule.hook {
                self.hook(hook, start);
            }
            let mut found = None;
            if let Some(kind) = rule.emits {
                let top = self.top();
                found = Some((kind, start, top.len));
                top.len = 0;
            }
            match rule.act {
                Act::Pop => {
                    self.places.pop();
                }
                Act::Push => {
                    let top = self.top();
                    top.saved_at = Some(index);
                    let copy = Place {
                        saved_at: None,
                        ..*top
                    };
                    self.places.push(copy);
                }
                Act::Clear => {
                    let below = self.places.len() - 2;
                    self.places.remove(below);
                }
                Act::ClearAll => {
                    let top = *self.top();
                    self.places.clear();
                    self.places.push(top);
                }
                Act::Merge => {
                    let done = self.places.pop().expect("a place to merge");
                    let top = self.top();
                    top.pos = done.pos;
                    top.len = done.len;
                }
                Act::Next | Act::Rerun => {}
            }
            if let Some(to) = rule.to {
                self.top().state = to;
            }
            if found.is_some() {
                return found;
            }
            if self.top().pos >= end && rule.act != Act::Rerun {
                return None;
            }
            if matches!(rule.act, Act::Rerun | Act::Pop) {
                continue;
            }
            let top = self.top();
            top.pos += 1;
            top.len += 1;
        }
    }

    /// A rule's side effect (`start`: where the token began).
    fn hook(&mut self, hook: Hook, start: usize) {
        match hook {
            Hook::TagName => {
                let len = self.top().len;
                let name: String = self.chars[start..start + len].iter().collect();
                match name.to_ascii_lowercase().as_str() {
                    "<script" | "<style" => self.ignoring = true,
                    "</script" | "</style" => self.ignoring = false,
                    _ => {}
                }
            }
            Hook::FullUrl => {
                self.want_host = true;
                let top = self.top();
                top.pos -= top.len;
            }
            Hook::Hyphen => {
                let top = self.top();
                top.pos -= top.len;
            }
            Hook::SignedVersion => {
                let top = self.top();
                top.pos -= top.len;
                top.len = 0;
            }
        }
    }

    /// Whether `test` holds at the current place (a host or URL path
    /// found is taken).
    fn holds(&mut self, test: Test) -> bool {
        let pos = self.top().pos;
        let Some(&c) = self.chars.get(pos) else {
            // At the end: only the end, "not a letter or digit", a
            // zero-width mark (the terminator) and the machine's flags.
            return match test {
                Test::End | Test::Always | Test::NotAlnum | Test::Special => true,
                Test::Ignoring => self.ignoring,
                Test::HostStop => self.take_host_stop(),
                _ => false,
            };
        };
        match test {
            Test::End => false,
            Test::Is(x) => c == x,
            Test::AsciiLetter => c.is_ascii_alphabetic(),
            Test::Alpha => is_letter(c),
            Test::Digit => c.is_ascii_digit(),
            Test::Alnum => is_letter(c) || c.is_ascii_digit(),
            Test::NotAlnum => !(is_letter(c) || c.is_ascii_digit()),
            Test::Space => is_space(c),
            Test::HexDigit => c.is_ascii_hexdigit(),
            Test::UrlChar => c.is_ascii_graphic() && !"\"<>\\^`{|}".contains(c),
            Test::Special => is_inner_mark(c),
            Test::Ignoring => self.ignoring,
            Test::HostStop => self.take_host_stop(),
            Test::HostFollows => self.take_inner(State::Base, TokenKind::Host),
            Test::UrlPathFollows => self.take_inner(State::UrlPathFirst, TokenKind::UrlPath),
            Test::Always => true,
        }
    }

    /// A wanted host ends here: the want is spent.
    fn take_host_stop(&mut self) -> bool {
        std::mem::replace(&mut self.want_host, false)
    }

    /// Whether a parser of its own, started at the current place in
    /// `state`, finds a `kind` first; if so it is taken into the token.
    fn take_inner(&mut self, state: State, kind: TokenKind) -> bool {
        let pos = self.top().pos;
        let known = self.inner_found.borrow().get(&(pos, state)).copied();
        let found = match known {
            Some(found) => found,
            None if self.nesting >= MAX_NESTING => return false,
            None => {
                let mut inner = Machine::new(self.chars, pos, self.nesting + 1, self.inner_found);
                if state == State::Base {
                    inner.want_host = true;
                } else {
                    let base = inner.places[0];
                    inner.places.push(Place { state, ..base });
                }
                let found = match inner.next() {
                    Some((found, _, len)) if found == kind => Some(len),
                    _ => None,
                };
                self.inner_found.borrow_mut().insert((pos, state), found);
                found
            }
        };
        let Some(len) = found else {
            return false;
        };
        let top = self.top();
        top.pos += len;
        top.len += len;
        true
    }
}

/// A letter: any script's (glibc counts other scripts' digits as
/// letters too).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic() || c.general_category() == GeneralCategory::DecimalNumber
    }
}

/// White space (no-break spaces are not).
fn is_space(c: char) -> bool {
    c.is_whitespace() && !matches!(c, '\u{a0}' | '\u{2007}' | '\u{202f}' | '\u{85}')
}

/// A mark that neither breaks a word nor starts one: combining marks
/// (zero-width or spacing; format characters such as U+200B are not).
fn is_inner_mark(c: char) -> bool {
    !c.is_ascii()
        && matches!(
            c.general_category(),
            GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
                | GeneralCategory::SpacingMark
        )
}

/// The tokens of `text`, blanks included, in order.
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let inner_found = RefCell::new(HashMap::new());
    let mut machine = Machine::new(&chars, 0, 0, &inner_found);
    let mut out = Vec::new();
    while let Some((kind, start, len)) = machine.next() {
        out.push(Token {
            kind,
            text: chars[start..start + len].iter().collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&'static str, String)> {
        tokens(text)
            .into_iter()
            .map(|t| (t.kind.alias(), t.text))
            .collect()
    }

    fn want(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        pairs.iter().map(|(k, t)| (*k, t.to_string())).collect()
    }

    // Proves words, hyphenated words (whole, then parts), numbers and
    // non-ASCII letters come as PostgreSQL 15's default parser gives them.
    #[test]
    fn words_and_numbers() {
        assert_eq!(
            kinds("Foo-bar2 x2y 12 -3 1.5 café"),
            want(&[
                ("numhword", "Foo-bar2"),
                ("hword_asciipart", "Foo"),
                ("blank", "-"),
                ("hword_numpart", "bar2"),
                ("blank", " "),
                ("numword", "x2y"),
                ("blank", " "),
                ("uint", "12"),
                ("blank", " "),
                ("int", "-3"),
                ("blank", " "),
                ("float", "1.5"),
                ("blank", " "),
                ("word", "café"),
            ])
        );
    }

    // Proves versions, scientific numbers, hosts, e-mails, URLs, files,
    // tags and entities are tokens of their own (PostgreSQL 15's answers).
    #[test]
    fn the_other_kinds() {
        assert_eq!(
            kinds("1.2.3.4.5 1e5 a.b.com x@y.org"),
            want(&[
                ("version", "1.2.3.4.5"),
                ("blank", " "),
                ("sfloat", "1e5"),
                ("blank", " "),
                ("host", "a.b.com"),
                ("blank", " "),
                ("email", "x@y.org"),
            ])
        );
        assert_eq!(
            kinds("http://www.x.com:8080/a/b.html"),
            want(&[
                ("protocol", "http://"),
                ("url", "www.x.com:8080/a/b.html"),
                ("host", "www.x.com:8080"),
                ("url_path", "/a/b.html"),
            ])
        );
        assert_eq!(
            kinds("<a href=\"x\">&amp;/usr/lib"),
            want(&[
                ("tag", "<a href=\"x\">"),
                ("entity", "&amp;"),
                ("file", "/usr/lib"),
            ])
        );
    }

    // Proves a run of e-mail-like words, each trying the next as its
    // host, is read in linear time with PostgreSQL 15's token count.
    #[test]
    fn nested_hosts_stay_linear() {
        let text = "ab1@".repeat(20000) + "x.com";
        let all = tokens(&text);
        assert_eq!(all.len(), 39999);
        assert_eq!(all.last().unwrap().text, "ab1@x.com");
    }
}
