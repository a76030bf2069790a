//! The `pg_catalog` relations whose rows never change in folio: those of
//! objects folio has none of (foreign data wrappers, servers and tables,
//! user mappings, subscriptions, event triggers, large objects, per-role
//! settings, parameter privileges, encoding conversions,
//! text search objects, operator classes and families with their
//! members), and `pg_tablespace`, whose two rows are PostgreSQL's
//! (`pg_default`, `pg_global`: folio keeps every relation in its one
//! database file). psql's `\db`, `\des`, `\det`, `\deu`, `\dew`, `\dRs`,
//! `\dy`, `\dl`, `\drds`, `\dc`, `\dF*`, `\dA*` and `\l+` read them.
//!
//! Their names, oids and columns are PostgreSQL 15's (a `name`,
//! `regproc`, `pg_lsn` or `pg_node_tree` column is `text`, an ACL a
//! `text[]`, as in `system.rs`). PostgreSQL's text search objects,
//! conversions and operator classes are rows here only when folio has
//! the thing they describe, which it does not: folio has no text search,
//! converts no encodings (UTF8 only), and its B+tree orders each type by
//! one built-in rule rather than by operator classes.

use crate::catalog_functions::SUPERUSER_OID;
use SqlType::{Bool, Int2, Int4, InternalChar, Oid, Text};
use folio_row::{SqlType, Value};

/// `text[]`: options and ACLs.
const TEXT_ARRAY: SqlType = SqlType::Array(&SqlType::Text);

/// The tablespace every relation is in (`pg_class.reltablespace` 0
/// means it, as in PostgreSQL).
pub const DEFAULT_TABLESPACE: i64 = 1663;
/// The tablespace of the shared catalogs.
pub const GLOBAL_TABLESPACE: i64 = 1664;
/// The tablespaces, PostgreSQL's two: by oid, their names.
const TABLESPACES: [(i64, &str); 2] = [
    (DEFAULT_TABLESPACE, "pg_default"),
    (GLOBAL_TABLESPACE, "pg_global"),
];

/// A relation of fixed rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixed {
    Tablespace,
    Conversion,
    ForeignServer,
    ForeignTable,
    UserMappings,
    ForeignDataWrapper,
    TsConfig,
    TsDict,
    TsParser,
    TsTemplate,
    DbRoleSetting,
    Subscription,
    EventTrigger,
    LargeobjectMetadata,
    Opclass,
    Opfamily,
    Amop,
    Amproc,
    ParameterAcl,
}

/// Every relation of fixed rows.
pub const ALL: [Fixed; 19] = [
    Fixed::Tablespace,
    Fixed::Conversion,
    Fixed::ForeignServer,
    Fixed::ForeignTable,
    Fixed::UserMappings,
    Fixed::ForeignDataWrapper,
    Fixed::TsConfig,
    Fixed::TsDict,
    Fixed::TsParser,
    Fixed::TsTemplate,
    Fixed::DbRoleSetting,
    Fixed::Subscription,
    Fixed::EventTrigger,
    Fixed::LargeobjectMetadata,
    Fixed::Opclass,
    Fixed::Opfamily,
    Fixed::Amop,
    Fixed::Amproc,
    Fixed::ParameterAcl,
];

impl Fixed {
    /// Its name, its oid (PostgreSQL 15's), and whether it is a view.
    fn identity(self) -> (&'static str, i64, bool) {
        match self {
            Fixed::Tablespace => ("pg_tablespace", 1213, false),
            Fixed::Conversion => ("pg_conversion", 2607, false),
            Fixed::ForeignServer => ("pg_foreign_server", 1417, false),
            Fixed::ForeignTable => ("pg_foreign_table", 3118, false),
            Fixed::UserMappings => ("pg_user_mappings", 12327, true),
            Fixed::ForeignDataWrapper => ("pg_foreign_data_wrapper", 2328, false),
            Fixed::TsConfig => ("pg_ts_config", 3602, false),
            Fixed::TsDict => ("pg_ts_dict", 3600, false),
            Fixed::TsParser => ("pg_ts_parser", 3601, false),
            Fixed::TsTemplate => ("pg_ts_template", 3764, false),
            Fixed::DbRoleSetting => ("pg_db_role_setting", 2964, false),
            Fixed::Subscription => ("pg_subscription", 6100, false),
            Fixed::EventTrigger => ("pg_event_trigger", 3466, false),
            Fixed::LargeobjectMetadata => ("pg_largeobject_metadata", 2995, false),
            Fixed::Opclass => ("pg_opclass", 2616, false),
            Fixed::Opfamily => ("pg_opfamily", 2753, false),
            Fixed::Amop => ("pg_amop", 2602, false),
            Fixed::Amproc => ("pg_amproc", 2603, false),
            Fixed::ParameterAcl => ("pg_parameter_acl", 6243, false),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        self.identity().0
    }

    /// Its oid.
    pub fn oid(self) -> i64 {
        self.identity().1
    }

    /// Whether it is a view in PostgreSQL.
    pub fn is_view(self) -> bool {
        self.identity().2
    }

    /// Its columns, PostgreSQL 15's.
    pub fn columns(self) -> &'static [(&'static str, SqlType)] {
        match self {
            Fixed::Tablespace => &[
                ("oid", Oid),
                ("spcname", Text),
                ("spcowner", Oid),
                ("spcacl", TEXT_ARRAY),
                ("spcoptions", TEXT_ARRAY),
            ],
            Fixed::Conversion => &[
                ("oid", Oid),
                ("conname", Text),
                ("connamespace", Oid),
                ("conowner", Oid),
                ("conforencoding", Int4),
                ("contoencoding", Int4),
                ("conproc", Text),
                ("condefault", Bool),
            ],
            Fixed::ForeignServer => &[
                ("oid", Oid),
                ("srvname", Text),
                ("srvowner", Oid),
                ("srvfdw", Oid),
                ("srvtype", Text),
                ("srvversion", Text),
                ("srvacl", TEXT_ARRAY),
                ("srvoptions", TEXT_ARRAY),
            ],
            Fixed::ForeignTable => &[
                ("ftrelid", Oid),
                ("ftserver", Oid),
                ("ftoptions", TEXT_ARRAY),
            ],
            Fixed::UserMappings => &[
                ("umid", Oid),
                ("srvid", Oid),
                ("srvname", Text),
                ("umuser", Oid),
                ("usename", Text),
                ("umoptions", TEXT_ARRAY),
            ],
            Fixed::ForeignDataWrapper => &[
                ("oid", Oid),
                ("fdwname", Text),
                ("fdwowner", Oid),
                ("fdwhandler", Oid),
                ("fdwvalidator", Oid),
                ("fdwacl", TEXT_ARRAY),
                ("fdwoptions", TEXT_ARRAY),
            ],
            Fixed::TsConfig => &[
                ("oid", Oid),
                ("cfgname", Text),
                ("cfgnamespace", Oid),
                ("cfgowner", Oid),
                ("cfgparser", Oid),
            ],
            Fixed::TsDict => &[
                ("oid", Oid),
                ("dictname", Text),
                ("dictnamespace", Oid),
                ("dictowner", Oid),
                ("dicttemplate", Oid),
                ("dictinitoption", Text),
            ],
            Fixed::TsParser => &[
                ("oid", Oid),
                ("prsname", Text),
                ("prsnamespace", Oid),
                ("prsstart", Text),
                ("prstoken", Text),
                ("prsend", Text),
                ("prsheadline", Text),
                ("prslextype", Text),
            ],
            Fixed::TsTemplate => &[
                ("oid", Oid),
                ("tmplname", Text),
                ("tmplnamespace", Oid),
                ("tmplinit", Text),
                ("tmpllexize", Text),
            ],
            Fixed::DbRoleSetting => &[
                ("setdatabase", Oid),
                ("setrole", Oid),
                ("setconfig", TEXT_ARRAY),
            ],
            Fixed::Subscription => &[
                ("oid", Oid),
                ("subdbid", Oid),
                ("subskiplsn", Text),
                ("subname", Text),
                ("subowner", Oid),
                ("subenabled", Bool),
                ("subbinary", Bool),
                ("substream", Bool),
                ("subtwophasestate", InternalChar),
                ("subdisableonerr", Bool),
                ("subconninfo", Text),
                ("subslotname", Text),
                ("subsynccommit", Text),
                ("subpublications", TEXT_ARRAY),
            ],
            Fixed::EventTrigger => &[
                ("oid", Oid),
                ("evtname", Text),
                ("evtevent", Text),
                ("evtowner", Oid),
                ("evtfoid", Oid),
                ("evtenabled", InternalChar),
                ("evttags", TEXT_ARRAY),
            ],
            Fixed::LargeobjectMetadata => {
                &[("oid", Oid), ("lomowner", Oid), ("lomacl", TEXT_ARRAY)]
            }
            Fixed::Opclass => &[
                ("oid", Oid),
                ("opcmethod", Oid),
                ("opcname", Text),
                ("opcnamespace", Oid),
                ("opcowner", Oid),
                ("opcfamily", Oid),
                ("opcintype", Oid),
                ("opcdefault", Bool),
                ("opckeytype", Oid),
            ],
            Fixed::Opfamily => &[
                ("oid", Oid),
                ("opfmethod", Oid),
                ("opfname", Text),
                ("opfnamespace", Oid),
                ("opfowner", Oid),
            ],
            Fixed::Amop => &[
                ("oid", Oid),
                ("amopfamily", Oid),
                ("amoplefttype", Oid),
                ("amoprighttype", Oid),
                ("amopstrategy", Int2),
                ("amoppurpose", InternalChar),
                ("amopopr", Oid),
                ("amopmethod", Oid),
                ("amopsortfamily", Oid),
            ],
            Fixed::Amproc => &[
                ("oid", Oid),
                ("amprocfamily", Oid),
                ("amproclefttype", Oid),
                ("amprocrighttype", Oid),
                ("amprocnum", Int2),
                ("amproc", Text),
            ],
            Fixed::ParameterAcl => &[("oid", Oid), ("parname", Text), ("paracl", TEXT_ARRAY)],
        }
    }

    /// Its rows.
    pub fn rows(self) -> Vec<Vec<Value>> {
        match self {
            Fixed::Tablespace => TABLESPACES
                .into_iter()
                .map(|(oid, name)| {
                    vec![
                        Value::Oid(oid as u32),
                        Value::Text(name.into()),
                        Value::Oid(SUPERUSER_OID as u32),
                        Value::Null,
                        Value::Null,
                    ]
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `pg_tablespace_location(oid)`: a tablespace in the data directory
    /// has an empty location, as PostgreSQL's two; NULL for another oid.
    pub fn tablespace_location(oid: i64) -> Option<&'static str> {
        TABLESPACES.iter().any(|t| t.0 == oid).then_some("")
    }

    /// The oid of the tablespace called `name` (as written: no case
    /// folding, as PostgreSQL's `name` argument).
    pub fn tablespace_oid(name: &str) -> Option<i64> {
        TABLESPACES.iter().find(|t| t.1 == name).map(|t| t.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fit_their_columns() {
        for f in ALL {
            for row in f.rows() {
                assert_eq!(row.len(), f.columns().len(), "{}", f.name());
            }
        }
        assert_eq!(Fixed::Tablespace.rows().len(), 2);
    }
}
