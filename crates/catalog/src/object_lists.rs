//! The enum types, composite types (relations' row types too), extensions,
//! SQL functions and triggers a transaction sees: the
//! lists the SQL layer puts in scope for every statement (the binder
//! looks types, extension functions and SQL functions up in them).
//!
//! All three are read with one scan of `folio.class`, and a caller keeps
//! them and hands them back: [`Catalog::object_lists`] returns the kept
//! lists again while they are current (`class_writes.rs`: no class row
//! changed since they were read, and the reader's snapshot is not older),
//! so a statement pays two atomic loads, not a scan. A relation's row
//! type follows its columns, so `folio.attribute`'s writes are noted as
//! `folio.class`'s are.

use crate::catalog::Catalog;
use crate::error::CatalogError;
use crate::extensions::ExtensionDef;
use crate::functions::FunctionDef;
use crate::triggers::TriggerDef;
use folio_row::EnumType;
use folio_txn::{Csn, Transaction};
use std::sync::Arc;

/// The objects of `folio.class` every statement's scope needs.
#[derive(Debug, Clone, Default)]
pub struct ObjectLists {
    /// Enum types by name.
    pub enums: Arc<Vec<&'static EnumType>>,
    /// Composite types by name.
    pub composites: Arc<Vec<&'static folio_row::CompositeType>>,
    /// The row types of tables, views and materialized views, each with
    /// its relation's catalog name (`pg_temp_N.t` for a temporary
    /// table's), by that name (`composites.rs`).
    pub relation_types: Arc<Vec<(String, &'static folio_row::CompositeType)>>,
    /// Domains by name.
    pub domains: Arc<Vec<Arc<crate::domains::DomainType>>>,
    /// Extensions by name.
    pub extensions: Arc<Vec<ExtensionDef>>,
    /// SQL functions by name, then oid.
    pub functions: Arc<Vec<FunctionDef>>,
    /// Procedures by name, then oid (CALL's; apart from the functions,
    /// which no expression may call).
    pub procedures: Arc<Vec<FunctionDef>>,
    /// Row triggers by table oid, then name (`triggers.rs`).
    pub triggers: Arc<Vec<TriggerDef>>,
    /// Rewrite rules by relation oid, then name (`rules.rs`).
    pub rules: Arc<Vec<crate::rules::RuleDef>>,
    /// The snapshot they were read with, unless the reader had written
    /// class rows (its lists are its own: never used again).
    read_at: Option<Csn>,
}

impl ObjectLists {
    /// These lists with `functions` as the SQL functions (a `CREATE
    /// FUNCTION`'s body is checked with the function it creates): lists
    /// of their own, never handed back by [`Catalog::object_lists`].
    pub fn with_functions(&self, functions: Arc<Vec<FunctionDef>>) -> ObjectLists {
        ObjectLists {
            functions,
            read_at: None,
            ..self.clone()
        }
    }
}

impl Catalog {
    /// The lists `txn` sees: `kept` again if it is current for `txn`,
    /// else read anew (keep the result for the next call).
    pub fn object_lists(
        &self,
        txn: &Transaction,
        kept: Option<&Arc<ObjectLists>>,
    ) -> Result<Arc<ObjectLists>, CatalogError> {
        let snapshot = txn.snapshot().0;
        if let Some(kept) = kept
            && let Some(read_at) = kept.read_at
            && snapshot >= read_at
            && !self.classes.writes.changed_since(txn, read_at)?
            && !self.attributes.writes.changed_since(txn, read_at)?
        {
            return Ok(kept.clone());
        }
        let own = self.classes.writes.written_by(txn) || self.attributes.writes.written_by(txn);
        let rows = self.class_rows(txn)?;
        let columns = self.all_columns(txn)?;
        let (procedures, functions) = (crate::functions::functions_among(&rows).into_iter())
            .partition(|f: &FunctionDef| f.procedure);
        Ok(Arc::new(ObjectLists {
            enums: Arc::new(crate::enums::enums_among(&rows)),
            domains: Arc::new(crate::domains::domains_among(&rows)),
            composites: Arc::new(crate::composites::composites_among(&rows, &columns)),
            relation_types: Arc::new(crate::composites::relation_types_among(&rows, &columns)),
            extensions: Arc::new(crate::extensions::extensions_among(&rows)),
            functions: Arc::new(functions),
            procedures: Arc::new(procedures),
            triggers: Arc::new(crate::triggers::triggers_among(&rows)),
            rules: Arc::new(crate::rules::rules_among(&rows)),
            read_at: (!own).then_some(snapshot),
        }))
    }
}
