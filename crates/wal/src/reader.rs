//! Reading records from an LSN across pages and segments, and deciding
//! where the WAL ends.
//!
//! End-of-WAL rules (README "End of WAL"): reading stops cleanly at the first
//! position where the next record cannot be read whole and valid — a page
//! that is missing, zeroed, has another address (stale recycled bytes), a
//! lower generation than the page before it (stale bytes from before the
//! last open) or a bad header CRC; a zero length; a record whose length,
//! continuation headers, CRC, layout or back-link is wrong.
//!
//! Such a position `X` is the end of the WAL *unless* some valid page at or
//! after `X`'s page says, in its `synced_upto` header field, that the log
//! was already durable beyond `X` when that page was written: then the
//! record at `X` had been fsynced (flushes end on record boundaries), so its
//! damage is corruption, not a torn tail, and reading fails with
//! [`WalError::CorruptMidLog`] unless `truncate_at_corruption` is set.

use crate::decode::{Record, decode_record_into, peek_total_len, plausible_total_len};
use crate::error::WalError;
use crate::meta::WalMeta;
use crate::record::{RECORD_ALIGN, RmgrId, align_record};
use crate::segment::{check_segment_len, parse_segment_file_name, segment_file_name};
use crate::wal_page::{
    PAGE_FLAG_CONT, WAL_PAGE_HEADER_SIZE, WAL_PAGE_PAYLOAD, WAL_PAGE_SIZE, WalPageHeader,
    bytepos_to_end_lsn, bytepos_to_lsn, lsn_to_bytepos,
};
use folio_io::{Dir, File, OpenOptions};
use folio_page::Lsn;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

/// WAL pages read per call (records, and the scan of the mid-log check):
/// replay reads the log front to back, and one 256 KiB read costs the
/// reading thread (which bounds parallel replay) far less than 32
/// page-sized ones.
const READ_CHUNK_PAGES: usize = 32;

/// How a reader treats damage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReaderOptions {
    /// The documented override: treat mid-log corruption as the end of the
    /// WAL (records after it are discarded) instead of failing.
    pub truncate_at_corruption: bool,
}

/// What the `truncate_at_corruption` override discarded: the reader met
/// damage (a corrupt record followed by valid WAL, or a short segment) and
/// ended the WAL there instead of failing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discarded {
    /// Where the WAL now ends: the first damaged position.
    pub from_lsn: Lsn,
    /// What was wrong there.
    pub reason: String,
    /// Bytes of WAL from `from_lsn` to the end of the last valid record
    /// found after it (0 when none was found).
    pub bytes: u64,
    /// Valid records found after the damage (whole, CRC-checked), which
    /// recovery does not replay.
    pub records: u64,
    /// The same, counted by resource manager and record type, so the
    /// caller can say how many were commits.
    pub records_by_type: BTreeMap<(RmgrId, u8), u64>,
    /// Short segment files met (name, length in bytes): the WAL in their
    /// missing bytes is lost and its records cannot be counted.
    pub short_segments: Vec<(String, u64)>,
    /// Bytes missing from those segments.
    pub missing_bytes: u64,
}

impl Discarded {
    /// Discarded records of one resource manager and type.
    pub fn records_of(&self, rmgr: RmgrId, rtype: u8) -> u64 {
        self.records_by_type
            .get(&(rmgr, rtype))
            .copied()
            .unwrap_or(0)
    }
}

/// Where a reader that read the log to its end stopped: proof that the WAL
/// was read through (only [`WalReader::wal_end`] makes one), so that
/// [`crate::Wal::open_at_end`] can continue the log there without reading
/// it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalEnd {
    pub(crate) end_lsn: Lsn,
    pub(crate) last_record_lsn: Option<Lsn>,
    pub(crate) records: u64,
}

impl WalEnd {
    /// The end of the valid WAL (where insertion continues).
    pub fn end_lsn(&self) -> Lsn {
        self.end_lsn
    }
}

/// Iterates records in LSN order.
pub struct WalReader {
    dir: Arc<dyn Dir>,
    meta: WalMeta,
    options: ReaderOptions,
    segnos: BTreeSet<u64>,
    files: HashMap<u64, Arc<dyn File>>,
    /// Consecutive WAL pages read together: `chunk_pages` pages from page
    /// index `chunk_first` (never across a segment's end).
    chunk: Vec<u8>,
    chunk_first: u64,
    chunk_pages: u64,
    /// Offset in `chunk` of the page `load_page` loaded last.
    page_at: usize,
    record: Vec<u8>,
    /// Where the next record starts.
    pos: Lsn,
    expected_prev: Option<Lsn>,
    last_generation: u32,
    last_start: Option<Lsn>,
    end_lsn: Lsn,
    done: bool,
    records_read: u64,
    /// Short segments accepted under `truncate_at_corruption` (segno, length).
    short: Vec<(u64, u64)>,
    /// What the override discarded, once the reader stopped at damage.
    discarded: Option<Discarded>,
}

impl fmt::Debug for WalReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalReader")
            .field("pos", &self.pos)
            .field("end_lsn", &self.end_lsn)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

enum Step {
    /// A valid record, decoded into the caller's `Record`.
    Record,
    /// The record at this LSN is unreadable (detail for the error).
    Invalid(String),
    /// Clean zeros where the next record would start.
    End,
}

impl WalReader {
    /// Opens a reader on the WAL in `dir`, positioned at the oldest record.
    pub fn open(dir: Arc<dyn Dir>, options: ReaderOptions) -> Result<WalReader, WalError> {
        let meta = WalMeta::load(dir.as_ref())?
            .ok_or_else(|| WalError::BadMeta("wal.meta not found: not a WAL directory".into()))?;
        let names = dir
            .list()
            .map_err(|e| WalError::io("listing", "WAL directory", e))?;
        let segnos = names
            .iter()
            .filter_map(|n| parse_segment_file_name(n))
            .collect();
        let mut reader = WalReader {
            dir,
            meta,
            options,
            segnos,
            files: HashMap::new(),
            chunk: vec![0; READ_CHUNK_PAGES * WAL_PAGE_SIZE],
            chunk_first: 0,
            chunk_pages: 0,
            page_at: 0,
            record: Vec::new(),
            pos: Lsn(WAL_PAGE_HEADER_SIZE as u64),
            expected_prev: None,
            last_generation: 0,
            last_start: None,
            end_lsn: Lsn(0),
            done: false,
            records_read: 0,
            short: Vec::new(),
            discarded: None,
        };
        reader.seek_to_oldest()?;
        Ok(reader)
    }

    /// The WAL's identity.
    pub fn meta(&self) -> &WalMeta {
        &self.meta
    }

    /// Positions the reader at the record starting at `lsn` (a record start
    /// returned by insertion or by this reader).
    pub fn seek(&mut self, lsn: Lsn) -> Result<(), WalError> {
        let in_page = lsn.0 % WAL_PAGE_SIZE as u64;
        if !lsn.0.is_multiple_of(RECORD_ALIGN as u64)
            || (in_page != 0 && in_page < WAL_PAGE_HEADER_SIZE as u64)
        {
            return Err(WalError::BadStart {
                lsn,
                detail: "not a record boundary".into(),
            });
        }
        let lsn = if in_page == 0 {
            Lsn(lsn.0 + WAL_PAGE_HEADER_SIZE as u64)
        } else {
            lsn
        };
        self.reset(lsn);
        Ok(())
    }

    fn reset(&mut self, lsn: Lsn) {
        self.pos = lsn;
        // Nothing read yet: the end is the start position, or the page's
        // first byte when the position is the page's first record.
        self.end_lsn = if lsn.0 % WAL_PAGE_SIZE as u64 == WAL_PAGE_HEADER_SIZE as u64 {
            Lsn(lsn.0 - WAL_PAGE_HEADER_SIZE as u64)
        } else {
            lsn
        };
        self.expected_prev = None;
        self.last_generation = 0;
        self.last_start = None;
        self.done = false;
    }

    /// Positions the reader at the first record that starts in the oldest
    /// segment on disk (skipping the tail of a record continued from a
    /// removed segment).
    pub fn seek_to_oldest(&mut self) -> Result<(), WalError> {
        let Some(&segno) = self.segnos.first() else {
            self.reset(Lsn(WAL_PAGE_HEADER_SIZE as u64));
            return Ok(());
        };
        let first_page = segno * self.meta.segment_size_bytes / WAL_PAGE_SIZE as u64;
        let start_pos = first_page * WAL_PAGE_PAYLOAD as u64;
        let skip = match self.load_page(first_page)? {
            Some(h) if h.flags & PAGE_FLAG_CONT != 0 => u64::from(h.cont_len),
            _ => 0,
        };
        self.reset(bytepos_to_lsn(start_pos + align_record(skip)));
        Ok(())
    }

    /// The end of the last record read (or the start position): after the
    /// reader returned `None`, the end of the WAL.
    pub fn end_lsn(&self) -> Lsn {
        self.end_lsn
    }

    /// Start of the last record read, if any.
    pub fn last_record_lsn(&self) -> Option<Lsn> {
        self.last_start
    }

    /// Records returned so far.
    pub fn records_read(&self) -> u64 {
        self.records_read
    }

    /// What `truncate_at_corruption` discarded, if the reader stopped at
    /// damage (set once it returned the end of the WAL).
    pub fn discarded(&self) -> Option<&Discarded> {
        self.discarded.as_ref()
    }

    /// Where the WAL ends, once this reader has reached the end (a read
    /// returned `Ok(None)`); `None` before.
    pub fn wal_end(&self) -> Option<WalEnd> {
        self.done.then_some(WalEnd {
            end_lsn: self.end_lsn,
            last_record_lsn: self.last_start,
            records: self.records_read,
        })
    }

    /// The next record, `Ok(None)` at the end of the WAL, or
    /// `CorruptMidLog` (see the module comment).
    pub fn next_record(&mut self) -> Result<Option<Record>, WalError> {
        let mut record = Record::empty();
        Ok(self.next_record_into(&mut record)?.then_some(record))
    }

    /// As [`WalReader::next_record`], decoding into `record` and reusing
    /// its allocations (replay recycles a few records instead of
    /// allocating one per record); `Ok(false)` at the end of the WAL, when
    /// `record` holds garbage.
    pub fn next_record_into(&mut self, record: &mut Record) -> Result<bool, WalError> {
        if self.done {
            return Ok(false);
        }
        let at = self.pos;
        match self.read_at(at, record)? {
            Step::Record => {
                let rec = &*record;
                self.expected_prev = Some(rec.lsn);
                self.last_start = Some(rec.lsn);
                self.end_lsn = rec.end_lsn;
                let end_pos = lsn_to_bytepos(rec.lsn) + align_record(u64::from(rec.total_len));
                self.pos = bytepos_to_lsn(end_pos);
                self.records_read += 1;
                Ok(true)
            }
            Step::End => {
                self.done = true;
                self.check_durable_after(at, "zero length where a record should start".into())
            }
            Step::Invalid(detail) => {
                self.done = true;
                self.check_durable_after(at, detail)
            }
        }
    }

    /// An unreadable record at `at`: the end of the WAL, or corruption if
    /// later valid pages say `at` was already durable (or a short segment
    /// lies at or after it: opening a short segment fails first, unless the
    /// override accepted it). Under the override, the damage ends the WAL
    /// and what it discards is counted.
    fn check_durable_after(&mut self, at: Lsn, detail: String) -> Result<bool, WalError> {
        let durable = self.durable_beyond(at)?;
        let pages_per_seg = self.meta.segment_size_bytes / WAL_PAGE_SIZE as u64;
        let at_segno = at.0 / WAL_PAGE_SIZE as u64 / pages_per_seg;
        let short_after = self.short.iter().any(|&(segno, _)| segno >= at_segno);
        match durable {
            None if !short_after => Ok(false),
            Some(durable_upto) if !self.options.truncate_at_corruption => {
                Err(WalError::CorruptMidLog {
                    lsn: at,
                    durable_upto,
                    detail,
                })
            }
            _ => {
                let discarded = self.count_discarded(at, detail)?;
                self.discarded = Some(discarded);
                Ok(false)
            }
        }
    }

    /// Counts the valid records after the damage at `at` that the override
    /// discards: every valid page after `at`'s page (not older than the
    /// pages read) is searched for its first record start (past the part
    /// of a record continued from before), and records are read from there
    /// with the usual checks until one is invalid. The reader's own
    /// position and counters are restored afterwards. Bounded: the page
    /// index only grows, up to the end of the last segment file.
    fn count_discarded(&mut self, at: Lsn, reason: String) -> Result<Discarded, WalError> {
        let saved = (
            self.pos,
            self.end_lsn,
            self.expected_prev,
            self.last_start,
            self.last_generation,
        );
        let generation_floor = self.last_generation;
        let page_bytes = WAL_PAGE_SIZE as u64;
        let payload = WAL_PAGE_PAYLOAD as u64;
        let pages_per_seg = self.meta.segment_size_bytes / page_bytes;
        let at_segno = at.0 / page_bytes / pages_per_seg;
        let end_page = self.segnos.last().map_or(0, |s| (s + 1) * pages_per_seg);
        let mut report = Discarded {
            from_lsn: at,
            reason,
            ..Discarded::default()
        };
        let mut last_end = at;
        let mut index = at.0 / page_bytes + 1;
        let mut record = Record::empty();
        while index < end_page {
            let header = match self.load_page(index)? {
                Some(h) if h.generation >= generation_floor => h,
                _ => {
                    index += 1;
                    continue;
                }
            };
            let skip = align_record(u64::from(header.cont_len));
            if skip >= payload {
                index += 1;
                continue;
            }
            self.reset(bytepos_to_lsn(index * payload + skip));
            self.last_generation = generation_floor;
            while let Step::Record = self.read_at(self.pos, &mut record)? {
                report.records += 1;
                *report
                    .records_by_type
                    .entry((record.rmgr, record.rtype))
                    .or_default() += 1;
                last_end = last_end.max(record.end_lsn);
                self.expected_prev = Some(record.lsn);
                let end_pos =
                    lsn_to_bytepos(record.lsn) + align_record(u64::from(record.total_len));
                self.pos = bytepos_to_lsn(end_pos);
            }
            index = (index + 1).max(self.pos.0 / page_bytes + 1);
        }
        report.bytes = last_end.0 - at.0;
        for &(segno, len) in self.short.iter().filter(|(s, _)| *s >= at_segno) {
            report.short_segments.push((segment_file_name(segno), len));
            report.missing_bytes += self.meta.segment_size_bytes - len;
        }
        (
            self.pos,
            self.end_lsn,
            self.expected_prev,
            self.last_start,
            self.last_generation,
        ) = saved;
        self.done = true;
        Ok(report)
    }

    /// Scans every page from `at`'s page to the end of the last segment file
    /// for a valid page, not older than the pages read so far, claiming
    /// `synced_upto > at`.
    fn durable_beyond(&mut self, at: Lsn) -> Result<Option<Lsn>, WalError> {
        let pages_per_seg = self.meta.segment_size_bytes / WAL_PAGE_SIZE as u64;
        let first = at.0 / WAL_PAGE_SIZE as u64;
        let segnos: Vec<u64> = self
            .segnos
            .range(first / pages_per_seg..)
            .copied()
            .collect();
        for segno in segnos {
            if self.file(segno)?.is_none() {
                continue;
            }
            let start = (segno * pages_per_seg).max(first);
            for index in start..(segno + 1) * pages_per_seg {
                // Pages of an older generation are stale (written before
                // the open that continued the log here): ignored.
                if let Some(h) = self.load_page(index)?
                    && h.generation >= self.last_generation
                    && h.synced_upto > at
                {
                    return Ok(Some(h.synced_upto));
                }
            }
        }
        Ok(None)
    }

    fn header_matches(&self, h: &WalPageHeader, index: u64) -> bool {
        h.page_addr.0 == index * WAL_PAGE_SIZE as u64
            && h.system_id == self.meta.system_id
            && h.timeline == self.meta.timeline
    }

    fn file(&mut self, segno: u64) -> Result<Option<Arc<dyn File>>, WalError> {
        if !self.segnos.contains(&segno) {
            return Ok(None);
        }
        if let Some(f) = self.files.get(&segno) {
            return Ok(Some(f.clone()));
        }
        let name = segment_file_name(segno);
        match self.dir.open(&name, OpenOptions::EXISTING) {
            Ok(f) => {
                let len = f
                    .len()
                    .map_err(|e| WalError::io("sizing", name.clone(), e))?;
                if let Err(short) = check_segment_len(&name, len, self.meta.segment_size_bytes) {
                    if !self.options.truncate_at_corruption {
                        return Err(short);
                    }
                    // Accepted: the missing bytes read as zeros, which end
                    // the WAL there; `count_discarded` reports the loss.
                    self.short.push((segno, len));
                }
                self.files.insert(segno, f.clone());
                Ok(Some(f))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(WalError::io("opening", name, e)),
        }
    }

    /// Makes WAL page `index` the current page (`page_at`), reading it
    /// with the pages after it in its segment unless the chunk holds it;
    /// its header if valid at that address (generation not checked here).
    fn load_page(&mut self, index: u64) -> Result<Option<WalPageHeader>, WalError> {
        if !(self.chunk_first..self.chunk_first + self.chunk_pages).contains(&index) {
            self.chunk_pages = 0;
            let pages_per_seg = self.meta.segment_size_bytes / WAL_PAGE_SIZE as u64;
            let segno = index / pages_per_seg;
            let Some(file) = self.file(segno)? else {
                return Ok(None);
            };
            let in_segment = index % pages_per_seg;
            let pages = (pages_per_seg - in_segment).min(READ_CHUNK_PAGES as u64);
            file.read_at(
                &mut self.chunk[..pages as usize * WAL_PAGE_SIZE],
                in_segment * WAL_PAGE_SIZE as u64,
            )
            .map_err(|e| WalError::io("reading", segment_file_name(segno), e))?;
            self.chunk_first = index;
            self.chunk_pages = pages;
        }
        self.page_at = (index - self.chunk_first) as usize * WAL_PAGE_SIZE;
        Ok(WalPageHeader::parse(self.page()).filter(|h| self.header_matches(h, index)))
    }

    /// The page `load_page` loaded last.
    fn page(&self) -> &[u8] {
        &self.chunk[self.page_at..self.page_at + WAL_PAGE_SIZE]
    }

    /// Loads a page as part of continuous reading: also checks that its
    /// generation does not go backwards.
    fn load_next_page(&mut self, index: u64) -> Result<Option<WalPageHeader>, WalError> {
        let h = self.load_page(index)?;
        Ok(h.filter(|h| {
            if h.generation < self.last_generation {
                return false;
            }
            self.last_generation = h.generation;
            true
        }))
    }

    fn read_at(&mut self, at: Lsn, out: &mut Record) -> Result<Step, WalError> {
        let page_bytes = WAL_PAGE_SIZE as u64;
        let index = at.0 / page_bytes;
        let in_page = (at.0 % page_bytes) as usize;
        debug_assert!(in_page >= WAL_PAGE_HEADER_SIZE);
        let Some(h) = self.load_next_page(index)? else {
            return Ok(Step::Invalid(format!(
                "no valid WAL page at {}",
                Lsn(index * page_bytes)
            )));
        };
        if in_page == WAL_PAGE_HEADER_SIZE && h.flags & PAGE_FLAG_CONT != 0 {
            return Ok(Step::Invalid(
                "page continues a record where one should start".into(),
            ));
        }
        let Some(total_len) = peek_total_len(&self.page()[in_page..]) else {
            return Ok(Step::Invalid("record header split across pages".into()));
        };
        if total_len == 0 {
            return Ok(Step::End);
        }
        if !plausible_total_len(total_len) {
            return Ok(Step::Invalid(format!(
                "implausible record length {total_len}"
            )));
        }
        let total = total_len as usize;
        let end_pos = lsn_to_bytepos(at) + align_record(u64::from(total_len));
        let end_lsn = bytepos_to_end_lsn(end_pos);
        if total <= WAL_PAGE_SIZE - in_page {
            // The whole record is on this page: decode it in place.
            let bytes = &self.page()[in_page..in_page + total];
            if let Err(e) = decode_record_into(bytes, out, at, end_lsn) {
                return Ok(Step::Invalid(e.to_string()));
            }
            return Ok(self.check_back_link(out));
        }
        self.record.clear();
        let take = total.min(WAL_PAGE_SIZE - in_page);
        let page = &self.chunk[self.page_at..self.page_at + WAL_PAGE_SIZE];
        self.record
            .extend_from_slice(&page[in_page..in_page + take]);
        let mut next = index + 1;
        while self.record.len() < total {
            let remaining = total - self.record.len();
            let Some(h) = self.load_next_page(next)? else {
                return Ok(Step::Invalid(format!(
                    "record continues into missing or invalid page {}",
                    Lsn(next * page_bytes)
                )));
            };
            if h.flags & PAGE_FLAG_CONT == 0 || h.cont_len as usize != remaining {
                return Ok(Step::Invalid(
                    "continuation header does not match the record".into(),
                ));
            }
            let take = remaining.min(WAL_PAGE_PAYLOAD);
            let page = &self.chunk[self.page_at..self.page_at + WAL_PAGE_SIZE];
            self.record
                .extend_from_slice(&page[WAL_PAGE_HEADER_SIZE..WAL_PAGE_HEADER_SIZE + take]);
            next += 1;
        }
        if let Err(e) = decode_record_into(&self.record, out, at, end_lsn) {
            return Ok(Step::Invalid(e.to_string()));
        }
        Ok(self.check_back_link(out))
    }

    /// A decoded record must point back at the record before it.
    fn check_back_link(&self, record: &Record) -> Step {
        match self.expected_prev {
            Some(prev) if record.prev_lsn != prev => Step::Invalid(format!(
                "back-link {} does not point at the previous record {prev}",
                record.prev_lsn
            )),
            _ => Step::Record,
        }
    }
}

impl Iterator for WalReader {
    type Item = Result<Record, WalError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}
