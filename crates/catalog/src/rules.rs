//! Rewrite rules (`CREATE RULE`): a `folio.class` row of kind `w` (no
//! storage) per rule, named `{relation oid}\0rule\0{name}`
//! (`relation_members.rs`: one rule of a name per relation). What a rule
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
//! A rule goes with its relation (`drop_members_of`).

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::defs::ClassRow;
use crate::error::CatalogError;
use crate::relation_members::{RULES, display};
use folio_heap::Tid;
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

/// The rules among class rows `classes`, by relation oid then name (the
/// order PostgreSQL applies them in).
pub(crate) fn rules_among(classes: &[(Tid, ClassRow)]) -> Vec<RuleDef> {
    RULES.among(classes, |class, name| {
        Some(RuleDef {
            oid: class.oid,
            name: name.to_string(),
            ..class.rule.clone()?
        })
    })
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
        let exists =
            || CatalogError::RuleExists(def.name.clone(), display(relation_name).to_string());
        let oid = self.put_member(
            txn,
            &RULES,
            def.relation,
            &def.name,
            replace,
            exists,
            |_| Ok(()),
            |class| ClassRow {
                rule: Some(def.clone()),
                ..class
            },
        )?;
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
        let missing =
            || CatalogError::NoSuchRule(name.to_string(), display(relation_name).to_string());
        self.drop_member(txn, &RULES, relation, name, missing)
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
        let missing =
            || CatalogError::NoSuchRule(name.to_string(), display(relation_name).to_string());
        let taken =
            || CatalogError::RuleExists(new.to_string(), display(relation_name).to_string());
        self.rename_member(txn, &RULES, relation, (name, new), missing, taken)
    }
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
