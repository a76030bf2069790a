//! Transaction ids and commit sequence numbers: 64-bit, never wrapping.

/// A transaction id, assigned at a transaction's first write. 64 bits:
/// at a million transactions a second the space lasts 584,000 years, so
/// ids never wrap and nothing is ever frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xid(pub u64);

impl Xid {
    /// No transaction.
    pub const INVALID: Xid = Xid(0);
    /// The transaction that created the database: always committed.
    pub const BOOTSTRAP: Xid = Xid(1);
    /// The first id an ordinary transaction gets.
    pub const FIRST_NORMAL: Xid = Xid(2);
}

/// A commit sequence number: commits are totally ordered by it, and a
/// snapshot is the latest one completed when it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Csn(pub u64);

impl Csn {
    /// Before any commit: what a snapshot of a new database sees (only the
    /// bootstrap transaction's work).
    pub const ZERO: Csn = Csn(0);
    /// The largest CSN a fate word can hold (62 bits).
    pub const MAX: Csn = Csn((1 << 62) - 1);
}

impl std::fmt::Display for Xid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "xid {}", self.0)
    }
}

impl std::fmt::Display for Csn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "csn {}", self.0)
    }
}
