//! The `pg_catalog` relations psql's `\d` family, drivers and users
//! read: rows made at each execution from folio's own catalog (tables,
//! their columns, indexes, defaults and sequences, as the running
//! transaction sees them), with PostgreSQL 15's names and column names.
//!
//! A name resolves here when it is `pg_catalog.x`, or `x` alone: as in
//! PostgreSQL, `pg_catalog` is searched before `public` (so `public.x`
//! reaches a user's table of a system relation's name).
//!
//! Types: a column PostgreSQL types `oid` is `oid` here too (folio-row's
//! `SqlType::Oid`; `oid[]` too), and one it types `"char"` (`relkind`,
//! `typtype`, `contype`, ...) is `"char"` (`SqlType::InternalChar`), as
//! drivers and psql read them. A `name` column is `text` (folio has the
//! `name` type, but the catalog's columns keep text); folio has no
//! `regproc` or `int2vector` types: `int2vector`
//! (`pg_index.indkey`) is its text form (`1 2`). An ACL
//! (`aclitem[]`) is a `text[]`, NULL (default privileges). Role and database rows describe
//! what folio has: the role `postgres` (oid 10), the database
//! `postgres` (oid 5, UTF8, C collation), the schemas `pg_catalog` (11)
//! and `public` (2200, owned by `pg_database_owner` as in PostgreSQL 15).
//! `pg_proc`, `pg_cast` and `pg_operator` are fixed lists of what folio
//! has (`system_proc.rs`, `system_cast.rs`, `system_operator.rs`).

use crate::catalog_functions::{DATABASE_OWNER_OID, SUPERUSER_OID, UTF8};
use crate::error::SqlError;
use crate::information_schema::View;
use crate::names;
use crate::stat_tables::Listed;
use crate::system_fixed::Fixed;
use folio_catalog::{Catalog, ConstraintKind, IndexDef, SequenceDef, TableDef};
use folio_db::Transaction;
use folio_row::{RangeKind, SqlType, Value};
use sqlparser::ast::ObjectName;

/// The `pg_catalog` schema's oid.
const CATALOG_NAMESPACE: i64 = 11;
/// The `public` schema's oid.
const PUBLIC_NAMESPACE: i64 = 2200;
/// The oid of temporary namespace `pg_temp_N` is this plus `N`
/// (`temp_tables.rs`; PostgreSQL's are ordinary oids).
pub(crate) const TEMP_NAMESPACE_BASE: i64 = 4_000_000_000;
/// The database's oid (PostgreSQL's `postgres` database).
pub(crate) const DATABASE_OID: i64 = 5;
/// The database's name (`current_database()`).
pub(crate) const DATABASE_NAME: &str = "postgres";
/// Access methods: the heap and the B+tree.
const HEAP_AM: i64 = 2;
const BTREE_AM: i64 = 403;
/// Collations.
const DEFAULT_COLLATION: i64 = 100;

/// A relation of `pg_catalog`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemRelation {
    Namespace,
    Class,
    Attribute,
    Type,
    Index,
    Am,
    Database,
    Roles,
    User,
    Authid,
    AuthMembers,
    Inherits,
    PartitionedTable,
    Attrdef,
    Constraint,
    Policy,
    Policies,
    DefaultAcl,
    StatisticExt,
    Publication,
    PublicationNamespace,
    PublicationRel,
    Trigger,
    /// `pg_rules`: the rewrite rules (`rules.rs`).
    Rules,
    /// `pg_rewrite`: the rewrite rules' rows (not views' `_RETURN`).
    Rewrite,
    Description,
    Collation,
    Tables,
    Indexes,
    Views,
    /// `pg_matviews`: the materialized views (`matviews.rs`).
    Matviews,
    Sequences,
    /// `pg_sequence`: each sequence's parameters (`\d` of a sequence).
    Sequence,
    /// `pg_depend`: only a sequence's dependence on the column that owns
    /// it (`serial`: `a`, identity: `i`).
    Depend,
    /// `pg_proc`: folio's functions (`system_proc.rs`).
    Proc,
    /// `pg_cast`: the casts between folio's types (`system_cast.rs`).
    Cast,
    /// `pg_operator`: folio's operators (`system_operator.rs`).
    Operator,
    /// `pg_extension`: the created extensions (`extensions.rs`; not
    /// plpgsql, which folio does not have).
    Extension,
    /// `pg_language`: `internal`, the language of every folio function.
    Language,
    /// `pg_enum`: the labels of the enum types (`enum_types.rs`).
    Enum,
    /// `pg_range`: the built-in range types (folio-row `range.rs`).
    Range,
    /// `pg_stat_activity`: the live sessions (`activity.rs`).
    StatActivity,
    /// `pg_locks`: the locks folio keeps (`activity.rs`).
    Locks,
    /// `pg_stat_all_tables`, `_user_tables`, `_sys_tables`
    /// (`stat_tables.rs`).
    StatTables(Listed),
    /// `pg_stat_all_indexes`, `_user_indexes`, `_sys_indexes`.
    StatIndexes(Listed),
    /// `pg_stat_database` (`stat_database.rs`).
    StatDatabase,
    /// `pg_settings`: the session's settings (`settings_list.rs`).
    Settings,
    /// `pg_timezone_names`: the zones of the time zone database as they
    /// are now (`time_zone_views.rs`).
    TimezoneNames,
    /// `pg_timezone_abbrevs`: the abbreviations folio takes.
    TimezoneAbbrevs,
    /// `pg_cursors`: the session's open cursors (`cursors/`).
    Cursors,
    /// `pg_prepared_statements`: the session's prepared statements
    /// (`prepared_listing.rs`).
    PreparedStatements,
    /// `pg_prepared_xacts`: the prepared transactions (two-phase commit,
    /// `prepared_xacts.rs`).
    PreparedXacts,
    /// A view of `information_schema` (`information_schema.rs`; not in
    /// `pg_class`).
    Information(View),
    /// A relation whose rows never change (`system_fixed.rs`).
    Fixed(Fixed),
}

const ALL: [SystemRelation; 56] = [
    SystemRelation::Namespace,
    SystemRelation::Class,
    SystemRelation::Attribute,
    SystemRelation::Type,
    SystemRelation::Index,
    SystemRelation::Am,
    SystemRelation::Database,
    SystemRelation::Roles,
    SystemRelation::User,
    SystemRelation::Authid,
    SystemRelation::AuthMembers,
    SystemRelation::Inherits,
    SystemRelation::PartitionedTable,
    SystemRelation::Attrdef,
    SystemRelation::Constraint,
    SystemRelation::Policy,
    SystemRelation::Policies,
    SystemRelation::DefaultAcl,
    SystemRelation::StatisticExt,
    SystemRelation::Publication,
    SystemRelation::PublicationNamespace,
    SystemRelation::PublicationRel,
    SystemRelation::Trigger,
    SystemRelation::Rules,
    SystemRelation::Rewrite,
    SystemRelation::Description,
    SystemRelation::Collation,
    SystemRelation::Tables,
    SystemRelation::Indexes,
    SystemRelation::Views,
    SystemRelation::Matviews,
    SystemRelation::Sequences,
    SystemRelation::Sequence,
    SystemRelation::Depend,
    SystemRelation::Proc,
    SystemRelation::Cast,
    SystemRelation::Operator,
    SystemRelation::Extension,
    SystemRelation::Language,
    SystemRelation::Enum,
    SystemRelation::Range,
    SystemRelation::StatActivity,
    SystemRelation::Locks,
    SystemRelation::StatTables(Listed::All),
    SystemRelation::StatTables(Listed::User),
    SystemRelation::StatTables(Listed::Sys),
    SystemRelation::StatIndexes(Listed::All),
    SystemRelation::StatIndexes(Listed::User),
    SystemRelation::StatIndexes(Listed::Sys),
    SystemRelation::StatDatabase,
    SystemRelation::Settings,
    SystemRelation::TimezoneNames,
    SystemRelation::TimezoneAbbrevs,
    SystemRelation::Cursors,
    SystemRelation::PreparedStatements,
    SystemRelation::PreparedXacts,
];

use SqlType::{Bool, Float4, Int2, Int4, Int8, InternalChar, Oid, Text, TimestampTz};

/// The identity sequence of `table`'s column `n`, if it is an identity
/// column (`GENERATED ... AS IDENTITY`). Its `nextval` default is
/// folio's way of giving the values, not a default PostgreSQL shows
/// (`default_shown`).
pub fn identity<'s>(
    sequences: &'s [SequenceDef],
    table: &TableDef,
    n: usize,
) -> Option<&'s SequenceDef> {
    sequences
        .iter()
        .find(|s| s.identity && s.owner == Some((table.oid, n as u16)))
}

/// The default of `table`'s column `n` as PostgreSQL shows it (an
/// identity column has none).
pub fn default_shown<'t>(
    sequences: &[SequenceDef],
    table: &'t TableDef,
    n: usize,
) -> Option<&'t str> {
    match identity(sequences, table, n) {
        Some(_) => None,
        None => table.default_of(n),
    }
}

/// `text[]`: ACLs (`aclitem[]` in PostgreSQL), NULL here (the default
/// privileges).
const TEXT_ARRAY: SqlType = SqlType::Array(&SqlType::Text);
/// `int2[]`: column numbers (`int2vector` in PostgreSQL, except
/// `pg_index.indkey`, kept as its text form).
const INT2_ARRAY: SqlType = SqlType::Array(&SqlType::Int2);
/// `oid[]`.
const OID_ARRAY: SqlType = SqlType::Array(&SqlType::Oid);

/// `(name, type)` of a relation's columns.
type Columns = &'static [(&'static str, SqlType)];

impl SystemRelation {
    /// Every `pg_catalog` relation.
    pub fn all() -> impl Iterator<Item = SystemRelation> {
        ALL.into_iter()
            .chain(crate::system_fixed::ALL.map(SystemRelation::Fixed))
    }

    /// Its oid (its `pg_class` row's).
    pub fn oid(self) -> i64 {
        self.oid_and_view().0
    }

    /// Whether it is a view in PostgreSQL.
    pub fn is_view(self) -> bool {
        self.oid_and_view().1
    }

    /// The relation an object name denotes: `Ok(None)` when it is not a
    /// system relation's name, 42P01 for `pg_catalog.x` of an unknown x.
    pub fn lookup(name: &ObjectName) -> Result<Option<SystemRelation>, SqlError> {
        // Every system relation's name starts with `pg_`: a user's table
        // (planned per statement under the simple protocol) costs one
        // comparison here.
        if let [sqlparser::ast::ObjectNamePart::Identifier(id)] = name.0.as_slice()
            && !id
                .value
                .get(..3)
                .is_some_and(|p| p.eq_ignore_ascii_case("pg_"))
        {
            return Ok(None);
        }
        let parts = names::parts(name);
        let (qualified, base) = match parts.as_deref() {
            Some([base]) => (false, base.as_str()),
            Some([schema, base]) if schema == "pg_catalog" => (true, base.as_str()),
            Some([schema, base]) if schema == "information_schema" => {
                return match View::of(base) {
                    Some(view) => Ok(Some(SystemRelation::Information(view))),
                    None => Err(SqlError::new(
                        "42P01",
                        format!("relation \"information_schema.{base}\" does not exist"),
                    )),
                };
            }
            _ => return Ok(None),
        };
        match Self::all().find(|r| r.name() == base) {
            Some(found) => Ok(Some(found)),
            None if qualified => Err(SqlError::new(
                "42P01",
                format!("relation \"pg_catalog.{base}\" does not exist"),
            )),
            None => Ok(None),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            SystemRelation::Namespace => "pg_namespace",
            SystemRelation::Class => "pg_class",
            SystemRelation::Attribute => "pg_attribute",
            SystemRelation::Type => "pg_type",
            SystemRelation::Index => "pg_index",
            SystemRelation::Am => "pg_am",
            SystemRelation::Database => "pg_database",
            SystemRelation::Roles => "pg_roles",
            SystemRelation::User => "pg_user",
            SystemRelation::Authid => "pg_authid",
            SystemRelation::AuthMembers => "pg_auth_members",
            SystemRelation::Inherits => "pg_inherits",
            SystemRelation::PartitionedTable => "pg_partitioned_table",
            SystemRelation::Attrdef => "pg_attrdef",
            SystemRelation::Constraint => "pg_constraint",
            SystemRelation::Policy => "pg_policy",
            SystemRelation::Policies => "pg_policies",
            SystemRelation::DefaultAcl => "pg_default_acl",
            SystemRelation::StatisticExt => "pg_statistic_ext",
            SystemRelation::Publication => "pg_publication",
            SystemRelation::PublicationNamespace => "pg_publication_namespace",
            SystemRelation::PublicationRel => "pg_publication_rel",
            SystemRelation::Trigger => "pg_trigger",
            SystemRelation::Rules => "pg_rules",
            SystemRelation::Rewrite => "pg_rewrite",

            SystemRelation::Description => "pg_description",
            SystemRelation::Collation => "pg_collation",
            SystemRelation::Tables => "pg_tables",
            SystemRelation::Indexes => "pg_indexes",
            SystemRelation::Views => "pg_views",
            SystemRelation::Matviews => "pg_matviews",
            SystemRelation::Sequences => "pg_sequences",
            SystemRelation::Sequence => "pg_sequence",
            SystemRelation::Depend => "pg_depend",
            SystemRelation::Proc => "pg_proc",
            SystemRelation::Cast => "pg_cast",
            SystemRelation::Operator => "pg_operator",
            SystemRelation::Extension => "pg_extension",
            SystemRelation::Language => "pg_language",
            SystemRelation::Enum => "pg_enum",
            SystemRelation::Range => "pg_range",
            SystemRelation::StatActivity => "pg_stat_activity",
            SystemRelation::Locks => "pg_locks",
            SystemRelation::StatTables(Listed::All) => "pg_stat_all_tables",
            SystemRelation::StatTables(Listed::User) => "pg_stat_user_tables",
            SystemRelation::StatTables(Listed::Sys) => "pg_stat_sys_tables",
            SystemRelation::StatIndexes(Listed::All) => "pg_stat_all_indexes",
            SystemRelation::StatIndexes(Listed::User) => "pg_stat_user_indexes",
            SystemRelation::StatIndexes(Listed::Sys) => "pg_stat_sys_indexes",
            SystemRelation::StatDatabase => "pg_stat_database",
            SystemRelation::Settings => "pg_settings",
            SystemRelation::TimezoneNames => "pg_timezone_names",
            SystemRelation::TimezoneAbbrevs => "pg_timezone_abbrevs",
            SystemRelation::Cursors => "pg_cursors",
            SystemRelation::PreparedStatements => "pg_prepared_statements",
            SystemRelation::PreparedXacts => "pg_prepared_xacts",
            SystemRelation::Information(view) => view.name(),
            SystemRelation::Fixed(fixed) => fixed.name(),
        }
    }

    /// PostgreSQL's oid for it (its `pg_class` row), and whether it is a
    /// view there.
    fn oid_and_view(self) -> (i64, bool) {
        match self {
            SystemRelation::Namespace => (2615, false),
            SystemRelation::Class => (1259, false),
            SystemRelation::Attribute => (1249, false),
            SystemRelation::Type => (1247, false),
            SystemRelation::Index => (2610, false),
            SystemRelation::Am => (2601, false),
            SystemRelation::Database => (1262, false),
            SystemRelation::Inherits => (2611, false),
            SystemRelation::AuthMembers => (1261, false),
            SystemRelation::PartitionedTable => (3350, false),
            SystemRelation::Attrdef => (2604, false),
            SystemRelation::Constraint => (2606, false),
            SystemRelation::Policy => (3256, false),
            SystemRelation::Policies => (12066, true),
            SystemRelation::DefaultAcl => (826, false),
            SystemRelation::StatisticExt => (3381, false),
            SystemRelation::Publication => (6104, false),
            SystemRelation::PublicationNamespace => (6237, false),
            SystemRelation::PublicationRel => (6106, false),
            SystemRelation::Trigger => (2620, false),

            SystemRelation::Description => (2609, false),
            SystemRelation::Collation => (3456, false),
            SystemRelation::Sequence => (2224, false),
            SystemRelation::Depend => (2608, false),
            SystemRelation::Proc => (1255, false),
            SystemRelation::Cast => (2605, false),
            SystemRelation::Operator => (2617, false),
            SystemRelation::Extension => (3079, false),
            SystemRelation::Language => (2612, false),
            SystemRelation::Enum => (3501, false),
            SystemRelation::Range => (3541, false),
            SystemRelation::Roles => (12001, true),
            SystemRelation::User => (12005, true),
            SystemRelation::Authid => (1260, false),
            SystemRelation::Tables => (12010, true),
            SystemRelation::Indexes => (12015, true),
            SystemRelation::Views => (12020, true),
            SystemRelation::Rules => (12023, true),
            SystemRelation::Rewrite => (2618, false),
            SystemRelation::Matviews => (12038, true),
            SystemRelation::Sequences => (12025, true),
            SystemRelation::StatActivity => (12030, true),
            SystemRelation::Locks => (12035, true),
            SystemRelation::StatTables(listed) => (12040 + listed as i64, true),
            SystemRelation::StatIndexes(listed) => (12045 + listed as i64, true),
            SystemRelation::StatDatabase => (12266, true),
            SystemRelation::Settings => (12104, true),
            SystemRelation::TimezoneNames => (12126, true),
            SystemRelation::TimezoneAbbrevs => (12122, true),
            SystemRelation::Cursors => (12077, true),
            SystemRelation::PreparedStatements => (12095, true),
            SystemRelation::PreparedXacts => (12090, true),
            // (PostgreSQL's oids of these views vary by installation.)
            SystemRelation::Information(view) => (13000 + view as i64, true),
            SystemRelation::Fixed(fixed) => (fixed.oid(), fixed.is_view()),
        }
    }

    /// Its columns.
    pub fn columns(self) -> Columns {
        match self {
            SystemRelation::Information(view) => view.columns(),
            SystemRelation::Fixed(fixed) => fixed.columns(),
            SystemRelation::StatActivity => crate::activity::STAT_ACTIVITY_COLUMNS,
            SystemRelation::Locks => crate::activity::LOCKS_COLUMNS,
            SystemRelation::TimezoneNames => crate::time_zone_views::NAMES_COLUMNS,
            SystemRelation::TimezoneAbbrevs => crate::time_zone_views::ABBREVS_COLUMNS,
            SystemRelation::Cursors => crate::cursors::COLUMNS,
            SystemRelation::PreparedStatements => crate::prepared_listing::COLUMNS,
            SystemRelation::PreparedXacts => crate::prepared_xacts::COLUMNS,
            SystemRelation::StatTables(_) => crate::stat_tables::TABLE_COLUMNS,
            SystemRelation::StatIndexes(_) => crate::stat_tables::INDEX_COLUMNS,
            SystemRelation::StatDatabase => crate::stat_database::COLUMNS,
            SystemRelation::Settings => crate::settings_list::COLUMNS,
            SystemRelation::Namespace => &[
                ("oid", Oid),
                ("nspname", Text),
                ("nspowner", Oid),
                ("nspacl", TEXT_ARRAY),
            ],
            SystemRelation::Class => &[
                ("oid", Oid),
                ("relname", Text),
                ("relnamespace", Oid),
                ("reltype", Oid),
                ("reloftype", Oid),
                ("relowner", Oid),
                ("relam", Oid),
                ("relfilenode", Oid),
                ("reltablespace", Oid),
                ("relpages", Int4),
                ("reltuples", Float4),
                ("relallvisible", Int4),
                ("reltoastrelid", Oid),
                ("relhasindex", Bool),
                ("relisshared", Bool),
                ("relpersistence", InternalChar),
                ("relkind", InternalChar),
                ("relnatts", Int2),
                ("relchecks", Int2),
                ("relhasrules", Bool),
                ("relhastriggers", Bool),
                ("relhassubclass", Bool),
                ("relrowsecurity", Bool),
                ("relforcerowsecurity", Bool),
                ("relispopulated", Bool),
                ("relreplident", InternalChar),
                ("relispartition", Bool),
                ("relrewrite", Oid),
                ("relacl", TEXT_ARRAY),
                ("reloptions", TEXT_ARRAY),
                ("relpartbound", Text),
            ],
            SystemRelation::Attribute => &[
                ("attrelid", Oid),
                ("attname", Text),
                ("atttypid", Oid),
                ("attlen", Int2),
                ("attnum", Int2),
                ("attndims", Int4),
                ("atttypmod", Int4),
                ("attbyval", Bool),
                ("attnotnull", Bool),
                ("atthasdef", Bool),
                ("atthasmissing", Bool),
                ("attidentity", InternalChar),
                ("attgenerated", InternalChar),
                ("attisdropped", Bool),
                ("attislocal", Bool),
                ("attinhcount", Int4),
                ("attcollation", Oid),
                ("attstorage", InternalChar),
                ("attcompression", InternalChar),
                ("attstattarget", Int4),
                ("attacl", TEXT_ARRAY),
                ("attoptions", TEXT_ARRAY),
                ("attfdwoptions", TEXT_ARRAY),
                // (PostgreSQL's is anyarray: the value rows written before
                // an ADD COLUMN read. folio writes it into every row, so
                // no column has one: README "ALTER TABLE ... ADD COLUMN".)
                ("attmissingval", TEXT_ARRAY),
            ],
            SystemRelation::Type => &[
                ("oid", Oid),
                ("typname", Text),
                ("typnamespace", Oid),
                ("typowner", Oid),
                ("typlen", Int2),
                ("typbyval", Bool),
                ("typtype", InternalChar),
                ("typcategory", InternalChar),
                ("typrelid", Oid),
                ("typelem", Oid),
                ("typarray", Oid),
                ("typnotnull", Bool),
                ("typbasetype", Oid),
                ("typtypmod", Int4),
                ("typcollation", Oid),
                ("typacl", TEXT_ARRAY),
                ("typdefault", Text),
            ],
            SystemRelation::Index => &[
                ("indexrelid", Oid),
                ("indrelid", Oid),
                ("indnatts", Int2),
                ("indnkeyatts", Int2),
                ("indisunique", Bool),
                ("indnullsnotdistinct", Bool),
                ("indisprimary", Bool),
                ("indisexclusion", Bool),
                ("indimmediate", Bool),
                ("indisclustered", Bool),
                ("indisvalid", Bool),
                ("indcheckxmin", Bool),
                ("indisready", Bool),
                ("indislive", Bool),
                ("indisreplident", Bool),
                ("indkey", Text),
                ("indclass", Text),
                ("indexprs", Text),
                ("indpred", Text),
            ],
            SystemRelation::Am => &[("oid", Oid), ("amname", Text), ("amtype", InternalChar)],
            SystemRelation::Database => &[
                ("oid", Oid),
                ("datname", Text),
                ("datdba", Oid),
                ("encoding", Int4),
                ("datlocprovider", InternalChar),
                ("datistemplate", Bool),
                ("datallowconn", Bool),
                ("datconnlimit", Int4),
                ("datfrozenxid", SqlType::Xid),
                ("datminmxid", SqlType::Xid),
                ("dattablespace", Oid),
                ("datcollate", Text),
                ("datctype", Text),
                ("daticulocale", Text),
                ("datcollversion", Text),
                ("datacl", TEXT_ARRAY),
            ],
            SystemRelation::Roles => &[
                ("rolname", Text),
                ("rolsuper", Bool),
                ("rolinherit", Bool),
                ("rolcreaterole", Bool),
                ("rolcreatedb", Bool),
                ("rolcanlogin", Bool),
                ("rolreplication", Bool),
                ("rolconnlimit", Int4),
                ("rolpassword", Text),
                ("rolvaliduntil", TimestampTz(None)),
                ("rolbypassrls", Bool),
                ("oid", Oid),
            ],
            SystemRelation::Authid => &[
                ("oid", Oid),
                ("rolname", Text),
                ("rolsuper", Bool),
                ("rolinherit", Bool),
                ("rolcreaterole", Bool),
                ("rolcreatedb", Bool),
                ("rolcanlogin", Bool),
                ("rolreplication", Bool),
                ("rolbypassrls", Bool),
                ("rolconnlimit", Int4),
                ("rolpassword", Text),
                ("rolvaliduntil", TimestampTz(None)),
            ],
            SystemRelation::User => &[
                ("usename", Text),
                ("usesysid", Oid),
                ("usecreatedb", Bool),
                ("usesuper", Bool),
                ("userepl", Bool),
                ("usebypassrls", Bool),
                ("passwd", Text),
                ("valuntil", TimestampTz(None)),
            ],
            SystemRelation::AuthMembers => &[
                ("roleid", Oid),
                ("member", Oid),
                ("grantor", Oid),
                ("admin_option", Bool),
            ],
            SystemRelation::Inherits => &[
                ("inhrelid", Oid),
                ("inhparent", Oid),
                ("inhseqno", Int4),
                ("inhdetachpending", Bool),
            ],
            SystemRelation::PartitionedTable => &[
                ("partrelid", Oid),
                ("partstrat", InternalChar),
                ("partnatts", Int2),
                ("partdefid", Oid),
            ],
            SystemRelation::Attrdef => &[
                ("oid", Oid),
                ("adrelid", Oid),
                ("adnum", Int2),
                ("adbin", Text),
            ],
            SystemRelation::Constraint => &[
                ("oid", Oid),
                ("conname", Text),
                ("connamespace", Oid),
                ("contype", InternalChar),
                ("condeferrable", Bool),
                ("condeferred", Bool),
                ("convalidated", Bool),
                ("conrelid", Oid),
                ("contypid", Oid),
                ("conindid", Oid),
                ("conparentid", Oid),
                ("confrelid", Oid),
                ("confupdtype", InternalChar),
                ("confdeltype", InternalChar),
                ("confmatchtype", InternalChar),
                ("conislocal", Bool),
                ("coninhcount", Int4),
                ("connoinherit", Bool),
                ("conkey", INT2_ARRAY),
                ("confkey", INT2_ARRAY),
                ("conbin", Text),
            ],
            SystemRelation::Policy => &[
                ("oid", Oid),
                ("polname", Text),
                ("polrelid", Oid),
                ("polcmd", InternalChar),
                ("polpermissive", Bool),
                ("polroles", OID_ARRAY),
                ("polqual", Text),
                ("polwithcheck", Text),
            ],
            SystemRelation::Policies => &[
                ("schemaname", Text),
                ("tablename", Text),
                ("policyname", Text),
                ("permissive", Text),
                ("roles", TEXT_ARRAY),
                ("cmd", Text),
                ("qual", Text),
                ("with_check", Text),
            ],
            // Empty: folio has no ALTER DEFAULT PRIVILEGES.
            SystemRelation::DefaultAcl => &[
                ("oid", Oid),
                ("defaclrole", Oid),
                ("defaclnamespace", Oid),
                ("defaclobjtype", InternalChar),
                ("defaclacl", TEXT_ARRAY),
            ],
            SystemRelation::StatisticExt => &[
                ("oid", Oid),
                ("stxrelid", Oid),
                ("stxname", Text),
                ("stxnamespace", Oid),
                ("stxowner", Oid),
                ("stxstattarget", Int4),
                ("stxkeys", INT2_ARRAY),
                ("stxkind", TEXT_ARRAY),
            ],
            SystemRelation::Publication => &[
                ("oid", Oid),
                ("pubname", Text),
                ("pubowner", Oid),
                ("puballtables", Bool),
                ("pubinsert", Bool),
                ("pubupdate", Bool),
                ("pubdelete", Bool),
                ("pubtruncate", Bool),
                ("pubviaroot", Bool),
            ],
            SystemRelation::PublicationNamespace => {
                &[("oid", Oid), ("pnpubid", Oid), ("pnnspid", Oid)]
            }
            SystemRelation::PublicationRel => &[
                ("oid", Oid),
                ("prpubid", Oid),
                ("prrelid", Oid),
                ("prqual", Text),
                ("prattrs", INT2_ARRAY),
            ],
            SystemRelation::Trigger => &[
                ("oid", Oid),
                ("tgrelid", Oid),
                ("tgparentid", Oid),
                ("tgname", Text),
                ("tgfoid", Oid),
                ("tgtype", Int2),
                ("tgenabled", InternalChar),
                ("tgisinternal", Bool),
                ("tgconstrrelid", Oid),
                ("tgconstrindid", Oid),
                ("tgconstraint", Oid),
                ("tgdeferrable", Bool),
                ("tginitdeferred", Bool),
                ("tgnargs", Int2),
                ("tgargs", SqlType::Bytea),
                ("tgoldtable", Text),
                ("tgnewtable", Text),
            ],
            SystemRelation::Description => &[
                ("objoid", Oid),
                ("classoid", Oid),
                ("objsubid", Int4),
                ("description", Text),
            ],
            SystemRelation::Collation => &[
                ("oid", Oid),
                ("collname", Text),
                ("collnamespace", Oid),
                ("collowner", Oid),
                ("collprovider", InternalChar),
                ("collisdeterministic", Bool),
                ("collencoding", Int4),
                ("collcollate", Text),
                ("collctype", Text),
                ("colliculocale", Text),
                ("collversion", Text),
            ],
            SystemRelation::Tables => &[
                ("schemaname", Text),
                ("tablename", Text),
                ("tableowner", Text),
                ("tablespace", Text),
                ("hasindexes", Bool),
                ("hasrules", Bool),
                ("hastriggers", Bool),
                ("rowsecurity", Bool),
            ],
            SystemRelation::Indexes => &[
                ("schemaname", Text),
                ("tablename", Text),
                ("indexname", Text),
                ("tablespace", Text),
                ("indexdef", Text),
            ],
            SystemRelation::Rules => &[
                ("schemaname", Text),
                ("tablename", Text),
                ("rulename", Text),
                ("definition", Text),
            ],
            SystemRelation::Rewrite => &[
                ("oid", Oid),
                ("rulename", Text),
                ("ev_class", Oid),
                ("ev_type", InternalChar),
                ("ev_enabled", InternalChar),
                ("is_instead", Bool),
                ("ev_qual", Text),
                ("ev_action", Text),
            ],
            SystemRelation::Views => &[
                ("schemaname", Text),
                ("viewname", Text),
                ("viewowner", Text),
                ("definition", Text),
            ],
            SystemRelation::Matviews => &[
                ("schemaname", Text),
                ("matviewname", Text),
                ("matviewowner", Text),
                ("tablespace", Text),
                ("hasindexes", Bool),
                ("ispopulated", Bool),
                ("definition", Text),
            ],
            SystemRelation::Sequences => &[
                ("schemaname", Text),
                ("sequencename", Text),
                ("sequenceowner", Text),
                ("data_type", Text),
                ("start_value", Int8),
                ("min_value", Int8),
                ("max_value", Int8),
                ("increment_by", Int8),
                ("cycle", Bool),
                ("cache_size", Int8),
            ],
            SystemRelation::Sequence => &[
                ("seqrelid", Oid),
                ("seqtypid", Oid),
                ("seqstart", Int8),
                ("seqincrement", Int8),
                ("seqmax", Int8),
                ("seqmin", Int8),
                ("seqcache", Int8),
                ("seqcycle", Bool),
            ],
            SystemRelation::Depend => &[
                ("classid", Oid),
                ("objid", Oid),
                ("objsubid", Int4),
                ("refclassid", Oid),
                ("refobjid", Oid),
                ("refobjsubid", Int4),
                ("deptype", InternalChar),
            ],
            SystemRelation::Proc => crate::system_proc::COLUMNS,
            SystemRelation::Cast => crate::system_cast::COLUMNS,
            SystemRelation::Operator => crate::system_operator::COLUMNS,
            SystemRelation::Extension => &[
                ("oid", Oid),
                ("extname", Text),
                ("extowner", Oid),
                ("extnamespace", Oid),
                ("extrelocatable", Bool),
                ("extversion", Text),
                ("extconfig", OID_ARRAY),
                ("extcondition", TEXT_ARRAY),
            ],
            // (`rngcanonical` and `rngsubdiff` are `regproc` in
            // PostgreSQL: a function's name as text here.)
            SystemRelation::Range => &[
                ("rngtypid", Oid),
                ("rngsubtype", Oid),
                ("rngmultitypid", Oid),
                ("rngcollation", Oid),
                ("rngsubopc", Oid),
                ("rngcanonical", Text),
                ("rngsubdiff", Text),
            ],
            SystemRelation::Enum => &[
                ("oid", Oid),
                ("enumtypid", Oid),
                ("enumsortorder", Float4),
                ("enumlabel", Text),
            ],
            SystemRelation::Language => &[
                ("oid", Oid),
                ("lanname", Text),
                ("lanowner", Oid),
                ("lanispl", Bool),
                ("lanpltrusted", Bool),
                ("lanplcallfoid", Oid),
                ("laninline", Oid),
                ("lanvalidator", Oid),
                ("lanacl", TEXT_ARRAY),
            ],
        }
    }

    /// Its rows as `txn` sees the catalog.
    pub fn rows(self, catalog: &Catalog, txn: &Transaction) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut out = Vec::new();
        match self {
            SystemRelation::Information(view) => return view.rows(catalog, txn),
            SystemRelation::Fixed(fixed) => return Ok(fixed.rows()),
            SystemRelation::StatActivity => {
                return Ok(crate::activity::stat_activity_rows(
                    txn.manager().backends(),
                ));
            }
            SystemRelation::Locks => {
                let mgr = txn.manager();
                let advisory = mgr.advisory().rows();
                return Ok(crate::activity::locks_rows(
                    mgr.backends(),
                    &mgr.table_locks(),
                    &advisory,
                ));
            }
            SystemRelation::StatTables(listed) => {
                // Every transaction that ended before counts (the
                // sessions' pending counts are published first).
                txn.manager().backends().publish_stats();
                let tables = catalog.tables(txn)?;
                let store = txn.manager().stats();
                return Ok(crate::stat_tables::table_rows(listed, &tables, store));
            }
            SystemRelation::StatDatabase => {
                let backends = txn.manager().backends();
                backends.publish_stats();
                let store = txn.manager().stats();
                let database = (DATABASE_OID as u64, "postgres");
                return Ok(crate::stat_database::rows(database, backends, store));
            }
            SystemRelation::Settings => return crate::setting_functions::pg_settings_rows(),
            SystemRelation::TimezoneNames => {
                return Ok(crate::time_zone_views::names_rows(
                    folio_row::calendar::now(),
                ));
            }
            SystemRelation::TimezoneAbbrevs => return Ok(crate::time_zone_views::abbrevs_rows()),
            SystemRelation::Cursors => return Ok(crate::cursors::pg_cursors_rows()),
            SystemRelation::PreparedStatements => return Ok(crate::prepared_listing::rows()),
            SystemRelation::PreparedXacts => {
                return Ok(crate::prepared_xacts::rows(txn.manager()));
            }
            SystemRelation::StatIndexes(listed) => {
                txn.manager().backends().publish_stats();
                let tables = catalog.tables(txn)?;
                let store = txn.manager().stats();
                return Ok(crate::stat_tables::index_rows(listed, &tables, store));
            }
            SystemRelation::Namespace => {
                // The ACLs PostgreSQL 15's initdb gives them.
                let acl = |owner: &str| {
                    Value::array(vec![
                        text(&format!("{owner}=UC/{owner}")),
                        text(&format!("=U/{owner}")),
                    ])
                };
                out.push(vec![
                    oid(CATALOG_NAMESPACE),
                    text("pg_catalog"),
                    oid(SUPERUSER_OID),
                    acl(crate::roles::SUPERUSER),
                ]);
                out.push(vec![
                    oid(PUBLIC_NAMESPACE),
                    text("public"),
                    oid(DATABASE_OWNER_OID),
                    acl("pg_database_owner"),
                ]);
                // The temporary namespaces that hold tables.
                let mut temp: Vec<u32> = catalog
                    .tables(txn)?
                    .iter()
                    .filter_map(|t| folio_catalog::split_temp_name(&t.name).map(|(n, _)| n))
                    .collect();
                temp.sort_unstable();
                temp.dedup();
                for n in temp {
                    out.push(vec![
                        oid(TEMP_NAMESPACE_BASE + i64::from(n)),
                        text(&folio_catalog::temp_schema(n)),
                        oid(SUPERUSER_OID),
                        Value::Null,
                    ]);
                }
                for schema in catalog.schemas(txn)? {
                    out.push(vec![
                        oid(schema.oid as i64),
                        text(&schema.name),
                        oid(SUPERUSER_OID),
                        Value::Null,
                    ]);
                }
            }
            SystemRelation::Class => {
                let spaces = Namespaces::read(catalog, txn)?;
                for relation in Self::all() {
                    out.push(system_class_row(relation));
                }
                let tables = catalog.tables(txn)?;
                let index_parents = crate::partitions::index_tree::parents(&tables);
                let with_partitions: std::collections::HashSet<u64> =
                    index_parents.values().copied().collect();
                for table in &tables {
                    out.push(table_class_row(&spaces, table, &tables));
                    let partitioned = table.partition_key().is_some();
                    for index in &table.indexes {
                        let mut row = index_class_row(&spaces, index, partitioned);
                        // relispartition
                        row[26] = Value::Bool(index_parents.contains_key(&index.oid));
                        // relhassubclass: a partitioned index with partitions.
                        row[21] = Value::Bool(with_partitions.contains(&index.oid));
                        out.push(row);
                    }
                }
                for sequence in catalog.sequences(txn)? {
                    out.push(sequence_class_row(&spaces, &sequence));
                }
                let reloptions = (self.columns().iter())
                    .position(|(name, _)| *name == "reloptions")
                    .expect("pg_class has reloptions");
                for view in catalog.views(txn)? {
                    let options = (view.options.iter())
                        .map(|(n, v)| Value::Text(format!("{n}={v}")))
                        .collect::<Vec<_>>();
                    out.push(class_row(ClassRow {
                        oid: view.oid as i64,
                        name: folio_catalog::unqualified(&view.name),
                        namespace: spaces.of(&view.name),
                        am: 0,
                        kind: "v",
                        columns: view.columns.len(),
                        checks: 0,
                        has_index: false,
                        has_triggers: false,
                        populated: true,
                    }));
                    if !options.is_empty() {
                        out.last_mut().expect("pushed")[reloptions] = Value::array(options);
                    }
                }
                let relacl = (self.columns().iter())
                    .position(|(name, _)| *name == "relacl")
                    .expect("pg_class has relacl");
                crate::privileges::class_rows(&mut out, 5, relacl)?;
                crate::row_security::class_rows(&mut out, 22)?;
            }
            SystemRelation::Attribute => {
                // The system relations' own columns (`\d pg_class`).
                for relation in ALL {
                    for (n, (name, ty)) in relation.columns().iter().enumerate() {
                        out.push(attribute_row(
                            relation.oid(),
                            n as i16 + 1,
                            name,
                            ty.oid(),
                            ty.typmod(),
                            false,
                            false,
                            "",
                        ));
                    }
                }
                let sequences = catalog.sequences(txn)?;
                let tables = catalog.tables(txn)?;
                let at = |name: &str| {
                    (self.columns().iter())
                        .position(|(n, _)| *n == name)
                        .expect("a pg_attribute column")
                };
                for table in &tables {
                    let parents = crate::inheritance::counts::parents_among(table, &tables);
                    for (n, column) in table.columns.iter().enumerate() {
                        let identity = match identity(&sequences, table, n) {
                            Some(s) if s.always => "a",
                            Some(_) => "d",
                            None => "",
                        };
                        let generated = table.generated_of(n).is_some();
                        let mut row = attribute_row(
                            table.oid as i64,
                            table.layout.attnum(n),
                            &column.name,
                            column.type_oid,
                            column.typmod,
                            column.not_null,
                            default_shown(&sequences, table, n).is_some() || generated,
                            identity,
                        );
                        // attcollation: its COLLATE clause's, else its type's.
                        row[16] = oid(i64::from(crate::collations::of_column(column)));
                        if generated {
                            // attgenerated: stored.
                            row[12] = text("s");
                        }
                        let count = crate::inheritance::counts::column_count(
                            parents.iter().copied(),
                            &column.name,
                        );
                        row[at("attislocal")] = Value::Bool(column.local);
                        row[at("attinhcount")] = Value::Int4(i32::from(count));
                        out.push(row);
                    }
                    for dropped in table.layout.dropped() {
                        out.push(dropped_attribute_row(table.oid as i64, dropped));
                    }
                    for index in &table.indexes {
                        let columns = crate::index_exprs::index_columns(table, index);
                        out.extend(plain_attribute_rows(index.oid, columns.iter()));
                    }
                }
                for view in catalog.views(txn)? {
                    out.extend(plain_attribute_rows(view.oid, view.columns.iter()));
                }
            }
            SystemRelation::Type => {
                for &(type_oid, name, len, by_value, category, array, _) in TYPES {
                    out.push(
                        TypeRow {
                            len,
                            by_value,
                            category,
                            array,
                            ..TypeRow::new(type_oid, name.into(), CATALOG_NAMESPACE, "b")
                        }
                        .row(),
                    );
                }
                // The range types (typtype `r`) and their arrays.
                for kind in RangeKind::ALL {
                    let row = TypeRow::new(
                        kind.oid().into(),
                        kind.name().into(),
                        CATALOG_NAMESPACE,
                        "r",
                    );
                    out.extend(row.with_array(kind.array_oid().into()));
                }
                // Their multirange types (typtype `m`) and their arrays.
                for kind in RangeKind::ALL {
                    let row = TypeRow::new(
                        kind.multirange_oid().into(),
                        kind.multirange_name().into(),
                        CATALOG_NAMESPACE,
                        "m",
                    );
                    out.extend(row.with_array(kind.multirange_array_oid().into()));
                }
                // The enum types, in `public` (PostgreSQL's typlen 4: the
                // oid it stores; folio stores the 8-byte sort order).
                for def in catalog.enum_types(txn)? {
                    let row = TypeRow {
                        len: 4,
                        by_value: true,
                        ..TypeRow::new(def.oid.into(), def.name.clone(), PUBLIC_NAMESPACE, "e")
                    };
                    out.extend(row.with_array(def.array_oid.into()));
                }
                // The composite types, in `public` (no `pg_class` row:
                // typrelid 0).
                for def in crate::user_types::composites().iter() {
                    let row = TypeRow::new(def.oid.into(), def.name.clone(), PUBLIC_NAMESPACE, "c");
                    out.extend(row.with_array(def.array_oid.into()));
                }
                // The row types of tables, views and materialized views,
                // in their relation's namespace: typrelid the relation,
                // whose oid the type shares (no array type).
                let namespaces = Namespaces::read(catalog, txn)?;
                for (stored, def) in crate::user_types::relation_types().iter() {
                    let namespace = namespaces.of(stored);
                    let row = TypeRow {
                        relid: def.oid.into(),
                        ..TypeRow::new(def.oid.into(), def.name.clone(), namespace, "c")
                    };
                    out.push(row.row());
                }
                // The domains, in `public`, with their base type's storage.
                for def in crate::user_types::domains().iter() {
                    let base = TYPES.iter().find(|t| t.0 == i64::from(def.base_oid));
                    let (len, by_value, category) =
                        base.map_or((-1, false, "U"), |t| (t.2, t.3, t.4));
                    let row = TypeRow {
                        len,
                        by_value,
                        category,
                        not_null: def.not_null,
                        base: match def.parent {
                            0 => def.base_oid.into(),
                            parent => parent.into(),
                        },
                        typmod: def.base_typmod,
                        default: def.default.as_deref().map_or(Value::Null, text),
                        ..TypeRow::new(def.oid.into(), def.name.clone(), PUBLIC_NAMESPACE, "d")
                    };
                    // Its array type (`_d`), when it has one.
                    let mut rows = match def.array_oid {
                        0 => vec![row.row()],
                        array => row.with_array(array.into()).to_vec(),
                    };
                    // typcollation: its COLLATE clause's.
                    if let Some(collation) = def.collation {
                        rows[0][14] = oid(i64::from(collation));
                    }
                    out.extend(rows);
                }
            }

            SystemRelation::Enum => {
                for def in catalog.enum_types(txn)? {
                    for label in &def.labels {
                        out.push(vec![
                            oid(label.oid.into()),
                            oid(def.oid.into()),
                            Value::Float4(label.sort as f32),
                            text(&label.name),
                        ]);
                    }
                }
            }
            SystemRelation::Index => {
                for table in catalog.tables(txn)? {
                    for index in &table.indexes {
                        // (An expression's key is 0, as PostgreSQL's;
                        // included columns follow the keys.)
                        let key: Vec<String> = (index.columns.iter())
                            .chain(index.include())
                            .map(|&c| match c {
                                IndexDef::EXPRESSION => "0".into(),
                                c => table.layout.attnum(usize::from(c)).to_string(),
                            })
                            .collect();
                        // The key columns' operator classes (their types'
                        // defaults; included columns have none).
                        let mut expression_types = index.exprs.keys.iter();
                        let classes: Vec<String> = (index.columns.iter())
                            .map(|&c| {
                                let ty = match c {
                                    IndexDef::EXPRESSION => {
                                        expression_types.next().and_then(|k| k.ty().ok())
                                    }
                                    c => table.column_type(usize::from(c)),
                                };
                                ty.map_or(0, default_btree_opclass).to_string()
                            })
                            .collect();
                        let expressions = (!index.exprs.keys.is_empty()).then(|| {
                            let texts = index.exprs.keys.iter().map(|k| k.sql.as_str());
                            text(&texts.collect::<Vec<_>>().join(", "))
                        });
                        let width = index.columns.len() + index.include().len();
                        out.push(vec![
                            oid(index.oid as i64),
                            oid(table.oid as i64),
                            Value::Int2(width as i16),
                            Value::Int2(index.columns.len() as i16),
                            Value::Bool(index.unique),
                            Value::Bool(index.nulls == folio_catalog::Nulls::NotDistinct),
                            Value::Bool(index.primary),
                            Value::Bool(false),
                            Value::Bool(!index.deferrable.is_deferrable()),
                            Value::Bool(index.clustered),
                            Value::Bool(true),
                            Value::Bool(false),
                            Value::Bool(true),
                            Value::Bool(true),
                            Value::Bool(false),
                            text(&key.join(" ")),
                            text(&classes.join(" ")),
                            expressions.unwrap_or(Value::Null),
                            index.exprs.predicate.as_deref().map_or(Value::Null, text),
                        ]);
                    }
                }
            }
            SystemRelation::Am => {
                out.push(vec![oid(HEAP_AM), text("heap"), text("t")]);
                out.push(vec![oid(BTREE_AM), text("btree"), text("i")]);
            }
            SystemRelation::Database => out.push(vec![
                oid(DATABASE_OID),
                text("postgres"),
                oid(SUPERUSER_OID),
                Value::Int4(UTF8),
                text("c"),
                Value::Bool(false),
                Value::Bool(true),
                Value::Int4(-1),
                Value::Xid(0),
                Value::Xid(1),
                oid(crate::system_fixed::DEFAULT_TABLESPACE),
                // Collation and character type: C.UTF-8's code-point
                // order is folio's byte order of UTF-8 text, and its case
                // mapping is `case_mapping.rs`'s.
                text("C.UTF-8"),
                text("C.UTF-8"),
                Value::Null,
                Value::Null,
                Value::Null,
            ]),
            SystemRelation::Roles | SystemRelation::Authid => {
                let authid = self == SystemRelation::Authid;
                if authid {
                    crate::privileges::check_superuser_read("pg_authid")?;
                }
                for role in crate::roles::scoped_roles()? {
                    let password = match authid {
                        true => crate::roles::scoped_database()
                            .map(|db| crate::roles::password(&db, &role.name))
                            .transpose()?
                            .flatten()
                            .map_or(Value::Null, |v| text(&v.text())),
                        false => text("********"),
                    };
                    let mut row = vec![
                        text(&role.name),
                        Value::Bool(role.superuser),
                        Value::Bool(role.inherit),
                        Value::Bool(role.createrole),
                        Value::Bool(role.createdb),
                        Value::Bool(role.login),
                        Value::Bool(role.oid == crate::roles::SUPERUSER_OID),
                        Value::Int4(-1),
                        password,
                        Value::Null,
                        Value::Bool(role.bypassrls),
                        oid(i64::from(role.oid)),
                    ];
                    if authid {
                        // pg_authid: oid first, rolbypassrls before
                        // rolconnlimit.
                        let oid = row.pop().expect("oid");
                        let bypass = row.remove(10);
                        row.insert(7, bypass);
                        row.insert(0, oid);
                    }
                    out.push(row);
                }
            }
            SystemRelation::User => {
                for role in crate::roles::scoped_roles()? {
                    if !role.login {
                        continue;
                    }
                    let bootstrap = role.oid == crate::roles::SUPERUSER_OID;
                    out.push(vec![
                        text(&role.name),
                        oid(i64::from(role.oid)),
                        Value::Bool(role.createdb),
                        Value::Bool(role.superuser),
                        Value::Bool(bootstrap),
                        Value::Bool(bootstrap),
                        text("********"),
                        Value::Null,
                    ]);
                }
            }
            SystemRelation::Constraint => {
                let tables = catalog.tables(txn)?;
                for table in &tables {
                    constraint_rows(table, &tables, &mut out);
                }
                // Each domain's CHECKs (`contypid`, no table).
                for def in crate::user_types::domains().iter() {
                    for check in &def.checks {
                        out.push(vec![
                            oid(check.oid.into()),
                            text(&check.name),
                            oid(PUBLIC_NAMESPACE),
                            text("c"),
                            Value::Bool(false),
                            Value::Bool(false),
                            Value::Bool(check.validated),
                            oid(0),
                            oid(def.oid.into()),
                            oid(0),
                            oid(0),
                            oid(0),
                            text(" "),
                            text(" "),
                            text(" "),
                            Value::Bool(true),
                            Value::Int4(0),
                            Value::Bool(false),
                            Value::Null,
                            Value::Null,
                            text(&check.expr),
                        ]);
                    }
                }
            }
            // Partitions of tables, and of indexes (`index_tree.rs`).
            SystemRelation::Inherits => {
                let tables = catalog.tables(txn)?;
                let table_parents = (tables.iter())
                    .filter_map(|t| t.partition_of().map(|(parent, _)| (t.oid, parent, 1)));
                // Inheritance parents, `inhseqno` their place in the list.
                let inherits = (tables.iter()).flat_map(|t| {
                    (t.parents().into_iter().enumerate())
                        .map(|(n, (parent, _))| (t.oid, parent, n as i32 + 1))
                });
                let mut index_parents: Vec<(u64, u64, i32)> =
                    crate::partitions::index_tree::parents(&tables)
                        .into_iter()
                        .map(|(child, parent)| (child, parent, 1))
                        .collect();
                index_parents.sort_unstable();
                for (child, parent, seqno) in table_parents.chain(inherits).chain(index_parents) {
                    out.push(vec![
                        oid(child as i64),
                        oid(parent as i64),
                        Value::Int4(seqno),
                        Value::Bool(false),
                    ]);
                }
            }
            SystemRelation::PartitionedTable => {
                let tables = catalog.tables(txn)?;
                for table in &tables {
                    if let Some((strategy, columns)) = table.partition_key() {
                        let default = (tables.iter())
                            .find(|t| t.partition_of() == Some((table.oid, "DEFAULT")))
                            .map_or(0, |t| t.oid as i64);
                        out.push(vec![
                            oid(table.oid as i64),
                            text(&(strategy as char).to_string()),
                            Value::Int2(columns.len() as i16),
                            oid(default),
                        ]);
                    }
                }
            }
            SystemRelation::Policy | SystemRelation::Policies => {
                let tables: std::collections::HashMap<u64, String> = (catalog.tables(txn)?)
                    .into_iter()
                    .map(|t| (t.oid, t.name.clone()))
                    .collect();
                crate::row_security::catalog_rows(
                    &tables,
                    self == SystemRelation::Policies,
                    &mut out,
                )?;
            }
            SystemRelation::DefaultAcl
            | SystemRelation::StatisticExt
            | SystemRelation::Publication
            | SystemRelation::PublicationNamespace
            | SystemRelation::PublicationRel => {}
            SystemRelation::AuthMembers => crate::memberships::catalog_rows(&mut out)?,
            SystemRelation::Range => {
                for kind in RangeKind::ALL {
                    let element = kind.element();
                    let name = |suffix: &str| match suffix {
                        "canonical" if !kind.is_discrete() => text("-"),
                        suffix => text(&format!("{}_{suffix}", kind.name())),
                    };
                    out.push(vec![
                        oid(kind.oid().into()),
                        oid(element.oid().into()),
                        oid(kind.multirange_oid().into()),
                        oid(0),
                        oid(default_btree_opclass(element)),
                        name("canonical"),
                        name("subdiff"),
                    ]);
                }
            }
            SystemRelation::Extension => out.extend(crate::extensions::rows(catalog, txn)?),
            SystemRelation::Trigger => {
                // (Not the row standing for the foreign keys' triggers.)
                for t in crate::triggers::in_scope()
                    .iter()
                    .filter(|t| !t.is_internal())
                {
                    out.push(trigger_row(t));
                }
            }
            SystemRelation::Description => {
                for d in catalog.descriptions(txn)? {
                    let (kind, objoid, subid) = crate::lookups::description_key(&d);
                    let class = match kind {
                        'c' => SystemRelation::Constraint.oid(),
                        _ => SystemRelation::Class.oid(),
                    };
                    out.push(vec![
                        oid(objoid),
                        oid(class),
                        Value::Int4(subid as i32),
                        text(&d.text),
                    ]);
                }
                for (objoid, comment) in crate::extensions::comments(catalog, txn)? {
                    let class = SystemRelation::Extension.oid();
                    out.push(vec![oid(objoid), oid(class), Value::Int4(0), text(comment)]);
                }
                for (relation, objoid, comment) in crate::comments::BUILTIN {
                    let Some(class) = Self::all().find(|r| r.name() == relation) else {
                        continue;
                    };
                    // (A database's is a shared object's: `pg_shdescription`.)
                    if class != SystemRelation::Database {
                        out.push(vec![
                            oid(objoid),
                            oid(class.oid()),
                            Value::Int4(0),
                            text(comment),
                        ]);
                    }
                }
            }
            SystemRelation::Rules => {
                let rules = crate::rules::in_scope();
                if !rules.is_empty() {
                    let mut names: Vec<(u64, String)> = (catalog.tables(txn)?.into_iter())
                        .map(|t| (t.oid, t.name))
                        .collect();
                    names.extend(catalog.views(txn)?.into_iter().map(|v| (v.oid, v.name)));
                    for rule in rules.iter() {
                        let Some((_, name)) = names.iter().find(|(o, _)| *o == rule.relation)
                        else {
                            continue;
                        };
                        let (schema, bare) = folio_catalog::split_schema(name);
                        out.push(vec![
                            text(schema),
                            text(bare),
                            text(&rule.name),
                            text(&crate::rule_statements::definition(rule, name, false)),
                        ]);
                    }
                }
            }
            SystemRelation::Rewrite => {
                for rule in crate::rules::in_scope().iter() {
                    out.push(crate::rule_statements::rewrite_row(rule));
                }
            }
            SystemRelation::Views => {
                for view in catalog.views(txn)? {
                    let (schema, name) = folio_catalog::split_schema(&view.name);
                    out.push(vec![
                        text(schema),
                        text(name),
                        text(crate::roles::SUPERUSER),
                        text(&view_definition(catalog, txn, view.oid)?),
                    ]);
                }
            }
            SystemRelation::Matviews => {
                for table in catalog.tables(txn)? {
                    let Some(matview) = &table.matview else {
                        continue;
                    };
                    let (schema, name) = folio_catalog::split_schema(&table.name);
                    out.push(vec![
                        text(schema),
                        text(name),
                        text(crate::roles::SUPERUSER),
                        Value::Null,
                        Value::Bool(!table.indexes.is_empty()),
                        Value::Bool(matview.populated),
                        text(&view_definition(catalog, txn, table.oid)?),
                    ]);
                }
            }
            SystemRelation::Proc => {
                out = crate::system_proc::rows();
                let schemas = catalog.schemas(txn)?;
                for def in catalog.functions(txn)? {
                    let schema = folio_catalog::split_schema(&def.name).0;
                    let namespace = (schemas.iter().find(|s| s.name == schema))
                        .map_or(folio_catalog::PUBLIC_OID, |s| s.oid);
                    out.push(crate::system_proc::user_row(&def, namespace as i64));
                }
            }
            SystemRelation::Language => {
                use crate::system_proc::{INTERNAL_LANGUAGE, PLPGSQL_LANGUAGE, SQL_LANGUAGE};
                out.push(language_row(
                    INTERNAL_LANGUAGE,
                    "internal",
                    false,
                    false,
                    [0; 3],
                ));
                // User-defined SQL functions' (`sql_functions.rs`).
                out.push(language_row(SQL_LANGUAGE, "sql", false, true, [0, 0, 2248]));
                // User-defined PL/pgSQL functions' (`plpgsql/`). folio
                // runs the language itself: its handler, inline handler
                // and validator are PostgreSQL 15's oids for them, which
                // `pg_proc` does not list (psql's `\dL` lists the
                // languages with a handler).
                let handlers = [13560, 13561, 13562];
                out.push(language_row(
                    PLPGSQL_LANGUAGE,
                    "plpgsql",
                    true,
                    true,
                    handlers,
                ));
            }
            SystemRelation::Cast => out = crate::system_cast::rows(),
            SystemRelation::Operator => out = crate::system_operator::rows(),
            SystemRelation::Sequence => {
                for sequence in catalog.sequences(txn)? {
                    let o = &sequence.options;
                    out.push(vec![
                        oid(sequence.oid as i64),
                        oid(i64::from(o.type_oid)),
                        Value::Int8(o.start),
                        Value::Int8(o.increment),
                        Value::Int8(o.max),
                        Value::Int8(o.min),
                        Value::Int8(o.cache),
                        Value::Bool(o.cycle),
                    ]);
                }
            }
            SystemRelation::Depend => {
                let tables = catalog.tables(txn)?;
                for sequence in catalog.sequences(txn)? {
                    let Some((owner, column)) = sequence.owner else {
                        continue;
                    };
                    let Some(table) = tables.iter().find(|t| t.oid == owner) else {
                        continue;
                    };
                    let class = SystemRelation::Class.oid();
                    out.push(vec![
                        oid(class),
                        oid(sequence.oid as i64),
                        Value::Int4(0),
                        oid(class),
                        oid(table.oid as i64),
                        Value::Int4(i32::from(table.layout.attnum(usize::from(column)))),
                        text(if sequence.identity { "i" } else { "a" }),
                    ]);
                }
            }
            SystemRelation::Attrdef => {
                let sequences = catalog.sequences(txn)?;
                for table in catalog.tables(txn)? {
                    for constraint in &table.constraints {
                        // A generated column's expression is its
                        // pg_attrdef row too, as PostgreSQL keeps it.
                        if let ConstraintKind::Default { column, expr }
                        | ConstraintKind::Generated { column, expr } = &constraint.kind
                            && identity(&sequences, &table, usize::from(*column)).is_none()
                        {
                            // PostgreSQL's adbin is an analyzed
                            // expression; this is its printed form.
                            let ty = table
                                .columns
                                .get(usize::from(*column))
                                .and_then(|c| crate::user_types::of_oid(c.type_oid, c.typmod));
                            let printed = match ty {
                                Some(ty) => crate::deparse::default_text(expr, ty),
                                None => expr.clone(),
                            };
                            out.push(vec![
                                oid(constraint.oid as i64),
                                oid(table.oid as i64),
                                Value::Int2(table.layout.attnum(usize::from(*column))),
                                text(&printed),
                            ]);
                        }
                    }
                }
            }
            SystemRelation::Collation => {
                for (collation, name, provider, locale) in crate::collations::ALL {
                    let locale = locale.map_or(Value::Null, text);
                    out.push(vec![
                        oid(i64::from(collation)),
                        text(name),
                        oid(CATALOG_NAMESPACE),
                        oid(SUPERUSER_OID),
                        text(provider),
                        Value::Bool(true),
                        Value::Int4(-1),
                        locale.clone(),
                        locale,
                        Value::Null,
                        Value::Null,
                    ]);
                }
            }
            SystemRelation::Tables => {
                let tables = catalog.tables(txn)?;
                for table in &tables {
                    if table.matview.is_some() {
                        continue;
                    }
                    let (schema, name) = folio_catalog::split_schema(&table.name);
                    out.push(vec![
                        text(schema),
                        text(name),
                        text(crate::roles::SUPERUSER),
                        Value::Null,
                        Value::Bool(!table.indexes.is_empty()),
                        Value::Bool(
                            crate::rules::in_scope()
                                .iter()
                                .any(|r| r.relation == table.oid),
                        ),
                        Value::Bool(has_triggers(table, &tables)),
                        Value::Bool(false),
                    ]);
                }
                for relation in ALL.into_iter().filter(|r| !r.oid_and_view().1) {
                    out.push(vec![
                        text("pg_catalog"),
                        text(relation.name()),
                        text(crate::roles::SUPERUSER),
                        Value::Null,
                        Value::Bool(false),
                        Value::Bool(false),
                        Value::Bool(false),
                        Value::Bool(false),
                    ]);
                }
            }
            SystemRelation::Indexes => {
                for table in catalog.tables(txn)? {
                    for index in &table.indexes {
                        let (schema, name) = folio_catalog::split_schema(&table.name);
                        out.push(vec![
                            text(schema),
                            text(name),
                            text(folio_catalog::unqualified(&index.name)),
                            Value::Null,
                            text(&index_definition(&table, index, false)),
                        ]);
                    }
                }
            }
            SystemRelation::Sequences => {
                for sequence in catalog.sequences(txn)? {
                    let o = &sequence.options;
                    let (schema, name) = folio_catalog::split_schema(&sequence.name);
                    out.push(vec![
                        text(schema),
                        text(name),
                        text(crate::roles::SUPERUSER),
                        text(&crate::catalog_functions::type_name(
                            i64::from(o.type_oid),
                            -1,
                        )),
                        Value::Int8(o.start),
                        Value::Int8(o.min),
                        Value::Int8(o.max),
                        Value::Int8(o.increment),
                        Value::Bool(o.cycle),
                        Value::Int8(o.cache),
                    ]);
                }
            }
        }
        debug_assert!(
            out.iter().all(|row| typed_as(row, self.columns())),
            "a {} row not of its columns' types",
            self.name()
        );
        Ok(out)
    }
}

/// Whether `row` has a value of each column's type (or NULL).
fn typed_as(row: &[Value], columns: Columns) -> bool {
    row.len() == columns.len() && row.iter().zip(columns).all(|(v, (_, ty))| v.matches(*ty))
}

/// The types folio has: `(oid, name, length, by value, category, array
/// type's oid, storage)`, as PostgreSQL's `pg_type` rows have them
/// (storage: `p` plain, `x` extended, `m` main).
const TYPES: &[(i64, &str, i16, bool, &str, i64, &str)] = &[
    (16, "bool", 1, true, "B", 1000, "p"),
    (17, "bytea", -1, false, "U", 1001, "x"),
    (20, "int8", 8, true, "N", 1016, "p"),
    (18, "char", 1, true, "Z", 1002, "p"),
    (19, "name", 64, false, "S", 1003, "p"),
    (21, "int2", 2, true, "N", 1005, "p"),
    (23, "int4", 4, true, "N", 1007, "p"),
    (25, "text", -1, false, "S", 1009, "x"),
    (26, "oid", 4, true, "N", 1028, "p"),
    (700, "float4", 4, true, "N", 1021, "p"),
    (701, "float8", 8, true, "N", 1022, "p"),
    (1042, "bpchar", -1, false, "S", 1014, "x"),
    (1043, "varchar", -1, false, "S", 1015, "x"),
    (1082, "date", 4, true, "D", 1182, "p"),
    (1114, "timestamp", 8, true, "D", 1115, "p"),
    (1184, "timestamptz", 8, true, "D", 1185, "p"),
    (1083, "time", 8, true, "D", 1183, "p"),
    (1266, "timetz", 12, false, "D", 1270, "p"),
    (1700, "numeric", -1, false, "N", 1231, "m"),
    (2950, "uuid", 16, false, "U", 2951, "p"),
    (1186, "interval", 16, false, "T", 1187, "p"),
    (114, "json", -1, false, "U", 199, "x"),
    (3802, "jsonb", -1, false, "U", 3807, "x"),
    (4072, "jsonpath", -1, false, "U", 4073, "x"),
    (1790, "refcursor", -1, false, "U", 2201, "x"),
    (3220, "pg_lsn", 8, true, "U", 3221, "p"),
    (790, "money", 8, true, "N", 791, "p"),
    (5069, "xid8", 8, true, "U", 271, "p"),
    (5038, "pg_snapshot", -1, false, "U", 5039, "x"),
    (2970, "txid_snapshot", -1, false, "U", 2949, "x"),
    (869, "inet", -1, false, "I", 1041, "m"),
    (650, "cidr", -1, false, "I", 651, "m"),
    (829, "macaddr", 6, false, "U", 1040, "p"),
    (774, "macaddr8", 8, false, "U", 775, "p"),
    (3614, "tsvector", -1, false, "U", 3643, "x"),
    (3615, "tsquery", -1, false, "U", 3645, "x"),
    (1560, "bit", -1, false, "V", 1561, "x"),
    (1562, "varbit", -1, false, "V", 1563, "x"),
    (600, "point", 16, false, "G", 1017, "p"),
    (601, "lseg", 32, false, "G", 1018, "p"),
    (602, "path", -1, false, "G", 1019, "x"),
    (603, "box", 32, false, "G", 1020, "p"),
    (604, "polygon", -1, false, "G", 1027, "x"),
    (628, "line", 24, false, "G", 629, "p"),
    (718, "circle", 24, false, "G", 719, "p"),
];

/// A `pg_type` row: what differs between folio's kinds of types, the
/// rest as PostgreSQL has it for all of them.
struct TypeRow {
    oid: i64,
    name: String,
    namespace: i64,
    len: i16,
    by_value: bool,
    typtype: &'static str,
    category: &'static str,
    elem: i64,
    array: i64,
    not_null: bool,
    base: i64,
    typmod: i32,
    default: Value,
    /// A relation's row type's relation (`typrelid`), else 0.
    relid: i64,
}

impl TypeRow {
    /// A varlena type of kind `typtype` (`b` base, `r` range, `m`
    /// multirange, `e` enum,
    /// `c` composite, `d` domain) with PostgreSQL's category of that kind.
    fn new(oid: i64, name: String, namespace: i64, typtype: &'static str) -> TypeRow {
        TypeRow {
            oid,
            name,
            namespace,
            len: -1,
            by_value: false,
            typtype,
            category: match typtype {
                "r" | "m" => "R",
                "e" => "E",
                "c" => "C",
                _ => "U",
            },
            elem: 0,
            array: 0,
            not_null: false,
            base: 0,
            typmod: -1,
            default: Value::Null,
            relid: 0,
        }
    }

    /// This type's row, naming `array` as its array type, followed by
    /// the row of that array type (`_name`, in the same namespace).
    fn with_array(self, array: i64) -> [Vec<Value>; 2] {
        let array_row = TypeRow {
            category: "A",
            elem: self.oid,
            ..TypeRow::new(array, format!("_{}", self.name), self.namespace, "b")
        };
        [TypeRow { array, ..self }.row(), array_row.row()]
    }

    /// The row, in `pg_type`'s column order (a string type's collation
    /// is the default one).
    fn row(self) -> Vec<Value> {
        let collation = match self.category {
            "S" => DEFAULT_COLLATION,
            _ => 0,
        };
        vec![
            oid(self.oid),
            text(&self.name),
            oid(self.namespace),
            oid(SUPERUSER_OID),
            Value::Int2(self.len),
            Value::Bool(self.by_value),
            text(self.typtype),
            text(self.category),
            oid(self.relid),
            oid(self.elem),
            oid(self.array),
            Value::Bool(self.not_null),
            oid(self.base),
            Value::Int4(self.typmod),
            oid(collation),
            Value::Null,
            self.default,
        ]
    }
}

/// PostgreSQL's oid of the default btree operator class of a type
/// (`pg_range.rngsubopc` of a range type's element type,
/// `pg_index.indclass`; folio has no `pg_opclass`), 0 where PostgreSQL's
/// oid is one initdb assigns.
fn default_btree_opclass(element: SqlType) -> i64 {
    match element {
        SqlType::Int2 => 1979,
        SqlType::Int4 => 1978,
        SqlType::Float8 => 3123,
        SqlType::Text => 3126,
        SqlType::Int8 => 3124,
        SqlType::Numeric(_) => 3125,
        SqlType::Date => 3122,
        SqlType::Timestamp(_) => 3128,
        SqlType::TimestampTz(_) => 3127,
        _ => 0,
    }
}

/// A `pg_language` row: oid, name, owner, whether it is a procedural
/// language and trusted, its handler, inline handler and validator.
fn language_row(
    language: i64,
    name: &str,
    pl: bool,
    trusted: bool,
    handlers: [i64; 3],
) -> Vec<Value> {
    let [handler, inline, validator] = handlers;
    vec![
        oid(language),
        text(name),
        oid(SUPERUSER_OID),
        Value::Bool(pl),
        Value::Bool(trusted),
        oid(handler),
        oid(inline),
        oid(validator),
        Value::Null,
    ]
}

fn oid(n: i64) -> Value {
    crate::catalog_functions::oid_value(n)
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// A trigger's `pg_trigger` row (`tgargs`: each argument followed by a
/// NUL byte, as PostgreSQL stores them).
fn trigger_row(t: &folio_catalog::TriggerDef) -> Vec<Value> {
    let oid = |n: u64| Value::Oid(u32::try_from(n).unwrap_or(u32::MAX));
    let mut args = Vec::new();
    for a in &t.args {
        args.extend_from_slice(a.as_bytes());
        args.push(0);
    }
    vec![
        oid(t.oid),
        oid(t.table),
        oid(t.parent),
        text(&t.name),
        oid(t.function),
        Value::Int2(t.kind as i16),
        Value::Text(char::from(t.enabled.letter()).to_string()),
        Value::Bool(false),
        oid(0),
        oid(0),
        oid(0),
        Value::Bool(false),
        Value::Bool(false),
        Value::Int2(i16::try_from(t.args.len()).unwrap_or(i16::MAX)),
        Value::Bytea(args),
        t.old_table.as_deref().map_or(Value::Null, text),
        t.new_table.as_deref().map_or(Value::Null, text),
    ]
}

/// `relhastriggers`: whether the table has triggers, or a foreign key
/// references it or is its own, or one of its partition ancestors' (of
/// `tables`: a partition checks its ancestors' keys). PostgreSQL makes a
/// foreign key's checks internal triggers (folio's `pg_trigger` lists the
/// user's only), and psql's `\d` lists a table's foreign keys only when
/// this is set.
fn has_triggers(table: &TableDef, tables: &[TableDef]) -> bool {
    let has_keys = |t: &TableDef| {
        !t.referenced_by.is_empty()
            || (t.constraints.iter()).any(|c| matches!(c.kind, ConstraintKind::ForeignKey(_)))
    };
    if crate::triggers::in_scope()
        .iter()
        .any(|t| t.table == table.oid)
        || has_keys(table)
    {
        return true;
    }
    let mut at = table;
    for _ in 0..tables.len() {
        let Some((parent, _)) = at.partition_of() else {
            return false;
        };
        let Some(parent) = tables.iter().find(|t| t.oid == parent) else {
            return false;
        };
        if has_keys(parent) {
            return true;
        }
        at = parent;
    }
    false
}

/// A table's `pg_constraint` rows: its PRIMARY KEY and UNIQUE
/// constraints (their index's oid and name), CHECKs and foreign keys.
fn constraint_rows(table: &TableDef, tables: &[TableDef], out: &mut Vec<Vec<Value>>) {
    // PostgreSQL's attnums of columns of `of`.
    let numbers = |of: &TableDef, columns: &[u16]| {
        Value::Array(
            (columns.iter())
                .map(|&c| Value::Int2(of.layout.attnum(usize::from(c))))
                .collect(),
        )
    };
    let row = |id: u64, name: &str, kind: &str| {
        vec![
            oid(id as i64),
            text(name),
            oid(PUBLIC_NAMESPACE),
            text(kind),
            Value::Bool(false),
            Value::Bool(false),
            Value::Bool(true),
            oid(table.oid as i64),
            oid(0),
            oid(0),
            oid(0),
            oid(0),
            text(" "),
            text(" "),
            text(" "),
            Value::Bool(true),
            Value::Int4(0),
            Value::Bool(false),
            Value::Null,
            Value::Null,
            Value::Null,
        ]
    };
    for index in table.indexes.iter().filter(|i| i.constraint) {
        let mut r = row(
            index.oid,
            &index.name,
            if index.primary { "p" } else { "u" },
        );
        r[4] = Value::Bool(index.deferrable.is_deferrable());
        r[5] = Value::Bool(index.deferrable.initially_deferred());
        r[9] = oid(index.oid as i64);
        r[18] = numbers(table, &index.columns);
        out.push(r);
    }
    for constraint in &table.constraints {
        match &constraint.kind {
            ConstraintKind::Default { .. }
            | ConstraintKind::Generated { .. }
            | ConstraintKind::Partition(_) => {}
            ConstraintKind::Check { expr } => {
                let mut r = row(constraint.oid, &constraint.name, "c");
                r[6] = Value::Bool(constraint.validated);
                let parents = crate::inheritance::counts::parents_among(table, tables);
                let count = crate::inheritance::counts::check_count(parents, &constraint.name);
                r[15] = Value::Bool(constraint.local);
                r[16] = Value::Int4(i32::from(count));
                r[17] = Value::Bool(constraint.no_inherit);
                r[20] = text(expr);
                out.push(r);
            }
            ConstraintKind::ForeignKey(fk) => {
                let action = |a: folio_catalog::RefAction| text(&a.pg_code().to_string());
                let mut r = row(constraint.oid, &constraint.name, "f");
                r[4] = Value::Bool(constraint.deferrable.is_deferrable());
                r[5] = Value::Bool(constraint.deferrable.initially_deferred());
                r[6] = Value::Bool(constraint.validated);
                let key = referenced_key(fk, tables);
                r[9] = oid(key.map_or(0, |i| i.oid as i64));
                r[11] = oid(fk.ref_table_oid as i64);
                r[12] = action(fk.on_update);
                r[13] = action(fk.on_delete);
                r[14] = text(if fk.match_full { "f" } else { "s" });
                // (A partition's own key merged with its parent's:
                // `partitions/merged_keys.rs`.)
                r[15] = Value::Bool(constraint.local);
                r[16] = Value::Int4(i32::from(!constraint.local));
                r[18] = numbers(table, &fk.columns);
                r[19] = match tables.iter().find(|t| t.oid == fk.ref_table_oid) {
                    Some(referenced) => numbers(referenced, &fk.ref_columns),
                    None => Value::Null,
                };
                out.push(r);
            }
        }
    }
}

/// The unique index a foreign key references (among `tables`).
pub fn referenced_key<'t>(
    fk: &folio_catalog::ForeignKey,
    tables: &'t [TableDef],
) -> Option<&'t IndexDef> {
    tables
        .iter()
        .find(|t| t.oid == fk.ref_table_oid)
        .and_then(|t| {
            t.indexes
                .iter()
                .find(|i| i.unique && i.is_plain() && i.columns == fk.ref_columns)
        })
}

/// A `pg_class` row with what differs between the kinds of relation.
struct ClassRow<'a> {
    oid: i64,
    name: &'a str,
    namespace: i64,
    am: i64,
    kind: &'a str,
    columns: usize,
    checks: usize,
    has_index: bool,
    has_triggers: bool,
    /// `relispopulated`: false for a materialized view without its rows.
    populated: bool,
}

fn class_row(r: ClassRow<'_>) -> Vec<Value> {
    vec![
        oid(r.oid),
        text(r.name),
        oid(r.namespace),
        // reltype: a table's, view's or materialized view's row type
        // shares its oid (`user_types.rs`).
        oid(match r.kind {
            "r" | "p" | "v" | "m" => r.oid,
            _ => 0,
        }),
        oid(0),
        oid(SUPERUSER_OID),
        oid(r.am),
        oid(r.oid),
        oid(0),
        Value::Int4(0),
        Value::Float4(-1.0),
        Value::Int4(0),
        oid(0),
        Value::Bool(r.has_index),
        Value::Bool(false),
        text(if r.namespace >= TEMP_NAMESPACE_BASE {
            "t"
        } else {
            "p"
        }),
        text(r.kind),
        Value::Int2(r.columns as i16),
        Value::Int2(r.checks as i16),
        // relhasrules: a view's is its `_RETURN` rule, as PostgreSQL's.
        Value::Bool(
            r.kind == "v" || (crate::rules::in_scope().iter()).any(|x| x.relation as i64 == r.oid),
        ),
        Value::Bool(r.has_triggers),
        Value::Bool(false),
        Value::Bool(false),
        Value::Bool(false),
        Value::Bool(r.populated),
        text(if r.kind == "r" || r.kind == "m" {
            "d"
        } else {
            "n"
        }),
        Value::Bool(false),
        oid(0),
        Value::Null,
        Value::Null,
        Value::Null,
    ]
}

/// A view's (or materialized view's) definition as `pg_views`,
/// `pg_matviews` and `information_schema.views` give it:
/// `pg_get_viewdef(oid)` (`view_layout/`), relations named as the
/// search path `public` finds them.
pub fn view_definition(catalog: &Catalog, txn: &Transaction, oid: u64) -> Result<String, SqlError> {
    let lookups = crate::lookups::Lookups::read_names(catalog, txn)?
        .with_search_path(vec!["public".to_string()]);
    Ok(lookups
        .view_definition(oid as i64, crate::view_layout::Form::DEFAULT)
        .unwrap_or_default())
}

/// The namespace oids of the schemas, by name, as one read of the
/// catalog sees them.
struct Namespaces(std::collections::HashMap<String, i64>);

impl Namespaces {
    fn read(catalog: &Catalog, txn: &Transaction) -> Result<Namespaces, SqlError> {
        let schemas = catalog.schemas(txn)?;
        Ok(Namespaces(
            schemas
                .into_iter()
                .map(|s| (s.name, s.oid as i64))
                .collect(),
        ))
    }

    /// The namespace oid of a relation by its catalog name: `public`, a
    /// temporary namespace (`temp_tables.rs`) or a schema (`schemas.rs`).
    fn of(&self, name: &str) -> i64 {
        let (schema, _) = folio_catalog::split_schema(name);
        match folio_catalog::temp_schema_number(schema) {
            Some(n) => TEMP_NAMESPACE_BASE + i64::from(n),
            None => self.0.get(schema).copied().unwrap_or(PUBLIC_NAMESPACE),
        }
    }
}

fn system_class_row(relation: SystemRelation) -> Vec<Value> {
    let (relation_oid, view) = relation.oid_and_view();
    class_row(ClassRow {
        oid: relation_oid,
        name: relation.name(),
        namespace: CATALOG_NAMESPACE,
        am: if view { 0 } else { HEAP_AM },
        kind: if view { "v" } else { "r" },
        columns: relation.columns().len(),
        checks: 0,
        has_index: false,
        has_triggers: false,
        populated: true,
    })
}

fn table_class_row(spaces: &Namespaces, table: &TableDef, tables: &[TableDef]) -> Vec<Value> {
    let partitioned = table.partition_key().is_some();
    let mut row = class_row(ClassRow {
        oid: table.oid as i64,
        name: folio_catalog::unqualified(&table.name),
        namespace: spaces.of(&table.name),
        am: if partitioned { 0 } else { HEAP_AM },
        kind: match (table.matview.is_some(), partitioned) {
            (true, _) => "m",
            (false, true) => "p",
            (false, false) => "r",
        },
        // Dropped columns' slots too (PostgreSQL's relnatts).
        columns: table.layout.width(),
        checks: table
            .constraints
            .iter()
            .filter(|c| matches!(c.kind, ConstraintKind::Check { .. }))
            .count(),
        has_index: !table.indexes.is_empty(),
        has_triggers: has_triggers(table, tables),
        populated: table.matview.as_ref().is_none_or(|m| m.populated),
    });
    // Partitioning (README "Partitioned tables"): relfilenode,
    // relhassubclass, relispartition, relpartbound.
    if partitioned {
        row[7] = oid(0);
        row[25] = text("d");
    }
    row[21] = Value::Bool(!table.partitions.is_empty() || !table.children.is_empty());
    if let Some((_, bound)) = table.partition_of() {
        row[26] = Value::Bool(true);
        row[30] = text(bound);
    }
    if crate::unlogged::is_unlogged(table) {
        row[15] = text("u");
    }
    // reloptions: its storage options (`storage_options.rs`).
    if !table.storage.is_empty() {
        let options = (table.storage.0.iter()).map(|(n, v)| Value::Text(format!("{n}={v}")));
        row[29] = Value::array(options.collect());
    }
    row
}

/// An index's `pg_class` row: relkind `I` (and no relfilenode), as
/// PostgreSQL's partitioned index, when its table is partitioned
/// (`partitioned`), whose heap and indexes stay empty.
fn index_class_row(spaces: &Namespaces, index: &IndexDef, partitioned: bool) -> Vec<Value> {
    let mut row = class_row(ClassRow {
        oid: index.oid as i64,
        name: folio_catalog::unqualified(&index.name),
        namespace: spaces.of(&index.name),
        am: BTREE_AM,
        kind: if partitioned { "I" } else { "i" },
        columns: index.columns.len(),
        checks: 0,
        has_index: false,
        has_triggers: false,
        populated: true,
    });
    if partitioned {
        row[7] = oid(0);
    }
    if folio_catalog::Persistence::of(index.root) == folio_catalog::Persistence::Unlogged {
        row[15] = text("u");
    }
    row
}

fn sequence_class_row(spaces: &Namespaces, sequence: &SequenceDef) -> Vec<Value> {
    let mut row = class_row(ClassRow {
        oid: sequence.oid as i64,
        name: folio_catalog::unqualified(&sequence.name),
        namespace: spaces.of(&sequence.name),
        am: 0,
        kind: "S",
        columns: 3,
        checks: 0,
        has_index: false,
        has_triggers: false,
        populated: true,
    });
    if sequence.persistence == folio_catalog::Persistence::Unlogged {
        row[15] = Value::Text("u".into());
    }
    row
}

/// The `pg_attribute` rows of an index's or a view's `columns`, numbered
/// from 1 (no NOT NULL, default or identity).
fn plain_attribute_rows<'a>(
    relation: u64,
    columns: impl Iterator<Item = &'a folio_catalog::ColumnDef> + 'a,
) -> impl Iterator<Item = Vec<Value>> + 'a {
    columns.enumerate().map(move |(n, column)| {
        attribute_row(
            relation as i64,
            n as i16 + 1,
            &column.name,
            column.type_oid,
            column.typmod,
            false,
            false,
            "",
        )
    })
}

/// A `pg_attribute` row: column `attnum` of relation `relation`.
#[allow(clippy::too_many_arguments)]
fn attribute_row(
    relation: i64,
    attnum: i16,
    name: &str,
    type_oid: u32,
    typmod: i32,
    not_null: bool,
    has_default: bool,
    identity: &str,
) -> Vec<Value> {
    let ty = TYPES.iter().find(|t| t.0 == i64::from(type_oid));
    let collation = match ty {
        Some(t) if t.4 == "S" => DEFAULT_COLLATION,
        _ => 0,
    };
    vec![
        oid(relation),
        text(name),
        oid(i64::from(type_oid)),
        Value::Int2(ty.map_or(-1, |t| t.2)),
        Value::Int2(attnum),
        Value::Int4(0),
        Value::Int4(typmod),
        Value::Bool(ty.is_some_and(|t| t.3)),
        Value::Bool(not_null),
        Value::Bool(has_default),
        Value::Bool(false),
        text(identity),
        text(""),
        Value::Bool(false),
        Value::Bool(true),
        Value::Int4(0),
        oid(collation),
        text(ty.map_or("p", |t| t.6)),
        text(""),
        Value::Int4(-1),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
    ]
}

/// The `pg_attribute` row of a column dropped from table `relation`, as
/// PostgreSQL keeps it: named `........pg.dropped.N........`, type 0,
/// `attisdropped`, statistics target 0; its length, by-value, collation
/// and storage still its former type's.
fn dropped_attribute_row(relation: i64, dropped: &folio_catalog::DroppedColumn) -> Vec<Value> {
    let mut row = attribute_row(
        relation,
        dropped.slot as i16 + 1,
        &folio_catalog::dropped_name(dropped.slot),
        dropped.type_oid,
        dropped.typmod,
        false,
        false,
        "",
    );
    let column = |name: &str| {
        (SystemRelation::Attribute.columns().iter())
            .position(|(n, _)| *n == name)
            .expect("a pg_attribute column")
    };
    row[column("atttypid")] = oid(0);
    row[column("attisdropped")] = Value::Bool(true);
    row[column("attstattarget")] = Value::Int4(0);
    row
}

/// `pg_get_indexdef`'s text of an index: `CREATE [UNIQUE] INDEX name ON
/// [ONLY] public.table USING btree (column [DESC] [NULLS FIRST | LAST], ...)`;
/// `pretty` (its third argument): the table's name unqualified, as
/// PostgreSQL's pretty form gives a table on the search path.
pub fn index_definition(table: &TableDef, index: &IndexDef, pretty: bool) -> String {
    let keys: Vec<String> = crate::index_exprs::key_texts(table, index, pretty)
        .into_iter()
        .enumerate()
        .map(|(n, mut key)| {
            let order = index.order.get(n).copied().unwrap_or_default();
            key.push_str(match (order.descending, order.nulls_first) {
                (false, false) => "",
                (false, true) => " NULLS FIRST",
                (true, true) => " DESC",
                (true, false) => " DESC NULLS LAST",
            });
            key
        })
        .collect();
    let predicate = match &index.exprs.predicate {
        Some(p) => format!(" WHERE {}", crate::index_exprs::predicate_text(p, pretty)),
        None => String::new(),
    };
    format!(
        "CREATE {}INDEX {} ON {}{}{} USING btree ({}){}{}{predicate}",
        if index.unique { "UNIQUE " } else { "" },
        names::written(&index.name),
        // A partitioned table's index: its partitions have their own.
        if table.partition_key().is_some() {
            "ONLY "
        } else {
            ""
        },
        if pretty { "" } else { "public." },
        names::written(&table.name),
        keys.join(", "),
        include_clause(table, index),
        crate::indexes::nulls_clause(index.nulls)
    )
}

/// ` INCLUDE (c, ...)` of an index with included columns, as
/// `pg_get_indexdef` and `pg_get_constraintdef` print it; empty without.
pub fn include_clause(table: &TableDef, index: &IndexDef) -> String {
    if index.include().is_empty() {
        return String::new();
    }
    let columns: Vec<String> = (index.include().iter())
        .map(|&c| names::written(&table.columns[usize::from(c)].name).to_string())
        .collect();
    format!(" INCLUDE ({})", columns.join(", "))
}
