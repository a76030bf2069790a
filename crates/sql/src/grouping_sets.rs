//! GROUP BY's grouping sets: `ROLLUP (...)`, `CUBE (...)`, `GROUPING
//! SETS (...)` and the empty set `()`, alone or mixed with plain keys,
//! expanded into the list of sets a query groups by (sql README,
//! "Grouping sets"). The aggregation itself is `aggregate.rs`'s: each
//! source row joins one group in every set.
//!
//! A GROUP BY list is the cross product of its items: a plain expression
//! is one set of itself, `ROLLUP (e1, ..., en)` the n+1 prefixes longest
//! first, `CUBE (e1, ..., en)` every subset (in PostgreSQL's documented
//! order: `CUBE (a, b)` is `(a, b), (a), (b), ()`), `GROUPING SETS (...)`
//! the union of its items' sets. An element in parentheses (`ROLLUP ((a,
//! b), c)`) stays whole. Repeated sets are kept, each giving its own rows,
//! as in PostgreSQL.

use crate::error::SqlError;
use crate::names;
use crate::parse::closing;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// PostgreSQL's limit on the sets of one GROUP BY (54001 past it).
pub const MAX_SETS: usize = 4096;
/// PostgreSQL's limit on the elements of one CUBE (54001 past it).
pub const MAX_CUBE: usize = 12;
/// PostgreSQL's limit on GROUPING's arguments (its result is an int4 of
/// one bit each; 54023 past it).
pub const MAX_GROUPING_ARGS: usize = 31;

/// A GROUP BY expanded: its distinct key expressions, and each set as the
/// ascending positions of the keys it groups by.
#[derive(Debug, Clone, PartialEq)]
pub struct Expanded {
    pub keys: Vec<Expr>,
    pub sets: Vec<Vec<usize>>,
}

/// Expands GROUP BY `items`, each leaf expression first put through
/// `leaf` (the select list's position for `GROUP BY 1`). Without a
/// grouping-set construct the keys are the items as written (a list in
/// parentheses, `GROUP BY (a, b)`, its elements, as PostgreSQL reads it)
/// and the one set holds them all.
pub fn expand(
    items: &[Expr],
    leaf: impl Fn(&Expr) -> Result<Expr, SqlError>,
) -> Result<Expanded, SqlError> {
    if !items.iter().any(is_set_construct) {
        let keys = (items.iter())
            .flat_map(|item| match item {
                Expr::Tuple(elements) => elements.iter().collect(),
                other => vec![other],
            })
            .map(|e| leaf(&unnested(e)))
            .collect::<Result<Vec<_>, _>>()?;
        let sets = vec![(0..keys.len()).collect()];
        return Ok(Expanded { keys, sets });
    }
    // The cross product of the items' sets, as lists of expressions.
    let mut product: Vec<Vec<Expr>> = vec![Vec::new()];
    for item in items {
        let sets = item_sets(item)?;
        if product.len().saturating_mul(sets.len()) > MAX_SETS {
            return Err(too_many());
        }
        product = (product.iter())
            .flat_map(|left| {
                sets.iter().map(move |right| {
                    let mut set = left.clone();
                    set.extend(right.iter().cloned());
                    set
                })
            })
            .collect();
    }
    let mut keys: Vec<Expr> = Vec::new();
    let mut sets = Vec::with_capacity(product.len());
    for set in product {
        let mut positions = Vec::with_capacity(set.len());
        for expr in set {
            let expr = leaf(&expr)?;
            let at = match keys.iter().position(|k| *k == expr) {
                Some(at) => at,
                None => {
                    keys.push(expr);
                    keys.len() - 1
                }
            };
            positions.push(at);
        }
        positions.sort_unstable();
        positions.dedup();
        sets.push(positions);
    }
    Ok(Expanded { keys, sets })
}

/// Whether a GROUP BY item is a grouping-set construct (else a plain key).
fn is_set_construct(item: &Expr) -> bool {
    matches!(
        item,
        Expr::Rollup(_) | Expr::Cube(_) | Expr::GroupingSets(_)
    ) || matches!(item, Expr::Tuple(v) if v.is_empty())
}

/// The sets one GROUP BY item stands for, as lists of expressions.
fn item_sets(item: &Expr) -> Result<Vec<Vec<Expr>>, SqlError> {
    Ok(match item {
        Expr::Rollup(elements) => rollup(elements),
        Expr::Cube(elements) => cube(elements)?,
        Expr::GroupingSets(items) => {
            let mut out = Vec::new();
            for item in items {
                match item.as_slice() {
                    [one] => out.extend(inner_sets(one)?),
                    many => out.push(many.iter().map(unnested).collect()),
                }
                if out.len() > MAX_SETS {
                    return Err(too_many());
                }
            }
            out
        }
        Expr::Tuple(elements) => vec![elements.iter().map(unnested).collect()],
        plain => vec![vec![unnested(plain)]],
    })
}

/// The sets of one item of GROUPING SETS (read by sqlparser as an
/// expression, `parenthesize_set_items` having put each in parentheses):
/// `(a, b)` one set of both, `ROLLUP (...)` and `CUBE (...)` theirs, any
/// other expression one set of itself.
fn inner_sets(item: &Expr) -> Result<Vec<Vec<Expr>>, SqlError> {
    Ok(match item {
        Expr::Nested(inner) => inner_sets(inner)?,
        Expr::Tuple(elements) => vec![elements.iter().map(unnested).collect()],
        Expr::Function(f) => {
            let name = names::function(&f.name);
            let elements = match (&f.args, name.as_str()) {
                (FunctionArguments::List(list), "rollup" | "cube")
                    if f.over.is_none() && f.filter.is_none() && list.clauses.is_empty() =>
                {
                    (list.args.iter())
                        .map(|a| match a {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(match e {
                                Expr::Tuple(inner) => inner.clone(),
                                other => vec![other.clone()],
                            }),
                            other => Err(SqlError::syntax(format!(
                                "syntax error at or near \"{other}\""
                            ))),
                        })
                        .collect::<Result<Vec<_>, _>>()?
                }
                _ => return Ok(vec![vec![unnested(item)]]),
            };
            match name.as_str() {
                "rollup" => rollup(&elements),
                _ => cube(&elements)?,
            }
        }
        other => vec![vec![unnested(other)]],
    })
}

/// `ROLLUP (e1, ..., en)`: its prefixes, the whole list first.
fn rollup(elements: &[Vec<Expr>]) -> Vec<Vec<Expr>> {
    (0..=elements.len())
        .rev()
        .map(|n| elements[..n].iter().flatten().map(unnested).collect())
        .collect()
}

/// `CUBE (e1, ..., en)`: every subset, in PostgreSQL's documented order
/// (a subset with e1 before each without it, recursively).
fn cube(elements: &[Vec<Expr>]) -> Result<Vec<Vec<Expr>>, SqlError> {
    if elements.len() > MAX_CUBE {
        return Err(SqlError::new("54001", "CUBE is limited to 12 elements"));
    }
    let n = elements.len();
    // Bit i of a mask set: element i left out; counting the masks up
    // with element 0 as the highest bit gives the documented order.
    Ok((0..1usize << n)
        .map(|mask| {
            (0..n)
                .filter(|&i| mask & (1 << (n - 1 - i)) == 0)
                .flat_map(|i| elements[i].iter().map(unnested))
                .collect()
        })
        .collect())
}

/// An expression without its redundant parentheses (`GROUPING SETS
/// ((a))` groups by `a`, which the select list names bare).
fn unnested(expr: &Expr) -> Expr {
    match expr {
        Expr::Nested(inner) => unnested(inner),
        other => other.clone(),
    }
}

fn too_many() -> SqlError {
    SqlError::new(
        "54001",
        format!("too many grouping sets present (maximum {MAX_SETS})"),
    )
}

/// GROUPING(...)'s value in a set: one bit per argument (the first
/// argument the highest), set when the set does not group by that key.
/// `args` are key positions.
pub fn grouping_value(args: &[usize], set: &[usize]) -> i32 {
    debug_assert!(args.len() <= MAX_GROUPING_ARGS);
    args.iter().fold(0, |bits, key| {
        (bits << 1) | i32::from(set.binary_search(key).is_err())
    })
}

/// sqlparser reads each item of `GROUPING SETS (...)` only when it is in
/// parentheses (`GROUPING SETS ((a), (b, c), ())`); PostgreSQL takes any
/// grouping item there (`GROUPING SETS (a, (b, c), ROLLUP (d), ())`).
/// So each item not already `()` is put in parentheses, and a nested
/// `GROUPING SETS (...)` item becomes its own items (its sets are the
/// outer list's). The tokens put in have no location.
pub fn parenthesize_set_items(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at + 2 < tokens.len() {
        if opens_sets(tokens, at)
            && let Some(close) = closing(tokens, at + 2)
        {
            let items = set_items(&tokens[at + 3..close]);
            let n = items.len();
            tokens.splice(at + 3..close, items);
            at += 3 + n;
            continue;
        }
        at += 1;
    }
}

/// Whether `GROUPING SETS (` starts at `at`.
fn opens_sets(tokens: &[TokenWithSpan], at: usize) -> bool {
    let word = |i: usize, w: &str| {
        matches!(tokens.get(i).map(|t| &t.token),
            Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    };
    word(at, "grouping")
        && word(at + 1, "sets")
        && tokens.get(at + 2).map(|t| &t.token) == Some(&Token::LParen)
}

/// The items of a GROUPING SETS list (its tokens inside the parentheses)
/// rewritten as `parenthesize_set_items` says.
fn set_items(inner: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let mut items: Vec<&[TokenWithSpan]> = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, t) in inner.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    let mut out = Vec::with_capacity(inner.len() + 2 * items.len());
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(TokenWithSpan::wrap(Token::Comma));
        }
        let plain: Vec<&Token> = item.iter().map(|t| &t.token).collect();
        if item.is_empty() || plain == [&Token::LParen, &Token::RParen] {
            // `()`, or nothing for the parser to report.
            out.extend_from_slice(item);
        } else if opens_sets(item, 0) && closing(item, 2) == Some(item.len() - 1) {
            out.extend(set_items(&item[3..item.len() - 1]));
        } else {
            out.push(TokenWithSpan::wrap(Token::LParen));
            out.extend_from_slice(item);
            out.push(TokenWithSpan::wrap(Token::RParen));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansion of `GROUP BY sql`.
    fn expanded(sql: &str) -> Result<Expanded, SqlError> {
        let parsed = crate::parse::statements(&format!("SELECT 1 FROM t GROUP BY {sql}")).unwrap();
        let crate::parse::Parsed::Sql(statement) = &parsed[0] else {
            panic!("a query")
        };
        let sqlparser::ast::Statement::Query(q) = statement.as_ref() else {
            panic!("a query")
        };
        let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("a select")
        };
        let sqlparser::ast::GroupByExpr::Expressions(items, _) = &s.group_by else {
            panic!("expressions")
        };
        expand(items, |e| Ok(e.clone()))
    }

    fn group_by(sql: &str) -> Expanded {
        expanded(sql).unwrap()
    }

    fn keys(e: &Expanded) -> Vec<String> {
        e.keys.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn constructs_expand_in_postgresql_order() {
        // Each form's sets as PostgreSQL's documentation lists them.
        let e = group_by("ROLLUP (a, b)");
        assert_eq!(keys(&e), ["a", "b"]);
        assert_eq!(e.sets, vec![vec![0, 1], vec![0], vec![]]);
        let e = group_by("CUBE (a, b)");
        assert_eq!(e.sets, vec![vec![0, 1], vec![0], vec![1], vec![]]);
        let e = group_by("a, ROLLUP (b, c)");
        assert_eq!(e.sets, vec![vec![0, 1, 2], vec![0, 1], vec![0]]);
        let e = group_by("GROUPING SETS (a, (b, c), ROLLUP (d), GROUPING SETS (a, ()), ())");
        assert_eq!(keys(&e), ["a", "b", "c", "d"]);
        assert_eq!(
            e.sets,
            vec![
                vec![0],
                vec![1, 2],
                vec![3],
                vec![],
                vec![0],
                vec![],
                vec![]
            ]
        );
        let e = group_by("ROLLUP ((a, b), c)");
        assert_eq!(e.sets, vec![vec![0, 1, 2], vec![0, 1], vec![]]);
        let e = group_by("()");
        assert_eq!(e.sets, vec![Vec::<usize>::new()]);
        // A plain GROUP BY keeps its keys as written, in one set.
        let e = group_by("a, a");
        assert_eq!(e.sets, vec![vec![0, 1]]);
        let e = group_by("(a, b), c");
        assert_eq!(keys(&e), ["a", "b", "c"]);
        let e = group_by("(a, b), ROLLUP (c)");
        assert_eq!(e.sets, vec![vec![0, 1, 2], vec![0, 1]]);
    }

    #[test]
    fn limits_are_errors() {
        // 13 CUBE elements, and 16 * 16 * 16 * 2 sets: PostgreSQL's 54001s.
        assert_eq!(
            expanded("CUBE (a, b, c, d, e, f, g, h, i, j, k, l, m)")
                .unwrap_err()
                .code,
            "54001"
        );
        let four = Expr::Cube(
            (0..4)
                .map(|i| {
                    vec![Expr::value(sqlparser::ast::Value::Number(
                        i.to_string(),
                        false,
                    ))]
                })
                .collect(),
        );
        let one = Expr::Cube(vec![vec![Expr::value(sqlparser::ast::Value::Number(
            "9".into(),
            false,
        ))]]);
        let items = [four.clone(), four.clone(), four, one];
        assert_eq!(expand(&items, |e| Ok(e.clone())).unwrap_err().code, "54001");
    }

    #[test]
    fn grouping_bits_follow_the_arguments() {
        // GROUPING(a, b) over sets (a, b), (a), (): 0, 1, 3.
        assert_eq!(grouping_value(&[0, 1], &[0, 1]), 0);
        assert_eq!(grouping_value(&[0, 1], &[0]), 1);
        assert_eq!(grouping_value(&[0, 1], &[]), 3);
        assert_eq!(grouping_value(&[1, 0], &[0]), 2);
    }
}
