//! Loom model of the commit instant (`clock.rs`): every interleaving of two
//! committers and a reader that takes a snapshot and looks at both fates.

use crate::clock::CommitClock;
use crate::fate::{Fate, XidFate};
use crate::ids::Csn;
use loom::sync::Arc;

// Proves on every interleaving: a snapshot sees a prefix of the commit
// order (never the transaction with CSN 2 without the one with CSN 1), sees
// every transaction whose CSN it covers, and a snapshot taken after both
// commits returned sees both.
#[test]
fn loom_snapshots_see_a_prefix_of_the_commit_order() {
    loom::model(|| {
        let clock = Arc::new(CommitClock::new(Csn::ZERO));
        let fates = Arc::new([XidFate::new(), XidFate::new()]);
        let committers: Vec<_> = (0..2)
            .map(|i| {
                let (clock, fates) = (clock.clone(), fates.clone());
                loom::thread::spawn(move || clock.commit(&fates[i]))
            })
            .collect();
        let snapshot = clock.snapshot();
        let seen: Vec<Option<Csn>> = fates
            .iter()
            .map(|f| match f.load() {
                Fate::Committed(csn) if snapshot.sees(Fate::Committed(csn)) => Some(csn),
                _ => None,
            })
            .collect();
        let mut visible: Vec<Csn> = seen.iter().flatten().copied().collect();
        visible.sort();
        let expected: Vec<Csn> = (1..=snapshot.0.0).map(Csn).collect();
        assert_eq!(visible, expected, "snapshot {snapshot:?}");
        let csns: Vec<Csn> = committers.into_iter().map(|h| h.join().unwrap()).collect();
        let after = clock.snapshot();
        for (fate, csn) in fates.iter().zip(csns) {
            assert_eq!(fate.load(), Fate::Committed(csn));
            assert!(after.sees(fate.load()));
        }
    });
}
