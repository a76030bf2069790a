//! Non-unique trees: entries `(key, tid, value)` ordered by key, then by the
//! tiebreaker `tid` (a row id). They are stored in a unique [`Tree`] under an
//! order-preserving encoding of `(key, tid)`:
//!
//! | part | bytes |
//! |------|-------|
//! | key, escaped | each `0x00` becomes `0x00 0xFF`; other bytes as they are |
//! | terminator | `0x00 0x00` |
//! | tid | 8 bytes, big-endian |
//!
//! Comparing encodings bytewise compares keys bytewise and then tids: the
//! terminator sorts below any continuation (`0x00 0xFF` or a byte >= 1), so
//! a key sorts before every longer key it is a prefix of. A key prefix's
//! escaped form (without terminator) is a prefix of exactly the encodings of
//! keys with that prefix, so prefix scans map to prefix scans.
//!
//! **Prefix-free keys** ([`KeyForm::PrefixFree`]): when no key of the tree
//! is a proper prefix of another (fixed-length keys, or folio-row's index
//! keys, where every column's encoding ends itself), the entry is the key
//! as it is, then the tid: two different keys differ at a byte both have,
//! so `key ‖ tid` compares as `(key, tid)` with no escape and no
//! terminator. Keys are shorter (a small integer's zero bytes are not
//! doubled) and the limit is twice as high ([`MAX_PREFIX_FREE_KEY_LEN`]).
//! The form is the caller's promise, fixed when the tree is created and
//! recorded by whoever names the tree (the root map's kind, the catalog's
//! index row).

use crate::kill::LeafStamp;
use crate::scan::{Direction, Scan};
use crate::{BtreeError, Tree, VerifyReport};
use folio_buffer::BufferPool;
use folio_page::PageId;
use folio_wal::Wal;
use std::ops::Bound;
use std::sync::Arc;

/// Longest key a non-unique tree accepts: a key of only zero bytes doubles
/// when escaped, and the terminator and tid take 10 bytes.
pub const MAX_MULTI_KEY_LEN: usize = (crate::MAX_KEY_LEN - 10) / 2;

/// Longest key of a [`KeyForm::PrefixFree`] tree: the key and the tid.
pub const MAX_PREFIX_FREE_KEY_LEN: usize = crate::MAX_KEY_LEN - 8;

/// How a non-unique tree encodes its keys (module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyForm {
    /// Any keys: escaped, with a terminator.
    Escaped,
    /// Keys none of which is a proper prefix of another: as they are.
    /// Scan bounds are then keys (or, for lower bounds and excluded upper
    /// bounds, any bytes); an included upper bound `p` that is a proper
    /// prefix of keys takes in the keys that start with `p`, and an
    /// excluded lower bound `p` leaves them out (prefix ranges, as the
    /// embedded API's are, are exact).
    PrefixFree,
}

impl KeyForm {
    /// The longest key this form accepts.
    pub fn max_key_len(self) -> usize {
        match self {
            KeyForm::Escaped => MAX_MULTI_KEY_LEN,
            KeyForm::PrefixFree => MAX_PREFIX_FREE_KEY_LEN,
        }
    }

    /// Encodes `(key, tid)`; checks the key length limit.
    pub(crate) fn encode(self, key: &[u8], tid: u64) -> Result<Vec<u8>, BtreeError> {
        if key.len() > self.max_key_len() {
            return Err(BtreeError::KeyTooLarge {
                len: key.len(),
                max: self.max_key_len(),
            });
        }
        match self {
            KeyForm::Escaped => encode(key, tid),
            KeyForm::PrefixFree => {
                let mut out = Vec::with_capacity(key.len() + 8);
                out.extend_from_slice(key);
                out.extend_from_slice(&tid.to_be_bytes());
                Ok(out)
            }
        }
    }

    /// Decodes an encoded entry key into `(key, tid)`.
    fn decode(self, encoded: &[u8]) -> Option<(Vec<u8>, u64)> {
        match self {
            KeyForm::Escaped => decode(encoded),
            KeyForm::PrefixFree => {
                let (key, tid) = encoded.split_at_checked(encoded.len().checked_sub(8)?)?;
                Some((key.to_vec(), u64::from_be_bytes(tid.try_into().ok()?)))
            }
        }
    }

    /// The encoded bound below every entry of `key` (`after`: above them
    /// all); `None` when nothing lies above (a prefix-free key of only
    /// `0xFF` bytes).
    fn bound(self, key: &[u8], after: bool) -> Option<Vec<u8>> {
        match (self, after) {
            (KeyForm::Escaped, false) => Some(key_bound(key, [0, 0])),
            (KeyForm::Escaped, true) => Some(key_bound(key, [0, 1])),
            (KeyForm::PrefixFree, false) => Some(key.to_vec()),
            // Every entry of a key past `key` is at or past its successor
            // (no key extends `key`).
            (KeyForm::PrefixFree, true) => crate::scan::prefix_successor(key),
        }
    }

    /// The encoded form of a key prefix (prefix scans).
    fn prefix(self, prefix: &[u8]) -> Vec<u8> {
        match self {
            KeyForm::Escaped => {
                let mut out = Vec::new();
                escape(prefix, &mut out);
                out
            }
            KeyForm::PrefixFree => prefix.to_vec(),
        }
    }
}

/// The escaped bytes of `key` (the one owner of the escape rule).
fn escaped(key: &[u8]) -> impl Iterator<Item = u8> + '_ {
    key.iter().flat_map(|&b| {
        let escape = (b == 0).then_some(0xFF);
        std::iter::once(b).chain(escape)
    })
}

fn escape(key: &[u8], out: &mut Vec<u8>) {
    out.extend(escaped(key));
}

/// Encodes `(key, tid)`; checks the key length limit.
pub(crate) fn encode(key: &[u8], tid: u64) -> Result<Vec<u8>, BtreeError> {
    if key.len() > MAX_MULTI_KEY_LEN {
        return Err(BtreeError::KeyTooLarge {
            len: key.len(),
            max: MAX_MULTI_KEY_LEN,
        });
    }
    let mut out = Vec::with_capacity(2 * key.len() + 10);
    escape(key, &mut out);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&tid.to_be_bytes());
    Ok(out)
}

/// The escaped key followed by `terminator` (`[0, 0]` sorts before every tid
/// of the key, `[0, 1]` after all of them).
fn key_bound(key: &[u8], terminator: [u8; 2]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * key.len() + 2);
    escape(key, &mut out);
    out.extend_from_slice(&terminator);
    out
}

/// Decodes an encoded entry key into `(key, tid)`.
fn decode(encoded: &[u8]) -> Option<(Vec<u8>, u64)> {
    let (body, tid) = encoded.split_at_checked(encoded.len().checked_sub(8)?)?;
    let tid = u64::from_be_bytes(tid.try_into().ok()?);
    let mut key = Vec::with_capacity(body.len());
    let mut bytes = body.iter();
    while let Some(&b) = bytes.next() {
        if b != 0 {
            key.push(b);
            continue;
        }
        match bytes.next() {
            Some(0xFF) => key.push(0),
            Some(0) if bytes.as_slice().is_empty() => return Some((key, tid)),
            _ => return None,
        }
    }
    None
}

/// A bottom-up build of a [`MultiTree`] ([`MultiTree::builder`]).
#[derive(Debug)]
pub struct MultiBuilder<'t> {
    inner: crate::build::Builder<'t>,
    form: KeyForm,
}

impl MultiBuilder<'_> {
    /// Adds `(key, tid) -> value`, after every pair pushed before in
    /// `(key, tid)` order (which both key forms keep).
    pub fn push(&mut self, key: &[u8], tid: u64, value: &[u8]) -> Result<(), BtreeError> {
        let encoded = self.form.encode(key, tid)?;
        self.inner.push(encoded, value.to_vec())
    }

    /// Writes what is pending and the root.
    pub fn finish(self) -> Result<crate::BuildStats, BtreeError> {
        self.inner.finish()
    }
}

/// A non-unique B+tree: several entries per key, told apart by a `tid`.
#[derive(Debug, Clone)]
pub struct MultiTree {
    tree: Tree,
    form: KeyForm,
}

impl MultiTree {
    /// Creates an empty, unlogged non-unique tree in `pool`.
    pub fn create(pool: Arc<BufferPool>) -> Result<MultiTree, BtreeError> {
        MultiTree::create_logged(pool, None)
    }

    /// Creates an empty non-unique tree logging to `wal` (`None`: unlogged).
    pub fn create_logged(
        pool: Arc<BufferPool>,
        wal: Option<Arc<Wal>>,
    ) -> Result<MultiTree, BtreeError> {
        MultiTree::create_with(pool, wal, KeyForm::Escaped)
    }

    /// Creates an empty non-unique tree of keys in `form`, logging to
    /// `wal` (`None`: unlogged).
    pub fn create_with(
        pool: Arc<BufferPool>,
        wal: Option<Arc<Wal>>,
        form: KeyForm,
    ) -> Result<MultiTree, BtreeError> {
        Ok(MultiTree {
            tree: Tree::create_logged(pool, wal)?,
            form,
        })
    }

    /// Opens the unlogged non-unique tree rooted at `root`.
    pub fn open(pool: Arc<BufferPool>, root: PageId) -> Result<MultiTree, BtreeError> {
        MultiTree::open_logged(pool, root, None)
    }

    /// Opens the non-unique tree rooted at `root`, logging to `wal`.
    pub fn open_logged(
        pool: Arc<BufferPool>,
        root: PageId,
        wal: Option<Arc<Wal>>,
    ) -> Result<MultiTree, BtreeError> {
        MultiTree::open_with(pool, root, wal, KeyForm::Escaped)
    }

    /// Opens the non-unique tree of keys in `form` rooted at `root`.
    pub fn open_with(
        pool: Arc<BufferPool>,
        root: PageId,
        wal: Option<Arc<Wal>>,
        form: KeyForm,
    ) -> Result<MultiTree, BtreeError> {
        Ok(MultiTree {
            tree: Tree::open_logged(pool, root, wal)?,
            form,
        })
    }

    /// How the tree encodes its keys.
    pub fn form(&self) -> KeyForm {
        self.form
    }

    /// The longest key the tree accepts.
    pub fn max_key_len(&self) -> usize {
        self.form.max_key_len()
    }

    /// The underlying unique tree of encoded keys.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn root(&self) -> PageId {
        self.tree.root()
    }

    /// Starts a bottom-up build of this tree, which must be empty
    /// ([`Tree::builder`]); entries go in ascending `(key, tid)` order.
    pub fn builder(&self) -> Result<MultiBuilder<'_>, BtreeError> {
        Ok(MultiBuilder {
            inner: self.tree.builder()?,
            form: self.form,
        })
    }

    /// Inserts `(key, tid) -> value`; [`BtreeError::KeyExists`] if that pair exists.
    pub fn insert(&self, key: &[u8], tid: u64, value: &[u8]) -> Result<(), BtreeError> {
        self.tree.insert(&self.form.encode(key, tid)?, value)
    }

    /// Inserts or replaces `(key, tid) -> value`; true if it replaced.
    pub fn upsert(&self, key: &[u8], tid: u64, value: &[u8]) -> Result<bool, BtreeError> {
        self.tree.upsert(&self.form.encode(key, tid)?, value)
    }

    /// The value of `(key, tid)`.
    pub fn get(&self, key: &[u8], tid: u64) -> Result<Option<Vec<u8>>, BtreeError> {
        match self.form.encode(key, tid) {
            Ok(encoded) => self.tree.get(&encoded),
            Err(_) => Ok(None),
        }
    }

    /// Deletes `(key, tid)`; true if it was present.
    pub fn delete(&self, key: &[u8], tid: u64) -> Result<bool, BtreeError> {
        match self.form.encode(key, tid) {
            Ok(encoded) => self.tree.delete(&encoded),
            Err(_) => Ok(false),
        }
    }

    /// Scans the entries whose keys lie within the bounds, in key then tid order.
    pub fn scan(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        direction: Direction,
    ) -> MultiScan<'_> {
        let form = self.form;
        // A bound past the last possible key: the range is empty above it.
        let mut empty = false;
        let mut past = |bound: Option<Vec<u8>>| {
            bound.unwrap_or_else(|| {
                empty = true;
                Vec::new()
            })
        };
        let lower = match lower {
            Bound::Included(k) => Bound::Included(past(form.bound(k, false))),
            Bound::Excluded(k) => Bound::Included(past(form.bound(k, true))),
            Bound::Unbounded => Bound::Unbounded,
        };
        let upper = match upper {
            Bound::Included(k) => match form.bound(k, true) {
                Some(after) => Bound::Excluded(after),
                None => Bound::Unbounded,
            },
            Bound::Excluded(k) => Bound::Excluded(past(form.bound(k, false))),
            Bound::Unbounded => Bound::Unbounded,
        };
        // An empty range: [x, x).
        let (lower, upper) = if empty {
            (Bound::Included(Vec::new()), Bound::Excluded(Vec::new()))
        } else {
            (lower, upper)
        };
        let scan = self.tree.scan(
            lower.as_ref().map(Vec::as_slice),
            upper.as_ref().map(Vec::as_slice),
            direction,
        );
        MultiScan { scan, form }
    }

    /// The tids of every entry of `key`, in tid order, when they all lie
    /// in one leaf (the common case): read from the leaf without copying
    /// it. Returns false when they may span leaves: then use
    /// [`MultiTree::scan_key`].
    pub fn probe(&self, key: &[u8], tids: &mut Vec<u64>) -> Result<bool, BtreeError> {
        Ok(self.probe_stamped(key, tids)?.is_some())
    }

    /// [`MultiTree::probe`], also saying which leaf the tids were read
    /// from and its LSN at that read (`None`: scan instead), for
    /// [`MultiTree::delete_if_unchanged`].
    pub fn probe_stamped(
        &self,
        key: &[u8],
        tids: &mut Vec<u64>,
    ) -> Result<Option<LeafStamp>, BtreeError> {
        tids.clear();
        if key.len() > self.form.max_key_len() {
            return Ok(None);
        }
        if self.form == KeyForm::PrefixFree {
            // Every entry of the key is the key and 8 bytes of tid.
            return self.tree.probe_suffixes(key, tids);
        }
        // The escaped key and terminator [0, 0] (`key_bound`), on the
        // stack (the key limit keeps them within it); the suffix of each
        // entry is its tid, big-endian.
        let mut bound = [0u8; crate::MAX_KEY_LEN];
        let mut len = 0;
        for (at, b) in bound.iter_mut().zip(escaped(key).chain([0, 0])) {
            *at = b;
            len += 1;
        }
        self.tree.probe_suffixes(&bound[..len], tids)
    }

    /// Scans every entry of `key` (an index probe).
    pub fn scan_key(&self, key: &[u8], direction: Direction) -> MultiScan<'_> {
        self.scan(Bound::Included(key), Bound::Included(key), direction)
    }

    /// Scans the entries whose keys start with `prefix`.
    pub fn scan_prefix(&self, prefix: &[u8], direction: Direction) -> MultiScan<'_> {
        MultiScan {
            scan: self.tree.scan_prefix(&self.form.prefix(prefix), direction),
            form: self.form,
        }
    }

    /// Counts the entries whose keys lie within the bounds.
    pub fn count(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Result<u64, BtreeError> {
        let mut n = 0;
        let mut scan = self.scan(lower, upper, Direction::Forward);
        while scan.scan.next_entry()?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    /// [`Tree::verify`] of the underlying tree.
    pub fn verify(&self) -> Result<VerifyReport, BtreeError> {
        self.tree.verify()
    }
}

/// A `(key, tid, value)` entry of a non-unique tree; the value is borrowed
/// from the scan's batch.
pub type MultiEntry<'a> = (Vec<u8>, u64, &'a [u8]);

/// A scan of a [`MultiTree`]: yields `(key, tid, value)`.
#[derive(Debug)]
pub struct MultiScan<'t> {
    scan: Scan<'t>,
    form: KeyForm,
}

impl MultiScan<'_> {
    /// The next entry: decoded key and tid, and the value borrowed from the batch.
    pub fn next_entry(&mut self) -> Result<Option<MultiEntry<'_>>, BtreeError> {
        let root = self.scan.tree_root();
        match self.scan.next_entry()? {
            None => Ok(None),
            Some((encoded, value)) => match self.form.decode(encoded) {
                Some((key, tid)) => Ok(Some((key, tid, value))),
                None => Err(BtreeError::corrupt(root, "malformed non-unique entry key")),
            },
        }
    }

    /// Pages this scan has accessed so far.
    pub fn pages_accessed(&self) -> u64 {
        self.scan.pages_accessed()
    }

    /// The leaf the last entry returned was read from ([`Scan::batch_stamp`]).
    pub fn batch_stamp(&self) -> Option<LeafStamp> {
        self.scan.batch_stamp()
    }
}

impl Iterator for MultiScan<'_> {
    type Item = Result<(Vec<u8>, u64, Vec<u8>), BtreeError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_entry() {
            Ok(Some((key, tid, value))) => Some(Ok((key, tid, value.to_vec()))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_preserves_order_and_round_trips() {
        // Proves (key, tid) encodings sort like the pairs themselves
        // (including keys with zero bytes and prefixes of each other) and
        // decode back to the pair.
        let keys: Vec<&[u8]> = vec![
            b"", b"\0", b"\0\0", b"\0\x01", b"a", b"a\0", b"a\0b", b"ab", b"\xff",
        ];
        let mut pairs = Vec::new();
        for k in &keys {
            for tid in [0u64, 1, u64::MAX] {
                pairs.push((k.to_vec(), tid));
            }
        }
        let mut by_pair = pairs.clone();
        by_pair.sort();
        let mut by_encoding = pairs.clone();
        by_encoding.sort_by_key(|(k, t)| encode(k, *t).unwrap());
        assert_eq!(by_pair, by_encoding);
        for (k, t) in &pairs {
            assert_eq!(decode(&encode(k, *t).unwrap()), Some((k.clone(), *t)));
        }
        assert_eq!(decode(b"\0"), None);
        assert_eq!(decode(b"a\0\0\0\0\0\0\0\0\0"), None);
    }
}
