//! The default text search parser's states and their rules: what each
//! state does on the next character (PostgreSQL 15's default parser, the
//! behaviour of `wparser_def.c` written as data). The machine that runs
//! them is `ts_parser.rs`.
//!
//! A state's rules are tried in order; the first whose test holds acts.
//! A pushed state is a saved alternative: when the path it starts fails
//! (`Pop`), the machine goes back to where it was pushed and tries the
//! rules after the one that pushed it.

use crate::ts_token_kinds::TokenKind;

/// A parser state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum State {
    Base,
    NumWord,
    AsciiWord,
    Word,
    UnsignedInt,
    SignedIntFirst,
    SignedInt,
    Space,
    UDecimalFirst,
    UDecimal,
    DecimalFirst,
    Decimal,
    VerVersion,
    SVerVersion,
    VersionFirst,
    Version,
    MantissaFirst,
    MantissaSign,
    Mantissa,
    EntityFirst,
    Entity,
    EntityNumFirst,
    EntityNum,
    EntityHexFirst,
    EntityHex,
    EntityEnd,
    TagFirst,
    XmlBegin,
    TagCloseFirst,
    TagName,
    TagBeginEnd,
    Tag,
    TagQuoted,
    TagDoubleQuoted,
    TagBackslashed,
    TagEnd,
    CommentFirst,
    CommentLast,
    Comment,
    CloseCommentFirst,
    CloseCommentLast,
    CommentEnd,
    HostFirstDomain,
    HostDomainSecond,
    HostDomain,
    PortFirst,
    Port,
    HostFirstAN,
    Host,
    Email,
    FileFirst,
    FileTwiddle,
    PathFirst,
    PathFirstFirst,
    PathSecond,
    File,
    FileNext,
    UrlPathFirst,
    UrlPathStart,
    UrlPath,
    FullUrl,
    ProtocolFirst,
    ProtocolSecond,
    ProtocolEnd,
    HyphenAsciiWordFirst,
    HyphenAsciiWord,
    HyphenWordFirst,
    HyphenWord,
    HyphenNumWordFirst,
    HyphenNumWord,
    HyphenDigitLookahead,
    ParseHyphen,
    ParseHyphenHyphen,
    HyphenWordPart,
    HyphenAsciiWordPart,
    HyphenNumWordPart,
    HyphenUnsignedInt,
}

/// What a rule asks of the next character (or of the machine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// The end of the text.
    End,
    /// This ASCII character.
    Is(char),
    /// An ASCII letter.
    AsciiLetter,
    /// A letter (any script; non-ASCII digits count as letters).
    Alpha,
    /// An ASCII digit.
    Digit,
    Alnum,
    NotAlnum,
    Space,
    HexDigit,
    /// A character a URL may hold (printable ASCII but `"<>\^`{|}`).
    UrlChar,
    /// A mark inside a word that is not a letter (zero-width, or a
    /// spacing combining mark).
    Special,
    /// Inside `<script>` or `<style>`: text is blanks.
    Ignoring,
    /// A host is wanted and ends here (clears the want).
    HostStop,
    /// A host follows (consumed when it does).
    HostFollows,
    /// A URL path follows (consumed when it does).
    UrlPathFollows,
    Always,
}

/// What a rule does when its test holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// Take the character and go on.
    Next,
    /// Save this place as an alternative, then take the character.
    Push,
    /// This path failed: back to the last saved place.
    Pop,
    /// Try the new state on the same character.
    Rerun,
    /// Forget the last saved place, take the character.
    Clear,
    /// Forget every saved place.
    ClearAll,
    /// Carry this path's progress back into the saved place, and take the
    /// character.
    Merge,
}

/// A rule's side effect before it acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    /// A tag's name is complete: `<script`/`<style` start ignoring,
    /// `</script`/`</style` stop.
    TagName,
    /// A whole URL is found: go back to its start and want its host.
    FullUrl,
    /// A whole hyphenated word is found: go back to read its parts.
    Hyphen,
    /// `-1.2.3`: go back to the start; the sign is a blank of its own.
    SignedVersion,
}

/// A rule. With `emits`, the token so far is found (of that kind).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    pub test: Test,
    pub act: Act,
    pub to: Option<State>,
    pub emits: Option<TokenKind>,
    pub hook: Option<Hook>,
}

const fn rule(test: Test, act: Act, to: Option<State>) -> Rule {
    Rule {
        test,
        act,
        to,
        emits: None,
        hook: None,
    }
}

/// Take the character, into `to`.
const fn go(test: Test, to: State) -> Rule {
    rule(test, Act::Next, Some(to))
}

/// Take the character, same state.
const fn stay(test: Test) -> Rule {
    rule(test, Act::Next, None)
}

const fn push(test: Test, to: State) -> Rule {
    rule(test, Act::Push, Some(to))
}

const fn pop(test: Test) -> Rule {
    rule(test, Act::Pop, None)
}

const fn clear(test: Test, to: State) -> Rule {
    rule(test, Act::Clear, Some(to))
}

/// The token so far is a `kind`; the next one starts in `to`.
const fn emit(test: Test, kind: TokenKind, to: State) -> Rule {
    Rule {
        emits: Some(kind),
        ..rule(test, Act::Next, Some(to))
    }
}

/// As [`emit`], forgetting every saved place.
const fn emit_all(test: Test, kind: TokenKind, to: State) -> Rule {
    Rule {
        emits: Some(kind),
        ..rule(test, Act::ClearAll, Some(to))
    }
}

/// As [`emit`], forgetting the last saved place.
const fn emit_clear(test: Test, kind: TokenKind, to: State) -> Rule {
    Rule {
        emits: Some(kind),
        ..rule(test, Act::Clear, Some(to))
    }
}

const fn hooked(r: Rule, hook: Hook) -> Rule {
    Rule {
        hook: Some(hook),
        ..r
    }
}

/// The rules of `state`, in order.
pub(crate) fn rules(state: State) -> &'static [Rule] {
    use State as S;
    use Test::*;
    use TokenKind as K;
    match state {
        S::Base => {
            const {
                &[
                    stay(End),
                    push(Is('<'), S::TagFirst),
                    go(Ignoring, S::Space),
                    go(AsciiLetter, S::AsciiWord),
                    go(Alpha, S::Word),
                    go(Digit, S::UnsignedInt),
                    push(Is('-'), S::SignedIntFirst),
                    push(Is('+'), S::SignedIntFirst),
                    push(Is('&'), S::EntityFirst),
                    push(Is('~'), S::FileTwiddle),
                    push(Is('/'), S::FileFirst),
                    push(Is('.'), S::PathFirstFirst),
                    go(Always, S::Space),
                ]
            }
        }
        S::NumWord => {
            const {
                &[
                    emit(End, K::NumWord, S::Base),
                    go(Alnum, S::NumWord),
                    go(Special, S::NumWord),
                    push(Is('@'), S::Email),
                    push(Is('/'), S::FileFirst),
                    push(Is('.'), S::FileNext),
                    push(Is('-'), S::HyphenNumWordFirst),
                    emit(Always, K::NumWord, S::Base),
                ]
            }
        }
        S::AsciiWord => {
            const {
                &[
                    emit(End, K::AsciiWord, S::Base),
                    stay(AsciiLetter),
                    push(Is('.'), S::HostFirstDomain),
                    push(Is('.'), S::FileNext),
                    push(Is('-'), S::HostFirstAN),
                    push(Is('-'), S::HyphenAsciiWordFirst),
                    push(Is('_'), S::HostFirstAN),
                    push(Is('@'), S::Email),
                    push(Is(':'), S::ProtocolFirst),
                    push(Is('/'), S::FileFirst),
                    push(Digit, S::Host),
                    go(Digit, S::NumWord),
                    go(Alpha, S::Word),
                    go(Special, S::Word),
                    emit(Always, K::AsciiWord, S::Base),
                ]
            }
        }
        S::Word => {
            const {
                &[
                    emit(End, K::Word, S::Base),
                    stay(Alpha),
                    stay(Special),
                    go(Digit, S::NumWord),
                    push(Is('-'), S::HyphenWordFirst),
                    emit(Always, K::Word, S::Base),
                ]
            }
        }
        S::UnsignedInt => {
            const {
                &[
                    emit(End, K::UInt, S::Base),
                    stay(Digit),
                    push(Is('.'), S::HostFirstDomain),
                    push(Is('.'), S::UDecimalFirst),
                    push(Is('e'), S::MantissaFirst),
                    push(Is('E'), S::MantissaFirst),
                    push(Is('-'), S::HostFirstAN),
                    push(Is('_'), S::HostFirstAN),
                    push(Is('@'), S::Email),
                    push(AsciiLetter, S::Host),
                    go(Alpha, S::NumWord),
                    go(Special, S::NumWord),
                    push(Is('/'), S::FileFirst),
                    emit(Always, K::UInt, S::Base),
                ]
            }
        }
        S::SignedIntFirst => const { &[pop(End), clear(Digit, S::SignedInt), pop(Always)] },
        S::SignedInt => {
            const {
                &[
                    emit(End, K::Int, S::Base),
                    stay(Digit),
                    push(Is('.'), S::DecimalFirst),
                    push(Is('e'), S::MantissaFirst),
                    push(Is('E'), S::MantissaFirst),
                    emit(Always, K::Int, S::Base),
                ]
            }
        }
        S::Space => {
            const {
                &[
                    emit(End, K::Blank, S::Base),
                    emit(Is('<'), K::Blank, S::Base),
                    stay(Ignoring),
                    emit(Is('-'), K::Blank, S::Base),
                    emit(Is('+'), K::Blank, S::Base),
                    emit(Is('&'), K::Blank, S::Base),
                    emit(Is('/'), K::Blank, S::Base),
                    go(NotAlnum, S::Space),
                    emit(Always, K::Blank, S::Base),
                ]
            }
        }
        S::UDecimalFirst => const { &[pop(End), clear(Digit, S::UDecimal), pop(Always)] },
        S::UDecimal => {
            const {
                &[
                    emit(End, K::Float, S::Base),
                    stay(Digit),
                    push(Is('.'), S::VersionFirst),
                    push(Is('e'), S::MantissaFirst),
                    push(Is('E'), S::MantissaFirst),
                    emit(Always, K::Float, S::Base),
                ]
            }
        }
        S::DecimalFirst => const { &[pop(End), clear(Digit, S::Decimal), pop(Always)] },
        S::Decimal => {
            const {
                &[
                    emit(End, K::Float, S::Base),
                    stay(Digit),
                    push(Is('.'), S::VerVersion),
                    push(Is('e'), S::MantissaFirst),
                    push(Is('E'), S::MantissaFirst),
                    emit(Always, K::Float, S::Base),
                ]
            }
        }
        S::VerVersion => {
            const {
                &[
                    pop(End),
                    hooked(
                        rule(Digit, Act::Rerun, Some(S::SVerVersion)),
                        Hook::SignedVersion,
                    ),
                    pop(Always),
                ]
            }
        }
        S::SVerVersion => {
            const {
                &[
                    pop(End),
                    emit_all(Digit, K::Blank, S::UnsignedInt),
                    stay(Always),
                ]
            }
        }
        S::VersionFirst => const { &[pop(End), clear(Digit, S::Version), pop(Always)] },
        S::Version => {
            const {
                &[
                    emit(End, K::Version, S::Base),
                    stay(Digit),
                    push(Is('.'), S::VersionFirst),
                    emit(Always, K::Version, S::Base),
                ]
            }
        }
        S::MantissaFirst => {
            const {
                &[
                    pop(End),
                    clear(Digit, S::Mantissa),
                    go(Is('+'), S::MantissaSign),
                    go(Is('-'), S::MantissaSign),
                    pop(Always),
                ]
            }
        }
        S::MantissaSign => const { &[pop(End), clear(Digit, S::Mantissa), pop(Always)] },
        S::Mantissa => {
            const {
                &[
                    emit(End, K::SFloat, S::Base),
                    stay(Digit),
                    emit(Always, K::SFloat, S::Base),
                ]
            }
        }
        S::EntityFirst => {
            const {
                &[
                    pop(End),
                    go(Is('#'), S::EntityNumFirst),
                    go(AsciiLetter, S::Entity),
                    go(Is(':'), S::Entity),
                    go(Is('_'), S::Entity),
                    pop(Always),
                ]
            }
        }
        S::Entity => {
            const {
                &[
                    pop(End),
                    stay(Alnum),
                    stay(Is(':')),
                    stay(Is('_')),
                    stay(Is('.')),
                    stay(Is('-')),
                    go(Is(';'), S::EntityEnd),
                    pop(Always),
                ]
            }
        }
        S::EntityNumFirst => {
            const {
                &[
                    pop(End),
                    go(Is('x'), S::EntityHexFirst),
                    go(Is('X'), S::EntityHexFirst),
                    go(Digit, S::EntityNum),
                    pop(Always),
                ]
            }
        }
        S::EntityHexFirst => const { &[pop(End), go(HexDigit, S::EntityHex), pop(Always)] },
        S::EntityNum => {
            const {
                &[
                    pop(End),
                    stay(Digit),
                    go(Is(';'), S::EntityEnd),
                    pop(Always),
                ]
            }
        }
        S::EntityHex => {
            const {
                &[
                    pop(End),
                    stay(HexDigit),
                    go(Is(';'), S::EntityEnd),
                    pop(Always),
                ]
            }
        }
        S::EntityEnd => const { &[emit_clear(Always, K::Entity, S::Base)] },
        S::TagFirst => {
            const {
                &[
                    pop(End),
                    push(Is('/'), S::TagCloseFirst),
                    push(Is('!'), S::CommentFirst),
                    push(Is('?'), S::XmlBegin),
                    push(AsciiLetter, S::TagName),
                    push(Is(':'), S::TagName),
                    push(Is('_'), S::TagName),
                    pop(Always),
                ]
            }
        }
        S::XmlBegin => const { &[pop(End), go(Is('x'), S::Tag), pop(Always)] },
        S::TagCloseFirst => const { &[pop(End), go(AsciiLetter, S::TagName), pop(Always)] },
        S::TagName => {
            const {
                &[
                    pop(End),
                    go(Is('/'), S::TagBeginEnd),
                    hooked(go(Is('>'), S::TagEnd), Hook::TagName),
                    hooked(go(Space, S::Tag), Hook::TagName),
                    stay(Alnum),
                    stay(Is(':')),
                    stay(Is('_')),
                    stay(Is('.')),
                    stay(Is('-')),
                    pop(Always),
                ]
            }
        }
        S::TagBeginEnd => const { &[pop(End), go(Is('>'), S::TagEnd), pop(Always)] },
        S::Tag => {
            const {
                &[
                    pop(End),
                    hooked(go(Is('>'), S::TagEnd), Hook::TagName),
                    go(Is('\''), S::TagQuoted),
                    go(Is('"'), S::TagDoubleQuoted),
                    stay(AsciiLetter),
                    stay(Digit),
                    stay(Is('=')),
                    stay(Is('-')),
                    stay(Is('_')),
                    stay(Is('#')),
                    stay(Is('/')),
                    stay(Is(':')),
                    stay(Is('.')),
                    stay(Is('&')),
                    stay(Is('?')),
                    stay(Is('%')),
                    stay(Is('~')),
                    hooked(stay(Space), Hook::TagName),
                    pop(Always),
                ]
            }
        }
        S::TagQuoted => {
            const {
                &[
                    pop(End),
                    push(Is('\\'), S::TagBackslashed),
                    go(Is('\''), S::Tag),
                    go(Always, S::TagQuoted),
                ]
            }
        }
        S::TagDoubleQuoted => {
            const {
                &[
                    pop(End),
                    push(Is('\\'), S::TagBackslashed),
                    go(Is('"'), S::Tag),
                    go(Always, S::TagDoubleQuoted),
                ]
            }
        }
        S::TagBackslashed => const { &[pop(End), rule(Always, Act::Merge, None)] },
        S::TagEnd => const { &[emit_all(Always, K::Tag, S::Base)] },
        S::CommentFirst => {
            const {
                &[
                    pop(End),
                    go(Is('-'), S::CommentLast),
                    go(Is('D'), S::Tag),
                    go(Is('d'), S::Tag),
                    pop(Always),
                ]
            }
        }
        S::CommentLast => const { &[pop(End), go(Is('-'), S::Comment), pop(Always)] },
        S::Comment => const { &[pop(End), go(Is('-'), S::CloseCommentFirst), stay(Always)] },
        S::CloseCommentFirst => {
            const {
                &[
                    pop(End),
                    go(Is('-'), S::CloseCommentLast),
                    go(Always, S::Comment),
                ]
            }
        }
        S::CloseCommentLast => {
            const {
                &[
                    pop(End),
                    stay(Is('-')),
                    go(Is('>'), S::CommentEnd),
                    go(Always, S::Comment),
                ]
            }
        }
        S::CommentEnd => const { &[emit_all(Always, K::Tag, S::Base)] },
        S::HostFirstDomain => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::HostDomainSecond),
                    go(Digit, S::Host),
                    pop(Always),
                ]
            }
        }
        S::HostDomainSecond => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::HostDomain),
                    push(Digit, S::Host),
                    push(Is('-'), S::HostFirstAN),
                    push(Is('_'), S::HostFirstAN),
                    push(Is('.'), S::HostFirstDomain),
                    push(Is('@'), S::Email),
                    pop(Always),
                ]
            }
        }
        S::HostDomain => {
            const {
                &[
                    emit_all(End, K::Host, S::Base),
                    go(AsciiLetter, S::HostDomain),
                    push(Digit, S::Host),
                    push(Is(':'), S::PortFirst),
                    push(Is('-'), S::HostFirstAN),
                    push(Is('_'), S::HostFirstAN),
                    push(Is('.'), S::HostFirstDomain),
                    push(Is('@'), S::Email),
                    pop(Digit),
                    emit_all(HostStop, K::Host, S::UrlPathStart),
                    push(Is('/'), S::FullUrl),
                    emit_all(Always, K::Host, S::Base),
                ]
            }
        }
        S::PortFirst => const { &[pop(End), go(Digit, S::Port), pop(Always)] },
        S::Port => {
            const {
                &[
                    emit_all(End, K::Host, S::Base),
                    go(Digit, S::Port),
                    emit_all(HostStop, K::Host, S::UrlPathStart),
                    push(Is('/'), S::FullUrl),
                    emit_all(Always, K::Host, S::Base),
                ]
            }
        }
        S::HostFirstAN => {
            const {
                &[
                    pop(End),
                    go(Digit, S::Host),
                    go(AsciiLetter, S::Host),
                    pop(Always),
                ]
            }
        }
        S::Host => {
            const {
                &[
                    pop(End),
                    go(Digit, S::Host),
                    go(AsciiLetter, S::Host),
                    push(Is('@'), S::Email),
                    push(Is('.'), S::HostFirstDomain),
                    push(Is('-'), S::HostFirstAN),
                    push(Is('_'), S::HostFirstAN),
                    pop(Always),
                ]
            }
        }
        S::Email => {
            const {
                &[
                    pop(HostStop),
                    emit_all(HostFollows, K::Email, S::Base),
                    pop(Always),
                ]
            }
        }
        S::FileFirst => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::File),
                    go(Digit, S::File),
                    go(Is('.'), S::PathFirst),
                    go(Is('_'), S::File),
                    push(Is('~'), S::FileTwiddle),
                    pop(Always),
                ]
            }
        }
        S::FileTwiddle => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::File),
                    go(Digit, S::File),
                    go(Is('_'), S::File),
                    go(Is('/'), S::FileFirst),
                    pop(Always),
                ]
            }
        }
        S::PathFirst => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::File),
                    go(Digit, S::File),
                    go(Is('_'), S::File),
                    go(Is('.'), S::PathSecond),
                    go(Is('/'), S::FileFirst),
                    pop(Always),
                ]
            }
        }
        S::PathFirstFirst => {
            const {
                &[
                    pop(End),
                    go(Is('.'), S::PathSecond),
                    go(Is('/'), S::FileFirst),
                    pop(Always),
                ]
            }
        }
        S::PathSecond => {
            const {
                &[
                    emit_clear(End, K::File, S::Base),
                    push(Is('/'), S::FileFirst),
                    emit_clear(Is('/'), K::File, S::Base),
                    emit_clear(Space, K::File, S::Base),
                    pop(Always),
                ]
            }
        }
        S::File => {
            const {
                &[
                    emit(End, K::File, S::Base),
                    go(AsciiLetter, S::File),
                    go(Digit, S::File),
                    push(Is('.'), S::FileNext),
                    go(Is('_'), S::File),
                    go(Is('-'), S::File),
                    push(Is('/'), S::FileFirst),
                    emit(Always, K::File, S::Base),
                ]
            }
        }
        S::FileNext => {
            const {
                &[
                    pop(End),
                    clear(AsciiLetter, S::File),
                    clear(Digit, S::File),
                    clear(Is('_'), S::File),
                    pop(Always),
                ]
            }
        }
        S::UrlPathFirst => const { &[pop(End), go(UrlChar, S::UrlPath), pop(Always)] },
        S::UrlPathStart => const { &[go(Always, S::UrlPath)] },
        S::UrlPath => {
            const {
                &[
                    emit(End, K::UrlPath, S::Base),
                    go(UrlChar, S::UrlPath),
                    emit(Always, K::UrlPath, S::Base),
                ]
            }
        }
        S::FullUrl => {
            const {
                &[
                    pop(End),
                    hooked(emit_all(UrlPathFollows, K::Url, S::Base), Hook::FullUrl),
                    pop(Always),
                ]
            }
        }
        S::ProtocolFirst => const { &[pop(End), go(Is('/'), S::ProtocolSecond), pop(Always)] },
        S::ProtocolSecond => const { &[pop(End), go(Is('/'), S::ProtocolEnd), pop(Always)] },
        S::ProtocolEnd => const { &[emit_all(Always, K::Protocol, S::Base)] },
        S::HyphenAsciiWordFirst => {
            const {
                &[
                    pop(End),
                    go(AsciiLetter, S::HyphenAsciiWord),
                    go(Alpha, S::HyphenWord),
                    go(Digit, S::HyphenDigitLookahead),
                    pop(Always),
                ]
            }
        }
        S::HyphenAsciiWord => {
            const {
                &[
                    hooked(emit_all(End, K::AsciiHWord, S::ParseHyphen), Hook::Hyphen),
                    go(AsciiLetter, S::HyphenAsciiWord),
                    go(Alpha, S::HyphenWord),
                    go(Special, S::HyphenWord),
                    go(Digit, S::HyphenNumWord),
                    push(Is('-'), S::HyphenAsciiWordFirst),
                    hooked(
                        emit_all(Always, K::AsciiHWord, S::ParseHyphen),
                        Hook::Hyphen,
                    ),
                ]
            }
        }
        S::HyphenWordFirst => {
            const {
                &[
                    pop(End),
                    go(Alpha, S::HyphenWord),
                    go(Digit, S::HyphenDigitLookahead),
                    pop(Always),
                ]
            }
        }
        S::HyphenWord => {
            const {
                &[
                    hooked(emit_all(End, K::HWord, S::ParseHyphen), Hook::Hyphen),
                    go(Alpha, S::HyphenWord),
                    go(Special, S::HyphenWord),
                    go(Digit, S::HyphenNumWord),
                    push(Is('-'), S::HyphenWordFirst),
                    hooked(emit_all(Always, K::HWord, S::ParseHyphen), Hook::Hyphen),
                ]
            }
        }
        S::HyphenNumWordFirst => {
            const {
                &[
                    pop(End),
                    go(Alpha, S::HyphenNumWord),
                    go(Digit, S::HyphenDigitLookahead),
                    pop(Always),
                ]
            }
        }
        S::HyphenNumWord => {
            const {
                &[
                    hooked(emit_all(End, K::NumHWord, S::ParseHyphen), Hook::Hyphen),
                    go(Alnum, S::HyphenNumWord),
                    go(Special, S::HyphenNumWord),
                    push(Is('-'), S::HyphenNumWordFirst),
                    hooked(emit_all(Always, K::NumHWord, S::ParseHyphen), Hook::Hyphen),
                ]
            }
        }
        S::HyphenDigitLookahead => {
            const {
                &[
                    pop(End),
                    go(Digit, S::HyphenDigitLookahead),
                    go(Alpha, S::HyphenNumWord),
                    go(Special, S::HyphenNumWord),
                    pop(Always),
                ]
            }
        }
        S::ParseHyphen => {
            const {
                &[
                    rule(End, Act::Rerun, Some(S::Base)),
                    go(AsciiLetter, S::HyphenAsciiWordPart),
                    go(Alpha, S::HyphenWordPart),
                    push(Digit, S::HyphenUnsignedInt),
                    push(Is('-'), S::ParseHyphenHyphen),
                    rule(Always, Act::Rerun, Some(S::Base)),
                ]
            }
        }
        S::ParseHyphenHyphen => {
            const {
                &[
                    pop(End),
                    emit_clear(Alnum, K::Blank, S::ParseHyphen),
                    emit_clear(Special, K::Blank, S::ParseHyphen),
                    pop(Always),
                ]
            }
        }
        S::HyphenWordPart => {
            const {
                &[
                    emit(End, K::HWordPart, S::Base),
                    go(Alpha, S::HyphenWordPart),
                    go(Special, S::HyphenWordPart),
                    go(Digit, S::HyphenNumWordPart),
                    emit(Always, K::HWordPart, S::ParseHyphen),
                ]
            }
        }
        S::HyphenAsciiWordPart => {
            const {
                &[
                    emit(End, K::HWordAsciiPart, S::Base),
                    go(AsciiLetter, S::HyphenAsciiWordPart),
                    go(Alpha, S::HyphenWordPart),
                    go(Special, S::HyphenWordPart),
                    go(Digit, S::HyphenNumWordPart),
                    emit(Always, K::HWordAsciiPart, S::ParseHyphen),
                ]
            }
        }
        S::HyphenNumWordPart => {
            const {
                &[
                    emit(End, K::HWordNumPart, S::Base),
                    go(Alnum, S::HyphenNumWordPart),
                    go(Special, S::HyphenNumWordPart),
                    emit(Always, K::HWordNumPart, S::ParseHyphen),
                ]
            }
        }
        S::HyphenUnsignedInt => {
            const {
                &[
                    pop(End),
                    stay(Digit),
                    clear(Alpha, S::HyphenNumWordPart),
                    clear(Special, S::HyphenNumWordPart),
                    pop(Always),
                ]
            }
        }
    }
}
