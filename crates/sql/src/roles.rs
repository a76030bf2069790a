//! Roles: their attributes and passwords (design: README "Roles and
//! privileges"). `postgres`, the superuser `initdb` makes, always exists
//! (oid 10, LOGIN SUPERUSER, attributes fixed), and so do PostgreSQL
//! 15's predefined roles ([`PREDEFINED`]: NOLOGIN, fixed, stored
//! nowhere); `CREATE ROLE` adds others.
//!
//! Everything lives in the database's logged tree `folio.authid`, changed
//! outside transactions and made durable before the statement returns:
//! crash-safe, but not undone by a rolled-back block (PostgreSQL's
//! pg_authid rows would be). Role DDL is serialized by one process-wide
//! lock, so two CREATE ROLEs of one name leave one role.
//!
//! | key | value |
//! |---|---|
//! | role name | the role's SCRAM-SHA-256 verifier, text (as before roles) |
//! | `\0r` + role name | oid (4, LE), attributes (1: bit 0 LOGIN, 1 SUPERUSER, 2 CREATEDB, 3 CREATEROLE, 4 BYPASSRLS, 5 NOINHERIT) |
//! | `\0o` | the next role oid (4, LE) |
//! | `\0a` + relation oid (8, BE) | the relation's owner and ACL (`privileges.rs`) |
//! | `\0m` + role oid + member oid | a role membership (`memberships.rs`) |
//!
//! A name never starts with a NUL byte, so the keys do not meet.
//!
//! A password is kept as PostgreSQL keeps a SCRAM-SHA-256 password (RFC
//! 5802 and 7677): a verifier
//! `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64),
//! never the password itself. `PASSWORD 'text'` sets it: a text that
//! already is a verifier (psql's `\password` sends one, made on the
//! client) is kept as it is, any other text is the password and its
//! verifier is made here with a random salt and 4,096 iterations
//! (PostgreSQL's `scram_iterations`). `folio serve --auth scram-sha-256`
//! checks it (folio-server `scram.rs`). Passwords are used as their UTF-8
//! bytes (PostgreSQL applies SASLprep first, which changes only non-ASCII
//! passwords).

use crate::error::SqlError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use folio_db::Database;
use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The bootstrap superuser.
pub const SUPERUSER: &str = "postgres";
/// Its oid (PostgreSQL's `BOOTSTRAP_SUPERUSERID`).
pub const SUPERUSER_OID: u32 = 10;
/// PostgreSQL 15's predefined roles, with its oids, in its `pg_authid`
/// order. Each is NOLOGIN INHERIT with no other attribute; what each
/// grants is decided where the privilege is (`privileges.rs`: the
/// `pg_read_all_data` / `pg_write_all_data` rights;
/// `memberships.rs`: `pg_monitor`'s memberships and the database
/// owner's implicit membership of `pg_database_owner`).
pub const PREDEFINED: [(u32, &str); 12] = [
    (DATABASE_OWNER_OID, "pg_database_owner"),
    (READ_ALL_DATA_OID, "pg_read_all_data"),
    (WRITE_ALL_DATA_OID, "pg_write_all_data"),
    (MONITOR_OID, "pg_monitor"),
    (3374, "pg_read_all_settings"),
    (3375, "pg_read_all_stats"),
    (3377, "pg_stat_scan_tables"),
    (4569, "pg_read_server_files"),
    (4570, "pg_write_server_files"),
    (4571, "pg_execute_server_program"),
    (4200, "pg_signal_backend"),
    (4544, "pg_checkpoint"),
];
/// `pg_database_owner`: its one member is the database's owner.
pub const DATABASE_OWNER_OID: u32 = 6171;
/// `pg_read_all_data`: SELECT on every table, USAGE on every schema.
pub const READ_ALL_DATA_OID: u32 = 6181;
/// `pg_write_all_data`: INSERT, UPDATE, DELETE on every table.
pub const WRITE_ALL_DATA_OID: u32 = 6182;
/// `pg_monitor`: a member of `pg_read_all_settings`,
/// `pg_read_all_stats` and `pg_stat_scan_tables`.
pub const MONITOR_OID: u32 = 3373;
/// The first oid a created role gets.
const FIRST_ROLE_OID: u32 = 16384;
/// The logged tree of roles, passwords and ACLs.
pub(crate) const AUTHID_TREE: &str = "folio.authid";
/// Key prefix of a role's attributes.
const ROLE_KEY: &[u8] = b"\0r";
/// Key of the next role oid.
const NEXT_OID_KEY: &[u8] = b"\0o";

/// Serializes role DDL (and ACL changes) in this process: each is a
/// read, then writes, of the tree.
pub(crate) static ROLE_DDL: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// Iterations of a verifier made here (PostgreSQL's default).
pub const ITERATIONS: u32 = 4096;
const PREFIX: &str = "SCRAM-SHA-256$";

thread_local! {
    static CURRENT: std::cell::RefCell<Option<std::sync::Arc<Scoped>>> =
        const { std::cell::RefCell::new(None) };
}

/// The session's role and database while a statement runs, for what
/// has neither: the binder's `current_user` and the `pg_catalog`
/// relations made from `folio.authid` (`pg_roles`, `relacl`). Entered
/// per statement as `object_scope::Scope` (one reference count: the
/// session keeps its [`Scoped`] until its role changes).
#[derive(Debug)]
pub struct Scope {
    _installed: crate::thread_scope::Installed<Option<std::sync::Arc<Scoped>>>,
}

/// What a [`Scope`] holds: `current_user`, `session_user`, whether a SET
/// ROLE chose the current one, the database.
#[derive(Debug)]
pub struct Scoped {
    current: String,
    session: String,
    chosen: bool,
    db: std::sync::Arc<Database>,
}

impl Scoped {
    /// The current and session user's names on `db` (`chosen`: a SET
    /// ROLE named the current one).
    pub fn new(
        current: &str,
        session: &str,
        chosen: bool,
        db: &std::sync::Arc<Database>,
    ) -> Scoped {
        Scoped {
            current: current.to_string(),
            session: session.to_string(),
            chosen,
            db: db.clone(),
        }
    }
}

impl Scope {
    /// Puts `scoped` in scope for this thread until dropped.
    pub fn enter(scoped: &std::sync::Arc<Scoped>) -> Scope {
        Scope {
            _installed: crate::thread_scope::install(&CURRENT, Some(scoped.clone())),
        }
    }
}

/// The name of the role the running statement's session runs as
/// (`current_user`; `postgres` outside a statement).
pub fn current_name() -> String {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map_or_else(|| SUPERUSER.to_string(), |s| s.current.clone())
    })
}

/// The `role` setting: the role a SET ROLE chose, else `none`
/// (PostgreSQL's).
pub fn role_setting() -> String {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(s) if s.chosen => s.current.clone(),
        _ => "none".to_string(),
    })
}

/// The running statement's session user (`session_user`).
pub fn session_name() -> String {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map_or_else(|| SUPERUSER.to_string(), |s| s.session.clone())
    })
}

/// The running statement's database, if one runs on this thread.
pub fn scoped_database() -> Option<std::sync::Arc<Database>> {
    CURRENT.with(|c| c.borrow().as_ref().map(|s| s.db.clone()))
}

/// Every role (only `postgres` outside a statement), for the
/// `pg_catalog` relations.
pub fn scoped_roles() -> Result<Vec<Role>, SqlError> {
    match scoped_database() {
        Some(db) => all(&db),
        None => Ok(vec![Role::bootstrap()]),
    }
}

/// Whether the running statement's role (`current_user`) is a
/// superuser.
pub fn current_is_superuser() -> Result<bool, SqlError> {
    let name = current_name();
    Ok(scoped_roles()?
        .iter()
        .any(|r| r.name == name && r.superuser))
}

/// Role `oid`'s name as `pg_get_userbyid` gives it.
pub fn scoped_name(oid: u32) -> String {
    let found = scoped_database().and_then(|db| by_oid(&db, oid).ok().flatten());
    match found {
        Some(role) => role.name,
        None => format!("unknown (OID={oid})"),
    }
}

/// A role and its attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    pub oid: u32,
    pub name: String,
    pub login: bool,
    pub superuser: bool,
    pub createdb: bool,
    pub createrole: bool,
    /// BYPASSRLS: row-level security policies do not apply to it
    /// (`row_security.rs`).
    pub bypassrls: bool,
    /// INHERIT (the default): it holds the privileges of the roles it is
    /// a member of (`memberships.rs`).
    pub inherit: bool,
}

impl Role {
    /// `postgres`.
    pub fn bootstrap() -> Role {
        Role {
            oid: SUPERUSER_OID,
            name: SUPERUSER.into(),
            login: true,
            superuser: true,
            createdb: true,
            createrole: true,
            bypassrls: true,
            inherit: true,
        }
    }

    /// A predefined role ([`PREDEFINED`]).
    fn predefined(oid: u32, name: &str) -> Role {
        Role {
            oid,
            name: name.into(),
            login: false,
            superuser: false,
            createdb: false,
            createrole: false,
            bypassrls: false,
            inherit: true,
        }
    }

    /// Whether it is one of the roles the system has from the start
    /// (`postgres`, the predefined ones), whose attributes are fixed.
    pub fn is_builtin(&self) -> bool {
        self.oid == SUPERUSER_OID || PREDEFINED.iter().any(|(oid, _)| *oid == self.oid)
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = self.oid.to_le_bytes().to_vec();
        out.push(
            u8::from(self.login)
                | u8::from(self.superuser) << 1
                | u8::from(self.createdb) << 2
                | u8::from(self.createrole) << 3
                | u8::from(self.bypassrls) << 4
                | u8::from(!self.inherit) << 5,
        );
        out
    }

    fn decode(name: &str, bytes: &[u8]) -> Result<Role, SqlError> {
        let corrupt = || {
            SqlError::new(
                "XX001",
                format!("the stored attributes of role \"{name}\" are corrupt"),
            )
        };
        let [a, b, c, d, flags] = *bytes else {
            return Err(corrupt());
        };
        if flags >> 6 != 0 {
            return Err(corrupt());
        }
        Ok(Role {
            oid: u32::from_le_bytes([a, b, c, d]),
            name: name.to_string(),
            login: flags & 1 != 0,
            superuser: flags & 2 != 0,
            createdb: flags & 4 != 0,
            createrole: flags & 8 != 0,
            bypassrls: flags & 16 != 0,
            inherit: flags & 32 == 0,
        })
    }
}

/// The attributes a CREATE or ALTER ROLE names (`None`: not named).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub login: Option<bool>,
    pub superuser: Option<bool>,
    pub createdb: Option<bool>,
    pub createrole: Option<bool>,
    pub bypassrls: Option<bool>,
    pub inherit: Option<bool>,
    /// `PASSWORD 'text'` (`Some(Some)`) or `PASSWORD NULL` (`Some(None)`).
    pub password: Option<Option<String>>,
}

/// PostgreSQL's 42704 for a role that is not there.
pub fn undefined(name: &str) -> SqlError {
    SqlError::new("42704", format!("role \"{name}\" does not exist"))
}

/// The tree, made when first written.
pub(crate) fn tree_for_writing(db: &Database) -> Result<folio_btree::Tree, SqlError> {
    Ok(match db.open_tree(AUTHID_TREE)? {
        Some(tree) => tree,
        None => db.create_tree(AUTHID_TREE)?,
    })
}

fn role_key(name: &str) -> Vec<u8> {
    let mut key = ROLE_KEY.to_vec();
    key.extend_from_slice(name.as_bytes());
    key
}

fn btree(e: folio_btree::BtreeError) -> SqlError {
    folio_db::DbError::from(e).into()
}

/// Role `name`, if it exists.
pub fn get(db: &Database, name: &str) -> Result<Option<Role>, SqlError> {
    if name == SUPERUSER {
        return Ok(Some(Role::bootstrap()));
    }
    if let Some((oid, name)) = PREDEFINED.iter().find(|(_, n)| *n == name) {
        return Ok(Some(Role::predefined(*oid, name)));
    }
    let Some(tree) = db.open_tree(AUTHID_TREE)? else {
        return Ok(None);
    };
    match tree.get(&role_key(name)).map_err(btree)? {
        Some(bytes) => Role::decode(name, &bytes).map(Some),
        None => Ok(None),
    }
}

/// Every role: `postgres` first, the predefined ones, then by name.
pub fn all(db: &Database) -> Result<Vec<Role>, SqlError> {
    let mut out = vec![Role::bootstrap()];
    out.extend(
        PREDEFINED
            .iter()
            .map(|(oid, name)| Role::predefined(*oid, name)),
    );
    let Some(tree) = db.open_tree(AUTHID_TREE)? else {
        return Ok(out);
    };
    for entry in tree.scan_prefix(ROLE_KEY, folio_btree::Direction::Forward) {
        let (key, value) = entry.map_err(btree)?;
        let name = String::from_utf8_lossy(&key[ROLE_KEY.len()..]).into_owned();
        out.push(Role::decode(&name, &value)?);
    }
    Ok(out)
}

/// The role of oid `oid`, if it exists.
pub fn by_oid(db: &Database, oid: u32) -> Result<Option<Role>, SqlError> {
    if oid == SUPERUSER_OID {
        return Ok(Some(Role::bootstrap()));
    }
    Ok(all(db)?.into_iter().find(|r| r.oid == oid))
}

/// `CREATE ROLE name options` (42710 if it exists); durable when it
/// returns.
pub fn create(db: &Database, name: &str, options: &Options) -> Result<Role, SqlError> {
    check_name(name)?;
    let _ddl = ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    if get(db, name)?.is_some() {
        return Err(SqlError::new(
            "42710",
            format!("role \"{name}\" already exists"),
        ));
    }
    let tree = tree_for_writing(db)?;
    let oid = match tree.get(NEXT_OID_KEY).map_err(btree)? {
        Some(bytes) => u32::from_le_bytes(
            bytes
                .try_into()
                .map_err(|_| SqlError::new("XX001", "the stored next role oid is corrupt"))?,
        ),
        None => FIRST_ROLE_OID,
    };
    let next = oid
        .checked_add(1)
        .ok_or_else(|| SqlError::new("54000", "no role oid is left"))?;
    let role = Role {
        oid,
        name: name.to_string(),
        login: options.login.unwrap_or(false),
        superuser: options.superuser.unwrap_or(false),
        createdb: options.createdb.unwrap_or(false),
        createrole: options.createrole.unwrap_or(false),
        bypassrls: options.bypassrls.unwrap_or(false),
        inherit: options.inherit.unwrap_or(true),
    };
    tree.upsert(NEXT_OID_KEY, &next.to_le_bytes())
        .map_err(btree)?;
    tree.upsert(&role_key(name), &role.encode())
        .map_err(btree)?;
    if let Some(Some(password)) = &options.password {
        put_password(&tree, name, password)?;
    }
    db.commit()?;
    Ok(role)
}

/// `ALTER ROLE name options`; durable when it returns. `postgres` takes
/// only a password (its other attributes are fixed).
pub fn alter(db: &Database, name: &str, options: &Options) -> Result<(), SqlError> {
    let _ddl = ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let mut role = get(db, name)?.ok_or_else(|| undefined(name))?;
    let attributes = [
        options.login,
        options.superuser,
        options.createdb,
        options.createrole,
        options.bypassrls,
        options.inherit,
    ];
    if role.oid == SUPERUSER_OID && attributes.iter().any(Option::is_some) {
        return Err(SqlError::unsupported(
            "changing the attributes of the bootstrap superuser",
        ));
    }
    if role.is_builtin() && role.oid != SUPERUSER_OID {
        return Err(
            SqlError::new("42939", format!("role name \"{name}\" is reserved"))
                .with_detail("Cannot alter reserved roles."),
        );
    }
    role.login = options.login.unwrap_or(role.login);
    role.superuser = options.superuser.unwrap_or(role.superuser);
    role.createdb = options.createdb.unwrap_or(role.createdb);
    role.createrole = options.createrole.unwrap_or(role.createrole);
    role.bypassrls = options.bypassrls.unwrap_or(role.bypassrls);
    role.inherit = options.inherit.unwrap_or(role.inherit);
    let tree = tree_for_writing(db)?;
    if role.oid != SUPERUSER_OID {
        tree.upsert(&role_key(name), &role.encode())
            .map_err(btree)?;
    }
    match &options.password {
        None => {}
        Some(None) => {
            tree.delete(name.as_bytes()).map_err(btree)?;
        }
        Some(Some(password)) => put_password(&tree, name, password)?,
    }
    db.commit()?;
    Ok(())
}

/// `ALTER ROLE name RENAME TO new`; durable when it returns. Grants
/// name roles by oid, so they follow.
pub fn rename(db: &Database, name: &str, new: &str, current: u32) -> Result<(), SqlError> {
    check_name(new)?;
    let _ddl = ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let role = get(db, name)?.ok_or_else(|| undefined(name))?;
    if role.oid == current {
        return Err(SqlError::new("0A000", "session user cannot be renamed"));
    }
    if role.oid == SUPERUSER_OID {
        return Err(SqlError::unsupported("renaming the bootstrap superuser"));
    }
    if role.is_builtin() {
        return Err(
            SqlError::new("42939", format!("role name \"{name}\" is reserved"))
                .with_detail("Role names starting with \"pg_\" are reserved."),
        );
    }
    if get(db, new)?.is_some() {
        return Err(SqlError::new(
            "42710",
            format!("role \"{new}\" already exists"),
        ));
    }
    let tree = tree_for_writing(db)?;
    tree.delete(&role_key(name)).map_err(btree)?;
    tree.upsert(
        &role_key(new),
        &Role {
            name: new.to_string(),
            ..role
        }
        .encode(),
    )
    .map_err(btree)?;
    if let Some(verifier) = tree.get(name.as_bytes()).map_err(btree)? {
        tree.delete(name.as_bytes()).map_err(btree)?;
        tree.upsert(new.as_bytes(), &verifier).map_err(btree)?;
    }
    db.commit()?;
    Ok(())
}

/// Removes role `role` and its password (the caller checked that nothing
/// depends on it, under [`ROLE_DDL`]); durable when it returns.
pub(crate) fn remove(db: &Database, role: &Role) -> Result<(), SqlError> {
    let tree = tree_for_writing(db)?;
    tree.delete(&role_key(&role.name)).map_err(btree)?;
    tree.delete(role.name.as_bytes()).map_err(btree)?;
    db.commit()?;
    Ok(())
}

/// A role name: not empty, no NUL, at most 63 bytes (PostgreSQL's
/// NAMEDATALEN - 1; it truncates longer names, folio refuses them).
fn check_name(name: &str) -> Result<(), SqlError> {
    if name.is_empty() || name.contains('\0') || name.len() > 63 {
        return Err(SqlError::new(
            "42602",
            format!("invalid role name \"{name}\""),
        ));
    }
    if name == "public" || name == "none" || name.starts_with("pg_") {
        return Err(SqlError::new(
            "42939",
            format!("role name \"{name}\" is reserved"),
        ));
    }
    Ok(())
}
/// A SCRAM-SHA-256 verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    pub iterations: u32,
    pub salt: Vec<u8>,
    pub stored_key: [u8; 32],
    pub server_key: [u8; 32],
}

impl Verifier {
    /// The verifier of `password` with `salt`.
    pub fn new(password: &str, salt: &[u8], iterations: u32) -> Verifier {
        let salted = hi(password.as_bytes(), salt, iterations);
        Verifier {
            iterations,
            salt: salt.to_vec(),
            stored_key: sha256(&hmac(&salted, b"Client Key")),
            server_key: hmac(&salted, b"Server Key"),
        }
    }

    /// PostgreSQL's text form, if `text` is one.
    pub fn parse(text: &str) -> Option<Verifier> {
        let rest = text.strip_prefix(PREFIX)?;
        let (params, keys) = rest.split_once('$')?;
        let (iterations, salt) = params.split_once(':')?;
        let (stored, server) = keys.split_once(':')?;
        let key = |b64: &str| -> Option<[u8; 32]> { BASE64.decode(b64).ok()?.try_into().ok() };
        Some(Verifier {
            iterations: iterations.parse().ok().filter(|&i| i > 0)?,
            salt: BASE64.decode(salt).ok()?,
            stored_key: key(stored)?,
            server_key: key(server)?,
        })
    }

    /// PostgreSQL's text form.
    pub fn text(&self) -> String {
        format!(
            "{PREFIX}{}:{}${}:{}",
            self.iterations,
            BASE64.encode(&self.salt),
            BASE64.encode(self.stored_key),
            BASE64.encode(self.server_key)
        )
    }
}

/// HMAC-SHA-256.
pub fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// SHA-256.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// SCRAM's `Hi` (PBKDF2 with HMAC-SHA-256, one block).
fn hi(password: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    let mut first = salt.to_vec();
    first.extend_from_slice(&1u32.to_be_bytes());
    let mut u = hmac(password, &first);
    let mut out = u;
    for _ in 1..iterations {
        u = hmac(password, &u);
        for (o, x) in out.iter_mut().zip(u) {
            *o ^= x;
        }
    }
    out
}

/// Role `role`'s verifier, if it has a password.
pub fn password(db: &Database, role: &str) -> Result<Option<Verifier>, SqlError> {
    let Some(tree) = db.open_tree(AUTHID_TREE)? else {
        return Ok(None);
    };
    let Some(stored) = tree.get(role.as_bytes()).map_err(folio_db::DbError::from)? else {
        return Ok(None);
    };
    let text = String::from_utf8(stored).unwrap_or_default();
    Verifier::parse(&text).map(Some).ok_or_else(|| {
        SqlError::new(
            "XX001",
            format!("the stored password of role \"{role}\" is not a SCRAM-SHA-256 verifier"),
        )
    })
}

/// Keeps `text` as role `role`'s password (the caller commits).
fn put_password(tree: &folio_btree::Tree, role: &str, text: &str) -> Result<(), SqlError> {
    let verifier = match Verifier::parse(text) {
        Some(v) => v,
        None if text.starts_with(PREFIX) || text.starts_with("md5") => {
            return Err(SqlError::new(
                "22023",
                "the password is neither a SCRAM-SHA-256 verifier nor plain text folio accepts",
            ));
        }
        None => {
            let mut salt = [0u8; 16];
            rand::thread_rng().fill_bytes(&mut salt);
            Verifier::new(text, &salt, ITERATIONS)
        }
    };
    tree.upsert(role.as_bytes(), verifier.text().as_bytes())
        .map_err(btree)?;
    Ok(())
}

/// Sets (or with `None` removes) role `role`'s password; durable when it
/// returns.
pub fn set_password(db: &Database, role: &str, password: Option<&str>) -> Result<(), SqlError> {
    let options = Options {
        password: Some(password.map(str::to_string)),
        ..Options::default()
    };
    alter(db, role, &options)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the verifier matches RFC 7677's test vector (user "user",
    // password "pencil", its salt and 4096 iterations give the
    // ServerSignature the RFC shows) and survives its text form.
    #[test]
    fn rfc7677_vector_and_text_form() {
        let salt = BASE64.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let v = Verifier::new("pencil", &salt, 4096);
        let auth = "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        let signature = hmac(&v.server_key, auth.as_bytes());
        assert_eq!(
            BASE64.encode(signature),
            "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
        assert_eq!(Verifier::parse(&v.text()), Some(v));
        assert_eq!(Verifier::parse("SCRAM-SHA-256$0:AA==$AA==:AA=="), None);
    }
}
