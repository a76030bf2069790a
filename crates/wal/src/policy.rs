//! `wal_recycle = auto`: a running cost model of recycled versus freshly
//! created segments.
//!
//! A segment's cost is every nanosecond spent on it: preparing it (create +
//! fill/extend + fsync + rename + directory fsync, or the recycling rename),
//! and then writing and syncing its pages. On ext4/xfs a recycled segment
//! saves the allocation; on copy-on-write filesystems (or after its pages
//! left the OS cache) its writes become read-modify-write and cost more. The
//! model keeps an exponentially weighted mean per kind and, when an old
//! segment is retired, picks the kind with the lower mean. It explores: each
//! kind gets [`MIN_SAMPLES`] samples first, and every [`EXPLORE_EVERY`]-th
//! decision tries the other kind, so a changed environment is noticed.

/// How a segment came to exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// A retired segment renamed to a future name (stale bytes inside).
    Recycled,
    /// A newly created file.
    Created,
}

/// Samples each kind needs before the model trusts its mean.
pub const MIN_SAMPLES: u64 = 2;
/// One decision in this many explores the currently more expensive kind.
pub const EXPLORE_EVERY: u64 = 16;
/// Weight of a new sample in the running mean.
const EMA_WEIGHT: f64 = 0.25;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Ema {
    mean_ns: f64,
    samples: u64,
}

impl Ema {
    fn add(&mut self, ns: f64) {
        self.mean_ns = if self.samples == 0 {
            ns
        } else {
            self.mean_ns + EMA_WEIGHT * (ns - self.mean_ns)
        };
        self.samples += 1;
    }
}

/// The running costs and the decision rule.
#[derive(Clone, Debug, Default)]
pub struct CostModel {
    recycled: Ema,
    created: Ema,
    decisions: u64,
}

/// A snapshot of the model, for statistics and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostSnapshot {
    pub recycled_mean_ns: f64,
    pub recycled_samples: u64,
    pub created_mean_ns: f64,
    pub created_samples: u64,
}

impl CostModel {
    /// Adds the full cost of one finished segment.
    pub fn record(&mut self, kind: SegmentKind, cost_ns: u64) {
        match kind {
            SegmentKind::Recycled => self.recycled.add(cost_ns as f64),
            SegmentKind::Created => self.created.add(cost_ns as f64),
        }
    }

    /// Whether the next retired segment should be recycled.
    pub fn prefer_recycle(&mut self) -> bool {
        self.decisions += 1;
        if self.recycled.samples < MIN_SAMPLES {
            return true;
        }
        if self.created.samples < MIN_SAMPLES {
            return false;
        }
        let cheaper_recycle = self.recycled.mean_ns <= self.created.mean_ns;
        if self.decisions.is_multiple_of(EXPLORE_EVERY) {
            !cheaper_recycle
        } else {
            cheaper_recycle
        }
    }

    pub fn snapshot(&self) -> CostSnapshot {
        CostSnapshot {
            recycled_mean_ns: self.recycled.mean_ns,
            recycled_samples: self.recycled.samples,
            created_mean_ns: self.created.mean_ns,
            created_samples: self.created.samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves auto explores both kinds, then mostly picks the cheaper one and
    // still re-tests the other one periodically.
    #[test]
    fn auto_picks_cheaper_after_exploring() {
        let mut m = CostModel::default();
        assert!(m.prefer_recycle());
        m.record(SegmentKind::Recycled, 300);
        m.record(SegmentKind::Recycled, 300);
        assert!(!m.prefer_recycle(), "created not sampled yet");
        m.record(SegmentKind::Created, 100);
        m.record(SegmentKind::Created, 100);
        let picks: Vec<bool> = (0..64).map(|_| m.prefer_recycle()).collect();
        let recycles = picks.iter().filter(|&&r| r).count();
        assert!(
            recycles >= 1 && recycles <= 64 / EXPLORE_EVERY as usize + 1,
            "{recycles}"
        );
        // The environment changes: recycling becomes cheap.
        for _ in 0..16 {
            m.record(SegmentKind::Recycled, 10);
        }
        let recycles = (0..64).filter(|_| m.prefer_recycle()).count();
        assert!(recycles >= 56, "{recycles}");
    }
}
