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

mod exprs;
mod scope;

use crate::types;
mod from_items;
mod group_by;
mod ordered_set;
mod windows;

use exprs::{Parent, figure_name};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    AccessExpr, BinaryOperator, Cte, Distinct, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, GroupByExpr, Ident, JoinConstraint, JoinOperator, LimitClause, ObjectName,
    OrderByKind, Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier, Subscript,
    TableAlias, TableFactor, TableWithJoins, UnaryOperator,
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
        natural: Default::default(),
        col_names_visible: true,
    };
    printer.query(&query, 0, Some(columns));
    printer.out.push(';');
    printer.out
}

/// The common columns of each NATURAL join in `query` (a view's, whose
/// columns are `columns`) as the relations read now: by the address of
/// the `Join` in `query` (`natural_joins.rs` writes them as USING lists).
pub fn natural_columns(
    query: &Query,
    columns: &[String],
    relations: &dyn Relations,
) -> NaturalJoins {
    let mut printer = Printer {
        out: String::new(),
        indent: 0,
        form: Form::DEFAULT,
        relations,
        levels: Vec::new(),
        ctes: Vec::new(),
        natural: Default::default(),
        col_names_visible: true,
    };
    printer.query(query, 0, Some(columns));
    printer.natural.take()
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
    /// The level's items the join merges it from (their own columns of
    /// the name are hidden under `*`).
    covers: std::ops::Range<usize>,
}

/// The names one query level's FROM clause brings.
#[derive(Clone, Debug, Default)]
struct Level {
    items: Vec<Item>,
    merged: Vec<Merged>,
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
    /// Each NATURAL join printed so far (of this printer and its
    /// fragments' printers): the join's address and its common columns.
    natural: std::rc::Rc<std::cell::RefCell<NaturalJoins>>,
    /// PostgreSQL's `colNamesVisible`: whether the query being printed
    /// shows its output names (a view's, a FROM subquery's, a CTE's: an
    /// expression without one is `AS "?column?"`) or not (a sublink's).
    col_names_visible: bool,
}

/// NATURAL joins by address, with their common columns.
type NaturalJoins = Vec<(usize, Vec<String>)>;

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
                self.out
                    .push_str(windows::sort_words(o.options.asc, o.options.nulls_first));
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
            self.query_named(&cte.query, indent, true);
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
            natural: self.natural.clone(),
            col_names_visible: self.col_names_visible,
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
                // (The right side's names are the left's: not shown.)
                let outer = std::mem::replace(&mut self.col_names_visible, false);
                self.leaf(right, names);
                self.col_names_visible = outer;
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

    /// `query` at `start` with its output names shown or not
    /// (`col_names_visible`).
    fn query_named(&mut self, query: &Query, start: i32, visible: bool) {
        let outer = std::mem::replace(&mut self.col_names_visible, visible);
        self.query(query, start, None);
        self.col_names_visible = outer;
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
        self.group_by_clause(select);
        if let Some(having) = &select.having {
            self.keyword(" HAVING ", -INDENT_STD, INDENT_STD, 0);
            self.expr(having, Parent::Free);
        }
        self.window_clause(&select.named_window);
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
    /// Each join's merged columns come before its inputs' (an outer
    /// join's before an inner one's), and hide the inputs' columns of
    /// their names; items outside the join keep theirs.
    fn star(&self, qualifier: Option<&str>) -> Vec<(Option<String>, String)> {
        let Some(level) = self.levels.last() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (at, item) in level.items.iter().enumerate() {
            if qualifier.is_none() {
                let mut starting: Vec<&Merged> = level
                    .merged
                    .iter()
                    .filter(|m| m.covers.start == at)
                    .collect();
                starting.sort_by_key(|m| std::cmp::Reverse(m.covers.end));
                for m in starting {
                    let q = m.printed.rsplit_once('.').map(|(q, _)| q.to_string());
                    out.push((q, m.name.clone()));
                }
            }
            if qualifier.is_some_and(|q| q != item.original) {
                continue;
            }
            for (name, _) in item.columns.iter().flatten() {
                if qualifier.is_none()
                    && (level.merged.iter()).any(|m| &m.name == name && m.covers.contains(&at))
                {
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
    /// `?column?` where output names are not shown (none where they are:
    /// every other expression has its AS).
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
                (!self.col_names_visible).then(|| "?column?".to_string())
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
}

fn all(q: &SetQuantifier) -> bool {
    matches!(q, SetQuantifier::All | SetQuantifier::AllByName)
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
