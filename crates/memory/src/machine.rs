//! The memory this process may have: the machine's (`/proc/meminfo`'s
//! `MemTotal`), or its control group's limit (cgroup v2
//! `/sys/fs/cgroup/memory.max`) when that is smaller, as in a container.

use std::sync::OnceLock;

/// The smaller of the machine's memory and the cgroup's limit, in bytes
/// (`None` where neither can be read); read once.
pub fn machine_bytes() -> Option<u64> {
    static BYTES: OnceLock<Option<u64>> = OnceLock::new();
    *BYTES.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_total_bytes(&text));
        let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok());
        match (total, cgroup) {
            (Some(total), Some(cgroup)) => Some(total.min(cgroup)),
            (total, cgroup) => total.or(cgroup),
        }
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes (it is given in kB).
fn mem_total_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb = line["MemTotal:".len()..].trim().strip_suffix("kB")?;
    kb.trim().parse::<u64>().ok()?.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves that `MemTotal` is read in kB, and that this machine's
    /// memory is known and plausible.
    #[test]
    fn reads_mem_total() {
        let text = "MemTotal:       16303380 kB\nMemFree:         1 kB\n";
        assert_eq!(mem_total_bytes(text), Some(16303380 * 1024));
        assert_eq!(mem_total_bytes("MemFree: 1 kB\n"), None);
        let bytes = machine_bytes().expect("Linux tells its memory");
        assert!(bytes > 64 << 20, "{bytes}");
    }
}
