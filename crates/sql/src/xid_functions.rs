//! The transaction id types `xid8`, `pg_snapshot` and `txid_snapshot`
//! in SQL (PostgreSQL 15's `xid.c`, `xid8funcs.c`; values and text forms
//! are folio-row `xid_snapshot.rs`), and the one mapping of folio's
//! snapshots onto PostgreSQL's ([`current_snapshot`]).
//!
//! | call | result |
//! |---|---|
//! | `pg_snapshot_xmin(s)`, `pg_snapshot_xmax(s)` | xid8 |
//! | `txid_snapshot_xmin(s)`, `txid_snapshot_xmax(s)` | bigint |
//! | `pg_snapshot_xip(s)` / `txid_snapshot_xip(s)` | rows of xid8 / bigint (`table_functions.rs`) |
//! | `pg_visible_in_snapshot(xid8, s)`, `txid_visible_in_snapshot(bigint, s)` | boolean |
//! | `xid8cmp`, `xid8_larger`, `xid8_smaller` | int4, xid8 |
//! | `pg_current_snapshot()`, `txid_current_snapshot()`, `pg_xact_status(xid8)`, `txid_status(bigint)` | the session's: `xact_id.rs` calls [`current_snapshot`], [`status`] |
//!
//! **Snapshots.** PostgreSQL's snapshot is `(xmin, xmax, xip)`: the
//! transactions below xmin had ended, none from xmax on had begun, and
//! those in xip were running. folio's is one number, a CSN `S` (folio-txn
//! README "Snapshots and visibility"): a transaction's work is visible
//! when it committed with a CSN at most `S`. [`current_snapshot`] gives
//! the statement's `S` in PostgreSQL's terms, at the call:
//!
//! 1. `live` := the running writers (folio-txn's live table), then
//!    `C` := the latest published CSN, then `N` := the next xid to be
//!    handed out (in that order: every transaction that committed at or
//!    below `C` had its xid before `N` was read, and every one not
//!    running at `live`'s reading that committed did so at or below `C`);
//! 2. xmax := `N`; every xid from `N` on was assigned after `S` was
//!    taken, so nothing from xmax on is visible, as in PostgreSQL;
//! 3. xip := each top-level xid below `N` that is running (the session's
//!    own too: its work is not in `S` either, and PostgreSQL's
//!    `pg_visible_in_snapshot(pg_current_xact_id(), pg_current_snapshot())`
//!    is false for the same reason, its own xid being at or past its
//!    xmax) or that committed with a CSN past `S`. The xids are walked
//!    down from `N - 1`; the walk ends below the oldest of `live` once it
//!    has met the `C - S` commits published since `S` (a CSN dropped by
//!    a commit that failed is never met, and then the walk goes on to
//!    xid 1). Subtransactions' xids are left out, as PostgreSQL's
//!    snapshots hold only top-level ones;
//! 4. xmin := the least of xip, or xmax when xip is empty.
//!
//! So `pg_visible_in_snapshot(x, s)` is true exactly for the top-level
//! xids whose work the statement sees, plus those that rolled back
//! before xmax: folio keeps no time of an abort, so a transaction that
//! rolled back after `S` was taken counts as ended before it (PostgreSQL
//! would list it in xip while it was running at the snapshot). xmax is
//! read at the call, not when `S` was taken: an xid assigned in between
//! lies below xmax, and is in xip unless it rolled back. Within a
//! statement the answer is made once and kept (`backend.rs`), as
//! PostgreSQL's stable function gives one.

use crate::error::SqlError;
use folio_row::{SqlType, Value, XidSnapshot};
use folio_txn::{Csn, Outcome, TxnManager, Xid};

/// A function of xid8 values and snapshots that reads nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XidFunc {
    /// `pg_snapshot_xmin` (`legacy`: `txid_snapshot_xmin`, a bigint).
    Xmin {
        legacy: bool,
    },
    Xmax {
        legacy: bool,
    },
    Visible {
        legacy: bool,
    },
    /// `xid8cmp(xid8, xid8)`.
    Cmp,
    /// `xid8_larger`, `xid8_smaller`.
    Larger,
    Smaller,
}

const NAMES: [(&str, XidFunc); 9] = [
    ("pg_snapshot_xmin", XidFunc::Xmin { legacy: false }),
    ("txid_snapshot_xmin", XidFunc::Xmin { legacy: true }),
    ("pg_snapshot_xmax", XidFunc::Xmax { legacy: false }),
    ("txid_snapshot_xmax", XidFunc::Xmax { legacy: true }),
    ("pg_visible_in_snapshot", XidFunc::Visible { legacy: false }),
    (
        "txid_visible_in_snapshot",
        XidFunc::Visible { legacy: true },
    ),
    ("xid8cmp", XidFunc::Cmp),
    ("xid8_larger", XidFunc::Larger),
    ("xid8_smaller", XidFunc::Smaller),
];

/// The snapshot type of the `legacy` (txid_) or pg_ functions.
pub fn snapshot_type(legacy: bool) -> SqlType {
    match legacy {
        true => SqlType::TxidSnapshot,
        false => SqlType::PgSnapshot,
    }
}

/// The id type of the `legacy` (txid_: bigint) or pg_ (xid8) functions.
pub fn id_type(legacy: bool) -> SqlType {
    match legacy {
        true => SqlType::Int8,
        false => SqlType::Xid8,
    }
}

/// An id of the `legacy` (bigint) or pg_ (xid8) functions as a value.
pub fn id_value(x: u64, legacy: bool) -> Value {
    match legacy {
        true => Value::Int8(x as i64),
        false => Value::Xid8(x),
    }
}

impl XidFunc {
    pub fn of(name: &str) -> Option<XidFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count
            == match self {
                XidFunc::Xmin { .. } | XidFunc::Xmax { .. } => 1,
                _ => 2,
            }
    }

    /// The types of its arguments.
    fn parameters(self) -> [SqlType; 2] {
        match self {
            XidFunc::Xmin { legacy } | XidFunc::Xmax { legacy } => {
                [snapshot_type(legacy), snapshot_type(legacy)]
            }
            XidFunc::Visible { legacy } => [id_type(legacy), snapshot_type(legacy)],
            XidFunc::Cmp | XidFunc::Larger | XidFunc::Smaller => [SqlType::Xid8, SqlType::Xid8],
        }
    }

    /// Whether arguments of these types (`None`: untyped) fit; a bigint
    /// id takes the integers as PostgreSQL casts them implicitly.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        let parameters = self.parameters();
        types.iter().zip(parameters).all(|(t, p)| match t {
            None => true,
            Some(t) if p == SqlType::Int8 => {
                matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
            }
            Some(t) => *t == p,
        })
    }

    pub fn ty(self) -> SqlType {
        match self {
            XidFunc::Xmin { legacy } | XidFunc::Xmax { legacy } => id_type(legacy),
            XidFunc::Visible { .. } => SqlType::Bool,
            XidFunc::Cmp => SqlType::Int4,
            XidFunc::Larger | XidFunc::Smaller => SqlType::Xid8,
        }
    }

    /// The value of a call (strict: NULL arguments are the caller's).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let parameters = self.parameters();
        let arg = |i: usize| crate::types::cast(args[i].clone(), parameters[i]);
        let id = |v: Value| -> u64 {
            match v {
                Value::Xid8(x) => x,
                Value::Int8(x) => x as u64,
                _ => 0,
            }
        };
        let snapshot = |v: Value| match v {
            Value::Snapshot(s) => Ok(s),
            other => Err(crate::functions::no_operator(format!(
                "function {}({}) does not exist",
                self.name().unwrap_or("pg_snapshot_xmin"),
                other.type_name()
            ))),
        };
        Ok(match self {
            XidFunc::Xmin { legacy } => id_value(snapshot(arg(0)?)?.xmin, legacy),
            XidFunc::Xmax { legacy } => id_value(snapshot(arg(0)?)?.xmax, legacy),
            XidFunc::Visible { .. } => {
                let x = id(arg(0)?);
                Value::Bool(snapshot(arg(1)?)?.sees(x))
            }
            XidFunc::Cmp => Value::Int4(match id(arg(0)?).cmp(&id(arg(1)?)) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }),
            XidFunc::Larger => Value::Xid8(id(arg(0)?).max(id(arg(1)?))),
            XidFunc::Smaller => Value::Xid8(id(arg(0)?).min(id(arg(1)?))),
        })
    }
}

/// The ids of `pg_snapshot_xip(s)` / `txid_snapshot_xip(s)` (the table
/// function's rows): its in-progress ids in order.
pub fn xip_rows(snapshot: &Value, legacy: bool) -> Vec<Value> {
    match snapshot {
        Value::Snapshot(s) => s.xip.iter().map(|x| id_value(*x, legacy)).collect(),
        _ => Vec::new(),
    }
}

/// The statement's snapshot `s` as PostgreSQL's, for the session whose
/// xid is `own` (module comment). `legacy`: a txid_snapshot.
pub fn current_snapshot(
    mgr: &TxnManager,
    s: Csn,
    own: Option<u64>,
) -> Result<XidSnapshot, SqlError> {
    let live = mgr.running_xids();
    let published = mgr.snapshot().0;
    let next = mgr.next_unassigned_xid();
    let oldest_live = live.iter().min().copied().unwrap_or(next);
    // Commits published since `s`: each a top-level xid the walk must meet.
    let mut unmet = published.0.saturating_sub(s.0);
    let mut xip = Vec::new();
    let mut x = next.0;
    while x > Xid::BOOTSTRAP.0 {
        x -= 1;
        if x < oldest_live.0 && unmet == 0 {
            break;
        }
        let xid = Xid(x);
        if mgr.top_of(xid)? != xid {
            continue;
        }
        match mgr.outcome(xid)? {
            Outcome::Running => xip.push(x),
            Outcome::Committed(c) if c > s => {
                if c <= published {
                    unmet = unmet.saturating_sub(1);
                }
                xip.push(x);
            }
            Outcome::Committed(_) | Outcome::Aborted => {}
        }
    }
    if let Some(own) = own
        && own < next.0
        && !xip.contains(&own)
    {
        xip.push(own);
    }
    xip.sort_unstable();
    let snapshot = XidSnapshot {
        xmin: xip.first().copied().unwrap_or(next.0),
        xmax: next.0,
        xip,
        legacy: false,
    };
    debug_assert!(snapshot.verify());
    Ok(snapshot)
}

/// `pg_xact_status(x)` (PostgreSQL's `pg_xact_status`): `committed`,
/// `aborted` or `in progress`; 22023 for an xid not yet handed out. A
/// subtransaction's is its parent's unless it rolled back (folio-txn
/// `TxnManager::outcome`). folio keeps every transaction's fate, so
/// there is no "too old to tell" NULL.
pub fn status(mgr: &TxnManager, x: u64, own: Option<u64>) -> Result<Value, SqlError> {
    if x >= mgr.next_unassigned_xid().0 {
        return Err(SqlError::new(
            "22023",
            format!("transaction ID {x} is in the future"),
        ));
    }
    if x == 0 {
        return Ok(Value::Null);
    }
    let text = match mgr.outcome(Xid(x))? {
        _ if own == Some(x) => "in progress",
        Outcome::Running => "in progress",
        Outcome::Committed(_) => "committed",
        Outcome::Aborted => "aborted",
    };
    Ok(Value::Text(text.into()))
}

/// Whether PostgreSQL has `x symbol y` for these types when either is
/// money, xid, xid8 or a snapshot: money and xid8 meet only their own
/// type, with every comparison; xid only `=` and `<>` (its ids wrap, so
/// it has no order), with an xid or an int4; a snapshot no comparison at
/// all. Other pairs are not this module's (true).
pub fn compares(symbol: &str, x: SqlType, y: SqlType) -> bool {
    let equality = matches!(symbol, "=" | "<>" | "!=");
    let ours = |t: SqlType| {
        matches!(
            t,
            SqlType::Money
                | SqlType::Xid
                | SqlType::Xid8
                | SqlType::PgSnapshot
                | SqlType::TxidSnapshot
        )
    };
    match (x, y) {
        (SqlType::Xid, SqlType::Xid | SqlType::Int4) => equality,
        (SqlType::PgSnapshot | SqlType::TxidSnapshot, _)
        | (_, SqlType::PgSnapshot | SqlType::TxidSnapshot) => false,
        (x, y) if ours(x) || ours(y) => x == y,
        _ => true,
    }
}

/// The casts of xid8 and the snapshots (`types::cast` hands over every
/// cast from or to them but text's): xid8 to xid (its low 32 bits, as
/// PostgreSQL's `xid(xid8)`); none other (42846).
pub fn cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    match (value, ty) {
        (Value::Xid8(x), SqlType::Xid) => Ok(Value::Xid(x & u64::from(u32::MAX))),
        (v, ty) if v.matches(ty) => Ok(v),
        (v, ty) => Err(crate::types::no_cast_from(
            crate::scalar::value_type(&v),
            ty,
        )),
    }
}
