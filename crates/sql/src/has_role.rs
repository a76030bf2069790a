//! `pg_has_role([user,] role, privilege)`: whether `user` (by default
//! the current role) has `privilege` on `role`, as PostgreSQL 15 decides
//! it. folio has no role membership (`GRANT role TO role` is refused), so
//! a role is a member of itself alone: `MEMBER` and `USAGE` hold for the
//! role itself and for a superuser; `MEMBER WITH ADMIN OPTION` (and
//! PostgreSQL's other spellings of it) for a superuser, and for the role
//! itself only when it is the session's user (PostgreSQL 15's rule: a
//! role that behaves as a user may administer itself).
//!
//! `privilege` is a comma-separated list, any of which may hold; each is
//! matched whatever its case, blanks around it ignored (22023 for
//! another word, named as written). A role given by name must exist
//! (42704); one given by oid need not (it is no superuser and no other
//! role). PostgreSQL's predefined roles (`pg_monitor`, ...) do not exist
//! in folio.

use crate::error::SqlError;
use crate::roles;

/// What a privilege asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Member,
    Usage,
    Admin,
}

const PRIVILEGES: [(&str, Asked); 6] = [
    ("MEMBER", Asked::Member),
    ("USAGE", Asked::Usage),
    ("MEMBER WITH ADMIN OPTION", Asked::Admin),
    ("MEMBER WITH GRANT OPTION", Asked::Admin),
    ("USAGE WITH ADMIN OPTION", Asked::Admin),
    ("USAGE WITH GRANT OPTION", Asked::Admin),
];

/// A role argument: a name or an oid.
#[derive(Debug, Clone)]
pub enum RoleArg {
    Name(String),
    Oid(i64),
}

/// The privileges of a list (PostgreSQL's `convert_any_priv_string`).
fn asked(list: &str) -> Result<Vec<Asked>, SqlError> {
    list.split(',')
        .map(|chunk| {
            let chunk = chunk.trim_matches(|c: char| c.is_ascii_whitespace());
            PRIVILEGES
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(chunk))
                .map(|(_, asked)| *asked)
                .ok_or_else(|| {
                    SqlError::new("22023", format!("unrecognized privilege type: \"{chunk}\""))
                })
        })
        .collect()
}

/// A role's oid and whether it is a superuser.
fn resolve(db: &folio_db::Database, role: &RoleArg) -> Result<(i64, bool), SqlError> {
    Ok(match role {
        RoleArg::Name(name) => {
            let role = roles::get(db, name)?.ok_or_else(|| roles::undefined(name))?;
            (i64::from(role.oid), role.superuser)
        }
        RoleArg::Oid(oid) => {
            let found = match u32::try_from(*oid) {
                Ok(oid) => roles::by_oid(db, oid)?,
                Err(_) => None,
            };
            (*oid, found.is_some_and(|r| r.superuser))
        }
    })
}

/// `pg_has_role(user, role, privileges)`; `user` `None`: the current
/// role.
pub fn has_role(user: Option<RoleArg>, role: RoleArg, privileges: &str) -> Result<bool, SqlError> {
    let user = user.unwrap_or_else(|| RoleArg::Name(roles::current_name()));
    let Some(db) = roles::scoped_database() else {
        return Ok(true);
    };
    let (user_oid, superuser) = resolve(&db, &user)?;
    let (role_oid, _) = resolve(&db, &role)?;
    let asked = asked(privileges)?;
    let session = roles::get(&db, &roles::session_name())?.map(|r| i64::from(r.oid));
    Ok(asked.iter().any(|asked| match asked {
        Asked::Member | Asked::Usage => superuser || user_oid == role_oid,
        Asked::Admin => superuser || (user_oid == role_oid && session == Some(user_oid)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    // PostgreSQL's privilege words, and its error for another.
    #[test]
    fn reads_privilege_lists() {
        assert_eq!(
            asked(" usage , Member with ADMIN option").unwrap(),
            vec![Asked::Usage, Asked::Admin]
        );
        let e = asked("member  with admin option").unwrap_err();
        assert_eq!(
            e.message,
            "unrecognized privilege type: \"member  with admin option\""
        );
    }
}
