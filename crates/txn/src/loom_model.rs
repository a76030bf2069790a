//! Loom model of the commit instant (`clock.rs`): the interleavings of two
//! committers and a reader that takes a snapshot and looks at both fates,
//! up to `PREEMPTIONS` preemptions (`LOOM_MAX_PREEMPTIONS` overrides it).
//!
//! The bound: every ordering mistake tried against this model is found
//! within 3 preemptions (a commit published before its fate is stored:
//! the reader's assertion, 4 s; the mark stored and read Relaxed instead
//! of Release/Acquire: the assertion, 3 s; `advance` passing a slot
//! without checking it is marked: loom's branch limit, the clock running
//! ahead of its commits), and the unbounded search took 290-400 s of CI
//! when the reader could not yet see any commit (below); bounded, the
//! model takes ~25 s.

use crate::clock::CommitClock;
use crate::fate::{Fate, XidFate};
use crate::ids::Csn;
use loom::sync::Arc;

/// Preemptions explored per execution (module comment).
const PREEMPTIONS: usize = 3;

// Proves on every interleaving within the bound: a snapshot sees a prefix of the commit
// order (never the transaction with CSN 2 without the one with CSN 1), sees
// every transaction whose CSN it covers, and a snapshot taken after both
// commits returned sees both.
#[test]
fn loom_snapshots_see_a_prefix_of_the_commit_order() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(PREEMPTIONS);
    }
    builder.check(|| {
        let clock = Arc::new(CommitClock::new(Csn::ZERO));
        let fates = Arc::new([XidFate::new(), XidFate::new()]);
        let committers: Vec<_> = (0..2)
            .map(|i| {
                let (clock, fates) = (clock.clone(), fates.clone());
                loom::thread::spawn(move || clock.commit(&fates[i]))
            })
            .collect();
        // The reader runs on a thread of its own. Until session 23 it ran
        // on the model's main thread right after the spawns, and loom
        // never ran a committer ahead of it there: in all 12,237
        // executions it saw snapshot 0, so the model checked nothing
        // (a commit published before its fate passed it).
        let reader = {
            let (clock, fates) = (clock.clone(), fates.clone());
            loom::thread::spawn(move || {
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
                snapshot
            })
        };
        let csns: Vec<Csn> = committers.into_iter().map(|h| h.join().unwrap()).collect();
        reader.join().unwrap();
        let after = clock.snapshot();
        for (fate, csn) in fates.iter().zip(csns) {
            assert_eq!(fate.load(), Fate::Committed(csn));
            assert!(after.sees(fate.load()));
        }
    });
}
