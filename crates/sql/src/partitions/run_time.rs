//! Run-time pruning (README "Partitioned tables"): a plan made once for
//! every execution (a prepared statement's) keeps the partitions its
//! constant conditions leave, and each execution, when it starts, runs
//! only those its parameters leave: PostgreSQL's initial pruning, whose
//! EXPLAIN shows `Subplans Removed: N`.

use super::tree::{Condition, Tree};
use crate::scalar::Env;

/// The pruning an Append (a query's partitions, or an UPDATE / DELETE's)
/// does when an execution starts.
#[derive(Debug, Clone)]
pub struct AtStart {
    tree: Tree,
    conditions: Vec<Condition>,
    /// The plan's branches: each one's partition (its position in the
    /// tree).
    parts: Vec<usize>,
}

impl AtStart {
    /// The pruning of a plan whose branches read partitions `parts` of
    /// `tree`, under `conditions` (`Tree::conditions`); `None` when no
    /// condition waits for an execution's values (planning pruned all it
    /// could) or fewer than two branches are left.
    pub fn of(tree: &Tree, conditions: Vec<Condition>, parts: &[usize]) -> Option<AtStart> {
        if parts.len() < 2 || !conditions.iter().any(Condition::at_start) {
            return None;
        }
        Some(AtStart {
            tree: tree.clone(),
            conditions,
            parts: parts.to_vec(),
        })
    }

    /// The branches (positions in the plan's list, ascending) an
    /// execution with `env`'s parameters runs: those whose partition
    /// `Tree::keep` leaves under every condition's test.
    pub fn branches(&self, env: &Env<'_>) -> Vec<usize> {
        let tests: Vec<_> = (self.conditions.iter())
            .filter_map(|c| {
                let ty = self.tree.key.types[c.column()];
                Some((c.column(), c.test(ty, Some(env))?))
            })
            .collect();
        let kept = self.tree.keep(&tests);
        (self.parts.iter().enumerate())
            .filter(|(_, part)| kept.contains(part))
            .map(|(n, _)| n)
            .collect()
    }

    /// The partitions' names, by branch.
    pub fn part_name(&self, branch: usize) -> &str {
        &self.tree.parts[self.parts[branch]].name
    }
}
