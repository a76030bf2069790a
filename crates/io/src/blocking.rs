//! Where a thread is about to sleep on something another thread must do.
//!
//! The lower layers (a row-lock wait in folio-txn, a commit waiting for
//! its WAL flush) call [`region`] around such a sleep. By default it just
//! runs the closure. A host that runs sessions on a small pool of threads
//! (folio-server runs them inline on its async runtime's workers) installs
//! a hook with [`set_hook`] that first hands the thread's share of the
//! pool to another thread (tokio's `block_in_place`), so that sleepers can
//! never take every pool thread while the session they wait for needs one
//! to reach its COMMIT. The lower crates thus never depend on the host's
//! runtime.

use std::sync::OnceLock;

/// Runs the closure it is given, around whatever the host must do first.
pub type Hook = fn(&mut dyn FnMut());

static HOOK: OnceLock<Hook> = OnceLock::new();

/// Installs the process's hook; `false` if one was installed already (the
/// first stays).
pub fn set_hook(hook: Hook) -> bool {
    HOOK.set(hook).is_ok()
}

/// Runs `f`, which may sleep until another thread acts, inside the hook
/// if one is installed.
pub fn region<R>(f: impl FnOnce() -> R) -> R {
    let Some(hook) = HOOK.get() else {
        return f();
    };
    let mut f = Some(f);
    let mut result = None;
    hook(&mut || {
        if let Some(f) = f.take() {
            result = Some(f());
        }
    });
    match result {
        Some(result) => result,
        // A hook that did not call the closure breaks its contract; run it
        // here rather than lose the wait.
        None => (f.take().expect("not run above"))(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a region returns its closure's value with or without a hook,
    // and the installed hook runs around it exactly once.
    #[test]
    fn region_runs_the_closure_once_inside_the_hook() {
        assert_eq!(region(|| 7), 7);
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn hook(f: &mut dyn FnMut()) {
            CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            f();
        }
        assert!(set_hook(hook));
        assert!(!set_hook(hook));
        assert_eq!(region(|| 8), 8);
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
