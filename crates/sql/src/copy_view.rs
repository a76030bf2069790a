//! `COPY view FROM STDIN` into a view with an INSTEAD OF INSERT trigger
//! (README "Views"): PostgreSQL runs the trigger for each row, as an
//! INSERT into the view would. folio cuts the data into records and
//! fields as a table's COPY does (`copy_format.rs`), and inserts each
//! batch of rows as `INSERT INTO view (columns) VALUES ('text', ...)`
//! through `instead_of.rs`, the one path of a row change a view's
//! triggers run: each value is the field's text, read as the column's
//! type; a column not copied takes the view's default, else NULL.

use crate::context::Ctx;
use crate::copy_records::{Records, Texts};
use crate::error::SqlError;
use crate::names;
use crate::parse::Copy;
use crate::scalar::Env;
use crate::triggers::Event;
use folio_catalog::ViewDef;
use folio_db::Transaction;
use sqlparser::ast::{Expr, Ident, ObjectName, ObjectNamePart, SetExpr, Statement, Values};

/// Rows inserted together (one INSERT through the triggers).
const BATCH_ROWS: usize = 1000;

/// A COPY into a view, in progress: the data's rows (`copy_records.rs`)
/// and where they go.
pub struct ViewCopy {
    records: Records,
    into: ViewRows,
}

/// The rows of a COPY into a view, as they go through its triggers.
struct ViewRows {
    view: ViewDef,
    /// The view columns the fields go to, by position.
    targets: Vec<usize>,
    /// The values of the rows not yet inserted.
    batch: Vec<Texts>,
    rows: u64,
}

impl ViewCopy {
    /// Starts `copy` into `name` if it is a view with an INSTEAD OF
    /// INSERT trigger (`None` otherwise: `copy.rs` decides the rest).
    pub fn start(
        cx: &Ctx<'_>,
        txn: &Transaction,
        name: &str,
        copy: &Copy,
    ) -> Result<Option<ViewCopy>, SqlError> {
        let Some(view) = cx.db.catalog().view(txn, name)? else {
            return Ok(None);
        };
        let view = view.def;
        if !crate::triggers::fires_instead(view.oid, Event::Insert) {
            return Ok(None);
        }
        crate::privileges::note(cx, view.oid, name, "view", crate::privileges::INSERT);
        crate::privileges::check_all(cx, &cx.needs.take())?;
        let targets: Vec<usize> = match copy.columns.is_empty() {
            true => (0..view.columns.len()).collect(),
            false => (copy.columns.iter())
                .map(|c| {
                    (view.columns.iter())
                        .position(|v| &v.name == c)
                        .ok_or_else(|| {
                            SqlError::new(
                                "42703",
                                format!(
                                    "column \"{c}\" of relation \"{}\" does not exist",
                                    folio_catalog::unqualified(name)
                                ),
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        let names = (targets.iter())
            .map(|&c| view.columns[c].name.clone())
            .collect();
        Ok(Some(ViewCopy {
            records: Records::new(&copy.format, names)?,
            into: ViewRows {
                targets,
                view,
                batch: Vec::new(),
                rows: 0,
            },
        }))
    }

    /// The number of columns each line carries.
    pub fn width(&self) -> usize {
        self.records.width()
    }

    /// Takes the next piece of data (as `CopyIn::data`).
    pub fn data(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        data: &[u8],
    ) -> Result<(), SqlError> {
        let into = &mut self.into;
        let ended = self.records.data(data, |texts, _| {
            into.row(cx, txn, texts)?;
            crate::interrupt::every(txn, into.rows + into.batch.len() as u64)
        })?;
        match ended {
            true => into.insert_batch(cx, txn),
            false => Ok(()),
        }
    }

    /// The end of the data; the rows the triggers did not skip.
    pub fn finish(mut self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<u64, SqlError> {
        let into = &mut self.into;
        (self.records).finish(|texts, _| into.row(cx, txn, texts))?;
        into.insert_batch(cx, txn)?;
        Ok(into.rows)
    }
}

impl ViewRows {
    /// One record's values, added to the batch.
    fn row(&mut self, cx: &Ctx<'_>, txn: &mut Transaction, texts: Texts) -> Result<(), SqlError> {
        self.batch.push(texts);
        if self.batch.len() == BATCH_ROWS {
            self.insert_batch(cx, txn)?;
        }
        Ok(())
    }

    /// Inserts the batch through the view's INSTEAD OF triggers.
    fn insert_batch(&mut self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.batch);
        let value = |text: Option<String>| match text {
            Some(t) => Expr::value(sqlparser::ast::Value::SingleQuotedString(t)),
            None => Expr::value(sqlparser::ast::Value::Null),
        };
        let values = Values {
            explicit_row: false,
            rows: (rows.into_iter())
                .map(|row| row.into_iter().map(value).collect())
                .collect(),
        };
        let sql = format!(
            "INSERT INTO {} ({}) VALUES (NULL)",
            ObjectName(
                (self.view.name.split('.'))
                    .map(|p| ObjectNamePart::Identifier(names::written(p)))
                    .collect()
            ),
            (self.targets.iter())
                .map(|&c| Ident::with_quote('"', self.view.columns[c].name.clone()).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut statement = match crate::parse::statements(&sql)?.pop() {
            Some(crate::parse::Parsed::Sql(statement)) => *statement,
            _ => return Err(SqlError::new("XX000", "COPY into a view: no INSERT")),
        };
        if let Statement::Insert(insert) = &mut statement
            && let Some(source) = &mut insert.source
        {
            *source.body = SetExpr::Values(values);
        }
        let instead = crate::instead_of::plan(cx, txn, &statement)?
            .ok_or_else(|| SqlError::new("XX000", "COPY into a view: no INSTEAD OF trigger"))?;
        crate::privileges::check_all(cx, &cx.needs.take())?;
        let output = instead.run(cx, txn, &Env::of(cx))?;
        let count: u64 = (output.tag().rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        self.rows += count;
        Ok(())
    }
}
