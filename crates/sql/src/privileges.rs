//! Privileges on relations, schemas, functions and types: who owns an
//! object, its access control list (ACL), and [`check`], the one
//! function that decides whether the session's role may do an action on
//! a relation (design: README "Roles and privileges"; a function's
//! EXECUTE: `routine_privileges.rs`).
//!
//! An object's owner and ACL are kept in `folio.authid` (`roles.rs`)
//! under `\0a` + its oid (8, BE; relations, schemas, functions and types
//! share one oid counter), changed outside transactions as roles are:
//!
//! | field | size | meaning |
//! |---|---|---|
//! | owner | 4 | the owning role's oid |
//! | has ACL | 1 | 0: PostgreSQL's NULL ACL (the kind's default: [`ObjectKind`]); 1: items of 10 bytes follow (the first format); 2: items of 12 bytes follow |
//! | items (2) | 12 each | grantee oid (4; 0 is PUBLIC), grantor oid (4), privileges (2, LE), grant options (2, LE): bits as [`LETTERS`] |
//! | items (1) | 10 each | as (2) with privileges and grant options of 1 byte |
//!
//! An object without an entry is owned by `postgres` and has the NULL
//! ACL, so every object made before roles existed is as it was. The
//! entry of a dropped object stays (a rolled-back DROP must not lose
//! it); oids are never reused, and readers skip the entries of objects
//! that are gone.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::roles::{self, Role, SUPERUSER_OID};
use folio_db::{Database, Transaction};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// A set of privileges, one bit each (PostgreSQL's `AclMode`).
pub type Bits = u16;

pub const SELECT: Bits = 1;
pub const INSERT: Bits = 1 << 1;
pub const UPDATE: Bits = 1 << 2;
pub const DELETE: Bits = 1 << 3;
pub const TRUNCATE: Bits = 1 << 4;
pub const REFERENCES: Bits = 1 << 5;
pub const TRIGGER: Bits = 1 << 6;
/// Every privilege a table has.
pub const ALL: Bits = 0x7f;
/// CREATE on a schema (kept under the schema's oid, as a relation's).
pub const CREATE: Bits = 1 << 7;
/// EXECUTE on a function, procedure or aggregate.
pub const EXECUTE: Bits = 1 << 8;
/// USAGE on a type, domain, language or schema.
pub const USAGE: Bits = 1 << 9;
/// The oid of schema `public`, the one schema folio has.
pub const PUBLIC_SCHEMA: u64 = 2200;

/// Each table privilege's bit, `aclitem` letter and keyword, in
/// `aclitem`'s order.
pub const PRIVILEGES: [(Bits, char, &str); 7] = [
    (INSERT, 'a', "INSERT"),
    (SELECT, 'r', "SELECT"),
    (UPDATE, 'w', "UPDATE"),
    (DELETE, 'd', "DELETE"),
    (TRUNCATE, 'D', "TRUNCATE"),
    (REFERENCES, 'x', "REFERENCES"),
    (TRIGGER, 't', "TRIGGER"),
];

/// Every privilege's bit and `aclitem` letter, in `aclitem`'s order
/// (PostgreSQL's `ACL_ALL_RIGHTS_STR`).
pub const LETTERS: [(Bits, char); 10] = [
    (INSERT, 'a'),
    (SELECT, 'r'),
    (UPDATE, 'w'),
    (DELETE, 'd'),
    (TRUNCATE, 'D'),
    (REFERENCES, 'x'),
    (TRIGGER, 't'),
    (EXECUTE, 'X'),
    (USAGE, 'U'),
    (CREATE, 'C'),
];

/// What an ACL is of: it decides what the NULL ACL means (PostgreSQL's
/// `acldefault`): the owner's privileges, and PUBLIC's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A table, view or materialized view.
    Relation,
    Sequence,
    Schema,
    /// A function, procedure or aggregate (PUBLIC may EXECUTE).
    Function,
    /// A type or domain (PUBLIC may USE).
    Type,
    /// A procedural language (PUBLIC may USE a trusted one).
    Language,
}

impl ObjectKind {
    /// The privileges the owner has under the NULL ACL, which are every
    /// privilege an object of this kind can have.
    pub fn owner_default(self) -> Bits {
        match self {
            ObjectKind::Relation => ALL,
            ObjectKind::Sequence => USAGE | SELECT | UPDATE,
            ObjectKind::Schema => USAGE | CREATE,
            ObjectKind::Function => EXECUTE,
            ObjectKind::Type | ObjectKind::Language => USAGE,
        }
    }

    /// The privileges PUBLIC has under the NULL ACL.
    pub fn public_default(self) -> Bits {
        match self {
            ObjectKind::Relation | ObjectKind::Sequence | ObjectKind::Schema => 0,
            ObjectKind::Function => EXECUTE,
            ObjectKind::Type | ObjectKind::Language => USAGE,
        }
    }

    /// The kind of the object an error names by `word` (`table`,
    /// `function`, `type`, ...).
    pub fn of_word(word: &str) -> ObjectKind {
        match word {
            "schema" => ObjectKind::Schema,
            "sequence" => ObjectKind::Sequence,
            "function" | "procedure" | "aggregate" | "routine" => ObjectKind::Function,
            "type" | "domain" => ObjectKind::Type,
            "language" => ObjectKind::Language,
            _ => ObjectKind::Relation,
        }
    }
}

/// The grantee oid that stands for PUBLIC.
pub const PUBLIC: u32 = 0;
const ACL_KEY: &[u8] = b"\0a";
/// A column's ACL: `\0c` + relation oid (8, BE) + column number (2, BE),
/// the value encoded as a relation's ([`Acl`], items always present).
const COLUMN_ACL_KEY: &[u8] = b"\0c";
/// The privileges a column can have (PostgreSQL's `ACL_ALL_RIGHTS_COLUMN`).
pub const COLUMN_PRIVILEGES: Bits = SELECT | INSERT | UPDATE | REFERENCES;
/// Column numbers of the system columns: this plus their index in
/// `system_columns::COLUMNS` (a user column's number is its slot).
pub const SYSTEM_COLUMN_BASE: u16 = 0x8000;

/// One grant: `grantee` may do `privileges`, and grant those in
/// `grantable`, as granted by `grantor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AclItem {
    pub grantee: u32,
    pub grantor: u32,
    pub privileges: Bits,
    pub grantable: Bits,
}

/// An object's owner and ACL (`None`: the NULL ACL, the kind's
/// default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acl {
    pub owner: u32,
    pub items: Option<Vec<AclItem>>,
    /// What it is an ACL of (not stored: the reader knows).
    pub kind: ObjectKind,
}

impl Acl {
    fn encode(&self) -> Vec<u8> {
        let mut out = self.owner.to_le_bytes().to_vec();
        match &self.items {
            None => out.push(0),
            Some(items) => {
                out.push(2);
                for i in items {
                    out.extend_from_slice(&i.grantee.to_le_bytes());
                    out.extend_from_slice(&i.grantor.to_le_bytes());
                    out.extend_from_slice(&i.privileges.to_le_bytes());
                    out.extend_from_slice(&i.grantable.to_le_bytes());
                }
            }
        }
        out
    }

    fn decode(bytes: &[u8], kind: ObjectKind) -> Option<Acl> {
        let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
        let owner = u32_at(0)?;
        let items = |width: usize| {
            if !(bytes.len() - 5).is_multiple_of(width) {
                return None;
            }
            (5..bytes.len())
                .step_by(width)
                .map(|at| {
                    let (privileges, grantable) = match width {
                        10 => (Bits::from(bytes[at + 8]), Bits::from(bytes[at + 9])),
                        _ => (u16_at(at + 8)?, u16_at(at + 10)?),
                    };
                    Some(AclItem {
                        grantee: u32_at(at)?,
                        grantor: u32_at(at + 4)?,
                        privileges,
                        grantable,
                    })
                })
                .collect::<Option<Vec<_>>>()
        };
        let items = match *bytes.get(4)? {
            0 if bytes.len() == 5 => None,
            1 => Some(items(10)?),
            2 => Some(items(12)?),
            _ => return None,
        };
        Some(Acl { owner, items, kind })
    }

    /// The items, the NULL ACL written out as PostgreSQL's
    /// `acldefault` writes it (PUBLIC's item first).
    pub fn items(&self) -> Vec<AclItem> {
        self.items.clone().unwrap_or_else(|| {
            let public = (self.kind.public_default() != 0).then_some(AclItem {
                grantee: PUBLIC,
                grantor: self.owner,
                privileges: self.kind.public_default(),
                grantable: 0,
            });
            let owner = AclItem {
                grantee: self.owner,
                grantor: self.owner,
                privileges: self.kind.owner_default(),
                grantable: 0,
            };
            public.into_iter().chain([owner]).collect()
        })
    }

    /// What a role may do, and what it may grant: `roles` are the role
    /// and those whose privileges it holds (`memberships::privileges_of`);
    /// their items count, and PUBLIC's.
    pub fn of(&self, roles: &[u32]) -> (Bits, Bits) {
        let mut out = (0, 0);
        if roles.contains(&self.owner) {
            // The owner may always grant what it holds.
            out.1 = self.kind.owner_default();
        }
        for i in self.items() {
            if i.grantee == PUBLIC || roles.contains(&i.grantee) {
                out.0 |= i.privileges;
                out.1 |= i.grantable;
            }
        }
        // PostgreSQL's predefined roles' rights on every relation (no
        // grant option).
        if self.kind == ObjectKind::Relation && roles.contains(&roles::READ_ALL_DATA_OID) {
            out.0 |= SELECT;
        }
        if self.kind == ObjectKind::Relation && roles.contains(&roles::WRITE_ALL_DATA_OID) {
            out.0 |= INSERT | UPDATE | DELETE;
        }
        out.1 &= out.0;
        out
    }

    /// `relacl`'s text items (`None`: NULL), role names by `name`.
    pub fn text(&self, name: impl Fn(u32) -> String) -> Option<Vec<String>> {
        let items = self.items.as_ref()?;
        Some(
            items
                .iter()
                .map(|i| {
                    let mut out = match i.grantee {
                        PUBLIC => String::new(),
                        oid => name(oid),
                    };
                    out.push('=');
                    for (bit, letter) in LETTERS {
                        if i.privileges & bit != 0 {
                            out.push(letter);
                            if i.grantable & bit != 0 {
                                out.push('*');
                            }
                        }
                    }
                    out.push('/');
                    out.push_str(&name(i.grantor));
                    out
                })
                .collect(),
        )
    }
}

fn key(relation: u64) -> Vec<u8> {
    relation_key(ACL_KEY, relation)
}

/// The `folio.authid` key of relation `relation`'s entry of the kind
/// `prefix` names (its ACL, its policies).
pub(crate) fn relation_key(prefix: &[u8], relation: u64) -> Vec<u8> {
    let mut key = prefix.to_vec();
    key.extend_from_slice(&relation.to_be_bytes());
    key
}

pub(crate) fn btree(e: folio_btree::BtreeError) -> SqlError {
    folio_db::DbError::from(e).into()
}

fn corrupt(relation: u64) -> SqlError {
    SqlError::new(
        "XX001",
        format!("the stored ACL of relation {relation} is corrupt"),
    )
}

/// Relation `relation`'s owner and ACL.
pub fn acl(db: &Database, relation: u64) -> Result<Acl, SqlError> {
    acl_of(db, relation, ObjectKind::Relation)
}

/// The owner and ACL of object `oid`, of kind `kind`.
pub fn acl_of(db: &Database, oid: u64, kind: ObjectKind) -> Result<Acl, SqlError> {
    let mut default = Acl {
        owner: SUPERUSER_OID,
        items: None,
        kind,
    };
    // PostgreSQL grants SELECT on its catalogs to PUBLIC, but on
    // pg_authid (whose reads need a superuser: [`check_superuser_read`]).
    let authid = crate::system::SystemRelation::Authid.oid() as u64;
    if kind == ObjectKind::Relation && oid < folio_catalog::FIRST_OID && oid != authid {
        default.items = Some(vec![
            AclItem {
                grantee: SUPERUSER_OID,
                grantor: SUPERUSER_OID,
                privileges: ALL,
                grantable: 0,
            },
            AclItem {
                grantee: PUBLIC,
                grantor: SUPERUSER_OID,
                privileges: SELECT,
                grantable: 0,
            },
        ]);
    }
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(default);
    };
    match tree.get(&key(oid)).map_err(btree)? {
        None => Ok(default),
        Some(bytes) => Acl::decode(&bytes, kind).ok_or_else(|| corrupt(oid)),
    }
}

fn column_key(relation: u64, column: u16) -> Vec<u8> {
    let mut key = relation_key(COLUMN_ACL_KEY, relation);
    key.extend_from_slice(&column.to_be_bytes());
    key
}

/// The ACLs of relation `relation`'s columns that have one, by column
/// number (PostgreSQL's `attacl`; a column without one grants nothing
/// beyond the relation's own ACL).
pub fn column_acls(db: &Database, relation: u64) -> Result<Vec<(u16, Acl)>, SqlError> {
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(Vec::new());
    };
    let prefix = relation_key(COLUMN_ACL_KEY, relation);
    let mut out = Vec::new();
    for entry in tree.scan_prefix(&prefix, folio_btree::Direction::Forward) {
        let (k, v) = entry.map_err(btree)?;
        let column = k[prefix.len()..]
            .try_into()
            .map(u16::from_be_bytes)
            .map_err(|_| corrupt(relation))?;
        out.push((
            column,
            Acl::decode(&v, ObjectKind::Relation).ok_or_else(|| corrupt(relation))?,
        ));
    }
    Ok(out)
}

/// Drops column `column`'s ACL (its column was dropped: a dropped
/// column grants nothing; outside transactions, as every ACL change, so
/// a rolled-back DROP COLUMN leaves the column without its grants).
pub fn forget_column(db: &Database, relation: u64, column: u16) -> Result<(), SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    if column_acls(db, relation)?.iter().all(|(c, _)| *c != column) {
        return Ok(());
    }
    let tree = roles::tree_for_writing(db)?;
    tree.delete(&column_key(relation, column)).map_err(btree)?;
    db.commit()?;
    Ok(())
}

/// The columns of a relation a statement reads (or writes) for one
/// privilege, by column number (a column's slot, which a DROP COLUMN
/// does not move, PostgreSQL's `attnum` - 1; [`SYSTEM_COLUMN_BASE`] + its
/// index for a system column), filled while the statement is planned
/// (the binder records each column it resolves: `from::Scope`) and read
/// when its plan runs. Shared by the [`Need`] and the scope that
/// records into it.
#[derive(Debug, Clone, Default)]
pub struct ColumnUses {
    used: Arc<Mutex<BTreeSet<u16>>>,
    /// Each column's slot, by position.
    slots: Arc<[u16]>,
    /// The privilege is needed only if a column is recorded (an UPDATE's
    /// or DELETE's SELECT on its target: PostgreSQL asks it for the
    /// columns read alone); else some column when none is.
    if_read: bool,
    /// A view's: it has no system columns (a position past its columns,
    /// a hidden sort key of its query, is no column of it).
    view: bool,
}

impl PartialEq for ColumnUses {
    fn eq(&self, other: &ColumnUses) -> bool {
        Arc::ptr_eq(&self.used, &other.used)
    }
}

impl Eq for ColumnUses {}

impl ColumnUses {
    fn of(def: &folio_catalog::TableDef) -> ColumnUses {
        let slots: Vec<u16> = (0..def.columns.len()).map(|p| def.layout.slot(p)).collect();
        ColumnUses {
            used: Arc::default(),
            slots: slots.into(),
            if_read: false,
            view: false,
        }
    }

    /// A view's `count` columns: numbered by position (a view's columns
    /// are never dropped or moved), with no system columns.
    pub fn of_view(count: usize, if_read: bool) -> ColumnUses {
        ColumnUses {
            used: Arc::default(),
            slots: (0..count as u16).collect(),
            if_read,
            view: true,
        }
    }

    /// These uses' kind (`if_read`) on a view of `count` columns, for
    /// the view's columns at `positions`: the view's need of a privilege
    /// whose need on the table under it these are
    /// (`updatable_views.rs`).
    pub fn on_view(&self, count: usize, positions: &BTreeSet<usize>) -> ColumnUses {
        let out = ColumnUses::of_view(count, self.if_read);
        positions.iter().for_each(|&p| out.record(p));
        out
    }

    /// Records the column at `position` (past the relation's columns:
    /// its system columns, in `system_columns::COLUMNS`' order).
    pub fn record(&self, position: usize) {
        let number = match self.slots.get(position) {
            Some(&slot) => slot,
            None if self.view => return,
            None => SYSTEM_COLUMN_BASE + (position - self.slots.len()) as u16,
        };
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.insert(number);
    }

    /// These uses of `child`'s columns as uses of `parent`'s, by name
    /// (`None` when one is not the parent's).
    fn of_parent(
        &self,
        child: &folio_catalog::TableDef,
        parent: &folio_catalog::TableDef,
    ) -> Option<ColumnUses> {
        let out = ColumnUses {
            if_read: self.if_read,
            ..ColumnUses::of(parent)
        };
        for number in self.columns() {
            if number >= SYSTEM_COLUMN_BASE {
                let mut used = out.used.lock().unwrap_or_else(|e| e.into_inner());
                used.insert(number);
                continue;
            }
            let at = (0..child.columns.len()).find(|&p| child.layout.slot(p) == number)?;
            out.record(parent.column(&child.columns[at].name)?);
        }
        Some(out)
    }

    pub fn columns(&self) -> Vec<u16> {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.iter().copied().collect()
    }
}

/// Every stored ACL, by relation oid.
fn all(db: &Database) -> Result<Vec<(u64, Acl)>, SqlError> {
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in tree.scan_prefix(ACL_KEY, folio_btree::Direction::Forward) {
        let (k, v) = entry.map_err(btree)?;
        let oid = u64::from_be_bytes(
            k[ACL_KEY.len()..]
                .try_into()
                .map_err(|_| SqlError::new("XX001", "an ACL key is corrupt"))?,
        );
        out.push((
            oid,
            Acl::decode(&v, ObjectKind::Relation).ok_or_else(|| corrupt(oid))?,
        ));
    }
    Ok(out)
}

fn put(db: &Database, key: &[u8], acl: &Acl) -> Result<(), SqlError> {
    let tree = roles::tree_for_writing(db)?;
    tree.upsert(key, &acl.encode()).map_err(btree)?;
    db.commit()?;
    Ok(())
}

/// Records `owner` as the owner of the object just made (a relation, a
/// function, a type; a superuser's objects need no entry: `postgres`
/// owns them, as PostgreSQL's superusers own theirs).
pub fn set_owner(db: &Database, relation: u64, owner: &Role) -> Result<(), SqlError> {
    if owner.oid == SUPERUSER_OID {
        return Ok(());
    }
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    put(
        db,
        &key(relation),
        &Acl {
            owner: owner.oid,
            items: None,
            // (Not stored.)
            kind: ObjectKind::Relation,
        },
    )
}

/// `ALTER ... OWNER TO owner`: relation `relation` is `owner`'s, and the
/// old owner's grants and grants received are `owner`'s, as PostgreSQL's
/// `aclnewowner` makes them. Stored at once, as every ACL change (not
/// undone by a rollback: README "Roles and privileges").
pub fn change_owner(db: &Database, relation: u64, owner: &Role) -> Result<(), SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let mut entry = acl(db, relation)?;
    let old = entry.owner;
    if old == owner.oid {
        return Ok(());
    }
    entry.owner = owner.oid;
    for item in entry.items.iter_mut().flatten() {
        for role in [&mut item.grantee, &mut item.grantor] {
            if *role == old {
                *role = owner.oid;
            }
        }
    }
    put(db, &key(relation), &entry)
}

/// Sets `pg_class` rows' owner (column `owner_at`) and ACL (`acl_at`)
/// from the stored entries (the running statement's database:
/// `roles::Scope`).
pub fn class_rows(
    rows: &mut [Vec<folio_row::Value>],
    owner_at: usize,
    acl_at: usize,
) -> Result<(), SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(());
    };
    let acls: HashMap<u64, Acl> = all(&db)?.into_iter().collect();
    if acls.is_empty() {
        return Ok(());
    }
    let names: HashMap<u32, String> = roles::all(&db)?
        .into_iter()
        .map(|r| (r.oid, r.name))
        .collect();
    let name = |oid: u32| names.get(&oid).cloned().unwrap_or_else(|| oid.to_string());
    for row in rows {
        let Some(folio_row::Value::Oid(oid)) = row.first() else {
            continue;
        };
        let Some(acl) = acls.get(&u64::from(*oid)) else {
            continue;
        };
        row[owner_at] = folio_row::Value::Oid(acl.owner);
        row[acl_at] = match acl.text(name) {
            None => folio_row::Value::Null,
            Some(items) => {
                folio_row::Value::Array(items.into_iter().map(folio_row::Value::Text).collect())
            }
        };
    }
    Ok(())
}

/// `has_table_privilege(role, table, privileges)`: whether role `role`
/// (by name) holds any of the comma-separated privileges (each may add
/// `WITH GRANT OPTION`) on relation `table` (oid).
pub fn has_table_privilege(role: &str, table: i64, privileges: &str) -> Result<bool, SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(true);
    };
    let role = roles::get(&db, role)?.ok_or_else(|| roles::undefined(role))?;
    let relation = u64::try_from(table).unwrap_or(0);
    let mut wanted = Vec::new();
    for (_, word, grant) in privilege_words(privileges) {
        // (`RULE`, a privilege no longer, is held by no one: PostgreSQL
        // 15 takes the word and answers false.)
        let bit = (PRIVILEGES.iter())
            .find(|(_, _, name)| *name == word)
            .map(|(bit, _, _)| *bit)
            .or((word == "RULE").then_some(0))
            .ok_or_else(|| {
                SqlError::new(
                    "22023",
                    format!("unrecognized privilege type: \"{}\"", word.to_lowercase()),
                )
            })?;
        wanted.push((bit, grant));
    }
    holds_any(&db, &role, (relation, ObjectKind::Relation), &wanted)
}

/// Whether `role` holds any of `wanted` (each a privilege and whether
/// its grant option is asked) on object `oid` of kind `kind`: the
/// answer of the `has_*_privilege` functions.
pub fn holds_any(
    db: &Database,
    role: &Role,
    (oid, kind): (u64, ObjectKind),
    wanted: &[(Bits, bool)],
) -> Result<bool, SqlError> {
    if current(db, role)?.is_none() {
        return Ok(wanted.iter().any(|&(bit, _)| bit != 0));
    }
    let roles = crate::memberships::privileges_of(db, role.oid)?;
    let (held, grantable) = acl_of(db, oid, kind)?.of(&roles);
    Ok(wanted.iter().any(|&(bit, grant)| {
        let have = if grant { grantable } else { held };
        have & bit != 0
    }))
}

/// [`holds_any`] of a column: held on relation `relation` or on its
/// column numbered `column` (its slot: [`ColumnUses`]), PostgreSQL's
/// `has_column_privilege`.
pub fn holds_any_on_column(
    db: &Database,
    role: &Role,
    relation: u64,
    column: u16,
    wanted: &[(Bits, bool)],
) -> Result<bool, SqlError> {
    if holds_any(db, role, (relation, ObjectKind::Relation), wanted)? {
        return Ok(true);
    }
    let roles = crate::memberships::privileges_of(db, role.oid)?;
    let Some((_, acl)) = column_acls(db, relation)?
        .into_iter()
        .find(|(c, _)| *c == column)
    else {
        return Ok(false);
    };
    let (held, grantable) = acl.of(&roles);
    Ok(wanted.iter().any(|&(bit, grant)| {
        let have = if grant { grantable } else { held };
        have & bit != 0
    }))
}

/// The comma-separated privileges of a `has_*_privilege` call: each as
/// given (trimmed), its privilege word in capitals, and whether it adds
/// `WITH GRANT OPTION`.
pub(crate) fn privilege_words(privileges: &str) -> impl Iterator<Item = (&str, String, bool)> {
    privileges.split(',').map(|given| {
        let given = given.trim();
        let word = given.to_ascii_uppercase();
        match word.strip_suffix("WITH GRANT OPTION") {
            Some(w) => (given, w.trim_end().to_string(), true),
            None => (given, word, false),
        }
    })
}

/// `has_database_privilege(role, database, privileges)`: whether role
/// `role` holds any of the comma-separated privileges (`CREATE`,
/// `CONNECT`, `TEMPORARY`/`TEMP`, each may add `WITH GRANT OPTION`) on
/// the one database. folio keeps no grants on it, so they are
/// PostgreSQL's defaults: a superuser (or the owner, `postgres`) holds
/// all, any other role CONNECT and TEMPORARY (granted to PUBLIC), not
/// CREATE, and no grant option.
pub fn has_database_privilege(role: &str, privileges: &str) -> Result<bool, SqlError> {
    let mut wanted = Vec::new();
    for (given, word, grant) in privilege_words(privileges) {
        if !["CREATE", "CONNECT", "TEMPORARY", "TEMP"].contains(&word.as_str()) {
            return Err(SqlError::new(
                "22023",
                format!("unrecognized privilege type: \"{given}\""),
            ));
        }
        wanted.push((word, grant));
    }
    let Some(db) = roles::scoped_database() else {
        return Ok(true);
    };
    let role = roles::get(&db, role)?.ok_or_else(|| roles::undefined(role))?;
    if role.superuser || role.name == roles::SUPERUSER {
        return Ok(true);
    }
    Ok(wanted
        .iter()
        .any(|(word, grant)| !grant && word != "CREATE"))
}

/// 42501 unless the running statement's role is a superuser: reading
/// `pg_authid` (PostgreSQL grants it to no one else).
pub fn check_superuser_read(table: &str) -> Result<(), SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(());
    };
    match roles::get(&db, &roles::current_name())? {
        Some(role) if role.superuser => Ok(()),
        _ => Err(denied("table", table)),
    }
}

/// What a statement needs on one relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    pub relation: u64,
    /// Its name, for the error.
    pub name: String,
    /// `table`, `view`, `materialized view`, `sequence`.
    pub kind: &'static str,
    pub privilege: Bits,
    /// Checked with the privileges of this view's owner (a relation the
    /// view reads or changes: PostgreSQL's views run with their owner's
    /// rights unless `security_invoker`); `None`: the session's role's.
    pub as_owner_of: Option<u64>,
    /// The columns the privilege is for, when column privileges may
    /// grant it instead of the relation's (PostgreSQL's `selectedCols`,
    /// `insertedCols`, `updatedCols`); `None`: the relation's privilege
    /// alone.
    pub columns: Option<ColumnUses>,
}

/// The session's role as it is now: `None` for a superuser (checks pass
/// without a look), else its current attributes (a role dropped since
/// the session began has none).
fn current(db: &Database, role: &Role) -> Result<Option<Role>, SqlError> {
    if role.oid == SUPERUSER_OID {
        return Ok(None);
    }
    match roles::by_oid(db, role.oid)? {
        Some(r) if r.superuser => Ok(None),
        Some(r) => Ok(Some(r)),
        None => Ok(Some(Role {
            superuser: false,
            ..role.clone()
        })),
    }
}

/// Whether `role` may do `privilege` on object `oid` of kind `kind`.
pub fn allowed(
    db: &Database,
    role: &Role,
    oid: u64,
    kind: ObjectKind,
    privilege: Bits,
) -> Result<bool, SqlError> {
    may(db, role, (oid, kind), privilege, None)
}

/// Whether `role` may do `privilege` on relation `relation`, or, when
/// `columns` are given and the relation's ACL falls short, on those
/// columns (PostgreSQL's `ExecCheckRTEPerms`): each of the privileges
/// missing must be held on every column named, or on some column when
/// none is named (`SELECT count(*)`, `SELECT ... FOR UPDATE`).
fn may(
    db: &Database,
    role: &Role,
    (relation, kind): (u64, ObjectKind),
    privilege: Bits,
    columns: Option<&ColumnUses>,
) -> Result<bool, SqlError> {
    if columns.is_some_and(|c| c.if_read && c.columns().is_empty()) {
        return Ok(true);
    }
    let Some(role) = current(db, role)? else {
        return Ok(true);
    };
    let roles = crate::memberships::privileges_of(db, role.oid)?;
    let held = acl_of(db, relation, kind)?.of(&roles).0;
    let missing = privilege & !held;
    if missing == 0 {
        return Ok(true);
    }
    let Some(columns) = columns else {
        return Ok(false);
    };
    if missing & !COLUMN_PRIVILEGES != 0 {
        return Ok(false);
    }
    let acls = column_acls(db, relation)?;
    let holds = |column: u16| {
        (acls.iter()).any(|(c, acl)| *c == column && acl.of(&roles).0 & missing == missing)
    };
    let used = columns.columns();
    Ok(match used.is_empty() {
        true => acls.iter().any(|(c, _)| holds(*c)),
        false => used.into_iter().all(holds),
    })
}

/// The one check of a privilege: PostgreSQL's 42501 `permission denied
/// for table t` unless the session's role may. A superuser passes at
/// once (the bootstrap superuser without reading anything).
pub fn check(cx: &Ctx<'_>, need: &Need) -> Result<(), SqlError> {
    let columns = need.columns.as_ref();
    let object = (need.relation, ObjectKind::of_word(need.kind));
    let allowed = match need.as_owner_of {
        None => may(cx.db, cx.role, object, need.privilege, columns)?,
        Some(view) => {
            let owner = acl(cx.db, view)?.owner;
            owner == SUPERUSER_OID
                || match roles::by_oid(cx.db, owner)? {
                    Some(role) => may(cx.db, &role, object, need.privilege, columns)?,
                    None => false,
                }
        }
    };
    if allowed {
        return Ok(());
    }
    Err(denied(need.kind, &need.name))
}

/// Every need of a statement, in order.
pub fn check_all(cx: &Ctx<'_>, needs: &[Need]) -> Result<(), SqlError> {
    // (A view a superuser reads may check its owner's privileges.)
    if cx.role.oid == SUPERUSER_OID && needs.iter().all(|n| n.as_owner_of.is_none()) {
        return Ok(());
    }
    needs.iter().try_for_each(|n| check(cx, n))
}

/// Notes a need of the statement being planned (checked when its plan
/// runs, and at each run of a kept plan); inside a view, checked with
/// its owner's privileges (`Ctx::checked_as`).
pub fn note(cx: &Ctx<'_>, relation: u64, name: &str, kind: &'static str, privilege: Bits) {
    note_need(cx, relation, name, kind, privilege, None);
}

/// [`note`] of a privilege that column privileges may grant instead:
/// the columns recorded in the returned uses (while the statement is
/// planned) are the ones checked.
pub fn note_columns(
    cx: &Ctx<'_>,
    relation: &folio_catalog::TableDef,
    name: &str,
    kind: &'static str,
    privilege: Bits,
) -> ColumnUses {
    let uses = ColumnUses::of(relation);
    note_need(cx, relation.oid, name, kind, privilege, Some(uses.clone()));
    uses
}

/// [`note_columns`] of view `view` (its `count` columns:
/// [`ColumnUses::of_view`]).
pub fn note_view_columns(
    cx: &Ctx<'_>,
    (view, count): (u64, usize),
    name: &str,
    privilege: Bits,
) -> ColumnUses {
    let uses = ColumnUses::of_view(count, false);
    note_need(cx, view, name, "view", privilege, Some(uses.clone()));
    uses
}

/// [`note_columns`] of a privilege needed only if some column is
/// recorded.
pub fn note_columns_if_read(
    cx: &Ctx<'_>,
    relation: &folio_catalog::TableDef,
    name: &str,
    privilege: Bits,
) -> ColumnUses {
    let uses = ColumnUses {
        if_read: true,
        ..ColumnUses::of(relation)
    };
    note_need(
        cx,
        relation.oid,
        name,
        "table",
        privilege,
        Some(uses.clone()),
    );
    uses
}

/// Notes `privilege` (for some column: none is recorded) on the
/// relation whose SELECT need `read` records its columns: FOR UPDATE /
/// SHARE's UPDATE on the tables it locks (PostgreSQL's
/// `ACL_SELECT_FOR_UPDATE`).
pub fn note_also(cx: &Ctx<'_>, read: &ColumnUses, privilege: Bits) {
    let mut needs = cx.needs.borrow_mut();
    let Some(need) = (needs.iter()).find(|n| n.columns.as_ref() == Some(read)) else {
        return;
    };
    let also = Need {
        privilege,
        columns: Some(ColumnUses {
            used: Arc::default(),
            slots: read.slots.clone(),
            if_read: false,
            view: read.view,
        }),
        ..need.clone()
    };
    needs.push(also);
}

/// The needs noted since the `since`th on `parent`'s descendants (an
/// UPDATE or DELETE of an inheritance parent or partitioned table planned
/// per table: `dml.rs` `Change::Parts`; the parent's own `ONLY` item among
/// them) become needs on `parent`, named `name`: PostgreSQL checks the
/// table the statement names alone. A descendant's columns are the
/// parent's of the same name; one the parent lacks leaves the need
/// without its columns (the parent's privilege on the table is needed).
pub fn as_parent(
    cx: &Ctx<'_>,
    since: usize,
    parent: &folio_catalog::TableDef,
    name: &str,
    descendants: &[folio_catalog::TableDef],
) {
    let mut needs = cx.needs.borrow_mut();
    for need in needs.iter_mut().skip(since) {
        if need.relation != parent.oid {
            let Some(child) = descendants.iter().find(|d| d.oid == need.relation) else {
                continue;
            };
            need.columns = (need.columns.as_ref()).and_then(|uses| uses.of_parent(child, parent));
            need.relation = parent.oid;
            need.kind = "table";
        }
        need.name = folio_catalog::unqualified(name).to_string();
    }
}

fn note_need(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    kind: &'static str,
    privilege: Bits,
    columns: Option<ColumnUses>,
) {
    cx.needs.borrow_mut().push(Need {
        relation,
        name: folio_catalog::unqualified(name).to_string(),
        kind,
        privilege,
        as_owner_of: cx.checked_as.get(),
        columns,
    });
}

/// PostgreSQL's 42501 for a missing privilege.
pub fn denied(kind: &str, name: &str) -> SqlError {
    SqlError::new(
        "42501",
        format!(
            "permission denied for {kind} {}",
            folio_catalog::unqualified(name)
        ),
    )
}

/// PostgreSQL's 42501 unless the session's role owns relation
/// `relation`, holds its owner's privileges (a member of the owning role
/// that inherits), or is a superuser: DROP, ALTER, GRANT by the owner.
pub fn check_owner(cx: &Ctx<'_>, relation: u64, name: &str, kind: &str) -> Result<(), SqlError> {
    let Some(role) = current(cx.db, cx.role)? else {
        return Ok(());
    };
    if crate::memberships::has_privileges_of(cx.db, role.oid, acl(cx.db, relation)?.owner)? {
        return Ok(());
    }
    Err(SqlError::new(
        "42501",
        format!(
            "must be owner of {kind} {}",
            folio_catalog::unqualified(name)
        ),
    ))
}

/// PostgreSQL's 42501 unless the session's role owns schema `name`:
/// folio's schemas are the bootstrap superuser's (`pg_namespace`), so a
/// role with its privileges, or a superuser.
pub fn check_schema_owner(cx: &Ctx<'_>, name: &str) -> Result<(), SqlError> {
    let Some(role) = current(cx.db, cx.role)? else {
        return Ok(());
    };
    if crate::memberships::has_privileges_of(cx.db, role.oid, SUPERUSER_OID)? {
        return Ok(());
    }
    Err(SqlError::new(
        "42501",
        format!("must be owner of schema {name}"),
    ))
}

/// `ALTER ... OWNER TO owner` of relation `relation` (`name`) by the
/// session's role, which owns it: a role that is not a superuser gives
/// it only to a role it is a member of (42501 `must be member of role
/// "r"`) that holds CREATE on the relation's schema (42501 `permission
/// denied for schema s`), PostgreSQL's `ATExecChangeOwner`. Nothing is
/// asked when the owner does not change.
pub fn check_new_owner(
    cx: &Ctx<'_>,
    txn: &Transaction,
    relation: u64,
    name: &str,
    owner: &Role,
) -> Result<(), SqlError> {
    if current(cx.db, cx.role)?.is_none() || acl(cx.db, relation)?.owner == owner.oid {
        return Ok(());
    }
    let graph = crate::memberships::Graph::load(cx.db)?;
    if !graph.is_member_of(cx.role.oid, owner.oid, false) {
        return Err(SqlError::new(
            "42501",
            format!("must be member of role \"{}\"", owner.name),
        ));
    }
    if folio_catalog::split_temp_name(name).is_some() {
        return Ok(());
    }
    let (schema, _) = folio_catalog::split_schema(name);
    let oid = match schema {
        "public" => Some(PUBLIC_SCHEMA),
        _ => cx.db.catalog().schema(txn, schema)?.map(|s| s.oid),
    };
    match oid {
        Some(oid) if !allowed(cx.db, owner, oid, ObjectKind::Schema, CREATE)? => {
            Err(denied("schema", schema))
        }
        _ => Ok(()),
    }
}

/// The oid of relation `name`, if there is one (for [`own_new`]).
pub fn oid_of(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<Option<u64>, SqlError> {
    if cx.role.oid == SUPERUSER_OID {
        return Ok(None);
    }
    Ok(cx.db.catalog().relation_oid(txn, name)?.map(|(oid, _)| oid))
}

/// Records the session's role as the owner of relation `name`, which a
/// CREATE just made (`before`: the oid the name had before, when an `IF
/// NOT EXISTS` found one: then nothing was made).
pub fn own_new(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    before: Option<u64>,
) -> Result<(), SqlError> {
    if cx.role.oid == SUPERUSER_OID {
        return Ok(());
    }
    match cx.db.catalog().relation_oid(txn, name)? {
        Some((oid, _)) if Some(oid) != before => set_owner(cx.db, oid, cx.role),
        _ => Ok(()),
    }
}

/// The checks of the statements that are not planned, before they run:
/// ownership for DROP, ALTER TABLE and CREATE INDEX (PostgreSQL's
/// `must be owner of table t`), TRUNCATE's privilege. A name that is
/// not there is left to the statement's own error.
pub fn check_utility(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &sqlparser::ast::Statement,
) -> Result<(), SqlError> {
    use sqlparser::ast::{ObjectType, Statement};
    if cx.role.oid == SUPERUSER_OID {
        return Ok(());
    }
    let oid = |name: &sqlparser::ast::ObjectName| -> Result<Option<(u64, String)>, SqlError> {
        let name = crate::names::relation(name)?;
        Ok(cx
            .db
            .catalog()
            .relation_oid(txn, &name)?
            .map(|(oid, _)| (oid, name)))
    };
    let in_public = |name: &sqlparser::ast::ObjectName, temporary: bool| {
        check_create_in_schema(cx, txn, name, temporary)
    };
    match statement {
        Statement::CreateTable(create) => in_public(&create.name, create.temporary)?,
        Statement::CreateView {
            name, temporary, ..
        } => in_public(name, *temporary)?,
        Statement::CreateSequence {
            name, temporary, ..
        } => in_public(name, *temporary)?,
        Statement::CreateType { name, .. } => in_public(name, false)?,
        Statement::CreateFunction(create) => in_public(&create.name, false)?,
        Statement::Drop {
            object_type, names, ..
        } => {
            let kind = match object_type {
                ObjectType::Table => "table",
                ObjectType::View => "view",
                ObjectType::MaterializedView => "materialized view",
                ObjectType::Sequence => "sequence",
                _ => return Ok(()),
            };
            for name in names {
                if let Some((relation, name)) = oid(name)? {
                    check_owner(cx, relation, &name, kind)?;
                }
            }
        }
        Statement::AlterTable { name, .. } => {
            if let Some((relation, name)) = oid(name)? {
                check_owner(cx, relation, &name, "table")?;
            }
        }
        Statement::CreateIndex(create) => {
            if let Some((relation, name)) = oid(&create.table_name)? {
                check_owner(cx, relation, &name, "table")?;
            }
        }
        Statement::Truncate { table_names, .. } => {
            for t in table_names {
                if let Some((relation, name)) = oid(&t.name)? {
                    let need = Need {
                        relation,
                        name: folio_catalog::unqualified(&name).to_string(),
                        kind: "table",
                        privilege: TRUNCATE,
                        as_owner_of: None,
                        columns: None,
                    };
                    check(cx, &need)?;
                }
            }
        }
        _ => {}
    }
    crate::type_privileges::check_statement(cx, statement)
}

/// 42501 `permission denied for schema s` unless the session's role
/// may CREATE in the schema object `name` goes in (the resolver has
/// qualified an unqualified name by the search path): PostgreSQL 15
/// grants it on public to no one but its owner, on a user schema to its
/// owner (postgres here: `schemas.rs`); a temporary relation
/// (`temporary`) needs TEMP, which PUBLIC has. Asked by CREATE TABLE,
/// VIEW, SEQUENCE, TYPE, DOMAIN, FUNCTION, PROCEDURE and AGGREGATE.
pub fn check_create_in_schema(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &sqlparser::ast::ObjectName,
    temporary: bool,
) -> Result<(), SqlError> {
    if cx.role.oid == SUPERUSER_OID {
        return Ok(());
    }
    let name = crate::names::relation(name)?;
    if temporary || folio_catalog::split_temp_name(&name).is_some() {
        return Ok(());
    }
    let (schema, _) = folio_catalog::split_schema(&name);
    let oid = match schema {
        "public" => Some(PUBLIC_SCHEMA),
        _ => cx.db.catalog().schema(txn, schema)?.map(|s| s.oid),
    };
    let may = match oid {
        // (No such schema: the CREATE's own 3F000 follows.)
        None => true,
        Some(oid) => allowed(cx.db, cx.role, oid, ObjectKind::Schema, CREATE)?,
    };
    if may {
        return Ok(());
    }
    Err(denied("schema", schema))
}

/// A GRANT or REVOKE of `privileges` on some relations to (from) some
/// grantees (oids; [`PUBLIC`]).
#[derive(Debug)]
pub struct Change<'a> {
    pub grant: bool,
    pub privileges: Bits,
    pub grantees: &'a [u32],
    /// A GRANT's WITH GRANT OPTION; a REVOKE's GRANT OPTION FOR (the
    /// grant options alone are taken).
    pub grant_option: bool,
    /// A REVOKE's CASCADE: grants that hang on a grant option taken go
    /// too (else, RESTRICT, they refuse the REVOKE: 2BP01).
    pub cascade: bool,
}

/// Applies `change` to relation `relation` (`name`, `kind` for errors),
/// or with `column` to that column of it, as the session's role: a
/// superuser or the owner acts as the owner (PostgreSQL records the
/// owner as grantor), another role only with the grant option of each
/// privilege, on the relation or the column (42501 without any
/// privilege; `false`, nothing changed, with some but not those grant
/// options). A REVOKE on the relation revokes the same privileges of
/// its columns too, as PostgreSQL's.
pub fn apply(
    cx: &Ctx<'_>,
    relation: u64,
    column: Option<u16>,
    name: &str,
    kind: &str,
    change: &Change<'_>,
) -> Result<bool, SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let table = acl_of(cx.db, relation, ObjectKind::of_word(kind))?;
    let mut target = match column {
        None => table.clone(),
        Some(c) => (column_acls(cx.db, relation)?.into_iter())
            .find(|(n, _)| *n == c)
            .map(|(_, a)| a)
            .unwrap_or(Acl {
                owner: table.owner,
                items: Some(Vec::new()),
                kind: ObjectKind::Relation,
            }),
    };
    // PostgreSQL's `select_best_grantor`: a role with the owner's
    // privileges grants as the owner, another as the first role whose
    // privileges it holds (itself first) with the grant options needed.
    let held = |roles: &[u32]| {
        let (t, c) = (table.of(roles), target.of(roles));
        (t.0 | c.0, t.1 | c.1)
    };
    let grantor = match current(cx.db, cx.role)? {
        None => table.owner,
        Some(role) => {
            let roles = crate::memberships::privileges_of(cx.db, role.oid)?;
            if roles.contains(&table.owner) {
                table.owner
            } else {
                if held(&roles).0 == 0 {
                    return Err(denied(kind, name));
                }
                // PostgreSQL: a holder without the grant option is
                // warned, and nothing changes.
                match (roles.iter())
                    .find(|&&r| held(&[r]).1 & change.privileges == change.privileges)
                {
                    Some(&r) => r,
                    None => return Ok(false),
                }
            }
        }
    };
    // Every ACL is changed before any is written, so a REVOKE refused
    // for its dependent grants (2BP01) changes nothing.
    target.items = Some(changed(cx.db, &target, grantor, change)?);
    match column {
        None => {
            let mut columns = Vec::new();
            if !change.grant && change.privileges & COLUMN_PRIVILEGES != 0 {
                for (c, mut acl) in column_acls(cx.db, relation)? {
                    acl.items = Some(changed(cx.db, &acl, grantor, change)?);
                    columns.push((c, acl));
                }
            }
            put(cx.db, &key(relation), &target)?;
            for (c, acl) in columns {
                put(cx.db, &column_key(relation, c), &acl)?;
            }
        }
        Some(c) => put(cx.db, &column_key(relation, c), &target)?,
    }
    Ok(true)
}

/// `acl`'s items with `change` made by `grantor`.
fn changed(
    db: &Database,
    acl: &Acl,
    grantor: u32,
    change: &Change<'_>,
) -> Result<Vec<AclItem>, SqlError> {
    let mut items = acl.items();
    for &grantee in change.grantees {
        let at = items
            .iter()
            .position(|i| i.grantee == grantee && i.grantor == grantor);
        match (change.grant, at) {
            (true, Some(at)) => {
                items[at].privileges |= change.privileges;
                if change.grant_option {
                    items[at].grantable |= change.privileges;
                }
            }
            (true, None) => items.push(AclItem {
                grantee,
                grantor,
                privileges: change.privileges,
                grantable: if change.grant_option {
                    change.privileges
                } else {
                    0
                },
            }),
            (false, Some(at)) => {
                let lost = take(&mut items, at, change.privileges, change.grant_option);
                revoke_dependents(db, acl, &mut items, grantee, lost, change.cascade)?;
            }
            (false, None) => {}
        }
    }
    Ok(items)
}

/// Takes `privileges` from item `at` of `items` (`options_only`: their
/// grant options alone), dropping an item left with no privilege, and
/// returns the grant options the item lost.
fn take(items: &mut Vec<AclItem>, at: usize, privileges: Bits, options_only: bool) -> Bits {
    let before = items[at].grantable;
    if !options_only {
        items[at].privileges &= !privileges;
    }
    items[at].grantable &= !privileges;
    let lost = before & !items[at].grantable;
    if items[at].privileges == 0 {
        items.remove(at);
    }
    lost
}

/// PostgreSQL's `recursive_revoke`: `grantee` lost the grant options
/// `lost`; unless it still holds them (as the owner, through another
/// grant, or through a role whose privileges it holds), what it granted
/// of them goes too, and so on down the chain (CASCADE), or the REVOKE
/// fails (RESTRICT: 2BP01). Each step takes bits away, so it ends.
fn revoke_dependents(
    db: &Database,
    acl: &Acl,
    items: &mut Vec<AclItem>,
    grantee: u32,
    lost: Bits,
    cascade: bool,
) -> Result<(), SqlError> {
    if lost == 0 || grantee == acl.owner || grantee == PUBLIC {
        return Ok(());
    }
    let roles = crate::memberships::privileges_of(db, grantee)?;
    let now = Acl {
        items: Some(items.clone()),
        ..acl.clone()
    };
    if now.of(&roles).1 & lost == lost {
        return Ok(());
    }
    while let Some(at) =
        (items.iter()).position(|i| i.grantor == grantee && i.privileges & lost != 0)
    {
        if !cascade {
            return Err(SqlError::new("2BP01", "dependent privileges exist")
                .with_hint("Use CASCADE to revoke them too."));
        }
        let next = items[at].grantee;
        let next_lost = take(items, at, lost, false);
        revoke_dependents(db, acl, items, next, next_lost, cascade)?;
    }
    Ok(())
}

/// The relations `txn` sees: oid -> (name, kind word).
pub fn relations(
    db: &Database,
    txn: &Transaction,
) -> Result<HashMap<u64, (String, &'static str)>, SqlError> {
    let catalog = db.catalog();
    let mut out = HashMap::new();
    for t in catalog.tables(txn)? {
        let kind = match t.matview {
            Some(_) => "materialized view",
            None => "table",
        };
        out.insert(t.oid, (t.name, kind));
    }
    for v in catalog.views(txn)? {
        out.insert(v.oid, (v.name, "view"));
    }
    for s in catalog.sequences(txn)? {
        out.insert(s.oid, (s.name, "sequence"));
    }
    Ok(out)
}

/// What depends on role `role` among the relations `txn` sees, as
/// PostgreSQL's DETAIL lines of DROP ROLE's 2BP01 (`owner of table t`,
/// `privileges for table t`), by oid (PostgreSQL's order when each grant
/// followed its relation's creation); empty when it can go.
pub fn dependents(db: &Database, txn: &Transaction, role: u32) -> Result<Vec<String>, SqlError> {
    let mut relations = relations(db, txn)?;
    relations.insert(PUBLIC_SCHEMA, ("public".into(), "schema"));
    let mut out = Vec::new();
    for (oid, acl) in all(db)? {
        let Some((name, kind)) = relations.get(&oid) else {
            continue;
        };
        let name = folio_catalog::unqualified(name);
        if acl.owner == role {
            out.push(format!("owner of {kind} {name}"));
        } else if acl
            .items()
            .iter()
            .any(|i| i.grantee == role || i.grantor == role)
        {
            out.push(format!("privileges for {kind} {name}"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves ACL entries round-trip, the NULL ACL is the owner's every
    // privilege, PUBLIC's items count for everyone, and the text form is
    // PostgreSQL's aclitem.
    #[test]
    fn acl_round_trip_and_meaning() {
        let null = Acl {
            owner: 16384,
            items: None,
            kind: ObjectKind::Relation,
        };
        assert_eq!(
            Acl::decode(&null.encode(), ObjectKind::Relation),
            Some(null.clone())
        );
        assert_eq!(null.of(&[16384]), (ALL, ALL));
        assert_eq!(null.of(&[16385]), (0, 0));
        assert_eq!(null.of(&[16385, 16384]), (ALL, ALL));
        let granted = Acl {
            owner: 10,
            items: Some(vec![
                AclItem {
                    grantee: 10,
                    grantor: 10,
                    privileges: ALL,
                    grantable: 0,
                },
                AclItem {
                    grantee: PUBLIC,
                    grantor: 10,
                    privileges: SELECT,
                    grantable: 0,
                },
                AclItem {
                    grantee: 16385,
                    grantor: 10,
                    privileges: INSERT | SELECT,
                    grantable: INSERT,
                },
            ]),
            kind: ObjectKind::Relation,
        };
        assert_eq!(
            Acl::decode(&granted.encode(), ObjectKind::Relation),
            Some(granted.clone())
        );
        assert_eq!(granted.of(&[16385]), (INSERT | SELECT, INSERT));
        assert_eq!(granted.of(&[16390]), (SELECT, 0));
        assert_eq!(granted.of(&[16390, 16385]), (INSERT | SELECT, INSERT));
        let name = |oid: u32| match oid {
            10 => "postgres".to_string(),
            _ => "app".to_string(),
        };
        assert_eq!(
            granted.text(name).unwrap(),
            [
                "postgres=arwdDxt/postgres",
                "=r/postgres",
                "app=a*r/postgres"
            ]
        );
        assert_eq!(Acl::decode(&[0; 6], ObjectKind::Relation), None);
        // The first format, of 1-byte privileges, still reads.
        let mut old = vec![10, 0, 0, 0, 1];
        old.extend_from_slice(&[1, 0x40, 0, 0, 10, 0, 0, 0, SELECT as u8, 0]);
        assert_eq!(
            Acl::decode(&old, ObjectKind::Relation).unwrap().items(),
            [AclItem {
                grantee: 16385,
                grantor: 10,
                privileges: SELECT,
                grantable: 0,
            }]
        );
    }

    // Proves a function's and a type's NULL ACL is PostgreSQL's
    // `acldefault`: PUBLIC's item first, then the owner's, so a REVOKE
    // from PUBLIC leaves the owner's.
    #[test]
    fn null_acls_of_functions_and_types() {
        let function = Acl {
            owner: 16384,
            items: None,
            kind: ObjectKind::Function,
        };
        assert_eq!(function.of(&[16390]), (EXECUTE, 0));
        assert_eq!(function.of(&[16384]), (EXECUTE, EXECUTE));
        let name = |oid: u32| format!("r{oid}");
        assert_eq!(function.text(name), None);
        let items = function.items();
        assert_eq!(items[0].grantee, PUBLIC);
        assert_eq!(items[1].grantee, 16384);
        let revoked = Acl {
            items: Some(Vec::new()),
            ..function.clone()
        };
        assert_eq!(revoked.of(&[16390]), (0, 0));
        assert_eq!(
            Acl {
                kind: ObjectKind::Type,
                ..function
            }
            .of(&[16390]),
            (USAGE, 0)
        );
    }
}
