//! FROM clauses in PostgreSQL's form (`get_from_clause`): items one a
//! line, joins on their own line, USING / ON, aliases (numbered when an
//! enclosing level uses the name).

use super::*;

impl Printer<'_> {
    /// `get_from_clause`.
    pub(super) fn print_from(&mut self, from: &[TableWithJoins]) {
        let mut last_multiline = false;
        for (i, item) in from.iter().enumerate() {
            if i == 0 {
                self.keyword(" FROM ", -INDENT_STD, INDENT_STD, 2);
                self.table_with_joins(item);
            } else {
                self.out.push_str(", ");
                last_multiline =
                    self.wrapped_item(false, last_multiline, |p| p.table_with_joins(item));
            }
        }
    }

    pub(super) fn table_with_joins(&mut self, item: &TableWithJoins) {
        // Left-deep: `a JOIN b JOIN c` is ((a b) c).
        self.joins(&item.relation, &item.joins);
    }

    pub(super) fn joins(&mut self, first: &TableFactor, joins: &[sqlparser::ast::Join]) {
        let Some((last, rest)) = joins.split_last() else {
            return self.factor(first);
        };
        let paren = !self.form.pretty;
        if paren {
            self.out.push('(');
        }
        self.joins(first, rest);
        let (word, constraint) = join_kind(&last.join_operator);
        let word = match (word, constraint) {
            (" JOIN ", Some(JoinConstraint::None) | None) => " CROSS JOIN ",
            (w, _) => w,
        };
        self.keyword(word, -INDENT_STD, INDENT_STD, INDENT_JOIN);
        let right_paren = self.form.pretty
            && matches!(&last.relation, TableFactor::NestedJoin { alias: None, .. });
        if right_paren {
            self.out.push('(');
        }
        self.factor(&last.relation);
        if right_paren {
            self.out.push(')');
        }
        match constraint {
            Some(JoinConstraint::Using(names)) => {
                let names: Vec<String> = names.iter().map(|n| quote(&last_part(n))).collect();
                self.out.push_str(&format!(" USING ({})", names.join(", ")));
            }
            Some(JoinConstraint::Natural) => {
                let left = self.factor_columns(first, rest);
                let right = self.columns_of_factor(&last.relation);
                let common_names: Vec<String> = (left.iter())
                    .filter(|(n, _)| right.iter().any(|(m, _)| m == n))
                    .map(|(n, _)| n.clone())
                    .collect();
                let common: Vec<String> = common_names.iter().map(|n| quote(n)).collect();
                let at = std::ptr::from_ref(last) as usize;
                self.natural.borrow_mut().push((at, common_names));
                match common.is_empty() {
                    true if word != " CROSS JOIN " => self.out.push_str(" ON TRUE"),
                    true => {}
                    false => self
                        .out
                        .push_str(&format!(" USING ({})", common.join(", "))),
                }
            }
            Some(JoinConstraint::On(on)) if *on == crate::natural_joins::no_common_columns() => {
                self.out.push_str(" ON TRUE")
            }
            Some(JoinConstraint::On(on)) => {
                self.out.push_str(" ON ");
                if paren {
                    self.out.push('(');
                }
                self.expr(on, Parent::Free);
                if paren {
                    self.out.push(')');
                }
            }
            Some(JoinConstraint::None) | None => {
                if word != " CROSS JOIN " && word != " JOIN " {
                    self.out.push_str(" ON TRUE");
                }
            }
        }
        if paren {
            self.out.push(')');
        }
    }

    pub(super) fn factor(&mut self, factor: &TableFactor) {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args,
                with_ordinality,
                sample,
                ..
            } => {
                if let Some(args) = args {
                    let fname = last_part(name);
                    self.function_item(&fname, &args.args, *with_ordinality);
                    let alias_name = alias.as_ref().map_or(fname.clone(), |a| ident(&a.name));
                    self.out.push(' ');
                    self.out.push_str(&quote(&alias_name));
                    match alias {
                        Some(a) if !a.columns.is_empty() => self.alias_columns(a),
                        _ if single_column_function(&fname) => {
                            let ordinal = if *with_ordinality { ", ordinality" } else { "" };
                            self.out
                                .push_str(&format!("({}{ordinal})", quote(&alias_name)))
                        }
                        _ => {}
                    }
                    return;
                }
                let unmarked;
                let name = match crate::inheritance::syntax::only(name) {
                    true => {
                        self.out.push_str("ONLY ");
                        unmarked = crate::inheritance::syntax::unmarked(name);
                        &unmarked
                    }
                    false => name,
                };
                let bare = last_part(name);
                let cte = name.0.len() == 1 && self.ctes.iter().any(|(n, _)| *n == bare);
                let printed = match cte {
                    true => quote(&bare),
                    false => match self.relations.relation(name) {
                        Some(info) => info.printed,
                        None => name.to_string(),
                    },
                };
                self.out.push_str(&printed);
                let original = alias.as_ref().map_or(bare, |a| ident(&a.name));
                let refname = self.refname_of(&original).unwrap_or(original.clone());
                if alias.is_some() || refname != original {
                    self.out.push(' ');
                    self.out.push_str(&quote(&refname));
                }
                if let Some(alias) = alias {
                    self.alias_columns(alias);
                }
                if let Some((method, args, seed)) =
                    sample.as_ref().and_then(crate::tablesample::written)
                {
                    self.out.push_str(&format!(" TABLESAMPLE {method} ("));
                    for (i, arg) in args.into_iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.expr(arg, Parent::Tight);
                    }
                    self.out.push(')');
                    if let Some(seed) = seed {
                        self.out.push_str(" REPEATABLE (");
                        self.expr(seed, Parent::Tight);
                        self.out.push(')');
                    }
                }
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
            } => {
                if *lateral {
                    self.out.push_str("LATERAL ");
                }
                self.out.push('(');
                let indent = self.indent;
                self.query_named(subquery, indent, true);
                self.out.push(')');
                if let Some(alias) = alias {
                    let original = ident(&alias.name);
                    let refname = self.refname_of(&original).unwrap_or(original);
                    self.out.push(' ');
                    self.out.push_str(&quote(&refname));
                    self.alias_columns(alias);
                }
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let paren = self.form.pretty && alias.is_some();
                if paren {
                    self.out.push('(');
                }
                self.table_with_joins(table_with_joins);
                if paren {
                    self.out.push(')');
                }
                if let Some(alias) = alias {
                    self.out.push(' ');
                    self.out.push_str(&quote(&ident(&alias.name)));
                    self.alias_columns(alias);
                }
            }
            TableFactor::Function {
                lateral,
                name,
                args,
                alias,
            } => {
                if *lateral {
                    self.out.push_str("LATERAL ");
                }
                let fname = last_part(name);
                self.function_item(&fname, args, false);
                let alias_name = alias.as_ref().map_or(fname, |a| ident(&a.name));
                self.out.push(' ');
                self.out.push_str(&quote(&alias_name));
                if let Some(a) = alias {
                    self.alias_columns(a);
                }
            }
            TableFactor::UNNEST {
                alias,
                array_exprs,
                with_ordinality,
                ..
            } => {
                self.out.push_str(match array_exprs.len() {
                    1 => "unnest(",
                    _ => "UNNEST(",
                });
                for (i, e) in array_exprs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(e, Parent::Free);
                }
                self.out.push(')');
                if *with_ordinality {
                    self.out.push_str(" WITH ORDINALITY");
                }
                let alias_name = alias.as_ref().map_or("unnest".into(), |a| ident(&a.name));
                self.out.push(' ');
                self.out.push_str(&quote(&alias_name));
                match alias {
                    Some(a) if !a.columns.is_empty() => self.alias_columns(a),
                    _ if array_exprs.len() == 1 => {
                        let ordinal = if *with_ordinality { ", ordinality" } else { "" };
                        self.out
                            .push_str(&format!("({}{ordinal})", quote(&alias_name)))
                    }
                    _ => {}
                }
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// A function's call in FROM, as `get_from_clause_item` prints it:
    /// one call alone; `UNNEST(a, b)` for calls of `unnest` of one array
    /// each; else `ROWS FROM(f(...), g(...) AS (a integer, ...))`; then
    /// `WITH ORDINALITY`. `fname(args)` is the call as written (`ROWS FROM`
    /// is `"$rows_from"(calls)`, `table_functions.rs`).
    fn function_item(&mut self, fname: &str, args: &[FunctionArg], with_ordinality: bool) {
        use crate::table_functions::{ROWS_FROM, column_list};
        let expr_of = |a: &FunctionArg| match a {
            FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        };
        let call = |name: &str, args: Vec<FunctionArg>| {
            crate::call_expr::plain_call(ObjectName::from(vec![Ident::new(name)]), args)
        };
        // The calls, an `unnest` of several arrays one call per array.
        let written: Vec<Expr> = match fname {
            ROWS_FROM => args.iter().filter_map(expr_of).collect(),
            _ => vec![call(fname, args.to_vec())],
        };
        let mut calls = Vec::new();
        for e in written {
            match &e {
                Expr::Function(f) if last_part(&f.name) == "unnest" => match &f.args {
                    sqlparser::ast::FunctionArguments::List(l) if l.args.len() > 1 => {
                        calls.extend(l.args.iter().map(|a| call("unnest", vec![a.clone()])))
                    }
                    _ => calls.push(e),
                },
                _ => calls.push(e),
            }
        }
        fn listed(e: &Expr) -> Option<(&sqlparser::ast::Function, TableAlias)> {
            column_list(e).ok().flatten()
        }
        let all_unnest = calls.iter().all(|e| {
            matches!(e, Expr::Function(f) if last_part(&f.name) == "unnest") && listed(e).is_none()
        });
        let print_call = |p: &mut Self, e: &Expr| match e {
            Expr::Function(f) => {
                p.out.push_str(&function_name(&last_part(&f.name)));
                p.out.push('(');
                if let sqlparser::ast::FunctionArguments::List(l) = &f.args {
                    for (i, a) in l.args.iter().enumerate() {
                        if i > 0 {
                            p.out.push_str(", ");
                        }
                        p.function_arg(a);
                    }
                }
                p.out.push(')');
            }
            other => p.expr(other, Parent::Free),
        };
        match calls.as_slice() {
            [one] if listed(one).is_none() || !with_ordinality && fname != ROWS_FROM => {
                print_call(self, one)
            }
            _ if all_unnest => {
                self.out.push_str("UNNEST(");
                for (i, e) in calls.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    if let Expr::Function(f) = e
                        && let sqlparser::ast::FunctionArguments::List(l) = &f.args
                        && let Some(a) = l.args.first()
                    {
                        self.function_arg(a);
                    }
                }
                self.out.push(')');
            }
            _ => {
                self.out.push_str("ROWS FROM(");
                for (i, e) in calls.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match listed(e) {
                        Some((f, alias)) => {
                            print_call(self, &Expr::Function(f.clone()));
                            let columns: Vec<String> = (alias.columns.iter())
                                .map(|c| {
                                    let ty = (c.data_type.as_ref())
                                        .and_then(|t| crate::types::column_type(t).ok())
                                        .map(|t| {
                                            crate::catalog_functions::format_type(
                                                i64::from(t.oid()),
                                                Some(t.typmod()),
                                            )
                                        })
                                        .unwrap_or_default();
                                    format!("{} {ty}", quote(&ident(&c.name)))
                                })
                                .collect();
                            self.out.push_str(&format!(" AS ({})", columns.join(", ")));
                        }
                        None => print_call(self, e),
                    }
                }
                self.out.push(')');
            }
        }
        if with_ordinality {
            self.out.push_str(" WITH ORDINALITY");
        }
    }

    pub(super) fn alias_columns(&mut self, alias: &TableAlias) {
        if alias.columns.is_empty() {
            return;
        }
        let names: Vec<String> = (alias.columns.iter())
            .map(|c| quote(&ident(&c.name)))
            .collect();
        self.out.push_str(&format!("({})", names.join(", ")));
    }
}

/// The word PostgreSQL prints for a join and its condition.
pub(super) fn join_kind(op: &JoinOperator) -> (&'static str, Option<&JoinConstraint>) {
    match op {
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (" JOIN ", Some(c)),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (" LEFT JOIN ", Some(c)),
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (" RIGHT JOIN ", Some(c)),
        JoinOperator::FullOuter(c) => (" FULL JOIN ", Some(c)),
        JoinOperator::CrossJoin(c) => (" CROSS JOIN ", Some(c)),
        _ => (" JOIN ", None),
    }
}

/// Set-returning functions of one column named as the function.
pub(super) fn single_column_function(name: &str) -> bool {
    matches!(
        name,
        "generate_series" | "unnest" | "generate_subscripts" | "regexp_split_to_table"
    )
}
