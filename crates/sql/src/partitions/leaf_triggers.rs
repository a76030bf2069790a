//! The row triggers a row written through a partitioned table fires: its
//! leaf partition's (README "Row triggers of partitioned tables"). An
//! INSERT into a partitioned table, and the insert of a row an UPDATE
//! of it moved to another partition, route each row to its leaf first
//! and fire that partition's BEFORE and AFTER INSERT row triggers (the
//! partitioned table's clones and the partition's own, in name order,
//! `TG_TABLE_NAME` the partition), as PostgreSQL 15; the partitioned
//! table's statement triggers fire on it, once (`dml.rs`).

use crate::constraints::Constraints;
use crate::context::Ctx;
use crate::dml::RowRule;
use crate::error::SqlError;
use crate::scalar::Env;
use crate::triggers::{self, Event, Triggers};
use folio_db::Transaction;
use folio_row::Value;

/// The leaf partitions of a partitioned table that have INSERT row
/// triggers, bound for one statement.
pub struct Leaves<'a> {
    /// The partitioned table's constraints: where a row goes.
    constraints: &'a Constraints,
    /// Each leaf with INSERT row triggers: its oid and its triggers.
    triggers: Vec<(u64, Triggers)>,
}

impl<'a> Leaves<'a> {
    /// The INSERT row triggers of the leaves of the partitioned table
    /// `constraints` routes for; `None` when none has any (or it is not
    /// partitioned): a scan of the statement's trigger list per leaf.
    pub fn of(constraints: &'a Constraints) -> Result<Option<Leaves<'a>>, SqlError> {
        if triggers::in_scope().is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for (relation, _) in constraints.leaves() {
            if let Some(t) = Triggers::of_part(relation, Event::Insert, &[], true)? {
                out.push((relation.def.oid, t));
            }
        }
        Ok((!out.is_empty()).then_some(Leaves {
            constraints,
            triggers: out,
        }))
    }

    /// The leaves' triggers (for [`triggers::one_command`]).
    pub fn sets(&self) -> impl Iterator<Item = &Triggers> {
        self.triggers.iter().map(|(_, t)| t)
    }

    /// Inserts `row`, a row of the partitioned table (defaults and
    /// generated columns made), into the leaf it routes to, through that
    /// leaf's BEFORE ROW triggers (a clone's may not send it elsewhere:
    /// 0A000) and with its AFTER ROW triggers queued: the row written (in
    /// the partitioned table's column order), or `None` when a trigger
    /// skipped it.
    pub fn insert(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        row: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        let Some((relation, constraints, map)) = self.constraints.leaf(&row)? else {
            return Err(SqlError::new("XX000", "routing a row of a plain table"));
        };
        // (In the leaf's column order while there: `column_map.rs`.)
        let row = super::column_map::down(map.as_ref(), row);
        let oid = relation.def.oid;
        let triggers = (self.triggers.iter()).find_map(|(o, t)| (*o == oid).then_some(t));
        let rule = RowRule {
            cx,
            relation,
            constraints,
            triggers,
            merge: false,
        };
        let Some(row) = rule.before_insert(txn, row, env)? else {
            return Ok(None);
        };
        rule.insert_row(txn, row.clone(), env)?;
        Ok(Some(super::column_map::up(map.as_ref(), row)))
    }

    /// Runs the queued AFTER ROW triggers of every leaf (and of `more`,
    /// the statement's other sets) in the order the rows were written.
    pub fn after_rows(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        more: &[&Triggers],
    ) -> Result<(), SqlError> {
        let mut sets: Vec<&Triggers> = more.to_vec();
        sets.extend(self.sets());
        triggers::after_rows_in_order(cx, txn, &sets)
    }
}
