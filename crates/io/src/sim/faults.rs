//! The fault catalogue: which operation kinds exist, what can go wrong with
//! them, and the plan that says which operation gets which fault.

use std::collections::BTreeMap;

/// Kinds of operation a [`Fault`] can target. Each kind has its own counter:
/// the first `Sync` issued on the directory or any of its files is `Sync`
/// number 0, the next is number 1, and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// [`crate::File::read_at`].
    Read,
    /// [`crate::File::write_at`].
    Write,
    /// [`crate::File::sync`].
    Sync,
    /// [`crate::File::set_len`].
    SetLen,
    /// [`crate::Dir::open`].
    Open,
    /// [`crate::Dir::remove`].
    Remove,
    /// [`crate::Dir::rename`].
    Rename,
    /// [`crate::Dir::sync_dir`].
    SyncDir,
}

impl OpKind {
    /// Every kind, in counter-index order.
    pub const ALL: [OpKind; 8] = [
        OpKind::Read,
        OpKind::Write,
        OpKind::Sync,
        OpKind::SetLen,
        OpKind::Open,
        OpKind::Remove,
        OpKind::Rename,
        OpKind::SyncDir,
    ];

    /// This kind's slot in a per-kind counter array.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

const _: () = assert!(OpKind::ALL.len() == OpKind::SyncDir as usize + 1);

/// A fault to inject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Fail the operation with EIO; it has no effect. A failed `Sync` or
    /// `SyncDir` also forgets what it was asked to make durable (see
    /// [`crate::SimDir`]).
    Eio,
    /// Fail the operation with ENOSPC; it has no effect (same sync rule as
    /// [`Fault::Eio`]).
    Enospc,
    /// (Write) store the data with one bit flipped, chosen by the seed; the
    /// write reports success. (Read) return the data with one bit flipped;
    /// storage is unchanged.
    FlipBit,
    /// (Write) store the data at `offset + delta_bytes` instead of `offset`
    /// (clamped at 0) and report success; the intended location is untouched.
    /// (Read) read from the shifted offset.
    Misdirect { delta_bytes: i64 },
}

impl Fault {
    /// Data corruptions only make sense for operations that move data.
    fn applies_to(&self, kind: OpKind) -> bool {
        match self {
            Fault::Eio | Fault::Enospc => true,
            Fault::FlipBit | Fault::Misdirect { .. } => {
                matches!(kind, OpKind::Read | OpKind::Write)
            }
        }
    }
}

/// Which operations fail how. Each entry `(nth, kind, fault)` gives `fault`
/// to the `nth` operation of `kind` (counted from 0 per kind, across the
/// directory and all its files, in the order operations are issued). Each
/// fault fires once. At most one fault per `(nth, kind)`.
#[derive(Clone, Debug, Default)]
pub struct FaultPlan {
    pub faults: Vec<(u64, OpKind, Fault)>,
}

impl FaultPlan {
    /// A plan with no faults.
    pub fn new() -> FaultPlan {
        FaultPlan::default()
    }

    /// Adds `fault` for the `nth` operation of `kind`.
    pub fn with(mut self, nth: u64, kind: OpKind, fault: Fault) -> FaultPlan {
        self.faults.push((nth, kind, fault));
        self
    }
}

/// A corruption left for the operation to carry out after admission (the
/// failing faults are handled before the operation runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Corruption {
    FlipBit,
    Misdirect { delta_bytes: i64 },
}

/// The plan as the device consults it: pending faults keyed by
/// `(kind, nth)`, each removed when it fires.
#[derive(Debug, Default)]
pub(crate) struct PendingFaults {
    pending: BTreeMap<(OpKind, u64), Fault>,
}

impl PendingFaults {
    /// Loads `plan`. A plan is test configuration, not disk input: a fault
    /// that cannot apply to its kind, or two faults for one operation, is a
    /// bug in the test and panics with a message saying which.
    pub(crate) fn from_plan(plan: &FaultPlan) -> PendingFaults {
        let mut faults = PendingFaults::default();
        for (nth, kind, fault) in &plan.faults {
            faults.add(*nth, *kind, fault.clone());
        }
        faults
    }

    /// Adds one fault; panics on a misuse as [`PendingFaults::from_plan`].
    pub(crate) fn add(&mut self, nth: u64, kind: OpKind, fault: Fault) {
        assert!(
            fault.applies_to(kind),
            "fault {fault:?} cannot apply to {kind:?} operations"
        );
        let previous = self.pending.insert((kind, nth), fault);
        assert!(
            previous.is_none(),
            "two faults planned for {kind:?} number {nth}"
        );
    }

    /// Removes and returns the fault planned for the `nth` operation of `kind`.
    pub(crate) fn take(&mut self, kind: OpKind, nth: u64) -> Option<Fault> {
        self.pending.remove(&(kind, nth))
    }
}
