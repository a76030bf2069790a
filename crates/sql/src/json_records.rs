//! The json functions that return rows of the caller's shape, FROM items
//! with a column definition list (`table_functions.rs`):
//! `json_to_record` / `jsonb_to_record` (one row, from an object) and
//! `json_to_recordset` / `jsonb_to_recordset` (a row per object of an
//! array), with PostgreSQL 15's errors for a document of another kind.
//!
//! A column takes the member of its name (the last one, in a json object
//! that repeats it), NULL if there is none, by PostgreSQL's rules
//! (`populate_record_field`):
//!
//! - json `null` is NULL;
//! - a json or jsonb column takes the member as json: its text as written
//!   (jsonb: in jsonb's form);
//! - an array column takes a json array's elements, each by these rules,
//!   or a string's text as an array literal; another member is 22P02
//!   `expected JSON array`;
//! - any other column takes a string's text, or another member's json
//!   text, by its type's input syntax, checked as an assignment is (a
//!   too long `varchar(n)` is 22001, not cut).

use crate::error::SqlError;
use folio_row::{JsonNode, JsonNodeKind, Jsonb, SqlType, Value, parse_json};

/// A json function returning records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordFunc {
    pub jsonb: bool,
    /// A row per element of an array (`_recordset`), else one row.
    pub set: bool,
}

const NAMES: [(&str, RecordFunc); 4] = [
    (
        "json_to_record",
        RecordFunc {
            jsonb: false,
            set: false,
        },
    ),
    (
        "jsonb_to_record",
        RecordFunc {
            jsonb: true,
            set: false,
        },
    ),
    (
        "json_to_recordset",
        RecordFunc {
            jsonb: false,
            set: true,
        },
    ),
    (
        "jsonb_to_recordset",
        RecordFunc {
            jsonb: true,
            set: true,
        },
    ),
];

/// A member of the document, whichever its type.
#[derive(Clone, Copy)]
enum Member<'a> {
    /// A json node and the document's text it spans.
    Json(&'a JsonNode<'a>, &'a str),
    Jsonb(&'a Jsonb),
}

impl<'a> Member<'a> {
    fn is_null(self) -> bool {
        matches!(
            self,
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Null,
                    ..
                },
                _
            ) | Member::Jsonb(Jsonb::Null)
        )
    }

    /// Its json text: as written, or in jsonb's form.
    fn text(self) -> String {
        match self {
            Member::Json(node, text) => text[node.start..node.end].to_string(),
            Member::Jsonb(j) => j.to_text(),
        }
    }

    /// A string's value (None for another kind of member).
    fn string(self) -> Result<Option<String>, SqlError> {
        Ok(match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::String(s),
                    ..
                },
                _,
            ) => Some(s.clone()?),
            Member::Jsonb(Jsonb::String(s)) => Some(s.clone()),
            _ => None,
        })
    }

    /// An array's elements (None for another kind of member).
    fn elements(self) -> Option<Vec<Member<'a>>> {
        match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Array(items),
                    ..
                },
                text,
            ) => Some(items.iter().map(|i| Member::Json(i, text)).collect()),
            Member::Jsonb(Jsonb::Array(items)) => Some(items.iter().map(Member::Jsonb).collect()),
            _ => None,
        }
    }

    /// An object's member named `key`, the last if the object repeats it
    /// (None if it has none; an error for another kind of member).
    fn member(self, key: &str) -> Result<Option<Member<'a>>, SqlError> {
        Ok(match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Object(members),
                    ..
                },
                text,
            ) => {
                let mut found = None;
                for (k, v) in members {
                    if k.as_ref().map_err(|e| SqlError::from(e.clone()))? == key {
                        found = Some(Member::Json(v, text));
                    }
                }
                found
            }
            Member::Jsonb(j) => j.get(key).map(Member::Jsonb),
            _ => None,
        })
    }

    /// `an array`, `an object` or `a scalar`, as messages name it.
    fn kind(self) -> &'static str {
        match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Array(_),
                    ..
                },
                _,
            )
            | Member::Jsonb(Jsonb::Array(_)) => "an array",
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Object(_),
                    ..
                },
                _,
            )
            | Member::Jsonb(Jsonb::Object(_)) => "an object",
            _ => "a scalar",
        }
    }
}

impl RecordFunc {
    pub fn of(name: &str) -> Option<RecordFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> &'static str {
        crate::names::name_in(&NAMES, &self).expect("every form is named")
    }

    /// The document's type.
    pub fn doc_type(self) -> SqlType {
        if self.jsonb {
            SqlType::Jsonb
        } else {
            SqlType::Json
        }
    }

    /// The rows of `doc` (a json or jsonb value, or NULL: no rows from a
    /// `_recordset`, one row of NULLs from a `_to_record`, as
    /// PostgreSQL's) with `columns`.
    pub fn rows(
        self,
        doc: &Value,
        columns: &[(String, SqlType)],
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let parsed;
        let member = match doc {
            Value::Null if self.set => return Ok(Vec::new()),
            Value::Null => return Ok(vec![vec![Value::Null; columns.len()]]),
            Value::Jsonb(j) => Member::Jsonb(j),
            Value::Json(text) => {
                parsed = parse_json(text)?;
                Member::Json(&parsed, text)
            }
            other => {
                return Err(SqlError::new(
                    "XX000",
                    format!(
                        "unexpected {} argument of {}",
                        other.type_name(),
                        self.name()
                    ),
                ));
            }
        };
        let error = |message: String| SqlError::new("22023", message);
        if !self.set {
            return match member.kind() {
                "an object" => Ok(vec![row(member, columns)?]),
                kind => Err(error(format!("cannot call populate_composite on {kind}"))),
            };
        }
        let Some(items) = member.elements() else {
            return match (self.jsonb, member.kind()) {
                (true, _) => Err(error(format!("cannot call {} on a non-array", self.name()))),
                (false, kind) => Err(error(format!("cannot call {} on {kind}", self.name()))),
            };
        };
        items
            .into_iter()
            .map(|item| match item.kind() {
                "an object" => row(item, columns),
                _ => Err(error(format!(
                    "argument of {} must be an array of objects",
                    self.name()
                ))),
            })
            .collect()
    }
}

/// The row `object` gives `columns`.
fn row(object: Member<'_>, columns: &[(String, SqlType)]) -> Result<Vec<Value>, SqlError> {
    columns
        .iter()
        .map(|(name, ty)| match object.member(name)? {
            Some(m) => field(m, *ty, name),
            None => Ok(Value::Null),
        })
        .collect()
}

/// `member` as a value of `ty`, the value of key `key` (module comment).
fn field(member: Member<'_>, ty: SqlType, key: &str) -> Result<Value, SqlError> {
    if member.is_null() {
        return Ok(Value::Null);
    }
    let input = |text: String| crate::types::coerce(Value::Text(text), ty);
    match ty {
        SqlType::Json | SqlType::Jsonb => input(member.text()),
        SqlType::Array(element) => {
            if let Some(items) = member.elements() {
                if items.first().is_some_and(|i| i.elements().is_some()) {
                    return Err(SqlError::unsupported(
                        "multidimensional arrays (folio's arrays have one dimension)",
                    ));
                }
                let values = items
                    .into_iter()
                    .map(|item| field(item, *element, key))
                    .collect::<Result<Vec<Value>, SqlError>>()?;
                return Ok(Value::Array(values));
            }
            match member.string()? {
                Some(literal) => input(literal),
                None => Err(SqlError::new("22P02", "expected JSON array")
                    .with_hint(format!("See the value of key \"{key}\"."))),
            }
        }
        _ => input(match member.string()? {
            Some(s) => s,
            None => member.text(),
        }),
    }
}
