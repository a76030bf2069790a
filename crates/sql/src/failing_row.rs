//! The DETAIL `Failing row contains (...)` of a NOT NULL or CHECK
//! violation, as PostgreSQL's `ExecBuildSlotValueDescription` shows it
//! to a role that may not read the whole row: nothing when row-level
//! security applies to the table; the whole row when the role may
//! SELECT the table; else the columns it may SELECT or the statement
//! wrote, named: `(a, b) = (1, null)`, and nothing when there are none.
//! The error carries the row's values (`error::Subject::row`), and
//! [`redact`] rewrites the DETAIL when the plan that raised it ends, with
//! the plan's needs (the table it writes and the columns it wrote). A
//! partition's row is judged by the partitioned table the statement
//! names (PostgreSQL's root), its columns in the partition's order (not
//! the root's, as PostgreSQL's are).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::privileges::{self, INSERT, Need, ObjectKind, SELECT, UPDATE};
use crate::roles::SUPERUSER_OID;
use folio_db::Transaction;
use std::collections::BTreeSet;

/// `e` with its failing row's DETAIL as the session's role may see it.
pub fn redact(cx: &Ctx<'_>, txn: &Transaction, needs: &[Need], mut e: SqlError) -> SqlError {
    match shown(cx, txn, needs, &e) {
        Ok(Some(detail)) => e.detail = detail,
        Ok(None) => {}
        Err(other) => return other,
    }
    e
}

/// The DETAIL `e` should have (`None`: keep it).
fn shown(
    cx: &Ctx<'_>,
    txn: &Transaction,
    needs: &[Need],
    e: &SqlError,
) -> Result<Option<Option<String>>, SqlError> {
    if cx.role.oid == SUPERUSER_OID {
        return Ok(None);
    }
    let Some(subject) = &e.subject else {
        return Ok(None);
    };
    let Some(values) = &subject.row else {
        return Ok(None);
    };
    let catalog = cx.db.catalog();
    let Some(def) = catalog.table(txn, &subject.table)? else {
        return Ok(None);
    };
    // The table the statement writes: the row's, or the one whose part
    // it is.
    let writes = |n: &&Need| n.privilege & (INSERT | UPDATE) != 0 && n.kind == "table";
    let Some(target) = (needs.iter().filter(writes))
        .find(|n| n.relation == def.oid)
        .or_else(|| needs.iter().find(writes))
    else {
        return Ok(None);
    };
    let named = match target.relation == def.oid {
        true => def.clone(),
        false => match (catalog.tables(txn)?.into_iter()).find(|t| t.oid == target.relation) {
            Some(t) => t,
            None => return Ok(None),
        },
    };
    let security = crate::row_security::read(cx.db, named.oid)?;
    let owner = privileges::acl(cx.db, named.oid)?.owner;
    let owns = crate::memberships::has_privileges_of(cx.db, cx.role.oid, owner)?;
    if security.enabled && (security.forced || !owns) {
        return Ok(Some(None));
    }
    if privileges::allowed(cx.db, cx.role, named.oid, ObjectKind::Relation, SELECT)? {
        return Ok(None);
    }
    // The columns it wrote, by name.
    let mut written = BTreeSet::new();
    for need in needs.iter().filter(writes) {
        if need.relation != named.oid {
            continue;
        }
        for slot in need.columns.iter().flat_map(|c| c.columns()) {
            if let Some(at) = (0..named.columns.len()).find(|&p| named.layout.slot(p) == slot) {
                written.insert(named.columns[at].name.clone());
            }
        }
    }
    let mut names = Vec::new();
    let mut shown = Vec::new();
    for (column, value) in def.columns.iter().zip(values) {
        let Some(at) = named.column(&column.name) else {
            continue;
        };
        let readable = privileges::holds_any_on_column(
            cx.db,
            cx.role,
            named.oid,
            named.layout.slot(at),
            &[(SELECT, false)],
        )?;
        if readable || written.contains(&column.name) {
            names.push(column.name.as_str());
            shown.push(value.as_str());
        }
    }
    if names.is_empty() {
        return Ok(Some(None));
    }
    Ok(Some(Some(format!(
        "Failing row contains ({}) = ({}).",
        names.join(", "),
        shown.join(", ")
    ))))
}
