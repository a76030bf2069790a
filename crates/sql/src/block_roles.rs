//! The role a transaction block gives back: `SET ROLE` and `SET LOCAL
//! ROLE` in a block follow the rules of any other setting (PostgreSQL
//! keeps `role` among its settings). A ROLLBACK brings back the role the
//! block began with; a COMMIT keeps the last `SET ROLE`, or the role
//! before the block's `SET LOCAL ROLE`s; a `ROLLBACK TO` a savepoint
//! brings back the role, and this state, as they were when it was made.
//! `SET [LOCAL] SESSION AUTHORIZATION` is kept the same way: what is
//! given back is the pair of the session user and the current role.
//! A block without a SET ROLE pays nothing.

use crate::roles::Role;

/// The session user and the current role, as a block gives them back.
#[derive(Clone)]
pub(crate) struct Roles {
    pub(crate) session: Role,
    pub(crate) current: Role,
    /// Whether a SET ROLE named the current role (the `role` setting
    /// shows it; else `none`).
    pub(crate) chosen: bool,
}

impl Roles {
    /// Whether both are the same roles as `other`'s.
    pub(crate) fn same(&self, other: &Roles) -> bool {
        self.session.oid == other.session.oid
            && self.current.oid == other.current.oid
            && self.chosen == other.chosen
    }
}

/// What the open block must give back (empty outside one and in a
/// block without a SET ROLE).
#[derive(Clone, Default)]
pub(crate) struct BlockRoles {
    /// The role when the block began, kept by its first SET ROLE.
    at_begin: Option<Roles>,
    /// The role a COMMIT keeps while a SET LOCAL ROLE is in force.
    at_commit: Option<Roles>,
}

/// What a savepoint keeps: the role and the block's state when it was
/// made, if a SET ROLE had been run in the block by then.
pub(crate) type AtSavepoint = Option<(Roles, BlockRoles)>;

impl BlockRoles {
    /// A SET ROLE in a block is about to change the role from `current`
    /// to `new` (`local`: SET LOCAL ROLE).
    pub(crate) fn set(&mut self, current: &Roles, new: &Roles, local: bool) {
        if self.at_begin.is_none() {
            self.at_begin = Some(current.clone());
        }
        if local {
            if self.at_commit.is_none() {
                self.at_commit = Some(current.clone());
            }
        } else if self.at_commit.is_some() {
            self.at_commit = Some(new.clone());
        }
    }

    /// The block ended: the role to become, if it is not the current one.
    pub(crate) fn end(&mut self, committed: bool) -> Option<Roles> {
        let roles = std::mem::take(self);
        if committed {
            roles.at_commit
        } else {
            roles.at_begin
        }
    }

    /// What a savepoint made now keeps (`current`: the roles now, asked
    /// only in a block that has set one).
    pub(crate) fn at_savepoint(&self, current: impl FnOnce() -> Roles) -> AtSavepoint {
        self.at_begin.as_ref().map(|_| (current(), self.clone()))
    }

    /// `ROLLBACK TO` a savepoint that kept `kept`: the role to become.
    /// A savepoint made before any SET ROLE returns to the block's first
    /// role, with nothing left to give back.
    pub(crate) fn rollback_to(&mut self, kept: &AtSavepoint) -> Option<Roles> {
        match kept {
            Some((role, roles)) => {
                *self = roles.clone();
                Some(role.clone())
            }
            None => std::mem::take(self).at_begin,
        }
    }
}
