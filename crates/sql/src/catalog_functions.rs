//! The functions psql and drivers call about the catalog:
//! `pg_get_userbyid`, `pg_table_is_visible`, `pg_type_is_visible`,
//! `pg_encoding_to_char`, `format_type`, `pg_get_expr`,
//! `obj_description`/`col_description`/`shobj_description` (NULL: folio
//! keeps no comments), `pg_get_statisticsobjdef_columns` and
//! `pg_get_triggerdef` and `pg_get_function_sqlbody` (NULL: no
//! statistics objects, no triggers, no functions written in SQL),
//! `pg_relation_is_publishable`, `pg_function_is_visible` and
//! `pg_operator_is_visible` (true), `pg_get_function_arguments` and
//! `pg_get_function_result` (of `pg_proc`'s fixed rows,
//! `system_proc.rs`), `quote_ident`, and the casts to the OID alias
//! types and `to_regclass` and kin (`reg_types.rs`). Most read only their arguments: folio has
//! one role (`postgres`, oid 10), one encoding (UTF8), its fixed types and
//! two schemas, both on the search path, so every relation is visible.
//! `pg_get_indexdef`, `pg_get_constraintdef`, the `reg*` casts,
//! `pg_table_size`/`pg_relation_size` read the
//! catalog through the execution's [`Lookups`], `pg_tablespace_size` the
//! database's files; `pg_size_pretty` formats a size (a bigint or a
//! numeric) as PostgreSQL's.

use crate::error::SqlError;
use crate::functions::int_arg as number;
use crate::lookups::Lookups;
use crate::lookups::SizeOf;
use folio_row::{RegKind, SqlType, Value};

/// The superuser's oid (PostgreSQL's `BOOTSTRAP_SUPERUSERID`).
pub const SUPERUSER_OID: i64 = 10;
/// The role that owns `public` in PostgreSQL 15.
pub const DATABASE_OWNER_OID: i64 = 6171;
/// PostgreSQL's number for UTF8 (`pg_database.encoding`).
pub const UTF8: i32 = 6;

/// A catalog function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFunc {
    GetUserById,
    /// `has_table_privilege([role,] table, privilege)` (`privileges.rs`).
    HasTablePrivilege,
    /// `pg_has_role([user,] role, privilege)` (`has_role.rs`).
    HasRole,
    TableIsVisible,
    TypeIsVisible,
    EncodingToChar,
    FormatType,
    GetExpr,
    /// `obj_description(oid [, catalog])`, `shobj_description(oid,
    /// catalog)`: a comment (`comments.rs`).
    Description,
    /// `col_description(table, attnum)`.
    ColumnDescription,
    /// `pg_get_statisticsobjdef_columns`, `pg_get_function_sqlbody`:
    /// NULL, as folio has none of their objects.
    StatisticsColumns,
    /// `pg_get_triggerdef(oid [, pretty])` (`trigger_statements.rs`).
    TriggerDef,
    /// `pg_get_ruledef(oid [, pretty])` (`rule_statements.rs`).
    RuleDef,
    /// `pg_get_partkeydef(oid)`, `pg_get_partition_constraintdef(oid)`
    /// (`partitions/constraint_text.rs`).
    PartitionKeyDef,
    PartitionConstraintDef,
    RelationIsPublishable,
    IndexDef,
    ConstraintDef,
    /// `pg_get_viewdef(view [, pretty])`: a view's query.
    ViewDef,
    /// `pg_relation_is_updatable(oid, include_triggers)`: PostgreSQL's
    /// event bits (`updatable_views::events`).
    RelationIsUpdatable,
    /// `pg_column_is_updatable(oid, attnum, include_triggers)`.
    ColumnIsUpdatable,
    /// `to_regclass(text)` and kin: the object's value of the OID alias
    /// type, NULL for none (`reg_types::to_reg`).
    ToReg(RegKind),
    /// `pg_table_size`, `pg_relation_size`, `pg_indexes_size`,
    /// `pg_total_relation_size` (`Lookups::size`).
    Size(crate::lookups::SizeOf),
    /// `pg_size_pretty(bytes)`.
    SizePretty,
    /// `pg_database_size(name | oid)`: the one database's size; 3D000 for
    /// another name, NULL for another oid.
    DatabaseSize,
    /// `pg_get_function_arguments(oid)`, `pg_get_function_result(oid)`.
    FunctionArguments,
    FunctionResult,
    /// `quote_ident(text)`: the name as SQL must write it.
    QuoteIdent,
    /// A cast to an OID alias type (`x::regclass`, `regclass(x)`), of a
    /// name or an oid (`reg_types::value_of`).
    Reg(RegKind),
    /// `current_schema()` (also written bare): the first schema of the
    /// session's search path (`schemas.rs`), NULL for none.
    CurrentSchema,
    /// `current_schemas(include_implicit)`: the search path's schemas
    /// (`pg_catalog` first when implicit ones are asked for).
    CurrentSchemas,
    /// `pg_get_serial_sequence(table, column)` (`Lookups::serial_sequence`).
    SerialSequence,
    /// `pg_tablespace_location(oid)` (`system_fixed.rs`).
    TablespaceLocation,
    /// `pg_tablespace_size(oid | name)` (`Lookups::tablespace_size`);
    /// 42704 for no tablespace of the name, NULL for none of the oid.
    TablespaceSize,
    /// `has_database_privilege([role,] database, privilege)`
    /// (`privileges.rs`).
    HasDatabasePrivilege,
    /// `has_function_privilege([role,] function, privilege)`
    /// (`routine_privileges.rs`).
    HasFunctionPrivilege,
    /// `has_column_privilege([role,] table, column, privilege)`
    /// (`has_privilege.rs`).
    HasColumnPrivilege,
    /// `has_sequence_privilege([role,] sequence, privilege)`
    /// (`has_privilege.rs`).
    HasSequencePrivilege,
    /// `pg_get_functiondef(oid)` (`function_definition.rs`).
    FunctionDef,
    /// `getdatabaseencoding()`: `UTF8`.
    DatabaseEncoding,
    /// `pg_char_to_encoding(name)`: PostgreSQL's number of an encoding
    /// folio knows (UTF8, SQL_ASCII), -1 for another name.
    CharToEncoding,
}

/// The catalog functions called by name.
const NAMES: [(&str, CatalogFunc); 64] = [
    ("pg_get_userbyid", CatalogFunc::GetUserById),
    ("has_table_privilege", CatalogFunc::HasTablePrivilege),
    ("pg_has_role", CatalogFunc::HasRole),
    ("pg_table_is_visible", CatalogFunc::TableIsVisible),
    ("pg_type_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_function_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_operator_is_visible", CatalogFunc::TypeIsVisible),
    // (Of objects folio has none of: `system_fixed.rs`.)
    ("pg_statistics_obj_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_collation_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_conversion_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_opclass_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_opfamily_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_ts_config_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_ts_dict_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_ts_parser_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_ts_template_is_visible", CatalogFunc::TypeIsVisible),
    ("pg_tablespace_location", CatalogFunc::TablespaceLocation),
    ("pg_tablespace_size", CatalogFunc::TablespaceSize),
    ("has_database_privilege", CatalogFunc::HasDatabasePrivilege),
    ("has_function_privilege", CatalogFunc::HasFunctionPrivilege),
    ("has_column_privilege", CatalogFunc::HasColumnPrivilege),
    ("has_sequence_privilege", CatalogFunc::HasSequencePrivilege),
    ("getdatabaseencoding", CatalogFunc::DatabaseEncoding),
    ("pg_get_functiondef", CatalogFunc::FunctionDef),
    ("pg_char_to_encoding", CatalogFunc::CharToEncoding),
    ("pg_get_function_arguments", CatalogFunc::FunctionArguments),
    ("pg_get_function_result", CatalogFunc::FunctionResult),
    ("quote_ident", CatalogFunc::QuoteIdent),
    ("pg_encoding_to_char", CatalogFunc::EncodingToChar),
    ("format_type", CatalogFunc::FormatType),
    ("pg_get_expr", CatalogFunc::GetExpr),
    ("obj_description", CatalogFunc::Description),
    ("col_description", CatalogFunc::ColumnDescription),
    ("shobj_description", CatalogFunc::Description),
    (
        "pg_get_statisticsobjdef_columns",
        CatalogFunc::StatisticsColumns,
    ),
    ("pg_get_triggerdef", CatalogFunc::TriggerDef),
    ("pg_get_ruledef", CatalogFunc::RuleDef),
    ("pg_get_function_sqlbody", CatalogFunc::StatisticsColumns),
    (
        "pg_relation_is_publishable",
        CatalogFunc::RelationIsPublishable,
    ),
    ("pg_get_indexdef", CatalogFunc::IndexDef),
    ("pg_get_constraintdef", CatalogFunc::ConstraintDef),
    ("pg_get_partkeydef", CatalogFunc::PartitionKeyDef),
    (
        "pg_get_partition_constraintdef",
        CatalogFunc::PartitionConstraintDef,
    ),
    ("pg_get_viewdef", CatalogFunc::ViewDef),
    ("pg_relation_is_updatable", CatalogFunc::RelationIsUpdatable),
    ("pg_column_is_updatable", CatalogFunc::ColumnIsUpdatable),
    ("to_regclass", CatalogFunc::ToReg(RegKind::Class)),
    ("to_regtype", CatalogFunc::ToReg(RegKind::Type)),
    ("to_regproc", CatalogFunc::ToReg(RegKind::Proc)),
    ("to_regprocedure", CatalogFunc::ToReg(RegKind::Procedure)),
    ("to_regoper", CatalogFunc::ToReg(RegKind::Oper)),
    ("to_regoperator", CatalogFunc::ToReg(RegKind::Operator)),
    ("to_regnamespace", CatalogFunc::ToReg(RegKind::Namespace)),
    ("to_regrole", CatalogFunc::ToReg(RegKind::Role)),
    ("to_regcollation", CatalogFunc::ToReg(RegKind::Collation)),
    ("pg_table_size", CatalogFunc::Size(SizeOf::Table)),
    ("pg_relation_size", CatalogFunc::Size(SizeOf::Fork)),
    ("pg_indexes_size", CatalogFunc::Size(SizeOf::Indexes)),
    ("pg_total_relation_size", CatalogFunc::Size(SizeOf::Total)),
    ("pg_size_pretty", CatalogFunc::SizePretty),
    ("pg_database_size", CatalogFunc::DatabaseSize),
    ("current_schema", CatalogFunc::CurrentSchema),
    ("current_schemas", CatalogFunc::CurrentSchemas),
    ("pg_get_serial_sequence", CatalogFunc::SerialSequence),
];

impl CatalogFunc {
    /// The function called `name`, if it is one of these.
    pub fn of(name: &str) -> Option<CatalogFunc> {
        crate::names::lookup(&NAMES, name)
    }

    /// Its name (the first of several that call it), for EXPLAIN; a
    /// `reg*` cast has none.
    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            CatalogFunc::GetUserById
            | CatalogFunc::TableIsVisible
            | CatalogFunc::TypeIsVisible
            | CatalogFunc::EncodingToChar
            | CatalogFunc::RelationIsPublishable
            | CatalogFunc::ToReg(_)
            | CatalogFunc::SizePretty
            | CatalogFunc::DatabaseSize
            | CatalogFunc::FunctionArguments
            | CatalogFunc::FunctionResult
            | CatalogFunc::QuoteIdent
            | CatalogFunc::PartitionKeyDef
            | CatalogFunc::PartitionConstraintDef
            | CatalogFunc::Reg(_)
            | CatalogFunc::TablespaceLocation
            | CatalogFunc::TablespaceSize
            | CatalogFunc::FunctionDef
            | CatalogFunc::CharToEncoding
            | CatalogFunc::CurrentSchemas => count == 1,
            CatalogFunc::CurrentSchema | CatalogFunc::DatabaseEncoding => count == 0,
            CatalogFunc::Size(SizeOf::Fork) => (1..=2).contains(&count),
            CatalogFunc::Size(_) => count == 1,
            CatalogFunc::ColumnDescription
            | CatalogFunc::RelationIsUpdatable
            | CatalogFunc::SerialSequence => count == 2,
            CatalogFunc::ColumnIsUpdatable => count == 3,
            CatalogFunc::FormatType => count == 2,
            CatalogFunc::GetExpr => (2..=3).contains(&count),
            CatalogFunc::Description
            | CatalogFunc::ConstraintDef
            | CatalogFunc::ViewDef
            | CatalogFunc::TriggerDef
            | CatalogFunc::RuleDef
            | CatalogFunc::StatisticsColumns => (1..=2).contains(&count),
            CatalogFunc::IndexDef => count == 1 || count == 3,
            CatalogFunc::HasTablePrivilege
            | CatalogFunc::HasRole
            | CatalogFunc::HasDatabasePrivilege
            | CatalogFunc::HasFunctionPrivilege
            | CatalogFunc::HasSequencePrivilege => (2..=3).contains(&count),
            CatalogFunc::HasColumnPrivilege => (3..=4).contains(&count),
        }
    }

    /// Whether a NULL argument makes it NULL. `format_type` is not
    /// strict: of a NULL modifier it names the type without one (psql's
    /// `format_type(oid, NULL)`), of a NULL type it is NULL.
    pub fn is_strict(self) -> bool {
        self != CatalogFunc::FormatType
    }

    /// Whether it reads the catalog through the execution's lookups.
    pub fn looks_up(self) -> bool {
        matches!(
            self,
            CatalogFunc::IndexDef
                | CatalogFunc::ConstraintDef
                | CatalogFunc::PartitionKeyDef
                | CatalogFunc::PartitionConstraintDef
                | CatalogFunc::ViewDef
                | CatalogFunc::RelationIsUpdatable
                | CatalogFunc::ColumnIsUpdatable
                | CatalogFunc::TriggerDef
                | CatalogFunc::RuleDef
                | CatalogFunc::TableIsVisible
                | CatalogFunc::ToReg(_)
                | CatalogFunc::Reg(_)
                | CatalogFunc::Size(_)
                | CatalogFunc::DatabaseSize
                | CatalogFunc::TablespaceSize
                | CatalogFunc::Description
                | CatalogFunc::ColumnDescription
                | CatalogFunc::CurrentSchema
                | CatalogFunc::CurrentSchemas
                | CatalogFunc::HasTablePrivilege
                | CatalogFunc::HasColumnPrivilege
                | CatalogFunc::HasSequencePrivilege
                | CatalogFunc::SerialSequence
        )
    }

    /// Its result type.
    pub fn ty(self) -> SqlType {
        match self {
            CatalogFunc::TableIsVisible
            | CatalogFunc::TypeIsVisible
            | CatalogFunc::HasTablePrivilege
            | CatalogFunc::HasRole
            | CatalogFunc::HasDatabasePrivilege
            | CatalogFunc::HasFunctionPrivilege
            | CatalogFunc::HasColumnPrivilege
            | CatalogFunc::HasSequencePrivilege
            | CatalogFunc::ColumnIsUpdatable
            | CatalogFunc::RelationIsPublishable => SqlType::Bool,
            CatalogFunc::RelationIsUpdatable | CatalogFunc::CharToEncoding => SqlType::Int4,
            CatalogFunc::ToReg(kind) | CatalogFunc::Reg(kind) => SqlType::Reg(kind),
            CatalogFunc::Size(_) | CatalogFunc::DatabaseSize | CatalogFunc::TablespaceSize => {
                SqlType::Int8
            }
            CatalogFunc::CurrentSchemas => SqlType::Array(&SqlType::Text),
            _ => SqlType::Text,
        }
    }

    /// Its value for `args` (none of them NULL, but for those not
    /// [`strict`](CatalogFunc::is_strict)), with
    /// the execution's lookups for those that read the catalog.
    pub fn eval(self, args: &[Value], lookups: Option<&Lookups>) -> Result<Value, SqlError> {
        let found = lookups;
        let lookups = || {
            lookups.ok_or_else(|| {
                SqlError::new(
                    "XX000",
                    "the catalog's lookups were not read for this statement",
                )
            })
        };
        let text = |v: &Value| crate::types::text_output(v).unwrap_or_default();
        Ok(match self {
            CatalogFunc::GetUserById => Value::Text(role_name(number(&args[0])?)),
            CatalogFunc::HasTablePrivilege => {
                let (role, table, privilege) = privilege_args(args)?;
                let table = match table {
                    Value::Text(name) => lookups()?
                        .relation_oid(name)
                        .ok_or_else(|| SqlError::undefined_table(name))?,
                    other => number(other)?,
                };
                // (PostgreSQL: NULL for an oid that is no relation.)
                if lookups()?.catalog_name(table).is_none() {
                    return Ok(Value::Null);
                }
                Value::Bool(crate::privileges::has_table_privilege(
                    &role,
                    table,
                    &text(privilege),
                )?)
            }
            CatalogFunc::HasRole => {
                let role = |v: &Value| -> Result<crate::has_role::RoleArg, SqlError> {
                    Ok(match v {
                        Value::Text(name) => crate::has_role::RoleArg::Name(name.clone()),
                        other => crate::has_role::RoleArg::Oid(number(other)?),
                    })
                };
                let (user, target, privilege) = match args {
                    [user, target, privilege] => (Some(role(user)?), role(target)?, privilege),
                    [target, privilege] => (None, role(target)?, privilege),
                    _ => unreachable!("takes 2 or 3 arguments"),
                };
                Value::Bool(crate::has_role::has_role(user, target, &text(privilege))?)
            }
            CatalogFunc::HasDatabasePrivilege => {
                let (role, database, privilege) = privilege_args(args)?;
                let exists = match database {
                    Value::Text(name) => name == crate::system::DATABASE_NAME,
                    other => number(other)? == crate::system::DATABASE_OID,
                };
                if !exists {
                    return Err(SqlError::new(
                        "3D000",
                        format!("database \"{}\" does not exist", text(database)),
                    ));
                }
                Value::Bool(crate::privileges::has_database_privilege(
                    &role,
                    &text(privilege),
                )?)
            }
            CatalogFunc::HasFunctionPrivilege => {
                use crate::routine_privileges::FunctionArg;
                let (role, function, privilege) = privilege_args(args)?;
                let function = match function {
                    Value::Text(text) => FunctionArg::Text(text),
                    other => FunctionArg::Oid(number(other)?),
                };
                let held = crate::routine_privileges::has_function_privilege(
                    &role,
                    function,
                    &text(privilege),
                )?;
                held.map_or(Value::Null, Value::Bool)
            }
            CatalogFunc::HasColumnPrivilege => {
                let (role, args) = match args {
                    [role, rest @ ..] if args.len() == 4 => (Some(role), rest),
                    _ => (None, args),
                };
                let role = match role {
                    None => crate::roles::current_name(),
                    Some(Value::Text(name)) => name.clone(),
                    Some(other) => role_name(number(other)?),
                };
                let lookups = lookups()?;
                let table = match &args[0] {
                    Value::Text(name) => lookups
                        .relation_oid(name)
                        .ok_or_else(|| SqlError::undefined_table(name))?,
                    other => number(other)?,
                };
                let column = match &args[1] {
                    Value::Text(name) => crate::has_privilege::ColumnArg::Name(name),
                    other => crate::has_privilege::ColumnArg::Number(number(other)?),
                };
                let held = crate::has_privilege::has_column_privilege(
                    lookups,
                    &role,
                    table,
                    column,
                    &text(&args[2]),
                )?;
                held.map_or(Value::Null, Value::Bool)
            }
            CatalogFunc::HasSequencePrivilege => {
                let (role, sequence, privilege) = privilege_args(args)?;
                let lookups = lookups()?;
                let sequence = match sequence {
                    Value::Text(name) => lookups
                        .relation_oid(name)
                        .ok_or_else(|| SqlError::undefined_table(name))?,
                    other => number(other)?,
                };
                let held = crate::has_privilege::has_sequence_privilege(
                    lookups,
                    &role,
                    sequence,
                    &text(privilege),
                )?;
                held.map_or(Value::Null, Value::Bool)
            }
            CatalogFunc::DatabaseEncoding => Value::Text("UTF8".into()),
            CatalogFunc::FunctionDef => crate::function_definition::definition(number(&args[0])?)
                .map_or(Value::Null, Value::Text),
            CatalogFunc::CharToEncoding => {
                Value::Int4(match text(&args[0]).to_ascii_uppercase().as_str() {
                    "UTF8" | "UTF-8" | "UNICODE" => UTF8,
                    "SQL_ASCII" => 0,
                    _ => -1,
                })
            }
            CatalogFunc::TableIsVisible => Value::Bool(lookups()?.visible(number(&args[0])?)),
            CatalogFunc::TypeIsVisible => Value::Bool(true),
            CatalogFunc::EncodingToChar => Value::Text(
                match number(&args[0])? {
                    0 => "SQL_ASCII",
                    n if n == i64::from(UTF8) => "UTF8",
                    _ => "",
                }
                .into(),
            ),
            CatalogFunc::FormatType => match (&args[0], &args[1]) {
                (Value::Null, _) => Value::Null,
                (oid, Value::Null) => Value::Text(format_type(number(oid)?, None)),
                (oid, typmod) => {
                    Value::Text(format_type(number(oid)?, Some(number(typmod)? as i32)))
                }
            },
            // Stored as the pretty form; PostgreSQL's default form
            // parenthesizes each operator.
            CatalogFunc::GetExpr => match (&args[0], args.get(2)) {
                // A partition's bound (`relpartbound`) is printed as is.
                (Value::Text(text), _) if text.starts_with("FOR VALUES") || text == "DEFAULT" => {
                    args[0].clone()
                }
                (Value::Text(text), None | Some(Value::Bool(false))) => {
                    Value::Text(crate::deparse::parenthesized(text))
                }
                (expr, _) => expr.clone(),
            },
            CatalogFunc::Description => {
                // (psql passes `pg_operator.oprcode`, a function's name
                // or `-` here, where PostgreSQL's `regproc` is an oid:
                // folio keeps no comments on functions.)
                let Ok(oid) = number(&args[0]) else {
                    return Ok(Value::Null);
                };
                let catalog = args.get(1).map(text);
                (lookups()?.description(oid, catalog.as_deref())).map_or(Value::Null, Value::Text)
            }
            CatalogFunc::TablespaceLocation => {
                crate::system_fixed::Fixed::tablespace_location(number(&args[0])?)
                    .map_or(Value::Null, |l| Value::Text(l.into()))
            }
            CatalogFunc::TablespaceSize => {
                let oid = match &args[0] {
                    Value::Text(name) => crate::system_fixed::Fixed::tablespace_oid(name)
                        .ok_or_else(|| {
                            SqlError::new("42704", format!("tablespace \"{name}\" does not exist"))
                        })?,
                    other => number(other)?,
                };
                (lookups()?.tablespace_size(oid)?).map_or(Value::Null, Value::Int8)
            }
            CatalogFunc::ColumnDescription => (lookups()?)
                .column_description(number(&args[0])?, number(&args[1])?)
                .map_or(Value::Null, Value::Text),
            CatalogFunc::StatisticsColumns => Value::Null,
            CatalogFunc::TriggerDef => {
                let oid = number(&args[0])?;
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                let triggers = crate::triggers::in_scope();
                match triggers.iter().find(|t| t.oid as i64 == oid) {
                    Some(t) => {
                        let table = lookups()?.catalog_name(t.table as i64).unwrap_or_default();
                        let function = crate::builtin_triggers::function_of(t.function)
                            .map(|f| f.name)
                            .unwrap_or_else(|| t.function.to_string());
                        Value::Text(crate::trigger_statements::definition(
                            t, &table, &function, pretty,
                        ))
                    }
                    None => Value::Null,
                }
            }
            CatalogFunc::RuleDef => {
                let oid = number(&args[0])?;
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                let rules = crate::rules::in_scope();
                match rules.iter().find(|r| r.oid as i64 == oid) {
                    Some(r) => {
                        let relation = lookups()?.catalog_name(r.relation as i64);
                        let relation = relation.unwrap_or_default();
                        Value::Text(crate::rule_statements::definition(r, &relation, pretty))
                    }
                    None => Value::Null,
                }
            }
            CatalogFunc::RelationIsPublishable => Value::Bool(true),
            CatalogFunc::RelationIsUpdatable => {
                let oid = u64::try_from(number(&args[0])?).unwrap_or(0);
                let triggers = args[1] == Value::Bool(true);
                Value::Int4(lookups()?.updatable_events(oid, triggers, None))
            }
            CatalogFunc::ColumnIsUpdatable => {
                let oid = u64::try_from(number(&args[0])?).unwrap_or(0);
                let triggers = args[2] == Value::Bool(true);
                Value::Bool(lookups()?.column_is_updatable(oid, number(&args[1])?, triggers))
            }
            CatalogFunc::Size(what) => {
                let oid = regclass_arg(&args[0], lookups()?)?;
                let fork = args.get(1).map(text);
                lookups()?
                    .size(oid, what, fork.as_deref())?
                    .map_or(Value::Null, Value::Int8)
            }
            CatalogFunc::SizePretty => Value::Text(match &args[0] {
                // `pg_size_pretty(numeric)`: of a sum of sizes.
                n @ Value::Numeric(_) => size_pretty_numeric(&text(n)),
                other => size_pretty(number(other)?),
            }),
            CatalogFunc::DatabaseSize => {
                let this = match &args[0] {
                    Value::Text(name) if name == crate::system::DATABASE_NAME => true,
                    Value::Text(name) => {
                        return Err(SqlError::new(
                            "3D000",
                            format!("database \"{name}\" does not exist"),
                        ));
                    }
                    oid => number(oid)? == crate::system::DATABASE_OID,
                };
                match this {
                    true => lookups()?.database_size()?.map_or(Value::Null, Value::Int8),
                    false => Value::Null,
                }
            }
            CatalogFunc::CurrentSchema => {
                (lookups()?.search_path().first()).map_or(Value::Null, |s| Value::Text(s.clone()))
            }
            CatalogFunc::CurrentSchemas => {
                let implicit = args[0] == Value::Bool(true);
                let lookups = lookups()?;
                let temp = lookups.temp_schema().filter(|_| implicit);
                let catalog = implicit.then(|| "pg_catalog".to_string());
                let all = temp.into_iter().chain(catalog);
                Value::Array(
                    (all.chain(lookups.search_path().iter().cloned()))
                        .map(Value::Text)
                        .collect(),
                )
            }
            CatalogFunc::FunctionArguments => {
                crate::system_proc::arguments(number(&args[0])?).map_or(Value::Null, Value::Text)
            }
            CatalogFunc::FunctionResult => {
                crate::system_proc::result(number(&args[0])?).map_or(Value::Null, Value::Text)
            }
            CatalogFunc::QuoteIdent => {
                Value::Text(crate::names::written(&text(&args[0])).to_string())
            }
            CatalogFunc::IndexDef => {
                let column = args.get(1).map_or(Ok(0), number)?;
                let pretty = args.get(2) == Some(&Value::Bool(true));
                lookups()?
                    .index_definition(number(&args[0])?, column, pretty)
                    .map_or(Value::Null, Value::Text)
            }
            // Kept in the pretty form; the default form parenthesizes a
            // CHECK's operators (`CHECK ((a > 0))`).
            CatalogFunc::ConstraintDef => {
                let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                lookups()?
                    .constraint_definition(number(&args[0])?)
                    .map_or(Value::Null, |def| {
                        Value::Text(
                            match def
                                .strip_prefix("CHECK (")
                                .and_then(|d| d.strip_suffix(')'))
                            {
                                Some(expr) if !pretty => {
                                    format!("CHECK ({})", crate::deparse::parenthesized(expr))
                                }
                                _ => def,
                            },
                        )
                    })
            }
            CatalogFunc::SerialSequence => lookups()?
                .serial_sequence(&text(&args[0]), &text(&args[1]))?
                .map_or(Value::Null, Value::Text),
            CatalogFunc::PartitionKeyDef => lookups()?
                .partition_key(number(&args[0])?)
                .map_or(Value::Null, Value::Text),
            CatalogFunc::PartitionConstraintDef => lookups()?
                .partition_constraint(number(&args[0])?)?
                .map_or(Value::Null, Value::Text),
            // Of a name (the old text form) or an oid.
            CatalogFunc::ViewDef => {
                let lookups = lookups()?;
                // (`pg_get_viewdef(name)`: 42P01 for no such relation.)
                let oid = match &args[0] {
                    Value::Text(name) => Some(
                        (lookups.relation_oid(name))
                            .ok_or_else(|| SqlError::undefined_table(name))?,
                    ),
                    other => Some(number(other)?),
                };
                // (`pg_get_viewdef(v, pretty)`; `pg_get_viewdef(v,
                // wrap_column)` is pretty, wrapped at that column.)
                let form = match args.get(1) {
                    None => Some(crate::view_layout::Form::DEFAULT),
                    Some(Value::Bool(pretty)) => Some(crate::view_layout::Form {
                        pretty: *pretty,
                        wrap_column: 0,
                    }),
                    Some(Value::Null) => None,
                    Some(other) => Some(crate::view_layout::Form {
                        pretty: true,
                        wrap_column: usize::try_from(number(other)?).unwrap_or(0),
                    }),
                };
                (oid.zip(form))
                    .and_then(|(oid, form)| lookups.view_definition(oid, form))
                    .map_or(Value::Null, Value::Text)
            }
            CatalogFunc::ToReg(kind) => crate::reg_types::to_reg(kind, &text(&args[0]), found)?,
            CatalogFunc::Reg(kind) => crate::reg_types::value_of(kind, &args[0], found)?,
        })
    }
}

/// A `regclass` argument's oid: a name given as text is looked up (42P01
/// for none), a number is the oid.
pub fn regclass_arg(arg: &Value, lookups: &Lookups) -> Result<i64, SqlError> {
    match arg {
        Value::Text(_) => number(
            &CatalogFunc::Reg(RegKind::Class).eval(std::slice::from_ref(arg), Some(lookups))?,
        ),
        other => number(other),
    }
}

/// The arguments of a `has_*_privilege([role,] object, privilege)` call:
/// the role's name (by name or oid; the current role when not given),
/// the object and the privilege.
fn privilege_args(args: &[Value]) -> Result<(String, &Value, &Value), SqlError> {
    let (role, object, privilege) = match args {
        [role, object, privilege] => (Some(role), object, privilege),
        [object, privilege] => (None, object, privilege),
        _ => unreachable!("takes 2 or 3 arguments"),
    };
    let role = match role {
        None => crate::roles::current_name(),
        Some(Value::Text(name)) => name.clone(),
        Some(other) => role_name(number(other)?),
    };
    Ok((role, object, privilege))
}

/// An oid folio keeps as an `i64` (the catalog's, the fixed ones here)
/// as a value of type `oid`. Every such oid is below 2^32.
pub(crate) fn oid_value(oid: i64) -> Value {
    debug_assert!(u32::try_from(oid).is_ok(), "oid {oid}");
    Value::Oid(oid as u32)
}

/// A role's name by oid, as `pg_get_userbyid` gives it.
pub fn role_name(oid: i64) -> String {
    match oid {
        SUPERUSER_OID => crate::roles::SUPERUSER.into(),
        DATABASE_OWNER_OID => "pg_database_owner".into(),
        other => match u32::try_from(other) {
            Ok(oid) => crate::roles::scoped_name(oid),
            Err(_) => format!("unknown (OID={other})"),
        },
    }
}

/// `format_type(oid, typmod)`: [`type_name`], but for `character`
/// without a length, which PostgreSQL names `character` for no modifier
/// (NULL) and `bpchar` for modifier -1 (and `bit`, `"bit"` for -1) (`type_name` gives the length 1
/// that a column declared `character` has), and for oid 0 (no type, a
/// prefix operator's left operand): `-`.
pub fn format_type(oid: i64, typmod: Option<i32>) -> String {
    const CHARACTER: i64 = 1042;
    const BIT: i64 = 1560;
    match (oid, typmod) {
        (0, _) => "-".into(),
        (CHARACTER, None) => "character".into(),
        (CHARACTER, Some(-1)) => "bpchar".into(),
        // `bit` is `bit(1)` when written: PostgreSQL quotes the name of
        // the type without a length.
        (BIT, Some(-1)) => "\"bit\"".into(),
        (_, typmod) => type_name(oid, typmod.unwrap_or(-1)),
    }
}

/// `format_type(oid, typmod)`: a type's name with its modifier.
pub fn type_name(oid: i64, typmod: i32) -> String {
    // A domain is named by its own name (`domains.rs`), its array type
    // by that name with `[]`.
    if let Ok(oid) = u32::try_from(oid) {
        if let Some(d) = crate::user_types::domain_of_oid(oid) {
            return d.name.clone();
        }
        if let Some(d) =
            (crate::user_types::domains().iter()).find(|d| d.array_oid == oid && oid != 0)
        {
            return format!("{}[]", d.name);
        }
    }
    let known = u32::try_from(oid)
        .ok()
        .and_then(|oid| crate::user_types::of_oid(oid, typmod));
    match (known, oid) {
        (Some(ty), _) => ty.name(),
        (None, 18) => "\"char\"".into(),
        (None, 19) => "name".into(),
        (None, 26) => "oid".into(),
        (None, oid) => match PSEUDO_TYPES.iter().find(|(o, _)| *o == oid) {
            Some((_, name)) => (*name).into(),
            None => "???".into(),
        },
    }
}

/// PostgreSQL's pseudo-types folio names (`format_type`, `regtype`):
/// the results and arguments of functions that are not values' types.
const PSEUDO_TYPES: [(i64, &str); 19] = [
    (2249, "record"),
    (2275, "cstring"),
    (2276, "\"any\""),
    (2277, "anyarray"),
    (2278, "void"),
    (2279, "trigger"),
    (2280, "language_handler"),
    (2281, "internal"),
    (2283, "anyelement"),
    (2776, "anynonarray"),
    (3500, "anyenum"),
    (3831, "anyrange"),
    (4537, "anymultirange"),
    (4538, "anycompatiblemultirange"),
    (3838, "event_trigger"),
    (5077, "anycompatible"),
    (5078, "anycompatiblearray"),
    (5079, "anycompatiblenonarray"),
    (5080, "anycompatiblerange"),
];

/// `pg_size_pretty`: bytes below 10 kB, else kB, MB, GB, TB or PB, each
/// unit used below 20 of the next, rounded half away from zero (as
/// PostgreSQL's).
pub fn size_pretty(bytes: i64) -> String {
    size_pretty_wide(i128::from(bytes))
}

/// `pg_size_pretty(numeric)`, of the number's text: a number of bytes
/// below 10 kB as written (`1.5 bytes`), a larger one as [`size_pretty`]
/// gives its integer part, past `bigint` too.
pub fn size_pretty_numeric(number: &str) -> String {
    let whole = number.split('.').next().unwrap_or(number);
    match whole.parse::<i128>() {
        Ok(n) if n.abs() >= 10 * 1024 => size_pretty_wide(n),
        _ => format!("{number} bytes"),
    }
}

fn size_pretty_wide(bytes: i128) -> String {
    const LIMIT: i128 = 10 * 1024;
    if bytes.abs() < LIMIT {
        return format!("{bytes} bytes");
    }
    // One extra bit is kept for rounding.
    let mut size = bytes >> 9;
    for unit in ["kB", "MB", "GB", "TB"] {
        if size.abs() < LIMIT * 2 - 1 {
            return format!("{} {unit}", half_rounded(size));
        }
        size >>= 10;
    }
    format!("{} PB", half_rounded(size))
}

fn half_rounded(x: i128) -> i128 {
    (x + if x < 0 { -1 } else { 1 }) / 2
}

/// The oid of a type written by name (`integer`, `int4`, `text`, ...).
pub(crate) fn type_oid(name: &str) -> Option<i64> {
    let bare = name
        .trim()
        .strip_prefix("pg_catalog.")
        .unwrap_or(name.trim());
    if let Some((oid, _)) = PSEUDO_TYPES
        .iter()
        .find(|(_, n)| n.trim_matches('"') == bare.trim_matches('"'))
    {
        return Some(*oid);
    }
    let ty = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
        .try_with_sql(name)
        .and_then(|mut p| p.parse_data_type())
        .ok()?;
    if let Some(d) = crate::domains::of_type(&ty) {
        return Some(i64::from(d.oid));
    }
    if let Some(d) = crate::domains::of_array_type(&ty) {
        return Some(i64::from(d.array_oid));
    }
    crate::types::column_type(&ty)
        .ok()
        .map(|t| i64::from(t.oid()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_postgresql_prints_them() {
        assert_eq!(type_name(23, -1), "integer");
        assert_eq!(type_name(1043, 14), "character varying(10)");
        assert_eq!(type_name(1700, ((10 << 16) | 2) + 4), "numeric(10,2)");
        assert_eq!(type_name(26, -1), "oid");
        assert_eq!(role_name(10), "postgres");
        assert_eq!(role_name(6171), "pg_database_owner");
        let enc = CatalogFunc::EncodingToChar
            .eval(&[Value::Int4(6)], None)
            .unwrap();
        assert_eq!(enc, Value::Text("UTF8".into()));
        let reg = |kind, v| match CatalogFunc::Reg(kind).eval(&[v], None) {
            Ok(Value::Reg(r)) => Ok((r.oid, r.name)),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.code),
        };
        assert_eq!(
            reg(RegKind::Type, Value::Oid(23)),
            Ok((23, "integer".into()))
        );
        assert_eq!(
            reg(RegKind::Namespace, Value::Int8(2200)),
            Ok((2200, "public".into()))
        );
        let text = |t: &str| Value::Text(t.into());
        assert_eq!(
            reg(RegKind::Type, text("character varying")),
            Ok((1043, "character varying".into()))
        );
        assert_eq!(reg(RegKind::Type, text("nope")), Err("42704"));
        // (No relation is known without the catalog's lookups.)
        assert_eq!(reg(RegKind::Class, text("t")), Err("42P01"));
        assert_eq!(size_pretty(8192), "8192 bytes");
        assert_eq!(size_pretty(10 * 1024), "10 kB");
        assert_eq!(size_pretty(1_310_720_000), "1250 MB");
        assert_eq!(size_pretty(21 * 1024 * 1024 * 1024), "21 GB");
        assert_eq!(size_pretty_numeric("1.5"), "1.5 bytes");
        assert_eq!(size_pretty_numeric("16384"), "16 kB");
        assert_eq!(size_pretty_numeric("100000000000000000000"), "88818 PB");
    }
}
