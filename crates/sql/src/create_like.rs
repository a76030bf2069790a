//! `CREATE TABLE name (LIKE source [{INCLUDING | EXCLUDING} {COMMENTS |
//! COMPRESSION | CONSTRAINTS | DEFAULTS | GENERATED | IDENTITY | INDEXES |
//! STATISTICS | STORAGE | ALL}] ..., ...)` (README "CREATE TABLE ...
//! LIKE"). sqlparser reads a LIKE clause as a column named `like`; [`take`]
//! takes the clauses out of the statement's tokens before it is parsed,
//! and [`create`] turns each into what the ordinary statements already
//! own, written as SQL text and parsed as such:
//!
//! - the source's columns (names, types with their modifiers, NOT NULL;
//!   DEFAULTS: defaults, GENERATED: generation expressions, IDENTITY:
//!   identity specifications with the source sequence's options) become
//!   column definitions of the CREATE TABLE, where the clause stood among
//!   its columns, and CONSTRAINTS' CHECK constraints (named as in the
//!   source) table constraints after its own;
//! - after the table is made, INDEXES' indexes, in the source's order,
//!   become `ALTER TABLE ... ADD PRIMARY KEY | UNIQUE` for the indexes of
//!   constraints and `CREATE [UNIQUE] INDEX ON ...` for the others, so
//!   their names are chosen as PostgreSQL chooses them (`t2_pkey`,
//!   `t2_k_key`, `t2_v_idx`) and a second primary key is 42P16, as
//!   PostgreSQL's, which adds them the same way after the table;
//! - COMMENTS' comments of the columns, the CHECK constraints and the
//!   indexes copied are set on their copies.
//!
//! STORAGE, COMPRESSION and STATISTICS are taken and do nothing: folio has
//! no per-column storage or compression and no extended statistics.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use crate::parse::{self, Parsed};
use crate::position::Text;
use folio_catalog::{ConstraintKind, Described, IndexDef, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{
    ColumnDef, CreateTable, ObjectName, ObjectNamePart, Statement, TableConstraint,
};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// What a LIKE clause copies beyond the columns, their types and NOT NULL
/// (PostgreSQL's `CREATE_TABLE_LIKE_*` bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Including(u16);

impl Including {
    pub const COMMENTS: Including = Including(1 << 0);
    pub const COMPRESSION: Including = Including(1 << 1);
    pub const CONSTRAINTS: Including = Including(1 << 2);
    pub const DEFAULTS: Including = Including(1 << 3);
    pub const GENERATED: Including = Including(1 << 4);
    pub const IDENTITY: Including = Including(1 << 5);
    pub const INDEXES: Including = Including(1 << 6);
    pub const STATISTICS: Including = Including(1 << 7);
    pub const STORAGE: Including = Including(1 << 8);
    pub const ALL: Including = Including((1 << 9) - 1);

    /// The option a word names (`None`: a syntax error there).
    fn named(word: &str) -> Option<Including> {
        Some(match word.to_ascii_lowercase().as_str() {
            "comments" => Including::COMMENTS,
            "compression" => Including::COMPRESSION,
            "constraints" => Including::CONSTRAINTS,
            "defaults" => Including::DEFAULTS,
            "generated" => Including::GENERATED,
            "identity" => Including::IDENTITY,
            "indexes" => Including::INDEXES,
            "statistics" => Including::STATISTICS,
            "storage" => Including::STORAGE,
            "all" => Including::ALL,
            _ => return None,
        })
    }

    pub fn has(self, option: Including) -> bool {
        self.0 & option.0 != 0
    }
}

/// One `LIKE source ...` clause of a CREATE TABLE.
#[derive(Debug, Clone, PartialEq)]
pub struct Like {
    pub source: ObjectName,
    pub including: Including,
    /// How many of the statement's column definitions come before it
    /// (its columns go there).
    pub at: usize,
}

/// The words that open a table constraint rather than a column
/// definition in a CREATE TABLE's list.
const CONSTRAINT_WORDS: &[&str] = &[
    "constraint",
    "primary",
    "unique",
    "check",
    "foreign",
    "exclude",
];

fn word_is(token: &TokenWithSpan, word: &str) -> bool {
    matches!(&token.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// The LIKE clauses of a `CREATE [GLOBAL | LOCAL] [TEMP | TEMPORARY |
/// UNLOGGED] TABLE [IF NOT EXISTS] name (...)` statement's list, taken out
/// of `tokens` (with their commas); none for any other statement, or a
/// list without one. A clause that is not `LIKE name [{INCLUDING |
/// EXCLUDING} option] ...` is a syntax error at its first wrong token, as
/// PostgreSQL's.
pub(crate) fn take(
    tokens: &mut Vec<TokenWithSpan>,
    text: &Text<'_>,
) -> Result<Vec<Like>, SqlError> {
    let Some(open) = column_list(tokens) else {
        return Ok(Vec::new());
    };
    // The list's top-level elements, each with the token after it (a
    // comma or the closing parenthesis).
    let mut elements = Vec::new();
    let (mut depth, mut start, mut close) = (0usize, open + 1, None);
    for (i, t) in tokens.iter().enumerate().skip(open + 1) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => {
                elements.push(start..i);
                close = Some(i);
                break;
            }
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                elements.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Ok(Vec::new());
    };
    let is_like = |e: &std::ops::Range<usize>| {
        tokens
            .get(e.start)
            .is_some_and(|t| e.start < e.end && word_is(t, "like"))
    };
    if !elements.iter().any(is_like) {
        return Ok(Vec::new());
    }
    let (mut likes, mut kept, mut columns) = (Vec::new(), Vec::new(), 0);
    for e in &elements {
        if e.is_empty() {
            return Err(text.near(&tokens[e.end]));
        }
        if is_like(e) {
            likes.push(clause(&tokens[e.start..=e.end], text, columns)?);
        } else {
            if !CONSTRAINT_WORDS
                .iter()
                .any(|w| word_is(&tokens[e.start], w))
            {
                columns += 1;
            }
            kept.push(tokens[e.clone()].to_vec());
        }
    }
    let mut list = Vec::new();
    for (n, element) in kept.into_iter().enumerate() {
        if n > 0 {
            list.push(TokenWithSpan::wrap(Token::Comma));
        }
        list.extend(element);
    }
    tokens.splice(open + 1..close, list);
    Ok(likes)
}

/// Where a CREATE TABLE's parenthesized list opens, if `tokens` are one
/// with a list.
fn column_list(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut at = 1;
    let is = |at: usize, words: &[&str]| {
        tokens
            .get(at)
            .is_some_and(|t| words.iter().any(|w| word_is(t, w)))
    };
    if !tokens.first().is_some_and(|t| word_is(t, "create")) {
        return None;
    }
    if is(at, &["global", "local"]) {
        at += 1;
    }
    if is(at, &["temp", "temporary", "unlogged"]) {
        at += 1;
    }
    if !is(at, &["table"]) {
        return None;
    }
    at += 1;
    if is(at, &["if"]) {
        at += 3;
    }
    // The name: words joined by periods.
    loop {
        if !matches!(tokens.get(at).map(|t| &t.token), Some(Token::Word(_))) {
            return None;
        }
        at += 1;
        if tokens.get(at).map(|t| &t.token) != Some(&Token::Period) {
            break;
        }
        at += 1;
    }
    (tokens.get(at).map(|t| &t.token) == Some(&Token::LParen)).then_some(at)
}

/// One clause: `LIKE name [{INCLUDING | EXCLUDING} option] ...` and the
/// token after it, which ends it.
fn clause(tokens: &[TokenWithSpan], text: &Text<'_>, at: usize) -> Result<Like, SqlError> {
    let end = tokens.len() - 1;
    let mut i = 1;
    let mut parts = Vec::new();
    loop {
        match &tokens[i].token {
            Token::Word(w) if i < end => parts.push(ObjectNamePart::Identifier(
                w.clone().into_ident(tokens[i].span),
            )),
            _ => return Err(text.near(&tokens[i])),
        }
        i += 1;
        if tokens[i].token != Token::Period || i == end {
            break;
        }
        i += 1;
    }
    let mut including = Including::default();
    while i < end {
        let adds = match &tokens[i] {
            t if word_is(t, "including") => true,
            t if word_is(t, "excluding") => false,
            t => return Err(text.near(t)),
        };
        let option = match &tokens[i + 1].token {
            Token::Word(w) if i + 1 < end && w.quote_style.is_none() => Including::named(&w.value),
            _ => None,
        }
        .ok_or_else(|| text.near(&tokens[i + 1]))?;
        including.0 = match adds {
            true => including.0 | option.0,
            false => including.0 & !option.0,
        };
        i += 2;
    }
    Ok(Like {
        source: ObjectName(parts),
        including,
        at,
    })
}

/// What one LIKE clause puts into the statement, and what it does after
/// the table is made.
struct Copied {
    columns: Vec<ColumnDef>,
    checks: Vec<TableConstraint>,
    /// The source's indexes to copy, in its order, with their comments.
    indexes: Vec<(IndexCopy, Option<String>)>,
    /// Comments of its columns and CHECK constraints, by name.
    column_comments: Vec<(String, String)>,
    check_comments: Vec<(String, String)>,
}

/// An index to make on the new table: the statement's text before the
/// table's name and after it.
struct IndexCopy {
    head: &'static str,
    tail: String,
}

/// Runs CREATE TABLE `statement` (`Parsed::Sql` or
/// `Parsed::CreatePartitioned`) with the columns and constraints of its
/// LIKE clauses `likes`, then makes their indexes and comments.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Parsed,
    likes: &[Like],
) -> Result<Output, SqlError> {
    let mut statement = statement.clone();
    let table = created_table(&mut statement)?;
    // IF NOT EXISTS meeting the table: its notice, the sources not read
    // (PostgreSQL's order).
    if table.if_not_exists
        && let Some(name) = crate::temp_tables::created_name(cx, txn, table)?
        && cx.db.catalog().relation_exists(txn, &name)?
    {
        return crate::session::run_utility(cx, txn, notices, &statement);
    }
    let mut copies = Vec::with_capacity(likes.len());
    for like in likes {
        copies.push(copied(cx, txn, like)?);
    }
    let own = std::mem::take(&mut table.columns);
    let own_count = own.len();
    let mut own = own.into_iter();
    for at in 0..=own_count {
        for (like, copy) in likes.iter().zip(&mut copies) {
            if like.at == at {
                table.columns.append(&mut copy.columns);
            }
        }
        table.columns.extend(own.next());
    }
    for copy in &mut copies {
        table.constraints.append(&mut copy.checks);
    }
    let made = crate::session::run_utility(cx, txn, notices, &statement)?;
    cx.relations.ddl();
    let table = created_table(&mut statement)?;
    let name = crate::temp_tables::created_name(cx, txn, table)?
        .ok_or_else(|| SqlError::new("XX000", "a temporary table without a namespace"))?;
    let written = written_name(&name);
    for copy in copies {
        for (index, comment) in &copy.indexes {
            let before = table_def(cx, txn, &name)?;
            let sql = format!("{} {written} {}", index.head, index.tail);
            for parsed in parse::statements(&sql)? {
                crate::session::run_utility(cx, txn, notices, &parsed)?;
            }
            cx.relations.ddl();
            if let Some(comment) = comment {
                let after = table_def(cx, txn, &name)?;
                let made =
                    (after.indexes.iter()).find(|i| !before.indexes.iter().any(|b| b.oid == i.oid));
                if let Some(made) = made {
                    cx.db.catalog().set_description(
                        txn,
                        made.oid,
                        Described::Relation,
                        Some(comment),
                    )?;
                }
            }
        }
        if copy.column_comments.is_empty() && copy.check_comments.is_empty() {
            continue;
        }
        let def = table_def(cx, txn, &name)?;
        for (column, comment) in &copy.column_comments {
            if let Some(position) = def.column(column) {
                let slot = def.layout.slot(position);
                cx.db.catalog().set_description(
                    txn,
                    def.oid,
                    Described::Column(slot),
                    Some(comment),
                )?;
            }
        }
        for (check, comment) in &copy.check_comments {
            if let Some(c) = def.constraints.iter().find(|c| c.name == *check) {
                cx.db.catalog().set_description(
                    txn,
                    def.oid,
                    Described::Constraint(c.oid),
                    Some(comment),
                )?;
            }
        }
    }
    Ok(made)
}

/// The CREATE TABLE in `statement`.
fn created_table(statement: &mut Parsed) -> Result<&mut CreateTable, SqlError> {
    let create = match statement {
        Parsed::Sql(create) | Parsed::CreatePartitioned { create, .. } => create,
        _ => None.ok_or_else(|| SqlError::new("XX000", "LIKE outside CREATE TABLE"))?,
    };
    match &mut **create {
        Statement::CreateTable(table) => Ok(table),
        _ => Err(SqlError::new("XX000", "LIKE outside CREATE TABLE")),
    }
}

fn table_def(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<TableDef, SqlError> {
    cx.db
        .catalog()
        .table(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(name))
}

/// A catalog name as SQL text (each part quoted where needed).
fn written_name(name: &str) -> String {
    let (schema, bare) = folio_catalog::split_schema(name);
    match bare == name {
        true => crate::names::written(name).to_string(),
        false => format!(
            "{}.{}",
            crate::names::written(schema),
            crate::names::written(bare)
        ),
    }
}

/// What `like` copies from its source: a table (partitioned, temporary
/// or materialized too) or a view; 42P01 for none, 42809 for a relation
/// of another kind (PostgreSQL's words).
fn copied(cx: &Ctx<'_>, txn: &mut Transaction, like: &Like) -> Result<Copied, SqlError> {
    let written = like.source.to_string();
    let name = crate::temp_tables::existing_name(cx, txn, &like.source)?;
    let catalog = cx.db.catalog();
    let Some((oid, kind)) = catalog.relation_oid(txn, &name)? else {
        return Err(SqlError::undefined_table(&crate::names::relation(
            &like.source,
        )?));
    };
    let mut copy = Copied {
        columns: Vec::new(),
        checks: Vec::new(),
        indexes: Vec::new(),
        column_comments: Vec::new(),
        check_comments: Vec::new(),
    };
    let including = like.including;
    let comments: Vec<_> = match including.has(Including::COMMENTS) {
        true => catalog.descriptions(txn)?,
        false => Vec::new(),
    };
    let comment_of = |relation: u64, on: Described| {
        (comments.iter())
            .find(|d| d.relation == relation && d.on == on)
            .map(|d| d.text.clone())
    };
    let mut definitions = Vec::new();
    match kind {
        'r' | 'm' => {
            let def = table_def(cx, txn, &name)?;
            let sequences = catalog.sequences(txn)?;
            for (n, c) in def.columns.iter().enumerate() {
                let mut text = column_text(c);
                let identity = crate::system::identity(&sequences, &def, n);
                if let Some(sequence) = identity.filter(|_| including.has(Including::IDENTITY)) {
                    let o = sequence.options;
                    // (In the one order sqlparser reads the options in.)
                    text.push_str(&format!(
                        " GENERATED {} AS IDENTITY (INCREMENT BY {} MINVALUE {} MAXVALUE {} START WITH {} CACHE {}{})",
                        if sequence.always { "ALWAYS" } else { "BY DEFAULT" },
                        o.increment,
                        o.min,
                        o.max,
                        o.start,
                        o.cache,
                        if o.cycle { " CYCLE" } else { " NO CYCLE" },
                    ));
                } else if let Some(default) = crate::system::default_shown(&sequences, &def, n)
                    .filter(|_| including.has(Including::DEFAULTS))
                {
                    text.push_str(&format!(" DEFAULT {default}"));
                }
                if let Some(expr) = def
                    .generated_of(n)
                    .filter(|_| including.has(Including::GENERATED))
                {
                    text.push_str(&format!(" GENERATED ALWAYS AS ({expr}) STORED"));
                }
                definitions.push(text);
                if let Some(comment) = comment_of(def.oid, Described::Column(def.layout.slot(n))) {
                    copy.column_comments.push((c.name.clone(), comment));
                }
            }
            if including.has(Including::CONSTRAINTS) {
                let mut checks = Vec::new();
                for c in &def.constraints {
                    if let ConstraintKind::Check { expr } = &c.kind {
                        checks.push(format!(
                            "CONSTRAINT {} CHECK ({expr})",
                            crate::names::written(&c.name)
                        ));
                        if let Some(comment) = comment_of(def.oid, Described::Constraint(c.oid)) {
                            copy.check_comments.push((c.name.clone(), comment));
                        }
                    }
                }
                if !checks.is_empty() {
                    copy.checks = parsed_table(&format!("CREATE TABLE x ({})", checks.join(", ")))?
                        .constraints;
                }
            }
            if including.has(Including::INDEXES) {
                for index in &def.indexes {
                    let comment = comment_of(index.oid, Described::Relation);
                    copy.indexes.push((index_copy(&def, index), comment));
                }
            }
        }
        'v' => {
            let Some(view) = catalog.view(txn, &name)? else {
                return Err(SqlError::undefined_table(&written));
            };
            for (n, c) in view.def.columns.iter().enumerate() {
                let mut text = column_text(&folio_catalog::ColumnDef {
                    not_null: false,
                    ..c.clone()
                });
                let default = view
                    .def
                    .defaults
                    .iter()
                    .find(|d| usize::from(d.column) == n);
                if let Some(d) = default.filter(|_| including.has(Including::DEFAULTS)) {
                    text.push_str(&format!(" DEFAULT {}", d.expr));
                }
                definitions.push(text);
                if let Some(comment) = comment_of(oid, Described::Column(n as u16)) {
                    copy.column_comments.push((c.name.clone(), comment));
                }
            }
        }
        other => {
            return Err(SqlError::new(
                "42809",
                format!(
                    "relation \"{}\" is invalid in LIKE clause",
                    folio_catalog::unqualified(&name)
                ),
            )
            .with_detail(format!(
                "This operation is not supported for {}.",
                crate::comments::kind_plural(other)
            )));
        }
    }
    if !definitions.is_empty() {
        copy.columns =
            parsed_table(&format!("CREATE TABLE x ({})", definitions.join(", ")))?.columns;
    }
    Ok(copy)
}

/// `name type [COLLATE c] [NOT NULL]`.
fn column_text(c: &folio_catalog::ColumnDef) -> String {
    let ty = crate::catalog_functions::format_type(i64::from(c.type_oid), Some(c.typmod));
    let mut text = format!("{} {ty}", crate::names::written(&c.name));
    if let Some(collation) = c.collation.and_then(crate::collations::name_of) {
        text.push_str(&format!(" COLLATE {}", crate::names::written(collation)));
    }
    if c.not_null {
        text.push_str(" NOT NULL");
    }
    text
}

/// The CREATE TABLE `sql` is.
fn parsed_table(sql: &str) -> Result<CreateTable, SqlError> {
    match parse::statements(sql)?.pop() {
        Some(Parsed::Sql(statement)) => match *statement {
            Statement::CreateTable(table) => Ok(table),
            _ => Err(SqlError::new("XX000", format!("not a CREATE TABLE: {sql}"))),
        },
        _ => Err(SqlError::new("XX000", format!("not a CREATE TABLE: {sql}"))),
    }
}

/// The statement that copies `index` of `def` onto a table: ALTER TABLE
/// ... ADD PRIMARY KEY | UNIQUE for a constraint's, CREATE [UNIQUE] INDEX
/// ON for another (its name chosen by either, as PostgreSQL's).
fn index_copy(def: &TableDef, index: &IndexDef) -> IndexCopy {
    let mut expressions = index.exprs.keys.iter();
    let keys: Vec<String> = (index.columns.iter().zip(&index.order))
        .map(|(&column, order)| {
            let mut key = match column {
                IndexDef::EXPRESSION => format!(
                    "({})",
                    expressions.next().map(|e| e.sql.as_str()).unwrap_or("NULL")
                ),
                n => crate::names::written(&def.columns[usize::from(n)].name).to_string(),
            };
            match (order.descending, order.nulls_first) {
                (false, false) => {}
                (false, true) => key.push_str(" NULLS FIRST"),
                (true, true) => key.push_str(" DESC"),
                (true, false) => key.push_str(" DESC NULLS LAST"),
            }
            key
        })
        .collect();
    let keys = keys.join(", ");
    if index.constraint {
        let deferrable = match index.deferrable {
            folio_catalog::Deferrable::No => "",
            folio_catalog::Deferrable::InitiallyImmediate => " DEFERRABLE",
            folio_catalog::Deferrable::InitiallyDeferred => " DEFERRABLE INITIALLY DEFERRED",
        };
        let kind = match index.primary {
            true => "PRIMARY KEY",
            false => &format!("UNIQUE{}", crate::indexes::nulls_clause(index.nulls)),
        };
        return IndexCopy {
            head: "ALTER TABLE",
            tail: format!("ADD {kind} ({keys}){deferrable}"),
        };
    }
    let predicate = match &index.exprs.predicate {
        Some(p) => format!(" WHERE {p}"),
        None => String::new(),
    };
    IndexCopy {
        head: match index.unique {
            true => "CREATE UNIQUE INDEX ON",
            false => "CREATE INDEX ON",
        },
        tail: format!(
            "({keys}){}{predicate}",
            crate::indexes::nulls_clause(index.nulls)
        ),
    }
}
