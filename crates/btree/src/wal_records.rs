//! The B+tree's WAL records (resource manager `RmgrId::BTREE`): record
//! types and the byte layouts of their block data and main data. All
//! integers are little-endian. Decoding checks every length and never
//! panics; a bad payload is an error string the caller wraps.
//!
//! | rtype | name | blocks (in order) | block data | main data |
//! |------:|------|-------------------|------------|-----------|
//! | 1 | `CREATE` | 0 new root leaf (image) | — | — |
//! | 2 | `INSERT` | 0 leaf | entry data unless imaged | — |
//! | 3 | `UPDATE` | 0 leaf | entry data unless imaged | — |
//! | 4 | `DELETE` | 0 leaf | entry data (no value) unless imaged | — |
//! | 5 | `SPLIT` | 0 split node, 1 new right node (image), 2 parent, [3 old right sibling] | — | `SPLIT` main data |
//! | 6 | `ROOT_SPLIT` | 0 root, 1 new left child (image), 2 new right child (image) | — | `ROOT_SPLIT` main data |
//! | 7 | `UNLINK` | 0 parent, 1 left sibling, 2 emptied leaf, [3 right sibling] | — | `UNLINK` main data |
//! | 8 | `BUILD` | 0 a node written by a bottom-up build (image; the root last) | — | — |
//!
//! "image" blocks are pages allocated by the change: they always carry a
//! full-page image (the page after the change), so their redo never reads
//! the page (it may be torn, or stale from an earlier life). Other blocks
//! carry an image only under the full-page-image rule
//! (`Wal::needs_page_image`), and then no block data.
//!
//! Entry data (`INSERT`, `UPDATE`; `DELETE` stops after the key):
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0 | 2 | slot index |
//! | 2 | 2 | key length `k` |
//! | 4 | k | key |
//! | 4 + k | rest | value (absent for `DELETE`) |
//!
//! `SPLIT` main data:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0 | 1 | level of the split node |
//! | 1 | 2 | split point `at` (slots `[0, at)` stay left) |
//! | 3 | 2 | child position of the split node in the parent (the separator goes into slot `pos`) |
//! | 5 | 2 | separator length `s` |
//! | 7 | s | separator: the right node's low fence, the left node's new high fence |
//!
//! `ROOT_SPLIT` main data:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0 | 1 | level of the root before the split |
//! | 1 | 2 | separator length `s` |
//! | 3 | s | separator (the root's only key afterwards) |
//!
//! `UNLINK` main data:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0 | 2 | child position of the emptied leaf in the parent (≥ 1) |
//! | 2 | 1 | 1 if the leaf had a high fence, else 0 |
//! | 3 | 2 | high fence length `h` (0 without one) |
//! | 5 | h | the leaf's high fence, which the left sibling takes over |

/// A new tree's root leaf.
pub(crate) const CREATE: u8 = 1;
/// An entry inserted into a leaf.
pub(crate) const INSERT: u8 = 2;
/// A leaf entry's value replaced.
pub(crate) const UPDATE: u8 = 3;
/// An entry removed from a leaf.
pub(crate) const DELETE: u8 = 4;
/// A non-root node split.
pub(crate) const SPLIT: u8 = 5;
/// A root split (the root stays, two new children).
pub(crate) const ROOT_SPLIT: u8 = 6;
/// An empty leaf unlinked from its parent and siblings (freed next).
pub(crate) const UNLINK: u8 = 7;
/// A node written whole by a bottom-up build (`build.rs`).
pub(crate) const BUILD: u8 = 8;

/// The name of record type `rtype`.
pub(crate) fn type_name(rtype: u8) -> &'static str {
    match rtype {
        CREATE => "CREATE",
        INSERT => "INSERT",
        UPDATE => "UPDATE",
        DELETE => "DELETE",
        SPLIT => "SPLIT",
        ROOT_SPLIT => "ROOT_SPLIT",
        UNLINK => "UNLINK",
        BUILD => "BUILD",
        _ => "UNKNOWN",
    }
}

/// Bounds-checked reading of a payload.
struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if self.bytes.len() < n {
            return Err(format!(
                "payload ends inside {what} ({} of {n} bytes)",
                self.bytes.len()
            ));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<usize, String> {
        let b = self.take(2, what)?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }
    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }
    fn finish(&self) -> Result<(), String> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(format!("{} trailing payload bytes", self.bytes.len()))
        }
    }
}

fn u16_le(value: usize) -> [u8; 2] {
    // Slot indexes, positions and key lengths are bounded by the page size.
    let value = u16::try_from(value).expect("page-bounded value fits u16");
    value.to_le_bytes()
}

/// The fixed part of entry data: slot index and key length. The key (and
/// for `INSERT`/`UPDATE` the value) follow as separate pieces, borrowed
/// from the caller, so the hot path copies nothing into a buffer.
pub(crate) fn encode_entry_header(index: usize, key_len: usize) -> [u8; 4] {
    let mut out = [0u8; 4];
    out[..2].copy_from_slice(&u16_le(index));
    out[2..].copy_from_slice(&u16_le(key_len));
    out
}

/// Decoded entry data of `INSERT`, `UPDATE` or `DELETE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryData<'a> {
    pub index: usize,
    pub key: &'a [u8],
    /// Empty for `DELETE`.
    pub value: &'a [u8],
}

/// Decodes entry data; `with_value` is false for `DELETE` (no bytes may
/// follow the key).
pub(crate) fn decode_entry(data: &[u8], with_value: bool) -> Result<EntryData<'_>, String> {
    let mut c = Cursor { bytes: data };
    let index = c.u16("slot index")?;
    let key_len = c.u16("key length")?;
    let key = c.take(key_len, "key")?;
    let value = if with_value { c.rest() } else { &[] };
    c.finish()?;
    Ok(EntryData { index, key, value })
}

/// `SPLIT` main data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitMain<'a> {
    pub level: u8,
    pub at: usize,
    pub pos: usize,
    pub separator: &'a [u8],
}

impl SplitMain<'_> {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(7 + self.separator.len());
        out.push(self.level);
        out.extend_from_slice(&u16_le(self.at));
        out.extend_from_slice(&u16_le(self.pos));
        out.extend_from_slice(&u16_le(self.separator.len()));
        out.extend_from_slice(self.separator);
        out
    }

    pub(crate) fn decode(data: &[u8]) -> Result<SplitMain<'_>, String> {
        let mut c = Cursor { bytes: data };
        let level = c.u8("level")?;
        let at = c.u16("split point")?;
        let pos = c.u16("parent position")?;
        let len = c.u16("separator length")?;
        let separator = c.take(len, "separator")?;
        c.finish()?;
        Ok(SplitMain {
            level,
            at,
            pos,
            separator,
        })
    }
}

/// `ROOT_SPLIT` main data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RootSplitMain<'a> {
    pub level: u8,
    pub separator: &'a [u8],
}

impl RootSplitMain<'_> {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(3 + self.separator.len());
        out.push(self.level);
        out.extend_from_slice(&u16_le(self.separator.len()));
        out.extend_from_slice(self.separator);
        out
    }

    pub(crate) fn decode(data: &[u8]) -> Result<RootSplitMain<'_>, String> {
        let mut c = Cursor { bytes: data };
        let level = c.u8("level")?;
        let len = c.u16("separator length")?;
        let separator = c.take(len, "separator")?;
        c.finish()?;
        Ok(RootSplitMain { level, separator })
    }
}

/// `UNLINK` main data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnlinkMain<'a> {
    pub pos: usize,
    pub high: Option<&'a [u8]>,
}

impl UnlinkMain<'_> {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let high = self.high.unwrap_or(&[]);
        let mut out = Vec::with_capacity(5 + high.len());
        out.extend_from_slice(&u16_le(self.pos));
        out.push(u8::from(self.high.is_some()));
        out.extend_from_slice(&u16_le(high.len()));
        out.extend_from_slice(high);
        out
    }

    pub(crate) fn decode(data: &[u8]) -> Result<UnlinkMain<'_>, String> {
        let mut c = Cursor { bytes: data };
        let pos = c.u16("parent position")?;
        let has_high = c.u8("high fence flag")?;
        let len = c.u16("high fence length")?;
        let bytes = c.take(len, "high fence")?;
        c.finish()?;
        let high = match has_high {
            0 if len == 0 => None,
            1 => Some(bytes),
            _ => return Err(format!("bad high fence flag {has_high} (length {len})")),
        };
        Ok(UnlinkMain { pos, high })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_reject_bad_lengths() {
        // Proves each payload decodes to what was encoded, and that a
        // truncated or extended payload is an error, not a panic.
        let split = SplitMain {
            level: 2,
            at: 17,
            pos: 3,
            separator: b"sep",
        };
        let bytes = split.encode();
        assert_eq!(SplitMain::decode(&bytes), Ok(split));
        assert!(SplitMain::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SplitMain::decode(&longer).is_err());

        let root = RootSplitMain {
            level: 0,
            separator: b"",
        };
        assert_eq!(RootSplitMain::decode(&root.encode()), Ok(root));

        for high in [None, Some(&b""[..]), Some(&b"high"[..])] {
            let unlink = UnlinkMain { pos: 1, high };
            assert_eq!(UnlinkMain::decode(&unlink.encode()), Ok(unlink));
        }
        assert!(UnlinkMain::decode(&[1, 0, 7, 0, 0]).is_err());

        let mut entry = encode_entry_header(5, 3).to_vec();
        entry.extend_from_slice(b"keyvalue");
        let decoded = decode_entry(&entry, true).unwrap();
        assert_eq!(
            (decoded.index, decoded.key, decoded.value),
            (5, &b"key"[..], &b"value"[..])
        );
        assert!(decode_entry(&entry, false).is_err());
        assert!(decode_entry(&entry[..5], true).is_err());
    }
}
