//! The cursor statements' syntax, as PostgreSQL 15's grammar reads it
//! (sqlparser's DECLARE takes its options in one order only, its FETCH
//! wants FROM and reads no signed counts, and it has no MOVE): `parse.rs`
//! hands the tokens of a statement opening with DECLARE, FETCH, MOVE or
//! CLOSE here, and parses a DECLARE's query itself.

use super::Options;
use super::position::{ALL, Direction};
use crate::error::SqlError;
use crate::position::Text;
use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `DECLARE name [options] CURSOR [{WITH | WITHOUT} HOLD] FOR query`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declare {
    pub name: String,
    /// `SCROLL` (`Some(true)`) and `NO SCROLL` (`Some(false)`); both is
    /// 42P11 when checked.
    pub scroll: Vec<bool>,
    /// `INSENSITIVE` (`true`) and `ASENSITIVE` (`false`).
    pub sensitivity: Vec<bool>,
    pub binary: bool,
    pub hold: bool,
    pub query: Box<Query>,
}

/// `FETCH` or `MOVE` `[direction] [FROM | IN] name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub name: String,
    pub direction: Direction,
    /// MOVE (no rows returned).
    pub moving: bool,
}

/// A DECLARE statement's tokens (`tokens[0]` is DECLARE); its query's
/// tokens, those after `FOR`, are parsed by `query` (`parse.rs`'s
/// statement parser). A statement other than a query there is a syntax
/// error at its first word, as PostgreSQL's grammar gives.
pub fn declare(
    tokens: &[TokenWithSpan],
    text: &Text<'_>,
    query: impl FnOnce(Vec<TokenWithSpan>) -> Result<Statement, SqlError>,
) -> Result<Declare, SqlError> {
    let mut c = Tokens {
        tokens,
        at: 1,
        text,
    };
    let name = c.name()?;
    let (mut scroll, mut sensitivity, mut binary) = (Vec::new(), Vec::new(), false);
    loop {
        match c.word().as_deref() {
            Some("binary") => binary = true,
            Some("insensitive") => sensitivity.push(true),
            Some("asensitive") => sensitivity.push(false),
            Some("scroll") => scroll.push(true),
            Some("no") => {
                c.at += 1;
                if c.word().as_deref() != Some("scroll") {
                    return Err(c.near());
                }
                scroll.push(false);
            }
            Some("cursor") => break,
            _ => return Err(c.near()),
        }
        c.at += 1;
    }
    c.at += 1;
    let mut hold = false;
    if let Some(with @ ("with" | "without")) = c.word().as_deref() {
        hold = with == "with";
        c.at += 1;
        c.expect_word("hold")?;
    }
    c.expect_word("for")?;
    if c.at == tokens.len() {
        return Err(c.near());
    }
    let query = match query(tokens[c.at..].to_vec())? {
        Statement::Query(query) => query,
        _ => return Err(c.near()),
    };
    Ok(Declare {
        name,
        scroll,
        sensitivity,
        binary,
        hold,
        query,
    })
}

impl Declare {
    /// PostgreSQL's checks of a declaration before it runs (its
    /// `transformDeclareCursorStmt`), and the options the cursor gets.
    pub fn check(&self) -> Result<Options, SqlError> {
        let invalid = |m: &str| SqlError::new("42P11", m.to_string());
        if self.scroll.contains(&true) && self.scroll.contains(&false) {
            return Err(invalid("cannot specify both SCROLL and NO SCROLL"));
        }
        if self.sensitivity.contains(&true) && self.sensitivity.contains(&false) {
            return Err(invalid("cannot specify both ASENSITIVE and INSENSITIVE"));
        }
        let modifies = self.query.with.as_ref().is_some_and(|with| {
            with.cte_tables.iter().any(|cte| {
                matches!(
                    *cte.query.body,
                    SetExpr::Insert(_)
                        | SetExpr::Update(_)
                        | SetExpr::Delete(_)
                        | SetExpr::Merge(_)
                )
            })
        });
        if modifies {
            return Err(SqlError::new(
                "0A000",
                "DECLARE CURSOR must not contain data-modifying statements in WITH",
            ));
        }
        let locks = !self.query.locks.is_empty();
        if locks && self.hold {
            return Err(SqlError::new(
                "0A000",
                "DECLARE CURSOR WITH HOLD ... FOR UPDATE is not supported",
            )
            .with_detail("Holdable cursors must be READ ONLY."));
        }
        if locks && self.scroll.contains(&true) {
            return Err(SqlError::new(
                "0A000",
                "DECLARE SCROLL CURSOR ... FOR UPDATE is not supported",
            )
            .with_detail("Scrollable cursors must be READ ONLY."));
        }
        if locks && self.sensitivity.contains(&true) {
            return Err(
                invalid("DECLARE INSENSITIVE CURSOR ... FOR UPDATE is not valid")
                    .with_detail("Insensitive cursors must be READ ONLY."),
            );
        }
        if self.binary {
            return Err(SqlError::unsupported("DECLARE BINARY CURSOR"));
        }
        let scroll = match self.scroll.first() {
            Some(&scroll) => scroll,
            None => default_scroll(&self.query),
        };
        Ok(Options {
            scroll,
            hold: self.hold,
            binary: self.binary,
        })
    }
}

/// Whether a cursor over `query` declared with neither SCROLL nor NO
/// SCROLL scrolls (a DECLARE's, a PL/pgSQL OPEN's): not with FOR UPDATE
/// or SHARE, else [`scrolls_by_default`].
pub fn default_scroll(query: &Query) -> bool {
    query.locks.is_empty() && scrolls_by_default(query)
}

/// Whether PostgreSQL 15 makes a cursor declared with neither SCROLL nor
/// NO SCROLL scrollable: it does when every node of the query's plan can
/// run backward (`ExecSupportsBackwardScan`). folio's plans are not
/// PostgreSQL's, so this reads the query instead, as the plan PostgreSQL
/// would make of it: scans of a table, a function, a VALUES list, a
/// subquery or CTE of the same kind, with WHERE, ORDER BY, LIMIT and
/// UNION ALL over them, can; joins, grouping, aggregates, DISTINCT,
/// window functions, other set operations, subqueries in expressions and
/// a SELECT without FROM (a Result node) cannot.
pub fn scrolls_by_default(query: &Query) -> bool {
    let ctes_scroll = query.with.as_ref().is_none_or(|with| {
        with.cte_tables
            .iter()
            .all(|cte| scrolls_by_default(&cte.query))
    });
    ctes_scroll && body_scrolls(&query.body)
}

fn body_scrolls(body: &SetExpr) -> bool {
    use sqlparser::ast::{GroupByExpr, SetOperator, SetQuantifier, TableFactor};
    match body {
        SetExpr::Values(_) => true,
        SetExpr::Query(query) => scrolls_by_default(query),
        SetExpr::SetOperation {
            op: SetOperator::Union,
            set_quantifier: SetQuantifier::All,
            left,
            right,
        } => body_scrolls(left) && body_scrolls(right),
        SetExpr::Select(select) => {
            let [from] = select.from.as_slice() else {
                return false;
            };
            let grouped = match &select.group_by {
                GroupByExpr::All(_) => true,
                GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
            };
            let calls = select.projection.iter().any(|item| {
                let expr = match item {
                    sqlparser::ast::SelectItem::UnnamedExpr(e)
                    | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
                    _ => return false,
                };
                crate::aggregate::contains_aggregate(expr) || has_window_or_subquery(expr)
            });
            let subqueries = select
                .selection
                .as_ref()
                .is_some_and(has_window_or_subquery);
            let scans = match &from.relation {
                TableFactor::Table { .. } | TableFactor::Function { .. } => true,
                TableFactor::Derived { subquery, .. } => scrolls_by_default(subquery),
                _ => false,
            };
            from.joins.is_empty()
                && scans
                && !grouped
                && select.having.is_none()
                && select.distinct.is_none()
                && !calls
                && !subqueries
        }
        _ => false,
    }
}

/// Whether `expr` holds a window call or a subquery.
fn has_window_or_subquery(expr: &sqlparser::ast::Expr) -> bool {
    use sqlparser::ast::Expr;
    use std::ops::ControlFlow;
    struct Find;
    impl sqlparser::ast::Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if f.over.is_some() => ControlFlow::Break(()),
                Expr::Subquery(_) | Expr::InSubquery { .. } | Expr::Exists { .. } => {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    sqlparser::ast::Visit::visit(expr, &mut Find).is_break()
}

/// `FETCH` / `MOVE` (`tokens[0]`) `[direction] [FROM | IN] name`, as
/// PostgreSQL's `fetch_args`.
pub fn fetch(tokens: &[TokenWithSpan], text: &Text<'_>, moving: bool) -> Result<Fetch, SqlError> {
    let mut c = Tokens {
        tokens,
        at: 1,
        text,
    };
    let direction = match c.word().as_deref() {
        Some("next") => c.then(Direction::Forward(1)),
        Some("prior") => c.then(Direction::Backward(1)),
        Some("first") => c.then(Direction::Absolute(1)),
        Some("last") => c.then(Direction::Absolute(-1)),
        Some("absolute") => {
            c.at += 1;
            Direction::Absolute(c.count()?)
        }
        Some("relative") => {
            c.at += 1;
            Direction::Relative(c.count()?)
        }
        Some("all") => c.then(Direction::Forward(ALL)),
        Some(way @ ("forward" | "backward")) => {
            let forward = way == "forward";
            c.at += 1;
            let count = if c.word().as_deref() == Some("all") {
                c.at += 1;
                ALL
            } else if c.starts_count() {
                c.count()?
            } else {
                1
            };
            if forward {
                Direction::Forward(count)
            } else {
                Direction::Backward(count)
            }
        }
        _ if c.starts_count() => Direction::Forward(c.count()?),
        _ => Direction::Forward(1),
    };
    if matches!(c.word().as_deref(), Some("from" | "in")) {
        c.at += 1;
    }
    let name = c.name()?;
    c.end()?;
    Ok(Fetch {
        name,
        direction,
        moving,
    })
}

/// `CLOSE name | ALL` (`None`: ALL).
pub fn close(tokens: &[TokenWithSpan], text: &Text<'_>) -> Result<Option<String>, SqlError> {
    let mut c = Tokens {
        tokens,
        at: 1,
        text,
    };
    if c.word().as_deref() == Some("all") {
        c.at += 1;
        c.end()?;
        return Ok(None);
    }
    let name = c.name()?;
    c.end()?;
    Ok(Some(name))
}

/// A statement's tokens, read from `at`; errors point into `text`.
struct Tokens<'t> {
    tokens: &'t [TokenWithSpan],
    at: usize,
    text: &'t Text<'t>,
}

impl Tokens<'_> {
    /// The unquoted word at `at`, lower case.
    fn word(&self) -> Option<String> {
        match self.tokens.get(self.at).map(|t| &t.token) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
            _ => None,
        }
    }

    fn then(&mut self, direction: Direction) -> Direction {
        self.at += 1;
        direction
    }

    /// PostgreSQL's syntax error at the token at `at` (or the end).
    fn near(&self) -> SqlError {
        match self.tokens.get(self.at) {
            Some(t) => self.text.near(t),
            None => self.text.at_end(),
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), SqlError> {
        if self.word().as_deref() != Some(word) {
            return Err(self.near());
        }
        self.at += 1;
        Ok(())
    }

    fn end(&self) -> Result<(), SqlError> {
        match self.tokens.get(self.at) {
            None => Ok(()),
            Some(_) => Err(self.near()),
        }
    }

    /// A cursor's name: a word (lower case unless quoted).
    fn name(&mut self) -> Result<String, SqlError> {
        let name = match self.tokens.get(self.at).map(|t| &t.token) {
            Some(Token::Word(w)) if w.quote_style.is_some() => w.value.clone(),
            Some(Token::Word(w)) => w.value.to_lowercase(),
            _ => return Err(self.near()),
        };
        self.at += 1;
        Ok(name)
    }

    /// Whether a signed integer starts at `at`.
    fn starts_count(&self) -> bool {
        matches!(
            self.tokens.get(self.at).map(|t| &t.token),
            Some(Token::Number(..) | Token::Minus | Token::Plus)
        )
    }

    /// A signed integer constant (PostgreSQL's `SignedIconst`, 32 bits).
    fn count(&mut self) -> Result<i64, SqlError> {
        let negative = match self.tokens.get(self.at).map(|t| &t.token) {
            Some(Token::Minus) => true,
            Some(Token::Plus) => false,
            _ => {
                return self.unsigned();
            }
        };
        self.at += 1;
        let n = self.unsigned()?;
        Ok(if negative { -n } else { n })
    }

    fn unsigned(&mut self) -> Result<i64, SqlError> {
        match self.tokens.get(self.at).map(|t| &t.token) {
            Some(Token::Number(digits, _)) => match digits.parse::<i32>() {
                Ok(n) => {
                    self.at += 1;
                    Ok(i64::from(n))
                }
                Err(_) => Err(self.near()),
            },
            _ => Err(self.near()),
        }
    }
}
