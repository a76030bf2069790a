//! Where recovery's threads run (`RecoveryOptions::pin_threads`).
//!
//! Replay keeps one thread busy per apply partition, and the helper thread
//! (`helper.rs`) wakes every few microseconds to give readahead advice and
//! write pages. Left to the scheduler, the helper often runs on the reading
//! thread's CPU and preempts it, though another CPU is free or is running
//! only the helper's own kernel work. So, when the caller's thread may run
//! on at least two CPUs, recovery places its threads itself:
//!
//! - the reading thread (the caller's) gets the allowed CPU that has served
//!   the fewest device interrupts (`/proc/interrupts`; ties and an
//!   unreadable file: the CPU it is running on) — its *home*. A device
//!   whose interrupts all go to one CPU (this VM's virtio disk sends every
//!   completion to CPU 1) runs the block layer's completion work there,
//!   preempting whatever runs on it: cold replay at depth 128 ran at
//!   1.89-1.97M records/s with its reading thread on CPU 0 against
//!   1.48-1.67M on CPU 1 (three alternating runs each);
//! - apply thread i gets the i-th other allowed CPU (round robin when there
//!   are fewer CPUs than threads);
//! - the helper may run on every allowed CPU that no replaying thread was
//!   given, or, when there is none, on every allowed CPU but home.
//!
//! The caller's own affinity is restored when recovery ends (`Drop`).
//! Placement is best effort: a failed `sched_setaffinity` (a restricted
//! container) leaves that thread where the scheduler puts it.

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

/// CPUs for recovery's threads: a pure plan over the allowed CPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The reading thread's CPU.
    pub home: usize,
    /// CPU of apply thread 1, 2, … (index 0 is thread 1).
    pub apply: Vec<usize>,
    /// CPUs the helper thread may use.
    pub helper: Vec<usize>,
}

impl Plan {
    /// Plans for `spawned_apply` apply threads besides the reading thread,
    /// over `allowed` (ascending), the reading thread's home `current`.
    /// `None` with fewer than two allowed CPUs: there is nothing to place.
    pub(crate) fn new(allowed: &[usize], current: usize, spawned_apply: usize) -> Option<Plan> {
        if allowed.len() < 2 {
            return None;
        }
        let home_index = allowed.iter().position(|&cpu| cpu == current).unwrap_or(0);
        let home = allowed[home_index];
        // The other CPUs, starting after home, so that apply threads of
        // consecutive recoveries in one process land on the same CPUs.
        let others: Vec<usize> = (1..allowed.len())
            .map(|step| allowed[(home_index + step) % allowed.len()])
            .collect();
        let apply: Vec<usize> = (0..spawned_apply)
            .map(|i| others[i % others.len()])
            .collect();
        let free: Vec<usize> = others
            .iter()
            .copied()
            .filter(|cpu| !apply.contains(cpu))
            .collect();
        let helper = if free.is_empty() { others } else { free };
        Some(Plan {
            home,
            apply,
            helper,
        })
    }
}

/// A plan in force: the reading thread is pinned to its home until drop,
/// which restores the caller's affinity.
pub(crate) struct Placement {
    plan: Plan,
    caller: CpuSet,
}

impl Placement {
    /// Pins the calling (reading) thread to its home and returns the plan
    /// for the others; `None` when there is nothing to place or the
    /// kernel refuses.
    pub(crate) fn pin_reader(spawned_apply: usize) -> Option<Placement> {
        let caller = sched_getaffinity(None).ok()?;
        let allowed: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&cpu| caller.is_set(cpu))
            .collect();
        if allowed.len() < 2 {
            return None; // one CPU: nothing to place, no file to read
        }
        let interrupts = std::fs::read_to_string("/proc/interrupts")
            .map(|text| interrupts_per_cpu(&text))
            .unwrap_or_default();
        let home = quietest(&allowed, &interrupts, current_cpu());
        let plan = Plan::new(&allowed, home, spawned_apply)?;
        sched_setaffinity(None, &cpu_set(&[plan.home])).ok()?;
        Some(Placement { plan, caller })
    }

    /// Pins the calling thread as apply thread `index` (1-based).
    pub(crate) fn pin_apply(&self, index: usize) {
        if let Some(&cpu) = self.plan.apply.get(index - 1) {
            let _ = sched_setaffinity(None, &cpu_set(&[cpu]));
        }
    }

    /// Restricts the calling thread to the helper's CPUs.
    pub(crate) fn pin_helper(&self) {
        let _ = sched_setaffinity(None, &cpu_set(&self.plan.helper));
    }
}

impl Drop for Placement {
    fn drop(&mut self) {
        let _ = sched_setaffinity(None, &self.caller);
    }
}

/// Device interrupts served per CPU (index: CPU number) since boot: the
/// numbered lines of `/proc/interrupts` (the named ones — timer, IPIs —
/// are per-CPU housekeeping, not device work).
fn interrupts_per_cpu(text: &str) -> Vec<u64> {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let columns: Vec<usize> = header
        .split_whitespace()
        .filter_map(|name| name.strip_prefix("CPU")?.parse().ok())
        .collect();
    let mut counts = vec![0u64; columns.iter().max().map_or(0, |&max| max + 1)];
    for line in lines {
        let mut fields = line.split_whitespace();
        let Some(irq) = fields.next().and_then(|f| f.strip_suffix(':')) else {
            continue;
        };
        if irq.parse::<u64>().is_err() {
            continue;
        }
        for (&cpu, field) in columns.iter().zip(fields) {
            counts[cpu] += field.parse::<u64>().unwrap_or(0);
        }
    }
    counts
}

/// The allowed CPU with the fewest device interrupts; `current` when it
/// has as few as any (or nothing is known).
fn quietest(allowed: &[usize], interrupts: &[u64], current: usize) -> usize {
    let count = |cpu: usize| interrupts.get(cpu).copied().unwrap_or(0);
    let fewest = allowed.iter().copied().min_by_key(|&cpu| count(cpu));
    match fewest {
        Some(cpu) if !allowed.contains(&current) || count(cpu) < count(current) => cpu,
        _ => current,
    }
}

fn cpu_set(cpus: &[usize]) -> CpuSet {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu);
    }
    set
}

/// The CPU the calling thread runs on, through libc: rustix's
/// `sched_getcpu` reads the vDSO, which valgrind does not map (rustix
/// issue 1559), so `folio serve` could not run under callgrind.
fn current_cpu() -> usize {
    // SAFETY: sched_getcpu takes no arguments and touches no memory of
    // ours; it returns -1 on failure, mapped to CPU 0 below.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cpu_places_nothing() {
        assert_eq!(Plan::new(&[3], 3, 0), None);
        assert_eq!(Plan::new(&[], 0, 1), None);
    }

    #[test]
    fn two_cpus_one_replaying_thread_gives_the_helper_the_other() {
        let plan = Plan::new(&[0, 1], 1, 0).unwrap();
        assert_eq!(plan.home, 1);
        assert!(plan.apply.is_empty());
        assert_eq!(plan.helper, vec![0]);
    }

    #[test]
    fn two_cpus_two_replaying_threads_share_the_apply_cpu_with_the_helper() {
        let plan = Plan::new(&[0, 1], 0, 1).unwrap();
        assert_eq!((plan.home, plan.apply.clone()), (0, vec![1]));
        assert_eq!(plan.helper, vec![1]);
    }

    #[test]
    fn spare_cpus_go_to_the_helper() {
        let plan = Plan::new(&[0, 2, 4, 6, 8], 4, 2).unwrap();
        assert_eq!(plan.home, 4);
        assert_eq!(plan.apply, vec![6, 8]);
        assert_eq!(plan.helper, vec![0, 2]);
    }

    #[test]
    fn more_threads_than_cpus_go_round_robin() {
        let plan = Plan::new(&[0, 1, 2], 0, 4).unwrap();
        assert_eq!(plan.apply, vec![1, 2, 1, 2]);
        assert_eq!(plan.helper, vec![1, 2]);
    }

    #[test]
    fn a_current_cpu_outside_the_mask_takes_the_first_allowed() {
        let plan = Plan::new(&[2, 3], 7, 0).unwrap();
        assert_eq!((plan.home, plan.helper.clone()), (2, vec![3]));
    }

    const INTERRUPTS: &str = "           CPU0       CPU1       CPU2\n\
  28:          0          0          0  PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n\
  32:       4574          0         12  PCI-MSIX-0000:00:01.0   4-edge      virtio0-reporting_vq\n\
  36:          0   20447648          3  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n\
 NMI:          0          0          0   Non-maskable interrupts\n\
 LOC:   99999999   12345678   55555555   Local timer interrupts\n\
 ERR:          0\n";

    #[test]
    fn device_interrupts_are_counted_per_cpu() {
        assert_eq!(interrupts_per_cpu(INTERRUPTS), vec![4574, 20447648, 15]);
        assert_eq!(interrupts_per_cpu(""), Vec::<u64>::new());
    }

    #[test]
    fn home_is_the_cpu_with_the_fewest_device_interrupts() {
        let counts = interrupts_per_cpu(INTERRUPTS);
        assert_eq!(quietest(&[0, 1, 2], &counts, 1), 2);
        assert_eq!(quietest(&[0, 1], &counts, 1), 0);
        // Ties and unknown counts keep the current CPU.
        assert_eq!(quietest(&[0, 1], &[], 1), 1);
        assert_eq!(quietest(&[0, 1], &[7, 7], 1), 1);
        // A current CPU outside the mask is never chosen.
        assert_eq!(quietest(&[0, 1], &[], 5), 0);
    }

    #[test]
    fn placement_restores_the_callers_affinity() {
        let cpus = |set: CpuSet| -> Vec<usize> {
            (0..CpuSet::MAX_CPU)
                .filter(|&cpu| set.is_set(cpu))
                .collect()
        };
        let before = cpus(sched_getaffinity(None).unwrap());
        if let Some(placement) = Placement::pin_reader(1) {
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1);
            drop(placement);
        }
        assert_eq!(cpus(sched_getaffinity(None).unwrap()), before);
    }
}
