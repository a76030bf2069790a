//! The atomics the commit clock runs on: std's, or loom's under
//! `feature = "loom"` (so `loom_model.rs` can check the commit instant).

#[cfg(feature = "loom")]
pub(crate) use loom::sync::atomic::AtomicU64;
#[cfg(feature = "loom")]
pub(crate) use loom::thread::yield_now;
#[cfg(not(feature = "loom"))]
pub(crate) use std::sync::atomic::AtomicU64;
#[cfg(not(feature = "loom"))]
pub(crate) use std::thread::yield_now;
