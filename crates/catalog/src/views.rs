//! Views: a `folio.class` row of kind `v` holding the view's query as SQL
//! text and the oids of the relations it reads, and one `folio.attribute`
//! row per output column (its name and type, fixed when the view is
//! made, as PostgreSQL fixes them). The SQL layer plans the text where
//! the view is named; the catalog keeps it, its columns and its
//! dependencies (README "Views").

use crate::catalog::{Catalog, check_name, corrupt};
use crate::codec::{Reader, Writer};
use crate::currency::DdlMark;
use crate::defs::{ClassRow, ColumnDef, KIND_MATVIEW, KIND_VIEW};
use crate::error::CatalogError;
use crate::temp::unqualified;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::{Csn, LockMode, Transaction, Xid};
use std::sync::Arc;

/// What a view's class row holds after its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewBody {
    /// The query, as SQL text the SQL layer parses.
    pub query: String,
    /// The relations (tables and views) it reads, by oid.
    pub depends_on: Vec<u64>,
    /// A view's `WITH CHECK OPTION` (a byte after the body, kind `v`
    /// only, written when not `None` or when defaults follow: rows
    /// written before read as none).
    pub check_option: CheckOption,
    /// A view's column defaults (after the check option's byte, kind `v`
    /// only, written when there are any: rows written before read as
    /// none).
    pub defaults: Vec<ViewDefault>,
    /// A view's options (PostgreSQL's `reloptions`: `check_option`,
    /// `security_barrier`, `security_invoker`), as `(name, value)` in the
    /// order `pg_class.reloptions` shows them (after the defaults, kind
    /// `v` only, written when there are any; a row written before reads
    /// its check option's byte as its one option). `check_option` is
    /// always the one of this list.
    pub options: Vec<(String, String)>,
}

/// A default of a view column (`ALTER VIEW v ALTER COLUMN c SET DEFAULT
/// expr`): what an INSERT through the view gives the column when it
/// leaves it out or names `DEFAULT`, before the base column's (README
/// "Views").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewDefault {
    /// The column's position among the view's (its columns are never
    /// dropped or moved: CREATE OR REPLACE only adds).
    pub column: u16,
    /// The expression, as SQL text.
    pub expr: String,
}

/// A view's `WITH [LOCAL | CASCADED] CHECK OPTION` (PostgreSQL's
/// `check_option` reloption): rows written through the view must be
/// ones it shows (README "Views").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CheckOption {
    #[default]
    None,
    Local,
    Cascaded,
}

impl CheckOption {
    /// The check option `options` (a view's reloptions) set.
    pub fn of_options(options: &[(String, String)]) -> CheckOption {
        match options.iter().find(|(name, _)| name == "check_option") {
            Some((_, v)) if v.eq_ignore_ascii_case("local") => CheckOption::Local,
            Some((_, v)) if v.eq_ignore_ascii_case("cascaded") => CheckOption::Cascaded,
            _ => CheckOption::None,
        }
    }

    /// The options list of a view that has only this check option (what
    /// a row written before options were kept holds).
    fn options_of(option: CheckOption) -> Vec<(String, String)> {
        match option {
            CheckOption::None => Vec::new(),
            other => vec![("check_option".into(), other.name().to_ascii_lowercase())],
        }
    }

    /// Its name in `information_schema.views.check_option`.
    pub fn name(self) -> &'static str {
        match self {
            CheckOption::None => "NONE",
            CheckOption::Local => "LOCAL",
            CheckOption::Cascaded => "CASCADED",
        }
    }
}

impl ViewBody {
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.str(&self.query).u16(self.depends_on.len() as u16);
        for oid in &self.depends_on {
            w.u64(*oid);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<ViewBody, String> {
        let query = r.str()?;
        let n = r.u16()?;
        let depends_on = (0..n).map(|_| r.u64()).collect::<Result<_, _>>()?;
        Ok(ViewBody {
            query,
            depends_on,
            check_option: CheckOption::None,
            defaults: Vec::new(),
            options: Vec::new(),
        })
    }

    /// What only a (plain) view's row holds after its body: its check
    /// option's byte (0 none, 1 local, 2 cascaded), then its column
    /// defaults (a u16 count, then per default its column as a u16 and
    /// its text), then its options (a u16 count, then per option its
    /// name and value as text); each part written only when it or a later
    /// one is not empty, so rows written before any read as none.
    pub(crate) fn encode_view_options(&self, w: &mut Writer) {
        let plain_options =
            self.options.is_empty() || self.options == CheckOption::options_of(self.check_option);
        if self.check_option == CheckOption::None && self.defaults.is_empty() && plain_options {
            return;
        }
        w.u8(match self.check_option {
            CheckOption::None => 0,
            CheckOption::Local => 1,
            CheckOption::Cascaded => 2,
        });
        if self.defaults.is_empty() && plain_options {
            return;
        }
        w.u16(self.defaults.len() as u16);
        for d in &self.defaults {
            w.u16(d.column).str(&d.expr);
        }
        if plain_options {
            return;
        }
        w.u16(self.options.len() as u16);
        for (name, value) in &self.options {
            w.str(name).str(value);
        }
    }

    pub(crate) fn decode_view_options(&mut self, r: &mut Reader<'_>) -> Result<(), String> {
        if r.0.is_empty() {
            return Ok(());
        }
        self.check_option = match r.u8()? {
            0 => CheckOption::None,
            1 => CheckOption::Local,
            2 => CheckOption::Cascaded,
            other => return Err(format!("view check option {other}")),
        };
        self.options = CheckOption::options_of(self.check_option);
        if r.0.is_empty() {
            return Ok(());
        }
        let n = r.u16()?;
        self.defaults = (0..n)
            .map(|_| {
                Ok(ViewDefault {
                    column: r.u16()?,
                    expr: r.str()?,
                })
            })
            .collect::<Result<_, String>>()?;
        if r.0.is_empty() {
            return Ok(());
        }
        let n = r.u16()?;
        self.options = (0..n)
            .map(|_| Ok((r.str()?, r.str()?)))
            .collect::<Result<_, String>>()?;
        if CheckOption::of_options(&self.options) != self.check_option {
            return Err("view options disagree with the check option".into());
        }
        Ok(())
    }
}

/// A view's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewDef {
    pub oid: u64,
    pub name: String,
    /// Its query, as SQL text.
    pub query: String,
    /// Its output columns (their `not_null` is always false).
    pub columns: Vec<ColumnDef>,
    /// The relations it reads, by oid.
    pub depends_on: Vec<u64>,
    /// A materialized view (`matviews.rs`): a table filled from the
    /// query, read as a table, never expanded.
    pub materialized: bool,
    pub check_option: CheckOption,
    /// Its column defaults (plain views only), by column position.
    pub defaults: Vec<ViewDefault>,
    /// Its options, as `pg_class.reloptions` shows them ([`ViewBody`]).
    pub options: Vec<(String, String)>,
}

impl ViewDef {
    /// A boolean option's value (`security_barrier`, `security_invoker`;
    /// false when not set).
    pub fn flag(&self, name: &str) -> bool {
        // (PostgreSQL's `parse_bool` of the text the SQL layer checked:
        // `1`, `on`, or a prefix of `true` or `yes`.)
        let on = |v: &str| {
            let v = v.to_ascii_lowercase();
            v == "1"
                || v == "on"
                || (!v.is_empty() && ("true".starts_with(&v) || "yes".starts_with(&v)))
        };
        (self.options.iter()).any(|(n, v)| n == name && on(v))
    }

    /// The default expression of column `column`, as SQL text.
    pub fn default_of(&self, column: usize) -> Option<&str> {
        (self.defaults.iter())
            .find(|d| usize::from(d.column) == column)
            .map(|d| d.expr.as_str())
    }

    /// What PostgreSQL calls it in messages: `view` or `materialized
    /// view`.
    pub fn kind_name(&self) -> &'static str {
        match self.materialized {
            true => "materialized view",
            false => "view",
        }
    }
}

/// What CREATE VIEW gives [`Catalog::create_view`]: the query's text,
/// its output columns, the relations it reads and its options (checked
/// by the caller; `check_option`'s value `local` or `cascaded`).
#[derive(Debug, Clone, Copy)]
pub struct NewView<'a> {
    pub query: &'a str,
    pub columns: &'a [ColumnDef],
    pub depends_on: &'a [u64],
    pub options: &'a [(String, String)],
}

/// A view as a statement read it: its definition, and whether it is
/// still current for a plan made with it (no CREATE OR REPLACE or DROP of
/// it committed since: its DDL mark, `currency.rs`).
#[derive(Debug)]
pub struct View {
    pub def: ViewDef,
    ddl_mark: Arc<DdlMark>,
    read_with: (Csn, Option<Xid>),
}

impl View {
    /// Whether `txn` would read the same definition (as
    /// [`crate::Relation::is_current`]).
    pub fn is_current(&self, txn: &Transaction) -> Result<bool, CatalogError> {
        let (read_at, reader) = self.read_with;
        if txn.snapshot().0 < read_at {
            return Ok(false);
        }
        Ok(!self
            .ddl_mark
            .changed_since(txn.manager(), read_at, reader)?)
    }
}

/// How a view's new columns may differ from its old ones under `CREATE OR
/// REPLACE VIEW` (PostgreSQL's rule: the old columns stay, by name and
/// type, and new ones may follow): the one owner of that rule.
fn check_replacement(old: &[ColumnDef], new: &[ColumnDef]) -> Result<(), CatalogError> {
    if new.len() < old.len() {
        return Err(CatalogError::ViewChange {
            message: "cannot drop columns from view".into(),
            hint: None,
        });
    }
    for (o, n) in old.iter().zip(new) {
        if o.name != n.name {
            return Err(CatalogError::ViewChange {
                message: format!(
                    "cannot change name of view column \"{}\" to \"{}\"",
                    o.name, n.name
                ),
                hint: Some(
                    "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead."
                        .into(),
                ),
            });
        }
        if (o.type_oid, o.typmod) != (n.type_oid, n.typmod) {
            return Err(CatalogError::ViewColumnType {
                column: o.name.clone(),
                old: (o.type_oid, o.typmod),
                new: (n.type_oid, n.typmod),
            });
        }
    }
    Ok(())
}

fn view_def(class: ClassRow, columns: Vec<ColumnDef>) -> Option<ViewDef> {
    let body = class.view?;
    Some(ViewDef {
        oid: class.oid,
        name: class.name,
        query: body.query,
        columns,
        depends_on: body.depends_on,
        materialized: class.kind == KIND_MATVIEW,
        check_option: body.check_option,
        defaults: body.defaults,
        options: body.options,
    })
}

impl Catalog {
    /// Keeps the relations `depends_on` (a view's or materialized view's
    /// body reads them) until `txn` ends: a DROP of one waits, then sees
    /// the new relation among its dependents. The one owner of that rule.
    pub(crate) fn lock_dependencies(
        &self,
        txn: &mut Transaction,
        depends_on: &[u64],
    ) -> Result<(), CatalogError> {
        let classes = self.class_rows(txn)?;
        for oid in depends_on {
            if let Some((tid, class)) = classes.iter().find(|(_, c)| c.oid == *oid) {
                let missing = || CatalogError::NoSuchRelation(class.name.clone());
                self.lock_class_row_as(txn, *tid, missing, true)?;
            }
        }
        Ok(())
    }

    /// `CREATE [OR REPLACE] VIEW name AS query`: `columns` are the
    /// query's output columns, `depends_on` the relations it reads. With
    /// `replace`, a view of that name takes the new definition if its
    /// columns allow ([`check_replacement`]); a relation of another kind
    /// is 42809. Each relation read has its class row locked `FOR SHARE`
    /// (PostgreSQL's CREATE VIEW takes `ACCESS SHARE` on it), so a
    /// concurrent DROP waits and then sees the view.
    pub fn create_view(
        &self,
        txn: &mut Transaction,
        name: &str,
        view: NewView<'_>,
        replace: bool,
    ) -> Result<ViewDef, CatalogError> {
        let NewView {
            query,
            columns,
            depends_on,
            options,
        } = view;
        let check_option = CheckOption::of_options(options);
        check_name(name)?;
        for (i, c) in columns.iter().enumerate() {
            check_name(&c.name)?;
            if columns[..i].iter().any(|d| d.name == c.name) {
                return Err(CatalogError::DuplicateColumn(c.name.clone()));
            }
        }
        self.lock_dependencies(txn, depends_on)?;
        let mut body = ViewBody {
            query: query.to_string(),
            depends_on: depends_on.to_vec(),
            check_option,
            defaults: Vec::new(),
            options: options.to_vec(),
        };
        let existing = self.class(txn, name)?;
        let oid = match existing {
            Some((_, class)) if !replace || class.kind != KIND_VIEW => {
                return Err(match replace {
                    true => CatalogError::NotAView(name.to_string()),
                    false => CatalogError::Exists(name.to_string()),
                });
            }
            Some((tid, class)) => {
                let old = self.lock_view(txn, tid, name)?;
                check_replacement(&old.columns, columns)?;
                // The old columns stay, and their defaults with them (as
                // PostgreSQL's, whose view keeps its `pg_attrdef` rows).
                body.defaults = old.defaults.clone();
                let row = ClassRow {
                    view: Some(body.clone()),
                    ..class
                };
                self.in_savepoint(txn, |txn| {
                    for (tid, _) in self.attribute_rows(txn, old.oid)? {
                        self.attributes.delete(txn, tid)?;
                    }
                    self.insert_columns(txn, old.oid, columns)?;
                    Ok(())
                })?;
                self.update_class(txn, self.class(txn, name)?.expect("locked").0, &row)?;
                old.oid
            }
            None => {
                let oid = self.next_oid()?;
                let class = ClassRow {
                    view: Some(body.clone()),
                    ..ClassRow::new(oid, name, KIND_VIEW, PageId(0))
                };
                self.in_savepoint(txn, |txn| {
                    self.insert_class(txn, &class)?;
                    self.insert_columns(txn, oid, columns)
                })?;
                oid
            }
        };
        Ok(ViewDef {
            oid,
            name: name.to_string(),
            query: query.to_string(),
            columns: columns.to_vec(),
            depends_on: depends_on.to_vec(),
            materialized: false,
            check_option,
            defaults: body.defaults,
            options: body.options,
        })
    }

    /// `ALTER VIEW name ALTER COLUMN column SET DEFAULT expr` (`Some`, the
    /// expression's text, checked by the caller) or `DROP DEFAULT`
    /// (`None`): stored in the view's class row; 42703 for no such
    /// column.
    pub fn set_view_default(
        &self,
        txn: &mut Transaction,
        name: &str,
        column: &str,
        expr: Option<String>,
    ) -> Result<(), CatalogError> {
        let def = self.locked_view(txn, name)?;
        let position = (def.columns.iter())
            .position(|c| c.name == column)
            .ok_or_else(|| CatalogError::NoSuchColumn {
                table: unqualified(name).to_string(),
                column: column.to_string(),
            })?;
        self.update_view_body(txn, name, |body| {
            body.defaults.retain(|d| usize::from(d.column) != position);
            if let Some(expr) = expr {
                body.defaults.push(ViewDefault {
                    column: position as u16,
                    expr,
                });
                body.defaults.sort_by_key(|d| d.column);
            }
        })
    }

    /// Replaces the class row of view `name` (locked by the caller) by
    /// what `change` makes of its body.
    fn update_view_body(
        &self,
        txn: &mut Transaction,
        name: &str,
        change: impl FnOnce(&mut ViewBody),
    ) -> Result<(), CatalogError> {
        let (tid, class) = (self.class(txn, name)?)
            .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
        let mut body = class.view.clone().expect("a view's row has its body");
        change(&mut body);
        body.check_option = CheckOption::of_options(&body.options);
        let row = ClassRow {
            view: Some(body),
            ..class
        };
        self.update_class(txn, tid, &row)
    }

    /// `ALTER VIEW name SET (...)` / `RESET (...)`: the view's options
    /// become `options` (the caller checked them and keeps PostgreSQL's
    /// order).
    pub fn set_view_options(
        &self,
        txn: &mut Transaction,
        name: &str,
        options: Vec<(String, String)>,
    ) -> Result<(), CatalogError> {
        self.locked_view(txn, name)?;
        self.update_view_body(txn, name, |body| body.options = options)
    }

    /// A view's or materialized view's query text, rewritten by the SQL
    /// layer after a relation or column it names was renamed
    /// (PostgreSQL's views name them by oid and follow; folio's keep
    /// text, so the text follows instead). A view is locked as any DDL on
    /// it; a materialized view's class row only (its rows, which readers
    /// read, do not change: the text matters to its next REFRESH).
    pub fn set_view_query(
        &self,
        txn: &mut Transaction,
        name: &str,
        query: &str,
    ) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchRelation(name.to_string());
        match self.class(txn, name)?.ok_or_else(missing)? {
            (tid, class) if class.kind == KIND_MATVIEW => {
                self.lock_class_row(txn, tid, missing)?;
            }
            _ => {
                self.locked_view(txn, name)?;
            }
        }
        self.update_view_body(txn, name, |body| body.query = query.to_string())
    }

    /// `ALTER VIEW name RENAME [COLUMN] old TO new`: the column's
    /// attribute row renamed (its position, type and default stay); 42703
    /// if `old` is missing, 42701 if `new` is taken.
    pub fn rename_view_column(
        &self,
        txn: &mut Transaction,
        name: &str,
        old: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        check_name(new)?;
        let def = self.locked_view(txn, name)?;
        let attributes = self.attribute_rows(txn, def.oid)?;
        if attributes.iter().any(|(_, a)| a.column.name == new) {
            return Err(CatalogError::ColumnExists {
                table: unqualified(name).to_string(),
                column: new.to_string(),
            });
        }
        let (tid, mut row) = crate::catalog::attribute_named(attributes, name, old)?;
        row.column.name = new.to_string();
        self.update_attribute(txn, tid, &row, name)
    }

    /// The view `name`, locked as [`Catalog::lock_view`] locks it: 42P01
    /// for no relation of that name, 42809 for one of another kind. The
    /// one path of the view statements that change a view.
    pub(crate) fn locked_view(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<ViewDef, CatalogError> {
        let (tid, class) = self
            .class(txn, name)?
            .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
        if class.kind != KIND_VIEW {
            return Err(CatalogError::NotAView(name.to_string()));
        }
        self.lock_view(txn, tid, name)
    }

    /// Locks the view's class row (other DDL on it waits until `txn`
    /// ends) and notes DDL on it, so plans made with it are made again.
    pub(crate) fn lock_view(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        name: &str,
    ) -> Result<ViewDef, CatalogError> {
        let missing = || CatalogError::NoSuchRelation(name.to_string());
        let (_, class) = self.relock_class(txn, tid, name, missing)?;
        self.lock_for_ddl(txn, class.oid, LockMode::AccessExclusive)?;
        let columns = self.view_columns(txn, class.oid)?;
        view_def(class, columns).ok_or_else(|| CatalogError::NotAView(name.to_string()))
    }

    pub(crate) fn view_columns(
        &self,
        txn: &Transaction,
        oid: u64,
    ) -> Result<Vec<ColumnDef>, CatalogError> {
        let mut rows = self.attribute_rows(txn, oid)?;
        rows.sort_by_key(|(_, row)| row.number);
        Ok(rows.into_iter().map(|(_, row)| row.column).collect())
    }

    /// The view `name` as `txn` sees it (`None`: no relation, or another
    /// kind, has that name).
    pub fn view(&self, txn: &Transaction, name: &str) -> Result<Option<View>, CatalogError> {
        let Some((_, class)) = self.class(txn, name)? else {
            return Ok(None);
        };
        if class.kind != KIND_VIEW {
            return Ok(None);
        }
        let oid = class.oid;
        let columns = self.view_columns(txn, oid)?;
        let def = view_def(class, columns).ok_or_else(|| corrupt(format!("view {name}")))?;
        Ok(Some(View {
            def,
            ddl_mark: self.ddl_marks.of(oid),
            read_with: (txn.snapshot().0, txn.existing_xid()),
        }))
    }

    /// Every view `txn` sees, by name.
    pub fn views(&self, txn: &Transaction) -> Result<Vec<ViewDef>, CatalogError> {
        self.views_of_kinds(txn, &[KIND_VIEW])
    }

    /// Every view and materialized view `txn` sees, by name: the
    /// relations that read others by a stored query.
    pub fn readers(&self, txn: &Transaction) -> Result<Vec<ViewDef>, CatalogError> {
        self.views_of_kinds(txn, &[KIND_VIEW, KIND_MATVIEW])
    }

    fn views_of_kinds(
        &self,
        txn: &Transaction,
        kinds: &[u8],
    ) -> Result<Vec<ViewDef>, CatalogError> {
        let mut out = Vec::new();
        for (_, class) in self.class_rows(txn)? {
            if kinds.contains(&class.kind) {
                let columns = self.view_columns(txn, class.oid)?;
                out.extend(view_def(class, columns));
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The views and materialized views that read relation `oid` (its
    /// dependents), with the newest committed catalog: a view committed
    /// while the caller waited for its lock is one.
    pub fn dependent_views(
        &self,
        txn: &mut Transaction,
        oid: u64,
    ) -> Result<Vec<ViewDef>, CatalogError> {
        let views = txn.with_latest_snapshot(|txn| self.readers(txn))?;
        Ok(views
            .into_iter()
            .filter(|v| v.depends_on.contains(&oid))
            .collect())
    }

    /// `DROP VIEW name`: 2BP01 if another view reads it (the caller drops
    /// those first under CASCADE).
    pub fn drop_view(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let def = self.locked_view(txn, name)?;
        if let Some(dependent) = self.dependent_views(txn, def.oid)?.first() {
            let object = format!("view {name}");
            return Err(CatalogError::DependedOn {
                dependents: vec![(
                    format!("{} {}", dependent.kind_name(), dependent.name),
                    object.clone(),
                )],
                object,
            });
        }
        self.in_savepoint(txn, |txn| {
            for (tid, _) in self.attribute_rows(txn, def.oid)? {
                self.attributes.delete(txn, tid)?;
            }
            let (tid, _) = self
                .class(txn, name)?
                .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
            self.classes.delete(txn, tid)?;
            // Its INSTEAD OF triggers go with it.
            self.drop_members_of(txn, &crate::relation_members::TRIGGERS, def.oid)?;
            self.drop_members_of(txn, &crate::relation_members::RULES, def.oid)?;
            self.drop_descriptions(txn, def.oid, |_| true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, type_oid: u32) -> ColumnDef {
        ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid,
            typmod: -1,
            not_null: false,
        }
    }

    // Proves CREATE OR REPLACE keeps PostgreSQL's rule: old columns stay
    // by name and type, new ones may follow.
    #[test]
    fn replacement_keeps_old_columns() {
        let old = [column("a", 23), column("b", 25)];
        assert!(check_replacement(&old, &[column("a", 23), column("b", 25)]).is_ok());
        assert!(
            check_replacement(&old, &[column("a", 23), column("b", 25), column("c", 23)]).is_ok()
        );
        let dropped = check_replacement(&old, &[column("a", 23)]).unwrap_err();
        assert_eq!(dropped.to_string(), "cannot drop columns from view");
        let renamed = check_replacement(&old, &[column("y", 23), column("b", 25)]).unwrap_err();
        assert_eq!(
            renamed.to_string(),
            "cannot change name of view column \"a\" to \"y\""
        );
        let retyped = check_replacement(&old, &[column("a", 23), column("b", 23)]).unwrap_err();
        assert_eq!(retyped.sqlstate(), Some("42P16"));
    }
}
