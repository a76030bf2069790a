//! The `information_schema` views tools and ORMs read first: `tables`,
//! `columns`, `schemata`, and the keys: `table_constraints`,
//! `key_column_usage` and `referential_constraints`, and `triggers`
//! (`information_schema_triggers.rs`), with PostgreSQL 15's column names and
//! order, their rows made from the catalog at each execution (as the
//! `pg_catalog` relations are: `system.rs`, which resolves the names).
//! They list the user's tables and the `pg_catalog` relations folio has.
//!
//! Types: PostgreSQL's own domains are their base types here —
//! `sql_identifier` (a `name`) and `character_data` and `yes_or_no`
//! (`varchar`) are `text`, `cardinal_number` is `integer`. A name must be
//! qualified (`information_schema.tables`): the schema is not on the
//! search path, as in PostgreSQL.

use crate::catalog_functions::type_name;
use crate::error::SqlError;
use crate::lookups::Lookups;
use crate::system::SystemRelation;
use crate::types;
use crate::updatable_views::{DELETE_EVENT, INSERT_EVENT, UPDATE_EVENT};
use folio_catalog::{Catalog, ConstraintKind, RefAction, SequenceDef, TableDef};
use folio_db::Transaction;
use folio_row::{SqlType, Value};

/// The database's name, each view's `*_catalog`.
const DATABASE: &str = "postgres";

/// A view of `information_schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Tables,
    Columns,
    Schemata,
    TableConstraints,
    KeyColumnUsage,
    ReferentialConstraints,
    Views,
    Domains,
    Triggers,
}

/// Every view.
const VIEWS: [View; 9] = [
    View::Tables,
    View::Columns,
    View::Schemata,
    View::TableConstraints,
    View::KeyColumnUsage,
    View::ReferentialConstraints,
    View::Views,
    View::Domains,
    View::Triggers,
];

use SqlType::{Int4, Text};

/// `(name, type)` of a view's columns.
type Columns = &'static [(&'static str, SqlType)];

impl View {
    /// The view called `name`.
    pub fn of(name: &str) -> Option<View> {
        VIEWS.into_iter().find(|v| v.name() == name)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            View::Tables => "tables",
            View::Columns => "columns",
            View::Schemata => "schemata",
            View::TableConstraints => "table_constraints",
            View::KeyColumnUsage => "key_column_usage",
            View::ReferentialConstraints => "referential_constraints",
            View::Views => "views",
            View::Domains => "domains",
            View::Triggers => "triggers",
        }
    }

    /// Its columns.
    pub fn columns(self) -> Columns {
        match self {
            View::Triggers => crate::information_schema_triggers::COLUMNS,
            View::Domains => &[
                ("domain_catalog", Text),
                ("domain_schema", Text),
                ("domain_name", Text),
                ("data_type", Text),
                ("character_maximum_length", Int4),
                ("character_octet_length", Int4),
                ("character_set_catalog", Text),
                ("character_set_schema", Text),
                ("character_set_name", Text),
                ("collation_catalog", Text),
                ("collation_schema", Text),
                ("collation_name", Text),
                ("numeric_precision", Int4),
                ("numeric_precision_radix", Int4),
                ("numeric_scale", Int4),
                ("datetime_precision", Int4),
                ("interval_type", Text),
                ("interval_precision", Int4),
                ("domain_default", Text),
                ("udt_catalog", Text),
                ("udt_schema", Text),
                ("udt_name", Text),
                ("scope_catalog", Text),
                ("scope_schema", Text),
                ("scope_name", Text),
                ("maximum_cardinality", Int4),
                ("dtd_identifier", Text),
            ],
            View::Views => &[
                ("table_catalog", Text),
                ("table_schema", Text),
                ("table_name", Text),
                ("view_definition", Text),
                ("check_option", Text),
                ("is_updatable", Text),
                ("is_insertable_into", Text),
                ("is_trigger_updatable", Text),
                ("is_trigger_deletable", Text),
                ("is_trigger_insertable_into", Text),
            ],
            View::Tables => &[
                ("table_catalog", Text),
                ("table_schema", Text),
                ("table_name", Text),
                ("table_type", Text),
                ("self_referencing_column_name", Text),
                ("reference_generation", Text),
                ("user_defined_type_catalog", Text),
                ("user_defined_type_schema", Text),
                ("user_defined_type_name", Text),
                ("is_insertable_into", Text),
                ("is_typed", Text),
                ("commit_action", Text),
            ],
            View::Columns => &[
                ("table_catalog", Text),
                ("table_schema", Text),
                ("table_name", Text),
                ("column_name", Text),
                ("ordinal_position", Int4),
                ("column_default", Text),
                ("is_nullable", Text),
                ("data_type", Text),
                ("character_maximum_length", Int4),
                ("character_octet_length", Int4),
                ("numeric_precision", Int4),
                ("numeric_precision_radix", Int4),
                ("numeric_scale", Int4),
                ("datetime_precision", Int4),
                ("interval_type", Text),
                ("interval_precision", Int4),
                ("character_set_catalog", Text),
                ("character_set_schema", Text),
                ("character_set_name", Text),
                ("collation_catalog", Text),
                ("collation_schema", Text),
                ("collation_name", Text),
                ("domain_catalog", Text),
                ("domain_schema", Text),
                ("domain_name", Text),
                ("udt_catalog", Text),
                ("udt_schema", Text),
                ("udt_name", Text),
                ("scope_catalog", Text),
                ("scope_schema", Text),
                ("scope_name", Text),
                ("maximum_cardinality", Int4),
                ("dtd_identifier", Text),
                ("is_self_referencing", Text),
                ("is_identity", Text),
                ("identity_generation", Text),
                ("identity_start", Text),
                ("identity_increment", Text),
                ("identity_maximum", Text),
                ("identity_minimum", Text),
                ("identity_cycle", Text),
                ("is_generated", Text),
                ("generation_expression", Text),
                ("is_updatable", Text),
            ],
            View::Schemata => &[
                ("catalog_name", Text),
                ("schema_name", Text),
                ("schema_owner", Text),
                ("default_character_set_catalog", Text),
                ("default_character_set_schema", Text),
                ("default_character_set_name", Text),
                ("sql_path", Text),
            ],
            View::TableConstraints => &[
                ("constraint_catalog", Text),
                ("constraint_schema", Text),
                ("constraint_name", Text),
                ("table_catalog", Text),
                ("table_schema", Text),
                ("table_name", Text),
                ("constraint_type", Text),
                ("is_deferrable", Text),
                ("initially_deferred", Text),
                ("enforced", Text),
                ("nulls_distinct", Text),
            ],
            View::KeyColumnUsage => &[
                ("constraint_catalog", Text),
                ("constraint_schema", Text),
                ("constraint_name", Text),
                ("table_catalog", Text),
                ("table_schema", Text),
                ("table_name", Text),
                ("column_name", Text),
                ("ordinal_position", Int4),
                ("position_in_unique_constraint", Int4),
            ],
            View::ReferentialConstraints => &[
                ("constraint_catalog", Text),
                ("constraint_schema", Text),
                ("constraint_name", Text),
                ("unique_constraint_catalog", Text),
                ("unique_constraint_schema", Text),
                ("unique_constraint_name", Text),
                ("match_option", Text),
                ("update_rule", Text),
                ("delete_rule", Text),
            ],
        }
    }

    /// Its rows as `txn` sees the catalog.
    pub fn rows(self, catalog: &Catalog, txn: &Transaction) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut out = Vec::new();
        match self {
            View::Schemata => {
                for (schema, owner) in [
                    ("pg_catalog", "postgres"),
                    ("public", "pg_database_owner"),
                    ("information_schema", "postgres"),
                ] {
                    let mut row = vec![text(DATABASE), text(schema), text(owner)];
                    row.resize(self.columns().len(), Value::Null);
                    out.push(row);
                }
                for schema in catalog.schemas(txn)? {
                    let mut row = vec![text(DATABASE), text(&schema.name), text("postgres")];
                    row.resize(self.columns().len(), Value::Null);
                    out.push(row);
                }
            }
            View::Tables => {
                let table = |schema: &str, name: &str, view: bool| {
                    let mut row = vec![
                        text(DATABASE),
                        text(schema),
                        text(name),
                        text(if view { "VIEW" } else { "BASE TABLE" }),
                    ];
                    row.resize(9, Value::Null);
                    row.extend([text(yes_no(!view)), text("NO"), Value::Null]);
                    row
                };
                // (Materialized views are in neither view, as in
                // PostgreSQL.)
                for def in catalog
                    .tables(txn)?
                    .into_iter()
                    .filter(|d| d.matview.is_none())
                {
                    // A temporary table (`temp_tables.rs`): in its
                    // namespace, as PostgreSQL's LOCAL TEMPORARY.
                    let (schema, name) = folio_catalog::split_schema(&def.name);
                    let mut row = table(schema, name, false);
                    if folio_catalog::temp_schema_number(schema).is_some() {
                        row[3] = text("LOCAL TEMPORARY");
                    }
                    out.push(row);
                }
                let lookups = Lookups::read_names(catalog, txn)?;
                for view in catalog.views(txn)? {
                    let (schema, name) = folio_catalog::split_schema(&view.name);
                    let mut row = table(schema, name, true);
                    let events = lookups.updatable_events(view.oid, false, None);
                    row[9] = text(yes_no(events & INSERT_EVENT != 0));
                    out.push(row);
                }
                for relation in SystemRelation::all() {
                    out.push(table("pg_catalog", relation.name(), relation.is_view()));
                }
            }
            View::Columns => {
                let sequences = catalog.sequences(txn)?;
                for def in catalog
                    .tables(txn)?
                    .into_iter()
                    .filter(|d| d.matview.is_none())
                {
                    for (n, column) in def.columns.iter().enumerate() {
                        let Some(ty) = def.column_type(n) else {
                            continue;
                        };
                        let default = match crate::system::default_shown(&sequences, &def, n) {
                            Some(expr) => text(&crate::deparse::default_text(expr, ty)),
                            None => Value::Null,
                        };
                        let identity = crate::system::identity(&sequences, &def, n);
                        let generated = def.generated_of(n).map(|expr| {
                            crate::deparse::parenthesized(&crate::deparse::default_text(expr, ty))
                        });
                        let (schema, name) = folio_catalog::split_schema(&def.name);
                        let mut row = column_row(
                            (schema, name, &column.name, def.layout.attnum(n)),
                            ty,
                            default,
                            !column.not_null,
                            (identity, generated.as_deref()),
                        );
                        // A collation other than the default
                        // (collation_catalog, _schema, _name).
                        let collation = crate::collations::of_column(column);
                        if let Some(c) = crate::collations::name_of(collation)
                            .filter(|_| collation != crate::collations::DEFAULT)
                        {
                            row[19] = text(DATABASE);
                            row[20] = text("pg_catalog");
                            row[21] = text(c);
                        }
                        // A domain's column names it (domain_catalog,
                        // domain_schema, domain_name).
                        if let Some(d) = def.domains.iter().find(|d| d.oid == column.type_oid) {
                            row[22] = text(DATABASE);
                            row[23] = text(folio_catalog::PUBLIC);
                            row[24] = text(&d.name);
                            // Over a domain: PostgreSQL's USER-DEFINED,
                            // the parent as the udt.
                            if let Some(p) = def.domains.iter().find(|p| p.oid == d.parent) {
                                row[7] = text("USER-DEFINED");
                                row[8..16].fill(Value::Null);
                                row[26] = text(folio_catalog::PUBLIC);
                                row[27] = text(&p.name);
                            }
                        }
                        out.push(row);
                    }
                }
                let lookups = Lookups::read_names(catalog, txn)?;
                for view in catalog.views(txn)? {
                    for (n, column) in view.columns.iter().enumerate() {
                        let Some(ty) = crate::user_types::of_oid(column.type_oid, column.typmod)
                        else {
                            continue;
                        };
                        let (schema, name) = folio_catalog::split_schema(&view.name);
                        let mut row = column_row(
                            (schema, name, &column.name, n as i16 + 1),
                            ty,
                            Value::Null,
                            true,
                            (None, None),
                        );
                        let updatable = lookups.column_is_updatable(view.oid, n as i64 + 1, false);
                        *row.last_mut().expect("is_updatable") = text(yes_no(updatable));
                        out.push(row);
                    }
                }
                for relation in SystemRelation::all() {
                    for (n, (name, ty)) in relation.columns().iter().enumerate() {
                        out.push(column_row(
                            ("pg_catalog", relation.name(), name, n as i16 + 1),
                            *ty,
                            Value::Null,
                            true,
                            (None, None),
                        ));
                    }
                }
            }
            View::Triggers => crate::information_schema_triggers::rows(catalog, txn, &mut out)?,
            View::Domains => {
                let domains = crate::user_types::domains();
                for d in domains.iter() {
                    out.push(domain_row(d, &domains)?);
                }
            }
            View::Views => {
                // Updatable: PostgreSQL's `pg_relation_is_updatable(oid,
                // false)` (UPDATE counts when DELETE does too); trigger
                // updatable: an INSTEAD OF row trigger of the event.
                use crate::triggers::Event;
                let lookups = Lookups::read_names(catalog, txn)?;
                for view in catalog.views(txn)? {
                    let (schema, name) = folio_catalog::split_schema(&view.name);
                    let events = lookups.updatable_events(view.oid, false, None);
                    let both = UPDATE_EVENT | DELETE_EVENT;
                    let mut row = vec![
                        text(DATABASE),
                        text(schema),
                        text(name),
                        text(&crate::system::view_definition(catalog, txn, view.oid)?),
                        text(view.check_option.name()),
                        text(yes_no(events & both == both)),
                        text(yes_no(events & INSERT_EVENT != 0)),
                    ];
                    row.extend(
                        [Event::Update, Event::Delete, Event::Insert]
                            .map(|e| text(yes_no(crate::triggers::declares_instead(view.oid, e)))),
                    );
                    out.push(row);
                }
            }
            View::TableConstraints | View::KeyColumnUsage | View::ReferentialConstraints => {
                let tables = catalog.tables(txn)?;
                for table in &tables {
                    self.key_rows(table, &tables, &mut out);
                }
            }
        }
        Ok(out)
    }

    /// The rows of the key views for `table`'s constraints.
    fn key_rows(self, table: &TableDef, tables: &[TableDef], out: &mut Vec<Vec<Value>>) {
        let names = |name: &str| {
            let (schema, name) = folio_catalog::split_schema(name);
            [text(DATABASE), text(schema), text(name)]
        };
        let deferrable_constraint =
            |name: &str, kind: &str, nulls_distinct: Value, d: folio_catalog::Deferrable| {
                let mut row = names(name).to_vec();
                row.extend(names(&table.name));
                row.extend([
                    text(kind),
                    text(yes_no(d.is_deferrable())),
                    text(yes_no(d.initially_deferred())),
                    text("YES"),
                    nulls_distinct,
                ]);
                row
            };
        let constraint = |name: &str, kind: &str, nulls_distinct: Value| {
            deferrable_constraint(name, kind, nulls_distinct, folio_catalog::Deferrable::No)
        };
        let usage = |name: &str, column: u16, n: usize, unique_position: Option<usize>| {
            let mut row = names(name).to_vec();
            row.extend(names(&table.name));
            row.extend([
                text(&table.columns[usize::from(column)].name),
                Value::Int4(n as i32 + 1),
                unique_position.map_or(Value::Null, |p| Value::Int4(p as i32 + 1)),
            ]);
            row
        };
        for index in table.indexes.iter().filter(|i| i.constraint) {
            match self {
                View::TableConstraints => out.push(match index.primary {
                    true => deferrable_constraint(
                        &index.name,
                        "PRIMARY KEY",
                        Value::Null,
                        index.deferrable,
                    ),
                    false => {
                        let distinct = match index.nulls {
                            folio_catalog::Nulls::Distinct => "YES",
                            folio_catalog::Nulls::NotDistinct => "NO",
                        };
                        deferrable_constraint(
                            &index.name,
                            "UNIQUE",
                            text(distinct),
                            index.deferrable,
                        )
                    }
                }),
                View::KeyColumnUsage => out.extend(
                    (index.columns.iter().enumerate())
                        .map(|(n, &c)| usage(&index.name, c, n, None)),
                ),
                _ => {}
            }
        }
        for def in &table.constraints {
            match (&def.kind, self) {
                (ConstraintKind::Check { .. }, View::TableConstraints) => {
                    out.push(constraint(&def.name, "CHECK", Value::Null))
                }
                (ConstraintKind::ForeignKey(_), View::TableConstraints) => out.push(
                    deferrable_constraint(&def.name, "FOREIGN KEY", Value::Null, def.deferrable),
                ),
                (ConstraintKind::ForeignKey(fk), View::KeyColumnUsage) => {
                    let key = crate::system::referenced_key(fk, tables);
                    for (n, (&c, r)) in fk.columns.iter().zip(&fk.ref_columns).enumerate() {
                        let position = key.and_then(|k| k.columns.iter().position(|k| k == r));
                        out.push(usage(&def.name, c, n, position));
                    }
                }
                (ConstraintKind::ForeignKey(fk), View::ReferentialConstraints) => {
                    let rule = |a: RefAction| text(a.words());
                    let key = crate::system::referenced_key(fk, tables);
                    let mut row = names(&def.name).to_vec();
                    let key_schema =
                        key.map_or("public", |k| folio_catalog::split_schema(&k.name).0);
                    row.extend([
                        text(DATABASE),
                        text(key_schema),
                        key.map_or(Value::Null, |k| text(folio_catalog::unqualified(&k.name))),
                        text(if fk.match_full { "FULL" } else { "NONE" }),
                        rule(fk.on_update),
                        rule(fk.on_delete),
                    ]);
                    out.push(row);
                }
                _ => {}
            }
        }
        // NOT NULL: a CHECK constraint of PostgreSQL's naming
        // (namespace oid, table oid, column number).
        if self == View::TableConstraints {
            for (n, column) in table.columns.iter().enumerate() {
                if column.not_null {
                    let attnum = table.layout.attnum(n);
                    let name = format!("2200_{}_{attnum}_not_null", table.oid);
                    out.push(constraint(&name, "CHECK", Value::Null));
                }
            }
        }
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "YES" } else { "NO" }
}

/// One `information_schema.domains` row: a domain over a built-in type
/// describes that type as a column of it would; one over a domain is
/// `USER-DEFINED`, its `udt_*` naming the parent, as PostgreSQL's.
/// `columns.interval_type`: an interval type's fields as its name
/// spells them, upper case (`DAY TO SECOND(2)`; PostgreSQL's view takes
/// what follows `interval[(p)] ` in `format_type`); none for all fields.
fn interval_type(ty: SqlType) -> Option<String> {
    let SqlType::Interval(Some(_)) = ty else {
        return None;
    };
    let name = ty.name();
    let rest = name.strip_prefix("interval")?;
    let fields = rest
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '(' || c == ')')
        .strip_prefix(' ')?;
    Some(fields.to_ascii_uppercase())
}

fn domain_row(
    d: &folio_catalog::DomainType,
    domains: &[std::sync::Arc<folio_catalog::DomainType>],
) -> Result<Vec<Value>, SqlError> {
    let ty = crate::domains::base_type(d)?;
    let column = column_row(
        (folio_catalog::PUBLIC, "", "", 1),
        ty,
        Value::Null,
        true,
        (None, None),
    );
    let mut row = vec![text(DATABASE), text(folio_catalog::PUBLIC), text(&d.name)];
    match domains.iter().find(|p| p.oid == d.parent) {
        None => {
            // data_type .. datetime_precision, then the character set and
            // collation (none), as the view orders them.
            row.extend(column[7..10].iter().cloned());
            row.extend(column[16..22].iter().cloned());
            row.extend(column[10..16].iter().cloned());
        }
        Some(_) => {
            row.push(text("USER-DEFINED"));
            row.resize(18, Value::Null);
        }
    }
    row.push(d.default.as_deref().map_or(Value::Null, text));
    match domains.iter().find(|p| p.oid == d.parent) {
        None => row.extend(column[25..28].iter().cloned()),
        Some(p) => row.extend([text(DATABASE), text(folio_catalog::PUBLIC), text(&p.name)]),
    }
    row.extend([Value::Null, Value::Null, Value::Null, Value::Null]);
    row.push(text("1"));
    Ok(row)
}

/// One `information_schema.columns` row: the column `(schema, table,
/// name, attnum)` of type `ty`, with its identity sequence if it is an
/// identity column. (PostgreSQL's ordinal position is the attnum: a
/// dropped column leaves a gap.)
fn column_row(
    (schema, table, name, attnum): (&str, &str, &str, i16),
    ty: SqlType,
    default: Value,
    nullable: bool,
    (identity, generated): (Option<&SequenceDef>, Option<&str>),
) -> Vec<Value> {
    let int = |v: Option<i64>| v.map_or(Value::Null, |v| Value::Int4(v as i32));
    let length = match ty {
        SqlType::Varchar(n) => n.map(i64::from),
        SqlType::Char(n) => (n > 0).then(|| i64::from(n)),
        _ => None,
    };
    // UTF8: up to 4 bytes a character; PostgreSQL's 1 GB for no limit.
    let octets = match ty {
        SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Text => {
            Some(length.map_or(1 << 30, |n| n * 4))
        }
        _ => None,
    };
    let (precision, radix, scale) = match ty {
        SqlType::Int2 => (Some(16), Some(2), Some(0)),
        SqlType::Int4 => (Some(32), Some(2), Some(0)),
        SqlType::Int8 => (Some(64), Some(2), Some(0)),
        SqlType::Float4 => (Some(24), Some(2), None),
        SqlType::Float8 => (Some(53), Some(2), None),
        SqlType::Numeric(p) => (
            p.map(|(p, _)| i64::from(p)),
            Some(10),
            p.map(|(_, s)| i64::from(s)),
        ),
        _ => (None, None, None),
    };
    let datetime = match ty {
        SqlType::Date => Some(0),
        SqlType::Timestamp(precision)
        | SqlType::TimestampTz(precision)
        | SqlType::Time(precision)
        | SqlType::TimeTz(precision) => Some(i64::from(precision.unwrap_or(6))),
        SqlType::Interval(modifier) => {
            Some(i64::from(modifier.and_then(|m| m.precision()).unwrap_or(6)))
        }
        _ => None,
    };
    // The type's name without modifiers (`format_type(oid, NULL)`).
    let data_type = match ty {
        SqlType::Array(_) => "ARRAY".to_string(),
        SqlType::Char(_) => "character".to_string(),
        SqlType::Enum(_) => "USER-DEFINED".to_string(),
        _ => type_name(i64::from(ty.oid()), -1),
    };
    let udt_schema = match ty {
        SqlType::Enum(_) => "public",
        _ => "pg_catalog",
    };
    let mut row = vec![
        text(DATABASE),
        text(schema),
        text(table),
        text(name),
        Value::Int4(i32::from(attnum)),
        default,
        text(yes_no(nullable)),
        text(&data_type),
        int(length),
        int(octets),
        int(precision),
        int(radix),
        int(scale),
        int(datetime),
        interval_type(ty).map_or(Value::Null, Value::Text),
    ];
    // interval_precision .. domain_name: none here.
    row.resize(25, Value::Null);
    row.extend([
        text(DATABASE),
        text(udt_schema),
        text(&types::typname(ty)),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        text(&attnum.to_string()),
        text("NO"),
        text(yes_no(identity.is_some())),
    ]);
    match identity {
        Some(s) => {
            let o = &s.options;
            row.extend([
                text(if s.always { "ALWAYS" } else { "BY DEFAULT" }),
                text(&o.start.to_string()),
                text(&o.increment.to_string()),
                text(&o.max.to_string()),
                text(&o.min.to_string()),
                text(yes_no(o.cycle)),
            ]);
        }
        None => {
            row.resize(40, Value::Null);
            row.push(text("NO"));
        }
    }
    match generated {
        Some(expr) => row.extend([text("ALWAYS"), text(expr), text("YES")]),
        None => row.extend([text("NEVER"), Value::Null, text("YES")]),
    }
    row
}
