//! The extended protocol's portals: what a Bind made, the result of its
//! run kept between Executes, and the one rule for what an Execute with
//! a row limit sends (README "Portals").

use crate::protocol::Out;
use folio_row::Value;
use folio_sql::{Column, Output, SqlError, binary_output, text_output_in};

/// A bound portal: its statement and parameters, and its result once run
/// (by a Describe of the portal, or its first Execute).
pub struct Portal {
    pub statement: String,
    pub parameters: Vec<Option<String>>,
    pub result_formats: Vec<u16>,
    /// The result of its run: for rows, those not yet sent.
    pub result: Option<Output>,
    /// Rows of `result` already sent by Executes.
    sent: usize,
    /// A portal without rows ran to completion: it cannot run again.
    done: bool,
    /// The session's savepoint mark when it was bound
    /// (`Session::portal_mark`): a ROLLBACK TO a savepoint made since
    /// drops it.
    mark: u64,
}

impl Portal {
    pub fn new(
        statement: String,
        parameters: Vec<Option<String>>,
        formats: Vec<u16>,
        mark: u64,
    ) -> Portal {
        Portal {
            statement,
            parameters,
            result_formats: formats,
            result: None,
            sent: 0,
            done: false,
            mark,
        }
    }

    /// Whether an Execute may run it (a command runs once).
    pub fn runnable(&self) -> bool {
        !self.done
    }

    /// One Execute's answer from its (run) result: up to `max_rows` rows
    /// (0: all) from where the last Execute stopped, then PortalSuspended
    /// if it sent `max_rows`, else CommandComplete counting the rows this
    /// Execute sent. A result without rows is sent whole and the portal is
    /// done. A value without an output form stops it with that error.
    pub fn send(
        &mut self,
        out: &mut Out,
        max_rows: u32,
        style: &folio_row::TextStyle,
    ) -> Result<(), SqlError> {
        let Some(result) = &mut self.result else {
            unreachable!("an Execute runs the portal before sending");
        };
        match result {
            Output::Rows {
                columns, rows, tag, ..
            } => {
                let first = self.sent;
                let left = rows.len() - first;
                let count = match max_rows {
                    0 => left,
                    n => left.min(n as usize),
                };
                data_rows(
                    out,
                    columns,
                    &rows[first..first + count],
                    &self.result_formats,
                    style,
                )?;
                self.sent += count;
                if max_rows != 0 && count == max_rows as usize {
                    out.portal_suspended();
                    return Ok(());
                }
                // (A completed portal keeps its tag, its rows gone.)
                if first == 0 && count == rows.len() && count > 0 {
                    out.command_complete(tag);
                } else {
                    out.command_complete(&tag_counting(tag, count));
                }
                // Complete: later Executes send no row (`SELECT 0`).
                rows.clear();
                self.sent = 0;
            }
            Output::Command { tag } => {
                out.command_complete(tag);
                self.done = true;
            }
            Output::CopyOut {
                columns,
                lines,
                tag,
            } => {
                out.copy_out(*columns, lines);
                out.command_complete(tag);
                self.done = true;
            }
            // (Parse refuses COPY FROM STDIN.)
            Output::CopyIn { .. } => {
                return Err(SqlError::unsupported(
                    "COPY FROM STDIN in the extended protocol",
                ));
            }
        }
        Ok(())
    }
}

/// `tag` with its row count (its last word, if a number) made `count`:
/// `SELECT 10` -> `SELECT 3`, `INSERT 0 5` -> `INSERT 0 2`; `SHOW` stays.
fn tag_counting(tag: &str, count: usize) -> String {
    match tag.rsplit_once(' ') {
        Some((head, n)) if n.parse::<u64>().is_ok() => format!("{head} {count}"),
        _ => tag.to_string(),
    }
}

/// DataRows in PostgreSQL's text or binary formats (per column, as
/// `formats` says; text values in the session's `style`); a
/// value without an output form stops it with that error.
pub fn data_rows(
    out: &mut Out,
    columns: &[Column],
    rows: &[Vec<Value>],
    formats: &[u16],
    style: &folio_row::TextStyle,
) -> Result<(), SqlError> {
    for row in rows {
        out.data_row(row.len(), |i| {
            let v = &row[i];
            match crate::protocol::format_of(formats, i) {
                1 => binary_output(v, columns.get(i).map_or(0, |c| c.type_oid)),
                _ => Ok(text_output_in(v, style).map(String::into_bytes)),
            }
        })?;
    }
    Ok(())
}

/// A connection's portals by name: the unnamed one (`""`, which most
/// Binds make, each replacing it) in a slot of its own, so that binding,
/// finding and dropping it hashes no name.
#[derive(Default)]
pub struct Portals {
    unnamed: Option<Portal>,
    by_name: foldhash::HashMap<String, Portal>,
}

impl Portals {
    /// A Bind's new portal: it replaces the unnamed one; a named one that
    /// exists is PostgreSQL's 42P03.
    pub fn bind(&mut self, name: String, portal: Portal) -> Result<(), SqlError> {
        if name.is_empty() {
            self.unnamed = Some(portal);
            return Ok(());
        }
        if self.by_name.contains_key(&name) {
            return Err(SqlError::new(
                "42P03",
                format!("cursor \"{name}\" already exists"),
            ));
        }
        self.by_name.insert(name, portal);
        Ok(())
    }

    /// Portal `name`, or PostgreSQL's 34000.
    pub fn get_mut(&mut self, name: &str) -> Result<&mut Portal, SqlError> {
        let portal = match name {
            "" => self.unnamed.as_mut(),
            _ => self.by_name.get_mut(name),
        };
        portal.ok_or_else(|| SqlError::new("34000", format!("portal \"{name}\" does not exist")))
    }

    /// Close: drops portal `name` (none is no error).
    pub fn close(&mut self, name: &str) {
        match name {
            "" => self.unnamed = None,
            _ => {
                self.by_name.remove(name);
            }
        }
    }

    /// A ROLLBACK TO the savepoint numbered `savepoint` ran: the portals
    /// bound since it was made are dropped.
    pub fn rolled_back_to(&mut self, savepoint: u64) {
        self.unnamed = self.unnamed.take().filter(|p| p.mark < savepoint);
        self.by_name.retain(|_, p| p.mark < savepoint);
    }

    /// Drops every portal (their transaction ended).
    pub fn clear(&mut self) {
        self.unnamed = None;
        if !self.by_name.is_empty() {
            self.by_name.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn portal(mark: u64) -> Portal {
        Portal::new("s".into(), Vec::new(), Vec::new(), mark)
    }

    // Proves the unnamed portal, kept apart from the named ones, follows
    // the same rules: a Bind replaces it (a named one that exists is
    // 42P03), Close and a missing one (34000), ROLLBACK TO drops what was
    // bound since the savepoint, a transaction's end drops all.
    #[test]
    fn the_unnamed_portal_follows_the_named_ones_rules() {
        let mut portals = Portals::default();
        assert_eq!(portals.get_mut("").err().unwrap().code, "34000");
        portals.bind(String::new(), portal(1)).unwrap();
        portals.bind(String::new(), portal(2)).unwrap();
        assert_eq!(portals.get_mut("").unwrap().mark, 2);
        portals.bind("c".into(), portal(1)).unwrap();
        assert_eq!(
            portals.bind("c".into(), portal(1)).unwrap_err().code,
            "42P03"
        );
        portals.rolled_back_to(2);
        assert!(portals.get_mut("").is_err());
        assert_eq!(portals.get_mut("c").unwrap().mark, 1);
        portals.bind(String::new(), portal(1)).unwrap();
        portals.close("");
        assert!(portals.get_mut("").is_err());
        portals.bind(String::new(), portal(1)).unwrap();
        portals.clear();
        assert!(portals.get_mut("").is_err() && portals.get_mut("c").is_err());
    }
}
