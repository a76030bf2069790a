//! `ALTER TABLE t ALTER [COLUMN] c` changes of an identity column, which
//! sqlparser does not read (`parse.rs` hands their tokens here):
//!
//! - `DROP IDENTITY [IF EXISTS]`: the column's sequence is dropped and
//!   its default (the `nextval` that gives its values) with it; the
//!   column keeps its values and its NOT NULL.
//! - `SET GENERATED { ALWAYS | BY DEFAULT }`, `SET sequence_option`,
//!   `RESTART [[WITH] n]`, one or more in a row: the options and RESTART
//!   are read and applied as ALTER SEQUENCE's on the column's sequence
//!   (`parse::alter_sequence`, `sequences::change`: one owner of those
//!   rules), then GENERATED marks the sequence ALWAYS or not (folio-catalog
//!   `set_identity_always`), which decides whether an INSERT needs
//!   `OVERRIDING SYSTEM VALUE` to give the column a value.
//!
//! An identity column is a column with a `nextval` default whose owned
//! sequence is marked an identity's (`system::identity`): what
//! `pg_attribute.attidentity`, `\d` and `information_schema.columns` show
//! follows from the sequence, so these changes need nothing else.
//!
//! Errors in PostgreSQL 15's words and order: 42P01 for the table (a
//! notice with `ALTER TABLE IF EXISTS`), 42703 for the column, 0A000 for a
//! system column, 55000 `... is not an identity column` (a notice with
//! `DROP IDENTITY IF EXISTS`), 42601 for two SET GENERATED; AS, OWNED BY,
//! RESTART and SEQUENCE NAME after SET are 42601 when read, as
//! PostgreSQL's grammar refuses them there.
//!
//! These changes may stand among the other actions of a comma-separated
//! list (`ALTER TABLE t ALTER c DROP IDENTITY, ADD COLUMN z int`): the
//! list is cut at its top-level commas, each run of other actions is
//! parsed by sqlparser as an ALTER TABLE of its own, and the steps run in
//! the statement's order, within the statement (an error in a later one
//! undoes the earlier ones with it). PostgreSQL sorts a list's actions
//! into passes (drops first, ...); folio runs every list in the order
//! written, so a list whose actions depend on that sorting differs.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::parse::{Parsed, Place, keyword};
use folio_db::Transaction;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `ALTER TABLE [IF EXISTS] [ONLY] table action, ...` where some action
/// is `ALTER [COLUMN] column` and one of these changes.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterIdentity {
    /// The table as written (`names::relation`).
    pub table: String,
    /// `ALTER TABLE IF EXISTS`.
    pub if_exists: bool,
    /// The actions, in the statement's order.
    pub steps: Vec<Step>,
}

/// One or more of the statement's actions.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// An identity change of column `column`.
    Identity { column: String, action: Action },
    /// A run of the statement's other actions, as sqlparser reads them:
    /// an ALTER TABLE of the table (without IF EXISTS: [`run`] has found
    /// the table).
    Others(Parsed),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `DROP IDENTITY` (`true`: `IF EXISTS`).
    Drop(bool),
    /// `SET GENERATED ...`, `SET option` and `RESTART ...`, in any number.
    Set {
        /// Each `SET GENERATED` given, `true` for ALWAYS (two are 42601 when
        /// run, where PostgreSQL checks).
        generated: Vec<bool>,
        /// The options and RESTART as ALTER SEQUENCE reads them (its name
        /// is not used), if any was given.
        sequence: Option<Box<crate::sequences::Alter>>,
    },
}

/// The statement, if `tokens` (all of them, from `ALTER TABLE`) hold one
/// of these changes among their actions (else `None`: sqlparser reads
/// them). `others` parses a statement of the other actions' tokens.
pub(crate) fn parse(
    tokens: &[TokenWithSpan],
    place: &Place<'_>,
    others: impl Fn(Vec<TokenWithSpan>) -> Result<Statement, SqlError>,
) -> Option<Result<AlterIdentity, SqlError>> {
    let word = |at: usize| tokens.get(at).and_then(|t| keyword(&t.token));
    let if_exists = word(2) == Some(Keyword::IF) && word(3) == Some(Keyword::EXISTS);
    let mut at = if if_exists { 4 } else { 2 };
    if word(at) == Some(Keyword::ONLY) {
        at += 1;
    }
    let mut parts = vec![ident(tokens, at)?];
    at += 1;
    while tokens.get(at).map(|t| &t.token) == Some(&Token::Period) {
        parts.push(ident(tokens, at + 1)?);
        at += 2;
    }
    let head = at;
    // The actions: the spans between the commas outside parentheses.
    let mut actions = Vec::new();
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(head) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                actions.push(at..i);
                at = i + 1;
            }
            _ => {}
        }
    }
    actions.push(at..tokens.len());
    let found: Vec<Option<(String, usize, bool)>> = (actions.iter())
        .map(|a| identity_action(&tokens[..a.end], a.start))
        .collect();
    if found.iter().all(Option::is_none) {
        return None;
    }
    Some((|| {
        let table = names::relation(&ObjectName(
            parts.into_iter().map(ObjectNamePart::Identifier).collect(),
        ))?;
        let mut steps = Vec::new();
        let mut run: Option<std::ops::Range<usize>> = None;
        for (action, found) in actions.iter().zip(found) {
            let Some((column, at, drop)) = found else {
                let from = run.map_or(action.start, |r| r.start);
                run = Some(from..action.end);
                continue;
            };
            if let Some(run) = run.take() {
                steps.push(others_step(tokens, head, run, &others)?);
            }
            let reader = Reader {
                tokens,
                end: action.end,
                place,
            };
            let action = match drop {
                true => reader.drop(at + 2)?,
                false => reader.set(at)?,
            };
            steps.push(Step::Identity { column, action });
        }
        if let Some(run) = run {
            steps.push(others_step(tokens, head, run, &others)?);
        }
        Ok(AlterIdentity {
            table,
            if_exists,
            steps,
        })
    })())
}

/// The name at token `at`, if a word is there.
fn ident(tokens: &[TokenWithSpan], at: usize) -> Option<Ident> {
    match tokens.get(at).map(|t| &t.token) {
        Some(Token::Word(w)) => Some(match w.quote_style {
            Some(q) => Ident::with_quote(q, &w.value),
            None => Ident::new(&w.value),
        }),
        _ => None,
    }
}

/// If the action from `at` to the end of `tokens` is `ALTER [COLUMN]
/// column` and one of these changes: the column, where the change
/// begins, and whether it is DROP IDENTITY.
fn identity_action(tokens: &[TokenWithSpan], mut at: usize) -> Option<(String, usize, bool)> {
    let word = |at: usize| tokens.get(at).and_then(|t| keyword(&t.token));
    if word(at) != Some(Keyword::ALTER) {
        return None;
    }
    at += 1;
    if word(at) == Some(Keyword::COLUMN) {
        at += 1;
    }
    let column = names::ident(&ident(tokens, at)?);
    at += 1;
    let drop = word(at) == Some(Keyword::DROP) && word(at + 1) == Some(Keyword::IDENTITY);
    let set = word(at) == Some(Keyword::RESTART)
        || (word(at) == Some(Keyword::SET)
            && matches!(
                word(at + 1),
                Some(
                    Keyword::GENERATED
                        | Keyword::INCREMENT
                        | Keyword::MINVALUE
                        | Keyword::MAXVALUE
                        | Keyword::NO
                        | Keyword::START
                        | Keyword::CACHE
                        | Keyword::CYCLE
                        | Keyword::AS
                        | Keyword::OWNED
                        | Keyword::RESTART
                        | Keyword::SEQUENCE
                )
            ));
    (drop || set).then_some((column, at, drop))
}

/// A run of other actions (`run`, the tokens from its first to the end
/// of its last) as sqlparser's ALTER TABLE of the table (the statement's
/// first `head` tokens), without its IF EXISTS.
fn others_step(
    tokens: &[TokenWithSpan],
    head: usize,
    run: std::ops::Range<usize>,
    others: &impl Fn(Vec<TokenWithSpan>) -> Result<Statement, SqlError>,
) -> Result<Step, SqlError> {
    let mut statement = others([&tokens[..head], &tokens[run]].concat())?;
    if let Statement::AlterTable { if_exists, .. } = &mut statement {
        *if_exists = false;
    }
    Ok(Step::Others(Parsed::Sql(Box::new(statement))))
}

/// The statement's tokens and where they lie, for errors.
/// (An action ends at `end`, a comma or the statement's end.)
struct Reader<'r> {
    tokens: &'r [TokenWithSpan],
    end: usize,
    place: &'r Place<'r>,
}

impl Reader<'_> {
    fn word(&self, at: usize) -> Option<Keyword> {
        self.token(at).and_then(keyword)
    }

    /// The token at `at`, if in the action.
    fn token(&self, at: usize) -> Option<&Token> {
        (at < self.end).then(|| &self.tokens[at].token)
    }

    /// PostgreSQL's syntax error at token `at` (past the last: at the
    /// statement's semicolon, or the end of the text).
    fn syntax(&self, at: usize) -> SqlError {
        match (self.tokens.get(at), self.place.terminator) {
            (Some(t), _) => self.place.text.near(t),
            (None, Some(semicolon)) => self.place.text.near(semicolon),
            (None, None) => self.place.text.at_end(),
        }
    }

    /// 42601 `message` at token `at`.
    fn refused(&self, at: usize, message: String) -> SqlError {
        let error = SqlError::syntax(message);
        match (self.tokens.get(at)).and_then(|t| self.place.text.position(t.span.start)) {
            Some(p) => error.at(p),
            None => error,
        }
    }

    /// `[IF EXISTS]` from `at` (after DROP IDENTITY) to the end.
    fn drop(&self, mut at: usize) -> Result<Action, SqlError> {
        let if_exists = self.word(at) == Some(Keyword::IF);
        if if_exists {
            if self.word(at + 1) != Some(Keyword::EXISTS) {
                return Err(self.syntax(at + 1));
            }
            at += 2;
        }
        match at < self.end {
            true => Err(self.syntax(at)),
            false => Ok(Action::Drop(if_exists)),
        }
    }

    /// `SET GENERATED ... | SET option | RESTART [[WITH] n]`, one or more,
    /// from `at` to the end.
    fn set(&self, mut at: usize) -> Result<Action, SqlError> {
        let mut generated = Vec::new();
        // ALTER SEQUENCE's tokens after its name: a name (unused), then
        // each option without its SET, and RESTART.
        let mut sequence = vec![TokenWithSpan::wrap(Token::make_word("identity", None))];
        loop {
            let start = at;
            match (self.word(at), self.word(at + 1)) {
                (Some(Keyword::RESTART), _) => {
                    at += 1;
                    if self.word(at) == Some(Keyword::WITH) {
                        at = self.number(at + 1)?;
                    } else if self.token(at).is_some_and(is_number_start) {
                        at = self.number(at)?;
                    }
                    sequence.extend_from_slice(&self.tokens[start..at]);
                }
                (Some(Keyword::SET), Some(Keyword::GENERATED)) => {
                    at += 2;
                    match (self.word(at), self.word(at + 1)) {
                        (Some(Keyword::ALWAYS), _) => generated.push(true),
                        (Some(Keyword::BY), Some(Keyword::DEFAULT)) => {
                            generated.push(false);
                            at += 1;
                        }
                        (Some(Keyword::BY), _) => return Err(self.syntax(at + 1)),
                        _ => return Err(self.syntax(at)),
                    }
                    at += 1;
                }
                (Some(Keyword::SET), _) => {
                    at = self.option(at + 1)?;
                    sequence.extend_from_slice(&self.tokens[start + 1..at]);
                }
                _ => return Err(self.syntax(at)),
            }
            if at >= self.end {
                break;
            }
        }
        let sequence = match sequence.len() {
            1 => None,
            _ => Some(Box::new(crate::parse::alter_sequence(
                &sequence, self.place,
            )?)),
        };
        Ok(Action::Set {
            generated,
            sequence,
        })
    }

    /// The end of the one sequence option at `at` (after SET), as
    /// PostgreSQL's grammar reads it there: `CACHE n`, `[NO] CYCLE`,
    /// `INCREMENT [BY] n`, `MAXVALUE n`, `MINVALUE n`, `NO MAXVALUE`, `NO
    /// MINVALUE`, `START [WITH] n`. Its values are ALTER SEQUENCE's to
    /// read.
    fn option(&self, at: usize) -> Result<usize, SqlError> {
        let not_here =
            |name: &str| self.refused(at, format!("sequence option \"{name}\" not supported here"));
        match self.word(at) {
            Some(Keyword::CACHE | Keyword::MAXVALUE | Keyword::MINVALUE) => self.number(at + 1),
            Some(Keyword::INCREMENT) if self.word(at + 1) == Some(Keyword::BY) => {
                self.number(at + 2)
            }
            Some(Keyword::START) if self.word(at + 1) == Some(Keyword::WITH) => self.number(at + 2),
            Some(Keyword::INCREMENT | Keyword::START) => self.number(at + 1),
            Some(Keyword::CYCLE) => Ok(at + 1),
            Some(Keyword::NO) => match self.word(at + 1) {
                Some(Keyword::CYCLE | Keyword::MAXVALUE | Keyword::MINVALUE) => Ok(at + 2),
                _ => Err(self.syntax(at + 1)),
            },
            Some(Keyword::AS) => Err(not_here("as")),
            Some(Keyword::OWNED) => Err(not_here("owned_by")),
            Some(Keyword::RESTART) => Err(not_here("restart")),
            Some(Keyword::SEQUENCE) => {
                Err(self.refused(at, "invalid sequence option SEQUENCE NAME".to_string()))
            }
            _ => Err(self.syntax(at)),
        }
    }

    /// The end of the number at `at` (`[+ | -] digits`).
    fn number(&self, mut at: usize) -> Result<usize, SqlError> {
        if matches!(self.token(at), Some(Token::Minus | Token::Plus)) {
            at += 1;
        }
        match self.token(at) {
            Some(Token::Number(..)) => Ok(at + 1),
            _ => Err(self.syntax(at)),
        }
    }
}

/// Whether `token` begins a number (RESTART's is optional).
fn is_number_start(token: &Token) -> bool {
    matches!(token, Token::Number(..) | Token::Minus | Token::Plus)
}

/// Runs the statement.
pub fn run(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    alter: &AlterIdentity,
) -> Result<Output, SqlError> {
    let done = Ok(Output::command("ALTER TABLE"));
    let catalog = cx.db.catalog();
    let table = crate::temp_tables::resolve_name(cx, txn, &alter.table)?;
    if catalog.table(txn, &table)?.is_none() {
        if alter.if_exists {
            notices.push(Notice::info(format!(
                "relation \"{}\" does not exist, skipping",
                alter.table
            )));
            return done;
        }
        return Err(SqlError::undefined_table(&alter.table));
    }
    for step in &alter.steps {
        match step {
            Step::Identity { column, action } => change(cx, txn, notices, &table, column, action)?,
            Step::Others(others) => {
                crate::session::run_utility(cx, txn, notices, others)?;
            }
        }
    }
    done
}

/// Runs one identity change of column `column` of table `table` (found).
fn change(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    table: &str,
    column: &str,
    action: &Action,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let def = catalog.lock_table(txn, table)?;
    crate::privileges::check_owner(cx, def.oid, table, "table")?;
    txn.lock_table(def.oid, folio_txn::LockMode::AccessExclusive)?;
    let relation = folio_catalog::unqualified(table);
    let Some(n) = def.column(column) else {
        if crate::system_columns::reserved(column) {
            return Err(SqlError::new(
                "0A000",
                format!("cannot alter system column \"{column}\""),
            ));
        }
        return Err(SqlError::new(
            "42703",
            format!("column \"{column}\" of relation \"{relation}\" does not exist"),
        ));
    };
    let sequences = catalog.sequences(txn)?;
    let identity = crate::system::identity(&sequences, &def, n);
    let not_identity =
        format!("column \"{column}\" of relation \"{relation}\" is not an identity column");
    match (action, identity) {
        (Action::Drop(true), None) => {
            notices.push(Notice::info(format!("{not_identity}, skipping")));
        }
        (Action::Drop(false), None) => return Err(SqlError::new("55000", not_identity)),
        (Action::Drop(_), Some(sequence)) => {
            catalog.set_default(txn, table, column, None)?;
            catalog.drop_identity_sequence(txn, &sequence.name)?;
        }
        (
            Action::Set {
                generated,
                sequence: changes,
            },
            identity,
        ) => {
            // PostgreSQL's order: the sequence's ALTER SEQUENCE first.
            if let (Some(sequence), Some(changes)) = (identity, changes) {
                crate::sequences::change(cx, txn, &sequence.name, changes)?;
            }
            if generated.len() > 1 {
                return Err(SqlError::conflicting_options());
            }
            let Some(sequence) = identity else {
                return Err(SqlError::new("55000", not_identity));
            };
            if let Some(&always) = generated.first()
                && always != sequence.always
            {
                catalog.set_identity_always(txn, &sequence.name, always)?;
            }
        }
    }
    cx.relations.ddl();
    Ok(())
}
