//! Named composite types (`CREATE TYPE complex AS (r float8, i float8)`):
//! a type's fields, and PostgreSQL's `record_in`, the text input of a
//! value of one.
//!
//! A value of a composite type is a `Value::Record` whose fields are
//! values of the type's field types (or NULL); its text output is the
//! anonymous record's (`record_text.rs`). `SqlType::Composite` carries one
//! version of the definition, interned for the process's life as enum
//! types are (`enums.rs`), so `SqlType` stays `Copy` and a stored row
//! decodes its fields with no catalog at hand (README "Composite types"
//! of folio-sql).

use crate::datetime_fields::DateOrder;
use crate::error::RowError;
use crate::time_zone::TimeZone;
use crate::types::SqlType;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// A composite type as one catalog version defines it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompositeType {
    /// Its `pg_type` oid.
    pub oid: u32,
    /// The oid of its array type (`_name`).
    pub array_oid: u32,
    pub name: String,
    /// Its fields' names and types, in order.
    pub fields: Vec<(String, SqlType)>,
}

/// Every definition interned so far, with its `SqlType` (an array
/// type's element is a `&'static SqlType`): `SqlType` is `Copy`, so it
/// carries a `&'static` definition; each distinct one is kept once for
/// the process's life.
type Interned = HashMap<&'static CompositeType, &'static SqlType>;
static INTERNED: Mutex<Option<Interned>> = Mutex::new(None);

impl CompositeType {
    /// The process's one copy of `def`.
    pub fn intern(def: CompositeType) -> &'static CompositeType {
        let mut map = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        if let Some((known, _)) = map.get_key_value(&def) {
            return known;
        }
        let leaked: &'static CompositeType = Box::leak(Box::new(def));
        map.insert(leaked, Box::leak(Box::new(SqlType::Composite(leaked))));
        leaked
    }

    /// The type `SqlType::Composite(self)`, as a `&'static` (an array's
    /// element type).
    pub fn sql_type(&'static self) -> &'static SqlType {
        let mut map = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        map.entry(self)
            .or_insert_with(|| Box::leak(Box::new(SqlType::Composite(self))))
    }

    /// The position of field `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }

    /// PostgreSQL's `record_in` of `text` as a value of this type: the
    /// fields between parentheses, separated by commas; a field that is
    /// empty (nothing between its commas) is NULL, `""` is the empty
    /// text; inside double quotes commas and parentheses are plain, `""`
    /// is a quote; a backslash takes the next character as it is; blanks
    /// are allowed before the `(` and after the `)` only (inside, they
    /// are the field's). Each field is read by its type's input. Errors:
    /// 22P02 `malformed record literal`, with PostgreSQL's DETAIL.
    pub fn record_in(
        &'static self,
        text: &str,
        zone: &TimeZone,
        order: DateOrder,
    ) -> Result<Value, RowError> {
        let fields = split_record(text)?;
        // Each field is read before the count is judged, as PostgreSQL
        // reads them in order.
        let values = (fields.iter().zip(&self.fields))
            .map(|(field, (_, ty))| match field {
                None => Ok(Value::Null),
                Some(s) => Value::from_text_in(*ty, s, zone, order),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if fields.len() < self.fields.len() {
            return Err(malformed(text, "Too few columns."));
        }
        if fields.len() > self.fields.len() {
            return Err(malformed(text, "Too many columns."));
        }
        Ok(Value::Record(values))
    }
}

/// PostgreSQL's 22P02 for record text.
fn malformed(text: &str, detail: &str) -> RowError {
    RowError::MalformedRecord {
        text: text.to_string(),
        detail: detail.to_string(),
    }
}

/// The fields of record text `text` (`None`: NULL), as `record_in`
/// splits them. (Whether the count is the type's is the caller's: a
/// text of too many fields is PostgreSQL's "Too many columns.", of too
/// few "Too few columns.".)
fn split_record(text: &str) -> Result<Vec<Option<String>>, RowError> {
    let rest = text.trim_start_matches(crate::array_text::is_space);
    let mut chars = rest.chars().peekable();
    if chars.next() != Some('(') {
        return Err(malformed(text, "Missing left parenthesis."));
    }
    let mut fields = Vec::new();
    // `()`: no fields (a type of none).
    if chars.peek() == Some(&')') {
        chars.next();
    } else {
        loop {
            if matches!(chars.peek(), Some(',' | ')')) {
                fields.push(None);
            } else {
                let mut field = String::new();
                let mut quoted = false;
                loop {
                    match chars.peek() {
                        Some(',' | ')') if !quoted => break,
                        _ => {}
                    }
                    match chars.next() {
                        None => return Err(malformed(text, "Unexpected end of input.")),
                        Some('\\') => match chars.next() {
                            None => return Err(malformed(text, "Unexpected end of input.")),
                            Some(c) => field.push(c),
                        },
                        Some('"') if !quoted => quoted = true,
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => quoted = false,
                        Some(c) => field.push(c),
                    }
                }
                fields.push(Some(field));
            }
            match chars.next() {
                Some(',') => continue,
                _ => break,
            }
        }
    }
    if !chars.all(crate::array_text::is_space) {
        return Err(malformed(text, "Junk after right parenthesis."));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fullname() -> &'static CompositeType {
        CompositeType::intern(CompositeType {
            oid: 16500,
            array_oid: 16499,
            name: "fullname".into(),
            fields: vec![
                ("first".into(), SqlType::Text),
                ("last".into(), SqlType::Text),
            ],
        })
    }

    fn read(text: &str) -> Result<Value, RowError> {
        fullname().record_in(text, &TimeZone::UTC, DateOrder::Mdy)
    }

    // Proves record_in against PostgreSQL 15's answers of rowtypes.sql's
    // literals: quoting, doubled quotes, backslashes, an empty field as
    // NULL, blanks outside the parentheses, and each malformed case's
    // DETAIL.
    #[test]
    fn record_text_as_postgresql_reads_it() {
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(
            read("(Joe,von Blow)").unwrap(),
            Value::Record(vec![t("Joe"), t("von Blow")])
        );
        assert_eq!(
            read(r#"(Joe,"von""Blow")"#).unwrap(),
            Value::Record(vec![t("Joe"), t("von\"Blow")])
        );
        assert_eq!(
            read(r"(Joe,d\\Blow)").unwrap(),
            Value::Record(vec![t("Joe"), t("d\\Blow")])
        );
        assert_eq!(
            read(r#"(Joe,"Blow,Jr")"#).unwrap(),
            Value::Record(vec![t("Joe"), t("Blow,Jr")])
        );
        assert_eq!(
            read("(Joe,)").unwrap(),
            Value::Record(vec![t("Joe"), Value::Null])
        );
        assert_eq!(
            read(r#"("",)"#).unwrap(),
            Value::Record(vec![t(""), Value::Null])
        );
        assert_eq!(
            read(" (Joe,Blow)  ").unwrap(),
            Value::Record(vec![t("Joe"), t("Blow")])
        );
        for (text, detail) in [
            ("(Joe)", "Too few columns."),
            ("(Joe,,)", "Too many columns."),
            ("[]", "Missing left parenthesis."),
            ("(Joe,Blow) /", "Junk after right parenthesis."),
            ("(Joe,\"Blow", "Unexpected end of input."),
            ("(Joe,Blow", "Unexpected end of input."),
        ] {
            let e = read(text).unwrap_err();
            assert_eq!(e.sqlstate(), "22P02", "{text}");
            assert_eq!(
                e.to_string(),
                format!("malformed record literal: \"{text}\"")
            );
            assert_eq!(e.detail().as_deref(), Some(detail), "{text}");
        }
    }
}
