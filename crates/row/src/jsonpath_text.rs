//! The text of a `jsonpath`: PostgreSQL 15's `jsonpath_out`
//! (`printJsonPathItem`).
//!
//! Keys, strings and variable names are printed as JSON strings (`$."a"`,
//! `$"x"`); an operator is parenthesized when the caller asks for it (the
//! whole path does: `($ + 1)`), each operand when its operator binds no
//! tighter than the one it is under (`((1 - 2) - 3)`, `(1 + 2 * 3)`); a
//! number followed by accessors is parenthesized (`(1).type()`). What is
//! inside a filter, `!()`, `exists ()`, a subscript or `is unknown`'s
//! parentheses is printed without outer parentheses.
//!
//! PostgreSQL does not bracket an operator that heads a chain of
//! accessors unless asked (`1 + ($.a * 2).c` prints `(1 + $."a" *
//! 2."c")`), text it cannot read back. It stores paths in a binary form;
//! folio stores the text, so [`stored_text`] brackets such heads too.

use crate::json::escape_into;
use crate::jsonpath::{Accessor, JsonPath, LAST_LEVEL, PathExpr};

/// PostgreSQL's text of the path.
pub fn path_text(path: &JsonPath) -> String {
    Printer { exact: false }.path(path)
}

/// Text that reads back as the same path (rows and keys keep this).
pub fn stored_text(path: &JsonPath) -> String {
    Printer { exact: true }.path(path)
}

struct Printer {
    /// Bracket operators that head chains (see the module comment).
    exact: bool,
}

impl Printer {
    fn path(&self, path: &JsonPath) -> String {
        let mut out = String::new();
        if path.strict {
            out.push_str("strict ");
        }
        self.expr(&mut out, &path.expr, true);
        out
    }

    fn expr(&self, out: &mut String, e: &PathExpr, brackets: bool) {
        let open = |out: &mut String| {
            if brackets {
                out.push('(');
            }
        };
        let close = |out: &mut String| {
            if brackets {
                out.push(')');
            }
        };
        let priority = e.priority();
        match e {
            PathExpr::Root => out.push('$'),
            PathExpr::Current => out.push('@'),
            PathExpr::Last => out.push_str("last"),
            PathExpr::Variable(name) => {
                out.push('$');
                escape_into(out, name);
            }
            PathExpr::Null => out.push_str("null"),
            PathExpr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            PathExpr::Number(n) => out.push_str(n),
            PathExpr::String(s) => escape_into(out, s),
            PathExpr::Binary(op, left, right) => {
                open(out);
                self.expr(out, left, left.priority() <= priority);
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                self.expr(out, right, right.priority() <= priority);
                close(out);
            }
            PathExpr::Unary { negate, arg } => {
                open(out);
                out.push(if *negate { '-' } else { '+' });
                self.expr(out, arg, arg.priority() <= priority);
                close(out);
            }
            PathExpr::LikeRegex {
                expr,
                pattern,
                flags,
            } => {
                open(out);
                self.expr(out, expr, expr.priority() <= priority);
                out.push_str(" like_regex ");
                escape_into(out, pattern);
                if !flags.is_empty() {
                    out.push_str(" flag \"");
                    for (flag, letter) in crate::jsonpath::RegexFlags::LETTERS {
                        if flags.contains(flag) {
                            out.push(letter);
                        }
                    }
                    out.push('"');
                }
                close(out);
            }
            PathExpr::Not(arg) => self.wrapped(out, "!(", arg, ")"),
            PathExpr::IsUnknown(arg) => self.wrapped(out, "(", arg, ") is unknown"),
            PathExpr::Exists(arg) => self.wrapped(out, "exists (", arg, ")"),
            PathExpr::Chain(head, accessors) => {
                match **head {
                    PathExpr::Number(_) => self.wrapped(out, "(", head, ")"),
                    PathExpr::Binary(..) | PathExpr::Unary { .. } | PathExpr::LikeRegex { .. }
                        if self.exact =>
                    {
                        self.expr(out, head, true)
                    }
                    _ => self.expr(out, head, brackets),
                }
                for accessor in accessors {
                    self.accessor(out, accessor);
                }
            }
        }
    }

    /// `e` between `before` and `after`, itself without parentheses.
    fn wrapped(&self, out: &mut String, before: &str, e: &PathExpr, after: &str) {
        out.push_str(before);
        self.expr(out, e, false);
        out.push_str(after);
    }

    fn accessor(&self, out: &mut String, accessor: &Accessor) {
        match accessor {
            Accessor::Key(key) => {
                out.push('.');
                escape_into(out, key);
            }
            Accessor::AnyKey => out.push_str(".*"),
            Accessor::AnyArray => out.push_str("[*]"),
            Accessor::Subscripts(subscripts) => {
                out.push('[');
                for (i, s) in subscripts.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.expr(out, &s.from, false);
                    if let Some(to) = &s.to {
                        out.push_str(" to ");
                        self.expr(out, to, false);
                    }
                }
                out.push(']');
            }
            Accessor::Any { first, last } => {
                let level = |n: u32| match n {
                    LAST_LEVEL => "last".to_string(),
                    n => n.to_string(),
                };
                out.push_str(".**");
                if *first == 0 && *last == LAST_LEVEL {
                } else if first == last {
                    out.push_str(&format!("{{{}}}", level(*first)));
                } else {
                    out.push_str(&format!("{{{} to {}}}", level(*first), level(*last)));
                }
            }
            Accessor::Filter(predicate) => self.wrapped(out, "?(", predicate, ")"),
            Accessor::Method(method) => {
                out.push('.');
                out.push_str(method.name());
                out.push_str("()");
            }
            Accessor::Datetime(template) => {
                out.push_str(".datetime(");
                if let Some(t) = template {
                    escape_into(out, t);
                }
                out.push(')');
            }
        }
    }
}
