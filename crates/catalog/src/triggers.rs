//! Row triggers (`CREATE TRIGGER`): a `folio.class` row of kind `g` (no
//! storage) per trigger, named `{table oid}\0trigger\0{name}`
//! (`relation_members.rs`: one trigger of a name per table). What a trigger does is the SQL layer's (folio-sql
//! `triggers.rs`); the catalog keeps its definition, read with the other
//! object lists once per statement (`object_lists.rs`).
//!
//! The row's tail after its (empty) columns:
//!
//! | field | size | meaning |
//! |---|---|---|
//! | table oid | 8 | the table it is on (`pg_trigger.tgrelid`) |
//! | function oid | 8 | the PL/pgSQL function it runs (`tgfoid`) |
//! | type | 2 | PostgreSQL's `tgtype` bits (row, before, insert, delete, update, ...) |
//! | enabled | 1 | `tgenabled`: `O` fires, `D` disabled, `A` always, `R` replica only |
//! | columns | 2 + n × str | `UPDATE OF` column names |
//! | arguments | 2 + n × str | `EXECUTE FUNCTION f('a', ...)`'s arguments (`tgargs`) |
//! | when | str | the `WHEN` condition's SQL text, empty for none |
//! | old table | str | `REFERENCING OLD TABLE AS` name, empty for none (absent in rows written before it) |
//! | new table | str | `REFERENCING NEW TABLE AS` name, likewise |
//! | parent | 8 | `tgparentid`: the partitioned table's trigger this one is a clone of, 0 for none (absent in rows written before it) |
//!
//! A trigger goes with its table (`drop_members_of`).
//!
//! A table's foreign keys are no triggers in folio, but PostgreSQL's are
//! (`RI_ConstraintTrigger_*`), and `ALTER TABLE t DISABLE TRIGGER ALL`
//! turns them off with the rest. That state is a row of this kind too,
//! named [`FOREIGN_KEY_TRIGGERS`] (a name no SQL identifier can spell:
//! it holds a NUL), kind 0 (it fires for no event), `enabled` `D`: present
//! while the table's foreign key checks and actions are off
//! ([`Catalog::set_foreign_key_triggers`]), so it is durable, undone by a
//! rollback and dropped with its table, as the triggers are.

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::defs::ClassRow;
use crate::error::CatalogError;
use crate::relation_members::{TRIGGERS, display};
use folio_heap::Tid;
use folio_txn::Transaction;

/// `tgtype` bit: a row trigger (else a statement trigger).
pub const TRIGGER_ROW: u16 = 1;
/// `tgtype` bit: BEFORE (else AFTER).
pub const TRIGGER_BEFORE: u16 = 2;
/// `tgtype` bit: fires on INSERT.
pub const TRIGGER_INSERT: u16 = 4;
/// `tgtype` bit: fires on DELETE.
pub const TRIGGER_DELETE: u16 = 8;
/// `tgtype` bit: fires on UPDATE.
pub const TRIGGER_UPDATE: u16 = 16;
/// `tgtype` bit: fires on TRUNCATE (statement triggers only).
pub const TRIGGER_TRUNCATE: u16 = 32;
/// `tgtype` bit: INSTEAD OF (a view's row trigger; neither BEFORE nor
/// AFTER).
pub const TRIGGER_INSTEAD: u16 = 64;

/// When a trigger fires (`tgenabled`, set by `ALTER TABLE ... ENABLE |
/// DISABLE TRIGGER`). Sessions run as PostgreSQL's default
/// `session_replication_role = origin`: `Origin` and `Always` fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerEnabled {
    /// `O`: fires (`ENABLE TRIGGER`, the default).
    Origin,
    /// `D`: never fires (`DISABLE TRIGGER`).
    Disabled,
    /// `R`: fires only in a replica session (`ENABLE REPLICA TRIGGER`).
    Replica,
    /// `A`: always fires (`ENABLE ALWAYS TRIGGER`).
    Always,
}

impl TriggerEnabled {
    /// `pg_trigger.tgenabled`'s letter (also the stored byte).
    pub fn letter(self) -> u8 {
        match self {
            TriggerEnabled::Origin => b'O',
            TriggerEnabled::Disabled => b'D',
            TriggerEnabled::Replica => b'R',
            TriggerEnabled::Always => b'A',
        }
    }

    fn of_letter(letter: u8) -> Option<TriggerEnabled> {
        [
            TriggerEnabled::Origin,
            TriggerEnabled::Disabled,
            TriggerEnabled::Replica,
            TriggerEnabled::Always,
        ]
        .into_iter()
        .find(|e| e.letter() == letter)
    }

    /// Whether the trigger fires in a session: one replaying changes
    /// (`session_replication_role = replica`) fires `REPLICA` and
    /// `ALWAYS` triggers, another (`origin`, `local`) `ORIGIN` and
    /// `ALWAYS` ones.
    pub fn fires(self, replica: bool) -> bool {
        match self {
            TriggerEnabled::Always => true,
            TriggerEnabled::Origin => !replica,
            TriggerEnabled::Replica => replica,
            TriggerEnabled::Disabled => false,
        }
    }
}

/// A trigger's definition (what `pg_trigger` shows of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerDef {
    pub oid: u64,
    /// The table's oid (`tgrelid`).
    pub table: u64,
    pub name: String,
    /// The function's oid (`tgfoid`).
    pub function: u64,
    /// PostgreSQL's `tgtype` bits (`TRIGGER_*`).
    pub kind: u16,
    /// When it fires (`tgenabled`).
    pub enabled: TriggerEnabled,
    /// `UPDATE OF` columns, by name.
    pub columns: Vec<String>,
    /// The arguments given to the function (`TG_ARGV`).
    pub args: Vec<String>,
    /// The `WHEN` condition's SQL text.
    pub when: Option<String>,
    /// Transition tables: `REFERENCING OLD TABLE AS` and `NEW TABLE AS`
    /// names (`tgoldtable`, `tgnewtable`).
    pub old_table: Option<String>,
    pub new_table: Option<String>,
    /// The trigger of the partitioned table this row trigger is a clone
    /// of (`tgparentid`; folio-sql `partitions/row_triggers.rs`), 0 for
    /// none.
    pub parent: u64,
}

/// The trigger name of the row that says a table's foreign key triggers
/// are disabled (see the module's comment).
pub const FOREIGN_KEY_TRIGGERS: &str = "\0foreign keys";

impl TriggerDef {
    /// Whether it is the row standing for the table's foreign key
    /// triggers ([`FOREIGN_KEY_TRIGGERS`]), not a trigger a user made:
    /// lists of triggers leave it out.
    pub fn is_internal(&self) -> bool {
        self.name == FOREIGN_KEY_TRIGGERS
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u64(self.table)
            .u64(self.function)
            .u16(self.kind)
            .u8(self.enabled.letter());
        w.u16(self.columns.len() as u16);
        for c in &self.columns {
            w.str(c);
        }
        w.u16(self.args.len() as u16);
        for a in &self.args {
            w.str(a);
        }
        w.str(self.when.as_deref().unwrap_or(""));
        w.str(self.old_table.as_deref().unwrap_or(""));
        w.str(self.new_table.as_deref().unwrap_or(""));
        w.u64(self.parent);
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<TriggerDef, String> {
        let table = r.u64()?;
        let function = r.u64()?;
        let kind = r.u16()?;
        let letter = r.u8()?;
        let enabled = TriggerEnabled::of_letter(letter)
            .ok_or_else(|| format!("trigger enabled byte {letter}"))?;
        let n = r.u16()?;
        let columns = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        let n = r.u16()?;
        let args = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        let when = r.str()?;
        // (Rows written before transition tables end here.)
        let mut transition = || match r.0.is_empty() {
            true => Ok(None),
            false => r.str().map(|t| (!t.is_empty()).then_some(t)),
        };
        let old_table = transition()?;
        let new_table = transition()?;
        // (Rows written before clones end here.)
        let parent = match r.0.is_empty() {
            true => 0,
            false => r.u64()?,
        };
        Ok(TriggerDef {
            oid: 0,
            table,
            name: String::new(),
            function,
            kind,
            enabled,
            columns,
            args,
            when: (!when.is_empty()).then_some(when),
            old_table,
            new_table,
            parent,
        })
    }
}

/// The triggers among class rows `classes`, by table oid then name (the
/// order they fire in).
pub(crate) fn triggers_among(classes: &[(Tid, ClassRow)]) -> Vec<TriggerDef> {
    TRIGGERS.among(classes, |class, name| {
        Some(TriggerDef {
            oid: class.oid,
            name: name.to_string(),
            ..class.trigger.clone()?
        })
    })
}

impl Catalog {
    /// `CREATE [OR REPLACE] TRIGGER`: `def` (its oid chosen here) stored;
    /// one of the same name on the table is 42710 unless `replace`, when
    /// it takes the new definition and keeps its oid.
    pub fn create_trigger(
        &self,
        txn: &mut Transaction,
        def: &TriggerDef,
        table_name: &str,
        replace: bool,
    ) -> Result<TriggerDef, CatalogError> {
        let exists =
            || CatalogError::TriggerExists(def.name.clone(), display(table_name).to_string());
        // A clone is replaced only with its parent (PostgreSQL's 42710
        // otherwise); a clone being made (`def.parent` set: OR REPLACE
        // on a partitioned table, reaching its partitions) replaces any
        // trigger of the name, the partition's own too.
        let replaceable = |class: &ClassRow| match class.trigger.as_ref().map_or(0, |t| t.parent) {
            parent if parent == def.parent || def.parent != 0 => Ok(()),
            _ => Err(CatalogError::TriggerIsClone(
                def.name.clone(),
                display(table_name).to_string(),
            )),
        };
        let oid = self.put_member(
            txn,
            &TRIGGERS,
            def.table,
            &def.name,
            replace,
            exists,
            replaceable,
            |class| ClassRow {
                trigger: Some(def.clone()),
                ..class
            },
        )?;
        Ok(TriggerDef { oid, ..def.clone() })
    }

    /// `DROP TRIGGER name ON table`: 42704 if the table (oid `table`,
    /// shown as `table_name`) has none of that name.
    pub fn drop_trigger(
        &self,
        txn: &mut Transaction,
        table: u64,
        table_name: &str,
        name: &str,
    ) -> Result<(), CatalogError> {
        let missing =
            || CatalogError::NoSuchTrigger(name.to_string(), display(table_name).to_string());
        self.drop_member(txn, &TRIGGERS, table, name, missing)
    }

    /// `ALTER TRIGGER name ON table RENAME TO new`: 42704 if the table
    /// (oid `table`, shown as `table_name`) has no trigger `name`, then
    /// 42710 if it has one called `new` (PostgreSQL's order).
    pub fn rename_trigger(
        &self,
        txn: &mut Transaction,
        table: u64,
        table_name: &str,
        name: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        let missing =
            || CatalogError::NoSuchTrigger(name.to_string(), display(table_name).to_string());
        let taken =
            || CatalogError::TriggerExists(new.to_string(), display(table_name).to_string());
        self.rename_member(txn, &TRIGGERS, table, (name, new), missing, taken)
    }

    /// `ALTER TABLE ... ENABLE [ALWAYS | REPLICA] | DISABLE TRIGGER
    /// name`: sets when it fires; 42704 if there is none of that name.
    pub fn enable_trigger(
        &self,
        txn: &mut Transaction,
        table: u64,
        table_name: &str,
        name: &str,
        enabled: TriggerEnabled,
    ) -> Result<(), CatalogError> {
        let missing =
            || CatalogError::NoSuchTrigger(name.to_string(), display(table_name).to_string());
        let (tid, class) = self.locked_member(txn, &TRIGGERS, table, name, missing)?;
        let Some(def) = &class.trigger else {
            return Err(missing());
        };
        let row = ClassRow {
            trigger: Some(TriggerDef {
                enabled,
                ..def.clone()
            }),
            ..class.clone()
        };
        self.update_class(txn, tid, &row)
    }

    /// `ALTER TABLE ... ENABLE | DISABLE TRIGGER ALL`'s part for table
    /// `table`'s foreign keys: their checks (of its rows) and actions (on
    /// rows referencing it) off (`enabled` false) or on again, as the
    /// [`FOREIGN_KEY_TRIGGERS`] row present or not.
    pub fn set_foreign_key_triggers(
        &self,
        txn: &mut Transaction,
        table: u64,
        enabled: bool,
    ) -> Result<(), CatalogError> {
        let row = TRIGGERS.row_name(table, FOREIGN_KEY_TRIGGERS);
        let gone =
            || CatalogError::NoSuchTrigger(FOREIGN_KEY_TRIGGERS.to_string(), table.to_string());
        match (self.class(txn, &row)?, enabled) {
            (Some(_), true) => self.drop_member(txn, &TRIGGERS, table, FOREIGN_KEY_TRIGGERS, gone),
            (None, false) => {
                let def = TriggerDef {
                    oid: 0,
                    table,
                    name: String::new(),
                    function: 0,
                    kind: 0,
                    enabled: TriggerEnabled::Disabled,
                    columns: Vec::new(),
                    args: Vec::new(),
                    when: None,
                    old_table: None,
                    new_table: None,
                    parent: 0,
                };
                let exists = || CatalogError::Exists(row.clone());
                let body = |class| ClassRow {
                    trigger: Some(def.clone()),
                    ..class
                };
                let put = |_: &ClassRow| Ok(());
                (self.put_member(
                    txn,
                    &TRIGGERS,
                    table,
                    FOREIGN_KEY_TRIGGERS,
                    false,
                    exists,
                    put,
                    body,
                ))
                .map(|_| ())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a trigger's row tail round-trips, a damaged one is an error,
    // not a wrong definition, and one without the transition table
    // names (older rows) still reads.
    #[test]
    fn body_round_trips() {
        let def = TriggerDef {
            oid: 0,
            table: 16384,
            name: String::new(),
            function: 16390,
            kind: TRIGGER_ROW | TRIGGER_BEFORE | TRIGGER_UPDATE,
            enabled: TriggerEnabled::Replica,
            columns: vec!["a".into()],
            args: vec!["x".into(), "42".into()],
            when: Some("(old.a IS DISTINCT FROM new.a)".into()),
            old_table: None,
            new_table: Some("n".into()),
            parent: 16400,
        };
        let mut w = Writer::default();
        def.encode(&mut w);
        let bytes = w.0;
        let mut r = Reader(&bytes);
        assert_eq!(TriggerDef::decode(&mut r).unwrap(), def);
        assert!(r.0.is_empty());
        let mut bad = bytes.clone();
        bad[18] = b'X';
        assert!(TriggerDef::decode(&mut Reader(&bad)).is_err());
        // A row written before transition tables (no such names) reads
        // as one without them.
        let plain = TriggerDef {
            new_table: None,
            parent: 0,
            ..def.clone()
        };
        let mut w = Writer::default();
        plain.encode(&mut w);
        let old_format = &w.0[..w.0.len() - 4 - 8];
        assert_eq!(TriggerDef::decode(&mut Reader(old_format)).unwrap(), plain);
    }
}
