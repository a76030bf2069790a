//! `has_column_privilege` and `has_sequence_privilege`: PostgreSQL's
//! questions about a role's privileges on a column and on a sequence,
//! answered by the ACLs `privileges.rs` keeps (`privileges::holds_any`,
//! `holds_any_on_column`, the one decision the checks use too).

use crate::error::SqlError;
use crate::lookups::Lookups;
use crate::privileges::{self, Bits, ObjectKind};

/// A column as `has_column_privilege` names it.
pub enum ColumnArg<'a> {
    Name(&'a str),
    /// `attnum` (1 for the first column).
    Number(i64),
}

/// The privileges `privileges` (comma-separated words, each may add
/// `WITH GRANT OPTION`) among `known`, 22023 for another.
fn wanted(privileges: &str, known: &[(&str, Bits)]) -> Result<Vec<(Bits, bool)>, SqlError> {
    privileges::privilege_words(privileges)
        .map(|(given, word, grant)| {
            (known.iter())
                .find(|(name, _)| *name == word)
                .map(|&(_, bit)| (bit, grant))
                .ok_or_else(|| {
                    SqlError::new("22023", format!("unrecognized privilege type: \"{given}\""))
                })
        })
        .collect()
}

/// The role a `has_*_privilege` call names, in the running statement's
/// database (`None`: no database in scope, everything is held).
fn role_of(
    role: &str,
) -> Result<Option<(std::sync::Arc<folio_db::Database>, crate::roles::Role)>, SqlError> {
    let Some(db) = crate::roles::scoped_database() else {
        return Ok(None);
    };
    let role = crate::roles::get(&db, role)?.ok_or_else(|| crate::roles::undefined(role))?;
    Ok(Some((db, role)))
}

/// `has_column_privilege([role,] table, column, privileges)`: whether
/// `role` holds any of `privileges` (`SELECT`, `INSERT`, `UPDATE`,
/// `REFERENCES`) on the table or on the column; NULL for a table oid
/// that is no relation and a column number that is no column; 42703 for
/// a column name that is not there.
pub fn has_column_privilege(
    lookups: &Lookups,
    role: &str,
    table: i64,
    column: ColumnArg<'_>,
    privileges: &str,
) -> Result<Option<bool>, SqlError> {
    let Some(name) = lookups.catalog_name(table) else {
        return Ok(None);
    };
    // The column's position among the relation's columns.
    let names: Vec<String> = match (lookups.table(table), system_relation(table)) {
        (Some(def), _) => def.columns.iter().map(|c| c.name.clone()).collect(),
        (None, Some(system)) => system
            .columns()
            .iter()
            .map(|(n, _)| n.to_string())
            .collect(),
        (None, None) => Vec::new(),
    };
    let position = match column {
        ColumnArg::Name(column) => match names.iter().position(|n| n == column) {
            Some(at) => at,
            None if names.is_empty() => 0,
            None => {
                return Err(SqlError::new(
                    "42703",
                    format!(
                        "column \"{column}\" of relation \"{}\" does not exist",
                        folio_catalog::unqualified(&name)
                    ),
                ));
            }
        },
        // (A table's `attnum` - 1 is its column's slot, which a DROP
        // COLUMN does not move: a dropped one's is no column's.)
        ColumnArg::Number(n) => {
            let at = match lookups.table(table) {
                Some(def) => (0..names.len()).find(|&p| i64::from(def.layout.slot(p)) == n - 1),
                None => usize::try_from(n - 1).ok().filter(|&at| at < names.len()),
            };
            match at {
                Some(at) => at,
                None => return Ok(None),
            }
        }
    };
    let wanted = wanted(
        privileges,
        &[
            ("SELECT", privileges::SELECT),
            ("INSERT", privileges::INSERT),
            ("UPDATE", privileges::UPDATE),
            ("REFERENCES", privileges::REFERENCES),
        ],
    )?;
    let Some((db, role)) = role_of(role)? else {
        return Ok(Some(true));
    };
    let slot = match lookups.table(table) {
        Some(def) => def.layout.slot(position),
        None => position as u16,
    };
    privileges::holds_any_on_column(&db, &role, table as u64, slot, &wanted).map(Some)
}

/// The system relation of oid `oid`, if it is one.
fn system_relation(oid: i64) -> Option<crate::system::SystemRelation> {
    crate::system::SystemRelation::all().find(|r| r.oid() == oid)
}

/// `has_sequence_privilege([role,] sequence, privileges)`: whether
/// `role` holds any of `privileges` (`USAGE`, `SELECT`, `UPDATE`) on the
/// sequence; NULL for an oid that is no relation, 42809 for a relation
/// that is no sequence.
pub fn has_sequence_privilege(
    lookups: &Lookups,
    role: &str,
    sequence: i64,
    privileges: &str,
) -> Result<Option<bool>, SqlError> {
    let Some(name) = lookups.catalog_name(sequence) else {
        return Ok(None);
    };
    if lookups.sequence(sequence).is_none() {
        return Err(SqlError::new(
            "42809",
            format!(
                "\"{}\" is not a sequence",
                folio_catalog::unqualified(&name)
            ),
        ));
    }
    let wanted = wanted(
        privileges,
        &[
            ("USAGE", privileges::USAGE),
            ("SELECT", privileges::SELECT),
            ("UPDATE", privileges::UPDATE),
        ],
    )?;
    let Some((db, role)) = role_of(role)? else {
        return Ok(Some(true));
    };
    privileges::holds_any(&db, &role, (sequence as u64, ObjectKind::Sequence), &wanted).map(Some)
}
