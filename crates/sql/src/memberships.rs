//! Role membership, PostgreSQL 15's `pg_auth_members`: which roles are
//! members of which, who granted it, and whether with ADMIN OPTION
//! (design: README "Roles and privileges"). Kept in `folio.authid` beside
//! the roles, changed outside transactions as they are:
//!
//! | key | value |
//! |---|---|
//! | `\0m` + role oid (4, BE) + member oid (4, BE) | grantor oid (4, LE), admin option (1: 0 or 1) |
//!
//! The three questions PostgreSQL asks of membership are answered here
//! and nowhere else ([`Graph`]):
//! - **privileges of** (`has_privs_of_role`): a role holds the privileges
//!   of the roles it is a member of, directly or through others, but only
//!   through roles that INHERIT (a NOINHERIT role uses only its own);
//!   ACL checks, ownership, row-level security's `TO` lists and
//!   `pg_has_role(..., 'USAGE')` ask it.
//! - **member of** (`is_member_of_role`): membership however reached,
//!   INHERIT or not; `SET ROLE` and `pg_has_role(..., 'MEMBER')` ask it.
//! - **admin of** (`is_admin_of_role`): some role in the member's
//!   closure holds the role WITH ADMIN OPTION; a role never administers
//!   itself (PostgreSQL 15.18: not even as the session user).
//!
//! A superuser passes all three. A membership loop (a role a member of
//! itself, directly or not) is never stored: [`Graph::grant`] refuses
//! it (0LP01).

use crate::error::SqlError;
use crate::privileges::btree;
use crate::roles::{self, Role};
use folio_db::Database;
use std::collections::HashMap;

const MEMBERSHIP_KEY: &[u8] = b"\0m";

/// One row of `pg_auth_members`: `member` is a member of `role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    pub role: u32,
    pub member: u32,
    pub grantor: u32,
    pub admin: bool,
}

fn key(role: u32, member: u32) -> Vec<u8> {
    let mut key = MEMBERSHIP_KEY.to_vec();
    key.extend_from_slice(&role.to_be_bytes());
    key.extend_from_slice(&member.to_be_bytes());
    key
}

fn corrupt() -> SqlError {
    SqlError::new("XX001", "a stored role membership is corrupt")
}

fn decode(key: &[u8], value: &[u8]) -> Result<Membership, SqlError> {
    let oid = |b: &[u8]| -> Result<[u8; 4], SqlError> { b.try_into().map_err(|_| corrupt()) };
    let key = &key[MEMBERSHIP_KEY.len()..];
    if key.len() != 8 || value.len() != 5 || value[4] > 1 {
        return Err(corrupt());
    }
    Ok(Membership {
        role: u32::from_be_bytes(oid(&key[..4])?),
        member: u32::from_be_bytes(oid(&key[4..])?),
        grantor: u32::from_le_bytes(oid(&value[..4])?),
        admin: value[4] == 1,
    })
}

/// The memberships PostgreSQL 15's `initdb` makes: `pg_monitor` is a
/// member of `pg_read_all_settings`, `pg_read_all_stats` and
/// `pg_stat_scan_tables`, granted by `postgres`. Never stored: every
/// read has them (a REVOKE of one changes nothing lasting).
const BUILTIN: [Membership; 3] = [
    builtin(3374, roles::MONITOR_OID),
    builtin(3375, roles::MONITOR_OID),
    builtin(3377, roles::MONITOR_OID),
];

const fn builtin(role: u32, member: u32) -> Membership {
    Membership {
        role,
        member,
        grantor: roles::SUPERUSER_OID,
        admin: false,
    }
}

/// Every membership: the built-in ones, then the stored ones by role
/// then member.
pub fn all(db: &Database) -> Result<Vec<Membership>, SqlError> {
    let mut out = BUILTIN.to_vec();
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(out);
    };
    for entry in tree.scan_prefix(MEMBERSHIP_KEY, folio_btree::Direction::Forward) {
        let (k, v) = entry.map_err(btree)?;
        out.push(decode(&k, &v)?);
    }
    Ok(out)
}

/// The memberships and the roles, read once for a decision or a change.
#[derive(Debug, Clone)]
pub struct Graph {
    pub rows: Vec<Membership>,
    roles: HashMap<u32, Role>,
    /// The rows as read, to write back only what changed.
    before: Vec<Membership>,
}

impl Graph {
    /// Reads the memberships and roles of `db`.
    pub fn load(db: &Database) -> Result<Graph, SqlError> {
        Graph::with_rows(db, all(db)?)
    }

    fn with_rows(db: &Database, rows: Vec<Membership>) -> Result<Graph, SqlError> {
        Ok(Graph {
            before: rows.clone(),
            rows,
            roles: roles::all(db)?.into_iter().map(|r| (r.oid, r)).collect(),
        })
    }

    fn superuser(&self, role: u32) -> bool {
        role == roles::SUPERUSER_OID || self.roles.get(&role).is_some_and(|r| r.superuser)
    }

    /// `member` and the roles it is a member of, directly or not, itself
    /// first; through a role only when `through` holds for it
    /// (PostgreSQL's `roles_is_member_of`). The database's owner
    /// (`postgres`: folio's databases have no other) is a member of
    /// `pg_database_owner` without a row, as PostgreSQL makes it.
    fn closure(&self, member: u32, through: impl Fn(u32) -> bool) -> Vec<u32> {
        let mut out = vec![member];
        let mut at = 0;
        while let Some(&next) = out.get(at) {
            at += 1;
            if !through(next) {
                continue;
            }
            if next == roles::SUPERUSER_OID && !out.contains(&roles::DATABASE_OWNER_OID) {
                out.push(roles::DATABASE_OWNER_OID);
            }
            for row in self.rows.iter().filter(|r| r.member == next) {
                if !out.contains(&row.role) {
                    out.push(row.role);
                }
            }
        }
        out
    }

    /// The roles whose privileges `member` holds: itself, and the roles
    /// it reaches through roles that INHERIT (a role dropped since is
    /// taken as inheriting).
    pub fn privileges_of(&self, member: u32) -> Vec<u32> {
        self.closure(member, |r| self.roles.get(&r).is_none_or(|r| r.inherit))
    }

    /// Whether `member` holds `role`'s privileges (PostgreSQL's
    /// `has_privs_of_role`).
    pub fn has_privileges_of(&self, member: u32, role: u32) -> bool {
        self.superuser(member) || self.privileges_of(member).contains(&role)
    }

    /// Whether `member` is a member of `role` however reached
    /// (`is_member_of_role`; `superuser`: a superuser is a member of
    /// everything, PostgreSQL's `_nosuper` variant when false).
    pub fn is_member_of(&self, member: u32, role: u32, superuser: bool) -> bool {
        (superuser && self.superuser(member)) || self.closure(member, |_| true).contains(&role)
    }

    /// Whether `member` may grant and revoke membership in `role`
    /// (`is_admin_of_role`).
    pub fn is_admin_of(&self, member: u32, role: u32) -> bool {
        if self.superuser(member) {
            return true;
        }
        if member == role {
            return false;
        }
        let closure = self.closure(member, |_| true);
        self.rows
            .iter()
            .any(|r| r.role == role && r.admin && closure.contains(&r.member))
    }

    /// Makes `member` a member of `role` (`admin`: WITH ADMIN OPTION) as
    /// granted by `grantor`: 0LP01 for a loop; `false` (PostgreSQL's
    /// NOTICE) when it already is, unless this adds the admin option.
    pub fn grant(
        &mut self,
        role: &Role,
        member: &Role,
        grantor: u32,
        admin: bool,
    ) -> Result<bool, SqlError> {
        // (PostgreSQL 15 gives these no SQLSTATE, so XX000: its
        // membership is the database owner's alone.)
        if role.oid == roles::DATABASE_OWNER_OID {
            return Err(SqlError::new(
                "XX000",
                format!("role \"{}\" cannot have explicit members", role.name),
            ));
        }
        if member.oid == roles::DATABASE_OWNER_OID {
            return Err(SqlError::new(
                "XX000",
                format!("role \"{}\" cannot be a member of any role", member.name),
            ));
        }
        if self.is_member_of(role.oid, member.oid, false) {
            return Err(SqlError::new(
                "0LP01",
                format!(
                    "role \"{}\" is a member of role \"{}\"",
                    role.name, member.name
                ),
            ));
        }
        let row = Membership {
            role: role.oid,
            member: member.oid,
            grantor,
            admin,
        };
        match self
            .rows
            .iter_mut()
            .find(|r| r.role == role.oid && r.member == member.oid)
        {
            Some(found) if !admin || found.admin => Ok(false),
            Some(found) => {
                *found = row;
                Ok(true)
            }
            None => {
                self.rows.push(row);
                Ok(true)
            }
        }
    }

    /// Ends `member`'s membership in `role` (`admin`: only its admin
    /// option); `false` (PostgreSQL's WARNING) when it is not one.
    pub fn revoke(&mut self, role: u32, member: u32, admin: bool) -> bool {
        let Some(at) = (self.rows.iter()).position(|r| r.role == role && r.member == member) else {
            return false;
        };
        match admin {
            true => self.rows[at].admin = false,
            false => {
                self.rows.remove(at);
            }
        }
        true
    }

    /// Forgets every membership of or in role `role` (DROP ROLE).
    pub fn forget(&mut self, role: u32) {
        self.rows.retain(|r| r.role != role && r.member != role);
    }

    /// Writes what changed since [`Graph::load`] and commits (the caller
    /// holds [`roles::ROLE_DDL`]).
    pub fn store(&self, db: &Database) -> Result<(), SqlError> {
        if self.rows == self.before {
            return Ok(());
        }
        let tree = roles::tree_for_writing(db)?;
        for old in &self.before {
            if !self
                .rows
                .iter()
                .any(|r| r.role == old.role && r.member == old.member)
            {
                tree.delete(&key(old.role, old.member)).map_err(btree)?;
            }
        }
        for row in self.rows.iter().filter(|r| !self.before.contains(r)) {
            let mut value = row.grantor.to_le_bytes().to_vec();
            value.push(u8::from(row.admin));
            tree.upsert(&key(row.role, row.member), &value)
                .map_err(btree)?;
        }
        db.commit()?;
        Ok(())
    }
}

/// The roles whose privileges role `member` holds (itself first).
pub fn privileges_of(db: &Database, member: u32) -> Result<Vec<u32>, SqlError> {
    let rows = all(db)?;
    if rows.is_empty() {
        return Ok(vec![member]);
    }
    Ok(Graph::with_rows(db, rows)?.privileges_of(member))
}

/// Whether role `member` holds role `role`'s privileges.
pub fn has_privileges_of(db: &Database, member: u32, role: u32) -> Result<bool, SqlError> {
    if member == role {
        return Ok(true);
    }
    Ok(Graph::load(db)?.has_privileges_of(member, role))
}

/// `pg_auth_members`' rows (the running statement's database).
pub fn catalog_rows(out: &mut Vec<Vec<folio_row::Value>>) -> Result<(), SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(());
    };
    let oid = |o: u32| folio_row::Value::Oid(o);
    for m in all(&db)? {
        out.push(vec![
            oid(m.role),
            oid(m.member),
            oid(m.grantor),
            folio_row::Value::Bool(m.admin),
        ]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(oid: u32, name: &str, inherit: bool) -> Role {
        Role {
            oid,
            name: name.into(),
            login: false,
            superuser: false,
            createdb: false,
            createrole: false,
            bypassrls: false,
            inherit,
        }
    }

    // Proves the three closures: privileges stop at a NOINHERIT role,
    // membership does not; admin comes through the member's closure but
    // never to the role itself; a loop is refused and a duplicate grant
    // reported.
    #[test]
    fn closures_loops_and_admin() {
        let (a, b, c, d) = (
            role(1, "a", true),
            role(2, "b", false),
            role(3, "c", true),
            role(4, "d", true),
        );
        let mut g = Graph {
            rows: Vec::new(),
            roles: [&a, &b, &c, &d]
                .iter()
                .map(|r| (r.oid, (*r).clone()))
                .collect(),
            before: Vec::new(),
        };
        // d -> c -> b(noinherit) -> a, admin on a held by b.
        assert!(g.grant(&a, &b, 10, true).unwrap());
        assert!(g.grant(&b, &c, 10, false).unwrap());
        assert!(g.grant(&c, &d, 10, false).unwrap());
        assert_eq!(g.privileges_of(4), [4, 3, 2]);
        assert!(!g.has_privileges_of(4, 1));
        assert!(g.is_member_of(4, 1, false));
        assert!(g.is_admin_of(4, 1));
        assert!(!g.is_admin_of(1, 1));
        let e = g.grant(&d, &a, 10, false).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("0LP01", "role \"d\" is a member of role \"a\"")
        );
        assert!(g.grant(&a, &a, 10, false).is_err());
        assert!(!g.grant(&b, &c, 10, false).unwrap());
        assert!(g.revoke(1, 2, true));
        assert!(!g.is_admin_of(4, 1));
        g.forget(3);
        assert!(!g.is_member_of(4, 1, false));
        let row = g.rows[0];
        let mut value = row.grantor.to_le_bytes().to_vec();
        value.push(u8::from(row.admin));
        assert_eq!(decode(&key(row.role, row.member), &value).unwrap(), row);
    }
}
