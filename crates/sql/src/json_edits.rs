//! Changing a jsonb document at a path, as PostgreSQL 15's `setPath`
//! does for `jsonb_set`, `jsonb_set_lax`, `jsonb_insert` and a jsonb
//! subscript assignment (`SET j['a'][0] = ...`), and deleting at one
//! (`#-`, `jsonb_delete_path`). One walk ([`set_path`]) serves every
//! edit; an [`Edit`] says what it does where the path ends:
//!
//! - **set** (`jsonb_set`): the value there is replaced; a missing last
//!   key is added and a missing last index appends (past the end) or
//!   prepends (before the start) when `create`; a missing step before the
//!   last leaves the document as it is;
//! - **insert** (`jsonb_insert`): the new value goes before (or `after`)
//!   the element there; an existing key is 22023 `cannot replace existing
//!   key`;
//! - **assign** (subscripts): as set with `create`, but a missing step
//!   before the last makes the rest of the path (an object for a key, an
//!   array for an integer), an index past the end fills the gap with
//!   nulls, an index before the start is 22023, and a scalar on the path
//!   is 22023 (`The path assumes key is a composite object, but it is a
//!   scalar value.`).
//!
//! A path step is a key in an object and an integer (negative: from the
//! end) in an array, else 22P02; a NULL step is 22004.

use crate::error::SqlError;
use folio_row::Jsonb;

/// What an edit does at the end of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Set { create: bool },
    Insert { after: bool },
    Assign,
}

impl Edit {
    /// PostgreSQL's `JB_PATH_CREATE_OR_INSERT`.
    fn adds(self) -> bool {
        !matches!(self, Edit::Set { create: false })
    }

    /// PostgreSQL's `JB_PATH_FILL_GAPS` (with `CONSISTENT_POSITION`).
    fn fills(self) -> bool {
        self == Edit::Assign
    }
}

/// `jsonb_set(doc, path, new, create)`, `jsonb_insert(doc, path, new,
/// after)`: 22023 for a scalar document; an empty path changes nothing.
pub fn edit(
    doc: Jsonb,
    path: &[Option<String>],
    new: Jsonb,
    edit: Edit,
) -> Result<Jsonb, SqlError> {
    if !matches!(doc, Jsonb::Array(_) | Jsonb::Object(_)) && edit != Edit::Assign {
        return Err(SqlError::new("22023", "cannot set path in scalar"));
    }
    if path.is_empty() {
        return Ok(doc);
    }
    set_path(doc, path, 0, new, edit)
}

/// `doc` with `new` at `path[level..]` (the module comment's rules).
fn set_path(
    doc: Jsonb,
    path: &[Option<String>],
    level: usize,
    new: Jsonb,
    edit: Edit,
) -> Result<Jsonb, SqlError> {
    let step = step(path, level)?;
    let last = level + 1 == path.len();
    match doc {
        Jsonb::Object(mut members) => {
            match members.iter().position(|(k, _)| k == step) {
                Some(i) if last => {
                    if matches!(edit, Edit::Insert { .. }) {
                        return Err(SqlError::new("22023", "cannot replace existing key")
                            .with_hint("Try using the function jsonb_set to replace key value."));
                    }
                    members[i].1 = new;
                }
                Some(i) => {
                    let v = std::mem::replace(&mut members[i].1, Jsonb::Null);
                    members[i].1 = set_path(v, path, level + 1, new, edit)?;
                }
                None if last && edit.adds() => members.push((step.to_string(), new)),
                None if !last && edit.fills() => {
                    members.push((step.to_string(), made_path(path, level + 1, new)));
                }
                None => {}
            }
            Ok(Jsonb::object(members))
        }
        Jsonb::Array(items) => set_in_array(items, path, level, new, edit).map(Jsonb::Array),
        scalar if edit.fills() => {
            let _ = scalar;
            Err(
                SqlError::new("22023", "cannot replace existing key").with_detail(
                    "The path assumes key is a composite object, but it is a scalar value.",
                ),
            )
        }
        scalar => Ok(scalar),
    }
}

/// PostgreSQL's `setPathArray`.
fn set_in_array(
    items: Vec<Jsonb>,
    path: &[Option<String>],
    level: usize,
    new: Jsonb,
    edit: Edit,
) -> Result<Vec<Jsonb>, SqlError> {
    let step = step(path, level)?;
    let last = level + 1 == path.len();
    let len = items.len() as i64;
    let mut index = integer_step(step).ok_or_else(|| {
        SqlError::new(
            "22P02",
            format!(
                "path element at position {} is not an integer: \"{step}\"",
                level + 1
            ),
        )
    })?;
    // `None`: before the start.
    let mut at = Some(index);
    if index < 0 {
        if -index > len {
            if edit.fills() {
                return Err(SqlError::new(
                    "22023",
                    format!(
                        "path element at position {} is out of range: {index}",
                        level + 1
                    ),
                ));
            }
            at = None;
        } else {
            index += len;
            at = Some(index);
        }
    }
    if !edit.fills() {
        at = at.map(|i| i.min(len));
    }
    let mut out = Vec::with_capacity(items.len() + 1);
    let mut new = Some(new);
    if (at.is_none() || len == 0) && last && edit.adds() {
        if let Some(gap) = at.filter(|i| edit.fills() && len == 0 && *i > 0) {
            out.extend(std::iter::repeat_n(Jsonb::Null, gap as usize));
        }
        out.extend(new.take());
    }
    let mut done = new.is_none();
    for (i, item) in items.into_iter().enumerate() {
        if at != Some(i as i64) {
            out.push(item);
            continue;
        }
        done = true;
        let Some(value) = new.take() else {
            out.push(item);
            continue;
        };
        if !last {
            out.push(set_path(item, path, level + 1, value, edit)?);
            continue;
        }
        match edit {
            Edit::Insert { after: false } => out.extend([value, item]),
            Edit::Insert { after: true } => out.extend([item, value]),
            Edit::Set { .. } | Edit::Assign => out.push(value),
        }
    }
    let at = at.unwrap_or(i64::MIN);
    if let Some(value) = new.take().filter(|_| !done) {
        if last && edit.adds() {
            if edit.fills() && at > len {
                out.extend(std::iter::repeat_n(Jsonb::Null, (at - len) as usize));
            }
            out.push(value);
        } else if !last && edit.fills() {
            if at > 0 {
                out.extend(std::iter::repeat_n(Jsonb::Null, (at - len).max(0) as usize));
            }
            out.push(made_path(path, level + 1, value));
        }
    }
    Ok(out)
}

/// The value a missing rest of the path `path[from..]` makes (PostgreSQL's
/// `push_path`): an array for an integer step (nulls before its index),
/// an object for a key, `new` at the end.
fn made_path(path: &[Option<String>], from: usize, new: Jsonb) -> Jsonb {
    let Some(Some(step)) = path.get(from) else {
        return new;
    };
    let inner = made_path(path, from + 1, new);
    match integer_step(step) {
        Some(index) => {
            let mut items = vec![Jsonb::Null; index.max(0) as usize];
            items.push(inner);
            Jsonb::Array(items)
        }
        None => Jsonb::Object(vec![(step.clone(), inner)]),
    }
}

/// The step at `level`, 22004 if NULL.
fn step(path: &[Option<String>], level: usize) -> Result<&str, SqlError> {
    path[level].as_deref().ok_or_else(|| {
        SqlError::new(
            "22004",
            format!("path element at position {} is null", level + 1),
        )
    })
}

/// A step as an array index, as PostgreSQL's `strtoint` reads it (blanks
/// before it, a sign, digits, nothing after; within an int).
pub fn integer_step(step: &str) -> Option<i64> {
    let s = step.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    s.parse::<i32>().ok().map(i64::from)
}

/// `doc #- path`: without the value at the path (unchanged if there is
/// none; an empty document is itself).
pub fn delete_path(doc: Jsonb, path: &[Option<String>]) -> Result<Jsonb, SqlError> {
    fn walk(doc: Jsonb, path: &[Option<String>], level: usize) -> Result<Jsonb, SqlError> {
        if level == path.len() {
            return Ok(doc);
        }
        let step = step(path, level)?;
        let last = level + 1 == path.len();
        Ok(match doc {
            Jsonb::Object(mut members) => {
                if let Some(i) = members.iter().position(|(k, _)| k == step) {
                    if last {
                        members.remove(i);
                    } else {
                        let v = std::mem::replace(&mut members[i].1, Jsonb::Null);
                        members[i].1 = walk(v, path, level + 1)?;
                    }
                }
                Jsonb::Object(members)
            }
            Jsonb::Array(mut items) => {
                let index = integer_step(step).ok_or_else(|| {
                    SqlError::new(
                        "22P02",
                        format!(
                            "path element at position {} is not an integer: \"{step}\"",
                            level + 1
                        ),
                    )
                })?;
                let len = items.len() as i64;
                let i = if index < 0 { len + index } else { index };
                if (0..len).contains(&i) {
                    let i = i as usize;
                    if last {
                        items.remove(i);
                    } else {
                        let v = std::mem::replace(&mut items[i], Jsonb::Null);
                        items[i] = walk(v, path, level + 1)?;
                    }
                }
                Jsonb::Array(items)
            }
            scalar => scalar,
        })
    }
    match &doc {
        Jsonb::Array(items) if items.is_empty() => return Ok(doc),
        Jsonb::Object(members) if members.is_empty() => return Ok(doc),
        Jsonb::Array(_) | Jsonb::Object(_) => {}
        _ => return Err(SqlError::new("22023", "cannot delete path in scalar")),
    }
    if path.is_empty() {
        return Ok(doc);
    }
    walk(doc, path, 0)
}

/// `jsonb_set_lax(doc, path, new, create, treatment)` of a NULL `new`:
/// what `treatment` says (`new` not NULL is `jsonb_set`).
pub fn set_lax(
    doc: Jsonb,
    path: &[Option<String>],
    create: bool,
    treatment: &str,
) -> Result<Jsonb, SqlError> {
    match treatment {
        "raise_exception" => Err(SqlError::new("22004", "JSON value must not be null")
            .with_detail("Exception was raised because null_value_treatment is \"raise_exception\".")
            .with_hint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")),
        "use_json_null" => edit(doc, path, Jsonb::Null, Edit::Set { create }),
        "delete_key" => delete_path(doc, path),
        "return_target" => Ok(doc),
        _ => Err(bad_treatment()),
    }
}

/// PostgreSQL's error for a `null_value_treatment` it does not know
/// (NULL too).
pub fn bad_treatment() -> SqlError {
    SqlError::new(
        "22023",
        "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"",
    )
}

/// The parameters of `jsonb_set`, `jsonb_insert` and `jsonb_set_lax`
/// (PostgreSQL's names), each with its default's SQL text.
/// A parameter's name and its default's SQL text.
type Parameter = (&'static str, Option<&'static str>);

const PARAMETERS: [(&str, &[Parameter]); 3] = [
    (
        "jsonb_set",
        &[
            ("jsonb_in", None),
            ("path", None),
            ("replacement", None),
            ("create_if_missing", Some("true")),
        ],
    ),
    (
        "jsonb_insert",
        &[
            ("jsonb_in", None),
            ("path", None),
            ("replacement", None),
            ("insert_after", Some("false")),
        ],
    ),
    (
        "jsonb_set_lax",
        &[
            ("jsonb_in", None),
            ("path", None),
            ("replacement", None),
            ("create_if_missing", Some("true")),
            ("null_value_treatment", Some("'use_json_null'")),
        ],
    ),
];

/// A call of one of these functions with `name => value` arguments: the
/// arguments in their places, a default in a gap before the last given
/// (`None`: no such function, or no named argument).
pub fn arguments(
    name: &str,
    args: &[sqlparser::ast::FunctionArg],
) -> Option<Result<Vec<sqlparser::ast::Expr>, SqlError>> {
    let (_, params) = PARAMETERS.iter().find(|(n, _)| *n == name)?;
    if !crate::named_arguments::any_named(args) {
        return None;
    }
    let no_such = || {
        let list: Vec<String> = args.iter().map(ToString::to_string).collect();
        crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            list.join(", ")
        ))
    };
    let names: Vec<&str> = params.iter().map(|(p, _)| *p).collect();
    let Some(slots) = crate::named_arguments::slots(&names, args) else {
        return Some(Err(no_such()));
    };
    let given = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    Some(
        (slots.into_iter().zip(params.iter()))
            .take(given)
            .map(|(slot, (_, default))| match (slot, default) {
                (Some(e), _) => Ok(e.clone()),
                (None, Some(text)) => crate::parse::expression(text),
                (None, None) => Err(no_such()),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(text: &str) -> Jsonb {
        Jsonb::parse(text).expect("valid json")
    }

    fn p(steps: &[&str]) -> Vec<Option<String>> {
        steps.iter().map(|s| Some(s.to_string())).collect()
    }

    /// Proves the assign edit makes missing paths and fills gaps as
    /// PostgreSQL's subscript assignment does.
    #[test]
    fn assign_fills_gaps_and_makes_paths() {
        let out = edit(j("{}"), &p(&["a", "0", "b"]), j("1"), Edit::Assign).unwrap();
        assert_eq!(out.to_text(), r#"{"a": [{"b": 1}]}"#);
        let out = edit(j("[0]"), &p(&["3"]), j("1"), Edit::Assign).unwrap();
        assert_eq!(out.to_text(), "[0, null, null, 1]");
        assert!(edit(j("[0]"), &p(&["-3"]), j("1"), Edit::Assign).is_err());
    }

    /// Proves jsonb_insert puts the value before or after the element.
    #[test]
    fn insert_before_and_after() {
        let doc = j(r#"{"a": [0, 1, 2]}"#);
        let before = edit(
            doc.clone(),
            &p(&["a", "1"]),
            j("9"),
            Edit::Insert { after: false },
        );
        assert_eq!(before.unwrap().to_text(), r#"{"a": [0, 9, 1, 2]}"#);
        let after = edit(doc, &p(&["a", "-1"]), j("9"), Edit::Insert { after: true });
        assert_eq!(after.unwrap().to_text(), r#"{"a": [0, 1, 2, 9]}"#);
    }
}
