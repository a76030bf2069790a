//! Rewrite rules (`CREATE RULE`): a `folio.class` row of kind `w` (no
//! storage) per rule, named `{relation oid}\0rule\0{name}`, so the unique
//! index on names keeps one rule of a name per relation and no relation,
//! function or trigger name can hold it (as `triggers.rs`). What a rule
//! does is the SQL layer's (folio-sql `rules.rs`); the catalog keeps its
//! definition, read with the other object lists once per statement
//! (`object_lists.rs`), so it is MVCC, undone by a rollback and durable
//! as any class row.
//!
//! The row's tail after its (empty) columns:
//!
//! | field | size | meaning |
//! |---|---|---|
//! | relation oid | 8 | the table or view it is on (`pg_rewrite.ev_class`) |
//! | event | 1 | `ev_type`: `2` UPDATE, `3` INSERT, `4` DELETE |
//! | instead | 1 | 1 for `DO INSTEAD`, 0 for `DO ALSO` (`is_instead`) |
//! | condition | str | the `WHERE` condition's SQL text, empty for none |
//! | actions | 2 + n × str | each action's SQL text; none for `NOTHING` |
//!
//! A rule goes with its relation (`drop_rules_of`).

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_RULE};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::Transaction;

/// `ev_type` of an ON UPDATE rule.
pub const RULE_UPDATE: u8 = b'2';
/// `ev_type` of an ON INSERT rule.
pub const RULE_INSERT: u8 = b'3';
/// `ev_type` of an ON DELETE rule.
pub const RULE_DELETE: u8 = b'4';

/// A rule's definition (what `pg_rewrite` shows of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleDef {
    pub oid: u64,
    /// The relation's oid (`ev_class`).
    pub relation: u64,
    pub name: String,
    /// `ev_type` (`RULE_*`).
    pub event: u8,
    /// `DO INSTEAD` (else `DO ALSO`).
    pub instead: bool,
    /// The `WHERE` condition's SQL text.
    pub condition: Option<String>,
    /// The actions' SQL texts, in order; empty for `NOTHING`.
    pub actions: Vec<String>,
}

impl RuleDef {
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u64(self.relation)
            .u8(self.event)
            .u8(self.instead as u8)
            .str(self.condition.as_deref().unwrap_or(""));
        w.u16(self.actions.len() as u16);
        for a in &self.actions {
            w.str(a);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<RuleDef, String> {
        let relation = r.u64()?;
        let event = r.u8()?;
        if ![RULE_UPDATE, RULE_INSERT, RULE_DELETE].contains(&event) {
            return Err(format!("rule event byte {event}"));
        }
        let instead = match r.u8()? {
            0 => false,
            1 => true,
            other => return Err(format!("rule instead byte {other}")),
        };
        let condition = r.str()?;
        let n = r.u16()?;
        let actions = (0..n).map(|_| r.str()).collect::<Result<_, _>>()?;
        Ok(RuleDef {
            oid: 0,
            relation,
            name: String::new(),
            event,
            instead,
            condition: (!condition.is_empty()).then_some(condition),
            actions,
        })
    }
}

/// The class row name of rule `name` on relation `relation`.
fn row_name(relation: u64, name: &str) -> String {
    format!("{relation}\0rule\0{name}")
}

fn rule_def(class: &ClassRow) -> Option<RuleDef> {
    let body = class.rule.as_ref()?;
    let (_, name) = class.name.split_once("\0rule\0")?;
    Some(RuleDef {
        oid: class.oid,
        name: name.to_string(),
        ..body.clone()
    })
}

/// The rules among class rows `classes`, by relation oid then name (the
/// order PostgreSQL applies them in).
pub(crate) fn rules_among(classes: &[(Tid, ClassRow)]) -> Vec<RuleDef> {
    let mut out: Vec<RuleDef> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_RULE)
        .filter_map(|(_, c)| rule_def(c))
        .collect();
    out.sort_by(|a, b| (a.relation, &a.name).cmp(&(b.relation, &b.name)));
    out
}

impl Catalog {
    /// `CREATE [OR REPLACE] RULE`: `def` (its oid chosen here) stored; one
    /// of the same name on the relation is 42710 unless `replace`, when it
    /// takes the new definition and keeps its oid.
    pub fn create_rule(
        &self,
        txn: &mut Transaction,
        def: &RuleDef,
        relation_name: &str,
        replace: bool,
    ) -> Result<RuleDef, CatalogError> {
        let name = row_name(def.relation, &def.name);
        let exists =
            || CatalogError::RuleExists(def.name.clone(), display(relation_name).to_string());
        if let Some((tid, _)) = self.class(txn, &name)? {
            if !replace {
                return Err(exists());
            }
            let (tid, class) = self.relock_class(txn, tid, &name, exists)?;
            let row = ClassRow {
                rule: Some(def.clone()),
                ..class
            };
            self.update_class(txn, tid, &row)?;
            return Ok(RuleDef {
                oid: row.oid,
                ..def.clone()
            });
        }
        let oid = self.next_oid()?;
        let class = ClassRow {
            rule: Some(def.clone()),
            ..ClassRow::new(oid, &name, KIND_RULE, PageId(0))
        };
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(_) => exists(),
                other => other,
            })?;
        Ok(RuleDef { oid, ..def.clone() })
    }

    /// `DROP RULE name ON relation`: 42704 if the relation (oid
    /// `relation`, shown as `relation_name`) has none of that name.
    pub fn drop_rule(
        &self,
        txn: &mut Transaction,
        relation: u64,
        relation_name: &str,
        name: &str,
    ) -> Result<(), CatalogError> {
        let row = row_name(relation, name);
        let missing =
            || CatalogError::NoSuchRule(name.to_string(), display(relation_name).to_string());
        let (tid, _) = self.class(txn, &row)?.ok_or_else(missing)?;
        let (tid, _) = self.relock_class(txn, tid, &row, missing)?;
        self.delete_class_row(txn, tid)
    }

    /// `ALTER RULE name ON relation RENAME TO new`: 42704 if there is no
    /// rule `name`, 42710 if there is one named `new`.
    pub fn rename_rule(
        &self,
        txn: &mut Transaction,
        relation: u64,
        relation_name: &str,
        name: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        let row = row_name(relation, name);
        let missing =
            || CatalogError::NoSuchRule(name.to_string(), display(relation_name).to_string());
        let (tid, _) = self.class(txn, &row)?.ok_or_else(missing)?;
        let new_row = row_name(relation, new);
        if self.class(txn, &new_row)?.is_some() {
            return Err(CatalogError::RuleExists(
                new.to_string(),
                display(relation_name).to_string(),
            ));
        }
        let (tid, class) = self.relock_class(txn, tid, &row, missing)?;
        self.rename_class_row(txn, tid, class, &new_row)
            .map_err(|e| match e {
                CatalogError::Exists(_) => {
                    CatalogError::RuleExists(new.to_string(), display(relation_name).to_string())
                }
                other => other,
            })
    }

    /// Drops the rules of relation `relation` (it is being dropped).
    pub(crate) fn drop_rules_of(
        &self,
        txn: &mut Transaction,
        relation: u64,
    ) -> Result<(), CatalogError> {
        for (tid, class) in self.class_rows(txn)? {
            if class.kind == KIND_RULE
                && class.rule.as_ref().is_some_and(|r| r.relation == relation)
            {
                self.classes.delete(txn, tid)?;
            }
        }
        Ok(())
    }
}

/// A relation's name as rule messages show it (bare in `public`).
fn display(name: &str) -> &str {
    crate::schemas::split_schema(name).1
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a rule's row tail round-trips and a damaged one is an
    // error, not a wrong definition.
    #[test]
    fn body_round_trips() {
        let def = RuleDef {
            oid: 0,
            relation: 16384,
            name: String::new(),
            event: RULE_UPDATE,
            instead: true,
            condition: Some("old.a > 5".into()),
            actions: vec!["INSERT INTO log VALUES (old.a)".into(), "SELECT 1".into()],
        };
        let mut w = Writer::default();
        def.encode(&mut w);
        let bytes = w.0;
        let mut r = Reader(&bytes);
        assert_eq!(RuleDef::decode(&mut r).unwrap(), def);
        assert!(r.0.is_empty());
        let mut bad = bytes.clone();
        bad[8] = b'9';
        assert!(RuleDef::decode(&mut Reader(&bad)).is_err());
    }
}
