//! The GROUP BY clause as PostgreSQL prints an analyzed query's
//! (`get_basic_select_query`, `get_rule_groupingset`):
//!
//! - Without grouping sets, or when they come to one set that is not
//!   empty (parse analysis then drops them: `GROUP BY GROUPING SETS
//!   ((a, b))` is `GROUP BY a, b`), the keys, each once, in the order
//!   first written.
//! - Else each item: a plain key bare (a row `(a, b)` its elements),
//!   `ROLLUP(k, (k2, k3))` and `CUBE(...)` with no space before the
//!   parenthesis and each element bare or a parenthesized list,
//!   `GROUPING SETS (...)` with every set in parentheses (`(t.a)`, `()`)
//!   and ROLLUP / CUBE inside as themselves; an empty set at the top
//!   (`GROUP BY (), ROLLUP (a)`) is dropped, and only `GROUP BY ()` is
//!   left when nothing else is.
//!
//! Each key prints as a sort clause (`get_rule_sortgroupclause`: a
//! position or output name is the select item it stands for).

use super::*;

impl Printer<'_> {
    /// ` GROUP BY ...` of `select` (none when it has no keys).
    pub(super) fn group_by_clause(&mut self, select: &Select) {
        let GroupByExpr::Expressions(exprs, _) = &select.group_by else {
            return;
        };
        if exprs.is_empty() {
            return;
        }
        self.keyword(" GROUP BY ", -INDENT_STD, INDENT_STD, 1);
        let expanded = crate::grouping_sets::expand(exprs, |e| Ok(e.clone()));
        if let Ok(expanded) = expanded
            && expanded.sets.len() == 1
            && !expanded.sets[0].is_empty()
        {
            for (i, key) in expanded.keys.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.group_key(key, select);
            }
            return;
        }
        let mut first = true;
        for item in exprs {
            let item = unnested(item);
            let keys: Vec<&Expr> = match item {
                Expr::Tuple(elements) if elements.is_empty() => continue,
                Expr::Tuple(elements) => elements.iter().map(unnested).collect(),
                other => vec![other],
            };
            for key in keys {
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                self.grouping_item(key, select);
            }
        }
        if first {
            self.out.push_str("()");
        }
    }

    /// One item of a GROUP BY with grouping sets: a ROLLUP, CUBE or
    /// GROUPING SETS construct, or a key.
    fn grouping_item(&mut self, item: &Expr, select: &Select) {
        match item {
            Expr::Rollup(elements) | Expr::Cube(elements) => {
                let word = match item {
                    Expr::Rollup(_) => "ROLLUP(",
                    _ => "CUBE(",
                };
                self.out.push_str(word);
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.simple_set(element, true, select);
                }
                self.out.push(')');
            }
            Expr::GroupingSets(sets) => {
                self.out.push_str("GROUPING SETS (");
                for (i, set) in sets.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match set.as_slice() {
                        [one] => self.set_item(one, select),
                        many => self.simple_set(many, false, select),
                    }
                }
                self.out.push(')');
            }
            key => self.group_key(key, select),
        }
    }

    /// An item of GROUPING SETS (...) as sqlparser reads it (one
    /// expression; `parenthesize_set_items` put it in parentheses): a
    /// list `(a, b)`, `()`, a nested ROLLUP or CUBE (a call here), or a
    /// key.
    fn set_item(&mut self, item: &Expr, select: &Select) {
        match unnested(item) {
            Expr::Tuple(elements) => self.simple_set(elements, false, select),
            Expr::Rollup(_) | Expr::Cube(_) => self.grouping_item(unnested(item), select),
            Expr::Function(f) if matches!(last_part(&f.name).as_str(), "rollup" | "cube") => {
                let args = match &f.args {
                    FunctionArguments::List(list) => list.args.as_slice(),
                    _ => &[],
                };
                let elements: Vec<Vec<Expr>> = (args.iter())
                    .map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => match unnested(e) {
                            Expr::Tuple(inner) => inner.clone(),
                            other => vec![other.clone()],
                        },
                        other => vec![Expr::Identifier(Ident::new(other.to_string()))],
                    })
                    .collect();
                let construct = match last_part(&f.name).as_str() {
                    "rollup" => Expr::Rollup(elements),
                    _ => Expr::Cube(elements),
                };
                self.grouping_item(&construct, select);
            }
            key => self.simple_set(std::slice::from_ref(key), false, select),
        }
    }

    /// A set of keys: `(k1, k2)`, bare when it is one key and
    /// `omit_parens` (an element of ROLLUP / CUBE).
    fn simple_set(&mut self, keys: &[Expr], omit_parens: bool, select: &Select) {
        let keys: Vec<&Expr> = (keys.iter())
            .flat_map(|k| match unnested(k) {
                Expr::Tuple(inner) => inner.iter().map(unnested).collect(),
                other => vec![other],
            })
            .collect();
        let paren = !omit_parens || keys.len() != 1;
        if paren {
            self.out.push('(');
        }
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.group_key(key, select);
        }
        if paren {
            self.out.push(')');
        }
    }

    /// A key: a position stands for its select item.
    pub(super) fn group_key(&mut self, key: &Expr, select: &Select) {
        if let Expr::Value(v) = key
            && let sqlparser::ast::Value::Number(n, _) = &v.value
            && let Some((expr, _)) = n
                .parse::<usize>()
                .ok()
                .and_then(|n| self.items(select).get(n.wrapping_sub(1)).cloned())
        {
            return self.sort_group_expr(&expr);
        }
        self.sort_group_expr(key)
    }
}

/// `e` without its redundant parentheses.
fn unnested(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => unnested(inner),
        other => other,
    }
}
