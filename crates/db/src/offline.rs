//! Offline tools on a *stopped* database: what `folio checksums` and
//! `folio waldump` need, testable without the command line.
//!
//! [`StoppedDatabase::open`] checks that a path is a folio database
//! directory, takes its `LOCK` (so no process can open it while a tool
//! works, and a running database is refused) and reads the control file.
//! [`verify_checksums`] reads every page of the data file and checks its
//! checksum; [`set_checksums`] turns data checksums on (stamping a checksum
//! into every page) or off.
//!
//! # The checksum setting lives in two places
//!
//! The control file's flag (C) is the authority: `Database::open` opens
//! the pool with it before page 0 is read, and verifies afterwards that the
//! meta page's flag (M) agrees. The tools keep one invariant across every
//! crash point:
//!
//! > **C on ⇒ M on ⇒ every page of the data file carries a valid checksum**
//! > (all of it fsynced).
//!
//! Enable (after pg_checksums, which rewrites the pages and updates the
//! control file last):
//!
//! 1. stamp a checksum into every non-zero page except page 0 that lacks a
//!    valid one; fsync the data file;
//! 2. set M on page 0 and stamp its checksum; fsync;
//! 3. store the control file with C on (write-temp, fsync, rename, fsync
//!    the directory: atomic). This is the commit point.
//!
//! Disable: 1. store the control file with C off (the commit point), 2.
//! clear M on page 0; fsync. Pages keep their now stale checksums; nothing
//! reads them while C is off, and `enable` rewrites them. Page 0 is
//! rewritten with a fresh checksum, so disable refuses a page 0 that fails
//! its checksum (it would hide the damage); enable refuses when checksums
//! are already on, so it never re-stamps a corrupt page either.
//!
//! A crash in between leaves C off and M on (or page 0 torn between the two
//! versions, which differ only in the flag and checksum fields): never a
//! state in which checksums are believed on while some page lacks one.
//! `Database::open` refuses that state (the meta page's flag disagrees with
//! the control file) rather than guess; running `folio checksums enable` or
//! `disable` again finishes the change. C on with M off is never produced by
//! these tools and is reported as a damaged meta page.
//!
//! Both refuse unless the control file says "shut down" (a crashed
//! database needs recovery first, which the pages may depend on). They read
//! `wal.meta` only (its system id must match the control file): a stopped
//! database's WAL holds nothing to replay, so its records are not read.

use crate::lock::DirLock;
use crate::{DATA_FILE, DbError, WAL_DIR};
use folio_buffer::{BufferError, MetaFields, decode_meta_page, set_meta_checksums_flag};
use folio_io::{Dir, File, FsDir, OpenOptions};
use folio_page::{ChecksumError, PAGE_SIZE, Page, PageId};
use folio_recovery::{CONTROL_FILE, ControlData, ControlError, DbState};
use folio_wal::{WalError, WalMeta};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Page 0, the meta page (its layout is folio-buffer's: `decode_meta_page`).
const META_PAGE: PageId = PageId(0);

/// Pages read per call while scanning the data file.
const SCAN_CHUNK_PAGES: usize = 128;

/// Why an offline tool refuses or fails.
#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    #[error("{path}: no such directory")]
    NotFound { path: PathBuf },
    #[error("{path} is not a directory (expected a folio database directory)")]
    NotADirectory { path: PathBuf },
    #[error("{path} is not a folio database directory: {reason}")]
    NotADatabase { path: PathBuf, reason: String },
    /// The lock is held (the database is open), and other database errors.
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Control(#[from] ControlError),
    #[error(
        "database at {path} was not shut down cleanly (the control file says it is in \
         production): open and close it once to run crash recovery first (`folio verify {path}` does)"
    )]
    NotShutDown { path: PathBuf },
    #[error("meta page (page 0) of the data file is damaged: {reason}")]
    BadMeta { reason: String },
    /// The data file is shorter than its meta page's page count.
    #[error(
        "the data file {path} is damaged: it is {len_bytes} bytes long, but its meta page counts {page_count} pages, which need {expected_bytes} bytes; restore the database from a backup"
    )]
    FileTooShort {
        path: PathBuf,
        len_bytes: u64,
        expected_bytes: u64,
        page_count: u64,
    },
    #[error("WAL of {path} is unusable: {source}")]
    Wal { path: PathBuf, source: WalError },
    #[error("data checksums are already enabled")]
    AlreadyEnabled,
    #[error("data checksums are already disabled")]
    AlreadyDisabled,
    #[error(
        "data checksums are not enabled{}",
        if *.interrupted { " (an earlier `checksums enable` or `disable` was interrupted: run it again)" } else { "" }
    )]
    NotEnabled { interrupted: bool },
    #[error("I/O error while {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> OfflineError {
    let path = path.to_path_buf();
    move |source| OfflineError::Io { op, path, source }
}

/// Checks that `path` looks like a folio database directory: it exists, is
/// a directory and holds a control file, a data file and a `wal/`
/// directory. Touches nothing (a wrong path is never created or locked).
pub fn check_database_dir(path: &Path) -> Result<(), OfflineError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(OfflineError::NotFound { path: path.into() });
        }
        Err(e) => return Err(io_error("looking at", path)(e)),
    };
    if !meta.is_dir() {
        return Err(OfflineError::NotADirectory { path: path.into() });
    }
    let not_db = |reason: &str| OfflineError::NotADatabase {
        path: path.into(),
        reason: reason.into(),
    };
    if !path.join(CONTROL_FILE).is_file() {
        return Err(not_db("it has no `control` file"));
    }
    if !path.join(DATA_FILE).is_file() {
        return Err(not_db("it has no `data` file"));
    }
    if !path.join(WAL_DIR).is_dir() {
        return Err(not_db("it has no `wal/` directory"));
    }
    Ok(())
}

/// A database directory that no process has open, locked for the life of
/// this value, with its control file read and checked.
#[derive(Debug)]
pub struct StoppedDatabase {
    path: PathBuf,
    dir: Arc<FsDir>,
    control: ControlData,
    _lock: DirLock,
}

impl StoppedDatabase {
    /// Checks the directory ([`check_database_dir`]), takes the lock
    /// (`Db(Locked)` if the database is open) and reads the control file
    /// (`Control(Damaged)` with the reason if it is damaged).
    pub fn open(path: impl AsRef<Path>) -> Result<StoppedDatabase, OfflineError> {
        let path = path.as_ref();
        check_database_dir(path)?;
        let dir = FsDir::open(path).map_err(io_error("opening", path))?;
        let lock = DirLock::acquire(path)?;
        let control = ControlData::load(&dir)?;
        Ok(StoppedDatabase {
            path: path.into(),
            dir: Arc::new(dir),
            control,
            _lock: lock,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The control file as read by `open`.
    pub fn control(&self) -> &ControlData {
        &self.control
    }

    /// Refuses unless the control file says the database was shut down
    /// cleanly (a crashed database needs recovery before offline changes).
    pub fn require_clean_shutdown(&self) -> Result<(), OfflineError> {
        match self.control.state {
            DbState::ShutDown => Ok(()),
            DbState::InProduction => Err(OfflineError::NotShutDown {
                path: self.path.clone(),
            }),
        }
    }

    /// The WAL directory, after checking that its `wal.meta` is readable and
    /// belongs to this database (its system id matches the control file's).
    pub fn wal_dir(&self) -> Result<Arc<dyn Dir>, OfflineError> {
        let path = self.path.join(WAL_DIR);
        let wal_error = |source| OfflineError::Wal {
            path: path.clone(),
            source,
        };
        let dir: Arc<dyn Dir> = Arc::new(FsDir::open(&path).map_err(io_error("opening", &path))?);
        let meta = WalMeta::load(dir.as_ref())
            .map_err(wal_error)?
            .ok_or_else(|| wal_error(WalError::BadMeta("wal.meta missing".into())))?;
        if meta.system_id != self.control.wal_system_id {
            return Err(DbError::WalMismatch {
                wal: meta.system_id,
                control: self.control.wal_system_id,
            }
            .into());
        }
        Ok(dir)
    }

    fn data_file(&self) -> Result<Arc<dyn File>, OfflineError> {
        self.dir
            .open(DATA_FILE, OpenOptions::EXISTING)
            .map_err(io_error("opening", &self.path.join(DATA_FILE)))
    }
}

/// Checks page 0's structure (type, magic, format version, page size, known
/// flags, page count) with folio-buffer's `decode_meta_page`, the one reader
/// of its layout; its checksum is the scan's business. Never panics.
pub fn read_meta(page: &Page) -> Result<MetaFields, OfflineError> {
    decode_meta_page(page).map_err(|e| match e {
        BufferError::BadMeta { reason } => OfflineError::BadMeta { reason },
        other => OfflineError::BadMeta {
            reason: other.to_string(),
        },
    })
}

/// What a checksum run found or did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChecksumReport {
    /// Whole pages in the data file (including any past the high-water mark).
    pub pages_scanned: u64,
    /// The meta page's high-water mark.
    pub page_count: u64,
    /// All-zero pages (never written): they verify and are never rewritten.
    pub zero_pages: u64,
    /// Pages whose checksum does not verify, in page order (`verify`).
    pub bad_pages: Vec<ChecksumError>,
    /// Pages written (`enable`: stamped with a checksum; `disable`: page 0).
    pub pages_written: u64,
    /// Bytes after the last whole page (not a page; ignored).
    pub trailing_bytes: u64,
    /// The checksum setting after the run.
    pub checksums: bool,
}

/// Progress of a scan: `(pages done, pages in total)`.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// The data file and its meta page, checked.
struct Prepared {
    file: Arc<dyn File>,
    meta: Box<Page>,
    info: MetaFields,
}

/// The checks every checksum tool makes before touching the data file: a
/// cleanly shut-down database whose WAL is its own, the meta page sound,
/// and its flag consistent with the control file (C on ⇒ M on).
fn prepare(db: &StoppedDatabase) -> Result<Prepared, OfflineError> {
    db.require_clean_shutdown()?;
    db.wal_dir()?;
    let file = db.data_file()?;
    let path = db.path.join(DATA_FILE);
    let len_bytes = file.len().map_err(io_error("sizing", &path))?;
    if len_bytes < PAGE_SIZE as u64 {
        return Err(OfflineError::BadMeta {
            reason: format!("the data file is {len_bytes} bytes, shorter than one page"),
        });
    }
    let mut meta = Box::new([0u8; PAGE_SIZE]);
    file.read_at(&mut meta[..], 0)
        .map_err(io_error("reading", &path))?;
    let info = read_meta(&meta)?;
    let expected_bytes = info.page_count.saturating_mul(PAGE_SIZE as u64);
    if len_bytes < expected_bytes {
        return Err(OfflineError::FileTooShort {
            path,
            len_bytes,
            expected_bytes,
            page_count: info.page_count,
        });
    }
    if db.control.checksums && !info.checksums {
        return Err(OfflineError::BadMeta {
            reason: "checksums are off in page 0 but on in the control file".into(),
        });
    }
    Ok(Prepared { file, meta, info })
}

/// Visits every whole page of `file` in page order, in chunks, calling
/// `visit(page_id, page)`; returns (pages, trailing bytes).
fn scan_pages(
    file: &dyn File,
    path: &Path,
    progress: Progress<'_>,
    mut visit: impl FnMut(PageId, &mut Page) -> Result<(), OfflineError>,
) -> Result<(u64, u64), OfflineError> {
    let len_bytes = file.len().map_err(io_error("sizing", path))?;
    let page_bytes = PAGE_SIZE as u64;
    let pages = len_bytes / page_bytes;
    let mut chunk = vec![0u8; SCAN_CHUNK_PAGES * PAGE_SIZE];
    let mut first = 0u64;
    progress(0, pages);
    while first < pages {
        let n = (pages - first).min(SCAN_CHUNK_PAGES as u64) as usize;
        let bytes = &mut chunk[..n * PAGE_SIZE];
        file.read_at(bytes, first * page_bytes)
            .map_err(io_error("reading", path))?;
        for (i, page) in bytes.chunks_exact_mut(PAGE_SIZE).enumerate() {
            let page: &mut Page = page.try_into().expect("chunks of PAGE_SIZE bytes");
            visit(PageId(first + i as u64), page)?;
        }
        first += n as u64;
        progress(first, pages);
    }
    Ok((pages, len_bytes % page_bytes))
}

/// Verifies the checksum of every page of the stopped database at `path`.
/// Bad pages are reported (not an error); the run fails only if the
/// database cannot be checked at all, or has checksums off (`NotEnabled`).
pub fn verify_checksums(
    path: impl AsRef<Path>,
    progress: Progress<'_>,
) -> Result<ChecksumReport, OfflineError> {
    let db = StoppedDatabase::open(path)?;
    let Prepared { file, info, .. } = prepare(&db)?;
    if !db.control.checksums {
        return Err(OfflineError::NotEnabled {
            interrupted: info.checksums,
        });
    }
    let mut report = ChecksumReport {
        page_count: info.page_count,
        checksums: true,
        ..ChecksumReport::default()
    };
    let data_path = db.path.join(DATA_FILE);
    let (pages, trailing) = scan_pages(file.as_ref(), &data_path, progress, |id, page| {
        if folio_page::is_zero_page(page) {
            report.zero_pages += 1;
        } else if let Err(bad) = folio_page::verify_checksum(page, id) {
            report.bad_pages.push(bad);
        }
        Ok(())
    })?;
    report.pages_scanned = pages;
    report.trailing_bytes = trailing;
    Ok(report)
}

/// Turns data checksums on or off in the stopped database at `path`, in
/// the crash-safe order of the module comment. Refuses a database that is
/// open, not shut down cleanly, or already in the requested state.
pub fn set_checksums(
    path: impl AsRef<Path>,
    enable: bool,
    progress: Progress<'_>,
) -> Result<ChecksumReport, OfflineError> {
    let db = StoppedDatabase::open(path)?;
    let Prepared {
        file,
        mut meta,
        info,
    } = prepare(&db)?;
    let data_path = db.path.join(DATA_FILE);
    let sync = |file: &dyn File| file.sync().map_err(io_error("syncing", &data_path));
    let mut report = ChecksumReport {
        page_count: info.page_count,
        checksums: enable,
        ..ChecksumReport::default()
    };
    let mut control = db.control;
    control.checksums = enable;
    if enable {
        if db.control.checksums {
            return Err(OfflineError::AlreadyEnabled);
        }
        // 1. Every page but the meta page, then fsync.
        let (pages, trailing) = scan_pages(file.as_ref(), &data_path, progress, |id, page| {
            if id == META_PAGE {
                return Ok(());
            }
            if folio_page::is_zero_page(page) {
                report.zero_pages += 1;
                return Ok(());
            }
            if folio_page::verify_checksum(page, id).is_err() {
                folio_page::set_checksum(page, id);
                file.write_at(&page[..], id.0 * PAGE_SIZE as u64)
                    .map_err(io_error("writing", &data_path))?;
                report.pages_written += 1;
            }
            Ok(())
        })?;
        report.pages_scanned = pages;
        report.trailing_bytes = trailing;
        sync(file.as_ref())?;
        // 2. The meta page's flag, then fsync.
        set_meta_checksums_flag(&mut meta, true);
        file.write_at(&meta[..], 0)
            .map_err(io_error("writing", &data_path))?;
        report.pages_written += 1;
        sync(file.as_ref())?;
        // 3. The control file: the commit point.
        control.store(db.dir.as_ref())?;
    } else {
        if !db.control.checksums && !info.checksums {
            return Err(OfflineError::AlreadyDisabled);
        }
        // Page 0 is rewritten below with a fresh checksum: never over a
        // damaged one while checksums are on, which would hide the damage.
        if db.control.checksums
            && let Err(bad) = folio_page::verify_checksum(&meta, META_PAGE)
        {
            return Err(OfflineError::BadMeta {
                reason: bad.to_string(),
            });
        }
        // 1. The control file: the commit point. 2. The meta page.
        control.store(db.dir.as_ref())?;
        set_meta_checksums_flag(&mut meta, false);
        file.write_at(&meta[..], 0)
            .map_err(io_error("writing", &data_path))?;
        report.pages_written = 1;
        sync(file.as_ref())?;
        let len_bytes = file.len().map_err(io_error("sizing", &data_path))?;
        report.pages_scanned = len_bytes / PAGE_SIZE as u64;
        report.trailing_bytes = len_bytes % PAGE_SIZE as u64;
        progress(report.pages_scanned, report.pages_scanned);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Database, Options};

    fn small_options(checksums: bool) -> Options {
        Options {
            pool_size_bytes: 1 << 20,
            max_database_bytes: 64 << 20,
            checksums,
            background_io: false,
            ..Options::default()
        }
    }

    /// A closed database with one tree of `keys` keys.
    fn closed_db(dir: &Path, checksums: bool, keys: u32) {
        let db = Database::create(dir, small_options(checksums)).unwrap();
        let tree = db.create_tree("t").unwrap();
        for i in 0..keys {
            tree.insert(format!("key{i:06}").as_bytes(), &[7u8; 40])
                .unwrap();
        }
        db.commit().unwrap();
        db.close().unwrap();
    }

    fn no_progress() -> impl FnMut(u64, u64) {
        |_, _| {}
    }

    fn data_bytes(dir: &Path) -> Vec<u8> {
        std::fs::read(dir.join(DATA_FILE)).unwrap()
    }

    // Proves enable stamps a valid checksum on every written page of a
    // database created without checksums, verify then passes, the database
    // opens with checksums on (pool and control agree) and its data is
    // intact; disable then enable again round-trips.
    #[test]
    fn enable_disable_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        closed_db(&dir, false, 600);
        assert!(matches!(
            verify_checksums(&dir, &mut no_progress()),
            Err(OfflineError::NotEnabled { interrupted: false })
        ));
        let report = set_checksums(&dir, true, &mut no_progress()).unwrap();
        assert!(report.pages_written >= 3, "{report:?}");
        assert!(matches!(
            set_checksums(&dir, true, &mut no_progress()),
            Err(OfflineError::AlreadyEnabled)
        ));
        let verified = verify_checksums(&dir, &mut no_progress()).unwrap();
        assert!(verified.bad_pages.is_empty(), "{verified:?}");
        assert_eq!(verified.pages_scanned, report.pages_scanned);
        {
            let db = Database::open(&dir, small_options(false)).unwrap();
            assert!(db.pool().checksums());
            assert!(db.control().checksums);
            let tree = db.open_tree("t").unwrap().unwrap();
            assert_eq!(
                tree.get(b"key000599").unwrap().as_deref(),
                Some(&[7u8; 40][..])
            );
            db.close().unwrap();
        }
        set_checksums(&dir, false, &mut no_progress()).unwrap();
        assert!(matches!(
            set_checksums(&dir, false, &mut no_progress()),
            Err(OfflineError::AlreadyDisabled)
        ));
        {
            let db = Database::open(&dir, small_options(true)).unwrap();
            assert!(!db.pool().checksums());
            db.close().unwrap();
        }
        set_checksums(&dir, true, &mut no_progress()).unwrap();
        let verified = verify_checksums(&dir, &mut no_progress()).unwrap();
        assert!(verified.bad_pages.is_empty(), "{verified:?}");
    }

    // Proves an interrupted enable (crash after the meta page, before the
    // control file: C off, M on) is reported as such, refused by verify,
    // and finished by running enable again; an interrupted disable (C off
    // after the control file, M still on) is finished by disable.
    #[test]
    fn interrupted_changes_are_finished_by_running_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        closed_db(&dir, true, 200);
        // The state both interruptions leave: control off, meta page on.
        let fsdir = FsDir::open(&dir).unwrap();
        let mut control = ControlData::load(&fsdir).unwrap();
        control.checksums = false;
        control.store(&fsdir).unwrap();
        assert!(matches!(
            verify_checksums(&dir, &mut no_progress()),
            Err(OfflineError::NotEnabled { interrupted: true })
        ));
        set_checksums(&dir, true, &mut no_progress()).unwrap();
        assert!(
            verify_checksums(&dir, &mut no_progress())
                .unwrap()
                .bad_pages
                .is_empty()
        );
        control.store(&fsdir).unwrap();
        set_checksums(&dir, false, &mut no_progress()).unwrap();
        let db = Database::open(&dir, small_options(true)).unwrap();
        assert!(!db.pool().checksums());
        db.close().unwrap();
    }

    // Proves verify names a page whose bit was flipped, that enable refuses
    // (never re-stamps a corrupt page) when checksums are on, and that
    // disable refuses to rewrite a page 0 that fails its checksum.
    #[test]
    fn verify_finds_a_flipped_bit() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        closed_db(&dir, true, 600);
        let mut bytes = data_bytes(&dir);
        let victim = 2;
        bytes[victim * PAGE_SIZE + 4000] ^= 0x10;
        std::fs::write(dir.join(DATA_FILE), &bytes).unwrap();
        let report = verify_checksums(&dir, &mut no_progress()).unwrap();
        let bad: Vec<PageId> = report.bad_pages.iter().map(|b| b.page_id).collect();
        assert_eq!(bad, vec![PageId(victim as u64)]);
        assert!(matches!(
            set_checksums(&dir, true, &mut no_progress()),
            Err(OfflineError::AlreadyEnabled)
        ));
        // A flipped bit in page 0 outside the fields read: verify names
        // page 0, and disable refuses to stamp a fresh checksum over it.
        bytes[victim * PAGE_SIZE + 4000] ^= 0x10;
        bytes[PAGE_SIZE - folio_buffer::META_SIZE - 100] ^= 0x01; // before the meta fields
        std::fs::write(dir.join(DATA_FILE), &bytes).unwrap();
        let report = verify_checksums(&dir, &mut no_progress()).unwrap();
        let bad: Vec<PageId> = report.bad_pages.iter().map(|b| b.page_id).collect();
        assert_eq!(bad, vec![META_PAGE]);
        assert!(matches!(
            set_checksums(&dir, false, &mut no_progress()),
            Err(OfflineError::BadMeta { .. })
        ));
    }

    // Proves the refusals: a missing path, a file, a directory that is not
    // a database, a database that is open (lock held), one that was not
    // shut down cleanly, and a damaged control file or meta page.
    #[test]
    fn refusals() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        assert!(matches!(
            verify_checksums(&missing, &mut no_progress()),
            Err(OfflineError::NotFound { .. })
        ));
        assert!(!missing.exists(), "a wrong path is never created");
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            verify_checksums(&file, &mut no_progress()),
            Err(OfflineError::NotADirectory { .. })
        ));
        assert!(matches!(
            verify_checksums(tmp.path(), &mut no_progress()),
            Err(OfflineError::NotADatabase { .. })
        ));
        assert!(!tmp.path().join(crate::LOCK_FILE).exists());

        let dir = tmp.path().join("db");
        let db = Database::create(&dir, small_options(true)).unwrap();
        assert!(matches!(
            verify_checksums(&dir, &mut no_progress()),
            Err(OfflineError::Db(DbError::Locked { .. }))
        ));
        drop(db); // a crash: the control file still says "in production"
        assert!(matches!(
            set_checksums(&dir, false, &mut no_progress()),
            Err(OfflineError::NotShutDown { .. })
        ));
        Database::open(&dir, small_options(true))
            .unwrap()
            .close()
            .unwrap();
        verify_checksums(&dir, &mut no_progress()).unwrap();

        let mut bytes = data_bytes(&dir);
        bytes[PAGE_SIZE - folio_buffer::META_SIZE] ^= 1; // the meta magic
        std::fs::write(dir.join(DATA_FILE), &bytes).unwrap();
        assert!(matches!(
            verify_checksums(&dir, &mut no_progress()),
            Err(OfflineError::BadMeta { .. })
        ));
        let mut control = std::fs::read(dir.join(CONTROL_FILE)).unwrap();
        control[20] ^= 1;
        std::fs::write(dir.join(CONTROL_FILE), &control).unwrap();
        assert!(matches!(
            verify_checksums(&dir, &mut no_progress()),
            Err(OfflineError::Control(ControlError::Damaged { .. }))
        ));
    }
}
