//! Autovacuum: vacuum in the background, triggered by dead-version counts
//! (PostgreSQL's `autovacuum`, its threshold rule and defaults).
//!
//! Every update and delete through a relation counts one dead version for
//! its table (a per-table atomic counter: writers already do shared
//! read-modify-writes, readers never touch it). A pass, every
//! `naptime`, lists the tables and vacuums each whose count since its
//! last vacuum reaches `threshold + scale_factor * versions` (versions as
//! the last vacuum counted them; PostgreSQL: 50 + 0.2 * reltuples). A pass
//! holds no snapshot while it vacuums, so it never holds back the horizon
//! it prunes below. A table whose storage options say
//! `autovacuum_enabled = off` is skipped.

use crate::catalog::{CATALOG_OID, Catalog};
use crate::defs::TableDef;
use crate::error::CatalogError;
use crate::relation::Relation;
use crate::toast::TOAST_OID;
use folio_heap::{HeapError, Index, VacuumStats};
use folio_txn::{Durability, Isolation, TxnManager};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// When autovacuum runs and what triggers it.
#[derive(Debug, Clone, Copy)]
pub struct AutovacuumConfig {
    /// `autovacuum_naptime` (1 s here; PostgreSQL's default is 60 s).
    pub naptime: Duration,
    /// `autovacuum_vacuum_threshold` (50).
    pub threshold: u64,
    /// `autovacuum_vacuum_scale_factor` (0.2).
    pub scale_factor: f64,
}

impl Default for AutovacuumConfig {
    fn default() -> Self {
        AutovacuumConfig {
            naptime: Duration::from_secs(1),
            threshold: 50,
            scale_factor: 0.2,
        }
    }
}

/// What writers tell autovacuum about one table.
#[derive(Debug, Default)]
pub struct TableActivity {
    /// Versions made dead (updated or deleted) since the last vacuum.
    pub dead: AtomicU64,
    /// Versions the last vacuum found.
    pub versions: AtomicU64,
}

/// Activity by table oid.
pub(crate) type Activity = crate::per_table::PerTable<TableActivity>;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassStats {
    pub tables: u64,
    pub vacuumed: u64,
    pub index_entries_removed: u64,
    /// Pages of dropped relations given back at the pass's start.
    pub pages_reclaimed: u64,
}

/// Vacuums `relation` (its heap and the entries of its indexes) and
/// restarts its dead-version count from what vacuum found (`VACUUM`).
/// The relation may have been read by a transaction that has ended since,
/// so under the catalog's storage guard (no reclaim can free pages
/// meanwhile: `reclaim.rs`) a fresh snapshot checks that the table still
/// exists; a table dropped since is skipped (`None`).
pub fn vacuum(
    catalog: &Catalog,
    relation: &Relation,
    txns: &Arc<TxnManager>,
) -> Result<Option<VacuumStats>, CatalogError> {
    let _guard = catalog
        .storage_guard
        .read()
        .unwrap_or_else(|p| p.into_inner());
    let exists = {
        let txn = txns.begin(Isolation::ReadCommitted, Durability::Sync)?;
        catalog
            .table(&txn, &relation.def.name)?
            // The same storage: a rewrite (`rewrite.rs`) or REINDEX gives
            // the table or its indexes new storage, and the old one goes
            // once no snapshot reads it.
            .is_some_and(|def| {
                let roots = |d: &TableDef| (d.indexes.iter().map(|i| i.root)).collect::<Vec<_>>();
                def.oid == relation.def.oid
                    && def.root == relation.def.root
                    && roots(&def) == roots(&relation.def)
            })
    };
    if !exists {
        return Ok(None);
    }
    vacuum_guarded(catalog, relation, txns, false).map(Some)
}

/// Vacuums the catalog's own tables (`Catalog::vacuum_catalog`; a
/// database-wide `VACUUM` includes them, as PostgreSQL's includes its
/// system catalogs) and restarts their count of changes.
pub fn vacuum_catalog(
    catalog: &Catalog,
    txns: &Arc<TxnManager>,
) -> Result<VacuumStats, CatalogError> {
    counted(&catalog.activity(CATALOG_OID), || {
        catalog.vacuum_catalog(txns)
    })
}

/// [`vacuum`] for a caller that holds the storage guard and read the
/// relation under it (`auto`: autovacuum). The table's statistics
/// (`pg_stat_user_tables`) take the live and dead rows it found.
fn vacuum_guarded(
    catalog: &Catalog,
    relation: &Relation,
    txns: &Arc<TxnManager>,
    auto: bool,
) -> Result<VacuumStats, CatalogError> {
    let indexes: Vec<&Index> = relation.indexes.iter().map(|i| &i.index).collect();
    // The counts of transactions that ended before it are published
    // first, so what it found replaces them rather than being changed by
    // them later.
    txns.backends().publish_stats();
    let result = counted(&catalog.activity(relation.def.oid), || {
        relation.table.vacuum(txns, &indexes)
    })?;
    let live = result.versions.saturating_sub(result.recently_dead);
    let now = folio_row::calendar::now();
    (txns.stats()).report_vacuum(relation.def.oid, live, result.recently_dead, auto, now);
    Ok(result)
}

/// Runs a vacuum of a table whose counts are `activity`: the dead versions
/// counted before it are no longer pending, and the table holds the
/// versions it found.
fn counted(
    activity: &TableActivity,
    vacuum: impl FnOnce() -> Result<VacuumStats, HeapError>,
) -> Result<VacuumStats, CatalogError> {
    let dead = activity.dead.load(Ordering::Relaxed);
    let result = vacuum()?;
    // What it could not remove yet (a snapshot still sees it) stays
    // counted, so a pass after that snapshot ends comes back for it.
    activity
        .dead
        .fetch_sub(dead.saturating_sub(result.recently_dead), Ordering::Relaxed);
    activity.versions.store(result.versions, Ordering::Relaxed);
    Ok(result)
}

/// One autovacuum pass: gives back the pages of dropped relations whose
/// time has come (`reclaim.rs`), then vacuums every table past its
/// threshold, holding the storage guard from before it lists the tables
/// (so none of them loses its pages meanwhile).
pub fn autovacuum_pass(
    catalog: &Catalog,
    txns: &Arc<TxnManager>,
    config: &AutovacuumConfig,
) -> Result<PassStats, CatalogError> {
    let reclaimed = catalog.reclaim(txns)?;
    let _guard = catalog
        .storage_guard
        .read()
        .unwrap_or_else(|p| p.into_inner());
    let relations = {
        let txn = txns.begin(Isolation::ReadCommitted, Durability::Sync)?;
        let tables = catalog.tables(&txn)?;
        tables
            .into_iter()
            .map(|def| catalog.open_relation(def))
            .collect::<Result<Vec<_>, _>>()?
    };
    let mut stats = PassStats {
        pages_reclaimed: reclaimed.pages_freed,
        ..PassStats::default()
    };
    // The toast table first: it has no catalog row.
    let toast = catalog.activity(TOAST_OID);
    let (dead, versions) = (
        toast.dead.load(Ordering::Relaxed),
        toast.versions.load(Ordering::Relaxed),
    );
    if dead as f64 >= config.threshold as f64 + config.scale_factor * versions as f64 {
        let result = counted(&toast, || {
            catalog.toast.table.vacuum(txns, &[&catalog.toast.index])
        })?;
        stats.vacuumed += 1;
        stats.index_entries_removed += result.index_entries_removed;
    }
    // The catalog's own tables, counted by catalog changes.
    let changes = catalog.activity(CATALOG_OID);
    let (dead, versions) = (
        changes.dead.load(Ordering::Relaxed),
        changes.versions.load(Ordering::Relaxed),
    );
    if dead as f64 >= config.threshold as f64 + config.scale_factor * versions as f64 {
        let result = vacuum_catalog(catalog, txns)?;
        stats.vacuumed += 1;
        stats.index_entries_removed += result.index_entries_removed;
    }
    for relation in relations {
        stats.tables += 1;
        // `WITH (autovacuum_enabled = off)` keeps autovacuum away.
        if !relation.def.storage.autovacuum_enabled() {
            continue;
        }
        let activity = catalog.activity(relation.def.oid);
        let dead = activity.dead.load(Ordering::Relaxed);
        let versions = activity.versions.load(Ordering::Relaxed);
        if (dead as f64) < config.threshold as f64 + config.scale_factor * versions as f64 {
            continue;
        }
        let result = vacuum_guarded(catalog, &relation, txns, true)?;
        stats.vacuumed += 1;
        stats.index_entries_removed += result.index_entries_removed;
    }
    Ok(stats)
}

/// The background thread running passes.
#[derive(Debug)]
pub struct Autovacuum {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
    passes: Arc<AtomicU64>,
    last_error: Arc<Mutex<Option<String>>>,
}

impl Autovacuum {
    /// Starts passes every `config.naptime`. The thread keeps the tables'
    /// counts in the catalog's data directory, if it has one
    /// (`Catalog::keep_hints_in`, `activity_file.rs`): after a pass in
    /// which a table's count of versions changed, and when it stops.
    pub fn start(
        catalog: Arc<Catalog>,
        txns: Arc<TxnManager>,
        config: AutovacuumConfig,
    ) -> std::io::Result<Autovacuum> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let passes = Arc::new(AtomicU64::new(0));
        let last_error = Arc::new(Mutex::new(None));
        let (stop2, passes2, error2) = (stop.clone(), passes.clone(), last_error.clone());
        let thread = std::thread::Builder::new()
            .name("folio-autovacuum".into())
            .spawn(move || {
                let report =
                    |e: String| *error2.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                let versions = |catalog: &Catalog| -> Vec<(u64, u64)> {
                    let counts = crate::activity_file::current(catalog);
                    counts.into_iter().map(|(oid, _, v)| (oid, v)).collect()
                };
                let mut saved = versions(&catalog);
                let (m, cv) = &*stop2;
                let mut stopped = m.lock().unwrap_or_else(|p| p.into_inner());
                loop {
                    stopped = cv
                        .wait_timeout(stopped, config.naptime)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                    if *stopped {
                        break;
                    }
                    drop(stopped);
                    if let Err(e) = autovacuum_pass(&catalog, &txns, &config) {
                        report(e.to_string());
                    }
                    let now = versions(&catalog);
                    if now != saved {
                        match catalog.save_activity() {
                            Ok(()) => saved = now,
                            Err(e) => report(format!("keeping autovacuum's counts: {e}")),
                        }
                    }
                    passes2.fetch_add(1, Ordering::Relaxed);
                    stopped = m.lock().unwrap_or_else(|p| p.into_inner());
                }
                if let Err(e) = catalog.save_activity() {
                    report(format!("keeping autovacuum's counts: {e}"));
                }
            })?;
        Ok(Autovacuum {
            stop,
            thread: Some(thread),
            passes,
            last_error,
        })
    }

    /// Passes completed.
    pub fn passes(&self) -> u64 {
        self.passes.load(Ordering::Relaxed)
    }

    /// The error of the latest failed pass, if any.
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Stops the thread (after its current pass).
    pub fn stop(&mut self) {
        *self.stop.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.stop.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Autovacuum {
    fn drop(&mut self) {
        self.stop();
    }
}
