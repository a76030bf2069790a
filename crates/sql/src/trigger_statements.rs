//! The trigger statements (README "Triggers"): `CREATE [OR REPLACE]
//! TRIGGER`, `DROP TRIGGER`, `ALTER TABLE ... ENABLE | DISABLE TRIGGER`,
//! DROP FUNCTION's triggers, and `pg_get_triggerdef`'s text. What firing
//! does is `triggers.rs`'s (a view's INSTEAD OF: `instead_of.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::{
    TRIGGER_BEFORE, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_INSTEAD, TRIGGER_ROW, TRIGGER_TRUNCATE,
    TRIGGER_UPDATE, TriggerDef, TriggerEnabled,
};
use folio_db::Transaction;
use sqlparser::ast::{
    AlterTableOperation, CreateTrigger, DropTrigger, Ident, ObjectName, Statement, TriggerEvent,
    TriggerObject, TriggerPeriod, TriggerReferencingType,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::TokenWithSpan;

/// `CREATE [OR REPLACE] TRIGGER name {BEFORE | AFTER | INSTEAD OF} event
/// [OR ...] ON table [REFERENCING {OLD | NEW} TABLE [AS] n ...] [FOR
/// [EACH] {ROW | STATEMENT}] [WHEN (cond)] EXECUTE {FUNCTION | PROCEDURE}
/// f(args)` (no FOR: a statement trigger, as PostgreSQL's; `parse.rs`
/// writes it in). INSTEAD OF is a view's, BEFORE / AFTER a table's.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    create: &Statement,
    args: &[String],
) -> Result<Output, SqlError> {
    let Statement::CreateTrigger(create) = create else {
        return Err(SqlError::syntax("syntax error at or near \"TRIGGER\""));
    };
    refuse_unsupported(create)?;
    // The session's temporary table of the name first, as any reference.
    let table_name = crate::temp_tables::existing_name(cx, txn, &create.table_name)?;
    let bare = folio_catalog::unqualified(&table_name).to_string();
    let row = create.trigger_object == TriggerObject::Row;
    let instead = create.period == TriggerPeriod::InsteadOf;
    // The table's or view's oid and column names.
    let (oid, column_names): (u64, Vec<String>) = match cx.db.catalog().view(txn, &table_name)? {
        Some(view) if !view.def.materialized => {
            // BEFORE / AFTER statement triggers are allowed: they fire
            // when INSTEAD OF row triggers change the view
            // (`instead_of.rs`), as PostgreSQL's.
            let is_view = || SqlError::new("42809", format!("\"{bare}\" is a view"));
            if !instead && row {
                return Err(
                    is_view().with_detail("Views cannot have row-level BEFORE or AFTER triggers.")
                );
            }
            if create.events.contains(&TriggerEvent::Truncate) {
                return Err(is_view().with_detail("Views cannot have TRUNCATE triggers."));
            }
            if !create.referencing.is_empty() {
                return Err(
                    is_view().with_detail("Triggers on views cannot have transition tables.")
                );
            }
            let names = view.def.columns.iter().map(|c| c.name.clone()).collect();
            (view.def.oid, names)
        }
        _ => {
            let relation = crate::access::target(cx, txn, &table_name)?;
            if row && !create.referencing.is_empty() && relation.def.partition_key().is_some() {
                return Err(
                    SqlError::new("0A000", format!("\"{bare}\" is a partitioned table"))
                        .with_detail(
                            "ROW triggers with transition tables are not supported on partitioned tables.",
                        ),
                );
            }
            if instead {
                return Err(SqlError::new("42809", format!("\"{bare}\" is a table"))
                    .with_detail("Tables cannot have INSTEAD OF triggers."));
            }
            let names = relation
                .def
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
            (relation.def.oid, names)
        }
    };
    if instead {
        let refused = if !row {
            Some("INSTEAD OF triggers must be FOR EACH ROW")
        } else if create.condition.is_some() {
            Some("INSTEAD OF triggers cannot have WHEN conditions")
        } else if (create.events.iter())
            .any(|e| matches!(e, TriggerEvent::Update(of) if !of.is_empty()))
        {
            Some("INSTEAD OF triggers cannot have column lists")
        } else {
            None
        };
        if let Some(message) = refused {
            return Err(SqlError::new("0A000", message));
        }
    }
    let mut kind = if row { TRIGGER_ROW } else { 0 };
    match create.period {
        TriggerPeriod::Before => kind |= TRIGGER_BEFORE,
        TriggerPeriod::InsteadOf => kind |= TRIGGER_INSTEAD,
        _ => {}
    }
    let mut columns = Vec::new();
    for event in &create.events {
        let bit = match event {
            TriggerEvent::Insert => TRIGGER_INSERT,
            TriggerEvent::Delete => TRIGGER_DELETE,
            TriggerEvent::Update(of) => {
                for column in of {
                    let column = names::ident(column);
                    if !column_names.contains(&column) {
                        return Err(SqlError::new(
                            "42703",
                            format!("column \"{column}\" of relation \"{bare}\" does not exist"),
                        ));
                    }
                    if columns.contains(&column) {
                        return Err(SqlError::new(
                            "42701",
                            format!("column \"{column}\" specified more than once"),
                        ));
                    }
                    columns.push(column);
                }
                TRIGGER_UPDATE
            }
            TriggerEvent::Truncate if row => {
                return Err(SqlError::new(
                    "0A000",
                    "TRUNCATE FOR EACH ROW triggers are not supported",
                ));
            }
            TriggerEvent::Truncate => TRIGGER_TRUNCATE,
        };
        // `UPDATE OR UPDATE OF a` too (PostgreSQL's grammar refuses it).
        if kind & bit != 0 {
            return Err(SqlError::syntax(
                "duplicate trigger events specified at or near \"ON\"",
            ));
        }
        kind |= bit;
    }
    let when = match &create.condition {
        Some(condition) => {
            crate::trigger_when::check(condition, kind)?;
            Some(crate::trigger_when::text(condition))
        }
        None => None,
    };
    let (old_table, new_table) = transition_tables(create, kind, !columns.is_empty())?;
    if row && (old_table.is_some() || new_table.is_some()) {
        let table = cx.db.catalog().table(txn, &table_name)?;
        if table.as_ref().is_some_and(|d| d.partition_of().is_some()) {
            return Err(SqlError::new(
                "0A000",
                "ROW triggers with transition tables are not supported on partitions",
            ));
        }
        if table.is_some_and(|d| !d.parents().is_empty()) {
            return Err(SqlError::new(
                "0A000",
                "ROW triggers with transition tables are not supported on inheritance children",
            ));
        }
    }
    let body = create.exec_body.as_ref().expect("checked above");
    let function = crate::sql_functions::resolve(&body.func_desc.name, Some(0))
        .or_else(|| crate::builtin_triggers::resolve(&body.func_desc.name))
        .ok_or_else(|| {
            SqlError::new(
                "42883",
                format!("function {}() does not exist", body.func_desc.name),
            )
        })?;
    if function.result.0 != crate::sql_functions::TRIGGER {
        return Err(SqlError::new(
            "42P17",
            format!(
                "function {} must return type trigger",
                crate::sql_functions::names_of(&function.name)
            ),
        ));
    }
    let def = TriggerDef {
        oid: 0,
        table: oid,
        name: names::ident(
            create
                .name
                .0
                .last()
                .and_then(|p| p.as_ident())
                .ok_or_else(|| SqlError::syntax("syntax error at or near \"ON\""))?,
        ),
        function: function.oid,
        kind,
        enabled: TriggerEnabled::Origin,
        columns,
        args: args.to_vec(),
        when,
        old_table,
        new_table,
        parent: 0,
    };
    if create.name.0.len() > 1 {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{}\"",
            create.name.0[1]
        )));
    }
    let made = (cx.db.catalog()).create_trigger(txn, &def, &table_name, create.or_replace)?;
    if let Some(table) = cx.db.catalog().table(txn, &table_name)? {
        crate::partitions::trigger_clones::clone_to_partitions(
            cx,
            txn,
            &made,
            &table,
            create.or_replace,
        )?;
    }
    Ok(Output::command("CREATE TRIGGER"))
}

/// `REFERENCING {OLD | NEW} TABLE [AS] name ...`: the transition tables'
/// names, under PostgreSQL's rules (an AFTER trigger of one event, no
/// column list; OLD for DELETE or UPDATE, NEW for INSERT or UPDATE).
fn transition_tables(
    create: &CreateTrigger,
    kind: u16,
    column_list: bool,
) -> Result<(Option<String>, Option<String>), SqlError> {
    let (mut old, mut new) = (None, None);
    if create.referencing.is_empty() {
        return Ok((old, new));
    }
    // PostgreSQL's codes: 42P17 for a definition that cannot be, 0A000
    // for what it does not support.
    let invalid = |message: &str| Err(SqlError::new("42P17", message));
    let unsupported = |message: &str| Err(SqlError::new("0A000", message));
    if kind & (TRIGGER_BEFORE | TRIGGER_INSTEAD) != 0 {
        return invalid("transition table name can only be specified for an AFTER trigger");
    }
    if create.events.len() > 1 {
        return unsupported(
            "transition tables cannot be specified for triggers with more than one event",
        );
    }
    if column_list {
        return unsupported("transition tables cannot be specified for triggers with column lists");
    }
    for r in &create.referencing {
        let name = names::relation(&r.transition_relation_name)?;
        let (slot, word, events) = match r.refer_type {
            TriggerReferencingType::OldTable => (&mut old, "OLD", TRIGGER_DELETE | TRIGGER_UPDATE),
            TriggerReferencingType::NewTable => (&mut new, "NEW", TRIGGER_INSERT | TRIGGER_UPDATE),
        };
        if kind & events == 0 {
            let which = if word == "OLD" {
                "a DELETE or UPDATE"
            } else {
                "an INSERT or UPDATE"
            };
            return invalid(&format!(
                "{word} TABLE can only be specified for {which} trigger"
            ));
        }
        if slot.replace(name).is_some() {
            return invalid(&format!("{word} TABLE cannot be specified multiple times"));
        }
    }
    if old.is_some() && old == new {
        return invalid("OLD TABLE name and NEW TABLE name cannot be the same");
    }
    Ok((old, new))
}

/// The forms folio does not run: 0A000 each (PostgreSQL has them).
fn refuse_unsupported(create: &CreateTrigger) -> Result<(), SqlError> {
    let refused = if create.is_constraint || create.referenced_table_name.is_some() {
        Some("constraint triggers")
    } else if create.characteristics.is_some() {
        Some("DEFERRABLE triggers")
    } else {
        None
    };
    if let Some(what) = refused {
        return Err(SqlError::unsupported(what));
    }
    if create.or_alter || create.period == TriggerPeriod::For || create.statements.is_some() {
        return Err(SqlError::syntax("syntax error at or near \"TRIGGER\""));
    }
    match &create.exec_body {
        Some(body) if body.func_desc.args.as_ref().is_none_or(Vec::is_empty) => Ok(()),
        _ => Err(SqlError::syntax("syntax error at end of input")),
    }
}

/// `DROP TRIGGER [IF EXISTS] name ON table`.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    drop: &DropTrigger,
) -> Result<Output, SqlError> {
    let Some(table) = &drop.table_name else {
        return Err(SqlError::syntax("syntax error at end of input"));
    };
    let table_name = crate::temp_tables::existing_name(cx, txn, table)?;
    let bare = folio_catalog::unqualified(&table_name).to_string();
    let name = names::relation(&drop.trigger_name)?;
    // A view's triggers are INSTEAD OF ones.
    let view = cx.db.catalog().view(txn, &table_name)?;
    let relation = match view.map(|v| v.def.oid) {
        Some(oid) => Ok(oid),
        None => crate::access::relation(cx, txn, &table_name).map(|r| r.def.oid),
    };
    let table = match relation {
        Ok(oid) => oid,
        Err(e) if e.code == "42P01" && drop.if_exists => {
            notices.push(Notice::info(format!(
                "relation \"{bare}\" does not exist, skipping"
            )));
            return Ok(Output::command("DROP TRIGGER"));
        }
        Err(e) => return Err(e),
    };
    let all = crate::triggers::in_scope();
    let found = (all.iter()).find(|t| t.table == table && t.name == name);
    if let Some(def) = found {
        crate::partitions::trigger_clones::refuse_drop(cx, txn, def, &bare)?;
        crate::partitions::trigger_clones::drop_clones(cx, txn, def)?;
    }
    if found.is_none() && drop.if_exists {
        notices.push(Notice::info(format!(
            "trigger \"{name}\" for relation \"{bare}\" does not exist, skipping"
        )));
        return Ok(Output::command("DROP TRIGGER"));
    }
    cx.db
        .catalog()
        .drop_trigger(txn, table, &table_name, &name)?;
    Ok(Output::command("DROP TRIGGER"))
}

/// `ALTER TRIGGER name ON table RENAME TO new` (sqlparser has none).
#[derive(Debug, Clone, PartialEq)]
pub struct Rename {
    pub name: String,
    pub table: ObjectName,
    pub new: String,
}

/// The rest of `ALTER TRIGGER` (after the two words).
pub fn parse_rename(tokens: &[TokenWithSpan]) -> Result<Rename, SqlError> {
    static DIALECT: PostgreSqlDialect = PostgreSqlDialect {};
    let mut p = Parser::new(&DIALECT).with_tokens_with_locations(tokens.to_vec());
    let syntax = |e: sqlparser::parser::ParserError| SqlError::syntax(e.to_string());
    let name = names::ident(&p.parse_identifier().map_err(syntax)?);
    p.expect_keyword(Keyword::ON).map_err(syntax)?;
    let table = p.parse_object_name(false).map_err(syntax)?;
    p.expect_keywords(&[Keyword::RENAME, Keyword::TO])
        .map_err(syntax)?;
    let new = names::ident(&p.parse_identifier().map_err(syntax)?);
    match p.peek_token().token {
        sqlparser::tokenizer::Token::EOF => Ok(Rename { name, table, new }),
        other => Err(SqlError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// Runs `ALTER TRIGGER ... RENAME TO`, as PostgreSQL 15's: a clone of a
/// partitioned table's trigger is not renamed alone (XX000, PostgreSQL
/// gives no code); a partitioned table's row trigger's clones are renamed
/// with it, down the tree (a partition with a trigger of the new name:
/// 42710).
pub fn rename(cx: &Ctx<'_>, txn: &mut Transaction, rename: &Rename) -> Result<Output, SqlError> {
    let table_name = crate::temp_tables::existing_name(cx, txn, &rename.table)?;
    let bare = folio_catalog::unqualified(&table_name).to_string();
    let table = match cx.db.catalog().view(txn, &table_name)? {
        Some(view) => view.def.oid,
        None => crate::access::relation(cx, txn, &table_name)?.def.oid,
    };
    let all = crate::triggers::in_scope();
    let found = (all.iter()).find(|t| t.table == table && t.name == rename.name);
    if let Some(def) = found
        && def.parent != 0
    {
        let parent_table = (all.iter().find(|t| t.oid == def.parent))
            .map(|p| p.table)
            .map_or(Ok(String::new()), |oid| table_named(cx, txn, oid))?;
        return Err(SqlError::new(
            "XX000",
            format!("cannot rename trigger \"{}\" on table \"{bare}\"", def.name),
        )
        .with_hint(format!(
            "Rename the trigger on the partitioned table \"{}\" instead.",
            folio_catalog::unqualified(&parent_table)
        )));
    }
    (cx.db.catalog()).rename_trigger(txn, table, &table_name, &rename.name, &rename.new)?;
    if let Some(def) = found {
        rename_clones(cx, txn, &all, def.oid, &rename.new)?;
    }
    Ok(Output::command("ALTER TRIGGER"))
}

/// The clones of trigger `parent` (and theirs) renamed `new`.
fn rename_clones(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    all: &[TriggerDef],
    parent: u64,
    new: &str,
) -> Result<(), SqlError> {
    for clone in all.iter().filter(|t| t.parent == parent) {
        let table = table_named(cx, txn, clone.table)?;
        (cx.db.catalog()).rename_trigger(txn, clone.table, &table, &clone.name, new)?;
        rename_clones(cx, txn, all, clone.oid, new)?;
    }
    Ok(())
}

/// The catalog name of the table of oid `oid`.
fn table_named(cx: &Ctx<'_>, txn: &Transaction, oid: u64) -> Result<String, SqlError> {
    Ok((cx.db.catalog().tables(txn)?.into_iter())
        .find(|d| d.oid == oid)
        .map_or_else(String::new, |d| d.name))
}

/// The triggers that run the functions `functions` (oids, in the order a
/// DROP FUNCTION named them; `single`: it named one) are dropped with
/// `cascade` (PostgreSQL's `drop cascades to trigger t on table x`
/// notice), else the drop is PostgreSQL's 2BP01. Listed as PostgreSQL
/// lists them: the last function's first, each one's in creation order.
pub fn drop_of_functions(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    functions: &[u64],
    single: bool,
    cascade: bool,
) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    let mut using: Vec<&TriggerDef> = Vec::new();
    for &function in functions.iter().rev() {
        // (A clone goes with the trigger it is a clone of.)
        let mut of: Vec<&TriggerDef> = (all.iter())
            .filter(|t| t.function == function && t.parent == 0)
            .collect();
        of.sort_by_key(|t| t.oid);
        using.extend(of);
    }
    if using.is_empty() {
        return Ok(());
    }
    let catalog = cx.db.catalog();
    let tables = catalog.tables(txn)?;
    let table_of = |t: &TriggerDef| {
        (tables.iter().find(|d| d.oid == t.table)).map_or_else(String::new, |d| d.name.clone())
    };
    let function_of = |oid: u64| match crate::sql_functions::by_oid(oid as i64) {
        Some(f) => format!("function {}()", crate::sql_functions::names_of(&f.name)),
        None => format!("function {oid}"),
    };
    let object = |t: &TriggerDef| format!("trigger {} on table {}", t.name, table_of(t));
    if !cascade {
        let detail = (using.iter())
            .map(|t| format!("{} depends on {}", object(t), function_of(t.function)))
            .collect::<Vec<_>>()
            .join("\n");
        let message = match single {
            true => format!(
                "cannot drop {} because other objects depend on it",
                function_of(functions[0])
            ),
            false => "cannot drop desired object(s) because other objects depend on them".into(),
        };
        return Err(SqlError::new("2BP01", message)
            .with_detail(detail)
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    let objects: Vec<String> = using.iter().map(|t| object(t)).collect();
    notices.extend(Notice::cascaded(&objects));
    for t in using {
        crate::partitions::trigger_clones::drop_clones(cx, txn, t)?;
        catalog.drop_trigger(txn, t.table, &table_of(t), &t.name)?;
    }
    Ok(())
}

/// `ALTER TABLE ... DROP COLUMN column` of table `def`: the table's
/// triggers that use the column (`UPDATE OF` it, or its `old.` / `new.`
/// value in `WHEN`) make the drop PostgreSQL's 2BP01, or with `cascade`
/// are dropped first (PostgreSQL's `drop cascades to trigger ...` notice).
pub fn drop_of_column(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &folio_catalog::TableDef,
    column: &str,
    cascade: bool,
) -> Result<(), SqlError> {
    let mut using: Vec<TriggerDef> = (crate::triggers::in_scope().iter())
        .filter(|t| t.table == def.oid && t.parent == 0)
        .filter(|t| {
            t.columns.iter().any(|c| c == column)
                || (t.when.as_deref()).is_some_and(|w| crate::trigger_when::reads_column(w, column))
        })
        .cloned()
        .collect();
    if using.is_empty() {
        return Ok(());
    }
    using.sort_by_key(|t| t.oid);
    let bare = folio_catalog::unqualified(&def.name);
    let objects: Vec<String> = (using.iter())
        .map(|t| format!("trigger {} on table {bare}", t.name))
        .collect();
    if !cascade {
        let detail = (objects.iter())
            .map(|o| format!("{o} depends on column {column} of table {bare}"))
            .collect::<Vec<_>>()
            .join("\n");
        return Err(SqlError::new(
            "2BP01",
            format!(
                "cannot drop column {column} of table {bare} because other objects depend on it"
            ),
        )
        .with_detail(detail)
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    notices.extend(Notice::cascaded(&objects));
    for t in &using {
        crate::partitions::trigger_clones::drop_clones(cx, txn, t)?;
        (cx.db.catalog()).drop_trigger(txn, t.table, &def.name, &t.name)?;
    }
    Ok(())
}

/// `ALTER TABLE t {ENABLE [ALWAYS | REPLICA] | DISABLE} TRIGGER {name |
/// ALL | USER}`: one operation of an ALTER TABLE.
pub struct Enabling<'a> {
    /// `None`: `ALL` or `USER` (`all` tells which: `ALL` also turns the
    /// table's foreign key triggers off or on, [`Enabling::run`]).
    name: Option<&'a Ident>,
    all: bool,
    state: TriggerEnabled,
}

impl<'a> Enabling<'a> {
    /// `operation` if it enables or disables triggers.
    pub fn of(operation: &'a AlterTableOperation) -> Option<Enabling<'a>> {
        let (name, state) = match operation {
            AlterTableOperation::EnableTrigger { name } => (name, TriggerEnabled::Origin),
            AlterTableOperation::DisableTrigger { name } => (name, TriggerEnabled::Disabled),
            AlterTableOperation::EnableAlwaysTrigger { name } => (name, TriggerEnabled::Always),
            AlterTableOperation::EnableReplicaTrigger { name } => (name, TriggerEnabled::Replica),
            _ => return None,
        };
        // `ALL` and `USER` are keywords only after ENABLE or DISABLE;
        // quoted they name a trigger.
        let keyword =
            |word: &str| name.quote_style.is_none() && name.value.eq_ignore_ascii_case(word);
        let plain = matches!(state, TriggerEnabled::Origin | TriggerEnabled::Disabled);
        let all = plain && keyword("all");
        Some(Enabling {
            name: (!(all || plain && keyword("user"))).then_some(name),
            all,
            state,
        })
    }

    /// The action as PostgreSQL names it (`DISABLE TRIGGER ALL`).
    pub fn action(&self) -> String {
        let verb = match self.state {
            TriggerEnabled::Origin => "ENABLE TRIGGER",
            TriggerEnabled::Disabled => "DISABLE TRIGGER",
            TriggerEnabled::Always => "ENABLE ALWAYS TRIGGER",
            TriggerEnabled::Replica => "ENABLE REPLICA TRIGGER",
        };
        match (self.name, self.all) {
            (Some(_), _) => verb.to_string(),
            (None, true) => format!("{verb} ALL"),
            (None, false) => format!("{verb} USER"),
        }
    }

    /// Sets the trigger (or every trigger) of table `table_name` (a
    /// catalog name) to fire or not; 42704 for a name it has not. `ALL`
    /// also sets the table's foreign key triggers (PostgreSQL's
    /// `RI_ConstraintTrigger_*`: the checks of its rows' references, the
    /// actions of keys referencing it): a superuser's right only, else
    /// PostgreSQL's 42501 naming such a trigger (a name folio makes up:
    /// `RI_ConstraintTrigger_a_` or `_c_` and the constraint's oid).
    /// A partitioned table's clones of the trigger follow unless `only`
    /// (`ALTER TABLE ONLY`).
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        table_name: &str,
        only: bool,
    ) -> Result<(), SqlError> {
        let catalog = cx.db.catalog();
        let def = (catalog.table(txn, table_name)?)
            .ok_or_else(|| SqlError::undefined_table(table_name))?;
        let table = def.oid;
        if self.all
            && let Some(system) = foreign_key_trigger(&def)
        {
            if !crate::roles::current_is_superuser()? {
                return Err(SqlError::new(
                    "42501",
                    format!("permission denied: \"{system}\" is a system trigger"),
                ));
            }
            let enabled = self.state != TriggerEnabled::Disabled;
            catalog.set_foreign_key_triggers(txn, table, enabled)?;
        }
        let names: Vec<String> = match self.name {
            Some(name) => vec![names::ident(name)],
            None => (crate::triggers::in_scope().iter())
                .filter(|t| t.table == table && !t.is_internal())
                .map(|t| t.name.clone())
                .collect(),
        };
        let all = crate::triggers::in_scope();
        for name in names {
            catalog.enable_trigger(txn, table, table_name, &name, self.state)?;
            // A partitioned table's clones follow (PostgreSQL 15).
            if !only && let Some(def) = all.iter().find(|t| t.table == table && t.name == name) {
                crate::partitions::trigger_clones::enable_clones(cx, txn, def, self.state)?;
            }
        }
        Ok(())
    }
}

/// The name PostgreSQL's error gives one of table `def`'s foreign key
/// triggers, if it has any: an action trigger of a key referencing it
/// (`RI_ConstraintTrigger_a_*`, which sort first), else a check trigger
/// of its own key (`_c_`); folio numbers them by the constraint's oid
/// (PostgreSQL: the trigger's).
fn foreign_key_trigger(def: &folio_catalog::TableDef) -> Option<String> {
    use folio_catalog::ConstraintKind;
    let referencing = (def.referenced_by.iter())
        .filter(|c| matches!(c.kind, ConstraintKind::ForeignKey(_)))
        .map(|c| c.oid)
        .min();
    let own = (def.constraints.iter())
        .filter(|c| matches!(c.kind, ConstraintKind::ForeignKey(_)))
        .map(|c| c.oid)
        .min();
    match (referencing, own) {
        (Some(oid), _) => Some(format!("RI_ConstraintTrigger_a_{oid}")),
        (None, Some(oid)) => Some(format!("RI_ConstraintTrigger_c_{oid}")),
        (None, None) => None,
    }
}

/// `pg_get_triggerdef(oid [, pretty])`: PostgreSQL's text of trigger
/// `def` on table `table` (its catalog name) running function `function`
/// (its name). The pretty form names a table in `public` bare and does
/// not parenthesize each operator of `WHEN`.
pub fn definition(def: &TriggerDef, table: &str, function: &str, pretty: bool) -> String {
    let (schema, bare) = folio_catalog::split_schema(table);
    let schema = if schema.is_empty() { "public" } else { schema };
    let table = match (pretty, schema) {
        (true, "public") => names::written(bare).to_string(),
        _ => format!("{}.{}", names::written(schema), names::written(bare)),
    };
    let mut events = Vec::new();
    if def.kind & TRIGGER_INSERT != 0 {
        events.push("INSERT".to_string());
    }
    if def.kind & TRIGGER_DELETE != 0 {
        events.push("DELETE".to_string());
    }
    if def.kind & TRIGGER_UPDATE != 0 {
        let mut update = "UPDATE".to_string();
        if !def.columns.is_empty() {
            let columns: Vec<String> = (def.columns.iter())
                .map(|c| names::written(c).to_string())
                .collect();
            update.push_str(&format!(" OF {}", columns.join(", ")));
        }
        events.push(update);
    }
    if def.kind & TRIGGER_TRUNCATE != 0 {
        events.push("TRUNCATE".to_string());
    }
    let when = match &def.when {
        Some(condition) if pretty => format!(" WHEN ({condition})"),
        Some(condition) => format!(" WHEN ({})", crate::deparse::parenthesized(condition)),
        None => String::new(),
    };
    let args: Vec<String> = (def.args.iter())
        .map(|a| format!("'{}'", a.replace('\'', "''")))
        .collect();
    let mut referencing = String::new();
    if let Some(old) = &def.old_table {
        referencing.push_str(&format!(" OLD TABLE AS {}", names::written(old)));
    }
    if let Some(new) = &def.new_table {
        referencing.push_str(&format!(" NEW TABLE AS {}", names::written(new)));
    }
    if !referencing.is_empty() {
        referencing.insert_str(0, " REFERENCING");
    }
    format!(
        "CREATE TRIGGER {} {} {} ON {table}{referencing} FOR EACH {}{when} EXECUTE FUNCTION {}({})",
        names::written(&def.name),
        match def.kind & (TRIGGER_BEFORE | TRIGGER_INSTEAD) {
            TRIGGER_BEFORE => "BEFORE",
            TRIGGER_INSTEAD => "INSTEAD OF",
            _ => "AFTER",
        },
        events.join(" OR "),
        if def.kind & TRIGGER_ROW != 0 {
            "ROW"
        } else {
            "STATEMENT"
        },
        names::written(crate::sql_functions::names_of(function)),
        args.join(", ")
    )
}
