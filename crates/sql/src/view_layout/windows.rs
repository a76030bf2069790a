//! Window specifications in PostgreSQL's form (`get_rule_windowspec`,
//! `get_rule_windowclause`): `OVER (...)` and the `WINDOW` clause, with
//! the frame written from its parts (its EXCLUDE clause taken back from
//! the mark `window_frame::rewrite_frames` left in PARTITION BY) and its
//! offsets labelled with the type they are read as.

use super::exprs::Parent;
use super::*;
use crate::window_frame::{self, Exclude};
use sqlparser::ast::{
    NamedWindowDefinition, NamedWindowExpr, WindowFrame, WindowFrameBound, WindowFrameUnits,
    WindowSpec,
};

impl Printer<'_> {
    /// A window specification in parentheses.
    pub(super) fn window_spec(&mut self, spec: &WindowSpec) {
        let mut spec = spec.clone();
        let exclude = window_frame::take_exclusion(&mut spec);
        self.out.push('(');
        let mut sep = "";
        if let Some(name) = &spec.window_name {
            self.out.push_str(&quote(&ident(name)));
            sep = " ";
        }
        if !spec.partition_by.is_empty() {
            self.out.push_str(sep);
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
                self.out
                    .push_str(sort_words(o.options.asc, o.options.nulls_first));
            }
            sep = " ";
        }
        if let Some(frame) = &spec.window_frame {
            self.out.push_str(sep);
            let offset_type = self.offset_type(frame.units, &spec);
            self.frame(frame, offset_type);
            self.out.push_str(match exclude {
                Exclude::NoOthers => "",
                Exclude::CurrentRow => " EXCLUDE CURRENT ROW",
                Exclude::Group => " EXCLUDE GROUP",
                Exclude::Ties => " EXCLUDE TIES",
            });
        }
        self.out.push(')');
    }

    /// The `WINDOW` clause (after HAVING).
    pub(super) fn window_clause(&mut self, windows: &[NamedWindowDefinition]) {
        if windows.is_empty() {
            return;
        }
        self.keyword(" WINDOW ", -INDENT_STD, INDENT_STD, 1);
        for (i, NamedWindowDefinition(name, expr)) in windows.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&quote(&ident(name)));
            self.out.push_str(" AS ");
            match expr {
                NamedWindowExpr::WindowSpec(spec) => self.window_spec(spec),
                NamedWindowExpr::NamedWindow(other) => {
                    self.out.push_str(&format!("({})", quote(&ident(other))))
                }
            }
        }
    }

    /// `ROWS | RANGE | GROUPS` and the bounds (`BETWEEN ... AND ...` when
    /// two were written).
    fn frame(&mut self, frame: &WindowFrame, offset_type: Option<SqlType>) {
        self.out.push_str(match frame.units {
            WindowFrameUnits::Rows => "ROWS ",
            WindowFrameUnits::Range => "RANGE ",
            WindowFrameUnits::Groups => "GROUPS ",
        });
        match &frame.end_bound {
            Some(end) => {
                self.out.push_str("BETWEEN ");
                self.bound(&frame.start_bound, offset_type);
                self.out.push_str(" AND ");
                self.bound(end, offset_type);
            }
            None => self.bound(&frame.start_bound, offset_type),
        }
    }

    fn bound(&mut self, bound: &WindowFrameBound, offset_type: Option<SqlType>) {
        let (offset, word) = match bound {
            WindowFrameBound::CurrentRow => return self.out.push_str("CURRENT ROW"),
            WindowFrameBound::Preceding(offset) => (offset, "PRECEDING"),
            WindowFrameBound::Following(offset) => (offset, "FOLLOWING"),
        };
        match offset {
            None => self.out.push_str("UNBOUNDED "),
            // (A number prints as written, as PostgreSQL's folded
            // coercion of it; a quoted literal with the offset's type.)
            Some(e) if is_number(e) => {
                self.expr(e, Parent::Free);
                self.out.push(' ');
            }
            Some(e) => {
                self.operand(e, offset_type, Parent::Free);
                self.out.push(' ');
            }
        }
        self.out.push_str(word);
    }

    /// The type a frame's offset is read as: `bigint` for ROWS and
    /// GROUPS; for RANGE, the ORDER BY key's own type, or `interval` for
    /// a date or time key (PostgreSQL's `in_range` functions).
    fn offset_type(&self, units: WindowFrameUnits, spec: &WindowSpec) -> Option<SqlType> {
        if units != WindowFrameUnits::Range {
            return Some(SqlType::Int8);
        }
        match self.type_of(&spec.order_by.first()?.expr)? {
            SqlType::Date
            | SqlType::Time(_)
            | SqlType::TimeTz(_)
            | SqlType::Timestamp(_)
            | SqlType::TimestampTz(_)
            | SqlType::Interval(_) => Some(SqlType::Interval(None)),
            other => Some(other),
        }
    }
}

/// The words after a sort key (PostgreSQL's `get_rule_orderby`): `DESC`,
/// and the NULLS placement when it is not the direction's default.
pub(super) fn sort_words(asc: Option<bool>, nulls_first: Option<bool>) -> &'static str {
    let desc = asc == Some(false);
    match (desc, nulls_first.unwrap_or(desc)) {
        (false, false) => "",
        (false, true) => " NULLS FIRST",
        (true, true) => " DESC",
        (true, false) => " DESC NULLS LAST",
    }
}

/// Whether `e` is a number as written (in parentheses or negated).
fn is_number(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(v.value, sqlparser::ast::Value::Number(..)),
        Expr::Nested(inner) => is_number(inner),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => is_number(expr),
        _ => false,
    }
}
