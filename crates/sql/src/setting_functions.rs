//! `current_setting(name [, missing_ok])` and `set_config(name, value,
//! is_local)`: the session's settings read and written while a statement
//! runs. The session puts its settings in this thread's scope around each
//! statement ([`Scope::enter`], beside `roles::Scope`), so a call reads
//! them when it runs: a kept plan (a prepared statement, a SQL function's
//! body) sees the value of its execution, never one of its planning.
//!
//! `set_config` changes a copy the scope keeps, which the statement's
//! later calls read (`set_config('a.b', 'x', false), current_setting('a.b')`
//! gives `x` twice, as PostgreSQL); when the statement ends, the session
//! applies the calls in order as `SET [LOCAL]`s ([`Scope::finish`]), so
//! `Session::set_setting` stays the one owner of what a SET lasts for. A
//! statement that fails applies none: its transaction rolls back, which
//! would undo them (PostgreSQL's settings are transactional).
//!
//! What a setting's value is comes from `Settings::show`, for these as
//! for `SHOW`.

use crate::error::SqlError;
use crate::settings::{OpenTransaction, Settings};
use folio_row::{SqlType, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// A function of the session's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingFunc {
    /// `current_setting(name [, missing_ok])`.
    Current,
    /// `set_config(name, value, is_local)`.
    SetConfig,
    /// `pg_settings_get_flags(name)`: PostgreSQL's flags of the setting
    /// (`settings_list::flags`), NULL for a name that is none.
    Flags,
}

const NAMES: [(&str, SettingFunc); 3] = [
    ("current_setting", SettingFunc::Current),
    ("set_config", SettingFunc::SetConfig),
    ("pg_settings_get_flags", SettingFunc::Flags),
];

impl SettingFunc {
    pub fn of(name: &str) -> Option<SettingFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        match self {
            SettingFunc::Current => (1..=2).contains(&count),
            SettingFunc::SetConfig => count == 3,
            SettingFunc::Flags => count == 1,
        }
    }

    /// Whether NULL arguments give NULL without a call: `current_setting`
    /// and `pg_settings_get_flags` are strict, `set_config` is not (a
    /// NULL value is RESET, a NULL `is_local` false), as PostgreSQL's.
    pub fn is_strict(self) -> bool {
        self != SettingFunc::SetConfig
    }

    /// Its value in the running statement's session.
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let text = |v: &Value| crate::types::text_output(v);
        match self {
            SettingFunc::Current => {
                let missing_ok = matches!(args.get(1), Some(Value::Bool(true)));
                let Some(name) = text(&args[0]) else {
                    return Ok(Value::Null);
                };
                match current_setting(&name) {
                    Err(e) if missing_ok && matches!(e.code, "42704" | "42602") => Ok(Value::Null),
                    value => value.map(Value::Text),
                }
            }
            SettingFunc::SetConfig => {
                let Some(name) = text(&args[0]) else {
                    return Err(SqlError::new("22004", "SET requires parameter name"));
                };
                let local = matches!(args[2], Value::Bool(true));
                set_config(&name, text(&args[1]), local).map(Value::Text)
            }
            SettingFunc::Flags => {
                let Some(name) = text(&args[0]) else {
                    return Ok(Value::Null);
                };
                let name = name.to_lowercase();
                if current_setting(&name).is_err() {
                    return Ok(Value::Null);
                }
                let custom = crate::settings::is_custom(&name).unwrap_or(false);
                let flags = crate::settings_list::flags(&name, custom);
                Ok(Value::Array(
                    flags.into_iter().map(|f| Value::Text(f.into())).collect(),
                ))
            }
        }
    }

    pub fn ty(self) -> SqlType {
        match self {
            SettingFunc::Flags => SqlType::Array(&SqlType::Text),
            SettingFunc::Current | SettingFunc::SetConfig => SqlType::Text,
        }
    }
}

/// A `set_config` call, applied to the session when its statement ends
/// ([`Scope::finish`]): `SET [LOCAL] name = value`, or with no value
/// `RESET name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub name: String,
    pub value: Option<String>,
    pub local: bool,
}

/// What a statement's scope holds.
struct Scoped {
    /// The session's settings as the statement began.
    settings: Arc<Settings>,
    /// What RESET goes back to.
    defaults: Arc<Settings>,
    /// The statement's transaction.
    open: OpenTransaction,
    /// The settings after the statement's `set_config` calls, if it made
    /// any (boxed: the scope is moved in and out of the thread's slot
    /// twice per statement, and `Settings` is large).
    changed: Option<Box<Settings>>,
    /// Those calls, in order.
    changes: Vec<Change>,
}

thread_local! {
    static CURRENT: RefCell<Option<Scoped>> = const { RefCell::new(None) };
}

/// The session's settings in this thread's scope for one statement; the
/// scope before it comes back when it is dropped or finished.
#[derive(Debug)]
pub struct Scope {
    /// The scope it replaced (`None` once finished).
    outer: Option<Option<Scoped>>,
}

impl Scoped {
    /// The settings the statement runs with now.
    fn current(&self) -> &Settings {
        self.changed.as_deref().unwrap_or(&self.settings)
    }
}

impl std::fmt::Debug for Scoped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scoped")
            .field("changes", &self.changes)
            .finish_non_exhaustive()
    }
}

impl Scope {
    /// Puts `settings` (and `defaults`, what RESET goes back to) in scope
    /// for a statement running in transaction `open`.
    pub fn enter(
        settings: &Arc<Settings>,
        defaults: &Arc<Settings>,
        open: OpenTransaction,
    ) -> Scope {
        let scoped = Scoped {
            settings: settings.clone(),
            defaults: defaults.clone(),
            open,
            changed: None,
            changes: Vec::new(),
        };
        Scope {
            outer: Some(CURRENT.with(|c| c.borrow_mut().replace(scoped))),
        }
    }

    /// Leaves the scope: the statement's `set_config` calls, in order,
    /// for the session to apply.
    pub fn finish(self) -> Vec<Change> {
        self.finish_with_settings().1
    }

    /// Leaves the scope: the settings as its `set_config` calls left
    /// them (`None`: it made none), and those calls. A COPY, whose
    /// statement spans messages, enters its next piece's scope with
    /// those settings and applies the calls once it ends.
    pub fn finish_with_settings(mut self) -> (Option<Box<Settings>>, Vec<Change>) {
        let outer = self.outer.take().expect("a scope is finished once");
        let mine = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
        mine.map_or((None, Vec::new()), |s| (s.changed, s.changes))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            CURRENT.with(|c| *c.borrow_mut() = outer);
        }
    }
}

/// The running statement's transaction ended and `open` began in its
/// place (a procedure's COMMIT or ROLLBACK: `transaction_control.rs`).
pub fn transaction_began(open: OpenTransaction) {
    CURRENT.with(|c| {
        if let Some(scoped) = c.borrow_mut().as_mut() {
            scoped.open = open;
        }
    });
}

fn no_scope() -> SqlError {
    SqlError::new(
        "XX000",
        "the session's settings are read outside a statement",
    )
}

/// `pg_settings`' rows (`settings_list.rs`) for the running statement's
/// session, its `set_config` calls so far included.
pub fn pg_settings_rows() -> Result<Vec<Vec<Value>>, SqlError> {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        let scoped = scoped.as_ref().ok_or_else(no_scope)?;
        let settings = scoped.current();
        crate::settings_list::rows(settings, &scoped.defaults, scoped.open)
    })
}

/// The running statement's `TimeZone` (its `set_config` calls so far
/// included): the zone timestamptz values are shown and read in, and
/// what casts, `date_trunc`, `extract` and `to_char` of a timestamptz
/// follow. Outside a statement (the server writing rows asks
/// `Session::time_zone` instead), UTC.
pub fn time_zone() -> folio_row::TimeZone {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        scoped.as_ref().map_or(folio_row::TimeZone::UTC, |scoped| {
            let settings = scoped.current();
            settings.time_zone().clone()
        })
    })
}

/// The running statement's text style (`TimeZone`, `IntervalStyle`,
/// `extra_float_digits`; its `set_config` calls so far included): how
/// values are written as text. Outside a statement, the defaults in UTC.
pub fn text_style() -> folio_row::TextStyle {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        scoped
            .as_ref()
            .map_or_else(folio_row::TextStyle::default, |scoped| {
                scoped.current().text_style()
            })
    })
}

/// The running statement's `default_text_search_config` (outside a
/// statement, PostgreSQL's default `pg_catalog.english`).
pub fn text_search_config() -> String {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        scoped
            .as_ref()
            .map_or("pg_catalog.english".into(), |scoped| {
                scoped.current().text_search_config().to_string()
            })
    })
}

/// The running statement's `DateStyle` field order (its `set_config`
/// calls so far included): how date/time text such as `1/8/1999` is
/// read. Outside a statement, `MDY`.
pub fn date_order() -> folio_row::DateOrder {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        scoped.as_ref().map_or(folio_row::DateOrder::Mdy, |scoped| {
            let settings = scoped.current();
            settings.date_order()
        })
    })
}

/// Whether the running statement's session replays changes
/// (`session_replication_role = replica`, its `set_config` calls so far
/// included): the one question trigger firing (`triggers.rs`) and
/// foreign key checks (`constraints.rs`) ask. Outside a statement, no.
pub fn replica() -> bool {
    CURRENT.with(|c| {
        let scoped = c.borrow();
        scoped.as_ref().is_some_and(|scoped| {
            let settings = scoped.current();
            settings.replica()
        })
    })
}

/// `current_setting(name)`: what `SHOW name` gives now.
fn current_setting(name: &str) -> Result<String, SqlError> {
    let name = name.to_lowercase();
    CURRENT.with(|c| {
        let scoped = c.borrow();
        let scoped = scoped.as_ref().ok_or_else(no_scope)?;
        let settings = scoped.current();
        settings.show(&name, Some(scoped.open))
    })
}

/// `set_config(name, value, is_local)`: sets (no value: resets) the
/// setting for the rest of the statement and notes the call for the
/// session; the value `SHOW` gives then.
fn set_config(name: &str, value: Option<String>, local: bool) -> Result<String, SqlError> {
    let name = name.to_lowercase();
    crate::settings_list::may_change(&name, crate::roles::current_is_superuser)?;
    CURRENT.with(|c| {
        let mut scoped = c.borrow_mut();
        let scoped = scoped.as_mut().ok_or_else(no_scope)?;
        let settings = scoped
            .changed
            .get_or_insert_with(|| Box::new(Settings::clone(&scoped.settings)));
        match &value {
            Some(value) => settings.set(&name, value)?,
            // (`RESET ALL`'s word is no setting's name here.)
            None if name == "all" => return Err(crate::settings::unknown(&name)),
            None => settings.reset(&name, &scoped.defaults)?,
        }
        let shown = settings.show(&name, Some(scoped.open))?;
        scoped.changes.push(Change { name, value, local });
        Ok(shown)
    })
}
