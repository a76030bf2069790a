//! Indexes: `CREATE [UNIQUE] INDEX`, `DROP INDEX`, and the indexes of
//! `PRIMARY KEY` and `UNIQUE` constraints, with PostgreSQL's names for
//! those the statement does not name (the one owner of that rule).

use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::{KeyOrder, MAX_NAME_LEN};
use folio_db::{Database, Transaction};
use sqlparser::ast::{CreateIndex, Expr, IndexColumn, ObjectName};

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table [USING btree]
/// (key [ASC | DESC] [NULLS FIRST | LAST], ...) [INCLUDE (column, ...)]
/// [WHERE predicate]`, a key being a column or an expression
/// (`lower(name)`, `(a + b)`: design in `index_exprs.rs`). Included
/// columns are not keys: any type, no operator class, not in the
/// uniqueness (README "Covering indexes").
pub fn create_index(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &CreateIndex,
) -> Result<Output, SqlError> {
    let method = (create.using.as_ref()).map(|u| u.to_string().to_ascii_lowercase());
    let using_btree = method.as_deref().is_none_or(|m| m == "btree");
    if let Some(method @ ("brin" | "gin" | "hash")) = method.as_deref()
        && !create.include.is_empty()
    {
        return Err(SqlError::new(
            "0A000",
            format!("access method \"{method}\" does not support included columns"),
        ));
    }
    if !using_btree
        || !create.with.is_empty()
        || !create.index_options.is_empty()
        || !create.alter_options.is_empty()
    {
        return Err(SqlError::unsupported(
            "CREATE INDEX with USING (other than btree) or WITH",
        ));
    }
    // CONCURRENTLY builds the same index; folio's build locks writers out
    // for its duration (PostgreSQL's would let them go on).
    let table = names::relation(&create.table_name)?;
    if create.concurrently {
        refuse_partitioned_concurrently(db, txn, Some(&table), None)?;
    }
    let keys = create
        .columns
        .iter()
        .map(index_key)
        .collect::<Result<Vec<_>, _>>()?;
    let include: Vec<String> = create.include.iter().map(names::ident).collect();
    let name = match &create.name {
        Some(name) => names::relation(name)?,
        None => {
            let labels: Vec<String> = (keys.iter())
                .map(|(key, _)| match key {
                    Key::Column(c) => c.clone(),
                    Key::Expression(e) => crate::index_exprs::label(e),
                })
                .chain(include.iter().cloned())
                .collect();
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            // (`_key` is a UNIQUE constraint's; a unique index is `_idx`
            // too, as PostgreSQL names it.)
            free_name(db, txn, &table, &labels, "idx")?
        }
    };
    if create.if_not_exists && db.catalog().relation_exists(txn, &name)? {
        notices.push(Notice::info(format!(
            "relation \"{}\" already exists, skipping",
            folio_catalog::unqualified(&name)
        )));
        return Ok(Output::command("CREATE INDEX"));
    }
    // (A table column may not have a system column's name: 42701.)
    let system = keys.iter().any(|(key, _)| match key {
        Key::Column(c) => crate::system_columns::reserved(c),
        Key::Expression(e) => crate::system_columns::mentioned(&**e),
    }) || include.iter().any(|c| crate::system_columns::reserved(c))
        || (create.predicate.as_ref()).is_some_and(crate::system_columns::mentioned);
    if system {
        return Err(SqlError::new(
            "0A000",
            "index creation on system columns is not supported",
        ));
    }
    let expressions: Vec<&Expr> = (keys.iter())
        .filter_map(|(key, _)| match key {
            Key::Expression(e) => Some(&**e),
            Key::Column(_) => None,
        })
        .collect();
    let exprs = match (expressions.is_empty(), &create.predicate) {
        (true, None) => folio_catalog::IndexExprs::default(),
        (_, predicate) => {
            let relation = db
                .catalog()
                .relation(txn, &table)?
                .ok_or_else(|| folio_catalog::CatalogError::NoSuchRelation(table.clone()))?;
            crate::index_exprs::prepare(&relation, &expressions, predicate.as_ref())?
        }
    };
    check_operator_classes(db, txn, &table, create, &keys, &exprs)?;
    let keyed: Vec<(Option<&str>, KeyOrder)> = (keys.iter())
        .map(|(key, order)| match key {
            Key::Column(c) => (Some(c.as_str()), *order),
            Key::Expression(_) => (None, *order),
        })
        .collect();
    // Rows already in the table that collide: the catalog gives
    // PostgreSQL's `could not create unique index` and the key.
    let include: Vec<&str> = include.iter().map(String::as_str).collect();
    db.catalog().create_index_derived(
        txn,
        &table,
        &name,
        (&keyed, &include),
        exprs,
        create.unique.then_some(nulls(create.nulls_distinct)),
    )?;
    Ok(Output::command("CREATE INDEX"))
}

/// How a unique index's NULLs compare, from `NULLS [NOT] DISTINCT`
/// (`Some(false)`: NOT DISTINCT; not given: distinct, PostgreSQL's
/// default). A plain index takes the clause and has no use for it, as
/// PostgreSQL's.
pub fn nulls(nulls_distinct: Option<bool>) -> folio_catalog::Nulls {
    match nulls_distinct {
        Some(false) => folio_catalog::Nulls::NotDistinct,
        Some(true) | None => folio_catalog::Nulls::Distinct,
    }
}

/// `NULLS NOT DISTINCT` as SQL text writes it for `nulls` (after `UNIQUE`
/// in a constraint, after the key list of an index: `pg_get_indexdef`,
/// `pg_get_constraintdef`, the copies of an index for LIKE and for a
/// partition), with a space before; nothing for the default.
pub fn nulls_clause(nulls: folio_catalog::Nulls) -> &'static str {
    match nulls {
        folio_catalog::Nulls::NotDistinct => " NULLS NOT DISTINCT",
        folio_catalog::Nulls::Distinct => "",
    }
}

/// PostgreSQL's limits of `DROP INDEX CONCURRENTLY` (`drop`, the DROP
/// INDEX without the word): one index, no CASCADE (0A000).
pub fn check_drop_concurrently(drop: &sqlparser::ast::Statement) -> Result<(), SqlError> {
    if let sqlparser::ast::Statement::Drop { names, cascade, .. } = drop {
        if names.len() > 1 {
            return Err(SqlError::new(
                "0A000",
                "DROP INDEX CONCURRENTLY does not support dropping multiple objects",
            ));
        }
        if *cascade {
            return Err(SqlError::new(
                "0A000",
                "DROP INDEX CONCURRENTLY does not support CASCADE",
            ));
        }
    }
    Ok(())
}

/// A key of `CREATE INDEX`: a column, or an expression's value.
enum Key {
    Column(String),
    Expression(Box<Expr>),
}

/// A key of `CREATE INDEX` with its order: a column given by name
/// (alone in parentheses too, as PostgreSQL takes `((a))`), else an
/// expression.
fn index_key(column: &IndexColumn) -> Result<(Key, KeyOrder), SqlError> {
    let mut expr = &column.column.expr;
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    let key = match expr {
        Expr::Identifier(id) => Key::Column(names::ident(id)),
        other => Key::Expression(Box::new(other.clone())),
    };
    Ok((key, key_order(column)))
}

/// The operator classes written on `create`'s keys: each must be its
/// column type's default (`default_opclass.rs`).
fn check_operator_classes(
    db: &Database,
    txn: &mut Transaction,
    table: &str,
    create: &CreateIndex,
    keys: &[(Key, KeyOrder)],
    exprs: &folio_catalog::IndexExprs,
) -> Result<(), SqlError> {
    if create.columns.iter().all(|c| c.operator_class.is_none()) {
        return Ok(());
    }
    // No such table: left to the catalog's error.
    let Some(def) = db.catalog().table(txn, table)? else {
        return Ok(());
    };
    // (An expression key's type is its prepared expression's, in order.)
    let mut expression_types = exprs.keys.iter().map(|k| k.type_oid);
    for (column, (key, _)) in create.columns.iter().zip(keys) {
        let type_oid = match key {
            Key::Column(name) => (def.columns.iter())
                .find(|c| c.name == *name)
                .map(|c| c.type_oid),
            Key::Expression(_) => expression_types.next(),
        };
        let Some(class) = &column.operator_class else {
            continue;
        };
        crate::default_opclass::check(&class.value, type_oid, &column.to_string())?;
    }
    Ok(())
}

/// `DROP INDEX [IF EXISTS] name, ...`. The index of a partitioned table
/// goes with its partitions' indexes that stand for it
/// (`partitions/index_tree.rs`); such a partition's index goes only with
/// its parent's, named in the same statement (else PostgreSQL's 2BP01,
/// CASCADE or not).
pub fn drop_indexes(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    names: &[ObjectName],
) -> Result<Output, SqlError> {
    let names = (names.iter())
        .map(names::relation)
        .collect::<Result<Vec<_>, _>>()?;
    let mut named = Vec::with_capacity(names.len());
    for name in &names {
        if let Some((oid, 'i')) = db.catalog().relation_oid(txn, name)? {
            named.push(oid);
        }
    }
    for name in &names {
        if db.catalog().table(txn, name)?.is_some() {
            return Err(SqlError::new(
                "42809",
                format!("\"{name}\" is not an index"),
            ));
        }
        let partitions = match db.catalog().relation_oid(txn, name)? {
            Some((oid, 'i')) => index_partitions(db, txn, oid, &named)?,
            _ => Vec::new(),
        };
        match db.catalog().drop_index(txn, name) {
            Err(folio_catalog::CatalogError::NoSuchIndex(_)) if if_exists => {
                notices.push(Notice::info(format!(
                    "index \"{name}\" does not exist, skipping"
                )));
            }
            other => other?,
        }
        for partition in &partitions {
            db.catalog().drop_index(txn, partition)?;
        }
    }
    Ok(Output::command("DROP INDEX"))
}

/// The names of the indexes of partitions that stand for index `oid`, at
/// every level below it; 2BP01 if `oid` itself stands for the index of a
/// partitioned table that is not among the statement's indexes `named`.
fn index_partitions(
    db: &Database,
    txn: &Transaction,
    oid: u64,
    named: &[u64],
) -> Result<Vec<String>, SqlError> {
    let tables = db.catalog().tables(txn)?;
    let parents = crate::partitions::index_tree::parents(&tables);
    let name_of = |oid: u64| {
        (tables.iter())
            .flat_map(|t| &t.indexes)
            .find(|i| i.oid == oid)
            .map(|i| i.name.clone())
            .unwrap_or_default()
    };
    if let Some(&parent) = parents.get(&oid)
        && !named.contains(&parent)
    {
        let parent = name_of(parent);
        let parent = folio_catalog::unqualified(&parent);
        let index = name_of(oid);
        return Err(SqlError::new(
            "2BP01",
            format!(
                "cannot drop index {} because index {parent} requires it",
                folio_catalog::unqualified(&index)
            ),
        )
        .with_hint(format!("You can drop index {parent} instead.")));
    }
    let below = crate::partitions::index_tree::below(&tables, &parents, oid);
    Ok(below.into_iter().map(|(_, index)| index).collect())
}

/// PostgreSQL's refusals of CONCURRENTLY for a partitioned table's index:
/// `CREATE INDEX CONCURRENTLY` on the table (`create`), or `DROP INDEX
/// CONCURRENTLY` of the index (`drop`, without the word), both 0A000.
pub fn refuse_partitioned_concurrently(
    db: &Database,
    txn: &Transaction,
    create: Option<&str>,
    drop: Option<&str>,
) -> Result<(), SqlError> {
    let tables = db.catalog().tables(txn)?;
    let partitioned = (tables.iter()).filter(|t| t.partition_key().is_some());
    for table in partitioned {
        if create == Some(table.name.as_str()) {
            return Err(SqlError::new(
                "0A000",
                format!(
                    "cannot create index on partitioned table \"{}\" concurrently",
                    folio_catalog::unqualified(&table.name)
                ),
            ));
        }
        if let Some(index) = drop
            && table.indexes.iter().any(|i| i.name == index)
        {
            return Err(SqlError::new(
                "0A000",
                format!(
                    "cannot drop partitioned index \"{}\" concurrently",
                    folio_catalog::unqualified(index)
                ),
            ));
        }
    }
    Ok(())
}

/// The unique index of a `[CONSTRAINT name] UNIQUE (columns)` constraint
/// of `table`: named as the constraint, or as PostgreSQL names it
/// (`table_col_key`). The index is the constraint (folio keeps no
/// separate constraint row for it; `ALTER TABLE ... DROP CONSTRAINT`
/// drops it: folio-catalog `drop_constraint`).
pub fn add_unique(
    db: &Database,
    txn: &mut Transaction,
    table: &str,
    constraint: Option<&str>,
    (columns, include): (&[String], &[String]),
    (deferrable, nulls): (folio_catalog::Deferrable, folio_catalog::Nulls),
) -> Result<(), SqlError> {
    let plain: Vec<&str> = columns.iter().map(String::as_str).collect();
    let include: Vec<&str> = include.iter().map(String::as_str).collect();
    // Named after every column, included ones too (PostgreSQL's
    // `ChooseIndexColumnNames`).
    let labels: Vec<&str> = plain.iter().chain(&include).copied().collect();
    let name = match constraint {
        Some(name) => name.to_string(),
        None => free_name(db, txn, table, &labels, "key")?,
    };
    db.catalog()
        .add_unique_constraint(txn, table, &name, (&plain, &include), deferrable, nulls)?;
    Ok(())
}

/// A key column given by name, with its order (`ASC`/`DESC`, `NULLS
/// FIRST`/`LAST`; PostgreSQL's defaults when not given).
pub fn ordered_column(column: &IndexColumn) -> Result<(String, KeyOrder), SqlError> {
    let Expr::Identifier(id) = &column.column.expr else {
        return Err(SqlError::unsupported(format!(
            "the key column {column} (expressions)"
        )));
    };
    if column.operator_class.is_some() {
        return Err(SqlError::unsupported(format!(
            "the operator class of {column}"
        )));
    }
    Ok((names::ident(id), key_order(column)))
}

/// A key's order as written (PostgreSQL's defaults when not given).
fn key_order(column: &IndexColumn) -> KeyOrder {
    let options = &column.column.options;
    let mut order = KeyOrder::new(options.asc == Some(false));
    if let Some(first) = options.nulls_first {
        order.nulls_first = first;
    }
    order
}

/// PostgreSQL's name for an index it names itself
/// (`ChooseRelationName`): `table_col1_col2_label`, shortened to 63
/// bytes, then with the first of `1, 2, ...` that makes it unused. A
/// column named twice (a key column also included) takes the first of
/// `1, 2, ...` that makes it differ from the names before it
/// (`ChooseIndexColumnNames`: `c1_c2_c11`).
fn free_name(
    db: &Database,
    txn: &Transaction,
    table: &str,
    columns: &[&str],
    label: &str,
) -> Result<String, SqlError> {
    let mut distinct: Vec<String> = Vec::with_capacity(columns.len());
    for &column in columns {
        let mut name = column.to_string();
        let mut suffix = 1;
        while distinct.contains(&name) {
            let digits = suffix.to_string();
            name = format!("{}{digits}", shortened(column, MAX_NAME_LEN - digits.len()));
            suffix += 1;
        }
        distinct.push(name);
    }
    let columns: Vec<&str> = distinct.iter().map(String::as_str).collect();
    chosen_name(table, &columns, label, |name| {
        Ok(db.catalog().relation_exists(txn, name)?)
    })
}

/// PostgreSQL's name for an object it names itself (`ChooseRelationName`,
/// `ChooseConstraintName`): `table_col1_col2_label` (`table_label` without
/// columns), shortened to 63 bytes, then with the first of `1, 2, ...`
/// that `taken` says is free.
pub fn chosen_name(
    table: &str,
    columns: &[&str],
    label: &str,
    mut taken: impl FnMut(&str) -> Result<bool, SqlError>,
) -> Result<String, SqlError> {
    // A table's relations are in its schema (a temporary table's in its
    // namespace); the name proper is chosen from its bare name.
    let (namespace, table) = match folio_catalog::split_schema(table) {
        (_, bare) if bare == table => (String::new(), table),
        (schema, bare) => (format!("{schema}."), bare),
    };
    let base = std::iter::once(table)
        .chain(columns.iter().copied())
        .collect::<Vec<_>>()
        .join("_");
    for n in 0u32.. {
        let suffix = match n {
            0 => format!("_{label}"),
            n => format!("_{label}{n}"),
        };
        let name = format!(
            "{namespace}{}{suffix}",
            shortened(&base, MAX_NAME_LEN - suffix.len())
        );
        if !taken(&name)? {
            return Ok(name);
        }
    }
    unreachable!("some suffix is free")
}

/// The longest prefix of `text` of at most `max` bytes ending on a
/// character boundary.
fn shortened(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::shortened;

    #[test]
    fn names_are_shortened_on_character_boundaries() {
        assert_eq!(shortened("abcdef", 4), "abcd");
        assert_eq!(shortened("ab", 4), "ab");
        assert_eq!(shortened("aé", 2), "a");
    }
}
