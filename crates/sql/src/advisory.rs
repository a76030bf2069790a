//! The advisory lock functions (`pg_advisory_lock` and its family) over
//! folio-txn's advisory locks (`advisory.rs` there: holds, waits,
//! deadlocks, what ends them).
//!
//! Each session has one owner ([`SessionAdvisory`]); its transactions end
//! its transaction-scope locks (`Transaction::set_advisory`), and the
//! session's end drops it, which gives back the rest. The functions that
//! PostgreSQL gives as `void` (`pg_advisory_lock`, ...) give an empty
//! text here: folio has no `void` type (the value prints the same; its
//! type oid is text's, and `pg_proc` does not list them).

use crate::error::SqlError;
use crate::output::Notice;
use folio_row::{SqlType, Value};
use folio_txn::{AdvisoryKey, AdvisoryMode, AdvisoryOwner, AdvisoryScope};
use std::sync::{Arc, Mutex};

/// An advisory lock function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvisoryFunc {
    /// Takes a lock (`wait`: else tries) of `mode` for `scope`.
    Lock {
        mode: AdvisoryMode,
        scope: AdvisoryScope,
        wait: bool,
    },
    /// `pg_advisory_unlock[_shared]`.
    Unlock(AdvisoryMode),
    /// `pg_advisory_unlock_all`.
    UnlockAll,
}

const fn lock(mode: AdvisoryMode, scope: AdvisoryScope, wait: bool) -> AdvisoryFunc {
    AdvisoryFunc::Lock { mode, scope, wait }
}

const EXCLUSIVE: AdvisoryMode = AdvisoryMode::Exclusive;
const SHARED: AdvisoryMode = AdvisoryMode::Shared;
const SESSION: AdvisoryScope = AdvisoryScope::Session;
const XACT: AdvisoryScope = AdvisoryScope::Transaction;

const NAMES: [(&str, AdvisoryFunc); 11] = [
    ("pg_advisory_lock", lock(EXCLUSIVE, SESSION, true)),
    ("pg_advisory_lock_shared", lock(SHARED, SESSION, true)),
    ("pg_try_advisory_lock", lock(EXCLUSIVE, SESSION, false)),
    ("pg_try_advisory_lock_shared", lock(SHARED, SESSION, false)),
    ("pg_advisory_xact_lock", lock(EXCLUSIVE, XACT, true)),
    ("pg_advisory_xact_lock_shared", lock(SHARED, XACT, true)),
    ("pg_try_advisory_xact_lock", lock(EXCLUSIVE, XACT, false)),
    (
        "pg_try_advisory_xact_lock_shared",
        lock(SHARED, XACT, false),
    ),
    ("pg_advisory_unlock", AdvisoryFunc::Unlock(EXCLUSIVE)),
    ("pg_advisory_unlock_shared", AdvisoryFunc::Unlock(SHARED)),
    ("pg_advisory_unlock_all", AdvisoryFunc::UnlockAll),
];

impl AdvisoryFunc {
    pub fn of(name: &str) -> Option<AdvisoryFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether `count` arguments are accepted: a `bigint` key or two
    /// `integer`s; none for `pg_advisory_unlock_all`.
    pub fn takes(self, count: usize) -> bool {
        match self {
            AdvisoryFunc::UnlockAll => count == 0,
            _ => count == 1 || count == 2,
        }
    }

    pub fn ty(self) -> SqlType {
        match self {
            AdvisoryFunc::Lock { wait: false, .. } | AdvisoryFunc::Unlock(_) => SqlType::Bool,
            // `void`, which folio does not have (above).
            AdvisoryFunc::Lock { wait: true, .. } | AdvisoryFunc::UnlockAll => SqlType::Text,
        }
    }
}

/// A session's advisory locks, and the warnings their calls raised.
#[derive(Debug)]
pub struct SessionAdvisory {
    owner: Arc<AdvisoryOwner>,
    warnings: Mutex<Vec<Notice>>,
}

impl SessionAdvisory {
    pub fn new(owner: Arc<AdvisoryOwner>) -> SessionAdvisory {
        SessionAdvisory {
            owner,
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// The owner, for each transaction of the session to end its
    /// transaction-scope locks.
    pub fn owner(&self) -> &Arc<AdvisoryOwner> {
        &self.owner
    }

    /// The warnings raised since the last call.
    pub fn take_warnings(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The value of `f` of `args`.
    pub fn call(&self, f: AdvisoryFunc, args: &[Value]) -> Result<Value, SqlError> {
        // Strict, as PostgreSQL's: NULL in, NULL out.
        if args.iter().any(|a| matches!(a, Value::Null)) {
            return Ok(Value::Null);
        }
        let void = || Value::Text(String::new());
        Ok(match f {
            AdvisoryFunc::Lock { mode, scope, wait } => {
                let taken = self.owner.lock(key(args)?, mode, scope, wait)?;
                match wait {
                    true => void(),
                    false => Value::Bool(taken),
                }
            }
            AdvisoryFunc::Unlock(mode) => {
                let released = self.owner.unlock(key(args)?, mode);
                if !released {
                    self.warnings
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(Notice::warning(
                            "01000",
                            &format!("you don't own a lock of type {}", mode.name()),
                        ));
                }
                Value::Bool(released)
            }
            AdvisoryFunc::UnlockAll => {
                self.owner.unlock_all();
                void()
            }
        })
    }
}

/// The key the arguments name: one `bigint`, or two `integer`s.
fn key(args: &[Value]) -> Result<AdvisoryKey, SqlError> {
    let int = |v: &Value, ty: SqlType| match crate::types::coerce(v.clone(), ty)? {
        Value::Int8(n) => Ok(n),
        Value::Int4(n) => Ok(i64::from(n)),
        other => Err(SqlError::new(
            "42883",
            format!("an advisory lock key must be an integer, not {other:?}"),
        )),
    };
    match args {
        [k] => Ok(AdvisoryKey::Big(int(k, SqlType::Int8)?)),
        [a, b] => Ok(AdvisoryKey::Pair(
            int(a, SqlType::Int4)? as i32,
            int(b, SqlType::Int4)? as i32,
        )),
        _ => Err(SqlError::new(
            "42883",
            "an advisory lock key is one bigint or two integers",
        )),
    }
}
