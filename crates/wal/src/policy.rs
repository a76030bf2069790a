//! `wal_recycle = auto`: a running cost model of recycled versus freshly
//! created segments.
//!
//! A segment's cost is every nanosecond spent on it: preparing it (create +
//! fill/extend + fsync + rename + directory fsync, or the recycling rename),
//! and then writing and syncing its pages. On ext4/xfs a recycled segment
//! saves the allocation; on copy-on-write filesystems (or after its pages
//! left the OS cache) its writes become read-modify-write and cost more. The
//! model keeps an exponentially weighted mean per kind and, when an old
//! segment is retired, picks the kind it currently prefers. Robustness:
//! each kind gets [`MIN_SAMPLES`] samples before the means are trusted, and
//! the preference changes only when the other kind's mean is lower by more
//! than [`SWITCH_MARGIN`] (hysteresis), so two kinds that cost about the
//! same — where the means cross back and forth with the machine's noise —
//! do not make it flap. It explores: the other kind is tried again now and
//! then, so a changed environment is noticed. How often
//! depends on how much dearer it is: exploring costs the difference of the
//! means, and the interval is chosen so that this stays within
//! [`EXPLORE_BUDGET`] of the cheaper kind's cost (at least every
//! [`EXPLORE_EVERY_MIN`]-th and at most every [`EXPLORE_EVERY_MAX`]-th
//! decision). With kinds 2.7x apart that is one exploration in ~85
//! decisions, not one in 16, which alone would cost ~10% (seed 003's
//! ext4 figures: created 15 ms, recycled 5.5 ms).

/// How a segment came to exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// A retired segment renamed to a future name (stale bytes inside).
    Recycled,
    /// A newly created file.
    Created,
}

/// Samples each kind needs before the model trusts its mean.
pub const MIN_SAMPLES: u64 = 4;
/// The preference switches only when the other kind is cheaper by more
/// than this fraction of the preferred kind's mean.
pub const SWITCH_MARGIN: f64 = 0.10;
/// Exploration may cost at most this fraction of the cheaper kind's cost.
pub const EXPLORE_BUDGET: f64 = 0.02;
/// The most often the dearer kind is explored: one decision in this many.
pub const EXPLORE_EVERY_MIN: u64 = 16;
/// The least often the dearer kind is explored: one decision in this many.
pub const EXPLORE_EVERY_MAX: u64 = 1024;
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
    /// Decisions since the dearer kind was last explored.
    since_explore: u64,
    /// The kind preferred now (`None` until both are sampled).
    preferred: Option<SegmentKind>,
    /// Times the preference changed.
    switches: u64,
}

/// A snapshot of the model, for statistics and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostSnapshot {
    pub recycled_mean_ns: f64,
    pub recycled_samples: u64,
    pub created_mean_ns: f64,
    pub created_samples: u64,
    /// The kind the model prefers now (`None` while it is still sampling).
    pub preferred: Option<SegmentKind>,
    /// Times the preference changed.
    pub switches: u64,
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
        let preferred = self.update_preference();
        self.since_explore += 1;
        let recycle = preferred == SegmentKind::Recycled;
        if self.since_explore >= self.explore_interval() {
            self.since_explore = 0;
            !recycle
        } else {
            recycle
        }
    }

    /// The preferred kind, switched only past the margin (both kinds have
    /// their samples).
    fn update_preference(&mut self) -> SegmentKind {
        let (recycled, created) = (self.recycled.mean_ns, self.created.mean_ns);
        let next = match self.preferred {
            None if recycled <= created => SegmentKind::Recycled,
            None => SegmentKind::Created,
            Some(SegmentKind::Recycled) if created < recycled * (1.0 - SWITCH_MARGIN) => {
                SegmentKind::Created
            }
            Some(SegmentKind::Created) if recycled < created * (1.0 - SWITCH_MARGIN) => {
                SegmentKind::Recycled
            }
            Some(kind) => kind,
        };
        if self.preferred.is_some_and(|kind| kind != next) {
            self.switches += 1;
        }
        self.preferred = Some(next);
        next
    }

    /// Decisions between explorations of the dearer kind: the extra cost of
    /// one exploration spread over the interval stays within the budget.
    pub fn explore_interval(&self) -> u64 {
        let (a, b) = (self.recycled.mean_ns, self.created.mean_ns);
        let (cheap, dear) = (a.min(b), a.max(b));
        if cheap <= 0.0 {
            return EXPLORE_EVERY_MIN;
        }
        let interval = ((dear - cheap) / (EXPLORE_BUDGET * cheap)).ceil();
        (interval as u64).clamp(EXPLORE_EVERY_MIN, EXPLORE_EVERY_MAX)
    }

    pub fn snapshot(&self) -> CostSnapshot {
        CostSnapshot {
            recycled_mean_ns: self.recycled.mean_ns,
            recycled_samples: self.recycled.samples,
            created_mean_ns: self.created.mean_ns,
            created_samples: self.created.samples,
            preferred: self.preferred,
            switches: self.switches,
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
        for _ in 0..MIN_SAMPLES {
            assert!(m.prefer_recycle(), "recycled not sampled enough yet");
            m.record(SegmentKind::Recycled, 300);
        }
        for _ in 0..MIN_SAMPLES {
            assert!(!m.prefer_recycle(), "created not sampled enough yet");
            m.record(SegmentKind::Created, 100);
        }
        // Recycling costs 3x creating: one exploration costs 2 cheap
        // segments, so with a 2% budget it happens once per 100 decisions.
        assert_eq!(m.explore_interval(), 100);
        let recycles = (0..1000).filter(|_| m.prefer_recycle()).count();
        assert_eq!(recycles, 10);
        // The environment changes: recycling becomes cheap.
        for _ in 0..16 {
            m.record(SegmentKind::Recycled, 10);
        }
        let recycles = (0..64).filter(|_| m.prefer_recycle()).count();
        assert!(recycles >= 56, "{recycles}");
    }

    // Proves kinds that cost nearly the same are explored at the most
    // frequent rate and kinds far apart at the least frequent one.
    #[test]
    fn explore_interval_follows_the_cost_gap() {
        let mut m = CostModel::default();
        for _ in 0..MIN_SAMPLES {
            m.record(SegmentKind::Recycled, 100);
            m.record(SegmentKind::Created, 101);
        }
        assert_eq!(m.explore_interval(), EXPLORE_EVERY_MIN);
        for _ in 0..32 {
            m.record(SegmentKind::Created, 1_000_000);
        }
        assert_eq!(m.explore_interval(), EXPLORE_EVERY_MAX);
    }

    /// A deterministic noise factor in `1 ± amplitude`.
    fn noisy(i: u64, amplitude: f64) -> f64 {
        let x = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
        1.0 + amplitude * (2.0 * x - 1.0)
    }

    // Proves the hysteresis: two kinds that cost the same within +-15 %
    // noise per sample never switch the preference in 2,000 decisions (the
    // old rule followed every crossing of the means); a kind that becomes
    // clearly cheaper is adopted, with one switch, within a few samples.
    #[test]
    fn equal_costs_with_noise_do_not_flap_and_a_real_change_switches_once() {
        let mut m = CostModel::default();
        let mut i = 0u64;
        let mut sample = |m: &mut CostModel, recycle: bool, base: f64| {
            i += 1;
            let kind = if recycle {
                SegmentKind::Recycled
            } else {
                SegmentKind::Created
            };
            m.record(kind, (base * noisy(i, 0.15)) as u64);
        };
        for _ in 0..2_000 {
            let recycle = m.prefer_recycle();
            sample(&mut m, recycle, 1_000_000.0);
            // The kind not chosen is sampled now and then too (as the
            // segments prepared ahead and found at open are).
            sample(&mut m, !recycle, 1_000_000.0);
        }
        assert_eq!(m.snapshot().switches, 0, "{:?}", m.snapshot());
        let before = m.snapshot().preferred.expect("decided");
        // The other kind becomes 40 % cheaper.
        let cheaper = before == SegmentKind::Created;
        let mut decisions_to_switch = None;
        for n in 0..200 {
            let recycle = m.prefer_recycle();
            sample(
                &mut m,
                recycle,
                if recycle == cheaper {
                    600_000.0
                } else {
                    1_000_000.0
                },
            );
            sample(
                &mut m,
                !recycle,
                if recycle != cheaper {
                    600_000.0
                } else {
                    1_000_000.0
                },
            );
            if decisions_to_switch.is_none() && m.snapshot().preferred != Some(before) {
                decisions_to_switch = Some(n);
            }
        }
        assert_eq!(m.snapshot().switches, 1);
        assert!(
            decisions_to_switch.is_some_and(|n| n <= 8),
            "{decisions_to_switch:?}"
        );
    }
}
