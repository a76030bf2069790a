//! The data every engine is given, and the checks on what it gives back.
//!
//! Key `i` is `i` as 8 big-endian bytes, so byte order is numeric order and
//! the bulk load is in key order. Its value is 100 pseudo-random bytes
//! derived from `i` alone (splitmix64), so any reader can recompute and
//! compare it, and no engine gains from compressing a repetitive pattern.

use anyhow::{Result, bail, ensure};

/// Bytes in a key.
pub const KEY_LEN: usize = 8;
/// Bytes in a value.
pub const VALUE_LEN: usize = 100;

/// Keys written by the commit workloads start here, far above any loaded
/// key, so commits never change the loaded data that reads and scans check.
pub const COMMIT_KEY_BASE: u64 = 1 << 40;

/// The key with index `index`.
pub fn key(index: u64) -> [u8; KEY_LEN] {
    index.to_be_bytes()
}

/// The index a key encodes, or `None` if it is not a key of ours.
pub fn index_of(key: &[u8]) -> Option<u64> {
    let bytes: [u8; KEY_LEN] = key.try_into().ok()?;
    Some(u64::from_be_bytes(bytes))
}

/// The value stored under key `index`.
pub fn value(index: u64) -> [u8; VALUE_LEN] {
    let mut out = [0u8; VALUE_LEN];
    let mut state = index ^ 0x6a09_e667_f3bc_c909;
    for chunk in out.chunks_mut(8) {
        let word = splitmix64(&mut state).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    out
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Checks that `got` is the value of key `index`.
pub fn check_value(engine: &str, index: u64, got: &[u8]) -> Result<()> {
    if got != value(index) {
        bail!(
            "{engine}: key {index} returned a wrong value ({} bytes)",
            got.len()
        );
    }
    Ok(())
}

/// Checks one full scan as it streams: every loaded key exactly once, in
/// the scan's order, each with its own value.
#[derive(Debug)]
pub struct ScanCheck {
    engine: &'static str,
    keys: u64,
    forward: bool,
    seen: u64,
}

impl ScanCheck {
    /// A check for a forward (`forward = true`) or backward scan of `keys` keys.
    pub fn new(engine: &'static str, keys: u64, forward: bool) -> ScanCheck {
        ScanCheck {
            engine,
            keys,
            forward,
            seen: 0,
        }
    }

    /// Takes the next entry the scan returned.
    #[inline]
    pub fn visit(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        ensure!(
            self.seen < self.keys,
            "{}: scan returned more than {} keys",
            self.engine,
            self.keys
        );
        let expected = if self.forward {
            self.seen
        } else {
            self.keys - 1 - self.seen
        };
        let Some(index) = index_of(key) else {
            bail!(
                "{}: scan returned a key of {} bytes",
                self.engine,
                key.len()
            );
        };
        ensure!(
            index == expected,
            "{}: scan position {} returned key {index}, expected {expected}",
            self.engine,
            self.seen
        );
        check_value(self.engine, index, value)?;
        self.seen += 1;
        Ok(())
    }

    /// Ends the scan: every key must have been seen.
    pub fn finish(self) -> Result<u64> {
        ensure!(
            self.seen == self.keys,
            "{}: scan returned {} keys, expected {}",
            self.engine,
            self.seen,
            self.keys
        );
        Ok(self.seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_numerically_and_round_trip() {
        // Proves big-endian keys order as their indices and decode back.
        let indices = [0u64, 1, 255, 256, 65_535, 1 << 32, COMMIT_KEY_BASE + 7];
        for pair in indices.windows(2) {
            assert!(key(pair[0]) < key(pair[1]));
        }
        for index in indices {
            assert_eq!(index_of(&key(index)), Some(index));
        }
        assert_eq!(index_of(b"short"), None);
    }

    #[test]
    fn values_are_deterministic_and_distinct() {
        // Proves a value depends only on its key and differs between keys.
        assert_eq!(value(42), value(42));
        assert_ne!(value(42), value(43));
        assert!(check_value("t", 42, &value(42)).is_ok());
        assert!(check_value("t", 42, &value(43)).is_err());
        assert!(check_value("t", 42, &value(42)[..99]).is_err());
    }

    #[test]
    fn scan_check_accepts_exact_order_and_rejects_the_rest() {
        // Proves the scan check passes a correct scan in both directions
        // and fails on a missing, repeated, misordered or wrong entry.
        let run = |forward: bool, order: &[u64], corrupt: Option<u64>| -> Result<u64> {
            let mut check = ScanCheck::new("t", 3, forward);
            for &i in order {
                let mut v = value(i);
                if corrupt == Some(i) {
                    v[0] ^= 1;
                }
                check.visit(&key(i), &v)?;
            }
            check.finish()
        };
        assert_eq!(run(true, &[0, 1, 2], None).unwrap(), 3);
        assert_eq!(run(false, &[2, 1, 0], None).unwrap(), 3);
        assert!(run(true, &[0, 1], None).is_err());
        assert!(run(true, &[0, 1, 1], None).is_err());
        assert!(run(true, &[0, 2, 1], None).is_err());
        assert!(run(false, &[0, 1, 2], None).is_err());
        assert!(run(true, &[0, 1, 2, 3], None).is_err());
        assert!(run(true, &[0, 1, 2], Some(1)).is_err());
    }
}
