//! The `id` of `.keyvalue()`'s objects: PostgreSQL's byte offset of the
//! object in the document's binary jsonb (0 for the document itself),
//! computed from PostgreSQL's layout, since folio keeps jsonb as a tree.
//!
//! The layout (`jsonb.h`): a container is a 4-byte header, a 4-byte
//! entry per element (an object's keys' then its values'), then the
//! children's data in that order: a string's bytes, nothing for null
//! and booleans, a numeric as its varlena (4-byte header, 2-byte short
//! header, 2 bytes per base-10000 digit), a nested container; numerics
//! and containers start at a multiple of 4 bytes.

use folio_row::{Jsonb, Numeric};

/// The id of `object` in `root`: its offset in the first place, in
/// document order, where an equal object stands (0 if none does).
pub fn object_id(root: &Jsonb, object: &Jsonb) -> i64 {
    find(root, object, 0).unwrap_or(0) as i64
}

/// The offset of `target` at or inside `j`, which starts at `at`.
fn find(j: &Jsonb, target: &Jsonb, at: usize) -> Option<usize> {
    if j.cmp(target).is_eq() && matches!(j, Jsonb::Object(_)) {
        return Some(at);
    }
    let children: Vec<&Jsonb> = match j {
        Jsonb::Array(items) => items.iter().collect(),
        Jsonb::Object(members) => members.iter().map(|(_, v)| v).collect(),
        _ => return None,
    };
    let mut offset = at + data_start(j);
    for child in children {
        offset = aligned(child, offset);
        if let Some(found) = find(child, target, offset) {
            return Some(found);
        }
        offset += size(child);
    }
    None
}

/// Where a container's children's data start, past its header, entries
/// and (an object's) keys.
fn data_start(j: &Jsonb) -> usize {
    match j {
        Jsonb::Array(items) => 4 + 4 * items.len(),
        Jsonb::Object(members) => {
            4 + 8 * members.len() + members.iter().map(|(k, _)| k.len()).sum::<usize>()
        }
        _ => 0,
    }
}

/// `offset` moved to where `j` starts (numerics and containers at a
/// multiple of 4).
fn aligned(j: &Jsonb, offset: usize) -> usize {
    match j {
        Jsonb::Number(_) | Jsonb::Array(_) | Jsonb::Object(_) => offset.next_multiple_of(4),
        _ => offset,
    }
}

/// The bytes of `j`'s data.
fn size(j: &Jsonb) -> usize {
    match j {
        Jsonb::Null | Jsonb::Bool(_) => 0,
        Jsonb::String(s) => s.len(),
        Jsonb::Number(n) => {
            let digits = Numeric::parse(n)
                .ok()
                .and_then(|n| n.base10000())
                .map_or(0, |(_, d)| d.len());
            6 + 2 * digits
        }
        Jsonb::Array(items) => container_size(j, items.iter()),
        Jsonb::Object(members) => container_size(j, members.iter().map(|(_, v)| v)),
    }
}

fn container_size<'a>(j: &Jsonb, children: impl Iterator<Item = &'a Jsonb>) -> usize {
    let mut offset = data_start(j);
    for child in children {
        offset = aligned(child, offset) + size(child);
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the offsets PostgreSQL 15 gives as keyvalue() ids for
    // `[{"a": 1, "b": [1, 2]}, {"c": {"a": "bbb"}}]` (12 and 72).
    #[test]
    fn ids_are_postgresql_offsets() {
        let root = Jsonb::parse(r#"[{"a": 1, "b": [1, 2]}, {"c": {"a": "bbb"}}]"#).unwrap();
        let Jsonb::Array(items) = &root else {
            panic!("an array")
        };
        assert_eq!(object_id(&root, &items[0]), 12);
        assert_eq!(object_id(&root, &items[1]), 72);
        assert_eq!(object_id(&root, &root), 0);
    }
}
