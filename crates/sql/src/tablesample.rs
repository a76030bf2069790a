//! `FROM t TABLESAMPLE method (percentage) [REPEATABLE (seed)]`: the
//! rows of a table (a materialized view, each partition or inheritance
//! child) a sample keeps, as PostgreSQL 15's two built-in methods choose
//! them:
//!
//! - `BERNOULLI (p)` keeps each row version with probability `p` percent;
//! - `SYSTEM (p)` keeps each block (all its rows) with probability `p`.
//!
//! The choice is PostgreSQL's: a row at `ctid` `(block, offset)` is kept
//! when the 32-bit `hash_any` of the words `[block, offset, seed]`
//! (SYSTEM: `[block, seed]`) is below `p / 100 * 2^32`, the seed being
//! the `hashfloat8` of REPEATABLE's value, else a random one per scan.
//! So REPEATABLE gives the same rows on every run while the rows stay
//! where they are, and the rows PostgreSQL would give for the same
//! `ctid`s (folio's pages hold rows differently, so a table's `ctid`s,
//! and thus its sample, are not PostgreSQL's).
//!
//! The percentage (a `real`) and the seed (a `double precision`) are
//! evaluated when the scan starts, with the run's parameters (an outer
//! query's values inside a subquery): NULL is 2202H, a percentage out of
//! `[0, 100]` 2202H. The sampled table is read by a sequential scan.
//!
//! sqlparser 0.59 reads a method's name only among its own words, and a
//! REPEATABLE value only as a literal: [`mark`] rewrites the clause's
//! tokens as `TABLESAMPLE ("method"(args, "$repeatable" => (seed)))`,
//! which it reads as one expression, and [`Sample::bind`] takes it apart
//! (`view_layout` writes it back as PostgreSQL does).

use crate::error::SqlError;
use crate::scalar::{self, Env, Scalar};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, TableSampleKind, TableSampleQuantity,
};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The name of the seed's argument in the rewritten clause.
const REPEATABLE: &str = "$repeatable";

/// The name a CTE sampled in FROM is given instead of its query
/// (`cte.rs`), which [`not_a_table`] refuses.
pub const SAMPLED_CTE: &str = "$tablesample of a WITH query";

/// PostgreSQL's built-in sampling methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Bernoulli,
    System,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Bernoulli => "bernoulli",
            Method::System => "system",
        }
    }
}

/// A FROM item's TABLESAMPLE clause, bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub method: Method,
    /// The percentage, a `real`.
    pub percent: Scalar,
    /// REPEATABLE's seed, a `double precision`.
    pub repeatable: Option<Scalar>,
}

/// 0A000: a TABLESAMPLE on what is no table nor materialized view.
pub fn not_a_table() -> SqlError {
    SqlError::new(
        "0A000",
        "TABLESAMPLE clause can only be applied to tables and materialized views",
    )
}

/// The method and arguments of a rewritten clause (`None`: a clause
/// written some other way, which PostgreSQL's grammar has not); a view's
/// definition prints them back (`view_layout`).
pub fn written(kind: &TableSampleKind) -> Option<(String, Vec<&Expr>, Option<&Expr>)> {
    let (TableSampleKind::BeforeTableAlias(sample) | TableSampleKind::AfterTableAlias(sample)) =
        kind;
    let Some(TableSampleQuantity {
        value: Expr::Function(call),
        unit: None,
        ..
    }) = &sample.quantity
    else {
        return None;
    };
    if sample.name.is_some() || sample.seed.is_some() || call.name.0.len() != 1 {
        return None;
    }
    let FunctionArguments::List(list) = &call.args else {
        return None;
    };
    let mut args = Vec::new();
    let mut seed = None;
    for arg in &list.args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => args.push(e),
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(e),
                ..
            } if name.value == REPEATABLE => seed = Some(e),
            FunctionArg::ExprNamed {
                name: Expr::Identifier(name),
                arg: FunctionArgExpr::Expr(e),
                ..
            } if name.value == REPEATABLE => seed = Some(e),
            _ => return None,
        }
    }
    let method = crate::names::ident(call.name.0[0].as_ident()?);
    Some((method, args, seed))
}

impl Sample {
    /// The clause bound: its method (42704 for another), its one
    /// argument (2202H for another count), each argument of a number
    /// type (42804 otherwise).
    pub fn bind(kind: &TableSampleKind) -> Result<Sample, SqlError> {
        let Some((name, args, seed)) = written(kind) else {
            return Err(SqlError::syntax("syntax error at or near \"TABLESAMPLE\""));
        };
        let method = match name.as_str() {
            "bernoulli" => Method::Bernoulli,
            "system" => Method::System,
            _ => {
                return Err(SqlError::new(
                    "42704",
                    format!("tablesample method {name} does not exist"),
                ));
            }
        };
        let [percent] = args.as_slice() else {
            return Err(SqlError::new(
                "2202H",
                format!(
                    "tablesample method {name} requires 1 argument, not {}",
                    args.len()
                ),
            ));
        };
        Ok(Sample {
            method,
            percent: argument(percent, SqlType::Float4, "TABLESAMPLE")?,
            repeatable: seed
                .map(|e| argument(e, SqlType::Float8, "REPEATABLE"))
                .transpose()?,
        })
    }
}

/// One argument bound (it may read the run's parameters only), of type
/// `ty` (a quoted literal read as one), else 42804.
fn argument(e: &Expr, ty: SqlType, what: &str) -> Result<Scalar, SqlError> {
    let bound = scalar::fit_unknown(scalar::bind(e, &[] as &[SqlType])?, ty)?;
    if bound == Scalar::Const(Value::Null) {
        return Ok(bound);
    }
    let found = bound.ty_in(&[] as &[SqlType]);
    if found != ty && !crate::types::assignment_cast(found, ty) || !found.is_number() {
        return Err(SqlError::new(
            "42804",
            format!(
                "argument of {what} must be type {}, not type {}",
                crate::explain::type_name(ty),
                crate::explain::type_name(found)
            ),
        ));
    }
    Ok(bound)
}

/// A sample's choice for one scan.
pub struct Sampler {
    method: Method,
    /// A row (a block) is kept when its hash is below this.
    cutoff: u64,
    seed: u32,
}

impl Sampler {
    /// The sample's arguments evaluated for this scan, in PostgreSQL's
    /// order of checks: a NULL percentage, a NULL seed, then the
    /// percentage's range.
    pub fn start(sample: &Sample, env: &Env<'_>) -> Result<Sampler, SqlError> {
        let percent = sample.percent.eval(&[], env)?;
        if percent == Value::Null {
            return Err(SqlError::new(
                "2202H",
                "TABLESAMPLE parameter cannot be null",
            ));
        }
        let seed = match &sample.repeatable {
            Some(s) => match crate::types::cast(s.eval(&[], env)?, SqlType::Float8)? {
                Value::Float8(seed) => hash_float8(seed),
                _ => {
                    return Err(SqlError::new(
                        "2202G",
                        "TABLESAMPLE REPEATABLE parameter cannot be null",
                    ));
                }
            },
            None => rand::random::<u32>(),
        };
        let percent = match crate::types::cast(percent, SqlType::Float4)? {
            Value::Float4(p) => f64::from(p),
            _ => f64::NAN,
        };
        if !(0.0..=100.0).contains(&percent) {
            return Err(SqlError::new(
                "2202H",
                "sample percentage must be between 0 and 100",
            ));
        }
        // (PostgreSQL's: exactly 0 and 2^32 at the limits.)
        let cutoff = ((f64::from(u32::MAX) + 1.0) * percent / 100.0).round_ties_even() as u64;
        Ok(Sampler {
            method: sample.method,
            cutoff,
            seed,
        })
    }

    /// Whether the row at `ctid` `(block, offset)` is in the sample.
    pub fn keeps(&self, block: u32, offset: u16) -> bool {
        let mut words = [0u8; 12];
        words[..4].copy_from_slice(&block.to_le_bytes());
        let len = match self.method {
            Method::Bernoulli => {
                words[4..8].copy_from_slice(&u32::from(offset).to_le_bytes());
                12
            }
            Method::System => 8,
        };
        words[len - 4..len].copy_from_slice(&self.seed.to_le_bytes());
        u64::from(crate::partitions::hash::hash_any(&words[..len])) < self.cutoff
    }
}

/// PostgreSQL's `hashfloat8`: 0 for both zeros, the hash of the value's
/// bytes otherwise (every NaN as one).
fn hash_float8(value: f64) -> u32 {
    if value == 0.0 {
        return 0;
    }
    let value = if value.is_nan() { f64::NAN } else { value };
    crate::partitions::hash::hash_any(&value.to_bits().to_le_bytes())
}

/// Rewrites each `TABLESAMPLE name (args) [REPEATABLE (seed)]` as
/// `TABLESAMPLE ("name"(args [, "$repeatable" => (seed)]))` (the module's
/// comment); a clause of another shape is left to sqlparser's error.
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let is_keyword = |t: &Token, k: Keyword| crate::parse::keyword(t) == Some(k);
    let mut at = 0;
    while at + 2 < tokens.len() {
        if !is_keyword(&tokens[at].token, Keyword::TABLESAMPLE)
            || tokens[at + 2].token != Token::LParen
        {
            at += 1;
            continue;
        }
        let Token::Word(word) = &tokens[at + 1].token else {
            at += 1;
            continue;
        };
        let Some(close) = crate::parse::closing(tokens, at + 2) else {
            return;
        };
        let method = match word.quote_style {
            Some(_) => word.value.clone(),
            None => word.value.to_lowercase(),
        };
        let mut seed = None;
        if close + 2 < tokens.len()
            && is_keyword(&tokens[close + 1].token, Keyword::REPEATABLE)
            && tokens[close + 2].token == Token::LParen
        {
            let Some(end) = crate::parse::closing(tokens, close + 2) else {
                return;
            };
            seed = Some(tokens[close + 2..=end].to_vec());
            tokens.drain(close + 1..=end);
        }
        let span = tokens[at + 1].span;
        let token = |t: Token| TokenWithSpan::new(t, span);
        tokens[at + 1] = token(crate::parse::quoted_word(&method));
        // The seed as the call's last argument, inside its parentheses;
        // then the parenthesis around the call.
        let mut tail = Vec::new();
        if let Some(seed) = seed {
            tail.push(token(Token::Comma));
            tail.push(token(crate::parse::quoted_word(REPEATABLE)));
            tail.push(token(Token::RArrow));
            tail.extend(seed);
        }
        tail.push(token(Token::RParen));
        tail.push(token(Token::RParen));
        tokens.splice(close..=close, tail);
        tokens.insert(at + 1, token(Token::LParen));
        at += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL 15: `SELECT hashfloat8(1)`, `hashfloat8(0.4)`.
    #[test]
    fn seeds_match_postgresql() {
        assert_eq!(hash_float8(0.0), 0);
        assert_eq!(hash_float8(-0.0), 0);
        assert_eq!(hash_float8(1.0) as i32, HASHFLOAT8_1);
        assert_eq!(hash_float8(0.4) as i32, HASHFLOAT8_04);
    }

    const HASHFLOAT8_1: i32 = 376_496_956;
    const HASHFLOAT8_04: i32 = 1_879_225_839;
}
