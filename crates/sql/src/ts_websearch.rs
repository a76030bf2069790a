//! `websearch_to_tsquery`'s syntax, as PostgreSQL 15 reads it
//! (`gettoken_query_websearch` under `makepol`): a tokenizer that waits
//! for an operand or for an operator, and an operator stack by priority.
//!
//! Waiting for an operand:
//! - `-` is NOT (so `----x` is four, and `- x` negates `x`);
//! - `"..."` is one operand, everything to the closing quote (or the end);
//! - `! & | ( ) <` are skipped, as are blanks;
//! - anything else starts a word that runs to a blank, one of
//!   `! & | ( ) < " :`, or the end;
//! - at the end, after an operator, an empty operand (a stop word).
//!
//! Waiting for an operator:
//! - `or` (any case) not followed by a letter, digit, `-` or `_`, with
//!   something but blanks after it, is OR;
//! - `! & | ( ) <` and blanks are skipped;
//! - anything else is an implicit AND before the next operand.
//!
//! NOT binds tightest (right to left), then AND, then OR. Each operand's
//! text goes through the configuration (`operand`), which gives a stop-word
//! placeholder when it has no lexeme.

use crate::error::SqlError;
use crate::ts_stop_words::Draft;
use folio_row::{MAX_QUERY_DEPTH, RowError};

/// An operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Not,
    And,
    Or,
}

impl Op {
    fn priority(self) -> u8 {
        match self {
            Op::Not => 4,
            Op::And => 2,
            Op::Or => 1,
        }
    }
}

fn is_operator(c: char) -> bool {
    matches!(c, '!' | '&' | '|' | '(' | ')' | '<')
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || is_operator(c) || c == '"' || c == ':'
}

/// Whether `or` starts at `i` as the operator (PostgreSQL's
/// `parse_or_operator`).
fn or_operator(chars: &[char], i: usize) -> bool {
    let is_or = chars.len() > i + 2
        && chars[i..i + 2]
            .iter()
            .collect::<String>()
            .eq_ignore_ascii_case("or");
    is_or && {
        let next = chars[i + 2];
        !(next == '-' || next == '_' || next.is_alphanumeric())
            && chars[i + 3..].iter().any(|c| !c.is_whitespace())
    }
}

/// The query tree and its pending operators; each operand with its
/// depth (an operand's own lexemes count as one level: their chain is
/// bounded where it is made).
struct Builder {
    operands: Vec<(Draft, usize)>,
    operators: Vec<Op>,
}

impl Builder {
    /// 54001 when the node would be deeper than a query may be.
    fn apply(&mut self, op: Op) -> Result<(), SqlError> {
        let right = self.operands.pop();
        let (node, depth) = match (op, right) {
            (_, None) => return Ok(()),
            (Op::Not, Some((x, d))) => (Draft::Not(Box::new(x)), d + 1),
            (_, Some((r, rd))) => match self.operands.pop() {
                None => (r, rd),
                Some((l, ld)) if op == Op::And => {
                    (Draft::And(Box::new(l), Box::new(r)), ld.max(rd) + 1)
                }
                Some((l, ld)) => (Draft::Or(Box::new(l), Box::new(r)), ld.max(rd) + 1),
            },
        };
        if depth > MAX_QUERY_DEPTH {
            return Err(RowError::StackDepth.into());
        }
        self.operands.push((node, depth));
        Ok(())
    }

    /// Applies the stacked operators that bind at least as tightly as
    /// `op` (NOT: more tightly), then stacks `op`.
    fn push(&mut self, op: Op) -> Result<(), SqlError> {
        while let Some(&top) = self.operators.last() {
            let stays = if op == Op::Not {
                op.priority() >= top.priority()
            } else {
                op.priority() > top.priority()
            };
            if stays {
                break;
            }
            self.operators.pop();
            self.apply(top)?;
        }
        self.operators.push(op);
        Ok(())
    }

    fn finish(mut self) -> Result<Option<Draft>, SqlError> {
        while let Some(op) = self.operators.pop() {
            self.apply(op)?;
        }
        Ok(self.operands.pop().map(|(draft, _)| draft))
    }
}

/// The query `text` means, each operand's text given to `operand`.
pub(crate) fn parse(
    text: &str,
    operand: impl Fn(&str) -> Result<Draft, SqlError>,
) -> Result<Option<Draft>, SqlError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tree = Builder {
        operands: Vec::new(),
        operators: Vec::new(),
    };
    let mut wants_operand = true;
    let mut first = true;
    let mut i = 0;
    loop {
        let Some(&c) = chars.get(i) else {
            if wants_operand && !first {
                tree.operands.push((Draft::Stop, 1));
            }
            break;
        };
        if wants_operand {
            if c == '-' {
                tree.push(Op::Not)?;
                first = false;
                i += 1;
            } else if c == '"' {
                let close = chars[i + 1..]
                    .iter()
                    .position(|c| *c == '"')
                    .map_or(chars.len(), |p| i + 1 + p);
                let value: String = chars[i + 1..close].iter().collect();
                tree.operands.push((operand(&value)?, 1));
                wants_operand = false;
                first = false;
                i = (close + 1).min(chars.len());
            } else if is_operator(c) {
                first = false;
                i += 1;
            } else if c.is_whitespace() {
                i += 1;
            } else {
                let start = i;
                i += 1;
                while i < chars.len() && !ends_word(chars[i]) {
                    i += 1;
                }
                let value: String = chars[start..i].iter().collect();
                tree.operands.push((operand(&value)?, 1));
                wants_operand = false;
                first = false;
            }
        } else if or_operator(&chars, i) {
            tree.push(Op::Or)?;
            wants_operand = true;
            i += 2;
        } else if is_operator(c) || c.is_whitespace() {
            i += 1;
        } else {
            tree.push(Op::And)?;
            wants_operand = true;
        }
    }
    tree.finish()
}
