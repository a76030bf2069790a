//! User-defined SQL functions (`CREATE FUNCTION ... LANGUAGE sql`): a
//! `folio.class` row of kind `f` (no storage) whose tail holds the
//! function's signature and body text (README "SQL functions"). The SQL
//! layer parses, checks and expands the body; the catalog keeps it.
//!
//! Functions live in a namespace of their own in PostgreSQL, and one name
//! may have several signatures, so the row's name is the function's
//! catalog name (`qualified_name`) followed by a NUL byte and its argument
//! type oids (`f\0{23,25}`): no relation name can hold a NUL (PostgreSQL
//! identifiers cannot), and the unique index on names keeps one function
//! per name and argument types.

use crate::catalog::{Catalog, check_name, corrupt};
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_FUNCTION};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::Transaction;

/// A SQL function's or procedure's definition (what `pg_proc` shows of
/// it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FunctionDef {
    pub oid: u64,
    /// Its catalog name (`schema.name`, or bare in `public`).
    pub name: String,
    /// Each argument's name (empty when it has none) and type oid and
    /// modifier.
    pub args: Vec<(String, u32, i32)>,
    /// The result's type oid and modifier (of each row for `SETOF`).
    pub result: (u32, i32),
    /// `RETURNS SETOF` / `RETURNS TABLE`.
    pub returns_set: bool,
    /// The named columns of each row returned: `RETURNS TABLE`'s (its
    /// OUT variables), or a table's for `RETURNS SETOF table`; empty
    /// for rows of one value of type `result`.
    pub columns: Vec<(String, u32, i32)>,
    /// `columns` are a table's (`RETURNS SETOF table`), not OUT
    /// variables (`RETURNS TABLE`).
    pub columns_of_table: bool,
    /// `i` immutable, `s` stable, `v` volatile (`pg_proc.provolatile`).
    pub volatility: u8,
    /// `STRICT`: NULL for any NULL argument, the body not run.
    pub strict: bool,
    /// `LANGUAGE plpgsql` (else `sql`).
    pub plpgsql: bool,
    /// The body, as SQL text (`pg_proc.prosrc`).
    pub body: String,
    /// `CREATE PROCEDURE` (`pg_proc.prokind` `p`), run by CALL.
    pub procedure: bool,
    /// Each argument's mode, as `pg_proc.proargmodes`: `i` IN, `o` OUT,
    /// `b` INOUT, `v` VARIADIC; empty when every argument is IN.
    pub modes: Vec<u8>,
    /// The default values (expressions as SQL text) of the last input
    /// arguments, in order (`pg_proc.proargdefaults`).
    pub defaults: Vec<String>,
}

impl FunctionDef {
    /// The type oids of the input arguments (all but OUT ones), as the
    /// row's name and `proargtypes` list them.
    pub fn signature(&self) -> String {
        let oids: Vec<String> = (self.inputs())
            .map(|i| self.args[i].1.to_string())
            .collect();
        oids.join(",")
    }

    /// Argument `i`'s mode (`i`, `o`, `b` or `v`: [`FunctionDef::modes`]).
    pub fn mode(&self, i: usize) -> u8 {
        self.modes.get(i).copied().unwrap_or(b'i')
    }

    /// Whether argument `i` is an input: every mode but OUT.
    pub fn is_input(&self, i: usize) -> bool {
        self.mode(i) != b'o'
    }

    /// Whether argument `i` comes back to the caller: OUT or INOUT.
    pub fn is_output(&self, i: usize) -> bool {
        matches!(self.mode(i), b'o' | b'b')
    }

    /// The positions of the input arguments, in order.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.args.len()).filter(|i| self.is_input(*i))
    }

    /// Which of [`FunctionDef::defaults`] is argument `i`'s: the
    /// defaults belong to the last input arguments.
    pub fn default_index(&self, i: usize) -> Option<usize> {
        if !self.is_input(i) {
            return None;
        }
        let place = self.inputs().position(|k| k == i)?;
        let first = self.inputs().count().checked_sub(self.defaults.len())?;
        place.checked_sub(first)
    }

    /// The default expression (SQL text) of argument `i`, if it has one.
    pub fn default_of(&self, i: usize) -> Option<&str> {
        (self.defaults.get(self.default_index(i)?)).map(String::as_str)
    }
}

/// What a function's class row holds after its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FunctionBody {
    pub args: Vec<(String, u32, i32)>,
    pub result: (u32, i32),
    pub returns_set: bool,
    pub columns: Vec<(String, u32, i32)>,
    pub columns_of_table: bool,
    pub volatility: u8,
    pub strict: bool,
    pub plpgsql: bool,
    pub body: String,
    pub procedure: bool,
    pub modes: Vec<u8>,
    pub defaults: Vec<String>,
}

/// The flag bits of a function row.
const RETURNS_SET: u8 = 1;
const STRICT: u8 = 2;
const PLPGSQL: u8 = 4;
/// The result's columns follow the body (rows written before this flag
/// existed have none).
const COLUMNS: u8 = 8;
/// The columns are a table's (`RETURNS SETOF table`).
const COLUMNS_OF_TABLE: u8 = 16;
/// A procedure.
const PROCEDURE: u8 = 32;
/// The arguments' modes follow the columns.
const MODES: u8 = 64;
/// The default values follow the modes.
const DEFAULTS: u8 = 128;

impl FunctionBody {
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u32(self.args.len() as u32);
        for (name, oid, typmod) in &self.args {
            w.str(name).u32(*oid).i32(*typmod);
        }
        w.u32(self.result.0)
            .i32(self.result.1)
            .u8((if self.returns_set { RETURNS_SET } else { 0 })
                | (if self.strict { STRICT } else { 0 })
                | (if self.plpgsql { PLPGSQL } else { 0 })
                | (if self.columns.is_empty() { 0 } else { COLUMNS })
                | (if self.columns_of_table {
                    COLUMNS_OF_TABLE
                } else {
                    0
                })
                | (if self.procedure { PROCEDURE } else { 0 })
                | (if self.modes.is_empty() { 0 } else { MODES })
                | (if self.defaults.is_empty() {
                    0
                } else {
                    DEFAULTS
                }))
            .u8(self.volatility)
            .str(&self.body);
        if !self.columns.is_empty() {
            w.u32(self.columns.len() as u32);
            for (name, oid, typmod) in &self.columns {
                w.str(name).u32(*oid).i32(*typmod);
            }
        }
        if !self.modes.is_empty() {
            w.u32(self.modes.len() as u32);
            for mode in &self.modes {
                w.u8(*mode);
            }
        }
        if !self.defaults.is_empty() {
            w.u32(self.defaults.len() as u32);
            for default in &self.defaults {
                w.str(default);
            }
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<FunctionBody, String> {
        let n = r.u32()?;
        let args = (0..n)
            .map(|_| Ok((r.str()?, r.u32()?, r.i32()?)))
            .collect::<Result<Vec<_>, String>>()?;
        let result = (r.u32()?, r.i32()?);
        let flags = r.u8()?;
        let volatility = r.u8()?;
        if !matches!(volatility, b'i' | b's' | b'v') {
            return Err(format!("function volatility {volatility}"));
        }
        let body = r.str()?;
        let mut columns = Vec::new();
        if flags & COLUMNS != 0 {
            let n = r.u32()?;
            for _ in 0..n {
                columns.push((r.str()?, r.u32()?, r.i32()?));
            }
        }
        let mut modes = Vec::new();
        if flags & MODES != 0 {
            for _ in 0..r.u32()? {
                let mode = r.u8()?;
                if !matches!(mode, b'i' | b'o' | b'b' | b'v') {
                    return Err(format!("argument mode {mode}"));
                }
                modes.push(mode);
            }
            if modes.len() != args.len() {
                return Err(format!("{} modes of {} arguments", modes.len(), args.len()));
            }
        }
        let mut defaults = Vec::new();
        if flags & DEFAULTS != 0 {
            for _ in 0..r.u32()? {
                defaults.push(r.str()?);
            }
        }
        Ok(FunctionBody {
            args,
            result,
            returns_set: flags & RETURNS_SET != 0,
            columns,
            columns_of_table: flags & COLUMNS_OF_TABLE != 0,
            strict: flags & STRICT != 0,
            plpgsql: flags & PLPGSQL != 0,
            volatility,
            body,
            procedure: flags & PROCEDURE != 0,
            modes,
            defaults,
        })
    }
}

/// The class row name of function `name` with argument types `oids`.
fn row_name(name: &str, signature: &str) -> String {
    format!("{name}\0{signature}")
}

fn function_def(class: &ClassRow) -> Option<FunctionDef> {
    let body = class.function.as_ref()?;
    let (name, _) = class.name.split_once('\0')?;
    Some(FunctionDef {
        oid: class.oid,
        name: name.to_string(),
        args: body.args.clone(),
        result: body.result,
        returns_set: body.returns_set,
        columns: body.columns.clone(),
        columns_of_table: body.columns_of_table,
        volatility: body.volatility,
        strict: body.strict,
        plpgsql: body.plpgsql,
        body: body.body.clone(),
        procedure: body.procedure,
        modes: body.modes.clone(),
        defaults: body.defaults.clone(),
    })
}

/// The SQL functions among class rows `classes`, by name then oid.
pub(crate) fn functions_among(classes: &[(Tid, ClassRow)]) -> Vec<FunctionDef> {
    let mut out: Vec<FunctionDef> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_FUNCTION)
        .filter_map(|(_, c)| function_def(c))
        .collect();
    out.sort_by(|a, b| (&a.name, a.oid).cmp(&(&b.name, b.oid)));
    out
}

impl Catalog {
    /// Every SQL function and procedure `txn` sees, by name then oid.
    pub fn functions(&self, txn: &Transaction) -> Result<Vec<FunctionDef>, CatalogError> {
        Ok(functions_among(&self.class_rows(txn)?))
    }

    /// `CREATE [OR REPLACE] FUNCTION`: `def` (its oid is chosen here) is
    /// stored; one of the same name and argument types is 42723 unless
    /// `replace`, when it takes the new definition and keeps its oid
    /// (PostgreSQL's). The result type of a replaced function may not
    /// change, nor a record result's columns (42P13, PostgreSQL's
    /// message).
    pub fn create_function(
        &self,
        txn: &mut Transaction,
        def: &FunctionDef,
        replace: bool,
    ) -> Result<FunctionDef, CatalogError> {
        check_name(&def.name)?;
        if def.body.len() > usize::from(u16::MAX) {
            return Err(CatalogError::Unsupported(
                "a function body longer than 65535 bytes".into(),
            ));
        }
        let name = row_name(&def.name, &def.signature());
        let body = FunctionBody {
            args: def.args.clone(),
            result: def.result,
            returns_set: def.returns_set,
            columns: def.columns.clone(),
            columns_of_table: def.columns_of_table,
            volatility: def.volatility,
            strict: def.strict,
            plpgsql: def.plpgsql,
            body: def.body.clone(),
            procedure: def.procedure,
            modes: def.modes.clone(),
            defaults: def.defaults.clone(),
        };
        let exists = || CatalogError::FunctionExists(display_name(&def.name));
        if let Some((tid, _)) = self.class(txn, &name)? {
            if !replace {
                return Err(exists());
            }
            self.lock_class_row(txn, tid, exists)?;
            let (tid, class) = self.class(txn, &name)?.ok_or_else(exists)?;
            let old = class
                .function
                .as_ref()
                .ok_or_else(|| corrupt(format!("function row {name:?} without a body")))?;
            if old.procedure != body.procedure {
                return Err(CatalogError::FunctionChange(
                    "cannot change routine kind".into(),
                ));
            }
            // A record's columns are its type (their names too); a
            // named type's are fixed by it, so one OUT parameter may be
            // renamed (PostgreSQL compares only a record's columns).
            let record = body.result.0 == folio_row::SqlType::Record.oid();
            if (old.result, old.returns_set) != (body.result, body.returns_set)
                || (record && old.columns != body.columns)
            {
                return Err(CatalogError::FunctionChange(
                    "cannot change return type of existing function".into(),
                ));
            }
            // An input parameter keeps its name, and the defaults stay
            // (PostgreSQL's `ProcedureCreate`).
            if let Some((old_name, _, _)) = (old.args.iter().zip(&body.args))
                .find(|(o, n)| !o.0.is_empty() && o.0 != n.0)
                .map(|(o, _)| o)
            {
                return Err(CatalogError::FunctionChange(format!(
                    "cannot change name of input parameter \"{old_name}\""
                )));
            }
            if old.defaults.len() > body.defaults.len() {
                return Err(CatalogError::FunctionChange(
                    "cannot remove parameter defaults from existing function".into(),
                ));
            }
            let row = ClassRow {
                function: Some(body),
                ..class
            };
            self.update_class(txn, tid, &row)?;
            let oid = row.oid;
            return Ok(FunctionDef { oid, ..def.clone() });
        }
        let oid = self.next_oid()?;
        let class = ClassRow {
            function: Some(body),
            ..ClassRow::new(oid, &name, KIND_FUNCTION, PageId(0))
        };
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(_) => exists(),
                other => other,
            })?;
        Ok(FunctionDef { oid, ..def.clone() })
    }

    /// `DROP FUNCTION name(types)`: the function of catalog name `name`
    /// and argument type oids `signature` (as [`FunctionDef::signature`]),
    /// or 42883.
    pub fn drop_function(
        &self,
        txn: &mut Transaction,
        name: &str,
        signature: &str,
    ) -> Result<(), CatalogError> {
        let row = row_name(name, signature);
        let missing = || CatalogError::NoSuchFunction(display_name(name));
        let (tid, _) = self.class(txn, &row)?.ok_or_else(missing)?;
        let (tid, _) = self.relock_class(txn, tid, &row, missing)?;
        self.delete_class_row(txn, tid)
    }
}

/// A function's name as messages show it (its bare name in `public`).
fn display_name(name: &str) -> String {
    crate::schemas::split_schema(name).1.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the argument questions read the modes: OUT arguments are not
    // inputs, INOUT ones are both, and the defaults belong to the last
    // inputs, skipping OUT arguments between them.
    #[test]
    fn modes_answer_inputs_outputs_and_defaults() {
        let arg = |n: &str| (n.to_string(), 23, -1);
        let def = FunctionDef {
            args: vec![arg("a"), arg("b"), arg("c"), arg("d")],
            modes: vec![b'i', b'b', b'o', b'i'],
            defaults: vec!["1".into(), "2".into()],
            ..FunctionDef::default()
        };
        assert_eq!(def.inputs().collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(def.signature(), "23,23,23");
        let outputs: Vec<bool> = (0..4).map(|i| def.is_output(i)).collect();
        assert_eq!(outputs, [false, true, true, false]);
        let defaults: Vec<Option<&str>> = (0..4).map(|i| def.default_of(i)).collect();
        assert_eq!(defaults, [None, Some("1"), None, Some("2")]);
        // More defaults than inputs: a damaged row gives none.
        let damaged = FunctionDef {
            defaults: vec!["1".into(); 4],
            ..def.clone()
        };
        assert_eq!(damaged.default_of(3), None);
    }

    // Proves a function's row tail round-trips and a damaged one is an
    // error, not a wrong definition.
    #[test]
    fn body_round_trips() {
        let body = FunctionBody {
            args: vec![("a".into(), 23, -1), (String::new(), 25, -1)],
            result: (1700, 655366),
            returns_set: true,
            columns: vec![("a".into(), 23, -1), ("b".into(), 25, -1)],
            columns_of_table: true,
            volatility: b'i',
            strict: true,
            plpgsql: true,
            body: "select $1 + 1".into(),
            procedure: true,
            modes: vec![b'b', b'i'],
            defaults: vec!["42".into()],
        };
        let mut w = Writer::default();
        body.encode(&mut w);
        let bytes = w.0;
        let mut r = Reader(&bytes);
        assert_eq!(FunctionBody::decode(&mut r).unwrap(), body);
        assert!(r.0.is_empty());
        let mut bad = bytes.clone();
        let columns_bytes = 4
            + (body.columns.iter())
                .map(|c| 2 + c.0.len() + 8)
                .sum::<usize>();
        let tail = columns_bytes + (4 + body.modes.len()) + (4 + 2 + body.defaults[0].len());
        let flags_at = bytes.len() - tail - (2 + body.body.len()) - 2;
        assert_eq!(
            bad[flags_at],
            RETURNS_SET
                | STRICT
                | PLPGSQL
                | COLUMNS
                | COLUMNS_OF_TABLE
                | PROCEDURE
                | MODES
                | DEFAULTS
        );
        // A volatility that is none of PostgreSQL's.
        bad[flags_at + 1] = b'x';
        assert!(FunctionBody::decode(&mut Reader(&bad)).is_err());
    }
}
