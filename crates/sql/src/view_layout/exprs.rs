//! Expressions in PostgreSQL's form: operators and their parentheses
//! (`isSimpleNode`), constants labelled with their types, calls,
//! sublinks, CASE.

use super::*;

/// What a node is, for PostgreSQL's `isSimpleNode` parenthesis rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) enum Parent {
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

impl Printer<'_> {
    pub(super) fn open(&mut self, kind: Kind, parent: Parent) -> bool {
        let paren = self.form.pretty && !simple(kind, parent);
        if paren {
            self.out.push('(');
        }
        paren
    }

    pub(super) fn close(&mut self, paren: bool) {
        if paren {
            self.out.push(')');
        }
    }

    /// A self-parenthesised node of the default form.
    pub(super) fn own_open(&mut self) {
        if !self.form.pretty {
            self.out.push('(');
        }
    }

    pub(super) fn own_close(&mut self) {
        if !self.form.pretty {
            self.out.push(')');
        }
    }

    pub(super) fn expr(&mut self, expr: &Expr, parent: Parent) {
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
                        cast_literal(Literal::Str(s), ty, self.form.pretty)
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
                if let Some(literal) = constant_of(inner) {
                    self.out
                        .push_str(&cast_literal(literal, ty, self.form.pretty));
                    return;
                }
                // An ARRAY[...] cast to an array type: parse analysis
                // casts its elements instead (`ARRAY['a'::text]`).
                if let (Expr::Array(array), SqlType::Array(element)) = (inner.as_ref(), ty) {
                    self.out.push_str("ARRAY[");
                    for (i, e) in array.elem.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.coerced(e, *element);
                    }
                    self.out.push(']');
                    return;
                }
                // (A sublink is no simple node: its own parentheses in the
                // pretty form too.)
                let sublink = self.form.pretty && matches!(inner.as_ref(), Expr::Subquery(_));
                if sublink {
                    self.out.push('(');
                }
                self.own_open();
                self.expr(inner, Parent::Tight);
                self.own_close();
                if sublink {
                    self.out.push(')');
                }
                self.out.push_str("::");
                self.out.push_str(&crate::catalog_functions::type_name(
                    ty.oid() as i64,
                    ty.typmod(),
                ));
            }
            // ruleutils' CollateExpr: its own parentheses in the default
            // form, an operand's (it is no simple node) in the pretty one.
            Expr::Collate {
                expr: inner,
                collation,
            } => {
                let paren = self.open(Kind::ArrayOp, parent);
                self.own_open();
                self.expr(inner, Parent::Tight);
                let name =
                    crate::names::builtin(collation).unwrap_or_else(|| collation.to_string());
                self.out.push_str(&format!(" COLLATE {}", quote(&name)));
                self.own_close();
                self.close(paren);
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
                self.query_named(subquery, indent, false);
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
                self.query_named(subquery, indent, false);
                self.out.push_str("))");
            }
            Expr::Subquery(q) => {
                self.out.push('(');
                let indent = self.indent;
                self.query_named(q, indent, false);
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
            // ruleutils' FieldSelect and SubscriptingRef: the record in
            // parentheses before each field (`(t.p).x`, `((t.p).x).y`),
            // an array's subscript right after it.
            Expr::CompoundFieldAccess { root, access_chain } => {
                let mut sub = self.sub();
                sub.expr(root, Parent::Free);
                let mut text = sub.out;
                for access in access_chain {
                    match access {
                        AccessExpr::Dot(Expr::Identifier(field)) => {
                            text = format!("({text}).{}", quote(&ident(field)));
                        }
                        AccessExpr::Subscript(Subscript::Index { index }) => {
                            let mut sub = self.sub();
                            sub.expr(index, Parent::Free);
                            text = format!("{text}[{}]", sub.out);
                        }
                        other => text = format!("{text}{other}"),
                    }
                }
                let paren = self.open(Kind::Simple, parent);
                self.out.push_str(&text);
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
    pub(super) fn binary(&mut self, left: &Expr, op: &str, right: &Expr, parent: Parent) {
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

    pub(super) fn cast_text(&mut self, e: &Expr, _parent: Parent) {
        self.own_open();
        self.expr(e, Parent::Tight);
        self.own_close();
        self.out.push_str("::text");
    }

    /// An operand: an untyped literal takes type `other`.
    pub(super) fn operand(&mut self, e: &Expr, other: Option<SqlType>, parent: Parent) {
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

    pub(super) fn test(&mut self, e: &Expr, word: &str, parent: Parent) {
        let paren = self.open(Kind::Test, parent);
        self.own_open();
        self.expr(e, Parent::Tight);
        self.out.push_str(word);
        self.own_close();
        self.close(paren);
    }

    pub(super) fn bool_list(&mut self, kind: Kind, list: &[&Expr], parent: Parent) {
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

    pub(super) fn function(&mut self, f: &sqlparser::ast::Function) {
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
        if !f.within_group.is_empty() {
            return self.ordered_set_call(f, &name);
        }
        // (GROUPING is a keyword, not a function name to quote.)
        self.out.push_str(&if upper || name == "grouping" {
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
                        self.out.push_str(super::windows::sort_words(
                            o.options.asc,
                            o.options.nulls_first,
                        ));
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
                sqlparser::ast::WindowType::WindowSpec(spec) => self.window_spec(spec),
            }
        }
    }

    pub(super) fn function_arg(&mut self, a: &FunctionArg) {
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
    pub(super) fn literal(&self, value: &sqlparser::ast::Value, ty: Option<SqlType>) -> String {
        use sqlparser::ast::Value as V;
        match value {
            V::SingleQuotedString(s) | V::EscapedStringLiteral(s) => match ty {
                Some(ty) if !matches!(ty, SqlType::Varchar(_)) => {
                    cast_literal(Literal::Str(s), ty, self.form.pretty)
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
}

/// The literal a cast applies to, if it is one (a minus before a number
/// is part of it, as in PostgreSQL's grammar).
pub(super) fn constant_of(e: &Expr) -> Option<Literal<'_>> {
    use sqlparser::ast::Value as V;
    match e {
        Expr::Value(v) => match &v.value {
            V::SingleQuotedString(s) => Some(Literal::Str(s)),
            V::Number(n, _) => Some(Literal::Number {
                minus: false,
                digits: n,
            }),
            V::Boolean(b) => Some(Literal::Bool(*b)),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match constant_of(expr) {
            Some(Literal::Number {
                minus: false,
                digits,
            }) => Some(Literal::Number {
                minus: true,
                digits,
            }),
            _ => None,
        },
        Expr::Nested(inner) => constant_of(inner),
        _ => None,
    }
}

/// PostgreSQL's `isSimpleNode`: whether `kind` under `parent` prints
/// without parentheses in the pretty form.
pub(super) fn simple(kind: Kind, parent: Parent) -> bool {
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

pub(super) fn flatten<'e>(expr: &'e Expr, op: &BinaryOperator, out: &mut Vec<&'e Expr>) {
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

pub(super) fn op_text(op: &BinaryOperator) -> String {
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
pub(super) fn static_op(op: &str) -> &'static str {
    match op {
        "+" => "+",
        "-" => "-",
        "*" => "*",
        "/" => "/",
        "%" => "%",
        _ => "=",
    }
}

pub(super) fn is_comparison(op: &BinaryOperator) -> bool {
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

pub(super) fn is_string(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(v.value, sqlparser::ast::Value::SingleQuotedString(_)),
        Expr::Nested(inner) => is_string(inner),
        _ => false,
    }
}

/// `-n` folded to a constant, as PostgreSQL prints it.
pub(super) fn negative_number(n: &str) -> String {
    let ty = match types::literal(&sqlparser::ast::Value::Number(n.to_string(), false)) {
        Ok(Value::Int4(_)) => "integer",
        Ok(Value::Int8(_)) => "bigint",
        _ => "numeric",
    };
    format!("'-{n}'::{ty}")
}

/// A literal a cast (or a type name before a string) applies to.
#[derive(Clone, Copy)]
pub(super) enum Literal<'a> {
    /// A quoted string: the cast reads it as its type.
    Str(&'a str),
    /// A number, negated when `minus`: an integer, bigint or numeric
    /// constant of its own, which the cast converts.
    Number {
        minus: bool,
        digits: &'a str,
    },
    Bool(bool),
}

/// `literal::ty` as PostgreSQL prints it after parse analysis made the
/// literal a constant: a string read as `ty` without its modifier (as
/// written if it does not read), a number or boolean of its own type;
/// then a cast to another type, or to `ty`'s modifier, is printed after
/// the constant (parenthesized in the plain form unless the constant
/// already has the type).
pub(super) fn cast_literal(literal: Literal<'_>, ty: SqlType, pretty: bool) -> String {
    let name = crate::catalog_functions::type_name(ty.oid() as i64, ty.typmod());
    let (value, own) = match literal {
        Literal::Str(s) => match types::coerce(Value::Text(s.to_string()), ty.unmodified()) {
            Ok(value) => (value, ty.unmodified()),
            Err(_) => return format!("'{}'::{name}", s.replace('\'', "''")),
        },
        Literal::Number { minus, digits } => {
            let n = format!("{}{digits}", if minus { "-" } else { "" });
            match types::number(&n) {
                Ok(value) => {
                    let own = crate::scalar::value_type(&value);
                    (value, own)
                }
                Err(_) => return format!("{n}::{name}"),
            }
        }
        Literal::Bool(b) => (Value::Bool(b), SqlType::Bool),
    };
    if own == ty {
        return constant(&value, ty, true);
    }
    if own == ty.unmodified() {
        return format!("{}::{name}", constant(&value, own, false));
    }
    match pretty {
        true => format!("{}::{name}", constant(&value, own, true)),
        false => format!("({})::{name}", constant(&value, own, true)),
    }
}

/// PostgreSQL's `get_const_expr`: constant `value` of type `ty`, with
/// `::type` after it when `labelled` and its text does not say its type
/// (a non-negative integer, a numeric with a point or exponent, a
/// boolean).
fn constant(value: &Value, ty: SqlType, labelled: bool) -> String {
    let shown = match value {
        Value::Bool(b) => return b.to_string(),
        v => types::text_output(v).unwrap_or_default(),
    };
    let bare = match ty {
        SqlType::Int4 => !shown.starts_with('-'),
        SqlType::Numeric(_) => {
            shown.starts_with(|c: char| c.is_ascii_digit()) && shown.contains(['.', 'e', 'E'])
        }
        _ => false,
    };
    let quoted = format!("'{}'", shown.replace('\'', "''"));
    match (bare, labelled) {
        (true, _) => shown,
        (false, true) => format!(
            "{quoted}::{}",
            crate::catalog_functions::type_name(ty.oid() as i64, ty.typmod())
        ),
        (false, false) => quoted,
    }
}

/// PostgreSQL's `FigureColname` for an expression's output name.
pub(super) fn figure_name(expr: &Expr) -> String {
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
