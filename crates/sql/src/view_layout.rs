//! A view's query printed in PostgreSQL 15's layout: what
//! `pg_get_viewdef`, `pg_views.definition`,
//! `information_schema.views.view_definition` and `pg_matviews.definition`
//! give (README "View definitions"). folio keeps a view's query as SQL
//! text (`views::stored_text`); this module parses it and prints it as
//! PostgreSQL's deparser (`ruleutils.c`, `get_query_def`) prints an
//! analyzed query:
//!
//! - **Layout.** Each clause starts a line, indented by PostgreSQL's
//!   levels (a query body 8 deeper than its parent, select items 4 in,
//!   `FROM` 2, `WHERE` / `GROUP BY` / `ORDER BY` 1, joins 4); select
//!   items and FROM items one a line; subqueries in parentheses at the
//!   level they stand; set operations and `WITH` as PostgreSQL nests them.
//! - **Names.** Every column reference is qualified by the FROM item it
//!   reads (PostgreSQL 15's views have more than one range table entry);
//!   a merged `USING` / `NATURAL` column names the left input (the right
//!   for a RIGHT join, or the one of the common type), bare for a FULL
//!   join; relations are printed bare when the search path finds them,
//!   else schema-qualified; `*` is written out.
//! - **Constants and operators.** A quoted literal is labelled with its
//!   type (`'x'::text`; the column's type when compared with a column),
//!   negative numbers are `'-1'::integer`, `LIKE` is `~~`, `IN (list)`
//!   is `= ANY (ARRAY[...])`, `BETWEEN` two comparisons.
//! - **Parentheses.** The pretty form (`pg_get_viewdef(v, true)`, psql)
//!   puts them only where precedence needs them; the default form around
//!   every operator expression.
//!
//! What the stored text cannot say (an expression's type beyond the
//! columns, literals and casts it is made of) is not resolved: such an
//! operand prints as written.

use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    BinaryOperator, Cte, Distinct, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, Ident, JoinConstraint, JoinOperator, LimitClause, ObjectName, OrderByKind, Query,
    Select, SelectItem, SetExpr, SetOperator, SetQuantifier, TableAlias, TableFactor,
    TableWithJoins, UnaryOperator,
};

/// PostgreSQL's indentation steps (`PRETTYINDENT_*`).
const INDENT_STD: i32 = 8;
const INDENT_JOIN: i32 = 4;
const INDENT_VAR: i32 = 4;
const INDENT_LIMIT: i32 = 40;

/// A relation as the printer needs it: its name as printed (bare when
/// visible) and its columns.
pub struct RelationInfo {
    pub printed: String,
    pub columns: Vec<Column>,
}

/// What the printer asks of the catalog.
pub trait Relations {
    /// The relation a FROM item names, if it is one.
    fn relation(&self, name: &ObjectName) -> Option<RelationInfo>;
}

/// How a definition is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// Parentheses only where needed (PostgreSQL's `PRETTYFLAG_PAREN`).
    pub pretty: bool,
    /// Select and FROM items go on a new line past this column (0:
    /// always; PostgreSQL's `wrapColumn`).
    pub wrap_column: usize,
}

impl Form {
    /// `pg_get_viewdef(v)`'s (and `pg_views`'): every operator in
    /// parentheses, one item a line.
    pub const DEFAULT: Form = Form {
        pretty: false,
        wrap_column: 0,
    };
}

/// `pg_get_viewdef`'s text of the view whose stored query is `text` and
/// whose columns are `columns`: the query in PostgreSQL's layout and a
/// `;`. A text that does not parse is given as it is.
pub fn definition(text: &str, columns: &[String], relations: &dyn Relations, form: Form) -> String {
    let Ok(query) = crate::views::parse_text("view", text) else {
        return format!(" {text};");
    };
    let mut printer = Printer {
        out: String::new(),
        indent: 0,
        form,
        relations,
        levels: Vec::new(),
        ctes: Vec::new(),
    };
    printer.query(&query, 0, Some(columns));
    printer.out.push(';');
    printer.out
}

/// A column's name and, when known, its type.
type Column = (String, Option<SqlType>);

/// One FROM item as names see it.
#[derive(Clone, Debug)]
struct Item {
    /// The name the query gives it (its alias, or its bare name).
    original: String,
    /// The name it is printed under: the original, numbered when an
    /// enclosing query level uses it too (PostgreSQL's `t_1`).
    refname: String,
    columns: Option<Vec<Column>>,
}

/// A merged `USING` column: its name and how a reference prints.
#[derive(Clone, Debug)]
struct Merged {
    name: String,
    printed: String,
    ty: Option<SqlType>,
}

/// The names one query level's FROM clause brings.
#[derive(Clone, Debug, Default)]
struct Level {
    items: Vec<Item>,
    merged: Vec<Merged>,
}

/// What a node is, for PostgreSQL's `isSimpleNode` parenthesis rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A name, constant, call or other self-delimited form.
    Simple,
    /// An operator, with its text.
    Op(&'static str),
    /// AND, OR, NOT.
    And,
    Or,
    Not,
    /// IS NULL, IS DISTINCT FROM, a sublink with an operator.
    Test,
    /// `x op ANY / ALL (array)`: parenthesised under any operator or
    /// AND / OR (not one of `isSimpleNode`'s known nodes).
    ArrayOp,
}

/// The node an operand is printed under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parent {
    /// Delimited by syntax (a list, a clause, a call's parentheses).
    Free,
    /// An operator; whether the operand is its first.
    Op(&'static str, bool),
    And,
    Or,
    Not,
    /// IS NULL, a cast, and others that bind tighter than any operator.
    Tight,
}

struct Printer<'a> {
    out: String,
    indent: i32,
    form: Form,
    relations: &'a dyn Relations,
    /// The FROM scopes of the queries being printed, innermost last.
    levels: Vec<Level>,
    /// The WITH items in scope, innermost last: name and columns.
    ctes: Vec<(String, Vec<Column>)>,
}

fn quote(name: &str) -> String {
    crate::names::written(name).to_string()
}

fn ident(id: &Ident) -> String {
    crate::names::ident(id)
}

impl Printer<'_> {
    // ----- layout -------------------------------------------------------

    /// PostgreSQL's `appendContextKeyword`: a new line indented to the
    /// level, then `text`.
    fn keyword(&mut self, text: &str, before: i32, after: i32, plus: i32) {
        self.indent += before;
        let trimmed = self.out.trim_end_matches(' ').len();
        self.out.truncate(trimmed);
        self.out.push('\n');
        let amount = if self.indent < INDENT_LIMIT {
            self.indent.max(0) + plus
        } else {
            (INDENT_LIMIT + (self.indent - INDENT_LIMIT) / (INDENT_STD / 2)) % INDENT_LIMIT + plus
        };
        self.out.extend(std::iter::repeat_n(' ', amount as usize));
        self.out.push_str(text);
        self.indent = (self.indent + after).max(0);
    }

    /// The text of the current line (after the last newline).
    fn line_len(&self) -> usize {
        match self.out.rfind('\n') {
            Some(at) => self.out.len() - at - 1,
            None => self.out.len(),
        }
    }

    /// Appends an item of a list printed by `print` (select or FROM
    /// items) after its separator, breaking the line as PostgreSQL's
    /// wrapping does. Returns whether the item spanned lines.
    fn wrapped_item(
        &mut self,
        first: bool,
        last_multiline: bool,
        print: impl FnOnce(&mut Self),
    ) -> bool {
        // (The item is printed apart, as PostgreSQL's `targetbuf`.)
        let before = std::mem::take(&mut self.out);
        print(self);
        let text = std::mem::replace(&mut self.out, before);
        if let Some(rest) = text.strip_prefix('\n') {
            let trimmed = self.out.trim_end_matches(' ').len();
            self.out.truncate(trimmed);
            self.out.push('\n');
            self.out.push_str(rest);
            return rest.contains('\n');
        }
        if !first && (self.line_len() + text.len() > self.form.wrap_column || last_multiline) {
            self.keyword("", -INDENT_STD, INDENT_STD, INDENT_VAR);
        }
        self.out.push_str(&text);
        text.contains('\n')
    }

    // ----- queries ------------------------------------------------------

    /// PostgreSQL's `get_query_def` at indentation `start`; `names`: the
    /// output columns' names (a view's), else the query's own.
    fn query(&mut self, query: &Query, start: i32, names: Option<&[String]>) {
        let saved = self.indent;
        self.indent = start;
        let ctes = self.ctes.len();
        // (The WITH items' names first, then this level's FROM names,
        // which the items' queries see as taken.)
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                let columns = self.query_columns(&cte.query, &cte.alias);
                self.ctes.push((ident(&cte.alias.name), columns));
            }
        }
        let setop = !matches!(query.body.as_ref(), SetExpr::Select(_) | SetExpr::Values(_));
        let select = match query.body.as_ref() {
            SetExpr::Select(s) => Some(s.as_ref()),
            _ => None,
        };
        let level = select.map(|s| self.scope_of(&s.from));
        if let Some(level) = level {
            self.levels.push(level);
        }
        if let Some(with) = &query.with {
            self.with_clause(&with.cte_tables, with.recursive);
        }
        self.body(&query.body, names);
        if let Some(order_by) = &query.order_by
            && let OrderByKind::Expressions(exprs) = &order_by.kind
            && !exprs.is_empty()
        {
            self.keyword(" ORDER BY ", -INDENT_STD, INDENT_STD, 1);
            for (i, o) in exprs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                match (setop, select) {
                    (true, _) => self.out.push_str(&o.expr.to_string()),
                    (false, Some(s)) => self.sort_key(&o.expr, s, names),
                    (false, None) => self.expr(&o.expr, Parent::Free),
                }
                match o.options.asc {
                    Some(false) => {
                        self.out.push_str(" DESC");
                        if o.options.nulls_first == Some(false) {
                            self.out.push_str(" NULLS LAST");
                        }
                    }
                    _ => {
                        if o.options.nulls_first == Some(true) {
                            self.out.push_str(" NULLS FIRST");
                        }
                    }
                }
            }
        }
        if let Some(LimitClause::LimitOffset { limit, offset, .. }) = &query.limit_clause {
            if let Some(offset) = offset {
                self.keyword(" OFFSET ", -INDENT_STD, INDENT_STD, 0);
                self.expr(&offset.value, Parent::Free);
            }
            if let Some(limit) = limit {
                self.keyword(" LIMIT ", -INDENT_STD, INDENT_STD, 0);
                match limit {
                    Expr::Value(v) if v.value == sqlparser::ast::Value::Null => {
                        self.out.push_str("ALL")
                    }
                    _ => self.expr(limit, Parent::Free),
                }
            }
        }
        if let Some(fetch) = &query.fetch
            && let Some(quantity) = &fetch.quantity
        {
            self.keyword(" LIMIT ", -INDENT_STD, INDENT_STD, 0);
            self.expr(quantity, Parent::Free);
        }
        if select.is_some() {
            self.levels.pop();
        }
        self.ctes.truncate(ctes);
        self.indent = saved;
    }

    /// `get_with_clause`.
    fn with_clause(&mut self, ctes: &[Cte], recursive: bool) {
        self.indent += INDENT_STD;
        self.out.push(' ');
        let mut sep = if recursive {
            "WITH RECURSIVE "
        } else {
            "WITH "
        };
        for cte in ctes {
            let name = ident(&cte.alias.name);
            self.out.push_str(sep);
            self.out.push_str(&quote(&name));
            if !cte.alias.columns.is_empty() {
                let names: Vec<String> = (cte.alias.columns.iter())
                    .map(|c| quote(&ident(&c.name)))
                    .collect();
                self.out.push_str(&format!("({})", names.join(", ")));
            }
            self.out.push_str(" AS ");
            match cte.materialized {
                Some(sqlparser::ast::CteAsMaterialized::Materialized) => {
                    self.out.push_str("MATERIALIZED ")
                }
                Some(sqlparser::ast::CteAsMaterialized::NotMaterialized) => {
                    self.out.push_str("NOT MATERIALIZED ")
                }
                None => {}
            }
            self.out.push('(');
            self.keyword("", 0, 0, 0);
            let indent = self.indent;
            self.query(&cte.query, indent, None);
            self.keyword("", 0, 0, 0);
            self.out.push(')');
            if let Ok(Some(clauses)) = crate::search_cycle::of(cte) {
                self.search_cycle(&clauses);
            }
            sep = ", ";
        }
        self.indent -= INDENT_STD;
        self.keyword("", 0, 0, 0);
    }

    fn search_cycle(&mut self, clauses: &crate::search_cycle::Clauses) {
        let list = |names: &[String]| {
            names
                .iter()
                .map(|n| quote(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some(s) = &clauses.search {
            let order = if s.breadth { "BREADTH" } else { "DEPTH" };
            let text = format!(
                " SEARCH {order} FIRST BY {} SET {}",
                list(&s.columns),
                quote(&s.seq)
            );
            self.out.push_str(&text);
        }
        if let Some(c) = &clauses.cycle {
            self.out.push_str(&format!(
                " CYCLE {} SET {}",
                list(&c.columns),
                quote(&c.mark)
            ));
            if !(c.value == "true" && c.default == "false") {
                let value = |v: &str| match crate::parse::expression(v) {
                    Ok(e) => {
                        let mut p = self.sub();
                        p.expr(&e, Parent::Free);
                        p.out
                    }
                    Err(_) => v.to_string(),
                };
                let text = format!(" TO {} DEFAULT {}", value(&c.value), value(&c.default));
                self.out.push_str(&text);
            }
            self.out.push_str(&format!(" USING {}", quote(&c.path)));
        }
    }

    /// A printer for a fragment with this one's scopes.
    fn sub(&self) -> Printer<'_> {
        Printer {
            out: String::new(),
            indent: self.indent,
            form: self.form,
            relations: self.relations,
            levels: self.levels.clone(),
            ctes: self.ctes.clone(),
        }
    }

    /// A query body: a SELECT, VALUES or a set operation (`get_setop_query`).
    fn body(&mut self, body: &SetExpr, names: Option<&[String]>) {
        match body {
            SetExpr::Select(select) => self.select(select, names),
            SetExpr::Values(values) => {
                self.indent += INDENT_STD;
                self.out.push(' ');
                self.values(values);
            }
            SetExpr::Query(q) => {
                let paren = q.with.is_some()
                    || q.order_by.is_some()
                    || q.limit_clause.is_some()
                    || q.fetch.is_some();
                if paren {
                    self.out.push('(');
                }
                let indent = self.indent;
                self.query(q, indent, names);
                if paren {
                    self.out.push(')');
                }
            }
            SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let same = |e: &SetExpr| match e {
                    SetExpr::SetOperation {
                        op: o,
                        set_quantifier: q,
                        ..
                    } => o == op && all(q) == all(set_quantifier),
                    _ => false,
                };
                let left_setop = matches!(left.as_ref(), SetExpr::SetOperation { .. });
                let paren = left_setop && !same(left);
                let sub = if paren { INDENT_STD } else { 0 };
                if paren {
                    self.out.push('(');
                    self.keyword("", sub, 0, 0);
                }
                self.leaf(left, names);
                if paren {
                    self.keyword(") ", -sub, 0, 0);
                } else {
                    self.keyword("", -sub, 0, 0);
                }
                self.out.push_str(match op {
                    SetOperator::Union => "UNION ",
                    SetOperator::Intersect => "INTERSECT ",
                    SetOperator::Except | SetOperator::Minus => "EXCEPT ",
                });
                if all(set_quantifier) {
                    self.out.push_str("ALL ");
                }
                let paren = matches!(right.as_ref(), SetExpr::SetOperation { .. });
                let sub = if paren { INDENT_STD } else { 0 };
                if paren {
                    self.out.push('(');
                }
                self.keyword("", sub, 0, 0);
                self.leaf(right, names);
                self.indent -= sub;
                if paren {
                    self.keyword(")", 0, 0, 0);
                }
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// An input of a set operation: a set operation, or a query of its
    /// own at the current level.
    fn leaf(&mut self, body: &SetExpr, names: Option<&[String]>) {
        match body {
            SetExpr::SetOperation { .. } | SetExpr::Query(_) => self.body(body, names),
            SetExpr::Select(select) => {
                let indent = self.indent;
                let saved = self.indent;
                self.indent = indent;
                let level = self.scope_of(&select.from);
                self.levels.push(level);
                self.select(select, names);
                self.levels.pop();
                self.indent = saved;
            }
            SetExpr::Values(values) => {
                let saved = self.indent;
                self.indent += INDENT_STD;
                self.out.push(' ');
                self.values(values);
                self.indent = saved;
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    fn values(&mut self, values: &sqlparser::ast::Values) {
        self.out.push_str("VALUES ");
        for (i, row) in values.rows.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push('(');
            for (j, e) in row.iter().enumerate() {
                if j > 0 {
                    self.out.push(',');
                }
                self.top_expr(e);
            }
            self.out.push(')');
        }
    }

    /// `get_basic_select_query` (the scope of its FROM is pushed).
    fn select(&mut self, select: &Select, names: Option<&[String]>) {
        self.indent += INDENT_STD;
        self.out.push(' ');
        self.out.push_str("SELECT");
        match &select.distinct {
            Some(Distinct::Distinct) => self.out.push_str(" DISTINCT"),
            Some(Distinct::On(exprs)) => {
                self.out.push_str(" DISTINCT ON (");
                for (i, e) in exprs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.sort_key(e, select, names);
                }
                self.out.push(')');
            }
            None => {}
        }
        self.target_list(select, names);
        self.print_from(&select.from);
        if let Some(selection) = &select.selection {
            self.keyword(" WHERE ", -INDENT_STD, INDENT_STD, 1);
            self.expr(selection, Parent::Free);
        }
        if let GroupByExpr::Expressions(exprs, _) = &select.group_by
            && !exprs.is_empty()
        {
            self.keyword(" GROUP BY ", -INDENT_STD, INDENT_STD, 1);
            for (i, e) in exprs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.group_key(e, select);
            }
        }
        if let Some(having) = &select.having {
            self.keyword(" HAVING ", -INDENT_STD, INDENT_STD, 0);
            self.expr(having, Parent::Free);
        }
    }

    /// The select items as (expression, output name), `*` written out.
    fn items(&self, select: &Select) -> Vec<(Expr, Option<String>)> {
        let mut out = Vec::new();
        for item in &select.projection {
            match item {
                SelectItem::UnnamedExpr(e) => out.push((e.clone(), None)),
                SelectItem::ExprWithAlias { expr, alias } => {
                    out.push((expr.clone(), Some(ident(alias))))
                }
                SelectItem::Wildcard(_) => {
                    for (qualifier, name) in self.star(None) {
                        out.push((column_expr(qualifier.as_deref(), &name), None));
                    }
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    let q = match kind {
                        sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                            last_part(n)
                        }
                        other => other.to_string(),
                    };
                    for (qualifier, name) in self.star(Some(&q)) {
                        out.push((column_expr(qualifier.as_deref(), &name), None));
                    }
                }
            }
        }
        out
    }

    /// The columns `*` (or `q.*`) stands for at the innermost level: a
    /// qualifier (none for a merged column of a FULL join) and a name.
    fn star(&self, qualifier: Option<&str>) -> Vec<(Option<String>, String)> {
        let Some(level) = self.levels.last() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if qualifier.is_none() {
            for m in &level.merged {
                let (q, n) = match m.printed.rsplit_once('.') {
                    Some((q, n)) => (Some(q.to_string()), n.to_string()),
                    None => (None, m.printed.clone()),
                };
                let _ = n;
                out.push((q, m.name.clone()));
            }
        }
        for item in &level.items {
            if qualifier.is_some_and(|q| q != item.original) {
                continue;
            }
            for (name, _) in item.columns.iter().flatten() {
                if qualifier.is_none() && level.merged.iter().any(|m| &m.name == name) {
                    continue;
                }
                out.push((Some(item.refname.clone()), name.clone()));
            }
        }
        out
    }

    /// `get_target_list`.
    fn target_list(&mut self, select: &Select, names: Option<&[String]>) {
        let items = self.items(select);
        let mut last_multiline = false;
        for (i, (expr, alias)) in items.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            let colname = match names.and_then(|n| n.get(i)) {
                Some(n) => Some(n.clone()),
                None => alias.clone().or_else(|| Some(figure_name(expr))),
            };
            last_multiline = self.wrapped_item(i == 0, last_multiline, |p| {
                let attname = p.select_item(expr);
                if let Some(colname) = colname
                    && attname.as_deref() != Some(colname.as_str())
                {
                    p.out.push_str(" AS ");
                    p.out.push_str(&quote(&colname));
                }
            });
        }
    }

    /// One select item's expression; the column's name when it is a
    /// column reference (the label it needs no AS for), else
    /// `?column?`.
    fn select_item(&mut self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                let name = match expr {
                    Expr::Identifier(id) => ident(id),
                    Expr::CompoundIdentifier(parts) => parts.last().map(ident).unwrap_or_default(),
                    _ => unreachable!(),
                };
                self.expr(expr, Parent::Free);
                Some(name)
            }
            Expr::Nested(inner) => self.select_item(inner),
            _ => {
                self.top_expr(expr);
                Some("?column?".to_string())
            }
        }
    }

    /// An output expression: an untyped literal is text.
    fn top_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Value(v) if v.value == sqlparser::ast::Value::Null => {
                self.out.push_str("NULL::text")
            }
            _ => self.expr(expr, Parent::Free),
        }
    }

    /// An ORDER BY or DISTINCT ON key: a position or an output name
    /// stands for its select item's expression.
    fn sort_key(&mut self, key: &Expr, select: &Select, names: Option<&[String]>) {
        let items = self.items(select);
        let target = match key {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(n, _) => n
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| items.get(n.wrapping_sub(1))),
                _ => None,
            },
            Expr::Identifier(id) => {
                let name = ident(id);
                items.iter().enumerate().find_map(|(i, item)| {
                    let out = (names.and_then(|n| n.get(i)).cloned())
                        .or_else(|| item.1.clone())
                        .unwrap_or_else(|| figure_name(&item.0));
                    (out == name && !matches!(item.0, Expr::Identifier(_))).then_some(item)
                })
            }
            _ => None,
        };
        let expr = target.map_or(key.clone(), |(e, _)| e.clone());
        self.sort_group_expr(&expr)
    }

    /// PostgreSQL's `get_rule_sortgroupclause`: a column as it is, a
    /// constant labelled with its type, another expression in
    /// parentheses (a call's also in the default form).
    fn sort_group_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Nested(inner) => self.sort_group_expr(inner),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.expr(expr, Parent::Free),
            Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Number(..)) => {
                let ty = self.type_of(expr).unwrap_or(SqlType::Int4);
                let text = format!(
                    "{}::{}",
                    self.literal(&v.value, None),
                    crate::catalog_functions::type_name(ty.oid() as i64, ty.typmod())
                );
                self.out.push_str(&text);
            }
            Expr::Value(_) => self.expr(expr, Parent::Free),
            _ => {
                let paren = self.form.pretty || matches!(expr, Expr::Function(_));
                if paren {
                    self.out.push('(');
                }
                self.expr(expr, Parent::Free);
                if paren {
                    self.out.push(')');
                }
            }
        }
    }

    fn group_key(&mut self, key: &Expr, select: &Select) {
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

    // ----- FROM -----------------------------------------------------------

    /// `get_from_clause`.
    fn print_from(&mut self, from: &[TableWithJoins]) {
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

    fn table_with_joins(&mut self, item: &TableWithJoins) {
        // Left-deep: `a JOIN b JOIN c` is ((a b) c).
        self.joins(&item.relation, &item.joins);
    }

    fn joins(&mut self, first: &TableFactor, joins: &[sqlparser::ast::Join]) {
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
                let common: Vec<String> = (left.iter())
                    .filter(|(n, _)| right.iter().any(|(m, _)| m == n))
                    .map(|(n, _)| quote(n))
                    .collect();
                match common.is_empty() {
                    true if word != " CROSS JOIN " => self.out.push_str(" ON TRUE"),
                    true => {}
                    false => self
                        .out
                        .push_str(&format!(" USING ({})", common.join(", "))),
                }
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

    fn factor(&mut self, factor: &TableFactor) {
        match factor {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if let Some(args) = args {
                    let fname = last_part(name);
                    self.out.push_str(&function_name(&fname));
                    self.out.push('(');
                    for (i, a) in args.args.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.function_arg(a);
                    }
                    self.out.push(')');
                    let alias_name = alias.as_ref().map_or(fname.clone(), |a| ident(&a.name));
                    self.out.push(' ');
                    self.out.push_str(&quote(&alias_name));
                    match alias {
                        Some(a) if !a.columns.is_empty() => self.alias_columns(a),
                        _ if single_column_function(&fname) => {
                            self.out.push_str(&format!("({})", quote(&alias_name)))
                        }
                        _ => {}
                    }
                    return;
                }
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
                self.query(subquery, indent, None);
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
                self.out.push_str(&function_name(&fname));
                self.out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.function_arg(a);
                }
                self.out.push(')');
                let alias_name = alias.as_ref().map_or(fname, |a| ident(&a.name));
                self.out.push(' ');
                self.out.push_str(&quote(&alias_name));
                if let Some(a) = alias {
                    self.alias_columns(a);
                }
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    fn alias_columns(&mut self, alias: &TableAlias) {
        if alias.columns.is_empty() {
            return;
        }
        let names: Vec<String> = (alias.columns.iter())
            .map(|c| quote(&ident(&c.name)))
            .collect();
        self.out.push_str(&format!("({})", names.join(", ")));
    }

    // ----- scopes ---------------------------------------------------------

    /// The names a FROM clause brings.
    fn scope_of(&self, from: &[TableWithJoins]) -> Level {
        let mut level = Level::default();
        for item in from {
            self.scope_joins(&item.relation, &item.joins, &mut level);
        }
        level
    }

    fn scope_joins(&self, first: &TableFactor, joins: &[sqlparser::ast::Join], level: &mut Level) {
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
            level.merged.retain(|m| m.name != name);
            level.merged.push(Merged { name, printed, ty });
        }
        let _ = merged_start;
    }

    fn scope_factor(&self, factor: &TableFactor, level: &mut Level) {
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
                    | TableFactor::Function { alias: Some(a), .. } => ident(&a.name),
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
    fn unique(&self, name: &str, level: &Level) -> String {
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
    fn refname_of(&self, original: &str) -> Option<String> {
        (self.levels.iter().rev())
            .find_map(|l| l.items.iter().find(|i| i.original == original))
            .map(|i| i.refname.clone())
    }

    /// The columns of a FROM item (empty when unknown).
    fn columns_of_factor(&self, factor: &TableFactor) -> Vec<Column> {
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
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => vec![(last_part(name), None)],
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
        | TableFactor::Function { alias: Some(a), .. } = factor
        {
            rename(&mut columns, a);
        }
        columns
    }

    fn factor_columns(&self, first: &TableFactor, joins: &[sqlparser::ast::Join]) -> Vec<Column> {
        let mut level = Level::default();
        self.scope_joins(first, joins, &mut level);
        columns_of(&level.items, &level.merged)
    }

    /// A query's output columns (renamed by `alias`'s column list).
    fn query_columns(&self, query: &Query, alias: &TableAlias) -> Vec<Column> {
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
    fn resolve(&self, name: &str) -> Option<(String, Option<SqlType>)> {
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
    fn qualified_type(&self, q: &str, name: &str) -> Option<SqlType> {
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
    fn type_of(&self, expr: &Expr) -> Option<SqlType> {
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

    // ----- expressions ----------------------------------------------------

    fn open(&mut self, kind: Kind, parent: Parent) -> bool {
        let paren = self.form.pretty && !simple(kind, parent);
        if paren {
            self.out.push('(');
        }
        paren
    }

    fn close(&mut self, paren: bool) {
        if paren {
            self.out.push(')');
        }
    }

    /// A self-parenthesised node of the default form.
    fn own_open(&mut self) {
        if !self.form.pretty {
            self.out.push('(');
        }
    }

    fn own_close(&mut self) {
        if !self.form.pretty {
            self.out.push(')');
        }
    }

    fn expr(&mut self, expr: &Expr, parent: Parent) {
        match expr {
            Expr::Nested(inner) => self.expr(inner, parent),
            Expr::Identifier(id) => {
                let name = ident(id);
                match self.resolve(&name) {
                    Some((printed, _)) => self.out.push_str(&printed),
                    None => self.out.push_str(&quote(&name)),
                }
            }
            Expr::CompoundIdentifier(parts) => {
                let n = parts.len();
                if n >= 2 && ident(&parts[n - 2]).starts_with("unnamed_join") {
                    let name = ident(&parts[n - 1]);
                    let printed = self.resolve(&name).map_or(quote(&name), |r| r.0);
                    self.out.push_str(&printed);
                    return;
                }
                let keep = &parts[n.saturating_sub(2)..];
                let mut text: Vec<String> = keep.iter().map(|p| quote(&ident(p))).collect();
                if n >= 2
                    && let Some(refname) = self.refname_of(&ident(&parts[n - 2]))
                {
                    text[0] = quote(&refname);
                }
                self.out.push_str(&text.join("."));
            }
            Expr::Value(v) => {
                let text = self.literal(&v.value, None);
                self.out.push_str(&text);
            }
            Expr::TypedString(t) => {
                let text = match (types::column_type(&t.data_type), &t.value.value) {
                    (Ok(ty), sqlparser::ast::Value::SingleQuotedString(s)) => {
                        typed_constant(s, ty, self.form.pretty)
                    }
                    _ => expr.to_string(),
                };
                self.out.push_str(&text);
            }
            Expr::Cast {
                expr: inner,
                data_type,
                ..
            } => {
                let Ok(ty) = types::column_type(data_type) else {
                    let paren = self.open(Kind::Simple, parent);
                    self.out.push_str(&expr.to_string());
                    self.close(paren);
                    return;
                };
                if let Some(text) = self.constant_of(inner) {
                    self.out
                        .push_str(&typed_constant(&text, ty, self.form.pretty));
                    return;
                }
                self.own_open();
                self.expr(inner, Parent::Tight);
                self.own_close();
                self.out.push_str("::");
                self.out.push_str(&crate::catalog_functions::type_name(
                    ty.oid() as i64,
                    ty.typmod(),
                ));
            }
            Expr::UnaryOp { op, expr: inner } => match op {
                UnaryOperator::Not => self.bool_list(Kind::Not, &[inner.as_ref()], parent),
                UnaryOperator::Minus => {
                    if let Expr::Value(v) = inner.as_ref()
                        && let sqlparser::ast::Value::Number(n, _) = &v.value
                    {
                        let text = negative_number(n);
                        self.out.push_str(&text);
                        return;
                    }
                    let paren = self.open(Kind::Op("-"), parent);
                    self.own_open();
                    self.out.push_str("- ");
                    self.expr(inner, Parent::Op("-", false));
                    self.own_close();
                    self.close(paren);
                }
                other => {
                    let paren = self.open(Kind::Op("+"), parent);
                    self.own_open();
                    self.out.push_str(&format!("{other} "));
                    self.expr(inner, Parent::Op("+", false));
                    self.own_close();
                    self.close(paren);
                }
            },
            Expr::BinaryOp { left, op, right } => match op {
                BinaryOperator::And => {
                    let mut list = Vec::new();
                    flatten(expr, &BinaryOperator::And, &mut list);
                    self.bool_list(Kind::And, &list, parent)
                }
                BinaryOperator::Or => {
                    let mut list = Vec::new();
                    flatten(expr, &BinaryOperator::Or, &mut list);
                    self.bool_list(Kind::Or, &list, parent)
                }
                _ => {
                    let text = op_text(op);
                    self.binary(left, &text, right, parent)
                }
            },
            Expr::Like {
                negated,
                expr: l,
                pattern,
                ..
            } => self.binary(l, if *negated { "!~~" } else { "~~" }, pattern, parent),
            Expr::ILike {
                negated,
                expr: l,
                pattern,
                ..
            } => self.binary(l, if *negated { "!~~*" } else { "~~*" }, pattern, parent),
            Expr::Between {
                expr: e,
                negated,
                low,
                high,
            } => {
                let (lo, hi, join) = match negated {
                    false => (
                        BinaryOperator::GtEq,
                        BinaryOperator::LtEq,
                        BinaryOperator::And,
                    ),
                    true => (BinaryOperator::Lt, BinaryOperator::Gt, BinaryOperator::Or),
                };
                let rewritten = Expr::BinaryOp {
                    left: Box::new(Expr::BinaryOp {
                        left: e.clone(),
                        op: lo,
                        right: low.clone(),
                    }),
                    op: join,
                    right: Box::new(Expr::BinaryOp {
                        left: e.clone(),
                        op: hi,
                        right: high.clone(),
                    }),
                };
                self.expr(&rewritten, parent)
            }
            Expr::InList {
                expr: e,
                list,
                negated,
            } => {
                let paren = self.open(Kind::ArrayOp, parent);
                self.own_open();
                self.expr(e, Parent::Tight);
                self.out.push_str(if *negated {
                    " <> ALL (ARRAY["
                } else {
                    " = ANY (ARRAY["
                });
                let ty = self.type_of(e);
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.operand(item, ty, Parent::Free);
                }
                self.out.push_str("])");
                self.own_close();
                self.close(paren);
            }
            Expr::InSubquery {
                expr: e,
                subquery,
                negated,
            } => {
                if *negated {
                    let plain = Expr::InSubquery {
                        expr: e.clone(),
                        subquery: subquery.clone(),
                        negated: false,
                    };
                    return self.bool_list(Kind::Not, &[&plain], parent);
                }
                self.out.push('(');
                self.expr(e, Parent::Tight);
                self.out.push_str(" IN (");
                let indent = self.indent;
                self.query(subquery, indent, None);
                self.out.push_str("))");
            }
            Expr::Exists { subquery, negated } => {
                if *negated {
                    let plain = Expr::Exists {
                        subquery: subquery.clone(),
                        negated: false,
                    };
                    return self.bool_list(Kind::Not, &[&plain], parent);
                }
                self.out.push_str("(EXISTS (");
                let indent = self.indent;
                self.query(subquery, indent, None);
                self.out.push_str("))");
            }
            Expr::Subquery(q) => {
                self.out.push('(');
                let indent = self.indent;
                self.query(q, indent, None);
                self.out.push(')');
            }
            Expr::IsNull(e) => self.test(e, " IS NULL", parent),
            Expr::IsNotNull(e) => self.test(e, " IS NOT NULL", parent),
            Expr::IsTrue(e) => self.test(e, " IS TRUE", parent),
            Expr::IsNotTrue(e) => self.test(e, " IS NOT TRUE", parent),
            Expr::IsFalse(e) => self.test(e, " IS FALSE", parent),
            Expr::IsNotFalse(e) => self.test(e, " IS NOT FALSE", parent),
            Expr::IsUnknown(e) => self.test(e, " IS UNKNOWN", parent),
            Expr::IsNotUnknown(e) => self.test(e, " IS NOT UNKNOWN", parent),
            Expr::IsDistinctFrom(l, r) | Expr::IsNotDistinctFrom(l, r) => {
                let word = match expr {
                    Expr::IsDistinctFrom(..) => " IS DISTINCT FROM ",
                    _ => " IS NOT DISTINCT FROM ",
                };
                let paren = self.open(Kind::Test, parent);
                self.own_open();
                let (lt, rt) = (self.type_of(l), self.type_of(r));
                self.operand(l, rt, Parent::Tight);
                self.out.push_str(word);
                self.operand(r, lt, Parent::Tight);
                self.own_close();
                self.close(paren);
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                self.keyword("CASE", 0, INDENT_VAR, 0);
                if let Some(op) = operand {
                    self.out.push(' ');
                    self.expr(op, Parent::Free);
                }
                for when in conditions {
                    self.keyword("WHEN ", 0, 0, 0);
                    self.expr(&when.condition, Parent::Free);
                    self.out.push_str(" THEN ");
                    self.top_expr(&when.result);
                }
                if let Some(e) = else_result {
                    self.keyword("ELSE ", 0, 0, 0);
                    self.top_expr(e);
                }
                self.keyword("END", -INDENT_VAR, 0, 0);
            }
            Expr::Function(f) => self.function(f),
            Expr::Substring {
                expr: e,
                substring_from,
                substring_for,
                ..
            } => {
                self.out.push_str("\"substring\"(");
                self.expr(e, Parent::Free);
                for part in [substring_from, substring_for].into_iter().flatten() {
                    self.out.push_str(", ");
                    self.expr(part, Parent::Free);
                }
                self.out.push(')');
            }
            Expr::Array(array) => {
                self.out.push_str("ARRAY[");
                for (i, e) in array.elem.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(e, Parent::Free);
                }
                self.out.push(']');
            }
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | Expr::AllOp {
                left,
                compare_op,
                right,
            } => {
                let word = if matches!(expr, Expr::AnyOp { .. }) {
                    "ANY"
                } else {
                    "ALL"
                };
                let paren = self.open(Kind::ArrayOp, parent);
                self.own_open();
                self.expr(left, Parent::Tight);
                self.out
                    .push_str(&format!(" {} {word} (", op_text(compare_op)));
                self.expr(right, Parent::Free);
                self.out.push(')');
                self.own_close();
                self.close(paren);
            }
            other => {
                let paren = self.open(Kind::Simple, parent);
                self.out.push_str(&other.to_string());
                self.close(paren);
            }
        }
    }

    /// A binary operator; a literal operand takes the other side's type.
    fn binary(&mut self, left: &Expr, op: &str, right: &Expr, parent: Parent) {
        let kind = Kind::Op(static_op(op));
        let paren = self.open(kind, parent);
        self.own_open();
        let (mut lt, mut rt) = (self.type_of(left), self.type_of(right));
        // A varchar column against text reads as text (PostgreSQL's
        // implicit cast, which it prints).
        let texty = |t: Option<SqlType>, e: &Expr| t == Some(SqlType::Text) || is_string(e);
        let varchar = |t: Option<SqlType>| matches!(t, Some(SqlType::Varchar(_)));
        let cast_left = varchar(lt) && texty(rt, right) && op != "||";
        let cast_right = varchar(rt) && texty(lt, left) && op != "||";
        let concat = op == "||";
        if cast_left || (concat && varchar(lt)) {
            lt = Some(SqlType::Text);
        }
        if cast_right || (concat && varchar(rt)) {
            rt = Some(SqlType::Text);
        }
        let side = static_op(op);
        if (cast_left || (concat && varchar(self.type_of(left)))) && !is_string(left) {
            self.cast_text(left, Parent::Op(side, true));
        } else {
            self.operand(left, rt, Parent::Op(side, true));
        }
        self.out.push(' ');
        self.out.push_str(op);
        self.out.push(' ');
        if (cast_right || (concat && varchar(self.type_of(right)))) && !is_string(right) {
            self.cast_text(right, Parent::Op(side, false));
        } else {
            self.operand(right, lt, Parent::Op(side, false));
        }
        self.own_close();
        self.close(paren);
    }

    fn cast_text(&mut self, e: &Expr, _parent: Parent) {
        self.own_open();
        self.expr(e, Parent::Tight);
        self.own_close();
        self.out.push_str("::text");
    }

    /// An operand: an untyped literal takes type `other`.
    fn operand(&mut self, e: &Expr, other: Option<SqlType>, parent: Parent) {
        match e {
            Expr::Value(v) => {
                let text = self.literal(&v.value, other);
                self.out.push_str(&text);
            }
            Expr::Nested(inner) if matches!(inner.as_ref(), Expr::Value(_)) => {
                self.operand(inner, other, parent)
            }
            _ => self.expr(e, parent),
        }
    }

    fn test(&mut self, e: &Expr, word: &str, parent: Parent) {
        let paren = self.open(Kind::Test, parent);
        self.own_open();
        self.expr(e, Parent::Tight);
        self.out.push_str(word);
        self.own_close();
        self.close(paren);
    }

    fn bool_list(&mut self, kind: Kind, list: &[&Expr], parent: Parent) {
        let paren = self.open(kind, parent);
        self.own_open();
        let (word, me) = match kind {
            Kind::And => (" AND ", Parent::And),
            Kind::Or => (" OR ", Parent::Or),
            _ => ("", Parent::Not),
        };
        if kind == Kind::Not {
            self.out.push_str("NOT ");
        }
        for (i, e) in list.iter().enumerate() {
            if i > 0 {
                self.out.push_str(word);
            }
            self.expr(e, me);
        }
        self.own_close();
        self.close(paren);
    }

    fn function(&mut self, f: &sqlparser::ast::Function) {
        let name = last_part(&f.name);
        let upper = matches!(name.as_str(), "coalesce" | "nullif" | "greatest" | "least");
        if matches!(f.args, FunctionArguments::None) {
            let text = match name.as_str() {
                "current_date" | "current_time" | "current_timestamp" | "localtime"
                | "localtimestamp" | "current_user" | "session_user" | "current_role"
                | "current_catalog" | "current_schema" | "user" => name.to_uppercase(),
                _ => function_name(&name),
            };
            self.out.push_str(&text);
            return;
        }
        self.out.push_str(&if upper {
            name.to_uppercase()
        } else {
            function_name(&name)
        });
        self.out.push('(');
        if let FunctionArguments::List(list) = &f.args {
            if matches!(
                list.duplicate_treatment,
                Some(sqlparser::ast::DuplicateTreatment::Distinct)
            ) {
                self.out.push_str("DISTINCT ");
            }
            // (COALESCE's literals take the other arguments' type.)
            let ty = match upper {
                true => list.args.iter().find_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if !is_string(e) => {
                        self.type_of(e)
                    }
                    _ => None,
                }),
                false => None,
            };
            for (i, a) in list.args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if upper => {
                        self.operand(e, ty, Parent::Free)
                    }
                    _ => self.function_arg(a),
                }
            }
            for clause in &list.clauses {
                if let sqlparser::ast::FunctionArgumentClause::OrderBy(order) = clause {
                    self.out.push_str(" ORDER BY ");
                    for (i, o) in order.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.expr(&o.expr, Parent::Free);
                        if o.options.asc == Some(false) {
                            self.out.push_str(" DESC");
                        }
                    }
                }
            }
        }
        self.out.push(')');
        if let Some(filter) = &f.filter {
            self.out.push_str(" FILTER (WHERE ");
            self.expr(filter, Parent::Free);
            self.out.push(')');
        }
        if let Some(over) = &f.over {
            self.out.push_str(" OVER ");
            match over {
                sqlparser::ast::WindowType::NamedWindow(n) => self.out.push_str(&quote(&ident(n))),
                sqlparser::ast::WindowType::WindowSpec(spec) => {
                    self.out.push('(');
                    let mut sep = "";
                    if !spec.partition_by.is_empty() {
                        self.out.push_str("PARTITION BY ");
                        for (i, e) in spec.partition_by.iter().enumerate() {
                            if i > 0 {
                                self.out.push_str(", ");
                            }
                            self.expr(e, Parent::Free);
                        }
                        sep = " ";
                    }
                    if !spec.order_by.is_empty() {
                        self.out.push_str(sep);
                        self.out.push_str("ORDER BY ");
                        for (i, o) in spec.order_by.iter().enumerate() {
                            if i > 0 {
                                self.out.push_str(", ");
                            }
                            self.expr(&o.expr, Parent::Free);
                            if o.options.asc == Some(false) {
                                self.out.push_str(" DESC");
                            }
                        }
                    }
                    if spec.window_frame.is_some() {
                        // (A frame as sqlparser prints the window.)
                        self.out
                            .truncate(self.out.rfind(" OVER ").unwrap_or(self.out.len()));
                        self.out.push_str(&format!(" OVER ({spec})"));
                        return;
                    }
                    self.out.push(')');
                }
            }
        }
    }

    fn function_arg(&mut self, a: &FunctionArg) {
        match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => self.expr(e, Parent::Free),
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => self.out.push('*'),
            FunctionArg::Named { name, arg, .. } => {
                self.out.push_str(&format!("{} => ", quote(&ident(name))));
                match arg {
                    FunctionArgExpr::Expr(e) => self.expr(e, Parent::Free),
                    other => self.out.push_str(&other.to_string()),
                }
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// A literal, labelled as PostgreSQL prints a constant of type `ty`
    /// (text for a quoted one without a type).
    fn literal(&self, value: &sqlparser::ast::Value, ty: Option<SqlType>) -> String {
        use sqlparser::ast::Value as V;
        match value {
            V::SingleQuotedString(s) | V::EscapedStringLiteral(s) => match ty {
                Some(ty) if !matches!(ty, SqlType::Varchar(_)) => {
                    typed_constant(s, ty, self.form.pretty)
                }
                _ => format!("'{}'::text", s.replace('\'', "''")),
            },
            V::Number(n, _) => match (ty, types::literal(value)) {
                (Some(SqlType::Numeric(_)), Ok(Value::Int4(_) | Value::Int8(_))) => {
                    match self.form.pretty {
                        true => format!("{n}::numeric"),
                        false => format!("({n})::numeric"),
                    }
                }
                (_, Ok(Value::Int8(_))) => format!("'{n}'::bigint"),
                _ => n.to_string(),
            },
            V::Null => "NULL".to_string(),
            V::Boolean(b) => b.to_string(),
            other => other.to_string(),
        }
    }

    /// The text of a constant a cast applies to (a quoted literal, or a
    /// number), for PostgreSQL's folded constant.
    fn constant_of(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::SingleQuotedString(s) => Some(s.clone()),
                sqlparser::ast::Value::Number(n, _) => Some(n.clone()),
                _ => None,
            },
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => match expr.as_ref() {
                Expr::Value(v) => match &v.value {
                    sqlparser::ast::Value::Number(n, _) => Some(format!("-{n}")),
                    _ => None,
                },
                _ => None,
            },
            Expr::Nested(inner) => self.constant_of(inner),
            _ => None,
        }
    }
}

fn all(q: &SetQuantifier) -> bool {
    matches!(q, SetQuantifier::All | SetQuantifier::AllByName)
}

/// PostgreSQL's `isSimpleNode`: whether `kind` under `parent` prints
/// without parentheses in the pretty form.
fn simple(kind: Kind, parent: Parent) -> bool {
    match kind {
        Kind::Simple => true,
        Kind::Op(op) => match parent {
            Parent::Op(parent_op, first) => {
                let low = |o: &str| o == "+" || o == "-";
                let high = |o: &str| o == "*" || o == "/" || o == "%";
                if !(low(op) || high(op)) || !(low(parent_op) || high(parent_op)) {
                    return false;
                }
                if high(op) && low(parent_op) {
                    return true;
                }
                if low(op) && high(parent_op) {
                    return false;
                }
                first
            }
            Parent::Free | Parent::And | Parent::Or | Parent::Not => true,
            Parent::Tight => false,
        },
        Kind::Test => matches!(
            parent,
            Parent::Free | Parent::And | Parent::Or | Parent::Not
        ),
        Kind::And | Kind::Not => matches!(parent, Parent::Free | Parent::And | Parent::Or),
        Kind::Or => matches!(parent, Parent::Free | Parent::Or),
        Kind::ArrayOp => parent == Parent::Free,
    }
}

fn flatten<'e>(expr: &'e Expr, op: &BinaryOperator, out: &mut Vec<&'e Expr>) {
    match expr {
        Expr::BinaryOp { left, op: o, right } if o == op => {
            flatten(left, op, out);
            flatten(right, op, out);
        }
        Expr::Nested(inner) if matches!(inner.as_ref(), Expr::BinaryOp { op: o, .. } if o == op) => {
            flatten(inner, op, out)
        }
        other => out.push(other),
    }
}

fn op_text(op: &BinaryOperator) -> String {
    match op {
        BinaryOperator::NotEq => "<>".to_string(),
        BinaryOperator::PGRegexMatch => "~".to_string(),
        BinaryOperator::PGRegexIMatch => "~*".to_string(),
        BinaryOperator::PGRegexNotMatch => "!~".to_string(),
        BinaryOperator::PGRegexNotIMatch => "!~*".to_string(),
        BinaryOperator::PGCustomBinaryOperator(parts) => parts.join("."),
        other => other.to_string(),
    }
}

/// The operator's text when precedence rules know it (`+ - * / %`).
fn static_op(op: &str) -> &'static str {
    match op {
        "+" => "+",
        "-" => "-",
        "*" => "*",
        "/" => "/",
        "%" => "%",
        _ => "=",
    }
}

fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    )
}

fn is_string(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(v.value, sqlparser::ast::Value::SingleQuotedString(_)),
        Expr::Nested(inner) => is_string(inner),
        _ => false,
    }
}

/// `-n` folded to a constant, as PostgreSQL prints it.
fn negative_number(n: &str) -> String {
    let ty = match types::literal(&sqlparser::ast::Value::Number(n.to_string(), false)) {
        Ok(Value::Int4(_)) => "integer",
        Ok(Value::Int8(_)) => "bigint",
        _ => "numeric",
    };
    format!("'-{n}'::{ty}")
}

/// A constant of type `ty` written as `text`, as PostgreSQL's
/// `get_const_expr` prints it.
fn typed_constant(text: &str, ty: SqlType, pretty: bool) -> String {
    let value = types::coerce(Value::Text(text.to_string()), ty);
    let shown = match &value {
        Ok(v) => types::text_output(v).unwrap_or_else(|| text.to_string()),
        Err(_) => text.to_string(),
    };
    match (ty, &value) {
        (SqlType::Int4, Ok(Value::Int4(x))) if *x >= 0 => shown,
        (SqlType::Bool, Ok(Value::Bool(b))) => b.to_string(),
        (SqlType::Numeric(None), Ok(_)) if shown.starts_with(|c: char| c.is_ascii_digit()) => {
            match (shown.contains(['.', 'e', 'E']), pretty) {
                (true, _) => shown,
                (false, true) => format!("{shown}::numeric"),
                (false, false) => format!("({shown})::numeric"),
            }
        }
        _ => format!(
            "'{}'::{}",
            shown.replace('\'', "''"),
            crate::catalog_functions::type_name(ty.oid() as i64, ty.typmod())
        ),
    }
}

/// PostgreSQL's `FigureColname` for an expression's output name.
fn figure_name(expr: &Expr) -> String {
    match expr {
        Expr::Identifier(id) => ident(id),
        Expr::CompoundIdentifier(parts) => parts.last().map(ident).unwrap_or_default(),
        Expr::Nested(inner) => figure_name(inner),
        Expr::Function(f) => last_part(&f.name),
        Expr::Cast {
            expr, data_type, ..
        } => match figure_name(expr) {
            n if n == "?column?" => match types::column_type(data_type) {
                Ok(ty) => types::typname(ty).to_string(),
                Err(_) => n,
            },
            n => n,
        },
        Expr::TypedString(t) => match types::column_type(&t.data_type) {
            Ok(ty) => types::typname(ty).to_string(),
            Err(_) => "?column?".to_string(),
        },
        Expr::Case { .. } => "case".to_string(),
        Expr::Exists { .. } => "exists".to_string(),
        Expr::Array(_) => "array".to_string(),
        Expr::Substring { .. } => "substring".to_string(),
        Expr::Subquery(q) => match q.body.as_ref() {
            SetExpr::Select(s) => match s.projection.first() {
                Some(SelectItem::ExprWithAlias { alias, .. }) => ident(alias),
                Some(SelectItem::UnnamedExpr(e)) => figure_name(e),
                _ => "?column?".to_string(),
            },
            _ => "?column?".to_string(),
        },
        _ => "?column?".to_string(),
    }
}

fn column_expr(qualifier: Option<&str>, name: &str) -> Expr {
    match qualifier {
        Some(q) => Expr::CompoundIdentifier(vec![
            Ident::with_quote('"', q.trim_matches('"')),
            Ident::with_quote('"', name),
        ]),
        None => Expr::Identifier(Ident::with_quote('"', name)),
    }
}

fn last_part(name: &ObjectName) -> String {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(ident)
        .unwrap_or_default()
}

/// A function's name as PostgreSQL prints it (quoted when a keyword
/// needs it).
fn function_name(name: &str) -> String {
    match name {
        "substring" | "position" | "overlay" | "trim" => format!("\"{name}\""),
        _ => quote(name),
    }
}

/// Set-returning functions of one column named as the function.
fn single_column_function(name: &str) -> bool {
    matches!(
        name,
        "generate_series" | "unnest" | "generate_subscripts" | "regexp_split_to_table"
    )
}

/// The word PostgreSQL prints for a join and its condition.
fn join_kind(op: &JoinOperator) -> (&'static str, Option<&JoinConstraint>) {
    match op {
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (" JOIN ", Some(c)),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (" LEFT JOIN ", Some(c)),
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (" RIGHT JOIN ", Some(c)),
        JoinOperator::FullOuter(c) => (" FULL JOIN ", Some(c)),
        JoinOperator::CrossJoin(c) => (" CROSS JOIN ", Some(c)),
        _ => (" JOIN ", None),
    }
}

/// The visible columns of a join's inputs: merged ones first.
fn columns_of(items: &[Item], merged: &[Merged]) -> Vec<Column> {
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

fn rename(columns: &mut [(String, Option<SqlType>)], alias: &TableAlias) {
    for (c, a) in columns.iter_mut().zip(&alias.columns) {
        c.0 = ident(&a.name);
    }
}

/// Whether a merged column takes the right input's: its type is the
/// common one the left's is promoted to.
fn wider(right: Option<SqlType>, left: Option<SqlType>) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Tables;
    impl Relations for Tables {
        fn relation(&self, name: &ObjectName) -> Option<RelationInfo> {
            let columns: &[(&str, SqlType)] = match last_part(name).as_str() {
                "t" => &[("a", SqlType::Int4), ("b", SqlType::Text)],
                "u" => &[("a", SqlType::Int4), ("x", SqlType::Int4)],
                _ => return None,
            };
            Some(RelationInfo {
                printed: last_part(name),
                columns: columns
                    .iter()
                    .map(|(n, t)| (n.to_string(), Some(*t)))
                    .collect(),
            })
        }
    }

    fn pretty(text: &str, columns: &[&str]) -> String {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        let form = Form {
            pretty: true,
            wrap_column: 0,
        };
        definition(text, &columns, &Tables, form)
    }

    /// Select items one a line, columns qualified, literals labelled.
    #[test]
    fn a_select_in_postgres_layout() {
        assert_eq!(
            pretty(
                "SELECT a, b || 'x' AS c FROM public.t WHERE a > 1",
                &["a", "c"]
            ),
            " SELECT t.a,\n    t.b || 'x'::text AS c\n   FROM t\n  WHERE t.a > 1;"
        );
    }

    /// A USING join prints the merged column as the left input's.
    #[test]
    fn a_using_join() {
        assert_eq!(
            pretty("SELECT a, x FROM t JOIN u USING (a)", &["a", "x"]),
            " SELECT t.a,\n    u.x\n   FROM t\n     JOIN u USING (a);"
        );
    }

    /// Set operations nest as PostgreSQL's.
    #[test]
    fn a_union() {
        assert_eq!(
            pretty("SELECT a FROM t UNION SELECT a FROM u", &["a"]),
            " SELECT t.a\n   FROM t\nUNION\n SELECT u.a\n   FROM u;"
        );
    }
}
