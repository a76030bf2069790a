//! The statements that make and change partitioned tables: CREATE TABLE
//! ... PARTITION BY, CREATE TABLE ... PARTITION OF, ALTER TABLE ... ATTACH
//! / DETACH PARTITION, and what DROP, TRUNCATE, ADD PRIMARY KEY / UNIQUE
//! and CREATE INDEX do to a partitioned table's partitions.

use super::bounds::Bound;
use super::column_map::ColumnMap;
use super::syntax::{BoundSpec, KeyPart, TableSpec};
use super::tree::Tree;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::parse::Parsed;
use crate::scalar::Env;
use folio_catalog::{Partition, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{AlterTableOperation, ObjectName, Statement, TableConstraint};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;

fn run_sql(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: Statement,
) -> Result<Output, SqlError> {
    crate::session::run_utility(cx, txn, notices, &Parsed::Sql(Box::new(statement)))
}

fn parse_one(sql: &str) -> Result<Statement, SqlError> {
    match crate::parse::statements(sql)?.pop() {
        Some(Parsed::Sql(statement)) => Ok(*statement),
        _ => Err(SqlError::new("XX000", format!("not one statement: {sql}"))),
    }
}

fn table_def(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<TableDef, SqlError> {
    cx.db
        .catalog()
        .table(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(name))
}

fn bare(name: &str) -> &str {
    folio_catalog::unqualified(name)
}

/// A table's name as SQL text (each part quoted where needed).
fn written_name(name: &str) -> String {
    (name.split('.'))
        .map(|p| names::written(p).to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// `CREATE TABLE name ... PARTITION BY ...` and `CREATE TABLE name
/// PARTITION OF parent ...` (`create`: the statement without those
/// clauses; a partition's column list is empty).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &Statement,
    spec: &TableSpec,
) -> Result<Output, SqlError> {
    let Statement::CreateTable(table) = create else {
        return Err(SqlError::new("XX000", "not a CREATE TABLE"));
    };
    // (Where the table goes, and the parent an unqualified name means,
    // by the search path: a CREATE SCHEMA element's, or `SET search_path`.)
    let name = crate::temp_tables::claimed_name(cx, txn, table)?;
    let mut table = table.clone();
    let mut parent_bound = None;
    if let Some(of) = &spec.of {
        let parent = table_def(
            cx,
            txn,
            &crate::temp_tables::resolve_name(cx, txn, &of.parent)?,
        )?;
        let Some(tree) = Tree::of(cx, txn, &parent)? else {
            return Err(SqlError::new(
                "42809",
                format!("\"{}\" is not partitioned", bare(&parent.name)),
            ));
        };
        persistence_matches(&name, &parent.name)?;
        let bound = check_bound(cx, &tree, bare(&name), &of.bound)?;
        default_rows_outside(cx, txn, &parent, &tree, &bound)?;
        let (columns, constraints) = columns_of(&parent, &of.elements)?;
        table.columns = columns;
        table.constraints.extend(constraints);
        parent_bound = Some((parent, bound));
    }
    if spec.by.is_some() && (table.constraints.iter()).any(crate::inheritance::syntax::no_inherit) {
        return Err(SqlError::new(
            "42P16",
            format!(
                "cannot add NO INHERIT constraint to partitioned table \"{}\"",
                bare(&name)
            ),
        ));
    }
    let made = run_sql(cx, txn, notices, Statement::CreateTable(table))?;
    cx.relations.ddl();
    if let Some(by) = &spec.by {
        let def = table_def(cx, txn, &name)?;
        let mut columns = Vec::new();
        let mut exprs = Vec::new();
        for part in &by.parts {
            let (position, ty) = match part {
                KeyPart::Column(column) => {
                    let Some(position) = def.column(column) else {
                        return Err(SqlError::new(
                            "42703",
                            format!("column \"{column}\" named in partition key does not exist"),
                        ));
                    };
                    (position as u16, def.column_type(position))
                }
                KeyPart::Expr(e) => {
                    let relation = crate::access::relation(cx, txn, &name)?;
                    let bound = crate::scalar::bind(e, relation.as_ref())?;
                    if !crate::immutable::immutable(&bound, &relation.types) {
                        return Err(SqlError::new(
                            "42P17",
                            "functions in partition key expression must be marked IMMUTABLE",
                        ));
                    }
                    exprs.push(e.to_string());
                    (Partition::EXPRESSION, Some(bound.ty_in(relation.as_ref())))
                }
            };
            if by.strategy == super::HASH && !ty.is_some_and(super::hash::hashable) {
                let what = match part {
                    KeyPart::Column(column) => format!("column \"{column}\""),
                    KeyPart::Expr(e) => format!("expression {e}"),
                };
                return Err(SqlError::unsupported(format!(
                    "hash partitioning by {what} of its type"
                )));
            }
            columns.push(position);
        }
        cx.db.catalog().add_partition(
            txn,
            &name,
            Partition::Key {
                strategy: by.strategy,
                columns,
                exprs,
            },
        )?;
        cx.relations.ddl();
        let def = table_def(cx, txn, &name)?;
        for index in def.indexes.iter().filter(|i| i.unique) {
            keys_cover_partition_key(&def, &index.columns, index.primary)?;
        }
    }
    if let Some((parent, bound)) = parent_bound {
        attach_def(cx, txn, notices, &parent, &name, &bound)?;
    }
    Ok(made)
}

/// A partition created as `name` under the table `parent` must be as
/// temporary as it: PostgreSQL's 42809 either way.
fn persistence_matches(name: &str, parent: &str) -> Result<(), SqlError> {
    let temporary = |name: &str| folio_catalog::split_temp_name(name).is_some();
    let (this, other) = match (temporary(name), temporary(parent)) {
        (true, false) => ("temporary", "permanent"),
        (false, true) => ("permanent", "temporary"),
        _ => return Ok(()),
    };
    Err(SqlError::new(
        "42809",
        format!(
            "cannot create a {this} relation as partition of {other} relation \"{}\"",
            bare(parent)
        ),
    ))
}

/// The parent's columns as a partition's column list (types, NOT NULL,
/// defaults), with what the partition's own element list (`PARTITION OF
/// parent (element, ...)`) adds: a column's options after the parent's
/// (its DEFAULT instead of the parent's), and table constraints.
/// PostgreSQL's errors: 42703 for a column the parent lacks, 42701 for
/// one given twice.
fn columns_of(
    parent: &TableDef,
    elements: &[Vec<Token>],
) -> Result<(Vec<sqlparser::ast::ColumnDef>, Vec<TableConstraint>), SqlError> {
    let joined = |tokens: &[Token]| {
        (tokens.iter().map(Token::to_string))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut own: Vec<(String, &[Token])> = Vec::new();
    let mut constraints = Vec::new();
    for element in elements {
        let starts_constraint = matches!(
            element.first().and_then(crate::parse::keyword),
            Some(
                Keyword::CONSTRAINT
                    | Keyword::CHECK
                    | Keyword::PRIMARY
                    | Keyword::UNIQUE
                    | Keyword::FOREIGN
                    | Keyword::EXCLUDE
            )
        );
        if starts_constraint {
            constraints.push(joined(element));
            continue;
        }
        let Some(Token::Word(w)) = element.first() else {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{}\"",
                joined(&element[..1])
            )));
        };
        let column = match w.quote_style {
            Some(_) => w.value.clone(),
            None => w.value.to_lowercase(),
        };
        if parent.column(&column).is_none() {
            return Err(
                SqlError::new("42703", format!("column \"{column}\" does not exist")).unplaced(),
            );
        }
        if own.iter().any(|(c, _)| *c == column) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{column}\" specified more than once"),
            ));
        }
        let mut options = &element[1..];
        if let [Token::Word(with), Token::Word(opts), rest @ ..] = options
            && with.keyword == Keyword::WITH
            && opts.keyword == Keyword::OPTIONS
        {
            options = rest;
        }
        own.push((column, options));
    }
    let mut list = Vec::new();
    for (n, c) in parent.columns.iter().enumerate() {
        let ty = crate::catalog_functions::format_type(i64::from(c.type_oid), Some(c.typmod));
        let mut text = format!("{} {ty}", names::written(&c.name));
        if c.not_null {
            text.push_str(" NOT NULL");
        }
        let options = own.iter().find(|(o, _)| *o == c.name).map(|(_, t)| *t);
        let own_default = options.is_some_and(|t| {
            (t.iter()).any(|t| crate::parse::keyword(t) == Some(Keyword::DEFAULT))
        });
        if let Some(default) = parent.default_of(n)
            && !own_default
        {
            text.push_str(&format!(" DEFAULT {default}"));
        }
        if let Some(options) = options {
            text.push(' ');
            text.push_str(&joined(options));
        }
        list.push(text);
    }
    list.extend(constraints);
    let Statement::CreateTable(made) = parse_one(&format!("CREATE TABLE x ({})", list.join(", ")))?
    else {
        return Err(SqlError::new("XX000", "columns of a partition"));
    };
    Ok((made.columns, made.constraints))
}

/// `bound` evaluated for a new partition `name` of `tree`: 42P17 for an
/// empty range or one overlapping a partition's, or a second default.
fn check_bound(cx: &Ctx<'_>, tree: &Tree, name: &str, spec: &BoundSpec) -> Result<Bound, SqlError> {
    let bound = Bound::evaluate(spec, &tree.key, &Env::at(cx.now()))?;
    if let Some((low, high)) = bound.empty_range()? {
        return Err(SqlError::new(
            "42P17",
            format!("empty range bound specified for partition \"{name}\""),
        )
        .with_detail(format!(
            "Specified lower bound ({low}) is greater than or equal to upper bound ({high})."
        )));
    }
    if let Bound::Hash { modulus, .. } = bound {
        for part in &tree.parts {
            if let Bound::Hash { modulus: other, .. } = part.bound
                && (modulus.max(other) % modulus.min(other)) != 0
            {
                let (smaller, larger) = (modulus.min(other), modulus.max(other));
                let detail = match modulus > other {
                    true => format!(
                        "The new modulus {modulus} is not divisible by {smaller}, the modulus of existing partition \"{}\".",
                        part.name
                    ),
                    false => format!(
                        "The new modulus {modulus} is not a factor of {larger}, the modulus of existing partition \"{}\".",
                        part.name
                    ),
                };
                return Err(SqlError::new(
                    "42P17",
                    "every hash partition modulus must be a factor of the next larger modulus",
                )
                .with_detail(detail));
            }
        }
    }
    for part in &tree.parts {
        if bound.overlaps(&part.bound)? {
            return Err(match bound {
                Bound::Default => SqlError::new(
                    "42P17",
                    format!(
                        "partition \"{name}\" conflicts with existing default partition \"{}\"",
                        bare(&part.name)
                    ),
                ),
                _ => SqlError::new(
                    "42P17",
                    format!(
                        "partition \"{name}\" would overlap partition \"{}\"",
                        bare(&part.name)
                    ),
                ),
            });
        }
    }
    Ok(bound)
}

/// Makes table `name` a partition of `parent` with `bound` (checked), and
/// gives it the parent's keys and indexes.
fn attach_def(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    parent: &TableDef,
    name: &str,
    bound: &Bound,
) -> Result<(), SqlError> {
    cx.db.catalog().add_partition(
        txn,
        name,
        Partition::Of {
            parent_oid: parent.oid,
            parent: parent.name.clone(),
            bound: bound.text(),
        },
    )?;
    cx.relations.ddl();
    let child = table_def(cx, txn, name)?;
    // (Each parent index the partition has none standing for.)
    let unmatched = super::index_tree::matched(parent, &child)
        .into_iter()
        .filter_map(|(index, partition)| partition.is_none().then_some(index));
    for index in unmatched.filter(|i| i.is_plain()) {
        let columns: Vec<String> = (index.columns.iter())
            .map(|&c| names::written(&parent.columns[usize::from(c)].name).to_string())
            .collect();
        // (A plain index keeps its columns' order, as PostgreSQL's copy.)
        let ordered: Vec<String> = (columns.iter().enumerate())
            .map(|(n, column)| {
                let order = index.order.get(n).copied().unwrap_or_default();
                let direction = if order.descending { " DESC" } else { "" };
                let nulls = match (order.nulls_first, order.descending) {
                    (true, false) => " NULLS FIRST",
                    (false, true) => " NULLS LAST",
                    _ => "",
                };
                format!("{column}{direction}{nulls}")
            })
            .collect();
        let (columns, ordered) = (columns.join(", "), ordered.join(", "));
        let written = written_name(name);
        let nulls = crate::indexes::nulls_clause(index.nulls);
        // A key keeps its parent's deferrability (SET CONSTRAINTS of the
        // parent's names it, `deferred.rs`).
        let deferrable = match (
            index.deferrable.is_deferrable(),
            index.deferrable.initially_deferred(),
        ) {
            (true, true) => " DEFERRABLE INITIALLY DEFERRED",
            (true, false) => " DEFERRABLE",
            (false, _) => "",
        };
        let sql = match (index.primary, index.constraint, index.unique) {
            (true, _, _) => {
                format!("ALTER TABLE {written} ADD PRIMARY KEY ({columns}){deferrable}")
            }
            (false, true, _) => {
                format!("ALTER TABLE {written} ADD UNIQUE{nulls} ({columns}){deferrable}")
            }
            (false, false, true) => {
                format!("CREATE UNIQUE INDEX ON {written} ({ordered}){nulls}")
            }
            (false, false, false) => format!("CREATE INDEX ON {written} ({ordered})"),
        };
        run_sql(cx, txn, notices, parse_one(&sql)?)?;
    }
    for c in &parent.constraints {
        if let folio_catalog::ConstraintKind::Check { expr } = &c.kind
            && !child.constraints.iter().any(|o| o.name == c.name)
        {
            cx.db.catalog().add_constraint(
                txn,
                name,
                &c.name,
                folio_catalog::ConstraintKind::Check { expr: expr.clone() },
            )?;
            // The parent's, not the partition's own (`inherited_alter.rs`).
            (cx.db.catalog()).set_constraint_local(txn, name, &c.name, false)?;
        }
    }
    super::trigger_clones::clone_all(cx, txn, parent, name)?;
    set_inherited(cx, txn, parent, name, false)?;
    cx.relations.ddl();
    super::merged_keys::merge(cx, txn, name)
}

/// Marks the columns and CHECK constraints partition `name` has of
/// `parent` its own (`local`, after DETACH) or only inherited (after
/// CREATE ... PARTITION OF and ATTACH: PostgreSQL's attislocal and
/// conislocal are always false for a partition's merged ones).
fn set_inherited(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    parent: &TableDef,
    name: &str,
    local: bool,
) -> Result<(), SqlError> {
    let child = table_def(cx, txn, name)?;
    let catalog = cx.db.catalog();
    for column in &child.columns {
        if column.local != local && parent.column(&column.name).is_some() {
            catalog.set_column_local(txn, name, &column.name, local)?;
        }
    }
    for c in &child.constraints {
        if matches!(c.kind, folio_catalog::ConstraintKind::Check { .. })
            && c.local != local
            && crate::inheritance::counts::inheritable_check(parent, &c.name)
        {
            catalog.set_constraint_local(txn, name, &c.name, local)?;
        }
    }
    cx.relations.ddl();
    Ok(())
}

/// 23514 if a row of `parent`'s default partition (of `tree`) falls in
/// `bound`, a new partition's: PostgreSQL rechecks the default
/// partition's rows against its narrowed constraint when a partition is
/// created or attached.
fn default_rows_outside(
    cx: &Ctx<'_>,
    txn: &Transaction,
    parent: &TableDef,
    tree: &Tree,
    bound: &Bound,
) -> Result<(), SqlError> {
    if matches!(bound, Bound::Default) {
        return Ok(());
    }
    let Some(default) = (tree.parts.iter()).find(|p| matches!(p.bound, Bound::Default)) else {
        return Ok(());
    };
    let relation = crate::access::relation(cx, txn, &default.name)?;
    for leaf in super::foreign_keys::leaves(cx, txn, relation)? {
        let map = super::column_map::ColumnMap::between(parent, &leaf.def);
        for (_, row) in leaf.scan(txn)? {
            let key = tree.key.values(&super::column_map::up(map.as_ref(), row))?;
            if bound.holds(&key)? {
                return Err(SqlError::new(
                    "23514",
                    format!(
                        "updated partition constraint for default partition \"{}\" would be violated by some row",
                        bare(&default.name)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// ATTACH's rule for the CHECK constraints of table `child`: each
/// inheritable one of `parent` must be there, of the same expression
/// (42804, PostgreSQL 15's MergeConstraintsIntoExisting).
fn attached_checks(parent: &TableDef, child: &TableDef) -> Result<(), SqlError> {
    use folio_catalog::ConstraintKind;
    for c in &parent.constraints {
        let ConstraintKind::Check { expr } = &c.kind else {
            continue;
        };
        if c.no_inherit {
            continue;
        }
        let mine = child.constraints.iter().find_map(|o| match &o.kind {
            ConstraintKind::Check { expr } if o.name == c.name => Some((o, expr)),
            _ => None,
        });
        match mine {
            None => {
                return Err(SqlError::new(
                    "42804",
                    format!("child table is missing constraint \"{}\"", c.name),
                ));
            }
            Some((o, _)) if o.no_inherit => {
                return Err(SqlError::new(
                    "42P17",
                    format!(
                        "constraint \"{}\" conflicts with non-inherited constraint on child table \"{}\"",
                        c.name,
                        bare(&child.name)
                    ),
                ));
            }
            Some((_, have)) if have != expr => {
                return Err(SqlError::new(
                    "42804",
                    format!(
                        "child table \"{}\" has different definition for check constraint \"{}\"",
                        bare(&child.name),
                        c.name
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// 0A000 unless a unique key over `columns` of partitioned table `def`
/// holds every partition key column (PostgreSQL's rule: each partition's
/// index alone then enforces it).
fn keys_cover_partition_key(
    def: &TableDef,
    columns: &[u16],
    primary: bool,
) -> Result<(), SqlError> {
    let Some((_, key)) = def.partition_key() else {
        return Ok(());
    };
    let kind = if primary { "PRIMARY KEY" } else { "UNIQUE" };
    if key.contains(&Partition::EXPRESSION) {
        return Err(SqlError::new(
            "0A000",
            format!("unsupported {kind} constraint with partition key definition"),
        )
        .with_detail(format!(
            "{kind} constraints cannot be used when partition keys include expressions."
        )));
    }
    if let Some(&missing) = key.iter().find(|c| !columns.contains(c)) {
        return Err(SqlError::new(
            "0A000",
            "unique constraint on partitioned table must include all partitioning columns",
        )
        .with_detail(format!(
            "{kind} constraint on table \"{}\" lacks column \"{}\" which is part of the partition key.",
            bare(&def.name),
            def.columns[usize::from(missing)].name
        )));
    }
    Ok(())
}

/// `ALTER TABLE parent ATTACH PARTITION child bound` (the rows of `child`
/// must lie in the bound: 23514) and `DETACH PARTITION child`.
pub fn attach_or_detach(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    parent: &str,
    child: &str,
    bound: Option<&BoundSpec>,
) -> Result<Output, SqlError> {
    // (Unqualified names mean the search path's tables.)
    let parent = &crate::temp_tables::resolve_name(cx, txn, parent)?;
    let child = &crate::temp_tables::resolve_name(cx, txn, child)?;
    let parent_def = table_def(cx, txn, parent)?;
    let Some(tree) = Tree::of(cx, txn, &parent_def)? else {
        return Err(SqlError::new(
            "42P17",
            format!("table \"{}\" is not partitioned", bare(&parent_def.name)),
        ));
    };
    let child_def = table_def(cx, txn, child)?;
    let Some(spec) = bound else {
        if child_def.partition_of().map(|(p, _)| p) != Some(parent_def.oid) {
            return Err(SqlError::new(
                "42P01",
                format!(
                    "relation \"{}\" is not a partition of relation \"{}\"",
                    bare(&child_def.name),
                    bare(&parent_def.name)
                ),
            ));
        }
        detach_foreign_keys(cx, txn, child)?;
        super::trigger_clones::drop_of_partition(cx, txn, &child_def)?;
        cx.db.catalog().remove_partition(txn, child)?;
        // What it had of the parent is its own again (PostgreSQL's
        // attislocal / conislocal after DETACH).
        set_inherited(cx, txn, &parent_def, child, true)?;
        cx.relations.ddl();
        return Ok(Output::command("ALTER TABLE"));
    };
    if child_def.partition_of().is_some() {
        return Err(SqlError::new(
            "42809",
            format!("\"{}\" is already a partition", bare(&child_def.name)),
        ));
    }
    // (PostgreSQL 15's order of ATExecAttachPartition's refusals.)
    if !child_def.parents().is_empty() {
        return Err(SqlError::new(
            "42809",
            "cannot attach inheritance child as partition",
        ));
    }
    if !child_def.children.is_empty() && child_def.partition_key().is_none() {
        return Err(SqlError::new(
            "42809",
            "cannot attach inheritance parent as partition",
        ));
    }
    // The parent may not be the table attached or lie below it: the
    // tree would become a cycle.
    let above = super::foreign_keys::ancestors(cx, txn, &parent_def)?;
    if parent_def.oid == child_def.oid || above.iter().any(|a| a.def.oid == child_def.oid) {
        return Err(
            SqlError::new("42P07", "circular inheritance not allowed").with_detail(format!(
                "\"{}\" is already a child of \"{}\".",
                bare(&parent_def.name),
                bare(&child_def.name)
            )),
        );
    }
    let temporary = |name: &str| folio_catalog::split_temp_name(name).is_some();
    if temporary(&child_def.name) && !temporary(&parent_def.name) {
        return Err(SqlError::new(
            "42809",
            format!(
                "cannot attach a temporary relation as partition of permanent relation \"{}\"",
                bare(&parent_def.name)
            ),
        ));
    }
    attached_columns(&parent_def, &child_def)?;
    attached_checks(&parent_def, &child_def)?;
    let bound = check_bound(cx, &tree, bare(&child_def.name), spec)?;
    default_rows_outside(cx, txn, &parent_def, &tree, &bound)?;
    super::trigger_clones::check_attach(&child_def)?;
    // Its rows would have to reference themselves through the tree's
    // key: PostgreSQL 15 refuses it (0A000). A key referencing a
    // partition below the table attached PostgreSQL refuses too, not on
    // purpose (its test says so): the cloning of the key finds that
    // partition open, 55006.
    let below = super::columns::descendants(cx, txn, &child_def)?;
    for def in std::iter::once(&parent_def).chain(above.iter().map(|a| &a.def)) {
        for c in &def.constraints {
            let folio_catalog::ConstraintKind::ForeignKey(fk) = &c.kind else {
                continue;
            };
            let referenced = table_def(cx, txn, &fk.ref_table)?.oid;
            if referenced == child_def.oid {
                return Err(SqlError::new(
                    "0A000",
                    format!(
                        "cannot attach table \"{}\" as a partition because it is referenced by foreign key \"{}\"",
                        bare(&child_def.name),
                        c.name
                    ),
                ));
            }
            if let Some(part) = below.iter().find(|d| d.oid == referenced) {
                return Err(SqlError::new(
                    "55006",
                    format!(
                        "cannot ALTER TABLE \"{}\" because it is being used by active queries in this session",
                        bare(&part.name)
                    ),
                ));
            }
        }
    }
    // The rows already there (a partitioned table's: its leaves') must
    // lie in the bound (a default partition's: outside every other
    // partition's), each key read in the parent's column order.
    let relation = crate::access::relation(cx, txn, child)?;
    let mut with_new = tree.clone();
    with_new.parts.push(super::tree::Part {
        oid: child_def.oid,
        name: child_def.name.clone(),
        bound: bound.clone(),
        map: super::column_map::ColumnMap::between(&parent_def, &child_def),
    });
    let at = with_new.parts.len() - 1;
    for leaf in super::foreign_keys::leaves(cx, txn, relation)? {
        let map = super::column_map::ColumnMap::between(&parent_def, &leaf.def);
        for (_, row) in leaf.scan(txn)? {
            let key = tree.key.values(&super::column_map::up(map.as_ref(), row))?;
            if with_new.route(&key)? != Some(at) {
                return Err(SqlError::new(
                    "23514",
                    format!(
                        "partition constraint of relation \"{}\" is violated by some row",
                        bare(&leaf.def.name)
                    ),
                ));
            }
        }
    }
    attach_def(cx, txn, notices, &parent_def, child, &bound)?;
    // Its rows meet the partitioned table's foreign keys now (23503).
    let relation = crate::access::relation(cx, txn, child)?;
    crate::constraints::Constraints::bind(cx, txn, &relation)?
        .validate_references(txn, &relation)?;
    Ok(Output::command("ALTER TABLE"))
}

/// ATTACH's rules for the columns of table `child` (PostgreSQL 15's,
/// 42804): only the parent's, each of its type, NOT NULL where the
/// parent's is. In any order: rows cross by name (`column_map.rs`).
fn attached_columns(parent: &TableDef, child: &TableDef) -> Result<(), SqlError> {
    let (p, c) = (bare(&parent.name), bare(&child.name));
    if let Some(extra) = (child.columns.iter()).find(|x| parent.column(&x.name).is_none()) {
        return Err(SqlError::new(
            "42804",
            format!(
                "table \"{c}\" contains column \"{}\" not found in parent \"{p}\"",
                extra.name
            ),
        )
        .with_detail("The new partition may contain only the columns present in parent."));
    }
    for column in &parent.columns {
        let Some(at) = child.column(&column.name) else {
            return Err(SqlError::new(
                "42804",
                format!("child table is missing column \"{}\"", column.name),
            ));
        };
        let mine = &child.columns[at];
        if (mine.type_oid, mine.typmod) != (column.type_oid, column.typmod) {
            return Err(SqlError::new(
                "42804",
                format!(
                    "child table \"{c}\" has different type for column \"{}\"",
                    column.name
                ),
            ));
        }
        if crate::collations::of_column(mine) != crate::collations::of_column(column) {
            return Err(SqlError::new(
                "42P21",
                format!(
                    "child table \"{c}\" has different collation for column \"{}\"",
                    column.name
                ),
            ));
        }
        if column.not_null && !mine.not_null {
            return Err(SqlError::new(
                "42804",
                format!(
                    "column \"{}\" in child table must be marked NOT NULL",
                    column.name
                ),
            ));
        }
    }
    Ok(())
}

/// Before DETACH PARTITION `child`: no row of it may be referenced through
/// a key of its ancestors (23503), and the foreign keys it had from them
/// become its own, as PostgreSQL's detached partition keeps them: its
/// own keys merged with them are its own again, and the others are
/// copied onto it under their names (`merged_keys.rs`).
fn detach_foreign_keys(cx: &Ctx<'_>, txn: &mut Transaction, child: &str) -> Result<(), SqlError> {
    let relation = crate::access::relation(cx, txn, child)?;
    crate::constraints::Constraints::bind(cx, txn, &relation)?.check_detach(txn, &relation)?;
    let column_names = |def: &TableDef, columns: &[u16]| -> Vec<String> {
        (columns.iter())
            .map(|&c| def.columns[usize::from(c)].name.clone())
            .collect()
    };
    // (A name the partition has is kept: a table detached and attached
    // again holds its former parent's key as its own, under the same
    // name.)
    let mut names: Vec<String> = (relation.def.constraints.iter())
        .map(|o| o.name.clone())
        .collect();
    for received in super::merged_keys::detach(cx, txn, &relation.def)? {
        let c = &received.key;
        let folio_catalog::ConstraintKind::ForeignKey(fk) = &c.kind else {
            continue;
        };
        if names.contains(&c.name) {
            continue;
        }
        names.push(c.name.clone());
        let holder = table_def(cx, txn, &c.table)?;
        let referenced = table_def(cx, txn, &fk.ref_table)?;
        // (The holder's positions: the partition's columns may be in
        // another order.)
        let columns = column_names(&holder, &fk.columns);
        let ref_columns = column_names(&referenced, &fk.ref_columns);
        let request = folio_catalog::ForeignKeyRequest {
            name: &c.name,
            columns: &columns,
            ref_table: &fk.ref_table,
            ref_columns: Some(&ref_columns),
            on_delete: fk.on_delete,
            on_update: fk.on_update,
            deferrable: c.deferrable,
            match_full: fk.match_full,
            set_columns: &column_names(&holder, &fk.set_columns),
        };
        cx.db.catalog().add_foreign_key(txn, child, &request)?;
    }
    Ok(())
}

/// The names a DROP TABLE of `names` reaches: each
/// partitioned table's partitions (theirs first, recursively) before it.
pub fn with_partitions(
    cx: &Ctx<'_>,
    txn: &Transaction,
    names: &[ObjectName],
) -> Result<Option<Vec<ObjectName>>, SqlError> {
    let mut out = Vec::new();
    let mut any = false;
    for name in names {
        let Ok(text) = names::relation(name) else {
            out.push(name.clone());
            continue;
        };
        let Ok(Some(def)) = cx.db.catalog().table(txn, &text) else {
            out.push(name.clone());
            continue;
        };
        if !def.partitions.is_empty() {
            any = true;
            let children: Vec<ObjectName> = (def.partitions.iter())
                .map(|(_, n)| object_name(n))
                .collect();
            if let Some(deeper) = with_partitions(cx, txn, &children)? {
                out.extend(deeper);
            } else {
                out.extend(children);
            }
        }
        out.push(name.clone());
    }
    if !any {
        return Ok(None);
    }
    // A partition named beside its partitioned table is dropped once
    // (where it first comes).
    let mut seen = Vec::new();
    out.retain(|name| {
        let oid = (names::relation(name).ok())
            .and_then(|text| cx.db.catalog().table(txn, &text).ok().flatten())
            .map(|def| def.oid);
        match oid {
            Some(oid) if seen.contains(&oid) => false,
            Some(oid) => {
                seen.push(oid);
                true
            }
            None => true,
        }
    });
    Ok(Some(out))
}

/// A key's column, written as a plain name.
fn column_name(e: &sqlparser::ast::Expr) -> Option<String> {
    match e {
        sqlparser::ast::Expr::Identifier(id) => Some(names::ident(id)),
        _ => None,
    }
}

fn object_name(name: &str) -> ObjectName {
    let parts = name
        .split('.')
        .map(|p| {
            sqlparser::ast::ObjectNamePart::Identifier(sqlparser::ast::Ident::with_quote('"', p))
        })
        .collect();
    ObjectName(parts)
}

/// Refusals of `ALTER TABLE [ONLY] name ADD FOREIGN KEY` on a
/// partitioned table, as PostgreSQL 15's (42809), before any other
/// check of the statement: a partitioned table's foreign key is checked
/// on its partitions' rows (`foreign_keys.rs`), so it may neither skip
/// them (`ONLY`) nor leave them unchecked (`NOT VALID`).
pub fn check_foreign_key_adds(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
    only: bool,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    let Ok(Some(def)) = cx.db.catalog().table(txn, &names::relation(name)?) else {
        return Ok(());
    };
    if def.partition_key().is_none() {
        return Ok(());
    }
    for op in operations {
        let AlterTableOperation::AddConstraint {
            constraint: TableConstraint::ForeignKey { foreign_table, .. },
            not_valid,
        } = op
        else {
            continue;
        };
        let (table, referenced) = (bare(&def.name), names::relation(foreign_table)?);
        let referenced = bare(&referenced);
        if only {
            return Err(SqlError::new(
                "42809",
                format!(
                    "cannot use ONLY for foreign key on partitioned table \"{table}\" referencing relation \"{referenced}\""
                ),
            ));
        }
        if *not_valid {
            return Err(SqlError::new(
                "42809",
                format!(
                    "cannot add NOT VALID foreign key on partitioned table \"{table}\" referencing relation \"{referenced}\""
                ),
            )
            .with_detail("This feature is not yet supported on partitioned tables."));
        }
    }
    Ok(())
}

/// Before an ALTER TABLE of a partitioned table: a PRIMARY KEY or UNIQUE
/// constraint must hold the partition key's columns (0A000); ADD / DROP
/// COLUMN and DROP of a foreign key are `columns.rs`'s; other changes
/// are 0A000 on a partitioned table or a partition.
pub fn check_alter(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
    only: bool,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    let Ok(Some(def)) = cx.db.catalog().table(txn, &names::relation(name)?) else {
        return Ok(());
    };
    if def.partition_key().is_none() && def.partition_of().is_none() {
        return Ok(());
    }
    for op in operations {
        match op {
            AlterTableOperation::AddConstraint { constraint, .. } => match constraint {
                TableConstraint::PrimaryKey { columns, .. }
                | TableConstraint::Unique { columns, .. } => {
                    let positions = (columns.iter())
                        .map(|c| def.column(&column_name(&c.column.expr)?).map(|p| p as u16))
                        .collect::<Option<Vec<u16>>>();
                    if let Some(positions) = positions {
                        let primary = matches!(constraint, TableConstraint::PrimaryKey { .. });
                        keys_cover_partition_key(&def, &positions, primary)?;
                    }
                }
                TableConstraint::Check { .. }
                    if def.partition_key().is_some()
                        && crate::inheritance::syntax::no_inherit(constraint) =>
                {
                    return Err(SqlError::new(
                        "42P16",
                        format!(
                            "cannot add NO INHERIT constraint to partitioned table \"{}\"",
                            bare(&def.name)
                        ),
                    ));
                }
                TableConstraint::Check { .. } => {
                    super::inherited_alter::check(cx, txn, &def, only, op)?;
                }
                _ => {}
            },
            AlterTableOperation::RenameTable { .. } => {}
            // (A partitioned table's reaches its clones:
            // `trigger_clones.rs`.)
            op if crate::trigger_statements::Enabling::of(op).is_some() => {}
            op if super::inherited_alter::check(cx, txn, &def, only, op)? => {}
            op if super::columns::check(cx, txn, &def, only, op)? => {}
            other => {
                return Err(SqlError::unsupported(format!(
                    "ALTER TABLE {other} on a partitioned table or a partition"
                )));
            }
        }
    }
    Ok(())
}

/// The statement to run on a partition (named by the argument), if any.
type PerPartition = Box<dyn Fn(ObjectName) -> Option<Statement>>;

/// After an ALTER TABLE ... ADD PRIMARY KEY / UNIQUE or a CREATE INDEX
/// of partitioned table `name`: the same on each partition.
pub fn after_key_or_index(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
) -> Result<(), SqlError> {
    let (table, make): (&ObjectName, PerPartition) = match statement {
        Statement::AlterTable {
            name, operations, ..
        } => {
            let operations = operations.clone();
            (
                name,
                Box::new(move |child| {
                    let ops: Vec<AlterTableOperation> = (operations.iter())
                        .filter_map(|op| match op {
                            AlterTableOperation::AddConstraint {
                                constraint:
                                    c @ (TableConstraint::PrimaryKey { .. }
                                    | TableConstraint::Unique { .. }),
                                not_valid,
                            } => {
                                let mut c = c.clone();
                                match &mut c {
                                    TableConstraint::PrimaryKey { name, .. }
                                    | TableConstraint::Unique { name, .. } => *name = None,
                                    _ => {}
                                }
                                Some(AlterTableOperation::AddConstraint {
                                    constraint: c,
                                    not_valid: *not_valid,
                                })
                            }
                            _ => None,
                        })
                        .collect();
                    if ops.is_empty() {
                        return None;
                    }
                    let Statement::AlterTable {
                        name: _,
                        if_exists,
                        only,
                        location,
                        on_cluster,
                        iceberg,
                        end_token,
                        ..
                    } = parse_one("ALTER TABLE x ADD PRIMARY KEY (a)").ok()?
                    else {
                        return None;
                    };
                    Some(Statement::AlterTable {
                        name: child,
                        if_exists,
                        only,
                        operations: ops,
                        location,
                        on_cluster,
                        iceberg,
                        end_token,
                    })
                }),
            )
        }
        Statement::CreateIndex(create) => {
            let create = create.clone();
            (
                &create.table_name.clone(),
                Box::new(move |child| {
                    let mut c = create.clone();
                    c.name = None;
                    c.table_name = child;
                    Some(Statement::CreateIndex(c))
                }),
            )
        }
        _ => return Ok(()),
    };
    let Ok(Some(def)) = cx.db.catalog().table(txn, &names::relation(table)?) else {
        return Ok(());
    };
    if def.partition_key().is_none() {
        return Ok(());
    }
    if let Statement::CreateIndex(create) = statement
        && create.unique
    {
        let positions: Option<Vec<u16>> = (create.columns.iter())
            .map(|c| def.column(&column_name(&c.column.expr)?).map(|p| p as u16))
            .collect();
        if let Some(positions) = positions {
            keys_cover_partition_key(&def, &positions, false)?;
        }
    }
    // (The index just made, a key's or not: an index of a partition that
    // stands for it and for no other of the table's indexes is its
    // partition, as PostgreSQL attaches it, and no index is made there.)
    let made = (def.indexes.iter()).max_by_key(|i| i.oid).map(|i| i.oid);
    for (_, child) in &def.partitions {
        if let Ok(Some(child_def)) = cx.db.catalog().table(txn, child)
            && super::index_tree::matched(&def, &child_def)
                .iter()
                .any(|(index, partition)| Some(index.oid) == made && partition.is_some())
        {
            continue;
        }
        if let Some(statement) = make(object_name(child)) {
            run_sql(cx, txn, notices, statement)?;
            cx.relations.ddl();
        }
    }
    Ok(())
}

/// The trees of `def`'s ancestors, its parent's first, each with the
/// place of the partition on the way down to `def` among its siblings:
/// the partition constraint of rows written into it is its own bound
/// and every ancestor's (PostgreSQL's, which ANDs the parents' quals);
/// and the map from each ancestor's columns to `def`'s.
pub fn ancestor_trees(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<(Tree, usize, Option<ColumnMap>)>, SqlError> {
    let mut out = Vec::new();
    let mut child = def.oid;
    let mut seen = vec![def.oid];
    let mut parent_name = def.partition_parent().map(str::to_string);
    // Each level is a table not met before, so the walk ends.
    while let Some(name) = parent_name {
        let parent = crate::access::relation(cx, txn, &name)?;
        let Some(tree) = Tree::of(cx, txn, &parent.def)? else {
            break;
        };
        let Some(at) = tree.parts.iter().position(|p| p.oid == child) else {
            break;
        };
        let map = ColumnMap::between(&parent.def, def);
        out.push((tree, at, map));
        if seen.contains(&parent.def.oid) {
            return Err(SqlError::new("XX000", "a partition is its own ancestor"));
        }
        seen.push(parent.def.oid);
        child = parent.def.oid;
        parent_name = parent.def.partition_parent().map(str::to_string);
    }
    Ok(out)
}
