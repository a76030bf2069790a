//! The fuzzing harness: every decoder of untrusted bytes (pages, WAL
//! records and pages, segment files, `wal.meta`, the control file,
//! checkpoint records, the meta page, allocation redo) is run on generated
//! inputs by `tests/targets.rs`, one test per target, each for a fixed,
//! seeded budget — so CI runs the same cases every time and a failure
//! replays from its seed. `scripts/fuzz.sh` runs them longer.
//!
//! A decoder given any bytes must return a value or an error: never a
//! panic, an arithmetic overflow (the tests build with overflow checks),
//! an allocation larger than its input justifies ([`largest_allocation`]
//! checks it: this crate installs a counting global allocator), or a hang
//! (bounded loops: a hang shows up as a test that does not finish).
//!
//! Inputs come from two sources (see [`bytes_like`]): raw random bytes,
//! and valid encodings mutated field by field. Most formats carry a CRC,
//! so raw bytes die at the CRC check; each target reseals its mutated
//! inputs (recomputes the CRC) so the code behind the check sees garbage
//! too: lengths, counts, offsets, block ids, flags.
//!
//! Budget: `FOLIO_FUZZ_CASES` cases per target (default 256) from seed
//! `FOLIO_FUZZ_SEED` (default 1).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, recording the largest single allocation made by
/// this thread while [`largest_allocation`] watches.
#[derive(Debug)]
pub struct CountingAlloc;

thread_local! {
    // Const-initialised, no destructor: touching them never allocates,
    // so the allocator may use them.
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping
// only reads the layout's size.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded with the caller's layout, per the trait contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAlloc = CountingAlloc;

fn note(size: usize) {
    if WATCHING.with(Cell::get) {
        LARGEST.with(|largest| largest.set(largest.get().max(size)));
    }
}

/// Runs `f` and returns its result with the largest single allocation it
/// made on this thread, in bytes.
pub fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    WATCHING.with(|w| w.set(true));
    let out = f();
    WATCHING.with(|w| w.set(false));
    (out, LARGEST.with(Cell::get))
}

/// Fails the case unless the largest allocation of `f` is at most
/// `limit_bytes`.
pub fn within_allocation<T>(
    limit_bytes: usize,
    what: &str,
    f: impl FnOnce() -> T,
) -> Result<T, TestCaseError> {
    let (out, largest) = largest_allocation(f);
    if largest > limit_bytes {
        return Err(TestCaseError::fail(format!(
            "{what}: allocated {largest} bytes at once, more than the {limit_bytes} its input justifies"
        )));
    }
    Ok(out)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `test` on `cases` inputs from `strategy`, deterministically from the
/// seed (`FOLIO_FUZZ_CASES`, `FOLIO_FUZZ_SEED`); panics with the failing
/// input (shrunk) and how to replay it.
pub fn fuzz<S: Strategy>(
    target: &str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let cases = env_u64("FOLIO_FUZZ_CASES", 256) as u32;
    let seed = env_u64("FOLIO_FUZZ_SEED", 1);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    seed_bytes[8..16].copy_from_slice(&fnv(target).to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    if let Err(failure) = runner.run(&strategy, test) {
        panic!(
            "fuzz target {target} failed (replay: FOLIO_FUZZ_SEED={seed} FOLIO_FUZZ_CASES={cases}): {failure}"
        );
    }
}

/// A stable 64-bit hash of a target's name, so targets draw different
/// inputs from one seed.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One structural mutation of a byte string.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Flip bit `bit % 8` of byte `at`.
    FlipBit { at: usize, bit: u8 },
    /// Set byte `at`.
    SetByte { at: usize, value: u8 },
    /// Overwrite a little-endian field of `width` bytes at `at` with an
    /// interesting value: 0, 1, all ones, a small number, or a length-like
    /// value near the input's size.
    SetField { at: usize, width: usize, value: u64 },
    /// Cut the input at `at`.
    Truncate { at: usize },
    /// Append `len` bytes of `value`.
    Extend { len: usize, value: u8 },
}

impl Mutation {
    /// Applies the mutation; positions wrap around the input's length.
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        match *self {
            Mutation::FlipBit { at, bit } if len > 0 => bytes[at % len] ^= 1 << (bit % 8),
            Mutation::SetByte { at, value } if len > 0 => bytes[at % len] = value,
            Mutation::SetField { at, width, value } if len >= width => {
                let at = at % (len - width + 1);
                bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
            Mutation::Truncate { at } => bytes.truncate(at % (len + 1)),
            Mutation::Extend { len, value } => bytes.extend(std::iter::repeat_n(value, len)),
            _ => {}
        }
    }
}

/// Mutations for inputs of about `len` bytes.
pub fn mutation(len: usize) -> impl Strategy<Value = Mutation> {
    let at = 0..len.max(1) * 2;
    let interesting = prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        0u64..64,
        (len as u64).saturating_sub(32)..(len as u64 + 32),
        any::<u64>(),
    ];
    prop_oneof![
        4 => (at.clone(), any::<u8>()).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        3 => (at.clone(), any::<u8>()).prop_map(|(at, value)| Mutation::SetByte { at, value }),
        4 => (at.clone(), prop_oneof![Just(1usize), Just(2), Just(4), Just(8)], interesting)
            .prop_map(|(at, width, value)| Mutation::SetField { at, width, value }),
        1 => at.prop_map(|at| Mutation::Truncate { at }),
        1 => (0..64usize, any::<u8>()).prop_map(|(len, value)| Mutation::Extend { len, value }),
    ]
}

/// How an input was made: raw bytes, or a valid sample (by index) mutated,
/// resealed (CRC recomputed) or not.
#[derive(Clone, Debug)]
pub enum Input {
    Raw(Vec<u8>),
    Mutated {
        sample: usize,
        mutations: Vec<Mutation>,
        reseal: bool,
    },
}

impl Input {
    /// The bytes: raw ones, or `samples[sample]` with the mutations applied
    /// and, when asked, `reseal` called on the result.
    pub fn bytes(&self, samples: &[Vec<u8>], reseal: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
        match self {
            Input::Raw(bytes) => bytes.clone(),
            Input::Mutated {
                sample,
                mutations,
                reseal: seal,
            } => {
                let mut bytes = samples[sample % samples.len()].clone();
                for m in mutations {
                    m.apply(&mut bytes);
                }
                if *seal {
                    reseal(&mut bytes);
                }
                bytes
            }
        }
    }
}

/// Inputs like `samples` (valid encodings, about `len` bytes each): a
/// quarter raw bytes of up to `2 * len`, the rest samples with 1-6
/// mutations, resealed three times out of four.
pub fn bytes_like(sample_count: usize, len: usize) -> impl Strategy<Value = Input> {
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..len * 2 + 1).prop_map(Input::Raw),
        3 => (
            0..sample_count.max(1),
            prop::collection::vec(mutation(len), 1..7),
            prop::bool::weighted(0.75),
        )
            .prop_map(|(sample, mutations, reseal)| Input::Mutated {
                sample,
                mutations,
                reseal,
            }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the allocation watch sees an allocation made inside it and
    // nothing made outside it.
    #[test]
    fn the_largest_allocation_is_seen() {
        let before = vec![0u8; 1 << 20];
        let (v, largest) = largest_allocation(|| vec![1u8; 5000]);
        assert_eq!(largest, 5000);
        assert!(within_allocation(4999, "test", || vec![0u8; 5000]).is_err());
        drop((before, v));
    }

    // Proves a mutation never panics on any input size, and resealed
    // inputs come from the samples.
    #[test]
    fn mutations_apply_to_any_input() {
        let samples = vec![vec![7u8; 10]];
        for bytes in [vec![], vec![1u8], vec![2u8; 100]] {
            for m in [
                Mutation::FlipBit { at: 5, bit: 9 },
                Mutation::SetByte { at: 500, value: 1 },
                Mutation::SetField {
                    at: 3,
                    width: 8,
                    value: u64::MAX,
                },
                Mutation::Truncate { at: 1000 },
                Mutation::Extend { len: 3, value: 9 },
            ] {
                m.apply(&mut bytes.clone());
            }
        }
        let input = Input::Mutated {
            sample: 3,
            mutations: vec![Mutation::SetByte { at: 0, value: 1 }],
            reseal: true,
        };
        let bytes = input.bytes(&samples, |b| b.push(0xee));
        assert_eq!(bytes, [1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0xee]);
    }
}
