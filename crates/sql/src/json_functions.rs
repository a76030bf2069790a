//! The json and jsonb operators and scalar functions, with PostgreSQL
//! 15's results and errors: `->`, `->>`, `#>`, `#>>` (json and jsonb),
//! `@>`, `<@`, `?`, `?|`, `?&`, `||`, `-`, `#-` (jsonb) and their
//! functions (`jsonb_contains`, ...), the casts from json and jsonb, and
//! `jsonb_typeof`, `jsonb_array_length`, `jsonb_set`, `jsonb_insert`,
//! `jsonb_set_lax` (`json_edits.rs`), `json[b]_extract_path[_text]`,
//! `json[b]_object` (`json_object.rs`), `jsonb_pretty`,
//! `jsonb_strip_nulls` (and their json forms where PostgreSQL has them),
//! jsonb subscripts (`json_subscripts.rs`). SQL values become JSON in
//! `json_build.rs`.
//!
//! A `json` value is its text (`Value::Json`): an operator parses it
//! (folio-row's `parse_json`) and answers with the text of the part it
//! picks, as written; of duplicate keys the last one is found, as in
//! PostgreSQL. A `jsonb` value is folio-row's normalized `Jsonb`.

use crate::error::SqlError;
use crate::json_edits::{self, Edit};
use crate::scalar::{Columns, Scalar};
use crate::types;
use folio_row::{JsonNode, JsonNodeKind, Jsonb, SqlType, Value, parse_json};
use sqlparser::ast::BinaryOperator;

/// A json operator or function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFunc {
    /// `->` (`text`: `->>`): an object's member by key, an array's
    /// element by index (negative: from the end).
    Get { text: bool },
    /// `#>` (`text`: `#>>`): the value at a path of keys and indexes.
    Path { text: bool },
    /// `@>`.
    Contains,
    /// `<@`.
    ContainedBy,
    /// `?`.
    Exists,
    /// `?|` (`all`: `?&`).
    ExistsAnyAll { all: bool },
    /// `||` of two jsonb values.
    Concat,
    /// `-` of a key, an index or an array of keys.
    Delete,
    /// `#-`.
    DeletePath,
    /// `jsonb_typeof` / `json_typeof` (`jsonb`: which).
    Typeof { jsonb: bool },
    /// `jsonb_array_length` / `json_array_length`.
    ArrayLength { jsonb: bool },
    /// `jsonb_set(target, path, new [, create_missing])`
    /// (`json_edits.rs`).
    Set,
    /// `jsonb_insert(target, path, new [, insert_after])`.
    Insert,
    /// `jsonb_set_lax(target, path, new [, create_missing [,
    /// null_value_treatment]])`: not strict (a NULL `new` is what the
    /// treatment says).
    SetLax,
    /// `json[b]_extract_path[_text](doc, VARIADIC steps)`: `#>` / `#>>`
    /// of the steps given one by one.
    ExtractPath { text: bool },
    /// `json_object(text[] [, text[]])` / `jsonb_object`
    /// (`json_object.rs`).
    Object { jsonb: bool },
    /// `jsonb_pretty`.
    Pretty,
    /// `jsonb_strip_nulls` / `json_strip_nulls`.
    StripNulls { jsonb: bool },
    /// `json[b]_populate_record(base, doc)` outside FROM: a value of
    /// `def` (`json_records::bind_scalar`; arguments doc, base). Not
    /// strict (a NULL document is the base row).
    Populate {
        f: crate::json_records::RecordFunc,
        def: &'static folio_row::CompositeType,
    },
    /// `doc[s1][s2]...` (`json_subscripts.rs`).
    Subscript,
    /// `doc[s1]... = value` in an UPDATE's SET (`json_subscripts.rs`);
    /// `array`: a NULL document starts as an array. Not strict.
    SubscriptAssign { array: bool },
    /// A SQL value as JSON (`json_build.rs`).
    Build(crate::json_build::BuildFunc),
    /// A build function called with `VARIADIC array`: the array's
    /// elements are its arguments (NULL for a NULL array).
    Spread(crate::json_build::BuildFunc),
}

/// The functions called by name.
const NAMES: [(&str, JsonFunc); 27] = [
    ("jsonb_typeof", JsonFunc::Typeof { jsonb: true }),
    ("json_typeof", JsonFunc::Typeof { jsonb: false }),
    ("jsonb_array_length", JsonFunc::ArrayLength { jsonb: true }),
    ("json_array_length", JsonFunc::ArrayLength { jsonb: false }),
    ("jsonb_set", JsonFunc::Set),
    ("jsonb_pretty", JsonFunc::Pretty),
    ("jsonb_strip_nulls", JsonFunc::StripNulls { jsonb: true }),
    ("json_strip_nulls", JsonFunc::StripNulls { jsonb: false }),
    ("jsonb_insert", JsonFunc::Insert),
    ("jsonb_set_lax", JsonFunc::SetLax),
    ("json_extract_path", JsonFunc::ExtractPath { text: false }),
    ("jsonb_extract_path", JsonFunc::ExtractPath { text: false }),
    (
        "json_extract_path_text",
        JsonFunc::ExtractPath { text: true },
    ),
    (
        "jsonb_extract_path_text",
        JsonFunc::ExtractPath { text: true },
    ),
    ("json_object", JsonFunc::Object { jsonb: false }),
    ("jsonb_object", JsonFunc::Object { jsonb: true }),
    // The operators' functions (`pg_operator.oprcode`).
    ("jsonb_contains", JsonFunc::Contains),
    ("jsonb_contained", JsonFunc::ContainedBy),
    ("jsonb_exists", JsonFunc::Exists),
    ("jsonb_exists_any", JsonFunc::ExistsAnyAll { all: false }),
    ("jsonb_exists_all", JsonFunc::ExistsAnyAll { all: true }),
    ("jsonb_concat", JsonFunc::Concat),
    ("jsonb_delete", JsonFunc::Delete),
    ("jsonb_delete_path", JsonFunc::DeletePath),
    ("json_object_field", JsonFunc::Get { text: false }),
    ("jsonb_object_field", JsonFunc::Get { text: false }),
    ("json_object_field_text", JsonFunc::Get { text: true }),
];

impl JsonFunc {
    /// The function called `name`, if it is one of these.
    pub fn of(name: &str) -> Option<JsonFunc> {
        crate::names::lookup(&NAMES, name)
            .or_else(|| crate::json_build::BuildFunc::of(name).map(JsonFunc::Build))
    }

    /// Its name, for the functions called by one.
    pub fn name(self) -> Option<&'static str> {
        match self {
            JsonFunc::Build(f) | JsonFunc::Spread(f) => Some(f.name()),
            _ => crate::names::name_in(&NAMES, &self),
        }
    }

    /// The operator's symbol, for the operators (EXPLAIN).
    pub fn symbol(self) -> Option<&'static str> {
        Some(match self {
            JsonFunc::Get { text: false } => "->",
            JsonFunc::Get { text: true } => "->>",
            JsonFunc::Path { text: false } => "#>",
            JsonFunc::Path { text: true } => "#>>",
            JsonFunc::Contains => "@>",
            JsonFunc::ContainedBy => "<@",
            JsonFunc::Exists => "?",
            JsonFunc::ExistsAnyAll { all: false } => "?|",
            JsonFunc::ExistsAnyAll { all: true } => "?&",
            JsonFunc::Concat => "||",
            JsonFunc::Delete => "-",
            JsonFunc::DeletePath => "#-",
            _ => return None,
        })
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            JsonFunc::Typeof { .. }
            | JsonFunc::ArrayLength { .. }
            | JsonFunc::Pretty
            | JsonFunc::StripNulls { .. } => count == 1,
            JsonFunc::Set | JsonFunc::Insert => (3..=4).contains(&count),
            JsonFunc::SetLax => (3..=5).contains(&count),
            JsonFunc::ExtractPath { .. } | JsonFunc::Subscript => count >= 2,
            JsonFunc::SubscriptAssign { .. } => count >= 3,
            JsonFunc::Populate { .. } => count == 2,
            JsonFunc::Object { .. } => (1..=2).contains(&count),
            JsonFunc::Build(f) => f.takes(count),
            _ => count == 2,
        }
    }

    /// Whether a NULL argument makes the result NULL without a call.
    pub fn is_strict(self) -> bool {
        match self {
            JsonFunc::Build(f) => f.is_strict(),
            JsonFunc::SetLax
            | JsonFunc::ExtractPath { .. }
            | JsonFunc::SubscriptAssign { .. }
            | JsonFunc::Populate { .. } => false,
            _ => true,
        }
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        let first = args.first().copied().unwrap_or(SqlType::Jsonb);
        match self {
            JsonFunc::Get { text: true }
            | JsonFunc::Path { text: true }
            | JsonFunc::ExtractPath { text: true } => SqlType::Text,
            JsonFunc::Get { text: false }
            | JsonFunc::Path { text: false }
            | JsonFunc::ExtractPath { text: false } => first,
            JsonFunc::Object { jsonb: true } => SqlType::Jsonb,
            JsonFunc::Object { jsonb: false } => SqlType::Json,
            JsonFunc::Contains
            | JsonFunc::ContainedBy
            | JsonFunc::Exists
            | JsonFunc::ExistsAnyAll { .. } => SqlType::Bool,
            JsonFunc::Typeof { .. } | JsonFunc::Pretty => SqlType::Text,
            JsonFunc::ArrayLength { .. } => SqlType::Int4,
            JsonFunc::StripNulls { .. } => first,
            JsonFunc::Concat
            | JsonFunc::Delete
            | JsonFunc::DeletePath
            | JsonFunc::Set
            | JsonFunc::Insert
            | JsonFunc::SetLax
            | JsonFunc::Subscript
            | JsonFunc::SubscriptAssign { .. } => SqlType::Jsonb,
            JsonFunc::Build(f) | JsonFunc::Spread(f) => f.ty(),
            JsonFunc::Populate { def, .. } => SqlType::Composite(def),
        }
    }

    /// A call of `name` with `VARIADIC array` (`variadic.rs`): `before`
    /// the arguments before it. `None` if `name` is no json function
    /// taking one.
    pub fn bind_variadic(
        name: &str,
        before: &[Scalar],
        array: &Scalar,
        columns: &(impl Columns + ?Sized),
    ) -> Option<Result<Scalar, SqlError>> {
        let func = JsonFunc::of(name)?;
        let call =
            |f: JsonFunc, args: Vec<Scalar>| Scalar::Func(crate::functions::Func::Json(f), args);
        Some(match (func, before) {
            (JsonFunc::Build(f @ crate::json_build::BuildFunc::Object { .. }), [])
            | (JsonFunc::Build(f @ crate::json_build::BuildFunc::Array { .. }), []) => {
                Ok(call(JsonFunc::Spread(f), vec![array.clone()]))
            }
            (JsonFunc::ExtractPath { text }, [doc]) => JsonFunc::Path { text }
                .bind_args(name, vec![doc.clone(), array.clone()], columns)
                .map(|args| call(JsonFunc::Path { text }, args)),
            (JsonFunc::Delete, [doc]) => JsonFunc::DeletePath
                .bind_args(name, vec![doc.clone(), array.clone()], columns)
                .map(|args| call(JsonFunc::Delete, args)),
            _ => return None,
        })
    }

    /// The arguments of a call by name, a quoted literal or parameter
    /// taking the parameter's type; an argument of another type is
    /// PostgreSQL's 42883 (the build functions take any).
    pub fn bind_args(
        self,
        name: &str,
        args: Vec<Scalar>,
        columns: &(impl Columns + ?Sized),
    ) -> Result<Vec<Scalar>, SqlError> {
        let doc = |jsonb: bool| if jsonb { SqlType::Jsonb } else { SqlType::Json };
        let text_array = SqlType::Array(&SqlType::Text);
        let integer = |a: &Scalar| {
            matches!(
                a,
                Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_)
            )
            .then_some(false)
            .unwrap_or_else(|| {
                matches!(
                    a.ty_in(columns),
                    SqlType::Int2 | SqlType::Int4 | SqlType::Int8
                )
            })
        };
        let steps;
        let params: &[SqlType] = match self {
            JsonFunc::Typeof { jsonb }
            | JsonFunc::ArrayLength { jsonb }
            | JsonFunc::StripNulls { jsonb } => &[doc(jsonb)],
            JsonFunc::Pretty => &[SqlType::Jsonb],
            JsonFunc::Set | JsonFunc::Insert | JsonFunc::SetLax => &[
                SqlType::Jsonb,
                text_array,
                SqlType::Jsonb,
                SqlType::Bool,
                SqlType::Text,
            ],
            JsonFunc::Contains | JsonFunc::ContainedBy | JsonFunc::Concat => {
                &[SqlType::Jsonb, SqlType::Jsonb]
            }
            JsonFunc::Exists => &[SqlType::Jsonb, SqlType::Text],
            JsonFunc::ExistsAnyAll { .. } | JsonFunc::DeletePath => &[SqlType::Jsonb, text_array],
            JsonFunc::Path { .. } => {
                steps = vec![doc(name.starts_with("jsonb")), text_array];
                &steps
            }
            JsonFunc::Delete if args.get(1).is_some_and(integer) => {
                &[SqlType::Jsonb, SqlType::Int4]
            }
            JsonFunc::Delete => &[SqlType::Jsonb, SqlType::Text],
            JsonFunc::Object { .. } => &[text_array, text_array],
            JsonFunc::Get { .. } | JsonFunc::ExtractPath { .. } => {
                let jsonb = name.starts_with("jsonb");
                steps = std::iter::once(doc(jsonb))
                    .chain(std::iter::repeat_n(
                        SqlType::Text,
                        args.len().saturating_sub(1),
                    ))
                    .collect::<Vec<_>>();
                &steps
            }
            _ => return Ok(args),
        };
        let fits = |arg: &Scalar, param: SqlType| match arg {
            Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => true,
            typed => {
                let ty = typed.ty_in(columns);
                ty == param
                    || matches!(
                        (ty, param),
                        (
                            SqlType::Array(SqlType::Varchar(_)),
                            SqlType::Array(SqlType::Text)
                        ) | (SqlType::Varchar(_), SqlType::Text)
                            | (SqlType::Int2, SqlType::Int4)
                    )
            }
        };
        if args.iter().zip(params).any(|(a, p)| !fits(a, *p)) {
            return Err(crate::functions::no_match(format!(
                "function {name}({}) does not exist",
                crate::scalar::argument_types(&args, columns)
            )));
        }
        args.into_iter()
            .zip(params)
            .map(|(arg, &param)| crate::scalar::fit_unknown(arg, param))
            .collect()
    }

    /// Its value (NULL arguments of a strict one already answered).
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        match self {
            JsonFunc::Build(f) => return f.eval(args),
            JsonFunc::Spread(f) => {
                return f.eval(crate::variadic::spread(
                    args.into_iter().next().unwrap_or(Value::Null),
                ));
            }
            JsonFunc::Object { jsonb } => return crate::json_object::eval(jsonb, args),
            JsonFunc::SetLax => return set_lax(args),
            JsonFunc::Subscript => return Ok(crate::json_subscripts::read(&args)),
            JsonFunc::Populate { f, def } => {
                let [doc, base] = <[Value; 2]>::try_from(args)
                    .map_err(|_| internal("populate arguments".into()))?;
                if doc == Value::Null {
                    return Ok(base);
                }
                let row = f.rows(&doc, &base, &def.fields)?.into_iter().next();
                return Ok(row.map_or(Value::Null, Value::Record));
            }
            JsonFunc::SubscriptAssign { array } => {
                return crate::json_subscripts::assign(args, array);
            }
            JsonFunc::ExtractPath { text } => {
                let mut args = args.into_iter();
                return match args.next() {
                    None | Some(Value::Null) => Ok(Value::Null),
                    Some(doc) => {
                        JsonFunc::Path { text }.eval(vec![doc, Value::array(args.collect())])
                    }
                };
            }
            _ => {}
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or(Value::Null);
        let second = args.next().unwrap_or(Value::Null);
        if let Value::Json(text) = &first {
            return json_eval(self, text, &second);
        }
        let Value::Jsonb(doc) = first else {
            return Err(internal(format!(
                "a json function of a {}",
                first.type_name()
            )));
        };
        let jsonb = |j: Jsonb| Value::Jsonb(Box::new(j));
        Ok(match self {
            JsonFunc::Get { text } => match get(&doc, &second) {
                Some(found) => out(found.clone(), text),
                None => Value::Null,
            },
            JsonFunc::Path { text } => match path_get(&doc, &path_steps(&second)?) {
                Some(found) => out(found.clone(), text),
                None => Value::Null,
            },
            JsonFunc::Contains => Value::Bool(doc.contains(&jsonb_arg(second)?)),
            JsonFunc::ContainedBy => Value::Bool(jsonb_arg(second)?.contains(&doc)),
            JsonFunc::Exists => Value::Bool(doc.has_key(&text_arg(&second)?)),
            JsonFunc::ExistsAnyAll { all } => {
                let keys: Vec<&str> = path_steps(&second)?.into_iter().flatten().collect();
                let has = |k: &&str| doc.has_key(k);
                Value::Bool(if all {
                    keys.iter().all(has)
                } else {
                    keys.iter().any(has)
                })
            }
            JsonFunc::Concat => jsonb(concat(*doc, jsonb_arg(second)?)),
            JsonFunc::Delete => jsonb(delete(*doc, &second)?),
            JsonFunc::DeletePath => jsonb(json_edits::delete_path(*doc, &owned_steps(&second)?)?),
            JsonFunc::Typeof { .. } => Value::Text(doc.type_name().into()),
            JsonFunc::ArrayLength { .. } => match &*doc {
                Jsonb::Array(items) => Value::Int4(items.len() as i32),
                other => return Err(no_array_length(matches!(other, Jsonb::Object(_)))),
            },
            JsonFunc::Set | JsonFunc::Insert => {
                let new = jsonb_arg(args.next().unwrap_or(Value::Null))?;
                let flag =
                    args.next().unwrap_or(Value::Bool(self == JsonFunc::Set)) == Value::Bool(true);
                let edit = match self {
                    JsonFunc::Set => Edit::Set { create: flag },
                    _ => Edit::Insert { after: flag },
                };
                jsonb(json_edits::edit(*doc, &owned_steps(&second)?, new, edit)?)
            }
            JsonFunc::Pretty => Value::Text(doc.to_pretty_text()),
            JsonFunc::StripNulls { .. } => jsonb(strip_nulls(*doc)),
            JsonFunc::Build(_)
            | JsonFunc::Spread(_)
            | JsonFunc::Object { .. }
            | JsonFunc::SetLax
            | JsonFunc::Subscript
            | JsonFunc::SubscriptAssign { .. }
            | JsonFunc::Populate { .. }
            | JsonFunc::ExtractPath { .. } => unreachable!("answered above"),
        })
    }
}

/// `a op b` where `op` is a json operator or `a` (or `b`, for `||`) is
/// jsonb: the bound call, with a quoted literal taking the type the
/// operator wants (jsonb, text[] or text). `None` for the other
/// operators, which bind as before.
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
    let json = |t: Option<SqlType>| matches!(t, Some(SqlType::Json | SqlType::Jsonb));
    let (ta, tb) = (typed(a), typed(b));
    let func = match op {
        BinaryOperator::Arrow => JsonFunc::Get { text: false },
        BinaryOperator::LongArrow => JsonFunc::Get { text: true },
        BinaryOperator::HashArrow => JsonFunc::Path { text: false },
        BinaryOperator::HashLongArrow => JsonFunc::Path { text: true },
        BinaryOperator::AtArrow if json(ta) || json(tb) => JsonFunc::Contains,
        BinaryOperator::ArrowAt if json(ta) || json(tb) => JsonFunc::ContainedBy,
        BinaryOperator::Question => JsonFunc::Exists,
        BinaryOperator::QuestionPipe => JsonFunc::ExistsAnyAll { all: false },
        BinaryOperator::QuestionAnd => JsonFunc::ExistsAnyAll { all: true },
        BinaryOperator::HashMinus => JsonFunc::DeletePath,
        // (A typed text on either side makes it text's `anynonarray ||
        // text`.)
        BinaryOperator::StringConcat
            if (ta == Some(SqlType::Jsonb) || tb == Some(SqlType::Jsonb))
                && !matches!(ta, Some(SqlType::Text | SqlType::Varchar(_)))
                && !matches!(tb, Some(SqlType::Text | SqlType::Varchar(_))) =>
        {
            JsonFunc::Concat
        }
        BinaryOperator::Minus if ta == Some(SqlType::Jsonb) => JsonFunc::Delete,
        _ => return None,
    };
    Some(bind_call(func, op, a.clone(), b.clone(), ta, tb))
}

fn bind_call(
    func: JsonFunc,
    op: &BinaryOperator,
    a: Scalar,
    b: Scalar,
    ta: Option<SqlType>,
    tb: Option<SqlType>,
) -> Result<Scalar, SqlError> {
    let name = |t: Option<SqlType>| t.map_or("unknown".to_string(), |t| t.name());
    let no_operator = || {
        crate::functions::no_operator(format!(
            "operator does not exist: {} {op} {}",
            name(ta),
            name(tb)
        ))
    };
    let literal = crate::scalar::fit_unknown;
    let text_array = SqlType::Array(&SqlType::Text);
    let jsonb_only = !matches!(func, JsonFunc::Get { .. } | JsonFunc::Path { .. });
    // Both sides jsonb (a literal on either side becomes one).
    if matches!(
        func,
        JsonFunc::Contains | JsonFunc::ContainedBy | JsonFunc::Concat
    ) {
        let fits = |t: Option<SqlType>| matches!(t, None | Some(SqlType::Jsonb));
        if !fits(ta) || !fits(tb) {
            return Err(no_operator());
        }
        return Ok(Scalar::Func(
            crate::functions::Func::Json(func),
            vec![literal(a, SqlType::Jsonb)?, literal(b, SqlType::Jsonb)?],
        ));
    }
    let a = match ta {
        Some(SqlType::Jsonb) => a,
        Some(SqlType::Json) if !jsonb_only => a,
        None => {
            return Err(SqlError::new(
                "42725",
                format!("operator is not unique: unknown {op} {}", name(tb)),
            ));
        }
        _ => return Err(no_operator()),
    };
    let string = |t: Option<SqlType>| matches!(t, None | Some(SqlType::Text | SqlType::Varchar(_)));
    let integer =
        |t: Option<SqlType>| matches!(t, Some(SqlType::Int2 | SqlType::Int4 | SqlType::Int8));
    let array =
        |t: Option<SqlType>| matches!(t, Some(SqlType::Array(SqlType::Text | SqlType::Varchar(_))));
    let b = match func {
        JsonFunc::Get { .. } if string(tb) || integer(tb) => literal(b, SqlType::Text)?,
        JsonFunc::Exists if string(tb) => literal(b, SqlType::Text)?,
        JsonFunc::Delete if string(tb) || integer(tb) || array(tb) => literal(b, SqlType::Text)?,
        JsonFunc::Path { .. } | JsonFunc::ExistsAnyAll { .. } | JsonFunc::DeletePath
            if tb.is_none() || array(tb) =>
        {
            literal(b, text_array)?
        }
        _ => return Err(no_operator()),
    };
    Ok(Scalar::Func(crate::functions::Func::Json(func), vec![a, b]))
}

/// The casts from json and jsonb (PostgreSQL's `pg_cast`): to a string
/// type as its text, json to jsonb and back, a jsonb number to a number
/// type, a jsonb boolean to boolean; others are 42846, or 22023 for a
/// jsonb of the wrong kind.
pub fn cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    let from = crate::scalar::value_type(&value);
    Ok(match (value, ty) {
        (v, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)) => {
            Value::Text(types::text_output(&v).unwrap_or_default())
        }
        (v @ Value::Json(_), SqlType::Json) | (v @ Value::Jsonb(_), SqlType::Jsonb) => v,
        (Value::Json(text), SqlType::Jsonb) => Value::from_text(SqlType::Jsonb, &text)?,
        (Value::Jsonb(j), SqlType::Json) => Value::Json(j.to_text()),
        (Value::Jsonb(j), SqlType::Bool) => match *j {
            Jsonb::Bool(b) => Value::Bool(b),
            other => return Err(wrong_kind(&other, ty)),
        },
        (Value::Jsonb(j), ty) if ty.is_number() => match *j {
            Jsonb::Number(n) => {
                types::cast(types::cast(Value::Text(n), SqlType::Numeric(None))?, ty)?
            }
            other => return Err(wrong_kind(&other, ty)),
        },
        _ => {
            return Err(SqlError::new(
                "42846",
                format!("cannot cast type {} to {}", from.name(), ty.name()),
            ));
        }
    })
}

fn wrong_kind(j: &Jsonb, ty: SqlType) -> SqlError {
    SqlError::new(
        "22023",
        format!("cannot cast jsonb {} to type {}", j.type_name(), ty.name()),
    )
}

/// A found value as `->` returns it (`text`: as `->>`, a string its
/// text and null SQL's NULL).
fn out(found: Jsonb, text: bool) -> Value {
    match (found, text) {
        (Jsonb::Null, true) => Value::Null,
        (Jsonb::String(s), true) => Value::Text(s),
        (other, true) => Value::Text(other.to_text()),
        (other, false) => Value::Jsonb(Box::new(other)),
    }
}

/// The member or element `->` picks by `key` (text: a key; an integer:
/// an index).
fn get<'j>(doc: &'j Jsonb, key: &Value) -> Option<&'j Jsonb> {
    match (doc, key) {
        (Jsonb::Object(_), Value::Text(k)) => doc.get(k),
        (Jsonb::Array(items), k) => index_of(items.len(), integer(k)?).map(|i| &items[i]),
        _ => None,
    }
}

fn integer(v: &Value) -> Option<i64> {
    match *v {
        Value::Int2(x) => Some(x.into()),
        Value::Int4(x) => Some(x.into()),
        Value::Int8(x) => Some(x),
        _ => None,
    }
}

/// The position of index `i` in `len` elements (negative: from the end).
fn index_of(len: usize, i: i64) -> Option<usize> {
    let i = if i < 0 { len as i64 + i } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

/// A text[] argument's elements, `None` for a NULL one.
fn path_steps(v: &Value) -> Result<Vec<Option<&str>>, SqlError> {
    match v {
        Value::Array(items) => Ok(items
            .iter()
            .map(|i| match i {
                Value::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()),
        other => Err(internal(format!("a json path of a {}", other.type_name()))),
    }
}

fn owned_steps(v: &Value) -> Result<Vec<Option<String>>, SqlError> {
    Ok(path_steps(v)?
        .into_iter()
        .map(|s| s.map(String::from))
        .collect())
}

/// The value `#>` finds at `steps` (none past a NULL step).
pub fn path_get<'j>(doc: &'j Jsonb, steps: &[Option<&str>]) -> Option<&'j Jsonb> {
    let mut at = doc;
    for step in steps {
        let step = (*step)?;
        at = match at {
            Jsonb::Array(items) => &items[index_of(items.len(), json_edits::integer_step(step)?)?],
            other => other.get(step)?,
        };
    }
    Some(at)
}

/// `jsonb_set_lax`: NULL for a NULL document, path or flag, 22023 for a
/// NULL treatment, `jsonb_set` for a new value that is not NULL.
fn set_lax(args: Vec<Value>) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let doc = args.next().unwrap_or(Value::Null);
    let path = args.next().unwrap_or(Value::Null);
    let new = args.next().unwrap_or(Value::Null);
    let create = args.next().unwrap_or(Value::Bool(true));
    let treatment = args.next().unwrap_or(Value::Text("use_json_null".into()));
    let Value::Text(treatment) = treatment else {
        return Err(json_edits::bad_treatment());
    };
    let (Value::Jsonb(doc), false, Value::Bool(create)) = (doc, path == Value::Null, create) else {
        return Ok(Value::Null);
    };
    let path = owned_steps(&path)?;
    Ok(Value::Jsonb(Box::new(match new {
        Value::Null => json_edits::set_lax(*doc, &path, create, &treatment)?,
        new => json_edits::edit(*doc, &path, jsonb_arg(new)?, Edit::Set { create })?,
    })))
}

fn text_arg(v: &Value) -> Result<String, SqlError> {
    Ok(types::text_output(v).unwrap_or_default())
}

fn jsonb_arg(v: Value) -> Result<Jsonb, SqlError> {
    match v {
        Value::Jsonb(j) => Ok(*j),
        other => Err(internal(format!(
            "a jsonb argument of a {}",
            other.type_name()
        ))),
    }
}

/// `a || b`: two objects merged (`b`'s members win), else the two as
/// arrays (a non-array is an array of itself) concatenated.
fn concat(a: Jsonb, b: Jsonb) -> Jsonb {
    match (a, b) {
        (Jsonb::Object(mut x), Jsonb::Object(y)) => {
            x.extend(y);
            Jsonb::object(x)
        }
        (a, b) => {
            let items = |j: Jsonb| match j {
                Jsonb::Array(items) => items,
                other => vec![other],
            };
            let mut all = items(a);
            all.extend(items(b));
            Jsonb::Array(all)
        }
    }
}

/// `doc - key`: an object without the member, an array without the
/// string elements equal to it (or the element at an integer index), or
/// without each key of a text[].
fn delete(doc: Jsonb, key: &Value) -> Result<Jsonb, SqlError> {
    let scalar = || SqlError::new("22023", "cannot delete from scalar");
    if !matches!(doc, Jsonb::Array(_) | Jsonb::Object(_)) {
        return Err(scalar());
    }
    Ok(match (doc, key) {
        (doc, Value::Array(keys)) => {
            let mut doc = doc;
            for k in keys {
                if let Value::Text(_) = k {
                    doc = delete(doc, k)?;
                }
            }
            doc
        }
        (Jsonb::Object(members), Value::Text(k)) => {
            Jsonb::Object(members.into_iter().filter(|(m, _)| m != k).collect())
        }
        (Jsonb::Array(items), Value::Text(k)) => Jsonb::Array(
            items
                .into_iter()
                .filter(|i| !matches!(i, Jsonb::String(s) if s == k))
                .collect(),
        ),
        (Jsonb::Array(mut items), k) => {
            if let Some(i) = integer(k).and_then(|i| index_of(items.len(), i)) {
                items.remove(i);
            }
            Jsonb::Array(items)
        }
        (Jsonb::Object(_), _) => {
            return Err(SqlError::new(
                "22023",
                "cannot delete from object using integer index",
            ));
        }
        _ => return Err(scalar()),
    })
}

/// Without the object members whose value is null, at every depth.
fn strip_nulls(doc: Jsonb) -> Jsonb {
    match doc {
        Jsonb::Object(members) => Jsonb::Object(
            members
                .into_iter()
                .filter(|(_, v)| !matches!(v, Jsonb::Null))
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Jsonb::Array(items) => Jsonb::Array(items.into_iter().map(strip_nulls).collect()),
        scalar => scalar,
    }
}

/// A json function of a `json` value, read from its text.
fn json_eval(func: JsonFunc, text: &str, second: &Value) -> Result<Value, SqlError> {
    let doc = parse_json(text)?;
    let part = |n: &JsonNode<'_>| text[n.start..n.end].to_string();
    let found = |n: Option<&JsonNode<'_>>, as_text: bool| -> Result<Value, SqlError> {
        Ok(match (n, as_text) {
            (None, _) => Value::Null,
            (Some(n), false) => Value::Json(part(n)),
            (Some(n), true) => match &n.kind {
                JsonNodeKind::Null => Value::Null,
                JsonNodeKind::String(s) => Value::Text(s.clone()?),
                _ => Value::Text(part(n)),
            },
        })
    };
    Ok(match func {
        JsonFunc::Get { text: as_text } => found(json_get(&doc, second), as_text)?,
        JsonFunc::Path { text: as_text } => {
            let mut at = Some(&doc);
            for step in path_steps(second)? {
                at = at.and_then(|n| match &n.kind {
                    JsonNodeKind::Array(_) => {
                        json_get(n, &Value::Int8(json_edits::integer_step(step?)?))
                    }
                    _ => json_get(n, &Value::Text(step?.to_string())),
                });
            }
            found(at, as_text)?
        }
        JsonFunc::Typeof { .. } => Value::Text(
            match &doc.kind {
                JsonNodeKind::Null => "null",
                JsonNodeKind::Bool(_) => "boolean",
                JsonNodeKind::Number(_) => "number",
                JsonNodeKind::String(_) => "string",
                JsonNodeKind::Array(_) => "array",
                JsonNodeKind::Object(_) => "object",
            }
            .into(),
        ),
        JsonFunc::ArrayLength { .. } => match &doc.kind {
            JsonNodeKind::Array(items) => Value::Int4(items.len() as i32),
            other => return Err(no_array_length(matches!(other, JsonNodeKind::Object(_)))),
        },
        JsonFunc::StripNulls { .. } => {
            let mut out = String::new();
            strip_json_nulls(text, &doc, &mut out);
            Value::Json(out)
        }
        other => {
            return Err(crate::functions::no_match(format!(
                "function {}(json) does not exist",
                other.name().unwrap_or("?")
            )));
        }
    })
}

/// `json_strip_nulls`: the text rebuilt without null members, every
/// other part as written but for the whitespace between parts.
fn strip_json_nulls(text: &str, node: &JsonNode<'_>, out: &mut String) {
    match &node.kind {
        JsonNodeKind::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                strip_json_nulls(text, item, out);
            }
            out.push(']');
        }
        JsonNodeKind::Object(members) => {
            out.push('{');
            let mut first = true;
            for (key, value) in members {
                if matches!(value.kind, JsonNodeKind::Null) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                match key {
                    Ok(k) => folio_row::json_escape_into(out, k),
                    Err(_) => out.push_str("\"\""),
                }
                out.push(':');
                strip_json_nulls(text, value, out);
            }
            out.push('}');
        }
        _ => out.push_str(&text[node.start..node.end]),
    }
}

/// The member (the last of a duplicated key) or element of a json node.
fn json_get<'n, 'a>(node: &'n JsonNode<'a>, key: &Value) -> Option<&'n JsonNode<'a>> {
    match (&node.kind, key) {
        (JsonNodeKind::Object(members), Value::Text(k)) => members
            .iter()
            .rev()
            .find(|(m, _)| m.as_ref().is_ok_and(|m| m == k))
            .map(|(_, v)| v),
        (JsonNodeKind::Array(items), k) => index_of(items.len(), integer(k)?).map(|i| &items[i]),
        _ => None,
    }
}

/// `json[b]_array_length` of an object (`object`) or a scalar: 22023,
/// PostgreSQL's message for each.
fn no_array_length(object: bool) -> SqlError {
    let what = if object { "a non-array" } else { "a scalar" };
    SqlError::new("22023", format!("cannot get array length of {what}"))
}

/// A call the binder should have refused (XX000).
fn internal(what: String) -> SqlError {
    SqlError::new("XX000", format!("unexpected {what}"))
}
