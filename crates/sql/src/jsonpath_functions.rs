//! The `jsonpath` type in SQL: its input (folio-row's parser, then each
//! `like_regex` pattern compiled as PostgreSQL compiles it while
//! parsing, so a bad pattern is 2201B at input), and the SQL/JSON path
//! functions and operators over `jsonpath_eval.rs`: `jsonb_path_exists`,
//! `jsonb_path_match`, `jsonb_path_query_array`, `jsonb_path_query_first`
//! (and their `_tz` forms; `jsonb_path_query` returns rows:
//! `table_functions.rs`), `jsonb @? jsonpath` (exists, silent) and
//! `jsonb @@ jsonpath` (match, silent).

use crate::error::SqlError;
use crate::jsonpath_eval::{Evaluator, Failure, Item};
use crate::scalar::{Columns, Scalar};
use folio_row::{Jsonb, PathAccessor, PathExpr, PathRegexFlags, SqlType, Value};
use sqlparser::ast::{BinaryOperator, Expr, FunctionArg};

/// `jsonpath` text as a value (PostgreSQL's `jsonpath_in`).
pub fn parse(text: &str) -> Result<Value, SqlError> {
    let path = folio_row::parse_jsonpath(text)?;
    check_patterns(&path.expr)?;
    Ok(Value::JsonPath(Box::new(path)))
}

/// The regular-expression flags of a `like_regex` (PostgreSQL's
/// `jspConvertRegexFlags`): `.` stops at newlines but with `s`, `^` and
/// `$` match at lines with `m`; `q` reads the pattern literally.
pub fn regex_flags(flags: PathRegexFlags) -> crate::regex_match::Flags {
    let literal = flags.contains(PathRegexFlags::QUOTE);
    crate::regex_match::Flags {
        insensitive: flags.contains(PathRegexFlags::ICASE),
        dot_stops_at_newline: !literal && !flags.contains(PathRegexFlags::DOTALL),
        anchors_at_lines: !literal && flags.contains(PathRegexFlags::MULTILINE),
        literal,
        ..Default::default()
    }
}

/// Compiles every `like_regex` pattern of `e` (2201B for a bad one).
fn check_patterns(e: &PathExpr) -> Result<(), SqlError> {
    match e {
        PathExpr::LikeRegex {
            expr,
            pattern,
            flags,
        } => {
            check_patterns(expr)?;
            crate::regex_match::compiled(pattern, regex_flags(*flags))?;
            Ok(())
        }
        PathExpr::Binary(_, l, r) => {
            check_patterns(l)?;
            check_patterns(r)
        }
        PathExpr::Unary { arg, .. }
        | PathExpr::Not(arg)
        | PathExpr::IsUnknown(arg)
        | PathExpr::Exists(arg) => check_patterns(arg),
        PathExpr::Chain(head, accessors) => {
            check_patterns(head)?;
            for accessor in accessors {
                match accessor {
                    PathAccessor::Filter(p) => check_patterns(p)?,
                    PathAccessor::Subscripts(subscripts) => {
                        for s in subscripts {
                            check_patterns(&s.from)?;
                            if let Some(to) = &s.to {
                                check_patterns(to)?;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A SQL/JSON path function or operator of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathFunc {
    /// `jsonb_path_exists(target, path [, vars [, silent]])`; `@?` is it
    /// silent.
    Exists { tz: bool, operator: bool },
    /// `jsonb_path_match(...)`; `@@` is it silent.
    Match { tz: bool, operator: bool },
    /// `jsonb_path_query_array(...)`: the items as an array.
    QueryArray { tz: bool },
    /// `jsonb_path_query_first(...)`: the first item, or NULL.
    QueryFirst { tz: bool },
}

const NAMES: [(&str, PathFunc); 8] = [
    (
        "jsonb_path_exists",
        PathFunc::Exists {
            tz: false,
            operator: false,
        },
    ),
    (
        "jsonb_path_exists_tz",
        PathFunc::Exists {
            tz: true,
            operator: false,
        },
    ),
    (
        "jsonb_path_match",
        PathFunc::Match {
            tz: false,
            operator: false,
        },
    ),
    (
        "jsonb_path_match_tz",
        PathFunc::Match {
            tz: true,
            operator: false,
        },
    ),
    ("jsonb_path_query_array", PathFunc::QueryArray { tz: false }),
    (
        "jsonb_path_query_array_tz",
        PathFunc::QueryArray { tz: true },
    ),
    ("jsonb_path_query_first", PathFunc::QueryFirst { tz: false }),
    (
        "jsonb_path_query_first_tz",
        PathFunc::QueryFirst { tz: true },
    ),
];

impl PathFunc {
    pub fn of(name: &str) -> Option<PathFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        match self {
            PathFunc::Exists { operator: true, .. } => Some("jsonb_path_exists_opr"),
            PathFunc::Match { operator: true, .. } => Some("jsonb_path_match_opr"),
            f => crate::names::name_in(&NAMES, &f),
        }
    }

    /// Target and path, then the optional `vars` and `silent`.
    pub fn takes(self, count: usize) -> bool {
        (2..=4).contains(&count)
    }

    /// The `_tz` forms read the session's TimeZone.
    pub fn immutable(self) -> bool {
        !self.tz()
    }

    fn tz(self) -> bool {
        match self {
            PathFunc::Exists { tz, .. }
            | PathFunc::Match { tz, .. }
            | PathFunc::QueryArray { tz }
            | PathFunc::QueryFirst { tz } => tz,
        }
    }

    /// Whether arguments of these types (`None`: a literal, NULL or a
    /// parameter) fit: jsonb, jsonpath, jsonb, boolean.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        let wanted = [
            SqlType::Jsonb,
            SqlType::JsonPath,
            SqlType::Jsonb,
            SqlType::Bool,
        ];
        (types.iter().zip(wanted)).all(|(t, w)| t.is_none_or(|t| t == w))
    }

    pub fn ty(self) -> SqlType {
        match self {
            PathFunc::Exists { .. } | PathFunc::Match { .. } => SqlType::Bool,
            _ => SqlType::Jsonb,
        }
    }

    /// The value of a call (strict: no argument is NULL).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let call = Call::of(args)?;
        let silent = call.silent;
        Ok(match self {
            PathFunc::Exists { operator, .. } => {
                let mut found = Vec::new();
                match call.run(operator || silent, &mut found) {
                    Ok(()) => Value::Bool(!found.is_empty()),
                    // PostgreSQL stops at the first item: one found
                    // before an error answers.
                    Err(_) if !found.is_empty() && !call.strict => Value::Bool(true),
                    Err(Failure::Suppressed) => Value::Null,
                    Err(Failure::Error(e)) => return Err(e),
                }
            }
            PathFunc::Match { operator, .. } => {
                let silent = operator || silent;
                let mut found = Vec::new();
                match call.run(silent, &mut found) {
                    Ok(()) | Err(Failure::Suppressed) => {}
                    Err(Failure::Error(e)) => return Err(e),
                }
                match found.as_slice() {
                    [Item::Json(Jsonb::Bool(b))] => Value::Bool(*b),
                    [Item::Json(Jsonb::Null)] => Value::Null,
                    _ if silent => Value::Null,
                    _ => {
                        return Err(SqlError::new("22038", "single boolean result is expected"));
                    }
                }
            }
            PathFunc::QueryArray { .. } => {
                let items = call.items()?;
                Value::Jsonb(Box::new(Jsonb::Array(
                    items.into_iter().map(Item::into_jsonb).collect(),
                )))
            }
            PathFunc::QueryFirst { .. } => match call.items()?.into_iter().next() {
                Some(item) => Value::Jsonb(Box::new(item.into_jsonb())),
                None => Value::Null,
            },
        })
    }
}

/// `jsonb_path_query(...)`'s items, as values (the set-returning form).
pub fn query_rows(args: &[Value]) -> Result<Vec<Value>, SqlError> {
    Ok(Call::of(args)?
        .items()?
        .into_iter()
        .map(|i| Value::Jsonb(Box::new(i.into_jsonb())))
        .collect())
}

/// A call's arguments, read.
struct Call {
    target: Jsonb,
    path: folio_row::JsonPath,
    vars: Option<Jsonb>,
    silent: bool,
    strict: bool,
}

impl Call {
    fn of(args: &[Value]) -> Result<Call, SqlError> {
        let jsonb = |v: &Value| match crate::types::coerce(v.clone(), SqlType::Jsonb)? {
            Value::Jsonb(j) => Ok(*j),
            other => Err(SqlError::new(
                "42883",
                format!(
                    "function argument of type {} is not jsonb",
                    other.type_name()
                ),
            )),
        };
        let target = jsonb(&args[0])?;
        let path = match crate::types::coerce(args[1].clone(), SqlType::JsonPath)? {
            Value::JsonPath(p) => *p,
            other => {
                return Err(SqlError::new(
                    "42883",
                    format!(
                        "function argument of type {} is not jsonpath",
                        other.type_name()
                    ),
                ));
            }
        };
        let vars = args.get(2).map(jsonb).transpose()?;
        let silent = match args
            .get(3)
            .map(|v| crate::types::coerce(v.clone(), SqlType::Bool))
        {
            Some(Ok(Value::Bool(b))) => b,
            Some(Err(e)) => return Err(e),
            _ => false,
        };
        let strict = path.strict;
        Ok(Call {
            target,
            path,
            vars,
            silent,
            strict,
        })
    }

    fn run(&self, silent: bool, found: &mut Vec<Item>) -> Result<(), Failure> {
        let mut evaluator =
            Evaluator::new(&self.target, self.vars.as_ref(), self.path.strict, silent)?;
        evaluator.run(&self.path.expr, found)
    }

    /// The items (what came before a suppressed error).
    fn items(&self) -> Result<Vec<Item>, SqlError> {
        let mut found = Vec::new();
        match self.run(self.silent, &mut found) {
            Ok(()) | Err(Failure::Suppressed) => Ok(found),
            Err(Failure::Error(e)) => Err(e),
        }
    }
}

/// `jsonb @? jsonpath` and `jsonb @@ jsonpath`: the bound call, a quoted
/// literal taking the type the operator wants. `None` for other
/// operators and operands.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let typed = |s: &Scalar| match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    };
    let (ta, tb) = (typed(a), typed(b));
    let func = match op {
        BinaryOperator::AtQuestion => PathFunc::Exists {
            tz: false,
            operator: true,
        },
        BinaryOperator::AtAt => PathFunc::Match {
            tz: false,
            operator: true,
        },
        _ => return None,
    };
    if ta != Some(SqlType::Jsonb) && tb != Some(SqlType::JsonPath) {
        return None;
    }
    let bind = || {
        if !matches!(ta, None | Some(SqlType::Jsonb))
            || !matches!(tb, None | Some(SqlType::JsonPath))
        {
            let name = |t: Option<SqlType>| t.map_or("unknown".to_string(), |t| t.name());
            return Err(crate::functions::no_operator(format!(
                "operator does not exist: {} {op} {}",
                name(ta),
                name(tb)
            )));
        }
        Ok(Scalar::Func(
            crate::functions::Func::JsonPath(func),
            vec![
                crate::scalar::fit_unknown(a.clone(), SqlType::Jsonb)?,
                crate::scalar::fit_unknown(b.clone(), SqlType::JsonPath)?,
            ],
        ))
    };
    Some(bind())
}

/// The parameters of the path functions, in order: PostgreSQL's names,
/// which calls may use (`silent => true`).
const PARAMETERS: [&str; 4] = ["target", "path", "vars", "silent"];

/// The argument expressions of a call of a path function `name` (folded)
/// in parameter order, named ones put in place and a `vars` left out
/// before a given `silent` made `'{}'` (its default). `None` for other
/// functions.
pub fn arguments(name: &str, args: &[FunctionArg]) -> Option<Result<Vec<Expr>, SqlError>> {
    if PathFunc::of(name).is_none() && !matches!(name, "jsonb_path_query" | "jsonb_path_query_tz") {
        return None;
    }
    let Some(mut slots) = crate::named_arguments::slots(&PARAMETERS, args) else {
        return Some(Err(no_such(name, args)));
    };
    let empty_vars = Expr::value(sqlparser::ast::Value::SingleQuotedString("{}".into()));
    if slots[3].is_some() && slots[2].is_none() {
        slots[2] = Some(&empty_vars);
    }
    let given = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    Some(
        slots[..given]
            .iter()
            .map(|s| s.cloned().ok_or_else(|| no_such(name, args)))
            .collect(),
    )
}

fn no_such(name: &str, args: &[FunctionArg]) -> SqlError {
    let list: Vec<String> = args.iter().map(ToString::to_string).collect();
    crate::functions::no_match(format!(
        "function {name}({}) does not exist",
        list.join(", ")
    ))
}
