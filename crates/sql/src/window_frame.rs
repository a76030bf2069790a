//! Window frames (PostgreSQL's frame clause): which rows of its partition
//! a window call reads for each row. Aggregates over a window and
//! `first_value`, `last_value`, `nth_value` read their frame; the other
//! window functions (`row_number`, `rank`, `lag`, ...) ignore it.
//!
//! **Units and bounds.** `ROWS`, `RANGE` or `GROUPS` `[BETWEEN] start
//! [AND end]`, each bound `UNBOUNDED PRECEDING`, `offset PRECEDING`,
//! `CURRENT ROW`, `offset FOLLOWING` or `UNBOUNDED FOLLOWING` (written
//! without BETWEEN, the end is `CURRENT ROW`). A frame is positions `[start,
//! end)` of the partition in the window's order (empty when the end falls
//! before the start):
//!
//! | units    | offset counts               | `CURRENT ROW` is          |
//! |----------|-----------------------------|---------------------------|
//! | `ROWS`   | rows                        | the row                   |
//! | `GROUPS` | peer groups                 | the row's peer group      |
//! | `RANGE`  | distance in the ORDER BY value | the row's peer group   |
//!
//! Peers are rows equal in the window's ORDER BY keys (NULLs equal); without
//! ORDER BY the whole partition is one peer group. `GROUPS` needs an ORDER
//! BY, a `RANGE` offset exactly one ORDER BY column (a number for a numeric
//! column, an interval for a date, timestamp, time or interval; PostgreSQL's `in_range`): a
//! row whose value is NULL has its NULL peers as such a bound, and NULL
//! rows are never within an offset of a value. A `ROWS` or `GROUPS` offset
//! is an expression without columns whose type casts to bigint; every
//! offset is evaluated once per run of the query ([`Frame::extent`],
//! PostgreSQL's `calculate_frame_offsets`: 22004 if NULL, 22013 if a count
//! is negative). The default frame is PostgreSQL's: `RANGE BETWEEN
//! UNBOUNDED PRECEDING AND CURRENT ROW`. The checks are PostgreSQL's, each
//! in one function: the bounds' order (its grammar's, [`check_bounds`]),
//! then the ORDER BY a mode needs, then the offsets' types, then at run
//! their values.
//!
//! **EXCLUDE.** `EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS` takes rows
//! out of each row's frame: the row, its peer group, or its peers but not
//! itself. An aggregate reads the frame without them (up to three ranges,
//! [`Exclude::segments`]). `first_value`/`last_value`/`nth_value` find
//! their row by PostgreSQL's arithmetic (`WinGetFuncArgInFrame`,
//! [`Exclude::seek`]), which assumes the current row lies in its frame:
//! where it does not (a `ROWS` frame that starts after the current row
//! among its peers, `EXCLUDE TIES`), PostgreSQL answers NULL or a row
//! further on, and so does folio.
//!
//! sqlparser 0.59 reads no EXCLUDE clause: [`rewrite_frames`] takes it out
//! of the tokens and leaves a marker (`$exclude:ties`, not a token a
//! client can write) first in its window's PARTITION BY, which
//! [`take_exclusion`] takes back out when the window is bound.
//!
//! **Cost.** Without exclusion, a frame that starts at the partition's
//! start is aggregated as it grows, and another frame is aggregated again
//! only when it differs from the previous row's (`window.rs`); with an
//! exclusion each row's frame is aggregated afresh unless its ranges are
//! the previous row's, as PostgreSQL restarts its aggregates.

use crate::error::SqlError;
use crate::names;
use crate::scalar::{self, Columns, Env, Scalar};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    BinaryOperator, Expr, Spanned, ValueWithSpan, WindowFrame, WindowFrameBound, WindowFrameUnits,
    WindowSpec,
};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// How a frame's offsets count (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    Rows,
    Range,
    Groups,
}

impl Units {
    /// Its SQL keyword.
    fn name(self) -> &'static str {
        match self {
            Units::Rows => "ROWS",
            Units::Range => "RANGE",
            Units::Groups => "GROUPS",
        }
    }
}

/// A frame bound, its offset `O` as bound ([`Offset`]) or as evaluated for
/// one run ([`Amount`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Bound<O = Offset> {
    UnboundedPreceding,
    Preceding(O),
    CurrentRow,
    Following(O),
    UnboundedFollowing,
}

impl<O> Bound<O> {
    /// The bound with its offset (if any) converted by `f`.
    fn try_map<P>(&self, f: impl FnOnce(&O) -> Result<P, SqlError>) -> Result<Bound<P>, SqlError> {
        Ok(match self {
            Bound::UnboundedPreceding => Bound::UnboundedPreceding,
            Bound::Preceding(o) => Bound::Preceding(f(o)?),
            Bound::CurrentRow => Bound::CurrentRow,
            Bound::Following(o) => Bound::Following(f(o)?),
            Bound::UnboundedFollowing => Bound::UnboundedFollowing,
        })
    }

    /// Its offset and direction (`true`: following), if it has one.
    fn offset(&self) -> Option<(&O, bool)> {
        match self {
            Bound::Preceding(o) => Some((o, false)),
            Bound::Following(o) => Some((o, true)),
            _ => None,
        }
    }
}

/// How far a bound lies from the current row, as bound: an expression
/// without columns (a constant or a parameter), evaluated at each run.
#[derive(Debug, Clone, PartialEq)]
pub enum Offset {
    /// `ROWS`, `GROUPS`: a number of rows or peer groups, as bigint.
    Count(Scalar),
    /// `RANGE`: a distance in the ORDER BY column's values, cast to the
    /// type given.
    Range(Scalar, SqlType),
}

/// An offset's value for one run.
#[derive(Debug, Clone, PartialEq)]
pub enum Amount {
    Rows(usize),
    Groups(usize),
    /// `RANGE`'s distance.
    Distance(Value),
}

/// The rows `EXCLUDE` takes out of each row's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclude {
    NoOthers,
    CurrentRow,
    /// The current row's peer group.
    Group,
    /// Its peers but not itself.
    Ties,
}

/// The exclusions by the words that follow `EXCLUDE`.
const EXCLUSIONS: [(&str, Exclude); 4] = [
    ("current row", Exclude::CurrentRow),
    ("group", Exclude::Group),
    ("ties", Exclude::Ties),
    ("no others", Exclude::NoOthers),
];

/// A window frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub units: Units,
    pub start: Bound,
    pub end: Bound,
    pub exclude: Exclude,
}

impl Frame {
    /// PostgreSQL's default: `RANGE BETWEEN UNBOUNDED PRECEDING AND
    /// CURRENT ROW`.
    pub const DEFAULT: Frame = Frame {
        units: Units::Range,
        start: Bound::UnboundedPreceding,
        end: Bound::CurrentRow,
        exclude: Exclude::NoOthers,
    };

    /// A window's frame: its frame clause (`None`: the default) and
    /// exclusion ([`take_exclusion`]), with PostgreSQL's checks, over a
    /// window whose ORDER BY keys are of types `order`, in a query over
    /// `columns` (which an offset may not read).
    pub fn bind(
        clause: Option<&WindowFrame>,
        exclude: Exclude,
        order: &[SqlType],
        columns: &(impl Columns + ?Sized),
    ) -> Result<Frame, SqlError> {
        let Some(clause) = clause else {
            return match exclude {
                Exclude::NoOthers => Ok(Frame::DEFAULT),
                // Only a frame may end in EXCLUDE ([`rewrite_frames`]
                // marks only those, but a column may be named `preceding`).
                _ => Err(SqlError::syntax("syntax error at or near \"EXCLUDE\"")),
            };
        };
        check_bounds(&clause.start_bound, clause.end_bound.as_ref())?;
        let units = match clause.units {
            WindowFrameUnits::Rows => Units::Rows,
            WindowFrameUnits::Range => Units::Range,
            WindowFrameUnits::Groups => Units::Groups,
        };
        if units == Units::Groups && order.is_empty() {
            return Err(windowing_error("GROUPS mode requires an ORDER BY clause"));
        }
        // An offset's type errors point at it (a RANGE without one ORDER
        // BY key is about the window, which sqlparser keeps no location
        // of).
        let offset = |e: &Expr| -> Result<Offset, SqlError> {
            let offset = bind_offset(e, units, columns)?;
            match units {
                Units::Range => range_offset(offset, order),
                _ => count_offset(offset, units),
            }
            .map_err(|err| match err.code {
                "42P20" => err,
                _ => err.near(Some(e.span().start)),
            })
        };
        let bound = |b: &WindowFrameBound| -> Result<Bound, SqlError> {
            Ok(match b {
                WindowFrameBound::CurrentRow => Bound::CurrentRow,
                WindowFrameBound::Preceding(None) => Bound::UnboundedPreceding,
                WindowFrameBound::Following(None) => Bound::UnboundedFollowing,
                WindowFrameBound::Preceding(Some(e)) => Bound::Preceding(offset(e)?),
                WindowFrameBound::Following(Some(e)) => Bound::Following(offset(e)?),
            })
        };
        Ok(Frame {
            units,
            start: bound(&clause.start_bound)?,
            end: match &clause.end_bound {
                Some(b) => bound(b)?,
                None => Bound::CurrentRow,
            },
            exclude,
        })
    }

    /// Whether a bound is a `RANGE` offset (which needs the ORDER BY
    /// values).
    pub fn has_range_offset(&self) -> bool {
        let ranged = |b: &Bound| matches!(b.offset(), Some((Offset::Range(..), _)));
        ranged(&self.start) || ranged(&self.end)
    }

    /// The frame with its offsets evaluated for this run, as PostgreSQL's
    /// `calculate_frame_offsets`: the start's then the end's, 22004 if
    /// NULL, 22013 if a count is negative (a negative `RANGE` distance is
    /// refused where it is used, [`Extent::frames`]).
    pub fn extent(&self, env: &Env<'_>) -> Result<Extent, SqlError> {
        let amount = |bound: &Bound, which: &str| {
            bound.try_map(|offset| {
                let (e, ty) = match offset {
                    Offset::Count(e) => (e, SqlType::Int8),
                    Offset::Range(e, ty) => (e, *ty),
                };
                let value = match e.eval(&[], env)? {
                    Value::Null => {
                        return Err(SqlError::new(
                            "22004",
                            format!("frame {which} offset must not be null"),
                        ));
                    }
                    v => crate::types::cast(v, ty)?,
                };
                let count = match (offset, &value) {
                    (Offset::Range(..), _) => return Ok(Amount::Distance(value)),
                    (Offset::Count(_), Value::Int8(n)) => *n,
                    (Offset::Count(_), other) => unreachable!("cast to bigint: {other:?}"),
                };
                let count = usize::try_from(count).map_err(|_| {
                    SqlError::new(
                        "22013",
                        format!("frame {which} offset must not be negative"),
                    )
                })?;
                Ok(match self.units {
                    Units::Groups => Amount::Groups(count),
                    _ => Amount::Rows(count),
                })
            })
        };
        Ok(Extent {
            units: self.units,
            start: amount(&self.start, "starting")?,
            end: amount(&self.end, "ending")?,
            exclude: self.exclude,
        })
    }
}

/// PostgreSQL's 42P20.
fn windowing_error(message: impl Into<String>) -> SqlError {
    SqlError::new("42P20", message)
}

/// PostgreSQL's rules for the order of a frame's bounds (its grammar's,
/// 42P20); `end` is `None` when written without BETWEEN (it is then
/// CURRENT ROW). The error points at the bound it is about, as
/// PostgreSQL's, where the bound has an offset expression to place it by
/// (sqlparser keeps no location of `CURRENT ROW` or `UNBOUNDED`).
fn check_bounds(start: &WindowFrameBound, end: Option<&WindowFrameBound>) -> Result<(), SqlError> {
    use WindowFrameBound::{CurrentRow, Following, Preceding};
    let (message, bound) = match (start, end) {
        (Following(None), _) => ("frame start cannot be UNBOUNDED FOLLOWING", start),
        (Following(Some(_)), None) => (
            "frame starting from following row cannot end with current row",
            start,
        ),
        (_, Some(end @ Preceding(None))) => ("frame end cannot be UNBOUNDED PRECEDING", end),
        (CurrentRow, Some(end @ Preceding(Some(_)))) => (
            "frame starting from current row cannot have preceding rows",
            end,
        ),
        (Following(Some(_)), Some(end @ (Preceding(Some(_)) | CurrentRow))) => (
            "frame starting from following row cannot have preceding rows",
            end,
        ),
        _ => return Ok(()),
    };
    let at = match bound {
        Preceding(Some(offset)) | Following(Some(offset)) => Some(offset.span().start),
        _ => None,
    };
    Err(windowing_error(message).near(at))
}

/// A bound's offset expression, bound over no columns (42P10 if it reads
/// one of the query's `columns`).
fn bind_offset(
    e: &Expr,
    units: Units,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let none: &[SqlType] = &[];
    match scalar::bind(e, none) {
        Err(_) if scalar::bind(e, columns).is_ok() => Err(SqlError::new(
            "42P10",
            format!("argument of {} must not contain variables", units.name()),
        )
        .near(Some(e.span().start))),
        bound => bound,
    }
}

/// A `ROWS` or `GROUPS` offset: PostgreSQL coerces it to bigint by
/// assignment (42804 for a type that does not).
fn count_offset(offset: Scalar, units: Units) -> Result<Offset, SqlError> {
    let none: &[SqlType] = &[];
    match &offset {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => {}
        typed => {
            let ty = typed.ty_in(none);
            if !crate::types::assignment_cast(ty, SqlType::Int8) {
                return Err(SqlError::new(
                    "42804",
                    format!(
                        "argument of {} must be type bigint, not type {}",
                        units.name(),
                        crate::explain::type_name(ty)
                    ),
                ));
            }
        }
    }
    Ok(Offset::Count(offset))
}

/// A `RANGE` bound's offset over one ORDER BY key of type `order[0]`: a
/// number for a numeric key (an integer for an integer key), an interval
/// for a date, timestamp, time or interval key, as PostgreSQL's `in_range` functions take
/// (0A000 for other pairs; a quoted literal takes the offset's type).
fn range_offset(offset: Scalar, order: &[SqlType]) -> Result<Offset, SqlError> {
    let [key] = order else {
        return Err(windowing_error(
            "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
        ));
    };
    let none: &[SqlType] = &[];
    let given = match &offset {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        other => Some(other.ty_in(none)),
    };
    let integer = |t: SqlType| matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8);
    let number = |t: SqlType| {
        integer(t) || matches!(t, SqlType::Numeric(_) | SqlType::Float4 | SqlType::Float8)
    };
    let wanted = match *key {
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 => Some(SqlType::Int8),
        SqlType::Numeric(_) => Some(SqlType::Numeric(None)),
        SqlType::Float4 | SqlType::Float8 => Some(SqlType::Float8),
        SqlType::Date
        | SqlType::Timestamp(_)
        | SqlType::TimestampTz(_)
        | SqlType::Time(_)
        | SqlType::TimeTz(_)
        | SqlType::Interval(_) => Some(SqlType::Interval(None)),
        _ => None,
    };
    let fits = match (wanted, given) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(SqlType::Int8), Some(g)) => integer(g),
        (Some(SqlType::Interval(_)), Some(g)) => matches!(g, SqlType::Interval(_)),
        // A float does not cast to numeric implicitly (PostgreSQL has no
        // `in_range` of numeric and float8).
        (Some(SqlType::Numeric(_)), Some(g)) => integer(g) || matches!(g, SqlType::Numeric(_)),
        (Some(_), Some(g)) => number(g),
    };
    match (wanted, fits) {
        (Some(ty), true) => Ok(Offset::Range(offset, ty)),
        (None, _) => Err(SqlError::new(
            "0A000",
            format!(
                "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {}",
                crate::explain::type_name(*key)
            ),
        )),
        (Some(_), false) => Err(SqlError::new("0A000", format!(
            "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and offset type {}",
            crate::explain::type_name(*key),
            crate::explain::type_name(given.unwrap_or(SqlType::Text))
        ))
        .with_hint("Cast the offset value to an appropriate type.")),
    }
}

/// SQL text printed from a parsed statement (a view's stored query) with
/// each window's EXCLUDE mark ([`rewrite_frames`]) written back as the
/// clause, after the frame: text that [`rewrite_frames`] reads again as
/// the same marks, and that `pg_get_viewdef` shows as PostgreSQL's.
pub fn written_exclusions(text: &str) -> String {
    const LEAD: &str = "PARTITION BY ";
    let mut out = text.to_string();
    let mut from = 0;
    while let Some(found) = out[from..].find(&format!("{LEAD}{EXCLUDE_MARK}")) {
        let at = from + found;
        let name_at = at + LEAD.len() + EXCLUDE_MARK.len();
        let Some(name) =
            (EXCLUSIONS.iter().map(|(n, _)| *n)).find(|n| out[name_at..].starts_with(n))
        else {
            from = name_at;
            continue;
        };
        let name_end = name_at + name.len();
        // Other partition keys follow (`, `), or the clause was the mark's.
        let (cut, removed_end) = if out[name_end..].starts_with(", ") {
            (at + LEAD.len(), name_end + 2)
        } else if out[name_end..].starts_with(' ') {
            (at, name_end + 1)
        } else {
            (at, name_end)
        };
        out.replace_range(cut..removed_end, "");
        // The window's `)`: the first one at its level, outside quotes.
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut close = None;
        for (i, c) in out[cut..].char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') if depth == 0 => {
                    close = Some(cut + i);
                    break;
                }
                (None, ')') => depth -= 1,
                _ => {}
            }
        }
        let Some(close) = close else {
            break;
        };
        let clause = format!(" EXCLUDE {}", name.to_ascii_uppercase());
        out.insert_str(close, &clause);
        from = close + clause.len();
    }
    out
}

/// The marker an `EXCLUDE` clause leaves first in its window's PARTITION
/// BY, followed by the clause's words (`$exclude:ties`). Not a token a
/// client can write.
const EXCLUDE_MARK: &str = "$exclude:";

/// Fills sqlparser 0.59's two gaps in frame clauses on the tokens, before
/// it reads them. Each `EXCLUDE ...` that ends a frame (after `ROW`,
/// `PRECEDING` or `FOLLOWING`, before the `)` of an `OVER (...)` or
/// `WINDOW w AS (...)`) is taken out and marks its window's PARTITION BY
/// instead (`EXCLUDE NO OTHERS`, the default, leaves no mark). A quoted
/// literal that starts a bound is put in parentheses: sqlparser reads
/// `'1' PRECEDING` as an interval, PostgreSQL as a literal of the offset's
/// type. `Err`: the position of the token PostgreSQL's grammar refuses in
/// an EXCLUDE clause.
pub fn rewrite_frames(tokens: &mut Vec<TokenWithSpan>) -> Result<(), usize> {
    // From the end, so that a change after `at` moves no token still to
    // be seen (a mark before it moves them on: `at` follows).
    let mut at = tokens.len();
    while at > 0 {
        at -= 1;
        if is_word(tokens, Some(at), "exclude") && ends_bound(tokens, before(tokens, at)) {
            at += mark_exclusion(tokens, at)?;
        } else if matches!(tokens[at].token, Token::SingleQuotedString(_))
            && starts_bound(tokens, at)
        {
            tokens.insert(at + 1, TokenWithSpan::wrap(Token::RParen));
            tokens.insert(at, TokenWithSpan::wrap(Token::LParen));
        }
    }
    Ok(())
}

/// Whether the token at `at` starts a frame bound: it follows `ROWS`,
/// `RANGE`, `GROUPS`, their `BETWEEN`, or the `AND` after a bound.
fn starts_bound(tokens: &[TokenWithSpan], at: usize) -> bool {
    let units = |at| {
        ["rows", "range", "groups"]
            .iter()
            .any(|w| is_word(tokens, at, w))
    };
    let previous = before(tokens, at);
    let second = previous.and_then(|p| before(tokens, p));
    units(previous)
        || (is_word(tokens, previous, "between") && units(second))
        || (is_word(tokens, previous, "and") && ends_bound(tokens, second))
}

/// Whether the token at `at` can end a frame bound (`ROW`, `PRECEDING`,
/// `FOLLOWING`).
fn ends_bound(tokens: &[TokenWithSpan], at: Option<usize>) -> bool {
    ["row", "preceding", "following"]
        .iter()
        .any(|w| is_word(tokens, at, w))
}

/// Takes the EXCLUDE clause at `at` out of `tokens` and marks its window's
/// PARTITION BY: the number of tokens the mark put before `at`. Tokens
/// that are not a window's (an EXCLUDE in a parenthesized expression) are
/// left to sqlparser's syntax error.
fn mark_exclusion(tokens: &mut Vec<TokenWithSpan>, at: usize) -> Result<usize, usize> {
    let Some((exclude, close)) = exclusion_clause(tokens, at)? else {
        return Ok(0);
    };
    let Some(open) = opening(tokens, close) else {
        return Ok(0);
    };
    if !["over", "as"]
        .iter()
        .any(|w| is_word(tokens, before(tokens, open), w))
    {
        return Ok(0);
    }
    tokens.drain(at..close);
    if exclude == Exclude::NoOthers {
        return Ok(0);
    }
    let name = names::name_in(&EXCLUSIONS, &exclude).expect("every exclusion is named");
    let mark = TokenWithSpan::wrap(Token::Placeholder(format!("{EXCLUDE_MARK}{name}")));
    // After the window's name, which sqlparser takes as any word that is
    // not a keyword.
    let mut first = after(tokens, open);
    if let Some(Token::Word(w)) = first.map(|i| &tokens[i].token)
        && w.keyword == Keyword::NoKeyword
    {
        first = first.and_then(|i| after(tokens, i));
    }
    let by = first
        .filter(|&i| is_word(tokens, Some(i), "partition"))
        .and_then(|i| after(tokens, i))
        .filter(|&i| is_word(tokens, Some(i), "by"));
    let (place, inserted) = match by {
        Some(by) => (by + 1, vec![mark, TokenWithSpan::wrap(Token::Comma)]),
        None => (
            first.unwrap_or(open + 1),
            vec![
                TokenWithSpan::wrap(Token::make_keyword("PARTITION")),
                TokenWithSpan::wrap(Token::make_keyword("BY")),
                mark,
            ],
        ),
    };
    let count = inserted.len();
    tokens.splice(place..place, inserted);
    Ok(count)
}

/// After `EXCLUDE` at `at`: the exclusion its words name and the position
/// of the `)` that follows them (`None` at the tokens' end); `Err`: the
/// first token out of place.
fn exclusion_clause(
    tokens: &[TokenWithSpan],
    at: usize,
) -> Result<Option<(Exclude, usize)>, usize> {
    let Some(first) = after(tokens, at) else {
        return Ok(None);
    };
    // The words a first word needs after it.
    let (exclude, last) = match &tokens[first].token {
        Token::Word(w) if w.quote_style.is_none() => {
            let word = w.value.to_ascii_lowercase();
            let second = match word.as_str() {
                "current" => Some("row"),
                "no" => Some("others"),
                _ => None,
            };
            let last = match second {
                Some(second) => match after(tokens, first) {
                    Some(i) if is_word(tokens, Some(i), second) => i,
                    Some(i) => return Err(i),
                    None => return Ok(None),
                },
                None => first,
            };
            let words = match second {
                Some(second) => format!("{word} {second}"),
                None => word,
            };
            match names::lookup(&EXCLUSIONS, &words) {
                Some(exclude) => (exclude, last),
                None => return Err(first),
            }
        }
        _ => return Err(first),
    };
    match after(tokens, last) {
        Some(close) if tokens[close].token == Token::RParen => Ok(Some((exclude, close))),
        Some(other) => Err(other),
        None => Ok(None),
    }
}

/// The position of the `(` that `)` at `close` closes.
fn opening(tokens: &[TokenWithSpan], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..close).rev() {
        match tokens[i].token {
            Token::RParen => depth += 1,
            Token::LParen if depth == 0 => return Some(i),
            Token::LParen => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The position of the first token after `at` that is not whitespace.
fn after(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    (at + 1..tokens.len()).find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
}

/// The position of the last token before `at` that is not whitespace.
fn before(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    (0..at)
        .rev()
        .find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
}

/// Whether the token at `at` is the unquoted word `word` (lower case).
fn is_word(tokens: &[TokenWithSpan], at: Option<usize>, word: &str) -> bool {
    matches!(at.map(|i| &tokens[i].token), Some(Token::Word(w))
        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Takes the marker [`rewrite_frames`] left out of a window
/// specification's PARTITION BY: its exclusion (none: `NO OTHERS`).
pub fn take_exclusion(spec: &mut WindowSpec) -> Exclude {
    let marked = |e: &Expr| match e {
        Expr::Value(ValueWithSpan {
            value: sqlparser::ast::Value::Placeholder(p),
            ..
        }) => p
            .strip_prefix(EXCLUDE_MARK)
            .and_then(|name| names::lookup(&EXCLUSIONS, name)),
        _ => None,
    };
    match spec.partition_by.first().and_then(marked) {
        Some(exclude) => {
            spec.partition_by.remove(0);
            exclude
        }
        None => Exclude::NoOthers,
    }
}

/// Where a row lies in its partition: its position, and its peer group's
/// number and positions `[peer_start, peer_end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub row: usize,
    pub group: usize,
    pub peer_start: usize,
    pub peer_end: usize,
}

/// One partition's peer groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peers {
    /// Where each group starts, then the partition's length.
    starts: Vec<usize>,
}

impl Peers {
    /// The groups of a partition whose rows' group numbers are `groups`
    /// (equal for peers, growing along the partition).
    pub fn new(groups: &[usize]) -> Peers {
        let mut starts: Vec<usize> = (0..groups.len())
            .filter(|&p| p == 0 || groups[p] != groups[p - 1])
            .collect();
        starts.push(groups.len());
        Peers { starts }
    }

    /// The partition's rows in order.
    pub fn places(&self) -> Vec<Place> {
        let mut out = Vec::with_capacity(self.len());
        for (group, bounds) in self.starts.windows(2).enumerate() {
            out.extend((bounds[0]..bounds[1]).map(|row| Place {
                row,
                group,
                peer_start: bounds[0],
                peer_end: bounds[1],
            }));
        }
        out
    }

    /// The partition's number of rows.
    pub fn len(&self) -> usize {
        *self.starts.last().expect("the length ends the starts")
    }

    /// Where group `group` starts (the partition's end past its last).
    fn start(&self, group: usize) -> usize {
        self.starts[group.min(self.starts.len() - 1)]
    }
}

/// A frame with its offsets' values for one run ([`Frame::extent`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Extent {
    units: Units,
    start: Bound<Amount>,
    end: Bound<Amount>,
    pub exclude: Exclude,
}

/// A partition's first ORDER BY values, in the window's order, for `RANGE`
/// offsets.
pub struct OrderKeys<'a> {
    pub values: &'a [Value],
    pub descending: bool,
    pub nulls_first: bool,
}

impl Extent {
    /// Whether every row's frame starts at the partition's start and
    /// excludes nothing (so it only grows along the partition).
    pub fn grows(&self) -> bool {
        self.start == Bound::UnboundedPreceding && self.exclude == Exclude::NoOthers
    }

    /// Whether a row's frame may start after the partition's start (a
    /// user-defined aggregate's moving mode is for such frames:
    /// `user_aggregates.rs`).
    pub fn head_moves(&self) -> bool {
        self.start != Bound::UnboundedPreceding
    }

    /// Each row's frame as positions `[start, end)` (empty when the end
    /// falls before the start), before exclusion; `keys` for `RANGE`
    /// offsets.
    pub fn frames(
        &self,
        places: &[Place],
        peers: &Peers,
        keys: &OrderKeys<'_>,
    ) -> Result<Vec<(usize, usize)>, SqlError> {
        let has_distance = |b: &Bound<Amount>| matches!(b.offset(), Some((Amount::Distance(_), _)));
        let range = match has_distance(&self.start) || has_distance(&self.end) {
            true => Some(Range::new(keys, self)?),
            false => None,
        };
        Ok(places
            .iter()
            .map(|p| {
                let start = self.position(&self.start, p, peers, true, range.as_ref());
                let end = self.position(&self.end, p, peers, false, range.as_ref());
                (start, end.max(start))
            })
            .collect())
    }

    /// Where `bound` puts the frame's start (`start`) or its end
    /// (exclusive) for the row at `p`; `range` when it has a distance.
    fn position(
        &self,
        bound: &Bound<Amount>,
        p: &Place,
        peers: &Peers,
        start: bool,
        range: Option<&Range<'_>>,
    ) -> usize {
        let n = peers.len();
        // The first row of the frame's start, or the one after its end.
        let past = usize::from(!start);
        match bound {
            Bound::UnboundedPreceding => 0,
            Bound::UnboundedFollowing => n,
            Bound::CurrentRow => match (self.units, start) {
                (Units::Rows, _) => p.row + past,
                (_, true) => p.peer_start,
                (_, false) => p.peer_end,
            },
            Bound::Preceding(Amount::Rows(k)) => (p.row + past).saturating_sub(*k),
            Bound::Following(Amount::Rows(k)) => {
                p.row.saturating_add(*k).saturating_add(past).min(n)
            }
            Bound::Preceding(Amount::Groups(k)) => match p.group.checked_sub(*k) {
                Some(g) => peers.start(g + past),
                None => 0,
            },
            Bound::Following(Amount::Groups(k)) => {
                peers.start(p.group.saturating_add(*k).saturating_add(past))
            }
            Bound::Preceding(Amount::Distance(d)) | Bound::Following(Amount::Distance(d)) => {
                let following = matches!(bound, Bound::Following(_));
                range
                    .expect("built for a distance")
                    .position(d, following, p, start)
            }
        }
    }
}

/// A partition's ORDER BY values for `RANGE` offsets, and where the
/// non-NULL values lie.
struct Range<'a> {
    keys: &'a [Value],
    descending: bool,
    /// The positions of the non-NULL keys, `[a, b)`.
    values: (usize, usize),
}

impl<'a> Range<'a> {
    /// 22013 for a negative distance, as PostgreSQL's `in_range`.
    fn new(keys: &OrderKeys<'a>, extent: &Extent) -> Result<Range<'a>, SqlError> {
        // A time key moves by the offset's time part alone (`moved`).
        let time_key = (keys.values.iter()).any(|k| matches!(k, Value::Time(_) | Value::TimeTz(_)));
        for bound in [&extent.start, &extent.end] {
            if let Some((Amount::Distance(d), _)) = bound.offset() {
                let negative = match d {
                    Value::Interval(i) if time_key => i.micros < 0,
                    Value::Interval(_) => {
                        let zero = Value::Interval(folio_row::Interval::ZERO);
                        scalar::compare(d, &zero)? == Some(std::cmp::Ordering::Less)
                    }
                    // A NaN offset is no size (PostgreSQL's `in_range`).
                    Value::Float4(f) if f.is_nan() => true,
                    Value::Float8(f) if f.is_nan() => true,
                    Value::Numeric(n) if n.is_nan() => true,
                    _ => scalar::compare(d, &Value::Int4(0))? == Some(std::cmp::Ordering::Less),
                };
                if negative {
                    return Err(SqlError::new(
                        "22013",
                        "invalid preceding or following size in window function",
                    ));
                }
            }
        }
        let values = keys.values;
        let nulls = values.iter().filter(|k| matches!(k, Value::Null)).count();
        Ok(Range {
            keys: values,
            descending: keys.descending,
            values: match keys.nulls_first {
                true => (nulls, values.len()),
                false => (0, values.len() - nulls),
            },
        })
    }

    /// Where a bound `distance` before or after (`following`) the row at
    /// `p` puts the frame's start (`start`) or end: the first row not
    /// before (start) or the first row after (end) the current value
    /// moved by the distance, among the non-NULL rows; a NULL row's bound
    /// is its NULL peers'.
    fn position(&self, distance: &Value, following: bool, p: &Place, start: bool) -> usize {
        let value = &self.keys[p.row];
        if matches!(value, Value::Null) {
            return if start { p.peer_start } else { p.peer_end };
        }
        // Moving forward in the window's order adds for an ascending key.
        let op = if following != self.descending {
            BinaryOperator::Plus
        } else {
            BinaryOperator::Minus
        };
        let (a, b) = self.values;
        // An overflowing target lies past every value.
        // (`inf - inf` lies at the frame's far end: before every value for
        // a start, after every value for an end, in the window's order.)
        let Ok(target) = moved(value, &op, distance, start == self.descending) else {
            return if following { b } else { a };
        };
        // Rows in `[a, b)` are ordered: find the first one not before
        // (start) or after (end) the target.
        let (mut lo, mut hi) = (a, b);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let order = scalar::compare(&self.keys[mid], &target)
                .ok()
                .flatten()
                .unwrap_or(std::cmp::Ordering::Equal);
            let order = if self.descending {
                order.reverse()
            } else {
                order
            };
            let left = if start { order.is_lt() } else { order.is_le() };
            if left {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A RANGE key `value` moved by `distance` (`op`: plus or minus), the
/// sum PostgreSQL's `in_range` compares the other keys with. A time or
/// timetz key moves by the interval's time part alone (months and days
/// ignored) and does not wrap around midnight, as `in_range` for time
/// does: a sum past 24:00 lies after every time, one before 00:00 before
/// every time. Other keys take the operator's sum; an infinite key moved
/// by an infinite offset against its sign (`inf - inf`) is `+inf` when
/// `up`, else `-inf`.
fn moved(
    value: &Value,
    op: &BinaryOperator,
    distance: &Value,
    up: bool,
) -> Result<Value, SqlError> {
    let step = |t: i64, by: i64| match op {
        BinaryOperator::Plus => t.saturating_add(by),
        _ => t.saturating_sub(by),
    };
    match (value, distance) {
        (Value::Time(t), Value::Interval(d)) => Ok(Value::Time(step(*t, d.micros))),
        (Value::TimeTz(t), Value::Interval(d)) => Ok(Value::TimeTz(folio_row::TimeTz {
            time: step(t.time, d.micros),
            zone: t.zone,
        })),
        _ => {
            let sum = crate::expr::arithmetic(op, value.clone(), distance.clone())?;
            // `in_range` takes every non-NaN value as within such a
            // bound: the caller's `up` puts the sum past all of them.
            let direction = up;
            Ok(match sum {
                Value::Float8(f) if f.is_nan() && !is_nan(value) => Value::Float8(if direction {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                }),
                Value::Float4(f) if f.is_nan() && !is_nan(value) => Value::Float4(if direction {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                }),
                Value::Numeric(n) if n.is_nan() && !is_nan(value) => {
                    Value::Numeric(folio_row::Numeric::Infinity {
                        negative: !direction,
                    })
                }
                sum => sum,
            })
        }
    }
}

/// Whether `value` is a NaN of a float or numeric.
fn is_nan(value: &Value) -> bool {
    match value {
        Value::Float4(f) => f.is_nan(),
        Value::Float8(f) => f.is_nan(),
        Value::Numeric(n) => n.is_nan(),
        _ => false,
    }
}

/// The row of its frame a function reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seek {
    /// The `n`th from the frame's first (0-based): `first_value`,
    /// `nth_value`.
    Head(usize),
    /// The last: `last_value`.
    Tail,
}

impl Exclude {
    /// The frame `[start, end)` of the row at `p` without the rows this
    /// excludes: up to three ranges, in order (some empty).
    pub fn segments(self, (start, end): (usize, usize), p: &Place) -> [(usize, usize); 3] {
        // The rows `[from, to)` are excluded, but `kept`.
        let (from, to, kept) = match self {
            Exclude::NoOthers => return [(start, end), (end, end), (end, end)],
            Exclude::CurrentRow => (p.row, p.row + 1, None),
            Exclude::Group => (p.peer_start, p.peer_end, None),
            Exclude::Ties => (p.peer_start, p.peer_end, Some(p.row)),
        };
        let within = |a: usize, b: usize| {
            let a = a.clamp(start, end);
            (a, b.clamp(a, end))
        };
        [
            within(start, from),
            kept.map_or((end, end), |r| within(r, r + 1)),
            within(to, end),
        ]
    }

    /// Whether it takes the row at `at` out of the frame of the row at `p`.
    fn excludes(self, at: usize, p: &Place) -> bool {
        let peer = (p.peer_start..p.peer_end).contains(&at);
        match self {
            Exclude::NoOthers => false,
            Exclude::CurrentRow => at == p.row,
            Exclude::Group => peer,
            Exclude::Ties => peer && at != p.row,
        }
    }

    /// The position of the row `seek` reads in the frame `[start, end)` of
    /// the row at `p`, by PostgreSQL's arithmetic (`WinGetFuncArgInFrame`:
    /// it steps over the excluded rows as though the current row were in
    /// the frame), then `None` unless that row is in the frame and not
    /// excluded (its `row_is_in_frame`).
    pub fn seek(self, (start, end): (usize, usize), p: &Place, seek: Seek) -> Option<usize> {
        let signed = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        let (head, tail) = (signed(start), signed(end));
        let (current, group_head, group_tail) =
            (signed(p.row), signed(p.peer_start), signed(p.peer_end));
        let at = match seek {
            Seek::Head(n) => {
                let at = head.saturating_add(signed(n));
                let overlap = group_head.max(head);
                let reaches_group = at >= group_head && group_tail > head;
                match self {
                    Exclude::CurrentRow if at >= current && current >= head => at + 1,
                    Exclude::Group if reaches_group => at + group_tail - overlap,
                    Exclude::Ties if reaches_group && at == overlap => current,
                    Exclude::Ties if reaches_group => at + group_tail - overlap - 1,
                    _ => at,
                }
            }
            Seek::Tail => {
                let at = tail - 1;
                let overlap = group_tail.min(tail);
                let reaches_group = at < group_tail && group_head < tail;
                match self {
                    Exclude::CurrentRow if at <= current && current < tail => at - 1,
                    Exclude::Group if reaches_group => at - (overlap - group_head),
                    Exclude::Ties if reaches_group && at == overlap - 1 => current,
                    Exclude::Ties if reaches_group => at - (overlap - 1 - group_head),
                    _ => at,
                }
            }
        };
        let at = usize::try_from(at)
            .ok()
            .filter(|a| (start..end).contains(a))?;
        (!self.excludes(at, p)).then_some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row `row` of peer groups starting at `starts` (then the length).
    fn place(starts: &[usize], row: usize) -> (Peers, Place) {
        let peers = Peers {
            starts: starts.to_vec(),
        };
        let p = peers.places()[row];
        (peers, p)
    }

    fn extent(units: Units, start: Bound<Amount>, end: Bound<Amount>) -> Extent {
        Extent {
            units,
            start,
            end,
            exclude: Exclude::NoOthers,
        }
    }

    fn frame(e: &Extent, peers: &Peers, p: &Place) -> (usize, usize) {
        let keys = OrderKeys {
            values: &[],
            descending: false,
            nulls_first: false,
        };
        e.frames(std::slice::from_ref(p), peers, &keys).unwrap()[0]
    }

    // Proves ROWS, RANGE and GROUPS bounds land where PostgreSQL's do:
    // rows counted from the row, peer groups counted from its group,
    // clamped to the partition, empty when the end is before the start.
    // Proves a view's text keeps a window's EXCLUDE as the clause, in its
    // place after the frame, whatever else the PARTITION BY holds.
    #[test]
    fn exclusions_are_written_back_as_clauses() {
        assert_eq!(
            written_exclusions(
                "SELECT sum(i) OVER (PARTITION BY $exclude:current row ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t"
            ),
            "SELECT sum(i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM t"
        );
        assert_eq!(
            written_exclusions(
                "SELECT f(x) OVER (w PARTITION BY $exclude:ties, g ORDER BY k ROWS CURRENT ROW), ')' FROM t WINDOW w AS (PARTITION BY $exclude:group ORDER BY coalesce(k, 0) GROUPS 1 PRECEDING)"
            ),
            "SELECT f(x) OVER (w PARTITION BY g ORDER BY k ROWS CURRENT ROW EXCLUDE TIES), ')' FROM t WINDOW w AS (ORDER BY coalesce(k, 0) GROUPS 1 PRECEDING EXCLUDE GROUP)"
        );
        assert_eq!(
            written_exclusions("SELECT '$exclude:x'"),
            "SELECT '$exclude:x'"
        );
    }

    #[test]
    fn bounds_count_rows_or_peer_groups() {
        // Ten rows in groups [0,2) [2,3) [3,6) [6,7) [7,10); row 4.
        let (peers, p) = place(&[0, 2, 3, 6, 7, 10], 4);
        assert_eq!((p.group, p.peer_start, p.peer_end), (2, 3, 6));
        use Amount::{Groups, Rows};
        use Bound::*;
        let rows = |s, e| frame(&extent(Units::Rows, s, e), &peers, &p);
        assert_eq!(rows(Preceding(Rows(1)), Following(Rows(1))), (3, 6));
        assert_eq!(rows(Preceding(Rows(9)), Following(Rows(9))), (0, 10));
        assert_eq!(rows(CurrentRow, UnboundedFollowing), (4, 10));
        assert_eq!(rows(Preceding(Rows(3)), Preceding(Rows(5))), (1, 1));
        let range = |s, e| frame(&extent(Units::Range, s, e), &peers, &p);
        assert_eq!(range(UnboundedPreceding, CurrentRow), (0, 6));
        assert_eq!(range(CurrentRow, UnboundedFollowing), (3, 10));
        let groups = |s, e| frame(&extent(Units::Groups, s, e), &peers, &p);
        assert_eq!(groups(Preceding(Groups(1)), Following(Groups(1))), (2, 7));
        assert_eq!(groups(Preceding(Groups(5)), CurrentRow), (0, 6));
        assert_eq!(groups(Following(Groups(2)), Following(Groups(9))), (7, 10));
        assert_eq!(groups(Following(Groups(3)), UnboundedFollowing), (10, 10));
        assert_eq!(groups(Preceding(Groups(2)), Preceding(Groups(1))), (0, 3));
        assert_eq!(groups(UnboundedPreceding, Preceding(Groups(3))), (0, 0));
        assert_eq!(groups(Preceding(Groups(0)), Following(Groups(0))), (3, 6));
    }

    // Proves an exclusion leaves the frame's other rows, in order.
    #[test]
    fn exclusions_leave_the_other_rows() {
        let (_, p) = place(&[0, 2, 3, 6, 7, 10], 4);
        let all =
            |s: [(usize, usize); 3]| -> Vec<usize> { s.iter().flat_map(|&(a, b)| a..b).collect() };
        assert_eq!(
            all(Exclude::NoOthers.segments((1, 8), &p)),
            [1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(
            all(Exclude::CurrentRow.segments((1, 8), &p)),
            [1, 2, 3, 5, 6, 7]
        );
        assert_eq!(all(Exclude::Group.segments((1, 8), &p)), [1, 2, 6, 7]);
        assert_eq!(all(Exclude::Ties.segments((1, 8), &p)), [1, 2, 4, 6, 7]);
        // A frame inside the peer group, one past the current row.
        assert_eq!(all(Exclude::Ties.segments((5, 6), &p)), Vec::<usize>::new());
        assert_eq!(
            all(Exclude::CurrentRow.segments((5, 5), &p)),
            Vec::<usize>::new()
        );
    }

    // Proves the seek is PostgreSQL's, including where it assumes the
    // current row is in the frame (results checked with PostgreSQL 15:
    // `window_frames.slt`).
    #[test]
    fn seek_steps_over_excluded_rows_as_postgresql() {
        // Rows k = 1 1 1 2 2: groups [0,3) [3,5).
        let (_, first) = place(&[0, 3, 5], 0);
        // ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING EXCLUDE TIES for row
        // 0: the frame [1,4) keeps only row 3, but PostgreSQL's first
        // row is the current row, out of the frame: NULL; its second is 3.
        assert_eq!(Exclude::Ties.seek((1, 4), &first, Seek::Head(0)), None);
        assert_eq!(Exclude::Ties.seek((1, 4), &first, Seek::Head(1)), Some(3));
        assert_eq!(Exclude::Ties.seek((1, 4), &first, Seek::Tail), Some(3));
        assert_eq!(Exclude::Group.seek((1, 4), &first, Seek::Head(0)), Some(3));
        assert_eq!(Exclude::Group.seek((1, 4), &first, Seek::Head(1)), None);
        // ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING EXCLUDE TIES for row 4.
        let (_, last) = place(&[0, 3, 5], 4);
        assert_eq!(Exclude::Ties.seek((1, 4), &last, Seek::Tail), None);
        assert_eq!(Exclude::Ties.seek((1, 4), &last, Seek::Head(1)), Some(2));
        // Without exclusion: the frame's rows.
        assert_eq!(
            Exclude::NoOthers.seek((1, 4), &last, Seek::Head(2)),
            Some(3)
        );
        assert_eq!(Exclude::NoOthers.seek((1, 4), &last, Seek::Head(3)), None);
        assert_eq!(Exclude::NoOthers.seek((2, 2), &last, Seek::Tail), None);
        assert_eq!(Exclude::CurrentRow.seek((2, 5), &last, Seek::Tail), Some(3));
    }
}
