//! Evaluating a `jsonpath` against a jsonb document, as PostgreSQL 15's
//! `jsonpath_exec.c` does (behaviour read from it; the code is folio's).
//!
//! A path yields a sequence of items. Each accessor is applied to each
//! item the expression before it yields, in order.
//!
//! - **Lax mode** (the default) unwraps an array one level where an
//!   object accessor, a filter or a numeric method meets it, treats a
//!   non-array as a one-element array for `[...]`, `[*]` and `.size()`,
//!   and ignores structural errors (a missing key, an accessor of the
//!   wrong kind, a subscript out of bounds): they yield nothing.
//! - **Strict mode** raises them: 2203A `JSON object does not contain key
//!   "a"`, 22033 `jsonpath array subscript is out of bounds`, 22039 for an
//!   array accessor of a non-array, ...
//! - **Errors** raised while evaluating are suppressed by `silent` (the
//!   path then yields what it yielded before the error), and always
//!   inside a predicate, where an error makes the predicate unknown. A
//!   missing variable is never suppressed (42704).
//! - **Predicates** are three-valued: a comparison is true if some pair
//!   of the two sides' items compares true (lax: at the first; strict:
//!   unknown if any pair is unknown); items of different types compare
//!   unknown but for null (equal to nothing; `!=` everything); arrays and
//!   objects are not comparable. A predicate outside a filter yields a
//!   jsonb boolean (null for unknown).

use crate::error::SqlError;
use folio_row::{
    Jsonb, Numeric, PathAccessor as Accessor, PathBinaryOp as BinaryOp, PathExpr,
    PathMethod as Method, Rounding, Value,
};

/// An item a path yields: a jsonb value.
#[derive(Debug, Clone)]
pub enum Item {
    Json(Jsonb),
}

impl Item {
    /// The item as jsonb.
    pub fn into_jsonb(self) -> Jsonb {
        match self {
            Item::Json(j) => j,
        }
    }
}

/// Why evaluation stopped.
#[derive(Debug)]
pub enum Failure {
    /// An error that `silent` (or a predicate) suppressed.
    Suppressed,
    Error(SqlError),
}

impl From<SqlError> for Failure {
    fn from(e: SqlError) -> Failure {
        Failure::Error(e)
    }
}

type Step = Result<(), Failure>;

/// Three-valued truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    True,
    False,
    Unknown,
}

/// One evaluation: the document, the variables and the modes.
pub struct Evaluator<'a> {
    root: &'a Jsonb,
    vars: Option<&'a Jsonb>,
    lax: bool,
    /// Raise errors (not `silent`, not inside a predicate's operands).
    throw: bool,
    /// The size of the innermost array subscripted (`last`).
    array_size: Option<usize>,
    /// Structural errors are ignored (lax mode, and inside `**`).
    ignore_structural: bool,
}

/// PostgreSQL's error of a suppressible condition.
pub fn error(sqlstate: &'static str, message: impl Into<String>) -> SqlError {
    SqlError::new(sqlstate, message.into())
}

impl<'a> Evaluator<'a> {
    /// An evaluator of a path in `strict` mode or not; 22023 if `vars`
    /// is not an object.
    pub fn new(
        root: &'a Jsonb,
        vars: Option<&'a Jsonb>,
        strict: bool,
        silent: bool,
    ) -> Result<Evaluator<'a>, SqlError> {
        if let Some(v) = vars
            && !matches!(v, Jsonb::Object(_))
        {
            return Err(
                SqlError::new("22023", "\"vars\" argument is not an object").with_detail(
                    "Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.",
                ),
            );
        }
        Ok(Evaluator {
            root,
            vars,
            lax: !strict,
            throw: !silent,
            array_size: None,
            ignore_structural: !strict,
        })
    }

    /// The items `e` yields for the document: `Err(Suppressed)` after a
    /// suppressed error (`found` holds what came before it).
    pub fn run(&mut self, e: &PathExpr, found: &mut Vec<Item>) -> Step {
        let root = Item::Json(self.root.clone());
        self.eval(e, &root, found)
    }

    /// A suppressible error: raised, or suppressed.
    fn fail(&self, sqlstate: &'static str, message: impl Into<String>) -> Failure {
        if self.throw {
            Failure::Error(error(sqlstate, message))
        } else {
            Failure::Suppressed
        }
    }

    /// A structural error: nothing in lax mode, else [`Self::fail`].
    fn structural(&self, sqlstate: &'static str, message: impl Into<String>) -> Step {
        if self.ignore_structural {
            Ok(())
        } else {
            Err(self.fail(sqlstate, message))
        }
    }

    /// The items of `e` with `current` as `@` and `item` as what the
    /// expression starts from.
    fn eval(&mut self, e: &PathExpr, current: &Item, found: &mut Vec<Item>) -> Step {
        match e {
            PathExpr::Chain(head, accessors) => {
                let mut items = Vec::new();
                self.eval(head, current, &mut items)?;
                self.apply_all(accessors, items, found)
            }
            PathExpr::Root => {
                found.push(Item::Json(self.root.clone()));
                Ok(())
            }
            PathExpr::Current => {
                found.push(current.clone());
                Ok(())
            }
            PathExpr::Last => {
                let Some(size) = self.array_size else {
                    return Err(error(
                        "XX000",
                        "evaluating jsonpath LAST outside of array subscript",
                    )
                    .into());
                };
                found.push(Item::Json(Jsonb::Number((size as i64 - 1).to_string())));
                Ok(())
            }
            PathExpr::Variable(name) => {
                let value = self.vars.and_then(|v| v.get(name)).ok_or_else(|| {
                    Failure::Error(error(
                        "42704",
                        format!("could not find jsonpath variable \"{name}\""),
                    ))
                })?;
                found.push(Item::Json(value.clone()));
                Ok(())
            }
            PathExpr::Null => {
                found.push(Item::Json(Jsonb::Null));
                Ok(())
            }
            PathExpr::Bool(b) => {
                found.push(Item::Json(Jsonb::Bool(*b)));
                Ok(())
            }
            PathExpr::Number(n) => {
                found.push(Item::Json(Jsonb::Number(n.clone())));
                Ok(())
            }
            PathExpr::String(s) => {
                found.push(Item::Json(Jsonb::String(s.clone())));
                Ok(())
            }
            PathExpr::Binary(op, left, right) if is_arithmetic(*op) => {
                let value = self.arithmetic(*op, left, right, current)?;
                found.push(value);
                Ok(())
            }
            PathExpr::Unary { negate, arg } => {
                let mut items = Vec::new();
                self.eval_unwrapped(arg, current, &mut items)?;
                for item in items {
                    let Some(n) = numeric_of(&item) else {
                        return Err(self.fail(
                            "2203B",
                            format!(
                                "operand of unary jsonpath operator {} is not a numeric value",
                                if *negate { "-" } else { "+" }
                            ),
                        ));
                    };
                    let n = if *negate { n.negated() } else { n };
                    found.push(number(&n));
                }
                Ok(())
            }
            predicate => {
                let truth = self.truth(predicate, current)?;
                found.push(Item::Json(match truth {
                    Truth::True => Jsonb::Bool(true),
                    Truth::False => Jsonb::Bool(false),
                    Truth::Unknown => Jsonb::Null,
                }));
                Ok(())
            }
        }
    }

    /// The items of `e`, arrays among them unwrapped in lax mode.
    fn eval_unwrapped(&mut self, e: &PathExpr, current: &Item, found: &mut Vec<Item>) -> Step {
        let mut items = Vec::new();
        self.eval(e, current, &mut items)?;
        for item in items {
            match item {
                Item::Json(Jsonb::Array(elements)) if self.lax => {
                    found.extend(elements.into_iter().map(Item::Json))
                }
                item => found.push(item),
            }
        }
        Ok(())
    }

    /// `e`'s items with errors suppressed (a predicate's operands).
    fn eval_quietly(
        &mut self,
        e: &PathExpr,
        current: &Item,
        unwrap: bool,
    ) -> Result<Option<Vec<Item>>, SqlError> {
        let throw = std::mem::replace(&mut self.throw, false);
        let mut items = Vec::new();
        let result = if unwrap {
            self.eval_unwrapped(e, current, &mut items)
        } else {
            self.eval(e, current, &mut items)
        };
        self.throw = throw;
        match result {
            Ok(()) => Ok(Some(items)),
            Err(Failure::Suppressed) => Ok(None),
            Err(Failure::Error(e)) => Err(e),
        }
    }

    fn arithmetic(
        &mut self,
        op: BinaryOp,
        left: &PathExpr,
        right: &PathExpr,
        current: &Item,
    ) -> Result<Item, Failure> {
        let mut l = Vec::new();
        self.eval_unwrapped(left, current, &mut l)?;
        let mut r = Vec::new();
        self.eval_unwrapped(right, current, &mut r)?;
        let single = |items: &[Item], side: &str| match items {
            [item] => numeric_of(item).ok_or(side.to_string()),
            _ => Err(side.to_string()),
        };
        let operand = |side: String| {
            self.fail(
                "22038",
                format!(
                    "{side} operand of jsonpath operator {} is not a single numeric value",
                    op.symbol()
                ),
            )
        };
        let a = single(&l, "left").map_err(operand)?;
        let b = single(&r, "right").map_err(operand)?;
        let result = match op {
            BinaryOp::Add => a.checked_add(&b).map_err(SqlError::from),
            BinaryOp::Sub => a.checked_sub(&b).map_err(SqlError::from),
            BinaryOp::Mul => a.checked_mul(&b).map_err(SqlError::from),
            BinaryOp::Div => crate::numeric_functions::div(&a, &b),
            _ => match a.checked_rem(&b) {
                Ok(Some(n)) => Ok(n),
                Ok(None) => Err(error("22012", "division by zero")),
                Err(e) => Err(e.into()),
            },
        };
        match result {
            Ok(n) => Ok(number(&n)),
            Err(e) if self.throw => Err(Failure::Error(e)),
            Err(_) => Err(Failure::Suppressed),
        }
    }

    /// Applies `accessors` in turn to `items`.
    fn apply_all(
        &mut self,
        accessors: &[Accessor],
        items: Vec<Item>,
        found: &mut Vec<Item>,
    ) -> Step {
        let Some((first, rest)) = accessors.split_first() else {
            found.extend(items);
            return Ok(());
        };
        for item in items {
            let mut next = Vec::new();
            let result = self.apply(first, &item, self.lax, &mut next);
            // What `**` yields goes on ignoring structural errors.
            let ignore = self.ignore_structural;
            if matches!(first, Accessor::Any { .. }) {
                self.ignore_structural = true;
            }
            // Items yielded before a suppressed error still go on.
            let later = self.apply_all(rest, next, found);
            self.ignore_structural = ignore;
            result?;
            later?;
        }
        Ok(())
    }

    /// One accessor on one item; `unwrap`: an array meeting an object
    /// accessor, filter or numeric method is unwrapped one level.
    fn apply(
        &mut self,
        accessor: &Accessor,
        item: &Item,
        unwrap: bool,
        found: &mut Vec<Item>,
    ) -> Step {
        let Item::Json(j) = item;
        let json = Some(j);
        let unwraps = |a: &Accessor| {
            matches!(
                a,
                Accessor::Key(_)
                    | Accessor::AnyKey
                    | Accessor::Filter(_)
                    | Accessor::Datetime(_)
                    | Accessor::Method(
                        Method::Abs
                            | Method::Floor
                            | Method::Ceiling
                            | Method::Double
                            | Method::KeyValue
                    )
            )
        };
        if unwrap
            && unwraps(accessor)
            && let Some(Jsonb::Array(elements)) = json
        {
            for element in elements {
                self.apply(accessor, &Item::Json(element.clone()), false, found)?;
            }
            return Ok(());
        }
        match accessor {
            Accessor::Key(key) => match json {
                Some(Jsonb::Object(_)) => match json.and_then(|j| j.get(key)) {
                    Some(v) => {
                        found.push(Item::Json(v.clone()));
                        Ok(())
                    }
                    None => self.structural(
                        "2203A",
                        format!("JSON object does not contain key \"{key}\""),
                    ),
                },
                _ => self.structural(
                    "2203A",
                    "jsonpath member accessor can only be applied to an object",
                ),
            },
            Accessor::AnyKey => match json {
                Some(Jsonb::Object(members)) => {
                    found.extend(members.iter().map(|(_, v)| Item::Json(v.clone())));
                    Ok(())
                }
                _ => self.structural(
                    "2203C",
                    "jsonpath wildcard member accessor can only be applied to an object",
                ),
            },
            Accessor::AnyArray => match json {
                Some(Jsonb::Array(elements)) => {
                    found.extend(elements.iter().cloned().map(Item::Json));
                    Ok(())
                }
                _ if self.lax => {
                    found.push(item.clone());
                    Ok(())
                }
                _ => self.structural(
                    "22039",
                    "jsonpath wildcard array accessor can only be applied to an array",
                ),
            },
            Accessor::Subscripts(subscripts) => self.subscripts(subscripts, item, found),
            Accessor::Any { first, last } => {
                if *first == 0 {
                    found.push(item.clone());
                }
                if let Some(j) = json {
                    descendants(j, 1, *first, *last, found);
                }
                Ok(())
            }
            Accessor::Filter(predicate) => {
                if self.nested_truth(predicate, item)? == Truth::True {
                    found.push(item.clone());
                }
                Ok(())
            }
            Accessor::Method(method) => self.method(*method, item, found),
            Accessor::Datetime(template) => {
                let value = crate::jsonpath_datetime::datetime(self, item, template.as_deref())?;
                found.push(value);
                Ok(())
            }
        }
    }

    /// A datetime error: raised or suppressed as the others are.
    pub fn datetime_failure(&self, e: SqlError) -> Failure {
        if self.throw {
            Failure::Error(e)
        } else {
            Failure::Suppressed
        }
    }

    fn subscripts(
        &mut self,
        subscripts: &[folio_row::PathSubscript],
        item: &Item,
        found: &mut Vec<Item>,
    ) -> Step {
        let elements: Vec<Item> = match item {
            Item::Json(Jsonb::Array(elements)) => {
                elements.iter().cloned().map(Item::Json).collect()
            }
            _ if self.lax => vec![item.clone()],
            _ => {
                return self.structural(
                    "22039",
                    "jsonpath array accessor can only be applied to an array",
                );
            }
        };
        let size = elements.len();
        let outer = self.array_size.replace(size);
        let result = (|| {
            for s in subscripts {
                let from = self.index(&s.from, item)?;
                let to = match &s.to {
                    Some(to) => self.index(to, item)?,
                    None => from,
                };
                if !self.ignore_structural && (from < 0 || from > to || to >= size as i64) {
                    return Err(self.fail("22033", "jsonpath array subscript is out of bounds"));
                }
                let from = from.max(0);
                let to = to.min(size as i64 - 1);
                let mut i = from;
                while i <= to {
                    found.push(elements[i as usize].clone());
                    i += 1;
                }
            }
            Ok(())
        })();
        self.array_size = outer;
        result
    }

    /// A subscript's value: one number, cut to an integer.
    fn index(&mut self, e: &PathExpr, item: &Item) -> Result<i64, Failure> {
        let mut items = Vec::new();
        self.eval(e, item, &mut items)?;
        let n = match items.as_slice() {
            [one] => numeric_of(one),
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.fail(
                "22033",
                "jsonpath array subscript is not a single numeric value",
            ));
        };
        let cut = n
            .round_to(0, Rounding::TowardZero)
            .ok()
            .and_then(|n| n.to_i128());
        match cut.and_then(|i| i32::try_from(i).ok()) {
            Some(i) => Ok(i64::from(i)),
            None => Err(self.fail("22033", "jsonpath array subscript is out of integer range")),
        }
    }

    fn method(&mut self, method: Method, item: &Item, found: &mut Vec<Item>) -> Step {
        let Item::Json(j) = item;
        let json = Some(j);
        let name = method.name();
        match method {
            Method::Type => {
                let Item::Json(j) = item;
                let type_name = j.type_name().to_string();
                found.push(Item::Json(Jsonb::String(type_name)));
            }
            Method::Size => match json {
                Some(Jsonb::Array(elements)) => {
                    found.push(Item::Json(Jsonb::Number(elements.len().to_string())))
                }
                _ if self.lax => found.push(Item::Json(Jsonb::Number("1".into()))),
                _ => {
                    return self.structural(
                        "22039",
                        format!("jsonpath item method .{name}() can only be applied to an array"),
                    );
                }
            },
            Method::Abs | Method::Floor | Method::Ceiling => {
                let Some(n) = numeric_of(item) else {
                    return Err(self.fail(
                        "22036",
                        format!(
                            "jsonpath item method .{name}() can only be applied to a numeric value"
                        ),
                    ));
                };
                let n = match method {
                    Method::Abs => n.abs(),
                    Method::Floor => n.round_to(0, Rounding::Floor).map_err(SqlError::from)?,
                    _ => n.round_to(0, Rounding::Ceiling).map_err(SqlError::from)?,
                };
                found.push(number(&n));
            }
            Method::Double => match json {
                Some(Jsonb::Number(text)) => {
                    match text.parse::<f64>() {
                        Ok(f) if f.is_finite() => {}
                        _ => {
                            return Err(self.fail(
                                "22036",
                                format!("numeric argument of jsonpath item method .{name}() is out of range for type double precision"),
                            ));
                        }
                    }
                    found.push(item.clone());
                }
                Some(Jsonb::String(s)) => {
                    let bad = || {
                        self.fail(
                            "22036",
                            format!("string argument of jsonpath item method .{name}() is not a valid representation of a double precision number"),
                        )
                    };
                    let f = match Value::from_text(folio_row::SqlType::Float8, s) {
                        Ok(Value::Float8(f)) if f.is_finite() => f,
                        _ => return Err(bad()),
                    };
                    let n = crate::numeric_functions::from_float(f, 15).map_err(|_| bad())?;
                    found.push(number(&n));
                }
                _ => {
                    return Err(self.fail(
                        "22036",
                        format!("jsonpath item method .{name}() can only be applied to a string or numeric value"),
                    ));
                }
            },
            Method::KeyValue => match json {
                Some(Jsonb::Object(members)) => {
                    let id = crate::jsonpath_keyvalue::object_id(self.root, j);
                    for (k, v) in members {
                        found.push(Item::Json(Jsonb::object(vec![
                            ("key".into(), Jsonb::String(k.clone())),
                            ("value".into(), v.clone()),
                            ("id".into(), Jsonb::Number(id.to_string())),
                        ])));
                    }
                }
                _ => {
                    return Err(self.fail(
                        "2203C",
                        format!("jsonpath item method .{name}() can only be applied to an object"),
                    ));
                }
            },
        }
        Ok(())
    }

    /// The truth of a filter's predicate with `item` as `@`.
    fn nested_truth(&mut self, predicate: &PathExpr, item: &Item) -> Result<Truth, Failure> {
        self.truth(predicate, item)
    }

    /// The truth of a predicate.
    fn truth(&mut self, e: &PathExpr, current: &Item) -> Result<Truth, Failure> {
        Ok(match e {
            PathExpr::Binary(BinaryOp::And, l, r) => {
                let a = self.truth(l, current)?;
                if a == Truth::False {
                    return Ok(Truth::False);
                }
                let b = self.truth(r, current)?;
                if b == Truth::True { a } else { b }
            }
            PathExpr::Binary(BinaryOp::Or, l, r) => {
                let a = self.truth(l, current)?;
                if a == Truth::True {
                    return Ok(Truth::True);
                }
                let b = self.truth(r, current)?;
                if b == Truth::False { a } else { b }
            }
            PathExpr::Not(arg) => match self.truth(arg, current)? {
                Truth::True => Truth::False,
                Truth::False => Truth::True,
                Truth::Unknown => Truth::Unknown,
            },
            PathExpr::IsUnknown(arg) => match self.truth(arg, current)? {
                Truth::Unknown => Truth::True,
                _ => Truth::False,
            },
            PathExpr::Exists(arg) => match self.eval_quietly(arg, current, false)? {
                None => Truth::Unknown,
                Some(items) if items.is_empty() => Truth::False,
                Some(_) => Truth::True,
            },
            PathExpr::Binary(op, l, r) => {
                let unwrap_right = *op != BinaryOp::StartsWith;
                let op = *op;
                self.pairs(l, Some((r, unwrap_right)), current, |a, b| {
                    compare(op, a, b.expect("two sides"))
                })?
            }
            PathExpr::LikeRegex {
                expr,
                pattern,
                flags,
            } => {
                let pattern = crate::regex_match::compiled(
                    pattern,
                    crate::jsonpath_functions::regex_flags(*flags),
                )?;
                self.pairs(expr, None, current, |a, _| match a {
                    Item::Json(Jsonb::String(s)) => match pattern.is_match(s) {
                        Ok(true) => Ok(Truth::True),
                        Ok(false) => Ok(Truth::False),
                        Err(e) => Err(e),
                    },
                    _ => Ok(Truth::Unknown),
                })?
            }
            other => {
                return Err(
                    error("XX000", format!("invalid boolean jsonpath item: {other:?}")).into(),
                );
            }
        })
    }

    /// PostgreSQL's `executePredicate`: `test` over each pair of the
    /// sides' items (the left side unwrapped in lax mode).
    fn pairs(
        &mut self,
        left: &PathExpr,
        right: Option<(&PathExpr, bool)>,
        current: &Item,
        mut test: impl FnMut(&Item, Option<&Item>) -> Result<Truth, SqlError>,
    ) -> Result<Truth, Failure> {
        let Some(l) = self.eval_quietly(left, current, true)? else {
            return Ok(Truth::Unknown);
        };
        let r = match right {
            Some((r, unwrap)) => match self.eval_quietly(r, current, unwrap)? {
                Some(items) => Some(items),
                None => return Ok(Truth::Unknown),
            },
            None => None,
        };
        let (mut found, mut unknown) = (false, false);
        for a in &l {
            let rights: Vec<Option<&Item>> = match &r {
                Some(items) => items.iter().map(Some).collect(),
                None => vec![None],
            };
            for b in rights {
                match test(a, b)? {
                    Truth::Unknown if !self.lax => return Ok(Truth::Unknown),
                    Truth::Unknown => unknown = true,
                    Truth::True if self.lax => return Ok(Truth::True),
                    Truth::True => found = true,
                    Truth::False => {}
                }
            }
        }
        Ok(if found {
            Truth::True
        } else if unknown {
            Truth::Unknown
        } else {
            Truth::False
        })
    }
}

fn is_arithmetic(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod
    )
}

/// The numeric of a number item.
fn numeric_of(item: &Item) -> Option<Numeric> {
    match item {
        Item::Json(Jsonb::Number(text)) => Numeric::parse(text).ok(),
        _ => None,
    }
}

fn number(n: &Numeric) -> Item {
    Item::Json(Jsonb::Number(n.to_string()))
}

/// The values inside `j` from `level` down, those at levels `first` to
/// `last` (PostgreSQL's `executeAnyItem`: `**{last}` alone, only
/// scalars at any level).
fn descendants(j: &Jsonb, level: u32, first: u32, last: u32, found: &mut Vec<Item>) {
    if level > last {
        return;
    }
    let children: Vec<&Jsonb> = match j {
        Jsonb::Array(elements) => elements.iter().collect(),
        Jsonb::Object(members) => members.iter().map(|(_, v)| v).collect(),
        _ => return,
    };
    let leaves_only = first == folio_row::PATH_LAST_LEVEL && last == folio_row::PATH_LAST_LEVEL;
    for child in children {
        let container = matches!(child, Jsonb::Array(_) | Jsonb::Object(_));
        if level >= first || (leaves_only && !container) {
            found.push(Item::Json(child.clone()));
        }
        if level < last && container {
            descendants(child, level + 1, first, last, found);
        }
    }
}

/// A comparison or `starts with` of two items.
fn compare(op: BinaryOp, a: &Item, b: &Item) -> Result<Truth, SqlError> {
    let truth = |b: bool| if b { Truth::True } else { Truth::False };
    if op == BinaryOp::StartsWith {
        return Ok(match (a, b) {
            (Item::Json(Jsonb::String(s)), Item::Json(Jsonb::String(prefix))) => {
                truth(s.starts_with(prefix.as_str()))
            }
            _ => Truth::Unknown,
        });
    }
    let order = match (a, b) {
        (Item::Json(x), Item::Json(y)) => match (x, y) {
            (Jsonb::Null, Jsonb::Null) => std::cmp::Ordering::Equal,
            (Jsonb::Null, _) | (_, Jsonb::Null) => return Ok(truth(op == BinaryOp::Ne)),
            (Jsonb::Bool(p), Jsonb::Bool(q)) => p.cmp(q),
            (Jsonb::Number(p), Jsonb::Number(q)) => match (Numeric::parse(p), Numeric::parse(q)) {
                (Ok(p), Ok(q)) => p.cmp(&q),
                _ => return Ok(Truth::Unknown),
            },
            (Jsonb::String(p), Jsonb::String(q)) => p.as_bytes().cmp(q.as_bytes()),
            _ => return Ok(Truth::Unknown),
        },
    };
    use std::cmp::Ordering::*;
    Ok(truth(match op {
        BinaryOp::Eq => order == Equal,
        BinaryOp::Ne => order != Equal,
        BinaryOp::Lt => order == Less,
        BinaryOp::Le => order != Greater,
        BinaryOp::Gt => order == Greater,
        _ => order != Less,
    }))
}
