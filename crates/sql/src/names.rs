//! Identifiers as PostgreSQL reads them: unquoted names fold to lower
//! case, quoted ones are kept; `schema.name` names a relation of a schema
//! (`schemas.rs`: the catalog name `schema.name`, `public`'s bare), and
//! `pg_catalog.name` a function or a system relation (`system.rs`).

use crate::error::SqlError;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

/// The name an identifier denotes.
pub fn ident(id: &Ident) -> String {
    match id.quote_style {
        Some(_) => id.value.clone(),
        None => id.value.to_lowercase(),
    }
}

/// A name written as a token word, folded as [`ident`] folds one: as
/// written when quoted, else lower case.
pub fn word(w: &sqlparser::tokenizer::Word) -> String {
    match w.quote_style {
        Some(_) => w.value.clone(),
        None => w.value.to_lowercase(),
    }
}

/// `name` as an identifier to write back into SQL text: plain when
/// reading it back gives `name` again (lower case, no special
/// characters, not a keyword PostgreSQL reads as more than a name:
/// `keywords.rs`), else quoted, as PostgreSQL's `quote_ident`.
pub fn written(name: &str) -> Ident {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !crate::keywords::needs_quotes(name);
    match plain {
        true => Ident::new(name),
        false => Ident::with_quote('"', name),
    }
}

/// A stored relation name (`schema.name`, bare in `public`) written as
/// SQL, each part quoted if it needs it (`s."Mixed_id_seq"`): with its
/// schema when `qualified` or stored with one.
pub fn stored_written(stored: &str, qualified: bool) -> String {
    let (schema, bare) = folio_catalog::split_schema(stored);
    match qualified || stored.contains('.') {
        true => format!("{}.{}", written(schema), written(bare)),
        false => written(bare).to_string(),
    }
}

/// The relation an object name denotes (`name` or `public.name`).
pub fn relation(name: &ObjectName) -> Result<String, SqlError> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(id) => Ok(ident(id)),
            other => Err(SqlError::unsupported(format!("the name {other}"))),
        })
        .collect::<Result<_, _>>()?;
    match parts.as_slice() {
        // (A catalog name of a temporary relation is written qualified.)
        [name] if folio_catalog::split_temp_name(name).is_some() => Err(SqlError::new(
            "42602",
            format!("invalid name syntax: \"{name}\""),
        )),
        // (A catalog name with a `.` is a schema's relation's.)
        [name] if name.contains('.') => Err(SqlError::unsupported(format!(
            "the relation name \"{name}\" (with a \".\")"
        ))),
        [name] => Ok(name.clone()),
        [schema, _] if schema == "pg_catalog" || schema == "information_schema" => Err(
            SqlError::new("3F000", format!("schema \"{schema}\" does not exist")),
        ),
        // A relation of a schema (`schemas.rs`; `public`'s is bare), a
        // temporary one's too (`temp_tables.rs`).
        [schema, name] => Ok(folio_catalog::qualified_name(schema, name)),
        _ => Err(SqlError::unsupported(format!("the name {name}"))),
    }
}

/// The parts of an object name, each folded as an identifier (`None` if
/// a part is not an identifier).
pub fn parts(name: &ObjectName) -> Option<Vec<String>> {
    name.0.iter().map(|p| p.as_ident().map(ident)).collect()
}

/// A built-in object's name, written `name` or `pg_catalog.name` (where
/// PostgreSQL's functions, types and collations live); `None` for any
/// other name.
pub fn builtin(name: &ObjectName) -> Option<String> {
    match parts(name)?.as_slice() {
        [name] => Some(name.clone()),
        [schema, name] if schema == "pg_catalog" => Some(name.clone()),
        _ => None,
    }
}

/// The function an object name calls: [`builtin`], or any other
/// qualified name as written (no function has it).
pub fn function(name: &ObjectName) -> String {
    builtin(name).unwrap_or_else(|| name.to_string())
}

/// The value a table of `(name, value)` pairs gives `name` (the one rule
/// of the functions' name tables).
pub fn lookup<T: Copy>(table: &[(&'static str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The first name a table of `(name, value)` pairs gives `value`.
pub fn name_in<T: PartialEq>(table: &[(&'static str, T)], value: &T) -> Option<&'static str> {
    table.iter().find(|(_, v)| v == value).map(|(n, _)| *n)
}

/// The rest of a quoted identifier written in text (a setting's value,
/// a `regclass` string), its opening quote taken: the name, `""` read as
/// one quote, up to and without the closing quote; `None` if the text
/// ends first.
pub fn quoted_rest(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<String> {
    let mut name = String::new();
    loop {
        match chars.next()? {
            '"' if chars.peek() == Some(&'"') => {
                chars.next();
                name.push('"');
            }
            '"' => return Some(name),
            c => name.push(c),
        }
    }
}

/// PostgreSQL's longest identifier in bytes (`NAMEDATALEN - 1`).
pub const MAX_IDENTIFIER_BYTES: usize = 63;

/// Cuts every identifier among `tokens` longer than
/// [`MAX_IDENTIFIER_BYTES`] to that length (at a character boundary), as
/// PostgreSQL's lexer does, so two names alike in their first 63 bytes
/// are one name. (PostgreSQL's NOTICE 42622 saying so is not given.)
pub fn truncate_identifiers(tokens: &mut [sqlparser::tokenizer::TokenWithSpan]) {
    for t in tokens {
        if let sqlparser::tokenizer::Token::Word(w) = &mut t.token
            && w.value.len() > MAX_IDENTIFIER_BYTES
        {
            let mut end = MAX_IDENTIFIER_BYTES;
            while !w.value.is_char_boundary(end) {
                end -= 1;
            }
            w.value.truncate(end);
        }
    }
}
