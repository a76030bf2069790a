//! The names a view's query levels bring (`Level`s of FROM items and
//! merged USING columns), what a column reference resolves to, and the
//! types the stored text tells.

use super::exprs::is_comparison;
use super::from_items::{join_kind, single_column_function};
use super::*;

impl Printer<'_> {
    /// The names a FROM clause brings.
    pub(super) fn scope_of(&self, from: &[TableWithJoins]) -> Level {
        let mut level = Level::default();
        for item in from {
            self.scope_joins(&item.relation, &item.joins, &mut level);
        }
        level
    }

    pub(super) fn scope_joins(
        &self,
        first: &TableFactor,
        joins: &[sqlparser::ast::Join],
        level: &mut Level,
    ) {
        let Some((last, rest)) = joins.split_last() else {
            return self.scope_factor(first, level);
        };
        let left_start = level.items.len();
        let merged_start = level.merged.len();
        self.scope_joins(first, rest, level);
        let left_merged: Vec<Merged> = level.merged[merged_start..].to_vec();
        let left_items: Vec<Item> = level.items[left_start..].to_vec();
        let right_start = level.items.len();
        self.scope_factor(&last.relation, level);
        let right_items: Vec<Item> = level.items[right_start..].to_vec();
        let (word, constraint) = join_kind(&last.join_operator);
        let using: Vec<String> = match constraint {
            Some(JoinConstraint::Using(names)) => names.iter().map(last_part).collect(),
            Some(JoinConstraint::Natural) => {
                let left = columns_of(&left_items, &left_merged);
                let right = columns_of(&right_items, &[]);
                (left.iter())
                    .filter(|(n, _)| right.iter().any(|(m, _)| m == n))
                    .map(|(n, _)| n.clone())
                    .collect()
            }
            _ => Vec::new(),
        };
        for name in using {
            let find = |items: &[Item], merged: &[Merged]| {
                if let Some(m) = merged.iter().find(|m| m.name == name) {
                    return Some((m.printed.clone(), m.ty));
                }
                items.iter().find_map(|i| {
                    (i.columns.iter().flatten())
                        .find(|(n, _)| *n == name)
                        .map(|(n, t)| (format!("{}.{}", quote(&i.refname), quote(n)), *t))
                })
            };
            let left = find(&left_items, &left_merged);
            let right = find(&right_items, &[]);
            let (printed, ty) = match (word, left, right) {
                (" FULL JOIN ", l, r) => {
                    (quote(&name), l.and_then(|l| l.1).or(r.and_then(|r| r.1)))
                }
                (" RIGHT JOIN ", _, Some(r)) => r,
                (" JOIN ", Some(l), Some(r)) if wider(r.1, l.1) => r,
                (_, Some(l), _) => l,
                (_, None, Some(r)) => r,
                (_, None, None) => (quote(&name), None),
            };
            // (A merged column of the inputs with the name is this one
            // now; another join's of the level keeps its own.)
            level
                .merged
                .retain(|m| m.name != name || m.covers.start < left_start);
            let covers = left_start..level.items.len();
            level.merged.push(Merged {
                name,
                printed,
                ty,
                covers,
            });
        }
    }

    pub(super) fn scope_factor(&self, factor: &TableFactor, level: &mut Level) {
        match factor {
            TableFactor::NestedJoin {
                table_with_joins,
                alias: Some(alias),
            } => {
                let mut inner = Level::default();
                self.scope_joins(
                    &table_with_joins.relation,
                    &table_with_joins.joins,
                    &mut inner,
                );
                let mut columns = columns_of(&inner.items, &inner.merged);
                rename(&mut columns, alias);
                let original = ident(&alias.name);
                level.items.push(Item {
                    refname: self.unique(&original, level),
                    original,
                    columns: Some(columns),
                });
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.scope_joins(&table_with_joins.relation, &table_with_joins.joins, level),
            other => {
                let refname = match other {
                    TableFactor::Table { alias: Some(a), .. }
                    | TableFactor::Derived { alias: Some(a), .. }
                    | TableFactor::Function { alias: Some(a), .. }
                    | TableFactor::UNNEST { alias: Some(a), .. } => ident(&a.name),
                    TableFactor::UNNEST { alias: None, .. } => "unnest".to_string(),
                    TableFactor::Table { name, .. } | TableFactor::Function { name, .. } => {
                        last_part(name)
                    }
                    _ => String::new(),
                };
                let columns = self.columns_of_factor(other);
                level.items.push(Item {
                    refname: self.unique(&refname, level),
                    original: refname,
                    columns: Some(columns),
                });
            }
        }
    }

    /// `name` made unique among the FROM items of the enclosing query
    /// levels and of `level` (PostgreSQL's `set_rtable_names`).
    pub(super) fn unique(&self, name: &str, level: &Level) -> String {
        let used = |n: &str| {
            (self.levels.iter().chain([level])).any(|l| l.items.iter().any(|i| i.refname == n))
        };
        if name.is_empty() || !used(name) {
            return name.to_string();
        }
        (1..)
            .map(|i| format!("{name}_{i}"))
            .find(|n| !used(n))
            .expect("an unused name")
    }

    /// The name a FROM item of the innermost level called `original` is
    /// printed under.
    pub(super) fn refname_of(&self, original: &str) -> Option<String> {
        (self.levels.iter().rev())
            .find_map(|l| l.items.iter().find(|i| i.original == original))
            .map(|i| i.refname.clone())
    }

    /// The columns of a FROM item (empty when unknown).
    pub(super) fn columns_of_factor(&self, factor: &TableFactor) -> Vec<Column> {
        let mut columns = match factor {
            TableFactor::Table {
                name, args: None, ..
            } => {
                let bare = last_part(name);
                match (name.0.len() == 1)
                    .then(|| self.ctes.iter().rev().find(|(n, _)| *n == bare))
                    .flatten()
                {
                    Some((_, columns)) => columns.clone(),
                    None => self
                        .relations
                        .relation(name)
                        .map(|r| r.columns)
                        .unwrap_or_default(),
                }
            }
            // (A function's one column is named after the item's alias, as
            // PostgreSQL names a scalar function's.)
            // (A column alias list names the columns it lists, the
            // ordinal among them.)
            TableFactor::Table {
                args: Some(_),
                alias: Some(a),
                ..
            }
            | TableFactor::Function { alias: Some(a), .. }
                if !a.columns.is_empty() =>
            {
                (a.columns.iter()).map(|c| (ident(&c.name), None)).collect()
            }
            TableFactor::Table {
                name,
                args: Some(_),
                alias,
                with_ordinality,
                ..
            } => {
                let fname = last_part(name);
                let mut columns = match (alias, single_column_function(&fname)) {
                    (Some(a), true) => vec![(ident(&a.name), None)],
                    _ => vec![(fname, None)],
                };
                if *with_ordinality {
                    columns.push(("ordinality".to_string(), Some(SqlType::Int8)));
                }
                columns
            }
            TableFactor::Function { name, alias, .. } => {
                let fname = last_part(name);
                match (alias, single_column_function(&fname)) {
                    (Some(a), true) => vec![(ident(&a.name), None)],
                    _ => vec![(fname, None)],
                }
            }
            TableFactor::UNNEST {
                alias,
                array_exprs,
                with_ordinality,
                ..
            } => {
                let mut columns = match array_exprs.len() {
                    1 => vec![(
                        alias.as_ref().map_or("unnest".into(), |a| ident(&a.name)),
                        None,
                    )],
                    n => vec![("unnest".to_string(), None); n],
                };
                if *with_ordinality {
                    columns.push(("ordinality".to_string(), Some(SqlType::Int8)));
                }
                columns
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let empty = TableAlias {
                    name: Ident::new(""),
                    columns: Vec::new(),
                };
                self.query_columns(subquery, alias.as_ref().unwrap_or(&empty))
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                let mut level = Level::default();
                self.scope_joins(
                    &table_with_joins.relation,
                    &table_with_joins.joins,
                    &mut level,
                );
                columns_of(&level.items, &level.merged)
            }
            _ => Vec::new(),
        };
        if let TableFactor::Table { alias: Some(a), .. }
        | TableFactor::Function { alias: Some(a), .. }
        | TableFactor::UNNEST { alias: Some(a), .. } = factor
        {
            rename(&mut columns, a);
        }
        columns
    }

    pub(super) fn factor_columns(
        &self,
        first: &TableFactor,
        joins: &[sqlparser::ast::Join],
    ) -> Vec<Column> {
        let mut level = Level::default();
        self.scope_joins(first, joins, &mut level);
        columns_of(&level.items, &level.merged)
    }

    /// A query's output columns (renamed by `alias`'s column list).
    pub(super) fn query_columns(&self, query: &Query, alias: &TableAlias) -> Vec<Column> {
        let mut body = query.body.as_ref();
        loop {
            match body {
                SetExpr::SetOperation { left, .. } => body = left,
                SetExpr::Query(q) => body = q.body.as_ref(),
                _ => break,
            }
        }
        let mut columns = match body {
            SetExpr::Select(select) => {
                let mut scoped = self.sub();
                if let Some(with) = &query.with {
                    for cte in &with.cte_tables {
                        let columns = scoped.query_columns(&cte.query, &cte.alias);
                        scoped.ctes.push((ident(&cte.alias.name), columns));
                    }
                }
                let level = scoped.scope_of(&select.from);
                scoped.levels.push(level);
                (scoped.items(select).into_iter())
                    .map(|(e, alias)| {
                        let ty = scoped.type_of(&e);
                        (alias.unwrap_or_else(|| figure_name(&e)), ty)
                    })
                    .collect()
            }
            SetExpr::Values(values) => (values.rows.first().into_iter().flatten())
                .enumerate()
                .map(|(i, e)| (format!("column{}", i + 1), self.type_of(e)))
                .collect(),
            _ => Vec::new(),
        };
        rename(&mut columns, alias);
        columns
    }

    /// What an unqualified column name refers to: its printed form and
    /// type, innermost level first.
    pub(super) fn resolve(&self, name: &str) -> Option<(String, Option<SqlType>)> {
        for level in self.levels.iter().rev() {
            if let Some(m) = level.merged.iter().find(|m| m.name == name) {
                return Some((m.printed.clone(), m.ty));
            }
            for item in &level.items {
                if let Some((n, t)) = (item.columns.iter().flatten()).find(|(n, _)| n == name) {
                    return Some((format!("{}.{}", quote(&item.refname), quote(n)), *t));
                }
            }
        }
        None
    }

    /// The type of a qualified reference `q.name`, if known.
    pub(super) fn qualified_type(&self, q: &str, name: &str) -> Option<SqlType> {
        for level in self.levels.iter().rev() {
            for item in &level.items {
                if item.original == q {
                    return (item.columns.iter().flatten())
                        .find(|(n, _)| n == name)
                        .and_then(|(_, t)| *t);
                }
            }
        }
        None
    }

    /// An expression's type, when the stored text tells it.
    pub(super) fn type_of(&self, expr: &Expr) -> Option<SqlType> {
        match expr {
            Expr::Identifier(id) => self.resolve(&ident(id)).and_then(|r| r.1),
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let n = parts.len();
                let q = ident(&parts[n - 2]);
                let name = ident(&parts[n - 1]);
                if q.starts_with("unnamed_join") {
                    return self.resolve(&name).and_then(|r| r.1);
                }
                self.qualified_type(&q, &name)
            }
            Expr::Nested(e) => self.type_of(e),
            // A field of a composite: the field's type.
            Expr::CompoundFieldAccess { root, access_chain } => {
                let mut ty = self.type_of(root)?;
                for access in access_chain {
                    ty = match (access, ty) {
                        (AccessExpr::Dot(Expr::Identifier(f)), SqlType::Composite(def)) => {
                            (def.fields.iter()).find(|(n, _)| *n == ident(f))?.1
                        }
                        (AccessExpr::Subscript(Subscript::Index { .. }), _) => ty.element()?,
                        _ => return None,
                    };
                }
                Some(ty)
            }
            Expr::Cast { data_type, .. } => types::column_type(data_type).ok(),
            Expr::TypedString(t) => types::column_type(&t.data_type).ok(),
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(..) => match types::literal(&v.value) {
                    Ok(Value::Int4(_)) => Some(SqlType::Int4),
                    Ok(Value::Int8(_)) => Some(SqlType::Int8),
                    Ok(_) => Some(SqlType::Numeric(None)),
                    Err(_) => None,
                },
                sqlparser::ast::Value::SingleQuotedString(_) => Some(SqlType::Text),
                sqlparser::ast::Value::Boolean(_) => Some(SqlType::Bool),
                _ => None,
            },
            Expr::BinaryOp { op, .. } if is_comparison(op) => Some(SqlType::Bool),
            Expr::BinaryOp {
                left,
                op:
                    BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo,
                right,
            } => match (self.type_of(left), self.type_of(right)) {
                (Some(l), Some(r)) if wider(Some(r), Some(l)) => Some(r),
                (Some(l), _) if wider(Some(l), Some(SqlType::Int2)) || l == SqlType::Int2 => {
                    Some(l)
                }
                (None, r) => r,
                (l, _) => l,
            },
            Expr::BinaryOp {
                op: BinaryOperator::StringConcat,
                ..
            } => Some(SqlType::Text),
            Expr::Function(f) => match last_part(&f.name).as_str() {
                "count" => Some(SqlType::Int8),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The visible columns of a join's inputs: merged ones first.
pub(super) fn columns_of(items: &[Item], merged: &[Merged]) -> Vec<Column> {
    let mut out: Vec<Column> = merged.iter().map(|m| (m.name.clone(), m.ty)).collect();
    for item in items {
        for (n, t) in item.columns.iter().flatten() {
            if !merged.iter().any(|m| &m.name == n) {
                out.push((n.clone(), *t));
            }
        }
    }
    out
}

pub(super) fn rename(columns: &mut [(String, Option<SqlType>)], alias: &TableAlias) {
    for (c, a) in columns.iter_mut().zip(&alias.columns) {
        c.0 = ident(&a.name);
    }
}

/// Whether a merged column takes the right input's: its type is the
/// common one the left's is promoted to.
pub(super) fn wider(right: Option<SqlType>, left: Option<SqlType>) -> bool {
    let rank = |t: Option<SqlType>| match t {
        Some(SqlType::Int2) => 1,
        Some(SqlType::Int4) => 2,
        Some(SqlType::Int8) => 3,
        Some(SqlType::Numeric(_)) => 4,
        Some(SqlType::Float4) => 5,
        Some(SqlType::Float8) => 6,
        Some(SqlType::Varchar(_)) | Some(SqlType::Char(_)) => 1,
        Some(SqlType::Text) => 2,
        _ => 0,
    };
    rank(right) > rank(left) && rank(left) > 0
}
